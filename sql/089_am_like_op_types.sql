-- LIKE on char(n) (bpchar) and name keys is strategy 7 of their operator
-- families (0.4.0), as text's is of artrie_text_ops (087_am_like_op):
-- "key LIKE pattern" is itself the index condition.  A bpchar value
-- matches with its padding, which its key has lost: the scan reads the
-- keys that begin with the literal prefix less its trailing blanks, is
-- exact for a literal ending in another character and '%', and leaves the
-- rest (no wildcard, a literal ending in a blank, more wildcards) to the
-- recheck.  name's key is the string itself, so it goes as text's.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
SET jit = off;

\ir sql/include/oracle.sql

-- s is the value as written; b is char(6), padded to six characters; v
-- is bpchar without a length, which keeps the blanks it was given; bc is
-- b under "C", where PostgreSQL's own LIKE support also knows artrie's
-- family; n is name.
CREATE TABLE lb (id int, s text, b char(6), v bpchar, bc char(6) COLLATE "C",
                 n name, t int);
INSERT INTO lb (id, s) VALUES
  (1, 'ab'), (2, 'ab '), (3, 'ab  '), (4, 'abc'), (5, 'ab c'), (6, ''),
  (7, ' '), (8, NULL), (9, 'a b'), (10, 'abcdef'), (11, ' ab'), (12, 'AB'),
  (13, 'ab%'), (14, 'ab_c'), (15, 'äb'), (16, 'abc '), (17, 'b'),
  (18, 'ab\c'), (19, 'ab    ');
INSERT INTO lb (id, s)
  SELECT 100 + g, left(md5(g::text), 1 + g % 6) FROM generate_series(1, 3000) g;
UPDATE lb SET b = s, v = s, bc = s, n = s, t = id % 3;
CREATE INDEX lb_b ON lb USING artrie (b);
CREATE INDEX lb_v ON lb USING artrie (v);
CREATE INDEX lb_bc ON lb USING artrie (bc);
CREATE INDEX lb_n ON lb USING artrie (n);
CREATE INDEX lb_tb ON lb USING artrie (t, b);
VACUUM ANALYZE lb;

-- The LIKE is the index condition, with no filter: a bitmap heap scan
-- shows it as its Recheck Cond (used only for lossy pages), an index
-- scan as its Index Cond alone.  Under "C" too, where the support
-- function would otherwise make a range and keep the LIKE as a filter.
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE b LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE v LIKE 'ab %';
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE n LIKE 'ab%';
RESET enable_indexscan;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE b LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE bc LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE n LIKE 'ab%';
-- name's keys are its values: an index-only scan.
EXPLAIN (COSTS OFF) SELECT n FROM lb WHERE n LIKE 'ab%';
SELECT n FROM lb WHERE n LIKE 'ab%' ORDER BY n COLLATE "C";
-- The leading column's "=", then the LIKE.
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE t = 1 AND b LIKE 'ab%';
RESET enable_bitmapscan;
RESET enable_seqscan;

-- Rows against a sequential scan, as index and bitmap scans, on every
-- column: prefixes with and without trailing blanks, no wildcard with and
-- without the padding, '_', escapes, ESCAPE, no literal prefix, the empty
-- pattern, multibyte, arrays.
SELECT c, quote_literal(p) AS p, bool_and(o.uses_index) AS uses_index,
       bool_and(o.same_rows) AS same_rows, max(o.nrows) AS nrows
FROM unnest(ARRAY['b', 'v', 'bc', 'n']) c,
     unnest(ARRAY['ab%', 'ab%%', 'ab', 'ab ', 'ab  ', 'ab    ', 'ab %',
                  'ab _', 'ab_', 'ab c', 'a_c%', 'a b%', '%', '', ' ', ' %',
                  '%b', 'ab\%', 'ab\_c', 'ab\\c%', 'äb%', 'abcdef', 'abcdef%',
                  'abc %', 'ab%c']) p,
     LATERAL oracle('lb', format('%I LIKE %L', c, p)) o
GROUP BY c, p
ORDER BY c, p COLLATE "C";
SELECT * FROM oracle('lb', $$b LIKE 'ab#%%' ESCAPE '#'$$);
SELECT * FROM oracle('lb', $$v LIKE 'ab ' ESCAPE ''$$);
SELECT * FROM oracle('lb', $$b LIKE ANY (ARRAY['ab', 'ab %', 'b%'])$$);
SELECT * FROM oracle('lb', $$n LIKE ANY (ARRAY['ab', 'ab %', 'b%'])$$);
SELECT * FROM oracle('lb', $$b LIKE 'ab%' OR n LIKE 'b%'$$);
SELECT * FROM oracle('lb', $$t = 1 AND b LIKE 'ab%'$$);
SELECT * FROM oracle('lb', $$t = 2 AND b LIKE 'ab '$$);
SELECT count(*) FROM lb WHERE b LIKE NULL;

