/*-------------------------------------------------------------------------
 *
 * trie_bulk.c
 *	  Bulk loading from sorted input, bottom up.
 *
 * The loader keeps the spine: the open nodes on the path of the last
 * entry.  A new entry shares a prefix with the last one; every spine node
 * below that prefix is complete and is closed into a pending node, an
 * in-memory subtree not yet in any page.  A pending subtree grows as its
 * parent closes until it would not fit in a page; then the parent's
 * largest pending children are written out, packed first-fit into fresh
 * pages, and referenced by stubs.  A child too large to share a page with
 * another is not packed whole: its children are packed in its place and
 * it stays with the parent, so that pages are nearly full whatever the
 * sizes of the subtrees.  A pending node with a chain of pages below it
 * (BULK_ROUTE_HEIGHT) is opened too, so that the nodes leading to pages
 * stay together and the page they go to leads to many pages, as a
 * B-tree's inner pages do.  So every page is filled with whole subtrees, a
 * subtree shares its parent's page while it fits, and each page is
 * written once.  At the end the root's subtree goes to the root page.
 *
 * Memory: the spine plus at most about a page of pending nodes per spine
 * level.  Prefixes longer than one node holds become chains of nodes.
 * Closed nodes are small (a 32-byte header, then their children, key
 * bytes and prefix), cut from the loader's own chunks and recycled through
 * a free list per 16-byte size class; spine nodes keep their arrays when
 * popped.  So the loader rarely calls the store's allocator once its spine
 * and pending pages have grown, and a leaf mostly fits one cache line.
 *
 * The same machinery places the long tail of a new entry for an insert
 * (art_bulk_place_leaf): it only writes fresh pages, which it keeps
 * pinned and frees again if it fails.  It unlocks each page once written
 * (nobody can reach one before the insert links the tail), so that a long
 * tail holds few locks: a 1 MiB key's takes about 140 pages.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "trie_internal.h"

/* Fill pages up to this many bytes, leaving room for later inserts. */
#define BULK_FILL	(ART_PAGE_USABLE - 160)

/*
 * flush_kids packs the children of a pending subtree larger than this
 * (4,748 bytes), not the subtree whole (see gather).  Half a page would be
 * the natural bound (two such never share a page), but with it md5-like
 * subtrees of about 4.2-4.6 KB were packed by their children, and page
 * merges after deletes in key order then left 91 pages where they leave
 * 55 (the unit test merge_sweep; 64 with 4/7 of a page).  Synth's
 * subtrees of ten users take 4.8-5.2 KB (1M and 5M keys), 4.3-4.7 KB at
 * 2-4M keys: flush_kids opens at half a page when this bound leaves pages
 * under 3/4 full (gathered_loose).
 */
#define BULK_OPEN	(ART_PAGE_USABLE * 7 / 12)

/*
 * flush_kids keeps a pending node with at least this many pages below its
 * own on a path (a chain forming) pending with the node it flushes, and
 * writes what hangs beside it (see gather).  In the
 * model (bench/trie_paths.c), /usr's paths repeated to 3M keys took 8.11
 * pages on an entry's path with none kept so, 5.57 keeping every wide
 * node, 5.24 from 2 pages below, 5.23 from 3, 4.46 from 4, 5.90 from 6;
 * synth keys at 3M 4.36, 4.63, 3.82, 3.73, 4.10, 4.36; the same pages
 * within 1.2%.
 */
#define BULK_ROUTE_HEIGHT	3

/*
 * BNodes are allocated in size classes of BNODE_GRAIN bytes; the largest
 * (256 children and a prefix of ART_MAX_PREFIX bytes) is 3872 bytes.
 */
#define BNODE_GRAIN		16
#define BNODE_CLASSES	256
#define BNODE_CHUNK		65536

typedef struct BNode BNode;

/*
 * A closed node, pending (page invalid) or placed at (page, slot).  The
 * header is followed by n child pointers, n key bytes and the prefix.
 */
struct BNode
{
	union
	{
		uint64_t	count;		/* entries in the subtree */
		BNode	   *nextfree;	/* the free list of its size class */
	}			u;
	uint32_t	size;			/* bytes of the pending subtree, slots incl. */
	uint32_t	nrec;			/* its records: nodes, and a stub for each
								 * child in another page */
	uint32_t	plen;
	ArtPageNo	page;
	uint16_t	slot;
	uint16_t	n;
	uint16_t	sizeclass;
	bool		terminal;
	uint8_t		height;			/* pages below its own on its longest path
								 * (at most 255); wide (a 6-byte count) when
								 * not 0: it reaches another page */
};

