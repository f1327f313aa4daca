#!/usr/bin/env bash
# The full run's build row alone (bench/run.sh, build_pairs), for
# comparing ways of timing it: btree on ds_<dataset> and artrie on
# twin_<dataset> built in pairs side by side, each build in a session of
# its own.
#
#   bash bench/build_pairs.sh [PAIRS]          (as root)
#
# One cluster as the full run's (pools of ARTRIE_BENCH_POOL, default
# 4GB), the datasets ARTRIE_DATASETS (default "words bulgarian") loaded
# as run.sh's full mode loads them.  Per backend of ARTRIE_BACKENDS
# (default "io_uring mmap"), per dataset, per variant of
# BP_VARIANTS (default "before after", the order alternating between
# datasets): twin_<dataset> made anew (as the full run makes it, just
# before its builds; the one before is renamed and kept, so that the new
# one's pages, as the full run's, go to shared buffers never used
# before), ds_<dataset> read once (as the rounds before the builds read
# it), then PAIRS pairs (default 7) of builds.  Variant "after" is
# build_pairs as the full run has it; "before" leaves out its warm-up of
# the two tables (BUILD_WARM=0).
#
# Writes bench/results/build_pairs-<date>.tsv (run.sh's rows, the
# dataset column named <dataset>/<variant>) and prints per backend,
# dataset and variant each kind's builds, the pairs' ratios and their
# median.  ARTRIE_KEEP=1 keeps the scratch directory.
set -u

PAIRS=${1:-7}
BACKENDS=${ARTRIE_BACKENDS:-io_uring mmap}
DATASETS=${ARTRIE_DATASETS:-words bulgarian}
VARIANTS=${BP_VARIANTS:-before after}
OUT_DIR=${ARTRIE_BENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results}
export ARTRIE_BENCH_POOL=${ARTRIE_BENCH_POOL:-4GB}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_cluster ""
bench_sql_helpers
bench_ab_load $DATASETS
mkdir -p "$OUT_DIR"
TSV=$OUT_DIR/build_pairs-$(date -u +%Y%m%d-%H%M).tsv
{
	echo "# bash bench/build_pairs.sh $PAIRS; commit $HEAD_COMMIT; pools $ARTRIE_BENCH_POOL; $(nproc) vCPUs; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$TSV"
# PAIRS pairs exactly: no bound of time (build_pairs stops at BUILD_MAX_MS)
# shellcheck disable=SC2034  # build_pairs' (lib-bench.sh)
BUILD_PAIRS=$PAIRS BUILD_MIN_MS=0 BUILD_MAX_MS=1000000000

n=0
for backend in $BACKENDS; do
	bench_ab_switch head "$backend"
	for ds in $DATASETS; do
		n=$((n + 1))
		order=$VARIANTS
		[ $((n % 2)) = 0 ] && order=$(echo "$VARIANTS" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
		for v in $order; do
			q -c "ALTER TABLE IF EXISTS twin_$ds RENAME TO twin_${ds}_$n$v" \
				-c "CREATE TABLE twin_$ds AS SELECT * FROM ds_$ds ORDER BY id" \
				-c "VACUUM ANALYZE twin_$ds" -c "SELECT count(*) FROM ds_$ds" >/dev/null ||
				{ last_err; exit 1; }
			say "$backend $ds: $v, $PAIRS pairs"
			warm=1
			[ "$v" = before ] && warm=0
			BUILD_WARM=$warm build_pairs "$ds" btree-C "artrie-$backend" bp_btree bp_artrie
			q -c "DROP INDEX IF EXISTS bp_btree" -c "DROP INDEX IF EXISTS bp_artrie" >/dev/null
			sed -i "s|^$ds\t|$ds/$v\t|" "$TSV"
		done
	done
done

echo "== per backend, dataset and variant: builds (ms, less the waits for a CPU) and artrie's ratios to btree's"
awk -F'\t' '$3 == "build" && $5 == "note" { sub(/.*: /, "", $4); print $1, $2, "builds:", $4 }
	$3 == "build" && $5 ~ /^ratio/ { r = $5; sub(/.*pairs: /, "", r); sub(/\)$/, "", r); print $1, $2, "ratio", $4, "pairs:", r }' "$TSV"
echo "== $TSV"
