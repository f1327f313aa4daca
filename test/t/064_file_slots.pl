# artrie.max_files bounds the files open at once, not the files opened
# since the server started: with 16 slots, 40 indexes are read, written,
# read again from four sessions at once, and replayed after a crash (redo
# opens every changed file), always answering like a sequential scan;
# planning and artrie_indexes, which need each file only for a moment,
# see all forty in one statement.  A
# file's slot is held by every transaction that used it: when running
# transactions hold every slot, opening one more file is an ERROR with a
# hint (a query is planned without that index, with a WARNING), and works
# again once they end.  A backend that read all forty files itself keeps
# no more descriptors than max_files_per_process.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $nidx = 40;
my $node = artrie_node('slots', 'io_uring', 'artrie.max_files = 16',
	'artrie.checkpoint_timeout = 3600', 'max_wal_size = 1GB',
	'checkpoint_timeout = 1h', 'autovacuum = off', 'max_files_per_process = 64');

$node->safe_psql('postgres', join('', map { qq{
	CREATE TABLE s$_ (id int, k text COLLATE "C");
	INSERT INTO s$_ SELECT g, 's$_/' || g FROM generate_series(1, 300) g;
	CREATE INDEX s${_}_k ON s$_ USING artrie (k);
} } 1 .. $nidx));

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

# One line per index: its count of keys under a prefix through the index,
# and through a sequential scan.
sub answers
{
	my ($mode) = @_;
	my $set = $mode eq 'index' ? $force : 'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
	return $node->safe_psql('postgres', $set . join('', map {
		"SELECT 's$_', count(*), min(k), max(k) FROM s$_ WHERE k ^@ 's$_/1';\n"
	} 1 .. $nidx));
}

sub files_open
{
	return $node->safe_psql('postgres', 'SELECT files FROM artrie_pool_stats()');
}

like($node->safe_psql('postgres', "$force EXPLAIN SELECT count(*) FROM s7 WHERE k ^@ 's7/1'"),
	qr/Index Only Scan using s7_k/, 'the queries use the artrie index');
is(answers('index'), answers('seq'), "$nidx indexes answer like a sequential scan through 16 slots");
cmp_ok(files_open(), '<=', 16, 'no more files are open than artrie.max_files');

# Planning and artrie_indexes open each file only for a moment: in one
# statement they see all forty.
my $union = join(' UNION ALL ', map { "SELECT k FROM s$_ WHERE k ^@ 's$_/1'" } 1 .. $nidx);
my ($r, $plan, $perr) = $node->psql('postgres', "$force EXPLAIN (COSTS OFF) $union");
is(scalar(() = $plan =~ /Index Only Scan using s\d+_k/g), $nidx,
	'one statement is planned with all forty indexes');
is($perr, '', 'and without a warning');
is($node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE problem IS NULL AND entries = 300), count(*)
	FROM artrie_indexes}), "$nidx|$nidx", 'artrie_indexes reads all forty in one statement');

# Writes: every file gets changes, which its slot must checkpoint before
# the slot is closed.
$node->safe_psql('postgres', join('', map {
	"INSERT INTO s$_ SELECT g, 's$_/' || g FROM generate_series(301, 400) g;\n"
	  . "DELETE FROM s$_ WHERE id % 7 = 0;\n"
} 1 .. $nidx));
is(answers('index'), answers('seq'), 'after changes to every index, they all still answer right');

# Four sessions at once, each writing to and reading from every index.
my ($clean, $errs) = sessions_run($node, map {
	my $c = $_;
	join('', map {
		my $i = ($_ * 7 + $c * 11) % $nidx + 1;
		"INSERT INTO s$i VALUES ($c * 100000 + $_, 's$i/c$c/$_');\n"
		  . "$force SELECT count(*) FROM s$i WHERE k ^@ 's$i/c';\n"
	} 1 .. 200)
} 1 .. 4);
ok($clean, 'four sessions wrote to and read from all indexes without an error')
  or diag($errs);
