/*-------------------------------------------------------------------------
 *
 * trie_relayout.c
 *	  Laying subtrees of the root page out again over all their levels.
 *
 * Merges, spills and repacks move the page roots of one page, or of the
 * pages beside it under one parent page, and none moves a page that holds
 * stubs.  Under churn a subtree of the root page grows three or four
 * levels of pages, a third of them pages of stubs, each group under one
 * of them too small for a repack to save a page, and the pages end about
 * 72% full where a fresh build fills them to 98% (words in a model of
 * bench/space_churn.sh's churn, bench/trie_churn.c).  A build at 98%
 * splits again in the next round of inserts; one at about 85% holds.
 *
 * art_relayout takes the page top below the root page on a delete's path
 * and the pages up to RELAYOUT_REACH runs of the root page's stubs away
 * from it in key order (the tops), with every page below them through
 * their stubs: the group, RELAYOUT_PAGES at most (a test may set
 * another bound in ArtTrie.relayout_pages; when the pages pass it, the
 * tops fewer runs away, down to top alone), no top reached from
 * below another, and every record in it reached from the root page's
 * stubs that lead to the tops.  When the group has a page below its tops
 * and its bytes fit one page fewer at RELAYOUT_FILL (by the pages'
 * headers, before anything is decoded), it reads the group's nodes
 * through the stubs and packs them bottom-up as the bulk loader does: a
 * node whose pending subtree passes RELAYOUT_FILL writes its largest
 * pending children out (a child larger than RELAYOUT_OPEN with several
 * children is opened and its children go instead), first-fit into pages
 * of at most RELAYOUT_FILL, the least full staying pending with it; at
 * the end the tops' page roots are packed first-fit into pages the same
 * way.  If that takes fewer pages than the group has, the group's pages
 * in ascending page number take the new layout, the root page's stubs
 * are repointed and the pages left over are freed.  The result depends
 * on the pages' content alone, so redo, which merges where VACUUM merged
 * (its merge records), makes the same layout from the same pages; like
 * the merges, it keeps the entries and needs no WAL record.
 *
 * Locks: the caller holds the write section (share) and the split
 * section exclusive, so no insert is under way and no other process
 * changes a page, and holds no page.  The group is found, and its bytes
 * summed, with the root page share (readers pass it) and each page
 * pinned in share mode only to read it; a group that fits a page fewer
 * by its bytes is found again, its pages pinned share, each after every
 * page of the group whose stubs lead to it, copied, read and packed,
 * still under share locks.  Only a packing that takes a page fewer takes
 * the root page (its stubs are repointed) and then the group's pages
 * exclusive, in that order (art_relock_exclusive): a page may hang from
 * two pages of the group, and a reader coupling its locks down through
 * one of them must never hold it while it waits for the page.  So
 * readers wait only while the pages are written.  Everything is pinned,
 * and every node read and placed, before anything changes; no page is
 * allocated.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "trie_internal.h"

/* A relayout fills pages up to this many bytes (records and slots). */
#define RELAYOUT_FILL	(ART_PAGE_USABLE * 85 / 100)
/*
 * A pending subtree larger than this is opened: its children packed.  A
 * quarter of a page, not the bulk loader's 7/12: md5's subtrees two bytes
 * deep, 2-3 kB, packed whole fill pages at 85% only two at a time.
 */
#define RELAYOUT_OPEN	(RELAYOUT_FILL / 4)
/*
 * Nodes on a path through the group, at most: packing and writing recurse
 * along paths (a group of 20 pages of one long key's branches could hold
 * paths thousands of nodes deep).
 */
#define RELAYOUT_DEPTH	512
/* Pages of a group, at most, unless the trie says (ArtTrie.relayout_pages). */
#define RELAYOUT_PAGES	20
/* ... and what the trie may say, at most. */
#define RELAYOUT_PAGES_MAX	32
/* How far in key order (runs of the root page's stubs) a group reaches. */
#define RELAYOUT_REACH	2

#define MAX_SLOTS	(ART_PAGE_USABLE / 2 + 1)

/* What a try needs the group to lose first: nothing to gain by losing. */
#define LACK_NONE		SIZE_MAX

/*
 * A node of the group (node 0 stands for the root page, the tops' page
 * roots its children, and has no record).  Nodes are numbered in
 * pre-order, so that every node comes before its descendants.
 */
