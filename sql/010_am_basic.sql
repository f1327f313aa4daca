-- artrie access method: the basics on a small table.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

SELECT amname, amtype FROM pg_am WHERE amname = 'artrie';
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'artrie_text_ops';

CREATE TABLE t (id int PRIMARY KEY, k text COLLATE "C");
INSERT INTO t VALUES
  (1, 'apple'), (2, 'apples'), (3, 'applesauce'), (4, 'apricot'),
  (5, 'banana'), (6, 'band'), (7, 'bandana'), (8, ''), (9, NULL),
  (10, 'apple'), (11, NULL), (12, 'cherry'), (13, 'b'), (14, 'ä'),
  (15, 'z'), (16, 'apple pie');
CREATE INDEX t_k ON t USING artrie (k);
ANALYZE t;

SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- Equality, duplicates, and the empty string.
EXPLAIN (COSTS OFF) SELECT id FROM t WHERE k = 'apple';
SELECT id FROM t WHERE k = 'apple' ORDER BY id;
SELECT id FROM t WHERE k = '' ORDER BY id;
SELECT id FROM t WHERE k = 'appl' ORDER BY id;
SELECT id FROM t WHERE k = 'nothing' ORDER BY id;

-- Prefix.
EXPLAIN (COSTS OFF) SELECT id FROM t WHERE k ^@ 'app';
SELECT id, k FROM t WHERE k ^@ 'app' ORDER BY id;
SELECT count(*) FROM t WHERE k ^@ '';
SELECT id FROM t WHERE k ^@ 'apple' AND k ^@ 'app' ORDER BY id;
SELECT id FROM t WHERE k ^@ 'apple' AND k ^@ 'ban' ORDER BY id;

-- Ranges (collation "C": exact, in byte order).
SELECT id, k FROM t WHERE k > 'apple' AND k < 'band' ORDER BY id;
SELECT id, k FROM t WHERE k >= 'apple' AND k <= 'band' ORDER BY id;
SELECT id, k FROM t WHERE k < 'apple' ORDER BY id;
SELECT id, k FROM t WHERE k > 'cherry' ORDER BY id;
SELECT id FROM t WHERE k = 'apple' AND k > 'apple';
SELECT id FROM t WHERE k ^@ 'ap' AND k >= 'applf' ORDER BY id;

-- = ANY, with duplicates and NULL elements.
EXPLAIN (COSTS OFF) SELECT id FROM t WHERE k = ANY (ARRAY['band', 'apple']);
SELECT id, k FROM t WHERE k = ANY (ARRAY['band', 'apple', 'band', NULL, 'zz']) ORDER BY id;
SELECT id, k FROM t WHERE k = ANY (ARRAY['band', 'apple']) AND k = ANY (ARRAY['apple', 'cherry']) ORDER BY id;
SELECT id FROM t WHERE k = ANY (ARRAY[NULL]::text[]);
SELECT id, k FROM t WHERE k < ANY (ARRAY['apple', 'b']) ORDER BY id;
SELECT id, k FROM t WHERE k ^@ ANY (ARRAY['band', 'ch']) ORDER BY id;
SELECT k FROM t WHERE k ^@ ANY (ARRAY['appl', 'apples', 'b', 'ba']) ORDER BY k DESC;
SELECT k FROM t WHERE k ^@ ANY (ARRAY['app', 'ban']) AND k ^@ ANY (ARRAY['apples', 'band']) ORDER BY k;
SELECT k FROM t WHERE k ^@ ANY (ARRAY['app', 'b']) AND k = ANY (ARRAY['apple', 'cherry', 'b']) ORDER BY k;

-- NULLs.
EXPLAIN (COSTS OFF) SELECT id FROM t WHERE k IS NULL;
SELECT id FROM t WHERE k IS NULL ORDER BY id;
SELECT count(*) FROM t WHERE k IS NOT NULL;
SELECT id FROM t WHERE k IS NULL AND k = 'apple';
SELECT id FROM t WHERE k = NULL;

-- Ordered scans: no Sort node under "C", NULLS LAST ascending.
EXPLAIN (COSTS OFF) SELECT k FROM t ORDER BY k LIMIT 5;
SELECT k FROM t ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM t ORDER BY k DESC LIMIT 5;
SELECT k FROM t ORDER BY k DESC;
SELECT k FROM t ORDER BY k NULLS FIRST;
SELECT k FROM t WHERE k ^@ 'ap' ORDER BY k DESC LIMIT 3;
SELECT k FROM t WHERE k = ANY (ARRAY['z', 'band', 'apple']) ORDER BY k DESC;

