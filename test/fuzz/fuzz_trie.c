/*-------------------------------------------------------------------------
 *
 * fuzz_trie.c
 *	  libFuzzer harness: the input is a stream of trie operations, replayed
 *	  against the trie (in-memory store) and the sorted-set model.  Any
 *	  disagreement, verify failure or store-rule violation aborts.
 *
 * Build and run: make fuzz-run [FUZZ_SECONDS=n] (see test/fuzz/fuzz.mk).
 *
 * Encoding: each operation is one opcode byte followed by its operands; a
 * key is a length byte (low 5 bits: 0-31 bytes taken from the input; 0xFF:
 * a long key of a repeated input byte, 1-12 KiB) then its bytes.  Inserts
 * and deletes with bit 4 of the opcode set go through one finger, kept
 * open across a run of them (so it holds its path between them) and
 * ended by any other operation; the finger packs pages (art_finger_pack)
 * when bit 5 of the opcode that begins it is set.
 *
 *-------------------------------------------------------------------------
 */
#include "fuzz_common.h"
#include "trie/trie_memstore.h"
#include "trie_check.h"

/* Decode a key into buf (at least 12 KiB + 32); returns its length. */
static size_t
next_key(Input *in, uint8_t *buf)
{
	uint8_t		l = next_byte(in);
	size_t		len;
	size_t		i;

	if (l == 0xFF)
	{
		uint8_t		fill = next_byte(in);

		len = 1024 + (size_t) next_byte(in) * 43;
		memset(buf, fill, len);
		/* a distinguishing tail */
		for (i = 0; i < 4; i++)
			buf[len++] = next_byte(in);
		return len;
	}
	len = l & 31;
	for (i = 0; i < len; i++)
		buf[i] = next_byte(in);
	return len;
}

static void
check(bool ok, const char *what)
{
	if (!ok)
		FAIL("mismatch: %s", what);
}

/*
 * Insert or delete in both, comparing statuses; through finger fg unless
 * it is NULL.
 */
