/*-------------------------------------------------------------------------
 *
 * trie_internal.h
 *	  Page and node formats of the trie core, shared by its source files.
 *
 * See src/trie/README.md for the layout and the concurrency contract.
 *
 * Plain C: never include a PostgreSQL header here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_INTERNAL_H
#define ARTRIE_TRIE_INTERNAL_H

#include <string.h>

#include "trie.h"

/*
 * Page header, right after the store's reserved bytes: a magic number, the
 * number of slots, the start of the record area (records grow down from
 * the end of the page), the bytes of live records, 8 bytes of flags (the
 * root page held the trie's version there before; the store keeps it now,
 * and only the first byte of a root page is used: ART_ROOT_GROUPS), the
 * number of free slots below the last one, and where art_rec_alloc starts
 * looking for one (the slots before it were in use when it was set; only a
 * hint: any value is safe, pages that never set it hold 0).  The slot
 * array follows: slot k (1-based) holds the offset of its record, 0 if
 * free.
 */
#define ART_PAGE_MAGIC		0xA27E
#define ART_HDR_OFF			ART_PAGE_RESERVED
#define ART_FLAGS_OFF		(ART_HDR_OFF + 8)
#define ART_NFREE_OFF		(ART_HDR_OFF + 16)
#define ART_FREE_HINT_OFF	(ART_HDR_OFF + 18)
#define ART_SLOTS_OFF		(ART_HDR_OFF + 20)
#define ART_PAGE_USABLE		(ART_PAGE_SIZE - ART_SLOTS_OFF)

/* A root page's flag: the trie counts its groups in the store (trie.h). */
#define ART_ROOT_GROUPS		0x01

/* The trie's root node is always slot 1 of the root page. */
#define ART_ROOT_SLOT		1

/*
 * Node records.  Byte 0: kind (bits 0-2), terminal flag (bit 3: the path
 * to the end of this node's prefix is itself an entry), long-prefix flag
 * (bit 4: the prefix length takes 2 bytes instead of 1), and in an inner
 * node the count's width (bits 5-6: 1, 2 or 3 bytes, 0 for 6 bytes).
 *
 *	 leaf:	 flags, plen, prefix							(n = 0)
 *	 inner:	 flags, plen, count (1, 2, 3 or 6 bytes), n - 1, prefix, body
 *	 stub:	 flags, page (4 bytes), slot (2 bytes)
 *
 * A node whose subtree reaches another page (a stub child, or a child
 * with a 6-byte count) is *wide*: it holds a 6-byte count, so that an
 * insert's second pass, which adds to counts in pages above the changed
 * one, changes them in place and never grows a record.  Other nodes hold
 * a count as short as their count allows (or wider: a delete need not
 * narrow it); they change only in the page an insert's first pass
 * changes, where it made room for them to grow.
 *
 * Bodies: N4 and N16 hold n sorted key bytes then n child slots; N48 a
 * 256-byte index (0: no child, i: child i) then n child slots; N256 256
 * child slots (0: no child).  Child slots are 2-byte slot numbers in the
 * node's own page; a child in another page is reached through a stub
 * record in this page.  A leaf's count is 1 (0 only for the empty root).
 */
#define ART_KIND_MASK		0x07
#define ART_FLAG_TERMINAL	0x08
#define ART_FLAG_LONGPLEN	0x10
#define ART_CW_MASK			0x60
#define ART_CW_SHIFT		5

/* Bytes of a wide node's count (every count fits them). */
#define ART_COUNT_WIDE		6

#define ART_KIND_STUB		5
#define ART_STUB_SIZE		7

/* Longest prefix one node holds; longer compressed paths are chains. */
#define ART_MAX_PREFIX		1536
/* Largest record: an N256 with the longest prefix. */
#define ART_MAX_RECORD		(1 + 2 + 6 + 1 + ART_MAX_PREFIX + 512)

/*
 * A child reference, as an inner node's body holds it: the 2-byte slot
 * number of the child's record (a node or a stub) in the node's own page;
 * 0 in an N256 for no child.  A struct, so that the compiler tells a child
 * reference from a slot number: each use as a slot goes through
 * art_child_slot and each reference made from one through
 * art_child_of_slot.  Readers hold their position in a page as a child
 * reference (art_child_rec), whether a node's body or a stub led there.
 */
