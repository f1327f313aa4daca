# Issue 14 item 5: crash recovery applies artrie's entry records in
# batches, sorted by entry; a hot standby applies each record at once.
#  - Crash recovery: in one crash window the same entries (same key, same
#    heap TID: the rows are deleted and vacuumed, and the next rows take
#    the same line pointers) are inserted, deleted and inserted again,
#    three times over, and other entries inserted and deleted for good.
#    After a SIGKILL and restart the index holds exactly the rows of the
#    table: a batch that applied an entry's records out of WAL order
#    would lose the re-inserted rows or keep the deleted ones.  Each
#    round's records (a vacuum record applies the batches held before it)
#    pass maintenance_work_mem (1 MB here; the keys are long for that), so
#    redo writes the batch out as sorted runs and merges them when it
#    applies it: an entry's insert and delete are in a run and in another
#    run or the batch, which a merge that took them out of WAL order would
#    get wrong the same way.
#  - Hot standby: after each single-row insert (and each VACUUM that
#    deletes entries) on the primary has been replayed, the standby's
#    index holds exactly its rows: no record is held back while queries
#    may run.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $by_index = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

# The entries of index $index on $node.
sub entries
{
	my ($node, $index) = @_;
	return $node->safe_psql('postgres',
		"SELECT (artrie_stats('$index')->>'entries')::bigint");
}

for my $backend (backends())
{
	# Crash recovery, of a window that no checkpoint cuts short once
	# the one here is done.
	my $node = artrie_node("batch_$backend", $backend, 'autovacuum = off',
		"checkpoint_timeout = '1h'", 'artrie.checkpoint_timeout = 86400',
		'artrie.checkpoint_dirty_percent = 100',
		"maintenance_work_mem = '1MB'");
	$node->safe_psql('postgres', q{
		CREATE TABLE t (k text COLLATE "C");
		CREATE INDEX t_k ON t USING artrie (k);
		CHECKPOINT;
		SELECT artrie_checkpoint();
	});
	my $before = $node->safe_psql('postgres',
		"SELECT (artrie_stats('t_k')->'wal'->>'records')::bigint");
	my @tids;
	for my $round (1 .. 3)
	{
		$node->safe_psql('postgres', q{
			INSERT INTO t SELECT 'same/' || repeat('-', 60) || g FROM generate_series(1, 6000) g;
			INSERT INTO t SELECT 'gone/' || repeat('-', 60) || g FROM generate_series(1, 2000) g;
		});
		push @tids, $node->safe_psql('postgres',
			"SELECT string_agg(ctid::text, ',' ORDER BY k) FROM t WHERE k ^@ 'same/'");
		$node->safe_psql('postgres', 'DELETE FROM t');
		$node->safe_psql('postgres', 'VACUUM t');
	}
	$node->safe_psql('postgres',
		"INSERT INTO t SELECT 'same/' || repeat('-', 60) || g FROM generate_series(1, 6000) g");
	push @tids, $node->safe_psql('postgres',
		"SELECT string_agg(ctid::text, ',' ORDER BY k) FROM t WHERE k ^@ 'same/'");
	is(scalar(grep { $_ eq $tids[0] } @tids), 4,
		"$backend: every round's rows took the same heap TIDs (the same entries)");
	# An entry record per row inserted, and per row VACUUM removes.
	my $entries = 3 * 16000 + 6000;
	my $logged = $node->safe_psql('postgres',
		"SELECT (artrie_stats('t_k')->'wal'->>'records')::bigint") - $before;
	cmp_ok($logged, '>=', $entries,
		"$backend: the inserts and deletes were logged ($logged records)");

	crash_node($node);
	my $log_offset = -s $node->logfile;
	start_ok($node, "$backend: after SIGKILL");
	my ($runs) = slurp_file($node->logfile, $log_offset) =~
	  /held-back WAL entry records in .* sorting them, (\d+) sorted runs written out/;
	cmp_ok($runs // 0, '>=', 2,
		"$backend: redo wrote the held-back records out as sorted runs (" . ($runs // "none") . ")");
	cmp_ok($node->safe_psql('postgres',
		"SELECT (artrie_stats('t_k')->'wal'->>'replayed')::bigint"), '>=', $entries,
		"$backend: recovery replayed those records");
	is(entries($node, 't_k'), '6000',
		"$backend: after recovery the index holds exactly the table's 6000 rows");
	is($node->safe_psql('postgres', "$by_index SELECT count(*) FROM t WHERE k ^@ 'same/'"),
		'6000', "$backend: every re-inserted row is found through the index");
	is($node->safe_psql('postgres', "$by_index SELECT count(*) FROM t WHERE k ^@ 'gone/'"),
		'0', "$backend: no deleted row is found through the index");
	verify_ok($node, 't_k', "$backend: after recovery");
	$node->stop;

	# Hot standby.
	my $primary = artrie_primary("batch_primary_$backend", $backend,
		conf => ['autovacuum = off']);
	$primary->safe_psql('postgres', q{
		CREATE TABLE h (k text COLLATE "C");
		CREATE INDEX h_k ON h USING artrie (k);
	});
	my $standby = artrie_standby($primary, "batch_standby_$backend");
	wait_replayed($primary, $standby);
	my $missed = 0;
	for my $i (1 .. 30)
	{
		$primary->safe_psql('postgres', "INSERT INTO h VALUES ('row/$i')");
		wait_replayed($primary, $standby);
		$missed++ if entries($standby, 'h_k') ne $i
		  || $standby->safe_psql('postgres',
			"$by_index SELECT count(*) FROM h WHERE k = 'row/$i'") ne '1';
	}
	is($missed, 0, "$backend: standby: each replayed insert is in the index at once");
	$primary->safe_psql('postgres', "DELETE FROM h WHERE k > 'row/2'");
	$primary->safe_psql('postgres', 'VACUUM h');
	wait_replayed($primary, $standby);
	is(entries($standby, 'h_k'), $primary->safe_psql('postgres', 'SELECT count(*) FROM h'),
		"$backend: standby: each replayed delete is out of the index at once");
	verify_ok($standby, 'h_k', "$backend: standby");
	$standby->stop;
	$primary->stop;
}

done_testing();
