# A wait for the io worker that the waiter's LWLocks keep from being
# cancelled stays bounded, blocks no cancel elsewhere, and the cancel it
# holds off is served, not lost.  With the io worker stopped (SIGSTOP)
# and a pool too small for the index, an INSERT must write a dirty page
# back to make room: it waits for the worker while it holds the file's
# write gate and the page's lock.  artrie_checkpoint() in another session
# waits for that gate: pg_cancel_backend ends it ("canceling statement due
# to user request"; the checkpoint gives the gate up and serves the
# cancel).  A cancel of the INSERT is served once it releases its locks:
# after SIGCONT the INSERT ends with the same error, its rows are gone,
# the index answers like the table and is sound, and artrie_checkpoint()
# and inserts work again (no lock left behind).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;
use PagerTest qw(worker_pid);

my $node = artrie_node('io_wait_locks', 'io_uring', 'artrie.buffer_pool_size = 1MB',
	'checkpoint_timeout = 1h');
make_wtable($node, 't', 't_k', 1, 20000);
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');

# Send a statement to a background session, then "ended".
sub start_sql
{
	my ($s, $sql) = @_;
	$s->{in} .= "$sql;\n\\echo ended\n";
	$s->{h}->pump_nb;
	return;
}

# The pid of background session $s once its query, which starts with
# $text, waits in artrie (wait event type Extension) and stays waiting
# while the pool serves no page for a second, or '' after the timeout.
# A backend's own read of a page waits as Extension too, for a moment:
# a session seen in one such read is not stuck, and a checkpoint started
# then may pass the write gate before the INSERT holds it.
sub stuck_pid
{
	my ($s, $text) = @_;
	my $start = time;
	my ($seen, $since) = ('', 0);
	while (time - $start < $PostgreSQL::Test::Utils::timeout_default)
	{
		$s->{h}->pump_nb;
		my $now = $node->safe_psql('postgres', qq{
			SELECT coalesce((SELECT string_agg(pid::text, ',') FROM pg_stat_activity
				WHERE query LIKE '$text%' AND wait_event_type = 'Extension'
					AND pid <> pg_backend_pid()), '')
				|| '|' || (SELECT hits + misses FROM artrie_pool_stats())});
		my ($pid) = split /\|/, $now;
		if ($pid eq '' || $now ne $seen)
		{
			($seen, $since) = ($now, time);
		}
		elsif (time - $since >= 1)
		{
			return $pid;
		}
		select(undef, undef, undef, 0.1);
	}
	return '';
}

my $worker = worker_pid($node);
ok($worker, 'the io worker runs');
kill 'STOP', $worker;

my $ins = bg_session($node);
start_sql($ins, 'INSERT INTO t SELECT g, wkey(g) FROM generate_series(1000001, 1200000) g');
my $ins_pid = stuck_pid($ins, 'INSERT INTO t');
ok($ins_pid, 'an INSERT waits for the stopped io worker');

my $ckpt = bg_session($node);
start_sql($ckpt, 'SELECT artrie_checkpoint()');
my $ckpt_pid = stuck_pid($ckpt, 'SELECT artrie_checkpoint');
ok($ckpt_pid, 'artrie_checkpoint() waits for the file the INSERT is in');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($ckpt_pid)");
bg_run($ckpt, '', qr/ended/);
like($ckpt->{err}, qr/canceling statement due to user request/,
	'pg_cancel_backend ends artrie_checkpoint() waiting for the file');
bg_end($ckpt);

$node->safe_psql('postgres', "SELECT pg_cancel_backend($ins_pid)");
kill 'CONT', $worker;
bg_run($ins, '', qr/ended/);
like($ins->{err}, qr/canceling statement due to user request/,
	'the INSERT cancelled while it waited ends with the cancel once the worker runs');
bg_end($ins);

is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), $rows,
	'the cancelled rows are gone');
check_index($node, 't', 't_k', 'after the cancels');
$node->safe_psql('postgres', "SELECT artrie_verify('t_k', true)");
pass('artrie_verify finds the index sound');
is($node->safe_psql('postgres', "SET statement_timeout = '60s'; SELECT artrie_checkpoint()"),
	'', 'artrie_checkpoint() runs again');
$node->safe_psql('postgres', "SET statement_timeout = '60s';
	INSERT INTO t SELECT g, wkey(g) FROM generate_series(2000001, 2001000) g");
check_index($node, 't', 't_k', 'after more inserts');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity
	WHERE wait_event_type = 'Extension' AND backend_type = 'client backend'"),
	'0', 'no session is left waiting in artrie');
done_testing();
