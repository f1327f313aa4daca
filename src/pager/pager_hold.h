/*-------------------------------------------------------------------------
 *
 * pager_hold.h
 *	  Scan holds' setup and end (pager_hold.c).
 *
 * The holds' public half is in pager.h.  A leaf: included by pager.c (the
 * holds' shared memory) and by the pool (holds end with the transaction).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_HOLD_H
#define ARTRIE_PAGER_HOLD_H

#include "pager/pager_internal.h"

extern int	pager_proc_slots(void);
extern Size pager_hold_shmem_size(void);
extern void pager_hold_shmem_init(void *place);
extern void pager_hold_release_all(void);

#endif							/* ARTRIE_PAGER_HOLD_H */
