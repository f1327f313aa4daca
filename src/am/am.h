/*-------------------------------------------------------------------------
 *
 * am.h
 *	  The artrie index access method: shared declarations.
 *
 * An artrie index has two parts.  Its own PostgreSQL main fork holds one
 * page, the metapage, which names the artrie file that holds the index
 * (through the pager) and the root pages of the two tries in that file:
 *
 *	- the key trie holds key || 0x00 || heap TID for every non-NULL key
 *	  (block number big-endian, 4 bytes; offset big-endian, 2 bytes), so
 *	  its byte order is the order of COLLATE "C", duplicates of a key share
 *	  its path, and every entry is unique;
 *	- the NULL trie holds the bare 6-byte heap TID of every NULL key.
 *
 * Scans present the NULL trie after (ASC, NULLS LAST) or before (NULLS
 * FIRST) the key trie, so that the index order is btree's.  A multicolumn
 * index keeps every row in the key trie, its NULLs encoded in the key in
 * their place (am_cols.c); its NULL trie stays empty.
 *
 * Layer rule: this code calls the WAL layer (wal/wal.h), the trie
 * (trie/trie.h) and the pager (pager/pager.h), never the I/O backends.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_AM_H
#define ARTRIE_AM_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "pager/pager.h"
#include "trie/trie.h"
#include "utils/rel.h"
#include "wal/wal.h"

/* Strategy numbers of the operator class. */
#define ARTRIE_LESS_STRATEGY			1
#define ARTRIE_LESS_EQUAL_STRATEGY		2
#define ARTRIE_EQUAL_STRATEGY			3
#define ARTRIE_GREATER_EQUAL_STRATEGY	4
#define ARTRIE_GREATER_STRATEGY			5
#define ARTRIE_PREFIX_STRATEGY			6
#define ARTRIE_LIKE_STRATEGY			7
#define ARTRIE_NSTRATEGIES				7

/* Build subphases shown in pg_stat_progress_create_index. */
#define ARTRIE_PHASE_SCAN		2
#define ARTRIE_PHASE_SORT		3
#define ARTRIE_PHASE_LOAD		4

/* The metapage: block 0 of the main fork. */
#define ARTRIE_METAPAGE_BLKNO	0
#define ARTRIE_META_MAGIC		0x41525452	/* "ARTR" */
#define ARTRIE_FORMAT_VERSION	1

/*
 * The metapage of an UNLOGGED index's init fork carries this flag: after a
 * crash the main fork is reset from the init fork, and the first backend
 * that opens the index gives it a new, empty file.
 */
#define ARTRIE_META_RESET		0x0001

typedef struct ArtrieMetaPageData
{
	uint32		magic;
	uint32		version;
	uint32		flags;
	ArtFileId	file;			/* the artrie file holding both tries */
	ArtPageNo	keyRoot;		/* root of the key trie */
	ArtPageNo	nullRoot;		/* root of the NULL trie */
} ArtrieMetaPageData;

/* An open artrie index. */
typedef struct ArtrieIndex
{
	Relation	index;
	ArtrieMetaPageData meta;
	PagerFile  *file;
	ArtTrie		keys;
	ArtTrie		nulls;
} ArtrieIndex;

/* Entry encoding (am_key.c). */

/* The key bytes of a value, and the detoasted copy they may live in. */
typedef struct AmKey
{
	const char *data;
	Size		len;
	void	   *copy;
} AmKey;

#define ARTRIE_TID_LEN			6
#define ARTRIE_MAX_KEY_LEN		(ART_MAX_ENTRY_LEN - 1 - ARTRIE_TID_LEN)

extern uint8 *am_key_entry(const char *key, Size keylen, ItemPointer tid,
						   Size *entrylen);
extern void am_tid_encode(ItemPointer tid, uint8 *out);

/*
 * The heap TID in the last six bytes of an entry of either trie (inline:
 * scans decode one per entry they return).
 */
static inline void
am_entry_tid(const uint8 *entry, Size entrylen, ItemPointer tid)
{
	const uint8 *p;

	Assert(entrylen >= ARTRIE_TID_LEN);
	p = entry + entrylen - ARTRIE_TID_LEN;
	ItemPointerSetBlockNumber(tid,
							  ((BlockNumber) p[0] << 24) |
							  ((BlockNumber) p[1] << 16) |
							  ((BlockNumber) p[2] << 8) | (BlockNumber) p[3]);
	ItemPointerSetOffsetNumber(tid, (OffsetNumber) ((p[4] << 8) | p[5]));
}

