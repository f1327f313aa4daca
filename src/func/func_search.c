/*-------------------------------------------------------------------------
 *
 * func_search.c
 *	  Questions only a trie answers cheaply: completion, prefix counts and
 *	  longest-prefix match (fuzzy search is in func_fuzzy.c).
 *
 * All of them walk the key trie, whose entries are key || 0x00 || TID, and
 * report a key only if one of its TIDs is visible to the caller.  On a
 * multicolumn index, completion, prefix counts and prefix matches take the
 * values of the leading columns (leading_values => ARRAY['42']) and answer for
 * the last column's values below them (search_key_start).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

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
 * Refuse a call that does not fit the index's columns: a multicolumn index
 * needs the values of all its columns but the last (leading, as text, in
 * column order), whose last column is a string; a single-column index
 * takes none.
 */
static void
search_check_columns(FuncIndex *fi, ArrayType *leading, const char *function)
{
	Relation	index = fi->index;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	int			nleading = leading ? ArrayGetNItems(ARR_NDIM(leading),
													ARR_DIMS(leading)) : -1;

	if (ncols == 1 && leading != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("artrie index \"%s\" has one column, so %s takes no leading values",
						RelationGetRelationName(index), function)));
	if (leading == NULL)
		func_refuse_multicolumn(fi, function);
	if (ncols > 1 && nleading != ncols - 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("artrie index \"%s\" has %d leading columns, but %d leading values were given",
						RelationGetRelationName(index), ncols - 1, nleading)));
	if (ncols > 1 && !am_cols_is_string(index->rd_opcintype[ncols - 1]))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the last column of artrie index \"%s\" is not a string",
						RelationGetRelationName(index))));
}

/*
 * The bytes that the keys of the index's last column's values begin with
 * below the leading columns' values (each column's part, am_cols.c, and
 * the value marker of the last), into buf; nothing for a single-column
 * index.  Each leading value is read by its column type's input function.
 */
static void
search_key_start(FuncIndex *fi, ArrayType *leading, const char *function,
				 StringInfo buf)
{
	Relation	index = fi->index;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	Datum	   *texts;
	bool	   *nulls;
	int			n;
	int			col;

	search_check_columns(fi, leading, function);
	if (ncols == 1)
		return;
	deconstruct_array(leading, TEXTOID, -1, false, TYPALIGN_INT,
					  &texts, &nulls, &n);
	for (col = 0; col < ncols - 1; col++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), col);
		Oid			typinput;
		Oid			typioparam;
		Datum		value;
		AmKey		key;

		if (nulls[col])
		{
			appendStringInfoChar(buf, (char) am_cols_null_marker(index, col));
			continue;
		}
		getTypeInputInfo(att->atttypid, &typinput, &typioparam);
		value = OidInputFunctionCall(typinput, TextDatumGetCString(texts[col]),
									 typioparam, att->atttypmod);
		key = am_datum_key(index->rd_opcintype[col], value);
		am_cols_append(buf, am_cols_is_string(index->rd_opcintype[col]),
					   false, false, key.data, key.len);
		am_key_free(&key);
	}
	appendStringInfoChar(buf, AM_COL_VALUE);
}

/*
 * The distinct visible keys of one index beginning with prefix, in byte
 * order, at most max_results: into the result, or appended to *keys when
 * keys is given.  After a key is found visible, the cursor jumps past all
 * its entries, so the work grows with the keys returned (and the dead
 * ones passed), not with the number of rows under the prefix.
 */
static void
complete_one(Oid indexoid, bool check_access, ArrayType *leading,
			 text *prefix, int32 max_results, ReturnSetInfo *rsinfo,
			 List **keys)
{
	FuncIndex	fi;
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		entrylen;
	ArtStatus	status = ART_OK;
	int32		found = 0;
	StringInfoData start;
	Size		skip;

	func_open_index(indexoid, &fi, check_access);
	initStringInfo(&start);
	search_key_start(&fi, leading, "artrie_complete", &start);
	skip = start.len;
	appendBinaryStringInfo(&start, VARDATA_ANY(prefix),
						   VARSIZE_ANY_EXHDR(prefix));
	if (max_results == 0)
	{
		func_close_index(&fi);
		return;
	}

	am_check_status(art_cursor_open(&fi.ai.keys, &cursor), fi.index, "opening a cursor");
	am_check_status(art_cursor_seek(cursor, (const uint8 *) start.data,
									start.len, true, ART_FORWARD),
					fi.index, "seeking");
	am_check_status(art_cursor_set_prefix(cursor, (const uint8 *) start.data,
										  start.len),
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
							cstring_to_text_with_len((const char *) entry + skip,
													 (int) (keylen - skip)));
		else
			put_key(rsinfo, entry + skip, keylen - skip);
		found++;

		func_seek_past_key(&fi, cursor, entry, keylen);
		am_check_status(art_cursor_set_prefix(cursor,
											  (const uint8 *) start.data,
											  start.len),
						fi.index, "seeking");
	}
	if (found < max_results && status != ART_NOT_FOUND)
		am_check_status(status, fi.index, "reading");

	art_cursor_close(cursor);
	func_close_index(&fi);
}

