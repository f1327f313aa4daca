/*-------------------------------------------------------------------------
 *
 * trie_paths.c
 *	  Pages on a lookup's path after a bulk load of paths, or after
 *	  inserts, in the trie core alone (the in-memory page store): what a
 *	  cold exact lookup reads.
 *
 * The keys are bench/scale.sh's paths: the lines of a file (find /usr
 * -xdev) repeated under distinct prefixes, '/r0' + line, '/r1' + line,
 * ..., one copy after another, until N keys; each entry is the key, 0x00
 * and a 6-byte TID numbered in that order (ROWS rows a heap page), as the
 * SQL layer forms it.  The entries are sorted and bulk loaded (or
 * inserted, see PATHS_MODE), then one walk of the trie's pages gives every entry's pages on its path (root
 * page included): their mean, p50, p90, p99 and max; the pages, their
 * fill and size per key; the pages holding stubs (inner pages) and those
 * holding none (bottom pages), their number, mean fill and, for inner
 * pages, the child pages they lead to (the page fan-out) and the entries
 * they hold themselves; and the pages of a longest path, one line each
 * (the first entry the walk found that deep, its pages as the walk first
 * reached them: fill, stubs, entries, and the key bytes above the record
 * the stub into it leads to).  Last, the
 * levels a B-tree of the same keys would need: leaves of whole keys at
 * 90% of 8,152 bytes, inner pages at 70% holding pivots as long as the
 * bytes two neighbouring keys share plus one (suffix truncation).
 * Deterministic: no timing.
 *
 * With PLAIN (any fourth argument) the keys are the file's lines alone,
 * N of them at most (bench/scale.sh's synth keys, written to a file).
 *
 * PATHS_MODE (default bulk) lists, comma-separated, how the trie comes to
 * hold the entries, each mode a trie of its own and a report of its own:
 * bulk (a bulk load), insert (art_insert of each, in a random order), half
 * (a bulk load of a random half, then the other half inserted in a random
 * order) and churn (a bulk load, then five rounds of a fifth of the
 * entries in operations, as bench/trie_churn.c's: a third each insert a
 * new entry, replace a random entry by a new one and delete a random
 * entry, a new entry being a random key of the set with the next TID;
 * after each round the dead entries are deleted in key order with
 * art_merge after each, as VACUUM does).  The inner pages "without
 * entries" hold stubs and nodes only: they are on paths but end none.
 * The random order is the same from run to run (a fixed seed).
 *
 * Usage: trie_paths FILE [N [ROWS [PLAIN]]]	(defaults 1000000 and 78)
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trie/trie.h"
#include "trie/trie_internal.h"
#include "trie/trie_memstore.h"
#include "test_model.h"

#define MAXDEPTH	64

/* What the walk learns of one page. */
typedef struct PageInfo
{
	uint32_t	stubs;			/* stub records */
	uint32_t	children;		/* distinct pages the stubs lead to */
	uint64_t	entries;		/* entries whose path ends here */
	uint32_t	depth;			/* pages from the root, this one included */
	ArtPageNo	parent;			/* the page whose stub the walk came by */
	uint32_t	entered;		/* key bytes above the record it came to */
	bool		seen;
} PageInfo;

/* A place of the walk: a record of a page, pages on the path so far. */
typedef struct Place
{
	ArtPageNo	page;
	ArtChild	at;
	uint32_t	pdepth;
	uint32_t	bytes;			/* key bytes above the record */
} Place;

static uint64_t hist[MAXDEPTH + 1];
static ArtPageNo deepest;		/* the page of a first entry of the longest path */
static Rng	rng = {UINT64_C(20261207)};

/* Abort with a message. */
static void
die(const char *what)
{
	fprintf(stderr, "trie_paths: %s\n", what);
	exit(1);
}

/* Put the n items in a random order. */
static void
shuffle(ArtSortItem *items, size_t n)
{
	for (size_t i = n; i > 1; i--)
	{
		size_t		j = (size_t) (rng_next(&rng) % i);
		ArtSortItem x = items[i - 1];

		items[i - 1] = items[j];
		items[j] = x;
	}
}

