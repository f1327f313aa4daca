/*-------------------------------------------------------------------------
 *
 * pager_checkpoint.c
 *	  Copy-on-write checkpoints of artrie files.
 *
 * A checkpoint of a file:
 *	1. under the file's write gate (so that it sees no change half done),
 *	   takes the file's dirty frames into its set (pager_cow.c): each page
 *	   gets a physical page in neither bitmap (so the last durable
 *	   checkpoint's pages are never overwritten) and a fresh write stamp
 *	   in the page map (and so do the data pages at the file's tail, to
 *	   move them down so that the commit can cut the file short); then
 *	   copies the map pages that changed since the last checkpoint took
 *	   them, gives each a fresh physical page and write stamp, places the
 *	   directory pages, and adds the data pages the map uses and those map
 *	   and directory pages to "durable" (so that nothing the checkpoint
 *	   needs can be reused while it is being made durable).  That snapshot
 *	   is all writers wait for;
 *	2. without the gate, writes the set, sorted by page number, in
 *	   batches of the ring's size, each page sealed (CRC32C, page number,
 *	   file identity, its write stamp) where step 1 placed it.  A writer
 *	   that needs a frame of the set meanwhile copies it for the
 *	   checkpoint first, unless the checkpoint has copied it already, and
 *	   changes the frame itself (copy-on-write, pager_cow.c): changes made
 *	   after the snapshot go to the next checkpoint, and nobody waits for
 *	   another's I/O.  Then it writes the changed map pages and every
 *	   directory page, to fresh physical pages too;
 *	3. fdatasync; writes the meta slot the last checkpoint did not use
 *	   (write + fdatasync);
 *	4. only then sets "durable" to exactly the new checkpoint's pages: what
 *	   the old one alone used becomes free.
 *
 * The first checkpoint of a changed file after PostgreSQL's redo pointer
 * moved also logs the file's image.  Under the gate, at the snapshot, it
 * logs that the image begins (the image_begin hook, with the position it
 * claims) and keeps a copy of the whole page map as the snapshot has it;
 * then it lets writers in, writes its set, and logs the snapshot's pages
 * read back from where that copy places them (ckpt_log_images): those
 * places are in "durable" until the checkpoint is, so nothing overwrites
 * them meanwhile.  Redo of a base backup holds the file's entry records
 * logged between the two back until the image's last record
 * (src/wal/wal_redo.c).
 *
 * So a checkpoint writes the pages that changed, a map page per fanout of
 * them at most, and the directory (a fanout-th of the map): a file's size
 * does not make its checkpoints long.
 *
 * After a checkpoint of every file, the WAL layer hears where recovery
 * would now start through the hooks pager.c registered (pager_hooks).
 *
 * Layer: calls the file table (pager_slot, meta pages, readiness, the
 * redo position), the pool (dirty frames, scratch frames, page seal, the
 * set's frames through pager_cow.c), the
 * space layer (fresh physical pages, the page map) and src/io.  Called by
 * the io worker, the copy functions and the SQL surface
 * (pager_checkpoint.h, pager.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_checkpoint.h"
#include "pager/pager_cow.h"
#include "pager/pager_file.h"
#include "pager/pager_meta.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"
#include "pager/pager_vouch.h"

#include <sys/stat.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* A page of a checkpoint's set. */
typedef struct CkptItem
{
	int			frame;
	ArtPageNo	pageno;
	uint32		phys;
	uint32		stamp;
	bool		done;			/* written */
	bool		gone;			/* left the set: a writer's copy or a write
								 * out stands for it */
} CkptItem;

/* A checkpoint's snapshot of a file's state. */
typedef struct CkptSnapshot
{
	uint32		nlogical;
	uint32		nused;
	uint32		nphys;
	uint32		nmap;			/* map pages */
	uint32		ndirty;			/* map pages that changed */
	uint32	   *dirty;			/* their numbers */
	char	   *maps;			/* their pages (ndirty of ART_PAGE_SIZE) */
	PagerMapRef *refs;			/* every map page's place, nmap of them */
	uint32		ndir;			/* directory pages */
	uint32	   *dirpages;		/* their places */
	uint8	   *data;			/* the data pages in use: a bitmap */
	uint32		data_bytes;		/* its length */
	uint32		user[PAGER_USER_WORDS];
	uint64		redo_lsn;	/* replay this file's records from here */
	TimeLineID	tli;			/* the timeline redo_lsn is on */
	PagerMapRef *pagemap;		/* with an image: every logical page's place
								 * and write stamp, nlogical of them */
} CkptSnapshot;

PagerHooks	pager_hooks;

/* Order checkpoint items by page number. */
static int
ckpt_item_cmp(const void *a, const void *b)
{
	const CkptItem *x = a;
	const CkptItem *y = b;

	if (x->pageno != y->pageno)
		return x->pageno < y->pageno ? -1 : 1;
	return 0;
}

/*
 * Does a cancel or termination wait only for the LWLocks a checkpoint can
 * let go of here (the file's ckpt_lock, and the vouch lock of a pass that
 * lists files), so that releasing them lets CHECK_FOR_INTERRUPTS serve it?
 */
static bool
ckpt_cancel_waits(void)
{
	int			held = LWLockHeldByMe(pager_shared->vouch_lock) ? 2 : 1;

	return InterruptPending && InterruptHoldoffCount == held &&
		CritSectionCount == 0 && QueryCancelHoldoffCount == 0 &&
		(QueryCancelPending || ProcDiePending);
}

/* How long the io worker waits for a gate at most: 2000 x 5 ms. */
#define CKPT_GATE_TRIES		2000

/*
 * Take the file's write gate exclusive.  While it waits, the slot's
 * gate_closing keeps new writers out (pager_pool.c), so the gate drains within
 * the time of the operations inside it, whatever the write load.  The io
 * worker never sleeps on the gate (a holder may be waiting for the
 * worker's I/O): it serves I/O between tries, and gives up only if the
 * gate stays busy for CKPT_GATE_TRIES.  A backend waits until it has it,
 * or until a cancel or termination waits for its ckpt_lock, the one lock
 * it holds, to be released (ckpt_cancel_waits): then it gives up, and its
 * caller serves the interrupt.
 */
