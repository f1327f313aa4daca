/*-------------------------------------------------------------------------
 *
 * trie_node.c
 *	  Slotted pages and the node record formats of the trie.
 *
 * A page is a slotted page: a small header, an array of 2-byte slots
 * growing up, records growing down from the end of the page.  Records
 * never move between slots, so a (page, slot) reference stays valid while
 * a page is compacted.  The record formats are described in
 * trie_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

static void
set_nslots(uint8_t *page, uint16_t v)
{
	art_put16(page + ART_HDR_OFF + 2, v);
}

static void
set_upper(uint8_t *page, uint16_t v)
{
	art_put16(page + ART_HDR_OFF + 4, v);
}

static void
set_used(uint8_t *page, uint16_t v)
{
	art_put16(page + ART_HDR_OFF + 6, v);
}

static void
set_nfree(uint8_t *page, uint16_t v)
{
	art_put16(page + ART_NFREE_OFF, v);
}

static void
set_slot(uint8_t *page, int slot, uint16_t off)
{
	art_put16(page + ART_SLOTS_OFF + 2 * (slot - 1), off);
}

/* Format an empty trie page (no slots). */
void
art_page_init(uint8_t *page)
{
	memset(page + ART_HDR_OFF, 0, ART_PAGE_SIZE - ART_HDR_OFF);
	art_put16(page + ART_HDR_OFF, ART_PAGE_MAGIC);
	set_nslots(page, 0);
	set_upper(page, ART_PAGE_SIZE);
	set_used(page, 0);
}

/* Make a root page hold the empty root node; its flags stay. */
void
art_root_reset(uint8_t *page)
{
	uint8_t		rec[4];
	uint8_t		flags = page[ART_FLAGS_OFF];

	art_page_init(page);
	page[ART_FLAGS_OFF] = flags;
	art_rec_alloc(page, rec, art_leaf_encode((const uint8_t *) "", 0, false,
											 rec));
}

/* The width code of a count of cw bytes, in the flags byte's bits. */
static inline uint8_t
art_count_code(int cw)
{
	return (uint8_t) ((cw == ART_COUNT_WIDE ? 0 : cw) << ART_CW_SHIFT);
}

/* Read a little-endian count of cw bytes. */
static inline uint64_t
get_count(const uint8_t *p, int cw)
{
	switch (cw)
	{
		case 1:
			return p[0];
		case 2:
			return art_get16(p);
		case 3:
			return art_get16(p) | ((uint64_t) p[2] << 16);
		default:
			return art_get48(p);
	}
}

/* Write a little-endian count of cw bytes (it must fit them). */
static inline void
put_count(uint8_t *p, int cw, uint64_t v)
{
	switch (cw)
	{
		case 1:
			p[0] = (uint8_t) v;
			break;
		case 2:
			art_put16(p, (uint16_t) v);
			break;
		case 3:
			art_put16(p, (uint16_t) v);
			p[2] = (uint8_t) (v >> 16);
			break;
		default:
			art_put48(p, v);
			break;
	}
}

/* Size in bytes of the record at rec (art_rec_size, inline here). */
static inline size_t
rec_size(const uint8_t *rec)
{
	int			kind = rec[0] & ART_KIND_MASK;
	size_t		hdr;
	size_t		plen;
	int			n;

	if (kind == ART_KIND_STUB)
		return ART_STUB_SIZE;
	if (rec[0] & ART_FLAG_LONGPLEN)
	{
		plen = art_get16(rec + 1);
		hdr = 3;
	}
	else
	{
		plen = rec[1];
		hdr = 2;
	}
	if (kind == ART_NODE_LEAF)
		return hdr + plen;
	hdr += art_count_bytes(rec[0]);
	n = rec[hdr] + 1;
	hdr += 1 + plen;
	switch (kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			return hdr + 3 * (size_t) n;
		case ART_NODE_48:
			return hdr + 256 + 2 * (size_t) n;
		default:
			return hdr + 512;
	}
}

/* Size in bytes of the record at rec. */
size_t
art_rec_size(const uint8_t *rec)
{
	return rec_size(rec);
}

/*
 * Rewrite the record area without holes, slot 1's record at the page end,
 * each next slot's below it: what a change does when its record does not
 * fit the room left in one piece.  A split writes its new page in
 * pre-order from the front, its slots counting down, and this keeps that
 * order; a page the bulk loader wrote in pre-order, its slots numbered in
 * post-order, comes out parent first, children last to first.  The
 * pre-order compaction (art_page_compact) costs about 2.8 times as much,
 * and inserts in random order compact a page every 50 or so: with it
 * here they took 1.17 times the CPU time (bench/README.md).  Only the
 * record area is copied aside, and records are sized and copied inline
 * (a page of repeated keys' entries holds hundreds of records of a few
 * bytes: a call to size each and to copy it were most of the cost).
 */
