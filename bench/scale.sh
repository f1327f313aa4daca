#!/usr/bin/env bash
# How artrie's costs grow with the index against btree's: synth keys and
# paths at growing sizes with a 256 MB pool, so that the larger indexes
# are many times the pool.
#
#   bash bench/run.sh scale      (as root on Debian 12; runs this file)
#
# Builds a private install (like bench/run.sh) and starts a throwaway
# cluster with shared_buffers and artrie.buffer_pool_size at 256 MB.  For
# each dataset of ARTRIE_SCALE_DATASETS (default "synth paths") and each
# of its sizes the table holds:
#   synth  keys 'user/<hash(n)>/item/<n>' (as bench/run.sh's synth), at
#          each size of ARTRIE_SCALE_SIZES (default "1000000 10000000
#          50000000")
#   paths  the paths of `find /usr -xdev`, repeated under distinct
#          prefixes ('/r<copy>/usr/...', copy 0, 1, 2, ...) up to the
#          size, at each size of ARTRIE_SCALE_PATHS_SIZES (default
#          "1000000 10000000 disk"); "disk" is the largest size whose
#          table, one index and a sort's spill (3x the table's bytes per
#          row at the size before) plus max_wal_size fit in 90% of the
#          free disk, in whole millions, at most ARTRIE_SCALE_PATHS_CAP
#          (default 50000000: past that the run's time bounds it, not the
#          disk; the report says what the disk allowed)
# and btree (COLLATE "C") and artrie are each, alone on the table:
#   build          CREATE INDEX, ms
#   size_per_key   the index's bytes (artrie: artrie_stats' bytes_on_disk)
#                  over the rows
#   lookup         exact lookups of ARTRIE_SCALE_PROBES (10000) keys in a
#                  hash order, us per probe (median of 3 after a warm-up)
#   prefix_scan    count(id) of the rows under 20 prefixes, us per row
#                  (median of 3 passes): synth 'user/<3 digits>' (about
#                  1,300 rows each at 1M keys, 13,000 at 10M, 72,000 at
#                  50M), paths '/r<copy>/usr/include/' for 20 copies
#                  spread over the table (one copy's /usr/include each,
#                  the same rows at every size; fewer prefixes when there
#                  are fewer copies)
#   insert_tps_c1  single-row INSERT commits, one client, ARTRIE_SCALE_DUR
#                  (10) seconds of pgbench
#   lookup_cold    after a restart and the OS cache dropped (root), the
#                  first 2000 probes once, us per probe
#   *_misses       page requests that missed the index's cache (artrie's
#                  pool, btree's shared buffers) in lookup (per probe, the
#                  warm-up pass included), prefix_scan (per 1000 rows) and
#                  lookup_cold (per probe); cold_disk_kb the kB read from
#                  the device per cold probe (machine-wide), cold_index_kb
#                  the kB of the index's own files that the cold probes
#                  brought into the kernel's cache, per probe (fincore)
#   page_height    pages from the root to the deepest entry
# ARTRIE_SCALE_KINDS (default "btree-C artrie-io_uring") names the indexes
# measured; artrie-mmap measures artrie under the mmap backend (the server
# restarted with artrie.io_backend set for each artrie kind).
# Output: bench/results/<date>-scale.tsv and .md (values and artrie/btree
# ratios per dataset and size) and docs/bench-scale.png (the ratios
# against the size, one panel per dataset, gnuplot); ARTRIE_BENCH_OUT=<dir>
# writes them under <dir> instead.
set -u

DATASETS=${ARTRIE_SCALE_DATASETS:-synth paths}
SIZES=${ARTRIE_SCALE_SIZES:-1000000 10000000 50000000}
PATHS_SIZES=${ARTRIE_SCALE_PATHS_SIZES:-1000000 10000000 disk}
PATHS_CAP=${ARTRIE_SCALE_PATHS_CAP:-50000000}
NPROBE=${ARTRIE_SCALE_PROBES:-10000}
DUR=${ARTRIE_SCALE_DUR:-10}
NCOLD=2000
KINDS=${ARTRIE_SCALE_KINDS:-btree-C artrie-io_uring}

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/lib-bench.sh"

