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
#
# With ARTRIE_RECOVERY_DELETES=P (a percentage), a second crashed data
# directory is made the same way, except that after the inserts a
# DELETE removes a random P% of the rows (a fixed seed) and a VACUUM
# removes their entries (delete records in key order, each merging the
# page it leaves underfull), all before the SIGKILL; every round then
# replays both directories with each build, and the medians are given per
# WAL ("inserts", "deletes"), each against all the artrie records of its
# window.  A third directory, "checkpointed", takes a checkpoint (artrie's
# and PostgreSQL's) between the inserts and the DELETE, so that redo
# replays only the delete records, over the whole trie as the primary had
# it: its merges, spills and repacks are the primary's.  With ARTRIE_PERF=DIR, after the rounds each directory is
# replayed once more by the head build under `perf record -g`, and
# DIR/recovery_ab-<wal>-startup.txt gets the startup process's report
# (inclusive and own shares per function).
set -eu

MB=${1:-100}
PAIRS=${2:-3}
BASE=${ARTRIE_BASE:-}
OUT_DIR=$(cd "$(dirname "$0")" && pwd)/results

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_begin "$BASE"
chown -R postgres: "$ARTRIE_TMP"

DELETES=${ARTRIE_RECOVERY_DELETES:-0}
psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }
artrie_wal_bytes() { psql_q "SELECT (artrie_stats('j_k')->'wal'->>'bytes')::bigint"; }

# make_crashed WAL PERCENT [checkpoint]: a throwaway cluster logs MB of
# artrie insert records, then (after a checkpoint) deletes PERCENT% of the
# rows and vacuums, is SIGKILLed, and its data directory is kept as
# $ARTRIE_TMP/crashed-WAL; sets mb_WAL (the artrie records of the window
# redo replays, MB) and desc_WAL.
make_crashed() {
	local wal=$1 pct=$2 need ins_bytes from=0 bytes
	[ -z "${PGDATA:-}" ] || rm -rf "$PGDATA"
	bench_recovery_cluster
	psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
	need=$(( MB * 1024 * 1024 / ($(artrie_wal_bytes) / 50000) + 1 ))
	if [ "$need" -gt 50000 ]; then
		psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $need) g" >/dev/null
	fi
	ins_bytes=$(artrie_wal_bytes)
	if [ "${3:-}" = checkpoint ]; then
		psql_q "SELECT artrie_checkpoint()" >/dev/null
		psql_q "CHECKPOINT" >/dev/null
		from=$(artrie_wal_bytes)
	fi
	if [ "$pct" -gt 0 ]; then
		psql_q "SELECT setseed(0.5); DELETE FROM j WHERE random() < $pct / 100.0" >/dev/null
		psql_q "VACUUM j" >/dev/null
	fi
	bytes=$(artrie_wal_bytes)
	printf -v "mb_$wal" '%s' "$(awk -v b="$bytes" -v f="$from" 'BEGIN { printf "%.1f", (b - f) / 1048576 }')"
	printf -v "desc_$wal" '%s' "$(awk -v b="$bytes" -v f="$from" -v i="$ins_bytes" -v n="$need" -v p="$pct" -v r="$(psql_q 'SELECT count(*) FROM j')" \
		'BEGIN { printf "%.1f MB in the window (%d rows inserted: %.1f MB%s; %d%% deleted and vacuumed: %.1f MB; %d rows left)", (b - f) / 1048576, n, i / 1048576, (f > 0 ? ", then a checkpoint" : ""), p, (b - i - (f > 0 ? f - i : 0)) / 1048576, r }')"
	bench_crash
	rm -rf "$ARTRIE_TMP/crashed-$wal"
	cp -a "$PGDATA" "$ARTRIE_TMP/crashed-$wal"
}

WALS=inserts
make_crashed inserts 0
if [ "$DELETES" -gt 0 ]; then
	WALS="inserts deletes checkpointed"
	make_crashed deletes "$DELETES"
	make_crashed checkpointed "$DELETES" checkpoint
fi