static bool
ckpt_gate(PagerFileSlot *fs, bool in_worker)
{
	volatile bool got = false;

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));
	Assert(!LWLockHeldByMe(&fs->gate));
	pg_atomic_write_u32(&fs->gate_closing, 1);
	PG_TRY();
	{
		for (int tries = 0; !got && (!in_worker || tries < CKPT_GATE_TRIES); tries++)
		{
			got = LWLockConditionalAcquire(&fs->gate, LW_EXCLUSIVE);
			if (got || (!in_worker && ckpt_cancel_waits()))
				break;
			io_wait(NULL, in_worker ? 5 : 1);
		}
	}
	PG_FINALLY();
	{
		pg_atomic_write_u32(&fs->gate_closing, 0);
		ConditionVariableBroadcast(&fs->gate_cv);
	}
	PG_END_TRY();
	return got;
}

/*
 * Step 2 of a checkpoint, under the write gate: snapshot the file's state
 * and the map pages that changed, and place them and the directory pages
 * on fresh physical pages.  The pages the snapshot uses join "durable"
 * until the checkpoint is.  With image, also copy the whole page map, for
 * the image that is logged after the gate is released.
 */
static void
ckpt_snapshot(PagerFileSlot *fs, CkptSnapshot *snap, bool image)
{
	PagerMapRef *refs;
	uint8	   *dur;
	uint8	   *cur;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	snap->nlogical = fs->nlogical;
	snap->nused = fs->nused;
	pager_user_words(fs, snap->user);
	snap->nmap = pager_map_pages(snap->nlogical, fs->fanout);
	snap->ndir = pager_dir_pages(snap->nlogical, fs->fanout);
	snap->dirty = palloc_extended(sizeof(uint32) * Max(snap->nmap, 1), MCXT_ALLOC_HUGE);
	snap->refs = palloc_extended(sizeof(PagerMapRef) * Max(snap->nmap, 1),
								 MCXT_ALLOC_HUGE);
	snap->dirpages = palloc(sizeof(uint32) * Max(snap->ndir, 1));
	snap->data_bytes = fs->phys_cap / 8;
	snap->data = palloc_extended(Max(snap->data_bytes, 1), MCXT_ALLOC_HUGE);
	snap->pagemap = NULL;
	if (image)
	{
		snap->pagemap = palloc_extended(sizeof(PagerMapRef) * Max(snap->nlogical, 1),
										MCXT_ALLOC_HUGE);
		for (uint32 l = 0; l < snap->nlogical; l++)
			snap->pagemap[l].phys = pager_map_entry(fs, l, &snap->pagemap[l].stamp);
	}
	fs->changed = false;
	fs->stale = false;
	snap->ndirty = pager_map_take_dirty(fs, snap->nmap, snap->dirty);

	/*
	 * From here on the map pages taken are written by this checkpoint or,
	 * if it fails, marked changed again for the next one: a map page left
	 * out of every checkpoint would keep entries that point at pages freed
	 * since.
	 */
	PG_TRY();
	{
		snap->maps = palloc_extended((Size) ART_PAGE_SIZE * Max(snap->ndirty, 1),
									 MCXT_ALLOC_HUGE);

		/* The data pages the map uses are the "current" ones, under the gate. */
		dur = durable_of(fs);
		cur = current_of(fs);
		memcpy(snap->data, cur, snap->data_bytes);
		for (uint32 i = 0; i < snap->data_bytes; i++)
			dur[i] |= cur[i];

		refs = pager_map_refs(fs);
		for (uint32 i = 0; i < snap->ndirty; i++)
		{
			uint32		m = snap->dirty[i];

			pager_map_page_copy(fs, m, snap->nlogical, snap->maps + (Size) i * ART_PAGE_SIZE);
			refs[m].phys = pager_phys_find_free(fs);
			refs[m].stamp = ++fs->write_stamp;
			bit_set(durable_of(fs), refs[m].phys);
		}
		if (snap->nmap > 0)
			memcpy(snap->refs, refs, sizeof(PagerMapRef) * snap->nmap);
		for (uint32 d = 0; d < snap->ndir; d++)
		{
			snap->dirpages[d] = pager_phys_find_free(fs);
			bit_set(durable_of(fs), snap->dirpages[d]);
		}
	}
	PG_CATCH();
	{
		pager_map_redirty(fs, snap->dirty, snap->ndirty);
		fs->changed = true;
		PG_RE_THROW();
	}
	PG_END_TRY();
	snap->nphys = fs->nphys;
	LWLockRelease(&fs->lock);
}

/*
 * A checkpoint's set: its pages, sorted by page number (each knows
 * whether it is written), and the frames of the batch being written that
 * the checkpoint claimed to write from themselves, for its cleanup if it
 * fails.
 */
typedef struct CkptSet
{
	int			slot;
	CkptItem   *items;
	int			n;
	int		   *claimed;
	int			nclaimed;
} CkptSet;

/*
 * Give the pages of n frames just taken into a checkpoint's set each a
 * physical page in neither bitmap (so that the last durable checkpoint's
 * pages are never overwritten: the lowest free one) and a fresh write
 * stamp, in the items and in the page map, where the snapshot of the map
 * finds them.
 */
static void
ckpt_place(PagerFileSlot *fs, int slot, CkptItem *items, int n)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		items[i].phys = pager_phys_find_free(fs);
		items[i].stamp = ++fs->write_stamp;
		items[i].done = false;
		items[i].gone = false;
		bit_set(current_of(fs), items[i].phys);
		pager_map_set_locked(fs, items[i].pageno, items[i].phys, items[i].stamp);
		pager_ckpt_place(items[i].frame, slot, items[i].phys, items[i].stamp);
	}
	LWLockRelease(&fs->lock);
}

/*
 * Step 1 of a checkpoint, under the write gate: take the file's dirty
 * frames into the checkpoint's set (pager_ckpt_take) and place them
 * (ckpt_place); then take the data pages at the file's tail
 * (pager_phys_tail, which also marks the map pages past the tail line
 * changed, for the snapshot to write anew lower down), each pinned (read
 * if need be), into the set too, and place them below, so that the commit
 * can cut the file short.  At most a quarter of the file's pages (and at
 * least PAGER_TAIL_MOVES) move per checkpoint, no more than an eighth of
 * the pool, and none that would leave less than half the pool outside the
 * set, since the set stays in the pool until it is copied out.  Returns
 * whether pages are left to move (for want of free pages below, which
 * this checkpoint's commit frees, or of those limits): then the file's
 * next checkpoint goes on, even if nothing changes meanwhile (tail_left).
 * set->n counts every frame taken as soon as it is, for
 * ckpt_abandon_set; the set ends up sorted by page number.
 */
