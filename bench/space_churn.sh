#!/usr/bin/env bash
# Index size under writes: artrie against btree on the same table, after a
# build and after row-by-row churn with checkpoints running.
#
#   bash bench/space_churn.sh [ROWS [BACKEND]]   (as root on Debian 12)
#
# Builds a private install (like bench/run.sh) and starts a throwaway
# cluster (artrie.io_backend = BACKEND, default io_uring).  For each
# dataset (md5: md5 of numbers; words: the deduplicated word lists of
# /usr/share/dict), loads ROWS keys (default 15000) into a table with an
# artrie and a btree index on k COLLATE "C" and then churns it: single-row
# INSERTs of new keys, UPDATEs of a random row's key and DELETEs of a
# random row, one third each, committed every 20 operations, VACUUM after
# each fifth of the table's size, while a second session runs CHECKPOINT
# every 2 seconds.  After the build, after 1x and after 5x the table's
# size in operations it reports:
#   artrie file      the file's size (artrie_index_info's file_bytes) after
#                    one artrie_checkpoint() once the churn stopped
#   at rest          the same after two more (a checkpoint moves at most
#                    a quarter of the file's pages down from its tail)
#   artrie live      the pages the index uses (artrie_stats' pages) x 8 kB
#   fresh artrie     the file of an artrie index built now on the same rows
#   btree, fresh btree   pg_relation_size of the btree index and of one
#                    built now
# and the ratios: file/fresh, at rest/fresh, file/btree, btree/fresh
# btree.
# ARTRIE_SPACE_DATASETS (default "md5 words") picks the datasets.
# ARTRIE_KEEP=1 keeps the scratch directory (server logs).
set -u

ROWS=${1:-15000}
BACKEND=${2:-io_uring}
DATASETS=${ARTRIE_SPACE_DATASETS:-md5 words}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "artrie.io_backend = $BACKEND"
q -c 'CREATE EXTENSION artrie' || { cat "$BENCH_ERR"; exit 1; }

WORDS=$ARTRIE_TMP/words.txt
cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane 2>/dev/null |
	grep -v '[\\]' | LC_ALL=C sort -u >"$WORDS"
chmod a+r "$WORDS"

q <<'SQL' || { cat "$BENCH_ERR"; exit 1; }
-- One churn operation in three each: insert a new key, update a random
-- row's key, delete a random row; commit every 20.
CREATE PROCEDURE churn(ds text, n int) LANGUAGE plpgsql AS $$
DECLARE
	maxid bigint;
	nsrc int;
	r bigint;
	wi int;
	nk text;
BEGIN
	EXECUTE format('SELECT max(id) FROM t_%s', ds) INTO maxid;
	SELECT count(*) INTO nsrc FROM src_words;
	FOR i IN 1..n LOOP
		IF ds = 'md5' THEN
			nk := md5(clock_timestamp()::text || i::text);
		ELSE
			wi := 1 + floor(random() * nsrc)::int;
			SELECT s.w INTO nk FROM src_words s WHERE s.wid = wi;
		END IF;
		r := 1 + floor(random() * maxid)::bigint;
		CASE i % 3
			WHEN 0 THEN
				EXECUTE format('INSERT INTO t_%s (k) VALUES ($1)', ds) USING nk;
				maxid := maxid + 1;
			WHEN 1 THEN
				EXECUTE format('UPDATE t_%1$s SET k = $1 WHERE id = (SELECT id FROM t_%1$s WHERE id >= $2 ORDER BY id LIMIT 1)', ds) USING nk, r;
			ELSE
				EXECUTE format('DELETE FROM t_%1$s WHERE id = (SELECT id FROM t_%1$s WHERE id >= $1 ORDER BY id LIMIT 1)', ds) USING r;
		END CASE;
		IF i % 20 = 0 THEN
			COMMIT;
		END IF;
	END LOOP;
	COMMIT;
END $$;
SQL

q -c "CREATE TABLE src_words (wid int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, w text COLLATE \"C\")" &&
	q -c "COPY src_words (w) FROM '$WORDS'" && q -c "ANALYZE src_words" || { cat "$BENCH_ERR"; exit 1; }

