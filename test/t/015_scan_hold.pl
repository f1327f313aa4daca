# Scan holds: an index-only scan returns entries from a batch it copied,
# so VACUUM's bulk delete must not finish (and let the heap mark the TIDs
# unused and the visibility map call their pages all-visible) while the
# scan may still return an entry it removed.  A cursor reads a batch that
# holds the entries of rows deleted before its snapshot; VACUUM then runs
# and must wait for the cursor; the cursor's remaining rows must be
# exactly the live ones (a stale entry on an all-visible page would come
# back without a heap visit).  After the cursor's transaction, VACUUM
# finishes.  A plain MVCC index scan takes no hold: VACUUM does not wait
# for one.  Holds are per file: an idle index-only cursor on another
# index does not make VACUUM of h wait, while one on h's index does.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('hold', 'io_uring', 'autovacuum = off');

# Two rows per heap page (a 3000-byte uncompressed filler): the first
# page holds the first two keys, which stay; every later page but the last
# holds only deleted rows.
$node->safe_psql('postgres', q{
	CREATE TABLE h (k text COLLATE "C", filler text);
	ALTER TABLE h ALTER filler SET STORAGE PLAIN;
	INSERT INTO h SELECT 'x' || lpad(g::text, 4, '0'), repeat('f', 3000)
		FROM generate_series(0, 21) g;
	CREATE INDEX h_k ON h USING artrie (k);
	VACUUM h;
	DELETE FROM h WHERE k BETWEEN 'x0002' AND 'x0019';
});

# psql in the background, fed one statement at a time.
sub session
{
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', $node->host,
		  '-p', $node->port, '-d', 'postgres' ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err});
	return \%s;
}

# Run sql in a session and wait until its output matches want.
sub run_until
{
	my ($s, $sql, $want) = @_;
	$s->{in} .= $sql;
	$s->{h}->pump until $s->{out} =~ $want || $s->{err} ne '';
	return;
}

# VACUUM in the background; returns once it finished, or once it has
# been waiting in its index phase for a while (a wait for the io worker's
# flush is brief; a wait for a scan hold lasts until the scan moves on).
sub start_vacuum
{
	my $v = session();
	my $waiting = 0;
	$v->{in} .= "VACUUM h;\nSELECT 'vacuumed';\n";
	$v->{h}->pump_nb;
	for (1 .. 600)
	{
		$v->{h}->pump_nb;
		last if $v->{out} =~ /vacuumed/;
		if ($node->safe_psql('postgres', q{
			SELECT count(*) FROM pg_stat_activity a
				JOIN pg_stat_progress_vacuum p USING (pid)
			WHERE a.query = 'VACUUM h;' AND a.wait_event_type = 'Extension'
				AND p.phase = 'vacuuming indexes'}) eq '1')
		{
			last if ++$waiting >= 10;
		}
		else
		{
			$waiting = 0;
		}
		select(undef, undef, undef, 0.1);
	}
	return $v;
}

my $enable = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

# An index-only scan paused after its first row.
like($node->safe_psql('postgres', "$enable EXPLAIN SELECT k FROM h WHERE k ^@ 'x'"),
	qr/Index Only Scan using h_k/, 'the cursor query is an index-only scan');
my $c = session();
run_until($c, "$enable BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ 'x';"
	. " FETCH 1 FROM c;\n", qr/x0000\n/);

my $v = start_vacuum();
unlike($v->{out}, qr/vacuumed/, 'VACUUM waits for the index-only scan\'s batch');
run_until($c, "FETCH ALL FROM c; SELECT 'fetched';\n", qr/fetched/);
is($c->{out}, "x0000\nx0001\nx0020\nx0021\nfetched\n",
	'the index-only scan returns exactly the live rows');
run_until($c, "COMMIT; SELECT 'committed';\n", qr/committed/);
$v->{h}->pump until $v->{out} =~ /vacuumed/ || $v->{err} ne '';
like($v->{out}, qr/vacuumed/, 'VACUUM finishes once the scan is over');
is($v->{err}, '', 'VACUUM without error');
is($node->safe_psql('postgres', "$enable SELECT string_agg(k, ',' ORDER BY k) FROM h WHERE k ^@ 'x'"),
	'x0000,x0001,x0020,x0021', 'the index answers like the table afterwards');

