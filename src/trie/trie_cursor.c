/*-------------------------------------------------------------------------
 *
 * trie_cursor.c
 *	  Cursors: ordered iteration that holds nothing between calls.
 *
 * A cursor keeps copies of its start key, bound, prefix and the last entry
 * it returned.  A fetch seeks from the root (strictly past the last entry
 * returned) with share locks top-down, and while its pages are pinned
 * copies a batch of the entries that follow, with the trie's version
 * (kept by the store, moved by every insert, delete, truncate and bulk
 * load after its change).  Later calls return from the batch only after
 * checking that the version is unchanged; if it changed they seek again
 * from the last entry returned.  So every call returns exactly the next
 * entry of the trie as it is at that call.
 *
 * A cursor set to whole batches (art_cursor_set_batched) skips that check:
 * it returns each batch as it was read, and seeks again only when the
 * batch is used up.  Each batch is then the trie's content of its range at
 * the time it was read.
 *
 * A cursor whose range is the entries beginning with a key (an index's
 * exact lookup, most prefix scans) fetches its first batch without the
 * iterator: a lock-coupled descent to the node where the key ends, as a
 * lookup's, then the entries below that node in its page (fetch_prefix).
 * When that walk stops at a full batch, the cursor keeps the page pinned,
 * unlocked, with the walk's position and the page's count of changes
 * (ArtPageStoreOps.changes); the next fetch, if the batch was used up,
 * locks the page again and, if nobody changed it meanwhile and the pin is
 * still held (pins_era), goes on with the walk there, without a descent
 * from the root (fetch_resume).  The entries of the node's subtree in its
 * page are then those the walk would find after a new descent: every
 * change to them changes that page, and a page freed or moved changes too.
 * Otherwise it seeks past the last entry returned, as any fetch.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/*
 * Room for the first entries of a batch, bytes of a key (the start, the
 * bound, the last entry returned and the iterator's path each), bytes of
 * a batch, pages of a path and frames of the iterator, inside the
 * cursor's own allocation: an exact lookup or a scan of up to BATCH_FIRST
 * + BATCH_SECOND entries of short keys (a 3-letter prefix of a word list)
 * then allocates the cursor and nothing else, and a cursor set up again in
 * the same memory (art_cursor_init: the cursor a backend keeps between
 * index scans) allocates nothing at all.  Each buffer or array that
 * outgrows its room moves to memory of its own.
 */
#define CURSOR_ENTRIES		128
#define CURSOR_KEY_BYTES	128
#define CURSOR_BATCH_BYTES	4096
#define CURSOR_PAGES		8
#define CURSOR_FRAMES		16

/* Nodes below the prefix's node that fetch_prefix's walk goes down. */
#define PREFIX_DEPTH	16

/*
 * fetch_prefix's walk of the subtree of the node where the start key
 * ends, in that node's page: the nodes on the way down and, for each,
 * where its children stand.
 */
typedef struct PrefixWalk
{
	ArtNode		nodes[PREFIX_DEPTH];
	int			after[PREFIX_DEPTH];	/* the child key visited last, or -1 */
	int			next[PREFIX_DEPTH]; /* N4/N16: the index of the next child */
	size_t		ends[PREFIX_DEPTH]; /* path length past the node's prefix */
	int			depth;
} PrefixWalk;

