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
 * "American flag" way; buckets of up to ART_SORT_SMALL items are finished
 * by insertion sort.  The smaller buckets are sorted by recursion and the
 * largest by iteration, so the recursion is at most log2(n) deep however
 * long the shared prefixes.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Ranges of at most this many items are insertion-sorted. */
#define ART_SORT_SMALL	24

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

/* Sort n items sharing their first d bytes. */
static void
sort_range(ArtSortItem *a, size_t n, size_t d)
{
	size_t		count[257];
	size_t		next[257];
	size_t		end[257];

	while (n > 1)
	{
		size_t		i;
		size_t		pos;
		size_t		big;
		int			b;

		if ((d & 7) == 0)
			for (i = 0; i < n; i++)
				a[i].cache = sort_load(&a[i], d);
		if (n <= ART_SORT_SMALL)
		{
			sort_small(a, n, d);
			return;
		}
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[sort_bucket(&a[i], d)]++;
		pos = 0;
		for (b = 0; b < 257; b++)
		{
			next[b] = pos;
			pos += count[b];
			end[b] = pos;
		}
		for (b = 0; b < 257; b++)
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
		big = 1;
		for (b = 2; b < 257; b++)
			if (count[b] > count[big])
				big = (size_t) b;
		for (b = 1; b < 257; b++)
			if ((size_t) b != big && count[b] > 1)
				sort_range(a + end[b] - count[b], count[b], d + 1);
		pos = end[big] - count[big];
		a += pos;
		n = count[big];
		d++;
	}
}

/* Sort n items by their strings (memcmp order, a proper prefix first). */
void
art_sort_items(ArtSortItem *items, size_t n)
{
	sort_range(items, n, 0);
}
