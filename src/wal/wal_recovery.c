/*-------------------------------------------------------------------------
 *
 * wal_recovery.c
 *	  Which WAL artrie's files need at start, keeping it, and replaying it.
 *
 * PostgreSQL's checkpoints do not write artrie's pages, yet they move the
 * redo pointer past artrie's records: crash recovery would begin after
 * changes that artrie's files lack.  So:
 *
 *	- after every checkpoint of all files (pager_checkpoint, which the io
 *	  worker runs whenever PostgreSQL's redo pointer moves) artrie writes
 *	  its control file, $PGDATA/artrie/control (wal_control.c), with the
 *	  position from which its files need WAL (replay_from: every change
 *	  logged before it is in the files), and moves its replication slot
 *	  ("artrie") there, so that PostgreSQL keeps that WAL;
 *	- at the start of PostgreSQL's redo (rm_startup), artrie first replays
 *	  its own records in [replay_from, PostgreSQL's redo pointer) from
 *	  pg_wal, then PostgreSQL's redo applies the rest in order.  If
 *	  PostgreSQL replays nothing (a clean shutdown), the io worker does the
 *	  same once PostgreSQL's recovery is over, before any backend may use
 *	  a file.
 *
 * Files that cannot be proven current are refused (pager_set_min_redo):
 * when the WAL artrie needs is gone (the slot was dropped or invalidated),
 * every file whose last checkpoint began before PostgreSQL's redo pointer;
 * when the data directory was restored from a base backup (pg_control
 * names a backup start), every file whose last checkpoint began before
 * the backup's start, since the backup holds no WAL before it and the
 * file may have been copied before artrie's next checkpoint, unless the
 * WAL replayed shows that the file had no change from that checkpoint on
 * (an unchanged record, logged when the io worker's checkpoint, which
 * follows the redo pointer, finds a file unchanged, open or closed).  The
 * control file keeps that bound, and the cluster's system identifier: a
 * control file or data file of another cluster is not trusted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/timeline.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "access/xlogrecovery.h"
#include "access/xlogutils.h"
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "replication/slot.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "wal/wal_internal.h"

WalShared  *wal_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static uint64 wal_retained_bytes(void);
static void slot_keep(XLogRecPtr redo);
static bool recover_begin(void);
static void recover_files(bool in_startup);

/* The timeline history the replay reader follows, newest first. */
static List *reader_history = NIL;

/*
 * Open WAL segment segno for the replay reader, following the timeline
 * history as PostgreSQL's recovery does: of the timelines that began at
 * or before the segment, the newest whose segment pg_wal has.
 */
static void
reader_segment_open(XLogReaderState *state, XLogSegNo segno, TimeLineID *tli_p)
{
	char		path[MAXPGPATH];
	ListCell   *cell;

	foreach(cell, reader_history)
	{
		TimeLineHistoryEntry *tle = (TimeLineHistoryEntry *) lfirst(cell);

		if (!XLogRecPtrIsInvalid(tle->begin))
		{
			XLogSegNo	beginseg;

			XLByteToSeg(tle->begin, beginseg, state->segcxt.ws_segsize);
			if (segno < beginseg)
				continue;
		}
		XLogFilePath(path, tle->tli, segno, state->segcxt.ws_segsize);
		state->seg.ws_file = BasicOpenFile(path, O_RDONLY | PG_BINARY);
		if (state->seg.ws_file >= 0)
		{
			*tli_p = tle->tli;
			return;
		}
		if (errno != ENOENT)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", path)));
	}
	XLogFilePath(path, *tli_p, segno, state->segcxt.ws_segsize);
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FILE),
			 errmsg("WAL segment \"%s\" that artrie needs has been removed", path)));
}

/*
 * Read one WAL page for the replay reader, from the segment open already
 * if the page is in it.
 */
static int
reader_page_read(XLogReaderState *state, XLogRecPtr page, int reqlen,
				 XLogRecPtr target, char *buf)
{
	WALReadError errinfo;
	TimeLineID	tli = ((TimeLineHistoryEntry *) linitial(reader_history))->tli;

	if (state->seg.ws_file >= 0 &&
		XLByteInSeg(page, state->seg.ws_segno, state->segcxt.ws_segsize))
		tli = state->seg.ws_tli;
	if (!WALRead(state, buf, page, XLOG_BLCKSZ, tli, &errinfo))
		WALReadRaiseError(&errinfo);
	return XLOG_BLCKSZ;
}

