/*-------------------------------------------------------------------------
 *
 * wal_insert.c
 *	  Writing artrie's WAL records.
 *
 * An entry record is logged after the change it describes is made to the
 * pages, while the change's transaction runs: so a checkpoint that began
 * at WAL position P holds the change of every record that starts before
 * P (see pager_redo_now), and its transaction's commit record, which
 * comes later in the WAL, is durable only with it.  No wait of artrie's
 * own happens at commit.
 *
 * A file just built or copied is logged whole, after it was made durable,
 * as image records of WAL_IMAGE_PAGES logical pages each; nobody else
 * knows the file yet, so the pages do not change meanwhile.  A build
 * hands the runs over as the pager reads them back from the file
 * (wal_log_build_image), a copy reads them through the pool
 * (wal_log_file).
 *
 * The first checkpoint that writes a changed file after PostgreSQL's redo
 * pointer moved logs the whole file the same way (wal_log_ckpt_image),
 * as its snapshot has it: artrie's full-page writes, from which redo of a
 * base backup rebuilds files that the copy caught mid-change.  It logs an
 * image-begin record (wal_log_image_begin) at its snapshot, under the
 * file's write gate, and the image after it let writers go on: the
 * file's entry records between the two are the ones the image lacks.
 *
 * An unchanged record is logged by a checkpoint that found a file with no
 * change since its last checkpoint, under the file's write gate, so that
 * no change of the file is logged between the two (wal_redo.c says what
 * redo makes of it).
 *
 * A vacuum record follows the deletions of a bulk delete, so that a hot
 * standby's redo of it comes before the heap's records that free the
 * TIDs (wal_conflict.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "trie/trie.h"
#include "wal/wal.h"
#include "wal/wal_internal.h"

/* Log a record of kind that names a file and a WAL position. */
static void
wal_log_file_since(uint8 kind, const ArtFileId *file, XLogRecPtr since)
{
	WalFileSinceRecord rec;

	memset(&rec, 0, sizeof(rec));
	rec.file = *file;
	rec.since = since;

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	(void) XLogInsert(ARTRIE_RMGR_ID, kind);
	wal_count_logged(sizeof(rec));
}

/*
 * Log that a checkpoint claiming position since took the snapshot of a
 * changed file whose image it logs next (the pager's image_begin hook).
 */
void
wal_log_image_begin(const ArtFileId *file, XLogRecPtr since)
{
	wal_log_file_since(WAL_ARTRIE_IMAGE_BEGIN, file, since);
}

/*
 * Log one entry inserted into (WAL_ARTRIE_INSERT) or deleted from
 * (WAL_ARTRIE_DELETE, with WAL_ARTRIE_NO_MERGE if the caller logs its
 * merges) the trie with root page root of a file, or a merge at the entry
 * (WAL_ARTRIE_MERGE) and the step that changed pages, which redo makes
 * alone (step 0, any, is not logged: redo tries every step).
 */
void
wal_log_entry(uint8 kind, const ArtFileId *file, uint32 root,
			  const uint8 *entry, Size len, uint8 step)
{
	WalEntryRecord rec;

	Assert(kind == WAL_ARTRIE_INSERT || kind == WAL_ARTRIE_DELETE ||
		   kind == (WAL_ARTRIE_DELETE | WAL_ARTRIE_NO_MERGE) ||
		   kind == WAL_ARTRIE_MERGE);
	Assert(step <= WAL_MERGE_STEP_MAX &&
		   (step == 0 || kind == WAL_ARTRIE_MERGE));
	memset(&rec, 0, sizeof(rec));
	rec.file = *file;
	rec.root = root;
	rec.len = (uint32) len;

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	XLogRegisterData((char *) entry, len);
	if (step != 0)
		XLogRegisterData((char *) &step, 1);
	(void) XLogInsert(ARTRIE_RMGR_ID, kind);
	wal_count_logged(sizeof(rec) + len + (step != 0));
}

/*
 * Log that a file has had no change since its last checkpoint, which
 * began at since (the pager's file_unchanged hook).
 */
void
wal_log_unchanged(const ArtFileId *file, XLogRecPtr since)
{
	wal_log_file_since(WAL_ARTRIE_UNCHANGED, file, since);
}

/*
 * Log that a bulk delete of a file has logged all its deletions (before
 * the heap frees their TIDs), for hot standbys to wait for their scans of
 * the file; nothing where no standby can run queries (wal_level minimal).
 */
void
wal_log_vacuum(const ArtFileId *file)
{
	WalVacuumRecord rec;

	if (!XLogStandbyInfoActive())
		return;
	memset(&rec, 0, sizeof(rec));
	rec.file = *file;

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	(void) XLogInsert(ARTRIE_RMGR_ID, WAL_ARTRIE_VACUUM);
	wal_count_logged(sizeof(rec));
}

/*
 * Log one image record: pages [first, first + npages) whose bodies are in
 * bodies (the used ones only), and with WAL_IMAGE_LAST the free list and
 * user words.  Each body is packed (WAL_IMAGE_PACKED): a copy of its page
 * laid out by art_page_squeeze, its free bytes left out, so a page logs
 * its header, its slots and its live records.
 */
