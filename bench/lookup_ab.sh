#!/usr/bin/env bash
# Exact lookups, artrie against btree on a COLLATE "C" column, side by side:
# the two lookup rows of bench/run.sh that artrie lost, measured alone.
#
#   bash bench/lookup_ab.sh [ROWS [REPS [SECONDS]]]     (as root on Debian 12)
#
# Builds a private install (like bench/run.sh), starts a throwaway cluster
# with bench/run.sh's settings and loads the synth dataset (ROWS keys,
# default 2,000,000), or with ARTRIE_AB_DATASET=words bench/run.sh's words
# (the american and british insane word lists, deduplicated; ROWS unused),
# twice: ds_b with a btree, ds_a with an artrie index, same rows in the
# same order.  The probes are bench/run.sh's (keys in md5 order, every
# tenth one made a miss).  Then, per artrie.io_backend in
# $ARTRIE_BACKENDS (default "io_uring mmap"), REPS times (default 5), the
# two tables alternated within each repetition (which one goes first
# alternates too):
#
#   cold   run.sh's lookup_cold: restart with shared_buffers and
#          artrie.buffer_pool_size = 16MB, sync, drop the OS page cache,
#          then NCOLD probes (default 10,000) in one query, once: us/probe
#   tps    pgbench -M prepared, 2 clients, SECONDS each (default 10):
#          SELECT id FROM <table> WHERE k = <the synth key of a random n>
#          (128MB pools, warmed up; synth only): tps, and the CPU its
#          two backends spent per transaction (us, with perf; see tps())
#   tps-pk the same, with bench/run.sh's lookup_tps statement: the key
#          comes from a primary-key lookup of one of 50,000 probes,
#          SELECT id FROM <table> WHERE k = (SELECT k FROM pb WHERE pid = n)
#   join   bench/run.sh's lookup_join: the 50,000 probes in one query
#          (128MB pools, warm; one backend): us/probe
#
# ARTRIE_AB_COLD=0 leaves the cold runs out (they restart the server and
# drop the OS page cache for every run).
#
# ARTRIE_AB_WORKER=1 adds a third variant under io_uring, "artrie-worker":
# the same artrie index with artrie.backend_reads = off (every read a round
# trip to the io worker, as before that setting existed).
#
# Prints every run, then the medians and artrie's ratio to btree.  After
# each artrie cold run it prints artrie_pool_stats() and the backends' row
# of artrie_io_stats() (misses, reads, time waited for reads).
#
# ARTRIE_PERF=<dir>: also record perf profiles (perf record -g, every
# process of the server) of one extra cold run and one extra pgbench run
# per table and backend into <dir>.  ARTRIE_KEEP=1 keeps the scratch
# directory (server logs).
set -u

ROWS=${1:-2000000}
REPS=${2:-5}
DUR=${3:-10}
NCOLD=${ARTRIE_NCOLD:-10000}
BACKENDS=${ARTRIE_BACKENDS:-io_uring mmap}
PERF_OUT=${ARTRIE_PERF:-}
DATASET=${ARTRIE_AB_DATASET:-synth}
NPROBE=50000

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

[ "$(id -u)" = 0 ] || {
	echo "$0: run as root (it drops the OS page cache)" >&2
	exit 2
}
artrie_make_tmp
bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
BENCH_ERR=$ARTRIE_TMP/psql.err
: >"$BENCH_ERR"
chown postgres: "$BENCH_ERR"
artrie_start_cluster "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
	"jit = off" "max_parallel_workers_per_gather = 0" "max_parallel_maintenance_workers = 0" \
	"maintenance_work_mem = 1GB" "include_if_exists = 'bench_profile.conf'"
as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
MOD=$((ROWS / 20 + 7))
KEY="'user/' || ((%s::bigint * 48271) %% $MOD) || '/item/' || %s"
SHAPES="key pk"
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE ds_b (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
CREATE TABLE ds_a (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
SQL
case "$DATASET" in
synth)
	# shellcheck disable=SC2059
	q -c "INSERT INTO ds_b (k) SELECT $(printf "$KEY" g g) FROM generate_series(1, $ROWS) g" ||
		{ cat "$BENCH_ERR"; exit 1; }
	;;
words)
	cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
		iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' |
		LC_ALL=C sort -u >"$ARTRIE_TMP/words.txt"
	chmod a+r "$ARTRIE_TMP/words.txt"
	q -c "COPY ds_b (k) FROM '$ARTRIE_TMP/words.txt'" || { cat "$BENCH_ERR"; exit 1; }
	ROWS=$(q -c "SELECT count(*) FROM ds_b")
	SHAPES=pk
	;;
