/*-------------------------------------------------------------------------
 *
 * trie_walk.c
 *	  A depth-first walk that the visitor can prune.
 *
 * The walk keeps an explicit stack of the nodes it is inside and share
 * locks on the pages of that path; a page is released when the walk backs
 * out of it.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

typedef struct WalkFrame
{
	int			pidx;			/* page of the node in the pin stack */
	ArtChild	node;			/* the node, in its page */
	int			lastkey;		/* last child visited, -1 before the first */
	size_t		n;				/* bytes descended into this node */
} WalkFrame;

typedef struct Walk
{
	ArtTrie    *t;
	ArtPinStack ps;
	WalkFrame  *frames;
	int			nframes;
	int			cap;
	ArtBuf		bytes;
	const ArtWalkVisitor *v;
} Walk;

/* Make the record *c (in the top page) a node, following a stub. */
static ArtStatus
walk_resolve(Walk *w, ArtChild *c, ArtNode *node)
{
	uint8_t    *rec = art_child_rec(w->ps.refs[w->ps.n - 1].data, *c);

	if (art_is_stub(rec))
	{
		ArtPageNo	pg;
		uint16_t	slot;
		ArtStatus	st;
		uint8_t    *page;

		art_stub_target(rec, &pg, &slot);
		st = art_pin_push(w->t, &w->ps, pg, ART_LOCK_SHARE);
		if (st != ART_OK)
			return st;
		page = w->ps.refs[w->ps.n - 1].data;
		*c = art_child_of_slot(page, slot);
		rec = art_child_rec(page, *c);
	}
	art_node_decode(rec, node);
	return ART_OK;
}

/*
 * Enter a node after descending n bytes into it: push its frame and
 * report its entry.  Returns false if the visitor ended the walk.
 */
static bool
walk_enter(Walk *w, ArtChild c, const ArtNode *node, size_t n,
		   ArtStatus *st)
{
	*st = art_grow(w->t, (void **) &w->frames, &w->cap, w->nframes + 1,
				   sizeof(WalkFrame));
	if (*st != ART_OK)
		return false;
	w->frames[w->nframes].pidx = w->ps.n - 1;
	w->frames[w->nframes].node = c;
	w->frames[w->nframes].lastkey = -1;
	w->frames[w->nframes].n = n;
	w->nframes++;
	if (node->terminal && !w->v->entry(w->v->arg))
		return false;
	return true;
}

/* Walk the entries beginning with prefix in byte order. */
ArtStatus
art_walk(ArtTrie *t, const uint8_t *prefix, size_t len,
		 const ArtWalkVisitor *visitor)
{
	Walk		w;
	ArtStatus	st;
	ArtChild	c;
	size_t		d = 0;
	ArtNode		node;
	size_t		skip;

	memset(&w, 0, sizeof(w));
	w.t = t;
	w.v = visitor;
	st = art_pin_push(t, &w.ps, t->root, ART_LOCK_SHARE);
	if (st != ART_OK)
		goto done;
	c = art_child_of_slot(w.ps.refs[0].data, ART_ROOT_SLOT);

	/* Find the node where the prefix ends. */
	for (;;)
	{
		st = walk_resolve(&w, &c, &node);
		if (st != ART_OK)
			goto done;
		if (node.n == 0 && !node.terminal)
			goto done;
		if (len - d <= node.plen)
		{
			if (memcmp(prefix + d, node.prefix, len - d) != 0)
				goto done;
			skip = len - d;
			break;
		}
		if (memcmp(prefix + d, node.prefix, node.plen) != 0)
			goto done;
		d += node.plen;
		c = art_node_find(&node, prefix[d]);
		if (art_child_none(c))
			goto done;
		d++;
	}
	if (w.ps.n > 1)
	{
		/* keep only the page of the start node, moved to the bottom */
		ArtPageRef	top = w.ps.refs[w.ps.n - 1];
		int			i;

		for (i = 0; i < w.ps.n - 1; i++)
			t->store.ops->release(t->store.store, &w.ps.refs[i]);
		w.ps.refs[0] = top;
		w.ps.n = 1;
	}
	if (node.plen > skip &&
		!visitor->descend(visitor->arg, node.prefix + skip, node.plen - skip))
		goto done;
	if (!walk_enter(&w, c, &node, node.plen - skip, &st))
		goto unwind;

	while (w.nframes > 0)
	{
		WalkFrame  *f = &w.frames[w.nframes - 1];
		uint8_t		k;
		ArtChild	child;
		ArtNode		cnode;

		while (w.ps.n - 1 > f->pidx)
			art_pin_pop(t, &w.ps);
		art_node_decode(art_child_rec(w.ps.refs[f->pidx].data, f->node),
						&node);
		if (!art_node_next(&node, f->lastkey, &k, &child))
		{
			if (f->n > 0)
				visitor->ascend(visitor->arg, f->n);
			w.nframes--;
			continue;
		}
		f->lastkey = k;
		st = walk_resolve(&w, &child, &cnode);
		if (st != ART_OK)
			goto unwind;
		w.bytes.len = 0;
		st = art_buf_append(t, &w.bytes, &k, 1);
		if (st == ART_OK)
			st = art_buf_append(t, &w.bytes, cnode.prefix, cnode.plen);
		if (st != ART_OK)
			goto unwind;
		if (!visitor->descend(visitor->arg, w.bytes.data, w.bytes.len))
			continue;
		if (!walk_enter(&w, child, &cnode, w.bytes.len, &st))
			goto unwind;
	}
	goto done;

unwind:
	while (w.nframes > 0)
	{
		WalkFrame  *f = &w.frames[--w.nframes];

		if (f->n > 0)
			visitor->ascend(visitor->arg, f->n);
	}
done:
	art_pin_release_all(t, &w.ps);
	art_free(t, w.frames);
	art_buf_free(t, &w.bytes);
	return st;
}
