#!/usr/bin/env bash
# artrie_stats(index, walk => true) for two builds of artrie (before: a git
# revision, after: this working tree) in one cluster: the call's time and
# the pages it pins (the pool's hits + misses, artrie_pool_stats()), build
# against build.
#
#   bash bench/stats_walk.sh [REPS]     (as root)
#
# Two tables of about 2,000,000 rows, each with an artrie index: synth
# (SWB_ROWS keys, default 2,000,000, all distinct: bench/run.sh's synth
# keys) and words (the american and british insane word lists,
# deduplicated, each word three times: about 2.2 million entries of about
# 740,000 keys).  Each of REPS repetitions (default 3) installs each build
# in turn (the order alternating between repetitions), restarts the
# server, scans each index once to bring it into the pool, then times one
# call on each and counts its pins.  A pool of 1 GB holds both indexes;
# artrie.io_backend is SWB_BACKEND (default io_uring).
#
# Prints every call ("rep build dataset ms pins distinct_keys load"), then
# per build and dataset the medians, and per dataset the medians of the
# repetitions' after / before ratios.  With ARTRIE_BENCH_OUT, also writes
# that output to $ARTRIE_BENCH_OUT/stats_walk-<date>.txt.  SWB_BEFORE is the
# "before" revision (default main).  The two builds must share the on-disk
# format and the extension's SQL.
set -u

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

REPS=${1:-3}
BEFORE=${SWB_BEFORE:-main}
ROWS=${SWB_ROWS:-2000000}
BACKEND=${SWB_BACKEND:-io_uring}

[ "$(id -u)" = 0 ] || {
	echo "$0: run as root (the builds are swapped in the private installation)" >&2
	exit 2
}
OUT=
if [ -n "${ARTRIE_BENCH_OUT:-}" ]; then
	mkdir -p "$ARTRIE_BENCH_OUT"
	OUT=$ARTRIE_BENCH_OUT/stats_walk-$(date -u +%Y%m%d-%H%M).txt
	exec > >(tee "$OUT") 2>&1
fi
bench_builds_cluster "$BEFORE" "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
	"jit = off" "maintenance_work_mem = 1GB" "shared_buffers = 256MB" \
	"artrie.buffer_pool_size = 1GB" "artrie.io_backend = $BACKEND"
cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
	bench_copy_escape | LC_ALL=C sort -u >"$ARTRIE_TMP/words.txt"
chmod a+r "$ARTRIE_TMP/words.txt"
q <<SQL || { last_err; exit 1; }
CREATE TABLE ds_synth (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ds_synth (k) SELECT 'user/' || ((g::bigint * 48271) % ($ROWS / 20 + 7)) || '/item/' || g
FROM generate_series(1, $ROWS) g;
CREATE TABLE w1 (k text COLLATE "C");
COPY w1 FROM '$ARTRIE_TMP/words.txt';
CREATE TABLE ds_words (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ds_words (k) SELECT k FROM w1, generate_series(1, 3) ORDER BY random();
DROP TABLE w1;
CREATE INDEX ds_synth_k ON ds_synth USING artrie (k);
CREATE INDEX ds_words_k ON ds_words USING artrie (k);
VACUUM ANALYZE ds_synth, ds_words;
CHECKPOINT;
SELECT artrie_checkpoint();
SQL
say "$(q -c "SELECT count(*) FROM ds_synth") synth rows, $(q -c "SELECT count(*) FROM ds_words") words rows;" \
	"before = $(git -C "$ARTRIE_SRC" rev-parse --short "$BEFORE") ($BEFORE)," \
	"after = $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1 | sed 's/.*/ + uncommitted changes/');" \
	"$BACKEND; $(nproc) CPUs"

# walk DATASET: "ms pins distinct_keys" of one call in a fresh session.
walk() {
	as_pg "$PG_BIN/psql" -XAtq -v ON_ERROR_STOP=1 -F ' ' -d "$BENCH_DB" 2>"$BENCH_ERR" <<SQL
SELECT hits + misses AS p0, clock_timestamp() AS t0 FROM artrie_pool_stats() \gset
SELECT artrie_stats('ds_$1_k', walk => true) ->> 'distinct_keys' AS d \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1000),
       hits + misses - :p0, :d FROM artrie_pool_stats();
SQL
}

RUNS=$ARTRIE_TMP/runs.txt
: >"$RUNS"
VERSIONS="before after"
for rep in $(seq 1 "$REPS"); do
	for build in $(bench_version_order "$rep"); do
		bench_use_version "$build"
		for ds in synth words; do
			PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off" \
				q -c "SELECT count(*) FROM ds_$ds WHERE k >= ''" -c "SELECT count(*) FROM ds_$ds WHERE k IS NULL" \
				>/dev/null || { last_err; exit 1; }
		done
		for ds in synth words; do
			read -r ms pins distinct < <(walk "$ds") || { last_err; exit 1; }
			printf '%s %s %s %s %s %s %s\n' "$rep" "$build" "$ds" "$ms" "$pins" "$distinct" \
				"$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$RUNS"
		done
	done
done

say "medians of $REPS repetitions (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
awk '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n == 0 ? 0 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
	}
	{ ms[$1, $2, $3] = $4; pins[$1, $2, $3] = $5; d[$2, $3] = $6; if ($1 > reps) reps = $1 }
	END {
		split("synth words", ds, " ")
		for (k = 1; k <= 2; k++) {
			s = ds[k]
			for (bi = 1; bi <= 2; bi++) {
				b = bi == 1 ? "before" : "after"; m = p = ""
				for (r = 1; r <= reps; r++) { m = m " " ms[r, b, s]; p = p " " pins[r, b, s] }
				printf "%-6s %-6s %9.0f ms %11.0f pins  distinct_keys %s\n", b, s, median(m), median(p), d[b, s]
			}
			rm = rp = ""
			for (r = 1; r <= reps; r++) {
				if (ms[r, "before", s] > 0) rm = rm " " ms[r, "after", s] / ms[r, "before", s]
				if (pins[r, "before", s] > 0) rp = rp " " pins[r, "after", s] / pins[r, "before", s]
			}
			printf "after/before %-6s time %.3fx  pins %.3fx\n", s, median(rm), median(rp)
		}
	}' "$RUNS"
[ -n "$OUT" ] && say "written to $OUT"
exit 0
