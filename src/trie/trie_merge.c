/*-------------------------------------------------------------------------
 *
 * trie_merge.c
 *	  Merging an underfull page into its parent page or a sibling page.
 *
 * Random inserts split full pages in halves and deletes empty them, so a
 * trie under churn drifts to part-empty pages.  After a delete, art_merge
 * looks at the last page on the deleted entry's path; if that page is
 * underfull (below MERGE_LOW), it moves the page's whole content into its
 * parent page, or into another page hanging from that parent page, when
 * the result stays at or below MERGE_HIGH, and frees the emptied page.
 * The gap between MERGE_HIGH and a full page is the hysteresis: a merged
 * page has room before it splits again.  MERGE_LOW lies above a split's
 * halves (random inserts alone leave pages about 69% full, as in a
 * B-tree), so a page that deletes empty goes as soon as the pages around
 * it have the room: most tries then fail, and each costs the pins and
 * decoding of a few sibling pages under the split section.  An underfull
 * page that
 * holds stubs (such a page never moves) takes in one of its child pages
 * instead, with the same bound: deletes in key order, as VACUUM's are,
 * often empty a page above only after its child pages' last deletes.  An
 * underfull page holding no stub that no single page takes whole spills:
 * its page roots spread over the pages near it in key order (those that
 * the stubs of the parent page up to SPILL_REACH runs of stubs away on
 * either side of its own lead to), each staying at or below MERGE_HIGH,
 * so the room that random inserts leave in the halves of splits is used
 * again.  When it cannot (its neighbours lack the room for its subtrees
 * as they lie), the page and the pages near it holding no stub (up to
 * REPACK_REACH runs of stubs away) are repacked: all their page roots
 * packed first-fit, largest first, into fewer pages at or below
 * REPACK_HIGH, as a bulk load packs subtrees, and the pages left over
 * freed.  Whole page roots of a few kilobytes fill pages only in threes
 * and twos, and which three fit together depends on all their sizes, not
 * on one page's.
 *
 * A try that changes nothing notes the bytes the page must lose before
 * any of its moves could fit; the deletes that follow in the same page
 * (VACUUM and redo delete in key order) pass it over until it has lost
 * them, as long as nothing else changed the trie meanwhile.
 *
 * Only pages whose every page root is referenced from the parent page
 * take part (a page may have several parent pages).  Then neither page is
 * reachable from the other, so moving one's nodes into the other keeps
 * the graph of pages acyclic and each page convex; the moved page roots
 * get their stubs in the parent page repointed (or, moved into the parent
 * page, take their stubs' slots).  A merge keeps the trie's content, and
 * the counts move with the nodes.  The page a merge frees holds no stubs:
 * moving a page of stubs whole gained at most a page in a model of churn,
 * and spreading its stubs over several pages gives the pages below two
 * parent pages, which merges pass over (bench/README.md, "Size under
 * writes").  A merge moves the store's content version, so the checks of
 * verify and statistics across their steps do not count a merge between
 * them.
 *
 * Locks: the write section (share), then the split section exclusive, so
 * no insert is between its passes (its second pass relies on no node
 * moving into a parent page and on the pages it kept pinned); then, with
 * exclusive lock coupling from the root, the parent page and the page,
 * then, one at a time, child pages of the page (below it) or siblings
 * (child pages of the parent page, reachable from neither of the two, so
 * no cycle of waits can form); a spill keeps up to SPILL_TRIES siblings
 * that take part pinned at once, a repack up to REPACK_PAGES - 1 (each
 * reachable only through the parent page, which it holds).  Everything
 * is pinned before anything changes.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "trie_internal.h"

/* Bytes of a page in use: records and slots. */
#define PAGE_LOAD(p)	(ART_PAGE_USABLE - art_page_free(p))

/* A page loaded below this is underfull. */
#define MERGE_LOW		(ART_PAGE_USABLE * 7 / 10)
/* A merge leaves no page loaded above this. */
#define MERGE_HIGH		(ART_PAGE_USABLE * 9 / 10)
/* Sibling pages a merge looks at, at most. */
#define MERGE_TRIES		4
/* Sibling pages a spill spreads a page over, at most. */
#define SPILL_TRIES		8
/* How far in key order (runs of stubs) a spill looks on either side. */
#define SPILL_REACH		2
/* How far in key order (runs of stubs) a repack looks on either side. */
#define REPACK_REACH	8
/* Pages a repack lays out again, at most: a page and its neighbours. */
#define REPACK_PAGES	(2 * REPACK_REACH + 1)
/* A repack leaves no page loaded above this. */
#define REPACK_HIGH		MERGE_HIGH

#define MAX_SLOTS	(ART_PAGE_USABLE / 2 + 1)

/* What a try needs the page to lose first: nothing to gain by losing. */
#define LACK_NONE		SIZE_MAX

