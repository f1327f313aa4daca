/*-------------------------------------------------------------------------
 *
 * trie_split.c
 *	  Splitting a full page: moving whole subtrees to a fresh page.
 *
 * The records of a page form a forest: its page roots are referenced from
 * the parent page (through stubs there), every other record from a node in
 * the same page.  A split picks whole subtrees of that forest, about half
 * the page, and copies them to a new page.  A bottom page (one holding
 * no stub) first gives up page roots whose stubs are in the parent page
 * on the path, and those stubs are repointed: the two pages are then
 * sibling bottom pages, as in a B-tree split, and no stub moves, so no
 * page gets another parent page.  Otherwise, or if those make less than
 * half the target (a page with one page root, or a few large ones), inner
 * subtrees go: each leaves a stub in its old slot, so its parent's child
 * slot stays valid, and the page becomes the new page's parent page.  A
 * page holding stubs gives up subtrees holding no stub first, if they
 * make half the target, so that the nodes leading to pages below stay in
 * it (as the bulk loader keeps them together) and the path below them
 * does not grow by a page.  If
 * that cannot free the room needed (a page made of many small page roots),
 * page roots go after all; and if one subtree larger than half the page
 * holds the room, the largest inner subtree that fits a new page goes
 * whole.  A stub left behind makes its ancestors in the page wide (6-byte
 * counts, trie_internal.h): the room that takes is subtracted from what
 * the split frees, and a subtree whose move would not pay for it stays.
 * Each page stays convex: a path between two of its nodes never
 * leaves it, so the graph of pages is acyclic (a page can have several
 * parent pages, never an ancestor among its descendants), which is what
 * the lock order relies on.
 *
 * The new page is allocated before anything changes; the rest cannot fail.
 * A split keeps the trie's content, so an insert that splits and then fails
 * leaves a valid, unchanged trie.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

#define MAX_SLOTS	(ART_PAGE_USABLE / 2 + 1)

typedef struct SplitState
{
	uint16_t	parent[MAX_SLOTS];	/* parent slot in page, 0: page root */
	uint32_t	size[MAX_SLOTS];	/* bytes of the in-page subtree */
	uint16_t	order[MAX_SLOTS];	/* pre-order of the forest */
	uint16_t	pos[MAX_SLOTS];		/* of each record in order */
	uint16_t	nodes[MAX_SLOTS];	/* records of the in-page subtree */
	uint16_t	last[MAX_SLOTS];	/* in-page child with the largest key */
	uint16_t	prev[MAX_SLOTS];	/* sibling with the next smaller key */
	uint16_t	stack[MAX_SLOTS];
	uint16_t	map[MAX_SLOTS];		/* old slot -> slot in the new page */
	uint8_t		selected[MAX_SLOTS];
	uint8_t		covered[MAX_SLOTS];
	uint8_t		before[MAX_SLOTS];	/* 1: ordered before the run's node */
	uint8_t		widen[MAX_SLOTS];	/* 1: becomes wide (a stub below) */
	uint8_t		routes[MAX_SLOTS];	/* 1: the in-page subtree holds a stub */
	uint64_t	counts[MAX_SLOTS];	/* root page: entries below each record */
	bool		derive;			/* set the moved nodes' counts from counts */
	int			norder;
} SplitState;

/*
 * Compute parents, pre-order (a node, then its children's subtrees in key
 * order), subtree sizes and the subtrees holding a stub (routes) of the
 * page's forest.  The children of each
 * node are listed once, into parent, last and prev; the walk for the
 * pre-order follows those.
 */
