#!/usr/bin/env bash
# Concurrent bulk writers on one indexed table: rows per second of
# multi-row INSERT ... SELECT and of COPY, artrie against btree on a
# COLLATE "C" column, side by side.
#
#   bash bench/bulk_writers.sh [REPS [SECONDS]]     (as root on Debian 12)
#
# Builds a private install (like bench/run.sh), starts a throwaway cluster
# with bench/insert_tps.sh's settings and two empty tables, one with a
# btree and one with an artrie index.  Each pgbench client runs, for
# SECONDS (default 5) and REPS times (default 3), at 1, 2 and 8 clients,
# alternating the tables:
#   insert  INSERT ... SELECT of 1000 new keys ('b/<client>/<random>/<n>');
#   copy    COPY of one of eight files of 1000 keys each, picked at
#           random (made once: later loads repeat their keys, as a
#           periodic import would).
# ARTRIE_BULK_KINDS (default "insert copy") picks them; "dup" adds
#   dup     INSERT ... SELECT of 1000 keys of one of eight fixed sets
#           ('d/<set>/<n>'), so that keys repeat as COPY's do, through
#           the statement INSERT ... SELECT uses.
# Prints every run's rows/s and the backends' CPU per row (the CPU time of
# the exited backends, from the postmaster's children's times in /proc,
# over the rows inserted: on a loaded machine steadier than rows/s), the
# io worker's CPU per row (the I/O that io_uring moves to the worker and
# mmap leaves in the backends, and checkpoints), the medians, artrie's
# ratio to btree, and how 1 -> 2 clients scaled for each; at the end,
# artrie_io_stats() and artrie_pool_stats() (pages each kind of process
# moved, checkpoints, evictions).  The machine's other load shows in the
# absolute figures; the ratios are measured in the same run.
# ARTRIE_BULK_BACKEND (default io_uring) sets artrie.io_backend;
# ARTRIE_BULK_CLIENTS (default "1 2 8") the client counts.
# ARTRIE_BASE=<git ref> also measures that revision of artrie, alternating
# with this tree in each repetition (see below).  ARTRIE_KEEP=1 keeps the
# scratch directory (server logs).
# ARTRIE_PERF=<dir>: after the timed runs, also records perf profiles
# (perf record -g of the cluster's processes, SECONDS long) of each kind at
# the largest client count, per table, into <dir>/<kind>-<table>-c<N>.txt
# (by symbol, self), <dir>/<kind>-<table>-c<N>-inclusive.txt (with
# what each symbol calls) and <dir>/<kind>-<table>-c<N>-procs.txt (the
# samples by process, with each one's role, then by library, kernel
# included, for the backends alone and for the io worker alone); with
# ARTRIE_KEEP=1 the recordings stay in the scratch directory
# (perf-<kind>-<table>.data).
set -u

