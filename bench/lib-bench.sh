# bench/lib-bench.sh: helpers for bench/run.sh (sourced after test/lib.sh).
#
# Output goes to $TSV (dataset, index, metric, value, unit; '#' lines are
# the run's header).  Every helper measures and records; none asserts.

BENCH_DB=bench

# psql on the bench database, tuples only, tab-separated, quiet.  Extra
# session settings come from $PGOPTIONS.  Stderr goes to $BENCH_ERR so a
# failure's reason can be recorded.
q() {
	as_pg "$PG_BIN/psql" -XAtq -v ON_ERROR_STOP=1 -F $'\t' -d "$BENCH_DB" "$@" 2>"$BENCH_ERR"
}

# The first line of the last psql error, for a "skipped: <reason>" note.
last_err() {
	grep -m1 -E 'ERROR|FATAL|PANIC|could not|server closed|terminated' "$BENCH_ERR" 2>/dev/null |
		sed 's/^psql:[^:]*:[0-9]*: //; s/\t/ /g' | cut -c1-200 || true
}

# emit DATASET INDEX METRIC VALUE UNIT (into $ROUND_FILE instead of $TSV
# while interleave collects a round's rows)
emit() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"${ROUND_FILE:-$TSV}"
	printf '   %-8s %-16s %-24s %14s %s\n' "$1" "$2" "$3" "$4" "$5"
}

# interleave ROUNDS FUNCTION DATASET KIND_A KIND_B: runs FUNCTION DATASET
# KIND for the two kinds alternately (A B, B A, A B, ...), ROUNDS times
# each, and records for every numeric row the median of its rounds (with
# a note row listing them), for every other row (plans, checks, skips) the
# first round's.  Each round records the 1-minute load average as it
# starts (metric load_1min).  ROUND is the round's number while FUNCTION runs.
interleave() {
	local rounds=$1 fn=$2 ds=$3 a=$4 b=$5 kind
	ROUND_FILE=$ARTRIE_TMP/rounds.tsv
	: >"$ROUND_FILE"
	for ROUND in $(seq 1 "$rounds"); do
		for kind in $([ $((ROUND % 2)) = 1 ] && echo "$a $b" || echo "$b $a"); do
			emit "$ds" "$kind" load_1min "$(cut -d' ' -f1 /proc/loadavg)" load
			"$fn" "$ds" "$kind"
		done
	done
	ROUND=
	rounds_collapse "interleaved runs"
}

# rounds_collapse WHAT: appends to $TSV the rows collected in $ROUND_FILE,
# each numeric row as the median of its values with a note row listing
# them ("median of N WHAT: ..."), every other row as first recorded, and
# stops collecting.
rounds_collapse() {
	awk -F'\t' -v what="$1" '
		function num(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?$/ }
		{
			key = $1 FS $2 FS $3 FS $5
			if (!(key in n)) { order[++nkeys] = key; first[key] = $4 }
			if (num($4) && $5 != "check" && $5 !~ /^check /) vals[key, ++n[key]] = $4
			else if (!(key in n)) n[key] = 0
		}
		END {
			for (i = 1; i <= nkeys; i++) {
				key = order[i]
				split(key, f, FS)
				if (n[key] == 0) { print f[1] FS f[2] FS f[3] FS first[key] FS f[4]; continue }
				c = n[key]
				for (j = 1; j <= c; j++) v[j] = vals[key, j]
				for (j = 2; j <= c; j++) for (k = j; k > 1 && v[k - 1] + 0 > v[k] + 0; k--) { t = v[k]; v[k] = v[k - 1]; v[k - 1] = t }
				med = (c % 2) ? v[(c + 1) / 2] : sprintf("%.3f", (v[c / 2] + v[c / 2 + 1]) / 2)
				print f[1] FS f[2] FS f[3] FS med FS f[4]
				if (c > 1) {
					list = vals[key, 1]
					for (j = 2; j <= c; j++) list = list " " vals[key, j]
					print f[1] FS f[2] FS f[3] FS "median of " c " " what ": " list FS "note"
				}
			}
		}' "$ROUND_FILE" >>"$TSV"
	rm -f "$ROUND_FILE"
	ROUND_FILE=
}

# skip DATASET INDEX METRIC REASON
skip() {
	emit "$1" "$2" "$3" "skipped: $4" note
}

now_ns() { date +%s%N; }
ms_since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.3f", (b - a) / 1e6 }'; }

# Wait until the server accepts connections again (after a crash of a
# backend the postmaster reinitializes); start it if it is gone.
server_ensure() {
	local i
	for i in $(seq 1 120); do
		as_pg "$PG_BIN/pg_isready" -q -h "$PGHOST" -p "$PGPORT" && return 0
		if [ ! -f "$PGDATA/postmaster.pid" ]; then
			say "the server is down: starting it again"
			as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 300 start >/dev/null || true
		fi
		sleep 1
	done
	echo "the server does not come back; see $ARTRIE_TMP/server.log" >&2
	tail -30 "$ARTRIE_TMP/server.log" >&2
	return 1
}

server_restart() {
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -m fast -w -t 300 restart >/dev/null ||
		server_ensure
}

# Convert bytes into the unit pg_settings gives for a memory GUC.
guc_mem() {
	local name=$1 bytes=$2 unit
	unit=$(q -c "SELECT unit FROM pg_settings WHERE name = '$name'" 2>/dev/null || true)
	case "$unit" in
	8kB) echo $((bytes / 8192)) ;;
	kB) echo $((bytes / 1024)) ;;
	MB) echo $((bytes / 1048576)) ;;
	B | '') echo "$bytes" ;;
	*) echo "$((bytes / 1048576))MB" ;;
	esac
}

# Write the per-phase settings file (included from postgresql.conf) and
# restart: bench_profile BACKEND SHARED_BUFFERS_BYTES POOL_BYTES
bench_profile() {
	local backend=$1 sb=$2 pool=$3
	{
		echo "shared_buffers = $((sb / 1048576))MB"
		if [ -n "$HAVE_POOL_GUC" ]; then
			echo "artrie.buffer_pool_size = $(guc_mem artrie.buffer_pool_size "$pool")"
		fi
		if [ -n "$HAVE_BACKEND_GUC" ]; then
			echo "artrie.io_backend = $backend"
		fi
	} | as_pg tee "$PGDATA/bench_profile.conf" >/dev/null
	server_restart
}

# The SQL helpers the measurements use, in the bench database.
bench_sql_helpers() {
	q <<'SQL'
-- Run a query REPS times; the median elapsed time in ms and the first
-- column of its (single-row) result.
CREATE OR REPLACE FUNCTION bench_time(qry text, reps int)
RETURNS TABLE (ms double precision, result text) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ts double precision[] := '{}'; r text;
BEGIN
	FOR i IN 1..reps LOOP
		t0 := clock_timestamp();
		EXECUTE qry INTO r;
		ts := ts || (extract(epoch FROM clock_timestamp() - t0) * 1000)::double precision;
	END LOOP;
	ms := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
	result := r;
	RETURN NEXT;
END $$;

-- Run format(template, v) for every v (one query each, timed together);
-- ms per query, and the sum of the queries' (numeric) results.
CREATE OR REPLACE FUNCTION bench_multi(template text, vals text[])
RETURNS TABLE (ms double precision, result text) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r text; s numeric := 0; v text;
BEGIN
	t0 := clock_timestamp();
	FOREACH v IN ARRAY vals LOOP
		EXECUTE format(template, v) INTO r;
		s := s + coalesce(r::numeric, 0);
	END LOOP;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000 / greatest(cardinality(vals), 1);
	result := s::text;
	RETURN NEXT;
END $$;

-- The time this backend has waited for a CPU (ns): the second field of
-- /proc/self/schedstat (the kernel's run_delay).
CREATE OR REPLACE FUNCTION bench_run_delay() RETURNS bigint LANGUAGE sql AS $$
	SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 2)::bigint
$$;

-- bench_multi's pass again and again, until at least min_passes passes
-- took min_ms together, or max_ms has gone by.  Each pass is timed by the
-- clock less the time the backend waited for a CPU meanwhile (other
-- processes' turns on a loaded machine).  Returns the median pass (ms per
-- query), the first pass by the clock alone (what bench_multi gives), the
-- fastest and slowest pass, how many passes ran and the median pass by
-- the clock alone.
CREATE OR REPLACE FUNCTION bench_passes(template text, vals text[], min_passes int,
	min_ms double precision, max_ms double precision)
RETURNS TABLE (ms double precision, result text, first_ms double precision,
	min_ms_pass double precision, max_ms_pass double precision, passes int,
	clock_ms double precision)
LANGUAGE plpgsql AS $$
DECLARE ts double precision[] := '{}'; cs double precision[] := '{}';
	total double precision := 0; p record; t0 timestamptz; w0 bigint; w1 bigint;
	ms1 double precision; n int := greatest(cardinality(vals), 1);
BEGIN
	LOOP
		-- the waits are read just outside the clock's interval: a read
		-- costs 10-16 us (pg_read_file), which inside it would add to
		-- every pass (a wait during a read itself is taken off too)
		w0 := bench_run_delay();
		t0 := clock_timestamp();
		SELECT * INTO p FROM bench_multi(template, vals);
		ms1 := extract(epoch FROM clock_timestamp() - t0) * 1000;
		w1 := bench_run_delay();
		ts := ts || ((ms1 - (w1 - w0) / 1e6) / n);
		cs := cs || p.ms;
		total := total + ms1;
		EXIT WHEN (cardinality(ts) >= min_passes AND total >= min_ms) OR total >= max_ms;
	END LOOP;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), min(x), max(x)
		INTO ms, min_ms_pass, max_ms_pass FROM unnest(ts) x;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO clock_ms FROM unnest(cs) x;
	result := p.result;
	first_ms := cs[1];
	passes := cardinality(ts);
	RETURN NEXT;