BENCH_OUT_DIR=${ARTRIE_BENCH_OUT:-$ARTRIE_SRC}
RUN=$(date -u +%Y%m%d-%H%M)-scale
mkdir -p "$BENCH_OUT_DIR/bench/results" "$BENCH_OUT_DIR/docs"
TSV=$BENCH_OUT_DIR/bench/results/$RUN.tsv
MD=$BENCH_OUT_DIR/bench/results/$RUN.md
HAVE_STATS=1
START_NS=$(now_ns)
LOAD_START=$(uptime)

bench_write_cluster "shared_buffers = 256MB" "artrie.buffer_pool_size = 256MB" \
	"max_parallel_maintenance_workers = 0" "maintenance_work_mem = 1GB"
q -c 'CREATE EXTENSION artrie; CREATE EXTENSION pageinspect' || { cat "$BENCH_ERR"; exit 1; }
bench_sql_helpers || { cat "$BENCH_ERR"; exit 1; }
{
	echo "# artrie scale run $RUN: bash bench/run.sh scale"
	echo "# artrie: commit $(git -C "$ARTRIE_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "# load at start (uptime):$LOAD_START"
	echo "# datasets: $DATASETS; synth sizes: $SIZES; paths sizes: $PATHS_SIZES (cap $PATHS_CAP); probes=$NPROBE, cold probes=$NCOLD, pgbench -T $DUR; indexes: $KINDS"
	echo "# machine: nproc=$(nproc), memory=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), shared with other jobs: compare ratios within one size"
	echo "# settings: $(q -c "SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers', 'artrie.buffer_pool_size', 'artrie.io_backend', 'maintenance_work_mem')")"
	echo "dataset	index	metric	value	unit"
} >"$TSV"
printf '\\set r random(1, 1000000000)\nINSERT INTO sc (k) VALUES (%s);\n' "'ins/' || :client_id || '/' || :r" >"$ARTRIE_TMP/insert.sql"
chmod a+r "$ARTRIE_TMP/insert.sql"
export PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off"

# index_reads NAME KIND: the index's page requests so far, "misses hits":
# artrie's buffer pool (artrie_pool_stats(), cluster-wide, and this index is
# the only artrie index), btree's shared buffers (pg_statio_user_indexes,
# which the measuring sessions flush as they exit: hence the pause).
index_reads() {
	sleep 1
	if [ "${2%%-*}" = artrie ]; then
		q -c "SELECT misses, hits FROM artrie_pool_stats()"
	else
		q -c "SELECT idx_blks_read, idx_blks_hit FROM pg_statio_user_indexes WHERE indexrelname = '$1'"
	fi
}

# emit_misses DATASET KIND METRIC BEFORE AFTER PER UNIT: the misses between
# two index_reads per PER (probes or rows) as UNIT.
emit_misses() {
	local b=${4%%$'\t'*} a=${5%%$'\t'*}
	case "$b$a" in
	*[!0-9]* | '') skip "$1" "$2" "$3" "no counters" ;;
	*) emit "$1" "$2" "$3" "$(awk -v b="$b" -v a="$a" -v n="$6" 'BEGIN { printf "%.4f", (n > 0 ? (a - b) / n : 0) }')" "$7" ;;
	esac
}

# Sectors read from the device under the data directory so far (the whole
# machine's reads of it, other jobs' included).
disk_sectors_read() {
	local dev
	dev=$(lsblk -no PKNAME "$(df --output=source "$PGDATA" | tail -1)" 2>/dev/null | head -1)
	[ -n "$dev" ] || dev=$(basename "$(df --output=source "$PGDATA" | tail -1)")
	awk -v d="$dev" '$3 == d { print $6 }' /proc/diskstats
}

# index_files NAME KIND: the index's files (btree: its segments).
index_files() {
	local p
	if [ "${2%%-*}" = artrie ]; then
		p=$(q -c "SELECT file FROM artrie_indexes WHERE index = '$1'::regclass") && echo "$PGDATA/$p"
	else
		p=$(q -c "SELECT pg_relation_filepath('$1')") && ls "$PGDATA/$p" "$PGDATA/$p".[0-9]* 2>/dev/null
	fi
}

