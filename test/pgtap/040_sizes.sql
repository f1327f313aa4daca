-- Sizes: artrie_stats and the view artrie_indexes report an index's real
-- size on disk (its artrie file as pg_stat_file sees it, plus the main
-- fork's metapage, all that pg_relation_size sees); a small index has a
-- small file; the view lists every artrie index with its entries.
\ir setup.psql

BEGIN;
SELECT plan(14);

CREATE TABLE sz_one (w text);
INSERT INTO sz_one VALUES ('only');
CREATE INDEX sz_one_idx ON sz_one USING artrie (w);
CREATE TABLE sz_big (w text);
INSERT INTO sz_big SELECT 'key/' || (i % 1000) || '/' || i FROM generate_series(1, 1000000) i;
CREATE INDEX sz_big_idx ON sz_big USING artrie (w);

CREATE TEMP TABLE sz AS
SELECT c.relname::text AS name,
	(artrie_stats(c.oid)->>'file_bytes')::bigint AS file_bytes,
	(artrie_stats(c.oid)->>'bytes_on_disk')::bigint AS bytes_on_disk,
	(pg_stat_file(artrie_stats(c.oid)->>'file')).size AS stat_size,
	pg_relation_size(c.oid) AS fork_bytes
FROM pg_class c WHERE c.relname IN ('sz_one_idx', 'sz_big_idx');

-- Both indexes: the sizes reported are the file's and the main fork's.
SELECT is(file_bytes, stat_size, name || ': file_bytes is the file''s size')
	FROM sz ORDER BY name;
SELECT is(bytes_on_disk, stat_size + fork_bytes,
	name || ': bytes_on_disk is the file and the main fork')
	FROM sz ORDER BY name;

SELECT cmp_ok((SELECT file_bytes FROM sz WHERE name = 'sz_one_idx'), '<', 256 * 1024::bigint,
	'a 1-row index''s file is under 256 kB');
SELECT cmp_ok((SELECT file_bytes FROM sz WHERE name = 'sz_big_idx'), '>', 4 * 1024 * 1024::bigint,
	'a 1M-row index''s file holds its megabytes');
SELECT is((SELECT fork_bytes FROM sz WHERE name = 'sz_big_idx'), 8192::bigint,
	'pg_relation_size sees only the metapage of the main fork');

-- The view.
SELECT is((SELECT count(*)::int FROM artrie_indexes WHERE "table"::text IN ('sz_one', 'sz_big')),
	2, 'artrie_indexes lists both indexes');
SELECT is((SELECT entries FROM artrie_indexes WHERE index = 'sz_one_idx'::regclass), 1::bigint,
	'artrie_indexes: the 1-row index has 1 entry');
SELECT is((SELECT entries FROM artrie_indexes WHERE index = 'sz_big_idx'::regclass), 1000000::bigint,
	'artrie_indexes: the big index has 1,000,000 entries');
SELECT is((SELECT bytes_on_disk FROM artrie_indexes WHERE index = 'sz_big_idx'::regclass),
	(SELECT bytes_on_disk FROM sz WHERE name = 'sz_big_idx'),
	'artrie_indexes: bytes_on_disk as artrie_stats reports it');
SELECT is((SELECT "table" FROM artrie_indexes WHERE index = 'sz_big_idx'::regclass),
	'sz_big'::regclass, 'artrie_indexes: the table');
SELECT ok((SELECT checkpoint > 0 AND problem IS NULL AND pool_hit_ratio BETWEEN 0 AND 1
		FROM artrie_indexes WHERE index = 'sz_big_idx'::regclass),
	'artrie_indexes: the file''s checkpoint and the pool''s hit ratio, no problem');
SELECT is((SELECT count(*)::int FROM artrie_indexes a JOIN pg_class c ON c.oid = a.index
		JOIN pg_am m ON m.oid = c.relam WHERE m.amname <> 'artrie'),
	0, 'artrie_indexes lists only artrie indexes');

SELECT * FROM finish();
ROLLBACK;
