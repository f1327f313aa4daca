/*-------------------------------------------------------------------------
 *
 * trie_iter.c
 *	  Ordered seeks and steps over pinned pages, for cursors.
 *
 * The iterator keeps a frame for every node on the path to its position
 * and share locks on the pages of that path (so it can back up to an
 * ancestor without re-descending).  A position is a node's own entry: its
 * frame's lastkey is -1, or, for a leaf in its parent's page (every entry
 * of an index ends in one), the leaf has no frame and the parent's
 * lastkey leads to it (atleaf).  Forward order visits a
 * node's own entry, then its children in key order; backward order the
 * reverse.
 * Pages are released as the iterator backs out of them; art_iter_end
 * releases the rest.  Every lock is taken top-down along the path.  A page
 * whose frames have no child left to enter in the direction is unlocked
 * (still pinned) when the path goes on into another page: nothing reads
 * it again.  A path through many pages (keys of hundreds of kilobytes)
 * may still keep more than ART_MAX_LOCKED_PAGES pages locked; then the one
 * nearest the root is unlocked too, and its frames with children left
 * are released: backing out into one of them seeks again from the root,
 * past every entry below the child it entered last (the trie may have
 * changed there meanwhile).
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Pin and share-lock pageno on top of the iterator's pin stack. */
static ART_HOT ArtStatus
pin_page(ArtIter *it, ArtPageNo pageno)
{
	ArtStatus	st = ART_OK;

	if (it->ps.n >= it->ucap || it->ps.n >= it->ps.cap)
	{
		st = art_grow_from(it->t, (void **) &it->unlocked, &it->ucap,
						   it->ps.n + 1, sizeof(bool), it->unlocked0);
		if (st == ART_OK)
			st = art_grow_from(it->t, (void **) &it->ps.refs, &it->ps.cap,
							   it->ps.n + 1, sizeof(ArtPageRef), it->refs0);
	}
	if (st == ART_OK)
		st = art_pin_push(it->t, &it->ps, pageno, ART_LOCK_SHARE);
	if (st != ART_OK)
		return st;
	it->unlocked[it->ps.n - 1] = false;
	it->nlocked++;
	return ART_OK;
}

/* Release the top page of the iterator's pin stack. */
static void
unpin_top(ArtIter *it)
{
	if (!it->unlocked[it->ps.n - 1])
		it->nlocked--;
	art_pin_pop(it->t, &it->ps);
}

/* Unlock page p of the pin stack, keeping it pinned. */
static void
unlock_page(ArtIter *it, int p)
{
	it->t->store.ops->unlock(it->t->store.store, &it->ps.refs[p]);
	it->unlocked[p] = true;
	it->nlocked--;
}

/*
 * Whether frame f (its page locked) has a child left to enter in the
 * direction.  Forward, a node's own entry comes before its children;
 * backward after them, and needs only the node's decoded terminal flag.
 */
static bool
child_left(const ArtIter *it, const ArtIterFrame *f)
{
	uint8_t		k;
	ArtChild	c;

	if (f->lastkey < 0 || f->lastkey > 255)
		return false;
	return it->fwd ? art_node_next(&f->node, f->lastkey, &k, &c) :
		art_node_prev(&f->node, f->lastkey, &k, &c);
}

/*
 * The path has just gone on from the page below the top one into the
 * top one.  Mark done each frame on that page with no child left to
 * enter; if all of them are, nothing reads the page again before the
 * iterator backs out of it, so unlock it.  Then, if too many pages are
 * locked, unlock the one nearest the root and release its frames that
 * have children left.
 */
