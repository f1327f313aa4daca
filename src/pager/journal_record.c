/*-------------------------------------------------------------------------
 *
 * journal_record.c
 *	  Checking journal records as recovery reads them.
 *
 * A record's own position and epoch tell it from stale bytes of an
 * earlier use of the same place, its length bounds what is read next, and
 * its CRC32C catches torn and garbled bytes.  Plain C: see
 * journal_record.h.
 *
 *-------------------------------------------------------------------------
 */
#include "pager/journal_record.h"

/* The CRC of a record's header after the CRC field, then its entry. */
uint32_t
journal_record_crc(const JournalRecord *rec, const void *entry,
				   size_t entrylen)
{
	uint32_t	crc = PAGER_CRC32C_INIT;

	crc = pager_crc32c_extend(crc, (const uint8_t *) rec + sizeof(rec->crc),
							  sizeof(JournalRecord) - sizeof(rec->crc));
	crc = pager_crc32c_extend(crc, entry, entrylen);
	return PAGER_CRC32C_FIN(crc);
}

/* Read and check the record at pos; false where replay stops. */
bool
journal_record_read(JournalReadFn read, void *arg, uint64_t pos,
					uint32_t epoch, JournalRecord *rec, uint8_t *entry,
					size_t *entrylen)
{
	if (!read(arg, pos, rec, sizeof(JournalRecord)))
		return false;
	if (rec->pos != pos || rec->epoch != epoch ||
		rec->len < sizeof(JournalRecord) ||
		rec->len - sizeof(JournalRecord) > JOURNAL_MAX_ENTRY ||
		(rec->op != JOURNAL_INSERT && rec->op != JOURNAL_DELETE))
		return false;
	*entrylen = rec->len - sizeof(JournalRecord);
	if (!read(arg, pos + sizeof(JournalRecord), entry, *entrylen))
		return false;
	return rec->crc == journal_record_crc(rec, entry, *entrylen);
}
