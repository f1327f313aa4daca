-- artrie against a sequential scan on real data: the Debian word lists
-- (American English, Bulgarian, then British English inserted through
-- aminsert), for every operator and every scan type, before and after
-- inserts, deletes, updates and VACUUM.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
-- Disabled plan types cost so much that JIT would compile every query.
SET jit = off;

CREATE TABLE words (id serial PRIMARY KEY, w text COLLATE "C", d text);
CREATE TEMP TABLE load (w text);
COPY load FROM '/usr/share/dict/american-english-insane' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02');
COPY load FROM '/usr/share/dict/bulgarian' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02');
INSERT INTO words (w, d) SELECT w, w FROM load;
INSERT INTO words (w, d) VALUES (NULL, NULL), (NULL, NULL), ('', '');
TRUNCATE load;
SELECT count(*) > 1000000 AS loaded FROM words;

-- w is COLLATE "C" (ranges and order are exact); d has the database's
-- default collation, under which only = and ^@ are exact.
CREATE INDEX words_w ON words USING artrie (w);
CREATE INDEX words_d ON words USING artrie (d);
VACUUM ANALYZE words;

-- Runs the query under each scan type and compares with a sequential scan:
-- the plan must use that scan on the artrie index, and the rows (their ids,
-- or for an index-only scan the keys) must be the same.
CREATE FUNCTION scan_check(col text, pred text)
RETURNS TABLE (scan text, uses_index bool, same_rows bool)
LANGUAGE plpgsql AS $$
DECLARE
  q_ids text := format('SELECT count(*) || '':'' || md5(coalesce(string_agg(id::text, '','' ORDER BY id), '''')) FROM words WHERE %s', pred);
  q_keys text := format('SELECT count(*) || '':'' || md5(coalesce(string_agg(coalesce(%I, ''<null>''), '','' ORDER BY %I COLLATE "C"), '''')) FROM words WHERE %s', col, col, pred);
  ref_ids text;
  ref_keys text;
  got text;
  q text;
  line text;
  plan text;
  kind text;
BEGIN
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  PERFORM set_config('enable_seqscan', 'on', true);
  EXECUTE q_ids INTO ref_ids;
  EXECUTE q_keys INTO ref_keys;
  PERFORM set_config('enable_seqscan', 'off', true);
  FOREACH kind IN ARRAY ARRAY['Index Scan', 'Bitmap Index Scan', 'Index Only Scan'] LOOP
    -- enable_indexscan also gates index-only scans' costing.
    PERFORM set_config('enable_indexscan', CASE WHEN kind = 'Bitmap Index Scan' THEN 'off' ELSE 'on' END, true);
    PERFORM set_config('enable_bitmapscan', CASE WHEN kind = 'Bitmap Index Scan' THEN 'on' ELSE 'off' END, true);
    PERFORM set_config('enable_indexonlyscan', CASE WHEN kind = 'Index Only Scan' THEN 'on' ELSE 'off' END, true);
    q := CASE WHEN kind = 'Index Only Scan' THEN q_keys ELSE q_ids END;
    plan := '';
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      plan := plan || line || E'\n';
    END LOOP;
    EXECUTE q INTO got;
    scan := kind;
    uses_index := position(kind || CASE WHEN kind = 'Bitmap Index Scan' THEN ' on ' ELSE ' using ' END || 'words_' || col IN plan) > 0;
    same_rows := got = CASE WHEN kind = 'Index Only Scan' THEN ref_keys ELSE ref_ids END;
    RETURN NEXT;
  END LOOP;
  PERFORM set_config('enable_indexscan', 'on', false);
  PERFORM set_config('enable_indexonlyscan', 'on', false);
  PERFORM set_config('enable_bitmapscan', 'on', false);
  PERFORM set_config('enable_seqscan', 'on', false);
END $$;

-- ORDER BY through the index (no Sort node) against seq scan + sort.
CREATE FUNCTION order_check(pred text, dir text, n int)
RETURNS TABLE (uses_index bool, no_sort bool, same_rows bool)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT string_agg(coalesce(w, ''<null>''), '','') FROM (SELECT w FROM words WHERE %s ORDER BY w %s LIMIT %s) s', pred, dir, n);
  ref text;
  got text;
  line text;
  plan text := '';
BEGIN
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  EXECUTE q INTO ref;
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_indexonlyscan', 'on', true);
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  EXECUTE q INTO got;
  uses_index := position('using words_w' IN plan) > 0;
  no_sort := plan NOT LIKE '%Sort%';
  same_rows := got = ref;
  RETURN NEXT;
  PERFORM set_config('enable_indexscan', 'on', false);
  PERFORM set_config('enable_indexonlyscan', 'on', false);
  PERFORM set_config('enable_bitmapscan', 'on', false);
  PERFORM set_config('enable_seqscan', 'on', false);
  PERFORM set_config('enable_sort', 'on', false);
END $$;

-- Equality: a word, a word with many duplicates, a missing one, Cyrillic.
SELECT * FROM scan_check('w', $$w = 'apple'$$);
SELECT * FROM scan_check('d', $$d = 'apple'$$);
SELECT * FROM scan_check('w', $$w = 'абонамент'$$);
SELECT * FROM scan_check('w', $$w = 'no such word at all'$$);
SELECT * FROM scan_check('w', $$w = ''$$);
SELECT * FROM scan_check('w', $$w = ANY (ARRAY['zebra', 'apple', 'дом', 'nope', 'apple'])$$);
SELECT * FROM scan_check('d', $$d = ANY (ARRAY['zebra', 'apple', 'дом', 'nope'])$$);

