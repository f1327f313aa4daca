/*-------------------------------------------------------------------------
 *
 * pager_build.c
 *	  The page store of a bulk load: new pages in frames the loading
 *	  backend owns, written straight to the file, outside the page table.
 *
 * A bulk load writes each new page once and lets it go (src/trie's
 * trie_bulk.c).  So its pages need none of the pool's machinery: no page
 * table entry, content lock, dirty flag or checkpoint write.  The build
 * store gives the trie each new page in a scratch frame of its own (a
 * frame of the shared pool, pinned and in no page table entry, because
 * under io_uring the io worker moves the bytes and needs them in shared
 * memory) and keeps it until the trie lets it go; once a batch of the
 * ring's size is let go, it writes the batch to fresh physical pages, as
 * an eviction writes a page (a new write stamp, inside the file's write
 * gate, the page map pointed at the page only after the write), and
 * reuses the frames.  The batch is written while the load goes on: the
 * build waits for it only once the next batch is ready, then points the
 * page map at its pages.  Pages the build store did not create (the
 * tries' root pages, which the load rewrites at its end) go through the
 * pool as usual, and every other operation is the pool's.
 *
 * The write gate is held while a batch's pages get their physical pages
 * and while the map is pointed at them, not while they are written (an
 * LWLock would hold off a cancel for the whole load): a checkpoint of the
 * file during the load (the io worker's) finds the written pages in the
 * page map like evicted ones, and both the held ones and those being
 * written allocated and not yet in the map (the latter's physical pages
 * are "current", so its snapshot keeps them from reuse).
 *
 * For an index whose image goes to the WAL, the build keeps a copy of
 * each page's body as it writes it, in runs laid out as the image's
 * records take them, up to a quarter of maintenance_work_mem.  Once the
 * load has ended, pager_build_finish makes the file durable and logs its
 * image from those copies, reading back from the file (and checking) only
 * the pages it has no copy of or whose copy is no longer the page the map
 * names: so a build that fails or is cut short by a crash has logged
 * nothing, and no standby or redo makes its file.
 *
 * An ERROR gives the frames back with the transaction's pins
 * (pager_release_all), once the batch under way, if any, is written or
 * withdrawn (io_write_abandon), so that no write still reads them.
 *
 * Layer: above the pool and the space layer, beside the page store
 * (pager_store.c), whose operations it passes the rest to.  Called by
 * the SQL surface's build.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_checkpoint.h"
#include "pager/pager_file.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* A page of the load: its frame, and whether the trie let it go. */
typedef struct BuildPage
{
	ArtPageNo	pageno;
	int			frame;
	bool		done;
	uint32		phys;			/* being written: where, and its stamp */
	uint32		stamp;
} BuildPage;

#define BODY_SIZE	(ART_PAGE_SIZE - ART_PAGE_RESERVED)

/*
 * The copies of the bodies of one run of the image (logical pages
 * [r * PAGER_IMAGE_PAGES, (r + 1) * PAGER_IMAGE_PAGES)), each at its
 * page's place in the run, and the write stamp each was written with.
 */
typedef struct BuildRun
{
	uint32		kept;			/* bit i: page i of the run has its copy */
	uint32		stamps[PAGER_IMAGE_PAGES];
	char		bodies[PAGER_IMAGE_PAGES * BODY_SIZE];
} BuildRun;

/* Runs are carved from blocks of this many, advised as huge pages. */
#define BUILD_RUNS_PER_BLOCK	32

struct PagerBuild
{
	PagerFile  *file;
	ArtPageStore pool;			/* the file's ordinary page store */
	ArtPageNo	first;			/* the pages below are the pool's */
	int			batch;			/* write when this many are let go */
	BuildPage  *pages;			/* held, in the order allocated */
	int			npages;
	int			ndone;
	int			maxpages;
	int		   *spare;			/* frames written and free to reuse */
	int			nspare;

	/* the batch being written, if any */
	IoWriting  *writing;
	BuildPage  *wpages;
	int			nwriting;

	/* the copies of the bodies, for the image (image) */
	bool		image;
	BuildRun  **runs;			/* by run number; NULL where none kept */
	uint32		nruns;
	MemoryContext runcxt;		/* the runs' memory, NULL until needed */
	BuildRun   *block;			/* runs not yet handed out */
	int			nblock;
	Size		keep_left;		/* bytes of runs that may still be taken */
};

