#!/usr/bin/env bash
# Prepared exact lookups, for two builds of artrie (before: a git revision,
# after: this working tree) in one cluster, each against btree on a twin
# table: what a single lookup costs beyond the descent (the scan's setup,
# the file, pins, memory), measured build against build.
#
#   bash bench/lookup_builds.sh [REPS [SECONDS]]     (as root)
#
# Loads bench/run.sh's words (LKB_DATASET=words, the default: the american
# and british insane word lists, deduplicated), bulgarian
# (LKB_DATASET=bulgarian, wbulgarian's list) or synth (LKB_DATASET=synth,
# LKB_ROWS keys, default 1,000,000) twice: ds_a with an artrie index, ds_b
# (the same rows in the same order) with a btree, and run.sh's 50,000
# probes with a primary key (pb).  The statement is run.sh's lookup_tps:
#
#   SELECT id FROM <table> WHERE k = (SELECT k FROM pb WHERE pid = :n)
#
# Each of REPS repetitions (default 5) installs each build in turn (the
# order alternating between repetitions), restarts the server, warms both
# indexes up (every probe looked up once), then for each client count in
# LKB_CLIENTS (default "1 2") runs pgbench -M prepared for SECONDS
# (default 5) on each table, artrie and btree alternating.  Each run gives
# its TPS and the CPU time per transaction of the server's processes that
# exited meanwhile (the postmaster's children's time: pgbench's backends),
# in us.  artrie.io_backend is LKB_BACKEND (default io_uring); pools of
# 128 MB.
#
# Prints every run ("rep build clients index tps cpu_us load"), then per
# build and client count the medians and the median of the pairs'
# artrie / btree ratios, and artrie's and btree's CPU per transaction
# after / before (medians of the repetitions' ratios: btree's code is the
# same in both builds, so its ratio is the machine's drift).
#
# LKB_CALLGRIND=1: afterwards, per build, the instructions a transaction
# costs the backend, for each index: the server restarted under valgrind's
# callgrind (artrie.io_backend = mmap; valgrind does not know io_uring),
# the pools warmed up as above, then two pgbench -M prepared -c 1 runs of
# LKB_CG_N1 and LKB_CG_N2 transactions (default 200 and 1200), each its own
# backend; the difference of the two backends' instructions divided by
# the difference in transactions leaves out the connection's own.  The
# output files stay in the scratch directory's cg/ with ARTRIE_KEEP=1.
# LKB_CG_OPTS adds valgrind options (e.g. "--cache-sim=yes
# --D1=49152,12,64 --LL=1048576,8,64", the machine's L1 data cache and
# L2): every event the files then count is printed per transaction too.
# LKB_CG_FUNCS names functions (e.g. "standard_planner PortalRun
# artrie_costestimate art_count_prefix") whose inclusive instructions and
# calls per transaction are printed as well, from the same two files (a
# function inlined into its callers has none).
# LKB_CG_PAGES=1 adds the pages of code a transaction runs: the 4 KiB
# pages holding an instruction whose count grew by at least half the
# difference in transactions (run in every other transaction at least),
# by object, and artrie.so's with the functions on each
# (--dump-instr=yes --compress-pos=no, added to LKB_CG_OPTS).  Where
# every kernel entry empties the TLB (page-table isolation without PCID)
# a transaction pays for each of them; the functions marked hot sit
# together (docs/DESIGN.md, "Scans"), so one far from the rest is a
# function of the statement's path not yet marked.
#
# LKB_SQL: another statement than the lookup, a pgbench script line whose
# %s is the table (e.g. "SELECT count(*) FROM %s WHERE k LIKE 'kir%%';"),
# and LKB_MODE the pgbench protocol (default prepared; simple plans each
# statement anew).
#
# LKB_PERF=<dir>: afterwards, per build and index, a perf profile (perf
# record -g at 2999 Hz) of the backend of a 1-client pgbench run of
# SECONDS, as <dir>/<build>-<index>.txt (self time by symbol, then the
# callers of the scan's entry points).  LKB_BEFORE is the "before"
# revision (default main).  The two builds must share the on-disk format
# and the extension's SQL.
set -u

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

REPS=${1:-5}
DUR=${2:-5}
BEFORE=${LKB_BEFORE:-main}
DATASET=${LKB_DATASET:-words}
ROWS=${LKB_ROWS:-1000000}
CLIENTS=${LKB_CLIENTS:-1 2}
BACKEND=${LKB_BACKEND:-io_uring}
PERF_OUT=${LKB_PERF:-}
MODE=${LKB_MODE:-prepared}
NPROBE=50000

