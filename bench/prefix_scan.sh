#!/usr/bin/env bash
# Prefix scans returning many rows, and ORDER BY LIMIT 10 after a seek:
# artrie against btree on a COLLATE "C" column, for two builds of artrie
# (before: a git revision, after: this working tree) in one cluster.
#
#   bash bench/prefix_scan.sh [ROUNDS [REPS]]        (as root)
#
# Datasets: words (wamerican-insane + wbritish-insane, deduplicated),
# bulgarian (wbulgarian, multi-byte UTF-8), synth (PFX_ROWS_SYNTH keys,
# default 1,000,000, as bench/run.sh makes them) and paths (PFX_ROWS_PATHS
# lines of `find /usr -xdev`, default 200,000), each a table with both
# indexes (PFX_DATASETS picks some; a kept cluster gets those it lacks).
# Queries, over the 10 3-byte prefixes (and 100 seek points) of
# bench/lib-bench.sh's tables:
#
#	count_like3   SELECT count(*) ... WHERE k LIKE 'p%'    (run.sh's prefix_count_3)
#	count_pfx3    SELECT count(*) ... WHERE k ^@ 'p'
#	like_rows3    SELECT count(id) ... WHERE k LIKE 'p%'   (run.sh's like_rows_3)
#	seek_limit10  SELECT count(*) FROM (SELECT k ... WHERE k >= s ORDER BY k LIMIT 10)
#	lookup_join   run.sh's lookup_join: PFX_NLOOKUP keys (default 50,000,
#	              as run.sh's probes: in md5 order, every tenth made a
#	              miss; table lkp_DS) looked up in one query, twice a
#	              measurement (ms per query)
#
# PFX_METRICS picks the queries (default: all but lookup_join).
#
# Each of ROUNDS rounds (default 3) installs each build in turn (the order
# alternating between rounds), restarts the server, runs every query once
# to warm up, then times every query set REPS times (default 3), btree and
# artrie alternating (one index visible at a time: the other is marked
# invalid in a transaction that is rolled back).  Each measurement takes
# the backend's CPU time (/proc/self/schedstat) and the wall clock.
# Printed: every measurement ("build round dataset metric index wall_ms
# cpu_ms result"), then per build the median ms per query of each index
# and artrie's ratio to btree, by CPU time and by the clock.  The builds must share the on-disk format and
# the extension's SQL.
#
# PFX_BEFORE is the "before" revision (default main); PFX_DIR keeps the
# cluster between runs (default: a temporary directory, removed at exit).
# PFX_REINDEX=1 rebuilds each dataset's artrie index after each switch of
# build (before its warm-up), so that each build reads pages it wrote
# itself: for builds that lay out pages differently.
set -u

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

ROUNDS=${1:-3}
REPS=${2:-3}
ROWS_SYNTH=${PFX_ROWS_SYNTH:-1000000}
ROWS_PATHS=${PFX_ROWS_PATHS:-200000}
BEFORE=${PFX_BEFORE:-main}
NPROBE=5000
NLOOKUP=${PFX_NLOOKUP:-50000}
NPREF=10
NSEEK=100

bench_scratch "${PFX_DIR:-}"

# The two builds: "after" is this tree (installed by bench_build_install),
# "before" the revision BEFORE built beside it; each one's artrie.so is
# kept and copied into the private installation before a restart.
rm -rf "$ARTRIE_TMP/src"
bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
{ bench_build_version after && bench_build_version before "$BEFORE"; } >>"$ARTRIE_TMP/build.log" 2>&1 ||
	{ tail -20 "$ARTRIE_TMP/build.log"; exit 1; }

if [ -f "$PGDATA/PG_VERSION" ]; then
	PGPORT=$(sed -n 's/^port = //p' "$PGDATA/postgresql.conf" | tail -1)
	export PGPORT PGUSER=postgres
	bench_use_version after
else
	artrie_start_cluster "shared_buffers = 1GB" "artrie.buffer_pool_size = 1GB" \
		"work_mem = 64MB" "max_parallel_workers_per_gather = 0" "jit = off" \
		"autovacuum = off" "max_wal_size = 16GB" "checkpoint_timeout = 1h"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
	q -c "CREATE EXTENSION artrie" || { last_err; exit 1; }
	bench_sql_helpers || { last_err; exit 1; }
fi