/*
 * The run of logical page pageno for its copy, or NULL when the copies
 * reached their bound.
 */
static BuildRun *
build_run(PagerBuild *b, ArtPageNo pageno)
{
	uint32		r = pageno / PAGER_IMAGE_PAGES;

	if (r >= b->nruns)
	{
		uint32		n = Max(r + 1, b->nruns * 2);

		b->runs = b->runs == NULL ? palloc0(sizeof(BuildRun *) * n) :
			repalloc(b->runs, sizeof(BuildRun *) * n);
		memset(b->runs + b->nruns, 0, sizeof(BuildRun *) * (n - b->nruns));
		b->nruns = n;
	}
	if (b->runs[r] != NULL)
		return b->runs[r];
	if (b->nblock == 0)
	{
		int			n = Min(BUILD_RUNS_PER_BLOCK, b->keep_left / sizeof(BuildRun));

		if (n == 0)
			return NULL;
		if (b->runcxt == NULL)
			b->runcxt = AllocSetContextCreate(CurrentMemoryContext,
											  "artrie build image",
											  ALLOCSET_DEFAULT_SIZES);
		b->block = MemoryContextAllocHuge(b->runcxt, sizeof(BuildRun) * n);
		pager_advise_huge(b->block, sizeof(BuildRun) * n, 0);
		b->nblock = n;
		b->keep_left -= sizeof(BuildRun) * n;
	}
	b->runs[r] = b->block++;
	b->nblock--;
	b->runs[r]->kept = 0;
	return b->runs[r];
}

/*
 * Keep a copy of the body of a page being written with stamp, if there is
 * room.
 */
static void
build_keep(PagerBuild *b, ArtPageNo pageno, const char *data, uint32 stamp)
{
	BuildRun   *run = build_run(b, pageno);
	int			i = pageno % PAGER_IMAGE_PAGES;

	if (run == NULL)
		return;
	memcpy(run->bodies + (Size) i * BODY_SIZE, data + ART_PAGE_RESERVED,
		   BODY_SIZE);
	run->stamps[i] = stamp;
	run->kept |= (uint32) 1 << i;
}

/*
 * Wait for the batch being written, point the page map at its pages, and
 * keep their frames for reuse.  A failed write gives their physical pages
 * back.
 */
static void
build_write_wait(PagerBuild *b)
{
	PagerFileSlot *fs = pager_slot(b->file);
	IoWriting  *w = b->writing;

	if (w == NULL)
		return;
	b->writing = NULL;
	PG_TRY();
	{
		io_write_finish(w);
	}
	PG_CATCH();
	{
		for (int i = 0; i < b->nwriting; i++)
			pager_phys_release(fs, b->wpages[i].phys);
		b->nwriting = 0;
		PG_RE_THROW();
	}
	PG_END_TRY();
	pager_gate_enter(b->file->slot, false);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	for (int i = 0; i < b->nwriting; i++)
		pager_map_set_locked(fs, b->wpages[i].pageno, b->wpages[i].phys,
							 b->wpages[i].stamp);
	LWLockRelease(&fs->lock);
	pager_gate_exit(b->file->slot);
	for (int i = 0; i < b->nwriting; i++)
		b->spare[b->nspare++] = b->wpages[i].frame;
	b->nwriting = 0;
}

/*
 * Begin writing every page the trie let go to fresh physical pages, once
 * the batch before is written; the pages leave the held ones.
 */
