# Waits for the io worker can be cancelled.  With the io worker stopped
# (SIGSTOP) and a pool too small for the index, a query that must read a
# page waits for the worker: statement_timeout, pg_cancel_backend and
# pg_terminate_backend must each end it with their error instead of a
# hang.  Once the worker runs again (SIGCONT), the same query answers
# like the table and the index is sound: no request left behind blocks
# the queue and no frame stays "being read".  Those waits are the io
# worker's path: the server runs with artrie.backend_reads = off.  With it
# on, a backend reads the pages it misses itself: the same query answers
# while the worker is stopped.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;
use PagerTest;

my $node = artrie_node('io_cancel', 'io_uring', 'artrie.buffer_pool_size = 1MB',
	'artrie.backend_reads = off');
load_words($node, 30000);
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $query = "SELECT count(*), sum(hashtext(t)) FROM w WHERE t >= ''";
like($node->safe_psql('postgres', "$force EXPLAIN $query"), qr/Index (Only )?Scan using wi/,
	'the query scans the index');
my $want = $node->safe_psql('postgres', $query);

$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
my $worker = worker_pid($node);
ok($worker, 'the io worker runs');
kill 'STOP', $worker;

# Backend reads: no wait for the worker at all.
my ($ret, $out, $err) = $node->psql('postgres',
	"$force SET artrie.backend_reads = on; SET statement_timeout = '60s'; $query;
	SELECT reads > 0 FROM artrie_io_stats() WHERE process = 'backend'", timeout => 120);
is($out, "$want\nt", 'with artrie.backend_reads, the query answers while the io worker is stopped');
is($err, '', 'and without error');

# statement_timeout ends the wait.
($ret, $out, $err) = $node->psql('postgres',
	"$force SET statement_timeout = '1s'; $query", timeout => 120);
like($err, qr/canceling statement due to statement timeout/,
	'statement_timeout ends a query waiting for the stopped io worker');

# A query waiting for the worker in a session of its own; returns its
# handle, its output and once it waits, its pid.
sub waiting_query
{
	my %s = (out => '', err => '');
	$s{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-h', $node->host, '-p', $node->port,
		  '-d', 'postgres', '-c', "$force $query" ],
		'>', \$s{out}, '2>', \$s{err}, IPC::Run::timeout(120));
	my $start = time;
	while (time - $start < 60)
	{
		$s{pid} = $node->safe_psql('postgres', qq{
			SELECT pid FROM pg_stat_activity
			WHERE query LIKE '%sum(hashtext(t))%' AND wait_event_type = 'Extension'
				AND pid <> pg_backend_pid()});
		last if $s{pid};
		select(undef, undef, undef, 0.2);
	}
	return \%s;
}

my $s = waiting_query();
ok($s->{pid}, 'a query waits for the stopped io worker');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($s->{pid})");
eval { $s->{h}->finish };
like($s->{err}, qr/canceling statement due to user request/,
	'pg_cancel_backend ends a query waiting for the stopped io worker');

$s = waiting_query();
ok($s->{pid}, 'another query waits for the stopped io worker');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($s->{pid})");
eval { $s->{h}->finish };
like($s->{err}, qr/terminating connection due to administrator command/,
	'pg_terminate_backend ends a query waiting for the stopped io worker');

kill 'CONT', $worker;
($ret, $out, $err) = $node->psql('postgres', "$force SET statement_timeout = '60s'; $query",
	timeout => 120);
is($out, $want, 'once the worker runs again, the query answers like the table');
is($err, '', 'and without error');
$node->safe_psql('postgres', "SELECT artrie_verify('wi', true)");
pass('artrie_verify finds the index sound');
is($node->safe_psql('postgres', "$force $query"), $want, 'a second run answers the same');
done_testing();