[ "$(id -u)" = 0 ] || {
	echo "$0: run as root (the builds are swapped in the private installation)" >&2
	exit 2
}
bench_builds_cluster "$BEFORE" "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
	"jit = off" "max_parallel_workers_per_gather = 0" "shared_buffers = 128MB" \
	"artrie.buffer_pool_size = 128MB" "artrie.io_backend = $BACKEND"
q -c "CREATE TABLE ds_b (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE \"C\")" || { last_err; exit 1; }
case "$DATASET" in
synth)
	q -c "INSERT INTO ds_b (k) SELECT 'user/' || ((g::bigint * 48271) % ($ROWS / 20 + 7)) || '/item/' || g FROM generate_series(1, $ROWS) g" ||
		{ last_err; exit 1; }
	;;
words)
	cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
		iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' |
		LC_ALL=C sort -u >"$ARTRIE_TMP/words.txt"
	chmod a+r "$ARTRIE_TMP/words.txt"
	q -c "COPY ds_b (k) FROM '$ARTRIE_TMP/words.txt'" || { last_err; exit 1; }
	;;
bulgarian)
	iconv -f UTF-8 -t UTF-8 -c </usr/share/dict/bulgarian |
		sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g' >"$ARTRIE_TMP/bulgarian.txt"
	chmod a+r "$ARTRIE_TMP/bulgarian.txt"
	q -c "COPY ds_b (k) FROM '$ARTRIE_TMP/bulgarian.txt'" || { last_err; exit 1; }
	;;
*)
	echo "$0: LKB_DATASET is words, bulgarian or synth" >&2
	exit 2
	;;
esac
q <<SQL || { last_err; exit 1; }
CREATE TABLE ds_a (id int, k text COLLATE "C");
INSERT INTO ds_a SELECT id, k FROM ds_b ORDER BY id;
CREATE INDEX ds_b_k ON ds_b USING btree (k);
CREATE INDEX ds_a_k ON ds_a USING artrie (k);
VACUUM ANALYZE ds_a, ds_b;
$(bench_probe_sql pb ds_b "$NPROBE")
ALTER TABLE pb ADD PRIMARY KEY (pid);
VACUUM ANALYZE pb;
CHECKPOINT;
SQL
for t in ds_a ds_b; do
	if [ -n "${LKB_SQL:-}" ]; then
		# shellcheck disable=SC2059
		printf "$LKB_SQL\n" "$t" >"$ARTRIE_TMP/lookup_$t.sql"
	else
		printf '\\set n random(1, %s)\nSELECT id FROM %s WHERE k = (SELECT k FROM pb WHERE pid = :n);\n' \
			"$NPROBE" "$t" >"$ARTRIE_TMP/lookup_$t.sql"
	fi
done
chmod a+r "$ARTRIE_TMP"/*.sql
say "$(q -c "SELECT count(*) FROM ds_b") $DATASET keys; before = $(git -C "$ARTRIE_SRC" rev-parse --short "$BEFORE") ($BEFORE), after = $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)$(git -C "$ARTRIE_SRC" status --porcelain -- src | head -1 | sed 's/.*/ + uncommitted changes/'); $BACKEND; $(nproc) CPUs"

tbl() { if [ "$1" = artrie ]; then echo ds_a; else echo ds_b; fi; }

# switch BUILD: install it, restart, warm both indexes up (switch_warm).
switch() {
	bench_use_version "$1"
	switch_warm
}

# switch_warm: every probe looked up once in each table, then a second of
# pgbench on each (a restarted server's first pgbench run of artrie was
# 2-4x slower than the next ones).
switch_warm() {
	local t
	PGOPTIONS="-c enable_seqscan=off -c enable_hashjoin=off -c enable_mergejoin=off" \
		q -c "SELECT sum((SELECT count(t.id) FROM ds_a t WHERE t.k = p.k)) FROM pb p" \
		-c "SELECT sum((SELECT count(t.id) FROM ds_b t WHERE t.k = p.k)) FROM pb p" >/dev/null ||
		{ last_err; exit 1; }
	for t in ds_a ds_b; do
		as_pg "$PG_BIN/pgbench" -n -M "$MODE" -c 1 -T 1 -f "$ARTRIE_TMP/lookup_$t.sql" "$BENCH_DB" >/dev/null 2>&1
	done
}