/*
 * Apply artrie's records in [from, to) from pg_wal, entry records in
 * batches (no backend may use a file before recovery is done).  Returns
 * false if that WAL is not all there (the reason is logged).
 */
static bool
replay_window(XLogRecPtr from, XLogRecPtr to, TimeLineID tli)
{
	XLogReaderState *reader;
	XLogRecPtr	first;
	uint64		applied = 0;
	TimestampTz start = GetCurrentTimestamp();
	volatile bool ok = true;

	reader_history = readTimeLineHistory(tli);
	reader = XLogReaderAllocate(wal_segment_size, NULL,
								XL_ROUTINE(.page_read = reader_page_read,
										   .segment_open = reader_segment_open,
										   .segment_close = wal_segment_close),
								NULL);
	if (reader == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));

	PG_TRY();
	{
		first = XLogFindNextRecord(reader, from);
		if (XLogRecPtrIsInvalid(first))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FILE),
					 errmsg("could not find a valid WAL record at %X/%X",
							LSN_FORMAT_ARGS(from))));
		XLogBeginRead(reader, first);
		for (;;)
		{
			char	   *errormsg = NULL;
			XLogRecord *rec = XLogReadRecord(reader, &errormsg);

			if (rec == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_FILE),
						 errmsg("could not read WAL at %X/%X: %s",
								LSN_FORMAT_ARGS(reader->EndRecPtr),
								errormsg ? errormsg : "end of WAL")));
			if (reader->ReadRecPtr >= to)
				break;
			if (XLogRecGetRmid(reader) == ARTRIE_RMGR_ID)
			{
				wal_apply(XLogRecGetInfo(reader) & WAL_ARTRIE_INFO_MASK,
						  XLogRecGetData(reader), XLogRecGetDataLen(reader),
						  reader->ReadRecPtr, true);
				applied++;
			}
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_UNDEFINED_FILE)
			PG_RE_THROW();
		FlushErrorState();
		ereport(WARNING,
				(errmsg("artrie cannot replay the WAL from %X/%X to %X/%X: %s",
						LSN_FORMAT_ARGS(from), LSN_FORMAT_ARGS(to),
						edata->message),
				 errdetail("Indexes whose files were last checkpointed before %X/%X will be refused until REINDEX.",
						   LSN_FORMAT_ARGS(to))));
		ok = false;
	}
	PG_END_TRY();
	XLogReaderFree(reader);
	list_free_deep(reader_history);
	reader_history = NIL;
	wal_batch_flush();
	wal_batch_report();
	wal_redo_forget();

	if (ok)
		ereport(LOG,
				(errmsg("artrie replayed %llu WAL records from %X/%X to %X/%X in %.3f s",
						(unsigned long long) applied, LSN_FORMAT_ARGS(from),
						LSN_FORMAT_ARGS(to),
						(double) (GetCurrentTimestamp() - start) / 1000000.0)));
	return ok;
}

/*
 * Bring artrie's files up to PostgreSQL's redo pointer: from the startup
 * process before PostgreSQL's redo (in_startup), or from the io worker
 * when PostgreSQL replayed nothing before letting backends in (a clean
 * shutdown; a standby that has received nothing yet).  Then files may be
 * used.  Whichever comes first does it; the other waits until it is done.
 * No LWLock is held meanwhile: a record redo cannot apply is caught, and
 * the catch releases every LWLock.
 */
