/*-------------------------------------------------------------------------
 *
 * am_build_runs.c
 *	  Sorted runs of a build's entries in temporary files, and their merge.
 *
 * A build sorts its entries in memory (am_build.c, art_sort_items) while
 * they and their item array fit in maintenance_work_mem.  When they fill
 * it, the build sorts what it holds the same way and writes it out here
 * as a run, then reuses the memory for the next entries; at the end, the
 * runs are merged with the last entries, sorted in memory, into one
 * ascending stream for the loader.  So every entry is sorted by the radix
 * sort, and the merge compares each entry with the heads of the other
 * runs only (a binary heap of the runs' heads; the order is the trie's:
 * memcmp, a proper prefix first).  A tuplesort, which the build used
 * beyond the memory before, quicksorts its runs by comparisons, whose
 * abbreviated keys give up on entries sharing their first bytes: at 50
 * million synth keys its runs' quicksorts were half the build
 * (bench/README.md, "Scale").
 *
 * The runs are tapes of one logical tape set (utils/logtape.h): one
 * temporary file (in temp_tablespaces), removed at the end of the
 * transaction or at an abort.
 * An entry on a tape is its length (4 bytes) and its bytes.
 *
 * Layer: SQL surface (the access method's build).  Called by am_build.c
 * only; calls PostgreSQL's logical tapes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/tablespace.h"
#include "utils/guc.h"
#include "utils/logtape.h"

#include "am/am.h"

/* The most bytes of read buffer a run gets in the merge. */
#define AM_RUN_READ_MAX		(256 * 1024)

/* One run's place in the merge: a tape, or the entries still in memory. */
typedef struct AmRunHead
{
	LogicalTape *tape;			/* NULL for the entries in memory */
	const ArtSortItem *items;	/* the entries in memory, sorted */
	Size		nitems;
	Size		next;			/* the next of items */
	uint8	   *buf;			/* the tape's current entry */
	Size		bufsize;
	const uint8 *data;			/* the run's current entry */
	Size		len;
} AmRunHead;

struct AmBuildRuns
{
	MemoryContext cxt;
	Relation	index;			/* for trace_sort's lines */
	LogicalTapeSet *tapes;
	LogicalTape **runs;			/* the runs written, in order */
	int			nruns;
	int			maxruns;
	int64		written;		/* entries written to the runs */

	/* the merge */
	AmRunHead  *heads;
	int		   *heap;			/* indexes of heads, the least first */
	int			nheap;
	bool		started;		/* heap[0]'s entry has been returned */
};

/*
 * A new, empty set of runs for a build of index, in the current memory
 * context.
 */
AmBuildRuns *
am_build_runs_create(Relation index)
{
	AmBuildRuns *runs = palloc0(sizeof(AmBuildRuns));

	runs->cxt = CurrentMemoryContext;
	runs->index = index;
	/* the file goes where temp_tablespaces says, as a tuplesort's does */
	PrepareTempTablespaces();
	runs->tapes = LogicalTapeSetCreate(false, NULL, -1);
	runs->maxruns = 8;
	runs->runs = palloc(runs->maxruns * sizeof(LogicalTape *));
	return runs;
}

/*
 * Write n entries, sorted, as a new run.
 */
void
am_build_runs_write(AmBuildRuns *runs, const ArtSortItem *items, Size n)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(runs->cxt);
	LogicalTape *tape;
	Size		i;

	if (runs->nruns == runs->maxruns)
	{
		runs->maxruns *= 2;
		runs->runs = repalloc(runs->runs, runs->maxruns * sizeof(LogicalTape *));
	}
	tape = LogicalTapeCreate(runs->tapes);
	runs->runs[runs->nruns++] = tape;
	for (i = 0; i < n; i++)
	{
		uint32		len = (uint32) items[i].len;

		am_build_prefetch(items, n, i + AM_BUILD_PREFETCH_AHEAD);
		LogicalTapeWrite(tape, &len, sizeof(len));
		LogicalTapeWrite(tape, unconstify(uint8 *, items[i].data), len);
	}
	runs->written += n;
	MemoryContextSwitchTo(oldcxt);
	if (trace_sort)
		elog(LOG, "artrie build of index \"%s\": run %d written, %zu entries",
			 RelationGetRelationName(runs->index), runs->nruns, n);
}

/*
 * Make a head's current entry its run's next one; false at the run's end.
 */
