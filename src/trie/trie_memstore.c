/*-------------------------------------------------------------------------
 *
 * trie_memstore.c
 *	  The in-memory page store (tests, fuzzing, benchmarks only).
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trie_memstore.h"

typedef struct MemPage
{
	uint8_t    *data;
	int			shared;			/* share pins held */
	bool		exclusive;		/* an exclusive pin is held */
	int			kept;			/* pins held unlocked (see unlock) */
	int			readers;		/* of them, kept by readers (kept_by_reader) */
	int			passers;		/* pins marked passing */
	int			marks;			/* pins marked for a split (split_mark) */
	uint32_t	changes;		/* exclusive holds ended (changes) */
	bool		counts_only;	/* this exclusive hold: mark_counts */
	bool		allocated;
} MemPage;

struct ArtMemStore
{
	MemPage    *pages;
	uint32_t	npages;			/* pages ever created */
	uint32_t	cap;
	uint32_t   *freelist;
	uint32_t	nfree;
	uint64_t	live;
	int			pinned;
	int			readers;		/* of them, kept by readers (MemPage.readers) */
	int			locked;			/* pins holding a lock */
	int			max_locked;		/* most locked at once (art_memstore_max_locked) */
	int			writers;		/* write sections held in share mode */
	bool		writer_excl;	/* a write section held exclusive */
	int			splitters;		/* split sections held (either mode) */
	uint64_t	split_sections;	/* split sections entered exclusive */
	uint64_t	pins;			/* pin calls that pinned a page */
	uint64_t	relocks;		/* relock calls (art_memstore_relocks) */
	uint64_t	tries;			/* try_relock calls */
	uint64_t	refuse_tries;	/* see art_memstore_refuse_tries */
	bool		critical;		/* inside a critical stretch */
	bool		strict;			/* see art_memstore_strict */
	bool		refuse_waits;	/* see art_memstore_refuse_waits */
	bool		refusing;		/* a split section that would wait is held */
	uint64_t	refused;		/* split sections that would have waited */
	uint64_t	waits;			/* wait_passers and wait_unmarked calls */
	void		(*wait_hook) (void *arg);
	void	   *wait_arg;
	bool		in_wait_hook;
	void		(*step_hook) (void *arg);
	void	   *step_arg;
	void		(*unlock_hook) (void *arg);
	void	   *unlock_arg;
	bool		in_unlock_hook;
	void		(*relock_hook) (void *arg, ArtPageNo pageno);
	void	   *relock_arg;
	bool		in_relock_hook;
	void		(*pin_hook) (void *arg);
	void	   *pin_arg;
	bool		in_pin_hook;
	uint64_t	version;		/* the tries' content version */
	uint64_t	pins_era;		/* see art_memstore_drop_kept */
	uint64_t	groups;			/* the group count (groups_add) */
	long		budget;			/* calls left before failing; -1: never */
	uint64_t	mem_allocs;		/* mem_alloc calls (art_memstore_mem_allocs) */
	bool		fail_mem;
	bool		failed;
	const char *violation;
};

/*
 * Whether a pin kept unlocked, or being kept, is a reader's: one made and
 * ended outside any write section (a cursor's kept between its calls, as
 * another session's would be).  A writer may free a page a reader keeps
 * pinned, as the pager lets it; the pin stays until the reader ends it.
 */
static bool
kept_by_reader(const ArtMemStore *ms)
{
	return ms->writers == 0 && !ms->writer_excl;
}

/* Record the first locking-rule violation. */
static void
violate(ArtMemStore *ms, const char *what)
{
	if (ms->violation == NULL)
		ms->violation = what;
}

/* The handle of a reference that unlock left pinned only. */
#define KEPT_HANDLE		((void *) 1)

/*
 * Whether an injected failure is due now.  Inside a critical stretch only
 * a strict store injects, and records that as a violation.
 */
static bool
inject(ArtMemStore *ms)
{
	if (ms->budget < 0 || (ms->critical && !ms->strict))
		return false;
	if (ms->budget == 0)
	{
		ms->failed = true;
		if (ms->critical)
			violate(ms, "a store call failed in a critical stretch");
		return true;
	}
	ms->budget--;
	return false;
}

