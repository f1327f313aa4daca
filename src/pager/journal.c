/*-------------------------------------------------------------------------
 *
 * journal.c
 *	  The journal: append, group commit, checkpoint bookkeeping, recovery.
 *
 * Layout on disk.  $PGDATA/artrie/journal/ holds segment files of
 * JOURNAL_SEG_SIZE bytes named by their first position (16 hex digits) and
 * a control file of two page-sized slots, written alternately, each with
 * a sequence number, the position where recovery starts, and a CRC32C.
 * Positions count bytes from the start of the journal; the journal is one
 * byte stream across segments, and a record may cross page and segment
 * boundaries.  A record is a JournalRecord header (CRC32C of everything
 * after the CRC field, total length, its own position, operation, file,
 * trie root) followed by the entry's bytes.  Its own position is what tells
 * a record from stale bytes of an earlier use of the same place, so
 * replay stops at the first record that is torn, garbled or stale (that
 * check is journal_record_read, plain C in journal_record.c, which the
 * journal fuzzer runs too).
 *
 * In memory.  Records are copied into a ring of pages in shared memory
 * under the insert lock.  A flush writes the pages between the durable
 * position and the current insert position, whole pages (O_DIRECT wants
 * them), and syncs: rewriting the last, partial page again later is safe,
 * because the bytes already durable in it do not change, so a torn write
 * can only damage the part that was not yet acknowledged.  Flushers
 * serialize on the flush lock with LWLockAcquireOrWait, and whoever gets
 * it writes everything appended so far: every transaction that waited
 * meanwhile is covered by that one write + fdatasync (group commit; under
 * io_uring the io worker issues them as linked requests).
 *
 * Each record carries PostgreSQL's WAL insert position at its append,
 * which lies past the WAL record of the heap tuple it indexes.  Recovery
 * waits for PostgreSQL's own, and skips every record whose WAL position
 * lies past the end of the WAL that PostgreSQL replayed: its heap tuple's
 * insertion was lost, its transaction never committed, and its TID will be
 * reused.  So a commit costs one journal sync and PostgreSQL's own WAL
 * sync, not a WAL sync more.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "storage/condition_variable.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "pager/journal.h"
#include "pager/pager_internal.h"

#define JOURNAL_DIR			"artrie/journal"
#define JOURNAL_CONTROL		JOURNAL_DIR "/control"
#define JOURNAL_PAGE		IO_PAGE_SIZE
#define JOURNAL_SEG_SIZE	((uint64) 16 * 1024 * 1024)
#define JOURNAL_SEG_PAGES	(JOURNAL_SEG_SIZE / JOURNAL_PAGE)
#define JOURNAL_RING_PAGES	2048	/* 16 MiB */
#define JOURNAL_RING_SIZE	((uint64) JOURNAL_RING_PAGES * JOURNAL_PAGE)
#define JOURNAL_START		((JournalPos) JOURNAL_PAGE)
#define JOURNAL_READ_PAGES	64		/* pages recovery reads at a time */
#define JOURNAL_CONTROL_MAGIC	0x4A524E4C	/* "JRNL" */

typedef struct JournalControl
{
	uint32		crc;			/* CRC32C of the bytes after this field */
	uint32		magic;
	uint64		seq;
	uint64		redo_pos;
	uint32		epoch;			/* records of other epochs are stale */
} JournalControl;

typedef struct JournalShared
{
	LWLock		insert_lock;	/* insert_pos, the ring's tail */
	LWLock		flush_lock;		/* writing and syncing */
	LWLock		control_lock;	/* the control file and old segments */
	JournalPos	insert_pos;
	pg_atomic_uint64 durable_pos;
	JournalPos	redo_pos;		/* under control_lock */
	uint64		control_seq;	/* under control_lock */
	uint32		epoch;			/* set by recovery, then fixed */
	JournalPos	segs_ready;		/* segments exist below this; flush_lock */
	bool		replay_done;	/* records applied; the checkpoint may be due */
	JournalPos	recovery_redo;	/* what recovery's checkpoint made durable */
	bool		recovered;
	bool		recovery_failed;	/* see the server log */
	bool		recovery_retrying;	/* its checkpoint failed; retried */
	ConditionVariable recovered_cv;
	pg_atomic_uint64 records;
	pg_atomic_uint64 flushes;
	pg_atomic_uint64 commits;
	pg_atomic_uint64 replayed;
	char	   *ring;			/* JOURNAL_RING_PAGES pages, aligned */
	char	   *zero_page;		/* one page of zeros, aligned */
	char	   *control_page;	/* one page, aligned */
} JournalShared;