struct ArtCursor
{
	ArtTrie    *t;
	ArtDirection dir;
	bool		has_start;
	bool		start_inclusive;
	ArtBuf		start;
	bool		has_bound;
	bool		bound_inclusive;
	ArtBuf		bound;
	bool		has_prefix;
	ArtBuf		prefix;
	bool		has_last;
	ArtBuf		last;			/* the last entry returned, once refetched */
	ArtBuf		path;			/* the iterator's position */
	ArtIter		it;				/* kept between fetches for its memory */
	ArtBuf		batch;			/* entries fetched ahead, back to back */
	size_t	   *ends;			/* end offset of each batch entry */
	int			nbatch;
	int			ibatch;			/* next batch entry to return */
	int			ends_cap;
	bool		batch_ends;		/* nothing follows the batch */
	uint64_t	version;		/* of the trie when the batch was read */
	int			batch_max;		/* entries the next fetch may take */
	bool		batched;		/* return batches without version checks */
	bool		done;
	bool		kept;			/* walk's page is kept pinned (fetch_resume) */
	ArtPageRef	kept_ref;		/* that page, unlocked */
	uint32_t	kept_changes;	/* its changes when it was unlocked */
	uint64_t	kept_era;		/* the store's pins_era then */
	/* first storage of the arrays and buffers above (not zeroed at open) */
	size_t		ends0[CURSOR_ENTRIES];
	ArtPageRef	refs0[CURSOR_PAGES];
	ArtIterFrame frames0[CURSOR_FRAMES];
	bool		unlocked0[CURSOR_PAGES];
	uint8_t		start0[CURSOR_KEY_BYTES];
	uint8_t		bound0[CURSOR_KEY_BYTES];
	uint8_t		last0[CURSOR_KEY_BYTES];
	uint8_t		path0[CURSOR_KEY_BYTES];
	uint8_t		batch0[CURSOR_BATCH_BYTES];
	PrefixWalk	walk;			/* fetch_prefix's, valid while kept */
};

/*
 * Fetch ahead at most this many entries (the first fetch 16, so short
 * scans stay cheap: an ORDER BY ... LIMIT 10 after a seek reads few
 * entries past its last; the second 128, then doubling with each fetch),
 * or this many bytes.  Each fetch seeks from the root again, so a long
 * scan's batches are large: with 256 entries the seeks were a tenth of a
 * scan's time per row on synth keys, and a scan of a hundred entries (a
 * 3-letter prefix of a word list) took three fetches, two seeks, when the
 * second took 32.
 */
#define BATCH_FIRST		16
#define BATCH_SECOND	128
#define BATCH_ENTRIES	1024
#define BATCH_BYTES		65536

/* memcmp order of two byte strings. */
static int
compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		n = alen < blen ? alen : blen;
	int			c = n ? memcmp(a, b, n) : 0;

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static ArtStatus save_last(ArtCursor *c);

/* The entries the fetch after one that could take max may take. */
static inline int
batch_next_max(int max)
{
	if (max == BATCH_FIRST)
		return BATCH_SECOND;
	return max < BATCH_ENTRIES ? 2 * max : max;
}

/* Copy len bytes into a cursor buffer. */
static ART_HOT ArtStatus
buf_set(ArtTrie *t, ArtBuf *buf, const uint8_t *data, size_t len)
{
	buf->len = 0;
	if (len + 1 > buf->cap)
	{
		ArtStatus	st = art_buf_reserve(t, buf, len + 1);

		if (st != ART_OK)
			return st;
	}
	return art_buf_append(t, buf, data, len);
}

/*
 * Free a cursor buffer's memory if it has any of its own (an exact lookup's
 * buffers stay in the cursor's storage: no call for them).
 */
static inline void
buf_release(ArtTrie *t, ArtBuf *buf)
{
	if (!buf->fixed && buf->data != NULL)
		art_buf_free(t, buf);
}

/*
 * Let go of the page a walk kept pinned (fetch_resume), unless the store
 * dropped the pin already.
 */
static inline void
walk_drop(ArtCursor *c)
{
	ArtPageStore *s = &c->t->store;

	if (!c->kept)
		return;
	c->kept = false;
	if (s->ops->pins_era(s->store) == c->kept_era)
		s->ops->release(s->store, &c->kept_ref);
}

/* Open a cursor, positioned before the first entry. */
ArtStatus
art_cursor_open(ArtTrie *t, ArtCursor **cursor)
{
	void	   *mem = art_alloc(t, sizeof(ArtCursor));

	if (mem == NULL)
		return ART_NO_MEMORY;
	*cursor = art_cursor_init(mem, t);
	return ART_OK;
}

/* Bytes of a cursor in memory of the caller's (art_cursor_init). */
size_t
art_cursor_size(void)
{
	return sizeof(ArtCursor);
}

/*
 * Set up a cursor in memory of the caller's, as art_cursor_open does:
 * positioned before the first entry of t.
 */