/*
 * An exclusive hold of a page ends: it counts in the page's changes
 * unless it changed only counts (mark_counts).
 */
static void
end_exclusive(MemPage *p)
{
	p->exclusive = false;
	if (!p->counts_only)
		p->changes++;
	p->counts_only = false;
}

/* Count a locked page. */
static void
count_lock(ArtMemStore *ms)
{
	ms->locked++;
	if (ms->locked > ms->max_locked)
		ms->max_locked = ms->locked;
}

/* Count a new pin and describe the page in ref. */
static void
fill_ref(ArtMemStore *ms, ArtPageNo pageno, ArtPageRef *ref)
{
	ms->pinned++;
	count_lock(ms);
	ref->pageno = pageno;
	ref->data = ms->pages[pageno].data;
	ref->handle = NULL;
}

/*
 * A writer let go of a page it held exclusive (unlocked, still pinned, or
 * freed): if it now holds none, inside its write section, run the hook a
 * test set (art_memstore_set_unlock_hook), as readers in other sessions
 * would run then.
 */
static void
writer_between(ArtMemStore *ms)
{
	if (ms->unlock_hook == NULL || ms->in_unlock_hook || ms->locked > 0 ||
		(ms->writers == 0 && !ms->writer_excl))
		return;
	ms->in_unlock_hook = true;
	ms->unlock_hook(ms->unlock_arg);
	ms->in_unlock_hook = false;
}

/*
 * pin: check the locking rules, then lock.  A page some reference keeps
 * pinned (unlock) is in memory: its pin cannot fail.
 */
static ArtStatus
mem_pin(void *store, ArtPageNo pageno, ArtLockMode mode, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p;

	if (pageno >= ms->npages || !ms->pages[pageno].allocated)
	{
		violate(ms, "pin of a page that is not allocated");
		return ART_IO_ERROR;
	}
	if (ms->pin_hook != NULL && !ms->in_pin_hook &&
		(ms->writers > 0 || ms->writer_excl))
	{
		ms->in_pin_hook = true;
		ms->pin_hook(ms->pin_arg);
		ms->in_pin_hook = false;
	}
	p = &ms->pages[pageno];
	if (p->kept == 0 && ms->refusing)
		return ART_IO_ERROR;
	if (p->kept == 0)
	{
		if (ms->critical && ms->strict)
			violate(ms, "pin of a page not kept pinned in a critical stretch");
		if (inject(ms))
			return ART_IO_ERROR;
	}
	if (p->exclusive || (mode == ART_LOCK_EXCLUSIVE && p->shared > 0))
		violate(ms, "page pinned twice with an exclusive lock");
	if (mode == ART_LOCK_EXCLUSIVE)
		p->exclusive = true;
	else
		p->shared++;
	ms->pins++;
	fill_ref(ms, pageno, ref);
	return ART_OK;
}

/* release: drop one lock, or the pin of a reference unlock left. */
static void
mem_release(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (ref->handle == KEPT_HANDLE)
	{
		if (p->kept > 0)
			p->kept--;
		else
			violate(ms, "release of a page not kept pinned");
		if (kept_by_reader(ms) && p->readers > 0)
		{
			p->readers--;
			ms->readers--;
		}
	}
	else if (p->exclusive)
		end_exclusive(p);
	else if (p->shared > 0)
		p->shared--;
	else
		violate(ms, "release of a page that is not pinned");
	if (ref->handle != KEPT_HANDLE)
		ms->locked--;
	ms->pinned--;
}

/* unlock: drop the lock, keep the pin. */
static void
mem_unlock(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];
	bool		exclusive = p->exclusive;

	if (ref->handle == KEPT_HANDLE)
		violate(ms, "unlock of a page not locked");
	else if (p->exclusive)
		end_exclusive(p);
	else if (p->shared > 0)
		p->shared--;
	else
		violate(ms, "unlock of a page that is not pinned");
	ms->locked--;
	p->kept++;
	if (kept_by_reader(ms))
	{
		p->readers++;
		ms->readers++;
	}
	ref->handle = KEPT_HANDLE;
	if (exclusive)
		writer_between(ms);
}

