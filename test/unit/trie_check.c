/*-------------------------------------------------------------------------
 *
 * trie_check.c
 *	  Checks of a trie against the reference model.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>

#include "trie_check.h"

/* Print a short, printable rendering of a byte string. */
static void
show(const char *what, const uint8_t *s, size_t len)
{
	size_t		i;

	fprintf(stderr, "  %s (%zu bytes): ", what, len);
	for (i = 0; i < len && i < 48; i++)
		fprintf(stderr, (s[i] >= 0x20 && s[i] < 0x7f) ? "%c" : "\\x%02x", s[i]);
	fprintf(stderr, "%s\n", len > 48 ? "..." : "");
}

/*
 * verify, stats' entry count, and the group count of a trie that keeps
 * one.
 */
bool
check_verify(ArtTrie *t, const Model *m)
{
	char		msg[256];
	ArtStats	stats;
	uint64_t	groups;
	ArtStatus	st = art_verify(t, msg, sizeof(msg));

	if (st != ART_OK)
	{
		fprintf(stderr, "verify: %s: %s\n", art_status_string(st), msg);
		return false;
	}
	st = art_stats(t, &stats);
	if (st != ART_OK || stats.entries != m->n)
	{
		fprintf(stderr, "stats: %s, %llu entries, model has %zu\n",
				art_status_string(st), (unsigned long long) stats.entries,
				m->n);
		return false;
	}
	st = art_groups(t, &groups);
	if (st == ART_OK && groups != model_groups(m))
	{
		fprintf(stderr, "groups: the trie counts %llu, model has %llu\n",
				(unsigned long long) groups,
				(unsigned long long) model_groups(m));
		return false;
	}
	if (st != ART_OK && st != ART_NOT_FOUND)
	{
		fprintf(stderr, "groups: %s\n", art_status_string(st));
		return false;
	}
	return true;
}

/* The model's next entry for a scan after last (NULL: the first). */
const MKey *
model_scan_next(const Model *m, const ScanSpec *s, const MKey *last)
{
	const MKey *c;

	if (s->dir == ART_FORWARD)
	{
		size_t		i;

		if (last)
			i = model_lower(m, last->data, last->len, true);
		else if (s->start)
			i = model_lower(m, s->start, s->start_len, !s->start_inclusive);
		else
			i = 0;
		if (s->prefix && !last)
		{
			size_t		p = model_lower(m, s->prefix, s->prefix_len, false);

			if (p > i)
				i = p;
		}
		if (i >= m->n)
			return NULL;
		c = &m->keys[i];
	}
	else
	{
		size_t		j;			/* one past the candidate */

		if (last)
			j = model_lower(m, last->data, last->len, false);
		else if (s->start)
			j = model_lower(m, s->start, s->start_len, s->start_inclusive);
		else
			j = m->n;
		if (s->prefix && !last)
		{
			size_t		p = model_lower(m, s->prefix, s->prefix_len, false);

			while (p < m->n && has_prefix(m->keys[p].data, m->keys[p].len,
										  s->prefix, s->prefix_len))
				p++;
			if (p < j)
				j = p;
		}
		if (j == 0)
			return NULL;
		c = &m->keys[j - 1];
	}
	if (s->bound)
	{
		int			cmp = mcmp(c->data, c->len, s->bound, s->bound_len);

		if (s->dir == ART_BACKWARD)
			cmp = -cmp;
		if (cmp > 0 || (cmp == 0 && !s->bound_inclusive))
			return NULL;
	}
	if (s->prefix && !has_prefix(c->data, c->len, s->prefix, s->prefix_len))
		return NULL;
	return c;
}

/* Compare up to limit entries of a scan. */
bool
check_scan(ArtTrie *t, const Model *m, const ScanSpec *s)
{
	ArtCursor  *c;
	ArtStatus	st;
	const MKey *want = NULL;
	int			i;
	bool		ok = true;

	st = art_cursor_open(t, &c);
	if (st != ART_OK)
		return false;
	if (s->prefix)
		art_cursor_set_prefix(c, s->prefix, s->prefix_len);
	if (s->bound)
		art_cursor_set_bound(c, s->bound, s->bound_len, s->bound_inclusive);
	art_cursor_seek(c, s->start, s->start_len, s->start_inclusive, s->dir);
	for (i = 0; i < s->limit; i++)
	{
		const uint8_t *e;
		size_t		len;

		want = model_scan_next(m, s, want);
		st = art_cursor_next(c, &e, &len);
		if (want == NULL && st == ART_NOT_FOUND)
			break;
		if (want == NULL || st != ART_OK ||
			mcmp(e, len, want->data, want->len) != 0)
		{
			fprintf(stderr, "scan %s step %d: trie says %s\n",
					s->dir == ART_FORWARD ? "forward" : "backward", i,
					art_status_string(st));
			if (st == ART_OK)
				show("trie", e, len);
			if (want)
				show("model", want->data, want->len);
			if (s->start)
				show("start", s->start, s->start_len);
			if (s->prefix)
				show("prefix", s->prefix, s->prefix_len);
			if (s->bound)
				show("bound", s->bound, s->bound_len);
			ok = false;
			break;
		}
	}
	art_cursor_close(c);
	return ok;
}

