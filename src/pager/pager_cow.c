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
 * A writer in a critical section (an insert's second pass) takes no
 * spare frame, since that can fail: it waits until the checkpoint has
 * copied the frame out.  It does not happen in practice: the write
 * section holds the gate across both passes of an insert, and the first
 * pass pinned every page of the path inside it, settling each.
 *
 * A frame leaves the set only through these calls or, if the checkpoint
 * fails, pager_ckpt_abandon (the frame turns dirty again), so the clock
 * sweep passes over FRAME_CKPT frames and a frame of the set keeps its
 * page.  A frame out of the set may be reused, so every call that names
 * a frame of the set checks its page too.
 *
 * Layer: part of the pool; calls pager_pool.c (scratch frames, the
 * pin's hand-over, dirty counts).  Called by the page store and by
 * checkpoints (pager_cow.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_cow.h"
#include "pager/pager_pool.h"

#include "miscadmin.h"

/* Does a frame hold page pageno of file slot? (its spinlock held) */
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
	SpinLockAcquire(&f->hdr);
	was_dirty = (f->flags & FRAME_DIRTY) != 0;
	ok = (f->flags & FRAME_TAG_VALID) && (f->flags & FRAME_VALID) &&
		f->fileslot == slot && !(f->flags & FRAME_CKPT) &&
		(was_dirty || !dirty_only);
	if (ok)
		f->flags = (f->flags & ~FRAME_DIRTY) | FRAME_CKPT;
	SpinLockRelease(&f->hdr);
	if (ok && was_dirty)
		pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	return ok;
}

/*
 * A frame leaves a checkpoint's set for a writer: it turns dirty (its
 * page map entry points at the place the checkpoint writes the snapshot's
 * contents to, so it must not be dropped unwritten), its file changed.
 * Its spinlock is held; released here.
 */
static void
settle_leave(PagerFrame *f, int slot)
{
	bool		was_dirty = (f->flags & FRAME_DIRTY) != 0;

	f->flags = (f->flags & ~(FRAME_CKPT | FRAME_CKPT_CLAIM | FRAME_CKPT_STAGED)) |
		FRAME_DIRTY;
	SpinLockRelease(&f->hdr);
	pager_shared->files[slot].changed = true;
	if (!was_dirty)
		pager_count_dirty();
	ConditionVariableBroadcast(&f->io_cv);
}

/*
 * Before a process inside a file's write gate (one that may change its
 * pages) locks a frame of it: if the frame is in a checkpoint's set, let
 * it leave the set, copying its contents into a spare frame for the
 * checkpoint first unless the checkpoint has its copy already.  Waits
 * only while another process copies the frame (a memcpy) or, in a
 * critical section or while the pool has no frame to spare this moment,
 * for the checkpoint to copy or write it.
 */
void
pager_ckpt_settle(int slot, int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];
	int			spare = -1;
	bool		waited = false;

	/*
	 * Only a checkpoint holding the gate exclusive puts a frame in its set,
	 * so inside the gate a frame seen outside it stays out.
	 */
	Assert(pager_gate_held(slot));
	if (!(((volatile PagerFrame *) f)->flags & FRAME_CKPT))
		return;
	for (;;)
	{
		uint16		flags;
		ArtPageNo	pageno;

		SpinLockAcquire(&f->hdr);
		flags = f->flags;
		pageno = f->pageno;
		if (!(flags & FRAME_CKPT))
		{
			SpinLockRelease(&f->hdr);
			break;
		}
		if (flags & FRAME_CKPT_STAGED)
		{
			settle_leave(f, slot);
			break;
		}
		if (!(flags & FRAME_CKPT_CLAIM) && spare >= 0)
		{
			f->flags |= FRAME_CKPT_CLAIM;
			SpinLockRelease(&f->hdr);
			memcpy(pager_frame_data(spare), pager_frame_data(frame), ART_PAGE_SIZE);
			pg_atomic_fetch_add_u32(&pager_shared->files[slot].ckpt_copies, 1);
			pager_copy_hand_over(spare, slot, pageno);
			spare = -1;
			SpinLockAcquire(&f->hdr);
			settle_leave(f, slot);
			break;
		}
		SpinLockRelease(&f->hdr);
		if (!(flags & FRAME_CKPT_CLAIM) && CritSectionCount == 0)
			spare = pager_victim_try();
		if (spare < 0)
		{
			io_wait(&f->io_cv, 1);
			waited = true;
		}
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

	SpinLockAcquire(&f->hdr);
	if (!(f->flags & FRAME_CKPT) || !frame_is(f, slot, pageno))
	{
		SpinLockRelease(&f->hdr);
		return PAGER_CKPT_GONE;
	}
	if (f->flags & FRAME_CKPT_CLAIM)
	{
		SpinLockRelease(&f->hdr);
		return PAGER_CKPT_BUSY;
	}
	Assert(!(f->flags & FRAME_CKPT_STAGED));
	f->flags |= FRAME_CKPT_CLAIM;
	SpinLockRelease(&f->hdr);
	if (buf == NULL)
		return PAGER_CKPT_CLAIMED;
	memcpy(buf, pager_frame_data(frame), ART_PAGE_SIZE);
	SpinLockAcquire(&f->hdr);
	f->flags = (f->flags & ~FRAME_CKPT_CLAIM) | FRAME_CKPT_STAGED;
	SpinLockRelease(&f->hdr);
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

	SpinLockAcquire(&f->hdr);
	if ((f->flags & (FRAME_CKPT_STAGED | FRAME_CKPT_CLAIM)) &&
		frame_is(f, slot, pageno))
		f->flags &= ~(FRAME_CKPT | FRAME_CKPT_STAGED | FRAME_CKPT_CLAIM);
	SpinLockRelease(&f->hdr);
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

	SpinLockAcquire(&f->hdr);
	Assert(f->flags & FRAME_CKPT_CLAIM);
	f->flags &= ~FRAME_CKPT_CLAIM;
	SpinLockRelease(&f->hdr);
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
		SpinLockAcquire(&f->hdr);
		if (!(f->flags & FRAME_CKPT) || !frame_is(f, slot, pageno))
		{
			SpinLockRelease(&f->hdr);
			break;
		}
		if (!(f->flags & FRAME_CKPT_CLAIM))
		{
			settle_leave(f, slot);
			break;
		}
		SpinLockRelease(&f->hdr);
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
		SpinLockAcquire(&f->hdr);
		if ((f->flags & FRAME_COPY) && f->fileslot == slot)
		{
			frames[n] = i;
			pagenos[n++] = f->pageno;
		}
		SpinLockRelease(&f->hdr);
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
