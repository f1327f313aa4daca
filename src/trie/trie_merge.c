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
 * any of its moves could fit by size, and, for a spill or a repack that
 * fitted by size but not by subtrees, the sizes it packed; the deletes
 * that follow in the same page (VACUUM and redo delete in key order) pass
 * it over until it has lost those bytes or that packing, redone from the
 * sizes kept with the page root each delete went through smaller by what
 * the page lost, succeeds, as long as nothing else changed the trie
 * meanwhile.  So a page is passed over only when a try would change
 * nothing, and the merges depend on the pages alone.  A try that changed
 * nothing, and the relayout tried with it, is not made again while the
 * store's content version has not moved since (MergeSame): VACUUM merges
 * after a group of deletes, and redo where VACUUM did, so a group's merges
 * come back to the pages its runs alternate between with nothing changed.
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
 * moving into a parent page and on the pages it kept pinned, and it
 * keeps every other writer out); then, with lock coupling from the root,
 * the parent page and the page share, then, one at a time, child pages
 * of the page (below it) or siblings (child pages of the parent page,
 * reachable from neither of the two, so no cycle of waits can form); a
 * spill keeps up to SPILL_TRIES siblings that take part pinned at once, a
 * repack up to REPACK_PAGES - 1 (each reachable only through the parent
 * page, which it holds).  A try reads and decides under those share
 * locks, which readers pass; only once everything is pinned and the
 * change is decided are the pages it changes taken exclusive, from the
 * root down (art_relock_exclusive: unlocked, then locked again, the
 * parent page first, which may be the root page).  No other writer can
 * change them meanwhile, so what the try read holds.
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

/*
 * What a try reads of the parent page once: its stubs (the page and slot
 * each leads to, and its own slot), and, once a spill or a repack asks,
 * the pages they lead to in key order (neighbour_pages), with the walk's
 * scratch.
 */
typedef struct ParentView
{
	int			nstubs;
	ArtPageNo	pg[MAX_SLOTS];
	uint16_t	sl[MAX_SLOTS];
	uint16_t	at[MAX_SLOTS];
	int			nseq;			/* -1: not walked yet */
	ArtPageNo	seq[MAX_SLOTS];	/* the pages the stubs lead to, in key
								 * order, a run into one page once */
	uint8_t		inner[MAX_SLOTS];	/* the record has a parent in its page */
	uint16_t	stack[MAX_SLOTS];
	ArtChild	kids[256];		/* a node's children */
} ParentView;

/*
 * The last two pages of a descent: the page and its parent page, and the
 * page root through which the descent entered the page.
 */
typedef struct MergePath
{
	ArtPageRef	refs[2];
	int			n;
	uint16_t	entry;
	ArtPageNo	top;			/* the path's page below the root page */
} MergePath;

/* A page root that repack lays out again. */
typedef struct RepackItem
{
	uint32_t	size;			/* bytes of its subtree, slots included */
	uint16_t	slot;			/* its slot in its page */
	uint8_t		from;			/* its page: an index into the group */
	uint8_t		bin;			/* the page it goes to: a bin */
} RepackItem;

/*
 * The page roots of a repack's group, gathered as its pages are pinned,
 * and each page's analysis (up, then stub, for its slots), which the
 * moves read again.
 */
typedef struct RepackList
{
	RepackItem *items;
	int			n;
	int			cap;
	uint16_t   *kept;
	int			nkept;
	int			keptcap;
	int			at[REPACK_PAGES];	/* where page g's analysis starts */
} RepackList;

/* Page roots a remembered packing keeps, at most (the page's; the others'). */
#define LEFT_ITEMS		1024

/*
 * The last page this process's merges tried and left as it was, the bytes
 * it must lose before a move could fit by size, and the packings (a
 * spill's placement, a repack's first-fit) that fitted by size and failed,
 * with the sizes they were made from.  VACUUM and redo delete in key
 * order, so the deletes that follow mostly end in the same page, and
 * trying it at each of them (its neighbours pinned and analysed anew) cost
 * most of a delete: in a model of VACUUM deleting half of 200,000
 * entries, 99% of the tries changed nothing and took 95% of the merges'
 * CPU.  The page is passed over only while nothing but its own deletes
 * changed the trie since (the content version moved by one a delete, each
 * ending in this page, its parent page as it was) and a try would change
 * nothing: it has lost fewer bytes than it lacked, counted both as its
 * records and their slots and as its load (some moves are bounded by the
 * page's load, which counts its free slots too: a delete that frees the
 * last slot takes the free slots before it off the load as well), and
 * the packings, redone from the sizes kept, the page root each delete
 * went through smaller by what the page lost, still fail.  So whether a
 * page merges depends on the pages alone, as redo needs, not on what this
 * process remembers.
 */
typedef struct MergeLeft
{
	const void *store;			/* NULL: nothing remembered */
	ArtPageNo	page;
	ArtPageNo	parent;			/* its parent page then, and its load */
	size_t		parent_load;
	size_t		bytes;			/* its records and their slots then */
	size_t		now;			/* ... at the last delete passed over */
	size_t		load;			/* its load then (free slots too) */
	size_t		lack;			/* bytes it must lose first */
	int			stubs;			/* the stubs it held */
	uint64_t	version;		/* the content version expected now */
	int			nroots;			/* its page roots (-1: too many to keep) */
	uint16_t	rslot[LEFT_ITEMS];	/* ... their slots, ascending */
	uint32_t	rsize[LEFT_ITEMS];	/* ... the bytes of their subtrees */
	int			spill_nq;		/* spill's pages with room; 0: no spill */
	size_t		spill_room[SPILL_TRIES];
	int			repack_nq;		/* repack's group; 0: no repack */
	int			nother;
	RepackItem	other[LEFT_ITEMS];	/* the group's other page roots */
} MergeLeft;

static MergeLeft merge_left;

/*
 * A try's analyses (the page's, then each other page's in turn) and its
 * views of the parent page and of the page (pull_child), kept for the
 * process's life: 250 kB allocated and freed at every try made the C
 * library give the top of its heap back to the kernel and take it again
 * (a brk call each way, faults on the pages taken again, and a TLB
 * shootdown of the other CPUs the process ran on), a third of VACUUM's
 * CPU when readers ran beside it.  A process runs one merge at a time;
 * every field a try reads it writes first.
 */
