#!/usr/bin/env bash
# Single-row INSERT commit throughput: artrie (io_uring and mmap) against
# btree on a COLLATE "C" column, side by side, the issue 8 measurement.
#
#   bash bench/insert_tps.sh [REPS [SECONDS]]     (as root on Debian 12)
#
# Builds a private install (like bench/run.sh), starts a throwaway cluster
# with bench/run.sh's settings, loads two tables of ROWS md5 keys, one with
# a btree and one with an artrie index, and runs pgbench -M prepared with
# the insert script of bench/run.sh (random keys 'ins/<client>/<n>'), at 1
# and 8 clients, REPS times (default 5) for SECONDS each (default 5),
# alternating the tables within each repetition.  Then the same after a
# restart with artrie.io_backend = mmap.  Prints every run's tps, the
# medians and artrie's ratio to btree within each phase.
#
# ARTRIE_PERF=<dir>: also record a perf profile (perf record -g of the
# server's processes) of one extra 8-client run per table and phase into
# <dir>.
# ARTRIE_BASE=<git ref>: also that revision of artrie, alternating with
# this tree in each repetition, the server restarted with the other's
# artrie.so in between (bench_use_version).
# ARTRIE_KEEP=1 keeps the scratch directory (server logs).
set -u

REPS=${1:-5}
DUR=${2:-5}
ROWS=${ARTRIE_INS_ROWS:-150000}
PERF_OUT=${ARTRIE_PERF:-}
BASE=${ARTRIE_BASE:-}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "include_if_exists = 'bench_profile.conf'"
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE ins_btree (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE ins_artrie (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ins_btree (k) SELECT md5(g::text) FROM generate_series(1, $ROWS) g;
INSERT INTO ins_artrie (k) SELECT k FROM ins_btree;
CREATE INDEX ON ins_btree USING btree (k);
CREATE INDEX ON ins_artrie USING artrie (k);
VACUUM ANALYZE ins_btree;
VACUUM ANALYZE ins_artrie;
CHECKPOINT;
SQL
for t in btree artrie; do
	printf '\\set r random(1, 1000000000)\nINSERT INTO ins_%s (k) VALUES (%s);\n' \
		"$t" "'ins/' || :client_id || '/' || :r" >"$ARTRIE_TMP/insert_$t.sql"
done
chmod a+r "$ARTRIE_TMP"/*.sql
bench_versions "$BASE"

# tps TABLE CLIENTS SECONDS: one pgbench run's tps.
tps() {
	local j=$(($2 < 2 ? $2 : 2))
	as_pg "$PG_BIN/pgbench" -n -M prepared -c "$2" -j "$j" -T "$3" -f "$ARTRIE_TMP/insert_$1.sql" "$BENCH_DB" 2>&1 |
		sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

SUMMARY=
for backend in io_uring mmap; do
	echo "artrie.io_backend = $backend" | as_pg tee "$PGDATA/bench_profile.conf" >/dev/null
	server_restart
	say "artrie.io_backend = $(q -c 'SHOW artrie.io_backend')"
	declare -A runs=()
	tps btree 8 2 >/dev/null # warm-up
	tps artrie 8 2 >/dev/null
	for rep in $(seq 1 "$REPS"); do
		order=$(bench_version_order "$rep")
		for ver in $order; do
			[ -n "$BASE" ] && bench_use_version "$ver"
			for c in 1 8; do
				for t in btree artrie; do
					v=$(tps "$t" "$c" "$DUR")
					runs[$ver.$t.$c]="${runs[$ver.$t.$c]:-} ${v:-0}"
					printf '   rep %d  %-4s %-6s c%-2d %10s tps\n' "$rep" "$ver" "$t" "$c" "${v:-?}"
				done
			done
		done
	done
	for ver in $VERSIONS; do
		for c in 1 8; do
			b=$(echo "${runs[$ver.btree.$c]}" | median)
			a=$(echo "${runs[$ver.artrie.$c]}" | median)
			SUMMARY+=$(printf '%-4s %-9s c%-2d btree-C %8.0f tps  artrie %8.0f tps  ratio %.2fx\n' \
				"$ver" "$backend" "$c" "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN { print (b > 0) ? a / b : 0 }')")$'\n'
		done
	done
	if [ -n "$PERF_OUT" ]; then
		mkdir -p "$PERF_OUT"
		for t in btree artrie; do
			tps "$t" 8 "$((DUR + 2))" >/dev/null &
			sleep 1
			perf_cluster "$PERF_OUT/$backend-$t-c8.txt" "$DUR"
			wait
		done
	fi
	unset runs
done
say "medians of $REPS runs of ${DUR}s, pgbench -M prepared, single-row INSERT commits"
printf '%s' "$SUMMARY"
