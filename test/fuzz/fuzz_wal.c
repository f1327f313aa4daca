/*-------------------------------------------------------------------------
 *
 * fuzz_wal.c
 *	  libFuzzer harness for the decoders of artrie's WAL record payloads
 *	  (wal_entry_decode, wal_merge_decode and wal_image_decode in
 *	  src/wal/wal_record.c, the
 *	  code redo runs on every artrie record): any bytes must be accepted
 *	  exactly when they are a well-formed payload, never crash or read
 *	  outside the payload, and an accepted payload must decode to its own
 *	  bytes.
 *
 * Build and run: make fuzz-run [FUZZ_SECONDS=n] (see test/fuzz/fuzz.mk).
 *
 * The harness reads the format on its own, at fixed byte offsets in the
 * machine's byte order (as XLogRegisterData writes the structs): an entry
 * record is file (dbOid, relNumber, generation), root and len, 4 bytes
 * each, then len entry bytes, len between 1 and WAL_MAX_ENTRY (a merge
 * record may carry one more byte, its step, 1 to WAL_MERGE_STEP_MAX); an image
 * record is file, flags, first, npages, used, nfree and PAGER_USER_WORDS
 * user words, 4 bytes each, then the WAL_IMAGE_BODY-byte bodies of the
 * pages whose bit is set among the first npages bits of used (with
 * WAL_IMAGE_PACKED each body is a 2-byte lower and a 2-byte upper,
 * ART_PAGE_RESERVED <= lower <= upper <= ART_PAGE_SIZE, then lower -
 * ART_PAGE_RESERVED bytes and ART_PAGE_SIZE - upper bytes, which unpack
 * around upper - lower zeros), then nfree
 * 4-byte page numbers; flags hold only WAL_IMAGE_FIRST, WAL_IMAGE_LAST,
 * WAL_IMAGE_CKPT, WAL_IMAGE_BEGUN and WAL_IMAGE_PACKED, npages is at most WAL_IMAGE_PAGES, used has no bit at
 * or past npages, first + npages fits in 32 bits, and nfree is 0 without
 * WAL_IMAGE_LAST; an unchanged record, and an image-begin record, is
 * file, 4 zero bytes and a nonzero 8-byte WAL position, 24 bytes in all; a vacuum record is file
 * and 4 zero bytes, 16 bytes in all.  A change to the structs'
 * layout changes what older
 * WAL means, so it must fail here too.
 *
 * Bit 0 of the first input byte picks the mode.
 *
 * Raw: the rest of the input is a payload, given to all six decoders.  Each
 * must accept it exactly when the harness's reading says it is
 * well-formed, and what it accepts must decode to the fields at their
 * offsets, with the entry, the bodies and the free list pointing into the
 * payload, one after another, covering it to its last byte.
 *
 * Generated: the input describes one record (kind, fields, entry or
 * page contents), which the harness writes well-formed; the decoder must
 * accept it and decode it to what was written.  Then, by a further input
 * byte, the harness breaks one rule of the format (a byte more or less, a
 * length of 0 or past the bound, too many pages, a stray used bit, an
 * unknown flag, a free list without WAL_IMAGE_LAST, a page range past
 * 2^32, a packed body whose lower passes its upper) or none, and the
 * decoder must reject what was broken.
 *
 *-------------------------------------------------------------------------
 */
#include "fuzz_common.h"
#include "wal/wal_record.h"

/* The format's offsets, as the harness reads it. */
#define ENTRY_HDR		20
#define IMAGE_OFF_FLAGS	12
#define IMAGE_OFF_FIRST	16
#define IMAGE_OFF_NPAGES 20
#define IMAGE_OFF_USED	24
#define IMAGE_OFF_NFREE	28
#define IMAGE_OFF_USER	32
#define IMAGE_HDR		(IMAGE_OFF_USER + 4 * PAGER_USER_WORDS)
#define UNCHANGED_OFF_PAD	12
#define UNCHANGED_OFF_SINCE	16
#define UNCHANGED_LEN	24
#define VACUUM_OFF_PAD	12
#define VACUUM_LEN	16

/* Bounds on what the generated mode builds. */
#define MAX_GEN_ENTRY	70000
#define MAX_GEN_FREE	600
#define GEN_BUF_SIZE	(IMAGE_HDR + \
						 WAL_IMAGE_PAGES * (WAL_IMAGE_PACK_HDR + WAL_IMAGE_BODY) + \
						 4 * (MAX_GEN_FREE + 1))

