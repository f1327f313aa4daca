/*-------------------------------------------------------------------------
 *
 * pager_sweep_catalog.c
 *	  What the catalog says for the orphan sweep: which databases exist,
 *	  and which relfilenodes the connected database's pg_class holds.
 *
 * Each list is read with a snapshot taken at the call, so it shows every
 * transaction that ended before: the sweep reads it after it found the
 * transaction that created a file finished.  A relation that a running
 * transaction drops is still listed, one it creates is not (the sweep
 * never looks at a file whose creator is running).
 *
 * Layer: leaf of the sweep; reads pg_database and pg_class only.  Called
 * by pager_sweep.c, in a transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_sweep.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* Order for qsort and bsearch of Oids. */
static int
catalog_oid_cmp(const void *a, const void *b)
{
	Oid			x = *(const Oid *) a;
	Oid			y = *(const Oid *) b;

	return (x > y) - (x < y);
}

/*
 * One column of every row of catalog relid, sorted, read with a fresh
 * snapshot.
 */
static SweepOids
catalog_read(Oid relid, bool databases)
{
	SweepOids	list;
	Relation	rel;
	SysScanDesc scan;
	Snapshot	snap;
	HeapTuple	tup;
	int			cap = 64;

	Assert(IsTransactionState());
	list.n = 0;
	list.oids = palloc(sizeof(Oid) * cap);
	snap = RegisterSnapshot(GetLatestSnapshot());
	rel = table_open(relid, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, snap, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Oid			oid;

		if (databases)
			oid = ((Form_pg_database) GETSTRUCT(tup))->oid;
		else
			oid = ((Form_pg_class) GETSTRUCT(tup))->relfilenode;
		if (!OidIsValid(oid))
			continue;
		if (list.n == cap)
		{
			cap *= 2;
			list.oids = repalloc(list.oids, sizeof(Oid) * cap);
		}
		list.oids[list.n++] = oid;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	UnregisterSnapshot(snap);
	qsort(list.oids, list.n, sizeof(Oid), catalog_oid_cmp);
	return list;
}

/*
 * The databases in pg_database.
 */
SweepOids
pager_sweep_catalog_databases(void)
{
	return catalog_read(DatabaseRelationId, true);
}

/*
 * The relfilenodes in the connected database's pg_class (mapped relations,
 * which no artrie index is, left out).
 */
SweepOids
pager_sweep_catalog_relfilenodes(void)
{
	return catalog_read(RelationRelationId, false);
}

/*
 * Is oid in list?
 */
bool
pager_sweep_catalog_has(const SweepOids *list, Oid oid)
{
	return bsearch(&oid, list->oids, list->n, sizeof(Oid),
				   catalog_oid_cmp) != NULL;
}