/*
 * Before a reference unlock left pinned only is locked again exclusive:
 * the hook a test set (art_memstore_set_relock_hook).
 */
static void
before_relock(ArtMemStore *ms, ArtPageRef *ref, ArtLockMode mode)
{
	if (mode == ART_LOCK_EXCLUSIVE && ms->relock_hook && !ms->in_relock_hook)
	{
		ms->in_relock_hook = true;
		ms->relock_hook(ms->relock_arg, ref->pageno);
		ms->in_relock_hook = false;
	}
}

/* Lock in mode a reference unlock left pinned only. */
static void
lock_kept(ArtMemStore *ms, ArtPageRef *ref, ArtLockMode mode)
{
	MemPage    *p = &ms->pages[ref->pageno];

	if (ref->handle != KEPT_HANDLE || p->kept == 0)
	{
		violate(ms, "relock of a page not kept pinned");
		return;
	}
	p->kept--;
	if (kept_by_reader(ms) && p->readers > 0)
	{
		p->readers--;
		ms->readers--;
	}
	if (mode == ART_LOCK_EXCLUSIVE)
		p->exclusive = true;
	else
		p->shared++;
	count_lock(ms);
	ref->handle = NULL;
}

/* relock: lock a reference unlock left pinned only. */
static void
mem_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	ms->relocks++;
	before_relock(ms, ref, mode);
	if (p->exclusive || (mode == ART_LOCK_EXCLUSIVE && p->shared > 0))
		violate(ms, "page locked twice with an exclusive lock");
	lock_kept(ms, ref, mode);
}

/*
 * try_relock: relock, unless another pin holds the page in a mode that
 * conflicts (in a real store, another session) or the test refuses this
 * try (art_memstore_refuse_tries).
 */
static bool
mem_try_relock(void *store, ArtPageRef *ref, ArtLockMode mode)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	before_relock(ms, ref, mode);
	ms->tries++;
	if ((ms->refuse_tries > 0 && ms->tries % ms->refuse_tries == 0) ||
		p->exclusive || (mode == ART_LOCK_EXCLUSIVE && p->shared > 0))
		return false;
	lock_kept(ms, ref, mode);
	return true;
}

/* mark_dirty: only checks that the page is locked exclusive. */
static void
mem_mark_dirty(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (!p->exclusive)
		violate(ms, "mark_dirty without an exclusive lock");
}

/* mark_counts: the exclusive hold's end leaves changes as they are. */
static void
mem_mark_counts(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (!p->exclusive || ref->handle == KEPT_HANDLE)
		violate(ms, "mark_counts without an exclusive lock");
	p->counts_only = true;
}

/* changes: of a page the reference holds locked. */
static uint32_t
mem_changes(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (ref->handle == KEPT_HANDLE || (!p->exclusive && p->shared == 0))
		violate(ms, "changes of a page not locked");
	return p->changes;
}

/* alloc: reuse a freed page or make a new one; zeroed, locked exclusive. */
static ArtStatus
mem_alloc_page(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	uint32_t	pageno;
	MemPage    *p;

	if (ms->refusing || inject(ms))
		return ART_NO_SPACE;
	if (ms->nfree > 0)
		pageno = ms->freelist[--ms->nfree];
	else
	{
		if (ms->npages == ms->cap)
		{
			uint32_t	cap = ms->cap ? ms->cap * 2 : 64;
			MemPage    *np = realloc(ms->pages, sizeof(MemPage) * cap);
			uint32_t   *nf = realloc(ms->freelist, sizeof(uint32_t) * cap);

			if (np)
				ms->pages = np;
			if (nf)
				ms->freelist = nf;
			if (np == NULL || nf == NULL)
				return ART_NO_SPACE;
			ms->cap = cap;
		}
		pageno = ms->npages;
		p = &ms->pages[pageno];
		p->data = malloc(ART_PAGE_SIZE);
		if (p->data == NULL)
			return ART_NO_SPACE;
		p->changes = 0;
		p->readers = 0;
		ms->npages++;
	}
	p = &ms->pages[pageno];
	memset(p->data, 0, ART_PAGE_SIZE);
	memset(p->data, 0xA5, ART_PAGE_RESERVED);
	p->allocated = true;
	p->exclusive = true;
	p->shared = 0;
	p->kept = p->readers;
	p->passers = 0;
	p->marks = 0;
	p->changes++;
	p->counts_only = false;
	ms->live++;
	fill_ref(ms, pageno, ref);
	return ART_OK;
}

