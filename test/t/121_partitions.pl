# artrie indexes on partitioned tables across sessions and files: while a
# DETACH PARTITION ... CONCURRENTLY waits for an older transaction, the
# SQL functions given the partitioned index leave the partition out, as a
# query of the table does; detached, dropped and re-created partitions and
# a dropped partitioned index leave exactly the files artrie_indexes
# names; and pg_partman (when installed) makes partitions that get the
# artrie index, answer like a sequential scan and, with retention, leave
# no file behind.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('main', 'io_uring');

# Partitions of 1000 ids each; a key begins with its partition's number.
$node->safe_psql('postgres', q{
	CREATE TABLE pt (id int, k text COLLATE "C") PARTITION BY RANGE (id);
	CREATE TABLE pt_0 PARTITION OF pt FOR VALUES FROM (0) TO (1000);
	CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (1000) TO (2000);
	CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (2000) TO (3000);
	INSERT INTO pt SELECT g, 'p' || g / 1000 || '/' || g FROM generate_series(0, 2999) g;
	CREATE INDEX pt_k ON pt USING artrie (k);
});
my $probe = q{SELECT artrie_prefix_count('pt_k', 'p') || '/' || (SELECT count(k) FROM pt)
	|| '/' || (SELECT count(*) FROM artrie_complete('pt_k', 'p2/', 5))
	|| '/' || (SELECT count(*) FROM pt WHERE k ^@ 'p2/')};
is($node->safe_psql('postgres', $probe), '3000/3000/5/1000', 'the partitioned index answers over three partitions');

# DETACH ... CONCURRENTLY commits its first step, then waits for the
# transaction that still reads the table.
my $reader = bg_session($node);
bg_run($reader, "BEGIN; SELECT count(*) FROM pt;\n", qr/^3000$/m);
my $detacher = bg_session($node);
$detacher->{in} .= "ALTER TABLE pt DETACH PARTITION pt_2 CONCURRENTLY;\n";
$detacher->{h}->pump_nb;
my $pending = '';
for (1 .. $PostgreSQL::Test::Utils::timeout_default * 10)
{
	$pending = $node->safe_psql('postgres',
		q{SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = 'pt_2'::regclass});
	last if $pending eq 't';
	$detacher->{h}->pump_nb;
	select(undef, undef, undef, 0.1);
}
is($pending, 't', 'DETACH CONCURRENTLY waits with the partition marked detached');
is($node->safe_psql('postgres', $probe), '2000/2000/0/0',
	'meanwhile the functions leave the detached partition out, as queries do');
bg_run($reader, "COMMIT; SELECT 'committed';\n", qr/^committed$/m);
bg_end($reader);
bg_run($detacher, "SELECT 'detached';\n", qr/^detached$/m);
like($detacher->{out}, qr/detached/, 'DETACH CONCURRENTLY completes') or diag($detacher->{err});
bg_end($detacher);
is($node->safe_psql('postgres', q{SELECT count(*) FROM artrie_complete('pt_2_k_idx', 'p2/', 2000)}),
	'1000', 'the detached partition\'s index answers for its table');

# Files: a dropped partition, a new one, the dropped partitioned index.
$node->safe_psql('postgres', q{
	DROP TABLE pt_1;
	CREATE TABLE pt_3 PARTITION OF pt FOR VALUES FROM (3000) TO (4000);
	INSERT INTO pt SELECT g, 'p' || g / 1000 || '/' || g FROM generate_series(3000, 3999) g;
});
is($node->safe_psql('postgres', $probe), '2000/2000/0/0', 'after DROP of a partition and a new one');
is($node->safe_psql('postgres', q{SELECT string_agg("table"::text, ',' ORDER BY "table"::text) FROM artrie_indexes}),
	'pt_0,pt_2,pt_3', 'artrie_indexes lists the partitions\' indexes and the detached one');
files_ok($node, 'DETACH, DROP of a partition, a new partition');

