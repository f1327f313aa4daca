/*-------------------------------------------------------------------------
 *
 * test_pagefmt.c
 *	  Unit test of the page map's arithmetic and of the meta page's checks
 *	  of it, and of CRC32C (src/pager/pager_page.c).
 *
 * The page map has two levels under the meta page: map pages of fanout
 * entries, directory pages of fanout map pages, at most
 * PAGER_MAX_DIR_PAGES directory pages.  This checks, without writing a
 * terabyte: how many map and directory pages a file needs at and around
 * every boundary; that a file with the full fanout can hold at least
 * 1 TiB and that its physical page numbers still fit; that the small
 * fanouts tests use (artrie.test_map_fanout) give a small limit by the
 * same formula; that a meta page round-trips its counts and directory,
 * and that one whose counts disagree with the arithmetic, or of the
 * released format 2, is refused (the latter recognized as another
 * format, for the ERROR that says so).
 *
 * Plain C, no PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pager/pager_page.h"

static long failures;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			failures++; \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

static const ArtFileId file_id = {5, 16384, 3};

/* Map and directory pages at and around the boundaries of one fanout. */
static void
test_counts(uint32_t f)
{
	uint32_t	limit = pager_max_logical(f);

	CHECK(limit == (uint64_t) PAGER_MAX_DIR_PAGES * f * f,
		  "fanout %u: limit %u", f, limit);
	CHECK(pager_map_pages(0, f) == 0 && pager_dir_pages(0, f) == 0,
		  "fanout %u: an empty file needs no map", f);
	CHECK(pager_map_pages(1, f) == 1 && pager_dir_pages(1, f) == 1,
		  "fanout %u: one page needs one map page and one directory page", f);
	CHECK(pager_map_pages(f, f) == 1 && pager_dir_pages(f, f) == 1,
		  "fanout %u: a full map page", f);
	CHECK(pager_map_pages(f + 1, f) == 2, "fanout %u: second map page", f);
	CHECK(pager_dir_pages(f * f, f) == 1, "fanout %u: a full directory page", f);
	CHECK(pager_dir_pages(f * f + 1, f) == 2,
		  "fanout %u: the second directory page", f);
	CHECK(pager_map_pages(limit, f) == (uint32_t) PAGER_MAX_DIR_PAGES * f,
		  "fanout %u: map pages at the limit: %u", f, pager_map_pages(limit, f));
	CHECK(pager_dir_pages(limit, f) == PAGER_MAX_DIR_PAGES,
		  "fanout %u: directory pages at the limit: %u", f,
		  pager_dir_pages(limit, f));
	CHECK(pager_dir_pages(limit - 1, f) == PAGER_MAX_DIR_PAGES - (f == 1),
		  "fanout %u: directory pages below the limit", f);
	if (f > 1)
		CHECK(pager_dir_pages(limit - f * f, f) == PAGER_MAX_DIR_PAGES - 1,
			  "fanout %u: one directory page less", f);
}

/* CRC32C a bit at a time, from its definition. */
static uint32_t
crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len-- > 0)
	{
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return crc;
}

/*
 * pager_crc32c_extend against the definition: the check value of
 * "123456789", then pseudo-random bytes at every start offset mod 8 and
 * lengths around the sizes the three streams take (3 x 2,048 and 3 x 256
 * bytes) and a page's, each extended in two parts split anywhere.
 */
static void
test_crc(void)
{
	static uint8_t buf[3 * ART_PAGE_SIZE];
	static const size_t lens[] = {0, 1, 7, 8, 9, 767, 768, 769, 775, 776,
		1535, 1536, 1544, 6143, 6144, 6145, 6151, 6912, 7679, 7680,
		ART_PAGE_SIZE - 4, ART_PAGE_SIZE, 12288, 12289, 2 * ART_PAGE_SIZE + 5};
	uint32_t	x = 12345;
	int			checked = 0;

	CHECK(PAGER_CRC32C_FIN(pager_crc32c_extend(PAGER_CRC32C_INIT, "123456789", 9)) ==
		  0xE3069283u, "CRC32C of 123456789");
	for (size_t i = 0; i < sizeof(buf); i++)
	{
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t) (x >> 16);
	}
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t off = 0; off < 8; off++)
		{
			size_t		len = lens[l];
			size_t		cut = (len * (off + 1)) / 9;
			uint32_t	want = crc_bitwise(PAGER_CRC32C_INIT, buf + off, len);
			uint32_t	got = pager_crc32c_extend(PAGER_CRC32C_INIT, buf + off, len);
			uint32_t	parts = pager_crc32c_extend(pager_crc32c_extend(PAGER_CRC32C_INIT,
																		buf + off, cut),
												  buf + off + cut, len - cut);

			CHECK(got == want && parts == want,
				  "CRC32C of %zu bytes at %zu: %08X, in two parts %08X, by definition %08X",
				  len, off, got, parts, want);
			checked++;
		}
	printf("pagefmt: %d CRC32Cs as defined\n", checked);
}