END $$;

-- Two templates side by side in this one backend: for each value, the
-- query of template a and the query of template b one after the other
-- (b first in every other pair), each timed by the clock less the
-- backend's waits for a CPU; at least min_rounds rounds over all the
-- values, and more until both templates' queries took min_ms.  The
-- ratio is the median of the pairs' ratios b / a: a vCPU of this machine
-- can run at a third of its speed for seconds at a time, and then slows
-- both queries of a pair rather than one index's measurement.  ms_a and
-- ms_b are the medians of the rounds' times per query; result_a and
-- result_b the sums of a round's (numeric) results.
CREATE OR REPLACE FUNCTION bench_pairs(tmpl_a text, tmpl_b text, vals text[],
	min_rounds int, min_ms double precision)
RETURNS TABLE (ratio double precision, ms_a double precision,
	ms_b double precision, result_a text, result_b text, pairs int,
	rounds int, ratio_lo double precision, ratio_hi double precision)
LANGUAGE plpgsql AS $$
DECLARE rs double precision[] := '{}'; ras double precision[] := '{}';
	rbs double precision[] := '{}'; total double precision := 0;
	n int := greatest(cardinality(vals), 1); i int; r int := 0; v text;
	ta double precision; tb double precision; sa double precision;
	sb double precision; suma numeric; sumb numeric; x text;
	t0 timestamptz; w0 bigint; w1 bigint; ms1 double precision;
	side int;
BEGIN
	LOOP
		r := r + 1;
		sa := 0; sb := 0; suma := 0; sumb := 0; i := 0;
		FOREACH v IN ARRAY vals LOOP
			i := i + 1;
			FOR k IN 0..1 LOOP
				side := (r + i + k) % 2;
				-- the waits read outside the clock's interval, as in
				-- bench_passes: two reads inside it took 20-30 us, as
				-- long as a short query, and pulled its ratio towards 1
				w0 := bench_run_delay();
				t0 := clock_timestamp();
				EXECUTE format(CASE side WHEN 0 THEN tmpl_a ELSE tmpl_b END, v) INTO x;
				ms1 := extract(epoch FROM clock_timestamp() - t0) * 1000;
				w1 := bench_run_delay();
				total := total + ms1;
				ms1 := greatest(ms1 - (w1 - w0) / 1e6, 0.001);
				IF side = 0 THEN
					ta := ms1; sa := sa + ms1; suma := suma + coalesce(x::numeric, 0);
				ELSE
					tb := ms1; sb := sb + ms1; sumb := sumb + coalesce(x::numeric, 0);
				END IF;
			END LOOP;
			rs := rs || tb / ta;
		END LOOP;
		ras := ras || sa / n;
		rbs := rbs || sb / n;
		EXIT WHEN r >= min_rounds AND total >= min_ms;
	END LOOP;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y), min(y), max(y)
		INTO ratio, ratio_lo, ratio_hi FROM unnest(rs) y;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y) INTO ms_a FROM unnest(ras) y;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y) INTO ms_b FROM unnest(rbs) y;
	result_a := suma::text;
	result_b := sumb::text;
	pairs := cardinality(rs);
	rounds := r;
	RETURN NEXT;
END $$;

