/*-------------------------------------------------------------------------
 *
 * am_scan.c
 *	  Index scans for artrie: plain, ordered (both directions), bitmap and
 *	  index-only.
 *
 * At rescan the scan keys become a list of segments, each a range of one
 * trie's entries [lo, hi), listed in the index's order:
 *
 *	- "=" v gives [v || 0x00, v || 0x01): exactly v's entries;
 *	- "^@" p gives [p, successor of p): the entries beginning with p;
 *	- LIKE ("~~") gives the segment of the pattern's literal prefix as
 *	  "^@" does, or of the literal as "=" does when the pattern has no
 *	  wildcard; a pattern that is more than the prefix and '%' (and any
 *	  "~~ ANY(array)") leaves LIKE itself to the recheck.  On bpchar the
 *	  literal loses its trailing blanks, as the keys have, and the
 *	  recheck also takes a pattern without wildcards and one whose literal
 *	  ends in a blank (am_like_pattern);
 *	- "<", "<=", ">=", ">" give byte-order bounds, but only when the index
 *	  collation orders strings as their bytes ("C", "POSIX"); under any
 *	  other collation they restrict nothing and every tuple is rechecked;
 *	- "= ANY(array)" gives one segment per distinct value, in byte order,
 *	  and "^@ ANY(array)" one per prefix not covered by a shorter one (a
 *	  second such list, or one beside "=", is left to the recheck);
 *	- IS NULL selects the NULL trie, IS NOT NULL (and any value qual) the
 *	  key trie; no qual at all selects both, NULLs last (or first under
 *	  NULLS FIRST).
 *
 * A multicolumn index's keys are its columns' parts in turn (am_cols.c):
 * the leading columns pinned to one value by "=" or IS NULL give a prefix,
 * the next column's quals give segments below it as above (its IS NULL one
 * of the key trie too), and quals on later columns are rechecked.
 *
 * A segment is read with a trie cursor, which holds no page lock between
 * calls (a prefix range's cursor may keep one page pinned, see
 * trie_cursor.c; closing or seeking it lets the page go).  The scan remembers the last entry it returned and, when the
 * scan direction changes, reopens the cursor strictly past that entry in
 * the new direction.
 *
 * The cursor returns whole batches (art_cursor_set_batched), as btree
 * returns the items it copied from a leaf page: each batch holds the
 * entries of its range present when it was read, but for entries inserted
 * meanwhile.  That gives an MVCC scan every entry it may need: an entry
 * inserted after the scan started belongs to a tuple its snapshot cannot
 * see, and an entry removed since the batch was read belongs to a tuple
 * dead to every snapshot, whose TID the heap can reuse only after
 * VACUUM's bulk delete returns; a tuple stored later at that TID is again
 * invisible to the snapshot.  Two kinds of scan need more, as btree keeps its leaf
 * page pinned for them: an index-only scan takes the key from the entry
 * and may skip the heap (the visibility map may call the page all-visible
 * once the TID is unused), and a scan under a non-MVCC snapshot may see a
 * tuple stored later at a reused TID.  Those take a scan hold (see
 * pager_hold.c): the bulk delete waits until they have used up every
 * batch read before its deletions.  Bitmap scans collect every TID before
 * the heap is read, as with any index, and need nothing more.
 *
 * Until a scan has returned AM_SCAN_RANDOM_ENTRIES entries its reads are
 * random probes (pager_set_random_reads): a page it misses is read alone.
 * An exact lookup or a short scan (LIMIT 10) uses only the pages on its
 * path, and the pages read around each of them would be read for nothing
 * on an index larger than the kernel's cache.  A scan that goes on past
 * that streams through the trie and reads around the pages it misses.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/xact.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "am/am.h"

/* A byte string. */
typedef struct AmBytes
{
	uint8	   *data;
	Size		len;
} AmBytes;

/* A range of one trie's entries: [lo, hi); NULL data means unbounded. */
typedef struct ArtrieSegment
{
	bool		nulls;			/* in the NULL trie, else the key trie */
	AmBytes		lo;
	AmBytes		hi;
} ArtrieSegment;

/*
 * Bytes of the bounds of one "=", "^@" or LIKE value that the scan holds
 * in itself (a key or pattern of up to 63 bytes), so that a prepared exact
 * lookup's or a prefix scan's rescan allocates nothing.
 */
#define AM_SCAN_EQ_INLINE	128

typedef struct ArtrieScanOpaqueData
{
	ArtrieIndex ai;
	MemoryContext scanCxt;		/* lives as long as the scan */
	MemoryContext keyCxt;		/* segments after the first rescan (reset at
								 * each), or NULL */
	bool		rescanned;		/* amrescan has made segments once */
	ArtrieSegment eqseg;		/* the segment of one "=", "^@" or LIKE value */
	uint8	   *eqbuf;			/* its bounds' bytes: eqinline, or palloc'd */
	Size		eqcap;			/* bytes allocated at eqbuf */
	HeapTuple	tup;			/* the index-only tuple, reused */
	HeapTuple	nullTup;		/* the index-only tuple of a NULL */
	MemoryContext tupCxt;		/* a multicolumn index-only tuple, or NULL */
	Size		tupcap;			/* bytes allocated at tup */
	ArtrieSegment *segs;
	int			nsegs;
	bool		recheck;		/* some qual was not applied exactly */
	int			ncols;			/* the index's key columns */
	bool		desc;			/* the index column is DESC */
	bool		started;
	int64		nreturned;		/* entries returned since the rescan */
	int			cur;			/* current segment; may be -1 or nsegs */
	ArtCursor  *cursor;			/* open on segs[cur], or NULL */
	ArtRun		run;			/* the cursor's entries being returned */
	int			irun;			/* the next one of them to return */
	ArtCursor  *spare[2];		/* closed cursors kept for reuse: keys, NULLs */
	uint64		lentAt;			/* am_cursor_era when it took the backend's
								 * cursor, if it did */
	int			hold;			/* scan hold (pager_hold.c), or -1 */
	bool		cursorForward;	/* the scan direction it was opened for */
	uint8	   *last;			/* the last entry returned */
	Size		lastlen;
	Size		lastcap;
	bool		haveLast;		/* entry (or a copy in last) is in segs[cur] */
	const uint8 *entry;			/* the last entry returned, in the cursor's
								 * memory until its next call */
	Size		entrylen;
	bool		lastIsNull;		/* last came from the NULL trie */
	uint8		eqinline[AM_SCAN_EQ_INLINE];	/* eqbuf at first (left out
												 * of the zeroing) */
} ArtrieScanOpaqueData;

