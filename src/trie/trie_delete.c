/*-------------------------------------------------------------------------
 *
 * trie_delete.c
 *	  Deleting an entry, and truncating a trie.
 *
 * A delete descends from the root taking exclusive locks on every page of
 * its path and keeping them.  Once it has found the entry every page it
 * will touch is pinned, and the rest cannot fail: it removes the leaf (and
 * every node left with no entry below it), shrinks the parent node's kind,
 * merges a node left with one child and no entry into that child when both
 * sit in the same page, decrements the counts on the path, and frees pages
 * left empty.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* A node on the path, and the stub that led to it if any. */
typedef struct DelLevel
{
	int			pidx;			/* page of the node in the pin stack */
	uint16_t	slot;
	int			stub_pidx;		/* -1 if the parent's child slot is the node */
	uint16_t	stub_slot;
	uint8_t		key;			/* key byte under the parent */
	size_t		end;			/* key depth past the node's prefix */
} DelLevel;

/*
 * Merge a node with no entry and one child into that child, if the child
 * is in the same page and the joined prefix fits in one node.
 */
static void
try_merge(uint8_t *page, uint16_t slot)
{
	ArtNode		node;
	ArtNode		child;
	uint8_t		key;
	uint16_t	cslot;
	uint8_t    *crec;
	uint8_t		prefix[ART_MAX_PREFIX];
	uint8_t		tmp[ART_MAX_RECORD];
	size_t		plen;
	size_t		size;

	art_node_decode(art_rec(page, slot), &node);
	if (node.n != 1 || node.terminal)
		return;
	art_node_next(&node, -1, &key, &cslot);
	crec = art_rec(page, cslot);
	if (art_is_stub(crec))
		return;
	art_node_decode(crec, &child);
	plen = (size_t) node.plen + 1 + child.plen;
	if (plen > ART_MAX_PREFIX)
		return;
	memcpy(prefix, node.prefix, node.plen);
	prefix[node.plen] = key;
	memcpy(prefix + node.plen + 1, child.prefix, child.plen);
	if (child.kind == ART_NODE_LEAF)
		size = art_leaf_encode(prefix, plen, child.terminal, tmp);
	else
	{
		ArtNodeBuild b;

		art_build_from_node(&child, &b);
		b.prefix = prefix;
		b.plen = (uint32_t) plen;
		size = art_build_encode(&b, tmp);
	}
	art_rec_free(page, cslot);
	art_rec_replace(page, slot, tmp, size);
}

/* Decrement the count of an inner node in place. */
static void
decrement(uint8_t *page, uint16_t slot)
{
	ArtNode		node;

	art_node_decode(art_rec(page, slot), &node);
	if (node.kind != ART_NODE_LEAF)
		art_node_set_count(&node, node.count - 1);
}

/* Remove a node's record, and the stub that points at it. */
static void
remove_node(ArtPinStack *ps, const DelLevel *lv)
{
	art_rec_free(ps->refs[lv->pidx].data, lv->slot);
	if (lv->stub_pidx >= 0)
		art_rec_free(ps->refs[lv->stub_pidx].data, lv->stub_slot);
}

/*
 * Apply a delete whose path is pinned; cannot fail.  Returns how many
 * bytes of the entry the entries left share with it at most.
 */
static size_t
delete_found(ArtPinStack *ps, DelLevel *lv, int nlev)
{
	int			j = nlev - 1;
	uint8_t    *page = ps->refs[lv[j].pidx].data;
	ArtNode		node;
	int			i;
	size_t		shared = lv[j].end;

	art_node_decode(art_rec(page, lv[j].slot), &node);
	if (node.n > 0)
	{
		art_rec(page, lv[j].slot)[0] &= (uint8_t) ~ART_FLAG_TERMINAL;
		art_node_set_count(&node, node.count - 1);
		try_merge(page, lv[j].slot);
	}
	else if (j == 0)
	{
		uint8_t		tmp[4];
		size_t		size = art_leaf_encode((const uint8_t *) "", 0, false, tmp);

		/* the root held the only entry */
		art_rec_replace(page, lv[0].slot, tmp, size);
		shared = 0;
	}
	else
	{
		remove_node(ps, &lv[j]);
		for (j = j - 1;; j--)
		{
			ArtNodeBuild b;
			uint8_t		tmp[ART_MAX_RECORD];
			size_t		size;

			page = ps->refs[lv[j].pidx].data;
			art_node_decode(art_rec(page, lv[j].slot), &node);
			art_build_from_node(&node, &b);
			art_build_remove(&b, lv[j + 1].key);
			b.count--;
			if (b.n == 0 && !b.terminal && j > 0)
			{
				remove_node(ps, &lv[j]);
				continue;
			}
			/* the entries left below this node share its path */
			shared = lv[j].end;
			if (b.n == 0 && !b.terminal)
			{
				b.plen = 0;
				shared = 0;
			}
			size = art_build_encode(&b, tmp);
			art_rec_replace(page, lv[j].slot, tmp, size);
			try_merge(page, lv[j].slot);
			break;
		}
	}
	for (i = 0; i < j; i++)
		decrement(ps->refs[lv[i].pidx].data, lv[i].slot);
	return shared;
}