static bool
ckpt_take_set(PagerFileSlot *fs, int slot, CkptSet *set)
{
	int			nframes = pager_shared->nframes;
	ArtPageNo  *dirty_pages;
	int		   *dirty;
	int			ndirty;
	ArtPageNo  *pagenos;
	uint32		nlogical;
	int			first;
	int			max;
	int			room;
	int			ntail;
	bool		more;

	/*
	 * Under the gate no page of the file turns dirty or is written back by
	 * an eviction, so the dirty frames found now stay dirty until taken.
	 * The last checkpoint's frames written out by others were all counted
	 * before it ended (pager_cow.c).
	 */
	Assert(LWLockHeldByMeInMode(&fs->gate, LW_EXCLUSIVE));
	pg_atomic_write_u32(&fs->ckpt_written, 0);
	LWLockAcquire(&fs->lock, LW_SHARED);
	max = (int) Min(Max(fs->nphys / 4, PAGER_TAIL_MOVES), Max(nframes / 8, 1));
	nlogical = fs->nlogical;
	LWLockRelease(&fs->lock);
	dirty = pager_dirty_frames(slot, nlogical, &dirty_pages, &ndirty);
	set->items = palloc(sizeof(CkptItem) * (ndirty + max));
	for (int c = 0; c < ndirty; c++)
	{
		if (pager_ckpt_take(dirty[c], slot, true))
		{
			set->items[set->n].frame = dirty[c];
			set->items[set->n++].pageno = dirty_pages[c];
		}
	}
	ckpt_place(fs, slot, set->items, set->n);

	/*
	 * A page at the tail not in the pool needs a frame to be read into,
	 * and none of the set's can be reused until it is copied out: move
	 * pages only while the set leaves half the pool to the clock sweep,
	 * and else only learn whether any are left to move.
	 */
	room = nframes / 2 - set->n;
	pagenos = palloc(sizeof(ArtPageNo) * max);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	ntail = pager_phys_tail(fs, pagenos, Max(Min(max, room), 1), &more);
	LWLockRelease(&fs->lock);
	if (room < 1)
	{
		more = more || ntail > 0;
		ntail = 0;
	}
	first = set->n;
	for (int i = 0; i < ntail; i++)
	{
		int			frame = pager_get_page(fs, slot, pagenos[i]);
		bool		taken = pager_ckpt_take(frame, slot, false);

		pager_unpin(frame);
		if (!taken)
			continue;
		set->items[set->n].frame = frame;
		set->items[set->n++].pageno = pagenos[i];
	}
	ckpt_place(fs, slot, set->items + first, set->n - first);
	qsort(set->items, set->n, sizeof(CkptItem), ckpt_item_cmp);
	pfree(pagenos);
	pfree(dirty_pages);
	pfree(dirty);
	return more;
}

/*
 * A checkpoint failed (by an ERROR or FATAL): every page of its set not
 * written turns dirty again (pager_ckpt_abandon; a page a writer copied
 * is dirty already), the writers' copies are given back, the file is
 * changed.
 */
static void
ckpt_abandon_set(int code, Datum arg)
{
	CkptSet    *set = (CkptSet *) DatumGetPointer(arg);

	if (set->n > 0)
		pager_shared->files[set->slot].changed = true;
	for (int i = 0; i < set->nclaimed; i++)
		pager_ckpt_unclaim(set->claimed[i]);
	set->nclaimed = 0;
	for (int i = 0; i < set->n; i++)
	{
		if (!set->items[i].done)
			pager_ckpt_abandon(set->items[i].frame, set->slot,
							   set->items[i].pageno);
	}
	pager_ckpt_drop_copies(set->slot);
}

/* Where artrie.test_checkpoint_pause may hold a checkpoint. */
typedef enum CkptPause
{
	CKPT_PAUSE_WRITE,			/* before the set is written */
	CKPT_PAUSE_IMAGE,			/* the gate released, no image record yet */
	CKPT_PAUSE_IMAGE_MID		/* after the image's first record */
} CkptPause;

/* The file whose presence in the data directory holds each pause. */
static const char *const ckpt_pause_files[] = {
	"artrie_checkpoint_pause",
	"artrie_checkpoint_pause_image",
	"artrie_checkpoint_pause_image_mid"
};

/* Where each pause is, as the log says it. */
static const char *const ckpt_pause_places[] = {
	"in its write phase",
	"in its image phase",
	"in its image phase after the image's first record"
};

/*
 * artrie.test_checkpoint_pause: say in the log that the checkpoint of a
 * file pauses at place, and wait while that place's file exists, ten
 * minutes at most.  The write phase says so whether or not its file
 * exists; the image's pauses only when theirs does.
 */
static void
ckpt_test_pause(PagerFileSlot *fs, CkptPause place)
{
	const char *file = ckpt_pause_files[place];
	struct stat st;

	if (!pager_test_checkpoint_pause ||
		(place != CKPT_PAUSE_WRITE && stat(file, &st) != 0))
		return;
	ereport(LOG,
			(errmsg("artrie checkpoint of file \"%s\" pauses %s",
					fs->path, ckpt_pause_places[place])));
	for (int i = 0; i < 60000 && stat(file, &st) == 0; i++)
		io_wait(NULL, 10);
	ereport(LOG,
			(errmsg("artrie checkpoint of file \"%s\" resumes", fs->path)));
}

/* The item of a checkpoint's set for page pageno. */
static CkptItem *
ckpt_item_find(CkptSet *set, ArtPageNo pageno)
{
	CkptItem	key;
	CkptItem   *it;

	key.pageno = pageno;
	it = bsearch(&key, set->items, set->n, sizeof(CkptItem), ckpt_item_cmp);
	if (it == NULL || it->done)
		elog(ERROR, "artrie: a copy of page %u is not in its checkpoint's set",
			 pageno);
	return it;
}

/*
 * Step 2 of a checkpoint, the write phase: write the pages of its set
 * where ckpt_take_set placed them, in batches of the ring's size, each
 * sealed (CRC32C, page number, file identity, its write stamp).  Writers
 * may run meanwhile (pager_cow.c): a batch takes the copies writers made
 * of pages of the set first, then copies pages still in the set, in page
 * order, into scratch frames, and writes those copies, so that no frame a
 * writer may need is under I/O; only when the pool has no frame to spare
 * does it write a frame from itself, claimed (set->claimed).  A page
 * another process is copying or writing out this moment is taken up again
 * in a later batch.  A page that left the set (gone) is written by its
 * writer's copy, which a later batch takes, or was written out by another
 * process, which the file's ckpt_written counts: the set is written when
 * the pages this checkpoint wrote and those others wrote out make it up.
 */
