#!/usr/bin/env bash
# CREATE INDEX time, artrie against btree on a COLLATE "C" column: the
# build row of bench/run.sh, measured alone, optionally for two versions
# of artrie in the same run.
#
#   bash bench/build_time.sh [REPS]            (as root on Debian 12)
#
# Loads bench/run.sh's full datasets words (american + british insane word
# lists, deduplicated), bulgarian (/usr/share/dict/bulgarian) and paths
# (find /usr, at most 1,000,000 lines) into tables with a COLLATE "C" text
# column.  Then REPS times (default 3), per artrie.io_backend in
# $ARTRIE_BACKENDS (default "io_uring mmap"), per dataset, with the order
# of btree and artrie alternating between repetitions: CHECKPOINT, sync,
# then CREATE INDEX timed by psql (\timing), DROP INDEX.
#
# ARTRIE_BASE=<git ref> (e.g. main) also builds that commit of this
# repository into a second private install, and each repetition runs every
# measurement under both versions, the server restarted with the other's
# binaries in between ("base" and "head", alternating which goes first);
# the data directory and the tables are shared.
#
# Prints every run, then per version, backend and dataset the medians and
# artrie's ratio to btree: the median of the ratios of the two builds of
# each repetition (adjacent in time, so that the load other processes put
# on the machine cancels out as far as it can).  The summary also
# goes to $ARTRIE_BENCH_OUT/build-<date>.txt (default bench/results).
#
# ARTRIE_BENCH_POOL sets shared_buffers and artrie.buffer_pool_size
# (default 1GB; bench/run.sh full runs with 4GB).
#
# ARTRIE_PERF=<dir>: after the timed runs, records perf profiles (perf
# record -g of the backend) of one more artrie build per version, backend
# and dataset into <dir>.  ARTRIE_KEEP=1 keeps the scratch directory.
set -u

