-- artrie_fuzzy_complete against brute force on the Debian word lists
-- (American English and Bulgarian, whose letters take two bytes in UTF-8):
-- the keys and their order must equal fuzzystrmatch's levenshtein() taken
-- over every prefix of every distinct word, for whole result sets and for
-- small max_results, before and after the best matches' rows are deleted;
-- then bad arguments.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
RESET client_min_messages;
SET jit = off;

CREATE TABLE fc_words (id serial PRIMARY KEY, w text);
CREATE TEMP TABLE fc_load (w text);
COPY fc_load FROM '/usr/share/dict/american-english-insane' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02');
COPY fc_load FROM '/usr/share/dict/bulgarian' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02');
INSERT INTO fc_words (w) SELECT w FROM fc_load;
-- Duplicates and NULLs: keys come once, NULLs never.
INSERT INTO fc_words (w) SELECT w FROM fc_words WHERE id % 50 = 0;
INSERT INTO fc_words (w) VALUES (NULL), (NULL), ('');
DROP TABLE fc_load;
CREATE INDEX fc_w ON fc_words USING artrie (w);

-- The brute force: a word's prefix distance is the least levenshtein()
-- between the prefix and the word's first i characters; only i within
-- max_distance of the prefix's length can be within max_distance (left()
-- of more characters than the word has is the whole word, still one of its
-- prefixes).  The matches are numbered by distance, then key bytes.
CREATE FUNCTION brute_complete(p text, d int)
RETURNS TABLE (n bigint, key text, distance int)
LANGUAGE plpgsql AS $$
DECLARE
  dist text;
