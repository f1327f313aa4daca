/*-------------------------------------------------------------------------
 *
 * trie_verify.c
 *	  Statistics and the structural check of a whole trie.
 *
 * Both walk the trie in steps, and let writers in between: a step takes
 * the write section exclusive (so no insert or delete is half done in
 * it) for one subtree's part of one page, the page reached by a stub
 * (which the step looks at again first: if a change between steps moved
 * or removed the subtree, there is nothing to walk), and the first record
 * of each page its stubs lead to; the subtrees there are queued as further
 * steps.  Between steps the store may check for interrupts
 * (step_done), and no lock is held.
 *
 * Every step checks what it sees whole: each page the first time it is
 * reached (header, records inside the record area, no overlap, live
 * bytes), each stub (not to its own page, not to a free slot or another
 * stub), each node (kind for its fan-out, prefix length, sorted keys,
 * valid child slots, a 6-byte count in every node with a stub child or a
 * child with a 6-byte count), and below the root page each node's count
 * against its own entry and its children's counts, read in the same
 * step.  What
 * spans steps (no record reached twice, every record of every page
 * reached, no page met again below itself) holds only if the trie did
 * not change meanwhile: those violations count only when the store's
 * content version stayed the same from the first step to the last.  The
 * statistics are exact then too, and otherwise describe a trie changing
 * under the walk.  A page learned of in one step may be gone in the next
 * (a merge freed it): no step pins a page it has not found allocated, or
 * reached through a stub read in the same step.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "trie_internal.h"

#define SEEN_BYTES	((ART_PAGE_USABLE / 2 + 8) / 8)

typedef struct PageInfo
{
	ArtPageNo	pageno;
	uint8_t    *seen;			/* a bit per slot reached */
} PageInfo;

/*
 * A subtree to walk: the node in slot of page pageno, reached through the
 * stub in slot stub of the page of item up (-1: the trie's root node).
 */
typedef struct VItem
{
	ArtPageNo	pageno;
	uint16_t	slot;
	uint16_t	stub;
	int			up;
	uint64_t	depth;
	uint64_t	pdepth;
} VItem;

/* A node met inside one page, with its depth. */
typedef struct VNode
{
	uint16_t	slot;
	uint64_t	depth;
} VNode;

typedef struct Verify
{
	ArtTrie    *t;
	VItem	   *items;
	int			nitems;
	int			icap;
	PageInfo   *map;
	int			mapcap;
	int			mapn;
	ArtStats   *stats;
	char	   *msg;
	size_t		msglen;
	char		deferred[256];	/* first violation seen across steps */
	uint8_t		local[(ART_PAGE_USABLE / 2 + 8) / 8];	/* slots of this step */
	VNode		stack[ART_PAGE_USABLE / 2 + 1];
} Verify;

typedef struct RecSpan
{
	uint16_t	off;
	uint16_t	size;
} RecSpan;

#if defined(__GNUC__) || defined(__clang__)
#define ART_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ART_PRINTF(f, a)
#endif

static ArtStatus fail(Verify *v, ArtPageNo pageno, int slot, const char *fmt,...) ART_PRINTF(4, 5);

/* Record the first violation. */
static ArtStatus
fail(Verify *v, ArtPageNo pageno, int slot, const char *fmt,...)
{
	char		what[200];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (v->msg && v->msglen)
		snprintf(v->msg, v->msglen, "page %u slot %d: %s", pageno, slot, what);
	return ART_CORRUPT;
}

static void defer(Verify *v, ArtPageNo pageno, int slot, const char *fmt,...) ART_PRINTF(4, 5);

/*
 * Record the first violation that only a walk of an unchanging trie can
 * tell from a change made between two steps (see the file header).
 */
static void
defer(Verify *v, ArtPageNo pageno, int slot, const char *fmt,...)
{
	char		what[200];
	va_list		ap;

	if (v->deferred[0])
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(v->deferred, sizeof(v->deferred), "page %u slot %d: %s",
			 pageno, slot, what);
}

