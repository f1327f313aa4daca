/*-------------------------------------------------------------------------
 *
 * trie_delete.c
 *	  Deleting an entry, and truncating a trie.
 *
 * A delete descends from the root taking exclusive locks on every page of
 * its path below the root page and keeping them, in the split section's
 * share mode beside concurrent inserts.  The root page, which every reader
 * and writer crosses, is locked share: its nodes keep no counts (see
 * art_root_count), so a delete changes it only when the deepest node that
 * keeps an entry lies there, and such a delete is found again with the
 * root page exclusive.  Once it has found the entry every page it will
 * touch is pinned, and the rest cannot fail: it removes the leaf (and
 * every node left with no entry below it), shrinks the parent node's kind,
 * merges a node left with one child and no entry into that child when both
 * sit in the same page, decrements the counts on the path below the root
 * page, and frees pages left empty.  A path longer than
 * ART_MAX_LOCKED_PAGES pages is found again holding the split section
 * exclusive, as the trie's only writer, with lock coupling, and changed
 * one page at a time (delete_entry).  A series of deletes in entry order
 * (art_delete_sorted, and a finger's through art_delete_keep) keeps the
 * path of one delete locked for the next; a finger's, held exclusive,
 * also resumes its descent at the deepest node of that path, down to the
 * one the last delete changed, that its entry goes through, instead of
 * decoding the nodes above it again.  art_delete_sorted, which runs
 * beside readers (VACUUM), holds share the pages above the one a delete
 * changes, and changes their counts after, a page at a time, each locked
 * exclusive only if that need not wait, else as an insert's second pass
 * does (count_above).
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* A node on the path, and the stub that led to it if any. */
typedef struct DelLevel
{
	int			pidx;			/* page of the node in the pin stack */
	ArtChild	node;			/* the node in that page */
	int			stub_pidx;		/* -1 if the parent's child is the node */
	ArtChild	stub;
	uint8_t		key;			/* key byte under the parent */
	size_t		end;			/* key depth past the node's prefix */
	int			n;				/* the node's children */
	bool		terminal;
} DelLevel;

/* A delete's path, and the deepest node on it that keeps an entry. */
typedef struct DelPath
{
	ArtPinStack ps;
	DelLevel   *lv;
	int			nlev;
	int			cap;
	int			brk;			/* that node's level */
	size_t		shared;			/* bytes the entries left share with key */
	bool		counted;		/* the root page counts groups */
	bool		share;			/* pages above the break page held share */
	uint64_t	excl;			/* held with hold: bit k, page k exclusive */
	int			keep;			/* levels of lv a kept path resumes at */
	ArtBuf		last;			/* ... and the entry that path led to */
} DelPath;

/*
 * Merge a node with no entry and one child into that child, if the child
 * is in the same page and the joined prefix fits in one node.
 */
static void
try_merge(uint8_t *page, ArtChild at)
{
	ArtNode		node;
	ArtNode		child;
	uint8_t		key;
	ArtChild	c;
	uint8_t    *crec;
	uint8_t		prefix[ART_MAX_PREFIX];
	uint8_t		tmp[ART_MAX_RECORD];
	size_t		plen;
	size_t		size;

	art_node_decode(art_child_rec(page, at), &node);
	if (node.n != 1 || node.terminal)
		return;
	art_node_next(&node, -1, &key, &c);
	crec = art_child_rec(page, c);
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
	art_rec_free(page, art_child_slot(page, c));
	art_rec_replace(page, art_child_slot(page, at), tmp, size);
}

/* Decrement the count of an inner node in place. */
static void
decrement(uint8_t *page, ArtChild at)
{
	ArtNode		node;

	art_node_decode(art_child_rec(page, at), &node);
	if (node.kind != ART_NODE_LEAF)
		art_node_set_count(&node, node.count - 1);
}

