# A prefix cursor whose walk filled its first batch keeps that page
# pinned, unlocked, between two FETCHes, and goes on there at the next
# fetch only if the page's count of changes is the same (fetch_resume in
# src/trie/trie_cursor.c); else it seeks past the last entry returned.
# Here the kept page changes in every way between the two FETCHes, and
# the rest of the cursor must still be exactly the rows its snapshot
# sees, in order, none twice, none missing, no deleted one.
#
# Each case's keys under a prefix P: n short keys P || 4 digits (one in
# every m live, the others deleted before DECLARE so that VACUUM may
# remove their entries), which lie together in one page, and 200 long
# keys P || '5' || ..., all deleted before DECLARE, in pages of their
# own.  The cursor reads P || '0' (the short keys): its descent ends in
# their page and its first batch is 16 entries (docs/DESIGN.md, "Scans"),
# the first 16 short keys, so FETCHing the live rows among them leaves
# the walk's page kept.  Then, in other sessions:
#  - inserts of keys between the short keys, before and after the
#    cursor's position (the kept page splits);
#  - VACUUM, which removes the deleted entries, most of the kept page's
#    (pages merge, the long keys' pages go and are freed);
#  - inserts of long keys P || '3' || ... (the freed page numbers and
#    frames are used again), and of enough keys of another prefix to
#    cycle the small pool's frames (1 MB: the kept frame would be evicted
#    and reused without its pin);
#  - CHECKPOINT;
# the splits first on odd seeds, after the reuse on even ones.  FETCH ALL
# must return exactly the live short keys past the position.  With the
# check of the page's changes taken out of fetch_resume, it returns
# nothing but the error of a heap fetch at a garbage TID.
# On both I/O backends, with the cursor
#  - on the primary, a plain index scan, and an index-only scan (whose
#    scan hold may make VACUUM wait after its deletions, until the cursor
#    reads on: the rest then runs while it waits);
#  - on a hot standby, the writes on the primary, with
#    hot_standby_feedback and max_standby_streaming_delay = -1: a plain
#    and an index-only scan; replay goes on to VACUUM's records or stops
#    at the first that must wait for the cursor (the index-only scan's
#    hold, after the index's deletions; a heap page either pins), and the
#    cursor then reads on, which lets it go on;
#  - on the standby without hot_standby_feedback and with a delay of 2 s,
#    an index-only scan: canceled by the conflict, or exactly right.
# No server log may say that a pin leaked or a frame was not pinned.
# ARTRIE_126_SEEDS (default 2) runs that many key sets per case.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $ios = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $plain = "$ios SET enable_indexonlyscan = off;";
my $seeds = $ENV{ARTRIE_126_SEEDS} // 2;

# The key set of a seed: n short keys, one live in every m.
sub key_set
{
	my ($seed) = @_;
	return (100 + 7 * ($seed % 5), 2 + $seed % 4);
}

# The transaction that deleted rows last (fill).
my $last_delete;

# Create the rows of prefix p on the primary and delete the doomed ones;
# returns the live short keys, in order.  Two rows a heap page (a
# 3000-byte filler), the live ones first and made all-visible, so that an
# index-only scan of them pins no heap page that VACUUM's replay then
# waits for (a pinned page still makes the standby's replay wait, see
# standby_case).
sub fill
{
	my ($primary, $p, $seed) = @_;
	my ($n, $m) = key_set($seed);
	my $doomed = "right(k, 4)::int % $m <> 0";
	$primary->safe_psql('postgres', qq{
		INSERT INTO h SELECT k, repeat('f', 3000) FROM
			(SELECT '$p' || lpad(g::text, 4, '0') AS k FROM generate_series(0, $n - 1) g) s
			WHERE NOT ($doomed);
		VACUUM h;
		INSERT INTO h SELECT k, repeat('f', 3000) FROM
			(SELECT '$p' || lpad(g::text, 4, '0') AS k FROM generate_series(0, $n - 1) g) s
			WHERE $doomed;
		INSERT INTO h SELECT '${p}5' || lpad(g::text, 3, '0') || repeat('d', 300), repeat('f', 3000)
			FROM generate_series(0, 199) g;
	});
	$last_delete = $primary->safe_psql('postgres', qq{
		BEGIN;
		DELETE FROM h WHERE k ^@ '${p}5' OR (k ^@ '${p}0' AND length(k) = length('$p') + 4
			AND $doomed);
		SELECT pg_current_xact_id();
		COMMIT;
	});
	return map { sprintf('%s%04d', $p, $_) } grep { $_ % $m == 0 } (0 .. $n - 1);
}

# The writes between the two FETCHes that come before VACUUM: keys
# between the short keys (splits of the walk's page).
sub split_writes
{
	my ($primary, $p, $seed) = @_;
	my ($n) = key_set($seed);
	$primary->safe_psql('postgres', qq{
		INSERT INTO h SELECT '$p' || lpad(g::text, 4, '0') || 'x' || repeat('s', 100)
			FROM generate_series(0, $n - 1) g WHERE g % 2 = $seed % 2;
	});
	return;
}

