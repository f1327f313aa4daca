/* artrie--0.1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION artrie" to load this file. \quit

-- The index access method.
CREATE FUNCTION artrie_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

COMMENT ON FUNCTION artrie_handler(internal) IS
'index access method handler for artrie';

CREATE ACCESS METHOD artrie TYPE INDEX HANDLER artrie_handler;

COMMENT ON ACCESS METHOD artrie IS
'adaptive radix trie over text keys, persisted in artrie''s own files';

-- The operator class for text (and varchar, which is binary coercible to
-- text).  Strategies 1-5 are btree's, so that the planner can map the
-- index's order onto btree's text_ops under a byte-ordered ("C")
-- collation and turn LIKE 'abc%' into a range; strategy 6 is starts-with.
CREATE OPERATOR CLASS artrie_text_ops
DEFAULT FOR TYPE text USING artrie AS
	OPERATOR	1	< (text, text),
	OPERATOR	2	<= (text, text),
	OPERATOR	3	= (text, text),
	OPERATOR	4	>= (text, text),
	OPERATOR	5	> (text, text),
	OPERATOR	6	^@ (text, text);