static void
build_write(PagerBuild *b)
{
	PagerFileSlot *fs = pager_slot(b->file);
	IoPage	   *io = palloc(sizeof(IoPage) * b->ndone);
	volatile int n = 0;
	int			kept = 0;

	build_write_wait(b);
	for (int i = 0; i < b->npages; i++)
	{
		if (b->pages[i].done)
			b->wpages[n++] = b->pages[i];
		else
			b->pages[kept++] = b->pages[i];
	}
	Assert(n == b->ndone);
	b->npages = kept;
	b->ndone = 0;
	b->nwriting = n;
	n = 0;

	pager_gate_enter(b->file->slot, false);
	PG_TRY();
	{
		for (; n < b->nwriting; n++)
		{
			BuildPage  *p = &b->wpages[n];
			char	   *data = pager_frame_data(p->frame);

			p->phys = pager_phys_alloc(fs, &p->stamp);
			pager_page_seal(fs, data, p->pageno, PAGER_KIND_DATA, p->stamp);
			io[n].offset = (uint64) p->phys * ART_PAGE_SIZE;
			io[n].buf = data;
		}
		b->writing = io_write_begin(fs->path, io, b->nwriting);
	}
	PG_CATCH();
	{
		for (int i = 0; i < n; i++)
			pager_phys_release(fs, b->wpages[i].phys);
		b->nwriting = 0;
		pager_gate_exit(b->file->slot);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pager_gate_exit(b->file->slot);
	pfree(io);

	/* The copies for the image, while the batch is written. */
	for (int i = 0; b->image && i < b->nwriting; i++)
		build_keep(b, b->wpages[i].pageno, pager_frame_data(b->wpages[i].frame),
				   b->wpages[i].stamp);
}

/* The held page pageno, or NULL. */
static BuildPage *
build_find(PagerBuild *b, ArtPageNo pageno)
{
	if (pageno < b->first)
		return NULL;
	for (int i = b->npages - 1; i >= 0; i--)
		if (b->pages[i].pageno == pageno)
			return &b->pages[i];
	return NULL;
}

/*
 * Wait for the batch being written if it holds pageno, which the pool is
 * about to serve: the page map names its pages only once they are written.
 */
static void
build_wait_for(PagerBuild *b, ArtPageNo pageno)
{
	if (pageno < b->first)
		return;
	for (int i = 0; i < b->nwriting; i++)
	{
		if (b->wpages[i].pageno == pageno)
		{
			build_write_wait(b);
			return;
		}
	}
}

/*
 * Fill a page reference for a held page; its handle is the frame + 1
 * (the held pages move in b->pages).
 */
static void
build_ref(BuildPage *p, ArtPageRef *ref)
{
	ref->pageno = p->pageno;
	ref->data = (uint8_t *) pager_frame_data(p->frame);
	ref->handle = (void *) (intptr_t) (p->frame + 1);
}

/*
 * ArtPageStoreOps.alloc: a zeroed page in a frame of the build's.
 */
static ArtStatus
build_alloc(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;
	BuildPage  *p;
	int			frame;
	char	   *data;

	if (b->npages == b->maxpages)
	{
		b->maxpages *= 2;
		b->pages = repalloc(b->pages, sizeof(BuildPage) * b->maxpages);
		b->wpages = repalloc(b->wpages, sizeof(BuildPage) * b->maxpages);
		b->spare = repalloc(b->spare, sizeof(int) * 2 * b->maxpages);
	}
	frame = b->nspare > 0 ? b->spare[--b->nspare] : pager_scratch_get();
	p = &b->pages[b->npages];
	p->frame = frame;
	p->done = false;
	PG_TRY();
	{
		p->pageno = pager_logical_alloc(pager_slot(b->file));
	}
	PG_CATCH();
	{
		b->spare[b->nspare++] = frame;
		PG_RE_THROW();
	}
	PG_END_TRY();
	b->npages++;
	data = pager_frame_data(frame);
	memset(data, 0, ART_PAGE_SIZE);
	((PagerPageHeader *) data)->pageno = p->pageno;
	build_ref(p, ref);
	return ART_OK;
}

/*
 * ArtPageStoreOps.pin: a held page as it is, any other through the pool.
 */
static ArtStatus
build_pin(void *store, ArtPageNo pageno, ArtLockMode mode, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;
	BuildPage  *p = build_find(b, pageno);

	if (p == NULL)
	{
		build_wait_for(b, pageno);
		return b->pool.ops->pin(b->pool.store, pageno, mode, ref);
	}
	if (p->done)
	{
		p->done = false;
		b->ndone--;
	}
	build_ref(p, ref);
	return ART_OK;
}

/* The held page ref refers to, or NULL if it is the pool's. */
static BuildPage *
build_owns(PagerBuild *b, const ArtPageRef *ref)
{
	BuildPage  *p = build_find(b, ref->pageno);

	if (p == NULL || ref->handle != (void *) (intptr_t) (p->frame + 1))
		return NULL;
	return p;
}

/*
 * ArtPageStoreOps.release: a held page is done; a batch of them is
 * written.
 */
static void
build_release(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;
	BuildPage  *p = build_owns(b, ref);

	if (p == NULL)
	{
		b->pool.ops->release(b->pool.store, ref);
		return;
	}
	p->done = true;
	b->ndone++;
	ref->data = NULL;
	ref->handle = NULL;
	if (b->ndone >= b->batch)
		build_write(b);
}

/*
 * ArtPageStoreOps.unlock: a held page has no lock to let go.
 */
static void
build_unlock(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		b->pool.ops->unlock(b->pool.store, ref);
}

/*
 * ArtPageStoreOps.relock: a held page has no lock to take.
 */
static void
build_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		b->pool.ops->relock(b->pool.store, ref, mode);
}

