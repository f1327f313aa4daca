/*-------------------------------------------------------------------------
 *
 * am_build.c
 *	  CREATE INDEX for artrie: sort every entry, then bulk-load the tries.
 *
 * The heap scan produces one value per heap tuple: a tag byte (0 for the
 * key trie, 1 for the NULL trie), the entry, and a byte saying whether the
 * heap tuple is live (no entry is a proper prefix of another, so that last
 * byte never decides the order).  The values are copied into an arena and
 * sorted there by art_sort_items, a radix sort over their bytes.  When the
 * arena and its item array fill maintenance_work_mem, what they hold is
 * sorted and written out as a run (am_build_runs.c) and the memory reused;
 * the runs are then merged with the last values, sorted in memory.  The
 * sorted stream gives each trie its entries in strictly increasing order,
 * the key trie's first; the trie's bulk loader packs them into pages.  For
 * a UNIQUE index the load also finds two live tuples with the same key,
 * which are adjacent in the stream but for dead tuples between them
 * (recently dead tuples are indexed and may share a live one's key).  The
 * loader's new pages do not go through the shared pool: the build's page
 * store (pager_build.c) writes them straight to the file in batches, each
 * written while the load goes on.  The new file is flushed, then its
 * image logged (from the build's copies of its pages), before ambuild
 * returns, so it is durable before the creating transaction commits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "am/am.h"

#define ARTRIE_TAG_KEY		0
#define ARTRIE_TAG_NULL		1

/* How often the load phase reports progress. */
#define ARTRIE_PROGRESS_EVERY	1024

/*
 * The arena's blocks: the first of ARTRIE_ARENA_BLOCK bytes, each next one
 * twice the last, up to ARTRIE_ARENA_BLOCK_MAX and an eighth of
 * maintenance_work_mem (a longer value gets a block of its own size).
 */
#define ARTRIE_ARENA_BLOCK		(1024 * 1024)
#define ARTRIE_ARENA_BLOCK_MAX	(32 * 1024 * 1024)

typedef struct ArtrieBuildState
{
	Relation	index;
	Relation	heap;
	double		indtuples;
	MemoryContext buildCxt;		/* the item array's and the runs' */

	/* the in-memory sort: values in arena blocks, items naming them */
	MemoryContext arenaCxt;
	uint8	   *block;			/* free space of the current block */
	Size		blockFree;
	Size		blockSize;		/* the last block's size */
	ArtSortItem *items;
	Size		nitems;
	Size		maxitems;
	Size		memUsed;		/* arena blocks and item array */
	Size		memLimit;
	Size		itemsHint;		/* the item array's first size */

	/* the sorted runs written, once the values outgrew memory; else NULL */
	AmBuildRuns *runs;

	/* the load: the next item, and the last live value (UNIQUE) */
	Size		nextItem;
	uint8	   *lastLive;
	Size		lastLiveLen;
	Size		lastLiveCap;
} ArtrieBuildState;

/*
 * Refuse collations whose equality is not byte equality, for the string
 * column col.
 */
static void
am_check_collation(Relation index, int col)
{
	Oid			collid = index->rd_indcollation[col];

	if (!OidIsValid(collid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for artrie index \"%s\"",
						RelationGetRelationName(index))));
	if (!get_collation_isdeterministic(collid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("artrie indexes do not support nondeterministic collations"),
				 errdetail("Index \"%s\" would use collation \"%s\", under which strings with different bytes can be equal.",
						   RelationGetRelationName(index),
						   get_collation_name(collid)),
				 errhint("Index the column with a deterministic collation, e.g. (col COLLATE \"C\").")));
}

/*
 * Refuse a citext column (or a domain over citext): it reaches artrie
 * through the text operator class, whose byte equality citext's
 * case-insensitive operators cannot use, so the index would never be
 * chosen.  citext is an extension's type, known here by its name.
 */
static void
am_check_type(Relation index, int col)
{
	Oid			typid = getBaseType(TupleDescAttr(RelationGetDescr(index), col)->atttypid);
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	bool		citext;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	citext = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "citext") == 0;
	ReleaseSysCache(tup);
	if (citext)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("artrie indexes do not support type citext"),
				 errdetail("Index \"%s\" would compare citext values as text, byte by byte, so citext's case-insensitive operators could never use it.",
						   RelationGetRelationName(index)),
				 errhint("Index an expression instead: (col::text) for case-sensitive lookups, or (lower(col::text)) for case-insensitive ones queried with lower(col::text).")));
}