/*
 * Find key's path from the root with locks in mode, the root page's in
 * top: each page pinned in dp->ps, each node in dp->lv.  With hold, every
 * page stays locked, and a path that goes on below ART_MAX_LOCKED_PAGES
 * pages stops with *deep set; without, a page is unlocked (still pinned)
 * once the next one is locked, and the last one at the end.  With hold,
 * dp->ps may hold the pages of a path already, locked as asked
 * (art_delete_sorted's last delete): the path goes on through those its
 * stubs lead to, and at the first stub that leads elsewhere lets go of
 * the held pages below it, so that pages are still locked from the root
 * down; held pages below the path's last page stay held.  With hold,
 * dp->excl tells which held pages are exclusive; with dp->share, a page
 * held exclusive that the path goes on below is held share instead, and
 * the path found again from the root (the page was unlocked meanwhile).
 * With dp->keep levels kept from the last delete (held exclusive, see
 * delete_next), the path resumes at the deepest of them that key goes
 * through, as its entry shares with the last one the bytes down to it.
 */
static ArtStatus
find_path(ArtTrie *t, const uint8_t *key, size_t len, ArtLockMode top,
		  ArtLockMode mode, bool hold, DelPath *dp, bool *deep)
{
	ArtPinStack *ps = &dp->ps;
	DelLevel   *cur;
	ArtStatus	st;
	size_t		d;
	int			from = 0;

	*deep = false;
	if (hold && dp->keep > 0 && ps->n > 0)
	{
		size_t		shared = 0;
		size_t		most = len < dp->last.len ? len : dp->last.len;

		while (shared < most && key[shared] == dp->last.data[shared])
			shared++;
		from = dp->keep - 1;
		while (from > 0 && dp->lv[from - 1].end >= shared)
			from--;
	}
	dp->keep = 0;
	if (ps->n == 0)
	{
		st = art_pin_push(t, ps, t->root, top);
		if (st != ART_OK)
			return st;
		dp->excl = top == ART_LOCK_EXCLUSIVE ? 1 : 0;
	}
	st = art_grow(t, (void **) &dp->lv, &dp->cap, 1, sizeof(DelLevel));
	if (st != ART_OK)
		return st;
	dp->counted = art_root_counts_groups(ps->refs[0].data);
again:
	if (from > 0)
	{
		/* levels 0 .. from - 1 as they were, and level from's node */
		d = dp->lv[from - 1].end + 1;
		dp->nlev = from + 1;
	}
	else
	{
		d = 0;
		memset(&dp->lv[0], 0, sizeof(DelLevel));
		dp->lv[0].node = art_child_of_slot(ps->refs[0].data, ART_ROOT_SLOT);
		dp->lv[0].stub_pidx = -1;
		dp->nlev = 1;
	}
	for (;;)
	{
		uint8_t    *page;
		ArtNode		node;
		ArtChild	child;
		DelLevel	next = {0};

		cur = &dp->lv[dp->nlev - 1];
		page = ps->refs[cur->pidx].data;
		art_node_decode_walk(art_child_rec(page, cur->node), &node);
		if (len - d < node.plen || memcmp(key + d, node.prefix, node.plen) != 0)
			return ART_NOT_FOUND;
		d += node.plen;
		cur->end = d;
		cur->n = node.n;
		cur->terminal = node.terminal;
		if (d == len)
			break;
		child = art_node_find(&node, key[d]);
		if (art_child_none(child))
			return ART_NOT_FOUND;
		next.key = key[d];
		next.stub_pidx = -1;
		next.pidx = cur->pidx;
		next.node = child;
		if (art_is_stub(art_child_rec(page, child)))
		{
			ArtPageNo	pg;
			uint16_t	slot;

			next.stub_pidx = next.pidx;
			next.stub = child;
			art_stub_target(art_child_rec(page, child), &pg, &slot);
			if (ps->n > next.pidx + 1 && ps->refs[next.pidx + 1].pageno == pg)
				next.pidx++;
			else
			{
				while (ps->n > next.pidx + 1)
					art_pin_pop(t, ps);
				if (hold && ps->n >= ART_MAX_LOCKED_PAGES)
				{
					*deep = true;
					return ART_OK;
				}
				if (dp->share && next.pidx > 0 &&
					(dp->excl & (UINT64_C(1) << next.pidx)))
				{
					ArtPageRef *ref = &ps->refs[next.pidx];

					t->store.ops->unlock(t->store.store, ref);
					t->store.ops->relock(t->store.store, ref, ART_LOCK_SHARE);
					dp->excl &= ~(UINT64_C(1) << next.pidx);
					from = 0;
					goto again;
				}
				st = art_pin_push(t, ps, pg, mode);
				if (st != ART_OK)
					return st;
				if (hold && mode == ART_LOCK_EXCLUSIVE)
					dp->excl |= UINT64_C(1) << (ps->n - 1);
				else if (hold)
					dp->excl &= ~(UINT64_C(1) << (ps->n - 1));
				if (!hold)
					t->store.ops->unlock(t->store.store, &ps->refs[ps->n - 2]);
				next.pidx = ps->n - 1;
			}
			next.node = art_child_of_slot(ps->refs[next.pidx].data, slot);
		}
		st = art_grow(t, (void **) &dp->lv, &dp->cap, dp->nlev + 1,
					  sizeof(DelLevel));
		if (st != ART_OK)
			return st;
		dp->lv[dp->nlev++] = next;
		d++;
	}
	if (!cur->terminal)
		return ART_NOT_FOUND;
	if (!hold)
		t->store.ops->unlock(t->store.store, &ps->refs[ps->n - 1]);
	return ART_OK;
}

