/*-------------------------------------------------------------------------
 *
 * wal_conflict.c
 *	  Recovery conflicts between redo of a bulk delete and hot standby
 *	  scans that may still return an entry it removed.
 *
 * On the primary, a bulk delete waits for the scan holds on its file
 * before it returns (pager_hold.c), so the heap frees no TID that an
 * index-only scan may still return with its old key.  On a hot standby
 * the same deletions arrive as WAL, followed by a vacuum record and then
 * by the heap's records that free the TIDs and set the visibility map's
 * bits.  Redo of the vacuum record is the standby's interlock, as the
 * cleanup lock on each btree leaf page is for btree: it waits for the
 * holds on the file that are older than the deletions, and, as
 * ResolveRecoveryConflictWithBufferPin does, no longer than
 * max_standby_streaming_delay (max_standby_archive_delay for WAL read
 * from the archive or pg_wal) after the WAL was received; -1 waits
 * forever.  Then it cancels the transactions that still hold them with
 * PostgreSQL's recovery conflict signal for a snapshot conflict (the
 * query needed rows that are being removed), which cancels the query, or
 * ends the session of one idle in its transaction block or inside a
 * subtransaction, as for any recovery conflict.  A holder waiting for a
 * lock (which the startup process may hold) is told of a possible
 * deadlock after deadlock_timeout.  Nothing else is waited for: every
 * scan that read its batch after the deletions were applied holds a
 * later epoch.
 *
 * Layer: the WAL layer's redo (wal_redo.c) calls it; it calls the pager's
 * scan holds and PostgreSQL's recovery conflict machinery.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlogrecovery.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/startup.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/standby.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "wal/wal_internal.h"

/* How often the wait looks at the holds again, in milliseconds. */
#define CONFLICT_POLL_MS	10

/* How often a holder that was signalled and holds on is signalled again. */
#define CONFLICT_RESIGNAL_MS	500

/*
 * When the wait for standby queries must end, as PostgreSQL's own
 * GetStandbyLimitTime: the last WAL receipt plus the delay for where the
 * WAL came from; 0 for a delay of -1 (wait forever).
 */
static TimestampTz
conflict_limit_time(void)
{
	TimestampTz rtime;
	bool		fromStream;
	int			delay;

	GetXLogReceiptTime(&rtime, &fromStream);
	delay = fromStream ? max_standby_streaming_delay : max_standby_archive_delay;
	if (delay < 0)
		return 0;
	return TimestampTzPlusMilliseconds(rtime, delay);
}

/* Send reason to each of the n transactions in vxids. */
static void
conflict_signal(VirtualTransactionId *vxids, int n, ProcSignalReason reason)
{
	for (int i = 0; i < n; i++)
		if (VirtualTransactionIdIsValid(vxids[i]))
			(void) CancelVirtualTransaction(vxids[i], reason);
}

/*
 * Redo of a vacuum record of file: on a hot standby, wait until no query
 * may still return an entry that the records before it removed, and
 * cancel the queries that hold on past the standby delay.
 */
void
wal_conflict_vacuum(const ArtFileId *file)
{
	static VirtualTransactionId *vxids = NULL;
	uint64		epoch;
	TimestampTz limit;
	TimestampTz start;
	TimestampTz last_cancel = 0;
	bool		deadlock_checked = false;
	bool		waited = false;
	int			n;

	if (!InHotStandby || !AmStartupProcess())
		return;
	if (vxids == NULL)
		vxids = MemoryContextAlloc(TopMemoryContext,
								   sizeof(VirtualTransactionId) *
								   pager_hold_max_blockers());

	epoch = pager_hold_advance();
	limit = conflict_limit_time();
	start = GetCurrentTimestamp();
	while ((n = pager_hold_blockers(file, epoch, vxids)) > 0)
	{
		TimestampTz now = GetCurrentTimestamp();

		if (limit != 0 && now >= limit &&
			(last_cancel == 0 ||
			 TimestampDifferenceExceeds(last_cancel, now, CONFLICT_RESIGNAL_MS)))
		{
			conflict_signal(vxids, n, PROCSIG_RECOVERY_CONFLICT_SNAPSHOT);
			last_cancel = now;
		}
		else if (!deadlock_checked &&
				 TimestampDifferenceExceeds(start, now, DeadlockTimeout))
		{
			conflict_signal(vxids, n, PROCSIG_RECOVERY_CONFLICT_STARTUP_DEADLOCK);
			deadlock_checked = true;
		}
		waited = true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 CONFLICT_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
#if PG_VERSION_NUM >= 180000
		ProcessStartupProcInterrupts();
#else
		HandleStartupProcInterrupts();
#endif
	}
	if (waited && log_recovery_conflict_waits)
		ereport(LOG,
				(errmsg("artrie: recovery waited %ld ms for standby scans of file \"artrie/%u/%u.%u\"%s",
						(long) ((GetCurrentTimestamp() - start) / 1000),
						file->dbOid, file->relNumber, file->generation,
						last_cancel != 0 ? ", and canceled those past the standby delay" : "")));
}