REPS=${1:-3}
DUR=${2:-5}
BASE=${ARTRIE_BASE:-}
BATCH=1000
KINDS=${ARTRIE_BULK_KINDS:-insert copy}
BACKEND=${ARTRIE_BULK_BACKEND:-io_uring}
CLIENTS=${ARTRIE_BULK_CLIENTS:-1 2 8}
PERF_OUT=${ARTRIE_PERF:-}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "artrie.io_backend = $BACKEND"
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE bulk_btree (id bigint GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE bulk_artrie (id bigint GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE INDEX ON bulk_btree USING btree (k);
CREATE INDEX ON bulk_artrie USING artrie (k);
SQL

mkdir -p "$ARTRIE_TMP/copy"
for c in $(seq 0 7); do
	awk -v c="$c" -v n="$BATCH" 'BEGIN { srand(c + 1); for (i = 1; i <= n; i++) printf "c/%d/%d/%d\n", c, int(rand() * 1e9), i }' \
		>"$ARTRIE_TMP/copy/$c.txt"
done

# The scripts: INSERT ... SELECT of new keys; COPY of one of the eight
# files, picked at random (pgbench cannot build a file name from a
# variable, so the script branches on it).
for t in btree artrie; do
	printf '\\set r random(1, 1000000000)\nINSERT INTO bulk_%s (k) SELECT %s FROM generate_series(1, %d) g;\n' \
		"$t" "'b/' || :client_id || '/' || :r || '/' || g" "$BATCH" >"$ARTRIE_TMP/insert_$t.sql"
	printf '\\set s random(0, 7)\nINSERT INTO bulk_%s (k) SELECT %s FROM generate_series(1, %d) g;\n' \
		"$t" "'d/' || :s || '/' || g" "$BATCH" >"$ARTRIE_TMP/dup_$t.sql"
	printf '\\set f random(0, 7)\n' >"$ARTRIE_TMP/copy_$t.sql"
	for c in $(seq 0 7); do
		printf '\\if :f = %d\nCOPY bulk_%s (k) FROM '"'"'%s/copy/%d.txt'"'"';\n\\endif\n' \
			"$c" "$t" "$ARTRIE_TMP" "$c" >>"$ARTRIE_TMP/copy_$t.sql"
	done
done
chmod a+rX "$ARTRIE_TMP" "$ARTRIE_TMP"/*.sql && chmod -R a+rX "$ARTRIE_TMP/copy"

# The CPU time (10 ms ticks) of the postmaster's exited children.
children_cpu() { awk '{ print $16 + $17 }' "/proc/$(head -1 "$PGDATA/postmaster.pid")/stat"; }

# The io worker's CPU time (10 ms ticks) so far; 0 if it is not found.
worker_cpu() {
	local pid
	pid=$(pgrep -f -P "$(head -1 "$PGDATA/postmaster.pid")" '^postgres: artrie io worker' | head -1)
	awk '{ print $14 + $15 }' "/proc/${pid:-0}/stat" 2>/dev/null || echo 0
}

# rows KIND TABLE CLIENTS: one pgbench run's rows per second, its
# backends' CPU per row and the io worker's, in microseconds.
rows() {
	local j=$(($3 < 2 ? $3 : 2)) out c0 c1 w0 w1 n
	c0=$(children_cpu)
	w0=$(worker_cpu)
	out=$(as_pg "$PG_BIN/pgbench" -n -c "$3" -j "$j" -T "$DUR" -f "$ARTRIE_TMP/$1_$2.sql" "$BENCH_DB" 2>&1)
	sleep 1 # the backends exit after pgbench does
	c1=$(children_cpu)
	w1=$(worker_cpu)
	n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	awk -v n="${n:-0}" -v b="$BATCH" -v d="$DUR" -v c="$((c1 - c0))" -v w="$((w1 - w0))" \
		'BEGIN { r = n * b; printf "%.0f %.2f %.2f", r / d, (n > 0) ? c * 10000.0 / r : 0, (n > 0) ? w * 10000.0 / r : 0 }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# With ARTRIE_BASE=<git ref>, every repetition runs under both versions
# ("base": that revision, "head": this tree), alternating which goes
# first, the server restarted with the other's artrie.so in between.
bench_versions "$BASE"

declare -A runs=() cpu=() wcpu=()
rows insert btree 2 >/dev/null # warm-up
rows insert artrie 2 >/dev/null
for rep in $(seq 1 "$REPS"); do
	order=$(bench_version_order "$rep")
	for ver in $order; do
		[ -n "$BASE" ] && bench_use_version "$ver"
		for kind in $KINDS; do
			for c in $CLIENTS; do
				for t in btree artrie; do
					read -r v u w < <(rows "$kind" "$t" "$c")
					runs[$ver.$kind.$t.$c]="${runs[$ver.$kind.$t.$c]:-} $v"
					cpu[$ver.$kind.$t.$c]="${cpu[$ver.$kind.$t.$c]:-} $u"
					wcpu[$ver.$kind.$t.$c]="${wcpu[$ver.$kind.$t.$c]:-} $w"
					printf '   rep %d  %-4s %-6s %-6s c%-2d %10s rows/s %8s us CPU/row %6s us io worker/row\n' "$rep" "$ver" "$kind" "$t" "$c" "$v" "$u" "$w"
				done
			done
		done
	done
done
say "medians of $REPS runs of ${DUR}s, $BATCH rows per statement, $BACKEND"
for ver in $VERSIONS; do
	for kind in $KINDS; do
		declare -A med=() mcpu=() mw=()
		for c in $CLIENTS; do
			for t in btree artrie; do
				med[$t.$c]=$(echo "${runs[$ver.$kind.$t.$c]}" | median)
				mcpu[$t.$c]=$(echo "${cpu[$ver.$kind.$t.$c]}" | median)
				mw[$t.$c]=$(echo "${wcpu[$ver.$kind.$t.$c]}" | median)
			done
			printf '%-4s %-6s c%-2d btree-C %9.0f rows/s  artrie %9.0f rows/s  ratio %.2fx   CPU/row btree %.2f us  artrie %.2f us  ratio %.2fx   io worker/row btree %.2f us  artrie %.2f us\n' "$ver" "$kind" "$c" \
				"${med[btree.$c]}" "${med[artrie.$c]}" \
				"$(awk -v a="${med[artrie.$c]}" -v b="${med[btree.$c]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"${mcpu[btree.$c]}" "${mcpu[artrie.$c]}" \
				"$(awk -v a="${mcpu[artrie.$c]}" -v b="${mcpu[btree.$c]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"${mw[btree.$c]}" "${mw[artrie.$c]}"
		done
		if [ -n "${med[btree.1]:-}" ] && [ -n "${med[btree.2]:-}" ]; then
			printf '%-4s %-6s 1 -> 2 clients: btree %.2fx, artrie %.2fx\n' "$ver" "$kind" \
				"$(awk -v a="${med[btree.2]}" -v b="${med[btree.1]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"$(awk -v a="${med[artrie.2]}" -v b="${med[artrie.1]}" 'BEGIN { print (b > 0) ? a / b : 0 }')"
		fi
		unset med mcpu mw
	done
done

say "artrie_io_stats() and artrie_pool_stats() at the end of the runs"
q -c "SELECT process, reads, writes, syncs, requests, wait_ms FROM artrie_io_stats()" \
	-c "SELECT * FROM artrie_pool_stats()" | sed 's/^/   /'

# perf_procs FILE PS: the samples of $ARTRIE_TMP/perf.data by process,
# each named by its role (its title in the listing PS, "pid args" lines
# of the cluster's processes taken while perf recorded), then by library
# (the kernel's included) for the backends alone and for the io worker
# alone.
perf_procs() {
	local backends worker
	backends=$(awk '$2 == "postgres:" && / \[local\] / { print $1 }' "$2" | paste -sd,)
	worker=$(awk '/ artrie io worker/ { print $1 }' "$2" | paste -sd,)
	{
		sed 's/^/# /' "$2"
		perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort pid -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
		echo "# backends ($backends), by library"
		[ -n "$backends" ] && perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort dso \
			--pid "$backends" -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
		echo "# io worker ($worker), by library and symbol"
		[ -n "$worker" ] && perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort dso,symbol \
			--pid "$worker" --percentage relative --percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
	} >"$1"
}

if [ -n "$PERF_OUT" ]; then
	mkdir -p "$PERF_OUT"
	c=$(echo "$CLIENTS" | tr ' ' '\n' | sort -n | tail -1)
	for kind in $KINDS; do
		for t in btree artrie; do
			rows "$kind" "$t" "$c" >/dev/null &
			sleep 1
			ps -o pid=,args= --ppid "$(head -1 "$PGDATA/postmaster.pid")" >"$ARTRIE_TMP/perf.ps"
			perf_cluster "$PERF_OUT/$kind-$t-c$c.txt" "$((DUR - 2))"
			wait
			perf report -i "$ARTRIE_TMP/perf.data" --stdio --children --sort symbol \
				--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
				>"$PERF_OUT/$kind-$t-c$c-inclusive.txt"
			perf_procs "$PERF_OUT/$kind-$t-c$c-procs.txt" "$ARTRIE_TMP/perf.ps"
			mv "$ARTRIE_TMP/perf.data" "$ARTRIE_TMP/perf-$kind-$t.data"
		done
	done
	say "profiles in $PERF_OUT"
fi
