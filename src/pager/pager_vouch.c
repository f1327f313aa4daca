/*-------------------------------------------------------------------------
 *
 * pager_vouch.c
 *	  The vouch list: the files that a pass of checkpoints found without
 *	  changes since their last checkpoint, and up to where.
 *
 * Whenever PostgreSQL's redo pointer moves, the io worker's pass logs
 * every file without changes as unchanged (pager_checkpoint.c), so that
 * redo may accept a copy of its last checkpoint.  For recovery's start
 * to move past such a file's last checkpoint, something durable must
 * also say that the file is current later than that checkpoint.  Instead
 * of stamping each file's meta page anew (a write and a sync per file),
 * the pass writes one list, $PGDATA/artrie/vouched: per file, the
 * position its last checkpoint began at (since) and a position up to
 * which it had no change (at, taken while no change could be made).  So
 * one write and two syncs cover every unchanged file, however many.
 *
 * A file whose last checkpoint began before the position that refuses
 * old files (min_redo) is served when the list names it with that very
 * checkpoint and an at not before min_redo, on this server's timeline
 * history: it then holds every change logged before at, and the WAL from
 * min_redo on is replayed.  A copy of the file from another checkpoint
 * (an older copy put back) is not named, and is refused as before.
 *
 * Each entry states a fact about one checkpoint of one file, so the
 * entries of the last list carry over into the next while their file
 * exists and the pass did not name it anew: a pass that skipped a busy
 * file loses nothing.  One pass that lists files runs at a time (the
 * vouch lock, held from its start to its end): a pass may claim every
 * closed file current only once its list is durable, so another pass
 * must not skip a file this one is listing.  The io worker only tries the
 * lock (a backend holding it may wait for the worker's I/O) and, if it is
 * busy, lists nothing this time; a backend (artrie_checkpoint()) waits.
 *
 * Layer: the file format and its reading and writing; calls PostgreSQL's
 * file functions, the timeline check (pager_timeline_agrees) and the end
 * of the WAL (pager_wal_end).
 * Called by checkpoints and the file table (pager_vouch.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_vouch.h"

#include "access/xlog.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#define VOUCH_FILE		"artrie/vouched"
#define VOUCH_TMP		"artrie/vouched.tmp"
#define VOUCH_MAGIC		0x56545241	/* "ARTV" */
#define VOUCH_VERSION	1

/* The list's header. */
typedef struct VouchHeader
{
	uint32		magic;
	uint32		version;
	uint64		sysid;			/* the cluster that wrote it */
	uint32		count;			/* entries that follow */
	pg_crc32c	crc;			/* of the header (crc zero) and entries */
} VouchHeader;

/* One file, current from its checkpoint at since up to at. */
typedef struct VouchEntry
{
	ArtFileId	id;
	TimeLineID	tli;			/* the timeline at is on */
	uint64		since;
	uint64		at;
} VouchEntry;

/* A pass's state, in this process. */
static MemoryContext vouch_cxt = NULL;
static bool vouch_on = false;
static VouchEntry *vouch_old = NULL;	/* the last list, sorted */
static int	vouch_nold = 0;
static VouchEntry *vouch_new = NULL;	/* this pass's entries */
static int *vouch_slots = NULL;	/* each one's file slot, or -1 */
static int	vouch_nnew = 0;
static int	vouch_capnew = 0;

/* Order entries by file. */
static int
vouch_cmp(const void *a, const void *b)
{
	const ArtFileId *x = &((const VouchEntry *) a)->id;
	const ArtFileId *y = &((const VouchEntry *) b)->id;

	if (x->dbOid != y->dbOid)
		return x->dbOid < y->dbOid ? -1 : 1;
	if (x->relNumber != y->relNumber)
		return x->relNumber < y->relNumber ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return 0;
}

/* The CRC of a list: its header with crc zero, then its entries. */
static pg_crc32c
vouch_crc(const VouchHeader *hdr, const VouchEntry *entries)
{
	VouchHeader h = *hdr;
	pg_crc32c	crc;

	h.crc = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &h, sizeof(h));
	COMP_CRC32C(crc, entries, sizeof(VouchEntry) * h.count);
	FIN_CRC32C(crc);
	return crc;
}

/*
 * Read the list under datadir (NULL: this cluster's) written by cluster
 * sysid, sorted, in the current memory context; -1 if there is none or it
 * is not whole.
 */
static int
vouch_read(const char *datadir, uint64 sysid, VouchEntry **entries)
{
	char		path[MAXPGPATH];
	VouchHeader hdr;
	int			fd;
	int			n = -1;

	if (datadir)
		snprintf(path, sizeof(path), "%s/%s", datadir, VOUCH_FILE);
	else
		strlcpy(path, VOUCH_FILE, sizeof(path));
	*entries = NULL;
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return -1;
	if (read(fd, &hdr, sizeof(hdr)) == sizeof(hdr) &&
		hdr.magic == VOUCH_MAGIC && hdr.version == VOUCH_VERSION &&
		hdr.sysid == sysid && hdr.count <= MaxAllocSize / sizeof(VouchEntry))
	{
		Size		len = sizeof(VouchEntry) * hdr.count;
		VouchEntry *e = palloc(Max(len, 1));

		if (read(fd, e, len) == (ssize_t) len &&
			EQ_CRC32C(vouch_crc(&hdr, e), hdr.crc))
		{
			*entries = e;
			n = (int) hdr.count;
		}
		else
			pfree(e);
	}
	CloseTransientFile(fd);
	return n;
}

