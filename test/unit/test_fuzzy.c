/*-------------------------------------------------------------------------
 *
 * test_fuzzy.c
 *	  Property test of art_fuzzy against brute force.
 *
 * Random key sets over an alphabet of one-, two- and three-byte UTF-8
 * characters (keys with long shared prefixes, the empty key, keys that are
 * prefixes of others) are stored as key || 0x00 || 6-byte TID (one to
 * three TIDs per key), and also as bare keys; for random terms, distances
 * 0 to 3, with and without transpositions, whole-key and prefix mode,
 * art_fuzzy must report exactly the entries whose key's edit distance
 * (counted in characters; in prefix mode the least over the key's
 * prefixes) is within the bound, in byte order, each with its distance.
 * With max_keys it must report all entries of the first max_keys matching
 * keys by (distance, key), in that order, and nothing else.
 *
 * Plain C, no PostgreSQL.  ART_TEST_SEEDS sets how many seeds run.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trie/trie.h"
#include "trie/trie_fuzzy.h"
#include "trie/trie_memstore.h"

#define MAX_KEYS	3000
#define MAX_KEY		48
#define MAX_CHARS	MAX_KEY

static const char *const alphabet[] = {
	"a", "b", "c", "d", "e", "\xd0\xb0", "\xd0\xb1", "\xe2\x82\xac", "\xff"
};
#define NALPHA		(sizeof(alphabet) / sizeof(alphabet[0]))

static unsigned long long rng_state;
static long failures;

/* xorshift64*: a small reproducible generator. */
static unsigned long long
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* UTF-8 character length from the first byte; 0xFF stands alone. */
static int
utf8_charlen(const uint8_t *s)
{
	if (*s < 0x80 || *s >= 0xF8)
		return 1;
	if (*s >= 0xF0)
		return 4;
	if (*s >= 0xE0)
		return 3;
	return 2;
}

/* Split bytes into characters, as codes; returns the count. */
static int
split_chars(const uint8_t *s, size_t len, uint32_t *out)
{
	size_t		pos = 0;
	int			n = 0;

	while (pos < len)
	{
		int			l = utf8_charlen(s + pos);
		uint32_t	c = 0;
		int			k;

		if ((size_t) l > len - pos)
			l = (int) (len - pos);
		for (k = 0; k < l; k++)
			c = (c << 8) | s[pos + k];
		out[n++] = c;
		pos += l;
	}
	return n;
}

/*
 * Edit distance of two character strings, optionally with adjacent swaps;
 * with prefix, the least distance of b to a prefix of a.
 */
