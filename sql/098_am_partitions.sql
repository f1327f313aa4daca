-- artrie indexes on partitioned tables: the partitioned index and its
-- partitions' indexes, ATTACH / DETACH PARTITION, new partitions, what
-- prunes partitions, and the SQL functions given a partitioned index.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- A table partitioned by range of its text key, and one by tenant whose
-- partitions hold the same keys.
CREATE TABLE pw (k text COLLATE "C", n int) PARTITION BY RANGE (k);
CREATE TABLE pw_am PARTITION OF pw FOR VALUES FROM (MINVALUE) TO ('m');
CREATE TABLE pw_mz PARTITION OF pw FOR VALUES FROM ('m') TO ('z');
CREATE TABLE pw_rest PARTITION OF pw DEFAULT;
INSERT INTO pw SELECT w, i FROM (VALUES ('apple'), ('apply'), ('apricot'),
  ('banana'), ('band'), ('bandana'), ('mango'), ('man'), ('many'),
  ('melon'), ('zebra'), ('zoo'), ('Zulu'), ('ap'), ('a')) v(w),
  generate_series(1, 3) i;
INSERT INTO pw VALUES (NULL, 0);
CREATE INDEX pw_k ON pw USING artrie (k);

-- The partitioned index has no file; each partition's index has one, and
-- artrie_indexes lists those.
SELECT relid, parentrelid, isleaf, level, c.relkind
FROM pg_partition_tree('pw_k') t JOIN pg_class c ON c.oid = t.relid
ORDER BY level, relid::text;
SELECT index, "table", problem IS NULL AS usable, entries
FROM artrie_indexes WHERE "table"::text LIKE 'pw%' ORDER BY 1::text;

-- Queries use each partition's index; ^@ and LIKE 'abc%' on the partition
-- key do not prune partitions, the equivalent range does.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM pw WHERE k ^@ 'ap';
EXPLAIN (COSTS OFF) SELECT k FROM pw WHERE k LIKE 'ap%';
EXPLAIN (COSTS OFF) SELECT k FROM pw WHERE k >= 'ap' AND k < 'aq';
EXPLAIN (COSTS OFF) SELECT k FROM pw WHERE k = 'mango';
-- Partitioned by the key's first character, a prefix query prunes when
-- it also says that character.
CREATE TABLE pf (k text COLLATE "C") PARTITION BY LIST (left(k, 1));
CREATE TABLE pf_a PARTITION OF pf FOR VALUES IN ('a');
CREATE TABLE pf_b PARTITION OF pf FOR VALUES IN ('b');
CREATE INDEX pf_k ON pf USING artrie (k);
INSERT INTO pf VALUES ('apple'), ('apply'), ('banana');
EXPLAIN (COSTS OFF) SELECT k FROM pf WHERE k ^@ 'ap';
EXPLAIN (COSTS OFF) SELECT k FROM pf WHERE left(k, 1) = 'a' AND k ^@ 'ap';
SELECT k FROM pf WHERE left(k, 1) = 'a' AND k ^@ 'ap' ORDER BY k;
DROP TABLE pf;
SELECT k, count(*) FROM pw WHERE k ^@ 'ap' GROUP BY k ORDER BY k;
SELECT k, count(*) FROM pw WHERE k LIKE 'ma%' GROUP BY k ORDER BY k;
SELECT count(*) FROM pw WHERE k = 'zoo';
EXPLAIN (COSTS OFF) SELECT k FROM pw ORDER BY k LIMIT 4;
SELECT k FROM pw ORDER BY k LIMIT 4;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- The functions given the partitioned index answer over all partitions,
-- as a query of the table would.
SELECT artrie_complete('pw_k', '', 100) AS k
EXCEPT ALL SELECT DISTINCT k FROM pw WHERE k IS NOT NULL;
SELECT count(*) FROM artrie_complete('pw_k', '', 100);
SELECT artrie_complete('pw_k', 'ma', 2);
SELECT artrie_complete('pw_k', '', 3);
SELECT artrie_complete('pw_k', 'm', 100);
SELECT artrie_complete('pw_k', 'q', 10);
SELECT artrie_complete('pw_k', 'a', 0);
SELECT artrie_prefix_count('pw_k', ''), (SELECT count(k) FROM pw);
SELECT artrie_prefix_count('pw_k', 'ma'), (SELECT count(*) FROM pw WHERE k ^@ 'ma');
SELECT artrie_prefixes_of('pw_k', 'applying');
SELECT artrie_prefixes_of('pw_k', 'mangos');
SELECT * FROM artrie_fuzzy('pw_k', 'mane', 1);
SELECT artrie_verify('pw_k');
SELECT artrie_verify('pw_k', true);