/*
 * Find the deepest node on the path that keeps an entry once key's is
 * gone (the root, or one with another child or an entry of its own):
 * every node below it holds key's entry only and goes.  Also how many
 * bytes of key the entries left share with it at most.
 */
static void
find_break(DelPath *dp)
{
	const DelLevel *lv = dp->lv;
	int			j = dp->nlev - 1;

	if (lv[j].n > 0 || j == 0)
	{
		/* the node keeps its children: only its own entry goes */
		dp->brk = j;
		dp->shared = lv[j].n > 0 ? lv[j].end : 0;
		return;
	}
	for (j--; j > 0 && lv[j].n == 1 && !lv[j].terminal; j--)
		;
	dp->brk = j;
	/* the root left with nothing below it loses its prefix */
	dp->shared = lv[j].n == 1 && !lv[j].terminal ? 0 : lv[j].end;
}

/* Change the node at the break level of a delete. */
static void
change_break(uint8_t *page, const DelPath *dp)
{
	const DelLevel *lv = &dp->lv[dp->brk];
	ArtNode		node;
	ArtNodeBuild b;
	uint8_t		tmp[ART_MAX_RECORD];
	size_t		size;

	art_node_decode(art_child_rec(page, lv->node), &node);
	if (dp->brk == dp->nlev - 1)
	{
		if (node.n > 0)
		{
			art_child_rec(page, lv->node)[0] &= (uint8_t) ~ART_FLAG_TERMINAL;
			art_node_set_count(&node, node.count - 1);
			try_merge(page, lv->node);
		}
		else
		{
			/* the root held the only entry */
			size = art_leaf_encode((const uint8_t *) "", 0, false, tmp);
			art_rec_replace(page, art_child_slot(page, lv->node), tmp, size);
		}
		return;
	}
	art_build_from_node(&node, &b);
	art_build_remove(&b, lv[1].key);
	b.count--;
	if (b.n == 0 && !b.terminal)
		b.plen = 0;
	size = art_build_encode(&b, tmp);
	art_rec_replace(page, art_child_slot(page, lv->node), tmp, size);
	try_merge(page, lv->node);
}

/*
 * Make the delete's change to page k of its path, held exclusive: free the
 * records of the nodes below the break level and the stubs that lead to
 * them, change the node at the break level, decrement the counts of the
 * nodes above it below the root page (page 0, whose node counts are not
 * kept).  Cannot fail.
 */
static void
change_page(DelPath *dp, int k)
{
	uint8_t    *page = dp->ps.refs[k].data;
	const DelLevel *lv = dp->lv;
	int			j;

	for (j = dp->brk + 1; j < dp->nlev; j++)
	{
		if (lv[j].pidx == k)
			art_rec_free(page, art_child_slot(page, lv[j].node));
		if (lv[j].stub_pidx == k)
			art_rec_free(page, art_child_slot(page, lv[j].stub));
	}
	if (lv[dp->brk].pidx == k)
		change_break(page, dp);
	for (j = 0; j < dp->brk && k > 0; j++)
		if (lv[j].pidx == k)
			decrement(page, lv[j].node);
}

