/*-------------------------------------------------------------------------
 *
 * pager_space.c
 *	  Space: each open file's page map and bitmaps over physical pages,
 *	  and the allocation of logical and physical pages.
 *
 * A file slot's page map (logical -> physical) and its two bitmaps over
 * physical pages ("durable" and "current", see pager_internal.h) live in
 * dynamic shared memory because they grow with the file.  This layer
 * keeps that bookkeeping and nothing else: it does no I/O and knows
 * nothing of the pool.
 *
 * Layer: the bottom of the pager's shared state; it calls nothing else in
 * the pager.  Called by the pool (evictions), the file table (loading),
 * the page store (allocating pages) and checkpoints (pager_space.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_space.h"

#include "utils/memutils.h"
#include "utils/resowner.h"

static dsa_area *my_dsa = NULL;

/*
 * This process's attachment to the page maps' dynamic shared memory, for
 * the whole session (no resource owner: mappings must outlive queries).
 */
dsa_area *
pager_dsa(void)
{
	if (my_dsa == NULL)
	{
		ResourceOwner save = CurrentResourceOwner;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		CurrentResourceOwner = NULL;
		my_dsa = dsa_attach_in_place(pager_shared->dsa_place, NULL);
		dsa_pin_mapping(my_dsa);
		CurrentResourceOwner = save;
		MemoryContextSwitchTo(old);
	}
	return my_dsa;
}

/*
 * Raise the ERROR for a corrupted page.
 */
void
pager_corrupt(PagerFileSlot *fs, uint32 pageno, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("index \"%s\" is corrupted: page %u of file \"%s\"",
					fs->relname, pageno, fs->path),
			 errdetail("%s", detail),
			 errhint("REINDEX the index.")));
}

/*
 * Replace a dsa array by a zeroed larger one holding the old contents.
 */
static dsa_pointer
dsa_grow(dsa_pointer old, Size oldsize, Size newsize)
{
	dsa_area   *area = pager_dsa();
	dsa_pointer p = dsa_allocate_extended(area, newsize, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);

	if (DsaPointerIsValid(old))
	{
		memcpy(dsa_get_address(area, p), dsa_get_address(area, old), oldsize);
		dsa_free(area, old);
	}
	return p;
}

/*
 * Make the page map hold n entries.
 */
void
pager_map_reserve(PagerFileSlot *fs, uint32 n)
{
	uint32		cap;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	if (n <= fs->map_cap)
		return;
	cap = Max(Max(n, 1024), fs->map_cap * 2);
	fs->map = dsa_grow(fs->map, (Size) fs->map_cap * sizeof(uint32),
					   (Size) cap * sizeof(uint32));
	fs->stamps = dsa_grow(fs->stamps, (Size) fs->map_cap * sizeof(uint32),
						  (Size) cap * sizeof(uint32));
	fs->map_cap = cap;
}

/*
 * Make the bitmaps cover n physical pages.
 */
void
pager_phys_reserve(PagerFileSlot *fs, uint32 n)
{
	uint32		cap;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	if (n <= fs->phys_cap)
		return;
	cap = TYPEALIGN(64, Max(Max(n, 8192), fs->phys_cap * 2));
	fs->durable = dsa_grow(fs->durable, fs->phys_cap / 8, cap / 8);
	fs->current = dsa_grow(fs->current, fs->phys_cap / 8, cap / 8);
	fs->phys_cap = cap;
}

/*
 * A physical page in neither bitmap; the caller marks it.
 */
uint32
pager_phys_find_free(PagerFileSlot *fs)
{
	uint8	   *d;
	uint8	   *c;
	uint32		p = Max(fs->phys_hint, PAGER_FIRST_DATA_PHYS);

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	if (fs->nphys > 0 && fs->phys_cap >= fs->nphys)
	{
		d = durable_of(fs);
		c = current_of(fs);
		while (p < fs->nphys)
		{
			if ((p % 8) == 0 && (d[p / 8] | c[p / 8]) == 0xFF)
			{
				p += 8;
				continue;
			}
			if (!bit_get(d, p) && !bit_get(c, p))
			{
				fs->phys_hint = p + 1;
				return p;
			}
			p++;
		}
	}
	if (fs->nphys == PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("artrie file \"%s\" is full", fs->path)));
	pager_phys_reserve(fs, fs->nphys + 1);
	p = fs->nphys++;
	fs->phys_hint = fs->nphys;
	return p;
}

