/*-------------------------------------------------------------------------
 *
 * am_meta.c
 *	  The artrie metapage and the opening of an index's artrie file.
 *
 * Block 0 of the index's main fork names the artrie file (database,
 * relfilenode, generation) and the roots of its two tries.  It is written
 * once by ambuild through generic WAL; an UNLOGGED index's init fork gets
 * a copy flagged ARTRIE_META_RESET (see am.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/xlog.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "am/am.h"

#define ArtrieMetaPageGetData(page) \
	((ArtrieMetaPageData *) PageGetContents(page))

/*
 * What a backend keeps of an index in its relation cache entry
 * (rd_amcache, see am_meta_read): the metapage's contents, and once
 * am_open has opened it, the file's handle, with the pager's epoch of
 * handles then (pager_handles_epoch).  The entry goes, and these with it,
 * whenever the index gets a new file or a new name.
 */
typedef struct AmRelCache
{
	ArtrieMetaPageData meta;
	PagerFile  *file;			/* NULL until am_open keeps it */
	uint64		epoch;			/* pager_handles_epoch() when it was kept */
} AmRelCache;

/*
 * Lay out a metapage in page.
 */
static void
am_meta_fill(Page page, const ArtrieMetaPageData *meta)
{
	ArtrieMetaPageData *dst;

	PageInit(page, BLCKSZ, 0);
	dst = ArtrieMetaPageGetData(page);
	*dst = *meta;
	((PageHeader) page)->pd_lower = ((char *) dst + sizeof(ArtrieMetaPageData)) - (char *) page;
}

/*
 * Lay out a metapage in a buffer locked exclusive and WAL-log it.
 */
static void
am_meta_write(Relation index, ForkNumber fork, Buffer buf,
			  const ArtrieMetaPageData *meta)
{
	if (fork == INIT_FORKNUM)
	{
		/* Generic WAL skips unlogged relations; an init fork must be logged. */
		START_CRIT_SECTION();
		am_meta_fill(BufferGetPage(buf), meta);
		MarkBufferDirty(buf);
		log_newpage_buffer(buf, true);
		END_CRIT_SECTION();
	}
	else
	{
		GenericXLogState *state = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(state, buf,
													 GENERIC_XLOG_FULL_IMAGE);

		am_meta_fill(page, meta);
		GenericXLogFinish(state);
	}
}

/*
 * Write the metapage as block 0 of a new, empty fork of the index.
 */
