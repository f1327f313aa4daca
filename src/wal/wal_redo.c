/*-------------------------------------------------------------------------
 *
 * wal_redo.c
 *	  artrie's resource manager: applying its WAL records to artrie's
 *	  files, at crash recovery and on a standby.
 *
 * Redo runs in the startup process and goes through the buffer pool like
 * any writer, so that hot standby queries see each record applied whole.
 * A record is applied only to a file that still exists and whose last
 * checkpoint began at or before the record: the file's image holds every
 * earlier change.  Entry records are idempotent, image records write
 * pages at fixed logical page numbers, so a record applied twice (a
 * checkpoint raced with it) does no harm.
 *
 * A record that cannot be applied because its file is damaged (a checksum
 * failure, a truncated file, a trie that does not hold together) must not
 * stop PostgreSQL's recovery: the file is marked damaged, which refuses it
 * to every user with a hint to REINDEX, and redo goes on.  The records of
 * a file that cannot be proven current (pager_set_min_redo, another
 * cluster's) are skipped: every load refuses that file anyway.  An
 * unchanged record, logged when a checkpoint found a file without change
 * since its last one, vouches for a copy of that checkpoint older than
 * pager_set_min_redo's position (pager_vouch_file): no change of the file
 * lies between the two, so the copy is current at the record.  Any other
 * failure (out of memory, an I/O error, a full disk) stops recovery, as it
 * does for PostgreSQL's own pages: the server restarts it once the cause
 * is fixed.
 *
 * A vacuum record ends a bulk delete's deletions; on a hot standby its
 * redo waits for, or cancels, the queries that may still return a removed
 * entry (wal_conflict.c).  A delete record merges the page it leaves
 * underfull after it, as art_delete's callers did, unless it carries
 * WAL_ARTRIE_NO_MERGE: VACUUM merges once per run of deletes that ended in
 * one page, after a group of deletes, and logs each merge that changed
 * pages as a merge record, with the step that changed them, which redo
 * applies where it comes, making that step alone (art_merge_step).  A
 * merge that changed nothing is not logged: it depends on the pages
 * alone, so redo's would change nothing either (WAL of older versions
 * logged every merge, or no step, and applies as before).
 *
 * Where no query can look at an index until redo is over (crash recovery,
 * archive recovery without hot standby, artrie's own replay before
 * PostgreSQL's), entry records are not applied one at a time but
 * collected per file, sorted by trie and entry bytes (WAL order among
 * records of the same entry) and applied in one ordered pass: consecutive
 * inserts then share the pages of their paths, where random ones miss the
 * cache at every level.  The result is the same set of entries: records
 * of different entries commute, and those of one entry keep their order.
 * Each record still passes redo_file's check on its own.  Any other
 * record, the end of redo and maintenance_work_mem of records held back
 * apply the pending batches first; until then pager_hold_redo keeps
 * checkpoints from claiming the records held back.  A hot standby applies
 * every record at once: its queries see the heap at the replay point.
 *
 * A checkpoint's image of a changed file is the file as of its
 * image-begin record, logged at the checkpoint's snapshot; the file's
 * entry records between that record and the image's last one are not in
 * it.  Where redo rebuilds the file from the image (below, redo_image),
 * it holds those records back from the image-begin record on
 * (wal_hold.c) and applies them after the image's last record, in WAL
 * order; pager_hold_redo keeps checkpoints from claiming them meanwhile.
 * Where images are skipped, image-begin records are too.  WAL of older
 * versions has no image-begin records: its images were logged before any
 * later entry record of their file, and apply as before.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/resource.h>

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "utils/memutils.h"

#include "trie/trie.h"
#include "wal/wal_internal.h"

/* The file redo applied its last record to, opened once per run. */
static ArtFileId last_id;
static PagerFile *last_file = NULL;
static XLogRecPtr last_redo_lsn = InvalidXLogRecPtr;
static bool have_last = false;

static MemoryContext redo_cxt = NULL;

/* The record being applied, for the message when its file cannot take it. */
static XLogRecPtr redo_lsn_now = InvalidXLogRecPtr;

/*
 * Bytes of held-back entry records after which the batches are applied:
 * maintenance_work_mem (64 MB unless set otherwise), at most 2 GB, so
 * that a record's offset in its batch's bytes fits a WalSortKey.
 */
#define WAL_BATCH_MEMORY \
	Min((Size) maintenance_work_mem * 1024, (Size) PG_UINT32_MAX / 2)

/*
 * The apply loop copies the entries of this many sorted records at a time
 * into a buffer of their own (batch_gather), prefetching this many
 * records ahead.
 */
#define BATCH_GATHER_ITEMS		512
#define BATCH_PREFETCH_AHEAD	16

/*
 * Sorted runs a file's batch may write out (wal_runs.c) before the runs
 * and the batch are applied: at most this many maintenance_work_mem of
 * temporary files, merged this many at a time.
 */
#define BATCH_MAX_RUNS			8

/*
 * The header of an entry record held back, in its batch's bytes right
 * before the entry: BATCH_RECORD_HEADER bytes, unaligned (batch_record).
 */
typedef struct BatchRecord
{
	XLogRecPtr	lsn;
	uint32		len;			/* of the entry */
	uint8		kind;			/* WAL_ARTRIE_INSERT, _DELETE (with its flag) or
								 * _MERGE (with its step, BATCH_STEP) */
} BatchRecord;

#define BATCH_RECORD_HEADER		(offsetof(BatchRecord, kind) + 1)

/*
 * A merge record's step (WAL_MERGE_STEP_MAX at most) in the low bits of
 * its kind held back, which the info byte leaves to PostgreSQL.
 */
#define BATCH_STEP				0x07
#define BATCH_IS_MERGE(kind)	(((kind) & WAL_ARTRIE_KIND_MASK) == WAL_ARTRIE_MERGE)

StaticAssertDecl(WAL_MERGE_STEP_MAX <= BATCH_STEP &&
				 (BATCH_STEP & WAL_ARTRIE_INFO_MASK) == 0,
				 "a merge's step fits the kind's low bits");
StaticAssertDecl(WAL_MERGE_STEP_MAX + 1 == ART_MERGE_STEPS,
				 "a merge record's step names an ArtMergeStep");

/*
 * The entries of the next sorted records, copied out of a batch, and
 * their headers.
 */
typedef struct BatchGather
{
	uint8	   *buf;
	Size		size;
	const uint8 *entry[BATCH_GATHER_ITEMS];
	BatchRecord rec[BATCH_GATHER_ITEMS];
} BatchGather;

/*
 * The pending entry records of one file: their headers and entries one
 * after another in bytes, in WAL order, and a sort key for each, in WAL
 * order too until batch_sort sorts them.  The arrays are allocated once,
 * for maintenance_work_mem of records, and kept across cuts and flushes
 * while the file has records (batch_add, batch_flush).
 */
typedef struct FileBatch
{
	ArtFileId	id;
	WalSortKey *keys;			/* keys[i].pos: the record's offset in bytes */
	Size		nitems;
	Size		maxitems;
	uint8	   *bytes;
	Size		used;
	Size		size;
	bool		active;			/* it held records since the last flush */
	WalRun	   *runs[BATCH_MAX_RUNS];	/* earlier records, sorted */
	int			nruns;
} FileBatch;

/*
 * The next record of one of the sorted streams that batch_apply merges:
 * the batch's sorted items or one of its runs.
 */
typedef struct BatchHead
{
	uint64		head;			/* the entry's first eight bytes */
	XLogRecPtr	lsn;
	const uint8 *entry;
	uint32		len;
	uint32		root;
	uint8		kind;
	bool		valid;			/* false: the stream has ended */
} BatchHead;

/*
 * The merge records batch_apply has met in entry order and not applied
 * yet: each waits for the first record but a merge logged after it, as
 * the primary merged after a group of deletes, not after the run's last
 * (batch_apply).  Their entries lie back to back in buf.
 */