# The writes after VACUUM: long keys where the freed pages were, and keys
# of another prefix through the whole pool.
sub reuse_writes
{
	my ($primary, $p) = @_;
	$primary->safe_psql('postgres', qq{
		INSERT INTO h SELECT '${p}3' || lpad(g::text, 3, '0') || repeat('r', 300)
			FROM generate_series(0, 199) g;
		INSERT INTO h SELECT 'z$p' || lpad(g::text, 4, '0') || repeat('z', 600)
			FROM generate_series(0, 1999) g;
	});
	return;
}

# Open a cursor over prefix p in a new session of node and FETCH the live
# rows of the first batch; returns the session and the rows still to
# come.
sub open_cursor
{
	my ($node, $set, $p, $label, @live) = @_;
	my @first = grep { substr($_, length($p)) < 16 } @live;
	my @rest = @live[ scalar(@first) .. $#live ];
	my $s = bg_session($node);
	my $n = scalar(@first);
	bg_run($s, "$set BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ '${p}0';"
		. " FETCH $n FROM c; SELECT 'first';\n", qr/first\n/);
	is($s->{out}, join('', map { "$_\n" } @first) . "first\n",
		"$label: the first batch's live rows");
	$s->{out} = '';
	return ($s, @rest);
}

# FETCH ALL from the cursor of session s: its rows.
sub fetch_rest
{
	my ($s) = @_;
	$s->{out} = '';
	bg_run($s, "FETCH ALL FROM c; COMMIT; SELECT 'fetched';\n", qr/fetched\n/);
	return $s->{out};
}

# Poll until the process that cond finds waits in artrie (the scan
# hold's wait, wait event Extension) or for a heap page's pin (BufferPin),
# or until ended returns true: 'waiting', 'ended' or 'timeout'.
sub wait_for_hold_wait
{
	my ($node, $cond, $ended) = @_;
	my $start = time();
	while (time() - $start < $PostgreSQL::Test::Utils::timeout_default)
	{
		return 'ended' if $ended->();
		return 'waiting' if $node->safe_psql('postgres',
			"SELECT count(*) > 0 FROM pg_stat_activity WHERE $cond AND wait_event IN ('Extension', 'BufferPin')")
		  eq 't';
		select(undef, undef, undef, 0.1);
	}
	return 'timeout';
}

# The cursor on the primary (kind plain or index-only).
sub primary_case
{
	my ($primary, $p, $seed, $kind) = @_;
	my $label = "primary, $kind, $p";
	my @live = fill($primary, $p, $seed);
	my ($s, @rest) = open_cursor($primary, $kind eq 'plain' ? $plain : $ios, $p, $label, @live);
	split_writes($primary, $p, $seed) if $seed % 2;
	my $v;
	if ($kind eq 'plain')
	{
		vacuum_flushed($primary, 'h');
	}
	else
	{
		$v = bg_session($primary);
		bg_start($v, 'VACUUM h');
		my $how = wait_for_hold_wait($primary, "query LIKE 'VACUUM h%'",
			sub { $v->{h}->pump_nb; $v->{out} =~ /ended/ });
		isnt($how, 'timeout', "$label: VACUUM waits for the cursor or ends ($how)");
	}
	reuse_writes($primary, $p);
	split_writes($primary, $p, $seed) unless $seed % 2;
	$primary->safe_psql('postgres', 'CHECKPOINT');
	is(fetch_rest($s), join('', map { "$_\n" } @rest) . "fetched\n",
		"$label: the rest of the cursor is exactly its snapshot's live rows")
	  or diag("err: $s->{err}");
	bg_end($s);
	if ($v)
	{
		ok(bg_wait_ended($v), "$label: VACUUM ends once the cursor read on");
		is($v->{err}, '', "$label: VACUUM without error");
		bg_end($v);
	}
	return;
}

# The cursor on the standby, the writes on the primary; mode: plain
# (feedback on, delay -1), wait (index-only, the same), or cancel
# (index-only, feedback off, delay 2 s).
sub standby_case
{
	my ($primary, $standby, $p, $seed, $mode) = @_;
	my $label = "standby, $mode, $p";
	my @live = fill($primary, $p, $seed);
	wait_replayed($primary, $standby);
	my ($s, @rest) = open_cursor($standby, $mode eq 'plain' ? $plain : $ios, $p, $label, @live);
	if ($seed % 2)
	{
		split_writes($primary, $p, $seed);
		wait_replayed($primary, $standby);
	}
	if ($mode ne 'cancel')
	{
		# The standby's feedback must be past the deletions, or VACUUM
		# keeps their entries and no page merges away.
		$primary->poll_query_until('postgres', qq{
			SELECT coalesce(bool_and(xmin::text::bigint > $last_delete), false)
			FROM pg_replication_slots WHERE slot_name = 'standby126'})
		  or die 'the standby\'s feedback stays older than the deletions';
	}
	vacuum_flushed($primary, 'h');
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	if ($mode ne 'cancel')
	{
		my $how = wait_for_hold_wait($standby, "backend_type = 'startup'",
			sub {
				$standby->safe_psql('postgres',
					"SELECT pg_last_wal_replay_lsn() >= '$lsn'") eq 't';
			});
		isnt($how, 'timeout', "$label: replay waits for the cursor or passes ($how)");
	}
	else
	{
		wait_replayed($primary, $standby, $lsn);
	}
	reuse_writes($primary, $p);
	split_writes($primary, $p, $seed) unless $seed % 2;
	$primary->safe_psql('postgres', 'CHECKPOINT');
	wait_replayed($primary, $standby) if $mode eq 'cancel';
	my $out = fetch_rest($s);
	my $want = join('', map { "$_\n" } @rest) . "fetched\n";
	if ($mode eq 'cancel')
	{
		ok(conflicted($s) || $out eq $want,
			"$label: canceled by the conflict, or exactly its snapshot's live rows")
		  or diag("out: $out\nerr: $s->{err}");
		my %live = map { $_ => 1 } @live;
		is(join(',', grep { /^\Q$p\E/ && !$live{$_} } split /\n/, $out), '',
			"$label: no row but live ones");
		note("$label: " . (conflicted($s) ? 'canceled' : 'answered'));
	}
	else
	{
		is($out, $want, "$label: the rest of the cursor is exactly its snapshot's live rows")
		  or diag("err: $s->{err}");
	}
	bg_end($s);
	wait_replayed($primary, $standby);
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("primary126_$backend", $backend,
		conf => [ 'autovacuum = off', "artrie.buffer_pool_size = '1MB'" ]);
	$primary->safe_psql('postgres', q{
		CREATE TABLE h (k text COLLATE "C", filler text) WITH (vacuum_truncate = false);
		ALTER TABLE h ALTER filler SET STORAGE PLAIN;
		CREATE INDEX h_k ON h USING artrie (k);
		SELECT pg_create_physical_replication_slot('standby126');
	});
	# The slot keeps the WAL that the standby has not received: each case
	# writes megabytes and checkpoints, and a loaded machine's walreceiver
	# may lag behind the WAL the primary would otherwise remove.
	my $standby = artrie_standby($primary, "standby126_$backend", start => 0);
	$standby->append_conf('postgresql.conf',
		"max_standby_streaming_delay = '-1'\nhot_standby_feedback = on\n"
		  . "wal_receiver_status_interval = '1s'\nprimary_slot_name = 'standby126'");
	$standby->start;
	wait_replayed($primary, $standby);
	for my $set ([ $plain, 'Index Scan using h_k' ], [ $ios, 'Index Only Scan using h_k' ])
	{
		like($standby->safe_psql('postgres', "$set->[0] EXPLAIN SELECT k FROM h WHERE k ^@ 'a'"),
			qr/\Q$set->[1]\E/, "$backend: the plan $set->[1]");
	}

	for my $seed (1 .. $seeds)
	{
		primary_case($primary, "a${seed}_", $seed, 'plain');
		primary_case($primary, "b${seed}_", $seed, 'index-only');
		standby_case($primary, $standby, "c${seed}_", $seed, 'plain');
		standby_case($primary, $standby, "d${seed}_", $seed, 'wait');
	}
	standby_set($standby, 'hot_standby_feedback', 'off');
	standby_set($standby, 'max_standby_streaming_delay', '2s');
	for my $seed (1 .. $seeds)
	{
		standby_case($primary, $standby, "e${seed}_", $seed, 'cancel');
	}

	is($primary->safe_psql('postgres', 'SELECT artrie_verify(\'h_k\', true) IS NOT NULL'), 't',
		"$backend: artrie_verify on the primary");
	for my $node ($primary, $standby)
	{
		is($node->safe_psql('postgres',
			"$ios SELECT count(*) FROM h WHERE k ^@ 'a' OR k ^@ 'b' OR k ^@ 'c' OR k ^@ 'd'"),
			$node->safe_psql('postgres',
				"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;"
				  . " SELECT count(*) FROM h WHERE k ^@ 'a' OR k ^@ 'b' OR k ^@ 'c' OR k ^@ 'd'"),
			$node->name . ': the index answers like the table');
	}
	$standby->stop;
	$primary->stop;
	for my $node ($primary, $standby)
	{
		my $log = slurp_file($node->logfile);
		unlike($log, qr/pins leaked|is not pinned/, $node->name . ': no pin leaked or lost');
	}
}

done_testing();