static struct
{
	MergeState	states[2];
	ParentView	views[2];
}			merge_scratch;

/* Tries, and relayouts, that the memo of one content version keeps. */
#define SAME_TRIES		32

/*
 * The tries this process's merges made since the store's content version
 * last moved, each of which changed nothing: the pages each tried (the
 * parent page, the page, and the page below the root page whose
 * subtrees' relayout it tried), and the relayouts tried, each with what
 * its group lacked.  A try reads nothing but the pages, and every change
 * of a page moves the version, so a try of the same pages at the same
 * version would change nothing again: it is passed over, and redo, which
 * merges where VACUUM merged, passes over the same tries.  VACUUM merges
 * once per run of a group's deletes, after the group, and redo where
 * VACUUM did; runs in key order alternate between pages whose page roots
 * interleave, so a group's runs tried each page, and the relayout of the
 * subtree of the root page above them, again at every run, with nothing
 * changed in between.
 */
typedef struct MergeSame
{
	const void *store;			/* the store and trie it was kept for */
	ArtPageNo	root;
	uint64_t	version;		/* (stores' versions never coincide) */
	int			ntries;
	ArtPageNo	parent[SAME_TRIES];
	ArtPageNo	page[SAME_TRIES];
	ArtPageNo	top[SAME_TRIES];
	int			ntops;
	ArtPageNo	relayout[SAME_TRIES];
	size_t		lack[SAME_TRIES];
} MergeSame;

static MergeSame merge_same;

/*
 * The bytes of page's records and their slots: what a merge moves (a
 * delete takes a slot off them, not off the page's load).
 */
static size_t
page_bytes(const uint8_t *page)
{
	return art_page_used(page) +
		2 * (size_t) (art_page_nslots(page) - art_page_nfree(page));
}

/*
 * The stubs of page (a delete that emptied a child page of page, freed
 * then, ends its path in page and takes a stub away).
 */
