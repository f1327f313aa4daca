#!/usr/bin/env bash
# Crash recovery time: how fast PostgreSQL's redo applies artrie's WAL
# records after a crash.
#
#   bash bench/recovery.sh [MB ...]      (default: 10 100)
#
# For each size, on a throwaway cluster where neither PostgreSQL nor
# artrie checkpoints meanwhile (checkpoint_timeout = 1h, max_wal_size =
# 20GB, artrie.checkpoint_timeout = 1 day, a pool large enough never to be
# half dirty), single-row-entry INSERTs log that many MB of artrie WAL
# records; then the postmaster and all its children are SIGKILLed and the
# server restarted.  Measured: the time from the restart to the index
# answering a query (redo of every record since PostgreSQL's last
# checkpoint, artrie's included), the MB of WAL that redo went over, and
# the artrie records it applied.  The result is written as dataset, index,
# metric, value, unit to bench/results/recovery-<date>.tsv and printed.
# Absolute figures are from the machine it runs on.  With ARTRIE_PERF=DIR
# (as root), the restart runs under `perf record -g`, which follows the
# postmaster's children (the startup process's redo among them), and
# DIR/recovery-<MB>.txt gets the report of the postgres processes,
# DIR/recovery-<MB>-startup.txt the flat report of the startup process
# alone (the process that logged "redo starts at").
#
# The restart time is also split by the server log's timestamps: from the
# start to PostgreSQL's "redo starts" (the data directory sync, artrie's
# own WAL window), redo itself (PostgreSQL's "redo done" and the startup
# process's CPU time it reports, with artrie's log line of the time, and
# CPU time, it spent sorting and applying its held-back entry records;
# on a busy machine the CPU times are the steadier), from there to "ready to accept connections" (the end-of-
# recovery checkpoint) and the query (an index scan over every entry).
set -eu

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100)

artrie_install_packages
artrie_make_tmp
artrie_build_install

out=$ARTRIE_SRC/bench/results/recovery-$(date -u +%Y%m%d-%H%M).tsv
mkdir -p "$(dirname "$out")"
{
	echo "# artrie WAL redo after a crash, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)"
	echo "# command: bash bench/recovery.sh ${sizes[*]}"
	printf 'dataset\tindex\tmetric\tvalue\tunit\n'
} >"$out"

psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }

for mb in "${sizes[@]}"; do
	bench_recovery_cluster
	# One batch tells the bytes of artrie WAL records a row costs; the
	# rest in one go.
	artrie_wal() { psql_q "SELECT (artrie_stats('j_k')->'wal'->>'$1')::bigint"; }
	psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
	per_row=$(( $(artrie_wal bytes) / 50000 ))
	need=$(( mb * 1024 * 1024 / per_row + 1 ))
	if [ "$need" -gt 50000 ]; then
		psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $need) g" >/dev/null
	fi
	bytes=$(artrie_wal bytes)
	rows=$(psql_q "SELECT count(*) FROM j")
	# The WAL redo will go over: from PostgreSQL's redo pointer on.
	wal_bytes=$(psql_q "SELECT pg_current_wal_insert_lsn() - redo_lsn FROM pg_control_checkpoint()")

	bench_crash

	logstart=$(( $(wc -l <"$ARTRIE_TMP/server.log") + 1 ))
	start=$(date +%s.%N)
	if [ -n "${ARTRIE_PERF:-}" ]; then
		mkdir -p "$ARTRIE_PERF"
		perf record -q -g -o "$ARTRIE_TMP/perf.data" -- \
			runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" \
			-l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	else
		as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	fi
	found=$(psql_q "SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM j WHERE k >= ''" | tail -n 1)
	end=$(date +%s.%N)
	secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
	# The restart's log lines, and the time of the first that matches.
	restart_log=$(tail -n +"$logstart" "$ARTRIE_TMP/server.log")
	log_time() {
		local line
		line=$(grep -m1 -- "$1" <<<"$restart_log" || true)
		if [ -n "$line" ]; then date -d "$(awk '{ print $1, $2, $3 }' <<<"$line")" +%s.%N; else echo "$start"; fi
	}
	t_redo=$(log_time 'redo starts at')
	t_done=$(log_time 'redo done at')
	t_ready=$(log_time 'ready to accept connections')
	# artrie's line: "... records in W s (CPU C s), ..."; PostgreSQL's:
	# "redo done at ... CPU: user: U s, system: S s, elapsed: E s"
	art_apply=$(grep -m1 -o 'held-back WAL entry records in [0-9.]* s (CPU [0-9.]* s)' <<<"$restart_log" | awk '{ print $6 }' || true)
	art_cpu=$(grep -m1 -o 'held-back WAL entry records in [0-9.]* s (CPU [0-9.]* s)' <<<"$restart_log" | awk '{ print $9 }' || true)
	sort_cpu=$(grep -m1 -o 'of it (CPU [0-9.]* s) sorting' <<<"$restart_log" | awk '{ print $4 }' || true)
	redo_cpu=$(grep -m1 -o 'CPU: user: [0-9.]* s, system: [0-9.]* s' <<<"$restart_log" | awk '{ printf "%.3f", $3 + $6 }' || true)
	span() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }
	echo "restart: $(span "$start" "$t_redo") s to redo, redo $(span "$t_redo" "$t_done") s (CPU ${redo_cpu:-?} s; artrie's sorted batches ${art_apply:-0} s of it, CPU ${art_cpu:-0} s, sorting CPU ${sort_cpu:-0} s), $(span "$t_done" "$t_ready") s to ready, query $(span "$t_ready" "$end") s"
	replayed=$(artrie_wal replayed)
	art_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	wal_mb=$(awk -v b="$wal_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	rate=$(awk -v b="$wal_bytes" -v s="$secs" 'BEGIN { printf "%.1f", b / 1048576 / s }')
	echo "artrie records ${art_mb} MB (${rows} rows), WAL ${wal_mb} MB: restart to index answering ${secs} s = ${rate} MB/s; artrie records replayed: ${replayed}; rows found through the index: ${found}"
	{
		printf 'wal_%sMB\tartrie-%s\trecovery_time\t%s\ts\n' "$mb" "$(psql_q 'SHOW artrie.io_backend')" "$secs"
		printf 'wal_%sMB\tartrie\twal_replayed\t%s\tMB\n' "$mb" "$wal_mb"
		printf 'wal_%sMB\tartrie\tartrie_records\t%s\tMB\n' "$mb" "$art_mb"
		printf 'wal_%sMB\tartrie\trecovery_rate\t%s\tMB/s\n' "$mb" "$rate"
		printf 'wal_%sMB\tartrie\trecords_replayed\t%s\trecords\n' "$mb" "$replayed"
		printf 'wal_%sMB\tartrie\trows_found_after_crash\t%s\tof %s\n' "$mb" "$found" "$rows"
		printf 'wal_%sMB\tartrie\trestart_to_redo_start\t%s\ts\n' "$mb" "$(span "$start" "$t_redo")"
		printf 'wal_%sMB\tartrie\tredo\t%s\ts\n' "$mb" "$(span "$t_redo" "$t_done")"
		printf 'wal_%sMB\tartrie\tredo_cpu\t%s\ts\n' "$mb" "${redo_cpu:-0}"
		printf 'wal_%sMB\tartrie\tredo_artrie_batches\t%s\ts\n' "$mb" "${art_apply:-0}"
		printf 'wal_%sMB\tartrie\tredo_artrie_batches_cpu\t%s\ts\n' "$mb" "${art_cpu:-0}"
		printf 'wal_%sMB\tartrie\tredo_artrie_sort_cpu\t%s\ts\n' "$mb" "${sort_cpu:-0}"
		printf 'wal_%sMB\tartrie\tredo_done_to_ready\t%s\ts\n' "$mb" "$(span "$t_done" "$t_ready")"
		printf 'wal_%sMB\tartrie\tready_to_query_answered\t%s\ts\n' "$mb" "$(span "$t_ready" "$end")"
	} >>"$out"

	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null
	if [ -n "${ARTRIE_PERF:-}" ]; then
		perf report -i "$ARTRIE_TMP/perf.data" --comm postgres --no-children \
			--percent-limit 1 --stdio 2>/dev/null >"$ARTRIE_PERF/recovery-$mb.txt"
		startup_pid=$(grep -m1 'redo starts at' <<<"$restart_log" | sed -n 's/.*\[\([0-9]*\)\].*/\1/p')
		if [ -n "$startup_pid" ]; then
			perf report -i "$ARTRIE_TMP/perf.data" --pid "$startup_pid" --no-children \
				-g none --percent-limit 0.3 --stdio 2>/dev/null >"$ARTRIE_PERF/recovery-$mb-startup.txt"
		fi
		rm -f "$ARTRIE_TMP/perf.data"
	fi
	rm -rf "$PGDATA"
done
echo "results: $out"