/* Whether a BNode reaches another page (a 6-byte count). */
#define BNODE_WIDE(b)	((b)->height > 0)

/* A BNode's children, key bytes and prefix. */
#define BNODE_KIDS(b)	((BNode **) ((b) + 1))
#define BNODE_KEYS(b)	((uint8_t *) (BNODE_KIDS(b) + (b)->n))
#define BNODE_PREFIX(b)	(BNODE_KEYS(b) + (b)->n)

/* An open node on the spine: its prefix is key[d0, d1). */
typedef struct SpineNode
{
	size_t		d0;
	size_t		d1;
	bool		terminal;
	int			n;
	int			cap;
	int			kcap;
	uint8_t    *keys;			/* kept when the node is popped */
	BNode	  **kids;
} SpineNode;

/* A chunk of memory that BNodes are cut from. */
typedef struct BChunk
{
	struct BChunk *next;
	size_t		used;			/* bytes used, this header included */
} BChunk;

struct ArtBulkLoader
{
	ArtTrie    *t;
	ArtBuf		key;			/* the last entry added */
	bool		any;
	SpineNode  *spine;
	int			nspine;
	int			spinecap;
	int			spineinit;		/* spine entries initialized */
	BNode	   *freelist[BNODE_CLASSES + 1];
	BChunk	   *chunks;
	BNode	  **stack;			/* place's traversal */
	int		   *stacknext;
	int		   *stackends;
	int			stackcap;
	int			stacknextcap;
	int			stackendscap;
	uint64_t	groups;			/* groups of the entries added (trie.h) */
	bool		keep_pinned;	/* keep written pages pinned (for inserts) */
	ArtPinStack pinned;
	int			nunlocked;		/* pinned's first pages, written and unlocked */
	BNode	  **sel;			/* flush_kids' subtrees to write */
	int			nsel;
	int			selcap;
	BNode	  **opened;			/* and the nodes it opened (gather) */
	int			nopened;
	int			openedcap;
	ArtStatus	error;
};

/*
 * Memory for a BNode of size bytes: from its class's free list, else cut
 * from the current chunk.
 */
static BNode *
bnode_alloc(ArtBulkLoader *l, size_t size)
{
	int			cls = (int) ((size + BNODE_GRAIN - 1) / BNODE_GRAIN);
	size_t		bytes = (size_t) cls * BNODE_GRAIN;
	BChunk	   *c = l->chunks;
	BNode	   *b;

	if (cls > BNODE_CLASSES)
		return NULL;			/* cannot happen: see BNODE_CLASSES */
	b = l->freelist[cls];
	if (b != NULL)
	{
		l->freelist[cls] = b->u.nextfree;
		b->sizeclass = (uint16_t) cls;
		return b;
	}
	if (c == NULL || c->used + bytes > BNODE_CHUNK)
	{
		c = art_alloc(l->t, BNODE_CHUNK);
		if (c == NULL)
			return NULL;
		c->next = l->chunks;
		c->used = sizeof(BChunk);
		l->chunks = c;
	}
	b = (BNode *) ((uint8_t *) c + c->used);
	c->used += bytes;
	b->sizeclass = (uint16_t) cls;
	return b;
}

/* A new BNode with a copy of the prefix; n children to be filled in. */
static BNode *
bnode_new(ArtBulkLoader *l, const uint8_t *prefix, size_t plen, int n)
{
	BNode	   *b = bnode_alloc(l, sizeof(BNode) + sizeof(BNode *) * n +
								n + plen);

	if (b == NULL)
		return NULL;
	b->u.count = 0;
	b->size = 0;
	b->plen = (uint32_t) plen;
	b->page = ART_INVALID_PAGENO;
	b->slot = 0;
	b->n = (uint16_t) n;
	b->terminal = false;
	b->height = 0;
	if (plen)
		memcpy(BNODE_PREFIX(b), prefix, plen);
	return b;
}

/* Free one BNode (to its class's free list). */
static void
bnode_free(ArtBulkLoader *l, BNode *b)
{
	b->u.nextfree = l->freelist[b->sizeclass];
	l->freelist[b->sizeclass] = b;
}