static uint32_t
get_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Whether a decoded file id is the one at the start of data. */
static bool
file_is(const ArtFileId *file, const uint8_t *data)
{
	return file->dbOid == get_u32(data) &&
		file->relNumber == get_u32(data + 4) &&
		file->generation == get_u32(data + 8);
}

static uint32_t
next_u32(Input *in)
{
	uint32_t	lo = next_u16(in);

	return lo | ((uint32_t) next_u16(in) << 16);
}

/* A file id from the input. */
static ArtFileId
next_file(Input *in)
{
	ArtFileId	file;

	file.dbOid = next_u32(in);
	file.relNumber = next_u32(in);
	file.generation = next_u32(in);
	return file;
}

/* Write a file id at the start of a record. */
static void
put_file(uint8_t *p, const ArtFileId *file)
{
	put_u32(p, file->dbOid);
	put_u32(p + 4, file->relNumber);
	put_u32(p + 8, file->generation);
}

/* The bits of used that name pages, by the harness's reading. */
static uint32_t
ref_used_mask(uint32_t npages)
{
	return npages >= 32 ? UINT32_MAX : (uint32_t) ((1ull << npages) - 1);
}

/* Set bits in v, counted one by one. */
static int
ref_popcount(uint32_t v)
{
	int			n = 0;

	while (v != 0)
	{
		v &= v - 1;
		n++;
	}
	return n;
}

/* Whether the harness's reading says data[0, len) is an entry payload. */
static bool
ref_entry_ok(const uint8_t *data, size_t len)
{
	uint32_t	elen;

	if (len < ENTRY_HDR)
		return false;
	elen = get_u32(data + 16);
	return elen >= 1 && elen <= WAL_MAX_ENTRY &&
		(uint64_t) len == (uint64_t) ENTRY_HDR + elen;
}

/* A 2-byte field in the machine's byte order. */
static uint32_t
get_u16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The bytes of the bodies of an image payload data[0, len) with these
 * flags and used pages, by the harness's reading; -1 if the packed ones
 * are malformed or run past len.
 */
static int64_t
ref_bodies_len(const uint8_t *data, size_t len, uint32_t flags, uint32_t used)
{
	size_t		pos = IMAGE_HDR;

	if (!(flags & WAL_IMAGE_PACKED))
		return (int64_t) ref_popcount(used) * WAL_IMAGE_BODY;
	for (int i = ref_popcount(used); i > 0; i--)
	{
		uint32_t	lower;
		uint32_t	upper;

		if (len - pos < 4)
			return -1;
		lower = get_u16(data + pos);
		upper = get_u16(data + pos + 2);
		if (lower < ART_PAGE_RESERVED || lower > upper || upper > ART_PAGE_SIZE ||
			len - pos - 4 < (lower - ART_PAGE_RESERVED) + (ART_PAGE_SIZE - upper))
			return -1;
		pos += 4 + (lower - ART_PAGE_RESERVED) + (ART_PAGE_SIZE - upper);
	}
	return (int64_t) (pos - IMAGE_HDR);
}

/* Whether the harness's reading says data[0, len) is an image payload. */
static bool
ref_image_ok(const uint8_t *data, size_t len)
{
	uint32_t	flags,
				first,
				npages,
				used,
				nfree;
	int64_t		blen;

	if (len < IMAGE_HDR)
		return false;
	flags = get_u32(data + IMAGE_OFF_FLAGS);
	first = get_u32(data + IMAGE_OFF_FIRST);
	npages = get_u32(data + IMAGE_OFF_NPAGES);
	used = get_u32(data + IMAGE_OFF_USED);
	nfree = get_u32(data + IMAGE_OFF_NFREE);
	if (npages > WAL_IMAGE_PAGES ||
		(flags & ~(uint32_t) (WAL_IMAGE_FIRST | WAL_IMAGE_LAST | WAL_IMAGE_CKPT |
							  WAL_IMAGE_BEGUN | WAL_IMAGE_PACKED)) != 0 ||
		(used & ~ref_used_mask(npages)) != 0 ||
		(uint64_t) first + npages > UINT32_MAX ||
		(nfree != 0 && !(flags & WAL_IMAGE_LAST)))
		return false;
	blen = ref_bodies_len(data, len, flags, used);
	return blen >= 0 &&
		(uint64_t) len == (uint64_t) IMAGE_HDR + (uint64_t) blen + (uint64_t) nfree * 4;
}