/*
 * Check each column of the index: string columns for their collation and
 * type; an integer or uuid column only ahead of others (a single one is
 * btree's job); a multicolumn index only ascending, since its key is the
 * columns' values one after the other in ascending byte order.
 */
static void
am_check_columns(Relation index)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			col;

	for (col = 0; col < ncols; col++)
	{
		if (!am_cols_is_string(index->rd_opcintype[col]))
		{
			if (ncols == 1)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("artrie cannot index a single column of type %s",
								format_type_be(index->rd_opcintype[col])),
						 errhint("Index it with btree, or put it ahead of a text column in a multicolumn artrie index.")));
			continue;
		}
		am_check_collation(index, col);
		am_check_type(index, col);
	}
	if (ncols == 1)
		return;
	for (col = 0; col < ncols; col++)
		if (index->rd_indoption[col] & INDOPTION_DESC)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("multicolumn artrie indexes do not support DESC columns"),
					 errdetail("Column %d of index \"%s\" is DESC.", col + 1,
							   RelationGetRelationName(index)),
					 errhint("Leave out DESC: an ascending index is scanned backward for descending order.")));
}

/*
 * The values outgrew maintenance_work_mem: sort those in memory, write
 * them out as a run, and free their arena blocks for the next ones (the
 * item array stays).
 */
static void
am_build_write_run(ArtrieBuildState *bs)
{
	art_sort_items(bs->items, bs->nitems);
	if (bs->runs == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(bs->buildCxt);

		bs->runs = am_build_runs_create(bs->index);
		MemoryContextSwitchTo(oldcxt);
	}
	am_build_runs_write(bs->runs, bs->items, bs->nitems);
	bs->nitems = 0;
	MemoryContextReset(bs->arenaCxt);
	bs->memUsed = bs->maxitems * sizeof(ArtSortItem);
	bs->block = NULL;
	bs->blockFree = 0;
}

/*
 * Room for a value of len bytes in the arena, writing a run first if the
 * item array cannot grow or a new block would pass maintenance_work_mem
 * (one block is taken past it when no value is held, so that a run always
 * holds one).
 */
static uint8 *
am_build_reserve(ArtrieBuildState *bs, Size len)
{
	uint8	   *p;

	if (bs->nitems == bs->maxitems)
	{
		Size		newmax = bs->maxitems == 0 ? bs->itemsHint : bs->maxitems * 2;
		Size		grow = (newmax - bs->maxitems) * sizeof(ArtSortItem);

		if (bs->maxitems > 0 && bs->memUsed + grow > bs->memLimit)
			am_build_write_run(bs);
		else
		{
			bs->memUsed += grow;
			bs->items = bs->items == NULL ?
				MemoryContextAllocHuge(bs->buildCxt, newmax * sizeof(ArtSortItem)) :
				repalloc_huge(bs->items, newmax * sizeof(ArtSortItem));
			pager_advise_huge(bs->items, newmax * sizeof(ArtSortItem), 0);
			bs->maxitems = newmax;
		}
	}
	if (len > bs->blockFree)
	{
		Size		size = Min(Max(bs->blockSize * 2, ARTRIE_ARENA_BLOCK),
							   Min(ARTRIE_ARENA_BLOCK_MAX, bs->memLimit / 8));

		size = Max(len, size);
		if (bs->nitems > 0 && bs->memUsed + size > bs->memLimit)
			am_build_write_run(bs);
		bs->memUsed += size;
		bs->block = MemoryContextAllocHuge(bs->arenaCxt, size);
		pager_advise_huge(bs->block, size, 0);
		bs->blockFree = size;
		bs->blockSize = size;
	}
	p = bs->block;
	bs->block += len;
	bs->blockFree -= len;
	bs->items[bs->nitems].data = p;
	bs->items[bs->nitems].len = len;
	bs->nitems++;
	return p;
}

/*
 * Add one heap tuple's value to the sort.
 */
