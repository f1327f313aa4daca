/*-------------------------------------------------------------------------
 *
 * pager_space.c
 *	  Space: each open file's bitmaps over physical pages, and the
 *	  allocation of logical and physical pages.
 *
 * A file slot's two bitmaps over physical pages ("durable" and
 * "current", see pager_internal.h) live in dynamic shared memory, like
 * its page map (pager_map.c), because they grow with the file.  This
 * layer keeps that bookkeeping and nothing else: it does no I/O and knows
 * nothing of the pool.
 *
 * Layer: above the page map (pager_map.h), which it changes as pages are
 * allocated, written and freed.  Called by the pool (evictions), the file
 * table (loading), the page store (allocating pages) and checkpoints
 * (pager_space.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_space.h"

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
 * Make the bitmaps cover n physical pages.
 */
void
pager_phys_reserve(PagerFileSlot *fs, uint32 n)
{
	uint64		cap;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	Assert(n <= PAGER_MAX_PHYS);
	if (n <= fs->phys_cap)
		return;
	cap = TYPEALIGN(64, Max(Max((uint64) n, 8192), (uint64) fs->phys_cap * 2));
	cap = Min(cap, PAGER_MAX_PHYS);
	fs->durable = pager_dsa_grow(fs->durable, fs->phys_cap / 8, cap / 8);
	fs->current = pager_dsa_grow(fs->current, fs->phys_cap / 8, cap / 8);
	fs->phys_cap = (uint32) cap;
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
	if (fs->nphys >= PAGER_MAX_PHYS)
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
	uint32		old;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	old = pager_map_put(fs, pageno, phys, stamp);

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
		phys = pager_map_entry(fs, pageno, stamp);
	LWLockRelease(&fs->lock);
	return phys;
}

/*
 * A free logical page number, or a new one past the end.
 */
ArtPageNo
pager_logical_alloc(PagerFileSlot *fs)
{
	uint32		limit = pager_max_logical(fs->fanout);
	ArtPageNo	l;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	for (l = fs->free_hint; l < fs->nlogical; l++)
	{
		if (pager_map_entry(fs, l, NULL) == PAGER_PHYS_FREE)
			break;
	}
	if (l >= fs->nlogical)
	{
		if (fs->nlogical >= limit)
		{
			LWLockRelease(&fs->lock);
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("index \"%s\" cannot grow past %u pages (%llu MB)",
							fs->relname, limit,
							(unsigned long long) ((uint64) limit * ART_PAGE_SIZE / (1024 * 1024))),
					 errdetail("Its page map has %u directory pages of %u map pages of %u pages each.",
							   (uint32) PAGER_MAX_DIR_PAGES, fs->fanout, fs->fanout)));
		}
		pager_map_reserve(fs, fs->nlogical + 1);
		l = fs->nlogical++;
	}
	pager_map_put(fs, l, PAGER_PHYS_NONE, 0);
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

/*
 * One past the last physical page either bitmap holds: how long the file
 * must be.
 */
uint32
pager_phys_end(PagerFileSlot *fs)
{
	uint8	   *d = durable_of(fs);
	uint8	   *c = current_of(fs);
	uint32		p = Min(fs->nphys, fs->phys_cap);

	Assert(LWLockHeldByMe(&fs->lock));
	while (p > PAGER_FIRST_DATA_PHYS)
	{
		if ((p % 8) == 0 && (d[p / 8 - 1] | c[p / 8 - 1]) == 0)
		{
			p -= 8;
			continue;
		}
		if (bit_get(d, p - 1) || bit_get(c, p - 1))
			break;
		p--;
	}
	return Max(p, PAGER_FIRST_DATA_PHYS);
}

/*
 * The physical page past which a file with end physical pages keeps none
 * once a checkpoint has moved its tail down (pager_phys_tail): its
 * "current" data pages and its map and directory pages, plus an eighth
 * and PAGER_TAIL_SLACK.
 */
static uint32
tail_line(PagerFileSlot *fs, uint32 end)
{
	uint8	   *c = current_of(fs);
	uint32		need = pager_map_pages(fs->nlogical, fs->fanout) +
		pager_dir_pages(fs->nlogical, fs->fanout);

	for (uint32 p = PAGER_FIRST_DATA_PHYS; p < end; p++)
		need += bit_get(c, p);
	return PAGER_FIRST_DATA_PHYS + need + need / 8 + PAGER_TAIL_SLACK;
}

/*
 * What a checkpoint should move down so that the file can be cut short,
 * when the file reaches past tail_line: the map pages past the line are
 * marked changed (the checkpoint writes them anew, on the lowest free
 * pages), and the logical pages on its highest physical pages past the
 * line, each paired with a lower free physical page for it (the lowest
 * ones, which is what pager_phys_find_free hands out), are put in
 * pagenos, highest first, at most max of them.  Returns how many; *more
 * says whether anything is left past the line for the next checkpoint
 * (data pages, for want of free pages below or of max, or map pages,
 * which may find no free page below while this checkpoint runs).
 */
int
pager_phys_tail(PagerFileSlot *fs, ArtPageNo *pagenos, int max, bool *more)
{
	uint8	   *d = durable_of(fs);
	uint8	   *c = current_of(fs);
	uint32		end = pager_phys_end(fs);
	uint32		target = tail_line(fs, end);
	uint32		nmap = pager_map_pages(fs->nlogical, fs->fanout);
	uint32	   *owner;
	uint32		hole = PAGER_FIRST_DATA_PHYS;
	uint32		above = 0;
	bool		maps = false;
	int			n = 0;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	*more = false;
	if (end <= target || max <= 0)
		return 0;

	for (uint32 m = 0; m < nmap; m++)
	{
		PagerMapRef *refs = pager_map_refs(fs);

		if (refs[m].phys >= target && refs[m].phys < end)
		{
			pager_map_redirty(fs, &m, 1);
			maps = true;
		}
	}

	/* Which logical page each physical page past the line holds. */
	owner = palloc_extended(sizeof(uint32) * (end - target), MCXT_ALLOC_HUGE);
	memset(owner, 0xFF, sizeof(uint32) * (end - target));
	for (ArtPageNo l = 0; l < fs->nlogical; l++)
	{
		uint32		p = pager_map_entry(fs, l, NULL);

		if (phys_real(p) && p >= target && p < end)
		{
			owner[p - target] = l;
			above++;
		}
	}
	for (uint32 p = end; p > target && n < max; p--)
	{
		uint32		l = owner[p - 1 - target];

		if (l == PG_UINT32_MAX)
			continue;
		while (hole < p - 1 && (bit_get(d, hole) || bit_get(c, hole)))
			hole++;
		if (hole >= p - 1)
			break;
		pagenos[n++] = l;
		hole++;
	}
	pfree(owner);
	*more = (uint32) n < above || maps;
	return n;
}
