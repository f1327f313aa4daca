# Torn and damaged writes: garbage in a slot of artrie's control file
# ($PGDATA/artrie/control, which says from where artrie's files need WAL
# and which files to refuse), and an index file with one meta page
# garbled.  A control slot that does not check out is ignored in favour
# of the other slot, whatever it claims; the index then answers as a
# sequential scan does; a meta page that cannot be trusted is an error
# naming the file, never wrong answers.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('torn', 'io_uring');
my $control = $node->data_dir . '/artrie/control';

# The control file's two slots, one per 4 KiB block, each a hash of its
# fields (CRC, magic, seq, system identifier, replay_from, min_redo) and
# its first 512 raw bytes.
sub control_slots
{
	open(my $fh, '<:raw', $control) or die "$control: $!";
	my @slots;
	for my $slot (0, 1)
	{
		seek($fh, $slot * 4096, 0);
		read($fh, my $raw, 512) == 512 or die "short read of $control";
		my ($crc, $magic, $seq, $sysid, $replay_from, $min_redo) =
		  unpack('V V Q< Q< Q< Q<', $raw);
		push @slots, {
			crc => $crc, magic => $magic, seq => $seq, sysid => $sysid,
			replay_from => $replay_from, min_redo => $min_redo, raw => $raw };
	}
	close $fh;
	return @slots;
}

# The index of the newest slot with the right magic number.
sub newest_slot
{
	my @slots = @_;
	my @ok = grep { $slots[$_]{magic} == 0x41525732 } (0, 1);
	return (sort { $slots[$b]{seq} <=> $slots[$a]{seq} } @ok)[0];
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

sub agrees
{
	my ($label) = @_;
	my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	my $q = "SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM t WHERE k >= ''";
	is($node->safe_psql('postgres', "$force $q"), $node->safe_psql('postgres', "$seq $q"),
		"$label: the index agrees with a sequential scan");
	$node->safe_psql('postgres', "SELECT artrie_verify('t_k', true)");
	pass("$label: artrie_verify finds the index sound");
}

$node->safe_psql('postgres', q{
	CREATE TABLE t (id int, k text COLLATE "C");
	CREATE INDEX t_k ON t USING artrie (k);
});
$node->safe_psql('postgres', "INSERT INTO t VALUES ($_, 'committed-$_')") for 1 .. 200;

# Both control slots hold a checkpoint: artrie checkpoints, a row, again,
# and at the stop.
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
$node->safe_psql('postgres', "INSERT INTO t VALUES (0, 'between')");
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
$node->stop;
my @slots = control_slots();
is(scalar(grep { $_->{magic} == 0x41525732 } @slots), 2, 'both control slots are written');
my $new = newest_slot(@slots);

# The older slot overwritten with the newest one claiming a later seq and
# that every file is to be refused, its CRC left as it was: the CRC does
# not match, so the slot is ignored and nothing is refused.
my $fake = $slots[$new]{raw};
substr($fake, 8, 8) = pack('Q<', $slots[$new]{seq} + 100);
substr($fake, 32, 8) = pack('V V', 0, 0xFFFFFFFF);
scribble($control, (1 - $new) * 4096, $fake);
$node->start;
agrees('a control slot with a bad CRC');

# Rows only in the WAL since a PostgreSQL checkpoint, a crash, and the
# newest control slot garbled: the older slot is used, the WAL is replayed
# from artrie's replication slot, the rows are there, and the bound on
# files to refuse moves at most to PostgreSQL's redo pointer, up to which
# the CHECKPOINT stamped the file.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', "INSERT INTO t VALUES ($_, 'second-$_')") for 1 .. 50;
crash_node($node);
my ($controldata) = run_command([ 'pg_controldata', $node->data_dir ]);
$controldata =~ /Latest checkpoint's REDO location:\s*([0-9A-F]+)\/([0-9A-F]+)/
  or die "no REDO location in pg_controldata's output";
my $pg_redo = hex($1) * 2**32 + hex($2);
@slots = control_slots();
$new = newest_slot(@slots);
my $older = $slots[1 - $new];
is($older->{magic}, 0x41525732, 'the older control slot is valid');
my $garbage = join('', map { chr(int(rand(256))) } 1 .. 512);
scribble($control, $new * 4096, $garbage);
$node->start;
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k ^@ 'second-'"),
	'50', 'with the newest control slot garbled, rows committed before the crash are found');
agrees('newest control slot garbled');
@slots = control_slots();
my $now = $slots[newest_slot(@slots)];
cmp_ok($now->{seq}, '>', $older->{seq}, 'recovery wrote a newer control slot');
cmp_ok($now->{min_redo}, '>=', $older->{min_redo},
	'the bound on files to refuse does not move back');
cmp_ok($now->{min_redo}, '<=', $pg_redo,
	'the bound on files to refuse stays at or before the redo pointer of PostgreSQL\'s last checkpoint, which stamped the file');

# One meta page garbled.  After a clean stop the newest checkpoint is in
# one slot: garbling the other changes nothing; garbling the newest leaves
# an older checkpoint that the WAL artrie replays may no longer cover,
# which must be
# an error with a hint, not silently older data.
$node->stop;
my @files = artrie_files($node);
is(scalar(@files), 1, 'one artrie file');
my $file = "artrie/$files[0]";
my $path = $node->data_dir . "/$file";
open(my $fh, '<:raw', $path) or die "$path: $!";
my @ckpt;
for my $slot (0, 1)
{
	seek($fh, $slot * 8192 + 24, 0);
	read($fh, my $b, 8);
	my ($lo, $hi) = unpack('V V', $b);
	$ckpt[$slot] = $lo + $hi * 2**32;
}
close $fh;
my $newest = $ckpt[0] > $ckpt[1] ? 0 : 1;
open($fh, '<:raw', $path) or die "$path: $!";
seek($fh, (1 - $newest) * 8192, 0);
read($fh, my $older_slot, 8192);
close $fh;
scribble($path, (1 - $newest) * 8192 + 100, 'garbage' x 20);
$node->start;
agrees('older meta slot garbled');
$node->stop;
scribble($path, (1 - $newest) * 8192, $older_slot);
scribble($path, $newest * 8192 + 100, 'garbage' x 20);
$node->start;
my ($ret, $out, $err) = $node->psql('postgres',
	"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k >= ''");
if ($ret == 0)
{
	is($out, $node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k IS NOT NULL'),
		'with the newest meta garbled, the older checkpoint and the WAL still give every row');
}
else
{
	like($err, qr/index "t_k" is corrupted: file "\Q$file\E" has a damaged meta page.*\n.*\n.*HINT:  REINDEX/s,
		'with the newest meta garbled, the error names the index and the file and hints at REINDEX');
}
$node->safe_psql('postgres', 'REINDEX INDEX t_k');
agrees('after REINDEX');

$node->stop;
done_testing();
