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
 * Layer rule: the SQL surface (src/am, src/func, src/artrie.c) and the
 * WAL layer (src/wal) call this header; the pager calls src/io; nothing
 * here calls upward.  The WAL layer hears of checkpoints through the hook
 * it registers (pager_set_hooks).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_H
#define ARTRIE_PAGER_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "io/io.h"
#include "pager/pager_page.h"
#include "storage/lock.h"
#include "trie/trie_page.h"

/* A backend's handle on one open artrie file. */
typedef struct PagerFile PagerFile;

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

/* Start a file afresh, empty, in place if it exists (redo of an image). */
extern PagerFile *pager_reset_file(const ArtFileId *id, const char *relname);

/*
 * Open an existing file; ERROR with a hint to REINDEX if it is missing.
 * A file's slot in shared memory is held from its first use in a
 * transaction to the transaction's end (artrie.max_files slots; files
 * nobody holds are closed to make room); pager_release_file lets it go
 * earlier, for a caller that needed the file only for a moment.
 */
extern PagerFile *pager_open_file(const ArtFileId *id, const char *relname);
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

/* The file's path relative to the data directory ("artrie/db/rel.gen"). */
extern char *pager_file_name(PagerFile *file);

/* Remove the files of indexes that are gone; returns how many. */
extern int	pager_sweep_orphans(void);

/* The file as a page store for the trie. */
extern ArtPageStore pager_page_store(PagerFile *file);

/* Make every page of one file durable (a checkpoint of that file). */
extern void pager_flush_file(PagerFile *file);

/*
 * Make every dirty page of every file durable; with restamp, give every
 * open file a new checkpoint even if it did not change.
 */
extern void pager_checkpoint(bool restamp);

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
 * A few words of the caller's own kept in the file's meta page (the trie's
 * root page, say), PAGER_USER_WORDS of them (pager_page.h).  A word set is
 * durable after the next checkpoint of the file (pager_flush_file); a
 * fresh file has them all zero.
 */
extern uint32 pager_get_user_word(PagerFile *file, int word);
extern void pager_set_user_word(PagerFile *file, int word, uint32 value);

/*
 * Filling a file page by page (pager_copy.c), as a copy or WAL redo does:
 * pager_copy_in_page writes logical page pageno (body is the page after
 * its store-reserved bytes; NULL leaves a new page zeroed), allocating
 * the logical pages up to it; pager_free_page frees one if it is in use.
 * pager_copy_out_page copies page pageno's body out, or returns false if
 * the page is free.
 */
extern void pager_copy_in_page(PagerFile *file, ArtPageNo pageno,
							   const char *body);
extern void pager_free_page(PagerFile *file, ArtPageNo pageno);
extern bool pager_copy_out_page(PagerFile *file, ArtPageNo pageno, char *body);
extern uint32 pager_file_nlogical(PagerFile *file);

/*
 * Recovery (src/wal).  Until pager_set_ready, only the startup process and
 * the io worker may use files; backends wait, and no checkpoint runs.
 * While PostgreSQL's recovery has not replayed past the barrier given
 * there (the end of the checkpoint record it started from: the WAL before
 * it is not all replayed yet), no checkpoint runs either.  pager_open_for_redo opens
 * a file that WAL redo names, or returns NULL if it does not exist or is
 * marked damaged; *redo_lsn is where its last checkpoint began.
 * pager_mark_damaged records durably that a file lacks changes (a failed
 * redo): it is refused until REINDEX gives the index a new file.  Files
 * whose last checkpoint began before pager_set_min_redo's position are
 * refused too (a copy that cannot be proven current), unless redo
 * vouches for one with pager_vouch_file (the WAL says it had no change
 * from its checkpoint up to a later position); pager_set_replay_from says
 * where the WAL replayed at the next start begins.  pager_survey_files
 * reads every file's meta pages, for recovery that lost its control file.  Redo, which runs
 * outside any transaction, lets go of the file slots it holds with
 * pager_unhold_files.  Redo that applies records later than it reads
 * them (a batch) says from which position it holds them back with
 * pager_hold_redo, so that no checkpoint claims them meanwhile.
 *
 * The hooks: checkpoint_done is called after every checkpoint of all
 * files, with the WAL position from which recovery would need records;
 * connections_allowed once in the io worker, when backends may connect:
 * PostgreSQL's recovery is over (at once if there was none), or a hot
 * standby accepts queries; file_unchanged (outside recovery) by a
 * checkpoint that finds a file without any change since its last
 * checkpoint, which began at since, while no change to the file can be
 * made (pager_vouch_file is its counterpart in redo); file_image (outside
 * recovery) by the first checkpoint that writes a changed file after
 * PostgreSQL's redo pointer moved, with the whole file as that
 * checkpoint leaves it, run by run, while no change to the file can be
 * made: redo of a base backup rebuilds the file from them, whatever the
 * copy caught of it.
 */
