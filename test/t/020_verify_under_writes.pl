# artrie_verify() and artrie_stats() (with and without its walk) while
# other sessions insert into the same index: the walk sees one state of
# the trie, so neither reports a sound index as corrupt; afterwards the
# distinct keys the concurrent inserts kept equal a walk's.  (They used to check "every record reached"
# after letting go of the root's lock, and counted records that inserts
# had placed meanwhile as unreachable: "record not reachable".)  Then the
# same while VACUUM frees pages the walk has queued (see below).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('verify', 'io_uring', 'autovacuum = off');
$node->safe_psql('postgres', q{
	CREATE TABLE t (id serial, k text COLLATE "C");
	INSERT INTO t (k) SELECT md5(g::text) FROM generate_series(1, 50000) g;
	CREATE INDEX t_k ON t USING artrie (k);
});

# Start pgbench running the script text for secs seconds with clients
# sessions on node; its output goes to $$out and $$err.
sub start_pgbench
{
	my ($node, $text, $clients, $secs, $out, $err) = @_;
	my $script = PostgreSQL::Test::Utils::tempdir . '/writers.sql';
	PostgreSQL::Test::Utils::append_to_file($script, $text);
	return IPC::Run::start(
		[ 'pgbench', '-n', '-c', $clients, '-T', $secs, '-f', $script,
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', $out, '2>', $err);
}

# Run each of @sql on node, over and over for secs seconds; returns the
# number of calls and the errors.
sub check_for
{
	my ($node, $secs, @sql) = @_;
	my ($calls, @errors) = (0);
	my $until = time() + $secs;
	while (time() < $until)
	{
		for my $sql (@sql)
		{
			my ($ret, $out, $err) = $node->psql('postgres', $sql);
			$calls++;
			push @errors, $err if $ret != 0;
		}
	}
	return ($calls, @errors);
}

my ($wout, $werr) = ('', '');
my $writers = start_pgbench($node,
	"INSERT INTO t (k) VALUES (md5(random()::text));\n", 3, 12, \$wout, \$werr);

# Check and count, over and over, while the writers run.
my ($calls, @errors) = check_for($node, 10, "SELECT artrie_verify('t_k')",
	"SELECT artrie_stats('t_k') IS NOT NULL",
	"SELECT artrie_stats('t_k', walk => true) IS NOT NULL");
$writers->finish;
like($wout, qr/number of transactions actually processed: [1-9]/,
	'the writers inserted meanwhile');
cmp_ok($calls, '>=', 4, "artrie_verify and artrie_stats ran $calls times");
is(scalar(@errors), 0, 'none of them reported an error')
  or diag($errors[0]);
# The distinct keys kept by the concurrent inserts equal a walk's and the
# table's.
like($node->safe_psql('postgres', q{
	SELECT concat_ws(' ', s->>'distinct_keys', w->>'distinct_keys', c)
	FROM (SELECT artrie_stats('t_k') AS s, artrie_stats('t_k', true) AS w,
		(SELECT count(DISTINCT k) FROM t) AS c) x}), qr/^(\d+) \1 \1$/,
	"the distinct keys kept by concurrent inserts equal a walk's and the table's");
my ($vret, $vout, $verr) = $node->psql('postgres', "SELECT artrie_verify('t_k', true)");
ok($vret == 0 && $verr eq '', 'the index is sound afterwards') or diag($verr);
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) = (SELECT count(*) FROM t WHERE k IS NOT NULL) FROM t WHERE k >= ''}), 't',
	'the index holds every row');

# The same while VACUUM frees pages under the walk, on a pool much
# smaller than the index: writers empty a sixteenth of the keys, vacuum
# it (whole subtrees go, pages their parents led to are freed) and fill
# it again (the freed page numbers are reused).  A walk that queued the
# subtrees of a page went on to pin that page after VACUUM had freed it:
# read again, it was "not allocated" and the pager reported the sound
# index as corrupted; still in the pool, its stale or reused contents
# were walked.
$node->stop;
$node = artrie_node('verify_vacuum', 'io_uring', 'autovacuum = off',
	"artrie.buffer_pool_size = '1MB'");
$node->safe_psql('postgres', q{
	CREATE TABLE v (k text COLLATE "C");
	INSERT INTO v SELECT md5(g::text) FROM generate_series(1, 200000) g;
	CREATE INDEX v_k ON v USING artrie (k);
});
($wout, $werr) = ('', '');
$writers = start_pgbench($node, q{\set p random(0, 7)
DELETE FROM v WHERE k >= to_hex(:p * 2) AND k < to_hex(:p * 2 + 2);
VACUUM v;
INSERT INTO v SELECT to_hex(:p * 2 + g % 2) || md5(random()::text)
FROM generate_series(1, 25000) g;
}, 2, 25, \$wout, \$werr);
($calls, @errors) = check_for($node, 23, "SELECT artrie_verify('v_k')",
	"SELECT artrie_stats('v_k', walk => true) IS NOT NULL");
$writers->finish;
like($wout, qr/number of transactions actually processed: [1-9]/,
	'the vacuuming writers ran meanwhile') or diag($werr);
# A walk on the small pool takes about a second on an idle machine; at a
# load of 15 only two ran.
cmp_ok($calls, '>=', 2, "artrie_verify and artrie_stats ran $calls times under VACUUM");
is(scalar(@errors), 0, 'none of them reported an error under VACUUM')
  or diag($errors[0]);
($vret, $vout, $verr) = $node->psql('postgres', "SELECT artrie_verify('v_k', true)");
ok($vret == 0 && $verr eq '', 'that index is sound afterwards') or diag($verr);

$node->stop;
done_testing();
