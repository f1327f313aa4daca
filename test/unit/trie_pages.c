/*-------------------------------------------------------------------------
 *
 * trie_pages.c
 *	  Pages on an entry's path in a trie over the in-memory page store.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "trie_pages.h"

/*
 * Pages on the path to where entry e (len bytes) is or would go: the
 * descent a lookup of e makes, counting the root page and each page a
 * stub leads to, until e's bytes end or leave the trie.
 */
int
pages_on_path(ArtMemStore *ms, ArtPageNo root, const uint8_t *e, size_t len)
{
	uint8_t    *page = art_memstore_page(ms, root);
	ArtChild	at = art_child_of_slot(page, ART_ROOT_SLOT);
	size_t		d = 0;
	int			np = 1;

	for (;;)
	{
		uint8_t    *rec = art_child_rec(page, at);
		ArtNode		node;

		if (art_is_stub(rec))
		{
			ArtPageNo	pg;
			uint16_t	slot;

			art_stub_target(rec, &pg, &slot);
			page = art_memstore_page(ms, pg);
			at = art_child_of_slot(page, slot);
			np++;
			continue;
		}
		art_node_decode(rec, &node);
		if (node.plen > len - d || memcmp(e + d, node.prefix, node.plen) != 0)
			return np;
		d += node.plen;
		if (d == len)
			return np;
		at = art_node_find(&node, e[d]);
		if (art_child_none(at))
			return np;
		d++;
	}
}
