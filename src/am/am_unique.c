/*-------------------------------------------------------------------------
 *
 * am_unique.c
 *	  UNIQUE artrie indexes: the check for a live tuple with the same key,
 *	  made atomic with the insert, and duplicates found at build time.
 *
 * The protocol is btree's (nbtree/README, "unique"): before inserting
 * (key, TID), list the entries of the same key and fetch each one's heap
 * tuple with a dirty snapshot.  A tuple that is live, or inserted or
 * deleted by a transaction still in progress, is a conflict: an
 * in-progress one is waited for and the check starts over; a committed
 * live one is the unique violation.  Under UNIQUE_CHECK_PARTIAL (a
 * deferrable constraint) a possible conflict is only reported, by the
 * return value, and the executor queues a recheck; UNIQUE_CHECK_EXISTING
 * is that recheck, which inserts nothing and must find the entry itself.
 *
 * btree makes the check and the insert atomic with respect to other
 * inserters of the key by holding the exclusive lock on the leaf page
 * where the key belongs.  The trie holds no lock across calls, so
 * artrie takes a heavyweight lock on the key instead: an advisory-type
 * lock tag (database, index, hash of the key's bytes, ARTRIE_KEY_LOCK),
 * exclusive, from before the listing to after the insert.  The field
 * ARTRIE_KEY_LOCK keeps it apart from the advisory locks of SQL, which use
 * 1 and 2 there.  Two keys with the same hash only share the lock.  The
 * lock is never held while waiting for a transaction, as btree releases
 * its page first, so it cannot take part in a deadlock.
 *
 * The check reads entries under a scan hold (pager_hold.c), as a scan
 * under a non-MVCC snapshot does, so that VACUUM cannot let the heap reuse
 * a listed TID for another key's tuple before that TID has been checked.
 *
 * NULL keys are distinct unless the index says NULLS NOT DISTINCT; then
 * every entry of the NULL trie is the same key.
 *
 * Before PostgreSQL 18, INSERT ... ON CONFLICT supports btree UNIQUE
 * indexes alone: the executor fails with an internal error on a table
 * with any other.  A hook on parse analysis refuses such a statement
 * first, with an error that says why and what to do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "am/am.h"

/* The fourth field of the key lock's tag (see the file header). */
#define ARTRIE_KEY_LOCK			0x4152

/* The outcome of one pass of the check. */
typedef enum AmUniqueOutcome
{
	AM_UNIQUE_OK,				/* no conflict: insert */
	AM_UNIQUE_MAYBE,			/* a possible conflict, not waited for */
	AM_UNIQUE_WAIT,				/* wait for a transaction, then again */
	AM_UNIQUE_CONFLICT,			/* a committed live duplicate */
	AM_UNIQUE_SELF_DEAD			/* the tuple being checked is dead */
} AmUniqueOutcome;

/* One pass of the check: what it found and whom to wait for. */
typedef struct AmUniquePass
{
	AmUniqueOutcome outcome;
	bool		foundSelf;		/* UNIQUE_CHECK_EXISTING saw its own entry */
	TransactionId xwait;
	uint32		speculativeToken;
} AmUniquePass;

/*
 * The heap TIDs of the entries of one key: those beginning with prefix
 * (key || 0x00 in the key trie, nothing in the NULL trie), in a palloc'd
 * array; returns their number.
 */
static int
am_unique_list(Relation index, ArtTrie *trie, const uint8 *prefix,
			   Size prefixlen, ItemPointerData **tids)
{
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		len;
	ArtStatus	status;
	int			n = 0;
	int			size = 8;

	*tids = palloc(sizeof(ItemPointerData) * size);
	am_check_status(art_cursor_open(trie, &cursor), index, "checking");
	if (prefixlen > 0)
		am_check_status(art_cursor_set_prefix(cursor, prefix, prefixlen),
						index, "checking");
	am_check_status(art_cursor_seek(cursor, NULL, 0, true, ART_FORWARD),
					index, "checking");
	while ((status = art_cursor_next(cursor, &entry, &len)) == ART_OK)
	{
		if (n == size)
		{
			size *= 2;
			*tids = repalloc(*tids, sizeof(ItemPointerData) * size);
		}
		am_entry_tid(entry, len, &(*tids)[n++]);
	}
	art_cursor_close(cursor);
	if (status != ART_NOT_FOUND)
		am_check_status(status, index, "checking");
	return n;
}