typedef struct RNode
{
	uint8_t    *rec;			/* its record in the group's copy */
	uint64_t	count;
	uint32_t	plen;
	int			kids;			/* its first child in the kid list */
	int			n;				/* children (0: a leaf) */
	uint32_t	size;			/* pending bytes of the subtree, slots incl. */
	int			bin;			/* -1: pending; else the page it roots */
	bool		wide;
	uint16_t	slot;			/* its slot in its page */
	uint16_t	stub;			/* a bin's root: its stub's slot above */
} RNode;

/* The group's nodes and the packing's scratch. */
typedef struct Relayout
{
	ArtTrie    *t;
	ArtPageRef	root;			/* the root page, exclusive */
	int			nroots;			/* the group's page roots: the stubs of */
	uint16_t   *rstub;			/* ... the root page that lead into it, */
								/* ... in key order */
	int			ntops;			/* pages they lead to (0: no group) */
	int			nfound;			/* the group's pages, pinned or not */
	int			npages;			/* ... those pinned, in refs */
	ArtPageRef	refs[RELAYOUT_PAGES_MAX];
	uint8_t    *copy;			/* the group's pages, as they were */
	uint8_t    *seen;			/* per page and slot: record read */
	RNode	   *nodes;
	int			nnodes;
	int			ncap;
	int		   *kid;			/* children, each node's in key order */
	int			nkid;
	int			kcap;
	int		   *sel;			/* flush: subtrees gathered */
	int			nsel;
	int			selcap;
	int		   *opened;			/* flush: nodes opened, descendants first */
	int			nopened;
	int			opencap;
	int			nbins;
	int			nslots[RELAYOUT_PAGES_MAX];
	size_t		bytes[RELAYOUT_PAGES_MAX];
	ArtNodeBuild build;			/* write_part's scratch (it recurses) */
	uint8_t		tmp[ART_MAX_RECORD];
} Relayout;

/* Pages of a group of t, at most. */
static int
group_pages(const ArtTrie *t)
{
	if (t->relayout_pages <= 0)
		return RELAYOUT_PAGES;
	return t->relayout_pages < RELAYOUT_PAGES_MAX ?
		t->relayout_pages : RELAYOUT_PAGES_MAX;
}

/* The index in the group of page pg, or -1. */
static int
group_index(const Relayout *r, ArtPageNo pg)
{
	for (int g = 0; g < r->npages; g++)
		if (r->refs[g].pageno == pg)
			return g;
	return -1;
}

/* Release the group's pages. */
static void
group_release(Relayout *r)
{
	while (r->npages > 0)
		r->t->store.ops->release(r->t->store.store, &r->refs[--r->npages]);
}

/* Bytes of a page's records and their slots. */
static size_t
page_bytes(const uint8_t *page)
{
	return art_page_used(page) +
		2 * (size_t) (art_page_nslots(page) - art_page_nfree(page));
}

/*
 * The distinct pages that the stubs of page lead to, into out (at most
 * most; more are counted but not kept); returns how many.
 */
static int
stub_pages(uint8_t *page, ArtPageNo *out, int most)
{
	int			nslots = art_page_nslots(page);
	int			n = 0;

	for (int s = 1; s <= nslots; s++)
	{
		ArtPageNo	pg;
		uint16_t	sl;
		bool		have = false;

		if (art_slot_off(page, s) == 0 || !art_is_stub(art_rec(page, s)))
			continue;
		art_stub_target(art_rec(page, s), &pg, &sl);
		for (int i = 0; i < n && i < most; i++)
			have |= out[i] == pg;
		if (have)
			continue;
		if (n < most)
			out[n] = pg;
		n++;
	}
	return n;
}

/* A new node for the record in slot of group page g; -1 when corrupt. */
static int
new_node(Relayout *r, int g, uint16_t slot)
{
	uint8_t    *page = r->copy + (size_t) g * ART_PAGE_SIZE;
	RNode	   *x;
	ArtNode		node;

	if (slot < 1 || slot > art_page_nslots(page) ||
		art_slot_off(page, slot) == 0 ||
		r->seen[(size_t) g * MAX_SLOTS + slot])
		return -1;
	r->seen[(size_t) g * MAX_SLOTS + slot] = 1;
	if (art_grow(r->t, (void **) &r->nodes, &r->ncap, r->nnodes + 1,
				 sizeof(RNode)) != ART_OK)
		return -2;
	x = &r->nodes[r->nnodes];
	x->rec = art_rec(page, slot);
	art_node_decode(x->rec, &node);
	x->count = node.count;
	x->plen = node.plen;
	x->n = node.kind == ART_NODE_LEAF ? 0 : node.n;
	x->kids = r->nkid;
	x->size = 0;
	x->bin = -1;
	x->wide = false;
	x->slot = 0;
	x->stub = 0;
	if (art_grow(r->t, (void **) &r->kid, &r->kcap, r->nkid + x->n,
				 sizeof(int)) != ART_OK)
		return -2;
	r->nkid += x->n;
	return r->nnodes++;
}