# Each dataset the cluster does not hold yet is loaded, with both indexes.
DATASETS=${PFX_DATASETS:-words bulgarian synth paths}
for ds in $DATASETS; do
	[ "$(q -c "SELECT to_regclass('ds_$ds') IS NOT NULL")" = t ] && continue
	say "loading $ds"
	case $ds in
	synth) say "synth: $ROWS_SYNTH keys" ;;
	words)
		cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
			iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' | LC_ALL=C sort -u >"$ARTRIE_TMP/words.txt"
		;;
	bulgarian)
		iconv -f UTF-8 -t UTF-8 -c </usr/share/dict/bulgarian |
			sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' >"$ARTRIE_TMP/bulgarian.txt"
		;;
	paths)
		find /usr -xdev 2>/dev/null | iconv -f UTF-8 -t UTF-8 -c |
			sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' >"$ARTRIE_TMP/paths.all"
		n=$(wc -l <"$ARTRIE_TMP/paths.all")
		awk -v k=$(((n + ROWS_PATHS - 1) / ROWS_PATHS)) 'NR % k == 0' "$ARTRIE_TMP/paths.all" >"$ARTRIE_TMP/paths.txt"
		;;
	esac
	[ -f "$ARTRIE_TMP/$ds.txt" ] && chmod a+r "$ARTRIE_TMP/$ds.txt"
	bench_load_dataset "$ds" "$ARTRIE_TMP/$ds.txt"
	q -c "CREATE INDEX ds_${ds}_btree ON ds_$ds (k)" || { last_err; exit 1; }
	q -c "CREATE INDEX ds_${ds}_artrie ON ds_$ds USING artrie (k)" || { last_err; exit 1; }
done

# lookup_join's keys, made for each dataset that lacks them.
for ds in $DATASETS; do
	[ "$(q -c "SELECT to_regclass('lkp_$ds') IS NOT NULL")" = t ] && continue
	q <<SQL || { last_err; exit 1; }
CREATE TABLE lkp_$ds AS
	SELECT CASE WHEN ord % 10 = 0 THEN k || '#' ELSE k END COLLATE "C" AS k
	FROM (SELECT k, row_number() OVER (ORDER BY md5(k)) AS ord
		FROM ds_$ds ORDER BY md5(k) LIMIT $NLOOKUP) s;
VACUUM ANALYZE lkp_$ds;
SQL
done

q <<'SQL' || { last_err; exit 1; }
-- bench_multi's queries, timed by the clock and by the backend's own CPU
-- time (the first field of /proc/self/schedstat, in ns): on a machine
-- shared with other jobs, the time a backend waits for a CPU is noise.
CREATE OR REPLACE FUNCTION pfx_multi(template text, vals text[])
RETURNS TABLE (ms double precision, cpu_ms double precision, result text)
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; c0 bigint; r text; s numeric := 0; v text;
BEGIN
	c0 := split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
	t0 := clock_timestamp();
	FOREACH v IN ARRAY vals LOOP
		EXECUTE format(template, v) INTO r;
		s := s + coalesce(r::numeric, 0);
	END LOOP;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000 / greatest(cardinality(vals), 1);
	cpu_ms := (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - c0) / 1e6 / greatest(cardinality(vals), 1);
	result := s::text;
	RETURN NEXT;
END $$;
SQL

NOSEQ="-c enable_seqscan=off -c enable_hashjoin=off -c enable_mergejoin=off"
METRICS=${PFX_METRICS:-count_like3 count_pfx3 like_rows3 seek_limit10}

# query METRIC DS: "TEMPLATE|VALUES_SQL" for bench_multi.  Short queries
# (words' prefixes cover about 100 keys each; a seek returns 10) run over
# their values 20 times in one measurement.
query() {
	local k=1
	case $1-$2 in count_*-words | count_*-bulgarian | like_rows3-words | like_rows3-bulgarian | seek_limit10-*) k=20 ;; esac
	case $1 in
	count_like3) echo "SELECT count(*) FROM ds_$2 WHERE k LIKE %L|SELECT bench_like(p) FROM pref_$2, generate_series(1, $k) WHERE n = 3 ORDER BY ord" ;;
	count_pfx3) echo "SELECT count(*) FROM ds_$2 WHERE k ^@ %L|SELECT p FROM pref_$2, generate_series(1, $k) WHERE n = 3 ORDER BY ord" ;;
	like_rows3) echo "SELECT count(id) FROM ds_$2 WHERE k LIKE %L|SELECT bench_like(p) FROM pref_$2, generate_series(1, $k) WHERE n = 3 ORDER BY ord" ;;
	seek_limit10) echo "SELECT count(*) FROM (SELECT k FROM ds_$2 WHERE k >= %L ORDER BY k LIMIT 10) s|SELECT s FROM seek_$2, generate_series(1, $k)" ;;
	lookup_join) echo "SELECT sum((SELECT count(t.id) FROM ds_$2 t WHERE t.k = p.k)) FROM lkp_$2 p WHERE %s|SELECT 'true' FROM generate_series(1, 2)" ;;
	esac
}

