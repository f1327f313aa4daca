#!/usr/bin/env bash
# Prefix scans of the trie core alone (bench/trie_scan.c: the in-memory
# store, 3-byte prefixes read as an index scan reads them), for two builds
# of the trie (before: a git revision's src/trie, after: this working
# tree's), the two processes' rounds alternating.
#
#   bash bench/trie_scan.sh [ROUNDS [PASSES]]
#
# For each dataset of TSCAN_DATASETS (default "words bulgarian paths
# synth"), both builds load it and bulk-load their trie once, then run
# ROUNDS rounds (default 9) each, the order of the two alternating round by
# round; a round is the best of PASSES passes (default 5) in thread CPU ns
# per row.  Prints each round's pair, the medians, after / before and in
# how many rounds after was lower, and each build's pins per pass.
#
# TSCAN_BEFORE is the before revision (default main).  TSCAN_CALLGRIND=1
# adds, per build and dataset, callgrind with the cache simulated as the
# machine's L1 data cache and L2 (--D1=49152,12,64 --LL=1048576,8,64),
# collecting 3 passes after a first one: instructions, D1 and LL read
# misses per row, in total and for the functions with the most D1 misses.
# TSCAN_CG_OPTS adds valgrind options (e.g. "--branch-sim=yes": conditional
# and indirect branches and their mispredictions, Bc Bcm Bi Bim, then
# printed per row too); TSCAN_CG_SORT orders the functions by another
# event (default D1mr).  TSCAN_OUT keeps the callgrind files (default: a
# temporary directory, removed at exit).
set -u

ROUNDS=${1:-9}
PASSES=${2:-5}
BEFORE=${TSCAN_BEFORE:-main}
DATASETS=${TSCAN_DATASETS:-words bulgarian paths synth}
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d /tmp/trie_scan.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
OUT=${TSCAN_OUT:-$TMP/cg}
mkdir -p "$OUT"

# build NAME SRCDIR: the harness over SRCDIR's trie sources, as make trie-scan builds it.
build() {
	gcc -std=c99 -D_DEFAULT_SOURCE -O2 -g -Wall -Wextra -I"$2/src" -o "$TMP/trie_scan-$1" \
		$(ls "$2"/src/trie/trie*.c) "$SRC/bench/trie_scan.c"
}
mkdir -p "$TMP/before"
git -C "$SRC" archive "$BEFORE" src/trie | tar -x -C "$TMP/before" || exit 1
build before "$TMP/before" || exit 1
build after "$SRC" || exit 1
echo "before = $(git -C "$SRC" rev-parse --short "$BEFORE") ($BEFORE), after = $(git -C "$SRC" rev-parse --short HEAD)$(git -C "$SRC" status --porcelain -- src/trie | head -1 | sed 's/.*/ + uncommitted changes/')"
echo "rounds $ROUNDS, best of $PASSES passes each; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ab DS: the two builds' rounds alternating on DS.
ab() {
	local ds=$1 b r first line nb na lower=0 rb=() ra=()
	for b in before after; do
		mkfifo "$TMP/in-$b" "$TMP/out-$b"
		"$TMP/trie_scan-$b" "$ds" -1 "$PASSES" <"$TMP/in-$b" >"$TMP/out-$b" &
	done
	exec 3>"$TMP/in-before" 4<"$TMP/out-before" 5>"$TMP/in-after" 6<"$TMP/out-after"
	read -r line <&4 && echo "before $line"
	read -r line <&6 && echo "after  $line"
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then first=before; else first=after; fi
		for b in $first $([ $first = before ] && echo after || echo before); do
			if [ "$b" = before ]; then echo go >&3; read -r _ nb <&4; else echo go >&5; read -r _ na <&6; fi
		done
		rb+=("$nb") ra+=("$na")
		awk -v a="$na" -v b="$nb" 'BEGIN { exit !(a < b) }' && lower=$((lower + 1))
	done
	exec 3>&- 4<&- 5>&- 6<&-
	wait
	rm -f "$TMP"/in-* "$TMP"/out-*
	echo "$ds rounds (ns/row before/after):$(for i in "${!rb[@]}"; do printf ' %s/%s' "${rb[$i]}" "${ra[$i]}"; done)"
	mb=$(printf '%s\n' "${rb[@]}" | sort -g | sed -n "$(((ROUNDS + 1) / 2))p")
	ma=$(printf '%s\n' "${ra[@]}" | sort -g | sed -n "$(((ROUNDS + 1) / 2))p")
	awk -v ds="$ds" -v mb="$mb" -v ma="$ma" -v lower=$lower -v n="$ROUNDS" 'BEGIN {
		printf "%s median before %.2f after %.2f ns/row: after/before %.3f, after lower in %d/%d\n", ds, mb, ma, ma / mb, lower, n
	}'
}

# cg BUILD DS: callgrind with the cache simulated, per row.
cg() {
	local f=$OUT/cg-$1-$2 rows
	rows=$(valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=1048576,8,64 ${TSCAN_CG_OPTS:-} \
		--toggle-collect=scan_pass --callgrind-out-file="$f" "$TMP/trie_scan-$1" "$2" 0 3 2>/dev/null |
		sed -n 's/.* \([0-9]*\) rows a pass.*/\1/p')
	callgrind_annotate --sort="${TSCAN_CG_SORT:-D1mr}" "$f" 2>/dev/null >"$f.txt"
	awk -v rows="$((rows * 3))" -v b="$1" -v ds="$2" '
		/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i }
		/^(summary|totals):/ { for (i = 2; i <= NF; i++) tot[ev[i - 1]] = $i }
		END {
			printf "callgrind %-6s %-9s per row: Ir %.1f D1mr %.3f DLmr %.3f (D1mw %.3f)", b, ds,
				tot["Ir"] / rows, tot["D1mr"] / rows, tot["DLmr"] / rows, tot["D1mw"] / rows
			for (i = 1; i in ev; i++)
				if (ev[i] ~ /^B/)
					printf " %s %.3f", ev[i], tot[ev[i]] / rows
			printf "\n"
		}' "$f"
	grep -E '^ *[0-9,]+ .*(trie|cursor|iter|scan_pass|pass)' "$f.txt" | head -8 | sed 's/^/    /'
}

for ds in $DATASETS; do
	ab "$ds"
	if [ "${TSCAN_CALLGRIND:-0}" = 1 ]; then
		cg before "$ds"
		cg after "$ds"
	fi
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