/* Entries a scan returns before its reads stop being random probes. */
#define AM_SCAN_RANDOM_ENTRIES	32

typedef ArtrieScanOpaqueData *ArtrieScanOpaque;

/*
 * A palloc'd copy of bytes, with extra bytes appended (-1 for none).
 */
static AmBytes
am_bytes_make(const char *data, Size len, int extra)
{
	AmBytes		b;

	b.len = len + (extra >= 0 ? 1 : 0);
	b.data = palloc(b.len + 1);
	memcpy(b.data, data, len);
	if (extra >= 0)
		b.data[len] = (uint8) extra;
	return b;
}

/*
 * The length of the successor of prefix p (am_bytes_successor): p less its
 * trailing 0xFF bytes, whose last byte the successor raises by one; 0 when
 * there is none (p empty or all 0xFF).
 */
static Size
am_successor_len(const char *p, Size len)
{
	while (len > 0 && (uint8) p[len - 1] == 0xFF)
		len--;
	return len;
}

/*
 * The least byte string greater than every string beginning with p, or
 * NULL data when there is none (p empty or all 0xFF).
 */
static AmBytes
am_bytes_successor(const char *p, Size len)
{
	AmBytes		b = {NULL, 0};

	len = am_successor_len(p, len);
	if (len == 0)
		return b;
	b = am_bytes_make(p, len, -1);
	b.data[len - 1]++;
	return b;
}

/* Raise a lower bound to b (NULL data: no bound). */
static void
am_raise_lo(AmBytes *lo, AmBytes b)
{
	if (b.data == NULL)
		return;
	if (lo->data == NULL || am_bytes_cmp(b.data, b.len, lo->data, lo->len) > 0)
		*lo = b;
}

/* Lower an upper bound to b (NULL data: no bound). */
static void
am_lower_hi(AmBytes *hi, AmBytes b)
{
	if (b.data == NULL)
		return;
	if (hi->data == NULL || am_bytes_cmp(b.data, b.len, hi->data, hi->len) < 0)
		*hi = b;
}

/* Is [lo, hi) empty? */
static bool
am_range_empty(AmBytes lo, AmBytes hi)
{
	if (hi.data == NULL)
		return false;
	if (lo.data == NULL)
		return hi.len == 0;
	return am_bytes_cmp(lo.data, lo.len, hi.data, hi.len) >= 0;
}

/* qsort comparator for AmBytes. */
static int
am_bytes_qsort_cmp(const void *a, const void *b)
{
	const AmBytes *x = (const AmBytes *) a;
	const AmBytes *y = (const AmBytes *) b;

	return am_bytes_cmp(x->data, x->len, y->data, y->len);
}

/*
 * Sort n values and drop the duplicates; returns how many are left.
 */
static int
am_values_distinct(AmBytes *values, int n)
{
	int			i;
	int			k = 1;

	if (n <= 1)
		return n;
	qsort(values, n, sizeof(AmBytes), am_bytes_qsort_cmp);
	for (i = 1; i < n; i++)
		if (am_bytes_qsort_cmp(&values[i], &values[k - 1]) != 0)
			values[k++] = values[i];
	return k;
}

/*
 * The non-NULL values of a scan key: its argument, or its array's
 * elements; sorted and distinct.
 */
static AmBytes *
am_key_values(ScanKey sk, Oid typid, int *nvalues)
{
	AmBytes    *values;
	int			n = 0;

	if (sk->sk_flags & SK_SEARCHARRAY)
	{
		AmKey	   *keys;
		int			nkeys = am_array_keys(typid, sk->sk_argument, &keys);
		int			i;

		values = palloc(sizeof(AmBytes) * Max(nkeys, 1));
		for (i = 0; i < nkeys; i++)
			values[n++] = am_bytes_make(keys[i].data, keys[i].len, -1);
	}
	else
	{
		AmKey		key = am_datum_key(typid, sk->sk_argument);

		values = palloc(sizeof(AmBytes));
		values[n++] = am_bytes_make(key.data, key.len, -1);
	}
	*nvalues = am_values_distinct(values, n);
	return values;
}

/*
 * The literal prefixes (am_like_pattern) of a LIKE scan key's pattern, or
 * of its array's non-NULL patterns, on keys of type typid, sorted and
 * distinct; *kind says what the pattern asks of the keys beginning with
 * its prefix (for an array, always AM_LIKE_OTHER: each key is rechecked).
 */
static AmBytes *
am_like_values(ScanKey sk, Oid typid, int *nvalues, AmLikeKind *kind)
{
	Datum	   *elems = &sk->sk_argument;
	bool	   *nulls = NULL;
	int			nelems = 1;
	AmBytes    *values;
	int			n = 0;
	int			i;

	if (sk->sk_flags & SK_SEARCHARRAY)
		deconstruct_array(DatumGetArrayTypeP(sk->sk_argument), TEXTOID, -1,
						  false, TYPALIGN_INT, &elems, &nulls, &nelems);
	values = palloc(sizeof(AmBytes) * Max(nelems, 1));
	*kind = AM_LIKE_OTHER;
	for (i = 0; i < nelems; i++)
	{
		text	   *patt;
		int			len;

		if (nulls != NULL && nulls[i])
			continue;
		patt = DatumGetTextPP(elems[i]);
		len = VARSIZE_ANY_EXHDR(patt);
		values[n].data = palloc(len + 1);
		*kind = am_like_pattern(typid, VARDATA_ANY(patt), len,
								(char *) values[n].data, &len);
		values[n++].len = len;
	}
	if (sk->sk_flags & SK_SEARCHARRAY)
		*kind = AM_LIKE_OTHER;
	*nvalues = am_values_distinct(values, n);
	return values;
}

