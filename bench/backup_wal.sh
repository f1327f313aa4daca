#!/usr/bin/env bash
# WAL volume per INSERT commit, artrie against btree under the same load,
# with PostgreSQL's CHECKPOINT every few seconds (each moves the redo
# pointer: btree then writes full-page images of the pages it changes
# first, artrie logs the image of each changed file at its next
# checkpoint) and without (no checkpoint during the run).
#
#   bash bench/backup_wal.sh [REPS [SECONDS [CKPT_EVERY]]]   (as root on Debian 12)
#
# Builds a private install, starts a throwaway cluster with bench/run.sh's
# settings (checkpoint_timeout = 1h, so no checkpoint but ours), loads two
# tables of ROWS md5 keys (ARTRIE_INS_ROWS, default 150000), one with a
# btree and one with an artrie index on a COLLATE "C" column, and runs
# pgbench -M prepared with 8 clients of single-row INSERTs of random keys
# (bench/insert_tps.sh's script) for SECONDS (default 20), REPS times
# (default 3), the tables alternating, in each mode.  Per run it prints
# the WAL written (pg_current_wal_lsn() before and after), the inserts
# committed and the WAL per insert, then the medians per table and mode
# and artrie's ratio to btree.  The same on a heap without index gives
# the table's own share.
set -u

REPS=${1:-3}
DUR=${2:-20}
EVERY=${3:-5}
ROWS=${ARTRIE_INS_ROWS:-150000}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_write_cluster
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE ins_btree (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE ins_artrie (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE ins_heap (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO ins_btree (k) SELECT md5(g::text) FROM generate_series(1, $ROWS) g;
INSERT INTO ins_artrie (k) SELECT k FROM ins_btree;
INSERT INTO ins_heap (k) SELECT k FROM ins_btree;
CREATE INDEX ON ins_btree USING btree (k);
CREATE INDEX ON ins_artrie USING artrie (k);
VACUUM ANALYZE ins_btree;
VACUUM ANALYZE ins_artrie;
VACUUM ANALYZE ins_heap;
CHECKPOINT;
SQL
for t in btree artrie heap; do
	printf '\\set r random(1, 1000000000)\nINSERT INTO ins_%s (k) VALUES (%s);\n' \
		"$t" "'ins/' || :client_id || '/' || :r" >"$ARTRIE_TMP/insert_$t.sql"
done
chmod a+r "$ARTRIE_TMP"/*.sql

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run TABLE MODE: one pgbench run; prints "wal_bytes inserts tps".
run() {
	local t=$1 mode=$2 before after out ckpt=
	q -c 'CHECKPOINT' >/dev/null
	sleep 1
	before=$(q -c 'SELECT pg_current_wal_lsn()')
	if [ "$mode" = ckpt ]; then
		(for _ in $(seq 1 $((DUR / EVERY))); do
			sleep "$EVERY"
			q -c 'CHECKPOINT' >/dev/null
		done) &
		ckpt=$!
	fi
	out=$(as_pg "$PG_BIN/pgbench" -n -M prepared -c 8 -j 2 -T "$DUR" -f "$ARTRIE_TMP/insert_$t.sql" "$BENCH_DB" 2>&1)
	[ -n "$ckpt" ] && wait "$ckpt"
	# artrie's checkpoint after the last move of the redo pointer.
	sleep 1
	after=$(q -c 'SELECT pg_current_wal_lsn()')
	echo "$(q -c "SELECT pg_wal_lsn_diff('$after', '$before')::bigint")" \
		"$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')" \
		"$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)"
}

SUMMARY=
declare -A per=() tps=()
for rep in $(seq 1 "$REPS"); do
	for mode in none ckpt; do
		for t in btree artrie heap; do
			read -r wal n v <<<"$(run "$t" "$mode")"
			b=$(awk -v w="$wal" -v n="$n" 'BEGIN { printf "%.0f", (n > 0) ? w / n : 0 }')
			per[$t.$mode]="${per[$t.$mode]:-} $b"
			tps[$t.$mode]="${tps[$t.$mode]:-} $v"
			printf '   rep %d  checkpoints %-4s %-6s %12s WAL bytes %8s inserts %7s bytes/insert %8s tps\n' \
				"$rep" "$mode" "$t" "$wal" "$n" "$b" "$v"
		done
	done
done
for mode in none ckpt; do
	h=$(echo "${per[heap.$mode]}" | median)
	b=$(echo "${per[btree.$mode]}" | median)
	a=$(echo "${per[artrie.$mode]}" | median)
	SUMMARY+=$(printf 'checkpoints %-4s heap %6.0f  btree %6.0f  artrie %6.0f WAL bytes/insert  artrie/btree %.2fx  (index share: btree %6.0f, artrie %6.0f)  tps btree %6.0f artrie %6.0f\n' \
		"$mode" "$h" "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
		"$(awk -v x="$b" -v y="$h" 'BEGIN { print x - y }')" "$(awk -v x="$a" -v y="$h" 'BEGIN { print x - y }')" \
		"$(echo "${tps[btree.$mode]}" | median)" "$(echo "${tps[artrie.$mode]}" | median)")$'\n'
done
say "medians of $REPS runs of ${DUR}s, 8 clients, single-row INSERT commits; 'ckpt': CHECKPOINT every ${EVERY}s"
printf '%s' "$SUMMARY"
