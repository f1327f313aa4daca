/*-------------------------------------------------------------------------
 *
 * pager_file.c
 *	  artrie files: the file table, page maps, space, and copy-on-write
 *	  checkpoints.
 *
 * A file open anywhere in the cluster has a slot in shared memory with
 * its page map (logical -> physical) and two bitmaps over physical pages
 * ("durable" and "current", see pager_internal.h), kept in dynamic shared
 * memory because they grow with the file.  The first process to open a
 * file loads them from the newest valid meta page and its map pages.
 *
 * A checkpoint of a file:
 *	1. under the file's write gate (so that it sees no change half done),
 *	   takes the file's dirty frames, sorted by page number, in batches of
 *	   the ring's size: each page gets a physical page in neither bitmap
 *	   (so the last durable checkpoint's pages are never overwritten), is
 *	   sealed (CRC32C, page number, file identity, a fresh write stamp)
 *	   and written;
 *	2. still under the gate, snapshots the page map and adds the
 *	   snapshot's pages to "durable" (so that nothing it needs can be
 *	   reused while it is being made durable); then, without the gate,
 *	   writes the map pages, to fresh physical pages too;
 *	3. fdatasync; writes the meta slot the last checkpoint did not use
 *	   (write + fdatasync);
 *	4. only then sets "durable" to exactly the new checkpoint's pages: what
 *	   the old one alone used becomes free.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_internal.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* Meta and map pages move through this many scratch frames at a time. */
#define PAGER_SCRATCH_BATCH	8

/* A dirty page a checkpoint writes. */
typedef struct CkptItem
{
	int			frame;
	ArtPageNo	pageno;
	uint32		phys;
	uint32		stamp;
} CkptItem;

/* A checkpoint's snapshot of a file's state. */
typedef struct CkptSnapshot
{
	uint32		nlogical;
	uint32		nused;
	uint32		nphys;
	uint32		nmap;
	uint32	   *mappages;
	uint32	   *stamps;			/* the map's stamps, nlogical of them */
	uint32		user[PAGER_USER_WORDS];
	uint64		redo_lsn;	/* replay this file's records from here */
} CkptSnapshot;

/* This backend's handles, by file identity. */
typedef struct LocalFile
{
	ArtFileId	id;				/* hash key */
	PagerFile	file;
} LocalFile;

static HTAB *local_files = NULL;

static PagerHooks pager_hooks;

/*
 * Raise the ERROR for a corrupted page.
 */
void
pager_corrupt(PagerFileSlot *fs, uint32 pageno, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("index \"%s\" is corrupted: page %u of file \"%s\"",
					fs->relname, pageno, fs->path),
			 errdetail("%s", detail),
			 errhint("REINDEX the index.")));
}

/*
 * A file's path relative to the data directory.
 */
void
pager_file_path(const ArtFileId *id, char *path)
{
	snprintf(path, IO_PATH_LEN, "artrie/%u/%u.%u",
			 id->dbOid, id->relNumber, id->generation);
}

/* Bitmap helpers. */
static inline bool
bit_get(const uint8 *bits, uint32 i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

static inline void
bit_set(uint8 *bits, uint32 i)
{
	bits[i / 8] |= (uint8) (1 << (i % 8));
}

static inline void
bit_clear(uint8 *bits, uint32 i)
{
	bits[i / 8] &= (uint8) ~(1 << (i % 8));
}

/* Is a map value a physical page? */
static inline bool
phys_real(uint32 phys)
{
	return phys != PAGER_PHYS_NONE && phys != PAGER_PHYS_FREE;
}

/*
 * Replace a dsa array by a zeroed larger one holding the old contents.
 */
static dsa_pointer
dsa_grow(dsa_pointer old, Size oldsize, Size newsize)
{
	dsa_area   *area = pager_dsa();
	dsa_pointer p = dsa_allocate_extended(area, newsize, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);

	if (DsaPointerIsValid(old))
	{
		memcpy(dsa_get_address(area, p), dsa_get_address(area, old), oldsize);
		dsa_free(area, old);
	}
	return p;
}

/*
 * Make the page map hold n entries (caller holds fs->lock exclusive).
 */
static void
map_reserve(PagerFileSlot *fs, uint32 n)
{
	uint32		cap;

	if (n <= fs->map_cap)
		return;
	cap = Max(Max(n, 1024), fs->map_cap * 2);
	fs->map = dsa_grow(fs->map, (Size) fs->map_cap * sizeof(uint32),
					   (Size) cap * sizeof(uint32));
	fs->stamps = dsa_grow(fs->stamps, (Size) fs->map_cap * sizeof(uint32),
						  (Size) cap * sizeof(uint32));
	fs->map_cap = cap;
}

/*
 * Make the bitmaps cover n physical pages (fs->lock exclusive).
 */
static void
phys_reserve(PagerFileSlot *fs, uint32 n)
{
	uint32		cap;

	if (n <= fs->phys_cap)
		return;
	cap = TYPEALIGN(64, Max(Max(n, 8192), fs->phys_cap * 2));
	fs->durable = dsa_grow(fs->durable, fs->phys_cap / 8, cap / 8);
	fs->current = dsa_grow(fs->current, fs->phys_cap / 8, cap / 8);
	fs->phys_cap = cap;
}

static inline uint32 *
map_of(PagerFileSlot *fs)
{
	return (uint32 *) dsa_get_address(pager_dsa(), fs->map);
}

static inline uint32 *
stamps_of(PagerFileSlot *fs)
{
	return (uint32 *) dsa_get_address(pager_dsa(), fs->stamps);
}

static inline uint8 *
durable_of(PagerFileSlot *fs)
{
	return (uint8 *) dsa_get_address(pager_dsa(), fs->durable);
}

static inline uint8 *
current_of(PagerFileSlot *fs)
{
	return (uint8 *) dsa_get_address(pager_dsa(), fs->current);
}

/*
 * A physical page in neither bitmap (fs->lock exclusive); the caller
 * marks it.
 */
static uint32
phys_find_free(PagerFileSlot *fs)
{
	uint8	   *d;
	uint8	   *c;
	uint32		p = Max(fs->phys_hint, PAGER_FIRST_DATA_PHYS);

	if (fs->nphys > 0 && fs->phys_cap >= fs->nphys)
	{
		d = durable_of(fs);
		c = current_of(fs);
		while (p < fs->nphys)
		{
			if ((p % 8) == 0 && (d[p / 8] | c[p / 8]) == 0xFF)
			{
				p += 8;
				continue;
			}
			if (!bit_get(d, p) && !bit_get(c, p))
			{
				fs->phys_hint = p + 1;
				return p;
			}
			p++;
		}
	}
	if (fs->nphys == PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("artrie file \"%s\" is full", fs->path)));
	phys_reserve(fs, fs->nphys + 1);
	p = fs->nphys++;
	fs->phys_hint = fs->nphys;
	return p;
}

