/*-------------------------------------------------------------------------
 *
 * func_fuzzy.c
 *	  Typo-tolerant questions: fuzzy search and fuzzy completion.
 *
 * Both run the trie's Levenshtein automaton (trie/trie_fuzzy.h) over the
 * key trie, whose entries are key || 0x00 || TID, count distances in
 * characters of the database encoding as fuzzystrmatch's levenshtein()
 * does, and report a key only if one of its TIDs is visible to the caller.
 * The walk holds share locks, so it only collects entries; their
 * visibility is checked after it.  Of a partitioned index, they answer
 * over its partitions' indexes (func_index_leaves) and give each key once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "func/func.h"
#include "trie/trie_fuzzy.h"

/* Longest fuzzy search term, in characters, as fuzzystrmatch's levenshtein(). */
#define FUZZY_MAX_TERM_CHARS	255

/* Largest max_distance artrie_fuzzy_complete takes. */
#define FUZZY_COMPLETE_MAX_DISTANCE	3

PG_FUNCTION_INFO_V1(artrie_fuzzy);
PG_FUNCTION_INFO_V1(artrie_fuzzy_complete);

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

/* One distinct key of a fuzzy completion: its entries are hits[first, first + n). */
typedef struct FuzzyKey
{
	FuzzyHit   *hit;
	int			first;
	int			n;
} FuzzyKey;

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

/* Order distinct keys by distance, then key bytes. */
static int
fuzzy_key_cmp(const void *a, const void *b)
{
	return fuzzy_hit_cmp(((const FuzzyKey *) a)->hit, ((const FuzzyKey *) b)->hit);
}

/*
 * Refuse a term that is not valid in the database encoding or longer than
 * FUZZY_MAX_TERM_CHARS characters; what names it in the message.
 */
static void
fuzzy_check_term(text *term, const char *what)
{
	const char *s = VARDATA_ANY(term);
	int			len = VARSIZE_ANY_EXHDR(term);

	pg_verifymbstr(s, len, false);
	if (pg_mbstrlen_with_len(s, len) > FUZZY_MAX_TERM_CHARS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s is longer than %d characters",
						what, FUZZY_MAX_TERM_CHARS)));
}

/* Set up a query of the key trie for term. */
static void
fuzzy_query(ArtFuzzyQuery *query, text *term, int max_distance,
			bool transpositions, bool prefix)
{
	memset(query, 0, sizeof(*query));
	query->term = (const uint8_t *) VARDATA_ANY(term);
	query->term_len = VARSIZE_ANY_EXHDR(term);
	query->max_distance = max_distance;
	query->transpositions = transpositions;
	query->prefix = prefix;
	query->terminator = 0x00;
	query->charlen = fuzzy_db_charlen;
}

/* Start an empty list of hits. */
static void
fuzzy_hits_init(FuzzyHits *fh)
{
	fh->n = 0;
	fh->cap = 64;
	fh->hits = palloc(sizeof(FuzzyHit) * fh->cap);
}

/* Add a copy of a key's hit (its key bytes copied too) to a list. */
static void
fuzzy_hits_add(FuzzyHits *fh, const FuzzyHit *hit)
{
	FuzzyHit   *copy;

	if (fh->n == fh->cap)
	{
		fh->cap *= 2;
		fh->hits = repalloc_huge(fh->hits, sizeof(FuzzyHit) * fh->cap);
	}
	copy = &fh->hits[fh->n++];
	*copy = *hit;
	copy->key = pnstrdup(hit->key, hit->keylen);
}

/*
 * Walk an opened index's key trie with the automaton; fh gets, in byte
 * order, the entries art_fuzzy reports.
 */
static void
fuzzy_collect(FuncIndex *fi, const ArtFuzzyQuery *query, FuzzyHits *fh)
{
	fuzzy_hits_init(fh);
	am_check_status(art_fuzzy(&fi->ai.keys, query, collect_fuzzy, fh),
					fi->index, "searching");
}

/*
 * Put the keys of out into the result, by distance then key, each once
 * (partitions may hold the same key, at the same distance), at most limit.
 */
