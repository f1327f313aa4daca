# Damaged artrie files (issue 9, item 3): garbage over the data pages, a
# file cut short, a file that is missing, both meta pages garbled.  Each
# is found after a crash, with committed rows of the damaged index and of
# a healthy one only in the WAL written since artrie's last checkpoint.
# Redo applies the healthy index's records; the first record the damaged
# file cannot take marks it damaged (a warning naming the file) and the
# rest of its records are skipped, recovery goes on; a missing file's
# records are skipped.  Statements that must maintain the damaged index
# get an ERROR that names the index and the file, with what redo could not
# do (the page, where one is to blame) or that the file is missing, and a
# hint to REINDEX; queries are planned without it and answer right, with
# the same text as a WARNING; the server never crashes: the io worker keeps running, its
# checkpoints and sweep go on, and a session that uses a healthy index
# meanwhile keeps getting right answers, including the replayed rows.
# REINDEX repairs the index: every committed row is there again.  Then a
# file removed under a running server, and DROP INDEX of an index whose
# file is missing.  All of it on each read path (read_paths): mmap, and
# io_uring with a backend's own reads and with the io worker's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;
use PagerTest;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
  . 'SET enable_bitmapscan = off;';

# A query over every key of a table, and one over the rows of a prefix.
sub probe
{
	my ($table, $prefix) = @_;
	return "SELECT count(*), sum(hashtext(t)) FROM $table WHERE t > ''; "
	  . "SELECT count(*) FROM $table WHERE t ^@ '$prefix'";
}

# The server log written since an offset.
sub log_since
{
	my ($node, $offset) = @_;
	return slurp_file($node->logfile, $offset);
}

# The absolute path of an index's artrie file.
sub file_of
{
	my ($node, $index) = @_;
	return $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT artrie_stats('$index')->>'file'");
}

# PostgreSQL's checkpoint, and wait until the io worker's checkpoint that
# follows it has moved artrie's replay_from there: both files are then
# checkpointed past it, and neither redo nor artrie's own replay at the
# next start begins before it.  Until then a crash or a stop may leave
# the image records of a file's build in the WAL that artrie replays,
# which make the file anew if it is missing.
sub checkpoint_past_images
{
	my ($node, $label) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	ok($node->poll_query_until('postgres', q{
		SELECT (artrie_stats('hi')->'wal'->>'replay_from')::pg_lsn >= c.redo_lsn
		FROM pg_control_checkpoint() c}),
		"$label: artrie's replay begins past PostgreSQL's checkpoint");
}

# The damage done to the file, and the error it must give after the
# crash: a file redo could not apply records to is refused with redo's
# error as the detail.
my %damage = (
	garbage => sub { cmp_ok(damage_pages($_[0], 1), '>', 0, 'garbage over the data pages') },
	truncated => sub { ok(truncate($_[0], 4 * 8192), 'the file cut to 4 pages') },
	missing => sub { ok(unlink($_[0]), 'the file removed') },
	meta => sub { is(damage_pages($_[0], 3), 2, 'both meta pages garbled') });
my $refused = qr/index "wi" cannot be used: file "(artrie\/\d+\/\d+\.\d+)" lacks changes that recovery could not apply\nDETAIL:  Redo of the WAL record at [0-9A-F]+\/[0-9A-F]+ failed: /;
my %problem = (
	garbage => qr/${refused}index "[^"]*" is corrupted: page \d+ of file "\1"\n/,
	truncated => qr/${refused}index "[^"]*" is corrupted: page \d+ of file "\1"\n/,
	missing => qr/file "(artrie\/\d+\/\d+\.\d+)" of index "wi" is missing/,
	meta => qr/${refused}index "[^"]*" is corrupted: file "\1" has no valid meta page\n/);

# Statements that must maintain the index get the problem as an ERROR;
# queries are planned without the index, with the problem as a WARNING.
my %error = map { $_ => qr/ERROR:  $problem{$_}/ } keys %problem;
my %warning = map { $_ => qr/WARNING:  $problem{$_}/ } keys %problem;