static void
analyse(uint8_t *page, SplitState *ss)
{
	int			nslots = art_page_nslots(page);
	int			slot;
	int			sp = 0;
	int			i;

	memset(ss->parent, 0, sizeof(ss->parent));
	memset(ss->last, 0, sizeof(ss->last));
	memset(ss->routes, 0, sizeof(ss->routes));
	for (slot = 1; slot <= nslots; slot++)
	{
		uint8_t    *rec;
		ArtNode		node;
		ArtChild	kids[256];
		int			kind;
		int			n;

		if (art_slot_off(page, slot) == 0)
			continue;
		rec = art_rec(page, slot);
		kind = rec[0] & ART_KIND_MASK;
		if (kind == ART_KIND_STUB || kind == ART_NODE_LEAF)
		{
			ss->size[slot] = (uint32_t) art_rec_size(rec) + 2;
			ss->routes[slot] = kind == ART_KIND_STUB;
			continue;
		}
		art_node_decode(rec, &node);
		ss->size[slot] = (uint32_t) node.size + 2;
		n = art_node_children(&node, kids);
		for (i = 0; i < n; i++)
		{
			uint16_t	k = art_child_slot(page, kids[i]);

			ss->parent[k] = (uint16_t) slot;
			ss->prev[k] = i > 0 ? art_child_slot(page, kids[i - 1]) : 0;
		}
		if (n > 0)
			ss->last[slot] = art_child_slot(page, kids[n - 1]);
	}
	ss->norder = 0;
	for (slot = nslots; slot >= 1; slot--)
		if (art_slot_off(page, slot) != 0 && ss->parent[slot] == 0)
			ss->stack[sp++] = (uint16_t) slot;
	while (sp > 0)
	{
		uint16_t	c;

		slot = ss->stack[--sp];
		ss->pos[slot] = (uint16_t) ss->norder;
		ss->order[ss->norder++] = (uint16_t) slot;
		ss->nodes[slot] = 1;
		/* largest key first, so that the smallest is taken next */
		for (c = ss->last[slot]; c != 0; c = ss->prev[c])
			ss->stack[sp++] = c;
	}
	for (i = ss->norder - 1; i >= 0; i--)
	{
		slot = ss->order[i];
		if (ss->parent[slot])
		{
			ss->size[ss->parent[slot]] += ss->size[slot];
			ss->nodes[ss->parent[slot]] += ss->nodes[slot];
			ss->routes[ss->parent[slot]] |= ss->routes[slot];
		}
	}
}

/*
 * For a split of the root page, whose node counts are not kept: the
 * entries below every record that moves (a selected subtree's), from the
 * counts of the nodes its stubs lead to (the pages below keep theirs),
 * children before parents.  The moved nodes take these counts with them.
 * Marks the moving records in ss->covered.  Pins the pages below the
 * moving stubs, so it runs before anything changes.
 */
static ArtStatus
derive_counts(ArtTrie *t, uint8_t *page, SplitState *ss)
{
	int			i;

	for (i = 0; i < ss->norder; i++)
	{
		int			slot = ss->order[i];
		int			par = ss->parent[slot];
		uint8_t    *rec = art_rec(page, slot);

		ss->covered[slot] = ss->selected[slot] ||
			(par != 0 && ss->covered[par]);
		if (!ss->covered[slot])
			continue;
		if (art_is_stub(rec))
		{
			ArtStatus	st = art_stub_count(t, rec, &ss->counts[slot]);

			if (st != ART_OK)
				return st;
			continue;
		}
		ss->counts[slot] = (rec[0] & ART_FLAG_TERMINAL) ? 1 : 0;
	}
	for (i = ss->norder - 1; i >= 0; i--)
	{
		int			slot = ss->order[i];
		int			par = ss->parent[slot];

		if (ss->covered[slot] && !ss->selected[slot])
			ss->counts[par] += ss->counts[slot];
	}
	ss->derive = true;
	return ART_OK;
}

/* Find the stub in the parent page that points at (pageno, slot). */
static int
find_stub(uint8_t *pp, ArtPageNo pageno, uint16_t slot)
{
	int			nslots = art_page_nslots(pp);
	int			s;

	for (s = 1; s <= nslots; s++)
	{
		uint8_t    *rec;
		ArtPageNo	pg;
		uint16_t	sl;

		if (art_slot_off(pp, s) == 0)
			continue;
		rec = art_rec(pp, s);
		if (!art_is_stub(rec))
			continue;
		art_stub_target(rec, &pg, &sl);
		if (pg == pageno && sl == slot)
			return s;
	}
	return 0;
}

/* Whether the page holds a stub (is not a bottom page). */
static bool
holds_stub(SplitState *ss)
{
	for (int i = 0; i < ss->norder; i++)
		if (ss->routes[ss->order[i]])
			return true;
	return false;
}

/*
 * Bytes the records of slot's ancestors in the page grow by when slot's
 * subtree moves out and leaves a stub: each that is not wide yet (nor
 * marked in ss->widen already, unless alone) becomes wide.  The
 * ancestors of a wide node are wide.  With mark, marks them in ss->widen.
 */
static size_t
widen_cost(uint8_t *page, SplitState *ss, int slot, bool mark, bool alone)
{
	size_t		cost = 0;

	for (int a = ss->parent[slot]; a != 0 && (alone || !ss->widen[a]);
		 a = ss->parent[a])
	{
		ArtNode		node;

		art_node_decode(art_rec(page, a), &node);
		if (node.cw == ART_COUNT_WIDE)
			break;
		cost += (size_t) (ART_COUNT_WIDE - node.cw);
		if (mark)
			ss->widen[a] = 1;
	}
	return cost;
}

