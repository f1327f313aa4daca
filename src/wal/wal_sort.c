/*-------------------------------------------------------------------------
 *
 * wal_sort.c
 *	  Sorting the keys of redo's held-back entry records: a quicksort
 *	  whose partitions do not branch on the comparisons.
 *
 * Redo sorts each file's batch of entry records (wal_redo.c) by trie,
 * then the first eight bytes of the entry (head), then the record's
 * offset in the batch, which grows in WAL order.  The keys of unrelated
 * entries are as good as random, so a quicksort that branches on each
 * comparison mispredicts about every other one.  This one sorts 16-byte keys (the
 * record's offset in the batch beside its head and trie) and partitions
 * in blocks: it first notes, without a branch, the offsets of the keys
 * that sit on the wrong side of the pivot in a block from the left and
 * one from the right, then swaps them in pairs (Edelkamp and Weiss,
 * "BlockQuicksort", 2016).  The offset makes every key distinct, so equal
 * heads keep WAL order and no partition degenerates on repeated keys.
 * Keys already in order take one pass; ranges of a few keys take an
 * insertion sort; a range that recursed too deep for its size (bad
 * pivots) takes a heapsort.  Records whose heads are equal are ordered by
 * the rest of their entries by the caller, which sorts them again on the
 * next eight bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "wal/wal_internal.h"

/* Keys in a block of the partition: offsets fit in a uint8. */
#define SORT_BLOCK		128

/* Ranges this small or smaller take an insertion sort. */
#define SORT_SMALL		24

/* Ranges this large or larger take the median of three medians of three. */
#define SORT_NINTHER	128

/*
 * Whether key a sorts before key b, computed without a branch: each
 * comparison becomes a flag and the flags are combined bitwise.
 */
static inline bool
key_less(const WalSortKey *a, const WalSortKey *b)
{
	int			root_lt = a->root < b->root;
	int			root_eq = a->root == b->root;
	int			head_lt = a->head < b->head;
	int			head_eq = a->head == b->head;
	int			pos_lt = a->pos < b->pos;

	return (root_lt | (root_eq & (head_lt | (head_eq & pos_lt)))) != 0;
}

/* Exchange two keys. */
static inline void
key_swap(WalSortKey *a, WalSortKey *b)
{
	WalSortKey	t = *a;

	*a = *b;
	*b = t;
}

/* Put the middle one of keys a, b and c (by key_less) at b. */
static inline void
key_median3(WalSortKey *a, WalSortKey *b, WalSortKey *c)
{
	if (key_less(b, a))
		key_swap(a, b);
	if (key_less(c, b))
		key_swap(b, c);
	if (key_less(b, a))
		key_swap(a, b);
}

/* Sort the n keys at v by moving each into the sorted ones before it. */
static void
insertion_sort(WalSortKey *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		WalSortKey	k = v[i];
		size_t		j = i;

		while (j > 0 && key_less(&k, &v[j - 1]))
		{
			v[j] = v[j - 1];
			j--;
		}
		v[j] = k;
	}
}

/* Move key i of the heap of n keys at v down to its place. */
static void
heap_sift(WalSortKey *v, size_t i, size_t n)
{
	for (;;)
	{
		size_t		c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && key_less(&v[c], &v[c + 1]))
			c++;
		if (!key_less(&v[i], &v[c]))
			break;
		key_swap(&v[i], &v[c]);
		i = c;
	}
}

/* Sort the n keys at v with a heapsort: a quicksort's worst case fallback. */
static void
heap_sort(WalSortKey *v, size_t n)
{
	for (size_t i = n / 2; i > 0; i--)
		heap_sift(v, i - 1, n);
	for (size_t m = n; m > 1; m--)
	{
		key_swap(&v[0], &v[m - 1]);
		heap_sift(v, 0, m - 1);
	}
}