static JournalShared *journal = NULL;
static JournalRedoFn journal_redo_fn = NULL;

static void journal_replay(void);

/* This backend's last appended record's end, flushed before commit. */
static JournalPos my_last_pos = 0;
static bool callbacks_registered = false;

/* Bytes of shared memory the journal needs. */
Size
journal_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(JournalShared));

	size = add_size(size, JOURNAL_RING_SIZE + 2 * JOURNAL_PAGE);
	size = add_size(size, JOURNAL_PAGE);	/* alignment */
	return size;
}

/* Set up the journal's shared memory (postmaster, at startup). */
void
journal_shmem_init(void)
{
	bool		found;
	char	   *base;

	journal = ShmemInitStruct("artrie journal", journal_shmem_size(), &found);
	if (found)
		return;
	memset(journal, 0, sizeof(JournalShared));
	LWLockInitialize(&journal->insert_lock, LWLockNewTrancheId());
	LWLockRegisterTranche(journal->insert_lock.tranche, "artrie journal insert");
	LWLockInitialize(&journal->flush_lock, LWLockNewTrancheId());
	LWLockRegisterTranche(journal->flush_lock.tranche, "artrie journal flush");
	LWLockInitialize(&journal->control_lock, LWLockNewTrancheId());
	LWLockRegisterTranche(journal->control_lock.tranche, "artrie journal control");
	pg_atomic_init_u64(&journal->durable_pos, JOURNAL_START);
	pg_atomic_init_u64(&journal->records, 0);
	pg_atomic_init_u64(&journal->flushes, 0);
	pg_atomic_init_u64(&journal->commits, 0);
	pg_atomic_init_u64(&journal->replayed, 0);
	journal->insert_pos = JOURNAL_START;
	journal->redo_pos = JOURNAL_START;
	ConditionVariableInit(&journal->recovered_cv);

	base = (char *) TYPEALIGN(JOURNAL_PAGE,
							  (char *) journal + MAXALIGN(sizeof(JournalShared)));
	journal->ring = base;
	journal->zero_page = base + JOURNAL_RING_SIZE;
	journal->control_page = journal->zero_page + JOURNAL_PAGE;
	memset(journal->zero_page, 0, JOURNAL_PAGE);
}

/* Path of the segment holding position pos. */
static void
journal_seg_path(JournalPos pos, char *path)
{
	snprintf(path, IO_PATH_LEN, JOURNAL_DIR "/%016llX",
			 (unsigned long long) (pos - pos % JOURNAL_SEG_SIZE));
}

/* Copy n bytes into the ring at stream position pos, wrapping around. */
static void
ring_put(JournalPos pos, const char *src, Size n)
{
	while (n > 0)
	{
		Size		off = pos % JOURNAL_RING_SIZE;
		Size		chunk = Min(n, JOURNAL_RING_SIZE - off);

		memcpy(journal->ring + off, src, chunk);
		pos += chunk;
		src += chunk;
		n -= chunk;
	}
}

/* Copy n bytes out of the ring from stream position pos. */
static void
ring_get(JournalPos pos, char *dst, Size n)
{
	while (n > 0)
	{
		Size		off = pos % JOURNAL_RING_SIZE;
		Size		chunk = Min(n, JOURNAL_RING_SIZE - off);

		memcpy(dst, journal->ring + off, chunk);
		pos += chunk;
		dst += chunk;
		n -= chunk;
	}
}

/* CRC of the control data after its CRC field. */
static uint32
control_crc(const JournalControl *ctl)
{
	return PAGER_CRC32C_FIN(pager_crc32c_extend(PAGER_CRC32C_INIT,
												(const char *) ctl + sizeof(ctl->crc),
												sizeof(JournalControl) - sizeof(ctl->crc)));
}