static void
unlock_passed_pages(ArtIter *it)
{
	int			p = it->ps.n - 2;
	int			i;

	if (!it->unlocked[p])
	{
		for (i = it->nframes - 1; i >= 0 && it->frames[i].pidx == p; i--)
		{
			ArtIterFrame *f = &it->frames[i];

			if (!f->done)
				f->done = !child_left(it, f);
			if (!f->done)
				break;
		}
		if (i < 0 || it->frames[i].pidx != p)
			unlock_page(it, p);
	}
	if (it->nlocked <= ART_MAX_LOCKED_PAGES)
		return;
	for (p = 0; it->unlocked[p]; p++)
		;
	for (i = 0; i < it->nframes; i++)
	{
		ArtIterFrame *f = &it->frames[i];

		if (f->pidx == p && !f->done)
		{
			f->done = !child_left(it, f);
			f->released = !f->done;
		}
	}
	unlock_page(it, p);
}

/* Push a frame for the node record rec of the top page, decoded into it. */
static inline ArtStatus
push_rec(ArtIter *it, uint8_t *rec)
{
	ArtIterFrame *f;

	if (it->nframes >= it->cap)
	{
		ArtStatus	st = art_grow_from(it->t, (void **) &it->frames, &it->cap,
									   it->nframes + 1, sizeof(ArtIterFrame),
									   it->frames0);

		if (st != ART_OK)
			return st;
	}
	f = &it->frames[it->nframes++];
	art_node_decode_walk(rec, &f->node);
	f->pidx = it->ps.n - 1;
	f->lastkey = -1;
	f->lastidx = -1;
	f->outlen = it->out->len;
	f->below = false;
	f->done = false;
	f->released = false;
	return ART_OK;
}

/*
 * Push a frame for the node c refers to in the top page (following a
 * stub); the node is decoded into the frame.
 */
static ART_HOT ArtStatus
push(ArtIter *it, ArtChild c)
{
	uint8_t    *rec = art_child_rec(it->ps.refs[it->ps.n - 1].data, c);

	if (art_is_stub(rec))
	{
		ArtPageNo	pg;
		uint16_t	slot;
		uint8_t    *page;
		ArtStatus	st;

		art_stub_target(rec, &pg, &slot);
		st = pin_page(it, pg);
		if (st != ART_OK)
			return st;
		unlock_passed_pages(it);
		page = it->ps.refs[it->ps.n - 1].data;
		art_prefetch_page(page);
		rec = art_child_rec(page, art_child_of_slot(page, slot));
	}
	return push_rec(it, rec);
}

/* Pop the top frame, releasing the pages only it used. */
static ART_HOT void
pop(ArtIter *it)
{
	it->nframes--;
	if (it->nframes > 0)
	{
		int			keep = it->frames[it->nframes - 1].pidx;

		while (it->ps.n - 1 > keep)
			unpin_top(it);
	}
}

/*
 * The current path against the stop bound (forward only): 1 if every
 * entry beginning with it lies past the bound (the iteration is over), -1
 * if every such entry lies before it (the path sorts below the bound at a
 * byte it has), 0 if that depends on the bytes that follow.
 */
static ART_HOT int
stop_cmp(const ArtIter *it)
{
	const ArtBuf *o = it->out;
	size_t		n = o->len < it->stoplen ? o->len : it->stoplen;
	int			c = n ? memcmp(o->data, it->stop, n) : 0;

	if (c != 0)
		return c > 0 ? 1 : -1;
	if (o->len < it->stoplen)
		return 0;
	return o->len > it->stoplen || !it->stop_inclusive ? 1 : 0;
}

/*
 * Enter child c under key byte k of the top frame; with a stop bound,
 * only if something there may lie before it (else it->past is set and no
 * frame is pushed).
 */
