#!/usr/bin/env bash
# Scan-path measurement: artrie against btree on a COLLATE "C" column, side
# by side in one cluster, for the scans of issue 8 (prefix counts, LIKE
# returning rows, many exact probes in one query, pgbench lookups).
#
#   bash bench/scan_profile.sh            (as root)
#
# SCAN_DIR=<dir> keeps the cluster there between runs: the first run builds
# it and loads the data; later runs only rebuild and reinstall artrie,
# restart and measure.  SCAN_PERF=1 also records a perf profile of the
# artrie side of each query (flat, top symbols).  SCAN_ROWS_PATHS and
# SCAN_ROWS_SYNTH set the sizes (200000 and 300000), SCAN_REPS the
# repetitions (median; 5).
set -u

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

ROWS_PATHS=${SCAN_ROWS_PATHS:-200000}
ROWS_SYNTH=${SCAN_ROWS_SYNTH:-300000}
REPS=${SCAN_REPS:-5}
NPROBE=5000
NPREF=10
NSEEK=100

bench_scratch "${SCAN_DIR:-}"

# (a kept build tree would keep objects older than the headers they use)
rm -rf "$ARTRIE_TMP/src"
bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }

if [ -f "$PGDATA/PG_VERSION" ]; then
	PGPORT=$(sed -n 's/^port = //p' "$PGDATA/postgresql.conf" | tail -1)
	export PGPORT PGUSER=postgres
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -m fast -w -t 120 restart >/dev/null ||
		{ tail -20 "$ARTRIE_TMP/server.log"; exit 1; }
else
	artrie_start_cluster "shared_buffers = 1GB" "artrie.buffer_pool_size = 1GB" \
		"work_mem = 64MB" "max_parallel_workers_per_gather = 0" "jit = off" \
		"autovacuum = off" "max_wal_size = 16GB" "checkpoint_timeout = 1h"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
	q -c "CREATE EXTENSION artrie" || { last_err; exit 1; }
	bench_sql_helpers || { last_err; exit 1; }
	say "loading paths ($ROWS_PATHS) and synth ($ROWS_SYNTH)"
	find /usr -xdev 2>/dev/null | iconv -f UTF-8 -t UTF-8 -c |
		sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' >"$ARTRIE_TMP/paths.all"
	n=$(wc -l <"$ARTRIE_TMP/paths.all")
	awk -v k=$(((n + ROWS_PATHS - 1) / ROWS_PATHS)) 'NR % k == 0' "$ARTRIE_TMP/paths.all" >"$ARTRIE_TMP/paths.txt"
	chmod a+r "$ARTRIE_TMP/paths.txt"
	for ds in paths synth; do
		bench_load_dataset "$ds" "$ARTRIE_TMP/paths.txt"
		q -c "CREATE INDEX ds_${ds}_btree ON ds_$ds (k)" || { last_err; exit 1; }
		q -c "CREATE INDEX ds_${ds}_artrie ON ds_$ds USING artrie (k)" || { last_err; exit 1; }
	done
fi

# One index at a time: the other is marked invalid (indisvalid) inside a
# transaction that is rolled back, so the planner sees only the one measured.
NOSEQ="-c enable_seqscan=off -c enable_hashjoin=off -c enable_mergejoin=off"

# timed DS TEMPLATE VALUES_SQL: ms per query for btree and artrie, each
# measured REPS times, alternating (the other index marked invalid in a
# transaction that is rolled back), after one warm-up pass each.  Prints
# btree min, btree median, artrie min, artrie median, btree check, artrie
# check (tab-separated).
timed() {
	local ds=$1 lit
	lit=$(printf '%s' "$2" | sed "s/'/''/g")
	PGOPTIONS="$NOSEQ" q <<SQL | tail -1
BEGIN;
CREATE TEMP TABLE ab (idx text, ms float8, result text);
DO \$\$
DECLARE
	vals text[] := ARRAY($3);
	ix text;
BEGIN
	FOR i IN 0..$REPS LOOP
		FOREACH ix IN ARRAY ARRAY['btree', 'artrie'] LOOP
			UPDATE pg_index SET indisvalid = (indexrelid = ('ds_${ds}_' || ix)::regclass)
				WHERE indexrelid IN ('ds_${ds}_btree'::regclass, 'ds_${ds}_artrie'::regclass);
			INSERT INTO ab SELECT ix, b.ms, b.result FROM bench_multi('$lit', vals) b WHERE i > 0;
		END LOOP;
	END LOOP;
END
\$\$;
SELECT (SELECT min(ms) FROM ab WHERE idx = 'btree'),
	(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM ab WHERE idx = 'btree'),
	(SELECT min(ms) FROM ab WHERE idx = 'artrie'),
	(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM ab WHERE idx = 'artrie'),
	(SELECT min(result) FROM ab WHERE idx = 'btree'),
	(SELECT min(result) FROM ab WHERE idx = 'artrie');
ROLLBACK;
SQL
}

