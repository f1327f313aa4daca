/*-------------------------------------------------------------------------
 *
 * pager_cow.c
 *	  A checkpoint's set of frames, and the copy-on-write that lets writers
 *	  change them while the checkpoint writes the set.
 *
 * Under a file's write gate a checkpoint takes the file's dirty frames
 * into its set (FRAME_CKPT, pager_ckpt_take), gives each page its place
 * in the page map and lets writers in again.  A frame of the set keeps
 * the snapshot's contents until they are copied out, by whichever comes
 * first:
 *
 *	- the checkpoint, which copies a batch at a time into scratch frames
 *	  (pager_ckpt_stage) and writes those; the frame stays in the pool
 *	  (FRAME_CKPT_STAGED: the page map points at the place still being
 *	  written) until the write is done (pager_ckpt_unstage), but a writer
 *	  may change it at once.  When the pool has no frame to spare (the
 *	  set may fill most of it), the checkpoint writes a frame from
 *	  itself, claimed for that write, and a writer that needs it waits;
 *	- a writer: a process inside the file's gate that pins a frame of the
 *	  set copies it first into a spare frame of the pool, which it hands
 *	  over to the checkpoint (FRAME_COPY, out of the page table, pinned
 *	  for the checkpoint), and then changes the frame itself, which is
 *	  dirty for the next checkpoint (pager_ckpt_settle).  The checkpoint
 *	  writes the writers' copies first (pager_ckpt_copies) and gives their
 *	  frames back.
 *
 * Either copy is a memcpy under a claim (FRAME_CKPT_CLAIM) that is held
 * for that moment only, so while the pool has frames to spare neither
 * side waits for the other's I/O.
 *
 * The set never holds the pool's frames hostage: once the checkpoint has
 * placed a frame's page (FRAME_CKPT_PLACED: its physical page and write
 * stamp in the frame), anyone may write the frame out for the checkpoint,
 * sealed as the checkpoint would seal it, at the place it would write it
 * (pager_ckpt_write_out), and the frame leaves the set clean; the
 * checkpoint counts such pages in its file's ckpt_written.  The clock
 * sweep does so for a victim of the set (pager_ckpt_evict), as it writes
 * a dirty victim back; a writer does so for the frame it needs when the
 * pool has no spare frame this moment or the writers' copies not yet
 * written fill an eighth of the pool (so copies stay bounded).  So a
 * writer waits at most for one page's write, and a process that needs a
 * frame finds one where it would without a running checkpoint.
 * A writer in a critical section (an insert's second pass) takes no
 * spare frame and writes nothing, since that can fail: it waits until
 * the frame is copied or written out.  It does not happen in practice:
 * the write section holds the gate across both passes of an insert, and
 * the first pass pinned every page of the path inside it, settling each.
 *
 * A frame leaves the set only through these calls or, if the checkpoint
 * fails, pager_ckpt_abandon (the frame turns dirty again).  A frame out
 * of the set may be reused, so every call that names a frame of the set
 * checks its page too.
 *
 * Layer: part of the pool; calls pager_pool.c (scratch frames, the
 * pin's hand-over, dirty counts, the page seal) and src/io (a write out).
 * Called by the page store, the clock sweep and checkpoints
 * (pager_cow.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_cow.h"
#include "pager/pager_pool.h"

#include "miscadmin.h"

/* Writers' copies not yet written, at most, as a share of the pool. */
#define CKPT_COPIES_SHARE	8

/* Does a frame hold page pageno of file slot? (its header lock held) */
static inline bool
frame_is(PagerFrame *f, int slot, ArtPageNo pageno)
{
	return (f->flags & FRAME_TAG_VALID) && f->fileslot == slot &&
		f->pageno == pageno;
}

/*
 * For a checkpoint holding the file's gate exclusive: put a frame of the
 * file in the checkpoint's set (FRAME_CKPT), taking its dirty flag; with
 * dirty_only, only if it is dirty.  false if it was not taken (or is in
 * the set already).
 */