-- Index-only scans rebuild the key from the trie.
VACUUM t;
EXPLAIN (COSTS OFF) SELECT k FROM t WHERE k ^@ 'ban';
SELECT k FROM t WHERE k ^@ 'ban';
SELECT k FROM t WHERE k IS NULL;

-- Bitmap scans.
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT id FROM t WHERE k ^@ 'ban';
SELECT id FROM t WHERE k ^@ 'ban' ORDER BY id;
SELECT id FROM t WHERE k = ANY (ARRAY['b', 'z']) ORDER BY id;
SELECT id FROM t WHERE k IS NULL ORDER BY id;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- A cursor going forward and backward through an ordered scan.
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM t WHERE k ^@ 'ap' ORDER BY k;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
FETCH FORWARD 10 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH PRIOR FROM c;
COMMIT;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM t ORDER BY k;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 1 FROM c;
FETCH PRIOR FROM c;
FETCH NEXT FROM c;
COMMIT;

-- Changes through aminsert and VACUUM.
INSERT INTO t VALUES (17, 'apple'), (18, NULL), (19, 'applause');
DELETE FROM t WHERE id IN (1, 9, 5);
UPDATE t SET k = 'bandit' WHERE id = 7;
VACUUM t;
SELECT id, k FROM t WHERE k ^@ 'ap' ORDER BY id;
SELECT id FROM t WHERE k IS NULL ORDER BY id;
SELECT id, k FROM t WHERE k ^@ 'band' ORDER BY id;
SELECT k FROM t ORDER BY k;

-- A DESC NULLS FIRST index.
CREATE INDEX t_k_desc ON t USING artrie (k DESC NULLS FIRST);
DROP INDEX t_k;
EXPLAIN (COSTS OFF) SELECT k FROM t ORDER BY k DESC NULLS FIRST;
SELECT k FROM t ORDER BY k DESC NULLS FIRST;
SELECT k FROM t ORDER BY k NULLS LAST;
SELECT k FROM t WHERE k ^@ 'ap' ORDER BY k DESC;
DROP INDEX t_k_desc;

-- varchar columns and expression indexes.
CREATE TABLE v (id int, k varchar(20) COLLATE "C");
INSERT INTO v SELECT i, 'v' || i FROM generate_series(1, 200) i;
CREATE INDEX v_k ON v USING artrie (k);
CREATE INDEX v_lower ON v USING artrie (lower(k));
ANALYZE v;
EXPLAIN (COSTS OFF) SELECT id FROM v WHERE k = 'v17';
SELECT id FROM v WHERE k = 'v17';
SELECT id FROM v WHERE k ^@ 'v19' ORDER BY id;
SELECT id FROM v WHERE lower(k) = 'v42';
SELECT k FROM v ORDER BY k DESC LIMIT 3;

-- Nondeterministic collations are refused; storage parameters too.
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE nd (k text COLLATE ci);
CREATE INDEX nd_k ON nd USING artrie (k);
CREATE INDEX nd_k2 ON v USING artrie (k COLLATE ci);
CREATE INDEX v_opt ON v USING artrie (k) WITH (fillfactor = 50);
-- Multicolumn indexes are built (094_am_multicol).
CREATE INDEX v_multi ON v USING artrie (k, k);
DROP INDEX v_multi;

-- Properties.
CREATE INDEX t_k_c ON t USING artrie (k);
SELECT p, pg_index_column_has_property('t_k_c'::regclass, 1, p)
FROM unnest(ARRAY['orderable', 'asc', 'desc', 'nulls_first', 'nulls_last',
                  'returnable', 'search_array', 'search_nulls']) AS p;
SELECT p, pg_indexam_has_property(a.oid, p)
FROM pg_am a, unnest(ARRAY['can_order', 'can_unique', 'can_multi_col',
                           'can_exclude', 'can_include']) AS p
WHERE a.amname = 'artrie';

-- UNLOGGED tables get an init fork.
CREATE UNLOGGED TABLE u (k text);
INSERT INTO u VALUES ('x'), ('y'), (NULL);
CREATE INDEX u_k ON u USING artrie (k);
SELECT k FROM u WHERE k = 'y';
SELECT k FROM u WHERE k IS NULL;

-- TRUNCATE and REINDEX give the index a fresh file.
TRUNCATE u;
SELECT count(*) FROM u WHERE k = 'y';
INSERT INTO u VALUES ('y');
REINDEX INDEX u_k;
SELECT k FROM u WHERE k = 'y';

