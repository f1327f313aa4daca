/* artrie--0.2.0--0.3.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION artrie UPDATE TO '0.3.0'" to load this file. \quit

-- LIKE at strategy 7 of the text family: the index condition of
-- "key LIKE pattern" is the LIKE itself, and a scan reads the keys that
-- begin with the pattern's literal prefix, leaving a pattern that is more
-- than that prefix and '%' to a recheck.  Indexes built under 0.2.0 use
-- it as they are.
ALTER OPERATOR FAMILY artrie_text_ops USING artrie ADD
	OPERATOR	7	~~ (text, text);
