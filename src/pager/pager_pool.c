/*-------------------------------------------------------------------------
 *
 * pager_pool.c
 *	  The buffer pool: frames, page table, pins, content locks, the write
 *	  gate, clock-sweep eviction, scratch frames, and this process's
 *	  per-backend state (pins, gates, hints).
 *
 * A frame is found through a partitioned shared hash keyed by (file slot,
 * logical page).  Its descriptor's header lock protects the tag and flags;
 * its pin and usage counts are atomic, in the state word the lock bit is
 * part of (pager_internal.h states the protocol); its LWLock protects the page's contents, in the
 * mode the trie asks for.  A backend remembers its pins in a local list so
 * that they are dropped at (sub)transaction abort and at exit; the content
 * locks themselves are released by LWLockReleaseAll.
 *
 * The clock sweep prefers clean victims for one full turn of the clock
 * (and asks the io worker for a checkpoint meanwhile); after that it takes
 * a dirty one and writes it back copy-on-write to a fresh physical page.
 * A victim whose content lock is busy is passed over: a backend evicting
 * may hold other pages' locks, so it must not wait for one.
 *
 * The write gate.  A checkpoint must see every file as readers do: a
 * consistent trie, never half of a change.  A backend holds its file's
 * gate (an LWLock) in shared mode from its first exclusive page lock of
 * the file until its last is released, and while it writes back a dirty
 * victim; a checkpoint holds the gate exclusive while it takes the
 * file's dirty frames into its set and snapshots its page map.  Under the
 * gate no page of the file can change, so the checkpoint needs no content
 * locks.  A frame of a checkpoint's set (FRAME_CKPT) keeps the snapshot's
 * contents until the checkpoint or a writer has copied or written them
 * out (pager_cow.c); the clock sweep takes one as a victim by writing it
 * out for the checkpoint, as it writes a dirty one back.
 * LWLocks let new shared holders past a waiting exclusive one, so under
 * a steady stream of writers the gate might never be free: a checkpoint
 * that waits for it sets the slot's gate_closing, and a process about to
 * enter the gate while it holds no other waits (cancellably) until the
 * checkpoint has it, so the holders drain.
 *
 * Layer: the pool works on (file slot, page number) and PagerFileSlot,
 * never on PagerFile handles, so it never opens a file.  It calls the
 * space layer (page maps, physical pages for evicted pages,
 * pager_corrupt), the scan holds (their end with a transaction), the
 * checkpoint's set (pager_cow.c: writing out a victim in it) and
 * src/io.  Asking the io worker for a checkpoint (pager_request_checkpoint)
 * sets a flag and the worker's latch in shared memory: a signal, not a
 * call.  Called by the file table, the page store, checkpoints, the sweep
 * and the io worker (pager_pool.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "pager/pager_cow.h"
#include "pager/pager_hold.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* The pool's watch (pager_pool_watch). */
#define PAGER_WATCH_INTERVAL_S		10
#define PAGER_WATCH_MIN_MISSES		1000
#define PAGER_WATCH_MISS_PERCENT	10
#define PAGER_WATCH_LOG_S			300

/* This process's pins. */
typedef struct LocalPin
{
	int			frame;
	int			count;
	int			passing;		/* of them, counted in the frame's passers */
	int			splitting;		/* of them, counted in its split marks */
} LocalPin;

static LocalPin *local_pins = NULL;
static int	local_npins = 0;
static uint64 local_pins_era = 0;	/* pager_release_all calls */
static int	local_maxpins = 0;
/* This process's holds on files' write gates. */
typedef struct LocalGate
{
	int			slot;
	int			count;
} LocalGate;

#define PAGER_MAX_GATES		16

static LocalGate local_gates[PAGER_MAX_GATES];
static int	local_ngates = 0;

static bool backend_ready = false;

/*
 * This process's line of shared memory (PagerProcLine), or NULL for a
 * process without a PGPROC.  Its pool hits are counted there, where no
 * other process writes: one shared counter for every process's hits made
 * them all write its cache line, at each hit or, added up, at each
 * transaction's end (two clients of prepared exact lookups fought over it).
 */
static PagerProcLine *my_line = NULL;

static int	pager_get_page_mapped(PagerFileSlot *fs, int slot, ArtPageNo pageno);

/*
 * Frames that taking a fresh one, for a new page or a page read in,
 * faults in with it (pager_frame_populate).
 */
#define PAGER_POPULATE_FRAMES	64

/*
 * The runs of PAGER_POPULATE_FRAMES frames this process has faulted in, a
 * bit each (pager_backend_init allocates it).
 */
static uint8 *populated = NULL;

/*
 * Fault in the memory of the run of PAGER_POPULATE_FRAMES frames that
 * holds frame, unless this process did so before.  A fresh pool's frames
 * are handed out in clock order, each 8 KiB of shared memory that the
 * kernel has not given a page yet: one system call for the run costs less
 * than two page faults for each frame (a third of the CPU of redo's page
 * splits).  Once a process has done it, its page tables map the run and
 * the call would only walk them again, at tens of microseconds a run:
 * so each run once a process.  Only a hint: frames
 * already in memory stay as they are, and a kernel without
 * MADV_POPULATE_WRITE (before Linux 5.14) fails it.
 */
void
pager_frame_populate(int frame)
{
#ifdef MADV_POPULATE_WRITE
	int			run = frame / PAGER_POPULATE_FRAMES;
	int			start = run * PAGER_POPULATE_FRAMES;
	int			end = Min(start + PAGER_POPULATE_FRAMES, pager_shared->nframes);

	if (populated == NULL || (populated[run / 8] & (1 << (run % 8))))
		return;
	(void) madvise(pager_frame_data(start),
				   (Size) (end - start) * ART_PAGE_SIZE, MADV_POPULATE_WRITE);
	populated[run / 8] |= 1 << (run % 8);
#else
	(void) frame;
#endif
}

/*
 * A frame's passers dropped to left_passers, or its split marks to
 * left_marks (the other argument ~0): if that ends a wait for them, wake
 * the waiters of its file (pager_store.c).  The atomic operation that
 * changed the count and the one that set a mark are full barriers, so
 * either the changer sees the mark or the marker sees the change.
 */
