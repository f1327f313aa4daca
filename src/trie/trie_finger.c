/*-------------------------------------------------------------------------
 *
 * trie_finger.c
 *	  A finger: inserts that keep the exclusively locked path of the last
 *	  one between calls.
 *
 * A finger (art_finger_*) applies a series of changes, best in entry
 * order, inside one write section (share mode) held from art_finger_begin
 * to art_finger_end, keeping the exclusively locked path of the last
 * insert between calls: the next insert goes back up only to the deepest
 * node of that path that its entry shares with the last one and descends
 * from there.  Unlike art_insert (trie_insert.c), it holds its whole path
 * exclusive, so it changes the node and bumps the counts of every node
 * above it in one pass.  Every node of the kept path stays where it was
 * through an insert (nodes never change slot; the changed node keeps its
 * slot and start), so the path stays valid; a split, a delete or a failure
 * drops it, and the next call descends from the root.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

typedef enum InsertOp
{
	OP_ADD_CHILD,				/* new child under the node */
	OP_SET_TERMINAL,			/* the entry ends at the node */
	OP_SPLIT_PREFIX,			/* the entry leaves the node's prefix */
	OP_FILL_ROOT				/* the trie is empty */
} InsertOp;

/*
 * A node on the path: the index of its page in the pin stack, its slot,
 * and the entry's depth (bytes) at the start of its prefix.
 */
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
 * One try at an insert through finger f.  Sets *retry when it split a
 * page and the insert must start over.  The pin stack and the path are
 * the finger's: the descent starts at the deepest node of the finger's
 * path that the entry shares with the last one (at the root when it holds
 * none), and the path is kept at the end (see finger_keep), or dropped on
 * a split or a failure.
 */
