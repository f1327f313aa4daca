# WAL redo reads ahead (src/pager/pager_pool.c, pager_set_read_ahead): each
# page redo misses comes with the aligned run of physical pages around it,
# and a page of the run goes into the pool only while the pool lacks it
# and the page map still names that copy as the page's place.  Redo into
# a buffer pool a fraction of the index (artrie.buffer_pool_size = 1MB,
# 128 frames) writes out the pages it changed and reads runs that hold
# their older copies, on both I/O backends:
#  - 80,000 md5 keys are inserted, a checkpoint is taken, and half the
#    rows, then a third of the rest, are deleted and vacuumed; a hot
#    standby with the small pool replays them as they come;
#  - the primary, SIGKILLed, restarts with the small pool and replays the
#    deletes and merges from its checkpoint, reading ahead (artrie_stats'
#    read_ahead counts the pages put into the pool);
#  - both indexes answer like the primary's before the crash (an older
#    copy of a page in the pool would bring deleted keys back, or fail
#    redo) and artrie_verify finds them sound.
# Answers and counts only: nothing here depends on timing.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rows = 80000;

my $queries =
	"SELECT count(*) || '/' || md5(coalesce(string_agg(k || ':' || id, ',' ORDER BY k, id), '')) FROM s WHERE k >= '' ;"
  . " SELECT count(*) FROM s WHERE k ^@ 'e';"
  . " SELECT count(*) FROM s WHERE k >= '3' AND k < '5';";
my $by_index = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';

# The index on $node answers as $want and verifies.
sub index_ok
{
	my ($node, $want, $label) = @_;
	is($node->safe_psql('postgres', $by_index . $queries),
		$want, "$label: the index answers like the primary's");
	verify_ok($node, 's_k', $label);
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("rahead_p_$backend", $backend,
		conf => [ 'autovacuum = off', "checkpoint_timeout = '1h'",
			'artrie.checkpoint_timeout = 86400',
			'artrie.checkpoint_dirty_percent = 100' ]);
	$primary->safe_psql('postgres', qq{
		CREATE TABLE s (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k text COLLATE "C");
		CREATE INDEX s_k ON s USING artrie (k);
		INSERT INTO s (k) SELECT md5(g::text) FROM generate_series(1, $rows) g;
	});
	my $standby = artrie_standby($primary, "rahead_s_$backend", start => 0);
	$standby->append_conf('postgresql.conf', 'artrie.buffer_pool_size = 1MB');
	$standby->start;
	$primary->safe_psql('postgres', 'SELECT artrie_checkpoint(); CHECKPOINT;');
	my $pages = $primary->safe_psql('postgres',
		"SELECT (artrie_stats('s_k')->>'pages')::int");
	cmp_ok($pages, '>', 4 * 128,
		"$backend: the index ($pages pages) is over four times the pool");

	$primary->safe_psql('postgres', 'DELETE FROM s WHERE id % 2 = 0');
	$primary->safe_psql('postgres', 'VACUUM s');
	$primary->safe_psql('postgres', 'DELETE FROM s WHERE id % 3 = 0');
	$primary->safe_psql('postgres', 'VACUUM s');
	my $want = $primary->safe_psql('postgres', $by_index . $queries);
	like($want, qr/^26667\//, "$backend: the deletes left 26,667 rows");

	wait_replayed($primary, $standby);
	index_ok($standby, $want, "$backend: standby");

	crash_node($primary);
	$primary->append_conf('postgresql.conf', 'artrie.buffer_pool_size = 1MB');
	start_ok($primary, "$backend: primary after SIGKILL");
	my $ahead = $primary->safe_psql('postgres',
		"SELECT (artrie_stats('s_k')->'pool'->>'read_ahead')::bigint");
	cmp_ok($ahead, '>', 0,
		"$backend: redo read pages ahead ($ahead) into the pool");
	index_ok($primary, $want, "$backend: primary after a crash");
	$standby->stop;
	$primary->stop;
}

done_testing();