static void
ckpt_write_set(PagerFileSlot *fs, CkptSet *set)
{
	int			batch = Max(Min(io_batch_size(), pager_shared->nframes / 4), 1);
	IoPage	   *pages = palloc(sizeof(IoPage) * batch);
	int		   *bufs = palloc(sizeof(int) * batch);
	ArtPageNo  *pagenos = palloc(sizeof(ArtPageNo) * batch);
	CkptItem  **its = palloc(sizeof(CkptItem *) * batch);
	int			left = set->n;
	int			next = 0;

	set->claimed = palloc(sizeof(int) * batch);
	ckpt_test_pause(fs, CKPT_PAUSE_WRITE);
	while (left > (int) pg_atomic_read_u32(&fs->ckpt_written))
	{
		int			ncopies = pager_ckpt_copies(set->slot, bufs, pagenos, batch);
		int			n = ncopies;
		int			spare = -1;

		for (int i = 0; i < ncopies; i++)
			its[i] = ckpt_item_find(set, pagenos[i]);
		while (next < set->n && (set->items[next].done || set->items[next].gone))
			next++;
		for (int i = next; i < set->n && n < batch; i++)
		{
			CkptItem   *it = &set->items[i];
			PagerCkptStage stage;

			if (it->done || it->gone)
				continue;
			if (spare < 0)
				spare = pager_victim_try();
			stage = pager_ckpt_stage(it->frame, set->slot, it->pageno,
									 spare < 0 ? NULL : pager_frame_data(spare));
			if (stage == PAGER_CKPT_STAGED)
			{
				bufs[n] = spare;
				its[n++] = it;
				spare = -1;
			}
			else if (stage == PAGER_CKPT_CLAIMED)
			{
				bufs[n] = -1;
				its[n++] = it;
				set->claimed[set->nclaimed++] = it->frame;
			}
			else if (stage == PAGER_CKPT_GONE)
				it->gone = true;
		}
		if (spare >= 0)
			pager_scratch_put(spare);

		for (int i = 0; i < n; i++)
		{
			char	   *data = pager_frame_data(bufs[i] < 0 ? its[i]->frame : bufs[i]);

			pager_page_seal(fs, data, its[i]->pageno, PAGER_KIND_DATA,
							its[i]->stamp);
			pages[i].offset = (uint64) its[i]->phys * ART_PAGE_SIZE;
			pages[i].buf = data;
		}
		if (n > 0)
			io_write_pages(fs->path, pages, n);
		set->nclaimed = 0;
		for (int i = 0; i < n; i++)
		{
			its[i]->done = true;
			if (i < ncopies)
				pager_ckpt_copy_done(set->slot, bufs[i]);
			else
			{
				pager_ckpt_unstage(its[i]->frame, set->slot, its[i]->pageno);
				if (bufs[i] >= 0)
					pager_scratch_put(bufs[i]);
			}
		}
		left -= n;
		pg_atomic_fetch_add_u64(&pager_shared->counters.checkpoint_pages, n);
		if (n == 0)
			io_wait(NULL, 1);
	}
	pfree(its);
	pfree(pagenos);
	pfree(bufs);
	pfree(pages);
	pfree(set->claimed);
	set->claimed = NULL;
}

/*
 * Read the data pages pages[0 .. n) of a file into an image's bodies (at
 * bodies[slot[i]]), checking each against its page number and the write
 * stamp the page map gives it.
 */
void
pager_image_read(PagerFileSlot *fs, IoPage *pages, const uint32 *pagenos,
				 const uint32 *stamps, const int *slot, int n, char *bodies)
{
	io_read_pages(fs->path, pages, n);
	for (int i = 0; i < n; i++)
	{
		const char *problem = pager_page_check(fs, pages[i].buf, pagenos[i],
											   PAGER_KIND_DATA);

		if (problem == NULL &&
			((PagerPageHeader *) pages[i].buf)->ckpt_no != stamps[i])
			problem = "the page is not the one the page map names";
		if (problem)
			pager_corrupt(fs, pagenos[i], problem);
		memcpy(bodies + (Size) slot[i] * (ART_PAGE_SIZE - ART_PAGE_RESERVED),
			   pages[i].buf + ART_PAGE_RESERVED, ART_PAGE_SIZE - ART_PAGE_RESERVED);
	}
}

/*
 * pager_image_read, then give back the pages' scratch frames.
 */
static void
ckpt_image_read(PagerFileSlot *fs, IoPage *pages, int *frames,
				const uint32 *pagenos, const uint32 *stamps, const int *slot,
				int n, char *bodies)
{
	pager_image_read(fs, pages, pagenos, stamps, slot, n, bodies);
	for (int i = n - 1; i >= 0; i--)
		pager_scratch_put(frames[i]);
}

/*
 * How many pages an image reads back in one call: as many as the io
 * backend takes in one batch, but no more scratch frames than a 64th of
 * the pool, and at least PAGER_SCRATCH_BATCH.  Each call is a round trip
 * to the device (under io_uring a submission and the worker's wait for
 * it), which cost more of the worker's time than the pages themselves
 * when a call read 8 pages.
 */
static int
ckpt_image_batch(void)
{
	return Max(Min(io_batch_size(), pager_shared->nframes / 64),
			   PAGER_SCRATCH_BATCH);
}

/*
 * Log the whole file as this checkpoint's snapshot has it, in runs of
 * PAGER_IMAGE_PAGES logical pages, through the WAL layer's file_image
 * hook, after the checkpoint wrote its set and without the write gate:
 * every logical page in use is read from the place the snapshot's copy of
 * the page map gives it (the set's pages were written there just now, the
 * others were there already) and checked against its write stamp, a
 * group of runs at a time, ckpt_image_batch() pages a read.  Those places
 * stay in "durable" until the checkpoint is, so no writer's page lands on
 * one meanwhile; the pool's frames are not used, writers may be changing
 * them.  This is artrie's full-page write: a base backup may copy the
 * meta page of one checkpoint and pages that later checkpoints freed and
 * wrote again, and its redo rebuilds the file from the first images after
 * its start, then applies the entries logged since the image began
 * (image_begin), which it holds back until the image's last record.
 */
