# An image checkpoint (the first checkpoint of a changed file after
# PostgreSQL's redo pointer moved, which logs the whole file for base
# backups) holds writers back only while it takes its snapshot, not while
# it logs the image.  artrie_checkpoint() in one session
# (artrie.test_checkpoint_pause on, the file artrie_checkpoint_pause_image
# present) pauses in the image phase of a file's image checkpoint, after
# its snapshot and its image-begin record, before its image.  Meanwhile
# INSERTs into that very index, and a DELETE and a VACUUM of its table,
# must complete.
#
# Round 1 takes a base backup through the low-level API across that
# window: pg_backup_start before the checkpoint, the copy of the data
# directory and pg_backup_stop while it is paused (with the rows written
# meanwhile), the image logged after, then more writes.  Restored with
# all the WAL, redo meets the image-begin record before it is consistent
# and the image after: it rebuilds the file from the image and must apply
# the entries logged between the image-begin record and the image's last
# record after the image; the restored index must answer like a
# sequential scan of the restored table (index, index-only, bitmap
# scans), equal the primary's answers, and verify.  Restored to the
# backup's end only (recovery_target = 'immediate'), redo ends before the
# image: the entries held back since the image-begin record must be
# applied to the copy at the end of redo.  Rounds 2 and 3 take backups
# that end within a later image of the file, paused after that image's
# first record (backup_within_later_image), with the file changed and
# unchanged at the backup's start.  Round 4 kills the server while the
# image checkpoint is paused; crash recovery must give the index like a
# sequential scan.  Both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Start artrie_checkpoint() paused in the image phase of t_k's image
# checkpoint and wait until the log says so; returns the session.  First
# every artrie file is checkpointed (a few times, so that no pages are
# left to move down from a file's tail, which would make the io worker's
# pass below checkpoint it in full), a message is logged (so that the
# redo pointer moves past where artrie's slot points), and PostgreSQL
# checkpoints; once artrie's slot has followed (the io worker's pass for
# that redo pointer vouched for the file), rows change and the next
# checkpoint of t_k is its image checkpoint.  If the io worker took that
# image first all the same, again, up to three times.  $where names the
# pause file (default artrie_checkpoint_pause_image: before the image's
# first record; artrie_checkpoint_pause_image_mid: after it).
sub paused_image_checkpoint
{
	my ($node, $label, $base, $where) = @_;
	my $pause = $node->data_dir . '/' . ($where // 'artrie_checkpoint_pause_image');
	for my $try (1 .. 3)
	{
		my $from = $base + ($try - 1) * 100000;
		$node->safe_psql('postgres', q{
			SELECT artrie_checkpoint();
			SELECT artrie_checkpoint();
			SELECT artrie_checkpoint();
			SELECT pg_logical_emit_message(false, 'imgckpt', 'x')});
		my $redo = $node->safe_psql('postgres',
			'CHECKPOINT; SELECT redo_lsn FROM pg_control_checkpoint()');
		ok($node->poll_query_until('postgres',
			"SELECT restart_lsn >= '$redo'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'artrie'"),
			"$label: artrie's checkpoint pass followed the redo pointer");
		$node->safe_psql('postgres', qq{
			INSERT INTO t SELECT g, wkey(g) FROM generate_series($from + 1, $from + 3000) g;
			DELETE FROM t WHERE id % 13 = $try});
		open(my $fh, '>', $pause) or die "cannot create $pause: $!";
		close($fh);
		my $offset = -s $node->logfile;
		my $s = bg_session($node);
		bg_start($s, 'SET artrie.test_checkpoint_pause = on; SELECT artrie_checkpoint()');
		my $paused = 0;
		for (my $t = 0; $t < 10 * $PostgreSQL::Test::Utils::timeout_default; $t++)
		{
			my $log = slurp_file($node->logfile, $offset);
			$paused = 1 if $log =~ /artrie checkpoint of file "[^"]+" pauses in its image phase/;
			$s->{h}->pump_nb;
			last if $paused || $s->{out} =~ /ended/;
			select(undef, undef, undef, 0.1);
		}
		if ($paused)
		{
			pass("$label: artrie_checkpoint() pauses in a file's image phase");
			return $s;
		}
		bg_wait_ended($s);
		bg_end($s);
		diag("$label: try $try: artrie_checkpoint() was no image checkpoint");
	}
	fail("$label: artrie_checkpoint() pauses in a file's image phase");
	return undef;
}

