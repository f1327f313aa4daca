/*-------------------------------------------------------------------------
 *
 * pager_cow.h
 *	  A checkpoint's set of frames and writers' copies of them
 *	  (pager_cow.c).
 *
 * Included by the page store (writers settle a frame before they lock
 * it), the clock sweep (writing out a victim of the set) and by
 * checkpoints (taking, placing, copying out and giving up the set).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_COW_H
#define ARTRIE_PAGER_COW_H

#include "pager/pager_internal.h"

/* What pager_ckpt_stage did with a frame of a checkpoint's set. */
typedef enum PagerCkptStage
{
	PAGER_CKPT_STAGED,			/* copied out into the checkpoint's buffer */
	PAGER_CKPT_CLAIMED,			/* claimed, to be written from itself */
	PAGER_CKPT_BUSY,			/* being copied by a writer: try again */
	PAGER_CKPT_GONE				/* left the set: a writer's copy holds it */
} PagerCkptStage;

extern bool pager_ckpt_take(int frame, int slot, bool dirty_only);
extern void pager_ckpt_place(int frame, int slot, uint32 phys, uint32 stamp);
extern bool pager_ckpt_evict(int frame);
extern void pager_ckpt_leave_set(int slot, int frame);
extern PagerCkptStage pager_ckpt_stage(int frame, int slot, ArtPageNo pageno,
									   char *buf);
extern void pager_ckpt_unstage(int frame, int slot, ArtPageNo pageno);
extern void pager_ckpt_unclaim(int frame);
extern void pager_ckpt_abandon(int frame, int slot, ArtPageNo pageno);
extern int	pager_ckpt_copies(int slot, int *frames, ArtPageNo *pagenos,
							  int max);
extern void pager_ckpt_copy_done(int slot, int frame);
extern void pager_ckpt_drop_copies(int slot);

/*
 * Whether a frame is in a checkpoint's set: before a process inside a
 * file's write gate (one that may change its pages) locks a frame of it,
 * such a frame must leave the set (pager_ckpt_leave_set).  Only a
 * checkpoint holding the gate exclusive puts a frame in its set, so
 * inside the gate a frame seen outside it stays out, and one in it is
 * placed.  Inline: writers lock frames outside any set nearly always.
 */
static inline bool
pager_ckpt_in_set(int frame)
{
	return (((volatile PagerFrame *) &pager_shared->frames[frame])->flags &
			FRAME_CKPT) != 0;
}

/* Let a frame leave a checkpoint's set if it is in one (see above). */
static inline void
pager_ckpt_settle(int slot, int frame)
{
	if (pager_ckpt_in_set(frame))
		pager_ckpt_leave_set(slot, frame);
}

#endif							/* ARTRIE_PAGER_COW_H */
