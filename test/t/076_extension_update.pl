# ALTER EXTENSION artrie UPDATE from the released 0.1.0: indexes built
# under 0.1.0 answer like a sequential scan after the update, take writes
# and survive a crash; and the updated extension has exactly the objects
# (and definitions, comments, privileges) of a fresh CREATE EXTENSION.  A
# fresh one runs the same scripts (the 0.1.0 install script, then the
# updates), so this holds by construction; the check is there for an
# install script of a later version, should one be added.  From 0.2.0
# too: an index built under 0.2.0 takes LIKE as its index condition after
# the update (strategy 7 of 0.3.0); and from 0.3.0, char(n) and name
# indexes take theirs (strategy 7 of their families in 0.4.0).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# One line per object of the extension: its description, its definition
# and its comment; for operator families also their operators and support
# functions, which belong to the family rather than to the extension.
my $objects_sql = q{
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'artrie'),
members AS (
	SELECT classid, objid, objsubid FROM pg_depend
	WHERE refclassid = 'pg_extension'::regclass
		AND refobjid = (SELECT oid FROM ext) AND deptype = 'e'
),
family_members AS (
	SELECT 'pg_amop'::regclass, ao.oid, 0 FROM pg_amop ao
	JOIN members m ON m.classid = 'pg_opfamily'::regclass AND m.objid = ao.amopfamily
	UNION ALL
	SELECT 'pg_amproc'::regclass, ap.oid, 0 FROM pg_amproc ap
	JOIN members m ON m.classid = 'pg_opfamily'::regclass AND m.objid = ap.amprocfamily
)
SELECT string_agg(line, E'\n' ORDER BY line) FROM (
	SELECT pg_describe_object(classid, objid, objsubid)
		|| CASE classid
			WHEN 'pg_proc'::regclass THEN
				(SELECT ' ' || CASE WHEN p.prokind = 'f'
						THEN pg_get_functiondef(p.oid) ELSE p.prokind::text END
					|| ' acl=' || coalesce(p.proacl::text, '-')
				 FROM pg_proc p WHERE p.oid = objid)
			WHEN 'pg_class'::regclass THEN
				(SELECT ' ' || coalesce(pg_get_viewdef(c.oid), c.relkind::text)
					|| ' acl=' || coalesce(c.relacl::text, '-')
				 FROM pg_class c WHERE c.oid = objid)
			WHEN 'pg_operator'::regclass THEN
				(SELECT ' ' || o.oprcode::text || ' ' || o.oprrest::text
					|| ' ' || o.oprjoin::text
				 FROM pg_operator o WHERE o.oid = objid)
			WHEN 'pg_opclass'::regclass THEN
				(SELECT ' default=' || c.opcdefault || ' keytype='
					|| c.opckeytype::regtype::text
				 FROM pg_opclass c WHERE c.oid = objid)
			ELSE '' END
		|| ' comment=' || coalesce(obj_description(objid, classid::regclass::text), '-')
		AS line
	FROM (SELECT * FROM members UNION ALL SELECT * FROM family_members) o
) s
};

my $node = artrie_node('update', 'io_uring');

$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('postgres', 'CREATE DATABASE old2');
$node->safe_psql('postgres', 'CREATE DATABASE old3');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('old', q{CREATE EXTENSION artrie VERSION '0.1.0'});
$node->safe_psql('old2', q{CREATE EXTENSION artrie VERSION '0.2.0'});
$node->safe_psql('old3', q{CREATE EXTENSION artrie VERSION '0.3.0'});
$node->safe_psql('fresh', 'CREATE EXTENSION artrie');

my $fresh_version = $node->safe_psql('fresh',
	q{SELECT extversion FROM pg_extension WHERE extname = 'artrie'});
my $default = $node->safe_psql('fresh',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'artrie'});
is($fresh_version, $default, 'CREATE EXTENSION installs the default version');
isnt($default, '0.1.0', 'the default version is newer than 0.1.0');

# Indexes built under 0.1.0, with writes before the update.
make_wtable($node, 'ut', 'ut_k', 1, 20000, db => 'old');
$node->safe_psql('old', q{
	CREATE UNIQUE INDEX ut_id ON ut USING artrie ((id::text || '/' || k));
	DELETE FROM ut WHERE id % 7 = 0;
	UPDATE ut SET k = k || '/u' WHERE id % 11 = 0;
});
my $before = index_answers($node, 'ut', 'seq', db => 'old');

$node->safe_psql('old', 'ALTER EXTENSION artrie UPDATE');
is($node->safe_psql('old',
		q{SELECT extversion FROM pg_extension WHERE extname = 'artrie'}),
	$default, 'ALTER EXTENSION artrie UPDATE reaches the default version');

my $updated = $node->safe_psql('old', $objects_sql);
my $fresh = $node->safe_psql('fresh', $objects_sql);
like($fresh, qr/artrie_complete/, 'the catalog listing names the functions');
is($updated, $fresh,
	'the updated extension has the objects and definitions of a fresh one');

# The indexes built under 0.1.0 keep answering and taking writes.
check_index($node, 'ut', 'ut_k', 'after the update', db => 'old', want => $before);
verify_ok($node, $_, 'after the update', db => 'old') for ('ut_k', 'ut_id');
is($node->safe_psql('old', q{
	SELECT count(*) FROM ut WHERE k IN
		(SELECT artrie_complete('ut_k', 'w0/1', 5))}), '5',
	'artrie_complete answers over an index built under 0.1.0');
