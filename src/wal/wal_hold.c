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
 * the image's records too: at the image's last record it rebuilds the
 * file from the image and then applies the entry records (wal_redo.c).
 * An image whose last record never comes (the WAL ends within it) leaves
 * the file as it was, the copy, which then holds no page of a later
 * checkpoint (that checkpoint had not ended), and the entry records held
 * back bring it up to date.  Both go to temporary files (BufFiles), so a
 * long image, or a burst of writes during it, costs disk, not the startup
 * process's memory.
 *
 * A hold lasts until an image of its file has been applied whole: an
 * image that never came (its checkpoint failed after the image-begin
 * record) leaves the hold as it is, and the next image-begin record of
 * the file does not start another; the next image's last record then
 * applies every entry record held since the first one.  Records older
 * than the image they are applied over change nothing: each is an insert
 * if absent or a delete if present of one entry, so the last record of
 * an entry decides it, whatever state the entry had before.
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
	BufFile    *records;		/* entry records: kind, position, length,
								 * payload each */
	uint64		n;				/* entry records held */
	BufFile    *images;			/* the image's records since its first, or
								 * NULL */
	uint64		nimages;		/* image records held */
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

/* Write a record (kind, payload, position) to a hold's temporary file. */
static void
held_write(BufFile *file, uint8 kind, const char *data, Size len,
		   XLogRecPtr lsn)
{
	WalHeldRecord hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.lsn = lsn;
	hdr.len = (uint32) len;
	hdr.kind = kind;
	BufFileWrite(file, (void *) &hdr, sizeof(hdr));
	BufFileWrite(file, (void *) data, len);
}

/* Give the n records of a hold's temporary file to apply, in WAL order. */
static void
held_replay(BufFile *file, uint64 n, WalHoldApply apply, void *arg)
{
	char	   *buf = NULL;
	Size		size = 0;

	if (n > 0 && BufFileSeek(file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in the temporary file of held-back artrie WAL records: %m")));
	for (uint64 i = 0; i < n; i++)
	{
		WalHeldRecord hdr;

		if (BufFileRead(file, &hdr, sizeof(hdr)) != sizeof(hdr))
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the temporary file of held-back artrie WAL records")));
		if (hdr.len > size)
		{
			size = Max((Size) hdr.len, (Size) 8192);
			buf = buf == NULL ? MemoryContextAlloc(TopMemoryContext, size) :
				repalloc(buf, size);
		}
		if (hdr.len > 0 && BufFileRead(file, buf, hdr.len) != hdr.len)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the temporary file of held-back artrie WAL records")));
		apply(hdr.kind, buf, hdr.len, hdr.lsn, arg);
	}
	if (buf != NULL)
		pfree(buf);
}

/* Drop the image records held for h. */
static void
held_images_drop(WalHold *h)
{
	if (h->images != NULL)
		BufFileClose(h->images);
	h->images = NULL;
	h->nimages = 0;
}

/* Hold an entry record (kind, payload, position) back for file id. */
void
wal_hold_add(const ArtFileId *id, uint8 kind, const char *data, Size len,
			 XLogRecPtr lsn)
{
	WalHold    *h = hold_find(id);

	Assert(h != NULL);
	held_write(h->records, kind, data, len, lsn);
	h->n++;
}

/*
 * Hold a record of a checkpoint's image of file id back until its last
 * record; first says that it is the image's first record, which drops
 * the records of an earlier image that never ended.  A record of an image
 * whose first record redo did not hold is not held.
 */
void
wal_hold_add_image(const ArtFileId *id, bool first, uint8 kind,
				   const char *data, Size len, XLogRecPtr lsn)
{
	WalHold    *h = hold_find(id);
	MemoryContext old;

	Assert(h != NULL);
	if (first)
	{
		held_images_drop(h);
		old = MemoryContextSwitchTo(TopMemoryContext);
		h->images = BufFileCreateTemp(true);
		MemoryContextSwitchTo(old);
	}
	if (h->images == NULL)
		return;
	held_write(h->images, kind, data, len, lsn);
	h->nimages++;
}

/*
 * Give the records of the image held back for file id to apply, in WAL
 * order (the hold stays on meanwhile), and drop them; returns how many
 * there were (0: the image's first record was not held).
 */
uint64
wal_hold_apply_images(const ArtFileId *id, WalHoldApply apply, void *arg)
{
	WalHold    *h = hold_find(id);
	uint64		n;

	if (h == NULL || h->images == NULL)
		return 0;
	n = h->nimages;
	PG_TRY();
	{
		held_replay(h->images, n, apply, arg);
	}
	PG_FINALLY();
	{
		h = hold_find(id);
		if (h != NULL)
			held_images_drop(h);
	}
	PG_END_TRY();
	return n;
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
		held_images_drop(&mine);
		if (apply != NULL)
			held_replay(mine.records, mine.n, apply, arg);
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
