/*-------------------------------------------------------------------------
 *
 * pager_sweep.h
 *	  The orphan sweep: the sweeper worker and the io worker's tick
 *	  (pager_sweeper.c), the sweep's decisions (pager_sweep.c) and its
 *	  catalog lists (pager_sweep_catalog.c).
 *
 * pager_sweep_orphans itself is in pager.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_SWEEP_H
#define ARTRIE_PAGER_SWEEP_H

#include "pager/pager_internal.h"

/* A sorted list of OIDs read from a catalog. */
typedef struct SweepOids
{
	int			n;
	Oid		   *oids;
} SweepOids;

/* pager_sweeper.c */
extern void pager_sweep_tick(void);

/* pager_sweep.c */
extern int	pager_sweep_database(Oid db);
extern int	pager_sweep_dropped_databases(void);
extern int	pager_sweep_wanted(Oid **dbs, int **counts);

/* pager_sweep_catalog.c */
extern SweepOids pager_sweep_catalog_databases(void);
extern SweepOids pager_sweep_catalog_relfilenodes(void);
extern bool pager_sweep_catalog_has(const SweepOids *list, Oid oid);

#endif							/* ARTRIE_PAGER_SWEEP_H */