static ART_HOT ArtStatus
enter(ArtIter *it, uint8_t k, ArtChild c)
{
	ArtIterFrame *f = &it->frames[it->nframes - 1];
	ArtStatus	st;
	int			cmp = -1;		/* below the stop bound, or none */
	const uint8_t *rec;

	f->lastkey = k;
	it->out->len = f->outlen;
	st = art_buf_append(it->t, it->out, &k, 1);
	if (st != ART_OK)
		return st;
	if (it->stop != NULL && it->fwd && !f->below)
		cmp = stop_cmp(it);
	if (cmp > 0)
	{
		/* not even the child's page is needed */
		it->past = true;
		return ART_OK;
	}
	rec = art_child_rec(it->ps.refs[it->ps.n - 1].data, c);
	if ((rec[0] & (ART_KIND_MASK | ART_FLAG_TERMINAL)) ==
		(ART_NODE_LEAF | ART_FLAG_TERMINAL))
	{
		/* an entry in this page: no frame, the position is its bytes */
		if (rec[0] & ART_FLAG_LONGPLEN)
			st = art_buf_append(it->t, it->out, rec + 3, art_get16(rec + 1));
		else
			st = art_buf_append(it->t, it->out, rec + 2, rec[1]);
		if (st != ART_OK)
			return st;
		if (cmp == 0 && stop_cmp(it) > 0)
			it->past = true;
		it->atleaf = true;
		return ART_OK;
	}
	st = push(it, c);
	if (st != ART_OK)
		return st;
	f = &it->frames[it->nframes - 1];
	st = art_buf_append(it->t, it->out, f->node.prefix, f->node.plen);
	if (st != ART_OK)
		return st;
	f->outlen = it->out->len;
	if (cmp == 0)
		cmp = stop_cmp(it);
	if (cmp > 0)
		it->past = true;
	f->below = cmp < 0;
	return ART_OK;
}

/*
 * Go down from the top frame's node (just entered) to the first (forward)
 * or last entry of its subtree.
 */
static ART_HOT ArtStatus
extreme(ArtIter *it, bool *found)
{
	for (;;)
	{
		ArtIterFrame *f = &it->frames[it->nframes - 1];
		const ArtNode *node = &f->node;
		uint8_t		k;
		ArtChild	c;
		ArtStatus	st;

		if (it->past)
		{
			*found = false;
			return ART_OK;
		}
		if (it->atleaf)
		{
			*found = true;
			return ART_OK;
		}
		if (it->fwd && node->terminal)
		{
			*found = true;
			return ART_OK;
		}
		if (it->fwd && node->kind <= ART_NODE_16 && node->n > 0)
		{
			k = node->body[0];
			c = art_get_child(node->body + node->n);
			f->lastidx = 0;
		}
		else if (it->fwd ? !art_node_next(node, -1, &k, &c) :
				 !art_node_prev(node, 256, &k, &c))
		{
			/* a leaf; childless and not an entry only as the empty root */
			f->lastkey = -1;
			*found = node->terminal;
			return ART_OK;
		}
		st = enter(it, k, c);
		if (st != ART_OK)
			return st;
	}
}

static ArtStatus resume(ArtIter *it, const ArtIterFrame *f, bool *found);

/* Step from the current frames to the next position in the direction. */
static ART_HOT ArtStatus
advance(ArtIter *it, bool *found)
{
	*found = false;
	it->atleaf = false;
	while (it->nframes > 0 && !it->past)
	{
		ArtIterFrame *f = &it->frames[it->nframes - 1];
		const ArtNode *node = &f->node;
		uint8_t		k;
		ArtChild	c;

		if (f->released)
			return resume(it, f, found);
		if (f->done)
		{
			/* its page is unlocked: only its own entry may be left */
			if (!it->fwd && f->lastkey >= 0 && node->terminal)
			{
				f->lastkey = -1;
				it->out->len = f->outlen;
				*found = true;
				return ART_OK;
			}
		}
		else if (it->fwd && node->kind <= ART_NODE_16 && f->lastidx >= 0)
		{
			/* a sorted list whose position is known: the next one */
			int			i = f->lastidx + 1;

			if (i < node->n)
			{
				ArtStatus	st;

				k = node->body[i];
				c = art_get_child(node->body + node->n + 2 * i);
				f->lastidx = i;
				st = enter(it, k, c);
				return st != ART_OK ? st : extreme(it, found);
			}
		}
		else if (it->fwd)
		{
			if (art_node_next(node, f->lastkey, &k, &c))
			{
				ArtStatus	st = enter(it, k, c);

				return st != ART_OK ? st : extreme(it, found);
			}
		}
		else if (f->lastkey >= 0)
		{
			if (art_node_prev(node, f->lastkey, &k, &c))
			{
				ArtStatus	st = enter(it, k, c);

				return st != ART_OK ? st : extreme(it, found);
			}
			if (node->terminal)
			{
				f->lastkey = -1;
				it->out->len = f->outlen;
				*found = true;
				return ART_OK;
			}
		}
		pop(it);
	}
	return ART_OK;
}

