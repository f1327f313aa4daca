#!/usr/bin/env bash
# VACUUM's instructions under callgrind: artrie against btree, two builds.
#
#   ARTRIE_BASE=<git ref> bash bench/vacuum_cg.sh [ROWS]
#
# (as root; default 200,000 rows).  Builds the working tree (head) and,
# with ARTRIE_BASE, that commit (base), private installs.  One cluster
# (artrie.io_backend = mmap: valgrind does not know io_uring) gets a table
# v of ROWS md5 keys with an artrie index and its twin vb with a btree
# index, both COLLATE "C"; half the rows of each (the same ones) are
# deleted, then a checkpoint and a clean shutdown, kept as the source.
# Per build, a fresh copy of it is started under valgrind's callgrind, and
# VACUUM v and VACUUM vb run in a session each: the instructions of each
# session's backend (counts, not times: the machine's load does not move
# them), the ratio of artrie's to btree's and the artrie index's pages
# after it.  Each build's VACUUM v also gets callgrind_annotate's
# inclusive profile (its 40 costliest functions).  The summary and the
# profiles are written to bench/results/vacuum_cg-<date>.txt.
set -eu

ROWS=${1:-200000}
BASE=${ARTRIE_BASE:-}
OUT_DIR=$(cd "$(dirname "$0")" && pwd)/results

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

command -v valgrind >/dev/null || {
	echo "$0: valgrind is not installed (apt-get install valgrind)" >&2
	exit 2
}
bench_ab_begin "$BASE"
chown -R postgres: "$ARTRIE_TMP"

psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }

artrie_start_cluster "autovacuum = off" "jit = off" "artrie.io_backend = mmap" \
	"shared_buffers = 512MB" "artrie.buffer_pool_size = 512MB" \
	"checkpoint_timeout = 1h" "max_wal_size = 8GB"
psql_q "CREATE EXTENSION artrie;
	CREATE TABLE v (id int, k text COLLATE \"C\");
	INSERT INTO v SELECT n, md5(n::text) FROM generate_series(1, $ROWS) n;
	CREATE TABLE vb AS SELECT * FROM v;
	CREATE INDEX v_k ON v USING artrie (k);
	CREATE INDEX vb_k ON vb (k);
	DELETE FROM v WHERE hashint4(id) % 2 = 0;
	DELETE FROM vb WHERE hashint4(id) % 2 = 0" >/dev/null
psql_q "SELECT artrie_checkpoint()" >/dev/null
psql_q "CHECKPOINT" >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
cp -a "$PGDATA" "$ARTRIE_TMP/source"

# cg_ir FILE: the instructions a callgrind output file counts.
cg_ir() { callgrind_annotate "$1" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,; }

cg=$ARTRIE_TMP/cg
mkdir -p "$cg"
chown postgres: "$cg"
out=$OUT_DIR/vacuum_cg-$(date -u +%Y%m%d-%H%M).txt
mkdir -p "$OUT_DIR"
{
	echo "# ${ARTRIE_BASE:+ARTRIE_BASE=$BASE }bash bench/vacuum_cg.sh $ROWS (base ${BASE_COMMIT:-none}; head $HEAD_COMMIT), $(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# $ROWS md5 keys in v (artrie) and vb (btree), the same half deleted; instructions of the backend running each VACUUM, under callgrind"
	printf 'version\tartrie_vacuum_instructions\tbtree_vacuum_instructions\tratio\tartrie_pages_after\n'
} >"$out"

# vacuum_session TABLE NAME: VACUUM TABLE in a session of its own under
# the running callgrind server; its backend's output file becomes
# $cg/NAME.
vacuum_session() {
	local new f
	find "$cg" -name 'cg.*' | sort >"$cg/before"
	psql_q "VACUUM (PROCESS_TOAST false) $1" >/dev/null
	sleep 3
	new=$(find "$cg" -name 'cg.*' | sort | comm -13 "$cg/before" -)
	f=$(for x in $new; do echo "$(cg_ir "$x") $x"; done | sort -n | tail -1 | cut -d' ' -f2)
	mv "$f" "$cg/$2"
}

for v in $VERSIONS; do
	b=BIN_$v
	rm -rf "$PGDATA"
	cp -a "$ARTRIE_TMP/source" "$PGDATA"
	as_pg valgrind --tool=callgrind --callgrind-out-file="$cg/cg.%p" "${!b}/postgres" -D "$PGDATA" \
		>"$cg/server-$v.log" 2>&1 &
	vpid=$!
	for n in $(seq 1 300); do as_pg "${!b}/pg_isready" -q && break; sleep 1; done
	vacuum_session v "$v-v"
	vacuum_session vb "$v-vb"
	pages=$(psql_q "SELECT artrie_stats('v_k')->>'pages'")
	as_pg "${!b}/pg_ctl" -D "$PGDATA" -m fast -w -t 600 stop >/dev/null
	wait "$vpid" || true
	a=$(cg_ir "$cg/$v-v")
	bt=$(cg_ir "$cg/$v-vb")
	printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$a" "$bt" "$(awk -v a="$a" -v b="$bt" 'BEGIN { printf "%.2f", a / b }')" "$pages" | tee -a "$out"
done
for v in $VERSIONS; do
	{
		echo "# $v: VACUUM v, inclusive instructions by function (callgrind_annotate --inclusive=yes)"
		callgrind_annotate --inclusive=yes --threshold=100 "$cg/$v-v" 2>/dev/null |
			grep -E '^ *[0-9,]+ \(' | head -40
	} >>"$out"
done
echo "results: $out"
