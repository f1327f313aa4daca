/*-------------------------------------------------------------------------
 *
 * trie_page.h
 *	  The page interface between the trie core and the store under it.
 *
 * The trie core (src/trie) reaches storage only through this interface.
 * Two stores implement it: the in-memory store (src/trie/trie_memstore.c)
 * for unit tests, fuzzing and benchmarks, and the pager (src/pager) that
 * keeps pages in PostgreSQL shared memory over artrie's own files.
 *
 * This header is plain C: it must never include a PostgreSQL header.
 *
 * Rules both sides keep:
 *
 * - A page is ART_PAGE_SIZE bytes.  Bytes [0, ART_PAGE_RESERVED) belong to
 *	 the store (checksum, page number, file identity); the trie never reads
 *	 or writes them.
 * - pin() returns the page locked in the mode asked for: ART_LOCK_SHARE
 *	 lets any number of readers in, ART_LOCK_EXCLUSIVE one writer.  The
 *	 trie releases every page it pinned, and never holds a lock across a
 *	 return to its caller unless its API says so.  A pin it keeps across
 *	 a return (a cursor's, unlocked) it uses again only while pins_era
 *	 reads as it did when the pin was taken.
 * - A store function may fail.  The in-memory store returns an ArtStatus;
 *	 the pager raises a PostgreSQL ERROR instead, which unwinds the trie
 *	 without returning (the pager releases pins and locks at abort).
 *	 Therefore a trie operation that changes pages first pins and allocates
 *	 everything it will need, and only then modifies: between its first
 *	 modification and its end it calls no store function that can fail
 *	 (mark_dirty, release, unlock, relock, try_relock and free cannot fail,
 *	 nor can a pin of a page the trie keeps pinned, see unlock).
 * - Temporary memory comes from mem_alloc/mem_free, so that the pager can
 *	 hand out memory that an ERROR frees.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_TRIE_PAGE_H
#define ARTRIE_TRIE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ART_PAGE_SIZE		8192
#define ART_PAGE_RESERVED	32

typedef uint32_t ArtPageNo;

#define ART_INVALID_PAGENO	((ArtPageNo) 0xFFFFFFFF)

/* Result of every fallible trie and store function. */
typedef enum ArtStatus
{
	ART_OK = 0,
	ART_NOT_FOUND,				/* lookup or delete found no such entry */
	ART_EXISTS,					/* insert found the entry already there */
	ART_TOO_LONG,				/* entry longer than ART_MAX_ENTRY_LEN */
	ART_NO_MEMORY,				/* mem_alloc failed */
	ART_NO_SPACE,				/* the store cannot allocate another page */
	ART_IO_ERROR,				/* the store could not read or write a page */
	ART_CORRUPT					/* a page violates a structural invariant */
} ArtStatus;

typedef enum ArtLockMode
{
	ART_LOCK_SHARE,
	ART_LOCK_EXCLUSIVE
} ArtLockMode;

/* A pinned, locked page. */
typedef struct ArtPageRef
{
	ArtPageNo	pageno;
	uint8_t    *data;			/* ART_PAGE_SIZE bytes, valid while pinned */
	void	   *handle;			/* the store's own (a buffer id, say) */
} ArtPageRef;