/*
 * Whether moving slot's subtree out frees more record bytes than widening
 * its ancestors costs: the slots of its records but the root's stay in
 * the slot array (free), so only the records' bytes, less the stub left,
 * make room for the wider counts.
 */
static bool
frees_for_widening(SplitState *ss, int slot, size_t cost)
{
	return ss->size[slot] - 2 * (size_t) ss->nodes[slot] >
		ART_STUB_SIZE + cost;
}

/* What select_subtrees picks */
#define PICK_ROOTS		0x01	/* page roots, not inner subtrees */
#define PICK_BEFORE		0x02	/* only subtrees marked in ss->before */
#define PICK_NO_STUB	0x04	/* only subtrees holding no stub */

/*
 * Pick whole subtrees in pre-order, up to target bytes: page roots with
 * their stub in the parent page with PICK_ROOTS, else inner subtrees;
 * only subtrees marked in ss->before with PICK_BEFORE; only subtrees
 * holding no stub with PICK_NO_STUB.  Returns the bytes it frees.
 */
static size_t
select_subtrees(ArtPageRef *pref, ArtPageRef *parent, bool is_root_page,
				int pick, size_t target, SplitState *ss)
{
	uint8_t    *page = pref->data;
	bool		roots = (pick & PICK_ROOTS) != 0;
	size_t		taken = 0;
	size_t		freed = 0;
	int			i;

	memset(ss->selected, 0, sizeof(ss->selected));
	memset(ss->covered, 0, sizeof(ss->covered));
	memset(ss->widen, 0, sizeof(ss->widen));
	for (i = 0; i < ss->norder; i++)
	{
		int			slot = ss->order[i];
		int			par = ss->parent[slot];
		bool		is_root = par == 0;
		uint8_t    *rec = art_rec(page, slot);
		size_t		cost;

		if (par && (ss->covered[par] || ss->selected[par]))
		{
			ss->covered[slot] = 1;
			continue;
		}
		if (is_root != roots || art_is_stub(rec))
			continue;
		if ((pick & PICK_BEFORE) && !ss->before[slot])
			continue;
		if ((pick & PICK_NO_STUB) && ss->routes[slot])
			continue;
		if (is_root_page && slot == ART_ROOT_SLOT)
			continue;
		cost = roots ? 0 : widen_cost(page, ss, slot, false, false);
		if (ss->size[slot] <= ART_STUB_SIZE + 2 ||
			(!roots && !frees_for_widening(ss, slot, cost)))
			continue;
		if (roots && find_stub(parent->data, pref->pageno,
							   (uint16_t) slot) == 0)
			continue;
		if (taken + ss->size[slot] > target)
			continue;
		ss->selected[slot] = 1;
		taken += ss->size[slot];
		if (roots)
			freed += ss->size[slot];
		else
		{
			widen_cost(page, ss, slot, true, false);
			freed += ss->size[slot] - (ART_STUB_SIZE + 2) - cost;
		}
	}
	return freed;
}

/*
 * The largest inner subtree that fits a new page, whatever its share of
 * this one (0 if none): for a page whose room is held by one subtree
 * larger than half of it, which select_subtrees passes over.
 */
static int
largest_subtree(uint8_t *page, SplitState *ss)
{
	int			best = 0;

	for (int i = 0; i < ss->norder; i++)
	{
		int			slot = ss->order[i];

		if (ss->parent[slot] == 0 || art_is_stub(art_rec(page, slot)) ||
			ss->size[slot] <= ART_STUB_SIZE + 2 ||
			ss->size[slot] > ART_PAGE_USABLE)
			continue;
		if (best == 0 || ss->size[slot] > ss->size[best])
			best = slot;
	}
	return best;
}

/*
 * Copy the subtree at slot from page to newpage; frees it in page.  The
 * subtree is the stretch of the forest's pre-order from its root on
 * (analyse); the subtrees moved before it were others, so it is as
 * analyse found it.  newpage is the split's fresh page, which takes
 * records only after its last slot (art_rec_append); an inner node's
 * children are renumbered in its copy there.
 */
