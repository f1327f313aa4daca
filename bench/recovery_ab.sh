#!/usr/bin/env bash
# Redo CPU of artrie's WAL records: two builds replaying the same WAL.
#
#   ARTRIE_BASE=<git ref> bash bench/recovery_ab.sh [MB [PAIRS]]
#
# (as root; default 100 MB of artrie records, 3 pairs).  Builds the working
# tree and, with ARTRIE_BASE, that commit (private installs), makes one
# throwaway cluster as bench/recovery.sh does (single-row INSERTs of md5
# keys into an empty index log MB of artrie WAL records, no checkpoint
# meanwhile), SIGKILLs it and keeps a copy of the crashed data directory.
# Then it starts a fresh copy of that directory PAIRS times with each
# build, alternating (base, then head), so that every run replays the same
# WAL.  Per run it prints the CPU time artrie's log line gives for sorting
# and applying its held-back entry records and PostgreSQL's redo CPU time
# ("redo done ... system usage"), and the page faults of the batches
# (builds that log them); at the end the medians per build:
# artrie's records in MB per second of its batches' CPU, and the rest of
# redo's CPU (PostgreSQL's own share: reading and decoding the WAL, heap
# redo, holding artrie's records back).  CPU times are the steadier
# figures on a shared machine; wall times are printed too.  The summary is
# written to bench/results/recovery_ab-<date>.txt.
#
# With ARTRIE_RECOVERY_DELETES=P (a percentage), a second crashed data
# directory is made the same way, except that after the inserts a
# DELETE removes a random P% of the rows (a fixed seed) and a VACUUM
# removes their entries (delete records in key order, each merging the
# page it leaves underfull), all before the SIGKILL; every round then
# replays both directories with each build, and the medians are given per
# WAL ("inserts", "deletes"), each against all the artrie records of its
# window.  A third directory, "checkpointed", takes a checkpoint (artrie's
# and PostgreSQL's) between the inserts and the DELETE, so that redo
# replays only the delete records, over the whole trie as the primary had
# it: its merges, spills and repacks are the primary's.  With ARTRIE_PERF=DIR, after the rounds each directory is
# replayed once more by the head build under `perf record -g`, and
# DIR/recovery_ab-<wal>-startup.txt gets the startup process's report
# (inclusive and own shares per function), DIR/recovery_ab-<wal>-startup-self.txt
# its own shares alone, kernel functions among them (the call chains
# through the C library and PostgreSQL break: a system call's kernel time
# shows under the library function, not under its caller).
#
# With ARTRIE_RECOVERY_DELETES, the VACUUM that makes those delete records
# is timed on the primary too: a fourth cluster gets the same inserts into
# j and into a twin table jb with a btree index, a checkpoint and a clean
# shutdown; every round, each build starts a fresh copy of it, deletes
# the same rows of both tables (the same seed, the same heap order) and
# runs VACUUM (VERBOSE) on j, then on jb, in one session; the rows
# ("vacuum" in the wal column) give each VACUUM's CPU and elapsed time as
# its VERBOSE report gives them, the ratio of artrie's to btree's and the
# index's pages after it (artrie_stats).  With ARTRIE_PERF=DIR, the head
# build's last VACUUM j is profiled for 30 s too
# (DIR/recovery_ab-vacuum-backend.txt).  ARTRIE_RECOVERY_VACUUM_ONLY=1
# times only that VACUUM: no crashed directory but the inserts' (which
# sizes the table) is made, and nothing is replayed.
#
# ARTRIE_RECOVERY_WALS limits the WALs made and replayed to those it names
# (say "checkpointed", the deletes alone), and ARTRIE_RECOVERY_VACUUM=0
# leaves out the VACUUM on the primary.  With ARTRIE_RECOVERY_OWN_WAL=1,
# each build makes its own crashed directories (the same statements, the
# same rows: the first build's count of inserts) and replays only those:
# for builds that log differently (VACUUM's merge records, which a build
# before them refuses); each build's MB/s is then of its own window, and
# the header gives each window's size.
set -eu

MB=${1:-100}
PAIRS=${2:-3}
BASE=${ARTRIE_BASE:-}
OUT_DIR=$(cd "$(dirname "$0")" && pwd)/results

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

