/*-------------------------------------------------------------------------
 *
 * pager.c
 *	  The buffer pool: shared memory, page table, pins, content locks,
 *	  clock-sweep eviction, and the page store the trie runs on.
 *
 * A frame is found through a partitioned shared hash keyed by (file slot,
 * logical page).  Its descriptor's spinlock protects the tag, flags, pin
 * count and usage count; its LWLock protects the page's contents, in the
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
 * victim; a checkpoint holds the gate exclusive while it writes the
 * file's dirty pages and snapshots its page map.  Under the gate no page
 * of the file can change, so the checkpoint needs no content locks.
 * LWLocks let new shared holders past a waiting exclusive one, so under
 * a steady stream of writers the gate might never be free: a checkpoint
 * that waits for it sets the slot's gate_closing, and a process about to
 * enter the gate while it holds no other waits (cancellably) until the
 * checkpoint has it, so the holders drain.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_internal.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/wait_event.h"

int			pager_pool_kb = 128 * 1024;
int			pager_max_files = 1024;
int			pager_checkpoint_timeout = 300;
int			pager_checkpoint_dirty_percent = 50;

PagerShared *pager_shared = NULL;
HTAB	   *pager_table = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Room for the dynamic shared memory area's control and first segment. */
#define PAGER_DSA_PLACE		((Size) 1024 * 1024)

/* This process's pins. */
typedef struct LocalPin
{
	int			frame;
	int			count;
} LocalPin;

static LocalPin *local_pins = NULL;
static int	local_npins = 0;
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
static dsa_area *my_dsa = NULL;

static void pager_shmem_request(void);
static void pager_shmem_startup(void);
static int	pager_get_page_mapped(PagerFileSlot *fs, int slot, ArtPageNo pageno);

/*
 * Frames in the pool.
 */
static int
pager_nframes(void)
{
	return Max(pager_pool_kb / (ART_PAGE_SIZE / 1024), 16);
}

/*
 * Shared memory of the pager proper (without the I/O layer's).
 */
static Size
pager_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(PagerShared));
	int			n = pager_nframes();

	size = add_size(size, MAXALIGN(mul_size(n, sizeof(PagerFrame))));
	size = add_size(size, add_size(mul_size(n, ART_PAGE_SIZE), 4096));
	size = add_size(size, MAXALIGN(mul_size(pager_max_files, sizeof(PagerFileSlot))));
	size = add_size(size, PAGER_DSA_PLACE);
	size = add_size(size, pager_hold_shmem_size());
	return size;
}

/*
 * From _PG_init: GUCs, shared memory hooks, the io worker.
 */
void
pager_init(void)
{
	DefineCustomIntVariable("artrie.buffer_pool_size",
							"Size of artrie's shared buffer pool.",
							NULL,
							&pager_pool_kb,
							128 * 1024, 128, INT_MAX / 2,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.max_files",
							"Most artrie index files open at once.",
							NULL,
							&pager_max_files,
							1024, 16, 1024 * 1024,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.checkpoint_timeout",
							"Time between artrie's automatic checkpoints.",
							NULL,
							&pager_checkpoint_timeout,
							300, 1, 86400,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.checkpoint_dirty_percent",
							"Share of the buffer pool, in percent, whose being dirty starts a checkpoint.",
							NULL,
							&pager_checkpoint_dirty_percent,
							50, 1, 100,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	io_define_gucs();
	MarkGUCPrefixReserved("artrie");

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = pager_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = pager_shmem_startup;

	pager_register_worker();
}

/*
 * shmem_request_hook: ask for the pool, the table, the I/O layer, locks.
 */
static void
pager_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(pager_shmem_size());
	RequestAddinShmemSpace(hash_estimate_size(pager_nframes(), sizeof(PagerLookup)));
	RequestAddinShmemSpace(io_shmem_size());
	RequestNamedLWLockTranche("artrie_page_table", PAGER_PARTITIONS);
	RequestNamedLWLockTranche("artrie_files", 1);
}