static void
am_build_callback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	ArtrieBuildState *bs = (ArtrieBuildState *) state;
	AmKey		key;
	Size		len;
	uint8	   *p;
	bool		keyed = !isnull[0];
	bool		anynull = isnull[0];

	if (IndexRelationGetNumberOfKeyAttributes(index) > 1)
	{
		key = am_cols_key(index, values, isnull, &anynull);
		keyed = true;
	}
	else if (keyed)
		key = am_datum_key(index->rd_opcintype[0], values[0]);
	else
		key.len = 0;
	if (keyed)
		am_check_key_length(index, key.len);

	/*
	 * A key with a NULL never conflicts under NULLS DISTINCT: for the
	 * UNIQUE check it counts as dead (the NULL trie's entries are told
	 * apart by their tag instead).
	 */
	if (keyed && anynull && !index->rd_index->indnullsnotdistinct)
		tupleIsAlive = false;

	/* tag, [key, terminator,] TID, liveness */
	len = 1 + (keyed ? key.len + 1 : 0) + ARTRIE_TID_LEN + 1;
	p = am_build_reserve(bs, len);
	if (!keyed)
	{
		p[0] = ARTRIE_TAG_NULL;
		am_tid_encode(tid, p + 1);
	}
	else
	{
		p[0] = ARTRIE_TAG_KEY;
		memcpy(p + 1, key.data, key.len);
		p[1 + key.len] = 0x00;
		am_tid_encode(tid, p + 2 + key.len);
	}
	p[len - 1] = tupleIsAlive ? 1 : 0;
	if (keyed)
		am_key_free(&key);
	bs->indtuples += 1;
}

/*
 * The next value in sorted order, or false at the end.  A value from the
 * runs' merge stays valid until the next call.
 */
static bool
am_build_next(ArtrieBuildState *bs, const uint8 **p, Size *len)
{
	if (bs->runs != NULL)
		return am_build_runs_next(bs->runs, p, len);
	if (bs->nextItem == bs->nitems)
		return false;
	am_build_prefetch(bs->items, bs->nitems,
					  bs->nextItem + AM_BUILD_PREFETCH_AHEAD);
	*p = bs->items[bs->nextItem].data;
	*len = bs->items[bs->nextItem].len;
	bs->nextItem++;
	return true;
}

/*
 * Remember a live value for the duplicate check of a UNIQUE index.
 */
static void
am_build_set_last_live(ArtrieBuildState *bs, const uint8 *p, Size len)
{
	if (len > bs->lastLiveCap)
	{
		if (bs->lastLive != NULL)
			pfree(bs->lastLive);
		bs->lastLiveCap = Max(len, 64);
		bs->lastLive = palloc(bs->lastLiveCap);
	}
	memcpy(bs->lastLive, p, len);
	bs->lastLiveLen = len;
}

/*
 * For a UNIQUE index: is this live value (p, len bytes) a duplicate of
 * the last live one?  Entries of the NULL trie all have the same key
 * under NULLS NOT DISTINCT, and none under NULLS DISTINCT.
 */
static bool
am_build_is_duplicate(ArtrieBuildState *bs, const uint8 *p, Size len)
{
	const uint8 *q = bs->lastLive;

	if (bs->lastLiveLen == 0)
		return false;
	if (q[0] != p[0])
		return false;
	if (p[0] == ARTRIE_TAG_NULL)
		return bs->index->rd_index->indnullsnotdistinct;
	/* the tag, the key and its terminator */
	return bs->lastLiveLen == len &&
		memcmp(p, q, len - ARTRIE_TID_LEN - 1) == 0;
}

/*
 * Load the sorted values into the two tries.
 */
static void
am_build_load(ArtrieBuildState *bs, ArtTrie *keys, ArtTrie *nulls)
{
	ArtBulkLoader *loader;
	int			tag = ARTRIE_TAG_KEY;
	int64		done = 0;
	const uint8 *p;
	Size		len;

	am_check_status(art_bulk_begin(keys, &loader), bs->index, "building");
	while (am_build_next(bs, &p, &len))
	{
		bool		alive = p[len - 1] != 0;

		if (bs->index->rd_index->indisunique && alive)
		{
			if (am_build_is_duplicate(bs, p, len))
				am_unique_duplicate(bs->index, bs->heap,
									p[0] == ARTRIE_TAG_KEY ? p + 1 : NULL,
									len - 2 - ARTRIE_TID_LEN - 1);
			am_build_set_last_live(bs, p, len);
		}

		if (p[0] != tag)
		{
			Assert(p[0] == ARTRIE_TAG_NULL);
			am_check_status(art_bulk_finish(loader), bs->index, "building");
			am_check_status(art_bulk_begin(nulls, &loader), bs->index,
							"building");
			tag = ARTRIE_TAG_NULL;
		}
		am_check_status(art_bulk_add(loader, p + 1, len - 2), bs->index,
						"building");

		if (++done % ARTRIE_PROGRESS_EVERY == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
			CHECK_FOR_INTERRUPTS();
		}
	}
	am_check_status(art_bulk_finish(loader), bs->index, "building");
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
}

/*
 * ambuild: create the index's artrie file, fill it from the heap, make it
 * durable, and write the metapage naming it.
 */
