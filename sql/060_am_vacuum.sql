-- VACUUM on artrie: dead entries go, the count VACUUM reports is exact,
-- and an index whose rows were all deleted and vacuumed shrinks back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- Autovacuum stays off these tables: its ANALYZE of one beside a VACUUM
-- here would hold back the dead rows that VACUUM counts and removes.
CREATE TABLE vt (id int, k text COLLATE "C") WITH (autovacuum_enabled = off);
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

-- VACUUM deletes the dead entries a group at a time: groups ended by
-- their count (1024 entries) and by their bytes (64 kB), dead keys
-- larger than a whole group (96 kB), and live keys between them.
CREATE TABLE vl (id int, k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO vl SELECT i, CASE WHEN i % 500 = 0 THEN repeat(md5(i::text), 3000)
	ELSE 'k' || lpad(i::text, 6, '0') END FROM generate_series(1, 5000) i;
CREATE INDEX vl_k ON vl USING artrie (k);
DELETE FROM vl WHERE id % 7 <> 0 OR id % 1000 = 0;
VACUUM vl;
SELECT reltuples FROM pg_class WHERE relname = 'vl_k';
SELECT count(*), sum(length(k)) FROM vl WHERE k >= '';
SELECT count(*) FROM vl WHERE k ^@ 'k0049';
SELECT artrie_verify('vl_k', true);
DELETE FROM vl;
VACUUM vl;
SELECT reltuples FROM pg_class WHERE relname = 'vl_k';
SELECT count(*) FROM vl WHERE k >= '';

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE vt;
DROP TABLE vl;
