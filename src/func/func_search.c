/*-------------------------------------------------------------------------
 *
 * func_search.c
 *	  Questions only a trie answers cheaply: completion, prefix counts and
 *	  longest-prefix match (fuzzy search is in func_fuzzy.c).
 *
 * All of them walk the key trie, whose entries are key || 0x00 || TID, and
 * report a key only if one of its TIDs is visible to the caller.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "func/func.h"

PG_FUNCTION_INFO_V1(artrie_complete);
PG_FUNCTION_INFO_V1(artrie_prefix_count);
PG_FUNCTION_INFO_V1(artrie_prefixes_of);

/* Put a key into a one-column result row. */
static void
put_key(ReturnSetInfo *rsinfo, const uint8 *key, Size keylen)
{
	Datum		value = PointerGetDatum(cstring_to_text_with_len((const char *) key,
																 (int) keylen));
	bool		isnull = false;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
}

/* Order two keys (text) by their bytes. */
static int
key_cmp(const ListCell *a, const ListCell *b)
{
	text	   *x = lfirst(a);
	text	   *y = lfirst(b);

	return am_bytes_cmp((const uint8 *) VARDATA_ANY(x), VARSIZE_ANY_EXHDR(x),
						(const uint8 *) VARDATA_ANY(y), VARSIZE_ANY_EXHDR(y));
}

/*
 * The distinct visible keys of one index beginning with prefix, in byte
 * order, at most max_results: into the result, or appended to *keys when
 * keys is given.  After a key is found visible, the cursor jumps past all
 * its entries, so the work grows with the keys returned (and the dead
 * ones passed), not with the number of rows under the prefix.
 */
static void
complete_one(Oid indexoid, bool check_access, text *prefix, int32 max_results,
			 ReturnSetInfo *rsinfo, List **keys)
{
	FuncIndex	fi;
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		entrylen;
	ArtStatus	status = ART_OK;
	int32		found = 0;

	func_open_index(indexoid, &fi, check_access);
	if (max_results == 0)
	{
		func_close_index(&fi);
		return;
	}

	am_check_status(art_cursor_open(&fi.ai.keys, &cursor), fi.index, "opening a cursor");
	am_check_status(art_cursor_seek(cursor, (const uint8 *) VARDATA_ANY(prefix),
									VARSIZE_ANY_EXHDR(prefix), true, ART_FORWARD),
					fi.index, "seeking");
	am_check_status(art_cursor_set_prefix(cursor, (const uint8 *) VARDATA_ANY(prefix),
										  VARSIZE_ANY_EXHDR(prefix)),
					fi.index, "seeking");

	while (found < max_results &&
		   (status = art_cursor_next(cursor, &entry, &entrylen)) == ART_OK)
	{
		Size		keylen = entrylen - 1 - ARTRIE_TID_LEN;
		ItemPointerData tid;

		CHECK_FOR_INTERRUPTS();
		am_entry_tid(entry, entrylen, &tid);
		if (!func_tid_visible(&fi, &tid))
			continue;

		if (keys != NULL)
			*keys = lappend(*keys,
							cstring_to_text_with_len((const char *) entry, (int) keylen));
		else
			put_key(rsinfo, entry, keylen);
		found++;

		func_seek_past_key(&fi, cursor, entry, keylen);
		am_check_status(art_cursor_set_prefix(cursor,
											  (const uint8 *) VARDATA_ANY(prefix),
											  VARSIZE_ANY_EXHDR(prefix)),
						fi.index, "seeking");
	}
	if (found < max_results && status != ART_NOT_FOUND)
		am_check_status(status, fi.index, "reading");

	art_cursor_close(cursor);
	func_close_index(&fi);
}

/*
 * artrie_complete(index, prefix, max_results): the distinct visible keys
 * beginning with prefix, in byte order, at most max_results of them.  Of a
 * partitioned index, each partition's index gives its first max_results
 * and the merge keeps the first max_results distinct ones of them all.
 */