static void
page_compact(uint8_t *page)
{
	uint8_t		tmp[ART_PAGE_SIZE];
	uint16_t	nslots = art_page_nslots(page);
	size_t		area = art_page_upper(page);
	size_t		upper = ART_PAGE_SIZE;
	int			slot;

	memcpy(tmp + area, page + area, ART_PAGE_SIZE - area);
	for (slot = 1; slot <= nslots; slot++)
	{
		uint16_t	off = art_slot_off(page, slot);
		size_t		size;

		if (off == 0)
			continue;
		size = rec_size(tmp + off);
		upper -= size;
		art_copy(page + upper, tmp + off, size);
		set_slot(page, slot, (uint16_t) upper);
	}
	set_upper(page, (uint16_t) upper);
}

/*
 * The size of the record at offset off of page (off + 2 <= ART_PAGE_SIZE),
 * whatever its bytes, or 0 if its header runs past the page end: the
 * record's bytes may still do so, which the caller checks.
 */
size_t
art_rec_size_at(const uint8_t *page, size_t off)
{
	const uint8_t *rec = page + off;
	int			kind = rec[0] & ART_KIND_MASK;
	size_t		hdr = (rec[0] & ART_FLAG_LONGPLEN) ? 3 : 2;

	if (kind == ART_KIND_STUB)
		hdr = ART_STUB_SIZE;
	else if (kind != ART_NODE_LEAF)
		hdr += 1 + (size_t) art_count_bytes(rec[0]);
	if (off + hdr > ART_PAGE_SIZE)
		return 0;
	return art_rec_size(rec);
}

/*
 * Whether the records of a page lie in its record area and add up to the
 * live bytes its header counts, so that page_compact may rewrite it.
 */
static bool
page_records_add_up(const uint8_t *page)
{
	size_t		nslots = art_page_nslots(page);
	size_t		start = art_page_upper(page);
	size_t		sum = 0;

	for (size_t s = 1; s <= nslots; s++)
	{
		size_t		off = art_slot_off(page, (int) s);
		size_t		size;

		if (off == 0)
			continue;
		if (off < start || off + 2 > ART_PAGE_SIZE)
			return false;
		size = art_rec_size_at(page, off);
		if (size == 0 || off + size > ART_PAGE_SIZE)
			return false;
		sum += size;
	}
	return sum == art_page_used(page);
}

/*
 * Lay a page out for a WAL image (trie.h): set *lower to the end of its
 * slot array and *upper to the start of its record area, the free bytes
 * between, after compacting it (page_compact: records keep their slots)
 * when the holes between its records come to ART_SQUEEZE_HOLES bytes and
 * its records add up.  A page whose header does not place its slots
 * before its record area, or that is no trie page, is left whole:
 * false, both at ART_PAGE_SIZE.
 */
bool
art_page_squeeze(uint8_t *page, uint16_t *lower, uint16_t *upper)
{
	size_t		nslots = art_page_nslots(page);
	size_t		start = art_page_upper(page);

	*lower = ART_PAGE_SIZE;
	*upper = ART_PAGE_SIZE;
	if (art_get16(page + ART_HDR_OFF) != ART_PAGE_MAGIC ||
		start > ART_PAGE_SIZE || ART_SLOTS_OFF + 2 * nslots > start)
		return false;
	if (ART_PAGE_SIZE - start >= (size_t) art_page_used(page) + ART_SQUEEZE_HOLES &&
		page_records_add_up(page))
		page_compact(page);
	*lower = (uint16_t) (ART_SLOTS_OFF + 2 * nslots);
	*upper = art_page_upper(page);
	return true;
}

/*
 * Rewrite the record area without holes, its records in pre-order from the
 * start of the area to the page end: each page root (a live record no
 * node of the page refers to, in slot order), then its children's
 * subtrees in key order, each the same way.  So a walk through the page
 * reads its records front to back.  Every record keeps its slot, so no
 * reference changes.  The page may be in the middle of a change: a child
 * slot that is free or out of range is passed over, a record reached
 * twice is placed once, and live records no page root leads to (a cycle)
 * are placed after the rest, in slot order.
 */
