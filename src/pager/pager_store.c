/*-------------------------------------------------------------------------
 *
 * pager_store.c
 *	  The page store the trie runs on (src/trie/trie_page.h), over a
 *	  backend's handle on a file.
 *
 * Each operation resolves the PagerFile handle to its file slot
 * (pager_slot, which reopens the file if its slot was reused) and then
 * works on (slot, page number) through the pool: a pin, the page's
 * content lock in the mode the trie asks for, the file's write gate for
 * exclusive locks, a frame for a new page; logical pages come from the
 * space layer.  Memory is palloc'd, so that an ERROR frees it.
 *
 * Layer: above the file table; calls pager_file.c, pager_cow.c,
 * pager_pool.c and pager_space.c.  Called by the trie (through pager_page_store) and by
 * the copy functions (pager_copy.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_cow.h"
#include "pager/pager_file.h"
#include "pager/pager_pool.h"
#include "pager/pager_space.h"

#include <sys/stat.h>

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/hsearch.h"
#include "utils/wait_event.h"

/*
 * A page reference's handle: frame + 1, and whether it is exclusive, or
 * unlocked (pinned only, see pager_unlock), and whether its exclusive hold
 * changed only counts (pager_mark_counts).
 */
#define REF_EXCLUSIVE		((intptr_t) 1 << 30)
#define REF_UNLOCKED		((intptr_t) 1 << 29)
#define REF_COUNTS			((intptr_t) 1 << 28)
#define REF_FLAGS			(REF_EXCLUSIVE | REF_UNLOCKED | REF_COUNTS)

/*
 * Fill a page reference for a pinned, locked frame.
 */
static void
pager_fill_ref(ArtPageRef *ref, int frame, ArtPageNo pageno, bool exclusive)
{
	ref->pageno = pageno;
	ref->data = (uint8_t *) pager_frame_data(frame);
	ref->handle = (void *) ((intptr_t) (frame + 1) | (exclusive ? REF_EXCLUSIVE : 0));
}

/* A reference's frame. */
static inline int
ref_frame(const ArtPageRef *ref)
{
	return (int) (((intptr_t) ref->handle & ~REF_FLAGS) - 1);
}

/* Does a reference hold its page exclusive? */
static inline bool
ref_exclusive(const ArtPageRef *ref)
{
	return ((intptr_t) ref->handle & REF_EXCLUSIVE) != 0;
}

/*
 * Before the lock of ref is let go: the end of an exclusive hold counts
 * in the frame's changes, unless the hold only grew counts.
 */
static inline void
ref_hold_ends(const ArtPageRef *ref, PagerFrame *f)
{
	if (((intptr_t) ref->handle & (REF_EXCLUSIVE | REF_COUNTS)) == REF_EXCLUSIVE)
		f->changes++;
}

/*
 * ArtPageStoreOps.pin.  A process inside the file's write gate (it may
 * change pages) first lets a page of a running checkpoint's set leave it
 * (pager_ckpt_settle), so that it never changes the snapshot's contents
 * before they are copied out for the checkpoint.
 */
static pg_attribute_hot ArtStatus
pager_pin(void *store, ArtPageNo pageno, ArtLockMode mode, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);
	int			frame;

	bool		exclusive = (mode == ART_LOCK_EXCLUSIVE);

	if (pageno >= fs->nlogical)
		pager_corrupt(fs, pageno, psprintf("the file has only %u pages", fs->nlogical));
	if (exclusive)
		pager_gate_enter(file->slot, false);
	frame = pager_get_page(fs, file->slot, pageno);
	if (exclusive || pager_gate_held(file->slot))
		pager_ckpt_settle(file->slot, frame);
	LWLockAcquire(&pager_shared->frames[frame].content,
				  exclusive ? LW_EXCLUSIVE : LW_SHARED);
	pager_fill_ref(ref, frame, pageno, exclusive);
	return ART_OK;
}

