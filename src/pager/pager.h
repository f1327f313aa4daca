/*-------------------------------------------------------------------------
 *
 * pager.h
 *	  The pager: artrie's shared buffer pool over its own files.
 *
 * The pager keeps 8 KiB pages of artrie's files (under $PGDATA/artrie/)
 * in a pool in shared memory, with a page table, pins, a content lock per
 * frame, clock-sweep eviction and dirty tracking, and writes them back by
 * copy-on-write checkpoints through the I/O backends (src/io).  It knows
 * nothing of what is inside a page: to the trie it is an ArtPageStore
 * (src/trie/trie_page.h).
 *
 * Layer rule: the SQL surface (src/am, src/func, src/artrie.c) calls this
 * header; the WAL layer (src/wal) calls only its part in pager_redo.h
 * (recovery, redo, files' images), which this header includes; the pager
 * calls src/io; nothing here calls upward.  The WAL layer hears of
 * checkpoints through the hooks it registers (pager_set_hooks).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_H
#define ARTRIE_PAGER_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "io/io.h"
#include "pager/pager_redo.h"

/*
 * Called once from _PG_init when artrie is in shared_preload_libraries:
 * defines the pager's and I/O backends' GUCs, installs the shared memory
 * hooks (chaining the previous ones) and registers the io worker.
 */
extern void pager_init(void);

/*
 * Create a new, empty file; error if it exists.  relname is used only in
 * messages ("index \"%s\", file \"%s\", page %u").
 */
extern PagerFile *pager_create_file(const ArtFileId *id, const char *relname);

/*
 * Open an existing file; ERROR with a hint to REINDEX if it is missing.
 * A file's slot in shared memory is held from its first use in a
 * transaction to the transaction's end (artrie.max_files slots; files
 * nobody holds are closed to make room); pager_release_file lets it go
 * earlier, for a caller that needed the file only for a moment.
 */
extern PagerFile *pager_open_file(const ArtFileId *id, const char *relname);

/*
 * Moves whenever one of this process's handles goes away: a handle
 * pager_open_file returned may be kept and used again, without opening the
 * file, while this number is unchanged (pager_file.c).
 */
extern uint64 pager_handles_epoch(void);
extern bool pager_file_ready(const ArtFileId *id, const char *relname,
							 bool unlogged);
extern void pager_release_file(PagerFile *file);

/* Forget the file's pages in the pool and remove it from disk. */
extern void pager_drop_file(const ArtFileId *id);

/*
 * An UNLOGGED index's file is about to be used: ERROR if an earlier run of
 * the server stopped without writing it whole (its changes have no WAL),
 * else it is marked in use until a checkpoint has it all (pager_file.c).
 */
extern void pager_use_unlogged(PagerFile *file);
extern void pager_report_unlogged(void);

/* pg_upgrade: count an index its restore builds; report them at start. */
extern void pager_note_upgraded_index(void);
extern void pager_report_upgrade(void);

/*
 * pg_upgrade's old cluster (pager_adopt.c): pager_adopt_source reads what
 * its io worker wrote when pg_upgrade stopped it (ERROR if it cannot be
 * trusted: no such note, or the cluster ran or did not stop cleanly
 * since); pager_adopt_file copies one of its files here, under the same
 * name, loads it as current and checkpoints it under this cluster's
 * system identifier (ERROR if the file is not one the old cluster served
 * complete).
 */
typedef struct PagerAdoptSource
{
	char		dir[MAXPGPATH]; /* its data directory */
	uint64		sysid;			/* its system identifier */
	XLogRecPtr	min_redo;		/* it refused files checkpointed before */
	XLogRecPtr	upto;			/* the end of its WAL at that stop */
} PagerAdoptSource;

extern void pager_adopt_source(const char *olddir, PagerAdoptSource *source);
extern PagerFile *pager_adopt_file(const ArtFileId *id,
								   const PagerAdoptSource *source,
								   const char *relname);

/*
 * Copy file src to a new file dst, keeping its logical page numbers, and
 * make the copy durable (pager_copy.c).
 */
