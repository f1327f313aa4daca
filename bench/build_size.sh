#!/usr/bin/env bash
# Index size right after CREATE INDEX, artrie against btree on a COLLATE
# "C" column, optionally for two versions of artrie in the same run.
#
#   bash bench/build_size.sh                   (as root on Debian 12)
#
# Loads words (american + british insane word lists, deduplicated),
# synth (bench/prefix_scan.sh's 'user/<n>/item/<g>' keys, $SIZE_ROWS_SYNTH
# rows, default 1,000,000) and paths (find /usr, at most 1,000,000
# lines).  Then per version, per artrie.io_backend in $ARTRIE_BACKENDS
# (default "io_uring mmap") and per dataset: CREATE INDEX with btree and
# with artrie, and records btree's pg_relation_size and artrie's
# artrie_stats(): bytes_on_disk (its file and its main fork), file_bytes
# and pages (the logical pages in use); then drops both.  Sizes do not
# depend on the load, so each is built once.
#
# ARTRIE_BASE=<git ref> also builds that commit into a second private
# install and measures it in the same cluster ("base" and "head").  The
# table goes to $ARTRIE_BENCH_OUT/size-<date>.txt (default bench/results).
set -u

BACKENDS=${ARTRIE_BACKENDS:-io_uring mmap}
DATASETS=${ARTRIE_DATASETS:-words synth paths}
ROWS_SYNTH=${SIZE_ROWS_SYNTH:-1000000}
BASE=${ARTRIE_BASE:-}
OUT_DIR=${ARTRIE_BENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_cluster "$BASE"
bench_ab_load $DATASETS

STAMP=$(date -u +%Y%m%d-%H%M)
mkdir -p "$OUT_DIR"
OUT=$OUT_DIR/size-$STAMP.txt
{
	echo "# bash bench/build_size.sh  (ARTRIE_BASE=${BASE:-none}, ARTRIE_BACKENDS=$BACKENDS), $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo "# head = $HEAD_COMMIT${BASE:+, base = $BASE ($BASE_COMMIT)}"
	echo "# rows: $(for ds in $DATASETS; do printf '%s %s  ' "$ds" "$(q -c "SELECT count(*) FROM ds_$ds")"; done)"
	echo "# btree: pg_relation_size; artrie: artrie_stats(), bytes_on_disk (file and main fork), file_bytes, pages in use"
	printf '%-4s %-8s %-6s %12s %12s %12s %7s %7s %7s %7s\n' version backend dataset \
		"btree B" "artrie B" "file B" pages ratio "file/pg" "extra pages"
	for v in $VERSIONS; do
		for backend in $BACKENDS; do
			bench_ab_switch "$v" "$backend"
			for ds in $DATASETS; do
				q -c "CREATE INDEX bt_$ds ON ds_$ds USING btree (k)" -c "CREATE INDEX ar_$ds ON ds_$ds USING artrie (k)" ||
					{ cat "$BENCH_ERR"; exit 1; }
				q -c "SELECT pg_relation_size('bt_$ds'), s->>'bytes_on_disk', s->>'file_bytes', s->>'pages'
					FROM artrie_stats('ar_$ds') s" |
					awk -F'\t' -v v="$v" -v b="$backend" -v ds="$ds" '{
						printf "%-4s %-8s %-6s %12d %12d %12d %7d %6.3fx %6.3fx %7d\n", v, b, ds, $1, $2, $3, $4,
							$2 / $1, $3 / ($4 * 8192), $3 / 8192 - $4 }'
				q -c "DROP INDEX bt_$ds" -c "DROP INDEX ar_$ds" || { cat "$BENCH_ERR"; exit 1; }
			done
		done
	done
} | tee "$OUT"
say "written $OUT"
