# A checkpoint holds writers back only while it takes its snapshot of
# the file's dirty pages, not while it writes them.  artrie_checkpoint()
# in one session (artrie.test_checkpoint_pause on) pauses in the write
# phase of a file's ordinary checkpoint (the file's image for the current
# redo pointer logged already), after its snapshot and before it writes a
# page, while the pause file exists.  Meanwhile INSERTs into that very
# index, and a DELETE and a VACUUM of its table, must complete; a page
# they change that is in the paused checkpoint's set is copied for the
# checkpoint first (copy-on-write), and the change goes to the next
# checkpoint.  Then PostgreSQL checkpoints (its redo pointer moves while
# the file's checkpoint is paused, so the io worker's pass for it can
# neither checkpoint the file nor list the files, which the paused pass
# holds): PostgreSQL's CHECKPOINT must wait (the checkpoint gate holds it
# until the file has its image after the redo pointer); the checkpoint
# resumes and completes, then PostgreSQL's, and the file must become
# current past that redo pointer soon after (artrie's slot follows it),
# not at the next move of the redo pointer (a day away here): a base
# backup that started there needs the file's image after its start.  The
# server is killed then, and the index must answer like a sequential scan
# and verify.  A second
# round kills the server while the checkpoint is still paused, after more
# writes.  Both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Start artrie_checkpoint() paused in the write phase of t_k's file and
# wait until the log says so; returns the session.
sub paused_checkpoint
{
	my ($node, $label) = @_;
	return bg_paused($node, 'artrie_checkpoint_pause',
		'SET artrie.test_checkpoint_pause = on; SELECT artrie_checkpoint()',
		qr/artrie checkpoint of file "[^"]+" pauses in its write phase/,
		"$label: artrie_checkpoint() pauses in a file's write phase");
}

for my $backend (backends())
{
	my $node = artrie_node("ckpt_snapshot_$backend", $backend,
		'artrie.buffer_pool_size = 8MB', 'checkpoint_timeout = 1h',
		'max_wal_size = 4GB', 'artrie.checkpoint_timeout = 86400',
		'artrie.checkpoint_dirty_percent = 100');
	make_wtable($node, 't', 't_k', 1, 20000);
	my $pause = $node->data_dir . '/artrie_checkpoint_pause';

	for my $round (1, 2)
	{
		my $label = "$backend round $round";
		my $base = $round * 1000000;

		# The file's image for the current redo pointer, then changes for
		# an ordinary checkpoint to write.
		$node->safe_psql('postgres', qq{
			INSERT INTO t SELECT g, wkey(g) FROM generate_series($base + 1, $base + 3000) g;
			SELECT artrie_checkpoint();
			INSERT INTO t SELECT g, wkey(g) FROM generate_series($base + 3001, $base + 8000) g;
			DELETE FROM t WHERE id % 13 = $round;
		});
		$node->safe_psql('postgres', 'VACUUM t');
		my $ckpt = paused_checkpoint($node, $label);

		writes_while_paused($node, $ckpt, $base + 8000, $round, $label, 'checkpoint');

		if ($round == 1)
		{
			my $pg_ckpt = bg_session($node);
			bg_start($pg_ckpt, 'CHECKPOINT');
			ok(bg_still_running($pg_ckpt, 2),
				"$label: PostgreSQL's CHECKPOINT waits while the file's checkpoint is paused");
			unlink($pause);
			ok(bg_wait_ended($ckpt), "$label: the checkpoint resumes and completes");
			is($ckpt->{err}, '', "$label: the checkpoint reports no error");
			bg_end($ckpt);
			ok(bg_wait_ended($pg_ckpt), "$label: then PostgreSQL's CHECKPOINT completes");
			is($pg_ckpt->{err}, '', "$label: PostgreSQL's CHECKPOINT reports no error");
			bg_end($pg_ckpt);
			my $redo = $node->safe_psql('postgres',
				'SELECT redo_lsn FROM pg_control_checkpoint()');
			ok($node->poll_query_until('postgres',
				"SELECT restart_lsn >= '$redo'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'artrie'"),
				"$label: once the checkpoint is done, the file is current past the redo pointer of PostgreSQL's checkpoint made meanwhile");
			crash_node($node);
		}
		else
		{
			crash_node($node);
			unlink($pause);
			bg_end($ckpt);
		}
		$node->start;
		check_index($node, 't', 't_k', "$label: after a crash");
		verify_ok($node, 't_k', "$label: after a crash");
		$node->safe_psql('postgres', qq{
			INSERT INTO t SELECT g, wkey(g) FROM generate_series($base + 20001, $base + 21000) g;
			SELECT artrie_checkpoint()});
		check_index($node, 't', 't_k', "$label: after more writes and a checkpoint");
	}
	$node->stop;
}
done_testing();