/*
 * Read the group's nodes from the copy, in pre-order from the page roots
 * that the root page's stubs r->rstub lead to, a stub's target in its
 * place; ART_OK with *ok false when a record is read twice, a stub leads
 * out of the group, or a record of the group is not reached (a page root
 * referenced from outside), and with *deep too when a path passes
 * RELAYOUT_DEPTH nodes.
 */
static ArtStatus
read_nodes(Relayout *r, bool *ok, bool *deep)
{
	int		   *stack = NULL;
	int			cap = 0;
	int			sp = 0;
	ArtStatus	st = ART_OK;

	*ok = false;
	*deep = false;
	r->nnodes = 1;
	r->nkid = r->nroots;
	r->nodes[0].n = r->nroots;
	r->nodes[0].kids = 0;
	r->nodes[0].rec = NULL;
	r->nodes[0].bin = -1;
	r->nodes[0].wide = true;
	/* a stack of (depth, page, slot, parent's kid index), the first root on top */
	st = art_grow(r->t, (void **) &stack, &cap, 4 * r->nroots, sizeof(int));
	if (st != ART_OK)
		goto out;
	for (int i = r->nroots - 1; i >= 0; i--)
	{
		ArtPageNo	pg;
		uint16_t	sl;

		art_stub_target(art_rec(r->root.data, r->rstub[i]), &pg, &sl);
		stack[sp++] = 1;
		stack[sp++] = group_index(r, pg);
		stack[sp++] = sl;
		stack[sp++] = i;
	}
	while (sp > 0)
	{
		int			at = stack[--sp];
		uint16_t	slot = (uint16_t) stack[--sp];
		int			g = stack[--sp];
		int			depth = stack[--sp];
		uint8_t    *page;
		int			x;
		ArtNode		node;
		ArtNodeBuild b;

		if (g < 0)
			goto out;
		page = r->copy + (size_t) g * ART_PAGE_SIZE;
		if (slot >= 1 && slot <= art_page_nslots(page) &&
			art_slot_off(page, slot) != 0 && art_is_stub(art_rec(page, slot)))
		{
			ArtPageNo	pg;
			uint16_t	sl;

			if (r->seen[(size_t) g * MAX_SLOTS + slot])
				goto out;
			r->seen[(size_t) g * MAX_SLOTS + slot] = 1;
			art_stub_target(art_rec(page, slot), &pg, &sl);
			g = group_index(r, pg);
			if (g < 0)
				goto out;
			slot = sl;
			page = r->copy + (size_t) g * ART_PAGE_SIZE;
		}
		x = new_node(r, g, slot);
		if (x == -2)
			st = ART_NO_MEMORY;
		if (x < 0)
			goto out;
		r->kid[at] = x;
		if (r->nodes[x].n == 0)
			continue;
		art_node_decode(r->nodes[x].rec, &node);
		art_build_from_node(&node, &b);
		if (depth == RELAYOUT_DEPTH)
		{
			*deep = true;
			goto out;
		}
		st = art_grow(r->t, (void **) &stack, &cap, sp + 4 * b.n,
					  sizeof(int));
		if (st != ART_OK)
			goto out;
		for (int i = b.n - 1; i >= 0; i--)
		{
			stack[sp++] = depth + 1;
			stack[sp++] = g;
			stack[sp++] = art_child_slot(page, b.children[i]);
			stack[sp++] = r->nodes[x].kids + i;
		}
	}
	for (int g = 0; g < r->npages; g++)
	{
		uint8_t    *page = r->copy + (size_t) g * ART_PAGE_SIZE;

		for (int s = 1; s <= art_page_nslots(page); s++)
			if (art_slot_off(page, s) != 0 &&
				!r->seen[(size_t) g * MAX_SLOTS + s])
				goto out;
	}
	*ok = true;
out:
	art_free(r->t, stack);
	return st;
}

/* Bytes of node x's own record, as wide as it is now. */
static size_t
own_size(const RNode *x)
{
	if (x->rec == NULL)
		return 0;
	if (x->n == 0)
		return art_rec_size(x->rec);
	return art_node_size_for(x->plen, x->n,
							 art_count_width(x->count, x->wide));
}

