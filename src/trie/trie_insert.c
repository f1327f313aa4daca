/*-------------------------------------------------------------------------
 *
 * trie_insert.c
 *	  Inserting an entry.
 *
 * An insert runs in two passes, inside the trie's write section (share
 * mode, so inserts run side by side).  The first descends from the root
 * with share-lock coupling, holding only the current page and the one
 * above it, and relocks exclusive the page where the change happens.  It
 * computes the bytes the change needs in that page.  If the page is too
 * full it splits the page (a self-contained restructuring that keeps the
 * trie's content; in a try that takes the page above exclusive too, since
 * a split may repoint stubs there, descending to it with share locks like
 * the first try) and starts over.  Otherwise it
 * first places any long new path in fresh pages, and only then changes
 * the page, counts of the page's own nodes on the path included, with no
 * fallible store call left; the room it needs counts what those counts
 * grow by (a short count may need a byte more, and a change that links a
 * new page below them makes them wide: trie_internal.h).  The second pass
 * adds one to the count of every node on the path between that page and
 * the root page (whose nodes keep no counts), taking exclusive one page
 * at a time from the first page below the root page down (the page above
 * let go first); those nodes lie above another page, so their counts are
 * 6 bytes and change in place.  Between the passes those counts are one short;
 * only verify, which keeps writers out, would notice, and structural
 * decisions never read counts.  The planning and change steps serve the
 * finger (trie_finger.c) too.
 *
 * The second pass cannot be undone, so it must not fail (as btree pins
 * every buffer before its critical section): the first pass's last try
 * keeps every page of its path between the root page and the changed page
 * pinned (unlocked) and marked passing until the second pass ends, so that
 * no page of that part of the path splits and the second pass finds its
 * nodes in exactly those pages; locking them again needs no lookup, no
 * read, no free frame and no eviction.  The second pass starts in the
 * first of them, at the slot and key depth where the first pass entered
 * it, so it does not touch the root page, which every insert crosses: the
 * root page is let go on the way down, and a split of it always holds the
 * split section exclusive.  A page that must be split is split by a try
 * that holds it (and the page above it) exclusive.  A page nobody passes,
 * such as the bottom page that inserts of repeated keys fill, splits
 * without waiting for anyone.  If some insert between its passes passes
 * it, the try marks the page (split_mark), lets go of everything else and
 * waits for those inserts alone, and the next try, still holding the mark,
 * splits it: an insert whose path would go on below a page others marked
 * starts over after the mark is gone instead, so the passers of a marked
 * page only finish.  Only the root page, which every insert crosses, is
 * split in a try that holds the split section exclusive, which waits for
 * every insert between its passes (each holds the section shared from its
 * try's start to its end).
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Why an insert's first pass asks to start over. */
typedef enum InsertRetry
{
	RETRY_NONE,
	RETRY_SPLIT,				/* it split a page */
	RETRY_EXCLUSIVE,			/* a page must be split: lock the page above */
	RETRY_PASSERS,				/* and others pass it: wait for them */
	RETRY_SECTION,				/* the root page: the split section too */
	RETRY_MARKED				/* the path passes a page others mark */
} InsertRetry;

