/* artrie--0.1.0.sql */

-- The one install script: version 0.1.0 as it was released.  CREATE
-- EXTENSION artrie of any later version runs it and then the update
-- scripts to that version in turn (artrie--0.1.0--0.2.0.sql and on), as
-- PostgreSQL does when no install script of that version exists, so a
-- fresh database and an updated one run the same statements.  A new
-- version adds only its update script; this file does not change.

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

-- The operator class for bpchar (char(n)).  Keys leave out trailing
-- blanks, which bpchar's comparisons ignore; "^@" between two bpchar
-- values ignores them too.
CREATE FUNCTION artrie_bpchar_starts_with(bpchar, bpchar)
RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION artrie_bpchar_starts_with(bpchar, bpchar) IS
'whether the first value, trailing blanks left out, begins with the second, trailing blanks left out';

CREATE OPERATOR ^@ (
	LEFTARG = bpchar,
	RIGHTARG = bpchar,
	FUNCTION = artrie_bpchar_starts_with,
	RESTRICT = prefixsel,
	JOIN = prefixjoinsel
);

CREATE OPERATOR CLASS artrie_bpchar_ops
DEFAULT FOR TYPE bpchar USING artrie AS
	OPERATOR	1	< (bpchar, bpchar),
	OPERATOR	2	<= (bpchar, bpchar),
	OPERATOR	3	= (bpchar, bpchar),
	OPERATOR	4	>= (bpchar, bpchar),
	OPERATOR	5	> (bpchar, bpchar),
	OPERATOR	6	^@ (bpchar, bpchar);

-- The operator class for name: the key is the string before the NUL.
CREATE FUNCTION artrie_name_starts_with(name, name)
RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION artrie_name_starts_with(name, name) IS
'whether the first name begins with the second';

CREATE OPERATOR ^@ (
	LEFTARG = name,
	RIGHTARG = name,
	FUNCTION = artrie_name_starts_with,
	RESTRICT = prefixsel,
	JOIN = prefixjoinsel
);

CREATE OPERATOR CLASS artrie_name_ops
DEFAULT FOR TYPE name USING artrie AS
	OPERATOR	1	< (name, name),
	OPERATOR	2	<= (name, name),
	OPERATOR	3	= (name, name),
	OPERATOR	4	>= (name, name),
	OPERATOR	5	> (name, name),
	OPERATOR	6	^@ (name, name);

-- Functions over artrie indexes.  Each one checks that the caller may
-- SELECT from the indexed table, and reports only keys that a heap tuple
-- visible to the caller holds (artrie_prefix_count excepted: it counts
-- entries, visible or not, until VACUUM removes them).
CREATE FUNCTION artrie_complete(index regclass, prefix text,
								max_results int DEFAULT 10)
RETURNS SETOF text
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_complete(regclass, text, int) IS
'the distinct keys beginning with prefix, in byte order, at most max_results';

CREATE FUNCTION artrie_prefix_count(index regclass, prefix text)
RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_prefix_count(regclass, text) IS
'index entries whose key begins with prefix, including entries VACUUM has not removed yet';

CREATE FUNCTION artrie_prefixes_of(index regclass, value text)
RETURNS SETOF text
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_prefixes_of(regclass, text) IS
'the distinct keys that are prefixes of value, longest first';

CREATE FUNCTION artrie_fuzzy(index regclass, term text, max_distance int,
							 transpositions bool DEFAULT false)
RETURNS TABLE (key text, distance int)
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_fuzzy(regclass, text, int, bool) IS
'the distinct keys within max_distance Levenshtein edits of term, by distance then key';

CREATE FUNCTION artrie_verify(index regclass, heapallindexed bool DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

COMMENT ON FUNCTION artrie_verify(regclass, bool) IS
'check the index''s structure and, with heapallindexed, that every visible heap tuple is in it';

CREATE FUNCTION artrie_stats(index regclass, walk boolean DEFAULT false)
RETURNS jsonb
AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION artrie_stats(regclass, boolean) IS
'entries, distinct keys, pages and bytes on disk of an artrie index, from counts kept up to date; with walk, also the tries'' shapes and distinct keys counted by walking the index';

-- pager
-- Checkpoint and statistics of the pager and I/O backends
-- (src/func/func_pager.c documents every column).

CREATE FUNCTION artrie_checkpoint()
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_checkpoint() IS
'make every dirty artrie page durable (superuser or pg_checkpoint)';

-- After pg_upgrade, in each database: take the old cluster's artrie files
-- (src/func/func_adopt.c documents the columns).
CREATE FUNCTION artrie_adopt(
	old_datadir text,
	OUT index regclass,
	OUT adopted boolean,
	OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

REVOKE ALL ON FUNCTION artrie_adopt(text) FROM PUBLIC;

COMMENT ON FUNCTION artrie_adopt(text) IS
'after pg_upgrade: give the artrie indexes of this database the files of the old cluster whose data directory is given (superuser)';

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
	OUT checkpoint_pages bigint,
	OUT recent_hit_ratio float8,
	OUT too_small bool)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_pool_stats() IS
'artrie buffer pool counters, the hit ratio of the last 10 seconds, and whether the pool looks too small';

-- What monitoring needs of one index, cheaply: no privilege on the table
-- is needed (no key is shown), and an index whose file cannot be used
-- gives NULLs and the reason in problem instead of an ERROR.
CREATE FUNCTION artrie_index_info(index regclass,
	OUT file text,
	OUT file_bytes bigint,
	OUT bytes_on_disk bigint,
	OUT entries bigint,
	OUT checkpoint bigint,
	OUT checkpoint_redo_lsn pg_lsn,
	OUT problem text)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

COMMENT ON FUNCTION artrie_index_info(regclass) IS
'an artrie index''s file, its size on disk, entries and last checkpoint, or why its file cannot be used';

-- Every artrie index of this database with its sizes (the standard size
-- functions see only its main fork), entries and last checkpoint, and the
-- hit ratio of the whole buffer pool (the pool does not count per index);
-- other sessions' temporary indexes are left out, since only their
-- session can read them.
CREATE VIEW artrie_indexes AS
SELECT c.oid::regclass AS index,
	i.indrelid::regclass AS "table",
	f.bytes_on_disk,
	f.file_bytes,
	f.entries,
	f.checkpoint,
	f.checkpoint_redo_lsn,
	p.hits::float8 / NULLIF(p.hits + p.misses, 0) AS pool_hit_ratio,
	p.recent_hit_ratio AS pool_recent_hit_ratio,
	f.file,
	f.problem
FROM pg_class c
JOIN pg_index i ON i.indexrelid = c.oid
JOIN pg_am a ON a.oid = c.relam
CROSS JOIN LATERAL artrie_index_info(c.oid::regclass) f
CROSS JOIN artrie_pool_stats() p
WHERE a.amname = 'artrie' AND c.relkind = 'i'
	AND (c.relpersistence <> 't' OR c.relnamespace = pg_my_temp_schema());

COMMENT ON VIEW artrie_indexes IS
'artrie indexes with their real size on disk, entries, last checkpoint and the pool''s hit ratio';
