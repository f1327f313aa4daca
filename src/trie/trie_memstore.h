/*-------------------------------------------------------------------------
 *
 * trie_memstore.h
 *	  An in-memory page store for unit tests, fuzzing and benchmarks.
 *
 * Pages are malloc'd; freed pages are poisoned and reused.  The store
 * checks the locking rules a real pager would enforce (no page pinned
 * twice, no pin of a free page) and can inject failures: after a given
 * number of successful calls, every alloc, pin (and, if asked, mem_alloc)
 * fails, so tests can check that a failed operation leaves the trie valid
 * and unchanged.
 *
 * Not part of artrie.so.  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_MEMSTORE_H
#define ARTRIE_TRIE_MEMSTORE_H

#include <stdbool.h>

#include "trie_page.h"

typedef struct ArtMemStore ArtMemStore;

extern ArtMemStore *art_memstore_new(void);
extern void art_memstore_destroy(ArtMemStore *ms);

/* The store as an ArtPageStore. */
extern ArtPageStore art_memstore_store(ArtMemStore *ms);

/* Pages allocated and not freed. */
extern uint64_t art_memstore_pages(const ArtMemStore *ms);

/* Pins not yet released. */
extern int	art_memstore_pinned(const ArtMemStore *ms);

/*
 * Drop every pin that a reader's unlock left (a cursor's kept between its
 * calls), as the pager drops a process's pins at an abort, and move
 * pins_era on.
 */
extern void art_memstore_drop_kept(ArtMemStore *ms);

/* The most pages held locked at once since the last call. */
extern int	art_memstore_max_locked(ArtMemStore *ms);

/* How many times a split section was entered exclusive. */
extern uint64_t art_memstore_split_sections(const ArtMemStore *ms);

/* How many times a page was pinned (pin calls that succeeded). */
extern uint64_t art_memstore_pins(const ArtMemStore *ms);

/* How many pins hold a lock now. */
extern int	art_memstore_locked(const ArtMemStore *ms);

/* How many times a page was locked again by relock (not try_relock). */
extern uint64_t art_memstore_relocks(const ArtMemStore *ms);

/*
 * Refuse every n-th try_relock from now on (0: none), as if another
 * session held the page: the caller goes the way that may wait.
 */
extern void art_memstore_refuse_tries(ArtMemStore *ms, uint64_t n);

/*
 * Let n more alloc/pin calls (and mem_alloc calls when with_mem) succeed,
 * then fail every one until art_memstore_fail_after(ms, -1, false).
 */
extern void art_memstore_fail_after(ArtMemStore *ms, long n, bool with_mem);

/* Whether a call failed by injection since the last fail_after. */
extern bool art_memstore_failed(const ArtMemStore *ms);

/* How many times the tries' memory was allocated (mem_alloc). */
extern uint64_t art_memstore_mem_allocs(const ArtMemStore *ms);

/*
 * Refuse what would wait: while a split section entered exclusive is held
 * as another holder holds it too (in a real store the first would wait for
 * the other, an insert between its passes, to end), every alloc and every
 * pin of a page not kept pinned fails; a wait for a page's passers or
 * split marks that the wait hook did not end fails.  A single-threaded
 * test runs between an insert's passes only what would not wait for it,
 * and the refused operations after its second pass.  art_memstore_refused
 * counts them.
 */
extern void art_memstore_refuse_waits(ArtMemStore *ms, bool on);
extern uint64_t art_memstore_refused(const ArtMemStore *ms);

/*
 * Strict about critical stretches: there, a pin of a page that no
 * reference keeps pinned (the pager might have to read it, or need a free
 * frame) is a violation, and injected failures strike too (and are
 * violations), as a full disk or a read error would.
 */
extern void art_memstore_strict(ArtMemStore *ms, bool on);

/*
 * Run fn(arg) between the steps of a walk (the store's step_done), as
 * other sessions would run between them: a test's writers.
 */
extern void art_memstore_set_step_hook(ArtMemStore *ms,
									   void (*fn) (void *arg), void *arg);

/*
 * Run fn(arg) each time a writer, inside its write section, lets go of the
 * last page it held locked (unlocks it, keeping it pinned, or frees it), as
 * readers in other sessions would run while it goes on to its next page
 * (not again from inside fn).
 */
extern void art_memstore_set_unlock_hook(ArtMemStore *ms,
										 void (*fn) (void *arg), void *arg);

/*
 * Run fn(arg, pageno) each time page pageno, kept pinned, is about to be
 * locked again exclusive (relock, try_relock), as writers in other
 * sessions could change it first (not again from inside fn).
 */
extern void art_memstore_set_relock_hook(ArtMemStore *ms,
										 void (*fn) (void *arg,
													 ArtPageNo pageno),
										 void *arg);

/*
 * Run fn(arg) each time a page is about to be pinned inside a write
 * section, as readers in other sessions could run while the writer goes
 * on to its next page (not again from inside fn).
 */
extern void art_memstore_set_pin_hook(ArtMemStore *ms, void (*fn) (void *arg),
									  void *arg);

/*
 * Run fn(arg) when a split waits for the inserts passing its page
 * (wait_passers) or an insert for a page's split marks to go
 * (wait_unmarked), as other sessions would run meanwhile (not for a wait
 * inside fn); art_memstore_waits counts those waits.
 */
extern void art_memstore_set_wait_hook(ArtMemStore *ms,
									   void (*fn) (void *arg), void *arg);
extern uint64_t art_memstore_waits(const ArtMemStore *ms);

/* The first locking-rule violation seen, or NULL. */
extern const char *art_memstore_violation(const ArtMemStore *ms);

/*
 * For the fuzzers, which damage pages behind the trie's back: a copy of
 * the store (pages, free list; no pins may be held), the number of pages
 * ever created (page numbers lie below it), and a page's bytes, NULL if
 * the page is not allocated.
 */
extern ArtMemStore *art_memstore_clone(const ArtMemStore *ms);
extern uint32_t art_memstore_npages(const ArtMemStore *ms);
extern uint8_t *art_memstore_page(ArtMemStore *ms, ArtPageNo pageno);

#endif							/* ARTRIE_TRIE_MEMSTORE_H */
