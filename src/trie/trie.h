/*-------------------------------------------------------------------------
 *
 * trie.h
 *	  The trie core: a page-resident adaptive radix trie over byte strings.
 *
 * An entry is a byte string of 0 to ART_MAX_ENTRY_LEN bytes; entries are
 * ordered bytewise (memcmp, a proper prefix sorts first).  The trie is a
 * set: inserting an entry already present returns ART_EXISTS and changes
 * nothing, deleting an absent one returns ART_NOT_FOUND.  The SQL layer
 * stores key || 0x00 || heap TID, which makes every entry unique.
 *
 * Everything reaches pages through ArtPageStore (trie_page.h).  The
 * concurrency contract (which pages each operation locks, in what order)
 * is written in src/trie/README.md.
 *
 * Plain C: never include a PostgreSQL header here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_H
#define ARTRIE_TRIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trie_page.h"

/* Longest entry: 1 MiB of key plus room for a terminator and a TID. */
#define ART_MAX_ENTRY_LEN	((size_t) 1024 * 1024 + 64)

/*
 * A trie: its store and its root page.  The root page is allocated by
 * art_create and stays the root for the trie's whole life, so the caller
 * only has to remember its number once.
 */
typedef struct ArtTrie
{
	ArtPageStore store;
	ArtPageNo	root;
	int			relayout_pages; /* pages a relayout lays out at most (0:
								 * the default; 1: none; tests set it) */
} ArtTrie;

/* Create an empty trie in the store; sets t->store and t->root. */
extern ArtStatus art_create(ArtTrie *t, ArtPageStore store);

/*
 * Groups: the entries that share their bytes up to and including their
 * first 0x00 byte form one group (an entry without a 0x00 byte is a group
 * of its own); for the SQL layer's key || 0x00 || TID, a group is a
 * distinct key.  A trie created by art_create_grouped keeps the number of
 * its groups in its store (ArtPageStoreOps.groups_add): every insert,
 * delete, truncate and bulk load that changes it says so, inside its
 * write section, so the count is exact whenever no change is under way.
 * At most one trie of a store may count its groups.  art_groups returns
 * the count, or ART_NOT_FOUND for a trie that does not keep it.
 */
extern ArtStatus art_create_grouped(ArtTrie *t, ArtPageStore store);
extern ArtStatus art_groups(ArtTrie *t, uint64_t *groups);

/*
 * The content version of the trie's store: it moves on after every
 * insert, delete, merge, truncate and bulk load of any of the store's
 * tries (and at a split, before its insert), so
 * two equal readings bracket a stretch in which nothing changed.
 */
extern uint64_t art_version(ArtTrie *t);

/* Point t at an existing trie. */
extern void art_open(ArtTrie *t, ArtPageStore store, ArtPageNo root);

/* Free every page of the trie but its root page, leaving it empty. */
extern ArtStatus art_truncate(ArtTrie *t);

extern ArtStatus art_insert(ArtTrie *t, const uint8_t *entry, size_t len);
extern ArtStatus art_delete(ArtTrie *t, const uint8_t *entry, size_t len);

/*
 * art_delete, telling where the entry's path ends once it is gone: with
 * ART_OK, *page is the page art_merge(entry) would look at (the root page
 * included), so that a caller deleting entries in key order can merge
 * once per run of deletes that end in the same page, after its last.
 */
extern ArtStatus art_delete_page(ArtTrie *t, const uint8_t *entry,
								 size_t len, ArtPageNo *page);

/*
 * After a delete of entry: if the last page of its path is underfull,
 * move its content into its parent page or a sibling page and free it
 * (trie_merge.c).  Keeps the trie's content; a failure changes nothing,
 * so callers may go on after one (a merge is best effort).  A separate
 * call, so that a caller can log the delete before it.
 */
extern ArtStatus art_merge(ArtTrie *t, const uint8_t *entry, size_t len);

/*
 * The step of a merge that changed pages (trie_merge.c): a merge tries
 * them in this order and stops at the first that changes pages.
 */
typedef enum ArtMergeStep
{
	ART_MERGE_ANY = 0,			/* not known: every step in turn */
	ART_MERGE_PARENT,			/* the page into its parent page */
	ART_MERGE_CHILD,			/* a child page into the page */
	ART_MERGE_SIBLING,			/* into a sibling page, or one into it */
	ART_MERGE_SPILL,			/* spread over the pages near it */
	ART_MERGE_REPACK,			/* it and the pages near it packed anew */
	ART_MERGE_RELAYOUT			/* the subtrees of the root page near it
								 * laid out again */
} ArtMergeStep;

#define ART_MERGE_STEPS (ART_MERGE_RELAYOUT + 1)

