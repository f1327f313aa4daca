/*-------------------------------------------------------------------------
 *
 * pager_hold.c
 *	  Scan holds: the interlock between scans that return entries from a
 *	  copied batch and VACUUM, which removes entries and then lets the
 *	  heap reuse their TIDs.
 *
 * A btree index-only scan keeps its leaf page pinned while it returns the
 * page's items, and VACUUM waits for that pin before it removes items from
 * the page; so the heap cannot mark a TID unused (and the visibility map
 * cannot call its page all-visible) while a scan may still return that
 * TID with its old key.  artrie's scans hold no page between calls: they
 * copy a batch of entries and return them one by one.  A scan that must
 * not return an entry removed since (an index-only scan, or any scan not
 * under an MVCC snapshot) takes a hold instead:
 *
 *	- a global epoch counter, bumped by every bulk delete that removed
 *	  something, once its deletions are done;
 *	- per process, a few published holds, one per file its scans read:
 *	  the file and the least epoch of the batches its scans of that file
 *	  still return from (a process that scans more files at once than
 *	  there are entries publishes the rest under "any file").  A scan
 *	  publishes the current epoch for its file before it reads a batch
 *	  (rereading the epoch after a barrier, so that a bump it missed makes
 *	  it publish again);
 *	- the bulk delete of a file, after bumping the epoch to E, waits until
 *	  no other process holds that file (or "any file") at an epoch below
 *	  E.  A batch read after the bump is published with E or later and
 *	  already lacks the removed entries; a batch read before is waited for
 *	  until its scan has returned all of it (and its caller has used
 *	  those entries) and read the next one.  Holds on other files do not
 *	  make it wait.
 *
 * As with btree's pins, an idle cursor in the middle of a batch makes
 * VACUUM wait (interruptibly) until it moves on or closes.  Holds end with
 * their scan, all of them at the end of the transaction, and, as btree's
 * pins do, with the resource owner that was current when the scan took
 * its hold, when that owner is released by an abort: a subtransaction
 * rolled back (ROLLBACK TO SAVEPOINT, a PL/pgSQL exception block) or a
 * cursor that failed ends the scans it ran without their endscan.
 *
 * On a hot standby the primary's bulk delete reaches redo as its entry
 * records and then one record saying the deletions are done, before the
 * heap's records that free the TIDs; its redo advances the epoch and
 * waits for the holds on the file the same way, but only as long as
 * max_standby_streaming_delay (or _archive_delay) allows, then cancels
 * their transactions as PostgreSQL's recovery conflicts do
 * (src/wal/wal_conflict.c): so each published hold names its
 * transaction.
 *
 * Layer: a leaf, calling nothing else in the pager.  Called by the access
 * method, by the WAL layer's redo, by pager.c (the holds' shared memory)
 * and by the pool's end of transaction (pager_hold_release_all).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_hold.h"

#include "access/twophase.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/wait_event.h"

/* This process's holds. */
typedef struct LocalHold
{
	bool		used;
	ArtFileId	file;			/* the file its scan reads */
	uint64		epoch;			/* of the batch it returns from; 0: none */
	ResourceOwner owner;		/* current when the hold was taken */
} LocalHold;

static LocalHold *local_holds = NULL;
static int	local_nholds = 0;
static bool release_callback_set = false;
static bool local_published = false;	/* this process publishes a hold */

/*
 * Processes that may scan: every PGPROC (also the count of the processes'
 * lines, pager.c).
 */
