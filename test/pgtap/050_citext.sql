-- A citext column is refused (its case-insensitive operators could never
-- use an index built through the text operator class), with a hint at the
-- expression indexes that work; those expression indexes are used.  Runs
-- only where the citext extension is installed.
\ir setup.psql

BEGIN;
SELECT plan(7);

SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'citext') AS have_citext
\gset

\if :have_citext
CREATE EXTENSION citext;
CREATE TABLE ci (c citext, t text);
INSERT INTO ci SELECT 'Name' || i, 'Name' || i FROM generate_series(1, 2000) i;
CREATE DOMAIN ci_domain AS citext;
CREATE TABLE ci_dom (c ci_domain);

SELECT throws_ok('CREATE INDEX ON ci USING artrie (c)', '0A000',
	'artrie indexes do not support type citext',
	'an artrie index on a citext column is refused');
CREATE FUNCTION pg_temp.error_hint(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	hint text;
BEGIN
	EXECUTE stmt;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
	RETURN hint;
END;
$$;
SELECT matches(pg_temp.error_hint('CREATE INDEX ON ci USING artrie (c)'),
	'\(col::text\).*\(lower\(col::text\)\)',
	'the hint names the expression indexes (col::text) and (lower(col::text))');
SELECT throws_ok('CREATE INDEX ON ci_dom USING artrie (c)', '0A000',
	'artrie indexes do not support type citext',
	'a domain over citext is refused too');
SELECT lives_ok('CREATE INDEX ci_lower ON ci USING artrie (lower(c::text))',
	'the hinted expression index lower(c::text) is accepted');
SELECT lives_ok('CREATE INDEX ci_text ON ci USING artrie (t)',
	'a text column of the same table is accepted');
SET LOCAL enable_seqscan = off;
CREATE FUNCTION pg_temp.explain_lines() RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXPLAIN SELECT count(*) FROM ci WHERE lower(c::text) = 'name42' LOOP
		RETURN NEXT line;
	END LOOP;
END;
$$;
SELECT is((SELECT count(*)::int FROM ci WHERE lower(c::text) = 'name42'), 1,
	'lower(c::text) = ... finds the row');
SELECT matches((SELECT string_agg(p, ' ') FROM pg_temp.explain_lines() p),
	'ci_lower', 'through the expression index');
\else
SELECT skip('the citext extension is not installed', 7);
\endif

SELECT * FROM finish();
ROLLBACK;
