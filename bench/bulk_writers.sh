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
# Each run also prints the checkpoints it saw (artrie's, with the pages
# they wrote, and PostgreSQL's) and the WAL it wrote per row: bytes (by
# the insert position, so the io worker's image records are in), records
# and full-page images (pg_stat_wal, the backends').
# ARTRIE_BULK_BACKEND (default io_uring) sets artrie.io_backend;
# ARTRIE_BULK_CLIENTS (default "1 2 8") the client counts;
# ARTRIE_BULK_CONF adds postgresql.conf lines (separated by ';');
# ARTRIE_BULK_PG_CKPT=1 issues a PostgreSQL CHECKPOINT 1.5 s into each run.
# ARTRIE_BASE=<git ref> also measures that revision of artrie, alternating
# with this tree in each repetition (see below).
# ARTRIE_BULK_CKPT=1 instead runs each repetition under three settings of
# one build, switched by a reload (no restart: the pool stays warm and no
# shutdown checkpoint moves PostgreSQL's redo pointer), artrie's timed
# checkpoints off in all three:
#   nockpt  no artrie checkpoint (artrie.checkpoint_dirty_percent = 100);
#   ckpt10  an artrie checkpoint whenever 10% of the pool is dirty;
#   pgckpt  as ckpt10, and a PostgreSQL CHECKPOINT 1.5 s into each run
#           (btree then pays its full-page images, artrie logs its files'
#           images).
# ARTRIE_KEEP=1 keeps the scratch directory (server logs).
# ARTRIE_PERF=<dir>: after the timed runs, also records perf profiles
# (perf record -g of the cluster's processes, for SECONDS less 2 of a run
# of SECONDS + 1, ARTRIE_PERF_SECONDS if set) of each kind at the largest
# client count, per table (and per version or setting), into
# <dir>/[<version>-]<kind>-<table>-c<N>.txt (by symbol, self), ...-inclusive.txt
# (with what each symbol calls), ...-procs.txt (the samples by process,
# with each one's role, then for the backends by library and by symbol
# and for the io worker by symbol, in samples and in samples per 1000 rows
# of the window) and ...-waits.txt (the wait events of the backends in
# pg_stat_activity, sampled every 50 ms meanwhile, "CPU" for none); with
# ARTRIE_KEEP=1 the recordings stay in the scratch directory
# (perf-[<version>-]<kind>-<table>.data).  ARTRIE_PERF_EVENTS adds perf
# record options; with "-e sched:sched_switch --switch-events" the
# recordings are of where the backends leave the CPU, and ...-offcpu.txt
# has their time off the CPU by cause (bench/offcpu.awk: preempted, or
# blocked in which kernel function from which user-space frame).
set -u

REPS=${1:-3}
DUR=${2:-5}
BASE=${ARTRIE_BASE:-}
BATCH=1000
KINDS=${ARTRIE_BULK_KINDS:-insert copy}
BACKEND=${ARTRIE_BULK_BACKEND:-io_uring}
CLIENTS=${ARTRIE_BULK_CLIENTS:-1 2 8}
PERF_OUT=${ARTRIE_PERF:-}
SETTINGS=${ARTRIE_BULK_CKPT:-}
PG_CKPT_IN_RUN=${ARTRIE_BULK_PG_CKPT:-}

if [ -n "$SETTINGS" ] && [ -n "$BASE" ]; then
	echo "ARTRIE_BULK_CKPT and ARTRIE_BASE cannot be used together" >&2
	exit 1
fi

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

IFS=';' read -r -a EXTRA_CONF <<<"${ARTRIE_BULK_CONF:-}"
if [ -n "$SETTINGS" ]; then
	EXTRA_CONF+=("artrie.checkpoint_timeout = 86400")
fi
bench_write_cluster "artrie.io_backend = $BACKEND" "${EXTRA_CONF[@]}"
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

# The counters a run moves: artrie's checkpoints and their pages,
# PostgreSQL's checkpoints, WAL bytes (by the insert position: the io
# worker reports none to pg_stat_wal), records and full-page images.
counters() {
	as_pg "$PG_BIN/psql" -XAtq -F ' ' -d "$BENCH_DB" -c "SELECT p.checkpoints, p.checkpoint_pages,
		b.checkpoints_timed + b.checkpoints_req, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0'),
		w.wal_records, w.wal_fpi FROM artrie_pool_stats() p, pg_stat_bgwriter b, pg_stat_wal w" 2>/dev/null
}