/*
 * The child of frame f's node under key byte k, or none, with f's lastkey
 * set to k.  In an N4 or N16 the frame also notes where k lies in the key
 * list (lastidx: its index, or that of the last key below it), so that a
 * step forward from f takes the next key's child without a search, and
 * art_iter_fill walks on from f itself rather than through advance until
 * f is popped.
 */
static inline ArtChild
seek_child(ArtIterFrame *f, uint8_t k)
{
	const ArtNode *node = &f->node;
	ArtChild	none = {0};
	int			i;

	f->lastkey = k;
	if (node->kind > ART_NODE_16)
		return art_node_find(node, k);
	for (i = 0; i < node->n && node->body[i] < k; i++)
		;
	f->lastidx = i - 1;
	if (i == node->n || node->body[i] != k)
		return none;
	f->lastidx = i;
	return art_get_child(node->body + node->n + 2 * i);
}

/*
 * Position the iterator.  Forward: at the first entry >= key (> key unless
 * inclusive).  Backward: at the last entry <= key (< key unless
 * inclusive).  With upper_inf, key stands for itself followed by endless
 * 0xFF bytes (forward: past every entry beginning with key).  key NULL:
 * the first or last entry.  *found false: none.
 */
ART_HOT ArtStatus
art_iter_seek(ArtIter *it, const uint8_t *key, size_t len, bool inclusive,
			  bool upper_inf, bool *found)
{
	ArtStatus	st;
	size_t		d = 0;
	ArtChild	c;

	*found = false;
	it->atleaf = false;
	it->out->len = 0;
	st = art_buf_reserve(it->t, it->out, 1);
	if (st == ART_OK)
		st = pin_page(it, it->t->root);
	if (st != ART_OK)
		return st;
	c = art_child_of_slot(it->ps.refs[it->ps.n - 1].data, ART_ROOT_SLOT);
	for (;;)
	{
		const ArtNode *node;
		ArtIterFrame *f;
		size_t		m = 0;

		st = push(it, c);
		if (st != ART_OK)
			return st;
		f = &it->frames[it->nframes - 1];
		node = &f->node;
		if (key == NULL)
		{
			st = art_buf_append(it->t, it->out, node->prefix, node->plen);
			f->outlen = it->out->len;
			return st != ART_OK ? st : extreme(it, found);
		}
		while (m < node->plen && d + m < len && key[d + m] == node->prefix[m])
			m++;
		if (m < node->plen)
		{
			/* does the whole subtree sort after key? */
			bool		above = d + m == len ? !upper_inf :
				key[d + m] < node->prefix[m];

			if (above == it->fwd)
			{
				st = art_buf_append(it->t, it->out, node->prefix, node->plen);
				f->outlen = it->out->len;
				return st != ART_OK ? st : extreme(it, found);
			}
			pop(it);
			return advance(it, found);
		}
		st = art_buf_append(it->t, it->out, node->prefix, node->plen);
		if (st != ART_OK)
			return st;
		f->outlen = it->out->len;
		d += node->plen;
		if (d == len)
		{
			if (node->terminal && inclusive && !upper_inf)
			{
				*found = true;
				return ART_OK;
			}
			/* the children, or past them (upper_inf); backward, all or none */
			f->lastkey = upper_inf ? 256 : -1;
			if (!it->fwd && !upper_inf)
				pop(it);
			return advance(it, found);
		}
		c = seek_child(f, key[d]);
		if (art_child_none(c))
			return advance(it, found);
		st = art_buf_append(it->t, it->out, &key[d], 1);
		if (st != ART_OK)
			return st;
		d++;
	}
}

