/*-------------------------------------------------------------------------
 *
 * pager_worker.h
 *	  The io worker's registration (pager_worker.c), for pager_init.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_WORKER_H
#define ARTRIE_PAGER_WORKER_H

#include "pager/pager_internal.h"

extern void pager_register_worker(void);

#endif							/* ARTRIE_PAGER_WORKER_H */