is(answers('index'), answers('seq'), 'after the concurrent sessions, every index answers right');
my ($ret, $out, $err) = $node->psql('postgres',
	join('', map { "SELECT artrie_verify('s${_}_k', true);\n" } 1 .. $nidx));
is($err, '', 'artrie_verify finds every index sound');

# Sixteen running transactions' slots: one more file cannot be opened.
my $in = '';
my ($hout, $herr) = ('', '');
my $holder = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-h', $node->host, '-p', $node->port,
	  '-d', 'postgres' ],
	'<', \$in, '>', \$hout, '2>', \$herr);
$in .= "$force BEGIN;\n" . join('', map {
	"SELECT count(*) FROM s$_ WHERE k = 's$_/5';\n" } 1 .. 16) . "SELECT 'holding';\n";
$holder->pump until $hout =~ /holding/ || $herr ne '';
is($herr, '', 'one transaction holds sixteen files');
($ret, $out, $err) = $node->psql('postgres',
	"$force SELECT count(*) FROM s30 WHERE k = 's30/5'");
is($out, '1', 'a query meanwhile is planned without the seventeenth file and answers right');
like($err, qr/WARNING:  too many artrie files are open/, 'the planner says why it leaves the index out');
($ret, $out, $err) = $node->psql('postgres', "INSERT INTO s30 VALUES (0, 's30/0')");
isnt($ret, 0, 'an insert that must maintain the seventeenth file fails meanwhile');
like($err, qr/ERROR:  too many artrie files are open/, 'the error says why');
like($err, qr/HINT:  Raise artrie.max_files/, 'the error hints at artrie.max_files');
$in .= "COMMIT;\nSELECT 'done';\n";
$holder->pump until $hout =~ /done/ || $herr ne '';
$holder->finish;
is($node->safe_psql('postgres', "$force SELECT count(*) FROM s30 WHERE k = 's30/5'"),
	'1', 'once the transaction ended, the file opens');

# A crash with changes to every index since their last checkpoint: redo
# opens all forty files through sixteen slots.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', join('', map {
	"INSERT INTO s$_ SELECT g, 's$_/' || g FROM generate_series(1001, 1100) g;\n"
	  . "DELETE FROM s$_ WHERE id % 11 = 0;\n"
} 1 .. $nidx));
my $want = answers('seq');
crash_node($node);
start_ok($node, 'after a crash with changes to all forty files')
  or BAIL_OUT('the server did not come back after the crash');
is(answers('index'), $want, 'after a crash, redo through 16 slots left every index right');
is($node->safe_psql('postgres', "SELECT artrie_stats('s1_k')->'wal'->>'replay_failures'"),
	'0', 'no record failed to replay');
is(join(',', grep { /damaged/ } artrie_files($node)), '', 'no file is marked damaged');
cmp_ok(files_open(), '<=', 16, 'still no more files open than artrie.max_files');

# After a restart the pool is empty, so the session reads every page it
# needs itself (io_uring with artrie.backend_reads, or mmap), each file
# through a descriptor of its own; those count against
# max_files_per_process like PostgreSQL's.
for my $backend ('io_uring', 'mmap')
{
	$node->append_conf('postgresql.conf', "artrie.io_backend = $backend");
	$node->restart;
	my @fds = split /\n/, $node->safe_psql('postgres', $force . join('', map {
		"SELECT count(*) FROM s$_ WHERE k ^@ 's$_/1';\n"
	} 1 .. $nidx) . "SELECT count(*) FROM pg_ls_dir('/proc/self/fd');");
	is(scalar(@fds), $nidx + 1, "$backend: one session read from all forty indexes");
	cmp_ok($fds[-1], '<=', 64, "$backend: it holds no more descriptors than max_files_per_process");
}

$node->stop;
done_testing();