/*
 * A fresh physical page for a data page, marked "current", and the write
 * stamp to seal the page with.
 */
uint32
pager_phys_alloc(PagerFileSlot *fs, uint32 *stamp)
{
	uint32		p;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	p = phys_find_free(fs);
	bit_set(current_of(fs), p);
	*stamp = ++fs->write_stamp;
	LWLockRelease(&fs->lock);
	return p;
}

/*
 * Give back a physical page allocated but not used.
 */
void
pager_phys_release(PagerFileSlot *fs, uint32 phys)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	bit_clear(current_of(fs), phys);
	if (phys < fs->phys_hint)
		fs->phys_hint = phys;
	LWLockRelease(&fs->lock);
}

/*
 * Point a logical page at a physical one written with a write stamp
 * (fs->lock exclusive); its former physical page is no longer "current".
 */
static void
map_set_locked(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys, uint32 stamp)
{
	uint32	   *map = map_of(fs);
	uint32		old = map[pageno];

	map[pageno] = phys;
	stamps_of(fs)[pageno] = stamp;
	if (phys_real(old) && old != phys)
	{
		bit_clear(current_of(fs), old);
		if (old < fs->phys_hint)
			fs->phys_hint = old;
	}
	fs->changed = true;
}

/*
 * Point a logical page at a physical page just written with a stamp.
 */
void
pager_map_set(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys, uint32 stamp)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	map_set_locked(fs, pageno, phys, stamp);
	LWLockRelease(&fs->lock);
}

/*
 * Where a logical page lives, and (if stamp is not NULL) the write stamp
 * it must carry there.
 */
uint32
pager_map_get(PagerFileSlot *fs, ArtPageNo pageno, uint32 *stamp)
{
	uint32		phys = PAGER_PHYS_FREE;

	LWLockAcquire(&fs->lock, LW_SHARED);
	if (pageno < fs->nlogical)
	{
		phys = map_of(fs)[pageno];
		if (stamp)
			*stamp = stamps_of(fs)[pageno];
	}
	LWLockRelease(&fs->lock);
	return phys;
}

/*
 * A free logical page number, or a new one past the end.
 */
ArtPageNo
pager_logical_alloc(PagerFileSlot *fs)
{
	uint32	   *map;
	ArtPageNo	l;

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	map = fs->map_cap > 0 ? map_of(fs) : NULL;
	for (l = fs->free_hint; l < fs->nlogical; l++)
	{
		if (map[l] == PAGER_PHYS_FREE)
			break;
	}
	if (l >= fs->nlogical)
	{
		if (fs->nlogical >= PAGER_MAX_MAP_PAGES * PAGER_MAP_PER_PAGE)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("index \"%s\" cannot grow past %u pages",
							fs->relname, (uint32) (PAGER_MAX_MAP_PAGES * PAGER_MAP_PER_PAGE))));
		map_reserve(fs, fs->nlogical + 1);
		map = map_of(fs);
		l = fs->nlogical++;
	}
	map[l] = PAGER_PHYS_NONE;
	stamps_of(fs)[l] = 0;
	fs->nused++;
	fs->free_hint = l + 1;
	fs->changed = true;
	LWLockRelease(&fs->lock);
	return l;
}

/*
 * Free a logical page.
 */
void
pager_logical_free(PagerFileSlot *fs, ArtPageNo pageno)
{
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	map_set_locked(fs, pageno, PAGER_PHYS_FREE, 0);
	fs->nused--;
	if (pageno < fs->free_hint)
		fs->free_hint = pageno;
	LWLockRelease(&fs->lock);
}

/*
 * Take a file's ckpt_lock.  A backend may hold it while it waits for the
 * io worker's I/O (loading the file, checkpointing it), so the io worker
 * itself never sleeps on it: it serves I/O between tries.
 */
static void
ckpt_lock_acquire(PagerFileSlot *fs)
{
	if (!io_in_worker())
	{
		LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
		return;
	}
	while (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		io_worker_serve(1);
}

/*
 * The slot of an identity, or -1 (files lock held).
 */
static int
slot_find(const ArtFileId *id)
{
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (fs->in_use && fs->id.dbOid == id->dbOid &&
			fs->id.relNumber == id->relNumber &&
			fs->id.generation == id->generation)
			return i;
	}
	return -1;
}

/*
 * Take a free slot for an identity (files lock held exclusive).
 */
static int
slot_new(const ArtFileId *id, const char *relname)
{
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (!fs->in_use)
		{
			fs->in_use = true;
			fs->loaded = false;
			fs->incarnation++;
			fs->id = *id;
			pager_file_path(id, fs->path);
			strlcpy(fs->relname, relname ? relname : "?", NAMEDATALEN);
			return i;
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("too many artrie files are open"),
			 errhint("Raise artrie.max_files.")));
	return -1;					/* keep compiler quiet */
}

/*
 * Empty a slot's in-memory state (ckpt_lock exclusive).  Write stamps
 * start anew at a random value (see pager_internal.h).
 */
