# A split of an index page that inserts between their two passes go
# through waits for those inserts alone, and keeps other inserts from
# passing the page meanwhile; writers elsewhere in the index do not hold
# it back.  An insert's second pass adds its entry to the counts of the
# nodes on the pages its first pass went through, which must not split in
# between; such a split used to wait for every insert of the index
# between its passes.
#
# Long keys make a chain of pages below the root page: inserts A and D
# pause between their passes (artrie.test_insert_pause), A through the
# chain of keys "x/q...", D through that of keys "y/r...".  B then inserts
# keys that branch off A's chain in its first page, which must split while
# A passes it: B waits.  E, next to A's key, would pass that page too, and
# must wait instead of passing it.  Once A goes on, B's split runs, and B
# and E commit while D is still paused.  Afterwards, and again after a
# crash, the index is sound, its prefix counts equal the rows and it
# answers like the table.  No checkpoint runs meanwhile: one would wait for
# the paused inserts, and new writers for it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('split_passers', 'io_uring', 'autovacuum = off',
	"artrie.buffer_pool_size = '64MB'", 'checkpoint_timeout = 1h',
	'max_wal_size = 4GB', 'artrie.checkpoint_timeout = 1h');
$node->safe_psql('postgres', q{
	CREATE TABLE t (id serial, k text COLLATE "C");
	CREATE INDEX t_k ON t USING artrie (k);
	INSERT INTO t (k) SELECT s || '/' || md5(g::text) FROM generate_series(1, 2000) g,
		(VALUES ('x'), ('y')) v(s);
	INSERT INTO t (k) VALUES ('x/' || repeat('q', 30000) || '/base'),
		('y/' || repeat('r', 30000) || '/base');
});
my $pause_re = qr/artrie insert into file "[^"]+" pauses between its passes/;

# Start an insert of $key (SQL) in a background session that pauses
# between its passes while the file artrie_insert_pause_$name exists.
sub paused_insert
{
	my ($name, $key, $label) = @_;
	return bg_paused($node, "artrie_insert_pause_$name",
		"SET artrie.test_insert_pause = '$name'; INSERT INTO t (k) VALUES ($key)",
		$pause_re, $label);
}

# The wait event of the backend with pid $pid, as type/event.
sub wait_of
{
	my ($pid) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(wait_event_type, '') || '/' || coalesce(wait_event, '') "
		  . "FROM pg_stat_activity WHERE pid = $pid");
}

# Start $sql in a new background session; the session and its backend's pid.
sub started
{
	my ($sql) = @_;
	my $s = bg_session($node);
	bg_run($s, "SELECT 'pid=' || pg_backend_pid();\n", qr/pid=\d+/);
	my ($pid) = $s->{out} =~ /pid=(\d+)/;
	$s->{out} = '';
	bg_start($s, $sql);
	return ($s, $pid);
}

# Wait until the backend $pid waits on an event of type Extension.
sub waits_in_extension
{
	my ($pid) = @_;
	for (1 .. 600)
	{
		return 1 if wait_of($pid) =~ m{^Extension/};
		usleep(100_000);
	}
	return 0;
}

my $sa = paused_insert('a', q{'x/' || repeat('q', 30000) || '/a'},
	'A pauses between its passes');
my $sd = paused_insert('d', q{'y/' || repeat('r', 30000) || '/d'},
	'D pauses between its passes');

my ($sb, $bpid) = started(q{INSERT INTO t (k) SELECT 'x/' || repeat('q', 3000) || 'b/' || g
	FROM generate_series(1, 2000) g});
ok(waits_in_extension($bpid),
	'B waits for the insert passing the page it splits (' . wait_of($bpid) . ')');
ok(bg_still_running($sb, 1), 'B is still waiting while A is paused');

my ($se, $epid) = started(q{INSERT INTO t (k) VALUES ('x/' || repeat('q', 30000) || '/e')});
ok(waits_in_extension($epid),
	'E waits rather than pass the page B splits (' . wait_of($epid) . ')');
ok(bg_still_running($se, 1), 'E is still waiting while A is paused');

unlink($node->data_dir . '/artrie_insert_pause_a');
ok(bg_wait_ended($sa), 'A ends once it goes on');
ok(bg_wait_ended($sb), 'B splits the page and ends while D is still paused');
ok(bg_wait_ended($se), 'E passes the split page and ends while D is still paused');
ok(bg_still_running($sd, 1), 'D was still paused meanwhile');
is($sa->{err} . $sb->{err} . $se->{err}, '', 'A, B and E report no error');

unlink($node->data_dir . '/artrie_insert_pause_d');
ok(bg_wait_ended($sd), 'D ends once it goes on');
is($sd->{err}, '', 'D reports no error');
bg_end($_) for ($sa, $sb, $sd, $se);

is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE k LIKE 'x/qqq%'"),
	2003, 'every row of the chain is in the table');
for my $phase ('after the writers', 'after a crash')
{
	if ($phase eq 'after a crash')
	{
		crash_node($node);
		$node->start;
	}
	verify_ok($node, 't_k', $phase);
	prefix_counts_ok($node, 't_k', 't',
		[ '', 'x', 'x/', 'x/qqq', 'x/' . ('q' x 3000) . 'b/1', 'x/' . ('q' x 3000),
		  'y/', 'y/rrr', 'y/0', 'x/a' ],
		$phase);
	ordered_scan_ok($node, 't', $phase);
	is($node->safe_psql('postgres', q{SELECT artrie_stats('t_k')->>'distinct_keys'}),
		$node->safe_psql('postgres', 'SELECT count(DISTINCT k) FROM t'),
		"$phase: the distinct keys kept equal the table's");
}
$node->stop;
done_testing();
