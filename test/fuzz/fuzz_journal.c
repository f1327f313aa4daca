/*-------------------------------------------------------------------------
 *
 * fuzz_journal.c
 *	  libFuzzer harness for the journal's record decoder
 *	  (journal_record_read in src/pager/journal_record.c, the code recovery
 *	  runs): replay over any bytes must stop cleanly at the first record
 *	  that is not whole, undamaged, of its epoch and at its position, never
 *	  read outside the record it checks, never crash.
 *
 * Build and run: make fuzz-run [FUZZ_SECONDS=n] (see test/fuzz/fuzz.mk).
 *
 * Bit 0 of the first input byte picks the mode.
 *
 * Raw: two bytes give the position where the bytes start (recovery's
 * start, past the first page) and one the epoch; the rest of the input is
 * the journal from there.  The harness runs recovery's loop over it and
 * checks every record the decoder accepts: its position and epoch are the
 * expected ones, its length lies within the input, its operation is
 * valid, its CRC verifies with an independent reference CRC32C over the
 * input's own bytes, its entry is those bytes, and the decoder read
 * nothing outside [position, position + length).
 *
 * Generated: the input describes records (operation, entry length and
 * bytes), which the harness writes as a valid journal (sealed with the
 * reference CRC32C), then damages one of them (a flipped bit, a cut, a
 * stale epoch, a wrong position) or none.  The decoder must accept
 * exactly the records before the damaged one, and all of them if none is.
 *
 *-------------------------------------------------------------------------
 */
#include "fuzz_common.h"
#include "pager/journal_record.h"

#define JOURNAL_PAGE	4096
#define MAX_RECORDS		16
#define MAX_GEN_ENTRY	600

/* The journal bytes the decoder may read, and what it did read. */
typedef struct Stream
{
	const uint8_t *bytes;
	size_t		len;
	uint64_t	start;			/* position of bytes[0] */
	uint64_t	lo;				/* lowest position read */
	uint64_t	hi;				/* end of the highest read */
} Stream;

/* JournalReadFn over a Stream: false past its end. */
static bool
stream_read(void *arg, uint64_t pos, void *dst, size_t n)
{
	Stream	   *s = arg;

	if (pos < s->start)
		FAIL("decoder reads before the journal's start");
	if (pos - s->start > s->len || n > s->len - (pos - s->start))
		return false;
	if (pos < s->lo)
		s->lo = pos;
	if (pos + n > s->hi)
		s->hi = pos + n;
	memcpy(dst, s->bytes + (pos - s->start), n);
	return true;
}

/* The CRC a record's bytes should carry, by the reference CRC32C. */
static uint32_t
ref_record_crc(const uint8_t *rec, size_t len)
{
	return ref_crc32c(0xFFFFFFFFu, rec + 4, len - 4) ^ 0xFFFFFFFFu;
}

/*
 * Run recovery's loop over the stream from its start: the number of
 * records accepted, each checked against the bytes it came from.
 */
static int
replay(Stream *s, uint32_t epoch)
{
	static uint8_t entry[JOURNAL_MAX_ENTRY];
	uint64_t	pos = s->start;
	int			n = 0;

	for (;;)
	{
		JournalRecord rec;
		size_t		entrylen;
		const uint8_t *raw;

		s->lo = UINT64_MAX;
		s->hi = 0;
		if (!journal_record_read(stream_read, s, pos, epoch, &rec, entry,
								 &entrylen))
			break;
		if (s->lo != pos || s->hi != pos + rec.len)
			FAIL("record at %llu: decoder read [%llu, %llu), record is %u bytes",
				 (unsigned long long) pos, (unsigned long long) s->lo,
				 (unsigned long long) s->hi, rec.len);
		if (rec.pos != pos || rec.epoch != epoch ||
			rec.len < sizeof(JournalRecord) ||
			entrylen != rec.len - sizeof(JournalRecord) ||
			entrylen > JOURNAL_MAX_ENTRY ||
			(rec.op != JOURNAL_INSERT && rec.op != JOURNAL_DELETE))
			FAIL("record at %llu accepted with bad fields",
				 (unsigned long long) pos);
		if (pos - s->start + rec.len > s->len)
			FAIL("record at %llu accepted past the end of the input",
				 (unsigned long long) pos);
		raw = s->bytes + (pos - s->start);
		if (memcmp(raw, &rec, sizeof(rec)) != 0 ||
			memcmp(raw + sizeof(rec), entry, entrylen) != 0)
			FAIL("record at %llu decoded to other bytes",
				 (unsigned long long) pos);
		if (ref_record_crc(raw, rec.len) != rec.crc)
			FAIL("record at %llu accepted with a bad CRC",
				 (unsigned long long) pos);
		pos += rec.len;
		n++;
	}
	return n;
}