void
wal_recover(bool in_startup)
{
	if (!recover_begin())
		return;
	PG_TRY();
	{
		recover_files(in_startup);
	}
	PG_CATCH();
	{
		SpinLockAcquire(&wal_shared->mutex);
		wal_shared->recovering = false;
		SpinLockRelease(&wal_shared->mutex);
		ConditionVariableBroadcast(&wal_shared->recovered_cv);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * Whether this process is to run recovery: false once it is done, and
 * while another process runs it, wait for that.
 */
static bool
recover_begin(void)
{
	bool		mine = false;

	ConditionVariablePrepareToSleep(&wal_shared->recovered_cv);
	for (;;)
	{
		SpinLockAcquire(&wal_shared->mutex);
		if (!wal_shared->recovered && !wal_shared->recovering)
			wal_shared->recovering = mine = true;
		if (wal_shared->recovered || mine)
		{
			SpinLockRelease(&wal_shared->mutex);
			break;
		}
		SpinLockRelease(&wal_shared->mutex);
		ConditionVariableSleep(&wal_shared->recovered_cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return mine;
}

/* wal_recover's work, in the one process that runs it. */
static void
recover_files(bool in_startup)
{
	ControlFileData *pgctl;
	bool		crc_ok;
	XLogRecPtr	redo;
	XLogRecPtr	replay_from;
	XLogRecPtr	min_redo;
	bool		from_backup;
	TimeLineID	tli;

	pgctl = get_controlfile(DataDir, &crc_ok);
	if (!crc_ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("artrie could not read pg_control: bad checksum")));
	redo = pgctl->checkPointCopy.redo;
	tli = pgctl->checkPointCopy.ThisTimeLineID;
	from_backup = !XLogRecPtrIsInvalid(pgctl->backupStartPoint);
	pfree(pgctl);
	wal_shared->from_backup = from_backup;

	wal_control_load(redo, &replay_from, &min_redo);

	/*
	 * Every file served here is vouched for whenever PostgreSQL's redo
	 * pointer moves, and replay_from never moves past where a file is
	 * current (its last checkpoint, or the vouch list's position for it;
	 * pager_checkpoint): a file current only from before replay_from is a
	 * copy of it put back from earlier, which lacks changes that the WAL
	 * replayed here does not bring.  Not so in a base
	 * backup, whose copy of the control file may be newer than its copies
	 * of the files (below).
	 */
	if (!from_backup)
		min_redo = Max(min_redo, replay_from);

	/* Replay skips the records of files refused already. */
	pager_set_min_redo(min_redo);
	if (from_backup)
	{
		/* The backup holds no WAL before its start. */
		min_redo = Max(min_redo, redo);
		replay_from = redo;
		ereport(LOG,
				(errmsg("artrie: starting from a base backup; indexes whose files were last checkpointed before %X/%X, unless the backup's WAL shows them unchanged since, will be refused until REINDEX",
						LSN_FORMAT_ARGS(redo))));
	}
	else if (replay_from < redo && !replay_window(replay_from, redo, tli))
	{
		min_redo = Max(min_redo, redo);
		replay_from = redo;
	}

	/*
	 * The control file keeps the bound; replay_from moves only once a
	 * checkpoint has made what was replayed durable.
	 */
	wal_control_write(replay_from, min_redo);
	pager_set_min_redo(min_redo);

	/*
	 * The slot keeps the WAL from replay_from before any checkpoint runs:
	 * one restored with the data directory may point before the WAL here,
	 * and the end-of-recovery checkpoint would invalidate it.
	 */
	LWLockAcquire(wal_shared->control_lock, LW_EXCLUSIVE);
	slot_keep(replay_from);
	LWLockRelease(wal_shared->control_lock);
	pager_forget_files_before(min_redo);
	pager_set_replay_from(replay_from);
	pager_set_ready(RecoveryInProgress() ? GetXLogReplayRecPtr(NULL) : InvalidXLogRecPtr);
	SpinLockAcquire(&wal_shared->mutex);
	wal_shared->recovered = true;
	wal_shared->recovering = false;
	SpinLockRelease(&wal_shared->mutex);
	ConditionVariableBroadcast(&wal_shared->recovered_cv);
	if (!in_startup)
		ereport(DEBUG1,
				(errmsg_internal("artrie: files brought up to %X/%X by the io worker",
								 LSN_FORMAT_ARGS(redo))));
}

/*
 * In the io worker, once backends may connect: if PostgreSQL's redo did
 * not run artrie's recovery (it has replayed nothing), run it now.
 */
void
wal_connections_allowed(void)
{
	wal_recover(false);
}

/*
 * Point artrie's slot at redo, creating it if need be, so that PostgreSQL
 * keeps the WAL from there.  A slot that cannot be kept is reported in
 * artrie_stats() and the log, once per reason.
 */
static void
slot_keep(XLogRecPtr redo)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (max_replication_slots == 0 || wal_level < WAL_LEVEL_REPLICA)
	{
		if (wal_shared->slot_ok || wal_shared->slot_problem[0] == '\0')
			ereport(WARNING,
					(errmsg("artrie cannot keep the WAL its files need: %s",
							max_replication_slots == 0 ? "max_replication_slots is 0" :
							"wal_level is minimal"),
					 errdetail("After a crash, indexes whose WAL was removed are refused until REINDEX."),
					 errhint("Set max_replication_slots above 0 and wal_level to replica or logical.")));
		wal_shared->slot_ok = false;
		strlcpy(wal_shared->slot_problem,
				max_replication_slots == 0 ? "max_replication_slots is 0" :
				"wal_level is minimal", sizeof(wal_shared->slot_problem));
		return;
	}

	PG_TRY();
	{
		ReplicationSlot *slot = SearchNamedReplicationSlot(ARTRIE_SLOT_NAME, true);

		if (slot == NULL)
			ReplicationSlotCreate(ARTRIE_SLOT_NAME, false, RS_PERSISTENT, false);
		else
			ReplicationSlotAcquire(ARTRIE_SLOT_NAME, true);
		SpinLockAcquire(&MyReplicationSlot->mutex);
		MyReplicationSlot->data.restart_lsn = redo;
		MyReplicationSlot->data.invalidated_at = InvalidXLogRecPtr;
		SpinLockRelease(&MyReplicationSlot->mutex);
		ReplicationSlotMarkDirty();
		ReplicationSlotSave();
		ReplicationSlotRelease();
		ReplicationSlotsComputeRequiredLSN();
		wal_shared->slot_ok = true;
		wal_shared->slot_problem[0] = '\0';
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		if (MyReplicationSlot != NULL)
			ReplicationSlotRelease();
		if (LWLockHeldByMe(ReplicationSlotAllocationLock))
			LWLockRelease(ReplicationSlotAllocationLock);
		if (LWLockHeldByMe(ReplicationSlotControlLock))
			LWLockRelease(ReplicationSlotControlLock);
		if (wal_shared->slot_ok || strcmp(wal_shared->slot_problem, edata->message) != 0)
			ereport(WARNING,
					(errmsg("artrie cannot keep the WAL its files need: %s",
							edata->message),
					 errdetail("After a crash, indexes whose WAL was removed are refused until REINDEX.")));
		wal_shared->slot_ok = false;
		strlcpy(wal_shared->slot_problem, edata->message,
				sizeof(wal_shared->slot_problem));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/*
 * After a checkpoint of all files: recovery needs WAL only from redo on.
 * Nothing moves before artrie's own recovery is done.
 */
void
wal_checkpoint_done(XLogRecPtr redo)
{
	uint64		retained;

	if (!wal_shared->recovered)
		return;
	LWLockAcquire(wal_shared->control_lock, LW_EXCLUSIVE);
	if (redo > pager_replay_from())
	{
		wal_control_write(redo, pager_min_redo());
		pager_set_replay_from(redo);
	}
	slot_keep(pager_replay_from());
	retained = wal_retained_bytes();
	LWLockRelease(wal_shared->control_lock);

	/* Files that keep failing to checkpoint hold WAL back: say so. */
	if (retained > (uint64) max_wal_size_mb * 1024 * 1024)
		ereport(WARNING,
				(errmsg("artrie keeps %llu MB of WAL that its files still need",
						(unsigned long long) (retained / (1024 * 1024))),
				 errdetail("Recovery would replay the WAL from %X/%X; some files could not be checkpointed since.",
						   LSN_FORMAT_ARGS(pager_replay_from())),
				 errhint("The server log says why their checkpoints fail; max_slot_wal_keep_size bounds the WAL kept, after which those indexes need REINDEX after a crash.")));
}

/* Bytes of WAL from where recovery would start to the WAL's end. */
static uint64
wal_retained_bytes(void)
{
	XLogRecPtr	end = RecoveryInProgress() ? GetXLogReplayRecPtr(NULL) : GetXLogInsertRecPtr();

	return end > pager_replay_from() ? end - pager_replay_from() : 0;
}

/* Shared memory the WAL layer needs. */
static void
wal_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WalShared)));
	RequestNamedLWLockTranche("artrie_wal_control", 1);
}