typedef struct BatchMerge
{
	XLogRecPtr	lsn;
	Size		off;			/* of the entry in buf */
	uint32		len;
	ArtMergeStep step;
} BatchMerge;

typedef struct BatchMerges
{
	BatchMerge *items;
	int			n;
	int			max;
	uint8	   *buf;
	Size		used;
	Size		size;
	XLogRecPtr	first;			/* the lowest lsn among items */
} BatchMerges;

/* A record for redo_record: wal_apply's arguments. */
typedef struct RedoArgs
{
	uint8		kind;
	const char *data;
	Size		len;
	XLogRecPtr	lsn;
	bool		batch;
} RedoArgs;

/* The pending batches, each of another file, in batch_cxt. */
static MemoryContext batch_cxt = NULL;
static XLogRecPtr batch_from = InvalidXLogRecPtr;	/* the first record held */
static FileBatch *batches = NULL;
static int	nbatches = 0;
static int	maxbatches = 0;
static Size batch_memory = 0;

/*
 * Held-back records applied since redo began, the time spent sorting and
 * applying them (elapsed, and on a CPU) and the page faults taken
 * meanwhile, for the log line at the end of redo.
 */
static uint64 batch_applied = 0;
static uint64 batch_runs = 0;
static uint64 batch_faults = 0;
static instr_time batch_sort_time;
static instr_time batch_apply_time;
static double batch_sort_cpu = 0;
static double batch_apply_cpu = 0;

/*
 * Whether the batches being applied are the last of their records (the
 * end of redo or another kind of record applies them, with the sorted
 * runs they wrote out): their fingers pack the pages they split
 * (art_finger_pack).  Pages packed by batches that more batches follow
 * (a file wrote out BATCH_MAX_RUNS runs) would only split again under the
 * next ones, which find room in the halves of halving splits.
 */
static bool batch_pack = true;

/* Seconds this process has spent on a CPU. */
static double
redo_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000000.0;
}

/* Page faults this process has taken (minor and major). */
static uint64
redo_page_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64) ru.ru_minflt + (uint64) ru.ru_majflt;
}

static void redo_publish_unusable(void);

/*
 * Tell the pager the position of the oldest record held back, in a batch
 * or for an image (wal_hold.c), or that none is: no checkpoint may claim
 * it meanwhile.  Then tell queries which files they may not use yet.
 */
static void
redo_hold_update(void)
{
	XLogRecPtr	lsn = wal_hold_oldest();

	if (!XLogRecPtrIsInvalid(batch_from) &&
		(XLogRecPtrIsInvalid(lsn) || batch_from < lsn))
		lsn = batch_from;
	pager_hold_redo(lsn);
	redo_publish_unusable();
}

/*
 * Forget the cached file (it may be dropped or recreated), and let go of
 * its slot: redo runs outside any transaction.
 */
void
wal_redo_forget(void)
{
	have_last = false;
	last_file = NULL;
	pager_unhold_files();
}

/* Skip the records of file id from now on (it is refused anyway). */
static void
redo_skip_file(const ArtFileId *id)
{
	last_id = *id;
	last_file = NULL;
	have_last = true;
}

/*
 * The file a record names, or NULL if the record must not be applied to
 * it (the file is gone, damaged, or its checkpoint is past the record).
 */
static PagerFile *
redo_file(const ArtFileId *id, XLogRecPtr lsn)
{
	if (!have_last || memcmp(&last_id, id, sizeof(ArtFileId)) != 0)
	{
		wal_redo_forget();
		last_file = pager_open_for_redo(id, &last_redo_lsn);
		last_id = *id;
		have_last = true;
	}
	if (last_file == NULL || lsn < last_redo_lsn)
		return NULL;
	return last_file;
}

/*
 * Count one more record replayed.  Only the startup process writes the
 * counter, so a plain read and write do, without the locked instruction
 * of an atomic add for every record of a batch.
 */
static inline void
redo_count_replayed(void)
{
	pg_atomic_write_u64(&wal_shared->replayed,
						pg_atomic_read_u64(&wal_shared->replayed) + 1);
}

/*
 * Check the status of an entry record applied to file: it may find the
 * entry already there or gone (the record was applied before); anything
 * else is an ERROR.
 */
static void
redo_entry_done(PagerFile *file, ArtStatus status)
{
	if (status != ART_OK && status != ART_EXISTS && status != ART_NOT_FOUND)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not apply an artrie WAL record to file \"%s\": %s",
						pager_file_name(file), art_status_string(status))));
	redo_count_replayed();
}

/*
 * Check the status of a merge redo made of the underfull page a delete
 * left, as the primary did: best effort, a merge that fails changes
 * nothing, so redo goes on (the pager's own errors are ERRORs as
 * everywhere).
 */
static void
redo_merge_done(PagerFile *file, ArtStatus status)
{
	if (status != ART_OK)
		elog(DEBUG1, "artrie file \"%s\": page merge skipped in redo: %s",
			 pager_file_name(file), art_status_string(status));
}

/*
 * Apply an entry record: insert (kind WAL_ARTRIE_INSERT) or delete
 * (WAL_ARTRIE_DELETE, which merges after it unless WAL_ARTRIE_NO_MERGE)
 * entry of len bytes in the trie at root of file id, or merge at it
 * (WAL_ARTRIE_MERGE) with the step the record names (0: any).
 */
static void
redo_entry(uint8 kind, const ArtFileId *id, uint32 root, const uint8 *entry,
		   uint32 len, uint8 step, XLogRecPtr lsn)
{
	PagerFile  *file = redo_file(id, lsn);
	ArtTrie		trie;
	ArtStatus	status;

	if (file == NULL)
		return;
	art_open(&trie, pager_page_store(file), root);
	if (kind == WAL_ARTRIE_MERGE)
	{
		redo_merge_done(file, art_merge_step(&trie, entry, len,
											 (ArtMergeStep) step));
		redo_count_replayed();
		return;
	}
	if (kind == WAL_ARTRIE_INSERT)
		status = art_insert(&trie, entry, len);
	else
	{
		status = art_delete(&trie, entry, len);
		if (status == ART_OK && kind == WAL_ARTRIE_DELETE)
			redo_merge_done(file, art_merge(&trie, entry, len));
	}
	redo_entry_done(file, status);
}

/*
 * Whether redo restores a base backup and has not reached consistency:
 * a file copied while it changed may then hold pages of several
 * checkpoints, and image records rebuild files whatever the copy holds.
 */
static bool
redo_restoring(void)
{
	return wal_shared->from_backup && !reachedConsistency;
}

/* A set of files, in TopMemoryContext. */
typedef struct RedoFileSet
{
	ArtFileId  *ids;
	int			n;
	int			max;
} RedoFileSet;

/*
 * Files whose rebuild from a checkpoint's image redo has begun and not
 * yet ended: the rest of their image is applied even once redo is
 * consistent.
 */
static RedoFileSet rebuilding;

/*
 * Files that redo rebuilt from a checkpoint's image whole, from its first
 * record to its last, while it restored a base backup: they no longer
 * depend on the copy, and the entry records after the image keep them
 * current, so their later images are not needed (see redo_image).
 */
static RedoFileSet rebuilt;

/* Whether file id is in set. */
static bool
file_set_has(const RedoFileSet *set, const ArtFileId *id)
{
	for (int i = 0; i < set->n; i++)
		if (memcmp(&set->ids[i], id, sizeof(ArtFileId)) == 0)
			return true;
	return false;
}

/* Put file id into set (on) or take it out (off). */
static void
file_set_put(RedoFileSet *set, const ArtFileId *id, bool on)
{
	for (int i = 0; i < set->n; i++)
	{
		if (memcmp(&set->ids[i], id, sizeof(ArtFileId)) == 0)
		{
			if (!on)
				set->ids[i] = set->ids[--set->n];
			return;
		}
	}
	if (!on)
		return;
	if (set->n == set->max)
	{
		set->max = Max(8, set->max * 2);
		set->ids = set->ids == NULL ?
			MemoryContextAlloc(TopMemoryContext, set->max * sizeof(ArtFileId)) :
			repalloc(set->ids, set->max * sizeof(ArtFileId));
	}
	set->ids[set->n++] = *id;
}

