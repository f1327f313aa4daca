/*-------------------------------------------------------------------------
 *
 * trie_pages.h
 *	  Pages on an entry's path in a trie over the in-memory page store,
 *	  shared by the unit tests and the trie core's benchmarks.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_PAGES_H
#define ARTRIE_TRIE_PAGES_H

#include "trie/trie_internal.h"
#include "trie/trie_memstore.h"

/*
 * Pages on the path to where entry e (len bytes) is or would go: the root
 * page and every page a stub leads to.
 */
extern int	pages_on_path(ArtMemStore *ms, ArtPageNo root, const uint8_t *e,
						  size_t len);

#endif							/* ARTRIE_TRIE_PAGES_H */
