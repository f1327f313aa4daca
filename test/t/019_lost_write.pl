# Lost writes (issue 13, item 7).  Checkpoints reuse the physical pages
# the checkpoint before last used, so a logical page often goes back to a
# physical page that holds an older copy of itself, with a valid checksum,
# page number and file identity.  If the device acknowledged the new write
# and lost it, only the write stamp (sealed in the page, recorded in the
# page map) tells the old copy from the new one.  The test keeps a copy of
# the file after a checkpoint that wrote every page (CREATE INDEX writes
# its pages in the order the load lets them go, not as a checkpoint
# places them, so the copy is taken after a round of changes), changes
# every page twice more with a checkpoint each time, then puts back the
# old image of every physical page that now holds a newer copy of the
# same logical page, as a lost write would leave it.  On both I/O backends, and under io_uring for a backend's
# own reads and the io worker's, a query through the index must then be
# an ERROR naming the index, the file and the page, with the REINDEX hint,
# not an answer from the stale pages.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $probe = "SELECT count(*), sum(hashtext(t)) FROM w WHERE t > ''";

# The 8 KiB pages of a file.
sub pages_of
{
	my ($path) = @_;
	my $bytes = slurp_file($path);
	return map { substr($bytes, $_ * 8192, 8192) } 0 .. length($bytes) / 8192 - 1;
}

# A data page's logical page number, or undef for any other page.
sub data_pageno
{
	my ($page) = @_;
	return undef unless unpack('v', substr($page, 20, 2)) == 1;
	return unpack('V', substr($page, 4, 4));
}

for my $rp (read_paths())
{
	my ($backend, $io, @conf) = @$rp;
	my $node = artrie_node("lostwrite_$backend", $io, @conf);
	$node->safe_psql('postgres', q{
		CREATE TABLE w (t text COLLATE "C");
		INSERT INTO w SELECT md5(i::text) FROM generate_series(1, 20000) i;
		CREATE INDEX wi ON w USING artrie (t);
		INSERT INTO w SELECT md5(i::text) || '-0' FROM generate_series(1, 20000, 7) i;
		SELECT artrie_checkpoint();
	});
	my $file = $node->safe_psql('postgres', "SELECT artrie_stats('wi')->>'file'");
	my $path = $node->data_dir . "/$file";
	my @old = pages_of($path);

	# Two more rounds that change every leaf, each made durable.
	for my $round (1 .. 2)
	{
		$node->safe_psql('postgres', qq{
			INSERT INTO w SELECT md5(i::text) || '-$round' FROM generate_series(1, 20000, 7) i;
			SELECT artrie_checkpoint();
		});
	}
	my $want = $node->safe_psql('postgres', "$idx $probe");
	$node->stop;

	# Put back the old image wherever the same logical page now has a newer
	# copy: what the file would hold had those writes been lost.
	my @new = pages_of($path);
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	my $stale = 0;
	for my $phys (0 .. $#old)
	{
		my $was = data_pageno($old[$phys]);
		next unless defined $new[$phys];
		my $is = data_pageno($new[$phys]);
		next unless defined $was && defined $is && $was == $is;
		next if $old[$phys] eq $new[$phys];
		sysseek($fh, $phys * 8192, 0);
		syswrite($fh, $old[$phys]) == 8192 or die "write: $!";
		$stale++;
	}
	close $fh;
	cmp_ok($stale, '>', 0, "$backend: physical pages hold a newer copy of the same page ($stale)");

	$node->start;
	my ($ret, $out, $err) = $node->psql('postgres', "$idx $probe");
	isnt($out, $want, "$backend: the stale pages give no answer");
	like($err,
		qr/ERROR:  index "wi" is corrupted: page \d+ of file "\Q$file\E"\nDETAIL:  stale copy of the page at physical page \d+: it carries write stamp \d+, the page map expects \d+ \(a lost write\)/,
		"$backend: the stale copy is an ERROR naming the index, the page and the file");
	like($err, qr/\nHINT:  REINDEX the index\./, "$backend: with the REINDEX hint");

	$node->safe_psql('postgres', 'REINDEX INDEX wi');
	is($node->safe_psql('postgres', "$idx $probe"), $want, "$backend: REINDEX repairs it");
	$node->stop;
}

done_testing();
