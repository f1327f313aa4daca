# A full disk (issue 9, item 4): $PGDATA/artrie lives on a small
# filesystem that a filler file leaves almost no room on.  A CREATE INDEX
# on a big table and artrie_checkpoint() each fail with an ERROR (no
# PANIC, the postmaster and other sessions stay up), their transaction
# aborts, and every committed row is still found through the index.
# Inserts, big and small, still commit: their changes stay in the buffer
# pool and their records go to PostgreSQL's WAL, which is not on the full
# filesystem.  Once the filler is gone everything works again without a
# restart, and a crash afterwards recovers every committed row.  A crash
# while the disk is full loses no committed row either: redo applies the
# records in the buffer pool, and the io worker's checkpoints, which fail
# until space is back, then succeed without a restart.
#
# The filesystem comes from outside: test/run-all.sh mounts a small ext4
# image when it runs as root and names it in ARTRIE_FULLDISK_DIR (a TAP
# test runs as the postgres OS user and cannot mount one).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Path qw(rmtree);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $small = $ENV{ARTRIE_FULLDISK_DIR};
plan skip_all =>
  'needs ARTRIE_FULLDISK_DIR: a small filesystem (the test driver mounts one when run as root)'
  unless defined $small && -d $small && -w $small;

# Put the node's artrie directory on the small filesystem.
my $node = artrie_node('full_disk', 'io_uring', 'artrie.checkpoint_timeout = 1h');
$node->stop;
my $pgdata = $node->data_dir;
my $adir = "$small/artrie-$$";
rmtree($adir);
mkdir($adir) or die "mkdir $adir: $!";
# The io worker may not have made the directory yet.
if (-d "$pgdata/artrie")
{
	system('cp', '-a', "$pgdata/artrie/.", $adir) == 0 or die "cp: $?";
	rmtree("$pgdata/artrie");
}
symlink($adir, "$pgdata/artrie") or die "symlink: $!";
$node->start;
my $pm_start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

sub avail_bytes
{
	my $out = `df -B1 --output=avail $small`;
	my ($n) = $out =~ /(\d+)\s*$/;
	return $n;
}

my $filler = "$small/filler-$$";

# Leave the filesystem empty whatever happens.
END
{
	unlink($filler) if defined $filler;
	rmtree($adir) if defined $adir;
}

# Fill the filesystem but for $leave bytes.
sub fill
{
	my ($leave) = @_;
	my $size = avail_bytes() - $leave;
	system('fallocate', '-l', $size, $filler) == 0 or die "fallocate: $?";
	return;
}

# The server is still up: the same postmaster, and a new session answers.
sub server_up
{
	my ($label) = @_;
	is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'),
		$pm_start, "$label: the postmaster did not restart");
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$label: a new session works");
	return;
}

# A statement that must fail with an ERROR naming the full disk, leave
# the server up and abort its transaction, losing no committed row.
sub fails_cleanly
{
	my ($sql, $label) = @_;
	my ($rc, $out, $err) = $node->psql('postgres', $sql);
	isnt($rc, 0, "$label fails");
	like($err, qr/ERROR:.*No space left on device/, "$label: an ERROR that says why");
	unlike($err, qr/PANIC|server closed the connection/, "$label: no crash");
	note $err;
	server_up("after $label");
	check_committed("after $label");
	return;
}

# The committed rows, and the index agreeing with a sequential scan.
my $committed = 0;
sub check_committed
{
	my ($label) = @_;
	my $q = q{SELECT count(*), coalesce(sum(id), 0),
		md5(string_agg(md5(k), ',' ORDER BY id)) FROM t WHERE k ^@ 'k'};
	my $idx = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
	is($idx, $seq, "$label: the index answers like a sequential scan");
	like($idx, qr/^$committed\|/, "$label: every committed row is there, no other");
	return;
}

$node->safe_psql('postgres', q{
	CREATE TABLE t (id int, k text);
	CREATE INDEX t_k ON t USING artrie (k);
	INSERT INTO t SELECT i, 'k' || md5(i::text) FROM generate_series(1, 20000) i;
	SELECT artrie_checkpoint();
	CREATE TABLE big (id int, k text);
	INSERT INTO big SELECT i, md5(i::text) || md5((-i)::text) FROM generate_series(1, 100000) i;
});
$committed = 20000;
check_committed('before the disk fills');

