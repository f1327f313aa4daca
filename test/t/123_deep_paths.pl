# Keys whose paths run through hundreds of pages (a 1 MiB run of 'x' with
# keys branching from it every 4,000 bytes), replayed on a hot standby and
# after a crash.  WAL redo inserts through a finger that held every page
# of its path exclusive: past PostgreSQL's 200 LWLocks a process, the
# startup process failed ("too many LWLocks taken"), so a crashed primary
# did not come back (a standby replays with the same code).  Now a finger
# lets a path deeper than 64 pages go and inserts as a backend does, and
# scans lock at most 64 pages at once: on the standby, after replay, and
# on the primary after kill -9 and restart, the index answers forward and
# backward scans as a sequential scan does, and artrie_verify passes.
# Then the same for VACUUM's deletes of such entries.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $primary = artrie_primary('deep', 'io_uring');
# The standby streams through a slot, as a production standby would: the
# VACUUM below writes hundreds of MB of WAL, and without a slot the
# primary's checkpoints removed segments a standby that lagged on this
# two-core machine had not received yet ("requested WAL segment ... has
# already been removed"), so its replay waited for WAL that never came.
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('deep_standby')");
my $standby = artrie_standby($primary, 'deep_standby', start => 0);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'deep_standby'");
$standby->start;
$primary->safe_psql('postgres', q{
	CREATE TABLE d (id int, k text COLLATE "C");
	ALTER TABLE d ALTER COLUMN k SET STORAGE EXTERNAL;
	CREATE INDEX d_k ON d USING artrie (k);
	INSERT INTO d VALUES (0, repeat('x', 1048576));
	INSERT INTO d SELECT n, repeat('x', n * 4000) || 'd' FROM generate_series(1, 250) n;
	INSERT INTO d SELECT 1000 + n, repeat('x', n * 4000) || 'y' FROM generate_series(150, 250) n;
});

# label => SQL returning one value
my @queries = (
	deep => q{SELECT (artrie_stats('d_k', true)->'key_trie'->>'page_height')::int > 200},
	count => q{SELECT count(*) FROM d WHERE k ^@ 'xxx'},
	tail => q{SELECT count(*) FROM d WHERE k ^@ repeat('x', 900000)},
	forward => q{SELECT string_agg(id::text, ',') FROM
		(SELECT id FROM d WHERE k > repeat('x', 980000) ORDER BY k) s},
	backward => q{SELECT string_agg(id::text, ',') FROM
		(SELECT id FROM d WHERE k < repeat('x', 20000) ORDER BY k DESC) s},
	exact => q{SELECT id FROM d WHERE k = repeat('x', 800000) || 'y'},
);

# The answers of every query on node, through the index or by a
# sequential scan (the scan's plan checked).
sub answers
{
	my ($node, $index) = @_;
	my $set = $index ?
	  'SET enable_seqscan = off; SET enable_bitmapscan = off;' :
	  'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	my @out;
	for (my $i = 0; $i < @queries; $i += 2)
	{
		my ($label, $q) = @queries[ $i, $i + 1 ];
		my ($ret, $out, $err) = $node->psql('postgres', "$set $q");
		push @out, "$label=" . ($ret == 0 ? $out : "ERROR $err");
	}
	return join("\n", @out);
}

my $want = answers($primary, 0);
like($want, qr/^deep=t$/m, 'the index is deeper than 200 pages');
unlike($want, qr/ERROR/, 'the sequential scans answer');
is(answers($primary, 1), $want, 'primary: the index answers as the table');

wait_replayed($primary, $standby);
is(answers($standby, 1), $want, 'standby: the index answers as the table after replay');
my ($ret, $out, $err) = $standby->psql('postgres', "SELECT artrie_verify('d_k')");
is($ret, 0, 'standby: artrie_verify passes') or diag($err);

