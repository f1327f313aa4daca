/*-------------------------------------------------------------------------
 *
 * trie_churn.c
 *	  bench/space_churn.sh's churn over the trie core and the in-memory
 *	  page store: how many pages the trie keeps against a fresh build.
 *
 * A table of ROWS keys (md5: 32 hex digits of a hash of a counter; words:
 * the american and british insane word lists, deduplicated, without the
 * lines holding a backslash, as space_churn.sh reads them) is bulk loaded
 * as entries formed as the SQL layer forms them (key, 0x00, a 6-byte
 * TID).  Then 25 rounds of a fifth of the table in operations: a third
 * each insert a new row, update a random row's key (a new entry; the old
 * one is dead) and delete a random row (its entry is dead); after each
 * round the dead entries are deleted in key order with art_merge after
 * each, as VACUUM does.  After rounds 5 (1x) and 25 (5x) it prints the
 * pages before and after that VACUUM and those of a fresh build of the
 * live entries, the largest count before a VACUUM in rounds 21-25, and
 * after 5x a census of the pages: those holding no stub and those holding
 * stubs, their number and mean fill, pages below 70%, pages with two or
 * more parent pages.  Then the split sections the merges entered (one per
 * try that pinned pages exclusive), the deletes, and the thread CPU of the
 * VACUUMs per delete (deletes and merges).  "relayout" estimates what a
 * layout as the bulk loader's of each subtree hanging from the root page
 * would take: the bytes of its pages (through every stub), rounded up to
 * pages filled 90% and 98%, subtree by subtree.  With CHURN_DUMP set it
 * also prints the tree of pages after 5x; with CHURN_ROOTS set, the sizes
 * of the page roots in pages holding no stub, and the pages a first-fit
 * of them all, largest first, takes at fills of 85-98%; with CHURN_REBUILD set, every
 * VACUUM but the last is followed by a fresh build of the live entries
 * (the churn goes on in it), so that a round's figures show what one
 * round of the churn does to a packed trie.  With CHURN_REDO set (not
 * with CHURN_REBUILD), a twin trie takes the same inserts and replays
 * each VACUUM as a hot standby's redo does (function redo: the deletes,
 * and art_merge_step only where the VACUUM's merge changed the trie, its
 * merge records, at the step that changed it; with CHURN_REDO_ANY set,
 * every step in turn, as for merge records without a step), and its
 * pages and CPU are printed at the end; with CHURN_FINGER set too, the
 * twin's deletes and merges go through a finger (art_finger_delete_only,
 * art_finger_merge), as WAL redo's batches apply them.
 * CHURN_GROUP sets the pages a relayout's group takes at most
 * (ArtTrie.relayout_pages).  With CHURN_DIGEST set, a hash of the bytes of
 * every page (and of the twin's, with CHURN_REDO) is printed at the end,
 * to check that a change to the merges leaves the same pages.
 *
 * Usage: trie_churn DATASET [SEEDS [ROWS]]   (SEEDS: a count, from 1)
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trie/trie.h"
#include "trie/trie_internal.h"
#include "trie/trie_memstore.h"

#define ENTRY_MAX	256

/* An index entry: key, 0x00, TID. */
typedef struct Entry
{
	uint8_t		len;
	uint8_t		data[ENTRY_MAX];
} Entry;

/* The words of the dictionaries, each a line. */
static char **words;
static size_t nwords;

static uint64_t rng_state;

/* The next pseudo-random number (splitmix64). */
static uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* A pseudo-random number below n. */
static size_t
rng_below(size_t n)
{
	return (size_t) (rng_next() % n);
}