static int
edit_distance(const uint32_t *a, int n, const uint32_t *b, int m, int swaps,
			  bool prefix)
{
	static int	d[MAX_CHARS + 2][MAX_CHARS + 2];
	int			i,
				j;

	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++)
		{
			int			v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (swaps && i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
				a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	if (prefix)
	{
		int			best = d[0][m];

		for (i = 1; i <= n; i++)
			if (d[i][m] < best)
				best = d[i][m];
		return best;
	}
	return d[n][m];
}

typedef struct Key
{
	uint8_t		bytes[MAX_KEY * 3 + 8];
	size_t		len;
} Key;

static Key keys[MAX_KEYS];
static int	nkeys;

/* TIDs stored for key i in the trie with TIDs. */
#define KEY_TIDS(i)	(1 + (i) % 3)

/* key i's entry with TID t: key || 0x00 || block i || offset t; its length. */
static size_t
make_entry(int i, int t, uint8_t *entry)
{
	memcpy(entry, keys[i].bytes, keys[i].len);
	entry[keys[i].len] = 0x00;
	memset(entry + keys[i].len + 1, 0, 6);
	entry[keys[i].len + 3] = (uint8_t) (i >> 8);
	entry[keys[i].len + 4] = (uint8_t) i;
	entry[keys[i].len + 6] = (uint8_t) t;
	return keys[i].len + 7;
}

/* A random key, often extending an earlier one (shared prefixes). */
static void
random_key(Key *k)
{
	int			nchars = (int) (rng() % 12);
	int			i;

	k->len = 0;
	if (nkeys > 0 && rng() % 2 == 0)
	{
		const Key  *base = &keys[rng() % nkeys];

		memcpy(k->bytes, base->bytes, base->len);
		k->len = base->len;
		nchars = (int) (rng() % 4);
	}
	for (i = 0; i < nchars && k->len + 3 <= MAX_KEY; i++)
	{
		const char *c = alphabet[rng() % NALPHA];

		memcpy(k->bytes + k->len, c, strlen(c));
		k->len += strlen(c);
	}
}

typedef struct Hit
{
	uint8_t		entry[MAX_KEY + 16];
	size_t		len;
	size_t		key_len;
	int			distance;
} Hit;

static Hit *hits;
static int	nhits;

/* art_fuzzy callback: record what was reported. */
static bool
record_hit(void *arg, const uint8_t *entry, size_t len, size_t key_len,
		   int distance)
{
	(void) arg;
	if (nhits >= MAX_KEYS * 3 || len > sizeof(hits[0].entry))
	{
		fprintf(stderr, "too many or too long hits\n");
		failures++;
		return false;
	}
	memcpy(hits[nhits].entry, entry, len);
	hits[nhits].len = len;
	hits[nhits].key_len = key_len;
	hits[nhits].distance = distance;
	nhits++;
	return true;
}

/* memcmp order of byte strings, a proper prefix first. */
static int
bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			c = memcmp(a, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* Expected entries, as (entry, distance, key), built by brute force. */
typedef struct Expect
{
	uint8_t		entry[MAX_KEY * 3 + 16];
	size_t		len;
	int			distance;
	int			key;			/* index in keys[] */
} Expect;

/* qsort comparator for Expect by entry bytes. */
static int
expect_cmp(const void *a, const void *b)
{
	const Expect *x = a;
	const Expect *y = b;

	return bytes_cmp(x->entry, x->len, y->entry, y->len);
}

/* Order of distinct keys by (distance, key bytes). */
static int
rank_cmp(const void *a, const void *b)
{
	const Expect *x = *(const Expect *const *) a;
	const Expect *y = *(const Expect *const *) b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return bytes_cmp(keys[x->key].bytes, keys[x->key].len,
					 keys[y->key].bytes, keys[y->key].len);
}

/*
 * Check the hits of a query with max_keys against the expected entries
 * (in byte order, ranked[] their keys by (distance, key)): the first
 * max_keys keys by rank (all, if fewer match), in rank order, each with
 * all its entries in byte order, and nothing else.
 */
static void
check_max_keys(const Expect *expect, int nexpect, Expect *const *ranked,
			   int nranked, int max_keys)
{
	int			want = nranked < max_keys ? nranked : max_keys;
	int			h = 0;
	int			r;

	for (r = 0; r < want; r++)
	{
		const Expect *x;

		for (x = ranked[r]; x < expect + nexpect && x->key == ranked[r]->key; x++, h++)
		{
			if (h >= nhits ||
				bytes_cmp(hits[h].entry, hits[h].len, x->entry, x->len) != 0 ||
				hits[h].distance != x->distance)
			{
				fprintf(stderr, "max_keys %d: hit %d is not entry of the key of rank %d\n",
						max_keys, h, r);
				failures++;
				return;
			}
		}
	}
	if (h != nhits)
	{
		fprintf(stderr, "max_keys %d: %d hits, expected %d\n", max_keys, nhits, h);
		failures++;
	}
}

/*
 * Check one query against brute force; tid_mode stores key||0||TID, prefix
 * asks for prefix distances, max_keys > 0 for the first keys only.
 */
static void
check_query(ArtTrie *t, const Key *term, int dist, bool swaps, bool tid_mode,
			bool prefix, int max_keys)
{
	static Expect expect[MAX_KEYS * 3];
	static Expect *ranked[MAX_KEYS];
	uint32_t	tchars[MAX_CHARS + 1];
	uint32_t	kchars[MAX_CHARS + 1];
	int			tn = split_chars(term->bytes, term->len, tchars);
	int			nexpect = 0;
	int			nranked = 0;
	ArtFuzzyQuery q;
	ArtStatus	st;
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		int			kn = split_chars(keys[i].bytes, keys[i].len, kchars);
		int			d = edit_distance(kchars, kn, tchars, tn, swaps, prefix);
		int			ntids = tid_mode ? KEY_TIDS(i) : 1;
		int			k;

		if (d > dist)
			continue;
		for (k = 0; k < ntids; k++)
		{
			if (tid_mode)
				expect[nexpect].len = make_entry(i, k, expect[nexpect].entry);
			else
			{
				memcpy(expect[nexpect].entry, keys[i].bytes, keys[i].len);
				expect[nexpect].len = keys[i].len;
			}
			expect[nexpect].distance = d;
			expect[nexpect].key = i;
			nexpect++;
		}
	}
	qsort(expect, nexpect, sizeof(Expect), expect_cmp);
	for (i = 0; i < nexpect; i++)
		if (i == 0 || expect[i - 1].key != expect[i].key)
			ranked[nranked++] = &expect[i];
	qsort(ranked, nranked, sizeof(Expect *), rank_cmp);

	memset(&q, 0, sizeof(q));
	q.term = term->bytes;
	q.term_len = term->len;
	q.max_distance = dist;
	q.transpositions = swaps;
	q.prefix = prefix;
	q.max_keys = max_keys;
	q.terminator = tid_mode ? 0x00 : -1;
	q.charlen = utf8_charlen;
	nhits = 0;
	st = art_fuzzy(t, &q, record_hit, NULL);
	if (st != ART_OK)
	{
		fprintf(stderr, "art_fuzzy: %s\n", art_status_string(st));
		failures++;
		return;
	}
	if (max_keys > 0)
	{
		check_max_keys(expect, nexpect, ranked, nranked, max_keys);
		return;
	}
	if (nhits != nexpect)
	{
		fprintf(stderr, "term of %zu bytes, distance %d, swaps %d, tids %d, prefix %d: %d hits, expected %d\n",
				term->len, dist, swaps, tid_mode, prefix, nhits, nexpect);
		failures++;
		return;
	}
	for (i = 0; i < nhits; i++)
	{
		size_t		key_len = tid_mode ? expect[i].len - 7 : expect[i].len;

		if (bytes_cmp(hits[i].entry, hits[i].len, expect[i].entry, expect[i].len) != 0 ||
			hits[i].distance != expect[i].distance || hits[i].key_len != key_len)
		{
			fprintf(stderr, "hit %d differs (distance %d, expected %d)\n", i,
					hits[i].distance, expect[i].distance);
			failures++;
			return;
		}
	}
}

/* One seed: build both tries, run many queries. */
static void
run_seed(unsigned long long seed)
{
	ArtMemStore *ms_tid = art_memstore_new();
	ArtMemStore *ms_raw = art_memstore_new();
	ArtTrie		t_tid;
	ArtTrie		t_raw;
	int			i;

	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (art_create(&t_tid, art_memstore_store(ms_tid)) != ART_OK ||
		art_create(&t_raw, art_memstore_store(ms_raw)) != ART_OK)
	{
		fprintf(stderr, "art_create failed\n");
		failures++;
		return;
	}
	nkeys = 0;
	for (i = 0; i < MAX_KEYS; i++)
	{
		Key		   *k = &keys[nkeys];
		uint8_t		entry[MAX_KEY * 3 + 16];
		ArtStatus	st;
		int			tid;

		random_key(k);
		st = art_insert(&t_raw, k->bytes, k->len);
		if (st == ART_EXISTS)
			continue;
		if (st != ART_OK)
		{
			fprintf(stderr, "insert: %s\n", art_status_string(st));
			failures++;
			return;
		}
		for (tid = 0; tid < KEY_TIDS(nkeys); tid++)
		{
			size_t		len = make_entry(nkeys, tid, entry);

			if (art_insert(&t_tid, entry, len) != ART_OK)
			{
				fprintf(stderr, "insert with TID failed\n");
				failures++;
				return;
			}
		}
		nkeys++;
	}

	for (i = 0; i < 300 && failures == 0; i++)
	{
		Key			term;
		int			dist = (int) (rng() % 4);
		bool		swaps = rng() % 2;
		bool		prefix = rng() % 2;
		int			max_keys = rng() % 2 ? 0 : 1 + (int) (rng() % 40);

		if (rng() % 3 == 0)
			term = keys[rng() % nkeys];
		else
			random_key(&term);
		if (prefix && rng() % 2)
			term.len = term.len * (rng() % 4) / 4;
		check_query(&t_tid, &term, dist, swaps, true, prefix, max_keys);
		check_query(&t_raw, &term, dist, swaps, false, prefix, max_keys);
	}
	if (art_memstore_pinned(ms_tid) != 0 || art_memstore_pinned(ms_raw) != 0)
	{
		fprintf(stderr, "pins left after fuzzy searches\n");
		failures++;
	}
	art_memstore_destroy(ms_tid);
	art_memstore_destroy(ms_raw);
}

int
main(void)
{
	const char *env = getenv("ART_TEST_SEEDS");
	int			seeds = env ? atoi(env) : 8;
	int			s;

	hits = malloc(sizeof(Hit) * MAX_KEYS * 3);
	for (s = 1; s <= seeds && failures == 0; s++)
		run_seed((unsigned long long) s);
	free(hits);
	printf("fuzzy: %d seeds, %s\n", seeds, failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
