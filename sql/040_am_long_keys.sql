-- Keys far beyond btree's 2704-byte limit: 10 KiB and 1 MiB keys are
-- indexed and found; a key longer than the trie's maximum is refused.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

CREATE TABLE lk (id int, k text COLLATE "C");
ALTER TABLE lk ALTER COLUMN k SET STORAGE EXTERNAL;
CREATE INDEX lk_k ON lk USING artrie (k);

-- 10 KiB keys differing only in their last byte, and a shared 10 KiB prefix.
INSERT INTO lk SELECT i, repeat('x', 10240) || chr(64 + i) FROM generate_series(1, 20) i;
-- 1 MiB keys (compressible and not).
INSERT INTO lk VALUES (100, repeat('y', 1048576));
INSERT INTO lk VALUES (101, repeat('y', 1048575) || 'z');
INSERT INTO lk SELECT 102, string_agg(md5(i::text), '') FROM generate_series(1, 32768) i;
INSERT INTO lk VALUES (103, 'short');

-- btree cannot index these rows.
CREATE INDEX lk_btree ON lk USING btree (k);

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE k = (SELECT repeat('x', 10240) || 'K');
SELECT id FROM lk WHERE k = repeat('x', 10240) || 'K';
SELECT count(*) FROM lk WHERE k ^@ repeat('x', 10240);
SELECT id FROM lk WHERE k ^@ (repeat('x', 10240) || 'B') ORDER BY id;
SELECT id FROM lk WHERE k = repeat('y', 1048576);
SELECT id FROM lk WHERE k = repeat('y', 1048575) || 'z';
SELECT id FROM lk WHERE k ^@ repeat('y', 1048575) ORDER BY id;
SELECT id FROM lk WHERE k = (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 32768) i);
SELECT id FROM lk WHERE k > repeat('x', 10240) || 'S' ORDER BY k;
SELECT id, length(k) FROM lk ORDER BY k DESC LIMIT 4;

-- Index-only scans return the whole key.
VACUUM lk;
EXPLAIN (COSTS OFF) SELECT length(k), md5(k) FROM lk WHERE k ^@ 'yy';
SELECT length(k), md5(k) = md5(repeat('y', 1048576)) AS same FROM lk WHERE k ^@ 'yy' ORDER BY k;

-- A bulk build of long keys, and after VACUUM removes some.
DELETE FROM lk WHERE id % 2 = 0;
VACUUM lk;
SELECT id FROM lk WHERE k ^@ 'x' ORDER BY id;
REINDEX INDEX lk_k;
SELECT id FROM lk WHERE k ^@ 'x' ORDER BY id;
SELECT id FROM lk WHERE k = repeat('y', 1048575) || 'z';

-- Beyond the maximum (1 MiB + 57 bytes of key): a clear error, both in
-- aminsert and in CREATE INDEX.
INSERT INTO lk VALUES (200, repeat('w', 1048576 + 100));
TRUNCATE lk;
DROP INDEX lk_k;
INSERT INTO lk VALUES (200, repeat('w', 1048576 + 100));
CREATE INDEX lk_k ON lk USING artrie (k);

-- Keys whose paths run through more pages than a process may hold
-- LWLocks (200): a 1 MiB run of 'x' branching every 4,000 bytes.  A scan
-- keeps locked only the pages it may still read, and at most 64.
TRUNCATE lk;
CREATE INDEX lk_k ON lk USING artrie (k);
INSERT INTO lk SELECT n, repeat('x', n * 4000) || 'd' FROM generate_series(1, 250) n;
INSERT INTO lk VALUES (0, repeat('x', 1048576));
SELECT (artrie_stats('lk_k', true)->'key_trie'->>'page_height')::int > 250 AS deep;
SELECT count(*) FROM lk WHERE k ^@ 'xxx';
SELECT id FROM lk WHERE k > repeat('x', 600000) ORDER BY k LIMIT 3;
SELECT id FROM lk WHERE k = repeat('x', 200 * 4000) || 'd';
SELECT id FROM lk WHERE k < repeat('x', 8001) ORDER BY k DESC;
INSERT INTO lk SELECT n, repeat('x', n * 4000) || 'y' FROM generate_series(200, 250) n;
SELECT count(*) FROM lk WHERE k ^@ repeat('x', 799000);
SELECT id, right(k, 1) FROM lk WHERE k > repeat('x', 999000) ORDER BY k LIMIT 4;
SELECT artrie_verify('lk_k', true);

-- VACUUM of such entries, deepest first: a delete whose path is longer
-- than 64 pages changes it page by page.
DELETE FROM lk WHERE id % 3 = 0 OR id = 0;
VACUUM lk;
SELECT count(*) FROM lk WHERE k ^@ 'xxx';
SELECT count(*), min(id), max(id) FROM lk WHERE k ^@ repeat('x', 799000);
SELECT id FROM lk WHERE k = repeat('x', 249 * 4000) || 'y';
SELECT id FROM lk WHERE k = repeat('x', 1048576);
SELECT artrie_verify('lk_k', true);
DELETE FROM lk;
VACUUM lk;
SELECT count(*) FROM lk WHERE k ^@ 'x';
SELECT (artrie_stats('lk_k', true)->'key_trie'->>'pages')::int AS pages_left;
SELECT artrie_verify('lk_k', true);

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE lk;
