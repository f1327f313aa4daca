/*-------------------------------------------------------------------------
 *
 * artrie.c
 *	  Module load: artrie works only from shared_preload_libraries.
 *
 * The pager's buffer pool and the io worker live in shared memory and a
 * background worker that only the postmaster can set up at start, so the
 * library refuses to load any other way, with a message that says how to
 * fix it.  Every use of artrie (CREATE EXTENSION, an index scan, a
 * function call) loads the library and so meets the same error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "am/am.h"
#include "pager/pager.h"
#include "wal/wal.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Library load: set up the pager when preloaded, refuse otherwise.
 */
void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("artrie must be loaded via shared_preload_libraries"),
				 errhint("Add shared_preload_libraries = 'artrie' to postgresql.conf and restart the server.")));

	am_init();
	pager_init();
	wal_init();
}