bool
pager_ckpt_take(int frame, int slot, bool dirty_only)
{
	PagerFrame *f = &pager_shared->frames[frame];
	bool		ok;
	bool		was_dirty;

	Assert(LWLockHeldByMeInMode(&pager_shared->files[slot].gate, LW_EXCLUSIVE));
	pager_frame_lock(f);
	was_dirty = (f->flags & FRAME_DIRTY) != 0;
	ok = (f->flags & FRAME_TAG_VALID) && (f->flags & FRAME_VALID) &&
		f->fileslot == slot && !(f->flags & FRAME_CKPT) &&
		(was_dirty || !dirty_only);
	if (ok)
		f->flags = (f->flags & ~(FRAME_DIRTY | FRAME_CKPT_PLACED)) | FRAME_CKPT;
	pager_frame_unlock(f);
	if (ok && was_dirty)
		pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	return ok;
}

/*
 * For a checkpoint holding the file's gate exclusive: a frame it took
 * into its set now has its page's place (physical page phys, write stamp
 * stamp, in the page map too), so it may be written out there.
 */
void
pager_ckpt_place(int frame, int slot, uint32 phys, uint32 stamp)
{
	PagerFrame *f = &pager_shared->frames[frame];

	Assert(LWLockHeldByMeInMode(&pager_shared->files[slot].gate, LW_EXCLUSIVE));
	pager_frame_lock(f);
	Assert((f->flags & FRAME_CKPT) && f->fileslot == slot);
	f->ckpt_phys = phys;
	f->ckpt_stamp = stamp;
	f->flags |= FRAME_CKPT_PLACED;
	pager_frame_unlock(f);
}

/*
 * Write out a frame of a checkpoint's set that this process claimed
 * (FRAME_CKPT_CLAIM, placed) for that checkpoint: sealed with the write
 * stamp the checkpoint gave it, at the physical page it gave it (the page
 * map points there already).  The checkpoint learns it through its
 * file's ckpt_written, counted while the frame is still claimed, so that
 * neither the checkpoint's end nor, if it fails, its giving up the set
 * can pass the write; then the frame leaves the set, clean.  If the write
 * fails the frame stays in the set, unclaimed.
 */
static void
ckpt_write_out(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];
	PagerFileSlot *fs;
	ArtPageNo	pageno;
	uint32		phys;
	uint32		stamp;
	char	   *data = pager_frame_data(frame);
	IoPage		page;

	pager_frame_lock(f);
	Assert((f->flags & (FRAME_CKPT | FRAME_CKPT_CLAIM | FRAME_CKPT_PLACED)) ==
		   (FRAME_CKPT | FRAME_CKPT_CLAIM | FRAME_CKPT_PLACED) &&
		   !(f->flags & FRAME_CKPT_STAGED));
	fs = &pager_shared->files[f->fileslot];
	pageno = f->pageno;
	phys = f->ckpt_phys;
	stamp = f->ckpt_stamp;
	pager_frame_unlock(f);

	PG_TRY();
	{
		pager_page_seal(fs, data, pageno, PAGER_KIND_DATA, stamp);
		page.offset = (uint64) phys * ART_PAGE_SIZE;
		page.buf = data;
		io_write_pages(fs->path, &page, 1);
	}
	PG_CATCH();
	{
		pager_ckpt_unclaim(frame);
		PG_RE_THROW();
	}
	PG_END_TRY();

	pg_atomic_fetch_add_u32(&fs->ckpt_written, 1);
	pager_frame_lock(f);
	f->flags &= ~FRAME_CKPT_ALL;
	pager_frame_unlock(f);
	ConditionVariableBroadcast(&f->io_cv);
	pg_atomic_fetch_add_u64(&pager_shared->counters.checkpoint_pages, 1);
}

/*
 * For the clock sweep, which pinned a victim it found in a checkpoint's
 * set: write it out for the checkpoint (ckpt_write_out) unless it left
 * the set meanwhile.  false if it cannot be now (being copied or written,
 * or not yet placed): pick another victim then.
 */
bool
pager_ckpt_evict(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	pager_frame_lock(f);
	if (!(f->flags & FRAME_CKPT))
	{
		pager_frame_unlock(f);
		return true;
	}
	if ((f->flags & (FRAME_CKPT_CLAIM | FRAME_CKPT_STAGED)) ||
		!(f->flags & FRAME_CKPT_PLACED))
	{
		pager_frame_unlock(f);
		return false;
	}
	f->flags |= FRAME_CKPT_CLAIM;
	pager_frame_unlock(f);
	ckpt_write_out(frame);
	return true;
}

