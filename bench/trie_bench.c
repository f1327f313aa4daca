/*-------------------------------------------------------------------------
 *
 * trie_bench.c
 *	  Microbenchmark of the trie core over the in-memory page store.
 *
 * Datasets: (a) the wamerican-insane word list, (b) up to 1M paths from
 * `find /usr`.  Entries are formed like the SQL layer does: key, 0x00,
 * a 6-byte TID (block big-endian = line number, offset big-endian = 1).
 *
 * Measured on the same entries in the same run: bulk load, inserts in
 * random order, exact lookups in random order (baseline: binary search
 * over a sorted array), prefix iteration (baseline: binary search and a
 * scan of the sorted array), bytes per entry (baseline: raw key bytes +
 * 6-byte TID), and inserts in sorted batches as redo applies them (three
 * random thirds of the entries, each in order) through a finger
 * (baseline: art_insert of each).
 *
 * Usage: trie_bench [words-file] [max-paths]
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

typedef struct Dataset
{
	const char *name;
	Entry	   *e;
	size_t		n;
	size_t		cap;
	uint64_t	raw;			/* key bytes + 6 per entry */
} Dataset;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Add key || 0x00 || TID for line number line. */
static void
add_entry(Dataset *d, const char *key, size_t klen, uint32_t line)
{
	uint8_t    *p;

	if (klen == 0 || memchr(key, 0, klen))
		return;
	if (d->n == d->cap)
	{
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->e = realloc(d->e, sizeof(Entry) * d->cap);
		if (d->e == NULL)
			abort();
	}
	p = malloc(klen + 7);
	if (p == NULL)
		abort();
	memcpy(p, key, klen);
	p[klen] = 0;
	p[klen + 1] = (uint8_t) (line >> 24);
	p[klen + 2] = (uint8_t) (line >> 16);
	p[klen + 3] = (uint8_t) (line >> 8);
	p[klen + 4] = (uint8_t) line;
	p[klen + 5] = 0;
	p[klen + 6] = 1;
	d->e[d->n].data = p;
	d->e[d->n].len = klen + 7;
	d->n++;
	d->raw += klen + 6;
}

/* Read lines from a stream as entries. */
static void
read_lines(Dataset *d, FILE *f, size_t max)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;
	uint32_t	no = 0;

	while (d->n < max && (len = getline(&line, &cap, f)) > 0)
	{
		if (line[len - 1] == '\n')
			len--;
		add_entry(d, line, (size_t) len, ++no);
	}
	free(line);
}