/*
 * Keep in vals only the values also in other (both sorted and distinct).
 */
static int
am_values_intersect(AmBytes *vals, int nvals, const AmBytes *other, int nother)
{
	int			i = 0;
	int			j = 0;
	int			k = 0;

	while (i < nvals && j < nother)
	{
		int			c = am_bytes_qsort_cmp(&vals[i], &other[j]);

		if (c == 0)
		{
			vals[k++] = vals[i];
			i++;
			j++;
		}
		else if (c < 0)
			i++;
		else
			j++;
	}
	return k;
}

/*
 * Drop from sorted, distinct prefixes every one that begins with an
 * earlier one; the rest cover disjoint, ordered ranges.
 */
static int
am_prefixes_minimal(AmBytes *pfx, int npfx)
{
	int			i;
	int			k = 0;

	for (i = 0; i < npfx; i++)
	{
		if (k > 0 && pfx[i].len >= pfx[k - 1].len &&
			memcmp(pfx[i].data, pfx[k - 1].data, pfx[k - 1].len) == 0)
			continue;
		pfx[k++] = pfx[i];
	}
	return k;
}

/*
 * Add the key-trie segment [lo, hi) unless it is empty.
 */
static void
am_add_keyseg(ArtrieSegment *segs, int *nsegs, AmBytes lo, AmBytes hi)
{
	if (am_range_empty(lo, hi))
		return;
	segs[*nsegs].nulls = false;
	segs[*nsegs].lo = lo;
	segs[*nsegs].hi = hi;
	(*nsegs)++;
}

/*
 * The key of a value (raw, as am_key_values gives it) in the index's
 * column col: the value itself in a single-column index (prefix NULL),
 * else the prefix (the parts of the columns before it), then its part
 * (am_cols.c); with asprefix, the part of a prefix for "^@".
 */
static AmBytes
am_scan_part(Relation index, int col, const AmBytes *prefix, AmBytes raw,
			 bool asprefix)
{
	StringInfoData buf;
	AmBytes		b;

	if (prefix == NULL)
		return raw;
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) prefix->data, prefix->len);
	am_cols_append(&buf, am_cols_is_string(index->rd_opcintype[col]),
				   col == IndexRelationGetNumberOfKeyAttributes(index) - 1,
				   asprefix, (char *) raw.data, raw.len);
	b.data = (uint8 *) buf.data;
	b.len = buf.len;
	return b;
}

/*
 * The first and the bound past the last entry of a key x whose column ends
 * the key: the last column's key is followed by the terminator, an earlier
 * column's by the later columns.
 */
static AmBytes
am_key_first(AmBytes x, bool last)
{
	return last ? am_bytes_make((char *) x.data, x.len, 0x00) : x;
}

/* See am_key_first. */
static AmBytes
am_key_end(AmBytes x, bool last)
{
	return last ? am_bytes_make((char *) x.data, x.len, 0x01)
		: am_bytes_successor((char *) x.data, x.len);
}

/*
 * The type of a scan key's argument as am_datum_key reads it: the column's
 * for strings, the operator's right type for the integers of the
 * cross-type operators.
 */
static Oid
am_scan_argtype(Relation index, ScanKey sk)
{
	Oid			typid = index->rd_opcintype[sk->sk_attno - 1];

	if (!am_cols_is_string(typid) && OidIsValid(sk->sk_subtype))
		return sk->sk_subtype;
	return typid;
}

/*
 * Turn the scan keys on the index's column col into key-trie segments
 * (keysegs, ascending), for a single-column index (prefix NULL) or below
 * the prefix of a multicolumn one.  Says through *wantNulls whether the
 * quals ask for NULLs only (a single-column index: the NULL trie, left to
 * the caller) and through *wantKeys for non-NULL values only; false when
 * nothing can match.
 */
