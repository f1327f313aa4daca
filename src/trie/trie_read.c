/*-------------------------------------------------------------------------
 *
 * trie_read.c
 *	  Lookups, prefix counts, prefixes of a value.
 *
 * Point reads (lookup, count, prefixes, and a cursor's first fetch of the
 * entries beginning with a key, trie_cursor.c) use lock coupling:
 * share-lock the child page, then release the parent page; at most two
 * pages are pinned.  Ordered seeks are in trie_iter.c.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/*
 * Lock-couple from the stub rec of *cur to the page it points to, asking
 * for that page's lines at once (art_prefetch_page), and make *at refer
 * to the stub's target there.  Called only for a stub, so that the nodes
 * of a page cost no call.
 */
static ART_HOT ArtStatus
couple(ArtTrie *t, ArtPageRef *cur, const uint8_t *rec, ArtChild *at)
{
	ArtPageNo	pg;
	uint16_t	slot;
	ArtPageRef	next;
	ArtStatus	st;

	art_stub_target(rec, &pg, &slot);
	st = t->store.ops->pin(t->store.store, pg, ART_LOCK_SHARE, &next);
	if (st != ART_OK)
		return st;
	art_prefetch_page(next.data);
	t->store.ops->release(t->store.store, cur);
	*cur = next;
	*at = art_child_of_slot(cur->data, slot);
	return ART_OK;
}

/*
 * Follow key from the root with lock coupling as far as it matches.  Stops
 * at the node where key ends (inside or at the end of the node's prefix;
 * *at is the length of key before that prefix) with *matched set, or at a
 * mismatch or a missing child.  The node's page stays pinned and
 * share-locked in *cur, a reference to the node in *noderef, the node in
 * *node as art_node_decode_walk decodes it (art_node_decode_count adds
 * its count).
 */
ART_HOT ArtStatus
art_descend(ArtTrie *t, const uint8_t *key, size_t len, ArtPageRef *cur,
		ArtNode *node, size_t *at, bool *matched, ArtChild *noderef)
{
	ArtChild	c;
	size_t		d = 0;
	ArtStatus	st;

	*matched = false;
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, cur);
	if (st != ART_OK)
		return st;
	c = art_child_of_slot(cur->data, ART_ROOT_SLOT);
	for (;;)
	{
		uint8_t    *rec = art_child_rec(cur->data, c);

		if (art_is_stub(rec))
		{
			st = couple(t, cur, rec, &c);
			if (st != ART_OK)
			{
				t->store.ops->release(t->store.store, cur);
				return st;
			}
			rec = art_child_rec(cur->data, c);
		}
		art_node_decode_walk(rec, node);
		*noderef = c;
		*at = d;
		if (len - d <= node->plen)
		{
			*matched = art_bytes_equal(key + d, node->prefix, len - d);
			return ART_OK;
		}
		if (!art_bytes_equal(key + d, node->prefix, node->plen))
			return ART_OK;
		d += node->plen;
		c = art_node_find(node, key[d]);
		if (art_child_none(c))
			return ART_OK;
		d++;
	}
}

/* Whether the entry is present. */
ArtStatus
art_lookup(ArtTrie *t, const uint8_t *key, size_t len)
{
	ArtPageRef	cur;
	ArtNode		node;
	size_t		at;
	bool		matched;
	ArtChild	ref;
	ArtStatus	st = art_descend(t, key, len, &cur, &node, &at, &matched, &ref);

	if (st != ART_OK)
		return st;
	st = matched && len - at == node.plen && node.terminal ?
		ART_OK : ART_NOT_FOUND;
	t->store.ops->release(t->store.store, &cur);
	return st;
}

/*
 * The count of the node a stub leads to (a page below the root page, where
 * counts are kept), the stub's page held by the caller.
 */
