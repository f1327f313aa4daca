/*-------------------------------------------------------------------------
 *
 * pager.c
 *	  The pager's setup: its GUCs, its shared memory, and the WAL layer's
 *	  hooks; and the huge-page advice for the private arrays of a build and
 *	  of redo.
 *
 * pager_init (from _PG_init) defines the pager's and the I/O backends'
 * GUCs, installs the shared memory hooks (chaining the previous ones) and
 * registers the io worker and the checkpoint gate.  The shared memory
 * startup lays out the pool's frames and pages, the file table, the page
 * maps' dynamic shared memory and the scan holds, and the page table.
 *
 * Layer: the top of the pager, like _PG_init: it may call every layer's
 * setup (pager_worker.c, pager_ckpt_gate.c, pager_hold.c, src/io) and
 * writes the hooks that checkpoints call (pager_checkpoint.c); nothing in
 * the pager calls it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "pager/pager_checkpoint.h"
#include "pager/pager_ckpt_gate.h"
#include "pager/pager_hold.h"
#include "pager/pager_worker.h"

#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

int			pager_pool_kb = 128 * 1024;
int			pager_max_files = 1024;
int			pager_checkpoint_timeout = 300;
int			pager_checkpoint_gate_timeout = 60000;
int			pager_checkpoint_dirty_percent = 50;
int			pager_test_map_fanout = 0;
bool		pager_test_checkpoint_pause = false;
bool		pager_test_walk_pause = false;
char	   *pager_test_insert_pause = NULL;

PagerShared *pager_shared = NULL;
HTAB	   *pager_table = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Room for the dynamic shared memory area's control and first segment. */
#define PAGER_DSA_PLACE		((Size) 1024 * 1024)

static void pager_shmem_request(void);
static void pager_shmem_startup(void);

/*
 * Whether the server stopped cleanly before this start: read in the
 * postmaster, before the startup process changes pg_control.
 */
static bool
pager_stopped_cleanly(void)
{
	ControlFileData *pgctl;
	bool		crc_ok;
	bool		clean;

	pgctl = get_controlfile(DataDir, &crc_ok);
	clean = crc_ok && pgctl->state == DB_SHUTDOWNED;
	pfree(pgctl);
	return clean;
}

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
	size = add_size(size, mul_size(pager_proc_slots() + 1, sizeof(PagerProcLine)));
	return size;
}

/*
 * From _PG_init: GUCs, shared memory hooks, the io worker.
 */
