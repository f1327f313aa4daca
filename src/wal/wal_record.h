/*-------------------------------------------------------------------------
 *
 * wal_record.h
 *	  The payloads of artrie's WAL records, and the checks redo runs on
 *	  each before it applies it.
 *
 * Plain C (no PostgreSQL header), so that the WAL record fuzzer
 * (test/fuzz/fuzz_wal.c) runs the very decoder redo runs.
 *
 * Kinds of record:
 *
 *	- an entry record: one entry inserted into, or deleted from, one trie
 *	  (named by its root page) of one artrie file; applying it is
 *	  idempotent (an entry already present is not inserted again, an
 *	  absent one is not deleted).  Redo merges the page a delete left
 *	  underfull after the delete, unless the record carries
 *	  WAL_ARTRIE_NO_MERGE: its writer merges where it chose, each merge
 *	  logged as a merge record;
 *	- a merge record (an entry record's payload, then one byte: the step
 *	  of the merge that changed pages, an ArtMergeStep; older records
 *	  lack it): the writer merged the page where the entry's path ends
 *	  (art_merge_logged), after the deletes logged before it; the page's
 *	  content stays, only its layout changes;
 *	- an image record: a run of up to WAL_IMAGE_PAGES logical pages of a
 *	  file just built or copied, or (WAL_IMAGE_CKPT) of a changed file as
 *	  the first checkpoint after a move of PostgreSQL's redo pointer
 *	  leaves it, which redo writes at the same logical page numbers (each
 *	  page without its free bytes, WAL_IMAGE_PACKED, in records logged
 *	  since that flag exists); the
 *	  first of a file's run of image records starts the file afresh, the
 *	  last one also carries the file's free logical pages and its user
 *	  words;
 *	- an unchanged record: the io worker's checkpoint found a file with no
 *	  change since its last checkpoint, which began at WAL position since;
 *	  so a copy of the file checkpointed at since (or later, up to the
 *	  record) holds every change logged before the record.  Redo uses it
 *	  to accept a copy that a base backup took before artrie's checkpoint
 *	  had caught up with the backup's start;
 *	- a vacuum record: a bulk delete of one file has logged all its
 *	  deletions, and the heap may free their TIDs next; on a hot standby
 *	  its redo resolves the conflict with the scans that may still return
 *	  a removed entry (wal_conflict.c);
 *	- an image-begin record: a checkpoint took the snapshot of a changed
 *	  file whose image (WAL_IMAGE_CKPT records) it logs next; the file's
 *	  entry records between the two are not in the image.  WAL older than
 *	  this record logged the image before any later entry record.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_WAL_RECORD_H
#define ARTRIE_WAL_RECORD_H

#include "pager/pager_page.h"

/* Record kinds, in the high bits of the WAL record's info byte. */
#define WAL_ARTRIE_INSERT	0x00
#define WAL_ARTRIE_DELETE	0x10
#define WAL_ARTRIE_IMAGE	0x20
#define WAL_ARTRIE_UNCHANGED	0x30
#define WAL_ARTRIE_VACUUM	0x40
#define WAL_ARTRIE_IMAGE_BEGIN	0x50
#define WAL_ARTRIE_MERGE	0x60
#define WAL_ARTRIE_KIND_MASK	0x70

/*
 * A flag in the info byte of a delete record: no merge after it (a merge
 * record follows where the writer merged).  A build before merge records
 * ignores it and merges after the delete, then refuses the merge record
 * as malformed.
 */
#define WAL_ARTRIE_NO_MERGE	0x80

/* The bits of the info byte that are artrie's: kind and flag. */
#define WAL_ARTRIE_INFO_MASK	(WAL_ARTRIE_KIND_MASK | WAL_ARTRIE_NO_MERGE)

/* A bound on entries, above the longest a trie takes (1 MiB and a bit). */
#define WAL_MAX_ENTRY		((size_t) 2 * 1024 * 1024)

/* Logical pages per image record. */
#define WAL_IMAGE_PAGES		32

/* The bytes of a page an image carries: all but the store-reserved ones. */
#define WAL_IMAGE_BODY		(ART_PAGE_SIZE - ART_PAGE_RESERVED)

/* Image record flags. */
#define WAL_IMAGE_FIRST		0x01	/* start the file afresh */
#define WAL_IMAGE_LAST		0x02	/* free pages and user words follow */
#define WAL_IMAGE_CKPT		0x04	/* a checkpoint's image of a changed file */
#define WAL_IMAGE_BEGUN		0x08	/* with CKPT: an image-begin record of the
									 * file came before it */
