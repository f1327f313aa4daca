/*-------------------------------------------------------------------------
 *
 * pager_file.c
 *	  artrie files: the file table, creating, opening, loading and
 *	  dropping files.
 *
 * A file open anywhere in the cluster has a slot in shared memory with
 * its page map (logical -> physical) and two bitmaps over physical pages
 * ("durable" and "current", see pager_internal.h), kept in dynamic shared
 * memory because they grow with the file (pager_map.c, pager_space.c).
 * The first process to open a file loads them from the newest valid meta
 * page, its directory pages and their map pages (pager_meta.c).  A
 * backend's PagerFile handle names a slot and the slot's incarnation;
 * pager_slot holds the slot for the rest of the transaction, reopening
 * the file if the slot was closed or reused.  When every slot is taken,
 * the io worker closes the least recently used files that nobody holds
 * (pager_idle_slots, pager_close_slot), after a checkpoint of those with
 * changes.
 *
 * Until pager_set_ready (pager_redo.c), only the startup process and the
 * io worker may use files; files marked damaged, of another cluster or
 * checkpointed before pager_set_min_redo's position are refused when
 * loaded (pager_meta_load).  What redo knows of a file it loads (a vouch)
 * or an adoption knows of its file is passed down to the load as a
 * PagerWarrant.
 *
 * Layer: calls the meta pages' layer (loading a file, stamping closed
 * files anew), the pool (scratch frames for meta pages, forgetting a
 * file's frames, this process's setup), the space layer (bitmaps), the
 * page map and src/io.  Called by the meta pages' layer, the page store,
 * checkpoints, the copy functions, the sweep, the redo-facing calls and
 * the io worker (pager_file.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_file.h"
#include "pager/pager_meta.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"
#include "pager/pager_vouch.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* This backend's handles, by file identity. */
typedef struct LocalFile
{
	ArtFileId	id;				/* hash key */
	PagerFile	file;
} LocalFile;

static HTAB *local_files = NULL;

/*
 * The handle pager_open_warranted returned last, or NULL: a backend that
 * opens one file again and again (a scan per exact lookup) finds it
 * without a lookup of local_files.  Forgotten when an entry leaves
 * local_files, whose memory the next new entry may take.
 */
static LocalFile *local_last = NULL;

/* Moves whenever a handle leaves local_files (pager_handles_epoch). */
static uint64 local_epoch = 0;

/*
 * The handles of this process that hold their slot (local_nheld of them,
 * in an array of local_heldcap places), so that the end of a transaction
 * lets go of them without a pass over local_files.
 */
static PagerFile **local_held = NULL;
static int	local_nheld = 0;
static int	local_heldcap = 0;

static void file_unhold(PagerFile *file);

/*
 * A file's path relative to the data directory.
 */
void
pager_file_path(const ArtFileId *id, char *path)
{
	snprintf(path, IO_PATH_LEN, "artrie/%u/%u.%u",
			 id->dbOid, id->relNumber, id->generation);
}

/*
 * Whether file id is marked damaged (pager_mark_damaged).
 */
bool
pager_file_damaged(const ArtFileId *id)
{
	char		path[IO_PATH_LEN + 16];
	struct stat st;

	pager_file_path(id, path);
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	return stat(path, &st) == 0;
}

/*
 * Parse the leading unsigned decimal number of a directory entry's name
 * (an OID or a generation); *end is set past it.
 */
bool
pager_parse_oid(const char *s, const char **end, Oid *value)
{
	uint64		v = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9')
	{
		v = v * 10 + (*p - '0');
		if (v > PG_UINT32_MAX)
			return false;
		p++;
	}
	if (p == s)
		return false;
	*end = p;
	*value = (Oid) v;
	return true;
}

/*
 * Set up this backend, and wait until recovery has brought artrie's files
 * up to date: only the startup process (which does it) and the io worker
 * may touch a file before.  Once this process has seen the files ready
 * (which they stay until the server stops), it checks nothing more.
 */
void
pager_backend_ready(void)
{
	static bool seen_ready = false;

	if (likely(seen_ready))
		return;
	pager_backend_init(io_in_worker());
	if (pager_shared->ready)
	{
		seen_ready = true;
		return;
	}
	if (io_in_worker() || AmStartupProcess())
		return;
	ConditionVariablePrepareToSleep(&pager_shared->ready_cv);
	while (!pager_shared->ready)
		ConditionVariableSleep(&pager_shared->ready_cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
}

/*
 * Take a file's ckpt_lock.  A backend may hold it while it waits for the
 * io worker's I/O (loading the file, checkpointing it), so the io worker
 * itself never sleeps on it: it serves I/O between tries.
 */
static void
ckpt_lock_acquire(PagerFileSlot *fs)
{
	if (!io_in_worker())
	{
		LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
		return;
	}
	while (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		io_wait(NULL, 1);
}

/*
 * The slot of an identity, or -1.
 */
static int
slot_find(const ArtFileId *id)
{
	Assert(LWLockHeldByMe(pager_shared->files_lock));
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (fs->in_use && !fs->closing && fs->id.dbOid == id->dbOid &&
			fs->id.relNumber == id->relNumber &&
			fs->id.generation == id->generation)
			return i;
	}
	return -1;
}

/*
 * Whether a slot holds file id, loaded.
 */
bool
pager_file_loaded(const ArtFileId *id)
{
	int			slot;
	bool		loaded;

	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	slot = slot_find(id);
	loaded = slot >= 0 && pager_shared->files[slot].loaded;
	LWLockRelease(pager_shared->files_lock);
	return loaded;
}

/*
 * Take a free slot for an identity, or -1 if every slot is in use.
 */
static int
slot_new(const ArtFileId *id, const char *relname)
{
	Assert(LWLockHeldByMeInMode(pager_shared->files_lock, LW_EXCLUSIVE));
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (!fs->in_use)
		{
			/* the new incarnation first, as in pager_slot_free */
			fs->incarnation++;
			pg_write_barrier();
			fs->in_use = true;
			fs->loaded = false;
			fs->closing = false;
			fs->inuse_marked = false;
			fs->vouched_at = InvalidXLogRecPtr;
			pg_atomic_write_u32(&fs->users, 0);
			fs->id = *id;
			pager_file_path(id, fs->path);
			strlcpy(fs->relname, relname ? relname : "?", NAMEDATALEN);
			return i;
		}
	}
	return -1;
}

/* How long a process waits for the io worker to close files: 100 x 100 ms. */
#define SLOTS_WAIT_ROUNDS	100

