-- artrie's cost estimate: page counts from its own file, exact entry
-- counts for = and ^@, so the planner takes the index when it pays and
-- a sequential scan when it does not.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

CREATE TABLE big (id int, k text COLLATE "C", pad text);
INSERT INTO big
SELECT i, 'key' || lpad((i % 50000)::text, 6, '0') || CASE WHEN i % 3 = 0 THEN 'x' ELSE '' END,
       repeat('p', 40)
FROM generate_series(1, 200000) i;
INSERT INTO big SELECT i, 'rare' || i, 'r' FROM generate_series(1, 10) i;
CREATE INDEX big_k ON big USING artrie (k);
VACUUM ANALYZE big;

-- The planner sees artrie's pages, not the main fork's single page.
SELECT pg_relation_size('big_k') = 8192 AS main_fork_is_one_page;

-- Selective quals pick the index, as a plain index scan where btree
-- would take one: the column's correlation statistic counts for artrie too.
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE k = 'key000123';
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE k ^@ 'rare';
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE k = ANY (ARRAY['rare1', 'rare2']);
EXPLAIN (COSTS OFF) SELECT k FROM big ORDER BY k LIMIT 10;

-- Unselective ones do not: every row matches ^@ ''.
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE k ^@ '';
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE k ^@ 'key';
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE k IS NOT NULL;

DROP TABLE big;

-- The correlation the estimate takes from the statistics is kept between
-- plans, and forgotten when ANALYZE writes new ones: a table stored in key
-- order gets a plain index scan, the same rows stored out of key order a
-- bitmap scan once analyzed.
CREATE TABLE corr (id int, k text COLLATE "C", pad text);
INSERT INTO corr
SELECT i, 'k' || lpad(i::text, 6, '0'), repeat('p', 40)
FROM generate_series(1, 100000) i;
CREATE INDEX corr_k ON corr USING artrie (k);
ANALYZE corr;
EXPLAIN (COSTS OFF) SELECT id FROM corr WHERE k ^@ 'k00';
UPDATE corr SET k = 'k' || lpad(((id::bigint * 7919) % 100000 + 1)::text, 6, '0');
ANALYZE corr;
EXPLAIN (COSTS OFF) SELECT id FROM corr WHERE k ^@ 'k00';
DROP TABLE corr;