/* Recompute node x's pending size and whether it is wide. */
static void
node_size(Relayout *r, int x)
{
	RNode	   *nx = &r->nodes[x];
	size_t		size = nx->rec != NULL ? 2 : 0;

	for (int i = 0; i < nx->n; i++)
	{
		RNode	   *k = &r->nodes[r->kid[nx->kids + i]];
		bool		placed = k->bin >= 0;

		size += placed ? ART_STUB_SIZE + 2 : k->size;
		nx->wide = nx->wide || placed || k->wide;
	}
	nx->size = (uint32_t) (size + own_size(nx));
}

/*
 * Gather the pending subtrees below x that a flush packs: its pending
 * children, a child larger than RELAYOUT_OPEN with several children, all
 * pending, opened and its own gathered in its place (as the bulk loader's
 * gather); below node 0 (the root page), none is opened: the tops' page
 * roots all go to pages whole.
 */
static ArtStatus
gather(Relayout *r, int x)
{
	RNode	   *nx = &r->nodes[x];

	for (int i = 0; i < nx->n; i++)
	{
		int			k = r->kid[nx->kids + i];
		RNode	   *nk = &r->nodes[k];
		bool		open = false;
		ArtStatus	st;

		if (nk->bin >= 0)
			continue;
		if (x != 0 && nk->size > RELAYOUT_OPEN && nk->n > 1)
		{
			open = true;
			for (int j = 0; j < nk->n && open; j++)
				open = r->nodes[r->kid[nk->kids + j]].bin < 0;
		}
		if (open)
		{
			st = gather(r, k);
			if (st == ART_OK)
				st = art_grow(r->t, (void **) &r->opened, &r->opencap,
							  r->nopened + 1, sizeof(int));
			if (st != ART_OK)
				return st;
			r->opened[r->nopened++] = k;
			continue;
		}
		st = art_grow(r->t, (void **) &r->sel, &r->selcap, r->nsel + 1,
					  sizeof(int));
		if (st != ART_OK)
			return st;
		r->sel[r->nsel++] = k;
	}
	return ART_OK;
}

/* The count's bytes a node gains when it becomes wide. */
static int64_t
widen(const RNode *x)
{
	if (x->rec == NULL || x->n == 0)
		return 0;
	return ART_COUNT_WIDE - art_count_width(x->count, x->wide);
}

/*
 * Write out x's pending subtrees (gather) so that x's pending size is at
 * most RELAYOUT_FILL: first-fit, largest first, into bins of at most
 * RELAYOUT_FILL bytes (when a subtree was opened, in key order, a bin
 * filled before the next: the order VACUUM deletes in, so that its runs
 * of deletes in one page stay long), each a page of its own but the
 * least full one, which stays pending with x when x then still fits
 * (never with node 0: the root page takes nothing).
 */
static ArtStatus
flush(Relayout *r, int x)
{
	size_t	   *binsize;
	int		   *bincount;
	int		   *bin;
	int			nb = 0;
	int			keep = -1;
	int64_t		base;
	ArtStatus	st;

	r->nsel = 0;
	r->nopened = 0;
	st = gather(r, x);
	if (st != ART_OK || r->nsel == 0)
		return st;
	/* at most a bin per subtree */
	binsize = art_alloc(r->t, (sizeof(size_t) + 2 * sizeof(int)) * r->nsel);
	if (binsize == NULL)
		return ART_NO_MEMORY;
	bincount = (int *) (binsize + r->nsel);
	bin = bincount + r->nsel;
	base = (int64_t) r->nodes[x].size + widen(&r->nodes[x]);
	for (int i = 0; i < r->nopened; i++)
		base += widen(&r->nodes[r->opened[i]]);
	for (int i = 0; i < r->nsel; i++)
		base -= (int64_t) r->nodes[r->sel[i]].size - (ART_STUB_SIZE + 2);
	/* largest first, in pre-order among equals */
	for (int i = 1; i < r->nsel && r->nopened == 0; i++)
	{
		int			k = r->sel[i];
		int			j = i;

		while (j > 0 && r->nodes[r->sel[j - 1]].size < r->nodes[k].size)
		{
			r->sel[j] = r->sel[j - 1];
			j--;
		}
		r->sel[j] = k;
	}
	for (int i = 0; i < r->nsel; i++)
	{
		int			k = r->nopened > 0 && nb > 0 ? nb - 1 : 0;

		while (k < nb && binsize[k] + r->nodes[r->sel[i]].size > RELAYOUT_FILL)
			k++;
		if (k == nb)
		{
			binsize[nb] = 0;
			bincount[nb++] = 0;
		}
		binsize[k] += r->nodes[r->sel[i]].size;
		bincount[k]++;
		bin[i] = k;
	}
	for (int k = 0; k < nb && x != 0; k++)
		if (base + (int64_t) binsize[k] -
			(int64_t) bincount[k] * (ART_STUB_SIZE + 2) <= RELAYOUT_FILL &&
			(keep < 0 || binsize[k] < binsize[keep]))
			keep = k;
	for (int k = 0; k < nb; k++)
	{
		if (k == keep)
			continue;
		for (int i = 0; i < r->nsel; i++)
			if (bin[i] == k)
				r->nodes[r->sel[i]].bin = r->nbins;
		r->nbins++;
	}
	for (int i = 0; i < r->nopened; i++)
		node_size(r, r->opened[i]);
	node_size(r, x);
	art_free(r->t, binsize);
	return ART_OK;
}