int
pager_proc_slots(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

/* Shared memory the holds need. */
Size
pager_hold_shmem_size(void)
{
	return MAXALIGN(mul_size(pager_proc_slots(), sizeof(PagerProcHolds)));
}

/* Set up the holds in the shared memory at place (first start only). */
void
pager_hold_shmem_init(void *place)
{
	pager_shared->holds = (PagerProcHolds *) place;
	pager_shared->nholds = pager_proc_slots();
	pg_atomic_init_u64(&pager_shared->hold_epoch, 1);
	for (int i = 0; i < pager_shared->nholds; i++)
	{
		SpinLockInit(&pager_shared->holds[i].mutex);
		pager_shared->holds[i].nfiles = 0;
	}
}

/* Is a the same file as b, or does either stand for any file? */
static bool
hold_file_matches(const ArtFileId *a, const ArtFileId *b)
{
	if (a->relNumber == 0 || b->relNumber == 0)
		return true;
	return a->dbOid == b->dbOid && a->relNumber == b->relNumber &&
		a->generation == b->generation;
}

/*
 * Publish, per file, the least epoch of this process's holds; the files
 * past PAGER_HOLD_FILES - 1 share the last entry as "any file".
 */
static pg_attribute_hot void
hold_publish(void)
{
	ArtFileId	files[PAGER_HOLD_FILES];
	uint64		least[PAGER_HOLD_FILES];
	int			n = 0;
	PagerProcHolds *ph = &pager_shared->holds[MyProc->pgprocno];

	for (int i = 0; i < local_nholds; i++)
	{
		int			j;

		if (local_holds[i].epoch == 0)
			continue;
		for (j = 0; j < n; j++)
			if (hold_file_matches(&files[j], &local_holds[i].file))
				break;
		if (j < n)
			least[j] = Min(least[j], local_holds[i].epoch);
		else
		{
			/* The last entry, once reached, stands for every other file. */
			if (n < PAGER_HOLD_FILES - 1)
				files[n] = local_holds[i].file;
			else
				memset(&files[n], 0, sizeof(ArtFileId));
			least[n++] = local_holds[i].epoch;
		}
	}

	SpinLockAcquire(&ph->mutex);
	GET_VXID_FROM_PGPROC(ph->vxid, *MyProc);
	ph->nfiles = n;
	memcpy(ph->file, files, sizeof(ArtFileId) * n);
	memcpy(ph->epoch, least, sizeof(uint64) * n);
	SpinLockRelease(&ph->mutex);
	local_published = (n > 0);
}

/*
 * A resource owner released by an abort: the scans that took their holds
 * under it end without their endscan, so their holds end here.
 */
static pg_attribute_hot void
hold_release_callback(ResourceReleasePhase phase, bool isCommit,
					  bool isTopLevel, void *arg)
{
	bool		changed = false;

	if (phase != RESOURCE_RELEASE_BEFORE_LOCKS || isCommit)
		return;
	for (int i = 0; i < local_nholds; i++)
	{
		if (!local_holds[i].used || local_holds[i].owner != CurrentResourceOwner)
			continue;
		changed |= local_holds[i].epoch != 0;
		memset(&local_holds[i], 0, sizeof(LocalHold));
	}
	if (changed)
		hold_publish();
}

/*
 * A new hold for a scan of file, holding nothing yet; returns its number.
 * It belongs to the current resource owner.
 */
pg_attribute_hot int
pager_hold_create(PagerFile *file)
{
	int			i;

	if (!release_callback_set)
	{
		RegisterResourceReleaseCallback(hold_release_callback, NULL);
		release_callback_set = true;
	}
	for (i = 0; i < local_nholds; i++)
		if (!local_holds[i].used)
			break;
	if (i == local_nholds)
	{
		int			n = local_nholds ? local_nholds * 2 : 8;

		if (local_holds == NULL)
			local_holds = MemoryContextAlloc(TopMemoryContext,
											 sizeof(LocalHold) * n);
		else
			local_holds = repalloc(local_holds, sizeof(LocalHold) * n);
		memset(local_holds + local_nholds, 0,
			   sizeof(LocalHold) * (n - local_nholds));
		local_nholds = n;
	}
	local_holds[i].used = true;
	local_holds[i].file = file->id;
	local_holds[i].epoch = 0;
	local_holds[i].owner = CurrentResourceOwner;
	return i;
}

/*
 * Before a scan reads a batch: hold the current epoch.  The batch then
 * lacks every entry removed by a bulk delete that is not waiting for it.
 * A hold at the current epoch already (the scan's batch before this one
 * read since no bump) is published as it is: every change to this
 * process's holds publishes them, so publishing again would write the
 * same, and a bump after the read finds it below the new epoch.
 */
pg_attribute_hot void
pager_hold_refresh(int hold)
{
	for (;;)
	{
		uint64		epoch = pg_atomic_read_u64(&pager_shared->hold_epoch);

		if (local_holds[hold].epoch == epoch)
			return;
		local_holds[hold].epoch = epoch;
		hold_publish();
		pg_memory_barrier();
		if (pg_atomic_read_u64(&pager_shared->hold_epoch) == epoch)
			return;
	}
}

/*
 * A scan that returns nothing more from a batch (at its end): its hold no
 * longer keeps bulk deletes waiting until it reads a batch again.
 */
pg_attribute_hot void
pager_hold_clear(int hold)
{
	if (hold >= 0 && hold < local_nholds && local_holds[hold].epoch != 0)
	{
		local_holds[hold].epoch = 0;
		hold_publish();
	}
}

/*
 * A scan's end: give its hold back.
 */
pg_attribute_hot void
pager_hold_drop(int hold)
{
	pager_hold_clear(hold);
	if (hold >= 0 && hold < local_nholds)
		local_holds[hold].used = false;
}

/*
 * The end of the transaction: no scan is left.  The published holds are
 * cleared only if there are any (a scan that ended normally cleared its
 * own).
 */
pg_attribute_hot void
pager_hold_release_all(void)
{
	PagerProcHolds *ph;

	if (local_nholds == 0)
		return;
	memset(local_holds, 0, sizeof(LocalHold) * local_nholds);
	if (!local_published)
		return;
	ph = &pager_shared->holds[MyProc->pgprocno];
	SpinLockAcquire(&ph->mutex);
	ph->nfiles = 0;
	SpinLockRelease(&ph->mutex);
	local_published = false;
}

/*
 * Does process i hold file at an epoch below epoch?
 */
static bool
hold_blocks(int i, const ArtFileId *file, uint64 epoch)
{
	PagerProcHolds *ph = &pager_shared->holds[i];
	bool		blocks = false;

	SpinLockAcquire(&ph->mutex);
	for (int j = 0; j < ph->nfiles && !blocks; j++)
		blocks = ph->epoch[j] < epoch && hold_file_matches(&ph->file[j], file);
	SpinLockRelease(&ph->mutex);
	return blocks;
}

/*
 * A bulk delete's deletions are done: the epoch that every scan of the
 * file that may still return a removed entry holds less than.
 */
uint64
pager_hold_advance(void)
{
	return pg_atomic_add_fetch_u64(&pager_shared->hold_epoch, 1);
}

/* Room pager_hold_blockers needs: one per process that may scan. */
int
pager_hold_max_blockers(void)
{
	return pager_shared->nholds;
}

/*
 * The transactions of the other processes that hold file at an epoch
 * below epoch, into vxids; returns how many.
 */
int
pager_hold_blockers(const ArtFileId *file, uint64 epoch,
					VirtualTransactionId *vxids)
{
	int			n = 0;

	for (int i = 0; i < pager_shared->nholds; i++)
	{
		PagerProcHolds *ph = &pager_shared->holds[i];
		bool		blocks = false;

		if (i == MyProc->pgprocno)
			continue;
		SpinLockAcquire(&ph->mutex);
		for (int j = 0; j < ph->nfiles && !blocks; j++)
			blocks = ph->epoch[j] < epoch && hold_file_matches(&ph->file[j], file);
		if (blocks)
			vxids[n++] = ph->vxid;
		SpinLockRelease(&ph->mutex);
	}
	return n;
}

/*
 * After a bulk delete removed entries from file: wait until no other
 * process's scan of that file may still return one of them from a batch
 * read before.
 */
void
pager_hold_wait(PagerFile *file)
{
	uint64		epoch = pager_hold_advance();

	for (int i = 0; i < pager_shared->nholds; i++)
	{
		if (i == MyProc->pgprocno)
			continue;
		while (hold_blocks(i, &file->id, epoch))
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 1L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}
