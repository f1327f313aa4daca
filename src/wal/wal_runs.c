/*-------------------------------------------------------------------------
 *
 * wal_runs.c
 *	  Sorted runs of held-back entry records in temporary files.
 *
 * When maintenance_work_mem of held-back entry records fills, redo sorts
 * each file's batch and writes it out as a run (wal_redo.c), instead of
 * applying it then, and later merges the runs with the records still in
 * memory: the trie then takes one ascending sequence of entries however
 * long the window, whose fingers pack the pages they split.  A run is a
 * temporary file of records in the order they were written: a header
 * (WAL position, trie root, length, kind), then the entry's bytes.  It is
 * written and read a chunk at a time (WAL_RUN_CHUNK), through a buffer
 * that the run holds only while it is being written or read, so that a
 * run costs one system call per chunk and no memory between the two.
 *
 * Layer: WAL (redo).  Called by wal_redo.c only; calls PostgreSQL's
 * temporary files (fd.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/fd.h"
#include "utils/wait_event.h"

#include "wal/wal_internal.h"

/* Bytes a run is written and read in at a time. */
#define WAL_RUN_CHUNK	((Size) 1024 * 1024)

/* The header of a record in a run; the entry's bytes follow. */
typedef struct WalRunHeader
{
	XLogRecPtr	lsn;
	uint32		root;
	uint32		len;
	uint8		kind;
} WalRunHeader;

/* One sorted run, being written or read through buf. */
struct WalRun
{
	File		file;
	MemoryContext cxt;			/* where the run and its buffer live */
	off_t		size;			/* bytes written to the file */
	off_t		pos;			/* bytes of the file read into buf */
	char	   *buf;			/* NULL between writing and reading */
	Size		bufsize;
	Size		used;			/* bytes in buf */
	Size		next;			/* where the next record read starts */
};

/* Write the bytes in a run's buffer to its file. */
static void
run_flush(WalRun *run)
{
	if (run->used == 0)
		return;
	if (FileWrite(run->file, run->buf, run->used, run->size,
				  WAIT_EVENT_BUFFILE_WRITE) != (int) run->used)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write a temporary file of sorted artrie WAL records: %m")));
	run->size += run->used;
	run->used = 0;
}

/* Make run->buf hold at least size bytes, keeping what it holds. */
static void
run_buffer(WalRun *run, Size size)
{
	if (run->buf != NULL && size <= run->bufsize)
		return;
	run->bufsize = Max(size, WAL_RUN_CHUNK);
	run->buf = run->buf == NULL ?
		MemoryContextAlloc(run->cxt, run->bufsize) :
		repalloc(run->buf, run->bufsize);
}

/* A new, empty run to write, in the current memory context. */
WalRun *
wal_run_create(void)
{
	WalRun	   *run = palloc0(sizeof(WalRun));

	run->cxt = CurrentMemoryContext;
	run->file = OpenTemporaryFile(true);
	run_buffer(run, WAL_RUN_CHUNK);
	return run;
}

/* Append a record to a run that is being written. */
void
wal_run_write(WalRun *run, uint8 kind, uint32 root, XLogRecPtr lsn,
			  const uint8 *entry, uint32 len)
{
	WalRunHeader hdr;
	Size		need = sizeof(hdr) + len;

	Assert(run->buf != NULL);
	if (run->used + need > run->bufsize)
	{
		run_flush(run);
		run_buffer(run, need);
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.lsn = lsn;
	hdr.root = root;
	hdr.len = len;
	hdr.kind = kind;
	memcpy(run->buf + run->used, &hdr, sizeof(hdr));
	memcpy(run->buf + run->used + sizeof(hdr), entry, len);
	run->used += need;
}

/* End writing a run: its file has every record, its buffer is freed. */
void
wal_run_finish(WalRun *run)
{
	run_flush(run);
	pfree(run->buf);
	run->buf = NULL;
	run->bufsize = 0;
}

/*
 * Make buf hold at least need bytes from run->next on, reading the next
 * chunk of the file after what is left; false if the file ends first.
 */
static bool
run_fill(WalRun *run, Size need)
{
	Size		left = run->used - run->next;
	int			got;

	if (left >= need)
		return true;
	memmove(run->buf, run->buf + run->next, left);
	run->used = left;
	run->next = 0;
	run_buffer(run, need);
	while (run->used < need && run->pos < run->size)
	{
		Size		want = Min(run->bufsize - run->used,
							   (Size) (run->size - run->pos));

		got = FileRead(run->file, run->buf + run->used, want, run->pos,
					   WAIT_EVENT_BUFFILE_READ);
		if (got <= 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read a temporary file of sorted artrie WAL records: %m")));
		run->used += got;
		run->pos += got;
	}
	return run->used >= need;
}

/*
 * Read a run's next record, from its first once it is written: false at
 * its end.  *entry stays valid until the next read.
 */
bool
wal_run_next(WalRun *run, uint8 *kind, uint32 *root, XLogRecPtr *lsn,
			 const uint8 **entry, uint32 *len)
{
	WalRunHeader hdr;

	if (run->buf == NULL)
	{
		Assert(run->pos == 0);
		run_buffer(run, WAL_RUN_CHUNK);
	}
	if (!run_fill(run, sizeof(hdr)))
	{
		if (run->used != run->next)
			elog(ERROR, "a temporary file of sorted artrie WAL records ends within a record");
		return false;
	}
	memcpy(&hdr, run->buf + run->next, sizeof(hdr));
	if (!run_fill(run, sizeof(hdr) + hdr.len))
		elog(ERROR, "a temporary file of sorted artrie WAL records ends within a record");
	*kind = hdr.kind;
	*root = hdr.root;
	*lsn = hdr.lsn;
	*entry = (const uint8 *) run->buf + run->next + sizeof(hdr);
	*len = hdr.len;
	run->next += sizeof(hdr) + hdr.len;
	return true;
}

/* Close a run's temporary file (which removes it) and free the run. */
void
wal_run_close(WalRun *run)
{
	FileClose(run->file);
	if (run->buf != NULL)
		pfree(run->buf);
	pfree(run);
}