extern void pager_copy_file(const ArtFileId *src, const ArtFileId *dst,
							const char *relname);

/* Remove the files of indexes that are gone; returns how many. */
extern int	pager_sweep_orphans(void);

/*
 * A bulk load's page store (pager_build.c): the trie's new pages go from
 * frames of the loading backend's own straight to the file, in batches
 * written while the load goes on, outside the page table.  With image,
 * the build keeps copies of what it writes for the file's image.
 * pager_build_end writes the rest and waits for it; pager_build_finish
 * then makes the file durable and, with log, logs its image, handing
 * each run of it to log (the WAL layer's).
 */
typedef struct PagerBuild PagerBuild;
typedef void (*PagerImageLog) (const PagerImage *image);

extern PagerBuild *pager_build_begin(PagerFile *file, bool image);
extern ArtPageStore pager_build_store(PagerBuild *build);
extern void pager_build_end(PagerBuild *build);
extern void pager_build_finish(PagerBuild *build, PagerImageLog log);

/*
 * Make every page of one file durable (a checkpoint of that file);
 * pager_flush_new_file with one sync, for a file that nothing durable
 * names until the caller's transaction commits.
 */
extern void pager_flush_file(PagerFile *file);
extern void pager_flush_new_file(PagerFile *file);

/* Pages in use in the file, and its size on disk in bytes. */
extern uint32 pager_file_pages(PagerFile *file);
extern uint64 pager_file_bytes(PagerFile *file);

/*
 * The file's last durable checkpoint: its number, and in *redo_lsn the WAL
 * position the file holds every change before (where that checkpoint
 * began, or later where the vouch list has the file unchanged since).
 */
extern uint64 pager_file_checkpoint(PagerFile *file, XLogRecPtr *redo_lsn);

/*
 * Scan holds (pager_hold.c): a scan that returns entries from copied
 * batches and must never return one that VACUUM removed meanwhile creates
 * a hold, refreshes it before reading each batch and drops it at its end;
 * clears it when it has returned everything; a bulk delete that removed
 * entries calls pager_hold_wait before it returns, which waits only for
 * holds on the same file.  Holds end at the end of the transaction, and
 * with the resource owner they were created under when an abort releases
 * it (a subtransaction's, a failed cursor's).
 */
extern int	pager_hold_create(PagerFile *file);
extern void pager_hold_refresh(int hold);
extern void pager_hold_clear(int hold);
extern void pager_hold_drop(int hold);
extern void pager_hold_wait(PagerFile *file);

/*
 * The pages this process misses from now on are random probes (an exact
 * lookup, the start of a scan): each is read alone, without the pages
 * around it that a streaming scan reads with it (io_set_random_reads).
 * Returns the previous setting, for the caller to restore; an abort
 * restores streaming.
 */
extern bool pager_set_random_reads(bool random);

/* Statistics of the buffer pool, for artrie_io_stats() and friends. */
typedef struct PagerPoolStats
{
	uint32		frames;
	uint32		dirty;
	uint32		files;			/* open files */
	uint64		hits;			/* pins served from the pool */
	uint64		misses;			/* pins that read the page */
	uint64		evictions;
	uint64		eviction_writes;	/* dirty victims written back */
	uint64		checkpoints;	/* file checkpoints made durable */
	uint64		checkpoint_pages;	/* data pages they wrote */
	uint64		recent_hits;	/* hits in the last watch interval */
	uint64		recent_misses;	/* misses in the last watch interval */
	bool		too_small;		/* that interval looked like thrashing */
} PagerPoolStats;

extern void pager_pool_stats(PagerPoolStats *stats);

/* The I/O layer's counters and state, passed through. */
extern void pager_io_stats(IoProcKind kind, IoStatsSnapshot *snap);
extern const char *pager_io_backend(void);
extern const char *pager_io_buffer_mode(void);
extern const char *pager_io_fallback_reason(void);

#endif							/* ARTRIE_PAGER_H */