void
pager_init(void)
{
	io_define_startup_int("artrie.buffer_pool_size",
						  "Size of artrie's shared buffer pool.",
						  NULL,
						  &pager_pool_kb,
						  128 * 1024, 128, INT_MAX / 2,
						  GUC_UNIT_KB);
	io_define_startup_int("artrie.max_files",
						  "Most artrie index files in the file table at once.",
						  "An index's file takes a slot when it is created or opened, and gives it back when the file is removed (DROP INDEX, REINDEX, TRUNCATE, DROP DATABASE) or when the io worker closes it, unused, to make room for another file.",
						  &pager_max_files,
						  1024, 16, 1024 * 1024,
						  0);
	DefineCustomIntVariable("artrie.checkpoint_timeout",
							"Time between artrie's automatic checkpoints.",
							NULL,
							&pager_checkpoint_timeout,
							300, 1, 86400,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.checkpoint_gate_timeout",
							"Longest time PostgreSQL's checkpoint waits for artrie's checkpoint images.",
							"Past it the checkpoint goes on with a WARNING, and a base backup started at its redo pointer may restore an index changed before it refused until REINDEX.",
							&pager_checkpoint_gate_timeout,
							60000, 1000, 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.checkpoint_dirty_percent",
							"Share of the buffer pool, in percent, whose being dirty starts a checkpoint.",
							NULL,
							&pager_checkpoint_dirty_percent,
							50, 1, 100,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("artrie.test_map_fanout",
							"For tests only: entries of a map page and of a directory page of the files created from now on.",
							"0 means a full page's worth; a small value makes the page map of a small file as deep as that of a file of terabytes, and its size limit small.",
							&pager_test_map_fanout,
							0, 0, PAGER_MAP_PER_PAGE,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("artrie.test_checkpoint_pause",
							 "For tests only: a checkpoint this session runs pauses in its write phase.",
							 "Each changed file's checkpoint logs that it pauses, after it took its snapshot and before it writes its pages, and waits while the file artrie_checkpoint_pause exists in the data directory (at most 10 minutes).",
							 &pager_test_checkpoint_pause,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("artrie.test_walk_pause",
							 "For tests only: the walk of artrie_verify() and artrie_stats(walk => true) in this session pauses between two steps.",
							 "Between two steps of the walk, holding no lock, it logs that it pauses and waits while the file artrie_walk_pause exists in the data directory (a cancel ends the wait).",
							 &pager_test_walk_pause,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomStringVariable("artrie.test_insert_pause",
							   "For tests only: an insert of this session pauses between its two passes.",
							   "When not empty, an insert whose second pass has pages below the root page to visit logs that it pauses and waits, holding those pages pinned and marked as passed, while the file artrie_insert_pause_<this value> exists in the data directory (at most 10 minutes; no cancel: its first pass changed the index).",
							   &pager_test_insert_pause,
							   "",
							   PGC_SUSET,
							   GUC_NOT_IN_SAMPLE,
							   NULL, NULL, NULL);
	io_define_gucs();
	MarkGUCPrefixReserved("artrie");

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = pager_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = pager_shmem_startup;

	pager_register_worker();
	pager_register_ckpt_gate();
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
	RequestNamedLWLockTranche("artrie_files", 2);
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
		p += pager_hold_shmem_size();
		pager_shared->procs = (PagerProcLine *) CACHELINEALIGN(p);
		for (int i = 0; i < pager_shared->nholds; i++)
		{
			for (int j = 0; j < PAGER_PROC_FILES; j++)
				pg_atomic_init_u32(&pager_shared->procs[i].d.held[j], 0);
			pg_atomic_init_u64(&pager_shared->procs[i].d.hits, 0);
		}

		pager_shared->nframes = n;
		pager_shared->max_files = pager_max_files;
		pager_shared->content_tranche = LWLockNewTrancheId();
		pager_shared->file_tranche = LWLockNewTrancheId();
		pager_shared->gate_tranche = LWLockNewTrancheId();
		pager_shared->writers_tranche = LWLockNewTrancheId();
		pager_shared->splits_tranche = LWLockNewTrancheId();
		pager_shared->dsa_tranche = LWLockNewTrancheId();
		pg_atomic_init_u32(&pager_shared->clock_hand, 0);
		pg_atomic_init_u32(&pager_shared->ndirty, 0);
		pg_atomic_init_u32(&pager_shared->ckpt_requested, 0);
		pg_atomic_init_u32(&pager_shared->slots_wanted, 0);
		pg_atomic_init_u32(&pager_shared->slots_round, 0);
		pg_atomic_init_u32(&pager_shared->slots_closed, 0);
		pg_atomic_init_u32(&pager_shared->slots_busy, 0);
		pg_atomic_init_u32(&pager_shared->sweep_blocked, 0);
		pg_atomic_init_u32(&pager_shared->sweep_db_unreadable, 0);
		pg_atomic_init_u32(&pager_shared->sweep_db_missing, 0);
		pg_atomic_init_u32(&pager_shared->sweeper_connected, 0);
		ConditionVariableInit(&pager_shared->slots_cv);
		pg_atomic_init_u64(&pager_shared->use_clock, 0);
		pg_atomic_init_u64(&pager_shared->redo_held, InvalidXLogRecPtr);
		pager_shared->run_id = (uint64) GetCurrentTimestamp();
		pager_shared->clean_start = pager_stopped_cleanly();
		pg_atomic_init_u32(&pager_shared->users, 0);
		pg_atomic_init_u64(&pager_shared->pass_done_redo, InvalidXLogRecPtr);
		pg_atomic_init_u64(&pager_shared->counters.hits, 0);
		pg_atomic_init_u64(&pager_shared->counters.misses, 0);
		pg_atomic_init_u64(&pager_shared->counters.evictions, 0);
		pg_atomic_init_u64(&pager_shared->counters.eviction_writes, 0);
		pg_atomic_init_u64(&pager_shared->counters.checkpoints, 0);
		pg_atomic_init_u64(&pager_shared->counters.checkpoint_pages, 0);
		pg_atomic_init_u64(&pager_shared->counters.recent_hits, 0);
		pg_atomic_init_u64(&pager_shared->counters.recent_misses, 0);
		pg_atomic_init_u32(&pager_shared->counters.too_small, 0);
		pager_shared->files_lock = &(GetNamedLWLockTranche("artrie_files"))[0].lock;
		pager_shared->vouch_lock = &(GetNamedLWLockTranche("artrie_files"))[1].lock;
		ConditionVariableInit(&pager_shared->ready_cv);
		pager_shared->partition_locks = GetNamedLWLockTranche("artrie_page_table");

		for (int i = 0; i < n; i++)
		{
			PagerFrame *f = &pager_shared->frames[i];

			pg_atomic_init_u32(&f->state, 0);
			f->flags = 0;
			f->fileslot = -1;
			f->pageno = ART_INVALID_PAGENO;
			LWLockInitialize(&f->content, pager_shared->content_tranche);
			ConditionVariableInit(&f->io_cv);
			pg_atomic_init_u32(&f->passers, 0);
			pg_atomic_init_u32(&f->split_marks, 0);
		}
		memset(pager_shared->files, 0, mul_size(pager_max_files, sizeof(PagerFileSlot)));
		for (int i = 0; i < pager_max_files; i++)
		{
			LWLockInitialize(&pager_shared->files[i].ckpt_lock, pager_shared->file_tranche);
			LWLockInitialize(&pager_shared->files[i].lock, pager_shared->file_tranche);
			LWLockInitialize(&pager_shared->files[i].gate, pager_shared->gate_tranche);
			LWLockInitialize(&pager_shared->files[i].writers, pager_shared->writers_tranche);
			LWLockInitialize(&pager_shared->files[i].splits, pager_shared->splits_tranche);
			pg_atomic_init_u32(&pager_shared->files[i].gate_closing, 0);
			pg_atomic_init_u32(&pager_shared->files[i].ckpt_copies, 0);
			pg_atomic_init_u32(&pager_shared->files[i].ckpt_written, 0);
			/* slots' versions apart: a process's merges key a memo by it */
			pg_atomic_init_u64(&pager_shared->files[i].version, (uint64) i << 48);
			pg_atomic_init_u64(&pager_shared->files[i].groups, 0);
			pg_atomic_init_u32(&pager_shared->files[i].users, 0);
			pg_atomic_init_u64(&pager_shared->files[i].last_used, 0);
			ConditionVariableInit(&pager_shared->files[i].gate_cv);
			ConditionVariableInit(&pager_shared->files[i].split_cv);
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
	LWLockRegisterTranche(pager_shared->gate_tranche, "artrie_file_gate");
	LWLockRegisterTranche(pager_shared->writers_tranche, "artrie_file_writers");
	LWLockRegisterTranche(pager_shared->splits_tranche, "artrie_file_splits");
	LWLockRegisterTranche(pager_shared->dsa_tranche, "artrie_page_map");
}

/*
 * Ask the kernel to back the 2 MB-aligned part of the private memory p
 * (size bytes) past its first small bytes with transparent huge pages.
 * For arrays written once front to back (the build's arena and items,
 * redo's batches): in a VM the first touch of every 4 kB page is a costly
 * fault (bench/README.md, "Build time" and "Crash recovery").  The first
 * small bytes stay in small pages, for a caller whose array often stays
 * short.  Without the advice, or with transparent huge pages off, the
 * memory is the same in small pages.
 */
void
pager_advise_huge(void *p, Size size, Size small)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	start = TYPEALIGN(PAGER_HUGE_PAGE, (uintptr_t) p + small);
	uintptr_t	end = TYPEALIGN_DOWN(PAGER_HUGE_PAGE, (uintptr_t) p + size);

	if (end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

/* Register the functions told of checkpoints and of recovery's end. */
void
pager_set_hooks(const PagerHooks *hooks)
{
	pager_hooks = *hooks;
}