/*
 * Delete an entry, holding its whole path.  The counts on the path are
 * exact for this change only; other writers' inserts between their passes
 * may still be missing from them, which is why the structural steps look
 * at children and terminal flags, never at counts.
 */
static ArtStatus
delete_locked(ArtTrie *t, const uint8_t *key, size_t len)
{
	ArtPinStack ps = {0};
	DelLevel   *lv = NULL;
	int			nlev = 0;
	int			cap = 0;
	ArtStatus	st;
	size_t		d = 0;
	size_t		shared;

	st = art_pin_push(t, &ps, t->root, ART_LOCK_EXCLUSIVE);
	if (st != ART_OK)
		goto out;
	st = art_grow(t, (void **) &lv, &cap, 1, sizeof(DelLevel));
	if (st != ART_OK)
		goto out;
	lv[0].pidx = 0;
	lv[0].slot = ART_ROOT_SLOT;
	lv[0].stub_pidx = -1;
	lv[0].stub_slot = 0;
	lv[0].key = 0;
	nlev = 1;
	for (;;)
	{
		uint8_t    *page = ps.refs[lv[nlev - 1].pidx].data;
		ArtNode		node;
		uint16_t	child;
		DelLevel	next;

		art_node_decode(art_rec(page, lv[nlev - 1].slot), &node);
		if (len - d < node.plen || memcmp(key + d, node.prefix, node.plen) != 0)
		{
			st = ART_NOT_FOUND;
			goto out;
		}
		d += node.plen;
		lv[nlev - 1].end = d;
		if (d == len)
		{
			if (!node.terminal)
			{
				st = ART_NOT_FOUND;
				goto out;
			}
			break;
		}
		child = art_node_find(&node, key[d]);
		if (child == 0)
		{
			st = ART_NOT_FOUND;
			goto out;
		}
		next.key = key[d];
		next.stub_pidx = -1;
		next.stub_slot = 0;
		next.pidx = lv[nlev - 1].pidx;
		next.slot = child;
		if (art_is_stub(art_rec(page, child)))
		{
			ArtPageNo	pg;

			next.stub_pidx = next.pidx;
			next.stub_slot = child;
			art_stub_target(art_rec(page, child), &pg, &next.slot);
			st = art_pin_push(t, &ps, pg, ART_LOCK_EXCLUSIVE);
			if (st != ART_OK)
				goto out;
			next.pidx = ps.n - 1;
		}
		st = art_grow(t, (void **) &lv, &cap, nlev + 1, sizeof(DelLevel));
		if (st != ART_OK)
			goto out;
		lv[nlev++] = next;
		d++;
	}

	/* Everything is pinned: from here on nothing can fail. */
	shared = delete_found(&ps, lv, nlev);
	if (art_root_counts_groups(ps.refs[0].data) &&
		art_group_change(key, len, shared))
		t->store.ops->groups_add(t->store.store, -1);
	t->store.ops->version(t->store.store, true);
	while (ps.n > 0)
	{
		ArtPageRef *ref = &ps.refs[ps.n - 1];

		if (ps.n > 1 && art_page_nslots(ref->data) == 0)
		{
			t->store.ops->free(t->store.store, ref);
			ps.n--;
		}
		else
		{
			t->store.ops->mark_dirty(t->store.store, ref);
			art_pin_pop(t, &ps);
		}
	}

out:
	art_pin_release_all(t, &ps);
	art_free(t, lv);
	return st;
}

/*
 * Delete an entry; ART_NOT_FOUND if it is not there.  Deletes come from
 * VACUUM, one process per table, so unlike inserts they keep the simple
 * protocol: exclusive locks on the whole path, held to the end, inside
 * the write section beside concurrent inserts.
 */