-- Keys in several partitions are given once.
CREATE TABLE pt (tenant int, path text COLLATE "C") PARTITION BY LIST (tenant);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES IN (1);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES IN (2);
CREATE TABLE pt_3 PARTITION OF pt FOR VALUES IN (3);
CREATE INDEX pt_path ON pt USING artrie (path);
INSERT INTO pt SELECT t, '/home/u' || (i % 7) || '/f' || i
FROM generate_series(1, 3) t, generate_series(1, 20) i WHERE i % t = 0;
SELECT artrie_complete('pt_path', '/home/u', 4);
SELECT array_agg(k) = (SELECT array_agg(path) FROM
  (SELECT DISTINCT path FROM pt WHERE path ^@ '/home/u' ORDER BY path LIMIT 4) d)
FROM artrie_complete('pt_path', '/home/u', 4) k;
SELECT array_agg(k ORDER BY k) = (SELECT array_agg(DISTINCT path ORDER BY path) FROM pt)
FROM artrie_complete('pt_path', '/', 1000) k;
SELECT artrie_prefix_count('pt_path', '/home/u1'),
  (SELECT count(*) FROM pt WHERE path ^@ '/home/u1');
SELECT * FROM artrie_fuzzy('pt_path', '/home/u1/f15', 1);
-- Every function given the partitioned index answers as given one index
-- on a table of all the rows.
CREATE TABLE pt_flat AS SELECT * FROM pt;
CREATE INDEX pt_flat_path ON pt_flat USING artrie (path);
WITH c AS (
  SELECT
  (SELECT array_agg(k) FROM artrie_complete('pt_path', p, n) k) IS NOT DISTINCT FROM
  (SELECT array_agg(k) FROM artrie_complete('pt_flat_path', p, n) k) AS complete,
  artrie_prefix_count('pt_path', p) = artrie_prefix_count('pt_flat_path', p) AS count,
  (SELECT array_agg(k) FROM artrie_prefixes_of('pt_path', p || '1') k) IS NOT DISTINCT FROM
  (SELECT array_agg(k) FROM artrie_prefixes_of('pt_flat_path', p || '1') k) AS prefixes_of,
  (SELECT array_agg(f) FROM artrie_fuzzy('pt_path', p, d) f) IS NOT DISTINCT FROM
  (SELECT array_agg(f) FROM artrie_fuzzy('pt_flat_path', p, d) f) AS fuzzy,
  (SELECT array_agg(f) FROM artrie_fuzzy_complete('pt_path', p, d, n) f) IS NOT DISTINCT FROM
  (SELECT array_agg(f) FROM artrie_fuzzy_complete('pt_flat_path', p, d, n) f) AS fuzzy_complete
  FROM unnest(ARRAY['', '/home/u1', '/home/u3/f1', '/home/u6/f20', '/hone/u2/f', 'x']) p,
    unnest(ARRAY[0, 1, 2]) d, unnest(ARRAY[1, 5, 100]) n)
SELECT count(*) AS cases, count(*) FILTER (WHERE complete) AS complete,
  count(*) FILTER (WHERE count) AS count, count(*) FILTER (WHERE prefixes_of) AS prefixes_of,
  count(*) FILTER (WHERE fuzzy) AS fuzzy, count(*) FILTER (WHERE fuzzy_complete) AS fuzzy_complete
FROM c;
SELECT count(*) FROM artrie_fuzzy_complete('pt_path', '/hone/u2/f', 1, 100);
DROP TABLE pt_flat;
-- Deleted rows are not completed; prefix_count counts them until VACUUM.
DELETE FROM pt WHERE path = '/home/u1/f8';
SELECT artrie_complete('pt_path', '/home/u1/', 10);
SELECT artrie_prefix_count('pt_path', '/home/u1/f8');
VACUUM pt;
SELECT artrie_prefix_count('pt_path', '/home/u1/f8');

-- A partition created later gets the index and is searched.
CREATE TABLE pt_4 PARTITION OF pt FOR VALUES IN (4);
INSERT INTO pt VALUES (4, '/home/u9/new');
SELECT c.relname, a.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'pt_4'::regclass;
SELECT artrie_complete('pt_path', '/home/u9', 10);

