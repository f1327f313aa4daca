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

-- pager
-- Checkpoint and statistics of the pager and I/O backends
-- (src/func/func_pager.c documents every column).

CREATE FUNCTION artrie_checkpoint()
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_checkpoint() IS
'make every dirty artrie page durable (superuser or pg_checkpoint)';

CREATE FUNCTION artrie_io_stats(
	OUT process text,
	OUT io_backend text,
	OUT buffer_mode text,
	OUT reads bigint,
	OUT writes bigint,
	OUT read_bytes bigint,
	OUT write_bytes bigint,
	OUT syncs bigint,
	OUT submissions bigint,
	OUT sqes bigint,
	OUT avg_batch float8,
	OUT requests bigint,
	OUT wait_ms float8,
	OUT fallback text)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_io_stats() IS
'artrie I/O counters per kind of process, backend in use and registered-buffer mode';

CREATE FUNCTION artrie_pool_stats(
	OUT frames bigint,
	OUT dirty bigint,
	OUT files bigint,
	OUT hits bigint,
	OUT misses bigint,
	OUT evictions bigint,
	OUT eviction_writes bigint,
	OUT checkpoints bigint,
	OUT checkpoint_pages bigint)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_pool_stats() IS
'artrie buffer pool counters';