# A backup that ends within an image of t_k begun after the backup's
# start, paused after the image's first record (60,000 more rows first,
# so that the image is more than one record).  With $changed, t_k changed
# before pg_backup_start, so artrie's pass at the backup's redo pointer
# images it whole before the copy: redo rebuilds the file from that image
# and keeps it current with the entry records after it, and the later
# image must not start the file afresh; a hot standby made from the
# backup answers inside that image.  Without, t_k is unchanged there (the
# pass logs an unchanged record) and the copy is the file: the later
# image's records are held back with the entries logged since its
# image-begin record, and when the WAL ends before the image's last
# record the copy (which the image's checkpoint, not ended, left whole)
# with the entries held back must be the file.  Either way the backup
# restored to its end (recovery_target = 'immediate') answers like a
# sequential scan, with no file marked damaged, and verifies.
sub backup_within_later_image
{
	my ($node, $label, $base, $changed) = @_;
	my $pgdata = $node->data_dir;
	my $name = $changed ? 'imgmid' : 'imgmid_unchanged';
	my $mid = "$pgdata/artrie_checkpoint_pause_image_mid";
	my $backend = $node->safe_psql('postgres', 'SHOW artrie.io_backend');

	$node->safe_psql('postgres', qq{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series($base + 1, $base + 60000) g;
		DELETE FROM t WHERE id % 17 = 3;
	});
	$node->safe_psql('postgres',
		'SELECT artrie_checkpoint(); SELECT artrie_checkpoint(); SELECT artrie_checkpoint()')
	  unless $changed;
	my $session = $node->background_psql('postgres');
	$session->query_safe('SET client_min_messages = warning');
	my $start = $session->query_safe("SELECT pg_backup_start('$name', true)");
	ok($node->poll_query_until('postgres',
		"SELECT restart_lsn >= '$start'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'artrie'"),
		"$label: artrie's pass at the backup's start is done");
	my $ckpt = paused_image_checkpoint($node, $label, $base + 100000,
		'artrie_checkpoint_pause_image_mid');
	return unless $ckpt;
	writes_while_paused($node, $ckpt, $base + 108000, 4, $label, 'image checkpoint');
	my $backup = copy_datadir($node, $name);
	my $backup_label = $session->query_safe(
		'SELECT labelfile FROM pg_backup_stop(true)');
	$session->quit;
	write_backup_label($backup, $backup_label);

	if ($changed)
	{
		my $standby = PostgreSQL::Test::Cluster->new("${name}_standby_$backend");
		$standby->init_from_backup($node, $name, has_restoring => 1, standby => 1);
		$standby->append_conf('postgresql.conf', 'archive_mode = off');
		if (start_ok($standby, "$label: a hot standby from the backup"))
		{
			ok($standby->poll_query_until('postgres', 'SELECT pg_is_in_recovery()'),
				"$label: the hot standby accepts queries");
			check_index($standby, 't', 't_k', "$label: hot standby inside the later image");
			$standby->stop;
		}
	}

	my $to_end = PostgreSQL::Test::Cluster->new("${name}_to_end_$backend");
	$to_end->init_from_backup($node, $name, has_restoring => 1, standby => 0);
	$to_end->append_conf('postgresql.conf', join("\n", 'archive_mode = off',
		"recovery_target = 'immediate'", "recovery_target_action = 'promote'"));
	if (start_ok($to_end, "$label: the backup restored to its end"))
	{
		wait_promoted($to_end, "$label: the backup restored to its end");
		unlike(slurp_file($to_end->logfile), qr/artrie file "[^"]+" is damaged/,
			"$label: restored to its end: no file is marked damaged");
		check_index($to_end, 't', 't_k', "$label: restored to its end");
		verify_ok($to_end, 't_k', "$label: restored to its end");
		$to_end->stop;
	}
	unlink($mid);
	ok(bg_wait_ended($ckpt), "$label: the image checkpoint resumes and completes");
	is($ckpt->{err}, '', "$label: the image checkpoint reports no error");
	bg_end($ckpt);
	return;
}