/*
 * The io worker's latch, after waiting for the worker to come up if it
 * has not yet (the postmaster starts it after the startup process, whose
 * redo may open files without its help: reads under mmap or with
 * artrie.backend_reads do not go through it); NULL if it does not come up
 * within SLOTS_WAIT_ROUNDS rounds.
 */
static Latch *
slots_worker(void)
{
	Latch	   *worker = pager_shared->worker_latch;

	for (int waits = 0; worker == NULL && waits < SLOTS_WAIT_ROUNDS; waits++)
	{
		pg_usleep(100 * 1000L);
		CHECK_FOR_INTERRUPTS();
		worker = pager_shared->worker_latch;
	}
	return worker;
}

/*
 * Every slot is taken: ask the io worker to close files that nobody
 * holds, and wait until it has closed one.  ERROR if every slot is held
 * by a running transaction.  A round may close none because the idle
 * files it tried were being checkpointed or written to: then ask again,
 * for up to SLOTS_WAIT_ROUNDS x 100 ms in all.  The io worker itself
 * (replaying WAL at start) closes unchanged files it finds idle, and
 * cannot wait for more.
 */
static void
slots_wait(void)
{
	Latch	   *worker = NULL;
	int			waits = 0;

	if (io_in_worker())
	{
		int			idle[16];
		int			n = pager_idle_slots(idle, lengthof(idle));

		for (int i = 0; i < n; i++)
			if (pager_close_slot(idle[i]))
				return;
	}
	else
		worker = slots_worker();
	if (worker == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("too many artrie files are open"),
				 errdetail("All %d slots of artrie.max_files are in use.",
						   pager_shared->max_files),
				 errhint("Raise artrie.max_files.")));
	ConditionVariablePrepareToSleep(&pager_shared->slots_cv);
	while (waits < SLOTS_WAIT_ROUNDS)
	{
		uint32		round = pg_atomic_read_u32(&pager_shared->slots_round);

		pg_atomic_write_u32(&pager_shared->slots_wanted, 1);
		SetLatch(worker);
		while (pg_atomic_read_u32(&pager_shared->slots_round) == round &&
			   waits++ < SLOTS_WAIT_ROUNDS)
			(void) ConditionVariableTimedSleep(&pager_shared->slots_cv, 100,
											   PG_WAIT_EXTENSION);
		if (pg_atomic_read_u32(&pager_shared->slots_round) == round)
			break;
		if (pg_atomic_read_u32(&pager_shared->slots_closed) > 0)
		{
			ConditionVariableCancelSleep();
			return;
		}
		if (pg_atomic_read_u32(&pager_shared->slots_busy) == 0)
			break;
		/* Idle files were busy: give them a moment. */
		if (waits++ < SLOTS_WAIT_ROUNDS)
			(void) ConditionVariableTimedSleep(&pager_shared->slots_cv, 100,
											   PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("too many artrie files are open"),
			 errdetail("All %d slots of artrie.max_files are held by running transactions or have changes that cannot be checkpointed yet.",
					   pager_shared->max_files),
			 errhint("Raise artrie.max_files, or retry when fewer transactions use artrie indexes.")));
}

/*
 * Which slots some process's line names (a held slot, or one whose hold
 * is being tried): an array of max_files flags, palloc'd.
 */
static bool *
slots_named(void)
{
	bool	   *named = palloc0(sizeof(bool) * pager_shared->max_files);

	for (int p = 0; p < pager_shared->nholds; p++)
		for (int e = 0; e < PAGER_PROC_FILES; e++)
		{
			uint32		v = pg_atomic_read_u32(&pager_shared->procs[p].d.held[e]);

			if (v > 0 && v <= (uint32) pager_shared->max_files)
				named[v - 1] = true;
		}
	return named;
}

/* Does some process's line name the slot? */
static bool
slot_named(int slot)
{
	for (int p = 0; p < pager_shared->nholds; p++)
		for (int e = 0; e < PAGER_PROC_FILES; e++)
			if (pg_atomic_read_u32(&pager_shared->procs[p].d.held[e]) ==
				(uint32) slot + 1)
				return true;
	return false;
}

/*
 * Mark a slot that nobody holds or pins closing, for the caller to close
 * or free it; with unchanged, only if it has no changes to checkpoint
 * either.  False if it is closing already, held (counted in its users,
 * or named in a process's line), pinned or (unchanged) changed.
 *
 * A holder writes the slot into its line, then after a full barrier reads
 * closing (hold_in_line); this sets closing, then after a full barrier
 * reads the lines: of the two, at least one sees what the other wrote,
 * so the holder backs off or is seen here.  The pins and the changed flag
 * are read after the lines: a holder that let go of the slot just before
 * (it writes its entry free after everything it did with the file) has
 * its pins dropped and its changes flagged by then.
 */
static bool
slot_claim(int slot, bool unchanged)
{
	PagerFileSlot *fs = &pager_shared->files[slot];

	Assert(LWLockHeldByMeInMode(pager_shared->files_lock, LW_EXCLUSIVE));
	if (fs->closing || pg_atomic_read_u32(&fs->users) != 0)
		return false;
	fs->closing = true;
	pg_memory_barrier();
	if (slot_named(slot))
	{
		fs->closing = false;
		return false;
	}
	pg_read_barrier();
	if ((unchanged && fs->changed) || pager_slot_pinned(slot))
	{
		fs->closing = false;
		return false;
	}
	return true;
}

/*
 * slot_claim, changes or not, for a caller that does not hold the files
 * lock (the orphan sweep, which then frees the slot).
 */
bool
pager_slot_claim(int slot)
{
	bool		ok;

	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	ok = slot_claim(slot, false);
	LWLockRelease(pager_shared->files_lock);
	return ok;
}

/*
 * The files nobody holds, least recently used first: at most max slot
 * numbers into slots; returns how many.
 */
int
pager_idle_slots(int *slots, int max)
{
	int			n = 0;
	uint64	   *used = palloc(sizeof(uint64) * pager_shared->max_files);
	bool	   *named = slots_named();

	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (fs->in_use && fs->loaded && !fs->closing &&
			pg_atomic_read_u32(&fs->users) == 0 && !named[i])
		{
			uint64		u = pg_atomic_read_u64(&fs->last_used);
			int			j = Min(n, max - 1);

			if (n == max && u >= used[n - 1])
				continue;
			while (j > 0 && used[j - 1] > u)
			{
				slots[j] = slots[j - 1];
				used[j] = used[j - 1];
				j--;
			}
			slots[j] = i;
			used[j] = u;
			n = Min(n + 1, max);
		}
	}
	LWLockRelease(pager_shared->files_lock);
	pfree(used);
	pfree(named);
	return n;
}

