-- The catalog surface of the artrie access method: the access method and
-- its handler, the operator classes and their operators and strategies,
-- the functions' volatility, strictness and privileges.
\ir setup.psql

BEGIN;
SELECT plan(34);

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

-- The operator classes: text (varchar goes through it), bpchar and name;
-- int2, int4, int8 (one family) and uuid for leading columns.
SELECT has_opclass('artrie_text_ops', 'artrie_text_ops exists');
SELECT has_opclass('artrie_bpchar_ops', 'artrie_bpchar_ops exists');
SELECT has_opclass('artrie_name_ops', 'artrie_name_ops exists');
SELECT results_eq(
	$$SELECT c.opcname::text COLLATE "default", c.opcintype::regtype::text, c.opcdefault, amvalidate(c.oid)
	  FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
	  WHERE a.amname = 'artrie' ORDER BY 1$$,
	$$VALUES ('artrie_bpchar_ops', 'character', true, true),
	         ('artrie_int2_ops', 'smallint', true, true),
	         ('artrie_int4_ops', 'integer', true, true),
	         ('artrie_int8_ops', 'bigint', true, true),
	         ('artrie_name_ops', 'name', true, true),
	         ('artrie_text_ops', 'text', true, true),
	         ('artrie_uuid_ops', 'uuid', true, true)$$,
	'artrie has seven operator classes (three string ones, and integers and uuid for the leading columns of multicolumn indexes), each the default for its type, each accepted by amvalidate');
SELECT is((SELECT count(*)::int FROM pg_opfamily f JOIN pg_am a ON a.oid = f.opfmethod
		WHERE a.amname = 'artrie'),
	5, 'each string and the uuid operator class has its own family, the integers share one');

-- Operators and strategies.
SELECT results_eq(
	$$SELECT f.opfname::text COLLATE "default", o.amopstrategy::int, o.amopopr::regoperator::text, o.amoppurpose::text
	  FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
	  JOIN pg_am a ON a.oid = f.opfmethod
	  WHERE a.amname = 'artrie' AND f.opfname NOT IN ('artrie_integer_ops', 'artrie_uuid_ops')
	  ORDER BY 1, 2$$,
	$$VALUES ('artrie_bpchar_ops', 1, '<(character,character)', 's'),
	         ('artrie_bpchar_ops', 2, '<=(character,character)', 's'),
	         ('artrie_bpchar_ops', 3, '=(character,character)', 's'),
	         ('artrie_bpchar_ops', 4, '>=(character,character)', 's'),
	         ('artrie_bpchar_ops', 5, '>(character,character)', 's'),
	         ('artrie_bpchar_ops', 6, '^@(character,character)', 's'),
	         ('artrie_bpchar_ops', 7, '~~(character,text)', 's'),
	         ('artrie_name_ops', 1, '<(name,name)', 's'),
	         ('artrie_name_ops', 2, '<=(name,name)', 's'),
	         ('artrie_name_ops', 3, '=(name,name)', 's'),
	         ('artrie_name_ops', 4, '>=(name,name)', 's'),
	         ('artrie_name_ops', 5, '>(name,name)', 's'),
	         ('artrie_name_ops', 6, '^@(name,name)', 's'),
	         ('artrie_name_ops', 7, '~~(name,text)', 's'),
	         ('artrie_text_ops', 1, '<(text,text)', 's'),
	         ('artrie_text_ops', 2, '<=(text,text)', 's'),
	         ('artrie_text_ops', 3, '=(text,text)', 's'),
	         ('artrie_text_ops', 4, '>=(text,text)', 's'),
	         ('artrie_text_ops', 5, '>(text,text)', 's'),
	         ('artrie_text_ops', 6, '^@(text,text)', 's'),
	         ('artrie_text_ops', 7, '~~(text,text)', 's')$$,
	'each family has < <= = >= > at btree strategies 1-5, ^@ at 6 and LIKE (its type against a text pattern) at 7, all for search');
SELECT is((SELECT count(*)::int FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
		JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'artrie'),
	0, 'the operator families have no support functions');
SELECT ok((SELECT bool_and(p.provolatile = 'i') FROM pg_amop o
		JOIN pg_operator op ON op.oid = o.amopopr JOIN pg_proc p ON p.oid = op.oprcode
		JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
		WHERE a.amname = 'artrie'),
	'every operator''s function is immutable');
SELECT ok((SELECT bool_and(p.proisstrict) FROM pg_amop o
		JOIN pg_operator op ON op.oid = o.amopopr JOIN pg_proc p ON p.oid = op.oprcode
		JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
		WHERE a.amname = 'artrie'),
	'every operator''s function is strict');
SELECT results_eq(
	$$SELECT o.oprname::text COLLATE "default", o.oprleft::regtype::text, o.oprcode::text, o.oprrest::text, o.oprjoin::text
	  FROM pg_operator o JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid
	  JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'artrie' ORDER BY 2$$,
	$$VALUES ('^@', 'character', 'artrie_bpchar_starts_with', 'prefixsel', 'prefixjoinsel'),
	         ('^@', 'name', 'artrie_name_starts_with', 'prefixsel', 'prefixjoinsel')$$,
	'the extension''s own ^@ operators for bpchar and name, with prefix selectivity');
SELECT ok('ab'::char(4) ^@ 'ab '::bpchar AND NOT ('a'::char(4) ^@ 'ab'::bpchar)
		AND 'pg_class'::name ^@ 'pg_'::name,
	'bpchar ^@ ignores trailing blanks; name ^@ compares the strings');

-- Access method properties.
SELECT ok(pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_order'),
	'artrie can order');
SELECT ok(pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_unique'),
	'artrie can be unique');
SELECT ok(pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'artrie'), 'can_multi_col'),
	'artrie can be multicolumn');
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
CREATE TABLE cat_b (b char(8), n name);
CREATE INDEX cat_b_b ON cat_b USING artrie (b);
CREATE INDEX cat_b_n ON cat_b USING artrie (n);
SELECT ok(NOT pg_index_column_has_property('cat_b_b'::regclass, 1, 'returnable')
		AND pg_index_column_has_property('cat_b_n'::regclass, 1, 'returnable'),
	'a bpchar index is not returnable (its keys have lost the padding), a name index is');
SELECT ok(pg_index_has_property('cat_k'::regclass, 'index_scan')
		AND pg_index_has_property('cat_k'::regclass, 'bitmap_scan')
		AND pg_index_has_property('cat_k'::regclass, 'backward_scan'),
	'index, bitmap and backward scans');

-- Only a superuser creates the extension (it is not trusted).
SELECT is((SELECT trusted FROM pg_available_extension_versions
		WHERE name = 'artrie' AND version = '0.4.0'),
	false, 'the extension is not trusted');
SELECT is((SELECT relocatable FROM pg_available_extension_versions
		WHERE name = 'artrie' AND version = '0.4.0'),
	false, 'the extension is not relocatable');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'artrie'),
	'0.4.0', 'the installed version is 0.4.0');

SELECT * FROM finish();
ROLLBACK;
