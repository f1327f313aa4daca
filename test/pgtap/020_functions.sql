-- The SQL functions answer exactly as plain SQL over the same rows does:
-- completion, prefix counts, prefixes-of, fuzzy search, verification;
-- deleted rows never come back; privileges are enforced; bad arguments
-- get clear errors.
\ir setup.psql
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

BEGIN;
SELECT plan(66);

-- Words of two languages, one of them multi-byte; every 7th English word
-- keeps the test quick while leaving long runs of shared prefixes.
CREATE TEMP TABLE dict_en (w text);
COPY dict_en FROM '/usr/share/dict/american-english-insane';
CREATE TEMP TABLE dict_bg (w text);
COPY dict_bg FROM '/usr/share/dict/bulgarian';

CREATE TABLE fn_words (id serial PRIMARY KEY, w text);
INSERT INTO fn_words (w)
	SELECT w FROM (SELECT w, row_number() OVER () AS n FROM dict_en) s WHERE n % 7 = 0;
INSERT INTO fn_words (w)
	SELECT w FROM (SELECT w, row_number() OVER () AS n FROM dict_bg) s WHERE n % 3 = 0;
-- Duplicates and NULLs: keys are reported once, NULLs never.
INSERT INTO fn_words (w) SELECT w FROM fn_words WHERE id % 10 = 0;
INSERT INTO fn_words (w) SELECT NULL FROM generate_series(1, 50);
INSERT INTO fn_words (w) VALUES (''), ('zq'), ('zqx'), ('zqxa'), ('zqxab');
CREATE INDEX fn_words_idx ON fn_words USING artrie (w);
CREATE INDEX fn_words_btree ON fn_words USING btree (w);

-- Completion.
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', 'pre', 25)$$,
	$$SELECT w FROM (SELECT DISTINCT w FROM fn_words WHERE w ^@ 'pre') s ORDER BY w COLLATE "C" LIMIT 25$$,
	'complete: an English prefix');
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', 'z')$$,
	$$SELECT w FROM (SELECT DISTINCT w FROM fn_words WHERE w ^@ 'z') s ORDER BY w COLLATE "C" LIMIT 10$$,
	'complete: the default max_results is 10');
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', 'пре', 40)$$,
	$$SELECT w FROM (SELECT DISTINCT w FROM fn_words WHERE w ^@ 'пре') s ORDER BY w COLLATE "C" LIMIT 40$$,
	'complete: a multi-byte prefix');
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', '', 30)$$,
	$$SELECT w FROM (SELECT DISTINCT w FROM fn_words WHERE w IS NOT NULL) s ORDER BY w COLLATE "C" LIMIT 30$$,
	'complete: the empty prefix starts at the first key');
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', 'zqx', 3)$$,
	$$VALUES ('zqx'::text), ('zqxa'), ('zqxab')$$,
	'complete: a key that is a prefix of others comes first');
SELECT is_empty(
	$$SELECT artrie_complete('fn_words_idx', 'qqqqqq', 10)$$,
	'complete: no key has that prefix');
SELECT is_empty(
	$$SELECT artrie_complete('fn_words_idx', 'a', 0)$$,
	'complete: max_results 0');
SELECT is(
	(SELECT count(*) FROM artrie_complete('fn_words_idx', 's', 1000000)),
	(SELECT count(DISTINCT w) FROM fn_words WHERE w ^@ 's'),
	'complete: all keys under a large prefix');

-- Prefix counts.
SELECT is(artrie_prefix_count('fn_words_idx', 'pre'),
	(SELECT count(*) FROM fn_words WHERE w ^@ 'pre'),
	'prefix_count: an English prefix');
SELECT is(artrie_prefix_count('fn_words_idx', 'по'),
	(SELECT count(*) FROM fn_words WHERE w ^@ 'по'),
	'prefix_count: a multi-byte prefix');
SELECT is(artrie_prefix_count('fn_words_idx', ''),
	(SELECT count(*) FROM fn_words WHERE w IS NOT NULL),
	'prefix_count: the empty prefix counts every non-NULL entry');
SELECT is(artrie_prefix_count('fn_words_idx', 'qqqqqq'), 0::bigint,
	'prefix_count: no key has that prefix');

-- Prefixes of a value.
SELECT results_eq(
	$$SELECT artrie_prefixes_of('fn_words_idx', 'zqxabcdef')$$,
	$$VALUES ('zqxab'::text), ('zqxa'), ('zqx'), ('zq'), ('')$$,
	'prefixes_of: longest first, the empty key included');
