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
 * trie's content; in a try that holds the path exclusive, since a split
 * may repoint stubs in the page above) and starts over.  Otherwise it
 * first places any long new path in fresh pages, and only then changes
 * the page, counts of the page's own nodes on the path included, with no
 * fallible store call left.  The second pass adds one to the count of
 * every node on the path above that page, with exclusive lock coupling
 * from the root.  Between the passes those counts are one short; only
 * verify, which keeps writers out, would notice, and structural decisions
 * never read counts.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Why an insert's first pass asks to start over. */
typedef enum InsertRetry
{
	RETRY_NONE,
	RETRY_SPLIT,				/* it split a page */
	RETRY_EXCLUSIVE				/* a page must be split: lock the path */
} InsertRetry;

/* What an insert does at a node it has reached. */
typedef enum InsertOp
{
	OP_DESCEND,					/* go on to a child */
	OP_EXISTS,					/* the entry is there */
	OP_ADD_CHILD,				/* new child under the node */
	OP_SET_TERMINAL,			/* the entry ends at the node */
	OP_SPLIT_PREFIX,			/* the entry leaves the node's prefix */
	OP_FILL_ROOT				/* the trie is empty */
} InsertOp;

/* An insert's change at one node, planned before anything is changed. */
typedef struct InsertPlan
{
	InsertOp	op;
	size_t		d;				/* key depth: at the node's start, then past
								 * its prefix (ADD_CHILD: the new key byte) */
	size_t		m;				/* SPLIT_PREFIX: prefix bytes the key shares */
	bool		has_leaf;		/* a new leaf holds key[leafoff ..] */
	size_t		leafoff;
	bool		inline_leaf;	/* in this page, or in fresh pages by a stub */
} InsertPlan;

/* A node on a finger's path: its page in the pin stack, slot, start depth. */
typedef struct PathNode
{
	int			pidx;
	uint16_t	slot;
	size_t		depth;
} PathNode;

/*
 * A finger: the path of the last entry changed, held between calls.  When
 * npath > 0, ps holds every page of the path, exclusively locked (the root
 * page first), path[0 .. npath) its nodes, root first, the last one the
 * node the change was made at, and last the entry.
 */
struct ArtFinger
{
	ArtTrie    *t;
	ArtPinStack ps;
	PathNode   *path;
	int			npath;
	int			pathcap;
	ArtBuf		last;
};