-- ATTACH PARTITION: a table with a matching artrie index keeps it (the
-- same file, attached, not rebuilt); a table without one gets a new index.
CREATE TABLE pt_5 (tenant int, path text COLLATE "C");
INSERT INTO pt_5 VALUES (5, '/home/u5/attached');
CREATE INDEX pt_5_own ON pt_5 USING artrie (path);
CREATE TEMP TABLE pt_5_file AS SELECT file FROM artrie_index_info('pt_5_own');
ALTER TABLE pt ATTACH PARTITION pt_5 FOR VALUES IN (5);
SELECT inhparent::regclass FROM pg_inherits WHERE inhrelid = 'pt_5_own'::regclass;
SELECT f.file = o.file AS same_file FROM artrie_index_info('pt_5_own') f, pt_5_file o;
CREATE TABLE pt_6 (tenant int, path text COLLATE "C");
CREATE INDEX pt_6_btree ON pt_6 (path);
INSERT INTO pt_6 VALUES (6, '/home/u6/attached');
ALTER TABLE pt ATTACH PARTITION pt_6 FOR VALUES IN (6);
SELECT c.relname, a.amname, EXISTS (SELECT FROM pg_inherits WHERE inhrelid = c.oid) AS attached
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'pt_6'::regclass ORDER BY 1;
SELECT artrie_complete('pt_path', '/home/u', 100) k
EXCEPT ALL SELECT DISTINCT path FROM pt;
SELECT artrie_prefix_count('pt_path', '/home/u5'), artrie_prefix_count('pt_path', '/home/u6');

-- DETACH PARTITION, plain and CONCURRENTLY: the partition's index stays an
-- artrie index of its own table, and the partitioned index no longer
-- answers for it.
ALTER TABLE pt DETACH PARTITION pt_5;
ALTER TABLE pt DETACH PARTITION pt_6 CONCURRENTLY;
SELECT c.relname, EXISTS (SELECT FROM pg_inherits WHERE inhrelid = c.oid) AS attached
FROM pg_class c WHERE c.oid IN ('pt_5_own'::regclass,
  (SELECT indexrelid FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
   WHERE indrelid = 'pt_6'::regclass AND ic.relam = (SELECT oid FROM pg_am WHERE amname = 'artrie')))
ORDER BY 1;
SELECT artrie_prefix_count('pt_path', '/home/u5'), artrie_prefix_count('pt_path', '/home/u6');
SELECT artrie_complete('pt_5_own', '/home/', 10);
SELECT artrie_verify('pt_5_own', true);
SELECT count(*) FROM artrie_indexes WHERE "table"::text IN ('pt_5', 'pt_6');

-- Sub-partitions: the leaves under every level are searched.
CREATE TABLE pt_7 PARTITION OF pt FOR VALUES IN (7) PARTITION BY RANGE (path);
CREATE TABLE pt_7a PARTITION OF pt_7 FOR VALUES FROM (MINVALUE) TO ('/home/u5');
CREATE TABLE pt_7b PARTITION OF pt_7 FOR VALUES FROM ('/home/u5') TO (MAXVALUE);
INSERT INTO pt VALUES (7, '/home/u1/seven'), (7, '/home/u8/seven');
SELECT artrie_complete('pt_path', '/home/u8', 10);
SELECT artrie_prefix_count('pt_path', ''), (SELECT count(path) FROM pt);
SELECT count(*) FROM pg_partition_tree('pt_path') WHERE isleaf;