static void
slot_reset(PagerFileSlot *fs)
{
	dsa_area   *area = pager_dsa();

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	if (DsaPointerIsValid(fs->map))
		dsa_free(area, fs->map);
	if (DsaPointerIsValid(fs->stamps))
		dsa_free(area, fs->stamps);
	if (DsaPointerIsValid(fs->durable))
		dsa_free(area, fs->durable);
	if (DsaPointerIsValid(fs->current))
		dsa_free(area, fs->current);
	fs->map = fs->stamps = fs->durable = fs->current = InvalidDsaPointer;
	if (!pg_strong_random(&fs->write_stamp, sizeof(fs->write_stamp)))
		fs->write_stamp = (uint32) random();
	fs->map_cap = fs->phys_cap = 0;
	fs->nlogical = fs->nused = 0;
	fs->nphys = PAGER_FIRST_DATA_PHYS;
	fs->free_hint = 0;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;
	fs->ckpt_no = 0;
	fs->meta_slot = 0;
	fs->changed = false;
	memset(fs->user, 0, sizeof(fs->user));
	phys_reserve(fs, PAGER_FIRST_DATA_PHYS);
	bit_set(durable_of(fs), 0);
	bit_set(durable_of(fs), 1);
	LWLockRelease(&fs->lock);
}

/*
 * Fill a meta page for checkpoint ckpt_no.
 */
static void
meta_fill(PagerFileSlot *fs, char *page, int slot, uint64 ckpt_no,
		  XLogRecPtr redo_lsn, uint32 nlogical, uint32 nphys, uint32 nused,
		  const uint32 *user, uint32 nmap, const uint32 *mappages)
{
	PagerMeta	m;

	memset(&m, 0, sizeof(m));
	m.ckpt_no = ckpt_no;
	m.redo_lsn = redo_lsn;
	m.sysid = GetSystemIdentifier();
	m.nlogical = nlogical;
	m.nphys = nphys;
	m.nused = nused;
	m.nmap = nmap;
	memcpy(m.user, user, sizeof(m.user));
	pager_meta_encode((uint8 *) page, &fs->id, slot, &m, mappages);
}

/*
 * Refuse a file marked damaged (pager_mark_damaged), with the reason the
 * marker holds.
 */
static void
slot_check_damaged(PagerFileSlot *fs)
{
	char		path[IO_PATH_LEN + 16];
	char		reason[512];
	int			fd;
	ssize_t		n;

	snprintf(path, sizeof(path), "%s%s", fs->path, PAGER_DAMAGED_SUFFIX);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno == ENOENT)
			return;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	}
	n = read(fd, reason, sizeof(reason) - 1);
	CloseTransientFile(fd);
	reason[Max(n, 0)] = '\0';
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("index \"%s\" cannot be used: file \"%s\" lacks changes that recovery could not apply",
					fs->relname, fs->path),
			 errdetail("%s", reason),
			 errhint("REINDEX the index.")));
}

/*
 * Refuse a file that cannot be proven current: one of another cluster, or
 * whose last checkpoint began before the WAL that recovery could replay
 * (a copy restored from a backup taken before its checkpoint), or after
 * the WAL that exists here (a copy from elsewhere).
 */
static void
slot_check_current(PagerFileSlot *fs, const PagerMeta *m)
{
	if (m->sysid != GetSystemIdentifier())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" belongs to another database cluster",
						fs->relname, fs->path),
				 errdetail("The file was written by the cluster with system identifier " UINT64_FORMAT ", this one is " UINT64_FORMAT ".",
						   (uint64) m->sysid, GetSystemIdentifier()),
				 errhint("REINDEX the index.")));
	if (m->redo_lsn < pager_shared->min_redo)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" may lack changes that the WAL here no longer holds",
						fs->relname, fs->path),
				 errdetail("The file's last checkpoint began at %X/%X, before %X/%X, where the WAL that artrie replayed at server start began.",
						   LSN_FORMAT_ARGS(m->redo_lsn),
						   LSN_FORMAT_ARGS(pager_shared->min_redo)),
				 errhint("REINDEX the index.")));
	if (m->redo_lsn > pager_redo_now() && pager_shared->ready &&
		(!RecoveryInProgress() || HotStandbyActive()))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" is newer than this server's WAL",
						fs->relname, fs->path),
				 errdetail("The file's last checkpoint began at %X/%X, past the end of the WAL at %X/%X.",
						   LSN_FORMAT_ARGS(m->redo_lsn),
						   LSN_FORMAT_ARGS(pager_redo_now())),
				 errhint("REINDEX the index.")));
}

/*
 * Load a file's state from disk (ckpt_lock exclusive).
 */