void
am_meta_init(Relation index, ForkNumber fork, const ArtrieMetaPageData *meta)
{
	Buffer		buf;

#if PG_VERSION_NUM >= 160000
	buf = ExtendBufferedRel(BMR_REL(index), fork, NULL,
							EB_SKIP_EXTENSION_LOCK | EB_LOCK_FIRST);
#else
	buf = ReadBufferExtended(index, fork, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
#endif
	if (BufferGetBlockNumber(buf) != ARTRIE_METAPAGE_BLKNO)
		elog(ERROR, "artrie index \"%s\" is not empty",
			 RelationGetRelationName(index));
	am_meta_write(index, fork, buf, meta);
	UnlockReleaseBuffer(buf);
}

/*
 * Read the metapage of a fork as it is, without resetting anything; false
 * if the fork has none.
 */
bool
am_meta_peek(Relation index, ForkNumber fork, ArtrieMetaPageData *meta)
{
	Buffer		buf;

	if (!smgrexists(RelationGetSmgr(index), fork) ||
		smgrnblocks(RelationGetSmgr(index), fork) <= ARTRIE_METAPAGE_BLKNO)
		return false;
	buf = ReadBufferExtended(index, fork, ARTRIE_METAPAGE_BLKNO, RBM_NORMAL,
							 NULL);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*meta = *ArtrieMetaPageGetData(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
	return meta->magic == ARTRIE_META_MAGIC;
}

/*
 * Read the metapage in block 0 of a fork of a relation of any database,
 * without a relation cache entry (permanent: the fork's buffers are
 * written at checkpoints); false if it is not an artrie metapage.  The
 * caller knows the fork has that block.
 */
bool
am_meta_peek_at(AmRelLocator loc, ForkNumber fork, bool permanent,
				ArtrieMetaPageData *meta)
{
	Buffer		buf;

	buf = ReadBufferWithoutRelcache(loc, fork, ARTRIE_METAPAGE_BLKNO,
									RBM_NORMAL, NULL, permanent);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*meta = *ArtrieMetaPageGetData(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
	return meta->magic == ARTRIE_META_MAGIC;
}

/*
 * Replace that metapage, as a full page image in the WAL if logged (every
 * fork but an UNLOGGED index's main fork).  No process may have the
 * relation open: nothing is invalidated.
 */
void
am_meta_rewrite_at(AmRelLocator loc, ForkNumber fork, bool logged,
				   const ArtrieMetaPageData *meta)
{
	Buffer		buf;

	buf = ReadBufferWithoutRelcache(loc, fork, ARTRIE_METAPAGE_BLKNO,
									RBM_NORMAL, NULL, logged);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	am_meta_fill(BufferGetPage(buf), meta);
	MarkBufferDirty(buf);
	if (logged)
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
}

/*
 * Replace the metapage of an existing fork of the index, and make every
 * process drop its cached copy (am_meta_read).
 */
void
am_meta_rewrite(Relation index, ForkNumber fork, const ArtrieMetaPageData *meta)
{
	Buffer		buf;

	buf = ReadBufferExtended(index, fork, ARTRIE_METAPAGE_BLKNO, RBM_NORMAL,
							 NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	am_meta_write(index, fork, buf, meta);
	UnlockReleaseBuffer(buf);
	CacheInvalidateRelcache(index);
}

/*
 * Check a metapage's identity; ERROR if it is not one of ours.
 */
static void
am_meta_check(Relation index, const ArtrieMetaPageData *meta)
{
	if (meta->magic != ARTRIE_META_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not an artrie index",
						RelationGetRelationName(index)),
				 errhint("Rebuild the index with REINDEX.")));
	if (meta->version != ARTRIE_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("artrie index \"%s\" has format version %u, this build reads version %d",
						RelationGetRelationName(index), meta->version,
						ARTRIE_FORMAT_VERSION),
				 errhint("Rebuild the index with REINDEX.")));
}

/*
 * Give an UNLOGGED index reset after a crash a new, empty file.  The
 * metapage is locked exclusively meanwhile, so one backend does it.
 */
static void
am_meta_reset(Relation index, Buffer buf, ArtrieMetaPageData *meta)
{
	ArtFileId	newid = meta->file;
	PagerFile  *file;
	ArtTrie		keys;
	ArtTrie		nulls;
	ArtrieMetaPageData newmeta;
	GenericXLogState *state;
	Page		page;
	const char *relname = RelationGetRelationName(index);

	newid.generation++;
	pager_drop_file(&meta->file);
	pager_drop_file(&newid);	/* left by a reset before an earlier crash */
	file = pager_create_file(&newid, relname);
	am_check_status(art_create_grouped(&keys, pager_page_store(file)), index,
					"creating");
	am_check_status(art_create(&nulls, pager_page_store(file)), index,
					"creating");
	pager_flush_file(file);

	newmeta = *meta;
	newmeta.flags &= ~ARTRIE_META_RESET;
	newmeta.file = newid;
	newmeta.keyRoot = keys.root;
	newmeta.nullRoot = nulls.root;

	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	am_meta_fill(page, &newmeta);
	GenericXLogFinish(state);

	*meta = newmeta;
}

/*
 * Read the metapage into *meta, resetting the file of an UNLOGGED index
 * after a crash.
 *
 * The contents are kept in the relation cache entry's rd_amcache, as btree
 * keeps its metapage, so that a scan reads no buffer and asks the kernel
 * for no file size.  The metapage of an index changes only when it gets
 * a new relfilenode (build, REINDEX, TRUNCATE, ALTER INDEX SET
 * TABLESPACE: the relation cache entry is invalidated, which frees
 * rd_amcache, and am_meta_rewrite invalidates it once more) and when an
 * UNLOGGED index is reset after a crash, which no process running before
 * the crash survives: a metapage flagged ARTRIE_META_RESET is never kept.
 */
static void
am_meta_read(Relation index, ArtrieMetaPageData *meta)
{
	Buffer		buf;

	if (index->rd_amcache != NULL)
	{
		*meta = ((AmRelCache *) index->rd_amcache)->meta;
		return;
	}

	if (RelationGetNumberOfBlocks(index) <= ARTRIE_METAPAGE_BLKNO)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("artrie index \"%s\" has no metapage",
						RelationGetRelationName(index)),
				 errhint("Rebuild the index with REINDEX.")));

	buf = ReadBuffer(index, ARTRIE_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*meta = *ArtrieMetaPageGetData(BufferGetPage(buf));
	am_meta_check(index, meta);

	/* A copy made by CREATE DATABASE must not reset the original's file. */
	if ((meta->flags & ARTRIE_META_RESET) && meta->file.dbOid == MyDatabaseId)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		*meta = *ArtrieMetaPageGetData(BufferGetPage(buf));
		am_meta_check(index, meta);
		if (meta->flags & ARTRIE_META_RESET)
			am_meta_reset(index, buf, meta);
	}
	UnlockReleaseBuffer(buf);

	if (!(meta->flags & ARTRIE_META_RESET))
	{
		AmRelCache *cache = MemoryContextAllocZero(index->rd_indexcxt,
												   sizeof(AmRelCache));

		cache->meta = *meta;
		index->rd_amcache = cache;
	}
}