static void
split_waiters_wake(PagerFrame *f, uint32 left_passers, uint32 left_marks)
{
	if (left_marks == 0 ||
		(left_passers == 0 && pg_atomic_read_u32(&f->split_marks) > 0))
		ConditionVariableBroadcast(&pager_shared->files[f->fileslot].split_cv);
}

/*
 * Drop count pins of a frame that this process no longer counts, passing
 * of them counted in its passers and splitting in its split marks; if an
 * I/O whose waiter left (io.c) still uses the frame, leave one pin to the
 * I/O and mark the frame an orphan, for the clock sweep to take back.
 */
static void
pager_unpin_shared(int frame, int count, int passing, int splitting)
{
	PagerFrame *f = &pager_shared->frames[frame];
	bool		busy = io_buffer_busy(pager_frame_data(frame));

	if (passing > 0)
		split_waiters_wake(f, pg_atomic_sub_fetch_u32(&f->passers, passing),
						   ~0U);
	if (splitting > 0)
		split_waiters_wake(f, ~0U,
						   pg_atomic_sub_fetch_u32(&f->split_marks, splitting));
	if (busy)
	{
		pager_frame_lock(f);
		if (!(f->flags & FRAME_ORPHAN))
		{
			f->flags |= FRAME_ORPHAN;
			count--;
		}
		pager_frame_unlock(f);
	}
	if (count > 0)
		pg_atomic_fetch_sub_u32(&f->state, count * FRAME_REFCOUNT_ONE);
}

/*
 * Take back an orphan frame whose I/O has ended: drop the I/O's pin.
 */
static void
pager_adopt_orphan(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	if (io_buffer_busy(pager_frame_data(frame)))
		return;
	pager_frame_lock(f);
	if (f->flags & FRAME_ORPHAN)
	{
		f->flags &= ~FRAME_ORPHAN;
		pg_atomic_fetch_sub_u32(&f->state, FRAME_REFCOUNT_ONE);
	}
	pager_frame_unlock(f);
}

/*
 * Drop every pin this process holds (their locks are gone already), once
 * this process's write under way that nobody waits for any more, if any,
 * has ended (io_write_abandon): a build's batch, whose frames are among
 * them.
 */
void
pager_release_all(void)
{
	local_pins_era++;
	io_write_abandon();
	for (int i = 0; i < local_npins; i++)
		pager_unpin_shared(local_pins[i].frame, local_pins[i].count,
						   local_pins[i].passing, local_pins[i].splitting);
	local_npins = 0;
	local_ngates = 0;
}

/*
 * How many times this process dropped all its pins (pager_release_all): a
 * cursor's pin kept across calls is gone once this moves.
 */
uint64
pager_pins_era(void)
{
	return local_pins_era;
}

/*
 * Count a pool hit: in this process's line, which only this process
 * writes (a plain store, not a locked add).
 */
static inline void
pager_count_hit(void)
{
	if (likely(my_line != NULL))
		pg_atomic_write_u64(&my_line->d.hits,
							pg_atomic_read_u64(&my_line->d.hits) + 1);
	else
		pg_atomic_fetch_add_u64(&pager_shared->counters.hits, 1);
}

/*
 * This process's line of shared memory, or NULL (pager_file.c publishes
 * the file slots it holds there).
 */
pg_attribute_hot PagerProcLine *
pager_proc_line(void)
{
	return my_line;
}

/*
 * End of a transaction: scan holds end.  Abort of a (sub)transaction: the
 * trie holds no pin across calls but a cursor's, which the pins' era
 * (pager_pins_era) tells is gone, so every other pin this process holds
 * belongs to the operation that failed; a scan that failed while its reads were
 * random probes leaves them so, and they go back to reading around.
 */
static pg_attribute_hot void
pager_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		pager_hold_release_all();
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		pager_release_all();
		(void) io_set_random_reads(false);
	}
	else if ((event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
			  event == XACT_EVENT_PREPARE) && local_npins > 0)
	{
		elog(WARNING, "artrie: %d buffer pins leaked", local_npins);
		pager_release_all();
	}
}

/*
 * Abort of a subtransaction: as for a transaction's.
 */
static void
pager_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		pager_release_all();
		(void) io_set_random_reads(false);
	}
}

/*
 * Process exit: drop pins left by a FATAL.
 */
static void
pager_proc_exit(int code, Datum arg)
{
	LWLockReleaseAll();
	pager_release_all();
}

/*
 * Process exit, after the transaction's abort: this process no longer
 * changes any file (pager_users).
 */
static void
pager_user_exit(int code, Datum arg)
{
	Latch	   *worker = pager_shared->worker_latch;

	pg_atomic_fetch_sub_u32(&pager_shared->users, 1);
	if (worker)
		SetLatch(worker);
}

/*
 * First use in this process: callbacks that drop pins.  A process that
 * PostgreSQL stops before the io worker at shutdown (a backend, a
 * background worker other than the io worker, the startup process) counts
 * as a user until it exits.
 */
