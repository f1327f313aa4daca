# Scan holds end with the resource owner their scan ran under when an
# abort releases it, as btree's buffer pins do, so a scan that a rolled
# back subtransaction ended without its endscan leaves nothing that keeps
# VACUUM waiting.  Each case below starts an index-only scan (which takes
# a hold, see 015_scan_hold.pl) of rows deleted before, leaves its
# session idle in the transaction, and runs VACUUM of the table with a
# statement timeout: it must remove the rows without waiting.
#  - ROLLBACK TO SAVEPOINT after DECLARE ... CURSOR and FETCH 1 inside it;
#  - a PL/pgSQL exception block that catches an error raised in the
#    middle of an index-only scan, once from a query run to completion by
#    the block and once from a FOR loop over a query (a cursor);
# and the other way round: a cursor declared before the savepoint and
# fetched from inside it survives ROLLBACK TO, so its hold must stay:
# VACUUM waits for it (and the VACUUM after one canceled while it waited,
# which finds the entries removed already, waits too, since it lets the
# heap free the TIDs), and the cursor then returns exactly the live rows.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('hold_savepoint', 'io_uring', 'autovacuum = off');

# Two rows per heap page (a 3000-byte uncompressed filler), so that the
# pages of deleted rows become empty and all-visible after VACUUM.
$node->safe_psql('postgres', q{
	CREATE TABLE h (k text COLLATE "C", filler text);
	ALTER TABLE h ALTER filler SET STORAGE PLAIN;
	CREATE INDEX h_k ON h USING artrie (k);
	CREATE FUNCTION catch_in_query(p text) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN
		BEGIN
			PERFORM count(*) FROM h
				WHERE k ^@ p AND 1 / (CASE WHEN k = p || '0001' THEN 0 ELSE 1 END) = 1;
		EXCEPTION WHEN division_by_zero THEN
			RETURN 'caught';
		END;
		RETURN 'not caught';
	END $$;
	CREATE FUNCTION catch_in_loop(p text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		r record;
	BEGIN
		BEGIN
			FOR r IN SELECT k FROM h WHERE k ^@ p LOOP
				RAISE EXCEPTION 'stop at %', r.k USING ERRCODE = 'P0099';
			END LOOP;
		EXCEPTION WHEN SQLSTATE 'P0099' THEN
			RETURN 'caught';
		END;
		RETURN 'not caught';
	END $$;
});

my $enable = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

# Rows with prefix p, n of them (22 unless given); all but the first two
# and those from the 20th on are deleted after a VACUUM, so the next
# VACUUM removes 18 entries.  Returns the live keys, in order.
sub fill
{
	my ($p, $n) = @_;
	$n //= 22;
	$node->safe_psql('postgres', qq{
		INSERT INTO h SELECT '$p' || lpad(g::text, 4, '0'), repeat('f', 3000)
			FROM generate_series(0, $n - 1) g;
		VACUUM h;
		DELETE FROM h WHERE k BETWEEN '${p}0002' AND '${p}0019';
	});
	return join(',', map { sprintf('%s%04d', $p, $_) } (0, 1, 20 .. $n - 1));
}

# VACUUM h with a statement timeout of $secs: 'vacuumed' or its error.
sub vacuum_within
{
	my ($secs) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '${secs}s'; VACUUM h; SELECT 'vacuumed'");
	return $ret == 0 ? $out : $err;
}

# The index's answer for prefix p, forced through the index.
sub answer
{
	my ($p) = @_;
	return $node->safe_psql('postgres',
		"$enable SELECT string_agg(k, ',' ORDER BY k) FROM h WHERE k ^@ '$p'");
}

like($node->safe_psql('postgres', "$enable EXPLAIN SELECT k FROM h WHERE k ^@ 'a'"),
	qr/Index Only Scan using h_k/, 'the cursors\' query is an index-only scan');

# ROLLBACK TO SAVEPOINT after a cursor's first row.
fill('a');
my $s = bg_session($node);
bg_run($s, "$enable BEGIN; SAVEPOINT s; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ 'a';"
	. " FETCH 1 FROM c; ROLLBACK TO s; SELECT 'rolled back';\n", qr/rolled back/);
is($s->{out}, "a0000\nrolled back\n", 'savepoint: the cursor returned its first row');
is(vacuum_within(20), 'vacuumed',
	'savepoint: VACUUM does not wait for the cursor rolled back with its savepoint');
is(answer('a'), 'a0000,a0001,a0020,a0021', 'savepoint: the index answers like the table');
$s->{out} = '';
bg_run($s, "COMMIT; SELECT 'committed';\n", qr/committed/);
is($s->{err}, '', 'savepoint: the session goes on without error');

# A PL/pgSQL exception block catching an error in the middle of a scan
# (a query the block runs to completion, then a FOR loop's cursor, which
# fetches 10 rows at a time: 22 live rows keep its scan in the middle).
for my $case (['query', 'b', 'catch_in_query', 22], ['loop', 'c', 'catch_in_loop', 40])
{
	my ($label, $p, $f, $n) = @$case;
	my $live = fill($p, $n);
	like($node->safe_psql('postgres',
		"$enable EXPLAIN SELECT count(*) FROM h WHERE k ^@ '$p'"
		  . " AND 1 / (CASE WHEN k = '${p}0001' THEN 0 ELSE 1 END) = 1"),
		qr/Index Only Scan using h_k/, "exception block, $label: an index-only scan")
	  if $label eq 'query';
	$s->{out} = '';
	bg_run($s, "$enable BEGIN; SELECT $f('$p');\n", qr/caught/);
	is($s->{out}, "caught\n", "exception block, $label: the error is caught");
	is(vacuum_within(20), 'vacuumed',
		"exception block, $label: VACUUM does not wait for the scan the error ended");
	is(answer($p), $live,
		"exception block, $label: the index answers like the table");
	$s->{out} = '';
	bg_run($s, "COMMIT; SELECT 'committed';\n", qr/committed/);
	is($s->{err}, '', "exception block, $label: the session goes on without error");
}

# A cursor declared before the savepoint outlives ROLLBACK TO: its hold
# stays, VACUUM waits for it, and it returns only the live rows.
fill('d');
$s->{out} = '';
bg_run($s, "$enable BEGIN; DECLARE c CURSOR FOR SELECT k FROM h WHERE k ^@ 'd'; SAVEPOINT s;"
	. " FETCH 1 FROM c; ROLLBACK TO s; SELECT 'rolled back';\n", qr/rolled back/);
is($s->{out}, "d0000\nrolled back\n", 'outer cursor: its first row');
like(vacuum_within(3), qr/statement timeout/,
	'outer cursor: VACUUM waits for the cursor that outlives the savepoint');
like(vacuum_within(3), qr/statement timeout/,
	'outer cursor: so does the next VACUUM, though the canceled one removed the entries');
$s->{out} = '';
bg_run($s, "FETCH ALL FROM c; COMMIT; SELECT 'committed';\n", qr/committed/);
is($s->{out}, "d0001\nd0020\nd0021\ncommitted\n", 'outer cursor: exactly the live rows follow');
is(vacuum_within(20), 'vacuumed', 'outer cursor: VACUUM finishes once it is closed');
is(answer('d'), 'd0000,d0001,d0020,d0021', 'outer cursor: the index answers like the table');

bg_end($s);
done_testing();