/*
 * A fresh physical page for a data page, marked "current", and the write
 * stamp to seal the page with.
 */
uint32
pager_phys_alloc(PagerFileSlot *fs, uint32 *stamp)
{
	uint32		p;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	p = pager_phys_find_free(fs);
	bit_set(current_of(fs), p);
	*stamp = ++fs->write_stamp;
	LWLockRelease(&fs->lock);
	return p;
}

/*
 * Give back a physical page allocated but not used.
 */
void
pager_phys_release(PagerFileSlot *fs, uint32 phys)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	bit_clear(current_of(fs), phys);
	if (phys < fs->phys_hint)
		fs->phys_hint = phys;
	LWLockRelease(&fs->lock);
}

/*
 * Point a logical page at a physical one written with a write stamp; its
 * former physical page is no longer "current".
 */
void
pager_map_set_locked(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys, uint32 stamp)
{
	uint32	   *map;
	uint32		old;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	map = map_of(fs);
	old = map[pageno];
	map[pageno] = phys;
	stamps_of(fs)[pageno] = stamp;
	if (phys_real(old) && old != phys)
	{
		bit_clear(current_of(fs), old);
		if (old < fs->phys_hint)
			fs->phys_hint = old;
	}
	fs->changed = true;
}

/*
 * Point a logical page at a physical page just written with a stamp.
 */
void
pager_map_set(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys, uint32 stamp)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	pager_map_set_locked(fs, pageno, phys, stamp);
	LWLockRelease(&fs->lock);
}

/*
 * Where a logical page lives, and (if stamp is not NULL) the write stamp
 * it must carry there.
 */
uint32
pager_map_get(PagerFileSlot *fs, ArtPageNo pageno, uint32 *stamp)
{
	uint32		phys = PAGER_PHYS_FREE;

	LWLockAcquire(&fs->lock, LW_SHARED);
	if (pageno < fs->nlogical)
	{
		phys = map_of(fs)[pageno];
		if (stamp)
			*stamp = stamps_of(fs)[pageno];
	}
	LWLockRelease(&fs->lock);
	return phys;
}

/*
 * A free logical page number, or a new one past the end.
 */
ArtPageNo
pager_logical_alloc(PagerFileSlot *fs)
{
	uint32	   *map;
	ArtPageNo	l;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	map = fs->map_cap > 0 ? map_of(fs) : NULL;
	for (l = fs->free_hint; l < fs->nlogical; l++)
	{
		if (map[l] == PAGER_PHYS_FREE)
			break;
	}
	if (l >= fs->nlogical)
	{
		if (fs->nlogical >= PAGER_MAX_MAP_PAGES * PAGER_MAP_PER_PAGE)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("index \"%s\" cannot grow past %u pages",
							fs->relname, (uint32) (PAGER_MAX_MAP_PAGES * PAGER_MAP_PER_PAGE))));
		pager_map_reserve(fs, fs->nlogical + 1);
		map = map_of(fs);
		l = fs->nlogical++;
	}
	map[l] = PAGER_PHYS_NONE;
	stamps_of(fs)[l] = 0;
	fs->nused++;
	fs->free_hint = l + 1;
	fs->changed = true;
	LWLockRelease(&fs->lock);
	return l;
}

/*
 * Free a logical page.
 */
void
pager_logical_free(PagerFileSlot *fs, ArtPageNo pageno)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	pager_map_set_locked(fs, pageno, PAGER_PHYS_FREE, 0);
	fs->nused--;
	if (pageno < fs->free_hint)
		fs->free_hint = pageno;
	LWLockRelease(&fs->lock);
}