/* Length of the common prefix of a and b. */
static size_t
common_len(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
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
 * the trie's root node): OP_DESCEND with *child set, or the change to make
 * here, or OP_EXISTS.
 */
static InsertOp
plan_node(const ArtNode *node, bool at_root, const uint8_t *key, size_t len,
		  InsertPlan *p, uint16_t *child)
{
	size_t		d = p->d;

	p->has_leaf = false;
	if (at_root && node->kind == ART_NODE_LEAF && !node->terminal &&
		len <= ART_MAX_PREFIX)
		return p->op = OP_FILL_ROOT;
	p->m = common_len(key + d, len - d, node->prefix, node->plen);
	if (p->m < node->plen)
	{
		if (d + p->m < len)
		{
			p->has_leaf = true;
			p->leafoff = d + p->m + 1;
		}
		return p->op = OP_SPLIT_PREFIX;
	}
	d += node->plen;
	p->d = d;
	if (d == len)
		return p->op = node->terminal ? OP_EXISTS : OP_SET_TERMINAL;
	*child = art_node_find(node, key[d]);
	if (*child == 0)
	{
		p->has_leaf = true;
		p->leafoff = d + 1;
		return p->op = OP_ADD_CHILD;
	}
	p->d = d + 1;
	return p->op = OP_DESCEND;
}

/*
 * How many free bytes a planned change needs in node's page: the new
 * records (allocated while the old node is still there), plus what the
 * node's own record grows by when it is rewritten.
 */
static size_t
change_need(const ArtNode *node, const uint8_t *key, size_t len,
			InsertPlan *p)
{
	uint8_t		tmp[ART_MAX_RECORD];
	size_t		need = 0;
	size_t		size;

	p->inline_leaf = !p->has_leaf || len - p->leafoff <= ART_MAX_PREFIX;
	if (p->has_leaf)
		need += (p->inline_leaf ? art_leaf_size(len - p->leafoff) :
				 ART_STUB_SIZE) + 2;
	if (p->op == OP_FILL_ROOT)
		size = art_leaf_size(len);
	else if (p->op == OP_ADD_CHILD)
	{
		ArtNodeBuild b;

		art_build_from_node(node, &b);
		art_build_add(&b, key[p->d], 0);
		size = art_build_size(&b);
	}
	else if (p->op == OP_SPLIT_PREFIX)
	{
		/* the shortened old node, then the new one (at most two children) */
		need += encode_tail(node, p->m + 1, tmp) + 2;
		size = 3 + 7 + p->m + 6;
	}
	else
		size = node->size;
	if (size > node->size)
		need += size - node->size;
	return need;
}

/*
 * Make a planned change at the node in slot of page, which has the room
 * change_need asked for; a long new tail is already at (lpage, lslot).
 * Cannot fail.  The counts of the node's ancestors are the caller's.
 */
static void
change_apply(uint8_t *page, uint16_t slot, const uint8_t *key, size_t len,
			 const InsertPlan *p, ArtPageNo lpage, uint16_t lslot)
{
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
			art_stub_encode(lpage, lslot, tmp2);
			size2 = ART_STUB_SIZE;
		}
		lslot = (uint16_t) art_rec_alloc(page, tmp2, size2);
	}
	switch (p->op)
	{
		case OP_FILL_ROOT:
			size1 = art_leaf_encode(key, len, true, tmp1);
			art_rec_replace(page, slot, tmp1, size1);
			break;
		case OP_SET_TERMINAL:
			rec = art_rec(page, slot);
			rec[0] |= ART_FLAG_TERMINAL;
			art_node_decode(rec, &node);
			if (node.kind != ART_NODE_LEAF)
				art_node_set_count(&node, node.count + 1);
			break;
		case OP_ADD_CHILD:
			art_node_decode(art_rec(page, slot), &node);
			art_build_from_node(&node, &b);
			art_build_add(&b, key[p->d], lslot);
			b.count = node.count + 1;
			size1 = art_build_encode(&b, tmp1);
			art_rec_replace(page, slot, tmp1, size1);
			break;
		case OP_SPLIT_PREFIX:
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
				b.n = 0;
				art_build_add(&b, oldkey, oldslot);
				if (p->has_leaf)
					art_build_add(&b, key[p->leafoff - 1], lslot);
				size2 = art_build_encode(&b, tmp2);
				art_rec_replace(page, slot, tmp2, size2);
			}
			break;
		case OP_DESCEND:
		case OP_EXISTS:
			break;
	}
}

/* Add one to the count of the inner node in slot of page. */
static void
count_one_more(uint8_t *page, uint16_t slot)
{
	ArtNode		node;

	art_node_decode(art_rec(page, slot), &node);
	art_node_set_count(&node, node.count + 1);
}

/*
 * Follow a stub to the page it points at, with lock coupling in mode: the
 * page above stays locked (while a page is relocked exclusive, or split,
 * its parent must hold still), the one above that is released.
 */
static ArtStatus
couple_down(ArtTrie *t, ArtPinStack *ps, ArtPageNo pageno, ArtLockMode mode)
{
	ArtStatus	st = art_pin_push(t, ps, pageno, mode);

	if (st != ART_OK || ps->n < 3)
		return st;
	t->store.ops->release(t->store.store, &ps->refs[0]);
	memmove(&ps->refs[0], &ps->refs[1], 2 * sizeof(ArtPageRef));
	ps->n--;
	return ART_OK;
}

/*
 * The first pass of an insert (see the file header).  With upper_exclusive
 * false it descends with share locks and relocks only the page it changes
 * exclusive; a page that must be split is split in a try with exclusive
 * locks all the way (upper_exclusive), since the split may repoint stubs in
 * the parent page.  Sets *retry when the insert must start over (after a
 * split, or to split), and *pagedepth to the key depth at which the changed
 * page's part of the path begins (0: the root page holds the whole path).
 */