/* The map entry of a page, or a free entry for it. */
static PageInfo *
map_find(Verify *v, ArtPageNo pageno)
{
	uint32_t	h = (pageno * 2654435761u) & (uint32_t) (v->mapcap - 1);

	while (v->map[h].pageno != ART_INVALID_PAGENO &&
		   v->map[h].pageno != pageno)
		h = (h + 1) & (uint32_t) (v->mapcap - 1);
	return &v->map[h];
}

/* Make room for one more page in the map. */
static ArtStatus
map_grow(Verify *v)
{
	PageInfo   *old = v->map;
	int			oldcap = v->mapcap;
	int			i;

	if (v->map && (v->mapn + 1) * 2 < v->mapcap)
		return ART_OK;
	v->mapcap = oldcap ? oldcap * 2 : 256;
	v->map = art_alloc(v->t, sizeof(PageInfo) * v->mapcap);
	if (v->map == NULL)
	{
		v->map = old;
		v->mapcap = oldcap;
		return ART_NO_MEMORY;
	}
	for (i = 0; i < v->mapcap; i++)
		v->map[i].pageno = ART_INVALID_PAGENO;
	for (i = 0; i < oldcap; i++)
		if (old[i].pageno != ART_INVALID_PAGENO)
			*map_find(v, old[i].pageno) = old[i];
	art_free(v->t, old);
	return ART_OK;
}

/* Compare record spans by offset, for qsort. */
static int
span_cmp(const void *a, const void *b)
{
	return (int) ((const RecSpan *) a)->off - (int) ((const RecSpan *) b)->off;
}

/* Check a page's header and record area. */
static ArtStatus
check_page(Verify *v, ArtPageNo pageno, const uint8_t *page)
{
	int			nslots = art_page_nslots(page);
	RecSpan		spans[ART_PAGE_USABLE / 2 + 1];
	int			n = 0;
	size_t		sum = 0;
	int			s;

	if (art_get16(page + ART_HDR_OFF) != ART_PAGE_MAGIC)
		return fail(v, pageno, 0, "bad page magic 0x%04x",
					art_get16(page + ART_HDR_OFF));
	if (art_page_upper(page) > ART_PAGE_SIZE ||
		ART_SLOTS_OFF + 2 * (size_t) nslots > art_page_upper(page))
		return fail(v, pageno, 0, "%d slots do not fit before the record area at %u",
					nslots, art_page_upper(page));
	if (nslots == 0)
		return fail(v, pageno, 0, "page in the trie has no records");
	if (art_slot_off(page, nslots) == 0)
		return fail(v, pageno, nslots, "trailing free slot");
	for (s = 1; s <= nslots; s++)
	{
		size_t		off = art_slot_off(page, s);
		const uint8_t *rec = page + off;
		size_t		size;
		int			kind;

		if (off == 0)
			continue;
		if (off < art_page_upper(page) || off + 2 > ART_PAGE_SIZE)
			return fail(v, pageno, s, "record offset %zu outside the record area [%u, %d)",
						off, art_page_upper(page), ART_PAGE_SIZE);
		kind = rec[0] & ART_KIND_MASK;
		if (kind > ART_KIND_STUB || (rec[0] & 0x80) != 0 ||
			(kind == ART_KIND_STUB && rec[0] != ART_KIND_STUB) ||
			(kind == ART_NODE_LEAF && (rec[0] & ART_CW_MASK) != 0))
			return fail(v, pageno, s, "bad record flags 0x%02x", rec[0]);
		size = art_rec_size_at(page, off);
		if (size == 0)
			return fail(v, pageno, s, "record header past the page end");
		if (off + size > ART_PAGE_SIZE)
			return fail(v, pageno, s, "record of %zu bytes past the page end",
						size);
		spans[n].off = (uint16_t) off;
		spans[n].size = (uint16_t) size;
		n++;
		sum += size;
	}
	if (nslots - n != art_page_nfree(page))
		return fail(v, pageno, 0, "%d free slots but header says %u",
					nslots - n, art_page_nfree(page));
	if (sum != art_page_used(page))
		return fail(v, pageno, 0, "live bytes %zu but header says %u", sum,
					art_page_used(page));
	qsort(spans, n, sizeof(RecSpan), span_cmp);
	for (s = 0; s + 1 < n; s++)
		if (spans[s].off + spans[s].size > spans[s + 1].off)
			return fail(v, pageno, 0, "records at %u and %u overlap",
						spans[s].off, spans[s + 1].off);
	return ART_OK;
}

