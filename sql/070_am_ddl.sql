-- artrie indexes through DDL that rebuilds them: CREATE INDEX
-- CONCURRENTLY, REINDEX [CONCURRENTLY], VACUUM FULL, CLUSTER, partitioned
-- tables (ordered Merge Append over the partitions' indexes), rollback.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

CREATE TABLE dt (id int, k text COLLATE "C");
INSERT INTO dt SELECT i, 'k' || i FROM generate_series(1, 10000) i;
INSERT INTO dt VALUES (0, NULL);
CREATE INDEX CONCURRENTLY dt_k ON dt USING artrie (k);
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'dt_k'::regclass;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE k ^@ 'k1';
SELECT count(*) FROM dt WHERE k ^@ 'k1';
REINDEX INDEX CONCURRENTLY dt_k;
SELECT count(*) FROM dt WHERE k ^@ 'k1';
REINDEX TABLE dt;
SELECT count(*) FROM dt WHERE k ^@ 'k1';
DELETE FROM dt WHERE id % 3 = 0;
VACUUM FULL dt;
SELECT count(*) FROM dt WHERE k ^@ 'k1';
SELECT id FROM dt WHERE k IS NULL;
CREATE INDEX dt_id ON dt (id);
CLUSTER dt USING dt_id;
SELECT count(*) FROM dt WHERE k ^@ 'k1';
SELECT k FROM dt ORDER BY k DESC LIMIT 3;

-- A rolled-back CREATE INDEX leaves nothing behind that the table needs.
BEGIN;
CREATE INDEX dt_k2 ON dt USING artrie (k);
ROLLBACK;
BEGIN;
SAVEPOINT s;
CREATE INDEX dt_k2 ON dt USING artrie (k);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT count(*) FROM pg_class WHERE relname = 'dt_k2';
SELECT count(*) FROM dt WHERE k ^@ 'k2';

-- Partitioned tables: one artrie index per partition, merged in order.
CREATE TABLE pt (id int, k text COLLATE "C") PARTITION BY RANGE (id);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (5000);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (5000) TO (20000);
INSERT INTO pt SELECT i, 'k' || i FROM generate_series(1, 10000) i;
CREATE INDEX pt_k ON pt USING artrie (k);
ANALYZE pt;
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE k = 'k42';
SELECT id FROM pt WHERE k = 'k42';
SELECT id FROM pt WHERE k ^@ 'k999' ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM pt ORDER BY k LIMIT 3;
SELECT k FROM pt ORDER BY k LIMIT 3;
CREATE TABLE pt3 PARTITION OF pt FOR VALUES FROM (20000) TO (30000);
INSERT INTO pt VALUES (25000, 'k42');
SELECT id FROM pt WHERE k = 'k42' ORDER BY id;

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE dt, pt;
