/*-------------------------------------------------------------------------
 *
 * pager_internal.h
 *	  The pager's shared state: frames, the page table, the file table, and
 *	  the on-disk layout of artrie files.
 *
 * Layers.  Calls inside the pager go one way, from the top of this list
 * down; each file includes the headers of the layers it may call, and
 * every layer includes this header for the shared state.
 *
 *	pager.c				setup: GUCs, shared memory, the hooks' registration
 *	pager_worker.c		the io worker's loop (pager_worker.h)
 *	pager_sweep.c		the orphan sweep (pager_sweep.h)
 *	pager_copy.c		filling and copying files through the page store
 *	pager_build.c		a bulk load's pages, written straight to the file
 *	pager_redo.c		recovery's state and redo's calls (pager_redo.h)
 *	pager_store.c		the page store over a PagerFile handle
 *	pager_checkpoint.c	copy-on-write checkpoints (pager_checkpoint.h)
 *	pager_file.c		the file table (pager_file.h)
 *	pager_meta.c		meta pages: filling, loading a file (pager_meta.h)
 *	pager_vouch.c		the vouch list (pager_vouch.h)
 *	pager_cow.c			a checkpoint's set of frames, writers' copies
 *						(pager_cow.h)
 *	pager_pool.c		frames, page table, pins, eviction (pager_pool.h)
 *	pager_space.c		bitmaps, page allocation (pager_space.h)
 *	pager_map.c			page maps in memory (pager_map.h)
 *	pager_hold.c		scan holds, a leaf (pager_hold.h)
 *	pager_timeline.c	WAL positions and timelines of checkpoints, a leaf
 *	pager_page.c		the page formats, plain C (pager_page.h)
 *
 * The page store and checkpoints do not call each other.  The WAL layer
 * calls only the part of the pager's public header in pager_redo.h.  The
 * pool works on (file slot, page number), never on PagerFile handles: the
 * layers above resolve a handle with pager_slot first.  The pool's request
 * for a checkpoint is a flag and the io worker's latch in shared memory,
 * not a call.
 *
 * File layout.  An artrie file is a sequence of 8 KiB physical pages.
 * Physical pages 0 and 1 are the two meta slots; a checkpoint writes the
 * slot the last durable checkpoint did not use.  Every other physical page
 * holds a data page (one logical page of the trie), a map page (a slice of
 * the page map, logical -> physical, written anew by a checkpoint when it
 * changed) or a directory page (the places of a slice of the map pages,
 * written anew by each checkpoint).  A meta page lists its checkpoint's
 * directory pages.  Every page
 * starts with PagerPageHeader: CRC32C, page number, file identity
 * (pager_page.h has the page formats).
 *
 * Write stamps.  Every write of a data page (by a checkpoint or by an
 * eviction) seals it with a fresh stamp, which the page map records next
 * to its physical page and the checkpoint's map pages carry to disk; a
 * read checks the page's stamp against the map's.  A physical page is
 * reused for the same logical page, so without the stamp an older copy of
 * that page (a write the device acknowledged but lost) would pass every
 * other check.  The checkpoint number alone is not enough: an evicted page
 * may be written to the same physical page twice before a checkpoint, and
 * after a crash the same checkpoint number is used again.  So the stamps
 * of a file count up, per write, from a random start each time the file is
 * loaded: unique within a run, and a copy from another run carries the
 * expected stamp only by a 1 in 2^32 chance.
 *
 * Space.  Two bitmaps over physical pages, in dynamic shared memory with
 * the page map: "durable" (used by the last durable checkpoint, or by the
 * one being written) and "current" (used by the in-memory page map).  A
 * physical page is written only if it is in neither: that is what makes
 * checkpoints copy-on-write.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_INTERNAL_H
#define ARTRIE_PAGER_INTERNAL_H

#include "pager/pager.h"

#include "access/xlogdefs.h"
#include "io/io.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/s_lock.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/hsearch.h"

StaticAssertDecl(sizeof(PagerPageHeader) == ART_PAGE_RESERVED,
				 "page header must fill the store-reserved bytes");

/* Page map values besides physical page numbers. */
#define PAGER_PHYS_NONE		0	/* allocated, never written */
#define PAGER_PHYS_FREE		0xFFFFFFFF	/* logical page is free */

