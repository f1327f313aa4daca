# pg_rewind under load.  Two nodes take turns: the standby is promoted,
# the old primary writes and checkpoints on its own timeline and is
# stopped; then, while four writers insert, delete, update and vacuum on
# the new primary and checkpoints run there all along (PostgreSQL's
# CHECKPOINT and artrie_checkpoint() in a loop, artrie.checkpoint_timeout
# = 1, a small pool), pg_rewind copies the new primary into the old one
# (--source-server: every artrie file is copied whole, fuzzily, and
# through a proxy that slows the first 10 MB of the copy to 2 MB/s, so
# that the copy of the artrie files spans several checkpoints).  The
# rewound node starts as a hot standby of the new primary and must
# answer every index query exactly like a sequential scan and like the
# new primary, through plain, index-only, ordered and bitmap scans, with
# artrie_verify() finding the index sound; an index idle on the new
# primary but changed on the old one likewise; then again after a restart,
# and, in the last round, after its promotion and writes of its own.  No
# refusal is accepted.  The nodes swap roles each round; one node runs
# io_uring, the other mmap, so each round checks the other backend.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IO::Select;
use IO::Socket::UNIX;
use IPC::Run;
use POSIX;
use Socket;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rounds = $ENV{ARTRIE_REWIND_ROUNDS} // 3;
my $dir = PostgreSQL::Test::Utils::tempdir;
my @conf = ('wal_log_hints = on', 'wal_keep_size = 512MB',
	'artrie.checkpoint_timeout = 1', "artrie.buffer_pool_size = '2MB'");

# CHECKPOINT and artrie_checkpoint() on $node every few tenths of a
# second until killed.
sub start_checkpoints
{
	my ($node) = @_;
	return start_sql_loop($node, $dir,
		"CHECKPOINT;\nSELECT pg_sleep(0.3);\nSELECT artrie_checkpoint();\n", 400);
}

# Relay the bytes of one client connection to $node's socket, the
# server's replies at $rate bytes a second for their first $slow bytes.
sub relay
{
	my ($client, $node, $rate, $slow) = @_;
	my $server = IO::Socket::UNIX->new(Type => SOCK_STREAM,
		Peer => $node->host . '/.s.PGSQL.' . $node->port) or return;
	my $sel = IO::Select->new($client, $server);
	my $sent = 0;
	while (1)
	{
		for my $from ($sel->can_read)
		{
			my $to = $from == $client ? $server : $client;
			my $n = sysread($from, my $buf, 65536);
			return unless $n;
			for (my $off = 0; $off < $n;)
			{
				my $w = syswrite($to, $buf, $n - $off, $off) or return;
				$off += $w;
			}
			next if $from == $client || $sent >= $slow;
			$sent += $n;
			select(undef, undef, undef, $n / $rate);
		}
	}
}

# A proxy in front of $node's socket that slows the server's replies
# (see relay), so that pg_rewind's copy of the artrie files, which it
# fetches first, spans several checkpoints.  Returns its process id and
# a connection string.
sub start_slow_proxy
{
	my ($node, $rate, $slow) = @_;
	my $pdir = PostgreSQL::Test::Utils::tempdir_short;
	my $listen = IO::Socket::UNIX->new(Type => SOCK_STREAM,
		Local => "$pdir/.s.PGSQL." . $node->port, Listen => 8)
	  or die "proxy socket: $!";
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		while (my $c = $listen->accept)
		{
			my $kid = fork();
			if (defined $kid && $kid == 0)
			{
				relay($c, $node, $rate, $slow);
				POSIX::_exit(0);
			}
			close $c;
		}
		POSIX::_exit(0);
	}
	close $listen;
	return ($pid, 'host=' . $pdir . ' port=' . $node->port . ' dbname=postgres');
}

my $a = artrie_primary('rwb_a', 'io_uring', conf => \@conf);
make_wtable($a, 'w', 'w_k', 1, 80000);
# An index that only the diverging old primaries write: idle on the
# new primary, changed on the rewound node before pg_rewind.
make_wtable($a, 'i', 'i_k', 1, 20000);
my $b = artrie_standby($a, 'rwb_b', start => 0);
$b->append_conf('postgresql.conf', "artrie.io_backend = 'mmap'");
$b->start;
wait_replayed($a, $b);