/*
 * Close an open file that nobody holds and that has nothing to
 * checkpoint, freeing its slot; false if it is busy (held, changed,
 * pinned, being loaded or checkpointed).
 */
bool
pager_close_slot(int slot)
{
	PagerFileSlot *fs = &pager_shared->files[slot];
	bool		ok;

	if (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		return false;
	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	ok = fs->in_use && fs->loaded && slot_claim(slot, true);
	if (ok)
		fs->loaded = false;
	LWLockRelease(pager_shared->files_lock);
	if (ok)
	{
		/* Nobody can change it any more: its last checkpoint has it all. */
		pager_inuse_unmark(fs);
		pager_slot_free(slot);
	}
	LWLockRelease(&fs->ckpt_lock);
	return ok;
}

/*
 * Free a slot that nobody uses: its frames leave the pool, then it may be
 * taken for another file.
 */
void
pager_slot_free(int slot)
{
	PagerFileSlot *fs = &pager_shared->files[slot];

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));
	pager_forget_frames(slot);
	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	/* the new incarnation first, for hold_in_line's reads without a lock */
	fs->incarnation++;
	pg_write_barrier();
	fs->in_use = false;
	fs->loaded = false;
	fs->closing = false;
	LWLockRelease(pager_shared->files_lock);
}

/*
 * After a round of closing files for processes that found no free slot:
 * tell them how many were closed, and how many idle files were left open.
 * A round that closed none left open only files it tried and found busy
 * (being checkpointed or written to): worth asking again.
 */
void
pager_slots_closed(int closed, int busy)
{
	pg_atomic_write_u32(&pager_shared->slots_closed, (uint32) closed);
	pg_atomic_write_u32(&pager_shared->slots_busy, (uint32) busy);
	pg_atomic_fetch_add_u32(&pager_shared->slots_round, 1);
	ConditionVariableBroadcast(&pager_shared->slots_cv);
}

/*
 * Empty a slot's in-memory state.  Write stamps start anew at a random
 * value (see pager_internal.h).
 */
static void
slot_reset(PagerFileSlot *fs)
{
	dsa_area   *area = pager_dsa();

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	pager_map_free(fs);
	if (DsaPointerIsValid(fs->durable))
		dsa_free(area, fs->durable);
	if (DsaPointerIsValid(fs->current))
		dsa_free(area, fs->current);
	fs->durable = fs->current = InvalidDsaPointer;
	if (!pg_strong_random(&fs->write_stamp, sizeof(fs->write_stamp)))
		fs->write_stamp = (uint32) random();
	fs->phys_cap = 0;
	fs->fanout = PAGER_MAP_PER_PAGE;
	fs->nlogical = fs->nused = 0;
	fs->nphys = PAGER_FIRST_DATA_PHYS;
	fs->free_hint = 0;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;
	fs->ckpt_no = 0;
	fs->meta_slot = 0;
	fs->changed = false;
	fs->tail_left = false;
	fs->stale = false;
	fs->imaged_redo = InvalidXLogRecPtr;
	memset(fs->user, 0, sizeof(fs->user));
	pg_atomic_write_u64(&fs->groups, 0);
	pager_phys_reserve(fs, PAGER_FIRST_DATA_PHYS);
	bit_set(durable_of(fs), 0);
	bit_set(durable_of(fs), 1);
	LWLockRelease(&fs->lock);
}

/*
 * Write both meta slots of a new, empty file and make them durable; the
 * file holds every change logged before start (its checkpoint's redo_lsn).
 */
static void
slot_init_file(PagerFileSlot *fs, XLogRecPtr start)
{
	int			scratch[2];
	IoPage		pages[2];
	TimeLineID	tli;

	slot_reset(fs);
	if (pager_test_map_fanout > 0)
		fs->fanout = (uint32) pager_test_map_fanout;
	fs->redo_lsn = start;
	tli = pager_timeline_now();
	for (int i = 0; i < 2; i++)
	{
		scratch[i] = pager_scratch_get();
		pages[i].offset = (uint64) i * ART_PAGE_SIZE;
		pages[i].buf = pager_frame_data(scratch[i]);
		pager_meta_fill(fs, pages[i].buf, i, 0, fs->redo_lsn, tli, 0,
						PAGER_FIRST_DATA_PHYS, 0, fs->user, 0, NULL);
	}
	io_write_sync(fs->path, pages, 2);
	pager_scratch_put(scratch[1]);
	pager_scratch_put(scratch[0]);
}

/*
 * This backend's handle for a slot.
 */
static PagerFile *
local_file(const ArtFileId *id, int slot, const char *relname)
{
	LocalFile  *lf;
	bool		found;
	ArtFileId	key;

	if (local_files == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(ArtFileId);
		ctl.entrysize = sizeof(LocalFile);
		ctl.hcxt = TopMemoryContext;
		local_files = hash_create("artrie local files", 64, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));
	key = *id;
	lf = hash_search(local_files, &key, HASH_ENTER, &found);
	if (found)
		file_unhold(&lf->file);
	else
	{
		lf->file.held = false;
		lf->file.line_entry = -1;
	}
	lf->file.id = *id;
	lf->file.slot = slot;
	lf->file.incarnation = pager_shared->files[slot].incarnation;
	strlcpy(lf->file.relname, relname ? relname : pager_shared->files[slot].relname,
			NAMEDATALEN);
	return &lf->file;
}

/*
 * Whether a slot still holds file id.
 */
static bool
slot_is(PagerFileSlot *fs, const ArtFileId *id)
{
	Assert(LWLockHeldByMe(pager_shared->files_lock) ||
		   LWLockHeldByMe(&fs->ckpt_lock));
	return fs->in_use && !fs->closing && fs->id.dbOid == id->dbOid &&
		fs->id.relNumber == id->relNumber &&
		fs->id.generation == id->generation;
}

/*
 * Find or load the slot of a file; ERROR if it cannot be opened.  When
 * every slot is taken, the io worker closes files nobody holds.  warrant
 * (NULL: none) is what the caller knows of the file beyond its meta pages
 * (pager_meta_load), used if this call loads it.
 */
