-- artrie under collations other than "C": = and ^@ are exact, ranges are
-- rechecked, and no ordering is ever taken from the index.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

SELECT collname, collprovider FROM pg_collation WHERE collname = 'en-x-icu';

CREATE TABLE c (id int, k text COLLATE "en-x-icu");
INSERT INTO c VALUES
  (1, 'apple'), (2, 'Apple'), (3, 'banana'), (4, 'Banana'), (5, 'cherry'),
  (6, 'äpfel'), (7, 'Zebra'), (8, 'zebra'), (9, 'apfel'), (10, NULL),
  (11, 'b'), (12, 'B'), (13, '');
CREATE INDEX c_k ON c USING artrie (k);
ANALYZE c;

-- Byte order (what the trie holds) and ICU order differ:
SELECT string_agg(k, ' ' ORDER BY k COLLATE "C") AS bytes FROM c;
SELECT string_agg(k, ' ' ORDER BY k) AS icu FROM c;

-- Whatever the enable_* settings, ORDER BY comes out in ICU order: the
-- index is not orderable, so a Sort node sorts what it returns.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT k FROM c ORDER BY k;
SELECT k FROM c ORDER BY k;
SELECT k FROM c ORDER BY k DESC LIMIT 4;
EXPLAIN (COSTS OFF) SELECT k FROM c WHERE k ^@ 'b' ORDER BY k;
SELECT k FROM c WHERE k ^@ 'b' ORDER BY k;
SELECT pg_index_column_has_property('c_k'::regclass, 1, 'orderable') AS orderable;

-- Merge joins do not take their order from it either.
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM c a JOIN c b ON a.k = b.k;
SELECT a.id, b.id FROM c a JOIN c b ON a.k = b.k ORDER BY 1;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;

-- = and ^@ are exact byte comparisons under a deterministic collation.
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE k = 'apple';
SELECT id FROM c WHERE k = 'apple';
SELECT id FROM c WHERE k ^@ 'B' ORDER BY id;

-- Ranges give the ICU answer (the index returns candidates, rows are
-- rechecked).
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE k > 'b';
SELECT k FROM c WHERE k > 'b' ORDER BY k;
SELECT k FROM c WHERE k >= 'apple' AND k < 'banana' ORDER BY k;
SELECT k FROM c WHERE k < ANY (ARRAY['apple', 'b']) ORDER BY k;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE k > 'b';
SELECT k FROM c WHERE k > 'b' ORDER BY k;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- LIKE 'abc%' (a literal prefix and '%') is the index condition itself
-- (strategy 7), which needs no filter, on this column and under a "C"
-- index collation (on (k COLLATE "C")) alike.
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE k LIKE 'ban%';
CREATE INDEX c_k_c ON c USING artrie ((k COLLATE "C"));
ANALYZE c;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE (k COLLATE "C") LIKE 'ban%';
SELECT id FROM c WHERE (k COLLATE "C") LIKE 'ban%' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE (k COLLATE "C") ~ '^Ba';
SELECT id FROM c WHERE (k COLLATE "C") ~ '^Ba' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE starts_with(k COLLATE "C", 'ze');
SELECT id FROM c WHERE starts_with(k COLLATE "C", 'ze') ORDER BY id;
-- ... and that index is orderable, in byte order.
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT k COLLATE "C" FROM c ORDER BY k COLLATE "C";
SELECT k COLLATE "C" FROM c ORDER BY k COLLATE "C";
RESET enable_sort;

-- A column declared COLLATE "C" gets the same.
CREATE TABLE cc (id int, k text COLLATE "C");
INSERT INTO cc SELECT id, k FROM c;
CREATE INDEX cc_k ON cc USING artrie (k);
ANALYZE cc;
EXPLAIN (COSTS OFF) SELECT id FROM cc WHERE k LIKE 'ban%';
SELECT id FROM cc WHERE k LIKE 'ban%' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM cc WHERE k ~ '^Ba';
EXPLAIN (COSTS OFF) SELECT id FROM cc WHERE starts_with(k, 'ze');
SELECT id FROM cc WHERE starts_with(k, 'ze') ORDER BY id;

-- The database's default collation is not "C" (PostgreSQL does not know
-- that C.UTF-8 orders as bytes): the index gives no order there either.
CREATE TABLE dflt (k text);
INSERT INTO dflt VALUES ('b'), ('a'), ('B'), ('A');
CREATE INDEX dflt_k ON dflt USING artrie (k);
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT k FROM dflt ORDER BY k;
SELECT k FROM dflt ORDER BY k;
RESET enable_sort;

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE c, cc, dflt;
