/*-------------------------------------------------------------------------
 *
 * func_search.c
 *	  Questions only a trie answers cheaply: completion, prefix counts,
 *	  longest-prefix match and fuzzy search.
 *
 * All of them walk the key trie, whose entries are key || 0x00 || TID, and
 * report a key only if one of its TIDs is visible to the caller.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "func/func.h"
#include "trie/trie_fuzzy.h"

/* Longest fuzzy search term, in characters, as fuzzystrmatch's levenshtein(). */
#define FUZZY_MAX_TERM_CHARS	255

PG_FUNCTION_INFO_V1(artrie_complete);
PG_FUNCTION_INFO_V1(artrie_prefix_count);
PG_FUNCTION_INFO_V1(artrie_prefixes_of);
PG_FUNCTION_INFO_V1(artrie_fuzzy);

/* Put a key into a one-column result row. */
static void
put_key(ReturnSetInfo *rsinfo, const uint8 *key, Size keylen)
{
	Datum		value = PointerGetDatum(cstring_to_text_with_len((const char *) key,
																 (int) keylen));
	bool		isnull = false;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
}

/*
 * artrie_complete(index, prefix, max_results): the distinct visible keys
 * beginning with prefix, in byte order, at most max_results of them.
 * After a key is found visible, the cursor jumps past all its entries, so
 * the work grows with the keys returned (and the dead ones passed), not
 * with the number of rows under the prefix.
 */