/* A page's records and how its page roots hang from the parent page. */
typedef struct MergeState
{
	uint16_t	stub[MAX_SLOTS];	/* page root -> its stub in the parent
									 * page; 0: none there */
	uint16_t	up[MAX_SLOTS];		/* the record's parent in its page; 0: a
									 * page root */
	uint16_t	map[MAX_SLOTS];		/* old slot -> slot in the target page */
	uint8_t		dest[MAX_SLOTS];	/* spill: the target of the record's page
									 * root */
	uint16_t	root[MAX_SLOTS];	/* spill: the record's page root */
	uint32_t	size[MAX_SLOTS];	/* spill: bytes of a page root's subtree */
	uint16_t	order[MAX_SLOTS];	/* spill: page roots, largest first */
	size_t		bytes;			/* records and their slots */
	bool		stubs;			/* the page holds stubs */
} MergeState;

/* The last two pages of a descent: the page and its parent page. */
typedef struct MergePath
{
	ArtPageRef	refs[2];
	int			n;
} MergePath;

/*
 * The last page this process's merges tried and left as it was, and the
 * bytes it must lose before a try could change anything.  VACUUM and redo
 * delete in key order, so the deletes that follow mostly end in the same
 * page, and trying it at each of them (its neighbours pinned and analysed
 * anew) cost most of a delete: in a model of VACUUM deleting half of
 * 200,000 entries, 99% of the tries changed nothing and took 95% of the
 * merges' CPU.  The page is passed over only while nothing but its own
 * deletes changed the trie since (the content version moved by one a
 * delete, each ending in this page); merges are best effort, so a page
 * passed over only merges later.
 */
static struct
{
	const void *store;
	ArtPageNo	page;
	size_t		bytes;			/* its records and their slots then */
	size_t		lack;			/* bytes it must lose first */
	int			stubs;			/* the stubs it held */
	uint64_t	version;		/* the content version expected now */
}			merge_left;

/*
 * The bytes of page's records and their slots (what a merge moves; a
 * delete takes a slot off them, not off the page's load), and its stubs
 * (a delete that emptied a child page of page, freed then, ends its path
 * in page and takes a stub away).
 */
static size_t
page_census(uint8_t *page, int *stubs)
{
	int			nslots = art_page_nslots(page);
	size_t		bytes = 0;

	*stubs = 0;
	for (int s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;

		if (art_slot_off(page, s) == 0)
			continue;
		rec = art_rec(page, s);
		bytes += art_rec_size(rec) + 2;
		if (art_is_stub(rec))
			(*stubs)++;
	}
	return bytes;
}

/*
 * Note in *lack that a try needs sum <= bound, where sum falls by the
 * bytes the page loses: what it must lose first (0 when the bound holds
 * already and the try failed for another reason).
 */
static void
note_lack(size_t *lack, size_t sum, size_t bound)
{
	size_t		l = sum > bound ? sum - bound : 0;

	if (l < *lack)
		*lack = l;
}

/* Release the pages of a path. */
static void
path_release(ArtTrie *t, MergePath *mp)
{
	while (mp->n > 0)
		t->store.ops->release(t->store.store, &mp->refs[--mp->n]);
}

/*
 * Descend along key from the root, coupling locks in mode, to the last
 * page its path reaches; leaves that page and its parent page on the path
 * (none for the root page) locked.
 */
static ArtStatus
descend(ArtTrie *t, const uint8_t *key, size_t len, ArtLockMode mode,
		MergePath *mp)
{
	ArtStatus	st;
	ArtChild	at;
	size_t		d = 0;

	st = t->store.ops->pin(t->store.store, t->root, mode, &mp->refs[0]);
	if (st != ART_OK)
		return st;
	mp->n = 1;
	at = art_child_of_slot(mp->refs[0].data, ART_ROOT_SLOT);
	for (;;)
	{
		uint8_t    *page = mp->refs[mp->n - 1].data;
		uint8_t    *rec = art_child_rec(page, at);
		ArtNode		node;

		if (art_is_stub(rec))
		{
			ArtPageNo	pg;
			ArtPageRef	next;
			uint16_t	slot;

			art_stub_target(rec, &pg, &slot);
			st = t->store.ops->pin(t->store.store, pg, mode, &next);
			if (st != ART_OK)
				return st;
			if (mp->n == 2)
			{
				t->store.ops->release(t->store.store, &mp->refs[0]);
				mp->refs[0] = mp->refs[1];
				mp->n = 1;
			}
			mp->refs[mp->n++] = next;
			at = art_child_of_slot(next.data, slot);
			continue;
		}
		art_node_decode(rec, &node);
		if (len - d < node.plen ||
			memcmp(key + d, node.prefix, node.plen) != 0)
			return ART_OK;
		d += node.plen;
		if (d == len)
			return ART_OK;
		at = art_node_find(&node, key[d]);
		if (art_child_none(at))
			return ART_OK;
		d++;
	}
}