/*
 * artrie_complete(index, prefix, max_results [, leading]): the distinct
 * visible keys (of a multicolumn index, last-column values below the
 * leading columns' values) beginning with prefix, in byte order, at most
 * max_results of them.  Of a partitioned index, each partition's index
 * gives its first max_results and the merge keeps the first max_results
 * distinct ones of them all.
 */
Datum
artrie_complete(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	int32		max_results = PG_GETARG_INT32(2);
	ArrayType  *leading = (PG_NARGS() > 3) ? PG_GETARG_ARRAYTYPE_P(3) : NULL;
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
		complete_one(indexoid, true, leading, prefix, max_results, rsinfo,
					 NULL);
		return (Datum) 0;
	}

	foreach(lc, leaves)
		complete_one(lfirst_oid(lc), false, leading, prefix, max_results,
					 rsinfo, &keys);
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
 * artrie_prefix_count(index, prefix [, leading]): index entries (non-NULL
 * keys; of a multicolumn index, below the leading columns' values) whose
 * key begins with prefix, from the trie's subtree counts; of a partitioned
 * index, the sum over its partitions' indexes.  It counts entries, visible
 * or not, until VACUUM removes them.
 */
Datum
artrie_prefix_count(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	ArrayType  *leading = (PG_NARGS() > 2) ? PG_GETARG_ARRAYTYPE_P(2) : NULL;
	bool		partitioned;
	List	   *leaves = func_index_leaves(indexoid, &partitioned);
	uint64		total = 0;
	ListCell   *lc;

	foreach(lc, leaves)
	{
		FuncIndex	fi;
		uint64_t	count;
		StringInfoData start;

		func_open_index(lfirst_oid(lc), &fi, !partitioned);
		initStringInfo(&start);
		search_key_start(&fi, leading, "artrie_prefix_count", &start);
		appendBinaryStringInfo(&start, VARDATA_ANY(prefix),
							   VARSIZE_ANY_EXHDR(prefix));
		am_check_status(art_count_prefix(&fi.ai.keys,
										 (const uint8 *) start.data,
										 start.len, &count),
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
prefixes_one(Oid indexoid, bool check_access, ArrayType *leading,
			 const uint8 *bytes, Size len, PrefixLengths *visible)
{
	FuncIndex	fi;
	PrefixLengths pl;
	StringInfoData key;
	Size		skip;
	int			i;

	func_open_index(indexoid, &fi, check_access);
	initStringInfo(&key);
	search_key_start(&fi, leading, "artrie_prefixes_of", &key);
	skip = key.len;
	appendBinaryStringInfo(&key, (const char *) bytes, len);
	pl.n = 0;
	pl.cap = 16;
	pl.lens = palloc(sizeof(Size) * pl.cap);
	am_check_status(art_prefixes_of(&fi.ai.keys, (const uint8 *) key.data,
									key.len, 0x00, collect_prefix, &pl),
					fi.index, "matching prefixes");
	for (i = 0; i < pl.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (pl.lens[i] >= skip &&
			func_key_visible(&fi, (const uint8 *) key.data, pl.lens[i]))
			collect_prefix(visible, pl.lens[i] - skip);
	}
	func_close_index(&fi);
	pfree(pl.lens);
}

/*
 * artrie_prefixes_of(index, value [, leading]): the distinct visible keys
 * (of a multicolumn index, last-column values below the leading columns'
 * values) that are prefixes of value (value itself included), longest first; of a
 * partitioned index, those of all its partitions' indexes.
 */
Datum
artrie_prefixes_of(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *value = PG_GETARG_TEXT_PP(1);
	ArrayType  *leading = (PG_NARGS() > 2) ? PG_GETARG_ARRAYTYPE_P(2) : NULL;
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
		prefixes_one(lfirst_oid(lc), !partitioned, leading, bytes,
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
