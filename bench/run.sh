#!/usr/bin/env bash
# artrie's benchmark suite: artrie (io_uring and mmap) against btree,
# SP-GiST, hash and pg_trgm on real data, side by side in one run.
#
#   bash bench/run.sh [quick|full|scale]      (as root on Debian 12)
#
# scale is bench/scale.sh (synth and paths at growing sizes against btree).
# Installs the Debian packages it needs, builds and installs artrie, starts
# a throwaway cluster (test/lib.sh) and writes
#   bench/results/<run>.tsv   dataset, index, metric, value, unit (+ '#' header)
#   bench/results/<run>.md    ratios to btree on COLLATE "C", then all values
#   docs/bench-*.png          plots (gnuplot)
# ARTRIE_BENCH_OUT=<dir> writes results/plots under <dir> instead of the
# repository.  bench/README.md says what each metric means.
# btree-C and artrie are measured in ARTRIE_BENCH_ROUNDS rounds (full: 3,
# quick: 1), alternating, and their rows are the medians (interleave in
# lib-bench.sh); their builds, exact-lookup TPS, prefix scans and seeks
# are then measured side by side (ARTRIE_BENCH_BUILD_PAIRS,
# ARTRIE_BENCH_TPS_PAIRS, ARTRIE_BENCH_SCAN_PAIRS pairs; side_by_side
# below).
# Only some rows: ARTRIE_BENCH_DATASETS (a subset of "words bulgarian paths
# synth") loads and measures those datasets alone; ARTRIE_BENCH_METRICS (an
# extended regular expression matched against whole metric names, such as
# 'lookup_tps_c2|like_rows_3') measures those metrics of btree-C and artrie
# alone (builds included; no other index kind, no writes, no fio, no SQL
# function baselines); ARTRIE_BENCH_PHASES="A" leaves phase B (mmap) out.
set -u

MODE=${1:-quick}
case "$MODE" in
quick | full) ;;
scale) exec bash "$(dirname "$0")/scale.sh" ;;
*)
	echo "usage: $0 [quick|full|scale]" >&2
	exit 2
	;;
esac

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

BENCH_OUT_DIR=${ARTRIE_BENCH_OUT:-$ARTRIE_SRC}
RUN=$(date -u +%Y%m%d-%H%M)-$MODE
# (a run of only some rows is named so)
[ -n "${ARTRIE_BENCH_METRICS:-}${ARTRIE_BENCH_DATASETS:-}" ] && RUN+=-rows
mkdir -p "$BENCH_OUT_DIR/bench/results" "$BENCH_OUT_DIR/docs"
TSV=$BENCH_OUT_DIR/bench/results/$RUN.tsv
MD=$BENCH_OUT_DIR/bench/results/$RUN.md
PERF_DIR=$BENCH_OUT_DIR/bench/results/$RUN-perf
: >"$TSV"
START_NS=$(now_ns)
LOAD_START=$(uptime)

# ---------------------------------------------------------------- scale
if [ "$MODE" = quick ]; then
	ROWS_WORDS=150000 ROWS_BG=150000 ROWS_PATHS=200000 ROWS_SYNTH=300000
	NPROBE=5000 NPREF=5 NSEEK=100 DUR=2 REPS=3 NBULK=50000 NCOLD=2000 NFUZZ=5 NPOF=200
	SB_WARM=$((1024 * 1048576)) ROUNDS=${ARTRIE_BENCH_ROUNDS:-1} TPS_PAIRS=${ARTRIE_BENCH_TPS_PAIRS:-1} TPS_DUR=2
	SCAN_PAIRS=${ARTRIE_BENCH_SCAN_PAIRS:-1}
	BUILD_PAIRS=${ARTRIE_BENCH_BUILD_PAIRS:-1} BUILD_MIN_MS=0 BUILD_MAX_MS=0
else
	ROWS_WORDS=0 ROWS_BG=0 ROWS_PATHS=1000000 ROWS_SYNTH=5000000 # 0: all
	NPROBE=50000 NPREF=20 NSEEK=500 DUR=5 REPS=3 NBULK=500000 NCOLD=10000 NFUZZ=20 NPOF=1000
	SB_WARM=$((4096 * 1048576)) ROUNDS=${ARTRIE_BENCH_ROUNDS:-3} TPS_PAIRS=${ARTRIE_BENCH_TPS_PAIRS:-5} TPS_DUR=3
	SCAN_PAIRS=${ARTRIE_BENCH_SCAN_PAIRS:-3}
	BUILD_PAIRS=${ARTRIE_BENCH_BUILD_PAIRS:-5} BUILD_MIN_MS=6000 BUILD_MAX_MS=15000
fi
SB_COLD=$((16 * 1048576))
DATASETS=${ARTRIE_BENCH_DATASETS:-words bulgarian paths synth}
METRICS=${ARTRIE_BENCH_METRICS:-}
PHASES=${ARTRIE_BENCH_PHASES:-A B}
COLD_DS=synth
KINDS_A="btree-C artrie-io_uring btree-pattern spgist hash trgm-gin"
[ -n "$METRICS" ] && KINDS_A="btree-C artrie-io_uring"
# want METRIC: is METRIC among those this run measures?
want() { [ -z "$METRICS" ] || [[ $1 =~ ^($METRICS)$ ]]; }

# ---------------------------------------------------------------- setup
ARTRIE_PACKAGES="$ARTRIE_PACKAGES gnuplot-nox fio linux-perf postgresql-$PG_MAJOR-prefix bc apt-file"
artrie_install_packages
artrie_make_tmp
BENCH_ERR=$ARTRIE_TMP/psql.err
: >"$BENCH_ERR"
[ "$(id -u)" = 0 ] && chown postgres: "$BENCH_ERR"