ART_HOT ArtCursor *
art_cursor_init(void *mem, ArtTrie *t)
{
	ArtCursor  *c = (ArtCursor *) mem;

	memset(c, 0, offsetof(ArtCursor, ends0));
	c->t = t;
	c->dir = ART_FORWARD;
	c->batch_max = BATCH_FIRST;
	c->ends = c->ends0;
	c->ends_cap = CURSOR_ENTRIES;
	art_buf_give(&c->start, c->start0, sizeof(c->start0));
	art_buf_give(&c->bound, c->bound0, sizeof(c->bound0));
	art_buf_give(&c->last, c->last0, sizeof(c->last0));
	art_buf_give(&c->path, c->path0, sizeof(c->path0));
	art_buf_give(&c->batch, c->batch0, sizeof(c->batch0));
	art_iter_give(&c->it, c->refs0, c->unlocked0, CURSOR_PAGES, c->frames0,
				  CURSOR_FRAMES);
	return c;
}

/* Set where the next call starts and in which direction. */
ART_HOT ArtStatus
art_cursor_seek(ArtCursor *cursor, const uint8_t *key, size_t len,
				bool inclusive, ArtDirection dir)
{
	walk_drop(cursor);
	cursor->dir = dir;
	cursor->has_last = false;
	cursor->done = false;
	cursor->nbatch = cursor->ibatch = 0;
	cursor->batch_max = BATCH_FIRST;
	cursor->has_start = key != NULL;
	cursor->start_inclusive = inclusive;
	if (key == NULL)
		return ART_OK;
	return buf_set(cursor->t, &cursor->start, key, len);
}

/* Return whole batches as read, without checking the version per call. */
ART_HOT void
art_cursor_set_batched(ArtCursor *cursor, bool batched)
{
	cursor->batched = batched;
}

/* Whether the next call is answered from the batch, without a fetch. */
ART_HOT bool
art_cursor_buffered(const ArtCursor *cursor)
{
	return cursor->done || cursor->ibatch < cursor->nbatch ||
		(cursor->batch_ends && cursor->ibatch > 0 && cursor->batched);
}

/* Pages the cursor keeps pinned between calls (see trie.h). */
int
art_cursor_pinned(const ArtCursor *cursor)
{
	const ArtPageStore *s = &cursor->t->store;

	return cursor->kept && s->ops->pins_era(s->store) == cursor->kept_era;
}

/* Set or clear the bound. */
ART_HOT ArtStatus
art_cursor_set_bound(ArtCursor *cursor, const uint8_t *bound, size_t len,
					 bool inclusive)
{
	ArtStatus	st = save_last(cursor);

	walk_drop(cursor);
	if (st != ART_OK)
		return st;
	cursor->has_bound = bound != NULL;
	cursor->bound_inclusive = inclusive;
	if (bound == NULL)
		return ART_OK;
	return buf_set(cursor->t, &cursor->bound, bound, len);
}

/* Limit the cursor to entries beginning with prefix. */
ArtStatus
art_cursor_set_prefix(ArtCursor *cursor, const uint8_t *prefix, size_t len)
{
	ArtStatus	st = save_last(cursor);

	walk_drop(cursor);
	if (st != ART_OK)
		return st;
	cursor->has_prefix = prefix != NULL;
	if (prefix == NULL)
		return ART_OK;
	return buf_set(cursor->t, &cursor->prefix, prefix, len);
}

/* The first seek of a scan, clipped to the prefix. */
static ArtStatus
first_seek(ArtCursor *c, ArtIter *it, bool *found)
{
	ArtBuf	   *p = &c->prefix;
	ArtBuf	   *s = &c->start;

	if (c->has_prefix)
	{
		int			cmp = c->has_start ?
			compare(s->data, s->len, p->data, p->len) : 0;
		bool		within = c->has_start && s->len >= p->len &&
			memcmp(s->data, p->data, p->len) == 0;

		if (it->fwd && (!c->has_start || cmp < 0))
			return art_iter_seek(it, p->data, p->len, true, false, found);
		if (!it->fwd && (!c->has_start || (cmp > 0 && !within)))
			return art_iter_seek(it, p->data, p->len, true, true, found);
	}
	return art_iter_seek(it, c->has_start ? s->data : NULL, s->len,
						 c->start_inclusive, false, found);
}

