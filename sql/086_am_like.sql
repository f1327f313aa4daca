-- LIKE 'abc%', ILIKE with a prefix without case, regular expressions
-- anchored with ^ and starts_with() reach an artrie index under any
-- deterministic collation: a text LIKE is itself the index condition
-- (strategy 7 of artrie_text_ops; 087_am_like_op), for the others artrie
-- adds a path whose index condition is "key ^@ prefix", and the original
-- clause filters what it returns.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
SET jit = off;

\ir sql/include/oracle.sql

-- d has the database's default collation (C.UTF-8, which PostgreSQL does
-- not take for "C"), e an ICU collation; both are deterministic.
SELECT datcollate FROM pg_database WHERE datname = current_database();
CREATE TABLE p (id int, d text, e text COLLATE "en-x-icu");
INSERT INTO p (id, d) VALUES
  (1, 'apple'), (2, 'Apple'), (3, 'apricot'), (4, 'app'), (5, 'ap'),
  (6, 'äpfel'), (7, 'a%b'), (8, 'a%bc'), (9, 'a_b'), (10, 'a\b'),
  (11, '12-34'), (12, '12-35'), (13, '12_34'), (14, '123'), (15, ''),
  (16, NULL), (17, 'über'), (18, 'übel'), (19, 'app.le'), (20, 'appxle'),
  (21, 'a.b'), (22, 'ab'), (23, 'APPLE'), (24, 'aPple');
INSERT INTO p (id, d)
  SELECT 100 + g, md5(g::text) FROM generate_series(1, 3000) g;
UPDATE p SET e = d;
CREATE INDEX p_d ON p USING artrie (d);
CREATE INDEX p_e ON p USING artrie (e);
CREATE INDEX p_lower ON p USING artrie (lower(d));
ANALYZE p;

-- The plans: LIKE or ^@ in the index condition, the clause as a filter
-- or a recheck.
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE e LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE starts_with(d, 'app');
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d ~ '^app';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d ILIKE '12-%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE lower(d) LIKE 'app%';
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'app%';
RESET enable_indexscan;
-- An index-only scan when only the key is needed.
VACUUM p;
EXPLAIN (COSTS OFF) SELECT d FROM p WHERE d LIKE 'app%';
SELECT d FROM p WHERE d LIKE 'app%' ORDER BY d COLLATE "C";
-- Two LIKEs: both become index conditions.
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'ap%' AND d LIKE 'apr%';
SELECT id FROM p WHERE d LIKE 'ap%' AND d LIKE 'apr%';

-- Rows, against a sequential scan, on both collations.
SELECT * FROM oracle('p', $$d LIKE 'app%'$$);
SELECT * FROM oracle('p', $$e LIKE 'app%'$$);
SELECT * FROM oracle('p', $$d LIKE 'app'$$);
SELECT * FROM oracle('p', $$d LIKE 'a_p%'$$);
SELECT * FROM oracle('p', $$d LIKE 'ap%le'$$);
SELECT * FROM oracle('p', $$d LIKE 'a\%b%'$$);
SELECT * FROM oracle('p', $$d LIKE 'a\_b'$$);
SELECT * FROM oracle('p', $$d LIKE 'a\\b%'$$);
SELECT * FROM oracle('p', $$d LIKE 'a#%b%' ESCAPE '#'$$);
SELECT * FROM oracle('p', $$d LIKE 'a\%' ESCAPE ''$$);
SELECT * FROM oracle('p', $$d LIKE 'üb%'$$);
SELECT * FROM oracle('p', $$e LIKE 'üb%'$$);
SELECT * FROM oracle('p', $$starts_with(d, 'ap')$$);
SELECT * FROM oracle('p', $$starts_with(e, 'üb')$$);
SELECT * FROM oracle('p', $$d ~ '^app'$$);
SELECT * FROM oracle('p', $$d ~ '^app.le'$$);
SELECT * FROM oracle('p', $$d ~ '^apple?'$$);
SELECT * FROM oracle('p', $$d ~ '^ap{2}'$$);
SELECT * FROM oracle('p', $$e ~ '^12-3'$$);
SELECT * FROM oracle('p', $$d ILIKE '12-%'$$);
SELECT * FROM oracle('p', $$e ILIKE '12\_%'$$);
SELECT * FROM oracle('p', $$d ILIKE '1a%'$$);
SELECT * FROM oracle('p', $$lower(d) LIKE 'app%'$$);
SELECT * FROM oracle('p', $$lower(d) LIKE 'äp%'$$);
SELECT * FROM oracle('p', $$lower(d) ~ '^ap'$$);
-- With a LIKE of md5 values, which the index narrows to a few rows.
SELECT * FROM oracle('p', $$d LIKE 'c4c%'$$);

