#!/usr/bin/env bash
# Where a CREATE INDEX of many keys spends its time, artrie (two versions)
# against btree: the scale run's builds, profiled.
#
#   ARTRIE_BASE=<git ref> bash bench/build_scale.sh     (as root, Debian 12)
#
# One cluster with the scale run's settings (bench/scale.sh: shared_buffers
# and artrie.buffer_pool_size 256 MB, maintenance_work_mem 1GB,
# max_parallel_maintenance_workers 0; no checkpoint by time, autovacuum
# off, io_uring).  For each size of BS_SIZES (default "10000000
# 50000000") a table of synth keys ('user/<hash(n)>/item/<n>', as the
# scale run's) is loaded, then built on, each in a session of its own:
# btree (COLLATE "C"), artrie as this working tree ("after") and, with
# ARTRIE_BASE, as that revision ("before"; the server restarted with its
# library), the index dropped after each; BS_ARTRIE_MEM (default "1GB")
# lists the maintenance_work_mem values each artrie version builds under
# (e.g. "1GB 256MB": in memory and in sorted runs at 10M keys).  Per build: the wall time, the
# backend's CPU (user, system), its wait for a CPU and its bytes read and
# written (/proc/<pid>/stat, schedstat, io), the phases of
# pg_stat_progress_create_index as polled every 0.5 s, the trace_sort
# lines (the sort's runs: tuplesort's for btree, artrie's own runs), and
# with BS_PERF=1 (default) a perf profile (perf record -g -e cpu-clock
# of the backend; the VM has no PMU), summarised flat by symbol.
# Output: bench/results/build50-<date>.txt (ARTRIE_BENCH_OUT=<dir> for
# another directory); the cluster is removed at the end (ARTRIE_KEEP=1
# keeps it).
set -u

