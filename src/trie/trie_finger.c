/*-------------------------------------------------------------------------
 *
 * trie_finger.c
 *	  A finger: inserts and deletes that keep the locked path of the last
 *	  one between calls.
 *
 * A finger (art_finger_*) applies a series of changes, best in entry
 * order, keeping the exclusively locked path of the last insert between
 * calls: the next insert goes back up only to the deepest node of that
 * path that its entry shares with the last one and descends from there.
 * Unlike art_insert (trie_insert.c), it holds its whole path exclusive, so
 * it changes the node and bumps the counts of every node above it in one
 * pass (an entry whose path runs through more than ART_MAX_LOCKED_PAGES
 * pages goes through art_insert instead); it plans and makes the change with art_insert's steps
 * (art_plan_node, art_change_need, art_change_apply).  The nodes the next
 * insert keeps on its path have their counts bumped in the finger, not in
 * their records, until they leave the path (the next entry diverges above
 * them), the path is dropped or a page splits, or a count needs wider
 * bytes: consecutive entries share the upper part of their paths, whose
 * records each insert would otherwise decode and write again; no reader
 * looks at them meanwhile (see below).  Every node of the
 * kept path stays where it was through an insert (nodes never change
 * slot; the changed node keeps its slot and start), so the path stays
 * valid; a split, a delete or a failure drops it, and the next call
 * descends from the root.  Deletes keep their own path between calls
 * (art_delete_keep, trie_delete.c: the root page share, the pages below
 * it exclusive, as art_delete_sorted keeps it), so that a run of deletes
 * in one page descends once; an insert or a merge lets it go first, and a
 * delete lets an insert's path go.  A packing finger (art_finger_pack) whose
 * insert follows the last one splits a full page with
 * art_split_page_before (trie_split.c), which moves what the ascending
 * run has passed instead of half the page.  The finger holds the trie's write section from
 * art_finger_begin to art_finger_end.  It takes no split lock (which
 * orders art_insert's splits against the paths other inserts keep pinned
 * between their two passes; readers never take it): its caller is the
 * only writer of the trie while it runs (WAL redo, src/wal/wal_redo.c).
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/*
 * Fewest bytes of holes for which a packing finger compacts a page rather
 * than split it (finger_splits_early).
 */
#define FINGER_COMPACT_LEAST 512

/*
 * A node on a finger's path: its page in the pin stack, the node there,
 * its start depth,
 * and its count: the record holds count - pending in cw bytes.  count and
 * cw are known for the nodes the descent went through (every node of a
 * path but its last, the one changed).
 */
typedef struct PathNode
{
	int			pidx;
	ArtChild	node;
	size_t		depth;
	uint64_t	count;
	uint64_t	pending;
	int			cw;
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
	bool		has_last;		/* last holds an entry (kept after a drop) */
	bool		pack;			/* art_finger_pack */
	ArtDelKeep *del;			/* the last delete's path, if held */
};

/*
 * Write the counts the finger has bumped for path[from .. to) into their
 * records, in place: the finger bumps a count itself only while its bytes
 * hold it (finger_attempt).  Their pages are held and marked dirty already.
 */
static void
finger_write_counts(ArtFinger *f, int from, int to)
{
	for (int i = from; i < to; i++)
	{
		PathNode   *pn = &f->path[i];
		ArtNode		node;

		if (pn->pending == 0)
			continue;
		art_node_decode(art_child_rec(f->ps.refs[pn->pidx].data, pn->node),
						&node);
		art_node_set_count(&node, node.count + pn->pending);
		pn->pending = 0;
	}
}

/*
 * Release the finger's path, its counts written first: the next call
 * descends from the root.
 */
static void
finger_drop(ArtFinger *f)
{
	finger_write_counts(f, 0, f->npath);
	art_pin_release_all(f->t, &f->ps);
	f->npath = 0;
}