-- A LIKE without a literal prefix is a full scan of the index, which
-- costs more than the sequential scan; forced, it reads every key and
-- rechecks the LIKE.
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE '%app';
-- ILIKE prefixes with case, an alternation or an unanchored expression
-- keep the sequential scan; so do patterns that are not constants (for
-- ILIKE and the others) and NOT LIKE.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE '%app';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d ILIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d ~ '^app|^b';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d ~ 'app';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d NOT LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE d || '%';
RESET enable_seqscan;
-- An OR of prefix restrictions is a BitmapOr of their index scans, on one
-- index or several; a text LIKE arm without a literal prefix is a full
-- scan of the index, taken only with the sequential scan off.
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'abc%' OR d LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'abc%' OR lower(d) LIKE 'app%' OR e ~ '^12';
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'abc%' OR d LIKE '%app';
RESET enable_seqscan;
SELECT * FROM oracle('p', $$d LIKE 'abc%' OR d LIKE 'app%'$$);
SELECT * FROM oracle('p', $$d LIKE 'abc%' OR lower(d) LIKE 'app%' OR e ~ '^12'$$);
SELECT * FROM oracle('p', $$(d LIKE 'ap%' OR d LIKE 'c4%') AND d LIKE '%e'$$);
-- A pattern ending in its escape character is left to LIKE, which
-- reports it.
SELECT * FROM oracle('p', $$d LIKE 'app\'$$);

-- Prepared statements with the pattern as a parameter: the custom plans
-- see the constant.
PREPARE q(text) AS SELECT id FROM p WHERE d LIKE $1 ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE q('appx%');
EXECUTE q('appx%');
DEALLOCATE q;

-- A nondeterministic collation gets no such path (and LIKE refuses it).
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE ndp (id int, k text COLLATE ci);
CREATE INDEX ndp_k ON ndp USING artrie ((k COLLATE "C"));
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ndp WHERE k LIKE 'a%';
RESET enable_seqscan;
DROP TABLE ndp;
DROP COLLATION ci;

-- Under row-level security, a restriction that is not leakproof (LIKE;
-- ^@ is) waits for the policy's quals: no index condition is made of it,
-- as PostgreSQL makes none of such a restriction for any index.
CREATE ROLE regress_artrie_rls;
CREATE TABLE pr (id int, d text);
INSERT INTO pr SELECT id, d FROM p;
CREATE INDEX pr_d ON pr USING artrie (d);
ALTER TABLE pr ENABLE ROW LEVEL SECURITY;
CREATE POLICY pr_even ON pr USING (id % 2 = 0);
GRANT SELECT ON pr TO regress_artrie_rls;
SET ROLE regress_artrie_rls;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pr WHERE d LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM pr WHERE d ^@ 'app';
SELECT id FROM pr WHERE d LIKE 'app%' ORDER BY id;
RESET enable_seqscan;
RESET ROLE;
DROP TABLE pr;
DROP ROLE regress_artrie_rls;

-- Partitions and partial indexes.
CREATE TABLE pp (id int, d text) PARTITION BY RANGE (id);
CREATE TABLE pp1 PARTITION OF pp FOR VALUES FROM (0) TO (1000);
CREATE TABLE pp2 PARTITION OF pp FOR VALUES FROM (1000) TO (10000);
INSERT INTO pp SELECT id, d FROM p;
CREATE INDEX pp_d ON pp USING artrie (d);
ANALYZE pp;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pp WHERE d LIKE 'app%';
RESET enable_seqscan;
SELECT * FROM oracle('pp', $$d LIKE 'app%'$$);
SELECT * FROM oracle('pp', $$d LIKE 'c4%' AND id >= 1000$$);
DROP TABLE pp;
CREATE INDEX p_d_small ON p USING artrie (d) WHERE id < 100;
DROP INDEX p_d;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'app%' AND id < 50;
EXPLAIN (COSTS OFF) SELECT id FROM p WHERE d LIKE 'app%';
RESET enable_seqscan;
SELECT * FROM oracle('p', $$d LIKE 'app%' AND id < 50$$);
DROP INDEX p_d_small;
CREATE INDEX p_d ON p USING artrie (d);

-- A join: the prefix condition on the inner relation.
CREATE TABLE q (id int, pfx text);
INSERT INTO q VALUES (1, 'x');
EXPLAIN (COSTS OFF)
SELECT p.id FROM p JOIN q ON q.id = p.id WHERE p.d LIKE 'app%';

-- Under "C" as under any other collation, a text or char(n) LIKE is the
-- index condition itself (strategy 7), where PostgreSQL's own LIKE
-- support would make the prefix a range and keep the LIKE as a filter.
CREATE TABLE pc (id int, t text COLLATE "C", b char(8) COLLATE "C");
INSERT INTO pc SELECT id, d, d FROM p WHERE length(d) <= 8;
CREATE INDEX pc_t ON pc USING artrie (t);
CREATE INDEX pc_b ON pc USING artrie (b);
ANALYZE pc;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pc WHERE t LIKE 'app%';
EXPLAIN (COSTS OFF) SELECT id FROM pc WHERE t LIKE 'app%%';
EXPLAIN (COSTS OFF) SELECT id FROM pc WHERE t LIKE 'a_p%';
EXPLAIN (COSTS OFF) SELECT id FROM pc WHERE t LIKE 'ap%e%';
EXPLAIN (COSTS OFF) SELECT id FROM pc WHERE b LIKE 'app%';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM oracle('pc', $$t LIKE 'app%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'app%%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'a\%b%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'a\_b%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'a_p%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'ap%e%'$$);
SELECT * FROM oracle('pc', $$t LIKE 'üb%'$$);
SELECT * FROM oracle('pc', $$b LIKE 'app%'$$);
SELECT * FROM oracle('pc', $$b LIKE 'ap %'$$);
DROP TABLE pc;

-- Multicolumn artrie indexes are built (094_am_multicol), INCLUDE
-- columns are not.
CREATE INDEX p_multi ON p USING artrie (d, e);
DROP INDEX p_multi;
CREATE INDEX p_incl ON p USING artrie (d) INCLUDE (id);
-- An expression whose key begins with the leading column works as well.
CREATE TABLE files (id int, tenant_id int, path text);
INSERT INTO files SELECT g, g % 5, '/usr/share/doc/' || g FROM generate_series(1, 500) g;
INSERT INTO files SELECT g, g % 5, '/etc/' || g FROM generate_series(501, 1000) g;
CREATE INDEX files_tp ON files USING artrie ((tenant_id::text || '/' || path));
ANALYZE files;
EXPLAIN (COSTS OFF) SELECT id FROM files
WHERE (tenant_id::text || '/' || path) ^@ (2::text || '/' || '/usr/share/');
SELECT * FROM oracle('files', $$(tenant_id::text || '/' || path) ^@ (2::text || '/' || '/usr/share/')$$);
SELECT * FROM oracle('files', $$(tenant_id::text || '/' || path) LIKE '2//etc/%'$$);
DROP TABLE files;

DROP TABLE p, q;
DROP FUNCTION oracle(text, text);