static ArtStatus
insert_attempt(ArtTrie *t, const uint8_t *key, size_t len,
			   bool upper_exclusive, InsertRetry *retry, size_t *pagedepth)
{
	ArtPinStack ps = {0};
	uint16_t   *path = NULL;
	int			npath = 0;
	int			pathcap = 0;
	ArtStatus	st;
	ArtLockMode mode = upper_exclusive ? ART_LOCK_EXCLUSIVE : ART_LOCK_SHARE;
	bool		cur_x = upper_exclusive;
	bool		parent_x = upper_exclusive;
	uint16_t	pageslot = ART_ROOT_SLOT;
	uint16_t	slot = ART_ROOT_SLOT;
	uint8_t    *page;
	ArtNode		node;
	InsertPlan	p = {0};
	size_t		need;
	ArtPageNo	lpage = ART_INVALID_PAGENO;
	uint16_t	lslot = 0;
	int			i;

	*retry = RETRY_NONE;
	*pagedepth = 0;
	st = art_pin_push(t, &ps, t->root, mode);
	if (st != ART_OK)
		goto out;

	for (;;)
	{
		uint8_t    *rec;
		uint16_t	child;

		page = ps.refs[ps.n - 1].data;
		rec = art_rec(page, slot);
		if (art_is_stub(rec))
		{
			ArtPageNo	pg;

			art_stub_target(rec, &pg, &slot);
			st = couple_down(t, &ps, pg, mode);
			if (st != ART_OK)
				goto out;
			parent_x = cur_x;
			cur_x = mode == ART_LOCK_EXCLUSIVE;
			npath = 0;
			*pagedepth = p.d;
			pageslot = slot;
			continue;
		}
		art_node_decode(rec, &node);
		if (plan_node(&node, ps.refs[ps.n - 1].pageno == t->root &&
					  slot == ART_ROOT_SLOT, key, len, &p, &child) != OP_DESCEND)
		{
			if (p.op == OP_EXISTS)
			{
				st = ART_EXISTS;
				goto out;
			}
			if (cur_x)
				break;

			/*
			 * The page was read under a share lock: relock it exclusive,
			 * its parent page still held, and walk its part of the path
			 * again (a split may have moved it on meanwhile).
			 */
			{
				ArtPageNo	pg = ps.refs[ps.n - 1].pageno;

				art_pin_pop(t, &ps);
				st = art_pin_push(t, &ps, pg, ART_LOCK_EXCLUSIVE);
				if (st != ART_OK)
					goto out;
			}
			mode = ART_LOCK_EXCLUSIVE;
			cur_x = true;
			slot = pageslot;
			p.d = *pagedepth;
			npath = 0;
			continue;
		}
		st = art_grow(t, (void **) &path, &pathcap, npath + 1,
					  sizeof(uint16_t));
		if (st != ART_OK)
			goto out;
		path[npath++] = slot;
		slot = child;
	}

	need = change_need(&node, key, len, &p);
	if (need > art_page_free(page))
	{
		if (ps.n >= 2 && !parent_x)
			*retry = RETRY_EXCLUSIVE;
		else
		{
			st = art_split_page(t, &ps.refs[ps.n - 1],
								ps.n >= 2 ? &ps.refs[ps.n - 2] : NULL, need);
			if (st == ART_OK)
				*retry = RETRY_SPLIT;
		}
		goto out;
	}

	/* A long new path goes to fresh pages first; nothing changed yet. */
	if (!p.inline_leaf)
	{
		st = art_bulk_place_leaf(t, key + p.leafoff, len - p.leafoff,
								 &lpage, &lslot);
		if (st != ART_OK)
			goto out;
	}

	/* From here on, no store call that can fail. */
	for (i = 0; i < npath; i++)
		count_one_more(page, path[i]);
	change_apply(page, slot, key, len, &p, lpage, lslot);
	if (ps.refs[ps.n - 1].pageno == t->root)
		art_page_set_version(page, art_page_version(page) + 1);
	t->store.ops->mark_dirty(t->store.store, &ps.refs[ps.n - 1]);

out:
	art_pin_release_all(t, &ps);
	art_free(t, path);
	return st;
}

/* Release the finger's path: the next call descends from the root. */
static void
finger_drop(ArtFinger *f)
{
	art_pin_release_all(f->t, &f->ps);
	f->npath = 0;
}

/*
 * Keep the path of an insert that ended at the node at (the top page of
 * the pin stack, slot), at depth, in the finger; or drop it when memory
 * for it is short.  The finger already holds the pages and the path.
 */
static void
finger_keep(ArtFinger *f, int npath, uint16_t slot, size_t depth,
			const uint8_t *key, size_t len)
{
	if (art_grow(f->t, (void **) &f->path, &f->pathcap, npath + 1,
				 sizeof(PathNode)) != ART_OK ||
		art_buf_reserve(f->t, &f->last, len) != ART_OK)
	{
		finger_drop(f);
		return;
	}
	f->path[npath].pidx = f->ps.n - 1;
	f->path[npath].slot = slot;
	f->path[npath].depth = depth;
	f->npath = npath + 1;
	if (len)
		memcpy(f->last.data, key, len);
	f->last.len = len;
}

