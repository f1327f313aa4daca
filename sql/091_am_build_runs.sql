-- CREATE INDEX whose entries outgrow maintenance_work_mem: the build sorts
-- what fits in memory, writes it out as a sorted run, reuses the memory,
-- and at the end merges the runs with the last entries, sorted in memory.
-- With trace_sort on it logs each run and the merge (the counts follow
-- from the memory, 1MB, and the entries' lengths: 41 bytes and a 24-byte
-- sort item each).  The index must answer as the table does, the NULL
-- trie's entries included (in runs and in memory), and a UNIQUE build
-- must find duplicates whose rows went to different runs.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

CREATE TABLE br (id int, k text COLLATE "C");
INSERT INTO br
	SELECT g, CASE WHEN g % 997 = 0 THEN NULL ELSE md5(g::text) END
	FROM generate_series(1, 60000) g;
VACUUM ANALYZE br;
CREATE TEMP TABLE br_want AS SELECT k FROM br WHERE k IS NOT NULL;

SET maintenance_work_mem = '1MB';
SET trace_sort = on;
SET client_min_messages = log;
CREATE INDEX br_k ON br USING artrie (k);
RESET client_min_messages;
RESET trace_sort;
SELECT artrie_verify('br_k');

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM br WHERE k >= '' ORDER BY k;
-- every key, in order, through the index
SELECT (SELECT array_agg(k) FROM (SELECT k FROM br WHERE k >= '' ORDER BY k) s) =
	(SELECT array_agg(k ORDER BY k) FROM br_want) AS same_keys_in_order;
SELECT count(*) FROM br WHERE k IS NULL;
SELECT id FROM br WHERE k = md5('5');
SELECT id FROM br WHERE k = md5('59999');
RESET enable_seqscan;
RESET enable_bitmapscan;

-- A duplicate of row 5's key (in the first run) in the last row (in
-- memory), then NULLs under NULLS NOT DISTINCT in rows 997 and 59,823.
INSERT INTO br VALUES (60001, md5('5'));
CREATE UNIQUE INDEX br_u ON br USING artrie (k);
DELETE FROM br WHERE id = 60001;
CREATE UNIQUE INDEX br_u ON br USING artrie (k) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX br_u ON br USING artrie (k);
SELECT artrie_verify('br_u');
RESET maintenance_work_mem;
DROP TABLE br;