/* Length of the common prefix of a and b. */
size_t
art_common_len(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		n = alen < blen ? alen : blen;
	size_t		i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Encode node with its first skip prefix bytes dropped. */
static size_t
encode_tail(const ArtNode *node, size_t skip, uint8_t *out)
{
	ArtNodeBuild b;

	if (node->kind == ART_NODE_LEAF)
		return art_leaf_encode(node->prefix + skip, node->plen - skip,
							   node->terminal, out);
	art_build_from_node(node, &b);
	b.prefix += skip;
	b.plen -= skip;
	return art_build_encode(&b, out);
}

/*
 * Plan the insert of key at node, which begins at key depth p->d (at_root:
 * the trie's root node): ART_OP_DESCEND with *child set, or the change to make
 * here, or ART_OP_EXISTS.
 */
ArtInsertOp
art_plan_node(const ArtNode *node, bool at_root, const uint8_t *key,
			  size_t len, ArtInsertPlan *p, ArtChild *child)
{
	size_t		d = p->d;

	p->has_leaf = false;
	if (at_root && node->kind == ART_NODE_LEAF && !node->terminal &&
		len <= ART_MAX_PREFIX)
		return p->op = ART_OP_FILL_ROOT;
	p->m = art_common_len(key + d, len - d, node->prefix, node->plen);
	if (p->m < node->plen)
	{
		if (d + p->m < len)
		{
			p->has_leaf = true;
			p->leafoff = d + p->m + 1;
		}
		return p->op = ART_OP_SPLIT_PREFIX;
	}
	d += node->plen;
	p->d = d;
	if (d == len)
		return p->op = node->terminal ? ART_OP_EXISTS : ART_OP_SET_TERMINAL;
	*child = art_node_find(node, key[d]);
	if (art_child_none(*child))
	{
		p->has_leaf = true;
		p->leafoff = d + 1;
		return p->op = ART_OP_ADD_CHILD;
	}
	p->d = d + 1;
	return p->op = ART_OP_DESCEND;
}

/*
 * How many free bytes a planned change needs in node's page: the new
 * records (allocated while the old node is still there), plus what the
 * node's own record grows by when it is rewritten (its count one more,
 * and wide if the change links a new page below it).  The growth of the
 * counts of its ancestors in the page is art_path_growth's.
 */
size_t
art_change_need(const ArtNode *node, size_t len, ArtInsertPlan *p)
{
	uint8_t		tmp[ART_MAX_RECORD];
	size_t		need = 0;
	size_t		size;
	bool		wide;

	p->inline_leaf = !p->has_leaf || len - p->leafoff <= ART_MAX_PREFIX;
	wide = !p->inline_leaf || node->cw == ART_COUNT_WIDE;
	if (p->has_leaf)
		need += (p->inline_leaf ? art_leaf_size(len - p->leafoff) :
				 ART_STUB_SIZE) + 2;
	if (p->op == ART_OP_FILL_ROOT)
		size = art_leaf_size(len);
	else if (p->op == ART_OP_ADD_CHILD)
		size = art_node_size_for(node->plen, node->n + 1,
								 art_count_width(node->count + 1, wide));
	else if (p->op == ART_OP_SPLIT_PREFIX)
	{
		/* the shortened old node, then the new one (at most two children) */
		need += encode_tail(node, p->m + 1, tmp) + 2;
		size = 3 + art_count_width(node->count + 1, wide) + 1 + p->m + 6;
	}
	else
		size = node->size + art_node_count_growth(node, 1, false);
	if (size > node->size)
		need += size - node->size;
	return need;
}

/*
 * Before a planned change is made: place a new tail too long for one node
 * in fresh pages (invisible until the change links them by a stub).  The
 * only step of a change that can fail.
 */
ArtStatus
art_change_place_tail(ArtTrie *t, const uint8_t *key, size_t len,
					  ArtInsertPlan *p)
{
	if (p->inline_leaf)
		return ART_OK;
	return art_bulk_place_leaf(t, key + p->leafoff, len - p->leafoff,
							   &p->lpage, &p->lslot);
}

/*
 * Make a planned change at the node at in page, which has the room
 * art_change_need asked for; a long new tail is already placed
 * (art_change_place_tail).  Cannot fail.  The counts of the node's
 * ancestors are the caller's.
 */
void
art_change_apply(uint8_t *page, ArtChild at, const uint8_t *key,
				 size_t len, const ArtInsertPlan *p)
{
	uint16_t	slot = art_child_slot(page, at);
	uint16_t	lslot = 0;
	ArtNode		node;
	ArtNodeBuild b;
	uint8_t		tmp1[ART_MAX_RECORD];
	uint8_t		tmp2[ART_MAX_RECORD];
	size_t		size1;
	size_t		size2;
	uint8_t    *rec;

	if (p->has_leaf)
	{
		if (p->inline_leaf)
			size2 = art_leaf_encode(key + p->leafoff, len - p->leafoff, true,
									tmp2);
		else
		{
			art_stub_encode(p->lpage, p->lslot, tmp2);
			size2 = ART_STUB_SIZE;
		}
		lslot = (uint16_t) art_rec_alloc(page, tmp2, size2);
	}
	switch (p->op)
	{
		case ART_OP_FILL_ROOT:
			size1 = art_leaf_encode(key, len, true, tmp1);
			art_rec_replace(page, slot, tmp1, size1);
			break;
		case ART_OP_SET_TERMINAL:
			rec = art_child_rec(page, at);
			rec[0] |= ART_FLAG_TERMINAL;
			art_node_count_add(page, at, 1, false);
			break;
		case ART_OP_ADD_CHILD:
			art_node_add_child(page, at, key[p->d],
							   art_child_of_slot(page, lslot),
							   !p->inline_leaf);
			break;
		case ART_OP_SPLIT_PREFIX:
			{
				uint16_t	oldslot;
				uint8_t		oldkey;

				art_node_decode(art_rec(page, slot), &node);
				oldkey = node.prefix[p->m];
				size1 = encode_tail(&node, p->m + 1, tmp1);
				oldslot = (uint16_t) art_rec_alloc(page, tmp1, size1);
				art_node_decode(art_rec(page, slot), &node);
				b.terminal = !p->has_leaf;
				b.plen = (uint32_t) p->m;
				b.prefix = node.prefix;
				b.count = node.count + 1;
				b.wide = !p->inline_leaf || node.cw == ART_COUNT_WIDE;
				b.n = 0;
				art_build_add(&b, oldkey, art_child_of_slot(page, oldslot));
				if (p->has_leaf)
					art_build_add(&b, key[p->leafoff - 1],
								  art_child_of_slot(page, lslot));
				size2 = art_build_encode(&b, tmp2);
				art_rec_replace(page, slot, tmp2, size2);
			}
			break;
		case ART_OP_DESCEND:
		case ART_OP_EXISTS:
			break;
	}
}

/*
 * Bytes the records of the nodes path[0 .. npath) of page, the
 * changed node's ancestors in its page, grow by when their counts go up
 * by one (art_node_count_add) and, if wide (the change links a new page
 * below them), they become wide.
 */
size_t
art_path_growth(uint8_t *page, const ArtChild *path, int npath, bool wide)
{
	size_t		growth = 0;

	for (int i = 0; i < npath; i++)
	{
		ArtNode		node;

		art_node_decode(art_child_rec(page, path[i]), &node);
		growth += art_node_count_growth(&node, 1, wide);
	}
	return growth;
}

/*
 * After a planned change was applied: if it made a new group and the trie
 * counts its groups (counted: its root page's flag), tell the store
 * (trie.h).
 * The entry shares with the entries already there the bytes up to the
 * point where the change adds it.  Cannot fail.
 */
void
art_change_count_group(ArtTrie *t, bool counted, const uint8_t *key,
					   size_t len, const ArtInsertPlan *p)
{
	size_t		shared;

	if (!counted)
		return;
	switch (p->op)
	{
		case ART_OP_FILL_ROOT:
			shared = 0;
			break;
		case ART_OP_SPLIT_PREFIX:
			shared = p->d + p->m;
			break;
		case ART_OP_ADD_CHILD:
			shared = p->d;
			break;
		default:
			shared = len;
			break;
	}
	if (art_group_change(key, len, shared))
		t->store.ops->groups_add(t->store.store, 1);
}

/*
 * Move the bottom page of ps, which the path goes on below, to kept:
 * marked passing while still locked, then unlocked but still pinned.  The
 * root page is released instead: the second pass does not visit it.
 */
static ArtStatus
keep_bottom(ArtTrie *t, ArtPinStack *ps, ArtPinStack *kept)
{
	if (ps->refs[0].pageno == t->root)
		t->store.ops->release(t->store.store, &ps->refs[0]);
	else
	{
		ArtStatus	st = art_grow_from(t, (void **) &kept->refs, &kept->cap,
									   kept->n + 1, sizeof(ArtPageRef),
									   kept->fixed);

		if (st != ART_OK)
			return st;
		t->store.ops->passing(t->store.store, &ps->refs[0], true);
		t->store.ops->unlock(t->store.store, &ps->refs[0]);
		kept->refs[kept->n++] = ps->refs[0];
	}
	memmove(&ps->refs[0], &ps->refs[1], (ps->n - 1) * sizeof(ArtPageRef));
	ps->n--;
	return ART_OK;
}

/*
 * Release the pages kept, ending their passing marks.
 */
static void
release_kept(ArtTrie *t, ArtPinStack *kept)
{
	for (int i = 0; i < kept->n; i++)
		t->store.ops->passing(t->store.store, &kept->refs[i], false);
	art_pin_release_all(t, kept);
}

/*
 * End the mark of the page this insert marked for its split, if any, and
 * let go of the page.
 */
static void
end_mark(ArtTrie *t, ArtInsertHold *hold)
{
	if (!hold->marked)
		return;
	t->store.ops->split_mark(t->store.store, &hold->mark, false);
	t->store.ops->release(t->store.store, &hold->mark);
	hold->marked = false;
}

/*
 * Whether others marked page, which the caller holds locked, for a split:
 * then the insert must not pass it.  Its own mark does not count.
 */
static bool
marked_by_others(ArtTrie *t, ArtInsertHold *hold, ArtPageRef *page)
{
	uint32_t	marks = t->store.ops->split_marks(t->store.store, page);

	if (hold->marked && hold->mark.pageno == page->pageno)
		marks--;
	return marks > 0;
}

/*
 * Note for the second pass the page ref of the path, which the path leaves
 * by a stub, as pidx-th of the pages below the root page: the store's
 * changes of it and the offsets of the counts of its nodes path[0 ..
 * npath), which must all be wide.  Read under the lock the path's walk
 * through the page took.
 */
static void
note_page(ArtTrie *t, ArtInsertHold *hold, ArtPageRef *ref, int pidx,
		  const ArtChild *path, int npath)
{
	ArtKeptPage *kp;

	if (pidx < 0 || pidx >= ART_HOLD_PAGES)
		return;
	kp = &hold->pages[pidx];
	kp->fast = false;
	if (hold->ncounts + npath > ART_HOLD_COUNTS)
		return;
	for (int i = 0; i < npath; i++)
	{
		uint16_t	off = art_slot_off(ref->data,
									   art_child_slot(ref->data, path[i]));
		uint8_t		flags = ref->data[off];

		if ((flags & ART_KIND_MASK) == ART_NODE_LEAF ||
			(flags & ART_KIND_MASK) == ART_KIND_STUB ||
			art_count_bytes(flags) != ART_COUNT_WIDE)
			return;
		hold->counts[hold->ncounts + i] =
			(uint16_t) (off + (flags & ART_FLAG_LONGPLEN ? 3 : 2));
	}
	kp->first = (uint16_t) hold->ncounts;
	kp->n = (uint16_t) npath;
	hold->ncounts += npath;
	kp->changes = t->store.ops->changes(t->store.store, ref);
	kp->fast = true;
}

/*
 * Note where the path enters the pidx-th page below the root page: at
 * slot, key depth d.
 */
static void
note_entry(ArtInsertHold *hold, int pidx, uint16_t slot, size_t d)
{
	if (pidx >= ART_HOLD_PAGES)
		return;
	hold->pages[pidx].entry_slot = slot;
	hold->pages[pidx].entry_depth = d;
	hold->pages[pidx].fast = false;
}

/*
 * Follow a stub to the page it points at, with lock coupling in mode: the
 * page above stays locked (while a page is relocked exclusive, or split,
 * its parent must hold still), the one above that is unlocked and moves
 * to kept, still pinned (or is released, if it is the root page).
 */
static ArtStatus
couple_down(ArtTrie *t, ArtPinStack *ps, ArtPinStack *kept, ArtPageNo pageno,
			ArtLockMode mode)
{
	ArtStatus	st = art_pin_push(t, ps, pageno, mode);

	if (st != ART_OK)
		return st;
	art_prefetch_page(ps->refs[ps->n - 1].data);
	if (ps->n < 3)
		return st;
	return keep_bottom(t, ps, kept);
}

/*
 * The first pass of an insert (see the file header).  It descends with
 * share locks and relocks only the page it changes exclusive, except from
 * page *xfrom on (ART_INVALID_PAGENO: none), which it locks exclusive on the
 * way down, as every page below it.  A page that must be split is split in
 * a try whose *xfrom is the page above it (the split may repoint stubs
 * there), or the page itself when it is the root page, if no insert
 * between its passes passes it or the try holds the split section
 * exclusive (split_held).  Sets *retry when the insert must start over
 * (after a split, or to split, with *xfrom set), and *pagedepth to the key
 * depth at which the changed page's part of the path begins (0: the root
 * page holds the whole path).  Every page of the path between the root page
 * and the changed page ends in hold's kept, pinned, unlocked and marked
 * passing, and where the path enters the first of them in hold: on success
 * for the second pass, else for the caller to release.  RETRY_PASSERS
 * leaves the page to split marked in hold's mark, RETRY_MARKED the marked
 * page the path would pass in hold's wait, for the caller to wait for.
 */
static ArtStatus
insert_attempt(ArtTrie *t, const uint8_t *key, size_t len, bool split_held,
			   ArtPageNo *xfrom, InsertRetry *retry, size_t *pagedepth,
			   ArtInsertHold *hold)
{
	ArtPinStack *kept = &hold->kept;
	ArtPinStack ps = {0};
	ArtPageRef	ps0[4];
	ArtChild	path0[32];
	ArtChild   *path = path0;
	int			npath = 0;
	int			pathcap = (int) (sizeof(path0) / sizeof(path0[0]));
	int			pidx = -1;
	ArtStatus	st;
	ArtLockMode mode = t->root == *xfrom ? ART_LOCK_EXCLUSIVE : ART_LOCK_SHARE;
	bool		cur_x = mode == ART_LOCK_EXCLUSIVE;
	bool		parent_x = false;
	ArtChild	pagetop;
	ArtChild	at;
	uint8_t    *page;
	ArtNode		node;
	ArtInsertPlan p = {0};
	size_t		need;
	int			i;
	bool		counted;
	uint32_t	seen;

	*retry = RETRY_NONE;
	*pagedepth = 0;
	hold->ncounts = 0;
	art_pin_stack_give(&ps, ps0, (int) (sizeof(ps0) / sizeof(ps0[0])));
	st = art_pin_push(t, &ps, t->root, mode);
	if (st != ART_OK)
		goto out;
	counted = art_root_counts_groups(ps.refs[0].data);
	at = art_child_of_slot(ps.refs[0].data, ART_ROOT_SLOT);
	pagetop = at;

	for (;;)
	{
		uint8_t    *rec;
		ArtChild	child;

		page = ps.refs[ps.n - 1].data;
		rec = art_child_rec(page, at);
		if (art_is_stub(rec))
		{
			ArtPageNo	pg;
			uint16_t	slot;

			art_stub_target(rec, &pg, &slot);
			if (ps.refs[ps.n - 1].pageno != t->root &&
				marked_by_others(t, hold, &ps.refs[ps.n - 1]))
			{
				/*
				 * Locked since the path entered it, so not passed yet: leave
				 * it to its split.
				 */
				t->store.ops->unlock(t->store.store, &ps.refs[ps.n - 1]);
				hold->wait = ps.refs[--ps.n];
				*retry = RETRY_MARKED;
				goto out;
			}
			note_page(t, hold, &ps.refs[ps.n - 1], pidx, path, npath);
			if (pg == *xfrom)
				mode = ART_LOCK_EXCLUSIVE;
			st = couple_down(t, &ps, kept, pg, mode);
			if (st != ART_OK)
				goto out;
			parent_x = cur_x;
			cur_x = mode == ART_LOCK_EXCLUSIVE;
			npath = 0;
			*pagedepth = p.d;
			note_entry(hold, ++pidx, slot, p.d);
			at = art_child_of_slot(ps.refs[ps.n - 1].data, slot);
			pagetop = at;
			continue;
		}
		art_node_decode(rec, &node);
		if (art_plan_node(&node, ps.refs[ps.n - 1].pageno == t->root &&
						  npath == 0, key, len, &p,
						  &child) != ART_OP_DESCEND)
		{
			if (p.op == ART_OP_EXISTS)
			{
				st = ART_EXISTS;
				goto out;
			}
			if (cur_x)
				break;

			/*
			 * The page was read under a share lock: relock it exclusive
			 * (still pinned), its parent page still held.  If nobody
			 * changed it meanwhile but for counts of wide nodes, which
			 * neither the plan nor the room it needs depends on, the plan
			 * stands; else walk its part of the path again (a split may
			 * have moved it on meanwhile).
			 */
			seen = t->store.ops->changes(t->store.store, &ps.refs[ps.n - 1]);
			t->store.ops->unlock(t->store.store, &ps.refs[ps.n - 1]);
			t->store.ops->relock(t->store.store, &ps.refs[ps.n - 1],
								 ART_LOCK_EXCLUSIVE);
			mode = ART_LOCK_EXCLUSIVE;
			cur_x = true;
			if (t->store.ops->changes(t->store.store,
									  &ps.refs[ps.n - 1]) == seen)
				break;
			at = pagetop;
			p.d = *pagedepth;
			npath = 0;
			continue;
		}
		st = art_grow_from(t, (void **) &path, &pathcap, npath + 1,
						   sizeof(ArtChild), path0);
		if (st != ART_OK)
			goto out;
		path[npath++] = at;
		at = child;
	}

	need = art_change_need(&node, len, &p);
	need += art_path_growth(page, path, npath, !p.inline_leaf);
	if (need > art_page_free(page))
	{
		ArtPageRef *full = &ps.refs[ps.n - 1];

		if (*xfrom == ART_INVALID_PAGENO || (ps.n >= 2 && !parent_x))
		{
			*retry = RETRY_EXCLUSIVE;
			*xfrom = ps.n >= 2 ? ps.refs[ps.n - 2].pageno : t->root;
		}
		else if (split_held ||
				 (full->pageno != t->root &&
				  t->store.ops->passers(t->store.store, full) == 0))
		{
			st = art_split_page(t, &ps, need);
			if (st == ART_OK)
				*retry = RETRY_SPLIT;
		}
		else if (full->pageno == t->root)
			*retry = RETRY_SECTION;
		else
		{
			/* Others pass it: mark it, to wait for them alone. */
			end_mark(t, hold);
			t->store.ops->split_mark(t->store.store, full, true);
			t->store.ops->unlock(t->store.store, full);
			hold->mark = *full;
			hold->marked = true;
			ps.n--;
			*retry = RETRY_PASSERS;
		}
		goto out;
	}

	/*
	 * Room to keep the pages above the changed page pinned, then a long new
	 * path goes to fresh pages, the last step that can fail; nothing
	 * changed yet.
	 */
	st = art_grow_from(t, (void **) &kept->refs, &kept->cap, kept->n + ps.n,
					   sizeof(ArtPageRef), kept->fixed);
	if (st == ART_OK)
		st = art_change_place_tail(t, key, len, &p);
	if (st != ART_OK)
		goto out;

	/* From here on, no store call that can fail. */
	for (i = 0; i < npath; i++)
		art_node_count_add(page, path[i], 1, !p.inline_leaf);
	art_change_apply(page, at, key, len, &p);
	art_change_count_group(t, counted, key, len, &p);
	t->store.ops->version(t->store.store, true);
	t->store.ops->mark_dirty(t->store.store, &ps.refs[ps.n - 1]);
	while (ps.n > 1)
		(void) keep_bottom(t, &ps, kept);	/* room reserved above */
	if (kept->n != (pidx > 0 ? pidx : 0))
	{
		/* not the pages noted: the second pass walks them by key */
		for (i = 0; i < ART_HOLD_PAGES; i++)
			hold->pages[i].fast = false;
	}

out:
	art_pin_release_all(t, &ps);
	if (path != path0)
		art_free(t, path);
	return st;
}

/*
 * Add one to the counts of the nodes of kept page i of hold that the first
 * pass noted, if nobody changed the page since but for such counts: then
 * those are the nodes of the path in the page (the caller holds it
 * exclusive).  False if the page must be walked by key.
 */
static bool
count_noted(ArtTrie *t, ArtInsertHold *hold, int i)
{
	ArtPageRef *ref = &hold->kept.refs[i];
	const ArtKeptPage *kp;

	/* noted, and so is the next page's entry, unless this is the last */
	if (i >= ART_HOLD_PAGES ||
		(i + 1 >= ART_HOLD_PAGES && i + 1 < hold->kept.n))
		return false;
	kp = &hold->pages[i];
	if (!kp->fast ||
		t->store.ops->changes(t->store.store, ref) != kp->changes)
		return false;
	for (int k = kp->first; k < kp->first + kp->n; k++)
	{
		uint8_t    *count = ref->data + hold->counts[k];

		art_put48(count, art_get48(count) + 1);
	}
	return true;
}

/*
 * Add one to the count of every node on key's path that begins above key
 * depth upto and lies below the root page: the second pass of an insert
 * whose first pass changed a page below the root page (the path's part in
 * that page begins at depth upto).  The root page's node counts are not
 * kept (readers derive them, see art_root_count), so the pass begins in
 * the first page below it, where the first pass entered it, and takes the
 * kept pages exclusive one at a time, each let go before the next is
 * locked; when the changed page hangs right from the root page there is
 * nothing to do.  The first pass has changed the trie already, so a store
 * failure here cannot be returned cleanly: the stretch is critical.  In a
 * page nobody changed since the first pass read it, but for counts of wide
 * nodes (the store's changes), the counts the first pass noted are those
 * of the path's nodes there.  In any other, the nodes are found again by
 * key, not by slot, since other writers may have split node prefixes
 * meanwhile; such a change keeps every node on one side of upto (a prefix
 * split copies the count into the new node above, and both begin above
 * upto), and no page of the path splits meanwhile (passing marks, and the
 * root page's splits hold the split section exclusive), so each node that
 * missed this change's count gets it exactly once.  No page above need be
 * held while the next is locked: the stub that leads to the next page
 * stays as it is (only a split of that page, a page merge or a relayout
 * would repoint it, and a delete removes it only with the last entry
 * below it, this one), and so does the node it leads to (a prefix split
 * puts the new node above in its slot, a delete's node merge keeps the
 * upper node's slot, and the entry keeps it from being removed).  The
 * pages it visits are the ones the first pass kept pinned, in order:
 * relocking them cannot fail.  It changes only counts, in place
 * (mark_counts).
 */
static ArtStatus
art_count_above(ArtTrie *t, const uint8_t *key, size_t len, size_t upto,
				ArtInsertHold *hold)
{
	ArtPinStack *kept = &hold->kept;
	ArtStatus	st = ART_OK;
	ArtChild	at;
	size_t		d = hold->pages[0].entry_depth;
	uint16_t	slot = hold->pages[0].entry_slot;
	int			i = 0;

	if (kept->n == 0)
		return ART_OK;
	t->store.ops->critical(t->store.store, true);
	for (;;)
	{
		ArtPageNo	pg = ART_INVALID_PAGENO;
		bool		walk = true;

		t->store.ops->relock(t->store.store, &kept->refs[i],
							 ART_LOCK_EXCLUSIVE);
		at = art_child_of_slot(kept->refs[i].data, slot);
		if (count_noted(t, hold, i))
		{
			if (i + 1 < kept->n)
			{
				pg = kept->refs[i + 1].pageno;
				slot = hold->pages[i + 1].entry_slot;
				d = hold->pages[i + 1].entry_depth;
			}
			else
				walk = false;
		}
		else
		{
			/* by key, up to the page's stub on the path or upto */
			ArtStatus	wst = art_node_count_path(kept->refs[i].data, at,
												  key, len, &d, upto, 1,
												  &pg, &slot);

			walk = wst == ART_OK;
			if (wst == ART_CORRUPT)
				st = ART_CORRUPT;
		}
		t->store.ops->mark_counts(t->store.store, &kept->refs[i]);
		t->store.ops->unlock(t->store.store, &kept->refs[i]);
		if (!walk)
			break;
		if (i + 1 >= kept->n || kept->refs[i + 1].pageno != pg)
		{
			st = ART_CORRUPT;
			break;
		}
		i++;
	}
	t->store.ops->critical(t->store.store, false);
	return st;
}

/*
 * The first pass of an insert with its retries, inside a write section the
 * caller holds; *pagedepth as for insert_attempt.  On ART_OK the insert
 * holds what *hold says until art_insert_second_pass; otherwise nothing.
 * A try that marked a page to split waits, holding no lock, passing mark
 * or split section, for the inserts that pass the page, and keeps the
 * mark through the next try only (which splits the page unless it moved
 * meanwhile); one whose path would pass a page others marked drops its
 * own mark and everything else before it waits for theirs to go, so no
 * waiter holds what another waits for.  Split out for the unit test that
 * interleaves the passes of several inserts.
 */
ArtStatus
art_insert_first_pass(ArtTrie *t, const uint8_t *entry, size_t len,
					  size_t *pagedepth, ArtInsertHold *hold)
{
	InsertRetry retry = RETRY_NONE;
	ArtPageNo	xfrom = ART_INVALID_PAGENO;
	int			attempt;

	memset(hold, 0, sizeof(*hold));
	art_pin_stack_give(&hold->kept, hold->kept0, ART_HOLD_PAGES);
	for (attempt = 0; attempt < 100000; attempt++)
	{
		ArtStatus	st;
		ArtLockMode mode = retry == RETRY_SECTION ?
			ART_LOCK_EXCLUSIVE : ART_LOCK_SHARE;

		if (retry != RETRY_EXCLUSIVE && retry != RETRY_SECTION &&
			retry != RETRY_PASSERS)
			xfrom = ART_INVALID_PAGENO;
		t->store.ops->split_begin(t->store.store, mode);
		st = insert_attempt(t, entry, len, mode == ART_LOCK_EXCLUSIVE,
							&xfrom, &retry, pagedepth, hold);
		if (retry != RETRY_PASSERS)
			end_mark(t, hold);
		if (st == ART_OK && retry == RETRY_NONE)
		{
			hold->split_mode = mode;
			return ART_OK;
		}
		release_kept(t, &hold->kept);
		t->store.ops->split_end(t->store.store, mode);
		if (st == ART_OK && retry == RETRY_PASSERS)
			st = t->store.ops->wait_passers(t->store.store, &hold->mark);
		else if (st == ART_OK && retry == RETRY_MARKED)
		{
			st = t->store.ops->wait_unmarked(t->store.store, &hold->wait);
			t->store.ops->release(t->store.store, &hold->wait);
		}
		if (st != ART_OK)
		{
			end_mark(t, hold);
			return st;
		}
	}
	end_mark(t, hold);
	return ART_CORRUPT;
}

/*
 * The second pass of an insert whose first pass returned ART_OK, and the
 * end of what it held.
 */
ArtStatus
art_insert_second_pass(ArtTrie *t, const uint8_t *entry, size_t len,
					   size_t pagedepth, ArtInsertHold *hold)
{
	ArtStatus	st = art_count_above(t, entry, len, pagedepth, hold);

	release_kept(t, &hold->kept);
	t->store.ops->split_end(t->store.store, hold->split_mode);
	return st;
}

/* Insert an entry; ART_EXISTS if it is already there. */
ArtStatus
art_insert(ArtTrie *t, const uint8_t *entry, size_t len)
{
	ArtStatus	st;
	size_t		pagedepth;
	ArtInsertHold hold;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	st = art_insert_first_pass(t, entry, len, &pagedepth, &hold);
	if (st == ART_OK)
		st = art_insert_second_pass(t, entry, len, pagedepth, &hold);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