/*
 * One try at an insert through a finger, in one pass: the finger holds
 * every page of its path exclusive, so the counts of the whole path change
 * with the entry.  The descent starts at the deepest node of the finger's
 * path that the entry shares with the last one; the path is kept at the
 * end (finger_keep), or dropped on a split or a failure.  Sets *retry when
 * it split a page and the insert must start over.
 */
static ArtStatus
finger_attempt(ArtFinger *f, const uint8_t *key, size_t len, bool *retry)
{
	ArtTrie    *t = f->t;
	ArtPinStack *ps = &f->ps;
	int			npath = 0;
	ArtStatus	st = ART_OK;
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		dnode = 0;
	uint8_t    *page;
	ArtNode		node;
	InsertPlan	p = {0};
	size_t		need;
	ArtPageNo	lpage = ART_INVALID_PAGENO;
	uint16_t	lslot = 0;
	int			i;

	*retry = false;
	if (f->npath > 0)
	{
		size_t		c = common_len(f->last.data, f->last.len, key, len);
		int			k = f->npath - 1;

		/* path[0] is the root, at depth 0 */
		while (f->path[k].depth > c)
			k--;
		while (ps->n - 1 > f->path[k].pidx)
			art_pin_pop(t, ps);
		npath = k;
		slot = f->path[k].slot;
		p.d = f->path[k].depth;
		f->npath = 0;
	}
	else
	{
		st = art_pin_push(t, ps, t->root, ART_LOCK_EXCLUSIVE);
		if (st != ART_OK)
			goto out;
	}

	for (;;)
	{
		uint8_t    *rec;
		uint16_t	child;

		page = ps->refs[ps->n - 1].data;
		rec = art_rec(page, slot);
		if (art_is_stub(rec))
		{
			ArtPageNo	pg;

			art_stub_target(rec, &pg, &slot);
			st = art_pin_push(t, ps, pg, ART_LOCK_EXCLUSIVE);
			if (st != ART_OK)
				goto out;
			continue;
		}
		dnode = p.d;
		art_node_decode(rec, &node);
		if (plan_node(&node, ps->n == 1 && slot == ART_ROOT_SLOT, key, len,
					  &p, &child) != OP_DESCEND)
			break;
		st = art_grow(t, (void **) &f->path, &f->pathcap, npath + 1,
					  sizeof(PathNode));
		if (st != ART_OK)
			goto out;
		f->path[npath].pidx = ps->n - 1;
		f->path[npath].slot = slot;
		f->path[npath].depth = dnode;
		npath++;
		slot = child;
	}
	if (p.op == OP_EXISTS)
	{
		st = ART_EXISTS;
		goto out;
	}

	need = change_need(&node, key, len, &p);
	if (need > art_page_free(page))
	{
		st = art_split_page(t, &ps->refs[ps->n - 1],
							ps->n >= 2 ? &ps->refs[ps->n - 2] : NULL, need);
		if (st == ART_OK)
			*retry = true;
		goto out;
	}
	if (!p.inline_leaf)
	{
		st = art_bulk_place_leaf(t, key + p.leafoff, len - p.leafoff,
								 &lpage, &lslot);
		if (st != ART_OK)
			goto out;
	}

	/* From here on, no store call that can fail. */
	for (i = 0; i < npath; i++)
		count_one_more(ps->refs[f->path[i].pidx].data, f->path[i].slot);
	change_apply(page, slot, key, len, &p, lpage, lslot);
	art_page_set_version(ps->refs[0].data,
						 art_page_version(ps->refs[0].data) + 1);
	for (i = 0; i < ps->n; i++)
		t->store.ops->mark_dirty(t->store.store, &ps->refs[i]);

out:
	if ((st == ART_OK || st == ART_EXISTS) && !*retry)
		finger_keep(f, npath, slot, dnode, key, len);
	else
		finger_drop(f);
	return st;
}

/*
 * Add one to the count of every node on key's path that begins above key
 * depth upto, and move the trie's version: the second pass of an insert
 * whose first pass changed a page below the root page (the path's part in
 * that page begins at depth upto).  Lock coupling from the root,
 * exclusive.  The first pass has changed the trie already, so a store
 * failure here cannot be returned cleanly: the stretch is critical.  The
 * nodes are found again by key, not by slot, since other writers may
 * have split pages or node prefixes meanwhile; such a change keeps every
 * node on one side of upto (a prefix split copies the count into the new
 * node above, and both begin above upto), so each node that missed this
 * change's count gets it exactly once.
 */
