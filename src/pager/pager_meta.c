/*-------------------------------------------------------------------------
 *
 * pager_meta.c
 *	  A file's meta pages: filling them for a checkpoint, stamping a
 *	  checkpoint anew into the other slot, and reading them back when a
 *	  file is loaded.
 *
 * Every checkpoint of a file (pager_checkpoint.c) writes a meta page into
 * one of the file's two meta slots, alternating, naming its directory
 * pages, which name the map pages.  Loading a file reads both meta pages
 * back, chooses the newer valid one and decides whether the file may be
 * served here: not marked damaged, of this build's format, of this
 * cluster, checkpointed on a timeline of this server's history, and
 * within the WAL that recovery replayed here (or vouched for by redo,
 * or adopted from pg_upgrade's old cluster, as the loader's warrant
 * says).  Then its directory pages, map pages and the bits of its data
 * pages are loaded into its slot.
 *
 * Layer: calls the pool (scratch frames, page check), the space layer
 * (bitmaps), the page map, the timelines and src/io.  Called by the file
 * table, checkpoints and the redo-facing calls (pager_meta.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_meta.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"
#include "pager/pager_vouch.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "storage/fd.h"

/*
 * Fill a meta page for checkpoint ckpt_no.
 */
void
pager_meta_fill(PagerFileSlot *fs, char *page, int slot, uint64 ckpt_no,
				XLogRecPtr redo_lsn, TimeLineID tli, uint32 nlogical,
				uint32 nphys, uint32 nused, const uint32 *user, uint32 ndir,
				const uint32 *dirpages)
{
	PagerMeta	m;

	memset(&m, 0, sizeof(m));
	m.ckpt_no = ckpt_no;
	m.redo_lsn = redo_lsn;
	m.tli = tli;
	m.sysid = GetSystemIdentifier();
	m.nlogical = nlogical;
	m.nphys = nphys;
	m.nused = nused;
	m.fanout = fs->fanout;
	m.ndir = ndir;
	memcpy(m.user, user, sizeof(m.user));
	pager_meta_encode((uint8 *) page, &fs->id, slot, &m, dirpages);
}

/* The group count that user words hold (PAGER_GROUPS_WORD). */
uint64
pager_user_groups(const uint32 *user)
{
	return (uint64) user[PAGER_GROUPS_WORD] |
		((uint64) user[PAGER_GROUPS_WORD + 1] << 32);
}

/*
 * The file's user words as a checkpoint writes them: the group count's
 * two are the counter's (the caller keeps what it changes and the counter
 * from changing meanwhile, or takes the words as of a moment).
 */
void
pager_user_words(PagerFileSlot *fs, uint32 *user)
{
	uint64		groups = pg_atomic_read_u64(&fs->groups);

	Assert(LWLockHeldByMe(&fs->lock));
	memcpy(user, fs->user, sizeof(fs->user));
	user[PAGER_GROUPS_WORD] = (uint32) groups;
	user[PAGER_GROUPS_WORD + 1] = (uint32) (groups >> 32);
}

/*
 * Rewrite a file's meta page of slot from_slot into the other slot, with
 * redo_lsn (on this server's timeline now) as the position its
 * checkpoint began at and the checkpoint otherwise as it is (its number,
 * map pages, counts and words): for a file without any change since that
 * checkpoint, whose pages therefore hold every change logged before
 * redo_lsn.  Both slots then name the same pages, so a copy that reads
 * either one finds them, however many such stamps run while it copies.
 * The WAL is flushed first, so that a meta page never names a position
 * that the WAL here may lack after a crash.
 */
void
pager_meta_restamp(const ArtFileId *id, const char *path, const char *relname,
				   int from_slot, XLogRecPtr redo_lsn)
{
	int			frame = pager_scratch_get();
	IoPage		page;
	PagerMeta	m;
	const uint8 *mp;
	uint32	   *dirpages;
	char		problem[128];

	page.offset = (uint64) from_slot * ART_PAGE_SIZE;
	page.buf = pager_frame_data(frame);
	io_read_pages(path, &page, 1);
	if (!pager_meta_decode((const uint8 *) page.buf, id, from_slot, &m, &mp,
						   problem, sizeof(problem)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has a damaged meta page",
						relname, path),
				 errdetail("Meta slot %d: %s.", from_slot, problem),
				 errhint("REINDEX the index.")));
	dirpages = palloc(sizeof(uint32) * Max(m.ndir, 1));
	memcpy(dirpages, mp, sizeof(uint32) * m.ndir);
	m.redo_lsn = redo_lsn;
	m.tli = pager_timeline_now();
	XLogFlush(pager_wal_end());
	pager_meta_encode((uint8 *) page.buf, id, from_slot ^ 1, &m, dirpages);
	page.offset = (uint64) (from_slot ^ 1) * ART_PAGE_SIZE;
	io_write_sync(path, &page, 1);
	pager_scratch_put(frame);
	pfree(dirpages);
}

