/*-------------------------------------------------------------------------
 *
 * pager_sweeper.c
 *	  The sweeper: a background worker, connected to one database, that
 *	  removes the files of that database's dropped relations; and the io
 *	  worker's tick that starts it.
 *
 * Only a process connected to a database can read its pg_class, and the
 * io worker is connected to none (it must never wait for a catalog lock).
 * So every PAGER_SWEEP_INTERVAL_MS the io worker looks at the disk only
 * (pager_sweep_wanted): which databases have files whose main fork is
 * missing, and whether some database's directory is missing altogether.
 * For each, in turn, it starts a sweeper: one connected to that database
 * (pager_sweep_database), or one connected to no database that reads
 * pg_database (pager_sweep_dropped_databases).  One sweeper runs at a
 * time; a database whose files were looked at lately is looked at again
 * only when it has more such files or PAGER_SWEEP_AGAIN_MS has passed, so
 * that a relation whose main fork is lost but which the catalog still
 * names costs one short connection now and then, not one per tick.  A
 * sweeper that could not connect (a database left invalid by an
 * interrupted DROP DATABASE refuses every connection with a FATAL) is
 * logged once, and its database is tried again only after
 * PAGER_SWEEP_FAILED_AGAIN_MS.
 *
 * A sweeper is an ordinary short session of its database: DROP DATABASE
 * and CREATE DATABASE ... TEMPLATE wait for it to end, as they wait for
 * any session (at most a few seconds).
 *
 * Layer: calls the sweep (pager_sweep.c).  Called by the io worker's loop
 * (pager_sweep_tick); the sweeper's entry point is named to the postmaster.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_sweep.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

PGDLLEXPORT void artrie_sweeper_main(Datum main_arg);

/* How often the io worker looks at the disk for files to sweep. */
#define PAGER_SWEEP_INTERVAL_MS		5000

/* When a database looked at, with as many such files, is looked at again. */
#define PAGER_SWEEP_AGAIN_MS		15000

/* When a database whose sweeper could not connect is tried again. */
#define PAGER_SWEEP_FAILED_AGAIN_MS	(10 * 60 * 1000)

/* How many databases' last looks the io worker remembers. */
#define PAGER_SWEEP_MEMORY			64

/* A database a sweeper was started for. */
typedef struct SweepLook
{
	Oid			db;				/* InvalidOid: the dropped databases' look */
	int			count;			/* files (or databases) that wanted it */
	TimestampTz at;
	bool		failed;			/* its sweeper could not connect */
} SweepLook;

static MemoryContext sweep_cxt = NULL;
static TimestampTz next_look = 0;
static BackgroundWorkerHandle *sweeper = NULL;
static Oid	sweeper_db = InvalidOid;	/* the database of that sweeper */
static SweepLook looks[PAGER_SWEEP_MEMORY];
static int	nlooks = 0;

/*
 * The remembered look at db, or NULL.
 */
static SweepLook *
sweeper_look(Oid db)
{
	for (int i = 0; i < nlooks; i++)
	{
		if (looks[i].db == db)
			return &looks[i];
	}
	return NULL;
}

/*
 * Is the sweeper last started still starting or running?  When it has
 * stopped without reaching its database, its look is marked failed and
 * logged.
 */
static bool
sweeper_running(void)
{
	pid_t		pid;
	SweepLook  *look;

	if (sweeper == NULL)
		return false;
	if (GetBackgroundWorkerPid(sweeper, &pid) != BGWH_STOPPED)
		return true;
	pfree(sweeper);
	sweeper = NULL;
	look = sweeper_look(sweeper_db);
	if (look != NULL && pg_atomic_read_u32(&pager_shared->sweeper_connected) == 0)
	{
		look->failed = true;
		ereport(LOG,
				(errmsg("artrie could not sweep database %u: its sweeper could not connect",
						sweeper_db),
				 errdetail("The files of that database's dropped indexes stay until it is tried again in %d minutes.",
						   PAGER_SWEEP_FAILED_AGAIN_MS / 60000),
				 errhint("A database left invalid by an interrupted DROP DATABASE must be dropped again.")));
	}
	return false;
}

/*
 * Remember that a sweeper was started for db with count files wanting it;
 * the oldest memory makes room.
 */