static void
put_fuzzy_rows(ReturnSetInfo *rsinfo, FuzzyHits *out, int limit)
{
	int			put = 0;
	int			i;

	qsort(out->hits, out->n, sizeof(FuzzyHit), fuzzy_hit_cmp);
	for (i = 0; i < out->n && put < limit; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (i > 0 && fuzzy_hit_cmp(&out->hits[i - 1], &out->hits[i]) == 0)
			continue;
		values[0] = PointerGetDatum(cstring_to_text_with_len(out->hits[i].key,
															 (int) out->hits[i].keylen));
		values[1] = Int32GetDatum(out->hits[i].distance);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		put++;
	}
}

/* Add one index's distinct visible keys the fuzzy walk finds to out. */
static void
fuzzy_one(Oid indexoid, bool check_access, const ArtFuzzyQuery *query,
		  FuzzyHits *out)
{
	FuncIndex	fi;
	FuzzyHits	fh;
	const char *kept = NULL;
	int			i;

	func_open_index(indexoid, &fi, check_access);
	func_refuse_multicolumn(&fi, "artrie_fuzzy");
	fuzzy_collect(&fi, query, &fh);

	/* Keep each key once, if one of its entries is visible. */
	for (i = 0; i < fh.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (fh.hits[i].key == kept)
			continue;
		if (func_tid_visible(&fi, &fh.hits[i].tid))
		{
			fuzzy_hits_add(out, &fh.hits[i]);
			kept = fh.hits[i].key;
		}
	}
	func_close_index(&fi);
}

/* Group hits (in byte order) into distinct keys; returns how many. */
static int
fuzzy_group_keys(const FuzzyHits *fh, FuzzyKey *keys)
{
	int			nkeys = 0;
	int			i;

	for (i = 0; i < fh->n; i++)
	{
		if (nkeys > 0 && keys[nkeys - 1].hit->key == fh->hits[i].key)
		{
			keys[nkeys - 1].n++;
			continue;
		}
		keys[nkeys].hit = &fh->hits[i];
		keys[nkeys].first = i;
		keys[nkeys].n = 1;
		nkeys++;
	}
	return nkeys;
}

/* Whether one of a key's entries is visible to the caller. */
static bool
fuzzy_key_visible(FuncIndex *fi, const FuzzyHits *fh, const FuzzyKey *key)
{
	int			i;

	for (i = key->first; i < key->first + key->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (func_tid_visible(fi, &fh->hits[i].tid))
			return true;
	}
	return false;
}

/*
 * Add to out the first max_results distinct visible keys of one
 * index by (distance, key).  One walk asks the automaton for the first
 * max_results keys; it counts keys whether or not their rows are visible,
 * so when some of those are not, the walk runs again for twice as many,
 * until enough are visible or the walk reported every key within the
 * distance.
 */
static void
fuzzy_complete_one(Oid indexoid, bool check_access, ArtFuzzyQuery *query,
				   int max_results, FuzzyHits *out)
{
	FuncIndex	fi;
	MemoryContext round_cxt;
	MemoryContext oldcxt;
	int			want = max_results;

	func_open_index(indexoid, &fi, check_access);
	func_refuse_multicolumn(&fi, "artrie_fuzzy_complete");
	if (max_results == 0)
	{
		func_close_index(&fi);
		return;
	}
	round_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "artrie_fuzzy_complete",
									  ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		FuzzyHits	fh;
		FuzzyKey   *keys;
		bool	   *visible;
		int			nkeys;
		int			ranked;
		int			nvisible = 0;
		int			i;

		oldcxt = MemoryContextSwitchTo(round_cxt);
		query->max_keys = want;
		fuzzy_collect(&fi, query, &fh);
		keys = palloc(sizeof(FuzzyKey) * Max(fh.n, 1));
		nkeys = fuzzy_group_keys(&fh, keys);
		qsort(keys, nkeys, sizeof(FuzzyKey), fuzzy_key_cmp);

		/* Only the first want keys are surely the first ones. */
		ranked = Min(nkeys, want);
		visible = palloc0(sizeof(bool) * Max(ranked, 1));
		for (i = 0; i < ranked && nvisible < max_results; i++)
		{
			visible[i] = fuzzy_key_visible(&fi, &fh, &keys[i]);
			if (visible[i])
				nvisible++;
		}
		MemoryContextSwitchTo(oldcxt);

		if (nvisible >= max_results || nkeys < want || want == INT_MAX)
		{
			for (i = 0; i < ranked; i++)
				if (visible[i])
					fuzzy_hits_add(out, keys[i].hit);
			break;
		}
		want = want > INT_MAX / 2 ? INT_MAX : want * 2;
		MemoryContextReset(round_cxt);
	}
	MemoryContextDelete(round_cxt);
	func_close_index(&fi);
}