# CHECKPOINT every 2 seconds until the file $ARTRIE_TMP/ckpt.stop appears.
ckpt_loop() {
	while [ ! -e "$ARTRIE_TMP/ckpt.stop" ]; do
		q -c 'CHECKPOINT' >/dev/null 2>&1
		sleep 2
	done
}

mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# measure DS STAGE: one report line.
measure() {
	local ds=$1 stage=$2 file rest live btree fa fb
	q -c "SELECT artrie_checkpoint()" >/dev/null
	file=$(q -c "SELECT file_bytes FROM artrie_index_info('a_$ds')")
	q -c "SELECT artrie_checkpoint()" >/dev/null
	q -c "SELECT artrie_checkpoint()" >/dev/null
	rest=$(q -c "SELECT file_bytes FROM artrie_index_info('a_$ds')")
	live=$(q -c "SELECT (artrie_stats('a_$ds')->>'pages')::bigint * 8192")
	btree=$(q -c "SELECT pg_relation_size('b_$ds')")
	q -c "CREATE INDEX fa_$ds ON t_$ds USING artrie (k)" &&
		q -c "CREATE INDEX fb_$ds ON t_$ds USING btree (k)" || { cat "$BENCH_ERR"; exit 1; }
	fa=$(q -c "SELECT file_bytes FROM artrie_index_info('fa_$ds')")
	fb=$(q -c "SELECT pg_relation_size('fb_$ds')")
	q -c "DROP INDEX fa_$ds, fb_$ds"
	printf '%-6s %-9s %8s %12s %9s %9s %11s %10s %11s %10s %9s %11s %12s\n' "$ds" "$stage" \
		"$(q -c "SELECT count(*) FROM t_$ds")" "$(mb "$file")" "$(mb "$rest")" "$(mb "$live")" "$(mb "$fa")" \
		"$(mb "$btree")" "$(mb "$fb")" "$(ratio "$file" "$fa")" "$(ratio "$rest" "$fa")" \
		"$(ratio "$file" "$btree")" "$(ratio "$btree" "$fb")"
}

say "space under churn: $ROWS rows, io_backend $BACKEND, CHECKPOINT every 2 s, VACUUM every $((ROWS / 5)) operations"
printf '%-6s %-9s %8s %12s %9s %9s %11s %10s %11s %10s %9s %11s %12s\n' dataset stage rows \
	"artrie_MB" "rest_MB" "live_MB" "fresh_a_MB" "btree_MB" "fresh_b_MB" "file/fresh" "rest/fresh" "file/btree" "btree/fresh"
for ds in $DATASETS; do
	q -c "CREATE TABLE t_$ds (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k text COLLATE \"C\")" ||
		{ cat "$BENCH_ERR"; exit 1; }
	if [ "$ds" = md5 ]; then
		q -c "INSERT INTO t_md5 (k) SELECT md5(g::text) FROM generate_series(1, $ROWS) g"
	else
		q -c "INSERT INTO t_words (k) SELECT w FROM src_words ORDER BY random() LIMIT $ROWS"
	fi
	q -c "VACUUM ANALYZE t_$ds" &&
		q -c "CREATE INDEX a_$ds ON t_$ds USING artrie (k)" &&
		q -c "CREATE INDEX b_$ds ON t_$ds USING btree (k)" || { cat "$BENCH_ERR"; exit 1; }
	measure "$ds" build
	rm -f "$ARTRIE_TMP/ckpt.stop"
	ckpt_loop &
	loop=$!
	t0=$(now_ns)
	for round in $(seq 1 25); do
		q -c "CALL churn('$ds', $((ROWS / 5)))" && q -c "VACUUM t_$ds" || { cat "$BENCH_ERR"; exit 1; }
		if [ "$round" = 5 ] || [ "$round" = 25 ]; then
			touch "$ARTRIE_TMP/ckpt.stop"
			wait "$loop"
			measure "$ds" "$((round / 5))x"
			rm -f "$ARTRIE_TMP/ckpt.stop"
			ckpt_loop &
			loop=$!
		fi
	done
	touch "$ARTRIE_TMP/ckpt.stop"
	wait "$loop"
	say "$ds: churn took $(ms_since "$t0") ms (with the measurements)"
done
