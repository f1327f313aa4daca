# Issue 12: crashes and promotion with artrie's changes in the WAL.  A
# primary with a streaming hot standby and four writers (inserts,
# deletes, updates, VACUUM) on a table with an artrie index:
#  - the standby is SIGKILLed mid-stream and restarted: once it has
#    replayed the primary's current LSN its index answers what the
#    primary's does and what a sequential scan does;
#  - the primary is SIGKILLed mid-write: after restart every row a client
#    had acknowledged is found through the index, and the standby, which
#    reconnects, finds them too and agrees with the primary;
#  - the primary is SIGKILLed mid-write again and the standby promoted:
#    its index answers like a sequential scan without REINDEX, takes new
#    rows, and survives a SIGKILL and restart of the promoted node.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $join = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SET enable_hashjoin = off; SET enable_mergejoin = off;};

# Every acknowledged row that no writer deletes or updates (ids with
# i % 7 = 4 are deleted, i % 11 = 6 updated, i = id % 1000000) must be
# found through the index under its key (or as a NULL key with its id).
sub acked_found
{
	my ($node, $label) = @_;
	my $stable = 'a.id % 1000000 % 7 <> 4 AND a.id % 1000000 % 11 <> 6';
	my %q = (
		keys => "SELECT count(*) FROM acked a WHERE $stable AND wkey(a.id) IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM t WHERE t.k = wkey(a.id) AND t.id = a.id)",
		nulls => "SELECT count(*) FROM acked a WHERE $stable AND wkey(a.id) IS NULL
			AND NOT EXISTS (SELECT 1 FROM t WHERE t.k IS NULL AND t.id = a.id)",
	);
	for my $kind (sort keys %q)
	{
		my ($r1, $plan, $e1) = $node->psql('postgres', "$join EXPLAIN (COSTS OFF) $q{$kind}");
		like($plan, qr/Index (Only )?Scan using t_k/,
			"$label: the search for acknowledged rows ($kind) goes through the index")
		  or diag($e1);
		my ($r2, $missing, $e2) = $node->psql('postgres', "$join $q{$kind}");
		is($missing, '0', "$label: every acknowledged row ($kind) is found through the index")
		  or diag($e2);
	}
	return;
}

# Start a round of writers, wait until they acknowledged $n rows.
sub write_some
{
	my ($node, $dir, $round, $n) = @_;
	my $w = start_writers($node, 't', $dir, $round);
	my $got = writers_wait($w, $n, 60);
	cmp_ok($got, '>=', $n, $node->name . ": round $round: the writers committed $n rows");
	return $w;
}

for my $backend (backends())
{
	my $dir = PostgreSQL::Test::Utils::tempdir;
	my $primary = artrie_primary("primary_$backend", $backend);
	make_wtable($primary, 't', 't_k', 1, 4000);
	my $standby = artrie_standby($primary, "standby_$backend");

	# The standby, killed while it replays.
	my $w = write_some($primary, $dir, 1, 600);
	crash_node($standby);
	writers_wait($w, 1200, 60);
	start_ok($standby, "$backend: standby after SIGKILL");
	writers_wait($w, 1800, 60);
	stop_writers($primary, $w, "$backend: round 1");
	wait_replayed($primary, $standby);
	my $want = index_answers($primary, 't', 'index');
	is($want, index_answers($primary, 't', 'seq'),
		"$backend: standby killed: on the primary t_k answers like a sequential scan");
	check_index($standby, 't', 't_k', "$backend: standby killed and restarted", want => $want);
	verify_ok($standby, 't_k', "$backend: standby killed and restarted");

	# The primary, killed mid-write.
	$w = write_some($primary, $dir, 2, 800);
	crash_node($primary);
	stop_writers($primary, $w, "$backend: round 2", crashed => 1);
	my @ids = acked_ids($w);
	cmp_ok(scalar(@ids), '>=', 800, "$backend: rows acknowledged before the primary's crash");
	start_ok($primary, "$backend: primary after SIGKILL");
	$primary->safe_psql('postgres',
		'CREATE TABLE acked (id int); INSERT INTO acked VALUES (' . join('), (', @ids) . ')');
	acked_found($primary, "$backend: primary killed mid-write, primary");
	check_index($primary, 't', 't_k', "$backend: primary killed mid-write, primary");
	verify_ok($primary, 't_k', "$backend: primary killed mid-write, primary");
	wait_replayed($primary, $standby);
	acked_found($standby, "$backend: primary killed mid-write, standby");
	$want = index_answers($primary, 't', 'index');
	check_index($standby, 't', 't_k', "$backend: primary killed mid-write, standby", want => $want);
	verify_ok($standby, 't_k', "$backend: primary killed mid-write, standby");

	# The primary, killed mid-write once more; the standby takes over
	# whatever it had replayed.
	$w = write_some($primary, $dir, 3, 600);
	crash_node($primary);
	stop_writers($primary, $w, "$backend: round 3", crashed => 1);
	$standby->promote;
	wait_promoted($standby, "$backend: promotion");
	acked_found($standby, "$backend: promoted (rows acknowledged in round 2, which it had replayed)");
	check_index($standby, 't', 't_k', "$backend: promoted");
	verify_ok($standby, 't_k', "$backend: promoted");

	# It takes new rows, and survives a crash.
	sql_ok($standby, q{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(9000001, 9000500) g;
		DELETE FROM t WHERE id BETWEEN 9000001 AND 9000100;
		INSERT INTO acked SELECT g FROM generate_series(9000101, 9000500) g;
	}, "$backend: promoted: inserts and deletes succeed");
	$w = write_some($standby, $dir, 4, 400);
	stop_writers($standby, $w, "$backend: promoted, round 4");
	$standby->safe_psql('postgres', 'INSERT INTO acked VALUES (' . join('), (', acked_ids($w)) . ')');
	acked_found($standby, "$backend: promoted, after new writes");
	check_index($standby, 't', 't_k', "$backend: promoted, after new writes");
	is(($standby->psql('postgres',
		"SET enable_seqscan = off; SELECT count(*) FROM t WHERE k ^@ 'w9/'"))[1],
		$standby->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(9000101, 9000500) g WHERE wkey(g) ^@ 'w9/'"),
		"$backend: promoted: the new rows are found through the index");

	$w = write_some($standby, $dir, 5, 400);
	crash_node($standby);
	stop_writers($standby, $w, "$backend: promoted, round 5", crashed => 1);
	my @more = acked_ids($w);
	start_ok($standby, "$backend: promoted node after SIGKILL");
	$standby->safe_psql('postgres', 'INSERT INTO acked VALUES (' . join('), (', @more) . ')');
	acked_found($standby, "$backend: promoted node killed and restarted");
	check_index($standby, 't', 't_k', "$backend: promoted node killed and restarted");
	verify_ok($standby, 't_k', "$backend: promoted node killed and restarted");

	$standby->stop;
}

done_testing();
