# Registered buffers.  With the default RLIMIT_MEMLOCK (8 MiB) a 128 MB
# pool cannot be registered: the io worker says why, once, and falls back
# to a registered staging area.  A pool that fits the limit is registered
# whole; so is a large one when the limit can be raised (root with
# CAP_SYS_RESOURCE: prlimit on this process, which the postmaster
# inherits).  Seen from outside: the worker's ring holds registered
# buffers, and a checkpoint after a large build sends many SQEs (and many
# more pages) per io_uring_enter.
#
# The kernel counts registered memory against RLIMIT_MEMLOCK per user, so
# other clusters of the same OS user may use up the limit: then the worker
# falls back further (to plain reads and writes), and says so; the checks
# accept that, but not silence.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagerTest;

# The ring's registered buffers, from /proc/<worker>/fdinfo.
sub ring_user_bufs
{
	my ($node) = @_;
	my $pid = worker_pid($node);
	opendir(my $dh, "/proc/$pid/fd") or return -1;
	for my $fd (readdir $dh)
	{
		next unless $fd =~ /^\d+$/;
		next unless (readlink("/proc/$pid/fd/$fd") // '') =~ /io_uring/;
		open(my $fh, '<', "/proc/$pid/fdinfo/$fd") or next;
		while (<$fh>)
		{
			return $1 if /^UserBufs:\s+(\d+)/;
		}
	}
	return -1;
}

my $limit_kb = `sh -c 'ulimit -l'`;
chomp $limit_kb;

SKIP:
{
	skip "RLIMIT_MEMLOCK is $limit_kb, large enough for the pool", 5
	  if $limit_kb eq 'unlimited' || $limit_kb >= 128 * 1024;

	my $node = pager_node('reg_staging', "artrie.io_backend = 'io_uring'",
		'artrie.buffer_pool_size = 128MB');
	my $s = io_stats($node);
	my $mode = $s->{'io worker'}{buffer_mode};
	my $others = $s->{'io worker'}{fallback} =~ /staging area: Cannot allocate memory/;
	ok($mode eq 'staging' || ($mode eq 'plain' && $others),
		"128 MB pool, default memlock limit: a registered staging area ($mode)");
	like($s->{'io worker'}{fallback}, qr/exceeds RLIMIT_MEMLOCK/,
		'the statistics say why');
	my $log = slurp_file($node->logfile);
	my @said = ($log =~ /artrie io worker: the buffer pool .* exceeds RLIMIT_MEMLOCK/g);
	is(scalar(@said), 1, 'the fallback is logged once, with its reason');
	is(ring_user_bufs($node), $mode eq 'staging' ? 1 : 0,
		'the ring holds one registered buffer (the staging area), or none after the further fallback');

	load_words($node, 200000);
	$s = io_stats($node);
	my $w = $s->{'io worker'};
	cmp_ok($w->{writes} / $w->{submissions}, '>', 64,
		"a checkpoint after a large build writes many pages per submission ($w->{writes} pages in $w->{submissions})");
	cmp_ok($w->{avg_batch}, '>', 8,
		"in many SQEs per submission ($w->{sqes} SQEs; consecutive pages are merged into writes of up to 64 kB)");
	$node->stop;
}

my $small = pager_node('reg_pool', "artrie.io_backend = 'io_uring'",
	'artrie.buffer_pool_size = 1MB');
SKIP:
{
	my $s = io_stats($small)->{'io worker'};
	skip "other processes of this user hold the memlock limit: $s->{fallback}", 2
	  if $s->{fallback} =~ /Cannot allocate memory/;
	is($s->{buffer_mode}, 'pool',
		'a pool within the memlock limit is registered whole');
	cmp_ok(ring_user_bufs($small), '>=', 1,
		'the ring holds the pool as registered buffers');
}
load_words($small, 20000);
is(index_answers($small), seq_answers($small), 'and the index works on it');
$small->stop;

SKIP:
{
	skip 'cannot raise RLIMIT_MEMLOCK (needs root with CAP_SYS_RESOURCE)', 3
	  unless system("prlimit --pid $$ --memlock=unlimited:unlimited 2>/dev/null") == 0;

	my $node = pager_node('reg_full', "artrie.io_backend = 'io_uring'",
		'artrie.buffer_pool_size = 128MB');
	my $s = io_stats($node);
	is($s->{'io worker'}{buffer_mode}, 'pool',
		'with the limit raised, the whole 128 MB pool is registered');
	is($s->{'io worker'}{fallback}, '', 'and nothing fell back');
	load_words($node, 20000);
	is(index_answers($node), seq_answers($node), 'the index works on it');
	$node->stop;
}

done_testing();
