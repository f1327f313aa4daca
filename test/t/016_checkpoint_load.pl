# Checkpoints under a steady write load: 8 clients insert into one artrie
# index without a pause, so that some of them are always inside the
# file's write gate.  The io worker's checkpoints (every second here) must
# keep completing, and artrie_checkpoint() must return while the writers
# still run, instead of waiting behind the endless stream of writers.
# Afterwards the index is sound and answers like the table.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Temp qw(tempfile);
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $seconds = 40;
my $node = artrie_node('ckpt_load', 'io_uring', 'artrie.checkpoint_timeout = 1',
	'artrie.buffer_pool_size = 1MB');
$node->safe_psql('postgres', q{
	CREATE TABLE t (k text COLLATE "C");
	CREATE INDEX t_k ON t USING artrie (k);
});

# File checkpoints made durable since the start (t_k is the only file).
sub ckpt_no
{
	return $node->safe_psql('postgres', 'SELECT checkpoints FROM artrie_pool_stats()');
}

my ($fh, $script) = tempfile(UNLINK => 1);
print $fh "INSERT INTO t SELECT repeat(md5(random()::text), 20) || g FROM generate_series(1, 100) g;\n";
close $fh;
my ($out, $err) = ('', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', $seconds, '-f', $script,
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);

# Let the writers get going, then ask for a checkpoint from a backend.
my $start = time;
sleep 3;
my %ck = (in => "SELECT artrie_checkpoint(); SELECT 'checkpointed';\n", out => '', err => '');
my $ckpt = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-h', $node->host, '-p', $node->port, '-d', 'postgres' ],
	'<', \$ck{in}, '>', \$ck{out}, '2>', \$ck{err});

# Watch the worker's checkpoints and the backend's while the writers run.
my $first = ckpt_no();
my ($last, $advances, $rows_at_return) = ($first, 0, undef);
while ($writers->pumpable && time - $start < $seconds + 60)
{
	$writers->pump_nb;
	$ckpt->pump_nb;
	$rows_at_return = $node->safe_psql('postgres', 'SELECT count(*) FROM t')
	  if !defined $rows_at_return && $ck{out} =~ /checkpointed/;
	my $now = ckpt_no();
	$advances++ if $now > $last;
	$last = $now;
	sleep 1;
}
$writers->finish;
is($err, '', 'the writers ran without an error');
my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($tx // 0, '>', 100, 'the writers did work (' . ($tx // 0) . ' transactions)');

# The writers were still running when artrie_checkpoint() returned if
# they committed rows after that.
my $rows_final = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
ok(defined $rows_at_return && $rows_at_return < $rows_final,
	'artrie_checkpoint() returned while the writers ran ('
	  . ($rows_at_return // 'never') . " rows then, $rows_final at the end)");
cmp_ok($advances, '>=', 5,
	"checkpoints kept completing under the writers ($first to $last in $advances steps)");

$ck{in} .= "\\q\n";
$ckpt->finish;
is($ck{err}, '', 'artrie_checkpoint() without error');
$node->safe_psql('postgres', "SELECT artrie_verify('t_k', true)");
pass('artrie_verify finds the index sound, heap included');
is($node->safe_psql('postgres',
		'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k >= \'\''),
	$node->safe_psql('postgres', 'SELECT count(*) FROM t'),
	'the index holds every row');
done_testing();