/*
 * ArtPageStoreOps.release
 */
static pg_attribute_hot void
pager_release(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	int			frame = ref_frame(ref);

	if (!((intptr_t) ref->handle & REF_UNLOCKED))
	{
		ref_hold_ends(ref, &pager_shared->frames[frame]);
		LWLockRelease(&pager_shared->frames[frame].content);
	}
	pager_unpin(frame);
	if (ref_exclusive(ref))
		pager_gate_exit(file->slot);
	ref->data = NULL;
	ref->handle = NULL;
}

/*
 * ArtPageStoreOps.unlock: the frame stays pinned, so it keeps its page
 * and pinning it again finds it in the pool.
 */
static void
pager_unlock(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	int			frame = ref_frame(ref);

	Assert(!((intptr_t) ref->handle & REF_UNLOCKED));
	ref_hold_ends(ref, &pager_shared->frames[frame]);
	LWLockRelease(&pager_shared->frames[frame].content);
	if (ref_exclusive(ref))
		pager_gate_exit(file->slot);
	ref->handle = (void *) ((intptr_t) (frame + 1) | REF_UNLOCKED);
}

/*
 * ArtPageStoreOps.relock: the frame is pinned, so it holds the page still;
 * an exclusive lock enters the write gate as pager_pin does.
 */
static void
pager_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	int			frame = ref_frame(ref);
	bool		exclusive = (mode == ART_LOCK_EXCLUSIVE);

	Assert((intptr_t) ref->handle & REF_UNLOCKED);
	if (exclusive)
		pager_gate_enter(file->slot, false);
	if (exclusive || pager_gate_held(file->slot))
		pager_ckpt_settle(file->slot, frame);
	LWLockAcquire(&pager_shared->frames[frame].content,
				  exclusive ? LW_EXCLUSIVE : LW_SHARED);
	ref->handle = (void *) ((intptr_t) (frame + 1) | (exclusive ? REF_EXCLUSIVE : 0));
}

/*
 * ArtPageStoreOps.try_relock: pager_relock with the write gate and the
 * content lock taken only if they are free, and no lock if the frame is
 * in a checkpoint's set (letting it leave may wait).  A caller holding
 * another page of the file exclusive is inside the gate already.
 */
static bool
pager_try_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	int			frame = ref_frame(ref);
	bool		exclusive = (mode == ART_LOCK_EXCLUSIVE);

	Assert((intptr_t) ref->handle & REF_UNLOCKED);
	if (exclusive && !pager_gate_enter(file->slot, true))
		return false;
	if (((exclusive || pager_gate_held(file->slot)) &&
		 pager_ckpt_in_set(frame)) ||
		!LWLockConditionalAcquire(&pager_shared->frames[frame].content,
								  exclusive ? LW_EXCLUSIVE : LW_SHARED))
	{
		if (exclusive)
			pager_gate_exit(file->slot);
		return false;
	}
	ref->handle = (void *) ((intptr_t) (frame + 1) | (exclusive ? REF_EXCLUSIVE : 0));
	return true;
}

/*
 * ArtPageStoreOps.mark_dirty.  The file's changed flag is written only
 * when it is not set yet, so that writers of one file do not take turns
 * owning its cache line; inside the write gate, which every exclusive
 * lock holds, no checkpoint clears it meanwhile.  Likewise a frame that
 * is dirty already is left alone without its header lock: its dirty flag
 * is cleared only by a checkpoint taking it (under the file's gate held
 * exclusive), an eviction write (under the page's content lock) or a
 * free (by the holder of the page's exclusive lock), none of which can
 * run while the caller holds the page exclusive inside the gate.
 */