typedef struct ArtChild
{
	uint16_t	v;
} ArtChild;

/* A decoded node record; pointers point into the pinned page. */
typedef struct ArtNode
{
	int			kind;
	bool		terminal;
	uint32_t	plen;
	const uint8_t *prefix;
	uint64_t	count;
	int			n;
	uint8_t    *body;
	uint8_t    *count_ptr;		/* NULL for a leaf */
	int			cw;				/* bytes of the count, 0 for a leaf */
	size_t		size;			/* record size */
} ArtNode;

/* A node being built, to be encoded into a record. */
typedef struct ArtNodeBuild
{
	bool		terminal;
	uint32_t	plen;
	const uint8_t *prefix;
	uint64_t	count;
	bool		wide;			/* a 6-byte count whatever its value */
	int			n;
	uint8_t		keys[256];
	ArtChild	children[256];
} ArtNodeBuild;

/*
 * A growable stack of pinned pages.  It may start in storage of its
 * holder's (fixed, fixedcap entries: art_pin_stack_give), which it never
 * frees and goes back to when released; zeroed, it has none.
 */
typedef struct ArtPinStack
{
	ArtPageRef *refs;
	int			n;
	int			cap;
	ArtPageRef *fixed;
	int			fixedcap;
} ArtPinStack;

/*
 * A growable byte buffer from the store's temporary memory; it may start
 * in storage of its holder's (fixed), which it never frees.
 */
typedef struct ArtBuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
	bool		fixed;			/* data is its holder's storage */
} ArtBuf;

/* Unaligned little-endian access. */
static inline uint16_t
art_get16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline void
art_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline uint32_t
art_get32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline void
art_put32(uint8_t *p, uint32_t v)
{
	art_put16(p, (uint16_t) v);
	art_put16(p + 2, (uint16_t) (v >> 16));
}

static inline uint64_t
art_get48(const uint8_t *p)
{
	return (uint64_t) art_get32(p) | ((uint64_t) art_get16(p + 4) << 32);
}

static inline void
art_put48(uint8_t *p, uint64_t v)
{
	art_put32(p, (uint32_t) v);
	art_put16(p + 4, (uint16_t) (v >> 32));
}

/* Page header fields. */
static inline uint16_t
art_page_nslots(const uint8_t *page)
{
	return art_get16(page + ART_HDR_OFF + 2);
}

/* Start of the record area: bytes between the slots and it are free. */
static inline uint16_t
art_page_upper(const uint8_t *page)
{
	return art_get16(page + ART_HDR_OFF + 4);
}

static inline uint16_t
art_page_used(const uint8_t *page)
{
	return art_get16(page + ART_HDR_OFF + 6);
}

static inline uint16_t
art_page_nfree(const uint8_t *page)
{
	return art_get16(page + ART_NFREE_OFF);
}

static inline uint16_t
art_slot_off(const uint8_t *page, int slot)
{
	return art_get16(page + ART_SLOTS_OFF + 2 * (slot - 1));
}

/* Whether the trie whose root page this is counts its groups. */
static inline bool
art_root_counts_groups(const uint8_t *rootpage)
{
	return (rootpage[ART_FLAGS_OFF] & ART_ROOT_GROUPS) != 0;
}

/*
 * Whether inserting or deleting entry, which shares its first shared bytes
 * with some other entry of the trie and no more, adds or removes a group:
 * one that has a 0x00 byte at z, when no other entry shares its first
 * z + 1 bytes; one without a 0x00 byte, always (trie.h).
 */
static inline bool
art_group_change(const uint8_t *entry, size_t len, size_t shared)
{
	const uint8_t *zero = len > 0 ? memchr(entry, 0, len) : NULL;

	return zero == NULL || shared <= (size_t) (zero - entry);
}

/* Bytes a page can still take, counting fragmented space. */
static inline size_t
art_page_free(const uint8_t *page)
{
	return ART_PAGE_USABLE - 2 * (size_t) art_page_nslots(page) -
		art_page_used(page);
}

