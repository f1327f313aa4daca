-- Multicolumn indexes: (tenant int, path text) and (bucket text, key
-- text) and (uuid, bigint, smallint, varchar) answer "=" on the leading
-- columns with "=", "^@", LIKE 'abc%', ranges, IN and IS NULL on the
-- next, in plain, bitmap, ordered and index-only scans, like a
-- sequential scan; quals on a later column alone are rechecked.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
SET jit = off;
\pset null '(null)'

\ir sql/include/oracle.sql

-- ordered(query): the rows of a query with ORDER BY as an index (or
-- index-only) scan, equal to a sequential scan's, and whether the plan
-- reads the index in order (no Sort).
CREATE FUNCTION ordered(q text)
RETURNS TABLE (uses_index bool, sorts bool, same_rows bool, nrows int)
LANGUAGE plpgsql AS $$
DECLARE
  ref text[];
  got text[];
  plan text := '';
  line text;
BEGIN
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  PERFORM set_config('enable_seqscan', 'on', true);
  EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO ref;
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_indexonlyscan', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO got;
  uses_index := plan LIKE '%Index%Scan%';
  sorts := plan LIKE '%Sort%';
  same_rows := got IS NOT DISTINCT FROM ref;
  nrows := coalesce(array_length(ref, 1), 0);
  RETURN NEXT;
END;
$$;

CREATE TABLE f (id int, tenant int, path text COLLATE "C");
INSERT INTO f SELECT g, g % 10, 'dir' || (g % 7) || '/file' || g
  FROM generate_series(1, 3000) g;
INSERT INTO f VALUES (5001, NULL, 'x'), (5002, 3, NULL), (5003, NULL, NULL),
  (5004, 3, ''), (5005, 3, E'a\x01b'), (5006, 3, E'a\x02b'), (5007, 3, 'a'),
  (5008, -5, 'neg'), (5009, 2147483647, 'max'), (5010, -2147483648, 'min'),
  (5011, 0, 'dir2/'), (5012, 3, E'dir2/\x01'), (5013, 3, 'dir2/file2');
CREATE INDEX f_tp ON f USING artrie (tenant, path);

CREATE TABLE g (id int, bucket text, key text);
INSERT INTO g SELECT i, 'b' || (i % 5), 'k' || i FROM generate_series(1, 3000) i;
INSERT INTO g VALUES (4001, NULL, 'k1'), (4002, 'b1', NULL), (4003, 'b1', ''),
  (4004, E'b1\x01', 'z'), (4005, E'b1\x02', 'z'), (4006, 'b', 'z'),
  (4007, 'b1', 'k1'), (4008, '', 'k1');
CREATE INDEX g_bk ON g USING artrie (bucket, key);

CREATE TABLE h (id int, u uuid, n bigint, s smallint, k varchar(20) COLLATE "C");
INSERT INTO h SELECT i, md5((i % 3)::text)::uuid, (i % 4) - 2, i % 7,
  'k' || i FROM generate_series(1, 3000) i;
INSERT INTO h VALUES (4001, NULL, 1, 1, 'k1'), (4002, md5('1')::uuid, NULL, 1, 'k1'),
  (4003, md5('1')::uuid, 1, NULL, 'k1'),
  (4004, md5('1')::uuid, 9223372036854775807, 1, 'k1'),
  (4005, md5('1')::uuid, -9223372036854775808, 1, 'k1');
CREATE INDEX h_unsk ON h USING artrie (u, n, s, k);
VACUUM ANALYZE f;
VACUUM ANALYZE g;
VACUUM ANALYZE h;

-- The plans: the leading "=" and the last column's qual in one index
-- condition.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM f WHERE tenant = 3 AND path ^@ 'dir2/';
EXPLAIN (COSTS OFF) SELECT id FROM f WHERE tenant = 3 AND path LIKE 'dir2/%';
EXPLAIN (COSTS OFF) SELECT bucket, key FROM g WHERE bucket = 'b1' AND key LIKE 'k1%';
EXPLAIN (COSTS OFF) SELECT tenant, path FROM f WHERE tenant = 3 ORDER BY path;
EXPLAIN (COSTS OFF) SELECT id FROM h WHERE u = md5('1')::uuid AND n = 1 AND s = 1 AND k ^@ 'k1';
RESET enable_seqscan;
-- A qual on the last column alone is costed as a read of the whole index.
EXPLAIN (COSTS OFF) SELECT id FROM f WHERE path = 'dir2/file2';

