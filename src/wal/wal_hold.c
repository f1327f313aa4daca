/*-------------------------------------------------------------------------
 *
 * wal_hold.c
 *	  The entry records that redo holds back for a file it rebuilds from a
 *	  checkpoint's image, until the image's last record.
 *
 * A checkpoint logs an image-begin record at its snapshot, under the
 * file's write gate, and the image (the snapshot's pages) after it let
 * writers go on: the file's entry records logged between the two are not
 * in the image.  Where redo rebuilds files from images (it restores a base
 * backup and is not yet consistent at the image-begin record), it holds
 * those records back, in WAL order, from the image-begin record on, and
 * applies them after the image's last record (wal_redo.c).  They go to a
 * temporary file (a BufFile), so a burst of writes during a long image
 * costs disk, not the startup process's memory.
 *
 * A hold lasts until an image of its file has been applied whole: an
 * image that never came (its checkpoint failed after the image-begin
 * record) leaves the hold as it is, and the next image-begin record of
 * the file does not start another; the next image's last record then
 * applies every record held since the first one.  Records older than the
 * image they are applied over change nothing: each is an insert if absent
 * or a delete if present of one entry, so the last record of an entry
 * decides it, whatever state the entry had before.
 *
 * Layer: WAL (redo).  Called by wal_redo.c only; calls PostgreSQL's
 * BufFile.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/buffile.h"
#include "utils/memutils.h"

#include "wal/wal_internal.h"

/* One file's held-back entry records. */
typedef struct WalHold
{
	ArtFileId	id;
	XLogRecPtr	from;			/* the image-begin record that began it */
	BufFile    *records;		/* kind, position, length, payload each */
	uint64		n;				/* records held */
	bool		rebuilt;		/* an image's first record started the file
								 * afresh since */
} WalHold;

/* The header of a held record in its BufFile; the payload follows. */
typedef struct WalHeldRecord
{
	XLogRecPtr	lsn;
	uint32		len;
	uint8		kind;
} WalHeldRecord;

/* The holds, in TopMemoryContext. */
static WalHold *holds = NULL;
static int	nholds = 0;
static int	maxholds = 0;

/* The hold of file id, or NULL. */
static WalHold *
hold_find(const ArtFileId *id)
{
	for (int i = 0; i < nholds; i++)
		if (memcmp(&holds[i].id, id, sizeof(ArtFileId)) == 0)
			return &holds[i];
	return NULL;
}

/* Whether redo holds file id's entry records back. */
bool
wal_hold_active(const ArtFileId *id)
{
	return nholds > 0 && hold_find(id) != NULL;
}

/*
 * Begin holding back file id's entry records, at the image-begin record
 * at lsn; nothing if a hold of the file is on already (its image never
 * came).
 */
void
wal_hold_begin(const ArtFileId *id, XLogRecPtr lsn)
{
	MemoryContext old;
	WalHold    *h;

	if (hold_find(id) != NULL)
		return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	if (nholds == maxholds)
	{
		maxholds = Max(4, maxholds * 2);
		holds = holds == NULL ? palloc(maxholds * sizeof(WalHold)) :
			repalloc(holds, maxholds * sizeof(WalHold));
	}
	h = &holds[nholds];
	memset(h, 0, sizeof(WalHold));
	h->id = *id;
	h->from = lsn;
	h->records = BufFileCreateTemp(true);
	nholds++;
	MemoryContextSwitchTo(old);
}

/* Hold an entry record (kind, payload, position) back for file id. */
void
wal_hold_add(const ArtFileId *id, uint8 kind, const char *data, Size len,
			 XLogRecPtr lsn)
{
	WalHold    *h = hold_find(id);
	WalHeldRecord hdr;

	Assert(h != NULL);
	memset(&hdr, 0, sizeof(hdr));
	hdr.lsn = lsn;
	hdr.len = (uint32) len;
	hdr.kind = kind;
	BufFileWrite(h->records, (void *) &hdr, sizeof(hdr));
	BufFileWrite(h->records, (void *) data, len);
	h->n++;
}

/* Note that an image's first record started file id afresh. */
void
wal_hold_set_rebuilt(const ArtFileId *id)
{
	WalHold    *h = hold_find(id);

	if (h != NULL)
		h->rebuilt = true;
}

/* Whether an image's first record started held file id afresh. */
bool
wal_hold_rebuilt(const ArtFileId *id)
{
	WalHold    *h = hold_find(id);

	return h != NULL && h->rebuilt;
}

/*
 * The position of the oldest record held back, or InvalidXLogRecPtr: no
 * checkpoint may claim it meanwhile.
 */
XLogRecPtr
wal_hold_oldest(void)
{
	XLogRecPtr	oldest = InvalidXLogRecPtr;

	for (int i = 0; i < nholds; i++)
		if (XLogRecPtrIsInvalid(oldest) || holds[i].from < oldest)
			oldest = holds[i].from;
	return oldest;
}

/*
 * End the hold of file id: give every record held back, in WAL order, to
 * apply (with arg), or drop them all if apply is NULL.  The hold is gone
 * before the first one, so apply applies them as any record; its
 * temporary file goes in any case.  Returns how many records were held.
 */
uint64
wal_hold_release(const ArtFileId *id, WalHoldApply apply, void *arg)
{
	WalHold    *h = hold_find(id);
	WalHold		mine;
	uint64		held;

	if (h == NULL)
		return 0;
	held = h->n;
	mine = *h;
	*h = holds[--nholds];
	PG_TRY();
	{
		char	   *buf = NULL;
		Size		size = 0;

		if (apply == NULL)
			mine.n = 0;
		else if (BufFileSeek(mine.records, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not seek in the temporary file of held-back artrie WAL records: %m")));
		for (uint64 i = 0; i < mine.n; i++)
		{
			WalHeldRecord hdr;

			if (BufFileRead(mine.records, &hdr, sizeof(hdr)) != sizeof(hdr))
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read the temporary file of held-back artrie WAL records")));
			if (hdr.len > size)
			{
				size = Max((Size) hdr.len, (Size) 8192);
				buf = buf == NULL ? MemoryContextAlloc(TopMemoryContext, size) :
					repalloc(buf, size);
			}
			if (hdr.len > 0 &&
				BufFileRead(mine.records, buf, hdr.len) != hdr.len)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read the temporary file of held-back artrie WAL records")));
			apply(hdr.kind, buf, hdr.len, hdr.lsn, arg);
		}
		if (buf != NULL)
			pfree(buf);
	}
	PG_FINALLY();
	{
		BufFileClose(mine.records);
	}
	PG_END_TRY();
	return held;
}

/*
 * The files redo still holds records back for, into ids (room for
 * wal_hold_count() of them); returns how many.
 */
int
wal_hold_files(ArtFileId *ids)
{
	for (int i = 0; i < nholds; i++)
		ids[i] = holds[i].id;
	return nholds;
}

/* How many files redo holds records back for. */
int
wal_hold_count(void)
{
	return nholds;
}
