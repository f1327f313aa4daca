-- Operator classes beyond text: bpchar (char(n)), whose keys leave out the
-- trailing blanks its comparisons ignore; name, whose key is the string
-- before the NUL; varchar through text; and citext, which is indexed
-- through an expression.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
SET jit = off;

\ir sql/include/oracle.sql

-- bpchar: 'ab' and 'ab  ' are equal, so both have the key 'ab'.
CREATE TABLE b (id int, k char(6));
INSERT INTO b VALUES
  (1, 'ab'), (2, 'ab  '), (3, 'abc'), (4, 'ab c'), (5, ''), (6, NULL),
  (7, 'b'), (8, 'abcdef'), (9, ' ab'), (10, 'AB');
CREATE INDEX b_k ON b USING artrie (k);
SELECT c.opcname FROM pg_index i JOIN pg_opclass c ON c.oid = i.indclass[0]
WHERE i.indexrelid = 'b_k'::regclass;
SELECT (artrie_stats('b_k') ->> 'distinct_keys')::int AS distinct_keys;
SELECT artrie_complete('b_k', 'ab');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM b WHERE k = 'ab';
SELECT id FROM b WHERE k = 'ab' ORDER BY id;
SELECT id FROM b WHERE k = 'ab    ' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM b WHERE k ^@ 'ab';
SELECT id FROM b WHERE k ^@ 'ab' ORDER BY id;
-- bpchar's ^@ ignores trailing blanks on both sides.
SELECT id FROM b WHERE k ^@ 'ab ' ORDER BY id;
SELECT 'ab'::char(6) ^@ 'ab  '::bpchar AS blanks_ignored,
       'ab c'::char(6) ^@ 'ab '::bpchar AS inner_blank_kept;
-- No index-only scan: the key has lost the padding.
SET enable_indexonlyscan = on;
EXPLAIN (COSTS OFF) SELECT k FROM b WHERE k = 'ab';
SELECT k, octet_length(k) FROM b WHERE k = 'ab' ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM oracle('b', $$k = 'ab'$$);
SELECT * FROM oracle('b', $$k = ANY (ARRAY['ab', 'b ', 'zz']::bpchar[])$$);
SELECT * FROM oracle('b', $$k ^@ 'ab'$$);
SELECT * FROM oracle('b', $$k ^@ ''$$);
SELECT * FROM oracle('b', $$k ^@ ANY (ARRAY['ab c', 'b']::bpchar[])$$);
SELECT * FROM oracle('b', $$k > 'ab' AND k < 'b'$$);
SELECT * FROM oracle('b', $$k IS NULL$$);
-- LIKE matches the padded value; the prefix is looked up without blanks.
SELECT * FROM oracle('b', $$k LIKE 'ab%'$$);
SELECT * FROM oracle('b', $$k LIKE 'ab %'$$);
SELECT * FROM oracle('b', $$k LIKE 'ab c%'$$);
SELECT * FROM oracle('b', $$k ~ '^ab '$$);
-- Maintenance: inserts, updates and deletes, then a full check.
INSERT INTO b SELECT g, 'k' || (g % 97) FROM generate_series(100, 2099) g;
UPDATE b SET k = rtrim(k) || ' ' WHERE id % 3 = 0;
DELETE FROM b WHERE id % 7 = 0;
SELECT * FROM oracle('b', $$k ^@ 'k1'$$);
SELECT * FROM oracle('b', $$k = 'k42 '$$);
VACUUM b;
SELECT artrie_verify('b_k', true);
REINDEX INDEX b_k;
SELECT artrie_verify('b_k', true);
SELECT * FROM oracle('b', $$k = 'k42'$$);