/*
 * Analyse a child page of parent: which records are page roots, the stub
 * of each in parent, the bytes to move.  Returns whether every page root
 * is referenced from parent.
 */
static bool
analyse(const ArtPageRef *parent, const ArtPageRef *child, MergeState *ms)
{
	uint8_t    *page = child->data;
	int			nslots = art_page_nslots(page);
	int			np = art_page_nslots(parent->data);

	memset(ms->stub, 0, sizeof(uint16_t) * (nslots + 1));
	memset(ms->up, 0, sizeof(uint16_t) * (nslots + 1));
	ms->bytes = 0;
	ms->stubs = false;
	for (int s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	c;

		if (art_slot_off(page, s) == 0)
			continue;
		rec = art_rec(page, s);
		ms->bytes += art_rec_size(rec) + 2;
		if (art_is_stub(rec))
		{
			ms->stubs = true;
			continue;
		}
		art_node_decode(rec, &node);
		while (art_node_next(&node, key, &k, &c))
		{
			if (art_child_slot(page, c) <= nslots)
				ms->up[art_child_slot(page, c)] = (uint16_t) s;
			key = k;
		}
	}
	for (int s = 1; s <= np; s++)
	{
		uint8_t    *rec;
		ArtPageNo	pg;
		uint16_t	sl;

		if (art_slot_off(parent->data, s) == 0)
			continue;
		rec = art_rec(parent->data, s);
		if (!art_is_stub(rec))
			continue;
		art_stub_target(rec, &pg, &sl);
		if (pg == child->pageno && sl >= 1 && sl <= nslots)
			ms->stub[sl] = (uint16_t) s;
	}
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page, s) != 0 && ms->up[s] == 0 && ms->stub[s] == 0)
			return false;
	return true;
}

/* Whether move_records moves the record in slot s of page. */
static inline bool
moves(uint8_t *page, const MergeState *ms, int s, int which)
{
	return art_slot_off(page, s) != 0 && (which < 0 || ms->dest[s] == which);
}

/*
 * Move the records of src into dst, every one (which < 0) or those of the
 * page roots spill gave dst's number which, src's page roots replacing
 * their stubs in parent (dst is parent) or having them repointed to dst.
 * The caller checked the room; cannot fail.
 */
static void
move_records(uint8_t *parent, ArtPageRef *src, ArtPageRef *dst,
			 bool into_parent, MergeState *ms, int which)
{
	uint8_t    *page = src->data;
	int			nslots = art_page_nslots(page);
	uint8_t		tmp[ART_MAX_RECORD];

	for (int s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;
		size_t		size;

		if (!moves(page, ms, s, which))
			continue;
		rec = art_rec(page, s);
		size = art_rec_size(rec);
		memcpy(tmp, rec, size);
		if (into_parent && ms->up[s] == 0)
		{
			art_rec_replace(dst->data, ms->stub[s], tmp, size);
			ms->map[s] = ms->stub[s];
		}
		else
			ms->map[s] = (uint16_t) art_rec_alloc(dst->data, tmp, size);
	}
	for (int s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	c;

		if (!moves(page, ms, s, which))
			continue;
		rec = art_rec(dst->data, ms->map[s]);
		if (art_is_stub(rec))
			continue;
		art_node_decode(rec, &node);
		while (art_node_next(&node, key, &k, &c))
		{
			art_node_set_child(&node, k,
							   art_child_of_slot(dst->data,
												 ms->map[art_child_slot(page, c)]));
			key = k;
		}
	}
	if (!into_parent)
	{
		for (int s = 1; s <= nslots; s++)
		{
			uint8_t		stub[ART_STUB_SIZE];

			if (!moves(page, ms, s, which) || ms->up[s] != 0)
				continue;
			art_stub_encode(dst->pageno, ms->map[s], stub);
			art_rec_replace(parent, ms->stub[s], stub, ART_STUB_SIZE);
		}
	}
}

/*
 * The first MERGE_TRIES pages, other than skip, that stubs of page lead
 * to, in slot order, into pages; returns how many.
 */
static int
child_pages(uint8_t *page, ArtPageNo skip, ArtPageNo *pages)
{
	int			np = art_page_nslots(page);
	int			n = 0;

	for (int s = 1; s <= np && n < MERGE_TRIES; s++)
	{
		ArtPageNo	pg;
		uint16_t	sl;
		bool		seen = false;

		if (art_slot_off(page, s) == 0 || !art_is_stub(art_rec(page, s)))
			continue;
		art_stub_target(art_rec(page, s), &pg, &sl);
		for (int i = 0; i < n; i++)
			seen |= pages[i] == pg;
		if (pg != skip && !seen)
			pages[n++] = pg;
	}
	return n;
}

/*
 * Move a child page of page (one of the first MERGE_TRIES its stubs lead
 * to, holding no stub, every page root referenced from page) whole into
 * page, when page stays at or below MERGE_HIGH; *done says whether one
 * moved.  Pins each child exclusive in turn (below page, so in lock
 * order).
 */