# plan DS INDEX QUERY: the scan node of the plan.
plan() {
	local ds=$1 idx=$2 other lit
	other=$([ "$idx" = btree ] && echo artrie || echo btree)
	lit=$(printf '%s' "$3" | sed "s/'/''/g")
	PGOPTIONS="$NOSEQ" q <<SQL | tail -1
BEGIN;
UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${ds}_$other'::regclass;
SELECT bench_plan('$lit');
ROLLBACK;
SQL
}

# profile DS QUERY: perf of the artrie side running QUERY 20 times.
profile() {
	local ds=$1 lit pidf data pid perfpid i
	lit=$(printf '%s' "$2" | sed "s/'/''/g")
	pidf=$ARTRIE_TMP/perf.pid data=$ARTRIE_TMP/perf.data
	rm -f "$pidf" "$data"
	PGOPTIONS="$NOSEQ" as_pg "$PG_BIN/psql" -XAtq -d "$BENCH_DB" >/dev/null 2>&1 <<SQL &
BEGIN;
UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${ds}_btree'::regclass;
SELECT pg_backend_pid() \g $pidf
SELECT pg_sleep(0.5);
SELECT bench_time('$lit', 20);
ROLLBACK;
SQL
	pid=$!
	for i in $(seq 1 50); do [ -s "$pidf" ] && break; sleep 0.1; done
	perf record -q -F 2999 -p "$(cat "$pidf")" -o "$data" >/dev/null 2>&1 &
	perfpid=$!
	wait "$pid"
	kill -INT "$perfpid" 2>/dev/null
	wait "$perfpid" 2>/dev/null
	perf report -i "$data" --stdio --no-children --sort dso,symbol --percent-limit 1 2>/dev/null |
		grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//' | head -25
}

say "commit $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1 | sed 's/.*/ (+ uncommitted changes)/')"
printf '%-7s %-16s %9s %9s %9s %9s %7s %7s  %s\n' dataset metric btree_min btree_med artrie_min artrie_med ratio_min ratio_med check
for ds in ${SCAN_DATASETS:-paths synth}; do
	for m in ${SCAN_METRICS:-prefix_count_3 like_rows_3 prefix_count_1 lookup_join}; do
		case $m in
		prefix_count_*) tmpl="SELECT count(*) FROM ds_$ds WHERE k LIKE %L"
			vals="SELECT bench_like(p) FROM pref_$ds WHERE n = ${m##*_} ORDER BY ord" ;;
		like_rows_*) tmpl="SELECT count(id) FROM ds_$ds WHERE k LIKE %L"
			vals="SELECT bench_like(p) FROM pref_$ds WHERE n = ${m##*_} ORDER BY ord" ;;
		lookup_join) tmpl="SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p WHERE pid <= %s"
			vals="SELECT '$NPROBE'::text" ;;
		esac
		IFS=$'\t' read -r bmin bmed amin amed bres ares <<<"$(timed "$ds" "$tmpl" "$vals")"
		printf '%-7s %-16s %9.3f %9.3f %9.3f %9.3f %6.2fx %6.2fx  %s\n' "$ds" "$m" "$bmin" "$bmed" "$amin" "$amed" \
			"$(awk -v a="$amin" -v b="$bmin" 'BEGIN { print a / b }')" "$(awk -v a="$amed" -v b="$bmed" 'BEGIN { print a / b }')" \
			"$([ "$ares" = "$bres" ] && echo "same ($ares)" || echo "DIFFERENT: btree $bres artrie $ares")"
		if [ -n "${SCAN_PLANS:-}" ]; then
			echo "    plans: $(plan "$ds" btree "$(q -c "SELECT format('$(printf '%s' "$tmpl" | sed "s/'/''/g")', v) FROM ($vals) s(v) LIMIT 1")") | $(plan "$ds" artrie "$(q -c "SELECT format('$(printf '%s' "$tmpl" | sed "s/'/''/g")', v) FROM ($vals) s(v) LIMIT 1")")"
		fi
		if [ -n "${SCAN_PERF:-}" ]; then
			profile "$ds" "$(q -c "SELECT format('$(printf '%s' "$tmpl" | sed "s/'/''/g")', v) FROM ($vals) s(v) LIMIT 1")"
		fi
	done
	for idx in btree artrie; do
		other=$([ "$idx" = btree ] && echo artrie || echo btree)
		# pgbench cannot hide an index per session: drop the other one's
		# validity for the duration (restored below).
		q -c "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${ds}_$other'::regclass"
		tps=$(PGOPTIONS="$NOSEQ" as_pg "$PG_BIN/pgbench" -n -M prepared -c 1 -T "${SCAN_PGBENCH_T:-5}" -f "$ARTRIE_TMP/lookup_$ds.sql" "$BENCH_DB" 2>&1 |
			sed -n 's/^tps = \([0-9.]*\).*/\1/p')
		q -c "UPDATE pg_index SET indisvalid = true WHERE indexrelid = 'ds_${ds}_$other'::regclass"
		eval "tps_$idx=\$tps"
	done
	printf '%-7s %-16s %12s %12s %6.2fx  (tps; ratio btree/artrie)\n' "$ds" lookup_tps_c1 "$tps_btree" "$tps_artrie" \
		"$(awk -v a="$tps_artrie" -v b="$tps_btree" 'BEGIN { print b / a }')"
done
