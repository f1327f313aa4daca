/*-------------------------------------------------------------------------
 *
 * pager_worker.c
 *	  The io worker: a background worker that serves the I/O queue and
 *	  runs checkpoints.
 *
 * It starts with the postmaster (before PostgreSQL's recovery, whose WAL
 * redo reads artrie's pages through it) and is restarted a second after
 * it dies.  Its loop serves I/O requests (src/io) and, between them, runs
 * a checkpoint of every file when PostgreSQL's redo pointer has moved (a
 * checkpoint or restartpoint began: the WAL before it may soon go), when
 * artrie.checkpoint_timeout has passed, when a backend asks (too many
 * dirty frames) and at shutdown.  What a pass after a redo pointer move
 * left undone (a file busy with another checkpoint, a pass that could not
 * list the files) it tries again a tenth of a second later, then at
 * doubling waits up to ten seconds (pager_checkpoint_retry), not at the
 * next move: a base backup that started there needs every file's image
 * or unchanged record after its start.  After SIGTERM it goes on serving I/O
 * until every process using artrie has exited (at most 30 s), then runs
 * its last checkpoint, trying each file again a few times, and exits
 * (pager_checkpoint_final).  Once backends may
 * connect (PostgreSQL's recovery is over, or a hot standby accepts
 * queries) it tells the WAL layer (pager_connections_allowed).  An
 * ERROR in a checkpoint is logged and the loop goes on.  At its start it
 * removes the note that the cluster stopped with every change in its
 * files (pager_adopt_forget_clean), reports the indexes that a
 * pg_upgrade left without files (pager_report_upgrade) and the UNLOGGED
 * indexes' files that the last shutdown did not write whole
 * (pager_report_unlogged); at pg_upgrade's
 * stop of the cluster it writes that note again if its last checkpoint
 * left nothing to write (pager_adopt_note_clean).  Between requests it
 * watches the pool's misses (pager_pool_watch).
 *
 * Layer: the top of the pager's calls below its setup (pager.c, which
 * registers the worker).  Calls checkpoints (pager_checkpoint,
 * pager_checkpoint_retry, pager_checkpoint_final,
 * pager_connections_allowed), the sweep
 * (pager_sweep_tick), the file table (pager_is_ready,
 * pager_report_upgrade, pager_report_unlogged), pg_upgrade's note
 * (pager_adopt.c), the pool
 * (this process's setup, dropping pins after an ERROR, the pool's watch,
 * pager_users) and src/io.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "pager/pager_adopt.h"
#include "pager/pager_checkpoint.h"
#include "pager/pager_ckpt_gate.h"
#include "pager/pager_file.h"
#include "pager/pager_pool.h"
#include "pager/pager_sweep.h"
#include "pager/pager_worker.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void artrie_io_worker_main(Datum main_arg);

/* How often the loop looks whether PostgreSQL's redo pointer moved. */
#define PAGER_REDO_POLL_MS	20

/*
 * What a checkpoint pass after a redo pointer move left undone is tried
 * again this long after, the wait doubling up to the longest while tries
 * fail.
 */
#define PAGER_RETRY_FIRST_MS	100
#define PAGER_RETRY_LONGEST_MS	10000

/* How long the io worker waits at shutdown for artrie's users to exit. */
#define PAGER_SHUTDOWN_WAIT_MS	30000

static volatile sig_atomic_t shutdown_requested = false;

/*
 * Register the io worker (from _PG_init, in the postmaster).
 */
void
pager_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "artrie", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "artrie_io_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "artrie io worker", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "artrie io worker", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * SIGTERM: checkpoint, then exit.
 */
static void
worker_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	shutdown_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * Milliseconds from now until the next timed checkpoint.
 */
static long
worker_timeout(TimestampTz last)
{
	TimestampTz due = TimestampTzPlusMilliseconds(last, (int64) pager_checkpoint_timeout * 1000);
	long		ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), due);

	return Max(ms, 0);
}

/*
 * At shutdown: whether the last checkpoint may run.  PostgreSQL sends
 * SIGTERM to backends and to this worker at once, and backends may still
 * change pages until they exit, so the worker serves I/O until every
 * process using artrie has exited (pager_users), or for at most
 * PAGER_SHUTDOWN_WAIT_MS; *since is when it began waiting.
 */
static bool
worker_may_stop(TimestampTz *since)
{
	uint32		users = pager_users();

	if (*since == 0)
		*since = GetCurrentTimestamp();
	if (users == 0)
		return true;
	if (!TimestampDifferenceExceeds(*since, GetCurrentTimestamp(),
									PAGER_SHUTDOWN_WAIT_MS))
		return false;
	ereport(WARNING,
			(errmsg("artrie: %u processes still use artrie after %d s of shutdown",
					users, PAGER_SHUTDOWN_WAIT_MS / 1000),
			 errdetail("UNLOGGED indexes used in this run stay marked in use: they are refused at the next start until REINDEX.")));
	return true;
}

/*
 * The io worker's entry point.
 */
