/*-------------------------------------------------------------------------
 *
 * func.h
 *	  SQL functions over artrie indexes: shared declarations.
 *
 * Every function that takes an index opens it through func_open_index,
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

extern void func_open_index(Oid indexoid, FuncIndex *fi);
extern void func_close_index(FuncIndex *fi);
extern void func_check_artrie(Relation index);
extern bool func_tid_visible(FuncIndex *fi, ItemPointer tid);
extern bool func_key_visible(FuncIndex *fi, const uint8 *key, Size keylen);
extern void func_seek_past_key(FuncIndex *fi, ArtCursor *cursor,
							   const uint8 *entry, Size keylen);

#endif							/* ARTRIE_FUNC_H */