/* Size of a BNode's own record. */
static size_t
bnode_rec_size(const BNode *b)
{
	return art_node_size_for(b->plen, b->n,
							 art_count_width(b->u.count, BNODE_WIDE(b)));
}

/*
 * Recompute the pending size and records of b from its children, and
 * whether it is wide: a child written to a page already (a stub in b's
 * page) or a wide child.
 */
static void
bnode_size(BNode *b)
{
	BNode	  **kids = BNODE_KIDS(b);
	size_t		size = 2;
	int			i;

	b->nrec = 1;
	for (i = 0; i < b->n; i++)
	{
		bool		placed = kids[i]->page != ART_INVALID_PAGENO;
		int			h = kids[i]->height + (placed ? 1 : 0);

		size += placed ? ART_STUB_SIZE + 2 : kids[i]->size;
		b->nrec += placed ? 1 : kids[i]->nrec;
		if (h > b->height)
			b->height = (uint8_t) (h < 255 ? h : 255);
	}
	b->size = (uint32_t) (size + bnode_rec_size(b));
}

/* Allocate a fresh page for the loader. */
static ArtStatus
new_page(ArtBulkLoader *l, ArtPinStack *ps)
{
	ArtTrie    *t = l->t;
	ArtStatus	st;

	st = art_grow(t, (void **) &ps->refs, &ps->cap, ps->n + 1,
				  sizeof(ArtPageRef));
	if (st != ART_OK)
		return st;
	st = t->store.ops->alloc(t->store.store, &ps->refs[ps->n]);
	if (st != ART_OK)
		return st;
	art_page_init(ps->refs[ps->n].data);
	ps->n++;
	return ART_OK;
}

/*
 * Room for n frames in place's traversal stacks: a node, its next child
 * and two slot counters.
 */
static ArtStatus
grow_stacks(ArtBulkLoader *l, int n)
{
	ArtStatus	st;

	st = art_grow(l->t, (void **) &l->stack, &l->stackcap, n,
				  sizeof(BNode *));
	if (st == ART_OK)
		st = art_grow(l->t, (void **) &l->stacknext, &l->stacknextcap, n,
					  sizeof(int));
	if (st == ART_OK)
		st = art_grow(l->t, (void **) &l->stackends, &l->stackendscap,
					  2 * n, sizeof(int));
	return st;
}

/* Children of x in another page (each gets a stub). */
static int
stubs_of(BNode *x)
{
	int			n = 0;
	int			i;

	for (i = 0; i < x->n; i++)
		n += BNODE_KIDS(x)[i]->page != ART_INVALID_PAGENO;
	return n;
}

/*
 * Write the pending subtree at root into page q; the root goes to slot
 * force_slot if it is not 0.  Frees the subtree's nodes below the root.
 *
 * The records are laid out in pre-order (parent, then children in key
 * order, a child in another page by its stub), as a walk reads them: they
 * are written in the reverse order, a node after its children, which go
 * last child first, and a page fills from its end down.  Their slots are
 * numbered in post-order, each node's stubs right before it (as when
 * records were written in that order): page merges take the first child
 * pages a page's stubs lead to in slot order, which is then key order.
 * A node's subtree takes nrec slots: the node's own is the last of them,
 * its stubs' the ones right before, and its children's subtrees' before
 * those.  Each frame of the traversal
 * keeps the next slot for a stub and for a child, counting down.
 */