void
artrie_io_worker_main(Datum main_arg)
{
	sigjmp_buf	local_sigjmp_buf;
	MemoryContext ckpt_cxt;
	TimestampTz last_ckpt;
	volatile bool final_done = false;
	volatile bool recovery_seen = false;
	volatile TimestampTz shutdown_since = 0;
	volatile XLogRecPtr last_redo;
	volatile TimestampTz retry_at = 0;
	volatile int retry_ms = PAGER_RETRY_FIRST_MS;
	volatile bool in_pass = false;

	pqsignal(SIGTERM, worker_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	ckpt_cxt = AllocSetContextCreate(TopMemoryContext, "artrie checkpoint",
									 ALLOCSET_DEFAULT_SIZES);
	pager_backend_init(true);
	io_worker_start();
	pager_shared->worker_latch = MyLatch;

	last_ckpt = GetCurrentTimestamp();
	last_redo = GetRedoRecPtr();

	/*
	 * No pass is made at the redo pointer of this worker's start (a worker
	 * started again after one that died finds it already moved): no
	 * checkpoint waits for one.
	 */
	pager_ckpt_gate_pass_done(last_redo);
	pager_adopt_forget_clean();
	pager_report_upgrade();
	pager_report_unlogged();

	if (sigsetjmp(local_sigjmp_buf, 1) != 0)
	{
		error_context_stack = NULL;
		HOLD_INTERRUPTS();
		EmitErrorReport();
		LWLockReleaseAll();
		ConditionVariableCancelSleep();
		pager_release_all();
		MemoryContextSwitchTo(TopMemoryContext);
		FlushErrorState();
		MemoryContextReset(ckpt_cxt);
		RESUME_INTERRUPTS();
		last_ckpt = GetCurrentTimestamp();
		/* A failed pass must not hold PostgreSQL's checkpoint. */
		if (in_pass)
		{
			in_pass = false;
			pager_ckpt_gate_pass_done(last_redo);
		}
	}
	PG_exception_stack = &local_sigjmp_buf;

	for (;;)
	{
		bool		due;
		bool		restamp;

		if (shutdown_requested &&
			(final_done || worker_may_stop((TimestampTz *) &shutdown_since)))
		{
			if (!final_done)
			{
				final_done = true;
				MemoryContextSwitchTo(ckpt_cxt);
				pager_checkpoint_final(pager_users() == 0);
				pager_adopt_note_clean();
				MemoryContextSwitchTo(TopMemoryContext);
			}
			pager_shared->worker_latch = NULL;
			io_worker_stop();
			proc_exit(0);
		}
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		if (!recovery_seen && (!RecoveryInProgress() || HotStandbyActive()))
		{
			MemoryContextSwitchTo(ckpt_cxt);
			pager_connections_allowed();
			MemoryContextSwitchTo(TopMemoryContext);
			MemoryContextReset(ckpt_cxt);
			recovery_seen = true;
		}

		io_worker_serve(Min(worker_timeout(last_ckpt), PAGER_REDO_POLL_MS));
		pager_sweep_tick();
		if (pg_atomic_exchange_u32(&pager_shared->slots_wanted, 0) != 0)
		{
			MemoryContextSwitchTo(ckpt_cxt);
			pager_close_idle_files();
			MemoryContextSwitchTo(TopMemoryContext);
			MemoryContextReset(ckpt_cxt);
		}
		pager_pool_watch();

		due = worker_timeout(last_ckpt) == 0;
		restamp = false;
		if (GetRedoRecPtr() != last_redo && pager_is_ready())
		{
			last_redo = GetRedoRecPtr();
			due = restamp = true;
		}
		if (due || pg_atomic_read_u32(&pager_shared->ckpt_requested) != 0)
		{
			in_pass |= restamp;
			MemoryContextSwitchTo(ckpt_cxt);
			pager_checkpoint(restamp);
			MemoryContextSwitchTo(TopMemoryContext);
			MemoryContextReset(ckpt_cxt);
			last_ckpt = GetCurrentTimestamp();
			if (restamp)
			{
				retry_ms = PAGER_RETRY_FIRST_MS;
				retry_at = TimestampTzPlusMilliseconds(last_ckpt, retry_ms);
			}
		}
		else if (pager_checkpoint_pending() && GetCurrentTimestamp() >= retry_at)
		{
			retry_ms = Min(retry_ms * 2, PAGER_RETRY_LONGEST_MS);
			retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), retry_ms);
			MemoryContextSwitchTo(ckpt_cxt);
			pager_checkpoint_retry();
			MemoryContextSwitchTo(TopMemoryContext);
			MemoryContextReset(ckpt_cxt);
		}

		/*
		 * The pass at last_redo is done once it left nothing to try again
		 * (or failed, above): the checkpoint gate may let PostgreSQL's
		 * checkpoint at that redo pointer go on.
		 */
		if (in_pass && !pager_checkpoint_pending())
		{
			in_pass = false;
			pager_ckpt_gate_pass_done(last_redo);
		}
	}
}