# cached_kb FILE...: kB of the files in the kernel's cache.
cached_kb() {
	fincore --bytes --noheadings --output RES "$@" 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s / 1024 }'
}

# measure_kind DATASET KIND ROWS: one index alone on table sc.
measure_kind() {
	local ds=$1 kind=$2 rows=$3 name t0 bytes out r0 r1 s0 files c0
	name=sc_$(printf '%s' "$kind" | tr 'A-Z-' 'a-z_')
	say "$ds: $kind"
	# Every index starts from a restarted server with the table on disk
	# (the shutdown checkpoint and sync write back what the load or the
	# index before left dirty), so that none inherits another's writes.
	if [ "${kind%%-*}" = artrie ]; then
		q -c "ALTER SYSTEM SET artrie.io_backend = '${kind#artrie-}'" || { skip "$ds" "$kind" all "$(last_err)"; return 0; }
	fi
	server_restart
	sync
	t0=$(now_ns)
	q -c "$(index_ddl "$kind" "$name" sc)" || { skip "$ds" "$kind" build "$(last_err)"; server_ensure; return 0; }
	emit "$ds" "$kind" build "$(ms_since "$t0")" ms
	q -c "CHECKPOINT" >/dev/null
	if bytes=$(index_bytes "$name" "$kind"); then
		emit "$ds" "$kind" size "$(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1048576 }')" MiB
		emit "$ds" "$kind" size_per_key "$(awk -v b="$bytes" -v r="$rows" 'BEGIN { printf "%.2f", b / r }')" B/key
	fi
	r0=$(index_reads "$name" "$kind")
	time_sql "$ds" "$kind" lookup us/probe "$NPROBE" 3 \
		"SELECT sum((SELECT count(t.id) FROM sc t WHERE t.k = p.k)) FROM sc_probe p"
	r1=$(index_reads "$name" "$kind")
	emit_misses "$ds" "$kind" lookup_misses "$r0" "$r1" $((4 * NPROBE)) misses/probe
	emit "$ds" "$kind" prefix_scan "$(q -c "SELECT bench_plan(format('SELECT count(id) FROM sc WHERE k LIKE %L', (SELECT p FROM sc_pref LIMIT 1)))")" plan
	if warm_then_time "$ds" "$kind" prefix_scan \
		"SELECT bench_multi('SELECT count(id) FROM sc WHERE k LIKE %L', ARRAY(SELECT p FROM sc_pref))" \
		"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), max(result) FROM (SELECT (bench_multi('SELECT count(id) FROM sc WHERE k LIKE %L', ARRAY(SELECT p FROM sc_pref))).* FROM generate_series(1, 3)) s"; then
		emit "$ds" "$kind" prefix_scan "$(awk -v m="${SQL_OUT%%$'\t'*}" -v r="${SQL_OUT#*$'\t'}" -v n="$(q -c 'SELECT count(*) FROM sc_pref')" 'BEGIN { printf "%.4f", (r > 0 ? m * n * 1000 / r : 0) }')" us/row
		emit "$ds" "$kind" prefix_scan "${SQL_OUT#*$'\t'}" check
		r0=$r1
		r1=$(index_reads "$name" "$kind")
		emit_misses "$ds" "$kind" prefix_misses "$r0" "$r1" "$(awk -v r="${SQL_OUT#*$'\t'}" 'BEGIN { print 4 * r / 1000 }')" misses/1000rows
	fi
	run_pgbench "$ds" "$kind" insert_tps_c1 1 "$DUR" -f "$ARTRIE_TMP/insert.sql"
	server_restart
	sync
	if [ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
		emit "$ds" "$kind" lookup_cold "OS cache dropped" note
	else
		emit "$ds" "$kind" lookup_cold "skipped: OS cache drop (not root or not allowed)" note
	fi
	r0=$(index_reads "$name" "$kind")
	files=$(index_files "$name" "$kind")
	c0=$(cached_kb $files)
	s0=$(disk_sectors_read)
	if out=$(q -c "SELECT ms FROM bench_time('SELECT sum((SELECT count(t.id) FROM sc t WHERE t.k = p.k)) FROM sc_probe p WHERE pid <= $NCOLD', 1)"); then
		emit "$ds" "$kind" lookup_cold "$(awk -v m="$out" -v n="$NCOLD" 'BEGIN { printf "%.3f", m * 1000 / n }')" us/probe
		emit_misses "$ds" "$kind" cold_disk_kb "$s0" "$(disk_sectors_read)" $((2 * NCOLD)) "kB read/probe (the device's, machine-wide)"
		[ -n "$files" ] && emit_misses "$ds" "$kind" cold_index_kb "$c0" "$(cached_kb $files)" "$NCOLD" "kB of the index cached/probe"
		emit_misses "$ds" "$kind" cold_misses "$r0" "$(index_reads "$name" "$kind")" "$NCOLD" misses/probe
	else
		skip "$ds" "$kind" lookup_cold "$(last_err)"
		server_ensure
	fi
	# Pages from the root to the deepest entry: btree's levels (pageinspect),
	# the longest path of artrie's key trie in pages (a walk).
	if [ "${kind%%-*}" = artrie ]; then
		out=$(q -c "SELECT artrie_stats('$name'::regclass, true)->'key_trie'->>'page_height'")
	else
		out=$(q -c "SELECT level + 1 FROM bt_metap('$name')")
	fi && emit "$ds" "$kind" page_height "$out" pages || skip "$ds" "$kind" page_height "$(last_err)"
	q -c "DROP INDEX $name" || { skip "$ds" "$kind" drop "$(last_err)"; server_ensure; }
}

# load_synth N: table sc with N synth keys, its 20 prefixes.
load_synth() {
	q <<SQL
CREATE TABLE sc (id bigint GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
INSERT INTO sc (k) SELECT 'user/' || ((g::bigint * 48271) % ($1 / 20 + 7)) || '/item/' || g
	FROM generate_series(1, $1) g;
CREATE TABLE sc_pref AS SELECT 'user/' || (100 + 37 * i) || '%' AS p FROM generate_series(0, 19) i;
SQL
}

# load_paths N: table sc with the first N rows of /usr's paths repeated
# under '/r0', '/r1', ... (table scale_usr, loaded once), and prefixes
# '/r<copy>/usr/include/' of up to 20 whole copies spread over the table.
load_paths() {
	q <<SQL
CREATE TABLE sc (id bigint GENERATED ALWAYS AS IDENTITY, k text COLLATE "C");
DO \$\$
DECLARE
	u bigint := (SELECT count(*) FROM scale_usr);
	todo bigint := $1;
	c int := 0;
BEGIN
	WHILE todo > 0 LOOP
		INSERT INTO sc (k) SELECT '/r' || c || p FROM scale_usr WHERE ord <= todo;
		todo := todo - least(u, todo);
		c := c + 1;
	END LOOP;
END
\$\$;
CREATE TABLE sc_pref AS
	SELECT DISTINCT '/r' || (i * greatest($1 / (SELECT count(*) FROM scale_usr), 1) / 20) || '/usr/include/%' AS p
	FROM generate_series(0, 19) i;
SQL
}

# paths_disk_rows: the "disk" size of paths, from the table's bytes per
# row at the size loaded last (the table sc): "rows cap" where rows is the
# largest number of rows, in whole millions, whose table, one index and a
# sort's spill (3x the table) plus max_wal_size fit in 90% of the free
# disk (the table sc's space counted as free), and cap the size used.
paths_disk_rows() {
	local free tab per wal
	free=$(df --output=avail -B1 "$PGDATA" | tail -1)
	tab=$(q -c "SELECT pg_relation_size('sc')") || return 1
	per=$(q -c "SELECT pg_relation_size('sc') / greatest(count(*), 1) FROM sc") || return 1
	wal=$(q -c "SELECT pg_size_bytes(current_setting('max_wal_size'))") || return 1
	awk -v f="$free" -v t="$tab" -v p="$per" -v w="$wal" -v cap="$PATHS_CAP" 'BEGIN {
		n = int(((f + t) * 0.9 - w) / (3 * p) / 1000000) * 1000000;
		if (n < 1000000) n = 1000000;
		printf "%d %d\n", n, (n > cap ? cap : n) }'
}

# The paths of /usr, once: the base of every paths size.
if [[ " $DATASETS " == *" paths "* ]]; then
	find /usr -xdev 2>/dev/null | bench_copy_escape >"$ARTRIE_TMP/usr-paths.txt"
	chmod a+r "$ARTRIE_TMP/usr-paths.txt"
	q -c "CREATE TABLE scale_usr (ord bigint GENERATED ALWAYS AS IDENTITY, p text COLLATE \"C\");
		COPY scale_usr (p) FROM '$ARTRIE_TMP/usr-paths.txt'" || { cat "$BENCH_ERR"; exit 1; }
	echo "# paths: $(q -c 'SELECT count(*) FROM scale_usr') paths of find /usr -xdev, repeated under '/r<copy>'" >>"$TSV"
fi

step=0
for set in $DATASETS; do
	case $set in
	synth) sizes=$SIZES ;;
	paths) sizes=$PATHS_SIZES ;;
	*) echo "unknown dataset $set" >&2; exit 2 ;;
	esac
	for n in $sizes; do
		if [ "$n" = disk ]; then
			n=$(paths_disk_rows) || { cat "$BENCH_ERR"; exit 1; }
			echo "# paths' disk size: ${n% *} rows fit ($(df -h --output=avail "$PGDATA" | tail -1 | tr -d ' ') free before it); ${n#* } used (cap $PATHS_CAP)" >>"$TSV"
			n=${n#* }
		fi
		ds=$set-$n
		say "$ds: loading"
		t0=$(now_ns)
		q -c "DROP TABLE IF EXISTS sc, sc_probe, sc_pref" || { cat "$BENCH_ERR"; exit 1; }
		"load_$set" "$n" || { cat "$BENCH_ERR"; exit 1; }
		q <<SQL || { cat "$BENCH_ERR"; exit 1; }
VACUUM ANALYZE sc;
CREATE TABLE sc_probe AS
	SELECT row_number() OVER (ORDER BY md5(k))::int AS pid, k COLLATE "C" AS k
	FROM sc WHERE id % greatest($n / $NPROBE, 1) = 0 LIMIT $NPROBE;
VACUUM ANALYZE sc_probe, sc_pref;
SQL
		emit "$ds" - rows "$n" rows
		echo "# load before $ds's indexes (uptime):$(uptime)" >>"$TSV"
		emit "$ds" - load "$(ms_since "$t0")" ms
		# The kinds in turn, the order reversed at every other size.
		kinds=$KINDS
		[ $((step % 2)) = 1 ] && kinds=$(printf '%s\n' $KINDS | tac | xargs)
		step=$((step + 1))
		for kind in $kinds; do
			measure_kind "$ds" "$kind" "$n"
		done
	done
done
emit - - elapsed "$(awk -v m="$(ms_since "$START_NS")" 'BEGIN { printf "%.0f", m / 1000 }')" s
echo "# load at end (uptime):$(uptime)" >>"$TSV"

# The report: values and ratios per dataset and size, and the plot of the
# ratios (one panel per dataset).
say "report"
perl - "$TSV" "$MD" "$BENCH_OUT_DIR/docs" "$RUN" <<'PERL'
use strict;
use warnings;
my ($tsv, $md, $docs, $run) = @ARGV;
my (%val, %unit, @sets, %sizes, %seen, @head);
open my $in, '<', $tsv or die "$tsv: $!";
while (<$in>) {
	chomp;
	if (/^# (.*)/) { push @head, $1; next; }
	my ($ds, $ix, $m, $v, $u) = split /\t/;
	next unless defined $u && $ds =~ /^(\w+)-(\d+)$/;
	my ($set, $n) = ($1, $2);
	next if $u eq 'check' || $u eq 'note' || $v !~ /^-?[0-9.]+$/;
	push @sets, $set unless $seen{$set}++;
	push @{ $sizes{$set} }, $n unless $seen{"$set-$n"}++;
	$val{$set}{$n}{$ix}{$m} = $v;
	$unit{$m} = $u;
}
close $in;
my @metrics = qw(build size_per_key lookup prefix_scan insert_tps_c1 lookup_cold);
# Page requests that missed the index's cache (artrie's pool, btree's
# shared buffers): in the table, not in the plot.
my @extra = qw(lookup_misses prefix_misses cold_misses cold_disk_kb cold_index_kb page_height);
open my $o, '>', $md or die "$md: $!";
print $o "# artrie scale run $run\n\n";
print $o "$_  \n" for @head;
# The artrie kinds measured (artrie-io_uring first: the plot's).
my %ak;
for my $set (@sets) {
	for my $n (@{ $sizes{$set} }) { $ak{$_} = 1 for grep { /^artrie-/ } keys %{ $val{$set}{$n} }; }
}
my @ak = sort { ($b eq 'artrie-io_uring') <=> ($a eq 'artrie-io_uring') || $a cmp $b } keys %ak;
# One row: btree's value, then each artrie kind's value and ratio.
sub row {
	my ($set, $n, $m) = @_;
	my $b = $val{$set}{$n}{'btree-C'}{$m};
	my @c;
	for my $k (@ak) {
		my $a = $val{$set}{$n}{$k}{$m};
		push @c, $a // '', (defined $a && defined $b && $b > 0) ? sprintf('%.2fx', $a / $b) : '';
	}
	return sprintf "| %d | %s | %s | %s | %s |\n", $n, $m, $unit{$m} // '', $b // '', join(' | ', @c);
}
for my $set (@sets) {
	print $o "\n## $set\n\nartrie against btree (COLLATE \"C\") at each size: btree's value, artrie's, and artrie / btree ",
		"(insert_tps_c1 is higher-better, the rest lower-better).\n\n";
	print $o "| keys | metric | unit | btree | " . join(' | ', map { "$_ | $_/btree" } @ak) . " |\n|---:|---|---|---:|"
		. join('', map { "---:|---:|" } @ak) . "\n";
	open my $dat, '>', "$docs/bench-scale-$set.dat" or die;
	print $dat "keys " . join(' ', @metrics) . "\n";
	for my $n (@{ $sizes{$set} }) {
		my @r;
		for my $m (@metrics) {
			print $o row($set, $n, $m);
			my ($b, $a) = ($val{$set}{$n}{'btree-C'}{$m}, @ak ? $val{$set}{$n}{$ak[0]}{$m} : undef);
			push @r, (defined $a && defined $b && $b > 0) ? sprintf('%.4f', $a / $b) : '?';
		}
		for my $m (@extra) {
			next unless grep { defined $val{$set}{$n}{$_}{$m} } 'btree-C', @ak;
			print $o row($set, $n, $m);
		}
		print $dat "$n @r\n";
	}
	close $dat;
}
close $o;
open my $l, '>', "$docs/bench-scale.sets" or die;
print $l "@sets\n";
close $l;
PERL
SETS=$(cat "$BENCH_OUT_DIR/docs/bench-scale.sets")
if command -v gnuplot >/dev/null && [ -n "$SETS" ]; then
	{
		echo "set terminal pngcairo size $((600 * $(echo $SETS | wc -w) + 300)),540 noenhanced"
		echo "set output '$BENCH_OUT_DIR/docs/bench-scale.png'"
		echo "set multiplot layout 1,$(echo $SETS | wc -w) title 'artrie / btree against the number of keys (256 MB pool and shared_buffers; below 1: artrie better, except insert TPS)'"
		echo "set logscale x"
		echo "set xlabel 'keys'"
		echo "set ylabel 'artrie / btree'"
		echo "set key top left"
		echo "set grid"
		echo "set datafile missing '?'"
		for set in $SETS; do
			echo "set title '$set'"
			echo "plot for [i=2:7] '$BENCH_OUT_DIR/docs/bench-scale-$set.dat' using 1:i with linespoints title columnhead(i)"
		done
		echo "unset multiplot"
	} | gnuplot
fi
for set in $SETS; do rm -f "$BENCH_OUT_DIR/docs/bench-scale-$set.dat"; done
rm -f "$BENCH_OUT_DIR/docs/bench-scale.sets"
say "done: $TSV, $MD, $BENCH_OUT_DIR/docs/bench-scale.png"