static int
slot_open(const ArtFileId *id, const char *relname,
		  const PagerWarrant *warrant)
{
	int			slot;
	PagerFileSlot *fs;

retry:
	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	slot = slot_find(id);
	if (slot < 0)
		slot = slot_new(id, relname);
	else if (relname)
	{
		/* The first opener may have been recovery, or the index renamed. */
		strlcpy(pager_shared->files[slot].relname, relname, NAMEDATALEN);
	}
	LWLockRelease(pager_shared->files_lock);
	if (slot < 0)
	{
		slots_wait();
		goto retry;
	}
	fs = &pager_shared->files[slot];

	if (!fs->loaded)
	{
		ckpt_lock_acquire(fs);
		if (!slot_is(fs, id))
		{
			/* Closed or released while this process waited. */
			LWLockRelease(&fs->ckpt_lock);
			goto retry;
		}
		if (!fs->loaded)
		{
			PG_TRY();
			{
				slot_reset(fs);
				pager_meta_load(fs, warrant);
			}
			PG_CATCH();
			{
				LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
				if (!fs->loaded)
				{
					fs->in_use = false;
					fs->incarnation++;
				}
				LWLockRelease(pager_shared->files_lock);
				LWLockRelease(&fs->ckpt_lock);
				PG_RE_THROW();
			}
			PG_END_TRY();
			fs->loaded = true;
		}
		LWLockRelease(&fs->ckpt_lock);
	}
	return slot;
}

/*
 * Give back a handle's hold on its slot, unless the slot was released
 * under it (its file dropped) and its count started anew.
 */
static pg_attribute_hot void
slot_unhold(PagerFile *file)
{
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	if (file->line_entry >= 0)
	{
		/* whatever this process did with the file comes first */
		pg_memory_barrier();
		pg_atomic_write_u32(&pager_proc_line()->d.held[file->line_entry], 0);
		file->line_entry = -1;
		return;
	}
	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	if (fs->incarnation == file->incarnation)
		pg_atomic_fetch_sub_u32(&fs->users, 1);
	LWLockRelease(pager_shared->files_lock);
}

/*
 * End of a transaction, or of this process: let go of every slot this
 * process holds.  Between transactions, nothing of a file is in use.
 */
static void
files_unhold_all(void)
{
	for (int i = 0; i < local_nheld; i++)
	{
		slot_unhold(local_held[i]);
		local_held[i]->held = false;
	}
	local_nheld = 0;
}

/* Transaction end: let go of the slots held. */
static pg_attribute_hot void
files_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		files_unhold_all();
}

/* Process exit: let go of the slots held. */
static void
files_proc_exit(int code, Datum arg)
{
	files_unhold_all();
}

/*
 * Let go of the slots this process holds, outside a transaction (redo in
 * the startup process, between files).
 */
void
pager_unhold_files(void)
{
	files_unhold_all();
}

/*
 * Hold a handle's slot through a free entry of this process's line (see
 * slot_claim), writing nothing any other process writes; false, with the
 * entry free again, if none is free or the slot no longer holds the file,
 * loaded and not closing.  The slot's incarnation is read before and
 * after the rest, without a lock: it changes whenever the slot is freed
 * or taken, so if both reads give the handle's, what was read between
 * them is this incarnation's (a close, free, new file and load of the
 * slot can all happen between two reads of a process that the kernel
 * preempts).
 */
static bool
hold_in_line(PagerFile *file)
{
	PagerProcLine *line = pager_proc_line();
	PagerFileSlot *fs = &pager_shared->files[file->slot];
	uint32		incarnation;
	bool		ok;
	int			e;

	if (line == NULL)
		return false;
	for (e = 0; e < PAGER_PROC_FILES; e++)
		if (pg_atomic_read_u32(&line->d.held[e]) == 0)
			break;
	if (e == PAGER_PROC_FILES)
		return false;
	pg_atomic_write_u32(&line->d.held[e], (uint32) file->slot + 1);
	pg_memory_barrier();
	incarnation = fs->incarnation;
	pg_read_barrier();
	ok = fs->in_use && fs->loaded && !fs->closing &&
		fs->id.dbOid == file->id.dbOid &&
		fs->id.relNumber == file->id.relNumber &&
		fs->id.generation == file->id.generation;
	pg_read_barrier();
	if (ok && incarnation == file->incarnation &&
		fs->incarnation == incarnation)
	{
		file->line_entry = e;
		return true;
	}
	pg_atomic_write_u32(&line->d.held[e], 0);
	return false;
}

/*
 * Mark a held slot's file the most recently used (for pager_idle_slots)
 * unless it is already: one file held again and again, a scan per exact
 * lookup, writes nothing shared.
 */
static void
slot_mark_used(PagerFileSlot *fs)
{
	uint64		clock = pg_atomic_read_u64(&pager_shared->use_clock);

	if (clock == 0 || pg_atomic_read_u64(&fs->last_used) != clock)
		pg_atomic_write_u64(&fs->last_used,
							pg_atomic_add_fetch_u64(&pager_shared->use_clock, 1));
}

/*
 * Hold a handle's slot until the end of the transaction (or until
 * pager_unhold_files), so that it is not closed meanwhile; false if the
 * slot no longer holds the file.  The handle's incarnation may have been
 * read after the slot was closed and taken for another file (slot_open
 * and local_file read it without a hold), so the file's identity is
 * checked too.  The hold is an entry of this process's line if one is
 * free (hold_in_line), else a count in the slot's users, under the files
 * lock.
 */
static bool
file_hold(PagerFile *file)
{
	static bool callbacks = false;
	PagerFileSlot *fs = &pager_shared->files[file->slot];
	bool		ok;

	if (!callbacks)
	{
		RegisterXactCallback(files_xact_callback, NULL);
		before_shmem_exit(files_proc_exit, 0);
		callbacks = true;
	}
	if (local_nheld == local_heldcap)
	{
		int			cap = Max(16, 2 * local_heldcap);

		local_held = local_held ?
			repalloc(local_held, sizeof(PagerFile *) * cap) :
			MemoryContextAlloc(TopMemoryContext, sizeof(PagerFile *) * cap);
		local_heldcap = cap;
	}
	ok = hold_in_line(file);
	if (!ok)
	{
		LWLockAcquire(pager_shared->files_lock, LW_SHARED);
		ok = slot_is(fs, &file->id) && fs->loaded &&
			fs->incarnation == file->incarnation;
		if (ok)
			pg_atomic_fetch_add_u32(&fs->users, 1);
		LWLockRelease(pager_shared->files_lock);
	}
	if (ok)
	{
		slot_mark_used(fs);
		file->held = true;
		local_held[local_nheld++] = file;
	}
	return ok;
}

