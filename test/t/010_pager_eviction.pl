# A buffer pool far smaller than the index (1 MB against about 6): every
# query must give the same answers through the index as without it, on
# both I/O backends, before and after a restart, while pages are evicted
# (dirty ones written back copy-on-write) all the time.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagerTest;

for my $backend ('io_uring', 'mmap')
{
	my $node = pager_node("evict_$backend",
		'artrie.buffer_pool_size = 1MB',
		"artrie.io_backend = '$backend'");
	load_words($node, 120000);

	my $bytes = $node->safe_psql('postgres',
		q{SELECT sum(s.size) FROM pg_ls_dir('artrie', true, false) d,
			LATERAL pg_ls_dir('artrie/' || d) f,
			LATERAL pg_stat_file('artrie/' || d || '/' || f) s
		  WHERE (pg_stat_file('artrie/' || d)).isdir});
	cmp_ok($bytes, '>', 4 * 1024 * 1024,
		"$backend: the index file is much larger than the pool");

	my $expected = seq_answers($node);
	is(index_answers($node), $expected,
		"$backend: index answers equal a sequential scan's after the build");

	change_words($node, 20000);
	$expected = seq_answers($node);
	is(index_answers($node), $expected,
		"$backend: and after inserts, deletes and vacuum");

	my $pool = pool_stats($node);
	cmp_ok($pool->{evictions}, '>', 1000, "$backend: pages were evicted");
	cmp_ok($pool->{eviction_writes}, '>', 0,
		"$backend: dirty victims were written back");

	$node->restart;
	is(index_answers($node), $expected,
		"$backend: the same answers after a restart");
	cmp_ok(pool_stats($node)->{misses}, '>', 0,
		"$backend: pages were read back from the file");

	$node->stop;
}

done_testing();