static void
ckpt_log_images(PagerFileSlot *fs, const CkptSnapshot *snap)
{
	int			batch = ckpt_image_batch();
	uint32		group = (uint32) Max(batch / PAGER_IMAGE_PAGES, 1) * PAGER_IMAGE_PAGES;
	Size		body = ART_PAGE_SIZE - ART_PAGE_RESERVED;
	char	   *bodies = palloc((Size) group * body);
	uint32	   *freelist = palloc_extended(sizeof(uint32) * Max(snap->nlogical, 1),
											 MCXT_ALLOC_HUGE);
	IoPage	   *pages = palloc(sizeof(IoPage) * batch);
	int		   *frames = palloc(sizeof(int) * batch);
	uint32	   *pagenos = palloc(sizeof(uint32) * batch);
	uint32	   *stamps = palloc(sizeof(uint32) * batch);
	int		   *slot = palloc(sizeof(int) * batch);
	PagerImage	img;
	uint32		first = 0;

	Assert(!LWLockHeldByMe(&fs->gate));
	memset(&img, 0, sizeof(img));
	img.id = fs->id;
	img.user = snap->user;
	img.freelist = freelist;
	do
	{
		uint32		gpages = Min(group, snap->nlogical - first);
		uint32		run = 0;
		int			nbodies = 0;
		int			n = 0;

		/* The group's pages in use, their bodies in logical page order. */
		for (uint32 i = 0; i < gpages; i++)
		{
			uint32		phys = snap->pagemap[first + i].phys;

			if (!phys_real(phys))
				continue;
			frames[n] = pager_scratch_get();
			pages[n].offset = (uint64) phys * ART_PAGE_SIZE;
			pages[n].buf = pager_frame_data(frames[n]);
			pagenos[n] = first + i;
			stamps[n] = snap->pagemap[first + i].stamp;
			slot[n] = nbodies++;
			if (++n == batch)
			{
				ckpt_image_read(fs, pages, frames, pagenos, stamps, slot, n, bodies);
				n = 0;
			}
		}
		if (n > 0)
			ckpt_image_read(fs, pages, frames, pagenos, stamps, slot, n, bodies);

		/* Then the group's runs, a record each. */
		nbodies = 0;
		do
		{
			uint32		npages = Min(PAGER_IMAGE_PAGES, gpages - run);

			img.used = 0;
			img.bodies = bodies + (Size) nbodies * body;
			for (uint32 i = 0; i < npages; i++)
			{
				uint32		phys = snap->pagemap[first + run + i].phys;

				if (phys == PAGER_PHYS_FREE)
					freelist[img.nfree++] = first + run + i;
				if (!phys_real(phys))
					continue;
				img.used |= (uint32) 1 << i;
				nbodies++;
			}
			img.first = first + run == 0;
			img.last = first + run + npages >= snap->nlogical;
			img.firstpage = first + run;
			img.npages = npages;
			pager_hooks.file_image(&img);
			if (img.first && !img.last)
				ckpt_test_pause(fs, CKPT_PAUSE_IMAGE_MID);
			run += npages;
		} while (run < gpages);
		first += gpages;
	} while (first < snap->nlogical);
	pfree(slot);
	pfree(stamps);
	pfree(pagenos);
	pfree(frames);
	pfree(pages);
	pfree(freelist);
	pfree(bodies);
}

/*
 * Write a checkpoint's changed map pages (dir false) or its directory
 * pages (dir true), a batch of scratch frames at a time.
 */
static void
ckpt_write_map(PagerFileSlot *fs, CkptSnapshot *snap, uint64 ckpt_no, bool dir)
{
	uint32		count = dir ? snap->ndir : snap->ndirty;
	IoPage		pages[PAGER_SCRATCH_BATCH];
	int			frames[PAGER_SCRATCH_BATCH];

	for (uint32 first = 0; first < count; first += PAGER_SCRATCH_BATCH)
	{
		int			n = Min(PAGER_SCRATCH_BATCH, count - first);

		for (int i = 0; i < n; i++)
		{
			uint32		k = first + i;
			char	   *data;

			frames[i] = pager_scratch_get();
			data = pager_frame_data(frames[i]);
			if (dir)
			{
				pager_dir_page_fill(data, snap->refs, snap->nmap, k, fs->fanout);
				pager_page_seal(fs, data, k, PAGER_KIND_DIR, ckpt_no);
				pages[i].offset = (uint64) snap->dirpages[k] * ART_PAGE_SIZE;
			}
			else
			{
				uint32		m = snap->dirty[k];

				memcpy(data, snap->maps + (Size) k * ART_PAGE_SIZE, ART_PAGE_SIZE);
				pager_page_seal(fs, data, m, PAGER_KIND_MAP, snap->refs[m].stamp);
				pages[i].offset = (uint64) snap->refs[m].phys * ART_PAGE_SIZE;
			}
			pages[i].buf = data;
		}
		io_write_pages(fs->path, pages, n);
		for (int i = n - 1; i >= 0; i--)
			pager_scratch_put(frames[i]);
	}
}

/*
 * Steps 3 and 4 of a checkpoint: write the changed map pages and the
 * directory pages, sync, write the meta page, sync, and let the old
 * checkpoint's space go.  With once, the first sync is left out, the meta
 * page's covering every page: for a file that nothing durable names yet
 * (pager_flush_new_file), which a crash before the sync ends leaves to the
 * sweep whatever its meta page says.  If it fails, the map pages it took
 * are changed again for the next one.
 */
static void
ckpt_commit(PagerFileSlot *fs, CkptSnapshot *snap, bool once)
{
	uint64		ckpt_no = fs->ckpt_no + 1;
	int			meta_slot = fs->meta_slot ^ 1;
	uint8	   *dur;
	uint32		end;
	IoPage		pages[PAGER_SCRATCH_BATCH];
	int			frames[PAGER_SCRATCH_BATCH];

	PG_TRY();
	{
		ckpt_write_map(fs, snap, ckpt_no, false);
		ckpt_write_map(fs, snap, ckpt_no, true);
		if (!once)
			io_sync_file(fs->path);

		/* The meta page never names a position the WAL here may lack. */
		XLogFlush(pager_wal_end());
		frames[0] = pager_scratch_get();
		pages[0].offset = (uint64) meta_slot * ART_PAGE_SIZE;
		pages[0].buf = pager_frame_data(frames[0]);
		pager_meta_fill(fs, pages[0].buf, meta_slot, ckpt_no, snap->redo_lsn,
						snap->tli, snap->nlogical, snap->nphys, snap->nused,
						snap->user, snap->ndir, snap->dirpages);
		io_write_sync(fs->path, pages, 1);
		pager_scratch_put(frames[0]);
	}
	PG_CATCH();
	{
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		pager_map_redirty(fs, snap->dirty, snap->ndirty);
		fs->changed = true;
		LWLockRelease(&fs->lock);
		PG_RE_THROW();
	}
	PG_END_TRY();

	/* Durable: from now on only the new checkpoint's pages are protected. */
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	dur = durable_of(fs);
	memset(dur, 0, fs->phys_cap / 8);
	memcpy(dur, snap->data, snap->data_bytes);
	bit_set(dur, 0);
	bit_set(dur, 1);
	for (uint32 i = 0; i < snap->nmap; i++)
		bit_set(dur, snap->refs[i].phys);
	for (uint32 i = 0; i < snap->ndir; i++)
		bit_set(dur, snap->dirpages[i]);
	fs->ckpt_no = ckpt_no;
	fs->redo_lsn = snap->redo_lsn;
	fs->meta_slot = meta_slot;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;

	/*
	 * The pages past the last one either bitmap holds are used by neither
	 * this checkpoint nor a change since: cut them off (under the lock, so
	 * that no page past the cut is handed out meanwhile).
	 */
	end = pager_phys_end(fs);
	if (end < fs->nphys &&
		io_truncate_file(fs->path, (uint64) end * ART_PAGE_SIZE))
		fs->nphys = end;
	LWLockRelease(&fs->lock);

	pg_atomic_fetch_add_u64(&pager_shared->counters.checkpoints, 1);
}