/*
 * Let go of one handle's slot (it is being released or reused).
 */
static pg_attribute_hot void
file_unhold(PagerFile *file)
{
	int			i;

	if (!file->held)
		return;
	slot_unhold(file);
	file->held = false;
	for (i = 0; local_held[i] != file; i++)
		Assert(i + 1 < local_nheld);
	local_held[i] = local_held[--local_nheld];
}

/*
 * Let go of this process's hold on a file's slot before the end of the
 * transaction, if nothing of the file is pinned here: for callers that
 * open many files and need each only for a moment (planning,
 * artrie_indexes), so that they do not keep every slot.  The handle's
 * next use holds the slot again, reopening the file if it was closed
 * meanwhile (it was checkpointed first, so its pages are as they were).
 */
pg_attribute_hot void
pager_release_file(PagerFile *file)
{
	if (file->held && !pager_slot_pinned_here(file->slot))
		file_unhold(file);
}

/*
 * Hold a handle's slot until the end of the transaction, reopening the
 * file (with warrant, see slot_open) if its slot was closed or reused.
 */
static pg_attribute_hot PagerFileSlot *
slot_hold(PagerFile *file, const PagerWarrant *warrant)
{
	while (!file->held && !file_hold(file))
	{
		file->slot = slot_open(&file->id, file->relname, warrant);
		file->incarnation = pager_shared->files[file->slot].incarnation;
	}
	return &pager_shared->files[file->slot];
}

/*
 * pager_slot's way for a handle not held yet: hold its slot until the end
 * of the transaction, reopening the file if the slot was closed or reused.
 */
pg_attribute_hot PagerFileSlot *
pager_slot_hold(PagerFile *file)
{
	return slot_hold(file, NULL);
}

/*
 * Create artrie/ and artrie/<db>/ if they are missing.
 */