-- Each predicate as an index scan and a bitmap scan, like a sequential scan.
SELECT p, o.* FROM unnest(ARRAY[
  $$tenant = 3 AND path = 'dir2/file2'$$,
  $$tenant = 3 AND path ^@ 'dir2/'$$,
  $$tenant = 3 AND path LIKE 'dir2/%'$$,
  $$tenant = 3 AND path LIKE 'dir2/file1_%'$$,
  $$tenant = 3 AND path >= 'dir2' AND path < 'dir3'$$,
  $$tenant = 3 AND path > 'dir5/file2000'$$,
  $$tenant = 3 AND path <= 'a'$$,
  $$tenant = 3 AND path < 'a'$$,
  $$tenant = 3 AND path = ANY(ARRAY['a', E'a\x01b', 'dir2/file2', 'none'])$$,
  $$tenant = 3 AND path ^@ ANY(ARRAY['dir2/', 'dir3/file1', 'a'])$$,
  $$tenant IN (1, 3) AND path ^@ 'dir2/file1'$$,
  $$tenant = 3$$,
  $$tenant >= 8$$,
  $$tenant < 0$$,
  $$tenant = -5 AND path = 'neg'$$,
  $$tenant = 2147483647$$,
  $$tenant = -2147483648$$,
  $$tenant = 3::bigint AND path ^@ 'dir1'$$,
  $$tenant IS NULL$$,
  $$tenant IS NULL AND path = 'x'$$,
  $$tenant = 3 AND path IS NULL$$,
  $$tenant = 3 AND path IS NOT NULL AND path < 'b'$$,
  $$tenant IS NOT NULL AND path = 'x'$$,
  $$path = 'dir2/file2'$$,
  $$path ^@ 'dir2/file2'$$,
  $$tenant = 3 AND tenant = 4$$,
  $$tenant = 3 AND path = 'a' AND path = 'b'$$,
  $$tenant = NULL$$
]) p, oracle('f', p) o;

-- Strings ahead of the last column: escaped bytes, prefixes, ranges.
-- g's collation (C.UTF-8) does not order like the bytes: ranges on its
-- columns are rechecked, "=" and "^@" bound the scan.
SELECT p, o.* FROM unnest(ARRAY[
  $$bucket = 'b1' AND key = 'k1'$$,
  $$bucket = 'b1' AND key ^@ 'k1'$$,
  $$bucket = 'b1' AND key LIKE 'k1%'$$,
  $$bucket = 'b1' AND key > 'k2'$$,
  $$bucket ^@ 'b1'$$,
  $$bucket LIKE 'b1%'$$,
  $$bucket = E'b1\x01'$$,
  $$bucket = E'b1\x02' AND key = 'z'$$,
  $$bucket = 'b'$$,
  $$bucket = ''$$,
  $$bucket >= 'b1' AND bucket < 'b2'$$,
  $$bucket IN ('b', 'b1', '') AND key = 'k1'$$,
  $$bucket = 'b1' AND key IS NULL$$,
  $$bucket IS NULL$$,
  $$key = 'k1'$$
]) p, oracle('g', p) o;

-- The same under "C", where ranges on the leading string column bound
-- the scan: the escaped bytes 0x01 and 0x02 and the end of the string
-- keep byte order.
CREATE TABLE gc (id int, bucket text COLLATE "C", key text COLLATE "C");
INSERT INTO gc SELECT * FROM g;
INSERT INTO gc VALUES (4101, E'b1\x01\x02', 'y'), (4102, E'b1\x03', 'y'),
  (4103, E'b0\x7f', 'y'), (4104, E'b\x01', 'y'), (4105, E'b\x02\x01', 'y');
