/*-------------------------------------------------------------------------
 *
 * pager_page.c
 *	  CRC32C, and sealing and checking the pages of artrie files.
 *
 * Plain C (see pager_page.h): the server and the fuzzers run this same
 * code.  Header fields are read and written with memcpy, so a page
 * buffer needs no particular alignment.
 *
 * CRC32C uses the SSE 4.2 instruction where the CPU has it (like
 * PostgreSQL's own pg_comp_crc32c) and a table otherwise; both give
 * PostgreSQL's result, so files written before this code stay valid.
 * The instruction takes three cycles before its result can feed the next
 * one, and runs one a cycle otherwise: so a page's bytes go as three
 * streams at once, each from its own register, joined by taking the
 * first over the second's length of zero bytes (a table lookup, the
 * CRC being linear) and adding the second's in, as Mark Adler's crc32c.c
 * does (a page's checksum, at every read and write of a page, was 3.8% of
 * the startup process's CPU in crash recovery, one stream at a time).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "pager/pager_page.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PAGER_CRC_SSE42 1
#include <nmmintrin.h>
#endif

/*
 * The meta page has room for its directory; a file at the limit keeps its
 * physical page numbers below PAGER_MAX_PHYS even with every data, map and
 * directory page written twice (the last durable checkpoint's copy and the
 * next one's).
 */
_Static_assert(offsetof(PagerMeta, dirpages) + PAGER_MAX_DIR_PAGES * sizeof(uint32_t) <=
			   ART_PAGE_SIZE - ART_PAGE_RESERVED,
			   "the meta page must hold PAGER_MAX_DIR_PAGES directory pages");
_Static_assert(2 * ((uint64_t) PAGER_MAX_DIR_PAGES * PAGER_MAP_PER_PAGE * PAGER_MAP_PER_PAGE +
					(uint64_t) PAGER_MAX_DIR_PAGES * PAGER_MAP_PER_PAGE +
					PAGER_MAX_DIR_PAGES) + PAGER_FIRST_DATA_PHYS <= PAGER_MAX_PHYS,
			   "a file at the limit must fit physical page numbers");

/* Reflected CRC32C polynomial. */
#define CRC32C_POLY		0x82F63B78u

static uint32_t crc_table[256];
static bool crc_table_ready = false;

/* Fill the byte-at-a-time table on first use. */
static void
crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++)
	{
		uint32_t	c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc_table[i] = c;
	}
	crc_table_ready = true;
}