ArtStatus
art_count_above(ArtTrie *t, const uint8_t *key, size_t len, size_t upto)
{
	ArtPageRef	cur;
	ArtPageRef	next;
	ArtStatus	st;
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;

	t->store.ops->critical(t->store.store, true);
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_EXCLUSIVE, &cur);
	if (st != ART_OK)
		goto out;
	art_page_set_version(cur.data, art_page_version(cur.data) + 1);
	while (d < upto)
	{
		uint8_t    *rec = art_rec(cur.data, slot);
		ArtNode		node;

		if (art_is_stub(rec))
		{
			ArtPageNo	pg;

			art_stub_target(rec, &pg, &slot);
			st = t->store.ops->pin(t->store.store, pg, ART_LOCK_EXCLUSIVE,
								   &next);
			if (st != ART_OK)
				break;
			t->store.ops->mark_dirty(t->store.store, &cur);
			t->store.ops->release(t->store.store, &cur);
			cur = next;
			continue;
		}
		art_node_decode(rec, &node);
		if (node.kind == ART_NODE_LEAF || len - d <= node.plen ||
			memcmp(key + d, node.prefix, node.plen) != 0)
			break;
		art_node_set_count(&node, node.count + 1);
		d += node.plen;
		slot = art_node_find(&node, key[d]);
		if (slot == 0)
			break;
		d++;
	}
	t->store.ops->mark_dirty(t->store.store, &cur);
	t->store.ops->release(t->store.store, &cur);
out:
	t->store.ops->critical(t->store.store, false);
	return st;
}

/*
 * The first pass of an insert with its retries, inside a write section the
 * caller holds; *pagedepth as for insert_attempt.  Split out for the unit
 * test that interleaves the passes of several inserts.
 */
ArtStatus
art_insert_first_pass(ArtTrie *t, const uint8_t *entry, size_t len,
					  size_t *pagedepth)
{
	InsertRetry retry = RETRY_NONE;
	int			attempt;

	for (attempt = 0; attempt < 100000; attempt++)
	{
		ArtStatus	st = insert_attempt(t, entry, len,
										retry == RETRY_EXCLUSIVE, &retry,
										pagedepth);

		if (st != ART_OK || retry == RETRY_NONE)
			return st;
	}
	return ART_CORRUPT;
}

/* Insert an entry; ART_EXISTS if it is already there. */
ArtStatus
art_insert(ArtTrie *t, const uint8_t *entry, size_t len)
{
	ArtStatus	st;
	size_t		pagedepth;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	st = art_insert_first_pass(t, entry, len, &pagedepth);
	if (st == ART_OK && pagedepth > 0)
		st = art_count_above(t, entry, len, pagedepth);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/* Start a finger on trie t; it holds no page yet. */
ArtStatus
art_finger_begin(ArtTrie *t, ArtFinger **finger)
{
	ArtFinger  *f = art_alloc(t, sizeof(ArtFinger));

	*finger = NULL;
	if (f == NULL)
		return ART_NO_MEMORY;
	memset(f, 0, sizeof(ArtFinger));
	f->t = t;
	*finger = f;
	return ART_OK;
}

/*
 * Insert an entry through a finger; as art_insert.  The write section is
 * taken for the call; the pages the finger keeps between calls stay
 * locked exclusive, which keeps every other user of those pages out.
 */
ArtStatus
art_finger_insert(ArtFinger *f, const uint8_t *entry, size_t len)
{
	ArtTrie    *t = f->t;
	ArtStatus	st = ART_CORRUPT;
	int			attempt;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	for (attempt = 0; attempt < 100000; attempt++)
	{
		bool		retry;

		st = finger_attempt(f, entry, len, &retry);
		if (st != ART_OK || !retry)
			break;
		st = ART_CORRUPT;
	}
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/*
 * Delete an entry through a finger; as art_delete.  A delete may merge
 * nodes and free pages of the path, so the finger lets its path go first
 * and the next insert descends from the root.
 */
ArtStatus
art_finger_delete(ArtFinger *f, const uint8_t *entry, size_t len)
{
	finger_drop(f);
	return art_delete(f->t, entry, len);
}

/* Release the finger's pages and free it. */
void
art_finger_end(ArtFinger *f)
{
	ArtTrie    *t = f->t;

	finger_drop(f);
	art_free(t, f->path);
	art_buf_free(t, &f->last);
	art_free(t, f);
}
