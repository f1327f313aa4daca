/*-------------------------------------------------------------------------
 *
 * func_common.c
 *	  Opening an artrie index for a SQL function, and heap visibility.
 *
 * The functions answer with keys, not rows, so they check privileges and
 * visibility themselves: the caller must be able to SELECT the indexed
 * table (or every indexed column), row-level security must not apply to
 * the caller, and a key is reported only if a heap tuple visible to the
 * caller's snapshot holds it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "func/func.h"

/*
 * Whether the current user may read the indexed values: SELECT on the
 * table, or on every column the index reads (an expression index or a
 * partial index needs the table, since its keys say more than columns).
 */
static bool
func_may_read(Relation heap, Relation index)
{
	Oid			userid = GetUserId();
	int			i;

	if (pg_class_aclcheck(RelationGetRelid(heap), userid, ACL_SELECT) == ACLCHECK_OK)
		return true;
	if (!heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL))
		return false;
	for (i = 0; i < index->rd_index->indnatts; i++)
	{
		AttrNumber	attnum = index->rd_index->indkey.values[i];

		if (attnum <= 0 ||
			pg_attribute_aclcheck(RelationGetRelid(heap), attnum, userid,
								  ACL_SELECT) != ACLCHECK_OK)
			return false;
	}
	return true;
}

/*
 * Refuse a caller who may not read the indexed values, or whose reads of
 * the table row-level security would filter.
 */
void
func_check_access(Relation heap, Relation index)
{
	if (!func_may_read(heap, index))
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE,
					   RelationGetRelationName(heap));

	/* Keys come straight from the index: no policy could filter them. */
	if (check_enable_rls(RelationGetRelid(heap), InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("artrie functions cannot read table \"%s\"",
						RelationGetRelationName(heap)),
				 errdetail("Row-level security applies to the table, and its policies cannot filter keys read from an index."),
				 errhint("Query the table instead, or call the function as a role that bypasses row-level security.")));
}

/*
 * Open an artrie index and its table for reading, checking what the caller
 * passed and, with check_access, what the caller may see (a partition's
 * index is opened without: func_index_leaves checked the partitioned
 * table).  The table is locked before the index, as queries do.
 */
void
func_open_index(Oid indexoid, FuncIndex *fi, bool check_access)
{
	Oid			heapoid;
	char		relkind;

	memset(fi, 0, sizeof(*fi));
	relkind = get_rel_relkind(indexoid);
	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid),
				 errhint("The index may have been dropped.")));
	if (relkind != RELKIND_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an index", get_rel_name(indexoid)),
				 relkind == RELKIND_PARTITIONED_INDEX ?
				 errhint("Pass the index of one partition: pg_partition_tree() lists them.") : 0));

	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("relation with OID %u does not exist", indexoid)));
	fi->heap = table_open(heapoid, AccessShareLock);
	fi->index = index_open(indexoid, AccessShareLock);

	/* The index may have been dropped and its OID reused meanwhile. */
	if (IndexGetRelation(indexoid, true) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("index with OID %u changed while it was opened", indexoid),
				 errhint("Retry the call.")));

	func_check_artrie(fi->index);
	func_check_valid(fi->index);
	if (check_access)
		func_check_access(fi->heap, fi->index);
	am_open(fi->index, &fi->ai);

	fi->snapshot = GetActiveSnapshot();
	fi->fetch = table_index_fetch_begin(fi->heap);
	fi->slot = table_slot_create(fi->heap, NULL);
}

/*
 * Refuse a multicolumn index to a function that answers only for a single
 * column's keys, or for the last column's below the leading columns'
 * values when the caller gave none.
 */
void
func_refuse_multicolumn(FuncIndex *fi, const char *function)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(fi->index);

	if (ncols > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s needs the values of the leading columns of multicolumn artrie index \"%s\"",
						function, RelationGetRelationName(fi->index)),
				 errhint("artrie_complete, artrie_prefix_count and artrie_prefixes_of take the values of its first %d columns as text, in column order: leading_values => ARRAY['42'].",
						 ncols - 1)));
}

/* Refuse an index of another access method. */
void
func_check_artrie(Relation index)
{
	if (index->rd_rel->relam != get_index_am_oid("artrie", false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an artrie index",
						RelationGetRelationName(index))));
}

/*
 * Refuse an index that is not valid: a failed or unfinished CREATE INDEX
 * CONCURRENTLY may have left rows out of it, and a partitioned index is
 * valid only once every partition has an index attached to it.
 */
void
func_check_valid(Relation index)
{
	if (index->rd_index->indisvalid)
		return;
	if (index->rd_rel->relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("partitioned index \"%s\" is not valid",
						RelationGetRelationName(index)),
				 errdetail("Some partitions have no index attached to it."),
				 errhint("Attach an index of each partition with ALTER INDEX ... ATTACH PARTITION.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("index \"%s\" is not valid", RelationGetRelationName(index)),
			 errdetail("A failed or unfinished CREATE INDEX CONCURRENTLY may have left rows out of it."),
			 errhint("REINDEX the index, or drop it and create it again.")));
}

/* Release what func_open_index took; locks are kept to the end of the transaction. */
void
func_close_index(FuncIndex *fi)
{
	ExecDropSingleTupleTableSlot(fi->slot);
	table_index_fetch_end(fi->fetch);
	index_close(fi->index, NoLock);
	table_close(fi->heap, NoLock);
}

/* Whether the heap tuple (or HOT chain) at tid is visible to the caller. */
bool
func_tid_visible(FuncIndex *fi, ItemPointer tid)
{
	ItemPointerData t = *tid;
	bool		call_again = false;
	bool		all_dead = false;
	bool		found;

	found = table_index_fetch_tuple(fi->fetch, &t, fi->snapshot, fi->slot,
									&call_again, &all_dead);
	ExecClearTuple(fi->slot);
	return found;
}

/* Whether some heap tuple visible to the caller holds this key. */
bool
func_key_visible(FuncIndex *fi, const uint8 *key, Size keylen)
{
	uint8	   *prefix = palloc(keylen + 1);
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		entrylen;
	ArtStatus	status;
	bool		found = false;

	memcpy(prefix, key, keylen);
	prefix[keylen] = 0x00;
	am_check_status(art_cursor_open(&fi->ai.keys, &cursor), fi->index,
					"opening a cursor");
	am_check_status(art_cursor_seek(cursor, prefix, keylen + 1, true,
									ART_FORWARD), fi->index, "seeking");
	am_check_status(art_cursor_set_prefix(cursor, prefix, keylen + 1),
					fi->index, "seeking");
	while ((status = art_cursor_next(cursor, &entry, &entrylen)) == ART_OK)
	{
		ItemPointerData tid;

		am_entry_tid(entry, entrylen, &tid);
		if (func_tid_visible(fi, &tid))
		{
			found = true;
			break;
		}
	}
	if (status != ART_OK && status != ART_NOT_FOUND)
		am_check_status(status, fi->index, "reading");
	art_cursor_close(cursor);
	pfree(prefix);
	return found;
}

/*
 * Move a forward cursor past every entry of the key that entry begins
 * with (key || 0x00 || TID): to the first entry >= key || 0x01.
 */
void
func_seek_past_key(FuncIndex *fi, ArtCursor *cursor, const uint8 *entry,
				   Size keylen)
{
	uint8	   *next = palloc(keylen + 1);

	memcpy(next, entry, keylen);
	next[keylen] = 0x01;
	am_check_status(art_cursor_seek(cursor, next, keylen + 1, true, ART_FORWARD),
					fi->index, "seeking");
	pfree(next);
}
