# Racing inserters of the same keys into a UNIQUE artrie index: 8 clients
# insert, move (UPDATE) and delete keys drawn from a small set, so that
# the check for an existing key and the insert of another client's same
# key keep overlapping.  The check and the insert are atomic per key (a
# heavyweight lock on the key), so no key may ever be in the table twice;
# the clients meet duplicates all the time and wait for each other.
# Afterwards the index is sound and answers like the table.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Temp qw(tempfile);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('unique_race', 'io_uring');
$node->safe_psql('postgres', q{
	CREATE TABLE t (id serial, k text COLLATE "C");
	CREATE UNIQUE INDEX t_k ON t USING artrie (k);
	CREATE SEQUENCE dups;
	-- Insert key n, or move key m to n; a duplicate is counted, not raised.
	CREATE FUNCTION put(n int, m int) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		IF m % 3 = 0 THEN
			UPDATE t SET k = 'k' || n WHERE k = 'k' || m;
		ELSE
			INSERT INTO t (k) VALUES ('k' || n);
		END IF;
	EXCEPTION WHEN unique_violation THEN
		PERFORM nextval('dups');
	END $$;
});

my ($fh, $script) = tempfile(UNLINK => 1);
print $fh <<'EOS';
\set n random(1, 64)
\set m random(1, 64)
\set d random(1, 64)
SELECT put(:n, :m);
SELECT put(:m, :n);
DELETE FROM t WHERE k = 'k' || :d AND :d % 4 = 0;
EOS
close $fh;

my ($out, $err) = run_command(
	[ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', '15', '-f', $script,
	  '-h', $node->host, '-p', $node->port, 'postgres' ]);
is($err, '', 'the clients ran without an error');
my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($tx // 0, '>', 1000, 'the clients did work (' . ($tx // 0) . ' transactions)');
cmp_ok($node->safe_psql('postgres', 'SELECT last_value FROM dups'), '>', 100,
	'the clients met duplicates');

is($node->safe_psql('postgres', q{
	SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
	SELECT count(*) - count(DISTINCT k) FROM t}), '0', 'no key is in the table twice');
verify_ok($node, 't_k', 'after the race');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM t WHERE k ^@ 'k'}),
	$node->safe_psql('postgres', 'SELECT count(*) FROM t'),
	'the index finds every row');
is($node->psql('postgres', q{INSERT INTO t (k) SELECT k FROM t LIMIT 1}), 3,
	'a duplicate of a surviving key is still refused');

$node->stop;
done_testing();
