/*-------------------------------------------------------------------------
 *
 * trie_fuzzy.h
 *	  Fuzzy search: every key within an edit distance of a term, or every
 *	  key that begins within an edit distance of it (prefix mode).
 *
 * A Levenshtein automaton (one dynamic-programming row per character of
 * the path) walks the trie depth first and prunes every subtree whose row
 * minimum already exceeds the distance, so the cost grows with the part
 * of the trie near the term, not with the number of keys.
 *
 * In prefix mode a key's distance is its prefix distance: the least, over
 * all prefixes p of the key (the empty one and the key itself included),
 * of the edit distance between the term and p.  A subtree stays in the
 * walk while the path's own prefix distance or its row minimum is within
 * the bound.
 *
 * With max_keys, the trie is walked once for each distance from 0 up,
 * each walk reporting only the keys at its distance (in prefix mode it
 * skips the subtrees whose keys are all nearer), until max_keys keys are
 * reported: the first by (distance, key), in that order, and nothing
 * after them, so the cost grows with the distance the answers need.
 *
 * Distances count characters, as the caller's encoding defines them
 * through charlen; with transpositions, an adjacent swap costs 1 (optimal
 * string alignment distance).
 *
 * Plain C: never include a PostgreSQL header here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_FUZZY_H
#define ARTRIE_TRIE_FUZZY_H

#include "trie.h"

/*
 * Bytes in the character whose first byte is *s (1 or more).  It must
 * depend on that first byte only, as in every PostgreSQL server encoding.
 */
typedef int (*ArtCharLen) (const uint8_t *s);

/*
 * Called for each stored entry whose key is within the distance: the whole
 * entry, the length of its key part, and the key's distance.  It runs
 * while the walk holds share locks, so it must not fail, block or call the
 * store; it returns false to end the search.
 */
typedef bool (*ArtFuzzyCallback) (void *arg, const uint8_t *entry, size_t len,
								  size_t key_len, int distance);

typedef struct ArtFuzzyQuery
{
	const uint8_t *term;
	size_t		term_len;
	int			max_distance;	/* >= 0 */
	bool		transpositions;
	bool		prefix;			/* distance to the key's closest prefix */

	/*
	 * > 0: report the entries of the first max_keys distinct keys by
	 * (distance, key), in that order (fewer: all that match).  0: all, in
	 * byte order.
	 */
	int			max_keys;
	/* < 0: a whole entry is a key; else the key ends at this byte */
	int			terminator;
	ArtCharLen	charlen;		/* NULL: one byte, one character */
} ArtFuzzyQuery;

/*
 * Call cb for every entry whose key matches the query, in byte order (with
 * max_keys, for the first keys' entries, in (distance, key) order).
 */
extern ArtStatus art_fuzzy(ArtTrie *t, const ArtFuzzyQuery *query,
						   ArtFuzzyCallback cb, void *arg);

#endif							/* ARTRIE_TRIE_FUZZY_H */