/* Write TID (blk, off) into the 6 bytes at e, as the SQL layer forms it. */
static void
put_tid(uint8_t *e, long blk, long off)
{
	e[0] = (uint8_t) (blk >> 24);
	e[1] = (uint8_t) (blk >> 16);
	e[2] = (uint8_t) (blk >> 8);
	e[3] = (uint8_t) blk;
	e[4] = (uint8_t) (off >> 8);
	e[5] = (uint8_t) off;
}

/* Bytes two strings share at their start. */
static size_t
common(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		i = 0;

	while (i < alen && i < blen && a[i] == b[i])
		i++;
	return i;
}

/* Record page's stubs, entries and depth over one walk of every record. */
static void
walk(ArtMemStore *ms, ArtPageNo root, PageInfo *pi, uint32_t npages)
{
	Place	   *stack = NULL;
	size_t		sp = 0;
	size_t		cap = 0;
	ArtPageNo  *last = calloc(npages + 1, sizeof(ArtPageNo));

	if (last == NULL)
		die("out of memory");
#define PUSH(p, a, d, b) do { \
		if (sp == cap) { \
			cap = cap ? cap * 2 : 1024; \
			stack = realloc(stack, cap * sizeof(Place)); \
			if (stack == NULL) die("out of memory"); \
		} \
		stack[sp].page = (p); stack[sp].at = (a); stack[sp].pdepth = (d); \
		stack[sp].bytes = (b); sp++; \
	} while (0)
	PUSH(root, art_child_of_slot(art_memstore_page(ms, root), ART_ROOT_SLOT),
		 1, 0);
	pi[root].seen = true;
	pi[root].depth = 1;
	while (sp > 0)
	{
		Place		p = stack[--sp];
		uint8_t    *page = art_memstore_page(ms, p.page);
		uint8_t    *rec = art_child_rec(page, p.at);
		ArtNode		node;
		ArtChild	kids[256];
		int			n;

		if (art_is_stub(rec))
		{
			ArtPageNo	pg;
			uint16_t	slot;

			art_stub_target(rec, &pg, &slot);
			pi[p.page].stubs++;
			if (last[pg] != p.page + 1)
			{
				/* a child page new to this parent (pages are few) */
				last[pg] = p.page + 1;
				pi[p.page].children++;
			}
			if (!pi[pg].seen || pi[pg].depth > p.pdepth + 1)
			{
				pi[pg].depth = p.pdepth + 1;
				pi[pg].parent = p.page;
				pi[pg].entered = p.bytes;
			}
			pi[pg].seen = true;
			PUSH(pg, art_child_of_slot(art_memstore_page(ms, pg), slot),
				 p.pdepth + 1, p.bytes);
			continue;
		}
		art_node_decode(rec, &node);
		if (node.terminal)
		{
			pi[p.page].entries++;
			if (hist[p.pdepth < MAXDEPTH ? p.pdepth : MAXDEPTH]++ == 0 &&
				p.pdepth >= pi[deepest].depth)
				deepest = p.page;
		}
		n = art_node_children(&node, kids);
		for (int i = n - 1; i >= 0; i--)
			PUSH(p.page, kids[i], p.pdepth, p.bytes + node.plen + 1);
	}
	free(stack);
	free(last);
}

/* Fill of a page: its records and slots over what a page can hold. */
static double
fill_of(ArtMemStore *ms, ArtPageNo pg)
{
	uint8_t    *page = art_memstore_page(ms, pg);

	return (double) (art_page_used(page) + 2 * art_page_nslots(page)) /
		ART_PAGE_USABLE;
}

/* The pages-on-path value below which a share q of the entries lie. */
static int
quantile(uint64_t total, double q)
{
	uint64_t	acc = 0;

	for (int h = 1; h <= MAXDEPTH; h++)
	{
		acc += hist[h];
		if ((double) acc >= q * (double) total)
			return h;
	}
	return MAXDEPTH;
}

/* Bulk load the n items (sorted) into t. */
static void
bulk_load(ArtTrie *t, const ArtSortItem *items, size_t n)
{
	ArtBulkLoader *bl;

	if (art_bulk_begin(t, &bl) != ART_OK)
		die("bulk begin failed");
	for (size_t i = 0; i < n; i++)
		if (art_bulk_add(bl, items[i].data, items[i].len) != ART_OK)
			die("bulk add failed");
	if (art_bulk_finish(bl) != ART_OK)
		die("bulk finish failed");
}

