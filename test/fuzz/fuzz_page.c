/*-------------------------------------------------------------------------
 *
 * fuzz_page.c
 *	  libFuzzer harness for the page decoders: damaged page images must be
 *	  rejected with a message, never crash, hang or read out of bounds.
 *
 * Build and run: make fuzz-run [FUZZ_SECONDS=n] (see test/fuzz/fuzz.mk).
 *
 * The first input byte picks what is fuzzed.
 *
 * Even: the pager's check of a page read from disk (checksum, file
 * identity, kind, version, number) and its meta page decoder
 * (src/pager/pager_page.c, the code the server runs).  The rest of the
 * input is the page image; with bit 1 set the harness first stores the
 * right checksum, so that the fuzzer gets past it to the other fields.
 * The result must agree with an independent evaluation of the header
 * (with the reference CRC32C), and whatever the meta decoder accepts must
 * keep the bounds pager_meta_load relies on: a fanout within a page, and just
 * the directory pages its logical pages need (at most
 * PAGER_MAX_DIR_PAGES, inside the page).
 *
 * Odd: the trie's page and node decoder.  Bits 1-7 pick one of a few
 * valid tries (one page with every node kind, several pages with stubs, a
 * bulk-loaded one, long entries over chains of pages, the empty trie)
 * built once in the in-memory store; the input then lists patches (page,
 * offset, bytes) applied to a copy of its pages, and art_verify must
 * answer OK or an error (ART_CORRUPT with a message, or the store's error
 * for a stub to a page that does not exist), leaving no page pinned.  The
 * in-memory store keeps no checksum, so nothing needs recomputing after a
 * patch.
 *
 * Lookups, cursors and changes run only on tries that art_verify
 * accepted.  The server runs them only on pages that passed the pager's
 * checksum, so a page damaged in a way the checksum cannot see comes from
 * a bug, and art_verify (artrie_verify()) is the decoder that must stand
 * any bytes.  What it accepts must then be safe for every operation: the
 * harness reads the accepted trie into a model through a cursor, checks
 * lookups, counts, prefixes and a backward scan against it, applies up to
 * 16 inserts and deletes made of the remaining input, and checks the whole
 * content, stats and art_verify again.  An acceptance that lets an operation crash or
 * corrupt the trie is a hole in art_verify.
 *
 *-------------------------------------------------------------------------
 */
#include "fuzz_common.h"
#include "pager/pager_page.h"
#include "trie/trie_internal.h"
#include "trie/trie_memstore.h"
#include "trie_check.h"

#define NSHAPES		5

typedef struct Shape
{
	ArtMemStore *ms;
	ArtPageNo	root;
} Shape;

static const ArtFileId file_id = {5, 16384, 3};

/* Insert an entry while building a shape; every one must go in. */
static void
build_insert(ArtTrie *t, const uint8_t *key, size_t len)
{
	if (art_insert(t, key, len) != ART_OK)
		FAIL("building a shape: insert failed");
}

/* One page: nodes of every kind, a long prefix, free slots. */
static void
build_small(ArtTrie *t)
{
	uint8_t		key[400];
	int			i;

	for (i = 0; i < 60; i++)
	{
		key[0] = 'x';
		key[1] = (uint8_t) (i * 4);
		build_insert(t, key, 2);
	}
	for (i = 0; i < 20; i++)
	{
		key[0] = 'y';
		key[1] = (uint8_t) i;
		build_insert(t, key, 2);
	}
	for (i = 0; i < 10; i++)
	{
		key[0] = 'z';
		key[1] = (uint8_t) i;
		key[2] = 'q';
		build_insert(t, key, 3);
	}
	build_insert(t, (const uint8_t *) "", 0);
	build_insert(t, (const uint8_t *) "w", 1);
	build_insert(t, (const uint8_t *) "wa", 2);
	build_insert(t, (const uint8_t *) "wab", 3);
	memset(key, 'L', sizeof(key));
	build_insert(t, key, 300);
	key[299] = 'M';
	build_insert(t, key, 300);
	for (i = 0; i < 10; i += 3)
	{
		key[0] = 'z';
		key[1] = (uint8_t) i;
		key[2] = 'q';
		if (art_delete(t, key, 3) != ART_OK)
			FAIL("building a shape: delete failed");
	}
}

/* Several pages linked by stubs, some entries deleted again. */
static void
build_large(ArtTrie *t)
{
	static const char *tail = "-a-tail-that-makes-each-leaf-about-a-hundred-"
		"bytes-long-so-that-the-trie-spans-several-pages";
	uint8_t		key[160];
	int			i;

	for (i = 0; i < 200; i++)
	{
		int			len = snprintf((char *) key, sizeof(key), "k%05d-%x%s",
								   (i * 7919) % 200, i % 13, tail);

		build_insert(t, key, (size_t) len);
	}
	for (i = 0; i < 200; i += 5)
	{
		int			len = snprintf((char *) key, sizeof(key), "k%05d-%x%s",
								   (i * 7919) % 200, i % 13, tail);

		if (art_delete(t, key, (size_t) len) != ART_OK)
			FAIL("building a shape: delete failed");
	}
}