/* Frame flags. */
#define FRAME_TAG_VALID		0x01	/* in the page table */
#define FRAME_VALID			0x02	/* contents are the page */
#define FRAME_DIRTY			0x04	/* changed since last written */
#define FRAME_READING		0x08	/* a read is in progress */
#define FRAME_ORPHAN		0x10	/* pinned by an I/O its waiter left */
#define FRAME_CKPT			0x20	/* in a checkpoint's set (pager_cow.c) */
#define FRAME_CKPT_CLAIM	0x40	/* ... being copied out this moment */
#define FRAME_CKPT_STAGED	0x80	/* ... copied out by its checkpoint */
#define FRAME_COPY			0x100	/* a writer's copy of a frame of a
									 * checkpoint's set, out of the page
									 * table (pager_cow.c) */
#define FRAME_CKPT_PLACED	0x200	/* in the set, its page placed: it may
									 * be written out at ckpt_phys */
#define FRAME_CKPT_ALL		(FRAME_CKPT | FRAME_CKPT_CLAIM | \
							 FRAME_CKPT_STAGED | FRAME_CKPT_PLACED)

#define PAGER_MAX_USAGE		5

/* Indexes built by pg_upgrade's restore, one byte each (pager_file.c). */
#define PAGER_UPGRADE_MARKER	"artrie/pg_upgrade_reindex"

/*
 * Left by the io worker of a cluster that pg_upgrade stopped, when every
 * change was in the files (pager_adopt.c).
 */
#define PAGER_ADOPT_MARKER		"artrie/upgrade_clean"

/* A file's marker of failed recovery: its path and this suffix. */
#define PAGER_DAMAGED_SUFFIX	".damaged"

/*
 * An UNLOGGED index's file in use: its path and this suffix, holding the
 * run (pager_shared->run_id) that may change the file (pager_file.c).
 */
#define PAGER_INUSE_SUFFIX		".inuse"

/*
 * A frame's state word: its pin count, its usage count and the header
 * lock bit.  The header lock protects the fields up to content (flags,
 * tag, checkpoint fields) and is taken by setting FRAME_STATE_LOCKED
 * (pager_frame_lock).  A pin is one compare-and-swap that adds to the pin
 * and usage counts while the lock bit is clear (pager_frame_pin); an
 * unpin is one atomic subtraction, lock or no lock.  Whoever holds the
 * header lock changes the counts only by atomic operations too, so that
 * an unpin meanwhile is not lost.  A frame changes its tag only under the
 * header lock with no pin but the changer's: a pin taken before the lock
 * is seen there, and one taken after it sees the new tag.
 */
#define FRAME_REFCOUNT_MASK		0x0003FFFFU
#define FRAME_REFCOUNT_ONE		1U
#define FRAME_USAGE_SHIFT		18
#define FRAME_USAGE_MASK		(0xFU << FRAME_USAGE_SHIFT)
#define FRAME_USAGE_ONE			(1U << FRAME_USAGE_SHIFT)
#define FRAME_STATE_LOCKED		(1U << 31)

#define FRAME_REFCOUNT(state)	((state) & FRAME_REFCOUNT_MASK)
#define FRAME_USAGE(state)		(((state) & FRAME_USAGE_MASK) >> FRAME_USAGE_SHIFT)

/* A frame's descriptor. */
typedef struct PagerFrame
{
	pg_atomic_uint32 state;		/* pins, usage, header lock (above) */
	uint16		flags;
	int			fileslot;
	ArtPageNo	pageno;
	LWLock		content;
	ConditionVariable io_cv;	/* broadcast when a read ends */
	pg_atomic_uint32 passers;	/* inserts between their passes whose path
								 * goes on below the page (pager_store.c) */
	pg_atomic_uint32 split_marks;	/* splits of the page waiting for its
									 * passers (pager_store.c) */
	uint32		changes;		/* exclusive holds of the page ended, but
								 * those that only grew counts (pager_store.c;
								 * under the content lock) */
	uint32		ckpt_phys;		/* in a checkpoint's set: where and with */
	uint32		ckpt_stamp;		/* which write stamp the checkpoint writes
								 * the page (FRAME_CKPT_PLACED, under the
								 * header lock) */
} PagerFrame;

