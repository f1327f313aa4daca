/*-------------------------------------------------------------------------
 *
 * pager_sweep.c
 *	  Removal of artrie files that no index uses any more.
 *
 * The file artrie/<db>/<rel>.<gen> belongs to the index whose main fork is
 * relfilenode <rel> of database <db>.  A file is removed only when the
 * catalog proves its relation's storage gone, and the disk agrees:
 *
 * - in database db, when no row of db's pg_class has relfilenode rel, read
 *   with a snapshot taken after the transaction that created the file (its
 *   generation) was found finished, and the main fork is missing or empty
 *   in every tablespace.  PostgreSQL gives an index a new relfilenode at
 *   DROP, TRUNCATE, REINDEX, VACUUM FULL, CLUSTER and ALTER ... SET
 *   TABLESPACE, forgets the relfilenode of a (sub)transaction that aborts,
 *   and truncates the old main fork at commit (it unlinks it at the next
 *   checkpoint); a built index's main fork is never empty.  Only a process
 *   connected to db can read its pg_class: the sweeper, a background
 *   worker the io worker starts for that database, or a backend of db in
 *   artrie_checkpoint();
 *
 * - every file of database db, when db is not in pg_database and its
 *   directory is missing from every tablespace (DROP DATABASE, or a CREATE
 *   DATABASE that failed).  A database being created has its directory
 *   before artrie copies any file into artrie/<db>.
 *
 * So a lost mount, a directory that cannot be read for a moment or a main
 * fork gone missing by accident removes nothing: the catalog still names
 * the relation.  And the disk is read only where the directory that would
 * hold the fork is there to be read: a base directory, pg_tblspc or a
 * tablespace's directory that is missing or cannot be read makes the round
 * remove nothing, and the log says so once, until a round finds every
 * place readable again; so does a database's own directory that cannot be
 * read, or that is missing while pg_database names the database.
 *
 * The io worker (pager_sweeper.c) reads only the disk: every few seconds
 * it lists the databases that have files whose main fork is missing
 * (pager_sweep_wanted) and starts a sweeper for each in turn.  Both sweeps
 * run once PostgreSQL's own recovery is over, or on a hot standby that is
 * consistent, where the standby's catalog shows the primary's drops as
 * replayed.
 *
 * A dead file leaves the pool only if nothing has a page of it pinned and
 * no checkpoint or change of it is under way, else it waits for the next
 * round.
 *
 * Layer: calls the catalog's lists (pager_sweep_catalog.c), the file table
 * (pager_drop_file, pager_parse_oid, readiness) and the pool.  Called by
 * the sweeper (pager_sweeper.c) and the SQL surface (pager_sweep_orphans).
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
#include "miscadmin.h"

/* Where database directories live: base and each tablespace's. */
typedef struct SweepPlaces
{
	int			n;
	char	  **dirs;
} SweepPlaces;

/*
 * Is path a directory that can be listed?  If not, say so in the log,
 * unless flag says some process said so since the sweep last found every
 * such place readable (no log without flag).
 */
static bool
sweep_place_readable(const char *path, pg_atomic_uint32 *flag)
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
	if (flag != NULL && pg_atomic_compare_exchange_u32(flag, &expected, 1))
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
	if (!sweep_place_readable("base", &pager_shared->sweep_blocked) ||
		!sweep_place_readable("pg_tblspc", &pager_shared->sweep_blocked))
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
		if (!sweep_place_readable(places->dirs[i],
								  &pager_shared->sweep_blocked))
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
 * if it is busy (pinned, held, being checkpointed or changed).  Its slot's page
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
		if (pager_slot_claim(slot))
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
 * The files of database db under artrie/ (dbpath) whose main fork is
 * missing or empty in every place and whose creator has finished; with
 * all, every file whose creator has finished.
 */