/*
 * shmem_startup_hook: set up (or attach to) the pager's shared memory.
 */
static void
pager_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;
	int			n = pager_nframes();

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pager_shared = ShmemInitStruct("artrie pager", pager_shmem_size(), &found);
	if (!found)
	{
		char	   *p = (char *) pager_shared;

		memset(pager_shared, 0, sizeof(PagerShared));
		p += MAXALIGN(sizeof(PagerShared));
		pager_shared->frames = (PagerFrame *) p;
		p += MAXALIGN(mul_size(n, sizeof(PagerFrame)));
		pager_shared->data = (char *) TYPEALIGN(4096, p);
		p += mul_size(n, ART_PAGE_SIZE) + 4096;
		pager_shared->files = (PagerFileSlot *) p;
		p += MAXALIGN(mul_size(pager_max_files, sizeof(PagerFileSlot)));
		pager_shared->dsa_place = p;
		p += PAGER_DSA_PLACE;
		pager_hold_shmem_init(p);

		pager_shared->nframes = n;
		pager_shared->max_files = pager_max_files;
		pager_shared->content_tranche = LWLockNewTrancheId();
		pager_shared->file_tranche = LWLockNewTrancheId();
		pager_shared->dsa_tranche = LWLockNewTrancheId();
		pg_atomic_init_u32(&pager_shared->clock_hand, 0);
		pg_atomic_init_u32(&pager_shared->ndirty, 0);
		pg_atomic_init_u32(&pager_shared->ckpt_requested, 0);
		pg_atomic_init_u64(&pager_shared->counters.hits, 0);
		pg_atomic_init_u64(&pager_shared->counters.misses, 0);
		pg_atomic_init_u64(&pager_shared->counters.evictions, 0);
		pg_atomic_init_u64(&pager_shared->counters.eviction_writes, 0);
		pg_atomic_init_u64(&pager_shared->counters.checkpoints, 0);
		pg_atomic_init_u64(&pager_shared->counters.checkpoint_pages, 0);
		pager_shared->files_lock = &(GetNamedLWLockTranche("artrie_files"))->lock;
		ConditionVariableInit(&pager_shared->ready_cv);
		pager_shared->partition_locks = GetNamedLWLockTranche("artrie_page_table");

		for (int i = 0; i < n; i++)
		{
			PagerFrame *f = &pager_shared->frames[i];

			SpinLockInit(&f->hdr);
			f->flags = 0;
			f->usage = 0;
			f->refcount = 0;
			f->fileslot = -1;
			f->pageno = ART_INVALID_PAGENO;
			LWLockInitialize(&f->content, pager_shared->content_tranche);
			ConditionVariableInit(&f->io_cv);
		}
		memset(pager_shared->files, 0, mul_size(pager_max_files, sizeof(PagerFileSlot)));
		for (int i = 0; i < pager_max_files; i++)
		{
			LWLockInitialize(&pager_shared->files[i].ckpt_lock, pager_shared->file_tranche);
			LWLockInitialize(&pager_shared->files[i].lock, pager_shared->file_tranche);
			LWLockInitialize(&pager_shared->files[i].gate, pager_shared->file_tranche);
			pg_atomic_init_u32(&pager_shared->files[i].gate_closing, 0);
			ConditionVariableInit(&pager_shared->files[i].gate_cv);
		}
		{
			dsa_area   *area = dsa_create_in_place(pager_shared->dsa_place,
												   PAGER_DSA_PLACE,
												   pager_shared->dsa_tranche,
												   NULL);

			dsa_detach(area);
		}
	}

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(PagerTag);
	info.entrysize = sizeof(PagerLookup);
	info.num_partitions = PAGER_PARTITIONS;
	pager_table = ShmemInitHash("artrie page table", n, n, &info,
								HASH_ELEM | HASH_BLOBS | HASH_PARTITION);

	io_shmem_init();
	if (!found)
		io_set_buffer_region(pager_shared->data, mul_size(n, ART_PAGE_SIZE));
	LWLockRelease(AddinShmemInitLock);

	LWLockRegisterTranche(pager_shared->content_tranche, "artrie_buffer_content");
	LWLockRegisterTranche(pager_shared->file_tranche, "artrie_file");
	LWLockRegisterTranche(pager_shared->dsa_tranche, "artrie_page_map");
}