void
art_page_compact(uint8_t *page)
{
	uint8_t		tmp[ART_PAGE_SIZE];
	uint8_t		seen[ART_PAGE_USABLE / 2 + 1];
	uint16_t	first[ART_PAGE_USABLE / 2 + 2];
	uint16_t	size[ART_PAGE_USABLE / 2 + 1];
	ArtChild	kids[ART_PAGE_USABLE / 2 + 256];
	uint16_t	stack[ART_PAGE_USABLE / 2];
	int			nslots = art_page_nslots(page);
	int			nkids = 0;
	size_t		pos = ART_PAGE_SIZE;
	int			sp = 0;
	int			slot;
	int			pass;

	memcpy(tmp, page, ART_PAGE_SIZE);
	memset(seen, 0, (size_t) nslots + 1);

	/*
	 * Each record's size, and its children: those of slot s are
	 * kids[first[s] .. first[s + 1]).  seen becomes 1 for a record some
	 * node of the page refers to.  A node's children take at least two
	 * bytes each, so a page holds fewer than ART_PAGE_USABLE / 2 of them.
	 */
	for (slot = 1; slot <= nslots; slot++)
	{
		uint16_t	off = art_slot_off(tmp, slot);
		ArtNode		node;
		int			n;
		int			i;

		first[slot] = (uint16_t) nkids;
		if (off == 0)
			continue;
		if (art_is_stub(tmp + off))
		{
			size[slot] = ART_STUB_SIZE;
			pos -= ART_STUB_SIZE;
			continue;
		}
		art_node_decode(tmp + off, &node);
		size[slot] = (uint16_t) node.size;
		pos -= node.size;
		n = art_node_children(&node, kids + nkids);
		for (i = 0; i < n; i++)
			if (art_child_slot(tmp, kids[nkids + i]) <= nslots)
				seen[art_child_slot(tmp, kids[nkids + i])] = 1;
		nkids += n;
	}
	first[nslots + 1] = (uint16_t) nkids;
	set_upper(page, (uint16_t) pos);

	/*
	 * Pass 0 starts from the page roots, pass 1 from whatever is left;
	 * seen becomes 2 for a record pushed on the stack.
	 */
	for (pass = 0; pass < 2; pass++)
	{
		for (slot = 1; slot <= nslots; slot++)
		{
			if (art_slot_off(tmp, slot) == 0 || seen[slot] == 2 ||
				(pass == 0 && seen[slot] == 1))
				continue;
			seen[slot] = 2;
			stack[sp++] = (uint16_t) slot;
			while (sp > 0)
			{
				int			s = stack[--sp];
				int			i;

				art_copy(page + pos, tmp + art_slot_off(tmp, s), size[s]);
				set_slot(page, s, (uint16_t) pos);
				pos += size[s];
				for (i = first[s + 1] - 1; i >= first[s]; i--)
				{
					uint16_t	k = art_child_slot(tmp, kids[i]);

					if (k == 0 || k > nslots || seen[k] == 2 ||
						art_slot_off(tmp, k) == 0)
						continue;
					seen[k] = 2;
					stack[sp++] = k;
				}
			}
		}
	}
}

/* Bytes a new record of this size takes, counting a new slot if needed. */
size_t
art_page_free_for(const uint8_t *page, size_t size)
{
	return art_page_nfree(page) > 0 ? size : size + 2;
}

/* Place bytes in a given (free) slot, compacting if needed. */
static void
place_in_slot(uint8_t *page, int slot, const uint8_t *rec, size_t size)
{
	uint16_t	nslots = art_page_nslots(page);
	size_t		upper = art_page_upper(page);

	if (upper - (ART_SLOTS_OFF + 2 * (size_t) nslots) < size)
	{
		page_compact(page);
		upper = art_page_upper(page);
	}
	upper -= size;
	memcpy(page + upper, rec, size);
	set_upper(page, (uint16_t) upper);
	set_slot(page, slot, (uint16_t) upper);
	set_used(page, (uint16_t) (art_page_used(page) + size));
}

/*
 * The index (0-based) of the first free slot among slots [from, to), or
 * to if none is free.  The slot array is read four entries at a time, a
 * word with a zero entry ending the fast part.
 */
static int
free_slot_in(const uint8_t *page, int from, int to)
{
	const uint8_t *slots = page + ART_SLOTS_OFF;
	int			i = from;

	for (; i + 4 <= to; i += 4)
	{
		uint64_t	w;

		memcpy(&w, slots + 2 * i, sizeof(w));
		if ((w - UINT64_C(0x0001000100010001)) & ~w &
			UINT64_C(0x8000800080008000))
			break;
	}
	while (i < to && art_get16(slots + 2 * i) != 0)
		i++;
	return i;
}

