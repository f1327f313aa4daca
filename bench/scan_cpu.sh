#!/usr/bin/env bash
# CPU time per query of the backend running it (perf stat task-clock),
# btree against artrie, on the cluster bench/scan_profile.sh left in
# SCAN_DIR.  On a machine shared with other jobs, a backend's own CPU time
# moves far less than wall-clock time.
#
#   SCAN_DIR=<dir> bash bench/scan_cpu.sh        (as root; perf installed)
#
# Each figure is the median of 3 runs of N (10) queries after a warm-up
# run; one index at a time is visible (the other marked invalid in a
# transaction rolled back).  SCAN_IDXS picks the indexes ("btree artrie").
set -u

D=${SCAN_DIR:?set SCAN_DIR to the directory bench/scan_profile.sh used}
PSQL=$D/inst/usr/lib/postgresql/15/bin/psql
PORT=$(sed -n 's/^port = //p' "$D/data/postgresql.conf" | tail -1)
N=${N:-10}

. "$(dirname "$0")/lib-cpu.sh"

# cpu_ms QUERY INDEX DATASET BITMAP: CPU ms per query of one backend.
cpu_ms() {
	local other
	other=$([ "$2" = btree ] && echo artrie || echo btree)
	backend_cpu_ms "SET enable_seqscan = off; SET enable_bitmapscan = $4;
SET enable_hashjoin = off; SET enable_mergejoin = off;
BEGIN;
UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${3}_$other'::regclass;" "$1"
}

printf '%-7s %-16s' dataset metric
for idx in ${SCAN_IDXS:-btree artrie}; do printf ' %10s' "$idx"; done
printf '   (CPU ms per query, median of 3)\n'
for ds in paths synth; do
	p=$([ "$ds" = paths ] && echo '/us' || echo 'use')
	for m in prefix_count_3 like_rows_3 prefix_count_1 lookup_join; do
		bitmap=off
		case $m in
		prefix_count_3) q="SELECT count(*) FROM ds_$ds WHERE k LIKE '$p%'" ;;
		prefix_count_1) q="SELECT count(*) FROM ds_$ds WHERE k LIKE '${p:0:1}%'" ;;
		like_rows_3) q="SELECT count(id) FROM ds_$ds WHERE k LIKE '$p%'" bitmap=on ;;
		lookup_join) q="SELECT sum((SELECT count(t.id) FROM ds_$ds t WHERE t.k = p.k)) FROM probe_$ds p" ;;
		esac
		printf '%-7s %-16s' "$ds" "$m"
		for idx in ${SCAN_IDXS:-btree artrie}; do
			cpu_ms "$q" "$idx" "$ds" "$bitmap" >/dev/null
			printf ' %10s' "$(for _ in 1 2 3; do cpu_ms "$q" "$idx" "$ds" "$bitmap"; done | sort -n | sed -n 2p)"
		done
		printf '\n'
	done
done
