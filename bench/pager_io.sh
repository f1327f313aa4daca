#!/usr/bin/env bash
# The pager's I/O, io_uring against mmap in one run, next to fio on the
# same disk as the physical limit (issue 4).
#
#   bash bench/pager_io.sh [rows]      (as root, artrie installed)
#
# For each backend, on a throwaway cluster in a scratch directory on the
# disk that holds $SCRATCH (default /var/tmp):
#   flush     CREATE INDEX on a pool that holds the whole index: the pages
#             its checkpoint writes, divided by the time the backend
#             waited for that I/O (writes + the two fdatasyncs)
#   cold read a pool of 1 MB, point lookups that miss: I/O wait per page
#   warm read the same lookups with the index in a 256 MB pool
#   sync      artrie_checkpoint() after a one-row insert: a page or two,
#             a map page, fdatasync, the meta page, fdatasync (median of 20)
# fio: O_DIRECT sequential write bandwidth (256 KiB, QD 32), QD1 8 KiB
# O_DIRECT random read latency, fdatasync latency after an 8 KiB write.
set -eu

ROWS=${1:-1000000}
SCRATCH=${SCRATCH:-/var/tmp}
BIN=$(pg_config --bindir)
DIR=$(mktemp -d "$SCRATCH/artrie-bench.XXXXXX")
PORT=$((20000 + RANDOM % 20000))
chown postgres "$DIR"
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

as_pg() { runuser -u postgres -- "$@"; }
q() { as_pg "$BIN/psql" -h "$DIR" -p "$PORT" -X -At -d postgres "$@"; }

echo "# fio on $(df --output=source "$DIR" | tail -1)"
fio --name=seqw --filename="$DIR/fio" --size=1G --bs=256k --rw=write --direct=1 \
	--ioengine=io_uring --iodepth=32 --end_fsync=1 --output-format=json 2>/dev/null |
	python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["write"]; print("fio seq write O_DIRECT: %.0f MB/s" % (j["bw_bytes"]/1e6))'
fio --name=rr --filename="$DIR/fio" --size=1G --bs=8k --rw=randread --direct=1 \
	--ioengine=psync --runtime=5 --time_based --output-format=json 2>/dev/null |
	python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]; print("fio QD1 8k random read: mean %.0f us, p50 %.0f us" % (j["mean"]/1e3, j["percentile"]["50.000000"]/1e3))'
fio --name=fs --filename="$DIR/fio2" --size=64M --bs=8k --rw=write --ioengine=sync \
	--fdatasync=1 --runtime=5 --time_based --output-format=json 2>/dev/null |
	python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["sync"]["lat_ns"]; print("fio fdatasync: mean %.0f us, p50 %.0f us" % (j["mean"]/1e3, j["percentile"]["50.000000"]/1e3))'
rm -f "$DIR/fio" "$DIR/fio2"

as_pg "$BIN/initdb" -D "$DIR/data" -A trust >/dev/null
cat >>"$DIR/data/postgresql.conf" <<EOC
shared_preload_libraries = 'artrie'
port = $PORT
unix_socket_directories = '$DIR'
artrie.checkpoint_timeout = 3600
EOC

# Start with a backend and a pool size.
start() {
	sed -i '/^artrie.io_backend/d; /^artrie.buffer_pool_size/d' "$DIR/data/postgresql.conf"
	printf "artrie.io_backend = %s\nartrie.buffer_pool_size = %s\n" "$1" "$2" >>"$DIR/data/postgresql.conf"
	as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w start >/dev/null
}
stop() { as_pg "$BIN/pg_ctl" -D "$DIR/data" -w stop >/dev/null; }

# The backends' I/O wait (ms) and the io worker's written bytes and SQEs.
stats() {
	q -F ' ' -c "SELECT (SELECT wait_ms FROM artrie_io_stats() WHERE process = 'backend'),
		sum(write_bytes), sum(reads), sum(requests), sum(sqes), sum(submissions)
		FROM artrie_io_stats()"
}

LOOKUPS="SET enable_seqscan = off; SELECT count(*) FROM generate_series(1, 5000) g,
	LATERAL (SELECT 1 FROM w WHERE t = md5(((g * 7919) % $ROWS + 1)::text)) s"

for backend in io_uring mmap; do
	start "$backend" 1GB
	q -c "CREATE EXTENSION IF NOT EXISTS artrie" >/dev/null
	q -c "DROP TABLE IF EXISTS w; CREATE TABLE w (t text COLLATE \"C\");
		INSERT INTO w SELECT md5(i::text) FROM generate_series(1, $ROWS) i" >/dev/null
	read -r w0 b0 _ <<<"$(stats)"
	q -c "CREATE INDEX wi ON w USING artrie (t)" >/dev/null
	read -r w1 b1 _ _ sq sub <<<"$(stats)"
	echo "$backend flush: $(python3 -c "print('%.0f MB in %.0f ms of I/O wait = %.0f MB/s; %s SQEs in %s submissions' % (($b1-$b0)/1e6, $w1-$w0, ($b1-$b0)/1e3/max($w1-$w0,0.001), '$sq', '$sub'))")"
	stop

	start "$backend" 1MB
	read -r w0 _ r0 rq0 _ <<<"$(stats)"
	q -c "$LOOKUPS" >/dev/null
	read -r w1 _ r1 rq1 _ <<<"$(stats)"
	echo "$backend cold read: $(python3 -c "print('%d pages, %.1f us of I/O wait per page' % ($r1-$r0, ($w1-$w0)*1e3/max($r1-$r0,1)))")"
	stop

	start "$backend" 256MB
	q -c "$LOOKUPS" >/dev/null
	t=$(q -c '\timing on' -c "$LOOKUPS" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
	echo "$backend warm read: 5000 lookups in $t ms"
	for i in $(seq 1 20); do
		q -c "INSERT INTO w VALUES ('sync$i')" -c '\timing on' -c 'SELECT artrie_checkpoint()' |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
	done | sort -n | sed -n 10p | sed "s/^/$backend sync: artrie_checkpoint() of a one-row change, median ms: /"
	stop
	q -c "SELECT 1" >/dev/null 2>&1 || true
	start "$backend" 256MB
	q -c "DROP TABLE w" >/dev/null
	stop
done