/*
 * A free slot of a page that has one: the first from the page's hint on
 * (ART_FREE_HINT_OFF), else the first before it.  A page that takes
 * records into the free slots a split left takes them in slot order, so
 * the hint saves scanning the slots filled before again for each record.
 */
static int
first_free_slot(const uint8_t *page, int nslots)
{
	int			hint = art_get16(page + ART_FREE_HINT_OFF);
	int			i;

	if (hint >= nslots)
		hint = 0;
	i = free_slot_in(page, hint, nslots);
	if (i == nslots && hint > 0)
	{
		i = free_slot_in(page, 0, hint);
		if (i == hint)
			i = nslots;
	}
	return i + 1;
}

/*
 * Store a record in a free slot and return the slot.  The caller has
 * checked that the page has room (art_page_free_for).
 */
int
art_rec_alloc(uint8_t *page, const uint8_t *rec, size_t size)
{
	uint16_t	nslots = art_page_nslots(page);
	int			slot = nslots + 1;

	if (art_page_nfree(page) > 0)
	{
		slot = first_free_slot(page, nslots);
		set_nfree(page, (uint16_t) (art_page_nfree(page) - 1));
		art_put16(page + ART_FREE_HINT_OFF, (uint16_t) slot);
	}
	else
	{
		/* The new slot entry may overlap the record area: compact first. */
		if (art_page_upper(page) < ART_SLOTS_OFF + 2 * ((size_t) nslots + 1))
			page_compact(page);
		set_nslots(page, (uint16_t) (nslots + 1));
		set_slot(page, slot, 0);
	}
	place_in_slot(page, slot, rec, size);
	return slot;
}

/*
 * Store a record in a new slot after the last one and return the slot, in
 * a page that has no free slot and room for the record and its slot in
 * one piece: a fresh page that a split fills.  art_rec_alloc's result
 * there, without its search for a free slot and its checks.
 */
int
art_rec_append(uint8_t *page, const uint8_t *rec, size_t size)
{
	uint16_t	slot = (uint16_t) (art_page_nslots(page) + 1);
	size_t		upper = art_page_upper(page) - size;

	memcpy(page + upper, rec, size);
	set_nslots(page, slot);
	set_slot(page, slot, (uint16_t) upper);
	set_upper(page, (uint16_t) upper);
	set_used(page, (uint16_t) (art_page_used(page) + size));
	return slot;
}

/*
 * Add count free slots after the last one, for art_rec_put to fill; the
 * page must have room for them and their records.
 */
void
art_page_add_slots(uint8_t *page, int count)
{
	uint16_t	nslots = art_page_nslots(page);
	int			i;

	if (art_page_upper(page) < ART_SLOTS_OFF + 2 * ((size_t) nslots + count))
		page_compact(page);
	for (i = 1; i <= count; i++)
		set_slot(page, nslots + i, 0);
	set_nslots(page, (uint16_t) (nslots + count));
	set_nfree(page, (uint16_t) (art_page_nfree(page) + count));
}

/*
 * Store a record in a given free slot (one of art_page_add_slots'); the
 * caller has checked that the page has room.
 */
void
art_rec_put(uint8_t *page, int slot, const uint8_t *rec, size_t size)
{
	set_nfree(page, (uint16_t) (art_page_nfree(page) - 1));
	place_in_slot(page, slot, rec, size);
}

/* Free a record's slot; trailing free slots are dropped. */
void
art_rec_free(uint8_t *page, int slot)
{
	art_rec_free_size(page, slot, art_rec_size(art_rec(page, slot)));
}

/* Free a record's slot, its record size bytes long (art_rec_free). */
void
art_rec_free_size(uint8_t *page, int slot, size_t size)
{
	uint16_t	nslots = art_page_nslots(page);

	set_used(page, (uint16_t) (art_page_used(page) - size));
	set_slot(page, slot, 0);
	set_nfree(page, (uint16_t) (art_page_nfree(page) + 1));
	if (slot - 1 < art_get16(page + ART_FREE_HINT_OFF))
		art_put16(page + ART_FREE_HINT_OFF, (uint16_t) (slot - 1));
	while (nslots > 0 && art_slot_off(page, nslots) == 0)
	{
		nslots--;
		set_nfree(page, (uint16_t) (art_page_nfree(page) - 1));
	}
	set_nslots(page, nslots);
	if (nslots == 0)
		set_upper(page, ART_PAGE_SIZE);
}

