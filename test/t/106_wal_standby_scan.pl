# A hot standby scan never returns an entry whose heap tuple the
# primary's VACUUM removed.  An index-only scan returns keys from a batch
# it copied; on the primary VACUUM waits for such scans (015_scan_hold.pl),
# and on a standby redo of the bulk delete's vacuum record must do the
# same before it replays the heap's records that free the TIDs and set
# the visibility map's bits: wait for the scan, and after
# max_standby_streaming_delay cancel it as a recovery conflict.
#
# On both I/O backends, a table with two rows per heap page, most of them
# deleted before the standby's queries start (so every snapshot sees them
# deleted and VACUUM may remove them), and then on the standby:
#  - an index-only cursor after FETCH 1, VACUUM on the primary, replay:
#    FETCH ALL is cancelled by the conflict or returns exactly the live
#    rows, never a deleted one; once with hot_standby_feedback on;
#  - a single index-only statement that sleeps after its first row while
#    VACUUM is replayed: cancelled or exactly the live rows;
#  - a plain index scan and a bitmap scan in cursors: exactly the live
#    rows (they check the heap, and replay does not wait for them);
#  - max_standby_streaming_delay = -1: replay waits for the index-only
#    cursor, which returns exactly the live rows, and goes on once the
#    cursor's transaction ends.
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
my $bitmap = 'SET enable_seqscan = off; SET enable_indexscan = off;';

# The transaction that deleted rows last (fill).
my $last_delete;

# Rows with prefix p in table h of the primary, 22 of them; all but the
# first two and the last two deleted after a VACUUM.  Waits until the
# standby has them; returns the live keys, one a line.
sub fill
{
	my ($primary, $standby, $p) = @_;
	$primary->safe_psql('postgres', qq{
		INSERT INTO h SELECT '$p' || lpad(g::text, 4, '0'), repeat('f', 3000)
			FROM generate_series(0, 21) g;
		VACUUM h;
	});
	$last_delete = $primary->safe_psql('postgres', qq{
		BEGIN;
		DELETE FROM h WHERE k BETWEEN '${p}0002' AND '${p}0019';
		SELECT pg_current_xact_id();
		COMMIT;
	});
	wait_replayed($primary, $standby);
	return join('', map { sprintf("%s%04d\n", $p, $_) } (0, 1, 20, 21));
}

# The rows a session printed that are not live ones.
sub deleted_rows
{
	my ($out, $live) = @_;
	my %live = map { $_ => 1 } split /\n/, $live;
	return join(',', grep { /^[a-z]\d{4}$/ && !$live{$_} } split /\n/, $out);
}