static ArtStatus
place(ArtBulkLoader *l, BNode *root, ArtPageRef *q, int force_slot)
{
	BNode	  **stack;
	int		   *next;
	int		   *ends;
	int			sp = 0;
	int			count;
	ArtStatus	st;

	st = grow_stacks(l, 1);
	if (st != ART_OK)
		return st;
	count = (int) root->nrec - (force_slot ? 1 : 0);
	art_page_add_slots(q->data, count);
	stack = l->stack;
	next = l->stacknext;
	ends = l->stackends;
	stack[0] = root;
	next[0] = 0;
	/* the root's slot; force_slot's root counts as if it had the next */
	root->slot = (uint16_t) (art_page_nslots(q->data) + (force_slot ? 1 : 0));
	ends[0] = root->slot - 1;
	ends[1] = root->slot - 1 - stubs_of(root);
	sp = 1;
	while (sp > 0)
	{
		BNode	   *x = stack[sp - 1];
		ArtNodeBuild nb;
		uint8_t		tmp[ART_MAX_RECORD];
		size_t		size;
		int			i;

		if (next[sp - 1] < x->n)
		{
			BNode	   *kid = BNODE_KIDS(x)[x->n - 1 - next[sp - 1]++];

			if (kid->page != ART_INVALID_PAGENO)
			{
				/* in another page: its stub takes its place here */
				art_stub_encode(kid->page, kid->slot, tmp);
				kid->page = q->pageno;
				kid->slot = (uint16_t) ends[2 * (sp - 1)]--;
				art_rec_put(q->data, kid->slot, tmp, ART_STUB_SIZE);
				continue;
			}
			st = grow_stacks(l, sp + 1);
			if (st != ART_OK)
				return st;
			stack = l->stack;
			next = l->stacknext;
			ends = l->stackends;
			kid->slot = (uint16_t) ends[2 * (sp - 1) + 1];
			ends[2 * (sp - 1) + 1] -= (int) kid->nrec;
			stack[sp] = kid;
			next[sp] = 0;
			ends[2 * sp] = kid->slot - 1;
			ends[2 * sp + 1] = kid->slot - 1 - stubs_of(kid);
			sp++;
			continue;
		}
		sp--;
		nb.terminal = x->terminal;
		nb.plen = x->plen;
		nb.prefix = BNODE_PREFIX(x);
		nb.count = x->u.count;
		nb.wide = BNODE_WIDE(x);
		nb.n = x->n;
		for (i = 0; i < x->n; i++)
		{
			BNode	   *kid = BNODE_KIDS(x)[i];

			nb.keys[i] = BNODE_KEYS(x)[i];
			nb.children[i] = art_child_of_slot(q->data, kid->slot);
			bnode_free(l, kid);
		}
		x->n = 0;
		size = art_build_encode(&nb, tmp);
		x->page = q->pageno;
		if (x == root && force_slot)
		{
			art_rec_replace(q->data, force_slot, tmp, size);
			x->slot = (uint16_t) force_slot;
		}
		else
			art_rec_put(q->data, x->slot, tmp, size);
	}
	return ART_OK;
}

/* Order BNode pointers by pending size, largest first. */
static int
size_desc(const void *a, const void *b)
{
	size_t		sa = (*(BNode *const *) a)->size;
	size_t		sb = (*(BNode *const *) b)->size;

	return sa < sb ? 1 : sa > sb ? -1 : 0;
}

/*
 * Gather the subtrees of x that flush_kids packs: x's pending children,
 * except that a child larger than open bytes (BULK_OPEN, or half a page:
 * two of which would not share a page) is opened: it stays pending and
 * its own pending children are gathered in its place, recursively.  Only a node with several
 * children, all pending, is opened: a chain node's one child would take
 * its place alone, and a long key's chain (an insert's long tail, which
 * keeps its pages pinned) would take twice the pages.  With routing, a
 * child with BULK_ROUTE_HEIGHT pages or more below its own is opened too,
 * whatever its size: the nodes that lead to chains of pages stay pending
 * with x, and what hangs beside them is gathered.  Opened nodes are
 * listed after their descendants, so that their sizes can be recomputed
 * in that order.
 */
static ArtStatus
gather(ArtBulkLoader *l, BNode *x, size_t open_above, bool routing)
{
	ArtStatus	st = ART_OK;
	int			i;

	for (i = 0; i < x->n && st == ART_OK; i++)
	{
		BNode	   *k = BNODE_KIDS(x)[i];
		int			j;
		bool		open = routing && k->height >= BULK_ROUTE_HEIGHT;

		if (k->page != ART_INVALID_PAGENO)
			continue;
		if (!open && k->size > open_above && k->n > 1)
		{
			open = true;
			for (j = 0; j < k->n && open; j++)
				open = BNODE_KIDS(k)[j]->page == ART_INVALID_PAGENO;
		}
		if (open)
		{
			st = gather(l, k, open_above, routing);
			if (st == ART_OK)
				st = art_grow(l->t, (void **) &l->opened, &l->openedcap,
							  l->nopened + 1, sizeof(BNode *));
			if (st == ART_OK)
				l->opened[l->nopened++] = k;
			continue;
		}
		st = art_grow(l->t, (void **) &l->sel, &l->selcap, l->nsel + 1,
					  sizeof(BNode *));
		if (st == ART_OK)
			l->sel[l->nsel++] = k;
	}
	return st;
}

