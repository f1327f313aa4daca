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

/* The number of set bits among the first npages of used. */
int
wal_image_used_count(uint32_t used, uint32_t npages)
{
	int			n = 0;

	for (uint32_t i = 0; i < npages; i++)
		n += (used >> i) & 1;
	return n;
}

/* Check and decode an image record. */
bool
wal_image_decode(const uint8_t *data, size_t len, WalImageRecord *rec,
				 const uint8_t **bodies, const uint8_t **freelist)
{
	size_t		need;

	if (len < sizeof(WalImageRecord))
		return false;
	memcpy(rec, data, sizeof(WalImageRecord));
	if (rec->npages > WAL_IMAGE_PAGES ||
		(rec->flags & ~(uint32_t) (WAL_IMAGE_FIRST | WAL_IMAGE_LAST | WAL_IMAGE_CKPT | WAL_IMAGE_BEGUN)) != 0 ||
		(rec->npages < WAL_IMAGE_PAGES && rec->npages > 0 &&
		 (rec->used >> rec->npages) != 0) ||
		(rec->npages == 0 && rec->used != 0) ||
		(uint64_t) rec->first + rec->npages > UINT32_MAX ||
		(!(rec->flags & WAL_IMAGE_LAST) && rec->nfree != 0) ||
		rec->nfree > UINT32_MAX / 8)
		return false;
	need = sizeof(WalImageRecord) +
		(size_t) wal_image_used_count(rec->used, rec->npages) * WAL_IMAGE_BODY +
		(size_t) rec->nfree * sizeof(uint32_t);
	if (len != need)
		return false;
	*bodies = data + sizeof(WalImageRecord);
	*freelist = *bodies + (size_t) wal_image_used_count(rec->used, rec->npages) * WAL_IMAGE_BODY;
	return true;
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