fill(256 * 1024);

# A checkpoint of pages the data file has no room for: 8 MB of keys, more
# than the data file has allocated.  The rows commit: their pages stay
# dirty in the pool, their WAL records go to pg_wal.
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT i, 'k' || repeat(md5(i::text), 31)
	FROM generate_series(20001, 28000) i});
$committed += 8000;
fails_cleanly('SELECT artrie_checkpoint()', 'artrie_checkpoint()');

# CREATE INDEX on a table whose index does not fit.
fails_cleanly('CREATE INDEX big_k ON big USING artrie (k)', 'CREATE INDEX');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'big_k'"),
	'0', 'the failed CREATE INDEX left no index behind');

# Inserts of 10 MB of keys and of one small row commit with the disk
# full, and the checkpoint still fails.
$node->safe_psql('postgres', q{INSERT INTO t SELECT i, 'k' || repeat(md5(i::text), 1000)
	FROM generate_series(100001, 100300) i});
$node->safe_psql('postgres', q{INSERT INTO t VALUES (-1, 'k-small')});
$committed += 301;
server_up('after inserts with the disk full');
check_committed('after inserts with the disk full');
fails_cleanly('SELECT artrie_checkpoint()', 'artrie_checkpoint() after the inserts');

# Space comes back: the same operations work, without a restart.
unlink($filler) or die "unlink: $!";
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
$node->safe_psql('postgres', 'CREATE INDEX big_k ON big USING artrie (k)');
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
server_up('once space is freed');
check_committed('once space is freed');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM big WHERE k ^@ 'a'}),
	$node->safe_psql('postgres', q{
	SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM big WHERE k ^@ 'a'}),
	'the index built once space is freed answers like a sequential scan');
is($node->psql('postgres', "SELECT artrie_verify('t_k', true), artrie_verify('big_k', true)"),
	0, 'artrie_verify: both indexes are sound, every row in them');

# The WAL written while the disk was full recovers: crash and restart.
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT i, 'k' || md5(i::text) FROM generate_series(200001, 201000) i});
$committed += 1000;
crash_node($node);
$node->start;
check_committed('after a crash and recovery');

# A crash while the disk is full.  Redo applies the records in the pool;
# the io worker's checkpoints of what it replayed fail for want of room:
# the index answers right all the same, the server stays up, and once
# space is back the io worker's retry succeeds: every committed row is
# there, without a restart.
$node->safe_psql('postgres', q{
	DROP INDEX big_k;
	REINDEX INDEX t_k;
	SELECT artrie_checkpoint()});
# The files of the dropped index and of t_k before its REINDEX are gone
# before the disk fills, so that their space cannot come back later.
my $filenode = $node->safe_psql('postgres', "SELECT pg_relation_filenode('t_k')");
my $others = sub {
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	return scalar grep { !m{^\d+/$filenode\.} } artrie_files($node);
};
my $waited = 0;
while ($others->() > 0 && $waited++ < $PostgreSQL::Test::Utils::timeout_default)
{
	sleep 1;
}
is($others->(), 0, 'only the live index\'s file is left before the disk fills');
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT i, 'k' || repeat(md5(i::text), 31)
	FROM generate_series(300001, 308000) i});
$committed += 8000;
fill(64 * 1024);
crash_node($node);
$node->start;
$pm_start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
check_committed('after a crash while the disk is full');
server_up('after a crash while the disk is full');
my ($rc, $out, $err) = $node->psql('postgres', 'SELECT artrie_checkpoint()');
like($err, qr/ERROR:.*No space left on device/,
	'after a crash while the disk is full: a checkpoint fails for want of room');
unlink($filler) or die "unlink: $!";
is($node->psql('postgres', 'SELECT artrie_checkpoint()'), 0,
	'once space is freed, a checkpoint succeeds without a restart');
check_committed('space freed after a crash while the disk was full');
is($node->psql('postgres', "SELECT artrie_verify('t_k', true)"),
	0, 'artrie_verify: the index is sound after that recovery');

$node->stop;
done_testing();