/*
 * This process's attachment to the page maps' dynamic shared memory, for
 * the whole session (no resource owner: mappings must outlive queries).
 */
dsa_area *
pager_dsa(void)
{
	if (my_dsa == NULL)
	{
		ResourceOwner save = CurrentResourceOwner;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		CurrentResourceOwner = NULL;
		my_dsa = dsa_attach_in_place(pager_shared->dsa_place, NULL);
		dsa_pin_mapping(my_dsa);
		CurrentResourceOwner = save;
		MemoryContextSwitchTo(old);
	}
	return my_dsa;
}

/*
 * A frame's page.
 */
char *
pager_frame_data(int frame)
{
	return pager_shared->data + (Size) frame * ART_PAGE_SIZE;
}

/*
 * Drop count pins of a frame that this process no longer counts; if an
 * I/O whose waiter left (io.c) still uses the frame, leave one pin to the
 * I/O and mark the frame an orphan, for the clock sweep to take back.
 */
static void
pager_unpin_shared(int frame, int count)
{
	PagerFrame *f = &pager_shared->frames[frame];
	bool		busy = io_buffer_busy(pager_frame_data(frame));

	SpinLockAcquire(&f->hdr);
	if (busy && !(f->flags & FRAME_ORPHAN))
	{
		f->flags |= FRAME_ORPHAN;
		count--;
	}
	f->refcount -= count;
	SpinLockRelease(&f->hdr);
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
	SpinLockAcquire(&f->hdr);
	if (f->flags & FRAME_ORPHAN)
	{
		f->flags &= ~FRAME_ORPHAN;
		f->refcount--;
	}
	SpinLockRelease(&f->hdr);
}

/*
 * Drop every pin this process holds (their locks are gone already).
 */
void
pager_release_all(void)
{
	for (int i = 0; i < local_npins; i++)
		pager_unpin_shared(local_pins[i].frame, local_pins[i].count);
	local_npins = 0;
	local_ngates = 0;
}

/*
 * Abort of a (sub)transaction: the trie holds no pin across calls, so
 * every pin this process holds belongs to the operation that failed.
 */
static void
pager_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		pager_hold_release_all();
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		pager_release_all();
	else if ((event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
			  event == XACT_EVENT_PREPARE) && local_npins > 0)
	{
		elog(WARNING, "artrie: %d buffer pins leaked", local_npins);
		pager_release_all();
	}
}

/*
 * Abort of a subtransaction.
 */
static void
pager_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		pager_release_all();
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
 * First use in this process: callbacks that drop pins.
 */
