# Invariants 2-5 under SIGKILL of the postmaster and all its children:
# during CREATE INDEX (the index either does not exist afterwards or is
# complete), during VACUUM (deletions made durable, nothing committed
# lost), and during an artrie checkpoint (nothing committed lost, no page
# of the last durable checkpoint overwritten).  After each restart the
# index answers as a sequential scan does, and artrie_verify finds it
# sound.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Start a statement in the background; returns the harness.
sub background
{
	my ($node, $sql) = @_;
	my ($out, $err) = ('', '');
	return IPC::Run::start(
		[ 'psql', '-X', '-q', '-h', $node->host, '-p', $node->port,
		  '-d', 'postgres', '-c', $sql ],
		'>', \$out, '2>', \$err);
}

# Wait until a query returns true, at most ~10 s.
sub wait_for
{
	my ($node, $query) = @_;
	for (1 .. 200)
	{
		return 1 if $node->safe_psql('postgres', $query) eq 't';
		select(undef, undef, undef, 0.05);
	}
	return 0;
}

# The index's answers against a sequential scan's, and its own check.
sub check_index
{
	my ($node, $label, $index) = @_;
	my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	like($node->safe_psql('postgres', "$force EXPLAIN (COSTS OFF) SELECT k FROM t WHERE k ^@ 'key-1'"),
		qr/$index/, "$label: the query uses the index");
	for my $q ("SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM t WHERE k ^@ 'key-1'",
		"SELECT count(*) FROM t WHERE k >= 'key-5' AND k < 'key-6'")
	{
		is($node->safe_psql('postgres', "$force $q"),
			$node->safe_psql('postgres', "$seq $q"),
			"$label: $q");
	}
	$node->safe_psql('postgres', "SELECT artrie_verify('$index', true)");
	pass("$label: artrie_verify finds $index sound");
}

for my $backend (backends())
{
	my $node = artrie_node("ops_$backend", $backend);
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id int, k text COLLATE "C");
		INSERT INTO t SELECT g, 'key-' || g FROM generate_series(1, 300000) g;
	});

	# CREATE INDEX, killed while it runs.
	my $h = background($node, 'CREATE INDEX t_k ON t USING artrie (k)');
	ok(wait_for($node, q{SELECT count(*) > 0 FROM pg_stat_activity
		WHERE query LIKE 'CREATE INDEX%' AND state = 'active'}),
		"$backend: CREATE INDEX is running");
	select(undef, undef, undef, 0.3);
	crash_node($node);
	$h->finish;
	$node->start;
	my $exists = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_class WHERE relname = 't_k'");
	if ($exists eq '1')
	{
		check_index($node, "$backend: CREATE INDEX finished before the crash", 't_k');
	}
	else
	{
		pass("$backend: the killed CREATE INDEX left no index");
		$node->safe_psql('postgres', 'CREATE INDEX t_k ON t USING artrie (k)');
	}

	# VACUUM, killed while it runs.
	$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 3 = 0');
	$h = background($node, 'VACUUM t');
	ok(wait_for($node, q{SELECT count(*) > 0 FROM pg_stat_activity
		WHERE query LIKE 'VACUUM%' AND state = 'active'}),
		"$backend: VACUUM is running");
	select(undef, undef, undef, 0.2);
	crash_node($node);
	$h->finish;
	$node->start;
	check_index($node, "$backend: after a crash during VACUUM", 't_k');
	$node->safe_psql('postgres', 'VACUUM t');
	check_index($node, "$backend: after VACUUM completes", 't_k');

	# An artrie checkpoint, killed while it writes many dirty pages.
	$node->safe_psql('postgres',
		"INSERT INTO t SELECT g, 'key-' || g || '-new' FROM generate_series(1, 100000) g");
	$h = background($node, 'SELECT artrie_checkpoint()');
	select(undef, undef, undef, 0.05);
	crash_node($node);
	$h->finish;
	$node->start;
	is($node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE k ^@ 'key-1' AND k LIKE '%-new'"),
		'11112', "$backend: every committed row survives a crash during a checkpoint");
	check_index($node, "$backend: after a crash during a checkpoint", 't_k');

	$node->stop;
}

done_testing();