/* Long entries: chains of nodes over pages, five pages deep. */
static void
build_deep(ArtTrie *t)
{
	static uint8_t key[4001];
	int			i;

	memset(key, 'd', sizeof(key));
	for (i = 0; i < 8; i++)
	{
		key[100 + (i % 4) * 900] = (uint8_t) ('a' + i);
		key[4000] = (uint8_t) ('A' + i);
		build_insert(t, key, sizeof(key) - (i % 3) * 50);
	}
}

/* A bulk-loaded trie. */
static void
build_bulk(ArtTrie *t)
{
	ArtBulkLoader *bl;
	uint8_t		key[100];
	int			i;

	if (art_bulk_begin(t, &bl) != ART_OK)
		FAIL("building a shape: bulk begin failed");
	for (i = 0; i < 240; i++)
	{
		int			len = snprintf((char *) key, sizeof(key),
								   "b%04d%c-bulk-loaded-with-a-tail-of-sixty-bytes",
								   i, 'a' + i % 26);

		if (art_bulk_add(bl, key, (size_t) len) != ART_OK)
			FAIL("building a shape: bulk add failed");
	}
	if (art_bulk_finish(bl) != ART_OK)
		FAIL("building a shape: bulk finish failed");
}

/* The shapes, built on first use. */
static Shape *
get_shape(int which)
{
	static Shape shapes[NSHAPES];
	Shape	   *s = &shapes[which];
	ArtTrie		t;
	char		msg[256];

	if (s->ms != NULL)
		return s;
	s->ms = art_memstore_new();
	if (s->ms == NULL || art_create(&t, art_memstore_store(s->ms)) != ART_OK)
		FAIL("building a shape: no memory");
	if (which == 0)
		build_small(&t);
	else if (which == 1)
		build_large(&t);
	else if (which == 2)
		build_bulk(&t);
	else if (which == 3)
		build_deep(&t);
	if (art_verify(&t, msg, sizeof(msg)) != ART_OK)
		FAIL("shape %d does not verify: %s", which, msg);
	s->root = t.root;
	return s;
}

/* Check the pager's page check and meta decoder on one page image. */
static void
fuzz_pager_page(Input *in, uint8_t mode)
{
	static uint64_t page_words[ART_PAGE_SIZE / 8];
	static uint64_t copy_words[ART_PAGE_SIZE / 8];
	uint8_t    *page = (uint8_t *) page_words;
	uint8_t    *copy = (uint8_t *) copy_words;
	PagerPageHeader h;
	uint32_t	crc;
	char		msg[128];
	uint16_t	kind;
	int			slot;

	memset(page, 0, ART_PAGE_SIZE);
	memcpy(page, in->p, in->n < ART_PAGE_SIZE ? in->n : ART_PAGE_SIZE);
	crc = ref_crc32c(0xFFFFFFFFu, page + 4, ART_PAGE_SIZE - 4) ^ 0xFFFFFFFFu;
	if (pager_page_crc(page) != crc)
		FAIL("pager CRC32C %08X, reference %08X", pager_page_crc(page), crc);
	if (mode & 2)
		memcpy(page, &crc, sizeof(crc));
	memcpy(&h, page, sizeof(h));

	for (kind = PAGER_KIND_DATA; kind <= PAGER_KIND_DIR; kind++)
	{
		bool		want = h.crc == crc && h.dbOid == file_id.dbOid &&
			h.relNumber == file_id.relNumber &&
			h.generation == file_id.generation && h.kind == kind &&
			h.version == PAGER_FORMAT_VERSION;
		bool		got;

		msg[0] = '\0';
		got = pager_page_check_header(page, &file_id, h.pageno, kind, msg,
									  sizeof(msg));
		if (got != want || (!got && msg[0] == '\0'))
			FAIL("page check says %d, expected %d (%s)", got, want, msg);
		if (got && pager_page_check_header(page, &file_id, h.pageno + 1, kind,
										   msg, sizeof(msg)))
			FAIL("page check accepts the wrong page number");
	}

	/* Sealing any bytes gives a page that passes the check. */
	memcpy(copy, page, ART_PAGE_SIZE);
	pager_page_seal_header(copy, &file_id, 77, PAGER_KIND_MAP, 9);
	if (!pager_page_check_header(copy, &file_id, 77, PAGER_KIND_MAP, msg,
								 sizeof(msg)))
		FAIL("a sealed page fails its check: %s", msg);

	for (slot = 0; slot < 2; slot++)
	{
		PagerMeta	m;
		PagerMeta	m2;
		const uint8_t *dir;
		const uint8_t *dir2;

		msg[0] = '\0';
		if (!pager_meta_decode(page, &file_id, slot, &m, &dir, msg,
							   sizeof(msg)))
		{
			if (msg[0] == '\0')
				FAIL("meta page rejected without a message");
			continue;
		}
		if (h.pageno != (uint32_t) slot || h.kind != PAGER_KIND_META)
			FAIL("meta page of slot %u accepted for slot %d", h.pageno, slot);
		if (m.fanout < 1 || m.fanout > PAGER_MAP_PER_PAGE ||
			m.ndir > PAGER_MAX_DIR_PAGES || m.nused > m.nlogical ||
			m.nphys < PAGER_FIRST_DATA_PHYS || m.nphys > PAGER_MAX_PHYS ||
			(uint64_t) m.nlogical > (uint64_t) m.ndir * m.fanout * m.fanout ||
			(m.nlogical > 0 &&
			 (uint64_t) m.nlogical <= (uint64_t) (m.ndir - 1) * m.fanout * m.fanout) ||
			dir < page || dir + sizeof(uint32_t) * m.ndir > page + ART_PAGE_SIZE)
			FAIL("meta page accepted with counts out of bounds");

		/* What it decodes to encodes back to a page that decodes alike. */
		pager_meta_encode(copy, &file_id, slot, &m, (const uint32_t *) dir);
		if (!pager_meta_decode(copy, &file_id, slot, &m2, &dir2, msg,
							   sizeof(msg)))
			FAIL("re-encoded meta page rejected: %s", msg);
		if (memcmp(&m, &m2, sizeof(m)) != 0 ||
			memcmp(dir, dir2, sizeof(uint32_t) * m.ndir) != 0)
			FAIL("re-encoded meta page decodes differently");
	}
}