/* Thread CPU time in seconds. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Order of C strings by their bytes. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Read and deduplicate the dictionaries into words. */
static void
load_words(void)
{
	const char *files[] = {"/usr/share/dict/american-english-insane",
	"/usr/share/dict/british-english-insane"};
	size_t		cap = 0;
	size_t		n = 0;
	char		line[1024];

	for (int i = 0; i < 2; i++)
	{
		FILE	   *fp = fopen(files[i], "r");

		if (fp == NULL)
		{
			fprintf(stderr, "cannot open %s\n", files[i]);
			exit(1);
		}
		while (fgets(line, sizeof(line), fp) != NULL)
		{
			size_t		len = strcspn(line, "\n");

			line[len] = 0;
			if (len == 0 || len > ENTRY_MAX - 8 || strchr(line, '\\'))
				continue;
			if (nwords == cap)
			{
				cap = cap ? cap * 2 : 65536;
				words = realloc(words, sizeof(char *) * cap);
			}
			words[nwords++] = strdup(line);
		}
		fclose(fp);
	}
	qsort(words, nwords, sizeof(char *), cmp_str);
	for (size_t i = 0; i < nwords; i++)
		if (n == 0 || strcmp(words[n - 1], words[i]) != 0)
			words[n++] = words[i];
	nwords = n;
}

/* Form entry e from key and TID number tid (block, offset). */
static void
make_entry(Entry *e, const char *key, uint64_t tid)
{
	size_t		len = strlen(key);
	uint32_t	block = (uint32_t) (tid / 100);
	uint16_t	off = (uint16_t) (tid % 100 + 1);

	memcpy(e->data, key, len);
	e->data[len] = 0;
	e->data[len + 1] = (uint8_t) (block >> 24);
	e->data[len + 2] = (uint8_t) (block >> 16);
	e->data[len + 3] = (uint8_t) (block >> 8);
	e->data[len + 4] = (uint8_t) block;
	e->data[len + 5] = (uint8_t) (off >> 8);
	e->data[len + 6] = (uint8_t) off;
	e->len = (uint8_t) (len + 7);
}

/* A new row's entry: a new key of the dataset and the next TID. */
static void
new_entry(const char *ds, Entry *e, uint64_t *tid)
{
	char		key[ENTRY_MAX];

	if (strcmp(ds, "md5") == 0)
		snprintf(key, sizeof(key), "%016llx%016llx",
				 (unsigned long long) rng_next(),
				 (unsigned long long) rng_next());
	else
		snprintf(key, sizeof(key), "%s", words[rng_below(nwords)]);
	make_entry(e, key, (*tid)++);
}

/* Order of entries. */
static int
cmp_entry(const void *a, const void *b)
{
	const Entry *x = a;
	const Entry *y = b;
	int			c = memcmp(x->data, y->data, x->len < y->len ? x->len : y->len);

	return c != 0 ? c : (int) x->len - (int) y->len;
}

