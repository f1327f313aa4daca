# Writers with a full disk and a buffer pool small enough to evict all
# the time (issue 22, item 5): an insert's second pass (the counts above
# the changed page) cannot be undone, so it runs in a critical section;
# before the fix it could need a free frame there, and so an eviction
# write (ENOSPC) or a page read, and a failure became a PANIC.  Now the
# first pass keeps every page of the path pinned and no page of it splits
# until the second pass is over, so every failure comes in the first
# pass: the inserts end in a clean ERROR, the server stays up, and once
# space is back the index is sound and answers like a sequential scan.
#
# Several writers insert long keys (a trie several pages deep) while a
# reader scans, all of them missing the pool, with artrie's directory on
# a small filesystem that a filler file leaves almost no room on (see
# 090_full_disk.pl; test/run-all.sh mounts it when it runs as root).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Path qw(rmtree);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

plan skip_all =>
  'needs ARTRIE_FULLDISK_DIR: a small filesystem (the test driver mounts one when run as root)'
  unless small_fs();

my $node = artrie_node('full_disk_writers', 'io_uring',
	'artrie.checkpoint_timeout = 1h', 'artrie.buffer_pool_size = 256kB');
my $adir = artrie_dir_on_small_fs($node);
my $filler;

# Leave the filesystem empty whatever happens.
END
{
	unlink($filler) if defined $filler;
	rmtree($adir) if defined $adir;
}

my $pm_start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

# A key of row g: 32 two-byte prefixes, then 96 bytes, so that the path
# of an entry crosses several pages.
my $key = q{'k/' || substr(md5(g::text), 1, 2) || '/' || repeat(md5((g * 7)::text), 3)};
$node->safe_psql('postgres', qq{
	CREATE TABLE t (id int, k text COLLATE "C");
	INSERT INTO t SELECT g, $key FROM generate_series(1, 30000) g;
	CREATE INDEX t_k ON t USING artrie (k);
	SELECT artrie_checkpoint();
});
my $pages = $node->safe_psql('postgres',
	q{SELECT (artrie_stats('t_k')->>'pages')::int});
cmp_ok($pages, '>', 100, "the index has $pages pages, many more than the pool's 32 frames");

# Room for a few hundred evictions first: the pool thrashes while the
# disk fills up, then every write fails.
$filler = fill_small_fs(3 * 1024 * 1024);
my $logstart = -s $node->logfile;

# Three writers and two readers, each in its own session, errors
# ignored, one statement per transaction.
my $dir = PostgreSQL::Test::Utils::tempdir();
my @h;
for my $c (1 .. 5)
{
	my $script = "$dir/s$c.sql";
	open(my $fh, '>', $script) or die "$script: $!";
	for my $i (1 .. 300)
	{
		if ($c >= 4)
		{
			my $p = sprintf('%02x', ($i * 37 + $c) % 256);
			print $fh "SET enable_seqscan = off; SET enable_bitmapscan = off;\n"
			  if $i == 1;
			print $fh "SELECT count(*) FROM t WHERE k ^@ 'k/$p';\n";
			next;
		}
		my $from = 1000000 * $c + 20 * $i;
		my $to = $from + 19;
		print $fh "INSERT INTO t SELECT g, $key FROM generate_series($from, $to) g;\n";
	}
	close $fh;
	push @h, IPC::Run::start(
		[ 'psql', '-X', '-q', '-h', $node->host, '-p', $node->port,
		  '-d', 'postgres', '-f', $script ],
		'>', "$dir/out$c", '2>', "$dir/err$c");
}
my $deadline = time() + 120;
while (time() < $deadline && grep { $_->pumpable } @h)
{
	select(undef, undef, undef, 0.2);
}
for my $h (@h)
{
	$h->kill_kill if $h->pumpable;
	eval { $h->finish; };
}
my $errs = join('', map { -e "$dir/err$_" ? slurp_file("$dir/err$_") : '' } 1 .. 5);
my $log = slurp_file($node->logfile, $logstart);

like($errs, qr/ERROR:.*No space left on device/,
	'the writers met the full disk: their inserts failed with an ERROR that says why');
unlike($log, qr/PANIC/, 'no PANIC in the server log');
unlike($errs, qr/server closed the connection|terminating connection/,
	'no session was thrown out');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'),
	$pm_start, 'the postmaster did not restart');
note join("\n", (split /\n/, $errs)[0 .. 9]);

# Space comes back: a checkpoint succeeds, the index is sound and agrees
# with the table, without a restart.
unlink($filler) or die "unlink: $!";
undef $filler;
is($node->psql('postgres', 'SELECT artrie_checkpoint()'), 0,
	'once space is back, a checkpoint succeeds');
my $q = q{SELECT count(*), md5(string_agg(id::text || k, ',' ORDER BY id)) FROM t WHERE k ^@ 'k/'};
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q"),
	$node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q"),
	'the index answers like a sequential scan');
is($node->psql('postgres', "SELECT artrie_verify('t_k', true)"), 0,
	'artrie_verify: the index is sound, every row in it');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'),
	$pm_start, 'the postmaster never restarted');

$node->stop;
done_testing();