/*
 * Read a file's two meta pages into buf (2 * ART_PAGE_SIZE bytes); false
 * if the file cannot be read whole (gone meanwhile, or too short).
 */
bool
pager_meta_read(const char *path, uint8 *buf)
{
	int			fd;
	ssize_t		n;

	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return false;
	n = pg_pread(fd, buf, 2 * ART_PAGE_SIZE, 0);
	CloseTransientFile(fd);
	return n == 2 * ART_PAGE_SIZE;
}

/*
 * Decode a file's two meta pages; returns the slot of the newer valid one
 * (-1: neither), and for an invalid one, what is wrong with it.
 */
int
pager_meta_choose(const ArtFileId *id, const uint8 *page0, const uint8 *page1,
				  PagerMeta meta[2], const uint8 *meta_dir[2],
				  char problem[2][128])
{
	int			best = -1;

	for (int i = 0; i < 2; i++)
	{
		if (pager_meta_decode(i == 0 ? page0 : page1, id, i, &meta[i],
							  &meta_dir[i], problem[i], sizeof(problem[i])))
		{
			problem[i][0] = '\0';
			/* A stamp anew of a checkpoint keeps its number. */
			if (best < 0 || meta[i].ckpt_no > meta[best].ckpt_no ||
				(meta[i].ckpt_no == meta[best].ckpt_no &&
				 meta[i].redo_lsn > meta[best].redo_lsn))
				best = i;
		}
	}
	return best;
}

/*
 * Whether a file whose two meta pages are in buf would be served here now
 * (the checks of pager_meta_load, short of a vouch or an adoption, and of
 * the marker of damage, which the caller looks at): returns the slot of
 * its newer valid meta page, decoded into *meta, or -1.
 */
int
pager_meta_servable(const ArtFileId *id, const uint8 *buf, PagerMeta *meta)
{
	PagerMeta	both[2];
	const uint8 *meta_dir[2];
	char		problem[2][128];
	int			best;
	TimeLineID	server_tli;
	XLogRecPtr	left_at;

	best = pager_meta_choose(id, buf, buf + ART_PAGE_SIZE, both, meta_dir,
							 problem);
	if (best < 0)
		return -1;
	*meta = both[best];
	if ((problem[best ^ 1][0] == '\0' ||
		 meta->redo_lsn >= pager_shared->replayed_from ||
		 (pager_vouch_active() &&
		  pager_vouch_listed(id, meta->redo_lsn,
							 pager_shared->replayed_from))) &&
		meta->sysid == GetSystemIdentifier() &&
		pager_timeline_agrees(meta->tli, meta->redo_lsn,
							  &server_tli, &left_at) &&
		(meta->redo_lsn >= pager_shared->min_redo ||
		 (pager_vouch_active() &&
		  pager_vouch_listed(id, meta->redo_lsn,
							 pager_shared->min_redo))) &&
		meta->redo_lsn <= pager_redo_now())
		return best;
	return -1;
}

/*
 * Refuse a file marked damaged (pager_mark_damaged), with the reason the
 * marker holds.
 */
static void
load_check_damaged(PagerFileSlot *fs)
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
 * Refuse a file that is marked damaged, missing, or too short to hold its
 * meta pages; *st is what stat says of it.
 */
static void
load_check_file(PagerFileSlot *fs, struct stat *st)
{
	load_check_damaged(fs);
	if (stat(fs->path, st) != 0)
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
	if (st->st_size < 2 * ART_PAGE_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has no valid meta page",
						fs->relname, fs->path),
				 errdetail("The file is %lld bytes long.", (long long) st->st_size),
				 errhint("REINDEX the index.")));
}

/*
 * Read a file's two meta pages and choose the newer valid one: returns its
 * slot, with the meta page decoded into *meta and its directory pages'
 * list in a palloc'd *dirpages.  ERROR if neither is valid (one of another
 * format says so), or if the other is damaged and the chosen one may be
 * the older checkpoint: usable only if the WAL replayed at this start held
 * every change since it, or the vouch list has it unchanged up to where
 * that WAL began (then redo, had there been any change, would have found
 * the damage).
 */