static ArtStatus
pull_child(ArtTrie *t, ArtPageRef *page, MergeState *cs, bool *done,
		   size_t *lack)
{
	ArtPageNo	pages[MERGE_TRIES];
	int			n = child_pages(page->data, ART_INVALID_PAGENO, pages);

	*done = false;
	for (int i = 0; i < n; i++)
	{
		ArtPageRef	c;
		ArtStatus	st;
		bool		whole;

		st = t->store.ops->pin(t->store.store, pages[i], ART_LOCK_EXCLUSIVE,
							   &c);
		if (st != ART_OK)
			return st;
		whole = analyse(page, &c, cs) && !cs->stubs;
		if (!whole || PAGE_LOAD(page->data) + cs->bytes > MERGE_HIGH)
		{
			if (whole)
				note_lack(lack, PAGE_LOAD(page->data) + cs->bytes, MERGE_HIGH);
			t->store.ops->release(t->store.store, &c);
			continue;
		}
		move_records(page->data, &c, page, true, cs, -1);
		t->store.ops->mark_dirty(t->store.store, page);
		t->store.ops->free(t->store.store, &c);
		t->store.ops->version(t->store.store, true);
		*done = true;
		return ART_OK;
	}
	return ART_OK;
}

/* Scratch for neighbour_pages: the parent page's records in key order. */
typedef struct KeyWalk
{
	uint8_t		inner[MAX_SLOTS];	/* the record has a parent in its page */
	uint16_t	stack[MAX_SLOTS];
	ArtPageNo	seq[MAX_SLOTS];		/* the pages the stubs lead to, in key
									 * order, a run into one page once */
} KeyWalk;

/* Add pg to pages (at most most, no repeats); returns the count. */
static int
add_page(ArtPageNo *pages, int n, ArtPageNo pg, int most)
{
	for (int i = 0; i < n; i++)
		if (pages[i] == pg)
			return n;
	if (n < most)
		pages[n++] = pg;
	return n;
}

/*
 * The pages, other than skip, that the stubs of parent lead to, nearest
 * to skip's stubs in key order first (walking each tree of parent in key
 * order, a run of stubs into one page counting once), at most reach
 * runs away on either side and most in all, into pages; returns how
 * many.  Spilling into them keeps each page close to a
 * range of neighbouring keys, as a btree's leaves are: subtrees from all
 * over the parent page gathered in one page would give it two parent
 * pages once the parent page splits, and merges pass over such pages.
 */
static int
neighbour_pages(uint8_t *parent, ArtPageNo skip, int reach, int most,
				KeyWalk *kw, ArtPageNo *pages)
{
	int			np = art_page_nslots(parent);
	int			n = 0;
	int			sp = 0;
	int			nseq = 0;

	memset(kw->inner, 0, np + 1);
	for (int s = 1; s <= np; s++)
	{
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	c;

		if (art_slot_off(parent, s) == 0 || art_is_stub(art_rec(parent, s)))
			continue;
		art_node_decode(art_rec(parent, s), &node);
		while (art_node_next(&node, key, &k, &c))
		{
			kw->inner[art_child_slot(parent, c)] = 1;
			key = k;
		}
	}
	for (int s = np; s >= 1; s--)
		if (art_slot_off(parent, s) != 0 && !kw->inner[s])
			kw->stack[sp++] = (uint16_t) s;
	while (sp > 0)
	{
		uint8_t    *rec = art_rec(parent, kw->stack[--sp]);
		ArtNode		node;
		int			key = 256;
		uint8_t		k;
		ArtChild	c;
		ArtPageNo	pg;
		uint16_t	sl;

		if (art_is_stub(rec))
		{
			art_stub_target(rec, &pg, &sl);
			if (nseq == 0 || kw->seq[nseq - 1] != pg)
				kw->seq[nseq++] = pg;
			continue;
		}
		art_node_decode(rec, &node);
		while (art_node_prev(&node, key, &k, &c))
		{
			kw->stack[sp++] = art_child_slot(parent, c);
			key = k;
		}
	}
	for (int d = 1; d <= reach && n < most; d++)
		for (int i = 0; i < nseq; i++)
		{
			if (kw->seq[i] != skip)
				continue;
			if (i - d >= 0 && kw->seq[i - d] != skip)
				n = add_page(pages, n, kw->seq[i - d], most);
			if (i + d < nseq && kw->seq[i + d] != skip)
				n = add_page(pages, n, kw->seq[i + d], most);
		}
	return n;
}

/* The page root of the record in slot s (memoized in ms->root). */
static uint16_t
root_of(MergeState *ms, uint16_t s)
{
	uint16_t	r = s;

	while (ms->up[r] != 0 && ms->root[r] == 0)
		r = ms->up[r];
	if (ms->root[r] != 0)
		r = ms->root[r];
	while (s != r && ms->root[s] == 0)
	{
		ms->root[s] = r;
		s = ms->up[s];
	}
	return r;
}