/*
 * Partition the n keys at v around the pivot v[0]: return m with the keys
 * before the pivot in v[0 .. m - 1], the pivot at v[m] and the keys after
 * it in v[m + 1 .. n - 1].  Blocks of SORT_BLOCK keys from either end are
 * scanned for the keys on the wrong side (offl, offr) and those are
 * swapped pairwise; a block whose misplaced keys are all swapped is done.
 * What is left between the blocks (less than three blocks) is partitioned
 * one key at a time, again without branching on the comparison.
 */
static size_t
partition(WalSortKey *v, size_t n)
{
	WalSortKey	pivot = v[0];
	WalSortKey *l = v + 1;
	WalSortKey *r = v + n;
	WalSortKey *store;
	uint8		offl[SORT_BLOCK];
	uint8		offr[SORT_BLOCK];
	size_t		numl = 0;
	size_t		numr = 0;
	size_t		startl = 0;
	size_t		startr = 0;

	/* Invariant: keys in [v + 1, l) are before the pivot, in [r, v + n) not. */
	while (r - l > 2 * SORT_BLOCK)
	{
		size_t		num;

		if (numl == 0)
		{
			startl = 0;
			for (size_t i = 0; i < SORT_BLOCK; i++)
			{
				offl[numl] = (uint8) i;
				numl += !key_less(&l[i], &pivot);
			}
		}
		if (numr == 0)
		{
			startr = 0;
			for (size_t i = 0; i < SORT_BLOCK; i++)
			{
				offr[numr] = (uint8) i;
				numr += key_less(&r[-1 - (ptrdiff_t) i], &pivot);
			}
		}
		num = Min(numl, numr);
		for (size_t k = 0; k < num; k++)
			key_swap(&l[offl[startl + k]], &r[-1 - (ptrdiff_t) offr[startr + k]]);
		numl -= num;
		numr -= num;
		startl += num;
		startr += num;
		if (numl == 0)
			l += SORT_BLOCK;
		if (numr == 0)
			r -= SORT_BLOCK;
	}

	/*
	 * [l, r) holds the blocks not finished and the keys between: keys before
	 * the pivot go to [l, store), the others stay in [store, p).
	 */
	store = l;
	for (WalSortKey *p = l; p < r; p++)
	{
		bool		lt = key_less(p, &pivot);

		key_swap(p, store);
		store += lt;
	}
	key_swap(&v[0], store - 1);
	return (size_t) (store - 1 - v);
}

/*
 * Sort the n keys at v, at most depth more partitions deep before the
 * heapsort takes over.
 */
static void
sort_range(WalSortKey *v, size_t n, int depth)
{
	while (n > SORT_SMALL)
	{
		size_t		m;

		if (depth-- == 0)
		{
			heap_sort(v, n);
			return;
		}
		if (n >= SORT_NINTHER)
		{
			size_t		s = n / 8;

			key_median3(&v[0], &v[s], &v[2 * s]);
			key_median3(&v[n / 2 - s], &v[n / 2], &v[n / 2 + s]);
			key_median3(&v[n - 1 - 2 * s], &v[n - 1 - s], &v[n - 1]);
			key_median3(&v[s], &v[n / 2], &v[n - 1 - s]);
		}
		else
			key_median3(&v[0], &v[n / 2], &v[n - 1]);
		key_swap(&v[0], &v[n / 2]);
		m = partition(v, n);

		/* Recurse into the smaller side, loop on the larger. */
		if (m < n - 1 - m)
		{
			sort_range(v, m, depth);
			v += m + 1;
			n -= m + 1;
		}
		else
		{
			sort_range(v + m + 1, n - 1 - m, depth);
			n = m;
		}
	}
	insertion_sort(v, n);
}

/*
 * Sort the n keys at keys by trie, head and offset (all distinct: the
 * offsets are).
 */
void
wal_sort_keys(WalSortKey *keys, size_t n)
{
	int			depth = 0;
	size_t		sorted = 1;

	/* Keys in order already (entries logged in order) take one pass. */
	while (sorted < n && key_less(&keys[sorted - 1], &keys[sorted]))
		sorted++;
	if (sorted >= n)
		return;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	sort_range(keys, n, depth);
}