/* Make sure the journal directory exists. */
static void
journal_make_dir(void)
{
	if (MakePGDirectory("artrie") < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"artrie\": %m")));
	if (MakePGDirectory(JOURNAL_DIR) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", JOURNAL_DIR)));
}

/*
 * Create the segment starting at seg, full size and zeroed, so that later
 * writes never change the file's size and fdatasync has no metadata to
 * write.  A leftover segment of the same name is reused as it is: its
 * stale records carry other positions.
 */
static void
journal_create_segment(JournalPos seg)
{
	char		path[IO_PATH_LEN];
	int			fd;
	IoPage	   *pages;
	int			i;
	struct stat st;

	journal_seg_path(seg, path);
	if (stat(path, &st) == 0 && st.st_size >= (off_t) JOURNAL_SEG_SIZE)
		return;
	journal_make_dir();
	fd = BasicOpenFile(path, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create journal segment \"%s\": %m", path)));
	close(fd);

	pages = palloc(sizeof(IoPage) * JOURNAL_SEG_PAGES);
	for (i = 0; i < (int) JOURNAL_SEG_PAGES; i++)
	{
		pages[i].offset = (uint64) i * JOURNAL_PAGE;
		pages[i].buf = journal->zero_page;
	}
	io_write_sync(path, pages, JOURNAL_SEG_PAGES);
	pfree(pages);
	fsync_fname(JOURNAL_DIR, true);
}

/*
 * Write the ring's pages covering [from, to) to their segments, then sync
 * the last one; earlier segments are synced as the write leaves them.
 * Caller holds the flush lock.
 */
static void
journal_write(JournalPos from, JournalPos to)
{
	JournalPos	page = from - from % JOURNAL_PAGE;
	IoPage	   *pages = palloc(sizeof(IoPage) * JOURNAL_SEG_PAGES);

	while (page < to)
	{
		JournalPos	seg = page - page % JOURNAL_SEG_SIZE;
		JournalPos	seg_end = seg + JOURNAL_SEG_SIZE;
		char		path[IO_PATH_LEN];
		int			n = 0;

		if (seg >= journal->segs_ready)
		{
			journal_create_segment(seg);
			journal->segs_ready = seg_end;
		}
		while (page < to && page < seg_end)
		{
			pages[n].offset = page - seg;
			pages[n].buf = journal->ring + page % JOURNAL_RING_SIZE;
			n++;
			page += JOURNAL_PAGE;
		}
		journal_seg_path(seg, path);
		io_write_sync(path, pages, n);
	}
	pfree(pages);
}

/*
 * Wait until everything before pos is durable, writing it if nobody else
 * is: the backend that gets the flush lock writes all that was appended
 * by then, for itself and for every backend that waits behind it.
 */
void
journal_flush(JournalPos pos)
{
	while (pg_atomic_read_u64(&journal->durable_pos) < pos)
	{
		JournalPos	from;
		JournalPos	to;

		if (!LWLockAcquireOrWait(&journal->flush_lock, LW_EXCLUSIVE))
			continue;
		from = pg_atomic_read_u64(&journal->durable_pos);
		if (from >= pos)
		{
			LWLockRelease(&journal->flush_lock);
			break;
		}
		LWLockAcquire(&journal->insert_lock, LW_SHARED);
		to = journal->insert_pos;
		LWLockRelease(&journal->insert_lock);

		journal_write(from, to);
		pg_atomic_write_u64(&journal->durable_pos, to);
		pg_atomic_fetch_add_u64(&journal->flushes, 1);
		LWLockRelease(&journal->flush_lock);
	}
}

/* Flush what this transaction appended before it commits or prepares. */
static void
journal_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (my_last_pos != 0)
			{
				pg_atomic_fetch_add_u64(&journal->commits, 1);
				journal_flush(my_last_pos);
			}
			my_last_pos = 0;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			my_last_pos = 0;
			break;
		default:
			break;
	}
}

/*
 * Append one record and return the position just past it.  The
 * transaction will wait at commit until it is durable.
 */
