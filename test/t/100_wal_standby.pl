# Issue 12: artrie's changes reach a streaming standby through
# PostgreSQL's WAL.  A primary with a hot standby; four writers insert,
# delete, update and VACUUM a table with an artrie index on a "C" text
# column (NULLs and keys past btree's length limit among them); once they
# stop and the standby has replayed the primary's current LSN, every query
# forced through the index on the standby (plain, index-only, ordered and
# bitmap scans: =, = ANY, ^@, LIKE, ranges, ORDER BY ... LIMIT forward
# and backward, IS NULL) answers exactly what it answers on the primary
# and what a sequential scan answers on the standby, and artrie_verify
# passes there.  Indexes made on the primary after the standby was set up
# (CREATE INDEX, CREATE INDEX CONCURRENTLY, REINDEX, REINDEX
# CONCURRENTLY, TRUNCATE, ALTER INDEX SET TABLESPACE) answer on the
# standby too.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Compare the standby with the primary, for each (table, index), after
# the standby has replayed everything the primary wrote: on the standby
# the index answers what it answers on the primary, what a sequential
# scan answers there, and artrie_verify passes.
sub compare
{
	my ($primary, $standby, $label, @pairs) = @_;
	wait_replayed($primary, $standby);
	while (my ($table, $index) = splice(@pairs, 0, 2))
	{
		my $want = index_answers($primary, $table, 'index');
		is($want, index_answers($primary, $table, 'seq'),
			"$label, primary: $index answers like a sequential scan");
		check_index($standby, $table, $index, "$label, standby", want => $want);
		verify_ok($standby, $index, "$label, standby");
	}
	return;
}

for my $backend (backends())
{
	my $dir = PostgreSQL::Test::Utils::tempdir;
	my $primary = artrie_primary("primary_$backend", $backend);
	make_wtable($primary, 't', 't_k', 1, 4000);

	my $standby = artrie_standby($primary, "standby_$backend");

	# Four writers; a second VACUUM by hand meanwhile.
	my $w = start_writers($primary, 't', $dir, 1);
	my $n = writers_wait($w, 1500, 60);
	$primary->safe_psql('postgres', 'VACUUM t');
	$n = writers_wait($w, 3000, 60);
	stop_writers($primary, $w, "$backend: round 1");
	cmp_ok($n, '>=', 1500, "$backend: the writers committed rows ($n)");
	cmp_ok($primary->safe_psql('postgres', "SELECT count(*) FROM t WHERE k ^@ 'long/'"),
		'>', 0, "$backend: the table has long keys");
	compare($primary, $standby, "$backend: after 4 writers", t => 't_k');

	# Indexes the standby learns of from the WAL alone.
	make_wtable($primary, 't2', 't2_k', 1, 3000);
	$primary->safe_psql('postgres', q{
		CREATE TABLE t3 (id int, k text COLLATE "C");
		INSERT INTO t3 SELECT g, wkey(g) FROM generate_series(1000001, 1003000) g;
	});
	$primary->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t3_k ON t3 USING artrie (k)');
	$primary->safe_psql('postgres', 'REINDEX INDEX t_k');

	# Changes to the indexes made after the standby.
	$primary->safe_psql('postgres', q{
		INSERT INTO t2 SELECT g, wkey(g) FROM generate_series(7000001, 7000500) g;
		DELETE FROM t2 WHERE id % 5 = 0;
		UPDATE t3 SET k = k || '-u' WHERE id % 7 = 0;
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(6000001, 6000300) g;
	});
	$primary->safe_psql('postgres', 'VACUUM t2');
	compare($primary, $standby,
		"$backend: CREATE INDEX, CREATE INDEX CONCURRENTLY, REINDEX, then writes",
		t2 => 't2_k', t3 => 't3_k', t => 't_k');

	# TRUNCATE, REINDEX CONCURRENTLY, and a move to another tablespace
	# (in place: primary and standby share this machine).
	$primary->safe_psql('postgres', q{
		TRUNCATE t2;
		INSERT INTO t2 SELECT g, wkey(g) FROM generate_series(2000001, 2001000) g;
	});
	$primary->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t3_k');
	$primary->safe_psql('postgres', q{
		CREATE TABLESPACE ts1 LOCATION '';
		ALTER INDEX t_k SET TABLESPACE ts1;
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(6000301, 6000600) g;
	});
	compare($primary, $standby, "$backend: TRUNCATE, REINDEX CONCURRENTLY, SET TABLESPACE",
		t2 => 't2_k', t3 => 't3_k', t => 't_k');

	$standby->stop;
	$primary->stop;
}

done_testing();