BEGIN
  SELECT 'least(' || string_agg(format('levenshtein_less_equal(%L, left(w, %s), %s)',
									   p, i, d), ', ') || ')'
  INTO dist
  FROM generate_series(greatest(char_length(p) - d, 0), char_length(p) + d) i;
  RETURN QUERY EXECUTE format(
	'SELECT row_number() OVER (ORDER BY dist, w COLLATE "C"), w, dist
	 FROM (SELECT w, %s AS dist FROM (SELECT DISTINCT w FROM fc_words WHERE w IS NOT NULL) ws) s
	 WHERE dist <= %s', dist, d);
END
$$;

-- For one prefix and distance: how many keys match, whether artrie
-- returns exactly them in the same order (every match, then the first 1,
-- 10 and 100), and whether every distance is right.
CREATE FUNCTION fc_check(p text, d int)
RETURNS TABLE (matches bigint, same_all bool, same_1 bool, same_10 bool,
			   same_100 bool)
LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE fc_ref AS SELECT * FROM brute_complete(p, d);
  RETURN QUERY
  SELECT (SELECT count(*) FROM fc_ref),
	(SELECT array_agg(ROW(a.key, a.distance)::text)
	 FROM artrie_fuzzy_complete('fc_w', p, d, 1000000) a) IS NOT DISTINCT FROM
	(SELECT array_agg(ROW(r.key, r.distance)::text ORDER BY r.n) FROM fc_ref r),
	(SELECT array_agg(ROW(a.key, a.distance)::text)
	 FROM artrie_fuzzy_complete('fc_w', p, d, 1) a) IS NOT DISTINCT FROM
	(SELECT array_agg(ROW(r.key, r.distance)::text ORDER BY r.n) FROM fc_ref r WHERE r.n <= 1),
	(SELECT array_agg(ROW(a.key, a.distance)::text)
	 FROM artrie_fuzzy_complete('fc_w', p, d, 10) a) IS NOT DISTINCT FROM
	(SELECT array_agg(ROW(r.key, r.distance)::text ORDER BY r.n) FROM fc_ref r WHERE r.n <= 10),
	(SELECT array_agg(ROW(a.key, a.distance)::text)
	 FROM artrie_fuzzy_complete('fc_w', p, d, 100) a) IS NOT DISTINCT FROM
	(SELECT array_agg(ROW(r.key, r.distance)::text ORDER BY r.n) FROM fc_ref r WHERE r.n <= 100);
  DROP TABLE fc_ref;
END
$$;

SELECT * FROM fc_check('recieve', 1);
SELECT * FROM fc_check('acomod', 2);
SELECT * FROM fc_check('xylophne', 2);
SELECT * FROM fc_check('th', 1);
SELECT * FROM fc_check('qz', 1);
-- Bulgarian: one edit is one letter (two bytes), as levenshtein() counts.
SELECT * FROM fc_check('здравй', 1);
SELECT * FROM fc_check('бълграск', 2);
SELECT key, distance FROM artrie_fuzzy_complete('fc_w', 'кщта', 1, 5);

-- Rows deleted (not yet vacuumed) are not returned: the first 25 keys
-- lose their rows, and the function still fills max_results from the
-- keys after them.
DELETE FROM fc_words WHERE w IN
  (SELECT key FROM artrie_fuzzy_complete('fc_w', 'th', 1, 25));
SELECT * FROM fc_check('th', 1);
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', 'th', 1, 10);

-- With transpositions, an adjacent swap is one edit.
SELECT key, distance FROM artrie_fuzzy_complete('fc_w', 'recieve', 1, 3, true);

-- A partitioned index answers as one index over the same rows would: the
-- first keys of all partitions, each once (the second partition holds
-- copies of words in the first).
CREATE TABLE fc_parts (id int, w text) PARTITION BY RANGE (id);
CREATE TABLE fc_parts_1 PARTITION OF fc_parts FOR VALUES FROM (MINVALUE) TO (1000000);
CREATE TABLE fc_parts_2 PARTITION OF fc_parts FOR VALUES FROM (1000000) TO (MAXVALUE);
INSERT INTO fc_parts SELECT id, w FROM fc_words WHERE w ^@ 't' OR w ^@ 'h' OR w ^@ 'д';
CREATE INDEX fc_parts_w ON fc_parts USING artrie (w);
CREATE TABLE fc_flat AS SELECT * FROM fc_parts;
CREATE INDEX fc_flat_w ON fc_flat USING artrie (w);
SELECT p, d, n,
  array(SELECT ROW(key, distance)::text FROM artrie_fuzzy_complete('fc_parts_w', p, d, n)) =
  array(SELECT ROW(key, distance)::text FROM artrie_fuzzy_complete('fc_flat_w', p, d, n)) AS same
FROM (VALUES ('th', 1, 50), ('thr', 2, 1000), ('дом', 1, 30), ('x', 1, 5)) v(p, d, n);
DROP TABLE fc_parts, fc_flat;

-- Bad arguments.  NULLs give no rows (the function is strict).
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', NULL, 1);
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', 'ab', NULL);
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', 'ab', 1, NULL);
SELECT count(*) FROM artrie_fuzzy_complete(NULL, 'ab', 1);
-- A negative distance, a distance above the limit of 3, a negative
-- max_results: errors.
SELECT * FROM artrie_fuzzy_complete('fc_w', 'ab', -1);
SELECT * FROM artrie_fuzzy_complete('fc_w', 'ab', 4);
SELECT * FROM artrie_fuzzy_complete('fc_w', 'ab', 2147483647);
SELECT * FROM artrie_fuzzy_complete('fc_w', 'ab', 1, -1);
-- max_results 0: no rows.
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', 'ab', 1, 0);
-- The empty prefix is within 0 edits of every key: the first keys in byte
-- order, the empty key first.
SELECT array(SELECT key FROM artrie_fuzzy_complete('fc_w', '', 0, 20)) =
  array(SELECT artrie_complete('fc_w', '', 20)) AS empty_prefix_completes,
  (SELECT bool_and(distance = 0) FROM artrie_fuzzy_complete('fc_w', '', 3, 20)) AS at_distance_0;
-- A prefix no longer than the distance is within reach of every key.
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', 'zz', 2, 1000);
-- Invalid bytes never reach the function; too long a prefix is refused.
SELECT * FROM artrie_fuzzy_complete('fc_w', E'\xff', 1);
SELECT * FROM artrie_fuzzy_complete('fc_w', repeat('a', 256), 1);
SELECT count(*) FROM artrie_fuzzy_complete('fc_w', repeat('é', 255), 1);
-- Not an artrie index.
CREATE INDEX fc_btree ON fc_words (id);
SELECT * FROM artrie_fuzzy_complete('fc_btree', 'ab', 1);

DROP TABLE fc_words;
DROP FUNCTION fc_check(text, int);
DROP FUNCTION brute_complete(text, int);