static void
pager_mark_dirty(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFrame *f = &pager_shared->frames[ref_frame(ref)];
	bool		was_clean;

	Assert(ref_exclusive(ref) && LWLockHeldByMeInMode(&f->content, LW_EXCLUSIVE));
	Assert(pager_gate_held(file->slot));
	Assert(!(f->flags & FRAME_CKPT));
	if (!pager_shared->files[file->slot].changed)
		pager_shared->files[file->slot].changed = true;
	if (f->flags & FRAME_DIRTY)
		return;
	pager_frame_lock(f);
	was_clean = !(f->flags & FRAME_DIRTY);
	f->flags |= FRAME_DIRTY;
	pager_frame_unlock(f);
	if (was_clean)
		pager_count_dirty();
}

/*
 * ArtPageStoreOps.mark_counts: mark_dirty, and the hold's end leaves the
 * frame's changes as they are.
 */
static void
pager_mark_counts(void *store, ArtPageRef *ref)
{
	pager_mark_dirty(store, ref);
	ref->handle = (void *) ((intptr_t) ref->handle | REF_COUNTS);
}

/*
 * ArtPageStoreOps.changes: the caller holds the page locked, so no
 * exclusive hold of another ends meanwhile.
 */
static uint32_t
pager_changes(void *store, ArtPageRef *ref)
{
	PagerFrame *f = &pager_shared->frames[ref_frame(ref)];

	Assert(!((intptr_t) ref->handle & REF_UNLOCKED) &&
		   LWLockHeldByMe(&f->content));
	return f->changes;
}

/*
 * ArtPageStoreOps.alloc: a zeroed page, pinned and locked exclusive.
 */
static ArtStatus
pager_alloc(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);
	int			victim;
	int			frame;
	ArtPageNo	pageno = ART_INVALID_PAGENO;
	PagerTag	tag;
	uint32		hash;
	LWLock	   *part;
	PagerLookup *ent;
	bool		found;
	PagerFrame *f;
	char	   *data;

	pager_gate_enter(file->slot, false);
	victim = pager_victim();
	frame = victim;
	PG_TRY();
	{
		pageno = pager_logical_alloc(fs);
	}
	PG_CATCH();
	{
		pager_scratch_put(victim);
		PG_RE_THROW();
	}
	PG_END_TRY();

	memset(&tag, 0, sizeof(tag));
	tag.fileslot = file->slot;
	tag.pageno = pageno;
	part = pager_partition(&tag, &hash);
	LWLockAcquire(part, LW_EXCLUSIVE);
	ent = hash_search_with_hash_value(pager_table, &tag, hash, HASH_ENTER, &found);
	if (found)
	{
		/* A stale frame of the page when it was last freed: reuse it. */
		frame = ent->frame;
		f = &pager_shared->frames[frame];
		pager_frame_lock(f);
		Assert(!(f->flags & FRAME_CKPT));
		pg_atomic_fetch_add_u32(&f->state, FRAME_REFCOUNT_ONE);
		pager_frame_set_usage(f, 1);
		f->flags |= FRAME_VALID;
		pager_frame_unlock(f);
		pager_local_pin_add(frame);
		LWLockRelease(part);
		pager_scratch_put(victim);
	}
	else
	{
		ent->frame = victim;
		f = &pager_shared->frames[victim];
		pager_frame_lock(f);
		f->fileslot = file->slot;
		f->pageno = pageno;
		f->flags = FRAME_TAG_VALID | FRAME_VALID;
		pager_frame_set_usage(f, 1);
		pager_frame_unlock(f);
		LWLockRelease(part);
	}

	LWLockAcquire(&f->content, LW_EXCLUSIVE);
	pager_frame_populate(frame);
	data = pager_frame_data(frame);
	memset(data, 0, ART_PAGE_SIZE);
	((PagerPageHeader *) data)->pageno = pageno;
	pager_fill_ref(ref, frame, pageno, true);
	pager_mark_dirty(store, ref);
	return ART_OK;
}

/*
 * ArtPageStoreOps.free: the caller holds the page exclusive.
 */