void
pager_backend_init(bool io_worker)
{
	if (backend_ready)
		return;
	if (pager_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie must be loaded via shared_preload_libraries")));
	local_maxpins = 64;
	local_pins = MemoryContextAlloc(TopMemoryContext, sizeof(LocalPin) * local_maxpins);
	populated = MemoryContextAllocZero(TopMemoryContext,
									   pager_shared->nframes / PAGER_POPULATE_FRAMES / 8 + 1);
	if (MyProc != NULL && MyProc->pgprocno < pager_shared->nholds)
		my_line = &pager_shared->procs[MyProc->pgprocno];
	RegisterXactCallback(pager_xact_callback, NULL);
	RegisterSubXactCallback(pager_subxact_callback, NULL);
	before_shmem_exit(pager_proc_exit, 0);
	if (!io_worker &&
		(MyBackendType == B_BACKEND || MyBackendType == B_BG_WORKER ||
		 MyBackendType == B_AUTOVAC_WORKER || MyBackendType == B_STARTUP))
	{
		pg_atomic_fetch_add_u32(&pager_shared->users, 1);
		on_shmem_exit(pager_user_exit, 0);
	}
	backend_ready = true;
}

/*
 * Processes that may still change files: those counted by
 * pager_backend_init that have not exited yet.
 */
uint32
pager_users(void)
{
	return pg_atomic_read_u32(&pager_shared->users);
}

/*
 * Make room for one more local pin before touching shared state, so that
 * recording it cannot fail.
 */
static void
local_pin_reserve(void)
{
	if (local_npins >= local_maxpins)
	{
		local_maxpins *= 2;
		local_pins = repalloc(local_pins, sizeof(LocalPin) * local_maxpins);
	}
}

/*
 * Before a critical section that pins only pages this process has pinned
 * already: make sure that recording those pins allocates no memory.
 */
void
pager_pin_reserve(void)
{
	if (local_npins + 1 >= local_maxpins)
	{
		local_maxpins *= 2;
		local_pins = repalloc(local_pins, sizeof(LocalPin) * local_maxpins);
	}
}

/*
 * Record a pin of frame.
 */
pg_attribute_hot void
pager_local_pin_add(int frame)
{
	for (int i = 0; i < local_npins; i++)
	{
		if (local_pins[i].frame == frame)
		{
			local_pins[i].count++;
			return;
		}
	}
	local_pins[local_npins].frame = frame;
	local_pins[local_npins].count = 1;
	local_pins[local_npins].passing = 0;
	local_pins[local_npins].splitting = 0;
	local_npins++;
}

/*
 * Count one of this process's pins of frame in the frame's split marks
 * (split) or passers (not), delta 1, or no longer (-1); a pin released at
 * abort stops counting with it.  A drop wakes who waits for it.
 */
void
pager_local_pin_mark(int frame, bool split, int delta)
{
	PagerFrame *f = &pager_shared->frames[frame];
	pg_atomic_uint32 *shared = split ? &f->split_marks : &f->passers;

	for (int i = 0; i < local_npins; i++)
	{
		if (local_pins[i].frame == frame)
		{
			int		   *mine = split ? &local_pins[i].splitting :
				&local_pins[i].passing;
			uint32		left;

			Assert(*mine + delta >= 0 &&
				   local_pins[i].passing + local_pins[i].splitting + delta <=
				   local_pins[i].count);
			*mine += delta;
			if (delta > 0)
			{
				pg_atomic_fetch_add_u32(shared, delta);
				return;
			}
			left = pg_atomic_sub_fetch_u32(shared, -delta);
			split_waiters_wake(f, split ? ~0U : left, split ? left : ~0U);
			return;
		}
	}
	elog(ERROR, "artrie: frame %d is not pinned", frame);
}

/*
 * Forget a pin of frame.
 */
static pg_attribute_hot void
local_pin_remove(int frame)
{
	for (int i = 0; i < local_npins; i++)
	{
		if (local_pins[i].frame == frame)
		{
			Assert(local_pins[i].passing + local_pins[i].splitting <
				   local_pins[i].count);
			if (--local_pins[i].count == 0)
				local_pins[i] = local_pins[--local_npins];
			return;
		}
	}
	elog(ERROR, "artrie: frame %d is not pinned", frame);
}

/*
 * Before a process enters its first write gate: while a checkpoint waits
 * for this one, wait until it has it.  A process inside another gate goes
 * on at once, since a checkpoint of that file may be waiting for it; the
 * io worker too, since checkpoints wait for its I/O.
 */
static void
gate_wait_open(PagerFileSlot *fs)
{
	if (pg_atomic_read_u32(&fs->gate_closing) == 0 || local_ngates > 0 ||
		io_in_worker())
		return;
	while (pg_atomic_read_u32(&fs->gate_closing) != 0)
		io_wait(&fs->gate_cv, 10);
	ConditionVariableCancelSleep();
}

/*
 * Enter a file's write gate (shared); with conditional, give up rather
 * than wait (also while a checkpoint waits for the gate).
 */
bool
pager_gate_enter(int slot, bool conditional)
{
	PagerFileSlot *fs = &pager_shared->files[slot];
	LWLock	   *gate = &fs->gate;

	for (int i = 0; i < local_ngates; i++)
	{
		if (local_gates[i].slot == slot)
		{
			local_gates[i].count++;
			return true;
		}
	}
	if (local_ngates >= PAGER_MAX_GATES)
		elog(ERROR, "artrie: too many files changed at once");
	if (conditional)
	{
		if (pg_atomic_read_u32(&fs->gate_closing) != 0 ||
			!LWLockConditionalAcquire(gate, LW_SHARED))
			return false;
	}
	else
	{
		gate_wait_open(fs);
		LWLockAcquire(gate, LW_SHARED);
	}
	local_gates[local_ngates].slot = slot;
	local_gates[local_ngates].count = 1;
	local_ngates++;
	return true;
}

/*
 * Leave a file's write gate.
 */
void
pager_gate_exit(int slot)
{
	for (int i = 0; i < local_ngates; i++)
	{
		if (local_gates[i].slot == slot)
		{
			if (--local_gates[i].count == 0)
			{
				LWLockRelease(&pager_shared->files[slot].gate);
				local_gates[i] = local_gates[--local_ngates];
			}
			return;
		}
	}
	elog(ERROR, "artrie: write gate of file slot %d is not held", slot);
}

/*
 * Drop one pin.
 */
pg_attribute_hot void
pager_unpin(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	local_pin_remove(frame);
	Assert(FRAME_REFCOUNT(pg_atomic_read_u32(&f->state)) > 0);
	pg_atomic_fetch_sub_u32(&f->state, FRAME_REFCOUNT_ONE);
}

/*
 * Does this process hold a file's write gate?
 */
pg_attribute_hot bool
pager_gate_held(int slot)
{
	for (int i = 0; i < local_ngates; i++)
		if (local_gates[i].slot == slot)
			return true;
	return false;
}

/*
 * Hand a scratch frame this process filled with a copy of page pageno of
 * a file over to that file's running checkpoint (FRAME_COPY): it stays
 * pinned, out of the page table, no longer counted among this process's
 * pins, until the checkpoint has written it (pager_copy_release).
 */
void
pager_copy_hand_over(int frame, int slot, ArtPageNo pageno)
{
	PagerFrame *f = &pager_shared->frames[frame];

	local_pin_remove(frame);
	pager_frame_lock(f);
	Assert(!(f->flags & FRAME_TAG_VALID) &&
		   FRAME_REFCOUNT(pg_atomic_read_u32(&f->state)) > 0);
	f->flags = FRAME_COPY;
	f->fileslot = slot;
	f->pageno = pageno;
	pager_frame_unlock(f);
}

/*
 * Give back a frame handed over by pager_copy_hand_over.
 */
void
pager_copy_release(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	pager_frame_lock(f);
	Assert(f->flags == FRAME_COPY &&
		   FRAME_REFCOUNT(pg_atomic_read_u32(&f->state)) > 0);
	f->flags = 0;
	f->fileslot = -1;
	f->pageno = ART_INVALID_PAGENO;
	pager_frame_set_usage(f, 0);
	pg_atomic_fetch_sub_u32(&f->state, FRAME_REFCOUNT_ONE);
	pager_frame_unlock(f);
}

/*
 * Wake the io worker to run a checkpoint.
 */
void
pager_request_checkpoint(void)
{
	if (pg_atomic_exchange_u32(&pager_shared->ckpt_requested, 1) == 0 &&
		pager_shared->worker_latch)
		SetLatch(pager_shared->worker_latch);
}

/*
 * Count a frame that turned dirty; too many dirty frames ask for a
 * checkpoint.
 */
void
pager_count_dirty(void)
{
	uint32		nd = pg_atomic_add_fetch_u32(&pager_shared->ndirty, 1);

	if ((uint64) nd * 100 >= (uint64) pager_shared->nframes * pager_checkpoint_dirty_percent)
		pager_request_checkpoint();
}

/*
 * Fill a page's header and checksum.
 */
void
pager_page_seal(PagerFileSlot *fs, char *page, uint32 pageno, uint16 kind,
				uint64 ckpt_no)
{
	pager_page_seal_header((uint8 *) page, &fs->id, pageno, kind, ckpt_no);
}

/*
 * Check a page read from disk: NULL if good, else what is wrong.
 */
const char *
pager_page_check(PagerFileSlot *fs, const char *page, uint32 pageno,
				 uint16 kind)
{
	char		msg[128];

	if (pager_page_check_header((const uint8 *) page, &fs->id, pageno, kind,
								msg, sizeof(msg)))
		return NULL;
	return pstrdup(msg);
}

/*
 * Hash and partition lock of a tag.
 */
pg_attribute_hot LWLock *
pager_partition(const PagerTag *tag, uint32 *hash)
{
	*hash = get_hash_value(pager_table, tag);
	return &pager_shared->partition_locks[*hash % PAGER_PARTITIONS].lock;
}

/*
 * Take a frame out of the page table; true if it is now ours alone and
 * untagged.
 */
static bool
pager_detach(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;
	bool		ok = false;

	pager_frame_lock(f);
	if (!(f->flags & FRAME_TAG_VALID))
	{
		pager_frame_unlock(f);
		return true;
	}
	tag.fileslot = f->fileslot;
	tag.pageno = f->pageno;
	pager_frame_unlock(f);

	part = pager_partition(&tag, &hash);
	LWLockAcquire(part, LW_EXCLUSIVE);
	if (FRAME_REFCOUNT(pager_frame_lock(f)) == 1 &&
		!(f->flags & (FRAME_DIRTY | FRAME_CKPT)) &&
		(f->flags & FRAME_TAG_VALID) &&
		f->fileslot == tag.fileslot && f->pageno == tag.pageno)
	{
		hash_search_with_hash_value(pager_table, &tag, hash, HASH_REMOVE, NULL);
		f->flags = 0;
		f->fileslot = -1;
		f->pageno = ART_INVALID_PAGENO;
		ok = true;
	}
	else if (!(f->flags & FRAME_TAG_VALID))
		ok = true;
	pager_frame_unlock(f);
	LWLockRelease(part);
	return ok;
}

/*
 * Write a dirty victim back, copy-on-write.  false if its content lock is
 * busy (pick another victim then).
 */
static bool
pager_evict_write(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];
	PagerFileSlot *fs;
	ArtPageNo	pageno;
	uint32		phys = 0;
	uint32		stamp;
	char	   *data = pager_frame_data(frame);

	int			slot;

	pager_frame_lock(f);
	slot = f->fileslot;
	pager_frame_unlock(f);
	if (slot < 0)
		return true;
	if (!pager_gate_enter(slot, true))
		return false;
	if (!LWLockConditionalAcquire(&f->content, LW_SHARED))
	{
		pager_gate_exit(slot);
		return false;
	}
	pager_frame_lock(f);
	if (!(f->flags & FRAME_DIRTY) || !(f->flags & FRAME_TAG_VALID) ||
		f->fileslot != slot)
	{
		pager_frame_unlock(f);
		LWLockRelease(&f->content);
		pager_gate_exit(slot);
		return true;
	}
	f->flags &= ~FRAME_DIRTY;
	fs = &pager_shared->files[slot];
	pageno = f->pageno;
	pager_frame_unlock(f);
	pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);

	PG_TRY();
	{
		IoPage		page;

		phys = pager_phys_alloc(fs, &stamp);
		pager_page_seal(fs, data, pageno, PAGER_KIND_DATA, stamp);
		page.offset = (uint64) phys * ART_PAGE_SIZE;
		page.buf = data;
		io_write_pages(fs->path, &page, 1);
	}
	PG_CATCH();
	{
		pager_frame_lock(f);
		f->flags |= FRAME_DIRTY;
		pager_frame_unlock(f);
		pg_atomic_fetch_add_u32(&pager_shared->ndirty, 1);
		if (phys != 0)
			pager_phys_release(fs, phys);
		PG_RE_THROW();
	}
	PG_END_TRY();

	pager_map_set(fs, pageno, phys, stamp);
	LWLockRelease(&f->content);
	pager_gate_exit(slot);
	pg_atomic_fetch_add_u64(&pager_shared->counters.eviction_writes, 1);
	return true;
}

