/*-------------------------------------------------------------------------
 *
 * am_journal.c
 *	  What artrie's journal records mean: writing them for a logged index,
 *	  and applying them during recovery.
 *
 * A record is one entry inserted into or deleted from one trie (named by
 * its root page) of one artrie file.  Applying it is idempotent: an entry
 * already present is not inserted again, an absent one is not deleted.
 * UNLOGGED and temporary indexes write no records: after a crash the
 * former come back empty, like their tables, and the latter are gone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/journal.h"

#include "am/am.h"

/*
 * Record a change just made to one of the index's tries; the transaction
 * waits at commit until the record is durable.
 */
void
am_journal(ArtrieIndex *ai, JournalOp op, ArtTrie *trie, const uint8 *entry,
		   Size len)
{
	if (ai->index->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return;
	journal_append(op, &ai->meta.file, trie->root, entry, len);
}

/* Apply one journal record to its trie, during recovery. */
static void
am_redo(PagerFile *file, JournalOp op, uint32 root, const uint8 *entry,
		Size len)
{
	ArtTrie		trie;
	ArtStatus	status;

	art_open(&trie, pager_page_store(file), root);
	if (op == JOURNAL_INSERT)
		status = art_insert(&trie, entry, len);
	else
		status = art_delete(&trie, entry, len);
	if (status != ART_OK && status != ART_EXISTS && status != ART_NOT_FOUND)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not replay an artrie journal record: %s",
						art_status_string(status)),
				 errhint("REINDEX the index.")));
}

/* Tell the journal how to apply records (from _PG_init). */
void
am_journal_init(void)
{
	journal_set_redo_fn(am_redo);
}
