/*-------------------------------------------------------------------------
 *
 * journal.h
 *	  artrie's journal: a cluster-wide log of logical, idempotent records
 *	  that makes committed index changes durable between checkpoints.
 *
 * PostgreSQL's WAL cannot protect artrie's own files, so every change to
 * a logged index appends a record here (insert or delete of one entry in
 * one trie of one file).  A transaction that appended records waits, just
 * before it commits or prepares, until the journal is durable up to its
 * last record; concurrent waiters are served by one write and one
 * fdatasync (group commit).  A checkpoint of a file records the journal
 * position from which its changes must be replayed; at server start the
 * io worker replays the journal from there, before any backend may use an
 * index.
 *
 * Records are idempotent (insert if absent, delete if present), so a
 * record may be replayed over a page image that already has its effect.
 * They are appended after the change they describe, while the change's
 * transaction still runs, so a checkpoint never records a position past a
 * change that its image lacks.
 *
 * Layer rule: part of the pager; it knows nothing of what an entry means.
 * The access method registers the function that applies a record.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_JOURNAL_H
#define ARTRIE_JOURNAL_H

#include "pager/pager.h"
#include "pager/journal_record.h"

/* A byte position in the journal; 0 means none. */
typedef uint64 JournalPos;

/* Applies one record during recovery; registered by the access method. */
typedef void (*JournalRedoFn) (PagerFile *file, JournalOp op, uint32 root,
							   const uint8 *entry, Size len);

/* Counters, for artrie_io_stats() and artrie_stats(). */
typedef struct JournalStats
{
	JournalPos	insert_pos;		/* where the next record goes */
	JournalPos	durable_pos;	/* everything before it is on disk */
	JournalPos	redo_pos;		/* recovery would start here */
	uint64		records;		/* appended since start */
	uint64		flushes;		/* write + fdatasync rounds */
	uint64		commits;		/* commits that waited for a flush */
	uint64		replayed;		/* records applied by the last recovery */
} JournalStats;

/* Setup, from the pager's _PG_init and shared memory hooks. */
extern Size journal_shmem_size(void);
extern void journal_shmem_init(void);

/* Appending; the transaction then waits at commit for durability. */
extern JournalPos journal_append(JournalOp op, const ArtFileId *file,
								 uint32 root, const uint8 *entry, Size len);

/* Wait until everything up to pos is durable. */
extern void journal_flush(JournalPos pos);

/* The position the next record will get. */
extern JournalPos journal_insert_pos(void);

/* Where recovery starts: records before it are gone. */
extern JournalPos journal_redo_pos(void);

/* After a cluster-wide checkpoint: recovery may start at redo_pos. */
extern void journal_set_redo(JournalPos redo_pos);

/* Recovery, in the io worker at start; backends wait for it. */
extern void journal_set_redo_fn(JournalRedoFn fn);
extern void journal_recover(void);
extern void journal_wait_recovered(void);

extern void journal_stats(JournalStats *stats);

#endif							/* ARTRIE_JOURNAL_H */
