-- VACUUM on artrie: dead entries go, the count VACUUM reports is exact,
-- and an index whose rows were all deleted and vacuumed shrinks back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

CREATE TABLE vt (id int, k text COLLATE "C");
INSERT INTO vt SELECT i, 'key' || i || repeat('z', i % 50) FROM generate_series(1, 100000) i;
INSERT INTO vt SELECT -i, NULL FROM generate_series(1, 100) i;
CREATE INDEX vt_k ON vt USING artrie (k);
VACUUM vt;
SELECT relpages > 100 AS big, reltuples FROM pg_class WHERE relname = 'vt_k';

-- Half the rows go: VACUUM removes their entries and counts the rest.
DELETE FROM vt WHERE id % 2 = 0;
VACUUM vt;
SELECT reltuples FROM pg_class WHERE relname = 'vt_k';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM vt WHERE k ^@ 'key1';
SELECT count(*) FROM vt WHERE k IS NULL;
SELECT count(*) FROM vt WHERE k = 'key2';
SELECT count(*) FROM vt WHERE k = 'key3zzz';

-- Every row goes: the index shrinks to almost nothing, and still works.
DELETE FROM vt;
VACUUM vt;
SELECT relpages < 10 AS shrunk, reltuples FROM pg_class WHERE relname = 'vt_k';
INSERT INTO vt VALUES (1, 'again'), (2, NULL);
SELECT id FROM vt WHERE k = 'again';
SELECT id FROM vt WHERE k IS NULL;

-- VACUUM with nothing to delete still reports the exact count.
VACUUM vt;
SELECT reltuples FROM pg_class WHERE relname = 'vt_k';

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE vt;