/*
 * Open an index: read its metapage, open its file through the pager (an
 * UNLOGGED index's is refused if the server stopped without writing it
 * whole, and on a hot standby one that redo has not finished rebuilding)
 * and point the two tries at their roots.  The file's handle is kept with
 * the metapage in the relation cache entry: the next scan takes it from
 * there, without the pager's lookup of the handle and its name, while no
 * handle of this process has gone since (a dropped file's, whose memory
 * the next may take).
 */
pg_attribute_hot void
am_open(Relation index, ArtrieIndex *ai)
{
	ArtPageStore store;
	AmRelCache *cache;

	ai->index = index;
	am_meta_read(index, &ai->meta);

	if (ai->meta.file.dbOid != MyDatabaseId)
	{
		char	   *dbname = get_database_name(ai->meta.file.dbOid);

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie index \"%s\" was copied from database %s by CREATE DATABASE",
						RelationGetRelationName(index),
						dbname ? quote_identifier(dbname) :
						psprintf("with OID %u", ai->meta.file.dbOid)),
				 errdetail("Its metapage names the artrie file of database %u, which CREATE DATABASE could not copy; this is database %u.",
						   ai->meta.file.dbOid, MyDatabaseId),
				 errhint("Rebuild the index in this database with REINDEX.")));
	}

	wal_check_usable(&ai->meta.file, RelationGetRelationName(index));
	cache = index->rd_amcache;
	if (cache != NULL && cache->file != NULL &&
		cache->epoch == pager_handles_epoch())
		ai->file = cache->file;
	else
	{
		ai->file = pager_open_file(&ai->meta.file,
								   RelationGetRelationName(index));
		if (cache != NULL)
		{
			cache->file = ai->file;
			cache->epoch = pager_handles_epoch();
		}
	}
	if (index->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
		pager_use_unlogged(ai->file);
	store = pager_page_store(ai->file);
	art_open(&ai->keys, store, ai->meta.keyRoot);
	art_open(&ai->nulls, store, ai->meta.nullRoot);
}

/*
 * Would am_open find everything it checks in place, with nothing to read
 * or load: the metapage kept, the file this database's, usable here and
 * open in this process?
 */
static bool
am_open_ready(Relation index)
{
	const AmRelCache *cache = index->rd_amcache;
	const ArtrieMetaPageData *meta = cache ? &cache->meta : NULL;

	return meta != NULL && meta->file.dbOid == MyDatabaseId &&
		wal_file_usable(&meta->file) &&
		pager_file_ready(&meta->file, RelationGetRelationName(index),
						 index->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED);
}

/*
 * am_open, with an error that the file cannot be used (a copied database,
 * a missing or damaged file) returned instead of raised: NULL if the index
 * is open, else the error, palloc'd.  Unless the file is open here already
 * (am_open_ready), it is opened in a subtransaction, which an error rolls
 * back with whatever the pager held; in parallel mode, where there are
 * none, an error is raised.
 */
pg_attribute_hot ErrorData *
am_try_open(Relation index, ArtrieIndex *ai)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	if (IsInParallelMode() || am_open_ready(index))
	{
		am_open(index, ai);
		return NULL;
	}

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		am_open(index, ai);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return edata;
}