# A plain index scan under MVCC: VACUUM does not wait for it.
$node->safe_psql('postgres', q{
	INSERT INTO h SELECT 'y' || lpad(g::text, 4, '0'), repeat('f', 3000)
		FROM generate_series(0, 21) g;
	VACUUM h;
	DELETE FROM h WHERE k BETWEEN 'y0002' AND 'y0019';
});
$c->{out} = '';
run_until($c, "$enable BEGIN; DECLARE c CURSOR FOR SELECT k, filler <> '' FROM h WHERE k ^@ 'y';"
	. " FETCH 1 FROM c;\n", qr/y0000/);
$v = start_vacuum();
like($v->{out}, qr/vacuumed/, 'VACUUM does not wait for a plain MVCC index scan');
run_until($c, "FETCH ALL FROM c; SELECT 'fetched';\n", qr/fetched/);
is($c->{out}, "y0000|t\ny0001|t\ny0020|t\ny0021|t\nfetched\n",
	'the plain index scan returns exactly the live rows');
run_until($c, "COMMIT; SELECT 'committed';\n", qr/committed/);

# An idle index-only cursor on another index (g_k): VACUUM of h does not
# wait for it, but still waits for one on h_k.
$node->safe_psql('postgres', q{
	CREATE TABLE g (k text COLLATE "C");
	INSERT INTO g SELECT 'g' || lpad(g::text, 4, '0') FROM generate_series(0, 99) g;
	CREATE INDEX g_k ON g USING artrie (k);
	VACUUM g;
	INSERT INTO h SELECT 'z' || lpad(g::text, 4, '0'), repeat('f', 3000)
		FROM generate_series(0, 21) g;
	VACUUM h;
	DELETE FROM h WHERE k BETWEEN 'z0002' AND 'z0009';
});
like($node->safe_psql('postgres', "$enable EXPLAIN SELECT k FROM g WHERE k ^@ 'g'"),
	qr/Index Only Scan using g_k/, 'the cursor on g is an index-only scan');
# Open an index-only cursor on table t over keys with prefix p in session
# s and fetch its first row, then end the previous VACUUM's session and
# start VACUUM of h anew.
sub cursor_then_vacuum
{
	my ($s, $t, $p) = @_;
	$s->{out} = '';
	run_until($s, "$enable BEGIN; DECLARE c CURSOR FOR SELECT k FROM $t WHERE k ^@ '$p';"
		. " FETCH 1 FROM c;\n", qr/${p}0000\n/);
	$v->{in} .= "\\q\n";
	$v->{h}->finish;
	$v = start_vacuum();
	return;
}

cursor_then_vacuum($c, 'g', 'g');
like($v->{out}, qr/vacuumed/,
	'VACUUM of h does not wait for an idle index-only cursor on another index');

run_until($c, "FETCH ALL FROM c; COMMIT; SELECT 'committed';\n", qr/committed/);
is(scalar(() = $c->{out} =~ /^g\d{4}$/mg), 100, 'the cursor on g returns all of g');

# The cursor's snapshot ended with its transaction, so VACUUM may remove
# rows deleted now.
$node->safe_psql('postgres', "DELETE FROM h WHERE k BETWEEN 'z0010' AND 'z0019'");
my $c2 = session();
cursor_then_vacuum($c2, 'h', 'z');
unlike($v->{out}, qr/vacuumed/,
	'VACUUM of h still waits for an idle index-only cursor on h_k');
run_until($c2, "FETCH ALL FROM c; SELECT 'fetched';\n", qr/fetched/);
is($c2->{out}, "z0000\nz0001\nz0020\nz0021\nfetched\n",
	'the cursor on h_k returns exactly the live rows');
run_until($c2, "COMMIT; SELECT 'committed';\n", qr/committed/);
$v->{h}->pump until $v->{out} =~ /vacuumed/ || $v->{err} ne '';
like($v->{out}, qr/vacuumed/, 'VACUUM of h finishes once the cursor on h_k is over');

$_->{in} .= "\\q\n" for ($c, $c2, $v);
$_->{h}->finish for ($c, $c2, $v);
done_testing();