-- The scan nodes of a query's plan: "Node Type:index or relation", so a
-- plan that does not use the intended index is visible in the output.
CREATE OR REPLACE FUNCTION bench_plan(qry text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || qry INTO p;
	RETURN (SELECT string_agg(DISTINCT (n->>'Node Type') || ':' ||
			coalesce(n->>'Index Name', n->>'Relation Name', ''), ' + ')
		FROM jsonb_path_query(p::jsonb, 'strict $.**') n
		WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type'
			AND (n->>'Node Type') LIKE '%Scan%');
END $$;

-- LIKE pattern for "starts with p".
CREATE OR REPLACE FUNCTION bench_like(p text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT replace(replace(replace(p, '\', '\\'), '%', '\%'), '_', '\_') || '%'
$$;
SQL
}

# warm_then_time DATASET INDEX METRIC WARMUP_SQL TIMED_SQL: runs both in
# one session (so that the timed query finds the backend's own caches
# warm, as the pool and shared buffers are, and does not time a new
# backend's first use of the index) and leaves the timed query's output
# (its last line) in SQL_OUT; on an error records the skip, waits for the
# server and returns 1.
warm_then_time() {
	SQL_OUT=$(q -c "$4" -c "$5") || {
		skip "$1" "$2" "$3" "$(last_err)"
		server_ensure
		return 1
	}
	SQL_OUT=${SQL_OUT##*$'\n'}
}

# time_sql DATASET INDEX METRIC UNIT DIVISOR REPS QUERY [IDXNAME]
#   runs QUERY once to warm up, then REPS times; records the median in ms
#   divided by DIVISOR (scaled to UNIT: ms or us), the plan's scan nodes,
#   and the result (a row count) as a check row.
time_sql() {
	local ds=$1 idx=$2 metric=$3 unit=$4 div=$5 reps=$6 qry=$7 ms res plan
	local lit
	lit=$(printf '%s' "$qry" | sed "s/'/''/g")
	plan=$(q -c "SELECT bench_plan('$lit')") || plan="(explain failed: $(last_err))"
	emit "$ds" "$idx" "$metric" "$plan" plan
	warm_then_time "$ds" "$idx" "$metric" "SELECT bench_time('$lit', 1)" \
		"SELECT ms, result FROM bench_time('$lit', $reps)" || return 0
	ms=${SQL_OUT%%$'\t'*}
	res=${SQL_OUT#*$'\t'}
	case "$unit" in
	us*) emit "$ds" "$idx" "$metric" "$(awk -v m="$ms" -v d="$div" 'BEGIN { printf "%.3f", m * 1000 / d }')" "$unit" ;;
	*) emit "$ds" "$idx" "$metric" "$(awk -v m="$ms" -v d="$div" 'BEGIN { printf "%.3f", m / d }')" "$unit" ;;
	esac
	emit "$ds" "$idx" "$metric" "$res" check
}

# multi_sql DATASET INDEX METRIC TEMPLATE VALUES_SQL
#   TEMPLATE has one %L (or %s) placeholder; VALUES_SQL yields the values.
#   Records ms per query: after one warm-up pass, the median of passes
#   timed until MULTI_MIN_PASSES passes took MULTI_MIN_MS together (or
#   MULTI_MAX_MS went by), each by the clock less the backend's wait for
#   a CPU (bench_passes), with a note row giving the passes and their
#   median by the clock alone; the plan for the first value, and the
#   summed results as a check row.  With BENCH_COMPARE set, also the
#   first timed pass alone by the clock (as bench_multi measured it) as
#   metric METRIC@1pass, and the median by the clock as METRIC@clock.
MULTI_MIN_PASSES=${MULTI_MIN_PASSES:-3} MULTI_MIN_MS=${MULTI_MIN_MS:-100} MULTI_MAX_MS=${MULTI_MAX_MS:-1000}
multi_sql() {
	local ds=$1 idx=$2 metric=$3 tmpl=$4 vals=$5 lit first plan
	lit=$(printf '%s' "$tmpl" | sed "s/'/''/g")
	first=$(q -c "SELECT replace(format('$lit', v), '''', '''''') FROM ($vals) s(v) LIMIT 1") || first=
	if [ -z "$first" ]; then
		skip "$ds" "$idx" "$metric" "no values"
		return 0
	fi
	plan=$(q -c "SELECT bench_plan('$first')") || plan="(explain failed: $(last_err))"
	emit "$ds" "$idx" "$metric" "$plan" plan
	warm_then_time "$ds" "$idx" "$metric" "SELECT bench_multi('$lit', ARRAY($vals))" \
		"SELECT ms, result, first_ms, min_ms_pass, max_ms_pass, passes, clock_ms FROM bench_passes('$lit', ARRAY($vals), $MULTI_MIN_PASSES, $MULTI_MIN_MS, $MULTI_MAX_MS)" || return 0
	local f
	IFS=$'\t' read -r -a f <<<"$SQL_OUT"
	emit "$ds" "$idx" "$metric" "$(printf '%.3f' "${f[0]}")" ms/query
	emit "$ds" "$idx" "$metric" "$(printf 'median of %s passes less their waits for a CPU (%.3f-%.3f ms/query; by the clock alone %.3f)' "${f[5]}" "${f[3]}" "${f[4]}" "${f[6]}")" note
	if [ -n "${BENCH_COMPARE:-}" ]; then
		emit "$ds" "$idx" "$metric@1pass" "$(printf '%.3f' "${f[2]}")" ms/query
		emit "$ds" "$idx" "$metric@clock" "$(printf '%.3f' "${f[6]}")" ms/query
	fi
	emit "$ds" "$idx" "$metric" "${f[1]}" check
}

# pair_sql DATASET KIND_A KIND_B METRIC TEMPLATE_A TEMPLATE_B VALUES_SQL
#   Measures two templates side by side in one session (bench_pairs),
#   after one warm-up pass of each: KIND_A's and KIND_B's rows of METRIC
#   in ms per query (the medians of the rounds), their plans and check
#   rows, and KIND_B's ratio row, the median of the pairs' ratios.  The
#   rounds: at least ROUNDS_MIN (default 3), and more until both
#   templates' queries took MULTI_MIN_MS.
pair_sql() {
	local ds=$1 a=$2 b=$3 metric=$4 ta=$5 tb=$6 vals=$7 la lb first f kind
	la=$(printf '%s' "$ta" | sed "s/'/''/g")
	lb=$(printf '%s' "$tb" | sed "s/'/''/g")
	for kind in "$a" "$b"; do
		first=$(q -c "SELECT replace(format('$([ "$kind" = "$a" ] && echo "$la" || echo "$lb")', v), '''', '''''') FROM ($vals) s(v) LIMIT 1") || first=
		if [ -z "$first" ]; then
			skip "$ds" "$kind" "$metric" "no values"
			return 0
		fi
		emit "$ds" "$kind" "$metric" "$(q -c "SELECT bench_plan('$first')" || echo "(explain failed: $(last_err))")" plan
	done
	warm_then_time "$ds" "$b" "$metric" \
		"SELECT bench_multi('$la', ARRAY($vals)), bench_multi('$lb', ARRAY($vals))" \
		"SELECT ratio, ms_a, ms_b, result_a, result_b, pairs, rounds, ratio_lo, ratio_hi FROM bench_pairs('$la', '$lb', ARRAY($vals), ${ROUNDS_MIN:-3}, $MULTI_MIN_MS)" || return 0
	IFS=$'\t' read -r -a f <<<"$SQL_OUT"
	emit "$ds" "$a" "$metric" "$(printf '%.3f' "${f[1]}")" ms/query
	emit "$ds" "$a" "$metric" "${f[3]}" check
	emit "$ds" "$b" "$metric" "$(printf '%.3f' "${f[2]}")" ms/query
	emit "$ds" "$b" "$metric" "${f[4]}" check
	emit "$ds" "$b" "$metric" "$(printf '%.3f' "${f[0]}")" \
		"$(printf 'ratio (median of %s pairs of queries side by side in one backend, %s rounds; pairs %.3f-%.3f)' "${f[5]}" "${f[6]}" "${f[7]}" "${f[8]}")"
}

# bench_load_dataset DS FILE: table ds_DS (id, k COLLATE "C") from FILE (COPY
# text format; synth is generated, FILE unused), its probes (probe_DS, and
# pb_DS with a primary key), prefixes (pref_DS), seek points (seek_DS) and
# the pgbench lookup script lookup_DS.sql.  Uses ROWS_SYNTH, NPROBE, NPREF,
# NSEEK.  Exits on an error.
# bench_probe_sql TABLE SOURCE N: the SQL that makes TABLE (pid, k) from N
# keys of table SOURCE in md5 order, every tenth made a miss (a '#'
# appended): the probes of the lookup rows.
bench_probe_sql() {
	cat <<SQL
CREATE TABLE $1 AS
	SELECT row_number() OVER ()::int AS pid,
		CASE WHEN ord % 10 = 0 THEN k || '#' ELSE k END COLLATE "C" AS k
	FROM (SELECT k, row_number() OVER (ORDER BY md5(k)) AS ord
		FROM $2 ORDER BY md5(k) LIMIT $3) s;
SQL
}

bench_load_dataset() {
	local ds=$1 file=$2
	q -c "CREATE TABLE ds_$ds (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE \"C\")" || { last_err; exit 1; }
	if [ "$ds" = synth ]; then
		q -c "INSERT INTO ds_synth (k) SELECT 'user/' || ((g::bigint * 48271) % ($ROWS_SYNTH / 20 + 7)) || '/item/' || g FROM generate_series(1, $ROWS_SYNTH) g" || { last_err; exit 1; }
	else
		q -c "COPY ds_$ds (k) FROM '$file'" || { last_err; exit 1; }
	fi
	q <<SQL || { last_err; exit 1; }
VACUUM ANALYZE ds_$ds;
-- Probes: NPROBE keys in a hash order, 10% of them changed into misses.
$(bench_probe_sql "probe_$ds" "ds_$ds" "$NPROBE")
-- The same probes with a primary key, for pgbench's lookups by number (the
-- probe table itself has no index, so that every join plan is the same).
CREATE TABLE pb_$ds AS SELECT * FROM probe_$ds;
ALTER TABLE pb_$ds ADD PRIMARY KEY (pid);
-- Prefixes of length 1, 2, 3, 5, 8 of the probe keys, NPREF of each.
CREATE TABLE pref_$ds AS
	SELECT n, p, row_number() OVER (PARTITION BY n ORDER BY md5(p)) AS ord
	FROM (SELECT DISTINCT n, left(k, n) AS p
		FROM probe_$ds, unnest('{1,2,3,5,8}'::int[]) n
		WHERE length(k) >= n) s;
DELETE FROM pref_$ds WHERE ord > $NPREF;
-- Seek points for ORDER BY k LIMIT 10: halves of probe keys.
CREATE TABLE seek_$ds AS
	SELECT left(k, length(k) / 2 + 1) AS s FROM probe_$ds WHERE pid <= $NSEEK;
VACUUM ANALYZE probe_$ds, pb_$ds, pref_$ds, seek_$ds;
SQL
	printf '\\set p random(1, %s)\nSELECT id FROM ds_%s WHERE k = (SELECT k FROM pb_%s WHERE pid = :p);\n' \
		"$NPROBE" "$ds" "$ds" >"$ARTRIE_TMP/lookup_$ds.sql"
	chmod a+r "$ARTRIE_TMP/lookup_$ds.sql"
}

# server_child_cpu: CPU time in ms that the server's exited processes
# (backends) used, from the postmaster's cutime and cstime (clock ticks),
# once no more children than CHILDREN_BEFORE are left to reap.
server_child_cpu() {
	local pm i
	pm=$(head -1 "$PGDATA/postmaster.pid")
	for i in $(seq 1 40); do
		[ "$(pgrep -c -P "$pm")" -le "${CHILDREN_BEFORE:-0}" ] && break
		sleep 0.05
	done
	sed 's/^.*) //' "/proc/$pm/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1000 / hz }'
}

# run_pgbench DATASET INDEX METRIC CLIENTS DURATION SCRIPT_ARGS...
#   Records the TPS; with PGBENCH_CPU_METRIC set also, as that metric, the
#   server's CPU time per transaction (us) that pgbench's backends used
#   (server_child_cpu before and after).
run_pgbench() {
	local ds=$1 idx=$2 metric=$3 c=$4 dur=$5 out tps fail j cpu0 cpu1 ntx
	shift 5
	j=$((c < 2 ? c : 2))
	if [ -n "${PGBENCH_CPU_METRIC:-}" ]; then
		CHILDREN_BEFORE=$(pgrep -c -P "$(head -1 "$PGDATA/postmaster.pid")")
		cpu0=$(server_child_cpu)
	fi
	out=$(as_pg "$PG_BIN/pgbench" -n -M prepared -c "$c" -j "$j" -T "$dur" ${BENCH_PGBENCH_PROGRESS:+-P 1} "$@" "$BENCH_DB" 2>&1) || {
		skip "$ds" "$idx" "$metric" "pgbench: $(printf '%s\n' "$out" | grep -m1 -iE 'error|fatal|abort' | cut -c1-200)"
		server_ensure
		return 0
	}
	[ -n "${BENCH_PGBENCH_PROGRESS:-}" ] &&
		printf '== %s %s %s round %s load %s\n%s\n' "$ds" "$idx" "$metric" "${ROUND:-}" "$(cat /proc/loadavg)" "$out" >>"$ARTRIE_TMP/pgbench.log"
	tps=$(printf '%s\n' "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)
	fail=$(printf '%s\n' "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
	emit "$ds" "$idx" "$metric" "${tps:-?}" tps
	[ -n "$fail" ] && [ "$fail" != 0 ] && emit "$ds" "$idx" "$metric" "$fail" "failed transactions"
	if [ -n "${PGBENCH_CPU_METRIC:-}" ]; then
		cpu1=$(server_child_cpu)
		ntx=$(printf '%s\n' "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		[ "${ntx:-0}" -gt 0 ] &&
			emit "$ds" "$idx" "$PGBENCH_CPU_METRIC" "$(awk -v a="$cpu0" -v b="$cpu1" -v n="$ntx" 'BEGIN { printf "%.2f", (b - a) * 1000 / n }')" us/tx
	fi
	return 0
}

# Bytes of an index: pg_total_relation_size, and for artrie its own files
# (artrie_stats' bytes_on_disk, which already includes the main fork; or,
# before artrie_stats exists, du of $PGDATA/artrie without its control
# file).
index_bytes() {
	local idx=$1 kind=$2
	if [ "${kind%%-*}" = artrie ]; then
		if [ -n "$HAVE_STATS" ]; then
			q -c "SELECT (artrie_stats('$idx'::regclass)->>'bytes_on_disk')::bigint" && return 0
		fi
		local fork files
		fork=$(q -c "SELECT pg_total_relation_size('$idx'::regclass)") || return 1
		files=$(du -sb --exclude=control "$PGDATA/artrie" 2>/dev/null | cut -f1)
		echo $((fork + ${files:-0}))
	else
		q -c "SELECT pg_total_relation_size('$idx'::regclass)"
	fi
}

# The DDL for each index kind on column k of TABLE.
index_ddl() {
	local kind=$1 name=$2 table=$3
	case "$kind" in
	btree-C | btree-C-mmap-phase) echo "CREATE INDEX $name ON $table USING btree (k)" ;;
	btree-pattern) echo "CREATE INDEX $name ON $table USING btree (k text_pattern_ops)" ;;
	spgist) echo "CREATE INDEX $name ON $table USING spgist (k)" ;;
	hash) echo "CREATE INDEX $name ON $table USING hash (k)" ;;
	trgm-gin) echo "CREATE INDEX $name ON $table USING gin (k gin_trgm_ops)" ;;
	artrie-*) echo "CREATE INDEX $name ON $table USING artrie (k)" ;;
	esac
}

