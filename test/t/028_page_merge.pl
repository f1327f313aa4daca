# An index under updates and deletes keeps its pages near a fresh build's:
# after a delete, an underfull page merges into its parent page or a
# sibling page (src/trie/trie_merge.c), on the primary, in crash recovery
# and on a standby alike (redo merges after replaying a delete).  On both
# I/O backends:
#  - 20,000 md5 keys are built into an index and a hot standby streams
#    from the primary; every row's key is updated three times (VACUUM
#    after each round), then 3 rows in 4 are deleted and vacuumed;
#  - the index's pages (artrie_stats) must then be at most BOUND times
#    those of an index built fresh on the same rows, on the primary, on
#    the standby and after a crash of the primary (SIGKILL; recovery
#    replays what the file's last checkpoint lacks);
#  - each of the three answers like a sequential scan on the primary and
#    artrie_verify(index, true) finds it sound.
# Sizes and answers only: nothing here depends on timing.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rows = 20000;
my $bound = 2.5;

# The pages of an index.
sub pages
{
	my ($node, $index) = @_;
	return $node->safe_psql('postgres',
		"SELECT (artrie_stats('$index')->>'pages')::bigint");
}

# The queries, forced through the index or not.
my $queries =
	"SELECT count(*) || '/' || md5(coalesce(string_agg(k || ':' || id, ',' ORDER BY k, id), '')) FROM s WHERE k >= '' ;"
  . " SELECT count(*) FROM s WHERE k ^@ 'e';"
  . " SELECT count(*) FROM s WHERE k >= '3' AND k < '5';";
my $by_index = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $by_seq =
  'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; ';

# The index on $node answers like a sequential scan on $primary, verifies,
# and its pages are within the bound of $fresh pages.
sub index_ok
{
	my ($node, $primary, $fresh, $label) = @_;
	my $seq = $primary->safe_psql('postgres', $by_seq . $queries);
	my $plan = $node->safe_psql('postgres',
		$by_index . "EXPLAIN SELECT count(*) FROM s WHERE k ^@ 'e'");
	like($plan, qr/s_k/, "$label: the queries scan the index");
	is($node->safe_psql('postgres', $by_index . $queries),
		$seq, "$label: the index answers like a sequential scan");
	verify_ok($node, 's_k', $label);
	my $pages = pages($node, 's_k');
	ok($pages <= $bound * $fresh,
		"$label: the index's $pages pages are within $bound x a fresh build's $fresh");
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("merge_p_$backend", $backend,
		conf => [ 'autovacuum = off', 'checkpoint_timeout = 1h' ]);
	$primary->safe_psql('postgres', qq{
		CREATE TABLE s (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k text COLLATE "C");
		INSERT INTO s (k) SELECT md5(g::text) FROM generate_series(1, $rows) g;
		CREATE INDEX s_k ON s USING artrie (k);
	});
	my $built = pages($primary, 's_k');
	my $standby = artrie_standby($primary, "merge_s_$backend");

	for my $round (1 .. 3)
	{
		$primary->safe_psql('postgres', "UPDATE s SET k = md5(k || $round)");
		$primary->safe_psql('postgres', 'VACUUM s');
	}
	my $churned = pages($primary, 's_k');
	$primary->safe_psql('postgres', 'DELETE FROM s WHERE id % 4 <> 0');
	$primary->safe_psql('postgres', 'VACUUM s');
	$primary->safe_psql('postgres',
		'CREATE INDEX s_fresh ON s USING artrie (k)');
	my $fresh = pages($primary, 's_fresh');
	$primary->safe_psql('postgres', 'DROP INDEX s_fresh');
	note("$backend: $built pages built, $churned after the updates, "
		  . pages($primary, 's_k') . " after the deletes, fresh $fresh");

	index_ok($primary, $primary, $fresh, "$backend: primary");
	wait_replayed($primary, $standby);
	index_ok($standby, $primary, $fresh, "$backend: standby");

	crash_node($primary);
	$primary->start;
	index_ok($primary, $primary, $fresh, "$backend: primary after a crash");
	$standby->stop;
	$primary->stop;
}

done_testing();