static void
make_directories(Oid dbOid)
{
	char		dir[IO_PATH_LEN];

	snprintf(dir, sizeof(dir), "artrie/%u", dbOid);
	if (MakePGDirectory("artrie") < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", "artrie")));
	if (OidIsValid(dbOid) && MakePGDirectory(dir) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
}

/*
 * Count an index built by pg_upgrade's restore of the schema: one byte
 * appended to PAGER_UPGRADE_MARKER.  pg_upgrade then puts the old
 * cluster's main fork in place of the one built, whose metapage names a
 * file pg_upgrade does not carry, so the index needs REINDEX.
 */
void
pager_note_upgraded_index(void)
{
	int			fd;

	make_directories(InvalidOid);
	fd = BasicOpenFile(PAGER_UPGRADE_MARKER, O_WRONLY | O_CREAT | O_APPEND | PG_BINARY);
	if (fd < 0 || write(fd, "i", 1) != 1)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", PAGER_UPGRADE_MARKER)));
	close(fd);
}

/*
 * At the first start after pg_upgrade (from the io worker): one line in
 * the log that says how many artrie indexes need REINDEX and how to find
 * them; then the marker goes, so it is said once.
 */
void
pager_report_upgrade(void)
{
	struct stat st;

	if (IsBinaryUpgrade || stat(PAGER_UPGRADE_MARKER, &st) != 0)
		return;
	ereport(LOG,
			(errmsg("artrie: %lld indexes need their files: pg_upgrade does not carry artrie's files; in each database, run SELECT * FROM artrie_adopt('<the old data directory>') to take them from the old cluster, and REINDEX every index that SELECT index FROM artrie_indexes WHERE problem IS NOT NULL still lists (until then queries leave them out, with a WARNING, and changes to their tables fail)",
					(long long) st.st_size)));
	if (unlink(PAGER_UPGRADE_MARKER) != 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", PAGER_UPGRADE_MARKER)));
}

/*
 * Create file id, empty (reuse: over the file of that name, if there is
 * one), holding every change logged before start, and give it a slot.
 */
static PagerFile *
file_create(const ArtFileId *id, const char *relname, bool reuse,
			XLogRecPtr start)
{
	char		path[IO_PATH_LEN];
	char		dir[IO_PATH_LEN];
	int			fd;
	int			slot;
	PagerFileSlot *fs;

	pager_backend_ready();
	pager_file_path(id, path);
	make_directories(id->dbOid);
	snprintf(dir, sizeof(dir), "artrie/%u", id->dbOid);
	fd = BasicOpenFile(path, O_RDWR | O_CREAT | (reuse ? 0 : O_EXCL) | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	close(fd);

	for (;;)
	{
		LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
		slot = slot_find(id);
		if (slot >= 0)
		{
			/* A stale slot of a file of that name that is gone. */
			pager_shared->files[slot].in_use = false;
			pager_shared->files[slot].incarnation++;
		}
		slot = slot_new(id, relname);
		LWLockRelease(pager_shared->files_lock);
		if (slot >= 0)
			break;
		slots_wait();
	}
	fs = &pager_shared->files[slot];

	LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
	slot_init_file(fs, start);

	/* Whoever fills a new file logs its image (wal_log_file). */
	fs->imaged_redo = GetRedoRecPtr();
	fs->loaded = true;
	LWLockRelease(&fs->ckpt_lock);

	fsync_fname(dir, true);
	fsync_fname("artrie", true);
	return local_file(id, slot, relname);
}

/*
 * Create a new, empty file.
 */
PagerFile *
pager_create_file(const ArtFileId *id, const char *relname)
{
	return file_create(id, relname, false, pager_redo_now());
}

/*
 * Start a file afresh, empty, as redo does from the first record of a
 * file's image, at lsn: in place if it exists (its pages are left as
 * garbage that the new, empty page map does not point at, and new writes
 * overwrite), so that every process's handle on the file stays one on it
 * (under the mmap backend other processes drop their handles on a removed
 * file only lazily, assuming its name is never used again).  Its slot, its
 * marker of damage and this process's handle go first.  The new file's
 * checkpoint begins at the redo position (pager_redo_now: the records
 * redo holds back for the image are applied after it), but never past
 * lsn: artrie's own replay of the window before PostgreSQL's redo pointer
 * (wal_recovery.c) runs while the replay position is already past the
 * image and the records after it, which redo would otherwise skip,
 * leaving the file empty.
 */
PagerFile *
pager_reset_file(const ArtFileId *id, const char *relname, XLogRecPtr lsn)
{
	char		path[IO_PATH_LEN + 16];

	pager_file_forget(id);
	pager_file_path(id, path);
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
	return file_create(id, relname, true, Min(pager_redo_now(), lsn));
}

/*
 * This process's handle on file id, or NULL: the one found last if it is
 * id's (a backend opens one file again and again, a scan per exact
 * lookup), else from local_files.
 */
static pg_attribute_hot LocalFile *
local_find(const ArtFileId *id)
{
	LocalFile  *lf = local_last;

	if (local_files == NULL)
		return NULL;
	if (lf == NULL || lf->id.dbOid != id->dbOid ||
		lf->id.relNumber != id->relNumber ||
		lf->id.generation != id->generation)
		lf = hash_search(local_files, id, HASH_FIND, NULL);
	if (lf)
		local_last = lf;
	return lf;
}

/*
 * Is a handle's file still loaded in the slot the handle took, as
 * relname's (any name if NULL)?
 */
static pg_attribute_hot bool
local_loaded(LocalFile *lf, const char *relname)
{
	PagerFileSlot *fs = &pager_shared->files[lf->file.slot];

	return fs->in_use && fs->loaded && fs->incarnation == lf->file.incarnation &&
		(relname == NULL || strcmp(fs->relname, relname) == 0);
}

/*
 * Open an existing file, with warrant (see slot_open) if this loads it.
 */
PagerFile *
pager_open_warranted(const ArtFileId *id, const char *relname,
		  const PagerWarrant *warrant)
{
	LocalFile  *lf;
	int			slot;

	pager_backend_ready();
	lf = local_find(id);
	if (lf)
	{
		if (relname && strcmp(lf->file.relname, relname) != 0)
			strlcpy(lf->file.relname, relname, NAMEDATALEN);
		if (local_loaded(lf, relname))
			return &lf->file;
	}
	slot = slot_open(id, relname, warrant);
	return local_file(id, slot, relname);
}

/*
 * Would pager_open_file find file id open in this process and loaded, as
 * relname's, and (unlogged) pager_use_unlogged find it marked in use this
 * run, so that neither loads, creates or checks anything, nor raises an
 * error?  The planner opens an index this way without a subtransaction.
 */
pg_attribute_hot bool
pager_file_ready(const ArtFileId *id, const char *relname, bool unlogged)
{
	LocalFile  *lf;

	if (!pager_shared->ready || (lf = local_find(id)) == NULL)
		return false;
	return local_loaded(lf, relname) &&
		(!unlogged || pager_shared->files[lf->file.slot].inuse_marked);
}

/*
 * Open an existing file.
 */
PagerFile *
pager_open_file(const ArtFileId *id, const char *relname)
{
	return pager_open_warranted(id, relname, NULL);
}

/*
 * Forget slot's file (if it is still id): its pages leave the pool and the
 * slot is free.
 */
static void
slot_release(int slot, const ArtFileId *id)
{
	PagerFileSlot *fs = &pager_shared->files[slot];

	ckpt_lock_acquire(fs);
	if (fs->in_use && fs->id.dbOid == id->dbOid &&
		fs->id.relNumber == id->relNumber && fs->id.generation == id->generation)
	{
		if (fs->loaded)
			slot_reset(fs);
		pager_slot_free(slot);
	}
	LWLockRelease(&fs->ckpt_lock);
}

/*
 * Forget file id in this process and in the pool: its slot (if it still
 * holds id) is released and this backend's handle dropped.
 */
void
pager_file_forget(const ArtFileId *id)
{
	int			slot;

	if (local_files)
	{
		LocalFile  *lf = hash_search(local_files, id, HASH_FIND, NULL);

		if (lf)
			file_unhold(&lf->file);
	}
	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	slot = slot_find(id);
	LWLockRelease(pager_shared->files_lock);
	if (slot >= 0)
		slot_release(slot, id);
	if (local_files)
	{
		if (hash_search(local_files, id, HASH_REMOVE, NULL) != NULL)
			local_epoch++;
		local_last = NULL;
	}
}

/*
 * A number that moves whenever a handle of this process goes away: a
 * handle pager_open_file returned stays this process's handle on its file
 * while the number is unchanged, so a caller may keep it instead of
 * opening the file again (the access method keeps an index's with its
 * metapage, am_meta.c).  A kept handle whose slot was closed meanwhile
 * reopens its file at its next use, as any handle does.
 */
pg_attribute_hot uint64
pager_handles_epoch(void)
{
	return local_epoch;
}

/*
 * Forget a file's pages and remove it from disk.  The file is truncated
 * first, as PostgreSQL's mdunlink does: other processes may still hold a
 * descriptor or a mapping of it for a while, and its space must come back
 * now, not when the last of them closes it.
 */
void
pager_drop_file(const ArtFileId *id)
{
	char		path[IO_PATH_LEN + 16];

	pager_backend_ready();
	pager_file_path(id, path);

	pager_file_forget(id);
	io_forget_file(path);
	if (truncate(path, 0) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not truncate file \"%s\": %m", path)));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
	pager_file_path(id, path);
	strlcat(path, PAGER_INUSE_SUFFIX, sizeof(path));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}

/*
 * The run that marked an UNLOGGED index's file in use (PAGER_INUSE_SUFFIX),
 * 0 if it is not marked.
 */
static uint64
inuse_read(const char *path)
{
	char		buf[32];
	int			fd;
	ssize_t		n;

	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno == ENOENT)
			return 0;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	}
	n = read(fd, buf, sizeof(buf) - 1);
	CloseTransientFile(fd);
	buf[Max(n, 0)] = '\0';
	return strtou64(buf, NULL, 16);
}

/*
 * Mark an UNLOGGED index's file in use by this run, durably, before it is
 * changed: its changes have no WAL, so after a clean shutdown the file is
 * complete only if a checkpoint made after its last change, when no
 * process could change it any more, removed the mark (pager_inuse_unmark,
 * at the io worker's last checkpoint or when the file is closed).  A file
 * still marked by an earlier run is refused, with a hint to REINDEX: that
 * run stopped before the file was written whole.  After a crash PostgreSQL
 * resets the index, which gives it a new file.
 */