bench_ab_begin "$BASE"
chown -R postgres: "$ARTRIE_TMP"

DELETES=${ARTRIE_RECOVERY_DELETES:-0}
VACUUM_ONLY=${ARTRIE_RECOVERY_VACUUM_ONLY:-0}
psql_q() { as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }
artrie_wal_bytes() { psql_q "SELECT (artrie_stats('j_k')->'wal'->>'bytes')::bigint"; }

# make_crashed WAL PERCENT [checkpoint]: a throwaway cluster logs MB of
# artrie insert records (or, with rows_fixed set, that many rows), then
# (after a checkpoint) deletes PERCENT% of the rows and vacuums, is
# SIGKILLed, and its data directory is kept as $ARTRIE_TMP/crashed-WAL
# (crashed-WAL-<version> with ARTRIE_RECOVERY_OWN_WAL, the build PG_BIN
# names); sets mb_WAL (the artrie records of the window redo replays, MB;
# mb_WAL_<version> too), desc_WAL and rows_inserted.
make_crashed() {
	local wal=$1 pct=$2 need ins_bytes from=0 bytes mb dir=$1${own_version:+-$own_version}
	[ -z "${PGDATA:-}" ] || rm -rf "$PGDATA"
	bench_recovery_cluster
	psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
	need=${rows_fixed:-$(( MB * 1024 * 1024 / ($(artrie_wal_bytes) / 50000) + 1 ))}
	if [ "$need" -gt 50000 ]; then
		psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $need) g" >/dev/null
	fi
	ins_bytes=$(artrie_wal_bytes)
	rows_inserted=$need
	if [ "${3:-}" = checkpoint ]; then
		psql_q "SELECT artrie_checkpoint()" >/dev/null
		psql_q "CHECKPOINT" >/dev/null
		from=$(artrie_wal_bytes)
	fi
	if [ "$pct" -gt 0 ]; then
		psql_q "SELECT setseed(0.5); DELETE FROM j WHERE random() < $pct / 100.0" >/dev/null
		psql_q "VACUUM j" >/dev/null
	fi
	bytes=$(artrie_wal_bytes)
	mb=$(awk -v b="$bytes" -v f="$from" 'BEGIN { printf "%.1f", (b - f) / 1048576 }')
	printf -v "mb_$wal" '%s' "$mb"
	[ -z "${own_version:-}" ] || printf -v "mb_${wal}_$own_version" '%s' "$mb"
	printf -v "desc_${dir//-/_}" '%s' "$(awk -v b="$bytes" -v f="$from" -v i="$ins_bytes" -v n="$need" -v p="$pct" -v r="$(psql_q 'SELECT count(*) FROM j')" \
		'BEGIN { printf "%.1f MB in the window (%d rows inserted: %.1f MB%s; %d%% deleted and vacuumed: %.1f MB; %d rows left)", (b - f) / 1048576, n, i / 1048576, (f > 0 ? ", then a checkpoint" : ""), p, (b - i - (f > 0 ? f - i : 0)) / 1048576, r }')"
	bench_crash
	rm -rf "$ARTRIE_TMP/crashed-$dir"
	cp -a "$PGDATA" "$ARTRIE_TMP/crashed-$dir"
}

# make_vacuum_source: the cluster VACUUM is timed on: the inserts of
# make_crashed into j and its twin jb (a btree index), checkpointed and
# shut down cleanly, kept as $ARTRIE_TMP/vacuum-source.  Autovacuum is off
# for both tables: it vacuumed jb while VACUUM j ran.
make_vacuum_source() {
	local rows=$rows_inserted
	rm -rf "$PGDATA"
	bench_recovery_cluster
	psql_q "ALTER TABLE j SET (autovacuum_enabled = off);
		CREATE TABLE jb (k text) WITH (autovacuum_enabled = off); CREATE INDEX jb_k ON jb (k);
		INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g;
		INSERT INTO jb SELECT md5(g::text) || '/' || g FROM generate_series(1, 50000) g" >/dev/null
	if [ "$rows" -gt 50000 ]; then
		psql_q "INSERT INTO j SELECT md5(g::text) || '/' || g FROM generate_series(50001, $rows) g;
			INSERT INTO jb SELECT md5(g::text) || '/' || g FROM generate_series(50001, $rows) g" >/dev/null
	fi
	psql_q "SELECT artrie_checkpoint()" >/dev/null
	psql_q "CHECKPOINT" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	rm -rf "$ARTRIE_TMP/vacuum-source"
	cp -a "$PGDATA" "$ARTRIE_TMP/vacuum-source"
}

