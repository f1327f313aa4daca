/*-------------------------------------------------------------------------
 *
 * pager_ckpt_gate.c
 *	  The checkpoint gate: a background worker that holds PostgreSQL's
 *	  checkpoints until the io worker's checkpoint pass at their redo
 *	  pointer is done.
 *
 * A base backup starts at the redo pointer R of the checkpoint that
 * pg_backup_start() (or pg_basebackup) waits for, and restores an artrie
 * file only if its WAL holds the file's image, or an unchanged record,
 * logged after R: the io worker's pass after the redo pointer moved logs
 * them (pager_checkpoint), beside PostgreSQL's checkpoint.  A backup that
 * ended before that pass would restore with the index refused.  So the
 * gate makes PostgreSQL's checkpoint wait for the pass, by PostgreSQL's
 * own means for work that must end before a checkpoint goes on past its
 * redo pointer: CreateCheckPoint, once it has set R, lists the virtual
 * transactions whose process has DELAY_CHKPT_START set and sleeps until
 * none of them has it any more.  The io worker is not in the ProcArray
 * (it runs from the postmaster's start, through recovery), so this worker,
 * connected to no database and never in a transaction, holds the flag:
 *
 * - it claims: it takes a fresh local transaction id into MyProc->lxid
 *	 and sets DELAY_CHKPT_START, then reads R;
 * - it releases the claim by claiming anew: under ProcArrayLock held
 *	 exclusive, so that no checkpointer lists it meanwhile, it reads the
 *	 redo pointer and, if the io worker has said that its pass at that
 *	 pointer is done (pager_ckpt_gate_pass_done) and either the pointer
 *	 moved since the claim or PAGER_GATE_RECLAIM_MS passed since it, takes
 *	 a new local transaction id, the flag staying set: a checkpointer
 *	 waiting on the old id goes on, and one that lists the process from
 *	 then on waits on the new one.
 *
 * A checkpointer that lists a claim set R before it, and R cannot move
 * again while that checkpointer waits.  A claim is swapped only while it
 * cannot be listed, after reading the redo pointer: R, if a checkpointer
 * listed it before; so the claim is released at the io worker's pass at
 * R, or PAGER_GATE_RECLAIM_MS after the claim if that pass was already
 * done, never at a later move.  (Clearing the flag and setting it again
 * would leave a moment in which a checkpointer lists no claim at all.)
 * The io worker says a pass is done once every file has its image or
 * unchanged record after R (files a backend's own checkpoint kept busy are
 * tried again first), or when the pass failed (its ERROR is logged: a
 * failing image must not stop PostgreSQL's checkpoints).  The gate holds
 * nothing while the io worker is not running or not ready, in recovery
 * (the worker starts once recovery is over), nor once a hold reached
 * artrie.checkpoint_gate_timeout: it then says in a WARNING that the
 * checkpoint went on without artrie's images, and claims again only when
 * the io worker has caught up.  The io worker's pass waits for nothing the checkpointer
 * does meanwhile (it sleeps, holding no lock), and at shutdown the
 * postmaster stops this worker before the shutdown checkpoint.
 *
 * Layer: pager.  Reads the pager's shared state (pager_is_ready, the io
 * worker's latch); the io worker calls pager_ckpt_gate_pass_done.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_ckpt_gate.h"
#include "pager/pager_internal.h"
#include "pager/pager_redo.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/sinvaladt.h"
#include "tcop/tcopprot.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void artrie_ckpt_gate_main(Datum main_arg);

/* A claim whose pass was done already is released this long after. */
#define PAGER_GATE_RECLAIM_MS	100

/* How often the gate looks, latch or not. */
#define PAGER_GATE_LOOK_MS		100

static bool holding = false;
static XLogRecPtr claim_redo = InvalidXLogRecPtr;
static TimestampTz claim_at = 0;

/*
 * Register the gate (from _PG_init, in the postmaster).
 */