-- A generic plan takes the pattern at run time.
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
PREPARE g(text) AS SELECT count(*), sum(id) FROM lb WHERE v LIKE $1;
EXPLAIN (COSTS OFF) EXECUTE g('ab%');
EXECUTE g('ab%');
EXECUTE g('ab');
EXECUTE g('ab ');
EXECUTE g('ab %');
DEALLOCATE g;
RESET enable_seqscan;
RESET plan_cache_mode;
SELECT count(*), sum(id) FROM lb WHERE v LIKE 'ab%';
SELECT count(*), sum(id) FROM lb WHERE v LIKE 'ab';
SELECT count(*), sum(id) FROM lb WHERE v LIKE 'ab ';
SELECT count(*), sum(id) FROM lb WHERE v LIKE 'ab %';

-- LIKE written as a function call gets the family's LIKE on the same
-- arguments as its index condition: an index scan keeps no filter for
-- it; a bitmap heap scan does (PostgreSQL leaves out of that filter only
-- the index quals themselves, which the call is not).
CREATE INDEX lb_s ON lb USING artrie (s);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE textlike(s, 'ab%');
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE bpcharlike(b, 'ab%');
EXPLAIN (COSTS OFF) SELECT n FROM lb WHERE namelike(n, 'ab%');
RESET enable_bitmapscan;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE textlike(s, 'ab%');
RESET enable_indexscan;
RESET enable_seqscan;
SELECT * FROM oracle('lb', $$textlike(s, 'ab%')$$);
SELECT * FROM oracle('lb', $$textlike(s, 'a_c%')$$);
SELECT * FROM oracle('lb', $$bpcharlike(b, 'ab %')$$);
SELECT * FROM oracle('lb', $$bpcharlike(v, 'ab')$$);
SELECT * FROM oracle('lb', $$namelike(n, 'ab_')$$);
SELECT * FROM oracle('lb', $$textlike(s, 'ab%') OR s LIKE 'b%'$$);

-- starts_with() and artrie's bpchar and name starts-with functions
-- written as calls get the family's "^@" on the same arguments, as
-- textlike() gets "~~": no filter in an index scan.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE starts_with(s, 'ab');
EXPLAIN (COSTS OFF) SELECT id FROM lb WHERE artrie_bpchar_starts_with(b, 'ab');
EXPLAIN (COSTS OFF) SELECT n FROM lb WHERE artrie_name_starts_with(n, 'ab');
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT * FROM oracle('lb', $$starts_with(s, 'ab')$$);
SELECT * FROM oracle('lb', $$starts_with(s, 'ab ')$$);
SELECT * FROM oracle('lb', $$starts_with(s, '')$$);
SELECT * FROM oracle('lb', $$artrie_bpchar_starts_with(b, 'ab ')$$);
SELECT * FROM oracle('lb', $$artrie_bpchar_starts_with(v, 'ab')$$);
SELECT * FROM oracle('lb', $$artrie_name_starts_with(n, 'a')$$);
SELECT * FROM oracle('lb', $$starts_with(s, 'ab') OR s LIKE 'b%'$$);

-- amvalidate takes at strategy 7 only LIKE of the family's string type
-- against a text pattern.
CREATE OPERATOR FAMILY lb_bad USING artrie;
CREATE OPERATOR CLASS lb_bad_ops FOR TYPE bpchar USING artrie FAMILY lb_bad AS
  OPERATOR 1 < (bpchar, bpchar), OPERATOR 2 <= (bpchar, bpchar),
  OPERATOR 3 = (bpchar, bpchar), OPERATOR 4 >= (bpchar, bpchar),
  OPERATOR 5 > (bpchar, bpchar), OPERATOR 6 ^@ (bpchar, bpchar),
  OPERATOR 7 ~~* (bpchar, text), OPERATOR 7 <> (bpchar, bpchar);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'lb_bad_ops';
DROP OPERATOR FAMILY lb_bad USING artrie;
SELECT c.opcname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname = 'artrie' ORDER BY 1;

DROP TABLE lb;
DROP FUNCTION oracle(text, text);
