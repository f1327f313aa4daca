# Shards with postgres_fdw: a coordinator whose partitioned table has two
# foreign partitions on two other servers (the shards, one per I/O
# backend, each with its own artrie index) and one local partition.
# Prefix, LIKE and exact queries are sent to the shards (EXPLAIN VERBOSE
# shows them in the Remote SQL, and the shards plan them on their artrie
# indexes), and every answer equals that of one table on one server.
# artrie's own operators (^@ on char(n)) are sent only when the foreign
# server lists extensions 'artrie'; artrie's functions are not sent (they
# are not immutable), and run on each shard through dblink combine to the
# single table's answers.  A shard that crashes makes the coordinator's
# queries that need it fail cleanly, and after its recovery everything
# answers as before, the rows written through the coordinator included.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $coord = artrie_node('coord', 'io_uring');
my %shard = (
	s1 => artrie_node('shard1', 'io_uring'),
	s2 => artrie_node('shard2', 'mmap'));

# Rows by id: ids below 15001 on s1, up to 2000000 on s2, the rest in the
# coordinator's own partition; the reference table holds them all.
make_wtable($shard{s1}, 'files', 'files_k', 1, 15000);
make_wtable($shard{s2}, 'files', 'files_k', 15001, 20000);
$shard{s2}->safe_psql('postgres',
	'INSERT INTO files SELECT g, wkey(g) FROM generate_series(1000001, 1010000) g');
make_wtable($coord, 'ref', 'ref_k', 1, 20000);
$coord->safe_psql('postgres', q{
	INSERT INTO ref SELECT g, wkey(g) FROM generate_series(1000001, 1010000) g;
	INSERT INTO ref SELECT g, wkey(g) FROM generate_series(2000001, 2005000) g;
});
for my $s (values %shard)
{
	$s->safe_psql('postgres', q{
		CREATE TABLE codes (code char(8));
		INSERT INTO codes SELECT 'C' || lpad(g::text, 5, '0') FROM generate_series(1, 3000) g;
		CREATE INDEX codes_code ON codes USING artrie (code);
		ANALYZE files, codes;
	});
}

$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink');
for my $name (sort keys %shard)
{
	my ($host, $port) = ($shard{$name}->host, $shard{$name}->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname 'postgres', extensions 'artrie');
		CREATE USER MAPPING FOR CURRENT_USER SERVER $name;
		CREATE FOREIGN TABLE codes_$name (code char(8)) SERVER $name
			OPTIONS (table_name 'codes');
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE files (id int, k text COLLATE "C") PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE files_s1 PARTITION OF files FOR VALUES FROM (MINVALUE) TO (15001)
		SERVER s1 OPTIONS (table_name 'files');
	CREATE FOREIGN TABLE files_s2 PARTITION OF files FOR VALUES FROM (15001) TO (2000001)
		SERVER s2 OPTIONS (table_name 'files');
	CREATE TABLE files_local PARTITION OF files FOR VALUES FROM (2000001) TO (MAXVALUE);
	CREATE INDEX files_k ON files USING artrie (k);
	INSERT INTO files_local SELECT g, wkey(g) FROM generate_series(2000001, 2005000) g;
	ANALYZE ref, files_local;
});

# The Remote SQL lines of a query's plan on the coordinator.
sub remote_sql
{
	my ($sql) = @_;
	my $plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $sql");
	return join("\n", grep { /Remote SQL:/ } split /\n/, $plan);
}