/*
 * art_merge, telling a caller that logs its merges which ones changed the
 * trie: merged(arg, step) follows a merge that changed pages, with the
 * step that changed them, inside its write section and split section (no
 * other writer changes a page meanwhile, and no checkpoint's snapshot
 * falls between the change and what merged logs), with no page locked;
 * it must not use the trie.  A merge that changed nothing depends on the
 * pages alone, so on the same pages it would change nothing again: a
 * caller that merges where this one did (redo) need not hear of it.
 */
typedef void (*ArtMerged) (void *arg, ArtMergeStep step);

extern ArtStatus art_merge_logged(ArtTrie *t, const uint8_t *entry,
								  size_t len, ArtMerged merged, void *arg);

/*
 * art_merge where a merge at entry changed pages with step (as
 * art_merge_logged told) on the same pages: only that step is made, the
 * steps before it, which changed nothing, are not tried again.  When the
 * step changes nothing (the pages are not those it was told on), every
 * step is tried as art_merge does; so with ART_MERGE_ANY.
 */
extern ArtStatus art_merge_step(ArtTrie *t, const uint8_t *entry,
								size_t len, ArtMergeStep step);

/*
 * A finger: inserts and deletes applied one after another, best in entry
 * order, that keep the exclusively locked path of the last change between
 * calls, so that the next insert descends only from the deepest node its
 * entry shares with the last one (art_insert descends from the root every
 * time), and a delete goes on through the pages of the last delete's
 * path that its own shares.  Each call returns what art_insert or
 * art_delete would, and the result of a series is the same as theirs one
 * by one.
 *
 * Unlike every other call, the finger keeps exclusive locks on the pages
 * of one root-to-node path when it returns, until the next call or
 * art_finger_end: only for a caller no other user of the trie can wait
 * for meanwhile (redo where no query may look, a test).  If the store
 * raises an error instead of returning a status (the pager), the store
 * releases the pages and the finger must be forgotten, not ended; its
 * memory is the store's temporary memory.
 */
typedef struct ArtFinger ArtFinger;

extern ArtStatus art_finger_begin(ArtTrie *t, ArtFinger **finger);
extern ArtStatus art_finger_insert(ArtFinger *finger, const uint8_t *entry,
								   size_t len);
extern ArtStatus art_finger_delete(ArtFinger *finger, const uint8_t *entry,
								   size_t len);

/*
 * art_finger_delete without the merge, and a merge through the finger
 * (art_merge_step): for a caller that merges where the deletes' writer
 * did, with the step it told.
 */
extern ArtStatus art_finger_delete_only(ArtFinger *finger,
										const uint8_t *entry, size_t len);
extern ArtStatus art_finger_merge(ArtFinger *finger, const uint8_t *entry,
								  size_t len, ArtMergeStep step);
extern void art_finger_end(ArtFinger *finger);

/*
 * Whether the finger packs pages (off at art_finger_begin): its inserts
 * come in ascending order and no later run is expected to fill the pages
 * again, so a page split at the run's right edge moves what the run has
 * passed, up to 90% of a page, instead of half the page.  Off, a run that
 * fills half-empty pages later (another batch of redo) finds room.
 */
extern void art_finger_pack(ArtFinger *finger, bool pack);

/* ART_OK if the entry is present, else ART_NOT_FOUND. */
extern ArtStatus art_lookup(ArtTrie *t, const uint8_t *entry, size_t len);

/* Number of entries that begin with prefix, in O(len) page visits. */
extern ArtStatus art_count_prefix(ArtTrie *t, const uint8_t *prefix,
								  size_t len, uint64_t *count);

/*
 * Prefixes of a value.  With terminator < 0, calls cb for every stored
 * entry that is a prefix of value (value itself included).  With
 * terminator = a byte b, calls cb for every prefix p of value (the empty
 * one and value itself included) such that some entry begins with p || b.
 * cb gets the length of the prefix, longest first, and no page is locked
 * while it runs; it returns false to stop early.
 */
typedef bool (*ArtPrefixCallback) (void *arg, size_t prefix_len);

extern ArtStatus art_prefixes_of(ArtTrie *t, const uint8_t *value, size_t len,
								 int terminator, ArtPrefixCallback cb,
								 void *arg);

/*
 * Cursors: ordered iteration that holds no pin or lock between calls and
 * stays correct while other operations change the trie: after each call
 * the cursor remembers the last entry it returned and continues strictly
 * past it (forward) or before it (backward).
 */
typedef enum ArtDirection
{
	ART_FORWARD,
	ART_BACKWARD
} ArtDirection;

typedef struct ArtCursor ArtCursor;