CREATE INDEX gc_bk ON gc USING artrie (bucket, key);
VACUUM ANALYZE gc;
SELECT p, o.* FROM unnest(ARRAY[
  $$bucket >= 'b1' AND bucket < 'b2'$$,
  $$bucket > 'b1' AND bucket < 'b2'$$,
  $$bucket <= 'b1'$$,
  $$bucket < 'b1'$$,
  $$bucket > E'b1\x01'$$,
  $$bucket >= E'b1\x02' AND bucket <= E'b1\x03'$$,
  $$bucket < E'b\x02'$$,
  $$bucket ^@ E'b1\x01'$$,
  $$bucket ^@ E'b\x02'$$,
  $$bucket = E'b1\x01\x02' AND key = 'y'$$
]) p, oracle('gc', p) o;
SELECT q, o.* FROM unnest(ARRAY[
  $$SELECT bucket, key FROM gc ORDER BY bucket, key$$,
  $$SELECT bucket, key FROM gc WHERE bucket > 'b' AND bucket <= 'b1' ORDER BY bucket DESC, key DESC$$
]) q, ordered(q) o;

-- uuid, bigint (with an int4 constant), smallint and varchar.
SELECT p, o.* FROM unnest(ARRAY[
  $$u = md5('1')::uuid AND n = 1 AND s = 1 AND k ^@ 'k1'$$,
  $$u = md5('1')::uuid AND n = 1$$,
  $$u = md5('1')::uuid AND n >= 0$$,
  $$u = md5('1')::uuid AND n = 9223372036854775807$$,
  $$u = md5('1')::uuid AND n = -9223372036854775808$$,
  $$u = md5('1')::uuid AND n IS NULL$$,
  $$u = md5('1')::uuid AND n = 1 AND s IS NULL$$,
  $$u = md5('1')::uuid AND n = 1 AND s = 1::bigint AND k = 'k1'$$,
  $$u > md5('1')::uuid$$,
  $$u IS NULL$$,
  $$u = md5('2')::uuid AND n = ANY(ARRAY[0, 1]) AND k ^@ 'k2'$$
]) p, oracle('h', p) o;

-- Ordered scans, both directions, and index-only scans.
SELECT q, o.* FROM unnest(ARRAY[
  $$SELECT tenant, path FROM f WHERE tenant = 3 ORDER BY path LIMIT 20$$,
  $$SELECT tenant, path FROM f WHERE tenant = 3 ORDER BY path DESC LIMIT 20$$,
  $$SELECT tenant, path FROM f ORDER BY tenant, path LIMIT 30$$,
  $$SELECT tenant, path FROM f ORDER BY tenant DESC, path DESC LIMIT 30$$,
  $$SELECT tenant, path FROM f WHERE tenant >= 2 AND tenant <= 3 ORDER BY tenant, path$$,
  $$SELECT tenant, path FROM f WHERE tenant IN (1, 3) AND path ^@ 'dir2/file1' ORDER BY tenant, path$$,
  $$SELECT id, tenant, path FROM f WHERE tenant = 3 AND path ^@ 'dir' ORDER BY path LIMIT 10$$,
  $$SELECT u, n, s, k FROM h WHERE u = md5('1')::uuid ORDER BY u, n, s, k$$,
  $$SELECT u, n, s, k FROM h ORDER BY u DESC, n DESC, s DESC, k DESC LIMIT 50$$
]) q, ordered(q) o;

-- NULLS FIRST on a column, and char(n), which index-only scans do not
-- return (its key lost the padding).
CREATE TABLE nf (id int, t int, c char(4) COLLATE "C", k text COLLATE "C");
INSERT INTO nf SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE 'c' || (i % 3) END, 'k' || i
  FROM generate_series(1, 2000) i;
CREATE INDEX nf_tk ON nf USING artrie (t NULLS FIRST, k);
CREATE INDEX nf_ck ON nf USING artrie (c, k);
VACUUM ANALYZE nf;
SELECT q, o.* FROM unnest(ARRAY[
  $$SELECT t, k FROM nf ORDER BY t NULLS FIRST, k LIMIT 40$$,
  $$SELECT t, k FROM nf ORDER BY t DESC NULLS LAST, k DESC LIMIT 40$$,
  $$SELECT t, k FROM nf WHERE t IS NULL ORDER BY t NULLS FIRST, k LIMIT 10$$,
  $$SELECT c, k FROM nf WHERE c = 'c1' ORDER BY c, k LIMIT 10$$
]) q, ordered(q) o;
SELECT p, o.* FROM unnest(ARRAY[
  $$t IS NULL AND k ^@ 'k1'$$,
  $$t = 2 AND k ^@ 'k1'$$,
  $$c = 'c1' AND k ^@ 'k1'$$,
  $$c = 'c1  ' AND k = 'k1'$$,
  $$c IS NULL AND k ^@ 'k2'$$
]) p, oracle('nf', p) o;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT c, k FROM nf WHERE c = 'c1' AND k ^@ 'k1';
RESET enable_seqscan;
DROP TABLE nf;