-- name: the key is the string before the NUL.
CREATE TABLE n (id int, k name);
INSERT INTO n SELECT g, 'rel_' || g FROM generate_series(1, 500) g;
INSERT INTO n VALUES (1001, ''), (1002, NULL), (1003, repeat('x', 63));
CREATE INDEX n_k ON n USING artrie (k);
SELECT c.opcname FROM pg_index i JOIN pg_opclass c ON c.oid = i.indclass[0]
WHERE i.indexrelid = 'n_k'::regclass;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM n WHERE k = 'rel_42';
SELECT id FROM n WHERE k = 'rel_42';
SELECT id FROM n WHERE k ^@ 'rel_49' ORDER BY id;
SELECT id FROM n WHERE k = repeat('x', 70)::name;
-- Index-only scans rebuild the name from its key.
VACUUM n;
EXPLAIN (COSTS OFF) SELECT k FROM n WHERE k ^@ 'rel_49';
SELECT k, octet_length(k) FROM n WHERE k ^@ 'rel_49' ORDER BY k;
SELECT k = repeat('x', 63) AS whole, octet_length(k) FROM n WHERE k ^@ 'xxx';
SELECT count(*) FROM n WHERE k IS NULL;
SELECT k FROM n WHERE k > 'rel_9' ORDER BY k DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT k FROM n WHERE k > 'rel_9' ORDER BY k DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM oracle('n', $$k = 'rel_42'$$);
SELECT * FROM oracle('n', $$k ^@ 'rel_1'$$);
SELECT * FROM oracle('n', $$k > 'rel_45' AND k <= 'rel_5'$$);
SELECT * FROM oracle('n', $$k = ANY (ARRAY['rel_1', 'rel_500', 'nope']::name[])$$);
-- LIKE on name takes a text pattern; it is the index condition itself.
SELECT * FROM oracle('n', $$k LIKE 'rel\_49%'$$);
SELECT * FROM oracle('n', $$k ~ '^rel_4'$$);
SELECT artrie_verify('n_k', true);
-- The catalogs' own name columns.
CREATE TABLE rels AS SELECT oid::int AS id, relname FROM pg_class;
CREATE INDEX rels_relname ON rels USING artrie (relname);
SELECT scan, uses_index, same_rows, nrows > 10 AS some_rows
FROM oracle('rels', $$relname ^@ 'pg_stat'$$);

-- varchar goes through text_ops (binary coercible); index-only scans
-- return the key.
CREATE TABLE vc (id int, k varchar(10));
INSERT INTO vc SELECT g, 'v' || g FROM generate_series(1, 300) g;
CREATE INDEX vc_k ON vc USING artrie (k);
SELECT c.opcname FROM pg_index i JOIN pg_opclass c ON c.oid = i.indclass[0]
WHERE i.indexrelid = 'vc_k'::regclass;
SELECT * FROM oracle('vc', $$k = 'v7'$$);
SELECT * FROM oracle('vc', $$k ^@ 'v29'$$);
SELECT * FROM oracle('vc', $$k LIKE 'v29%'$$);
VACUUM vc;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM vc WHERE k ^@ 'v29';
SELECT k FROM vc WHERE k ^@ 'v29' ORDER BY k COLLATE "C";
RESET enable_seqscan;
RESET enable_bitmapscan;

-- amvalidate accepts the operator classes.
SELECT c.opcname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname = 'artrie' ORDER BY 1;

-- citext has no operator class: index lower(c::text) and query that.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'citext')
  AS have_citext \gset
\if :have_citext
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS citext;
RESET client_min_messages;
CREATE TABLE ci (id int, c citext);
INSERT INTO ci VALUES (1, 'Apple'), (2, 'APPLE'), (3, 'apricot'), (4, 'Banana'),
  (5, NULL), (6, 'applesauce');
CREATE INDEX ci_lower ON ci USING artrie (lower(c::text));
SELECT * FROM oracle('ci', $$lower(c::text) = lower('APPLE')$$);
SELECT * FROM oracle('ci', $$lower(c::text) ^@ 'app'$$);
SELECT * FROM oracle('ci', $$lower(c::text) LIKE 'app%'$$);
SELECT id FROM ci WHERE lower(c::text) = lower('aPPle') ORDER BY id;
DROP TABLE ci;
\endif

DROP TABLE b, n, rels, vc;
DROP FUNCTION oracle(text, text);