/* Bulk load the n entries (sorted here) into a new trie over a new store. */
static ArtMemStore *
bulk(Entry *e, size_t n, ArtTrie *t)
{
	ArtMemStore *ms = art_memstore_new();
	ArtBulkLoader *l;

	qsort(e, n, sizeof(Entry), cmp_entry);
	if (ms == NULL || art_create(t, art_memstore_store(ms)) != ART_OK ||
		art_bulk_begin(t, &l) != ART_OK)
	{
		fprintf(stderr, "create failed\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		if (art_bulk_add(l, e[i].data, e[i].len) != ART_OK)
		{
			fprintf(stderr, "bulk add failed\n");
			exit(1);
		}
	if (art_bulk_finish(l) != ART_OK)
	{
		fprintf(stderr, "bulk finish failed\n");
		exit(1);
	}
	return ms;
}

/* The pages of a fresh build of rows[0..n). */
static uint64_t
fresh_pages(const Entry *rows, size_t n)
{
	Entry	   *copy = malloc(sizeof(Entry) * n);
	ArtTrie		t;
	ArtMemStore *ms;
	uint64_t	pages;

	memcpy(copy, rows, sizeof(Entry) * n);
	ms = bulk(copy, n, &t);
	pages = art_memstore_pages(ms);
	art_memstore_destroy(ms);
	free(copy);
	return pages;
}

/*
 * The distinct pages that the stubs of page lead to, at most most, into
 * pages (in slot order); *nstubs (if not NULL) gets its stubs.
 */
static int
stub_targets(uint8_t *page, ArtPageNo *pages, int most, int *nstubs)
{
	int			n = 0;
	int			stubs = 0;

	for (int s = 1; s <= art_page_nslots(page); s++)
	{
		ArtPageNo	pg;
		uint16_t	sl;
		bool		seen = false;

		if (art_slot_off(page, s) == 0 || !art_is_stub(art_rec(page, s)))
			continue;
		stubs++;
		art_stub_target(art_rec(page, s), &pg, &sl);
		for (int i = 0; i < n; i++)
			seen |= pages[i] == pg;
		if (!seen && n < most)
			pages[n++] = pg;
	}
	if (nstubs != NULL)
		*nstubs = stubs;
	return n;
}

/*
 * Print the census of the trie's pages: by whether they hold stubs, their
 * number, mean fill, those below 70% and those with several parent pages.
 */
static void
census(ArtMemStore *ms, const char *ds)
{
	uint32_t	np = art_memstore_npages(ms);
	uint8_t    *parents = calloc(np, 1);
	ArtPageNo  *kids = malloc(sizeof(ArtPageNo) * ART_PAGE_USABLE);
	int			pages[2] = {0};
	int			low[2] = {0};
	int			multi[2] = {0};
	double		fill[2] = {0};

	for (uint32_t p = 0; p < np; p++)
	{
		uint8_t    *page = art_memstore_page(ms, p);
		int			nk = page ? stub_targets(page, kids, ART_PAGE_USABLE, NULL) : 0;

		for (int i = 0; i < nk; i++)
			if (kids[i] < np && parents[kids[i]] < 255)
				parents[kids[i]]++;
	}
	for (uint32_t p = 0; p < np; p++)
	{
		uint8_t    *page = art_memstore_page(ms, p);
		double		f;
		int			k;

		if (page == NULL || parents[p] == 0)
			continue;
		k = stub_targets(page, kids, 1, NULL) > 0 ? 1 : 0;
		f = (double) (ART_PAGE_USABLE - art_page_free(page)) / ART_PAGE_USABLE;
		pages[k]++;
		fill[k] += f;
		low[k] += f < 0.7;
		multi[k] += parents[p] > 1;
	}
	printf("census %s: no-stub %d pages fill %.2f under70 %d multi-parent %d"
		   " | stubs %d pages fill %.2f under70 %d multi-parent %d (root page not counted)\n",
		   ds, pages[0], pages[0] ? fill[0] / pages[0] : 0, low[0], multi[0],
		   pages[1], pages[1] ? fill[1] / pages[1] : 0, low[1], multi[1]);
	free(kids);
	free(parents);
}

/*
 * Add to *bytes the load of page p and of the pages below it that mark
 * has not seen, marking them; returns how many it added.
 */
static int
subtree_load(ArtMemStore *ms, ArtPageNo p, uint8_t *mark, double *bytes)
{
	uint8_t    *page = art_memstore_page(ms, p);
	ArtPageNo  *kids = malloc(sizeof(ArtPageNo) * ART_PAGE_USABLE);
	int			nk = stub_targets(page, kids, ART_PAGE_USABLE, NULL);
	int			n = 1;

	mark[p] = 1;
	*bytes += ART_PAGE_USABLE - art_page_free(page);
	for (int i = 0; i < nk; i++)
		if (!mark[kids[i]])
			n += subtree_load(ms, kids[i], mark, bytes);
	free(kids);
	return n;
}

/*
 * Print what laying out again each subtree hanging from the root page
 * (its pages, through every stub) would take: the pages its bytes fill at
 * 90% and at 98% (the bulk loader's fill), rounded up per subtree.
 */
static void
relayout_estimate(ArtMemStore *ms, ArtPageNo root, const char *ds)
{
	uint8_t    *mark = calloc(art_memstore_npages(ms), 1);
	ArtPageNo  *kids = malloc(sizeof(ArtPageNo) * ART_PAGE_USABLE);
	int			nk = stub_targets(art_memstore_page(ms, root), kids,
								  ART_PAGE_USABLE, NULL);
	int			now = 0;
	int			at90 = 0;
	int			at98 = 0;

	mark[root] = 1;
	for (int i = 0; i < nk; i++)
	{
		double		bytes = 0;

		if (mark[kids[i]])
			continue;
		now += subtree_load(ms, kids[i], mark, &bytes);
		at90 += (int) (bytes / (ART_PAGE_USABLE * 0.9) + 0.999);
		at98 += (int) (bytes / (ART_PAGE_USABLE * 0.98) + 0.999);
	}
	printf("relayout %s: %d pages below the root page; each subtree of the root page's packed at 90%%: %d, at 98%%: %d\n",
		   ds, now, at90, at98);
	free(kids);
	free(mark);
}

/*
 * Print the tree of pages from p down (six levels at most): each page's
 * fill, whether it holds stubs (S), its stubs and the pages they lead
 * to; a page holding no stub below the root page's children on one line.
 */
static void
dump_tree(ArtMemStore *ms, ArtPageNo p, int depth)
{
	uint8_t    *page = art_memstore_page(ms, p);
	ArtPageNo	kids[512];
	int			nst;
	int			nk = stub_targets(page, kids, 512, &nst);

	printf("%*s%u: %.2f%s stubs %d kids %d\n", depth * 2, "", p,
		   (double) (ART_PAGE_USABLE - art_page_free(page)) / ART_PAGE_USABLE,
		   nk ? " S" : "", nst, nk);
	for (int i = 0; i < nk && depth < 6; i++)
	{
		uint8_t    *kp = art_memstore_page(ms, kids[i]);
		int			ks;

		stub_targets(kp, NULL, 0, &ks);
		if (depth == 0 || ks > 0)
			dump_tree(ms, kids[i], depth + 1);
		else
			printf("%*s%u: %.2f\n", depth * 2 + 2, "", kids[i],
				   (double) (ART_PAGE_USABLE - art_page_free(kp)) / ART_PAGE_USABLE);
	}
}

/* Bytes of the subtree at slot of page within the page (records, slots). */
static size_t
slot_subtree(uint8_t *page, uint16_t slot)
{
	uint8_t    *rec = art_rec(page, slot);
	size_t		size = art_rec_size(rec) + 2;
	ArtNode		node;
	ArtNodeBuild b;

	if (art_is_stub(rec) || (rec[0] & ART_KIND_MASK) == ART_NODE_LEAF)
		return size;
	art_node_decode(rec, &node);
	art_build_from_node(&node, &b);
	for (int i = 0; i < b.n; i++)
		size += slot_subtree(page, art_child_slot(page, b.children[i]));
	return size;
}

/* Order sizes largest first. */
static int
cmp_size_desc(const void *a, const void *b)
{
	size_t		x = *(const size_t *) a;
	size_t		y = *(const size_t *) b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Add to size (from *n) the subtrees of the page roots that the stubs of
 * page p, and of the pages of stubs below it not yet marked, lead to in
 * pages holding no stub; *npg counts those pages once.
 */
static void
collect_roots(ArtMemStore *ms, ArtPageNo p, uint8_t *mark, size_t *size,
			  int *n, int *npg)
{
	uint8_t    *page = art_memstore_page(ms, p);

	mark[p] = 1;
	for (int s = 1; s <= art_page_nslots(page); s++)
	{
		ArtPageNo	pg;
		uint16_t	sl;
		uint8_t    *kid;
		int			nst;

		if (art_slot_off(page, s) == 0 || !art_is_stub(art_rec(page, s)))
			continue;
		art_stub_target(art_rec(page, s), &pg, &sl);
		kid = art_memstore_page(ms, pg);
		stub_targets(kid, NULL, 0, &nst);
		if (nst > 0)
		{
			if (!mark[pg])
				collect_roots(ms, pg, mark, size, n, npg);
			continue;
		}
		size[(*n)++] = slot_subtree(kid, sl);
		if (!mark[pg])
			(*npg)++;
		mark[pg] = 1;
	}
}

/*
 * Print the page roots of the pages holding no stub: how many, their
 * sizes, and the pages a first-fit of them all, largest first, takes at
 * a few fills (as if any could share a page with any other).
 */
static void
root_sizes(ArtMemStore *ms, ArtPageNo root, const char *ds)
{
	uint8_t    *mark = calloc(art_memstore_npages(ms), 1);
	size_t	   *size = malloc(sizeof(size_t) * 65536);
	size_t	   *load = malloc(sizeof(size_t) * 65536);
	int			n = 0;
	int			npg = 0;
	int			fills[] = {85, 90, 93, 95, 98};

	collect_roots(ms, root, mark, size, &n, &npg);
	qsort(size, n, sizeof(size_t), cmp_size_desc);
	printf("roots %s: %d page roots in %d pages holding no stub; sizes p10 %zu p50 %zu p90 %zu; first-fit at",
		   ds, n, npg, n ? size[n * 9 / 10] : 0, n ? size[n / 2] : 0,
		   n ? size[n / 10] : 0);
	for (int f = 0; f < 5; f++)
	{
		int			nb = 0;
		size_t		bound = (size_t) ART_PAGE_USABLE * fills[f] / 100;

		for (int i = 0; i < n; i++)
		{
			int			k = 0;

			while (k < nb && load[k] + size[i] > bound)
				k++;
			if (k == nb)
				load[nb++] = 0;
			load[k] += size[i];
		}
		printf(" %d%%: %d", fills[f], nb);
	}
	printf(" pages\n");
	free(mark);
	free(size);
	free(load);
}

/* FNV-1a of the bytes of every allocated page of ms, in page order. */
static uint64_t
pages_digest(ArtMemStore *ms)
{
	uint64_t	h = UINT64_C(14695981039346656037);

	for (ArtPageNo p = 0; p < art_memstore_npages(ms); p++)
	{
		const uint8_t *page = art_memstore_page(ms, p);

		if (page == NULL)
			continue;
		h = (h ^ p) * UINT64_C(1099511628211);
		for (size_t i = 0; i < ART_PAGE_SIZE; i++)
			h = (h ^ page[i]) * UINT64_C(1099511628211);
	}
	return h;
}

/* art_merge_logged's merged: keep the step that changed the trie. */
static void
merge_told(void *arg, ArtMergeStep step)
{
	*(ArtMergeStep *) arg = step;
}

/*
 * Delete the dead entries in key order, each followed by a merge, as
 * VACUUM does; merged[i] (if not NULL) gets the step by which the i-th
 * delete's merge changed the trie (VACUUM logs a merge record for it),
 * ART_MERGE_ANY where it changed nothing.
 */
static void
vacuum(ArtTrie *t, ArtMemStore *ms, Entry *dead, size_t n,
	   uint64_t *tries, double *cpu, ArtMergeStep *merged)
{
	double		t0 = cpu_now();

	qsort(dead, n, sizeof(Entry), cmp_entry);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	before;
		ArtMergeStep step = ART_MERGE_ANY;

		if (art_delete(t, dead[i].data, dead[i].len) != ART_OK)
		{
			fprintf(stderr, "delete failed\n");
			exit(1);
		}
		before = art_memstore_split_sections(ms);
		if (art_merge_logged(t, dead[i].data, dead[i].len, merge_told,
							 &step) != ART_OK)
		{
			fprintf(stderr, "merge failed\n");
			exit(1);
		}
		*tries += art_memstore_split_sections(ms) - before;
		if (merged != NULL)
			merged[i] = step;
	}
	*cpu += cpu_now() - t0;
}

/*
 * Replay a VACUUM's deletes (dead, sorted) as a hot standby's redo does:
 * each deleted, and merged only where the VACUUM's merge changed the
 * trie (its merge records), at the step that changed it unless any; with
 * finger, through a finger as WAL redo's batches do.
 */
static void
redo(ArtTrie *t, const Entry *dead, size_t n, const ArtMergeStep *merged,
	 bool any, bool finger, uint64_t *merges, double *cpu)
{
	double		t0 = cpu_now();
	ArtFinger  *f = NULL;

	if (finger && art_finger_begin(t, &f) != ART_OK)
		exit(1);
	for (size_t i = 0; i < n; i++)
	{
		bool		merge = merged[i] != ART_MERGE_ANY;
		ArtMergeStep step = any ? ART_MERGE_ANY : merged[i];
		ArtStatus	st;

		st = finger ? art_finger_delete_only(f, dead[i].data, dead[i].len) :
			art_delete(t, dead[i].data, dead[i].len);
		if (st == ART_OK && merge)
			st = finger ? art_finger_merge(f, dead[i].data, dead[i].len, step) :
				art_merge_step(t, dead[i].data, dead[i].len, step);
		if (st != ART_OK)
		{
			fprintf(stderr, "redo failed\n");
			exit(1);
		}
		*merges += merge;
	}
	if (finger)
		art_finger_end(f);
	*cpu += cpu_now() - t0;
}

/* One seed's churn of ds. */
static void
churn(const char *ds, int seed, size_t rows)
{
	Entry	   *row = malloc(sizeof(Entry) * rows * 2);
	Entry	   *dead = malloc(sizeof(Entry) * rows);
	Entry	   *load = malloc(sizeof(Entry) * rows);
	size_t		nrow = 0;
	size_t		ndead = 0;
	uint64_t	tid = 0;
	uint64_t	tries = 0;
	uint64_t	deletes = 0;
	uint64_t	peak = 0;
	double		cpu = 0;
	ArtMergeStep *merged = malloc(sizeof(ArtMergeStep) * rows);
	bool		replay = getenv("CHURN_REDO") != NULL;
	bool		any = getenv("CHURN_REDO_ANY") != NULL;
	bool		finger = getenv("CHURN_FINGER") != NULL;
	uint64_t	merges = 0;
	double		redo_cpu = 0;
	ArtTrie		t;
	ArtTrie		twin;
	ArtMemStore *ms;
	ArtMemStore *twin_ms = NULL;
	char		msg[256];

	memset(&twin, 0, sizeof(twin));
	rng_state = (uint64_t) seed * UINT64_C(1000003);
	if (strcmp(ds, "md5") == 0)
		for (; nrow < rows; nrow++)
			new_entry(ds, &row[nrow], &tid);
	else
	{
		/* distinct words, as ORDER BY random() LIMIT rows picks them */
		for (size_t i = 0; i < nwords && nrow < rows; i++)
			if (rng_below(nwords - i) < rows - nrow)
				make_entry(&row[nrow++], words[i], tid++);
		for (size_t i = nrow; i > 1; i--)
		{
			size_t		j = rng_below(i);
			Entry		x = row[i - 1];

			row[i - 1] = row[j];
			row[j] = x;
		}
	}
	memcpy(load, row, sizeof(Entry) * nrow);
	ms = bulk(load, nrow, &t);
	if (replay)
	{
		memcpy(load, row, sizeof(Entry) * nrow);
		twin_ms = bulk(load, nrow, &twin);
	}
	if (getenv("CHURN_GROUP"))
		t.relayout_pages = twin.relayout_pages = atoi(getenv("CHURN_GROUP"));
	printf("%s seed %d: built %llu pages\n", ds, seed,
		   (unsigned long long) art_memstore_pages(ms));
	for (int round = 1; round <= 25; round++)
	{
		uint64_t	before;

		for (size_t i = 1; i <= rows / 5; i++)
		{
			size_t		victim = rng_below(nrow);

			if (i % 3 == 0)
			{
				new_entry(ds, &row[nrow], &tid);
				if (art_insert(&t, row[nrow].data, row[nrow].len) != ART_OK ||
					(replay &&
					 art_insert(&twin, row[nrow].data, row[nrow].len) != ART_OK))
					exit(1);
				nrow++;
				continue;
			}
			dead[ndead++] = row[victim];
			if (i % 3 == 1)
			{
				new_entry(ds, &row[victim], &tid);
				if (art_insert(&t, row[victim].data, row[victim].len) != ART_OK ||
					(replay &&
					 art_insert(&twin, row[victim].data, row[victim].len) != ART_OK))
					exit(1);
			}
			else
				row[victim] = row[--nrow];
		}
		before = art_memstore_pages(ms);
		if (round > 20 && before > peak)
			peak = before;
		vacuum(&t, ms, dead, ndead, &tries, &cpu, merged);
		if (replay)
			redo(&twin, dead, ndead, merged, any, finger, &merges,
				 &redo_cpu);
		deletes += ndead;
		ndead = 0;
		if (round == 5 || round == 25)
		{
			uint64_t	after = art_memstore_pages(ms);
			uint64_t	fresh = fresh_pages(row, nrow);

			printf("%s seed %d %dx: before %llu after %llu fresh %llu (%.3f)",
				   ds, seed, round / 5, (unsigned long long) before,
				   (unsigned long long) after, (unsigned long long) fresh,
				   (double) after / fresh);
			if (round == 25)
				printf(" peak %llu (%.3f)", (unsigned long long) peak,
					   (double) peak / fresh);
			printf("\n");
		}
		if (getenv("CHURN_REBUILD") && round < 25)
		{
			/* every VACUUM ends with the trie built afresh */
			art_memstore_destroy(ms);
			memcpy(load, row, sizeof(Entry) * nrow);
			ms = bulk(load, nrow, &t);
		}
	}
	census(ms, ds);
	relayout_estimate(ms, t.root, ds);
	if (getenv("CHURN_ROOTS"))
		root_sizes(ms, t.root, ds);
	if (getenv("CHURN_DUMP"))
		dump_tree(ms, t.root, 0);
	if (getenv("CHURN_DIGEST"))
	{
		printf("%s seed %d: pages digest %016llx", ds, seed,
			   (unsigned long long) pages_digest(ms));
		if (replay)
			printf(", redo's %016llx",
				   (unsigned long long) pages_digest(twin_ms));
		printf("\n");
	}
	if (art_verify(&t, msg, sizeof(msg)) != ART_OK)
	{
		printf("%s seed %d: verify: %s\n", ds, seed, msg);
		exit(1);
	}
	printf("%s seed %d: %llu tries for %llu deletes, vacuum cpu %.2f s, %.2f us a delete\n",
		   ds, seed, (unsigned long long) tries, (unsigned long long) deletes,
		   cpu, cpu * 1e6 / (double) deletes);
	if (replay)
	{
		printf("%s seed %d: redo %llu merges for %llu deletes, cpu %.2f s, %.2f us a delete, %llu pages (VACUUM %llu)\n",
			   ds, seed, (unsigned long long) merges,
			   (unsigned long long) deletes, redo_cpu,
			   redo_cpu * 1e6 / (double) deletes,
			   (unsigned long long) art_memstore_pages(twin_ms),
			   (unsigned long long) art_memstore_pages(ms));
		art_memstore_destroy(twin_ms);
	}
	art_memstore_destroy(ms);
	free(row);
	free(dead);
	free(load);
	free(merged);
}

int
main(int argc, char **argv)
{
	const char *ds = argc > 1 ? argv[1] : "md5";
	int			seeds = argc > 2 ? atoi(argv[2]) : 3;
	size_t		rows = argc > 3 ? (size_t) atol(argv[3]) : 15000;

	if (strcmp(ds, "md5") != 0 && strcmp(ds, "words") != 0)
	{
		fprintf(stderr, "usage: trie_churn md5|words [SEEDS [ROWS]]\n");
		return 2;
	}
	if (strcmp(ds, "words") == 0)
		load_words();
	for (int seed = 1; seed <= seeds; seed++)
		churn(ds, seed, rows);
	return 0;
}