/*
 * One pass of the clock sweep: a frame pinned and untagged, or -1.  Sets
 * *busy if a candidate was passed over only for a moment (its lock or its
 * file's gate taken, pinned meanwhile, or in a checkpoint's set).  With
 * write_set, a victim in a checkpoint's set is written out for the
 * checkpoint (pager_ckpt_evict) as a dirty one is written back, after
 * the first round, as dirty ones are; those who would rather do
 * something else than write one page of a set (pager_victim_try) pass
 * over them.
 */
static int
pager_sweep(bool *busy, bool write_set)
{
	int			n = pager_shared->nframes;
	int			limit = n * (PAGER_MAX_USAGE + 3);
	bool		asked = false;

	for (int scanned = 0; scanned < limit; scanned++)
	{
		int			i = pg_atomic_fetch_add_u32(&pager_shared->clock_hand, 1) % n;
		PagerFrame *f = &pager_shared->frames[i];
		uint16		flags;
		uint32		state;

		state = pager_frame_lock(f);
		if (FRAME_REFCOUNT(state) > 0)
		{
			flags = f->flags;
			pager_frame_unlock(f);
			if (flags & FRAME_ORPHAN)
				pager_adopt_orphan(i);
			continue;
		}
		if (FRAME_USAGE(state) > 0)
		{
			pg_atomic_fetch_sub_u32(&f->state, FRAME_USAGE_ONE);
			pager_frame_unlock(f);
			continue;
		}
		if ((f->flags & FRAME_CKPT) &&
			(!write_set || scanned < n ||
			 (f->flags & (FRAME_CKPT_CLAIM | FRAME_CKPT_STAGED)) ||
			 !(f->flags & FRAME_CKPT_PLACED)))
		{
			pager_frame_unlock(f);
			*busy = true;
			continue;
		}
		if ((f->flags & FRAME_DIRTY) && scanned < n)
		{
			pager_frame_unlock(f);
			if (!asked)
			{
				pager_request_checkpoint();
				asked = true;
			}
			continue;
		}
		pg_atomic_fetch_add_u32(&f->state, FRAME_REFCOUNT_ONE);
		flags = f->flags;
		pager_frame_unlock(f);
		pager_local_pin_add(i);

		if ((flags & FRAME_CKPT) ? !pager_ckpt_evict(i) :
			((flags & FRAME_DIRTY) && !pager_evict_write(i)))
		{
			pager_unpin(i);
			*busy = true;
			continue;
		}
		if (pager_detach(i))
		{
			if (flags & FRAME_TAG_VALID)
				pg_atomic_fetch_add_u64(&pager_shared->counters.evictions, 1);
			return i;
		}
		pager_unpin(i);
		*busy = true;
	}
	return -1;
}