/* Step to the next entry in the iterator's direction. */
ArtStatus
art_iter_next(ArtIter *it, bool *found)
{
	return advance(it, found);
}

/*
 * Whether art_iter_fill's own walk may step on from frame f (the top
 * frame): an inner node in a locked page whose every entry lies before
 * the stop bound, whose next child is known (the first, after its own
 * entry; in an N4 or N16 the one after lastidx).  Whether a frame a seek
 * pushed lies below the bound is worked out here, once: only enter
 * compares the path with the bound as it goes.
 */
static inline bool
walkable(ArtIter *it, ArtIterFrame *f)
{
	const ArtNode *node = &f->node;

	if (f->done || f->released || node->kind == ART_NODE_LEAF ||
		(node->kind <= ART_NODE_16 && f->lastidx < 0 && f->lastkey >= 0))
		return false;
	if (!f->below && it->stop != NULL)
	{
		size_t		len = it->out->len;

		it->out->len = f->outlen;
		f->below = stop_cmp(it) < 0;
		it->out->len = len;
	}
	return f->below || it->stop == NULL;
}

/* Append bytes to a fill's batch as one entry. */
static inline ArtStatus
fill_put(ArtIter *it, ArtIterFill *fl, const uint8_t *data, size_t len)
{
	ArtStatus	st = art_buf_append(it->t, fl->batch, data, len);

	if (st == ART_OK)
		fl->ends[fl->n++] = fl->batch->len;
	return st;
}

/* Whether a fill's batch is full. */
static inline bool
fill_full(const ArtIterFill *fl)
{
	return fl->n >= fl->max || fl->batch->len >= fl->maxbytes;
}

/*
 * Forward only, positioned at an entry: step on, appending each entry
 * reached to the batch (see trie_internal.h).  While the top frame is
 * walkable, the walk goes on inside its page itself: a child that is a
 * leaf goes from the page to the batch in one copy (the node's path, its
 * key byte, its bytes) without a frame or a pass through out, a child
 * that is an inner node gets its frame (its own entry, if any, copied
 * from out) and is walked the same way, a node whose children are all
 * done is popped.  Anything else (a stub, a frame a seek left, a released
 * or done one, the stop bound) takes advance's way.  When the batch is
 * full, out holds its last entry, as after art_iter_next.
 */
