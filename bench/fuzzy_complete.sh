#!/usr/bin/env bash
# Typo-tolerant completion: artrie_fuzzy_complete against pg_trgm (GIN)
# and a brute-force scan, per query, on the Debian word lists.
#
#   bash bench/fuzzy_complete.sh [LIMIT]   (as root on Debian 12)
#
# Builds a private install (like bench/run.sh) and starts a throwaway
# cluster.  The table holds the distinct words of american-english-insane
# and bulgarian (Cyrillic, two bytes a letter), with an artrie index and a
# pg_trgm GIN index (gin_trgm_ops).  For each misspelt prefix in PREFIXES
# and max_distance 1 and 2, the first LIMIT (default 10) completions by:
#   artrie      artrie_fuzzy_complete(index, prefix, d, LIMIT)
#   trgm_sim    WHERE w % prefix ORDER BY similarity(w, prefix) DESC
#               LIMIT n: pg_trgm's similarity of the whole word to the
#               prefix (the GIN index answers %)
#   trgm_word   WHERE prefix <% w ORDER BY word_similarity(prefix, w)
#               DESC LIMIT n: pg_trgm's similarity of the prefix to the
#               closest part of the word, its nearest to a prefix match
#   brute       every distinct word: the least levenshtein_less_equal()
#               between the prefix and the word's first i characters, i
#               within d of the prefix's length; ORDER BY distance, word
# Latency per query is the median of 7 runs after a first one (brute:
# one run).  Recall is the share of the brute force's LIMIT keys a method
# returns (trgm has no distance bound: its answers are its most similar
# words, not the nearest completions); artrie's must be 1.0 and its rows
# equal the brute force's, in order.  Output: a table on stdout and
# bench/results/fuzzy_complete-<date>.tsv (prefix, d, method, ms, recall).
# PREFIXES (space-separated) replaces the prefixes; ARTRIE_KEEP=1 keeps
# the scratch directory.
set -u

LIMIT=${1:-10}
PREFIXES=${PREFIXES:-acomod recie seperat definat goverment neccess tomorow begining здравй бълграск}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

out=$ARTRIE_SRC/bench/results/fuzzy_complete-$(date -u +%Y%m%d-%H%M).tsv
bench_write_cluster
q -c 'CREATE EXTENSION artrie' && q -c 'CREATE EXTENSION pg_trgm' &&
	q -c 'CREATE EXTENSION fuzzystrmatch' || { cat "$BENCH_ERR"; exit 1; }
bench_sql_helpers || { cat "$BENCH_ERR"; exit 1; }

WORDS=$ARTRIE_TMP/words.txt
cat /usr/share/dict/american-english-insane /usr/share/dict/bulgarian |
	grep -v '[\\]' | LC_ALL=C sort -u >"$WORDS"
chmod a+r "$WORDS"

t0=$(now_ns)
q -c "CREATE TABLE fw (w text COLLATE \"C\")" &&
	q -c "COPY fw (w) FROM '$WORDS'" && q -c "VACUUM ANALYZE fw" || { cat "$BENCH_ERR"; exit 1; }
say "loaded $(q -c 'SELECT count(*) FROM fw') distinct words in $(ms_since "$t0") ms"
t0=$(now_ns)
q -c "CREATE INDEX fw_artrie ON fw USING artrie (w)" || { cat "$BENCH_ERR"; exit 1; }
say "artrie index built in $(ms_since "$t0") ms"
t0=$(now_ns)
q -c "CREATE INDEX fw_trgm ON fw USING gin (w gin_trgm_ops)" || { cat "$BENCH_ERR"; exit 1; }
say "pg_trgm GIN index built in $(ms_since "$t0") ms"