SELECT results_eq(
	$$SELECT artrie_prefixes_of('fn_words_idx', 'understandings')$$,
	$$SELECT w FROM (SELECT DISTINCT w FROM fn_words
	  WHERE starts_with('understandings', w)) s ORDER BY length(w) DESC$$,
	'prefixes_of: an English word');
SELECT results_eq(
	$$SELECT artrie_prefixes_of('fn_words_idx', 'zqxa')$$,
	$$VALUES ('zqxa'::text), ('zqx'), ('zq'), ('')$$,
	'prefixes_of: the value itself is included');

-- Fuzzy search against fuzzystrmatch's levenshtein(), by brute force.
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', 'receive', 1)$$,
	$$SELECT w, levenshtein(w, 'receive') FROM (SELECT DISTINCT w FROM fn_words
	  WHERE w IS NOT NULL) s WHERE levenshtein(w, 'receive') <= 1
	  ORDER BY 2, w COLLATE "C"$$,
	'fuzzy: distance 1');
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', 'algorithm', 2)$$,
	$$SELECT w, levenshtein(w, 'algorithm') FROM (SELECT DISTINCT w FROM fn_words
	  WHERE w IS NOT NULL) s WHERE levenshtein(w, 'algorithm') <= 2
	  ORDER BY 2, w COLLATE "C"$$,
	'fuzzy: distance 2');
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', 'работа', 2)$$,
	$$SELECT w, levenshtein(w, 'работа') FROM (SELECT DISTINCT w FROM fn_words
	  WHERE w IS NOT NULL) s WHERE levenshtein(w, 'работа') <= 2
	  ORDER BY 2, w COLLATE "C"$$,
	'fuzzy: multi-byte characters count as one');
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', 'zqxa', 0)$$,
	$$VALUES ('zqxa'::text, 0)$$,
	'fuzzy: distance 0 is an exact match');
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', '', 1)$$,
	$$SELECT w, levenshtein(w, '') FROM (SELECT DISTINCT w FROM fn_words
	  WHERE w IS NOT NULL) s WHERE levenshtein(w, '') <= 1
	  ORDER BY 2, w COLLATE "C"$$,
	'fuzzy: the empty term');
SELECT results_eq(
	$$SELECT key, distance FROM artrie_fuzzy('fn_words_idx', 'zqaxb', 1, true)
	  WHERE key ^@ 'zq'$$,
	$$VALUES ('zqxab'::text, 1)$$,
	'fuzzy: with transpositions, a swap is one edit');
SELECT is_empty(
	$$SELECT key FROM artrie_fuzzy('fn_words_idx', 'zqaxb', 1, false)
	  WHERE key = 'zqxab'$$,
	'fuzzy: without transpositions, a swap is two edits');
SELECT is(
	(SELECT count(*) FROM artrie_fuzzy('fn_words_idx', 'x', 1000)),
	(SELECT count(DISTINCT w) FROM fn_words WHERE w IS NOT NULL),
	'fuzzy: a huge distance matches every key');

-- Statistics.
SELECT ok(artrie_stats('fn_words_idx') ?& ARRAY['entries', 'distinct_keys',
	'pages', 'bytes_on_disk', 'file', 'checkpoint', 'pool',
	'io_backend', 'registered_buffers', 'wal'],
	'stats: every documented key is there');
-- The tries' shapes need a walk: only with walk => true.
SELECT ok(artrie_stats('fn_words_idx', walk => true) ?& ARRAY['entries',
	'distinct_keys', 'kept_distinct_keys', 'key_trie', 'null_trie', 'wal'],
	'stats with walk: the shapes and the kept count are there');
SELECT ok(NOT artrie_stats('fn_words_idx') ?| ARRAY['key_trie', 'null_trie'],
	'stats without walk: no shapes');
SELECT ok(artrie_stats('fn_words_idx')->'wal' ?& ARRAY['replay_from',
	'retained_bytes', 'records', 'bytes', 'replayed', 'replay_failures', 'slot'],
	'stats: every documented WAL key is there');
SELECT ok(artrie_stats('fn_words_idx')->'checkpoint' ?& ARRAY['number', 'redo_lsn'],
	'stats: every documented checkpoint key is there');

-- An insert into a logged index writes a WAL record (its header alone is
-- 20 bytes); a checkpoint of its file begins at the WAL written so far.
CREATE TEMP TABLE fn_before AS
	SELECT artrie_stats('fn_words_idx') AS s, pg_current_wal_insert_lsn() AS lsn;