/* Bytes of the seven-bit key of nraw bytes (am_bits_encode). */
#define AM_BITS_KEY_LEN(nraw)	((8 * (nraw) + 6) / 7)

extern int	am_fixed_raw(Oid typid, Datum value, uint8 *raw);
extern void am_bits_encode(const uint8 *raw, int nraw, uint8 *out);
extern void am_bits_decode(const uint8 *in, int nraw, uint8 *raw);
extern Datum am_fixed_datum(Oid typid, const uint8 *raw);
extern void am_check_key_length(Relation index, Size keylen);
extern AmKey am_datum_key(Oid typid, Datum value);
extern void am_key_free(AmKey *key);
extern Datum am_key_datum(Relation index, const char *key, Size keylen);
extern int	am_array_keys(Oid typid, Datum array, AmKey **keys);
extern int	am_bytes_cmp(const uint8 *a, Size alen, const uint8 *b, Size blen);
extern bool am_collation_is_bytewise(Oid collid);
extern void am_status_error(ArtStatus status, Relation index,
							const char *action) pg_attribute_noreturn() pg_attribute_cold;

/* Turn a failed trie status into an ERROR; ART_OK returns. */
static inline void
am_check_status(ArtStatus status, Relation index, const char *action)
{
	if (unlikely(status != ART_OK))
		am_status_error(status, index, action);
}

/* Keys of multicolumn indexes (am_cols.c): each column's marker byte. */
#define AM_COL_NULL_FIRST		0x01
#define AM_COL_VALUE			0x02
#define AM_COL_NULL_LAST		0x03

extern bool am_cols_is_string(Oid typid);
extern uint8 am_cols_null_marker(Relation index, int col);
extern void am_cols_append(StringInfo buf, bool isstring, bool last,
						   bool prefix, const char *raw, Size len);
extern AmKey am_cols_key(Relation index, Datum *values, bool *isnull,
						 bool *anynull);
extern bool am_cols_decode(Relation index, const uint8 *key, Size len,
						   Datum *values, bool *isnull);

/* A relation of any database, as the buffer manager names it. */
#if PG_VERSION_NUM >= 160000
typedef RelFileLocator AmRelLocator;
#else
typedef RelFileNode AmRelLocator;
#endif

/* Metapage and file (am_meta.c). */
extern void am_meta_init(Relation index, ForkNumber fork,
						 const ArtrieMetaPageData *meta);
extern bool am_meta_peek_at(AmRelLocator loc, ForkNumber fork, bool permanent,
							ArtrieMetaPageData *meta);
extern void am_meta_rewrite_at(AmRelLocator loc, ForkNumber fork, bool logged,
							   const ArtrieMetaPageData *meta);
extern bool am_meta_peek(Relation index, ForkNumber fork,
						 ArtrieMetaPageData *meta);
extern void am_meta_rewrite(Relation index, ForkNumber fork,
							const ArtrieMetaPageData *meta);
extern void am_open(Relation index, ArtrieIndex *ai);
extern ErrorData *am_try_open(Relation index, ArtrieIndex *ai);

/* Callbacks. */
extern IndexBuildResult *artrie_build(Relation heap, Relation index,
									  IndexInfo *indexInfo);
extern void artrie_buildempty(Relation index);
extern char *artrie_buildphasename(int64 phasenum);
extern bool artrie_insert(Relation index, Datum *values, bool *isnull,
						  ItemPointer ht_ctid, Relation heapRel,
						  IndexUniqueCheck checkUnique,
						  bool indexUnchanged,
						  IndexInfo *indexInfo);
extern IndexBulkDeleteResult *artrie_bulkdelete(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats,
												IndexBulkDeleteCallback callback,
												void *callback_state);
extern IndexBulkDeleteResult *artrie_vacuumcleanup(IndexVacuumInfo *info,
												   IndexBulkDeleteResult *stats);
extern bool artrie_canreturn(Relation index, int attno);
extern IndexScanDesc artrie_beginscan(Relation index, int nkeys, int norderbys);
extern void artrie_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
						  ScanKey orderbys, int norderbys);
extern bool artrie_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 artrie_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void artrie_endscan(IndexScanDesc scan);
extern void artrie_costestimate(PlannerInfo *root, IndexPath *path,
								double loop_count, Cost *indexStartupCost,
								Cost *indexTotalCost,
								Selectivity *indexSelectivity,
								double *indexCorrelation, double *indexPages);

