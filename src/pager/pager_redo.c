/*-------------------------------------------------------------------------
 *
 * pager_redo.c
 *	  The pager's calls for recovery and redo (pager_redo.h): the state of
 *	  recovery that decides which files may be used, opening the files
 *	  that redo names, vouching for a file, marking one damaged and
 *	  surveying the files.
 *
 * Until pager_set_ready, only the startup process and the io worker may
 * use files.  Files whose last checkpoint began before pager_set_min_redo's
 * position are refused when loaded (pager_meta.c) unless redo vouches for
 * them; files marked damaged are refused always.
 *
 * Layer: calls the file table (opening, forgetting and walking files) and
 * the meta pages' layer (reading them for the survey).  Called by the WAL
 * layer (src/wal) through pager_redo.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pager/pager_file.h"
#include "pager/pager_meta.h"
#include "pager/pager_vouch.h"

#include "access/xlog.h"
#include "storage/fd.h"

/*
 * Redo holds back the records from lsn on (it applies them later, in one
 * batch), or none with InvalidXLogRecPtr: until then, no checkpoint may
 * claim them.  Called with lsn before the replay position passes it, and
 * with InvalidXLogRecPtr once every record held back is applied.
 */
void
pager_hold_redo(XLogRecPtr lsn)
{
	(void) pg_atomic_exchange_u64(&pager_shared->redo_held, lsn);
}

/*
 * Files are up to date with the WAL replayed so far: backends may use
 * them, and checkpoints may run once recovery has replayed past barrier.
 */
void
pager_set_ready(XLogRecPtr barrier)
{
	pager_shared->ckpt_barrier = barrier;
	pager_shared->ready = true;
	ConditionVariableBroadcast(&pager_shared->ready_cv);
}

/* Whether backends may use files yet. */
bool
pager_is_ready(void)
{
	return pager_shared->ready;
}

/* Refuse files whose last checkpoint began before lsn. */
void
pager_set_min_redo(XLogRecPtr lsn)
{
	pager_shared->min_redo = lsn;
}

/* Where files checkpointed earlier start being refused. */
XLogRecPtr
pager_min_redo(void)
{
	return pager_shared->min_redo;
}

/* WAL from lsn on will be replayed at the next start. */
void
pager_set_replay_from(XLogRecPtr lsn)
{
	if (!pager_shared->ready)
		pager_shared->replayed_from = pager_shared->stamped_from = lsn;
	pager_shared->replay_from = lsn;
}

/* Where the WAL replayed at the next start begins. */
XLogRecPtr
pager_replay_from(void)
{
	return pager_shared->replay_from;
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
	if (stat(path, &st) != 0 || pager_file_damaged(id))
		return NULL;
	file = pager_open_file(id, path);
	*redo_lsn = pager_slot(file)->redo_lsn;
	return file;
}

/*
 * pager_files_walk's visit for pager_survey_files: count the file in the
 * PagerSurvey at arg by its newest valid meta page.
 */
static void
survey_visit(const ArtFileId *id, void *arg)
{
	PagerSurvey *survey = (PagerSurvey *) arg;
	char		path[IO_PATH_LEN + 16];
	uint8	   *buf;
	PagerMeta	meta[2];
	const uint8 *meta_map[2];
	char		problem[2][128];
	int			best = -1;

	if (pager_file_damaged(id))
		return;
	pager_file_path(id, path);
	buf = palloc(2 * ART_PAGE_SIZE);
	if (pager_meta_read(path, buf))
		best = pager_meta_choose(id, buf, buf + ART_PAGE_SIZE, meta, meta_map,
								 problem);
	if (best < 0)
		survey->unreadable++;
	else if (meta[best].sysid != GetSystemIdentifier())
		survey->foreign++;
	else
	{
		if (survey->files == 0 || meta[best].redo_lsn < survey->oldest)
			survey->oldest = meta[best].redo_lsn;
		survey->files++;
	}
	pfree(buf);
}

/*
 * Look at every file under $PGDATA/artrie through its meta pages (for
 * recovery, when its control file is lost): how many there are of this
 * cluster and where the oldest one's last checkpoint began, how many are
 * of another cluster, and how many have no valid meta page.  Files marked
 * damaged are left out: they are refused whatever recovery decides.
 */
void
pager_survey_files(PagerSurvey *survey)
{
	memset(survey, 0, sizeof(*survey));
	survey->oldest = InvalidXLogRecPtr;
	pager_files_walk(survey_visit, survey);
}

/*
 * Redo learned that a file had no change from its checkpoint that began
 * at since up to upto (an unchanged record): a copy of it whose last
 * checkpoint began in [since, upto] holds every change logged before
 * upto, even one older than the position that refuses old files (a base
 * backup copied it before artrie's checkpoint caught up with the backup's
 * start).  Load such a copy now, as current at upto; its next checkpoint
 * writes that down.  Nothing to do if no copy older than that position
 * can be covered, or the file is loaded, missing or marked damaged.
 */
void
pager_vouch_file(const ArtFileId *id, XLogRecPtr since, XLogRecPtr upto)
{
	PagerWarrant vouch;
	char		path[IO_PATH_LEN + 16];
	struct stat st;
	XLogRecPtr	at;

	if (since >= pager_shared->min_redo || upto < pager_shared->min_redo)
		return;

	/*
	 * A file the vouch list covers is served at its first use: no need to
	 * load every idle file while redo runs.
	 */
	if (pager_vouch_covers(NULL, GetSystemIdentifier(), id, since,
						   pager_shared->min_redo, &at))
		return;
	if (pager_file_loaded(id))
		return;
	pager_file_path(id, path);
	if (stat(path, &st) != 0 || pager_file_damaged(id))
		return;

	vouch.adopt = NULL;
	vouch.since = since;
	vouch.upto = upto;
	(void) pager_open_warranted(id, path, &vouch);
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

	pager_file_forget(id);
}