# The same inserts again, not yet checkpointed, then a crash: recovery
# replays them.
$primary->safe_psql('postgres', q{
	CHECKPOINT;
	SELECT artrie_checkpoint();
	TRUNCATE d;
	INSERT INTO d VALUES (0, repeat('x', 1048576));
	INSERT INTO d SELECT n, repeat('x', n * 4000) || 'd' FROM generate_series(1, 250) n;
	INSERT INTO d SELECT 1000 + n, repeat('x', n * 4000) || 'y' FROM generate_series(150, 250) n;
});
crash_node($primary);
start_ok($primary, 'after the crash') or BAIL_OUT('the primary does not start');
is(answers($primary, 1), $want, 'primary after the crash: the index answers as before');
($ret, $out, $err) = $primary->psql('postgres', "SELECT artrie_verify('d_k', true)");
is($ret, 0, 'primary after the crash: artrie_verify passes') or diag($err);

wait_replayed($primary, $standby);
is(answers($standby, 1), $want, 'standby: the index answers as the table after more replay');

# VACUUM's deletes of such entries, deepest first (the index's order),
# replayed on the standby and, not yet checkpointed, after a crash.  A
# delete held its whole path exclusive: VACUUM failed with "too many
# LWLocks taken".  A delete of a path longer than 64 pages now changes it
# a page at a time, so queries on the standby run through the replay of
# each: every one of them must find the rows VACUUM keeps, in key order.
my $keep = 'id % 3 <> 0 AND id <> 0';
my $kept_count = $primary->safe_psql('postgres',
	"SELECT count(*) FROM d WHERE $keep");
my $kept_order = $primary->safe_psql('postgres',
	"SELECT string_agg(id::text, ',' ORDER BY k) FROM d WHERE k > repeat('x', 980000) AND $keep");
my $dir = PostgreSQL::Test::Utils::tempdir();
my $loop = start_sql_loop($standby, $dir, qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
DO \$\$
DECLARE
	n bigint;
	o text;
BEGIN
	SELECT count(*) INTO n FROM d WHERE k ^@ 'xxx' AND $keep;
	SELECT string_agg(id::text, ',') INTO o FROM
		(SELECT id FROM d WHERE k > repeat('x', 980000) AND $keep ORDER BY k) s;
	IF n <> $kept_count OR o IS DISTINCT FROM '$kept_order' THEN
		RAISE EXCEPTION 'standby: % rows, in order %', n, o;
	END IF;
	RAISE LOG 'deep paths: a check passed';
END \$\$;
}, 100000);
$primary->safe_psql('postgres', q{
	CHECKPOINT;
	SELECT artrie_checkpoint();
	DELETE FROM d WHERE id % 3 = 0 OR id = 0;
});
my $logpos = -s $standby->logfile;
($ret, $out, $err) = $primary->psql('postgres', 'VACUUM d');
is($ret, 0, 'VACUUM removes the deep entries') or diag($err);
my $vacuumed = answers($primary, 0);
isnt($vacuumed, $want, 'the deletes change the answers');
like($vacuumed, qr/^deep=t$/m, 'the index is still deeper than 200 pages');
is(answers($primary, 1), $vacuumed, 'primary: the index answers as the table after VACUUM');
wait_replayed($primary, $standby);
ok($loop->pumpable, 'standby: the queries ran through the whole replay of VACUUM');
my $checks = () = slurp_file($standby->logfile, $logpos) =~ /deep paths: a check passed/g;
cmp_ok($checks, '>=', 2, 'standby: queries ended between the start of VACUUM and the end of its replay');
$loop->kill_kill;
$loop->finish;
is(slurp_file("$dir/loop.err"), '',
	'standby: every query during the replay found the rows VACUUM keeps, in order');
is(answers($standby, 1), $vacuumed, 'standby: the index answers as the table after replaying VACUUM');
crash_node($primary);
start_ok($primary, 'after a crash that follows VACUUM') or BAIL_OUT('the primary does not start');
is(answers($primary, 1), $vacuumed, 'primary after the crash: the index answers as after VACUUM');
($ret, $out, $err) = $primary->psql('postgres', "SELECT artrie_verify('d_k', true)");
is($ret, 0, 'primary after the crash: artrie_verify passes after VACUUM') or diag($err);

$standby->stop;
$primary->stop;
done_testing();
