# A build writes each batch of its pages while its load goes on, and logs
# its image from the copies it kept of them (src/pager/pager_build.c).
# A build that an ERROR or FATAL ends while a batch is being written must
# wait for that write and give its requests back to the io worker's queue
# before its frames go back to the pool.  With a ring of 8 entries (a
# queue of 32 requests) and a pool of 2 MB (batches of 8 pages), four
# builds that left their requests behind would fill the queue, and a
# build that left its write registered would meet it again in the next.
#  - CREATE UNIQUE INDEX that fails at its last entry, six times, with a
#    batch being written when it fails;
#  - CREATE INDEX cancelled (pg_cancel_backend) in its load phase, and a
#    session terminated (pg_terminate_backend) there, three times each
#    (a build that ended before the signal came is noted, not failed),
#    and once with maintenance_work_mem at 2 MB, the load merging the
#    sorted runs the build wrote: no temporary file is left;
#  - a crash (every process killed) while the build's checkpoint of its
#    new file waits before its writes (artrie.test_checkpoint_pause): the
#    build makes the file durable with one sync, since nothing durable
#    names it before its transaction commits; after the restart there is
#    no index and no file that no index names;
#  - then, with maintenance_work_mem at 2 MB (so the build sorts its
#    entries in runs and merges them, and keeps copies of its first runs
#    of pages only and reads the rest back for its image),
#    a build that answers like a sequential scan and verifies, on the
#    primary and on a standby that replays its image; a checkpoint; and
#    a crash right after it, from which the index comes back whole.
# On both I/O backends (mmap writes a batch at once, nothing stays under
# way).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rows = 200000;

# Signal ($fn: pg_cancel_backend or pg_terminate_backend) the backend that
# runs $sql on $node once its build reaches the load phase (polled from
# inside the server, every half millisecond, until the statement ends);
# returns the build's stderr.  $tag names the session.
sub signal_in_load
{
	my ($node, $sql, $fn, $tag) = @_;
	my $s = bg_session($node);
	$s->{in} .= "SET application_name = '$tag' \\; $sql;\n\\echo ended\n";
	$s->{h}->pump_nb;
	$node->safe_psql('postgres', qq{
		DO \$\$
		DECLARE
			p int;
			st text;
			ph text;
		BEGIN
			FOR i IN 1 .. 60000 LOOP
				PERFORM pg_stat_clear_snapshot();
				SELECT a.pid, a.state, c.phase INTO p, st, ph
				  FROM pg_stat_activity a
				  LEFT JOIN pg_stat_progress_create_index c USING (pid)
				  WHERE a.application_name = '$tag';
				IF ph LIKE '%loading trie' THEN
					PERFORM $fn(p);
					RETURN;
				END IF;
				EXIT WHEN st = 'idle';
				PERFORM pg_sleep(0.0005);
			END LOOP;
		END \$\$});
	bg_run($s, '', qr/ended/);
	bg_end($s);
	return $s->{err};
}

