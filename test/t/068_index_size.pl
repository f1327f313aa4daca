# An index's size limit and the two-level page map.  The page map has map
# pages of up to 1020 entries under directory pages of up to 1020 map
# pages, at most 2000 of those: about 15.5 TiB per index.  The test-only
# setting artrie.test_map_fanout makes the map pages and directory pages
# of new files hold fewer entries, so that a small index has the map of a
# big one (several directory pages) and the limit comes within reach
# (fanout 1: 2000 pages):
#  - on both I/O backends, an index with fanout 4 is built, checkpointed
#    (its directory has several pages), changed with a small buffer pool
#    (evictions, checkpoints of some map pages only), checkpointed again,
#    changed again and crashed (SIGKILL): after recovery it answers like a
#    sequential scan, artrie_verify finds it sound, and so after a clean
#    restart;
#  - with fanout 1, CREATE INDEX of a table too big for 2000 pages, and
#    inserts that fill an index to 2000 pages, fail with a clean ERROR
#    (program_limit_exceeded) naming the index and the limit, and the full
#    index still answers like a sequential scan and passes artrie_verify;
#  - a file whose meta pages are of format 3 (the 6-byte subtree counts
#    of the builds before the short counts) is refused, saying so, with a
#    hint to REINDEX (a WARNING where the planner leaves the index out, an
#    ERROR for an insert), and REINDEX makes the index work.
# The limit's arithmetic at full fanout is unit-tested
# (test/unit/test_pagefmt.c).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Make both meta pages of a file say format $version (in the header and
# in the meta page's body) and seal them again.
sub set_meta_format
{
	my ($path, $version) = @_;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	for my $slot (0, 1)
	{
		my $page;
		sysseek($fh, $slot * 8192, 0);
		sysread($fh, $page, 8192) == 8192 or die "read: $!";
		substr($page, 22, 2) = pack('v', $version);
		substr($page, 40, 4) = pack('V', $version);
		substr($page, 0, 4) = pack('V', crc32c(substr($page, 4)));
		sysseek($fh, $slot * 8192, 0);
		syswrite($fh, $page) == 8192 or die "write: $!";
	}
	close $fh;
	return;
}

# The index's artrie file: the one of the highest generation.
sub index_file
{
	my ($node) = @_;
	my @files = sort { ($b =~ /\.(\d+)$/)[0] <=> ($a =~ /\.(\d+)$/)[0] }
	  grep { /\.\d+$/ } artrie_files($node);
	die "no artrie file" unless @files;
	return $node->data_dir . "/artrie/$files[0]";
}

# The newest checkpoint number of the file's two meta slots (kind 3 in
# its first two pages) in $data, undef if neither reads as a meta page.
sub meta_ckpt
{
	my ($data) = @_;
	my $ckpt;
	for my $off (0, 8192)
	{
		last if $off + 8192 > length($data);
		next if unpack('v', substr($data, $off + 20, 2)) != 3;
		my ($lo, $hi) = unpack('VV', substr($data, $off + 24, 8));
		my $no = $hi * 4294967296 + $lo;
		$ckpt = $no if !defined $ckpt || $no > $ckpt;
	}
	return $ckpt;
}

# The directory pages (kind 4) that the file's newest meta page's
# checkpoint wrote: those whose header carries its checkpoint number.
# The server runs, and a checkpoint its pool asks for may commit while
# the file is read: once its meta page is written, the pages the one
# before used are free, to be reused or cut off with the file's tail.  So
# the meta slots are read again after the file, and the file read again
# if a checkpoint committed meanwhile; only whole pages are looked at.
sub directory_pages
{
	my ($path) = @_;
	for my $try (1 .. 100)
	{
		open(my $fh, '<:raw', $path) or die "open $path: $!";
		my $data = do { local $/; <$fh> };
		my $ckpt = meta_ckpt($data);
		die "no meta page in $path" unless defined $ckpt;
		my $n = 0;
		for (my $off = 2 * 8192; $off + 8192 <= length($data); $off += 8192)
		{
			next if unpack('v', substr($data, $off + 20, 2)) != 4;
			my ($lo, $hi) = unpack('VV', substr($data, $off + 24, 8));
			$n++ if $hi * 4294967296 + $lo == $ckpt;
		}
		my $again;
		sysseek($fh, 0, 0);
		sysread($fh, $again, 2 * 8192);
		close $fh;
		my $now = meta_ckpt($again);
		return $n if defined $now && $now == $ckpt;
	}
	die "$path: a checkpoint committed during each of 100 reads";
}