/* Whole content, by a forward cursor, plus stats and verify. */
bool
check_content(ArtTrie *t, const Model *m)
{
	ScanSpec	s;

	memset(&s, 0, sizeof(s));
	s.dir = ART_FORWARD;
	s.limit = (int) m->n + 1;
	return check_scan(t, m, &s) && check_verify(t, m);
}

bool
check_lookup(ArtTrie *t, const Model *m, const uint8_t *key, size_t len)
{
	ArtStatus	st = art_lookup(t, key, len);
	ArtStatus	want = model_has(m, key, len) ? ART_OK : ART_NOT_FOUND;

	if (st != want)
	{
		fprintf(stderr, "lookup: trie %s, model %s\n", art_status_string(st),
				art_status_string(want));
		show("key", key, len);
		return false;
	}
	return true;
}

bool
check_count(ArtTrie *t, const Model *m, const uint8_t *prefix, size_t len)
{
	uint64_t	n;
	uint64_t	want = model_count_prefix(m, prefix, len);
	ArtStatus	st = art_count_prefix(t, prefix, len, &n);

	if (st != ART_OK || n != want)
	{
		fprintf(stderr, "count_prefix: trie %llu (%s), model %llu\n",
				(unsigned long long) n, art_status_string(st),
				(unsigned long long) want);
		show("prefix", prefix, len);
		return false;
	}
	return true;
}

typedef struct PrefixList
{
	size_t	   *lens;
	size_t		n;
	size_t		cap;
	size_t		stop_after;
} PrefixList;

static void
plist_add(PrefixList *p, size_t len)
{
	if (p->n == p->cap)
	{
		p->cap = p->cap ? p->cap * 2 : 16;
		p->lens = realloc(p->lens, sizeof(size_t) * p->cap);
		if (p->lens == NULL)
			abort();
	}
	p->lens[p->n++] = len;
}

static bool
prefix_cb(void *arg, size_t len)
{
	PrefixList *p = arg;

	plist_add(p, len);
	return p->stop_after == 0 || p->n < p->stop_after;
}

bool
check_prefixes_of(ArtTrie *t, const Model *m, const uint8_t *value,
				  size_t len, int terminator)
{
	PrefixList	got = {0};
	PrefixList	want = {0};
	uint8_t    *hit = calloc(len + 1, 1);
	size_t		p;
	size_t		i;
	ArtStatus	st;
	bool		ok = true;

	if (hit == NULL)
		abort();
	/* mark the qualifying lengths, entry by entry (no quadratic probing) */
	for (i = 0; i < m->n; i++)
	{
		const MKey *k = &m->keys[i];
		size_t		lcp = 0;

		while (lcp < k->len && lcp < len && k->data[lcp] == value[lcp])
			lcp++;
		if (terminator < 0)
		{
			if (lcp == k->len)
				hit[lcp] = 1;
			continue;
		}
		for (p = 0; p <= lcp && p < k->len; p++)
			if (k->data[p] == terminator)
				hit[p] = 1;
	}
	for (p = 0; p <= len; p++)
		if (hit[p])
			plist_add(&want, p);
	got.stop_after = want.n > 2 ? want.n - 1 : 0;
	st = art_prefixes_of(t, value, len, terminator, prefix_cb, &got);
	if (got.stop_after)
		want.n = got.stop_after;
	if (st != ART_OK || got.n != want.n)
		ok = false;
	for (i = 0; ok && i < want.n; i++)
		if (got.lens[i] != want.lens[want.n + (got.stop_after ? 1 : 0) - 1 - i])
			ok = false;
	if (!ok)
	{
		fprintf(stderr, "prefixes_of (terminator %d): %s, %zu lengths, model %zu\n",
				terminator, art_status_string(st), got.n, want.n);
		show("value", value, len);
	}
	free(got.lens);
	free(want.lens);
	free(hit);
	return ok;
}

typedef struct WalkCheck
{
	const Model *m;
	uint8_t    *path;
	size_t		len;
	size_t		cap;
	size_t		plen;
	size_t		max_depth;
	int			cut;
	int			stop_after;
	size_t		next;			/* index of the next expected entry */
	int			seen;
	bool		ok;
	const uint8_t *prefix;
} WalkCheck;

