#!/usr/bin/env bash
# The whole artrie test suite, on a fresh Debian 12 machine or a developer's.
#
#   bash test/run-all.sh
#
# As root it installs the Debian packages it needs; as another user they
# must be there already.  It builds and installs artrie, starts the trie
# core's unit tests (plain and under ASan/UBSan) and the fuzzers (every
# committed input, then a bounded run of each harness) in the background,
# and meanwhile runs on a throwaway cluster (temporary directory, free
# port, run as the postgres OS user) pg_regress over sql/, pgTAP files
# under test/pgtap through pg_prove and isolation specs under test/specs,
# then the TAP tests under test/t, two at a time, each with its own
# servers.  It removes the cluster whatever happens and ends with "N
# passed, N failed"; the exit status is non-zero if anything failed.
#
# Environment: FUZZ_SECONDS (default 20) bounds each harness's fuzz run;
# ARTRIE_TAP_JOBS (default 2) is how many TAP tests run at once;
# ARTRIE_KEEP=1 keeps the scratch directory for inspection; ARTRIE_ONLY, a
# bash regular expression, runs only the tests whose name it matches (say
# 'tap: 05'); ARTRIE_PRIVATE_INSTALL=1 installs into a private copy of
# PostgreSQL even as root, so that two working trees can test at once.
set -u

. "$(dirname "$0")/lib.sh"

tap_max=${ARTRIE_TAP_JOBS:-2}
if ! [[ "$tap_max" =~ ^[1-9][0-9]*$ ]]; then
	echo "ARTRIE_TAP_JOBS must be a positive whole number, not '$tap_max'" >&2
	exit 1
fi

passed=0
failed=0
failures=()

# Record one test's outcome.
record() {
	local name=$1 rc=$2 took=${3:+ ($3 s)}
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf 'ok     %s%s\n' "$name" "$took"
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'FAILED %s%s\n' "$name" "$took"
	fi
}

# The file in the scratch directory that keeps a test's output.
test_log() {
	echo "$ARTRIE_TMP/log/$(echo "$1" | tr -c 'A-Za-z0-9._\n-' '_').log"
}

# Run a command as one test, its output kept in the scratch directory and
# shown only on failure; the line that records it says how long it took.
run_test() {
	local name=$1 log start=$SECONDS
	shift
	[[ -n "${ARTRIE_ONLY:-}" && ! "$name" =~ $ARTRIE_ONLY ]] && return 0
	log=$(test_log "$name")
	"$@" >"$log" 2>&1
	local rc=$?
	[ $rc -ne 0 ] && sed 's/^/    | /' "$log" | tail -n 60
	record "$name" $rc $((SECONDS - start))
}

artrie_install_packages
artrie_make_tmp
mkdir -p "$ARTRIE_TMP/log"
artrie_build_install

# The trie core's unit tests and fuzzers need no server and keep a core
# busy; the server's tests mostly wait on the disk and on each other.  So
# the former run in the background while the latter run, their lines kept
# in a file, and the tally of both is made at the end (unit_tally).  They
# run at a lower priority (nice 10): the server's tests are the longer
# path, and the unit tests fill the time those leave the cores idle.
say "trie core unit tests and fuzzers (no server), in the background"
(
	renice -n 10 -p "$BASHPID" >/dev/null
	passed=0
	failed=0
	failures=()
	run_test "unit: trie core" make -C "$ARTRIE_SRC" -s unittest
	run_test "unit: trie core under ASan+UBSan" make -C "$ARTRIE_SRC" -s unittest-sanitize
	run_test "unit: trie core, two pages locked at most" make -C "$ARTRIE_SRC" -s unittest-shallow
	run_test "unit: fuzz regression inputs" make -C "$ARTRIE_SRC" -s fuzz-regress
	run_test "unit: fuzz run (trie, page, wal: ${FUZZ_SECONDS:-20} s each)" make -C "$ARTRIE_SRC" -s fuzz-run FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
	printf '%s\n' "$passed" "$failed" "${failures[@]}" >"$ARTRIE_TMP/unit.tally"
) >"$ARTRIE_TMP/unit.out" 2>&1 &
unit_pid=$!