# Each shard plans the statement the coordinator sends it (the Remote SQL
# lines, in the order of the shards given) on its artrie index.
sub shards_use_index
{
	my ($remote, $index, $label, @names) = @_;
	my @sql = map { /Remote SQL: (.*)$/ } split /\n/, $remote;
	is(scalar(@sql), scalar(@names), "$label: one Remote SQL per shard");
	for my $i (0 .. $#names)
	{
		my $plan = $shard{ $names[$i] }->safe_psql('postgres', "EXPLAIN $sql[$i]");
		like($plan, qr/Index (Only )?Scan (using|on) $index\b/,
			"$label: $names[$i] plans the statement it is sent on $index");
	}
	return;
}

# Prefix, LIKE and exact queries travel to the shards with their clause.
my %pushed = (
	'^@' => ["SELECT id FROM files WHERE k ^@ 'w0/07/1'", qr/WHERE \(\(k \^@ 'w0\/07\/1'\)\)/],
	'LIKE' => ["SELECT id FROM files WHERE k LIKE 'w0/07/1%'", qr/WHERE \(\(k ~~ 'w0\/07\/1%'\)\)/],
	'=' => ["SELECT id FROM files WHERE k = 'w1/17/1000017'", qr/WHERE \(\(k = 'w1\/17\/1000017'\)\)/],
);
for my $op (sort keys %pushed)
{
	my ($sql, $want) = @{ $pushed{$op} };
	my $remote = remote_sql($sql);
	my @lines = split /\n/, $remote;
	is(scalar(grep { $_ =~ $want } @lines), 2,
		"$op: both shards' Remote SQL carries the clause")
	  or diag($remote);
	shards_use_index($remote, 'files_k', $op, 's1', 's2');
}

# A count over the partitioned table is summed on the coordinator from the
# rows the shards filter (PostgreSQL 15 sends no partial aggregates); a
# count of one foreign partition is sent whole.
my $agg = $coord->safe_psql('postgres', q{
	SET enable_partitionwise_aggregate = on;
	EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM files WHERE k ^@ 'w1/2'});
is(scalar(grep { /Remote SQL: SELECT NULL FROM public\.files WHERE \(\(k \^@ 'w1\/2'\)\)/ }
		split /\n/, $agg), 2,
	'a count over the partitioned table sends the shards its ^@') or diag($agg);
my $remote = remote_sql(q{SELECT count(*) FROM files_s2 WHERE k ^@ 'w1/2'});
like($remote, qr/Remote SQL: SELECT count\(\*\) FROM public\.files WHERE \(\(k \^@ 'w1\/2'\)\)/,
	'a count of one foreign partition is sent whole');
shards_use_index($remote, 'files_k', 'count(*)', 's2');

# artrie's own operator, ^@ on char(n), is sent only to a server whose
# extensions option lists artrie.
my $code_sql = q{SELECT count(*) FROM codes_s1 WHERE code ^@ 'C0012'};
$remote = remote_sql($code_sql);
like($remote, qr/\^@/, "char(n) ^@ is sent with extensions 'artrie'");
shards_use_index($remote, 'codes_code', 'char(n) ^@', 's1');
$coord->safe_psql('postgres', 'ALTER SERVER s1 OPTIONS (DROP extensions)');
$remote = remote_sql($code_sql);
unlike($remote, qr/\^@/, 'char(n) ^@ stays on the coordinator without it');
is($coord->safe_psql('postgres', $code_sql), '10', 'and answers the same');
$coord->safe_psql('postgres', q{ALTER SERVER s1 OPTIONS (ADD extensions 'artrie')});
is($coord->safe_psql('postgres', $code_sql), '10', "char(n) ^@ answers with extensions 'artrie'");

# artrie's functions are not immutable: postgres_fdw never sends them.
$remote = remote_sql(q{SELECT id FROM files WHERE artrie_prefix_count('ref_k', k) > 0});
unlike($remote, qr/artrie_prefix_count/, 'artrie_prefix_count() is not sent to the shards');

# The answers of the sharded table equal those of one table on one server.
my $want = index_answers($coord, 'ref', 'seq');
is(index_answers($coord, 'files', 'seq'), $want,
	'the sharded table answers like one table on one server');

# artrie's functions run on each shard (through dblink) and on the local
# partition's index, combined: counts are summed, completions merged.
$coord->safe_psql('postgres', q{
CREATE FUNCTION sharded_prefix_count(prefix text) RETURNS bigint LANGUAGE sql AS $$
	SELECT sum(n)::bigint FROM (
		SELECT n FROM (VALUES ('s1'), ('s2')) s(srv),
			LATERAL dblink(srv, format('SELECT artrie_prefix_count(%L, %L)',
									   'files_k', prefix)) AS t(n bigint)
		UNION ALL SELECT artrie_prefix_count('files_k', prefix)) c $$;
CREATE FUNCTION sharded_complete(prefix text, max_results int) RETURNS SETOF text
LANGUAGE sql AS $$
	SELECT DISTINCT k COLLATE "C" AS k FROM (
		SELECT k FROM (VALUES ('s1'), ('s2')) s(srv),
			LATERAL dblink(srv, format('SELECT artrie_complete(%L, %L, %s)',
									   'files_k', prefix, max_results)) AS t(k text)
		UNION ALL SELECT artrie_complete('files_k', prefix, max_results)) c
	ORDER BY k LIMIT max_results $$;
});
my $funcs = q{
	SELECT string_agg(format('%s:%s:%s', p, sharded_prefix_count(p),
		(SELECT string_agg(k, ',') FROM sharded_complete(p, 12) k)), E'\n' ORDER BY p)
	FROM unnest(ARRAY['', 'w', 'w0/1', 'w1/', 'w2/3', 'long/', 'w0/07/1', 'absent']) p};
my $ref_funcs = $funcs =~ s/sharded_prefix_count\(p\)/artrie_prefix_count('ref_k', p)/r
  =~ s/sharded_complete\(p, 12\)/artrie_complete('ref_k', p, 12)/r;
my $want_funcs = $coord->safe_psql('postgres', $ref_funcs);
is($coord->safe_psql('postgres', $funcs), $want_funcs,
	'artrie_prefix_count and artrie_complete combined over the shards equal one index\'s');

# Rows written through the coordinator go to their shards.
$coord->safe_psql('postgres', q{
	INSERT INTO files SELECT g, wkey(g) FROM generate_series(20001, 21000) g;
	INSERT INTO files SELECT g, wkey(g) FROM generate_series(9001, 9500) g;
	INSERT INTO ref SELECT g, wkey(g) FROM generate_series(20001, 21000) g;
	INSERT INTO ref SELECT g, wkey(g) FROM generate_series(9001, 9500) g;
	DELETE FROM files WHERE id % 1000 = 7;
	DELETE FROM ref WHERE id % 1000 = 7;
});
# artrie_prefix_count counts deleted rows' entries until VACUUM removes them.
$coord->safe_psql('postgres', 'VACUUM ref, files_local');
$shard{$_}->safe_psql('postgres', 'VACUUM files') for sort keys %shard;
$want = index_answers($coord, 'ref', 'seq');
is(index_answers($coord, 'files', 'seq'), $want,
	'after writes through the coordinator, the sharded table answers like one table');

# A shard crashes: the queries that need it fail with an error naming its
# server, the others answer; once it has recovered, all answer as before.
crash_node($shard{s1});
my ($ret, $out, $err) = $coord->psql('postgres', q{SELECT count(*) FROM files WHERE k ^@ 'w0/1'});
isnt($ret, 0, 'a query that needs the crashed shard fails');
like($err, qr/could not connect to server "s1"|server closed the connection|connection to server .* failed/,
	'with an error about the connection to the crashed shard');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM files WHERE id >= 15001 AND k ^@ 'w1/1'}),
	$coord->safe_psql('postgres', q{SELECT count(*) FROM ref WHERE id >= 15001 AND k ^@ 'w1/1'}),
	'a query that prunes the crashed shard away answers');
$shard{s1}->start;
my $ok = 0;
for (1 .. $PostgreSQL::Test::Utils::timeout_default)
{
	($ret) = $coord->psql('postgres', 'SELECT count(*) FROM files_s1');
	if ($ret == 0) { $ok = 1; last; }
	sleep 1;
}
ok($ok, 'the coordinator reaches the recovered shard');
is(index_answers($coord, 'files', 'seq'), $want,
	'after the crash and recovery of a shard, the sharded table answers like one table');
is($coord->safe_psql('postgres', $funcs), $coord->safe_psql('postgres', $ref_funcs),
	'and the combined artrie functions equal one index\'s');
for my $name (sort keys %shard)
{
	check_index($shard{$name}, 'files', 'files_k', "$name after the crash of s1");
	verify_ok($shard{$name}, 'files_k', $name);
}
verify_ok($coord, 'files_k', 'the coordinator\'s partitioned index');

$coord->stop;
$shard{$_}->stop for sort keys %shard;
done_testing();
