# A checkpoint's image of a changed file leaves the free bytes of its
# pages out (packed image records: each page's header, slots and live
# records, the page compacted first when deletes left 1 kB or more of
# holes between its records), and redo of a base backup rebuilds the file
# from that image alone.
#
# An index built, then changed by row-by-row inserts (splits: half-full
# pages), deletes and updates, and VACUUM (holes between records, free
# slots); a copy of its file taken before those changes; then a base
# backup, whose start waits for the image.  Then:
#  - the image logged at the backup's start takes no more WAL than the
#    pages' used bytes (header, slots, live records) and, a page, the
#    holes between records it is not compacted for (under 1 kB) and a few
#    bytes, where a page whole would take 8160 bytes, and at least half
#    of them (it was logged);
#  - the backup restored with the early copy in place of its own (so
#    nothing but the image can give redo the changed pages) answers
#    exactly what the primary's sequential scan answers, and
#    artrie_verify finds the index sound; new rows and a crash keep it so.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

for my $backend (backends())
{
	my $primary = artrie_primary("primary_$backend", $backend, has_archiving => 1);
	make_wtable($primary, 't', 't_k', 1, 6000);
	$primary->safe_psql('postgres', 'ALTER TABLE t SET (autovacuum_enabled = off)');
	my $file = $primary->safe_psql('postgres', "SELECT artrie_stats('t_k')->>'file'");
	like($file, qr{^artrie/\d+/\d+\.\d+$}, "$backend: the index's file");

	# The built file, checkpointed, then copied.
	$primary->safe_psql('postgres', 'CHECKPOINT');
	my $redo = $primary->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()');
	ok($primary->poll_query_until('postgres',
		"SELECT (artrie_stats('t_k')->'checkpoint'->>'redo_lsn')::pg_lsn >= '$redo'"),
		"$backend: t_k checkpointed after PostgreSQL's checkpoint");
	my $early = PostgreSQL::Test::Utils::tempdir;
	copy($primary->data_dir . "/$file", "$early/t_k") or die "copy $file: $!";

	# Pages with room and holes: inserts one by one, deletes, updates.
	$primary->safe_psql('postgres', q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(1000001, 1008000) g;
		DELETE FROM t WHERE id % 3 = 0;
		UPDATE t SET k = k || '/u' WHERE id % 7 = 1;
		VACUUM t;
	});

	my $bytes = "SELECT artrie_stats('t_k')->'wal'->>'bytes'";
	my $before = $primary->safe_psql('postgres', $bytes);
	$primary->backup('b');
	my $logged = $primary->safe_psql('postgres', $bytes) - $before;
	my ($used, $pages) = split /\|/, $primary->safe_psql('postgres', q{
		SELECT (s->'key_trie'->>'bytes_used')::bigint + (s->'null_trie'->>'bytes_used')::bigint,
			s->>'pages'
		FROM artrie_stats('t_k', true) s});
	ok($logged > $used / 2 && $logged <= $used + 1032 * $pages + 4096,
		"$backend: the image of $pages pages holding $used used bytes took $logged bytes of WAL")
	  or diag("whole pages would take " . 8160 * $pages);

	my $want = index_answers($primary, 't', 'seq');
	my $seg = $primary->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($primary->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$backend: the WAL after the backup is archived");

	my $node = PostgreSQL::Test::Cluster->new("restored_$backend");
	$node->init_from_backup($primary, 'b', has_restoring => 1, standby => 0);
	$node->append_conf('postgresql.conf', 'archive_mode = off');
	copy("$early/t_k", $node->data_dir . "/$file") or die "copy into the backup: $!";
	next unless start_ok($node, "$backend: the backup with the early copy");
	wait_promoted($node, "$backend: the backup with the early copy");
	check_index($node, 't', 't_k', "$backend: rebuilt from the packed image", want => $want);
	verify_ok($node, 't_k', "$backend: rebuilt from the packed image");

	sql_ok($node, 'INSERT INTO t SELECT g, wkey(g) FROM generate_series(2000001, 2001000) g',
		"$backend: new rows");
	$node->stop('immediate');
	ok(start_ok($node, "$backend: after a crash"), "$backend: restarted after a crash");
	check_index($node, 't', 't_k', "$backend: after new rows and a crash");
	verify_ok($node, 't_k', "$backend: after new rows and a crash");
	$node->stop;
	$primary->stop;
}

done_testing();