Datum
artrie_complete(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	int32		max_results = PG_GETARG_INT32(2);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *leaves;
	List	   *keys = NIL;
	bool		partitioned;
	text	   *last = NULL;
	int32		found = 0;
	ListCell   *lc;

	if (max_results < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_results must not be negative")));

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	leaves = func_index_leaves(indexoid, &partitioned);
	if (!partitioned)
	{
		complete_one(indexoid, true, prefix, max_results, rsinfo, NULL);
		return (Datum) 0;
	}

	foreach(lc, leaves)
		complete_one(lfirst_oid(lc), false, prefix, max_results, rsinfo, &keys);
	list_sort(keys, key_cmp);
	foreach(lc, keys)
	{
		text	   *key = lfirst(lc);

		if (found == max_results)
			break;
		if (last != NULL && VARSIZE_ANY_EXHDR(last) == VARSIZE_ANY_EXHDR(key) &&
			memcmp(VARDATA_ANY(last), VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)) == 0)
			continue;
		put_key(rsinfo, (const uint8 *) VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
		last = key;
		found++;
	}
	return (Datum) 0;
}

/*
 * artrie_prefix_count(index, prefix): index entries (non-NULL keys) whose
 * key begins with prefix, from the trie's subtree counts; of a partitioned
 * index, the sum over its partitions' indexes.  It counts entries, visible
 * or not, until VACUUM removes them.
 */
Datum
artrie_prefix_count(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	bool		partitioned;
	List	   *leaves = func_index_leaves(indexoid, &partitioned);
	uint64		total = 0;
	ListCell   *lc;

	foreach(lc, leaves)
	{
		FuncIndex	fi;
		uint64_t	count;

		func_open_index(lfirst_oid(lc), &fi, !partitioned);
		am_check_status(art_count_prefix(&fi.ai.keys,
										 (const uint8 *) VARDATA_ANY(prefix),
										 VARSIZE_ANY_EXHDR(prefix), &count),
						fi.index, "counting");
		func_close_index(&fi);
		total += count;
	}
	PG_RETURN_INT64((int64) total);
}

/* The prefix lengths art_prefixes_of reports, longest first. */
typedef struct PrefixLengths
{
	Size	   *lens;
	int			n;
	int			cap;
} PrefixLengths;

/* art_prefixes_of callback: remember one prefix length. */
static bool
collect_prefix(void *arg, size_t prefix_len)
{
	PrefixLengths *pl = arg;

	if (pl->n == pl->cap)
	{
		pl->cap *= 2;
		pl->lens = repalloc(pl->lens, sizeof(Size) * pl->cap);
	}
	pl->lens[pl->n++] = prefix_len;
	return true;
}

/* Order prefix lengths longest first. */
static int
prefix_len_cmp(const void *a, const void *b)
{
	Size		x = *(const Size *) a;
	Size		y = *(const Size *) b;

	return x > y ? -1 : (x < y ? 1 : 0);
}

/* Add to *visible the lengths of one index's visible keys that are prefixes of value. */
static void
prefixes_one(Oid indexoid, bool check_access, const uint8 *bytes, Size len,
			 PrefixLengths *visible)
{
	FuncIndex	fi;
	PrefixLengths pl;
	int			i;

	func_open_index(indexoid, &fi, check_access);
	pl.n = 0;
	pl.cap = 16;
	pl.lens = palloc(sizeof(Size) * pl.cap);
	am_check_status(art_prefixes_of(&fi.ai.keys, bytes, len, 0x00,
									collect_prefix, &pl),
					fi.index, "matching prefixes");
	for (i = 0; i < pl.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (func_key_visible(&fi, bytes, pl.lens[i]))
			collect_prefix(visible, pl.lens[i]);
	}
	func_close_index(&fi);
	pfree(pl.lens);
}

/*
 * artrie_prefixes_of(index, value): the distinct visible keys that are
 * prefixes of value (value itself included), longest first; of a
 * partitioned index, those of all its partitions' indexes.
 */
Datum
artrie_prefixes_of(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *value = PG_GETARG_TEXT_PP(1);
	const uint8 *bytes = (const uint8 *) VARDATA_ANY(value);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *leaves;
	bool		partitioned;
	PrefixLengths visible;
	ListCell   *lc;
	int			i;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	leaves = func_index_leaves(indexoid, &partitioned);

	visible.n = 0;
	visible.cap = 16;
	visible.lens = palloc(sizeof(Size) * visible.cap);
	foreach(lc, leaves)
		prefixes_one(lfirst_oid(lc), !partitioned, bytes,
					 VARSIZE_ANY_EXHDR(value), &visible);
	qsort(visible.lens, visible.n, sizeof(Size), prefix_len_cmp);
	for (i = 0; i < visible.n; i++)
	{
		if (i > 0 && visible.lens[i] == visible.lens[i - 1])
			continue;
		put_key(rsinfo, bytes, visible.lens[i]);
	}
	return (Datum) 0;
}
