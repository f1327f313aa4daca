/*-------------------------------------------------------------------------
 *
 * am_insert.c
 *	  aminsert for artrie: one trie insert per heap tuple (UNIQUE indexes
 *	  check the key first, in am_unique.c).
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
 * Insert one entry into one of the index's tries, and log it.
 */
void
am_insert_entry(ArtrieIndex *ai, ArtTrie *trie, const uint8 *entry, Size len)
{
	ArtStatus	status = art_insert(trie, entry, len);

	if (status == ART_OK)
		am_wal_entry(ai, WAL_ARTRIE_INSERT, trie, entry, len, 0);
	/* The same (key, TID) twice is harmless: the entry is there. */
	else if (status != ART_EXISTS)
		am_check_status(status, ai->index, "inserting into");
}

/*
 * aminsert: add (key, TID) to the key trie, or the TID to the NULL trie
 * (a multicolumn index keeps rows with NULLs in the key trie, am_cols.c);
 * for a UNIQUE index, after checking the key (am_unique.c).  Keys with a
 * NULL are checked only under NULLS NOT DISTINCT.
 */
bool
artrie_insert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique,
			  bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	ArtrieIndex *ai = am_insert_index(index, indexInfo);
	ArtTrie    *trie;
	uint8		tidEntry[ARTRIE_TID_LEN];
	uint8	   *entry;
	Size		entrylen;
	Size		prefixlen;
	AmKey		key = {0};
	bool		keyed = true;	/* the entry is in the key trie */
	bool		anynull = isnull[0];
	bool		result = true;
	bool		wasRandom;

	if (IndexRelationGetNumberOfKeyAttributes(index) > 1)
	{
		/* every row of a multicolumn index is in the key trie */
		trie = &ai->keys;
		key = am_cols_key(index, values, isnull, &anynull);
		am_check_key_length(index, key.len);
		entry = am_key_entry(key.data, key.len, ht_ctid, &entrylen);
		prefixlen = entrylen - ARTRIE_TID_LEN;
	}
	else if (isnull[0])
	{
		keyed = false;
		trie = &ai->nulls;
		am_tid_encode(ht_ctid, tidEntry);
		entry = tidEntry;
		entrylen = ARTRIE_TID_LEN;
		prefixlen = 0;
	}
	else
	{
		trie = &ai->keys;
		key = am_datum_key(index->rd_opcintype[0], values[0]);
		am_check_key_length(index, key.len);
		entry = am_key_entry(key.data, key.len, ht_ctid, &entrylen);
		prefixlen = entrylen - ARTRIE_TID_LEN;
	}

	/* one key's path: its reads are random probes, as an exact lookup's */
	wasRandom = pager_set_random_reads(true);
	if (checkUnique != UNIQUE_CHECK_NO &&
		(!anynull || index->rd_index->indnullsnotdistinct))
		result = am_unique_insert(ai, trie, entry, entrylen, prefixlen,
								  ht_ctid, heapRel, checkUnique,
								  values, isnull);
	else if (checkUnique != UNIQUE_CHECK_EXISTING)
		am_insert_entry(ai, trie, entry, entrylen);
	(void) pager_set_random_reads(wasRandom);

	if (keyed)
	{
		pfree(entry);
		am_key_free(&key);
	}
	return result;
}
