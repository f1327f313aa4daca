#!/usr/bin/env bash
# What a checkpoint of a big index writes of its page map, and what a
# load of it reads (the two-level page map).
#
#   ARTRIE_PRIVATE_INSTALL=1 bash bench/map_checkpoint.sh [rows] [fanouts]
#
# On a throwaway cluster (io_uring, a pool that holds the index): for each
# map fanout (artrie.test_map_fanout; 1020 is a real file's, a small one
# gives a small index the map of a big one), CREATE INDEX over [rows] md5
# keys, then 10 times: insert one row and artrie_checkpoint(); prints the
# index's pages, its map pages and directory pages (the arithmetic), the
# median pages written per checkpoint (artrie_io_stats, every process) and
# the median checkpoint time.  A one-level map, written whole by every
# checkpoint, would write all the map pages each time.  Then a restart and
# the time of the first query, which loads the map.
set -u

. "$(dirname "$0")/../test/lib.sh"

ROWS=${1:-1000000}
FANOUTS=${2:-"1020 16"}

artrie_make_tmp
artrie_build_install
artrie_start_cluster "artrie.io_backend = 'io_uring'" "artrie.buffer_pool_size = '512MB'" \
	"artrie.checkpoint_timeout = 3600" "checkpoint_timeout = 3600"

q() { as_pg "$PG_BIN/psql" -X -At -q -d postgres "$@"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

q -c 'CREATE EXTENSION artrie'
q -c "CREATE TABLE t (id int, k text COLLATE \"C\");
	INSERT INTO t SELECT i, md5(i::text) FROM generate_series(1, $ROWS) i"
echo "# rows $ROWS, commit $(git -C "$ARTRIE_SRC" rev-parse --short HEAD), $(date -u +%Y%m%d-%H%M)"
printf 'fanout\tpages\tmap_pages\tdir_pages\twrites_per_ckpt\tckpt_ms\tload_ms\n'
n=$ROWS
for f in $FANOUTS; do
	q -c "SET artrie.test_map_fanout = $f; CREATE INDEX ti_$f ON t USING artrie (k)"
	q -c 'SELECT artrie_checkpoint()' >/dev/null
	pages=$(q -c "SELECT (artrie_stats('ti_$f')::json->>'pages')")
	maps=$(( (pages + f - 1) / f ))
	dirs=$(( (maps + f - 1) / f ))
	writes=()
	times=()
	for r in $(seq 1 10); do
		n=$((n + 1))
		q -c "INSERT INTO t VALUES ($n, md5('extra' || $n))"
		before=$(q -c 'SELECT sum(writes) FROM artrie_io_stats()')
		t0=$(date +%s%N)
		q -c 'SELECT artrie_checkpoint()' >/dev/null
		t1=$(date +%s%N)
		after=$(q -c 'SELECT sum(writes) FROM artrie_io_stats()')
		writes+=($((after - before)))
		times+=($(( (t1 - t0) / 1000 )))
	done
	w=$(printf '%s\n' "${writes[@]}" | median)
	tm=$(printf '%s\n' "${times[@]}" | median | awk '{ printf "%.1f", $1 / 1000 }')
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w restart -l "$ARTRIE_TMP/server.log" >/dev/null
	t0=$(date +%s%N)
	q -c "SELECT count(*) FROM t WHERE k = md5('42')" >/dev/null
	t1=$(date +%s%N)
	load=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$pages" "$maps" "$dirs" "$w" "$tm" "$load"
	q -c "DROP INDEX ti_$f"
done