static void
pager_free(void *store, ArtPageRef *ref)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];
	int			frame = ref_frame(ref);
	PagerFrame *f = &pager_shared->frames[frame];
	bool		was_dirty;

	Assert(ref_exclusive(ref) && LWLockHeldByMeInMode(&f->content, LW_EXCLUSIVE));
	pager_frame_lock(f);
	was_dirty = (f->flags & FRAME_DIRTY) != 0;
	f->flags &= ~FRAME_DIRTY;
	pager_frame_set_usage(f, 0);
	pager_frame_unlock(f);
	if (was_dirty)
		pg_atomic_fetch_sub_u32(&pager_shared->ndirty, 1);
	pager_logical_free(fs, ref->pageno);
	pager_release(store, ref);
}

/*
 * ArtPageStoreOps.mem_alloc: memory an ERROR frees with its context.
 */
static pg_attribute_hot void *
pager_mem_alloc(void *store, size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE);
}

/*
 * ArtPageStoreOps.mem_free
 */
static pg_attribute_hot void
pager_mem_free(void *store, void *ptr)
{
	if (ptr)
		pfree(ptr);
}

/*
 * ArtPageStoreOps.write_begin: the file's writers lock; a share holder
 * also enters the write gate for the whole change, so that a checkpoint
 * never sees one half done between the trie's two passes.
 */
static void
pager_write_begin(void *store, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);

	if (mode == ART_LOCK_EXCLUSIVE)
	{
		LWLockAcquire(&fs->writers, LW_EXCLUSIVE);
		return;
	}
	LWLockAcquire(&fs->writers, LW_SHARED);
	pager_gate_enter(file->slot, false);
}

/*
 * ArtPageStoreOps.write_end
 */
static void
pager_write_end(void *store, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	if (mode != ART_LOCK_EXCLUSIVE)
		pager_gate_exit(file->slot);
	LWLockRelease(&fs->writers);
}

/*
 * ArtPageStoreOps.split_begin: the file's split lock.  The caller holds
 * the write section (and so the write gate) but no page lock.
 */
static void
pager_split_begin(void *store, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = pager_slot(file);

	LWLockAcquire(&fs->splits,
				  mode == ART_LOCK_EXCLUSIVE ? LW_EXCLUSIVE : LW_SHARED);
}

/*
 * ArtPageStoreOps.split_end
 */
static void
pager_split_end(void *store, ArtLockMode mode)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	Assert(LWLockHeldByMeInMode(&fs->splits,
								mode == ART_LOCK_EXCLUSIVE ? LW_EXCLUSIVE : LW_SHARED));
	LWLockRelease(&fs->splits);
}

/*
 * ArtPageStoreOps.passing: count this pin of the page in the frame's
 * passers, or no longer; a pin released at abort stops counting.
 */
static void
pager_passing(void *store, ArtPageRef *ref, bool on)
{
	pager_local_pin_mark(ref_frame(ref), false, on ? 1 : -1);
}

/*
 * ArtPageStoreOps.passers: the caller holds the page exclusive.
 */
static uint32_t
pager_passers(void *store, ArtPageRef *ref)
{
	Assert(ref_exclusive(ref));
	Assert(LWLockHeldByMeInMode(&pager_shared->frames[ref_frame(ref)].content,
								LW_EXCLUSIVE));
	return pg_atomic_read_u32(&pager_shared->frames[ref_frame(ref)].passers);
}

/*
 * ArtPageStoreOps.split_mark: count this pin of the page in the frame's
 * split marks (on, the page held exclusive), or no longer; a pin released
 * at abort stops counting, and wakes who waits for the marks to go.
 */
static void
pager_split_mark(void *store, ArtPageRef *ref, bool on)
{
	Assert(!on || (ref_exclusive(ref) &&
				   LWLockHeldByMeInMode(&pager_shared->frames[ref_frame(ref)].content,
										LW_EXCLUSIVE)));
	pager_local_pin_mark(ref_frame(ref), true, on ? 1 : -1);
}