static void
modify(ArtTrie *t, ArtFinger *fg, Model *m, bool insert, const uint8_t *key,
	   size_t len)
{
	ArtStatus	st;

	if (insert)
	{
		st = fg ? art_finger_insert(fg, key, len) : art_insert(t, key, len);
		if (st != (model_insert(m, key, len) ? ART_OK : ART_EXISTS))
			FAIL("insert: %s", art_status_string(st));
	}
	else
	{
		st = fg ? art_finger_delete(fg, key, len) : art_delete(t, key, len);
		if (st != (model_delete(m, key, len) ? ART_OK : ART_NOT_FOUND))
			FAIL("delete: %s", art_status_string(st));
		if (st == ART_OK && fg == NULL &&
			(st = art_merge(t, key, len)) != ART_OK)
			FAIL("merge: %s", art_status_string(st));
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t k1[13 * 1024];
	static uint8_t k2[13 * 1024];
	static uint8_t k3[13 * 1024];
	Input		in = {data, size};
	ArtMemStore *ms = art_memstore_new();
	ArtTrie		t;
	Model		m = {0};
	ArtCursor  *live = NULL;
	ScanSpec	ls;
	MKey		last = {0};
	bool		has_last = false;
	ArtFinger  *fg = NULL;

	memset(&ls, 0, sizeof(ls));
	if (ms == NULL || art_create_grouped(&t, art_memstore_store(ms)) != ART_OK)
		abort();
	while (in.n > 0)
	{
		uint8_t		op = next_byte(&in);
		size_t		l1 = next_key(&in, k1);

		if (op % 16 <= 5 && (op & 16))
		{
			if (fg == NULL)
			{
				if (art_finger_begin(&t, &fg) != ART_OK)
					FAIL("finger begin");
				art_finger_pack(fg, (op & 32) != 0);
			}
		}
		else if (fg != NULL)
		{
			art_finger_end(fg);
			fg = NULL;
		}
		switch (op % 16)
		{
			case 0:
			case 1:
			case 2:
			case 3:
				modify(&t, fg, &m, true, k1, l1);
				break;
			case 4:
			case 5:
				modify(&t, fg, &m, false, k1, l1);
				break;
			case 6:
				check(check_lookup(&t, &m, k1, l1), "lookup");
				break;
			case 7:
				check(check_count(&t, &m, k1, l1), "count");
				break;
			case 8:
				check(check_prefixes_of(&t, &m, k1, l1,
										(op & 16) ? -1 : next_byte(&in)),
					  "prefixes_of");
				break;
			case 9:
				{
					ScanSpec	s;
					size_t		l2 = next_key(&in, k2);
					uint8_t		flags = next_byte(&in);

					memset(&s, 0, sizeof(s));
					s.dir = (flags & 1) ? ART_BACKWARD : ART_FORWARD;
					s.start = (flags & 2) ? k1 : NULL;
					s.start_len = l1;
					s.start_inclusive = (flags & 4) != 0;
					s.bound = (flags & 8) ? k2 : NULL;
					s.bound_len = l2;
					s.bound_inclusive = (flags & 16) != 0;
					s.prefix = (flags & 32) ? k2 : NULL;
					s.prefix_len = l2 > 0 ? l2 - (flags >> 6) % (l2 + 1) : 0;
					s.limit = 64;
					check(check_scan(&t, &m, &s), "scan");
				}
				break;
			case 10:
				/* a cursor that stays open across operations */
				if (live == NULL || (op & 16))
				{
					if (live)
						art_cursor_close(live);
					memcpy(k3, k1, l1);
					memset(&ls, 0, sizeof(ls));
					ls.dir = (op & 32) ? ART_BACKWARD : ART_FORWARD;
					ls.start = k3;
					ls.start_len = l1;
					ls.start_inclusive = (op & 64) != 0;
					has_last = false;
					if (art_cursor_open(&t, &live) != ART_OK)
						abort();
					art_cursor_seek(live, ls.start, ls.start_len,
									ls.start_inclusive, ls.dir);
				}
				{
					const MKey *want = model_scan_next(&m, &ls,
													   has_last ? &last : NULL);
					const uint8_t *e;
					size_t		len;
					ArtStatus	st = art_cursor_next(live, &e, &len);

					if (want == NULL)
					{
						if (st != ART_NOT_FOUND)
							FAIL("live cursor: more entries (%s)",
								 art_status_string(st));
						art_cursor_close(live);
						live = NULL;
						break;
					}
					if (st != ART_OK || mcmp(e, len, want->data, want->len) != 0)
						FAIL("live cursor differs");
					free(last.data);
					last.data = malloc(len + 1);
					if (last.data == NULL)
						abort();
					memcpy(last.data, e, len);
					last.len = len;
					has_last = true;
				}
				break;
			case 11:
				check(check_walk(&t, &m, k1, l1, next_byte(&in) % 40 + 1,
								 (op & 16) ? -1 : next_byte(&in), op >> 5),
					  "walk");
				break;
			case 12:
				check(check_verify(&t, &m), "verify");
				break;
			case 13:
				/* rebuild by bulk load */
				if (art_truncate(&t) != ART_OK)
					FAIL("truncate");
				check(load_bulk(&t, &m), "bulk load");
				break;
			case 14:
				if (art_truncate(&t) != ART_OK || art_memstore_pages(ms) != 1)
					FAIL("truncate");
				model_clear(&m);
				break;
			case 15:
				{
					/* an insert or delete whose n-th store call fails */
					bool		ins = (op & 16) != 0;
					ArtStatus	st;
					bool		agree;

					art_memstore_fail_after(ms, next_byte(&in) % 24,
											(op & 32) != 0);
					st = ins ? art_insert(&t, k1, l1) : art_delete(&t, k1, l1);
					if (st == ART_OK && !ins)
						(void) art_merge(&t, k1, l1);
					art_memstore_fail_after(ms, -1, false);
					if (st == ART_OK)
						agree = ins ? model_insert(&m, k1, l1) :
							model_delete(&m, k1, l1);
					else if (st == ART_EXISTS)
						agree = ins && model_has(&m, k1, l1);
					else if (st == ART_NOT_FOUND)
						agree = !ins && !model_has(&m, k1, l1);
					else
						agree = st != ART_CORRUPT;	/* unchanged: checked below */
					if (!agree)
						FAIL("failed op status %s disagrees",
							 art_status_string(st));
					check(check_content(&t, &m), "content after failure");
				}
				break;
		}
		if ((fg == NULL && art_memstore_pinned(ms) != 0) ||
			art_memstore_violation(ms))
			FAIL("store rules broken: %d pins, %s", art_memstore_pinned(ms),
				 art_memstore_violation(ms) ? art_memstore_violation(ms) : "");
	}
	if (fg != NULL)
		art_finger_end(fg);
	check(check_content(&t, &m), "final content");
	while (m.n > 0)
	{
		size_t		len = m.keys[0].len;

		memcpy(k1, m.keys[0].data, len);
		modify(&t, NULL, &m, false, k1, len);
	}
	if (art_memstore_pages(ms) != 1)
		FAIL("%llu pages left after deleting everything",
			 (unsigned long long) art_memstore_pages(ms));
	if (live)
		art_cursor_close(live);
	free(last.data);
	model_free(&m);
	art_memstore_destroy(ms);
	return 0;
}