/* Replace the record in a slot with new bytes (not pointing into page). */
void
art_rec_replace(uint8_t *page, int slot, const uint8_t *rec, size_t size)
{
	uint8_t    *old = art_rec(page, slot);
	size_t		oldsize = art_rec_size(old);

	if (size <= oldsize)
	{
		memmove(old, rec, size);
		set_used(page, (uint16_t) (art_page_used(page) - oldsize + size));
		return;
	}
	set_used(page, (uint16_t) (art_page_used(page) - oldsize));
	set_slot(page, slot, 0);
	place_in_slot(page, slot, rec, size);
}

/* Decode the node record at rec (not a stub). */
ART_HOT void
art_node_decode(uint8_t *rec, ArtNode *node)
{
	art_node_decode_walk(rec, node);
	art_node_decode_count(rec, node);
}

/*
 * Add to a node that art_node_decode_walk decoded from rec what it leaves
 * out: the count, its bytes and the record's size.
 */
ART_HOT void
art_node_decode_count(uint8_t *rec, ArtNode *node)
{
	if (node->kind == ART_NODE_LEAF)
	{
		node->count = node->terminal ? 1 : 0;
		node->count_ptr = NULL;
		node->cw = 0;
		node->size = (size_t) (node->prefix - rec) + node->plen;
		return;
	}
	node->cw = art_count_bytes(rec[0]);
	node->count_ptr = rec + (rec[0] & ART_FLAG_LONGPLEN ? 3 : 2);
	node->count = get_count(node->count_ptr, node->cw);
	node->size = (size_t) (node->body - rec);
	if (node->kind <= ART_NODE_16)
		node->size += 3 * (size_t) node->n;
	else if (node->kind == ART_NODE_48)
		node->size += 256 + 2 * (size_t) node->n;
	else
		node->size += 512;
}

/* The node kind for a node with n children. */
int
art_kind_for(int n)
{
	if (n == 0)
		return ART_NODE_LEAF;
	if (n <= 4)
		return ART_NODE_4;
	if (n <= 16)
		return ART_NODE_16;
	if (n <= 48)
		return ART_NODE_48;
	return ART_NODE_256;
}

/* Size of a leaf record with a prefix of plen bytes. */
size_t
art_leaf_size(size_t plen)
{
	return (plen > 255 ? 3 : 2) + plen;
}

/*
 * Size of the record of a node with a plen-byte prefix, n children and a
 * count of cw bytes (ignored for a leaf).
 */
size_t
art_node_size_for(size_t plen, int n, int cw)
{
	size_t		hdr = (plen > 255 ? 3 : 2) + 1 + (size_t) cw;

	switch (art_kind_for(n))
	{
		case ART_NODE_LEAF:
			return (plen > 255 ? 3 : 2) + plen;
		case ART_NODE_4:
		case ART_NODE_16:
			return hdr + plen + 3 * (size_t) n;
		case ART_NODE_48:
			return hdr + plen + 256 + 2 * (size_t) n;
		default:
			return hdr + plen + 512;
	}
}

/* Size of the record b encodes to. */
size_t
art_build_size(const ArtNodeBuild *b)
{
	return art_node_size_for(b->plen, b->n, art_count_width(b->count,
															 b->wide));
}

/* Write the flags byte and prefix length; returns the header size. */
static size_t
encode_head(int kind, bool terminal, size_t plen, uint8_t *out)
{
	out[0] = (uint8_t) (kind | (terminal ? ART_FLAG_TERMINAL : 0));
	if (plen > 255)
	{
		out[0] |= ART_FLAG_LONGPLEN;
		art_put16(out + 1, (uint16_t) plen);
		return 3;
	}
	out[1] = (uint8_t) plen;
	return 2;
}

/* Encode b into out (ART_MAX_RECORD bytes); returns the size. */
size_t
art_build_encode(const ArtNodeBuild *b, uint8_t *out)
{
	int			kind = art_kind_for(b->n);
	size_t		pos = encode_head(kind, b->terminal, b->plen, out);
	int			cw = art_count_width(b->count, b->wide);
	uint8_t    *body;
	int			i;

	if (kind == ART_NODE_LEAF)
	{
		memmove(out + pos, b->prefix, b->plen);
		return pos + b->plen;
	}
	out[0] |= art_count_code(cw);
	put_count(out + pos, cw, b->count);
	pos += cw;
	out[pos] = (uint8_t) (b->n - 1);
	memmove(out + pos + 1, b->prefix, b->plen);
	body = out + pos + 1 + b->plen;
	switch (kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			memcpy(body, b->keys, b->n);
			for (i = 0; i < b->n; i++)
				art_put_child(body + b->n + 2 * i, b->children[i]);
			break;
		case ART_NODE_48:
			memset(body, 0, 256);
			for (i = 0; i < b->n; i++)
			{
				body[b->keys[i]] = (uint8_t) (i + 1);
				art_put_child(body + 256 + 2 * i, b->children[i]);
			}
			break;
		default:
			memset(body, 0, 512);
			for (i = 0; i < b->n; i++)
				art_put_child(body + 2 * b->keys[i], b->children[i]);
			break;
	}
	return art_build_size(b);
}