/* Whether an entry is inside the cursor's bound and prefix. */
static bool
in_range(const ArtCursor *c, const uint8_t *e, size_t len)
{
	if (c->has_bound)
	{
		int			cmp = compare(e, len, c->bound.data, c->bound.len);

		if (c->dir == ART_BACKWARD)
			cmp = -cmp;
		if (cmp > 0 || (cmp == 0 && !c->bound_inclusive))
			return false;
	}
	return !c->has_prefix ||
		(len >= c->prefix.len &&
		 memcmp(e, c->prefix.data, c->prefix.len) == 0);
}

/* Append the iterator's position to the batch. */
static inline ArtStatus
batch_add(ArtCursor *c, const ArtBuf *path)
{
	ArtStatus	st = ART_OK;

	if (c->nbatch >= c->ends_cap)
		st = art_grow_from(c->t, (void **) &c->ends, &c->ends_cap,
						   c->nbatch + 1, sizeof(size_t), c->ends0);
	if (st == ART_OK)
		st = art_buf_append(c->t, &c->batch, path->data, path->len);
	if (st == ART_OK)
		c->ends[c->nbatch++] = c->batch.len;
	return st;
}

/*
 * Whether the cursor's range is the entries beginning with its start key:
 * forward, from the start key inclusive to a bound that is the start key
 * with its last byte one higher, exclusive (an index's exact lookup
 * [v || 0x00, v || 0x01), a prefix scan's [p, successor of p)).
 */
static bool
prefix_range(const ArtCursor *c)
{
	const ArtBuf *s = &c->start;
	const ArtBuf *b = &c->bound;

	return c->dir == ART_FORWARD && c->has_start && c->start_inclusive &&
		c->has_bound && !c->bound_inclusive && !c->has_prefix &&
		s->len > 0 && b->len == s->len &&
		b->data[s->len - 1] == s->data[s->len - 1] + 1 &&
		memcmp(s->data, b->data, s->len - 1) == 0;
}

/*
 * Append the entry that ends in the terminal leaf rec of page, under key
 * byte k of the node whose path is the first pathlen bytes of the
 * cursor's path, to the batch (art_put_leaf).
 */
static inline ArtStatus
batch_add_leaf(ArtCursor *c, size_t pathlen, uint8_t k, const uint8_t *rec,
			   const uint8_t *page)
{
	size_t		len;

	if (c->nbatch >= c->ends_cap &&
		art_grow_from(c->t, (void **) &c->ends, &c->ends_cap, c->nbatch + 1,
					  sizeof(size_t), c->ends0) != ART_OK)
		return ART_NO_MEMORY;
	if (art_put_leaf(c->t, &c->batch, &c->path, pathlen, k, rec, page,
					 &len) == NULL)
		return ART_NO_MEMORY;
	c->ends[c->nbatch++] = c->batch.len;
	return ART_OK;
}

/* Why a walk of fetch_prefix's stopped. */
typedef enum WalkStop
{
	WALK_END,					/* the subtree's entries in the page are done */
	WALK_FULL,					/* the batch is full */
	WALK_OTHER					/* at a stub, or PREFIX_DEPTH nodes down */
} WalkStop;

/*
 * Go on with the cursor's walk (PrefixWalk) in page, appending entries to
 * the batch.  Each node's children are taken in key order (an N4's or
 * N16's by their index in its key list); a child that is a leaf goes from
 * the page to the batch in one copy (art_put_leaf), an inner node's path
 * is built in the cursor's path.  A stop leaves the walk at the child it
 * stopped before.
 */