static ArtFileId *
sweep_candidates(const SweepPlaces *places, Oid db, const char *dbpath,
				 bool all, int *ncand)
{
	DIR		   *dir;
	struct dirent *de;
	ArtFileId  *cand;
	int			cap = 16;

	*ncand = 0;
	cand = palloc(sizeof(ArtFileId) * cap);
	dir = AllocateDir(dbpath);
	if (dir == NULL && errno == ENOENT)
		return cand;
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
		if ((!all && sweep_fork_live(places, db, id.relNumber)) ||
			sweep_creator_running(id.generation))
			continue;
		if (*ncand == cap)
		{
			cap *= 2;
			cand = repalloc(cand, sizeof(ArtFileId) * cap);
		}
		cand[(*ncand)++] = id;
	}
	FreeDir(dir);
	return cand;
}

/*
 * Remove a dead file unless it is busy; true if removed.
 */
static bool
sweep_remove(const ArtFileId *id, const char *dbpath)
{
	if (!sweep_release_slot(id))
		return false;
	pager_drop_file(id);
	ereport(DEBUG1,
			(errmsg_internal("artrie: removed orphaned file \"%s/%u.%u\"",
							 dbpath, id->relNumber, id->generation)));
	return true;
}

/*
 * Is database db's directory in some place, and can it be listed?  A
 * directory that cannot be listed is logged once (flag); one that is
 * missing is not.
 */
static bool
sweep_database_readable(const SweepPlaces *places, Oid db,
						pg_atomic_uint32 *flag)
{
	for (int i = 0; i < places->n; i++)
	{
		char	   *path = psprintf("%s/%u", places->dirs[i], db);

		if (sweep_exists(path, false))
			return sweep_place_readable(path, flag);
	}
	return false;
}

/*
 * The databases that have a directory under artrie/.
 */
static Oid *
sweep_artrie_databases(int *n)
{
	DIR		   *dir;
	struct dirent *de;
	int			cap = 8;
	Oid		   *dbs = palloc(sizeof(Oid) * cap);

	*n = 0;
	dir = AllocateDir("artrie");
	if (dir == NULL && errno == ENOENT)
		return dbs;
	while ((de = ReadDirExtended(dir, "artrie", LOG)) != NULL)
	{
		const char *end;
		Oid			db;
		struct stat st;

		if (!pager_parse_oid(de->d_name, &end, &db) || *end != '\0' ||
			stat(psprintf("artrie/%s", de->d_name), &st) != 0 ||
			!S_ISDIR(st.st_mode))
			continue;
		if (*n == cap)
		{
			cap *= 2;
			dbs = repalloc(dbs, sizeof(Oid) * cap);
		}
		dbs[(*n)++] = db;
	}
	FreeDir(dir);
	return dbs;
}

/*
 * Remove the files of database db, to which this process is connected
 * (in a transaction), whose relation the catalog and the disk both say is
 * gone; returns how many.
 */
int
pager_sweep_database(Oid db)
{
	SweepPlaces places;
	SweepOids	rels;
	ArtFileId  *cand;
	int			ncand;
	int			removed = 0;
	char	   *dbpath;

	Assert(db == MyDatabaseId && IsTransactionState());
	if (!sweep_allowed())
		return 0;
	pager_backend_ready();
	dbpath = psprintf("artrie/%u", db);
	if (!sweep_places(&places) || !sweep_database_readable(&places, db, NULL))
		return 0;
	cand = sweep_candidates(&places, db, dbpath, false, &ncand);
	if (ncand == 0)
		return 0;

	/*
	 * The looks that count, after the creators were found finished: the
	 * catalog, then the disk with the tablespaces as they are now.
	 */
	rels = pager_sweep_catalog_relfilenodes();
	if (!sweep_places(&places) || !sweep_database_readable(&places, db, NULL))
		return 0;
	for (int i = 0; i < ncand; i++)
	{
		if (pager_sweep_catalog_has(&rels, cand[i].relNumber) ||
			sweep_fork_live(&places, db, cand[i].relNumber))
			continue;
		if (sweep_remove(&cand[i], dbpath))
			removed++;
	}
	return removed;
}

/*
 * Remove the files of every database that pg_database does not name and
 * whose directory is missing from every place, and their directories
 * under artrie/; returns how many files.  In a transaction, connected to
 * any database or none.  A database that pg_database names but whose
 * directory is missing is logged once.
 */