/*
 * Give the records below node x in its bin b slots, in pre-order: each
 * child's in key order, a child in another bin by its stub; next is the
 * bin's next slot.
 */
static void
assign_slots(Relayout *r, int x, int b, int *next)
{
	RNode	   *nx = &r->nodes[x];

	for (int i = 0; i < nx->n; i++)
	{
		int			k = r->kid[nx->kids + i];
		RNode	   *nk = &r->nodes[k];

		if (nk->bin >= 0)
		{
			nk->stub = (uint16_t) (*next)++;
			r->bytes[b] += ART_STUB_SIZE;
			continue;
		}
		nk->slot = (uint16_t) (*next)++;
		r->bytes[b] += own_size(nk);
		assign_slots(r, k, b, next);
	}
}

/*
 * Write node x and its part of its bin into page (its records at the
 * slots assign_slots gave them); the bins' pages are in pages.
 */
static void
write_part(Relayout *r, int x, uint8_t *page, ArtPageRef **pages)
{
	RNode	   *nx = &r->nodes[x];
	uint8_t    *tmp = r->tmp;
	size_t		size;

	if (nx->n == 0)
	{
		size = art_rec_size(nx->rec);
		memcpy(tmp, nx->rec, size);
	}
	else
	{
		ArtNode		node;

		art_node_decode(nx->rec, &node);
		art_build_from_node(&node, &r->build);
		r->build.wide = nx->wide;
		for (int i = 0; i < r->build.n; i++)
		{
			RNode	   *nk = &r->nodes[r->kid[nx->kids + i]];

			r->build.children[i] = art_child_of_slot(page, nk->bin >= 0 ?
													 nk->stub : nk->slot);
		}
		size = art_build_encode(&r->build, tmp);
	}
	art_rec_put(page, nx->slot, tmp, size);
	for (int i = 0; i < nx->n; i++)
	{
		int			k = r->kid[nx->kids + i];
		RNode	   *nk = &r->nodes[k];

		if (nk->bin >= 0)
		{
			art_stub_encode(pages[nk->bin]->pageno, nk->slot, tmp);
			art_rec_put(page, nk->stub, tmp, ART_STUB_SIZE);
		}
		else
			write_part(r, k, page, pages);
	}
}

/*
 * Pack the nodes read bottom-up, as the bulk loader does, the page roots
 * under the root page into bins of their own; give them slots and check
 * that each bin fits a page.  *ok says whether the layout takes fewer
 * pages than the group has.
 */
static ArtStatus
pack(Relayout *r, bool *ok)
{
	ArtStatus	st = ART_OK;

	*ok = false;
	r->nbins = 0;
	for (int x = r->nnodes - 1; x >= 1 && st == ART_OK; x--)
	{
		node_size(r, x);
		if (r->nodes[x].size > RELAYOUT_FILL)
			st = flush(r, x);
	}
	if (st == ART_OK)
	{
		node_size(r, 0);
		st = flush(r, 0);
	}
	if (st != ART_OK || r->nbins >= r->npages)
		return st;
	for (int b = 0; b < r->nbins; b++)
	{
		int			next = 1;

		r->bytes[b] = 0;
		for (int x = 1; x < r->nnodes; x++)
		{
			if (r->nodes[x].bin != b)
				continue;
			r->nodes[x].slot = (uint16_t) next++;
			r->bytes[b] += own_size(&r->nodes[x]);
			assign_slots(r, x, b, &next);
		}
		r->nslots[b] = next - 1;
		if (r->bytes[b] + 2 * (size_t) r->nslots[b] > ART_PAGE_USABLE)
			return ART_OK;
	}
	*ok = true;
	return ART_OK;
}