JournalPos
journal_append(JournalOp op, const ArtFileId *file, uint32 root,
			   const uint8 *entry, Size len)
{
	JournalRecord rec;
	JournalPos	pos;
	Size		total = sizeof(JournalRecord) + len;

	if (!callbacks_registered)
	{
		RegisterXactCallback(journal_xact_callback, NULL);
		callbacks_registered = true;
	}
	if (total > JOURNAL_RING_SIZE / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("artrie journal record of %zu bytes is too large", total)));

	memset(&rec, 0, sizeof(rec));
	rec.len = (uint32) total;
	rec.epoch = journal->epoch;
	rec.op = (uint32) op;
	rec.root = root;
	rec.file = *file;
	rec.wal_lsn = pager_wal_end();

	for (;;)
	{
		LWLockAcquire(&journal->insert_lock, LW_EXCLUSIVE);
		pos = journal->insert_pos;
		/* The ring must not overwrite what is not yet durable. */
		if (pos + total - (pg_atomic_read_u64(&journal->durable_pos) / JOURNAL_PAGE) * JOURNAL_PAGE
			<= JOURNAL_RING_SIZE)
			break;
		LWLockRelease(&journal->insert_lock);
		journal_flush(pos);
	}
	rec.pos = pos;
	rec.crc = journal_record_crc(&rec, entry, len);
	ring_put(pos, (const char *) &rec, sizeof(rec));
	ring_put(pos + sizeof(rec), (const char *) entry, len);
	journal->insert_pos = pos + total;
	LWLockRelease(&journal->insert_lock);

	pg_atomic_fetch_add_u64(&journal->records, 1);
	my_last_pos = pos + total;
	return pos + total;
}

/* The position the next record will get. */
JournalPos
journal_insert_pos(void)
{
	JournalPos	pos;

	LWLockAcquire(&journal->insert_lock, LW_SHARED);
	pos = journal->insert_pos;
	LWLockRelease(&journal->insert_lock);
	return pos;
}

/* Where recovery starts; the journal holds nothing older. */
JournalPos
journal_redo_pos(void)
{
	JournalPos	pos;

	LWLockAcquire(&journal->control_lock, LW_SHARED);
	pos = journal->redo_pos;
	LWLockRelease(&journal->control_lock);
	return pos;
}

/* Write the control file's next slot: recovery starts at redo_pos. */
static void
journal_write_control(JournalPos redo_pos)
{
	JournalControl *ctl = (JournalControl *) journal->control_page;
	IoPage		page;
	int			fd;

	journal_make_dir();
	fd = BasicOpenFile(JOURNAL_CONTROL, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open \"%s\": %m", JOURNAL_CONTROL)));
	close(fd);

	memset(journal->control_page, 0, JOURNAL_PAGE);
	ctl->magic = JOURNAL_CONTROL_MAGIC;
	ctl->seq = ++journal->control_seq;
	ctl->redo_pos = redo_pos;
	ctl->epoch = journal->epoch;
	ctl->crc = control_crc(ctl);
	page.offset = (ctl->seq % 2) * JOURNAL_PAGE;
	page.buf = journal->control_page;
	io_write_sync(JOURNAL_CONTROL, &page, 1);
	journal->redo_pos = redo_pos;
}

/* Remove segments that end at or before pos. */
static void
journal_remove_segments(JournalPos pos)
{
	DIR		   *dir = AllocateDir(JOURNAL_DIR);
	struct dirent *de;

	if (dir == NULL)
		return;
	while ((de = ReadDir(dir, JOURNAL_DIR)) != NULL)
	{
		char		path[MAXPGPATH];
		unsigned long long start;
		char	   *end;

		if (strlen(de->d_name) != 16)
			continue;
		start = strtoull(de->d_name, &end, 16);
		if (*end != '\0' || start + JOURNAL_SEG_SIZE > pos)
			continue;
		snprintf(path, sizeof(path), JOURNAL_DIR "/%s", de->d_name);
		io_forget_file(path);
		if (unlink(path) != 0 && errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not remove journal segment \"%s\": %m", path)));
	}
	FreeDir(dir);
}

/*
 * After a checkpoint that made durable every change before redo_pos:
 * recovery may start there, and segments that end before it and before
 * anything a flush may still write can go.
 */
