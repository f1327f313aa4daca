# WAL that artrie's files need but PostgreSQL removed: the index is refused
# with a message naming it and a hint to REINDEX, never answered from a
# file that lacks committed rows.  The io worker is stopped (SIGSTOP) so
# that no artrie checkpoint takes the rows of batch B into the file,
# artrie's replication slot is dropped and PostgreSQL's checkpoints then
# remove the WAL holding batch B.  After a crash a query still sees every
# row (the planner leaves the index out, with a WARNING), an insert that
# must maintain the index fails with the ERROR, and REINDEX brings the
# index back.  The same with the slot in place shows that the slot is what
# keeps that WAL: batch B is then found through the index.  On the mmap
# backend, whose reads do not go through the io worker.  PostgreSQL's
# checkpoints wait for the stopped io worker's images only as long as
# artrie.checkpoint_gate_timeout (2 s here), then go on with a WARNING.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;
use PagerTest;

for my $drop_slot (0, 1)
{
	my $label = $drop_slot ? 'slot dropped' : 'slot kept';
	my $node = artrie_node("walmiss_$drop_slot", 'mmap', 'min_wal_size = 32MB',
		'max_wal_size = 64MB', 'artrie.checkpoint_gate_timeout = 2s');
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id int, k text COLLATE "C");
		CREATE INDEX t_k ON t USING artrie (k);
		CREATE TABLE filler (x text);
		INSERT INTO t SELECT g, 'a-' || g FROM generate_series(1, 2000) g;
		CHECKPOINT;
	});

	# The io worker follows PostgreSQL's checkpoint with its own, which
	# moves the slot past batch A.
	my $moved = $node->poll_query_until('postgres', q{
		SELECT restart_lsn >= (SELECT redo_lsn FROM pg_control_checkpoint())
		FROM pg_replication_slots WHERE slot_name = 'artrie'});
	ok($moved, "$label: artrie's slot follows PostgreSQL's checkpoint");

	my $worker = worker_pid($node);
	ok($worker, "$label: found the io worker");
	kill 'STOP', $worker;

	$node->safe_psql('postgres',
		q{INSERT INTO t SELECT g, 'b-' || g FROM generate_series(1, 2000) g});
	$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('artrie')})
	  if $drop_slot;
	for (1 .. 4)
	{
		$node->safe_psql('postgres', q{
			INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 2000);
			SELECT pg_switch_wal();
			CHECKPOINT;
		});
	}

	like(slurp_file($node->logfile),
		qr/WARNING:  artrie: PostgreSQL's checkpoint at \S+ goes on without artrie's checkpoint images after 2000 ms/,
		"$label: PostgreSQL's checkpoints went on past the stopped io worker after artrie.checkpoint_gate_timeout");

	crash_node($node);
	$node->start;

	my ($rc, $out, $err) = $node->psql('postgres', q{
		SET enable_seqscan = off;
		SELECT count(*) FROM t WHERE k ^@ 'b-';
	});
	is($rc, 0, "$label: a query on the table runs") or diag($err);
	is($out, '2000', "$label: and finds every row of batch B");
	if ($drop_slot)
	{
		like($err, qr/WARNING:  index "t_k" cannot be used/,
			"$label: the plan leaves the index out and says why");
		like($err, qr/HINT:\s+REINDEX the index/, "$label: with the REINDEX hint");
		($rc, $out, $err) = $node->psql('postgres',
			q{INSERT INTO t VALUES (0, 'c-0')});
		isnt($rc, 0, "$label: an insert, which must maintain the index, fails");
		like($err, qr/ERROR:  index "t_k" cannot be used/, "$label: the error names the index");
		like($err, qr/HINT:\s+REINDEX the index/, "$label: the error hints at REINDEX");
		like(slurp_file($node->logfile), qr/artrie cannot replay the WAL from/,
			"$label: the log says which WAL is missing");
	}
	else
	{
		unlike($err, qr/WARNING/, "$label: the index is used without a warning");
		like($node->safe_psql('postgres', q{
			SET enable_seqscan = off;
			EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k ^@ 'b-'}),
			qr/t_k/, "$label: through the index");
	}

	is($node->safe_psql('postgres', q{
		SET enable_indexscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM t}), '4000', "$label: a sequential scan sees both batches");

	$node->safe_psql('postgres', 'REINDEX INDEX t_k');
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off;
		SELECT count(*) FROM t WHERE k ^@ 'a-' OR k ^@ 'b-'}), '4000',
		"$label: after REINDEX the index finds both batches");
	$node->stop;
}

done_testing();