/*
 * Tell a hot standby's queries which files they may not use yet
 * (wal_check_usable): those whose entry records redo holds back (they lack
 * them) and those it is rebuilding from an image (they hold part of it).
 */
static void
redo_publish_unusable(void)
{
	int			nheld = wal_hold_count();
	ArtFileId  *held = NULL;
	int			n = 0;
	bool		all = false;

	if (nheld + rebuilding.n == 0 && wal_shared->nunusable == 0 &&
		!wal_shared->all_unusable)
		return;
	if (nheld > 0)
	{
		held = palloc(sizeof(ArtFileId) * nheld);
		wal_hold_files(held);
	}
	SpinLockAcquire(&wal_shared->unusable_mutex);
	for (int i = 0; i < nheld + rebuilding.n; i++)
	{
		if (n == WAL_UNUSABLE_MAX)
		{
			all = true;
			break;
		}
		wal_shared->unusable[n++] = i < nheld ? held[i] : rebuilding.ids[i - nheld];
	}
	wal_shared->nunusable = n;
	wal_shared->all_unusable = all;
	SpinLockRelease(&wal_shared->unusable_mutex);
	if (held)
		pfree(held);
}

/*
 * Apply an image record.  A file just built or copied is started afresh
 * at its first record unless its last checkpoint is past the record (an
 * older file of that name is a leftover).  A checkpoint's image of a
 * changed file (WAL_IMAGE_CKPT) rebuilds the file, like a built file's
 * image, without reading the copy, which may hold pages of several
 * checkpoints: one whose image-begin record came before it
 * (WAL_IMAGE_BEGUN) when redo holds the file's records back since an
 * image-begin record (it met one while it restored a base backup and was
 * not yet consistent), its records held back too and applied here at its
 * last record (redo_record), so that a copy is not given up for an image
 * that the WAL does not hold whole; one of older WAL, logged
 * with no entry record of its file between its checkpoint's position and
 * itself, while redo restores a base backup and is not yet consistent.
 * Once begun, a rebuild goes on to the image's last record.  Otherwise
 * the image is skipped: the file is up to date already (its checkpoint
 * holds the changes), or redo began after the image-begin record, and
 * the image lacks entries that redo applied since (the next checkpoint
 * of the file logs an image again, with its image-begin record past the
 * redo pointer it began at).  The records held back are applied after
 * the image's last record (redo_record).  A file that redo has rebuilt
 * from a checkpoint's image whole in this run no longer depends on the
 * copy: its later checkpoint images are skipped, and no hold begins at
 * their image-begin records, so a restore that ends within one of them
 * keeps the file (and a hot standby answers from it) instead of finding
 * part of an image.
 */
static void
redo_image(const WalImageRecord *rec, const uint8 *bodies,
		   const uint8 *freelist, XLogRecPtr lsn)
{
	static uint8 body[WAL_IMAGE_BODY];
	PagerFile  *file;
	char		path[MAXPGPATH];
	bool		ckpt = (rec->flags & WAL_IMAGE_CKPT) != 0;

	if (rec->flags & WAL_IMAGE_FIRST)
	{
		bool		afresh = (rec->flags & WAL_IMAGE_BEGUN) ?
			wal_hold_active(&rec->file) :
			redo_restoring() && !(ckpt && file_set_has(&rebuilt, &rec->file));

		if (!afresh && !ckpt)
		{
			(void) redo_file(&rec->file, lsn);
			afresh = last_file == NULL || lsn >= last_redo_lsn;
		}
		if (!afresh)
			return;
		snprintf(path, sizeof(path), "artrie/%u/%u.%u", rec->file.dbOid,
				 rec->file.relNumber, rec->file.generation);
		file_set_put(&rebuilding, &rec->file, true);
		redo_publish_unusable();
		wal_redo_forget();
		(void) pager_reset_file(&rec->file, path, lsn);
		wal_redo_forget();
	}
	else if (ckpt && !file_set_has(&rebuilding, &rec->file))
		return;
	if ((rec->flags & WAL_IMAGE_LAST) && file_set_has(&rebuilding, &rec->file))
	{
		file_set_put(&rebuilding, &rec->file, false);
		file_set_put(&rebuilt, &rec->file, true);
	}
	file = redo_file(&rec->file, lsn);
	if (file == NULL)
	{
		redo_publish_unusable();
		return;
	}

	for (uint32 i = 0; i < rec->npages; i++)
	{
		if (!(rec->used & ((uint32) 1 << i)))
		{
			pager_copy_in_page(file, rec->first + i, NULL);
			continue;
		}
		pager_copy_in_page(file, rec->first + i,
						   (const char *) wal_image_body(rec, &bodies, body));
	}
	if (rec->flags & WAL_IMAGE_LAST)
	{
		for (uint32 i = 0; i < rec->nfree; i++)
		{
			uint32		pageno;

			memcpy(&pageno, freelist + i * sizeof(uint32), sizeof(uint32));
			pager_free_page(file, pageno);
		}
		for (int w = 0; w < PAGER_USER_WORDS; w++)
			pager_set_user_word(file, w, rec->user[w]);
		redo_publish_unusable();
	}
	redo_count_replayed();
}

/*
 * The eight bytes of an entry from byte depth on as one big-endian
 * number, padded with zeros.
 */
static inline uint64
batch_entry_chunk(const uint8 *entry, uint32 len, uint32 depth)
{
	uint64		chunk = 0;

	for (uint32 i = depth; i < depth + 8; i++)
		chunk = (chunk << 8) | (i < len ? entry[i] : 0);
	return chunk;
}

/* An entry's first eight bytes as one number (its head). */
static inline uint64
batch_entry_head(const uint8 *entry, uint32 len)
{
	return batch_entry_chunk(entry, len, 0);
}

/* The header of the record at offset pos of a batch's bytes. */
static inline BatchRecord
batch_record(const FileBatch *fb, uint32 pos)
{
	BatchRecord header;

	memcpy(&header, fb->bytes + pos, BATCH_RECORD_HEADER);
	return header;
}

/* The entry of the record at offset pos of a batch's bytes. */
static inline const uint8 *
batch_record_entry(const FileBatch *fb, uint32 pos)
{
	return fb->bytes + pos + BATCH_RECORD_HEADER;
}

/*
 * A new file's batch arrays, for as many records as WAL_BATCH_MEMORY
 * holds: allocated once (only the pages written take memory), they are
 * not copied as they grow nor faulted in again at each cut.  Where that
 * much address space is refused, they start small and double.
 */