/*
 * Keep the path of an insert that ended at the node at (in the top page of
 * the pin stack), at depth, in the finger; or drop it when memory
 * for it is short.  The finger already holds the pages and the path.  The
 * last node's count is not known: the next insert keeps only nodes above
 * it with their counts, and descends through it again.
 */
static void
finger_keep(ArtFinger *f, int npath, ArtChild at, size_t depth,
			const uint8_t *key, size_t len)
{
	if (art_grow(f->t, (void **) &f->path, &f->pathcap, npath + 1,
				 sizeof(PathNode)) != ART_OK ||
		art_buf_reserve(f->t, &f->last, len) != ART_OK)
	{
		f->npath = npath;
		finger_drop(f);
		f->has_last = false;
		return;
	}
	f->path[npath].pidx = f->ps.n - 1;
	f->path[npath].node = at;
	f->path[npath].depth = depth;
	f->path[npath].count = 0;
	f->path[npath].pending = 0;
	f->path[npath].cw = 0;
	f->npath = npath + 1;
	if (len)
		memcpy(f->last.data, key, len);
	f->last.len = len;
	f->has_last = true;
}

/*
 * Whether a split for the entry packs: the finger packs and the entry
 * comes after the last one it inserted (an ascending run, whose later
 * entries are greater too).
 */
static bool
finger_packs(const ArtFinger *f, const uint8_t *key, size_t len)
{
	size_t		c;

	if (!f->pack || !f->has_last)
		return false;
	c = art_common_len(f->last.data, f->last.len, key, len);
	return c < len && (c == f->last.len || key[c] > f->last.data[c]);
}

/*
 * Whether a packing finger splits the page an ascending run changes
 * although a compaction would make room for the change: the change does not
 * fit the room in one piece, and the page's holes (the record area's bytes
 * no record uses) are fewer than FINGER_COMPACT_LEAST.  Such a compaction
 * rewrites the whole page for the few inserts its holes make room for,
 * and the run fills the page again right after: at the end of each fill
 * of the page, compactions came one every few inserts.
 */
static bool
finger_splits_early(const ArtFinger *f, const uint8_t *page, size_t need,
					const uint8_t *key, size_t len)
{
	size_t		room = art_page_upper(page) -
		(ART_SLOTS_OFF + 2 * (size_t) art_page_nslots(page));
	size_t		holes = ART_PAGE_SIZE - art_page_upper(page) -
		art_page_used(page);

	return need > room && holes < FINGER_COMPACT_LEAST &&
		finger_packs(f, key, len);
}

/*
 * One try at an insert through a finger, in one pass: the finger holds
 * every page of its path exclusive, so the counts of the whole path change
 * with the entry.  The descent starts at the deepest node of the finger's
 * path that the entry shares with the last one; the path is kept at the
 * end (finger_keep), or dropped on a split or a failure.  Sets *retry when
 * it split a page and the insert must start over, and *deep (having
 * dropped the path, changing nothing) when the path runs through more
 * than ART_MAX_LOCKED_PAGES pages.
 */
