# pg_upgrade carries the indexes' main forks but not artrie's files.  The
# first start of the new cluster says in one line of the log how many
# artrie indexes need REINDEX and how to find them; statements that do
# not use or maintain those indexes work, the others get an ERROR with the
# REINDEX hint, and REINDEX makes an index whole again.  A copy of another
# cluster's artrie directory is reported at start in one line too.
use strict;
use warnings;
use Cwd;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $old = artrie_node('old', 'mmap');
$old->safe_psql('postgres', q{
	CREATE TABLE t (id int PRIMARY KEY, k text COLLATE "C", v int) WITH (fillfactor = 50);
	INSERT INTO t SELECT g, 'key-' || g, 0 FROM generate_series(1, 1000) g;
	CREATE INDEX t_k ON t USING artrie (k);
	CREATE TABLE u (k text);
	INSERT INTO u VALUES ('a');
	CREATE INDEX u_k ON u USING artrie (k);
	CREATE DATABASE other;
});
$old->safe_psql('other', q{
	CREATE EXTENSION artrie;
	CREATE TABLE w (k text);
	CREATE INDEX w_k ON w USING artrie (k);
});
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
$new->append_conf('postgresql.conf', join("\n",
	"shared_preload_libraries = 'artrie'", "artrie.io_backend = 'mmap'",
	'wal_level = replica'));

# pg_upgrade writes its logs under the new data directory and wants a
# working directory it may write to.
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

my $offset = -s $new->logfile;
$new->start;
ok($new->wait_for_log(
		qr/LOG:  artrie: 3 indexes need their files: pg_upgrade does not carry artrie's files; in each database, run SELECT \* FROM artrie_adopt\('<the old data directory>'\) to take them from the old cluster, and REINDEX every index that SELECT index FROM artrie_indexes WHERE problem IS NOT NULL still lists/,
		$offset),
	'the first start says in one line how many indexes need REINDEX and how to find them');

# Statements that neither use nor maintain the index work.
is($new->safe_psql('postgres', 'SELECT count(*) FROM t'), '1000',
	'SELECT count(*) works');
my ($ret, $out, $err) = $new->psql('postgres',
	'UPDATE t SET v = v + 1 WHERE id = 5; SELECT v FROM t WHERE id = 5');
is($ret, 0, 'UPDATE ... WHERE id = 5 (through the btree, HOT) works');
is($out, '1', 'and updates the row');
($ret, $out, $err) = $new->psql('postgres',
	"SET enable_seqscan = off; SELECT id FROM t WHERE k = 'key-7'");
is($out, '7', 'a query the index could answer runs without it');
like($err, qr/WARNING: .*t_k/, 'with a WARNING naming the index');
like($err, qr/HINT: .*REINDEX/, 'and hinting at REINDEX');

# Statements that maintain the index get the ERROR.
($ret, $out, $err) = $new->psql('postgres', "INSERT INTO t VALUES (2000, 'key-2000', 0)");
isnt($ret, 0, 'an INSERT that must maintain the index fails');
like($err, qr/ERROR: .*t_k/, 'the error names the index');
like($err, qr/HINT: .*REINDEX/, 'the hint says REINDEX');

# The view lists what needs REINDEX; REINDEX makes the index whole.
is($new->safe_psql('postgres',
		'SELECT string_agg(index::text, \',\' ORDER BY index::text COLLATE "C") FROM artrie_indexes WHERE problem IS NOT NULL'),
	't_k,u_k', 'artrie_indexes lists the indexes that need REINDEX');
$new->safe_psql('postgres', 'REINDEX INDEX t_k');
is($new->safe_psql('postgres',
		"SET enable_seqscan = off; SELECT id FROM t WHERE k ^@ 'key-99' ORDER BY id"),
	join("\n", 99, 990 .. 999), 'after REINDEX the index answers');
is($new->safe_psql('postgres',
		'SELECT count(*) FROM artrie_indexes WHERE problem IS NULL AND index = \'t_k\'::regclass'),
	'1', 'and has no problem any more');
$new->safe_psql('postgres', "INSERT INTO t VALUES (2000, 'key-2000', 0)");
is($new->safe_psql('postgres',
		"SET enable_seqscan = off; SELECT id FROM t WHERE k = 'key-2000'"),
	'2000', 'and takes new rows');

# Said once.
$offset = -s $new->logfile;
$new->restart;
$new->safe_psql('postgres', 'SELECT 1');
unlike(slurp_file($new->logfile, $offset), qr/indexes need their files/,
	'the next start does not say it again');
ok(!-e $new->data_dir . '/artrie/pg_upgrade_reindex', 'the marker is gone');

# artrie's directory copied from another cluster: its control file names
# that cluster, and the start says so in one line.
$new->stop;
copy($old->data_dir . '/artrie/control', $new->data_dir . '/artrie/control')
  or die "copy: $!";
$offset = -s $new->logfile;
$new->start;
ok($new->wait_for_log(
		qr/LOG:  artrie: the control file in \$PGDATA\/artrie is of another cluster \(system identifier \d+, this one's \d+\), so artrie's directory was copied from elsewhere: every artrie index whose file was last checkpointed before [0-9A-F]+\/[0-9A-F]+ is refused until REINDEX/,
		$offset),
	'a control file of another cluster is reported at start in one line');
$offset = -s $new->logfile;
$new->restart;
$new->safe_psql('postgres', 'SELECT 1');
unlike(slurp_file($new->logfile, $offset), qr/of another cluster/,
	'once: the next start finds this cluster\'s control file');

$new->stop;
done_testing();