# What an index kind supports, for choosing the measurements.
kind_prefix() { case "$1" in hash) return 1 ;; *) return 0 ;; esac; }
# (text_pattern_ops' order is not the column's COLLATE "C" order to the
# planner, and SP-GiST has none: ORDER BY k would scan and sort.)
kind_order() { case "$1" in hash | trgm-gin | spgist | btree-pattern) return 1 ;; *) return 0 ;; esac; }

# bench_report TSV MD DOCS_DIR RUN: the markdown table (ratios to btree-C
# in the same run, then every value) and the gnuplot PNGs.
bench_report() {
	local tsv=$1 md=$2 docs=$3 run=$4 plots
	plots=$(mktemp -d)
	perl - "$tsv" "$md" "$plots" "$run" <<'PERL'
use strict;
use warnings;
my ($tsv, $md, $plots, $run) = @ARGV;
my @kinds = qw(btree-C artrie-io_uring artrie-mmap btree-C-mmap-phase btree-pattern spgist hash trgm-gin levenshtein-scan prefix-gist);
my (@head, %val, %unit, %plan, %skip, %check, %pratio, @dsorder, %seen);
open my $in, '<', $tsv or die "$tsv: $!";
while (<$in>) {
	chomp;
	if (/^#/) { push @head, substr($_, 2); next; }
	next if /^dataset\t/;
	my ($ds, $ix, $m, $v, $u) = split /\t/, $_, 5;
	next unless defined $u;
	push @dsorder, $ds unless $seen{$ds}++;
	if ($v =~ /^skipped: (.*)/) { $skip{$ds}{$ix}{$m} = $1; next; }
	if ($u eq 'plan') { $plan{$ds}{$ix}{$m} = $v; next; }
	if ($u =~ /^check/) { $check{$ds}{$ix}{$m} = $v if $u eq 'check' || $u eq 'check (of 1000)'; next; }
	next if $u eq 'note' || $u eq 'setting';
	# the median of paired runs' ratios to the baseline (side_by_side in run.sh)
	if ($u =~ /^ratio/) { $pratio{$ds}{$ix}{$m} = $v; next; }
	$val{$ds}{$ix}{$m} = $v;
	$unit{$ds}{$m} = $u;
}
close $in;

# Metrics in order: name, direction (lower/higher is better), baseline metric.
my @metrics = (
	[build => 'lower'], [size => 'lower'], [size_per_key => 'lower'],
	[lookup_join => 'lower'], [lookup_tps_c1 => 'higher'], [lookup_tps_c2 => 'higher'],
	[lookup_cpu_c1 => 'lower'], [lookup_cpu_c2 => 'lower'],
	(map { ["prefix_count_$_" => 'lower'] } 1, 2, 3, 5, 8),
	(map { ["prefix_fn_$_" => 'lower', "prefix_count_$_"] } 1, 2, 3, 5, 8),
	(map { ["like_rows_$_" => 'lower'] } 1, 2, 3, 5, 8),
	(map { ["complete10_$_" => 'lower'] } 1, 3),
	[seek_limit10 => 'lower'], [lookup_cold => 'lower'],
	[insert_tps_c1 => 'higher'], [insert_tps_c8 => 'higher'], [mixed_tps_c2 => 'higher'],
	[bulk_insert => 'lower'], [artrie_checkpoint => 'lower', 'pg_checkpoint'],
	[pg_checkpoint => 'lower'], [recovery => 'lower'],
	# The SQL functions, against their own baselines (4th field).
	[fuzzy_d1 => 'lower', undef, 'levenshtein-scan'], [fuzzy_d2 => 'lower', undef, 'levenshtein-scan'],
	[fuzzy_trgm => 'lower', 'fuzzy_d1', 'levenshtein-scan'],
	[recall_d1 => 'higher', undef, 'levenshtein-scan'], [recall_d2 => 'higher', undef, 'levenshtein-scan'],
	[prefixes_of => 'lower', undef, 'prefix-gist'],
);
my %bkind = map { $_->[0] => ($_->[3] // 'btree-C') } @metrics;
sub idxname { my ($ds, $k) = @_; my $n = lc "${ds}_$k"; $n =~ tr/-/_/; $n }
sub fmt { my $v = shift; return $v if $v !~ /^-?[0-9.]+$/; return sprintf('%.0f', $v) if abs($v) >= 100;
	return sprintf('%.1f', $v) if abs($v) >= 10; return sprintf('%.2f', $v) if abs($v) >= 0.1; sprintf('%.3f', $v) }
my %skipnotes; my $nskip = 0;
sub skipref {
	my ($r) = @_;
	$skipnotes{$r} //= ++$nskip;
	return "skip[^s$skipnotes{$r}]";
}
sub cell {
	my ($ds, $k, $m, $base, $ratio) = @_;
	my $s = $skip{$ds}{$k}{$m} // $skip{$ds}{$k}{all} // $skip{'-'}{$k}{all};
	my $v = $val{$ds}{$k}{$m};
	return skipref($s) if defined $s && !defined $v;
	return '' unless defined $v;
	# artrie on mmap is compared with btree-C measured again in the same
	# phase, after the restart, wherever phase B measured it: the machine's
	# load and the disk's sync latency drift between the phases.
	$base = $val{$ds}{'btree-C-mmap-phase'}{$m}
		if $k eq 'artrie-mmap' && defined $val{$ds}{'btree-C-mmap-phase'}{$m};
	my $out;
	if ($ratio && defined $pratio{$ds}{$k}{$m}) {
		$out = sprintf('%.2fx', $pratio{$ds}{$k}{$m});
	} elsif ($ratio && defined $base && $base =~ /^[0-9.]+$/ && $base > 0 && $k ne $bkind{$m}) {
		$out = sprintf('%.2fx', $v / $base);
	} else {
		$out = fmt($v);
	}
	my $p = $plan{$ds}{$k}{$m};
	my $want = idxname($ds, $k);
	if (defined $p && $m !~ /^(prefix_fn|complete10|fuzzy_d|prefixes_of|recall)/ && $k ne 'levenshtein-scan' && $k ne 'prefix-gist' && index($p, $want) < 0) {
		$out .= ' (plan: ' . ($p eq '' ? 'none' : $p) . ')';
	}
	return $out;
}
open my $o, '>', $md or die "$md: $!";
print $o "# artrie benchmark, run $run\n\n";
print $o "$_  \n" for @head;
print $o "\nHeadline: each cell is the index's value divided by btree on a `COLLATE \"C\"` column in the same run ",
	"(the btree-C column shows its absolute value). For 'lower' metrics below 1.00x is better, for 'higher' metrics above 1.00x is better. ",
	"prefix_fn_N is `artrie_prefix_count()` against btree-C's `count(*)` for the same prefixes. ",
	"artrie's build, lookup_tps_cN, lookup_cpu_cN, prefix_count_N, like_rows_N and seek_limit10 cells are the medians of the ratios of measurements paired with btree-C's, side by side (side_by_side in bench/run.sh), where the run made them. ",
	"artrie-mmap runs after a restart (phase B); its metrics are divided by btree-C-mmap-phase, btree-C measured again in that phase (every metric phase B measures for both), whose own column shows the drift from phase A. ",
	"A cell marked (plan: ...) did not use the intended index; skip notes are at the end. ",
	"Absolute figures are from this machine only (see the header); bench/README.md explains each metric.\n";
# The headline: the metrics the targets name, every dataset, ratios.
my @hl = qw(build size lookup_join lookup_tps_c1 lookup_tps_c2 prefix_count_3 prefix_fn_3 like_rows_3 seek_limit10 lookup_cold
	insert_tps_c1 insert_tps_c8 mixed_tps_c2 artrie_checkpoint recovery);
my @hlf = qw(complete10_1 fuzzy_d1 fuzzy_d2 fuzzy_trgm recall_d1 recall_d2 prefixes_of);
my %dir = map { $_->[0] => $_->[1] } @metrics;
my %bm = map { $_->[0] => ($_->[2] // $_->[0]) } @metrics;
{
	my @ks = grep { my $k = $_; grep { my $ds = $_; grep { defined $val{$ds}{$k}{$_} } @hl or defined $skip{$ds}{$k}{all} } @dsorder } @kinds;
	@ks = grep { $_ ne 'levenshtein-scan' && $_ ne 'prefix-gist' } @ks;
	print $o "\n## Headline: ratios to btree-C\n\n";
	print $o "| dataset | metric | better | btree-C (absolute) | " . join(' | ', grep { $_ ne 'btree-C' } @ks) . " |\n";
	print $o "|---|---|---|---:|" . join('|', map { '---:' } grep { $_ ne 'btree-C' } @ks) . "|\n";
	for my $ds (@dsorder) {
		next if $ds eq '-' || $ds eq 'disk';
		for my $m (@hl) {
			next unless grep { defined $val{$ds}{$_}{$m} } @kinds;
			my $base = $val{$ds}{'btree-C'}{$bm{$m}};
			my $b = defined $base ? fmt($base) . ' ' . ($unit{$ds}{$bm{$m}} // '') : '';
			$b .= " ($bm{$m})" if $bm{$m} ne $m && $b ne '';
			my @c = map { cell($ds, $_, $m, $base, 1) } grep { $_ ne 'btree-C' } @ks;
			print $o "| $ds | $m | $dir{$m} | $b | " . join(' | ', @c) . " |\n";
		}
	}
	# The SQL functions against their baselines (absolute values).
	my @fk = grep { my $k = $_; grep { my $ds = $_; grep { defined $val{$ds}{$k}{$_} } @hlf } @dsorder } @kinds;
	if (@fk) {
		print $o "\n## SQL functions against their baselines (absolute; ratio to the baseline in brackets)\n\n";
		print $o "| dataset | metric | unit | better | baseline | " . join(' | ', @fk) . " |\n";
		print $o "|---|---|---|---|---|" . join('|', map { '---:' } @fk) . "|\n";
		for my $ds (@dsorder) {
			for my $m (@hlf) {
				next unless grep { defined $val{$ds}{$_}{$m} } @kinds;
				my $base = $val{$ds}{$bkind{$m}}{$bm{$m}};
				my @c = map {
					my $v = $val{$ds}{$_}{$m};
					my $sk = $skip{$ds}{$_}{$m};
					!defined $v ? (defined $sk ? skipref($sk) : '')
					: fmt($v) . (defined $base && $base > 0 && $_ ne $bkind{$m} && $m !~ /^recall/ ? sprintf(' (%.2fx)', $v / $base) : '')
				} @fk;
				print $o "| $ds | $m | " . ($unit{$ds}{$m} // '') . " | $dir{$m} | $bkind{$m}" . ($bm{$m} ne $m ? " $bm{$m}" : '') . " | " . join(' | ', @c) . " |\n";
			}
		}
	}
}
for my $pass ('ratio', 'absolute') {
	print $o ($pass eq 'ratio' ? "\n## Ratios to btree-C\n" : "\n## All values (absolute)\n");
	for my $ds (@dsorder) {
		next if $ds eq '-' || $ds eq 'disk';
		my @ms = grep { my $m = $_->[0]; grep { defined $val{$ds}{$_}{$m} || defined $skip{$ds}{$_}{$m} } @kinds } @metrics;
		next unless @ms;
		my @ks = grep { my $k = $_; grep { defined $val{$ds}{$k}{$_->[0]} } @metrics or defined $skip{$ds}{$k}{all} or defined $skip{'-'}{$k}{all} } @kinds;
		my $extra = join(', ', map { "$_ = " . fmt($val{$ds}{'-'}{$_}) . " $unit{$ds}{$_}" } grep { defined $val{$ds}{'-'}{$_} } qw(rows key_bytes_avg heap_size));
		print $o "\n### $ds" . ($extra ? " ($extra)" : '') . "\n\n";
		print $o "| metric | unit | better | " . join(' | ', @ks) . " |\n";
		print $o "|---|---|---|" . join('|', map { '---:' } @ks) . "|\n";
		for my $mm (@ms) {
			my ($m, $dir, $bm, $bk) = @$mm;
			my $base = $val{$ds}{$bk // 'btree-C'}{$bm // $m};
			my @c = map { cell($ds, $_, $m, $base, $pass eq 'ratio') } @ks;
			@c = map { cell($ds, $_, $m, $base, 0) } @ks if $pass eq 'ratio' && !defined $base;
			print $o "| $m | " . ($unit{$ds}{$m} // '') . " | $dir | " . join(' | ', @c) . " |\n";
		}
	}
}
# Results (row counts) that differ from the baseline's for the same query:
# a wrong answer shows here, not in the timings.
{
	my @bad;
	for my $ds (@dsorder) {
		for my $k (@kinds) {
			for my $m (sort keys %{$check{$ds}{$k} // {}}) {
				next if $k eq 'trgm-gin' && $m eq 'lookup_join';    # fewer probes
				my $bk = $bkind{$m} // 'btree-C';
				$bk = 'levenshtein-scan' if $m =~ /^fuzzy_d/;
				my $want = $m eq 'recovery' ? 1000 : $check{$ds}{$bk}{$m};
				$want = $check{$ds}{$bk}{"prefix_count_$1"} if $m =~ /^prefix_fn_(\d+)/;
				next if !defined $want || $k eq $bk;
				my $got = $check{$ds}{$k}{$m};
				my $from = $m eq 'recovery' ? 'rows committed before the crash' : $bk;
				push @bad, "| $ds | $k | $m | $got | $want ($from) |" if $got ne $want;
			}
		}
	}
	print $o "\n## Results that differ from the baseline's\n\n";
	if (@bad) {
		print $o "Each query's result (a count) is recorded; these differ from what the baseline index returned for the same query, so at least one of them is a wrong answer.\n\n";
		print $o "| dataset | index | metric | result | baseline's result |\n|---|---|---|---:|---:|\n";
		print $o "$_\n" for @bad;
	} else {
		print $o "None: every index returned the same counts as the baseline for every query.\n";
	}
}
if ($val{disk}) {
	print $o "\n## The disk, measured by fio in the same run\n\n| metric | value | unit |\n|---|---:|---|\n";
	print $o "| $_ | $val{disk}{fio}{$_} | $unit{disk}{$_} |\n" for sort keys %{$val{disk}{fio}};
}
if (%skipnotes) {
	print $o "\n";
	print $o "[^s$skipnotes{$_}]: skipped: $_\n" for sort { $skipnotes{$a} <=> $skipnotes{$b} } keys %skipnotes;
}
close $o;

# Data files for gnuplot: one row per group, one column per index kind.
sub datafile {
	my ($name, $rows) = @_;    # rows: [label, sub(kind) -> value]
	my @pk = grep { my $k = $_; grep { my $v = $_->[1]->($k); defined $v && $v =~ /^[0-9.]+$/ } @$rows } @kinds;
	return unless @pk;
	open my $n, '>', "$plots/$name.n" or die; print $n scalar(@pk); close $n;
	open my $f, '>', "$plots/$name.dat" or die;
	print $f join("\t", 'group', @pk), "\n";
	for my $r (@$rows) {
		print $f join("\t", $r->[0], map { my $v = $r->[1]->($_); defined $v && $v =~ /^[0-9.]+$/ ? $v : '?' } @pk), "\n";
	}
	close $f;
}
my @ds = grep { $_ ne '-' && $_ ne 'disk' && $_ ne 'ins' } @dsorder;
datafile('size', [map { my $d = $_; [$d, sub { $val{$d}{$_[0]}{size_per_key} }] } @ds]);
datafile('lookup', [map { my $d = $_; [$d, sub { $val{$d}{$_[0]}{lookup_join} }] } @ds]);
datafile('build', [map { my $d = $_; [$d, sub { my $b = $val{$d}{'btree-C'}{build}; my $v = $val{$d}{$_[0]}{build}; $pratio{$d}{$_[0]}{build} // (defined $b && defined $v && $b > 0 ? $v / $b : undef) }] } @ds]);
my $pds = (grep { $_ eq 'words' } @ds) ? 'words' : $ds[0] // 'words';
datafile('prefix', [map { my $n = $_; ["len $n", sub { $val{$pds}{$_[0]}{"prefix_count_$n"} }] } 1, 2, 3, 5, 8]);
datafile('writes', [map { my $m = $_; [$m, sub { $val{ins}{$_[0]}{$m} }] } qw(insert_tps_c1 insert_tps_c8 mixed_tps_c2)]);
open my $pf, '>', "$plots/prefixds" or die; print $pf $pds; close $pf;
PERL
	local machine pds
	pds=$(cat "$plots/prefixds")
	machine="$(nproc) cores, $(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1), run $run"
	plot() { # NAME YLABEL TITLE [logscale]
		[ -f "$plots/$1.n" ] || { rm -f "$docs/bench-$1.png"; return 0; }
		local ncols
		ncols=$(cat "$plots/$1.n")
		gnuplot <<GP 2>>"$plots/gnuplot.err" || echo "gnuplot failed for $1: $(tail -2 "$plots/gnuplot.err")" >&2
set terminal pngcairo noenhanced size 1100,520 font ",10"
set output "$docs/bench-$1.png"
set datafile separator "\t"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key outside right top vertical
set grid ytics
set yrange [0:*]
${4:+set logscale y; set yrange [*:*]}
set ylabel "$2"
set title "$3\nabsolute figures from this machine only: $machine; bash bench/run.sh"
plot for [i=2:$((ncols + 1))] "$plots/$1.dat" using i:xtic(1) title columnhead(i)
GP
	}
	plot size "bytes per key (index size / rows)" "Index size per key (lower is better)"
	plot lookup "microseconds per probe (log scale)" "Exact lookups: probes inside one query, nested loop (lower is better)" log
	plot build "CREATE INDEX time / btree-C's (log scale)" "Build time relative to btree on COLLATE C (lower is better)" log
	plot prefix "ms per query (log scale)" "count(*) WHERE k LIKE 'p%' on $pds, by prefix length (lower is better)" log
	plot writes "transactions per second" "Single-row insert commits (1 and 8 clients) and 80/20 read/write mix, 2 clients (higher is better)"
	rm -rf "$plots"
}

# perf_cluster FILE SECONDS: perf record -g of the cluster's processes
# for SECONDS (into $ARTRIE_TMP/perf.data, kept for other reports), and
# its flat profile by symbol in FILE.  ARTRIE_PERF_EVENTS adds perf
# record options, e.g. "-e sched:sched_switch" for where the processes
# leave the CPU instead of where they run.
perf_cluster() {
	# shellcheck disable=SC2086 # options, split on purpose
	perf record -q -g ${ARTRIE_PERF_EVENTS:-} -o "$ARTRIE_TMP/perf.data" \
		-p "$(pgrep -d, -P "$(head -1 "$PGDATA/postmaster.pid")")" -- sleep "$2" >/dev/null 2>&1
	perf report -i "$ARTRIE_TMP/perf.data" --stdio --no-children --sort dso,symbol \
		--percent-limit 0.3 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' >"$1"
}

# perf_profile DATASET INDEX METRIC QUERY: a flat CPU profile (perf
# record on the backend running QUERY 30 times) written next to the
# results, so that where artrie is slower the profile says why.
perf_profile() {
	local ds=$1 idx=$2 metric=$3 lit pidf data pid perfpid i file
	file=$PERF_DIR/$ds-$idx-$metric.txt
	if [ "$(id -u)" != 0 ] || ! command -v perf >/dev/null; then
		return 0
	fi
	lit=$(printf '%s' "$4" | sed "s/'/''/g")
	pidf=$ARTRIE_TMP/perf.pid data=$ARTRIE_TMP/perf.data
	rm -f "$pidf" "$data"
	as_pg "$PG_BIN/psql" -XAtq -d "$BENCH_DB" >/dev/null 2>&1 <<SQL &
SELECT pg_backend_pid() \g $pidf
SELECT pg_sleep(0.5);
SELECT bench_time('$lit', 30);
SQL
	pid=$!
	for i in $(seq 1 50); do [ -s "$pidf" ] && break; sleep 0.1; done
	if [ ! -s "$pidf" ]; then
		wait "$pid"
		return 0
	fi
	perf record -q -F 2999 -p "$(cat "$pidf")" -o "$data" >/dev/null 2>&1 &
	perfpid=$!
	wait "$pid"
	kill -INT "$perfpid" 2>/dev/null
	wait "$perfpid" 2>/dev/null
	mkdir -p "$PERF_DIR"
	{
		echo "# perf profile of one backend running, 30 times: $4"
		echo "# dataset $ds, index $idx, metric $metric; run $RUN; perf report --no-children --sort dso,symbol"
		perf report -i "$data" --stdio --no-children --sort dso,symbol --percent-limit 0.5 2>/dev/null |
			grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//' | head -50
	} >"$file"
	rm -f "$data"
}

# Build artrie from a copy of the source tree and install it into a
# private copy of PostgreSQL's installation under $ARTRIE_TMP (test/lib.sh's
# artrie_build_install, run as the cluster's OS user so that it takes its
# private-install path).  As root this keeps the run away from the system's
# pkglibdir, which other builds on the same machine may overwrite while
# the benchmark restarts its server; the copy keeps it away from edits in
# the working tree.  Sets PG_BIN.
bench_build_install() {
	if [ "$(id -u)" != 0 ]; then
		artrie_build_install
		return
	fi
	local src=$ARTRIE_TMP/src bin
	mkdir -p "$src"
	tar -C "$ARTRIE_SRC" --exclude=.git --exclude='*.o' --exclude='*.bc' --exclude='*.so' \
		--exclude=tmp_check --exclude=results --exclude=bench/results -cf - . | tar -C "$src" -xf -
	chown -R postgres: "$ARTRIE_TMP"
	# with_llvm=no: no JIT bitcode, whose directory in the private copy is
	# a link to the system's (and jit = off in the benchmark anyway).
	bin=$(runuser -u postgres -- env ARTRIE_TMP="$ARTRIE_TMP" MAKEFLAGS=with_llvm=no bash -c \
		'. "$ARTRIE_TMP/src/test/lib.sh" && artrie_build_install >&2 && echo "$PG_BIN"') || return 1
	PG_BIN=$bin
}

# bench_install_version VERSION SRC: a private install of SRC in
# $ARTRIE_TMP/inst-VERSION (the system's binaries in SYS_PG_BIN); sets
# BIN_<VERSION>.
bench_install_version() {
	local v=$1
	rm -rf "$ARTRIE_TMP/src" "$ARTRIE_TMP/inst"
	PG_BIN=$SYS_PG_BIN ARTRIE_SRC=$2
	bench_build_install >"$ARTRIE_TMP/build-$v.log" 2>&1 ||
		{ tail -20 "$ARTRIE_TMP/build-$v.log"; exit 1; }
	grep -q '^make: \*\*\*' "$ARTRIE_TMP/build-$v.log" && { tail -20 "$ARTRIE_TMP/build-$v.log"; exit 1; }
	mv "$ARTRIE_TMP/inst" "$ARTRIE_TMP/inst-$v"
	printf -v "BIN_$v" '%s' "$ARTRIE_TMP/inst-$v$SYS_PG_BIN"
}

# bench_install_versions SRC BASE: installs SRC as head and, when BASE (a
# git ref) is not empty, that commit of SRC's repository as base; sets
# VERSIONS ("head", or "base head"), BASE_COMMIT and BIN_<VERSION>.
bench_install_versions() {
	VERSIONS="head"
	bench_install_version head "$1"
	if [ -n "$2" ]; then
		BASE_COMMIT=$(git -C "$1" rev-parse --short "$2") || exit 1
		mkdir -p "$ARTRIE_TMP/base-src"
		git -C "$1" archive "$BASE_COMMIT" | tar -C "$ARTRIE_TMP/base-src" -xf -
		bench_install_version base "$ARTRIE_TMP/base-src"
		VERSIONS="base head"
	fi
}

# bench_ab_begin BASE: the start of an A/B benchmark of this working tree
# (head) against git ref BASE (none: head alone), as root: a scratch
# directory, the private installs (bench_install_versions), PG_BIN set to
# head's and HEAD_COMMIT naming it ("+changes" when src, sql or the
# Makefile differ from it).
bench_ab_begin() {
	[ "$(id -u)" = 0 ] || {
		echo "$0: run as root" >&2
		exit 2
	}
	export ARTRIE_PRIVATE_INSTALL=1
	artrie_make_tmp
	# shellcheck disable=SC2034  # bench_install_version's
	SYS_PG_BIN=$PG_BIN
	HEAD_SRC=$ARTRIE_SRC
	HEAD_COMMIT=$(git -C "$HEAD_SRC" rev-parse --short HEAD)
	[ -n "$(git -C "$HEAD_SRC" status --porcelain -- src sql Makefile | head -1)" ] && HEAD_COMMIT+="+changes"
	bench_install_versions "$HEAD_SRC" "$1"
	# shellcheck disable=SC2154  # set by bench_install_versions
	PG_BIN=$BIN_head
}

# bench_ab_cluster BASE: bench_ab_begin BASE, then a cluster for builds
# (maintenance_work_mem 1GB, shared_buffers and artrie's pool
# ARTRIE_BENCH_POOL, default 1GB, the backend from bench_profile.conf)
# with the bench database and artrie.
bench_ab_cluster() {
	local pool=${ARTRIE_BENCH_POOL:-1GB}
	bench_ab_begin "$1"
	BENCH_ERR=$ARTRIE_TMP/psql.err
	: >"$BENCH_ERR"
	chown -R postgres: "$ARTRIE_TMP"
	artrie_start_cluster "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
		"jit = off" "max_parallel_maintenance_workers = 0" "maintenance_work_mem = 1GB" \
		"shared_buffers = $pool" "artrie.buffer_pool_size = $pool" "statement_timeout = 0" \
		"include_if_exists = 'bench_profile.conf'"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
	q -c "CREATE EXTENSION artrie" || { cat "$BENCH_ERR"; exit 1; }
}

# bench_ab_load DATASET...: tables ds_DATASET (id, k COLLATE "C") as
# bench/run.sh's full mode loads them: words (american + british insane
# word lists, deduplicated), bulgarian, paths (find /usr, at most
# 1,000,000 lines), synth ($ROWS_SYNTH generated keys).
bench_ab_load() {
	local ds d=$ARTRIE_TMP/data-files
	say "loading $*"
	mkdir -p "$d"
	for ds in "$@"; do
		q -c "CREATE TABLE ds_$ds (id int GENERATED ALWAYS AS IDENTITY, k text COLLATE \"C\")" ||
			{ cat "$BENCH_ERR"; exit 1; }
		if [ "$ds" = synth ]; then
			q -c "INSERT INTO ds_synth (k) SELECT 'user/' || ((g::bigint * 48271) % ($ROWS_SYNTH / 20 + 7)) || '/item/' || g FROM generate_series(1, $ROWS_SYNTH) g" ||
				{ cat "$BENCH_ERR"; exit 1; }
		else
			case $ds in
			words) cat /usr/share/dict/american-english-insane /usr/share/dict/british-english-insane |
				bench_copy_escape | LC_ALL=C sort -u ;;
			bulgarian) bench_copy_escape </usr/share/dict/bulgarian ;;
			paths) find /usr -xdev 2>/dev/null | head -1000000 | bench_copy_escape ;;
			*) echo "unknown dataset $ds" >&2; exit 2 ;;
			esac >"$d/$ds.txt"
			chmod a+r "$d/$ds.txt"
			q -c "COPY ds_$ds (k) FROM '$d/$ds.txt'" || { cat "$BENCH_ERR"; exit 1; }
		fi
		q -c "VACUUM ANALYZE ds_$ds" || { cat "$BENCH_ERR"; exit 1; }
		say "$ds: $(q -c "SELECT count(*) FROM ds_$ds") rows"
	done
}

# Text lines made fit for COPY's text format (valid UTF-8, escapes).
bench_copy_escape() { iconv -f UTF-8 -t UTF-8 -c | sed 's/\\/\\\\/g; s/\t/\\t/g; s/\r/\\r/g'; }

# bench_ab_switch VERSION BACKEND: restart the server with VERSION's
# binaries and that artrie.io_backend.
bench_ab_switch() {
	printf 'artrie.io_backend = %s\n' "$2" | as_pg tee "$PGDATA/bench_profile.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 300 stop >/dev/null
	local b="BIN_$1"
	PG_BIN=${!b}
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 300 start >/dev/null ||
		{ tail -20 "$ARTRIE_TMP/server.log"; exit 1; }
}

# The scratch directory of a benchmark that may keep its cluster between
# runs: the directory given (created if need be), else a fresh one; sets
# PGDATA, PGHOST and BENCH_ERR under it.
bench_scratch() {
	if [ -n "${1:-}" ]; then
		ARTRIE_TMP=$1
		mkdir -p "$ARTRIE_TMP"
		chmod 755 "$ARTRIE_TMP"
	else
		artrie_make_tmp
	fi
	export PGDATA=$ARTRIE_TMP/data PGHOST=$ARTRIE_TMP/sock
	BENCH_ERR=$ARTRIE_TMP/psql.err
	: >"$BENCH_ERR"
	[ "$(id -u)" = 0 ] && chown postgres: "$BENCH_ERR"
}

# For A/B runs of two versions of artrie in one cluster: bench_build_version
# NAME [REF] keeps an artrie.so as $ARTRIE_TMP/artrie-NAME.so, the one
# bench_build_install built from the working tree (no REF), or one built
# from revision REF of this repository; bench_use_version NAME installs it
# into the private installation and restarts the server.  Root only (the
# private installation's path).
bench_build_version() {
	local name=$1 ref=${2:-} src=$ARTRIE_TMP/src
	if [ -n "$ref" ]; then
		src=$ARTRIE_TMP/src-$name
		rm -rf "$src"
		mkdir -p "$src"
		git -C "$ARTRIE_SRC" archive "$ref" | tar -C "$src" -xf - || return 1
		chown -R postgres: "$src"
		runuser -u postgres -- make -C "$src" -s PG_CONFIG="$PG_CONFIG" with_llvm=no || return 1
	fi
	install -m 644 "$src/artrie.so" "$ARTRIE_TMP/artrie-$name.so"
}

# bench_builds_cluster BEFORE CONF...: for an A/B run of two builds in one
# cluster (root): a scratch directory, this working tree built as "after"
# and git ref BEFORE as "before" (bench_build_version), a started cluster
# with the postgresql.conf lines CONF, the bench database and artrie.
bench_builds_cluster() {
	local before=$1
	shift
	bench_scratch ""
	bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
	{ bench_build_version after && bench_build_version before "$before"; } >>"$ARTRIE_TMP/build.log" 2>&1 ||
		{ tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
	artrie_start_cluster "$@"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
	q -c "CREATE EXTENSION artrie" || { last_err; exit 1; }
}

# bench_pass_done: wait until the io worker's pass at the last
# checkpoint's redo pointer is done (artrie's slot has reached it).
bench_pass_done() {
	local redo
	redo=$(q -c 'SELECT redo_lsn FROM pg_control_checkpoint()')
	until [ "$(q -c "SELECT coalesce(bool_and(restart_lsn >= '$redo'::pg_lsn), true) FROM pg_replication_slots WHERE slot_name = 'artrie'")" = t ]; do
		sleep 0.01
	done
}

# Before the restart, two checkpoints and the io worker's passes at them:
# the WAL that artrie replays at the start (from its last pass on) then
# holds no image record, whose format the other version may not read.
bench_use_version() {
	local i
	for i in 1 2; do
		q -c 'CHECKPOINT' >/dev/null && bench_pass_done
	done
	install -m 755 "$ARTRIE_TMP/artrie-$1.so" "$ARTRIE_TMP/inst$($PG_CONFIG --pkglibdir)/artrie.so"
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -m fast -w -t 120 restart >/dev/null ||
		{ tail -20 "$ARTRIE_TMP/server.log"; exit 1; }
}

# For the write benchmarks' ARTRIE_BASE: with a revision, build it and this
# tree (bench_build_version base / head) and set VERSIONS to "base head";
# without one, VERSIONS is "head" alone.
bench_versions() {
	VERSIONS="head"
	[ -n "${1:-}" ] || return 0
	{ bench_build_version head && bench_build_version base "$1"; } >>"$ARTRIE_TMP/build.log" 2>&1 ||
		{ tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
	VERSIONS="base head"
	say "base = $(git -C "$ARTRIE_SRC" rev-parse --short "$1") ($1), head = $(git -C "$ARTRIE_SRC" rev-parse --short HEAD)"
}

# VERSIONS in the order of repetition REP: which goes first alternates.
bench_version_order() {
	if [ $(($1 % 2)) = 1 ]; then
		echo "$VERSIONS"
	else
		echo "$VERSIONS" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'
	fi
}

# For the write benchmarks (insert_tps.sh, bulk_writers.sh): a scratch
# directory, a private build, and a started cluster with their settings
# (no checkpoint or autovacuum during a run, 512 MB pools) plus the extra
# postgresql.conf lines given, and the benchmark database.
bench_write_cluster() {
	artrie_make_tmp
	bench_build_install >"$ARTRIE_TMP/build.log" 2>&1 || { tail -20 "$ARTRIE_TMP/build.log"; exit 1; }
	BENCH_ERR=$ARTRIE_TMP/psql.err
	: >"$BENCH_ERR"
	[ "$(id -u)" = 0 ] && chown postgres: "$BENCH_ERR"
	artrie_start_cluster "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
		"jit = off" "shared_buffers = 512MB" "artrie.buffer_pool_size = 512MB" "$@"
	as_pg "$PG_BIN/psql" -XAtq -d postgres -c "CREATE DATABASE $BENCH_DB" >/dev/null
}

# pair_ratios DATASET KIND_A KIND_B METRIC UNIT: from the runs in
# $ROUND_FILE, KIND_B's row of METRIC in unit "ratio (...)": the median of
# the ratios B / A of the runs taken in pairs, in order, listed in the unit.
pair_ratios() {
	local ratios
	ratios=$(awk -F'\t' -v ds="$1" -v a="$2" -v b="$3" -v m="$4" -v u="$5" '
		$1 == ds && $3 == m && $5 == u { if ($2 == a) va[++na] = $4; else if ($2 == b) vb[++nb] = $4 }
		END { for (i = 1; i <= na && i <= nb; i++) if (va[i] > 0) printf "%s%.3f", (i > 1 ? " " : ""), vb[i] / va[i] }' "$ROUND_FILE")
	[ -n "$ratios" ] || return 0
	emit "$1" "$3" "$4" "$(echo "$ratios" | tr ' ' '\n' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')" \
		"ratio (median of the pairs: $ratios)"
}

# build_once KIND NAME TABLE: one CREATE INDEX of KIND named NAME on
# TABLE, with its commit, in a session of its own after a sync; prints
# "CLOCK NET", its milliseconds by the clock inside the backend and less
# the backend's waits for a CPU meanwhile.
build_once() {
	local mark="SELECT extract(epoch FROM clock_timestamp()) * 1000, bench_run_delay() / 1e6" out
	sync
	out=$(q -c "$mark" -c "$(index_ddl "$1" "$2" "$3")" -c "$mark") || return 1
	awk 'NR == 1 { t = $1; w = $2 } END { printf "%.3f %.3f\n", $1 - t, $1 - t - ($2 - w) }' <<<"$out"
}

# build_pairs DATASET KIND_A KIND_B NAME_A NAME_B: the build rows of two
#   index kinds side by side: KIND_A's index NAME_A on ds_DATASET and
#   KIND_B's NAME_B on twin_DATASET (the same rows in the same order), in
#   pairs (B first in every other pair), each build in a new backend, as
#   a CREATE INDEX in a session of its own pays (build_once); both
#   dropped between pairs.  At least BUILD_PAIRS pairs, more until the
#   builds took BUILD_MIN_MS, none begun after BUILD_MAX_MS.  Each kind's
#   build row (ms) is the median of its builds less the backend's waits
#   for a CPU, build_clock the median by the clock alone, with note rows
#   listing them; KIND_B's ratio rows are the medians of the pairs'
#   ratios.  The last pair's indexes stay built.  On an error records the
#   skip, drops both and returns 1.
#   Both tables are read into shared buffers first (BUILD_WARM=0 leaves
#   that out): the rounds before have read ds_DATASET, while
#   twin_DATASET was just made, and the first build on it read every heap
#   page into shared buffers never used before (7,500 more page faults and
#   180 ms more CPU for bulgarian), which only artrie's first build paid.
build_pairs() {
	local ds=$1 a=$2 b=$3 na=$4 nb=$5 p=0 total=0 kind out
	emit "$ds" "$a" load_1min "$(cut -d' ' -f1 /proc/loadavg)" load
	[ "${BUILD_WARM:-1}" = 1 ] &&
		q -c "SELECT count(*) FROM ds_$ds" -c "SELECT count(*) FROM twin_$ds" >/dev/null
	ROUND_FILE=$ARTRIE_TMP/builds.tsv
	: >"$ROUND_FILE"
	while :; do
		p=$((p + 1))
		for kind in $([ $((p % 2)) = 1 ] && echo "$a $b" || echo "$b $a"); do
			if [ "$kind" = "$a" ]; then
				out=$(build_once "$a" "$na" "ds_$ds")
			else
				out=$(build_once "$b" "$nb" "twin_$ds")
			fi || {
				skip "$ds" "$kind" build "$(last_err)"
				server_ensure
				q -c "DROP INDEX IF EXISTS $na" -c "DROP INDEX IF EXISTS $nb" || true
				rounds_collapse "builds side by side"
				return 1
			}
			emit "$ds" "$kind" build "${out#* }" ms
			emit "$ds" "$kind" build_clock "${out% *}" ms
			total=$(awk -v a="$total" -v b="${out% *}" 'BEGIN { print a + b }')
		done
		awk -v t="$total" -v p="$p" -v n="$BUILD_PAIRS" -v lo="$BUILD_MIN_MS" -v hi="$BUILD_MAX_MS" \
			'BEGIN { exit !((p >= n && t >= lo) || t >= hi) }' && break
		q -c "DROP INDEX $na" -c "DROP INDEX $nb" || { skip "$ds" "$b" drop "$(last_err)"; server_ensure; }
	done
	pair_ratios "$ds" "$a" "$b" build ms
	pair_ratios "$ds" "$a" "$b" build_clock ms
	rounds_collapse "builds side by side, each in a session of its own"
}

# bench_recovery_cluster: a throwaway cluster for the crash recovery
# benchmarks (recovery.sh, recovery_ab.sh) on which neither PostgreSQL nor
# artrie checkpoints meanwhile (a pool large enough never to be half
# dirty), with artrie and an empty table j whose column k has the artrie
# index j_k.
bench_recovery_cluster() {
	artrie_start_cluster "artrie.checkpoint_timeout = 86400" \
		"artrie.checkpoint_dirty_percent = 100" \
		"artrie.buffer_pool_size = '4GB'" "checkpoint_timeout = '1h'" \
		"max_wal_size = '20GB'"
	as_pg "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres -c "CREATE EXTENSION artrie;
		CREATE TABLE j (k text);
		CREATE INDEX j_k ON j USING artrie (k);" >/dev/null
}

# bench_crash: SIGKILL the cluster's postmaster and all its children, and
# wait until they are gone.
bench_crash() {
	local pm kids k
	pm=$(head -1 "$PGDATA/postmaster.pid")
	kids=$(pgrep -P "$pm" || true)
	# shellcheck disable=SC2086
	kill -9 "$pm" $kids
	while kill -0 "$pm" 2>/dev/null; do sleep 0.1; done
	for k in $kids; do while kill -0 "$k" 2>/dev/null; do sleep 0.1; done; done
}
