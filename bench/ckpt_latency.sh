#!/usr/bin/env bash
# Insert latency while checkpoints run: artrie against btree, side by side
# in one pgbench run.
#
#   bash bench/ckpt_latency.sh [SECONDS [CLIENTS]]   (as root on Debian 12)
#
# Builds a private install, starts a throwaway cluster with bench/run.sh's
# settings and artrie.checkpoint_timeout = 2 s, loads two tables of ROWS
# md5 keys (ARTRIE_INS_ROWS, default 300000), one with a btree and one
# with an artrie index on a COLLATE "C" column, then runs pgbench with
# CLIENTS clients (default 4) for SECONDS (default 60): each transaction
# is one single-row INSERT of a random key into one of the two tables
# (two scripts of equal weight), while another session runs PostgreSQL's
# CHECKPOINT every 5 s (each moves the redo pointer: artrie then
# checkpoints every changed file and logs its image; artrie's own
# checkpoints run every 2 s besides).  From pgbench's per-transaction log
# it prints, per table, the inserts, latency p50, p99, p99.9 and max in
# ms, and artrie's ratios to btree.
set -u

DUR=${1:-60}
CLIENTS=${2:-4}
ROWS=${ARTRIE_INS_ROWS:-300000}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster "artrie.checkpoint_timeout = 2"
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE ins_btree (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE ins_artrie (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ins_btree (k) SELECT md5(g::text) FROM generate_series(1, $ROWS) g;
INSERT INTO ins_artrie (k) SELECT k FROM ins_btree;
CREATE INDEX ON ins_btree USING btree (k);
CREATE INDEX ON ins_artrie USING artrie (k);
VACUUM ANALYZE ins_btree;
VACUUM ANALYZE ins_artrie;
CHECKPOINT;
SQL
for t in btree artrie; do
	printf '\\set r random(1, 1000000000)\nINSERT INTO ins_%s (k) VALUES (md5(%s));\n' \
		"$t" "'ins/' || :client_id || '/' || :r" >"$ARTRIE_TMP/insert_$t.sql"
done
mkdir -p "$ARTRIE_TMP/log"
chmod a+r "$ARTRIE_TMP"/*.sql
[ "$(id -u)" = 0 ] && chown postgres: "$ARTRIE_TMP/log"

(for _ in $(seq 1 $((DUR / 5))); do
	sleep 5
	q -c 'CHECKPOINT' >/dev/null
done) &
ckpt=$!
(cd "$ARTRIE_TMP/log" && as_pg "$PG_BIN/pgbench" -n -M prepared -c "$CLIENTS" -j 2 -T "$DUR" -l \
	-f "$ARTRIE_TMP/insert_btree.sql@1" -f "$ARTRIE_TMP/insert_artrie.sql@1" "$BENCH_DB" \
	>"$ARTRIE_TMP/pgbench.out" 2>&1) || { cat "$ARTRIE_TMP/pgbench.out"; exit 1; }
wait "$ckpt"

# pgbench's log: client transaction latency_us script epoch epoch_us.
pct() {
	sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; printf "%.2f", v[i] / 1000 }'
}
declare -A p50=() p99=() p999=() mx=() n=()
for s in 0 1; do
	t=$([ $s = 0 ] && echo btree || echo artrie)
	cat "$ARTRIE_TMP"/log/pgbench_log.* | awk -v s=$s '$4 == s { print $3 }' >"$ARTRIE_TMP/lat_$t"
	n[$t]=$(wc -l <"$ARTRIE_TMP/lat_$t")
	p50[$t]=$(pct 50 <"$ARTRIE_TMP/lat_$t")
	p99[$t]=$(pct 99 <"$ARTRIE_TMP/lat_$t")
	p999[$t]=$(pct 99.9 <"$ARTRIE_TMP/lat_$t")
	mx[$t]=$(pct 100 <"$ARTRIE_TMP/lat_$t")
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
say "${DUR}s, $CLIENTS clients, single-row INSERT commits into btree and artrie tables of $ROWS rows (one pgbench run, two scripts); CHECKPOINT every 5 s, artrie.checkpoint_timeout = 2 s"
for t in btree artrie; do
	printf '%-6s inserts %7d  latency ms: p50 %7s  p99 %7s  p99.9 %8s  max %8s\n' \
		"$t" "${n[$t]}" "${p50[$t]}" "${p99[$t]}" "${p999[$t]}" "${mx[$t]}"
done
printf 'artrie/btree: inserts %s  p50 %sx  p99 %sx  p99.9 %sx  max %sx\n' \
	"$(ratio "${n[artrie]}" "${n[btree]}")" "$(ratio "${p50[artrie]}" "${p50[btree]}")" \
	"$(ratio "${p99[artrie]}" "${p99[btree]}")" "$(ratio "${p999[artrie]}" "${p999[btree]}")" \
	"$(ratio "${mx[artrie]}" "${mx[btree]}")"
q -c "SELECT 'artrie file checkpoints ' || checkpoints || ', pages written by them ' || checkpoint_pages FROM artrie_pool_stats()" || true