/*
 * Make a delete's change, page by page, to a path that find_path left
 * pinned; relock: its pages are unlocked, and each is locked exclusive
 * only while it changes.  First the page of the break level, which cuts
 * what goes off the trie, then the pages below it, whose records go (and
 * the pages left empty), then the counts above, up to the page below the
 * root page (unless dp->share: count_above does those): the root page
 * changes only when the break level lies in it.  Cannot fail.
 */
static void
change_path(ArtTrie *t, DelPath *dp, bool relock)
{
	ArtPinStack *ps = &dp->ps;
	int			first = dp->lv[dp->brk].pidx;
	int			k;

	for (k = first; k < ps->n; k++)
	{
		ArtPageRef *ref = &ps->refs[k];

		if (relock)
			t->store.ops->relock(t->store.store, ref, ART_LOCK_EXCLUSIVE);
		change_page(dp, k);
		t->store.ops->version(t->store.store, true);
		if (k > 0 && art_page_nslots(ref->data) == 0)
		{
			t->store.ops->free(t->store.store, ref);
			ref->data = NULL;
			continue;
		}
		t->store.ops->mark_dirty(t->store.store, ref);
		if (relock)
			t->store.ops->unlock(t->store.store, ref);
	}
	for (k = first - 1; k > 0 && !dp->share; k--)
	{
		if (relock)
			t->store.ops->relock(t->store.store, &ps->refs[k],
								 ART_LOCK_EXCLUSIVE);
		change_page(dp, k);
		t->store.ops->mark_dirty(t->store.store, &ps->refs[k]);
		if (relock)
			t->store.ops->unlock(t->store.store, &ps->refs[k]);
	}
}

/*
 * With dp->share, after find_break: take the pages from the break level's
 * down exclusive, those held share unlocked and all locked again
 * exclusive from the top (no page is waited for while one below it is
 * held).  True if the path must be found again: a page held share
 * changed meanwhile, or one held exclusive was let go (its hold's end
 * counts in its changes).
 */
static bool
take_exclusive(ArtTrie *t, DelPath *dp)
{
	ArtPinStack *ps = &dp->ps;
	int			first = dp->lv[dp->brk].pidx;
	uint64_t	want = ~((UINT64_C(1) << first) - 1);
	uint32_t	seen[ART_MAX_LOCKED_PAGES];
	bool		again = false;
	int			k;

	if (ps->n < 64)
		want &= (UINT64_C(1) << ps->n) - 1;
	if ((dp->excl & want) == want)
		return false;
	for (k = ps->n - 1; k >= first; k--)
	{
		if (dp->excl & (UINT64_C(1) << k))
			again = true;
		else
			seen[k] = t->store.ops->changes(t->store.store, &ps->refs[k]);
		t->store.ops->unlock(t->store.store, &ps->refs[k]);
	}
	for (k = first; k < ps->n; k++)
	{
		t->store.ops->relock(t->store.store, &ps->refs[k], ART_LOCK_EXCLUSIVE);
		if (!again &&
			t->store.ops->changes(t->store.store, &ps->refs[k]) != seen[k])
			again = true;
	}
	dp->excl |= want;
	return again;
}

/*
 * Subtract key's entry from the count of each node of its path in page k
 * (held exclusive), found by key from the node where the path enters the
 * page up to the stub that leaves it (art_node_count_path): another
 * writer changed the page since the path was found (a prefix split above
 * a node on it, a child added to one).
 */
static ArtStatus
count_by_key(DelPath *dp, int k, const uint8_t *key, size_t len)
{
	int			j = 1;
	size_t		d;
	ArtPageNo	pg;
	uint16_t	slot;

	while (dp->lv[j].pidx != k)
		j++;
	d = dp->lv[j - 1].end + 1;
	if (art_node_count_path(dp->ps.refs[k].data, dp->lv[j].node, key, len,
							&d, len, -1, &pg, &slot) != ART_OK)
		return ART_CORRUPT;
	return ART_OK;
}

/*
 * Lower the counts of the path's nodes in page k, held exclusive, in
 * place (mark_counts): at the nodes the path noted if the page's changes
 * are still seen, those read before it was unlocked, else found by key
 * (count_by_key).
 */
