/*-------------------------------------------------------------------------
 *
 * pager_space.h
 *	  The space layer (pager_space.c): the durable and current bitmaps,
 *	  logical and physical page allocation over the page map.
 *
 * Bookkeeping in shared and dynamic shared memory only: no I/O, no pool.
 * Included by the layers that may call it: the pool, the file table, the
 * page store, checkpoints, and the copy functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_SPACE_H
#define ARTRIE_PAGER_SPACE_H

#include "pager/pager_map.h"

extern void pager_corrupt(PagerFileSlot *fs, uint32 pageno, const char *detail) pg_attribute_noreturn();
extern void pager_phys_reserve(PagerFileSlot *fs, uint32 n);
extern uint32 pager_phys_find_free(PagerFileSlot *fs);
extern uint32 pager_phys_alloc(PagerFileSlot *fs, uint32 *stamp);
extern void pager_phys_release(PagerFileSlot *fs, uint32 phys);
extern void pager_map_set_locked(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys,
								 uint32 stamp);
extern void pager_map_set(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys,
						  uint32 stamp);
extern uint32 pager_map_get(PagerFileSlot *fs, ArtPageNo pageno,
							uint32 *stamp);
extern ArtPageNo pager_logical_alloc(PagerFileSlot *fs);
extern void pager_logical_free(PagerFileSlot *fs, ArtPageNo pageno);
extern uint32 pager_phys_end(PagerFileSlot *fs);
extern int	pager_phys_tail(PagerFileSlot *fs, ArtPageNo *pagenos, int max,
							bool *more);

/*
 * Physical pages a file may keep past the ones it needs before a
 * checkpoint moves its tail down (pager_phys_tail).
 */
#define PAGER_TAIL_SLACK	4

/* Pages a checkpoint may always move down, whatever the file's size. */
#define PAGER_TAIL_MOVES	256

/* Bitmap helpers. */
static inline bool
bit_get(const uint8 *bits, uint32 i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

static inline void
bit_set(uint8 *bits, uint32 i)
{
	bits[i / 8] |= (uint8) (1 << (i % 8));
}

static inline void
bit_clear(uint8 *bits, uint32 i)
{
	bits[i / 8] &= (uint8) ~(1 << (i % 8));
}

/* Is a map value a physical page? */
static inline bool
phys_real(uint32 phys)
{
	return phys != PAGER_PHYS_NONE && phys != PAGER_PHYS_FREE;
}

static inline uint8 *
durable_of(PagerFileSlot *fs)
{
	return (uint8 *) dsa_get_address(pager_dsa(), fs->durable);
}

static inline uint8 *
current_of(PagerFileSlot *fs)
{
	return (uint8 *) dsa_get_address(pager_dsa(), fs->current);
}

#endif							/* ARTRIE_PAGER_SPACE_H */