void
journal_set_redo(JournalPos redo_pos)
{
	/*
	 * Until recovery ends, the control file keeps the old epoch and start:
	 * recovery itself moves both once everything replayed is durable.
	 */
	if (!journal->recovered)
	{
		journal->recovery_redo = redo_pos;
		return;
	}

	/*
	 * A backend holding the lock may be waiting for the io worker to write
	 * the control file: the io worker only tries, and leaves the move to a
	 * later checkpoint.
	 */
	if (!io_in_worker())
		LWLockAcquire(&journal->control_lock, LW_EXCLUSIVE);
	else if (!LWLockConditionalAcquire(&journal->control_lock, LW_EXCLUSIVE))
		return;
	if (redo_pos > journal->redo_pos)
	{
		JournalPos	durable = pg_atomic_read_u64(&journal->durable_pos);

		journal_write_control(redo_pos);
		journal_remove_segments(Min(redo_pos, durable - durable % JOURNAL_PAGE));
	}
	LWLockRelease(&journal->control_lock);
}

/* Register the function that applies a record during recovery. */
void
journal_set_redo_fn(JournalRedoFn fn)
{
	journal_redo_fn = fn;
}

/* Read the control file's newest valid slot; JOURNAL_START if none. */
static JournalPos
journal_read_control(void)
{
	JournalPos	redo = JOURNAL_START;
	struct stat st;
	int			slot;

	if (stat(JOURNAL_CONTROL, &st) != 0 || st.st_size < 2 * JOURNAL_PAGE)
		return redo;
	for (slot = 0; slot < 2; slot++)
	{
		JournalControl *ctl = (JournalControl *) journal->control_page;
		IoPage		page;

		page.offset = (uint64) slot * JOURNAL_PAGE;
		page.buf = journal->control_page;
		io_read_pages(JOURNAL_CONTROL, &page, 1);
		if (ctl->magic == 0 && ctl->seq == 0)
			continue;			/* never written */
		if (ctl->magic != JOURNAL_CONTROL_MAGIC || ctl->crc != control_crc(ctl))
		{
			ereport(LOG,
					(errmsg("artrie journal control slot %d is not valid; using the other one",
							slot)));
			continue;
		}
		if (ctl->seq > journal->control_seq)
		{
			journal->control_seq = ctl->seq;
			journal->epoch = ctl->epoch;
			redo = ctl->redo_pos;
		}
	}
	return redo;
}

/*
 * A reader over the journal on disk, a segment chunk at a time, through
 * the ring (recovery runs before anyone appends).
 */
typedef struct JournalReader
{
	JournalPos	loaded_from;	/* ring holds [loaded_from, loaded_to) */
	JournalPos	loaded_to;
} JournalReader;

/* Load the chunk of pages starting with the page of pos; false at the end. */
static bool
reader_load(JournalReader *r, JournalPos pos)
{
	JournalPos	page = pos - pos % JOURNAL_PAGE;
	JournalPos	seg = page - page % JOURNAL_SEG_SIZE;
	int			n = (int) Min((JournalPos) JOURNAL_READ_PAGES,
							  (seg + JOURNAL_SEG_SIZE - page) / JOURNAL_PAGE);
	char		path[IO_PATH_LEN];
	IoPage	   *pages;
	struct stat st;
	int			i;

	journal_seg_path(seg, path);
	if (stat(path, &st) != 0 || st.st_size < (off_t) JOURNAL_SEG_SIZE)
		return false;
	pages = palloc(sizeof(IoPage) * n);
	for (i = 0; i < n; i++)
	{
		pages[i].offset = page - seg + (uint64) i * JOURNAL_PAGE;
		pages[i].buf = journal->ring + (page + (uint64) i * JOURNAL_PAGE) % JOURNAL_RING_SIZE;
	}
	io_read_pages(path, pages, n);
	pfree(pages);
	r->loaded_from = page;
	r->loaded_to = page + (uint64) n * JOURNAL_PAGE;
	return true;
}

/*
 * Copy n bytes at pos into dst, loading chunks as needed; false at the end.
 * A JournalReadFn over a JournalReader.
 */
