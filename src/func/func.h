/*-------------------------------------------------------------------------
 *
 * func.h
 *	  SQL functions over artrie indexes: shared declarations.
 *
 * Every function that takes an index opens it through func_open_index,
 * or each partition's index of a partitioned index (func_index_leaves),
 * which checks that the caller may read the indexed table, and answers
 * only with keys that some heap tuple visible to the caller's snapshot
 * holds (func_key_visible), so the functions reveal nothing that a SELECT
 * would not.
 *
 * Layer rule: this code calls the access method's index opening (am/am.h)
 * and the trie (trie/trie.h); it knows nothing of pages or I/O.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_FUNC_H
#define ARTRIE_FUNC_H

#include "postgres.h"

#include "access/relscan.h"
#include "am/am.h"
#include "executor/tuptable.h"
#include "utils/snapshot.h"

/* An artrie index opened for a function call. */
typedef struct FuncIndex
{
	Relation	heap;
	Relation	index;
	ArtrieIndex ai;
	Snapshot	snapshot;
	IndexFetchTableData *fetch;
	TupleTableSlot *slot;
} FuncIndex;

extern void func_open_index(Oid indexoid, FuncIndex *fi, bool check_access);
extern void func_check_access(Relation heap, Relation index);
extern void func_close_index(FuncIndex *fi);
extern void func_check_artrie(Relation index);
extern void func_check_valid(Relation index);
extern void func_refuse_multicolumn(FuncIndex *fi, const char *function);
extern bool func_tid_visible(FuncIndex *fi, ItemPointer tid);
extern bool func_key_visible(FuncIndex *fi, const uint8 *key, Size keylen);
extern void func_seek_past_key(FuncIndex *fi, ArtCursor *cursor,
							   const uint8 *entry, Size keylen);

/* func_partition.c */
extern List *func_index_leaves(Oid indexoid, bool *partitioned);
extern void func_refuse_partitioned(Oid indexoid, const char *function);

#endif							/* ARTRIE_FUNC_H */
