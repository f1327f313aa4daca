/*-------------------------------------------------------------------------
 *
 * trie_scan.c
 *	  Prefix scans of the trie core over the in-memory page store, as an
 *	  index scan of `k LIKE 'abc%'` reads them.
 *
 * Loads one of bench/prefix_scan.sh's datasets (words: the american and
 * british insane word lists, deduplicated; bulgarian; paths: every k-th
 * line of `find /usr -xdev`, TSCAN_PATHS lines, default 200,000; synth:
 * TSCAN_SYNTH keys made as bench/run.sh makes them, default 1,000,000),
 * forms entries as the SQL layer does (key, 0x00, a 6-byte TID), bulk
 * loads them and picks 10 of the distinct 3-byte prefixes of random entries.
 * A pass scans each prefix once as src/am/am_scan.c does: one cursor kept
 * between scans (art_cursor_init), batched, bound at the prefix's
 * successor (exclusive), seek to the prefix (inclusive), its runs read
 * entry by entry, each key copied into a tuple buffer and its TID read.
 *
 * Usage: trie_scan DATASET [ROUNDS [PASSES]]
 *
 * Prints the rows of a pass, the pages pinned per pass (the store's pins,
 * counted by a wrapper around the in-memory store) and the pins that
 * entered a page the scan had entered before, then per round the best of
 * PASSES passes in thread CPU ns per row, and the median of the rounds.
 * ROUNDS 0: after a first pass (warm_pass), PASSES passes in scan_pass and
 * nothing else, for `valgrind --tool=callgrind --toggle-collect=scan_pass`.
 * ROUNDS -1: after the load and a first pass, one round for each line read
 * from standard input, each printed as "ns/row N" on a line of its own
 * (bench/trie_scan.sh alternates two builds' processes so, round by
 * round).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trie/trie.h"
#include "trie/trie_memstore.h"

typedef struct Entry
{
	uint8_t    *data;
	size_t		len;
} Entry;

static Entry *entries;
static size_t nentries;
static size_t entries_cap;

/* Pins of the wrapped store, and pins of a page entered before in a scan. */
static uint64_t npins;
static uint64_t nrepins;
static uint32_t *seen_scan;		/* per page: the scan that last pinned it */
static uint32_t seen_cap;
static uint32_t scan_no;

static ArtPageStoreOps wrap_ops;
static ArtStatus (*inner_pin) (void *, ArtPageNo, ArtLockMode, ArtPageRef *);

static uint8_t tuple[1 << 20];
static volatile uint64_t sink;

/* Thread CPU time in seconds. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Add key (of line number line) as an entry: key, 0x00, the TID. */
static void
add_entry(const char *key, size_t len, uint32_t line)
{
	uint8_t    *p;

	if (len == 0 || memchr(key, 0, len) != NULL)
		return;
	if (nentries == entries_cap)
	{
		entries_cap = entries_cap ? 2 * entries_cap : 1 << 16;
		entries = realloc(entries, entries_cap * sizeof(Entry));
		if (entries == NULL)
			abort();
	}
	p = malloc(len + 7);
	if (p == NULL)
		abort();
	memcpy(p, key, len);
	p[len] = 0;
	/* block = line (big-endian), offset 1 */
	for (int b = 0; b < 4; b++)
		p[len + 1 + b] = (uint8_t) (line >> (24 - 8 * b));
	p[len + 5] = 0;
	p[len + 6] = 1;
	entries[nentries].data = p;
	entries[nentries].len = len + 7;
	nentries++;
}