static bool
am_scan_column(IndexScanDesc scan, int col, const AmBytes *prefix,
			   ArtrieSegment **keysegs, int *nkeysegs, bool *wantNulls,
			   bool *wantKeys)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	bool		last = (col == IndexRelationGetNumberOfKeyAttributes(index) - 1);
	bool		bytewise = !am_cols_is_string(index->rd_opcintype[col]) ||
		am_collation_is_bytewise(index->rd_indcollation[col]);
	bool		impossible = false;
	AmBytes		lo = {NULL, 0};
	AmBytes		hi = {NULL, 0};
	AmBytes    *vals = NULL;
	int			nvals = -1;		/* -1: no "=" qual */
	AmBytes    *pfx = NULL;
	int			npfx = -1;		/* -1: no "^@ ANY" qual */
	int			i;

	*wantNulls = false;
	*wantKeys = false;
	if (prefix != NULL)
	{
		/* the column's non-NULL values */
		lo = am_bytes_make((char *) prefix->data, prefix->len, AM_COL_VALUE);
		hi = am_bytes_make((char *) prefix->data, prefix->len,
						   AM_COL_VALUE + 1);
	}

	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		StrategyNumber strategy;
		AmBytes    *kv;
		int			nkv;
		AmBytes		x;

		if (sk->sk_attno != col + 1)
			continue;
		if (sk->sk_flags & SK_ISNULL)
		{
			if (sk->sk_flags & SK_SEARCHNULL)
				*wantNulls = true;
			else if (sk->sk_flags & SK_SEARCHNOTNULL)
				*wantKeys = true;
			else
				impossible = true;
			continue;
		}
		*wantKeys = true;

		strategy = sk->sk_strategy;
		if (strategy == ARTRIE_LIKE_STRATEGY)
		{
			AmLikeKind kind;

			kv = am_like_values(sk, index->rd_opcintype[col], &nkv, &kind);
			strategy = (kind == AM_LIKE_EXACT || kind == AM_LIKE_EQUAL_OTHER) ?
				ARTRIE_EQUAL_STRATEGY : ARTRIE_PREFIX_STRATEGY;
			if (kind == AM_LIKE_OTHER || kind == AM_LIKE_EQUAL_OTHER)
				so->recheck = true;
		}
		else
			kv = am_key_values(sk, am_scan_argtype(index, sk), &nkv);
		if (nkv == 0)
		{
			impossible = true;
			continue;
		}

		switch (strategy)
		{
			case ARTRIE_EQUAL_STRATEGY:
				if (nvals < 0)
				{
					vals = kv;
					nvals = nkv;
				}
				else
					nvals = am_values_intersect(vals, nvals, kv, nkv);
				break;
			case ARTRIE_PREFIX_STRATEGY:
				if (nkv > 1 && npfx < 0)
				{
					pfx = kv;
					npfx = am_prefixes_minimal(kv, nkv);
				}
				else if (nkv > 1)
					so->recheck = true;
				else
				{
					x = am_scan_part(index, col, prefix, kv[0], true);
					am_raise_lo(&lo, x);
					am_lower_hi(&hi, am_bytes_successor((char *) x.data,
														x.len));
				}
				break;
			case ARTRIE_LESS_STRATEGY:
			case ARTRIE_LESS_EQUAL_STRATEGY:
				if (!bytewise)
					so->recheck = true;
				else
				{
					/* k < ANY(a) is k < max(a). */
					x = am_scan_part(index, col, prefix, kv[nkv - 1], false);
					if (sk->sk_strategy == ARTRIE_LESS_EQUAL_STRATEGY)
						x = am_key_end(x, last);
					am_lower_hi(&hi, x);
				}
				break;
			case ARTRIE_GREATER_EQUAL_STRATEGY:
			case ARTRIE_GREATER_STRATEGY:
				if (!bytewise)
					so->recheck = true;
				else
				{
					/* k > ANY(a) is k > min(a). */
					x = am_scan_part(index, col, prefix, kv[0], false);
					if (sk->sk_strategy == ARTRIE_GREATER_STRATEGY)
						x = am_key_end(x, last);
					am_raise_lo(&lo, x);
				}
				break;
			default:
				elog(ERROR, "unrecognized strategy number %d for artrie",
					 strategy);
		}
	}

	*nkeysegs = 0;
	*keysegs = palloc(sizeof(ArtrieSegment) * Max(Max(nvals, npfx), 1));
	if (impossible || (*wantNulls && *wantKeys))
		return false;

	if (nvals >= 0 && npfx >= 0)
	{
		so->recheck = true;
		npfx = -1;
	}
	if (prefix != NULL && *wantNulls)
	{
		/* NULLs of a multicolumn index are in the key trie */
		AmBytes		x = am_bytes_make((char *) prefix->data, prefix->len,
									  am_cols_null_marker(index, col));

		am_add_keyseg(*keysegs, nkeysegs, am_key_first(x, last),
					  am_key_end(x, last));
	}
	else if (prefix != NULL && !*wantKeys)
	{
		/* no qual on the column: everything below the prefix */
		if (prefix->len > 0)
			am_add_keyseg(*keysegs, nkeysegs, *prefix,
						  am_bytes_successor((char *) prefix->data,
											 prefix->len));
		else
		{
			AmBytes		none = {NULL, 0};

			am_add_keyseg(*keysegs, nkeysegs, none, none);
		}
	}
	else if (*wantNulls)
		return true;
	else if (nvals >= 0)
	{
		for (i = 0; i < nvals; i++)
		{
			AmBytes		x = am_scan_part(index, col, prefix, vals[i], false);
			AmBytes		slo = am_key_first(x, last);
			AmBytes		shi = am_key_end(x, last);

			am_raise_lo(&slo, lo);
			am_lower_hi(&shi, hi);
			am_add_keyseg(*keysegs, nkeysegs, slo, shi);
		}
	}
	else if (npfx >= 0)
	{
		for (i = 0; i < npfx; i++)
		{
			AmBytes		slo = am_scan_part(index, col, prefix, pfx[i], true);
			AmBytes		shi = am_bytes_successor((char *) slo.data, slo.len);

			am_raise_lo(&slo, lo);
			am_lower_hi(&shi, hi);
			am_add_keyseg(*keysegs, nkeysegs, slo, shi);
		}
	}
	else
		am_add_keyseg(*keysegs, nkeysegs, lo, hi);
	return true;
}

/*
 * Turn the scan keys of a single-column index into segments (see the file
 * header).
 */
static void
am_scan_prepare(IndexScanDesc scan)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	bool		nullsFirst = (index->rd_indoption[0] & INDOPTION_NULLS_FIRST) != 0;
	bool		wantNulls;
	bool		wantKeys;
	int			nkeysegs;
	ArtrieSegment *keysegs;
	int			i;

	so->recheck = false;
	so->nsegs = 0;
	if (!am_scan_column(scan, 0, NULL, &keysegs, &nkeysegs, &wantNulls,
						&wantKeys))
		return;
	so->segs = palloc(sizeof(ArtrieSegment) * (nkeysegs + 1));

	/* In index order: DESC reverses the keys; NULLs go first or last. */
	if (!wantKeys && nullsFirst)
	{
		memset(&so->segs[so->nsegs], 0, sizeof(ArtrieSegment));
		so->segs[so->nsegs++].nulls = true;
	}
	for (i = 0; i < nkeysegs; i++)
		so->segs[so->nsegs++] = keysegs[so->desc ? nkeysegs - 1 - i : i];
	if (!wantKeys && !nullsFirst)
	{
		memset(&so->segs[so->nsegs], 0, sizeof(ArtrieSegment));
		so->segs[so->nsegs++].nulls = true;
	}
}

