#!/usr/bin/env bash
# Redo CPU of artrie's WAL records: two builds replaying the same WAL.
#
#   ARTRIE_BASE=<git ref> bash bench/recovery_ab.sh [MB [PAIRS]]
#
# (as root; default 100 MB of artrie records, 3 pairs).  Builds the working
# tree and, with ARTRIE_BASE, that commit (private installs), makes one
# throwaway cluster as bench/recovery.sh does (single-row INSERTs of md5
# keys into an empty index log MB of artrie WAL records, no checkpoint
# meanwhile), SIGKILLs it and keeps a copy of the crashed data directory.
# Then it starts a fresh copy of that directory PAIRS times with each
# build, alternating (base, then head), so that every run replays the same
# WAL.  Per run it prints the CPU time artrie's log line gives for sorting
# and applying its held-back entry records and PostgreSQL's redo CPU time
# ("redo done ... system usage"); at the end the medians per build:
# artrie's records in MB per second of its batches' CPU, and the rest of
# redo's CPU (PostgreSQL's own share: reading and decoding the WAL, heap
# redo, holding artrie's records back).  CPU times are the steadier
# figures on a shared machine; wall times are printed too.  The summary is
# written to bench/results/recovery_ab-<date>.txt.
set -eu

MB=${1:-100}
PAIRS=${2:-3}
BASE=${ARTRIE_BASE:-}
OUT_DIR=$(cd "$(dirname "$0")" && pwd)/results

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_begin "$BASE"
chown -R postgres: "$ARTRIE_TMP"

artrie_start_cluster "artrie.checkpoint_timeout = 86400" \
	"artrie.checkpoint_dirty_percent = 100" \
	"artrie.buffer_pool_size = '4GB'" "checkpoint_timeout = '1h'" \
	"max_wal_size = '20GB'"
psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }
psql_q "CREATE EXTENSION artrie;
	CREATE TABLE j (k text);
	CREATE INDEX j_k ON j USING artrie (k);" >/dev/null
artrie_wal_bytes() { psql_q "SELECT (artrie_stats('j_k')->'wal'->>'bytes')::bigint"; }
psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
need=$(( MB * 1024 * 1024 / ($(artrie_wal_bytes) / 50000) + 1 ))
if [ "$need" -gt 50000 ]; then
	psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $need) g" >/dev/null
fi
art_mb=$(awk -v b="$(artrie_wal_bytes)" 'BEGIN { printf "%.1f", b / 1048576 }')
pm=$(head -1 "$PGDATA/postmaster.pid")
kids=$(pgrep -P "$pm" || true)
# shellcheck disable=SC2086
kill -9 "$pm" $kids
while kill -0 "$pm" 2>/dev/null; do sleep 0.1; done
for k in $kids; do while kill -0 "$k" 2>/dev/null; do sleep 0.1; done; done
cp -a "$PGDATA" "$ARTRIE_TMP/crashed"

out=$OUT_DIR/recovery_ab-$(date -u +%Y%m%d-%H%M).txt
mkdir -p "$OUT_DIR"
{
	echo "# bash bench/recovery_ab.sh $MB $PAIRS (ARTRIE_BASE=${BASE:-none}: ${BASE_COMMIT:-}; head $HEAD_COMMIT), $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# artrie records: $art_mb MB ($need rows), replayed from one crashed data directory by every run"
	printf 'version\trun\tartrie_cpu_s\tartrie_sort_cpu_s\tartrie_wall_s\tredo_cpu_s\tredo_wall_s\n'
} >"$out"

for r in $(seq 1 "$PAIRS"); do
	for v in $VERSIONS; do
		b=BIN_$v
		rm -rf "$PGDATA"
		cp -a "$ARTRIE_TMP/crashed" "$PGDATA"
		logstart=$(( $(wc -l <"$ARTRIE_TMP/server.log") + 1 ))
		as_pg "${!b}/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
		log=$(tail -n +"$logstart" "$ARTRIE_TMP/server.log")
		as_pg "${!b}/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null
		# "... records in W s (CPU C s), S s of it (CPU SC s) sorting them"
		art=$(grep -m1 -o 'held-back WAL entry records in [0-9.]* s (CPU [0-9.]* s), [0-9.]* s of it (CPU [0-9.]* s)' <<<"$log" |
			awk '{ gsub(/[()]/, ""); print $9, $16, $6 }' || true)
		redo=$(grep -m1 -o 'CPU: user: [0-9.]* s, system: [0-9.]* s, elapsed: [0-9.]* s' <<<"$log" |
			awk '{ printf "%.3f %s", $3 + $6, $9 }' || true)
		read -r a_cpu a_sort a_wall <<<"${art:-? ? ?}"
		read -r r_cpu r_wall <<<"${redo:-? ?}"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$r" "$a_cpu" "$a_sort" "$a_wall" "$r_cpu" "$r_wall" | tee -a "$out"
	done
done

{
	echo "# medians"
	for v in $VERSIONS; do
		awk -F'\t' -v v="$v" -v mb="$art_mb" '
			function median(a, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			$1 == v && $3 != "?" { n++; c[n] = $3; s[n] = $4; r[n] = $6; o[n] = $6 - $3 }
			END {
				if (n == 0) { print v ": no run gave artrie'\''s log line"; exit }
				ac = median(c, n); printf "%s: artrie batches CPU %.3f s (sorting %.3f s) = %.1f MB/s of artrie records; redo CPU %.3f s, PostgreSQL'\''s share %.3f s (%d runs)\n",
					v, ac, median(s, n), mb / ac, median(r, n), median(o, n), n
			}' "$out"
	done
} | tee -a "$out"
echo "results: $out"
