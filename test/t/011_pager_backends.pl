# Both I/O backends give the same answers on the same workload, the file
# format is the same (switching backends across restarts keeps the index
# readable and writable), and each backend does its I/O where it should:
# under mmap the backend maps the file itself; under io_uring it does not:
# with artrie.backend_reads it reads the pages it misses itself and the io
# worker reads none of them, without it the io worker reads them and holds
# the file open O_DIRECT.  Exact lookups read only the pages they miss,
# streaming scans the pages around them too.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PagerTest;

my %answers;
my %nodes;
for my $backend ('io_uring', 'mmap')
{
	my $node = pager_node("backend_$backend", "artrie.io_backend = '$backend'",
		'artrie.buffer_pool_size = 2MB');
	load_words($node, 30000);
	change_words($node, 10000);
	is($node->safe_psql('postgres', 'SHOW artrie.io_backend'), $backend,
		"SHOW artrie.io_backend says $backend");
	$answers{$backend} = index_answers($node);
	is($answers{$backend}, seq_answers($node),
		"$backend: index answers equal a sequential scan's");
	$nodes{$backend} = $node;
}
is($answers{mmap}, $answers{io_uring},
	'io_uring and mmap give the same answers');

# Where the pages come from, seen from the processes.
my $maps = q{SELECT count(*) FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\n') l
			 WHERE l LIKE '%/artrie/%'};
my $probe = q{SET enable_seqscan = off; SELECT count(*) FROM w WHERE t > 'b';};
my $ring = $nodes{io_uring};
$ring->restart;
$ring->safe_psql('postgres', 'SELECT artrie_checkpoint()');
my $before = io_stats($ring);
my ($cnt, $mapped) = split /\n/, $ring->safe_psql('postgres', "$probe $maps");
is($mapped, '0', 'io_uring: the backend has no mapping of an artrie file');
cmp_ok(io_stats($ring)->{backend}{reads} - $before->{backend}{reads}, '>', 0,
	'io_uring: the backend read the pages it missed itself');
is(io_stats($ring)->{'io worker'}{reads} - $before->{'io worker'}{reads}, 0,
	'io_uring: the io worker read none of them');
$ring->restart;
($cnt, $mapped) = split /\n/, $ring->safe_psql('postgres',
	"SET artrie.backend_reads = off; $probe $maps");
is($mapped, '0', 'io_uring, artrie.backend_reads off: no mapping either');
my $wpid = worker_pid($ring);
like($wpid, qr/^\d+$/, 'the io worker is a child of the postmaster');
my $direct = 0;
opendir(my $dh, "/proc/$wpid/fd") or die "opendir: $!";
for my $fd (readdir $dh)
{
	next unless $fd =~ /^\d+$/;
	my $target = readlink("/proc/$wpid/fd/$fd") // '';
	next unless $target =~ m{/artrie/\d+/\d+\.\d+$};
	open(my $fh, '<', "/proc/$wpid/fdinfo/$fd") or next;
	while (<$fh>)
	{
		$direct++ if /^flags:\s+(\d+)/ && (oct($1) & 040000);
	}
}
closedir $dh;
cmp_ok($direct, '>', 0, 'io_uring: the worker holds the index file open O_DIRECT');

my $mm = $nodes{mmap};
$mm->restart;
# Wait for artrie's recovery at start (after a clean stop the io worker
# replays the WAL its files need, which reads) without bringing the
# index's pages into the pool.
$mm->safe_psql('postgres', 'SELECT artrie_checkpoint()');
my $worker_reads = io_stats($mm)->{'io worker'}{reads};
($cnt, $mapped) = split /\n/, $mm->safe_psql('postgres', "$probe $maps");
cmp_ok($mapped, '>', 0, 'mmap: the backend maps the index file itself');
is(io_stats($mm)->{'io worker'}{reads} - $worker_reads, 0,
	'mmap: the io worker read nothing for it');

