-- The catalog surface of the artrie access method: the access method and
-- its handler, the operator class and its operators and strategies, the
-- functions' volatility, strictness and privileges.
\ir setup.psql

BEGIN;
SELECT plan(30);

-- The access method and its handler.
SELECT ok(EXISTS (SELECT 1 FROM pg_am WHERE amname = 'artrie' AND amtype = 'i'),
	'artrie is an index access method');
SELECT is((SELECT amhandler::text FROM pg_am WHERE amname = 'artrie'),
	'artrie_handler', 'its handler is artrie_handler');
SELECT has_function('artrie_handler', ARRAY['internal'], 'artrie_handler(internal) exists');
SELECT function_returns('artrie_handler', ARRAY['internal'], 'index_am_handler',
	'artrie_handler returns index_am_handler');
SELECT function_lang_is('artrie_handler', ARRAY['internal'], 'c', 'artrie_handler is written in C');
SELECT volatility_is('artrie_handler', ARRAY['internal'], 'volatile',
	'artrie_handler has the default volatility');
SELECT is_strict('artrie_handler', ARRAY['internal'], 'artrie_handler is strict');
SELECT ok(has_function_privilege('public', 'artrie_handler(internal)', 'EXECUTE'),
	'PUBLIC keeps the default EXECUTE on artrie_handler (it takes internal)');
SELECT throws_ok('SELECT artrie_handler(NULL::internal)', '42846', NULL,
	'artrie_handler cannot be called from SQL');
SELECT is((SELECT count(*)::int FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
		WHERE e.extname = 'artrie' AND d.classid = 'pg_am'::regclass),
	1, 'the access method belongs to the extension');

-- The operator class.
SELECT has_opclass('artrie_text_ops', 'artrie_text_ops exists');
SELECT ok((SELECT opcdefault FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
		WHERE a.amname = 'artrie' AND c.opcname = 'artrie_text_ops'),
	'artrie_text_ops is the default operator class');
SELECT is((SELECT opcintype::regtype::text FROM pg_opclass WHERE opcname = 'artrie_text_ops'),
	'text', 'artrie_text_ops is for text');
SELECT ok((SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'artrie_text_ops'),
	'amvalidate accepts artrie_text_ops');
SELECT is((SELECT count(*)::int FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
		WHERE a.amname = 'artrie'),
	1, 'artrie has exactly one operator class');

-- Operators and strategies.
SELECT results_eq(
	$$SELECT o.amopstrategy::int, o.amopopr::regoperator::text, o.amoppurpose::text
	  FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
	  JOIN pg_am a ON a.oid = f.opfmethod
	  WHERE a.amname = 'artrie' AND f.opfname = 'artrie_text_ops'
	  ORDER BY 1$$,
	$$VALUES (1, '<(text,text)', 's'), (2, '<=(text,text)', 's'), (3, '=(text,text)', 's'),
	         (4, '>=(text,text)', 's'), (5, '>(text,text)', 's'), (6, '^@(text,text)', 's')$$,
	'the operators are < <= = >= > at btree strategies 1-5 and ^@ at 6, all for search');
SELECT is((SELECT count(*)::int FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
		JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'artrie'),
	0, 'the operator family has no support functions');
SELECT ok((SELECT bool_and(p.provolatile = 'i') FROM pg_amop o
		JOIN pg_operator op ON op.oid = o.amopopr JOIN pg_proc p ON p.oid = op.oprcode
		JOIN pg_opfamily f ON f.oid = o.amopfamily WHERE f.opfname = 'artrie_text_ops'),
	'every operator''s function is immutable');
SELECT ok((SELECT bool_and(p.proisstrict) FROM pg_amop o
		JOIN pg_operator op ON op.oid = o.amopopr JOIN pg_proc p ON p.oid = op.oprcode
		JOIN pg_opfamily f ON f.oid = o.amopfamily WHERE f.opfname = 'artrie_text_ops'),
	'every operator''s function is strict');

-- Access method properties.
SELECT ok(pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_order'),
	'artrie can order');
SELECT ok(NOT pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_unique'),
	'artrie cannot be unique');
SELECT ok(NOT pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_multi_col'),
	'artrie is single-column');
SELECT ok(pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_exclude') IS NOT NULL,
	'can_exclude is answered');

-- An index: used for varchar too, properties by collation.
CREATE TABLE cat_t (k varchar COLLATE "C", d text COLLATE "en-x-icu");
CREATE INDEX cat_k ON cat_t USING artrie (k);
CREATE INDEX cat_d ON cat_t USING artrie (d);
SELECT index_is_type(current_schema(), 'cat_t', 'cat_k', 'artrie', 'a varchar column takes an artrie index');
SELECT ok(pg_index_column_has_property('cat_k'::regclass, 1, 'orderable'),
	'an index under "C" is orderable');
SELECT ok(NOT pg_index_column_has_property('cat_d'::regclass, 1, 'orderable'),
	'an index under an ICU collation is not orderable');
SELECT ok(pg_index_column_has_property('cat_d'::regclass, 1, 'returnable'),
	'index-only scans are possible');
SELECT ok(pg_index_has_property('cat_k'::regclass, 'index_scan')
		AND pg_index_has_property('cat_k'::regclass, 'bitmap_scan')
		AND pg_index_has_property('cat_k'::regclass, 'backward_scan'),
	'index, bitmap and backward scans');

-- Only a superuser creates the extension (it is not trusted).
SELECT is((SELECT trusted FROM pg_available_extension_versions
		WHERE name = 'artrie' AND version = '0.1.0'),
	false, 'the extension is not trusted');
SELECT is((SELECT relocatable FROM pg_available_extension_versions
		WHERE name = 'artrie' AND version = '0.1.0'),
	false, 'the extension is not relocatable');

SELECT * FROM finish();
ROLLBACK;
