/*-------------------------------------------------------------------------
 *
 * am_vacuum.c
 *	  VACUUM for artrie: remove the entries of dead heap tuples.
 *
 * ambulkdelete walks both tries with a cursor and deletes the entries whose
 * TIDs the callback reports dead, a group of them at a time (a delete
 * changes the trie, and the walk's next step after a change descends from
 * the root again).  The deletes of a group come in key order, so runs of
 * them end in the same page: the page a run left underfull is merged once,
 * after the group's deletes, instead of after each delete; the deletes are
 * logged as needing no merge, and each merge that changed pages is
 * logged, so that redo merges where VACUUM did.  The cursor
 * holds no lock between calls and resumes strictly past the entry it
 * returned, so deleting the entries it returned (and concurrent inserts
 * and scans) leave the walk correct.  The deletions are flushed before
 * returning: the heap reuses those line pointers next, and no scan that
 * must not return a removed entry (see am_scan.c) may still hold a batch
 * read before the deletions, here or on a hot standby (a vacuum record,
 * logged after the deletions, makes the standby's redo wait for its
 * scans, or cancel them).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "miscadmin.h"

#include "am/am.h"

/* What am_merged logs a merge at. */
typedef struct MergeAt
{
	ArtrieIndex *ai;
	ArtTrie    *trie;
	const uint8 *entry;
	size_t		len;
} MergeAt;

/*
 * Log a merge that changed pages, with the step that changed them (redo
 * makes that step alone), inside its sections (art_merge_logged), so that
 * no checkpoint's snapshot falls between the change and its record.
 */
static void
am_merged(void *arg, ArtMergeStep step)
{
	MergeAt    *at = arg;

	am_wal_entry(at->ai, WAL_ARTRIE_MERGE, at->trie, at->entry, at->len,
				 (uint8) step);
}

/*
 * Merge the underfull page a delete of entry left, if any, and log the
 * merge if it changed pages, so that redo merges there too (the deletes
 * are logged without a merge after each; a merge that changed nothing
 * would change nothing in redo either, which then need not try it): best
 * effort, a merge that fails changes nothing, so VACUUM goes on (the
 * pager's own errors are ERRORs as everywhere).
 */
static void
am_merge(ArtrieIndex *ai, ArtTrie *trie, const uint8 *entry, size_t len)
{
	MergeAt		at = {ai, trie, entry, len};
	ArtStatus	status;

	status = art_merge_logged(trie, entry, len, am_merged, &at);
	if (status != ART_OK)
		elog(DEBUG1, "artrie index \"%s\": page merge skipped: %s",
			 RelationGetRelationName(ai->index), art_status_string(status));
}

/*
 * The dead entries a walk has found and not deleted yet, back to back in
 * key order: deleting one changes the trie, so the walk's next step would
 * descend from the root again; deleted a group at a time, the walk
 * descends once a group.  pages[i]: where entry i's path ended once
 * deleted (ART_INVALID_PAGENO: it was not there).
 */
typedef struct DeadEntries
{
	uint8	   *data;
	Size		used;
	Size		cap;
	Size	   *ends;
	ArtPageNo  *pages;
	int			n;
} DeadEntries;

/* A group ends at this many entries or bytes, whichever comes first. */
#define DEAD_GROUP_ENTRIES	1024
#define DEAD_GROUP_BYTES	(64 * 1024)

/*
 * Deletes made in one art_delete_sorted call, which keeps the trie's root
 * page and the pages above the one a delete changes locked share
 * throughout (an insert that changes one waits), and that page exclusive.
 */
#define DEAD_SORTED_ENTRIES	64

/* What am_dead_deleted logs a delete of and where it notes the page. */
typedef struct DeadDeleted
{
	ArtrieIndex *ai;
	ArtTrie    *trie;
	const DeadEntries *dead;
	ArtPageNo  *pages;			/* the group's, from the call's first entry */
} DeadDeleted;

/* Entry i of dead, and its length. */
static uint8 *
dead_entry(const DeadEntries *dead, int i, size_t *len)
{
	Size		start = i > 0 ? dead->ends[i - 1] : 0;

	*len = dead->ends[i] - start;
	return dead->data + start;
}

/*
 * Log a delete art_delete_sorted made (entry i of its call), while the
 * trie's pages are locked, and note the page its path ended in.
 */
static void
am_dead_deleted(void *arg, int i, ArtPageNo page)
{
	DeadDeleted *dd = arg;
	int			k = (int) (dd->pages - dd->dead->pages) + i;
	size_t		len;
	uint8	   *entry = dead_entry(dd->dead, k, &len);

	dd->pages[i] = page;
	am_wal_entry(dd->ai, WAL_ARTRIE_DELETE | WAL_ARTRIE_NO_MERGE, dd->trie,
				 entry, len, 0);
}

/*
 * Delete the entries gathered in dead, each logged, then merge the pages
 * they left underfull, and empty dead.  The deletes go DEAD_SORTED_ENTRIES
 * at a time through art_delete_sorted, which keeps one delete's path for
 * the next.  A run of deletes that ended in one page (key order puts them
 * together) merges it once, by the run's last entry: a merge after each
 * delete descended from the root again to try a page that the next delete
 * emptied further.
 */