/*
 * Run the entry decoder over data[0, len): fail unless it answers as the
 * harness's reading does, and, if it accepts, decodes to the payload's own
 * fields and bytes.  Returns whether it accepted.
 */
static bool
check_entry(const uint8_t *data, size_t len)
{
	WalEntryRecord rec;
	const uint8_t *entry = NULL;
	bool		got = wal_entry_decode(data, len, &rec, &entry);
	bool		want = ref_entry_ok(data, len);

	if (got != want)
		FAIL("entry decoder says %d for %zu bytes, expected %d", got, len, want);
	if (!got)
		return false;
	if (!file_is(&rec.file, data) || rec.root != get_u32(data + 12) || rec.len != get_u32(data + 16))
		FAIL("entry record decoded to other fields");
	if (entry != data + ENTRY_HDR || entry + rec.len != data + len)
		FAIL("entry at offset %td of %u bytes, payload of %zu bytes",
			 entry - data, rec.len, len);
	return true;
}

/*
 * Run the merge decoder over data[0, len), as check_entry does the entry
 * decoder: an entry payload (step 0), or one and a step byte from 1 to
 * WAL_MERGE_STEP_MAX.  Returns whether it accepted.
 */
static bool
check_merge(const uint8_t *data, size_t len)
{
	WalEntryRecord rec;
	const uint8_t *entry = NULL;
	uint8_t		step = 0xFF;
	bool		got = wal_merge_decode(data, len, &rec, &entry, &step);
	bool		plain = ref_entry_ok(data, len);
	bool		want = plain ||
		(len >= 1 && ref_entry_ok(data, len - 1) && data[len - 1] >= 1 &&
		 data[len - 1] <= WAL_MERGE_STEP_MAX);

	if (got != want)
		FAIL("merge decoder says %d for %zu bytes, expected %d", got, len, want);
	if (!got)
		return false;
	if (step != (plain ? 0 : data[len - 1]))
		FAIL("merge record decoded to step %u", step);
	if (!file_is(&rec.file, data) || rec.root != get_u32(data + 12) || rec.len != get_u32(data + 16))
		FAIL("merge record decoded to other fields");
	if (entry != data + ENTRY_HDR || entry + rec.len + (step != 0) != data + len)
		FAIL("merge entry at offset %td of %u bytes, payload of %zu bytes",
			 entry - data, rec.len, len);
	return true;
}

/*
 * Run the image decoder over data[0, len), as check_entry does the entry
 * decoder; also check wal_image_used_count on what it accepts.
 */
static bool
check_image(const uint8_t *data, size_t len)
{
	WalImageRecord rec;
	const uint8_t *bodies = NULL;
	const uint8_t *freelist = NULL;
	bool		got = wal_image_decode(data, len, &rec, &bodies, &freelist);
	bool		want = ref_image_ok(data, len);
	int			nused;

	if (got != want)
		FAIL("image decoder says %d for %zu bytes, expected %d", got, len, want);
	if (!got)
		return false;
	if (!file_is(&rec.file, data) || rec.flags != get_u32(data + IMAGE_OFF_FLAGS) ||
		rec.first != get_u32(data + IMAGE_OFF_FIRST) ||
		rec.npages != get_u32(data + IMAGE_OFF_NPAGES) ||
		rec.used != get_u32(data + IMAGE_OFF_USED) ||
		rec.nfree != get_u32(data + IMAGE_OFF_NFREE))
		FAIL("image record decoded to other fields");
	for (int w = 0; w < PAGER_USER_WORDS; w++)
		if (rec.user[w] != get_u32(data + IMAGE_OFF_USER + 4 * w))
			FAIL("image record decoded to another user word %d", w);
	nused = ref_popcount(rec.used);
	if (wal_image_used_count(rec.used, rec.npages) != nused)
		FAIL("used bitmap %08X over %u pages counts %d pages, expected %d",
			 rec.used, rec.npages,
			 wal_image_used_count(rec.used, rec.npages), nused);
	if (bodies != data + IMAGE_HDR ||
		freelist != bodies + ref_bodies_len(data, len, rec.flags, rec.used) ||
		freelist + (size_t) rec.nfree * 4 != data + len)
		FAIL("image bodies at offset %td, free list at %td of %u pages, payload of %zu bytes",
			 bodies - data, freelist - data, rec.nfree, len);
	return true;
}