/* The record in a slot; the slot must be live. */
static inline uint8_t *
art_rec(uint8_t *page, int slot)
{
	return page + art_slot_off(page, slot);
}

/* The child reference to the record in slot of page (live or 0). */
static inline ArtChild
art_child_of_slot(const uint8_t *page, uint16_t slot)
{
	ArtChild	c;

	(void) page;
	c.v = slot;
	return c;
}

/* The slot of the record a child reference of a node of page refers to. */
static inline uint16_t
art_child_slot(const uint8_t *page, ArtChild c)
{
	(void) page;
	return c.v;
}

/* Whether a child reference refers to no record (an N256's empty key). */
static inline bool
art_child_none(ArtChild c)
{
	return c.v == 0;
}

/* The record a child reference of a node of page refers to. */
static inline uint8_t *
art_child_rec(uint8_t *page, ArtChild c)
{
	return art_rec(page, art_child_slot(page, c));
}

/* Read and write a child reference in a node's body. */
static inline ArtChild
art_get_child(const uint8_t *p)
{
	ArtChild	c;

	c.v = art_get16(p);
	return c;
}

static inline void
art_put_child(uint8_t *p, ArtChild c)
{
	art_put16(p, c.v);
}

/* Bytes of the count of an inner node whose record has these flags. */
static inline int
art_count_bytes(uint8_t flags)
{
	int			code = (flags & ART_CW_MASK) >> ART_CW_SHIFT;

	return code ? code : ART_COUNT_WIDE;
}

/*
 * Bytes of the count of a node with this count: 6 for a wide node (whose
 * subtree reaches another page), else the fewest of 1, 2 or 3 that hold
 * it (6 past those).
 */
static inline int
art_count_width(uint64_t count, bool wide)
{
	if (wide)
		return ART_COUNT_WIDE;
	if (count < (UINT64_C(1) << 8))
		return 1;
	if (count < (UINT64_C(1) << 16))
		return 2;
	if (count < (UINT64_C(1) << 24))
		return 3;
	return ART_COUNT_WIDE;
}

/*
 * A hint to the CPU to start loading the cache line at p; nothing where the
 * compiler has no such builtin.
 */
#if defined(__GNUC__) || defined(__clang__)
#define ART_PREFETCH(p) __builtin_prefetch(p)
#else
#define ART_PREFETCH(p) ((void) (p))
#endif

#define ART_CACHE_LINE 64

/*
 * Marks a function that every read statement runs (a lookup's or a scan's
 * seek, fetch, pins and node decoding): the compiler puts such functions
 * in .text.hot, which the linker gathers from every object into one run of
 * pages, as the server's layers do with pg_attribute_hot (docs/DESIGN.md,
 * "Scans").
 */
#if defined(__GNUC__) || defined(__clang__)
#define ART_HOT __attribute__((hot))
#else
#define ART_HOT
#endif

/*
 * Ask for a whole page at once, as a descent or a walk steps into it.
 * Each node visited in a page costs two dependent loads (its slot, then its
 * record), and the next node's follow only once the node is decoded, so a
 * descent through a page that is not in the cache waits on its misses one
 * after another; with the page's lines on their way at once, they overlap.
 * Sixteen lines a turn of the loop: a turn per line took three
 * instructions a line, 1,260 of an exact lookup's.
 */
static inline void
art_prefetch_page(const uint8_t *page)
{
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
	for (size_t off = 0; off < ART_PAGE_SIZE; off += ART_CACHE_LINE)
		ART_PREFETCH(page + off);
}

static inline bool
art_is_stub(const uint8_t *rec)
{
	return (rec[0] & ART_KIND_MASK) == ART_KIND_STUB;
}

/* trie_node.c: pages and records */
extern void art_page_init(uint8_t *page);
extern void art_root_reset(uint8_t *page);
extern size_t art_rec_size(const uint8_t *rec);
extern size_t art_rec_size_at(const uint8_t *page, size_t off);

/*
 * Holes between a page's records that make art_page_squeeze compact it:
 * a compaction costs about as many instructions as a page's CRC32C ten
 * times over, worth it only for a good share of the page.
 */