/* Fail unless the store holds no pin and saw no rule broken. */
static void
check_store(ArtMemStore *ms, const char *when)
{
	if (art_memstore_pinned(ms) != 0 || art_memstore_violation(ms))
		FAIL("%s: store rules broken: %d pins, %s", when,
			 art_memstore_pinned(ms),
			 art_memstore_violation(ms) ? art_memstore_violation(ms) : "");
}

/* Read every entry of a verified trie into the model, by a cursor. */
static void
read_model(ArtTrie *t, Model *m)
{
	ArtCursor  *c;
	const uint8_t *e;
	size_t		len;
	ArtStatus	st;

	if (art_cursor_open(t, &c) != ART_OK)
		FAIL("cursor open");
	st = art_cursor_seek(c, NULL, 0, true, ART_FORWARD);
	while (st == ART_OK && (st = art_cursor_next(c, &e, &len)) == ART_OK)
		if (!model_insert(m, e, len) || m->keys[m->n - 1].len != len ||
			memcmp(m->keys[m->n - 1].data, e, len) != 0)
			FAIL("verified trie: cursor entries not strictly increasing");
	art_cursor_close(c);
	if (st != ART_NOT_FOUND)
		FAIL("verified trie: cursor fails: %s", art_status_string(st));
}

/* A key of 0-15 input bytes. */
static size_t
next_key(Input *in, uint8_t *key)
{
	size_t		len = next_byte(in) % 16;
	size_t		i;

	for (i = 0; i < len; i++)
		key[i] = next_byte(in);
	return len;
}