/* The page table's key and entry. */
typedef struct PagerTag
{
	int			fileslot;
	ArtPageNo	pageno;
} PagerTag;

typedef struct PagerLookup
{
	PagerTag	tag;
	int			frame;
} PagerLookup;

#define PAGER_PARTITIONS	128

/* One open file, in shared memory. */
typedef struct PagerFileSlot
{
	/* Set under the files lock. */
	bool		in_use;
	bool		loaded;			/* map and bitmaps are valid */
	bool		closing;		/* being closed: no new holds, not found */
	uint32		incarnation;	/* changes whenever the slot is reused */
	pg_atomic_uint32 users;		/* processes holding it, besides those whose
								 * line names it (taken under the files
								 * lock, shared) */
	pg_atomic_uint64 last_used; /* pager_shared->use_clock when it was last
								 * the file held most recently */
	ArtFileId	id;
	char		path[IO_PATH_LEN];
	char		relname[NAMEDATALEN];

	LWLock		ckpt_lock;		/* loading, checkpoint, drop */
	LWLock		gate;			/* shared while changing pages, see pager_pool.c */
	LWLock		writers;		/* the trie's write section (pager_store.c) */
	LWLock		splits;			/* the trie's split section (pager_store.c) */
	ConditionVariable split_cv; /* broadcast when a marked page's passers
								 * or a page's split marks drop to zero */
	pg_atomic_uint64 version;	/* the tries' content version (pager_store.c) */
	pg_atomic_uint64 groups;	/* the trie's group count, user words
								 * PAGER_GROUPS_WORD and the next while
								 * loaded (pager_store.c) */
	pg_atomic_uint32 gate_closing;	/* a checkpoint waits for the gate */
	pg_atomic_uint32 ckpt_copies;	/* writers' copies of its checkpoint's
									 * set not yet written (pager_cow.c) */
	pg_atomic_uint32 ckpt_written;	/* frames of its checkpoint's set others
									 * wrote out for it (pager_cow.c) */
	ConditionVariable gate_cv;	/* broadcast when gate_closing clears */
	LWLock		lock;			/* everything below */
	uint32		nlogical;
	uint32		nused;
	uint32		nphys;
	uint32		fanout;			/* entries of a map or directory page */
	uint32		map_cap;		/* entries of map */
	uint32		mapref_cap;		/* entries of maprefs, bits of mapdirty */
	uint32		phys_cap;		/* bits of each bitmap */
	uint32		free_hint;		/* no free logical page below */
	uint32		phys_hint;		/* no free physical page below */
	dsa_pointer map;			/* uint32[map_cap] */
	dsa_pointer stamps;			/* uint32[map_cap]: each page's write stamp */
	dsa_pointer maprefs;		/* PagerMapRef[mapref_cap]: map pages on disk */
	dsa_pointer mapdirty;		/* bitmap: map pages changed since taken */
	uint32		write_stamp;	/* the last stamp handed out */
	dsa_pointer durable;		/* bitmap */
	dsa_pointer current;		/* bitmap */
	uint64		ckpt_no;		/* of the last durable checkpoint */
	XLogRecPtr	redo_lsn;	/* WAL position its checkpoint began at */
	XLogRecPtr	vouched_at;		/* the vouch list has it current here, if
								 * later (pager_vouch.c) */
	int			meta_slot;		/* meta slot it used */
	bool		changed;		/* anything to checkpoint */
	bool		tail_left;		/* pages left to move down from the file's
								 * tail (pager_checkpoint) */
	bool		inuse_marked;	/* an UNLOGGED index's file, marked in use
								 * by this run (set under ckpt_lock) */
	XLogRecPtr	imaged_redo;	/* PostgreSQL's redo pointer when the file's
								 * image was last logged (pager_checkpoint) */
	bool		stale;			/* loaded current only from before
								 * PostgreSQL's redo pointer: to be vouched
								 * for (pager_checkpoint) */
	uint32		user[PAGER_USER_WORDS];
} PagerFileSlot;

/*
 * One process's published scan holds (pager_hold.c): per file, the least
 * epoch of the batches its scans of that file return from.  A file id of
 * all zeros stands for any file.
 */
#define PAGER_HOLD_FILES	4

