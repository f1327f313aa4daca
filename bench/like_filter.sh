#!/usr/bin/env bash
# Rows of a LIKE prefix read from the heap (a bitmap heap scan), and what
# checking the LIKE again on each row costs: the backend's CPU time per
# query (perf stat task-clock) of
#
#   btree          count(id) ... WHERE k LIKE 'p%' on btree (C)
#   artrie         the same on artrie
#   artrie-prefix  count(id) ... WHERE k ^@ 'p' on artrie (no filter)
#   artrie-filter  artrie's LIKE with "~~" taken out of artrie_text_ops in
#                  a transaction rolled back, as under extension 0.2.0
#                  (only when the installed extension has it there)
#
# on the cluster bench/scan_profile.sh left in SCAN_DIR, in ROUNDS (5)
# rounds, each running every variant once in turn; each figure is the CPU
# time of N (10) queries after a warm-up query, divided by N.  Prints each
# variant's plan, then per dataset and variant the median, the rounds and
# the median's ratio to btree's, and the load average after each round.
#
#   SCAN_DIR=<dir> bash bench/like_filter.sh     (as root; perf installed)
set -u

D=${SCAN_DIR:?set SCAN_DIR to the directory bench/scan_profile.sh used}
PSQL=$D/inst/usr/lib/postgresql/15/bin/psql
PORT=$(sed -n 's/^port = //p' "$D/data/postgresql.conf" | tail -1)
N=${N:-10}
ROUNDS=${ROUNDS:-5}

psql_bench() { runuser -u postgres -- "$PSQL" -XAtq -p "$PORT" -h "$D/sock" -d bench "$@"; }
. "$(dirname "$0")/lib-cpu.sh"

HAVE_OP=$(psql_bench -c "SELECT count(*) FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
	WHERE f.opfname = 'artrie_text_ops' AND o.amopstrategy = 7")
VARIANTS="btree artrie artrie-prefix"
[ "$HAVE_OP" = 1 ] && VARIANTS="$VARIANTS artrie-filter"

# query VARIANT DS PREFIX: the variant's query.
query() {
	if [ "$1" = artrie-prefix ]; then
		echo "SELECT count(id) FROM ds_$2 WHERE k ^@ '$3'"
	else
		echo "SELECT count(id) FROM ds_$2 WHERE k LIKE '$3%'"
	fi
}

# setup VARIANT DS: the statements, in a transaction, that make the
# variant's plan: the other index invalid, "~~" out of the family.
setup() {
	local other=btree
	[ "$1" = btree ] && other=artrie
	echo "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;"
	echo "BEGIN;"
	echo "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ds_${2}_$other'::regclass;"
	if [ "$1" = artrie-filter ]; then
		echo "ALTER OPERATOR FAMILY artrie_text_ops USING artrie DROP OPERATOR 7 (text, text);"
	fi
}

# cpu_ms VARIANT DS PREFIX: CPU ms per query of one backend.
cpu_ms() {
	backend_cpu_ms "$(setup "$@")" "$(query "$@")"
}

# plan VARIANT DS PREFIX: the plan and the count.
plan() {
	{
		setup "$@"
		echo "EXPLAIN (COSTS OFF) $(query "$@");"
		echo "$(query "$@");"
		echo "ROLLBACK;"
	} | psql_bench -f - | sed 's/^/    /'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# bash bench/like_filter.sh: N=$N queries per figure, ROUNDS=$ROUNDS, $(date -u '+%Y-%m-%d %H:%M UTC'), load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(psql_bench -c "SELECT 'extension ' || extversion FROM pg_extension WHERE extname = 'artrie'"); rows: $(psql_bench -c "SELECT string_agg(relname || ' ' || reltuples::bigint, ', ' ORDER BY relname) FROM pg_class WHERE relname IN ('ds_paths', 'ds_synth')")"
for ds in ${LF_DATASETS:-paths synth}; do
	p=$([ "$ds" = paths ] && echo '/us' || echo 'use')
	for v in $VARIANTS; do
		echo "## plan: $ds $v"
		plan "$v" "$ds" "$p"
	done
	declare -A got=()
	for r in $(seq "$ROUNDS"); do
		for v in $VARIANTS; do
			got[$v]+="$(cpu_ms "$v" "$ds" "$p") "
		done
		echo "# $ds round $r done, load $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	bmed=$(printf '%s\n' ${got[btree]} | median)
	printf '%-7s %-14s %9s %7s   %s\n' dataset variant median_ms ratio "rounds (CPU ms per query)"
	for v in $VARIANTS; do
		med=$(printf '%s\n' ${got[$v]} | median)
		printf '%-7s %-14s %9.2f %6.2fx   %s\n' "$ds" "$v" "$med" \
			"$(awk -v a="$med" -v b="$bmed" 'BEGIN { print a / b }')" "${got[$v]}"
	done
	unset got
done
