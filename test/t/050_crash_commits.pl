# Invariants 1 and 5: a committed transaction's index entries are durable
# before its commit is acknowledged.  Several clients insert single rows,
# each acknowledged row is logged by the client, and the postmaster and all
# its children are SIGKILLed mid-stream; after restart every acknowledged
# row must be found through the artrie index, and the index must agree
# with a sequential scan.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $clients = 4;
my $rows_per_client = 200000;

for my $backend (backends())
{
	my $node = artrie_node("commits_$backend", $backend);
	$node->safe_psql('postgres', q{
		CREATE TABLE t (id int, k text COLLATE "C");
		CREATE INDEX t_k ON t USING artrie (k);
		INSERT INTO t SELECT g, 'pre-' || g FROM generate_series(1, 1000) g;
	});

	my $dir = PostgreSQL::Test::Utils::tempdir;
	my @runs;
	for my $c (1 .. $clients)
	{
		# One session per client, one INSERT per transaction; psql echoes
		# an id only after its INSERT's commit has been acknowledged.
		open(my $fh, '>', "$dir/script_$c.sql") or die $!;
		for my $i (1 .. $rows_per_client)
		{
			my $id = $c * 1000000 + $i;
			print $fh "INSERT INTO t VALUES ($id, 'key-$id');\n\\echo $id\n";
		}
		close $fh;
		push @runs, IPC::Run::start(
			[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			  '-h', $node->host, '-p', $node->port, '-d', 'postgres',
			  '-f', "$dir/script_$c.sql" ],
			'>', "$dir/acked_$c", '2>', "$dir/err_$c");
	}

	# Let the clients commit for a while, then crash everything at once.
	my $acked = 0;
	for (1 .. 200)
	{
		$acked = 0;
		for my $c (1 .. $clients)
		{
			$acked += () = `cat $dir/acked_$c` =~ /\n/g if -e "$dir/acked_$c";
		}
		last if $acked >= 2000;
		select(undef, undef, undef, 0.1);
	}
	crash_node($node);
	$_->finish for @runs;

	my @ids;
	for my $c (1 .. $clients)
	{
		open(my $fh, '<', "$dir/acked_$c") or die $!;
		push @ids, grep { /^\d+$/ } map { chomp; $_ } <$fh>;
		close $fh;
	}
	cmp_ok(scalar(@ids), '>', 100, "$backend: clients committed rows before the crash");

	$node->start;
	$node->safe_psql('postgres',
		'CREATE TABLE acked (id int); INSERT INTO acked VALUES ('
		  . join('), (', @ids) . ')');

	my $force = q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SET enable_hashjoin = off; SET enable_mergejoin = off;
	};
	my $missing_query = q{
		SELECT count(*) FROM acked a
		WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.k = 'key-' || a.id)
	};
	like($node->safe_psql('postgres', "$force EXPLAIN (COSTS OFF) $missing_query"),
		qr/Index (Only )?Scan using t_k/, "$backend: the check goes through the index");
	is($node->safe_psql('postgres', "$force $missing_query"), '0',
		"$backend: every acknowledged row is found through the index");

	is($node->safe_psql('postgres', "$force SELECT count(*) FROM t WHERE k >= ''"),
		$node->safe_psql('postgres', 'SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t'),
		"$backend: the index agrees with a sequential scan");
	$node->safe_psql('postgres', "SELECT artrie_verify('t_k', true)");
	pass("$backend: artrie_verify finds the index sound");

	$node->stop;
}

done_testing();
