# Copies of a cluster answer exactly what their tables hold.
#  - pg_basebackup of a primary while four writers run, started as a
#    restored primary (no standby.signal) and as a streaming standby:
#    every artrie index answers exactly what a sequential scan answers
#    (and, on the standby, what the primary answers), with no error and
#    no REINDEX; it verifies, and takes new rows.  A backup taken when
#    the primary is idle answers the same way.
#  - Point-in-time recovery to a restore point between two batches of
#    inserts: the index finds exactly the rows of batch 1 and none of
#    batch 2, again with no REINDEX.
#  - An artrie file (and then the whole artrie directory) copied from
#    another, independently initialized cluster, over the file the
#    second cluster's index uses: the index refuses with an ERROR naming
#    it and a REINDEX hint, and REINDEX fixes it.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Copy;
use File::Path qw(rmtree);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use PostgreSQL::Test::RecursiveCopy;
use Test::More;
use ArtrieTest;

# A query forced through $index must use it and return $want.
sub expect_answer
{
	my ($node, $index, $sql, $want, $label) = @_;
	my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $plan = $node->safe_psql('postgres', "$force EXPLAIN (COSTS OFF) $sql");
	like($plan, qr/Index (Only )?Scan using \Q$index\E\b/, "$label: the query uses $index");
	my ($ret, $out, $err) = $node->psql('postgres', "$force $sql");
	is($err, '', "$label: $index answers with no error or warning");
	is($out, $want, "$label: $index answers $want");
	return;
}

# Each (table, index) of $node answers like a sequential scan (and like
# $want->{table} if given) and verifies.
sub answers_all
{
	my ($node, $label, $want, @pairs) = @_;
	while (my ($table, $index) = splice(@pairs, 0, 2))
	{
		check_index($node, $table, $index, "$label, $table",
			defined $want ? (want => $want->{$table}) : ());
		verify_ok($node, $index, "$label, $table");
	}
	return;
}

