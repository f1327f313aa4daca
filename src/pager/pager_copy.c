/*-------------------------------------------------------------------------
 *
 * pager_copy.c
 *	  Filling a file page by page, copying a file to a new name, and the
 *	  names of files.
 *
 * Pages point at each other by logical page number, so a file is filled
 * at the same logical page numbers as its source: a copy (ALTER INDEX ...
 * SET TABLESPACE) reads the old file's pages through the pool, and WAL
 * redo takes them from the image records of a file just built or copied
 * (src/wal).  Pages free in the source are allocated like the others and
 * freed at the end, so that every later page keeps its number.  The
 * caller keeps everyone else away from both files (ALTER INDEX ... SET
 * TABLESPACE holds an AccessExclusiveLock; nobody else knows a new file).
 *
 * Layer: above the page store and checkpoints: it fills and reads pages
 * through the page store (pager_store.c), resolves handles and copies the
 * user words with the file table, looks pages up in the page map
 * (pager_space.c), and makes a copy durable with pager_flush_file
 * (pager_checkpoint.c).  Called by the SQL surface and the WAL layer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_file.h"
#include "pager/pager_space.h"

#include "miscadmin.h"

/*
 * Write logical page pageno of a file being filled, allocating the pages
 * before it that it does not have yet.  The file's content version moves,
 * as with every change of its pages (a merge passes over a page tried at
 * a version no change has moved since: trie_merge.c).
 */
void
pager_copy_in_page(PagerFile *file, ArtPageNo pageno, const char *body)
{
	ArtPageStore store = pager_page_store(file);
	ArtPageRef	ref;

	store.ops->version(store.store, true);
	while (pager_file_nlogical(file) <= pageno)
	{
		store.ops->alloc(store.store, &ref);
		if (ref.pageno != pager_file_nlogical(file) - 1)
			elog(ERROR, "artrie: filling file \"%s\" got page %u, expected %u",
				 pager_slot(file)->path, ref.pageno,
				 pager_file_nlogical(file) - 1);
		if (ref.pageno == pageno && body != NULL)
		{
			memcpy(ref.data + ART_PAGE_RESERVED, body, ART_PAGE_SIZE - ART_PAGE_RESERVED);
			store.ops->mark_dirty(store.store, &ref);
		}
		store.ops->release(store.store, &ref);
		if (ref.pageno == pageno)
			return;
	}
	if (body == NULL || pager_map_get(pager_slot(file), pageno, NULL) == PAGER_PHYS_FREE)
		return;
	store.ops->pin(store.store, pageno, ART_LOCK_EXCLUSIVE, &ref);
	memcpy(ref.data + ART_PAGE_RESERVED, body, ART_PAGE_SIZE - ART_PAGE_RESERVED);
	store.ops->mark_dirty(store.store, &ref);
	store.ops->release(store.store, &ref);
}

/*
 * Free logical page pageno, if the file has it in use; the file's content
 * version moves (pager_copy_in_page).
 */
void
pager_free_page(PagerFile *file, ArtPageNo pageno)
{
	ArtPageStore store = pager_page_store(file);
	ArtPageRef	ref;

	store.ops->version(store.store, true);
	if (pageno >= pager_file_nlogical(file) ||
		pager_map_get(pager_slot(file), pageno, NULL) == PAGER_PHYS_FREE)
		return;
	store.ops->pin(store.store, pageno, ART_LOCK_EXCLUSIVE, &ref);
	store.ops->free(store.store, &ref);
}

/*
 * Copy logical page pageno's body into body; false if the page is free.
 */
bool
pager_copy_out_page(PagerFile *file, ArtPageNo pageno, char *body)
{
	ArtPageStore store = pager_page_store(file);
	ArtPageRef	ref;

	if (pageno >= pager_file_nlogical(file) ||
		pager_map_get(pager_slot(file), pageno, NULL) == PAGER_PHYS_FREE)
		return false;
	store.ops->pin(store.store, pageno, ART_LOCK_SHARE, &ref);
	memcpy(body, ref.data + ART_PAGE_RESERVED, ART_PAGE_SIZE - ART_PAGE_RESERVED);
	store.ops->release(store.store, &ref);
	return true;
}

/*
 * The file's logical pages, used or free.
 */
uint32
pager_file_nlogical(PagerFile *file)
{
	PagerFileSlot *fs = pager_slot(file);
	uint32		n;

	LWLockAcquire(&fs->lock, LW_SHARED);
	n = fs->nlogical;
	LWLockRelease(&fs->lock);
	return n;
}

/*
 * Copy file src to a new file dst, and make the copy durable.
 */
void
pager_copy_file(const ArtFileId *src, const ArtFileId *dst,
				const char *relname)
{
	PagerFile  *from = pager_open_file(src, relname);
	PagerFile  *to = pager_create_file(dst, relname);
	uint32		nlogical = pager_file_nlogical(from);
	char	   *body = palloc(ART_PAGE_SIZE);
	bool	   *isfree = palloc_extended(sizeof(bool) * Max(nlogical, 1),
										 MCXT_ALLOC_HUGE);

	for (ArtPageNo l = 0; l < nlogical; l++)
	{
		CHECK_FOR_INTERRUPTS();
		isfree[l] = !pager_copy_out_page(from, l, body);
		pager_copy_in_page(to, l, isfree[l] ? NULL : body);
	}
	for (ArtPageNo l = 0; l < nlogical; l++)
	{
		if (isfree[l])
			pager_free_page(to, l);
	}
	pfree(isfree);
	pfree(body);

	for (int w = 0; w < PAGER_USER_WORDS; w++)
		pager_set_user_word(to, w, pager_get_user_word(from, w));
	pager_flush_file(to);
}

/*
 * The file's path relative to the data directory, palloc'd.
 */
char *
pager_file_name(PagerFile *file)
{
	return pstrdup(pager_slot(file)->path);
}