# rows KIND TABLE CLIENTS: one pgbench run's rows per second, its
# backends' CPU per row and the io worker's, in microseconds, then the
# artrie checkpoints (and their pages) and PostgreSQL checkpoints it saw,
# and its WAL per row: bytes, records, full-page images.  With
# PG_CKPT_IN_RUN=1 a CHECKPOINT is issued 1.5 s into the run.  The
# counters are read outside the CPU window.
rows() {
	local j=$(($3 < 2 ? $3 : 2)) out c0 c1 w0 w1 n k0 k1 ck=
	k0=$(counters)
	sleep 0.3 # the counters' backend has exited
	c0=$(children_cpu)
	w0=$(worker_cpu)
	if [ "${PG_CKPT_IN_RUN:-}" = 1 ]; then
		(sleep 1.5 && as_pg "$PG_BIN/psql" -XAtq -d postgres -c CHECKPOINT >/dev/null 2>&1) &
		ck=$!
	fi
	out=$(as_pg "$PG_BIN/pgbench" -n -c "$3" -j "$j" -T "$DUR" -f "$ARTRIE_TMP/$1_$2.sql" "$BENCH_DB" 2>&1)
	[ -n "$ck" ] && wait "$ck"
	sleep 1 # the backends exit after pgbench does
	c1=$(children_cpu)
	w1=$(worker_cpu)
	k1=$(counters)
	n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	awk -v n="${n:-0}" -v b="$BATCH" -v d="$DUR" -v c="$((c1 - c0))" -v w="$((w1 - w0))" \
		-v k0="$k0" -v k1="$k1" 'BEGIN {
			r = n * b; split(k0, a, " "); split(k1, z, " ")
			printf "%.0f %.2f %.2f %d %d %d %.0f %.2f %.4f", r / d, (n > 0) ? c * 10000.0 / r : 0,
				(n > 0) ? w * 10000.0 / r : 0, z[1] - a[1], z[2] - a[2], z[3] - a[3],
				(n > 0) ? (z[4] - a[4]) / r : 0, (n > 0) ? (z[5] - a[5]) / r : 0, (n > 0) ? (z[6] - a[6]) / r : 0 }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# With ARTRIE_BASE=<git ref>, every repetition runs under both versions