static void
slot_load(PagerFileSlot *fs)
{
	struct stat st;
	int			scratch[2];
	IoPage		pages[PAGER_SCRATCH_BATCH];
	char		problem[2][128];
	PagerMeta	meta[2];
	const uint8 *meta_map[2];
	int			best = -1;
	PagerMeta  *m;
	uint32		nlogical,
				nphys,
				nmap;
	uint32	   *mappages;
	uint32	   *map;
	uint8	   *dur;
	uint8	   *cur;
	uint32		nused = 0;

	slot_check_damaged(fs);
	if (stat(fs->path, &st) != 0)
	{
		if (errno == ENOENT)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FILE),
					 errmsg("file \"%s\" of index \"%s\" is missing", fs->path, fs->relname),
					 errhint("REINDEX the index.")));
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", fs->path)));
	}
	if (st.st_size < 2 * ART_PAGE_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has no valid meta page",
						fs->relname, fs->path),
				 errdetail("The file is %lld bytes long.", (long long) st.st_size),
				 errhint("REINDEX the index.")));

	slot_reset(fs);

	scratch[0] = pager_scratch_get();
	scratch[1] = pager_scratch_get();
	for (int i = 0; i < 2; i++)
	{
		pages[i].offset = (uint64) i * ART_PAGE_SIZE;
		pages[i].buf = pager_frame_data(scratch[i]);
	}
	io_read_pages(fs->path, pages, 2);
	for (int i = 0; i < 2; i++)
	{
		if (pager_meta_decode((const uint8 *) pages[i].buf, &fs->id, i,
							  &meta[i], &meta_map[i], problem[i],
							  sizeof(problem[i])))
		{
			problem[i][0] = '\0';
			if (best < 0 || meta[i].ckpt_no > meta[best].ckpt_no)
				best = i;
		}
	}
	if (best < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has no valid meta page",
						fs->relname, fs->path),
				 errdetail("Meta slot 0: %s.  Meta slot 1: %s.", problem[0], problem[1]),
				 errhint("REINDEX the index.")));

	m = &meta[best];

	/*
	 * With one slot damaged, the other may be the older checkpoint: usable
	 * only if the WAL replayed at this start held every change since it
	 * (then redo, had there been any, would have found the damage).
	 */
	if (problem[best ^ 1][0] != '\0' && m->redo_lsn < pager_shared->replayed_from)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has a damaged meta page",
						fs->relname, fs->path),
				 errdetail("Meta slot %d: %s.  The other slot's checkpoint is older than the WAL artrie replays.",
						   best ^ 1, problem[best ^ 1]),
				 errhint("REINDEX the index.")));
	slot_check_current(fs, m);
	nlogical = m->nlogical;
	nphys = m->nphys;
	nmap = m->nmap;
	mappages = palloc(sizeof(uint32) * Max(nmap, 1));
	memcpy(mappages, meta_map[best], sizeof(uint32) * nmap);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	fs->ckpt_no = m->ckpt_no;
	fs->redo_lsn = m->redo_lsn;
	fs->meta_slot = best;
	memcpy(fs->user, m->user, sizeof(fs->user));
	fs->nphys = nphys;
	phys_reserve(fs, nphys);
	map_reserve(fs, nlogical);
	fs->nlogical = nlogical;
	LWLockRelease(&fs->lock);
	pager_scratch_put(scratch[1]);
	pager_scratch_put(scratch[0]);

	/* The map pages, a few at a time. */
	for (uint32 first = 0; first < nmap; first += PAGER_SCRATCH_BATCH)
	{
		int			n = Min(PAGER_SCRATCH_BATCH, nmap - first);
		int			frames[PAGER_SCRATCH_BATCH];

		for (int i = 0; i < n; i++)
		{
			uint32		phys = mappages[first + i];

			if (phys < PAGER_FIRST_DATA_PHYS || phys >= nphys)
				pager_corrupt(fs, first + i, "a map page lies past the end of the file");
			if ((uint64) (phys + 1) * ART_PAGE_SIZE > (uint64) st.st_size)
				pager_corrupt(fs, first + i,
							  psprintf("map page at physical page %u lies past the end of the file, which is %lld bytes long",
									   phys, (long long) st.st_size));
			frames[i] = pager_scratch_get();
			pages[i].offset = (uint64) phys * ART_PAGE_SIZE;
			pages[i].buf = pager_frame_data(frames[i]);
		}
		io_read_pages(fs->path, pages, n);
		LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
		map = map_of(fs);
		for (int i = 0; i < n; i++)
		{
			const char *p = pager_page_check(fs, pages[i].buf, first + i, PAGER_KIND_MAP);
			uint32		base = (first + i) * PAGER_MAP_PER_PAGE;
			uint32		count;

			if (p == NULL && ((PagerPageHeader *) pages[i].buf)->ckpt_no != fs->ckpt_no)
				p = "map page of another checkpoint";
			if (p)
			{
				LWLockRelease(&fs->lock);
				pager_corrupt(fs, first + i, psprintf("map page: %s", p));
			}
			count = Min(PAGER_MAP_PER_PAGE, nlogical - Min(nlogical, base));
			memcpy(map + base, pages[i].buf + ART_PAGE_RESERVED, sizeof(uint32) * count);
			memcpy(stamps_of(fs) + base, pages[i].buf + PAGER_MAP_STAMPS, sizeof(uint32) * count);
		}
		LWLockRelease(&fs->lock);
		for (int i = n - 1; i >= 0; i--)
			pager_scratch_put(frames[i]);
	}

	/* Bitmaps, checking every entry. */
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	map = map_of(fs);
	dur = durable_of(fs);
	cur = current_of(fs);
	for (uint32 i = 0; i < nmap; i++)
		bit_set(dur, mappages[i]);
	for (uint32 l = 0; l < nlogical; l++)
	{
		uint32		p = map[l];

		if (p == PAGER_PHYS_FREE)
			continue;
		nused++;
		if (p == PAGER_PHYS_NONE)
			continue;
		if (p < PAGER_FIRST_DATA_PHYS || p >= nphys)
		{
			LWLockRelease(&fs->lock);
			pager_corrupt(fs, l, psprintf("the page map points past the file (physical page %u)", p));
		}
		if ((uint64) (p + 1) * ART_PAGE_SIZE > (uint64) st.st_size)
		{
			LWLockRelease(&fs->lock);
			pager_corrupt(fs, l,
						  psprintf("physical page %u lies past the end of the file, which is %lld bytes long",
								   p, (long long) st.st_size));
		}
		bit_set(dur, p);
		bit_set(cur, p);
	}
	fs->nused = nused;
	fs->free_hint = 0;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;
	fs->changed = false;
	LWLockRelease(&fs->lock);
	pfree(mappages);
}

/*
 * Write both meta slots of a new, empty file and make them durable.
 */
static void
slot_init_file(PagerFileSlot *fs)
{
	int			scratch[2];
	IoPage		pages[2];

	slot_reset(fs);
	fs->redo_lsn = pager_redo_now();
	for (int i = 0; i < 2; i++)
	{
		scratch[i] = pager_scratch_get();
		pages[i].offset = (uint64) i * ART_PAGE_SIZE;
		pages[i].buf = pager_frame_data(scratch[i]);
		meta_fill(fs, pages[i].buf, i, 0, fs->redo_lsn, 0,
				  PAGER_FIRST_DATA_PHYS, 0, fs->user, 0, NULL);
	}
	io_write_sync(fs->path, pages, 2);
	pager_scratch_put(scratch[1]);
	pager_scratch_put(scratch[0]);
}