/*
 * The rows of a fuzzy search (max_results < 0: every key within
 * max_distance of term) or of a fuzzy completion (term a prefix, at most
 * max_results keys) over the index's leaves, returned as the function's
 * result set.
 */
static void
fuzzy_run(FunctionCallInfo fcinfo, Oid indexoid, text *term,
		  int32 max_distance, bool transpositions, int32 max_results)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		complete = max_results >= 0;
	List	   *leaves;
	bool		partitioned;
	ArtFuzzyQuery query;
	FuzzyHits	out;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	leaves = func_index_leaves(indexoid, &partitioned);
	fuzzy_query(&query, term, max_distance, transpositions, complete);
	fuzzy_hits_init(&out);
	foreach(lc, leaves)
	{
		if (complete)
			fuzzy_complete_one(lfirst_oid(lc), !partitioned, &query,
							   max_results, &out);
		else
			fuzzy_one(lfirst_oid(lc), !partitioned, &query, &out);
	}
	put_fuzzy_rows(rsinfo, &out, complete ? max_results : INT_MAX);
}

/*
 * artrie_fuzzy(index, term, max_distance, transpositions): the distinct
 * visible keys within max_distance edits of term, as (key, distance),
 * ordered by distance then key; of a partitioned index, those of all its
 * partitions' indexes.  Distances count characters of the database
 * encoding, as fuzzystrmatch's levenshtein() does; with transpositions,
 * swapping two adjacent characters is one edit.
 */
Datum
artrie_fuzzy(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *term = PG_GETARG_TEXT_PP(1);
	int32		max_distance = PG_GETARG_INT32(2);
	bool		transpositions = PG_GETARG_BOOL(3);

	if (max_distance < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_distance must not be negative")));
	fuzzy_check_term(term, "fuzzy search term");
	fuzzy_run(fcinfo, indexoid, term, max_distance, transpositions, -1);
	return (Datum) 0;
}

/*
 * artrie_fuzzy_complete(index, prefix, max_distance, max_results,
 * transpositions): the distinct visible keys whose prefix distance to
 * prefix is at most max_distance, as (key, distance), ordered by distance
 * then key, at most max_results of them; of a partitioned index, the first
 * of those of all its partitions' indexes (each key among the first of
 * every partition whose rows hold it).  A key's prefix distance is the
 * least edit distance (in characters, as artrie_fuzzy's) between prefix
 * and any prefix of the key, the empty one and the key itself included.
 */
Datum
artrie_fuzzy_complete(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	int32		max_distance = PG_GETARG_INT32(2);
	int32		max_results = PG_GETARG_INT32(3);
	bool		transpositions = PG_GETARG_BOOL(4);

	if (max_distance < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_distance must not be negative")));
	if (max_distance > FUZZY_COMPLETE_MAX_DISTANCE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_distance %d is above artrie_fuzzy_complete's limit of %d",
						max_distance, FUZZY_COMPLETE_MAX_DISTANCE),
				 errhint("Within %d edits of a short prefix nearly every key matches; use artrie_fuzzy() to match whole keys at a larger distance.",
						 FUZZY_COMPLETE_MAX_DISTANCE + 1)));
	if (max_results < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_results must not be negative")));
	fuzzy_check_term(prefix, "fuzzy completion prefix");
	fuzzy_run(fcinfo, indexoid, prefix, max_distance, transpositions,
			  max_results);
	return (Datum) 0;
}