/* Insert the n items into t, in their order. */
static void
insert_all(ArtTrie *t, const ArtSortItem *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (art_insert(t, items[i].data, items[i].len) != ART_OK)
			die("insert failed");
}

/*
 * A new entry into *it: the key of a random one of the n items with TID
 * number tid (rows a heap page), in memory of its own (kept in *owned).
 */
static void
new_entry(ArtSortItem *it, const ArtSortItem *items, size_t n, long tid,
		  long rows, uint8_t ***owned, size_t *nowned)
{
	const ArtSortItem *k = &items[rng_next(&rng) % n];
	size_t		kl = k->len - 7;
	long		blk = tid / rows;
	long		off = tid % rows + 1;
	uint8_t    *e = malloc(k->len);

	if (e == NULL)
		die("out of memory");
	memcpy(e, k->data, kl + 1);
	put_tid(e + kl + 1, blk, off);
	(*owned)[(*nowned)++] = e;
	it->data = e;
	it->len = k->len;
}

/*
 * bench/trie_churn.c's churn over t, bulk loaded from the n items (sorted):
 * five rounds of n / 5 operations, each round's dead entries deleted in
 * key order with art_merge after each.
 */
static void
churn(ArtTrie *t, const ArtSortItem *items, size_t n, long rows)
{
	ArtSortItem *live = malloc(sizeof(ArtSortItem) * n * 2);
	ArtSortItem *dead = malloc(sizeof(ArtSortItem) * n);
	uint8_t   **owned = malloc(sizeof(uint8_t *) * n);
	size_t		nlive = n,
				nowned = 0;
	long		tid = (long) n;

	if (live == NULL || dead == NULL || owned == NULL)
		die("out of memory");
	memcpy(live, items, sizeof(ArtSortItem) * n);
	for (int round = 1; round <= 5; round++)
	{
		size_t		ndead = 0;

		for (size_t i = 1; i <= n / 5; i++)
		{
			size_t		victim = (size_t) (rng_next(&rng) % nlive);

			if (i % 3 == 0)
			{
				new_entry(&live[nlive], items, n, tid++, rows, &owned, &nowned);
				if (art_insert(t, live[nlive].data, live[nlive].len) != ART_OK)
					die("insert failed");
				nlive++;
				continue;
			}
			dead[ndead++] = live[victim];
			if (i % 3 == 1)
			{
				new_entry(&live[victim], items, n, tid++, rows, &owned,
						  &nowned);
				if (art_insert(t, live[victim].data, live[victim].len) != ART_OK)
					die("insert failed");
			}
			else
				live[victim] = live[--nlive];
		}
		art_sort_items(dead, ndead);
		for (size_t i = 0; i < ndead; i++)
			if (art_delete(t, dead[i].data, dead[i].len) != ART_OK ||
				art_merge(t, dead[i].data, dead[i].len) != ART_OK)
				die("delete failed");
	}
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(live);
	free(dead);
}