/*
 * Find a frame to reuse; returns it pinned, untagged.  When the only
 * candidates are busy for a moment (a checkpoint holds their file's
 * gate, say), wait a little and sweep again; ERROR only when every frame
 * stays pinned.
 */
int
pager_victim(void)
{
	local_pin_reserve();
	for (int round = 0; round < 10000; round++)
	{
		bool		busy = false;
		int			frame = pager_sweep(&busy, true);

		if (frame >= 0)
			return frame;
		if (!busy)
			break;
		if (io_in_worker())
			io_worker_serve(1);
		else
		{
			pg_usleep(1000);
			CHECK_FOR_INTERRUPTS();
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("no unpinned artrie buffer is available"),
			 errhint("Raise artrie.buffer_pool_size.")));
	return -1;					/* keep compiler quiet */
}

/*
 * One pass of the clock sweep for a frame to reuse, pinned and untagged,
 * without waiting and without writing out a frame of a checkpoint's set:
 * -1 if none is free now (frames of a checkpoint's set or pinned by
 * others).  For those who have something else to do then.
 */
int
pager_victim_try(void)
{
	bool		busy = false;

	local_pin_reserve();
	return pager_sweep(&busy, false);
}

/*
 * A frame to use as an I/O buffer for meta and map pages: pinned, in no
 * page table entry.
 */
int
pager_scratch_get(void)
{
	return pager_victim();
}

/*
 * Give a scratch frame back.
 */
void
pager_scratch_put(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	local_pin_remove(frame);
	pager_frame_lock(f);
	pager_frame_set_usage(f, 0);
	pg_atomic_fetch_sub_u32(&f->state, FRAME_REFCOUNT_ONE);
	pager_frame_unlock(f);
}

/*
 * Wait until nobody is reading frame's page; false if the read failed.
 */
static bool
pager_wait_read(PagerFrame *f)
{
	uint16		flags;

	for (;;)
	{
		pager_frame_lock(f);
		flags = f->flags;
		pager_frame_unlock(f);
		if (!(flags & FRAME_READING))
			break;
		io_wait(&f->io_cv, 10);
	}
	ConditionVariableCancelSleep();
	return (flags & FRAME_VALID) != 0;
}

/*
 * Look a page up in the pool and pin its frame; -1 if absent.
 */
static pg_attribute_hot int
pager_lookup_pin(const PagerTag *tag, uint32 hash, LWLock *part)
{
	PagerLookup *ent;
	int			frame = -1;

	local_pin_reserve();
	LWLockAcquire(part, LW_SHARED);
	ent = hash_search_with_hash_value(pager_table, tag, hash, HASH_FIND, NULL);
	if (ent)
	{
		PagerFrame *f = &pager_shared->frames[ent->frame];

		frame = ent->frame;
		pager_frame_pin(f);
		pager_local_pin_add(frame);
	}
	LWLockRelease(part);
	return frame;
}

/*
 * Pin page pageno of a file slot if the pool holds it, valid; -1 if it
 * does not (nothing is read).
 */