my ($old, $new) = ($a, $b);
for my $round (1 .. $rounds)
{
	my $backend = $old == $a ? 'io_uring' : 'mmap';
	my $label = "round $round (" . $old->name . ", $backend, rewound)";

	# Promotion; the old primary diverges on its own timeline.
	$new->promote;
	wait_promoted($new, "$label: the standby promoted");
	# pg_rewind reads the source's timeline from its pg_control, which
	# the checkpoint after the promotion writes.
	$new->safe_psql('postgres', 'CHECKPOINT');
	$old->safe_psql('postgres', qq{
		INSERT INTO w SELECT g, wkey(g) FROM generate_series(${round}900001, ${round}903000) g;
		DELETE FROM w WHERE id % 9 = $round AND id < 60000;
		UPDATE w SET k = k || '-d' WHERE id % 17 = $round AND id < 60000;
		INSERT INTO i SELECT g, wkey(g) FROM generate_series(${round}900001, ${round}902000) g;
		DELETE FROM i WHERE id % 5 = $round;
		CHECKPOINT;
		SELECT artrie_checkpoint();
	});
	$old->stop;

	# Writers and checkpoints on the new primary while pg_rewind copies it.
	my $w = start_writers($new, 'w', $dir, $round, clients => 4, rows => 200000);
	writers_wait($w, 400);
	my $ckpts = start_checkpoints($new);
	my $conf = slurp_file($old->data_dir . '/postgresql.conf');
	my $ckpt_sql = 'SELECT checkpoints_req FROM pg_stat_bgwriter';
	my $ckpts_before = $new->safe_psql('postgres', $ckpt_sql);
	my ($proxy, $connstr) = start_slow_proxy($new, 2 * 1024 * 1024, 10 * 1024 * 1024);
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'pg_rewind', '--target-pgdata=' . $old->data_dir,
			"--source-server=$connstr" ],
		'>', \$out, '2>', \$err);
	kill 'KILL', $proxy;
	waitpid($proxy, 0);
	ok($ok, "$label: pg_rewind from the busy new primary") or diag($err);
	note("$label: CHECKPOINTs completed on the source during pg_rewind: "
		  . ($new->safe_psql('postgres', $ckpt_sql) - $ckpts_before));
	like($err, qr/servers diverged at WAL location.*\n.*rewinding from last common checkpoint/,
		"$label: pg_rewind rewound the old primary");
	writers_wait($w, scalar(acked_ids($w)) + 300);
	stop_writers($new, $w, $label);
	$ckpts->kill_kill;
	$ckpts->finish;

	# pg_rewind copied the new primary's configuration: put the old one's
	# back, and stream from the new primary.
	open(my $cf, '>', $old->data_dir . '/postgresql.conf') or die $!;
	print $cf $conf;
	close $cf;
	$old->enable_streaming($new);
	$old->append_conf('postgresql.conf', 'hot_standby = on');
	start_ok($old, "$label: as a standby of the new primary")
	  or last;
	wait_replayed($new, $old);
	my $want = index_answers($new, 'w', 'seq');
	check_index($new, 'w', 'w_k', "$label: the new primary");
	check_index($old, 'w', 'w_k', "$label: as a standby", want => $want);
	verify_ok($old, 'w_k', "$label: as a standby");
	check_index($old, 'i', 'i_k', "$label: as a standby, the idle index",
		want => index_answers($new, 'i', 'seq'));
	verify_ok($old, 'i_k', "$label: as a standby");
	is($old->safe_psql('postgres', qq{
			SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT count(*) FROM w WHERE id BETWEEN ${round}900001 AND ${round}903000 AND k >= ''}),
		'0', "$label: none of its own diverged rows are found");

	# More writes reach it; then a restart.
	$new->safe_psql('postgres', qq{
		INSERT INTO w SELECT g, wkey(g) FROM generate_series(${round}800001, ${round}801000) g;
		DELETE FROM w WHERE id % 23 = $round AND id < 60000;
	});
	$old->restart;
	wait_replayed($new, $old);
	$want = index_answers($new, 'w', 'seq');
	check_index($old, 'w', 'w_k', "$label: after more writes and a restart", want => $want);

	if ($round == $rounds)
	{
		# Promoted, it takes writes and answers after a crash.
		$new->stop;
		$old->promote;
		wait_promoted($old, "$label: promoted");
		$old->safe_psql('postgres', q{
			INSERT INTO w SELECT g, wkey(g) FROM generate_series(700001, 702000) g;
			DELETE FROM w WHERE id % 29 = 0 AND id < 60000;
		});
		check_index($old, 'w', 'w_k', "$label: promoted, after writes");
		verify_ok($old, 'w_k', "$label: promoted");
		crash_node($old);
		start_ok($old, "$label: promoted, after a crash");
		check_index($old, 'w', 'w_k', "$label: promoted, after a crash");
		check_index($old, 'i', 'i_k', "$label: promoted, after a crash, the idle index");
		$old->stop;
		last;
	}
	($old, $new) = ($new, $old);
}

$a->stop('immediate') if $a->{_pid};
$b->stop('immediate') if $b->{_pid};
done_testing();