for my $rp (read_paths())
{
	my ($backend, $io, @conf) = @$rp;
	my $node = artrie_node("damage_$backend", $io, 'artrie.buffer_pool_size = 4MB', @conf);
	$node->safe_psql('postgres', q{
		CREATE TABLE w (t text COLLATE "C");
		INSERT INTO w SELECT md5(i::text) FROM generate_series(1, 20000) i;
		CREATE INDEX wi ON w USING artrie (t);
		CREATE TABLE h (t text COLLATE "C");
		INSERT INTO h SELECT 'h' || md5(i::text) FROM generate_series(1, 20000) i;
		CREATE INDEX hi ON h USING artrie (t);
	});
	like($node->safe_psql('postgres', "$idx EXPLAIN (COSTS OFF) " . (split /;/, probe('h', 'x'))[0]),
		qr/Index Only Scan using hi/, "$backend: the probe goes through the index");

	for my $case ('garbage', 'truncated', 'missing', 'meta')
	{
		my $label = "$backend, $case";

		# Rows committed after artrie's last checkpoint live in the WAL only.
		# PostgreSQL's checkpoint, then the io worker's checkpoint of both
		# files, until artrie's own replay at start begins past it too
		# (replay_from), so that no redo meets the image records of the file
		# (made by CREATE INDEX or the last REINDEX), which would make a
		# missing file anew from the WAL.
		checkpoint_past_images($node, $label);
		$node->safe_psql('postgres', qq{
			INSERT INTO w SELECT '$case-' || i FROM generate_series(1, 300) i;
			INSERT INTO h SELECT '$case-' || i FROM generate_series(1, 300) i;
		});
		my $want_w = $node->safe_psql('postgres', "$seq " . probe('w', "$case-"));
		my $want_h = $node->safe_psql('postgres', "$seq " . probe('h', "$case-"));
		like($want_h, qr/\n300$/, "$label: 300 new rows");
		my $path = file_of($node, 'wi');
		crash_node($node);
		$damage{$case}->($path);
		my $logpos = -s $node->logfile;
		$node->start;
		my $worker = worker_pid($node);
		like($worker, qr/^\d+$/, "$label: the io worker runs");
		my ($replayed, $failures) = split /\|/, $node->safe_psql('postgres',
			"SELECT w->>'replayed', w->>'replay_failures' FROM (SELECT artrie_stats('hi')->'wal' AS w) s");
		cmp_ok($replayed, '>=', 300, "$label: redo applied the healthy index's records");
		is($failures, $case eq 'missing' ? 0 : 1,
			"$label: and failed on one record of the damaged file (none of a missing one)");

		# A session on the healthy index, before, between and after the
		# errors of the damaged one.
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		$bg->query_safe($idx);
		is($bg->query_safe(probe('h', "$case-")), $want_h,
			"$label: the healthy index answers, its rows in the WAL replayed");

		my ($ret, $out, $err) = $node->psql('postgres', $idx . probe('w', "$case-"));
		is($ret, 0, "$label: a query on the damaged index's table runs");
		is($out, $want_w, "$label: without the index, and answers right");
		like($err, $warning{$case}, "$label: the warning names the index and the file");
		my ($named) = $err =~ $warning{$case};
		is($node->data_dir . "/$named", $path, "$label: the file named is the index's");
		like($err, qr/\nHINT:  REINDEX the index\./, "$label: and asks for REINDEX");
		($ret, $out, $err) = $node->psql('postgres', "INSERT INTO w VALUES ('$case-new')");
		isnt($ret, 0, "$label: an insert, which must maintain the damaged index, fails");
		like($err, $error{$case}, "$label: the error names the index and the file");
		like($err, qr/\nHINT:  REINDEX the index\./, "$label: and asks for REINDEX");

		# The healthy session meets the damaged index itself and goes on.
		is($bg->query(probe('w', "$case-")), $want_w,
			"$label: the other session's query answers right too");
		like($bg->{stderr}, $warning{$case}, "$label: with the warning");
		$bg->{stderr} = '';
		is($bg->query_safe(probe('h', "$case-")), $want_h,
			"$label: and still gets right answers from the healthy index");

		# The io worker lived through it, and checkpoints and sweeps.
		is($node->psql('postgres', 'SELECT artrie_checkpoint()'), 0,
			"$label: a checkpoint (and the sweep) succeeds");
		is(worker_pid($node), $worker, "$label: the io worker did not restart");

		# REINDEX repairs; every committed row is found through the index.
		$node->safe_psql('postgres', 'REINDEX INDEX wi');
		is($node->safe_psql('postgres', $idx . probe('w', "$case-")), $want_w,
			"$label: after REINDEX the index has every committed row");
		is($bg->query_safe(probe('w', "$case-")), $want_w,
			"$label: the other session sees the rebuilt index");
		for (1 .. 50)
		{
			last unless -e $path;
			$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
			select(undef, undef, undef, 0.1);
		}
		ok(!-e $path, "$label: the damaged file is removed");
		$bg->quit;

		my $log = log_since($node, $logpos);
		unlike($log, qr/PANIC|terminated by signal|was terminated|server process .* exited/,
			"$label: no process crashed");
		my $marked = () = $log =~ /WARNING:  artrie file "\Q$named\E" is damaged and will be refused until REINDEX/g;
		is($marked, $case eq 'missing' ? 0 : 1,
			"$label: redo marked the damaged file once (a missing file's records are skipped)");
	}

	# A file removed while the server runs: queries give right answers or
	# an error naming the file, never a crash; so does a checkpoint (the io
	# worker may still hold the file open, or not); the server shuts down;
	# after a restart the missing-file error; REINDEX repairs.
	my $named = $node->safe_psql('postgres', "SELECT artrie_stats('wi')->>'file'");
	my $path = $node->data_dir . "/$named";
	checkpoint_past_images($node, $backend);
	my $logpos = -s $node->logfile;
	ok(unlink($path), "$backend: the file removed under the running server");
	my ($ret, $out, $err);
	for my $i (1 .. 2)
	{
		$node->safe_psql('postgres', "INSERT INTO w VALUES ('live-$i')");
		($ret, $out, $err) = $node->psql('postgres', $idx . probe('w', 'x'));
		ok(($ret == 0 && $out eq $node->safe_psql('postgres', "$seq " . probe('w', 'x')))
			  || $err =~ /ERROR:  .*"\Q$named\E"/,
			"$backend: a new session gets a right answer or an error naming the file ($i)");
	}
	($ret, $out, $err) = $node->psql('postgres', 'SELECT artrie_checkpoint()');
	ok($ret == 0 || $err =~ /ERROR:  .*"\Q$named\E"/,
		"$backend: a checkpoint succeeds or names the file");
	$node->restart;
	($ret, $out, $err) = $node->psql('postgres', $idx . probe('w', 'x'));
	like($err, $warning{missing}, "$backend: after a restart a query warns of the missing file");
	($ret, $out, $err) = $node->psql('postgres', "INSERT INTO w VALUES ('after-restart')");
	like($err, $error{missing}, "$backend: and an insert fails on it");
	like($err, qr/\nHINT:  REINDEX the index\./, "$backend: with the REINDEX hint");
	$node->safe_psql('postgres', 'REINDEX INDEX wi');
	is($node->safe_psql('postgres', $idx . probe('w', 'x')),
		$node->safe_psql('postgres', "$seq " . probe('w', 'x')),
		"$backend: REINDEX repairs it");
	unlike(log_since($node, $logpos), qr/PANIC|terminated by signal|was terminated/,
		"$backend: no process crashed");

	# DROP, the other way out, works on an index whose file is missing.
	$path = file_of($node, 'wi');
	$node->stop;
	unlink($path) or die "unlink $path: $!";
	$node->start;
	is($node->psql('postgres', 'DROP INDEX wi'), 0, "$backend: DROP INDEX of a missing file");
	is($node->safe_psql('postgres', "SELECT count(*) FROM w WHERE t ^@ 'garbage-'"), '300',
		"$backend: the table answers without the index");
	$node->stop;
}

done_testing();
