# After pg_upgrade, artrie_adopt(old data directory) gives the artrie
# indexes of a database the old cluster's files, without REINDEX: they
# answer like a sequential scan, including changes made just before the
# old cluster stopped, take changes, and survive a restart and a crash.
# Refused, with the reason and the index left for REINDEX: an UNLOGGED
# index, a file the old cluster marked damaged, a file it lacks; and the
# whole call once the old cluster has run again since pg_upgrade.
use strict;
use warnings;
use Cwd;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $old = artrie_node('old', 'io_uring');
make_wtable($old, 't', 't_k', 1, 20000);
$old->safe_psql('postgres', q{
	CREATE UNIQUE INDEX t_id ON t USING artrie ((id::text));
	CREATE UNLOGGED TABLE tu (id int, k text COLLATE "C");
	INSERT INTO tu SELECT g, 'u' || g FROM generate_series(1, 500) g;
	CREATE INDEX tu_k ON tu USING artrie (k);
	CREATE TABLE td (id int, k text COLLATE "C");
	INSERT INTO td SELECT g, 'd' || g FROM generate_series(1, 500) g;
	CREATE INDEX td_k ON td USING artrie (k);
	CREATE TABLE tm (id int, k text COLLATE "C");
	INSERT INTO tm SELECT g, 'm' || g FROM generate_series(1, 500) g;
	CREATE INDEX tm_k ON tm USING artrie (k);
	CREATE DATABASE other;
});
$old->safe_psql('other', 'CREATE EXTENSION artrie');
make_wtable($old, 'w', 'w_k', 1, 3000, db => 'other');
# Changes just before the stop, in the pool and the WAL only.
$old->safe_psql('postgres', q{
	SELECT artrie_checkpoint();
	INSERT INTO t SELECT g, wkey(g) FROM generate_series(1000001, 1003000) g;
	DELETE FROM t WHERE id % 7 = 0;
});
my %want = (
	postgres => index_answers($old, 't', 'seq'),
	other => index_answers($old, 'w', 'seq', db => 'other'));
my %files = map {
	$_ => $old->safe_psql('postgres', "SELECT artrie_stats('$_')->>'file'")
} ('td_k', 'tm_k');
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
$new->append_conf('postgresql.conf', join("\n",
	"shared_preload_libraries = 'artrie'", "artrie.io_backend = 'io_uring'",
	'wal_level = replica'));
my $bindir = $new->config_data('--bindir');
my $cwd = getcwd();
chdir $PostgreSQL::Test::Utils::tmp_check;
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade of a cluster with artrie indexes');
chdir $cwd;
ok(-f $old->data_dir . '/artrie/upgrade_clean',
	'pg_upgrade\'s stop of the old cluster left artrie\'s note');

# One file marked damaged by the old cluster, one missing there.
PostgreSQL::Test::Utils::append_to_file($old->data_dir . "/$files{td_k}.damaged", 'test');
unlink($old->data_dir . "/$files{tm_k}") or die "unlink: $!";

$new->start;
my $olddir = $old->data_dir;
my $adopt = "SELECT index, adopted, coalesce(detail, '') FROM artrie_adopt('$olddir') ORDER BY index::text COLLATE \"C\"";
my $out = $new->safe_psql('postgres', $adopt);
my %row = map { my @f = split /\|/; ($f[0] => [ @f[ 1, 2 ] ]) } split /\n/, $out;
is($row{t_k}[0], 't', 'artrie_adopt: t_k adopted') or diag($out);
is($row{t_id}[0], 't', 'artrie_adopt: the UNIQUE expression index adopted');
is($row{tu_k}[0], 'f', 'artrie_adopt: the UNLOGGED index refused');
like($row{tu_k}[1], qr/UNLOGGED index "tu_k" cannot be adopted/, 'with the reason');
is($row{td_k}[0], 'f', 'artrie_adopt: a file marked damaged in the old cluster refused');
like($row{td_k}[1], qr/marked file "[^"]*" damaged/, 'with the reason');
is($row{tm_k}[0], 'f', 'artrie_adopt: a file missing in the old cluster refused');
like($row{tm_k}[1], qr/the old cluster has no file/, 'with the reason');

check_index($new, 't', 't_k', 'adopted', want => $want{postgres});
verify_ok($new, 't_k', 'adopted');
verify_ok($new, 't_id', 'adopted');
is($new->safe_psql('postgres',
		q{SELECT string_agg(index::text, ',' ORDER BY index::text COLLATE "C") FROM artrie_indexes WHERE problem IS NOT NULL}),
	'td_k,tm_k,tu_k', 'artrie_indexes lists only the refused indexes');
sql_ok($new, q{
	INSERT INTO t SELECT g, wkey(g) FROM generate_series(2000001, 2001000) g;
	UPDATE t SET k = k || '-u' WHERE id % 11 = 0;
	VACUUM t;
}, 'the adopted index takes INSERT, UPDATE and VACUUM');
my ($ret, $o, $err) = $new->psql('postgres', 'INSERT INTO t VALUES (5, NULL)');
like($err, qr/duplicate key value violates unique constraint "t_id"/,
	'the adopted UNIQUE index knows the old rows');
check_index($new, 't', 't_k', 'adopted, after changes');
is($new->safe_psql('postgres', $adopt) =~ /^t_k\|f\|usable already$/m ? 1 : 0, 1,
	'artrie_adopt again: the adopted index is usable already');
sql_ok($new, 'REINDEX INDEX tu_k; REINDEX INDEX td_k; REINDEX INDEX tm_k',
	'REINDEX makes the refused ones whole');

# The other database, then a restart and a crash.
$out = $new->safe_psql('other', $adopt);
is($out, 'w_k|t|', 'artrie_adopt in the other database');

# The files left are exactly those the indexes name: the ones that
# pg_upgrade's restore built are gone.
$new->safe_psql('postgres', 'SELECT artrie_checkpoint()');
my @named = sort map { s{^artrie/}{}r } grep { $_ ne '' } map {
	split /\n/, $new->safe_psql($_, q{
		SELECT artrie_stats(c.oid)->>'file' FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'artrie' AND c.relkind = 'i'})
} ('postgres', 'other');
# (An UNLOGGED index's file in use has its in-use mark beside it.)
my %have = map { $_ => 1 } artrie_files($new);
my @have = grep { !/^(.*)\.inuse$/ || !$have{$1} } sort keys %have;
is_deeply(\@have, \@named, 'the files are exactly those of the indexes');
check_index($new, 'w', 'w_k', 'other database, adopted', db => 'other', want => $want{other});
my $before = index_answers($new, 't', 'seq');
$new->restart;
check_index($new, 't', 't_k', 'adopted, after a restart', want => $before);
$new->safe_psql('postgres', "INSERT INTO t SELECT g, wkey(g) FROM generate_series(3000001, 3000500) g");
$before = index_answers($new, 't', 'seq');
crash_node($new);
$new->start;
check_index($new, 't', 't_k', 'adopted, after a crash', want => $before);

# The old cluster started again since: its note is gone, nothing is
# adopted from it.
$old->start;
$old->stop;
ok(!-e $old->data_dir . '/artrie/upgrade_clean', 'a start of the old cluster removes the note');
($ret, $o, $err) = $new->psql('postgres', "SELECT * FROM artrie_adopt('$olddir')");
isnt($ret, 0, 'artrie_adopt refuses a cluster that ran since pg_upgrade');
like($err, qr/no note that pg_upgrade stopped it/, 'and says why');

$new->stop;
done_testing();
