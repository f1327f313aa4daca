/*-------------------------------------------------------------------------
 *
 * pager_timeline.c
 *	  Where a checkpoint that starts now stands in PostgreSQL's WAL: its
 *	  position, the end of the WAL, the timeline its position is on, and
 *	  whether a position on a timeline belongs to this server's history.
 *
 * A checkpoint's position (pager_redo_now) is where redo of the file it
 * leaves may start: the WAL insert position or, in recovery, the replay
 * position or the first record that redo holds back (pager_hold_redo).
 *
 * A checkpoint's meta page records the WAL position its image is complete
 * up to (redo_lsn, taken while no change of the file can be made, so the
 * image holds exactly the changes logged before it) and the timeline that
 * position is on.  The image agrees with this server's history if that
 * timeline is in it and the history did not leave the timeline before
 * redo_lsn.  Otherwise the file may hold changes of WAL that this server
 * never had (those of a former primary, written after the standby that is
 * now the primary was promoted), which no redo here would undo: such a
 * file is refused.  Files written before the timeline was recorded carry
 * timeline 0 and are not checked.
 *
 * This server's history is that of the timeline it writes WAL on or, in
 * recovery, of the one recovery heads for: the startup process knows it
 * (recoveryTargetTLI); another process takes the timeline being replayed,
 * or with recovery_target_timeline = 'latest' the newest one whose
 * history file pg_wal holds.
 *
 * Layer: a leaf of the pager, over PostgreSQL's timeline history.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_internal.h"

#include "access/timeline.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* This process's copy of the history of history_tli. */
static List *history = NIL;
static TimeLineID history_tli = 0;

/*
 * Where a checkpoint that starts now begins: every WAL record that starts
 * before it describes a change already made to the pages (changes are
 * logged after they are made), so redo of a file it leaves may start
 * there.  In recovery, the end of the last record replayed, or the first
 * record that redo holds back (pager_hold_redo) if that is earlier.  The
 * replay position is read first: redo holds a record back before the
 * replay position passes it.
 */
XLogRecPtr
pager_redo_now(void)
{
	XLogRecPtr	now;
	XLogRecPtr	held;

	if (!RecoveryInProgress())
		return GetXLogInsertRecPtr();
	now = GetXLogReplayRecPtr(NULL);
	held = pg_atomic_read_u64(&pager_shared->redo_held);
	if (!XLogRecPtrIsInvalid(held) && held < now)
		return held;
	return now;
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
 * The timeline of the WAL position a checkpoint that starts now begins at
 * (pager_redo_now): the one WAL is written on or, in recovery, replayed.
 */
TimeLineID
pager_timeline_now(void)
{
	TimeLineID	tli;

	if (!RecoveryInProgress())
		return GetWALInsertionTimeLine();
	(void) GetXLogReplayRecPtr(&tli);
	return tli;
}

/* The timeline whose history is this server's (see the head comment). */
static TimeLineID
server_timeline(void)
{
	TimeLineID	tli;

	if (!RecoveryInProgress())
		return GetWALInsertionTimeLine();
	if (AmStartupProcess() && recoveryTargetTLI != 0)
		return recoveryTargetTLI;
	(void) GetXLogReplayRecPtr(&tli);
	if (recoveryTargetTimeLineGoal == RECOVERY_TARGET_TIMELINE_LATEST)
		tli = findNewestTimeLine(tli);
	else if (recoveryTargetTimeLineGoal == RECOVERY_TARGET_TIMELINE_NUMERIC)
		tli = Max(tli, recoveryTargetTLIRequested);
	return tli;
}

/* The history of timeline tli, newest timeline first. */
static List *
server_history(TimeLineID tli)
{
	if (tli != history_tli)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		List	   *h = readTimeLineHistory(tli);

		MemoryContextSwitchTo(old);
		list_free_deep(history);
		history = h;
		history_tli = tli;
	}
	return history;
}

/*
 * Whether a checkpoint at lsn on timeline tli agrees with this server's
 * history.  *server_tli is the timeline whose history that is; *left_at
 * where the history left tli for a later timeline (invalid if it did not,
 * or if tli is not in it).
 */
bool
pager_timeline_agrees(TimeLineID tli, XLogRecPtr lsn, TimeLineID *server_tli,
					  XLogRecPtr *left_at)
{
	ListCell   *cell;

	*server_tli = server_timeline();
	*left_at = InvalidXLogRecPtr;
	if (tli == 0)
		return true;
	foreach(cell, server_history(*server_tli))
	{
		TimeLineHistoryEntry *tle = (TimeLineHistoryEntry *) lfirst(cell);

		if (tle->tli == tli)
		{
			*left_at = tle->end;
			return XLogRecPtrIsInvalid(tle->end) || lsn <= tle->end;
		}
	}
	return false;
}
