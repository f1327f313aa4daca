/*-------------------------------------------------------------------------
 *
 * func_verify.c
 *	  artrie_verify: check an index's structure and, optionally, that every
 *	  visible heap tuple is in it.
 *
 * The trie checks its own invariants (art_verify); this file adds what
 * only the access method knows: the shape of each entry (key, terminator,
 * TID; a bare TID in the NULL trie), keys valid in the database encoding,
 * the count of distinct keys the key trie keeps (artrie_stats) against its
 * entries, and with heapallindexed, one lookup per heap tuple visible to a
 * fresh MVCC snapshot, as amcheck's bt_index_check does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/index.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "utils/snapmgr.h"

#include "func/func.h"

PG_FUNCTION_INFO_V1(artrie_verify);

/* Raise the error for a corrupt index. */
static void pg_attribute_noreturn()
verify_fail(FuncIndex *fi, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" is corrupt: %s",
					RelationGetRelationName(fi->index), what),
			 errhint("REINDEX the index.")));
}

/* Run the trie's own structural check on one of the index's tries. */
static void
verify_trie(FuncIndex *fi, ArtTrie *trie, const char *which)
{
	char		msg[512];
	ArtStatus	status = art_verify(trie, msg, sizeof(msg));

	if (status == ART_CORRUPT)
		verify_fail(fi, psprintf("%s trie: %s", which, msg));
	am_check_status(status, fi->index, "verifying");
}

/*
 * A multicolumn index's key must decode into its columns (am_cols.c),
 * each string valid in the database encoding.
 */
static void
verify_cols_key(FuncIndex *fi, const uint8 *key, Size keylen, uint64 n)
{
	Relation	index = fi->index;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	int			col;

	if (!am_cols_decode(index, key, keylen, values, isnull))
		verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the key trie is not a key of the index's columns",
								 n));
	for (col = 0; col < IndexRelationGetNumberOfKeyAttributes(index); col++)
	{
		if (isnull[col] || !am_cols_is_string(index->rd_opcintype[col]))
			continue;
		if (index->rd_opcintype[col] == NAMEOID)
		{
			if (!pg_verifymbstr(NameStr(*DatumGetName(values[col])),
								strlen(NameStr(*DatumGetName(values[col]))),
								true))
				verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the key trie is not valid in the database encoding",
										 n));
		}
		else if (!pg_verifymbstr(VARDATA_ANY(DatumGetTextPP(values[col])),
								 VARSIZE_ANY_EXHDR(DatumGetTextPP(values[col])),
								 true))
			verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the key trie is not valid in the database encoding",
									 n));
		pfree(DatumGetPointer(values[col]));
	}
}

/*
 * Check the shape of every entry: key trie entries are key || 0x00 || TID
 * with no 0x00 in the key and the key valid in the database encoding
 * (a multicolumn key: each of its strings);
 * NULL trie entries are a bare TID.  TIDs must have a valid offset.  For
 * a key trie that counts its distinct keys, the count must equal the
 * distinct keys walked, if nothing changed the trie during the walk (its
 * content version did not move).
 */
static void
verify_entries(FuncIndex *fi, ArtTrie *trie, bool nulls)
{
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		len;
	ArtStatus	status;
	uint64		n = 0;
	uint64		version = art_version(trie);
	uint64		kept = 0;
	bool		counted = false;
	uint64		distinct = 0;
	uint8	   *prev = NULL;
	size_t		prevlen = 0;
	size_t		prevcap = 0;

	if (!nulls)
	{
		status = art_groups(trie, &kept);
		if (status != ART_NOT_FOUND)
		{
			am_check_status(status, fi->index, "reading the key count");
			counted = true;
		}
	}
	am_check_status(art_cursor_open(trie, &cursor), fi->index, "opening a cursor");
	am_check_status(art_cursor_seek(cursor, NULL, 0, true, ART_FORWARD),
					fi->index, "seeking");
	while ((status = art_cursor_next(cursor, &entry, &len)) == ART_OK)
	{
		ItemPointerData tid;

		CHECK_FOR_INTERRUPTS();
		n++;
		if (nulls ? len != ARTRIE_TID_LEN : len < ARTRIE_TID_LEN + 1)
			verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the %s trie is %zu bytes long",
									 n, nulls ? "NULL" : "key", len));
		if (!nulls)
		{
			size_t		keylen = len - 1 - ARTRIE_TID_LEN;

			if (entry[keylen] != 0x00 || memchr(entry, 0x00, keylen) != NULL)
				verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the key trie has no terminator after its key",
										 n));
			if (IndexRelationGetNumberOfKeyAttributes(fi->index) > 1)
				verify_cols_key(fi, entry, keylen, n);
			else if (!pg_verifymbstr((const char *) entry, (int) keylen, true))
				verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the key trie is not valid in the database encoding",
										 n));
			if (prev == NULL || keylen != prevlen || memcmp(entry, prev, keylen) != 0)
			{
				distinct++;
				if (keylen > prevcap || prev == NULL)
				{
					prevcap = Max(keylen, 64);
					prev = prev ? repalloc(prev, prevcap) : palloc(prevcap);
				}
				memcpy(prev, entry, keylen);
				prevlen = keylen;
			}
		}
		am_entry_tid(entry, len, &tid);
		if (!OffsetNumberIsValid(ItemPointerGetOffsetNumber(&tid)))
			verify_fail(fi, psprintf("entry " UINT64_FORMAT " of the %s trie has an invalid heap TID",
									 n, nulls ? "NULL" : "key"));
	}
	if (status != ART_NOT_FOUND)
		am_check_status(status, fi->index, "reading");
	art_cursor_close(cursor);
	if (counted && distinct != kept && art_version(trie) == version)
		verify_fail(fi, psprintf("it keeps a count of " UINT64_FORMAT " distinct keys, its entries hold " UINT64_FORMAT,
								 kept, distinct));
}