# Wait for the background unit tests, show their lines and add their
# outcome to the tally; a job that ended without a tally counts as one
# failure.
unit_tally() {
	local n f
	wait "$unit_pid"
	say "trie core unit tests and fuzzers (no server)"
	cat "$ARTRIE_TMP/unit.out"
	if [ ! -s "$ARTRIE_TMP/unit.tally" ]; then
		record "unit: background run" 1
		return
	fi
	{
		read -r n && passed=$((passed + n))
		read -r n && failed=$((failed + n))
		while read -r f; do failures+=("$f"); done
	} <"$ARTRIE_TMP/unit.tally"
}

# The tests read their inputs from a copy the postgres user owns, and run
# from the scratch directory.
cp -r "$ARTRIE_SRC/sql" "$ARTRIE_SRC/expected" "$ARTRIE_SRC/test" "$ARTRIE_TMP/"
mkdir -p "$ARTRIE_TMP/tap"
artrie_start_cluster
cd "$ARTRIE_TMP" || exit 1

# Record each test a pg_regress-style log names (PostgreSQL 15's "test name
# ... ok" and 16's "ok 1 - name" alike); a run that failed without naming
# a failed test counts as one failure.
record_regress_log() {
	local suite=$1 rc=$2 log=$3 name result bad=0
	while read -r name result; do
		[ "$result" = ok ] || bad=1
		record "$suite: $name" "$([ "$result" = ok ] && echo 0 || echo 1)"
	done < <(sed -nE \
		-e 's/^(test +| +)([A-Za-z0-9_-]+) +\.\.\. +(ok|FAILED|failed).*/\2 \3/p' \
		-e 's/^(ok|not ok) +[0-9]+ +[-+] +([A-Za-z0-9_-]+) .*/\2 \1/p' "$log" |
		sed 's/ not ok$/ FAILED/')
	if [ "$rc" -ne 0 ] && [ $bad -eq 0 ]; then
		tail -n 30 "$log"
		record "$suite: run" 1
	fi
}