/*
 * May a query use file id now?  Not on a hot standby while redo holds its
 * entry records back or rebuilds it from a checkpoint's image (a standby
 * started from a base backup that became consistent inside an image): the
 * file lacks entries the primary has, or holds part of an image, and its
 * answers would be wrong.
 */
pg_attribute_hot bool
wal_file_usable(const ArtFileId *id)
{
	bool		unusable = false;

	if (!RecoveryInProgress())
		return true;
	SpinLockAcquire(&wal_shared->unusable_mutex);
	unusable = wal_shared->all_unusable;
	for (int i = 0; i < wal_shared->nunusable && !unusable; i++)
		unusable = memcmp(&wal_shared->unusable[i], id, sizeof(ArtFileId)) == 0;
	SpinLockRelease(&wal_shared->unusable_mutex);
	return !unusable;
}

/*
 * Refuse a query the file id of index relname while it may not use it
 * (wal_file_usable).
 */
pg_attribute_hot void
wal_check_usable(const ArtFileId *id, const char *relname)
{
	if (!wal_file_usable(id))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie index \"%s\" cannot be used until recovery has replayed its checkpoint's image",
						relname),
				 errdetail("This standby started from a base backup, and recovery is rebuilding the index's file from the image of a checkpoint that was under way when the backup started."),
				 errhint("Retry the query in a moment.")));
}