/*
 * The bytes (records and their slots) of the subtree of each page root of
 * page, which analyse has just read into ms, into ms->size.
 */
static void
subtree_sizes(uint8_t *page, MergeState *ms)
{
	int			nslots = art_page_nslots(page);

	memset(ms->root, 0, sizeof(uint16_t) * (nslots + 1));
	memset(ms->size, 0, sizeof(uint32_t) * (nslots + 1));
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page, s) != 0)
			ms->size[root_of(ms, (uint16_t) s)] +=
				art_rec_size(art_rec(page, s)) + 2;
}

/*
 * Pin exclusive, one at a time, the pages near page in key order under
 * parent (neighbour_pages: for a spill SPILL_REACH runs of stubs away,
 * for a repack REPACK_REACH), appending to q from q[*nq] on those whose
 * every page root is referenced from parent and that a spill can fill
 * (loaded below MERGE_HIGH) or a repack can move (holding no stub); the
 * others are released again.  Each is below parent and reachable only
 * through it, so no cycle of waits.  ms is scratch.
 */
static ArtStatus
pin_neighbours(ArtTrie *t, ArtPageRef *parent, ArtPageRef *page,
			   MergeState *ms, bool repacking, ArtPageRef *q, int *nq)
{
	ArtPageNo	sibs[REPACK_PAGES];
	int			nsib;
	KeyWalk    *kw = art_alloc(t, sizeof(KeyWalk));

	if (kw == NULL)
		return ART_NO_MEMORY;
	if (repacking)
		nsib = neighbour_pages(parent->data, page->pageno, REPACK_REACH,
							   REPACK_PAGES - 1, kw, sibs);
	else
		nsib = neighbour_pages(parent->data, page->pageno, SPILL_REACH,
							   SPILL_TRIES, kw, sibs);
	art_free(t, kw);
	for (int i = 0; i < nsib; i++)
	{
		ArtStatus	st = t->store.ops->pin(t->store.store, sibs[i],
										   ART_LOCK_EXCLUSIVE, &q[*nq]);

		if (st != ART_OK)
			return st;
		if (!analyse(parent, &q[*nq], ms) ||
			(repacking ? ms->stubs : PAGE_LOAD(q[*nq].data) >= MERGE_HIGH))
		{
			t->store.ops->release(t->store.store, &q[*nq]);
			continue;
		}
		(*nq)++;
	}
	return ART_OK;
}

/*
 * Spread the page roots of page, which holds no stub, over up to
 * SPILL_TRIES sibling pages (child pages of parent whose every page root
 * is referenced from it), each staying at or below MERGE_HIGH: largest
 * subtree first, each into the sibling with the least room that takes it;
 * then free the page.  *done says whether it did.  The siblings that can
 * take part stay pinned exclusive until the end (each below parent and
 * reachable only through it, so no cycle of waits), and nothing changes
 * unless every subtree has its place.
 */
static ArtStatus
spill(ArtTrie *t, ArtPageRef *parent, ArtPageRef *page, MergeState *ms,
	  MergeState *qs, bool *done, size_t *lack)
{
	ArtPageRef	q[SPILL_TRIES];
	size_t		room[SPILL_TRIES];
	size_t		total = 0;
	size_t		most = 0;
	size_t		need;
	int			nq = 0;
	int			nslots = art_page_nslots(page->data);
	int			nroots = 0;
	ArtStatus	st;

	*done = false;
	st = pin_neighbours(t, parent, page, qs, false, q, &nq);
	if (st != ART_OK)
		goto out;
	for (int j = 0; j < nq; j++)
	{
		room[j] = MERGE_HIGH - PAGE_LOAD(q[j].data);
		total += room[j];
		if (room[j] > most)
			most = room[j];
	}
	if (nq == 0)
		goto out;

	/* the bytes of each page root's subtree, largest first */
	subtree_sizes(page->data, ms);
	for (int s = 1; s <= nslots; s++)
	{
		int			j;

		if (art_slot_off(page->data, s) == 0 || ms->up[s] != 0)
			continue;
		j = nroots++;
		while (j > 0 && ms->size[ms->order[j - 1]] < ms->size[s])
		{
			ms->order[j] = ms->order[j - 1];
			j--;
		}
		ms->order[j] = (uint16_t) s;
	}
	/* it needs room for all, and the largest subtree a page with room */
	need = ms->bytes > total ? ms->bytes - total : 0;
	if (nroots > 0 && ms->size[ms->order[0]] > most + need)
		need = ms->size[ms->order[0]] - most;
	if (need < *lack)
		*lack = need;
	if (need > 0)
		goto out;
	for (int i = 0; i < nroots; i++)
	{
		uint16_t	r = ms->order[i];
		int			best = -1;

		for (int j = 0; j < nq; j++)
			if (room[j] >= ms->size[r] && (best < 0 || room[j] < room[best]))
				best = j;
		if (best < 0)
			goto out;
		ms->dest[r] = (uint8_t) best;
		room[best] -= ms->size[r];
	}
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page->data, s) != 0)
			ms->dest[s] = ms->dest[root_of(ms, (uint16_t) s)];

	/* nothing below can fail */
	for (int j = 0; j < nq; j++)
	{
		move_records(parent->data, page, &q[j], false, ms, j);
		t->store.ops->mark_dirty(t->store.store, &q[j]);
	}
	t->store.ops->mark_dirty(t->store.store, parent);
	t->store.ops->free(t->store.store, page);
	t->store.ops->version(t->store.store, true);
	*done = true;