SIZES=${BS_SIZES:-10000000 50000000}
BASE=${ARTRIE_BASE:-}
PERF=${BS_PERF:-1}
MEMS=${BS_ARTRIE_MEM:-1GB}
OUT_DIR=${ARTRIE_BENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

[ "$(id -u)" = 0 ] || { echo "$0: run as root" >&2; exit 2; }
export ARTRIE_PRIVATE_INSTALL=1
mkdir -p "$OUT_DIR"
OUT=$OUT_DIR/build50-$(date -u +%Y%m%d-%H%M).txt
CONF=("shared_buffers = 256MB" "artrie.buffer_pool_size = 256MB"
	"maintenance_work_mem = 1GB" "max_parallel_maintenance_workers = 0"
	"max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off"
	"jit = off" "log_checkpoints = on" "log_line_prefix = '%m [%p] '")
if [ -n "$BASE" ]; then
	bench_builds_cluster "$BASE" "${CONF[@]}"
	VERSIONS="before after"
else
	bench_scratch ""
	bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
	bench_build_version after >>"$ARTRIE_TMP/build.log" 2>&1
	artrie_start_cluster "${CONF[@]}"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
	q -c "CREATE EXTENSION artrie" || { last_err; exit 1; }
	VERSIONS="after"
fi
CURRENT=after

{
	echo "# bash bench/build_scale.sh (ARTRIE_BASE=${BASE:-none}$([ -n "$BASE" ] && echo ": $(git -C "$ARTRIE_SRC" rev-parse --short "$BASE")"); after = $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)$([ -n "$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1)" ] && echo +changes)), $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo "# sizes: $SIZES; settings: ${CONF[*]}"
	echo "# machine: nproc=$(nproc), load at start:$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT"

# use VERSION: the server runs that version of artrie.
use() {
	[ "$CURRENT" = "$1" ] && return 0
	bench_use_version "$1"
	CURRENT=$1
}

# proc_snap PID: "utime_ms stime_ms run_ns delay_ns read_bytes write_bytes".
proc_snap() {
	local st sc io
	st=$(cut -d' ' -f14,15 "/proc/$1/stat")
	sc=$(cut -d' ' -f1,2 "/proc/$1/schedstat")
	io=$(awk '/^read_bytes|^write_bytes/ { printf "%s ", $2 }' "/proc/$1/io")
	echo "$(echo "$st" | awk '{ printf "%d %d", $1 * 10, $2 * 10 }') $sc $io"
}

# build NAME DDL SIZE: one build in a session of its own, measured.
build() {
	local name=$1 ddl=$2 n=$3 pidf=$ARTRIE_TMP/build.pid sess pid t0 t1 before after perfpid
	local phases=$ARTRIE_TMP/phases.txt err=$ARTRIE_TMP/build.err data=$ARTRIE_TMP/perf.data
	rm -f "$pidf" "$data"
	q -c "CHECKPOINT" && sync
	as_pg "$PG_BIN/psql" -XAtq -d "$BENCH_DB" >"$ARTRIE_TMP/build.out" 2>"$err" <<SQL &
SELECT pg_backend_pid() \g $pidf
SELECT pg_sleep(1);
SET trace_sort = on;
\timing on
$ddl;
\timing off
SELECT pg_sleep(1);
SQL
	sess=$!
	for i in $(seq 1 100); do [ -s "$pidf" ] && break; sleep 0.05; done
	pid=$(cat "$pidf")
	before=$(proc_snap "$pid")
	if [ "$PERF" = 1 ]; then
		perf record -q -g -e cpu-clock -p "$pid" -o "$data" >/dev/null 2>&1 &
		perfpid=$!
	fi
	: >"$phases"
	t0=$(now_ns)
	local last="" ph
	while kill -0 "$sess" 2>/dev/null; do
		ph=$(q -c "SELECT coalesce(phase, '') FROM pg_stat_progress_create_index WHERE pid = $pid" 2>/dev/null)
		if [ -n "$ph" ] && [ "$ph" != "$last" ]; then
			echo "$(ms_since "$t0") $ph" >>"$phases"
			last=$ph
		fi
		if [ -z "$ph" ] && [ -n "$last" ] && [ "$last" != done ]; then
			after=$(proc_snap "$pid")
			t1=$(now_ns)
			echo "$(ms_since "$t0") done" >>"$phases"
			last=done
		fi
		sleep 0.5
	done
	wait "$sess"
	[ "$PERF" = 1 ] && { kill -INT "$perfpid" 2>/dev/null; wait "$perfpid" 2>/dev/null; }
	{
		echo
		echo "## $name, $n keys: $ddl"
		echo "$before" "$after" | awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 - 1 }')" '{
			printf "wall about %s s (polled, 0.5 s steps; the session sleeps 1 s first), CPU user %.1f s, system %.1f s, waiting for a CPU %.1f s, read %.0f MB, written %.0f MB\n",
				w, ($7 - $1) / 1000, ($8 - $2) / 1000, ($10 - $4) / 1e9, ($11 - $5) / 1e6, ($12 - $6) / 1e6 }'
		echo "phases (s since the session began polling; the build starts about 1 s in):"
		sed 's/^/  /' "$phases"
		echo "CREATE INDEX as psql timed it: $(grep '^Time:' "$ARTRIE_TMP/build.out" | tail -1)"
		echo "the server's log lines of the backend (trace_sort, checkpoints started by it) and errors:"
		{ grep -F "[$pid]" "$ARTRIE_TMP/server.log"; grep -v '^$' "$err"; } | sed 's/^/  /' | cut -c1-220
		if [ "${name%% *}" = artrie ]; then
			HAVE_STATS=1 index_bytes bs_idx artrie
		else
			index_bytes bs_idx btree
		fi | awk '{ printf "size: %.1f MB\n", $1 / 1e6 }'

		if [ "$PERF" = 1 ] && [ -s "$data" ]; then
			echo "perf (cpu-clock samples of the backend, flat, by symbol, >= 0.7%):"
			perf report -i "$data" --stdio --no-children --sort dso,symbol --percent-limit 0.7 -g none 2>/dev/null |
				grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//; s/^/  /' | head -40
		fi
	} >>"$OUT"
	tail -n 1 "$phases"
	q -c "DROP INDEX IF EXISTS bs_idx"
}

for n in $SIZES; do
	say "synth $n: loading"
	q <<SQL || { last_err; exit 1; }
DROP TABLE IF EXISTS sc;
CREATE TABLE sc (id bigint GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO sc (k) SELECT 'user/' || ((g::bigint * 48271) % ($n / 20 + 7)) || '/item/' || g
	FROM generate_series(1, $n) g;
VACUUM ANALYZE sc;
CHECKPOINT;
SQL
	echo "# synth $n: table $(q -c "SELECT pg_size_pretty(pg_relation_size('sc'))"), load$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT"
	say "synth $n: btree"
	build btree 'CREATE INDEX bs_idx ON sc (k COLLATE "C")' "$n"
	for v in $VERSIONS; do
		use "$v"
		for m in $MEMS; do
			say "synth $n: artrie $v, maintenance_work_mem $m"
			build "artrie $v, maintenance_work_mem $m" \
				"SET maintenance_work_mem = '$m'; CREATE INDEX bs_idx ON sc USING artrie (k)" "$n"
		done
	done
done
q -c "DROP TABLE sc"
echo "# end $(date -u '+%H:%M') UTC" >>"$OUT"
say "wrote $OUT"