/* free: poison the page and put it on the free list. */
static void
mem_free_page(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (!p->exclusive)
		violate(ms, "free of a page not locked exclusive");
	if (p->kept > p->readers)
		violate(ms, "free of a page kept pinned");
	if (p->passers > 0)
		violate(ms, "free of a page an insert passes");
	memset(p->data, 0xDB, ART_PAGE_SIZE);
	end_exclusive(p);
	p->allocated = false;
	ms->freelist[ms->nfree++] = ref->pageno;
	ms->live--;
	ms->locked--;
	ms->pinned--;
	writer_between(ms);
}

/* mem_alloc: malloc, unless a failure is injected. */
static void *
mem_alloc_mem(void *store, size_t size)
{
	ArtMemStore *ms = store;

	if (ms->critical)
		violate(ms, "mem_alloc in a critical stretch");
	if (ms->fail_mem && inject(ms))
		return NULL;
	ms->mem_allocs++;
	return malloc(size);
}

/* mem_free: free. */
static void
mem_free_mem(void *store, void *ptr)
{
	(void) store;
	free(ptr);
}

/* write_begin: check that exclusive sections exclude every other. */
static void
mem_write_begin(void *store, ArtLockMode mode)
{
	ArtMemStore *ms = store;

	if (ms->writer_excl || (mode == ART_LOCK_EXCLUSIVE && ms->writers > 0))
		violate(ms, "write section taken while an exclusive one is held");
	if (mode == ART_LOCK_EXCLUSIVE)
		ms->writer_excl = true;
	else
		ms->writers++;
}

/* write_end: leave a write section. */
static void
mem_write_end(void *store, ArtLockMode mode)
{
	ArtMemStore *ms = store;

	if (mode == ART_LOCK_EXCLUSIVE ? !ms->writer_excl : ms->writers == 0)
		violate(ms, "write section left that was not entered");
	if (mode == ART_LOCK_EXCLUSIVE)
		ms->writer_excl = false;
	else
		ms->writers--;
}

/*
 * split_begin: one thread cannot wait, so the sections only count (the
 * unit test that interleaves inserts splits pages between another
 * insert's passes on purpose).
 */
static void
mem_split_begin(void *store, ArtLockMode mode)
{
	ArtMemStore *ms = store;

	if (mode == ART_LOCK_EXCLUSIVE)
	{
		ms->split_sections++;
		if (ms->refuse_waits && ms->splitters > 0)
		{
			ms->refusing = true;
			ms->refused++;
		}
	}
	ms->splitters++;
}

/* split_end: leave a split section. */
static void
mem_split_end(void *store, ArtLockMode mode)
{
	ArtMemStore *ms = store;

	if (mode == ART_LOCK_EXCLUSIVE)
		ms->refusing = false;
	if (ms->splitters == 0)
		violate(ms, "split section left that was not entered");
	else
		ms->splitters--;
}

/* passing: count the pins marked passing; on needs the page locked. */
static void
mem_passing(void *store, ArtPageRef *ref, bool on)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (on && ref->handle == KEPT_HANDLE)
		violate(ms, "passing marked on a page not locked");
	else if (!on && p->passers == 0)
		violate(ms, "passing ended on a page nobody passes");
	else
		p->passers += on ? 1 : -1;
}

/* passers: the pins marked passing, of a page locked exclusive. */
static uint32_t
mem_passers(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (!p->exclusive)
		violate(ms, "passers read without an exclusive lock");
	return (uint32_t) p->passers;
}