void
pager_register_ckpt_gate(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "artrie", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "artrie_ckpt_gate_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "artrie checkpoint gate", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "artrie checkpoint gate", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * In the io worker: its pass at redo pointer redo is done (or failed);
 * wake the gate.
 */
void
pager_ckpt_gate_pass_done(XLogRecPtr redo)
{
	Latch	   *gate = pager_shared->gate_latch;

	pg_atomic_write_u64(&pager_shared->pass_done_redo, redo);
	if (gate)
		SetLatch(gate);
}

/*
 * Claim: a checkpoint whose redo pointer is set from now on waits until
 * the release.  The new local transaction id comes before the flag, so
 * that no checkpointer lists the flag with the last claim's id.
 */
static void
gate_claim(void)
{
	MyProc->lxid = GetNextLocalTransactionId();
	pg_write_barrier();
	MyProc->delayChkptFlags |= DELAY_CHKPT_START;
	pg_memory_barrier();
	claim_redo = GetRedoRecPtr();
	claim_at = GetCurrentTimestamp();
	holding = true;
}

/*
 * Release the claim and claim anew, if the io worker's pass at the redo
 * pointer is done and the pointer moved since the claim or since is at
 * least PAGER_GATE_RECLAIM_MS; under ProcArrayLock, so that a checkpointer
 * that listed the claim set its redo pointer before this reads it.
 * Whether it did.
 */
static bool
gate_swap(long since)
{
	XLogRecPtr	redo;
	bool		swap;

	LWLockAcquire(ProcArrayLock, LW_EXCLUSIVE);
	redo = GetRedoRecPtr();
	swap = pg_atomic_read_u64(&pager_shared->pass_done_redo) == redo &&
		(redo != claim_redo || since >= PAGER_GATE_RECLAIM_MS);
	if (swap)
	{
		MyProc->lxid = GetNextLocalTransactionId();
		claim_redo = redo;
	}
	LWLockRelease(ProcArrayLock);
	if (swap)
		claim_at = GetCurrentTimestamp();
	return swap;
}

/*
 * Release: checkpoints waiting on the claim go on.
 */
static void
gate_release(void)
{
	MyProc->delayChkptFlags &= ~DELAY_CHKPT_START;
	holding = false;
}

/*
 * At exit: release, and be no transaction any more.
 */
static void
gate_exit(int code, Datum arg)
{
	gate_release();
	MyProc->lxid = InvalidLocalTransactionId;
	pager_shared->gate_latch = NULL;
}

/*
 * Whether the gate may hold checkpoints: the io worker runs, artrie's
 * files are ready, and this server is not in recovery.
 */
static bool
gate_may_hold(void)
{
	return pager_shared->worker_latch != NULL && pager_is_ready() &&
		!RecoveryInProgress();
}

/*
 * The gate's entry point.
 */
void
artrie_ckpt_gate_main(Datum main_arg)
{
	TimestampTz behind_since = 0;
	bool		gave_up = false;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	before_shmem_exit(gate_exit, 0);
	pager_shared->gate_latch = MyLatch;

	for (;;)
	{
		XLogRecPtr	redo = GetRedoRecPtr();
		XLogRecPtr	done = pg_atomic_read_u64(&pager_shared->pass_done_redo);
		TimestampTz now = GetCurrentTimestamp();
		long		wait_ms = PAGER_GATE_LOOK_MS;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		if (done == redo)
		{
			behind_since = 0;
			gave_up = false;
		}
		else if (behind_since == 0)
			behind_since = now;

		if (gave_up || !gate_may_hold())
		{
			if (holding)
				gate_release();
		}
		else if (!holding)
			gate_claim();
		else if (done == redo)
		{
			long		since = TimestampDifferenceMilliseconds(claim_at, now);

			if (!gate_swap(since))
				wait_ms = Max(PAGER_GATE_RECLAIM_MS - since, 1);
		}
		else if (TimestampDifferenceExceeds(behind_since, now,
											pager_checkpoint_gate_timeout))
		{
			ereport(WARNING,
					(errmsg("artrie: PostgreSQL's checkpoint at %X/%X goes on without artrie's checkpoint images after %d ms",
							LSN_FORMAT_ARGS(redo), pager_checkpoint_gate_timeout),
					 errdetail("The io worker has not logged every changed artrie file's image since that redo pointer. A base backup that started there restores such indexes only if its WAL reaches their images; otherwise they are refused until REINDEX."),
					 errhint("Look in the log for the io worker's errors, or raise artrie.checkpoint_gate_timeout if its passes are only slow. Take base backups again once its checkpoint pass has caught up.")));
			gave_up = true;
			gate_release();
		}

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