/*
 * Whether the subtrees gathered leave pages under 3/4 full: each of those
 * over half a page takes a page of its own, and all of them together
 * would not fill those pages to 3/4.  Between half a page and BULK_OPEN
 * (synth's subtrees of ten users at 2-4 million keys, 4.3-4.7 kB, ten of
 * them under one node) that made pages 57% full.
 */
static bool
gathered_loose(const ArtBulkLoader *l)
{
	size_t		total = 0;
	int			nbig = 0;

	for (int i = 0; i < l->nsel; i++)
	{
		total += l->sel[i]->size;
		if (l->sel[i]->size > ART_PAGE_USABLE / 2)
			nbig++;
	}
	return nbig > 0 && total < (size_t) nbig * ART_PAGE_USABLE * 3 / 4;
}

/*
 * Gather b's subtrees (gather) at BULK_OPEN, or at half a page where
 * that leaves pages loose (gathered_loose).
 */
static ArtStatus
gather_all(ArtBulkLoader *l, BNode *b, bool routing)
{
	ArtStatus	st;

	l->nsel = 0;
	l->nopened = 0;
	st = gather(l, b, BULK_OPEN, routing);
	if (st == ART_OK && gathered_loose(l))
	{
		/* open the large subtrees at half a page instead */
		l->nsel = 0;
		l->nopened = 0;
		st = gather(l, b, ART_PAGE_USABLE / 2, routing);
	}
	return st;
}

/*
 * b's size once every subtree gathered is a stub (a leaf may be less),
 * b and the nodes opened wide, as they are when a child goes.
 */
static int64_t
gathered_base(const ArtBulkLoader *l, const BNode *b)
{
	int64_t		base;
	int			i;

	base = (int64_t) b->size + ART_COUNT_WIDE -
		art_count_width(b->u.count, BNODE_WIDE(b));
	for (i = 0; i < l->nopened; i++)
		base += ART_COUNT_WIDE -
			art_count_width(l->opened[i]->u.count,
							 BNODE_WIDE(l->opened[i]));
	for (i = 0; i < l->nsel; i++)
		base -= (int64_t) l->sel[i]->size - (ART_STUB_SIZE + 2);
	return base;
}

/*
 * Write out b's pending subtrees (gather) so that b's pending size is at
 * most limit.  They are packed first-fit, largest first, into page-sized
 * bins; every bin becomes a fresh page, except the least full one, which
 * stays pending with b when b still fits.  So written pages are nearly
 * full, and every subtree in one hangs from b or a node that stays
 * pending with b, so the page's page roots are referenced from the one
 * page b goes to (page merges take only such pages).
 */
static ArtStatus
flush_kids(ArtBulkLoader *l, BNode *b, size_t limit)
{
	ArtTrie    *t = l->t;
	BNode	  **sel;
	int		   *bin = NULL;
	size_t	   *binsize = NULL;
	int		   *bincount = NULL;
	int			nbins = 0;
	int			nsel;
	int			keep = -1;
	int64_t		base;
	ArtPinStack local = {0};
	ArtPinStack *ps = l->keep_pinned ? &l->pinned : &local;
	ArtStatus	st;
	int			i;
	int			k;

	/*
	 * The nodes that lead to chains of pages stay with b if b then fits:
	 * so the page they go to holds many stubs, not a few beside the
	 * subtrees each earlier flush kept pending (which made chains of full
	 * pages leading to two or three pages each, a page per level of
	 * /usr's directories); else whole subtrees go.
	 */
	st = gather_all(l, b, true);
	if (st == ART_OK && gathered_base(l, b) > (int64_t) limit)
		st = gather_all(l, b, false);
	nsel = l->nsel;
	sel = l->sel;
	if (st == ART_OK && nsel > 0)
	{
		/* at most one bin per subtree */
		binsize = art_alloc(t, (sizeof(size_t) + sizeof(int) * 2) *
							(size_t) nsel);
		if (binsize == NULL)
			st = ART_NO_MEMORY;
		else
		{
			bin = (int *) (binsize + nsel);
			bincount = bin + nsel;
		}
	}
	if (st != ART_OK)
		return st;
	base = gathered_base(l, b);
	qsort(sel, nsel, sizeof(BNode *), size_desc);
	for (i = 0; i < nsel; i++)
	{
		for (k = 0; k < nbins; k++)
			if (binsize[k] + sel[i]->size <= ART_PAGE_USABLE)
				break;
		if (k == nbins)
		{
			binsize[nbins] = 0;
			bincount[nbins++] = 0;
		}
		binsize[k] += sel[i]->size;
		bincount[k]++;
		bin[i] = k;
	}
	for (k = 0; k < nbins; k++)
		if (base + (int64_t) binsize[k] -
			(int64_t) bincount[k] * (ART_STUB_SIZE + 2) <= (int64_t) limit &&
			(keep < 0 || binsize[k] < binsize[keep]))
			keep = k;
	for (k = 0; k < nbins && st == ART_OK; k++)
	{
		if (k == keep)
			continue;
		st = new_page(l, ps);
		for (i = 0; i < nsel && st == ART_OK; i++)
			if (bin[i] == k)
				st = place(l, sel[i], &ps->refs[ps->n - 1], 0);
		if (st == ART_OK && l->keep_pinned)
		{
			/* written: only relocked to be freed again */
			t->store.ops->mark_dirty(t->store.store, &ps->refs[ps->n - 1]);
			t->store.ops->unlock(t->store.store, &ps->refs[ps->n - 1]);
			l->nunlocked = ps->n;
		}
	}
	for (i = 0; i < l->nopened; i++)
		bnode_size(l->opened[i]);
	bnode_size(b);
	art_free(t, binsize);
	if (!l->keep_pinned)
	{
		for (i = 0; i < local.n; i++)
			t->store.ops->mark_dirty(t->store.store, &local.refs[i]);
		art_pin_release_all(t, &local);
	}
	return st;
}

