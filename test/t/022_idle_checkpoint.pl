# A PostgreSQL checkpoint with many idle artrie indexes: each idle file
# costs a WAL record (logged unchanged), not a write and a sync of its
# file.  The io worker's pass after PostgreSQL's redo pointer moves lists
# every file without changes in one vouch list ($PGDATA/artrie/vouched,
# one write and sync for them all) instead of stamping each file's meta
# page anew; the test counts artrie's page writes and syncs
# (artrie_io_stats) over one CHECKPOINT and its pass, with the files open
# and again after a restart (closed: nobody used them since), on both I/O
# backends.  Then the files stay served although recovery's start has
# moved past their last checkpoint: after more checkpoints and a crash,
# and after a clean restart, every index takes an insert and finds it
# (an index refused would fail the insert).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $n = 40;

# One CHECKPOINT, then until artrie's slot has followed its redo pointer
# (the io worker's pass is done).
sub checkpoint_pass
{
	my ($node, $label) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	ok($node->poll_query_until('postgres', q{
		SELECT restart_lsn >= (SELECT redo_lsn FROM pg_control_checkpoint())
		FROM pg_replication_slots WHERE slot_name = 'artrie'}),
		"$label: artrie's slot follows PostgreSQL's checkpoint");
	return;
}

# artrie's page writes and syncs so far, over every kind of process.
sub io_counts
{
	my ($node) = @_;
	return split /\|/, $node->safe_psql('postgres',
		'SELECT coalesce(sum(writes), 0), coalesce(sum(syncs), 0) FROM artrie_io_stats()');
}

# The writes and syncs of one CHECKPOINT and the io worker's pass after
# it, checked against the number of idle files.
sub pass_costs_ok
{
	my ($node, $label) = @_;
	my ($w0, $s0) = io_counts($node);
	checkpoint_pass($node, $label);
	my ($w1, $s1) = io_counts($node);
	note "$label: $n idle files, ", $w1 - $w0, ' page writes, ', $s1 - $s0, ' syncs';
	cmp_ok($w1 - $w0, '<', $n / 4, "$label: no page write per idle file");
	cmp_ok($s1 - $s0, '<', $n / 4, "$label: no sync per idle file");
	return;
}

# Every index takes an insert and finds it through an index scan.
sub all_served_ok
{
	my ($node, $label, $key) = @_;
	my $sql = "SET enable_seqscan = off; SET enable_bitmapscan = off;\n";
	$sql .= "INSERT INTO idle_$_ VALUES ('$key');\n" for 1 .. $n;
	$sql .= "SELECT count(*) FROM (\n"
	  . join("\n UNION ALL\n", map { "SELECT k FROM idle_$_ WHERE k = '$key'" } 1 .. $n)
	  . ') s';
	my ($rc, $out, $err) = $node->psql('postgres', $sql);
	is($rc, 0, "$label: every index takes an insert") or diag $err;
	is($out, $n, "$label: every index finds its new key");
	return;
}

for my $backend (backends())
{
	my $node = artrie_node("idle_$backend", $backend);
	$node->safe_psql('postgres', join("\n", map {
		qq{CREATE TABLE idle_$_ (k text COLLATE "C");
		INSERT INTO idle_$_ SELECT 'k' || g FROM generate_series(1, 50) g;
		CREATE INDEX idle_${_}_k ON idle_$_ USING artrie (k);}
	} 1 .. $n));

	# The files' first checkpoints after their builds, then idle.
	checkpoint_pass($node, "$backend, settle") for 1 .. 2;
	pass_costs_ok($node, "$backend, open files");

	$node->restart;
	checkpoint_pass($node, "$backend, after restart");
	pass_costs_ok($node, "$backend, closed files");

	# Recovery's start moves past their last checkpoints, then a crash.
	checkpoint_pass($node, "$backend, before crash") for 1 .. 2;
	crash_node($node);
	$node->start;
	all_served_ok($node, "$backend, after a crash", 'after-crash');

	checkpoint_pass($node, "$backend, before restart") for 1 .. 2;
	$node->restart;
	checkpoint_pass($node, "$backend, after clean restart");
	all_served_ok($node, "$backend, after a clean restart", 'after-restart');
	$node->stop;
}

done_testing();
