# Checkpoints and what they promise: artrie_checkpoint() needs superuser or
# pg_checkpoint and returns when the index is durable; the io worker
# checkpoints at shutdown and on artrie.checkpoint_timeout; a page that
# fails its checks (CRC32C, page number, file identity) or a file without a
# valid meta page is an ERROR that names the index and asks for REINDEX,
# never a crash.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;
use PagerTest;

# The index's artrie file: the one of the highest generation (REINDEX
# makes another).
sub index_file
{
	my ($node) = @_;
	my $dir = $node->data_dir . '/artrie';
	my @files = sort { ($b =~ /\.(\d+)$/)[0] <=> ($a =~ /\.(\d+)$/)[0] }
	  glob("$dir/*/*.*");
	die "no artrie file" unless @files;
	return $files[0];
}

for my $backend ('io_uring', 'mmap')
{
	my $node = pager_node("ckpt_$backend", "artrie.io_backend = '$backend'",
		'artrie.buffer_pool_size = 4MB');
	load_words($node, 20000);

	# Privileges.
	$node->safe_psql('postgres', 'CREATE ROLE plain LOGIN');
	my ($ret, $out, $err) = $node->psql('postgres',
		'SELECT artrie_checkpoint()', extra_params => [ '-U', 'plain' ]);
	like($err, qr/permission denied to run artrie_checkpoint/,
		"$backend: a plain role may not checkpoint");
	$node->safe_psql('postgres', 'GRANT pg_checkpoint TO plain');
	($ret, $out, $err) = $node->psql('postgres',
		'SELECT artrie_checkpoint()', extra_params => [ '-U', 'plain' ]);
	is($ret, 0, "$backend: a member of pg_checkpoint may");

	# artrie_checkpoint() is durable: a crash right after loses nothing.
	change_words($node, 5000);
	my $expected = seq_answers($node);
	my $before = pool_stats($node)->{checkpoints};
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	cmp_ok(pool_stats($node)->{checkpoints}, '>', $before,
		"$backend: artrie_checkpoint() made a checkpoint");
	$node->stop('immediate');
	$node->start;
	is(index_answers($node), $expected,
		"$backend: after artrie_checkpoint() and a crash the index is whole");

	# The io worker's checkpoint at shutdown.
	$node->safe_psql('postgres',
		q{INSERT INTO w SELECT 'shutdown' || i FROM generate_series(1, 2000) i});
	$expected = seq_answers($node);
	$node->stop('fast');
	$node->start;
	is(index_answers($node), $expected,
		"$backend: changes made before a clean shutdown are there after it");

	# The timed checkpoint.
	$node->append_conf('postgresql.conf', 'artrie.checkpoint_timeout = 1');
	$node->reload;
	# Counted before the insert: the checkpoint of its pages may come
	# before the insert's statement returns.
	$before = pool_stats($node)->{checkpoints};
	$node->safe_psql('postgres',
		q{INSERT INTO w SELECT 'timed' || i FROM generate_series(1, 2000) i});
	$expected = seq_answers($node);
	my $waited = 0;
	my $bound = 10 * $PostgreSQL::Test::Utils::timeout_default;
	while (pool_stats($node)->{checkpoints} <= $before && $waited++ < $bound)
	{
		select(undef, undef, undef, 0.1);
	}
	cmp_ok($waited, '<', $bound, "$backend: the io worker checkpointed on its timeout");
	$node->stop('immediate');
	$node->start;
	is(index_answers($node), $expected,
		"$backend: after the timed checkpoint and a crash the index is whole");

	# Damaged data pages.
	$node->stop;
	cmp_ok(damage_pages(index_file($node), 1), '>', 0, 'damaged the data pages');
	$node->start;
	($ret, $out, $err) = $node->psql('postgres',
		q{SET enable_seqscan = off; SELECT count(*) FROM w WHERE t > 'a'});
	isnt($ret, 0, "$backend: reading a damaged page fails");
	like($err, qr/index "wi" is corrupted: page \d+ of file "artrie\/\d+\/\d+\.\d+"/,
		"$backend: the error names the index, the page and the file");
	like($err, qr/checksum mismatch/, "$backend: and says what is wrong");
	like($err, qr/HINT:  REINDEX the index/, "$backend: and asks for REINDEX");
	is($node->safe_psql('postgres', 'SELECT 1'), '1',
		"$backend: the server is still up");
	$node->safe_psql('postgres', 'REINDEX INDEX wi');
	is(index_answers($node), seq_answers($node),
		"$backend: after REINDEX the index is right again");

	# A file cut short: an error that names the index, the page and the
	# file, before any read past its end; nothing hangs.
	$node->stop;
	truncate(index_file($node), 4 * 8192) or die "truncate: $!";
	$node->start;
	($ret, $out, $err) = $node->psql('postgres',
		q{SET enable_seqscan = off; SELECT count(*) FROM w WHERE t > 'a'});
	like($err, qr/index "wi" is corrupted: page \d+ of file "artrie\/\d+\/\d+\.\d+"/,
		"$backend: a truncated file is an error naming the index, the page and the file");
	like($err, qr/DETAIL:  .*physical page \d+ lies past the end of the file, which is 32768 bytes long/,
		"$backend: and says the file is too short");
	like($err, qr/HINT:  REINDEX the index/, "$backend: and asks for REINDEX");
	is($node->safe_psql('postgres', 'SELECT 1'), '1',
		"$backend: the server is still up");
	$node->safe_psql('postgres', 'REINDEX INDEX wi');

	# No valid meta page.
	$node->stop;
	is(damage_pages(index_file($node), 3), 2, 'damaged both meta pages');
	$node->start;
	($ret, $out, $err) = $node->psql('postgres',
		q{SET enable_seqscan = off; SELECT count(*) FROM w WHERE t > 'a'});
	like($err, qr/index "wi" is corrupted: file "artrie\/\d+\/\d+\.\d+" has no valid meta page/,
		"$backend: a file without a valid meta page is an error");
	like($err, qr/HINT:  REINDEX the index/, "$backend: with the REINDEX hint");
	$node->safe_psql('postgres', 'REINDEX INDEX wi');
	$node->stop;
}

done_testing();
