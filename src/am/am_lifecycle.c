/*-------------------------------------------------------------------------
 *
 * am_lifecycle.c
 *	  Keeping an index's artrie file named after its relfilenode.
 *
 * An artrie file is named after the index's relfilenode, and the io
 * worker removes a file once that relfilenode's main fork is gone (see
 * src/pager/pager_sweep.c).  Most commands that give an index a new
 * relfilenode (REINDEX, TRUNCATE, VACUUM FULL, CLUSTER) build it anew,
 * and ambuild names the new file.  ALTER INDEX ... SET TABLESPACE (and
 * ALTER INDEX ALL IN TABLESPACE) does not: it copies the main fork to a
 * new relfilenode, so the copied metapage still names the file of the old
 * one.  An object access hook on the index's post-alter event therefore
 * copies the file to one named after the new relfilenode and rewrites the
 * metapage (and an UNLOGGED index's init fork metapage) to name it.  On
 * commit the old main fork goes and with it the old file; on abort the
 * new main fork goes and with it the copy.
 *
 * After pg_upgrade, whose main forks name files it did not carry,
 * am_adopt (for artrie_adopt) takes an index's file from the old cluster.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"

#include "am/am.h"

static object_access_hook_type prev_object_access_hook = NULL;

/*
 * An index's relfilenode.
 */
static Oid
am_lifecycle_relnumber(Relation index)
{
#if PG_VERSION_NUM >= 160000
	return index->rd_locator.relNumber;
#else
	return index->rd_node.relNode;
#endif
}

/*
 * A relation's relfilenode in pg_class, counting changes of the current
 * command, which the relation cache does not show yet.
 */
static Oid
am_lifecycle_catalog_relnumber(Oid relid)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			relnumber = InvalidOid;

	ScanKeyInit(&key, Anum_pg_class_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(pg_class, ClassOidIndexId, true, SnapshotSelf,
							  1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		relnumber = ((Form_pg_class) GETSTRUCT(tuple))->relfilenode;
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return relnumber;
}

/*
 * After an ALTER of an artrie index: if it has a new relfilenode whose
 * metapage names the old one's file, give it a copy of the file named
 * after the new relfilenode.
 */
static void
am_lifecycle_post_alter(Oid relid)
{
	Relation	index = RelationIdGetRelation(relid);
	ArtrieMetaPageData meta;
	ArtrieMetaPageData initmeta;
	ArtFileId	newid;

	if (!RelationIsValid(index))
		return;
	if (index->rd_rel->relkind != RELKIND_INDEX || index->rd_indam == NULL ||
		index->rd_indam->ambuild != artrie_build)
	{
		RelationClose(index);
		return;
	}

	/* Let the relation cache catch up with a new relfilenode. */
	if (am_lifecycle_catalog_relnumber(relid) != am_lifecycle_relnumber(index))
		CommandCounterIncrement();

	if (!am_meta_peek(index, MAIN_FORKNUM, &meta) ||
		meta.file.dbOid != MyDatabaseId ||
		meta.file.relNumber == am_lifecycle_relnumber(index))
	{
		RelationClose(index);
		return;
	}

	newid.dbOid = MyDatabaseId;
	newid.relNumber = am_lifecycle_relnumber(index);
	newid.generation = XidFromFullTransactionId(GetTopFullTransactionId());

	/* An UNLOGGED index due for reset after a crash gets a new file anyway. */
	if (!(meta.flags & ARTRIE_META_RESET))
	{
		pager_copy_file(&meta.file, &newid, RelationGetRelationName(index));
		am_wal_file(index, pager_open_file(&newid, RelationGetRelationName(index)),
					&newid);
	}
	meta.file = newid;
	am_meta_rewrite(index, MAIN_FORKNUM, &meta);
	if (am_meta_peek(index, INIT_FORKNUM, &initmeta))
	{
		initmeta.file = newid;
		am_meta_rewrite(index, INIT_FORKNUM, &initmeta);
	}
	RelationClose(index);
}

/*
 * After pg_upgrade: give the index the old cluster's file that its
 * metapage names (pager_adopt_file), and log the file's image.  An
 * UNLOGGED index is refused: its changes are in no WAL, and nothing
 * proves that the old cluster's stops kept them all.
 */
void
am_adopt(Relation index, const PagerAdoptSource *source)
{
	ArtrieMetaPageData meta;
	PagerFile  *file;

	if (index->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("UNLOGGED index \"%s\" cannot be adopted: nothing proves its file complete",
						RelationGetRelationName(index)),
				 errhint("REINDEX the index.")));
	if (!am_meta_peek(index, MAIN_FORKNUM, &meta))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("artrie index \"%s\" has no metapage",
						RelationGetRelationName(index)),
				 errhint("REINDEX the index.")));
	if (meta.file.dbOid != MyDatabaseId)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be adopted: its metapage names a file of database %u, this is database %u",
						RelationGetRelationName(index), meta.file.dbOid,
						MyDatabaseId),
				 errhint("REINDEX the index.")));
	file = pager_adopt_file(&meta.file, source, RelationGetRelationName(index));
	am_wal_file(index, file, &meta.file);
	CacheInvalidateRelcache(index);
}

/*
 * The object access hook: relations' post-alter events, after those of
 * any hook installed before.
 */
static pg_attribute_hot void
am_lifecycle_object_access(ObjectAccessType access, Oid classId,
						   Oid objectId, int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_POST_ALTER && classId == RelationRelationId &&
		subId == 0)
		am_lifecycle_post_alter(objectId);
}

/*
 * Install the hook (from am_init, in _PG_init).
 */
void
am_lifecycle_init(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = am_lifecycle_object_access;
}
