# Soak: 8 clients mix inserts, deletes, updates, selects of every operator,
# VACUUM and artrie_checkpoint() on an artrie-indexed table, with a buffer
# pool so small that eviction runs all the time.  Afterwards the index is
# sound (artrie_verify with heapallindexed) and every query answers as a
# sequential scan does.  ARTRIE_SOAK_SECONDS sets the length (default 20;
# 600 for the long run).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $seconds = $ENV{ARTRIE_SOAK_SECONDS} // 20;

for my $backend (backends())
{
	my $node = artrie_node("soak_$backend", $backend,
		"artrie.buffer_pool_size = '1MB'", 'autovacuum = off');
	$node->safe_psql('postgres', q{
		CREATE TABLE soak (id serial PRIMARY KEY, k text COLLATE "C");
		INSERT INTO soak (k)
			SELECT 'k' || g || '-' || md5(g::text) FROM generate_series(1, 50000) g;
		CREATE INDEX soak_k ON soak USING artrie (k);
		CREATE INDEX soak_lower ON soak USING artrie (lower(k));
	});
	my ($pages, $frames) = split /\|/, $node->safe_psql('postgres',
		q{SELECT (artrie_stats('soak_k')->>'pages')::int, frames FROM artrie_pool_stats()});
	cmp_ok($pages, '>', 2 * $frames,
		"$backend: the index ($pages pages) is much larger than the pool ($frames frames)");

	my $script = $node->basedir . '/soak.sql';
	open(my $fh, '>', $script) or die $!;
	print $fh <<'SQL';
\set r random(1, 200)
\set id random(1, 50000)
\if :r <= 70
INSERT INTO soak (k) VALUES ('k' || :id || '-' || md5(:id::text) || repeat('z', :id % 300));
\elif :r <= 95
DELETE FROM soak WHERE id = :id;
\elif :r <= 120
UPDATE soak SET k = k || 'u' WHERE id = :id;
\elif :r <= 140
SELECT count(*) FROM soak WHERE k ^@ ('k' || (:id % 1000));
\elif :r <= 155
SELECT count(*) FROM soak WHERE k = 'k' || :id || '-' || md5(:id::text);
\elif :r <= 170
SELECT k FROM soak WHERE k >= 'k' || :id ORDER BY k LIMIT 10;
\elif :r <= 180
SELECT k FROM soak WHERE k < 'k' || :id ORDER BY k DESC LIMIT 10;
\elif :r <= 190
SELECT count(*) FROM soak WHERE lower(k) LIKE 'k' || (:id % 100) || '%';
\elif :r <= 196
SELECT count(*) FROM artrie_complete('soak_k', 'k' || (:id % 50), 20);
\elif :r <= 198
VACUUM soak;
\else
SELECT artrie_checkpoint();
\endif
SQL
	close $fh;

	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', $seconds,
		  '-f', $script, '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err);
	ok($ok, "$backend: $seconds s of 8 clients ran without an error")
	  or diag($err);
	my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
	cmp_ok($tx // 0, '>', 100, "$backend: the clients did work (" . ($tx // 0) . ' transactions)');
	my $stats = $node->safe_psql('postgres', 'SELECT evictions FROM artrie_pool_stats()');
	cmp_ok($stats, '>', 0, "$backend: pages were evicted ($stats)");

	$node->safe_psql('postgres', "SELECT artrie_verify('soak_k', true)");
	$node->safe_psql('postgres', "SELECT artrie_verify('soak_lower', true)");
	pass("$backend: artrie_verify finds both indexes sound, heap included");

	my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	for my $q (
		"SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM soak WHERE k ^@ 'k1'",
		"SELECT count(*), md5(string_agg(k, ',' ORDER BY k)) FROM soak WHERE k >= 'k2' AND k < 'k3'",
		"SELECT count(*) FROM soak WHERE k = 'k77-' || md5('77')",
		"SELECT string_agg(k, ',') FROM (SELECT k FROM soak WHERE k > 'k5' ORDER BY k LIMIT 50) s",
		"SELECT string_agg(k, ',') FROM (SELECT k FROM soak WHERE k < 'k5' ORDER BY k DESC LIMIT 50) s",
		"SELECT count(*) FROM soak WHERE lower(k) LIKE 'k3%'")
	{
		is($node->safe_psql('postgres', "$force $q"), $node->safe_psql('postgres', "$seq $q"),
			"$backend: $q");
	}
	$node->stop;
}

done_testing();
