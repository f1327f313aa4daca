/*-------------------------------------------------------------------------
 *
 * pager_sweep.h
 *	  The orphan sweep's tick (pager_sweep.c), for the io worker's loop.
 *
 * pager_sweep_orphans itself is in pager.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_SWEEP_H
#define ARTRIE_PAGER_SWEEP_H

#include "pager/pager_internal.h"

extern void pager_sweep_tick(void);

#endif							/* ARTRIE_PAGER_SWEEP_H */