/* Compute b's count and size, writing out children if it is too big. */
static ArtStatus
finalize(ArtBulkLoader *l, BNode *b)
{
	int			i;

	b->u.count = b->terminal ? 1 : 0;
	for (i = 0; i < b->n; i++)
		b->u.count += BNODE_KIDS(b)[i]->u.count;
	bnode_size(b);
	if (b->size > BULK_FILL)
		return flush_kids(l, b, BULK_FILL);
	return ART_OK;
}

/*
 * Close a node whose prefix is key[d0, d1), with children taken from the
 * given arrays.  A prefix too long for one node becomes a chain.
 */
static ArtStatus
close_node(ArtBulkLoader *l, const uint8_t *key, size_t d0, size_t d1,
		   bool terminal, int n, const uint8_t *keys, BNode *const *kids,
		   BNode **out)
{
	size_t		plen = d1 - d0;
	size_t		pos = 0;
	BNode	   *b;
	ArtStatus	st;

	while (plen - pos > ART_MAX_PREFIX)
		pos += ART_MAX_PREFIX + 1;
	b = bnode_new(l, key + d0 + pos, plen - pos, n);
	if (b == NULL)
		return ART_NO_MEMORY;
	b->terminal = terminal;
	if (n)
	{
		memcpy(BNODE_KEYS(b), keys, n);
		memcpy(BNODE_KIDS(b), kids, sizeof(BNode *) * n);
	}
	st = finalize(l, b);
	while (st == ART_OK && pos > 0)
	{
		BNode	   *c;

		pos -= ART_MAX_PREFIX + 1;
		c = bnode_new(l, key + d0 + pos, ART_MAX_PREFIX, 1);
		if (c == NULL)
			return ART_NO_MEMORY;
		BNODE_KEYS(c)[0] = key[d0 + pos + ART_MAX_PREFIX];
		BNODE_KIDS(c)[0] = b;
		st = finalize(l, c);
		b = c;
	}
	*out = b;
	return st;
}

/* Add a child to an open spine node. */
static ArtStatus
spine_add_kid(ArtBulkLoader *l, SpineNode *sn, uint8_t key, BNode *kid)
{
	ArtStatus	st;

	st = art_grow(l->t, (void **) &sn->keys, &sn->cap, sn->n + 1, 1);
	if (st == ART_OK)
		st = art_grow(l->t, (void **) &sn->kids, &sn->kcap, sn->n + 1,
					  sizeof(BNode *));
	if (st != ART_OK)
		return st;
	sn->keys[sn->n] = key;
	sn->kids[sn->n] = kid;
	sn->n++;
	return ART_OK;
}