/* Set up the WAL layer's shared memory. */
static void
wal_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	wal_shared = ShmemInitStruct("artrie wal", sizeof(WalShared), &found);
	if (!found)
	{
		memset(wal_shared, 0, sizeof(WalShared));
		wal_shared->control_lock = &(GetNamedLWLockTranche("artrie_wal_control"))->lock;
		SpinLockInit(&wal_shared->mutex);
		SpinLockInit(&wal_shared->unusable_mutex);
		ConditionVariableInit(&wal_shared->recovered_cv);
		pg_atomic_init_u64(&wal_shared->records, 0);
		pg_atomic_init_u64(&wal_shared->bytes, 0);
		pg_atomic_init_u64(&wal_shared->replayed, 0);
		pg_atomic_init_u64(&wal_shared->failed, 0);
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * From _PG_init: the resource manager, shared memory, and the pager's
 * hooks.
 */
void
wal_init(void)
{
	static const PagerHooks hooks = {
		.checkpoint_done = wal_checkpoint_done,
		.connections_allowed = wal_connections_allowed,
		.file_unchanged = wal_log_unchanged,
		.file_image = wal_log_ckpt_image,
		.image_begin = wal_log_image_begin,
	};

	wal_rmgr_register();
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = wal_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = wal_shmem_startup;
	pager_set_hooks(&hooks);
}

/* Count a record logged. */
void
wal_count_logged(Size bytes)
{
	pg_atomic_fetch_add_u64(&wal_shared->records, 1);
	pg_atomic_fetch_add_u64(&wal_shared->bytes, bytes);
}

/* The WAL layer's state and counters. */
void
wal_stats(WalStats *stats)
{
	stats->replay_from = pager_replay_from();
	stats->wal_end = pager_is_ready() ? (RecoveryInProgress() ?
										 GetXLogReplayRecPtr(NULL) :
										 GetXLogInsertRecPtr()) : InvalidXLogRecPtr;
	stats->records = pg_atomic_read_u64(&wal_shared->records);
	stats->bytes = pg_atomic_read_u64(&wal_shared->bytes);
	stats->replayed = pg_atomic_read_u64(&wal_shared->replayed);
	stats->failed = pg_atomic_read_u64(&wal_shared->failed);
	LWLockAcquire(wal_shared->control_lock, LW_SHARED);
	stats->slot_ok = wal_shared->slot_ok;
	strlcpy(stats->slot_problem, wal_shared->slot_problem, sizeof(stats->slot_problem));
	LWLockRelease(wal_shared->control_lock);
}