for my $backend (backends())
{
	my $node = artrie_primary("imgckpt_$backend", $backend,
		has_archiving => 1,
		conf => [ 'checkpoint_timeout = 1h', 'max_wal_size = 4GB',
			'autovacuum = off',
			'artrie.checkpoint_timeout = 86400',
			'artrie.checkpoint_dirty_percent = 100' ]);
	make_wtable($node, 't', 't_k', 1, 20000);
	my $pause = $node->data_dir . '/artrie_checkpoint_pause_image';

	# Round 1: a base backup across the paused image; PostgreSQL's
	# checkpoint in paused_image_checkpoint comes after the backup's start.
	my $label = "$backend backup";
	my $session = $node->background_psql('postgres');
	$session->query_safe('SET client_min_messages = warning');
	$session->query_safe("SELECT pg_backup_start('imgckpt', true)");
	my $ckpt = paused_image_checkpoint($node, $label, 1000000);
	last unless $ckpt;
	writes_while_paused($node, $ckpt, 1308000, 3, $label, 'image checkpoint');

	# The copier reads the data directory while the image is paused.
	my $backup = copy_datadir($node, 'imgckpt');
	my $backup_label = $session->query_safe(
		'SELECT labelfile FROM pg_backup_stop(true)');
	$session->quit;
	write_backup_label($backup, $backup_label);

	# A hot standby made from that backup while the image is still paused
	# becomes consistent at the backup's end, inside the image: redo holds
	# the file's entries logged since the image began, so the file lacks
	# them and queries must be refused, not answered from it.  Once the
	# image is logged and replayed, the index answers like a sequential
	# scan.
	my $standby = PostgreSQL::Test::Cluster->new("imgckpt_standby_$backend");
	$standby->init_from_backup($node, 'imgckpt', has_restoring => 1, standby => 1);
	$standby->append_conf('postgresql.conf', 'archive_mode = off');
	my $refused = 0;
	if (start_ok($standby, "$label: a hot standby from the backup"))
	{
		ok($standby->poll_query_until('postgres', 'SELECT pg_is_in_recovery()'),
			"$label: the hot standby accepts queries");
		my ($rc, $out, $err) = $standby->psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k >= ''");
		like($err, qr/artrie index "t_k" cannot be used until recovery has replayed its checkpoint's image/,
			"$label: hot standby inside the image: a query of the index is refused");
		$refused = 1;
	}

	unlink($pause);
	ok(bg_wait_ended($ckpt), "$label: the image checkpoint resumes and completes");
	is($ckpt->{err}, '', "$label: the image checkpoint reports no error");
	bg_end($ckpt);
	if ($refused)
	{
		$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
		ok($standby->poll_query_until('postgres',
			"SELECT count(*) >= 0 FROM t WHERE k = 'x'"),
			"$label: hot standby: the index is used once the image is replayed");
		check_index($standby, 't', 't_k', "$label: hot standby after the image");
		$standby->stop;
	}
	$node->safe_psql('postgres', q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(1020001, 1021000) g;
		DELETE FROM t WHERE id % 19 = 2;
	});

	my $want = index_answers($node, 't', 'seq');
	my $seg = $node->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($node->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$label: the WAL after the backup is archived");

	my $restored = PostgreSQL::Test::Cluster->new("imgckpt_restored_$backend");
	$restored->init_from_backup($node, 'imgckpt', has_restoring => 1, standby => 0);
	$restored->append_conf('postgresql.conf', 'archive_mode = off');
	if (start_ok($restored, "$label: the restored backup"))
	{
		wait_promoted($restored, "$label: the restored backup");
		like(slurp_file($restored->logfile),
			qr/artrie applied [1-9]\d* WAL entry records of file "[^"]+" held back during its checkpoint's image/,
			"$label: redo held the entries logged during the image back until its end");
		check_index($restored, 't', 't_k', "$label: restored", want => $want);
		verify_ok($restored, 't_k', "$label: restored");
		$restored->stop;
	}

	my $to_end = PostgreSQL::Test::Cluster->new("imgckpt_to_end_$backend");
	$to_end->init_from_backup($node, 'imgckpt', has_restoring => 1, standby => 0);
	$to_end->append_conf('postgresql.conf', join("\n", 'archive_mode = off',
		"recovery_target = 'immediate'", "recovery_target_action = 'promote'"));
	if (start_ok($to_end, "$label: the backup restored to its end"))
	{
		wait_promoted($to_end, "$label: the backup restored to its end");
		like(slurp_file($to_end->logfile),
			qr/artrie applied [1-9]\d* WAL entry records of file "[^"]+" held back during its checkpoint's image/,
			"$label: restored to its end: redo applied the entries held back at its end");
		check_index($to_end, 't', 't_k', "$label: restored to its end");
		verify_ok($to_end, 't_k', "$label: restored to its end");
		$to_end->stop;
	}

	# Round 2: the backup's start images the changed file.  Round 3: the
	# file is unchanged at the backup's start.
	backup_within_later_image($node, "$backend later image", 1500000, 1);
	backup_within_later_image($node, "$backend later image, unchanged at start",
		1700000, 0);

	# Round 4: a crash while the image is paused.
	$label = "$backend crash";
	$ckpt = paused_image_checkpoint($node, $label, 2000000);
	last unless $ckpt;
	writes_while_paused($node, $ckpt, 2308000, 3, $label, 'image checkpoint');
	crash_node($node);
	unlink($pause);
	bg_end($ckpt);
	$node->start;
	check_index($node, 't', 't_k', "$label: after a crash");
	verify_ok($node, 't_k', "$label: after a crash");
	$node->stop;
}
done_testing();