/*
 * Checkpoint one file.  Returns whether a checkpoint was made durable.
 * In the io worker (in_worker) nothing blocks on a lock: a file busy with
 * another checkpoint or with changes is skipped (*busy set), and caught
 * next time.  Sets *again if it was an image checkpoint during which
 * PostgreSQL's redo pointer moved (the file is then marked changed).
 * With once, one sync makes it durable (ckpt_commit).
 */
static bool
ckpt_slot(int slot, bool force, bool in_worker, bool once, bool *again,
		  bool *busy)
{
	PagerFileSlot *fs = &pager_shared->files[slot];
	CkptSnapshot snap;
	CkptSet		set;
	XLogRecPtr	redo_ptr = GetRedoRecPtr();
	bool		image;

	if (!fs->in_use || !fs->loaded)
		return false;
	if (in_worker)
	{
		if (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		{
			*busy = true;
			return false;
		}
	}
	else
		LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
	if (!fs->in_use || !fs->loaded)
	{
		LWLockRelease(&fs->ckpt_lock);
		return false;
	}

	/*
	 * A page turns dirty only under the gate and with the file marked
	 * changed, and a checkpoint that fails marks it changed again, so a
	 * file with a dirty frame is a changed one: no look at the pool.
	 */
	if (!fs->changed && !fs->stale && !fs->tail_left && !force)
	{
		LWLockRelease(&fs->ckpt_lock);
		return false;
	}
	if (!ckpt_gate(fs, in_worker))
	{
		LWLockRelease(&fs->ckpt_lock);
		if (in_worker)
		{
			*busy = true;
			return false;
		}

		/*
		 * A backend gave up for a cancel or termination, which this serves
		 * once a pass that lists files has given its list up too (the pass
		 * then claims nothing, see pager_checkpoint); ProcessInterrupts has
		 * cleared it if it ignored it, so the next try waits for the gate.
		 */
		pager_vouch_end();
		CHECK_FOR_INTERRUPTS();
		return ckpt_slot(slot, force, in_worker, once, again, busy);
	}

	/*
	 * A file without any change since its last checkpoint: say so in the
	 * WAL while no change can be made, before its meta page moves on, so
	 * that redo can accept a copy of the last checkpoint (a base backup's,
	 * see pager_vouch_file); then, in a pass that lists files, list it as
	 * current at a position taken while no change can be made either
	 * (pager_vouch.c); else stamp that checkpoint anew, its pages as they
	 * are, at that position.  A file with pages left to move down from its
	 * tail (tail_left) is checkpointed as a changed one.
	 */
	if (!fs->changed && !fs->tail_left)
	{
		XLogRecPtr	redo_lsn;

		if (!XLogRecPtrIsInvalid(fs->redo_lsn) && !RecoveryInProgress() &&
			pager_hooks.file_unchanged)
			pager_hooks.file_unchanged(&fs->id, fs->redo_lsn);
		redo_lsn = pager_redo_now();
		LWLockRelease(&fs->gate);
		if (pager_vouch_active())
		{
			pager_vouch_add(&fs->id, fs->redo_lsn, redo_lsn, slot);
			LWLockRelease(&fs->ckpt_lock);
			return true;
		}
		pager_meta_restamp(&fs->id, fs->path, fs->relname, fs->meta_slot,
						   redo_lsn);
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		fs->redo_lsn = redo_lsn;
		fs->meta_slot ^= 1;
		fs->stale = false;
		LWLockRelease(&fs->lock);
		LWLockRelease(&fs->ckpt_lock);
		return true;
	}

	/*
	 * The heap tuples the pages point to, and the WAL records of the
	 * changes, must be durable first (in recovery: the minimum recovery
	 * point moves past the changes).
	 */
	XLogFlush(pager_wal_end());
	image = fs->imaged_redo != redo_ptr && !RecoveryInProgress() &&
		pager_hooks.file_image && pager_hooks.image_begin;
	set.slot = slot;
	set.items = NULL;
	set.n = 0;
	set.claimed = NULL;
	set.nclaimed = 0;
	PG_ENSURE_ERROR_CLEANUP(ckpt_abandon_set, PointerGetDatum(&set));
	{
		bool		more = ckpt_take_set(fs, slot, &set);

		ckpt_snapshot(fs, &snap, image);
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		fs->tail_left = more;
		LWLockRelease(&fs->lock);
		snap.redo_lsn = pager_redo_now();
		snap.tli = pager_timeline_now();

		/*
		 * The first checkpoint that writes the file after PostgreSQL's redo
		 * pointer moved logs that its image begins while no change of the
		 * file can be logged, so that every entry record before that one
		 * is in the image and none after; then writers may go on while the
		 * set is written and the image logged (ckpt_log_images).
		 */
		PG_TRY();
		{
			if (image)
				pager_hooks.image_begin(&fs->id, snap.redo_lsn);
			LWLockRelease(&fs->gate);
			if (image)
				ckpt_test_pause(fs, CKPT_PAUSE_IMAGE);
			ckpt_write_set(fs, &set);
			if (image)
			{
				ckpt_log_images(fs, &snap);
				fs->imaged_redo = redo_ptr;
			}
		}
		PG_CATCH();
		{
			LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
			pager_map_redirty(fs, snap.dirty, snap.ndirty);
			fs->changed = true;
			LWLockRelease(&fs->lock);
			PG_RE_THROW();
		}
		PG_END_TRY();
	}
	PG_END_ENSURE_ERROR_CLEANUP(ckpt_abandon_set, PointerGetDatum(&set));
	pfree(set.items);
	ckpt_commit(fs, &snap, once);

	/*
	 * A base backup whose start came after this image-begin record and
	 * before the image skips the image in its redo (wal_redo.c): the file
	 * needs an image begun after the redo pointer moved.
	 */
	if (image && GetRedoRecPtr() != redo_ptr)
	{
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		fs->changed = true;
		LWLockRelease(&fs->lock);
		*again = true;
	}
	LWLockRelease(&fs->ckpt_lock);
	pfree(snap.dirty);
	pfree(snap.maps);
	pfree(snap.refs);
	pfree(snap.dirpages);
	pfree(snap.data);
	if (snap.pagemap)
		pfree(snap.pagemap);
	return true;
}

/*
 * Checkpoint one file (ckpt_slot); if PostgreSQL's redo pointer moved
 * during its image, once more, for an image that begins after it.  With
 * busy, says whether the io worker skipped the file because another
 * checkpoint of it was under way or its gate stayed busy.  With once,
 * one sync makes each checkpoint durable (ckpt_commit).
 */
static bool
pager_checkpoint_slot(int slot, bool force, bool in_worker, bool once,
					  bool *busy)
{
	bool		again = false;
	bool		skipped = false;
	bool		done = ckpt_slot(slot, force, in_worker, once, &again, &skipped);

	if (done && again)
	{
		again = false;
		done = ckpt_slot(slot, force, in_worker, once, &again, &skipped);
	}
	if (busy)
		*busy = skipped;
	return done;
}

/*
 * Make every page of a file just written (built, copied, adopted or
 * reset) durable, and cut the file to its physical pages: the room the
 * io backend allocated ahead of the writes (io_uring) would otherwise
 * stay with it until the index grows into it.  The handles on the file
 * are closed, so that the io worker looks at its size again and, once
 * writes come, allocates ahead from there.  With once, one sync makes it
 * durable (ckpt_commit).
 */
static void
flush_file(PagerFile *file, bool once)
{
	PagerFileSlot *fs = pager_slot(file);

	pager_checkpoint_slot((int) (fs - pager_shared->files), false, false,
						  once, NULL);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	io_truncate_file(fs->path, (uint64) fs->nphys * ART_PAGE_SIZE);
	LWLockRelease(&fs->lock);
	io_forget_file(fs->path);
}

/*
 * flush_file, the meta page written only once every page it names is
 * durable: for a file that something durable may name already (an adopted
 * one) as for any other.
 */
void
pager_flush_file(PagerFile *file)
{
	flush_file(file, false);
}

/*
 * flush_file, for a file that nothing durable names until the caller's
 * transaction commits, after this returns (a build's): one sync for its
 * pages, map and meta page alike.  A crash before that sync ends leaves
 * a file that no index names, whatever its meta page holds, which the
 * sweep removes.
 */
void
pager_flush_new_file(PagerFile *file)
{
	flush_file(file, true);
}

/*
 * Whether a checkpoint may claim every change logged before the position
 * it begins at: not before artrie's recovery is done, nor while
 * PostgreSQL's redo has not yet replayed up to the checkpoint record it
 * started from (the replay position then lies past records still to be
 * replayed).
 */
static bool
ckpt_allowed(void)
{
	return pager_shared->ready &&
		!(RecoveryInProgress() && pager_redo_now() <= pager_shared->ckpt_barrier);
}

/*
 * Close files that nobody holds, least recently used first, for processes
 * that found every file slot taken: a sixteenth of the slots, at least
 * one, trying every idle file until that many are closed (a file being
 * checkpointed or written to is passed over).  A file with changes is
 * checkpointed first where checkpoints may run.  Then tell the waiting
 * processes how many slots were freed.
 */
void
pager_close_idle_files(void)
{
	int			want = Max(pager_shared->max_files / 16, 1);
	int		   *slots = palloc(sizeof(int) * pager_shared->max_files);
	int			n = pager_idle_slots(slots, pager_shared->max_files);
	int			closed = 0;

	for (int i = 0; i < n && closed < want; i++)
	{
		if (pager_shared->files[slots[i]].changed && ckpt_allowed())
			pager_checkpoint_slot(slots[i], false, true, false, NULL);
		if (pager_close_slot(slots[i]))
			closed++;
	}
	pfree(slots);
	pager_slots_closed(closed, n - closed);
}

/*
 * Where recovery must start after a pass of checkpoints that began at
 * redo (with stamped, one that vouched for every file): where the oldest
 * change not yet durable may be, and no later than where any file is
 * current (its last checkpoint, or later where the vouch list has it
 * unchanged since), so that a file current only from before it is always
 * a copy from earlier (wal_recovery.c).  That is the oldest open file's
 * position (its checkpoint was skipped, or it changed since, or it had no
 * change and was not vouched for), at most where the last pass that
 * vouched for every file began (no closed file is current only from
 * earlier), else redo, since every later change logs its record after
 * that.  A file
 * being loaded may be older still: recovery's start then stays where it
 * was.
 */
static XLogRecPtr
ckpt_replay_from(XLogRecPtr redo, bool stamped)
{
	if (stamped)
		pager_shared->stamped_from = redo;
	redo = Min(redo, pager_shared->stamped_from);
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (fs->in_use && fs->loaded)
		{
			LWLockAcquire(&fs->lock, LW_SHARED);
			redo = Min(redo, Max(fs->redo_lsn, fs->vouched_at));
			LWLockRelease(&fs->lock);
		}
		else if (fs->in_use)
			redo = Min(redo, pager_replay_from());
	}
	return redo;
}