/*
 * ArtPageStoreOps.try_relock: a held page has no lock to take.
 */
static bool
build_try_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	return build_owns(b, ref) != NULL ||
		b->pool.ops->try_relock(b->pool.store, ref, mode);
}

/*
 * ArtPageStoreOps.mark_dirty: every held page is written once let go.
 */
static void
build_mark_dirty(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		b->pool.ops->mark_dirty(b->pool.store, ref);
}

/*
 * ArtPageStoreOps.mark_counts: as mark_dirty.
 */
static void
build_mark_counts(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		b->pool.ops->mark_counts(b->pool.store, ref);
}

/*
 * ArtPageStoreOps.changes: nobody but the build changes a held page, and
 * it does not change a page between the readings the trie compares.
 */
static uint32_t
build_changes(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		return b->pool.ops->changes(b->pool.store, ref);
	return 0;
}

/*
 * ArtPageStoreOps.free: a held page's logical page is freed and its
 * frame kept for reuse.
 */
static void
build_free(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;
	BuildPage  *p = build_owns(b, ref);
	int			k;

	if (p == NULL)
	{
		build_wait_for(b, ref->pageno);
		b->pool.ops->free(b->pool.store, ref);
		return;
	}
	k = (int) (p - b->pages);
	pager_logical_free(pager_slot(b->file), p->pageno);
	b->spare[b->nspare++] = p->frame;
	memmove(&b->pages[k], &b->pages[k + 1],
			sizeof(BuildPage) * (b->npages - k - 1));
	b->npages--;
	ref->data = NULL;
	ref->handle = NULL;
}

/* The pool's operations, with the store argument the file. */
static void *
build_mem_alloc(void *store, size_t size)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->mem_alloc(b->pool.store, size);
}

/* ArtPageStoreOps.mem_free: the pool's. */
static void
build_mem_free(void *store, void *ptr)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->mem_free(b->pool.store, ptr);
}

/* ArtPageStoreOps.write_begin: the pool's. */
static void
build_write_begin(void *store, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->write_begin(b->pool.store, mode);
}

/* ArtPageStoreOps.write_end: the pool's. */
static void
build_write_end(void *store, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->write_end(b->pool.store, mode);
}

/* ArtPageStoreOps.split_begin: the pool's. */
static void
build_split_begin(void *store, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->split_begin(b->pool.store, mode);
}

/* ArtPageStoreOps.split_end: the pool's. */
static void
build_split_end(void *store, ArtLockMode mode)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->split_end(b->pool.store, mode);
}

/* ArtPageStoreOps.passing: nobody else passes a held page. */
static void
build_passing(void *store, ArtPageRef *ref, bool on)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) == NULL)
		b->pool.ops->passing(b->pool.store, ref, on);
}

/* ArtPageStoreOps.passers: none for a held page. */
static uint32_t
build_passers(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) != NULL)
		return 0;
	return b->pool.ops->passers(b->pool.store, ref);
}

/* ArtPageStoreOps.split_mark: the pool's; nobody passes a held page. */
static void
build_split_mark(void *store, ArtPageRef *ref, bool on)
{
	PagerBuild *b = (PagerBuild *) store;

	Assert(build_owns(b, ref) == NULL);
	b->pool.ops->split_mark(b->pool.store, ref, on);
}

/* ArtPageStoreOps.split_marks: none for a held page. */
static uint32_t
build_split_marks(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	if (build_owns(b, ref) != NULL)
		return 0;
	return b->pool.ops->split_marks(b->pool.store, ref);
}

/* ArtPageStoreOps.wait_passers: the pool's, for a page it marked. */
static ArtStatus
build_wait_passers(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->wait_passers(b->pool.store, ref);
}