/* memcmp order of two entries. */
static int
entry_cmp(const void *a, const void *b)
{
	const Entry *x = a;
	const Entry *y = b;
	size_t		n = x->len < y->len ? x->len : y->len;
	int			c = memcmp(x->data, y->data, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Add every line of a command's output, one in every keep. */
static void
load_lines(const char *cmd, long keep)
{
	FILE	   *f = popen(cmd, "r");
	static char line[65536];
	uint32_t	lineno = 0;
	long		i = 0;

	if (f == NULL)
		abort();
	while (fgets(line, sizeof(line), f) != NULL)
	{
		size_t		len = strlen(line);

		if (len > 0 && line[len - 1] == '\n')
			line[--len] = 0;
		if (++i % keep == 0)
			add_entry(line, len, ++lineno);
	}
	pclose(f);
}

/* Load dataset ds, sorted and without duplicate keys. */
static void
load(const char *ds)
{
	size_t		i;
	size_t		j;

	if (strcmp(ds, "words") == 0)
		load_lines("cat /usr/share/dict/american-english-insane "
				   "/usr/share/dict/british-english-insane | "
				   "iconv -f UTF-8 -t UTF-8 -c | LC_ALL=C sort -u", 1);
	else if (strcmp(ds, "bulgarian") == 0)
		load_lines("iconv -f UTF-8 -t UTF-8 -c </usr/share/dict/bulgarian", 1);
	else if (strcmp(ds, "paths") == 0)
	{
		const char *env = getenv("TSCAN_PATHS");
		long		want = env ? atol(env) : 200000;
		long		total = 0;
		FILE	   *f = popen("find /usr -xdev 2>/dev/null | iconv -f UTF-8 -t UTF-8 -c | wc -l", "r");

		if (f == NULL || fscanf(f, "%ld", &total) != 1)
			abort();
		pclose(f);
		load_lines("find /usr -xdev 2>/dev/null | iconv -f UTF-8 -t UTF-8 -c",
				   (total + want - 1) / want);
	}
	else if (strcmp(ds, "synth") == 0)
	{
		const char *env = getenv("TSCAN_SYNTH");
		long		n = env ? atol(env) : 1000000;
		char		key[64];

		for (long g = 1; g <= n; g++)
		{
			int			len = snprintf(key, sizeof(key), "user/%ld/item/%ld",
									   (g * 48271) % (n / 20 + 7), g);

			add_entry(key, (size_t) len, (uint32_t) g);
		}
	}
	else
	{
		fprintf(stderr, "dataset: words, bulgarian, paths or synth\n");
		exit(2);
	}
	qsort(entries, nentries, sizeof(Entry), entry_cmp);
	/* one entry per key, as the table has unique keys */
	for (i = j = 0; i < nentries; i++)
	{
		if (j > 0 && entries[j - 1].len == entries[i].len &&
			memcmp(entries[j - 1].data, entries[i].data, entries[i].len - 6) == 0)
			continue;
		entries[j++] = entries[i];
	}
	nentries = j;
}

/* The wrapped store's pin: count it, and whether this scan had the page. */
static ArtStatus
counting_pin(void *store, ArtPageNo pageno, ArtLockMode mode, ArtPageRef *ref)
{
	npins++;
	if (pageno >= seen_cap)
	{
		uint32_t	cap = pageno + 1024;

		seen_scan = realloc(seen_scan, cap * sizeof(uint32_t));
		if (seen_scan == NULL)
			abort();
		memset(seen_scan + seen_cap, 0, (cap - seen_cap) * sizeof(uint32_t));
		seen_cap = cap;
	}
	if (seen_scan[pageno] == scan_no)
		nrepins++;
	seen_scan[pageno] = scan_no;
	return inner_pin(store, pageno, mode, ref);
}

typedef struct Prefix
{
	uint8_t		lo[3];
	uint8_t		hi[3];
} Prefix;

static Prefix prefixes[10];
static int	nprefixes;

/*
 * Pick 10 of the distinct 3-byte prefixes of 50,000 random entries, each
 * distinct prefix as likely as another, as bench/lib-bench.sh picks them
 * (pref_DS: the distinct prefixes of its probe keys, 10 by md5 order).
 */
static void
pick_prefixes(void)
{
	static Prefix seen[50000];
	int			nseen = 0;

	for (int i = 0; i < 50000; i++)
	{
		const Entry *e = &entries[(size_t) lrand48() % nentries];
		bool		dup = false;

		if (e->len < 3 + 7 || e->data[2] == 0xFF)
			continue;
		for (int j = 0; j < nseen && !dup; j++)
			dup = memcmp(seen[j].lo, e->data, 3) == 0;
		if (dup)
			continue;
		memcpy(seen[nseen].lo, e->data, 3);
		memcpy(seen[nseen].hi, e->data, 3);
		seen[nseen].hi[2]++;
		nseen++;
	}
	while (nprefixes < 10 && nseen > 0)
	{
		int			k = (int) (lrand48() % nseen);

		prefixes[nprefixes++] = seen[k];
		seen[k] = seen[--nseen];
	}
}

/* One pass: each prefix scanned once; returns the rows read. */
static inline uint64_t
pass(ArtCursor *c, ArtTrie *t)
{
	uint64_t	rows = 0;
	uint64_t	s = 0;

	for (int i = 0; i < nprefixes; i++)
	{
		ArtRun		run;

		scan_no++;
		c = art_cursor_init(c, t);
		art_cursor_set_batched(c, true);
		art_cursor_seek(c, prefixes[i].lo, 3, true, ART_FORWARD);
		art_cursor_set_bound(c, prefixes[i].hi, 3, false);
		while (art_cursor_next_run(c, &run) == ART_OK)
		{
			for (int j = 0; j < run.n; j++)
			{
				size_t		start = j > 0 ? run.ends[j - 1] : run.start;
				size_t		len = run.ends[j] - start;
				const uint8_t *e = run.data + start;

				memcpy(tuple + 4, e, len - 7);
				s += e[len - 6] + e[len - 1] + tuple[4];
				rows++;
			}
		}
		art_cursor_release(c);
	}
	sink = s;
	return rows;
}

/* The first pass, outside what callgrind collects. */
__attribute__((noinline)) static uint64_t
warm_pass(ArtCursor *c, ArtTrie *t)
{
	return pass(c, t);
}

/* The passes callgrind collects (--toggle-collect=scan_pass). */
__attribute__((noinline)) static uint64_t
scan_pass(ArtCursor *c, ArtTrie *t)
{
	return pass(c, t);
}

/* The best of passes passes, in thread CPU ns per row. */
static double
round_ns(ArtCursor *c, ArtTrie *t, int passes, uint64_t rows)
{
	double		best = 1e9;

	for (int p = 0; p < passes; p++)
	{
		double		t0 = cpu_now();
		double		d;

		scan_pass(c, t);
		d = cpu_now() - t0;
		if (d < best)
			best = d;
	}
	return best / rows * 1e9;
}

/* Order doubles. */
static int
dbl_cmp(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	const char *ds = argc > 1 ? argv[1] : "words";
	int			rounds = argc > 2 ? atoi(argv[2]) : 9;
	int			passes = argc > 3 ? atoi(argv[3]) : 5;
	ArtMemStore *ms;
	ArtPageStore store;
	ArtTrie		t;
	ArtBulkLoader *l;
	ArtCursor  *c;
	uint64_t	rows;
	double	   *res;

	srand48(1);					/* the same prefixes every run */
	load(ds);
	ms = art_memstore_new();
	store = art_memstore_store(ms);
	wrap_ops = *store.ops;
	inner_pin = wrap_ops.pin;
	wrap_ops.pin = counting_pin;
	store.ops = &wrap_ops;
	if (art_create(&t, store) != ART_OK || art_bulk_begin(&t, &l) != ART_OK)
		abort();
	for (size_t i = 0; i < nentries; i++)
		if (art_bulk_add(l, entries[i].data, entries[i].len) != ART_OK)
			abort();
	if (art_bulk_finish(l) != ART_OK)
		abort();
	pick_prefixes();
	c = malloc(art_cursor_size());
	if (c == NULL)
		abort();
	npins = nrepins = 0;
	rows = warm_pass(c, &t);
	printf("%s: %zu entries, %llu pages, %d prefixes, %llu rows a pass, "
		   "%llu pins a pass (%llu of a page the scan had pinned before)\n",
		   ds, nentries, (unsigned long long) art_memstore_pages(ms),
		   nprefixes, (unsigned long long) rows, (unsigned long long) npins,
		   (unsigned long long) nrepins);
	fflush(stdout);
	if (rounds == 0)
	{
		for (int p = 0; p < passes; p++)
			scan_pass(c, &t);
		return 0;
	}
	if (rounds < 0)
	{
		char		line[64];

		while (fgets(line, sizeof(line), stdin) != NULL)
		{
			printf("ns/row %.3f\n", round_ns(c, &t, passes, rows));
			fflush(stdout);
		}
		return 0;
	}
	res = malloc(sizeof(double) * rounds);
	if (res == NULL)
		abort();
	printf("ns/row, best of %d passes, by round:", passes);
	for (int r = 0; r < rounds; r++)
	{
		res[r] = round_ns(c, &t, passes, rows);
		printf(" %.2f", res[r]);
	}
	qsort(res, rounds, sizeof(double), dbl_cmp);
	printf("\nmedian %.2f ns/row\n", res[rounds / 2]);
	return 0;
}