/* Raw bytes as the journal from some position on. */
static void
fuzz_raw(Input *in)
{
	Stream		s;
	uint32_t	epoch;

	memset(&s, 0, sizeof(s));
	s.start = JOURNAL_PAGE + (uint64_t) next_u16(in) * 8;
	epoch = next_byte(in);
	s.bytes = in->p;
	s.len = in->n;
	replay(&s, epoch);
}

/* Records described by the input, written validly, one of them damaged. */
static void
fuzz_generated(Input *in)
{
	static uint8_t buf[MAX_RECORDS * (sizeof(JournalRecord) + MAX_GEN_ENTRY)];
	size_t		offs[MAX_RECORDS + 1];
	uint64_t	start = JOURNAL_PAGE + (uint64_t) next_u16(in) * 8;
	uint32_t	epoch = next_byte(in) | 1;
	int			nrec = next_byte(in) % MAX_RECORDS + 1;
	uint8_t		damage = next_byte(in);
	int			victim = next_byte(in) % nrec;
	uint16_t	where = next_u16(in);
	size_t		len = 0;
	int			expect = nrec;
	Stream		s;
	int			i;

	for (i = 0; i < nrec; i++)
	{
		JournalRecord rec;
		uint8_t		op = next_byte(in);
		size_t		elen = next_u16(in) % MAX_GEN_ENTRY;
		uint8_t		fill = next_byte(in);
		uint8_t    *p = buf + len;
		size_t		k;

		memset(&rec, 0, sizeof(rec));
		rec.len = (uint32_t) (sizeof(rec) + elen);
		rec.pos = start + len;
		rec.epoch = epoch;
		rec.op = (op & 1) ? JOURNAL_INSERT : JOURNAL_DELETE;
		rec.root = op;
		rec.file.dbOid = 5;
		rec.file.relNumber = 16384 + (op >> 4);
		rec.file.generation = 1;
		rec.wal_lsn = (uint64_t) fill << 20;
		if (i == victim && (damage & 7) == 3)
			rec.epoch = epoch - 1;	/* stale: an earlier run's record */
		if (i == victim && (damage & 7) == 4)
			rec.pos += JOURNAL_PAGE;	/* written for another place */
		memcpy(p, &rec, sizeof(rec));
		for (k = 0; k < elen; k++)
			p[sizeof(rec) + k] = (uint8_t) (fill + k * (op | 1));
		rec.crc = ref_record_crc(p, rec.len);
		memcpy(p, &rec.crc, sizeof(rec.crc));
		offs[i] = len;
		len += rec.len;
	}
	offs[nrec] = len;

	switch (damage & 7)
	{
		case 1:
			/* a flipped bit inside the victim */
			{
				size_t		reclen = offs[victim + 1] - offs[victim];
				size_t		bit = where % (reclen * 8);

				buf[offs[victim] + bit / 8] ^= (uint8_t) (1 << (bit % 8));
				expect = victim;
			}
			break;
		case 2:
			/* cut inside the victim (a torn write) */
			len = offs[victim] + where % (offs[victim + 1] - offs[victim]);
			expect = victim;
			break;
		case 3:
		case 4:
			expect = victim;
			break;
		default:
			break;
	}

	memset(&s, 0, sizeof(s));
	s.start = start;
	s.bytes = buf;
	s.len = len;
	i = replay(&s, epoch);
	if (i != expect)
		FAIL("%d of %d records accepted, expected %d (damage %d to record %d)",
			 i, nrec, expect, damage & 7, victim);
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