typedef struct PagerProcHolds
{
	slock_t		mutex;
	VirtualTransactionId vxid;	/* of the transaction that published them */
	int			nfiles;
	ArtFileId	file[PAGER_HOLD_FILES];
	uint64		epoch[PAGER_HOLD_FILES];
} PagerProcHolds;

/*
 * One process's line of shared memory, per PGPROC and a cache line long,
 * so that no other process writes it: the file slots it holds without
 * the slot's users count (pager_file.c: the holder writes the slot here,
 * a closer reads every process's line) and its pool hits (pager_pool.c:
 * counted here, summed by whoever reads them).  A process that holds more
 * than PAGER_PROC_FILES files at once counts the others in their slots'
 * users.
 */
#define PAGER_PROC_FILES	8

typedef struct PagerProcLineData
{
	pg_atomic_uint32 held[PAGER_PROC_FILES];	/* slot + 1, or 0: free */
	pg_atomic_uint64 hits;		/* pool hits, cumulative over the processes
								 * that had this PGPROC */
} PagerProcLineData;

typedef union PagerProcLine
{
	PagerProcLineData d;
	char		pad[PG_CACHE_LINE_SIZE];
} PagerProcLine;

StaticAssertDecl(sizeof(PagerProcLineData) <= PG_CACHE_LINE_SIZE,
				 "a process's line must fit a cache line");

/* Pager statistics. */
typedef struct PagerCounters
{
	pg_atomic_uint64 hits;		/* of processes without a line (most are in
								 * their PagerProcLine) */
	pg_atomic_uint64 misses;
	pg_atomic_uint64 evictions;
	pg_atomic_uint64 eviction_writes;
	pg_atomic_uint64 checkpoints;
	pg_atomic_uint64 checkpoint_pages;
	/* The io worker's last interval of the pool's watch (pager_pool_watch). */
	pg_atomic_uint64 recent_hits;
	pg_atomic_uint64 recent_misses;
	pg_atomic_uint32 too_small;	/* that interval looked like thrashing */
} PagerCounters;

typedef struct PagerShared
{
	int			nframes;
	int			max_files;
	int			content_tranche;
	int			file_tranche;	/* ckpt_lock and lock of each file slot */
	int			gate_tranche;	/* their gate, writers and splits, apart so */
	int			writers_tranche;	/* that wait events tell them apart */
	int			splits_tranche;
	int			dsa_tranche;
	pg_atomic_uint32 clock_hand;
	pg_atomic_uint32 ndirty;
	pg_atomic_uint32 ckpt_requested;
	pg_atomic_uint32 slots_wanted;	/* a process found no free file slot */
	pg_atomic_uint32 slots_round;	/* bumped after each round of closing */
	pg_atomic_uint32 slots_closed;	/* how many the last round closed */
	pg_atomic_uint32 slots_busy;	/* idle files it found busy, not closed */
	ConditionVariable slots_cv; /* broadcast after each round */
	pg_atomic_uint64 use_clock;	/* orders file slots by last use */
	pg_atomic_uint32 sweep_blocked;	/* the sweep said it cannot read a place */
	pg_atomic_uint32 sweep_db_unreadable;	/* ... or a database's directory */
	pg_atomic_uint32 sweep_db_missing;	/* ... or found one missing */
	pg_atomic_uint32 sweeper_connected; /* the last sweeper reached its
										 * database */
	Latch	   *worker_latch;
	/* The checkpoint gate (pager_ckpt_gate.c). */
	pg_atomic_uint64 pass_done_redo;	/* the io worker's pass at this redo
										 * pointer is done */
	Latch	   *gate_latch;		/* NULL while no gate runs */
	LWLock	   *files_lock;
	LWLock	   *vouch_lock;		/* writing the vouch list (pager_vouch.c) */
	LWLockPadded *partition_locks;
	PagerCounters counters;
	PagerFrame *frames;
	char	   *data;			/* nframes pages, 4 KiB aligned */
	PagerFileSlot *files;
	void	   *dsa_place;
	/* Recovery's state (see pager_set_ready and pager_set_min_redo). */
	bool		ready;			/* files may be used */
	ConditionVariable ready_cv;
	XLogRecPtr	min_redo;		/* files checkpointed before it are refused */
	XLogRecPtr	replay_from;	/* WAL from here on is replayed at start */
	XLogRecPtr	replayed_from;	/* where this start's replay began */
	XLogRecPtr	stamped_from;	/* every closed file's last checkpoint began
								 * here or later (pager_checkpoint) */
	XLogRecPtr	ckpt_barrier;	/* in recovery, no checkpoint until past it */
	pg_atomic_uint64 redo_held;	/* redo has not applied records from here */
	pg_atomic_uint64 hold_epoch;	/* scan holds (pager_hold.c) */
	uint64		run_id;			/* this run of the server: its start time */
	bool		clean_start;	/* the server stopped cleanly before it */
	pg_atomic_uint32 users;		/* processes using artrie that PostgreSQL
								 * stops before the io worker */
	int			nholds;
	PagerProcHolds *holds;		/* per PGPROC */
	PagerProcLine *procs;		/* per PGPROC, nholds of them */
} PagerShared;