void
pager_backend_init(void)
{
	if (backend_ready)
		return;
	if (pager_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie must be loaded via shared_preload_libraries")));
	local_maxpins = 64;
	local_pins = MemoryContextAlloc(TopMemoryContext, sizeof(LocalPin) * local_maxpins);
	RegisterXactCallback(pager_xact_callback, NULL);
	RegisterSubXactCallback(pager_subxact_callback, NULL);
	before_shmem_exit(pager_proc_exit, 0);
	backend_ready = true;
}

/*
 * The end of the last WAL record inserted so far (in recovery: replayed).
 * GetXLogInsertRecPtr() gives where the next record will start, which
 * lies past a page header when the last record ended on a page boundary;
 * XLogFlush() to such a position fails.
 */
XLogRecPtr
pager_wal_end(void)
{
	XLogRecPtr	ptr;

	if (RecoveryInProgress())
		return GetXLogReplayRecPtr(NULL);
	ptr = GetXLogInsertRecPtr();
	if (XLogSegmentOffset(ptr, wal_segment_size) == SizeOfXLogLongPHD)
		ptr -= SizeOfXLogLongPHD;
	else if (ptr % XLOG_BLCKSZ == SizeOfXLogShortPHD)
		ptr -= SizeOfXLogShortPHD;
	return ptr;
}

/*
 * Where a checkpoint that starts now begins: every WAL record that starts
 * before it describes a change already made to the pages (changes are
 * logged after they are made), so redo of a file it leaves may start
 * there.  In recovery, the end of the last record replayed.
 */
XLogRecPtr
pager_redo_now(void)
{
	if (RecoveryInProgress())
		return GetXLogReplayRecPtr(NULL);
	return GetXLogInsertRecPtr();
}

/*
 * Set up this backend, and wait until recovery has brought artrie's files
 * up to date: only the startup process (which does it) and the io worker
 * may touch a file before.
 */
void
pager_backend_ready(void)
{
	pager_backend_init();
	if (io_in_worker() || AmStartupProcess() || pager_shared->ready)
		return;
	ConditionVariablePrepareToSleep(&pager_shared->ready_cv);
	while (!pager_shared->ready)
		ConditionVariableSleep(&pager_shared->ready_cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
}

/*
 * Files are up to date with the WAL replayed so far: backends may use
 * them, and checkpoints may run once recovery has replayed past barrier.
 */
void
pager_set_ready(XLogRecPtr barrier)
{
	pager_shared->ckpt_barrier = barrier;
	pager_shared->ready = true;
	ConditionVariableBroadcast(&pager_shared->ready_cv);
}

/* Whether backends may use files yet. */
bool
pager_is_ready(void)
{
	return pager_shared->ready;
}

/* Refuse files whose last checkpoint began before lsn. */
void
pager_set_min_redo(XLogRecPtr lsn)
{
	pager_shared->min_redo = lsn;
}

/* Where files checkpointed earlier start being refused. */
XLogRecPtr
pager_min_redo(void)
{
	return pager_shared->min_redo;
}

/* WAL from lsn on will be replayed at the next start. */
void
pager_set_replay_from(XLogRecPtr lsn)
{
	if (!pager_shared->ready)
		pager_shared->replayed_from = lsn;
	pager_shared->replay_from = lsn;
}

/* Where the WAL replayed at the next start begins. */
XLogRecPtr
pager_replay_from(void)
{
	return pager_shared->replay_from;
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
 * Record a pin of frame.
 */
static void
local_pin_add(int frame)
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
	local_npins++;
}

/*
 * Forget a pin of frame.
 */
static void
local_pin_remove(int frame)
{
	for (int i = 0; i < local_npins; i++)
	{
		if (local_pins[i].frame == frame)
		{
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
	{
		(void) ConditionVariableTimedSleep(&fs->gate_cv, 10,
										   PG_WAIT_EXTENSION);
		io_serve_interrupts();
	}
	ConditionVariableCancelSleep();
}

/*
 * Enter a file's write gate (shared); with conditional, give up rather
 * than wait (also while a checkpoint waits for the gate).
 */
static bool
gate_enter(int slot, bool conditional)
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
static void
gate_exit(int slot)
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
void
pager_unpin(int frame)
{
	PagerFrame *f = &pager_shared->frames[frame];

	local_pin_remove(frame);
	SpinLockAcquire(&f->hdr);
	Assert(f->refcount > 0);
	f->refcount--;
	SpinLockRelease(&f->hdr);
}

/*
 * For a checkpoint holding the file's gate: pin a frame of the file if
 * it is dirty, and take its dirty flag.
 */
bool
pager_pin_take_dirty(int frame, int slot)
{
	PagerFrame *f = &pager_shared->frames[frame];
	bool		ok;

	local_pin_reserve();
	SpinLockAcquire(&f->hdr);
	ok = (f->flags & FRAME_TAG_VALID) && (f->flags & FRAME_DIRTY) &&
		f->fileslot == slot;
	if (ok)
	{
		f->refcount++;
		f->flags &= ~FRAME_DIRTY;
	}
	SpinLockRelease(&f->hdr);
	if (ok)
	{
		local_pin_add(frame);
		pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	}
	return ok;
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
static void
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
static LWLock *
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

	SpinLockAcquire(&f->hdr);
	if (!(f->flags & FRAME_TAG_VALID))
	{
		SpinLockRelease(&f->hdr);
		return true;
	}
	tag.fileslot = f->fileslot;
	tag.pageno = f->pageno;
	SpinLockRelease(&f->hdr);

	part = pager_partition(&tag, &hash);
	LWLockAcquire(part, LW_EXCLUSIVE);
	SpinLockAcquire(&f->hdr);
	if (f->refcount == 1 && !(f->flags & FRAME_DIRTY) &&
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
	SpinLockRelease(&f->hdr);
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

	SpinLockAcquire(&f->hdr);
	slot = f->fileslot;
	SpinLockRelease(&f->hdr);
	if (slot < 0)
		return true;
	if (!gate_enter(slot, true))
		return false;
	if (!LWLockConditionalAcquire(&f->content, LW_SHARED))
	{
		gate_exit(slot);
		return false;
	}
	SpinLockAcquire(&f->hdr);
	if (!(f->flags & FRAME_DIRTY) || !(f->flags & FRAME_TAG_VALID) ||
		f->fileslot != slot)
	{
		SpinLockRelease(&f->hdr);
		LWLockRelease(&f->content);
		gate_exit(slot);
		return true;
	}
	f->flags &= ~FRAME_DIRTY;
	fs = &pager_shared->files[slot];
	pageno = f->pageno;
	SpinLockRelease(&f->hdr);
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
		SpinLockAcquire(&f->hdr);
		f->flags |= FRAME_DIRTY;
		SpinLockRelease(&f->hdr);
		pg_atomic_fetch_add_u32(&pager_shared->ndirty, 1);
		if (phys != 0)
			pager_phys_release(fs, phys);
		PG_RE_THROW();
	}
	PG_END_TRY();

	pager_map_set(fs, pageno, phys, stamp);
	LWLockRelease(&f->content);
	gate_exit(slot);
	pg_atomic_fetch_add_u64(&pager_shared->counters.eviction_writes, 1);
	return true;
}

/*
 * One pass of the clock sweep: a frame pinned and untagged, or -1.  Sets
 * *busy if a candidate was passed over only for a moment (its lock or its
 * file's gate taken, or pinned meanwhile).
 */
static int
pager_sweep(bool *busy)
{
	int			n = pager_shared->nframes;
	int			limit = n * (PAGER_MAX_USAGE + 3);
	bool		asked = false;

	for (int scanned = 0; scanned < limit; scanned++)
	{
		int			i = pg_atomic_fetch_add_u32(&pager_shared->clock_hand, 1) % n;
		PagerFrame *f = &pager_shared->frames[i];
		uint16		flags;

		SpinLockAcquire(&f->hdr);
		if (f->refcount > 0)
		{
			flags = f->flags;
			SpinLockRelease(&f->hdr);
			if (flags & FRAME_ORPHAN)
				pager_adopt_orphan(i);
			continue;
		}
		if (f->usage > 0)
		{
			f->usage--;
			SpinLockRelease(&f->hdr);
			continue;
		}
		if ((f->flags & FRAME_DIRTY) && scanned < n)
		{
			SpinLockRelease(&f->hdr);
			if (!asked)
			{
				pager_request_checkpoint();
				asked = true;
			}
			continue;
		}
		f->refcount++;
		flags = f->flags;
		SpinLockRelease(&f->hdr);
		local_pin_add(i);

		if ((flags & FRAME_DIRTY) && !pager_evict_write(i))
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
static int
pager_victim(void)
{
	local_pin_reserve();
	for (int round = 0; round < 10000; round++)
	{
		bool		busy = false;
		int			frame = pager_sweep(&busy);

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
	SpinLockAcquire(&f->hdr);
	f->refcount--;
	f->usage = 0;
	SpinLockRelease(&f->hdr);
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
		SpinLockAcquire(&f->hdr);
		flags = f->flags;
		SpinLockRelease(&f->hdr);
		if (!(flags & FRAME_READING))
			break;
		(void) ConditionVariableTimedSleep(&f->io_cv, 10, PG_WAIT_EXTENSION);
		io_serve_interrupts();
	}
	ConditionVariableCancelSleep();
	return (flags & FRAME_VALID) != 0;
}

/*
 * Look a page up in the pool and pin its frame; -1 if absent.
 */
static int
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
		SpinLockAcquire(&f->hdr);
		f->refcount++;
		if (f->usage < PAGER_MAX_USAGE)
			f->usage++;
		SpinLockRelease(&f->hdr);
		local_pin_add(frame);
	}
	LWLockRelease(part);
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
	SpinLockAcquire(&f->hdr);
	f->flags = 0;
	f->fileslot = -1;
	f->pageno = ART_INVALID_PAGENO;
	f->usage = 0;
	SpinLockRelease(&f->hdr);
	LWLockRelease(r->part);
	ConditionVariableBroadcast(&f->io_cv);
	local_pin_remove(r->frame);
	pager_unpin_shared(r->frame, 1);
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
 * cheap hash of (file slot, page).  A guess is only a hint: it is used
 * after checking, under the frame's spinlock, that the frame still holds
 * that page; a frame changes its tag only under that spinlock and only
 * when nobody else has it pinned.  It spares the page table's partition
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
	bool		ok;

	if (frame < 0)
		return -1;
	f = &pager_shared->frames[frame];
	local_pin_reserve();
	SpinLockAcquire(&f->hdr);
	ok = (f->flags & (FRAME_TAG_VALID | FRAME_VALID)) ==
		(FRAME_TAG_VALID | FRAME_VALID) &&
		f->fileslot == slot && f->pageno == pageno;
	if (ok)
	{
		f->refcount++;
		if (f->usage < PAGER_MAX_USAGE)
			f->usage++;
	}
	SpinLockRelease(&f->hdr);
	if (!ok)
		return -1;
	local_pin_add(frame);
	pg_atomic_fetch_add_u64(&pager_shared->counters.hits, 1);
	return frame;
}

/*
 * Pin page pageno of a file, reading it if it is not in the pool.
 */
static int
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
static int
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
				pg_atomic_fetch_add_u64(&pager_shared->counters.hits, 1);
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
		SpinLockAcquire(&f->hdr);
		f->fileslot = slot;
		f->pageno = pageno;
		f->flags = FRAME_TAG_VALID | FRAME_READING;
		f->usage = 1;
		SpinLockRelease(&f->hdr);
		LWLockRelease(part);

		read.frame = victim;
		read.tag = tag;
		read.hash = hash;
		read.part = part;
		PG_ENSURE_ERROR_CLEANUP(pager_abandon_read, PointerGetDatum(&read));
		{
			pager_read_into(fs, victim, pageno);
		}
		PG_END_ENSURE_ERROR_CLEANUP(pager_abandon_read, PointerGetDatum(&read));

		SpinLockAcquire(&f->hdr);
		f->flags = (f->flags & ~FRAME_READING) | FRAME_VALID;
		SpinLockRelease(&f->hdr);
		ConditionVariableBroadcast(&f->io_cv);
		pg_atomic_fetch_add_u64(&pager_shared->counters.misses, 1);
		return victim;
	}
}

/* A page reference's handle: frame + 1, and whether it is exclusive. */
#define REF_EXCLUSIVE		((intptr_t) 1 << 30)

/*
 * Fill a page reference for a pinned, locked frame.
 */
static void
pager_fill_ref(ArtPageRef *ref, int frame, ArtPageNo pageno, bool exclusive)
{
	ref->pageno = pageno;
	ref->data = (uint8_t *) pager_frame_data(frame);
	ref->handle = (void *) ((intptr_t) (frame + 1) | (exclusive ? REF_EXCLUSIVE : 0));
}

/* A reference's frame. */
static inline int
ref_frame(const ArtPageRef *ref)
{
	return (int) (((intptr_t) ref->handle & ~REF_EXCLUSIVE) - 1);
}

/* Does a reference hold its page exclusive? */
static inline bool
ref_exclusive(const ArtPageRef *ref)
{
	return ((intptr_t) ref->handle & REF_EXCLUSIVE) != 0;
}

/*
 * ArtPageStoreOps.pin
 */
static ArtStatus
pager_pin(void *store, ArtPageNo pageno, ArtLockMode mode, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);
	int			frame;

	bool		exclusive = (mode == ART_LOCK_EXCLUSIVE);

	if (pageno >= fs->nlogical)
		pager_corrupt(fs, pageno, psprintf("the file has only %u pages", fs->nlogical));
	if (exclusive)
		gate_enter(file->slot, false);
	frame = pager_get_page(fs, file->slot, pageno);
	LWLockAcquire(&pager_shared->frames[frame].content,
				  exclusive ? LW_EXCLUSIVE : LW_SHARED);
	pager_fill_ref(ref, frame, pageno, exclusive);
	return ART_OK;
}

/*
 * ArtPageStoreOps.release
 */
static void
pager_release(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	int			frame = ref_frame(ref);

	LWLockRelease(&pager_shared->frames[frame].content);
	pager_unpin(frame);
	if (ref_exclusive(ref))
		gate_exit(file->slot);
	ref->data = NULL;
	ref->handle = NULL;
}

/*
 * ArtPageStoreOps.mark_dirty
 */
static void
pager_mark_dirty(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFrame *f = &pager_shared->frames[ref_frame(ref)];
	bool		was_clean;

	SpinLockAcquire(&f->hdr);
	was_clean = !(f->flags & FRAME_DIRTY);
	f->flags |= FRAME_DIRTY;
	SpinLockRelease(&f->hdr);
	pager_shared->files[file->slot].changed = true;
	if (was_clean)
		pager_count_dirty();
}

/*
 * ArtPageStoreOps.alloc: a zeroed page, pinned and locked exclusive.
 */
static ArtStatus
pager_alloc(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);
	int			victim;
	int			frame;
	ArtPageNo	pageno = ART_INVALID_PAGENO;
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;
	PagerLookup *ent;
	bool		found;
	PagerFrame *f;
	char	   *data;

	gate_enter(file->slot, false);
	victim = pager_victim();
	frame = victim;
	PG_TRY();
	{
		pageno = pager_logical_alloc(fs);
	}
	PG_CATCH();
	{
		pager_scratch_put(victim);
		PG_RE_THROW();
	}
	PG_END_TRY();

	memset(&tag, 0, sizeof(tag));
	tag.fileslot = file->slot;
	tag.pageno = pageno;
	part = pager_partition(&tag, &hash);
	LWLockAcquire(part, LW_EXCLUSIVE);
	ent = hash_search_with_hash_value(pager_table, &tag, hash, HASH_ENTER, &found);
	if (found)
	{
		/* A stale frame of the page when it was last freed: reuse it. */
		frame = ent->frame;
		f = &pager_shared->frames[frame];
		SpinLockAcquire(&f->hdr);
		f->refcount++;
		f->usage = 1;
		f->flags |= FRAME_VALID;
		SpinLockRelease(&f->hdr);
		local_pin_add(frame);
		LWLockRelease(part);
		pager_scratch_put(victim);
	}
	else
	{
		ent->frame = victim;
		f = &pager_shared->frames[victim];
		SpinLockAcquire(&f->hdr);
		f->fileslot = file->slot;
		f->pageno = pageno;
		f->flags = FRAME_TAG_VALID | FRAME_VALID;
		f->usage = 1;
		SpinLockRelease(&f->hdr);
		LWLockRelease(part);
	}

	LWLockAcquire(&f->content, LW_EXCLUSIVE);
	data = pager_frame_data(frame);
	memset(data, 0, ART_PAGE_SIZE);
	((PagerPageHeader *) data)->pageno = pageno;
	pager_fill_ref(ref, frame, pageno, true);
	pager_mark_dirty(store, ref);
	return ART_OK;
}