out=$OUT_DIR/recovery_ab-$(date -u +%Y%m%d-%H%M).txt
mkdir -p "$OUT_DIR"
{
	echo "# ${ARTRIE_RECOVERY_DELETES:+ARTRIE_RECOVERY_DELETES=$DELETES }bash bench/recovery_ab.sh $MB $PAIRS (ARTRIE_BASE=${BASE:-none}: ${BASE_COMMIT:-}; head $HEAD_COMMIT), $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	for w in $WALS; do
		d=desc_$w
		echo "# $w: artrie records ${!d}, replayed from one crashed data directory by every run"
	done
	printf 'version\twal\trun\tartrie_cpu_s\tartrie_sort_cpu_s\tartrie_wall_s\tredo_cpu_s\tredo_wall_s\n'
} >"$out"

# replay VERSION WAL: start a fresh copy of WAL's crashed directory with
# VERSION's build and stop it; sets log to the restart's server log.
replay() {
	local b=BIN_$1 logstart
	rm -rf "$PGDATA"
	cp -a "$ARTRIE_TMP/crashed-$2" "$PGDATA"
	logstart=$(( $(wc -l <"$ARTRIE_TMP/server.log") + 1 ))
	${PERF_CMD:-} runuser -u postgres -- "${!b}/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	log=$(tail -n +"$logstart" "$ARTRIE_TMP/server.log")
	as_pg "${!b}/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null
}

for r in $(seq 1 "$PAIRS"); do
	for v in $VERSIONS; do
		for w in $WALS; do
			replay "$v" "$w"
			# "... records in W s (CPU C s), S s of it (CPU SC s) sorting them"
			art=$(grep -m1 -o 'held-back WAL entry records in [0-9.]* s (CPU [0-9.]* s), [0-9.]* s of it (CPU [0-9.]* s)' <<<"$log" |
				awk '{ gsub(/[()]/, ""); print $9, $16, $6 }' || true)
			redo=$(grep -m1 -o 'CPU: user: [0-9.]* s, system: [0-9.]* s, elapsed: [0-9.]* s' <<<"$log" |
				awk '{ printf "%.3f %s", $3 + $6, $9 }' || true)
			read -r a_cpu a_sort a_wall <<<"${art:-? ? ?}"
			read -r r_cpu r_wall <<<"${redo:-? ?}"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$w" "$r" "$a_cpu" "$a_sort" "$a_wall" "$r_cpu" "$r_wall" | tee -a "$out"
		done
	done
done

{
	echo "# medians"
	for v in $VERSIONS; do
		for w in $WALS; do
			m=mb_$w
			awk -F'\t' -v v="$v" -v w="$w" -v mb="${!m}" '
				function median(a, n,   i, j, t) {
					for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
					return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
				}
				$1 == v && $2 == w && $4 != "?" { n++; c[n] = $4; s[n] = $5; r[n] = $7; o[n] = $7 - $4 }
				END {
					if (n == 0) { print v ", " w ": no run gave artrie'\''s log line"; exit }
					ac = median(c, n); printf "%s, %s: artrie batches CPU %.3f s (sorting %.3f s) = %.1f MB/s of artrie records (%.1f MB); redo CPU %.3f s, PostgreSQL'\''s share %.3f s (%d runs)\n",
						v, w, ac, median(s, n), mb / ac, mb, median(r, n), median(o, n), n
				}' "$out"
		done
	done
} | tee -a "$out"

if [ -n "${ARTRIE_PERF:-}" ]; then
	mkdir -p "$ARTRIE_PERF"
	for w in $WALS; do
		PERF_CMD="perf record -q -g -o $ARTRIE_TMP/perf.data --"
		replay head "$w"
		PERF_CMD=
		startup_pid=$(grep -m1 'redo starts at' <<<"$log" | sed -n 's/.*\[\([0-9]*\)\].*/\1/p')
		{
			grep -o 'artrie applied .*' <<<"$log" || true
			grep -o 'redo done at .*' <<<"$log" || true
			perf report -i "$ARTRIE_TMP/perf.data" --pid "$startup_pid" --children \
				-g none --percent-limit 0.3 --stdio 2>/dev/null
		} >"$ARTRIE_PERF/recovery_ab-$w-startup.txt"
		rm -f "$ARTRIE_TMP/perf.data"
		echo "profile: $ARTRIE_PERF/recovery_ab-$w-startup.txt"
	done
fi
echo "results: $out"