ArtStatus
art_delete(ArtTrie *t, const uint8_t *key, size_t len)
{
	ArtStatus	st;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_NOT_FOUND;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	st = delete_locked(t, key, len);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/* A set of page numbers (open addressing), for truncate. */
typedef struct PageSet
{
	ArtPageNo  *slots;
	int			cap;
	int			n;
	ArtPageNo  *list;			/* members in insertion order */
	int			listcap;
} PageSet;

/* Add a page to the set; *added tells whether it was new. */
static ArtStatus
pageset_add(ArtTrie *t, PageSet *set, ArtPageNo pg, bool *added)
{
	uint32_t	h;

	*added = false;
	if ((set->n + 1) * 2 > set->cap)
	{
		PageSet		bigger = {0};
		int			i;

		bigger.cap = set->cap ? set->cap * 2 : 64;
		bigger.slots = art_alloc(t, sizeof(ArtPageNo) * bigger.cap);
		if (bigger.slots == NULL)
			return ART_NO_MEMORY;
		for (i = 0; i < bigger.cap; i++)
			bigger.slots[i] = ART_INVALID_PAGENO;
		bigger.list = set->list;
		bigger.listcap = set->listcap;
		for (i = 0; i < set->n; i++)
		{
			h = (set->list[i] * 2654435761u) & (uint32_t) (bigger.cap - 1);
			while (bigger.slots[h] != ART_INVALID_PAGENO)
				h = (h + 1) & (uint32_t) (bigger.cap - 1);
			bigger.slots[h] = set->list[i];
		}
		bigger.n = set->n;
		art_free(t, set->slots);
		*set = bigger;
	}
	h = (pg * 2654435761u) & (uint32_t) (set->cap - 1);
	while (set->slots[h] != ART_INVALID_PAGENO)
	{
		if (set->slots[h] == pg)
			return ART_OK;
		h = (h + 1) & (uint32_t) (set->cap - 1);
	}
	if (art_grow(t, (void **) &set->list, &set->listcap, set->n + 1,
				 sizeof(ArtPageNo)) != ART_OK)
		return ART_NO_MEMORY;
	set->slots[h] = pg;
	set->list[set->n++] = pg;
	*added = true;
	return ART_OK;
}

/* Add the pages the stubs of a page point to. */
static ArtStatus
collect_children(ArtTrie *t, const uint8_t *page, PageSet *set)
{
	int			nslots = art_page_nslots(page);
	int			s;

	for (s = 1; s <= nslots; s++)
	{
		const uint8_t *rec;
		ArtPageNo	pg;
		uint16_t	sl;
		bool		added;

		if (art_slot_off(page, s) == 0)
			continue;
		rec = page + art_slot_off(page, s);
		if (!art_is_stub(rec))
			continue;
		art_stub_target(rec, &pg, &sl);
		if (pageset_add(t, set, pg, &added) != ART_OK)
			return ART_NO_MEMORY;
	}
	return ART_OK;
}

/*
 * Free every page but the root page and leave the trie empty.  The root
 * stays locked exclusive throughout.  First every page is found (a page
 * may have several parent pages), changing nothing; then the root is
 * emptied and the pages freed, so a failure part way through the second
 * pass leaves an empty, valid trie (and unreachable pages).
 */
ArtStatus
art_truncate(ArtTrie *t)
{
	ArtPageRef	root;
	PageSet		set = {0};
	ArtStatus	st;
	int			i;

	t->store.ops->write_begin(t->store.store, ART_LOCK_EXCLUSIVE);
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_EXCLUSIVE, &root);
	if (st != ART_OK)
	{
		t->store.ops->write_end(t->store.store, ART_LOCK_EXCLUSIVE);
		return st;
	}
	st = collect_children(t, root.data, &set);
	for (i = 0; st == ART_OK && i < set.n; i++)
	{
		ArtPageRef	ref;

		st = t->store.ops->pin(t->store.store, set.list[i], ART_LOCK_SHARE,
							   &ref);
		if (st != ART_OK)
			break;
		st = collect_children(t, ref.data, &set);
		t->store.ops->release(t->store.store, &ref);
	}
	if (st != ART_OK)
		goto out;
	art_root_reset(root.data);
	if (art_root_counts_groups(root.data))
		t->store.ops->groups_add(t->store.store,
								 -(int64_t) t->store.ops->groups(t->store.store));
	t->store.ops->mark_dirty(t->store.store, &root);
	t->store.ops->version(t->store.store, true);
	for (i = 0; i < set.n; i++)
	{
		ArtPageRef	ref;

		st = t->store.ops->pin(t->store.store, set.list[i],
							   ART_LOCK_EXCLUSIVE, &ref);
		if (st != ART_OK)
			goto out;
		t->store.ops->free(t->store.store, &ref);
	}
out:
	t->store.ops->release(t->store.store, &root);
	t->store.ops->write_end(t->store.store, ART_LOCK_EXCLUSIVE);
	art_free(t, set.slots);
	art_free(t, set.list);
	return st;
}
