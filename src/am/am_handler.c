/*-------------------------------------------------------------------------
 *
 * am_handler.c
 *	  The artrie access method handler, options and properties.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/reloptions.h"
#include "catalog/pg_index.h"
#include "commands/vacuum.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "am/am.h"

PG_FUNCTION_INFO_V1(artrie_handler);

#if PG_VERSION_NUM >= 180000
/*
 * Strategies 1-5 are btree's comparisons; starts-with (6) and LIKE (7)
 * have no general comparison type.
 */
static const CompareType artrie_cmptypes[ARTRIE_NSTRATEGIES + 1] = {
	COMPARE_INVALID, COMPARE_LT, COMPARE_LE, COMPARE_EQ, COMPARE_GE,
	COMPARE_GT, COMPARE_INVALID, COMPARE_INVALID
};

/*
 * A strategy number's comparison type.
 */
static CompareType
artrie_translate_strategy(StrategyNumber strategy, Oid opfamily)
{
	if (strategy > ARTRIE_NSTRATEGIES)
		return COMPARE_INVALID;
	return artrie_cmptypes[strategy];
}

/*
 * A comparison type's strategy number.
 */
static StrategyNumber
artrie_translate_cmptype(CompareType cmptype, Oid opfamily)
{
	StrategyNumber strategy;

	for (strategy = 1; strategy <= ARTRIE_NSTRATEGIES; strategy++)
		if (cmptype != COMPARE_INVALID && artrie_cmptypes[strategy] == cmptype)
			return strategy;
	return InvalidStrategy;
}
#endif

/*
 * The handler: describe the access method to PostgreSQL.
 */
Datum
artrie_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = ARTRIE_NSTRATEGIES;
	amroutine->amsupport = 0;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = true;
	amroutine->amcanunique = true;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = true;
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL;
	amroutine->amkeytype = InvalidOid;
#if PG_VERSION_NUM >= 160000
	amroutine->amsummarizing = false;
#endif
#if PG_VERSION_NUM >= 170000
	amroutine->amcanbuildparallel = false;
	amroutine->aminsertcleanup = NULL;
#endif
#if PG_VERSION_NUM >= 180000
	amroutine->amcanhash = false;
	amroutine->amconsistentequality = true;
	amroutine->amconsistentordering = false;
	amroutine->amgettreeheight = NULL;
	amroutine->amtranslatestrategy = artrie_translate_strategy;
	amroutine->amtranslatecmptype = artrie_translate_cmptype;
#endif

	amroutine->ambuild = artrie_build;
	amroutine->ambuildempty = artrie_buildempty;
	amroutine->aminsert = artrie_insert;
	amroutine->ambulkdelete = artrie_bulkdelete;
	amroutine->amvacuumcleanup = artrie_vacuumcleanup;
	amroutine->amcanreturn = artrie_canreturn;
	amroutine->amcostestimate = artrie_costestimate;
	amroutine->amoptions = artrie_options;
	amroutine->amproperty = artrie_property;
	amroutine->ambuildphasename = artrie_buildphasename;
	amroutine->amvalidate = artrie_validate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = artrie_beginscan;
	amroutine->amrescan = artrie_rescan;
	amroutine->amgettuple = artrie_gettuple;
	amroutine->amgetbitmap = artrie_getbitmap;
	amroutine->amendscan = artrie_endscan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}

/*
 * Reloptions: artrie has none, so any option given is an error.
 */
bytea *
artrie_options(Datum reloptions, bool validate)
{
	List	   *options;

	if (!validate)
		return NULL;

	options = untransformRelOptions(reloptions);
	if (options != NIL)
	{
		DefElem    *def = linitial_node(DefElem, options);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized parameter \"%s\"", def->defname),
				 errdetail("artrie indexes take no storage parameters.")));
	}
	return NULL;
}

/*
 * Properties: an index one of whose string columns has a collation that
 * does not order like its bytes (ICU, libc locales other than "C"/"POSIX")
 * is not orderable in any column, whatever amcanorder says for the access
 * method as a whole, as the planner hook decides (am_cost.c); columns
 * without a collation (integers, uuid) order as their bytes.  Everything
 * else is left to the core's defaults.
 */
bool
artrie_property(Oid index_oid, int attno, IndexAMProperty prop,
				const char *propname, bool *res, bool *isnull)
{
	HeapTuple	tuple;
	Datum		datum;
	bool		null;
	oidvector  *collations;
	Oid			collid;
	bool		bytewise;
	int			i;

	if (attno == 0)
		return false;

	switch (prop)
	{
		case AMPROP_ASC:
		case AMPROP_DESC:
		case AMPROP_NULLS_FIRST:
		case AMPROP_NULLS_LAST:
		case AMPROP_ORDERABLE:
			break;
		default:
			return false;
	}

	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index_oid));
	if (!HeapTupleIsValid(tuple))
		return false;
	datum = SysCacheGetAttr(INDEXRELID, tuple, Anum_pg_index_indcollation,
							&null);
	if (null)
	{
		ReleaseSysCache(tuple);
		return false;
	}
	collations = (oidvector *) DatumGetPointer(datum);
	bytewise = true;
	for (i = 0; i < collations->dim1; i++)
	{
		collid = collations->values[i];
		if (OidIsValid(collid) && !am_collation_is_bytewise(collid))
			bytewise = false;
	}
	ReleaseSysCache(tuple);

	if (bytewise)
		return false;

	*res = false;
	*isnull = false;
	return true;
}
