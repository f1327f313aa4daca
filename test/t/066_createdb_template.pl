# CREATE DATABASE ... TEMPLATE copies the template's artrie indexes (both
# strategies, WAL_LOG and FILE_COPY): in the new database they answer
# like a sequential scan, including changes the template made after its
# last checkpoint, and take INSERT, UPDATE and VACUUM without REINDEX,
# independently of the template's; a streaming standby and crash recovery
# have the copies too.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $primary = artrie_primary('tpl_primary', 'io_uring');
my $standby = artrie_standby($primary, 'tpl_standby');

$primary->safe_psql('postgres', q{
	CREATE DATABASE dsrc;
	CREATE TABLESPACE ts1 LOCATION '';
});
$primary->safe_psql('dsrc', 'CREATE EXTENSION artrie');
make_wtable($primary, 't', 't_k', 1, 20000, db => 'dsrc');
make_wtable($primary, 'tt', 'tt_k', 1, 3000, db => 'dsrc', tablespace => 'ts1');
$primary->safe_psql('dsrc', q{
	CREATE UNLOGGED TABLE tu (id int, k text COLLATE "C");
	INSERT INTO tu SELECT g, wkey(g) FROM generate_series(1, 2000) g;
	CREATE INDEX tu_k ON tu USING artrie (k);
	CREATE TABLE tx (id int, k text COLLATE "C");
	INSERT INTO tx SELECT g, 'x' || g FROM generate_series(1, 100) g;
	CREATE INDEX tx_k ON tx USING artrie (k);
	CREATE TABLE ty (id int, k text COLLATE "C");
	INSERT INTO ty SELECT g, 'y' || g FROM generate_series(1, 100) g;
	CREATE INDEX ty_k ON ty USING artrie (k);
	CREATE TABLE tq (id int, k text COLLATE "C");
	INSERT INTO tq SELECT g, 'q' || g FROM generate_series(1, 500) g;
	CREATE UNIQUE INDEX tq_k ON tq USING artrie (k);
	-- changes after the builds, in the pool and the WAL only
	INSERT INTO t SELECT g, wkey(g) FROM generate_series(1000001, 1004000) g;
	DELETE FROM t WHERE id % 7 = 0;
	INSERT INTO tu SELECT g, wkey(g) FROM generate_series(1000001, 1000500) g;
});
my %src = map { $_ => index_answers($primary, $_, 'seq', db => 'dsrc') } ('t', 'tt', 'tu');

$primary->safe_psql('postgres', 'CREATE DATABASE dcopy TEMPLATE dsrc');
$primary->safe_psql('postgres', 'CREATE DATABASE dfile TEMPLATE dsrc STRATEGY FILE_COPY');

sub seq_count
{
	my ($node, $db, $table) = @_;
	return $node->safe_psql($db, "SELECT count(*) FROM $table WHERE k >= ''");
}

sub index_count
{
	my ($node, $db, $table) = @_;
	return $node->safe_psql($db, qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM $table WHERE k >= ''});
}

for my $db ('dcopy', 'dfile')
{
	my $oid = $primary->safe_psql('postgres',
		"SELECT oid FROM pg_database WHERE datname = '$db'");
	is($primary->safe_psql($db, q{
			SELECT count(*) FROM artrie_indexes
			WHERE problem IS NULL AND file ^@ ('artrie/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/')}),
		'6', "$db: its six indexes have files of their own, with no problem");
	is(join(',', map { (split m{/})[0] } artrie_files($primary)) =~ /\b$oid\b/ ? 1 : 0,
		1, "$db: artrie/$oid exists");
	check_index($primary, $_, "${_}_k", "$db, as copied", db => $db, want => $src{$_})
	  for ('t', 'tt');
	is(index_count($primary, $db, 'tu'), seq_count($primary, 'dsrc', 'tu'),
		"$db: the UNLOGGED index has every row");
	sql_ok($primary, q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(2000001, 2001000) g;
		UPDATE t SET k = k || '-u' WHERE id % 11 = 0;
		DELETE FROM t WHERE id % 13 = 0;
		VACUUM t;
		INSERT INTO tt SELECT g, wkey(g) FROM generate_series(2000001, 2000100) g;
		INSERT INTO tu VALUES (-1, 'w-new');
		INSERT INTO tq VALUES (501, 'q501');
	}, "$db: INSERT, UPDATE, DELETE and VACUUM work without REINDEX", db => $db);
	my ($ret, $out, $err) = $primary->psql($db, "INSERT INTO tq VALUES (0, 'q7')");
	like($err, qr/duplicate key value violates unique constraint "tq_k".*\n.*Key \(k\)=\(q7\) already exists/,
		"$db: the UNIQUE index still knows the template's keys");
	check_index($primary, $_, "${_}_k", "$db, after changes", db => $db) for ('t', 'tt');
	is(index_count($primary, $db, 'tu'), seq_count($primary, $db, 'tu'),
		"$db: the UNLOGGED index took the insert");
	verify_ok($primary, $_, $db, db => $db) for ('t_k', 'tt_k', 'tu_k', 'tq_k');
}