out:
	while (nq > 0)
		t->store.ops->release(t->store.store, &q[--nq]);
	return st;
}

/* A page root that repack lays out again. */
typedef struct RepackItem
{
	uint32_t	size;			/* bytes of its subtree, slots included */
	uint16_t	slot;			/* its slot in its page */
	uint8_t		from;			/* its page: an index into the group */
	uint8_t		bin;			/* the page it goes to: a bin */
} RepackItem;

/* Order RepackItems largest first, then by page and slot. */
static int
item_desc(const void *a, const void *b)
{
	const RepackItem *x = a;
	const RepackItem *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot ? 1 : 0;
}

/*
 * The page roots of the nq pages of q (q[0] the underfull page) into
 * *items, with their sizes, largest first; returns how many, or -1 when
 * out of memory.
 */
static int
repack_items(ArtTrie *t, ArtPageRef *parent, ArtPageRef *q, int nq,
			 MergeState *ms, RepackItem **items)
{
	int			n = 0;
	int			cap = 0;

	*items = NULL;
	for (int g = 0; g < nq; g++)
	{
		int			nslots = art_page_nslots(q[g].data);

		analyse(parent, &q[g], ms);
		subtree_sizes(q[g].data, ms);
		for (int s = 1; s <= nslots; s++)
		{
			if (art_slot_off(q[g].data, s) == 0 || ms->up[s] != 0)
				continue;
			if (art_grow(t, (void **) items, &cap, n + 1,
						 sizeof(RepackItem)) != ART_OK)
				return -1;
			(*items)[n].size = ms->size[s];
			(*items)[n].slot = (uint16_t) s;
			(*items)[n].from = (uint8_t) g;
			(*items)[n].bin = 0;
			n++;
		}
	}
	if (n > 1)
		qsort(*items, n, sizeof(RepackItem), item_desc);
	return n;
}

/*
 * Pack the items first-fit into bins of at most REPACK_HIGH bytes, as a
 * bulk load packs subtrees into pages; returns the number of bins, or -1
 * if that takes more than most.
 */
static int
repack_bins(RepackItem *items, int nitems, int most)
{
	size_t		load[REPACK_PAGES];
	int			nbins = 0;

	for (int i = 0; i < nitems; i++)
	{
		int			k = 0;

		while (k < nbins && load[k] + items[i].size > REPACK_HIGH)
			k++;
		if (k == nbins)
		{
			if (nbins == most)
				return -1;
			load[nbins++] = 0;
		}
		load[k] += items[i].size;
		items[i].bin = (uint8_t) k;
	}
	return nbins;
}

/*
 * Lay the page roots of page (which holds no stub) and of the pages near
 * it in key order out again into fewer pages: the pages neighbour_pages
 * gives that hold no stub and have every page root referenced from
 * parent, packed first-fit, largest subtree first, each page at most
 * REPACK_HIGH, as a bulk load packs whole subtrees.  A spill moves one
 * page's subtrees into the room its neighbours have; this also moves
 * theirs, so three page roots that fit one page end in one page wherever
 * they were.  Each new page goes to the page that held most of its bytes,
 * and the pages left over are freed.  *done says whether page was freed.
 * The pages are pinned exclusive until the end (each below parent and
 * reachable only through it), and nothing changes unless the group packs
 * into fewer pages and the memory for the copies is there.
 */
