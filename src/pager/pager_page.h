/*-------------------------------------------------------------------------
 *
 * pager_page.h
 *	  The on-disk page formats of artrie files, and the functions that seal
 *	  and check them: CRC32C, page header, meta page.
 *
 * Plain C, like the trie core: it must never include a PostgreSQL header,
 * so that the fuzzers (test/fuzz) can run the very checks the server runs
 * on every page it reads.  The pager (pager_pool.c, pager_meta.c) and the
 * fuzzers call these functions; nothing else does.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_PAGE_H
#define ARTRIE_PAGER_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trie/trie_page.h"

/*
 * What names an artrie file: the database, the index's relfilenode and a
 * generation that changes whenever the index gets a new file (REINDEX,
 * TRUNCATE), so that an old and a new file never share a name.
 */
typedef struct ArtFileId
{
	uint32_t	dbOid;
	uint32_t	relNumber;
	uint32_t	generation;
} ArtFileId;

/*
 * The store-reserved bytes at the start of every page (ART_PAGE_RESERVED
 * of them).
 */
typedef struct PagerPageHeader
{
	uint32_t	crc;			/* CRC32C of bytes [4, ART_PAGE_SIZE) */
	uint32_t	pageno;			/* logical page, map page index, meta slot */
	uint32_t	dbOid;
	uint32_t	relNumber;
	uint32_t	generation;
	uint16_t	kind;			/* PAGER_KIND_* */
	uint16_t	version;		/* PAGER_FORMAT_VERSION */
	uint64_t	ckpt_no;		/* meta and map pages: the checkpoint that
								 * wrote them; data pages: their write stamp */
} PagerPageHeader;

#define PAGER_KIND_DATA		1
#define PAGER_KIND_MAP		2
#define PAGER_KIND_META		3
#define PAGER_KIND_DIR		4

/*
 * Format 4 (trie nodes with 1-, 2-, 3- or 6-byte subtree counts, see
 * src/trie/README.md) after format 3 (6-byte counts everywhere) and the
 * released 0.1.0's format 2 (a one-level page map); files of an older
 * format are refused with the REINDEX hint.
 */
#define PAGER_FORMAT_VERSION	4
#define PAGER_META_MAGIC	((uint64_t) 0x41525452494D4554)	/* "ARTRIMET" */

/* Physical pages 0 and 1 are the meta slots. */
#define PAGER_FIRST_DATA_PHYS	2

/*
 * The page map has two levels under the meta page.  A map page holds the
 * places of a file's "fanout" consecutive logical pages, at most
 * PAGER_MAP_PER_PAGE, after its header: first their physical pages, then
 * (at PAGER_MAP_STAMPS) their write stamps.  A directory page holds, in
 * the same layout, the places of fanout consecutive map pages and the
 * write stamps those were written with.  The meta page lists the
 * directory pages.
 *
 * A data page's or map page's write stamp, in its header's ckpt_no, is
 * handed out anew by every write of the page (pager_internal.h), so that
 * an older copy of the page left in the same physical page (a lost write)
 * does not carry the stamp its parent expects.  A checkpoint writes only
 * the map pages that changed, and every directory page: a directory page
 * carries its checkpoint's number instead of a stamp.
 *
 * The fanout is PAGER_MAP_PER_PAGE except in tests (artrie.test_map_fanout,
 * so that the map grows deep with few pages); each file keeps its own in
 * its meta page.
 */
#define PAGER_MAP_PER_PAGE	((uint32_t) ((ART_PAGE_SIZE - ART_PAGE_RESERVED) / (2 * sizeof(uint32_t))))
#define PAGER_MAP_STAMPS	(ART_PAGE_RESERVED + PAGER_MAP_PER_PAGE * sizeof(uint32_t))

/* Directory pages a meta page may list (it has room for a few more). */
#define PAGER_MAX_DIR_PAGES	2000

