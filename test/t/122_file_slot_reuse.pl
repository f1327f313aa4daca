# A file slot closed and taken for another file while a backend opens it:
# artrie.max_files = 16 and 48 indexes, written from eight sessions at
# once in an order that makes the io worker close a file for nearly every
# statement.  A backend that found its file's slot, then saw it closed and
# reused before it held it, must open its own file again, never write into
# the other file the slot now holds: afterwards every index holds exactly
# its table's rows (artrie_verify with the heap check) and answers like a
# sequential scan.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $nidx = 48;
my $nclients = 8;
my $node = artrie_node('reuse', 'io_uring', 'artrie.max_files = 16',
	'checkpoint_timeout = 1h', 'max_wal_size = 1GB', 'autovacuum = off');

$node->safe_psql('postgres', join('', map { qq{
	CREATE TABLE r$_ (id int, k text COLLATE "C");
	INSERT INTO r$_ SELECT g, 'r$_/' || g FROM generate_series(1, 50) g;
	CREATE INDEX r${_}_k ON r$_ USING artrie (k);
} } 1 .. $nidx));

# Each session walks the indexes with its own stride, one statement each,
# so that at any moment the sessions use files far apart in the LRU order.
my ($clean, $errs) = sessions_run($node, map {
	my $c = $_;
	join('', map {
		my $i = ($_ * (2 * $c + 1) + $c * 5) % $nidx + 1;
		"INSERT INTO r$i VALUES ($c * 100000 + $_, 'r$i/c$c/$_');\n"
	} 1 .. 600)
} 1 .. $nclients);
ok($clean, "$nclients sessions wrote to $nidx indexes through 16 slots without an error")
  or diag($errs);

my ($ret, $out, $err) = $node->psql('postgres',
	join('', map { "SELECT artrie_verify('r${_}_k', true);\n" } 1 .. $nidx));
is($err, '', 'every index holds an entry for each of its rows');

my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seq = 'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my $q = join('', map { "SELECT 'r$_', count(*), min(k), max(k) FROM r$_ WHERE k >= '';\n" } 1 .. $nidx);
is($node->safe_psql('postgres', $force . $q), $node->safe_psql('postgres', $seq . $q),
	'and no index holds another index\'s rows: each answers like a sequential scan');

$node->stop;
done_testing();