static void
batch_alloc(FileBatch *fb)
{
	Size		bytes = WAL_BATCH_MEMORY;
	Size		keys = bytes / (sizeof(WalSortKey) + BATCH_RECORD_HEADER) + 1;

	fb->keys = MemoryContextAllocExtended(batch_cxt,
										  keys * sizeof(WalSortKey),
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	fb->bytes = fb->keys == NULL ? NULL :
		MemoryContextAllocExtended(batch_cxt, bytes,
								   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (fb->bytes == NULL)
	{
		if (fb->keys != NULL)
			pfree(fb->keys);
		keys = 1024;
		bytes = 65536;
		fb->keys = MemoryContextAllocHuge(batch_cxt, keys * sizeof(WalSortKey));
		fb->bytes = MemoryContextAllocHuge(batch_cxt, bytes);
	}
	/* Small pages for the first 2 MB: a file with few records needs no more. */
	pager_advise_huge(fb->keys, keys * sizeof(WalSortKey), PAGER_HUGE_PAGE);
	pager_advise_huge(fb->bytes, bytes, PAGER_HUGE_PAGE);
	fb->maxitems = keys;
	fb->size = bytes;
}

/*
 * Hold an entry record back in its file's batch (a merge record with its
 * step).
 */
static void
batch_add(uint8 kind, const WalEntryRecord *rec, const uint8 *entry,
		  uint8 step, XLogRecPtr lsn)
{
	FileBatch  *fb = NULL;
	BatchRecord header;
	WalSortKey *key;
	Size		need = BATCH_RECORD_HEADER + rec->len;

	if (batch_cxt == NULL)
		batch_cxt = AllocSetContextCreate(TopMemoryContext,
										  "artrie redo batch",
										  ALLOCSET_DEFAULT_SIZES);
	/* The first record held back: no checkpoint may claim it. */
	if (XLogRecPtrIsInvalid(batch_from))
	{
		batch_from = lsn;
		redo_hold_update();
	}
	for (int i = 0; i < nbatches && fb == NULL; i++)
	{
		if (memcmp(&batches[i].id, &rec->file, sizeof(ArtFileId)) == 0)
			fb = &batches[i];
	}
	if (fb == NULL)
	{
		if (nbatches == maxbatches)
		{
			maxbatches = Max(8, maxbatches * 2);
			batches = batches == NULL ?
				MemoryContextAlloc(batch_cxt, maxbatches * sizeof(FileBatch)) :
				repalloc(batches, maxbatches * sizeof(FileBatch));
		}
		fb = &batches[nbatches++];
		memset(fb, 0, sizeof(FileBatch));
		fb->id = rec->file;
		batch_alloc(fb);
	}
	fb->active = true;
	if (fb->nitems == fb->maxitems)
	{
		fb->maxitems *= 2;
		fb->keys = repalloc_huge(fb->keys, fb->maxitems * sizeof(WalSortKey));
	}
	if (fb->used + need > fb->size)
	{
		fb->size = Max(fb->size * 2, fb->used + need);
		fb->bytes = repalloc_huge(fb->bytes, fb->size);
	}
	Assert(fb->nitems == 0 ||
		   batch_record(fb, fb->keys[fb->nitems - 1].pos).lsn < lsn);
	header.lsn = lsn;
	header.len = rec->len;
	header.kind = kind | step;
	memcpy(fb->bytes + fb->used, &header, BATCH_RECORD_HEADER);
	memcpy(fb->bytes + fb->used + BATCH_RECORD_HEADER, entry, rec->len);
	key = &fb->keys[fb->nitems++];
	key->head = batch_entry_head(entry, rec->len);
	key->root = rec->root;
	key->pos = (uint32) fb->used;
	fb->used += need;
	batch_memory += need + sizeof(WalSortKey);
}

/*
 * Order held-back records by trie, then entry bytes (the first eight
 * compared as one number, head; shorter entries are padded with zeros
 * there, the length decides after the bytes), then WAL order (xpos and
 * ypos: the records' WAL positions, or their places in one batch): the
 * records of one entry stay in WAL order.
 */
static inline int
batch_order(uint32 xroot, uint64 xhead, const uint8 *x, uint32 xlen,
			uint64 xpos, uint32 yroot, uint64 yhead, const uint8 *y,
			uint32 ylen, uint64 ypos)
{
	int			c;

	if (xroot != yroot)
		return xroot < yroot ? -1 : 1;
	if (xhead != yhead)
		return xhead < yhead ? -1 : 1;
	c = memcmp(x, y, Min(xlen, ylen));
	if (c != 0)
		return c;
	if (xlen != ylen)
		return xlen < ylen ? -1 : 1;
	if (xpos != ypos)
		return xpos < ypos ? -1 : 1;
	return 0;
}

/*
 * batch_order of the records of two sort keys of batch fb, by their
 * places in the batch: the records are in WAL order (batch_add).
 */
static inline int
batch_key_cmp(const WalSortKey *x, const WalSortKey *y, const FileBatch *fb)
{
	return batch_order(x->root, x->head, batch_record_entry(fb, x->pos),
					   batch_record(fb, x->pos).len, x->pos,
					   y->root, y->head, batch_record_entry(fb, y->pos),
					   batch_record(fb, y->pos).len, y->pos);
}

/* batch_order of two streams' next records. */
static inline int
batch_head_cmp(const BatchHead *x, const BatchHead *y)
{
	return batch_order(x->root, x->head, x->entry, x->len, x->lsn,
					   y->root, y->head, y->entry, y->len, y->lsn);
}

/*
 * batch_sort_equal(keys, n, fb): PostgreSQL's quicksort with batch_key_cmp
 * inlined, for keys whose trie and head are equal.
 */
#define ST_SORT batch_sort_equal
#define ST_ELEMENT_TYPE WalSortKey
#define ST_COMPARE(a, b, arg) batch_key_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE const FileBatch
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * How many times a run of keys equal on eight bytes is sorted again on the
 * next eight inside another (batch_sort_keys and batch_sort_run call each
 * other); a run deeper than that is sorted by whole entries, so that the
 * stack stays short whatever the keys (entries of up to 1 MiB may share
 * all but their last bytes).
 */
#define BATCH_SORT_LEVELS 32

static void batch_sort_run(const FileBatch *fb, WalSortKey *keys, Size n,
						   uint32 depth, int level);

/*
 * Sort the n keys at keys of batch fb in batch_order, where their entries
 * are equal (padded with zeros) before byte depth and their heads hold
 * the eight bytes from there on: by trie, head and place in the batch
 * without a branch on the comparisons (wal_sort_keys), then each run of
 * keys with one trie and head on the next eight bytes (batch_sort_run),
 * level runs deep.
 */
static void
batch_sort_keys(const FileBatch *fb, WalSortKey *keys, Size n, uint32 depth,
				int level)
{
	Size		start = 0;

	wal_sort_keys(keys, n);
	for (Size i = 1; i <= n; i++)
	{
		if (i == n || keys[i].head != keys[start].head ||
			keys[i].root != keys[start].root)
		{
			if (i - start > 1)
				batch_sort_run(fb, keys + start, i - start, depth + 8,
							   level + 1);
			start = i;
		}
	}
}

/*
 * Sort the n keys at keys of batch fb, of one trie, whose entries are
 * equal (padded with zeros) before byte depth and which are in WAL order:
 * by the first eight bytes from there on where they differ
 * (batch_sort_keys), or, where no entry has more bytes, by length
 * (batch_order).  Past BATCH_SORT_LEVELS runs inside runs, by whole
 * entries (batch_order).
 */
static void
batch_sort_run(const FileBatch *fb, WalSortKey *keys, Size n, uint32 depth,
			   int level)
{
	check_stack_depth();
	for (;;)
	{
		uint32		minlen = PG_UINT32_MAX;
		uint32		maxlen = 0;
		bool		same = true;

		for (Size k = 0; k < n; k++)
		{
			uint32		len = batch_record(fb, keys[k].pos).len;

			keys[k].head = batch_entry_chunk(batch_record_entry(fb, keys[k].pos),
											 len, depth);
			same &= keys[k].head == keys[0].head;
			minlen = Min(minlen, len);
			maxlen = Max(maxlen, len);
		}
		if (maxlen <= depth)
		{
			if (minlen != maxlen)
				batch_sort_equal(keys, n, fb);
			return;
		}
		if (!same)
			break;
		/* still in WAL order: on to the next eight bytes */
		depth += 8;
	}
	if (level >= BATCH_SORT_LEVELS)
		batch_sort_equal(keys, n, fb);
	else
		batch_sort_keys(fb, keys, n, depth, level);
}

/*
 * Sort a batch's keys in batch_order.  Their heads are the entries' first
 * eight bytes; after the sort they hold other bytes of the entries.
 */
static void
batch_sort(FileBatch *fb)
{
	batch_sort_keys(fb, fb->keys, fb->nitems, 0, 0);
}

/*
 * Ask the CPU for the record of the i-th sorted key (if there is one), its
 * header and entry (most span two cache lines), ahead of the copy that
 * reads it.
 */
static inline void
batch_prefetch(const FileBatch *fb, Size i)
{
#if defined(__GNUC__)
	if (i < fb->nitems)
	{
		const uint8 *p = fb->bytes + fb->keys[i].pos;

		__builtin_prefetch(p);
		__builtin_prefetch(p + 63);
	}
#else
	(void) fb;
	(void) i;
#endif
}

/*
 * Copy the headers and entries of the n sorted keys from the from-th on
 * into g, the entries into g->buf one after another.  The batch keeps its
 * records in WAL order and the sorted keys visit them in entry order, so
 * each record is a cache and TLB miss: taken by the descent of its insert,
 * the misses come one at a time; taken here, in a loop of independent
 * copies with prefetches ahead, they overlap.
 */
static void
batch_gather(const FileBatch *fb, Size from, Size n, BatchGather *g)
{
	Size		pos = 0;

	Assert(n <= BATCH_GATHER_ITEMS);
	for (Size k = 0; k < n; k++)
	{
		uint32		at = fb->keys[from + k].pos;

		batch_prefetch(fb, from + k + BATCH_PREFETCH_AHEAD);
		g->rec[k] = batch_record(fb, at);
		if (pos + g->rec[k].len > g->size)
		{
			g->size = Max(Max(pos + g->rec[k].len, g->size * 2), (Size) 65536);
			g->buf = g->buf == NULL ? palloc(g->size) :
				repalloc(g->buf, g->size);
		}
		memcpy(g->buf + pos, batch_record_entry(fb, at), g->rec[k].len);
		pos += g->rec[k].len;
	}
	pos = 0;
	for (Size k = 0; k < n; k++)
	{
		g->entry[k] = g->buf + pos;
		pos += g->rec[k].len;
	}
}

/*
 * Set h to the batch's next sorted record (the *next-th), gathering the
 * records from there on when it starts another group (batch_gather);
 * invalid after the last record.
 */
static void
batch_items_head(const FileBatch *fb, Size *next, BatchGather *g,
				 BatchHead *h)
{
	const BatchRecord *rec;

	h->valid = *next < fb->nitems;
	if (!h->valid)
		return;
	if (*next % BATCH_GATHER_ITEMS == 0)
		batch_gather(fb, *next, Min(BATCH_GATHER_ITEMS, fb->nitems - *next),
					 g);
	rec = &g->rec[*next % BATCH_GATHER_ITEMS];
	h->lsn = rec->lsn;
	h->entry = g->entry[*next % BATCH_GATHER_ITEMS];
	h->len = rec->len;
	h->head = batch_entry_head(h->entry, h->len);
	h->root = fb->keys[*next].root;
	h->kind = rec->kind;
	(*next)++;
}

/* Close a file's sorted runs (and remove their files). */
static void
batch_close_runs(FileBatch *fb)
{
	for (int r = 0; r < fb->nruns; r++)
		wal_run_close(fb->runs[r]);
	fb->nruns = 0;
}

/* Set h to a run's next record; invalid after its last. */
static void
batch_run_head(WalRun *run, BatchHead *h)
{
	h->valid = wal_run_next(run, &h->kind, &h->root, &h->lsn, &h->entry,
							&h->len);
	if (h->valid)
		h->head = batch_entry_head(h->entry, h->len);
}

/* Keep a merge record (h) back until a record logged after it. */
static void
batch_merge_add(BatchMerges *m, const BatchHead *h)
{
	if (m->n == m->max)
	{
		m->max = Max(16, m->max * 2);
		m->items = m->items == NULL ? palloc(m->max * sizeof(BatchMerge)) :
			repalloc(m->items, m->max * sizeof(BatchMerge));
	}
	if (m->used + h->len > m->size)
	{
		m->size = Max(m->used + h->len, Max(m->size * 2, (Size) 4096));
		m->buf = m->buf == NULL ? palloc(m->size) : repalloc(m->buf, m->size);
	}
	memcpy(m->buf + m->used, h->entry, h->len);
	m->items[m->n].lsn = h->lsn;
	m->items[m->n].off = m->used;
	m->items[m->n].len = h->len;
	m->items[m->n].step = (ArtMergeStep) (h->kind & BATCH_STEP);
	if (m->n == 0 || h->lsn < m->first)
		m->first = h->lsn;
	m->n++;
	m->used += h->len;
}

/* qsort comparator: merges in WAL order. */
static int
batch_merge_cmp(const void *a, const void *b)
{
	XLogRecPtr	x = ((const BatchMerge *) a)->lsn;
	XLogRecPtr	y = ((const BatchMerge *) b)->lsn;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * Apply, in WAL order, the merges kept back in m that were logged before
 * position before (all of them if before is invalid), through finger on
 * file; keep the others.
 */
static void
batch_merges_apply(BatchMerges *m, ArtFinger *finger, PagerFile *file,
				   XLogRecPtr before)
{
	XLogRecPtr	now = redo_lsn_now;
	int			kept = 0;
	int			i;

	if (m->n == 0)
		return;
	qsort(m->items, m->n, sizeof(BatchMerge), batch_merge_cmp);
	for (i = 0; i < m->n; i++)
	{
		BatchMerge *bm = &m->items[i];

		if (!XLogRecPtrIsInvalid(before) && bm->lsn >= before)
			break;
		redo_lsn_now = bm->lsn;
		redo_merge_done(file, art_finger_merge(finger, m->buf + bm->off,
											   bm->len, bm->step));
		redo_count_replayed();
	}
	for (; i < m->n; i++)
		m->items[kept++] = m->items[i];
	m->n = kept;
	if (kept == 0)
		m->used = 0;
	else
		m->first = m->items[0].lsn;
	redo_lsn_now = now;
}

/*
 * Apply one file's held-back records (a FileBatch and the sorted runs it
 * wrote out) in entry order, merging the runs with the batch's sorted
 * items; each trie's records go through one finger (art_finger_insert):
 * an insert descends only from the deepest node its entry shares with
 * the one before.  The finger
 * keeps exclusive locks on the pages of its path from one record to the
 * next, until the trie's last record; nothing else waits for them: no
 * query runs while records are held back (wal_apply's batch), the
 * processes that write pages back (eviction, the io worker) pass over a
 * locked page, and a checkpoint of the file waits for the write gate,
 * which this process holds until the finger ends and never waits for
 * meanwhile (the io worker's checkpoint only tries it, serving I/O
 * between tries).  The finger splits pages without the file's split lock
 * (art_insert's, which orders a split against the paths that other
 * inserts keep pinned between their two passes): no other insert runs on
 * the file meanwhile.  On an ERROR the pager releases the pages and
 * redo_guarded the rest; the finger's memory is redo_cxt's, reset after
 * the batch, and the trie frees its own temporary memory as it goes.
 *
 * A merge record sorts right after the delete of its entry, the last of
 * the run of deletes it merges after, but its writer (VACUUM) merged once
 * the whole group of deletes was done: the merge waits (BatchMerges) until
 * the first record but a merge logged after it, or the trie's end, and
 * the merges waiting then apply in WAL order, so that redo changes the
 * pages as the primary did.
 */
static void
batch_apply(void *arg)
{
	FileBatch  *fb = arg;
	ArtTrie		trie;
	ArtFinger  *finger = NULL;
	PagerFile  *finger_file = NULL;
	uint32		root = 0;
	BatchGather gather = {0};
	BatchMerges merges = {0};
	BatchHead	heads[BATCH_MAX_RUNS + 1];
	int			nstreams = fb->nruns + 1;
	Size		next = 0;
	uint64		applied = 0;
	instr_time	start;
	instr_time	sorted;
	instr_time	end;
	double		cpu_start = redo_cpu_seconds();
	double		cpu_sorted;
	uint64		faults_start = redo_page_faults();

	INSTR_TIME_SET_CURRENT(start);
	batch_sort(fb);
	INSTR_TIME_SET_CURRENT(sorted);
	cpu_sorted = redo_cpu_seconds();

	/* Streams 0 .. nruns - 1 are the runs, the last the sorted items. */
	for (int r = 0; r < fb->nruns; r++)
		batch_run_head(fb->runs[r], &heads[r]);
	batch_items_head(fb, &next, &gather, &heads[fb->nruns]);
	for (;;)
	{
		int			best = -1;
		BatchHead  *h;
		PagerFile  *file;

		for (int i = 0; i < nstreams; i++)
		{
			if (heads[i].valid &&
				(best < 0 || batch_head_cmp(&heads[i], &heads[best]) < 0))
				best = i;
		}
		if (best < 0)
			break;
		h = &heads[best];
		applied++;
		redo_lsn_now = h->lsn;
		file = redo_file(&fb->id, h->lsn);
		if (file != NULL)
		{
			if (finger == NULL || h->root != root)
			{
				if (finger != NULL)
				{
					batch_merges_apply(&merges, finger, finger_file,
									   InvalidXLogRecPtr);
					art_finger_end(finger);
				}
				art_open(&trie, pager_page_store(file), h->root);
				if (art_finger_begin(&trie, &finger) != ART_OK)
					ereport(ERROR,
							(errcode(ERRCODE_OUT_OF_MEMORY),
							 errmsg("out of memory")));
				art_finger_pack(finger, batch_pack);
				finger_file = file;
				root = h->root;
			}
			else if (merges.n > 0 && !BATCH_IS_MERGE(h->kind) &&
					 h->lsn > merges.first)
				batch_merges_apply(&merges, finger, file, h->lsn);
			if (BATCH_IS_MERGE(h->kind))
				batch_merge_add(&merges, h);
			else if (h->kind == WAL_ARTRIE_INSERT)
				redo_entry_done(file, art_finger_insert(finger, h->entry,
														h->len));
			else if (h->kind == WAL_ARTRIE_DELETE)
				redo_entry_done(file, art_finger_delete(finger, h->entry,
														h->len));
			else
				redo_entry_done(file, art_finger_delete_only(finger, h->entry,
															 h->len));
		}
		if (best == fb->nruns)
			batch_items_head(fb, &next, &gather, h);
		else
			batch_run_head(fb->runs[best], h);
	}
	if (finger != NULL)
	{
		batch_merges_apply(&merges, finger, finger_file, InvalidXLogRecPtr);
		art_finger_end(finger);
	}
	if (gather.buf != NULL)
		pfree(gather.buf);
	if (merges.items != NULL)
	{
		pfree(merges.items);
		pfree(merges.buf);
	}
	batch_close_runs(fb);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(batch_sort_time, sorted, start);
	INSTR_TIME_ACCUM_DIFF(batch_apply_time, end, sorted);
	batch_sort_cpu += cpu_sorted - cpu_start;
	batch_apply_cpu += redo_cpu_seconds() - cpu_sorted;
	batch_faults += redo_page_faults() - faults_start;
	batch_applied += applied;
}

/*
 * Write each file's batch out as a sorted run (wal_runs.c) and start the
 * batches again in the memory they have; batch_from stays, as every
 * record is still held back.  Its time counts as the batches' sorting.
 */
static void
batch_spill(void)
{
	MemoryContext old = MemoryContextSwitchTo(batch_cxt);
	instr_time	start;
	instr_time	end;
	double		cpu_start = redo_cpu_seconds();

	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < nbatches; i++)
	{
		FileBatch  *fb = &batches[i];
		WalRun	   *run;

		if (fb->nitems == 0)
			continue;
		batch_sort(fb);
		run = wal_run_create();
		for (Size k = 0; k < fb->nitems; k++)
		{
			BatchRecord rec = batch_record(fb, fb->keys[k].pos);

			batch_prefetch(fb, k + BATCH_PREFETCH_AHEAD);
			wal_run_write(run, rec.kind, fb->keys[k].root, rec.lsn,
						  batch_record_entry(fb, fb->keys[k].pos), rec.len);
		}
		wal_run_finish(run);
		fb->runs[fb->nruns++] = run;
		fb->nitems = 0;
		fb->used = 0;
		batch_runs++;
	}
	batch_memory = 0;
	MemoryContextSwitchTo(old);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(batch_sort_time, end, start);
	batch_sort_cpu += redo_cpu_seconds() - cpu_start;
}

static void redo_record(void *arg);

/* Apply one record held back for an image (a WalHoldApply). */
static void
redo_held_record(uint8 kind, const char *data, Size len, XLogRecPtr lsn,
				 void *arg)
{
	RedoArgs	args;

	args.kind = kind;
	args.data = data;
	args.len = len;
	args.lsn = lsn;
	args.batch = *(bool *) arg;
	redo_lsn_now = lsn;
	redo_record(&args);
}

/* Decode an image record at lsn; ERROR if it is malformed. */
static void
image_decode(const char *data, Size len, XLogRecPtr lsn, WalImageRecord *rec,
			 const uint8 **bodies, const uint8 **freelist)
{
	if (!wal_image_decode((const uint8 *) data, len, rec, bodies, freelist))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed artrie WAL image record at %X/%X",
						LSN_FORMAT_ARGS(lsn))));
}

