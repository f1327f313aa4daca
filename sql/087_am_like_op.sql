-- LIKE is strategy 7 of artrie_text_ops (0.3.0): "key LIKE pattern" is
-- itself the index condition, for any pattern.  A pattern that is a
-- literal prefix and '%' is answered exactly (a bitmap heap scan keeps no
-- filter for it); a pattern without wildcards as "="; any other reads
-- the keys beginning with its literal prefix (every key if it has none)
-- and leaves LIKE to the recheck, in plain, bitmap and index-only scans.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
SET jit = off;

\ir sql/include/oracle.sql

-- ios(tbl, col, pred): the keys an index-only scan returns for
-- "SELECT col FROM tbl WHERE pred", equal to a sequential scan's.
CREATE FUNCTION ios(tbl text, col text, pred text)
RETURNS TABLE (index_only bool, same_rows bool, nrows int)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT array_agg(%I ORDER BY %I COLLATE "C") FROM %I WHERE %s',
                   col, col, tbl, pred);
  ref text[];
  got text[];
  plan text := '';
  line text;
BEGIN
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  EXECUTE q INTO ref;
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_indexonlyscan', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  EXECUTE q INTO got;
  index_only := plan LIKE '%Index Only Scan%';
  same_rows := got IS NOT DISTINCT FROM ref;
  nrows := coalesce(cardinality(ref), 0);
  RETURN NEXT;
END;
$$;

-- d under the database's collation (C.UTF-8), c under "C".
CREATE TABLE lk (id int, d text, c text COLLATE "C");
INSERT INTO lk (id, d) VALUES
  (1, 'abc'), (2, 'abcd'), (3, 'abd'), (4, 'axc'), (5, 'axcz'),
  (6, 'ab%c'), (7, 'ab%cd'), (8, 'ab\c'), (9, ''), (10, NULL),
  (11, 'xabc'), (12, 'a'), (13, 'ab_c'), (14, 'Abc'), (15, 'abcabc'),
  (16, 'äbc'), (17, 'a%'), (18, 'ab');
INSERT INTO lk (id, d)
  SELECT 100 + g, md5(g::text) FROM generate_series(1, 3000) g;
UPDATE lk SET c = d;
CREATE INDEX lk_d ON lk USING artrie (d);
CREATE INDEX lk_c ON lk USING artrie (c);
VACUUM ANALYZE lk;

-- A literal prefix and '%': the LIKE is the index condition, and no
-- filter or recheck is left of it in a plain scan.  A bitmap heap scan
-- shows it as its Recheck Cond (used only for lossy pages), not as a
-- Filter; so does a pattern that needs the recheck.
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE c LIKE 'ab%';
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE 'ab_c%';
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF) SELECT d FROM lk WHERE d LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT d FROM lk WHERE d LIKE 'a_c%';
SELECT id FROM lk WHERE d LIKE 'ab%' ORDER BY id LIMIT 10;
SELECT count(id) FROM lk WHERE d LIKE 'c4%';
SELECT count(id) FROM lk WHERE d ^@ 'c4';

-- Rows against a sequential scan, as index and bitmap scans, on both
-- columns: a prefix, '_', no wildcard, no literal prefix, escapes, the
-- empty pattern, NULL, ESCAPE clauses, several '%', multibyte.
SELECT * FROM oracle('lk', $$d LIKE 'abc%'$$);
SELECT * FROM oracle('lk', $$c LIKE 'abc%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'abc%%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'a_c%'$$);
SELECT * FROM oracle('lk', $$c LIKE 'a_c%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'abc'$$);
SELECT * FROM oracle('lk', $$c LIKE 'abc'$$);
SELECT * FROM oracle('lk', $$d LIKE '%abc'$$);
SELECT * FROM oracle('lk', $$d LIKE '%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab\%c%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab\%c'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab\\c'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab\_c%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'a\%'$$);
SELECT * FROM oracle('lk', $$d LIKE ''$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab#%c%' ESCAPE '#'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab%c' ESCAPE ''$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab%c%d'$$);
SELECT * FROM oracle('lk', $$d LIKE 'äb%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'c4%' AND d LIKE '%9'$$);
SELECT * FROM oracle('lk', $$d LIKE ANY (ARRAY['abc%', 'x%', '%9'])$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab%' OR d LIKE 'c4%'$$);
SELECT * FROM oracle('lk', $$d LIKE 'ab%' OR d ILIKE '12%'$$);
SELECT count(*) FROM lk WHERE d LIKE NULL;
-- Index-only scans return the key, which the recheck tests.
SELECT * FROM ios('lk', 'd', $$d LIKE 'ab%'$$);
SELECT * FROM ios('lk', 'd', $$d LIKE 'a_c%'$$);
SELECT * FROM ios('lk', 'd', $$d LIKE '%c'$$);
SELECT * FROM ios('lk', 'c', $$c LIKE 'ab\%c_'$$);
SELECT * FROM ios('lk', 'd', $$d LIKE 'abc'$$);

-- A pattern without a literal prefix reads every key: it is priced as a
-- full scan of the index and the sequential scan is kept.
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE '%abc';
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE '_bc%';
-- An OR of LIKEs: the planner's own BitmapOr; with an ILIKE arm,
-- artrie's.
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE 'ab%' OR d LIKE 'c4%';
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE d LIKE 'ab%' OR d ILIKE '12%';

-- A generic plan takes the pattern at run time.
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
PREPARE g(text) AS SELECT count(*), sum(id) FROM lk WHERE d LIKE $1;
EXPLAIN (COSTS OFF) EXECUTE g('ab%');
EXECUTE g('ab%');
EXECUTE g('a_c%');
EXECUTE g('abc');
EXECUTE g('%c');
EXECUTE g(NULL);
DEALLOCATE g;
RESET enable_seqscan;
RESET plan_cache_mode;

-- A multicolumn index: the "=" of the leading column, then the LIKE.
CREATE TABLE lm (id int, t int, k text);
INSERT INTO lm SELECT id, id % 3, d FROM lk;
CREATE INDEX lm_tk ON lm USING artrie (t, k);
ANALYZE lm;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lm WHERE t = 1 AND k LIKE 'ab%';
RESET enable_seqscan;
SELECT * FROM oracle('lm', $$t = 1 AND k LIKE 'ab%'$$);
SELECT * FROM oracle('lm', $$t = 2 AND k LIKE 'a_c%'$$);
SELECT * FROM oracle('lm', $$t = 0 AND k LIKE '%c'$$);
SELECT * FROM oracle('lm', $$k LIKE 'c4%'$$);
DROP TABLE lm;

DROP TABLE lk;
DROP FUNCTION oracle(text, text);
DROP FUNCTION ios(text, text, text);
