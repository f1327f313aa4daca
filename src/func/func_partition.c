/*-------------------------------------------------------------------------
 *
 * func_partition.c
 *	  The leaf indexes a SQL function answers over: the index itself, or
 *	  every partition's index of a partitioned index.
 *
 * A partitioned artrie index has no file of its own: each leaf partition's
 * index has one.  The functions that answer with keys or counts answer
 * over all of them as a query on the partitioned table would: the caller
 * needs the privileges on the partitioned table only (as a SELECT through
 * it), its row-level security is checked, the partitions' own are not (a
 * SELECT through the partitioned table applies none of them either), and
 * a partition whose DETACH ... CONCURRENTLY the caller's snapshot sees is
 * left out, as the planner leaves it out.  Foreign partitions have no
 * index and are not searched.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "func/func.h"

/* Add the leaf tables under a partitioned table, locking them as a query does. */
static void
leaf_tables(Oid relid, List **leaves)
{
	List	   *children = find_inheritance_children_extended(relid, true,
															  AccessShareLock,
															  NULL, NULL);
	ListCell   *lc;

	foreach(lc, children)
	{
		Oid			child = lfirst_oid(lc);
		char		relkind = get_rel_relkind(child);

		if (relkind == RELKIND_PARTITIONED_TABLE)
			leaf_tables(child, leaves);
		else if (relkind == RELKIND_RELATION)
			*leaves = lappend_oid(*leaves, child);
	}
	list_free(children);
}

/*
 * The indexes a function given indexoid answers over, each to be opened
 * with func_open_index: indexoid itself (checked as it is opened), or the
 * leaf indexes of a partitioned artrie index, after checking that the
 * caller may read the partitioned table.  *partitioned says which.
 */
List *
func_index_leaves(Oid indexoid, bool *partitioned)
{
	Oid			heapoid;
	Relation	heap;
	Relation	index;
	List	   *tables = NIL;
	List	   *indexes;
	List	   *result = NIL;
	ListCell   *lc;

	*partitioned = get_rel_relkind(indexoid) == RELKIND_PARTITIONED_INDEX;
	if (!*partitioned)
		return list_make1_oid(indexoid);

	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));
	heap = table_open(heapoid, AccessShareLock);
	index = index_open(indexoid, AccessShareLock);
	if (IndexGetRelation(indexoid, true) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("index with OID %u changed while it was opened", indexoid),
				 errhint("Retry the call.")));
	func_check_artrie(index);
	func_check_valid(index);
	func_check_access(heap, index);

	leaf_tables(heapoid, &tables);
	indexes = find_all_inheritors(indexoid, NoLock, NULL);
	foreach(lc, indexes)
	{
		Oid			leaf = lfirst_oid(lc);

		if (get_rel_relkind(leaf) == RELKIND_INDEX &&
			list_member_oid(tables, IndexGetRelation(leaf, true)))
			result = lappend_oid(result, leaf);
	}
	list_free(indexes);
	list_free(tables);
	index_close(index, NoLock);
	table_close(heap, NoLock);
	return result;
}

/* Refuse a partitioned index where a function answers for one index only. */
void
func_refuse_partitioned(Oid indexoid, const char *function)
{
	if (get_rel_relkind(indexoid) == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s() does not accept partitioned index \"%s\"",
						function, get_rel_name(indexoid)),
				 errhint("Call it for each partition's index: SELECT relid, %s(relid) FROM pg_partition_tree('%s') WHERE isleaf.",
						 function, get_rel_name(indexoid))));
}
