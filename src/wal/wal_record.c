/*-------------------------------------------------------------------------
 *
 * wal_record.c
 *	  Decoding artrie's WAL record payloads (see wal_record.h).
 *
 * Plain C: the WAL record fuzzer runs these very functions.  Redo trusts
 * nothing that these checks did not accept: a record that PostgreSQL's
 * CRC passed may still come from another build of artrie.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "wal/wal_record.h"

/* Check and decode an entry record. */
bool
wal_entry_decode(const uint8_t *data, size_t len, WalEntryRecord *rec,
				 const uint8_t **entry)
{
	if (len < sizeof(WalEntryRecord))
		return false;
	memcpy(rec, data, sizeof(WalEntryRecord));
	if (rec->len == 0 || rec->len > WAL_MAX_ENTRY ||
		len != sizeof(WalEntryRecord) + rec->len)
		return false;
	*entry = data + sizeof(WalEntryRecord);
	return true;
}

/* Check and decode a merge record. */
bool
wal_merge_decode(const uint8_t *data, size_t len, WalEntryRecord *rec,
				 const uint8_t **entry, uint8_t *step)
{
	*step = 0;
	if (wal_entry_decode(data, len, rec, entry))
		return true;
	if (len == 0 || !wal_entry_decode(data, len - 1, rec, entry) ||
		data[len - 1] == 0 || data[len - 1] > WAL_MERGE_STEP_MAX)
		return false;
	*step = data[len - 1];
	return true;
}

/* The number of set bits among the first npages of used. */
int
wal_image_used_count(uint32_t used, uint32_t npages)
{
	int			n = 0;

	for (uint32_t i = 0; i < npages; i++)
		n += (used >> i) & 1;
	return n;
}

/*
 * Whether the n packed bodies at p are well formed and end at or before
 * end; *len is the bytes they take.
 */
static bool
image_packed_len(const uint8_t *p, const uint8_t *end, int n, size_t *len)
{
	const uint8_t *q = p;

	for (int i = 0; i < n; i++)
	{
		uint16_t	lower;
		uint16_t	upper;
		size_t		body;

		if ((size_t) (end - q) < WAL_IMAGE_PACK_HDR)
			return false;
		memcpy(&lower, q, sizeof(lower));
		memcpy(&upper, q + 2, sizeof(upper));
		if (lower < ART_PAGE_RESERVED || lower > upper || upper > ART_PAGE_SIZE)
			return false;
		body = WAL_IMAGE_PACK_HDR + (size_t) (lower - ART_PAGE_RESERVED) +
			(size_t) (ART_PAGE_SIZE - upper);
		if ((size_t) (end - q) < body)
			return false;
		q += body;
	}
	*len = (size_t) (q - p);
	return true;
}

/* Check and decode an image record. */
bool
wal_image_decode(const uint8_t *data, size_t len, WalImageRecord *rec,
				 const uint8_t **bodies, const uint8_t **freelist)
{
	size_t		nbodies;
	int			nused;

	if (len < sizeof(WalImageRecord))
		return false;
	memcpy(rec, data, sizeof(WalImageRecord));
	if (rec->npages > WAL_IMAGE_PAGES ||
		(rec->flags & ~(uint32_t) (WAL_IMAGE_FIRST | WAL_IMAGE_LAST | WAL_IMAGE_CKPT |
								   WAL_IMAGE_BEGUN | WAL_IMAGE_PACKED)) != 0 ||
		(rec->npages < WAL_IMAGE_PAGES && rec->npages > 0 &&
		 (rec->used >> rec->npages) != 0) ||
		(rec->npages == 0 && rec->used != 0) ||
		(uint64_t) rec->first + rec->npages > UINT32_MAX ||
		(!(rec->flags & WAL_IMAGE_LAST) && rec->nfree != 0) ||
		rec->nfree > UINT32_MAX / 8)
		return false;
	nused = wal_image_used_count(rec->used, rec->npages);
	*bodies = data + sizeof(WalImageRecord);
	if (!(rec->flags & WAL_IMAGE_PACKED))
		nbodies = (size_t) nused * WAL_IMAGE_BODY;
	else if (!image_packed_len(*bodies, data + len, nused, &nbodies))
		return false;
	if (len != sizeof(WalImageRecord) + nbodies + (size_t) rec->nfree * sizeof(uint32_t))
		return false;
	*freelist = *bodies + nbodies;
	return true;
}

/* Pack a page for an image record. */
size_t
wal_image_pack(const uint8_t *page, uint16_t lower, uint16_t upper,
			   uint8_t *out)
{
	size_t		head = (size_t) (lower - ART_PAGE_RESERVED);
	size_t		tail = (size_t) (ART_PAGE_SIZE - upper);

	memcpy(out, &lower, sizeof(lower));
	memcpy(out + 2, &upper, sizeof(upper));
	memcpy(out + WAL_IMAGE_PACK_HDR, page + ART_PAGE_RESERVED, head);
	memcpy(out + WAL_IMAGE_PACK_HDR + head, page + upper, tail);
	return WAL_IMAGE_PACK_HDR + head + tail;
}

/* The next body of a decoded image record. */
const uint8_t *
wal_image_body(const WalImageRecord *rec, const uint8_t **p, uint8_t *buf)
{
	const uint8_t *body = *p;
	uint16_t	lower;
	uint16_t	upper;
	size_t		head;
	size_t		tail;

	if (!(rec->flags & WAL_IMAGE_PACKED))
	{
		*p += WAL_IMAGE_BODY;
		return body;
	}
	memcpy(&lower, body, sizeof(lower));
	memcpy(&upper, body + 2, sizeof(upper));
	head = (size_t) (lower - ART_PAGE_RESERVED);
	tail = (size_t) (ART_PAGE_SIZE - upper);
	memcpy(buf, body + WAL_IMAGE_PACK_HDR, head);
	memset(buf + head, 0, (size_t) (upper - lower));
	memcpy(buf + WAL_IMAGE_BODY - tail, body + WAL_IMAGE_PACK_HDR + head, tail);
	*p = body + WAL_IMAGE_PACK_HDR + head + tail;
	return buf;
}

/* Check and decode an unchanged or image-begin record. */
bool
wal_file_since_decode(const uint8_t *data, size_t len, WalFileSinceRecord *rec)
{
	if (len != sizeof(WalFileSinceRecord))
		return false;
	memcpy(rec, data, sizeof(WalFileSinceRecord));
	return rec->pad == 0 && rec->since != 0;
}

/* Check and decode a vacuum record. */
bool
wal_vacuum_decode(const uint8_t *data, size_t len, WalVacuumRecord *rec)
{
	if (len != sizeof(WalVacuumRecord))
		return false;
	memcpy(rec, data, sizeof(WalVacuumRecord));
	return rec->pad == 0;
}