/* split_mark: count the pins marked for a split; on needs the page exclusive. */
static void
mem_split_mark(void *store, ArtPageRef *ref, bool on)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (on && (ref->handle == KEPT_HANDLE || !p->exclusive))
		violate(ms, "split mark set without an exclusive lock");
	else if (!on && p->marks == 0)
		violate(ms, "split mark ended on a page nobody marked");
	else
		p->marks += on ? 1 : -1;
}

/* split_marks: the pins marked for a split, of a page locked. */
static uint32_t
mem_split_marks(void *store, ArtPageRef *ref)
{
	ArtMemStore *ms = store;
	MemPage    *p = &ms->pages[ref->pageno];

	if (ref->handle == KEPT_HANDLE || (!p->exclusive && p->shared == 0))
		violate(ms, "split marks read without a lock");
	return (uint32_t) p->marks;
}

/*
 * A wait for a page's passers (marks false) or marks to go.  One thread
 * cannot wait: the hook a test set (art_memstore_set_wait_hook) runs
 * first, as other sessions would run meanwhile (not again for a wait
 * inside it); then the wait ends if nothing is left to wait for, and is
 * refused (art_memstore_refuse_waits) or a violation otherwise.
 */
static ArtStatus
mem_wait(ArtMemStore *ms, ArtPageRef *ref, bool marks)
{
	MemPage    *p = &ms->pages[ref->pageno];

	if (ref->handle != KEPT_HANDLE)
		violate(ms, "wait on a page not kept pinned only");
	if (ms->locked > 0)
		violate(ms, "wait with a page locked");
	ms->waits++;
	if (ms->wait_hook && !ms->in_wait_hook)
	{
		ms->in_wait_hook = true;
		ms->wait_hook(ms->wait_arg);
		ms->in_wait_hook = false;
	}
	if ((marks ? p->marks : p->passers) == 0)
		return ART_OK;
	if (!ms->refuse_waits)
		violate(ms, "a wait that nothing would end");
	ms->refused++;
	return ART_IO_ERROR;
}

/* wait_passers: see mem_wait. */
static ArtStatus
mem_wait_passers(void *store, ArtPageRef *ref)
{
	return mem_wait(store, ref, false);
}

/* wait_unmarked: see mem_wait. */
static ArtStatus
mem_wait_unmarked(void *store, ArtPageRef *ref)
{
	return mem_wait(store, ref, true);
}

/* step_done: run the hook a test set (art_memstore_set_step_hook). */
static void
mem_step_done(void *store)
{
	ArtMemStore *ms = store;

	if (ms->pinned != ms->readers)
		violate(ms, "step_done with pages pinned");
	if (ms->step_hook)
		ms->step_hook(ms->step_arg);
}

/*
 * critical: no failure is injected inside (the pager would PANIC there,
 * which a unit test cannot observe), and memory may not be allocated.
 */
static void
mem_critical(void *store, bool on)
{
	ArtMemStore *ms = store;

	if (ms->critical == on)
		violate(ms, "critical stretch entered twice or left unentered");
	ms->critical = on;
}

/* allocated: the page exists and is not on the free list. */
static bool
mem_allocated(void *store, ArtPageNo pageno)
{
	ArtMemStore *ms = store;

	return pageno < ms->npages && ms->pages[pageno].allocated;
}

/* version: a plain counter. */
static uint64_t
mem_version(void *store, bool bump)
{
	ArtMemStore *ms = store;

	if (bump)
		ms->version++;
	return ms->version;
}

/* pins_era: moved on by art_memstore_drop_kept. */
static uint64_t
mem_pins_era(void *store)
{
	return ((ArtMemStore *) store)->pins_era;
}

/* groups_add: a plain counter, changed only inside a write section. */
static void
mem_groups_add(void *store, int64_t delta)
{
	ArtMemStore *ms = store;

	if (ms->writers == 0 && !ms->writer_excl)
		violate(ms, "group count changed outside a write section");
	if (delta < 0 && (uint64_t) -delta > ms->groups)
		violate(ms, "group count below zero");
	ms->groups += (uint64_t) delta;
}

/* groups: the counter. */
static uint64_t
mem_groups(void *store)
{
	return ((ArtMemStore *) store)->groups;
}