/*
 * Check what a decoder of a record of the unchanged record's layout (file,
 * 4 zero bytes, a nonzero 8-byte position) answered for data[0, len):
 * got, and the file and position it decoded.
 */
static void
check_since_layout(const char *what, const uint8_t *data, size_t len,
				   bool got, const ArtFileId *file, uint64_t got_since)
{
	uint64_t	since = 0;
	bool		want;

	if (len == UNCHANGED_LEN)
		memcpy(&since, data + UNCHANGED_OFF_SINCE, sizeof(since));
	want = len == UNCHANGED_LEN && get_u32(data + UNCHANGED_OFF_PAD) == 0 &&
		since != 0;
	if (got != want)
		FAIL("%s decoder says %d for %zu bytes, expected %d", what, got, len, want);
	if (got && (!file_is(file, data) || got_since != since))
		FAIL("%s record decoded to other fields", what);
}

/*
 * Run the decoder of unchanged and image-begin records (one layout) over
 * data[0, len), as check_entry does the entry decoder.
 */
static void
check_unchanged(const uint8_t *data, size_t len)
{
	WalFileSinceRecord rec;
	bool		got = wal_file_since_decode(data, len, &rec);

	check_since_layout("unchanged", data, len, got, &rec.file, rec.since);
}

/*
 * Run the vacuum record's decoder over data[0, len), as check_entry does
 * the entry decoder.
 */
static void
check_vacuum(const uint8_t *data, size_t len)
{
	WalVacuumRecord rec;
	bool		got = wal_vacuum_decode(data, len, &rec);
	bool		want = len == VACUUM_LEN && get_u32(data + VACUUM_OFF_PAD) == 0;

	if (got != want)
		FAIL("vacuum decoder says %d for %zu bytes, expected %d", got, len, want);
	if (got && !file_is(&rec.file, data))
		FAIL("vacuum record decoded to other fields");
}

/* Raw bytes as a payload of every kind. */
static void
fuzz_raw(Input *in)
{
	(void) check_entry(in->p, in->n);
	(void) check_merge(in->p, in->n);
	(void) check_image(in->p, in->n);
	check_unchanged(in->p, in->n);
	check_vacuum(in->p, in->n);
}

/* The byte the generated mode writes at position k of page body i. */
static uint8_t
body_byte(uint8_t fill, uint32_t i, size_t k)
{
	return (uint8_t) (fill + i * 31 + k * (i | 1) + (k >> 8));
}

/*
 * A well-formed entry record from the input, then broken by the input's
 * choice, or not.
 */
static void
fuzz_gen_entry(Input *in, uint8_t *buf)
{
	WalEntryRecord rec;
	const uint8_t *entry;
	ArtFileId	file = next_file(in);
	uint32_t	root = next_u32(in);
	uint8_t		sizing = next_byte(in);
	uint32_t	elen;
	uint8_t		fill = next_byte(in);
	uint8_t		damage = next_byte(in);
	size_t		len;

	/* Mostly short entries, some long, a few at the bound. */
	if (sizing == 0xFF)
		elen = (uint32_t) WAL_MAX_ENTRY;
	else if (sizing >= 0xF0)
		elen = next_u32(in) % MAX_GEN_ENTRY + 1;
	else
		elen = (next_u16(in) & 0x3FF) + 1;

	put_file(buf, &file);
	put_u32(buf + 12, root);
	put_u32(buf + 16, elen);
	for (size_t k = 0; k < elen; k++)
		buf[ENTRY_HDR + k] = k < in->n ? in->p[k] : body_byte(fill, 0, k);
	len = ENTRY_HDR + elen;

	if (!check_entry(buf, len))
		FAIL("well-formed entry record of %u bytes rejected", elen);
	if (!wal_entry_decode(buf, len, &rec, &entry))
		FAIL("entry decoder not deterministic");
	if (memcmp(&rec.file, &file, sizeof(file)) != 0 || rec.root != root || rec.len != elen)
		FAIL("entry record decoded to other fields than written");
	for (size_t k = 0; k < elen; k++)
		if (entry[k] != (k < in->n ? in->p[k] : body_byte(fill, 0, k)))
			FAIL("entry byte %zu decoded differently", k);
	if (!check_merge(buf, len))
		FAIL("well-formed merge record of %u bytes rejected", elen);
	buf[len] = (uint8_t) (1 + fill % WAL_MERGE_STEP_MAX);
	if (!check_merge(buf, len + 1))
		FAIL("well-formed merge record of %u bytes with step %u rejected",
			 elen, buf[len]);

	switch (damage % 6)
	{
		case 1:					/* one byte short */
			len--;
			break;
		case 2:					/* one byte too many */
			buf[len++] = 0;
			break;
		case 3:					/* an empty entry */
			put_u32(buf + 16, 0);
			len = ENTRY_HDR;
			break;
		case 4:					/* an entry past the bound */
			put_u32(buf + 16, (uint32_t) WAL_MAX_ENTRY + 1);
			len = ENTRY_HDR + WAL_MAX_ENTRY + 1;
			break;
		case 5:					/* the header cut */
			len = damage % ENTRY_HDR;
			break;
		default:
			return;
	}
	if (check_entry(buf, len))
		FAIL("broken entry record (damage %d) accepted", damage % 6);
}

