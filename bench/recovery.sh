#!/usr/bin/env bash
# Journal recovery time: how fast the io worker replays artrie's journal
# after a crash.
#
#   bash bench/recovery.sh [MB ...]      (default: 10 100)
#
# For each size, on a throwaway cluster whose artrie checkpoints cannot run
# (artrie.checkpoint_timeout = 1 day, a pool large enough never to be
# half dirty), single-row-entry INSERTs fill the journal to that many MB;
# then the postmaster and all its children are SIGKILLed and the server
# restarted.  The io worker logs how long the replay took; the result is
# written as dataset, index, metric, value, unit to
# bench/results/recovery-<date>.tsv and printed.  Absolute figures are
# from the machine it runs on.
set -eu

. "$(dirname "$0")/../test/lib.sh"

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100)

artrie_install_packages
artrie_make_tmp
artrie_build_install

out=$ARTRIE_SRC/bench/results/recovery-$(date -u +%Y%m%d-%H%M).tsv
mkdir -p "$(dirname "$out")"
{
	echo "# artrie journal recovery, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)"
	echo "# command: bash bench/recovery.sh ${sizes[*]}"
	printf 'dataset\tindex\tmetric\tvalue\tunit\n'
} >"$out"

psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }

for mb in "${sizes[@]}"; do
	artrie_start_cluster "artrie.checkpoint_timeout = 86400" \
		"artrie.checkpoint_dirty_percent = 100" \
		"artrie.buffer_pool_size = '4GB'" "checkpoint_timeout = '1h'" \
		"max_wal_size = '20GB'"
	psql_q "CREATE EXTENSION artrie;
		CREATE TABLE j (k text);
		CREATE INDEX j_k ON j USING artrie (k);" >/dev/null
	# One batch tells the journal bytes a row costs; the rest in one go.
	journal_bytes() { psql_q "SELECT (artrie_stats('j_k')->'journal'->>'bytes')::bigint"; }
	psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
	per_row=$(( $(journal_bytes) / 50000 ))
	need=$(( mb * 1024 * 1024 / per_row + 1 ))
	if [ "$need" -gt 50000 ]; then
		psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $need) g" >/dev/null
	fi
	bytes=$(journal_bytes)
	rows=$(psql_q "SELECT count(*) FROM j")

	pm=$(head -1 "$PGDATA/postmaster.pid")
	kids=$(pgrep -P "$pm" || true)
	# shellcheck disable=SC2086
	kill -9 "$pm" $kids
	while kill -0 "$pm" 2>/dev/null; do sleep 0.1; done
	for k in $kids; do while kill -0 "$k" 2>/dev/null; do sleep 0.1; done; done

	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	found=$(psql_q "SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM j WHERE k >= ''" | tail -n 1)
	line=$(grep 'artrie journal: replayed' "$ARTRIE_TMP/server.log" | tail -1)
	secs=$(echo "$line" | sed -nE 's/.* in ([0-9.]+) s$/\1/p')
	real_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	rate=$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.1f", b / 1048576 / s }')
	echo "journal ${real_mb} MB (${rows} rows): replayed in ${secs} s = ${rate} MB/s; rows found through the index after restart: ${found}"
	{
		printf 'journal_%sMB\tartrie-%s\trecovery_time\t%s\ts\n' "$mb" "$(psql_q 'SHOW artrie.io_backend')" "$secs"
		printf 'journal_%sMB\tartrie\trecovery_rate\t%s\tMB/s\n' "$mb" "$rate"
		printf 'journal_%sMB\tartrie\trows_found_after_crash\t%s\tof %s\n' "$mb" "$found" "$rows"
	} >>"$out"

	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null
	rm -rf "$PGDATA"
done
echo "results: $out"