for my $backend (backends())
{
	my $primary = artrie_primary("p_$backend", $backend,
		conf => [ 'artrie.io_ring_entries = 8',
			"artrie.buffer_pool_size = '2MB'",
			'artrie.test_checkpoint_pause = on' ]);
	make_build_tables($primary, $rows);
	my $standby = artrie_standby($primary, "s_$backend");

	# 1. UNIQUE builds that fail at their last entry.
	for my $try (1 .. 6)
	{
		my ($ret, $out, $err) = $primary->psql('postgres',
			'CREATE UNIQUE INDEX u_idx ON u USING artrie (k)');
		like($err, qr/could not create unique index/,
			"$backend, unique $try: the build fails at the duplicate");
	}

	# 2. Builds cancelled and sessions terminated in the load phase.
	for my $try (1 .. 3)
	{
		for my $how ([ 'pg_cancel_backend', 'cancel', qr/canceling statement/ ],
			[ 'pg_terminate_backend', 'terminate', qr/terminating connection/ ])
		{
			my ($fn, $what, $want) = @$how;
			my $err = signal_in_load($primary,
				'CREATE INDEX t_idx ON t USING artrie (k)', $fn, "${what}_$try");
			if ($err =~ $want)
			{
				pass("$backend, $what $try: the build ended in its load");
				next;
			}
			note("$backend, $what $try: the build ended first ($err)");
			$primary->safe_psql('postgres', 'DROP INDEX IF EXISTS t_idx');
			pass("$backend, $what $try: the build ended first");
		}
	}
	# A build cancelled in its load while it merges sorted runs (2MB of
	# memory for 200,000 entries): their temporary file goes with it.
	my $runs_err = signal_in_load($primary,
		"SET maintenance_work_mem = '2MB' \\; CREATE INDEX t_idx ON t USING artrie (k)",
		'pg_cancel_backend', 'cancel_runs');
	if ($runs_err !~ /canceling statement/)
	{
		note("$backend, cancel in the merge: the build ended first ($runs_err)");
		$primary->safe_psql('postgres', 'DROP INDEX IF EXISTS t_idx');
	}
	pass("$backend, cancel in the merge: the build ended");
	is($primary->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "$backend, cancel in the merge: no temporary file is left");
	is($primary->safe_psql('postgres',
			"SELECT count(*) FROM pg_class WHERE relname IN ('t_idx', 'u_idx')"),
		'0', "$backend: no index is left of the builds that failed");

	# 3. A crash while the build's checkpoint of its file waits before its
	# writes (every batch written; its map, meta page and one sync not
	# yet): after the restart no index, and its file is swept.
	$primary->safe_psql('postgres', 'CHECKPOINT; SELECT artrie_checkpoint()');
	my $s = bg_paused($primary, 'artrie_checkpoint_pause',
		'CREATE INDEX t_idx ON t USING artrie (k)',
		qr/artrie checkpoint of file "[^"]+" pauses in its write phase/,
		"$backend, crash: the build's checkpoint pauses");
	is($primary->safe_psql('postgres',
			'SELECT count(*) FROM pg_stat_progress_create_index'),
		'1', "$backend, crash: the build is still running");
	crash_node($primary);
	unlink($primary->data_dir . '/artrie_checkpoint_pause');
	bg_end($s);
	start_ok($primary, "$backend, crash in the build's checkpoint");
	is($primary->safe_psql('postgres',
			"SELECT count(*) FROM pg_class WHERE relname = 't_idx'"),
		'0', "$backend, crash: the index was not created");
	files_ok($primary, "$backend, crash in the build's checkpoint");

	# 4. The queue still serves: a build that keeps copies of a few runs
	# only, on the primary and on the standby; a checkpoint; a crash.
	sql_ok($primary, q{
		SET maintenance_work_mem = '2MB';
		CREATE INDEX t_idx ON t USING artrie (k)},
		"$backend: a build after them succeeds");
	sql_ok($primary, 'CHECKPOINT; SELECT artrie_checkpoint()',
		"$backend: a checkpoint after them succeeds");
	my $want = index_answers($primary, 't', 'seq');
	check_index($primary, 't', 't_idx', "$backend, primary", want => $want);
	verify_ok($primary, 't_idx', "$backend, primary");
	wait_replayed($primary, $standby);
	check_index($standby, 't', 't_idx', "$backend, standby", want => $want);
	verify_ok($standby, 't_idx', "$backend, standby");

	$primary->safe_psql('postgres', q{
		DROP INDEX t_idx;
		SET maintenance_work_mem = '2MB';
		CREATE INDEX t_idx ON t USING artrie (k)});
	crash_node($primary);
	start_ok($primary, "$backend, crash after the build");
	check_index($primary, 't', 't_idx', "$backend, crash after the build",
		want => $want);
	verify_ok($primary, 't_idx', "$backend, crash after the build");
	files_ok($primary, "$backend, crash after the build");

	$standby->stop;
	$primary->stop;
}

done_testing();