/*
 * This backend's handle for a slot.
 */
static PagerFile *
local_file(const ArtFileId *id, int slot, const char *relname)
{
	LocalFile  *lf;
	bool		found;
	ArtFileId	key;

	if (local_files == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(ArtFileId);
		ctl.entrysize = sizeof(LocalFile);
		ctl.hcxt = TopMemoryContext;
		local_files = hash_create("artrie local files", 64, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));
	key = *id;
	lf = hash_search(local_files, &key, HASH_ENTER, &found);
	lf->file.id = *id;
	lf->file.slot = slot;
	lf->file.incarnation = pager_shared->files[slot].incarnation;
	strlcpy(lf->file.relname, relname ? relname : pager_shared->files[slot].relname,
			NAMEDATALEN);
	return &lf->file;
}

/*
 * Find or load the slot of a file; ERROR if it cannot be opened.
 */
static int
slot_open(const ArtFileId *id, const char *relname)
{
	int			slot;
	PagerFileSlot *fs;

	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	slot = slot_find(id);
	if (slot < 0)
		slot = slot_new(id, relname);
	else if (relname)
	{
		/* The first opener may have been recovery, or the index renamed. */
		strlcpy(pager_shared->files[slot].relname, relname, NAMEDATALEN);
	}
	LWLockRelease(pager_shared->files_lock);
	fs = &pager_shared->files[slot];

	if (!fs->loaded)
	{
		ckpt_lock_acquire(fs);
		if (!fs->loaded)
		{
			PG_TRY();
			{
				slot_load(fs);
			}
			PG_CATCH();
			{
				LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
				if (!fs->loaded)
				{
					fs->in_use = false;
					fs->incarnation++;
				}
				LWLockRelease(pager_shared->files_lock);
				LWLockRelease(&fs->ckpt_lock);
				PG_RE_THROW();
			}
			PG_END_TRY();
			fs->loaded = true;
		}
		LWLockRelease(&fs->ckpt_lock);
	}
	return slot;
}

/*
 * The slot behind a handle, reopening the file if the slot was reused.
 */
PagerFileSlot *
pager_slot(PagerFile *file)
{
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	if (fs->in_use && fs->loaded && fs->incarnation == file->incarnation)
		return fs;
	file->slot = slot_open(&file->id, file->relname);
	file->incarnation = pager_shared->files[file->slot].incarnation;
	return &pager_shared->files[file->slot];
}

/*
 * Create a new, empty file.
 */