/*
 * A single-column index's quals when they are one "=", "^@" or LIKE with
 * one value: its segment, as am_scan_prepare would make it ("=" v gives
 * [v || 0x00, v || 0x01), "^@" p [p, successor of p), LIKE those of its
 * literal, am_like_pattern), in the scan's own eqseg and eqbuf, so that
 * such a rescan (every prepared exact lookup, each probe of a nested
 * loop's inner side, a prefix scan) allocates nothing once eqbuf is large
 * enough.  False for any other quals.
 */
static bool
am_scan_prepare_one(IndexScanDesc scan)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	ScanKey		sk = &scan->keyData[0];
	AmKey		key = {NULL, 0, NULL};
	text	   *patt = NULL;
	AmLikeKind	kind = AM_LIKE_PREFIX;
	Size		len;
	Size		need;
	Size		n;

	if (so->ncols != 1 || scan->numberOfKeys != 1 ||
		(sk->sk_flags & (SK_ISNULL | SK_SEARCHARRAY)) != 0)
		return false;
	switch (sk->sk_strategy)
	{
		case ARTRIE_EQUAL_STRATEGY:
		case ARTRIE_PREFIX_STRATEGY:
			key = am_datum_key(am_scan_argtype(scan->indexRelation, sk),
							   sk->sk_argument);
			len = key.len;
			if (sk->sk_strategy == ARTRIE_EQUAL_STRATEGY)
				kind = AM_LIKE_EXACT;
			break;
		case ARTRIE_LIKE_STRATEGY:
			patt = DatumGetTextPP(sk->sk_argument);
			len = VARSIZE_ANY_EXHDR(patt);
			break;
		default:
			return false;
	}

	/* the literal is no longer than the pattern; the bounds, twice it */
	need = 2 * (len + 1);
	if (need > so->eqcap)
	{
		so->eqcap = Max(need, 2 * so->eqcap);
		if (so->eqbuf != so->eqinline)
			pfree(so->eqbuf);
		so->eqbuf = MemoryContextAlloc(so->scanCxt, so->eqcap);
	}
	if (patt != NULL)
	{
		int			plen;

		kind = am_like_pattern(scan->indexRelation->rd_opcintype[0],
							   VARDATA_ANY(patt), len, (char *) so->eqbuf,
							   &plen);
		len = plen;
		if ((Pointer) patt != DatumGetPointer(sk->sk_argument))
			pfree(patt);
	}
	else
	{
		memcpy(so->eqbuf, key.data, key.len);
		am_key_free(&key);
	}

	so->eqseg.nulls = false;
	so->eqseg.lo.data = so->eqbuf;
	so->eqseg.hi.data = so->eqbuf + len + 1;
	if (kind == AM_LIKE_EXACT || kind == AM_LIKE_EQUAL_OTHER)
	{
		so->eqbuf[len] = 0x00;
		memcpy(so->eqseg.hi.data, so->eqbuf, len);
		so->eqseg.hi.data[len] = 0x01;
		so->eqseg.lo.len = so->eqseg.hi.len = len + 1;
	}
	else
	{
		/* the successor of the prefix, or no bound */
		so->eqseg.lo.len = len;
		n = am_successor_len((char *) so->eqbuf, len);
		memcpy(so->eqseg.hi.data, so->eqbuf, n);
		if (n > 0)
			so->eqseg.hi.data[n - 1]++;
		else
			so->eqseg.hi.data = NULL;
		so->eqseg.hi.len = n;
	}
	so->segs = &so->eqseg;
	so->nsegs = 1;
	so->recheck = (kind == AM_LIKE_OTHER || kind == AM_LIKE_EQUAL_OTHER);
	return true;
}

/*
 * The single value a column's quals pin it to, as the prefix of the later
 * columns' keys: IS NULL, or "=" with one value (then any other qual on
 * the column is left to the recheck).  False if they pin none; *impossible
 * if nothing can match.
 */
static bool
am_scan_pin(IndexScanDesc scan, int col, StringInfo prefix, bool *impossible)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	ScanKey		pin = NULL;
	int			nquals = 0;
	int			i;

	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];

		if (sk->sk_attno != col + 1)
			continue;
		nquals++;
		if ((sk->sk_flags & SK_ISNULL) &&
			!(sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
			*impossible = true;
		else if (pin == NULL &&
				 ((sk->sk_flags & SK_SEARCHNULL) ||
				  (sk->sk_strategy == ARTRIE_EQUAL_STRATEGY &&
				   !(sk->sk_flags & (SK_ISNULL | SK_SEARCHARRAY)))))
			pin = sk;
	}
	if (pin == NULL || *impossible)
		return false;
	if (nquals > 1)
		so->recheck = true;
	if (pin->sk_flags & SK_SEARCHNULL)
		appendStringInfoChar(prefix, (char) am_cols_null_marker(index, col));
	else
	{
		AmKey		key = am_datum_key(am_scan_argtype(index, pin),
									   pin->sk_argument);

		am_cols_append(prefix, am_cols_is_string(index->rd_opcintype[col]),
					   false, false, key.data, key.len);
		am_key_free(&key);
	}
	return true;
}

/*
 * Turn the scan keys of a multicolumn index into segments: the leading
 * columns each pinned to one value give a prefix, the next column's quals
 * give ranges below it as a single column's do (am_scan_column), and the
 * quals on later columns are left to the recheck.
 */
