/*-------------------------------------------------------------------------
 *
 * pager_copy.c
 *	  Copying an artrie file to a new name, and the names of files.
 *
 * A copy keeps every logical page number, since the pages point at each
 * other by logical page number: the new file gets as many logical pages
 * as the old one, the used ones filled through the pool from the old
 * file's current contents, and then the ones free in the old file are
 * freed again.  The caller keeps everyone else away from the old file
 * (ALTER INDEX ... SET TABLESPACE holds an AccessExclusiveLock).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_internal.h"

#include "miscadmin.h"

/*
 * Copy file src to a new file dst, and make the copy durable.
 */
void
pager_copy_file(const ArtFileId *src, const ArtFileId *dst,
				const char *relname)
{
	PagerFile  *from = pager_open_file(src, relname);
	PagerFile  *to = pager_create_file(dst, relname);
	ArtPageStore fstore = pager_page_store(from);
	ArtPageStore tstore = pager_page_store(to);
	PagerFileSlot *fs = pager_slot(from);
	uint32		nlogical;

	LWLockAcquire(&fs->lock, LW_SHARED);
	nlogical = fs->nlogical;
	LWLockRelease(&fs->lock);

	for (ArtPageNo l = 0; l < nlogical; l++)
	{
		ArtPageRef out;
		ArtPageRef in;

		CHECK_FOR_INTERRUPTS();
		tstore.ops->alloc(tstore.store, &out);
		if (out.pageno != l)
			elog(ERROR, "artrie: copy of file \"%s\" got page %u for page %u",
				 pager_slot(to)->path, out.pageno, l);
		if (pager_map_get(pager_slot(from), l, NULL) != PAGER_PHYS_FREE)
		{
			fstore.ops->pin(fstore.store, l, ART_LOCK_SHARE, &in);
			memcpy(out.data + ART_PAGE_RESERVED, in.data + ART_PAGE_RESERVED,
				   ART_PAGE_SIZE - ART_PAGE_RESERVED);
			fstore.ops->release(fstore.store, &in);
		}
		tstore.ops->release(tstore.store, &out);
	}

	for (ArtPageNo l = 0; l < nlogical; l++)
	{
		ArtPageRef out;

		if (pager_map_get(pager_slot(from), l, NULL) != PAGER_PHYS_FREE)
			continue;
		tstore.ops->pin(tstore.store, l, ART_LOCK_EXCLUSIVE, &out);
		tstore.ops->free(tstore.store, &out);
	}

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