PagerFile *
pager_create_file(const ArtFileId *id, const char *relname)
{
	char		path[IO_PATH_LEN];
	char		dir[IO_PATH_LEN];
	int			fd;
	int			slot;
	PagerFileSlot *fs;

	pager_backend_ready();
	pager_file_path(id, path);
	snprintf(dir, sizeof(dir), "artrie/%u", id->dbOid);
	if (MakePGDirectory("artrie") < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", "artrie")));
	if (MakePGDirectory(dir) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
	fd = BasicOpenFile(path, O_RDWR | O_CREAT | O_EXCL | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	close(fd);

	LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
	slot = slot_find(id);
	if (slot >= 0)
	{
		/* A stale slot of a file of that name that is gone. */
		pager_shared->files[slot].in_use = false;
		pager_shared->files[slot].incarnation++;
	}
	slot = slot_new(id, relname);
	LWLockRelease(pager_shared->files_lock);
	fs = &pager_shared->files[slot];

	LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
	slot_init_file(fs);
	fs->loaded = true;
	LWLockRelease(&fs->ckpt_lock);

	fsync_fname(dir, true);
	fsync_fname("artrie", true);
	return local_file(id, slot, relname);
}

/*
 * Open an existing file.
 */
PagerFile *
pager_open_file(const ArtFileId *id, const char *relname)
{
	int			slot;

	pager_backend_ready();
	if (local_files)
	{
		LocalFile  *lf = hash_search(local_files, id, HASH_FIND, NULL);

		if (lf)
		{
			PagerFileSlot *fs = &pager_shared->files[lf->file.slot];

			if (relname)
				strlcpy(lf->file.relname, relname, NAMEDATALEN);
			if (fs->in_use && fs->loaded && fs->incarnation == lf->file.incarnation &&
				(relname == NULL || strcmp(fs->relname, relname) == 0))
				return &lf->file;
		}
	}
	slot = slot_open(id, relname);
	return local_file(id, slot, relname);
}

/*
 * Forget slot's file (if it is still id): its pages leave the pool and the
 * slot is free.
 */
static void
slot_release(int slot, const ArtFileId *id)
{
	PagerFileSlot *fs = &pager_shared->files[slot];

	ckpt_lock_acquire(fs);
	if (fs->in_use && fs->id.dbOid == id->dbOid &&
		fs->id.relNumber == id->relNumber && fs->id.generation == id->generation)
	{
		pager_forget_frames(slot);
		if (fs->loaded)
			slot_reset(fs);
		LWLockAcquire(pager_shared->files_lock, LW_EXCLUSIVE);
		fs->in_use = false;
		fs->loaded = false;
		fs->incarnation++;
		LWLockRelease(pager_shared->files_lock);
	}
	LWLockRelease(&fs->ckpt_lock);
}

/*
 * Forget a file's pages and remove it from disk.
 */
void
pager_drop_file(const ArtFileId *id)
{
	char		path[IO_PATH_LEN + 16];
	int			slot;

	pager_backend_ready();
	pager_file_path(id, path);

	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	slot = slot_find(id);
	LWLockRelease(pager_shared->files_lock);
	if (slot >= 0)
		slot_release(slot, id);
	if (local_files)
		hash_search(local_files, id, HASH_REMOVE, NULL);
	io_forget_file(path);
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}

/* Order checkpoint items by page number. */
static int
ckpt_item_cmp(const void *a, const void *b)
{
	const CkptItem *x = a;
	const CkptItem *y = b;

	if (x->pageno != y->pageno)
		return x->pageno < y->pageno ? -1 : 1;
	return 0;
}

/*
 * Write one batch of pinned frames (their dirty flags taken) to fresh
 * physical pages, then point the map at them and unpin them.
 */
static void
ckpt_flush_batch(PagerFileSlot *fs, CkptItem *items, int n)
{
	IoPage	   *pages = palloc(sizeof(IoPage) * n);

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		items[i].phys = phys_find_free(fs);
		items[i].stamp = ++fs->write_stamp;
		bit_set(current_of(fs), items[i].phys);
	}
	LWLockRelease(&fs->lock);

	for (int i = 0; i < n; i++)
	{
		char	   *data = pager_frame_data(items[i].frame);

		pager_page_seal(fs, data, items[i].pageno, PAGER_KIND_DATA,
						items[i].stamp);
		pages[i].offset = (uint64) items[i].phys * ART_PAGE_SIZE;
		pages[i].buf = data;
	}

	PG_TRY();
	{
		io_write_pages(fs->path, pages, n);
	}
	PG_CATCH();
	{
		for (int i = 0; i < n; i++)
		{
			PagerFrame *f = &pager_shared->frames[items[i].frame];

			SpinLockAcquire(&f->hdr);
			f->flags |= FRAME_DIRTY;
			SpinLockRelease(&f->hdr);
			pg_atomic_fetch_add_u32(&pager_shared->ndirty, 1);
			pager_phys_release(fs, items[i].phys);
		}
		PG_RE_THROW();
	}
	PG_END_TRY();

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
		map_set_locked(fs, items[i].pageno, items[i].phys, items[i].stamp);
	LWLockRelease(&fs->lock);

	for (int i = 0; i < n; i++)
		pager_unpin(items[i].frame);
	pg_atomic_fetch_add_u64(&pager_shared->counters.checkpoint_pages, n);
	pfree(pages);
}

/* How long the io worker waits for a gate at most: 2000 x 5 ms. */
#define CKPT_GATE_TRIES		2000

/*
 * Take the file's write gate exclusive.  While it waits, the slot's
 * gate_closing keeps new writers out (pager.c), so the gate drains within
 * the time of the operations inside it, whatever the write load.  The io
 * worker never sleeps on the gate (a holder may be waiting for the
 * worker's I/O): it serves I/O between tries, and gives up only if the
 * gate stays busy for CKPT_GATE_TRIES.  A backend waits until it has it
 * and can be cancelled meanwhile.
 */
static bool
ckpt_gate(PagerFileSlot *fs, bool in_worker)
{
	volatile bool got = false;

	pg_atomic_write_u32(&fs->gate_closing, 1);
	PG_TRY();
	{
		for (int tries = 0; !got && (!in_worker || tries < CKPT_GATE_TRIES); tries++)
		{
			got = LWLockConditionalAcquire(&fs->gate, LW_EXCLUSIVE);
			if (got)
				break;
			if (in_worker)
				io_worker_serve(5);
			else
			{
				(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 1L, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
				io_serve_interrupts();
			}
		}
	}
	PG_FINALLY();
	{
		pg_atomic_write_u32(&fs->gate_closing, 0);
		ConditionVariableBroadcast(&fs->gate_cv);
	}
	PG_END_TRY();
	return got;
}

/*
 * Steps 1 and 2 of a checkpoint, under the write gate: write every dirty
 * page of the file, sorted, in batches of the ring's size, and snapshot
 * the page map, whose pages join "durable" until the checkpoint is.
 * Returns the snapshot (nlogical entries).
 */
static uint32 *
ckpt_write_dirty(PagerFileSlot *fs, int slot, CkptSnapshot *snap)
{
	int			nframes = pager_shared->nframes;
	int			batch = Max(Min(io_batch_size(), nframes / 4), 1);
	CkptItem   *cands = palloc(sizeof(CkptItem) * nframes);
	CkptItem   *items = palloc(sizeof(CkptItem) * batch);
	int			ncands = 0;
	int			nitems = 0;
	uint32	   *map;
	uint8	   *dur;

	/*
	 * The heap tuples the pages point to, and the WAL records of the
	 * changes, must be durable first (in recovery: the minimum recovery
	 * point moves past the changes).
	 */
	XLogFlush(pager_wal_end());

	/*
	 * Under the gate no page of the file turns dirty or is written back by
	 * an eviction, so the dirty frames found now stay dirty until taken.
	 */
	for (int i = 0; i < nframes; i++)
	{
		PagerFrame *f = &pager_shared->frames[i];

		SpinLockAcquire(&f->hdr);
		if ((f->flags & FRAME_TAG_VALID) && (f->flags & FRAME_DIRTY) &&
			f->fileslot == slot)
		{
			cands[ncands].frame = i;
			cands[ncands].pageno = f->pageno;
			ncands++;
		}
		SpinLockRelease(&f->hdr);
	}
	qsort(cands, ncands, sizeof(CkptItem), ckpt_item_cmp);

	/* Pin a batch at a time, so that the pool keeps frames to evict. */
	for (int c = 0; c < ncands; c++)
	{
		if (!pager_pin_take_dirty(cands[c].frame, slot))
			continue;
		items[nitems++] = cands[c];
		if (nitems == batch)
		{
			ckpt_flush_batch(fs, items, nitems);
			nitems = 0;
		}
	}
	if (nitems > 0)
		ckpt_flush_batch(fs, items, nitems);
	pfree(items);
	pfree(cands);

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	snap->nlogical = fs->nlogical;
	snap->nused = fs->nused;
	map = palloc(sizeof(uint32) * Max(snap->nlogical, 1));
	snap->stamps = palloc(sizeof(uint32) * Max(snap->nlogical, 1));
	if (snap->nlogical > 0)
	{
		memcpy(map, map_of(fs), sizeof(uint32) * snap->nlogical);
		memcpy(snap->stamps, stamps_of(fs), sizeof(uint32) * snap->nlogical);
	}
	memcpy(snap->user, fs->user, sizeof(snap->user));
	fs->changed = false;
	dur = durable_of(fs);
	for (uint32 l = 0; l < snap->nlogical; l++)
		if (phys_real(map[l]))
			bit_set(dur, map[l]);
	snap->nmap = (snap->nlogical + PAGER_MAP_PER_PAGE - 1) / PAGER_MAP_PER_PAGE;
	snap->mappages = palloc(sizeof(uint32) * Max(snap->nmap, 1));
	for (uint32 i = 0; i < snap->nmap; i++)
	{
		snap->mappages[i] = phys_find_free(fs);
		bit_set(durable_of(fs), snap->mappages[i]);
	}
	snap->nphys = fs->nphys;
	LWLockRelease(&fs->lock);
	return map;
}

/*
 * Steps 3 and 4 of a checkpoint: write the map pages, sync, write the
 * meta page, sync, and let the old checkpoint's space go.
 */
static void
ckpt_commit(PagerFileSlot *fs, CkptSnapshot *snap, uint32 *map)
{
	uint64		ckpt_no = fs->ckpt_no + 1;
	int			meta_slot = fs->meta_slot ^ 1;
	uint8	   *dur;
	IoPage		pages[PAGER_SCRATCH_BATCH];
	int			frames[PAGER_SCRATCH_BATCH];

	PG_TRY();
	{
		for (uint32 first = 0; first < snap->nmap; first += PAGER_SCRATCH_BATCH)
		{
			int			n = Min(PAGER_SCRATCH_BATCH, snap->nmap - first);

			for (int i = 0; i < n; i++)
			{
				uint32		base = (first + i) * PAGER_MAP_PER_PAGE;
				uint32		count = Min(PAGER_MAP_PER_PAGE, snap->nlogical - base);
				char	   *data;

				frames[i] = pager_scratch_get();
				data = pager_frame_data(frames[i]);
				memset(data, 0, ART_PAGE_SIZE);
				memcpy(data + ART_PAGE_RESERVED, map + base, sizeof(uint32) * count);
				memcpy(data + PAGER_MAP_STAMPS, snap->stamps + base, sizeof(uint32) * count);
				pager_page_seal(fs, data, first + i, PAGER_KIND_MAP, ckpt_no);
				pages[i].offset = (uint64) snap->mappages[first + i] * ART_PAGE_SIZE;
				pages[i].buf = data;
			}
			io_write_pages(fs->path, pages, n);
			for (int i = n - 1; i >= 0; i--)
				pager_scratch_put(frames[i]);
		}

		io_sync_file(fs->path);

		frames[0] = pager_scratch_get();
		pages[0].offset = (uint64) meta_slot * ART_PAGE_SIZE;
		pages[0].buf = pager_frame_data(frames[0]);
		meta_fill(fs, pages[0].buf, meta_slot, ckpt_no, snap->redo_lsn,
				  snap->nlogical, snap->nphys, snap->nused, snap->user,
				  snap->nmap, snap->mappages);
		io_write_sync(fs->path, pages, 1);
		pager_scratch_put(frames[0]);
	}
	PG_CATCH();
	{
		fs->changed = true;
		PG_RE_THROW();
	}
	PG_END_TRY();

	/* Durable: from now on only the new checkpoint's pages are protected. */
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	dur = durable_of(fs);
	memset(dur, 0, fs->phys_cap / 8);
	bit_set(dur, 0);
	bit_set(dur, 1);
	for (uint32 l = 0; l < snap->nlogical; l++)
		if (phys_real(map[l]))
			bit_set(dur, map[l]);
	for (uint32 i = 0; i < snap->nmap; i++)
		bit_set(dur, snap->mappages[i]);
	fs->ckpt_no = ckpt_no;
	fs->redo_lsn = snap->redo_lsn;
	fs->meta_slot = meta_slot;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;
	LWLockRelease(&fs->lock);

	pg_atomic_fetch_add_u64(&pager_shared->counters.checkpoints, 1);
}

/*
 * Checkpoint one file.  Returns whether a checkpoint was made durable.
 * In the io worker (in_worker) nothing blocks on a lock: a file busy with
 * another checkpoint or with changes is skipped, and caught next time.
 */
bool
pager_checkpoint_slot(int slot, bool force, bool in_worker)
{
	PagerFileSlot *fs = &pager_shared->files[slot];
	bool		dirty = false;
	CkptSnapshot snap;
	uint32	   *map;

	if (!fs->in_use || !fs->loaded)
		return false;
	if (in_worker)
	{
		if (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
			return false;
	}
	else
		LWLockAcquire(&fs->ckpt_lock, LW_EXCLUSIVE);
	if (!fs->in_use || !fs->loaded)
	{
		LWLockRelease(&fs->ckpt_lock);
		return false;
	}

	for (int i = 0; i < pager_shared->nframes && !dirty; i++)
	{
		PagerFrame *f = &pager_shared->frames[i];

		dirty = (f->flags & FRAME_DIRTY) && f->fileslot == slot;
	}
	if ((!dirty && !fs->changed && !force) || !ckpt_gate(fs, in_worker))
	{
		LWLockRelease(&fs->ckpt_lock);
		return false;
	}

	map = ckpt_write_dirty(fs, slot, &snap);
	snap.redo_lsn = pager_redo_now();
	LWLockRelease(&fs->gate);
	ckpt_commit(fs, &snap, map);
	LWLockRelease(&fs->ckpt_lock);
	pfree(snap.mappages);
	pfree(snap.stamps);
	pfree(map);
	return true;
}

/*
 * Make every page of one file durable.
 */
void
pager_flush_file(PagerFile *file)
{
	PagerFileSlot *fs = pager_slot(file);

	pager_checkpoint_slot((int) (fs - pager_shared->files), false, false);
}

/*
 * Whether a file may hold changes that its last durable checkpoint lacks:
 * it changed since, or a checkpoint of it is under way.
 */
static bool
pager_slot_has_changes(int slot)
{
	PagerFileSlot *fs = &pager_shared->files[slot];
	bool		changes;

	if (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_SHARED))
		return true;
	changes = fs->changed;
	LWLockRelease(&fs->ckpt_lock);
	return changes;
}

/*
 * Checkpoint every open file, then tell the checkpoint hook where the WAL
 * that recovery would need now begins.  With restamp, also the files
 * without changes, so that every open file's last checkpoint begins past
 * PostgreSQL's current redo pointer (a base backup starting there can
 * then use them).
 */
void
pager_checkpoint(bool restamp)
{
	XLogRecPtr	redo;

	pager_backend_ready();
	pg_atomic_write_u32(&pager_shared->ckpt_requested, 0);
	redo = pager_redo_now();

	/*
	 * A file's checkpoint claims every change logged before redo: not
	 * before artrie's recovery is done, nor while PostgreSQL's redo has
	 * not yet replayed up to the checkpoint record it started from (the
	 * replay position then lies past records still to be replayed).
	 */
	if (!pager_shared->ready ||
		(RecoveryInProgress() && redo <= pager_shared->ckpt_barrier))
		return;
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		if (pager_shared->files[i].in_use && pager_shared->files[i].loaded)
			pager_checkpoint_slot(i, restamp, io_in_worker());
	}

	/*
	 * Recovery must start where the oldest change not yet durable may be:
	 * at a file's own position if it still has one (its checkpoint was
	 * skipped, or it changed since), else where this checkpoint began,
	 * since every later change logs its record after that.
	 */
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];

		if (fs->in_use && fs->loaded && pager_slot_has_changes(i))
			redo = Min(redo, fs->redo_lsn);
	}
	if (pager_hooks.checkpoint_done)
		pager_hooks.checkpoint_done(redo);
}

