#!/usr/bin/env bash
# Multicolumn indexes: artrie on (tenant_id, path) against btree on the
# same columns, 1,000 tenants.
#
#   bash bench/multicol.sh [ROWS [REPS]]      (as root on Debian 12)
#
# Builds a private install and starts a throwaway cluster (like
# bench/space_churn.sh).  Loads ROWS rows (default 500,000) into table ta:
# tenant_id = i % 1000, path one of the lines of `find /usr -xdev` (row i
# takes line (i * 7919) mod n), path COLLATE "C"; tb is a copy.  Then
# builds an artrie index on ta (tenant_id, path) and a btree index on tb
# (tenant_id, path), and reports:
#   build_ms          CREATE INDEX time
#   size_MB           artrie: its file (artrie_index_info's file_bytes)
#                     plus its metapage; btree: pg_relation_size
# and, over 500 probes (a random row's tenant and the first 2, 3 or 4
# components of its path as the prefix), the median of REPS runs
# (default 5) of each query set, in ms per query:
#   count_like        SELECT count(*) ... WHERE tenant_id = t AND path LIKE 'p%'
#   rows_pfx          SELECT count(id) ... WHERE tenant_id = t AND path ^@ 'p'
#                     (reads each row from the heap)
#   first10           SELECT path ... WHERE tenant_id = t AND path ^@ 'p'
#                     ORDER BY path LIMIT 10 (completion)
#   complete10        artrie_complete('ta_tp', p, 10, ARRAY[t]) on artrie,
#                     SELECT DISTINCT path ... ORDER BY path LIMIT 10 on btree
# Every query set must give the same total on both tables (checked; a
# mismatch is printed).  Sequential scans are off.  ARTRIE_KEEP=1 keeps
# the scratch directory.
set -u

ROWS=${1:-500000}
REPS=${2:-5}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster
q -c 'CREATE EXTENSION artrie' || { cat "$BENCH_ERR"; exit 1; }

PATHS=$ARTRIE_TMP/paths.txt
find /usr -xdev 2>/dev/null | grep -v '[\\]' | LC_ALL=C sort -u >"$PATHS"
chmod a+r "$PATHS"

q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE TABLE src_paths (pid int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, p text COLLATE "C");
COPY src_paths (p) FROM '$PATHS';
CREATE TABLE ta (id bigint, tenant_id int, path text COLLATE "C");
INSERT INTO ta SELECT g, g % 1000, s.p
  FROM generate_series(1, $ROWS) g
  JOIN src_paths s ON s.pid = 1 + (g::bigint * 7919) % (SELECT count(*) FROM src_paths);
CREATE TABLE tb AS SELECT * FROM ta;
VACUUM ANALYZE ta;
VACUUM ANALYZE tb;
-- The probes: a random row's tenant, and its path up to the end of its
-- 2nd, 3rd or 4th component.
CREATE TABLE probes AS
  SELECT row_number() OVER () AS n, tenant_id AS t,
         substring(path FROM '^((/[^/]*){' || (2 + (id % 3)) || '})') AS p
  FROM (SELECT * FROM ta ORDER BY md5(id::text) LIMIT 500) s;
DELETE FROM probes WHERE p IS NULL;
-- run(q): the total of q (a query returning a number, with %1\$s the table,
-- %2\$s the tenant and %3\$L the prefix) over every probe, and the ms it took.
CREATE FUNCTION run(tbl text, q text, OUT total bigint, OUT ms float8)
LANGUAGE plpgsql AS \$\$
DECLARE
  r record;
  v bigint;
  t0 timestamptz := clock_timestamp();
BEGIN
  total := 0;
  FOR r IN SELECT * FROM probes ORDER BY n LOOP
    EXECUTE format(q, tbl, r.t, r.p) INTO v;
    total := total + coalesce(v, 0);
  END LOOP;
  ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
SQL

mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

t0=$(now_ns)
q -c 'CREATE INDEX ta_tp ON ta USING artrie (tenant_id, path)' || { cat "$BENCH_ERR"; exit 1; }
a_build=$(ms_since "$t0")
t0=$(now_ns)
q -c 'CREATE INDEX tb_tp ON tb USING btree (tenant_id, path)' || { cat "$BENCH_ERR"; exit 1; }
b_build=$(ms_since "$t0")
q -c 'SELECT artrie_checkpoint()' >/dev/null
a_size=$(q -c "SELECT file_bytes + pg_relation_size('ta_tp') FROM artrie_index_info('ta_tp')")
b_size=$(q -c "SELECT pg_relation_size('tb_tp')")
nprobes=$(q -c 'SELECT count(*) FROM probes')

say "multicolumn (tenant_id, path): $ROWS rows, 1000 tenants, $nprobes probes, $REPS runs"
printf '%-12s %14s %14s %8s\n' metric artrie btree ratio
printf '%-12s %14s %14s %8s\n' build_ms "$a_build" "$b_build" "$(awk -v a="$a_build" -v b="$b_build" 'BEGIN { printf "%.2f", a / b }')"
printf '%-12s %14s %14s %8s\n' size_MB "$(mb "$a_size")" "$(mb "$b_size")" "$(awk -v a="$a_size" -v b="$b_size" 'BEGIN { printf "%.2f", a / b }')"

declare -A QA QB
QA[count_like]="SELECT count(*) FROM %1\$s WHERE tenant_id = %2\$s AND path LIKE %3\$L || '%%'"
QA[rows_pfx]="SELECT count(id) FROM %1\$s WHERE tenant_id = %2\$s AND path ^@ %3\$L"
QA[first10]="SELECT count(*) FROM (SELECT path FROM %1\$s WHERE tenant_id = %2\$s AND path ^@ %3\$L ORDER BY path LIMIT 10) s"
QA[complete10]="SELECT count(*) FROM artrie_complete('ta_tp', %3\$L, 10, ARRAY[%2\$s::text])"
QB[complete10]="SELECT count(*) FROM (SELECT DISTINCT path FROM %1\$s WHERE tenant_id = %2\$s AND path ^@ %3\$L ORDER BY path LIMIT 10) s"
for m in count_like rows_pfx first10 complete10; do
	qa=${QA[$m]}
	qb=${QB[$m]:-$qa}
	ta_ms=()
	tb_ms=()
	for rep in $(seq 1 "$REPS"); do
		ra=$(PGOPTIONS='-c enable_seqscan=off' q -c "SELECT total || ' ' || ms FROM run('ta', \$q\$$qa\$q\$)") || { cat "$BENCH_ERR"; exit 1; }
		rb=$(PGOPTIONS='-c enable_seqscan=off' q -c "SELECT total || ' ' || ms FROM run('tb', \$q\$$qb\$q\$)") || { cat "$BENCH_ERR"; exit 1; }
		[ "${ra% *}" = "${rb% *}" ] || echo "MISMATCH in $m: artrie total ${ra% *}, btree total ${rb% *}"
		ta_ms+=("${ra#* }")
		tb_ms+=("${rb#* }")
	done
	a=$(printf '%s\n' "${ta_ms[@]}" | median)
	b=$(printf '%s\n' "${tb_ms[@]}" | median)
	printf '%-12s %14s %14s %8s   (ms per query; total %s)\n' "$m" \
		"$(awk -v x="$a" -v n="$nprobes" 'BEGIN { printf "%.4f", x / n }')" \
		"$(awk -v x="$b" -v n="$nprobes" 'BEGIN { printf "%.4f", x / n }')" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" "${ra% *}"
done