#define WAL_IMAGE_PACKED	0x10	/* the bodies leave free bytes out */

/*
 * A packed body: the page offsets lower and upper (2 bytes each,
 * ART_PAGE_RESERVED <= lower <= upper <= ART_PAGE_SIZE), then the page's
 * bytes [ART_PAGE_RESERVED, lower) and [upper, ART_PAGE_SIZE); the bytes
 * between are free in the page, and redo writes zeros there.
 */
#define WAL_IMAGE_PACK_HDR	4

/*
 * An entry or merge record; the entry's bytes follow it, and a merge
 * record's step byte them.
 */
typedef struct WalEntryRecord
{
	ArtFileId	file;
	uint32_t	root;			/* the trie's root page */
	uint32_t	len;			/* of the entry */
} WalEntryRecord;

/*
 * An image record; then the bodies of the pages in used (bit i for page
 * first + i), in order, WAL_IMAGE_BODY bytes each or, with
 * WAL_IMAGE_PACKED, packed; then, with WAL_IMAGE_LAST, nfree logical page
 * numbers that are free in the file.
 */
typedef struct WalImageRecord
{
	ArtFileId	file;
	uint32_t	flags;
	uint32_t	first;			/* first logical page */
	uint32_t	npages;			/* at most WAL_IMAGE_PAGES */
	uint32_t	used;			/* bitmap over the npages */
	uint32_t	nfree;			/* free pages listed, with LAST */
	uint32_t	user[PAGER_USER_WORDS];
} WalImageRecord;

/*
 * An unchanged record (since: where the file's last checkpoint began) or
 * an image-begin record (since: the position its checkpoint claims).
 */
typedef struct WalFileSinceRecord
{
	ArtFileId	file;
	uint32_t	pad;
	uint64_t	since;
} WalFileSinceRecord;

/* A vacuum record. */
typedef struct WalVacuumRecord
{
	ArtFileId	file;
	uint32_t	pad;
} WalVacuumRecord;

/*
 * Check and decode an entry or merge record's payload of len bytes: true with *rec
 * and *entry pointing into data, false if the payload is malformed.
 */
extern bool wal_entry_decode(const uint8_t *data, size_t len,
							 WalEntryRecord *rec, const uint8_t **entry);

/* A merge record's step byte: 1 .. WAL_MERGE_STEP_MAX (trie.h's steps). */
#define WAL_MERGE_STEP_MAX	6

/*
 * Check and decode a merge record's payload of len bytes as
 * wal_entry_decode does, and its step into *step: 0 (any step) for a
 * record without one.
 */
extern bool wal_merge_decode(const uint8_t *data, size_t len,
							 WalEntryRecord *rec, const uint8_t **entry,
							 uint8_t *step);

/*
 * Check and decode an image record's payload: true with *rec, *bodies
 * (the used pages' bodies, one after another) and *freelist (rec->nfree
 * page numbers, unaligned), false if the payload is malformed.
 */
extern bool wal_image_decode(const uint8_t *data, size_t len,
							 WalImageRecord *rec, const uint8_t **bodies,
							 const uint8_t **freelist);

/*
 * Check and decode an unchanged or image-begin record's payload into
 * *rec; false if it is malformed.
 */
extern bool wal_file_since_decode(const uint8_t *data, size_t len,
								  WalFileSinceRecord *rec);

/*
 * Check and decode a vacuum record's payload into *rec; false if it is
 * malformed.
 */
extern bool wal_vacuum_decode(const uint8_t *data, size_t len,
							  WalVacuumRecord *rec);

/* The number of pages an image record's used bitmap names. */
extern int	wal_image_used_count(uint32_t used, uint32_t npages);

/*
 * Pack page (ART_PAGE_SIZE bytes) into out, leaving its bytes [lower,
 * upper) out (lower == upper: none); returns the bytes written, at most
 * WAL_IMAGE_PACK_HDR + WAL_IMAGE_BODY.
 */
extern size_t wal_image_pack(const uint8_t *page, uint16_t lower,
							 uint16_t upper, uint8_t *out);

/*
 * The body (WAL_IMAGE_BODY bytes) of the next used page of a decoded
 * image record whose bodies continue at *p: *p itself, or with
 * WAL_IMAGE_PACKED the body unpacked into buf; *p moves past it.
 */
extern const uint8_t *wal_image_body(const WalImageRecord *rec,
									 const uint8_t **p, uint8_t *buf);

#endif							/* ARTRIE_WAL_RECORD_H */
