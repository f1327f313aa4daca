-- artrie_fuzzy_complete beside artrie_fuzzy, within one transaction's
-- snapshot, and under privileges: every key artrie_fuzzy finds within d
-- edits is a completion within d; rows inserted, deleted and updated in
-- the transaction count as a query sees them; a role that may not read the
-- table or column, or that row-level security binds, learns nothing.
\ir setup.psql

BEGIN;
SELECT plan(13);

-- Every 9th English word and every 5th Bulgarian one, and some made up.
CREATE TEMP TABLE fz_en (w text);
COPY fz_en FROM '/usr/share/dict/american-english-insane';
CREATE TEMP TABLE fz_bg (w text);
COPY fz_bg FROM '/usr/share/dict/bulgarian';
CREATE TABLE fz_words (id serial PRIMARY KEY, w text, secret text DEFAULT 'top');
INSERT INTO fz_words (w)
	SELECT w FROM (SELECT w, row_number() OVER () AS n FROM fz_en) s WHERE n % 9 = 0;
INSERT INTO fz_words (w)
	SELECT w FROM (SELECT w, row_number() OVER () AS n FROM fz_bg) s WHERE n % 5 = 0;
INSERT INTO fz_words (w) VALUES ('zqxv'), ('zqxvb'), ('zqyv'), ('zqxvz');
CREATE INDEX fz_words_idx ON fz_words USING artrie (w);

-- A key within d edits of the term is a completion within d of it (its
-- whole self is one of its prefixes), at no greater distance.
SELECT is((SELECT count(*) FROM artrie_fuzzy('fz_words_idx', t, d) f
		   LEFT JOIN artrie_fuzzy_complete('fz_words_idx', t, d, 1000000) c USING (key)
		   WHERE c.key IS NULL OR c.distance > f.distance), 0::bigint,
		  format('every artrie_fuzzy match of %s within %s is a completion', t, d))
	FROM (VALUES ('recieve', 1), ('acommodate', 2), ('здравей', 1), ('zqxv', 2)) v(t, d);

-- The completions of 'zqx' within 0: the keys that begin with it.
SELECT results_eq($$SELECT key, distance FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 0)$$,
	$$VALUES ('zqxv'::text, 0), ('zqxvb', 0), ('zqxvz', 0)$$,
	'distance 0 completes the prefix itself');
-- 'zqxv' within 1: 'zqyv' too (one substitution), after them.
SELECT results_eq($$SELECT key, distance FROM artrie_fuzzy_complete('fz_words_idx', 'zqxv', 1, 4)$$,
	$$VALUES ('zqxv'::text, 0), ('zqxvb', 0), ('zqxvz', 0), ('zqyv', 1)$$,
	'by distance, then key');

-- The transaction's own changes, as a query in it sees them.
DELETE FROM fz_words WHERE w = 'zqxvb';
UPDATE fz_words SET w = 'zqxa' WHERE w = 'zqxvz';
INSERT INTO fz_words (w) VALUES ('zqxc');
SELECT results_eq($$SELECT key FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 0)$$,
	$$VALUES ('zqxa'::text), ('zqxc'), ('zqxv')$$,
	'deleted and updated rows are gone, inserted ones are there');
SELECT results_eq($$SELECT key FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 0, 2)$$,
	$$VALUES ('zqxa'::text), ('zqxc')$$, 'max_results counts visible keys only');

-- Privileges.
CREATE ROLE fz_outsider;
GRANT USAGE ON SCHEMA public TO fz_outsider;
SET ROLE fz_outsider;
SELECT throws_ok($$SELECT * FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 1)$$, '42501',
	NULL, 'permission denied without SELECT');
RESET ROLE;
CREATE INDEX fz_secret_idx ON fz_words USING artrie (secret);
GRANT SELECT (id, w) ON fz_words TO fz_outsider;
SET ROLE fz_outsider;
SELECT results_eq($$SELECT key FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 0, 1)$$,
	$$VALUES ('zqxa'::text)$$, 'a granted indexed column is enough');
SELECT throws_ok($$SELECT * FROM artrie_fuzzy_complete('fz_secret_idx', 'to', 1)$$, '42501',
	'permission denied for table fz_words', 'a column not granted is refused');
RESET ROLE;
GRANT SELECT ON fz_words TO fz_outsider;
ALTER TABLE fz_words ENABLE ROW LEVEL SECURITY;
CREATE POLICY fz_top ON fz_words FOR SELECT USING (secret = 'top');
SET ROLE fz_outsider;
SELECT throws_ok($$SELECT * FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 1)$$, '42501',
	'artrie functions cannot read table "fz_words"', 'refused under row-level security');
RESET ROLE;
SELECT results_eq($$SELECT key FROM artrie_fuzzy_complete('fz_words_idx', 'zqx', 0, 1)$$,
	$$VALUES ('zqxa'::text)$$, 'a role that bypasses row-level security may');

SELECT * FROM finish();
ROLLBACK;