# The template is untouched by the copies' changes, and its own changes
# do not reach them.
check_index($primary, 't', 't_k', 'dsrc after the copies changed', db => 'dsrc', want => $src{t});
$primary->safe_psql('dsrc', "INSERT INTO t VALUES (-5, 'only-in-dsrc')");
is($primary->safe_psql('dcopy', "SET enable_seqscan = off; SELECT count(*) FROM t WHERE k = 'only-in-dsrc'"),
	'0', 'a row inserted into the template later is not in the copy');
is($primary->safe_psql('dsrc', "SET enable_seqscan = off; SELECT count(*) FROM t WHERE k = 'only-in-dsrc'"),
	'1', 'but is in the template');

# The standby has the copies, and their changes since.
wait_replayed($primary, $standby);
for my $db ('dcopy', 'dfile')
{
	my %want = map { $_ => index_answers($primary, $_, 'seq', db => $db) } ('t', 'tt');
	check_index($standby, $_, "${_}_k", "standby, $db", db => $db, want => $want{$_})
	  for ('t', 'tt');
}

# Crash recovery replays the copies' images and changes.
my %before = map { $_ => index_answers($primary, 't', 'seq', db => $_) } ('dcopy', 'dfile');
crash_node($primary);
start_ok($primary, 'after a crash');
for my $db ('dcopy', 'dfile')
{
	check_index($primary, 't', 't_k', "after a crash, $db", db => $db, want => $before{$db});
	is(index_count($primary, $db, 'tu'), '0', "after a crash, $db: the UNLOGGED index is empty, like its table");
	sql_ok($primary, "INSERT INTO t VALUES (-7, 'after-crash'); INSERT INTO tu VALUES (1, 'after-crash')",
		"after a crash, $db: inserts work", db => $db);
	is(index_count($primary, $db, 'tu'), '1', "after a crash, $db: the UNLOGGED index takes rows");
}
is(index_count($primary, 'dsrc', 'tu'), '0', 'after a crash, dsrc: its UNLOGGED index is empty too');

# A template's file that cannot be used is not copied: one marked
# damaged (as redo marks a file it could not apply a record to) with a
# WARNING at CREATE DATABASE, one missing silently; in the new database
# those indexes refuse with the REINDEX hint until rebuilt, the others
# are copied.
my %file = map {
	$_ => $primary->data_dir . '/'
	  . $primary->safe_psql('dsrc', "SELECT artrie_stats('$_')->>'file'")
} ('tx_k', 'ty_k');
$primary->stop;
PostgreSQL::Test::Utils::append_to_file("$file{tx_k}.damaged", 'damaged for the test');
unlink($file{ty_k}) or die "unlink $file{ty_k}: $!";
$primary->start;
my ($ret, $out, $err) = $primary->psql('postgres', 'CREATE DATABASE dbad TEMPLATE dsrc');
is($ret, 0, 'a template with a damaged and a missing file: CREATE DATABASE succeeds');
like($err, qr/WARNING:  could not copy artrie file "[^"]*" for database dbad: [^\n]*\nDETAIL:  damaged for the test\nHINT:  REINDEX/,
	'with a WARNING for the damaged file that hints at REINDEX');
for my $t ('tx', 'ty')
{
	($ret, $out, $err) = $primary->psql('dbad', "INSERT INTO $t VALUES (0, '${t}0')");
	isnt($ret, 0, "the copy of ${t}_k refuses an insert");
	like($err, qr/ERROR:  .*index "${t}_k".*\n(.*\n)*HINT:  .*REINDEX/, 'with the REINDEX hint');
	sql_ok($primary, "REINDEX INDEX ${t}_k; INSERT INTO $t VALUES (0, '${t}0')",
		"REINDEX makes ${t}_k work", db => 'dbad');
}
check_index($primary, 't', 't_k', 'dbad', db => 'dbad');

$standby->stop;
$primary->stop;
done_testing();
