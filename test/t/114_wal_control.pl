# artrie's control file ($PGDATA/artrie/control: from where its files
# need WAL, which files to refuse) is no single point of failure.  Its two
# slots are in separate 4 KiB blocks, so a torn write of one block leaves
# the other; a control file that is lost, or whose blocks are both
# damaged, is rebuilt at start from artrie's replication slot and the
# files' meta pages, with a line in the log, instead of refusing every
# index; a control file of the layout before (two 512-byte slots in one
# block) is still read, and rewritten in blocks.  After each of these
# (some after a clean stop, some after a crash with rows only in the
# WAL), both indexes (one written, one idle) answer exactly as a
# sequential scan does, on both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my ($node, $control, $next);

# More rows in w1 (w2 stays idle).
sub more_rows
{
	my $to = $next + 499;
	$node->safe_psql('postgres',
		"INSERT INTO w1 SELECT g, wkey(g) FROM generate_series($next, $to) g");
	$next = $to + 1;
}

# Both indexes answer as a sequential scan does.
sub both_ok
{
	my ($label) = @_;
	check_index($node, 'w1', 'w1_k', "$label (written)");
	check_index($node, 'w2', 'w2_k', "$label (idle)");
	is($node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM w1 WHERE k >= ''"),
		$node->safe_psql('postgres', "SELECT count(*) FROM w1 WHERE k IS NOT NULL"),
		"$label: every row of w1 is in its index");
}

# Overwrite bytes of a file at an offset.
sub scribble
{
	my ($file, $offset, $bytes) = @_;
	open(my $fh, '+<:raw', $file) or die "$file: $!";
	seek($fh, $offset, 0);
	print $fh $bytes;
	close $fh;
}

sub garbage { return join('', map { chr(1 + int(rand(255))) } 1 .. $_[0]); }

# The control file's slots: magic, seq, system identifier, replay_from,
# min_redo, timeline, for each 4 KiB block.
sub control_blocks
{
	open(my $fh, '<:raw', $control) or die "$control: $!";
	local $/;
	my $all = <$fh>;
	close $fh;
	my @blocks;
	for my $b (0, 1)
	{
		my $raw = substr($all . ("\0" x 8192), $b * 4096, 48);
		my %s;
		@s{qw(crc magic seq sysid replay_from min_redo tli)} = unpack('V V Q< Q< Q< Q< V', $raw);
		push @blocks, \%s;
	}
	return (length($all), @blocks);
}

# Start, and return the server log written by that start.
sub start_log
{
	my ($label) = @_;
	my $offset = -s $node->logfile;
	start_ok($node, $label);
	# artrie's recovery has run once a query can use an index.
	$node->safe_psql('postgres', "SELECT count(*) FROM w2 WHERE k = 'x'");
	return slurp_file($node->logfile, $offset);
}

my $rebuilt = qr/LOG:  artrie: its control file \$PGDATA\/artrie\/control (is missing|has no valid slot); rebuilt from artrie's replication slot and the meta pages of 2 files: WAL is replayed from [0-9A-F]+\/[0-9A-F]+/;

for my $backend (backends())
{
	note("I/O backend $backend");
	$node = artrie_node("ctl_$backend", $backend);
	$control = $node->data_dir . '/artrie/control';
	make_wtable($node, 'w1', 'w1_k', 1, 3000);
	make_wtable($node, 'w2', 'w2_k', 1000001, 1002000);
	$next = 3001;

	# The layout: two slots in two blocks, after a few checkpoints.
	more_rows();
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	more_rows();
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	my ($len, @blocks) = control_blocks();
	is($len, 8192, 'the control file is two 4 KiB blocks');
	is(scalar(grep { $_->{magic} == 0x41525732 } @blocks), 2, 'each block holds a slot');
	my $tli = $node->safe_psql('postgres', 'SELECT timeline_id FROM pg_control_checkpoint()');
	is($blocks[0]{tli}, $tli, 'a slot records the timeline');

	# 1. The control file deleted after a clean stop (every file's last
	# checkpoint then began before PostgreSQL's redo pointer).
	more_rows();
	$node->stop;
	unlink $control or die "$control: $!";
	my $log = start_log('control file deleted after a clean stop');
	like($log, $rebuilt, 'control file deleted: rebuilt, said in one line of the log');
	both_ok('control file deleted after a clean stop');
	ok(-s $control, 'the control file is written again');

	# 2. Deleted after a crash, with rows that only the WAL has.
	$node->safe_psql('postgres', 'CHECKPOINT');
	more_rows();
	crash_node($node);
	unlink $control or die "$control: $!";
	$log = start_log('control file deleted after a crash');
	like($log, $rebuilt, 'control file deleted after a crash: rebuilt');
	both_ok('control file deleted after a crash');

	# 3. One block torn (garbage over all of it), then the other one, each
	# after a crash with rows only in the WAL: the other slot is used.
	for my $b (0, 1)
	{
		more_rows();
		$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
		more_rows();
		crash_node($node);
		scribble($control, $b * 4096, garbage(4096));
		$log = start_log("control block $b torn");
		like($log, qr/LOG:  artrie: a slot of its control file \$PGDATA\/artrie\/control is damaged; the other one is used/,
			"control block $b torn: the other slot is used, said in the log");
		unlike($log, $rebuilt, "control block $b torn: nothing to rebuild");
		both_ok("control block $b torn");
	}

	# 4. Both blocks damaged.
	more_rows();
	$node->stop;
	scribble($control, 0, garbage(8192));
	$log = start_log('both control blocks damaged');
	like($log, $rebuilt, 'both control blocks damaged: rebuilt, said in the log');
	both_ok('both control blocks damaged');

	# 5. The old layout: the newest slot rewritten as a 512-byte slot of the
	# old format at offset 0, nothing at 512.
	more_rows();
	$node->stop;
	($len, @blocks) = control_blocks();
	my ($new) = sort { $b->{seq} <=> $a->{seq} } grep { $_->{magic} == 0x41525732 } @blocks;
	my $body = pack('V Q< Q< Q< Q<', 0x41525743, @$new{qw(seq sysid replay_from min_redo)});
	my $old = pack('V', crc32c($body)) . $body;
	open(my $fh, '>:raw', $control) or die "$control: $!";
	print $fh $old . ("\0" x (1024 - length($old)));
	close $fh;
	$log = start_log('control file of the old layout');
	unlike($log, qr/artrie: (its control file|a slot of its control file)/,
		'a control file of the old layout is read as it is');
	both_ok('control file of the old layout');
	more_rows();
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	more_rows();
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	($len, @blocks) = control_blocks();
	is(scalar(grep { $_->{magic} == 0x41525732 } @blocks), 2,
		'and rewritten in two blocks by the next checkpoints');

	$node->stop;
}

done_testing();
