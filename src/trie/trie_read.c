/*-------------------------------------------------------------------------
 *
 * trie_read.c
 *	  Lookups, prefix counts, prefixes of a value, ordered seeks.
 *
 * Point reads (lookup, count, prefixes) use lock coupling: share-lock the
 * child page, then release the parent page; at most two pages are pinned.
 * An ordered seek may have to back up to an ancestor, so it keeps the
 * share locks of the pages on its path until it has found its entry.
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

/* Whether the entry is present. */
ArtStatus
art_lookup(ArtTrie *t, const uint8_t *key, size_t len)
{
	ArtPageRef	cur;
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;
	ArtStatus	st;

	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &cur);
	if (st != ART_OK)
		return st;
	for (;;)
	{
		ArtNode		node;

		st = couple(t, &cur, &slot);
		if (st != ART_OK)
			return st;
		art_node_decode(art_rec(cur.data, slot), &node);
		if (len - d < node.plen ||
			memcmp(key + d, node.prefix, node.plen) != 0)
		{
			st = ART_NOT_FOUND;
			break;
		}
		d += node.plen;
		if (d == len)
		{
			st = node.terminal ? ART_OK : ART_NOT_FOUND;
			break;
		}
		slot = art_node_find(&node, key[d]);
		if (slot == 0)
		{
			st = ART_NOT_FOUND;
			break;
		}
		d++;
	}
	t->store.ops->release(t->store.store, &cur);
	return st;
}

/* Number of entries beginning with prefix: the count of one node. */
ArtStatus
art_count_prefix(ArtTrie *t, const uint8_t *prefix, size_t len,
				 uint64_t *count)
{
	ArtPageRef	cur;
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;
	ArtStatus	st;

	*count = 0;
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &cur);
	if (st != ART_OK)
		return st;
	for (;;)
	{
		ArtNode		node;

		st = couple(t, &cur, &slot);
		if (st != ART_OK)
			return st;
		art_node_decode(art_rec(cur.data, slot), &node);
		if (len - d <= node.plen)
		{
			if (memcmp(prefix + d, node.prefix, len - d) == 0)
				*count = node.count;
			break;
		}
		if (memcmp(prefix + d, node.prefix, node.plen) != 0)
			break;
		d += node.plen;
		slot = art_node_find(&node, prefix[d]);
		if (slot == 0)
			break;
		d++;
	}
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
			art_free(t, lens);
			return st;
		}
		art_node_decode(art_rec(cur.data, slot), &node);
		if (node.count == 0)
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

/* A node the seek descended through, and the child byte it took. */
typedef struct SeekFrame
{
	int			pidx;
	uint16_t	slot;
	uint8_t		key;
	size_t		outlen;			/* path length before the child byte */
} SeekFrame;

typedef struct Seek
{
	ArtTrie    *t;
	ArtPinStack ps;
	uint16_t	slot;			/* current node, in the top page */
	ArtBuf	   *out;
} Seek;

/* Make the current slot a node: follow a stub, pinning its page. */
static ArtStatus
seek_resolve(Seek *s, ArtNode *node)
{
	uint8_t    *rec = art_rec(s->ps.refs[s->ps.n - 1].data, s->slot);
	ArtStatus	st;

	if (art_is_stub(rec))
	{
		ArtPageNo	pg;

		art_stub_target(rec, &pg, &s->slot);
		st = art_pin_push(s->t, &s->ps, pg, ART_LOCK_SHARE);
		if (st != ART_OK)
			return st;
		rec = art_rec(s->ps.refs[s->ps.n - 1].data, s->slot);
	}
	art_node_decode(rec, node);
	return ART_OK;
}

/* Smallest (forward) or largest entry below the current slot. */
static ArtStatus
seek_extreme(Seek *s, ArtDirection dir, bool *found)
{
	ArtStatus	st;

	for (;;)
	{
		ArtNode		node;
		uint8_t		k;

		st = seek_resolve(s, &node);
		if (st == ART_OK)
			st = art_buf_append(s->t, s->out, node.prefix, node.plen);
		if (st != ART_OK)
			return st;
		if (dir == ART_FORWARD && node.terminal)
			break;
		if (node.n == 0)
		{
			*found = node.terminal;
			return ART_OK;
		}
		if (dir == ART_FORWARD)
			art_node_next(&node, -1, &k, &s->slot);
		else
			art_node_prev(&node, 256, &k, &s->slot);
		st = art_buf_append(s->t, s->out, &k, 1);
		if (st != ART_OK)
			return st;
	}
	*found = true;
	return ART_OK;
}