void
pager_use_unlogged(PagerFile *file)
{
	PagerFileSlot *fs = pager_slot(file);
	char		path[IO_PATH_LEN + 16];
	char		buf[32];
	uint64		run;
	int			fd;

	if (fs->inuse_marked)
		return;
	ckpt_lock_acquire(fs);
	if (fs->inuse_marked)
	{
		LWLockRelease(&fs->ckpt_lock);
		return;
	}
	snprintf(path, sizeof(path), "%s%s", fs->path, PAGER_INUSE_SUFFIX);
	run = inuse_read(path);
	if (run != 0 && run != pager_shared->run_id)
	{
		LWLockRelease(&fs->ckpt_lock);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" of an UNLOGGED index may lack changes made before the server last stopped",
						fs->relname, fs->path),
				 errdetail("The io worker's last checkpoint before the stop did not write the file after its last change."),
				 errhint("REINDEX the index.")));
	}
	if (run == 0)
	{
		fd = OpenTransientFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);
		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create file \"%s\": %m", path)));
		snprintf(buf, sizeof(buf), "%016llx\n",
				 (unsigned long long) pager_shared->run_id);
		errno = 0;
		if (write(fd, buf, strlen(buf)) != strlen(buf))
		{
			if (errno == 0)
				errno = ENOSPC;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", path)));
		}
		if (pg_fsync(fd) != 0)
			ereport(data_sync_elevel(ERROR),
					(errcode_for_file_access(),
					 errmsg("could not fsync file \"%s\": %m", path)));
		CloseTransientFile(fd);
		snprintf(path, sizeof(path), "artrie/%u", fs->id.dbOid);
		fsync_fname(path, true);
	}
	fs->inuse_marked = true;
	LWLockRelease(&fs->ckpt_lock);
}

/*
 * A file marked in use (pager_use_unlogged) that nobody can change any
 * more and whose last checkpoint holds every change: remove the mark.  A
 * mark left behind only refuses the index at the next start.
 */
void
pager_inuse_unmark(PagerFileSlot *fs)
{
	char		path[IO_PATH_LEN + 16];

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));
	if (!fs->inuse_marked)
		return;
	snprintf(path, sizeof(path), "%s%s", fs->path, PAGER_INUSE_SUFFIX);
	if (unlink(path) != 0 && errno != ENOENT)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
		return;
	}
	snprintf(path, sizeof(path), "artrie/%u", fs->id.dbOid);
	fsync_fname(path, true);
	fs->inuse_marked = false;
}

/*
 * Vouch for a closed file if it would be served here now: its meta pages
 * as pager_meta_load accepts them (pager_meta_servable; the caller has
 * looked for the marker of damage).  Outside recovery it is first logged
 * as unchanged since its last checkpoint (unchanged), so that redo accepts
 * a copy of that checkpoint; then, in a pass that lists files, it is
 * listed (pager_vouch.c), else its meta page is stamped anew
 * (pager_meta_restamp).  The caller keeps the file from being opened (and
 * changed) meanwhile.
 */
static void
restamp_unopened(const ArtFileId *id, const char *path, uint8 *buf,
				 void (*unchanged) (const ArtFileId *id, XLogRecPtr since))
{
	PagerMeta	meta;
	int			best;

	if (pager_meta_read(path, buf))
	{
		best = pager_meta_servable(id, buf, &meta);
		if (best >= 0)
		{
			if (unchanged)
				unchanged(id, meta.redo_lsn);
			if (pager_vouch_active())
				pager_vouch_add(id, meta.redo_lsn, pager_redo_now(), -1);
			else
				pager_meta_restamp(id, path, path, best, pager_redo_now());
		}
	}
}

/*
 * Vouch for a file that no slot holds (restamp_unopened).  Under the
 * files lock it takes a slot for the file, not loaded, with the slot's
 * checkpoint lock: a process that opens the file meanwhile finds the slot
 * and waits on that lock as for a load, and opening any other file goes
 * on, since the files lock is not held across the file's I/O and WAL
 * record.  Then the slot is given back.  With no slot free the files lock
 * is held throughout instead.
 */