typedef struct ArtPageStoreOps
{
	/* Pin and lock an existing page. */
	ArtStatus	(*pin) (void *store, ArtPageNo pageno, ArtLockMode mode,
						ArtPageRef *ref);
	/* Unlock and unpin a page (only unpin it, if unlock left it unlocked). */
	void		(*release) (void *store, ArtPageRef *ref);

	/*
	 * Unlock a pinned page but keep it pinned until release: meanwhile it
	 * stays in memory, so pinning it again needs no read and no room, and
	 * cannot fail.  Cannot fail.
	 */
	void		(*unlock) (void *store, ArtPageRef *ref);

	/*
	 * Lock again, in mode, a page unlock left pinned: no lookup, no read,
	 * no room needed.  unlock lets it go back to pinned only.  Cannot fail.
	 */
	void		(*relock) (void *store, ArtPageRef *ref, ArtLockMode mode);

	/*
	 * relock, but only if it need not wait: true with the page locked
	 * again in mode; false, the page still pinned only, if another holds
	 * it in a conflicting mode or the store would first wait for something
	 * else (the pager: its write gate, a checkpoint's copy of the page).
	 * Lets a holder of pages below take one above without a wait, and so
	 * without the risk of a deadlock.  Cannot fail.
	 */
	bool		(*try_relock) (void *store, ArtPageRef *ref, ArtLockMode mode);
	/* Record that an exclusively locked page was changed. */
	void		(*mark_dirty) (void *store, ArtPageRef *ref);
	/* Allocate a page, returned zeroed (past the reserved bytes), pinned and locked exclusive. */
	ArtStatus	(*alloc) (void *store, ArtPageRef *ref);
	/* Free a page the caller holds exclusive; this also releases it. */
	void		(*free) (void *store, ArtPageRef *ref);
	/* Temporary memory. */
	void	   *(*mem_alloc) (void *store, size_t size);
	void		(*mem_free) (void *store, void *ptr);

	/*
	 * Enter and leave a write section of the trie.  Inserts and deletes
	 * hold it in share mode from their first lock to their last, so any
	 * number of them run at once; truncate holds it exclusive, and verify
	 * and statistics for each step of their walk, so that no change is
	 * half done while they look.  Cannot fail.
	 */
	void		(*write_begin) (void *store, ArtLockMode mode);
	void		(*write_end) (void *store, ArtLockMode mode);

	/*
	 * Enter and leave the trie's split section.  An insert holds it in
	 * share mode from each try's start to the end of its second pass; a
	 * try that must split the root page starts over holding it exclusive,
	 * which waits for every insert between its passes (a split of another
	 * page waits only for the inserts passing that page: split_mark).  So
	 * no page on the path of an insert between its passes splits, and the
	 * pages its first pass kept pinned are all its second pass visits.
	 * Taken with no page locked.  Cannot fail.
	 */
	void		(*split_begin) (void *store, ArtLockMode mode);
	void		(*split_end) (void *store, ArtLockMode mode);

	/*
	 * An insert whose path goes on below a page marks its pin of the page
	 * passing (on, with the page locked) until its second pass ends (off,
	 * before release); passers counts the pins so marked, of a page the
	 * caller holds exclusive.  A split of a page nobody passes waits for
	 * no one: no insert between its passes goes through it.  Neither can
	 * fail.
	 */
	void		(*passing) (void *store, ArtPageRef *ref, bool on);
	uint32_t	(*passers) (void *store, ArtPageRef *ref);

	/*
	 * A split of a page that inserts between their passes go through waits
	 * for those inserts alone: it marks its pin of the page (split_mark on,
	 * the page held exclusive; off at any time), lets go of every lock and
	 * of the split section, and waits (wait_passers) until nobody passes the
	 * page.  An insert whose path would go on below a page that others
	 * marked (split_marks, read with the page locked) does not pass it: it
	 * lets go of everything, its own mark too, and waits (wait_unmarked)
	 * until no mark is left.  So the passers of a marked page only finish.
	 * The waits take the page pinned and unlocked, with no lock held but the
	 * write section; they return ART_OK, or a failure where the store cannot
	 * wait (the in-memory store's art_memstore_refuse_waits).  The marks
	 * neither can fail.
	 */
	void		(*split_mark) (void *store, ArtPageRef *ref, bool on);
	uint32_t	(*split_marks) (void *store, ArtPageRef *ref);
	ArtStatus	(*wait_passers) (void *store, ArtPageRef *ref);
	ArtStatus	(*wait_unmarked) (void *store, ArtPageRef *ref);

	/*
	 * Between two steps of a long walk (verify, statistics), with no page
	 * pinned and no section held: the pager checks for interrupts here, so
	 * that a cancel or a recovery conflict ends the walk.  May not return
	 * (the pager's ERROR).
	 */
	void		(*step_done) (void *store);

	/*
	 * Whether pageno is an allocated page of the store.  A walk in steps
	 * asks before it pins a page it learned of in an earlier step, since
	 * a change between the steps may have freed it; asked inside the
	 * write section held exclusive, the answer holds until its end.
	 * Cannot fail.
	 */
	bool		(*allocated) (void *store, ArtPageNo pageno);

	/*
	 * Begin (on) or end (off) a stretch in which the trie has changed pages
	 * and must still pin others to finish the change: a store failure
	 * there cannot be undone, so the store treats it as a crash (the pager
	 * PANICs, and recovery rebuilds the file without the half change).
	 */
	void		(*critical) (void *store, bool on);

	/*
	 * The content version of the store's tries, with bump first moved on
	 * by one: a counter in memory (it need not survive a restart) that
	 * every insert, delete, truncate and bulk load moves after its change,
	 * and that cursors compare to see whether their batch is still the
	 * trie's content.  One counter may serve several tries.  Cannot fail.
	 */
	uint64_t	(*version) (void *store, bool bump);

	/*
	 * The group count of the store's one trie that counts its groups
	 * (art_create_grouped): groups_add adds delta to it, inside the write
	 * section of the change that made or removed the groups; groups reads
	 * it.  The store keeps it with the pages: whatever has the pages as
	 * they are with no write section open (a checkpoint, a copy) has the
	 * count that goes with them, and what restores the pages (redo of the
	 * changes, a copy) restores it.  Neither can fail.
	 */
	void		(*groups_add) (void *store, int64_t delta);
	uint64_t	(*groups) (void *store);

	/*
	 * How many exclusive holds of a page have ended (unlock or release of
	 * an exclusive lock), but those that changed only counts of wide
	 * nodes in place (mark_counts): read with the page pinned and locked,
	 * two equal readings bracket a stretch in which nobody changed the
	 * page otherwise, so a change planned from the first still applies
	 * and the records read then are where they were.  A counter in memory
	 * that wraps; a store may keep one for pages only the caller changes
	 * (a build's own).  Cannot fail.
	 */
	uint32_t	(*changes) (void *store, ArtPageRef *ref);

	/*
	 * mark_dirty for an exclusively locked page whose only change, in
	 * this hold, is counts of wide nodes grown in place (an insert's
	 * second pass): the hold's end does not move changes on.  Cannot
	 * fail.
	 */
	void		(*mark_counts) (void *store, ArtPageRef *ref);

	/*
	 * A counter that moves on whenever the store drops the caller's pins
	 * itself (the pager: at the abort of a transaction or subtransaction,
	 * which may come between two calls of a cursor): a pin kept unlocked
	 * across a return to the caller is still held, and may be relocked or
	 * released, only while this reads as it did when the pin was kept.
	 * Cannot fail.
	 */
	uint64_t	(*pins_era) (void *store);
} ArtPageStoreOps;

/* A store: its functions and their first argument. */
typedef struct ArtPageStore
{
	const ArtPageStoreOps *ops;
	void	   *store;
} ArtPageStore;

#endif							/* ARTRIE_TRIE_PAGE_H */