REPS=${1:-3}
BACKENDS=${ARTRIE_BACKENDS:-io_uring mmap}
DATASETS=${ARTRIE_DATASETS:-words bulgarian paths}
BASE=${ARTRIE_BASE:-}
PERF_OUT=${ARTRIE_PERF:-}
OUT_DIR=${ARTRIE_BENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_cluster "$BASE"
bench_ab_load $DATASETS

# build KIND DATASET: "wall cpu clock", the ms of one CREATE INDEX as psql
# times it, the CPU time (user + system, 10 ms ticks) its backend spent
# on it from /proc, and the backend's task-clock in ms as perf stat counts
# it from just before the CREATE INDEX to the end of the session (a
# pg_sleep and two short SELECTs besides the build; "-" without perf);
# the index is dropped again.  A build that fails (or leaves no index) is
# reported and tried again.
CPU_SQL="SELECT (split_part(s, ' ', 14)::bigint + split_part(s, ' ', 15)::bigint) * 10 FROM pg_read_file('/proc/self/stat') s"
build() {
	local am=btree out try pid cmd_pid perf_pid clock
	[ "$1" = artrie ] && am=artrie
	for try in 1 2 3; do
		q -c "CHECKPOINT" || { cat "$BENCH_ERR"; exit 1; }
		sync
		q -c "SET application_name = 'bench_build'" -c 'SELECT pg_sleep(0.5)' -c "$CPU_SQL" \
			-c '\timing on' -c "CREATE INDEX bt_idx ON ds_$2 USING $am (k)" \
			-c '\timing off' -c "$CPU_SQL" >"$ARTRIE_TMP/build.out" &
		cmd_pid=$!
		perf_pid=
		if command -v perf >/dev/null; then
			for _ in $(seq 1 100); do
				pid=$(as_pg "$PG_BIN/psql" -XAtq -d "$BENCH_DB" \
					-c "SELECT pid FROM pg_stat_activity WHERE application_name = 'bench_build'")
				[ -n "$pid" ] && break
				sleep 0.02
			done
			rm -f "$ARTRIE_TMP/stat.txt"
			[ -n "$pid" ] && { perf stat -e task-clock -x, -o "$ARTRIE_TMP/stat.txt" -p "$pid" & perf_pid=$!; }
		fi
		wait "$cmd_pid"
		local rc=$?
		if [ -n "$perf_pid" ]; then
			kill -INT "$perf_pid" 2>/dev/null
			wait "$perf_pid"
		fi
		clock=$(awk -F, '$3 == "task-clock" { printf "%.0f", $1 }' "$ARTRIE_TMP/stat.txt" 2>/dev/null)
		out=$(cat "$ARTRIE_TMP/build.out")
		if [ $rc = 0 ] && [ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'bt_idx'")" = 1 ]; then
			q -c "DROP INDEX bt_idx" || { cat "$BENCH_ERR"; exit 1; }
			awk -v clock="${clock:--}" '/^Time:/ { t = $2 } /^[0-9]+$/ { if (c0 == "") c0 = $1; else c1 = $1 }
				END { printf "%s %d %s\n", t, c1 - c0, clock }' <<<"$out"
			return
		fi
		echo "   CREATE INDEX ($am on ds_$2) failed, try $try: $(cat "$BENCH_ERR") $out" >&2
		q -c "DROP INDEX IF EXISTS bt_idx"
	done
	exit 1
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# paired "A1 A2 ..." "B1 B2 ...": the median of A_i / B_i.
paired() {
	paste <(echo "$1" | tr ' ' '\n' | grep .) <(echo "$2" | tr ' ' '\n' | grep .) |
		awk '$2 > 0 { print $1 / $2 }' | median
}

declare -A runs=() cpus=() clocks=()
for rep in $(seq 1 "$REPS"); do
	vorder=$VERSIONS
	korder="btree artrie"
	if [ $((rep % 2)) = 0 ]; then
		vorder=$(echo "$VERSIONS" | tr ' ' '\n' | tac | tr '\n' ' ')
		korder="artrie btree"
	fi
	for v in $vorder; do
		for backend in $BACKENDS; do
			bench_ab_switch "$v" "$backend"
			for ds in $DATASETS; do
				for kind in $korder; do
					read -r ms cpu clock < <(build "$kind" "$ds")
					runs[$v.$backend.$ds.$kind]="${runs[$v.$backend.$ds.$kind]:-} $ms"
					cpus[$v.$backend.$ds.$kind]="${cpus[$v.$backend.$ds.$kind]:-} $cpu"
					[ "$clock" != - ] && clocks[$v.$backend.$ds.$kind]="${clocks[$v.$backend.$ds.$kind]:-} $clock"
					printf '   rep %d  %-4s %-8s %-10s %-6s %10s ms  %6s ms CPU  %6s ms task-clock\n' "$rep" "$v" "$backend" "$ds" "$kind" "$ms" "$cpu" "$clock"
				done
			done
		done
	done
done

STAMP=$(date -u +%Y%m%d-%H%M)
mkdir -p "$OUT_DIR"
OUT=$OUT_DIR/build-$STAMP.txt
{
	echo "# bash bench/build_time.sh $REPS  (ARTRIE_BASE=${BASE:-none}, ARTRIE_BACKENDS=$BACKENDS), $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo "# head = $HEAD_COMMIT${BASE:+, base = $BASE ($BASE_COMMIT)}; $(nproc) cores, shared: compare ratios"
	echo "# rows: $(for ds in $DATASETS; do printf '%s %s  ' "$ds" "$(q -c "SELECT count(*) FROM ds_$ds")"; done)"
	echo "# settings: maintenance_work_mem 1GB, shared_buffers and artrie.buffer_pool_size ${ARTRIE_BENCH_POOL:-1GB}; CHECKPOINT and sync before each build"
	echo "# ratio: the median over the repetitions of artrie's time over btree's in the same repetition;"
	echo "# wall: as psql times CREATE INDEX; cpu: the backend's user + system time during it (/proc, 10 ms ticks);"
	echo "# clock: the backend's task-clock as perf stat counts it (the build, a 0.5 s sleep and two short SELECTs)"
	printf '%-4s %-8s %-10s %10s %10s %7s %10s %10s %7s %10s %10s %7s\n' version backend dataset \
		"btree ms" "artrie ms" ratio "btree cpu" "artrie cpu" ratio "btree clk" "artrie clk" ratio
	for v in $VERSIONS; do
		for backend in $BACKENDS; do
			for ds in $DATASETS; do
				k=$v.$backend.$ds
				printf '%-4s %-8s %-10s %10.0f %10.0f %6.2fx %10.0f %10.0f %6.2fx %10.0f %10.0f %6.2fx\n' "$v" "$backend" "$ds" \
					"$(echo "${runs[$k.btree]}" | median)" "$(echo "${runs[$k.artrie]}" | median)" \
					"$(paired "${runs[$k.artrie]}" "${runs[$k.btree]}")" \
					"$(echo "${cpus[$k.btree]}" | median)" "$(echo "${cpus[$k.artrie]}" | median)" \
					"$(paired "${cpus[$k.artrie]}" "${cpus[$k.btree]}")" \
					"$(echo "${clocks[$k.btree]:-0}" | median)" "$(echo "${clocks[$k.artrie]:-0}" | median)" \
					"$(paired "${clocks[$k.artrie]:-0}" "${clocks[$k.btree]:-1}")"
			done
		done
	done
	echo "# every run (wall ms; cpu ms; task-clock ms):"
	for key in $(printf '%s\n' "${!runs[@]}" | sort); do
		echo "#   $key:${runs[$key]};${cpus[$key]};${clocks[$key]:-}"
	done
} | tee "$OUT"
say "written $OUT"

if [ -n "$PERF_OUT" ]; then
	mkdir -p "$PERF_OUT"
	for v in $VERSIONS; do
		for backend in $BACKENDS; do
			bench_ab_switch "$v" "$backend"
			for ds in $DATASETS; do
				q -c "CHECKPOINT"
				as_pg "$PG_BIN/psql" -XAtq -d "$BENCH_DB" -c 'SELECT pg_sleep(1)' \
					-c "CREATE INDEX bt_idx ON ds_$ds USING artrie (k)" &
				cmd_pid=$!
				sleep 0.5
				pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' OR query LIKE 'CREATE INDEX bt_idx%'" | head -1)
				perf record -q -F 4999 -g -o "$ARTRIE_TMP/perf.data" -p "$pid" >/dev/null 2>&1 &
				perf_pid=$!
				wait "$cmd_pid"
				kill -INT "$perf_pid"
				wait "$perf_pid"
				{
					echo "# self time"
					perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort symbol \
						--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
					echo "# with callees, artrie's build phases"
					perf report -i "$ARTRIE_TMP/perf.data" --stdio --children --sort symbol \
						-g none 2>/dev/null | grep -E 'artrie_build|am_build|tuplesort_|table_index_build_scan|heapam_index_build|art_bulk|spine_pop|place|flush_kids|pager_flush_file|am_wal_file|XLogInsert'
				} >"$PERF_OUT/$v-$backend-$ds.txt"
				rm -f "$ARTRIE_TMP/perf.data"
				q -c "DROP INDEX bt_idx"
			done
		done
	done
	say "profiles in $PERF_OUT"
fi