/* Apply one record of an image held back to its last (a WalHoldApply). */
static void
redo_held_image(uint8 kind, const char *data, Size len, XLogRecPtr lsn,
				void *arg)
{
	WalImageRecord rec;
	const uint8 *bodies;
	const uint8 *freelist;
	XLogRecPtr	now = redo_lsn_now;

	image_decode(data, len, lsn, &rec, &bodies, &freelist);
	redo_lsn_now = lsn;
	redo_image(&rec, bodies, freelist, lsn);
	redo_lsn_now = now;
}

/*
 * Apply the records held back for file id (held in a batch with batch),
 * in WAL order, end its hold, and say how many there were.
 */
static void
redo_hold_release(const ArtFileId *id, bool batch)
{
	XLogRecPtr	now = redo_lsn_now;
	uint64		held;

	held = wal_hold_release(id, redo_held_record, &batch);
	redo_lsn_now = now;
	redo_hold_update();
	ereport(LOG,
			(errmsg("artrie applied %llu WAL entry records of file \"artrie/%u/%u.%u\" held back during its checkpoint's image",
					(unsigned long long) held, id->dbOid, id->relNumber,
					id->generation)));
}

/* Decode a record and apply it; ERROR if it is malformed. */
static void
redo_record(void *arg)
{
	const RedoArgs *args = arg;
	uint8		kind = args->kind & WAL_ARTRIE_KIND_MASK;
	const char *data = args->data;
	Size		len = args->len;
	XLogRecPtr	lsn = args->lsn;

	if ((args->kind & WAL_ARTRIE_NO_MERGE) && kind != WAL_ARTRIE_DELETE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed artrie WAL record at %X/%X: kind 0x%02X with no-merge flag",
						LSN_FORMAT_ARGS(lsn), kind)));
	if (kind == WAL_ARTRIE_INSERT || kind == WAL_ARTRIE_DELETE ||
		kind == WAL_ARTRIE_MERGE)
	{
		WalEntryRecord rec;
		const uint8 *entry;
		uint8		step = 0;

		if (kind == WAL_ARTRIE_MERGE ?
			!wal_merge_decode((const uint8 *) data, len, &rec, &entry, &step) :
			!wal_entry_decode((const uint8 *) data, len, &rec, &entry))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("malformed artrie WAL entry record at %X/%X",
							LSN_FORMAT_ARGS(lsn))));
		if (wal_hold_active(&rec.file))
			wal_hold_add(&rec.file, args->kind, data, len, lsn);
		else if (args->batch)
			batch_add(args->kind, &rec, entry, step, lsn);
		else
			redo_entry(args->kind, &rec.file, rec.root, entry, rec.len, step,
					   lsn);
	}
	else if (kind == WAL_ARTRIE_IMAGE)
	{
		WalImageRecord rec;
		const uint8 *bodies;
		const uint8 *freelist;

		image_decode(data, len, lsn, &rec, &bodies, &freelist);
		if ((rec.flags & WAL_IMAGE_CKPT) && (rec.flags & WAL_IMAGE_BEGUN) &&
			wal_hold_active(&rec.file))
		{
			wal_hold_add_image(&rec.file, (rec.flags & WAL_IMAGE_FIRST) != 0,
							   kind, data, len, lsn);
			if ((rec.flags & WAL_IMAGE_LAST) &&
				wal_hold_apply_images(&rec.file, redo_held_image, NULL) > 0)
				redo_hold_release(&rec.file, args->batch);
		}
		else
			redo_image(&rec, bodies, freelist, lsn);
	}
	else if (kind == WAL_ARTRIE_IMAGE_BEGIN)
	{
		WalFileSinceRecord rec;

		if (!wal_file_since_decode((const uint8 *) data, len, &rec))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("malformed artrie WAL image-begin record at %X/%X",
							LSN_FORMAT_ARGS(lsn))));
		if (redo_restoring() && !file_set_has(&rebuilt, &rec.file))
		{
			wal_hold_begin(&rec.file, lsn);
			redo_hold_update();
		}
	}
	else if (kind == WAL_ARTRIE_UNCHANGED)
	{
		WalFileSinceRecord rec;

		if (!wal_file_since_decode((const uint8 *) data, len, &rec))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("malformed artrie WAL unchanged record at %X/%X",
							LSN_FORMAT_ARGS(lsn))));
		wal_redo_forget();
		pager_vouch_file(&rec.file, rec.since, lsn);
		wal_redo_forget();
	}
	else if (kind == WAL_ARTRIE_VACUUM)
	{
		WalVacuumRecord rec;

		if (!wal_vacuum_decode((const uint8 *) data, len, &rec))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("malformed artrie WAL vacuum record at %X/%X",
							LSN_FORMAT_ARGS(lsn))));
		if (!args->batch)
			wal_conflict_vacuum(&rec.file);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("unknown artrie WAL record kind 0x%02X at %X/%X",
						kind, LSN_FORMAT_ARGS(lsn))));
}