static int
load_meta_pages(PagerFileSlot *fs, PagerMeta *meta, uint32 **dirpages)
{
	int			scratch[2];
	IoPage		pages[2];
	char		problem[2][128];
	PagerMeta	both[2];
	const uint8 *meta_dir[2];
	int			best;
	XLogRecPtr	listed_at;

	for (int i = 0; i < 2; i++)
	{
		scratch[i] = pager_scratch_get();
		pages[i].offset = (uint64) i * ART_PAGE_SIZE;
		pages[i].buf = pager_frame_data(scratch[i]);
	}
	io_read_pages(fs->path, pages, 2);
	best = pager_meta_choose(&fs->id, (const uint8 *) pages[0].buf,
							 (const uint8 *) pages[1].buf, both, meta_dir,
							 problem);
	for (int i = 0; i < 2 && best < 0; i++)
	{
		uint16		other = pager_meta_other_format((const uint8 *) pages[i].buf,
													&fs->id, i);

		if (other != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("index \"%s\" cannot be used: file \"%s\" has format version %u, this build reads version %d",
							fs->relname, fs->path, other, PAGER_FORMAT_VERSION),
					 errhint("REINDEX the index.")));
	}
	if (best < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has no valid meta page",
						fs->relname, fs->path),
				 errdetail("Meta slot 0: %s.  Meta slot 1: %s.", problem[0], problem[1]),
				 errhint("REINDEX the index.")));
	if (problem[best ^ 1][0] != '\0' &&
		both[best].redo_lsn < pager_shared->replayed_from &&
		!pager_vouch_covers(NULL, GetSystemIdentifier(), &fs->id,
							both[best].redo_lsn, pager_shared->replayed_from,
							&listed_at))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" is corrupted: file \"%s\" has a damaged meta page",
						fs->relname, fs->path),
				 errdetail("Meta slot %d: %s.  The other slot's checkpoint is older than the WAL artrie replays.",
						   best ^ 1, problem[best ^ 1]),
				 errhint("REINDEX the index.")));

	*meta = both[best];
	*dirpages = palloc(sizeof(uint32) * Max(meta->ndir, 1));
	memcpy(*dirpages, meta_dir[best], sizeof(uint32) * meta->ndir);
	pager_scratch_put(scratch[1]);
	pager_scratch_put(scratch[0]);
	return best;
}

/*
 * Refuse a file being adopted from pg_upgrade's old cluster (source) that
 * the old cluster did not serve complete: of another cluster, or whose
 * last checkpoint began outside the WAL the old cluster had (unless the
 * old cluster's vouch list has it current, then at *listed_at).
 */
static void
load_check_adopted(PagerFileSlot *fs, const PagerMeta *m,
				   const PagerAdoptSource *src, XLogRecPtr *listed_at)
{
	if (m->sysid != src->sysid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be adopted: file \"%s\" is not of the old cluster",
						fs->relname, fs->path),
				 errdetail("The file was written by the cluster with system identifier " UINT64_FORMAT ", the old cluster's is " UINT64_FORMAT ".",
						   (uint64) m->sysid, src->sysid),
				 errhint("REINDEX the index.")));
	if ((m->redo_lsn < src->min_redo &&
		 !pager_vouch_covers(src->dir, src->sysid, &fs->id, m->redo_lsn,
							 src->min_redo, listed_at)) ||
		m->redo_lsn > src->upto)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be adopted: the old cluster did not serve file \"%s\"",
						fs->relname, fs->path),
				 errdetail("The file's last checkpoint began at %X/%X, outside the old cluster's %X/%X to %X/%X.",
						   LSN_FORMAT_ARGS(m->redo_lsn),
						   LSN_FORMAT_ARGS(src->min_redo),
						   LSN_FORMAT_ARGS(src->upto)),
				 errhint("REINDEX the index.")));
}

/*
 * Refuse a file that cannot be proven current: one of another cluster or
 * of a timeline not in this server's history, or whose last checkpoint
 * began before the WAL that recovery could replay (a copy restored from a
 * backup taken before its checkpoint) unless the warrant or the vouch
 * list vouches for it, or after the WAL that exists here (a copy from
 * elsewhere).  A file being adopted is checked against the old cluster
 * instead.  Returns whether it is current by the warrant alone;
 * *listed_at is where the vouch list has it current, if it needs the list
 * (else invalid).
 */