static void
restamp_closed_file(const ArtFileId *id,
					void (*unchanged) (const ArtFileId *id, XLogRecPtr since))
{
	char		path[IO_PATH_LEN + 16];
	uint8	   *buf;
	int			slot;
	uint32		incarnation = 0;
	PagerFileSlot *volatile fs = NULL;

	if (pager_file_damaged(id))
		return;
	pager_file_path(id, path);
	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	if (slot_find(id) >= 0)
	{
		LWLockRelease(pager_shared->files_lock);
		return;
	}
	slot = slot_new(id, NULL);
	if (slot >= 0)
	{
		fs = &pager_shared->files[slot];
		incarnation = fs->incarnation;
		if (LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
			LWLockRelease(pager_shared->files_lock);
		else
		{
			fs->in_use = false;
			fs->incarnation++;
			fs = NULL;
		}
	}
	buf = palloc(2 * ART_PAGE_SIZE);
	PG_TRY();
	{
		restamp_unopened(id, path, buf, unchanged);
	}
	PG_FINALLY();
	{
		if (fs != NULL)
		{
			/* Unless a new file of that identity took the slot over. */
			LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
			if (fs->incarnation == incarnation)
			{
				fs->in_use = false;
				fs->incarnation++;
			}
			LWLockRelease(pager_shared->files_lock);
			LWLockRelease(&fs->ckpt_lock);
		}
		else
			LWLockRelease(pager_shared->files_lock);
	}
	PG_END_TRY();
	pfree(buf);
}

/*
 * Call visit for every file under $PGDATA/artrie whose name is that of an
 * artrie file (artrie/<db>/<rel>.<gen>).
 */
void
pager_files_walk(void (*visit) (const ArtFileId *id, void *arg), void *arg)
{
	DIR		   *dir;
	struct dirent *de;

	dir = AllocateDir("artrie");
	if (dir == NULL && errno == ENOENT)
		return;
	while ((de = ReadDirExtended(dir, "artrie", LOG)) != NULL)
	{
		char		dbpath[MAXPGPATH];
		DIR		   *dbdir;
		struct dirent *fe;
		const char *p;
		Oid			db;

		if (!pager_parse_oid(de->d_name, &p, &db) || *p != '\0')
			continue;
		snprintf(dbpath, sizeof(dbpath), "artrie/%u", db);
		dbdir = AllocateDir(dbpath);
		while ((fe = ReadDirExtended(dbdir, dbpath, LOG)) != NULL)
		{
			ArtFileId	id;

			if (!pager_parse_oid(fe->d_name, &p, &id.relNumber) ||
				*p != '.' || !pager_parse_oid(p + 1, &p, &id.generation) ||
				*p != '\0')
				continue;
			id.dbOid = db;
			visit(&id, arg);
		}
		if (dbdir != NULL)
			FreeDir(dbdir);
	}
	FreeDir(dir);
}

/*
 * pager_files_walk's visit for pager_report_unlogged: count the file in the
 * StringInfo at arg if an earlier run left it marked in use.
 */
static void
unlogged_visit(const ArtFileId *id, void *arg)
{
	StringInfo	names = (StringInfo) arg;
	char		path[IO_PATH_LEN + 16];
	uint64		run;

	pager_file_path(id, path);
	strlcat(path, PAGER_INUSE_SUFFIX, sizeof(path));
	run = inuse_read(path);
	if (run == 0 || run == pager_shared->run_id)
		return;
	pager_file_path(id, path);
	appendStringInfo(names, "%s\"%s\"", names->len > 0 ? ", " : "", path);
}

/*
 * At the io worker's start after a clean shutdown: say in one line which
 * files of UNLOGGED indexes the last run left marked in use (its last
 * checkpoint could not write them whole): their indexes are refused until
 * REINDEX.  After a crash PostgreSQL resets those indexes instead.
 */
void
pager_report_unlogged(void)
{
	StringInfoData names;

	if (!pager_shared->clean_start)
		return;
	initStringInfo(&names);
	pager_files_walk(unlogged_visit, &names);
	if (names.len > 0)
		ereport(WARNING,
				(errmsg("artrie: the last shutdown left files of UNLOGGED indexes that lack changes: %s",
						names.data),
				 errhint("REINDEX those indexes; until then they are refused.")));
	pfree(names.data);
}

/* pager_files_walk's visit for pager_restamp_closed_files. */
static void
restamp_visit(const ArtFileId *id, void *arg)
{
	restamp_closed_file(id, (void (*) (const ArtFileId *, XLogRecPtr)) arg);
}

/*
 * Vouch for every file that no slot holds (restamp_closed_file), as a
 * checkpoint does for an open file without changes, so that every file
 * served here is current past PostgreSQL's current redo pointer: a base
 * backup that starts now may then use its copy, although nobody opens the
 * file, and a file current only from before the WAL replayed at a start
 * is a copy from earlier, refused (wal_recovery.c).  unchanged, outside recovery, logs each as unchanged
 * first.  For the io worker's checkpoint after PostgreSQL's redo pointer
 * moved.
 */
void
pager_restamp_closed_files(void (*unchanged) (const ArtFileId *id,
											  XLogRecPtr since))
{
	pager_files_walk(restamp_visit, (void *) unchanged);
}

/*
 * Open a file copied from the cluster that pg_upgrade upgraded from, whose
 * meta pages carry that cluster's system identifier and WAL positions:
 * source says that the old cluster, at its last stop, had every change
 * logged to a file it served (a checkpoint within [min_redo, upto]) in
 * the file.  It is loaded as current now, and its next
 * checkpoint writes this cluster's identifier and position down.
 */
PagerFile *
pager_open_adopted(const ArtFileId *id, const PagerAdoptSource *source,
				   const char *relname)
{
	PagerWarrant adopt;
	PagerFile  *file;

	adopt.adopt = source;
	adopt.since = adopt.upto = InvalidXLogRecPtr;
	file = pager_open_warranted(id, relname, &adopt);
	(void) slot_hold(file, &adopt);
	return file;
}

/*
 * Forget every loaded file whose last checkpoint began before lsn (and
 * that the vouch list does not have current from lsn on), so that its
 * next load refuses it (pager_set_min_redo): recovery loaded it before it
 * knew.
 */
void
pager_forget_files_before(XLogRecPtr lsn)
{
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];
		ArtFileId	id;
		bool		old;

		LWLockAcquire(pager_shared->files_lock, LW_SHARED);
		old = fs->in_use && fs->loaded && Max(fs->redo_lsn, fs->vouched_at) < lsn;
		id = fs->id;
		LWLockRelease(pager_shared->files_lock);
		if (old)
			slot_release(i, &id);
	}
	if (local_files)
	{
		files_unhold_all();
		hash_destroy(local_files);
		local_files = NULL;
		local_last = NULL;
		local_epoch++;
	}
}

/*
 * Pages in use in the file.
 */
pg_attribute_hot uint32
pager_file_pages(PagerFile *file)
{
	return pager_slot(file)->nused;
}

/*
 * The file's size on disk: its st_size, as pg_stat_file reports it.  Files
 * are allocated ahead of their writes (src/io), so this is at least the
 * physical pages in use and includes the space allocated for the next ones.
 */
uint64
pager_file_bytes(PagerFile *file)
{
	PagerFileSlot *fs = pager_slot(file);
	struct stat st;

	if (stat(fs->path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\" of index \"%s\": %m",
						fs->path, file->relname),
				 errhint("Rebuild the index with REINDEX.")));
	return (uint64) st.st_size;
}

/*
 * The number of the file's last durable checkpoint, and (in *redo_lsn)
 * the WAL position it holds every change before: where that checkpoint
 * began, or where the vouch list has the file current if later (it had no
 * change in between).
 */
uint64
pager_file_checkpoint(PagerFile *file, XLogRecPtr *redo_lsn)
{
	PagerFileSlot *fs = pager_slot(file);
	uint64		ckpt_no;

	LWLockAcquire(&fs->lock, LW_SHARED);
	ckpt_no = fs->ckpt_no;
	*redo_lsn = Max(fs->redo_lsn, fs->vouched_at);
	LWLockRelease(&fs->lock);
	return ckpt_no;
}

/*
 * One of the caller's words in the meta page.
 */
uint32
pager_get_user_word(PagerFile *file, int word)
{
	PagerFileSlot *fs = pager_slot(file);
	uint32		user[PAGER_USER_WORDS];

	Assert(word >= 0 && word < PAGER_USER_WORDS);
	LWLockAcquire(&fs->lock, LW_SHARED);
	pager_user_words(fs, user);
	LWLockRelease(&fs->lock);
	return user[word];
}

/*
 * Set one of the caller's words; durable at the next checkpoint.  Setting
 * a word of the group count sets that half of the counter (redo of a
 * file's image, a copy: no trie changes the file meanwhile).
 */
void
pager_set_user_word(PagerFile *file, int word, uint32 value)
{
	PagerFileSlot *fs = pager_slot(file);
	uint32		user[PAGER_USER_WORDS];

	Assert(word >= 0 && word < PAGER_USER_WORDS);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	pager_user_words(fs, user);
	user[word] = value;
	memcpy(fs->user, user, sizeof(fs->user));
	pg_atomic_write_u64(&fs->groups, pager_user_groups(user));
	fs->changed = true;
	LWLockRelease(&fs->lock);
}
