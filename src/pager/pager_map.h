/*-------------------------------------------------------------------------
 *
 * pager_map.h
 *	  The page map of an open file in memory (pager_map.c): its entries
 *	  (logical -> physical page and write stamp), where each map page lies
 *	  on disk, and which map pages changed since the last checkpoint.
 *
 * Bookkeeping in dynamic shared memory only, under the slot's lock: no
 * I/O, no pool, no bitmaps.  Included by the layers that may call it: the
 * space layer, the file table (loading) and checkpoints.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_MAP_H
#define ARTRIE_PAGER_MAP_H

#include "pager/pager_internal.h"

/* Where a map page lies on disk, and the write stamp it carries there. */
typedef struct PagerMapRef
{
	uint32		phys;
	uint32		stamp;
} PagerMapRef;

extern dsa_area *pager_dsa(void);
extern dsa_pointer pager_dsa_grow(dsa_pointer old, Size oldsize, Size newsize);
extern void pager_map_free(PagerFileSlot *fs);
extern void pager_map_reserve(PagerFileSlot *fs, uint32 n);
extern uint32 pager_map_entry(PagerFileSlot *fs, ArtPageNo pageno,
							  uint32 *stamp);
extern uint32 pager_map_put(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys,
							uint32 stamp);
extern void pager_map_load_page(PagerFileSlot *fs, uint32 mapno,
								const char *page, PagerMapRef ref);
extern uint32 pager_map_take_dirty(PagerFileSlot *fs, uint32 nmap,
								   uint32 *dirty);
extern void pager_map_redirty(PagerFileSlot *fs, const uint32 *dirty, uint32 n);
extern void pager_map_page_copy(PagerFileSlot *fs, uint32 mapno,
								uint32 nlogical, char *page);
extern PagerMapRef *pager_map_refs(PagerFileSlot *fs);
extern void pager_dir_page_fill(char *page, const PagerMapRef *refs,
								uint32 nmap, uint32 dirno, uint32 fanout);
extern void pager_dir_page_refs(const char *page, uint32 nmap, uint32 dirno,
								uint32 fanout, PagerMapRef *refs);

#endif							/* ARTRIE_PAGER_MAP_H */