/* Note that a page was reached; check and count it once. */
static ArtStatus
reach_page(Verify *v, ArtPageNo pageno, const uint8_t *page)
{
	PageInfo   *pi;
	ArtStatus	st;

	st = map_grow(v);
	if (st != ART_OK)
		return st;
	pi = map_find(v, pageno);
	if (pi->pageno == pageno)
		return ART_OK;
	st = check_page(v, pageno, page);
	if (st != ART_OK)
		return st;
	pi->seen = art_alloc(v->t, SEEN_BYTES);
	if (pi->seen == NULL)
		return ART_NO_MEMORY;
	memset(pi->seen, 0, SEEN_BYTES);
	pi->pageno = pageno;
	v->mapn++;
	v->stats->pages++;
	v->stats->bytes_used += ART_SLOTS_OFF + 2 * (uint64_t) art_page_nslots(page) +
		art_page_used(page);
	return ART_OK;
}

/*
 * Mark a live slot of a page as reached; false if it was reached before
 * (in this step: a loop, never walked again; in an earlier one: a
 * violation only if the trie did not change meanwhile).
 */
static ArtStatus
reach_slot(Verify *v, ArtPageNo pageno, const uint8_t *page, int slot,
		   bool *fresh)
{
	PageInfo   *pi = map_find(v, pageno);
	uint8_t		bit = (uint8_t) (1 << (slot % 8));

	*fresh = false;
	if (slot < 1 || slot > art_page_nslots(page) ||
		art_slot_off(page, slot) == 0)
		return fail(v, pageno, slot, "reference to a free slot");
	if (pi->seen[slot / 8] & bit)
		defer(v, pageno, slot, "record reached twice");
	else if (!(v->local[slot / 8] & bit))
		*fresh = true;
	pi->seen[slot / 8] |= bit;
	v->local[slot / 8] |= bit;
	return ART_OK;
}

/* Check one node record. */
static ArtStatus
check_node(Verify *v, ArtPageNo pageno, int slot, uint8_t *rec, bool is_root)
{
	ArtNode		node;
	uint64_t	nz = 0;
	int			i;

	art_node_decode(rec, &node);
	if (node.plen > ART_MAX_PREFIX)
		return fail(v, pageno, slot, "prefix of %u bytes", node.plen);
	if (((rec[0] & ART_FLAG_LONGPLEN) != 0) != (node.plen > 255))
		return fail(v, pageno, slot, "prefix length not in canonical form");
	if (node.kind == ART_NODE_LEAF)
	{
		if (!is_root && !node.terminal)
			return fail(v, pageno, slot, "leaf that is not an entry");
		if (!node.terminal && node.plen != 0)
			return fail(v, pageno, slot, "empty root with a prefix");
		return ART_OK;
	}
	if (node.kind != art_kind_for(node.n))
		return fail(v, pageno, slot, "kind %d for %d children", node.kind,
					node.n);
	switch (node.kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			for (i = 1; i < node.n; i++)
				if (node.body[i - 1] >= node.body[i])
					return fail(v, pageno, slot, "keys out of order");
			break;
		case ART_NODE_48:
			{
				uint8_t		used[48];

				memset(used, 0, sizeof(used));
				for (i = 0; i < 256; i++)
				{
					int			ix = node.body[i];

					if (ix == 0)
						continue;
					if (ix > node.n || used[ix - 1])
						return fail(v, pageno, slot, "bad index for key %d", i);
					used[ix - 1] = 1;
					nz++;
				}
				if (nz != (uint64_t) node.n)
					return fail(v, pageno, slot, "index has %d keys for %d children",
								(int) nz, node.n);
			}
			break;
		default:
			for (i = 0; i < 256; i++)
				if (art_get16(node.body + 2 * i))
					nz++;
			if (nz != (uint64_t) node.n)
				return fail(v, pageno, slot, "%d children but count says %d",
							(int) nz, node.n);
			break;
	}
	return ART_OK;
}