Datum
artrie_complete(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	int32		max_results = PG_GETARG_INT32(2);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	FuncIndex	fi;
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		entrylen;
	ArtStatus	status = ART_OK;
	int32		found = 0;

	if (max_results < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_results must not be negative")));

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	func_open_index(indexoid, &fi);
	if (max_results == 0)
	{
		func_close_index(&fi);
		return (Datum) 0;
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
	return (Datum) 0;
}

/*
 * artrie_prefix_count(index, prefix): index entries (non-NULL keys) whose
 * key begins with prefix, from the trie's subtree counts.  It counts
 * entries, visible or not, until VACUUM removes them.
 */
Datum
artrie_prefix_count(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	FuncIndex	fi;
	uint64_t	count;

	func_open_index(indexoid, &fi);
	am_check_status(art_count_prefix(&fi.ai.keys,
									 (const uint8 *) VARDATA_ANY(prefix),
									 VARSIZE_ANY_EXHDR(prefix), &count),
					fi.index, "counting");
	func_close_index(&fi);
	PG_RETURN_INT64((int64) count);
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

/*
 * artrie_prefixes_of(index, value): the distinct visible keys that are
 * prefixes of value (value itself included), longest first.
 */
Datum
artrie_prefixes_of(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *value = PG_GETARG_TEXT_PP(1);
	const uint8 *bytes = (const uint8 *) VARDATA_ANY(value);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	FuncIndex	fi;
	PrefixLengths pl;
	int			i;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	func_open_index(indexoid, &fi);

	pl.n = 0;
	pl.cap = 16;
	pl.lens = palloc(sizeof(Size) * pl.cap);
	am_check_status(art_prefixes_of(&fi.ai.keys, bytes, VARSIZE_ANY_EXHDR(value),
									0x00, collect_prefix, &pl),
					fi.index, "matching prefixes");
	for (i = 0; i < pl.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (func_key_visible(&fi, bytes, pl.lens[i]))
			put_key(rsinfo, bytes, pl.lens[i]);
	}
	func_close_index(&fi);
	return (Datum) 0;
}

/* One entry the fuzzy walk found: its key (shared by a key's entries), distance and TID. */
typedef struct FuzzyHit
{
	char	   *key;
	Size		keylen;
	int			distance;
	ItemPointerData tid;
} FuzzyHit;

typedef struct FuzzyHits
{
	FuzzyHit   *hits;
	int			n;
	int			cap;
} FuzzyHits;

/* Characters of the database encoding, for the automaton. */
static int
fuzzy_db_charlen(const uint8_t *s)
{
	return pg_encoding_mblen(GetDatabaseEncoding(), (const char *) s);
}

/*
 * art_fuzzy callback: remember the entry.  Entries of one key arrive one
 * after another, so a key's bytes are stored once and shared.
 */
static bool
collect_fuzzy(void *arg, const uint8_t *entry, size_t len, size_t key_len,
			  int distance)
{
	FuzzyHits  *fh = arg;
	FuzzyHit   *hit;
	FuzzyHit   *last = fh->n > 0 ? &fh->hits[fh->n - 1] : NULL;

	if (len != key_len + 1 + ARTRIE_TID_LEN)
		return true;
	if (fh->n == fh->cap)
	{
		fh->cap *= 2;
		fh->hits = repalloc_huge(fh->hits, sizeof(FuzzyHit) * fh->cap);
		last = &fh->hits[fh->n - 1];
	}
	hit = &fh->hits[fh->n++];
	if (last != NULL && last->keylen == key_len &&
		memcmp(last->key, entry, key_len) == 0)
		hit->key = last->key;
	else
		hit->key = pnstrdup((const char *) entry, key_len);
	hit->keylen = key_len;
	hit->distance = distance;
	am_entry_tid(entry, len, &hit->tid);
	return true;
}

/* Order results by distance, then key bytes. */
static int
fuzzy_hit_cmp(const void *a, const void *b)
{
	const FuzzyHit *x = a;
	const FuzzyHit *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return am_bytes_cmp((const uint8 *) x->key, x->keylen,
						(const uint8 *) y->key, y->keylen);
}

/*
 * artrie_fuzzy(index, term, max_distance, transpositions): the distinct
 * visible keys within max_distance edits of term, as (key, distance),
 * ordered by distance then key.  Distances count characters of the
 * database encoding, as fuzzystrmatch's levenshtein() does; with
 * transpositions, swapping two adjacent characters is one edit.
 */
Datum
artrie_fuzzy(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *term = PG_GETARG_TEXT_PP(1);
	int32		max_distance = PG_GETARG_INT32(2);
	bool		transpositions = PG_GETARG_BOOL(3);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	FuncIndex	fi;
	ArtFuzzyQuery query;
	FuzzyHits	fh;
	FuzzyHit   *keys;
	int			nkeys = 0;
	int			i;

	if (max_distance < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_distance must not be negative")));
	if (pg_mbstrlen_with_len(VARDATA_ANY(term), VARSIZE_ANY_EXHDR(term)) >
		FUZZY_MAX_TERM_CHARS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("fuzzy search term is longer than %d characters",
						FUZZY_MAX_TERM_CHARS)));

	InitMaterializedSRF(fcinfo, 0);
	func_open_index(indexoid, &fi);

	query.term = (const uint8_t *) VARDATA_ANY(term);
	query.term_len = VARSIZE_ANY_EXHDR(term);
	query.max_distance = max_distance;
	query.transpositions = transpositions;
	query.terminator = 0x00;
	query.charlen = fuzzy_db_charlen;

	fh.n = 0;
	fh.cap = 64;
	fh.hits = palloc(sizeof(FuzzyHit) * fh.cap);
	am_check_status(art_fuzzy(&fi.ai.keys, &query, collect_fuzzy, &fh),
					fi.index, "searching");

	/* Keep each key once, if one of its entries is visible. */
	keys = palloc(sizeof(FuzzyHit) * Max(fh.n, 1));
	for (i = 0; i < fh.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (nkeys > 0 && keys[nkeys - 1].key == fh.hits[i].key)
			continue;
		if (func_tid_visible(&fi, &fh.hits[i].tid))
			keys[nkeys++] = fh.hits[i];
	}
	qsort(keys, nkeys, sizeof(FuzzyHit), fuzzy_hit_cmp);

	for (i = 0; i < nkeys; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(cstring_to_text_with_len(keys[i].key,
															 (int) keys[i].keylen));
		values[1] = Int32GetDatum(keys[i].distance);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	func_close_index(&fi);
	return (Datum) 0;
}