static ArtStatus
insert_attempt(ArtTrie *t, const uint8_t *key, size_t len, bool *retry,
			   ArtFinger *f)
{
	ArtPinStack *psp = &f->ps;
	PathNode   *path = f->path;
	int			npath = 0;
	int			pathcap = f->pathcap;
	ArtStatus	st;
	uint16_t	slot = ART_ROOT_SLOT;
	size_t		d = 0;
	size_t		dnode = 0;
	size_t		m = 0;
	uint8_t    *page;
	uint8_t    *rec;
	ArtNode		node;
	InsertOp	op;
	size_t		need;
	size_t		leafoff = 0;
	size_t		leaflen = 0;
	bool		has_leaf = false;
	bool		inline_leaf = true;
	ArtPageNo	lpage = ART_INVALID_PAGENO;
	uint16_t	lslot = 0;
	uint8_t		tmp1[ART_MAX_RECORD];
	uint8_t		tmp2[ART_MAX_RECORD];
	size_t		size1;
	size_t		size2;
	int			i;

	*retry = false;
	if (f->npath > 0)
	{
		size_t		c = common_len(f->last.data, f->last.len, key, len);
		int			k = f->npath - 1;

		/* path[0] is the root, at depth 0 */
		while (path[k].depth > c)
			k--;
		while (psp->n - 1 > path[k].pidx)
			art_pin_pop(t, psp);
		npath = k;
		slot = path[k].slot;
		d = path[k].depth;
		f->npath = 0;
		st = ART_OK;
	}
	else
	{
		st = art_pin_push(t, psp, t->root, ART_LOCK_EXCLUSIVE);
		if (st != ART_OK)
			goto out;
	}

	for (;;)
	{
		page = psp->refs[psp->n - 1].data;
		rec = art_rec(page, slot);
		if (art_is_stub(rec))
		{
			ArtPageNo	pg;

			art_stub_target(rec, &pg, &slot);
			st = art_pin_push(t, psp, pg, ART_LOCK_EXCLUSIVE);
			if (st != ART_OK)
				goto out;
			continue;
		}
		dnode = d;
		art_node_decode(rec, &node);
		if (npath == 0 && node.kind == ART_NODE_LEAF && !node.terminal &&
			len <= ART_MAX_PREFIX)
		{
			op = OP_FILL_ROOT;
			break;
		}
		m = common_len(key + d, len - d, node.prefix, node.plen);
		if (m < node.plen)
		{
			op = OP_SPLIT_PREFIX;
			if (d + m < len)
			{
				has_leaf = true;
				leafoff = d + m + 1;
			}
			break;
		}
		d += node.plen;
		if (d == len)
		{
			if (node.terminal)
			{
				st = ART_EXISTS;
				goto out;
			}
			op = OP_SET_TERMINAL;
			break;
		}
		{
			uint16_t	child = art_node_find(&node, key[d]);

			if (child == 0)
			{
				op = OP_ADD_CHILD;
				has_leaf = true;
				leafoff = d + 1;
				break;
			}
			st = art_grow(t, (void **) &path, &pathcap, npath + 1,
						  sizeof(PathNode));
			if (st != ART_OK)
				goto out;
			path[npath].pidx = psp->n - 1;
			path[npath].slot = slot;
			path[npath].depth = dnode;
			npath++;
			slot = child;
			d++;
		}
	}

	/*
	 * How many free bytes the change needs in this page: the new records
	 * (allocated while the old node is still there), plus what the node's
	 * own record grows by when it is rewritten.
	 */
	if (has_leaf)
	{
		leaflen = len - leafoff;
		inline_leaf = leaflen <= ART_MAX_PREFIX;
	}
	need = 0;
	if (has_leaf)
		need += (inline_leaf ? art_leaf_size(leaflen) : ART_STUB_SIZE) + 2;
	if (op == OP_FILL_ROOT)
		size1 = art_leaf_size(len);
	else if (op == OP_ADD_CHILD)
	{
		ArtNodeBuild b;

		art_build_from_node(&node, &b);
		art_build_add(&b, key[d], 0);
		size1 = art_build_size(&b);
	}
	else if (op == OP_SPLIT_PREFIX)
	{
		/* the shortened old node, then the new one (at most two children) */
		need += encode_tail(&node, m + 1, tmp1) + 2;
		size1 = 3 + 7 + m + 6;
	}
	else
		size1 = node.size;
	if (size1 > node.size)
		need += size1 - node.size;
	if (need > art_page_free(page))
	{
		st = art_split_page(t, &psp->refs[psp->n - 1],
							psp->n >= 2 ? &psp->refs[psp->n - 2] : NULL, need);
		if (st == ART_OK)
			*retry = true;
		goto out;
	}

	/* A long new path goes to fresh pages first; nothing changed yet. */
	if (has_leaf && !inline_leaf)
	{
		st = art_bulk_place_leaf(t, key + leafoff, leaflen, &lpage, &lslot);
		if (st != ART_OK)
			goto out;
	}

	/* From here on, no store call that can fail. */
	for (i = 0; i < npath; i++)
	{
		ArtNode		anc;

		art_node_decode(art_rec(psp->refs[path[i].pidx].data, path[i].slot),
						&anc);
		art_node_set_count(&anc, anc.count + 1);
	}
	if (has_leaf)
	{
		if (inline_leaf)
			size2 = art_leaf_encode(key + leafoff, leaflen, true, tmp2);
		else
		{
			art_stub_encode(lpage, lslot, tmp2);
			size2 = ART_STUB_SIZE;
		}
		lslot = (uint16_t) art_rec_alloc(page, tmp2, size2);
	}
	switch (op)
	{
		case OP_FILL_ROOT:
			size1 = art_leaf_encode(key, len, true, tmp1);
			art_rec_replace(page, slot, tmp1, size1);
			break;
		case OP_SET_TERMINAL:
			rec = art_rec(page, slot);
			rec[0] |= ART_FLAG_TERMINAL;
			if (node.kind != ART_NODE_LEAF)
			{
				art_node_decode(rec, &node);
				art_node_set_count(&node, node.count + 1);
			}
			break;
		case OP_ADD_CHILD:
			{
				ArtNodeBuild b;

				art_node_decode(art_rec(page, slot), &node);
				art_build_from_node(&node, &b);
				art_build_add(&b, key[d], lslot);
				b.count = node.count + 1;
				size1 = art_build_encode(&b, tmp1);
				art_rec_replace(page, slot, tmp1, size1);
			}
			break;
		case OP_SPLIT_PREFIX:
			{
				ArtNodeBuild b;
				uint16_t	oldslot;
				uint8_t		oldkey;

				art_node_decode(art_rec(page, slot), &node);
				oldkey = node.prefix[m];
				size1 = encode_tail(&node, m + 1, tmp1);
				oldslot = (uint16_t) art_rec_alloc(page, tmp1, size1);
				art_node_decode(art_rec(page, slot), &node);
				b.terminal = !has_leaf;
				b.plen = (uint32_t) m;
				b.prefix = node.prefix;
				b.count = node.count + 1;
				b.n = 0;
				art_build_add(&b, oldkey, oldslot);
				if (has_leaf)
					art_build_add(&b, key[leafoff - 1], lslot);
				size2 = art_build_encode(&b, tmp2);
				art_rec_replace(page, slot, tmp2, size2);
			}
			break;
	}
	art_page_set_version(psp->refs[0].data,
						 art_page_version(psp->refs[0].data) + 1);
	for (i = 0; i < psp->n; i++)
		t->store.ops->mark_dirty(t->store.store, &psp->refs[i]);

out:
	f->path = path;
	f->pathcap = pathcap;
	if ((st == ART_OK || st == ART_EXISTS) && !*retry)
		finger_keep(f, npath, slot, dnode, key, len);
	else
		finger_drop(f);
	return st;
}

/* Insert an entry through finger f. */
static ArtStatus
insert_entry(ArtTrie *t, const uint8_t *entry, size_t len, ArtFinger *f)
{
	int			attempt;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	for (attempt = 0; attempt < 100000; attempt++)
	{
		bool		retry;
		ArtStatus	st = insert_attempt(t, entry, len, &retry, f);

		if (st != ART_OK || !retry)
			return st;
	}
	return ART_CORRUPT;
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
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	return ART_OK;
}

/* Insert an entry through a finger; as art_insert. */
ArtStatus
art_finger_insert(ArtFinger *f, const uint8_t *entry, size_t len)
{
	return insert_entry(f->t, entry, len, f);
}

/*
 * Delete an entry through a finger; as art_delete.  A delete may merge
 * nodes and free pages of the path, so the finger lets its path go first
 * and the next insert descends from the root.
 */
ArtStatus
art_finger_delete(ArtFinger *f, const uint8_t *entry, size_t len)
{
	ArtTrie    *t = f->t;
	ArtStatus	st;

	finger_drop(f);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	st = art_delete(t, entry, len);
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	return st;
}

/* Release the finger's pages and free it. */
void
art_finger_end(ArtFinger *f)
{
	ArtTrie    *t = f->t;

	finger_drop(f);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	art_free(t, f->path);
	art_buf_free(t, &f->last);
	art_free(t, f);
}