/* Operations on a trie art_verify accepted: all must work. */
static void
exercise(ArtTrie *t, ArtMemStore *ms, Input *in)
{
	Model		m = {0};
	ScanSpec	s;
	uint8_t		key[256];
	size_t		len;
	bool		ok;
	int			i;

	read_model(t, &m);
	check_store(ms, "cursor");
	if (!check_count(t, &m, key, 0))
		FAIL("verified trie: count disagrees with its cursor");
	for (i = 0; i < (int) m.n && i < 32; i++)
		if (!check_lookup(t, &m, m.keys[i].data, m.keys[i].len))
			FAIL("verified trie: lookup of a cursor entry");
	memset(&s, 0, sizeof(s));
	s.dir = ART_BACKWARD;
	s.limit = 1 << 30;
	if (!check_scan(t, &m, &s))
		FAIL("verified trie: backward scan disagrees");
	check_store(ms, "reads");

	/* Prefixes of a stored entry (the shapes' keys hold '-'), or of input. */
	len = next_key(in, key);
	if (m.n > 0 && len % 2 == 0)
		ok = check_prefixes_of(t, &m, m.keys[m.n / 2].data,
							   m.keys[m.n / 2].len, len % 4 ? -1 : '-');
	else
		ok = check_prefixes_of(t, &m, key, len, len % 4 == 1 ? -1 : 0);
	if (!ok)
		FAIL("verified trie: prefixes_of disagrees");

	for (i = 0; i < 16 && in->n > 0; i++)
	{
		uint8_t		op = next_byte(in);
		bool		ins = (op & 1) != 0;
		ArtStatus	st;

		len = next_key(in, key);
		if (!ins && m.n > 0 && (op & 2))
		{
			MKey	   *k = &m.keys[(op >> 2) % m.n];

			len = k->len < sizeof(key) ? k->len : sizeof(key);
			memcpy(key, k->data, len);
		}
		st = ins ? art_insert(t, key, len) : art_delete(t, key, len);
		if (ins ? st != (model_insert(&m, key, len) ? ART_OK : ART_EXISTS) :
			st != (model_delete(&m, key, len) ? ART_OK : ART_NOT_FOUND))
			FAIL("verified trie: %s gives %s", ins ? "insert" : "delete",
				 art_status_string(st));
		check_store(ms, "change");
	}
	if (!check_content(t, &m))
		FAIL("verified trie: content after changes disagrees");
	model_free(&m);
}

/*
 * Where a patch goes: anywhere past the store's bytes (how 0), in the
 * page header or slot array (1), or into the record of a slot (2, 3), so
 * that the fuzzer reaches the node fields of the original page.
 */
static size_t
patch_offset(const uint8_t *page, int how, uint16_t where)
{
	size_t		nslots = art_page_nslots(page);
	size_t		slot_off;

	if (how == 0 || nslots == 0 || nslots > ART_PAGE_USABLE / 2)
		return ART_PAGE_RESERVED + where % (ART_PAGE_SIZE - ART_PAGE_RESERVED);
	if (how == 1)
		return ART_HDR_OFF + where % (ART_SLOTS_OFF - ART_HDR_OFF + 2 * nslots);
	slot_off = art_slot_off(page, (int) (where >> 8) % (int) nslots + 1);
	return slot_off + (where & 0xFF);
}

/* Patch a copy of a valid trie, then verify it. */
static void
fuzz_trie_pages(Input *in, uint8_t mode)
{
	Shape	   *shape = get_shape((mode >> 1) % NSHAPES);
	ArtMemStore *ms = art_memstore_clone(shape->ms);
	uint32_t	npages;
	int			npatch;
	ArtTrie		t;
	ArtStatus	st;
	char		msg[256];
	uint8_t    *root;
	const uint8_t *built;

	if (ms == NULL)
		FAIL("clone: no memory");
	npages = art_memstore_npages(ms);
	npatch = next_byte(in) % 16;
	while (npatch-- > 0 && in->n > 0)
	{
		uint8_t		how = next_byte(in);
		uint8_t    *page = art_memstore_page(ms, (how >> 2) % npages);
		uint16_t	where = next_u16(in);
		size_t		len = next_byte(in) % 8 + 1;
		size_t		off;
		size_t		i;

		if (page == NULL)
			continue;
		off = patch_offset(page, how & 3, where);
		for (i = 0; i < len; i++)
		{
			uint8_t		b = next_byte(in);

			if (off + i < ART_PAGE_SIZE)
				page[off + i] = b;
		}
	}

	/*
	 * The count of groups lives beside the pages (the store's counter), so
	 * no page check can tell a root whose flag a patch set from one that
	 * keeps the count: the flag stays as built.
	 */
	root = art_memstore_page(ms, shape->root);
	built = art_memstore_page(shape->ms, shape->root);
	if (root != NULL && built != NULL)
		root[ART_FLAGS_OFF] = (uint8_t) ((root[ART_FLAGS_OFF] & ~ART_ROOT_GROUPS) |
										 (built[ART_FLAGS_OFF] & ART_ROOT_GROUPS));

	art_open(&t, art_memstore_store(ms), shape->root);
	msg[0] = '\0';
	st = art_verify(&t, msg, sizeof(msg));
	if (art_memstore_pinned(ms) != 0)
		FAIL("verify left %d pages pinned", art_memstore_pinned(ms));
	if (st == ART_OK)
	{
		check_store(ms, "verify");
		exercise(&t, ms, in);
	}
	else if (st == ART_CORRUPT)
	{
		if (msg[0] == '\0')
			FAIL("ART_CORRUPT without a message");
	}
	else if (st != ART_IO_ERROR)
		FAIL("verify returns %s", art_status_string(st));
	art_memstore_destroy(ms);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size};
	uint8_t		mode = next_byte(&in);

	if (mode & 1)
		fuzz_trie_pages(&in, mode);
	else
		fuzz_pager_page(&in, mode);
	return 0;
}
