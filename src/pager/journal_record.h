/*-------------------------------------------------------------------------
 *
 * journal_record.h
 *	  The journal's record format, and the check recovery runs on every
 *	  record it reads.
 *
 * Plain C (no PostgreSQL header), so that the journal fuzzer
 * (test/fuzz/fuzz_journal.c) runs the very decoder recovery runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_JOURNAL_RECORD_H
#define ARTRIE_JOURNAL_RECORD_H

#include "pager/pager_page.h"

typedef enum JournalOp
{
	JOURNAL_INSERT = 1,
	JOURNAL_DELETE = 2
} JournalOp;

/* A bound on entries, above the longest a trie takes (1 MiB and a bit). */
#define JOURNAL_MAX_ENTRY	((size_t) 2 * 1024 * 1024)

/* A record's header; the entry's bytes follow it. */
typedef struct JournalRecord
{
	uint32_t	crc;			/* CRC32C of the bytes after this field */
	uint32_t	len;			/* header and entry */
	uint64_t	pos;			/* where the record starts */
	uint32_t	epoch;			/* the control file's, when appended */
	uint32_t	op;				/* JournalOp */
	uint32_t	root;			/* the trie's root page */
	ArtFileId	file;
	uint64_t	wal_lsn;		/* WAL insert position at the append */
} JournalRecord;

/* The CRC a record carries: its header after the CRC field, then its entry. */
extern uint32_t journal_record_crc(const JournalRecord *rec, const void *entry,
								   size_t entrylen);

/*
 * Copy n bytes of the journal at pos into dst; false if the journal has
 * no such bytes (its end).
 */
typedef bool (*JournalReadFn) (void *arg, uint64_t pos, void *dst, size_t n);

/*
 * Read the record at pos and check it: true with *rec, its entry in entry
 * (room for JOURNAL_MAX_ENTRY bytes) and *entrylen, if it is a whole,
 * undamaged record of this epoch written at pos; false where replay must
 * stop (the end, a torn or garbled record, stale bytes).
 */
extern bool journal_record_read(JournalReadFn read, void *arg, uint64_t pos,
								uint32_t epoch, JournalRecord *rec,
								uint8_t *entry, size_t *entrylen);

#endif							/* ARTRIE_JOURNAL_RECORD_H */