WALS=inserts
[ "$DELETES" -eq 0 ] || WALS="inserts deletes checkpointed"
WALS=${ARTRIE_RECOVERY_WALS:-$WALS}
VACUUM=${ARTRIE_RECOVERY_VACUUM:-1}
[ "$DELETES" -gt 0 ] || VACUUM=0
MAKE=$WALS
if [ "$VACUUM" -ne 0 ] && [ "$VACUUM_ONLY" = 1 ]; then
	WALS=
	MAKE=inserts
fi
OWN_WAL=${ARTRIE_RECOVERY_OWN_WAL:-0}
MAKERS=
[ "$OWN_WAL" != 1 ] || MAKERS=$VERSIONS
for own_version in ${MAKERS:-""}; do
	if [ -n "$own_version" ]; then
		b=BIN_$own_version
		PG_BIN=${!b}
	fi
	for w in $MAKE; do
		case $w in
			inserts) make_crashed inserts 0 ;;
			deletes) make_crashed deletes "$DELETES" ;;
			checkpointed) make_crashed checkpointed "$DELETES" checkpoint ;;
			*) echo "$0: unknown WAL $w" >&2; exit 2 ;;
		esac
		# Every build's inserts make the rows the first one's made.
		[ -z "$own_version" ] || rows_fixed=$rows_inserted
	done
done
PG_BIN=$BIN_head
[ "$VACUUM" -eq 0 ] || make_vacuum_source

out=$OUT_DIR/recovery_ab-$(date -u +%Y%m%d-%H%M).txt
mkdir -p "$OUT_DIR"
{
	echo "# ${ARTRIE_RECOVERY_DELETES:+ARTRIE_RECOVERY_DELETES=$DELETES }${ARTRIE_RECOVERY_OWN_WAL:+ARTRIE_RECOVERY_OWN_WAL=$OWN_WAL }${ARTRIE_RECOVERY_VACUUM_ONLY:+ARTRIE_RECOVERY_VACUUM_ONLY=$VACUUM_ONLY }${ARTRIE_RECOVERY_WALS:+ARTRIE_RECOVERY_WALS=\"$WALS\" }${ARTRIE_RECOVERY_VACUUM:+ARTRIE_RECOVERY_VACUUM=$VACUUM }bash bench/recovery_ab.sh $MB $PAIRS (ARTRIE_BASE=${BASE:-none}: ${BASE_COMMIT:-}; head $HEAD_COMMIT), $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	for w in $WALS; do
		for v in ${MAKERS:-""}; do
			d=desc_$w${v:+_$v}
			echo "# $w${v:+ (made by $v)}: artrie records ${!d}, replayed from one crashed data directory by every run${v:+ of $v}"
		done
	done
	[ "$VACUUM" -eq 0 ] || echo "# vacuum: $rows_inserted rows in j (artrie) and jb (btree), $DELETES% of them deleted (the same rows) and vacuumed by every run"
	printf 'version\twal\trun\tartrie_cpu_s\tartrie_sort_cpu_s\tartrie_wall_s\tredo_cpu_s\tredo_wall_s\tartrie_faults\n'
} >"$out"

# replay VERSION WAL: start a fresh copy of WAL's crashed directory with
# VERSION's build and stop it; sets log to the restart's server log.
replay() {
	local b=BIN_$1 logstart
	rm -rf "$PGDATA"
	cp -a "$ARTRIE_TMP/crashed-$2${MAKERS:+-$1}" "$PGDATA"
	logstart=$(( $(wc -l <"$ARTRIE_TMP/server.log") + 1 ))
	${PERF_CMD:-} runuser -u postgres -- "${!b}/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	log=$(tail -n +"$logstart" "$ARTRIE_TMP/server.log")
	as_pg "${!b}/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null
}