/*
 * What the io worker's last pass after PostgreSQL's redo pointer moved
 * (a pass with restamp) left undone, for pager_checkpoint_retry: the open
 * files it skipped because another checkpoint of theirs was under way
 * (ckpt_missed, by slot), or the whole pass (ckpt_missed_all: it could not
 * list files because a backend's pass was listing them, or it failed).
 * Until they are done, a base backup that started at that redo pointer
 * has no image or unchanged record of those files after its start, and
 * its restore would refuse them.  Only the io worker uses these.
 */
static bool *ckpt_missed = NULL;
static bool ckpt_missed_any = false;
static bool ckpt_missed_all = false;

/*
 * Checkpoint every open file, then tell the checkpoint hook where the WAL
 * that recovery would need now begins.  With restamp, also vouch for the
 * files without changes, so that every open file is current past
 * PostgreSQL's current redo pointer (a base backup starting there can
 * then use them, and recovery's start may pass their last checkpoint),
 * and first every closed file (pager_restamp_closed_files), for the same
 * reason: each is logged as unchanged and listed in the vouch list, which
 * is written once for them all (pager_vouch.c).  In the io worker, what
 * such a pass leaves undone is kept for pager_checkpoint_retry.
 */
void
pager_checkpoint(bool restamp)
{
	XLogRecPtr	redo;
	volatile bool listing = false;
	volatile bool listed = false;
	bool		track = restamp && io_in_worker();

	pager_backend_ready();
	pg_atomic_write_u32(&pager_shared->ckpt_requested, 0);
	redo = pager_redo_now();

	if (track)
	{
		if (ckpt_missed == NULL)
			ckpt_missed = MemoryContextAlloc(TopMemoryContext,
											 sizeof(bool) * pager_shared->max_files);
		memset(ckpt_missed, 0, sizeof(bool) * pager_shared->max_files);
		ckpt_missed_any = false;
		ckpt_missed_all = true;
	}
	if (!ckpt_allowed())
		return;
	PG_TRY();
	{
		listing = restamp && pager_vouch_begin(io_in_worker());
		if (listing)
			pager_restamp_closed_files(RecoveryInProgress() ? NULL :
									   pager_hooks.file_unchanged);
		for (int i = 0; i < pager_shared->max_files; i++)
		{
			bool		busy = false;

			if (pager_shared->files[i].in_use && pager_shared->files[i].loaded)
				pager_checkpoint_slot(i, listing, io_in_worker(), false, &busy);
			if (busy && track)
				ckpt_missed_any = ckpt_missed[i] = true;
		}
		if (listing && pager_vouch_active())
		{
			pager_vouch_commit();
			listed = true;
		}
	}
	PG_FINALLY();
	{
		pager_vouch_end();
	}
	PG_END_TRY();

	if (track)
		ckpt_missed_all = !listed;
	redo = ckpt_replay_from(redo, listed);
	if (pager_hooks.checkpoint_done)
		pager_hooks.checkpoint_done(redo);
}