*)
	echo "$0: ARTRIE_AB_DATASET is synth or words" >&2
	exit 2
	;;
esac
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
INSERT INTO ds_a (k) SELECT k FROM ds_b ORDER BY id;
CREATE INDEX ON ds_b USING btree (k);
CREATE INDEX ON ds_a USING artrie (k);
VACUUM ANALYZE ds_b, ds_a;
$(bench_probe_sql probe ds_b "$NCOLD")
$(bench_probe_sql pb ds_b "$NPROBE")
ALTER TABLE pb ADD PRIMARY KEY (pid);
VACUUM ANALYZE probe, pb;
CHECKPOINT;
SQL
say "$ROWS $DATASET keys: btree $(q -c "SELECT pg_size_pretty(pg_relation_size('ds_b_k_idx'))"), artrie $(q -c "SELECT pg_size_pretty((artrie_stats('ds_a_k_idx')->>'bytes_on_disk')::bigint)"), heap $(q -c "SELECT pg_size_pretty(pg_relation_size('ds_b'))") each"
for t in ds_a ds_b; do
	# shellcheck disable=SC2059
	[ "$DATASET" = synth ] &&
		printf "\\\\set n random(1, $ROWS)\\nSELECT id FROM $t WHERE k = $KEY;\\n" :n :n >"$ARTRIE_TMP/lookup-key_$t.sql"
	printf '\\set n random(1, %s)\nSELECT id FROM %s WHERE k = (SELECT k FROM pb WHERE pid = :n);\n' \
		"$NPROBE" "$t" >"$ARTRIE_TMP/lookup-pk_$t.sql"