int
pager_pin_cached(int slot, ArtPageNo pageno)
{
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;
	int			frame;

	memset(&tag, 0, sizeof(tag));
	tag.fileslot = slot;
	tag.pageno = pageno;
	part = pager_partition(&tag, &hash);
	frame = pager_lookup_pin(&tag, hash, part);
	if (frame >= 0)
	{
		PagerFrame *f = &pager_shared->frames[frame];
		bool		valid;

		pager_frame_lock(f);
		valid = (f->flags & FRAME_VALID) && !(f->flags & FRAME_READING);
		pager_frame_unlock(f);
		if (!valid)
		{
			pager_unpin(frame);
			frame = -1;
		}
	}
	return frame;
}

/* A read in progress, for its cleanup if it fails. */
typedef struct PagerRead
{
	int			frame;
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;
} PagerRead;

/*
 * A read failed or was cancelled (by an ERROR or FATAL): take the frame
 * out of the table and wake waiters.  A frame the I/O still reads into
 * stays pinned as an orphan until the read ends.
 */
static void
pager_abandon_read(int code, Datum arg)
{
	PagerRead  *r = (PagerRead *) DatumGetPointer(arg);
	PagerFrame *f = &pager_shared->frames[r->frame];

	LWLockAcquire(r->part, LW_EXCLUSIVE);
	hash_search_with_hash_value(pager_table, &r->tag, r->hash, HASH_REMOVE, NULL);
	pager_frame_lock(f);
	f->flags = 0;
	f->fileslot = -1;
	f->pageno = ART_INVALID_PAGENO;
	pager_frame_set_usage(f, 0);
	pager_frame_unlock(f);
	LWLockRelease(r->part);
	ConditionVariableBroadcast(&f->io_cv);
	local_pin_remove(r->frame);
	pager_unpin_shared(r->frame, 1, 0, 0);
}

/*
 * Turn the error of a failed read of a data page (being handled, ctx the
 * memory context the read was called in) into one that names the index,
 * its file and the page, with the REINDEX hint: an end of file is a
 * corrupted index, any other error keeps its code.
 */
static void
pager_read_failed(PagerFileSlot *fs, ArtPageNo pageno, MemoryContext ctx)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(ctx);
	edata = CopyErrorData();
	FlushErrorState();
	if (edata->sqlerrcode == ERRCODE_DATA_CORRUPTED)
		pager_corrupt(fs, pageno, edata->message);
	ereport(ERROR,
			(errcode(edata->sqlerrcode),
			 errmsg("could not read page %u of index \"%s\" from file \"%s\"",
					pageno, fs->relname, fs->path),
			 errdetail("%s", edata->message),
			 errhint("REINDEX the index.")));
}

/*
 * Read a page into a frame that carries its tag, checking it.
 */
static void
pager_read_into(PagerFileSlot *fs, int frame, ArtPageNo pageno)
{
	MemoryContext ctx = CurrentMemoryContext;
	char	   *data = pager_frame_data(frame);
	uint32		stamp;
	uint32		phys = pager_map_get(fs, pageno, &stamp);
	IoPage		page;
	const char *problem;
	uint64		carried;

	if (phys == PAGER_PHYS_FREE)
		pager_corrupt(fs, pageno, "the page is not allocated");
	if (phys == PAGER_PHYS_NONE)
		pager_corrupt(fs, pageno, "the page was never written");
	if (phys < PAGER_FIRST_DATA_PHYS || phys >= fs->nphys)
		pager_corrupt(fs, pageno, psprintf("the page map points past the file (physical page %u)", phys));
	page.offset = (uint64) phys * ART_PAGE_SIZE;
	page.buf = data;
	PG_TRY();
	{
		io_read_pages(fs->path, &page, 1);
	}
	PG_CATCH();
	{
		pager_read_failed(fs, pageno, ctx);
	}
	PG_END_TRY();
	problem = pager_page_check(fs, data, pageno, PAGER_KIND_DATA);
	if (problem)
		pager_corrupt(fs, pageno, problem);
	carried = ((const PagerPageHeader *) data)->ckpt_no;
	if (carried != stamp)
		pager_corrupt(fs, pageno,
					  psprintf("stale copy of the page at physical page %u: it carries write stamp " UINT64_FORMAT ", the page map expects %u (a lost write)",
							   phys, carried, stamp));
}

/*
 * This process's guesses of where pages are: frame + 1 (0: none) by a
 * cheap hash of (file slot, page).  A guess is only a hint: the frame is
 * pinned, then checked to hold that page, valid, and unpinned at once if
 * not; a frame changes its tag only under its header lock and only when
 * nobody else has it pinned, so a pin taken first keeps the tag checked.  It spares the page table's partition
 * lock and hash lookup for the pages a backend keeps coming back to.
 */
#define PAGER_HINTS			4096

static int	local_hints[PAGER_HINTS];

/* The hint slot for a page. */
static inline int
pager_hint_index(int slot, ArtPageNo pageno)
{
	return (int) (((uint32) slot * 0x9E3779B1u ^ pageno * 0x85EBCA77u) >> 20) %
		PAGER_HINTS;
}

/*
 * Pin the frame a hint names if it holds the page, valid; -1 otherwise.
 */
static int
pager_pin_hinted(int slot, ArtPageNo pageno, int hint)
{
	int			frame = local_hints[hint] - 1;
	PagerFrame *f;
	uint16		flags;
	bool		ok;

	if (frame < 0)
		return -1;
	f = &pager_shared->frames[frame];
	local_pin_reserve();
	pager_frame_pin(f);
	flags = f->flags;
	pg_read_barrier();
	ok = (flags & (FRAME_TAG_VALID | FRAME_VALID | FRAME_READING)) ==
		(FRAME_TAG_VALID | FRAME_VALID) &&
		f->fileslot == slot && f->pageno == pageno;
	if (!ok)
	{
		pg_atomic_fetch_sub_u32(&f->state, FRAME_REFCOUNT_ONE);
		return -1;
	}
	pager_local_pin_add(frame);
	pager_count_hit();
	return frame;
}

/*
 * Pin page pageno of a file, reading it if it is not in the pool.
 */