INSERT INTO fn_words (w) VALUES ('a-logged-word');
SELECT ok((artrie_stats('fn_words_idx')->'wal'->>'records')::bigint >
	(SELECT (s->'wal'->>'records')::bigint FROM fn_before),
	'stats: an insert counts a WAL record');
SELECT ok((artrie_stats('fn_words_idx')->'wal'->>'bytes')::bigint >
	(SELECT (s->'wal'->>'bytes')::bigint + 20 FROM fn_before),
	'stats: and its bytes');
SELECT artrie_checkpoint();
SELECT ok((artrie_stats('fn_words_idx')->'checkpoint'->>'number')::bigint >
	(SELECT (s->'checkpoint'->>'number')::bigint FROM fn_before)
	AND (artrie_stats('fn_words_idx')->'checkpoint'->>'redo_lsn')::pg_lsn >
	(SELECT lsn FROM fn_before),
	'stats: a checkpoint after it has a new number and begins past the insert');
SELECT is((artrie_stats('fn_words_idx')->>'entries')::bigint,
	(SELECT count(*) FROM fn_words),
	'stats: entries count every row, NULLs included');
SELECT is((artrie_stats('fn_words_idx')->>'distinct_keys')::bigint,
	(SELECT count(DISTINCT w) FROM fn_words),
	'stats: distinct keys');
SELECT is((artrie_stats('fn_words_idx', true)->>'distinct_keys')::bigint,
	(SELECT count(DISTINCT w) FROM fn_words),
	'stats: distinct keys by a walk');

-- Deleted rows never come back, though their entries stay until VACUUM.
DELETE FROM fn_words WHERE w IN ('zqxab', 'receive');
SELECT results_eq(
	$$SELECT artrie_complete('fn_words_idx', 'zq', 3)$$,
	$$VALUES ('zq'::text), ('zqx'), ('zqxa')$$,
	'complete: a deleted key is gone');
SELECT ok(NOT EXISTS (SELECT FROM artrie_complete('fn_words_idx', 'rece', 1000) k
	WHERE k = 'receive'), 'complete: a deleted key is gone, among many');
SELECT results_eq(
	$$SELECT artrie_prefixes_of('fn_words_idx', 'zqxabcdef')$$,
	$$VALUES ('zqxa'::text), ('zqx'), ('zq'), ('')$$,
	'prefixes_of: a deleted key is gone');
SELECT is_empty(
	$$SELECT key FROM artrie_fuzzy('fn_words_idx', 'zqxab', 0)$$,
	'fuzzy: a deleted key is gone');
SELECT is(artrie_prefix_count('fn_words_idx', 'zqxab'), 1::bigint,
	'prefix_count: counts entries VACUUM has not removed yet');
SELECT lives_ok($$SELECT artrie_verify('fn_words_idx', true)$$,
	'verify: a healthy index passes, heap included');

-- Privileges: a role that may not read the table learns nothing.
CREATE ROLE fn_outsider;
GRANT USAGE ON SCHEMA public TO fn_outsider;
SET ROLE fn_outsider;
SELECT throws_ok($$SELECT artrie_complete('fn_words_idx', 'a')$$, '42501',
	NULL, 'complete: permission denied without SELECT');
SELECT throws_ok($$SELECT artrie_prefix_count('fn_words_idx', 'a')$$, '42501',
	NULL, 'prefix_count: permission denied without SELECT');
SELECT throws_ok($$SELECT artrie_prefixes_of('fn_words_idx', 'abc')$$, '42501',
	NULL, 'prefixes_of: permission denied without SELECT');
SELECT throws_ok($$SELECT * FROM artrie_fuzzy('fn_words_idx', 'abc', 1)$$, '42501',
	NULL, 'fuzzy: permission denied without SELECT');
SELECT throws_ok($$SELECT artrie_verify('fn_words_idx')$$, '42501',
	NULL, 'verify: permission denied without SELECT');
SELECT throws_ok($$SELECT artrie_stats('fn_words_idx')$$, '42501',
	'permission denied for table fn_words', 'stats: permission denied without SELECT');
RESET ROLE;