/*
 * A frame leaves a checkpoint's set for a writer: it turns dirty (its
 * page map entry points at the place the checkpoint writes the snapshot's
 * contents to, so it must not be dropped unwritten), its file changed.
 * Its header lock is held; released here.
 */
static void
settle_leave(PagerFrame *f, int slot)
{
	bool		was_dirty = (f->flags & FRAME_DIRTY) != 0;

	f->flags = (f->flags & ~FRAME_CKPT_ALL) | FRAME_DIRTY;
	pager_frame_unlock(f);
	pager_shared->files[slot].changed = true;
	if (!was_dirty)
		pager_count_dirty();
	ConditionVariableBroadcast(&f->io_cv);
}

/*
 * pager_ckpt_settle of a frame seen in a checkpoint's set: let it leave
 * the set, copying its contents into a spare frame for the
 * checkpoint first unless the checkpoint has its copy already.  When the
 * pool has no frame to spare this moment, or the copies not yet written
 * fill their share of the pool, it writes the frame out for the
 * checkpoint itself (ckpt_write_out).  Waits only while another process
 * copies or writes out the frame or, in a critical section, for the
 * checkpoint or another process to copy or write it out.
 */
void
pager_ckpt_leave_set(int slot, int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];
	PagerFileSlot *fs = &pager_shared->files[slot];
	uint32		max_copies = Max(pager_shared->nframes / CKPT_COPIES_SHARE, 1);
	int			spare = -1;
	bool		write_out = false;
	bool		waited = false;

	/* inside the gate, a frame seen in the set is placed (pager_cow.h) */
	Assert(pager_gate_held(slot));
	for (;;)
	{
		uint16		flags;
		ArtPageNo	pageno;

		pager_frame_lock(f);
		flags = f->flags;
		pageno = f->pageno;
		if (!(flags & FRAME_CKPT))
		{
			pager_frame_unlock(f);
			break;
		}
		Assert(flags & FRAME_CKPT_PLACED);
		if (flags & FRAME_CKPT_STAGED)
		{
			settle_leave(f, slot);
			break;
		}
		if (!(flags & FRAME_CKPT_CLAIM) && (spare >= 0 || write_out))
		{
			f->flags |= FRAME_CKPT_CLAIM;
			pager_frame_unlock(f);
			if (write_out)
			{
				ckpt_write_out(frame);
				break;
			}
			memcpy(pager_frame_data(spare), pager_frame_data(frame), ART_PAGE_SIZE);
			pg_atomic_fetch_add_u32(&fs->ckpt_copies, 1);
			pager_copy_hand_over(spare, slot, pageno);
			spare = -1;
			pager_frame_lock(f);
			settle_leave(f, slot);
			break;
		}
		pager_frame_unlock(f);
		if (!(flags & FRAME_CKPT_CLAIM) && CritSectionCount == 0)
		{
			if (pg_atomic_read_u32(&fs->ckpt_copies) < max_copies)
				spare = pager_victim_try();
			write_out = spare < 0;
			continue;
		}
		io_wait(&f->io_cv, 1);
		waited = true;
	}
	if (spare >= 0)
		pager_scratch_put(spare);
	if (waited)
		ConditionVariableCancelSleep();
}

/*
 * For the checkpoint that took it: copy a frame of its set (page pageno
 * of file slot) into buf, to write it from there; the frame stays in the
 * set, staged, until pager_ckpt_unstage.  With buf NULL (no frame to
 * copy into), claim the frame to write it from itself: writers that need
 * it wait until pager_ckpt_unstage (or pager_ckpt_unclaim).
 */
PagerCkptStage
pager_ckpt_stage(int frame, int slot, ArtPageNo pageno, char *buf)
{
	PagerFrame *f = &pager_shared->frames[frame];

	pager_frame_lock(f);
	if (!(f->flags & FRAME_CKPT) || !frame_is(f, slot, pageno))
	{
		pager_frame_unlock(f);
		return PAGER_CKPT_GONE;
	}
	if (f->flags & FRAME_CKPT_CLAIM)
	{
		pager_frame_unlock(f);
		return PAGER_CKPT_BUSY;
	}
	Assert(!(f->flags & FRAME_CKPT_STAGED));
	f->flags |= FRAME_CKPT_CLAIM;
	pager_frame_unlock(f);
	if (buf == NULL)
		return PAGER_CKPT_CLAIMED;
	memcpy(buf, pager_frame_data(frame), ART_PAGE_SIZE);
	pager_frame_lock(f);
	f->flags = (f->flags & ~FRAME_CKPT_CLAIM) | FRAME_CKPT_STAGED;
	pager_frame_unlock(f);
	ConditionVariableBroadcast(&f->io_cv);
	return PAGER_CKPT_STAGED;
}

