#!/usr/bin/env bash
# What readers see while VACUUM runs: the latency of prepared exact lookups
# and prefix counts on a table whose index VACUUM is cleaning, artrie
# against btree.
#
#   ARTRIE_BASE=<git ref> bash bench/vacuum_readers.sh [ROUNDS [CLIENTS]]
#
# (as root on Debian 12; default 3 rounds, 2 clients).  Starts a throwaway
# cluster with bench/run.sh's write settings (io_uring, or
# ARTRIE_VR_BACKEND), loads ROWS md5 keys (ARTRIE_VR_ROWS, default
# 1000000) into a source table, and per round, for each index kind
# (artrie, btree; which goes first alternates) and version (with
# ARTRIE_BASE, that revision and this tree, the server restarted with the
# other's artrie.so in between): a fresh copy of the table (id, k COLLATE
# "C") with that index, a DELETE of the even ids (half the rows, spread
# over every heap page and the whole key order), a seq scan (hint bits)
# and a CHECKPOINT; then one pgbench run (-M prepared, CLIENTS clients,
# ARTRIE_VR_SECONDS long, default 40, at ARTRIE_VR_RATE transactions a
# second in all, default 2000, 0 for as fast as they go, pgbench's
# latency then counting from each transaction's scheduled start) of two
# scripts: an exact lookup of a live key (weight 4) and a count of the
# rows under a random 3-hex-digit prefix (a range, weight 1);
# ARTRIE_VR_BEFORE seconds in (default 8) another session runs VACUUM
# (VERBOSE) on the table, and a third samples every 10 ms
# pg_stat_progress_vacuum's phase and the wait events of the pgbench
# backends.  From pgbench's per-transaction log, by completion time, each
# statement's latency (transactions, avg, p50, p99, max in ms) before the
# VACUUM (after the first second), during it, during its index pass
# (phase "vacuuming indexes", from the samples) and after it; the share of
# the readers' samples that waited on an LWLock during the index pass,
# by wait event; the VACUUM's CPU and elapsed time.  At the end the
# medians per version, kind, window and statement, and artrie's ratios to
# btree.  Everything goes to bench/results/vacuum_readers-<date>.txt
# (ARTRIE_BENCH_OUT=<dir> for another directory).  ARTRIE_KEEP=1 keeps
# the scratch directory.
set -u

ROUNDS=${1:-3}
CLIENTS=${2:-2}
ROWS=${ARTRIE_VR_ROWS:-1000000}
RATE=${ARTRIE_VR_RATE:-2000}
DUR=${ARTRIE_VR_SECONDS:-40}
BEFORE=${ARTRIE_VR_BEFORE:-8}
BACKEND=${ARTRIE_VR_BACKEND:-io_uring}
BASE=${ARTRIE_BASE:-}
OUT_DIR=${ARTRIE_BENCH_OUT:-$(cd "$(dirname "$0")" && pwd)/results}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

# This tree as it is built (the build copies it first).
HEAD_LABEL=$(git -C "$ARTRIE_SRC" rev-parse --short HEAD)
[ -z "$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1)" ] || HEAD_LABEL+="+changes"
bench_write_cluster "artrie.io_backend = $BACKEND"
q <<SQL || { cat "$BENCH_ERR"; exit 1; }
CREATE EXTENSION artrie;
CREATE TABLE vr_src (id int, k text COLLATE "C");
INSERT INTO vr_src SELECT g, md5(g::text) FROM generate_series(1, $ROWS) g;
CREATE TABLE vr_samples (ts double precision, phase text, readers int, waits text);
SQL
bench_versions "$BASE"

mkdir -p "$OUT_DIR"
out=$OUT_DIR/vacuum_readers-$(date -u +%Y%m%d-%H%M).txt
runs=$ARTRIE_TMP/runs.tsv
: >"$runs"

# The two statements: a live key (odd ids) and a 3-hex-digit prefix, as a
# range both indexes take with runtime keys ('g' sorts after hex digits).
printf '\\set r random(0, %d)\nSELECT id FROM vr WHERE k = md5((2 * :r + 1)::text);\n' \
	$((ROWS / 2 - 1)) >"$ARTRIE_TMP/lookup.sql"