static ArtStatus
repack(ArtTrie *t, ArtPageRef *parent, ArtPageRef *page, MergeState *ms,
	   bool *done, size_t *lack)
{
	ArtPageRef	q[REPACK_PAGES];
	int			owner[REPACK_PAGES];	/* bin -> the index of its page */
	bool		kept[REPACK_PAGES];
	RepackItem *items = NULL;
	uint8_t    *copy = NULL;
	int			nq = 1;
	int			nitems;
	int			nbins;
	ArtStatus	st;

	*done = false;
	q[0] = *page;
	st = pin_neighbours(t, parent, page, ms, true, q, &nq);
	if (st != ART_OK || nq < 2)
		goto out;
	nitems = repack_items(t, parent, q, nq, ms, &items);
	if (nitems < 0)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	nbins = repack_bins(items, nitems, nq - 1);
	if (nbins < 0)
	{
		size_t		sum = 0;

		for (int i = 0; i < nitems; i++)
			sum += items[i].size;
		note_lack(lack, sum, (size_t) (nq - 1) * REPACK_HIGH);
		goto out;
	}

	/* each bin to the page that holds most of its bytes */
	memset(kept, 0, sizeof(kept));
	for (int k = 0; k < nbins; k++)
	{
		size_t		from[REPACK_PAGES] = {0};

		owner[k] = -1;
		for (int i = 0; i < nitems; i++)
			if (items[i].bin == k)
				from[items[i].from] += items[i].size;
		for (int g = 0; g < nq; g++)
			if (!kept[g] && (owner[k] < 0 || from[g] > from[owner[k]]))
				owner[k] = g;
		kept[owner[k]] = true;
	}
	copy = art_alloc(t, (size_t) (nq + 1) * ART_PAGE_SIZE);
	if (copy == NULL)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	memcpy(copy + (size_t) nq * ART_PAGE_SIZE, parent->data, ART_PAGE_SIZE);
	for (int g = 0; g < nq; g++)
		memcpy(copy + (size_t) g * ART_PAGE_SIZE, q[g].data, ART_PAGE_SIZE);

	/* nothing below can fail */
	for (int k = 0; k < nbins; k++)
		art_page_init(q[owner[k]].data);
	for (int g = 0; g < nq; g++)
	{
		ArtPageRef	src = {q[g].pageno, NULL, NULL};
		ArtPageRef	was = {parent->pageno, NULL, NULL};
		int			nslots;

		src.data = copy + (size_t) g * ART_PAGE_SIZE;
		was.data = copy + (size_t) nq * ART_PAGE_SIZE;
		nslots = art_page_nslots(src.data);
		analyse(&was, &src, ms);
		memset(ms->root, 0, sizeof(uint16_t) * (nslots + 1));
		for (int i = 0; i < nitems; i++)
			if (items[i].from == g)
				ms->dest[items[i].slot] = items[i].bin;
		for (int s = 1; s <= nslots; s++)
			if (art_slot_off(src.data, s) != 0)
				ms->dest[s] = ms->dest[root_of(ms, (uint16_t) s)];
		for (int k = 0; k < nbins; k++)
			move_records(parent->data, &src, &q[owner[k]], false, ms, k);
	}
	for (int g = 0; g < nq; g++)
	{
		if (kept[g])
			t->store.ops->mark_dirty(t->store.store, &q[g]);
		else
			t->store.ops->free(t->store.store, &q[g]);
	}
	t->store.ops->mark_dirty(t->store.store, parent);
	t->store.ops->version(t->store.store, true);
	*done = !kept[0];
	for (int g = 1; g < nq; g++)
		if (kept[g])
			t->store.ops->release(t->store.store, &q[g]);
	nq = 1;
out:
	while (nq > 1)
		t->store.ops->release(t->store.store, &q[--nq]);
	art_free(t, items);
	art_free(t, copy);
	return st;
}

/*
 * Merge the page (top of mp) into its parent page or a sibling, both
 * locked exclusive; returns ART_OK whether or not it merged.  *lack gets
 * the bytes the page must lose before a try could change anything
 * (LACK_NONE: none would), when it changed nothing.
 */
