/*-------------------------------------------------------------------------
 *
 * trie_sort.c
 *	  Sorting byte strings for a bulk load: an in-place MSD radix sort.
 *
 * The order is the trie's: memcmp, a proper prefix first.  Each item
 * caches eight bytes of its string (big-endian in an integer, zeros past
 * the end), loaded once every eight levels of the radix sort, so the
 * counting and permuting passes read the item array alone rather than
 * every string.  A level sorts its range into 257 buckets (strings that
 * end at that depth first, then one per byte value) in place, the
 * "American flag" way, visiting only the span of byte values present
 * (UTF-8 text uses a narrow one at most depths); bytes that every item of
 * a range shares up to the end of the caches are skipped in one pass, and
 * ranges of up to ART_SORT_SMALL items are finished by insertion sort.
 * The smaller buckets are sorted by recursion and the largest by
 * iteration, so the recursion is at most log2(n) deep however long the
 * shared prefixes.  Like PostgreSQL's qsort, each range is first checked
 * for being in order already, and left alone if it is.  A table loaded in
 * key order (a sorted word list, say) gives the build its entries sorted
 * but for a few rows out of place: the check sets up to ART_SORT_ASIDE
 * items that break the order aside, sorts them and merges them back, so
 * such a range costs two passes over it instead of a radix sort.  The
 * check stops once more items would go aside, and gives up once it may
 * have compared ART_SORT_CHECK_BYTES bytes per item, so that a range
 * whose strings share long prefixes costs no more than a pass of the sort
 * however often it is checked.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Ranges of at most this many items are insertion-sorted. */
#define ART_SORT_SMALL	32

/* The most bytes per item the check for a range in order compares. */
#define ART_SORT_CHECK_BYTES	256

/* The most items out of place that a range in order but for them may have. */
#define ART_SORT_ASIDE	512

static void sort_range(ArtSortItem *a, size_t n, size_t d);

/* Bytes [d, d + 8) of an item's string, big-endian, zeros past its end. */
static inline uint64_t
sort_load(const ArtSortItem *it, size_t d)
{
	const uint8_t *p = it->data + d;
	uint64_t	k = 0;
	size_t		i;

	if (d + 8 <= it->len)
		return (uint64_t) p[0] << 56 | (uint64_t) p[1] << 48 |
			(uint64_t) p[2] << 40 | (uint64_t) p[3] << 32 |
			(uint64_t) p[4] << 24 | (uint64_t) p[5] << 16 |
			(uint64_t) p[6] << 8 | (uint64_t) p[7];
	for (i = 0; i < 8; i++)
	{
		k <<= 8;
		if (d + i < it->len)
			k |= p[i];
	}
	return k;
}

/* The bucket of an item at depth d: 0 if its string ends there. */
static inline int
sort_bucket(const ArtSortItem *it, size_t d)
{
	if (it->len <= d)
		return 0;
	return 1 + (int) ((it->cache >> (56 - 8 * (d & 7))) & 0xFF);
}

/*
 * Compare two items that share their first d bytes, whose caches hold
 * bytes [d & ~7, (d & ~7) + 8).
 */