#define ART_SQUEEZE_HOLES	1024
extern int	art_rec_alloc(uint8_t *page, const uint8_t *rec, size_t size);
extern void art_page_add_slots(uint8_t *page, int count);
extern void art_rec_put(uint8_t *page, int slot, const uint8_t *rec,
						size_t size);
extern int	art_rec_append(uint8_t *page, const uint8_t *rec, size_t size);
extern void art_rec_free(uint8_t *page, int slot);
extern void art_rec_free_size(uint8_t *page, int slot, size_t size);
extern void art_rec_replace(uint8_t *page, int slot, const uint8_t *rec,
							size_t size);
extern size_t art_page_free_for(const uint8_t *page, size_t size);
extern void art_page_compact(uint8_t *page);

/*
 * Decode what a walk reads of a node record: its kind, terminal flag,
 * prefix and children (kind, terminal, plen, prefix, n, body), not its
 * count or size (art_node_decode adds those).
 */
static inline void
art_node_decode_walk(uint8_t *rec, ArtNode *node)
{
	uint8_t		flags = rec[0];
	size_t		hdr = 2;

	node->kind = flags & ART_KIND_MASK;
	node->terminal = (flags & ART_FLAG_TERMINAL) != 0;
	if (flags & ART_FLAG_LONGPLEN)
	{
		node->plen = art_get16(rec + 1);
		hdr = 3;
	}
	else
		node->plen = rec[1];
	if (node->kind == ART_NODE_LEAF)
	{
		node->prefix = rec + hdr;
		node->n = 0;
		node->body = NULL;
		return;
	}
	hdr += art_count_bytes(flags);
	node->n = rec[hdr] + 1;
	node->prefix = rec + hdr + 1;
	node->body = rec + hdr + 1 + node->plen;
}

/*
 * The child under key, or none (art_child_none).  Inline: a descent calls
 * it at every node on its path.
 */
static inline ArtChild
art_node_find(const ArtNode *node, uint8_t key)
{
	const uint8_t *keys;
	int			i;
	ArtChild	none = {0};

	switch (node->kind)
	{
		case ART_NODE_4:
		case ART_NODE_16:
			keys = node->body;
			for (i = 0; i < node->n; i++)
			{
				if (keys[i] == key)
					return art_get_child(node->body + node->n + 2 * i);
				if (keys[i] > key)
					break;
			}
			return none;
		case ART_NODE_48:
			i = node->body[key];
			return i ? art_get_child(node->body + 256 + 2 * (i - 1)) : none;
		case ART_NODE_256:
			return art_get_child(node->body + 2 * key);
		default:
			return none;
	}
}

/*
 * Whether n bytes at a and b are equal: a loop for the few bytes of a
 * node's prefix, where memcmp's call and set-up cost more than the
 * compare.
 */
static inline bool
art_bytes_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n > 16)
		return memcmp(a, b, n) == 0;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* trie_node.c: nodes */
extern void art_node_decode(uint8_t *rec, ArtNode *node);
extern void art_node_decode_count(uint8_t *rec, ArtNode *node);
extern int	art_kind_for(int n);
extern size_t art_build_size(const ArtNodeBuild *b);
extern size_t art_node_size_for(size_t plen, int n, int cw);
extern size_t art_build_encode(const ArtNodeBuild *b, uint8_t *out);
extern void art_build_from_node(const ArtNode *node, ArtNodeBuild *b);
extern void art_build_add(ArtNodeBuild *b, uint8_t key, ArtChild child);
extern void art_build_remove(ArtNodeBuild *b, uint8_t key);
extern size_t art_leaf_size(size_t plen);
extern size_t art_leaf_encode(const uint8_t *prefix, size_t plen,
							  bool terminal, uint8_t *out);
extern void art_stub_encode(ArtPageNo page, uint16_t slot, uint8_t *out);
extern void art_stub_target(const uint8_t *rec, ArtPageNo *page,
							uint16_t *slot);
extern bool art_node_next(const ArtNode *node, int after, uint8_t *key,
						  ArtChild *child);
extern bool art_node_prev(const ArtNode *node, int before, uint8_t *key,
						  ArtChild *child);
