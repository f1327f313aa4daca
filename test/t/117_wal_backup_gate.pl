# PostgreSQL's checkpoint waits for artrie's checkpoint images at its redo
# pointer (the checkpoint gate, src/pager/pager_ckpt_gate.c), so a base
# backup never ends before the image of a file changed before its start.
#
# Round "paused": the io worker's image of the changed index at the
# backup's redo pointer is paused (artrie.test_checkpoint_pause on, the
# file artrie_checkpoint_pause_image present); pg_backup_start() in a
# background session must not return meanwhile.  Once the image goes on
# and pg_backup_start() returns, the data directory is copied at once,
# rows are written, deleted and VACUUMed, and pg_backup_stop() ends the
# backup.  Restored with the backup's WAL to its end only
# (recovery_target = 'immediate'), index, index-only and bitmap scans must
# answer like a sequential scan and like the primary at the backup's end,
# and the index must verify.  (Before the gate, pg_backup_start() returned
# during the pause, the copy and the backup's end came before the image,
# and the restore refused the index.)
#
# Round "stream": pg_basebackup -X stream of a larger changed index, no
# pause: the restore answers like the primary did.
#
# Round "crash": the postmaster killed (SIGKILL) while PostgreSQL's
# CHECKPOINT waits for a paused image: recovery gives the index right.
#
# Round "gate": the gate ended (SIGTERM) while it holds a CHECKPOINT: the
# checkpoint goes on although the image is still paused, and the gate is
# started again; then the gate killed (SIGKILL) while it holds one: the
# postmaster restarts every process, and recovery gives the index right.
# Both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# The gate's pid, once one runs (polled), or ''.
sub gate_pid
{
	my ($node) = @_;
	my $pid = '';
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'artrie checkpoint gate'")
	  or return '';
	$pid = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'artrie checkpoint gate'");
	return $pid;
}

# Make t_k changed (its next checkpoint is an image checkpoint at the next
# redo pointer), create the pause file and run $sql in a background
# session; wait until the io worker's image of t_k pauses.  Returns the
# session, or undef (with a failed assertion).
sub paused_behind_image
{
	my ($node, $label, $from, $sql) = @_;
	my $pause = $node->data_dir . '/artrie_checkpoint_pause_image';
	$node->safe_psql('postgres', qq{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series($from + 1, $from + 3000) g;
		DELETE FROM t WHERE id % 11 = 3});
	open(my $fh, '>', $pause) or die "cannot create $pause: $!";
	close($fh);
	my $offset = -s $node->logfile;
	my $s = bg_session($node);
	bg_start($s, $sql);
	my $paused = 0;
	for (my $t = 0; $t < 10 * $PostgreSQL::Test::Utils::timeout_default && !$paused; $t++)
	{
		my $log = slurp_file($node->logfile, $offset);
		$paused = 1 if $log =~ /artrie checkpoint of file "[^"]+" pauses in its image phase/;
		select(undef, undef, undef, 0.1) unless $paused;
	}
	ok($paused, "$label: the io worker's image of the index pauses");
	return ($s, $offset);
}