static void
move_subtree(uint8_t *page, uint8_t *newpage, int root, SplitState *ss)
{
	const uint16_t *sub = &ss->order[ss->pos[root]];
	int			i;

	/* children before parents: reverse pre-order */
	for (i = ss->nodes[root] - 1; i >= 0; i--)
	{
		int			slot = sub[i];
		uint8_t    *rec = art_rec(page, slot);
		size_t		size = art_rec_size(rec);
		int			to = art_rec_append(newpage, rec, size);
		int			kind = rec[0] & ART_KIND_MASK;

		/* a leaf or a stub refers to no record of the page */
		if (kind != ART_NODE_LEAF && kind != ART_KIND_STUB)
		{
			ArtNode		node;

			art_node_decode(art_rec(newpage, to), &node);
			art_node_remap_children(&node, ss->map);
			if (ss->derive)
				art_node_set_count(&node, ss->counts[slot]);
		}
		ss->map[slot] = (uint16_t) to;
		if (slot != root)
			art_rec_free_size(page, slot, size);
	}
}

/*
 * Choose what a split of the page (the top of the pin stack ps) moves:
 * about half of it, as art_split_page says.  Sets *roots when it moves
 * page roots to a sibling page, and returns the bytes it frees (0 if it
 * found nothing).  A page holding stubs first gives up the subtrees that
 * hold none, keeping the nodes that lead to pages below with their
 * parents: moving those would put a page more on the path of every entry
 * below them, while the subtrees holding no stub go to a new bottom page,
 * a page as far from the root as the pages the stubs lead to.
 */
static size_t
select_half(ArtTrie *t, ArtPinStack *ps, size_t need, SplitState *ss,
			bool *roots)
{
	ArtPageRef *page = &ps->refs[ps->n - 1];
	ArtPageRef *parent = ps->n >= 2 ? &ps->refs[ps->n - 2] : NULL;
	bool		is_root_page = page->pageno == t->root;
	bool		inner = holds_stub(ss);
	size_t		target = art_page_used(page->data) / 2;
	size_t		freed = 0;

	if (target < need)
		target = need;
	*roots = false;
	if (inner)
		freed = select_subtrees(page, parent, is_root_page, PICK_NO_STUB,
								target, ss);
	else if (parent != NULL)
	{
		freed = select_subtrees(page, parent, is_root_page, PICK_ROOTS,
								target, ss);
		*roots = true;
	}
	if (freed < need || freed < target / 2)
	{
		*roots = false;
		freed = select_subtrees(page, parent, is_root_page, 0, target, ss);
		if (freed < need && parent != NULL)
		{
			*roots = true;
			freed = select_subtrees(page, parent, is_root_page, PICK_ROOTS,
									target, ss);
		}
	}
	if (freed < need)
	{
		int			big = largest_subtree(page->data, ss);
		size_t		cost;

		cost = big != 0 ? widen_cost(page->data, ss, big, false, true) : 0;
		if (big != 0 && frees_for_widening(ss, big, cost) &&
			ss->size[big] - (ART_STUB_SIZE + 2) > freed + cost)
		{
			memset(ss->selected, 0, sizeof(ss->selected));
			memset(ss->widen, 0, sizeof(ss->widen));
			ss->selected[big] = 1;
			*roots = false;
			widen_cost(page->data, ss, big, true, false);
			freed = ss->size[big] - (ART_STUB_SIZE + 2) - cost;
		}
	}
	return freed;
}

/*
 * Move the subtrees selected in ss from the page (the top of the pin stack
 * ps) to a new page: page roots when roots is set (their stubs in the
 * parent page, the page below on the stack, repointed), else inner
 * subtrees, each leaving a stub in its old slot.  Frees ss.
 */