static ArtStatus
count_page(ArtTrie *t, DelPath *dp, int k, uint32_t seen, const uint8_t *key,
		   size_t len)
{
	ArtPageRef *ref = &dp->ps.refs[k];
	ArtStatus	st = ART_OK;

	if (t->store.ops->changes(t->store.store, ref) == seen)
		change_page(dp, k);
	else
		st = count_by_key(dp, k, key, len);
	t->store.ops->mark_counts(t->store.store, ref);
	return st;
}

/*
 * count_above's way when a lock it tried on page stop would have waited
 * (stop unlocked, its counts changed if done): as an insert's second
 * pass, with nothing below the page it waits for locked.  The break
 * level's page is unlocked, and the pages between it and stop (held
 * share) from the bottom up, each marked passing so that none splits
 * meanwhile; stop needs no mark, as the page above it stays held.  Then
 * each, from stop down, is locked exclusive, its counts changed,
 * unlocked and locked share again, and the break level's page is locked
 * exclusive again.
 */
static ArtStatus
count_waiting(ArtTrie *t, DelPath *dp, int stop, bool done, uint32_t *seen,
			  const uint8_t *key, size_t len)
{
	const ArtPageStoreOps *ops = t->store.ops;
	ArtPinStack *ps = &dp->ps;
	int			first = dp->lv[dp->brk].pidx;
	ArtStatus	st = ART_OK;
	int			k;

	ops->unlock(t->store.store, &ps->refs[first]);
	/* a path held is ART_MAX_LOCKED_PAGES pages at most (said for gcc) */
	for (k = first - 1; k > stop && k < ART_MAX_LOCKED_PAGES; k--)
	{
		seen[k] = ops->changes(t->store.store, &ps->refs[k]);
		ops->passing(t->store.store, &ps->refs[k], true);
		ops->unlock(t->store.store, &ps->refs[k]);
	}
	for (k = stop; k < first; k++)
	{
		ArtPageRef *ref = &ps->refs[k];

		if (k > stop || !done)
		{
			ArtStatus	cst;

			ops->relock(t->store.store, ref, ART_LOCK_EXCLUSIVE);
			cst = count_page(t, dp, k, seen[k], key, len);
			if (st == ART_OK)
				st = cst;
			ops->unlock(t->store.store, ref);
		}
		ops->relock(t->store.store, ref, ART_LOCK_SHARE);
		if (k > stop)
			ops->passing(t->store.store, ref, false);
	}
	ops->relock(t->store.store, &ps->refs[first], ART_LOCK_EXCLUSIVE);
	return st;
}

/*
 * With dp->share, once the pages from the break level's down changed: the
 * counts of the path's nodes in the pages between the root page and the
 * break level's, a page at a time from the top down, as an insert's
 * second pass adds to them, while the break level's page stays locked
 * exclusive and the others share.  Each page is unlocked and locked again
 * exclusive, its counts changed (in place, mark_counts), unlocked and
 * locked share again, each lock taken only if it need not wait
 * (try_relock): one who holds a page above the break level's may wait for
 * that page or one below it, which this delete holds.  At the first lock
 * that would wait, count_waiting lets go of the pages below and goes on
 * as an insert's second pass.  No split moves the path meanwhile: the
 * page above the one changed stays held (a split of a page holds the page
 * above it exclusive, one of the root page's subtrees the root page).  In
 * a page whose changes are as read before, the counts are those of the
 * nodes the path noted; in any other they are found by key
 * (count_by_key).  A reader may see a count above one too high meanwhile,
 * as the entry is gone already.  Cannot fail, but for a page that lies
 * (ART_CORRUPT).
 */
static ArtStatus
count_above(ArtTrie *t, DelPath *dp, const uint8_t *key, size_t len)
{
	const ArtPageStoreOps *ops = t->store.ops;
	ArtPinStack *ps = &dp->ps;
	int			first = dp->lv[dp->brk].pidx;
	uint32_t	seen[ART_MAX_LOCKED_PAGES];
	ArtStatus	st = ART_OK;
	bool		done = false;
	int			k;

	for (k = 1; k < first; k++)
	{
		ArtPageRef *ref = &ps->refs[k];
		ArtStatus	cst;

		done = false;
		seen[k] = ops->changes(t->store.store, ref);
		ops->unlock(t->store.store, ref);
		if (!ops->try_relock(t->store.store, ref, ART_LOCK_EXCLUSIVE))
			break;
		cst = count_page(t, dp, k, seen[k], key, len);
		if (st == ART_OK)
			st = cst;
		ops->unlock(t->store.store, ref);
		done = true;
		if (!ops->try_relock(t->store.store, ref, ART_LOCK_SHARE))
			break;
	}
	if (k < first)
	{
		ArtStatus	wst = count_waiting(t, dp, k, done, seen, key, len);

		if (st == ART_OK)
			st = wst;
	}
	dp->excl &= ~((UINT64_C(1) << first) - 2);
	return st;
}

