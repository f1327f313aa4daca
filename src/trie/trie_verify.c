/*-------------------------------------------------------------------------
 *
 * trie_verify.c
 *	  Statistics and the structural check of a whole trie.
 *
 * Both walk every node depth first with an explicit stack, share-locking
 * the pages of the current path like art_walk.  The check validates each
 * page the first time it is reached (header, records inside the record
 * area, no overlap, live bytes), each stub (not to a page already on the
 * path), each node (kind for its fan-out, prefix length, sorted keys,
 * valid child slots, count = own entry + children's counts), and finally
 * that every record of every page was reached exactly once.
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

typedef struct VFrame
{
	int			pidx;
	uint16_t	slot;
	int			lastkey;
	uint64_t	sum;			/* counts of the children visited */
	uint64_t	depth;
	uint64_t	pdepth;
} VFrame;

typedef struct Verify
{
	ArtTrie    *t;
	ArtPinStack ps;
	VFrame	   *frames;
	int			nframes;
	int			fcap;
	PageInfo   *map;
	int			mapcap;
	int			mapn;
	ArtStats   *stats;
	char	   *msg;
	size_t		msglen;
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
		size_t		hdr;
		size_t		size;
		int			kind;

		if (off == 0)
			continue;
		if (off < art_page_upper(page) || off + 2 > ART_PAGE_SIZE)
			return fail(v, pageno, s, "record offset %zu outside the record area [%u, %d)",
						off, art_page_upper(page), ART_PAGE_SIZE);
		kind = rec[0] & ART_KIND_MASK;
		if (kind > ART_KIND_STUB || (rec[0] & 0xE0) != 0 ||
			(kind == ART_KIND_STUB && rec[0] != ART_KIND_STUB))
			return fail(v, pageno, s, "bad record flags 0x%02x", rec[0]);
		hdr = (rec[0] & ART_FLAG_LONGPLEN) ? 3 : 2;
		if (kind == ART_KIND_STUB)
			hdr = ART_STUB_SIZE;
		else if (kind != ART_NODE_LEAF)
			hdr += 7;
		if (off + hdr > ART_PAGE_SIZE)
			return fail(v, pageno, s, "record header past the page end");
		size = art_rec_size(rec);
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

/* Mark a live slot of a page as reached. */
static ArtStatus
reach_slot(Verify *v, ArtPageNo pageno, const uint8_t *page, int slot)
{
	PageInfo   *pi = map_find(v, pageno);

	if (slot < 1 || slot > art_page_nslots(page) ||
		art_slot_off(page, slot) == 0)
		return fail(v, pageno, slot, "reference to a free slot");
	if (pi->seen[slot / 8] & (1 << (slot % 8)))
		return fail(v, pageno, slot, "record reached twice");
	pi->seen[slot / 8] |= (uint8_t) (1 << (slot % 8));
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

/* Push a frame for the node at slot of the top page. */
static ArtStatus
push_frame(Verify *v, uint16_t slot, uint64_t depth, uint64_t pdepth)
{
	ArtStatus	st = art_grow(v->t, (void **) &v->frames, &v->fcap,
							  v->nframes + 1, sizeof(VFrame));
	VFrame	   *f;

	if (st != ART_OK)
		return st;
	f = &v->frames[v->nframes++];
	f->pidx = v->ps.n - 1;
	f->slot = slot;
	f->lastkey = -1;
	f->sum = 0;
	f->depth = depth;
	f->pdepth = pdepth;
	return ART_OK;
}

/* Visit a node: check it, count it. */
static ArtStatus
enter_node(Verify *v, uint16_t slot, uint64_t depth, uint64_t pdepth)
{
	ArtPageRef *ref = &v->ps.refs[v->ps.n - 1];
	uint8_t    *rec = art_rec(ref->data, slot);
	ArtNode		node;
	ArtStatus	st;

	st = check_node(v, ref->pageno, slot, rec, v->nframes == 0);
	if (st != ART_OK)
		return st;
	art_node_decode(rec, &node);
	v->stats->nodes[node.kind]++;
	if (node.terminal)
	{
		if (depth > v->stats->height)
			v->stats->height = depth;
		if (pdepth > v->stats->page_height)
			v->stats->page_height = pdepth;
	}
	return push_frame(v, slot, depth, pdepth);
}

/* Go from a node to its child at slot, through a stub if there is one. */
static ArtStatus
enter_child(Verify *v, VFrame *f, uint16_t slot)
{
	ArtPageRef *ref = &v->ps.refs[v->ps.n - 1];
	uint8_t    *rec;
	ArtStatus	st;
	uint64_t	depth = f->depth + 1;
	uint64_t	pdepth = f->pdepth;

	st = reach_slot(v, ref->pageno, ref->data, slot);
	if (st != ART_OK)
		return st;
	rec = art_rec(ref->data, slot);
	if (art_is_stub(rec))
	{
		ArtPageNo	pg;
		uint16_t	stub = slot;
		int			i;

		art_stub_target(rec, &pg, &slot);

		/*
		 * Pages are convex and their graph acyclic: no page twice on a path
		 * (an insert would lock it twice).
		 */
		for (i = 0; i < v->ps.n; i++)
			if (v->ps.refs[i].pageno == pg)
				return fail(v, ref->pageno, stub,
							"stub points to page %u, which is on its own path", pg);
		st = art_pin_push(v->t, &v->ps, pg, ART_LOCK_SHARE);
		if (st != ART_OK)
			return st;
		ref = &v->ps.refs[v->ps.n - 1];
		st = reach_page(v, pg, ref->data);
		if (st == ART_OK)
			st = reach_slot(v, pg, ref->data, slot);
		if (st != ART_OK)
			return st;
		if (art_is_stub(art_rec(ref->data, slot)))
			return fail(v, pg, slot, "stub points to a stub");
		pdepth++;
	}
	return enter_node(v, slot, depth, pdepth);
}

/* Every record of every page reached must have been reached. */
static ArtStatus
check_unreached(Verify *v)
{
	int			i;

	for (i = 0; i < v->mapcap; i++)
	{
		PageInfo   *pi = &v->map[i];
		ArtPageRef	ref;
		ArtStatus	st;
		int			s;

		if (pi->pageno == ART_INVALID_PAGENO)
			continue;
		st = v->t->store.ops->pin(v->t->store.store, pi->pageno,
								  ART_LOCK_SHARE, &ref);
		if (st != ART_OK)
			return st;
		for (s = 1; s <= art_page_nslots(ref.data); s++)
			if (art_slot_off(ref.data, s) != 0 &&
				!(pi->seen[s / 8] & (1 << (s % 8))))
				st = fail(v, pi->pageno, s, "record not reachable");
		v->t->store.ops->release(v->t->store.store, &ref);
		if (st != ART_OK)
			return st;
	}
	return ART_OK;
}

/* Walk the whole trie, checking it and filling stats. */
static ArtStatus
traverse(ArtTrie *t, ArtStats *stats, char *msg, size_t msglen)
{
	Verify		v;
	ArtStatus	st;
	uint64_t	total = 0;
	int			i;

	memset(&v, 0, sizeof(v));
	memset(stats, 0, sizeof(*stats));
	v.t = t;
	v.stats = stats;
	v.msg = msg;
	v.msglen = msglen;
	if (msg && msglen)
		msg[0] = '\0';
	st = art_pin_push(t, &v.ps, t->root, ART_LOCK_SHARE);
	if (st == ART_OK)
		st = reach_page(&v, t->root, v.ps.refs[0].data);
	if (st == ART_OK)
		st = reach_slot(&v, t->root, v.ps.refs[0].data, ART_ROOT_SLOT);
	if (st == ART_OK && art_is_stub(art_rec(v.ps.refs[0].data, ART_ROOT_SLOT)))
		st = fail(&v, t->root, ART_ROOT_SLOT, "root is a stub");
	if (st == ART_OK)
		st = enter_node(&v, ART_ROOT_SLOT, 1, 1);
	while (st == ART_OK && v.nframes > 0)
	{
		VFrame	   *f = &v.frames[v.nframes - 1];
		ArtNode		node;
		uint8_t		k;
		uint16_t	child;

		while (v.ps.n - 1 > f->pidx)
			art_pin_pop(t, &v.ps);
		art_node_decode(art_rec(v.ps.refs[f->pidx].data, f->slot), &node);
		if (art_node_next(&node, f->lastkey, &k, &child))
		{
			f->lastkey = k;
			st = enter_child(&v, f, child);
			continue;
		}
		if (node.count != (node.terminal ? 1 : 0) + f->sum)
		{
			st = fail(&v, v.ps.refs[f->pidx].pageno, f->slot,
					  "count %llu but subtree holds %llu",
					  (unsigned long long) node.count,
					  (unsigned long long) ((node.terminal ? 1 : 0) + f->sum));
			break;
		}
		if (node.count == 0 && v.nframes > 1)
		{
			st = fail(&v, v.ps.refs[f->pidx].pageno, f->slot,
					  "empty subtree");
			break;
		}
		v.nframes--;
		if (v.nframes > 0)
			v.frames[v.nframes - 1].sum += node.count;
		else
			total = node.count;
	}
	/*
	 * Still under the root's lock, which every change takes first: a
	 * record placed after the walk must not count as unreached.
	 */
	if (st == ART_OK)
		st = check_unreached(&v);
	art_pin_release_all(t, &v.ps);
	stats->entries = total;
	for (i = 0; i < v.mapcap; i++)
		if (v.map[i].pageno != ART_INVALID_PAGENO)
			art_free(t, v.map[i].seen);
	art_free(t, v.map);
	art_free(t, v.frames);
	return st;
}

/*
 * Walk the trie with every writer kept out: an insert or delete between
 * its two passes leaves the counts above its page one off, which the
 * checks below would take for damage.
 */
static ArtStatus
traverse_quiet(ArtTrie *t, ArtStats *stats, char *msg, size_t msglen)
{
	ArtStatus	st;

	t->store.ops->write_begin(t->store.store, ART_LOCK_EXCLUSIVE);
	st = traverse(t, stats, msg, msglen);
	t->store.ops->write_end(t->store.store, ART_LOCK_EXCLUSIVE);
	return st;
}

/* Statistics of the whole trie. */
ArtStatus
art_stats(ArtTrie *t, ArtStats *stats)
{
	return traverse_quiet(t, stats, NULL, 0);
}

/* Check every structural invariant; describe the first violation. */
ArtStatus
art_verify(ArtTrie *t, char *msg, size_t msglen)
{
	ArtStats	stats;

	return traverse_quiet(t, &stats, msg, msglen);
}