static inline int
sort_cmp(const ArtSortItem *a, const ArtSortItem *b, size_t d)
{
	size_t		n;
	int			c;

	if (a->cache != b->cache)
		return a->cache < b->cache ? -1 : 1;
	d = (d & ~(size_t) 7) + 8;
	n = a->len < b->len ? a->len : b->len;
	if (n > d)
	{
		c = memcmp(a->data + d, b->data + d, n - d);
		if (c != 0)
			return c;
	}
	return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/*
 * The trie's order of two items sharing their first d bytes, from their
 * strings (not their caches).
 */
static inline int
sort_cmp_data(const ArtSortItem *a, const ArtSortItem *b, size_t d)
{
	size_t		m = a->len < b->len ? a->len : b->len;
	int			c = 0;

	if (m > d)
		c = memcmp(a->data + d, b->data + d, m - d);
	if (c != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/*
 * The walk of sort_nearly: items that keep the order of those kept before
 * them are kept; an item below the last one kept is set aside, unless it
 * is not below the one kept before that (or none was), when the last one
 * kept is set aside instead (a single item far ahead of its place).  With
 * swap, the kept items end at the front in order and the ones set aside
 * after them; without, it only counts.  Returns the number set aside, or
 * ART_SORT_ASIDE + 1 once there would be more than ART_SORT_ASIDE or a
 * 32nd of the items (so that a range far from order costs a fraction of
 * a pass), or the bytes compared would pass ART_SORT_CHECK_BYTES per
 * item.
 */
static size_t
sort_nearly_walk(ArtSortItem *a, size_t n, size_t d, bool swap)
{
	size_t		budget = n * ART_SORT_CHECK_BYTES;
	size_t		most = n / 32 < ART_SORT_ASIDE ? n / 32 : ART_SORT_ASIDE;
	size_t		k = 1;			/* kept: a[0, k) with swap */
	size_t		last = 0;		/* the last two kept */
	size_t		prev = SIZE_MAX;
	size_t		aside = 0;
	size_t		i;

	for (i = 1; i < n; i++)
	{
		size_t		m = a[last].len < a[i].len ? a[last].len : a[i].len;

		if (m > d)
		{
			if (m - d > budget)
				return ART_SORT_ASIDE + 1;
			budget -= m - d;
		}
		if (sort_cmp_data(&a[last], &a[i], d) <= 0)
		{
			if (swap)
			{
				ArtSortItem t = a[k];

				a[k] = a[i];
				a[i] = t;
				prev = k - 1;
				last = k;
			}
			else
			{
				prev = last;
				last = i;
			}
			k++;
			continue;
		}
		if (++aside > most)
			return ART_SORT_ASIDE + 1;
		if (prev == SIZE_MAX || sort_cmp_data(&a[prev], &a[i], d) <= 0)
		{
			/* the last one kept goes aside, this one takes its place */
			if (swap)
			{
				ArtSortItem t = a[last];

				a[last] = a[i];
				a[i] = t;
			}
			else
				last = i;
		}
	}
	return aside;
}

/*
 * Sort n items sharing their first d bytes if all but a few of them
 * (sort_nearly_walk) are in order already (a table loaded in key order
 * with a few rows out of place): those few are set aside, sorted and
 * merged back.  False, with the items as they were, if there are more.
 */
static bool
sort_nearly(ArtSortItem *a, size_t n, size_t d)
{
	ArtSortItem aside[ART_SORT_ASIDE];
	size_t		naside = sort_nearly_walk(a, n, d, false);
	size_t		i;
	size_t		j;
	size_t		out;

	if (naside > ART_SORT_ASIDE)
		return false;
	if (naside == 0)
		return true;
	sort_nearly_walk(a, n, d, true);
	memcpy(aside, a + n - naside, sizeof(ArtSortItem) * naside);
	sort_range(aside, naside, d);
	i = n - naside;
	j = naside;
	out = n;
	while (j > 0)
	{
		if (i > 0 && sort_cmp_data(&a[i - 1], &aside[j - 1], d) > 0)
			a[--out] = a[--i];
		else
			a[--out] = aside[--j];
	}
	return true;
}

/* Insertion sort of items sharing their first d bytes. */
static void
sort_small(ArtSortItem *a, size_t n, size_t d)
{
	size_t		i;
	size_t		j;

	for (i = 1; i < n; i++)
	{
		ArtSortItem x = a[i];

		for (j = i; j > 0 && sort_cmp(&x, &a[j - 1], d) < 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/*
 * If the n items, sharing their first *d bytes, also share the next bytes
 * up to the end of their caches (and none ends there), advance *d past
 * them and return true: the levels they would take sort nothing.
 */
static bool
sort_skip_shared(const ArtSortItem *a, size_t n, size_t *d)
{
	uint64_t	diff = 0;
	size_t		minlen = a[0].len;
	size_t		end = (*d & ~(size_t) 7) + 8;
	size_t		same;
	size_t		i;

	for (i = 1; i < n; i++)
	{
		diff |= a[i].cache ^ a[0].cache;
		if (a[i].len < minlen)
			minlen = a[i].len;
	}
	/* bytes of the cache, from its start, that every item has alike */
	same = 0;
	while (same < 8 && (diff >> (56 - 8 * same)) == 0)
		same++;
	same += end - 8;
	if (same > minlen)
		same = minlen;
	if (same <= *d)
		return false;
	*d = same;
	return true;
}

/* Sort n items sharing their first d bytes. */
static void
sort_range(ArtSortItem *a, size_t n, size_t d)
{
	size_t		count[257];
	size_t		next[257];
	size_t		end[257];
	bool		checked = false;

	memset(count, 0, sizeof(count));
	while (n > 1)
	{
		size_t		i;
		size_t		pos;
		int			lo = 256;
		int			hi = 1;
		int			big;
		int			b;

		/* skipping shared bytes leaves the range as it was: check it once */
		if (!checked && n > ART_SORT_SMALL && sort_nearly(a, n, d))
			return;
		checked = true;
		if ((d & 7) == 0)
			for (i = 0; i < n; i++)
				a[i].cache = sort_load(&a[i], d);
		if (n <= ART_SORT_SMALL)
		{
			sort_small(a, n, d);
			return;
		}
		if (sort_skip_shared(a, n, &d))
			continue;

		/* count the buckets; only those in [lo, hi] (and 0) are used */
		for (i = 0; i < n; i++)
		{
			b = sort_bucket(&a[i], d);
			count[b]++;
			if (b != 0 && b < lo)
				lo = b;
			if (b > hi)
				hi = b;
		}
		if (lo > hi)
			return;				/* all end at d: equal */
		next[0] = 0;
		end[0] = count[0];
		pos = count[0];
		for (b = lo; b <= hi; b++)
		{
			next[b] = pos;
			pos += count[b];
			end[b] = pos;
		}

		/* permute in place, following cycles */
		for (b = 0; b <= hi; b = b == 0 ? lo : b + 1)
		{
			while (next[b] < end[b])
			{
				ArtSortItem x = a[next[b]];
				int			c = sort_bucket(&x, d);

				while (c != b)
				{
					ArtSortItem y = a[next[c]];

					a[next[c]++] = x;
					x = y;
					c = sort_bucket(&x, d);
				}
				a[next[b]++] = x;
			}
		}

		/*
		 * The strings ending at d are equal.  Recurse into every other
		 * bucket but the largest, which this loop goes on with.
		 */
		big = lo;
		for (b = lo + 1; b <= hi; b++)
			if (count[b] > count[big])
				big = b;
		for (b = lo; b <= hi; b++)
			if (b != big && count[b] > 1)
				sort_range(a + end[b] - count[b], count[b], d + 1);
		a += end[big] - count[big];
		n = count[big];
		d++;
		checked = false;
		count[0] = 0;
		for (b = lo; b <= hi; b++)
			count[b] = 0;
	}
}

/* Sort n items by their strings (memcmp order, a proper prefix first). */
void
art_sort_items(ArtSortItem *items, size_t n)
{
	sort_range(items, n, 0);
}