-- Prefixes, ASCII and multi-byte.
SELECT * FROM scan_check('w', $$w ^@ 'inter'$$);
SELECT * FROM scan_check('d', $$d ^@ 'inter'$$);
SELECT * FROM scan_check('w', $$w ^@ 'пре'$$);
SELECT * FROM scan_check('d', $$d ^@ 'пре'$$);
SELECT * FROM scan_check('w', $$w ^@ 'Z'$$);
SELECT * FROM scan_check('w', $$w ^@ 'qz'$$);
SELECT * FROM scan_check('w', $$starts_with(w, 'over')$$);
SELECT * FROM scan_check('w', $$w ^@ ANY (ARRAY['inter', 'int', 'пре', 'zz', 'Z'])$$);
SELECT * FROM scan_check('d', $$d ^@ ANY (ARRAY['inter', 'int', 'пре', 'zz', 'Z'])$$);

-- Ranges: exact under "C", rechecked under the default collation.
SELECT * FROM scan_check('w', $$w >= 'mad' AND w < 'mae'$$);
SELECT * FROM scan_check('w', $$w > 'zz'$$);
SELECT * FROM scan_check('w', $$w <= 'Ab'$$);
SELECT * FROM scan_check('w', $$w > 'a' AND w <= 'ab'$$);
SELECT * FROM scan_check('w', $$w BETWEEN 'ж' AND 'з'$$);
SELECT * FROM scan_check('d', $$d >= 'mad' AND d < 'mae'$$);
SELECT * FROM scan_check('w', $$w ^@ 'pre' AND w > 'prefix'$$);

-- NULLs.
SELECT * FROM scan_check('w', $$w IS NULL$$);
SELECT * FROM scan_check('w', $$w IS NOT NULL AND w ^@ 'xy'$$);

-- Regular expression prefixes under "C" become index ranges; a LIKE is
-- the index condition itself (strategy 7), which needs no filter for a
-- literal prefix and '%'.
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM words WHERE w LIKE 'zebr%';
RESET enable_indexscan;
SELECT * FROM scan_check('w', $$w LIKE 'zebr%'$$);
SELECT * FROM scan_check('w', $$w ~ '^qua'$$);
-- Under the default collation artrie's own path makes them "^@", with the
-- clause as a filter.
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM words WHERE d LIKE 'zebr%';
RESET enable_indexscan;
SELECT * FROM scan_check('d', $$d LIKE 'zebr%'$$);
SELECT * FROM scan_check('d', $$d LIKE 'пре%'$$);
SELECT * FROM scan_check('d', $$d LIKE 'inter%al'$$);
SELECT * FROM scan_check('d', $$d ~ '^qua'$$);
SELECT * FROM scan_check('d', $$starts_with(d, 'over')$$);

-- Ordered scans, both directions.
SELECT * FROM order_check('true', 'ASC', 20);
SELECT * FROM order_check('true', 'DESC', 20);
SELECT * FROM order_check($$w ^@ 'tele'$$, 'ASC', 50);
SELECT * FROM order_check($$w ^@ 'tele'$$, 'DESC', 50);
SELECT * FROM order_check($$w > 'm'$$, 'ASC', 100);
SELECT * FROM order_check($$w < 'm'$$, 'DESC', 100);
SELECT * FROM order_check($$w = ANY (ARRAY['zoo', 'ant', 'дом'])$$, 'DESC', 10);
SELECT * FROM order_check($$w ^@ ANY (ARRAY['zoo', 'ant', 'до'])$$, 'DESC', 300);
SELECT * FROM order_check('true', 'ASC NULLS FIRST', 5);
SELECT * FROM order_check('true', 'DESC NULLS LAST', 5);

-- Changes: British words through aminsert, deletes, updates, VACUUM.
COPY load FROM '/usr/share/dict/british-english-insane' WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02');
INSERT INTO words (w, d) SELECT w, w FROM load;
DELETE FROM words WHERE id % 7 = 0;
UPDATE words SET w = w || 'ish', d = d || 'ish' WHERE id % 11 = 0;
UPDATE words SET w = NULL, d = NULL WHERE id % 101 = 0;
SELECT * FROM scan_check('w', $$w = 'colour'$$);
SELECT * FROM scan_check('w', $$w ^@ 'colou'$$);
SELECT * FROM scan_check('d', $$d ^@ 'colou'$$);
SELECT * FROM scan_check('w', $$w ^@ 'inter'$$);
SELECT * FROM scan_check('w', $$w IS NULL$$);
VACUUM words;
SELECT * FROM scan_check('w', $$w ^@ 'inter'$$);
SELECT * FROM scan_check('d', $$d ^@ 'пре'$$);
SELECT * FROM scan_check('w', $$w >= 'mad' AND w < 'mae'$$);
SELECT * FROM scan_check('w', $$w = ANY (ARRAY['colour', 'color', 'apple', 'applish'])$$);
SELECT * FROM scan_check('w', $$w IS NULL$$);
SELECT * FROM order_check($$w ^@ 'sh'$$, 'DESC', 40);
DELETE FROM words WHERE w ^@ 'a';
VACUUM words;
SELECT * FROM scan_check('w', $$w ^@ 'a'$$);
SELECT * FROM scan_check('w', $$w < 'b'$$);

-- VACUUM counted exactly the live rows' entries.
SELECT c.relname, c.reltuples = (SELECT count(*) FROM words) AS exact_count
FROM pg_class c WHERE c.relname IN ('words_w', 'words_d') ORDER BY 1;

DROP TABLE words;
DROP FUNCTION scan_check(text, text);
DROP FUNCTION order_check(text, text, int);