/* Encode a meta page with these counts; true if it decodes back alike. */
static bool
meta_roundtrip(uint32_t fanout, uint32_t nlogical, uint32_t ndir, int version)
{
	static uint8_t page[ART_PAGE_SIZE];
	static uint32_t dirpages[PAGER_MAX_DIR_PAGES + 8];
	PagerMeta	m;
	PagerMeta	out;
	const uint8_t *dir;
	char		msg[128];

	memset(&m, 0, sizeof(m));
	m.ckpt_no = 7;
	m.redo_lsn = 0x3000028;
	m.nlogical = nlogical;
	m.nused = nlogical;
	m.nphys = PAGER_FIRST_DATA_PHYS + 2 * nlogical;
	m.fanout = fanout;
	m.ndir = ndir;
	for (uint32_t i = 0; i < ndir && i < PAGER_MAX_DIR_PAGES + 8; i++)
		dirpages[i] = 1000 + i;
	pager_meta_encode(page, &file_id, 1, &m, dirpages);
	if (version != PAGER_FORMAT_VERSION)
	{
		/* A page as another format wrote it: version in header and body. */
		uint16_t	v16 = (uint16_t) version;
		uint32_t	v32 = (uint32_t) version;
		uint32_t	crc;

		memcpy(page + offsetof(PagerPageHeader, version), &v16, sizeof(v16));
		memcpy(page + ART_PAGE_RESERVED + offsetof(PagerMeta, format_version),
			   &v32, sizeof(v32));
		crc = pager_page_crc(page);
		memcpy(page, &crc, sizeof(crc));
	}
	CHECK(pager_meta_other_format(page, &file_id, 1) ==
		  (version == PAGER_FORMAT_VERSION ? 0 : version),
		  "meta page of format %d: other format %u", version,
		  pager_meta_other_format(page, &file_id, 1));
	CHECK(pager_meta_other_format(page, &file_id, 0) == 0,
		  "a meta page of slot 1 taken for slot 0");
	if (!pager_meta_decode(page, &file_id, 1, &out, &dir, msg, sizeof(msg)))
		return false;
	CHECK(out.fanout == fanout && out.nlogical == nlogical && out.ndir == ndir,
		  "meta decodes to other counts");
	CHECK(ndir == 0 || memcmp(dir, dirpages, sizeof(uint32_t) * ndir) == 0,
		  "meta decodes to another directory");
	return true;
}

int
main(void)
{
	static const uint32_t fanouts[] = {1, 2, 3, 4, 7, 100, PAGER_MAP_PER_PAGE - 1, PAGER_MAP_PER_PAGE};
	uint64_t	full = pager_max_logical(PAGER_MAP_PER_PAGE);

	for (size_t i = 0; i < sizeof(fanouts) / sizeof(fanouts[0]); i++)
		test_counts(fanouts[i]);
	test_crc();

	/* The limit of a real file: at least 1 TiB, and within page numbers. */
	CHECK(PAGER_MAP_PER_PAGE == 1020, "map page entries %u", PAGER_MAP_PER_PAGE);
	CHECK(full * ART_PAGE_SIZE >= (1ULL << 40),
		  "a file holds only %llu bytes", (unsigned long long) (full * ART_PAGE_SIZE));
	CHECK(2 * (full + pager_map_pages((uint32_t) full, PAGER_MAP_PER_PAGE) + PAGER_MAX_DIR_PAGES) +
		  PAGER_FIRST_DATA_PHYS <= PAGER_MAX_PHYS,
		  "physical pages of a file at the limit overflow");
	CHECK(full > 2022 * 1020, "no more than the one-level map's 2022 x 1020 pages");
	printf("pagefmt: limit %llu pages, %.1f TiB\n", (unsigned long long) full,
		   (double) full * ART_PAGE_SIZE / (1ULL << 40));

	/* The test fanouts: fanout 1 holds 2000 pages, 2 holds 8000. */
	CHECK(pager_max_logical(1) == 2000 && pager_max_logical(2) == 8000,
		  "test fanouts' limits %u %u", pager_max_logical(1), pager_max_logical(2));

	/* Meta pages: counts that agree with the arithmetic, and others. */
	CHECK(meta_roundtrip(PAGER_MAP_PER_PAGE, 0, 0, PAGER_FORMAT_VERSION), "empty file");
	CHECK(meta_roundtrip(4, 17, pager_dir_pages(17, 4), PAGER_FORMAT_VERSION),
		  "small fanout");
	CHECK(meta_roundtrip(1, 2000, PAGER_MAX_DIR_PAGES, PAGER_FORMAT_VERSION),
		  "fanout 1 at the limit");
	CHECK(meta_roundtrip(PAGER_MAP_PER_PAGE, (uint32_t) full, PAGER_MAX_DIR_PAGES,
						 PAGER_FORMAT_VERSION), "full fanout at the limit");
	CHECK(!meta_roundtrip(1, 2001, PAGER_MAX_DIR_PAGES + 1, PAGER_FORMAT_VERSION),
		  "past the limit accepted");
	CHECK(!meta_roundtrip(4, 17, 1, PAGER_FORMAT_VERSION),
		  "too few directory pages accepted");
	CHECK(!meta_roundtrip(4, 17, 3, PAGER_FORMAT_VERSION),
		  "too many directory pages accepted");
	CHECK(!meta_roundtrip(0, 0, 0, PAGER_FORMAT_VERSION), "fanout 0 accepted");
	CHECK(!meta_roundtrip(PAGER_MAP_PER_PAGE + 1, 1, 1, PAGER_FORMAT_VERSION),
		  "fanout past a page accepted");
	CHECK(!meta_roundtrip(PAGER_MAP_PER_PAGE, 10, 1, 2),
		  "a meta page of format 2 accepted");

	printf("pagefmt: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
