# artrie_verify() and artrie_stats() (with and without its walk) while
# other sessions insert into the same index: the walk sees one state of
# the trie, so neither reports a sound index as corrupt; afterwards the
# distinct keys the concurrent inserts kept equal a walk's.  (They used to check "every record reached"
# after letting go of the root's lock, and counted records that inserts
# had placed meanwhile as unreachable: "record not reachable".)
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('verify', 'io_uring', 'autovacuum = off');
$node->safe_psql('postgres', q{
	CREATE TABLE t (id serial, k text COLLATE "C");
	INSERT INTO t (k) SELECT md5(g::text) FROM generate_series(1, 50000) g;
	CREATE INDEX t_k ON t USING artrie (k);
});

my $script = PostgreSQL::Test::Utils::tempdir . '/ins.sql';
PostgreSQL::Test::Utils::append_to_file($script,
	"INSERT INTO t (k) VALUES (md5(random()::text));\n");
my ($wout, $werr) = ('', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '3', '-T', '12', '-f', $script,
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$wout, '2>', \$werr);

# Check and count, over and over, while the writers run.
my ($calls, @errors) = (0);
my $until = time() + 10;
while (time() < $until)
{
	for my $sql ("SELECT artrie_verify('t_k')", "SELECT artrie_stats('t_k') IS NOT NULL",
		"SELECT artrie_stats('t_k', walk => true) IS NOT NULL")
	{
		my ($ret, $out, $err) = $node->psql('postgres', $sql);
		$calls++;
		push @errors, $err if $ret != 0;
	}
}
$writers->finish;
like($wout, qr/number of transactions actually processed: [1-9]/,
	'the writers inserted meanwhile');
cmp_ok($calls, '>=', 4, "artrie_verify and artrie_stats ran $calls times");
is(scalar(@errors), 0, 'none of them reported an error')
  or diag($errors[0]);
# The distinct keys kept by the concurrent inserts equal a walk's and the
# table's.
like($node->safe_psql('postgres', q{
	SELECT concat_ws(' ', s->>'distinct_keys', w->>'distinct_keys', c)
	FROM (SELECT artrie_stats('t_k') AS s, artrie_stats('t_k', true) AS w,
		(SELECT count(DISTINCT k) FROM t) AS c) x}), qr/^(\d+) \1 \1$/,
	"the distinct keys kept by concurrent inserts equal a walk's and the table's");
my ($vret, $vout, $verr) = $node->psql('postgres', "SELECT artrie_verify('t_k', true)");
ok($vret == 0 && $verr eq '', 'the index is sound afterwards') or diag($verr);
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) = (SELECT count(*) FROM t WHERE k IS NOT NULL) FROM t WHERE k >= ''}), 't',
	'the index holds every row');

$node->stop;
done_testing();
