/*-------------------------------------------------------------------------
 *
 * wal_control.c
 *	  artrie's control file, $PGDATA/artrie/control: from where artrie's
 *	  files need WAL, which files to refuse, and rebuilding it when it is
 *	  lost.
 *
 * The file holds two slots, each in a 4 KiB block of its own, written
 * alternately and synced: a torn write damages at most the slot being
 * written, and the other one still says where recovery starts.  A slot
 * holds a CRC32C, a sequence number, the cluster's system identifier,
 * replay_from (every change logged before it is in the files), min_redo
 * (files whose last checkpoint began before it are refused) and the
 * timeline it was written on.  Files written before the blocks were
 * separated (two 512-byte slots in the first block, without a timeline)
 * are still read; the next write moves them to the new layout.
 *
 * When neither slot can be read (the file was deleted, or both blocks are
 * damaged), the control file is rebuilt where that is provably safe.
 * replay_from only ever lags behind where artrie's slot "artrie" points
 * (wal_checkpoint_done moves the slot after the control file), so WAL
 * from the slot's restart_lsn on is kept and replaying it brings every
 * file checkpointed since up to date; min_redo is raised at a start to
 * replay_from (no file served is older), or past it only at a start that
 * could not replay (lost WAL, a base backup), whose next checkpoint moves
 * the slot past it, and a file refused then is never vouched for
 * since (pager_restamp_closed_files skips it).  So both become the slot's
 * position (or where the oldest file's last checkpoint began, if that is
 * later); a file checkpointed before it is refused unless the WAL
 * replayed shows it unchanged since (an unchanged record), as after a
 * base backup.  Without the slot, PostgreSQL's redo pointer.  The start
 * says what it did in one line of the log.  A control file written on a
 * timeline this server's history does not hold up to its replay_from (a
 * former primary's, put back) is rebuilt the same way: its positions are
 * in WAL this server never had.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "replication/slot.h"
#include "storage/fd.h"

#include "wal/wal_internal.h"

#define WAL_CONTROL_FILE	"artrie/control"
#define WAL_CONTROL_BLOCK	4096	/* bytes per slot; two slots */
#define WAL_CONTROL_MAGIC	0x41525732	/* "ARW2" */

/* The layout before the slots had blocks of their own. */
#define WAL_CONTROL_OLD_SLOT	512
#define WAL_CONTROL_OLD_MAGIC	0x41525743	/* "ARWC" */

/* One slot of the control file. */
typedef struct WalControl
{
	pg_crc32c	crc;			/* of the bytes after this field */
	uint32		magic;
	uint64		seq;
	uint64		sysid;
	XLogRecPtr	replay_from;	/* files need WAL from here */
	XLogRecPtr	min_redo;		/* files checkpointed before are refused */
	/* not in the old layout: */
	TimeLineID	tli;			/* the timeline it was written on */
	uint32		pad;
} WalControl;

/* The bytes an old-layout slot's CRC covers. */
#define WAL_CONTROL_OLD_SIZE	offsetof(WalControl, tli)

/* What became of one place a slot may be. */
typedef enum ControlSlotState
{
	CONTROL_EMPTY,				/* never written */
	CONTROL_VALID,				/* of this cluster */
	CONTROL_FOREIGN,			/* valid, of another cluster */
	CONTROL_DAMAGED				/* written, but does not check out */
} ControlSlotState;

/* Whether the next write is to move an old-layout file to blocks. */
static bool control_old_layout = false;

/* The CRC of the first len bytes of a control slot, after its CRC. */
static pg_crc32c
control_crc(const WalControl *ctl, Size len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, (const char *) ctl + sizeof(pg_crc32c),
				len - sizeof(pg_crc32c));
	FIN_CRC32C(crc);
	return crc;
}

/*
 * Decode the slot at offset off of the file's first n bytes in buf, of
 * the given magic numbers (old, new or both), into *ctl.
 */
static ControlSlotState
control_decode(const char *buf, int n, int off, bool old_ok, bool new_ok,
			   WalControl *ctl)
{
	int			len = Min(n - off, (int) sizeof(WalControl));
	bool		zero = true;

	if (len < (int) WAL_CONTROL_OLD_SIZE)
		return CONTROL_EMPTY;
	for (int i = 0; i < len && zero; i++)
		zero = buf[off + i] == 0;
	if (zero)
		return CONTROL_EMPTY;
	memset(ctl, 0, sizeof(*ctl));
	memcpy(ctl, buf + off, len);
	if (old_ok && ctl->magic == WAL_CONTROL_OLD_MAGIC &&
		EQ_CRC32C(ctl->crc, control_crc(ctl, WAL_CONTROL_OLD_SIZE)))
		ctl->tli = 0;
	else if (!(new_ok && ctl->magic == WAL_CONTROL_MAGIC &&
			   len == sizeof(WalControl) &&
			   EQ_CRC32C(ctl->crc, control_crc(ctl, sizeof(WalControl)))))
		return CONTROL_DAMAGED;
	return ctl->sysid == GetSystemIdentifier() ? CONTROL_VALID : CONTROL_FOREIGN;
}