extern ArtStatus art_cursor_open(ArtTrie *t, ArtCursor **cursor);

/*
 * Position the cursor.  Forward: at the first entry >= key (> key when
 * !inclusive); key NULL means the first entry.  Backward: at the last
 * entry <= key (< key when !inclusive); key NULL means the last entry.
 */
extern ArtStatus art_cursor_seek(ArtCursor *cursor, const uint8_t *key,
								 size_t len, bool inclusive, ArtDirection dir);

/*
 * Stop the cursor at a bound: forward, after the last entry <= bound
 * (< bound when !inclusive); backward, before the first entry >= bound
 * (> bound when !inclusive).  NULL removes the bound.
 */
extern ArtStatus art_cursor_set_bound(ArtCursor *cursor, const uint8_t *bound,
									  size_t len, bool inclusive);

/*
 * With batched, the cursor returns the entries it fetched ahead (a batch,
 * read in one pass) without checking, at each call, that
 * the trie is unchanged: every entry it returns was present when its batch
 * was read, and an entry inserted while or after the batch was read may
 * be missing from it (one inserted behind the read's position is).  Without (the default), every call returns exactly the
 * next entry of the trie as it is at that call.
 */
extern void art_cursor_set_batched(ArtCursor *cursor, bool batched);

/*
 * Whether the next art_cursor_next is answered from the cursor's memory
 * alone (no page is read): for a caller that must know when a batch is
 * read.
 */
extern bool art_cursor_buffered(const ArtCursor *cursor);

/*
 * How many pages the cursor keeps pinned between calls (0 or 1: the page
 * of a prefix range's walk stopped at a full batch, unlocked; the next
 * batch goes on from there if nobody changed the page).  Seek, a new
 * bound or prefix, release and close let it go.
 */
extern int	art_cursor_pinned(const ArtCursor *cursor);

/* Stop the cursor at the end of the entries beginning with prefix. */
extern ArtStatus art_cursor_set_prefix(ArtCursor *cursor,
									   const uint8_t *prefix, size_t len);

/*
 * The next entry in the cursor's direction: ART_OK with *entry and *len
 * set (valid until the next call on this cursor), or ART_NOT_FOUND at
 * the end.
 */
extern ArtStatus art_cursor_next(ArtCursor *cursor, const uint8_t **entry,
								 size_t *len);

/*
 * Entries back to back: entry i is data[(i > 0 ? ends[i - 1] : start) ..
 * ends[i]), for i below n.  last: nothing follows the run in the cursor's
 * range, so the cursor's next call returns ART_NOT_FOUND (a batched
 * cursor's caller may end there without that call).
 */
typedef struct ArtRun
{
	const uint8_t *data;
	const size_t *ends;
	size_t		start;
	int			n;
	bool		last;
} ArtRun;

/*
 * The next entries in the cursor's direction: the rest of its batch (a
 * new batch read if it is used up), at least one, as a batched cursor
 * returns them (art_cursor_set_batched); ART_OK with *run set (valid until
 * the next call on this cursor), or ART_NOT_FOUND at the end.  The cursor
 * goes on after the run's last entry, as after as many art_cursor_next
 * calls: for a caller that steps through a batch without a call per entry.
 */
extern ArtStatus art_cursor_next_run(ArtCursor *cursor, ArtRun *run);

extern void art_cursor_close(ArtCursor *cursor);

/*
 * Deletes of a run's entries, in increasing order, as art_delete_page
 * each, that keep the path of one locked for the next, so that entries
 * sharing their paths' pages do not pin and lock them again (the run's
 * last is not read).  done(arg, i, page) follows each delete that found
 * its entry, page as art_delete_page gives it, with pages of the trie
 * still locked, exclusive from page down: it must not use the trie or
 * wait for anything another user of the trie may hold; logging the
 * delete is what it is for.  The root page and the pages above the one a
 * delete changes stay locked share (an insert that changes one waits;
 * readers pass them), so callers bound the run's length.  Returns ART_OK, or the status of the
 * first delete that failed (ART_NOT_FOUND is not a failure), which ends
 * the run.
 */
typedef void (*ArtDeleteDone) (void *arg, int i, ArtPageNo page);

extern ArtStatus art_delete_sorted(ArtTrie *t, const ArtRun *run,
								   ArtDeleteDone done, void *arg);

/*
 * A cursor in memory of the caller's, of art_cursor_size() bytes aligned
 * as the store's temporary memory is: art_cursor_init sets it up on t as
 * art_cursor_open would, and art_cursor_release frees what it allocated
 * since (as art_cursor_close does, but not the caller's memory), after
 * which art_cursor_init may set it up again, on any trie.  A caller whose
 * store's temporary memory went away with an error (the pager's, in
 * memory an ERROR frees), and with it the cursor's pins, calls
 * art_cursor_init again without art_cursor_release, which would free that
 * memory and release those pins once more.
 */