static const ArtPageStoreOps mem_ops = {
	.pin = mem_pin,
	.release = mem_release,
	.unlock = mem_unlock,
	.relock = mem_relock,
	.try_relock = mem_try_relock,
	.mark_dirty = mem_mark_dirty,
	.alloc = mem_alloc_page,
	.free = mem_free_page,
	.mem_alloc = mem_alloc_mem,
	.mem_free = mem_free_mem,
	.write_begin = mem_write_begin,
	.write_end = mem_write_end,
	.split_begin = mem_split_begin,
	.split_end = mem_split_end,
	.passing = mem_passing,
	.passers = mem_passers,
	.split_mark = mem_split_mark,
	.split_marks = mem_split_marks,
	.wait_passers = mem_wait_passers,
	.wait_unmarked = mem_wait_unmarked,
	.step_done = mem_step_done,
	.allocated = mem_allocated,
	.critical = mem_critical,
	.version = mem_version,
	.groups_add = mem_groups_add,
	.groups = mem_groups,
	.changes = mem_changes,
	.mark_counts = mem_mark_counts,
	.pins_era = mem_pins_era
};

/* A new, empty store. */
ArtMemStore *
art_memstore_new(void)
{
	static uint64_t stores;
	ArtMemStore *ms = calloc(1, sizeof(ArtMemStore));

	if (ms)
	{
		ms->budget = -1;
		/* versions apart from an earlier store's at the same address */
		ms->version = ++stores << 40;
	}
	return ms;
}

/* Free the store and all its pages. */
void
art_memstore_destroy(ArtMemStore *ms)
{
	uint32_t	i;

	for (i = 0; i < ms->npages; i++)
		free(ms->pages[i].data);
	free(ms->pages);
	free(ms->freelist);
	free(ms);
}

/* The store as an ArtPageStore. */
ArtPageStore
art_memstore_store(ArtMemStore *ms)
{
	ArtPageStore s;

	s.ops = &mem_ops;
	s.store = ms;
	return s;
}

/* Pages allocated and not freed. */
uint64_t
art_memstore_pages(const ArtMemStore *ms)
{
	return ms->live;
}

/* Pins not yet released. */
int
art_memstore_pinned(const ArtMemStore *ms)
{
	return ms->pinned;
}

/* Drop the pins unlock left, as an abort would (see the header). */
void
art_memstore_drop_kept(ArtMemStore *ms)
{
	for (uint32_t i = 0; i < ms->npages; i++)
	{
		ms->pinned -= ms->pages[i].readers;
		ms->pages[i].kept -= ms->pages[i].readers;
		ms->pages[i].readers = 0;
	}
	ms->readers = 0;
	ms->pins_era++;
}

/* The most pages held locked at once since the last call. */
int
art_memstore_max_locked(ArtMemStore *ms)
{
	int			max = ms->max_locked;

	ms->max_locked = ms->locked;
	return max;
}

/* Arm (n >= 0) or disarm (n < 0) failure injection. */
void
art_memstore_fail_after(ArtMemStore *ms, long n, bool with_mem)
{
	ms->budget = n;
	ms->fail_mem = with_mem;
	ms->failed = false;
}

/* Whether a call failed by injection since the last fail_after. */
bool
art_memstore_failed(const ArtMemStore *ms)
{
	return ms->failed;
}

/* How many times the tries' memory was allocated (mem_alloc). */
uint64_t
art_memstore_mem_allocs(const ArtMemStore *ms)
{
	return ms->mem_allocs;
}

/* Refuse what would wait for a split section another holder has. */
void
art_memstore_refuse_waits(ArtMemStore *ms, bool on)
{
	ms->refuse_waits = on;
}

/* How many split sections were refused (art_memstore_refuse_waits). */
uint64_t
art_memstore_refused(const ArtMemStore *ms)
{
	return ms->refused;
}

/* The first locking-rule violation seen, or NULL. */
const char *
art_memstore_violation(const ArtMemStore *ms)
{
	return ms->violation;
}

/* How many times a split section was entered exclusive. */
uint64_t
art_memstore_split_sections(const ArtMemStore *ms)
{
	return ms->split_sections;
}

