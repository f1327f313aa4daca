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
 * reuses the frames.  Pages the build store did not create (the tries'
 * root pages, which the load rewrites at its end) go through the pool as
 * usual, and every other operation is the pool's.
 *
 * A checkpoint of the file during the load (the io worker's) finds the
 * written pages in the page map like evicted ones, and the held ones
 * allocated and never written.  Once the load has ended and the caller
 * has made the file durable, pager_log_built_file logs its image for the
 * WAL layer, reading the pages back from the file in runs, as a
 * checkpoint's image is read: so a build that fails or is cut short by
 * a crash has logged nothing, and no standby or redo makes its file.
 *
 * An ERROR gives the frames back with the transaction's pins
 * (pager_release_all).
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

/* A page of the load: its frame, and whether the trie let it go. */
typedef struct BuildPage
{
	ArtPageNo	pageno;
	int			frame;
	bool		done;
} BuildPage;

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
};

#define BODY_SIZE	(ART_PAGE_SIZE - ART_PAGE_RESERVED)

/*
 * Write every page the trie let go to fresh physical pages, point the
 * page map at them, and keep their frames for reuse.
 */
static void
build_write(PagerBuild *b)
{
	PagerFileSlot *fs = pager_slot(b->file);
	IoPage	   *io = palloc(sizeof(IoPage) * b->ndone);
	uint32	   *phys = palloc(sizeof(uint32) * b->ndone);
	uint32	   *stamp = palloc(sizeof(uint32) * b->ndone);
	volatile int n = 0;
	int			kept = 0;

	pager_gate_enter(b->file->slot, false);
	PG_TRY();
	{
		for (int i = 0; i < b->npages; i++)
		{
			BuildPage  *p = &b->pages[i];
			char	   *data;

			if (!p->done)
				continue;
			data = pager_frame_data(p->frame);
			phys[n] = pager_phys_alloc(fs, &stamp[n]);
			n++;
			pager_page_seal(fs, data, p->pageno, PAGER_KIND_DATA, stamp[n - 1]);
			io[n - 1].offset = (uint64) phys[n - 1] * ART_PAGE_SIZE;
			io[n - 1].buf = data;
		}
		io_write_pages(fs->path, io, n);
	}
	PG_CATCH();
	{
		for (int i = 0; i < n; i++)
			pager_phys_release(fs, phys[i]);
		pager_gate_exit(b->file->slot);
		PG_RE_THROW();
	}
	PG_END_TRY();
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	n = 0;
	for (int i = 0; i < b->npages; i++)
	{
		if (!b->pages[i].done)
			continue;
		pager_map_set_locked(fs, b->pages[i].pageno, phys[n], stamp[n]);
		n++;
	}
	LWLockRelease(&fs->lock);
	pager_gate_exit(b->file->slot);

	/* Keep the held pages; the written ones' frames are spare. */
	for (int i = 0; i < b->npages; i++)
	{
		if (b->pages[i].done)
			b->spare[b->nspare++] = b->pages[i].frame;
		else
			b->pages[kept++] = b->pages[i];
	}
	b->npages = kept;
	b->ndone = 0;
	pfree(stamp);
	pfree(phys);
	pfree(io);
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
		b->spare = repalloc(b->spare, sizeof(int) * b->maxpages);
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
		return b->pool.ops->pin(b->pool.store, pageno, mode, ref);
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
	.step_done = build_step_done,
	.allocated = build_allocated,
	.critical = build_critical,
	.version = build_version,
	.groups_add = build_groups_add,
	.groups = build_groups,
};

/*
 * Begin a bulk load of file, which nobody else knows yet.
 */
PagerBuild *
pager_build_begin(PagerFile *file)
{
	PagerBuild *b = palloc0(sizeof(PagerBuild));

	b->file = file;
	b->pool = pager_page_store(file);
	b->first = pager_file_nlogical(file);
	b->batch = Max(Min(io_batch_size(), pager_shared->nframes / 8), 1);
	b->maxpages = b->batch * 2;
	b->pages = palloc(sizeof(BuildPage) * b->maxpages);
	b->spare = palloc(sizeof(int) * b->maxpages);
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
 * End the load: write the pages left and give the frames back.  The
 * caller then makes the file durable (pager_flush_file).
 */
void
pager_build_end(PagerBuild *b)
{
	if (b->npages > b->ndone)
		elog(ERROR, "artrie: the load of file \"%s\" left %d pages pinned",
			 pager_slot(b->file)->path, b->npages - b->ndone);
	if (b->ndone > 0)
		build_write(b);
	while (b->nspare > 0)
		pager_scratch_put(b->spare[--b->nspare]);
	pfree(b->spare);
	pfree(b->pages);
	pfree(b);
}

/*
 * Log the image of a file just built and made durable, through log, in
 * runs of PAGER_IMAGE_PAGES logical pages: each run's pages read back from
 * the file by the page map in batches of up to an eighth of the pool's
 * frames and checked, as a checkpoint's image is (nobody else knows the
 * file, so its pages hold still).
 */
void
pager_log_built_file(PagerFile *file, PagerImageLog log)
{
	PagerFileSlot *fs = pager_slot(file);
	uint32		nlogical = pager_file_nlogical(file);
	char	   *bodies = palloc((Size) PAGER_IMAGE_PAGES * BODY_SIZE);
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
	img.bodies = bodies;
	for (int w = 0; w < PAGER_USER_WORDS; w++)
		user[w] = pager_get_user_word(file, w);
	for (int i = 0; i < nframes; i++)
		frames[i] = pager_scratch_get();
	do
	{
		IoPage		pages[PAGER_IMAGE_PAGES];
		uint32		pagenos[PAGER_IMAGE_PAGES];
		uint32		stamps[PAGER_IMAGE_PAGES];
		int			slots[PAGER_IMAGE_PAGES];
		uint32		npages = Min(PAGER_IMAGE_PAGES, nlogical - first);
		int			nbodies = 0;
		int			n = 0;

		CHECK_FOR_INTERRUPTS();
		img.used = 0;
		for (uint32 i = 0; i < npages; i++)
		{
			uint32		phys = pager_map_get(fs, first + i, &stamps[n]);

			if (phys == PAGER_PHYS_FREE)
				freelist[img.nfree++] = first + i;
			if (!phys_real(phys))
				continue;
			img.used |= (uint32) 1 << i;
			pages[n].offset = (uint64) phys * ART_PAGE_SIZE;
			pages[n].buf = pager_frame_data(frames[n]);
			pagenos[n] = first + i;
			slots[n] = nbodies++;
			if (++n == nframes)
			{
				pager_image_read(fs, pages, pagenos, stamps, slots, n, bodies);
				n = 0;
			}
		}
		if (n > 0)
			pager_image_read(fs, pages, pagenos, stamps, slots, n, bodies);
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
	pfree(bodies);
}