/*
 * Read the control file: the newest valid slot of this cluster into *ctl
 * (false if there is none), whether a slot was written but is damaged,
 * and *foreign_sysid, the system identifier of a valid slot of another
 * cluster, or 0.  *missing says the file does not exist.
 */
static bool
control_read(WalControl *ctl, bool *damaged, uint64 *foreign_sysid,
			 bool *missing)
{
	char		buf[2 * WAL_CONTROL_BLOCK];
	int			fd;
	int			n;
	bool		found = false;
	static const struct
	{
		int			off;
		bool		old_ok;
		bool		new_ok;
	}			places[] =
	{
		{0, true, true},
		{WAL_CONTROL_OLD_SLOT, true, false},
		{WAL_CONTROL_BLOCK, false, true},
	};

	*damaged = false;
	*foreign_sysid = 0;
	*missing = false;
	fd = OpenTransientFile(WAL_CONTROL_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno != ENOENT)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", WAL_CONTROL_FILE)));
		*missing = true;
		return false;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", WAL_CONTROL_FILE)));
	CloseTransientFile(fd);
	for (int i = 0; i < lengthof(places); i++)
	{
		WalControl	c;

		switch (control_decode(buf, n, places[i].off, places[i].old_ok,
							   places[i].new_ok, &c))
		{
			case CONTROL_EMPTY:
				break;
			case CONTROL_DAMAGED:
				*damaged = true;
				break;
			case CONTROL_FOREIGN:
				*foreign_sysid = c.sysid;
				break;
			case CONTROL_VALID:
				if (c.magic == WAL_CONTROL_OLD_MAGIC)
					control_old_layout = true;
				if (!found || c.seq > ctl->seq)
					*ctl = c;
				found = true;
				break;
		}
	}
	if (found)
		wal_shared->control_seq = Max(wal_shared->control_seq, ctl->seq);
	return found;
}

/*
 * Write the control file's next slot, durably: under control_lock, or in
 * the one process that runs recovery, before any checkpoint may write it.
 * A slot takes a whole block; a file of the old layout gets block 0 first,
 * which holds both of its slots.
 */
void
wal_control_write(XLogRecPtr replay_from, XLogRecPtr min_redo)
{
	char		buf[WAL_CONTROL_BLOCK];
	WalControl	c;
	int			fd;

	Assert(LWLockHeldByMeInMode(wal_shared->control_lock, LW_EXCLUSIVE) ||
		   !wal_shared->recovered);
	if (control_old_layout && wal_shared->control_seq % 2 == 0)
		wal_shared->control_seq++;
	control_old_layout = false;
	memset(buf, 0, sizeof(buf));
	memset(&c, 0, sizeof(c));
	c.magic = WAL_CONTROL_MAGIC;
	c.seq = ++wal_shared->control_seq;
	c.sysid = GetSystemIdentifier();
	c.replay_from = replay_from;
	c.min_redo = min_redo;
	c.tli = pager_timeline_now();
	c.crc = control_crc(&c, sizeof(c));
	memcpy(buf, &c, sizeof(c));

	if (mkdir("artrie", pg_dir_create_mode) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"artrie\": %m")));
	fd = OpenTransientFile(WAL_CONTROL_FILE, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", WAL_CONTROL_FILE)));
	if (pg_pwrite(fd, buf, sizeof(buf), (off_t) (c.seq % 2) * WAL_CONTROL_BLOCK) != sizeof(buf))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", WAL_CONTROL_FILE)));
	}
	if (pg_fsync(fd) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", WAL_CONTROL_FILE)));
	CloseTransientFile(fd);
	fsync_fname("artrie", true);
}

/*
 * Where artrie's replication slot keeps the WAL from, or
 * InvalidXLogRecPtr if there is no such slot or it was invalidated.
 */
static XLogRecPtr
control_slot_lsn(void)
{
	ReplicationSlot *slot;
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	if (max_replication_slots == 0)
		return InvalidXLogRecPtr;
	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	slot = SearchNamedReplicationSlot(ARTRIE_SLOT_NAME, false);
	if (slot != NULL)
	{
		SpinLockAcquire(&slot->mutex);
		lsn = slot->data.restart_lsn;
		SpinLockRelease(&slot->mutex);
	}
	LWLockRelease(ReplicationSlotControlLock);
	return lsn;
}

