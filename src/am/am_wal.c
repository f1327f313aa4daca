/*-------------------------------------------------------------------------
 *
 * am_wal.c
 *	  Which changes of an index go to PostgreSQL's WAL.
 *
 * Every change to a permanent index is logged (src/wal): entries inserted
 * and deleted, the end of a bulk delete's deletions, and the whole file
 * after a build or a copy.  UNLOGGED and
 * temporary indexes log nothing: after a crash the former come back
 * empty, like their tables, and the latter are gone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "am/am.h"

/* Whether the index's changes are logged. */
static bool
am_needs_wal(Relation index)
{
	return index->rd_rel->relpersistence == RELPERSISTENCE_PERMANENT;
}

/*
 * Log an entry just inserted into (WAL_ARTRIE_INSERT) or deleted from
 * (WAL_ARTRIE_DELETE, with WAL_ARTRIE_NO_MERGE if the caller logs its
 * merges) one of the index's tries, or a merge at it (WAL_ARTRIE_MERGE)
 * with the step that changed pages (0 for the other kinds).
 */
void
am_wal_entry(ArtrieIndex *ai, uint8 kind, ArtTrie *trie, const uint8 *entry,
			 Size len, uint8 step)
{
	if (am_needs_wal(ai->index))
		wal_log_entry(kind, &ai->meta.file, trie->root, entry, len, step);
}

/*
 * Log that a bulk delete's deletions are done, before the heap frees the
 * TIDs: a hot standby waits there for its scans of the index.
 */
void
am_wal_vacuum(ArtrieIndex *ai)
{
	if (am_needs_wal(ai->index))
		wal_log_vacuum(&ai->meta.file);
}

/*
 * Begin the bulk load of an index's new file, keeping what its image
 * needs if the index is logged.
 */
PagerBuild *
am_wal_build_begin(Relation index, PagerFile *file)
{
	return pager_build_begin(file, am_needs_wal(index));
}

/*
 * Make the file of an index just built durable and, if the index is
 * logged, log the whole of it.
 */
void
am_wal_built_file(Relation index, PagerBuild *build)
{
	pager_build_finish(build, am_needs_wal(index) ? wal_log_build_image : NULL);
}

/* Log the whole file of an index just built or copied, made durable. */
void
am_wal_file(Relation index, PagerFile *file, const ArtFileId *id)
{
	if (am_needs_wal(index))
		wal_log_file(file, id);
}
