-- artrie_stats(index, walk => true) counts the distinct keys in one
-- ordered pass over the key trie, comparing each entry's key with the one
-- before.  Its count must equal the table's and the count the index keeps
-- (kept_distinct_keys, kept by the trie itself) for keys repeated across
-- the cursor's batches (16 entries, then twice as many each time, up to
-- 1024), keys that are prefixes of each other, the empty key, NULLs
-- (in the NULL trie, not counted), entries of deleted rows before VACUUM
-- (counted, as the kept count counts them), an empty index, bpchar, name
-- and a multicolumn index.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- The walk's distinct keys, the kept count, the distinct keys of the
-- table (the count query's answer) and the NULL entries.
CREATE FUNCTION sw_counts(idx regclass, count_query text)
RETURNS TABLE (walked bigint, kept bigint, in_table bigint, null_entries bigint)
LANGUAGE plpgsql AS $$
DECLARE
  s jsonb := artrie_stats(idx, walk => true);
BEGIN
  EXECUTE count_query INTO in_table;
  walked := (s ->> 'distinct_keys')::bigint;
  kept := (s ->> 'kept_distinct_keys')::bigint;
  null_entries := (s ->> 'null_entries')::bigint;
  RETURN NEXT;
END
$$;

-- 'k0' .. 'k1000' seven rows each ('k1' a prefix of 'k10' and 'k100'),
-- 'r' 3000 times (across several batches), 'p' .. 40 p's, the empty key
-- and NULLs; built in bulk, then the same again by inserts.
CREATE TABLE sw (id int, k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO sw SELECT g, 'k' || (g / 7) FROM generate_series(1, 7006) g;
INSERT INTO sw SELECT g, 'r' FROM generate_series(1, 3000) g;
INSERT INTO sw SELECT g, repeat('p', g % 40 + 1) FROM generate_series(1, 2000) g;
INSERT INTO sw SELECT g, '' FROM generate_series(1, 3) g;
INSERT INTO sw SELECT g, NULL FROM generate_series(1, 500) g;
CREATE INDEX sw_k ON sw USING artrie (k);
SELECT * FROM sw_counts('sw_k', 'SELECT count(DISTINCT k) FROM sw');
INSERT INTO sw SELECT -g, 'k' || (g / 3) || 'x' FROM generate_series(1, 4000) g;
INSERT INTO sw SELECT -g, 'r' FROM generate_series(1, 2000) g;
INSERT INTO sw SELECT -g, 'rr' FROM generate_series(1, 1500) g;
SELECT * FROM sw_counts('sw_k', 'SELECT count(DISTINCT k) FROM sw');

-- Deleted rows' entries count until VACUUM removes them.
DELETE FROM sw WHERE k LIKE 'k1%' OR k = 'rr';
SELECT walked, kept, walked - in_table AS dead_keys FROM sw_counts('sw_k', 'SELECT count(DISTINCT k) FROM sw');
VACUUM sw;
SELECT * FROM sw_counts('sw_k', 'SELECT count(DISTINCT k) FROM sw');

-- An empty index, and one emptied by DELETE and VACUUM.
CREATE TABLE swe (id int, k text COLLATE "C");
CREATE INDEX swe_k ON swe USING artrie (k);
SELECT * FROM sw_counts('swe_k', 'SELECT count(DISTINCT k) FROM swe');
DELETE FROM sw;
VACUUM sw;
SELECT * FROM sw_counts('sw_k', 'SELECT count(DISTINCT k) FROM sw');

-- bpchar: 'ab' and 'ab   ' are one key; name.
CREATE TABLE swb (id int, k char(8), n name);
INSERT INTO swb SELECT g, rpad('ab', g % 3 + 2), 'n' || (g % 1500)
FROM generate_series(1, 3000) g;
INSERT INTO swb SELECT g, 'ab' || (g % 700), NULL FROM generate_series(1, 3000) g;
CREATE INDEX swb_k ON swb USING artrie (k);
CREATE INDEX swb_n ON swb USING artrie (n);
SELECT * FROM sw_counts('swb_k', 'SELECT count(DISTINCT k) FROM swb');
SELECT * FROM sw_counts('swb_n', 'SELECT count(DISTINCT n) FROM swb');

-- Multicolumn: a key per distinct (a, k), NULL columns included.
CREATE TABLE swm (a int, k text COLLATE "C");
INSERT INTO swm SELECT g % 5, 'm' || (g % 300) FROM generate_series(1, 6000) g;
INSERT INTO swm SELECT NULL, 'm' || (g % 7) FROM generate_series(1, 2000) g;
INSERT INTO swm SELECT g % 3, NULL FROM generate_series(1, 2000) g;
CREATE INDEX swm_ak ON swm USING artrie (a, k);
SELECT * FROM sw_counts('swm_ak', 'SELECT count(*) FROM (SELECT DISTINCT a, k FROM swm) d');

DROP TABLE sw, swe, swb, swm;
DROP FUNCTION sw_counts(regclass, text);