extern int	art_node_children(const ArtNode *node, ArtChild *children);
extern void art_node_remap_children(ArtNode *node, const uint16_t *map);
extern void art_node_set_count(ArtNode *node, uint64_t count);
extern void art_node_set_child(ArtNode *node, uint8_t key, ArtChild child);
extern void art_node_add_child(uint8_t *page, ArtChild at, uint8_t key,
							   ArtChild child, bool wide);
extern void art_node_count_add(uint8_t *page, ArtChild at, int64_t delta,
							   bool wide);
extern size_t art_node_count_growth(const ArtNode *node, int64_t delta,
									bool wide);
extern ArtStatus art_node_count_path(uint8_t *page, ArtChild at,
									 const uint8_t *key, size_t len, size_t *d,
									 size_t upto, int64_t delta, ArtPageNo *pg,
									 uint16_t *slot);

/* trie.c: pins and temporary memory */
extern void *art_alloc(ArtTrie *t, size_t size);
extern void art_free(ArtTrie *t, void *ptr);
extern ArtStatus art_pin_push(ArtTrie *t, ArtPinStack *ps, ArtPageNo pageno,
							  ArtLockMode mode);
extern void art_pin_pop(ArtTrie *t, ArtPinStack *ps);
extern void art_pin_release_all(ArtTrie *t, ArtPinStack *ps);
extern void art_relock_exclusive(ArtTrie *t, ArtPageRef *const *refs, int n);
extern void art_pin_stack_give(ArtPinStack *ps, ArtPageRef *refs, int cap);
extern ArtStatus art_buf_reserve(ArtTrie *t, ArtBuf *buf, size_t len);
extern ArtStatus art_buf_append_slow(ArtTrie *t, ArtBuf *buf,
									 const uint8_t *data, size_t len);
extern void art_buf_free(ArtTrie *t, ArtBuf *buf);
extern ArtStatus art_grow(ArtTrie *t, void **array, int *cap, int need,
						  size_t elem);
extern ArtStatus art_grow_from(ArtTrie *t, void **array, int *cap, int need,
							   size_t elem, const void *fixed);

/*
 * Copy len bytes, which must not overlap.  Up to 128 bytes are copied in
 * 8-byte words, the last one overlapping the one before, within both
 * buffers: a compiler may expand a memcpy of bounded size inline as a
 * string instruction that costs tens of cycles to start, and the ordered
 * iterator copies a few bytes per node.
 */
static inline void
art_copy(uint8_t *dst, const uint8_t *src, size_t len)
{
	if (len >= 8 && len <= 128)
	{
		uint64_t	w;
		size_t		i;

		for (i = 0; i + 8 < len; i += 8)
		{
			memcpy(&w, src + i, 8);
			memcpy(dst + i, &w, 8);
		}
		memcpy(&w, src + len - 8, 8);
		memcpy(dst + len - 8, &w, 8);
	}
	else if (len >= 4 && len < 8)
	{
		uint32_t	a;
		uint32_t	b;

		memcpy(&a, src, 4);
		memcpy(&b, src + len - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + len - 4, &b, 4);
	}
	else if (len < 4)
	{
		for (size_t i = 0; i < len; i++)
			dst[i] = src[i];
	}
	else
		memcpy(dst, src, len);
}

/*
 * The walks that copy entries into a batch (art_iter_fill, a cursor's
 * fetch_prefix) copy in blocks of ART_COPY_BLOCK bytes where the buffers
 * have room for them: art_copy's loop of 8-byte words ends at a length
 * that changes from copy to copy, which the CPU mispredicted about once a
 * copy, and it chooses between lengths first.
 */
#define ART_COPY_BLOCK	32

/*
 * Copy len bytes in blocks of ART_COPY_BLOCK, reading up to
 * ART_COPY_BLOCK bytes past src + len and writing as many past dst + len
 * (a whole block when len is 0, one block less a byte otherwise): for
 * buffers that have them, as every caller checks.
 */
static inline void
art_copy_blocks(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t		i = 0;

	do
	{
		uint8_t		w[ART_COPY_BLOCK];

		memcpy(w, src + i, ART_COPY_BLOCK);
		memcpy(dst + i, w, ART_COPY_BLOCK);
		i += ART_COPY_BLOCK;
	} while (i < len);
}