/* Fill b from a decoded node, children in key order. */
void
art_build_from_node(const ArtNode *node, ArtNodeBuild *b)
{
	int			key = -1;
	uint8_t		k;
	ArtChild	c;

	b->terminal = node->terminal;
	b->plen = node->plen;
	b->prefix = node->prefix;
	b->count = node->count;
	b->wide = node->cw == ART_COUNT_WIDE;
	b->n = 0;
	if (node->kind == ART_NODE_4 || node->kind == ART_NODE_16)
	{
		int			i;

		for (i = 0; i < node->n; i++)
		{
			b->keys[i] = node->body[i];
			b->children[i] = art_get_child(node->body + node->n + 2 * i);
		}
		b->n = node->n;
		return;
	}
	while (art_node_next(node, key, &k, &c))
	{
		b->keys[b->n] = k;
		b->children[b->n] = c;
		b->n++;
		key = k;
	}
}

/* Add a child to b, keeping keys sorted; the key must be absent. */
void
art_build_add(ArtNodeBuild *b, uint8_t key, ArtChild child)
{
	int			i = b->n;

	while (i > 0 && b->keys[i - 1] > key)
	{
		b->keys[i] = b->keys[i - 1];
		b->children[i] = b->children[i - 1];
		i--;
	}
	b->keys[i] = key;
	b->children[i] = child;
	b->n++;
}

/* Remove the child with this key from b. */
void
art_build_remove(ArtNodeBuild *b, uint8_t key)
{
	int			i;

	for (i = 0; i < b->n; i++)
		if (b->keys[i] == key)
			break;
	for (; i + 1 < b->n; i++)
	{
		b->keys[i] = b->keys[i + 1];
		b->children[i] = b->children[i + 1];
	}
	b->n--;
}

/* Encode a leaf (or, with terminal false, the empty root) into out. */
size_t
art_leaf_encode(const uint8_t *prefix, size_t plen, bool terminal,
				uint8_t *out)
{
	size_t		pos = encode_head(ART_NODE_LEAF, terminal, plen, out);

	memmove(out + pos, prefix, plen);
	return pos + plen;
}

/* Encode a stub pointing at (page, slot). */
void
art_stub_encode(ArtPageNo page, uint16_t slot, uint8_t *out)
{
	out[0] = ART_KIND_STUB;
	art_put32(out + 1, page);
	art_put16(out + 5, slot);
}

/* Where a stub points. */
ART_HOT void
art_stub_target(const uint8_t *rec, ArtPageNo *page, uint16_t *slot)
{
	*page = art_get32(rec + 1);
	*slot = art_get16(rec + 5);
}

/* The child with the smallest key > after (after may be -1). */
ART_HOT bool
art_node_next(const ArtNode *node, int after, uint8_t *key, ArtChild *child)
{
	int			i;

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			for (i = 0; i < node->n; i++)
				if (node->body[i] > after)
				{
					*key = node->body[i];
					*child = art_get_child(node->body + node->n + 2 * i);
					return true;
				}
			return false;
		case ART_NODE_48:
			for (i = after + 1; i < 256; i++)
				if (node->body[i])
				{
					*key = (uint8_t) i;
					*child = art_get_child(node->body + 256 +
										   2 * (node->body[i] - 1));
					return true;
				}
			return false;
		case ART_NODE_256:
			for (i = after + 1; i < 256; i++)
			{
				ArtChild	c = art_get_child(node->body + 2 * i);

				if (!art_child_none(c))
				{
					*key = (uint8_t) i;
					*child = c;
					return true;
				}
			}
			return false;
		default:
			return false;
	}
}