/* Close the top spine node into its parent (or *root for the bottom). */
static ArtStatus
spine_pop(ArtBulkLoader *l, BNode **root)
{
	SpineNode  *sn = &l->spine[l->nspine - 1];
	BNode	   *b;
	ArtStatus	st;

	st = close_node(l, l->key.data, sn->d0, sn->d1, sn->terminal, sn->n,
					sn->keys, sn->kids, &b);
	sn->n = 0;
	l->nspine--;
	if (st != ART_OK)
		return st;
	if (l->nspine == 0)
	{
		*root = b;
		return ART_OK;
	}
	return spine_add_kid(l, &l->spine[l->nspine - 1], l->key.data[sn->d0 - 1], b);
}

/*
 * Push a new open node for key[d0, d1); it reuses the arrays of the node
 * last popped from that level.
 */
static ArtStatus
spine_push(ArtBulkLoader *l, size_t d0, size_t d1, bool terminal)
{
	ArtStatus	st = art_grow(l->t, (void **) &l->spine, &l->spinecap,
							  l->nspine + 1, sizeof(SpineNode));
	SpineNode  *sn;

	if (st != ART_OK)
		return st;
	if (l->nspine == l->spineinit)
	{
		memset(&l->spine[l->spineinit], 0, sizeof(SpineNode));
		l->spineinit++;
	}
	sn = &l->spine[l->nspine++];
	sn->n = 0;
	sn->d0 = d0;
	sn->d1 = d1;
	sn->terminal = terminal;
	return ART_OK;
}

/* A new loader over an empty trie. */
static ArtBulkLoader *
loader_new(ArtTrie *t)
{
	ArtBulkLoader *l = art_alloc(t, sizeof(ArtBulkLoader));

	if (l)
	{
		memset(l, 0, sizeof(ArtBulkLoader));
		l->t = t;
	}
	return l;
}

/* Free everything a loader holds (not its pages). */
static void
loader_free(ArtBulkLoader *l)
{
	ArtTrie    *t = l->t;
	int			i;

	for (i = 0; i < l->spineinit; i++)
	{
		art_free(t, l->spine[i].keys);
		art_free(t, l->spine[i].kids);
	}
	while (l->chunks)
	{
		BChunk	   *c = l->chunks;

		l->chunks = c->next;
		art_free(t, c);
	}
	art_free(t, l->stack);
	art_free(t, l->stacknext);
	art_free(t, l->stackends);
	art_free(t, l->sel);
	art_free(t, l->opened);
	art_free(t, l->spine);
	art_buf_free(t, &l->key);
	art_pin_release_all(t, &l->pinned);
	art_free(t, l);
}

/* Start a bulk load; the trie must be empty. */
ArtStatus
art_bulk_begin(ArtTrie *t, ArtBulkLoader **loader)
{
	ArtPageRef	ref;
	ArtNode		node;
	ArtStatus	st;

	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	art_node_decode(art_rec(ref.data, ART_ROOT_SLOT), &node);
	t->store.ops->release(t->store.store, &ref);
	if (node.n != 0 || node.terminal)
		return ART_EXISTS;
	*loader = loader_new(t);
	return *loader ? ART_OK : ART_NO_MEMORY;
}

/* Add the next entry, which must sort after the previous one. */
ArtStatus
art_bulk_add(ArtBulkLoader *l, const uint8_t *entry, size_t len)
{
	const uint8_t *prev = l->key.data;
	size_t		plen = l->key.len;
	size_t		lcp = 0;
	ArtStatus	st;

	if (l->error != ART_OK)
		return l->error;
	if (len > ART_MAX_ENTRY_LEN)
		return ART_TOO_LONG;
	if (!l->any)
	{
		st = art_buf_reserve(l->t, &l->key, len + 1);
		if (st == ART_OK)
			st = art_buf_append(l->t, &l->key, entry, len);
		if (st == ART_OK)
			st = spine_push(l, 0, len, true);
		l->any = true;
		l->groups = 1;
		l->error = st;
		return st;
	}
	while (lcp < len && lcp < plen && prev[lcp] == entry[lcp])
		lcp++;
	if (lcp == len || (lcp < plen && entry[lcp] < prev[lcp]))
		return ART_CORRUPT;
	st = ART_OK;
	while (st == ART_OK && l->spine[l->nspine - 1].d0 > lcp)
		st = spine_pop(l, NULL);
	if (st == ART_OK && lcp < l->spine[l->nspine - 1].d1)
	{
		/* the entry leaves the top node's prefix: split it */
		SpineNode  *x = &l->spine[l->nspine - 1];
		BNode	   *b;

		st = close_node(l, prev, lcp + 1, x->d1, x->terminal, x->n, x->keys,
						x->kids, &b);
		if (st == ART_OK)
		{
			x->n = 0;
			x->d1 = lcp;
			x->terminal = false;
			st = spine_add_kid(l, x, prev[lcp], b);
		}
	}
	if (st == ART_OK)
	{
		l->key.len = 0;
		st = art_buf_append(l->t, &l->key, entry, len);
	}
	if (st == ART_OK)
		st = spine_push(l, lcp + 1, len, true);
	/* in order, an entry starts a group unless it is its predecessor's */
	if (art_group_change(entry, len, lcp))
		l->groups++;
	l->error = st;
	return st;
}