is($node->safe_psql('old', q{SELECT count(*) FROM artrie_indexes}), '2',
	'artrie_indexes lists the indexes built under 0.1.0');
$node->safe_psql('old', q{
	INSERT INTO ut SELECT g, wkey(g) FROM generate_series(20001, 21000) g;
	DELETE FROM ut WHERE id % 13 = 0;
	VACUUM ut;
});
my $after = index_answers($node, 'ut', 'seq', db => 'old');
crash_node($node);
$node->start;
check_index($node, 'ut', 'ut_k', 'writes after the update, then a crash',
	db => 'old', want => $after);
verify_ok($node, $_, 'after the crash', db => 'old') for ('ut_k', 'ut_id');

# From 0.2.0: the LIKE that was "^@" and a filter becomes the index
# condition itself, on the index built before the update.
make_wtable($node, 'vt', 'vt_k', 1, 20000, db => 'old2');
$node->safe_psql('old2', 'ANALYZE vt');
my $like_plan = q{SET enable_seqscan = off; SET enable_indexscan = off;
	EXPLAIN (COSTS OFF) SELECT count(id) FROM vt WHERE k LIKE 'w0/1%'};
my $like_rows = q{SELECT count(*) || '/' || coalesce(sum(id), 0) FROM vt
	WHERE k LIKE 'w0/1%' OR k LIKE 'w1_/2_%'};
like($node->safe_psql('old2', $like_plan), qr/Filter: \(k ~~ 'w0\/1%'::text\)/,
	'under 0.2.0 a bitmap heap scan keeps the LIKE as a filter');
my $like_before = $node->safe_psql('old2',
	"SET enable_bitmapscan = off; SET enable_indexscan = off; $like_rows");
$node->safe_psql('old2', 'ALTER EXTENSION artrie UPDATE');
is($node->safe_psql('old2', $objects_sql), $fresh,
	'updated from 0.2.0, the extension has the objects of a fresh one');
my $plan = $node->safe_psql('old2', $like_plan);
ok($plan =~ /Index Cond: \(k ~~ 'w0\/1%'::text\)/ && $plan !~ /Filter/,
	'after the update the LIKE is the index condition, with no filter')
  or diag($plan);
like($node->safe_psql('old2', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $like_rows"),
	qr/Bitmap Index Scan on vt_k/, 'the LIKEs use the index built under 0.2.0');
is($node->safe_psql('old2', "SET enable_seqscan = off; $like_rows"),
	$like_before, 'and answer as a sequential scan did before the update');
check_index($node, 'vt', 'vt_k', 'updated from 0.2.0', db => 'old2');

# From 0.3.0: a char(n) and a name LIKE, "^@" and a filter under 0.3.0
# (the planner hook), become the index condition itself on the indexes
# built before the update, and answer as a sequential scan did.
$node->safe_psql('old3', q{
	CREATE TABLE ct (id int, b char(8), n name);
	INSERT INTO ct SELECT g, 'c' || (g % 5000), 'n' || (g % 5000)
		FROM generate_series(1, 20000) g;
	INSERT INTO ct VALUES (20001, 'c1 x', 'n1 x'), (20002, '', '');
	CREATE INDEX ct_b ON ct USING artrie (b);
	CREATE INDEX ct_n ON ct USING artrie (n);
	ANALYZE ct;
});
my %ct_plan = map {
	$_ => qq{SET enable_seqscan = off; SET enable_indexscan = off;
		EXPLAIN (COSTS OFF) SELECT count(id) FROM ct WHERE $_ LIKE 'c1%'}
} ('b', 'n');
my @ct_preds = map {
	my $c = $_;
	map { "$c LIKE '$_'" } ('c1%', 'n1%', 'c12', 'n12', 'c1 %', 'n1 %',
		'c1_', 'n1_', '', '%9')
} ('b', 'n');
my $ct_rows = 'SELECT r FROM (' . join(' UNION ALL ', map {
	"SELECT $_ AS i, count(*) || '/' || coalesce(sum(id), 0) AS r
	 FROM ct WHERE $ct_preds[$_]"
} 0 .. $#ct_preds) . ') s ORDER BY i';
like($node->safe_psql('old3', $ct_plan{$_}), qr/Filter: \($_ ~~ 'c1%'::text\)/,
	"under 0.3.0 a bitmap heap scan keeps the $_ LIKE as a filter")
  for ('b', 'n');
my $ct_before = $node->safe_psql('old3',
	"SET enable_bitmapscan = off; SET enable_indexscan = off; $ct_rows");
$node->safe_psql('old3', 'ALTER EXTENSION artrie UPDATE');
is($node->safe_psql('old3', $objects_sql), $fresh,
	'updated from 0.3.0, the extension has the objects of a fresh one');
for my $c ('b', 'n')
{
	my $p = $node->safe_psql('old3', $ct_plan{$c});
	ok($p =~ /Index Cond: \($c ~~ 'c1%'::text\)/ && $p !~ /Filter/,
		"after the update the $c LIKE is the index condition, with no filter")
	  or diag($p);
}
for my $mode ('enable_indexscan', 'enable_bitmapscan')
{
	my $off = $mode eq 'enable_indexscan' ? 'enable_bitmapscan' : 'enable_indexscan';
	is($node->safe_psql('old3', "SET enable_seqscan = off; SET $off = off; $ct_rows"),
		$ct_before,
		"the char(n) and name LIKEs ($mode) answer as a sequential scan did before the update");
}
verify_ok($node, $_, 'updated from 0.3.0', db => 'old3') for ('ct_b', 'ct_n');

$node->stop;
done_testing();