# Run a pg_regress-style driver over the named tests, if there are any:
# suite name, driver, input directory, tests.
run_regress_suite() {
	local suite=$1 driver=$2 inputdir=$3 t tests=()
	shift 3
	for t in "$@"; do
		[[ -n "${ARTRIE_ONLY:-}" && ! "$suite: $t" =~ $ARTRIE_ONLY ]] || tests+=("$t")
	done
	[ ${#tests[@]} -gt 0 ] || return 0
	as_pg "$driver" --bindir="$PG_BIN" --inputdir="$inputdir" \
		--outputdir="$ARTRIE_TMP/$suite" --host="$PGHOST" --port="$PGPORT" \
		--dbname="artrie_$suite" "${tests[@]}" >"$ARTRIE_TMP/log/$suite.log" 2>&1
	record_regress_log "$suite" $? "$ARTRIE_TMP/log/$suite.log"
	if [ -f "$ARTRIE_TMP/$suite/regression.diffs" ]; then
		head -n 200 "$ARTRIE_TMP/$suite/regression.diffs"
	fi
}

say "pg_regress"
# shellcheck disable=SC2046
run_regress_suite regress "$PGXS_DIR/src/test/regress/pg_regress" "$ARTRIE_TMP" \
	$(cd "$ARTRIE_SRC/sql" && ls *.sql 2>/dev/null | sed 's/\.sql$//')

say "pgTAP"
as_pg "$PG_BIN/createdb" artrie_tap
for f in "$ARTRIE_TMP"/test/pgtap/*.sql; do
	[ -e "$f" ] || continue
	run_test "pgtap: $(basename "$f")" as_pg pg_prove --host "$PGHOST" --port "$PGPORT" --dbname artrie_tap "$f"
done

say "isolation"
# shellcheck disable=SC2046
run_regress_suite isolation "$PGXS_DIR/src/test/isolation/pg_isolation_regress" "$ARTRIE_TMP/test" \
	$(cd "$ARTRIE_SRC/test/specs" 2>/dev/null && ls *.spec 2>/dev/null | sed 's/\.spec$//')

# test/t/090_full_disk.pl fills a small filesystem, which only root can
# mount: a 256 MB ext4 image on a loop device, unmounted on exit before
# the usual cleanup.  Without it (not root, no loop devices) the test
# skips and says why.
fulldisk_cleanup() {
	local rc=$?
	umount "$ARTRIE_TMP/fulldisk" 2>/dev/null
	(exit $rc)
	artrie_cleanup
}
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$ARTRIE_TMP/fulldisk"
	if truncate -s 256M "$ARTRIE_TMP/fulldisk.img" &&
		mkfs.ext4 -q "$ARTRIE_TMP/fulldisk.img" &&
		mount -o loop "$ARTRIE_TMP/fulldisk.img" "$ARTRIE_TMP/fulldisk" 2>/dev/null; then
		trap fulldisk_cleanup EXIT
		chown postgres: "$ARTRIE_TMP/fulldisk"
		export ARTRIE_FULLDISK_DIR=$ARTRIE_TMP/fulldisk
	else
		say "could not mount a small filesystem: 090_full_disk.pl will skip"
	fi
fi

# TAP tests run ARTRIE_TAP_JOBS at a time (default 2): each starts its own
# servers on ports PostgreSQL's test modules lock, in directories named
# after it, and most of their time is spent waiting on those servers
# (checkpoints, replication, timeouts) rather than on a core.  The tests
# that use the small filesystem run alone.  A test's line is printed when
# it ends, so the lines need not come in the files' order.
declare -A tap_jobs=()
tap_alone='^(090|091)_'

# Start one TAP test in the background; its log, and its exit status and
# seconds in <log>.rc, go to the scratch directory.
tap_start() {
	local f=$1 name log
	name="tap: $(basename "$f")"
	log=$(test_log "$name")
	(
		start=$SECONDS
		as_pg env PATH="$PG_BIN:$PATH" \
			TESTDIR="$ARTRIE_TMP/tap" PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress" \
			PGHOST= PGPORT= PGDATA= \
			prove -I "$PGXS_DIR/src/test/perl" -I "$ARTRIE_TMP/test/t" "$f" >"$log" 2>&1
		echo "$? $((SECONDS - start))" >"$log.rc"
	) &
	tap_jobs[$!]="$name|$log"
}

# Wait for one running TAP test to end and record it (the end of its log
# shown if it failed; no status at all counts as a failure).
tap_reap() {
	local pid name log rc=1 took=
	wait -n -p pid "${!tap_jobs[@]}"
	name=${tap_jobs[$pid]%%|*}
	log=${tap_jobs[$pid]#*|}
	unset "tap_jobs[$pid]"
	[ -s "$log.rc" ] && read -r rc took <"$log.rc"
	[ "$rc" -ne 0 ] && sed 's/^/    | /' "$log" | tail -n 60
	record "$name" "$rc" "$took"
}

say "TAP"
for f in "$ARTRIE_TMP"/test/t/*.pl; do
	[ -e "$f" ] || continue
	[[ -n "${ARTRIE_ONLY:-}" && ! "tap: $(basename "$f")" =~ $ARTRIE_ONLY ]] && continue
	if [[ "$(basename "$f")" =~ $tap_alone ]]; then
		while [ ${#tap_jobs[@]} -gt 0 ]; do tap_reap; done
		tap_start "$f"
		tap_reap
		continue
	fi
	while [ ${#tap_jobs[@]} -ge "$tap_max" ]; do tap_reap; done
	tap_start "$f"
done
while [ ${#tap_jobs[@]} -gt 0 ]; do tap_reap; done

unit_tally

if [ $failed -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