printf '\\set p random(0, 4095)\nSELECT count(*) FROM vr WHERE k >= lpad(to_hex(:p::int), 3, %s) AND k < lpad(to_hex(:p::int), 3, %s) || %s;\n' \
	"'0'" "'0'" "'g'" >"$ARTRIE_TMP/count.sql"
chmod a+r "$ARTRIE_TMP"/*.sql

# fresh KIND: the table vr anew with a KIND index, half its rows deleted.
fresh() {
	q >/dev/null <<SQL || { cat "$BENCH_ERR"; exit 1; }
DROP TABLE IF EXISTS vr;
CREATE TABLE vr (id int, k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO vr SELECT id, k FROM vr_src ORDER BY id;
CREATE INDEX vr_k ON vr USING $1 (k);
VACUUM ANALYZE vr;
DELETE FROM vr WHERE id % 2 = 0;
SELECT count(*) FROM vr;
TRUNCATE vr_samples;
CHECKPOINT;
SQL
}

# The sampler: every 10 ms, VACUUM's phase and the active pgbench
# backends' wait events, until the VACUUM it saw has ended (at most 300 s).
SAMPLER="DO \$\$
DECLARE
	seen bool := false;
	ph text;
BEGIN
	FOR i IN 1..30000 LOOP
		PERFORM pg_stat_clear_snapshot();
		SELECT phase INTO ph FROM pg_stat_progress_vacuum LIMIT 1;
		EXIT WHEN seen AND ph IS NULL;
		seen := seen OR ph IS NOT NULL;
		INSERT INTO vr_samples
			SELECT extract(epoch FROM clock_timestamp()), ph, count(*),
				string_agg(wait_event_type || ':' || wait_event, ' ')
			FROM pg_stat_activity
			WHERE application_name = 'pgbench' AND state = 'active';
		PERFORM pg_sleep(0.01);
	END LOOP;
END \$\$;"

# run VERSION KIND ROUND: one measurement; rows into $runs.
run() {
	local v=$1 kind=$2 rep=$3 dir=$ARTRIE_TMP/log-$1-$2-$3 rate=() bench samp t0 t1 vout usage removed win
	fresh "$kind"
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	[ "$RATE" = 0 ] || rate=(-R "$RATE")
	(cd "$dir" && as_pg "$PG_BIN/pgbench" -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$DUR" "${rate[@]}" -l \
		-f "$ARTRIE_TMP/lookup.sql@4" -f "$ARTRIE_TMP/count.sql@1" "$BENCH_DB" >"$dir/pgbench.out" 2>&1) &
	bench=$!
	sleep "$BEFORE"
	q -c "$SAMPLER" &
	samp=$!
	sleep 0.1
	t0=$(date +%s.%N)
	vout=$(as_pg "$PG_BIN/psql" -X -d "$BENCH_DB" -c 'VACUUM (VERBOSE) vr' 2>&1)
	t1=$(date +%s.%N)
	wait "$samp"
	wait "$bench" || { cat "$dir/pgbench.out"; exit 1; }
	usage=$(grep -m1 -o 'CPU: user: [0-9.]* s, system: [0-9.]* s, elapsed: [0-9.]* s' <<<"$vout" |
		awk '{ printf "%.2f\t%.2f", $3 + $6, $9 }')
	[ -n "$usage" ] || usage=$'?\t?'
	removed=$(sed -n 's/.* had \([0-9]*\) dead item identifiers removed.*/\1/p' <<<"$vout" | head -1)
	win=$(q -c "SELECT coalesce(min(ts), 0), coalesce(max(ts), 0) FROM vr_samples WHERE phase = 'vacuuming indexes'")
	printf '%s\t%s\t%s\tvacuum\t%s\t%s\t%s\t%s\n' "$v" "$kind" "$rep" "$usage" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
		"$(awk -F'\t' '{ printf "%.2f", $2 - $1 }' <<<"$win")" "${removed:-?}" | tee -a "$runs"
	# Waits of the readers' samples in the index pass: LWLock waits by event.
	q -c "SELECT (SELECT coalesce(sum(readers), 0) FROM vr_samples WHERE phase = 'vacuuming indexes'),
			(SELECT count(*) FROM vr_samples, regexp_split_to_table(waits, ' ') w
			 WHERE phase = 'vacuuming indexes' AND w LIKE 'LWLock:%'),
			coalesce((SELECT string_agg(w || ' ' || n, ', ' ORDER BY n DESC) FROM
				(SELECT w, count(*) n FROM vr_samples, regexp_split_to_table(waits, ' ') w
				 WHERE phase = 'vacuuming indexes' AND w LIKE 'LWLock:%' GROUP BY w) s), 'none')" |
		awk -F'\t' -v v="$v" -v k="$kind" -v r="$rep" '{ printf "%s\t%s\t%s\twaits\t%s\t%s\t%s\n", v, k, r, $1, $2, $3 }' |
		tee -a "$runs"
	# pgbench's log: client transaction latency_us script epoch epoch_us [lag].
	cat "$dir"/pgbench_log.* | awk -v t0="$t0" -v t1="$t1" -v w="$win" \
		-v v="$v" -v k="$kind" -v r="$rep" '
		BEGIN { split(w, iw, "\t") }
		NR == 1 || $5 + $6 / 1e6 < first { first = $5 + $6 / 1e6 }
		{ t[NR] = $5 + $6 / 1e6; lat[NR] = $3 / 1000; s[NR] = $4 }
		END {
			for (i = 1; i <= NR; i++) {
				if (t[i] < first + 1) continue
				win = t[i] < t0 ? "before" : t[i] <= t1 ? "vacuum" : "after"
				print v, k, r, win, s[i], lat[i]
				if (iw[1] > 0 && t[i] >= iw[1] && t[i] <= iw[2])
					print v, k, r, "index_pass", s[i], lat[i]
			}
		}' OFS='\t' | sort -t$'\t' -k4,4 -k5,5n -k6,6g | awk -F'\t' '
		function flush() {
			if (n == 0) return
			i99 = int(n * 0.99 + 0.999999); if (i99 < 1) i99 = 1
			printf "%s\t%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\n", pv, pk, pr, pw, ps, n, sum / n, l[int((n + 1) / 2)], l[i99], l[n]
		}
		{ key = $4 FS $5 }
		key != last { flush(); n = 0; sum = 0; last = key; pv = $1; pk = $2; pr = $3; pw = $4; ps = $5 == 0 ? "lookup" : "count" }
		{ l[++n] = $6; sum += $6 }
		END { flush() }' | tee -a "$runs"
}