static ArtStatus
finger_attempt(ArtFinger *f, const uint8_t *key, size_t len, bool *retry,
			   bool *deep)
{
	ArtTrie    *t = f->t;
	ArtPinStack *ps = &f->ps;
	int			npath = 0;
	ArtStatus	st = ART_OK;
	ArtChild	at;
	size_t		dnode = 0;
	uint8_t    *page;
	ArtNode		node;
	ArtInsertPlan p = {0};
	size_t		need;
	int			i;

	*retry = false;
	*deep = false;
	if (f->npath > 0)
	{
		size_t		c = art_common_len(f->last.data, f->last.len, key, len);
		int			k = f->npath - 1;

		/* path[0] is the root, at depth 0 */
		while (f->path[k].depth > c)
			k--;
		/* the descent decodes path[k] again: its count must be written */
		finger_write_counts(f, k, f->npath);
		while (ps->n - 1 > f->path[k].pidx)
			art_pin_pop(t, ps);
		npath = k;
		at = f->path[k].node;
		p.d = f->path[k].depth;
		f->npath = 0;
	}
	else
	{
		st = art_pin_push(t, ps, t->root, ART_LOCK_EXCLUSIVE);
		if (st != ART_OK)
			goto out;
		at = art_child_of_slot(ps->refs[0].data, ART_ROOT_SLOT);
	}

	for (;;)
	{
		uint8_t    *rec;
		ArtChild	child;

		page = ps->refs[ps->n - 1].data;
		rec = art_child_rec(page, at);
		if (art_is_stub(rec))
		{
			ArtPageNo	pg;
			uint16_t	slot;

			if (ps->n >= ART_MAX_LOCKED_PAGES)
			{
				*deep = true;
				f->npath = npath;
				finger_drop(f);
				return ART_OK;
			}
			art_stub_target(rec, &pg, &slot);
			st = art_pin_push(t, ps, pg, ART_LOCK_EXCLUSIVE);
			if (st != ART_OK)
				goto out;
			at = art_child_of_slot(ps->refs[ps->n - 1].data, slot);
			continue;
		}
		dnode = p.d;
		art_node_decode(rec, &node);
		if (art_plan_node(&node, ps->n == 1 && npath == 0, key,
						  len, &p, &child) != ART_OP_DESCEND)
			break;
		st = art_grow(t, (void **) &f->path, &f->pathcap, npath + 1,
					  sizeof(PathNode));
		if (st != ART_OK)
			goto out;
		f->path[npath].pidx = ps->n - 1;
		f->path[npath].node = at;
		f->path[npath].depth = dnode;
		f->path[npath].count = node.count;
		f->path[npath].pending = 0;
		f->path[npath].cw = node.cw;
		npath++;
		at = child;
	}
	if (p.op == ART_OP_EXISTS)
	{
		st = ART_EXISTS;
		goto out;
	}

	need = art_change_need(&node, len, &p);
	for (i = 0; i < npath; i++)
	{
		const PathNode *pn = &f->path[i];
		int			cw;

		/* the ancestors in other pages are wide: they grow in place */
		if (pn->pidx != ps->n - 1)
			continue;
		cw = art_count_width(pn->count + 1,
							 !p.inline_leaf || pn->cw == ART_COUNT_WIDE);
		if (cw > pn->cw)
			need += (size_t) (cw - pn->cw);
	}
	if (need > art_page_free(page) || finger_splits_early(f, page, need, key, len))
	{
		/* a split moves records: the counts go into them first */
		finger_write_counts(f, 0, npath);
		st = finger_packs(f, key, len) ?
			art_split_page_before(t, ps, need, art_child_slot(page, at)) :
			art_split_page(t, ps, need);
		if (st == ART_OK)
			*retry = true;
		goto out;
	}
	st = art_change_place_tail(t, key, len, &p);
	if (st != ART_OK)
		goto out;

	/*
	 * From here on, no store call that can fail.  A count that its bytes
	 * hold is bumped in the finger (finger_write_counts writes it later);
	 * one that needs wider bytes, or a node that becomes wide, has its
	 * record written again now with what the finger held back.
	 */
	for (i = 0; i < npath; i++)
	{
		PathNode   *pn = &f->path[i];
		bool		wide = !p.inline_leaf && pn->pidx == ps->n - 1;
		int			cw;

		pn->count++;
		cw = art_count_width(pn->count, wide || pn->cw == ART_COUNT_WIDE);
		if (cw > pn->cw)
		{
			art_node_count_add(ps->refs[pn->pidx].data, pn->node,
							   (int64_t) pn->pending + 1, wide);
			pn->pending = 0;
			pn->cw = cw;
		}
		else
			pn->pending++;
	}
	art_change_apply(page, at, key, len, &p);
	art_change_count_group(t, art_root_counts_groups(ps->refs[0].data),
						   key, len, &p);
	t->store.ops->version(t->store.store, true);
	for (i = 0; i < ps->n; i++)
		t->store.ops->mark_dirty(t->store.store, &ps->refs[i]);

out:
	if ((st == ART_OK || st == ART_EXISTS) && !*retry)
		finger_keep(f, npath, at, dnode, key, len);
	else
	{
		/* path[0 .. npath) is still held, with counts to write */
		f->npath = npath;
		finger_drop(f);
	}
	return st;
}

