-- The search functions on multicolumn indexes: artrie_complete,
-- artrie_prefix_count and artrie_prefixes_of take the leading columns'
-- values (leading_values => ARRAY[...], as text in column order) and answer for
-- the last column below them, as queries on the table do; calls that do
-- not fit the index's columns are refused.
\ir setup.psql

BEGIN;
SELECT plan(22);

CREATE TABLE mf (tenant int, path text);
INSERT INTO mf SELECT t, 'dir' || (i % 5) || '/f' || i
  FROM generate_series(1, 50) t, generate_series(1, 40) i;
INSERT INTO mf VALUES (NULL, 'dir1/null'), (7, NULL), (7, 'dir1/f1'), (-7, 'dir1/neg');
CREATE INDEX mf_tp ON mf USING artrie (tenant, path);

SELECT results_eq(
	$$SELECT artrie_complete('mf_tp', 'dir1/', 5, leading_values => '{7}')$$,
	$$SELECT path FROM mf WHERE tenant = 7 AND path ^@ 'dir1/' GROUP BY path ORDER BY path COLLATE "C" LIMIT 5$$,
	'artrie_complete below tenant 7 gives its first distinct paths under the prefix');
SELECT results_eq(
	$$SELECT artrie_complete('mf_tp', '', 1000, ARRAY['-7'])$$,
	$$SELECT path FROM mf WHERE tenant = -7 AND path IS NOT NULL GROUP BY path ORDER BY path COLLATE "C"$$,
	'a negative tenant, every path');
SELECT results_eq(
	$$SELECT artrie_complete('mf_tp', 'dir', 1000, ARRAY[NULL])$$,
	$$VALUES ('dir1/null'::text)$$,
	'a NULL leading value selects the rows whose tenant is NULL');
SELECT is(artrie_prefix_count('mf_tp', 'dir1/', leading_values => '{7}'),
	(SELECT count(*) FROM mf WHERE tenant = 7 AND path ^@ 'dir1/'),
	'artrie_prefix_count below tenant 7 counts its entries under the prefix');
SELECT is(artrie_prefix_count('mf_tp', '', leading_values => '{51}'), 0::bigint,
	'a tenant without rows counts none');

-- Only visible rows are completed.
DELETE FROM mf WHERE tenant = 8 AND path ^@ 'dir2/';
SELECT results_eq(
	$$SELECT artrie_complete('mf_tp', 'dir', 1000, ARRAY['8'])$$,
	$$SELECT path FROM mf WHERE tenant = 8 AND path IS NOT NULL GROUP BY path ORDER BY path COLLATE "C"$$,
	'deleted rows are not completed');

-- Longest-prefix matches below one tenant.
CREATE TABLE mr (tenant int, route text);
INSERT INTO mr VALUES (1, '/a'), (1, '/a/b'), (1, '/a/b/c'), (2, '/a/b'), (2, '/x');
CREATE INDEX mr_tr ON mr USING artrie (tenant, route);
SELECT results_eq(
	$$SELECT artrie_prefixes_of('mr_tr', '/a/b/c/d', leading_values => '{1}')$$,
	$$VALUES ('/a/b/c'::text), ('/a/b'), ('/a')$$,
	'artrie_prefixes_of below tenant 1, longest first');
SELECT results_eq(
	$$SELECT artrie_prefixes_of('mr_tr', '/a/b/c/d', leading_values => '{2}')$$,
	$$VALUES ('/a/b'::text)$$,
	'artrie_prefixes_of below tenant 2');

-- Text, uuid and bigint leading columns.
CREATE TABLE mo (bucket text, key text);
INSERT INTO mo VALUES ('b1', 'k1'), ('b1', 'k2'), ('b10', 'k3'), (E'b1\x01', 'k4'), ('b', 'k5');
CREATE INDEX mo_bk ON mo USING artrie (bucket, key);
SELECT results_eq(
	$$SELECT artrie_complete('mo_bk', 'k', 10, leading_values => '{b1}')$$,
	$$VALUES ('k1'::text), ('k2')$$,
	'a text leading column: only its own value, not the values it begins');