/* table_index_build_scan callback: the tuple's entry must be in the index. */
static void
verify_heap_tuple(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	FuncIndex  *fi = state;
	ArtStatus	status;

	if (IndexRelationGetNumberOfKeyAttributes(index) > 1)
	{
		bool		anynull;
		AmKey		key = am_cols_key(index, values, isnull, &anynull);
		Size		entrylen;
		uint8	   *entry = am_key_entry(key.data, key.len, tid, &entrylen);

		status = art_lookup(&fi->ai.keys, entry, entrylen);
		pfree(entry);
		am_key_free(&key);
	}
	else if (isnull[0])
	{
		uint8		entry[ARTRIE_TID_LEN];

		am_tid_encode(tid, entry);
		status = art_lookup(&fi->ai.nulls, entry, ARTRIE_TID_LEN);
	}
	else
	{
		AmKey		key = am_datum_key(index->rd_opcintype[0], values[0]);
		Size		entrylen;
		uint8	   *entry = am_key_entry(key.data, key.len, tid, &entrylen);

		status = art_lookup(&fi->ai.keys, entry, entrylen);
		pfree(entry);
	}
	if (status == ART_NOT_FOUND)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("heap tuple (%u,%u) from table \"%s\" lacks a matching entry in index \"%s\"",
						ItemPointerGetBlockNumber(tid),
						ItemPointerGetOffsetNumber(tid),
						RelationGetRelationName(fi->heap),
						RelationGetRelationName(index)),
				 errhint("REINDEX the index.")));
	am_check_status(status, index, "looking up");
}

/* Look up the entry of every heap tuple visible to a new MVCC snapshot. */
static void
verify_heap_all_indexed(FuncIndex *fi)
{
	IndexInfo  *indexInfo = BuildIndexInfo(fi->index);
	Snapshot	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	TableScanDesc scan;

	/* An MVCC scan: only tuples whose inserters had committed. */
	indexInfo->ii_Concurrent = true;
	scan = table_beginscan_strat(fi->heap, snapshot, 0, NULL, true, false);
	table_index_build_scan(fi->heap, fi->index, indexInfo, true, false,
						   verify_heap_tuple, fi, scan);
	UnregisterSnapshot(snapshot);
}

/*
 * artrie_verify(index, heapallindexed): raise an ERROR naming the first
 * violation found, or return nothing.  A partitioned index is verified by
 * verifying each of its partitions' indexes.
 */
Datum
artrie_verify(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	bool		partitioned;
	List	   *leaves = func_index_leaves(indexoid, &partitioned);
	ListCell   *lc;

	foreach(lc, leaves)
	{
		FuncIndex	fi;

		func_open_index(lfirst_oid(lc), &fi, !partitioned);
		verify_trie(&fi, &fi.ai.keys, "key");
		verify_trie(&fi, &fi.ai.nulls, "NULL");
		verify_entries(&fi, &fi.ai.keys, false);
		verify_entries(&fi, &fi.ai.nulls, true);
		if (heapallindexed)
			verify_heap_all_indexed(&fi);
		func_close_index(&fi);
	}
	PG_RETURN_VOID();
}