-- Column privileges: the indexed column is enough for a plain index, not
-- for one over an expression or with a predicate (its keys say more), and
-- another column is not; row-level security refuses every function, since
-- no policy can filter keys read from the index.  No error says a key.
CREATE TABLE fn_priv (id int, w text, secret text);
INSERT INTO fn_priv VALUES (1, 'alpha', 'top'), (2, 'alpine', 'hidden'), (3, 'beta', 'top');
CREATE INDEX fn_priv_w ON fn_priv USING artrie (w);
CREATE INDEX fn_priv_secret ON fn_priv USING artrie (secret);
CREATE INDEX fn_priv_expr ON fn_priv USING artrie (lower(w));
CREATE INDEX fn_priv_partial ON fn_priv USING artrie (w) WHERE secret = 'top';
GRANT SELECT (id, w) ON fn_priv TO fn_outsider;
SET ROLE fn_outsider;
SELECT results_eq($$SELECT artrie_complete('fn_priv_w', 'al')$$,
	$$VALUES ('alpha'::text), ('alpine')$$, 'a granted indexed column is enough');
SELECT throws_ok($$SELECT artrie_prefix_count('fn_priv_secret', 'h')$$, '42501',
	'permission denied for table fn_priv', 'a column not granted is refused');
SELECT throws_ok($$SELECT artrie_complete('fn_priv_expr', 'a')$$, '42501',
	'permission denied for table fn_priv', 'an expression index needs the table');
SELECT throws_ok($$SELECT artrie_complete('fn_priv_partial', 'a')$$, '42501',
	'permission denied for table fn_priv', 'a partial index needs the table');
SELECT throws_ok($$SELECT * FROM artrie_fuzzy('fn_priv_secret', 'hidde', 1)$$, '42501',
	'permission denied for table fn_priv', 'fuzzy over a column not granted is refused');
SELECT throws_ok($$SELECT artrie_prefixes_of('fn_priv_secret', 'hidden!')$$, '42501',
	'permission denied for table fn_priv', 'prefixes_of over a column not granted is refused');
RESET ROLE;
GRANT SELECT ON fn_priv TO fn_outsider;
ALTER TABLE fn_priv ENABLE ROW LEVEL SECURITY;
CREATE POLICY fn_priv_top ON fn_priv FOR SELECT USING (secret = 'top');
SET ROLE fn_outsider;
SELECT results_eq($$SELECT w FROM fn_priv ORDER BY w$$,
	$$VALUES ('alpha'::text), ('beta')$$, 'the policy hides a row from queries');
SELECT throws_ok(q, '42501', 'artrie functions cannot read table "fn_priv"',
		'refused under row-level security: ' || q)
	FROM (VALUES ($$SELECT artrie_complete('fn_priv_w', 'al')$$),
				 ($$SELECT artrie_prefix_count('fn_priv_w', 'al')$$),
				 ($$SELECT artrie_prefixes_of('fn_priv_w', 'alpine')$$),
				 ($$SELECT * FROM artrie_fuzzy('fn_priv_w', 'alpin', 1)$$),
				 ($$SELECT artrie_stats('fn_priv_w')$$),
				 ($$SELECT artrie_verify('fn_priv_w')$$)) v(q);
RESET ROLE;
SELECT results_eq($$SELECT artrie_complete('fn_priv_w', 'al')$$,
	$$VALUES ('alpha'::text), ('alpine')$$, 'a role that bypasses row-level security may');

-- Bad arguments.
SELECT throws_ok($$SELECT artrie_complete('fn_words_btree', 'a')$$, '42809',
	'"fn_words_btree" is not an artrie index', 'a btree index is refused');
SELECT throws_ok($$SELECT artrie_prefix_count('fn_words', 'a')$$, '42809',
	'"fn_words" is not an index', 'a table is refused');
CREATE INDEX fn_dropped ON fn_words USING artrie (w);
CREATE TEMP TABLE fn_dropped_oid AS SELECT 'fn_dropped'::regclass::oid AS oid;
DROP INDEX fn_dropped;
SELECT throws_ok(format($$SELECT artrie_prefix_count(%s::oid::regclass, 'a')$$,
	(SELECT oid FROM fn_dropped_oid)),
	'42704', NULL, 'a dropped index''s OID is refused');
SELECT throws_ok($$SELECT * FROM artrie_fuzzy('fn_words_idx', 'abc', -1)$$, '22023',
	'max_distance must not be negative', 'a negative distance is refused');
SELECT throws_ok($$SELECT artrie_complete('fn_words_idx', 'a', -1)$$, '22023',
	'max_results must not be negative', 'a negative max_results is refused');
SELECT is(artrie_prefix_count('fn_words_idx', NULL), NULL,
	'NULL arguments give NULL');

SELECT * FROM finish();
ROLLBACK;
