/*-------------------------------------------------------------------------
 *
 * test_model.h
 *	  The reference model for the trie tests: a sorted set of byte
 *	  strings in a sorted array, and a small random number generator.
 *	  Shared by the unit tests and the fuzz harness.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TEST_MODEL_H
#define ARTRIE_TEST_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct MKey
{
	uint8_t    *data;
	size_t		len;
} MKey;

typedef struct Model
{
	MKey	   *keys;
	size_t		n;
	size_t		cap;
} Model;

/* memcmp order of byte strings, a proper prefix first. */
static inline int
mcmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		n = alen < blen ? alen : blen;
	int			c = n ? memcmp(a, b, n) : 0;

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Index of the first key >= (key) (> when strict). */
static inline size_t
model_lower(const Model *m, const uint8_t *key, size_t len, bool strict)
{
	size_t		lo = 0;
	size_t		hi = m->n;

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;
		int			c = mcmp(m->keys[mid].data, m->keys[mid].len, key, len);

		if (c < 0 || (strict && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline bool
model_has(const Model *m, const uint8_t *key, size_t len)
{
	size_t		i = model_lower(m, key, len, false);

	return i < m->n && mcmp(m->keys[i].data, m->keys[i].len, key, len) == 0;
}

/* Insert; false if present. */
static inline bool
model_insert(Model *m, const uint8_t *key, size_t len)
{
	size_t		i = model_lower(m, key, len, false);

	if (i < m->n && mcmp(m->keys[i].data, m->keys[i].len, key, len) == 0)
		return false;
	if (m->n == m->cap)
	{
		m->cap = m->cap ? m->cap * 2 : 64;
		m->keys = realloc(m->keys, sizeof(MKey) * m->cap);
		if (m->keys == NULL)
			abort();
	}
	memmove(&m->keys[i + 1], &m->keys[i], sizeof(MKey) * (m->n - i));
	m->keys[i].data = malloc(len ? len : 1);
	if (m->keys[i].data == NULL)
		abort();
	if (len)
		memcpy(m->keys[i].data, key, len);
	m->keys[i].len = len;
	m->n++;
	return true;
}

/* Delete; false if absent. */
static inline bool
model_delete(Model *m, const uint8_t *key, size_t len)
{
	size_t		i = model_lower(m, key, len, false);

	if (i >= m->n || mcmp(m->keys[i].data, m->keys[i].len, key, len) != 0)
		return false;
	free(m->keys[i].data);
	memmove(&m->keys[i], &m->keys[i + 1], sizeof(MKey) * (m->n - i - 1));
	m->n--;
	return true;
}

static inline void
model_clear(Model *m)
{
	size_t		i;

	for (i = 0; i < m->n; i++)
		free(m->keys[i].data);
	m->n = 0;
}

static inline void
model_free(Model *m)
{
	model_clear(m);
	free(m->keys);
	m->keys = NULL;
	m->cap = 0;
}

/* Whether key begins with prefix. */
static inline bool
has_prefix(const uint8_t *key, size_t len, const uint8_t *prefix, size_t plen)
{
	return len >= plen && (plen == 0 || memcmp(key, prefix, plen) == 0);
}

/* Entries beginning with prefix. */
static inline uint64_t
model_count_prefix(const Model *m, const uint8_t *prefix, size_t plen)
{
	size_t		i = model_lower(m, prefix, plen, false);
	uint64_t	n = 0;

	while (i < m->n && has_prefix(m->keys[i].data, m->keys[i].len, prefix, plen))
	{
		n++;
		i++;
	}
	return n;
}

/*
 * Length of an entry's group, up to and including its first 0x00 byte;
 * 0 for an entry without one.
 */
static inline size_t
model_group_len(const MKey *k)
{
	const uint8_t *zero = k->len > 0 ? memchr(k->data, 0, k->len) : NULL;

	return zero ? (size_t) (zero - k->data) + 1 : 0;
}

/*
 * Groups of the entries (trie.h): distinct groups, where a group is an
 * entry's bytes up to its first 0x00 byte included, or the whole entry
 * (which is then a group of its own).  In order, a group's entries are
 * consecutive.
 */
static inline uint64_t
model_groups(const Model *m)
{
	uint64_t	n = 0;
	size_t		i;

	for (i = 0; i < m->n; i++)
	{
		const MKey *k = &m->keys[i];
		const MKey *p = i > 0 ? &m->keys[i - 1] : NULL;
		size_t		g = model_group_len(k);

		if (p == NULL || g == 0 || model_group_len(p) != g ||
			memcmp(p->data, k->data, g) != 0)
			n++;
	}
	return n;
}

/* xorshift64* */
typedef struct Rng
{
	uint64_t	s;
} Rng;

static inline uint64_t
rng_next(Rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

static inline uint32_t
rng_below(Rng *r, uint32_t n)
{
	return (uint32_t) ((rng_next(r) >> 32) % n);
}

#endif							/* ARTRIE_TEST_MODEL_H */