static void
am_scan_prepare_cols(IndexScanDesc scan)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	int			ncols = IndexRelationGetNumberOfKeyAttributes(scan->indexRelation);
	StringInfoData buf;
	AmBytes		prefix;
	bool		impossible = false;
	bool		wantNulls;
	bool		wantKeys;
	int			col;
	int			i;

	so->recheck = false;
	so->nsegs = 0;
	initStringInfo(&buf);
	for (col = 0; col < ncols - 1; col++)
		if (!am_scan_pin(scan, col, &buf, &impossible))
			break;
	if (impossible)
		return;
	for (i = 0; i < scan->numberOfKeys; i++)
		if (scan->keyData[i].sk_attno > col + 1)
			so->recheck = true;
	prefix.data = (uint8 *) buf.data;
	prefix.len = buf.len;
	if (!am_scan_column(scan, col, &prefix, &so->segs, &so->nsegs,
						&wantNulls, &wantKeys))
		so->nsegs = 0;
}

/*
 * The backend's cursor, kept between scans in memory as long-lived as the
 * backend: a scan takes it for its first cursor, if no other scan has it,
 * instead of allocating one (about 3 KB of the executor's memory per
 * exact lookup, which often took a new block of it), and gives it back,
 * released, when it frees it.  A scan that an ERROR ends never gives it
 * back: the end of the transaction takes it back (a new era), without
 * releasing it, since its pins and the memory it allocated went with the
 * error.
 */
static void *am_cursor_mem = NULL;
static bool am_cursor_lent = false;
static uint64 am_cursor_era = 1;

/* Transaction end: the backend's cursor is no scan's any more. */
static pg_attribute_hot void
am_cursor_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
	{
		am_cursor_lent = false;
		am_cursor_era++;
	}
}

/* A new cursor on trie for the scan: the backend's if it is free. */
static ArtCursor *
am_cursor_take(IndexScanDesc scan, ArtTrie *trie)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	ArtCursor  *c;

	if (am_cursor_lent)
	{
		am_check_status(art_cursor_open(trie, &c), scan->indexRelation,
						"scanning");
		return c;
	}
	if (am_cursor_mem == NULL)
	{
		am_cursor_mem = MemoryContextAlloc(TopMemoryContext,
										   art_cursor_size());
		RegisterXactCallback(am_cursor_xact_callback, NULL);
	}
	am_cursor_lent = true;
	so->lentAt = am_cursor_era;
	return art_cursor_init(am_cursor_mem, trie);
}

/*
 * Free a cursor of the scan's: the backend's goes back, released, unless
 * the end of a transaction took it back already.
 */
static void
am_cursor_free(ArtrieScanOpaque so, ArtCursor *c)
{
	if ((void *) c != am_cursor_mem)
		art_cursor_close(c);
	else if (so->lentAt == am_cursor_era)
	{
		art_cursor_release(c);
		am_cursor_lent = false;
	}
}

/*
 * Open a cursor on the current segment for the given scan direction,
 * past the last entry returned if it is in this segment.
 */
static void
am_scan_open_cursor(IndexScanDesc scan, bool forward)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	ArtrieSegment *seg = &so->segs[so->cur];
	ArtTrie    *trie = seg->nulls ? &so->ai.nulls : &so->ai.keys;
	bool		triefwd = (so->desc && !seg->nulls) ? !forward : forward;

	if (so->spare[seg->nulls] != NULL)
	{
		so->cursor = so->spare[seg->nulls];
		so->spare[seg->nulls] = NULL;
	}
	else
	{
		so->cursor = am_cursor_take(scan, trie);
		art_cursor_set_batched(so->cursor, true);
	}
	so->cursorForward = forward;

	/*
	 * The seek before the bound: it drops a reused cursor's batch, whose
	 * last entry a bound set first would copy for nothing.
	 */
	if (triefwd)
	{
		if (so->haveLast)
			am_check_status(art_cursor_seek(so->cursor, so->last, so->lastlen,
											false, ART_FORWARD),
							index, "scanning");
		else
			am_check_status(art_cursor_seek(so->cursor, seg->lo.data,
											seg->lo.len, true, ART_FORWARD),
							index, "scanning");
		am_check_status(art_cursor_set_bound(so->cursor, seg->hi.data,
											 seg->hi.len, false),
						index, "scanning");
	}
	else
	{
		if (so->haveLast)
			am_check_status(art_cursor_seek(so->cursor, so->last, so->lastlen,
											false, ART_BACKWARD),
							index, "scanning");
		else
			am_check_status(art_cursor_seek(so->cursor, seg->hi.data,
											seg->hi.len, false, ART_BACKWARD),
							index, "scanning");
		am_check_status(art_cursor_set_bound(so->cursor, seg->lo.data,
											 seg->lo.len, true),
						index, "scanning");
	}
}

/* Close the scan's cursor, if open, keeping it for reuse. */
static pg_attribute_hot void
am_scan_close_cursor(ArtrieScanOpaque so)
{
	if (so->cursor != NULL)
	{
		bool		nulls = so->segs[so->cur].nulls;

		if (so->spare[nulls] != NULL)
			am_cursor_free(so, so->spare[nulls]);
		so->spare[nulls] = so->cursor;
		so->cursor = NULL;
	}
	so->run.n = so->irun = 0;
	so->run.last = false;
}

/*
 * Make the next entry of the cursor's run the scan's entry.
 */
static inline void
am_scan_take(ArtrieScanOpaque so)
{
	size_t		start = so->irun > 0 ? so->run.ends[so->irun - 1] :
		so->run.start;

	so->entry = so->run.data + start;
	so->entrylen = so->run.ends[so->irun] - start;
	so->irun++;
	so->nreturned++;
}

/*
 * Step to the next entry in the scan direction when the cursor's run is
 * used up or the direction changed: a new run, from this segment or the
 * next ones (see am_scan_next).
 */