/* Register the functions told of checkpoints and of recovery's end. */
void
pager_set_hooks(const PagerHooks *hooks)
{
	pager_hooks = *hooks;
}

/* In the io worker, once backends may connect. */
void
pager_connections_allowed(void)
{
	if (pager_hooks.connections_allowed)
		pager_hooks.connections_allowed();
}

/*
 * The file WAL redo names, or NULL if it does not exist or is marked
 * damaged; in *redo_lsn, where its last checkpoint began: only records
 * from there on must be applied.
 */
PagerFile *
pager_open_for_redo(const ArtFileId *id, XLogRecPtr *redo_lsn)
{
	char		path[IO_PATH_LEN + 16];
	struct stat st;
	PagerFile  *file;

	pager_file_path(id, path);
	if (stat(path, &st) != 0)
		return NULL;
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	if (stat(path, &st) == 0)
		return NULL;
	pager_file_path(id, path);
	file = pager_open_file(id, path);
	*redo_lsn = pager_slot(file)->redo_lsn;
	return file;
}

/*
 * Forget every loaded file whose last checkpoint began before lsn, so
 * that its next load refuses it (pager_set_min_redo): recovery loaded it
 * before it knew.
 */
void
pager_forget_files_before(XLogRecPtr lsn)
{
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];
		ArtFileId	id;
		bool		old;

		LWLockAcquire(pager_shared->files_lock, LW_SHARED);
		old = fs->in_use && fs->loaded && fs->redo_lsn < lsn;
		id = fs->id;
		LWLockRelease(pager_shared->files_lock);
		if (old)
			slot_release(i, &id);
	}
	if (local_files)
	{
		hash_destroy(local_files);
		local_files = NULL;
	}
}