static ART_HOT ArtStatus
walk_run(ArtCursor *c, const uint8_t *page, WalkStop *stop)
{
	PrefixWalk *w = &c->walk;
	ArtStatus	st = ART_OK;

	*stop = WALK_END;
	while (st == ART_OK && w->depth > 0)
	{
		int			d = w->depth - 1;
		ArtNode    *node = &w->nodes[d];
		uint8_t		k;
		ArtChild	child;
		uint8_t    *rec;

		if (node->kind <= ART_NODE_16)
		{
			int			i = w->next[d];

			if (i >= node->n)
			{
				w->depth--;
				continue;
			}
			k = node->body[i];
			child = art_get_child(node->body + node->n + 2 * i);
		}
		else if (!art_node_next(node, w->after[d], &k, &child))
		{
			w->depth--;
			continue;
		}
		rec = art_child_rec((uint8_t *) page, child);
		if (c->nbatch >= c->batch_max || c->batch.len >= BATCH_BYTES)
		{
			*stop = WALK_FULL;
			break;
		}
		if (art_is_stub(rec))
		{
			*stop = WALK_OTHER;
			break;
		}
		if ((rec[0] & (ART_KIND_MASK | ART_FLAG_TERMINAL)) ==
			(ART_NODE_LEAF | ART_FLAG_TERMINAL))
		{
			w->after[d] = k;
			w->next[d]++;
			st = batch_add_leaf(c, w->ends[d], k, rec, page);
			continue;
		}
		if (w->depth == PREFIX_DEPTH)
		{
			*stop = WALK_OTHER;
			break;
		}
		w->after[d] = k;
		w->next[d]++;
		c->path.len = w->ends[d];
		st = art_buf_append(c->t, &c->path, &k, 1);
		node = &w->nodes[d + 1];
		art_node_decode_walk(rec, node);
		if (st == ART_OK)
			st = art_buf_append(c->t, &c->path, node->prefix, node->plen);
		w->after[d + 1] = -1;
		w->next[d + 1] = 0;
		w->ends[d + 1] = c->path.len;
		w->depth++;
		if (st == ART_OK && node->terminal)
			st = batch_add(c, &c->path);
	}
	return st;
}

/*
 * The end of a walk in the page cur holds: at a full batch the page is
 * kept pinned, unlocked, for fetch_resume; else released.  *fetched is
 * false, and nothing kept, if the walk stopped before its first entry.
 */
static ArtStatus
walk_done(ArtCursor *c, ArtPageRef *cur, ArtStatus st, WalkStop stop,
		  bool *fetched)
{
	ArtPageStore *s = &c->t->store;

	if (st == ART_OK && stop == WALK_FULL)
	{
		c->kept_changes = s->ops->changes(s->store, cur);
		s->ops->unlock(s->store, cur);
		c->kept_ref = *cur;
		c->kept_era = s->ops->pins_era(s->store);
		c->kept = true;
	}
	else
		s->ops->release(s->store, cur);
	if (st != ART_OK || (stop != WALK_END && c->nbatch == 0))
		return st;
	c->batch_ends = stop == WALK_END;
	*fetched = true;
	return ART_OK;
}

/*
 * The first fetch of a prefix range (prefix_range): follow the start key
 * down with lock coupling, as art_lookup does, to the node where it ends,
 * and copy the entries of that node's subtree from its page, in order,
 * without the iterator's frames (walk_run).  The walk stops at a full
 * batch, at a child in another page (a stub) or at an inner node
 * PREFIX_DEPTH nodes down; the next fetch goes on from a full batch
 * (fetch_resume) or seeks past the batch's last entry.  *fetched is
 * false, and nothing kept, if it stops before the first entry: then the
 * caller seeks as for any range.
 */
static ART_HOT ArtStatus
fetch_prefix(ArtCursor *c, bool *fetched)
{
	ArtTrie    *t = c->t;
	PrefixWalk *w = &c->walk;
	ArtPageRef	cur;
	size_t		at;
	bool		matched;
	ArtChild	ref;
	WalkStop	stop = WALK_END;
	ArtStatus	st;

	*fetched = false;
	st = art_descend(t, c->start.data, c->start.len, &cur, &w->nodes[0], &at,
					 &matched, &ref);
	if (st != ART_OK)
		return st;
	if (!matched)
	{
		t->store.ops->release(t->store.store, &cur);
		c->batch_ends = true;
		*fetched = true;
		return ART_OK;
	}
	c->path.len = 0;
	st = art_buf_append(t, &c->path, c->start.data, at);
	if (st == ART_OK)
		st = art_buf_append(t, &c->path, w->nodes[0].prefix, w->nodes[0].plen);
	w->after[0] = -1;
	w->next[0] = 0;
	w->ends[0] = c->path.len;
	w->depth = 1;
	if (st == ART_OK && w->nodes[0].terminal)
		st = batch_add(c, &c->path);
	if (st == ART_OK)
		st = walk_run(c, cur.data, &stop);
	return walk_done(c, &cur, st, stop, fetched);
}