# ("base": that revision, "head": this tree), alternating which goes
# first, the server restarted with the other's artrie.so in between.
# With ARTRIE_BULK_CKPT=1 the "versions" are settings of this build,
# switched by a reload.
if [ -n "$SETTINGS" ]; then
	VERSIONS="nockpt ckpt10 pgckpt"
	bench_use_version() {
		local pct=10
		[ "$1" = nockpt ] && pct=100
		PG_CKPT_IN_RUN=
		[ "$1" = pgckpt ] && PG_CKPT_IN_RUN=1
		as_pg "$PG_BIN/psql" -XAtq -d postgres -c "ALTER SYSTEM SET artrie.checkpoint_dirty_percent = $pct" \
			-c "SELECT pg_reload_conf()" >/dev/null
		sleep 0.5
		echo "   -- $1: artrie.checkpoint_dirty_percent = $pct$([ -n "$PG_CKPT_IN_RUN" ] && echo ', a CHECKPOINT 1.5 s into each run'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	}
else
	bench_versions "$BASE"
fi

declare -A runs=() cpu=() wcpu=()
rows insert btree 2 >/dev/null # warm-up
rows insert artrie 2 >/dev/null
for rep in $(seq 1 "$REPS"); do
	order=$(bench_version_order "$rep")
	for ver in $order; do
		[ -n "$BASE$SETTINGS" ] && bench_use_version "$ver"
		for kind in $KINDS; do
			for c in $CLIENTS; do
				for t in btree artrie; do
					read -r v u w nck nckp npg walb walr fpi < <(rows "$kind" "$t" "$c")
					runs[$ver.$kind.$t.$c]="${runs[$ver.$kind.$t.$c]:-} $v"
					cpu[$ver.$kind.$t.$c]="${cpu[$ver.$kind.$t.$c]:-} $u"
					wcpu[$ver.$kind.$t.$c]="${wcpu[$ver.$kind.$t.$c]:-} $w"
					printf '   rep %d  %-6s %-6s %-6s c%-2d %10s rows/s %8s us CPU/row %6s us io worker/row  ckpts %d (%d pages), pg %d  WAL %s B %s rec %s fpi/row\n' \
						"$rep" "$ver" "$kind" "$t" "$c" "$v" "$u" "$w" "$nck" "$nckp" "$npg" "$walb" "$walr" "$fpi"
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
			printf '%-6s %-6s c%-2d btree-C %9.0f rows/s  artrie %9.0f rows/s  ratio %.2fx   CPU/row btree %.2f us  artrie %.2f us  ratio %.2fx   io worker/row btree %.2f us  artrie %.2f us\n' "$ver" "$kind" "$c" \
				"${med[btree.$c]}" "${med[artrie.$c]}" \
				"$(awk -v a="${med[artrie.$c]}" -v b="${med[btree.$c]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"${mcpu[btree.$c]}" "${mcpu[artrie.$c]}" \
				"$(awk -v a="${mcpu[artrie.$c]}" -v b="${mcpu[btree.$c]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"${mw[btree.$c]}" "${mw[artrie.$c]}"
		done
		if [ -n "${med[btree.1]:-}" ] && [ -n "${med[btree.2]:-}" ]; then
			printf '%-6s %-6s 1 -> 2 clients: btree %.2fx, artrie %.2fx\n' "$ver" "$kind" \
				"$(awk -v a="${med[btree.2]}" -v b="${med[btree.1]}" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
				"$(awk -v a="${med[artrie.2]}" -v b="${med[artrie.1]}" 'BEGIN { print (b > 0) ? a / b : 0 }')"
		fi
		unset med mcpu mw
	done
done

say "artrie_io_stats() and artrie_pool_stats() at the end of the runs"
q -c "SELECT process, reads, writes, syncs, requests, wait_ms FROM artrie_io_stats()" \
	-c "SELECT * FROM artrie_pool_stats()" | sed 's/^/   /'

# waits_sample SECONDS FILE: the wait events of the bench database's
# active client backends in pg_stat_activity every 50 ms for SECONDS,
# counted ("CPU" for none), from a session in the postgres database.
waits_sample() {
	as_pg "$PG_BIN/psql" -XAtq -F ' ' -d postgres >"$2" 2>&1 <<SQL
CREATE TEMP TABLE s (ev text);
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	WHILE clock_timestamp() < t0 + interval '$1 seconds' LOOP
		PERFORM pg_stat_clear_snapshot();
		INSERT INTO s SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
			FROM pg_stat_activity
			WHERE datname = '$BENCH_DB' AND backend_type = 'client backend' AND state = 'active';
		PERFORM pg_sleep(0.05);
	END LOOP;
END \$\$;
SELECT count(*), ev FROM s GROUP BY ev ORDER BY 1 DESC;
SQL
}

# perf_report ARGS...: perf report of $ARTRIE_TMP/perf.data, self
# samples with their counts, no call graphs, no headers.
perf_report() {
	perf report -i "$ARTRIE_TMP/perf.data" --stdio -n --no-children -g none "$@" 2>/dev/null |
		grep -v '^#' | grep -v '^$'
}

# per_krow KROWS MIN: the lines of a perf_report (percent, samples, ...)
# whose samples make MIN percent or more of all, with the samples per
# 1000 rows after the count.
per_krow() {
	awk -v k="$1" -v min="$2" '{ n[NR] = $2; l[NR] = $0; t += $2 }
		END { for (i = 1; i <= NR; i++) if (n[i] * 100 >= min * t) {
			sub(/^ *[0-9.]+% +[0-9]+ +/, "", l[i]); printf "%6.2f%% %8d %8.3f  %s\n", n[i] * 100 / t, n[i], n[i] / k, l[i] } }'
}

# perf_procs FILE PS KROWS: the samples of $ARTRIE_TMP/perf.data by
# process, each named by its role (its title in the listing PS, "pid
# args" lines of the cluster's processes taken while perf recorded),
# then for the backends by library and by symbol (the kernel's included)
# and for the io worker by symbol, each with its samples per 1000 rows
# (KROWS thousand rows in the window).
perf_procs() {
	local backends worker
	backends=$(awk '$2 == "postgres:" && / bench \[local\] / { print $1 }' "$2" | paste -sd,)
	worker=$(awk '/ artrie io worker/ { print $1 }' "$2" | paste -sd,)
	{
		sed 's/^/# /' "$2"
		perf_report --sort pid
		echo "# backends ($backends), by library: share, samples, per 1000 rows ($3 thousand rows)"
		[ -n "$backends" ] && perf_report --sort dso --pid "$backends" | per_krow "$3" 0
		echo "# backends, by library and symbol (0.2% of their samples or more)"
		[ -n "$backends" ] && perf_report --sort dso,symbol --pid "$backends" | per_krow "$3" 0.2
		echo "# io worker ($worker), by library and symbol (0.5% of its samples or more)"
		[ -n "$worker" ] && perf_report --sort dso,symbol --pid "$worker" | per_krow "$3" 0.5
	} >"$1"
}

if [ -n "$PERF_OUT" ]; then
	mkdir -p "$PERF_OUT"
	c=$(echo "$CLIENTS" | tr ' ' '\n' | sort -n | tail -1)
	pdur=${ARTRIE_PERF_SECONDS:-$DUR}
	for ver in $VERSIONS; do
		pre=
		if [ -n "$BASE$SETTINGS" ]; then
			bench_use_version "$ver"
			pre=$ver-
		fi
		for kind in $KINDS; do
			for t in btree artrie; do
				f=$PERF_OUT/$pre$kind-$t-c$c
				DUR=$((pdur + 1)) rows "$kind" "$t" "$c" >"$ARTRIE_TMP/perf.rows" &
				# perf follows the processes there when it starts: wait
				# for every client's backend (up to 3 s after the first 1.5 s)
				sleep 1.5
				for i in $(seq 1 30); do
					ps -o pid=,args= --ppid "$(head -1 "$PGDATA/postmaster.pid")" >"$ARTRIE_TMP/perf.ps"
					[ "$(grep -c ' bench \[local\] ' "$ARTRIE_TMP/perf.ps")" -ge "$c" ] && break
					sleep 0.1
				done
				waits_sample "$((pdur - 2))" "$f-waits.txt" &
				perf_cluster "$f.txt" "$((pdur - 2))"
				wait
				read -r v u w nck nckp npg walb walr fpi <"$ARTRIE_TMP/perf.rows"
				printf '   profiled %-6s %-6s %-6s c%-2d %10s rows/s %8s us CPU/row %6s us io worker/row  ckpts %d (%d pages), pg %d  WAL %s B %s rec %s fpi/row\n' \
					"$ver" "$kind" "$t" "$c" "$v" "$u" "$w" "$nck" "$nckp" "$npg" "$walb" "$walr" "$fpi" | tee -a "$PERF_OUT/runs.txt"
				perf report -i "$ARTRIE_TMP/perf.data" --stdio --children --sort symbol \
					--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
					>"$f-inclusive.txt"
				perf_procs "$f-procs.txt" "$ARTRIE_TMP/perf.ps" "$(awk -v v="$v" -v d="$((pdur - 2))" 'BEGIN { print v * d / 1000 }')"
				if [[ "${ARTRIE_PERF_EVENTS:-}" == *sched_switch* ]]; then
					perf script -i "$ARTRIE_TMP/perf.data" --show-switch-events 2>/dev/null |
						awk -v pids="$(awk '$2 == "postgres:" && / bench \[local\] / { print $1 }' "$ARTRIE_TMP/perf.ps" | paste -sd,)" \
							-v krows="$(awk -v v="$v" -v d="$((pdur - 2))" 'BEGIN { print v * d / 1000 }')" \
							-f "$(dirname "$0")/offcpu.awk" >"$f-offcpu.txt"
				fi
				mv "$ARTRIE_TMP/perf.data" "$ARTRIE_TMP/perf-$pre$kind-$t.data"
			done
		done
	done
	say "profiles in $PERF_OUT"
fi