/* A list's entry for a file, or NULL. */
static const VouchEntry *
vouch_find(const VouchEntry *entries, int n, const ArtFileId *id)
{
	VouchEntry	key;

	if (n <= 0)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.id = *id;
	return bsearch(&key, entries, n, sizeof(VouchEntry), vouch_cmp);
}

/*
 * Begin a pass that lists files: take the vouch lock (with conditional,
 * give up if it is busy) and read the last list.  Whether the pass lists
 * files.
 */
bool
pager_vouch_begin(bool conditional)
{
	MemoryContext old;

	pager_vouch_end();
	if (conditional)
	{
		if (!LWLockConditionalAcquire(pager_shared->vouch_lock, LW_EXCLUSIVE))
			return false;
	}
	else
		LWLockAcquire(pager_shared->vouch_lock, LW_EXCLUSIVE);
	vouch_on = true;
	if (vouch_cxt == NULL)
		vouch_cxt = AllocSetContextCreate(TopMemoryContext, "artrie vouch list",
										  ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(vouch_cxt);
	old = MemoryContextSwitchTo(vouch_cxt);
	vouch_nold = Max(vouch_read(NULL, GetSystemIdentifier(), &vouch_old), 0);
	vouch_capnew = 64;
	vouch_nnew = 0;
	vouch_new = palloc(sizeof(VouchEntry) * vouch_capnew);
	vouch_slots = palloc(sizeof(int) * vouch_capnew);
	MemoryContextSwitchTo(old);
	return true;
}

/* Whether this process runs a pass that lists files. */
bool
pager_vouch_active(void)
{
	return vouch_on;
}

/*
 * During a pass: whether the last list names the file with its
 * checkpoint that began at since, current at min_redo or later.
 */
bool
pager_vouch_listed(const ArtFileId *id, XLogRecPtr since, XLogRecPtr min_redo)
{
	const VouchEntry *e = vouch_find(vouch_old, vouch_nold, id);
	TimeLineID	server_tli;
	XLogRecPtr	left_at;

	Assert(vouch_on);
	return e != NULL && e->since == since && e->at >= min_redo &&
		pager_timeline_agrees(e->tli, e->at, &server_tli, &left_at);
}

/*
 * During a pass: list a file (of slot, or -1 for a closed one) as without
 * changes from its checkpoint that began at since up to at.  Where the
 * last list has that checkpoint current up to a later position, on this
 * server's timeline history, the file keeps that position: what it says
 * of the WAL still holds.  A standby that restarted replays again from a
 * restart point before that position, and its first pass runs while
 * replay is still behind it, yet this start refuses files current only
 * from before it (the replay_from of the last pass before the stop).
 */
void
pager_vouch_add(const ArtFileId *id, XLogRecPtr since, XLogRecPtr at,
				int slot)
{
	TimeLineID	tli = pager_timeline_now();

	Assert(vouch_on);
	if (pager_vouch_listed(id, since, at))
	{
		const VouchEntry *e = vouch_find(vouch_old, vouch_nold, id);

		tli = e->tli;
		at = e->at;
	}
	if (vouch_nnew == vouch_capnew)
	{
		vouch_capnew *= 2;
		vouch_new = repalloc_huge(vouch_new, sizeof(VouchEntry) * vouch_capnew);
		vouch_slots = repalloc_huge(vouch_slots, sizeof(int) * vouch_capnew);
	}
	memset(&vouch_new[vouch_nnew], 0, sizeof(VouchEntry));
	vouch_new[vouch_nnew].id = *id;
	vouch_new[vouch_nnew].tli = tli;
	vouch_new[vouch_nnew].since = since;
	vouch_new[vouch_nnew].at = at;
	vouch_slots[vouch_nnew] = slot;
	vouch_nnew++;
}

/* Whether the file of an entry is still there. */
static bool
vouch_file_exists(const ArtFileId *id)
{
	char		path[MAXPGPATH];
	struct stat st;

	snprintf(path, sizeof(path), "artrie/%u/%u.%u",
			 id->dbOid, id->relNumber, id->generation);
	return stat(path, &st) == 0;
}

/*
 * Write the list the pass made, with the last list's entries of files
 * that still exist and that it did not name, durably (a new file, synced,
 * renamed over the old one); then the open files listed are current at
 * their at (vouched_at), which recovery's start may pass.  ERROR if the
 * pass lost the vouch lock (an ERROR of a file's checkpoint released
 * every lock) and cannot take it again at once.
 */
void
pager_vouch_commit(void)
{
	MemoryContext old = MemoryContextSwitchTo(vouch_cxt);
	VouchEntry *all;
	VouchEntry *base;
	int			nbase;
	VouchHeader hdr;
	int			n = 0;
	int			fd;
	Size		len;

	Assert(vouch_on);
	if (!LWLockHeldByMe(pager_shared->vouch_lock) &&
		!LWLockConditionalAcquire(pager_shared->vouch_lock, LW_EXCLUSIVE))
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("artrie's vouch list is being written by another checkpoint")));
	nbase = Max(vouch_read(NULL, GetSystemIdentifier(), &base), 0);
	all = palloc_extended(sizeof(VouchEntry) * Max(vouch_nnew + nbase, 1),
						  MCXT_ALLOC_HUGE);
	memcpy(all, vouch_new, sizeof(VouchEntry) * vouch_nnew);
	n = vouch_nnew;
	qsort(all, n, sizeof(VouchEntry), vouch_cmp);
	for (int i = 0; i < nbase; i++)
	{
		if (vouch_find(all, vouch_nnew, &base[i].id) == NULL &&
			vouch_file_exists(&base[i].id))
			all[n++] = base[i];
	}
	qsort(all, n, sizeof(VouchEntry), vouch_cmp);

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = VOUCH_MAGIC;
	hdr.version = VOUCH_VERSION;
	hdr.sysid = GetSystemIdentifier();
	hdr.count = n;
	hdr.crc = vouch_crc(&hdr, all);
	len = sizeof(VouchEntry) * n;

	/* Every unchanged record the list stands for is in the WAL first. */
	XLogFlush(pager_wal_end());
	fd = OpenTransientFile(VOUCH_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", VOUCH_TMP)));
	if (write(fd, &hdr, sizeof(hdr)) != sizeof(hdr) ||
		(len > 0 && write(fd, all, len) != (ssize_t) len))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", VOUCH_TMP)));
	}
	if (pg_fsync(fd) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", VOUCH_TMP)));
	CloseTransientFile(fd);
	durable_rename(VOUCH_TMP, VOUCH_FILE, ERROR);
	MemoryContextSwitchTo(old);

	for (int i = 0; i < vouch_nnew; i++)
	{
		PagerFileSlot *fs;

		if (vouch_slots[i] < 0)
			continue;
		fs = &pager_shared->files[vouch_slots[i]];
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		if (fs->in_use && fs->loaded &&
			memcmp(&fs->id, &vouch_new[i].id, sizeof(ArtFileId)) == 0 &&
			fs->redo_lsn == vouch_new[i].since)
		{
			fs->vouched_at = Max(fs->vouched_at, vouch_new[i].at);
			fs->stale = false;
		}
		LWLockRelease(&fs->lock);
	}
}