/* Order group indexes by their page numbers. */
static void
sort_by_pageno(const Relayout *r, int *order, int n)
{
	for (int i = 1; i < n; i++)
	{
		int			k = order[i];
		int			j = i;

		while (j > 0 && r->refs[order[j - 1]].pageno > r->refs[k].pageno)
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
}

/*
 * Write the layout pack made into the group's pages in ascending page
 * number, repoint the root page's stubs, and free the pages left over.
 * Cannot fail.
 */
static void
write_group(Relayout *r)
{
	ArtTrie    *t = r->t;
	ArtPageRef *pages[RELAYOUT_PAGES_MAX];
	int			order[RELAYOUT_PAGES_MAX];
	bool		used[RELAYOUT_PAGES_MAX] = {false};

	for (int g = 0; g < r->npages; g++)
		order[g] = g;
	sort_by_pageno(r, order, r->npages);
	for (int b = 0; b < r->nbins; b++)
	{
		pages[b] = &r->refs[order[b]];
		used[order[b]] = true;
		art_page_init(pages[b]->data);
		art_page_add_slots(pages[b]->data, r->nslots[b]);
	}
	for (int x = 1; x < r->nnodes; x++)
		if (r->nodes[x].bin >= 0)
			write_part(r, x, pages[r->nodes[x].bin]->data, pages);
	for (int i = 0; i < r->nroots; i++)
	{
		RNode	   *nk = &r->nodes[r->kid[i]];
		uint8_t		stub[ART_STUB_SIZE];

		art_stub_encode(pages[nk->bin]->pageno, nk->slot, stub);
		art_rec_replace(r->root.data, r->rstub[i], stub, ART_STUB_SIZE);
	}
	t->store.ops->mark_dirty(t->store.store, &r->root);
	for (int g = r->npages - 1; g >= 0; g--)
	{
		if (used[g])
		{
			t->store.ops->mark_dirty(t->store.store, &r->refs[g]);
			t->store.ops->release(t->store.store, &r->refs[g]);
		}
		else
			t->store.ops->free(t->store.store, &r->refs[g]);
	}
	r->npages = 0;
	t->store.ops->version(t->store.store, true);
}

/*
 * The root page's stubs in key order (walking its tree from the root
 * node), into seq; returns how many, -1 without memory.
 */
static int
root_stubs(Relayout *r, uint16_t *seq)
{
	uint8_t    *page = r->root.data;
	uint16_t   *stack = art_alloc(r->t, sizeof(uint16_t) * MAX_SLOTS);
	int			sp = 0;
	int			n = 0;

	if (stack == NULL)
		return -1;
	stack[sp++] = ART_ROOT_SLOT;
	while (sp > 0)
	{
		uint16_t	slot = stack[--sp];
		uint8_t    *rec = art_rec(page, slot);
		ArtNode		node;
		ArtNodeBuild b;

		if (art_is_stub(rec))
		{
			seq[n++] = slot;
			continue;
		}
		if ((rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
			continue;
		art_node_decode(rec, &node);
		art_build_from_node(&node, &b);
		for (int i = b.n - 1; i >= 0 && sp < MAX_SLOTS; i--)
			stack[sp++] = art_child_slot(page, b.children[i]);
	}
	art_free(r->t, stack);
	return n;
}

/*
 * Find the pages of the group, the tops cand[0..ncand) and the pages
 * below them, into pages (in the order found) and edge (edge[i][j]: a
 * stub of page i leads to page j), each page pinned in share mode only to
 * read its stubs and its bytes (into *sum); false when they pass
 * group_pages, or a top is reached from below another.
 */
static ArtStatus
find_group(Relayout *r, const ArtPageNo *cand, int ncand, ArtPageNo *pages,
		   int *npages, bool (*edge)[RELAYOUT_PAGES_MAX], size_t *sum, bool *ok)
{
	int			most = group_pages(r->t);
	ArtPageNo	kids[RELAYOUT_PAGES_MAX + 1];

	*ok = false;
	*npages = 0;
	*sum = 0;
	for (int k = 0; k < ncand; k++)
		pages[(*npages)++] = cand[k];
	for (int g = 0; g < *npages; g++)
	{
		ArtPageRef	ref;
		ArtStatus	st;
		int			nk;

		st = r->t->store.ops->pin(r->t->store.store, pages[g], ART_LOCK_SHARE,
								  &ref);
		if (st != ART_OK)
			return st;
		nk = stub_pages(ref.data, kids, most + 1);
		*sum += page_bytes(ref.data);
		r->t->store.ops->release(r->t->store.store, &ref);
		if (nk > most)
			return ART_OK;
		for (int i = 0; i < nk; i++)
		{
			int			h = 0;

			while (h < *npages && pages[h] != kids[i])
				h++;
			if (h < ncand)
				return ART_OK;
			if (h == *npages)
			{
				if (*npages == most)
					return ART_OK;
				pages[(*npages)++] = kids[i];
			}
			edge[g][h] = true;
		}
	}
	*ok = true;
	return ART_OK;
}

/*
 * The tops of a group around top: the pages up to reach runs away from
 * it among the runs of the root page's stubs in key order (run[0..nrun),
 * each the page a run leads to), nearest first, each once, into cand;
 * returns how many.
 */
static int
tops_near(const ArtPageNo *run, int nrun, ArtPageNo top, int reach,
		  ArtPageNo *cand)
{
	int			ncand = 0;

	for (int d = 0; d <= reach; d++)
		for (int i = 0; i < nrun; i++)
		{
			if (run[i] != top)
				continue;
			for (int j = i - d; j <= i + d; j += d ? 2 * d : 1)
			{
				bool		have = false;

				if (j < 0 || j >= nrun)
					continue;
				for (int k = 0; k < ncand; k++)
					have |= cand[k] == run[j];
				if (!have && ncand < 2 * RELAYOUT_REACH + 1)
					cand[ncand++] = run[j];
			}
		}
	return ncand;
}

/*
 * Choose the group: the page top and the pages up to RELAYOUT_REACH runs
 * of the root page's stubs away on either side in key order (a run:
 * stubs in a row leading to one page), with the pages below them,
 * group_pages at most (fewer runs away, down to top alone, when the
 * pages pass that); its page roots are the root page's stubs that
 * lead to those tops, in key order; r->nfound gets its pages and *sum
 * their bytes.  With pin, pin its pages share into r->refs, each after
 * every page of the group whose stubs lead to it, the order in which
 * they are taken exclusive later: a page may hang from several pages of
 * the group, and a reader coupling its locks down through one of them
 * must not hold it while it waits for the page.  r->ntops stays 0 when
 * there is no such group.
 */
static ArtStatus
choose_group(Relayout *r, ArtPageNo top, bool pin, size_t *sum)
{
	uint16_t   *seq = art_alloc(r->t, sizeof(uint16_t) * MAX_SLOTS);
	ArtPageNo  *run = art_alloc(r->t, sizeof(ArtPageNo) * MAX_SLOTS);
	bool		(*edge)[RELAYOUT_PAGES_MAX] = art_alloc(r->t, sizeof(bool) *
														RELAYOUT_PAGES_MAX *
														RELAYOUT_PAGES_MAX);
	ArtPageNo	cand[2 * RELAYOUT_REACH + 1];
	ArtPageNo	pages[RELAYOUT_PAGES_MAX];
	int			indeg[RELAYOUT_PAGES_MAX] = {0};
	int			ncand;
	int			npages;
	int			nseq;
	int			nrun = 0;
	bool		ok;
	ArtStatus	st = ART_OK;

	r->ntops = 0;
	r->nfound = 0;
	if (r->rstub == NULL)
		r->rstub = art_alloc(r->t, sizeof(uint16_t) * MAX_SLOTS);
	if (seq == NULL || run == NULL || edge == NULL || r->rstub == NULL)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	nseq = root_stubs(r, seq);
	if (nseq < 0)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	for (int i = 0; i < nseq; i++)
	{
		ArtPageNo	pg;
		uint16_t	sl;

		art_stub_target(art_rec(r->root.data, seq[i]), &pg, &sl);
		if (nrun == 0 || run[nrun - 1] != pg)
			run[nrun++] = pg;
	}
	/* the nearest tops whose group fits: top alone at the least */
	for (int reach = RELAYOUT_REACH; reach >= 0; reach--)
	{
		ncand = tops_near(run, nrun, top, reach, cand);
		memset(edge, 0,
			   sizeof(bool) * RELAYOUT_PAGES_MAX * RELAYOUT_PAGES_MAX);
		st = find_group(r, cand, ncand, pages, &npages, edge, sum, &ok);
		if (st != ART_OK || ok)
			break;
	}
	if (st != ART_OK || !ok)
		goto out;
	r->nfound = npages;
	if (!pin)
	{
		r->ntops = ncand;
		goto out;
	}

	/* pin in topological order: a page once every page above it is */
	for (int g = 0; g < npages; g++)
		for (int h = 0; h < npages; h++)
			indeg[h] += edge[g][h];
	while (r->npages < npages && st == ART_OK)
	{
		int			g = 0;

		while (g < npages && indeg[g] != 0)
			g++;
		if (g == npages)
			break;				/* a cycle: corrupt, left to verify */
		indeg[g] = -1;
		for (int h = 0; h < npages; h++)
			indeg[h] -= edge[g][h];
		st = r->t->store.ops->pin(r->t->store.store, pages[g],
								  ART_LOCK_SHARE, &r->refs[r->npages]);
		if (st == ART_OK)
			r->npages++;
	}
	if (st != ART_OK || r->npages < npages)
		goto out;
	r->ntops = ncand;
	r->nroots = 0;
	for (int i = 0; i < nseq; i++)
	{
		ArtPageNo	pg;
		uint16_t	sl;

		art_stub_target(art_rec(r->root.data, seq[i]), &pg, &sl);
		for (int k = 0; k < ncand; k++)
			if (cand[k] == pg)
				r->rstub[r->nroots++] = seq[i];
	}
out:
	art_free(r->t, seq);
	art_free(r->t, run);
	art_free(r->t, edge);
	return st;
}

/*
 * Lay the subtrees of the root page in and near page top out again (see
 * the file's header); *done says whether it did.  When it changed
 * nothing, *lack gets the bytes the group must lose before its pages
 * could fit one page fewer (LACK_NONE: its shape does not allow a
 * relayout, 0: it fitted by size but not by subtrees).  The caller holds
 * the write section and the split section exclusive, and no page.
 */
ArtStatus
art_relayout(ArtTrie *t, ArtPageNo top, bool *done, size_t *lack)
{
	Relayout	r;
	ArtPageRef *take[RELAYOUT_PAGES_MAX + 1];
	size_t		sum = 0;
	bool		ok = false;
	bool		deep = false;
	ArtStatus	st;

	*done = false;
	*lack = LACK_NONE;
	memset(&r, 0, sizeof(r));
	r.t = t;
	if (top == t->root)
		return ART_OK;
	/* found and read with the root page share, which readers pass */
	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &r.root);
	if (st != ART_OK)
		return st;
	st = choose_group(&r, top, false, &sum);
	if (st != ART_OK || r.ntops == 0 || r.nfound == r.ntops)
		goto out;

	/* by the headers first: the group's bytes must fit a page fewer */
	if (sum > (size_t) (r.nfound - 1) * RELAYOUT_FILL)
	{
		*lack = sum - (size_t) (r.nfound - 1) * RELAYOUT_FILL;
		goto out;
	}
	*lack = 0;

	/* pinned share in the order they are taken exclusive */
	st = choose_group(&r, top, true, &sum);
	if (st != ART_OK || r.ntops == 0 || r.nfound == r.ntops ||
		sum > (size_t) (r.nfound - 1) * RELAYOUT_FILL)
		goto out;

	r.copy = art_alloc(t, (size_t) r.npages * ART_PAGE_SIZE);
	r.seen = art_alloc(t, (size_t) r.npages * MAX_SLOTS);
	if (r.copy == NULL || r.seen == NULL ||
		art_grow(t, (void **) &r.nodes, &r.ncap, 1, sizeof(RNode)) != ART_OK ||
		art_grow(t, (void **) &r.kid, &r.kcap, r.nroots, sizeof(int)) != ART_OK)
	{
		st = ART_NO_MEMORY;
		goto out;
	}
	memset(r.seen, 0, (size_t) r.npages * MAX_SLOTS);
	for (int g = 0; g < r.npages; g++)
		memcpy(r.copy + (size_t) g * ART_PAGE_SIZE, r.refs[g].data,
			   ART_PAGE_SIZE);
	st = read_nodes(&r, &ok, &deep);
	if (st != ART_OK || !ok)
	{
		/* deletes may shorten the paths, not mend the shape */
		if (!ok && !deep)
			*lack = LACK_NONE;
		goto out;
	}
	st = pack(&r, &ok);
	if (st != ART_OK || !ok)
		goto out;

	/* nothing below can fail; the root page first, then down */
	take[0] = &r.root;
	for (int g = 0; g < r.npages; g++)
		take[g + 1] = &r.refs[g];
	art_relock_exclusive(t, take, r.npages + 1);
	write_group(&r);
	*done = true;
out:
	group_release(&r);
	t->store.ops->release(t->store.store, &r.root);
	art_free(t, r.rstub);
	art_free(t, r.copy);
	art_free(t, r.seen);
	art_free(t, r.nodes);
	art_free(t, r.kid);
	art_free(t, r.sel);
	art_free(t, r.opened);
	return st;
}
