# An index's file under churn stays within a bound of the pages it uses,
# and shrinks when the index does.  Copy-on-write checkpoints write each
# changed page to a free physical page; the space they free comes back
# into use, a checkpoint moves the data pages at the file's tail down into
# free space below, and cuts off the free tail once that checkpoint is
# durable.  On both I/O backends:
#  - right after CREATE INDEX the file holds the index's pages, its two
#    meta pages, a map page and a directory page, and no room allocated
#    ahead of the build's writes (io_uring's);
#  - 20,000 md5 keys are built into an index, then every row's key is
#    updated three times, row by row, with artrie_checkpoint() every
#    2,000 rows and VACUUM after each round: the file (file_bytes) must
#    then be at most 1.25 times the index's pages plus 40 pages (before
#    the tail moves it was more than twice its pages);
#  - 7/8 of the keys (a key range) are deleted and vacuumed: the file
#    must shrink below half its size before the deletion, and again stay
#    within the bound;
#  - after each step and after a crash (SIGKILL), the index answers like
#    a sequential scan and artrie_verify(index, true) finds it sound.
# Sizes only: nothing here depends on timing.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rows = 20000;

# The file's size and the index's pages.
sub sizes
{
	my ($node) = @_;
	my ($bytes, $pages) = split /\|/, $node->safe_psql('postgres',
		"SELECT file_bytes, (artrie_stats('s_k')->>'pages')::bigint FROM artrie_index_info('s_k')");
	return ($bytes, $pages);
}

# The file within 1.25 times the index's pages plus 40 pages.
sub within_bound
{
	my ($node, $label) = @_;
	my ($bytes, $pages) = sizes($node);
	my $bound = 8192 * int($pages * 1.25 + 40);
	ok($bytes <= $bound,
		"$label: the file ($bytes bytes) is within 1.25 x its $pages pages + 40 ($bound bytes)");
	return $bytes;
}

# The index's answers against a sequential scan's, and artrie_verify.
sub answers_ok
{
	my ($node, $label) = @_;
	my $q = "SELECT count(*) || '/' || md5(coalesce(string_agg(k || ':' || id, ',' ORDER BY k, id), '')) FROM s WHERE k >= '' ;"
	  . " SELECT count(*) FROM s WHERE k ^@ 'e';"
	  . " SELECT count(*) FROM s WHERE k >= '3' AND k < '5';";
	my $seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; $q");
	my $idx = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $plan = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN SELECT count(*) FROM s WHERE k ^@ 'e'");
	like($plan, qr/s_k/, "$label: the queries scan the index");
	is($idx, $seq, "$label: the index answers like a sequential scan");
	verify_ok($node, 's_k', $label);
	return;
}

for my $backend (backends())
{
	my $node = artrie_node("space_$backend", $backend, 'autovacuum = off');
	$node->safe_psql('postgres', qq{
		CREATE TABLE s (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k text COLLATE "C");
		INSERT INTO s (k) SELECT md5(g::text) FROM generate_series(1, $rows) g;
		CREATE INDEX s_k ON s USING artrie (k);
		CREATE PROCEDURE churn(round int) LANGUAGE plpgsql AS \$\$
		BEGIN
			FOR i IN 1..$rows LOOP
				UPDATE s SET k = md5(k || round) WHERE id = i;
				IF i % 500 = 0 THEN
					COMMIT;
				END IF;
				IF i % 2000 = 0 THEN
					PERFORM artrie_checkpoint();
				END IF;
			END LOOP;
		END \$\$;
	});
	my ($built, $pages) = sizes($node);
	ok($built <= 8192 * ($pages + 4),
		"$backend: the file ($built bytes) right after the build holds its $pages pages, two meta pages, a map page and a directory page");

	for my $round (1 .. 3)
	{
		$node->safe_psql('postgres', "CALL churn($round)");
		$node->safe_psql('postgres', 'VACUUM s');
	}
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()') for 1 .. 2;
	my $churned = within_bound($node, "$backend: after 3 rounds of updates");
	note("$backend: file $built bytes after the build, $churned after the churn");
	answers_ok($node, "$backend: after the churn");

	$node->safe_psql('postgres', "DELETE FROM s WHERE k < 'e'");
	$node->safe_psql('postgres', 'VACUUM s');
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()') for 1 .. 3;
	my $shrunk = within_bound($node, "$backend: after deleting 7/8 of the keys");
	ok($shrunk < $churned / 2,
		"$backend: the file shrank to $shrunk bytes from $churned after deleting 7/8 of the keys");
	answers_ok($node, "$backend: after the deletion");

	# Writes after the file was cut short extend it again, and a crash
	# keeps them.
	$node->safe_psql('postgres',
		"INSERT INTO s (k) SELECT md5('again' || g) FROM generate_series(1, 5000) g");
	crash_node($node);
	$node->start;
	answers_ok($node, "$backend: after more inserts and a crash");
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	within_bound($node, "$backend: after the crash");
	$node->stop;
}

done_testing();