static void
wal_log_image_record(const ArtFileId *id, uint32 flags, uint32 first,
					 uint32 npages, uint32 used, const char *bodies,
					 const uint32 *freelist, uint32 nfree, const uint32 *user)
{
	static uint8 *page;
	static uint8 *packed;
	WalImageRecord rec;
	int			nused = wal_image_used_count(used, npages);
	Size		nbytes = 0;

	if (packed == NULL)
	{
		page = MemoryContextAllocZero(TopMemoryContext, ART_PAGE_SIZE);
		packed = MemoryContextAlloc(TopMemoryContext, (Size) WAL_IMAGE_PAGES *
									(WAL_IMAGE_PACK_HDR + WAL_IMAGE_BODY));
	}
	for (int i = 0; i < nused; i++)
	{
		uint16		lower;
		uint16		upper;

		memcpy(page + ART_PAGE_RESERVED, bodies + (Size) i * WAL_IMAGE_BODY,
			   WAL_IMAGE_BODY);
		(void) art_page_squeeze(page, &lower, &upper);
		nbytes += wal_image_pack(page, lower, upper, packed + nbytes);
	}

	memset(&rec, 0, sizeof(rec));
	rec.file = *id;
	rec.flags = flags | WAL_IMAGE_PACKED;
	rec.first = first;
	rec.npages = npages;
	rec.used = used;
	rec.nfree = nfree;
	if (flags & WAL_IMAGE_LAST)
		memcpy(rec.user, user, sizeof(rec.user));

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, sizeof(rec));
	if (nbytes > 0)
		XLogRegisterData((char *) packed, nbytes);
	if (nfree > 0)
		XLogRegisterData((char *) freelist, sizeof(uint32) * nfree);
	(void) XLogInsert(ARTRIE_RMGR_ID, WAL_ARTRIE_IMAGE);
	wal_count_logged(sizeof(rec) + nbytes + sizeof(uint32) * nfree);
}

StaticAssertDecl(PAGER_IMAGE_PAGES <= WAL_IMAGE_PAGES,
				 "a checkpoint's image run must fit an image record");

/*
 * Log one run of a checkpoint's image of a changed file (the pager's
 * file_image hook).
 */
void
wal_log_ckpt_image(const PagerImage *image)
{
	wal_log_image_record(&image->id,
						 WAL_IMAGE_CKPT | WAL_IMAGE_BEGUN |
						 (image->first ? WAL_IMAGE_FIRST : 0) |
						 (image->last ? WAL_IMAGE_LAST : 0),
						 image->firstpage, image->npages, image->used,
						 image->bodies, image->freelist,
						 image->last ? image->nfree : 0, image->user);
}

/*
 * Log one run of the image of a file just built and made durable, as the
 * pager hands it over (pager_build_finish): the same records as
 * wal_log_file's.
 */
void
wal_log_build_image(const PagerImage *image)
{
	wal_log_image_record(&image->id,
						 (image->first ? WAL_IMAGE_FIRST : 0) |
						 (image->last ? WAL_IMAGE_LAST : 0),
						 image->firstpage, image->npages, image->used,
						 image->bodies, image->freelist,
						 image->last ? image->nfree : 0, image->user);
}

/*
 * Log the whole of a file (id names it) that was just built or copied and
 * made durable: on a standby and in redo, it is filled anew from these
 * records at the same logical page numbers.
 */
void
wal_log_file(PagerFile *file, const ArtFileId *id)
{
	uint32		nlogical = pager_file_nlogical(file);
	char	   *bodies = palloc((Size) WAL_IMAGE_PAGES * WAL_IMAGE_BODY);
	uint32		user[PAGER_USER_WORDS];
	uint32	   *freelist;
	uint32		nfree = 0;
	uint32		freecap = 64;
	uint32		first = 0;

	freelist = palloc(sizeof(uint32) * freecap);
	for (int w = 0; w < PAGER_USER_WORDS; w++)
		user[w] = pager_get_user_word(file, w);

	do
	{
		uint32		npages = Min(WAL_IMAGE_PAGES, nlogical - first);
		uint32		used = 0;
		char	   *next = bodies;
		uint32		flags = 0;

		CHECK_FOR_INTERRUPTS();
		for (uint32 i = 0; i < npages; i++)
		{
			if (pager_copy_out_page(file, first + i, next))
			{
				used |= (uint32) 1 << i;
				next += WAL_IMAGE_BODY;
			}
			else
			{
				if (nfree == freecap)
				{
					freecap *= 2;
					freelist = repalloc(freelist, sizeof(uint32) * freecap);
				}
				freelist[nfree++] = first + i;
			}
		}
		if (first == 0)
			flags |= WAL_IMAGE_FIRST;
		if (first + npages >= nlogical)
			flags |= WAL_IMAGE_LAST;
		wal_log_image_record(id, flags, first, npages, used, bodies,
							 freelist, (flags & WAL_IMAGE_LAST) ? nfree : 0,
							 user);
		first += npages;
	} while (first < nlogical);

	pfree(freelist);
	pfree(bodies);
}