/*
 * Is an index the planner knows an artrie index?  The planner's hooks ask
 * it of every index of every relation planned: its cost estimate is
 * artrie's, with no catalog lookup of the access method's name.
 */
static inline bool
am_is_artrie_index(IndexOptInfo *info)
{
	return (void *) info->amcostestimate == (void *) artrie_costestimate;
}

extern bool artrie_validate(Oid opclassoid);
extern bytea *artrie_options(Datum reloptions, bool validate);
extern bool artrie_property(Oid index_oid, int attno, IndexAMProperty prop,
							const char *propname, bool *res, bool *isnull);

/* Inserting entries (am_insert.c) into UNIQUE indexes (am_unique.c). */
extern void am_insert_entry(ArtrieIndex *ai, ArtTrie *trie,
							const uint8 *entry, Size len);
extern bool am_unique_insert(ArtrieIndex *ai, ArtTrie *trie,
							 const uint8 *entry, Size entrylen,
							 Size prefixlen, ItemPointer tid,
							 Relation heapRel, IndexUniqueCheck checkUnique,
							 Datum *values, bool *isnull);
extern void am_unique_duplicate(Relation index, Relation heap,
								const uint8 *key, Size keylen);

/* A build's sorted runs beyond maintenance_work_mem (am_build_runs.c). */
typedef struct AmBuildRuns AmBuildRuns;

/*
 * The load reads the sorted entries in memory this many ahead of the one
 * it takes: each lies anywhere in the arena, a cache and TLB miss, and
 * taken by the loader's work on it the misses come one at a time.
 */
#define AM_BUILD_PREFETCH_AHEAD	16

/* Ask the CPU for the entry of items[i], if there is one (i < n). */
static inline void
am_build_prefetch(const ArtSortItem *items, Size n, Size i)
{
#if defined(__GNUC__)
	if (i < n)
	{
		__builtin_prefetch(items[i].data);
		__builtin_prefetch(items[i].data + items[i].len - 1);
	}
#else
	(void) items;
	(void) n;
	(void) i;
#endif
}

extern AmBuildRuns *am_build_runs_create(Relation index);
extern void am_build_runs_write(AmBuildRuns *runs, const ArtSortItem *items,
								Size n);
extern void am_build_runs_merge_begin(AmBuildRuns *runs,
									  const ArtSortItem *items, Size n,
									  Size memory);
extern bool am_build_runs_next(AmBuildRuns *runs, const uint8 **p, Size *len);
extern void am_build_runs_end(AmBuildRuns *runs);

/* WAL records of a logged index (am_wal.c). */
extern void am_wal_vacuum(ArtrieIndex *ai);
extern void am_wal_entry(ArtrieIndex *ai, uint8 kind, ArtTrie *trie,
						 const uint8 *entry, Size len, uint8 step);
extern void am_wal_file(Relation index, PagerFile *file, const ArtFileId *id);
extern PagerBuild *am_wal_build_begin(Relation index, PagerFile *file);
extern void am_wal_built_file(Relation index, PagerBuild *build);

/* Planner, file lifecycle and ON CONFLICT hooks, installed from _PG_init. */
extern void am_init(void);

/* Index paths for LIKE and other prefix patterns (am_like.c). */
extern void am_like_init(void);

/* What a LIKE pattern asks of the keys (am_like_pattern). */
typedef enum AmLikeKind
{
	AM_LIKE_EXACT,				/* the literal only: "=" */
	AM_LIKE_PREFIX,				/* the literal, then only '%': "^@" */
	AM_LIKE_EQUAL_OTHER,		/* "=" the literal, then a recheck */
	AM_LIKE_OTHER				/* more: "^@" the literal, then a recheck */
} AmLikeKind;

extern AmLikeKind am_like_pattern(Oid typid, const char *patt, int len,
								  char *prefix, int *prefixlen);

/* File lifecycle: ALTER INDEX ... SET TABLESPACE, pg_upgrade (am_lifecycle.c). */
extern void am_lifecycle_init(void);
extern void am_adopt(Relation index, const PagerAdoptSource *source);

/* Refusing INSERT ... ON CONFLICT before PostgreSQL 18 (am_unique.c). */
extern void am_unique_init(void);

/* CREATE DATABASE ... TEMPLATE copies artrie files (am_createdb.c). */
extern void am_createdb_init(void);

#endif							/* ARTRIE_AM_H */
