/*-------------------------------------------------------------------------
 *
 * trie_dups.c
 *	  The shape of a trie under repeated keys, in the in-memory page store.
 *
 * bench/bulk_writers.sh's COPY workload in the trie core alone: eight
 * files of 1000 keys each ('c/<file>/<random>/<line>', as the script
 * makes them), all eight loaded again and again, every entry the key,
 * 0x00 and a 6-byte TID that grows with every row (block = row / 185,
 * offset = row % 185 + 1, about a heap page of such rows), so that each
 * key gets one more entry per round, as a periodic import does.  After
 * every EVERY rounds it prints the entries, pages, the longest path in
 * pages (page height), the pages' fill, and the pages on the path of a
 * new entry of each of the 8,000 keys: their mean and how many keys
 * have each count.  Each page on that path is one more page an insert
 * pins, locks and (above the page it changes) locks again exclusive in
 * its second pass.  Deterministic: no timing.
 *
 * Usage: trie_dups [ROUNDS [EVERY]]	(defaults 600 and 100)
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trie_pages.h"

#define NFILES		8
#define NLINES		1000
#define MAXPATH		32

static char keys[NFILES][NLINES][40];

/* Entry for key with the TID of row; returns its length. */
static size_t
make_entry(const char *key, unsigned long row, uint8_t *e)
{
	size_t		l = strlen(key);
	unsigned long blk = row / 185;
	unsigned	off = (unsigned) (row % 185 + 1);

	memcpy(e, key, l);
	e[l] = 0;
	e[l + 1] = (uint8_t) (blk >> 24);
	e[l + 2] = (uint8_t) (blk >> 16);
	e[l + 3] = (uint8_t) (blk >> 8);
	e[l + 4] = (uint8_t) blk;
	e[l + 5] = (uint8_t) (off >> 8);
	e[l + 6] = (uint8_t) off;
	return l + 7;
}

/* Print the trie's shape after round r (row: the next row's number). */
static void
report(ArtTrie *t, ArtMemStore *ms, int r, unsigned long row)
{
	ArtStats	s;
	long		total = 0;
	int			hist[MAXPATH + 1] = {0};

	if (art_stats(t, &s) != ART_OK)
	{
		printf("stats failed\n");
		exit(1);
	}
	for (int f = 0; f < NFILES; f++)
		for (int i = 0; i < NLINES; i++)
		{
			uint8_t		e[64];
			size_t		len = make_entry(keys[f][i], row, e);
			int			np = pages_on_path(ms, t->root, e, len);

			total += np;
			hist[np < MAXPATH ? np : MAXPATH]++;
		}
	printf("round %4d  entries %8llu  pages %6llu  page height %2llu  fill %.2f  "
		   "pages on a new entry's path: mean %.2f,",
		   r, (unsigned long long) s.entries, (unsigned long long) s.pages,
		   (unsigned long long) s.page_height,
		   (double) s.bytes_used / ((double) s.pages * ART_PAGE_SIZE),
		   (double) total / (NFILES * NLINES));
	for (int h = 1; h <= MAXPATH; h++)
		if (hist[h] > 0)
			printf(" %d: %d", h, hist[h]);
	printf(" keys\n");
}

int
main(int argc, char **argv)
{
	int			rounds = argc > 1 ? atoi(argv[1]) : 600;
	int			every = argc > 2 ? atoi(argv[2]) : 100;
	ArtMemStore *ms = art_memstore_new();
	ArtTrie		t;
	unsigned long row = 0;
	char		msg[256];

	if (every <= 0)
		every = 1;
	for (int f = 0; f < NFILES; f++)
	{
		srand((unsigned) f + 1);
		for (int i = 0; i < NLINES; i++)
			snprintf(keys[f][i], sizeof(keys[f][i]), "c/%d/%d/%d", f,
					 rand() % 1000000000, i + 1);
	}
	if (ms == NULL || art_create_grouped(&t, art_memstore_store(ms)) != ART_OK)
	{
		printf("create failed\n");
		return 1;
	}
	for (int r = 1; r <= rounds; r++)
	{
		/* the eight files in an order that changes from round to round */
		for (int k = 0; k < NFILES; k++)
		{
			int			f = (r * 3 + k * 5) % NFILES;

			for (int i = 0; i < NLINES; i++)
			{
				uint8_t		e[64];
				size_t		len = make_entry(keys[f][i], row++, e);
				ArtStatus	st = art_insert(&t, e, len);

				if (st != ART_OK)
				{
					printf("insert: %s\n", art_status_string(st));
					return 1;
				}
			}
		}
		if (r % every == 0)
			report(&t, ms, r, row);
	}
	if (art_verify(&t, msg, sizeof(msg)) != ART_OK)
	{
		printf("verify: %s\n", msg);
		return 1;
	}
	art_memstore_destroy(ms);
	return 0;
}
