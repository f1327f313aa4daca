/*-------------------------------------------------------------------------
 *
 * wal.h
 *	  artrie's changes in PostgreSQL's WAL, and recovery.
 *
 * Every change to a logged artrie index is a record of artrie's own
 * resource manager in PostgreSQL's WAL: an entry inserted or deleted
 * (wal_log_entry), or the image of a file just built or copied
 * (wal_log_file).  A commit's WAL flush makes its records durable with
 * it: one sync per commit.  Redo applies the records to artrie's files,
 * at crash recovery and continuously on a standby; the io worker's
 * checkpoints bound the WAL that redo needs, and artrie keeps that WAL
 * with a replication slot of its own.  docs/DESIGN.md has the whole
 * argument.
 *
 * Layer rule: the SQL surface (src/am, src/func, src/artrie.c) calls this
 * header; the WAL layer calls the trie (to apply records) and the pager
 * through pager/pager_redo.h only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_WAL_H
#define ARTRIE_WAL_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "pager/pager_redo.h"
#include "wal/wal_record.h"

/* artrie's resource manager ID (in the range for extensions). */
#define ARTRIE_RMGR_ID		147

/* The replication slot that keeps the WAL redo may need. */
#define ARTRIE_SLOT_NAME	"artrie"

/* What artrie_stats() and artrie_io_stats() show of the WAL layer. */
typedef struct WalStats
{
	XLogRecPtr	replay_from;	/* redo after a crash would start here */
	XLogRecPtr	wal_end;		/* the WAL's end now (or replay point) */
	uint64		records;		/* logged since start */
	uint64		bytes;			/* their payload bytes */
	uint64		replayed;		/* applied by redo since start */
	uint64		failed;			/* redo failures (files marked damaged) */
	bool		slot_ok;		/* the slot exists and holds replay_from */
	char		slot_problem[128];	/* if not, why */
} WalStats;

/* On a hot standby, refuse a file redo has not finished rebuilding. */
extern bool wal_file_usable(const ArtFileId *id);
extern void wal_check_usable(const ArtFileId *id, const char *relname);

/* From _PG_init: register the resource manager and the hooks. */
extern void wal_init(void);

/*
 * Log an insert or delete (WAL_ARTRIE_INSERT or _DELETE, the latter with
 * WAL_ARTRIE_NO_MERGE where merges are logged) of one entry, or a merge at
 * one (WAL_ARTRIE_MERGE) with the step that changed pages (an
 * ArtMergeStep; 0 for the other kinds).
 */
extern void wal_log_entry(uint8 kind, const ArtFileId *file, uint32 root,
						  const uint8 *entry, Size len, uint8 step);

/* Log that a bulk delete of a file has logged all its deletions. */
extern void wal_log_vacuum(const ArtFileId *file);

/* Log the image of a whole file, just built or copied and flushed. */
extern void wal_log_file(PagerFile *file, const ArtFileId *id);

/* Log one run of the image of a file just built (a PagerImageLog). */
extern void wal_log_build_image(const PagerImage *image);

extern void wal_stats(WalStats *stats);

#endif							/* ARTRIE_WAL_H */