-- Building the index without blocking writes, as pg_dump restores it:
-- CREATE INDEX ON ONLY the partitioned table (invalid until every
-- partition's index is attached), CREATE INDEX CONCURRENTLY on each
-- partition, ALTER INDEX ... ATTACH PARTITION.
CREATE TABLE pc (id int, k text COLLATE "C") PARTITION BY RANGE (id);
CREATE TABLE pc_1 PARTITION OF pc FOR VALUES FROM (0) TO (100);
CREATE TABLE pc_2 PARTITION OF pc FOR VALUES FROM (100) TO (200);
INSERT INTO pc SELECT g, 'c/' || g FROM generate_series(0, 199) g;
-- Until then the functions refuse it: it would answer for some partitions
-- only.
CREATE INDEX pc_k ON ONLY pc USING artrie (k);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'pc_k'::regclass;
SELECT artrie_prefix_count('pc_k', 'c/');
CREATE INDEX CONCURRENTLY pc_1_k ON pc_1 USING artrie (k);
CREATE INDEX CONCURRENTLY pc_2_k ON pc_2 USING artrie (k);
ALTER INDEX pc_k ATTACH PARTITION pc_1_k;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'pc_k'::regclass;
SELECT artrie_complete('pc_k', 'c/', 1);
ALTER INDEX pc_k ATTACH PARTITION pc_2_k;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'pc_k'::regclass;
SELECT artrie_prefix_count('pc_k', 'c/'), artrie_prefix_count('pc_k', 'c/1');
SELECT artrie_complete('pc_k', 'c/19', 3);
SELECT artrie_verify('pc_k', true);
DROP TABLE pc;
-- So is an index that a failed CREATE INDEX CONCURRENTLY left invalid.
CREATE TABLE pi (k text COLLATE "C");
INSERT INTO pi VALUES ('a'), ('b'), ('b');
CREATE UNIQUE INDEX CONCURRENTLY pi_k ON pi USING artrie (k);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'pi_k'::regclass;
SELECT artrie_complete('pi_k', '', 10);
SELECT artrie_verify('pi_k');
REINDEX INDEX pi_k;
DELETE FROM pi WHERE ctid = (SELECT max(ctid) FROM pi);
REINDEX INDEX pi_k;
SELECT artrie_complete('pi_k', '', 10);
DROP TABLE pi;

-- What answers for one index only refuses a partitioned index, with a
-- hint; so do indexes of other access methods.
SELECT artrie_stats('pw_k');
SELECT * FROM artrie_index_info('pw_k');
CREATE INDEX pw_btree ON pw (k);
SELECT artrie_complete('pw_btree', 'a', 1);
-- A partitioned table without partitions: nothing to answer.
CREATE TABLE pe (k text COLLATE "C") PARTITION BY LIST (k);
CREATE INDEX pe_k ON pe USING artrie (k);
SELECT artrie_complete('pe_k', '', 10);
SELECT artrie_prefix_count('pe_k', '');
SELECT artrie_verify('pe_k');

-- Privileges: SELECT on the partitioned table is enough for its index,
-- as for a query through it; a partition's own index needs the partition.
CREATE ROLE artrie_part_reader;
GRANT SELECT ON pt TO artrie_part_reader;
SET ROLE artrie_part_reader;
SELECT artrie_prefix_count('pt_path', '/home/u1/seven');
SELECT artrie_complete('pt_path', '/home/u1/s', 10);
SELECT artrie_complete('pt_1_path_idx', '/home/u1/', 1);
RESET ROLE;
-- Row-level security on the partitioned table refuses the functions.
ALTER TABLE pt ENABLE ROW LEVEL SECURITY;
CREATE POLICY pt_tenant ON pt USING (tenant = 1);
SET ROLE artrie_part_reader;
SELECT artrie_complete('pt_path', '/home/', 1);
RESET ROLE;
DROP POLICY pt_tenant ON pt;
ALTER TABLE pt DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON pt FROM artrie_part_reader;
DROP ROLE artrie_part_reader;

-- DROP INDEX of the partitioned index drops the partitions' indexes.
DROP INDEX pt_path;
SELECT count(*) FROM artrie_indexes
WHERE "table"::text LIKE 'pt%' AND "table"::text NOT IN ('pt_5', 'pt_6');
-- UNIQUE on a partitioned table: PostgreSQL 15 matches the partition key
-- to btree indexes only, so it refuses artrie's; each partition may have
-- its own UNIQUE artrie index.
CREATE TABLE pu (k text COLLATE "C") PARTITION BY RANGE (k);
CREATE TABLE pu_1 PARTITION OF pu FOR VALUES FROM (MINVALUE) TO ('m');
CREATE TABLE pu_2 PARTITION OF pu FOR VALUES FROM ('m') TO (MAXVALUE);
CREATE UNIQUE INDEX pu_k ON pu USING artrie (k);
CREATE UNIQUE INDEX pu_1_k ON pu_1 USING artrie (k);
INSERT INTO pu VALUES ('kiwi'), ('melon');
INSERT INTO pu VALUES ('kiwi');
DROP TABLE pw, pt, pt_5, pt_6, pe, pu;