/*
 * The control file cannot be used (why says how; missing: there is none):
 * rebuild replay_from and min_redo from artrie's replication slot and the
 * files' meta pages (see the head of this file), with a line in the log.
 * Nothing to say for a cluster where artrie never wrote anything.
 */
static void
control_rebuild(XLogRecPtr redo, const char *why, bool missing,
				XLogRecPtr *replay_from, XLogRecPtr *min_redo)
{
	PagerSurvey survey;
	XLogRecPtr	slot = control_slot_lsn();
	XLogRecPtr	from = redo;

	pager_survey_files(&survey);
	if (!XLogRecPtrIsInvalid(slot))
		from = Min(slot, redo);
	if (survey.files > 0 && survey.oldest > from)
		from = Min(survey.oldest, redo);
	*replay_from = *min_redo = from;
	if (missing && XLogRecPtrIsInvalid(slot) && survey.files == 0 &&
		survey.foreign == 0 && survey.unreadable == 0)
		return;
	ereport(LOG,
			(errmsg("artrie: its control file $PGDATA/artrie/control %s; rebuilt from %s and the meta pages of %d files: WAL is replayed from %X/%X, and indexes whose files were last checkpointed before it are refused until REINDEX unless the WAL shows them unchanged since",
					why,
					XLogRecPtrIsInvalid(slot) ?
					"PostgreSQL's redo pointer (artrie's replication slot is gone)" :
					"artrie's replication slot",
					survey.files, LSN_FORMAT_ARGS(from)),
			 survey.foreign + survey.unreadable > 0 ?
			 errdetail("%d files of another cluster and %d without a valid meta page are refused.",
					   survey.foreign, survey.unreadable) : 0));
}

/*
 * Where artrie's recovery starts (*replay_from) and which files it refuses
 * (*min_redo), from the control file, PostgreSQL's redo pointer redo and,
 * if the control file is lost or damaged, artrie's replication slot and
 * the files' meta pages.
 */
void
wal_control_load(XLogRecPtr redo, XLogRecPtr *replay_from,
				 XLogRecPtr *min_redo)
{
	WalControl	ctl;
	bool		damaged;
	bool		missing;
	uint64		foreign_sysid;
	TimeLineID	server_tli;
	XLogRecPtr	left_at;
	bool		found;

	found = control_read(&ctl, &damaged, &foreign_sysid, &missing);
	if (found &&
		!pager_timeline_agrees(ctl.tli, ctl.replay_from, &server_tli, &left_at))
	{
		/*
		 * Written on a history this server does not share (a directory
		 * put back from a former primary): its positions mean other WAL.
		 */
		control_rebuild(redo,
						psprintf("was written at %X/%X on timeline %u, which is not in the history of timeline %u",
								 LSN_FORMAT_ARGS(ctl.replay_from), ctl.tli,
								 server_tli),
						false, replay_from, min_redo);
	}
	else if (found)
	{
		*replay_from = ctl.replay_from;
		*min_redo = ctl.min_redo;
		if (damaged)
		{
			XLogRecPtr	slot = control_slot_lsn();

			/*
			 * The damaged slot may have been the newer one: the slot was
			 * moved after it was written, so WAL from the slot on is kept
			 * and covers everything that slot would have asked for.
			 * min_redo is the same in both slots once a start's first
			 * checkpoint is written.
			 */
			if (!XLogRecPtrIsInvalid(slot) && Min(slot, redo) > *replay_from)
				*replay_from = Min(slot, redo);
			ereport(LOG,
					(errmsg("artrie: a slot of its control file $PGDATA/artrie/control is damaged; the other one is used, and WAL is replayed from %X/%X",
							LSN_FORMAT_ARGS(*replay_from))));
		}
	}
	else if (foreign_sysid != 0)
	{
		/*
		 * artrie's directory was copied from another cluster: nothing in it
		 * is known to match this cluster's WAL.  Files made from now on
		 * are fine.
		 */
		*replay_from = *min_redo = redo;
		ereport(LOG,
				(errmsg("artrie: the control file in $PGDATA/artrie is of another cluster (system identifier " UINT64_FORMAT ", this one's " UINT64_FORMAT "), so artrie's directory was copied from elsewhere: every artrie index whose file was last checkpointed before %X/%X is refused until REINDEX",
						foreign_sysid, GetSystemIdentifier(), LSN_FORMAT_ARGS(redo))));
	}
	else
		control_rebuild(redo, missing ? "is missing" : "has no valid slot",
						missing, replay_from, min_redo);
}