/* Whether the model entry at i is one the walk must report. */
static bool
walk_wants(const WalkCheck *w, size_t i)
{
	const MKey *k = &w->m->keys[i];

	if (k->len - w->plen > w->max_depth)
		return false;
	return w->cut < 0 ||
		memchr(k->data + w->plen, w->cut, k->len - w->plen) == NULL;
}

/* Advance w->next to the next entry the walk must report. */
static void
walk_skip(WalkCheck *w)
{
	while (w->next < w->m->n &&
		   has_prefix(w->m->keys[w->next].data, w->m->keys[w->next].len,
					  w->prefix, w->plen) &&
		   !walk_wants(w, w->next))
		w->next++;
}

static bool
walk_descend(void *arg, const uint8_t *bytes, size_t n)
{
	WalkCheck  *w = arg;

	if (n == 0)
		w->ok = false;
	if (w->len - w->plen + n > w->max_depth)
		return false;
	if (w->cut >= 0 && memchr(bytes, w->cut, n) != NULL)
		return false;
	if (w->len + n > w->cap)
	{
		w->cap = (w->len + n) * 2;
		w->path = realloc(w->path, w->cap);
		if (w->path == NULL)
			abort();
	}
	memcpy(w->path + w->len, bytes, n);
	w->len += n;
	return true;
}

static void
walk_ascend(void *arg, size_t n)
{
	WalkCheck  *w = arg;

	if (n > w->len - w->plen)
		w->ok = false;
	else
		w->len -= n;
}

static bool
walk_entry(void *arg)
{
	WalkCheck  *w = arg;
	const MKey *k;

	walk_skip(w);
	if (w->next >= w->m->n)
	{
		w->ok = false;
		return false;
	}
	k = &w->m->keys[w->next++];
	if (mcmp(k->data, k->len, w->path, w->len) != 0)
	{
		fprintf(stderr, "walk: entry %d differs\n", w->seen);
		show("walk", w->path, w->len);
		show("model", k->data, k->len);
		w->ok = false;
		return false;
	}
	w->seen++;
	return w->stop_after == 0 || w->seen < w->stop_after;
}

bool
check_walk(ArtTrie *t, const Model *m, const uint8_t *prefix, size_t len,
		   size_t max_depth, int cut, int stop_after)
{
	WalkCheck	w;
	ArtWalkVisitor v;
	ArtStatus	st;

	memset(&w, 0, sizeof(w));
	w.m = m;
	w.cap = len + 64;
	w.path = malloc(w.cap);
	if (w.path == NULL)
		abort();
	if (len)
		memcpy(w.path, prefix, len);
	w.len = w.plen = len;
	w.prefix = prefix;
	w.max_depth = max_depth;
	w.cut = cut;
	w.stop_after = stop_after;
	w.ok = true;
	w.next = model_lower(m, prefix, len, false);
	v.descend = walk_descend;
	v.ascend = walk_ascend;
	v.entry = walk_entry;
	v.arg = &w;
	st = art_walk(t, prefix, len, &v);
	if (st != ART_OK || !w.ok)
		w.ok = false;
	else if (w.len != w.plen)
	{
		fprintf(stderr, "walk: %zu bytes not ascended\n", w.len - w.plen);
		w.ok = false;
	}
	else if (stop_after == 0 || w.seen < stop_after)
	{
		walk_skip(&w);
		if (w.next < m->n && has_prefix(m->keys[w.next].data,
										m->keys[w.next].len, prefix, len))
		{
			fprintf(stderr, "walk: missed an entry after %d\n", w.seen);
			show("model", m->keys[w.next].data, m->keys[w.next].len);
			w.ok = false;
		}
	}
	if (!w.ok)
	{
		fprintf(stderr, "walk failed (%s), depth %zu cut %d\n",
				art_status_string(st), max_depth, cut);
		show("prefix", prefix, len);
	}
	free(w.path);
	return w.ok;
}

/* Bulk-load the model into the (empty) trie. */
bool
load_bulk(ArtTrie *t, const Model *m)
{
	ArtBulkLoader *l;
	ArtStatus	st = art_bulk_begin(t, &l);
	size_t		i;

	if (st != ART_OK)
	{
		fprintf(stderr, "bulk_begin: %s\n", art_status_string(st));
		return false;
	}
	for (i = 0; i < m->n && st == ART_OK; i++)
		st = art_bulk_add(l, m->keys[i].data, m->keys[i].len);
	if (st != ART_OK)
	{
		art_bulk_abort(l);
		fprintf(stderr, "bulk_add: %s\n", art_status_string(st));
		return false;
	}
	st = art_bulk_finish(l);
	if (st != ART_OK)
	{
		fprintf(stderr, "bulk_finish: %s\n", art_status_string(st));
		return false;
	}
	return true;
}