static void
am_delete_dead(ArtrieIndex *ai, ArtTrie *trie, DeadEntries *dead)
{
	int			last = -1;
	uint8	   *entry;
	size_t		len;

	for (int i = 0; i < dead->n; i++)
		dead->pages[i] = ART_INVALID_PAGENO;
	for (int from = 0; from < dead->n; from += DEAD_SORTED_ENTRIES)
	{
		DeadDeleted dd = {ai, trie, dead, dead->pages + from};
		ArtRun		run;

		run.data = dead->data;
		run.ends = dead->ends + from;
		run.start = from > 0 ? dead->ends[from - 1] : 0;
		run.n = Min(DEAD_SORTED_ENTRIES, dead->n - from);
		run.last = false;
		am_check_status(art_delete_sorted(trie, &run, am_dead_deleted, &dd),
						ai->index, "vacuuming");
	}
	for (int i = 0; i < dead->n; i++)
	{
		if (dead->pages[i] == ART_INVALID_PAGENO)
			continue;
		if (last >= 0 && dead->pages[i] != dead->pages[last])
		{
			entry = dead_entry(dead, last, &len);
			am_merge(ai, trie, entry, len);
		}
		last = i;
	}
	if (last >= 0)
	{
		entry = dead_entry(dead, last, &len);
		am_merge(ai, trie, entry, len);
	}
	dead->used = 0;
	dead->n = 0;
}

/*
 * Delete the dead entries of one trie; count what is removed and kept.
 */
static void
am_bulkdelete_trie(ArtrieIndex *ai, ArtTrie *trie,
				   IndexBulkDeleteCallback callback, void *callback_state,
				   IndexBulkDeleteResult *stats)
{
	Relation	index = ai->index;
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		len;
	ArtStatus	status;
	DeadEntries dead;

	dead.cap = DEAD_GROUP_BYTES;
	dead.data = palloc(dead.cap);
	dead.used = 0;
	dead.ends = palloc(sizeof(Size) * DEAD_GROUP_ENTRIES);
	dead.pages = palloc(sizeof(ArtPageNo) * DEAD_GROUP_ENTRIES);
	dead.n = 0;

	am_check_status(art_cursor_open(trie, &cursor), index, "vacuuming");
	am_check_status(art_cursor_seek(cursor, NULL, 0, true, ART_FORWARD),
					index, "vacuuming");

	while ((status = art_cursor_next(cursor, &entry, &len)) == ART_OK)
	{
		ItemPointerData tid;

#if PG_VERSION_NUM >= 180000
		vacuum_delay_point(false);
#else
		vacuum_delay_point();
#endif

		am_entry_tid(entry, len, &tid);
		if (!callback(&tid, callback_state))
		{
			stats->num_index_tuples += 1;
			continue;
		}
		stats->tuples_removed += 1;

		if (dead.n > 0 && dead.used + len > dead.cap)
			am_delete_dead(ai, trie, &dead);
		if (len > dead.cap)
		{
			dead.cap = len;
			dead.data = repalloc(dead.data, dead.cap);
		}
		memcpy(dead.data + dead.used, entry, len);
		dead.used += len;
		dead.ends[dead.n++] = dead.used;
		if (dead.n == DEAD_GROUP_ENTRIES)
			am_delete_dead(ai, trie, &dead);
	}
	if (status != ART_NOT_FOUND)
		am_check_status(status, index, "vacuuming");
	am_delete_dead(ai, trie, &dead);

	art_cursor_close(cursor);
	pfree(dead.pages);
	pfree(dead.ends);
	pfree(dead.data);
}

/*
 * ambulkdelete: remove the entries of the dead heap tuples.
 */
IndexBulkDeleteResult *
artrie_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	ArtrieIndex ai;

	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));

	am_open(index, &ai);
	stats->num_index_tuples = 0;
	am_bulkdelete_trie(&ai, &ai.keys, callback, callback_state, stats);
	am_bulkdelete_trie(&ai, &ai.nulls, callback, callback_state, stats);

	/*
	 * No scan may return a removed entry once the heap reuses TIDs.  The
	 * deletions need no flush: their WAL records come before the heap's
	 * records that free the TIDs.  So does the vacuum record, at whose
	 * redo a hot standby waits for (or cancels) its own scans.  Both
	 * happen even if this pass removed nothing: an earlier bulk delete
	 * canceled while it waited here may have removed the entries of the
	 * very TIDs the heap frees next.
	 */
	am_wal_vacuum(&ai);
	pager_hold_wait(ai.file);

	stats->num_pages = pager_file_pages(ai.file) + 1;
	stats->estimated_count = false;
	return stats;
}

/*
 * amvacuumcleanup: report the index's size and entry count.
 */
IndexBulkDeleteResult *
artrie_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	ArtrieIndex ai;

	if (info->analyze_only)
		return stats;

	am_open(index, &ai);
	if (stats == NULL)
	{
		uint64		nkeys;
		uint64		nnulls;

		stats = palloc0(sizeof(IndexBulkDeleteResult));
		am_check_status(art_count_prefix(&ai.keys, (const uint8 *) "", 0, &nkeys), index,
						"counting");
		am_check_status(art_count_prefix(&ai.nulls, (const uint8 *) "", 0, &nnulls), index,
						"counting");
		stats->num_index_tuples = (double) (nkeys + nnulls);
	}
	stats->num_pages = pager_file_pages(ai.file) + 1;
	stats->estimated_count = false;
	return stats;
}