/*
 * A fetch after a walk stopped at a full batch whose entries were all
 * returned: lock the page it kept again and, if the pin is still held
 * and nobody changed the page meanwhile, go on with the walk there.
 * *fetched is false, and nothing kept, if it cannot: then the caller
 * seeks past the last entry returned.
 */
static ART_HOT ArtStatus
fetch_resume(ArtCursor *c, bool *fetched)
{
	ArtPageStore *s = &c->t->store;
	ArtPageRef	cur = c->kept_ref;
	WalkStop	stop = WALK_END;
	ArtStatus	st;

	*fetched = false;
	c->kept = false;
	if (s->ops->pins_era(s->store) != c->kept_era)
		return ART_OK;
	s->ops->relock(s->store, &cur, ART_LOCK_SHARE);
	if (s->ops->changes(s->store, &cur) != c->kept_changes)
	{
		s->ops->release(s->store, &cur);
		return ART_OK;
	}
	st = walk_run(c, cur.data, &stop);
	return walk_done(c, &cur, st, stop, fetched);
}

/*
 * Forward, without a prefix, past the batch's first entry: the iterator
 * itself stops at the bound, so it appends the rest of the batch in one
 * call (art_iter_fill) rather than a call per entry.
 */
static ArtStatus
fill_rest(ArtCursor *c, ArtIter *it)
{
	ArtIterFill fl;
	ArtStatus	st;

	st = art_grow_from(c->t, (void **) &c->ends, &c->ends_cap, c->batch_max,
					   sizeof(size_t), c->ends0);
	if (st != ART_OK)
		return st;
	fl.batch = &c->batch;
	fl.ends = c->ends;
	fl.n = c->nbatch;
	fl.max = c->batch_max;
	fl.maxbytes = BATCH_BYTES;
	fl.ended = false;
	st = art_iter_fill(it, &fl);
	c->nbatch = fl.n;
	c->batch_ends = fl.ended;
	return st;
}

/*
 * Seek past the last entry returned (or to the start) and fetch a batch
 * of entries in range, recording the trie's version.
 */
static ArtStatus
fetch(ArtCursor *c)
{
	ArtIter    *it = &c->it;
	ArtStatus	st;
	bool		fetched;
	bool		found;

	c->nbatch = c->ibatch = 0;
	c->batch.len = 0;
	c->batch_ends = false;
	if (c->batch.cap == 0)
	{
		st = art_buf_reserve(c->t, &c->batch, 1);
		if (st != ART_OK)
			return st;
	}
	/*
	 * Before the seek: a change moves the version after it is made.  A
	 * batched cursor never checks it (the store's read of it is a full
	 * barrier, once per exact lookup).
	 */
	if (!c->batched)
		c->version = c->t->store.ops->version(c->t->store.store, false);
	st = ART_OK;
	fetched = false;
	if (!c->has_last && prefix_range(c))
		st = fetch_prefix(c, &fetched);
	else if (c->kept)
		st = fetch_resume(c, &fetched);
	if (st != ART_OK || fetched)
	{
		c->batch_max = batch_next_max(c->batch_max);
		return st;
	}
	it->t = c->t;
	it->fwd = c->dir == ART_FORWARD;
	it->out = &c->path;
	it->stop = c->has_bound ? c->bound.data : NULL;
	it->stoplen = c->bound.len;
	it->stop_inclusive = c->bound_inclusive;
	if (c->has_last)
		st = art_iter_seek(it, c->last.data, c->last.len, false, false,
						   &found);
	else
		st = first_seek(c, it, &found);
	while (st == ART_OK)
	{
		/* past the first entry, the iterator itself stops at the bound */
		if (!found ||
			(c->nbatch == 0 || !it->fwd || c->has_prefix ?
			 !in_range(c, c->path.data, c->path.len) : false))
		{
			c->batch_ends = true;
			break;
		}
		st = batch_add(c, &c->path);
		if (st != ART_OK || c->nbatch >= c->batch_max ||
			c->batch.len >= BATCH_BYTES)
			break;
		if (it->fwd && !c->has_prefix)
		{
			st = fill_rest(c, it);
			break;
		}
		st = art_iter_next(it, &found);
	}
	art_iter_end(it);
	c->batch_max = batch_next_max(c->batch_max);
	return st;
}