for r in $(seq 1 "$PAIRS"); do
	for v in $VERSIONS; do
		for w in $WALS; do
			replay "$v" "$w"
			# "... records in W s (CPU C s), S s of it (CPU SC s) sorting them"
			art=$(grep -m1 -o 'held-back WAL entry records in [0-9.]* s (CPU [0-9.]* s), [0-9.]* s of it (CPU [0-9.]* s)' <<<"$log" |
				awk '{ gsub(/[()]/, ""); print $9, $16, $6 }' || true)
			redo=$(grep -m1 -o 'CPU: user: [0-9.]* s, system: [0-9.]* s, elapsed: [0-9.]* s' <<<"$log" |
				awk '{ printf "%.3f %s", $3 + $6, $9 }' || true)
			# "..., N page faults" (builds that log them)
			faults=$(grep -m1 -o 'sorted runs written out, [0-9]* page faults' <<<"$log" | awk '{ print $5 }' || true)
			read -r a_cpu a_sort a_wall <<<"${art:-? ? ?}"
			read -r r_cpu r_wall <<<"${redo:-? ?}"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$w" "$r" "$a_cpu" "$a_sort" "$a_wall" "$r_cpu" "$r_wall" "${faults:-?}" | tee -a "$out"
		done
	done
done

# vacuum_usage TABLE: from VACUUM (VERBOSE) reports on stdin, the CPU
# (user + system) and elapsed seconds of TABLE's.
vacuum_usage() {
	awk -v t="\"postgres.public.$1\"" '
		/finished vacuuming/ { mine = index($0, t) > 0 }
		mine && match($0, /CPU: user: [0-9.]+ s, system: [0-9.]+ s, elapsed: [0-9.]+ s/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			printf "%.2f %s", f[3] + f[6], f[9]
			exit
		}'
}

# vacuum_profile: with ARTRIE_PERF=DIR, 30 s of the backend running VACUUM
# j (psql_pid's session) under `perf record -g`, its report in
# DIR/recovery_ab-vacuum-backend.txt.
vacuum_profile() {
	local pm pid=
	pm=$(head -1 "$PGDATA/postmaster.pid")
	while [ -z "$pid" ] && kill -0 "$psql_pid" 2>/dev/null; do
		pid=$(pgrep -P "$pm" -f 'VACUUM' | head -1 || true)
		sleep 0.2
	done
	[ -n "$pid" ] || return 0
	mkdir -p "$ARTRIE_PERF"
	perf record -q -g -p "$pid" -o "$ARTRIE_TMP/perf-vacuum.data" -- sleep 30 >/dev/null 2>&1 || true
	perf report -i "$ARTRIE_TMP/perf-vacuum.data" --children -g none --percent-limit 0.3 \
		--stdio >"$ARTRIE_PERF/recovery_ab-vacuum-backend.txt" 2>/dev/null || true
	rm -f "$ARTRIE_TMP/perf-vacuum.data"
	echo "profile: $ARTRIE_PERF/recovery_ab-vacuum-backend.txt"
}

# vacuum_run VERSION ROUND: VERSION's build on a fresh copy of the VACUUM
# cluster deletes DELETES% of the rows of j and jb and vacuums j, then jb;
# appends a "vacuum" row (CPU and elapsed of each VACUUM, the ratio of
# artrie's CPU to btree's, the artrie index's pages after it).
vacuum_run() {
	local b=BIN_$1 out_v artrie btree pages
	rm -rf "$PGDATA"
	cp -a "$ARTRIE_TMP/vacuum-source" "$PGDATA"
	runuser -u postgres -- "${!b}/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 600 start >/dev/null
	as_pg "${!b}/psql" -X -At -v ON_ERROR_STOP=1 -d postgres >"$ARTRIE_TMP/vacuum.out" 2>&1 <<-SQL &
		SELECT setseed(0.5); DELETE FROM j WHERE random() < $DELETES / 100.0;
		SELECT setseed(0.5); DELETE FROM jb WHERE random() < $DELETES / 100.0;
		VACUUM (VERBOSE, PROCESS_TOAST false) j;
		VACUUM (VERBOSE, PROCESS_TOAST false) jb;
		SELECT 'pages ' || (artrie_stats('j_k')->>'pages');
	SQL
	psql_pid=$!
	if [ -n "${ARTRIE_PERF:-}" ] && [ "$1" = head ] && [ "$2" = "$PAIRS" ]; then
		vacuum_profile
	fi
	wait "$psql_pid"
	out_v=$(cat "$ARTRIE_TMP/vacuum.out")
	as_pg "${!b}/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	artrie=$(vacuum_usage j <<<"$out_v")
	btree=$(vacuum_usage jb <<<"$out_v")
	pages=$(sed -n 's/^pages //p' <<<"$out_v")
	read -r a_cpu a_wall <<<"${artrie:-? ?}"
	read -r b_cpu b_wall <<<"${btree:-? ?}"
	printf '%s\tvacuum\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$a_cpu" "$a_wall" "$b_cpu" "$b_wall" \
		"$(awk -v a="$a_cpu" -v b="$b_cpu" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')" "${pages:-?}" |
		tee -a "$out"
}