/* A backend's handle on a file. */
struct PagerFile
{
	ArtFileId	id;
	int			slot;
	uint32		incarnation;
	bool		held;			/* this process holds the slot */
	int			line_entry;		/* ... through this entry of its line, or
								 * -1: counted in the slot's users */
	char		relname[NAMEDATALEN];
};

extern PagerShared *pager_shared;
extern HTAB *pager_table;
extern int	pager_pool_kb;
extern int	pager_max_files;
extern int	pager_checkpoint_timeout;
extern int	pager_checkpoint_gate_timeout;
extern int	pager_checkpoint_dirty_percent;
extern int	pager_test_map_fanout;
extern bool pager_test_checkpoint_pause;
extern bool pager_test_walk_pause;
extern char *pager_test_insert_pause;

/*
 * The pager's positions in the WAL (pager_timeline.c): where a checkpoint
 * that starts now begins, and the end of the last record inserted (in
 * recovery: replayed).
 */
extern XLogRecPtr pager_redo_now(void);
extern XLogRecPtr pager_wal_end(void);

/*
 * Take a frame's header lock; returns the state word with the lock bit.
 */
static inline uint32
pager_frame_lock(PagerFrame *f)
{
	SpinDelayStatus delay;
	uint32		old;

	init_local_spin_delay(&delay);
	for (;;)
	{
		old = pg_atomic_fetch_or_u32(&f->state, FRAME_STATE_LOCKED);
		if (!(old & FRAME_STATE_LOCKED))
			break;
		perform_spin_delay(&delay);
	}
	finish_spin_delay(&delay);
	return old | FRAME_STATE_LOCKED;
}

/*
 * Release a frame's header lock.
 */
static inline void
pager_frame_unlock(PagerFrame *f)
{
	pg_atomic_fetch_and_u32(&f->state, ~FRAME_STATE_LOCKED);
}

/*
 * Add one pin to a frame, and one to its usage count below the cap: one
 * compare-and-swap, once the header lock is free.  Returns the state word
 * before.  The spin delay is set up only if the lock is found taken, as
 * PostgreSQL's PinBuffer does (most pins never wait).
 */
static inline uint32
pager_frame_pin(PagerFrame *f)
{
	SpinDelayStatus delay;
	bool		waited = false;
	uint32		old = pg_atomic_read_u32(&f->state);

	for (;;)
	{
		uint32		new;

		if (old & FRAME_STATE_LOCKED)
		{
			if (!waited)
				init_local_spin_delay(&delay);
			waited = true;
			perform_spin_delay(&delay);
			old = pg_atomic_read_u32(&f->state);
			continue;
		}
		new = old + FRAME_REFCOUNT_ONE;
		if (FRAME_USAGE(old) < PAGER_MAX_USAGE)
			new += FRAME_USAGE_ONE;
		if (pg_atomic_compare_exchange_u32(&f->state, &old, new))
			break;
	}
	if (waited)
		finish_spin_delay(&delay);
	return old;
}

/*
 * Set a frame's usage count (its header lock held).
 */
static inline void
pager_frame_set_usage(PagerFrame *f, uint32 usage)
{
	uint32		old = pg_atomic_read_u32(&f->state);

	Assert(old & FRAME_STATE_LOCKED);
	while (!pg_atomic_compare_exchange_u32(&f->state, &old,
										   (old & ~FRAME_USAGE_MASK) |
										   (usage << FRAME_USAGE_SHIFT)))
		;
}

#endif							/* ARTRIE_PAGER_INTERNAL_H */
