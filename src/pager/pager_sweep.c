/*-------------------------------------------------------------------------
 *
 * pager_sweep.c
 *	  Removal of artrie files that no index uses any more.
 *
 * The file artrie/<db>/<rel>.<gen> belongs to the index whose main fork is
 * relfilenode <rel> of database <db>.  PostgreSQL itself does away with
 * that main fork whenever the index's storage goes: at commit of DROP
 * INDEX / TABLE / SCHEMA, TRUNCATE, REINDEX, VACUUM FULL, CLUSTER and
 * ALTER ... SET TABLESPACE, at abort of the (sub)transaction that created
 * it, and with the whole database directory at DROP DATABASE.  It unlinks
 * the first segment of a main fork only at the next checkpoint, but
 * truncates it to zero length at once; and a built index's main fork is
 * never empty, since it holds the metapage.  So a file is an orphan when
 * its main fork is missing or empty in every tablespace, with one
 * exception: ambuild creates the file before it writes the metapage, so a
 * file whose generation (the creating transaction's ID) is still running
 * is left alone.  The look at the main fork that decides is taken after
 * that check (a first, cheap one skips live files): a transaction that has
 * ended has written its metapage, if it committed.  Taking it afresh also
 * catches ALTER DATABASE ... SET TABLESPACE, which copies a database's
 * directory before it removes the old one.  No catalog is read, so the
 * sweep works for every database from the io worker, which runs it every
 * few seconds once PostgreSQL's own recovery is over (or a hot standby
 * is consistent); artrie_checkpoint() runs it too.
 *
 * All of this reads "missing" as "dropped" only where the directory that
 * would hold the fork is there to be read: a base directory, pg_tblspc or
 * a tablespace's directory that is missing or cannot be read (a mount
 * that failed at boot, a permission changed for a moment) makes the round
 * remove nothing, and the log says so once, until a round finds every
 * place readable again.  A database's own directory missing from every
 * readable place is a dropped database: PostgreSQL keeps a live
 * database's directory in its default tablespace.
 *
 * A dead file leaves the pool only if nothing has a page of it pinned and
 * no checkpoint or change of it is under way, else it waits for the next
 * round.  A database's directory under artrie/ goes once it is empty and
 * the database's own directory is gone from every tablespace.
 *
 * Layer: calls the file table (pager_drop_file, pager_parse_oid,
 * readiness) and the pool (pager_forget_frames).  Called by the io worker
 * (pager_sweep_tick) and the SQL surface (pager_sweep_orphans).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_file.h"
#include "pager/pager_pool.h"
#include "pager/pager_sweep.h"

#include "access/transam.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/relpath.h"
#include "storage/fd.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* How often the io worker sweeps. */
#define PAGER_SWEEP_INTERVAL_MS		5000

/* Where database directories live: base and each tablespace's. */
typedef struct SweepPlaces
{
	int			n;
	char	  **dirs;
} SweepPlaces;

static MemoryContext sweep_cxt = NULL;
static TimestampTz last_sweep = 0;

/*
 * Is path a directory that can be listed?  If not, say so in the log,
 * unless some process said so since the sweep last found every place
 * readable.
 */
static bool
sweep_place_readable(const char *path)
{
	struct stat st;
	DIR		   *dir;
	uint32		expected = 0;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		errno = ENOTDIR;
	else if ((dir = AllocateDir(path)) != NULL)
	{
		FreeDir(dir);
		return true;
	}
	if (pg_atomic_compare_exchange_u32(&pager_shared->sweep_blocked,
									   &expected, 1))
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("artrie removes no orphaned file while directory \"%s\" cannot be read: %m",
						path),
				 errdetail("A file whose index's storage cannot be seen is not known to be orphaned.")));
	return false;
}

/*
 * The directories that may hold database directories; false (and nothing
 * in places) if one of them, or pg_tblspc, cannot be read.
 */
static bool
sweep_places(SweepPlaces *places)
{
	DIR		   *dir;
	struct dirent *de;
	int			cap = 8;

	places->n = 0;
	places->dirs = palloc(sizeof(char *) * cap);
	if (!sweep_place_readable("base") || !sweep_place_readable("pg_tblspc"))
		return false;
	places->dirs[places->n++] = pstrdup("base");

	dir = AllocateDir("pg_tblspc");
	while ((de = ReadDirExtended(dir, "pg_tblspc", LOG)) != NULL)
	{
		const char *end;
		Oid			spc;

		if (!pager_parse_oid(de->d_name, &end, &spc) || *end != '\0')
			continue;
		if (places->n == cap)
		{
			cap *= 2;
			places->dirs = repalloc(places->dirs, sizeof(char *) * cap);
		}
		places->dirs[places->n++] = psprintf("pg_tblspc/%s/%s", de->d_name,
											 TABLESPACE_VERSION_DIRECTORY);
	}
	FreeDir(dir);

	for (int i = 0; i < places->n; i++)
	{
		if (!sweep_place_readable(places->dirs[i]))
		{
			places->n = 0;
			return false;
		}
	}
	if (pg_atomic_read_u32(&pager_shared->sweep_blocked) != 0)
		pg_atomic_write_u32(&pager_shared->sweep_blocked, 0);
	return true;
}