/* Entries below a record that is not a stub: its count, or its own entry. */
static uint64_t
record_count(uint8_t *rec)
{
	ArtNode		node;

	art_node_decode(rec, &node);
	if (node.kind == ART_NODE_LEAF)
		return node.terminal ? 1 : 0;
	return node.count;
}

/*
 * The stub in slot of the page of item it leads to page pg: no page may
 * be met again below itself (an insert would lock it twice).
 */
static void
check_path(Verify *v, int it, ArtPageNo pg, uint16_t slot)
{
	ArtPageNo	here = v->items[it].pageno;

	for (; it >= 0; it = v->items[it].up)
		if (v->items[it].pageno == pg)
		{
			defer(v, here, slot,
				  "stub points to page %u, which is on its own path", pg);
			return;
		}
}

/*
 * Follow the stub in slot of page (the page of item it, pinned): check
 * the record it points to, add its entries to *sum, and queue its subtree
 * unless it was reached before.
 */
static ArtStatus
follow_stub(Verify *v, int it, const uint8_t *page, uint16_t slot,
			uint64_t depth, uint64_t *sum)
{
	const ArtPageStoreOps *ops = v->t->store.ops;
	ArtPageNo	here = v->items[it].pageno;
	uint64_t	pdepth = v->items[it].pdepth;
	ArtPageNo	pg;
	uint16_t	ts;
	ArtPageRef	ref;
	ArtStatus	st;
	PageInfo   *pi;
	bool		seen;

	art_stub_target(art_rec((uint8_t *) page, slot), &pg, &ts);
	if (pg == here)
		return fail(v, here, slot, "stub points to page %u, which is on its own path", pg);
	check_path(v, it, pg, slot);
	st = ops->pin(v->t->store.store, pg, ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	st = reach_page(v, pg, ref.data);
	if (st == ART_OK && (ts < 1 || ts > art_page_nslots(ref.data) ||
						 art_slot_off(ref.data, ts) == 0))
		st = fail(v, pg, ts, "reference to a free slot");
	if (st == ART_OK && art_is_stub(art_rec(ref.data, ts)))
		st = fail(v, pg, ts, "stub points to a stub");
	if (st == ART_OK)
		st = check_node(v, pg, ts, art_rec(ref.data, ts), false);
	if (st == ART_OK)
		*sum += record_count(art_rec(ref.data, ts));
	ops->release(v->t->store.store, &ref);
	if (st != ART_OK)
		return st;
	pi = map_find(v, pg);
	seen = (pi->seen[ts / 8] & (1 << (ts % 8))) != 0;
	if (seen)
		defer(v, pg, ts, "record reached twice");
	pi->seen[ts / 8] |= (uint8_t) (1 << (ts % 8));
	if (seen)
		return ART_OK;
	st = art_grow(v->t, (void **) &v->items, &v->icap, v->nitems + 1,
				  sizeof(VItem));
	if (st != ART_OK)
		return st;
	v->items[v->nitems].pageno = pg;
	v->items[v->nitems].slot = ts;
	v->items[v->nitems].stub = slot;
	v->items[v->nitems].up = it;
	v->items[v->nitems].depth = depth;
	v->items[v->nitems].pdepth = pdepth + 1;
	v->nitems++;
	return ART_OK;
}

/*
 * Check and count the nodes of item it that lie in its page, the page
 * pinned: each node, and below the root page (whose nodes keep no counts)
 * its count against its own entry and its children's counts, reading the
 * first record of each page its stubs lead to.
 */
static ArtStatus
walk_page_part(Verify *v, int it, const uint8_t *page)
{
	ArtPageNo	pageno = v->items[it].pageno;
	bool		counted = pageno != v->t->root;
	int			sp = 0;
	bool		fresh;
	ArtStatus	st;

	memset(v->local, 0, sizeof(v->local));
	if (it == 0)
	{
		/* the trie's root; a subtree below was reached by its stub */
		st = reach_slot(v, pageno, page, v->items[it].slot, &fresh);
		if (st != ART_OK)
			return st;
	}
	else if (v->items[it].slot > art_page_nslots(page) ||
			 art_slot_off(page, v->items[it].slot) == 0)
		return fail(v, pageno, v->items[it].slot, "reference to a free slot");
	v->local[v->items[it].slot / 8] |= (uint8_t) (1 << (v->items[it].slot % 8));
	v->stack[sp].slot = v->items[it].slot;
	v->stack[sp].depth = v->items[it].depth;
	sp++;
	while (sp > 0)
	{
		VNode		cur = v->stack[--sp];
		uint8_t    *rec = art_rec((uint8_t *) page, cur.slot);
		ArtNode		node;
		int			key = -1;
		uint8_t		k;
		ArtChild	c;
		uint64_t	sum;

		if (art_is_stub(rec))
			return fail(v, pageno, cur.slot, it == 0 ? "root is a stub" :
						"stub points to a stub");
		st = check_node(v, pageno, cur.slot, rec,
						it == 0 && cur.slot == v->items[0].slot);
		if (st != ART_OK)
			return st;
		art_node_decode(rec, &node);
		v->stats->nodes[node.kind]++;
		if (node.terminal)
		{
			v->stats->entries++;
			if (cur.depth > v->stats->height)
				v->stats->height = cur.depth;
			if (v->items[it].pdepth > v->stats->page_height)
				v->stats->page_height = v->items[it].pdepth;
		}
		sum = node.terminal ? 1 : 0;
		while (node.kind != ART_NODE_LEAF && art_node_next(&node, key, &k, &c))
		{
			uint16_t	child = art_child_slot(page, c);
			uint8_t    *crec;

			key = k;
			st = reach_slot(v, pageno, page, child, &fresh);
			if (st != ART_OK)
				return st;
			crec = art_rec((uint8_t *) page, child);
			if (node.cw != ART_COUNT_WIDE &&
				(art_is_stub(crec) ||
				 ((crec[0] & ART_KIND_MASK) != ART_NODE_LEAF &&
				  art_count_bytes(crec[0]) == ART_COUNT_WIDE)))
				return fail(v, pageno, cur.slot,
							"%d-byte count above another page (child %u)",
							node.cw, (unsigned) child);
			if (art_is_stub(crec))
			{
				st = follow_stub(v, it, page, child, cur.depth + 1, &sum);
				if (st != ART_OK)
					return st;
				continue;
			}
			sum += record_count(crec);
			if (fresh)
			{
				v->stack[sp].slot = child;
				v->stack[sp].depth = cur.depth + 1;
				sp++;
			}
		}
		if (counted && node.kind != ART_NODE_LEAF && node.count != sum)
			return fail(v, pageno, cur.slot, "count %llu but subtree holds %llu",
						(unsigned long long) node.count,
						(unsigned long long) sum);
		if (counted && sum == 0)
			return fail(v, pageno, cur.slot, "empty subtree");
	}
	return ART_OK;
}

/*
 * One step of the walk: item it, with every writer kept out.  The stub
 * that led to its subtree is looked at again first: if a change between
 * two steps moved the subtree (a split or a merge) or removed it, the
 * step has nothing to walk.  A merge may even have freed the page that
 * held the stub: that page is pinned only while it is allocated, and a
 * page a stub of an allocated page leads to is a page of the trie.
 */
static ArtStatus
walk_step(Verify *v, int it)
{
	const ArtPageStoreOps *ops = v->t->store.ops;
	VItem		item = v->items[it];
	ArtPageRef	ref;
	ArtStatus	st;

	if (item.up >= 0)
	{
		ArtPageNo	pg;
		uint16_t	ts;
		bool		same = false;

		if (!ops->allocated(v->t->store.store, v->items[item.up].pageno))
			return ART_OK;
		st = ops->pin(v->t->store.store, v->items[item.up].pageno,
					  ART_LOCK_SHARE, &ref);
		if (st != ART_OK)
			return st;
		if (item.stub <= art_page_nslots(ref.data) &&
			art_slot_off(ref.data, item.stub) != 0 &&
			art_is_stub(art_rec(ref.data, item.stub)))
		{
			art_stub_target(art_rec(ref.data, item.stub), &pg, &ts);
			same = pg == item.pageno && ts == item.slot;
		}
		ops->release(v->t->store.store, &ref);
		if (!same)
			return ART_OK;
	}
	st = ops->pin(v->t->store.store, item.pageno, ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	st = reach_page(v, item.pageno, ref.data);
	if (st == ART_OK)
		st = walk_page_part(v, it, ref.data);
	ops->release(v->t->store.store, &ref);
	return st;
}

/* Every live record of the page in map entry pi must have been reached. */
static ArtStatus
check_unreached(Verify *v, PageInfo *pi)
{
	ArtPageRef	ref;
	ArtStatus	st;
	int			s;

	st = v->t->store.ops->pin(v->t->store.store, pi->pageno,
							  ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	for (s = 1; s <= art_page_nslots(ref.data); s++)
		if (art_slot_off(ref.data, s) != 0 &&
			!(pi->seen[s / 8] & (1 << (s % 8))))
			defer(v, pi->pageno, s, "record not reachable");
	v->t->store.ops->release(v->t->store.store, &ref);
	return ART_OK;
}

/*
 * Walk the whole trie, checking it and filling stats, in steps (see the
 * file header): each holds the write section exclusive for one subtree's
 * part of one page, and between steps the store may check for interrupts.
 */
static ArtStatus
traverse(ArtTrie *t, ArtStats *stats, char *msg, size_t msglen)
{
	const ArtPageStoreOps *ops = t->store.ops;
	Verify	   *v;
	ArtStatus	st;
	uint64_t	version = 0;
	bool		changed = false;
	int			it;
	int			i;

	memset(stats, 0, sizeof(*stats));
	if (msg && msglen)
		msg[0] = '\0';
	v = art_alloc(t, sizeof(Verify));
	if (v == NULL)
		return ART_NO_MEMORY;
	memset(v, 0, sizeof(*v));
	v->t = t;
	v->stats = stats;
	v->msg = msg;
	v->msglen = msglen;
	st = art_grow(t, (void **) &v->items, &v->icap, 1, sizeof(VItem));
	if (st == ART_OK)
	{
		v->items[0].pageno = t->root;
		v->items[0].slot = ART_ROOT_SLOT;
		v->items[0].up = -1;
		v->items[0].depth = 1;
		v->items[0].pdepth = 1;
		v->nitems = 1;
	}
	for (it = 0; st == ART_OK && it < v->nitems; it++)
	{
		if (it > 0)
			ops->step_done(t->store.store);
		ops->write_begin(t->store.store, ART_LOCK_EXCLUSIVE);
		if (it == 0)
			version = ops->version(t->store.store, false);
		else
			changed |= ops->version(t->store.store, false) != version;
		st = walk_step(v, it);
		ops->write_end(t->store.store, ART_LOCK_EXCLUSIVE);
	}
	for (i = 0; st == ART_OK && i < v->mapcap; i++)
	{
		if (v->map[i].pageno == ART_INVALID_PAGENO)
			continue;
		ops->step_done(t->store.store);
		ops->write_begin(t->store.store, ART_LOCK_EXCLUSIVE);
		changed |= ops->version(t->store.store, false) != version;
		if (!changed)
			st = check_unreached(v, &v->map[i]);
		ops->write_end(t->store.store, ART_LOCK_EXCLUSIVE);
	}
	if (st == ART_OK && !changed && v->deferred[0])
	{
		if (msg && msglen)
			snprintf(msg, msglen, "%s", v->deferred);
		st = ART_CORRUPT;
	}
	for (i = 0; i < v->mapcap; i++)
		if (v->map[i].pageno != ART_INVALID_PAGENO)
			art_free(t, v->map[i].seen);
	art_free(t, v->map);
	art_free(t, v->items);
	art_free(t, v);
	return st;
}

/* Statistics of the whole trie. */
ArtStatus
art_stats(ArtTrie *t, ArtStats *stats)
{
	return traverse(t, stats, NULL, 0);
}

/* Check every structural invariant; describe the first violation. */
ArtStatus
art_verify(ArtTrie *t, char *msg, size_t msglen)
{
	ArtStats	stats;

	return traverse(t, &stats, msg, msglen);
}
