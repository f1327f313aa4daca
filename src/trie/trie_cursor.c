/*-------------------------------------------------------------------------
 *
 * trie_cursor.c
 *	  Cursors: ordered iteration that holds nothing between calls.
 *
 * A cursor keeps copies of its start key, bound, prefix and the last entry
 * it returned.  Each art_cursor_next is one ordered seek from the root,
 * strictly past the last entry returned, so it is correct whatever other
 * operations did to the trie since the previous call.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

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
	ArtBuf		last;
	ArtBuf		cand;
	bool		done;
};

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

/* Copy len bytes into a cursor buffer. */
static ArtStatus
buf_set(ArtTrie *t, ArtBuf *buf, const uint8_t *data, size_t len)
{
	ArtStatus	st = art_buf_reserve(t, buf, len + 1);

	buf->len = 0;
	if (st != ART_OK)
		return st;
	return art_buf_append(t, buf, data, len);
}

/* Open a cursor, positioned before the first entry. */
ArtStatus
art_cursor_open(ArtTrie *t, ArtCursor **cursor)
{
	ArtCursor  *c = art_alloc(t, sizeof(ArtCursor));

	if (c == NULL)
		return ART_NO_MEMORY;
	memset(c, 0, sizeof(ArtCursor));
	c->t = t;
	c->dir = ART_FORWARD;
	*cursor = c;
	return ART_OK;
}

/* Set where the next call starts and in which direction. */
ArtStatus
art_cursor_seek(ArtCursor *cursor, const uint8_t *key, size_t len,
				bool inclusive, ArtDirection dir)
{
	cursor->dir = dir;
	cursor->has_last = false;
	cursor->done = false;
	cursor->has_start = key != NULL;
	cursor->start_inclusive = inclusive;
	if (key == NULL)
		return ART_OK;
	return buf_set(cursor->t, &cursor->start, key, len);
}

/* Set or clear the bound. */
ArtStatus
art_cursor_set_bound(ArtCursor *cursor, const uint8_t *bound, size_t len,
					 bool inclusive)
{
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
	cursor->has_prefix = prefix != NULL;
	if (prefix == NULL)
		return ART_OK;
	return buf_set(cursor->t, &cursor->prefix, prefix, len);
}

/* The first seek of a scan, clipped to the prefix. */
static ArtStatus
first_seek(ArtCursor *c, bool *found)
{
	ArtBuf	   *p = &c->prefix;
	ArtBuf	   *s = &c->start;
	bool		fwd = c->dir == ART_FORWARD;

	if (c->has_prefix)
	{
		int			cmp = c->has_start ?
			compare(s->data, s->len, p->data, p->len) : 0;
		bool		within = c->has_start && s->len >= p->len &&
			memcmp(s->data, p->data, p->len) == 0;

		if (fwd && (!c->has_start || cmp < 0))
			return art_seek(c->t, p->data, p->len, true, false, c->dir,
							&c->cand, found);
		if (!fwd && (!c->has_start || (cmp > 0 && !within)))
			return art_seek(c->t, p->data, p->len, true, true, c->dir,
							&c->cand, found);
	}
	return art_seek(c->t, c->has_start ? s->data : NULL, s->len,
					c->start_inclusive, false, c->dir, &c->cand, found);
}

/* The next entry in the cursor's direction. */
ArtStatus
art_cursor_next(ArtCursor *cursor, const uint8_t **entry, size_t *len)
{
	ArtCursor  *c = cursor;
	ArtStatus	st;
	bool		found;
	ArtBuf		tmp;

	if (c->done)
		return ART_NOT_FOUND;
	if (c->has_last)
		st = art_seek(c->t, c->last.data, c->last.len, false, false, c->dir,
					  &c->cand, &found);
	else
		st = first_seek(c, &found);
	if (st != ART_OK)
		return st;
	if (found && c->has_bound)
	{
		int			cmp = compare(c->cand.data, c->cand.len,
								  c->bound.data, c->bound.len);

		if (c->dir == ART_BACKWARD)
			cmp = -cmp;
		if (cmp > 0 || (cmp == 0 && !c->bound_inclusive))
			found = false;
	}
	if (found && c->has_prefix &&
		(c->cand.len < c->prefix.len ||
		 memcmp(c->cand.data, c->prefix.data, c->prefix.len) != 0))
		found = false;
	if (!found)
	{
		c->done = true;
		return ART_NOT_FOUND;
	}
	tmp = c->last;
	c->last = c->cand;
	c->cand = tmp;
	c->has_last = true;
	*entry = c->last.data ? c->last.data : (const uint8_t *) "";
	*len = c->last.len;
	return ART_OK;
}

/* Free a cursor. */
void
art_cursor_close(ArtCursor *cursor)
{
	ArtTrie    *t = cursor->t;

	art_buf_free(t, &cursor->start);
	art_buf_free(t, &cursor->bound);
	art_buf_free(t, &cursor->prefix);
	art_buf_free(t, &cursor->last);
	art_buf_free(t, &cursor->cand);
	art_free(t, cursor);
}