/*
 * ArtPageStoreOps.free: the caller holds the page exclusive.
 */
static void
pager_free(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];
	int			frame = ref_frame(ref);
	PagerFrame *f = &pager_shared->frames[frame];
	bool		was_dirty;

	SpinLockAcquire(&f->hdr);
	was_dirty = (f->flags & FRAME_DIRTY) != 0;
	f->flags &= ~FRAME_DIRTY;
	f->usage = 0;
	SpinLockRelease(&f->hdr);
	if (was_dirty)
		pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	pager_logical_free(fs, ref->pageno);
	pager_release(store, ref);
}

/*
 * ArtPageStoreOps.mem_alloc: memory an ERROR frees with its context.
 */
static void *
pager_mem_alloc(void *store, size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE);
}

/*
 * ArtPageStoreOps.mem_free
 */
static void
pager_mem_free(void *store, void *ptr)
{
	if (ptr)
		pfree(ptr);
}

static const ArtPageStoreOps pager_store_ops = {
	.pin = pager_pin,
	.release = pager_release,
	.mark_dirty = pager_mark_dirty,
	.alloc = pager_alloc,
	.free = pager_free,
	.mem_alloc = pager_mem_alloc,
	.mem_free = pager_mem_free,
};

/*
 * The file as a page store for the trie.
 */