static pg_attribute_hot bool
am_scan_next_run(IndexScanDesc scan, bool forward)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	int			step = forward ? 1 : -1;
	MemoryContext oldcxt;
	bool		found = false;
	bool		wasRandom;

	if (!so->started)
	{
		/* one index scan in the statistics, as btree's _bt_first counts */
		pgstat_count_index_scan(scan->indexRelation);
		so->cur = forward ? 0 : so->nsegs - 1;
		so->started = true;
		so->haveLast = false;
		so->nreturned = 0;
	}
	else if (so->cursor != NULL && so->cursorForward != forward)
	{
		/* reopen past the last entry: keep a copy of it */
		if (so->haveLast)
		{
			if (so->entrylen > so->lastcap)
			{
				so->lastcap = Max(so->entrylen, 2 * so->lastcap);
				if (so->last)
					pfree(so->last);
				so->last = palloc(so->lastcap);
			}
			memcpy(so->last, so->entry, so->entrylen);
			so->lastlen = so->entrylen;
		}
		am_scan_close_cursor(so);
	}
	else if (so->cursor != NULL && so->run.last)
	{
		/*
		 * The cursor's last run is used up (the second call of an exact
		 * lookup): on to the next segment without asking the cursor.
		 */
		am_scan_close_cursor(so);
		so->haveLast = false;
		so->cur += step;
	}

	if (forward && so->cur < 0)
		so->cur = 0;
	if (!forward && so->cur >= so->nsegs)
		so->cur = so->nsegs - 1;
	if (so->cur < 0 || so->cur >= so->nsegs)
	{
		if (so->hold >= 0)
			pager_hold_clear(so->hold);
		return false;
	}

	oldcxt = MemoryContextSwitchTo(so->scanCxt);
	wasRandom = pager_set_random_reads(so->nreturned < AM_SCAN_RANDOM_ENTRIES);
	while (so->cur >= 0 && so->cur < so->nsegs)
	{
		ArtStatus	status;

		if (so->cursor == NULL)
			am_scan_open_cursor(scan, forward);
		if (so->hold >= 0 && !art_cursor_buffered(so->cursor))
			pager_hold_refresh(so->hold);

		status = art_cursor_next_run(so->cursor, &so->run);
		if (status == ART_OK)
		{
			so->irun = 0;
			am_scan_take(so);
			so->haveLast = true;
			so->lastIsNull = so->segs[so->cur].nulls;
			found = true;
			break;
		}
		if (status != ART_NOT_FOUND)
			am_check_status(status, scan->indexRelation, "scanning");

		am_scan_close_cursor(so);
		so->haveLast = false;
		so->cur += step;
	}
	if (!found && so->hold >= 0)
		pager_hold_clear(so->hold);
	(void) pager_set_random_reads(wasRandom);
	MemoryContextSwitchTo(oldcxt);
	return found;
}

/*
 * Step to the next entry in the scan direction; it is left in so->entry.
 * The cursor hands over its batch as a run (art_cursor_next_run), whose
 * entries are returned here without a call into the trie per entry.
 */
static inline bool
am_scan_next(IndexScanDesc scan, bool forward)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;

	if (so->irun < so->run.n && so->cursorForward == forward)
	{
		am_scan_take(so);
		return true;
	}
	return am_scan_next_run(scan, forward);
}

/*
 * The index-only tuple for a key: one text attribute, or one name (the key
 * padded with NULs), built in a buffer the scan reuses (the executor uses
 * the value only until the next call), as heap_form_tuple would build it.
 * The header's fixed fields are written when the buffer is allocated;
 * each call sets the lengths and copies the key.
 */
static HeapTuple
am_form_key_tuple(ArtrieScanOpaque so, TupleDesc desc, const uint8 *key,
				  Size keylen)
{
	bool		isname = (so->ai.index->rd_opcintype[0] == NAMEOID);
	Size		hoff = MAXALIGN(SizeofHeapTupleHeader);
	Size		len = hoff + (isname ? NAMEDATALEN : VARHDRSZ + keylen);
	HeapTupleHeader td;
	char	   *data;

	if (HEAPTUPLESIZE + len > so->tupcap)
	{
		so->tupcap = Max(HEAPTUPLESIZE + len, 2 * so->tupcap);
		if (so->tup)
			pfree(so->tup);
		so->tup = MemoryContextAllocZero(so->scanCxt, so->tupcap);
		td = (HeapTupleHeader) ((char *) so->tup + HEAPTUPLESIZE);
		ItemPointerSetInvalid(&so->tup->t_self);
		so->tup->t_tableOid = InvalidOid;
		so->tup->t_data = td;
		HeapTupleHeaderSetTypeId(td, desc->tdtypeid);
		HeapTupleHeaderSetTypMod(td, desc->tdtypmod);
		HeapTupleHeaderSetNatts(td, 1);
		td->t_hoff = hoff;
		if (!isname)
			td->t_infomask = HEAP_HASVARWIDTH;
	}
	td = so->tup->t_data;
	so->tup->t_len = len;
	HeapTupleHeaderSetDatumLength(td, len);
	data = (char *) td + hoff;
	if (isname)
	{
		memset(data, 0, NAMEDATALEN);
		memcpy(data, key, Min(keylen, NAMEDATALEN - 1));
	}
	else
	{
		SET_VARSIZE(data, VARHDRSZ + keylen);
		memcpy(data + VARHDRSZ, key, keylen);
	}
	return so->tup;
}

/*
 * The index-only tuple of a multicolumn index: every column decoded from
 * the key (am_cols_decode), in a context reset for each tuple.
 */
static HeapTuple
am_form_cols_tuple(IndexScanDesc scan)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	MemoryContext oldcxt;
	HeapTuple	tup;

	if (so->tupCxt == NULL)
		so->tupCxt = AllocSetContextCreate(so->scanCxt,
										   "artrie index-only tuple",
										   ALLOCSET_SMALL_SIZES);
	MemoryContextReset(so->tupCxt);
	oldcxt = MemoryContextSwitchTo(so->tupCxt);
	if (!am_cols_decode(scan->indexRelation, so->entry,
						so->entrylen - 1 - ARTRIE_TID_LEN, values, isnull))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains an entry that is not a key of its columns",
						RelationGetRelationName(scan->indexRelation)),
				 errhint("REINDEX the index.")));
	tup = heap_form_tuple(scan->xs_hitupdesc, values, isnull);
	MemoryContextSwitchTo(oldcxt);
	return tup;
}