# An index-only cursor paused after FETCH 1 while the primary's VACUUM is
# replayed: FETCH ALL is cancelled or returns only live rows.
sub cursor_case
{
	my ($primary, $standby, $label, $p) = @_;
	my $live = fill($primary, $standby, $p);
	my $s = bg_session($standby);
	bg_run($s, "$ios BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ '$p';"
		. " FETCH 1 FROM c;\n", qr/${p}0000\n/);
	is($s->{out}, "${p}0000\n", "$label: the cursor's first row");

	# With hot_standby_feedback, VACUUM can remove the rows only once the
	# standby's feedback is later than their deletion.
	$primary->poll_query_until('postgres', qq{
		SELECT coalesce(bool_and(backend_xmin::text::bigint > $last_delete), true)
		FROM pg_stat_replication})
	  or die 'the standby\'s feedback stays older than the deletion';
	vacuum_flushed($primary, 'h');
	wait_replayed($primary, $standby);
	$s->{out} = '';
	bg_run($s, "FETCH ALL FROM c; SELECT 'fetched';\n", qr/fetched/);
	is(deleted_rows($s->{out}, $live), '', "$label: no deleted row comes back");
	ok(conflicted($s) || $s->{out} eq "${p}0001\n${p}0020\n${p}0021\nfetched\n",
		"$label: the cursor was canceled by the conflict, or returned exactly the live rows")
	  or diag("out: $s->{out}\nerr: $s->{err}");
	note("$label: " . (conflicted($s) ? 'canceled' : 'answered'));
	bg_end($s);
	is($standby->safe_psql('postgres', "$ios SELECT string_agg(k, E'\\n' ORDER BY k) || E'\\n' FROM h WHERE k ^@ '$p'"),
		$live, "$label: the standby's index answers like the table afterwards");
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("primary106_$backend", $backend,
		conf => ['autovacuum = off']);

	# Two rows per heap page (an uncompressed 3000-byte filler); VACUUM
	# never truncates the table (its lock would conflict with the
	# standby's queries on its own).
	$primary->safe_psql('postgres', q{
		CREATE TABLE h (k text COLLATE "C", filler text) WITH (vacuum_truncate = false);
		ALTER TABLE h ALTER filler SET STORAGE PLAIN;
		CREATE INDEX h_k ON h USING artrie (k);
	});
	my $standby = artrie_standby($primary, "standby106_$backend", start => 0);
	$standby->append_conf('postgresql.conf',
		"max_standby_streaming_delay = '2s'\nwal_receiver_status_interval = '1s'");
	$standby->start;
	wait_replayed($primary, $standby);

	like($standby->safe_psql('postgres', "$ios EXPLAIN SELECT k FROM h WHERE k ^@ 'a'"),
		qr/Index Only Scan using h_k/, "$backend: the cursors' query is an index-only scan");

	cursor_case($primary, $standby, "$backend, index-only cursor", 'a');

	# One statement that sleeps after its first row while VACUUM is
	# replayed.
	my $live = fill($primary, $standby, 'b');
	my $slow = "SELECT k || CASE WHEN k = 'b0000' THEN pg_sleep(6)::text ELSE '' END"
	  . " FROM h WHERE k ^@ 'b'";
	like($standby->safe_psql('postgres', "$ios EXPLAIN $slow"),
		qr/Index Only Scan using h_k/, "$backend: the slow statement is an index-only scan");
	my $s = bg_session($standby);
	$s->{in} .= "$ios $slow; SELECT 'done';\n";
	$s->{h}->pump_nb;
	$standby->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
	  or die 'the slow statement does not sleep';
	vacuum_flushed($primary, 'h');
	wait_replayed($primary, $standby);
	bg_run($s, '', qr/done/);
	is(deleted_rows($s->{out}, $live), '', "$backend, slow statement: no deleted row comes back");
	ok(conflicted($s) || $s->{out} eq "${live}done\n",
		"$backend, slow statement: canceled by the conflict, or exactly the live rows")
	  or diag("out: $s->{out}\nerr: $s->{err}");
	note("$backend, slow statement: " . (conflicted($s) ? 'canceled' : 'answered'));
	bg_end($s);

	# A plain index scan and a bitmap scan check the heap: exactly the
	# live rows, and replay does not wait for them.
	for my $case (['plain index scan', $plain, 'Index Scan using h_k', 'c'],
		['bitmap scan', $bitmap, 'Bitmap Index Scan on h_k', 'd'])
	{
		my ($label, $set, $plan, $p) = @$case;
		$live = fill($primary, $standby, $p);
		like($standby->safe_psql('postgres', "$set EXPLAIN SELECT k FROM h WHERE k ^@ '$p'"),
			qr/\Q$plan\E/, "$backend, $label: the plan");
		$s = bg_session($standby);
		bg_run($s, "$set BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ '$p';"
			. " FETCH 1 FROM c;\n", qr/${p}0000\n/);
		vacuum_flushed($primary, 'h');
		wait_replayed($primary, $standby);
		$s->{out} = '';
		bg_run($s, "FETCH ALL FROM c; COMMIT; SELECT 'fetched';\n", qr/fetched/);
		is($s->{out}, "${p}0001\n${p}0020\n${p}0021\nfetched\n",
			"$backend, $label: exactly the live rows")
		  or diag("err: $s->{err}");
		bg_end($s);
	}

	# max_standby_streaming_delay = -1: replay waits for the cursor.
	standby_set($standby, 'max_standby_streaming_delay', '-1');
	$live = fill($primary, $standby, 'e');
	$s = bg_session($standby);
	bg_run($s, "$ios BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ 'e';"
		. " FETCH 1 FROM c;\n", qr/e0000\n/);
	vacuum_flushed($primary, 'h');
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	sleep 3;
	is($standby->safe_psql('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'"), 'f',
		"$backend, delay -1: replay waits for the index-only cursor");
	$s->{out} = '';
	bg_run($s, "FETCH ALL FROM c; COMMIT; SELECT 'fetched';\n", qr/fetched/);
	is($s->{out}, "e0001\ne0020\ne0021\nfetched\n",
		"$backend, delay -1: the cursor returns exactly the live rows")
	  or diag("err: $s->{err}");
	bg_end($s);
	wait_replayed($primary, $standby, $lsn);
	standby_set($standby, 'max_standby_streaming_delay', '2s');

	# hot_standby_feedback on: the same.
	standby_set($standby, 'hot_standby_feedback', 'on');
	cursor_case($primary, $standby, "$backend, index-only cursor, hot_standby_feedback", 'f');

	$standby->stop;
	$primary->stop;
}

done_testing();