extern size_t art_cursor_size(void);
extern ArtCursor *art_cursor_init(void *mem, ArtTrie *t);
extern void art_cursor_release(ArtCursor *cursor);

/*
 * Walk: a depth-first walk in byte order over the entries beginning with
 * prefix, which a visitor can prune (the fuzzy search's automaton walk).
 * The walk holds share locks while it calls the visitor, so the visitor
 * must not fail, block or call the store.
 */
typedef struct ArtWalkVisitor
{
	/*
	 * The walk descends by n bytes (n >= 1) past the current path; return
	 * false to skip everything below.  Bytes given to a descend that
	 * returned true are undone by a matching ascend of the same n.
	 */
	bool		(*descend) (void *arg, const uint8_t *bytes, size_t n);
	void		(*ascend) (void *arg, size_t n);
	/* The current path is a stored entry; return false to end the walk. */
	bool		(*entry) (void *arg);
	void	   *arg;
} ArtWalkVisitor;

extern ArtStatus art_walk(ArtTrie *t, const uint8_t *prefix, size_t len,
						  const ArtWalkVisitor *visitor);

/*
 * Bulk load: fill an empty trie from entries given in strictly increasing
 * order (ART_CORRUPT if they are not), far faster than one insert each,
 * and more compact.  art_bulk_begin returns ART_EXISTS if the trie is not
 * empty.  Readers see the trie empty until art_bulk_finish, which also
 * frees the loader (whatever it returns).
 */
typedef struct ArtBulkLoader ArtBulkLoader;

extern ArtStatus art_bulk_begin(ArtTrie *t, ArtBulkLoader **loader);
extern ArtStatus art_bulk_add(ArtBulkLoader *loader, const uint8_t *entry,
							  size_t len);
extern ArtStatus art_bulk_finish(ArtBulkLoader *loader);

/* Give up a bulk load: free the loader, leave the trie empty. */
extern void art_bulk_abort(ArtBulkLoader *loader);

/*
 * Sorting entries for a bulk load, in the trie's order (memcmp, a proper
 * prefix first): an in-place radix sort of n items, each naming a string
 * (data, len); cache is the sort's own.  The strings are not moved.
 */
typedef struct ArtSortItem
{
	uint64_t	cache;
	const uint8_t *data;
	size_t		len;
} ArtSortItem;

extern void art_sort_items(ArtSortItem *items, size_t n);

/* Node kinds, for statistics. */
typedef enum ArtNodeKind
{
	ART_NODE_4,
	ART_NODE_16,
	ART_NODE_48,
	ART_NODE_256,
	ART_NODE_LEAF,
	ART_NODE_NKINDS
} ArtNodeKind;

typedef struct ArtStats
{
	uint64_t	entries;
	uint64_t	pages;
	uint64_t	nodes[ART_NODE_NKINDS];
	uint64_t	height;			/* longest root-to-entry path, in nodes */
	uint64_t	page_height;	/* longest root-to-entry path, in pages */
	uint64_t	bytes_used;		/* bytes of pages holding nodes */
} ArtStats;

extern ArtStatus art_stats(ArtTrie *t, ArtStats *stats);

/*
 * Check every structural invariant (page headers, record bounds, node
 * kinds, subtree counts, order, page ownership, no page twice on a path,
 * free space).  On the first violation, returns ART_CORRUPT and writes a
 * message naming the page and what is wrong.  It stands pages of any
 * bytes, and what it accepts must be safe for every operation (the page
 * fuzzer, test/fuzz/fuzz_page.c, checks both).
 */
extern ArtStatus art_verify(ArtTrie *t, char *msg, size_t msglen);

/*
 * Lay out a trie page (ART_PAGE_SIZE bytes, the store's included) for a
 * WAL image that leaves its free bytes out: returns true with *lower and
 * *upper set so that the bytes [*lower, *upper) are free (those between
 * its slots and its records), the page compacted first if its records
 * had a good share of the page in holes between them (every record
 * keeps its slot, so the page is the same page to every operation, and
 * stays so with any bytes in [*lower, *upper)).  A page that is no trie
 * page, or whose slots do not end before its records, is left as it is:
 * false, both at ART_PAGE_SIZE (keep it whole).
 */
extern bool art_page_squeeze(uint8_t *page, uint16_t *lower, uint16_t *upper);

/* A short English description of a status. */
extern const char *art_status_string(ArtStatus status);

#endif							/* ARTRIE_TRIE_H */
