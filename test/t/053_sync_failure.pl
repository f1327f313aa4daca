# A failed sync of an artrie data file during a checkpoint (issue 13, item
# 1) must PANIC, as PostgreSQL does for its own files: the checkpoint has
# already taken the dirty pages' flags, and the kernel may have dropped the
# pages, so carrying on would let a later sync publish pages that were
# never written.  artrie.debug_fault = 'sync' makes every sync the session
# asks for fail with EIO, after the writes.  On both I/O backends: the
# checkpoint PANICs naming the data file, the server restarts, and after a
# restart every committed row (the journaled ones too) is found through the
# index and artrie_verify passes.  Only a superuser may set the fault.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
  . 'SET enable_bitmapscan = off;';
my $probe = "SELECT count(*), sum(hashtext(t)) FROM w WHERE t > ''";

for my $backend (backends())
{
	my $node = artrie_node("syncfail_$backend", $backend);
	$node->safe_psql('postgres', q{
		CREATE TABLE w (t text COLLATE "C");
		INSERT INTO w SELECT md5(i::text) FROM generate_series(1, 20000) i;
		CREATE INDEX wi ON w USING artrie (t);
		SELECT artrie_checkpoint();
		INSERT INTO w SELECT 'late-' || i FROM generate_series(1, 3000) i;
		CREATE ROLE plain LOGIN;
	});
	my $file = $node->safe_psql('postgres', "SELECT artrie_stats('wi')->>'file'");
	my $want = $node->safe_psql('postgres', "$seq $probe");
	is($want, $node->safe_psql('postgres', "$idx $probe"),
		"$backend: the index has every row before the fault");

	my ($ret, $out, $err) = $node->psql('postgres',
		"SET artrie.debug_fault = 'sync'", extra_params => [ '-U', 'plain' ]);
	like($err, qr/permission denied to set parameter "artrie.debug_fault"/,
		"$backend: only a superuser may inject a fault");

	my $logpos = -s $node->logfile;
	($ret, $out, $err) = $node->psql('postgres',
		"SET artrie.debug_fault = 'sync'; SELECT artrie_checkpoint()");
	isnt($ret, 0, "$backend: the checkpoint whose sync fails does not return");
	# The test clusters run with restart_after_crash = off: the postmaster
	# exits once every process is gone.
	my $pm = $node->{_pid};
	for (1 .. 600)
	{
		last unless kill 0, $pm;
		select(undef, undef, undef, 0.05);
	}
	ok(!kill(0, $pm), "$backend: the postmaster went down");
	$node->{_pid} = undef;
	my $log = slurp_file($node->logfile, $logpos);
	like($log, qr/PANIC:  could not fsync file "\Q$file\E": Input\/output error/,
		"$backend: the failed sync of the data file is a PANIC naming the file");
	unlike($log, qr/ERROR:  could not (fsync|sync) file/,
		"$backend: not an ERROR the server would carry on after");
	like($log, qr/terminated by signal 6/,
		"$backend: the backend that failed the sync aborted the cluster");

	$node->start;
	like($node->safe_psql('postgres', "$idx EXPLAIN (COSTS OFF) $probe"),
		qr/Index Only Scan using wi/, "$backend: the probe goes through the index");
	is($node->safe_psql('postgres', "$idx $probe"), $want,
		"$backend: after the restart every committed row is found through the index");
	is($node->psql('postgres', "SELECT artrie_verify('wi', true)"), 0,
		"$backend: artrie_verify passes");
	is($node->safe_psql('postgres', "$idx SELECT count(*) FROM w WHERE t ^@ 'late-'"),
		'3000', "$backend: the rows the failed checkpoint covered are there");
	$node->stop;
}

done_testing();