if [ "$VACUUM" -ne 0 ]; then
	printf '# VACUUM on the primary\nversion\twal\trun\tartrie_vacuum_cpu_s\tartrie_vacuum_wall_s\tbtree_vacuum_cpu_s\tbtree_vacuum_wall_s\tcpu_ratio\tartrie_pages_after\n' >>"$out"
	for r in $(seq 1 "$PAIRS"); do
		for v in $VERSIONS; do
			vacuum_run "$v" "$r"
		done
	done
fi

{
	echo "# medians"
	for v in $VERSIONS; do
		for w in $WALS; do
			m=mb_$w${MAKERS:+_$v}
			awk -F'\t' -v v="$v" -v w="$w" -v mb="${!m}" '
				function median(a, n,   i, j, t) {
					for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
					return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
				}
				$1 == v && $2 == w && NF == 9 && $4 != "?" { n++; c[n] = $4; s[n] = $5; r[n] = $7; o[n] = $7 - $4; if ($9 != "?") { nf++; f[nf] = $9 } }
				END {
					if (n == 0) { print v ", " w ": no run gave artrie'\''s log line"; exit }
					ac = median(c, n); printf "%s, %s: artrie batches CPU %.3f s (sorting %.3f s) = %.1f MB/s of artrie records (%.1f MB); redo CPU %.3f s, PostgreSQL'\''s share %.3f s (%d runs)%s\n",
						v, w, ac, median(s, n), mb / ac, mb, median(r, n), median(o, n), n,
						(nf > 0 ? sprintf("; the batches'\'' page faults %d", median(f, nf)) : "")
				}' "$out"
		done
	done
	for v in $VERSIONS; do
		[ "$VACUUM" -ne 0 ] || break
		awk -F'\t' -v v="$v" '
			function median(a, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			$1 == v && $2 == "vacuum" && $4 != "?" && $6 != "?" { n++; a[n] = $4; b[n] = $6; r[n] = $8 }
			END {
				if (n == 0) { print v ", VACUUM: no run gave both reports"; exit }
				printf "%s, VACUUM of the deletes on the primary: artrie table %.2f s CPU, btree table %.2f s, ratio %.2f (%d runs)\n",
					v, median(a, n), median(b, n), median(r, n), n
			}' "$out"
	done
} | tee -a "$out"

if [ -n "${ARTRIE_PERF:-}" ]; then
	mkdir -p "$ARTRIE_PERF"
	for w in $WALS; do
		PERF_CMD="perf record -q -g -o $ARTRIE_TMP/perf.data --"
		replay head "$w"
		PERF_CMD=
		startup_pid=$(grep -m1 'redo starts at' <<<"$log" | sed -n 's/.*\[\([0-9]*\)\].*/\1/p')
		{
			grep -o 'artrie applied .*' <<<"$log" || true
			grep -o 'redo done at .*' <<<"$log" || true
			perf report -i "$ARTRIE_TMP/perf.data" --pid "$startup_pid" --children \
				-g none --percent-limit 0.3 --stdio 2>/dev/null
		} >"$ARTRIE_PERF/recovery_ab-$w-startup.txt"
		perf report -i "$ARTRIE_TMP/perf.data" --pid "$startup_pid" --no-children \
			-g none --percent-limit 0.2 --stdio \
			>"$ARTRIE_PERF/recovery_ab-$w-startup-self.txt" 2>/dev/null || true
		rm -f "$ARTRIE_TMP/perf.data"
		echo "profile: $ARTRIE_PERF/recovery_ab-$w-startup.txt"
	done
fi
echo "results: $out"
