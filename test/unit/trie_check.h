/*-------------------------------------------------------------------------
 *
 * trie_check.h
 *	  Checks of a trie against the reference model, shared by the unit
 *	  tests and the fuzz harness.  Each returns true when the trie agrees
 *	  with the model, else prints what differs to stderr and returns false.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_CHECK_H
#define ARTRIE_TRIE_CHECK_H

#include "test_model.h"
#include "trie/trie.h"

/* Whole content, by a forward cursor, plus stats and verify. */
extern bool check_content(ArtTrie *t, const Model *m);

/* verify, and stats' entry count. */
extern bool check_verify(ArtTrie *t, const Model *m);

extern bool check_lookup(ArtTrie *t, const Model *m, const uint8_t *key,
						 size_t len);
extern bool check_count(ArtTrie *t, const Model *m, const uint8_t *prefix,
						size_t len);
extern bool check_prefixes_of(ArtTrie *t, const Model *m,
							  const uint8_t *value, size_t len,
							  int terminator);

/* A cursor scan description. */
typedef struct ScanSpec
{
	ArtDirection dir;
	const uint8_t *start;		/* NULL: from the first / last entry */
	size_t		start_len;
	bool		start_inclusive;
	const uint8_t *bound;		/* NULL: no bound */
	size_t		bound_len;
	bool		bound_inclusive;
	const uint8_t *prefix;		/* NULL: no prefix */
	size_t		prefix_len;
	int			limit;			/* entries to compare at most */
} ScanSpec;

/* The model's next entry for a scan after last (NULL: the first). */
extern const MKey *model_scan_next(const Model *m, const ScanSpec *s,
								   const MKey *last);

/* Compare up to limit entries of a scan. */
extern bool check_scan(ArtTrie *t, const Model *m, const ScanSpec *s);

/*
 * A walk over prefix pruned below depth max_depth (bytes past prefix)
 * and at any descended byte equal to cut (cut < 0: none); stops after
 * stop_after entries (0: never).
 */
extern bool check_walk(ArtTrie *t, const Model *m, const uint8_t *prefix,
					   size_t len, size_t max_depth, int cut, int stop_after);

/* Bulk-load the model into the (empty) trie. */
extern bool load_bulk(ArtTrie *t, const Model *m);

#endif							/* ARTRIE_TRIE_CHECK_H */