/*
 * Start a finger on trie t; it holds no page yet.  It holds the trie's
 * write section (share) until art_finger_end: taken before any page the
 * finger keeps, as every writer takes it, never while holding one.
 */
ArtStatus
art_finger_begin(ArtTrie *t, ArtFinger **finger)
{
	ArtFinger  *f = art_alloc(t, sizeof(ArtFinger));

	*finger = NULL;
	if (f == NULL)
		return ART_NO_MEMORY;
	memset(f, 0, sizeof(ArtFinger));
	f->t = t;
	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	*finger = f;
	return ART_OK;
}

/*
 * Insert an entry through a finger; as art_insert.  An entry whose path
 * runs through more pages than the finger may hold locked is inserted by
 * art_insert, whose write section nests in the finger's.
 */
ArtStatus
art_finger_insert(ArtFinger *f, const uint8_t *entry, size_t len)
{
	ArtStatus	st = ART_CORRUPT;
	int			attempt;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	art_delete_keep_drop(f->t, f->del);
	for (attempt = 0; attempt < 100000; attempt++)
	{
		bool		retry;
		bool		deep;

		st = finger_attempt(f, entry, len, &retry, &deep);
		if (deep)
		{
			f->has_last = false;
			return art_insert(f->t, entry, len);
		}
		if (st != ART_OK || !retry)
			break;
		st = ART_CORRUPT;
	}
	return st;
}

/*
 * Delete an entry through a finger; as art_delete and then art_merge
 * (art_finger_delete_only, art_finger_merge).  The merge is best effort:
 * one that fails changes nothing, and the delete's status is returned.
 */
ArtStatus
art_finger_delete(ArtFinger *f, const uint8_t *entry, size_t len)
{
	ArtStatus	st = art_finger_delete_only(f, entry, len);

	if (st == ART_OK)
		(void) art_finger_merge(f, entry, len, ART_MERGE_ANY);
	return st;
}

/*
 * Delete an entry through a finger without a merge after it; as
 * art_delete.  The finger lets an insert's path go, and keeps the
 * delete's path instead (art_delete_keep): the next delete goes on
 * through the pages the two paths share, as art_delete_sorted's do.
 */
ArtStatus
art_finger_delete_only(ArtFinger *f, const uint8_t *entry, size_t len)
{
	finger_drop(f);
	return art_delete_keep(f->t, &f->del, entry, len);
}

/*
 * Merge at an entry through a finger, with the step the merge's writer
 * told; as art_merge_step, whose write section nests in the finger's,
 * after the finger lets its paths go: a merge may move records and free
 * pages of them.
 */
ArtStatus
art_finger_merge(ArtFinger *f, const uint8_t *entry, size_t len,
				 ArtMergeStep step)
{
	finger_drop(f);
	art_delete_keep_drop(f->t, f->del);
	return art_merge_step(f->t, entry, len, step);
}

/* Set whether the finger packs pages (trie.h). */
void
art_finger_pack(ArtFinger *f, bool pack)
{
	f->pack = pack;
}

/* Release the finger's pages and free it. */
void
art_finger_end(ArtFinger *f)
{
	ArtTrie    *t = f->t;

	finger_drop(f);
	art_delete_keep_free(t, f->del);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	art_free(t, f->path);
	art_buf_free(t, &f->last);
	art_free(t, f);
}
