# pg_repack of a table with artrie indexes, of its indexes only
# (--only-indexes), and into a tablespace (--tablespace --moveidx), on
# both I/O backends: afterwards every index answers
# like a sequential scan (and like before), artrie_verify finds it sound,
# it takes writes, and once the sweep has run, the files under
# $PGDATA/artrie are exactly those that artrie_indexes names.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

plan skip_all => 'pg_repack is not installed'
  unless grep { -x "$_/pg_repack" } split /:/, $ENV{PATH};

# Every artrie index of rt: answers, soundness.
sub indexes_ok
{
	my ($node, $label, $before) = @_;
	check_index($node, 'rt', 'rt_k', $label, want => $before);
	verify_ok($node, $_, $label) for ('rt_k', 'rt_kv');
	my $q = q{SELECT count(*) || '/' || coalesce(sum(id), 0) FROM rt
		WHERE (v || '/' || id) ^@ 'v1'};
	my $probe = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $seq = $node->safe_psql('postgres', $q);
	is($probe, $seq, "$label: rt_kv answers like a sequential scan");
	return;
}

for my $backend (backends())
{
	my $node = artrie_node("repack_$backend", $backend);
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_repack');
	make_wtable($node, 'rt', 'rt_k', 1, 20000);
	$node->safe_psql('postgres', q{
		ALTER TABLE rt ADD PRIMARY KEY (id), ADD COLUMN v text COLLATE "C";
		UPDATE rt SET v = 'v' || (id % 300);
		CREATE UNIQUE INDEX rt_kv ON rt USING artrie ((v || '/' || id));
		DELETE FROM rt WHERE id % 7 = 0;
		UPDATE rt SET k = k || '/u' WHERE id % 11 = 0;
	});
	my $before = index_answers($node, 'rt', 'seq');
	indexes_ok($node, "$backend: before");
	my @old = named_files($node);

	$node->command_ok([ 'pg_repack', '--dbname' => 'postgres', '--table' => 'rt' ],
		"$backend: pg_repack of the table");
	indexes_ok($node, "$backend: pg_repack", $before);
	my @new = named_files($node);
	ok(!grep({ my $o = $_; grep { $_ eq $o } @new } @old),
		"$backend: pg_repack: the indexes have new files");
	files_ok($node, "$backend: pg_repack");

	$node->command_ok(
		[ 'pg_repack', '--dbname' => 'postgres', '--table' => 'rt', '--only-indexes' ],
		"$backend: pg_repack --only-indexes");
	indexes_ok($node, "$backend: pg_repack --only-indexes", $before);
	files_ok($node, "$backend: pg_repack --only-indexes");

	# Into a tablespace, indexes too (--moveidx): the files follow.
	my $tsdir = PostgreSQL::Test::Utils::tempdir;
	$node->safe_psql('postgres', "CREATE TABLESPACE ts LOCATION '$tsdir'");
	$node->command_ok(
		[ 'pg_repack', '--dbname' => 'postgres', '--table' => 'rt',
		  '--tablespace' => 'ts', '--moveidx' ],
		"$backend: pg_repack --tablespace --moveidx");
	is($node->safe_psql('postgres', q{
		SELECT string_agg(c.relname || ':' || coalesce(t.spcname, '-'), ',' ORDER BY c.relname)
		FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
		WHERE c.relname IN ('rt_k', 'rt_kv')}), 'rt_k:ts,rt_kv:ts',
		"$backend: pg_repack --moveidx: the indexes are in the tablespace");
	indexes_ok($node, "$backend: pg_repack --tablespace --moveidx", $before);
	files_ok($node, "$backend: pg_repack --tablespace --moveidx");

	# The repacked indexes take writes, and keep them across a crash.
	$node->safe_psql('postgres', q{
		INSERT INTO rt SELECT g, wkey(g), 'v' || g FROM generate_series(20001, 21000) g;
		DELETE FROM rt WHERE id % 13 = 0;
		VACUUM rt;
	});
	my $after = index_answers($node, 'rt', 'seq');
	crash_node($node);
	$node->start;
	indexes_ok($node, "$backend: writes after pg_repack, then a crash", $after);
	$node->stop;
}

done_testing();