/*
 * Ordered seek.  Forward: the first entry >= key (> key unless inclusive).
 * Backward: the last entry <= key (< key unless inclusive); with upper_inf,
 * key stands for key followed by infinitely many 0xFF bytes (the last
 * entry beginning with key or before it).  key NULL: the first or last
 * entry.  The entry found goes to out.
 */
ArtStatus
art_seek(ArtTrie *t, const uint8_t *key, size_t len, bool inclusive,
		 bool upper_inf, ArtDirection dir, ArtBuf *out, bool *found)
{
	Seek		s;
	SeekFrame  *frames = NULL;
	int			nframes = 0;
	int			cap = 0;
	ArtStatus	st;
	size_t		d = 0;
	bool		fwd = dir == ART_FORWARD;

	memset(&s, 0, sizeof(s));
	s.t = t;
	s.out = out;
	s.slot = ART_ROOT_SLOT;
	out->len = 0;
	*found = false;
	st = art_buf_reserve(t, out, 1);
	if (st != ART_OK)
		return st;
	st = art_pin_push(t, &s.ps, t->root, ART_LOCK_SHARE);
	if (st != ART_OK)
		goto done;
	if (key == NULL)
	{
		st = seek_extreme(&s, dir, found);
		goto done;
	}
	for (;;)
	{
		ArtNode		node;
		size_t		m = 0;
		uint8_t		k;
		uint16_t	child;

		st = seek_resolve(&s, &node);
		if (st != ART_OK)
			goto done;
		while (m < node.plen && d + m < len && key[d + m] == node.prefix[m])
			m++;
		if (m < node.plen)
		{
			bool		above;	/* the whole subtree sorts after key */

			above = d + m == len ? !upper_inf : key[d + m] < node.prefix[m];
			if (above == fwd)
			{
				st = seek_extreme(&s, dir, found);
				goto done;
			}
			break;
		}
		d += node.plen;
		st = art_buf_append(t, out, node.prefix, node.plen);
		if (st != ART_OK)
			goto done;
		if (d == len)
		{
			if (!fwd && upper_inf)
			{
				out->len -= node.plen;
				st = seek_extreme(&s, dir, found);
				goto done;
			}
			if (node.terminal && inclusive)
			{
				*found = true;
				goto done;
			}
			if (fwd && art_node_next(&node, -1, &k, &s.slot))
			{
				st = art_buf_append(t, out, &k, 1);
				if (st == ART_OK)
					st = seek_extreme(&s, dir, found);
				goto done;
			}
			break;
		}
		child = art_node_find(&node, key[d]);
		if (child)
		{
			st = art_grow(t, (void **) &frames, &cap, nframes + 1,
						  sizeof(SeekFrame));
			if (st != ART_OK)
				goto done;
			frames[nframes].pidx = s.ps.n - 1;
			frames[nframes].slot = s.slot;
			frames[nframes].key = key[d];
			frames[nframes].outlen = out->len;
			nframes++;
			st = art_buf_append(t, out, &key[d], 1);
			if (st != ART_OK)
				goto done;
			s.slot = child;
			d++;
			continue;
		}
		if (fwd ? art_node_next(&node, key[d], &k, &s.slot) :
			art_node_prev(&node, key[d], &k, &s.slot))
		{
			st = art_buf_append(t, out, &k, 1);
			if (st == ART_OK)
				st = seek_extreme(&s, dir, found);
			goto done;
		}
		if (!fwd && node.terminal)
		{
			*found = true;
			goto done;
		}
		break;
	}

	/* Back up to the nearest ancestor with a sibling in our direction. */
	while (nframes > 0)
	{
		SeekFrame  *f = &frames[--nframes];
		ArtNode		node;
		uint8_t		k;

		while (s.ps.n - 1 > f->pidx)
			art_pin_pop(t, &s.ps);
		out->len = f->outlen;
		art_node_decode(art_rec(s.ps.refs[f->pidx].data, f->slot), &node);
		if (fwd ? art_node_next(&node, f->key, &k, &s.slot) :
			art_node_prev(&node, f->key, &k, &s.slot))
		{
			st = art_buf_append(t, out, &k, 1);
			if (st == ART_OK)
				st = seek_extreme(&s, dir, found);
			goto done;
		}
		if (!fwd && node.terminal)
		{
			*found = true;
			goto done;
		}
	}

done:
	art_pin_release_all(t, &s.ps);
	art_free(t, frames);
	return st;
}
