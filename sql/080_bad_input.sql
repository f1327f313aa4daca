-- Bad and extreme input (issue 9, item 2): each case gives the right
-- answer, checked against a sequential scan or plain SQL, or a clear
-- ERROR.  NULLs and '' through every operator; keys at, just under and
-- just above the maximum; the empty prefix; LIKE escapes and wildcards;
-- = ANY with 100K elements; artrie_fuzzy at its extremes; functions given
-- what is not an artrie index.  Control characters and 0xFF bytes in a
-- SQL_ASCII database, and one key on 1M rows, are in
-- test/t/080_bad_input.pl (pg_regress cannot create that database).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- Runs "SELECT ... FROM tbl WHERE pred" as a plain index scan, a bitmap
-- scan and a sequential scan: the rows each finds, whether all three found
-- the same rows (ids and keys), and whether the first two used the index.
CREATE FUNCTION bi_check(tbl text, pred text)
RETURNS TABLE (nrows bigint, same_rows bool, index_scan bool, bitmap_scan bool)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT count(*), md5(coalesce(string_agg(id || '':'' || coalesce(md5(k), ''-''), '','' ORDER BY id), '''')) FROM %I WHERE %s', tbl, pred);
  scan text;
  plan text;
  line text;
  n bigint[] := '{}';
  h text[] := '{}';
  one_n bigint;
  one_h text;
BEGIN
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  FOREACH scan IN ARRAY ARRAY['indexscan', 'bitmapscan', 'seqscan'] LOOP
    PERFORM set_config('enable_indexscan', (scan = 'indexscan')::text, true);
    PERFORM set_config('enable_bitmapscan', (scan = 'bitmapscan')::text, true);
    PERFORM set_config('enable_seqscan', (scan = 'seqscan')::text, true);
    plan := '';
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      plan := plan || line || E'\n';
    END LOOP;
    IF scan = 'indexscan' THEN
      index_scan := position('Index Scan using ' || tbl || '_k' IN plan) > 0;
    ELSIF scan = 'bitmapscan' THEN
      bitmap_scan := position('Bitmap Index Scan on ' || tbl || '_k' IN plan) > 0;
    END IF;
    EXECUTE q INTO one_n, one_h;
    n := n || one_n;
    h := h || one_h;
  END LOOP;
  nrows := n[3];
  same_rows := n[1] = n[3] AND n[2] = n[3] AND h[1] = h[3] AND h[2] = h[3];
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_indexonlyscan', 'on', true);
  PERFORM set_config('enable_bitmapscan', 'on', true);
  RETURN NEXT;
END $$;

-- Calls a statement and reports its error with digits (OIDs) masked.
CREATE FUNCTION bi_error(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N', 'g');
END $$;

CREATE TABLE bi (id serial PRIMARY KEY, k text COLLATE "C");
-- 5000 hex keys of 1 to 12 characters (many shared prefixes, duplicates
-- among the short ones), and keys made for the cases below: 3 NULLs, 2
-- empty strings, LIKE's special characters, single characters.
INSERT INTO bi (k) SELECT substr(md5(i::text), 1, 1 + i % 12) FROM generate_series(1, 5000) i;
INSERT INTO bi (k) VALUES (NULL), (NULL), (''), (NULL), (''),
  ('a%b'), ('a%bc'), ('a%'), ('a\%b'), ('a\'), ('a%xb'),
  ('ab_c'), ('ab_cd'), ('abxc'), ('ab\_c'), ('ab\_cd'),
  ('%'), ('_'), ('\'), ('x'), ('xx'), ('ax'), ('é'), ('xé'), ('aéx'),
  ('ABC'), (E'\t'), (' ');
CREATE INDEX bi_k ON bi USING artrie (k);
ANALYZE bi;

-- The table's composition, for the counts below: 5028 rows, 3 NULL,
-- 2 empty, 423 of one character (416 hex keys and 7 of the others).
SELECT count(*) AS rows, count(*) FILTER (WHERE k IS NULL) AS nulls,
  count(*) FILTER (WHERE k = '') AS empty,
  count(*) FILTER (WHERE char_length(k) = 1) AS one_char
FROM bi;

-- NULL and '' through every operator.  A NULL comparand matches nothing;
-- '' is the smallest key: nothing is below it, everything non-NULL is at
-- or above it and starts with it.  (The planner folds a comparison with a
-- NULL constant to false, so those need no scan at all.)
SELECT * FROM bi_check('bi', $$k = NULL$$);
SELECT * FROM bi_check('bi', $$k < NULL$$);
SELECT * FROM bi_check('bi', $$k <= NULL$$);
SELECT * FROM bi_check('bi', $$k > NULL$$);
SELECT * FROM bi_check('bi', $$k >= NULL$$);
SELECT * FROM bi_check('bi', $$k ^@ NULL$$);
SELECT * FROM bi_check('bi', $$k LIKE NULL$$);
SELECT * FROM bi_check('bi', $$k = ''$$);
SELECT * FROM bi_check('bi', $$k < ''$$);
SELECT * FROM bi_check('bi', $$k <= ''$$);
SELECT * FROM bi_check('bi', $$k > ''$$);
SELECT * FROM bi_check('bi', $$k >= ''$$);
SELECT * FROM bi_check('bi', $$k ^@ ''$$);
SELECT * FROM bi_check('bi', $$starts_with(k, '')$$);
SELECT * FROM bi_check('bi', $$k LIKE ''$$);
SELECT * FROM bi_check('bi', $$k = ANY (ARRAY[NULL, ''])$$);
SELECT * FROM bi_check('bi', $$k = ANY (NULL::text[])$$);
SELECT * FROM bi_check('bi', $$k = ANY ('{}'::text[])$$);
SELECT * FROM bi_check('bi', $$k ^@ ANY (ARRAY[NULL, ''])$$);
SELECT * FROM bi_check('bi', $$k > '' AND k < NULL$$);
SELECT * FROM bi_check('bi', $$k >= '' AND k <= ''$$);
SELECT * FROM bi_check('bi', $$k IS NULL$$);
SELECT * FROM bi_check('bi', $$k IS NOT NULL$$);
SELECT * FROM bi_check('bi', $$k IS NULL OR k = ''$$);

-- Ordered scans put '' first and leave NULLs out of a range.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, to_json(k) FROM bi WHERE k >= '' ORDER BY k LIMIT 3;
SELECT count(*) FROM (SELECT k FROM bi WHERE k >= '' ORDER BY k DESC) s;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- The functions: NULL arguments (they are strict) and the empty key.
SELECT count(*) FROM artrie_complete('bi_k', NULL);
SELECT count(*) FROM artrie_complete(NULL, 'a');
SELECT count(*) FROM artrie_complete('bi_k', 'a', NULL);
SELECT count(*) FROM artrie_prefixes_of('bi_k', NULL);
SELECT count(*) FROM artrie_fuzzy('bi_k', NULL, 1);
SELECT count(*) FROM artrie_fuzzy('bi_k', 'a', NULL);
SELECT artrie_stats(NULL) IS NULL AS stats_null;
SELECT to_json(p) FROM artrie_prefixes_of('bi_k', '') p;
SELECT to_json(p) FROM artrie_prefixes_of('bi_k', 'ab\_cdef') p;
SELECT to_json(key), distance FROM artrie_fuzzy('bi_k', '', 0);

-- The empty prefix: every non-NULL entry; completion starts at ''.
SELECT artrie_prefix_count('bi_k', '') = (SELECT count(k) FROM bi) AS count_all;
SELECT to_json(c) FROM artrie_complete('bi_k', '', 4) c;
SELECT array(SELECT artrie_complete('bi_k', '', 100000)) =
  array(SELECT DISTINCT k FROM bi WHERE k IS NOT NULL ORDER BY k) AS complete_all;

-- LIKE on a "C" column, each against a sequential scan.  '\' escapes the
-- next character: 'a\%b%' is the prefix 'a%b'; 'ab\_c%' is 'ab_c'.
EXPLAIN (COSTS OFF) SELECT id FROM bi WHERE k LIKE 'a\%b%';
EXPLAIN (COSTS OFF) SELECT id FROM bi WHERE k LIKE 'ab\_c%';
SELECT k FROM bi WHERE k LIKE 'a\%b%' ORDER BY k;
SELECT k FROM bi WHERE k LIKE 'ab\_c%' ORDER BY k;
SELECT * FROM bi_check('bi', $$k LIKE 'a\%b%'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'ab\_c%'$$);
SELECT * FROM bi_check('bi', $$k LIKE '%'$$);
SELECT * FROM bi_check('bi', $$k LIKE '_'$$);
SELECT * FROM bi_check('bi', $$k LIKE '%x'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'a%b'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'a_b%'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'a\\%'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'a\%' ESCAPE ''$$);
SELECT * FROM bi_check('bi', $$k LIKE 'ab#_c%' ESCAPE '#'$$);
SELECT * FROM bi_check('bi', $$k LIKE '\%%'$$);
SELECT * FROM bi_check('bi', $$k LIKE '\_'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'ab\_c'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'é%'$$);
SELECT * FROM bi_check('bi', $$k LIKE 'a_x'$$);
SELECT * FROM bi_check('bi', $$k ~ '^a%b'$$);
-- A pattern ending in the escape character is an error once a value
-- reaches the escape: the sequential scan says so.  The index takes such
-- a pattern as one without a literal prefix: it reads every key, and the
-- recheck of the LIKE says so too.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM bi WHERE k LIKE 'a\';
RESET enable_indexscan;
RESET enable_bitmapscan;
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bi WHERE k LIKE 'a\';
SELECT count(*) FROM bi WHERE k LIKE 'a\';
RESET enable_seqscan;
RESET enable_indexscan;

-- = ANY with 100K elements (30000 even keys present, 25000 odd ones, a
-- NULL in place of k5553, duplicates) against a sequential scan, whose
-- hashed = ANY is the reference; then as an array known only at run time.
CREATE TABLE bany (id int, k text COLLATE "C");
INSERT INTO bany SELECT i, 'k' || i FROM generate_series(1, 60000) i;
CREATE INDEX bany_k ON bany USING artrie (k);
ANALYZE bany;
SELECT * FROM bi_check('bany', format('k = ANY (%L::text[])',
  (SELECT array_agg(CASE WHEN i = 77777 THEN NULL ELSE 'k' || (2 * i) % 150001 END)
     || ARRAY['k2', 'k1', 'k2']
   FROM generate_series(1, 100000) i)));
-- (A sequential scan cannot hash a run-time array: the reference is a
-- semi-join, and the count is 30000 even keys and 25000 odd ones.  Plain
-- index scans are off so that the plan does not depend on whether
-- autovacuum has set the visibility map yet.)
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bany WHERE k = ANY ((SELECT array_agg('k' || i) FROM generate_series(1, 3) i)::text[]);
SELECT count(*) FROM bany WHERE k = ANY ((SELECT array_agg('k' || (2 * i) % 150001)
  FROM generate_series(1, 100000) i)::text[]);
RESET enable_seqscan;
RESET enable_indexscan;
SELECT count(*) FROM bany WHERE k IN (SELECT 'k' || (2 * i) % 150001
  FROM generate_series(1, 100000) i);

-- artrie_fuzzy at its extremes: distance 0 is an exact match; a negative
-- distance is an error; the largest int matches every key, at its length
-- in characters from the empty term.
SELECT * FROM artrie_fuzzy('bi_k', 'ab_c', 0);
SELECT * FROM artrie_fuzzy('bi_k', 'aéx', 0);
SELECT * FROM artrie_fuzzy('bi_k', 'no such key', 0);
SELECT * FROM artrie_fuzzy('bi_k', 'ab_c', -2147483648);
SELECT count(*) = (SELECT count(DISTINCT k) FROM bi) AS every_key,
  bool_and(distance = char_length(key)) AS distances_right
FROM artrie_fuzzy('bi_k', '', 2147483647);
SELECT count(*) = (SELECT count(DISTINCT k) FROM bi) AS every_key
FROM artrie_fuzzy('bi_k', 'abc', 2147483647, true);
SELECT array(SELECT key FROM artrie_fuzzy('bi_k', repeat('é', 255), 2147483647) WHERE key ^@ 'a%') =
  ARRAY['a%', 'a%b', 'a%bc', 'a%xb'] AS longest_term;
SELECT count(*) FROM artrie_fuzzy('bi_k', repeat('é', 256), 1);

-- Keys at, just under and just over the maximum, ARTRIE_MAX_KEY_LEN:
-- 1 MiB + 64 bytes per trie entry, less a terminator byte and a 6-byte
-- TID, is 1048633 bytes (bytes, not characters: 'é' is two).
CREATE TABLE blim (id int, k text COLLATE "C");
CREATE INDEX blim_k ON blim USING artrie (k);
INSERT INTO blim VALUES (1, repeat('m', 1048632));
INSERT INTO blim VALUES (2, repeat('m', 1048633));
INSERT INTO blim VALUES (3, repeat('m', 1048634));
INSERT INTO blim VALUES (4, repeat('m', 1048631) || 'é');
INSERT INTO blim VALUES (5, repeat('m', 1048632) || 'é');
INSERT INTO blim VALUES (6, 'm');
UPDATE blim SET k = k || 'm' WHERE id = 2;
SET enable_seqscan = off;
SELECT id, octet_length(k) FROM blim WHERE k = repeat('m', 1048633);
SELECT id, octet_length(k) FROM blim WHERE k = repeat('m', 1048632);
SELECT id, octet_length(k) FROM blim WHERE k = repeat('m', 1048631) || 'é';
-- Searching for a longer key or prefix than any entry can hold finds
-- nothing; as a range bound it still orders correctly.
SELECT id FROM blim WHERE k = repeat('m', 1048634);
SELECT id FROM blim WHERE k ^@ repeat('m', 1048634);
SELECT id FROM blim WHERE k < repeat('m', 1048634) ORDER BY k;
SELECT id FROM blim WHERE k > repeat('m', 1048634) ORDER BY k;
SELECT id FROM blim WHERE k ^@ repeat('m', 1048632) ORDER BY k DESC;
SELECT id, octet_length(k) FROM blim ORDER BY k;
RESET enable_seqscan;
SELECT artrie_prefix_count('blim_k', repeat('m', 1048633)) AS at_max,
  artrie_prefix_count('blim_k', repeat('m', 1048634)) AS over_max,
  artrie_prefix_count('blim_k', repeat('m', 1048631)) AS under_max;
SELECT octet_length(c) FROM artrie_complete('blim_k', repeat('m', 1048600)) c;
SELECT octet_length(p) FROM artrie_prefixes_of('blim_k', repeat('m', 1048634)) p;
SELECT octet_length(key), distance FROM artrie_fuzzy('blim_k', 'mm', 1048632);
-- The same limits in a bulk build: one byte over fails, at the maximum
-- it succeeds.  The row over the limit is inserted by a transaction that
-- rolls back, not deleted: a deleted row stays in the build while any
-- snapshot (an autovacuum's, say) may still see it.
DROP INDEX blim_k;
BEGIN;
INSERT INTO blim VALUES (7, repeat('n', 1048634));
CREATE INDEX blim_k ON blim USING artrie (k);
ROLLBACK;
CREATE INDEX blim_k ON blim USING artrie (k);
SET enable_seqscan = off;
SELECT id, octet_length(k) FROM blim WHERE k ^@ 'mmm' ORDER BY k DESC;
RESET enable_seqscan;
SELECT artrie_verify('blim_k', true);

-- Functions given what is not an artrie index: a btree and a hash index,
-- a partitioned index (which only artrie_stats refuses), a table, a view,
-- a sequence, OID 0, and the OID of a dropped index.
CREATE INDEX bi_btree ON bi USING btree (k);
CREATE INDEX bi_hash ON bi USING hash (k);
CREATE VIEW bi_view AS SELECT * FROM bi;
CREATE SEQUENCE bi_seq;
CREATE TABLE bpart (k text COLLATE "C") PARTITION BY RANGE (k);
CREATE TABLE bpart_1 PARTITION OF bpart FOR VALUES FROM ('a') TO ('z');
CREATE INDEX bpart_k ON bpart USING artrie (k);
INSERT INTO bpart VALUES ('apple'), ('b');
CREATE INDEX bi_dropped ON bi USING artrie (k);
CREATE TABLE bi_dropped_oid AS SELECT 'bi_dropped'::regclass::oid AS oid;
DROP INDEX bi_dropped;
SELECT target, f, bi_error(format('SELECT %s(%s::oid::regclass%s)', f, target_oid,
    CASE f WHEN 'artrie_fuzzy' THEN ', ''a'', 1' WHEN 'artrie_stats' THEN ''
      WHEN 'artrie_verify' THEN '' ELSE ', ''a''' END)) AS error
FROM (VALUES ('bi_btree', 'bi_btree'::regclass::oid), ('bi_hash', 'bi_hash'::regclass::oid),
        ('bpart_k', 'bpart_k'::regclass::oid), ('bi', 'bi'::regclass::oid),
        ('bi_view', 'bi_view'::regclass::oid), ('bi_seq', 'bi_seq'::regclass::oid),
        ('0', 0::oid), ('dropped', (SELECT oid FROM bi_dropped_oid))) t(target, target_oid),
  unnest(ARRAY['artrie_complete', 'artrie_prefix_count', 'artrie_prefixes_of',
               'artrie_fuzzy', 'artrie_verify', 'artrie_stats']) f
ORDER BY 1, 2;
-- A partitioned index answers over its partitions, as the partition's own
-- index answers for it (sql/098_am_partitions.sql tests more).
SELECT artrie_prefix_count('bpart_k', '');
SELECT artrie_prefix_count(
  (SELECT indexrelid FROM pg_index WHERE indrelid = 'bpart_1'::regclass)::regclass, '');

DROP TABLE bi, bany, blim, bpart, bi_dropped_oid CASCADE;
DROP SEQUENCE bi_seq;
DROP FUNCTION bi_check(text, text);
DROP FUNCTION bi_error(text);