/*
 * Record durably that a file lacks changes: a marker file beside it holds
 * the reason, and every later load of the file fails with it.  The file's
 * pages leave the pool.
 */
void
pager_mark_damaged(const ArtFileId *id, const char *reason)
{
	char		path[IO_PATH_LEN + 16];
	int			fd;
	int			slot;

	pager_file_path(id, path);
	strlcat(path, PAGER_DAMAGED_SUFFIX, sizeof(path));
	fd = OpenTransientFile(path, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	if (write(fd, reason, strlen(reason)) != (ssize_t) strlen(reason) ||
		pg_fsync(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	CloseTransientFile(fd);
	snprintf(path, sizeof(path), "artrie/%u", id->dbOid);
	fsync_fname(path, true);

	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	slot = slot_find(id);
	LWLockRelease(pager_shared->files_lock);
	if (slot >= 0)
		slot_release(slot, id);
	if (local_files)
		hash_search(local_files, id, HASH_REMOVE, NULL);
}

/*
 * Pages in use in the file.
 */
uint32
pager_file_pages(PagerFile *file)
{
	return pager_slot(file)->nused;
}

/*
 * The file's size on disk.
 */
uint64
pager_file_bytes(PagerFile *file)
{
	return (uint64) pager_slot(file)->nphys * ART_PAGE_SIZE;
}

/*
 * The number of the file's last durable checkpoint, and (in *redo_lsn)
 * the WAL position it began at: redo applies the file's records from there.
 */
uint64
pager_file_checkpoint(PagerFile *file, XLogRecPtr *redo_lsn)
{
	PagerFileSlot *fs = pager_slot(file);
	uint64		ckpt_no;

	LWLockAcquire(&fs->lock, LW_SHARED);
	ckpt_no = fs->ckpt_no;
	*redo_lsn = fs->redo_lsn;
	LWLockRelease(&fs->lock);
	return ckpt_no;
}

/*
 * One of the caller's words in the meta page.
 */
uint32
pager_get_user_word(PagerFile *file, int word)
{
	PagerFileSlot *fs = pager_slot(file);
	uint32		v;

	Assert(word >= 0 && word < PAGER_USER_WORDS);
	LWLockAcquire(&fs->lock, LW_SHARED);
	v = fs->user[word];
	LWLockRelease(&fs->lock);
	return v;
}

/*
 * Set one of the caller's words; durable at the next checkpoint.
 */
void
pager_set_user_word(PagerFile *file, int word, uint32 value)
{
	PagerFileSlot *fs = pager_slot(file);

	Assert(word >= 0 && word < PAGER_USER_WORDS);
	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	fs->user[word] = value;
	fs->changed = true;
	LWLockRelease(&fs->lock);
}