/*
 * ArtPageStoreOps.split_marks: the caller holds the page locked, so no
 * mark comes meanwhile (one is set only under the page's exclusive lock).
 */
static uint32_t
pager_split_marks(void *store, ArtPageRef *ref)
{
	PagerFrame *f = &pager_shared->frames[ref_frame(ref)];

	Assert(!((intptr_t) ref->handle & REF_UNLOCKED) &&
		   LWLockHeldByMe(&f->content));
	return pg_atomic_read_u32(&f->split_marks);
}

/*
 * Sleep until counter, the passers or the split marks of the frame of
 * ref (pinned, unlocked), is zero, woken through the file's split_cv
 * (pager_pool.c broadcasts when a marked frame's passers or a frame's
 * marks drop to zero).  The caller holds no page lock and not the split
 * section; the insert's write section holds off interrupts, as a wait
 * for an LWLock would, and what it waits for only finishes.
 */
static ArtStatus
pager_split_wait(void *store, ArtPageRef *ref, pg_atomic_uint32 *counter)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	Assert((intptr_t) ref->handle & REF_UNLOCKED);
	Assert(!LWLockHeldByMe(&fs->splits));
	ConditionVariablePrepareToSleep(&fs->split_cv);
	while (pg_atomic_read_u32(counter) != 0)
		ConditionVariableSleep(&fs->split_cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	return ART_OK;
}

/*
 * ArtPageStoreOps.wait_passers: this process marked the page, so no
 * insert starts to pass it and the passers only finish.
 */
static ArtStatus
pager_wait_passers(void *store, ArtPageRef *ref)
{
	return pager_split_wait(store, ref,
							&pager_shared->frames[ref_frame(ref)].passers);
}

/*
 * ArtPageStoreOps.wait_unmarked
 */
static ArtStatus
pager_wait_unmarked(void *store, ArtPageRef *ref)
{
	return pager_split_wait(store, ref,
							&pager_shared->frames[ref_frame(ref)].split_marks);
}

/*
 * ArtPageStoreOps.step_done: between two steps of a walk no lock is held,
 * so a cancel, a recovery conflict or a shutdown ends the walk here.
 * Under artrie.test_walk_pause the walk also logs that it pauses, and
 * waits while the file artrie_walk_pause exists in the data directory.
 */
static void
pager_step_done(void *store)
{
	struct stat st;

	CHECK_FOR_INTERRUPTS();
	if (!pager_test_walk_pause || stat("artrie_walk_pause", &st) != 0)
		return;
	ereport(LOG,
			(errmsg("artrie walk of file \"%s\" pauses between two steps",
					pager_slot((PagerFile *) store)->path)));
	while (stat("artrie_walk_pause", &st) == 0)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	ereport(LOG,
			(errmsg("artrie walk of file \"%s\" resumes",
					pager_slot((PagerFile *) store)->path)));
}

/*
 * ArtPageStoreOps.allocated: the page map holds the logical page, written
 * or not yet (pager_free marks it free).
 */
static bool
pager_allocated(void *store, ArtPageNo pageno)
{
	PagerFile  *file = (PagerFile *) store;

	return pager_map_get(pager_slot(file), pageno, NULL) != PAGER_PHYS_FREE;
}

/*
 * Under artrie.test_insert_pause: an insert about to begin its second
 * pass (the one critical stretch of the trie) logs that it pauses and
 * waits while the file artrie_insert_pause_<value> exists in the data
 * directory, at most 10 minutes.  Its first pass changed the index, so
 * the pause checks no interrupt.
 */
static void
pager_insert_pause(PagerFile *file)
{
	char		path[MAXPGPATH];
	struct stat st;

	snprintf(path, sizeof(path), "artrie_insert_pause_%s",
			 pager_test_insert_pause);
	if (stat(path, &st) != 0)
		return;
	ereport(LOG,
			(errmsg("artrie insert into file \"%s\" pauses between its passes",
					pager_shared->files[file->slot].path)));
	for (int i = 0; i < 60000 && stat(path, &st) == 0; i++)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	ereport(LOG,
			(errmsg("artrie insert into file \"%s\" resumes",
					pager_shared->files[file->slot].path)));
}