for my $backend (backends())
{
	my $node = artrie_primary("gate_$backend", $backend,
		has_archiving => 1,
		conf => [ 'checkpoint_timeout = 1h', 'max_wal_size = 4GB',
			'autovacuum = off', 'log_checkpoints = on',
			'restart_after_crash = on',
			'artrie.checkpoint_timeout = 86400',
			'artrie.checkpoint_dirty_percent = 100',
			'artrie.test_checkpoint_pause = on' ]);
	my $pgdata = $node->data_dir;
	my $pause = "$pgdata/artrie_checkpoint_pause_image";
	make_wtable($node, 't', 't_k', 1, 20000);
	my $redo = $node->safe_psql('postgres',
		'CHECKPOINT; SELECT redo_lsn FROM pg_control_checkpoint()');
	ok($node->poll_query_until('postgres',
		"SELECT restart_lsn >= '$redo'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'artrie'"),
		"$backend: artrie's checkpoint pass followed the redo pointer");
	ok(gate_pid($node), "$backend: the checkpoint gate shows in pg_stat_activity");

	# Round "paused".
	my $label = "$backend paused";
	my ($s, $offset) = paused_behind_image($node, $label, 100000,
		"SELECT 'START' || pg_backup_start('gate', true)");
	my $held = bg_still_running($s, 3);
	ok($held, "$label: pg_backup_start() has not returned while the image is paused");
	my $log = slurp_file($node->logfile, $offset);
	ok($log =~ /checkpoint starting:/ && $log !~ /checkpoint complete:/,
		"$label: PostgreSQL's checkpoint began and has not completed");

	# Let the image go on (with the gate); before it, pg_backup_start()
	# returned already, and the image stays paused until the backup ends.
	unlink($pause) if $held;
	ok(bg_wait_ended($s), "$label: pg_backup_start() returns");
	like($s->{out}, qr/START\d/, "$label: pg_backup_start() returned its position");

	my $backup = copy_datadir($node, 'gate');
	$node->safe_psql('postgres', q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(200001, 204000) g;
		DELETE FROM t WHERE id % 7 = 2;
		VACUUM t});
	my $want = index_answers($node, 't', 'seq');
	$s->{out} = '';
	bg_start($s, "SELECT '<<' || labelfile || '>>' FROM pg_backup_stop(true)");
	ok(bg_wait_ended($s), "$label: pg_backup_stop() returns");
	my ($backup_label) = $s->{out} =~ /<<(.*)>>/s;
	bg_end($s);
	unlink($pause);
	write_backup_label($backup, $backup_label // '');
	my $seg = $node->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($node->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$label: the backup's WAL is archived");

	my $restored = PostgreSQL::Test::Cluster->new("gate_restored_$backend");
	$restored->init_from_backup($node, 'gate', has_restoring => 1, standby => 0);
	$restored->append_conf('postgresql.conf', join("\n", 'archive_mode = off',
		"recovery_target = 'immediate'", "recovery_target_action = 'promote'"));
	if (start_ok($restored, "$label: the backup restored to its end"))
	{
		wait_promoted($restored, "$label: the backup restored to its end");
		check_index($restored, 't', 't_k', "$label: restored to its end", want => $want);
		verify_ok($restored, 't_k', "$label: restored to its end");
		$restored->stop;
	}

	# Round "stream": a larger index, changed, then pg_basebackup -X stream.
	$label = "$backend stream";
	$node->safe_psql('postgres', q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(300001, 500000) g;
		CHECKPOINT;
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(500001, 503000) g;
		DELETE FROM t WHERE id % 5 = 1 AND id > 300000});
	$want = index_answers($node, 't', 'seq');
	$node->backup('stream', backup_options => [ '-X', 'stream' ]);
	my $streamed = PostgreSQL::Test::Cluster->new("gate_stream_$backend");
	$streamed->init_from_backup($node, 'stream');
	$streamed->append_conf('postgresql.conf', 'archive_mode = off');
	if (start_ok($streamed, "$label: the streamed backup"))
	{
		check_index($streamed, 't', 't_k', "$label: restored", want => $want);
		verify_ok($streamed, 't_k', "$label: restored");
		$streamed->stop;
	}

	# Round "crash": the postmaster killed while CHECKPOINT waits.
	$label = "$backend crash";
	($s) = paused_behind_image($node, $label, 600000, 'CHECKPOINT');
	ok(bg_still_running($s, 2), "$label: CHECKPOINT waits for the paused image");
	crash_node($node);
	unlink($pause);
	bg_end($s);
	$node->start;
	check_index($node, 't', 't_k', "$label: after a crash");
	verify_ok($node, 't_k', "$label: after a crash");

	# Round "gate": SIGTERM, then SIGKILL, of the gate while it holds.
	$label = "$backend gate";
	my $pid = gate_pid($node);
	ok($pid, "$label: the gate runs after the crash");
	($s) = paused_behind_image($node, $label, 700000, 'CHECKPOINT');
	ok(bg_still_running($s, 2), "$label: CHECKPOINT waits for the paused image");
	kill 'TERM', $pid;
	ok(bg_wait_ended($s), "$label: the gate ended by SIGTERM: CHECKPOINT goes on");
	is($s->{err}, '', "$label: CHECKPOINT reports no error");
	ok(-e $pause, "$label: while the image is still paused");
	bg_end($s);
	unlink($pause);
	ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'artrie checkpoint gate' AND pid <> $pid"),
		"$label: the gate is started again");
	$pid = gate_pid($node);
	($s) = paused_behind_image($node, $label, 800000, 'CHECKPOINT');
	ok(bg_still_running($s, 2), "$label: CHECKPOINT waits for the paused image again");
	$offset = -s $node->logfile;
	kill 'KILL', $pid;
	unlink($pause);
	bg_end($s);
	ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'artrie checkpoint gate'"),
		"$label: the server and the gate are back after the gate's SIGKILL");
	like(slurp_file($node->logfile, $offset), qr/all server processes terminated; reinitializing/,
		"$label: the postmaster restarted every process");
	check_index($node, 't', 't_k', "$label: after the gate's SIGKILL");
	verify_ok($node, 't_k', "$label: after the gate's SIGKILL");
	$node->stop;
}
done_testing();