static ArtStatus
merge_locked(ArtTrie *t, MergePath *mp, size_t *lack)
{
	ArtPageRef *parent = &mp->refs[0];
	ArtPageRef *page = &mp->refs[1];
	MergeState *ms;
	MergeState *qs;
	ArtPageNo	sibs[MERGE_TRIES];
	int			nsib;
	ArtStatus	st = ART_OK;

	*lack = LACK_NONE;
	if (PAGE_LOAD(page->data) >= MERGE_LOW)
		return ART_OK;
	ms = art_alloc(t, sizeof(MergeState));
	qs = art_alloc(t, sizeof(MergeState));
	if (ms == NULL || qs == NULL)
	{
		art_free(t, ms);
		art_free(t, qs);
		return ART_NO_MEMORY;
	}
	if (!analyse(parent, page, ms))
		goto out;

	/* into the parent page, unless that is the root page */
	if (parent->pageno != t->root && !ms->stubs)
		note_lack(lack, PAGE_LOAD(parent->data) + ms->bytes, MERGE_HIGH);
	if (parent->pageno != t->root && !ms->stubs &&
		PAGE_LOAD(parent->data) + ms->bytes <= MERGE_HIGH)
	{
		move_records(parent->data, page, parent, true, ms, -1);
		t->store.ops->mark_dirty(t->store.store, parent);
		t->store.ops->free(t->store.store, page);
		mp->n = 1;
		t->store.ops->version(t->store.store, true);
		goto out;
	}

	/* a page holding stubs takes a child page in */
	if (ms->stubs)
	{
		bool		done = false;

		st = pull_child(t, page, qs, &done, lack);
		if (st != ART_OK || done)
			goto out;
	}

	/* else into a sibling, or the sibling into it */
	nsib = child_pages(parent->data, page->pageno, sibs);
	for (int i = 0; i < nsib; i++)
	{
		ArtPageNo	pg = sibs[i];
		ArtPageRef	q;
		bool		into_q = false;
		bool		into_page = false;

		st = t->store.ops->pin(t->store.store, pg, ART_LOCK_EXCLUSIVE, &q);
		if (st != ART_OK)
			goto out;
		if (analyse(parent, &q, qs))
		{
			/* the one with fewer bytes moves, if the other has room */
			if (!ms->stubs)
				note_lack(lack, PAGE_LOAD(q.data) + ms->bytes, MERGE_HIGH);
			if (!qs->stubs)
				note_lack(lack, PAGE_LOAD(page->data) + qs->bytes, MERGE_HIGH);
			into_q = !ms->stubs &&
				PAGE_LOAD(q.data) + ms->bytes <= MERGE_HIGH;
			into_page = !qs->stubs &&
				PAGE_LOAD(page->data) + qs->bytes <= MERGE_HIGH;
			if (into_q && into_page)
				into_q = ms->bytes <= qs->bytes;
		}
		if (!into_q && !into_page)
		{
			t->store.ops->release(t->store.store, &q);
			continue;
		}
		if (into_q)
		{
			move_records(parent->data, page, &q, false, ms, -1);
			t->store.ops->mark_dirty(t->store.store, &q);
			t->store.ops->release(t->store.store, &q);
			t->store.ops->free(t->store.store, page);
			mp->n = 1;
		}
		else
		{
			move_records(parent->data, &q, page, false, qs, -1);
			t->store.ops->mark_dirty(t->store.store, page);
			t->store.ops->free(t->store.store, &q);
		}
		t->store.ops->mark_dirty(t->store.store, parent);
		t->store.ops->version(t->store.store, true);
		goto out;
	}

	/* else spread over its neighbours */
	if (!ms->stubs)
	{
		bool		done = false;

		st = spill(t, parent, page, ms, qs, &done, lack);
		if (st == ART_OK && !done)
			st = repack(t, parent, page, qs, &done, lack);
		if (done)
			mp->n = 1;
	}
out:
	art_free(t, ms);
	art_free(t, qs);
	return st;
}

/*
 * Whether to pass over page, the last page of a delete's path: the page
 * this process's merges last left as it was, with nothing changed since
 * but one delete in it for each call (this one's included), as many stubs
 * in it, and fewer bytes lost than its try lacked.
 */
static bool
merge_passed_over(ArtTrie *t, const ArtPageRef *page)
{
	uint64_t	now = t->store.ops->version(t->store.store, false);
	size_t		bytes;
	int			stubs;
	bool		pass;

	if (merge_left.store != t->store.store || merge_left.page != page->pageno)
	{
		merge_left.store = NULL;
		return false;
	}
	bytes = page_census(page->data, &stubs);
	pass = now == merge_left.version + 1 && stubs == merge_left.stubs &&
		(merge_left.lack == LACK_NONE ||
		 bytes + merge_left.lack > merge_left.bytes);
	if (pass)
		merge_left.version = now;
	else
		merge_left.store = NULL;
	return pass;
}

/*
 * After a delete of entry: merge the last page of its path, if underfull,
 * into its parent page or a sibling page (see the file's header).  A
 * merge keeps the content; a failure (before any change) changes nothing.
 * Cheap when there is nothing to merge: a descent with share locks.
 */
ArtStatus
art_merge(ArtTrie *t, const uint8_t *entry, size_t len)
{
	MergePath	mp = {0};
	ArtStatus	st;
	bool		underfull;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_OK;
	st = descend(t, entry, len, ART_LOCK_SHARE, &mp);
	underfull = st == ART_OK && mp.n == 2 &&
		PAGE_LOAD(mp.refs[1].data) < MERGE_LOW &&
		!merge_passed_over(t, &mp.refs[1]);
	path_release(t, &mp);
	if (!underfull)
		return st;

	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	t->store.ops->split_begin(t->store.store, ART_LOCK_EXCLUSIVE);
	st = descend(t, entry, len, ART_LOCK_EXCLUSIVE, &mp);
	if (st == ART_OK && mp.n == 2)
	{
		uint64_t	before = t->store.ops->version(t->store.store, false);
		size_t		lack = 0;

		st = merge_locked(t, &mp, &lack);
		if (st == ART_OK && mp.n == 2 && lack > 0 &&
			t->store.ops->version(t->store.store, false) == before)
		{
			merge_left.store = t->store.store;
			merge_left.page = mp.refs[1].pageno;
			merge_left.bytes = page_census(mp.refs[1].data,
										   &merge_left.stubs);
			merge_left.lack = lack;
			merge_left.version = before;
		}
	}
	path_release(t, &mp);
	t->store.ops->split_end(t->store.store, ART_LOCK_EXCLUSIVE);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}