/*
 * Release the pages of a delete's path from the keep-th down that it did
 * not free.
 */
static void
drop_path(ArtTrie *t, DelPath *dp, int keep)
{
	ArtPinStack *ps = &dp->ps;

	while (ps->n > keep)
	{
		ps->n--;
		if (ps->refs[ps->n].data != NULL)
			t->store.ops->release(t->store.store, &ps->refs[ps->n]);
	}
}

/* Release the pages of a delete's path that it did not free, and its memory. */
static void
release_path(ArtTrie *t, DelPath *dp)
{
	drop_path(t, dp, 0);
	art_pin_release_all(t, &dp->ps);
	art_free(t, dp->lv);
	art_buf_free(t, &dp->last);
}

/*
 * Delete an entry, inside the trie's write section.  The counts on the
 * path are exact for this change only; other writers' inserts between
 * their passes may still be missing from them, which is why the
 * structural steps look at children and terminal flags, never at counts.
 *
 * A path of up to ART_MAX_LOCKED_PAGES pages is held from the root down to
 * the end of the change, beside concurrent inserts in the split section's
 * share mode: the root page share (root), the pages below it exclusive.
 * When the change reaches the root page (the break level lies there) and
 * root is share, the delete lets go of its path and goes again with the
 * root page exclusive.  A longer one (PostgreSQL lets a process
 * hold 200 LWLocks) is found again in the split section's exclusive
 * mode, which waits for every insert and keeps new ones out: the delete is
 * then the trie's only writer, so the path it found with lock coupling
 * stays as it was, and it changes one page at a time, kept pinned so that
 * locking them again cannot fail.  Readers may see the change half made
 * (a count above still one too high, as between an insert's passes), but
 * never what it frees: the page of the break level goes first.  *page
 * gets that page, where the entry's path ends once it is gone (the page
 * of the deepest node that keeps an entry, never freed).
 */
static ArtStatus
delete_entry(ArtTrie *t, const uint8_t *key, size_t len, ArtLockMode root,
			 ArtPageNo *page)
{
	DelPath		dp = {0};
	ArtLockMode split = ART_LOCK_SHARE;
	bool		deep;
	ArtStatus	st;

	t->store.ops->split_begin(t->store.store, split);
	st = find_path(t, key, len, root, ART_LOCK_EXCLUSIVE, true, &dp, &deep);
	if (st == ART_OK && !deep && root == ART_LOCK_SHARE)
	{
		find_break(&dp);
		if (dp.lv[dp.brk].pidx == 0)
		{
			drop_path(t, &dp, 0);
			st = find_path(t, key, len, ART_LOCK_EXCLUSIVE,
						   ART_LOCK_EXCLUSIVE, true, &dp, &deep);
		}
	}
	if (st == ART_OK && deep)
	{
		release_path(t, &dp);
		memset(&dp, 0, sizeof(dp));
		t->store.ops->split_end(t->store.store, split);
		split = ART_LOCK_EXCLUSIVE;
		t->store.ops->split_begin(t->store.store, split);
		st = find_path(t, key, len, ART_LOCK_SHARE, ART_LOCK_SHARE, false,
					   &dp, &deep);
	}
	if (st == ART_OK)
	{
		/* Everything is pinned: from here on nothing can fail. */
		find_break(&dp);
		*page = dp.ps.refs[dp.lv[dp.brk].pidx].pageno;
		change_path(t, &dp, split == ART_LOCK_EXCLUSIVE);
		if (dp.counted && art_group_change(key, len, dp.shared))
			t->store.ops->groups_add(t->store.store, -1);
	}
	release_path(t, &dp);
	t->store.ops->split_end(t->store.store, split);
	return st;
}

