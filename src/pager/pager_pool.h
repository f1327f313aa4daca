/*-------------------------------------------------------------------------
 *
 * pager_pool.h
 *	  The pool layer (pager_pool.c): frames, the page table, pins by (file
 *	  slot, page number), the write gate, eviction, scratch frames, page
 *	  seal and check, and this process's pins.
 *
 * Nothing here takes a PagerFile handle: callers resolve a handle to its
 * slot first (pager_slot, pager_file.h).  Included by the layers that may
 * call the pool: the file table, the page store, checkpoints, the sweep
 * and the io worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_POOL_H
#define ARTRIE_PAGER_POOL_H

#include "pager/pager_internal.h"

/* Meta and map pages move through this many scratch frames at a time. */
#define PAGER_SCRATCH_BATCH	8

/*
 * A checkpoint looks a file's pages up in the page table, rather than
 * looking at every frame of the pool, while the file has fewer pages
 * than the pool has frames by this factor (pager_dirty_frames).
 */
#define PAGER_LOOKUP_SHARE	8

/* A frame's page. */
static inline char *
pager_frame_data(int frame)
{
	return pager_shared->data + (Size) frame * ART_PAGE_SIZE;
}

extern void pager_frame_populate(int frame);
extern void pager_backend_init(bool io_worker);
extern PagerProcLine *pager_proc_line(void);
extern uint32 pager_users(void);
extern void pager_local_pin_add(int frame);
extern void pager_local_pin_mark(int frame, bool split, int delta);
extern void pager_pin_reserve(void);
extern bool pager_gate_enter(int slot, bool conditional);
extern void pager_gate_exit(int slot);
extern void pager_unpin(int frame);
extern bool pager_gate_held(int slot);
extern void pager_copy_hand_over(int frame, int slot, ArtPageNo pageno);
extern void pager_copy_release(int frame);
extern void pager_request_checkpoint(void);
extern void pager_count_dirty(void);
extern void pager_page_seal(PagerFileSlot *fs, char *page, uint32 pageno,
							uint16 kind, uint64 ckpt_no);
extern const char *pager_page_check(PagerFileSlot *fs, const char *page,
									uint32 pageno, uint16 kind);
extern LWLock *pager_partition(const PagerTag *tag, uint32 *hash);
extern int	pager_victim(void);
extern int	pager_victim_try(void);
extern int	pager_scratch_get(void);
extern void pager_scratch_put(int frame);
extern int	pager_get_page(PagerFileSlot *fs, int slot, ArtPageNo pageno);
extern int	pager_pin_cached(int slot, ArtPageNo pageno);
extern void pager_forget_frames(int slot);
extern int *pager_dirty_frames(int slot, uint32 nlogical, ArtPageNo **pagenos,
								 int *n);
extern bool pager_slot_pinned(int slot);
extern bool pager_slot_pinned_here(int slot);
extern void pager_pool_watch(void);
extern uint64 pager_pins_era(void);

#endif							/* ARTRIE_PAGER_POOL_H */