/*
 * The copy of a staged frame, or a claimed frame, is written: the frame
 * leaves the set, clean, unless a writer took it out already.
 */
void
pager_ckpt_unstage(int frame, int slot, ArtPageNo pageno)
{
	PagerFrame *f = &pager_shared->frames[frame];

	pager_frame_lock(f);
	if ((f->flags & (FRAME_CKPT_STAGED | FRAME_CKPT_CLAIM)) &&
		frame_is(f, slot, pageno))
		f->flags &= ~FRAME_CKPT_ALL;
	pager_frame_unlock(f);
	ConditionVariableBroadcast(&f->io_cv);
}

/*
 * The write of a frame the checkpoint claimed failed: the frame stays in
 * the set, unclaimed.
 */
void
pager_ckpt_unclaim(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	pager_frame_lock(f);
	Assert(f->flags & FRAME_CKPT_CLAIM);
	f->flags &= ~FRAME_CKPT_CLAIM;
	pager_frame_unlock(f);
	ConditionVariableBroadcast(&f->io_cv);
}

/*
 * A checkpoint that failed gives a frame of its set up: once nobody
 * copies it, a frame still in the set leaves it dirty again, for the next
 * checkpoint or an eviction to write to a place of its own.
 */
void
pager_ckpt_abandon(int frame, int slot, ArtPageNo pageno)
{
	PagerFrame *f = &pager_shared->frames[frame];
	bool		waited = false;

	for (;;)
	{
		pager_frame_lock(f);
		if (!(f->flags & FRAME_CKPT) || !frame_is(f, slot, pageno))
		{
			pager_frame_unlock(f);
			break;
		}
		if (!(f->flags & FRAME_CKPT_CLAIM))
		{
			settle_leave(f, slot);
			break;
		}
		pager_frame_unlock(f);
		io_wait(&f->io_cv, 1);
		waited = true;
	}
	if (waited)
		ConditionVariableCancelSleep();
}

/*
 * Up to max of the writers' copies of file slot's checkpoint set: their
 * frames and pages.  The checkpoint writes each and gives it back
 * (pager_ckpt_copy_done).
 */
int
pager_ckpt_copies(int slot, int *frames, ArtPageNo *pagenos, int max)
{
	int			n = 0;

	if (pg_atomic_read_u32(&pager_shared->files[slot].ckpt_copies) == 0)
		return 0;
	for (int i = 0; i < pager_shared->nframes && n < max; i++)
	{
		PagerFrame *f = &pager_shared->frames[i];

		if (!(((volatile PagerFrame *) f)->flags & FRAME_COPY))
			continue;
		pager_frame_lock(f);
		if ((f->flags & FRAME_COPY) && f->fileslot == slot)
		{
			frames[n] = i;
			pagenos[n++] = f->pageno;
		}
		pager_frame_unlock(f);
	}
	return n;
}

/*
 * A writer's copy is written (or its checkpoint gave up): give its frame
 * back.
 */
void
pager_ckpt_copy_done(int slot, int frame)
{
	pager_copy_release(frame);
	pg_atomic_fetch_sub_u32(&pager_shared->files[slot].ckpt_copies, 1);
}

/*
 * A checkpoint that failed gives every writer's copy of its set back
 * (their frames are dirty: pager_ckpt_settle).
 */
void
pager_ckpt_drop_copies(int slot)
{
	int			frames[PAGER_SCRATCH_BATCH];
	ArtPageNo	pagenos[PAGER_SCRATCH_BATCH];
	int			n;

	while ((n = pager_ckpt_copies(slot, frames, pagenos, PAGER_SCRATCH_BATCH)) > 0)
	{
		for (int i = 0; i < n; i++)
			pager_ckpt_copy_done(slot, frames[i]);
	}
}