static bool
reader_get(void *arg, uint64 pos, void *dst, size_t n)
{
	JournalReader *r = arg;
	char	   *out = dst;

	while (n > 0)
	{
		Size		chunk;

		if (pos < r->loaded_from || pos >= r->loaded_to)
		{
			if (!reader_load(r, pos))
				return false;
		}
		chunk = Min(n, r->loaded_to - pos);
		ring_get(pos, out, chunk);
		pos += chunk;
		out += chunk;
		n -= chunk;
	}
	return true;
}

/*
 * Replay the journal from the control file's position: apply every valid
 * record to its file, if the file still exists, its last checkpoint came
 * before the record, and the record's heap tuple survived.  Then
 * checkpoint everything, start the journal afresh past the end in a new
 * epoch, and let backends in.  Runs in the io worker, once PostgreSQL's
 * own recovery is over; a worker restarted after a failed checkpoint
 * resumes at the checkpoint.
 */
void
journal_recover(void)
{
	if (journal->recovered)
		return;
	if (!journal->replay_done)
	{
		PG_TRY();
		{
			journal_replay();
		}
		PG_CATCH();
		{
			journal->recovery_failed = true;
			journal->recovered = true;
			ConditionVariableBroadcast(&journal->recovered_cv);
			PG_RE_THROW();
		}
		PG_END_TRY();
		journal->replay_done = true;
	}

	/*
	 * Make the replayed changes durable, then recovery never needs them.
	 * If this fails (a full disk, say), backends keep waiting and the
	 * restarted io worker tries again: the replayed pages stay in the pool.
	 */
	PG_TRY();
	{
		journal->recovery_redo = 0;
		pager_checkpoint();
		if (journal->recovery_redo < journal->insert_pos)
			ereport(ERROR,
					(errmsg("artrie journal: not every replayed change could be checkpointed"),
					 errdetail("The io worker will try again.")));
		LWLockAcquire(&journal->control_lock, LW_EXCLUSIVE);
		journal_write_control(journal->insert_pos);
		journal_remove_segments(journal->insert_pos);
		LWLockRelease(&journal->control_lock);
	}
	PG_CATCH();
	{
		journal->recovery_retrying = true;
		ConditionVariableBroadcast(&journal->recovered_cv);
		PG_RE_THROW();
	}
	PG_END_TRY();

	journal->recovery_retrying = false;
	journal->recovered = true;
	ConditionVariableBroadcast(&journal->recovered_cv);
}

