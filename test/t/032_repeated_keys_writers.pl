# Concurrent writers of repeated keys on one artrie index.  Inserts of a
# key already in the index add its entries below that key, on the bottom
# page of their path, and split it when it fills; such a split waits for no
# other insert, while a split of a page that an insert between its passes
# goes through waits for the inserts between their passes (the second pass
# adds the entry to the counts above its page and may pin only pages its
# first pass kept).  Eight clients COPY one of eight files of 100 keys and
# INSERT ... SELECT one of eight fixed sets of 100 keys, so every key gets
# many entries, with new keys among them (splits higher up), while
# other sessions verify the index and read prefix counts.
# Afterwards, and again after a crash, the index is sound, answers like
# the table, every prefix count equals the rows and the distinct keys it
# keeps equal the table's: a count a second pass missed, or applied twice,
# would show there.
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

my $dir = PostgreSQL::Test::Utils::tempdir();
for my $f (0 .. 7)
{
	open(my $out, '>', "$dir/$f.txt") or die "$dir/$f.txt: $!";
	print $out "c/$f/" . (($_ * 7919 + $f * 104729) % 1000003) . "/$_\n" for 1 .. 100;
	close $out;
}

my ($fh, $script) = tempfile(UNLINK => 1);
print $fh "\\set f random(0, 7)\n";
print $fh "\\if :f = $_\nCOPY t (k) FROM '$dir/$_.txt';\n\\endif\n" for 0 .. 7;
print $fh <<'EOS';
\set s random(0, 7)
INSERT INTO t (k) SELECT 'd/' || :s || '/' || g FROM generate_series(1, 100) g;
\set r random(1, 1000000000)
INSERT INTO t (k) SELECT 'n/' || :r || '/' || g FROM generate_series(1, 20) g;
EOS
close $fh;

foreach my $backend (backends())
{
	my $node = artrie_node("repeated_$backend", $backend, 'autovacuum = off',
		'artrie.buffer_pool_size = 32MB');
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id serial, k text COLLATE "C");
		INSERT INTO t (k) SELECT 'd/' || (g % 8) || '/' || g FROM generate_series(1, 800) g;
		CREATE INDEX t_k ON t USING artrie (k);
	});

	my ($wout, $werr) = ('', '');
	my $writers = IPC::Run::start(
		[ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', '5', '-f', $script,
		  '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$wout, '2>', \$werr);

	my ($verifies, @errors) = (0);
	my $until = time() + 4;
	while (time() < $until)
	{
		for my $sql ("SELECT artrie_verify('t_k')",
			"SELECT artrie_prefix_count('t_k', 'd/3/') >= 0")
		{
			my ($ret, $out, $err) = $node->psql('postgres', $sql);
			push @errors, "$sql: $err" if $ret != 0;
			$verifies++ if $ret == 0 && $sql =~ /verify/;
		}
	}
	$writers->finish;
	is($werr, '', "$backend: the writers ran without an error");
	my ($tx) = $wout =~ /number of transactions actually processed: (\d+)/;
	cmp_ok($tx // 0, '>', 8, "$backend: the writers did work (" . ($tx // 0) . ' transactions)');
	cmp_ok($verifies, '>', 0, "$backend: artrie_verify ran $verifies times beside them");
	is(scalar(@errors), 0, "$backend: nothing beside the writers failed")
	  or diag($errors[0]);
	cmp_ok($node->safe_psql('postgres',
			"SELECT max(n) FROM (SELECT count(*) AS n FROM t GROUP BY k) s"),
		'>=', 2, "$backend: keys repeat");

	for my $phase ('after the writers', 'after a crash')
	{
		if ($phase eq 'after a crash')
		{
			crash_node($node);
			$node->start;
		}
		verify_ok($node, 't_k', "$backend $phase");
		prefix_counts_ok($node, 't_k', 't',
			[ '', 'c', 'c/', 'c/0/', 'c/5/1', 'd/', 'd/3/', 'd/3/1', 'd/7/99', 'n/', 'n/1', 'q' ],
			"$backend $phase");
		is($node->safe_psql('postgres', q{SELECT artrie_stats('t_k')->>'distinct_keys'}),
			$node->safe_psql('postgres', 'SELECT count(DISTINCT k) FROM t'),
			"$backend $phase: the distinct keys kept equal the table's");
		ordered_scan_ok($node, 't', "$backend $phase");
	}
	$node->stop;
}
done_testing();