/*
 * Does path exist?  An error other than "no such file" counts as yes, so
 * that nothing is removed on a doubt.  With nonempty, an empty file does
 * not count.
 */
static bool
sweep_exists(const char *path, bool nonempty)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR;
	return !nonempty || st.st_size > 0;
}

/*
 * Is a temporary relation's main fork (t<backend>_<rel>) in dbdir, not
 * empty?
 */
static bool
sweep_temp_fork_live(const char *dbdir, Oid rel)
{
	DIR		   *dir;
	struct dirent *de;
	bool		live = false;

	dir = AllocateDir(dbdir);
	if (dir == NULL)
		return errno != ENOENT && errno != ENOTDIR;
	while (!live && (de = ReadDirExtended(dir, dbdir, LOG)) != NULL)
	{
		const char *p;
		Oid			backend;
		Oid			r;

		if (de->d_name[0] != 't' ||
			!pager_parse_oid(de->d_name + 1, &p, &backend) || *p != '_' ||
			!pager_parse_oid(p + 1, &p, &r) || *p != '\0' || r != rel)
			continue;
		live = sweep_exists(psprintf("%s/%s", dbdir, de->d_name), true);
	}
	FreeDir(dir);
	return live;
}

/*
 * Is the main fork of relfilenode rel of database db anywhere, not empty?
 */
static bool
sweep_fork_live(const SweepPlaces *places, Oid db, Oid rel)
{
	for (int i = 0; i < places->n; i++)
	{
		if (sweep_exists(psprintf("%s/%u/%u", places->dirs[i], db, rel), true))
			return true;
	}
	for (int i = 0; i < places->n; i++)
	{
		if (sweep_temp_fork_live(psprintf("%s/%u", places->dirs[i], db), rel))
			return true;
	}
	return false;
}

/*
 * Is database db's directory anywhere?
 */
static bool
sweep_database_exists(const SweepPlaces *places, Oid db)
{
	for (int i = 0; i < places->n; i++)
	{
		if (sweep_exists(psprintf("%s/%u", places->dirs[i], db), false))
			return true;
	}
	return false;
}

/*
 * May the transaction that created a file still be running?  IDs never
 * handed out and IDs older than every running transaction are answered
 * without pg_xact, which may no longer cover old ones.
 */
static bool
sweep_creator_running(TransactionId xid)
{
	if (!TransactionIdIsNormal(xid))
		return false;
	if (TransactionIdFollowsOrEquals(xid, ReadNextTransactionId()))
		return false;
	if (TransactionIdPrecedes(xid, GetOldestNonRemovableTransactionId(NULL)))
		return false;
	return TransactionIdIsInProgress(xid);
}

/*
 * Take a dead file out of the pool, without waiting for anything: false
 * if it is busy (pinned, being checkpointed or changed).  Its slot's page
 * map is freed when the slot is next used.
 */
static bool
sweep_release_slot(const ArtFileId *id)
{
	PagerFileSlot *fs = NULL;
	int			slot = -1;
	bool		done = false;

	LWLockAcquire(pager_shared->files_lock, LW_SHARED);
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *s = &pager_shared->files[i];

		if (s->in_use && s->id.dbOid == id->dbOid &&
			s->id.relNumber == id->relNumber &&
			s->id.generation == id->generation)
		{
			slot = i;
			fs = s;
			break;
		}
	}
	LWLockRelease(pager_shared->files_lock);
	if (fs == NULL)
		return true;

	if (!LWLockConditionalAcquire(&fs->ckpt_lock, LW_EXCLUSIVE))
		return false;
	if (!fs->in_use || fs->id.dbOid != id->dbOid ||
		fs->id.relNumber != id->relNumber || fs->id.generation != id->generation)
		done = true;
	else if (LWLockConditionalAcquire(&fs->gate, LW_EXCLUSIVE))
	{
		if (!pager_slot_pinned(slot) && pg_atomic_read_u32(&fs->users) == 0)
		{
			pager_slot_free(slot);
			done = true;
		}
		LWLockRelease(&fs->gate);
	}
	LWLockRelease(&fs->ckpt_lock);
	return done;
}

