#!/bin/bash
# How fast each CPU of this machine runs, sampled again and again: the
# same loop of 300 million additions pinned to each CPU in turn (taskset),
# its time by the clock, one line per sample and CPU.  On a virtual
# machine whose host is shared, a vCPU can run at a fraction of its speed
# for seconds at a time; a benchmark that measures two indexes one after
# the other, seconds apart, then sees that as a difference between them.
#
#   bash bench/cpu_speed.sh [SAMPLES]     (default 12, one a second)
#
# Best run with nothing else on the machine: another busy process on the
# same CPU makes the loop wait for it, which looks the same.
set -euo pipefail

N=${1:-12}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/spin.c" <<'EOF'
#include <stdio.h>
#include <time.h>

int
main(void)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < 300000000UL; i++)
		x += i * 7;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
EOF
cc -std=c99 -O1 -o "$TMP/spin" "$TMP/spin.c"

echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# seconds for the same loop on each CPU (lower is faster)"
for s in $(seq 1 "$N"); do
	line="$(date -u +%H:%M:%S)"
	for c in $(seq 0 $(($(nproc) - 1))); do
		line="$line cpu$c $(taskset -c "$c" "$TMP/spin")"
	done
	echo "$line"
	sleep 1
done
