# Torn and damaged writes: a journal whose last record is cut in half, a
# journal with garbage after its last record, and an index file with one
# meta page garbled.  Recovery stops at the first bad record and never
# applies garbage; the index then answers as a sequential scan does; a meta
# page that cannot be trusted is an error naming the file, never wrong
# answers.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('torn', 'io_uring', 'max_prepared_transactions = 5');
my $seg = $node->data_dir . '/artrie/journal/0000000000000000';

# The records recovery would read: from the control file's start position
# (its newest slot: crc, magic, seq, redo position, epoch), each record's
# header holding its length (bytes 4-7), its own position (8-15) and its
# epoch (16-19).  Returns [position, length] pairs.
sub journal_records
{
	my $ctl = $node->data_dir . '/artrie/journal/control';
	open(my $ch, '<:raw', $ctl) or die "$ctl: $!";
	my ($seq, $redo, $epoch) = (-1, 0, 0);
	for my $slot (0, 1)
	{
		seek($ch, $slot * 8192, 0);
		read($ch, my $b, 28);
		my ($crc, $magic, $sl, $sh, $rl, $rh, $ep) = unpack('V7', $b);
		next unless $magic == 0x4A524E4C && $sl + $sh * 2**32 > $seq;
		($seq, $redo, $epoch) = ($sl + $sh * 2**32, $rl + $rh * 2**32, $ep);
	}
	close $ch;
	open(my $fh, '<:raw', $seg) or die "$seg: $!";
	my @recs;
	my $pos = $redo;
	while (1)
	{
		seek($fh, $pos, 0);
		last if read($fh, my $hdr, 20) != 20;
		my ($crc, $len, $lo, $hi, $ep) = unpack('V5', $hdr);
		last if $len == 0 || $lo + $hi * 2**32 != $pos || $ep != $epoch;
		push @recs, [ $pos, $len ];
		$pos += $len;
	}
	close $fh;
	return @recs;
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

# A prepared transaction's record is flushed and is the journal's last;
# cut it in half, then roll the transaction back: nothing committed is
# lost and the half record is never applied.
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO t VALUES (-1, 'torn-' || repeat('x', 3000));
	PREPARE TRANSACTION 'torn';
});
crash_node($node);
my @recs = journal_records();
cmp_ok(scalar(@recs), '>=', 2, 'the journal holds committed rows and the prepared one');
my ($last, $len) = @{ $recs[-1] };
scribble($seg, $last + int($len / 2), "\0" x ($len - int($len / 2)));
$node->start;
is($node->safe_psql('postgres', "SELECT artrie_prefix_count('t_k', 'torn-')"), '0',
	'recovery stopped before the torn record: its entry is not in the index');
$node->safe_psql('postgres', "ROLLBACK PREPARED 'torn'");
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k ^@ 'committed-'"),
	'200', 'every committed row is found through the index');
agrees('torn last record');

# Garbage after the last record: recovery stops there, and the journal
# goes on in a new epoch past it; a second crash loses nothing either.
$node->safe_psql('postgres', "INSERT INTO t VALUES ($_, 'second-$_')") for 1 .. 50;
crash_node($node);
@recs = journal_records();
($last, $len) = @{ $recs[-1] };
my $garbage = join('', map { chr(int(rand(256))) } 1 .. 6000);
scribble($seg, $last + $len, $garbage);
$node->start;
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k ^@ 'second-'"),
	'50', 'rows committed before the garbage are found');
$node->safe_psql('postgres', "INSERT INTO t VALUES ($_, 'third-$_')") for 1 .. 50;
crash_node($node);
$node->start;
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k ^@ 'third-'"),
	'50', 'rows committed after the garbage are found after another crash');
agrees('garbage after the last record');

# One meta page garbled.  After a clean stop the newest checkpoint is in
# one slot: garbling the other changes nothing; garbling the newest leaves
# an older checkpoint that the journal may no longer cover, which must be
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
		'with the newest meta garbled, the older checkpoint and the journal still give every row');
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
