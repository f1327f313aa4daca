/*-------------------------------------------------------------------------
 *
 * am_createdb.c
 *	  CREATE DATABASE ... TEMPLATE: the new database's artrie indexes get
 *	  copies of the template's files.
 *
 * CREATE DATABASE copies the template's relations, among them the main
 * fork of each artrie index, whose metapage names the index's artrie file
 * (database, relfilenode, generation); it does not copy the files under
 * $PGDATA/artrie.  A ProcessUtility hook runs after CREATE DATABASE, in its
 * transaction, while createdb's lock on the template keeps every session
 * out of it (connecting takes a lock that conflicts), so the template's
 * indexes cannot change.  For each file of the template that a copied
 * metapage names, it copies the file through the pool (pages not yet
 * checkpointed included) to one of the new database under the same
 * relfilenode and generation, logs the copy's image (for a permanent
 * index) so that crash recovery and standbys have it, and rewrites the
 * copied metapages (main fork, and an UNLOGGED index's init fork) to name
 * the copy, as full page images in the WAL.  A file that cannot be copied
 * (refused in the template) leaves its index refused with a hint to
 * REINDEX, and a WARNING says so.  If the transaction aborts after the
 * copy, the copies stay until the sweep finds their main forks gone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/xact.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "am/am.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/*
 * The buffer manager's name of relfilenode rel of database db in
 * tablespace spc.
 */
static AmRelLocator
am_createdb_locator(Oid spc, Oid db, Oid rel)
{
	AmRelLocator loc;

#if PG_VERSION_NUM >= 160000
	loc.spcOid = spc;
	loc.dbOid = db;
	loc.relNumber = rel;
#else
	loc.spcNode = spc;
	loc.dbNode = db;
	loc.relNode = rel;
#endif
	return loc;
}

/*
 * Copy file src to the new database db and point the metapages of the
 * index there (its main fork at path, in tablespace spc) at the copy.
 */
static void
am_createdb_copy_file(const ArtFileId *src, Oid db, Oid spc,
					  const char *path, bool unlogged,
					  ArtrieMetaPageData *meta)
{
	AmRelLocator loc = am_createdb_locator(spc, db, src->relNumber);
	ArtFileId	dst = *src;
	ArtrieMetaPageData initmeta;
	char	   *relname = psprintf("%u", src->relNumber);
	char	   *initpath = psprintf("%s_init", path);
	struct stat st;

	dst.dbOid = db;
	if (!(meta->flags & ARTRIE_META_RESET))
	{
		pager_drop_file(&dst);	/* left by a dropped database of that OID */
		pager_copy_file(src, &dst, relname);
		if (!unlogged)
			wal_log_file(pager_open_file(&dst, relname), &dst);
		pager_release_file(pager_open_file(src, relname));
		pager_release_file(pager_open_file(&dst, relname));
	}
	meta->file = dst;
	am_meta_rewrite_at(loc, MAIN_FORKNUM, !unlogged, meta);
	if (unlogged && stat(initpath, &st) == 0 && st.st_size >= BLCKSZ &&
		am_meta_peek_at(loc, INIT_FORKNUM, true, &initmeta))
	{
		initmeta.file = dst;
		am_meta_rewrite_at(loc, INIT_FORKNUM, true, &initmeta);
	}
}

/*
 * Copy file src for the new database db if a metapage copied there names
 * it: the index's main fork is in base or in a tablespace.  An error is
 * a WARNING, and the index stays refused.
 */
static void
am_createdb_copy_index(const ArtFileId *src, Oid db, const char *dbname)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	DIR		   *dir;
	struct dirent *de;
	List	   *places = list_make1_oid(DEFAULTTABLESPACE_OID);
	ListCell   *lc;

	dir = AllocateDir("pg_tblspc");
	while ((de = ReadDirExtended(dir, "pg_tblspc", LOG)) != NULL)
	{
		Oid			spc = atooid(de->d_name);

		if (OidIsValid(spc))
			places = lappend_oid(places, spc);
	}
	FreeDir(dir);

	foreach(lc, places)
	{
		Oid			spc = lfirst_oid(lc);
		char	   *path;
		struct stat st;
		bool		unlogged;
		ArtrieMetaPageData meta;

		if (spc == DEFAULTTABLESPACE_OID)
			path = psprintf("base/%u/%u", db, src->relNumber);
		else
			path = psprintf("pg_tblspc/%u/%s/%u/%u", spc,
							TABLESPACE_VERSION_DIRECTORY, db, src->relNumber);
		if (stat(path, &st) != 0 || st.st_size < BLCKSZ)
			continue;
		unlogged = stat(psprintf("%s_init", path), &st) == 0;
		if (!am_meta_peek_at(am_createdb_locator(spc, db, src->relNumber),
							 MAIN_FORKNUM, !unlogged, &meta) ||
			meta.file.dbOid != src->dbOid ||
			meta.file.relNumber != src->relNumber ||
			meta.file.generation != src->generation)
			continue;

		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(cxt);
		PG_TRY();
		{
			am_createdb_copy_file(src, db, spc, path, unlogged, &meta);
			ReleaseCurrentSubTransaction();
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			ereport(WARNING,
					(errcode(edata->sqlerrcode),
					 errmsg("could not copy artrie file \"artrie/%u/%u.%u\" for database %s: %s",
							src->dbOid, src->relNumber, src->generation,
							quote_identifier(dbname), edata->message),
					 edata->detail ? errdetail("%s", edata->detail) : 0,
					 errhint("REINDEX the index of relfilenode %u in the new database.",
							 src->relNumber)));
			FreeErrorData(edata);
		}
		PG_END_TRY();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
}

/*
 * After CREATE DATABASE: copy every file of the template that an index of
 * the new database names.
 */
static void
am_createdb_copy(CreatedbStmt *stmt)
{
	const char *tmpl = "template1";
	Oid			srcdb;
	Oid			db;
	char		dirpath[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;
	List	   *files = NIL;
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "template") == 0 && opt->arg != NULL)
			tmpl = defGetString(opt);
	}
	CommandCounterIncrement();
	srcdb = get_database_oid(tmpl, false);
	db = get_database_oid(stmt->dbname, false);

	snprintf(dirpath, sizeof(dirpath), "artrie/%u", srcdb);
	dir = AllocateDir(dirpath);
	if (dir == NULL && errno == ENOENT)
		return;
	while ((de = ReadDirExtended(dir, dirpath, WARNING)) != NULL)
	{
		ArtFileId  *id = palloc(sizeof(ArtFileId));
		char		rest;

		id->dbOid = srcdb;
		if (sscanf(de->d_name, "%u.%u%c", &id->relNumber, &id->generation,
				   &rest) != 2)
			continue;
		files = lappend(files, id);
	}
	FreeDir(dir);

	foreach(lc, files)
	{
		CHECK_FOR_INTERRUPTS();
		am_createdb_copy_index((ArtFileId *) lfirst(lc), db, stmt->dbname);
	}
}

/*
 * The ProcessUtility hook: every statement as before, then the copy after
 * CREATE DATABASE.
 */
static void
am_createdb_utility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	if (IsA(parsetree, CreatedbStmt))
		am_createdb_copy((CreatedbStmt *) parsetree);
}

/*
 * Install the hook (from am_init, in _PG_init).
 */
void
am_createdb_init(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = am_createdb_utility;
}