/*
 * Copy len bytes of page from src to dst, which has ART_COPY_BLOCK bytes
 * of room past them: in blocks, unless the page ends first.
 */
static inline void
art_copy_from_page(uint8_t *dst, const uint8_t *src, size_t len,
				   const uint8_t *page)
{
	if ((size_t) (src - page) + len + ART_COPY_BLOCK <= ART_PAGE_SIZE)
		art_copy_blocks(dst, src, len);
	else
		art_copy(dst, src, len);
}

/* Start buf in storage of its holder's: cap bytes at data, never freed. */
static inline void
art_buf_give(ArtBuf *buf, uint8_t *data, size_t cap)
{
	buf->data = data;
	buf->len = 0;
	buf->cap = cap;
	buf->fixed = true;
}

/*
 * Append to batch the entry that ends in the terminal leaf record rec of
 * page, under key byte k of a node whose path is the first pathlen bytes
 * of path: those bytes, k and the leaf's bytes, in blocks, the batch kept
 * with ART_COPY_BLOCK bytes of room past its end.  Returns where the
 * entry begins in the batch, its length in *len; NULL without memory.
 */
static inline uint8_t *
art_put_leaf(ArtTrie *t, ArtBuf *batch, const ArtBuf *path, size_t pathlen,
			 uint8_t k, const uint8_t *rec, const uint8_t *page, size_t *len)
{
	size_t		hdr = rec[0] & ART_FLAG_LONGPLEN ? 3 : 2;
	size_t		plen = hdr == 3 ? art_get16(rec + 1) : rec[1];
	uint8_t    *dst;

	*len = pathlen + 1 + plen;
	if (batch->len + *len + ART_COPY_BLOCK > batch->cap &&
		art_buf_reserve(t, batch,
						batch->len + *len + ART_COPY_BLOCK) != ART_OK)
		return NULL;
	dst = batch->data + batch->len;
	if (pathlen + ART_COPY_BLOCK <= path->cap)
		art_copy_blocks(dst, path->data, pathlen);
	else
		art_copy(dst, path->data, pathlen);
	dst[pathlen] = k;
	art_copy_from_page(dst + pathlen + 1, rec + hdr, plen, page);
	batch->len += *len;
	return dst;
}

/* Append bytes to buf (growing it through art_buf_append_slow). */
static inline ArtStatus
art_buf_append(ArtTrie *t, ArtBuf *buf, const uint8_t *data, size_t len)
{
	if (buf->len + len > buf->cap)
		return art_buf_append_slow(t, buf, data, len);
	art_copy(buf->data + buf->len, data, len);
	buf->len += len;
	return ART_OK;
}

/*
 * trie_iter.c: an ordered iterator over pinned pages, for cursors.  It
 * keeps the path to its position: a frame per node, the share-locked pages
 * under them, and the position's bytes in out.
 */
typedef struct ArtIterFrame
{
	ArtNode		node;			/* decoded; points into its pinned page */
	int			pidx;			/* page of the node in the pin stack */
	int			lastkey;		/* child being visited; -1: the node's own
								 * entry (before its children), 256: after
								 * them */
	int			lastidx;		/* N4/N16 forward: lastkey's index in the
								 * node's key list (after a seek's byte
								 * without a child, that of the last key
								 * below it), or -1 when unknown */
	size_t		outlen;			/* path length at the end of the prefix */
	bool		below;			/* the path sorts below the stop bound */
	bool		done;			/* no child left to enter in the direction:
								 * node no longer read, its page unlocked */
	bool		released;		/* its page unlocked with children left:
								 * backing out into it seeks again */
} ArtIterFrame;

typedef struct ArtIter
{
	ArtTrie    *t;
	bool		fwd;
	ArtPinStack ps;
	ArtIterFrame *frames;
	int			nframes;
	int			cap;
	ArtBuf	   *out;
	/* forward only: stop before the entries past stop (NULL: none) */
	const uint8_t *stop;
	size_t		stoplen;
	bool		stop_inclusive;
	bool		past;			/* the rest lies past stop */
	bool		atleaf;			/* the position is a leaf of the top frame's
								 * page, entered under its lastkey, with no
								 * frame of its own */
	bool	   *unlocked;		/* per page of ps: unlocked, only pinned */
	int			ucap;
	int			nlocked;		/* pages of ps still locked */
	ArtBuf		resume;			/* the key a seek past a released frame
								 * starts from */
	/* first storage of ps.refs, unlocked and frames (art_iter_give) */
	ArtPageRef *refs0;
	bool	   *unlocked0;
	ArtIterFrame *frames0;
} ArtIter;