-- TRUNCATE of a table created in the same transaction rebuilds its index
-- in place, on a new file of the same name: the scans after it, in this
-- backend that kept the old file's handle with the metapage, read the new
-- file.
BEGIN;
CREATE TABLE ip (k text);
INSERT INTO ip VALUES ('a'), ('b');
CREATE INDEX ip_k ON ip USING artrie (k);
SELECT pg_relation_filenode('ip_k') AS ip_node \gset
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ip WHERE k = 'b';
SELECT k FROM ip WHERE k = 'b';
TRUNCATE ip;
SELECT pg_relation_filenode('ip_k') = :ip_node AS same_relfilenode;
SELECT count(*) FROM ip WHERE k = 'b';
INSERT INTO ip VALUES ('b'), ('c');
SELECT k FROM ip WHERE k = 'b';
SELECT k FROM ip WHERE k = 'c';
COMMIT;
DROP TABLE ip;

-- A nested loop's inner index scan is rescanned with one "=" value per
-- outer row: keys longer than the scan's first buffer and a shorter one
-- after them, a NULL (it matches nothing) and a key that is absent.
CREATE TABLE nl (id int, k text COLLATE "C");
INSERT INTO nl VALUES (1, 'a'), (2, repeat('b', 300)), (3, repeat('b', 299)),
  (4, NULL), (5, 'a'), (6, repeat('b', 301));
CREATE INDEX nl_k ON nl USING artrie (k);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT o.n, nl.id FROM (VALUES (1, 'a'), (2, NULL), (3, repeat('b', 300)),
  (4, 'zz'), (5, 'a'), (6, repeat('b', 299))) o(n, k)
JOIN nl ON nl.k = o.k ORDER BY 1, 2;
SELECT o.n, nl.id FROM (VALUES (1, 'a'), (2, NULL), (3, repeat('b', 300)),
  (4, 'zz'), (5, 'a'), (6, repeat('b', 299))) o(n, k)
JOIN nl ON nl.k = o.k ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- The backend keeps one trie cursor between scans and lends it to one
-- scan at a time: scans that an error ends (at the top level, and in a
-- subtransaction whose transaction goes on), two scans open at once, and
-- the scans after them all find their rows.
CREATE TABLE ce (id int, k text COLLATE "C");
INSERT INTO ce SELECT g, 'k' || g FROM generate_series(1, 40) g;
INSERT INTO ce SELECT 100 + g, 'dup' FROM generate_series(1, 20) g;
CREATE INDEX ce_k ON ce USING artrie (k);
SELECT 1 / (id - 7) FROM ce WHERE k = 'k7';
SELECT id FROM ce WHERE k = 'k7';
BEGIN;
DO $$
BEGIN
  PERFORM 1 / (id - 8) FROM ce WHERE k = 'k8';
EXCEPTION WHEN division_by_zero THEN
  RAISE NOTICE 'the scan of k8 failed';
END $$;
SELECT id FROM ce WHERE k = 'k9';
DECLARE c1 CURSOR FOR SELECT id FROM ce WHERE k = 'dup';
FETCH 3 FROM c1;
SELECT count(*), sum(id) FROM ce WHERE k = 'dup';
FETCH ALL FROM c1;
COMMIT;
-- The scan's first batch (16 entries) keeps its page pinned; the abort of
-- a subtransaction drops that pin, and the scan reads on all the same.
BEGIN;
DECLARE c2 CURSOR FOR SELECT id FROM ce WHERE k = 'dup';
MOVE 16 FROM c2;
SAVEPOINT s;
SELECT 1 / 0;
ROLLBACK TO SAVEPOINT s;
FETCH ALL FROM c2;
COMMIT;
-- A cursor left open at COMMIT, its page still pinned, and one closed
-- with its page pinned: the scan's end lets the page go (a pin left at
-- commit would warn that it leaked).
BEGIN;
DECLARE c3 CURSOR FOR SELECT id FROM ce WHERE k = 'dup';
MOVE 16 FROM c3;
DECLARE c4 CURSOR FOR SELECT id FROM ce WHERE k = 'dup';
MOVE 16 FROM c4;
CLOSE c4;
COMMIT;
SELECT count(*), sum(id) FROM ce WHERE k = 'dup';
SELECT id FROM ce WHERE k = 'k10';
DROP TABLE ce;

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE t, v, nd, u, nl;
DROP COLLATION ci;