/*
 * Whether main forks are as PostgreSQL will keep them: not while its
 * recovery may still recreate some, except on a consistent hot standby.
 */
static bool
sweep_allowed(void)
{
	if (!RecoveryInProgress())
		return true;
	return HotStandbyActive() && pager_is_ready();
}

/*
 * Sweep one database's directory under artrie/; returns the files
 * removed.
 */
static int
sweep_database(Oid db, const char *dbpath)
{
	SweepPlaces places;
	DIR		   *dir;
	struct dirent *de;
	ArtFileId  *dead;
	int			ndead = 0;
	int			cap = 16;
	int			removed = 0;

	if (!sweep_places(&places))
		return 0;
	dead = palloc(sizeof(ArtFileId) * cap);
	dir = AllocateDir(dbpath);
	while ((de = ReadDirExtended(dir, dbpath, LOG)) != NULL)
	{
		ArtFileId	id;
		const char *p;

		if (!pager_parse_oid(de->d_name, &p, &id.relNumber) || *p != '.' ||
			!pager_parse_oid(p + 1, &p, &id.generation) ||
			(*p != '\0' && strcmp(p, PAGER_DAMAGED_SUFFIX) != 0 &&
			 strcmp(p, PAGER_INUSE_SUFFIX) != 0))
			continue;
		id.dbOid = db;
		if (sweep_fork_live(&places, db, id.relNumber) ||
			sweep_creator_running(id.generation))
			continue;
		if (ndead == cap)
		{
			cap *= 2;
			dead = repalloc(dead, sizeof(ArtFileId) * cap);
		}
		dead[ndead++] = id;
	}
	FreeDir(dir);

	/*
	 * The look that counts, after the creator was found finished, with the
	 * tablespaces as they are now.
	 */
	if (!sweep_places(&places))
		return 0;
	for (int i = 0; i < ndead; i++)
	{
		if (sweep_fork_live(&places, db, dead[i].relNumber) ||
			!sweep_release_slot(&dead[i]))
			continue;
		pager_drop_file(&dead[i]);
		ereport(DEBUG1,
				(errmsg_internal("artrie: removed orphaned file \"%s/%u.%u\"",
								 dbpath, dead[i].relNumber, dead[i].generation)));
		removed++;
	}

	if (!sweep_database_exists(&places, db) && rmdir(dbpath) != 0 &&
		errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not remove directory \"%s\": %m", dbpath)));
	return removed;
}

/*
 * Remove every artrie file whose index is gone (and its marker of failed
 * recovery, if any); returns how many.  During recovery only on a hot
 * standby that is consistent: before, PostgreSQL's redo may yet recreate
 * main forks.
 */
int
pager_sweep_orphans(void)
{
	DIR		   *dir;
	struct dirent *de;
	int			removed = 0;

	if (!sweep_allowed())
		return 0;
	pager_backend_ready();

	dir = AllocateDir("artrie");
	if (dir == NULL && errno == ENOENT)
		return 0;
	while ((de = ReadDirExtended(dir, "artrie", LOG)) != NULL)
	{
		const char *end;
		Oid			db;
		char		path[MAXPGPATH];
		struct stat st;

		if (!pager_parse_oid(de->d_name, &end, &db) || *end != '\0')
			continue;
		snprintf(path, sizeof(path), "artrie/%s", de->d_name);
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		removed += sweep_database(db, path);
	}
	FreeDir(dir);
	return removed;
}

/*
 * In the io worker's loop: sweep when PAGER_SWEEP_INTERVAL_MS has passed
 * since the last sweep, starting as soon as recovery is over.
 */
void
pager_sweep_tick(void)
{
	MemoryContext old;
	TimestampTz now = GetCurrentTimestamp();

	if (last_sweep != 0 &&
		!TimestampDifferenceExceeds(last_sweep, now, PAGER_SWEEP_INTERVAL_MS))
		return;
	if (!sweep_allowed())
		return;
	last_sweep = now;

	if (sweep_cxt == NULL)
		sweep_cxt = AllocSetContextCreate(TopMemoryContext, "artrie sweep",
										  ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(sweep_cxt);
	old = MemoryContextSwitchTo(sweep_cxt);
	pager_sweep_orphans();
	MemoryContextSwitchTo(old);
	MemoryContextReset(sweep_cxt);
}