for my $backend (backends())
{
	my $dir = PostgreSQL::Test::Utils::tempdir;
	my $primary = artrie_primary("primary_$backend", $backend, has_archiving => 1);
	make_wtable($primary, 't', 't_k', 1, 4000);
	make_wtable($primary, 't2', 't2_k', 1000001, 1002000);
	make_wtable($primary, 'p', 'p_k', 1, 2000);

	# --- Point-in-time recovery: the base backup, two batches around a
	# restore point, all WAL archived (restored further down) ---
	$primary->backup('base');
	# Batch 1: bulk and single-row inserts, deletes of older rows.
	$primary->safe_psql('postgres', q{
		INSERT INTO p SELECT g, wkey(g) FROM generate_series(3000001, 3000400) g;
		DELETE FROM p WHERE id BETWEEN 1 AND 100;
	});
	$primary->safe_psql('postgres', join('', map { "INSERT INTO p VALUES ($_, wkey($_));\n" } 3000401 .. 3000420));
	$primary->safe_psql('postgres', "SELECT pg_create_restore_point('between')");
	# Batch 2: new rows, and deletes of batch 1's.
	$primary->safe_psql('postgres', q{
		INSERT INTO p SELECT g, wkey(g) FROM generate_series(4000001, 4000400) g;
		DELETE FROM p WHERE id BETWEEN 3000001 AND 3000050;
	});
	$primary->safe_psql('postgres', join('', map { "INSERT INTO p VALUES ($_, wkey($_));\n" } 4000401 .. 4000420));
	my $seg = $primary->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($primary->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$backend: the WAL of both batches is archived");

	# --- pg_basebackup under load, and when idle ---
	my $w = start_writers($primary, 't', $dir, 1);
	my $n = writers_wait($w, 500, 60);
	cmp_ok($n, '>=', 500, "$backend: the writers run when the backup starts");
	$primary->backup('hot');
	my @during = acked_ids($w);
	cmp_ok(scalar(@during), '>', $n, "$backend: the writers committed during the backup");
	writers_wait($w, scalar(@during) + 500, 60);
	stop_writers($primary, $w, "$backend: writers around the backup");

	# (a) Restored as a primary: crash recovery to the end of the backup.
	my $restored = PostgreSQL::Test::Cluster->new("restored_$backend");
	$restored->init_from_backup($primary, 'hot');
	$restored->append_conf('postgresql.conf', 'archive_mode = off');
	if (start_ok($restored, "$backend: hot backup restored as a primary"))
	{
		answers_all($restored, "$backend: hot backup restored as a primary", undef,
			t => 't_k', t2 => 't2_k');
		sql_ok($restored, 'INSERT INTO t SELECT g, wkey(g) FROM generate_series(9000001, 9000300) g',
			"$backend: restored: new rows go in");
		check_index($restored, 't', 't_k', "$backend: restored, after new rows");
		$restored->stop;
	}

	# (b) Started as a standby of the primary, which wrote on meanwhile.
	my $standby = artrie_standby($primary, "standby_$backend", backup => 'hot');
	wait_replayed($primary, $standby);
	my %want = map { $_ => index_answers($primary, $_, 'seq') } ('t', 't2');
	answers_all($standby, "$backend: hot backup as a standby", \%want,
		t => 't_k', t2 => 't2_k');
	$standby->stop;

	# An idle primary: artrie's checkpoint follows PostgreSQL's.
	$primary->safe_psql('postgres', 'CHECKPOINT');
	$primary->safe_psql('postgres', 'SELECT pg_sleep(2)');
	$primary->backup('idle');
	my %idle = map { $_ => index_answers($primary, $_, 'seq') } ('t', 't2');
	my $quiet = PostgreSQL::Test::Cluster->new("idle_$backend");
	$quiet->init_from_backup($primary, 'idle');
	$quiet->append_conf('postgresql.conf', 'archive_mode = off');
	if (start_ok($quiet, "$backend: idle backup restored"))
	{
		for my $p ([ 't', 't_k' ], [ 't2', 't2_k' ])
		{
			check_index($quiet, $p->[0], $p->[1], "$backend: idle backup restored",
				want => $idle{ $p->[0] });
			verify_ok($quiet, $p->[1], "$backend: idle backup restored");
		}
		$quiet->stop;
	}

	# --- Point-in-time recovery to the restore point ---
	my $pitr = PostgreSQL::Test::Cluster->new("pitr_$backend");
	$pitr->init_from_backup($primary, 'base', has_restoring => 1, standby => 0);
	$pitr->append_conf('postgresql.conf', join("\n", 'archive_mode = off',
		"recovery_target_name = 'between'",
		"recovery_target_action = 'promote'"));
	if (start_ok($pitr, "$backend: PITR") && wait_promoted($pitr, "$backend: PITR"))
	{
		my $s = $pitr->safe_psql('postgres',
			'SELECT count(*) FROM p WHERE id > 4000000');
		is($s, '0', "$backend: PITR stopped before batch 2 (sequential scan)");
		# What batch 1 leaves: rows 101..2000 and batch 1's.
		my $batch1 = '(SELECT generate_series(101, 2000) UNION ALL '
		  . 'SELECT generate_series(3000001, 3000420)) s(g)';
		my %expect = (
			"SELECT count(*) FROM p WHERE k ^@ 'w0/'" =>
			  "SELECT count(*) FROM generate_series(101, 2000) g WHERE wkey(g) ^@ 'w0/'",
			"SELECT count(*) || '/' || sum(id) FROM p WHERE k ^@ 'w3/'" =>
			  "SELECT count(*) || '/' || sum(g) FROM generate_series(3000001, 3000420) g WHERE wkey(g) ^@ 'w3/'",
			"SELECT count(*) FROM p WHERE k ^@ 'w4/'" => "SELECT 0",
			"SELECT count(*) FROM p WHERE k >= 'w4' AND k < 'w5'" => "SELECT 0",
			"SELECT count(*) FROM p WHERE k = ANY (ARRAY[wkey(3000001), wkey(3000050), wkey(3000420), wkey(101)])" => "SELECT 4",
			"SELECT count(*) FROM p WHERE k = ANY (ARRAY[wkey(4000001), wkey(4000420), wkey(100), wkey(1)])" => "SELECT 0",
			"SELECT count(*) FROM p WHERE k ^@ 'long/'" =>
			  "SELECT count(*) FROM $batch1 WHERE wkey(g) ^@ 'long/'",
			"SELECT count(*) FROM p WHERE k IS NULL" =>
			  "SELECT count(*) FROM $batch1 WHERE wkey(g) IS NULL",
		);
		for my $q (sort keys %expect)
		{
			my $want = $pitr->safe_psql('postgres', $expect{$q});
			expect_answer($pitr, 'p_k', $q, $want, "$backend: PITR: $q");
		}
		check_index($pitr, 'p', 'p_k', "$backend: PITR, final");
		verify_ok($pitr, 'p_k', "$backend: PITR");
		$pitr->stop;
	}

	# --- An artrie file, then directory, from another cluster ---
	# Cluster two repeats the primary's first DDL (so its indexes likely
	# get the same relfilenodes) with other rows.
	my $two = artrie_node("two_$backend", $backend);
	make_wtable($two, 't', 't_k', 5000001, 5004000);
	make_wtable($two, 't2', 't2_k', 6000001, 6002000);
	my %file1 = map { $_ => $primary->safe_psql('postgres', "SELECT artrie_stats('$_')->>'file'") } ('t_k', 't2_k');
	my %file2 = map { $_ => $two->safe_psql('postgres', "SELECT artrie_stats('$_')->>'file'") } ('t_k', 't2_k');
	note("the primary's files: @file1{qw(t_k t2_k)}; cluster two's: @file2{qw(t_k t2_k)}");
	isnt($primary->safe_psql('postgres', 'SELECT system_identifier FROM pg_control_system()'),
		$two->safe_psql('postgres', 'SELECT system_identifier FROM pg_control_system()'),
		"$backend: the two clusters have distinct system identifiers");
	$primary->stop;
	$two->stop;

	# The file of t2_k alone.
	copy($primary->data_dir . "/$file1{t2_k}", $two->data_dir . "/$file2{t2_k}")
	  or die "copy: $!";
	if (start_ok($two, "$backend: another cluster's file"))
	{
		is(index_or_refusal($two, 't2', 't2_k', "$backend: another cluster's file"), 'refused',
			"$backend: t2_k refuses another cluster's file");
		check_index($two, 't', 't_k', "$backend: another cluster's file, the untouched index");
		sql_ok($two, 'REINDEX INDEX t2_k', "$backend: REINDEX t2_k");
		check_index($two, 't2', 't2_k', "$backend: another cluster's file, after REINDEX");
		verify_ok($two, 't2_k', "$backend: another cluster's file, after REINDEX");
		$two->stop;
	}

	# The whole artrie directory, journal included.
	rmtree($two->data_dir . '/artrie');
	PostgreSQL::Test::RecursiveCopy::copypath($primary->data_dir . '/artrie',
		$two->data_dir . '/artrie');
	if (start_ok($two, "$backend: another cluster's artrie directory"))
	{
		for my $p ([ 't', 't_k' ], [ 't2', 't2_k' ])
		{
			is(index_or_refusal($two, $p->[0], $p->[1],
				"$backend: another cluster's artrie directory"), 'refused',
				"$backend: $p->[1] refuses another cluster's artrie directory");
			sql_ok($two, "REINDEX INDEX $p->[1]", "$backend: REINDEX $p->[1]");
			check_index($two, $p->[0], $p->[1],
				"$backend: another cluster's artrie directory, after REINDEX");
			verify_ok($two, $p->[1], "$backend: another cluster's artrie directory, after REINDEX");
		}
		$two->stop;
	}
}

done_testing();
