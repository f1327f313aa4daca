/*-------------------------------------------------------------------------
 *
 * am_insert.c
 *	  aminsert for artrie: one trie insert per heap tuple.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "am/am.h"

/*
 * The open index for this statement, kept in indexInfo->ii_AmCache so a
 * multi-row INSERT reads the metapage once.
 */
static ArtrieIndex *
am_insert_index(Relation index, IndexInfo *indexInfo)
{
	ArtrieIndex *ai = (ArtrieIndex *) indexInfo->ii_AmCache;

	if (ai == NULL || ai->index != index)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(indexInfo->ii_Context);

		ai = palloc(sizeof(ArtrieIndex));
		am_open(index, ai);
		indexInfo->ii_AmCache = ai;
		MemoryContextSwitchTo(oldcxt);
	}
	return ai;
}

/*
 * aminsert: add (key, TID) to the key trie, or the TID to the NULL trie.
 */
bool
artrie_insert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique,
			  bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	ArtrieIndex *ai = am_insert_index(index, indexInfo);
	ArtStatus	status;

	if (isnull[0])
	{
		uint8		entry[ARTRIE_TID_LEN];

		am_tid_encode(ht_ctid, entry);
		status = art_insert(&ai->nulls, entry, ARTRIE_TID_LEN);
		if (status == ART_OK)
			am_wal_entry(ai, WAL_ARTRIE_INSERT, &ai->nulls, entry, ARTRIE_TID_LEN);
	}
	else
	{
		AmKey		key = am_datum_key(index->rd_opcintype[0], values[0]);
		Size		entrylen;
		uint8	   *entry;

		am_check_key_length(index, key.len);
		entry = am_key_entry(key.data, key.len, ht_ctid, &entrylen);
		status = art_insert(&ai->keys, entry, entrylen);
		if (status == ART_OK)
			am_wal_entry(ai, WAL_ARTRIE_INSERT, &ai->keys, entry, entrylen);
		pfree(entry);
		am_key_free(&key);
	}

	/* The same (key, TID) twice is harmless: the entry is there. */
	if (status != ART_EXISTS)
		am_check_status(status, index, "inserting into");

	return false;
}