static ArtStatus
split_move(ArtTrie *t, ArtPinStack *ps, SplitState *ss, bool roots)
{
	ArtPageRef *page = &ps->refs[ps->n - 1];
	ArtPageRef *parent = ps->n >= 2 ? &ps->refs[ps->n - 2] : NULL;
	ArtPageRef	q;
	ArtStatus	st;
	int			i;

	ss->derive = false;
	if (page->pageno == t->root)
	{
		st = derive_counts(t, page->data, ss);
		if (st != ART_OK)
		{
			art_free(t, ss);
			return st;
		}
	}
	st = t->store.ops->alloc(t->store.store, &q);
	if (st != ART_OK)
	{
		art_free(t, ss);
		return st;
	}
	art_page_init(q.data);

	/* Nothing below can fail. */
	for (i = 0; i < ss->norder; i++)
	{
		int			slot = ss->order[i];
		uint8_t		rec[ART_STUB_SIZE];

		if (!ss->selected[slot])
			continue;
		if (roots)
		{
			int			stub = find_stub(parent->data, page->pageno,
										 (uint16_t) slot);

			move_subtree(page->data, q.data, slot, ss);
			art_rec_free(page->data, slot);
			art_stub_encode(q.pageno, ss->map[slot], rec);
			art_rec_replace(parent->data, stub, rec, ART_STUB_SIZE);
		}
		else
		{
			move_subtree(page->data, q.data, slot, ss);
			art_stub_encode(q.pageno, ss->map[slot], rec);
			art_rec_replace(page->data, slot, rec, ART_STUB_SIZE);
		}
	}

	/* The ancestors of the stubs left behind become wide (select_subtrees) */
	if (!roots)
		for (i = 0; i < ss->norder; i++)
			if (ss->widen[ss->order[i]])
				art_node_count_add(page->data,
								   art_child_of_slot(page->data,
													 ss->order[i]),
								   0, true);
	t->store.ops->mark_dirty(t->store.store, page);
	if (roots)
		t->store.ops->mark_dirty(t->store.store, parent);
	t->store.ops->mark_dirty(t->store.store, &q);
	t->store.ops->release(t->store.store, &q);
	/* records moved: the content version moves, as with every change */
	t->store.ops->version(t->store.store, true);
	art_free(t, ss);
	return ART_OK;
}

/*
 * Make room in a full page, the top of the pin stack ps, by moving about
 * half of it to a new page.  The page below it on the stack is its parent
 * page (none for the root page), locked exclusive like the page; need is
 * the room the caller wants.
 */
ArtStatus
art_split_page(ArtTrie *t, ArtPinStack *ps, size_t need)
{
	SplitState *ss = art_alloc(t, sizeof(SplitState));
	bool		roots;

	if (ss == NULL)
		return ART_NO_MEMORY;
	analyse(ps->refs[ps->n - 1].data, ss);
	if (select_half(t, ps, need, ss, &roots) == 0)
	{
		art_free(t, ss);
		return ART_CORRUPT;
	}
	return split_move(t, ps, ss, roots);
}

/*
 * Mark in ss->before the records of the page ordered before the node at
 * slot at: those of its page root's tree that come before it in pre-order
 * (key order) and are not its ancestors.  The trees of other page roots
 * are left unmarked: their order against it is not known in the page.
 */
static void
mark_before(SplitState *ss, int at)
{
	int			top = at;
	int			i = 0;

	memset(ss->before, 0, sizeof(ss->before));
	while (ss->parent[top] != 0)
		top = ss->parent[top];
	while (i < ss->norder && ss->order[i] != top)
		i++;
	for (; i < ss->norder && ss->order[i] != at; i++)
		ss->before[ss->order[i]] = 1;
	for (int s = at; s != 0; s = ss->parent[s])
		ss->before[s] = 0;
}

/*
 * Make room in a full page, the top of the pin stack ps, for an ascending
 * run of inserts whose next one changes the node at slot at (the inserts
 * after it go to entries greater than it), when the page is the root page
 * or holds stubs and the run is at its right edge: the inner subtrees of
 * the node's page root ordered before the node, which the run does not
 * reach again, make three quarters of the page or more.  Then it moves
 * those, up to ART_RUN_SPLIT_FILL of a new page, as a bulk load fills a
 * page, instead of half the page, which the run would fill and split
 * again.  Otherwise (a bottom page, whose page roots' key order the page
 * does not tell, or a run through the middle of the page's entries) it
 * splits as art_split_page does.  Locks and need as art_split_page's.
 */
ArtStatus
art_split_page_before(ArtTrie *t, ArtPinStack *ps, size_t need,
					  uint16_t at)
{
	ArtPageRef *page = &ps->refs[ps->n - 1];
	size_t		least = art_page_used(page->data) * 3 / 4;
	SplitState *ss = art_alloc(t, sizeof(SplitState));
	bool		roots;

	if (ss == NULL)
		return ART_NO_MEMORY;
	if (least < need)
		least = need;
	analyse(page->data, ss);
	if (ps->n == 1 || holds_stub(ss))
	{
		mark_before(ss, at);
		if (select_subtrees(page, NULL, page->pageno == t->root, PICK_BEFORE,
							ART_RUN_SPLIT_FILL, ss) >= least)
			return split_move(t, ps, ss, false);
	}
	if (select_half(t, ps, need, ss, &roots) == 0)
	{
		art_free(t, ss);
		return ART_CORRUPT;
	}
	return split_move(t, ps, ss, roots);
}