/* Walk t (over ms) and print what mode left: pages, paths, inner pages. */
static void
report(ArtTrie *t, ArtMemStore *ms, const char *mode, long want)
{
	ArtStats	s;
	PageInfo   *pi;
	uint32_t	npages;
	uint64_t	total = 0,
				sum = 0;
	int			maxh = 0;
	char		msg[256];

	if (art_verify(t, msg, sizeof(msg)) != ART_OK || art_stats(t, &s) != ART_OK)
	{
		fprintf(stderr, "verify: %s\n", msg);
		exit(1);
	}
	npages = art_memstore_npages(ms);
	pi = calloc(npages + 1, sizeof(PageInfo));
	if (pi == NULL)
		die("out of memory");
	memset(hist, 0, sizeof(hist));
	deepest = t->root;
	walk(ms, t->root, pi, npages);
	for (int h = 1; h <= MAXDEPTH; h++)
	{
		total += hist[h];
		sum += hist[h] * (uint64_t) h;
		if (hist[h])
			maxh = h;
	}
	printf("%s: entries %llu, pages %llu, %.1f bytes a key, fill %.3f, page height %llu\n",
		   mode, (unsigned long long) s.entries, (unsigned long long) s.pages,
		   (double) s.pages * ART_PAGE_SIZE / want,
		   (double) s.bytes_used / ((double) s.pages * ART_PAGE_SIZE),
		   (unsigned long long) s.page_height);
	printf("%s: pages on an entry's path: mean %.3f, p50 %d, p90 %d, p99 %d, max %d\n",
		   mode, (double) sum / total, quantile(total, 0.5),
		   quantile(total, 0.9), quantile(total, 0.99), maxh);
	printf("%s: entries by pages on the path:", mode);
	for (int h = 1; h <= MAXDEPTH; h++)
		if (hist[h])
			printf(" %d: %llu", h, (unsigned long long) hist[h]);
	printf("\n");
	{
		uint64_t	ni = 0,
					nb = 0,
					kids = 0,
					ient = 0,
					fanlow = 0,
					empty = 0;
		double		fi = 0,
					fb = 0;

		for (uint32_t p = 0; p <= npages; p++)
		{
			if (!pi[p].seen)
				continue;
			if (pi[p].stubs > 0)
			{
				ni++;
				fi += fill_of(ms, p);
				kids += pi[p].children;
				ient += pi[p].entries;
				fanlow += pi[p].children <= 4;
				empty += pi[p].entries == 0;
			}
			else
			{
				nb++;
				fb += fill_of(ms, p);
			}
		}
		printf("%s: inner pages %llu: fill %.3f, child pages %.1f a page (%llu with 4 or fewer), entries %.1f a page (%llu without entries)\n",
			   mode, (unsigned long long) ni, ni ? fi / ni : 0,
			   ni ? (double) kids / ni : 0, (unsigned long long) fanlow,
			   ni ? (double) ient / ni : 0, (unsigned long long) empty);
		printf("%s: bottom pages %llu: fill %.3f\n", mode,
			   (unsigned long long) nb, nb ? fb / nb : 0);
	}
	{
		ArtPageNo	path[MAXDEPTH];
		int			np = 0;

		/* the pages of the first entry found at the longest path, root first */
		for (ArtPageNo pg = deepest; np < MAXDEPTH; pg = pi[pg].parent)
		{
			path[np++] = pg;
			if (pg == t->root)
				break;
		}
		printf("%s: a longest path (%d pages):\n", mode, np);
		for (int k = np - 1; k >= 0; k--)
			printf("  page %6u: entered at byte %3u, fill %.2f, stubs %4u, child pages %4u, entries %6llu\n",
				   path[k], pi[path[k]].entered, fill_of(ms, path[k]),
				   pi[path[k]].stubs, pi[path[k]].children,
				   (unsigned long long) pi[path[k]].entries);
	}
	free(pi);
}