# run INDEX CLIENTS: "tps cpu_us" of one pgbench run.
run() {
	local out cpu0 cpu1 ntx
	CHILDREN_BEFORE=$(pgrep -c -P "$(head -1 "$PGDATA/postmaster.pid")")
	cpu0=$(server_child_cpu)
	out=$(as_pg "$PG_BIN/pgbench" -n -M "$MODE" -c "$2" -j "$2" -T "$DUR" \
		-f "$ARTRIE_TMP/lookup_$(tbl "$1").sql" "$BENCH_DB" 2>&1) || { echo "$out" >&2; exit 1; }
	cpu1=$(server_child_cpu)
	ntx=$(printf '%s\n' "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	printf '%s %s\n' "$(printf '%s\n' "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)" \
		"$(awk -v a="$cpu0" -v b="$cpu1" -v n="${ntx:-0}" 'BEGIN { if (n > 0) printf "%.2f", (b - a) * 1000 / n; else print "-" }')"
}

RUNS=$ARTRIE_TMP/runs.txt
: >"$RUNS"
for rep in $(seq 1 "$REPS"); do
	builds="before after"
	[ $((rep % 2)) = 0 ] && builds="after before"
	for build in $builds; do
		switch "$build"
		for c in $CLIENTS; do
			idxs="artrie btree"
			[ $(((rep + c) % 2)) = 0 ] && idxs="btree artrie"
			for idx in $idxs; do
				read -r tps cpu < <(run "$idx" "$c")
				printf '%s %s %s %s %s %s %s\n' "$rep" "$build" "$c" "$idx" "$tps" "$cpu" \
					"$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$RUNS"
			done
		done
	done
done

say "medians of $REPS repetitions, ${DUR}s runs (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
awk -v clients="$CLIENTS" '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n == 0 ? 0 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
	}
	{ tps[$1, $2, $3, $4] = $5; cpu[$1, $2, $3, $4] = $6; if ($1 > reps) reps = $1 }
	END {
		nc = split(clients, cs, " ")
		for (k = 1; k <= nc; k++) {
			c = cs[k]
			split("before after", bs, " ")
			for (bi = 1; bi <= 2; bi++) {
				b = bs[bi]; ta = tb = ca = cb = rt = rc = ""
				for (r = 1; r <= reps; r++) {
					ta = ta " " tps[r, b, c, "artrie"]; tb = tb " " tps[r, b, c, "btree"]
					ca = ca " " cpu[r, b, c, "artrie"]; cb = cb " " cpu[r, b, c, "btree"]
					if (tps[r, b, c, "btree"] > 0) rt = rt " " tps[r, b, c, "artrie"] / tps[r, b, c, "btree"]
					if (cpu[r, b, c, "btree"] > 0) rc = rc " " cpu[r, b, c, "artrie"] / cpu[r, b, c, "btree"]
				}
				printf "%-6s c%s  tps artrie %8.0f btree %8.0f ratio %.3fx   CPU/tx artrie %6.2f btree %6.2f us ratio %.3fx\n", \
					b, c, median(ta), median(tb), median(rt), median(ca), median(cb), median(rc)
			}
			ra = rb = qa = ""
			for (r = 1; r <= reps; r++) {
				if (cpu[r, "before", c, "artrie"] > 0) ra = ra " " cpu[r, "after", c, "artrie"] / cpu[r, "before", c, "artrie"]
				if (cpu[r, "before", c, "btree"] > 0) rb = rb " " cpu[r, "after", c, "btree"] / cpu[r, "before", c, "btree"]
				if (tps[r, "before", c, "artrie"] > 0) qa = qa " " tps[r, "after", c, "artrie"] / tps[r, "before", c, "artrie"]
			}
			printf "after/before c%s  artrie CPU/tx %.3fx  btree CPU/tx %.3fx  artrie tps %.3fx\n", c, median(ra), median(rb), median(qa)
		}
	}' "$RUNS"

# cg_ir FILE: the instructions a callgrind output file counts.
cg_ir() { callgrind_annotate "$1" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,; }

# cg_events FILE: "event=count" for each event a callgrind output file counts.
cg_events() { awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i] = $i } /^summary:/ { for (i = 2; i <= NF; i++) printf "%s=%s\n", ev[i], $i }' "$1"; }