# ATTACH PARTITION of a table with its own artrie index (attached with its
# file) and of one without (a new index is built).
$node->safe_psql('postgres', q{
	CREATE TABLE pt_4 (id int, k text COLLATE "C");
	INSERT INTO pt_4 SELECT g, 'p' || g / 1000 || '/' || g FROM generate_series(4000, 4999) g;
	CREATE INDEX pt_4_k ON pt_4 USING artrie (k);
	CREATE TABLE pt_5 (id int, k text COLLATE "C");
	INSERT INTO pt_5 SELECT g, 'p' || g / 1000 || '/' || g FROM generate_series(5000, 5999) g;
	ALTER TABLE pt ATTACH PARTITION pt_4 FOR VALUES FROM (4000) TO (5000);
	ALTER TABLE pt ATTACH PARTITION pt_5 FOR VALUES FROM (5000) TO (6000);
});
is($node->safe_psql('postgres', $probe), '4000/4000/0/0', 'after ATTACH of two partitions');
files_ok($node, 'ATTACH PARTITION');
$node->safe_psql('postgres', 'DROP INDEX pt_k');
is($node->safe_psql('postgres', 'SELECT count(*) FROM artrie_indexes'), '1', 'DROP INDEX drops the partitions\' indexes');
files_ok($node, 'DROP INDEX of the partitioned index');
$node->safe_psql('postgres', 'DROP TABLE pt, pt_2');
is($node->safe_psql('postgres', 'SELECT count(*) FROM artrie_indexes'), '0', 'DROP TABLE drops every index');
files_ok($node, 'DROP TABLE');

SKIP:
{
	skip 'pg_partman is not installed (Debian: postgresql-15-partman)', 1
	  unless $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_partman'}) eq '1';

	# Native id partitioning by pg_partman, 1000 ids a partition, two made
	# ahead of the highest id by each maintenance run; the artrie index is
	# on the parent before any child exists.
	make_wtable($node, 'ref', 'ref_k', 0, 2999);
	$node->safe_psql('postgres', q{
		CREATE SCHEMA partman;
		CREATE EXTENSION pg_partman SCHEMA partman;
		CREATE TABLE events (id int NOT NULL, k text COLLATE "C") PARTITION BY RANGE (id);
		CREATE INDEX events_k ON events USING artrie (k);
		SELECT partman.create_parent('public.events', 'id', 'native', '1000', p_premake := 2);
		INSERT INTO events SELECT g, wkey(g) FROM generate_series(0, 2999) g;
		SELECT partman.run_maintenance('public.events');
		INSERT INTO events SELECT g, wkey(g) FROM generate_series(3000, 4999) g;
		SELECT partman.run_maintenance('public.events');
		INSERT INTO events SELECT g, wkey(g) FROM generate_series(5000, 6999) g;
		INSERT INTO ref SELECT g, wkey(g) FROM generate_series(3000, 6999) g;
		ANALYZE events, ref;
	});
	my $children = $node->safe_psql('postgres',
		q{SELECT count(*) FROM partman.show_partitions('public.events')});
	cmp_ok($children, '>=', 7, "pg_partman made $children partitions");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM pg_partition_tree('events') t
		WHERE t.isleaf AND NOT EXISTS (
			SELECT FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			JOIN pg_inherits h ON h.inhrelid = c.oid AND h.inhparent = 'events_k'::regclass
			WHERE i.indrelid = t.relid
			  AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'artrie'))}),
		'0', 'every partition pg_partman made has the artrie index, attached to the parent\'s');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM events_default}), '0',
		'no row went to the default partition');
	is(index_answers($node, 'events', 'index'), index_answers($node, 'events', 'seq'),
		'the partitions\' indexes answer like a sequential scan');
	is(index_answers($node, 'events', 'seq'), index_answers($node, 'ref', 'seq'),
		'and like one table');
	my $funcs = q{SELECT string_agg(format('%s:%s:%s', p, artrie_prefix_count('IDX', p),
		(SELECT string_agg(k, ',') FROM artrie_complete('IDX', p, 7) k)), E'\n' ORDER BY p)
		FROM unnest(ARRAY['', 'w0/1', 'w0/39/', 'long/', 'absent']) p};
	is($node->safe_psql('postgres', $funcs =~ s/IDX/events_k/gr),
		$node->safe_psql('postgres', $funcs =~ s/IDX/ref_k/gr),
		'the functions given the partitioned index answer like one index');
	verify_ok($node, 'events_k', 'pg_partman');

	# Retention drops the oldest partitions: their files go.
	$node->safe_psql('postgres', q{
		UPDATE partman.part_config SET retention = '3000', retention_keep_table = false
		WHERE parent_table = 'public.events';
		SELECT partman.run_maintenance('public.events');
	});
	is($node->safe_psql('postgres', q{SELECT count(*) FROM events WHERE id < 2000}), '0',
		'retention dropped the oldest partitions');
	is($node->safe_psql('postgres', q{SELECT artrie_prefix_count('events_k', '')}),
		$node->safe_psql('postgres', q{SELECT count(k) FROM events}),
		'the partitioned index counts what is left');
	files_ok($node, 'pg_partman retention');
}

$node->stop;
done_testing();