/*
 * Whether the io worker's last pass after a redo pointer move left
 * something undone (pager_checkpoint_retry).
 */
bool
pager_checkpoint_pending(void)
{
	return ckpt_missed_all || ckpt_missed_any;
}

/*
 * The io worker tries again what its last pass after a redo pointer move
 * left undone: the whole pass, or each file it skipped (checkpointed even
 * without changes, so that an unchanged one gets its unchanged record and
 * a new stamp); then the checkpoint hook hears where recovery would now
 * begin.  A file skipped again stays for the next try.
 */
void
pager_checkpoint_retry(void)
{
	XLogRecPtr	redo;
	bool		any = false;

	Assert(io_in_worker());
	if (ckpt_missed_all)
	{
		pager_checkpoint(true);
		return;
	}
	if (!ckpt_missed_any || !ckpt_allowed())
		return;
	redo = pager_redo_now();
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		bool		busy = false;

		if (!ckpt_missed[i])
			continue;
		if (pager_shared->files[i].in_use && pager_shared->files[i].loaded)
			pager_checkpoint_slot(i, true, true, false, &busy);
		ckpt_missed[i] = busy;
		any |= busy;
	}
	ckpt_missed_any = any;
	redo = ckpt_replay_from(redo, false);
	if (pager_hooks.checkpoint_done)
		pager_hooks.checkpoint_done(redo);
}

/* How often the last checkpoint tries each file, 200 ms apart. */
#define CKPT_FINAL_TRIES	5

/*
 * One try of the io worker's last checkpoint of a file: whether it made a
 * checkpoint durable.  An ERROR is logged and the try's state let go.
 */
static bool
ckpt_final_try(int slot)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile bool done = false;

	PG_TRY();
	{
		done = pager_checkpoint_slot(slot, true, true, false, NULL);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		EmitErrorReport();
		FlushErrorState();
		LWLockReleaseAll();
		ConditionVariableCancelSleep();
		pager_release_all();
	}
	PG_END_TRY();
	return done;
}

/*
 * The io worker's last checkpoint, at shutdown: every open file, each
 * tried again a few times if it fails or is busy.  With complete (no
 * process that could change a file is left), an UNLOGGED index's file
 * whose checkpoint succeeded loses its in-use mark, so that the next start
 * serves it (pager_use_unlogged); a file whose checkpoint failed keeps it
 * and is refused.  Then the WAL layer hears where recovery would start.
 */
void
pager_checkpoint_final(bool complete)
{
	XLogRecPtr	redo;
	int			failed = 0;
	bool	   *done;
	volatile bool listing = false;

	pager_backend_ready();
	pg_atomic_write_u32(&pager_shared->ckpt_requested, 0);
	redo = pager_redo_now();
	if (!ckpt_allowed())
		return;
	done = palloc0(sizeof(bool) * pager_shared->max_files);
	PG_TRY();
	{
		listing = pager_vouch_begin(true);
		if (listing)
			pager_restamp_closed_files(RecoveryInProgress() ? NULL :
									   pager_hooks.file_unchanged);
		for (int i = 0; i < pager_shared->max_files; i++)
		{
			PagerFileSlot *fs = &pager_shared->files[i];

			if (!fs->in_use || !fs->loaded)
				continue;
			for (int tries = 0; !done[i] && tries < CKPT_FINAL_TRIES; tries++)
			{
				if (tries > 0)
					io_wait(NULL, 200);
				done[i] = ckpt_final_try(i);
			}
		}
		if (listing)
			pager_vouch_commit();
	}
	PG_FINALLY();
	{
		pager_vouch_end();
	}
	PG_END_TRY();

	/* The files listed are current only once the list is durable. */
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (!fs->in_use || !fs->loaded)
			continue;
		if (!done[i])
		{
			failed++;
			ereport(WARNING,
					(errmsg("artrie could not checkpoint file \"%s\" of index \"%s\" at shutdown",
							fs->path, fs->relname),
					 fs->inuse_marked ?
					 errdetail("The index is UNLOGGED: it will be refused until REINDEX.") :
					 errdetail("The WAL will bring the file up to date at the next start.")));
			continue;
		}
		if (complete && fs->inuse_marked &&
			LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		{
			if (fs->in_use && fs->loaded && !fs->changed)
				pager_inuse_unmark(fs);
			LWLockRelease(&fs->ckpt_lock);
		}
	}
	pfree(done);

	redo = ckpt_replay_from(redo, listing);
	if (pager_hooks.checkpoint_done)
		pager_hooks.checkpoint_done(redo);
	if (failed > 0)
		ereport(LOG,
				(errmsg("artrie's last checkpoint left %d files unwritten", failed)));
}

/* In the io worker, once backends may connect. */
void
pager_connections_allowed(void)
{
	if (pager_hooks.connections_allowed)
		pager_hooks.connections_allowed();
}