# cg_funcs FILE FUNC...: "func inclusive calls" for each function named,
# summed over the calls to it that the callgrind output file records
# (cfn=, calls= and the cost line after it; names may be compressed).
cg_funcs() {
	local f=$1
	shift
	awk -v want="$*" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { wanted[w[i]] = 1; inc[w[i]] = 0; calls[w[i]] = 0 } }
	/^cfn=/ {
		id = $0; sub(/^cfn=/, "", id); name = ""
		if (match(id, /^\([0-9]+\) /)) { name = substr(id, RLENGTH + 1); id = substr(id, 1, RLENGTH - 1); fname[id] = name }
		else if (id ~ /^\([0-9]+\)$/) name = fname[id]
		else name = id
		callee = name; next
	}
	/^fn=\([0-9]+\) / { id = $0; sub(/^fn=/, "", id); match(id, /^\([0-9]+\) /); fname[substr(id, 1, RLENGTH - 1)] = substr(id, RLENGTH + 1); next }
	/^calls=/ { split($0, c, /[= ]/); ncalls = c[2]; want_cost = 1; next }
	want_cost { want_cost = 0; if (callee in wanted) { inc[callee] += $2; calls[callee] += ncalls } }
	END { for (i = 1; i <= n; i++) printf "%s %d %d\n", w[i], inc[w[i]], calls[w[i]] }' "$f"
}

# cg_pages FILE1 FILE2 DN: code pages per transaction (LKB_CG_PAGES) from
# two callgrind files with absolute positions, DN transactions apart (each
# cost line's first position the instruction's address, its first count
# the instructions run).
cg_pages() {
	awk -v dn="$3" '
	function name(kind, s,   id) {
		if (!match(s, /^\([0-9]+\)/))
			return s
		id = FILENAME SUBSEP kind SUBSEP substr(s, 1, RLENGTH)
		if (length(s) > RLENGTH)
			names[id] = substr(s, RLENGTH + 2)
		return names[id]
	}
	FNR == 1 { nfile++; npos = 1 }
	/^positions:/ { npos = NF - 1 }
	/^ob=/ { ob = name("ob", substr($0, 4)); n = split(ob, parts, "/"); ob = parts[n]; next }
	/^fn=/ { fn = name("fn", substr($0, 4)); next }
	/^cob=/ { name("ob", substr($0, 5)); next }
	/^cfn=/ { name("fn", substr($0, 5)); next }
	/^calls=/ { call = 1; next }
	/^0x/ {
		if (call) { call = 0; next }
		ir[nfile, ob SUBSEP fn SUBSEP $1] += $(npos + 1)
	}
	END {
		for (k in ir) {
			split(k, a, SUBSEP)
			if (a[1] != 2)
				continue
			k1 = 1 SUBSEP a[2] SUBSEP a[3] SUBSEP a[4]
			if (ir[k] - (k1 in ir ? ir[k1] : 0) < dn / 2)
				continue
			page = a[2] " " substr(a[4], 1, length(a[4]) - 3)
			if (!(page in seen)) { seen[page] = 1; pages[a[2]]++; total++ }
			if (a[2] == "artrie.so" && !((page, a[3]) in on)) { on[page, a[3]] = 1; fns[page] = fns[page] " " a[3] }
		}
		printf "%d pages:", total
		for (o in pages) printf " %s %d", o, pages[o]
		printf "\n"
		for (p in fns) printf "  %s:%s\n", p, fns[p] | "sort"
		close("sort")
	}' "$1" "$2"
}

