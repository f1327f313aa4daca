# bench/lib-cpu.sh: the backend CPU time of a query, on the cluster
# bench/scan_profile.sh left in $D (psql $PSQL, port $PORT), for
# bench/scan_cpu.sh and bench/like_filter.sh (sourced; root, perf).

# backend_cpu_ms SETUP QUERY: in one session, SETUP (statements that leave
# a transaction open), QUERY once to warm up, then N times while perf stat
# counts the backend's task-clock, then a rollback; prints the CPU ms per
# query.
backend_cpu_ms() {
	local bg pp
	rm -f "$D/cpu.pid" "$D/cpu.stat"
	cat >"$D/cpu.sql" <<SQL
$1
DO \$\$ BEGIN EXECUTE \$q\$$2\$q\$; END \$\$;
SELECT pg_backend_pid() \g $D/cpu.pid
SELECT pg_sleep(0.3);
DO \$\$ BEGIN FOR i IN 1..$N LOOP EXECUTE \$q\$$2\$q\$; END LOOP; END \$\$;
SELECT pg_sleep(0.3);
ROLLBACK;
SQL
	chmod a+r "$D/cpu.sql"
	runuser -u postgres -- "$PSQL" -XAtq -p "$PORT" -h "$D/sock" -d bench -f "$D/cpu.sql" >/dev/null &
	bg=$!
	for _ in $(seq 100); do [ -s "$D/cpu.pid" ] && break; sleep 0.05; done
	sleep 0.1
	perf stat -x, -e task-clock -p "$(cat "$D/cpu.pid")" -o "$D/cpu.stat" 2>/dev/null &
	pp=$!
	wait "$bg"
	kill -INT "$pp"
	wait "$pp" 2>/dev/null
	awk -F, -v n="$N" '/task-clock/ { printf "%.2f\n", $1 / n }' "$D/cpu.stat"
}