/*
 * ArtPageStoreOps.critical: a critical section.  The trie pins there
 * only pages it keeps pinned, which are in the pool, so no read, free
 * frame or eviction write can fail in it; a page of a checkpoint's set
 * left the set when the first pass pinned it inside the write gate
 * (pager_pin), and if not, the pin waits for the checkpoint to copy it
 * out rather than take a spare frame; an ERROR there all the same (a
 * bug) becomes a PANIC and crash recovery replays the file from its
 * checkpoint and the WAL, where the change half made in shared memory is
 * not.
 */
static void
pager_critical(void *store, bool on)
{
	if (on)
	{
		if (pager_test_insert_pause[0] != '\0')
			pager_insert_pause((PagerFile *) store);
		pager_pin_reserve();
		START_CRIT_SECTION();
	}
	else
		END_CRIT_SECTION();
}

/*
 * ArtPageStoreOps.version: a counter per file slot in shared memory, for
 * both tries of the file.  The full barriers of the atomic add and of the
 * page locks around a read order it with the changes it stands for.
 */
static uint64_t
pager_version(void *store, bool bump)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	if (bump)
		return pg_atomic_add_fetch_u64(&fs->version, 1);
	pg_memory_barrier();
	return pg_atomic_read_u64(&fs->version);
}

/*
 * ArtPageStoreOps.groups_add: a counter per file slot in shared memory
 * (an atomic add, no lock), inside the write section, whose gate keeps a
 * checkpoint from taking the pages without the count that goes with them
 * (pager_user_words).
 */
static void
pager_groups_add(void *store, int64_t delta)
{
	PagerFile  *file = (PagerFile *) store;
	PagerFileSlot *fs = &pager_shared->files[file->slot];

	Assert(LWLockHeldByMe(&fs->writers));
	pg_atomic_fetch_add_u64(&fs->groups, delta);
}

/*
 * ArtPageStoreOps.groups
 */
static uint64_t
pager_groups(void *store)
{
	PagerFile  *file = (PagerFile *) store;

	return pg_atomic_read_u64(&pager_shared->files[file->slot].groups);
}

/*
 * ArtPageStoreOps.pins_era: how many times this process dropped all its
 * pins (pager_release_all).
 */
static uint64_t
pager_pins_era_op(void *store)
{
	return pager_pins_era();
}

static const ArtPageStoreOps pager_store_ops = {
	.pin = pager_pin,
	.release = pager_release,
	.unlock = pager_unlock,
	.relock = pager_relock,
	.try_relock = pager_try_relock,
	.mark_dirty = pager_mark_dirty,
	.alloc = pager_alloc,
	.free = pager_free,
	.mem_alloc = pager_mem_alloc,
	.mem_free = pager_mem_free,
	.write_begin = pager_write_begin,
	.write_end = pager_write_end,
	.split_begin = pager_split_begin,
	.split_end = pager_split_end,
	.passing = pager_passing,
	.passers = pager_passers,
	.split_mark = pager_split_mark,
	.split_marks = pager_split_marks,
	.wait_passers = pager_wait_passers,
	.wait_unmarked = pager_wait_unmarked,
	.step_done = pager_step_done,
	.allocated = pager_allocated,
	.critical = pager_critical,
	.version = pager_version,
	.groups_add = pager_groups_add,
	.groups = pager_groups,
	.changes = pager_changes,
	.mark_counts = pager_mark_counts,
	.pins_era = pager_pins_era_op,
};

/*
 * The file as a page store for the trie.
 */
pg_attribute_hot ArtPageStore
pager_page_store(PagerFile *file)
{
	ArtPageStore store;

	store.ops = &pager_store_ops;
	store.store = file;
	return store;
}