# Random probes read only the pages they miss, a streaming scan reads
# around them too: after the index file is dropped from the kernel's cache
# (its pages in the pool read first, so that the file is open), exact
# lookups leave no more of the file in that cache than the pages the
# backends read, and a scan of a few thousand entries leaves more (the
# windows read around its misses, or under mmap the kernel's read-around).
# fincore counts the file's pages in the kernel's cache; the backend's
# major page faults (/proc/self/stat, field 12) count its waits for the
# disk under mmap.
my $majflt = q{SELECT (string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' '))[10]};
for my $backend ('io_uring', 'mmap')
{
	my $node = $nodes{$backend};
	my ($file) = grep { m{/artrie/\d+/\d+\.\d+$} } glob($node->data_dir . '/artrie/*/*');
	my $cached = sub {
		my $out = `fincore --bytes --noheadings --output RES '$file'`;
		chomp $out;
		return $out / 1024;
	};
	# Drop the file from the kernel's cache; pages still being read (the
	# window read around the file's first pages as it was opened) stay
	# until their read ends: drop again until two looks 0.1 s apart agree.
	my $evict = sub {
		my $prev = -1;
		for (1 .. 50)
		{
			system('sync', $file) == 0 or die "sync $file";
			system('dd', "if=$file", 'iflag=nocache', 'count=0', 'status=none') == 0
			  or die "dd $file";
			my $now = $cached->();
			last if $now == $prev;
			$prev = $now;
			usleep(100_000);
		}
	};
	$node->safe_psql('postgres', 'ALTER TABLE w SET (autovacuum_enabled = off)');
	$node->restart;
	$node->safe_psql('postgres',
		"SET enable_seqscan = off; SELECT count(*) FROM w WHERE t = md5('1')");
	$evict->();
	my $reads = io_stats($node)->{backend}{reads};
	my $kb = $cached->();
	my @out = split /\n/, $node->safe_psql('postgres',
		"$majflt; SET enable_seqscan = off; "
		  . join(' ', map { "SELECT count(*) FROM w WHERE t = md5('$_');" }
			  map { 1000 * $_ + 7 } 1 .. 20)
		  . " $majflt");
	my $waits = $out[-1] - $out[0];
	$reads = io_stats($node)->{backend}{reads} - $reads;
	$kb = $cached->() - $kb;
	cmp_ok($reads, '>', 0, "$backend: the exact lookups read pages");
	cmp_ok($kb, '<=', 8 * $reads,
		"$backend: exact lookups bring only the pages they read into the kernel's cache ($kb kB, $reads pages)");
	# Under mmap a fault on a page the kernel's cache lacks is a major
	# fault and, the mapping advised for random reads, reads only its own
	# 4 kB: the copy of each 8 kB page must not fault twice on the disk.
	cmp_ok($waits, '<', $reads,
		"$backend: the exact lookups' copies waited for the disk fewer times than they read pages ($waits major faults, $reads pages)")
	  if $backend eq 'mmap';

	# The kernel reads the windows asked for in the background, and may
	# skip one when it cannot get memory at once: poll for their pages,
	# and start over from an empty pool and a dropped file up to 3 times.
	my $around = 0;
	for my $try (1 .. 3)
	{
		$node->restart;
		$node->safe_psql('postgres',
			"SET enable_seqscan = off; SELECT count(*) FROM w WHERE t = md5('1')");
		$evict->();
		$reads = io_stats($node)->{backend}{reads};
		$kb = $cached->();
		$node->safe_psql('postgres', "SET enable_seqscan = off;
			SELECT count(*) FROM (SELECT t FROM w WHERE t > 'c' ORDER BY t LIMIT 3000) s");
		$reads = io_stats($node)->{backend}{reads} - $reads;
		my $before = $kb;
		for (1 .. 50)
		{
			$kb = $cached->() - $before;
			last if $kb > 8 * $reads;
			usleep(100_000);
		}
		$around = $kb > 8 * $reads;
		last if $around;
		note("$backend: try $try, a streaming scan left $kb kB cached for $reads pages read");
	}
	ok($around,
		"$backend: a streaming scan reads around the pages it misses ($kb kB, $reads pages)");
}

# Switch backends across restarts, changing the index under each.
my $node = $nodes{io_uring};
my $expected = seq_answers($node);
for my $backend ('mmap', 'io_uring', 'mmap')
{
	set_backend($node, $backend);
	is($node->safe_psql('postgres', 'SHOW artrie.io_backend'), $backend,
		"switched to $backend");
	is(index_answers($node), $expected,
		"after switching to $backend the index gives the same answers");
	$node->safe_psql('postgres', qq{
		INSERT INTO w SELECT md5(i::text) || '$backend' FROM generate_series(1, 3000) i;
		DELETE FROM w WHERE t LIKE 'c%';
	});
	$expected = seq_answers($node);
	is(index_answers($node), $expected, "changes under $backend are right");
}

$_->stop for values %nodes;
done_testing();