/* The child with the largest key < before (before may be 256). */
bool
art_node_prev(const ArtNode *node, int before, uint8_t *key, ArtChild *child)
{
	int			i;

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			for (i = node->n - 1; i >= 0; i--)
				if (node->body[i] < before)
				{
					*key = node->body[i];
					*child = art_get_child(node->body + node->n + 2 * i);
					return true;
				}
			return false;
		case ART_NODE_48:
			for (i = before - 1; i >= 0; i--)
				if (node->body[i])
				{
					*key = (uint8_t) i;
					*child = art_get_child(node->body + 256 +
										   2 * (node->body[i] - 1));
					return true;
				}
			return false;
		case ART_NODE_256:
			for (i = before - 1; i >= 0; i--)
			{
				ArtChild	c = art_get_child(node->body + 2 * i);

				if (!art_child_none(c))
				{
					*key = (uint8_t) i;
					*child = c;
					return true;
				}
			}
			return false;
		default:
			return false;
	}
}

/*
 * Overwrite an inner node's count in place; it must fit the node's count
 * bytes (art_node_count_add widens them).
 */
void
art_node_set_count(ArtNode *node, uint64_t count)
{
	put_count(node->count_ptr, node->cw, count);
	node->count = count;
}

/*
 * Bytes the record of node grows by when delta is added to its count and,
 * if wide, it becomes wide: what art_node_count_add needs free in its
 * page.  0 for a leaf.
 */
size_t
art_node_count_growth(const ArtNode *node, int64_t delta, bool wide)
{
	int			cw;

	if (node->kind == ART_NODE_LEAF)
		return 0;
	cw = art_count_width(node->count + delta,
						 wide || node->cw == ART_COUNT_WIDE);
	return cw > node->cw ? (size_t) (cw - node->cw) : 0;
}

/*
 * Add delta to the count of the node at in page (nothing for a leaf)
 * and, if wide, make it wide.  In place while its count bytes hold the
 * new count (a count that shrinks keeps them); else the record is written
 * again with wider ones, which takes art_node_count_growth's bytes.
 */
void
art_node_count_add(uint8_t *page, ArtChild at, int64_t delta, bool wide)
{
	ArtNode		node;
	ArtNodeBuild b;
	uint8_t		tmp[ART_MAX_RECORD];

	art_node_decode(art_child_rec(page, at), &node);
	if (node.kind == ART_NODE_LEAF)
		return;
	if (art_node_count_growth(&node, delta, wide) == 0)
	{
		art_node_set_count(&node, node.count + delta);
		return;
	}
	art_build_from_node(&node, &b);
	b.count = node.count + delta;
	b.wide = b.wide || wide;
	art_rec_replace(page, art_child_slot(page, at), tmp, art_build_encode(&b, tmp));
}

/*
 * Add delta to the count of each node of key's path in page, from the
 * node at, where the path enters the page at key depth *d, down to the
 * stub by which it leaves the page: ART_OK, its target in *pg and *slot
 * and *d the depth where the path enters that page.  ART_NOT_FOUND if the
 * path reaches key depth upto first, or leaves the page's nodes
 * otherwise.  Those nodes lie above another page, so their counts are
 * wide and change in place: ART_CORRUPT at one that is not.  The second
 * passes of inserts and deletes walk a page so when another writer
 * changed it since they found their path.
 */
ArtStatus
art_node_count_path(uint8_t *page, ArtChild at, const uint8_t *key,
					size_t len, size_t *d, size_t upto, int64_t delta,
					ArtPageNo *pg, uint16_t *slot)
{
	while (*d < upto)
	{
		uint8_t    *rec = art_child_rec(page, at);
		ArtNode		node;

		if (art_is_stub(rec))
		{
			art_stub_target(rec, pg, slot);
			return ART_OK;
		}
		art_node_decode(rec, &node);
		if (node.kind == ART_NODE_LEAF || len - *d <= node.plen ||
			memcmp(key + *d, node.prefix, node.plen) != 0)
			return ART_NOT_FOUND;
		if (node.cw != ART_COUNT_WIDE)
			return ART_CORRUPT;
		art_node_set_count(&node, node.count + delta);
		*d += node.plen;
		at = art_node_find(&node, key[*d]);
		if (art_child_none(at))
			return ART_NOT_FOUND;
		(*d)++;
	}
	return ART_NOT_FOUND;
}

/*
 * Add the child key -> child to the node record at in page, and one
 * to its count, making the node wide if wide (the child is a stub or
 * wide); the key must be absent and the page must have room for the
 * larger record (art_node_size_for, with art_count_width of the new
 * count).  An N256 whose count bytes hold the new count keeps its size
 * and is changed in place; a node that keeps its kind and count bytes is
 * copied once with the child put in; any other is rebuilt.  An N48 takes
 * the new child at the end of its slot array (its index maps keys to
 * positions in any order).
 */
