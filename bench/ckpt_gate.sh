#!/usr/bin/env bash
# How long PostgreSQL's CHECKPOINT takes with a changed artrie index of
# a given size, now that it waits for artrie's checkpoint images at its
# redo pointer (the checkpoint gate, src/pager/pager_ckpt_gate.c).
#
#   ARTRIE_BASE=<git ref> bash bench/ckpt_gate.sh [REPS]   (as root on Debian 12)
#
# Starts a throwaway cluster with bench/run.sh's write settings
# (io_uring), loads, for each size in ARTRIE_GATE_SIZES (default "1000000
# 5000000"), a table of that many synth keys ('user/<hash(n)>/item/<n>')
# with an artrie index, and per repetition (REPS, default 3), for each
# version (with ARTRIE_BASE=<git ref>, that revision and this tree,
# alternating which goes first, the server restarted with the other's
# artrie.so in between): a CHECKPOINT to settle, 1000 rows inserted (the
# index is then changed: the io worker's next pass logs its whole image),
# then a timed CHECKPOINT (ckpt_ms, as psql sees it) and the time from
# its start until artrie's slot reaches its redo pointer (images_ms: the
# io worker's pass at it is done), with the io worker's CPU time meanwhile
# (cpu_ms, from /proc), the pages it read (the image's, read back from
# the file; artrie_io_stats()) and the bytes of WAL artrie logged
# meanwhile (wal_bytes: the image, from artrie_stats()'s counter).
# Prints every run, then the medians per version and size.
# ARTRIE_GATE_BUILD=inserts creates each index on the empty table and
# inserts the rows after it, one entry at a time as INSERT does (pages
# split, so they are partly free), instead of CREATE INDEX on the
# loaded table (a bulk load, pages nearly full).
# ARTRIE_KEEP=1 keeps the scratch directory.
set -u

REPS=${1:-3}
BASE=${ARTRIE_BASE:-}
SIZES=${ARTRIE_GATE_SIZES:-1000000 5000000}
BUILD=${ARTRIE_GATE_BUILD:-create}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "artrie.io_backend = io_uring" "artrie.checkpoint_timeout = 3600"
q -c 'CREATE EXTENSION artrie' || { cat "$BENCH_ERR"; exit 1; }
for n in $SIZES; do
	load="INSERT INTO gate_$n (k) SELECT 'user/' || ((g::bigint * 48271) % ($n / 20 + 7)) || '/item/' || g FROM generate_series(1, $n) g;"
	index="CREATE INDEX gate_${n}_k ON gate_$n USING artrie (k);"
	if [ "$BUILD" = inserts ]; then
		first=$index second=$load
	else
		first=$load second=$index
	fi
	q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE TABLE gate_$n (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
$first
$second
VACUUM ANALYZE gate_$n;
SQL
done
bench_versions "$BASE"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The io worker's CPU time so far, in 10 ms ticks (0 if it is not found).
worker_cpu() {
	local pid
	pid=$(pgrep -f -P "$(head -1 "$PGDATA/postmaster.pid")" '^postgres: artrie io worker' | head -1)
	awk '{ print $14 + $15 }' "/proc/${pid:-0}/stat" 2>/dev/null || echo 0
}

# The pages the io worker has read.
worker_reads() { q -c "SELECT reads FROM artrie_io_stats() WHERE process = 'io worker'"; }

# The bytes of WAL artrie has logged (any index's stats say it).
wal_bytes() { q -c "SELECT artrie_stats('gate_$1_k')->'wal'->>'bytes'"; }

# run VERSION SIZE REP: one measurement, printed as a line.
run() {
	local v=$1 n=$2 rep=$3 t0 t1 t2 w0 w1 r0 r1 b0 b1
	q -c 'CHECKPOINT' >/dev/null || { cat "$BENCH_ERR"; exit 1; }
	sleep 2
	q -c "INSERT INTO gate_$n (k) SELECT 'new/$rep/' || g FROM generate_series(1, 1000) g" ||
		{ cat "$BENCH_ERR"; exit 1; }
	r0=$(worker_reads)
	b0=$(wal_bytes "$n")
	w0=$(worker_cpu)
	t0=$(now_ms)
	q -c 'CHECKPOINT' || { cat "$BENCH_ERR"; exit 1; }
	t1=$(now_ms)
	bench_pass_done
	t2=$(now_ms)
	w1=$(worker_cpu)
	r1=$(worker_reads)
	b1=$(wal_bytes "$n")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$n" "$rep" $((t1 - t0)) $((t2 - t0)) $(((w1 - w0) * 10)) $((r1 - r0)) $((b1 - b0)) |
		tee -a "$ARTRIE_TMP/runs.tsv"
}

say "bash bench/ckpt_gate.sh $REPS (ARTRIE_BASE=${BASE:-none}), sizes $SIZES, indexes by $BUILD, $(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'version\tkeys\trep\tckpt_ms\timages_ms\tcpu_ms\tpages_read\twal_bytes\n'
for rep in $(seq 1 "$REPS"); do
	for v in $(bench_version_order "$rep"); do
		[ "$VERSIONS" = head ] || bench_use_version "$v"
		for n in $SIZES; do
			run "$v" "$n" "$rep"
		done
	done
done
say "medians (load $(cut -d' ' -f1-3 /proc/loadavg))"
for v in $VERSIONS; do
	for n in $SIZES; do
		awk -F'\t' -v v="$v" -v n="$n" '$1 == v && $2 == n { c[++k] = $4; i[k] = $5; u[k] = $6; p[k] = $7; b[k] = $8 }
			function med(a, k,   j, t, s) { for (s = 1; s <= k; s++) for (j = s + 1; j <= k; j++) if (a[j] < a[s]) { t = a[s]; a[s] = a[j]; a[j] = t }
				return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
			END { printf "%-5s %8s keys: CHECKPOINT %7.0f ms, io worker pass done %7.0f ms after its start, its CPU %6.0f ms for %7.0f pages read, %11.0f bytes of WAL (%5.0f a page read)\n",
				v, n, med(c, k), med(i, k), med(u, k), med(p, k), med(b, k), med(p, k) ? med(b, k) / med(p, k) : 0 }' "$ARTRIE_TMP/runs.tsv"
	done
done
