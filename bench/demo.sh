#!/usr/bin/env bash
# artrie's main job, on real data, on a throwaway cluster.
#
#   bash bench/demo.sh
#
# As root it installs the Debian packages it needs, builds and installs
# artrie, starts a cluster as the postgres OS user, loads the words of
# wamerican-insane and the file paths under /usr, indexes them with artrie
# and with btree, and shows EXPLAIN choosing artrie for =, ^@ and LIKE, a
# few lookups with their timings, the two indexes' sizes side by side, and
# the SQL functions only a trie answers cheaply: completion, prefix counts,
# fuzzy search and longest-prefix match.  It then stops the cluster and removes it; with ARTRIE_KEEP=1 it leaves
# the cluster running and prints how to connect with psql.
set -eu

. "$(dirname "$0")/../test/lib.sh"

artrie_install_packages
artrie_make_tmp
artrie_build_install

# The data: Debian's word list and the file paths under /usr (one per line,
# valid UTF-8, backslashes escaped for COPY's text format).
cp /usr/share/dict/american-english-insane "$ARTRIE_TMP/words.txt"
find /usr -xdev 2>/dev/null | iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g' >"$ARTRIE_TMP/paths.txt"

artrie_start_cluster
if [ -n "${ARTRIE_KEEP:-}" ]; then
	trap - EXIT
fi

psql_demo() { as_pg "$PG_BIN/psql" -X -v ON_ERROR_STOP=1 -d postgres "$@"; }

psql_demo -q <<SQL
\\echo '--- loading the data'
CREATE EXTENSION artrie;
CREATE TABLE words (w text COLLATE "C");
COPY words FROM '$ARTRIE_TMP/words.txt';
CREATE TABLE paths (p text COLLATE "C");
COPY paths FROM '$ARTRIE_TMP/paths.txt';
VACUUM ANALYZE words, paths;
SELECT 'words' AS "table", count(*) AS rows FROM words
UNION ALL SELECT 'paths', count(*) FROM paths;
SQL

psql_demo <<'SQL'
\echo '--- building the indexes'
\timing on
CREATE INDEX words_artrie ON words USING artrie (w);
CREATE INDEX paths_artrie ON paths USING artrie (p);
\timing off
SQL

psql_demo <<'SQL'
\echo '--- the planner chooses artrie for =, ^@ and LIKE on a COLLATE "C" column'
EXPLAIN (COSTS OFF) SELECT * FROM words WHERE w = 'trie';
EXPLAIN (COSTS OFF) SELECT * FROM words WHERE w ^@ 'radix';
EXPLAIN (COSTS OFF) SELECT * FROM paths WHERE p LIKE '/usr/share/dict/%';
EXPLAIN (COSTS OFF) SELECT w FROM words WHERE w >= 'trie' ORDER BY w LIMIT 5;

\echo '--- lookups'
\timing on
SELECT * FROM words WHERE w = 'trie';
SELECT count(*) FROM words WHERE w ^@ 'radix';
SELECT p FROM paths WHERE p LIKE '/usr/share/dict/%' ORDER BY p;
SELECT w FROM words WHERE w >= 'trie' ORDER BY w LIMIT 5;
\timing off
SQL

psql_demo <<'SQL'
\echo '--- the same columns indexed by btree, for comparison'
\timing on
CREATE INDEX words_btree ON words USING btree (w);
CREATE INDEX paths_btree ON paths USING btree (p);
\timing off
SELECT c.relname AS index, am.amname AS method,
	pg_size_pretty(CASE am.amname
		WHEN 'artrie' THEN (artrie_stats(c.oid::regclass)->>'bytes_on_disk')::bigint
			+ pg_relation_size(c.oid)
		ELSE pg_relation_size(c.oid) END) AS size
FROM pg_class c JOIN pg_am am ON am.oid = c.relam
WHERE c.relname IN ('words_artrie', 'words_btree', 'paths_artrie', 'paths_btree')
ORDER BY c.relname;
SQL

psql_demo <<'SQL'
\echo '--- what only the trie answers cheaply'
\timing on
SELECT artrie_complete('words_artrie', 'tri', 8);
SELECT artrie_prefix_count('words_artrie', 'un') AS words_starting_with_un;
SELECT * FROM artrie_fuzzy('words_artrie', 'algoritm', 1);
SELECT * FROM artrie_fuzzy('words_artrie', 'recieve', 2, true) LIMIT 8;
SELECT artrie_prefixes_of('paths_artrie', '/usr/share/dict/words/extra');
\timing off
SELECT jsonb_pretty(artrie_stats('words_artrie') - 'key_trie' - 'null_trie') AS words_artrie_stats;
SQL

if [ -n "${ARTRIE_KEEP:-}" ]; then
	echo "The cluster is still running.  Connect with:"
	echo "  sudo -u $PGUSER psql -h $PGHOST -p $PGPORT postgres"
	echo "Stop and remove it with:"
	echo "  sudo -u $PGUSER $PG_BIN/pg_ctl -D $PGDATA stop && rm -rf $ARTRIE_TMP"
fi