/*
 * A well-formed image record from the input, then broken by the input's
 * choice, or not.
 */
static void
fuzz_gen_image(Input *in, uint8_t *buf)
{
	WalImageRecord rec;
	const uint8_t *bodies;
	const uint8_t *freelist;
	ArtFileId	file = next_file(in);
	uint32_t	flags = next_byte(in) & (WAL_IMAGE_FIRST | WAL_IMAGE_LAST | WAL_IMAGE_CKPT |
										 WAL_IMAGE_BEGUN | WAL_IMAGE_PACKED);
	uint32_t	npages = next_byte(in) % (WAL_IMAGE_PAGES + 1);
	uint32_t	first = next_u32(in);
	uint32_t	used = next_u32(in) & ref_used_mask(npages);
	uint32_t	nfree = (flags & WAL_IMAGE_LAST) ? next_u16(in) % (MAX_GEN_FREE + 1) : 0;
	uint32_t	user[PAGER_USER_WORDS];
	uint8_t		fill;
	uint8_t		damage;
	uint8_t    *p;
	size_t		len;
	uint32_t	nth;
	uint16_t	lower[WAL_IMAGE_PAGES];
	uint16_t	upper[WAL_IMAGE_PAGES];
	static uint8_t page[ART_PAGE_SIZE];
	static uint8_t unpacked[WAL_IMAGE_BODY];

	for (int w = 0; w < PAGER_USER_WORDS; w++)
		user[w] = next_u32(in);
	fill = next_byte(in);
	damage = next_byte(in);
	if ((uint64_t) first + npages > UINT32_MAX)
		first = UINT32_MAX - npages;

	put_file(buf, &file);
	put_u32(buf + IMAGE_OFF_FLAGS, flags);
	put_u32(buf + IMAGE_OFF_FIRST, first);
	put_u32(buf + IMAGE_OFF_NPAGES, npages);
	put_u32(buf + IMAGE_OFF_USED, used);
	put_u32(buf + IMAGE_OFF_NFREE, nfree);
	for (int w = 0; w < PAGER_USER_WORDS; w++)
		put_u32(buf + IMAGE_OFF_USER + 4 * w, user[w]);
	p = buf + IMAGE_HDR;
	for (uint32_t i = 0; i < npages; i++)
	{
		if (!(used & ((uint32_t) 1 << i)))
			continue;
		lower[i] = upper[i] = ART_PAGE_SIZE;
		if (!(flags & WAL_IMAGE_PACKED))
		{
			for (size_t k = 0; k < WAL_IMAGE_BODY; k++)
				*p++ = body_byte(fill, i, k);
			continue;
		}
		lower[i] = (uint16_t) (ART_PAGE_RESERVED + next_u16(in) % (WAL_IMAGE_BODY + 1));
		upper[i] = (uint16_t) (lower[i] + next_u16(in) % (ART_PAGE_SIZE - lower[i] + 1));
		for (size_t k = 0; k < WAL_IMAGE_BODY; k++)
			page[ART_PAGE_RESERVED + k] = body_byte(fill, i, k);
		p += wal_image_pack(page, lower[i], upper[i], p);
	}
	for (uint32_t i = 0; i < nfree; i++, p += 4)
		put_u32(p, first * 3 + i * 7);
	len = (size_t) (p - buf);

	if (!check_image(buf, len))
		FAIL("well-formed image record (%u pages, used %08X, %u free) rejected",
			 npages, used, nfree);
	if (!wal_image_decode(buf, len, &rec, &bodies, &freelist))
		FAIL("image decoder not deterministic");
	if (memcmp(&rec.file, &file, sizeof(file)) != 0 || rec.flags != flags ||
		rec.first != first || rec.npages != npages || rec.used != used ||
		rec.nfree != nfree || memcmp(rec.user, user, sizeof(user)) != 0)
		FAIL("image record decoded to other fields than written");
	nth = 0;
	for (uint32_t i = 0; i < npages; i++)
	{
		const uint8_t *at = bodies;
		const uint8_t *body;

		if (!(used & ((uint32_t) 1 << i)))
			continue;
		body = wal_image_body(&rec, &bodies, unpacked);
		if (!(flags & WAL_IMAGE_PACKED) &&
			(body != at || at != buf + IMAGE_HDR + (size_t) nth * WAL_IMAGE_BODY))
			FAIL("body of page %u not found in place", i);
		nth++;
		for (size_t k = 0; k < WAL_IMAGE_BODY; k++)
		{
			bool		hole = ART_PAGE_RESERVED + k >= lower[i] &&
				ART_PAGE_RESERVED + k < upper[i];

			if (body[k] != (hole ? 0 : body_byte(fill, i, k)))
				FAIL("body of page %u decoded differently at byte %zu", i, k);
		}
	}
	if (bodies != freelist)
		FAIL("the bodies end at offset %td, the free list begins at %td",
			 bodies - buf, freelist - buf);
	for (uint32_t i = 0; i < nfree; i++)
		if (get_u32(freelist + 4 * i) != first * 3 + i * 7)
			FAIL("free page %u decoded differently", i);

	switch (damage % 10)
	{
		case 1:					/* one byte short */
			len--;
			break;
		case 2:					/* one byte too many */
			buf[len++] = 0;
			break;
		case 3:					/* too many pages */
			put_u32(buf + IMAGE_OFF_NPAGES, WAL_IMAGE_PAGES + 1 + (damage >> 4));
			break;
		case 4:					/* a used bit past the pages */
			if (npages == WAL_IMAGE_PAGES)
				return;
			put_u32(buf + IMAGE_OFF_USED, used | ((uint32_t) 1 << (npages + (damage >> 4) % (32 - npages))));
			break;
		case 5:					/* an unknown flag */
			put_u32(buf + IMAGE_OFF_FLAGS, flags | ((uint32_t) 32 << ((damage >> 4) % 27)));
			break;
		case 6:					/* a free list without LAST */
			if (nfree == 0)
				return;
			put_u32(buf + IMAGE_OFF_FLAGS, flags & ~(uint32_t) WAL_IMAGE_LAST);
			break;
		case 7:					/* pages past 2^32 */
			if (npages == 0)
				return;
			put_u32(buf + IMAGE_OFF_FIRST, UINT32_MAX - npages + 1 + (damage >> 4) % npages);
			break;
		case 8:					/* the header cut */
			len = damage % IMAGE_HDR;
			break;
		case 9:					/* a packed body's lower past its upper */
			if (!(flags & WAL_IMAGE_PACKED) || used == 0)
				return;
			{
				uint16_t	past = (uint16_t) (get_u16(buf + IMAGE_HDR + 2) + 1);

				memcpy(buf + IMAGE_HDR, &past, sizeof(past));
			}
			break;
		default:
			return;
	}
	if (check_image(buf, len))
		FAIL("broken image record (damage %d) accepted", damage % 10);
}

/* A record built from the input. */
static void
fuzz_generated(Input *in)
{
	static uint8_t *buf;
	uint8_t		kind = next_byte(in);

	if (buf == NULL)
	{
		buf = calloc(1, GEN_BUF_SIZE > ENTRY_HDR + WAL_MAX_ENTRY + 1 ?
					 GEN_BUF_SIZE : ENTRY_HDR + WAL_MAX_ENTRY + 1);
		if (buf == NULL)
			FAIL("out of memory");
	}
	if (kind & 1)
		fuzz_gen_image(in, buf);
	else
		fuzz_gen_entry(in, buf);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size};
	uint8_t		mode = next_byte(&in);

	if (mode & 1)
		fuzz_generated(&in);
	else
		fuzz_raw(&in);
	return 0;
}