pg_attribute_hot int
pager_get_page(PagerFileSlot *fs, int slot, ArtPageNo pageno)
{
	int			hint = pager_hint_index(slot, pageno);
	int			frame = pager_pin_hinted(slot, pageno, hint);

	if (frame < 0)
	{
		frame = pager_get_page_mapped(fs, slot, pageno);
		local_hints[hint] = frame + 1;
	}
	return frame;
}

/*
 * Pin page pageno of a file through the page table, reading it if it is
 * not in the pool.
 */
static pg_attribute_hot int
pager_get_page_mapped(PagerFileSlot *fs, int slot, ArtPageNo pageno)
{
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;

	memset(&tag, 0, sizeof(tag));
	tag.fileslot = slot;
	tag.pageno = pageno;
	part = pager_partition(&tag, &hash);

	for (;;)
	{
		int			frame = pager_lookup_pin(&tag, hash, part);
		int			victim;
		PagerLookup *ent;
		bool		found;
		PagerFrame *f;
		PagerRead	read;

		if (frame >= 0)
		{
			if (pager_wait_read(&pager_shared->frames[frame]))
			{
				pager_count_hit();
				return frame;
			}
			pager_unpin(frame);
			continue;
		}

		victim = pager_victim();
		LWLockAcquire(part, LW_EXCLUSIVE);
		ent = hash_search_with_hash_value(pager_table, &tag, hash, HASH_ENTER, &found);
		if (found)
		{
			LWLockRelease(part);
			pager_scratch_put(victim);
			continue;
		}
		ent->frame = victim;
		f = &pager_shared->frames[victim];
		pager_frame_lock(f);
		f->fileslot = slot;
		f->pageno = pageno;
		f->flags = FRAME_TAG_VALID | FRAME_READING;
		pager_frame_set_usage(f, 1);
		pager_frame_unlock(f);
		LWLockRelease(part);

		/* a fresh pool's frame: faulted in with the next ones, not in the read */
		pager_frame_populate(victim);
		read.frame = victim;
		read.tag = tag;
		read.hash = hash;
		read.part = part;
		PG_ENSURE_ERROR_CLEANUP(pager_abandon_read, PointerGetDatum(&read));
		{
			pager_read_into(fs, victim, pageno);
		}
		PG_END_ENSURE_ERROR_CLEANUP(pager_abandon_read, PointerGetDatum(&read));

		pager_frame_lock(f);
		f->flags = (f->flags & ~FRAME_READING) | FRAME_VALID;
		pager_frame_unlock(f);
		ConditionVariableBroadcast(&f->io_cv);
		pg_atomic_fetch_add_u64(&pager_shared->counters.misses, 1);
		return victim;
	}
}

/*
 * Take every frame of a file slot out of the pool (the file is going
 * away; nobody may be using it).
 */
void
pager_forget_frames(int slot)
{
	for (int i = 0; i < pager_shared->nframes; i++)
	{
		PagerFrame *f = &pager_shared->frames[i];
		PagerTag	tag;
		uint32		hash;
		LWLock	   *part;
		bool		dirty = false;

		pager_frame_lock(f);
		if (!(f->flags & FRAME_TAG_VALID) || f->fileslot != slot)
		{
			pager_frame_unlock(f);
			continue;
		}
		tag.fileslot = slot;
		tag.pageno = f->pageno;
		pager_frame_unlock(f);

		part = pager_partition(&tag, &hash);
		LWLockAcquire(part, LW_EXCLUSIVE);
		pager_frame_lock(f);
		if ((f->flags & FRAME_TAG_VALID) && f->fileslot == slot &&
			f->pageno == tag.pageno)
		{
			hash_search_with_hash_value(pager_table, &tag, hash, HASH_REMOVE, NULL);
			dirty = (f->flags & FRAME_DIRTY) != 0;
			f->flags = 0;
			f->fileslot = -1;
			f->pageno = ART_INVALID_PAGENO;
			pager_frame_set_usage(f, 0);
		}
		pager_frame_unlock(f);
		LWLockRelease(part);
		if (dirty)
			pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	}
}

/*
 * The dirty frames of a file slot, whose logical pages all lie below
 * nlogical, for a checkpoint that holds the file's gate exclusive (so
 * that none turns dirty meanwhile): their frames and pages in the arrays
 * returned (palloc'd), their number in *n.  A file of few pages against
 * the pool has each of its pages looked up in the page table (a tagged
 * frame is always the table's entry for its tag); a larger one has every
 * frame header of the pool looked at, which for a pool of 4 GB is half a
 * million of them.
 */
int *
pager_dirty_frames(int slot, uint32 nlogical, ArtPageNo **pagenos, int *n)
{
	int			nframes = pager_shared->nframes;
	bool		lookup = (uint64) nlogical * PAGER_LOOKUP_SHARE < (uint64) nframes;
	int			cap = lookup ? Max((int) nlogical, 1) : nframes;
	int		   *frames = palloc(sizeof(int) * cap);

	Assert(LWLockHeldByMeInMode(&pager_shared->files[slot].gate, LW_EXCLUSIVE));
	*pagenos = palloc(sizeof(ArtPageNo) * cap);
	*n = 0;
	for (int i = 0; i < (lookup ? (int) nlogical : nframes); i++)
	{
		PagerFrame *f;
		int			frame = i;

		if (lookup)
		{
			PagerTag	tag;
			uint32		hash;
			LWLock	   *part;
			PagerLookup *ent;

			memset(&tag, 0, sizeof(tag));
			tag.fileslot = slot;
			tag.pageno = (ArtPageNo) i;
			part = pager_partition(&tag, &hash);
			LWLockAcquire(part, LW_SHARED);
			ent = hash_search_with_hash_value(pager_table, &tag, hash, HASH_FIND, NULL);
			frame = ent ? ent->frame : -1;
			LWLockRelease(part);
			if (frame < 0)
				continue;
		}
		f = &pager_shared->frames[frame];
		pager_frame_lock(f);
		if ((f->flags & FRAME_TAG_VALID) && (f->flags & FRAME_DIRTY) &&
			f->fileslot == slot && (!lookup || f->pageno == (ArtPageNo) i))
		{
			frames[*n] = frame;
			(*pagenos)[*n] = f->pageno;
			(*n)++;
		}
		pager_frame_unlock(f);
	}
	return frames;
}

