/*-------------------------------------------------------------------------
 *
 * trie_read.c
 *	  Lookups, prefix counts, prefixes of a value.
 *
 * Point reads (lookup, count, prefixes) use lock coupling: share-lock the
 * child page, then release the parent page; at most two pages are pinned.
 * Ordered seeks are in trie_iter.c.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* If slot holds a stub, lock-couple to the page it points to. */
static ArtStatus
couple(ArtTrie *t, ArtPageRef *cur, uint16_t *slot)
{
	uint8_t    *rec = art_rec(cur->data, *slot);
	ArtPageNo	pg;
	ArtPageRef	next;
	ArtStatus	st;

	if (!art_is_stub(rec))
		return ART_OK;
	art_stub_target(rec, &pg, slot);
	st = t->store.ops->pin(t->store.store, pg, ART_LOCK_SHARE, &next);
	if (st != ART_OK)
		return st;
	t->store.ops->release(t->store.store, cur);
	*cur = next;
	return ART_OK;
}

/*
 * Follow key from the root with lock coupling as far as it matches.  Stops
 * at the node where key ends (inside or at the end of the node's prefix;
 * *at is the length of key before that prefix) with *matched set, or at a
 * mismatch or a missing child.  The node's page stays pinned in *cur.
 */
static ArtStatus
descend(ArtTrie *t, const uint8_t *key, size_t len, ArtPageRef *cur,
		ArtNode *node, size_t *at, bool *matched)
{
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;
	ArtStatus	st;

	*matched = false;
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, cur);
	if (st != ART_OK)
		return st;
	for (;;)
	{
		st = couple(t, cur, &slot);
		if (st != ART_OK)
		{
			t->store.ops->release(t->store.store, cur);
			return st;
		}
		art_node_decode(art_rec(cur->data, slot), node);
		*at = d;
		if (len - d <= node->plen)
		{
			*matched = memcmp(key + d, node->prefix, len - d) == 0;
			return ART_OK;
		}
		if (memcmp(key + d, node->prefix, node->plen) != 0)
			return ART_OK;
		d += node->plen;
		slot = art_node_find(node, key[d]);
		if (slot == 0)
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
	ArtStatus	st = descend(t, key, len, &cur, &node, &at, &matched);

	if (st != ART_OK)
		return st;
	st = matched && len - at == node.plen && node.terminal ?
		ART_OK : ART_NOT_FOUND;
	t->store.ops->release(t->store.store, &cur);
	return st;
}

/* Number of entries beginning with prefix: the count of one node. */
ArtStatus
art_count_prefix(ArtTrie *t, const uint8_t *prefix, size_t len,
				 uint64_t *count)
{
	ArtPageRef	cur;
	ArtNode		node;
	size_t		at;
	bool		matched;
	ArtStatus	st = descend(t, prefix, len, &cur, &node, &at, &matched);

	*count = 0;
	if (st != ART_OK)
		return st;
	if (matched)
		*count = node.count;
	t->store.ops->release(t->store.store, &cur);
	return ART_OK;
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
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;
	ArtStatus	st;
	size_t	   *lens = NULL;
	int			n = 0;
	int			cap = 0;
	int			i;

	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &cur);
	if (st != ART_OK)
		return st;
	for (;;)
	{
		ArtNode		node;
		size_t		k;

		st = couple(t, &cur, &slot);
		if (st != ART_OK)
		{
			t->store.ops->release(t->store.store, &cur);
			art_free(t, lens);
			return st;
		}
		art_node_decode(art_rec(cur.data, slot), &node);
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
		else if (terminator >= 0 && art_node_find(&node, (uint8_t) terminator))
			st = note_len(t, &lens, &n, &cap, d);
		if (st != ART_OK || d == len)
			break;
		slot = art_node_find(&node, value[d]);
		if (slot == 0)
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