/*
 * One run of the image of a whole file that a checkpoint logs (the
 * file_image hook): logical pages [firstpage, firstpage + npages), those
 * in used (bit i for page firstpage + i) with their bodies (the page
 * after its store-reserved bytes) one after another in bodies, the
 * others allocated and zero, or free if listed in freelist; first starts
 * the file, last ends it and carries the free pages and the user words.
 */
#define PAGER_IMAGE_PAGES	32

typedef struct PagerImage
{
	ArtFileId	id;
	bool		first;
	bool		last;
	uint32		firstpage;
	uint32		npages;
	uint32		used;
	const char *bodies;
	const uint32 *freelist;
	uint32		nfree;			/* with last */
	const uint32 *user;			/* PAGER_USER_WORDS of them, with last */
} PagerImage;

typedef struct PagerHooks
{
	void		(*checkpoint_done) (XLogRecPtr redo);
	void		(*connections_allowed) (void);
	void		(*file_unchanged) (const ArtFileId *id, XLogRecPtr since);
	void		(*file_image) (const PagerImage *image);
} PagerHooks;

extern void pager_set_hooks(const PagerHooks *hooks);

/* After an error caught outside a transaction: drop this process's pins. */
extern void pager_release_all(void);
extern void pager_set_ready(XLogRecPtr barrier);
extern bool pager_is_ready(void);
extern PagerFile *pager_open_for_redo(const ArtFileId *id, XLogRecPtr *redo_lsn);
extern void pager_mark_damaged(const ArtFileId *id, const char *reason);
extern void pager_forget_files_before(XLogRecPtr lsn);

/* What pager_survey_files found under $PGDATA/artrie. */
typedef struct PagerSurvey
{
	int			files;			/* of this cluster, with a valid meta page */
	int			foreign;		/* of another cluster */
	int			unreadable;		/* without a valid meta page */
	XLogRecPtr	oldest;			/* oldest last checkpoint's start of files */
} PagerSurvey;

extern void pager_survey_files(PagerSurvey *survey);

/*
 * Timelines (pager_timeline.c): the one a checkpoint starting now is on,
 * and whether a position on a timeline belongs to this server's history.
 */
extern TimeLineID pager_timeline_now(void);
extern bool pager_timeline_agrees(TimeLineID tli, XLogRecPtr lsn,
								  TimeLineID *server_tli, XLogRecPtr *left_at);
extern void pager_vouch_file(const ArtFileId *id, XLogRecPtr since,
							 XLogRecPtr upto);
extern void pager_unhold_files(void);
extern void pager_hold_redo(XLogRecPtr lsn);
extern void pager_set_min_redo(XLogRecPtr lsn);
extern XLogRecPtr pager_min_redo(void);
extern void pager_set_replay_from(XLogRecPtr lsn);
extern XLogRecPtr pager_replay_from(void);

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
 * For redo of a bulk delete on a hot standby (src/wal/wal_conflict.c),
 * which cannot wait without bound: pager_hold_advance starts the wait
 * (the epoch the holds must reach), pager_hold_blockers lists the
 * transactions of the processes whose holds on the file are older, into
 * vxids (room for pager_hold_max_blockers of them), and returns how many.
 */
extern uint64 pager_hold_advance(void);
extern int	pager_hold_max_blockers(void);
extern int	pager_hold_blockers(const ArtFileId *file, uint64 epoch,
								VirtualTransactionId *vxids);

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