/* Close every spine node; the root's pending subtree goes to *root. */
static ArtStatus
close_all(ArtBulkLoader *l, BNode **root)
{
	ArtStatus	st = ART_OK;

	*root = NULL;
	while (st == ART_OK && l->nspine > 0)
		st = spine_pop(l, root);
	return st;
}

/* Finish: write the root's subtree to the root page; frees the loader. */
ArtStatus
art_bulk_finish(ArtBulkLoader *l)
{
	ArtTrie    *t = l->t;
	BNode	   *root = NULL;
	ArtStatus	st = l->error;
	ArtPageRef	ref;

	if (st == ART_OK && l->any)
		st = close_all(l, &root);
	if (st == ART_OK && root != NULL && root->size > BULK_FILL - 8)
		st = flush_kids(l, root, BULK_FILL - 8);
	if (st == ART_OK && root != NULL)
	{
		/*
		 * In a write section, as an insert's change, so that a store that
		 * keeps the pages sees the root and its group count together.
		 */
		t->store.ops->write_begin(t->store.store, ART_LOCK_SHARE);
		st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_EXCLUSIVE,
							   &ref);
		if (st == ART_OK)
		{
			art_root_reset(ref.data);
			st = place(l, root, &ref, ART_ROOT_SLOT);
			if (st == ART_OK)
				art_page_compact(ref.data);
			if (st == ART_OK && art_root_counts_groups(ref.data))
				t->store.ops->groups_add(t->store.store, (int64_t) l->groups);
			t->store.ops->mark_dirty(t->store.store, &ref);
			t->store.ops->version(t->store.store, true);
			t->store.ops->release(t->store.store, &ref);
		}
		t->store.ops->write_end(t->store.store, ART_LOCK_SHARE);
	}
	loader_free(l);
	return st;
}

/* Give up a bulk load; frees the loader and leaves the trie empty. */
void
art_bulk_abort(ArtBulkLoader *l)
{
	loader_free(l);
}

/*
 * Write a new path (one entry's long tail: a chain of nodes ending in a
 * leaf) into fresh pages, for an insert.  On success the pages are
 * written and released and (page, slot) is the top node; on failure the
 * pages are freed again and nothing in the trie changed.  Only the page
 * being written is locked.
 */
ArtStatus
art_bulk_place_leaf(ArtTrie *t, const uint8_t *suffix, size_t len,
					ArtPageNo *page, uint16_t *slot)
{
	ArtBulkLoader *l = loader_new(t);
	BNode	   *top = NULL;
	ArtStatus	st;
	int			i;

	if (l == NULL)
		return ART_NO_MEMORY;
	l->keep_pinned = true;
	st = close_node(l, suffix, 0, len, true, 0, NULL, NULL, &top);
	if (st == ART_OK)
		st = new_page(l, &l->pinned);
	if (st == ART_OK)
		st = place(l, top, &l->pinned.refs[l->pinned.n - 1], 0);
	if (st == ART_OK)
	{
		*page = top->page;
		*slot = top->slot;
		for (i = l->nunlocked; i < l->pinned.n; i++)
			t->store.ops->mark_dirty(t->store.store, &l->pinned.refs[i]);
	}
	else
	{
		for (i = 0; i < l->nunlocked; i++)
			t->store.ops->relock(t->store.store, &l->pinned.refs[i],
								 ART_LOCK_EXCLUSIVE);
		while (l->pinned.n > 0)
			t->store.ops->free(t->store.store, &l->pinned.refs[--l->pinned.n]);
	}
	loader_free(l);
	return st;
}