/*
 * Most pages of a path an iterator or a finger keeps locked at once
 * (PostgreSQL lets a process hold 200 LWLocks).  Past it, an iterator
 * unlocks the locked page nearest the root (backing out into it seeks
 * again from the root), and a finger lets its path go and inserts with
 * art_insert, which couples its locks.
 */
#ifndef ART_MAX_LOCKED_PAGES
#define ART_MAX_LOCKED_PAGES 64
#endif

/*
 * A batch art_iter_fill appends to: entries back to back in batch, the end
 * offset of each in ends (room for max), n of them so far; it stops at
 * max entries or once batch holds maxbytes, and sets ended when no entry
 * is left.
 */
typedef struct ArtIterFill
{
	ArtBuf	   *batch;
	size_t	   *ends;
	int			n;
	int			max;
	size_t		maxbytes;
	bool		ended;
} ArtIterFill;

extern ArtStatus art_iter_seek(ArtIter *it, const uint8_t *key, size_t len,
							   bool inclusive, bool upper_inf, bool *found);
extern ArtStatus art_iter_next(ArtIter *it, bool *found);
extern ArtStatus art_iter_fill(ArtIter *it, ArtIterFill *fl);
extern void art_iter_end(ArtIter *it);
extern void art_iter_free(ArtIter *it);
extern void art_iter_give(ArtIter *it, ArtPageRef *refs, bool *unlocked,
						  int npages, ArtIterFrame *frames, int nframes);

/*
 * trie_delete.c: deletes that keep the path of the last one between calls,
 * for a finger (trie_finger.c), as art_delete_sorted keeps it
 */
typedef struct ArtDelKeep ArtDelKeep;

extern ArtStatus art_delete_keep(ArtTrie *t, ArtDelKeep **keep,
								 const uint8_t *key, size_t len);
extern void art_delete_keep_drop(ArtTrie *t, ArtDelKeep *keep);
extern void art_delete_keep_free(ArtTrie *t, ArtDelKeep *keep);

/* trie_read.c: the lock-coupled descent, counts the root page does not keep */
extern ArtStatus art_descend(ArtTrie *t, const uint8_t *key, size_t len,
							 ArtPageRef *cur, ArtNode *node, size_t *at,
							 bool *matched, ArtChild *noderef);
extern ArtStatus art_stub_count(ArtTrie *t, const uint8_t *stub,
								uint64_t *count);
extern ArtStatus art_root_count(ArtTrie *t, uint8_t *page, ArtChild at,
								uint64_t *count);

/* What an insert does at a node it has reached. */
typedef enum ArtInsertOp
{
	ART_OP_DESCEND,				/* go on to a child */
	ART_OP_EXISTS,				/* the entry is there */
	ART_OP_ADD_CHILD,			/* new child under the node */
	ART_OP_SET_TERMINAL,		/* the entry ends at the node */
	ART_OP_SPLIT_PREFIX,		/* the entry leaves the node's prefix */
	ART_OP_FILL_ROOT			/* the trie is empty */
} ArtInsertOp;

/* An insert's change at one node, planned before anything is changed. */
typedef struct ArtInsertPlan
{
	ArtInsertOp op;
	size_t		d;				/* key depth: at the node's start, then past
								 * its prefix (ADD_CHILD: the new key byte) */
	size_t		m;				/* SPLIT_PREFIX: prefix bytes the key shares */
	bool		has_leaf;		/* a new leaf holds key[leafoff ..] */
	size_t		leafoff;
	bool		inline_leaf;	/* in this page, or in fresh pages by a stub */
	ArtPageNo	lpage;			/* !inline_leaf: where the long tail went */
	uint16_t	lslot;
} ArtInsertPlan;

