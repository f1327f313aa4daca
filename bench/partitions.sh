#!/usr/bin/env bash
# What the SQL functions cost given a partitioned artrie index, against
# one index over the same rows, and against the query through the table.
#
#   bash bench/partitions.sh [ROWS [SECONDS]]   (as root on Debian 12)
#
# Builds a private install, starts a throwaway cluster with bench/run.sh's
# settings, and loads ROWS rows (default 200,000; keys
# "w<000..999>/<id>") into a plain table and into tables hash-partitioned
# by id into 8, 64 and 256 partitions, each with an artrie index on the
# key.  Then, for each table, one pgbench client runs for SECONDS
# (default 5) each of: artrie_complete(index, random 5-byte prefix, 10),
# artrie_prefix_count(index, that prefix), and the query
# "SELECT k ... WHERE k ^@ prefix ORDER BY k LIMIT 10" through the table
# (a Merge Append over the partitions' indexes).  It records the
# statements per second in bench/results/partitions-<time>.tsv.
set -u

ROWS=${1:-200000}
DUR=${2:-5}
RESULTS=$(cd "$(dirname "$0")" && pwd)/results
TSV=$RESULTS/partitions-$(date -u +%Y%m%d-%H%M).tsv

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "max_locks_per_transaction = 256"
q -c 'CREATE EXTENSION artrie' || { cat "$BENCH_ERR"; exit 1; }
mkdir -p "$RESULTS"
printf '# bench/partitions.sh %s %s: rows %s, %s s per statement, 1 client\n' \
	"$ROWS" "$DUR" "$ROWS" "$DUR" >"$TSV"

# load TABLE PARTITIONS: the table (plain when PARTITIONS is 1), its rows
# and its artrie index TABLE_k.
load() {
	local t=$1 n=$2 i
	{
		if [ "$n" = 1 ]; then
			echo "CREATE TABLE $t (id int, k text COLLATE \"C\");"
		else
			echo "CREATE TABLE $t (id int, k text COLLATE \"C\") PARTITION BY HASH (id);"
			for i in $(seq 0 $((n - 1))); do
				echo "CREATE TABLE ${t}_$i PARTITION OF $t FOR VALUES WITH (MODULUS $n, REMAINDER $i);"
			done
		fi
		echo "INSERT INTO $t SELECT g, 'w' || lpad((g % 1000)::text, 3, '0') || '/' || g FROM generate_series(1, $ROWS) g;"
		echo "CREATE INDEX ${t}_k ON $t USING artrie (k);"
		echo "VACUUM ANALYZE $t;"
	} | q >/dev/null || { cat "$BENCH_ERR"; exit 1; }
}

# run TABLE NAME SQL: one pgbench client for DUR seconds; records tps.
run() {
	local t=$1 name=$2 sql=$3 out tps
	printf '\\set r random(0, 999)\n%s\n' "$sql" >"$ARTRIE_TMP/$t-$name.sql"
	chmod a+r "$ARTRIE_TMP/$t-$name.sql"
	out=$(as_pg "$PG_BIN/pgbench" -n -M prepared -c 1 -T "$DUR" -f "$ARTRIE_TMP/$t-$name.sql" "$BENCH_DB" 2>&1)
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)
	if [ -n "$tps" ]; then
		emit "$t" artrie "$name" "$tps" tps
	else
		skip "$t" artrie "$name" "$(echo "$out" | grep -m1 -E 'ERROR|error' | cut -c1-200)"
	fi
}

PREFIX="('w' || lpad(:r::text, 3, '0') || '/')"
for n in 1 8 64 256; do
	t=p$n
	load "$t" "$n"
	run "$t" complete "SELECT count(*) FROM artrie_complete('${t}_k', $PREFIX, 10);"
	run "$t" prefix_count "SELECT artrie_prefix_count('${t}_k', $PREFIX);"
	run "$t" query_limit10 "SELECT count(*) FROM (SELECT k FROM $t WHERE k ^@ $PREFIX ORDER BY k LIMIT 10) s;"
done
echo "results: $TSV"