/* Copy the last entry returned from the batch, before the batch goes. */
static ArtStatus
save_last(ArtCursor *c)
{
	size_t		start;
	ArtStatus	st;

	if (c->ibatch == 0)
		return ART_OK;
	start = c->ibatch > 1 ? c->ends[c->ibatch - 2] : 0;
	st = buf_set(c->t, &c->last, c->batch.data + start,
				 c->ends[c->ibatch - 1] - start);
	if (st == ART_OK)
		c->has_last = true;
	c->nbatch = c->ibatch = 0;
	return st;
}

/* Whether the trie is still at the version the batch was read at. */
static bool
batch_valid(ArtCursor *c)
{
	return c->t->store.ops->version(c->t->store.store, false) == c->version;
}

/* The next entry in the cursor's direction. */
ART_HOT ArtStatus
art_cursor_next(ArtCursor *cursor, const uint8_t **entry, size_t *len)
{
	ArtCursor  *c = cursor;
	ArtStatus	st;
	bool		valid = false;
	size_t		start;

	if (c->done)
		return ART_NOT_FOUND;
	if (c->ibatch > 0 && c->batched)
		valid = true;
	else if (c->ibatch > 0)
		valid = batch_valid(c);
	if (!valid || (c->ibatch == c->nbatch && !c->batch_ends))
	{
		/* seek again from the last entry returned */
		if (c->ibatch < c->nbatch)
			walk_drop(c);
		st = save_last(c);
		if (st == ART_OK)
			st = fetch(c);
		if (st != ART_OK)
			return st;
	}
	if (c->ibatch == c->nbatch)
	{
		c->done = true;
		return ART_NOT_FOUND;
	}
	start = c->ibatch > 0 ? c->ends[c->ibatch - 1] : 0;
	*entry = c->batch.data + start;
	*len = c->ends[c->ibatch] - start;
	c->ibatch++;
	return ART_OK;
}

/* The rest of a batched cursor's batch (see trie.h). */
ART_HOT ArtStatus
art_cursor_next_run(ArtCursor *cursor, ArtRun *run)
{
	ArtCursor  *c = cursor;
	const uint8_t *entry;
	size_t		len;
	ArtStatus	st;

	st = art_cursor_next(c, &entry, &len);
	if (st != ART_OK)
		return st;
	run->data = c->batch.data;
	run->start = (size_t) (entry - c->batch.data);
	run->ends = c->ends + c->ibatch - 1;
	run->n = c->nbatch - c->ibatch + 1;
	run->last = c->batched && c->batch_ends;
	c->ibatch = c->nbatch;
	return ART_OK;
}

/*
 * Free the memory a cursor allocated beyond its own (its pages are
 * released); a cursor of art_cursor_init's may then be set up again.
 */
ART_HOT void
art_cursor_release(ArtCursor *cursor)
{
	ArtTrie    *t = cursor->t;

	walk_drop(cursor);
	buf_release(t, &cursor->start);
	buf_release(t, &cursor->bound);
	buf_release(t, &cursor->prefix);
	buf_release(t, &cursor->last);
	buf_release(t, &cursor->path);
	buf_release(t, &cursor->batch);
	if (cursor->it.t != NULL)
		art_iter_free(&cursor->it);
	if (cursor->ends != cursor->ends0)
		art_free(t, cursor->ends);
	cursor->ends = cursor->ends0;
}

/* Free a cursor of art_cursor_open's. */
void
art_cursor_close(ArtCursor *cursor)
{
	art_cursor_release(cursor);
	art_free(cursor->t, cursor);
}