IndexBuildResult *
artrie_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	ArtrieBuildState bs;
	ArtrieMetaPageData meta;
	PagerFile  *file;
	PagerBuild *build;
	ArtTrie		keys;
	ArtTrie		nulls;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	am_check_columns(index);
	if (IsBinaryUpgrade)
		pager_note_upgraded_index();

	/*
	 * The generation is the building transaction's ID, so a file left
	 * behind by an earlier index with the same relfilenode never clashes.
	 */
	memset(&meta, 0, sizeof(meta));
	meta.magic = ARTRIE_META_MAGIC;
	meta.version = ARTRIE_FORMAT_VERSION;
	meta.file.dbOid = MyDatabaseId;
#if PG_VERSION_NUM >= 160000
	meta.file.relNumber = index->rd_locator.relNumber;
#else
	meta.file.relNumber = index->rd_node.relNode;
#endif
	meta.file.generation = XidFromFullTransactionId(GetTopFullTransactionId());

	/*
	 * A file of that name is left by an earlier build of this relfilenode
	 * in this transaction (TRUNCATE of a table created in it rebuilds its
	 * indexes in place); it holds nothing of use.
	 */
	pager_drop_file(&meta.file);
	file = pager_create_file(&meta.file, RelationGetRelationName(index));
	am_check_status(art_create_grouped(&keys, pager_page_store(file)), index,
					"creating");
	am_check_status(art_create(&nulls, pager_page_store(file)), index,
					"creating");
	meta.keyRoot = keys.root;
	meta.nullRoot = nulls.root;

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.heap = heap;
	bs.buildCxt = CurrentMemoryContext;
	bs.arenaCxt = AllocSetContextCreate(CurrentMemoryContext,
										"artrie build sort arena",
										ALLOCSET_DEFAULT_SIZES);
	bs.memLimit = (Size) maintenance_work_mem * 1024;

	/*
	 * The item array starts at the table's estimated row count (from the
	 * last VACUUM or ANALYZE), at most a quarter of the memory: so it is
	 * written once, not copied as it doubles, and in huge pages.
	 */
	bs.itemsHint = 1024;
	if (heap->rd_rel->reltuples > 0)
		bs.itemsHint = Max(bs.itemsHint,
						   (Size) Min((double) heap->rd_rel->reltuples * 1.05,
									  (double) (bs.memLimit / 4 / sizeof(ArtSortItem))));

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 ARTRIE_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   am_build_callback, &bs, NULL);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 ARTRIE_PHASE_SORT);
	art_sort_items(bs.items, bs.nitems);
	if (bs.runs != NULL)
		am_build_runs_merge_begin(bs.runs, bs.items, bs.nitems,
								  bs.memLimit / 4);

	{
		const int	progress_index[] = {
			PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
			PROGRESS_CREATEIDX_TUPLES_DONE
		};
		const int64 progress_vals[] = {
			ARTRIE_PHASE_LOAD,
			(int64) bs.indtuples,
			0
		};

		pgstat_progress_update_multi_param(3, progress_index, progress_vals);
	}
	build = am_wal_build_begin(index, file);
	keys.store = pager_build_store(build);
	nulls.store = keys.store;
	am_build_load(&bs, &keys, &nulls);
	pager_build_end(build);
	if (bs.runs != NULL)
		am_build_runs_end(bs.runs);
	MemoryContextDelete(bs.arenaCxt);
	if (bs.items != NULL)
		pfree(bs.items);
	if (bs.lastLive != NULL)
		pfree(bs.lastLive);

	am_wal_built_file(index, build);
	am_meta_init(index, MAIN_FORKNUM, &meta);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/*
 * ambuildempty: the init fork of an UNLOGGED index is a copy of its
 * metapage flagged for reset, so after a crash the index comes back with
 * a new, empty file, like its table.
 */
void
artrie_buildempty(Relation index)
{
	ArtrieIndex ai;
	ArtrieMetaPageData meta;

	am_open(index, &ai);
	meta = ai.meta;
	meta.flags |= ARTRIE_META_RESET;
	am_meta_init(index, INIT_FORKNUM, &meta);
}

/*
 * Names of the build subphases for pg_stat_progress_create_index.
 */
char *
artrie_buildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case ARTRIE_PHASE_SCAN:
			return "scanning table";
		case ARTRIE_PHASE_SORT:
			return "sorting entries";
		case ARTRIE_PHASE_LOAD:
			return "loading trie";
		default:
			return NULL;
	}
}
