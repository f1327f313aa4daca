/*-------------------------------------------------------------------------
 *
 * func_adopt.c
 *	  artrie_adopt(old_datadir): after pg_upgrade, take the artrie files of
 *	  the old cluster instead of rebuilding every index.
 *
 * pg_upgrade keeps database OIDs and relfilenodes and carries the
 * indexes' main forks, whose metapages name the old cluster's artrie
 * files, but not the files (src/pager/pager_adopt.c says what proves an
 * old file complete).  Run in each database of the new cluster, by a
 * superuser, with the old cluster's data directory: every artrie index of
 * the database that cannot be used gets the old cluster's file, copied,
 * checkpointed under this cluster's identifier and logged whole; one row
 * per artrie index:
 *	index		the index
 *	adopted		whether it got the old cluster's file now
 *	detail		why not: usable already, or what refused the file (an
 *				UNLOGGED index, a file missing or marked damaged in the old
 *				cluster, a file that cluster did not serve); such an index
 *				needs REINDEX
 * If the old cluster cannot be trusted (it was not stopped by pg_upgrade
 * with every change in its files, or ran since), the call is an ERROR.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "func/func.h"

PG_FUNCTION_INFO_V1(artrie_adopt);

/*
 * The artrie indexes of this database that are not temporary.
 */
static List *
adopt_indexes(void)
{
	Oid			amoid = get_index_am_oid("artrie", false);
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(pg_class, 0, NULL);
	HeapTuple	tuple;
	List	   *oids = NIL;

	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		if (form->relam == amoid && form->relkind == RELKIND_INDEX &&
			form->relpersistence != RELPERSISTENCE_TEMP)
			oids = lappend_oid(oids, form->oid);
	}
	table_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return oids;
}

/*
 * Adopt one index's file if it cannot be used; NULL if adopted, else why
 * not.  An error is caught in a subtransaction and becomes the answer.
 */
static char *
adopt_index(Oid indexoid, const PagerAdoptSource *source)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Relation	index = index_open(indexoid, AccessExclusiveLock);
	ArtrieIndex ai;
	ErrorData  *edata = am_try_open(index, &ai);
	char	   *volatile why = NULL;

	if (edata == NULL)
	{
		index_close(index, NoLock);
		return pstrdup("usable already");
	}
	FreeErrorData(edata);

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		am_adopt(index, source);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		why = pstrdup(edata->message);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	index_close(index, NoLock);
	return why;
}

/*
 * artrie_adopt(old_datadir text): one row per artrie index of this
 * database (see the file's comment).
 */
Datum
artrie_adopt(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *olddir = text_to_cstring(PG_GETARG_TEXT_PP(0));
	PagerAdoptSource source;
	ListCell   *lc;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run artrie_adopt()"),
				 errdetail("Only superusers may read another cluster's files.")));
	InitMaterializedSRF(fcinfo, 0);
	pager_adopt_source(olddir, &source);

	foreach(lc, adopt_indexes())
	{
		Oid			indexoid = lfirst_oid(lc);
		char	   *why = adopt_index(indexoid, &source);
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = ObjectIdGetDatum(indexoid);
		values[1] = BoolGetDatum(why == NULL);
		if (why == NULL)
			nulls[2] = true;
		else
			values[2] = CStringGetTextDatum(why);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