static bool
run_head_advance(AmRunHead *h)
{
	uint32		len;
	size_t		got;

	if (h->tape == NULL)
	{
		if (h->next == h->nitems)
			return false;
		am_build_prefetch(h->items, h->nitems,
						  h->next + AM_BUILD_PREFETCH_AHEAD);
		h->data = h->items[h->next].data;
		h->len = h->items[h->next].len;
		h->next++;
		return true;
	}
	got = LogicalTapeRead(h->tape, &len, sizeof(len));
	if (got == 0)
		return false;
	if (got != sizeof(len))
		elog(ERROR, "a sorted run of an artrie build ends within an entry");
	if (len > h->bufsize)
	{
		h->bufsize = Max(len, 2 * h->bufsize);
		h->buf = h->buf == NULL ? palloc(h->bufsize) :
			repalloc(h->buf, h->bufsize);
	}
	if (LogicalTapeRead(h->tape, h->buf, len) != len)
		elog(ERROR, "a sorted run of an artrie build ends within an entry");
	h->data = h->buf;
	h->len = len;
	return true;
}

/* Does head a's entry come before head b's in the trie's order? */
static inline bool
run_head_less(const AmRunHead *a, const AmRunHead *b)
{
	Size		n = Min(a->len, b->len);
	int			c = memcmp(a->data, b->data, n);

	if (c != 0)
		return c < 0;
	return a->len < b->len;
}

/* Move the head at heap position i down to its place. */
static void
run_heap_sift(AmBuildRuns *runs, int i)
{
	int			x = runs->heap[i];

	for (;;)
	{
		int			child = 2 * i + 1;

		if (child >= runs->nheap)
			break;
		if (child + 1 < runs->nheap &&
			run_head_less(&runs->heads[runs->heap[child + 1]],
						  &runs->heads[runs->heap[child]]))
			child++;
		if (!run_head_less(&runs->heads[runs->heap[child]], &runs->heads[x]))
			break;
		runs->heap[i] = runs->heap[child];
		i = child;
	}
	runs->heap[i] = x;
}

/*
 * Start the merge of the runs written with the n entries still in memory,
 * sorted (which must stay in place until the merge ends); each run reads
 * its tape through a buffer of at most AM_RUN_READ_MAX bytes and at most
 * memory / (its runs) (at least a block).
 */
void
am_build_runs_merge_begin(AmBuildRuns *runs, const ArtSortItem *items,
						  Size n, Size memory)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(runs->cxt);
	Size		readsize = Max((Size) BLCKSZ,
							   Min((Size) AM_RUN_READ_MAX, memory / runs->nruns));
	int			nheads = runs->nruns + 1;
	int			i;

	if (trace_sort)
		elog(LOG, "artrie build of index \"%s\": merging %d runs of " INT64_FORMAT " entries with %zu entries in memory",
			 RelationGetRelationName(runs->index), runs->nruns,
			 runs->written, n);
	runs->heads = palloc0(nheads * sizeof(AmRunHead));
	runs->heap = palloc(nheads * sizeof(int));
	for (i = 0; i < runs->nruns; i++)
	{
		runs->heads[i].tape = runs->runs[i];
		LogicalTapeRewindForRead(runs->runs[i], readsize);
	}
	runs->heads[runs->nruns].items = items;
	runs->heads[runs->nruns].nitems = n;
	runs->nheap = 0;
	for (i = 0; i < nheads; i++)
		if (run_head_advance(&runs->heads[i]))
			runs->heap[runs->nheap++] = i;
	for (i = runs->nheap / 2 - 1; i >= 0; i--)
		run_heap_sift(runs, i);
	runs->started = false;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The merge's next entry, or false at its end.  *p stays valid until the
 * next call.
 */
bool
am_build_runs_next(AmBuildRuns *runs, const uint8 **p, Size *len)
{
	AmRunHead  *h;

	if (runs->started)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(runs->cxt);

		if (!run_head_advance(&runs->heads[runs->heap[0]]))
			runs->heap[0] = runs->heap[--runs->nheap];
		MemoryContextSwitchTo(oldcxt);
		if (runs->nheap > 1)
			run_heap_sift(runs, 0);
	}
	if (runs->nheap == 0)
		return false;
	runs->started = true;
	h = &runs->heads[runs->heap[0]];
	*p = h->data;
	*len = h->len;
	return true;
}

/*
 * Close the runs' tapes (removing their file) and free the set.
 */
void
am_build_runs_end(AmBuildRuns *runs)
{
	int			i;

	for (i = 0; i < runs->nruns; i++)
	{
		LogicalTapeClose(runs->runs[i]);
		if (runs->heads != NULL && runs->heads[i].buf != NULL)
			pfree(runs->heads[i].buf);
	}
	LogicalTapeSetClose(runs->tapes);
	if (runs->heads != NULL)
	{
		pfree(runs->heads);
		pfree(runs->heap);
	}
	pfree(runs->runs);
	pfree(runs);
}