# instr BUILD: the callgrind measurement of LKB_CALLGRIND.
instr() {
	local cg=$ARTRIE_TMP/cg n1=${LKB_CG_N1:-200} n2=${LKB_CG_N2:-1200} vpid t n new f ir1 ir2
	mkdir -p "$cg"
	chown postgres: "$cg"
	install -m 755 "$ARTRIE_TMP/artrie-$1.so" "$ARTRIE_TMP/inst$($PG_CONFIG --pkglibdir)/artrie.so"
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	# shellcheck disable=SC2086
	as_pg valgrind --tool=callgrind ${LKB_CG_OPTS:-} ${LKB_CG_PAGES:+--dump-instr=yes --compress-pos=no} \
		--callgrind-out-file="$cg/cg.%p" "$PG_BIN/postgres" -D "$PGDATA" \
		-c artrie.io_backend=mmap >"$cg/server-$1.log" 2>&1 &
	vpid=$!
	for n in $(seq 1 300); do as_pg "$PG_BIN/pg_isready" -q && break; sleep 1; done
	switch_warm
	sleep 5
	for t in artrie btree; do
		for n in $n1 $n2; do
			find "$cg" -name 'cg.*' | sort >"$cg/before"
			as_pg "$PG_BIN/pgbench" -n -M "$MODE" -c 1 -t "$n" -f "$ARTRIE_TMP/lookup_$(tbl "$t").sql" "$BENCH_DB" >/dev/null 2>&1
			sleep 3
			# pgbench's own first connection exits too: the larger file is the run's
			new=$(find "$cg" -name 'cg.*' | sort | comm -13 "$cg/before" -)
			f=$(for x in $new; do echo "$(cg_ir "$x") $x"; done | sort -n | tail -1 | cut -d' ' -f2)
			mv "$f" "$cg/$1-$t-$n"
		done
		ir1=$(cg_ir "$cg/$1-$t-$n1")
		ir2=$(cg_ir "$cg/$1-$t-$n2")
		printf 'callgrind %-6s %-6s %8d instructions/transaction\n' "$1" "$t" $(((ir2 - ir1) / (n2 - n1)))
		if [ -n "${LKB_CG_OPTS:-}" ]; then
			join -t= <(cg_events "$cg/$1-$t-$n1" | sort) <(cg_events "$cg/$1-$t-$n2" | sort) |
				awk -F= -v n="$((n2 - n1))" '{ printf " %s %.1f", $1, ($3 - $2) / n }' |
				sed "s/^/callgrind $1 $t per transaction:/; s/\$/\n/"
		fi
		if [ "${LKB_CG_PAGES:-}" = 1 ]; then
			cg_pages "$cg/$1-$t-$n1" "$cg/$1-$t-$n2" $((n2 - n1)) |
				sed "1s/^/callgrind $1 $t code pages per transaction: /; 2,\$s/^/callgrind $1 $t /"
		fi
		if [ -n "${LKB_CG_FUNCS:-}" ]; then
			# shellcheck disable=SC2086
			join <(cg_funcs "$cg/$1-$t-$n1" $LKB_CG_FUNCS | sort) <(cg_funcs "$cg/$1-$t-$n2" $LKB_CG_FUNCS | sort) |
				awk -v n="$((n2 - n1))" -v b="$1" -v t="$t" '{ printf "callgrind %-6s %-6s %-28s %10.1f instructions %6.2f calls per transaction\n", b, t, $1, ($4 - $2) / n, ($5 - $3) / n }'
		fi
	done
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	wait "$vpid"
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 120 start >/dev/null
}

if [ "${LKB_CALLGRIND:-}" = 1 ] && ! command -v valgrind >/dev/null; then
	say "LKB_CALLGRIND: valgrind is not installed (apt-get install valgrind)"
elif [ "${LKB_CALLGRIND:-}" = 1 ]; then
	for build in before after; do
		instr "$build"
	done
fi

if [ -n "$PERF_OUT" ] && command -v perf >/dev/null; then
	mkdir -p "$PERF_OUT"
	for build in before after; do
		switch "$build"
		for idx in artrie btree; do
			as_pg "$PG_BIN/pgbench" -n -M "$MODE" -c 1 -j 1 -T "$((DUR + 2))" \
				-f "$ARTRIE_TMP/lookup_$(tbl "$idx").sql" "$BENCH_DB" >/dev/null 2>&1 &
			pgb=$!
			sleep 1
			pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1")
			perf record -q -g -F 2999 -p "$pid" -o "$ARTRIE_TMP/perf.data" -- sleep "$DUR" >/dev/null 2>&1
			wait "$pgb"
			{
				echo "# perf record -g -F 2999 of the backend of pgbench -M $MODE -c 1 (${DUR}s): $(head -2 "$ARTRIE_TMP/lookup_$(tbl "$idx").sql" | tail -1)"
				echo "# $DATASET, $BACKEND, build $build; self time by symbol:"
				perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort dso,symbol \
					--percent-limit 0.3 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//' | head -80
				echo "# with children (inclusive), the executor's and the index AM's entry points:"
				perf report -i "$ARTRIE_TMP/perf.data" --stdio --children --sort symbol -g none 2>/dev/null |
					grep -E 'index_|artrie_|bt[a-z]+scan|btgettuple|_bt_first|am_open|ExecInitIndexScan|ExecEndIndexScan|ExecIndexScan|PortalStart|PortalRun|CommitTransaction|heapam_index_fetch|index_fetch_heap|AtEOXact|CallXactCallbacks|pager_|art_' |
					sed 's/[ -]*$//' | head -60
			} >"$PERF_OUT/$build-$idx.txt"
			rm -f "$ARTRIE_TMP/perf.data"
		done
	done
	say "profiles in $PERF_OUT"
fi
