/* artrie--0.3.0--0.4.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION artrie UPDATE TO '0.4.0'" to load this file. \quit

-- LIKE at strategy 7 of the bpchar and name families, as of text's: the
-- index condition of "key LIKE pattern" is the LIKE itself (a text
-- pattern, for both).  A scan reads the keys that begin with the
-- pattern's literal prefix; a bpchar key has lost its padding, so the
-- prefix loses its trailing blanks too, and a pattern whose padding
-- matters (no wildcard, or a literal that ends in a blank) is rechecked.
-- Indexes built under 0.3.0 use it as they are.
ALTER OPERATOR FAMILY artrie_bpchar_ops USING artrie ADD
	OPERATOR	7	~~ (bpchar, text);

ALTER OPERATOR FAMILY artrie_name_ops USING artrie ADD
	OPERATOR	7	~~ (name, text);
