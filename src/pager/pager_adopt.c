/*-------------------------------------------------------------------------
 *
 * pager_adopt.c
 *	  Taking the files of the cluster that pg_upgrade upgraded from.
 *
 * pg_upgrade keeps database OIDs and relfilenodes, and carries the
 * indexes' main forks, whose metapages name the artrie files of the old
 * cluster: same database, relfilenode and generation.  It does not carry
 * the files, and the old cluster's meta pages carry its system identifier
 * and WAL positions, which this cluster cannot check against its own.
 *
 * What proves an old file complete is the old cluster's own io worker.
 * pg_upgrade starts the old cluster once in binary-upgrade mode, and
 * stops it cleanly; at that start artrie replays the WAL its files lack
 * (as after any clean stop), nothing writes to an index, and at the stop
 * the io worker checkpoints every file.  If that left nothing dirty and
 * nothing changed in the pool, the io worker writes PAGER_ADOPT_MARKER:
 * the cluster's system identifier, the position from which it refused
 * files as not current (min_redo) and the end of its WAL.  Any later
 * start of that cluster removes the marker first thing, before anything
 * can change a file, so a marker found is the state of the files.
 *
 * pager_adopt_source checks the marker and the old pg_control (the same
 * system identifier, shut down cleanly); pager_adopt_file copies one file
 * byte for byte (not a file marked damaged), loads it with the old
 * identifier accepted and its checkpoint within [min_redo, upto], as
 * current now, and checkpoints it, which writes this cluster's
 * identifier and WAL position into its meta page.
 *
 * Layer: calls the file table (pager_open_adopted, pager_drop_file,
 * pager_parse_oid) and
 * the checkpoint (pager_flush_file).  Called by the SQL surface
 * (artrie_adopt) and the io worker (the marker).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_adopt.h"
#include "pager/pager_file.h"

#include "access/xlog.h"
#include "catalog/pg_control.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"

#define ADOPT_MARKER_TMP	PAGER_ADOPT_MARKER ".tmp"

/*
 * At the io worker's start: remove the marker, so that it never outlives
 * a run of the cluster that may change files.
 */
void
pager_adopt_forget_clean(void)
{
	if (unlink(PAGER_ADOPT_MARKER) == 0)
		fsync_fname("artrie", true);
	else if (errno != ENOENT)
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", PAGER_ADOPT_MARKER)));
}

/*
 * At the io worker's last checkpoint in binary-upgrade mode (pg_upgrade's
 * run of the old cluster): write the marker if every file is complete,
 * that is recovery's replay is done, no frame is dirty and no open file
 * has anything to checkpoint.
 */
void
pager_adopt_note_clean(void)
{
	char		text[128];
	int			fd;
	int			len;

	if (!IsBinaryUpgrade || !pager_is_ready() ||
		pg_atomic_read_u32(&pager_shared->ndirty) != 0)
		return;
	for (int i = 0; i < pager_shared->max_files; i++)
	{
		PagerFileSlot *fs = &pager_shared->files[i];
		bool		changed;

		LWLockAcquire(&fs->lock, LW_SHARED);
		changed = fs->in_use && fs->loaded && fs->changed;
		LWLockRelease(&fs->lock);
		if (changed)
			return;
	}

	len = snprintf(text, sizeof(text), UINT64_FORMAT " %X/%X %X/%X\n",
				   GetSystemIdentifier(),
				   LSN_FORMAT_ARGS(pager_min_redo()),
				   LSN_FORMAT_ARGS(GetXLogInsertRecPtr()));
	fd = OpenTransientFile(ADOPT_MARKER_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0 || write(fd, text, len) != len || pg_fsync(fd) != 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", ADOPT_MARKER_TMP)));
		if (fd >= 0)
			CloseTransientFile(fd);
		return;
	}
	CloseTransientFile(fd);
	(void) durable_rename(ADOPT_MARKER_TMP, PAGER_ADOPT_MARKER, LOG);
}

/*
 * Read the old cluster's pg_control (global/pg_control, or the
 * pg_control.old that pg_upgrade's link mode leaves): its system
 * identifier and state.
 */
static void
adopt_read_control(const char *olddir, uint64 *sysid, DBState *state)
{
	char		path[MAXPGPATH];
	ControlFileData control;
	int			fd;
	int			n;

	snprintf(path, sizeof(path), "%s/global/pg_control", olddir);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0 && errno == ENOENT)
	{
		snprintf(path, sizeof(path), "%s/global/pg_control.old", olddir);
		fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	}
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	n = read(fd, &control, sizeof(control));
	CloseTransientFile(fd);
	if (n < (int) (offsetof(ControlFileData, state) + sizeof(DBState)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read file \"%s\"", path)));
	*sysid = control.system_identifier;
	*state = control.state;
}

/*
 * Check the old cluster at olddir and describe it in *source: ERROR unless
 * its io worker left the marker at pg_upgrade's stop, and pg_control says
 * the same cluster and a clean shutdown.
 */