static int
entry_cmp(const void *a, const void *b)
{
	const Entry *x = a;
	const Entry *y = b;
	size_t		n = x->len < y->len ? x->len : y->len;
	int			c = memcmp(x->data, y->data, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Sort and drop duplicates. */
static void
sort_unique(Dataset *d)
{
	size_t		i;
	size_t		j = 0;

	qsort(d->e, d->n, sizeof(Entry), entry_cmp);
	for (i = 0; i < d->n; i++)
	{
		if (j > 0 && entry_cmp(&d->e[j - 1], &d->e[i]) == 0)
		{
			d->raw -= d->e[i].len - 1;
			free(d->e[i].data);
			continue;
		}
		d->e[j++] = d->e[i];
	}
	d->n = j;
}

/* Binary search in the sorted array: index of the first entry >= key. */
static size_t
lower_bound(const Dataset *d, const uint8_t *key, size_t len)
{
	size_t		lo = 0;
	size_t		hi = d->n;
	Entry		k;

	k.data = (uint8_t *) key;
	k.len = len;
	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (entry_cmp(&d->e[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The prefix probed for an entry (see run). */
static size_t
probe_len(const Entry *e)
{
	size_t		klen = e->len - 7;
	size_t		i = klen;

	while (i > 0 && e->data[i - 1] != '/')
		i--;
	if (i > 0)
		return i;
	return klen < 3 ? klen : 3;
}

static void
die(const char *what, ArtStatus st)
{
	fprintf(stderr, "%s: %s\n", what, art_status_string(st));
	exit(1);
}

typedef struct Result
{
	double		bulk_s;
	double		insert_s;
	double		lookup_s;
	double		bsearch_s;
	double		prefix_s;
	double		prefix_base_s;
	double		finger_s;
	double		sorted_s;
	uint64_t	prefix_rows;
	double		scan_s;			/* best full batched scan */
	double		scan_base_s;	/* best copy of every sorted entry */
	uint64_t	bulk_pages;
	uint64_t	insert_pages;
	uint64_t	height;
} Result;

/*
 * Insert the entries into an empty trie in three batches, each a random
 * third of them in order (order[i] % 3 picks the batch of entry i):
 * through a finger, or one art_insert each.  Returns the seconds taken.
 */
static double
sorted_batches(Dataset *d, const size_t *order, bool finger)
{
	ArtMemStore *ms = art_memstore_new();
	ArtTrie		t;
	ArtFinger  *f = NULL;
	ArtStatus	st;
	double		t0;
	size_t		i;
	int			b;
	char		msg[256];

	if ((st = art_create(&t, art_memstore_store(ms))) != ART_OK)
		die("create", st);
	t0 = now();
	for (b = 0; b < 3; b++)
	{
		if (finger && (st = art_finger_begin(&t, &f)) != ART_OK)
			die("finger_begin", st);
		for (i = 0; i < d->n; i++)
		{
			if (order[i] % 3 != (size_t) b)
				continue;
			st = finger ? art_finger_insert(f, d->e[i].data, d->e[i].len) :
				art_insert(&t, d->e[i].data, d->e[i].len);
			if (st != ART_OK)
				die("sorted insert", st);
		}
		if (finger)
			art_finger_end(f);
	}
	t0 = now() - t0;
	if ((st = art_verify(&t, msg, sizeof(msg))) != ART_OK)
	{
		fprintf(stderr, "verify: %s\n", msg);
		exit(1);
	}
	art_memstore_destroy(ms);
	return t0;
}

static void
run(Dataset *d, Result *r)
{
	ArtMemStore *ms1 = art_memstore_new();
	ArtMemStore *ms2 = art_memstore_new();
	ArtTrie		t1;
	ArtTrie		t2;
	ArtBulkLoader *l;
	ArtStats	stats;
	size_t	   *order = malloc(sizeof(size_t) * d->n);
	size_t	   *probes;
	size_t		nprobes;
	size_t		i;
	double		t0;
	ArtStatus	st;
	volatile size_t sink = 0;
	char		msg[256];

	if (order == NULL)
		abort();
	for (i = 0; i < d->n; i++)
		order[i] = i;
	for (i = d->n - 1; i > 0; i--)
	{
		size_t		j = rnd() % (i + 1);
		size_t		tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}

	/* bulk load */
	if ((st = art_create(&t1, art_memstore_store(ms1))) != ART_OK)
		die("create", st);
	t0 = now();
	if ((st = art_bulk_begin(&t1, &l)) != ART_OK)
		die("bulk_begin", st);
	for (i = 0; i < d->n; i++)
		if ((st = art_bulk_add(l, d->e[i].data, d->e[i].len)) != ART_OK)
			die("bulk_add", st);
	if ((st = art_bulk_finish(l)) != ART_OK)
		die("bulk_finish", st);
	r->bulk_s = now() - t0;
	if ((st = art_verify(&t1, msg, sizeof(msg))) != ART_OK)
	{
		fprintf(stderr, "verify: %s\n", msg);
		exit(1);
	}
	art_stats(&t1, &stats);
	r->bulk_pages = stats.pages;
	r->height = stats.height;

	/* inserts in random order */
	if ((st = art_create(&t2, art_memstore_store(ms2))) != ART_OK)
		die("create", st);
	t0 = now();
	for (i = 0; i < d->n; i++)
		if ((st = art_insert(&t2, d->e[order[i]].data, d->e[order[i]].len)) != ART_OK)
			die("insert", st);
	r->insert_s = now() - t0;
	art_stats(&t2, &stats);
	r->insert_pages = stats.pages;

	/* sorted batches, as redo applies them */
	r->sorted_s = sorted_batches(d, order, false);
	r->finger_s = sorted_batches(d, order, true);

	/* exact lookups in random order */
	t0 = now();
	for (i = 0; i < d->n; i++)
		if ((st = art_lookup(&t1, d->e[order[i]].data, d->e[order[i]].len)) != ART_OK)
			die("lookup", st);
	r->lookup_s = now() - t0;
	t0 = now();
	for (i = 0; i < d->n; i++)
	{
		size_t		j = lower_bound(d, d->e[order[i]].data, d->e[order[i]].len);

		if (j >= d->n || j != order[i])
			die("binary search", ART_NOT_FOUND);
		sink += j;
	}
	r->bsearch_s = now() - t0;

	/*
	 * prefix iteration: for random entries, the key up to its last '/'
	 * (paths: a directory) or its first 3 bytes (words)
	 */
	nprobes = d->n / 100 + 1;
	probes = malloc(sizeof(size_t) * nprobes);
	if (probes == NULL)
		abort();
	for (i = 0; i < nprobes; i++)
		probes[i] = order[i];
	r->prefix_rows = 0;
	t0 = now();
	for (i = 0; i < nprobes; i++)
	{
		ArtCursor  *c;
		const uint8_t *e;
		size_t		len;
		size_t		plen = probe_len(&d->e[probes[i]]);

		art_cursor_open(&t1, &c);
		art_cursor_set_prefix(c, d->e[probes[i]].data, plen);
		art_cursor_seek(c, NULL, 0, true, ART_FORWARD);
		while (art_cursor_next(c, &e, &len) == ART_OK)
			r->prefix_rows++;
		art_cursor_close(c);
	}
	r->prefix_s = now() - t0;
	t0 = now();
	for (i = 0; i < nprobes; i++)
	{
		const Entry *p = &d->e[probes[i]];
		size_t		plen = probe_len(p);
		size_t		j = lower_bound(d, p->data, plen);

		while (j < d->n && d->e[j].len >= plen &&
			   memcmp(d->e[j].data, p->data, plen) == 0)
		{
			sink += d->e[j].len;
			j++;
		}
	}
	r->prefix_base_s = now() - t0;

	/*
	 * full ordered scan with a batched cursor, as the index scans read
	 * (baseline: copying every entry of the sorted array out once); best of
	 * 5 runs
	 */
	r->scan_s = r->scan_base_s = 1e9;
	for (int rep = 0; rep < 5; rep++)
	{
		ArtCursor  *c;
		const uint8_t *e;
		size_t		len;
		uint8_t		out[4096];
		size_t		rows = 0;
		double		s;

		t0 = now();
		art_cursor_open(&t1, &c);
		art_cursor_set_batched(c, true);
		art_cursor_seek(c, NULL, 0, true, ART_FORWARD);
		while (art_cursor_next(c, &e, &len) == ART_OK)
		{
			sink += e[len - 1];
			rows++;
		}
		art_cursor_close(c);
		s = now() - t0;
		if (rows != d->n)
			die("full scan", ART_CORRUPT);
		if (s < r->scan_s)
			r->scan_s = s;
		t0 = now();
		for (i = 0; i < d->n; i++)
		{
			memcpy(out, d->e[i].data, d->e[i].len < sizeof(out) ? d->e[i].len : sizeof(out));
			sink += out[0];
		}
		s = now() - t0;
		if (s < r->scan_base_s)
			r->scan_base_s = s;
	}
	(void) sink;
	free(probes);
	free(order);
	art_memstore_destroy(ms1);
	art_memstore_destroy(ms2);
}

static void
report(const Dataset *d, const Result *r)
{
	double		bulk_bpe = (double) r->bulk_pages * ART_PAGE_SIZE / d->n;
	double		ins_bpe = (double) r->insert_pages * ART_PAGE_SIZE / d->n;
	double		raw_bpe = (double) d->raw / d->n;

	printf("\n%s: %zu entries, raw key+TID %.1f bytes/entry, trie height %llu\n",
		   d->name, d->n, raw_bpe, (unsigned long long) r->height);
	printf("| measure | trie | baseline | ratio |\n");
	printf("|---|---|---|---|\n");
	printf("| bulk load vs random inserts | %.3f s (%.2f M/s) | %.3f s (%.2f M/s) | %.1fx faster |\n",
		   r->bulk_s, d->n / r->bulk_s / 1e6, r->insert_s,
		   d->n / r->insert_s / 1e6, r->insert_s / r->bulk_s);
	printf("| exact lookups, random order (vs binary search) | %.0f ns | %.0f ns | %.2fx faster |\n",
		   r->lookup_s / d->n * 1e9, r->bsearch_s / d->n * 1e9,
		   r->bsearch_s / r->lookup_s);
	printf("| prefix iteration, %llu rows (vs sorted array scan) | %.0f ns/row | %.0f ns/row | %.2fx |\n",
		   (unsigned long long) r->prefix_rows,
		   r->prefix_s / r->prefix_rows * 1e9,
		   r->prefix_base_s / r->prefix_rows * 1e9,
		   r->prefix_base_s / r->prefix_s);
	printf("| full scan, batched cursor (vs copying the sorted array) | %.1f ns/row | %.1f ns/row | %.2fx |\n",
		   r->scan_s / d->n * 1e9, r->scan_base_s / d->n * 1e9,
		   r->scan_base_s / r->scan_s);
	printf("| bytes/entry, bulk loaded (vs raw key+TID) | %.1f (%llu pages) | %.1f | %.2fx raw |\n",
		   bulk_bpe, (unsigned long long) r->bulk_pages, raw_bpe,
		   bulk_bpe / raw_bpe);
	printf("| bytes/entry, after random inserts (vs raw) | %.1f (%llu pages) | %.1f | %.2fx raw |\n",
		   ins_bpe, (unsigned long long) r->insert_pages, raw_bpe,
		   ins_bpe / raw_bpe);
	printf("| sorted batch inserts, finger (vs art_insert each) | %.0f ns | %.0f ns | %.2fx faster |\n",
		   r->finger_s / d->n * 1e9, r->sorted_s / d->n * 1e9,
		   r->sorted_s / r->finger_s);
	fflush(stdout);
}

static void
free_dataset(Dataset *d)
{
	size_t		i;

	for (i = 0; i < d->n; i++)
		free(d->e[i].data);
	free(d->e);
}

int
main(int argc, char **argv)
{
	const char *words = argc > 1 ? argv[1] : "/usr/share/dict/american-english-insane";
	size_t		maxpaths = argc > 2 ? (size_t) atol(argv[2]) : 1000000;
	Dataset		w;
	Dataset		p;
	Result		r;
	FILE	   *f;

	memset(&w, 0, sizeof(w));
	memset(&p, 0, sizeof(p));
	w.name = "words (wamerican-insane)";
	p.name = "paths (find /usr)";
	f = fopen(words, "r");
	if (f == NULL)
	{
		perror(words);
		return 1;
	}
	read_lines(&w, f, SIZE_MAX);
	fclose(f);
	sort_unique(&w);
	run(&w, &r);
	report(&w, &r);
	free_dataset(&w);

	f = popen("find /usr 2>/dev/null", "r");
	if (f == NULL)
	{
		perror("find");
		return 1;
	}
	read_lines(&p, f, maxpaths);
	pclose(f);
	sort_unique(&p);
	run(&p, &r);
	report(&p, &r);
	free_dataset(&p);
	return 0;
}
