/* artrie--0.1.0--0.2.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION artrie UPDATE TO '0.2.0'" to load this file. \quit

-- Operator classes for the columns ahead of the last in a multicolumn
-- index: the integers (one family, with the operators between any two of
-- them, so that "bigint_col = 42" uses the index) and uuid.  Their values
-- are keyed in order (am_datum_key); they have no starts-with.  A single
-- integer or uuid column is left to btree.
CREATE OPERATOR FAMILY artrie_integer_ops USING artrie;

CREATE OPERATOR CLASS artrie_int2_ops
DEFAULT FOR TYPE int2 USING artrie FAMILY artrie_integer_ops AS
	OPERATOR	1	< (int2, int2),
	OPERATOR	2	<= (int2, int2),
	OPERATOR	3	= (int2, int2),
	OPERATOR	4	>= (int2, int2),
	OPERATOR	5	> (int2, int2);

CREATE OPERATOR CLASS artrie_int4_ops
DEFAULT FOR TYPE int4 USING artrie FAMILY artrie_integer_ops AS
	OPERATOR	1	< (int4, int4),
	OPERATOR	2	<= (int4, int4),
	OPERATOR	3	= (int4, int4),
	OPERATOR	4	>= (int4, int4),
	OPERATOR	5	> (int4, int4);

CREATE OPERATOR CLASS artrie_int8_ops
DEFAULT FOR TYPE int8 USING artrie FAMILY artrie_integer_ops AS
	OPERATOR	1	< (int8, int8),
	OPERATOR	2	<= (int8, int8),
	OPERATOR	3	= (int8, int8),
	OPERATOR	4	>= (int8, int8),
	OPERATOR	5	> (int8, int8);

ALTER OPERATOR FAMILY artrie_integer_ops USING artrie ADD
	OPERATOR	1	< (int2, int4),
	OPERATOR	2	<= (int2, int4),
	OPERATOR	3	= (int2, int4),
	OPERATOR	4	>= (int2, int4),
	OPERATOR	5	> (int2, int4),
	OPERATOR	1	< (int2, int8),
	OPERATOR	2	<= (int2, int8),
	OPERATOR	3	= (int2, int8),
	OPERATOR	4	>= (int2, int8),
	OPERATOR	5	> (int2, int8),
	OPERATOR	1	< (int4, int2),
	OPERATOR	2	<= (int4, int2),
	OPERATOR	3	= (int4, int2),
	OPERATOR	4	>= (int4, int2),
	OPERATOR	5	> (int4, int2),
	OPERATOR	1	< (int4, int8),
	OPERATOR	2	<= (int4, int8),
	OPERATOR	3	= (int4, int8),
	OPERATOR	4	>= (int4, int8),
	OPERATOR	5	> (int4, int8),
	OPERATOR	1	< (int8, int2),
	OPERATOR	2	<= (int8, int2),
	OPERATOR	3	= (int8, int2),
	OPERATOR	4	>= (int8, int2),
	OPERATOR	5	> (int8, int2),
	OPERATOR	1	< (int8, int4),
	OPERATOR	2	<= (int8, int4),
	OPERATOR	3	= (int8, int4),
	OPERATOR	4	>= (int8, int4),
	OPERATOR	5	> (int8, int4);

CREATE OPERATOR CLASS artrie_uuid_ops
DEFAULT FOR TYPE uuid USING artrie AS
	OPERATOR	1	< (uuid, uuid),
	OPERATOR	2	<= (uuid, uuid),
	OPERATOR	3	= (uuid, uuid),
	OPERATOR	4	>= (uuid, uuid),
	OPERATOR	5	> (uuid, uuid);

-- Typo-tolerant completion.
CREATE FUNCTION artrie_fuzzy_complete(index regclass, prefix text,
									  max_distance int,
									  max_results int DEFAULT 10,
									  transpositions bool DEFAULT false)
RETURNS TABLE (key text, distance int)
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_fuzzy_complete(regclass, text, int, int, bool) IS
'the distinct keys that begin within max_distance Levenshtein edits of prefix, by distance then key, at most max_results';

-- The search functions on a multicolumn index take the values of its
-- leading columns, as text in column order, and answer for the last
-- column's values below them.
CREATE FUNCTION artrie_complete(index regclass, prefix text,
								max_results int, leading_values text[])
RETURNS SETOF text
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_complete(regclass, text, int, text[]) IS
'the distinct last-column keys beginning with prefix below the leading columns'' values, in byte order, at most max_results';

CREATE FUNCTION artrie_prefix_count(index regclass, prefix text,
									leading_values text[])
RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_prefix_count(regclass, text, text[]) IS
'the number of index entries whose last-column key begins with prefix below the leading columns'' values';

CREATE FUNCTION artrie_prefixes_of(index regclass, value text,
								   leading_values text[])
RETURNS SETOF text
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_prefixes_of(regclass, text, text[]) IS
'the distinct last-column keys that are prefixes of value below the leading columns'' values, longest first';