int
main(int argc, char **argv)
{
	long		want = argc > 2 ? atol(argv[2]) : 1000000;
	long		rows = argc > 3 ? atol(argv[3]) : 78;
	bool		plain = argc > 4;
	const char *modes = getenv("PATHS_MODE") ? getenv("PATHS_MODE") : "bulk";
	FILE	   *f;
	char	  **lines = NULL;
	size_t		nlines = 0,
				linecap = 0;
	char	   *line = NULL;
	size_t		lcap = 0;
	ssize_t		got;
	ArtSortItem *items;
	ArtSortItem *order;
	uint8_t    *arena;
	size_t		arenacap,
				arenaused = 0;
	uint64_t	keybytes = 0,
				pivots = 0;

	if (argc < 2)
		die("usage: trie_paths FILE [N [ROWS [PLAIN]]]");
	f = fopen(argv[1], "r");
	if (f == NULL)
		die("cannot open the file");
	while ((got = getline(&line, &lcap, f)) > 0)
	{
		if (line[got - 1] == '\n')
			line[--got] = 0;
		if (got == 0)
			continue;
		if (nlines == linecap)
		{
			linecap = linecap ? linecap * 2 : 4096;
			lines = realloc(lines, linecap * sizeof(char *));
			if (lines == NULL)
				die("out of memory");
		}
		lines[nlines++] = strdup(line);
	}
	fclose(f);
	if (plain && want > (long) nlines)
		want = (long) nlines;
	if (nlines == 0 || want <= 0 || rows <= 0)
		die("no keys");
	items = malloc(sizeof(ArtSortItem) * (size_t) want);
	order = malloc(sizeof(ArtSortItem) * (size_t) want);
	arenacap = (size_t) want * 64;
	arena = malloc(arenacap);
	if (items == NULL || order == NULL || arena == NULL)
		die("out of memory");
	for (long r = 0; r < want; r++)
	{
		char		key[4200];
		int			kl = plain ?
			snprintf(key, sizeof(key), "%s", lines[r]) :
			snprintf(key, sizeof(key), "/r%ld%s", r / (long) nlines,
					 lines[r % (long) nlines]);
		long		blk = r / rows;
		long		off = r % rows + 1;
		uint8_t    *e;

		if (kl >= (int) sizeof(key) - 8)
			die("key too long");
		if (arenaused + kl + 7 > arenacap)
		{
			arenacap *= 2;
			arena = realloc(arena, arenacap);
			if (arena == NULL)
				die("out of memory");
		}
		e = arena + arenaused;
		memcpy(e, key, kl);
		e[kl] = 0;
		put_tid(e + kl + 1, blk, off);
		/* the entry's offset until the arena stops moving */
		items[r].cache = arenaused;
		items[r].len = kl + 7;
		arenaused += kl + 7;
		keybytes += kl;
	}
	for (long r = 0; r < want; r++)
		items[r].data = arena + items[r].cache;
	art_sort_items(items, want);
	for (long i = 1; i < want; i++)
		pivots += common(items[i - 1].data, items[i - 1].len,
						 items[i].data, items[i].len) + 1;
	printf("keys %ld (%zu lines, %ld copies), %.1f bytes a key\n",
		   want, nlines, plain ? 1 : (want + (long) nlines - 1) / (long) nlines,
		   (double) keybytes / want);
	{
		/* B-tree: tuples of 8 + 1 + key bytes, MAXALIGNed, + a line pointer */
		long		leaf_tuple = (9 + (long) (keybytes / want) + 7) / 8 * 8 + 4;
		long		pivot = (9 + (long) (pivots / (want - 1)) + 7) / 8 * 8 + 4;
		long		per_leaf = 8152 * 9 / 10 / leaf_tuple;
		long		fan = 8152 * 7 / 10 / pivot;
		long		leaves = (want + per_leaf - 1) / per_leaf;
		int			levels = 1;

		for (long n = leaves; n > 1; n = (n + fan - 1) / fan)
			levels++;
		printf("B-tree estimate: %ld leaves of %ld tuples, inner fan-out %ld, %d levels\n",
			   leaves, per_leaf, fan, levels);
	}
	for (const char *m = modes; *m;)
	{
		size_t		ml = strcspn(m, ",");
		char		mode[16];
		ArtMemStore *ms = art_memstore_new();
		ArtTrie		t;

		snprintf(mode, sizeof(mode), "%.*s", (int) ml, m);
		m += ml + (m[ml] == ',');
		if (ms == NULL || art_create(&t, art_memstore_store(ms)) != ART_OK)
			die("create failed");
		memcpy(order, items, sizeof(ArtSortItem) * (size_t) want);
		if (strcmp(mode, "bulk") == 0)
			bulk_load(&t, items, (size_t) want);
		else if (strcmp(mode, "insert") == 0)
		{
			shuffle(order, (size_t) want);
			insert_all(&t, order, (size_t) want);
		}
		else if (strcmp(mode, "half") == 0)
		{
			size_t		h = (size_t) want / 2;

			shuffle(order, (size_t) want);
			art_sort_items(order, h);
			bulk_load(&t, order, h);
			insert_all(&t, order + h, (size_t) want - h);
		}
		else if (strcmp(mode, "churn") == 0)
		{
			bulk_load(&t, items, (size_t) want);
			churn(&t, items, (size_t) want, rows);
		}
		else
			die("PATHS_MODE: bulk, insert, half or churn");
		report(&t, ms, mode, want);
		art_memstore_destroy(ms);
	}
	free(items);
	free(order);
	free(arena);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	free(line);
	return 0;
}