/* How many times a page was pinned (pin calls that succeeded). */
uint64_t
art_memstore_pins(const ArtMemStore *ms)
{
	return ms->pins;
}

/* How many pins hold a lock now. */
int
art_memstore_locked(const ArtMemStore *ms)
{
	return ms->locked;
}

/* How many times a page was locked again by relock (not try_relock). */
uint64_t
art_memstore_relocks(const ArtMemStore *ms)
{
	return ms->relocks;
}

/* Refuse every n-th try_relock (0: none), as if another held the page. */
void
art_memstore_refuse_tries(ArtMemStore *ms, uint64_t n)
{
	ms->refuse_tries = n;
	ms->tries = 0;
}

/* A copy of a store that holds no pins; NULL if out of memory. */
ArtMemStore *
art_memstore_clone(const ArtMemStore *ms)
{
	ArtMemStore *c = art_memstore_new();
	uint32_t	i;

	if (c == NULL)
		return NULL;
	c->cap = ms->npages ? ms->npages : 1;
	c->pages = calloc(c->cap, sizeof(MemPage));
	c->freelist = malloc(sizeof(uint32_t) * c->cap);
	if (c->pages == NULL || c->freelist == NULL)
	{
		art_memstore_destroy(c);
		return NULL;
	}
	for (i = 0; i < ms->npages; i++)
	{
		c->pages[i].data = malloc(ART_PAGE_SIZE);
		if (c->pages[i].data == NULL)
		{
			art_memstore_destroy(c);
			return NULL;
		}
		c->npages++;
		memcpy(c->pages[i].data, ms->pages[i].data, ART_PAGE_SIZE);
		c->pages[i].allocated = ms->pages[i].allocated;
	}
	memcpy(c->freelist, ms->freelist, sizeof(uint32_t) * ms->nfree);
	c->nfree = ms->nfree;
	c->live = ms->live;
	c->groups = ms->groups;
	return c;
}

/* Pages ever created: every page number lies below. */
uint32_t
art_memstore_npages(const ArtMemStore *ms)
{
	return ms->npages;
}

/* The bytes of an allocated page, or NULL. */
uint8_t *
art_memstore_page(ArtMemStore *ms, ArtPageNo pageno)
{
	if (pageno >= ms->npages || !ms->pages[pageno].allocated)
		return NULL;
	return ms->pages[pageno].data;
}

/* Make the store strict (or not) about critical stretches. */
void
art_memstore_strict(ArtMemStore *ms, bool on)
{
	ms->strict = on;
}

/*
 * Run fn(arg) each time a writer lets go of the last page it held locked
 * inside its write section (NULL: nothing).
 */
void
art_memstore_set_unlock_hook(ArtMemStore *ms, void (*fn) (void *arg), void *arg)
{
	ms->unlock_hook = fn;
	ms->unlock_arg = arg;
}

/* Run fn(arg) before every exclusive relock (NULL: nothing). */
void
art_memstore_set_relock_hook(ArtMemStore *ms,
							 void (*fn) (void *arg, ArtPageNo pageno),
							 void *arg)
{
	ms->relock_hook = fn;
	ms->relock_arg = arg;
}

/* Run fn(arg) before every pin inside a write section (NULL: nothing). */
void
art_memstore_set_pin_hook(ArtMemStore *ms, void (*fn) (void *arg), void *arg)
{
	ms->pin_hook = fn;
	ms->pin_arg = arg;
}

/* Run fn(arg) at every wait_passers and wait_unmarked (NULL: nothing). */
void
art_memstore_set_wait_hook(ArtMemStore *ms, void (*fn) (void *arg), void *arg)
{
	ms->wait_hook = fn;
	ms->wait_arg = arg;
}

/* How many times a split or an insert waited for a page (see mem_wait). */
uint64_t
art_memstore_waits(const ArtMemStore *ms)
{
	return ms->waits;
}

/* Run fn(arg) at every step_done (NULL: nothing). */
void
art_memstore_set_step_hook(ArtMemStore *ms, void (*fn) (void *arg), void *arg)
{
	ms->step_hook = fn;
	ms->step_arg = arg;
}