void
art_node_add_child(uint8_t *page, ArtChild at, uint8_t key, ArtChild child,
				   bool wide)
{
	uint8_t    *rec = art_child_rec(page, at);
	uint8_t		tmp[ART_MAX_RECORD];
	ArtNode		node;
	ArtNodeBuild b;
	size_t		head;
	size_t		size;
	int			n;
	int			i;

	art_node_decode(rec, &node);
	n = node.n;
	if (node.kind != ART_NODE_LEAF &&
		art_node_count_growth(&node, 1, wide) == 0 &&
		node.kind == ART_NODE_256)
	{
		art_put_child(node.body + 2 * key, child);
		node.count_ptr[node.cw] = (uint8_t) n;
		art_node_set_count(&node, node.count + 1);
		return;
	}
	if (node.kind == ART_NODE_LEAF || art_kind_for(n + 1) != node.kind ||
		art_node_count_growth(&node, 1, wide) > 0)
	{
		art_build_from_node(&node, &b);
		art_build_add(&b, key, child);
		b.count = node.count + 1;
		b.wide = b.wide || wide;
		size = art_build_encode(&b, tmp);
		art_rec_replace(page, art_child_slot(page, at), tmp, size);
		return;
	}
	head = node.body - rec;
	memcpy(tmp, rec, head);
	put_count(tmp + (node.count_ptr - rec), node.cw, node.count + 1);
	tmp[node.count_ptr - rec + node.cw] = (uint8_t) n;
	if (node.kind == ART_NODE_48)
	{
		memcpy(tmp + head, node.body, 256 + 2 * (size_t) n);
		tmp[head + key] = (uint8_t) (n + 1);
		art_put_child(tmp + head + 256 + 2 * n, child);
		size = head + 256 + 2 * (size_t) (n + 1);
	}
	else
	{
		uint8_t    *keys = tmp + head;
		uint8_t    *slots = keys + n + 1;

		for (i = 0; i < n && node.body[i] < key; i++)
			;
		memcpy(keys, node.body, i);
		keys[i] = key;
		memcpy(keys + i + 1, node.body + i, n - i);
		memcpy(slots, node.body + n, 2 * (size_t) i);
		art_put_child(slots + 2 * i, child);
		memcpy(slots + 2 * (i + 1), node.body + n + 2 * i, 2 * (size_t) (n - i));
		size = head + 3 * (size_t) (n + 1);
	}
	art_rec_replace(page, art_child_slot(page, at), tmp, size);
}

/* Overwrite the reference of an existing child in place. */
void
art_node_set_child(ArtNode *node, uint8_t key, ArtChild child)
{
	int			i;

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			for (i = 0; i < node->n; i++)
				if (node->body[i] == key)
					art_put_child(node->body + node->n + 2 * i, child);
			break;
		case ART_NODE_48:
			art_put_child(node->body + 256 + 2 * (node->body[key] - 1), child);
			break;
		case ART_NODE_256:
			art_put_child(node->body + 2 * key, child);
			break;
		default:
			break;
	}
}

/*
 * The children of an inner node in key order, into children (room for
 * 256); returns how many.  One pass over the body, where art_node_next
 * would start again for each child.
 */
int
art_node_children(const ArtNode *node, ArtChild *children)
{
	int			n = 0;
	int			i;

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			for (i = 0; i < node->n; i++)
				children[n++] = art_get_child(node->body + node->n + 2 * i);
			break;
		case ART_NODE_48:
			for (i = 0; i < 256; i++)
				if (node->body[i])
					children[n++] = art_get_child(node->body + 256 +
												  2 * (node->body[i] - 1));
			break;
		case ART_NODE_256:
			for (i = 0; i < 256; i++)
			{
				ArtChild	c = art_get_child(node->body + 2 * i);

				if (!art_child_none(c))
					children[n++] = c;
			}
			break;
		default:
			break;
	}
	return n;
}

/*
 * Replace each child of an inner node, in slot s, by the child in slot
 * map[s], in place.
 */
void
art_node_remap_children(ArtNode *node, const uint16_t *map)
{
	uint8_t    *p = node->body;
	int			n = node->n;
	int			i;

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			p += n;
			break;
		case ART_NODE_48:
			p += 256;
			break;
		case ART_NODE_256:
			n = 256;
			break;
		default:
			return;
	}
	for (i = 0; i < n; i++)
	{
		uint16_t	s = art_get16(p + 2 * i);

		if (s)
			art_put16(p + 2 * i, map[s]);
	}
}