/*
 * One pass of the check over the listed TIDs: fetch each heap tuple with
 * a dirty snapshot and judge it as _bt_check_unique does.
 */
static AmUniquePass
am_unique_pass(Relation heapRel, ItemPointer tid, IndexUniqueCheck checkUnique,
			   ItemPointerData *tids, int ntids)
{
	AmUniquePass pass;
	SnapshotData SnapshotDirty;
	int			i;

	InitDirtySnapshot(SnapshotDirty);
	memset(&pass, 0, sizeof(pass));
	pass.outcome = AM_UNIQUE_OK;

	for (i = 0; i < ntids; i++)
	{
		ItemPointerData htid = tids[i];

		if (checkUnique == UNIQUE_CHECK_EXISTING &&
			ItemPointerEquals(&htid, tid))
		{
			pass.foundSelf = true;
			continue;
		}

		/* follows the HOT chain, as the entry names its root */
		if (!table_index_fetch_tuple_check(heapRel, &htid, &SnapshotDirty,
										   NULL))
			continue;

		if (checkUnique == UNIQUE_CHECK_PARTIAL)
		{
			pass.outcome = AM_UNIQUE_MAYBE;
			return pass;
		}

		pass.xwait = TransactionIdIsValid(SnapshotDirty.xmin) ?
			SnapshotDirty.xmin : SnapshotDirty.xmax;
		if (TransactionIdIsValid(pass.xwait))
		{
			pass.outcome = AM_UNIQUE_WAIT;
			pass.speculativeToken = SnapshotDirty.speculativeToken;
			return pass;
		}

		/*
		 * A definite conflict, unless the tuple being inserted is itself
		 * dead by now (CREATE INDEX CONCURRENTLY inserts tuples that may
		 * have been deleted since).
		 */
		htid = *tid;
		pass.outcome = table_index_fetch_tuple_check(heapRel, &htid,
													 SnapshotSelf, NULL) ?
			AM_UNIQUE_CONFLICT : AM_UNIQUE_SELF_DEAD;
		return pass;
	}
	return pass;
}

/*
 * Insert entry (whose first prefixlen bytes are its key's) into a trie of
 * a UNIQUE index, checking first that no other live tuple has the key;
 * under UNIQUE_CHECK_EXISTING, only check.  values and isnull are the
 * index tuple's, for the error's detail.  Returns false when the check
 * was partial and found a possible conflict.
 */
bool
am_unique_insert(ArtrieIndex *ai, ArtTrie *trie, const uint8 *entry,
				 Size entrylen, Size prefixlen, ItemPointer tid,
				 Relation heapRel, IndexUniqueCheck checkUnique,
				 Datum *values, bool *isnull)
{
	Relation	index = ai->index;
	LOCKTAG		tag;
	AmUniquePass pass;
	int			hold = pager_hold_create(ai->file);

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, RelationGetRelid(index),
						 hash_bytes(entry, (int) prefixlen), ARTRIE_KEY_LOCK);

	for (;;)
	{
		ItemPointerData *tids;
		int			ntids;

		LockAcquire(&tag, ExclusiveLock, false, false);
		pager_hold_refresh(hold);
		ntids = am_unique_list(index, trie, entry, prefixlen, &tids);
		pass = am_unique_pass(heapRel, tid, checkUnique, tids, ntids);
		pfree(tids);
		if (pass.outcome != AM_UNIQUE_WAIT)
			break;

		LockRelease(&tag, ExclusiveLock, false);
		pager_hold_clear(hold);
		if (pass.speculativeToken != 0)
			SpeculativeInsertionWait(pass.xwait, pass.speculativeToken);
		else
			XactLockTableWait(pass.xwait, index, tid, XLTW_InsertIndex);
	}

	if (checkUnique != UNIQUE_CHECK_EXISTING &&
		pass.outcome != AM_UNIQUE_CONFLICT)
		am_insert_entry(ai, trie, entry, entrylen);
	LockRelease(&tag, ExclusiveLock, false);
	pager_hold_drop(hold);

	if (pass.outcome == AM_UNIQUE_CONFLICT)
	{
		char	   *key_desc = BuildIndexValueDescription(index, values, isnull);

		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("duplicate key value violates unique constraint \"%s\"",
						RelationGetRelationName(index)),
				 key_desc ? errdetail("Key %s already exists.", key_desc) : 0,
				 errtableconstraint(heapRel, RelationGetRelationName(index))));
	}
	if (checkUnique == UNIQUE_CHECK_EXISTING && !pass.foundSelf &&
		pass.outcome != AM_UNIQUE_SELF_DEAD)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("failed to re-find tuple within index \"%s\"",
						RelationGetRelationName(index)),
				 errhint("This may be because of a non-immutable index expression."),
				 errtableconstraint(heapRel, RelationGetRelationName(index))));

	return pass.outcome != AM_UNIQUE_MAYBE;
}