/*
 * Delete an entry; ART_NOT_FOUND if it is not there.  Deletes come from
 * VACUUM, one process per table, and from WAL redo.
 */
ArtStatus
art_delete(ArtTrie *t, const uint8_t *key, size_t len)
{
	ArtPageNo	page;

	return art_delete_page(t, key, len, &page);
}

/*
 * Delete an entry as art_delete does; with ART_OK, *page is the page
 * where its path now ends, the page art_merge would try after it.
 */
ArtStatus
art_delete_page(ArtTrie *t, const uint8_t *key, size_t len, ArtPageNo *page)
{
	ArtStatus	st;

	*page = ART_INVALID_PAGENO;
	if (len > ART_MAX_ENTRY_LEN)
		return ART_NOT_FOUND;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	st = delete_entry(t, key, len, ART_LOCK_SHARE, page);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/*
 * One delete of a series in increasing entry order, as art_delete_page's,
 * inside the trie's write section and its split section share, through dp,
 * which may hold the pages of the last delete's path (the root page share,
 * those below it exclusive, or with dp->share those above the break
 * level's page share): the path goes on through those it shares and
 * stays held for the next, down to the page of its break level (the next
 * entry's path leaves this one's there or above).  With dp->share, pages
 * are found share and those from the break level's down taken exclusive
 * (take_exclusive), and the counts above go in a step of their own
 * (count_above).  A delete that changes the root page, and a path longer
 * than ART_MAX_LOCKED_PAGES pages, go as art_delete's does, with nothing
 * held before or after.  *page: as art_delete_page's.
 */
static ArtStatus
delete_next(ArtTrie *t, DelPath *dp, const uint8_t *key, size_t len,
			ArtPageNo *page)
{
	ArtLockMode mode = dp->share ? ART_LOCK_SHARE : ART_LOCK_EXCLUSIVE;
	ArtStatus	st;
	bool		deep;

	do
	{
		st = find_path(t, key, len, ART_LOCK_SHARE, mode, true, dp, &deep);
		if (st != ART_OK || deep)
			break;
		find_break(dp);
		if (dp->lv[dp->brk].pidx == 0)
			break;
		/* pages held from the last path, below this one's end */
		drop_path(t, dp, dp->lv[dp->nlev - 1].pidx + 1);
	} while (dp->share && take_exclusive(t, dp));
	if (st == ART_OK && (deep || dp->lv[dp->brk].pidx == 0))
	{
		drop_path(t, dp, 0);
		t->store.ops->split_end(t->store.store, ART_LOCK_SHARE);
		st = delete_entry(t, key, len,
						  deep ? ART_LOCK_SHARE : ART_LOCK_EXCLUSIVE, page);
		t->store.ops->split_begin(t->store.store, ART_LOCK_SHARE);
	}
	else if (st == ART_OK)
	{
		*page = dp->ps.refs[dp->lv[dp->brk].pidx].pageno;
		change_path(t, dp, false);
		if (dp->counted && art_group_change(key, len, dp->shared))
			t->store.ops->groups_add(t->store.store, -1);
		/* the next entry's path leaves this one's at the break or above */
		drop_path(t, dp, dp->lv[dp->brk].pidx + 1);
		if (dp->share && dp->lv[dp->brk].pidx > 1)
			st = count_above(t, dp, key, len);
		else if (!dp->share &&
				 art_buf_reserve(t, &dp->last, len) == ART_OK)
		{
			/* held exclusive: the next descent resumes on this path */
			memcpy(dp->last.data, key, len);
			dp->last.len = len;
			dp->keep = dp->brk + 1;
		}
	}
	return st;
}

/*
 * Delete entries given in increasing order, each as art_delete_page does,
 * keeping the path of one delete locked for the next: entries in order
 * share most of their paths, and a delete goes on through the pages of
 * the last one's that its path shares without pinning and locking them
 * again.  The entries are a run's (trie.h's ArtRun; last is not read).  After
 * each delete that found its entry, done(arg, i, page) gets the page
 * art_delete_page would give, while the pages of the path down to it are
 * still locked: it must not use the trie, nor wait for anything another
 * user of the trie may hold (it logs the delete).  So the path's pages
 * stay locked for the n deletes: the root page and the pages above the
 * one a delete changes share (readers pass them; an insert that changes
 * one waits), that page and those below it exclusive.  Each delete finds
 * its path share, takes its pages from the break level's down exclusive,
 * changes them, and then the counts above, in pages it locks exclusive
 * one at a time, without a wait or with nothing below them locked
 * (count_above): readers wait there only for those few counts.  Callers
 * bound n.  Pages are still locked from the root down: at the first stub
 * that leads off the pages held, those below it are let go first.  A
 * delete that changes the root page, and a path longer than
 * ART_MAX_LOCKED_PAGES pages, go as art_delete's does, with nothing else
 * held (its callback after it).  Returns ART_OK, or the status of the
 * first delete that failed (neither ART_OK nor ART_NOT_FOUND), which ends
 * the run.
 */
ArtStatus
art_delete_sorted(ArtTrie *t, const ArtRun *run, ArtDeleteDone done,
				  void *arg)
{
	DelPath		dp = {0};
	ArtStatus	st = ART_OK;

	dp.share = true;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	t->store.ops->split_begin(t->store.store, ART_LOCK_SHARE);
	for (int i = 0; i < run->n && st == ART_OK; i++)
	{
		size_t		start = i > 0 ? run->ends[i - 1] : run->start;
		const uint8_t *key = run->data + start;
		size_t		len = run->ends[i] - start;
		ArtPageNo	page;

		if (len > ART_MAX_ENTRY_LEN)
			continue;
		st = delete_next(t, &dp, key, len, &page);
		if (st == ART_OK)
			done(arg, i, page);
		else if (st == ART_NOT_FOUND)
			st = ART_OK;
	}
	release_path(t, &dp);
	t->store.ops->split_end(t->store.store, ART_LOCK_SHARE);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/*
 * A delete path kept between calls (a finger's deletes, trie_finger.c):
 * while held, the trie's split section share and the pages of the last
 * delete's path, as art_delete_sorted keeps them between its deletes.
 */
struct ArtDelKeep
{
	DelPath		dp;
	bool		held;
};

/*
 * Delete an entry as art_delete does, inside the trie's write section,
 * keeping its path in *keep (allocated at the first call) for the next
 * call, as art_delete_sorted does: entries in increasing order share most
 * of their paths, and a delete goes on through the held pages of the last
 * one's, from the deepest node of it that its entry shares (find_path).
 * The pages stay locked until art_delete_keep_drop; a failure
 * (neither ART_OK nor ART_NOT_FOUND) lets them go.
 */
ArtStatus
art_delete_keep(ArtTrie *t, ArtDelKeep **keep, const uint8_t *key, size_t len)
{
	ArtDelKeep *k = *keep;
	ArtPageNo	page;
	ArtStatus	st;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_NOT_FOUND;
	if (k == NULL)
	{
		k = art_alloc(t, sizeof(ArtDelKeep));
		if (k == NULL)
			return ART_NO_MEMORY;
		memset(k, 0, sizeof(ArtDelKeep));
		*keep = k;
	}
	if (!k->held)
	{
		t->store.ops->split_begin(t->store.store, ART_LOCK_SHARE);
		k->held = true;
	}
	st = delete_next(t, &k->dp, key, len, &page);
	if (st != ART_OK && st != ART_NOT_FOUND)
		art_delete_keep_drop(t, k);
	return st;
}

/*
 * Let go of the path and the split section a kept delete path holds, if
 * any (keep may be NULL); its memory stays for the next delete.
 */
void
art_delete_keep_drop(ArtTrie *t, ArtDelKeep *keep)
{
	if (keep == NULL || !keep->held)
		return;
	drop_path(t, &keep->dp, 0);
	keep->dp.keep = 0;
	t->store.ops->split_end(t->store.store, ART_LOCK_SHARE);
	keep->held = false;
}

/* Let go of a kept delete path (keep may be NULL) and free it. */
void
art_delete_keep_free(ArtTrie *t, ArtDelKeep *keep)
{
	if (keep == NULL)
		return;
	art_delete_keep_drop(t, keep);
	release_path(t, &keep->dp);
	art_free(t, keep);
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