for my $backend (backends())
{
	my $node = artrie_node("size_$backend", $backend,
		'artrie.test_map_fanout = 4', 'artrie.buffer_pool_size = 2MB');

	make_wtable($node, 't', 'ti', 1, 30000);
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	my $dirs = directory_pages(index_file($node));
	cmp_ok($dirs, '>=', 3,
		"$backend: with fanout 4 the index's map has several directory pages");

	# Changes through a pool smaller than the index, a checkpoint, more
	# changes, and a crash before the next checkpoint.
	$node->safe_psql('postgres', q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(1000001, 1020000) g;
		DELETE FROM t WHERE id % 5 = 0;
		VACUUM t;
		SELECT artrie_checkpoint();
		UPDATE t SET k = k || '-u' WHERE id % 7 = 0;
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(2000001, 2010000) g;
	});
	cmp_ok(directory_pages(index_file($node)), '>', $dirs,
		"$backend: the directory grew with the index");
	crash_node($node);
	$node->start;
	check_index($node, 't', 'ti', "$backend: after a crash");
	verify_ok($node, 'ti', "$backend: after a crash");

	# A clean restart loads the map from the last checkpoint alone.
	$node->safe_psql('postgres', q{
		DELETE FROM t WHERE id % 3 = 0;
		VACUUM t;
	});
	$node->restart;
	check_index($node, 't', 'ti', "$backend: after a restart");
	verify_ok($node, 'ti', "$backend: after a restart");

	next if $backend ne 'io_uring';

	# The limit: fanout 1 maps 2000 pages.  CREATE INDEX of too much.
	$node->safe_psql('postgres', q{
		CREATE TABLE big (id int, k text COLLATE "C");
		INSERT INTO big SELECT g, md5(g::text) || md5(g::text || 'x')
		  FROM generate_series(1, 300000) g;
		CREATE TABLE f (id int, k text COLLATE "C");
		INSERT INTO f SELECT g, wkey(g) FROM generate_series(1, 2000) g;
	});
	my ($ret, $out, $err) = $node->psql('postgres', q{
		\set VERBOSITY verbose
		SET artrie.test_map_fanout = 1;
		CREATE INDEX bigi ON big USING artrie (k);
	});
	like($err,
		qr/ERROR:  54000: index "bigi" cannot grow past 2000 pages \(15 MB\)/,
		'CREATE INDEX past the limit: program_limit_exceeded naming the index and the limit');

	# Inserts that fill an index to the limit.
	$node->safe_psql('postgres', q{
		SET artrie.test_map_fanout = 1;
		CREATE INDEX fi ON f USING artrie (k);
	});
	($ret, $out, $err) = $node->psql('postgres', q{
		\set VERBOSITY verbose
		INSERT INTO f SELECT id + 1000000, k FROM big;
	});
	like($err,
		qr/ERROR:  54000: index "fi" cannot grow past 2000 pages \(15 MB\)/,
		'inserts past the limit: program_limit_exceeded');
	($ret, $out, $err) = $node->psql('postgres', q{
		\set VERBOSITY verbose
		INSERT INTO f SELECT id + 2000000, k || '-again' FROM big WHERE id <= 20000;
	});
	like($err, qr/ERROR:  54000: index "fi" cannot grow past 2000 pages/,
		'the full index refuses more entries the same way');
	check_index($node, 'f', 'fi', 'the full index');
	verify_ok($node, 'fi', 'the full index');
	$node->restart;
	check_index($node, 'f', 'fi', 'the full index after a restart');

	# A file of format 3.
	$node->safe_psql('postgres', q{
		CREATE TABLE o (id int, k text COLLATE "C");
		INSERT INTO o SELECT g, wkey(g) FROM generate_series(1, 3000) g;
		CREATE INDEX oi ON o USING artrie (k);
		SELECT artrie_checkpoint();
	});
	my $path = $node->data_dir . '/' .
	  $node->safe_psql('postgres', q{SELECT artrie_stats('oi')::json->>'file'});
	$node->stop;
	set_meta_format($path, 3);
	$node->start;
	($ret, $out, $err) = $node->psql('postgres', q{
		SET enable_seqscan = off;
		SELECT count(*) FROM o WHERE k = wkey(17);
	});
	like($err,
		qr/WARNING:  index "oi" cannot be used: file "[^"]*" has format version 3, this build reads version 4.*HINT:  REINDEX the index\./s,
		'a file of format 3: the planner leaves the index out, saying why, with a hint to REINDEX');
	is($out, '1', 'a file of format 3: the query answers without it');
	($ret, $out, $err) = $node->psql('postgres',
		q{INSERT INTO o VALUES (5000, wkey(5000))});
	like($err,
		qr/ERROR:  index "oi" cannot be used: file "[^"]*" has format version 3, this build reads version 4.*HINT:  REINDEX the index\./s,
		'a file of format 3: an insert gets an ERROR that says so, with a hint to REINDEX');
	$node->safe_psql('postgres', 'REINDEX INDEX oi');
	check_index($node, 'o', 'oi', 'a format 3 index after REINDEX');
}

done_testing();