ART_HOT ArtStatus
art_iter_fill(ArtIter *it, ArtIterFill *fl)
{
	ArtBuf	   *b = fl->batch;
	ArtBuf	   *out = it->out;
	ArtStatus	st;
	bool		found;

	while (!fill_full(fl))
	{
		ArtIterFrame *f = &it->frames[it->nframes - 1];

		while (walkable(it, f))
		{
			uint8_t    *page = it->ps.refs[it->ps.n - 1].data;
			bool		stub = false;

			/* f's children, and those of the nodes entered below it */
			for (;;)
			{
				const ArtNode *node = &f->node;
				bool		list = node->kind <= ART_NODE_16;
				int			i = f->lastidx + 1;
				uint8_t    *rec;
				uint8_t		k;
				ArtChild	c;

				if (list)
				{
					if (i >= node->n)
						break;
					k = node->body[i];
					c = art_get_child(node->body + node->n + 2 * i);
				}
				else if (!art_node_next(node, f->lastkey, &k, &c))
					break;
				rec = art_child_rec(page, c);
				if ((rec[0] & (ART_KIND_MASK | ART_FLAG_TERMINAL)) ==
					(ART_NODE_LEAF | ART_FLAG_TERMINAL))
				{
					/* an entry: the path, the key byte, the leaf's bytes */
					size_t		len;
					uint8_t    *dst = art_put_leaf(it->t, b, out, f->outlen,
												   k, rec, page, &len);

					if (dst == NULL)
						return ART_NO_MEMORY;
					fl->ends[fl->n++] = b->len;
					if (list)
						f->lastidx = i;
					f->lastkey = k;
					it->atleaf = true;
					if (fill_full(fl))
					{
						out->len = 0;
						return art_buf_append(it->t, out, dst, len);
					}
					continue;
				}
				if (art_is_stub(rec) ||
					(rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
				{
					stub = true;
					break;
				}
				/* an inner node of this page: a frame, walked from here */
				if (list)
					f->lastidx = i;
				f->lastkey = k;
				out->len = f->outlen;
				st = art_buf_append(it->t, out, &k, 1);
				if (st == ART_OK)
					st = push_rec(it, rec);
				if (st != ART_OK)
					return st;
				f = &it->frames[it->nframes - 1];
				if (out->len + f->node.plen + ART_COPY_BLOCK > out->cap)
				{
					st = art_buf_reserve(it->t, out, out->len + f->node.plen +
										 ART_COPY_BLOCK);
					if (st != ART_OK)
						return st;
				}
				art_copy_from_page(out->data + out->len, f->node.prefix,
								   f->node.plen, page);
				out->len += f->node.plen;
				f->outlen = out->len;
				f->below = true;
				it->atleaf = false;
				if (f->node.terminal)
				{
					st = fill_put(it, fl, out->data, out->len);
					if (st != ART_OK || fill_full(fl))
						return st;
				}
			}
			if (stub)
				break;
			pop(it);
			if (it->nframes == 0)
				break;
			f = &it->frames[it->nframes - 1];
		}
		st = advance(it, &found);
		if (st != ART_OK)
			return st;
		if (!found)
		{
			fl->ended = true;
			return ART_OK;
		}
		st = fill_put(it, fl, out->data, out->len);
		if (st != ART_OK)
			return st;
	}
	return ART_OK;
}

/*
 * Back out into frame f, whose page was unlocked with children left: the
 * trie may have changed there, so seek again from the root, past every
 * entry beginning with the path to the child f entered last.
 */
static ArtStatus
resume(ArtIter *it, const ArtIterFrame *f, bool *found)
{
	ArtStatus	st;

	it->resume.len = 0;
	st = art_buf_reserve(it->t, &it->resume, f->outlen + 1);
	if (st != ART_OK)
		return st;
	art_copy(it->resume.data, it->out->data, f->outlen);
	it->resume.data[f->outlen] = (uint8_t) f->lastkey;
	it->resume.len = f->outlen + 1;
	art_iter_end(it);
	return art_iter_seek(it, it->resume.data, it->resume.len, false, it->fwd,
						 found);
}

/* Release every page; the iterator's memory stays for another seek. */
ART_HOT void
art_iter_end(ArtIter *it)
{
	while (it->ps.n > 0)
		unpin_top(it);
	it->nframes = 0;
	it->past = false;
	it->atleaf = false;
}

/*
 * Free the iterator's memory (its pages are released), but for the first
 * storage art_iter_give gave it.
 */
ART_HOT void
art_iter_free(ArtIter *it)
{
	art_iter_end(it);
	if (it->ps.refs == it->refs0)
	{
		it->ps.refs = NULL;
		it->ps.cap = 0;
	}
	art_pin_release_all(it->t, &it->ps);
	if (it->frames != it->frames0)
		art_free(it->t, it->frames);
	it->frames = NULL;
	it->nframes = it->cap = 0;
	if (it->unlocked != it->unlocked0)
		art_free(it->t, it->unlocked);
	it->unlocked = NULL;
	it->ucap = 0;
	art_buf_free(it->t, &it->resume);
}

/*
 * Start the iterator's arrays in storage of its holder's, which they leave
 * (and do not free) only when they outgrow it: room for npages pages of a
 * path and nframes frames.
 */
ART_HOT void
art_iter_give(ArtIter *it, ArtPageRef *refs, bool *unlocked, int npages,
			  ArtIterFrame *frames, int nframes)
{
	it->ps.refs = it->refs0 = refs;
	it->ps.cap = npages;
	it->unlocked = it->unlocked0 = unlocked;
	it->ucap = npages;
	it->frames = it->frames0 = frames;
	it->cap = nframes;
}