static void
sweeper_remember(Oid db, int count, TimestampTz now)
{
	SweepLook  *look = sweeper_look(db);

	if (look == NULL && nlooks < PAGER_SWEEP_MEMORY)
		look = &looks[nlooks++];
	else if (look == NULL)
	{
		look = &looks[0];
		for (int i = 1; i < nlooks; i++)
		{
			if (looks[i].at < look->at)
				look = &looks[i];
		}
	}
	look->db = db;
	look->count = count;
	look->at = now;
	look->failed = false;
}

/*
 * Start a sweeper for db (InvalidOid: connected to no database); false if
 * the postmaster has no slot for it now.
 */
static bool
sweeper_start(Oid db)
{
	BackgroundWorker worker;
	MemoryContext old;
	bool		started;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	worker.bgw_main_arg = ObjectIdGetDatum(db);
	worker.bgw_notify_pid = 0;
	pg_atomic_write_u32(&pager_shared->sweeper_connected, 0);
	sweeper_db = db;
	strlcpy(worker.bgw_library_name, "artrie", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "artrie_sweeper_main", BGW_MAXLEN);
	snprintf(worker.bgw_name, BGW_MAXLEN, "artrie sweeper for database %u",
			 db);
	strlcpy(worker.bgw_type, "artrie sweeper", BGW_MAXLEN);

	old = MemoryContextSwitchTo(TopMemoryContext);
	started = RegisterDynamicBackgroundWorker(&worker, &sweeper);
	MemoryContextSwitchTo(old);
	if (!started)
		ereport(DEBUG1,
				(errmsg_internal("artrie: no background worker slot for the sweeper")));
	return started;
}

/*
 * Look at the disk and start a sweeper for the first database that wants
 * one and was not looked at lately; true if one was started.
 */
static bool
sweeper_look_and_start(TimestampTz now)
{
	Oid		   *dbs;
	int		   *counts;
	int			n = pager_sweep_wanted(&dbs, &counts);

	for (int i = 0; i < n; i++)
	{
		SweepLook  *look = sweeper_look(dbs[i]);

		if (look != NULL && look->failed &&
			!TimestampDifferenceExceeds(look->at, now, PAGER_SWEEP_FAILED_AGAIN_MS))
			continue;
		if (look != NULL && counts[i] <= look->count &&
			!TimestampDifferenceExceeds(look->at, now, PAGER_SWEEP_AGAIN_MS))
			continue;
		if (!sweeper_start(dbs[i]))
			return false;
		sweeper_remember(dbs[i], counts[i], now);
		return true;
	}
	return false;
}

/*
 * In the io worker's loop: when no sweeper runs, and PAGER_SWEEP_INTERVAL_MS
 * has passed since a look that started none, look at the disk and start
 * the next sweeper.
 */
void
pager_sweep_tick(void)
{
	MemoryContext old;
	TimestampTz now;
	bool		started;

	if (sweeper_running())
		return;
	now = GetCurrentTimestamp();
	if (now < next_look)
		return;

	if (sweep_cxt == NULL)
		sweep_cxt = AllocSetContextCreate(TopMemoryContext, "artrie sweep",
										  ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(sweep_cxt);
	old = MemoryContextSwitchTo(sweep_cxt);
	started = sweeper_look_and_start(now);
	MemoryContextSwitchTo(old);
	MemoryContextReset(sweep_cxt);
	next_look = started ? now :
		TimestampTzPlusMilliseconds(now, PAGER_SWEEP_INTERVAL_MS);
}

/*
 * The sweeper's entry point: connect to the database named by main_arg
 * (none for InvalidOid), sweep in one transaction, exit.
 */
void
artrie_sweeper_main(Datum main_arg)
{
	Oid			db = DatumGetObjectId(main_arg);

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	if (OidIsValid(db))
		BackgroundWorkerInitializeConnectionByOid(db, InvalidOid,
												  BGWORKER_BYPASS_ALLOWCONN);
	else
		BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pg_atomic_write_u32(&pager_shared->sweeper_connected, 1);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, "artrie sweep");
	if (OidIsValid(db))
		pager_sweep_database(db);
	else
		pager_sweep_dropped_databases();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
}