int
pager_sweep_dropped_databases(void)
{
	SweepPlaces places;
	SweepOids	dbs;
	Oid		   *have;
	int			nhave;
	int			removed = 0;
	bool		missing = false;

	Assert(IsTransactionState());
	if (!sweep_allowed())
		return 0;
	pager_backend_ready();
	dbs = pager_sweep_catalog_databases();
	if (!sweep_places(&places))
		return 0;

	have = sweep_artrie_databases(&nhave);
	for (int h = 0; h < nhave; h++)
	{
		Oid			db = have[h];
		char	   *path = psprintf("artrie/%u", db);
		ArtFileId  *cand;
		int			ncand;
		bool		all = true;
		uint32		expected = 0;

		if (sweep_database_exists(&places, db))
			continue;
		if (pager_sweep_catalog_has(&dbs, db))
		{
			missing = true;
			if (pg_atomic_compare_exchange_u32(&pager_shared->sweep_db_missing,
											   &expected, 1))
				ereport(LOG,
						(errmsg("artrie removes no file of database %u while its directory is missing",
								db),
						 errdetail("pg_database names the database; its directory is in none of the tablespaces.")));
			continue;
		}
		cand = sweep_candidates(&places, db, path, true, &ncand);
		for (int i = 0; i < ncand; i++)
		{
			if (sweep_remove(&cand[i], path))
				removed++;
			else
				all = false;
		}
		if (all && rmdir(path) != 0 && errno != ENOTEMPTY &&
			errno != EEXIST && errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not remove directory \"%s\": %m", path)));
	}
	if (!missing && pg_atomic_read_u32(&pager_shared->sweep_db_missing) != 0)
		pg_atomic_write_u32(&pager_shared->sweep_db_missing, 0);
	return removed;
}

/*
 * The catalog looks the io worker should ask for: the databases with a
 * file whose main fork is missing (and how many such files), and
 * InvalidOid if some database's directory is missing from every place (and
 * how many such databases).  Reads only the disk; returns how many
 * entries.  A database directory that cannot be listed is logged once.
 */
int
pager_sweep_wanted(Oid **dbs, int **counts)
{
	SweepPlaces places;
	Oid		   *have;
	int			nhave;
	int			n = 0;
	int			cap = 8;
	int			gone = 0;
	bool		unreadable = false;

	*dbs = palloc(sizeof(Oid) * cap);
	*counts = palloc(sizeof(int) * cap);
	if (!sweep_allowed())
		return 0;
	pager_backend_ready();
	if (!sweep_places(&places))
		return 0;

	have = sweep_artrie_databases(&nhave);
	for (int h = 0; h < nhave; h++)
	{
		Oid			db = have[h];
		int			ncand;

		if (!sweep_database_exists(&places, db))
		{
			gone++;
			continue;
		}
		if (!sweep_database_readable(&places, db,
									 &pager_shared->sweep_db_unreadable))
		{
			unreadable = true;
			continue;
		}
		pfree(sweep_candidates(&places, db, psprintf("artrie/%u", db), false,
							   &ncand));
		if (ncand == 0)
			continue;
		if (n + 1 >= cap)
		{
			cap *= 2;
			*dbs = repalloc(*dbs, sizeof(Oid) * cap);
			*counts = repalloc(*counts, sizeof(int) * cap);
		}
		(*dbs)[n] = db;
		(*counts)[n++] = ncand;
	}
	if (gone > 0)
	{
		(*dbs)[n] = InvalidOid;
		(*counts)[n++] = gone;
	}
	if (!unreadable &&
		pg_atomic_read_u32(&pager_shared->sweep_db_unreadable) != 0)
		pg_atomic_write_u32(&pager_shared->sweep_db_unreadable, 0);
	return n;
}

/*
 * artrie_checkpoint()'s sweep, in a backend: the files of dropped
 * databases and of this database's dropped relations; returns how many.
 * Other databases' files are left to the io worker's sweepers.
 */
int
pager_sweep_orphans(void)
{
	if (!sweep_allowed())
		return 0;
	return pager_sweep_dropped_databases() + pager_sweep_database(MyDatabaseId);
}