static bool
load_check_current(PagerFileSlot *fs, const PagerMeta *m,
				   const PagerWarrant *warrant, XLogRecPtr *listed_at)
{
	TimeLineID	server_tli;
	XLogRecPtr	left_at;

	*listed_at = InvalidXLogRecPtr;
	if (warrant != NULL && warrant->adopt != NULL)
	{
		load_check_adopted(fs, m, warrant->adopt, listed_at);
		return true;
	}
	if (m->sysid != GetSystemIdentifier())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" belongs to another database cluster",
						fs->relname, fs->path),
				 errdetail("The file was written by the cluster with system identifier " UINT64_FORMAT ", this one is " UINT64_FORMAT ".",
						   (uint64) m->sysid, GetSystemIdentifier()),
				 errhint("REINDEX the index.")));
	if (!pager_timeline_agrees(m->tli, m->redo_lsn, &server_tli, &left_at))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" cannot be used: file \"%s\" was checkpointed on a timeline that is not in this server's history",
						fs->relname, fs->path),
				 XLogRecPtrIsInvalid(left_at) ?
				 errdetail("The file's last checkpoint began at %X/%X on timeline %u, which is not in the history of timeline %u.",
						   LSN_FORMAT_ARGS(m->redo_lsn), m->tli, server_tli) :
				 errdetail("The file's last checkpoint began at %X/%X on timeline %u, after the history of timeline %u left it at %X/%X.",
						   LSN_FORMAT_ARGS(m->redo_lsn), m->tli, server_tli,
						   LSN_FORMAT_ARGS(left_at)),
				 errhint("REINDEX the index.")));
	if (m->redo_lsn < pager_shared->min_redo && warrant != NULL &&
		m->redo_lsn >= warrant->since && m->redo_lsn <= warrant->upto)
		return true;
	if (m->redo_lsn < pager_shared->min_redo &&
		!pager_vouch_covers(NULL, GetSystemIdentifier(), &fs->id, m->redo_lsn,
							pager_shared->min_redo, listed_at))
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
	return false;
}

/*
 * Check that physical page phys of a file of nphys pages, st_size bytes,
 * can hold the map page or directory page called what, number no.
 */
static void
load_check_place(PagerFileSlot *fs, const char *what, uint32 no, uint32 phys,
				 uint32 nphys, off_t st_size)
{
	if (phys < PAGER_FIRST_DATA_PHYS || phys >= nphys)
		pager_corrupt(fs, no, psprintf("%s lies past the end of the file", what));
	if ((uint64) (phys + 1) * ART_PAGE_SIZE > (uint64) st_size)
		pager_corrupt(fs, no,
					  psprintf("%s at physical page %u lies past the end of the file, which is %lld bytes long",
							   what, phys, (long long) st_size));
}

/*
 * Read a file's directory pages and map pages into its page map, and mark
 * them durable (fs->nlogical, fanout and ckpt_no set, the map reserved).
 * A directory page must carry its checkpoint's number, a map page the
 * write stamp its directory page gives it.
 */
static void
load_map(PagerFileSlot *fs, uint32 ndir, const uint32 *dirpages,
		 uint32 nphys, off_t st_size)
{
	uint32		nmap = pager_map_pages(fs->nlogical, fs->fanout);
	PagerMapRef *refs = palloc_extended(sizeof(PagerMapRef) * Max(nmap, 1),
										MCXT_ALLOC_HUGE);
	IoPage		pages[PAGER_SCRATCH_BATCH];
	int			frames[PAGER_SCRATCH_BATCH];

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));

	/* Directory pages first (level 1), then map pages (level 2). */
	for (int level = 1; level <= 2; level++)
	{
		uint32		count = level == 1 ? ndir : nmap;
		const char *what = level == 1 ? "directory page" : "map page";

		for (uint32 first = 0; first < count; first += PAGER_SCRATCH_BATCH)
		{
			int			n = Min(PAGER_SCRATCH_BATCH, count - first);

			for (int i = 0; i < n; i++)
			{
				uint32		phys = level == 1 ? dirpages[first + i] : refs[first + i].phys;

				load_check_place(fs, what, first + i, phys, nphys, st_size);
				frames[i] = pager_scratch_get();
				pages[i].offset = (uint64) phys * ART_PAGE_SIZE;
				pages[i].buf = pager_frame_data(frames[i]);
			}
			io_read_pages(fs->path, pages, n);
			for (int i = 0; i < n; i++)
			{
				uint32		no = first + i;
				uint64		want = level == 1 ? fs->ckpt_no : refs[no].stamp;
				const char *p = pager_page_check(fs, pages[i].buf, no,
												 level == 1 ? PAGER_KIND_DIR : PAGER_KIND_MAP);

				if (p == NULL && ((PagerPageHeader *) pages[i].buf)->ckpt_no != want)
					p = level == 1 ? "directory page of another checkpoint" :
						psprintf("write stamp %llu, the directory expects %llu",
								 (unsigned long long) ((PagerPageHeader *) pages[i].buf)->ckpt_no,
								 (unsigned long long) want);
				if (p)
					pager_corrupt(fs, no, psprintf("%s: %s", what, p));
				LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
				if (level == 1)
				{
					pager_dir_page_refs(pages[i].buf, nmap, no, fs->fanout, refs);
					bit_set(durable_of(fs), dirpages[no]);
				}
				else
				{
					pager_map_load_page(fs, no, pages[i].buf, refs[no]);
					bit_set(durable_of(fs), refs[no].phys);
				}
				LWLockRelease(&fs->lock);
			}
			for (int i = n - 1; i >= 0; i--)
				pager_scratch_put(frames[i]);
		}
	}
	pfree(refs);
}