/*
 * Does this process pin any frame of a file slot?
 */
pg_attribute_hot bool
pager_slot_pinned_here(int slot)
{
	for (int i = 0; i < local_npins; i++)
		if (pager_shared->frames[local_pins[i].frame].fileslot == slot)
			return true;
	return false;
}

/*
 * Is any frame of a file slot pinned?
 */
bool
pager_slot_pinned(int slot)
{
	bool		pinned = false;

	for (int i = 0; i < pager_shared->nframes && !pinned; i++)
	{
		PagerFrame *f = &pager_shared->frames[i];

		pinned = FRAME_REFCOUNT(pager_frame_lock(f)) > 0 &&
			(f->flags & FRAME_TAG_VALID) && f->fileslot == slot;
		pager_frame_unlock(f);
	}
	return pinned;
}

/*
 * The pool's hits so far: every process's line, and the processes'
 * without one.
 */
static uint64
pool_hits(void)
{
	uint64		hits = pg_atomic_read_u64(&pager_shared->counters.hits);

	for (int i = 0; i < pager_shared->nholds; i++)
		hits += pg_atomic_read_u64(&pager_shared->procs[i].d.hits);
	return hits;
}

/*
 * Statistics of the pool.
 */
void
pager_pool_stats(PagerPoolStats *stats)
{
	PagerCounters *c = &pager_shared->counters;
	uint32		files = 0;

	for (int i = 0; i < pager_shared->max_files; i++)
		if (pager_shared->files[i].in_use)
			files++;
	stats->frames = pager_shared->nframes;
	stats->dirty = pg_atomic_read_u32(&pager_shared->ndirty);
	stats->files = files;
	stats->hits = pool_hits();
	stats->misses = pg_atomic_read_u64(&c->misses);
	stats->evictions = pg_atomic_read_u64(&c->evictions);
	stats->eviction_writes = pg_atomic_read_u64(&c->eviction_writes);
	stats->checkpoints = pg_atomic_read_u64(&c->checkpoints);
	stats->checkpoint_pages = pg_atomic_read_u64(&c->checkpoint_pages);
	stats->recent_hits = pg_atomic_read_u64(&c->recent_hits);
	stats->recent_misses = pg_atomic_read_u64(&c->recent_misses);
	stats->too_small = pg_atomic_read_u32(&c->too_small) != 0;
}

/*
 * The pool's watch, from the io worker's loop: at the end of every
 * interval of PAGER_WATCH_INTERVAL_S seconds, publish its hits and misses,
 * and judge the pool too small for the pages in use if at least
 * PAGER_WATCH_MIN_MISSES requests missed, at least PAGER_WATCH_MISS_PERCENT
 * percent of them, and the clock replaced as many pages as the pool holds:
 * then say so in the log, at most once every PAGER_WATCH_LOG_S seconds, as
 * the checkpointer warns of checkpoints too frequent.  A pool filling up
 * after a start misses as much but evicts nothing.
 */
void
pager_pool_watch(void)
{
	static TimestampTz start = 0;
	static TimestampTz last_log = 0;
	static uint64 hits0;
	static uint64 misses0;
	static uint64 evictions0;
	PagerCounters *c = &pager_shared->counters;
	TimestampTz now = GetCurrentTimestamp();
	uint64		hits = pool_hits();
	uint64		misses = pg_atomic_read_u64(&c->misses);
	uint64		evictions = pg_atomic_read_u64(&c->evictions);
	uint64		dh;
	uint64		dm;
	bool		too_small;

	if (start != 0 &&
		!TimestampDifferenceExceeds(start, now, PAGER_WATCH_INTERVAL_S * 1000))
		return;
	if (start != 0)
	{
		dh = hits - hits0;
		dm = misses - misses0;
		too_small = dm >= PAGER_WATCH_MIN_MISSES &&
			dm * 100 >= (dh + dm) * PAGER_WATCH_MISS_PERCENT &&
			evictions - evictions0 >= (uint64) pager_shared->nframes;
		pg_atomic_write_u64(&c->recent_hits, dh);
		pg_atomic_write_u64(&c->recent_misses, dm);
		pg_atomic_write_u32(&c->too_small, too_small ? 1 : 0);
		if (too_small &&
			(last_log == 0 ||
			 TimestampDifferenceExceeds(last_log, now, PAGER_WATCH_LOG_S * 1000)))
		{
			ereport(LOG,
					(errmsg("artrie's buffer pool is too small for the pages in use: %d%% of page requests missed over the last %d seconds (" UINT64_FORMAT " misses), and the pool was replaced %.1f times",
							(int) (dm * 100 / (dh + dm)), PAGER_WATCH_INTERVAL_S, dm,
							(double) (evictions - evictions0) / pager_shared->nframes),
					 errhint("Consider increasing the configuration parameter \"artrie.buffer_pool_size\" (now %d kB).",
							 pager_shared->nframes * (ART_PAGE_SIZE / 1024))));
			last_log = now;
		}
	}
	start = now;
	hits0 = hits;
	misses0 = misses;
	evictions0 = evictions;
}

/*
 * Random probes or streaming reads from now on; the previous setting.
 */
pg_attribute_hot bool
pager_set_random_reads(bool random)
{
	return io_set_random_reads(random);
}

/*
 * The I/O layer's counters.
 */
void
pager_io_stats(IoProcKind kind, IoStatsSnapshot *snap)
{
	io_get_stats(kind, snap);
}

/*
 * The I/O backend in use.
 */
const char *
pager_io_backend(void)
{
	return io_backend_name(io_backend_in_use());
}

/*
 * How the io worker reaches buffers.
 */
const char *
pager_io_buffer_mode(void)
{
	return io_buffer_mode();
}

/*
 * Why the I/O layer fell back, if it did.
 */
const char *
pager_io_fallback_reason(void)
{
	return io_fallback_reason();
}
