#!/usr/bin/env bash
# The cost of one PostgreSQL CHECKPOINT with many idle indexes: artrie
# against btree.
#
#   bash bench/idle_indexes.sh [INDEXES]   (as root on Debian 12)
#
# Builds a private install, starts a throwaway cluster with bench/run.sh's
# settings, creates INDEXES (default 1000) small tables (10 rows each)
# with a btree index each, settles (CHECKPOINT twice) and times one more
# CHECKPOINT; then the same number of tables with an artrie index each
# (open files: just created), and again after a restart (closed files:
# nobody used them since).  artrie's share of a PostgreSQL checkpoint runs
# in its io worker after the redo pointer moved, so each measurement
# waits until the replication slot "artrie" has moved to the new redo
# pointer.  Per measurement it prints: the CHECKPOINT's own time, the time
# until artrie's pass ended, the WAL written meanwhile, artrie's page
# writes and syncs (artrie_io_stats), and the checkpointer's and io
# worker's write and fsync system calls (strace -c, if strace is there).
set -u

N=${1:-1000}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "max_locks_per_transaction = 256"
q -c 'CREATE EXTENSION artrie' || { cat "$BENCH_ERR"; exit 1; }

# make KIND: N tables idle_KIND_i with 10 rows and an index of KIND each.
make() {
	local kind=$1
	for b in $(seq 0 100 $((N - 1))); do
		{
			echo 'BEGIN;'
			for i in $(seq "$b" $((b + 99 < N - 1 ? b + 99 : N - 1))); do
				echo "CREATE TABLE idle_${kind}_$i (k text COLLATE \"C\");"
				echo "INSERT INTO idle_${kind}_$i SELECT md5(g::text) FROM generate_series(1, 10) g;"
				echo "CREATE INDEX ON idle_${kind}_$i USING $kind (k);"
			done
			echo 'COMMIT;'
		} | q >/dev/null || { cat "$BENCH_ERR"; exit 1; }
	done
}

slot_lsn() { q -c "SELECT coalesce(restart_lsn, '0/0') FROM pg_replication_slots WHERE slot_name = 'artrie'"; }

# artrie_io KIND: the sum of artrie's write pages or syncs over all processes.
artrie_io() { q -c "SELECT coalesce(sum($1), 0) FROM artrie_io_stats()"; }

# wait_artrie REDO: until the slot "artrie" is at REDO or later (60 s at most).
wait_artrie() {
	for _ in $(seq 1 6000); do
		[ "$(q -c "SELECT pg_wal_lsn_diff('$(slot_lsn)', '$1') >= 0")" = t ] && return 0
		sleep 0.01
	done
	echo "artrie's slot did not reach $1" >&2
}

# measure LABEL: one CHECKPOINT, with artrie's pass after it.
measure() {
	local label=$1 w0 s0 l0 t0 t1 t2 redo l2 st=
	q -c 'CHECKPOINT' >/dev/null
	wait_artrie "$(q -c 'SELECT redo_lsn FROM pg_control_checkpoint()')"
	q -c 'CHECKPOINT' >/dev/null
	wait_artrie "$(q -c 'SELECT redo_lsn FROM pg_control_checkpoint()')"
	sleep 1
	w0=$(artrie_io writes)
	s0=$(artrie_io syncs)
	l0=$(q -c 'SELECT pg_current_wal_insert_lsn()')
	if command -v strace >/dev/null; then
		local pids
		pids=$(q -c "SELECT string_agg('-p ' || pid, ' ') FROM pg_stat_activity WHERE backend_type IN ('checkpointer') OR backend_type LIKE 'artrie%'")
		# shellcheck disable=SC2086
		strace -f -c -e trace=fsync,fdatasync,pwrite64,pwritev,io_uring_enter -o "$ARTRIE_TMP/strace.$label" $pids 2>/dev/null &
		st=$!
		sleep 0.5
	fi
	t0=$(now_ns)
	q -c 'CHECKPOINT' >/dev/null
	t1=$(ms_since "$t0")
	redo=$(q -c 'SELECT redo_lsn FROM pg_control_checkpoint()')
	wait_artrie "$redo"
	t2=$(ms_since "$t0")
	l2=$(q -c 'SELECT pg_current_wal_insert_lsn()')
	if [ -n "$st" ]; then
		sleep 0.5
		kill -INT "$st" 2>/dev/null
		wait "$st" 2>/dev/null
	fi
	printf '%-14s CHECKPOINT %9.1f ms  until artrie done %9.1f ms  WAL %9s bytes  artrie writes %6s syncs %6s' \
		"$label" "$t1" "$t2" "$(q -c "SELECT pg_wal_lsn_diff('$l2', '$l0')::bigint")" \
		"$(($(artrie_io writes) - w0))" "$(($(artrie_io syncs) - s0))"
	if [ -n "$st" ] && [ -f "$ARTRIE_TMP/strace.$label" ]; then
		printf '  syscalls:'
		awk '$NF ~ /^(fsync|fdatasync|pwrite64|pwritev|io_uring_enter)$/ { printf " %s %s", $NF, $4 }' "$ARTRIE_TMP/strace.$label"
	fi
	printf '\n'
}

say "$N idle indexes of 10 rows each; one CHECKPOINT after two to settle"
make btree
measure btree
make artrie
measure artrie-open
server_restart
measure artrie-closed
q -c "SELECT 'artrie files open ' || files FROM artrie_pool_stats()"