CREATE TABLE mu (u uuid, n bigint, k varchar);
INSERT INTO mu VALUES (md5('a')::uuid, 5, 'x1'), (md5('a')::uuid, 5, 'x2'),
  (md5('a')::uuid, 6, 'x3'), (md5('b')::uuid, 5, 'x4');
CREATE INDEX mu_unk ON mu USING artrie (u, n, k);
SELECT results_eq(
	$$SELECT artrie_complete('mu_unk', 'x', 10, ARRAY[md5('a'), '5'])$$,
	$$VALUES ('x1'::text), ('x2')$$,
	'uuid and bigint leading columns');
SELECT is(artrie_prefix_count('mu_unk', 'x', ARRAY[md5('a'), '6']), 1::bigint,
	'artrie_prefix_count with two leading columns');

-- A partitioned index: each partition's index answers below the same
-- leading values, merged.
CREATE TABLE mp (tenant int, path text) PARTITION BY HASH (path);
CREATE TABLE mp0 PARTITION OF mp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE mp1 PARTITION OF mp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO mp SELECT tenant, path FROM mf WHERE path IS NOT NULL;
CREATE INDEX mp_tp ON mp USING artrie (tenant, path);
SELECT results_eq(
	$$SELECT artrie_complete('mp_tp', 'dir2/', 7, ARRAY['9'])$$,
	$$SELECT path FROM mp WHERE tenant = 9 AND path ^@ 'dir2/' GROUP BY path ORDER BY path COLLATE "C" LIMIT 7$$,
	'a partitioned multicolumn index: the first distinct paths of all partitions below tenant 9');
SELECT is(artrie_prefix_count('mp_tp', 'dir2/', ARRAY['9']),
	(SELECT count(*) FROM mp WHERE tenant = 9 AND path ^@ 'dir2/'),
	'a partitioned multicolumn index: the counts of all partitions summed');

-- Calls that do not fit.
SELECT throws_ok($$SELECT artrie_complete('mf_tp', 'dir1/', 5)$$, '0A000',
	'artrie_complete needs the values of the leading columns of multicolumn artrie index "mf_tp"',
	'a multicolumn index needs its leading values');
SELECT throws_ok($$SELECT artrie_prefix_count('mf_tp', 'dir1/')$$, '0A000', NULL,
	'artrie_prefix_count too');
SELECT throws_ok($$SELECT artrie_complete('mu_unk', 'x', 10, ARRAY['5'])$$, '22023',
	'artrie index "mu_unk" has 2 leading columns, but 1 leading values were given',
	'the number of leading values must match');
SELECT throws_ok($$SELECT artrie_complete('mf_tp', 'x', 10, ARRAY['seven'])$$, '22P02', NULL,
	'a leading value is read by its column type''s input function');
SELECT throws_ok($$SELECT artrie_fuzzy('mf_tp', 'dir1', 1)$$, '0A000', NULL,
	'artrie_fuzzy refuses a multicolumn index');
SELECT throws_ok($$SELECT artrie_fuzzy_complete('mf_tp', 'dir1', 1)$$, '0A000', NULL,
	'artrie_fuzzy_complete refuses a multicolumn index');
CREATE TABLE ms (k text);
CREATE INDEX ms_k ON ms USING artrie (k);
SELECT throws_ok($$SELECT artrie_complete('ms_k', 'x', 10, ARRAY['1'])$$, '22023', NULL,
	'a single-column index takes no leading values');
CREATE INDEX mf_pt ON mf USING artrie (path, tenant);
SELECT throws_ok($$SELECT artrie_complete('mf_pt', 'x', 10, ARRAY['dir1/f1'])$$, '0A000',
	'the last column of artrie index "mf_pt" is not a string',
	'the last column must be a string');
SELECT lives_ok($$SELECT artrie_verify('mf_pt', true)$$,
	'an index whose last column is an integer is built and verifies');

SELECT * FROM finish();
ROLLBACK;