/*
 * At build: report two live tuples with the same key, as btree's sort
 * does.  key is the key's bytes, or NULL for a NULL key.
 */
void
am_unique_duplicate(Relation index, Relation heap, const uint8 *key,
					Size keylen)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	char	   *key_desc = NULL;

	if (IndexRelationGetNumberOfKeyAttributes(index) > 1)
	{
		if (am_cols_decode(index, key, keylen, values, isnull))
			key_desc = BuildIndexValueDescription(index, values, isnull);
	}
	else
	{
		isnull[0] = (key == NULL);
		values[0] = isnull[0] ? (Datum) 0 :
			am_key_datum(index, (const char *) key, keylen);
		key_desc = BuildIndexValueDescription(index, values, isnull);
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("could not create unique index \"%s\"",
					RelationGetRelationName(index)),
			 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
			 errdetail("Duplicate keys exist."),
			 errtableconstraint(heap, RelationGetRelationName(index))));
}

#if PG_VERSION_NUM < 180000
static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;

/*
 * Does the table have a UNIQUE index of access method amoid?  Read from
 * pg_index without locking the table, which may be a partition the
 * statement has not locked yet.
 */
static bool
am_has_unique_index(Oid relid, Oid amoid)
{
	Relation	pg_index = table_open(IndexRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;

	ScanKeyInit(&key, Anum_pg_index_indrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(pg_index, IndexIndrelidIndexId, true, NULL,
							  1, &key);
	while (!found && HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_index ind = (Form_pg_index) GETSTRUCT(tuple);
		HeapTuple	classTuple;

		if (!ind->indisunique)
			continue;
		classTuple = SearchSysCache1(RELOID, ObjectIdGetDatum(ind->indexrelid));
		if (HeapTupleIsValid(classTuple))
		{
			found = ((Form_pg_class) GETSTRUCT(classTuple))->relam == amoid;
			ReleaseSysCache(classTuple);
		}
	}
	systable_endscan(scan);
	table_close(pg_index, AccessShareLock);
	return found;
}

/*
 * Refuse INSERT ... ON CONFLICT, in the query or its WITH queries, into a
 * table of which it or a partition has a UNIQUE artrie index.  An insert
 * through a view is judged after rewriting, by the executor alone.
 */
static pg_attribute_hot void
am_check_on_conflict(Query *query)
{
	ListCell   *lc;
	Oid			amoid;
	List	   *rels;

	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

		if (IsA(cte->ctequery, Query))
			am_check_on_conflict((Query *) cte->ctequery);
	}
	if (query->commandType != CMD_INSERT || query->onConflict == NULL)
		return;
	amoid = get_index_am_oid("artrie", true);
	if (!OidIsValid(amoid))
		return;

	rels = find_all_inheritors(rt_fetch(query->resultRelation,
										query->rtable)->relid,
							   NoLock, NULL);
	foreach(lc, rels)
	{
		if (am_has_unique_index(lfirst_oid(lc), amoid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("INSERT ... ON CONFLICT is not supported on table \"%s\", which has a UNIQUE artrie index",
							get_rel_name(lfirst_oid(lc))),
					 errdetail("Before version 18, PostgreSQL supports INSERT ... ON CONFLICT only on tables whose UNIQUE indexes are all btree indexes."),
					 errhint("Keep the key unique with a btree UNIQUE index or constraint, and make the artrie index a plain one.")));
	}
}

/*
 * Parse analysis hook: the ON CONFLICT check.
 */
static pg_attribute_hot void
am_unique_post_parse_analyze(ParseState *pstate, Query *query,
							 JumbleState *jstate)
{
	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
	am_check_on_conflict(query);
}
#endif

/*
 * Install the parse analysis hook (from _PG_init), where it is needed.
 */
void
am_unique_init(void)
{
#if PG_VERSION_NUM < 180000
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = am_unique_post_parse_analyze;
#endif
}