ARTRIE_SKIP=
COMMIT=${ARTRIE_COMMIT:-$(git -C "$ARTRIE_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)}
DIRTY=$(git -C "$ARTRIE_SRC" status --porcelain -- src sql Makefile 2>/dev/null | head -1)
# (A failed make is also caught in the log: on its private-install path
# artrie_build_install can return 0 after a failed build.)
if ! bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || grep -q '^make: \*\*\*' "$ARTRIE_TMP/build.log"; then
	ARTRIE_SKIP="build failed at $COMMIT: $( (grep -m1 -E 'error|Stop' "$ARTRIE_TMP/build.log" || tail -1 "$ARTRIE_TMP/build.log") | cut -c1-160)"
	say "artrie: $ARTRIE_SKIP"
fi

# ---------------------------------------------------------------- data
say "preparing the datasets"
D=$ARTRIE_TMP/data-files
mkdir -p "$D"
# sample FILE ROWS: ROWS lines evenly spread over FILE (0: all).
sample() {
	local n
	n=$(wc -l <"$1")
	if [ "$2" = 0 ] || [ "$n" -le "$2" ]; then
		cat "$1"
	else
		awk -v n="$n" -v r="$2" 'int(NR * r / n) > int((NR - 1) * r / n)' "$1"
	fi
}
# COPY text format: escape backslashes, tabs, carriage returns; drop
# invalid UTF-8.
copy_escape() { iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g'; }
cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
	copy_escape | LC_ALL=C sort -u >"$D/words.all"
copy_escape </usr/share/dict/bulgarian >"$D/bulgarian.all"
# paths: every file of Debian's packages for this release and architecture,
# from apt's Contents index (apt-file; about 1.6M paths for bookworm main
# amd64), else what find /usr gives on this machine.
contents_index() {
	ls -S /var/lib/apt/lists/*_main_Contents-"$(dpkg --print-architecture)".lz4 2>/dev/null | head -1
}
if [ -z "$(contents_index)" ] && [ "$(id -u)" = 0 ]; then
	apt-file update >/dev/null 2>&1 || say "apt-file update failed: paths come from find /usr"
fi
if [ -n "$(contents_index)" ]; then
	PATHS_SRC="$(basename "$(contents_index)" .lz4) (apt-file's index of every package's files: the path column, with a leading /)"
	/usr/lib/apt/apt-helper cat-file "$(contents_index)" |
		sed -E 's/[[:space:]]+[^[:space:]]+$//; s#^#/#' | copy_escape >"$D/paths.all"
else
	PATHS_SRC="find /usr -xdev on this machine"
	find /usr -xdev 2>/dev/null | copy_escape >"$D/paths.all"
fi
sample "$D/words.all" "$ROWS_WORDS" >"$D/words.txt"
sample "$D/bulgarian.all" "$ROWS_BG" >"$D/bulgarian.txt"
sample "$D/paths.all" "$ROWS_PATHS" >"$D/paths.txt"
chmod -R a+rX "$D"

# ---------------------------------------------------------------- cluster
EXTRA=(
	"max_wal_size = 16GB" "checkpoint_timeout = 1h" "maintenance_work_mem = 1GB"
	"work_mem = 64MB" "max_parallel_workers_per_gather = 0"
	"max_parallel_maintenance_workers = 0" "jit = off" "autovacuum = off"
	"statement_timeout = 300s" "include_if_exists = 'bench_profile.conf'"
)
# A library that builds may still fail to load (an undefined symbol while
# work is in progress): try a start first, in a subshell, and run without
# artrie if the server does not come up.
if [ -z "$ARTRIE_SKIP" ] &&
	! (trap - EXIT; artrie_start_cluster "${EXTRA[@]}" && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop) \
		>"$ARTRIE_TMP/preflight.log" 2>&1; then
	ARTRIE_SKIP="the server does not start with artrie preloaded at $COMMIT: $(grep -m1 -E 'FATAL|PANIC' "$ARTRIE_TMP/preflight.log" | sed 's/^.*\(FATAL\|PANIC\): *//' | cut -c1-200)"
	say "artrie: $ARTRIE_SKIP"
fi
rm -rf "$ARTRIE_TMP/data" "$ARTRIE_TMP/sock"
if [ -n "$ARTRIE_SKIP" ]; then
	EXTRA+=("shared_preload_libraries = ''")
fi
artrie_start_cluster "${EXTRA[@]}"
as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
q -c "CREATE EXTENSION pg_trgm; CREATE EXTENSION fuzzystrmatch" || { last_err; exit 1; }
bench_sql_helpers || { last_err; exit 1; }

HAVE_POOL_GUC= HAVE_BACKEND_GUC= HAVE_STATS= HAVE_CKPT= HAVE_PCOUNT= HAVE_COMPLETE= HAVE_FUZZY= HAVE_POF=
if [ -z "$ARTRIE_SKIP" ]; then
	if ! q -c "CREATE EXTENSION artrie"; then
		ARTRIE_SKIP="CREATE EXTENSION artrie failed: $(last_err)"
	fi
fi
if [ -z "$ARTRIE_SKIP" ]; then
	g() { [ -n "$(q -c "SELECT 1 FROM pg_settings WHERE name = '$1'")" ] && echo 1; }
	f() { [ "$(q -c "SELECT to_regprocedure('$1') IS NOT NULL")" = t ] && echo 1; }
	HAVE_POOL_GUC=$(g artrie.buffer_pool_size)
	HAVE_BACKEND_GUC=$(g artrie.io_backend)
	HAVE_STATS=$(f 'artrie_stats(regclass)')$(f 'artrie_stats(regclass,boolean)')
	HAVE_CKPT=$(f 'artrie_checkpoint()')
	HAVE_PCOUNT=$(f 'artrie_prefix_count(regclass,text)')
	HAVE_COMPLETE=$(f 'artrie_complete(regclass,text,integer)')
	HAVE_FUZZY=$(f 'artrie_fuzzy(regclass,text,integer,boolean)')
	HAVE_POF=$(f 'artrie_prefixes_of(regclass,text)')
	# Does the access method work at all?  A tiny index, used by force.
	if ! q <<'SQL' >"$ARTRIE_TMP/smoke.out"; then
CREATE TABLE smoke (k text COLLATE "C");
INSERT INTO smoke SELECT 'k' || g FROM generate_series(1, 1000) g;
CREATE INDEX smoke_artrie ON smoke USING artrie (k);
SET enable_seqscan = off;
SELECT count(*) FROM smoke WHERE k = 'k500';
SELECT count(*) FROM smoke WHERE k LIKE 'k5%';
DROP TABLE smoke;
SQL
		ARTRIE_SKIP="the AM does not work yet at $COMMIT: $(last_err)"
		server_ensure
		q -c "DROP TABLE IF EXISTS smoke" || true
	fi
fi
[ -n "$ARTRIE_SKIP" ] && say "artrie rows skipped: $ARTRIE_SKIP"

bench_profile io_uring "$SB_WARM" "$SB_WARM"

# ---------------------------------------------------------------- header
{
	echo "# artrie benchmark, run $RUN: bash bench/run.sh $MODE"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# load at start (uptime):$LOAD_START"
	echo "# machine: nproc=$(nproc), memory=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), cpu=$(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1), kernel=$(uname -r)"
	echo "# note: absolute figures are from this $(nproc)-core machine, shared with concurrent builds and tests: noisy; compare ratios within one run"
	echo "# postgresql: $(q -c 'SELECT version()')"
	echo "# settings: $(q -c "SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_parallel_workers_per_gather', 'max_parallel_maintenance_workers', 'jit', 'fsync', 'synchronous_commit', 'wal_level', 'max_wal_size', 'checkpoint_timeout', 'autovacuum', 'effective_io_concurrency', 'random_page_cost') OR name LIKE 'artrie.%'")"
	echo "# artrie: commit $COMMIT${DIRTY:+ (with uncommitted changes in src/)}; ${ARTRIE_SKIP:-index AM working}; functions:${HAVE_STATS:+ artrie_stats}${HAVE_CKPT:+ artrie_checkpoint}${HAVE_PCOUNT:+ artrie_prefix_count}${HAVE_COMPLETE:+ artrie_complete}${HAVE_FUZZY:+ artrie_fuzzy}${HAVE_POF:+ artrie_prefixes_of}"
	echo "# scale: $MODE; probes=$NPROBE (90% hits), prefixes per length=$NPREF, seeks=$NSEEK, pgbench -T $DUR, reps=$REPS (median), btree-C and artrie in $ROUNDS alternating rounds (median), bulk rows=$NBULK, cold probes=$NCOLD, cold shared_buffers/artrie pool=$((SB_COLD / 1048576))MB"
	echo "# timing: prefix scans, seeks and SQL functions per query = the median of passes (at least $MULTI_MIN_PASSES and ${MULTI_MIN_MS} ms, at most ${MULTI_MAX_MS} ms) after a warm-up pass, each pass by the clock less the backend's waits for a CPU; builds of btree-C and artrie: side by side, each in a session of its own, the two alternating, at least ${BUILD_PAIRS} pairs and ${BUILD_MIN_MS} ms, none begun after ${BUILD_MAX_MS} ms, each by the clock less the backend's waits for a CPU (0 pairs: in the rounds); exact-lookup TPS of btree-C and artrie: ${TPS_PAIRS} pairs of ${TPS_DUR}s pgbench runs side by side, their prefix scans and seeks: each query beside the same query on the other index in one backend, at least ${SCAN_PAIRS} rounds over the values (0: in the rounds)${METRICS:+; only the metrics matching $METRICS}${ARTRIE_BENCH_DATASETS:+; only the datasets $DATASETS}; phases $PHASES"
	echo "# datasets: words = american-english-insane + british-english-insane, deduplicated; bulgarian = /usr/share/dict/bulgarian; paths = $PATHS_SRC (invalid UTF-8 dropped); synth = 'user/<hash(n)>/item/<n>' from generate_series; a dataset larger than its scale's row count is sampled evenly"
	echo "# each index is alone on its table while measured (created, measured, dropped); seqscan, hash and merge joins disabled; the plan's scan nodes are recorded as 'plan' rows, results as 'check' rows"
	echo "dataset	index	metric	value	unit"
} >>"$TSV"

# ---------------------------------------------------------------- fio
[ -z "$METRICS" ] && say "fio on the disk under $ARTRIE_TMP (the physical limit)"
fio_run() { # METRIC UNIT PERL-EXPRESSION-ON-$w FIO-ARGS...
	local metric=$1 unit=$2 expr=$3 out
	shift 3
	out=$(fio --name=b --directory="$ARTRIE_TMP" --size=256M --runtime="$DUR" --time_based \
		--output-format=json "$@" 2>/dev/null |
		perl -MJSON::PP -e 'local $/; my $w = decode_json(<STDIN>)->{jobs}[0]; printf "%.1f\n", '"$expr") || out=
	if [ -n "$out" ]; then
		emit disk fio "$metric" "$out" "$unit"
	else
		skip disk fio "$metric" "fio failed"
	fi
}
if [ -z "$METRICS" ]; then
	fio_run seqwrite_direct_bw MiB/s '$w->{write}{bw} / 1024' --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=8
	fio_run randread_qd1_8k_lat us '$w->{read}{clat_ns}{mean} / 1000' --rw=randread --bs=8k --direct=1 --ioengine=psync
	fio_run fdatasync_8k_lat us '$w->{sync}{lat_ns}{mean} / 1000' --rw=write --bs=8k --fdatasync=1 --ioengine=sync
	rm -f "$ARTRIE_TMP"/b.*
fi

# ---------------------------------------------------------------- load
say "loading the datasets"
for ds in $DATASETS; do
	bench_load_dataset "$ds" "$D/$ds.txt"
	emit "$ds" - rows "$(q -c "SELECT count(*) FROM ds_$ds")" rows
	emit "$ds" - key_bytes_avg "$(q -c "SELECT round(avg(octet_length(k)), 1) FROM ds_$ds")" B
	emit "$ds" - heap_size "$(q -c "SELECT round(pg_relation_size('ds_$ds') / 1048576.0, 2)")" MiB
done
chmod a+r "$ARTRIE_TMP"/*.sql

NOSEQ="-c enable_seqscan=off -c enable_hashjoin=off -c enable_mergejoin=off"

# Baselines of the SQL functions (issue 7), which need no index of ours:
# fuzzy search by brute force (fuzzystrmatch over every word), and
# "which stored keys are prefixes of this value" with the prefix
# extension's GiST index (keys with [ or ] left out: its input syntax).
FUZZ_TERMS="SELECT k FROM probe_words WHERE pid <= $NFUZZ ORDER BY pid"
FUZZ_SUM=()
POF_VALUES="SELECT k || '/zz' FROM probe_paths WHERE k !~ '[][]' AND pid <= $NPOF ORDER BY pid"
if [ -z "$METRICS" ]; then
	say "baselines of the SQL functions"
	for d in 1 2; do
		SQL_OUT=
		multi_sql words levenshtein-scan "fuzzy_d$d" "SELECT count(*) FROM ds_words WHERE levenshtein_less_equal(k, %L, $d) <= $d" "$FUZZ_TERMS"
		FUZZ_SUM[$d]=${SQL_OUT#*$'\t'}
	done
fi
if [ -z "$METRICS" ] && q -c "CREATE EXTENSION prefix" && q <<'SQL'; then
CREATE TABLE pfx_paths AS SELECT k::prefix_range AS p FROM ds_paths WHERE k !~ '[][]';
CREATE INDEX pfx_paths_gist ON pfx_paths USING gist (p);
VACUUM ANALYZE pfx_paths;
SQL
	PGOPTIONS="$NOSEQ" multi_sql paths prefix-gist prefixes_of "SELECT count(*) FROM pfx_paths WHERE p @> %L::prefix_range" "$POF_VALUES"
elif [ -z "$METRICS" ]; then
	skip paths prefix-gist prefixes_of "$(last_err)"
fi

# ---------------------------------------------------------------- measure
# measure_index DATASET KIND: build, size, lookups, prefixes, seeks, cold.
measure_index() {
	local ds=$1 kind=$2 name t0 bytes rows n m
	name=$(printf '%s_%s' "$ds" "$kind" | tr 'A-Z-' 'a-z_')
	if [ "${kind%%-*}" = artrie ] && [ -n "$ARTRIE_SKIP" ]; then
		skip "$ds" "$kind" all "$ARTRIE_SKIP"
		return 0
	fi
	say "$ds: $kind"
	# In rounds that side_by_side follows (PAIRED set) the build row is
	# its (build_pairs); with BENCH_COMPARE the rounds' is kept as
	# build@rounds.
	local bsfx=
	[ -n "${PAIRED:-}" ] && build_paired && bsfx=$(paired_suffix)
	q -c "DROP INDEX IF EXISTS $name" || true
	sync
	t0=$(now_ns)
	if ! q -c "$(index_ddl "$kind" "$name" "ds_$ds")"; then
		skip "$ds" "$kind" build "$(last_err)"
		server_ensure
		return 0
	fi
	[ "$bsfx" != none ] && emit "$ds" "$kind" "build$bsfx" "$(ms_since "$t0")" ms
	if bytes=$(index_bytes "$name" "$kind"); then
		rows=$(q -c "SELECT reltuples::bigint FROM pg_class WHERE relname = 'ds_$ds'")
		emit "$ds" "$kind" size "$(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1048576 }')" MiB
		emit "$ds" "$kind" size_per_key "$(awk -v b="$bytes" -v r="$rows" 'BEGIN { printf "%.2f", b / r }')" B/key
	else
		skip "$ds" "$kind" size "$(last_err)"
	fi
	if [ "${kind%%-*}" = artrie ] && [ -d "$PGDATA/artrie" ]; then
		emit "$ds" "$kind" size "$(du -sb --exclude=control "$PGDATA/artrie" | cut -f1)" "check (bytes: du -b of \$PGDATA/artrie without its control file)"
	fi

	export PGOPTIONS="$NOSEQ"
	# pg_trgm's equality lookups are two to four orders of magnitude
	# slower: 200 probes, once, keep the run's time bounded.
	local np=$NPROBE reps=$REPS
	[ "$kind" = trgm-gin ] && np=200 reps=1
	want lookup_join && time_sql "$ds" "$kind" lookup_join us/probe "$np" "$reps" \
		"SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p WHERE pid <= $np"
	if { [ "$ds" = words ] || [ "$ds" = paths ]; } && [ "${ROUND:-1}" = 1 ] && [ -z "$METRICS" ]; then
		case "$kind" in btree-C | artrie-*)
			perf_profile "$ds" "$kind" lookup_join "SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p"
			;;
		esac
	fi
	emit "$ds" "$kind" lookup_tps "$(q -c "SELECT bench_plan('SELECT id FROM ds_$ds WHERE k = (SELECT k FROM pb_$ds WHERE pid = 1)')")" plan
	# In rounds that side_by_side follows (PAIRED set) the TPS rows (and
	# the prefix-scan and seek rows) are its; with BENCH_COMPARE they are
	# also measured here, as METRIC@rounds.
	local sfx= ssfx=
	[ -n "${PAIRED:-}" ] && [ "$TPS_PAIRS" -gt 0 ] && sfx=$(paired_suffix)
	[ -n "${PAIRED:-}" ] && [ "$SCAN_PAIRS" -gt 0 ] && ssfx=$(paired_suffix)
	if [ "$sfx" != none ]; then
		want lookup_tps_c1 && run_pgbench "$ds" "$kind" "lookup_tps_c1$sfx" 1 "$DUR" -f "$ARTRIE_TMP/lookup_$ds.sql"
		want lookup_tps_c2 && run_pgbench "$ds" "$kind" "lookup_tps_c2$sfx" 2 "$DUR" -f "$ARTRIE_TMP/lookup_$ds.sql"
	fi
	if kind_prefix "$kind"; then
		for n in 1 2 3 5 8; do
			for m in "prefix_count_$n" "like_rows_$n"; do
				[ "$ssfx" != none ] && want "$m" && scan_query "$ds" "$m" &&
					multi_sql "$ds" "$kind" "$m$ssfx" "$SCAN_TMPL" "$SCAN_VALS"
			done
			if [ "${kind%%-*}" = artrie ] && [ -n "$HAVE_PCOUNT" ] && want "prefix_fn_$n"; then
				multi_sql "$ds" "$kind" "prefix_fn_$n" "SELECT artrie_prefix_count('$name', %L)" \
					"SELECT p FROM pref_$ds WHERE n = $n ORDER BY ord"
			fi
		done
		for n in 1 3; do
			want "complete10_$n" || continue
			if [ "${kind%%-*}" = artrie ] && [ -n "$HAVE_COMPLETE" ]; then
				multi_sql "$ds" "$kind" "complete10_$n" "SELECT count(*) FROM artrie_complete('$name', %L, 10)" \
					"SELECT p FROM pref_$ds WHERE n = $n ORDER BY ord"
			elif [ "$kind" = btree-C ]; then
				multi_sql "$ds" "$kind" "complete10_$n" "SELECT count(*) FROM (SELECT DISTINCT k FROM ds_$ds WHERE k LIKE %L ORDER BY k LIMIT 10) s" \
					"SELECT bench_like(p) FROM pref_$ds WHERE n = $n ORDER BY ord"
			fi
		done
	fi
	[ -z "$METRICS" ] && measure_functions "$ds" "$kind" "$name"
	if kind_order "$kind" && want seek_limit10 && [ "$ssfx" != none ] && scan_query "$ds" seek_limit10; then
		multi_sql "$ds" "$kind" "seek_limit10$ssfx" "$SCAN_TMPL" "$SCAN_VALS"
	fi
	if ! kind_order "$kind" && want seek_limit10; then
		skip "$ds" "$kind" seek_limit10 "not run: $kind has no ordered scan in COLLATE \"C\" order (each query would scan and sort the table)"
	fi
	if [ "$ds" = "$COLD_DS" ] && [ "$kind" != trgm-gin ] && [ "$kind" != btree-pattern ] && want lookup_cold; then
		measure_cold "$ds" "$kind" "$name"
	fi
	unset PGOPTIONS
	q -c "DROP INDEX IF EXISTS $name" || { skip "$ds" "$kind" drop "$(last_err)"; server_ensure; }
}

# paired_suffix: what measure_index appends to the name of a row that
# side_by_side measures: "none" (leave it out), or with BENCH_COMPARE
# "@rounds" (measure it in the rounds too, under that name).
paired_suffix() {
	if [ -n "${BENCH_COMPARE:-}" ]; then echo @rounds; else echo none; fi
}

# build_paired: does side_by_side measure the build rows (build_pairs)?
build_paired() {
	[ "$BUILD_PAIRS" -gt 0 ] && want build && [ -z "$ARTRIE_SKIP" ]
}

# The rows scan_query knows, which side_by_side measures.
SCAN_METRICS="prefix_count_1 prefix_count_2 prefix_count_3 prefix_count_5 prefix_count_8
	like_rows_1 like_rows_2 like_rows_3 like_rows_5 like_rows_8 seek_limit10"

# scan_query DATASET METRIC: the query template (SCAN_TMPL, for
# multi_sql, on table ds_DATASET) and the query that yields its values
# (SCAN_VALS) of a prefix-scan or seek row; returns 1 for another metric.
scan_query() {
	local ds=$1 m=$2
	case "$m" in
	prefix_count_*) SCAN_TMPL="SELECT count(*) FROM ds_$ds WHERE k LIKE %L" ;;
	like_rows_*) SCAN_TMPL="SELECT count(id) FROM ds_$ds WHERE k LIKE %L" ;;
	seek_limit10)
		SCAN_TMPL="SELECT count(*) FROM (SELECT k FROM ds_$ds WHERE k >= %L ORDER BY k LIMIT 10) s"
		SCAN_VALS="SELECT s FROM seek_$ds"
		return 0
		;;
	*) return 1 ;;
	esac
	SCAN_VALS="SELECT bench_like(p) FROM pref_$ds WHERE n = ${m##*_} ORDER BY ord"
}

# side_by_side DATASET KIND_A KIND_B: rows of two index kinds measured
# side by side, KIND_A's index on ds_DATASET, KIND_B's on twin_DATASET (a
# copy: the same rows in the same order, vacuumed and analyzed; made once
# and kept for the next phase), both built first (the build rows:
# build_pairs, whose last pair's indexes these are) and warmed up by
# lookup_join's query (every probe looked up once on each side).  The
# exact-lookup TPS (lookup_tps_c1, lookup_tps_c2): for each client count
# TPS_PAIRS pairs of TPS_DUR-second pgbench runs, the two alternating (A
# B, B A, ...), so that the two runs of a pair see the same load; each
# run also records the backends' CPU time per transaction (lookup_cpu_c1,
# lookup_cpu_c2; run_pgbench); each kind's row is the median of its runs
# (with a note listing them), KIND_B's ratio rows the medians of the
# pairs' ratios B / A.  The prefix-scan and seek rows: pair_sql, each
# query of the one index beside the same query of the other in one
# backend, at least SCAN_PAIRS rounds over the values, so that a slow
# spell of the machine (a vCPU at a third of its speed for seconds)
# falls on both queries of a pair rather than on one index's round.
side_by_side() {
	local ds=$1 a=$2 b=$3 c p kind na nb script m n
	local tps=0 scans=0 builds=0
	[ "$TPS_PAIRS" -gt 0 ] && { want lookup_tps_c1 || want lookup_tps_c2; } && tps=1
	[ "$SCAN_PAIRS" -gt 0 ] && for m in $SCAN_METRICS; do
		want "$m" && scans=1
	done
	build_paired && builds=1
	[ "$tps$scans$builds" != 000 ] || return 0
	if [ -n "$ARTRIE_SKIP" ]; then
		skip "$ds" "$b" side_by_side "$ARTRIE_SKIP"
		return 0
	fi
	say "$ds: $a and $b side by side ($TPS_PAIRS pairs of ${TPS_DUR}s pgbench runs, $SCAN_PAIRS pairs of scans, $([ "$builds" = 1 ] && echo "at least $BUILD_PAIRS" || echo no) pairs of builds)"
	na=$(printf '%s_%s' "$ds" "$a" | tr 'A-Z-' 'a-z_')
	nb=$(printf '%s_%s' "$ds" "$b" | tr 'A-Z-' 'a-z_')
	sed "s/\bds_$ds\b/twin_$ds/" "$ARTRIE_TMP/lookup_$ds.sql" >"$ARTRIE_TMP/lookup_twin_$ds.sql"
	chmod a+r "$ARTRIE_TMP/lookup_twin_$ds.sql"
	if ! q <<SQL; then
CREATE TABLE IF NOT EXISTS twin_$ds AS SELECT * FROM ds_$ds ORDER BY id;
VACUUM ANALYZE twin_$ds;
DROP INDEX IF EXISTS $na;
DROP INDEX IF EXISTS $nb;
SQL
		skip "$ds" "$b" side_by_side "$(last_err)"
		server_ensure
		return 0
	fi
	if [ "$builds" = 1 ]; then
		build_pairs "$ds" "$a" "$b" "$na" "$nb" || return 0
	elif ! q -c "$(index_ddl "$a" "$na" "ds_$ds")" -c "$(index_ddl "$b" "$nb" "twin_$ds")"; then
		skip "$ds" "$b" side_by_side "$(last_err)"
		server_ensure
		q -c "DROP INDEX IF EXISTS $na" -c "DROP INDEX IF EXISTS $nb" || true
		return 0
	fi
	export PGOPTIONS="$NOSEQ"
	[ "$tps$scans" = 00 ] ||
		q -c "SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p" \
			-c "SELECT sum((SELECT count(t.id) FROM twin_$ds t WHERE t.k = p.k)) FROM probe_$ds p" >/dev/null ||
		{ skip "$ds" "$b" side_by_side "warm-up: $(last_err)"; server_ensure; }
	ROUND_FILE=$ARTRIE_TMP/pairs.tsv
	: >"$ROUND_FILE"
	if [ "$tps" = 1 ]; then
		emit "$ds" "$a" lookup_tps "$(q -c "SELECT bench_plan('SELECT id FROM ds_$ds WHERE k = (SELECT k FROM pb_$ds WHERE pid = 1)')")" plan
		emit "$ds" "$b" lookup_tps "$(q -c "SELECT bench_plan('SELECT id FROM twin_$ds WHERE k = (SELECT k FROM pb_$ds WHERE pid = 1)')")" plan
	fi
	for c in 1 2; do
		[ "$tps" = 1 ] && want "lookup_tps_c$c" || continue
		for p in $(seq 1 "$TPS_PAIRS"); do
			emit "$ds" "$a" load_1min "$(cut -d' ' -f1 /proc/loadavg)" load
			for kind in $([ $((p % 2)) = 1 ] && echo "$a $b" || echo "$b $a"); do
				script=$ARTRIE_TMP/lookup_$ds.sql
				[ "$kind" = "$b" ] && script=$ARTRIE_TMP/lookup_twin_$ds.sql
				PGBENCH_CPU_METRIC=lookup_cpu_c$c run_pgbench "$ds" "$kind" "lookup_tps_c$c" "$c" "$TPS_DUR" -f "$script"
			done
		done
		pair_ratios "$ds" "$a" "$b" "lookup_tps_c$c" tps
		pair_ratios "$ds" "$a" "$b" "lookup_cpu_c$c" us/tx
	done
	for m in $SCAN_METRICS; do
		[ "$scans" = 1 ] && want "$m" && scan_query "$ds" "$m" || continue
		[ "$m" = seek_limit10 ] && { kind_order "$a" && kind_order "$b" || continue; }
		ROUNDS_MIN=$SCAN_PAIRS pair_sql "$ds" "$a" "$b" "$m" "$SCAN_TMPL" "${SCAN_TMPL//ds_$ds/twin_$ds}" "$SCAN_VALS"
	done
	rounds_collapse "runs side by side"
	unset PGOPTIONS
	q -c "DROP INDEX IF EXISTS $na" -c "DROP INDEX IF EXISTS $nb" || { skip "$ds" "$b" drop "$(last_err)"; server_ensure; }
}

# rounds_and_pairs DATASET KIND_A KIND_B: the two kinds' interleaved
# rounds, then (TPS_PAIRS, SCAN_PAIRS or BUILD_PAIRS above 0) the rows
# they measure side by side (side_by_side).
rounds_and_pairs() {
	if [ "$TPS_PAIRS" -gt 0 ] || [ "$SCAN_PAIRS" -gt 0 ] || [ "$BUILD_PAIRS" -gt 0 ]; then
		PAIRED=1 interleave "$ROUNDS" measure_index "$@"
		side_by_side "$@"
	else
		interleave "$ROUNDS" measure_index "$@"
	fi
}

# The SQL functions against their baselines: fuzzy search (words) with
# artrie_fuzzy and with pg_trgm's similarity (time and recall against the
# brute-force counts), prefixes-of (paths) with artrie_prefixes_of.
measure_functions() {
	local ds=$1 kind=$2 name=$3 d out
	if [ "$ds" = words ] && [ "$kind" = trgm-gin ]; then
		multi_sql words "$kind" fuzzy_trgm "SELECT count(*) FROM ds_words WHERE k %% %L" "$FUZZ_TERMS"
		out=$(q -c "SELECT sum(c1), sum(c2) FROM ($FUZZ_TERMS) t(term), LATERAL (SELECT count(*) FILTER (WHERE levenshtein(k, term) <= 1) c1, count(*) FILTER (WHERE levenshtein(k, term) <= 2) c2 FROM ds_words WHERE k % term) s") &&
			for d in 1 2; do
				emit words "$kind" "recall_d$d" "$(awk -v f="$(echo "$out" | cut -f$d)" -v t="${FUZZ_SUM[$d]:-0}" 'BEGIN { if (t > 0) printf "%.3f", f / t; else print "?" }')" "share of brute force"
			done
	fi
	[ "${kind%%-*}" = artrie ] || return 0
	if [ "$ds" = words ] && [ -n "$HAVE_FUZZY" ]; then
		for d in 1 2; do
			multi_sql words "$kind" "fuzzy_d$d" "SELECT count(*) FROM artrie_fuzzy('$name', %L, $d)" "$FUZZ_TERMS"
			emit words "$kind" "recall_d$d" "$(awk -v f="${SQL_OUT#*$'\t'}" -v t="${FUZZ_SUM[$d]:-0}" 'BEGIN { if (t > 0) printf "%.3f", f / t; else print "?" }')" "share of brute force"
		done
	fi
	if [ "$ds" = paths ] && [ -n "$HAVE_POF" ]; then
		multi_sql paths "$kind" prefixes_of "SELECT count(*) FROM artrie_prefixes_of('$name', %L)" "$POF_VALUES"
	fi
}

# Cold cache: a small shared_buffers and artrie pool, a restart, the OS
# cache dropped (root only), then NCOLD probes once.
measure_cold() {
	local ds=$1 kind=$2 name=$3 qry out
	qry="SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p WHERE pid <= $NCOLD"
	emit "$ds" "$kind" lookup_cold "$(q -c "SELECT bench_plan('$qry')")" plan
	bench_profile "$PHASE_BACKEND" "$SB_COLD" "$SB_COLD"
	sync
	if [ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
		emit "$ds" "$kind" lookup_cold "OS cache dropped" note
	else
		emit "$ds" "$kind" lookup_cold "skipped: OS cache drop (not root or not allowed)" note
	fi
	if out=$(q -c "SELECT ms FROM bench_time('$qry', 1)"); then
		emit "$ds" "$kind" lookup_cold "$(awk -v m="$out" -v n="$NCOLD" 'BEGIN { printf "%.3f", m * 1000 / n }')" us/probe
	else
		skip "$ds" "$kind" lookup_cold "$(last_err)"
		server_ensure
	fi
	bench_profile "$PHASE_BACKEND" "$SB_WARM" "$SB_WARM"
}

# Writes: single-row insert commits (1 and 8 clients), a mixed read/write
# pgbench, a bulk insert, checkpoint flush time, recovery after a crash.
measure_writes() {
	local kind=$1 ds=ins name t0 out
	name=ins_$(printf '%s' "$kind" | tr 'A-Z-' 'a-z_')
	if [ "${kind%%-*}" = artrie ] && [ -n "$ARTRIE_SKIP" ]; then
		skip "$ds" "$kind" all "$ARTRIE_SKIP"
		return 0
	fi
	say "writes: $kind"
	q <<SQL || { skip "$ds" "$kind" setup "$(last_err)"; server_ensure; return 0; }
DROP TABLE IF EXISTS ins_t;
CREATE TABLE ins_t (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ins_t (k) SELECT k FROM ds_words;
VACUUM ANALYZE ins_t;
SQL
	if ! q -c "$(index_ddl "$kind" "$name" ins_t)"; then
		skip "$ds" "$kind" build "$(last_err)"
		server_ensure
		return 0
	fi
	export PGOPTIONS="$NOSEQ"
	emit "$ds" "$kind" mixed_tps_c2 "$(q -c "SELECT bench_plan('SELECT id FROM ins_t WHERE k = (SELECT k FROM pb_words WHERE pid = 1)')")" plan
	run_pgbench "$ds" "$kind" insert_tps_c1 1 "$DUR" -f "$ARTRIE_TMP/insert.sql"
	run_pgbench "$ds" "$kind" insert_tps_c8 8 "$DUR" -f "$ARTRIE_TMP/insert.sql"
	run_pgbench "$ds" "$kind" mixed_tps_c2 2 "$DUR" -f "$ARTRIE_TMP/mixed_read.sql@8" -f "$ARTRIE_TMP/insert.sql@2"
	t0=$(now_ns)
	if q -c "INSERT INTO ins_t (k) SELECT 'bulk/' || md5(g::text) FROM generate_series(1, $NBULK) g"; then
		emit "$ds" "$kind" bulk_insert "$(awk -v m="$(ms_since "$t0")" -v n="$NBULK" 'BEGIN { printf "%.3f", m * 1000 / n }')" us/row
	else
		skip "$ds" "$kind" bulk_insert "$(last_err)"
		server_ensure
	fi
	if [ "${kind%%-*}" = artrie ]; then
		if [ -n "$HAVE_CKPT" ]; then
			t0=$(now_ns)
			if q -c "SELECT artrie_checkpoint()" >/dev/null; then
				emit "$ds" "$kind" artrie_checkpoint "$(ms_since "$t0")" ms
			else
				skip "$ds" "$kind" artrie_checkpoint "$(last_err)"
				server_ensure
			fi
		else
			skip "$ds" "$kind" artrie_checkpoint "artrie_checkpoint() does not exist yet"
		fi
	fi
	t0=$(now_ns)
	q -c "CHECKPOINT" && emit "$ds" "$kind" pg_checkpoint "$(ms_since "$t0")" ms
	# Recovery: NBULK more committed rows, then a crash (immediate stop)
	# and a timed start.
	if q -c "INSERT INTO ins_t (k) SELECT 'bulk2/' || md5(g::text) FROM generate_series(1, $NBULK) g"; then
		as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1
		t0=$(now_ns)
		if as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null; then
			emit "$ds" "$kind" recovery "$(ms_since "$t0")" ms
			if out=$(q -c "SELECT count(*) FROM generate_series(1, 1000) g WHERE EXISTS (SELECT 1 FROM ins_t WHERE k = 'bulk2/' || md5(g::text))"); then
				emit "$ds" "$kind" recovery "$out" "check (of 1000)"
			else
				skip "$ds" "$kind" recovery "the lookups after the restart failed: $(last_err)"
				server_ensure
			fi
		else
			skip "$ds" "$kind" recovery "server did not start: $(tail -1 "$ARTRIE_TMP/server.log")"
			server_ensure
		fi
	else
		skip "$ds" "$kind" recovery "$(last_err)"
		server_ensure
	fi
	unset PGOPTIONS
	q -c "DROP TABLE ins_t" || { server_ensure; q -c "DROP TABLE IF EXISTS ins_t" || true; }
}

printf '\\set r random(1, 1000000000)\nINSERT INTO ins_t (k) VALUES (%s);\n' "'ins/' || :client_id || '/' || :r" >"$ARTRIE_TMP/insert.sql"
printf '\\set p random(1, %s)\nSELECT id FROM ins_t WHERE k = (SELECT k FROM pb_words WHERE pid = :p);\n' "$NPROBE" >"$ARTRIE_TMP/mixed_read.sql"
chmod a+r "$ARTRIE_TMP"/*.sql

# interleave's form of measure_writes (which needs no dataset).
writes_of() { measure_writes "$2"; }

say "phase A: every index kind, artrie on io_uring ($ROUNDS rounds of btree-C and artrie)"
PHASE_BACKEND=io_uring
[ -n "$HAVE_BACKEND_GUC" ] && emit - artrie-io_uring io_backend "$(q -c 'SHOW artrie.io_backend')" setting
for ds in $DATASETS; do
	for kind in $KINDS_A; do
		case "$kind" in
		btree-C) rounds_and_pairs "$ds" btree-C artrie-io_uring ;;
		artrie-io_uring) ;;
		*) measure_index "$ds" "$kind" ;;
		esac
	done
done
[ -n "$METRICS" ] && KINDS_W= || KINDS_W=$KINDS_A
for kind in $KINDS_W; do
	case "$kind" in
	btree-C) interleave "$ROUNDS" writes_of - btree-C artrie-io_uring ;;
	artrie-io_uring) ;;
	*) measure_writes "$kind" ;;
	esac
done

say "phase B: artrie on mmap (after a restart)"
PHASE_BACKEND=mmap
if [[ " $PHASES " != *" B "* ]]; then
	say "phase B left out (ARTRIE_BENCH_PHASES=$PHASES)"
elif [ -n "$ARTRIE_SKIP" ]; then
	skip - artrie-mmap all "$ARTRIE_SKIP"
elif [ -z "$HAVE_BACKEND_GUC" ]; then
	skip - artrie-mmap all "artrie.io_backend does not exist yet"
else
	bench_profile mmap "$SB_WARM" "$SB_WARM"
	emit - artrie-mmap io_backend "$(q -c 'SHOW artrie.io_backend')" setting
	for ds in $DATASETS; do
		if [ "$ROUNDS" -gt 1 ]; then
			rounds_and_pairs "$ds" btree-C-mmap-phase artrie-mmap
		else
			measure_index "$ds" artrie-mmap
		fi
	done
	[ -z "$METRICS" ] && interleave "$ROUNDS" writes_of - artrie-mmap btree-C-mmap-phase
fi

emit - - elapsed "$(awk -v m="$(ms_since "$START_NS")" 'BEGIN { printf "%.0f", m / 1000 }')" s
echo "# load at end (uptime):$(uptime)" >>"$TSV"
say "report"
bench_report "$TSV" "$MD" "$BENCH_OUT_DIR/docs" "$RUN"
say "done: $TSV, $MD, $BENCH_OUT_DIR/docs/bench-*.png"
