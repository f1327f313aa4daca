# Off-CPU time by cause, from `perf script --show-switch-events` of a
# recording with -e sched:sched_switch --switch-events -g (bulk_writers.sh
# with ARTRIE_PERF_EVENTS): each time a process in PIDS (comma list) left
# the CPU, its state (R: preempted, runnable; S/D: blocked), the kernel
# function it blocked in (the frame after schedule) and the first
# user-space frame (preemptions as one cause), with the time until it
# ran again.  Prints per cause:
# switches, milliseconds off the CPU, and both per 1000 rows (KROWS
# thousand rows in the window).
#
#   perf script -i perf.data --show-switch-events |
#       awk -v pids=1,2,3 -v krows=400 -f bench/offcpu.awk
BEGIN {
	n = split(pids, a, ",")
	for (i = 1; i <= n; i++)
		want[a[i]] = 1
}
# a sample or switch line: comm pid [cpu] time: ...
/^ *[^ \t].* [0-9]+ +\[[0-9]+\] +[0-9.]+: / {
	ev = 1
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/) { pid = $(i - 1); t = $(i + 1); sub(/:$/, "", t); rest = i + 2; break }
	if (!(pid in want)) { cur = ""; next }
	if ($rest == "PERF_RECORD_SWITCH" && $(rest + 1) == "IN") {
		if (pid in out_t) {
			ms[out_key[pid]] += (t - out_t[pid]) * 1000
			cnt[out_key[pid]]++
			delete out_t[pid]
		}
		cur = ""
		next
	}
	if ($rest == "sched:sched_switch:") {
		st = "?"
		for (i = rest; i <= NF; i++)
			if ($i ~ /^prev_state=/) { st = substr($i, 12) }
		cur = pid; cst = st; kfr = ""; ufr = ""; nk = 0
		out_t[pid] = t
		out_key[pid] = st "  ?  ?"
		next
	}
	cur = ""
	next
}
# a frame of the current switch's stack
cur != "" && /^\t/ {
	sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
	if ($0 ~ /kernel\.kallsyms/) {
		nk++
		if (kfr == "" && sym !~ /^(__schedule|schedule|schedule_timeout|schedule_hrtimeout_range_clock|schedule_hrtimeout_range|io_schedule)$/)
			kfr = sym
	} else if (ufr == "")
		ufr = sym
	if (cst ~ /^R/)
		out_key[cur] = "R  (preempted)  -"
	else
		out_key[cur] = cst "  " (kfr == "" ? "-" : kfr) "  " (ufr == "" ? "-" : ufr)
}
END {
	for (k in cnt) { tm += ms[k]; tc += cnt[k] }
	printf "# %d switches, %.1f ms off the CPU; per 1000 rows: %.2f switches, %.3f ms (%s thousand rows)\n", tc, tm, tc / krows, tm / krows, krows
	printf "# %8s %10s %8s %8s  %s\n", "switches", "ms", "sw/krow", "ms/krow", "state  kernel function  user frame"
	for (k in cnt)
		printf "%10d %10.1f %8.2f %8.3f  %s\n", cnt[k], ms[k], cnt[k] / krows, ms[k] / krows, k | "sort -k2 -n -r"
}