# measure BUILD ROUND: one pass over every dataset and metric, REPS timed
# runs per index (after a warm-up run of each); prints
# "build round ds metric idx ms result" lines.
measure() {
	local build=$1 round=$2 ds m tq tmpl vals lit
	for ds in $DATASETS; do
		for m in $METRICS; do
			tq=$(query "$m" "$ds")
			tmpl=${tq%%|*} vals=${tq#*|}
			lit=$(printf '%s' "$tmpl" | sed "s/'/''/g")
			PGOPTIONS="$NOSEQ" q <<SQL | sed "s/^/$build $round $ds $m /"
BEGIN;
CREATE TEMP TABLE ab (i int, idx text, ms float8, cpu float8, result text);
DO \$\$
DECLARE
	vals text[] := ARRAY($vals);
	ix text;
BEGIN
	FOR i IN 0..$REPS LOOP
		FOREACH ix IN ARRAY CASE WHEN i % 2 = 0 THEN ARRAY['btree', 'artrie'] ELSE ARRAY['artrie', 'btree'] END LOOP
			UPDATE pg_index SET indisvalid = (indexrelid = ('ds_${ds}_' || ix)::regclass)
				WHERE indexrelid IN ('ds_${ds}_btree'::regclass, 'ds_${ds}_artrie'::regclass);
			INSERT INTO ab SELECT i, ix, b.ms, b.cpu_ms, b.result FROM pfx_multi('$lit', vals) b;
		END LOOP;
	END LOOP;
END
\$\$;
SELECT idx, round(ms::numeric, 4), round(cpu::numeric, 4), result FROM ab WHERE i > 0 ORDER BY i, idx;
ROLLBACK;
SQL
		done
	done
}

# plans: the scan nodes of each index's plan for the first value.
say "before = $(git -C "$ARTRIE_SRC" rev-parse --short "$BEFORE") ($BEFORE), after = $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1 | sed 's/.*/ + uncommitted changes/')"
say "rounds $ROUNDS, reps $REPS; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ds in $DATASETS; do
	for m in $METRICS; do
		tq=$(query "$m" "$ds")
		tmpl=${tq%%|*} vals=${tq#*|}
		first=$(q -c "SELECT replace(format('$(printf '%s' "$tmpl" | sed "s/'/''/g")', v), '''', '''''') FROM ($vals) s(v) LIMIT 1")
		for idx in btree artrie; do
			other=$([ "$idx" = btree ] && echo artrie || echo btree)
			printf 'plan %s %s %s: %s\n' "$ds" "$m" "$idx" "$(PGOPTIONS="$NOSEQ" q <<SQL | tail -1
BEGIN;
UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${ds}_$other'::regclass;
SELECT bench_plan('$first');
ROLLBACK;
SQL
)"
		done
	done
done

OUT=$ARTRIE_TMP/prefix_scan.out
: >"$OUT"
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
	for b in $order; do
		bench_use_version "$b"
		if [ "${PFX_REINDEX:-0}" = 1 ]; then
			for ds in $DATASETS; do
				q -c "REINDEX INDEX ds_${ds}_artrie" || { last_err; exit 1; }
			done
		fi
		measure "$b" "$r" | tee -a "$OUT"
	done
done

# summary COLUMN TITLE: medians per build of one column of $OUT.
summary() {
	echo
	echo "$2: medians of ${ROUNDS}x$REPS runs (ms per query); ratio = artrie / btree"
	printf '%-7s %-13s %10s %10s %7s   %10s %10s %7s  %s\n' dataset metric btree_bef artrie_bef ratio btree_aft artrie_aft ratio check
	awk -v col="$1" '
function med(key,   n, i, j, t, a) {
	n = split(vals[key], a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	key = $1 SUBSEP $3 SUBSEP $4 SUBSEP $5
	vals[key] = vals[key] " " $col
	if (!(($3, $4) in seen)) { seen[$3, $4] = 1; order[++no] = $3 SUBSEP $4 }
	res[$3, $4, $5, $1] = $8
}
END {
	for (i = 1; i <= no; i++) {
		split(order[i], k, SUBSEP)
		bb = med("before" SUBSEP order[i] SUBSEP "btree"); ab = med("before" SUBSEP order[i] SUBSEP "artrie")
		ba = med("after" SUBSEP order[i] SUBSEP "btree"); aa = med("after" SUBSEP order[i] SUBSEP "artrie")
		chk = (res[k[1], k[2], "btree", "before"] == res[k[1], k[2], "artrie", "before"] && \
			res[k[1], k[2], "btree", "after"] == res[k[1], k[2], "artrie", "after"]) ? \
			"same (" res[k[1], k[2], "btree", "after"] ")" : "DIFFERENT"
		printf "%-7s %-13s %10.4f %10.4f %6.2fx   %10.4f %10.4f %6.2fx  %s\n", k[1], k[2], bb, ab, ab / bb, ba, aa, aa / ba, chk
	}
}' "$OUT"
}
summary 7 "backend CPU time"
summary 6 "wall clock"