ArtPageStore
pager_page_store(PagerFile *file)
{
	ArtPageStore store;

	store.ops = &pager_store_ops;
	store.store = file;
	return store;
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

		SpinLockAcquire(&f->hdr);
		if (!(f->flags & FRAME_TAG_VALID) || f->fileslot != slot)
		{
			SpinLockRelease(&f->hdr);
			continue;
		}
		tag.fileslot = slot;
		tag.pageno = f->pageno;
		SpinLockRelease(&f->hdr);

		part = pager_partition(&tag, &hash);
		LWLockAcquire(part, LW_EXCLUSIVE);
		SpinLockAcquire(&f->hdr);
		if ((f->flags & FRAME_TAG_VALID) && f->fileslot == slot &&
			f->pageno == tag.pageno)
		{
			hash_search_with_hash_value(pager_table, &tag, hash, HASH_REMOVE, NULL);
			dirty = (f->flags & FRAME_DIRTY) != 0;
			f->flags = 0;
			f->fileslot = -1;
			f->pageno = ART_INVALID_PAGENO;
			f->usage = 0;
		}
		SpinLockRelease(&f->hdr);
		LWLockRelease(part);
		if (dirty)
			pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	}
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
	stats->hits = pg_atomic_read_u64(&c->hits);
	stats->misses = pg_atomic_read_u64(&c->misses);
	stats->evictions = pg_atomic_read_u64(&c->evictions);
	stats->eviction_writes = pg_atomic_read_u64(&c->eviction_writes);
	stats->checkpoints = pg_atomic_read_u64(&c->checkpoints);
	stats->checkpoint_pages = pg_atomic_read_u64(&c->checkpoint_pages);
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
