# Many writers on one artrie index at once.  Inserts descend with lock
# coupling and change one page, then add their entry to the counts of the
# nodes above that page in a second pass; deletes (VACUUM) hold their whole
# path; artrie_verify() keeps every writer out while it walks.  Eight
# clients insert batches into shared prefixes (page splits and prefix
# splits on each other's paths), single rows with long keys (paths placed
# in fresh pages), and delete rows that VACUUM then removes from the index,
# while other sessions verify the index and read prefix counts.  Afterwards,
# and again after a crash, the index is sound, answers like the table, and
# every prefix count equals the number of rows: a count the second pass
# missed or applied twice would show there.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Temp qw(tempfile);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

foreach my $backend (backends())
{
	my $node = artrie_node("writers_$backend", $backend, 'autovacuum = off',
		'artrie.buffer_pool_size = 32MB');
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id serial, k text COLLATE "C");
		INSERT INTO t (k) SELECT 'p/' || (g % 7) || '/' || md5(g::text) FROM generate_series(1, 20000) g;
		CREATE INDEX t_k ON t USING artrie (k);
	});

	my ($fh, $script) = tempfile(UNLINK => 1);
	print $fh <<'EOS';
\set r random(1, 1000000000)
\set p random(0, 6)
\set n random(1, 40)
INSERT INTO t (k) SELECT 'p/' || :p || '/' || md5((:r + g)::text) FROM generate_series(1, 200) g;
INSERT INTO t (k) SELECT 'p/' || :p || '/' || :r || '/' || g FROM generate_series(1, 50) g;
INSERT INTO t (k) VALUES ('long/' || :n || '/' || repeat(md5(:r::text), 60));
DELETE FROM t WHERE id % 97 = :r % 97 AND id > (SELECT max(id) - 3000 FROM t);
EOS
	close $fh;
	my ($wout, $werr) = ('', '');
	my $writers = IPC::Run::start(
		[ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', '15', '-f', $script,
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$wout, '2>', \$werr);

	# Beside them: VACUUM (deletes from the index), artrie_verify (which
	# waits for the writers between their passes) and prefix counts.
	my ($vacuums, $verifies, @errors) = (0, 0);
	my $until = time() + 13;
	while (time() < $until)
	{
		for my $sql ('VACUUM t', "SELECT artrie_verify('t_k')",
			"SELECT artrie_prefix_count('t_k', 'p/3/') >= 0")
		{
			my ($ret, $out, $err) = $node->psql('postgres', $sql);
			push @errors, "$sql: $err" if $ret != 0;
			$vacuums++ if $ret == 0 && $sql =~ /^VACUUM/;
			$verifies++ if $ret == 0 && $sql =~ /verify/;
		}
	}
	$writers->finish;
	is($werr, '', "$backend: the writers ran without an error");
	my ($tx) = $wout =~ /number of transactions actually processed: (\d+)/;
	cmp_ok($tx // 0, '>', 20, "$backend: the writers did work (" . ($tx // 0) . ' transactions)');
	cmp_ok($vacuums, '>', 1, "$backend: VACUUM ran $vacuums times beside them");
	cmp_ok($verifies, '>', 1, "$backend: artrie_verify ran $verifies times beside them");
	is(scalar(@errors), 0, "$backend: nothing beside the writers failed")
	  or diag($errors[0]);

	for my $phase ('after the writers', 'after a crash')
	{
		if ($phase eq 'after a crash')
		{
			crash_node($node);
			$node->start;
		}
		$node->safe_psql('postgres', 'VACUUM t');
		verify_ok($node, 't_k', "$backend $phase");
		prefix_counts_ok($node, 't_k', 't',
			[ '', 'p', 'p/', 'p/0', 'p/3/', 'p/6/a', 'p/5/1', 'long/', 'long/1', 'long/22/', 'q' ],
			"$backend $phase");
		ordered_scan_ok($node, 't', "$backend $phase");
	}
	$node->stop;
}
done_testing();