/*
 * Mark the physical pages of a file's data pages durable and current,
 * checking that every entry of its page map lies within the file (nphys
 * pages, st_size bytes), and count the logical pages in use.
 */
static void
load_data_bits(PagerFileSlot *fs, uint32 nphys, off_t st_size)
{
	uint8	   *dur;
	uint8	   *cur;
	uint32		nused = 0;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	dur = durable_of(fs);
	cur = current_of(fs);
	for (uint32 l = 0; l < fs->nlogical; l++)
	{
		uint32		p = pager_map_entry(fs, l, NULL);

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
		if ((uint64) (p + 1) * ART_PAGE_SIZE > (uint64) st_size)
		{
			LWLockRelease(&fs->lock);
			pager_corrupt(fs, l,
						  psprintf("physical page %u lies past the end of the file, which is %lld bytes long",
								   p, (long long) st_size));
		}
		bit_set(dur, p);
		bit_set(cur, p);
	}
	fs->nused = nused;
	fs->free_hint = 0;
	fs->phys_hint = PAGER_FIRST_DATA_PHYS;
}

/*
 * Load a file's state from disk into its slot, which the file table has
 * just emptied, or ERROR if it may not be served (see the top of
 * this file).  warrant (NULL: none) says what the loader knows of the file
 * beyond its meta pages.
 */
void
pager_meta_load(PagerFileSlot *fs, const PagerWarrant *warrant)
{
	struct stat st;
	PagerMeta	m;
	uint32	   *dirpages;
	int			best;
	bool		vouched;
	XLogRecPtr	listed_at;

	Assert(LWLockHeldByMeInMode(&fs->ckpt_lock, LW_EXCLUSIVE));
	load_check_file(fs, &st);
	best = load_meta_pages(fs, &m, &dirpages);
	vouched = load_check_current(fs, &m, warrant, &listed_at);

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	fs->ckpt_no = m.ckpt_no;
	fs->vouched_at = InvalidXLogRecPtr;
	if (!vouched)
	{
		fs->redo_lsn = m.redo_lsn;
		fs->vouched_at = listed_at;
	}
	else if (warrant->adopt != NULL)
		fs->redo_lsn = pager_redo_now();
	else
		fs->redo_lsn = warrant->upto;
	fs->meta_slot = best;
	fs->fanout = m.fanout;
	memcpy(fs->user, m.user, sizeof(fs->user));
	pg_atomic_write_u64(&fs->groups, pager_user_groups(m.user));
	fs->nphys = m.nphys;
	pager_phys_reserve(fs, m.nphys);
	pager_map_reserve(fs, m.nlogical);
	fs->nlogical = m.nlogical;
	LWLockRelease(&fs->lock);

	load_map(fs, m.ndir, dirpages, m.nphys, st.st_size);
	pfree(dirpages);

	LWLockAcquire(&fs->lock, LW_EXCLUSIVE);
	load_data_bits(fs, m.nphys, st.st_size);

	/*
	 * A vouched file's next checkpoint writes down where it is current; a
	 * file current only from before PostgreSQL's redo pointer is vouched
	 * for by the next pass (it may have been loaded after the pass that
	 * vouches for every file when that pointer moves).
	 */
	fs->changed = vouched;
	fs->stale = !vouched && Max(m.redo_lsn, listed_at) < GetRedoRecPtr();
	LWLockRelease(&fs->lock);
}