/* ArtPageStoreOps.wait_unmarked: the pool's, for a page the pool marked. */
static ArtStatus
build_wait_unmarked(void *store, ArtPageRef *ref)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->wait_unmarked(b->pool.store, ref);
}

/* ArtPageStoreOps.step_done: the pool's. */
static void
build_step_done(void *store)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->step_done(b->pool.store);
}

/* ArtPageStoreOps.allocated: a page of the build, or the pool's answer. */
static bool
build_allocated(void *store, ArtPageNo pageno)
{
	PagerBuild *b = (PagerBuild *) store;

	return build_find(b, pageno) != NULL ||
		b->pool.ops->allocated(b->pool.store, pageno);
}

/* ArtPageStoreOps.critical: the pool's. */
static void
build_critical(void *store, bool on)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->critical(b->pool.store, on);
}

/* ArtPageStoreOps.version: the pool's. */
static uint64_t
build_version(void *store, bool bump)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->version(b->pool.store, bump);
}

/* ArtPageStoreOps.pins_era: the pool's. */
static uint64_t
build_pins_era(void *store)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->pins_era(b->pool.store);
}

/* ArtPageStoreOps.groups_add: the pool's. */
static void
build_groups_add(void *store, int64_t delta)
{
	PagerBuild *b = (PagerBuild *) store;

	b->pool.ops->groups_add(b->pool.store, delta);
}

/* ArtPageStoreOps.groups: the pool's. */
static uint64_t
build_groups(void *store)
{
	PagerBuild *b = (PagerBuild *) store;

	return b->pool.ops->groups(b->pool.store);
}

static const ArtPageStoreOps build_store_ops = {
	.pin = build_pin,
	.release = build_release,
	.unlock = build_unlock,
	.relock = build_relock,
	.try_relock = build_try_relock,
	.mark_dirty = build_mark_dirty,
	.alloc = build_alloc,
	.free = build_free,
	.mem_alloc = build_mem_alloc,
	.mem_free = build_mem_free,
	.write_begin = build_write_begin,
	.write_end = build_write_end,
	.split_begin = build_split_begin,
	.split_end = build_split_end,
	.passing = build_passing,
	.passers = build_passers,
	.split_mark = build_split_mark,
	.split_marks = build_split_marks,
	.wait_passers = build_wait_passers,
	.wait_unmarked = build_wait_unmarked,
	.step_done = build_step_done,
	.allocated = build_allocated,
	.critical = build_critical,
	.version = build_version,
	.groups_add = build_groups_add,
	.groups = build_groups,
	.changes = build_changes,
	.mark_counts = build_mark_counts,
	.pins_era = build_pins_era,
};

/*
 * Begin a bulk load of file, which nobody else knows yet; with image, its
 * image is to be logged (pager_build_finish).
 */
PagerBuild *
pager_build_begin(PagerFile *file, bool image)
{
	PagerBuild *b = palloc0(sizeof(PagerBuild));

	b->file = file;
	b->pool = pager_page_store(file);
	b->first = pager_file_nlogical(file);
	b->batch = Max(Min(io_batch_size(), pager_shared->nframes / 16), 1);
	b->maxpages = b->batch * 2;
	b->pages = palloc(sizeof(BuildPage) * b->maxpages);
	b->spare = palloc(sizeof(int) * 2 * b->maxpages);
	b->wpages = palloc(sizeof(BuildPage) * b->maxpages);
	b->image = image;
	b->keep_left = (Size) maintenance_work_mem * 1024 / 4;
	return b;
}

/* The build as a page store for the trie. */
ArtPageStore
pager_build_store(PagerBuild *b)
{
	ArtPageStore store;

	store.ops = &build_store_ops;
	store.store = b;
	return store;
}

/*
 * End the load: write the pages left, wait for them, and give the frames
 * back.  The caller then calls pager_build_finish.
 */
void
pager_build_end(PagerBuild *b)
{
	if (b->npages > b->ndone)
		elog(ERROR, "artrie: the load of file \"%s\" left %d pages pinned",
			 pager_slot(b->file)->path, b->npages - b->ndone);
	if (b->ndone > 0)
		build_write(b);
	build_write_wait(b);
	while (b->nspare > 0)
		pager_scratch_put(b->spare[--b->nspare]);
}