ArtStatus
art_stub_count(ArtTrie *t, const uint8_t *stub, uint64_t *count)
{
	ArtPageRef	ref;
	ArtPageNo	pg;
	uint16_t	slot;
	ArtNode		node;
	ArtStatus	st;

	art_stub_target(stub, &pg, &slot);
	st = t->store.ops->pin(t->store.store, pg, ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	art_node_decode(art_rec(ref.data, slot), &node);
	*count = node.count;
	t->store.ops->release(t->store.store, &ref);
	return ART_OK;
}

/*
 * The number of entries below the node of the root page at, which the
 * caller holds.  The root page's node counts are not kept (every
 * insert would have to lock the root page exclusive to keep them): sum
 * the entries of the node's subtree in the root page and the counts of
 * the nodes its stubs lead to, each of those pages locked share in turn.
 * A subtree that visits more records than the page has slots, or more
 * than the stack holds, runs in a circle: ART_CORRUPT, not an endless
 * loop (only a damaged page whose checksum still holds can be one).
 */
ArtStatus
art_root_count(ArtTrie *t, uint8_t *page, ArtChild at, uint64_t *count)
{
	const int	cap = ART_PAGE_SIZE / 2;
	ArtChild   *stack = art_alloc(t, sizeof(ArtChild) * cap);
	size_t		visits = 0;
	int			sp = 0;
	ArtStatus	st = ART_OK;

	*count = 0;
	if (stack == NULL)
		return ART_NO_MEMORY;
	stack[sp++] = at;
	while (sp > 0 && st == ART_OK)
	{
		uint8_t    *rec = art_child_rec(page, stack[--sp]);
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	s;
		uint64_t	c;

		if (++visits > art_page_nslots(page))
		{
			st = ART_CORRUPT;
			break;
		}
		if (art_is_stub(rec))
		{
			st = art_stub_count(t, rec, &c);
			*count += c;
			continue;
		}
		art_node_decode(rec, &node);
		*count += node.terminal ? 1 : 0;
		while (art_node_next(&node, key, &k, &s))
		{
			if (sp == cap)
			{
				st = ART_CORRUPT;
				break;
			}
			stack[sp++] = s;
			key = k;
		}
	}
	art_free(t, stack);
	return st;
}

/* Number of entries beginning with prefix: the count of one node. */
ART_HOT ArtStatus
art_count_prefix(ArtTrie *t, const uint8_t *prefix, size_t len,
				 uint64_t *count)
{
	ArtPageRef	cur;
	ArtNode		node;
	size_t		at;
	bool		matched;
	ArtChild	ref;
	ArtStatus	st = art_descend(t, prefix, len, &cur, &node, &at, &matched,
							 &ref);

	*count = 0;
	if (st != ART_OK)
		return st;
	if (matched && cur.pageno == t->root)
		st = art_root_count(t, cur.data, ref, count);
	else if (matched)
	{
		art_node_decode_count(art_child_rec(cur.data, ref), &node);
		*count = node.count;
	}
	t->store.ops->release(t->store.store, &cur);
	return st;
}

/* Remember one prefix length for art_prefixes_of. */
static ArtStatus
note_len(ArtTrie *t, size_t **lens, int *n, int *cap, size_t len)
{
	ArtStatus	st = art_grow(t, (void **) lens, cap, *n + 1, sizeof(size_t));

	if (st == ART_OK)
		(*lens)[(*n)++] = len;
	return st;
}

/*
 * Prefixes of value that are entries (terminator < 0), or that some entry
 * continues with the terminator byte.  Collected under lock coupling,
 * reported longest first after every page is released.
 */
ArtStatus
art_prefixes_of(ArtTrie *t, const uint8_t *value, size_t len, int terminator,
				ArtPrefixCallback cb, void *arg)
{
	ArtPageRef	cur;
	ArtChild	c;
	size_t		d = 0;
	ArtStatus	st;
	size_t	   *lens = NULL;
	int			n = 0;
	int			cap = 0;
	int			i;

	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &cur);
	if (st != ART_OK)
		return st;
	c = art_child_of_slot(cur.data, ART_ROOT_SLOT);
	for (;;)
	{
		ArtNode		node;
		size_t		k;
		uint8_t    *rec = art_child_rec(cur.data, c);

		if (art_is_stub(rec))
		{
			st = couple(t, &cur, rec, &c);
			if (st != ART_OK)
			{
				t->store.ops->release(t->store.store, &cur);
				art_free(t, lens);
				return st;
			}
			rec = art_child_rec(cur.data, c);
		}
		art_node_decode(rec, &node);
		if (node.n == 0 && !node.terminal)
			break;
		for (k = 0; k < node.plen; k++)
		{
			if (terminator >= 0 && node.prefix[k] == terminator)
				st = note_len(t, &lens, &n, &cap, d + k);
			if (st != ART_OK || d + k == len || value[d + k] != node.prefix[k])
				break;
		}
		if (st != ART_OK || k < node.plen)
			break;
		d += node.plen;
		if (terminator < 0 && node.terminal)
			st = note_len(t, &lens, &n, &cap, d);
		else if (terminator >= 0 &&
				 !art_child_none(art_node_find(&node, (uint8_t) terminator)))
			st = note_len(t, &lens, &n, &cap, d);
		if (st != ART_OK || d == len)
			break;
		c = art_node_find(&node, value[d]);
		if (art_child_none(c))
			break;
		d++;
	}
	t->store.ops->release(t->store.store, &cur);
	if (st == ART_OK)
		for (i = n - 1; i >= 0; i--)
			if (!cb(arg, lens[i]))
				break;
	art_free(t, lens);
	return st;
}