-- Writes after the build: inserts, deletes, VACUUM; then the checks again.
INSERT INTO f SELECT g, g % 10, 'new' || g FROM generate_series(6000, 6500) g;
INSERT INTO f VALUES (7001, 3, NULL), (7002, NULL, 'x');
DELETE FROM f WHERE id % 3 = 0;
VACUUM f;
SELECT p, o.* FROM unnest(ARRAY[
  $$tenant = 3 AND path ^@ 'new6'$$,
  $$tenant = 3 AND path IS NULL$$,
  $$tenant IS NULL$$
]) p, oracle('f', p) o;
SELECT artrie_verify('f_tp', true), artrie_verify('g_bk', true),
  artrie_verify('h_unsk', true);

-- CREATE INDEX CONCURRENTLY and REINDEX build the same index.
DROP INDEX f_tp;
CREATE INDEX CONCURRENTLY f_tp ON f USING artrie (tenant, path);
INSERT INTO f VALUES (7003, 3, 'new6/after');
REINDEX INDEX f_tp;
SELECT p, o.* FROM unnest(ARRAY[
  $$tenant = 3 AND path ^@ 'new6'$$,
  $$tenant IS NULL$$
]) p, oracle('f', p) o;
SELECT artrie_verify('f_tp', true);

-- Column properties: every column orderable when every string column's
-- collation orders like its bytes (f: "C"), none otherwise (g: C.UTF-8).
SELECT i.relname, c.n, p,
  pg_index_column_has_property(i.oid, c.n, p)
FROM pg_class i, generate_series(1, 2) c(n),
  unnest(ARRAY['orderable', 'asc', 'nulls_last']) p
WHERE i.relname IN ('f_tp', 'g_bk') ORDER BY 1, 2, 3;

-- Costs: the entries below the prefix that constant quals fix are
-- counted in the trie, so where the columns are correlated (tenant 0 has
-- only '/a/' paths, tenant 1 only '/b/') the index scan for an empty
-- prefix costs far less than for a full one, which the columns'
-- statistics (taken as independent) estimate alike.
CREATE TABLE cc (id int, tenant int, path text COLLATE "C");
INSERT INTO cc SELECT i, i % 2, CASE WHEN i % 2 = 0 THEN '/a/' ELSE '/b/' END || i
  FROM generate_series(1, 20000) i;
CREATE INDEX cc_tp ON cc USING artrie (tenant, path);
ANALYZE cc;
CREATE FUNCTION index_cost(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Total Cost')::float8;
END;
$$;
SELECT index_cost($$SELECT id FROM cc WHERE tenant = 0 AND path ^@ '/a/'$$) >
       20 * index_cost($$SELECT id FROM cc WHERE tenant = 0 AND path ^@ '/b/'$$)
  AS full_costs_more,
       index_cost($$SELECT id FROM cc WHERE tenant = 0 AND path = '/a/2'$$) <
       index_cost($$SELECT id FROM cc WHERE tenant = 0 AND path ^@ '/a/2'$$)
  AS one_key_costs_less;
DROP FUNCTION index_cost(text);
DROP TABLE cc;

-- What a multicolumn index refuses: DESC columns, and an integer or uuid
-- column alone.
CREATE INDEX ON f USING artrie (tenant DESC, path);
CREATE INDEX ON f USING artrie (tenant);
CREATE INDEX ON h USING artrie (u);
-- The operator classes validate.
SELECT opcname, amvalidate(c.oid) FROM pg_opclass c
  JOIN pg_am a ON a.oid = c.opcmethod WHERE a.amname = 'artrie' ORDER BY 1;

DROP TABLE f, g, gc, h;
DROP FUNCTION ordered(text);
DROP FUNCTION oracle(text, text);