static int
page_stubs(uint8_t *page)
{
	int			nslots = art_page_nslots(page);
	int			stubs = 0;

	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page, s) != 0 && art_is_stub(art_rec(page, s)))
			stubs++;
	return stubs;
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
 * Descend along key from the root, coupling locks in mode (the root
 * page's in top), to the last page its path reaches; leaves that page and
 * its parent page on the path (none for the root page) locked.
 */
static ArtStatus
descend(ArtTrie *t, const uint8_t *key, size_t len, ArtLockMode top,
		ArtLockMode mode, MergePath *mp)
{
	ArtStatus	st;
	ArtChild	at;
	size_t		d = 0;

	st = t->store.ops->pin(t->store.store, t->root, top, &mp->refs[0]);
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
			if (mp->n == 1 && mp->refs[0].pageno == t->root)
				mp->top = pg;
			if (mp->n == 2)
			{
				t->store.ops->release(t->store.store, &mp->refs[0]);
				mp->refs[0] = mp->refs[1];
				mp->n = 1;
			}
			mp->refs[mp->n++] = next;
			mp->entry = slot;
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

/* Read the stubs of parent into pv, and no walk yet. */
static void
parent_view(uint8_t *parent, ParentView *pv)
{
	int			np = art_page_nslots(parent);

	pv->nstubs = 0;
	pv->nseq = -1;
	for (int s = 1; s <= np; s++)
	{
		uint8_t    *rec;

		if (art_slot_off(parent, s) == 0)
			continue;
		rec = art_rec(parent, s);
		if (!art_is_stub(rec))
			continue;
		art_stub_target(rec, &pv->pg[pv->nstubs], &pv->sl[pv->nstubs]);
		pv->at[pv->nstubs++] = (uint16_t) s;
	}
}

/*
 * Analyse a child page of the parent page pv views: which records are
 * page roots, the stub of each in the parent page, the bytes to move.
 * Returns whether every page root is referenced from the parent page.
 */
static bool
analyse(const ParentView *pv, const ArtPageRef *child, MergeState *ms)
{
	uint8_t    *page = child->data;
	int			nslots = art_page_nslots(page);

	memset(ms->stub, 0, sizeof(uint16_t) * (nslots + 1));
	memset(ms->up, 0, sizeof(uint16_t) * (nslots + 1));
	ms->bytes = 0;
	ms->stubs = false;
	for (int s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;
		ArtNode		node;
		ArtChild	kids[256];
		int			n;

		if (art_slot_off(page, s) == 0)
			continue;
		rec = art_rec(page, s);
		ms->bytes += art_rec_size(rec) + 2;
		if (art_is_stub(rec))
		{
			ms->stubs = true;
			continue;
		}
		if ((rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
			continue;
		art_node_decode_walk(rec, &node);
		n = art_node_children(&node, kids);
		for (int i = 0; i < n; i++)
			if (art_child_slot(page, kids[i]) <= nslots)
				ms->up[art_child_slot(page, kids[i])] = (uint16_t) s;
	}
	for (int i = 0; i < pv->nstubs; i++)
		if (pv->pg[i] == child->pageno && pv->sl[i] >= 1 &&
			pv->sl[i] <= nslots)
			ms->stub[pv->sl[i]] = pv->at[i];
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page, s) != 0 && ms->up[s] == 0 && ms->stub[s] == 0)
			return false;
	return true;
}

/*
 * Move the records of src into the pages of to: every one into to[0]
 * (dest NULL), or each into to[dest[s]], the page a spill or a repack
 * gave its page root; src's page roots replace their stubs in parent
 * (into_parent: to[0] is parent) or have them repointed to their page.
 * One pass over src whatever the pages: each page gets its records in
 * slot order.  The caller checked the room; cannot fail.
 */
static void
move_records(uint8_t *parent, ArtPageRef *src, ArtPageRef *const *to,
			 const uint8_t *dest, bool into_parent, MergeState *ms)
{
	uint8_t    *page = src->data;
	int			nslots = art_page_nslots(page);
	uint8_t		tmp[ART_MAX_RECORD];

	for (int s = 1; s <= nslots; s++)
	{
		ArtPageRef *dst;
		uint8_t    *rec;
		size_t		size;

		if (art_slot_off(page, s) == 0)
			continue;
		dst = to[dest != NULL ? dest[s] : 0];
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
		uint8_t    *data;
		uint8_t    *rec;
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	c;

		if (art_slot_off(page, s) == 0)
			continue;
		data = to[dest != NULL ? dest[s] : 0]->data;
		rec = art_rec(data, ms->map[s]);
		if (art_is_stub(rec))
			continue;
		art_node_decode(rec, &node);
		while (art_node_next(&node, key, &k, &c))
		{
			art_node_set_child(&node, k,
							   art_child_of_slot(data,
												 ms->map[art_child_slot(page, c)]));
			key = k;
		}
	}
	if (!into_parent)
	{
		for (int s = 1; s <= nslots; s++)
		{
			uint8_t		stub[ART_STUB_SIZE];

			if (art_slot_off(page, s) == 0 || ms->up[s] != 0)
				continue;
			art_stub_encode(to[dest != NULL ? dest[s] : 0]->pageno,
							ms->map[s], stub);
			art_rec_replace(parent, ms->stub[s], stub, ART_STUB_SIZE);
		}
	}
}

/*
 * Take the pages a merge changes exclusive, from the root down: parent
 * and page (NULL: not changed), then the nq pages of q, below them and
 * reachable only through them.  The merge read them share, inside the
 * split section exclusive (see art_relock_exclusive).
 */
static void
take_exclusive(ArtTrie *t, ArtPageRef *parent, ArtPageRef *page,
			   ArtPageRef *q, int nq)
{
	ArtPageRef *refs[REPACK_PAGES + 2];
	int			n = 0;

	if (parent != NULL)
		refs[n++] = parent;
	if (page != NULL)
		refs[n++] = page;
	for (int i = 0; i < nq; i++)
		refs[n++] = &q[i];
	art_relock_exclusive(t, refs, n);
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
 * moved.  Pins each child share in turn (below page, so in lock order),
 * and takes page and the child exclusive to move it.
 */
static ArtStatus
pull_child(ArtTrie *t, ArtPageRef *page, MergeState *cs, bool *done,
		   size_t *lack)
{
	ArtPageNo	pages[MERGE_TRIES];
	int			n = child_pages(page->data, ART_INVALID_PAGENO, pages);
	ParentView *pv = NULL;
	ArtStatus	st = ART_OK;

	*done = false;
	for (int i = 0; i < n && st == ART_OK && !*done; i++)
	{
		ArtPageRef	c;
		size_t		load;
		bool		stubs;

		st = t->store.ops->pin(t->store.store, pages[i], ART_LOCK_SHARE, &c);
		if (st != ART_OK)
			break;
		/* by size first: analyse decodes every node of the page */
		load = PAGE_LOAD(page->data) + page_bytes(c.data);
		stubs = page_stubs(c.data) > 0;
		if (!stubs && load <= MERGE_HIGH && pv == NULL)
		{
			pv = &merge_scratch.views[1];
			parent_view(page->data, pv);
		}
		if (stubs || load > MERGE_HIGH || pv == NULL || !analyse(pv, &c, cs))
		{
			if (!stubs && load > MERGE_HIGH)
				note_lack(lack, load, MERGE_HIGH);
			t->store.ops->release(t->store.store, &c);
			continue;
		}
		take_exclusive(t, NULL, page, &c, 1);
		move_records(page->data, &c, &page, NULL, true, cs);
		t->store.ops->mark_dirty(t->store.store, page);
		t->store.ops->free(t->store.store, &c);
		t->store.ops->version(t->store.store, true);
		*done = true;
	}
	return st;
}

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
 * Walk each tree of parent in key order, into pv->seq the pages its stubs
 * lead to, a run of stubs into one page once.
 */
static void
key_walk(uint8_t *parent, ParentView *pv)
{
	int			np = art_page_nslots(parent);
	int			sp = 0;
	int			nseq = 0;

	memset(pv->inner, 0, np + 1);
	for (int s = 1; s <= np; s++)
	{
		uint8_t    *rec;
		ArtNode		node;
		int			nk;

		if (art_slot_off(parent, s) == 0)
			continue;
		rec = art_rec(parent, s);
		if (art_is_stub(rec) || (rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
			continue;
		art_node_decode_walk(rec, &node);
		nk = art_node_children(&node, pv->kids);
		for (int i = 0; i < nk; i++)
			pv->inner[art_child_slot(parent, pv->kids[i])] = 1;
	}
	for (int s = np; s >= 1; s--)
		if (art_slot_off(parent, s) != 0 && !pv->inner[s])
			pv->stack[sp++] = (uint16_t) s;
	while (sp > 0)
	{
		uint8_t    *rec = art_rec(parent, pv->stack[--sp]);
		ArtNode		node;
		int			nk;
		ArtPageNo	pg;
		uint16_t	sl;

		if (art_is_stub(rec))
		{
			art_stub_target(rec, &pg, &sl);
			if (nseq == 0 || pv->seq[nseq - 1] != pg)
				pv->seq[nseq++] = pg;
			continue;
		}
		if ((rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
			continue;
		art_node_decode_walk(rec, &node);
		nk = art_node_children(&node, pv->kids);
		while (nk > 0)
			pv->stack[sp++] = art_child_slot(parent, pv->kids[--nk]);
	}
	pv->nseq = nseq;
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
				ParentView *pv, ArtPageNo *pages)
{
	int			n = 0;

	if (pv->nseq < 0)
		key_walk(parent, pv);
	for (int d = 1; d <= reach && n < most; d++)
		for (int i = 0; i < pv->nseq; i++)
		{
			if (pv->seq[i] != skip)
				continue;
			if (i - d >= 0 && pv->seq[i - d] != skip)
				n = add_page(pages, n, pv->seq[i - d], most);
			if (i + d < pv->nseq && pv->seq[i + d] != skip)
				n = add_page(pages, n, pv->seq[i + d], most);
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
 * Keep in ml the page roots of page, which analyse and subtree_sizes have
 * just read into ms, in slot order, for a packing to be redone (nroots -1
 * when they are too many).
 */
static void
left_roots(MergeLeft *ml, uint8_t *page, const MergeState *ms)
{
	int			nslots = art_page_nslots(page);

	ml->nroots = 0;
	for (int s = 1; s <= nslots; s++)
	{
		if (art_slot_off(page, s) == 0 || ms->up[s] != 0)
			continue;
		if (ml->nroots == LEFT_ITEMS)
		{
			ml->nroots = -1;
			return;
		}
		ml->rslot[ml->nroots] = (uint16_t) s;
		ml->rsize[ml->nroots++] = ms->size[s];
	}
}

/*
 * Sort order[0..n), indexes into size in ascending order, by size, largest
 * first; equal sizes keep their order.
 */
static void
sort_largest_first(const uint32_t *size, uint16_t *order, int n)
{
	for (int i = 1; i < n; i++)
	{
		uint16_t	k = order[i];
		int			j = i;

		while (j > 0 && size[order[j - 1]] < size[k])
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
}

/*
 * Place the page roots order[0..n) (indexes into size, largest first),
 * each into the one of the nq pages with the least room that takes it,
 * taking that off its room; dest, if not NULL, gets each one's page.
 * Returns whether every one found its place.
 */
static bool
spill_place(const uint32_t *size, const uint16_t *order, int n,
			size_t *room, int nq, uint8_t *dest)
{
	for (int i = 0; i < n; i++)
	{
		uint16_t	r = order[i];
		int			best = -1;

		for (int j = 0; j < nq; j++)
			if (room[j] >= size[r] && (best < 0 || room[j] < room[best]))
				best = j;
		if (best < 0)
			return false;
		if (dest != NULL)
			dest[r] = (uint8_t) best;
		room[best] -= size[r];
	}
	return true;
}

/*
 * Add the page roots of the page g of a repack's group, which analyse has
 * just read into ms, with the bytes of their subtrees, to rl, and keep
 * the analysis; false when out of memory.
 */
static bool
add_items(ArtTrie *t, uint8_t *page, MergeState *ms, int g, RepackList *rl)
{
	int			nslots = art_page_nslots(page);
	int			w = nslots + 1;

	if (art_grow(t, (void **) &rl->kept, &rl->keptcap, rl->nkept + 2 * w,
				 sizeof(uint16_t)) != ART_OK)
		return false;
	rl->at[g] = rl->nkept;
	memcpy(rl->kept + rl->nkept, ms->up, sizeof(uint16_t) * w);
	memcpy(rl->kept + rl->nkept + w, ms->stub, sizeof(uint16_t) * w);
	rl->nkept += 2 * w;
	subtree_sizes(page, ms);
	for (int s = 1; s <= nslots; s++)
	{
		RepackItem *it;

		if (art_slot_off(page, s) == 0 || ms->up[s] != 0)
			continue;
		if (art_grow(t, (void **) &rl->items, &rl->cap, rl->n + 1,
					 sizeof(RepackItem)) != ART_OK)
			return false;
		it = &rl->items[rl->n++];
		it->size = ms->size[s];
		it->slot = (uint16_t) s;
		it->from = (uint8_t) g;
		it->bin = 0;
	}
	return true;
}

/*
 * Pin share, one at a time, the pages near page in key order under
 * parent (neighbour_pages: for a spill SPILL_REACH runs of stubs away,
 * for a repack REPACK_REACH), appending to q from q[*nq] on those that a
 * spill can fill (loaded below MERGE_HIGH) or a repack can move (holding
 * no stub); the others are released again.  Each is below parent and
 * reachable only through it, so no cycle of waits.
 */
static ArtStatus
pin_neighbours(ArtTrie *t, ArtPageRef *parent, ParentView *pv,
			   ArtPageRef *page, bool repacking, ArtPageRef *q, int *nq)
{
	ArtPageNo	sibs[REPACK_PAGES];
	int			nsib;

	if (repacking)
		nsib = neighbour_pages(parent->data, page->pageno, REPACK_REACH,
							   REPACK_PAGES - 1, pv, sibs);
	else
		nsib = neighbour_pages(parent->data, page->pageno, SPILL_REACH,
							   SPILL_TRIES, pv, sibs);
	for (int i = 0; i < nsib; i++)
	{
		ArtStatus	st = t->store.ops->pin(t->store.store, sibs[i],
										   ART_LOCK_SHARE, &q[*nq]);

		if (st != ART_OK)
			return st;
		if (repacking ? page_stubs(q[*nq].data) > 0 :
			PAGE_LOAD(q[*nq].data) >= MERGE_HIGH)
			t->store.ops->release(t->store.store, &q[*nq]);
		else
			(*nq)++;
	}
	return ART_OK;
}

/*
 * Keep of the pages q[from..*nq) those whose every page root is referenced
 * from parent, in their order, and release the others; with rl (a
 * repack), the kept pages' page roots go to rl.  analyse decodes every
 * node of each page, so the callers check sizes first.  ms is scratch.
 */
static ArtStatus
keep_whole(ArtTrie *t, const ParentView *pv, MergeState *ms, ArtPageRef *q,
		   int from, int *nq, RepackList *rl)
{
	int			n = *nq;

	*nq = from;
	for (int i = from; i < n; i++)
	{
		if (!analyse(pv, &q[i], ms))
		{
			t->store.ops->release(t->store.store, &q[i]);
			continue;
		}
		q[(*nq)++] = q[i];
		if (rl != NULL && !add_items(t, q[*nq - 1].data, ms, *nq - 1, rl))
		{
			while (++i < n)
				t->store.ops->release(t->store.store, &q[i]);
			return ART_NO_MEMORY;
		}
	}
	return ART_OK;
}

/*
 * The bytes page must lose before its page roots (ms: its analysis, the
 * sizes of its subtrees, order: its nroots page roots, largest first)
 * could spill into the room of the nq pages of q, into room: room for
 * all its bytes, and for the largest subtree a page with room.
 */
static size_t
spill_need(const MergeState *ms, int nroots, const ArtPageRef *q, int nq,
		   size_t *room)
{
	size_t		total = 0;
	size_t		most = 0;
	size_t		need;

	for (int j = 0; j < nq; j++)
	{
		room[j] = MERGE_HIGH - PAGE_LOAD(q[j].data);
		total += room[j];
		if (room[j] > most)
			most = room[j];
	}
	need = ms->bytes > total ? ms->bytes - total : 0;
	if (nroots > 0 && ms->size[ms->order[0]] > most + need)
		need = ms->size[ms->order[0]] - most;
	return need;
}

/*
 * Spread the page roots of page, which holds no stub, over up to
 * SPILL_TRIES sibling pages (child pages of parent whose every page root
 * is referenced from it), each staying at or below MERGE_HIGH: largest
 * subtree first, each into the sibling with the least room that takes it;
 * then free the page.  *done says whether it did; when the page fitted
 * by size but not every subtree found its place, ml keeps the rooms, to
 * redo the placement as the page shrinks.  ms holds page's analysis and
 * the sizes of its subtrees; qs is scratch.  The siblings that can take
 * part stay pinned share until the end (each below parent and reachable
 * only through it, so no cycle of waits), and nothing changes unless
 * every subtree has its place; then they, parent and page are taken
 * exclusive.
 */
static ArtStatus
spill(ArtTrie *t, ArtPageRef *parent, ParentView *pv, ArtPageRef *page,
	  MergeState *ms, MergeState *qs, bool *done, MergeLeft *ml)
{
	ArtPageRef	q[SPILL_TRIES];
	ArtPageRef *to[SPILL_TRIES];
	size_t		room[SPILL_TRIES];
	size_t		need;
	int			nq = 0;
	int			nslots = art_page_nslots(page->data);
	int			nroots = 0;
	ArtStatus	st;

	*done = false;
	st = pin_neighbours(t, parent, pv, page, false, q, &nq);
	if (st != ART_OK || nq == 0)
		goto out;

	/* the page roots (merge_locked took their sizes), largest first */
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page->data, s) != 0 && ms->up[s] == 0)
			ms->order[nroots++] = (uint16_t) s;
	sort_largest_first(ms->size, ms->order, nroots);

	/*
	 * by room before analyse decodes the pages: those that take part are
	 * among them, so the page lacks at least what it lacks here
	 */
	need = spill_need(ms, nroots, q, nq, room);
	if (need == 0)
	{
		st = keep_whole(t, pv, qs, q, 0, &nq, NULL);
		if (st != ART_OK || nq == 0)
			goto out;
		need = spill_need(ms, nroots, q, nq, room);
	}
	if (need > 0)
	{
		if (need < ml->lack)
			ml->lack = need;
		goto out;
	}
	memcpy(ml->spill_room, room, sizeof(size_t) * nq);
	if (!spill_place(ms->size, ms->order, nroots, room, nq, ms->dest))
	{
		/* it fits by size: the placement is redone as the page shrinks */
		if (ml->nroots >= 0)
			ml->spill_nq = nq;
		else
			ml->lack = 0;
		goto out;
	}
	for (int s = 1; s <= nslots; s++)
		if (art_slot_off(page->data, s) != 0)
			ms->dest[s] = ms->dest[root_of(ms, (uint16_t) s)];

	/* nothing below can fail */
	take_exclusive(t, parent, page, q, nq);
	for (int j = 0; j < nq; j++)
		to[j] = &q[j];
	move_records(parent->data, page, to, ms->dest, false, ms);
	for (int j = 0; j < nq; j++)
		t->store.ops->mark_dirty(t->store.store, &q[j]);
	t->store.ops->mark_dirty(t->store.store, parent);
	t->store.ops->free(t->store.store, page);
	t->store.ops->version(t->store.store, true);
	*done = true;
out:
	while (nq > 0)
		t->store.ops->release(t->store.store, &q[--nq]);
	return st;
}

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
 * Keep in ml the page roots of a repack's group of nq pages that fit by
 * size but not first-fit, those of the pages other than the underfull one
 * (left_roots kept its own), for the first-fit to be redone as the page
 * shrinks; when they are too many, note that the page lacks nothing
 * known (lack 0).
 */
static void
left_repack(MergeLeft *ml, const RepackItem *items, int nitems, int nq)
{
	ml->nother = 0;
	for (int i = 0; i < nitems; i++)
	{
		if (items[i].from == 0)
			continue;
		if (ml->nother == LEFT_ITEMS || ml->nroots < 0)
		{
			ml->lack = 0;
			return;
		}
		ml->other[ml->nother++] = items[i];
	}
	ml->repack_nq = nq;
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
 * ms holds page's analysis and the sizes of its subtrees; qs is scratch.
 * The pages are pinned share until the end (each below parent and
 * reachable only through it), and nothing changes unless the group packs
 * into fewer pages and the memory for the copies is there; then they and
 * parent are taken exclusive.
 */
static ArtStatus
repack(ArtTrie *t, ArtPageRef *parent, ParentView *pv, ArtPageRef *page,
	   MergeState *ms, MergeState *qs, bool *done, MergeLeft *ml)
{
	ArtPageRef	q[REPACK_PAGES];
	int			owner[REPACK_PAGES];	/* bin -> the index of its page */
	bool		kept[REPACK_PAGES];
	RepackList	rl = {0};
	ArtPageRef *to[REPACK_PAGES];
	RepackItem *items;
	uint8_t    *copy = NULL;
	size_t		room = 0;
	int			nq = 1;
	int			nitems;
	int			nbins;
	ArtStatus	st;

	*done = false;
	q[0] = *page;
	st = pin_neighbours(t, parent, pv, page, true, q, &nq);
	if (st != ART_OK || nq < 2)
		goto out;

	/*
	 * by bytes before analyse decodes the pages: a group packs into a page
	 * fewer only if its pages' room below REPACK_HIGH adds up to a page,
	 * and those that take part are among these, so the page lacks at least
	 * what it lacks here
	 */
	for (int g = 0; g < nq; g++)
		if (page_bytes(q[g].data) < REPACK_HIGH)
			room += REPACK_HIGH - page_bytes(q[g].data);
	if (room < REPACK_HIGH)
	{
		note_lack(&ml->lack, REPACK_HIGH, room);
		goto out;
	}
	if (!add_items(t, page->data, ms, 0, &rl))
		st = ART_NO_MEMORY;
	else
		st = keep_whole(t, pv, qs, q, 1, &nq, &rl);
	if (st != ART_OK || nq < 2)
		goto out;
	items = rl.items;
	nitems = rl.n;
	qsort(items, nitems, sizeof(RepackItem), item_desc);
	nbins = repack_bins(items, nitems, nq - 1);
	if (nbins < 0)
	{
		size_t		sum = 0;

		for (int i = 0; i < nitems; i++)
			sum += items[i].size;
		if (sum > (size_t) (nq - 1) * REPACK_HIGH)
			note_lack(&ml->lack, sum, (size_t) (nq - 1) * REPACK_HIGH);
		else
			left_repack(ml, items, nitems, nq);
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
	copy = art_alloc(t, (size_t) nq * ART_PAGE_SIZE);
	if (copy == NULL)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	for (int g = 0; g < nq; g++)
		memcpy(copy + (size_t) g * ART_PAGE_SIZE, q[g].data, ART_PAGE_SIZE);

	/* nothing below can fail */
	take_exclusive(t, parent, page, q + 1, nq - 1);
	q[0] = *page;
	for (int k = 0; k < nbins; k++)
		art_page_init(q[owner[k]].data);
	for (int k = 0; k < nbins; k++)
		to[k] = &q[owner[k]];
	for (int g = 0; g < nq; g++)
	{
		ArtPageRef	src = {q[g].pageno, NULL, NULL};
		int			nslots;
		size_t		w;

		src.data = copy + (size_t) g * ART_PAGE_SIZE;
		nslots = art_page_nslots(src.data);
		w = (size_t) nslots + 1;
		memcpy(qs->up, rl.kept + rl.at[g], sizeof(uint16_t) * w);
		memcpy(qs->stub, rl.kept + rl.at[g] + w, sizeof(uint16_t) * w);
		memset(qs->root, 0, sizeof(uint16_t) * w);
		for (int i = 0; i < nitems; i++)
			if (items[i].from == g)
				qs->dest[items[i].slot] = items[i].bin;
		for (int s = 1; s <= nslots; s++)
			if (art_slot_off(src.data, s) != 0)
				qs->dest[s] = qs->dest[root_of(qs, (uint16_t) s)];
		move_records(parent->data, &src, to, qs->dest, false, qs);
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
	art_free(t, rl.items);
	art_free(t, rl.kept);
	art_free(t, copy);
	return st;
}

/*
 * Merge the page (top of mp) into its parent page or a sibling, both
 * locked share (taken exclusive for a change); returns ART_OK whether or
 * not it merged.  Tries the steps in turn, or with only other than
 * ART_MERGE_ANY that step alone; *made gets the step that changed pages
 * (ART_MERGE_ANY: none).  When it changed nothing, ml gets the bytes the
 * page must lose before a move could fit by size (LACK_NONE: none would)
 * and the packings that fitted by size and failed (of the steps tried).
 */
static ArtStatus
merge_locked(ArtTrie *t, MergePath *mp, MergeLeft *ml, ArtMergeStep only,
			 ArtMergeStep *made)
{
	ArtPageRef *parent = &mp->refs[0];
	ArtPageRef *page = &mp->refs[1];
	MergeState *ms;
	MergeState *qs;
	ParentView *pv;
	ArtPageNo	sibs[MERGE_TRIES];
	int			nsib;
	ArtStatus	st = ART_OK;
	bool		any = only == ART_MERGE_ANY;

	*made = ART_MERGE_ANY;
	ml->lack = LACK_NONE;
	ml->nroots = 0;
	ml->spill_nq = 0;
	ml->repack_nq = 0;
	ml->nother = 0;
	if (PAGE_LOAD(page->data) >= MERGE_LOW)
		return ART_OK;
	ms = &merge_scratch.states[0];
	qs = &merge_scratch.states[1];
	pv = &merge_scratch.views[0];
	parent_view(parent->data, pv);
	if (!analyse(pv, page, ms))
		goto out;

	/* into the parent page, unless that is the root page */
	if (parent->pageno != t->root && !ms->stubs)
		note_lack(&ml->lack, PAGE_LOAD(parent->data) + ms->bytes, MERGE_HIGH);
	if ((any || only == ART_MERGE_PARENT) &&
		parent->pageno != t->root && !ms->stubs &&
		PAGE_LOAD(parent->data) + ms->bytes <= MERGE_HIGH)
	{
		take_exclusive(t, parent, page, NULL, 0);
		move_records(parent->data, page, &parent, NULL, true, ms);
		t->store.ops->mark_dirty(t->store.store, parent);
		t->store.ops->free(t->store.store, page);
		mp->n = 1;
		t->store.ops->version(t->store.store, true);
		*made = ART_MERGE_PARENT;
		goto out;
	}

	/* a page holding stubs takes a child page in */
	if (ms->stubs && (any || only == ART_MERGE_CHILD))
	{
		bool		done = false;

		st = pull_child(t, page, qs, &done, &ml->lack);
		if (done)
			*made = ART_MERGE_CHILD;
		if (st != ART_OK || done)
			goto out;
	}

	/* else into a sibling, or the sibling into it */
	nsib = any || only == ART_MERGE_SIBLING ?
		child_pages(parent->data, page->pageno, sibs) : 0;
	for (int i = 0; i < nsib; i++)
	{
		ArtPageNo	pg = sibs[i];
		ArtPageRef	q;
		ArtPageRef *qref = &q;
		bool		qstubs;
		size_t		qbytes;
		bool		into_q;
		bool		into_page;
		bool		whole;

		st = t->store.ops->pin(t->store.store, pg, ART_LOCK_SHARE, &q);
		if (st != ART_OK)
			goto out;
		/* by size first: analyse decodes every node of the page */
		qstubs = page_stubs(q.data) > 0;
		qbytes = page_bytes(q.data);
		into_q = !ms->stubs && PAGE_LOAD(q.data) + ms->bytes <= MERGE_HIGH;
		into_page = !qstubs && PAGE_LOAD(page->data) + qbytes <= MERGE_HIGH;
		whole = (into_q || into_page) && analyse(pv, &q, qs);
		if (whole || (!into_q && !into_page))
		{
			if (!ms->stubs)
				note_lack(&ml->lack, PAGE_LOAD(q.data) + ms->bytes, MERGE_HIGH);
			if (!qstubs)
				note_lack(&ml->lack, PAGE_LOAD(page->data) + qbytes,
						  MERGE_HIGH);
		}
		/* the one with fewer bytes moves, if the other has room */
		into_q &= whole;
		into_page &= whole;
		if (into_q && into_page)
			into_q = ms->bytes <= qbytes;
		if (!into_q && !into_page)
		{
			t->store.ops->release(t->store.store, &q);
			continue;
		}
		take_exclusive(t, parent, page, &q, 1);
		if (into_q)
		{
			move_records(parent->data, page, &qref, NULL, false, ms);
			t->store.ops->mark_dirty(t->store.store, &q);
			t->store.ops->release(t->store.store, &q);
			t->store.ops->free(t->store.store, page);
			mp->n = 1;
		}
		else
		{
			move_records(parent->data, &q, &page, NULL, false, qs);
			t->store.ops->mark_dirty(t->store.store, page);
			t->store.ops->free(t->store.store, &q);
		}
		t->store.ops->mark_dirty(t->store.store, parent);
		t->store.ops->version(t->store.store, true);
		*made = ART_MERGE_SIBLING;
		goto out;
	}

	/* else spread over its neighbours */
	if (!ms->stubs &&
		(any || only == ART_MERGE_SPILL || only == ART_MERGE_REPACK))
	{
		uint64_t	before = t->store.ops->version(t->store.store, false);
		bool		done = false;

		subtree_sizes(page->data, ms);
		left_roots(ml, page->data, ms);
		if (any || only == ART_MERGE_SPILL)
			st = spill(t, parent, pv, page, ms, qs, &done, ml);
		if (done)
			*made = ART_MERGE_SPILL;
		if (st == ART_OK && !done && (any || only == ART_MERGE_REPACK))
		{
			/* a repack may keep the page, changing the others */
			st = repack(t, parent, pv, page, ms, qs, &done, ml);
			if (t->store.ops->version(t->store.store, false) != before)
				*made = ART_MERGE_REPACK;
		}
		if (done)
			mp->n = 1;
	}
out:
	return st;
}

/*
 * Take the bytes the page lost since the last delete ml saw off the page
 * root the delete went through (entry); false when ml does not know it.
 */
static bool
left_shrink(MergeLeft *ml, uint16_t entry, size_t lost)
{
	int			lo = 0;
	int			hi = ml->nroots - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (ml->rslot[mid] == entry)
		{
			if (ml->rsize[mid] < lost)
				return false;
			ml->rsize[mid] -= (uint32_t) lost;
			return true;
		}
		if (ml->rslot[mid] < entry)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/*
 * Whether a packing ml keeps, redone from its sizes as they are now, would
 * succeed: the spill's placement into the room its pages had, or the
 * repack's first-fit of its group.  Out of memory counts as success: the
 * try finds out.
 */
static bool
left_packs(ArtTrie *t, const MergeLeft *ml)
{
	if (ml->spill_nq > 0)
	{
		uint16_t	order[LEFT_ITEMS];
		size_t		room[SPILL_TRIES];

		for (int i = 0; i < ml->nroots; i++)
			order[i] = (uint16_t) i;
		sort_largest_first(ml->rsize, order, ml->nroots);
		memcpy(room, ml->spill_room, sizeof(size_t) * ml->spill_nq);
		if (spill_place(ml->rsize, order, ml->nroots, room, ml->spill_nq,
						NULL))
			return true;
	}
	if (ml->repack_nq > 0)
	{
		int			n = ml->nother + ml->nroots;
		RepackItem *items = art_alloc(t, sizeof(RepackItem) * n);
		int			nbins;

		if (items == NULL)
			return true;
		memcpy(items, ml->other, sizeof(RepackItem) * ml->nother);
		for (int i = 0; i < ml->nroots; i++)
		{
			items[ml->nother + i].size = ml->rsize[i];
			items[ml->nother + i].slot = ml->rslot[i];
			items[ml->nother + i].from = 0;
			items[ml->nother + i].bin = 0;
		}
		qsort(items, n, sizeof(RepackItem), item_desc);
		nbins = repack_bins(items, n, ml->repack_nq - 1);
		art_free(t, items);
		if (nbins >= 0)
			return true;
	}
	return false;
}

/*
 * Whether to pass over the last page of a delete's path (top of mp, its
 * parent page below it): the page this process's merges last left as it
 * was, with nothing changed since but one delete in it for each call (this
 * one's included), its parent page as it was (a delete that empties a
 * page root takes its stub out of it), as many stubs in it (deletes take
 * stubs away, never add one), fewer bytes lost than its try lacked (of
 * its records and slots, and of its load), and the packings that failed
 * still failing.
 */
static bool
merge_passed_over(ArtTrie *t, const MergePath *mp)
{
	MergeLeft  *ml = &merge_left;
	uint8_t    *page = mp->refs[1].data;
	uint64_t	now = t->store.ops->version(t->store.store, false);
	size_t		bytes;
	bool		pass;

	if (ml->store != t->store.store || ml->page != mp->refs[1].pageno)
	{
		ml->store = NULL;
		return false;
	}
	bytes = page_bytes(page);
	pass = now == ml->version + 1 && mp->refs[0].pageno == ml->parent &&
		PAGE_LOAD(mp->refs[0].data) == ml->parent_load &&
		bytes <= ml->now &&
		(ml->stubs == 0 || page_stubs(page) == ml->stubs) &&
		(ml->lack == LACK_NONE ||
		 (bytes + ml->lack > ml->bytes &&
		  PAGE_LOAD(page) + ml->lack > ml->load));
	if (pass && (ml->spill_nq > 0 || ml->repack_nq > 0))
		pass = left_shrink(ml, mp->entry, ml->now - bytes) &&
			!left_packs(t, ml);
	if (pass)
	{
		ml->version = now;
		ml->now = bytes;
	}
	else
		ml->store = NULL;
	return pass;
}

/*
 * The memo of t's unchanged tries at content version now, emptied first
 * when it is another trie's or was kept at another version.
 */
static MergeSame *
same_at(ArtTrie *t, uint64_t now)
{
	MergeSame  *sm = &merge_same;

	if (sm->store != t->store.store || sm->root != t->root ||
		sm->version != now)
	{
		sm->store = t->store.store;
		sm->root = t->root;
		sm->version = now;
		sm->ntries = 0;
		sm->ntops = 0;
	}
	return sm;
}

/*
 * Whether a try of the last two pages of a delete's path (mp), with the
 * relayout above them, changed nothing at the content version now.
 */
static bool
same_tried(ArtTrie *t, const MergePath *mp)
{
	MergeSame  *sm = same_at(t, t->store.ops->version(t->store.store, false));

	for (int i = 0; i < sm->ntries; i++)
		if (sm->page[i] == mp->refs[1].pageno &&
			sm->parent[i] == mp->refs[0].pageno && sm->top[i] == mp->top)
			return true;
	return false;
}

/*
 * Note that a try of page under parent, with the relayout of top, changed
 * nothing at the content version now.
 */
static void
same_note(ArtTrie *t, ArtPageNo parent, ArtPageNo page, ArtPageNo top,
		  uint64_t now)
{
	MergeSame  *sm = same_at(t, now);

	if (sm->ntries == SAME_TRIES)
		return;
	sm->parent[sm->ntries] = parent;
	sm->page[sm->ntries] = page;
	sm->top[sm->ntries++] = top;
}

/*
 * art_relayout of top at the content version now, unless a relayout of
 * top changed nothing at that version: then *lack is what that one's
 * group lacked, and *done false.
 */
static ArtStatus
relayout_once(ArtTrie *t, ArtPageNo top, uint64_t now, bool *done,
			  size_t *lack)
{
	MergeSame  *sm = same_at(t, now);
	ArtStatus	st;

	for (int i = 0; i < sm->ntops; i++)
		if (sm->relayout[i] == top)
		{
			*done = false;
			*lack = sm->lack[i];
			return ART_OK;
		}
	st = art_relayout(t, top, done, lack);
	if (st == ART_OK && !*done && sm->ntops < SAME_TRIES)
	{
		sm->relayout[sm->ntops] = top;
		sm->lack[sm->ntops++] = *lack;
	}
	return st;
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
	return art_merge_logged(t, entry, len, NULL, NULL);
}

/*
 * art_merge, with merged(arg) (if not NULL) called once the merge has
 * changed pages, before it leaves its sections (trie.h).
 */
ArtStatus
art_merge_logged(ArtTrie *t, const uint8_t *entry, size_t len,
				 ArtMerged merged, void *arg)
{
	MergePath	mp = {0};
	ArtStatus	st;
	bool		underfull;
	bool		changed = false;
	ArtMergeStep made = ART_MERGE_ANY;

	if (len > ART_MAX_ENTRY_LEN)
		return ART_OK;
	st = descend(t, entry, len, ART_LOCK_SHARE, ART_LOCK_SHARE, &mp);
	underfull = st == ART_OK && mp.n == 2 &&
		PAGE_LOAD(mp.refs[1].data) < MERGE_LOW &&
		!same_tried(t, &mp) && !merge_passed_over(t, &mp);
	path_release(t, &mp);
	if (!underfull)
		return st;

	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	t->store.ops->split_begin(t->store.store, ART_LOCK_EXCLUSIVE);
	st = descend(t, entry, len, ART_LOCK_SHARE, ART_LOCK_SHARE, &mp);
	if (st == ART_OK && mp.n == 2)
	{
		uint64_t	before = t->store.ops->version(t->store.store, false);
		MergeLeft  *ml = &merge_left;
		ArtPageNo	top = mp.top;
		bool		done = false;
		size_t		lack;

		ml->store = NULL;
		st = merge_locked(t, &mp, ml, ART_MERGE_ANY, &made);
		if (st == ART_OK && mp.n == 2 &&
			t->store.ops->version(t->store.store, false) == before)
		{
			ml->store = t->store.store;
			ml->page = mp.refs[1].pageno;
			ml->parent = mp.refs[0].pageno;
			ml->parent_load = PAGE_LOAD(mp.refs[0].data);
			ml->bytes = page_bytes(mp.refs[1].data);
			ml->now = ml->bytes;
			ml->load = PAGE_LOAD(mp.refs[1].data);
			ml->stubs = page_stubs(mp.refs[1].data);
			ml->version = before;
			path_release(t, &mp);

			/* nothing moved: the subtrees of the root page near it laid out again */
			st = relayout_once(t, top, before, &done, &lack);
			if (lack < ml->lack)
				ml->lack = lack;
			if (st != ART_OK || done || ml->lack == 0)
				ml->store = NULL;
			if (st == ART_OK && !done)
				same_note(t, ml->parent, ml->page, top, before);
			if (done)
				made = ART_MERGE_RELAYOUT;
		}
		changed = t->store.ops->version(t->store.store, false) != before;
	}
	path_release(t, &mp);
	if (changed && merged != NULL)
		merged(arg, made);
	t->store.ops->split_end(t->store.store, ART_LOCK_EXCLUSIVE);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	return st;
}

/*
 * art_merge_step (trie.h): the step alone, under the sections a merge
 * takes; the memo of a try that changed nothing (merge_left) keeps
 * nothing of it, since the steps before it were not tried.
 */
ArtStatus
art_merge_step(ArtTrie *t, const uint8_t *entry, size_t len,
			   ArtMergeStep step)
{
	MergePath	mp = {0};
	ArtStatus	st;
	bool		changed = false;

	if (step == ART_MERGE_ANY || step >= ART_MERGE_STEPS ||
		len > ART_MAX_ENTRY_LEN)
		return art_merge(t, entry, len);

	t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
	t->store.ops->split_begin(t->store.store, ART_LOCK_EXCLUSIVE);
	st = descend(t, entry, len, ART_LOCK_SHARE, ART_LOCK_SHARE, &mp);
	if (st == ART_OK && mp.n == 2 && PAGE_LOAD(mp.refs[1].data) < MERGE_LOW)
	{
		uint64_t	before = t->store.ops->version(t->store.store, false);
		ArtMergeStep made;
		bool		done;
		size_t		lack;

		merge_left.store = NULL;
		if (step == ART_MERGE_RELAYOUT)
		{
			path_release(t, &mp);
			st = art_relayout(t, mp.top, &done, &lack);
		}
		else
			st = merge_locked(t, &mp, &merge_left, step, &made);
		changed = t->store.ops->version(t->store.store, false) != before;
	}
	path_release(t, &mp);
	t->store.ops->split_end(t->store.store, ART_LOCK_EXCLUSIVE);
	t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	if (st == ART_OK && !changed)
		return art_merge(t, entry, len);
	return st;
}