/*
 * Physical pages a file may have: a multiple of 64 (the bitmaps' growth),
 * below PAGER_PHYS_FREE.
 */
#define PAGER_MAX_PHYS		((uint32_t) 0xFFFFFFC0)

/*
 * The caller's own words kept in the meta page (pager_get_user_word).
 * Words PAGER_GROUPS_WORD and the next hold the count the trie keeps in
 * its store (ArtPageStoreOps.groups_add), low half first; a file from a
 * build before it has them zero, and its trie does not count.
 */
#define PAGER_USER_WORDS	4
#define PAGER_GROUPS_WORD	0

/* The meta page after its header. */
typedef struct PagerMeta
{
	uint64_t	magic;
	uint32_t	format_version;
	uint32_t	page_size;
	uint64_t	ckpt_no;
	uint64_t	redo_lsn;		/* WAL records from here on may be missing */
	uint64_t	sysid;			/* the cluster's system identifier */
	uint32_t	nlogical;		/* logical pages, used or free */
	uint32_t	nphys;			/* physical pages, the file's extent */
	uint32_t	nused;			/* logical pages in use */
	uint32_t	fanout;			/* entries of a map or directory page */
	uint32_t	ndir;			/* directory pages listed in dirpages */
	uint32_t	user[PAGER_USER_WORDS];
	uint32_t	tli;			/* the timeline redo_lsn is on */
	uint32_t	dirpages[];
} PagerMeta;

/*
 * CRC32C (Castagnoli), the same checksum as PostgreSQL's pg_crc32c:
 * start with PAGER_CRC32C_INIT, extend, finish with PAGER_CRC32C_FIN.
 */
#define PAGER_CRC32C_INIT		0xFFFFFFFFu
#define PAGER_CRC32C_FIN(crc)	((crc) ^ 0xFFFFFFFFu)

extern uint32_t pager_crc32c_extend(uint32_t crc, const void *data, size_t len);

/* The CRC32C a page's header should carry. */
extern uint32_t pager_page_crc(const uint8_t *page);

/* Fill a page's header and checksum. */
extern void pager_page_seal_header(uint8_t *page, const ArtFileId *id,
								   uint32_t pageno, uint16_t kind,
								   uint64_t ckpt_no);

/*
 * Check a page read from disk: its checksum, file, kind, format version
 * and number.  Returns true if good, else false with what is wrong in msg.
 */
extern bool pager_page_check_header(const uint8_t *page, const ArtFileId *id,
									uint32_t pageno, uint16_t kind,
									char *msg, size_t msglen);

/* Fill and seal a meta page for checkpoint ckpt_no. */
extern void pager_meta_encode(uint8_t *page, const ArtFileId *id, int slot,
							  const PagerMeta *meta, const uint32_t *dirpages);

/*
 * Check a meta page and decode it: true with *meta set (its dirpages are
 * those of the page, meta->ndir of them), else false with what is wrong
 * in msg.
 */
extern bool pager_meta_decode(const uint8_t *page, const ArtFileId *id,
							  int slot, PagerMeta *meta,
							  const uint8_t **dirpages,
							  char *msg, size_t msglen);

/*
 * The format version of a meta page of slot that is whole (its checksum,
 * file, kind and number are right) but of another format than this
 * build's, else 0.
 */
extern uint16_t pager_meta_other_format(const uint8_t *page, const ArtFileId *id,
										int slot);

/* The map's arithmetic for a fanout of 1 to PAGER_MAP_PER_PAGE. */

/* Map pages that nlogical logical pages need. */
extern uint32_t pager_map_pages(uint32_t nlogical, uint32_t fanout);

/* Directory pages that nlogical logical pages need. */
extern uint32_t pager_dir_pages(uint32_t nlogical, uint32_t fanout);

/* The most logical pages a file can have: what the directory pages map. */
extern uint32_t pager_max_logical(uint32_t fanout);

#endif							/* ARTRIE_PAGER_PAGE_H */