/* End a pass that lists files, written or not. */
void
pager_vouch_end(void)
{
	if (!vouch_on)
		return;
	vouch_on = false;
	vouch_old = vouch_new = NULL;
	vouch_slots = NULL;
	vouch_nold = vouch_nnew = vouch_capnew = 0;
	MemoryContextReset(vouch_cxt);
	if (LWLockHeldByMe(pager_shared->vouch_lock))
		LWLockRelease(pager_shared->vouch_lock);
}

/*
 * This cluster's list as this process last read it (for redo, which asks
 * once per unchanged record): read again when the file changed.
 */
static VouchEntry *cached = NULL;
static int	ncached = -1;
static struct stat cached_st;

/* This cluster's list, from the cache if the file did not change. */
static int
vouch_cached(VouchEntry **entries)
{
	struct stat st;

	*entries = NULL;
	if (stat(VOUCH_FILE, &st) != 0)
		return -1;
	if (ncached < 0 || st.st_ino != cached_st.st_ino ||
		st.st_size != cached_st.st_size ||
		st.st_mtim.tv_sec != cached_st.st_mtim.tv_sec ||
		st.st_mtim.tv_nsec != cached_st.st_mtim.tv_nsec)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		if (cached)
			pfree(cached);
		ncached = vouch_read(NULL, GetSystemIdentifier(), &cached);
		cached_st = st;
		MemoryContextSwitchTo(old);
	}
	*entries = cached;
	return ncached;
}

/*
 * Whether the list under datadir (NULL: this cluster's) of cluster sysid
 * names the file with its checkpoint that began at since, current at
 * min_redo or later (*at); for this cluster, on its timeline history.
 */
bool
pager_vouch_covers(const char *datadir, uint64 sysid, const ArtFileId *id,
				   XLogRecPtr since, XLogRecPtr min_redo, XLogRecPtr *at)
{
	VouchEntry *entries;
	int			n = datadir ? vouch_read(datadir, sysid, &entries) :
		vouch_cached(&entries);
	const VouchEntry *e = vouch_find(entries, n, id);
	bool		ok = false;

	if (e != NULL && e->since == since && e->at >= min_redo)
	{
		TimeLineID	server_tli;
		XLogRecPtr	left_at;

		ok = datadir != NULL ||
			pager_timeline_agrees(e->tli, e->at, &server_tli, &left_at);
		*at = e->at;
	}
	if (datadir && entries)
		pfree(entries);
	return ok;
}