done
chmod a+r "$ARTRIE_TMP"/*.sql

COLD_QRY="SELECT sum((SELECT count(t.id) FROM %s t WHERE t.k = p.k)) FROM probe p"
JOIN_QRY="SELECT sum((SELECT count(t.id) FROM %s t WHERE t.k = p.k)) FROM pb p"

# A variant's table, its session options and its label.
tbl() { if [ "$1" = b ]; then echo ds_b; else echo ds_a; fi; }
opts() { if [ "$1" = w ]; then echo "-c artrie.backend_reads=off"; fi; }
label() { case $1 in a) echo artrie ;; b) echo btree ;; w) echo artrie-worker ;; esac; }

# profile BACKEND POOL_MB: settings file and restart.
profile() {
	printf 'artrie.io_backend = %s\nshared_buffers = %sMB\nartrie.buffer_pool_size = %sMB\n' "$1" "$2" "$2" |
		as_pg tee "$PGDATA/bench_profile.conf" >/dev/null
	server_restart
}

# cold VARIANT: restart with 16MB pools, drop the OS cache, time the probes;
# prints us/probe and the number of rows found.
cold() {
	local out
	profile "$backend" 16
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# shellcheck disable=SC2059
	out=$(as_pg env PGOPTIONS="$(opts "$1")" "$PG_BIN/psql" -XAtq -d "$BENCH_DB" -c '\timing on' \
		-c "$(printf "$COLD_QRY" "$(tbl "$1")")")
	awk -v n="$NCOLD" '/^Time:/ { t = $2 } /^[0-9]+$/ { r = $1 } END { printf "%.2f %s\n", t * 1000 / n, r }' <<<"$out"
}

# tps VARIANT SECONDS SHAPE: one 2-client pgbench run: its tps and the CPU
# time its two backends spent per transaction, in us ("-" without perf).
# The CPU is counted (perf stat) from the first whole second after the
# connections are up to the end, the transactions over the same seconds
# (pgbench's per-second log): on a machine shared with other work the tps
# measures the share of the cores the clients got as much as the index,
# the CPU per transaction only what a statement costs.
tps() {
	local dir=$ARTRIE_TMP/tps.$$ pgb start now pids stat_pid=
	rm -rf "$dir"
	mkdir "$dir"
	chown postgres: "$dir"
	(cd "$dir" && as_pg env PGOPTIONS="$(opts "$1")" "$PG_BIN/pgbench" -n -M prepared -c 2 -j 2 \
		-T "$2" -l --aggregate-interval=1 -f "$ARTRIE_TMP/lookup-$3_$(tbl "$1").sql" "$BENCH_DB" \
		>"$dir/out" 2>&1) &
	pgb=$!
	sleep 1.5
	pids=$(q -c "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE application_name = 'pgbench'")
	now=$(date +%s.%N)
	start=$((${now%.*} + 1))
	sleep "$(awk -v s="$start" -v n="$now" 'BEGIN { print s - n }')"
	if command -v perf >/dev/null && [ -n "$pids" ]; then
		perf stat -x, -e task-clock -p "$pids" -o "$dir/stat" >/dev/null 2>&1 &
		stat_pid=$!
	fi
	wait "$pgb"
	[ -n "$stat_pid" ] && wait "$stat_pid"
	printf '%s %s\n' "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$dir/out" | tail -1)" \
		"$(cat "$dir"/pgbench_log.* 2>/dev/null | awk -v s="$start" -v f="$dir/stat" '
			$1 >= s { n += $2 }
			END {
				while ((getline l < f) > 0)
					if (l ~ /task-clock/) { split(l, a, ","); ms = a[1] }
				if (n > 0 && ms > 0) printf "%.1f", ms * 1000 / n; else printf "-"
			}')"
	rm -rf "$dir"
}

# perf_record FILE COMMAND...: runs COMMAND in the background; once its
# connections are up (after a second) records perf of every process of the
# server until COMMAND ends.
perf_record() {
	local file=$1 cmd_pid perf_pid
	shift
	"$@" >/dev/null &
	cmd_pid=$!
	sleep 1
	perf record -q -g -o "$ARTRIE_TMP/perf.data" \
		-p "$(pgrep -d, -P "$(head -1 "$PGDATA/postmaster.pid")")" >/dev/null 2>&1 &
	perf_pid=$!
	wait "$cmd_pid"
	kill -INT "$perf_pid"
	wait "$perf_pid"
	perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort comm,dso,symbol \
		--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' >"$file"
	rm -f "$ARTRIE_TMP/perf.data"
}

# probes VARIANT: the 50,000 probes in one query, warm: us/probe.
probes() {
	local out
	# shellcheck disable=SC2059
	out=$(as_pg env PGOPTIONS="$(opts "$1")" "$PG_BIN/psql" -XAtq -d "$BENCH_DB" -c '\timing on' \
		-c "$(printf "$JOIN_QRY" "$(tbl "$1")")")
	awk -v n="$NPROBE" '/^Time:/ { t = $2 } END { printf "%.3f\n", t * 1000 / n }' <<<"$out"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

SUMMARY=
for backend in $BACKENDS; do
	declare -A runs=()
	variants="b a"
	[ "$backend" = io_uring ] && [ "${ARTRIE_AB_WORKER:-}" = 1 ] && variants="b a w"
	reversed=$(echo "$variants" | tr ' ' '\n' | tac | tr '\n' ' ')
	for rep in $(seq 1 "$REPS"); do
		[ "${ARTRIE_AB_COLD:-1}" = 0 ] && break
		order=$variants
		[ $((rep % 2)) = 0 ] && order=$reversed
		for t in $order; do
			read -r v n < <(cold "$t")
			runs[cold.$t]="${runs[cold.$t]:-} $v"
			printf '   %-8s rep %d  cold  %-13s %8s us/probe  (%s found)\n' "$backend" "$rep" \
				"$(label "$t")" "$v" "$n"
			if [ "$t" != b ]; then
				printf '      pool: %s\n      io (backends): %s\n' \
					"$(q -c "SELECT format('hits %s misses %s evictions %s', hits, misses, evictions) FROM artrie_pool_stats()")" \
					"$(q -c "SELECT format('reads %s requests %s wait %s ms mode %s', reads, requests, round(wait_ms::numeric, 1), buffer_mode) FROM artrie_io_stats() WHERE process = 'backend'")"
			fi
		done
	done
	profile "$backend" 128
	for shape in $SHAPES; do
		tps a 3 "$shape" >/dev/null
		tps b 3 "$shape" >/dev/null
	done
	for t in $variants; do
		probes "$t" >/dev/null
	done
	for rep in $(seq 1 "$REPS"); do
		order=$variants
		[ $((rep % 2)) = 0 ] && order=$reversed
		for t in $order; do
			v=$(probes "$t")
			runs[join.$t]="${runs[join.$t]:-} $v"
			printf '   %-8s rep %d  join  %-13s %8s us/probe\n' "$backend" "$rep" "$(label "$t")" "$v"
		done
		for shape in $SHAPES; do
			for t in $order; do
				read -r v cpu < <(tps "$t" "$DUR" "$shape")
				runs[tps-$shape.$t]="${runs[tps-$shape.$t]:-} ${v:-0}"
				[ "${cpu:--}" != - ] && runs[cpu-$shape.$t]="${runs[cpu-$shape.$t]:-} $cpu"
				printf '   %-8s rep %d  tps-%-4s %-13s %10s tps  %6s us CPU/transaction\n' "$backend" "$rep" \
					"$shape" "$(label "$t")" "${v:-?}" "${cpu:--}"
			done
		done
	done
	for t in ${variants#b }; do
		if [ "${ARTRIE_AB_COLD:-1}" != 0 ]; then
			b=$(echo "${runs[cold.b]}" | median)
			a=$(echo "${runs[cold.$t]}" | median)
			SUMMARY+=$(printf '%-9s cold lookups  btree-C %8.2f us/probe  %-13s %8.2f us/probe  ratio %sx (lower is better)' \
				"$backend" "$b" "$(label "$t")" "$a" "$(ratio "$a" "$b")")$'\n'
		fi
		b=$(echo "${runs[join.b]}" | median)
		a=$(echo "${runs[join.$t]}" | median)
		SUMMARY+=$(printf '%-9s 50K probes    btree-C %8.3f us/probe  %-13s %8.3f us/probe  ratio %sx (lower is better)' \
			"$backend" "$b" "$(label "$t")" "$a" "$(ratio "$a" "$b")")$'\n'
		for shape in $SHAPES; do
			b=$(echo "${runs[tps-$shape.b]}" | median)
			a=$(echo "${runs[tps-$shape.$t]}" | median)
			SUMMARY+=$(printf '%-9s pgbench c2 %-4s btree-C %7.0f tps      %-13s %8.0f tps       ratio %sx (higher is better)' \
				"$backend" "$shape" "$b" "$(label "$t")" "$a" "$(ratio "$a" "$b")")$'\n'
			if [ -n "${runs[cpu-$shape.b]:-}" ] && [ -n "${runs[cpu-$shape.$t]:-}" ]; then
				b=$(echo "${runs[cpu-$shape.b]}" | median)
				a=$(echo "${runs[cpu-$shape.$t]}" | median)
				SUMMARY+=$(printf '%-9s c2 CPU/xact %-4s btree-C %7.1f us       %-13s %8.1f us        ratio %sx (lower is better)' \
					"$backend" "$shape" "$b" "$(label "$t")" "$a" "$(ratio "$a" "$b")")$'\n'
			fi
		done
	done
	if [ -n "$PERF_OUT" ]; then
		mkdir -p "$PERF_OUT"
		for t in $variants; do
			profile "$backend" 16
			sync
			echo 3 >/proc/sys/vm/drop_caches
			# shellcheck disable=SC2059
			perf_record "$PERF_OUT/$backend-$(label "$t")-cold.txt" \
				as_pg env PGOPTIONS="$(opts "$t")" "$PG_BIN/psql" -XAtq -d "$BENCH_DB" \
				-c 'SELECT pg_sleep(2)' -c "$(printf "$COLD_QRY" "$(tbl "$t")")"
			profile "$backend" 128
			for shape in $SHAPES; do
				tps "$t" 3 "$shape" >/dev/null
				perf_record "$PERF_OUT/$backend-$(label "$t")-tps-$shape.txt" tps "$t" "$DUR" "$shape"
			done
		done
	fi
	unset runs
done
say "medians of $REPS runs; $ROWS $DATASET keys, $NCOLD cold probes (16MB pools, OS cache dropped), pgbench -M prepared -c 2 -T $DUR (128MB pools)"
printf '%s' "$SUMMARY"