/*
 * Whether a failed record is the file's fault (its pages or the record do
 * not hold together), not the server's.
 */
static bool
redo_error_is_damage(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_DATA_CORRUPTED ||
		sqlerrcode == ERRCODE_INDEX_CORRUPTED ||
		sqlerrcode == ERRCODE_UNDEFINED_FILE;
}

/*
 * Run work(arg), which applies records of file id (NULL: not known); if
 * the file cannot take the one at redo_lsn_now, mark the file damaged, or
 * skip a file that cannot be proven current, and go on.  With vouch
 * (work loads a file that an unchanged record vouches for, and changes
 * nothing), a file that cannot be loaded is left as it is: every use
 * refuses it with its own reason.
 */
static void
redo_guarded(void (*work) (void *arg), void *arg, const ArtFileId *id,
			 bool vouch)
{
	MemoryContext old;

	old = MemoryContextSwitchTo(redo_cxt);
	PG_TRY();
	{
		work(arg);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *reason;

		MemoryContextSwitchTo(redo_cxt);
		edata = CopyErrorData();
		if (id == NULL ||
			(!redo_error_is_damage(edata->sqlerrcode) &&
			 edata->sqlerrcode != ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE))
			PG_RE_THROW();
		FlushErrorState();
		LWLockReleaseAll();
		ConditionVariableCancelSleep();
		pager_release_all();
		wal_redo_forget();

		/* Records of a file that takes none are not held back either. */
		if (!vouch && wal_hold_active(id))
		{
			wal_hold_release(id, NULL, NULL);
			redo_hold_update();
		}

		/*
		 * A file that cannot be proven current (of another cluster, older
		 * than the WAL here) is refused at every load anyway: its records
		 * are skipped, the file left as it is.
		 */
		if (edata->sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE ||
			vouch)
		{
			if (!vouch)
				redo_skip_file(id);
			MemoryContextSwitchTo(old);
			MemoryContextReset(redo_cxt);
			return;
		}

		reason = psprintf("Redo of the WAL record at %X/%X failed: %s",
						  LSN_FORMAT_ARGS(redo_lsn_now), edata->message);
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("artrie file \"artrie/%u/%u.%u\" is damaged and will be refused until REINDEX",
						id->dbOid, id->relNumber, id->generation),
				 errdetail("%s", reason),
				 errhint("REINDEX the index that uses this file.")));
		pager_mark_damaged(id, reason);
		pg_atomic_fetch_add_u64(&wal_shared->failed, 1);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	MemoryContextReset(redo_cxt);
}

