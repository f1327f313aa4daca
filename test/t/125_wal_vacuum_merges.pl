# VACUUM merges once per run of deletes that ended in one page, after a
# group of deletes (src/am/am_vacuum.c); it logs its deletes as needing
# no merge after them and each merge that changed pages as a merge record
# (one that changed nothing would change nothing in redo either) with the
# step that changed them, so that redo merges where the primary did,
# making that step alone (src/wal/wal_redo.c), on a hot standby (each
# record at once) and in crash recovery (sorted batches, each merge held
# until the first record logged after it).  On both I/O backends:
#  - 20,000 md5 keys are inserted into an index and a hot standby
#    streams from the primary; after a checkpoint half the rows, then a
#    third of the rest, are deleted and vacuumed; the WAL holds the
#    VACUUMs' DELETE_NO_MERGE and MERGE records, each merge record with
#    its step (pg_walinspect);
#  - the standby's index answers like the primary's, artrie_verify finds
#    it sound, and it has the primary's pages, bytes and nodes
#    (artrie_stats' walk); redo that merged after every delete left 83
#    pages for the primary's 82;
#  - the primary, SIGKILLed, replays the deletes and merges from its
#    checkpoint: the same answers, sound, the same pages, bytes and nodes
#    as before (redo that merged after every delete, in sorted batches:
#    92 pages).
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

# The pages of an index and its key trie's pages, bytes and nodes.
sub pages
{
	my ($node, $index) = @_;
	return $node->safe_psql('postgres',
		"SELECT (artrie_stats('$index')->>'pages') || ' pages, key trie '
			|| (artrie_stats('$index', true)->'key_trie')::text");
}

my $queries =
	"SELECT count(*) || '/' || md5(coalesce(string_agg(k || ':' || id, ',' ORDER BY k, id), '')) FROM s WHERE k >= '' ;"
  . " SELECT count(*) FROM s WHERE k ^@ 'e';"
  . " SELECT count(*) FROM s WHERE k >= '3' AND k < '5';";
my $by_index = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';

# The index on $node answers as $want, verifies and has $pages (pages).
sub index_ok
{
	my ($node, $want, $pages, $label) = @_;
	my $plan = $node->safe_psql('postgres',
		$by_index . "EXPLAIN SELECT count(*) FROM s WHERE k ^@ 'e'");
	like($plan, qr/s_k/, "$label: the queries scan the index");
	is($node->safe_psql('postgres', $by_index . $queries),
		$want, "$label: the index answers like the primary's");
	verify_ok($node, 's_k', $label);
	is(pages($node, 's_k'), $pages,
		"$label: the index has the primary's pages, bytes and nodes");
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("vmerge_p_$backend", $backend,
		conf => [ 'autovacuum = off', "checkpoint_timeout = '1h'",
			'artrie.checkpoint_timeout = 86400',
			'artrie.checkpoint_dirty_percent = 100' ]);
	$primary->safe_psql('postgres', qq{
		CREATE EXTENSION pg_walinspect;
		CREATE TABLE s (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k text COLLATE "C");
		CREATE INDEX s_k ON s USING artrie (k);
		INSERT INTO s (k) SELECT md5(g::text) FROM generate_series(1, $rows) g;
	});
	my $standby = artrie_standby($primary, "vmerge_s_$backend");
	$primary->safe_psql('postgres', 'SELECT artrie_checkpoint(); CHECKPOINT;');
	my $from = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	my $built = pages($primary, 's_k');

	$primary->safe_psql('postgres', 'DELETE FROM s WHERE id % 2 = 0');
	$primary->safe_psql('postgres', 'VACUUM s');
	$primary->safe_psql('postgres', 'DELETE FROM s WHERE id % 3 = 0');
	$primary->safe_psql('postgres', 'VACUUM s');
	my $pages = pages($primary, 's_k');
	my $want = $primary->safe_psql('postgres', $by_index . $queries);
	note("$backend: $built inserted, $pages after the deletes");

	my $to = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	my $kinds = $primary->safe_psql('postgres', qq{
		SELECT string_agg(record_type || ' ' || n, ', ' ORDER BY record_type)
		FROM (SELECT record_type, count(*) AS n
			  FROM pg_get_wal_records_info('$from', '$to')
			  WHERE resource_manager LIKE '%artrie%' OR resource_manager LIKE 'custom%'
			  GROUP BY record_type) r});
	note("$backend: artrie records of the deletes: $kinds");
	like($kinds, qr/DELETE_NO_MERGE \d+/,
		"$backend: VACUUM logs its deletes as needing no merge");
	like($kinds, qr/(^|, )MERGE \d+/, "$backend: VACUUM logs its merges");
	unlike($kinds, qr/DELETE \d+/,
		"$backend: VACUUM logs no delete that merges after itself");
	my $steps = $primary->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE description ~ ', step [1-6]\$')
			|| ' of ' || count(*)
		FROM pg_get_wal_records_info('$from', '$to')
		WHERE record_type = 'MERGE'});
	note("$backend: merge records with a step: $steps");
	like($steps, qr/^(\d+) of \1$/,
		"$backend: each merge record names the step that changed pages");

	wait_replayed($primary, $standby);
	index_ok($standby, $want, $pages, "$backend: standby");

	crash_node($primary);
	start_ok($primary, "$backend: primary after SIGKILL");
	index_ok($primary, $want, $pages, "$backend: primary after a crash");
	$standby->stop;
	$primary->stop;
}

done_testing();