/* trie_insert.c: the two passes of an insert, and its steps for a finger */
extern size_t art_common_len(const uint8_t *a, size_t alen, const uint8_t *b,
							 size_t blen);
extern ArtInsertOp art_plan_node(const ArtNode *node, bool at_root,
								 const uint8_t *key, size_t len,
								 ArtInsertPlan *p, ArtChild *child);
extern size_t art_change_need(const ArtNode *node, size_t len,
							  ArtInsertPlan *p);
extern ArtStatus art_change_place_tail(ArtTrie *t, const uint8_t *key,
									   size_t len, ArtInsertPlan *p);
extern void art_change_apply(uint8_t *page, ArtChild at, const uint8_t *key,
							 size_t len, const ArtInsertPlan *p);
extern size_t art_path_growth(uint8_t *page, const ArtChild *path, int npath,
							   bool wide);
extern void art_change_count_group(ArtTrie *t, bool counted,
								   const uint8_t *key, size_t len,
								   const ArtInsertPlan *p);

/*
 * Pages of a path the first pass of an insert notes for the second (their
 * changes and where their nodes' counts lie), and those counts in all.
 * Keys whose paths cross more pages take the second pass's walk by key
 * past them.
 */
#define ART_HOLD_PAGES		8
#define ART_HOLD_COUNTS		48

/*
 * A page of the path kept for the second pass, as the first pass read it:
 * where the path enters it, and, if fast, the store's changes of it then
 * and the offsets in it of the counts of the path's nodes there,
 * counts[first .. first + n) of its hold (all wide, so they grow in place).
 */
typedef struct ArtKeptPage
{
	uint16_t	entry_slot;
	size_t		entry_depth;
	bool		fast;
	uint32_t	changes;
	uint16_t	first;
	uint16_t	n;
} ArtKeptPage;

/*
 * What an insert holds between its two passes: the pages of its path below
 * the root page, unlocked but pinned, and the split section in the mode of
 * its last try.  Between two tries of its first pass, also the page it
 * marked for a split (split_mark) or whose marks it waits for.  Not to be
 * copied: kept starts in kept0.
 */
typedef struct ArtInsertHold
{
	ArtPinStack kept;			/* the path's pages between the root page and
								 * the changed page, top down */
	ArtPageRef	kept0[ART_HOLD_PAGES];
	ArtKeptPage pages[ART_HOLD_PAGES];	/* kept's first pages */
	uint16_t	counts[ART_HOLD_COUNTS];
	int			ncounts;
	ArtLockMode split_mode;
	bool		marked;			/* mark holds a page this insert marked */
	ArtPageRef	mark;			/* pinned, unlocked */
	ArtPageRef	wait;			/* RETRY_MARKED: the page, pinned, unlocked */
} ArtInsertHold;

extern ArtStatus art_insert_first_pass(ArtTrie *t, const uint8_t *entry,
									   size_t len, size_t *pagedepth,
									   ArtInsertHold *hold);
extern ArtStatus art_insert_second_pass(ArtTrie *t, const uint8_t *entry,
										size_t len, size_t pagedepth,
										ArtInsertHold *hold);

/*
 * trie_split.c: make room in a full page.  ART_RUN_SPLIT_FILL: the bytes
 * (slots included) that art_split_page_before, a split at the right edge
 * of an ascending run of inserts, moves to its new page at most.
 */
#define ART_RUN_SPLIT_FILL	(ART_PAGE_USABLE * 9 / 10)

extern ArtStatus art_split_page(ArtTrie *t, ArtPinStack *ps, size_t need);
extern ArtStatus art_split_page_before(ArtTrie *t, ArtPinStack *ps,
									   size_t need, uint16_t at);

/* trie_relayout.c: a subtree of the root page laid out again */
extern ArtStatus art_relayout(ArtTrie *t, ArtPageNo top, bool *done,
							  size_t *lack);

/* trie_bulk.c: place a new path of nodes into fresh pages */
extern ArtStatus art_bulk_place_leaf(ArtTrie *t, const uint8_t *suffix,
									 size_t len, ArtPageNo *page,
									 uint16_t *slot);

#endif							/* ARTRIE_TRIE_INTERNAL_H */