/*
 * Apply every held-back record, each file's in entry order, its sorted
 * runs merged in, and close the runs; a file that cannot take one of them
 * is marked damaged and the rest of its records are dropped (redo skips a
 * damaged file's records).  Then checkpoints may claim them.  last: no
 * batch of the same records is expected after this one (it is not
 * maintenance_work_mem that ends it), so the fingers pack the pages they
 * split (batch_pack).  The files that held records keep their arrays for
 * the next ones; those of a file that held none since the last flush are
 * freed.
 */
static void
batch_flush(bool last)
{
	bool		held = !XLogRecPtrIsInvalid(batch_from);
	int			kept = 0;

	batch_pack = last;
	for (int i = 0; i < nbatches; i++)
	{
		if (batches[i].active)
			redo_guarded(batch_apply, &batches[i], &batches[i].id, false);
	}
	for (int i = 0; i < nbatches; i++)
	{
		FileBatch  *fb = &batches[i];

		batch_close_runs(fb);
		if (fb->active)
		{
			fb->nitems = 0;
			fb->used = 0;
			fb->active = false;
			batches[kept++] = *fb;
		}
		else
		{
			pfree(fb->keys);
			pfree(fb->bytes);
		}
	}
	nbatches = kept;
	batch_memory = 0;
	if (held)
	{
		batch_from = InvalidXLogRecPtr;
		redo_hold_update();
	}
}

/*
 * maintenance_work_mem of entry records is held back: write the batches
 * out as sorted runs, or, once a file has written as many as it may,
 * apply them all (more batches follow: their fingers halve the pages
 * they split).
 */
static void
batch_cut(void)
{
	for (int i = 0; i < nbatches; i++)
	{
		if (batches[i].nruns == BATCH_MAX_RUNS)
		{
			batch_flush(false);
			return;
		}
	}
	batch_spill();
}

/*
 * Apply every held-back record (batch_flush): at the end of redo, before
 * another kind of record, or when redo stops holding records back.
 */
void
wal_batch_flush(void)
{
	batch_flush(true);
}

/*
 * Log how many held-back records redo applied and how long sorting and
 * applying them took (artrie's share of the redo time), and start over.
 */
void
wal_batch_report(void)
{
	if (batch_applied == 0)
		return;
	ereport(LOG,
			(errmsg("artrie applied %llu held-back WAL entry records in %.3f s (CPU %.3f s), %.3f s of it (CPU %.3f s) sorting them, %llu sorted runs written out, %llu page faults",
					(unsigned long long) batch_applied,
					INSTR_TIME_GET_DOUBLE(batch_sort_time) +
					INSTR_TIME_GET_DOUBLE(batch_apply_time),
					batch_sort_cpu + batch_apply_cpu,
					INSTR_TIME_GET_DOUBLE(batch_sort_time),
					batch_sort_cpu,
					(unsigned long long) batch_runs,
					(unsigned long long) batch_faults)));
	batch_applied = 0;
	batch_runs = 0;
	batch_faults = 0;
	batch_sort_cpu = 0;
	batch_apply_cpu = 0;
	INSTR_TIME_SET_ZERO(batch_sort_time);
	INSTR_TIME_SET_ZERO(batch_apply_time);
}

/*
 * Apply one artrie WAL record (kind and flag from its info byte,
 * WAL_ARTRIE_INFO_MASK, its payload, its position); mark its file damaged
 * if the file cannot take it.  With batch (no query may look at an index
 * until wal_batch_flush), an entry or merge record may be held back in
 * its file's batch; any other record applies the batches first.  So does
 * a vacuum record, the end of one pass of deletes and merges in key
 * order: the next pass's would sort among them, and its deletes come
 * before merges that the primary made before them.
 */
