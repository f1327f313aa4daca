/*-------------------------------------------------------------------------
 *
 * pager_redo.h
 *	  The pager's calls for the WAL layer: recovery, redo, the files'
 *	  images that a checkpoint logs and their redo.
 *
 * The WAL layer (src/wal) includes this header and no other of the
 * pager's, as PostgreSQL's redo routines read buffers through
 * xlogutils.h.  It is also part of the pager's public header (pager.h),
 * for the SQL surface.  The calls that only recovery makes are in
 * pager_redo.c; the others in the files of their layers (the page-by-page
 * copy in pager_copy.c, scan holds in pager_hold.c, timelines in
 * pager_timeline.c, and so on).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_REDO_H
#define ARTRIE_PAGER_REDO_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "pager/pager_page.h"
#include "storage/lock.h"
#include "trie/trie_page.h"

/* A backend's handle on one open artrie file. */
typedef struct PagerFile PagerFile;

/*
 * Start a file afresh, empty, in place if it exists (redo of an image whose
 * first record is at lsn).
 */
extern PagerFile *pager_reset_file(const ArtFileId *id, const char *relname,
								   XLogRecPtr lsn);

/* The file as a page store for the trie. */
extern ArtPageStore pager_page_store(PagerFile *file);

/* The file's path relative to the data directory ("artrie/db/rel.gen"). */
extern char *pager_file_name(PagerFile *file);

/*
 * Make every dirty page of every file durable; with restamp, give every
 * open file a new checkpoint even if it did not change.
 */
extern void pager_checkpoint(bool restamp);

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
 * Recovery (pager_redo.c).  Until pager_set_ready, only the startup
 * process and the io worker may use files; backends wait, and no
 * checkpoint runs.  While PostgreSQL's recovery has not replayed past the
 * barrier given there (the end of the checkpoint record it started from:
 * the WAL before it is not all replayed yet), no checkpoint runs either.
 * pager_open_for_redo opens a file that WAL redo names, or returns NULL
 * if it does not exist or is marked damaged; *redo_lsn is where its last
 * checkpoint began.  pager_mark_damaged records durably that a file lacks
 * changes (a failed redo): it is refused until REINDEX gives the index a
 * new file.  Files whose last checkpoint began before
 * pager_set_min_redo's position are refused too (a copy that cannot be
 * proven current), unless redo vouches for one with pager_vouch_file (the
 * WAL says it had no change from its checkpoint up to a later position);
 * pager_set_replay_from says where the WAL replayed at the next start
 * begins.  pager_survey_files reads every file's meta pages, for recovery
 * that lost its control file.  Redo, which runs outside any transaction,
 * lets go of the file slots it holds with pager_unhold_files.  Redo that
 * applies records later than it reads them (a batch) says from which
 * position it holds them back with pager_hold_redo, so that no checkpoint
 * claims them meanwhile.
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
 * checkpoint's snapshot has it, run by run: redo of a base backup
 * rebuilds the file from them, whatever the copy caught of it;
 * image_begin (outside recovery) by that checkpoint at its snapshot, with
 * the position it claims, while no change to the file can be made: the
 * file's entry records logged after it and before the image's last run
 * are not in the image, and redo that rebuilds the file applies them
 * after it.
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
	void		(*image_begin) (const ArtFileId *id, XLogRecPtr since);
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

extern void pager_vouch_file(const ArtFileId *id, XLogRecPtr since,
							 XLogRecPtr upto);
extern void pager_unhold_files(void);
extern void pager_hold_redo(XLogRecPtr lsn);
extern void pager_set_min_redo(XLogRecPtr lsn);
extern XLogRecPtr pager_min_redo(void);
extern void pager_set_replay_from(XLogRecPtr lsn);
extern XLogRecPtr pager_replay_from(void);

/*
 * Timelines (pager_timeline.c): the one a checkpoint starting now is on,
 * and whether a position on a timeline belongs to this server's history.
 */
extern TimeLineID pager_timeline_now(void);
extern bool pager_timeline_agrees(TimeLineID tli, XLogRecPtr lsn,
								  TimeLineID *server_tli, XLogRecPtr *left_at);

/*
 * For redo of a bulk delete on a hot standby (src/wal/wal_conflict.c),
 * which cannot wait without bound: pager_hold_advance starts the wait
 * (the epoch the holds must reach), pager_hold_blockers lists the
 * transactions of the processes whose holds on the file are older, into
 * vxids (room for pager_hold_max_blockers of them), and returns how many
 * (pager_hold.c).
 */
extern uint64 pager_hold_advance(void);
extern int	pager_hold_max_blockers(void);
extern int	pager_hold_blockers(const ArtFileId *file, uint64 epoch,
								VirtualTransactionId *vxids);

/*
 * Transparent huge pages for private arrays written front to back: the
 * build's arena and items, redo's batches (pager.c).
 */
#define PAGER_HUGE_PAGE		(2 * 1024 * 1024)

extern void pager_advise_huge(void *p, Size size, Size small);

#endif							/* ARTRIE_PAGER_REDO_H */