/* journal_recover's work; see there. */
static void
journal_replay(void)
{
	JournalReader reader = {0, 0};
	JournalPos	pos = journal_read_control();
	JournalPos	next;
	char	   *entry = palloc(JOURNAL_MAX_ENTRY);
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "artrie journal replay",
											  ALLOCSET_DEFAULT_SIZES);
	uint64		applied = 0;
	uint64		scanned = 0;
	uint64		failed = 0;
	uint64		lost = 0;
	ArtFileId	last_id;
	PagerFile  *last_file = NULL;
	uint64		last_from = 0;
	bool		have_last = false;
	bool		last_unusable = false;	/* opening last_id's file failed */
	volatile bool opening = false;

	/*
	 * The end of the WAL that PostgreSQL's crash recovery replayed, or
	 * invalid if it needed none (a clean shutdown flushed all the WAL).
	 */
	XLogRecPtr	wal_end = GetXLogReplayRecPtr(NULL);
	TimestampTz start = GetCurrentTimestamp();

	journal->redo_pos = pos;
	for (;;)
	{
		JournalRecord rec;
		Size		entrylen;
		MemoryContext old;
		PagerFile  *file;

		if (!journal_record_read(reader_get, &reader, pos, journal->epoch,
								 &rec, (uint8 *) entry, &entrylen))
			break;
		scanned++;
		if (wal_end != InvalidXLogRecPtr && rec.wal_lsn > wal_end)
		{
			/* Its heap tuple's insertion did not survive the crash. */
			lost++;
			pos += rec.len;
			continue;
		}

		/* The rest of a run of a file that could not be opened fails too. */
		if (have_last && last_unusable &&
			memcmp(&last_id, &rec.file, sizeof(ArtFileId)) == 0)
		{
			failed++;
			pos += rec.len;
			continue;
		}

		old = MemoryContextSwitchTo(cxt);
		PG_TRY();
		{
			/* Records of one file come in runs: open it once a run. */
			if (!have_last || memcmp(&last_id, &rec.file, sizeof(ArtFileId)) != 0)
			{
				opening = true;
				last_file = pager_open_for_redo(&rec.file, &last_from);
				opening = false;
				last_id = rec.file;
				last_unusable = false;
				have_last = true;
			}
			file = pos >= last_from ? last_file : NULL;
			if (file != NULL && journal_redo_fn != NULL)
			{
				journal_redo_fn(file, (JournalOp) rec.op, rec.root,
								(const uint8 *) entry, entrylen);
				applied++;
			}
		}
		PG_CATCH();
		{
			/*
			 * A damaged file: say so, and go on with the others.  A file that
			 * could not be opened is not tried again for the rest of the run;
			 * a record that failed on a page is, since the next may not need
			 * that page.
			 */
			MemoryContextSwitchTo(old);
			have_last = opening;
			last_id = rec.file;
			last_unusable = opening;
			opening = false;
			EmitErrorReport();
			FlushErrorState();
			LWLockReleaseAll();
			pager_release_all();
			ereport(LOG,
					(errmsg("artrie journal: could not replay the record at position %llu for file artrie/%u/%u.%u",
							(unsigned long long) pos, rec.file.dbOid,
							rec.file.relNumber, rec.file.generation),
					 errhint("REINDEX the index that uses this file.")));
			failed++;
		}
		PG_END_TRY();
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
		pos += rec.len;
	}
	pfree(entry);
	MemoryContextDelete(cxt);

	/*
	 * Start again at the next page, in a new epoch: whatever follows the
	 * last good record is not a record of the new epoch, even where a
	 * record of an earlier run sits at the very same position.
	 */
	next = pos + (JOURNAL_PAGE - pos % JOURNAL_PAGE) % JOURNAL_PAGE;
	journal->epoch++;
	journal->insert_pos = next;
	pg_atomic_write_u64(&journal->durable_pos, next);
	journal->segs_ready = 0;
	pg_atomic_write_u64(&journal->replayed, applied);
	if (scanned > 0)
		ereport(LOG,
				(errmsg("artrie journal: replayed %llu of %llu records (%llu failed, %llu past the WAL) from position %llu to %llu in %.3f s",
						(unsigned long long) applied,
						(unsigned long long) scanned,
						(unsigned long long) failed,
						(unsigned long long) lost,
						(unsigned long long) journal->redo_pos,
						(unsigned long long) pos,
						(double) (GetCurrentTimestamp() - start) / 1000000.0)));
}

/* Wait until the io worker has replayed the journal. */
void
journal_wait_recovered(void)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie indexes cannot be used during recovery"),
				 errdetail("artrie files are not replicated to standby servers."),
				 errhint("After promotion, REINDEX the artrie indexes.")));
	if (!journal->recovered)
	{
		ConditionVariablePrepareToSleep(&journal->recovered_cv);
		while (!journal->recovered && !journal->recovery_retrying)
			ConditionVariableSleep(&journal->recovered_cv, PG_WAIT_EXTENSION);
		ConditionVariableCancelSleep();
	}
	if (!journal->recovered)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie has replayed its journal but cannot checkpoint it yet"),
				 errdetail("The server log says why; the io worker tries again every second."),
				 errhint("Free disk space under the data directory; artrie indexes work again as soon as the checkpoint succeeds.")));
	if (journal->recovery_failed)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("artrie could not replay its journal at server start"),
				 errdetail("The server log says why."),
				 errhint("Restart the server after fixing the cause, or REINDEX the artrie indexes.")));
}

/* The journal's positions and counters. */
void
journal_stats(JournalStats *stats)
{
	LWLockAcquire(&journal->insert_lock, LW_SHARED);
	stats->insert_pos = journal->insert_pos;
	LWLockRelease(&journal->insert_lock);
	stats->durable_pos = pg_atomic_read_u64(&journal->durable_pos);
	stats->redo_pos = journal->redo_pos;
	stats->records = pg_atomic_read_u64(&journal->records);
	stats->flushes = pg_atomic_read_u64(&journal->flushes);
	stats->commits = pg_atomic_read_u64(&journal->commits);
	stats->replayed = pg_atomic_read_u64(&journal->replayed);
}