/* Extend a CRC32C a byte at a time, through the table. */
static uint32_t
crc_extend_table(uint32_t crc, const uint8_t *p, size_t len)
{
	if (!crc_table_ready)
		crc_table_init();
	while (len-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

#ifdef PAGER_CRC_SSE42
/* Bytes of each of three streams at once: a long run, then short ones. */
#define CRC_LONG		2048
#define CRC_SHORT		256

/*
 * Tables that take a CRC32C register over CRC_LONG and CRC_SHORT zero
 * bytes: [k][b] is what byte k of the register, b, becomes.
 */
static uint32_t crc_long[4][256];
static uint32_t crc_short[4][256];
static bool crc_zeros_ready = false;

/* The product of a GF(2) 32x32 matrix (mat[i]: column i) and vec. */
static uint32_t
gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t	sum = 0;

	for (; vec != 0; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

/*
 * Fill zeros with the operator that takes a register over len zero bytes
 * (len a power of two): the operator of one zero bit, squared until it
 * covers len bytes.
 */
static void
crc_zeros_table(uint32_t zeros[4][256], size_t len)
{
	uint32_t	op[32];
	uint32_t	sq[32];

	op[0] = CRC32C_POLY;
	for (int n = 1; n < 32; n++)
		op[n] = 1u << (n - 1);
	for (size_t bits = 1; bits < 8 * len; bits *= 2)
	{
		for (int n = 0; n < 32; n++)
			sq[n] = gf2_times(op, op[n]);
		memcpy(op, sq, sizeof(op));
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 0; k < 4; k++)
			zeros[k][b] = gf2_times(op, b << (8 * k));
}

/* crc taken over as many zero bytes as zeros was made for. */
static inline uint32_t
crc_shift(const uint32_t zeros[4][256], uint32_t crc)
{
	return zeros[0][crc & 0xFF] ^ zeros[1][(crc >> 8) & 0xFF] ^
		zeros[2][(crc >> 16) & 0xFF] ^ zeros[3][crc >> 24];
}

/*
 * Extend the register c over *p, three runs of block bytes at a time
 * while *len holds them, each run from its own register (the second and
 * third from zero), joined through zeros; advances *p and *len.
 */
__attribute__((target("sse4.2")))
static uint64_t
crc_streams(uint64_t c, const uint8_t **p, size_t *len, size_t block,
			const uint32_t zeros[4][256])
{
	const uint8_t *q = *p;

	for (; *len >= 3 * block; *len -= 3 * block, q += 3 * block)
	{
		uint64_t	c1 = 0;
		uint64_t	c2 = 0;

		for (size_t i = 0; i < block; i += 8)
		{
			uint64_t	w0;
			uint64_t	w1;
			uint64_t	w2;

			memcpy(&w0, q + i, 8);
			memcpy(&w1, q + block + i, 8);
			memcpy(&w2, q + 2 * block + i, 8);
			c = _mm_crc32_u64(c, w0);
			c1 = _mm_crc32_u64(c1, w1);
			c2 = _mm_crc32_u64(c2, w2);
		}
		c = crc_shift(zeros, (uint32_t) c) ^ c1;
		c = crc_shift(zeros, (uint32_t) c) ^ c2;
	}
	*p = q;
	return c;
}

/*
 * Extend a CRC32C with the SSE 4.2 instruction, 8 bytes at a time, in
 * three streams while the bytes last for them.
 */
__attribute__((target("sse4.2")))
static uint32_t
crc_extend_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t	c = crc;

	if (!crc_zeros_ready)
	{
		crc_zeros_table(crc_short, CRC_SHORT);
		crc_zeros_table(crc_long, CRC_LONG);
		crc_zeros_ready = true;
	}
	c = crc_streams(c, &p, &len, CRC_LONG, crc_long);
	c = crc_streams(c, &p, &len, CRC_SHORT, crc_short);
	while (len >= 8)
	{
		uint64_t	w;

		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t) c;
	while (len-- > 0)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}
#endif

/* Extend a CRC32C by len bytes (see PAGER_CRC32C_INIT). */
uint32_t
pager_crc32c_extend(uint32_t crc, const void *data, size_t len)
{
#ifdef PAGER_CRC_SSE42
	static int	have_sse42 = -1;

	if (have_sse42 < 0)
		have_sse42 = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	if (have_sse42)
		return crc_extend_sse42(crc, data, len);
#endif
	return crc_extend_table(crc, data, len);
}

/* The CRC32C of a page's bytes after its CRC field. */
uint32_t
pager_page_crc(const uint8_t *page)
{
	return PAGER_CRC32C_FIN(pager_crc32c_extend(PAGER_CRC32C_INIT,
												page + sizeof(uint32_t),
												ART_PAGE_SIZE - sizeof(uint32_t)));
}

/* Fill a page's header and checksum. */
void
pager_page_seal_header(uint8_t *page, const ArtFileId *id, uint32_t pageno,
					   uint16_t kind, uint64_t ckpt_no)
{
	PagerPageHeader h;

	h.crc = 0;
	h.pageno = pageno;
	h.dbOid = id->dbOid;
	h.relNumber = id->relNumber;
	h.generation = id->generation;
	h.kind = kind;
	h.version = PAGER_FORMAT_VERSION;
	h.ckpt_no = ckpt_no;
	memcpy(page, &h, sizeof(h));
	h.crc = pager_page_crc(page);
	memcpy(page, &h.crc, sizeof(h.crc));
}

/* Check a page's checksum and header; describe a problem in msg. */
bool
pager_page_check_header(const uint8_t *page, const ArtFileId *id,
						uint32_t pageno, uint16_t kind, char *msg,
						size_t msglen)
{
	PagerPageHeader h;
	uint32_t	crc = pager_page_crc(page);

	memcpy(&h, page, sizeof(h));
	if (crc != h.crc)
		snprintf(msg, msglen, "checksum mismatch: stored %08X, computed %08X",
				 h.crc, crc);
	else if (h.dbOid != id->dbOid || h.relNumber != id->relNumber ||
			 h.generation != id->generation)
		snprintf(msg, msglen, "page belongs to file %u/%u.%u",
				 h.dbOid, h.relNumber, h.generation);
	else if (h.kind != kind || h.version != PAGER_FORMAT_VERSION)
		snprintf(msg, msglen, "page kind %u version %u, expected kind %u version %u",
				 h.kind, h.version, kind, PAGER_FORMAT_VERSION);
	else if (h.pageno != pageno)
		snprintf(msg, msglen, "page carries number %u", h.pageno);
	else
		return true;
	return false;
}

/* A whole meta page's format version if it is not this build's, else 0. */
uint16_t
pager_meta_other_format(const uint8_t *page, const ArtFileId *id, int slot)
{
	PagerPageHeader h;

	memcpy(&h, page, sizeof(h));
	if (h.crc != pager_page_crc(page) || h.dbOid != id->dbOid ||
		h.relNumber != id->relNumber || h.generation != id->generation ||
		h.kind != PAGER_KIND_META || h.pageno != (uint32_t) slot ||
		h.version == PAGER_FORMAT_VERSION)
		return 0;
	return h.version;
}

/* Map pages that nlogical logical pages need. */
uint32_t
pager_map_pages(uint32_t nlogical, uint32_t fanout)
{
	return (uint32_t) (((uint64_t) nlogical + fanout - 1) / fanout);
}

/* Directory pages that nlogical logical pages need. */
uint32_t
pager_dir_pages(uint32_t nlogical, uint32_t fanout)
{
	return (uint32_t) (((uint64_t) pager_map_pages(nlogical, fanout) + fanout - 1) / fanout);
}

/* The most logical pages a file with this fanout can have. */
uint32_t
pager_max_logical(uint32_t fanout)
{
	return (uint32_t) ((uint64_t) PAGER_MAX_DIR_PAGES * fanout * fanout);
}

/* Fill and seal a meta page. */
void
pager_meta_encode(uint8_t *page, const ArtFileId *id, int slot,
				  const PagerMeta *meta, const uint32_t *dirpages)
{
	PagerMeta	m = *meta;

	memset(page, 0, ART_PAGE_SIZE);
	m.magic = PAGER_META_MAGIC;
	m.format_version = PAGER_FORMAT_VERSION;
	m.page_size = ART_PAGE_SIZE;
	memcpy(page + ART_PAGE_RESERVED, &m, sizeof(m));
	if (m.ndir > 0)
		memcpy(page + ART_PAGE_RESERVED + offsetof(PagerMeta, dirpages),
			   dirpages, sizeof(uint32_t) * m.ndir);
	pager_page_seal_header(page, id, (uint32_t) slot, PAGER_KIND_META,
						   m.ckpt_no);
}

/* Check and decode a meta page; describe a problem in msg. */
bool
pager_meta_decode(const uint8_t *page, const ArtFileId *id, int slot,
				  PagerMeta *meta, const uint8_t **dirpages, char *msg,
				  size_t msglen)
{
	PagerPageHeader h;

	if (!pager_page_check_header(page, id, (uint32_t) slot, PAGER_KIND_META,
								 msg, msglen))
		return false;
	memcpy(&h, page, sizeof(h));
	memcpy(meta, page + ART_PAGE_RESERVED, sizeof(PagerMeta));
	if (meta->magic != PAGER_META_MAGIC ||
		meta->format_version != PAGER_FORMAT_VERSION ||
		meta->page_size != ART_PAGE_SIZE)
	{
		snprintf(msg, msglen, "bad magic number, format version or page size");
		return false;
	}
	if (meta->fanout < 1 || meta->fanout > PAGER_MAP_PER_PAGE ||
		meta->nlogical > pager_max_logical(meta->fanout) ||
		meta->ndir != pager_dir_pages(meta->nlogical, meta->fanout) ||
		meta->nphys < PAGER_FIRST_DATA_PHYS || meta->nphys > PAGER_MAX_PHYS ||
		meta->nused > meta->nlogical || meta->ckpt_no != h.ckpt_no)
	{
		snprintf(msg, msglen, "inconsistent counts");
		return false;
	}
	*dirpages = page + ART_PAGE_RESERVED + offsetof(PagerMeta, dirpages);
	return true;
}