void
wal_apply(uint8 kind, const char *data, Size len, XLogRecPtr lsn, bool batch)
{
	RedoArgs	args;
	ArtFileId	id;
	uint8		base = kind & WAL_ARTRIE_KIND_MASK;

	if (redo_cxt == NULL)
		redo_cxt = AllocSetContextCreate(TopMemoryContext, "artrie redo",
										 ALLOCSET_DEFAULT_SIZES);
	if (!batch || (base != WAL_ARTRIE_INSERT && base != WAL_ARTRIE_DELETE &&
				   base != WAL_ARTRIE_MERGE))
		wal_batch_flush();
	args.kind = kind;
	args.data = data;
	args.len = len;
	args.lsn = lsn;
	args.batch = batch;
	redo_lsn_now = lsn;
	memset(&id, 0, sizeof(id));
	if (len >= sizeof(ArtFileId))
		memcpy(&id, data, sizeof(ArtFileId));
	redo_guarded(redo_record, &args, len >= sizeof(ArtFileId) ? &id : NULL,
				 base == WAL_ARTRIE_UNCHANGED);
	if (batch_memory >= WAL_BATCH_MEMORY)
		batch_cut();
}

/*
 * Whether PostgreSQL's redo may hold entry records back: not where hot
 * standby may let queries in (from the record at which the standby is
 * consistent on, each must see every record replayed).
 */
static bool
redo_may_batch(void)
{
	return !(ArchiveRecoveryRequested && EnableHotStandby);
}

/* rm_redo: apply one record during PostgreSQL's recovery. */
static void
artrie_rm_redo(XLogReaderState *record)
{
	wal_apply(XLogRecGetInfo(record) & WAL_ARTRIE_INFO_MASK,
			  XLogRecGetData(record), XLogRecGetDataLen(record),
			  record->ReadRecPtr, redo_may_batch());
}

/* rm_desc: describe a record, for pg_waldump and error contexts. */
static void
artrie_rm_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		kind = XLogRecGetInfo(record) & WAL_ARTRIE_KIND_MASK;
	const uint8 *data = (const uint8 *) XLogRecGetData(record);
	Size		len = XLogRecGetDataLen(record);

	if (kind == WAL_ARTRIE_INSERT || kind == WAL_ARTRIE_DELETE ||
		kind == WAL_ARTRIE_MERGE)
	{
		WalEntryRecord rec;
		const uint8 *entry;
		uint8		step = 0;

		if (kind == WAL_ARTRIE_MERGE ?
			wal_merge_decode(data, len, &rec, &entry, &step) :
			wal_entry_decode(data, len, &rec, &entry))
			appendStringInfo(buf, "file %u/%u.%u, root %u, entry of %u bytes%s",
							 rec.file.dbOid, rec.file.relNumber,
							 rec.file.generation, rec.root, rec.len,
							 (XLogRecGetInfo(record) & WAL_ARTRIE_NO_MERGE) ?
							 ", no merge" : "");
		if (step != 0)
			appendStringInfo(buf, ", step %u", step);
	}
	else if (kind == WAL_ARTRIE_IMAGE)
	{
		WalImageRecord rec;
		const uint8 *bodies;
		const uint8 *freelist;

		if (wal_image_decode(data, len, &rec, &bodies, &freelist))
			appendStringInfo(buf, "file %u/%u.%u, pages %u-%u%s%s%s%s%s",
							 rec.file.dbOid, rec.file.relNumber,
							 rec.file.generation, rec.first,
							 rec.first + rec.npages,
							 (rec.flags & WAL_IMAGE_CKPT) ? ", checkpoint" : "",
							 (rec.flags & WAL_IMAGE_BEGUN) ? ", begun" : "",
							 (rec.flags & WAL_IMAGE_FIRST) ? ", first" : "",
							 (rec.flags & WAL_IMAGE_LAST) ? ", last" : "",
							 (rec.flags & WAL_IMAGE_PACKED) ? ", packed" : "");
	}
	else if (kind == WAL_ARTRIE_UNCHANGED || kind == WAL_ARTRIE_IMAGE_BEGIN)
	{
		WalFileSinceRecord rec;

		if (wal_file_since_decode(data, len, &rec))
			appendStringInfo(buf, kind == WAL_ARTRIE_UNCHANGED ?
							 "file %u/%u.%u, unchanged since %X/%X" :
							 "file %u/%u.%u, checkpoint image from %X/%X begins",
							 rec.file.dbOid, rec.file.relNumber,
							 rec.file.generation, LSN_FORMAT_ARGS(rec.since));
	}
	else if (kind == WAL_ARTRIE_VACUUM)
	{
		WalVacuumRecord rec;

		if (wal_vacuum_decode(data, len, &rec))
			appendStringInfo(buf, "file %u/%u.%u, deletions done",
							 rec.file.dbOid, rec.file.relNumber,
							 rec.file.generation);
	}
}

/* rm_identify: the name of a record kind. */
static const char *
artrie_rm_identify(uint8 info)
{
	switch (info & WAL_ARTRIE_KIND_MASK)
	{
		case WAL_ARTRIE_INSERT:
			return "INSERT";
		case WAL_ARTRIE_DELETE:
			return (info & WAL_ARTRIE_NO_MERGE) ? "DELETE_NO_MERGE" : "DELETE";
		case WAL_ARTRIE_MERGE:
			return "MERGE";
		case WAL_ARTRIE_IMAGE:
			return "IMAGE";
		case WAL_ARTRIE_UNCHANGED:
			return "UNCHANGED";
		case WAL_ARTRIE_VACUUM:
			return "VACUUM";
		case WAL_ARTRIE_IMAGE_BEGIN:
			return "IMAGE_BEGIN";
	}
	return NULL;
}

/*
 * rm_startup: before PostgreSQL replays from its redo pointer, replay the
 * older WAL that artrie's files still need.
 */
static void
artrie_rm_startup(void)
{
	wal_recover(true);
}

/* Apply the records held back for the file a hold's id names, unbatched. */
static void
redo_hold_apply_all(void *arg)
{
	redo_hold_release((const ArtFileId *) arg, false);
}

/*
 * Redo ends while it holds records back for images that never ended.  The
 * file is the copy (or an earlier rebuild): a checkpoint whose image
 * never ended did not end either, so it left no page in the copy, and the
 * entry records held back bring the file up to date, applied in WAL
 * order; the image's records held are dropped.
 */
static void
redo_holds_end(void)
{
	int			n = wal_hold_count();
	ArtFileId  *ids;

	if (n == 0)
		return;
	ids = MemoryContextAlloc(TopMemoryContext, sizeof(ArtFileId) * n);
	wal_hold_files(ids);
	for (int i = 0; i < n; i++)
		redo_guarded(redo_hold_apply_all, &ids[i], &ids[i], false);
	pfree(ids);
	redo_hold_update();
}

/*
 * rm_cleanup: redo is over; the records held back are applied (and the
 * time that took logged), the batches' arrays are freed, the cached file
 * handle goes.
 */
static void
artrie_rm_cleanup(void)
{
	redo_holds_end();
	wal_batch_flush();
	wal_batch_report();
	if (batch_cxt != NULL)
		MemoryContextDelete(batch_cxt);
	batch_cxt = NULL;
	batches = NULL;
	nbatches = 0;
	maxbatches = 0;
	wal_redo_forget();
}

static RmgrData artrie_rmgr = {
	.rm_name = "artrie",
	.rm_redo = artrie_rm_redo,
	.rm_desc = artrie_rm_desc,
	.rm_identify = artrie_rm_identify,
	.rm_startup = artrie_rm_startup,
	.rm_cleanup = artrie_rm_cleanup,
};

/* Register the resource manager (from _PG_init, in the postmaster). */
void
wal_rmgr_register(void)
{
	RegisterCustomRmgr(ARTRIE_RMGR_ID, &artrie_rmgr);
}