q <<'SQL' || { cat "$BENCH_ERR"; exit 1; }
-- The brute force's query for a prefix and distance (see the header).
CREATE FUNCTION brute_sql(p text, d int, lim int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	dist text;
BEGIN
	SELECT 'least(' || string_agg(format('levenshtein_less_equal(%L, left(w, %s), %s)',
										 p, i, d), ', ') || ')'
	INTO dist
	FROM generate_series(greatest(char_length(p) - d, 0), char_length(p) + d) i;
	RETURN format('SELECT w AS key, dist AS distance FROM (SELECT w, %s AS dist FROM fw) s
				   WHERE dist <= %s ORDER BY dist, w LIMIT %s', dist, d, lim);
END $$;

-- The query of artrie or pg_trgm for a prefix and distance, returning keys.
CREATE FUNCTION method_sql(m text, p text, d int, lim int) RETURNS text
LANGUAGE sql AS $$
	SELECT CASE m
		WHEN 'artrie' THEN format('SELECT key FROM artrie_fuzzy_complete(''fw_artrie'', %L, %s, %s)', p, d, lim)
		WHEN 'trgm_sim' THEN format('SELECT w AS key FROM fw WHERE w %% %1$L ORDER BY similarity(w, %1$L) DESC, w LIMIT %2$s', p, lim)
		WHEN 'trgm_word' THEN format('SELECT w AS key FROM fw WHERE %1$L <%% w ORDER BY word_similarity(%1$L, w) DESC, w LIMIT %2$s', p, lim)
	END
$$;

-- Per prefix, distance and method: latency (median of reps runs after a
-- warm-up; the brute force runs once) and recall against the brute force.
CREATE TABLE fc_results (prefix text, d int, method text, ms float8,
						 recall numeric, same bool);
CREATE PROCEDURE fc_measure(p text, d int, lim int) LANGUAGE plpgsql AS $$
DECLARE
	ref text[];
	ref_rows text[];
	got text[];
	same bool;
	m text;
	ms float8;
	t0 timestamptz;
BEGIN
	t0 := clock_timestamp();
	EXECUTE 'SELECT array_agg(key), array_agg(ROW(key, distance)::text) FROM ('
		|| brute_sql(p, d, lim) || ') b' INTO ref, ref_rows;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	INSERT INTO fc_results VALUES (p, d, 'brute', ms, CASE WHEN ref IS NOT NULL THEN 1 END, NULL);
	EXECUTE format('SELECT array_agg(ROW(key, distance)::text) FROM artrie_fuzzy_complete(''fw_artrie'', %L, %s, %s)',
				   p, d, lim) INTO got;
	same := got IS NOT DISTINCT FROM ref_rows;
	FOREACH m IN ARRAY ARRAY['artrie', 'trgm_sim', 'trgm_word'] LOOP
		EXECUTE 'SELECT array_agg(key) FROM (' || method_sql(m, p, d, lim) || ') x' INTO got;
		SELECT b.ms INTO ms FROM bench_time('SELECT count(*) FROM (' || method_sql(m, p, d, lim) || ') x', 7) b;
		INSERT INTO fc_results VALUES (p, d, m, ms,
			round((SELECT count(*) FROM unnest(got) g WHERE g = ANY (ref))::numeric
				  / cardinality(ref), 2),
			CASE WHEN m = 'artrie' THEN same END);
	END LOOP;
END $$;
SQL

say "fuzzy completion, LIMIT $LIMIT: ms per query (median of 7), recall against the brute force"
for p in $PREFIXES; do
	for d in 1 2; do
		q -c "CALL fc_measure('$p', $d, $LIMIT)" || { cat "$BENCH_ERR"; exit 1; }
	done
done

{
	echo "# fuzzy_complete.sh $(date -u +%FT%TZ): $(q -c 'SELECT count(*) FROM fw') distinct words, LIMIT $LIMIT"
	printf 'prefix\td\tmethod\tms\trecall\n'
	q -c "SELECT prefix, d, method, round(ms::numeric, 3), recall FROM fc_results"
} >"$out"

q -P format=aligned -P tuples_only=off -c "
SELECT prefix, d,
	round(max(ms) FILTER (WHERE method = 'artrie')::numeric, 3) AS artrie_ms,
	round(max(ms) FILTER (WHERE method = 'trgm_sim')::numeric, 3) AS trgm_sim_ms,
	round(max(ms) FILTER (WHERE method = 'trgm_word')::numeric, 3) AS trgm_word_ms,
	round(max(ms) FILTER (WHERE method = 'brute')::numeric, 3) AS brute_ms,
	max(recall) FILTER (WHERE method = 'artrie') AS r_artrie,
	max(recall) FILTER (WHERE method = 'trgm_sim') AS r_sim,
	max(recall) FILTER (WHERE method = 'trgm_word') AS r_word,
	bool_and(same) AS artrie_equals_brute
FROM fc_results GROUP BY prefix, d ORDER BY d, min(ctid)"
summary=$(q -P format=aligned -P tuples_only=off -c "
WITH med AS (
	SELECT d, method, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
		   avg(recall) AS recall, bool_and(same) AS same
	FROM fc_results GROUP BY d, method)
SELECT m.d, m.method, round(m.ms::numeric, 3) AS median_ms,
	   round((m.ms / a.ms)::numeric, 1) AS x_artrie, round(m.recall, 2) AS mean_recall
FROM med m JOIN med a ON a.d = m.d AND a.method = 'artrie'
ORDER BY m.d, array_position(ARRAY['artrie', 'trgm_sim', 'trgm_word', 'brute'], m.method)")
say "medians over the prefixes (x_artrie: the method's median over artrie's)"
echo "$summary"
echo "$summary" | sed 's/^/# /' >>"$out"
say "artrie equal to the brute force (keys, distances, order) for $(q -c "SELECT count(*) FILTER (WHERE same) || ' of ' || count(*) FROM fc_results WHERE method = 'artrie'") queries"
say "results: $out"