/*
 * ambeginscan: open the index and set up the scan state.
 */
pg_attribute_hot IndexScanDesc
artrie_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	ArtrieScanOpaque so = palloc(sizeof(ArtrieScanOpaqueData));

	memset(so, 0, offsetof(ArtrieScanOpaqueData, eqinline));
	so->eqbuf = so->eqinline;
	so->eqcap = AM_SCAN_EQ_INLINE;
	am_open(index, &so->ai);
	so->scanCxt = CurrentMemoryContext;
	so->hold = -1;
	so->ncols = IndexRelationGetNumberOfKeyAttributes(index);
	so->desc = (index->rd_indoption[0] & INDOPTION_DESC) != 0;
	scan->xs_hitupdesc = RelationGetDescr(index);
	scan->opaque = so;
	return scan;
}

/*
 * amrescan: take new scan keys and start over.  One "=", "^@" or LIKE
 * value on a single-column index takes am_scan_prepare_one's way, without
 * allocating.
 * Other quals' segments live in the scan's memory the first time (most
 * scans have one rescan); a scan whose segments are made again (the inner
 * side of a nested loop) makes a context for them, reset at each rescan.
 */
pg_attribute_hot void
artrie_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
			  ScanKey orderbys, int norderbys)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	MemoryContext oldcxt;

	am_scan_close_cursor(so);
	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	so->started = false;
	so->haveLast = false;
	if (am_scan_prepare_one(scan))
		return;

	if (so->keyCxt != NULL)
		MemoryContextReset(so->keyCxt);
	else if (so->rescanned)
		so->keyCxt = AllocSetContextCreate(so->scanCxt, "artrie scan keys",
										   ALLOCSET_SMALL_SIZES);
	so->rescanned = true;
	oldcxt = MemoryContextSwitchTo(so->keyCxt ? so->keyCxt : so->scanCxt);
	if (so->ncols > 1)
		am_scan_prepare_cols(scan);
	else
		am_scan_prepare(scan);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * amgettuple: the next heap TID, and for index-only scans the key.
 */
pg_attribute_hot bool
artrie_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;

	/* see the file header: which scans take a hold */
	if (so->hold < 0 &&
		(scan->xs_want_itup || !IsMVCCSnapshot(scan->xs_snapshot)))
		so->hold = pager_hold_create(so->ai.file);

	if (!am_scan_next(scan, !ScanDirectionIsBackward(dir)))
		return false;

	am_entry_tid(so->entry, so->entrylen, &scan->xs_heaptid);
	scan->xs_recheck = so->recheck;

	if (scan->xs_want_itup && so->ncols > 1)
		scan->xs_hitup = am_form_cols_tuple(scan);
	else if (scan->xs_want_itup)
	{
		if (so->lastIsNull)
		{
			Datum		value = (Datum) 0;
			bool		isnull = true;
			MemoryContext oldcxt = MemoryContextSwitchTo(so->scanCxt);

			if (so->nullTup == NULL)
				so->nullTup = heap_form_tuple(scan->xs_hitupdesc, &value,
											  &isnull);
			MemoryContextSwitchTo(oldcxt);
			scan->xs_hitup = so->nullTup;
		}
		else
			scan->xs_hitup = am_form_key_tuple(so, scan->xs_hitupdesc, so->entry,
											   so->entrylen - 1 - ARTRIE_TID_LEN);
	}
	return true;
}

/* TIDs amgetbitmap passes to the bitmap at once. */
#define AM_BITMAP_TIDS	256

/*
 * amgetbitmap: every matching heap TID into the bitmap.
 */
pg_attribute_hot int64
artrie_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;
	ItemPointerData tids[AM_BITMAP_TIDS];
	int			n = 0;
	int64		ntids = 0;

	/* in groups: the bitmap looks up a block once for a run of its TIDs */
	while (am_scan_next(scan, true))
	{
		am_entry_tid(so->entry, so->entrylen, &tids[n++]);
		if (n == AM_BITMAP_TIDS)
		{
			tbm_add_tuples(tbm, tids, n, so->recheck);
			ntids += n;
			n = 0;
			CHECK_FOR_INTERRUPTS();
		}
	}
	tbm_add_tuples(tbm, tids, n, so->recheck);
	return ntids + n;
}

/*
 * amendscan: release the cursor and the scan's memory.
 */
pg_attribute_hot void
artrie_endscan(IndexScanDesc scan)
{
	ArtrieScanOpaque so = (ArtrieScanOpaque) scan->opaque;

	am_scan_close_cursor(so);
	for (int i = 0; i < 2; i++)
		if (so->spare[i] != NULL)
			am_cursor_free(so, so->spare[i]);
	if (so->hold >= 0)
		pager_hold_drop(so->hold);
	if (so->keyCxt)
		MemoryContextDelete(so->keyCxt);
	if (so->last)
		pfree(so->last);
	if (so->eqbuf != so->eqinline)
		pfree(so->eqbuf);
	if (so->tup)
		pfree(so->tup);
	if (so->nullTup)
		pfree(so->nullTup);
	if (so->tupCxt)
		MemoryContextDelete(so->tupCxt);
	pfree(so);
	scan->opaque = NULL;
}

/*
 * amcanreturn: a text (or varchar), name, integer or uuid value is rebuilt
 * from its key (am_form_key_tuple, am_form_cols_tuple); a bpchar key has
 * lost its padding, so bpchar values are read from the heap.
 */
pg_attribute_hot bool
artrie_canreturn(Relation index, int attno)
{
	return index->rd_opcintype[attno - 1] != BPCHAROID;
}