void
pager_adopt_source(const char *olddir, PagerAdoptSource *source)
{
	char		path[MAXPGPATH];
	char		text[128];
	int			fd;
	int			n;
	uint32		hi1,
				lo1,
				hi2,
				lo2;
	uint64		sysid;
	DBState		state;

	strlcpy(source->dir, olddir, sizeof(source->dir));
	snprintf(path, sizeof(path), "%s/%s", olddir, PAGER_ADOPT_MARKER);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot adopt artrie files from \"%s\": no note that pg_upgrade stopped it with every change in its artrie files",
						olddir),
				 errdetail("File \"%s\" cannot be opened: %m.", path),
				 errhint("Give the data directory of the cluster that pg_upgrade upgraded from, not started since; otherwise REINDEX.")));
	n = read(fd, text, sizeof(text) - 1);
	CloseTransientFile(fd);
	text[Max(n, 0)] = '\0';
	if (sscanf(text, UINT64_FORMAT " %X/%X %X/%X", &source->sysid,
			   &hi1, &lo1, &hi2, &lo2) != 5)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot adopt artrie files from \"%s\": file \"%s\" is malformed",
						olddir, path)));
	source->min_redo = ((uint64) hi1 << 32) | lo1;
	source->upto = ((uint64) hi2 << 32) | lo2;

	adopt_read_control(olddir, &sysid, &state);
	if (sysid != source->sysid || state != DB_SHUTDOWNED)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot adopt artrie files from \"%s\": the cluster did not stop cleanly after pg_upgrade's run",
						olddir),
				 errdetail("Its pg_control names system identifier " UINT64_FORMAT " in state %d; artrie's note names " UINT64_FORMAT ".",
						   sysid, (int) state, source->sysid),
				 errhint("REINDEX the indexes.")));
}

/*
 * Copy the old cluster's file for id byte for byte to this cluster's path
 * of the same name, made durable.
 */
static void
adopt_copy(const char *from, const char *to)
{
	char	   *buf = palloc(BLCKSZ * 16);
	int			src;
	int			dst;
	ssize_t		n;

	src = OpenTransientFile(from, O_RDONLY | PG_BINARY);
	if (src < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", from)));
	dst = OpenTransientFilePerm(to, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY,
								pg_file_create_mode);
	if (dst < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", to)));
	while ((n = read(src, buf, BLCKSZ * 16)) > 0)
	{
		CHECK_FOR_INTERRUPTS();
		if (write(dst, buf, n) != n)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", to)));
	}
	if (n < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", from)));
	if (pg_fsync(dst) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", to)));
	CloseTransientFile(dst);
	CloseTransientFile(src);
	pfree(buf);
}

/*
 * Remove the files here of id's relfilenode with another generation: the
 * file that pg_upgrade's restore built for the index, which no metapage
 * names once pg_upgrade put the old main fork in place (the sweep keeps
 * it, since the relfilenode's main fork exists).
 */
static void
adopt_drop_others(const ArtFileId *id)
{
	char		dirpath[IO_PATH_LEN];
	DIR		   *dir;
	struct dirent *de;
	List	   *others = NIL;
	ListCell   *lc;

	snprintf(dirpath, sizeof(dirpath), "artrie/%u", id->dbOid);
	dir = AllocateDir(dirpath);
	while ((de = ReadDirExtended(dir, dirpath, LOG)) != NULL)
	{
		ArtFileId  *other;
		const char *p;
		Oid			rel;
		Oid			gen;

		if (!pager_parse_oid(de->d_name, &p, &rel) || rel != id->relNumber ||
			*p != '.' || !pager_parse_oid(p + 1, &p, &gen) || *p != '\0' ||
			gen == id->generation)
			continue;
		other = palloc(sizeof(ArtFileId));
		*other = *id;
		other->generation = gen;
		others = lappend(others, other);
	}
	FreeDir(dir);
	foreach(lc, others)
		pager_drop_file((ArtFileId *) lfirst(lc));
}

/*
 * Adopt the old cluster's file for id: copy it here (replacing whatever
 * file of that name is here), load it as current and checkpoint it under
 * this cluster's identifier; remove the relfilenode's other files here.
 * Returns the open file.
 */
PagerFile *
pager_adopt_file(const ArtFileId *id, const PagerAdoptSource *source,
				 const char *relname)
{
	char		name[IO_PATH_LEN];
	char		from[MAXPGPATH];
	char		dir[IO_PATH_LEN];
	struct stat st;
	PagerFile  *volatile file = NULL;

	snprintf(name, sizeof(name), "artrie/%u/%u.%u",
			 id->dbOid, id->relNumber, id->generation);
	snprintf(from, sizeof(from), "%s/%s", source->dir, name);
	if (stat(from, &st) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("index \"%s\" cannot be adopted: the old cluster has no file \"%s\"",
						relname, name),
				 errhint("REINDEX the index.")));
	snprintf(from, sizeof(from), "%s/%s%s", source->dir, name,
			 PAGER_DAMAGED_SUFFIX);
	if (stat(from, &st) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("index \"%s\" cannot be adopted: the old cluster marked file \"%s\" damaged",
						relname, name),
				 errhint("REINDEX the index.")));
	snprintf(from, sizeof(from), "%s/%s", source->dir, name);

	pager_drop_file(id);
	if (MakePGDirectory("artrie") < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", "artrie")));
	snprintf(dir, sizeof(dir), "artrie/%u", id->dbOid);
	if (MakePGDirectory(dir) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir)));
	adopt_copy(from, name);
	fsync_fname(dir, true);

	PG_TRY();
	{
		file = pager_open_adopted(id, source, relname);
		pager_flush_file(file);
	}
	PG_CATCH();
	{
		pager_drop_file(id);
		PG_RE_THROW();
	}
	PG_END_TRY();
	adopt_drop_others(id);
	return file;
}