{
	say "bash bench/vacuum_readers.sh $ROUNDS $CLIENTS (ARTRIE_BASE=${BASE:-none}), $ROWS md5 keys, the even ids deleted, $BACKEND, rate ${RATE}/s, ${DUR}s runs, VACUUM after ${BEFORE}s, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	say "head = $HEAD_LABEL"
	for kind in artrie btree; do
		fresh "$kind"
		say "$kind plans (generic, as pgbench's prepared statements after five runs):"
		q <<'SQL'
SET plan_cache_mode = force_generic_plan;
PREPARE l(int) AS SELECT id FROM vr WHERE k = md5((2 * $1 + 1)::text);
EXPLAIN (COSTS OFF) EXECUTE l(7);
PREPARE c(int) AS SELECT count(*) FROM vr WHERE k >= lpad(to_hex($1), 3, '0') AND k < lpad(to_hex($1), 3, '0') || 'g';
EXPLAIN (COSTS OFF) EXECUTE c(7);
SQL
	done
	printf 'version\tkind\tround\twindow\tstatement\tn\tavg_ms\tp50_ms\tp99_ms\tmax_ms\n'
	printf '(vacuum rows: version kind round vacuum cpu_s elapsed_s wall_s index_pass_s dead_items_removed; waits rows: reader samples in the index pass, LWLock waits among them, by event)\n'
	for rep in $(seq 1 "$ROUNDS"); do
		for v in $(bench_version_order "$rep"); do
			[ "$VERSIONS" = head ] || bench_use_version "$v"
			for kind in $([ $((rep % 2)) = 1 ] && echo "artrie btree" || echo "btree artrie"); do
				emit_load=$(cut -d' ' -f1 /proc/loadavg)
				printf '%s\t%s\t%s\tload\t%s\n' "$v" "$kind" "$rep" "$emit_load"
				run "$v" "$kind" "$rep"
			done
		done
	done
	say "medians of $ROUNDS rounds (load $(cut -d' ' -f1-3 /proc/loadavg)): transactions, avg, p50, p99, max ms"
	awk -F'\t' 'NF == 10 && $6 ~ /^[0-9]+$/ {
			key = $1 FS $2 FS $4 FS $5
			if (!(key in c)) order[++nk] = key
			c[key]++; N[key, c[key]] = $6; A[key, c[key]] = $7; P5[key, c[key]] = $8; P9[key, c[key]] = $9; M[key, c[key]] = $10
		}
		$4 == "waits" && $5 > 0 { wk = $1 FS $2; wc[wk]++; W[wk, wc[wk]] = $6 / $5 }
		$4 == "vacuum" && NF == 9 { vk = $1 FS $2; if (!(vk in vc)) vorder[++nv] = vk; vc[vk]++; VC[vk, vc[vk]] = $5; VE[vk, vc[vk]] = $6; VI[vk, vc[vk]] = $8 }
		function med(arr, key, k,   j, i, t, v) {
			for (j = 1; j <= k; j++) v[j] = arr[key, j]
			for (j = 2; j <= k; j++) for (i = j; i > 1 && v[i - 1] + 0 > v[i] + 0; i--) { t = v[i]; v[i] = v[i - 1]; v[i - 1] = t }
			return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		}
		END {
			for (i = 1; i <= nv; i++) { k = vorder[i]; split(k, f, FS)
				printf "%-5s %-6s VACUUM: CPU %.2f s, elapsed %.2f s, index pass %.2f s; readers waiting on an LWLock in %.0f%% of their samples in it\n",
					f[1], f[2], med(VC, k, vc[k]), med(VE, k, vc[k]), med(VI, k, vc[k]), (k in wc) ? 100 * med(W, k, wc[k]) : 0 }
			for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, FS)
				m[k, "a"] = med(A, k, c[k]); m[k, "p99"] = med(P9, k, c[k]); m[k, "max"] = med(M, k, c[k])
				printf "%-5s %-6s %-10s %-6s n %7d  avg %7.3f  p50 %7.3f  p99 %7.3f  max %8.3f\n", f[1], f[2], f[3], f[4],
					med(N, k, c[k]), m[k, "a"], med(P5, k, c[k]), m[k, "p99"], m[k, "max"] }
			print "artrie / btree (medians), and each kind in the window against its own before:"
			for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, FS)
				if (f[2] != "artrie") continue
				b = f[1] FS "btree" FS f[3] FS f[4]; ab = f[1] FS "artrie" FS "before" FS f[4]; bb = f[1] FS "btree" FS "before" FS f[4]
				if (!(b in c) || !(ab in c) || !(bb in c)) continue
				printf "%-5s %-10s %-6s avg %5.2fx  p99 %5.2fx  max %5.2fx   artrie/before: avg %5.2fx p99 %5.2fx   btree/before: avg %5.2fx p99 %5.2fx\n",
					f[1], f[3], f[4], m[k, "a"] / m[b, "a"], m[k, "p99"] / m[b, "p99"], m[k, "max"] / m[b, "max"],
					m[k, "a"] / m[ab, "a"], m[k, "p99"] / m[ab, "p99"], m[b, "a"] / m[bb, "a"], m[b, "p99"] / m[bb, "p99"] }
		}' "$runs"
} 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
echo "results: $out"