/*
 * Log the image of the built file through log, in runs of
 * PAGER_IMAGE_PAGES logical pages, each run's bodies one after another
 * (nobody else knows the file, so its pages hold still): a page's body
 * from its copy when the page map still names the write the copy was
 * taken from, else read back from the file by the page map, in batches of
 * up to an eighth of the pool's frames, and checked.  A run with copies
 * is packed in place: its bodies only move towards its start.
 */
static void
build_log_image(PagerBuild *b, PagerImageLog log)
{
	PagerFileSlot *fs = pager_slot(b->file);
	uint32		nlogical = pager_file_nlogical(b->file);
	char	   *spare_bodies = palloc((Size) PAGER_IMAGE_PAGES * BODY_SIZE);
	uint32	   *freelist = palloc_extended(sizeof(uint32) * Max(nlogical, 1),
										   MCXT_ALLOC_HUGE);
	uint32		user[PAGER_USER_WORDS];
	int			frames[PAGER_IMAGE_PAGES];
	int			nframes = Max(Min(PAGER_IMAGE_PAGES, pager_shared->nframes / 8), 1);
	PagerImage	img;
	uint32		first = 0;

	memset(&img, 0, sizeof(img));
	img.id = fs->id;
	img.user = user;
	img.freelist = freelist;
	for (int w = 0; w < PAGER_USER_WORDS; w++)
		user[w] = pager_get_user_word(b->file, w);
	for (int i = 0; i < nframes; i++)
		frames[i] = pager_scratch_get();
	do
	{
		IoPage		pages[PAGER_IMAGE_PAGES];
		uint32		pagenos[PAGER_IMAGE_PAGES];
		uint32		stamps[PAGER_IMAGE_PAGES];
		int			slots[PAGER_IMAGE_PAGES];
		uint32		npages = Min(PAGER_IMAGE_PAGES, nlogical - first);
		uint32		r = first / PAGER_IMAGE_PAGES;
		BuildRun   *run = r < b->nruns ? b->runs[r] : NULL;
		char	   *bodies = run ? run->bodies : spare_bodies;
		int			nbodies = 0;
		int			n = 0;

		CHECK_FOR_INTERRUPTS();
		img.used = 0;
		for (uint32 i = 0; i < npages; i++)
		{
			uint32		stamp;
			uint32		phys = pager_map_get(fs, first + i, &stamp);
			int			slot;

			if (phys == PAGER_PHYS_FREE)
				freelist[img.nfree++] = first + i;
			if (!phys_real(phys))
				continue;
			img.used |= (uint32) 1 << i;
			slot = nbodies++;
			if (run && (run->kept & ((uint32) 1 << i)) &&
				run->stamps[i] == stamp)
			{
				if (slot != (int) i)
					memmove(bodies + (Size) slot * BODY_SIZE,
							bodies + (Size) i * BODY_SIZE, BODY_SIZE);
				continue;
			}
			pages[n].offset = (uint64) phys * ART_PAGE_SIZE;
			pages[n].buf = pager_frame_data(frames[n]);
			pagenos[n] = first + i;
			stamps[n] = stamp;
			slots[n] = slot;
			if (++n == nframes)
			{
				pager_image_read(fs, pages, pagenos, stamps, slots, n, bodies);
				n = 0;
			}
		}
		if (n > 0)
			pager_image_read(fs, pages, pagenos, stamps, slots, n, bodies);
		img.bodies = bodies;
		img.first = first == 0;
		img.last = first + npages >= nlogical;
		img.firstpage = first;
		img.npages = npages;
		log(&img);
		first += npages;
	} while (first < nlogical);
	for (int i = nframes - 1; i >= 0; i--)
		pager_scratch_put(frames[i]);
	pfree(freelist);
	pfree(spare_bodies);
}

/*
 * Make the built file durable (pager_flush_new_file: nothing durable names
 * it before the build's transaction commits) and, with log, log its image
 * through log (the WAL layer's); then free the build.
 */
void
pager_build_finish(PagerBuild *b, PagerImageLog log)
{
	pager_flush_new_file(b->file);
	if (log != NULL)
		build_log_image(b, log);
	if (b->runcxt != NULL)
		MemoryContextDelete(b->runcxt);
	if (b->runs != NULL)
		pfree(b->runs);
	pfree(b->spare);
	pfree(b->wpages);
	pfree(b->pages);
	pfree(b);
}
