/*-------------------------------------------------------------------------
 *
 * pager_map.c
 *	  The page map of an open file in memory.
 *
 * A file slot's page map gives each logical page its physical page and
 * the write stamp the page carries there.  On disk the map has two levels
 * under the meta page (pager_page.h): map pages of fanout entries, and
 * directory pages of fanout map pages' places.  So that a checkpoint of a
 * big file writes only the map pages that changed, the slot also keeps
 * each map page's place on disk and a bitmap of the map pages changed
 * since the last checkpoint took them; the directory pages, a
 * fanout-th of the map pages, are written by every checkpoint.
 *
 * Everything lives in dynamic shared memory, because it grows with the
 * file, under the slot's lock (fs->lock, exclusive to change anything),
 * which every function asserts its caller holds.
 *
 * Layer: the bottom of the pager's shared state beside pager_page.c; it
 * calls nothing else in the pager.  Called by the space layer (entries),
 * the file table (loading) and checkpoints (pager_map.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pager/pager_map.h"

#include "utils/memutils.h"
#include "utils/resowner.h"

static dsa_area *my_dsa = NULL;

/*
 * This process's attachment to the page maps' dynamic shared memory, for
 * the whole session (no resource owner: mappings must outlive queries).
 */
dsa_area *
pager_dsa(void)
{
	if (my_dsa == NULL)
	{
		ResourceOwner save = CurrentResourceOwner;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		CurrentResourceOwner = NULL;
		my_dsa = dsa_attach_in_place(pager_shared->dsa_place, NULL);
		dsa_pin_mapping(my_dsa);
		CurrentResourceOwner = save;
		MemoryContextSwitchTo(old);
	}
	return my_dsa;
}

static inline uint32 *
map_of(PagerFileSlot *fs)
{
	return (uint32 *) dsa_get_address(pager_dsa(), fs->map);
}

static inline uint32 *
stamps_of(PagerFileSlot *fs)
{
	return (uint32 *) dsa_get_address(pager_dsa(), fs->stamps);
}

static inline uint8 *
mapdirty_of(PagerFileSlot *fs)
{
	return (uint8 *) dsa_get_address(pager_dsa(), fs->mapdirty);
}

/*
 * Replace a dsa array by a zeroed larger one holding the old contents.
 */
dsa_pointer
pager_dsa_grow(dsa_pointer old, Size oldsize, Size newsize)
{
	dsa_area   *area = pager_dsa();
	dsa_pointer p = dsa_allocate_extended(area, newsize, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);

	if (DsaPointerIsValid(old))
	{
		memcpy(dsa_get_address(area, p), dsa_get_address(area, old), oldsize);
		dsa_free(area, old);
	}
	return p;
}

/*
 * Free the map's arrays.
 */
void
pager_map_free(PagerFileSlot *fs)
{
	dsa_area   *area = pager_dsa();

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	if (DsaPointerIsValid(fs->map))
		dsa_free(area, fs->map);
	if (DsaPointerIsValid(fs->stamps))
		dsa_free(area, fs->stamps);
	if (DsaPointerIsValid(fs->maprefs))
		dsa_free(area, fs->maprefs);
	if (DsaPointerIsValid(fs->mapdirty))
		dsa_free(area, fs->mapdirty);
	fs->map = fs->stamps = fs->maprefs = fs->mapdirty = InvalidDsaPointer;
	fs->map_cap = fs->mapref_cap = 0;
}

/*
 * Make the page map hold n entries (within the file's limit), and the map
 * pages' places and bits cover them.
 */
void
pager_map_reserve(PagerFileSlot *fs, uint32 n)
{
	uint64		cap;
	uint64		refs;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	Assert(n <= pager_max_logical(fs->fanout));
	if (n <= fs->map_cap)
		return;
	cap = Max(Max((uint64) n, 1024), (uint64) fs->map_cap * 2);
	cap = Min(cap, pager_max_logical(fs->fanout));
	fs->map = pager_dsa_grow(fs->map, (Size) fs->map_cap * sizeof(uint32),
					   (Size) cap * sizeof(uint32));
	fs->stamps = pager_dsa_grow(fs->stamps, (Size) fs->map_cap * sizeof(uint32),
						  (Size) cap * sizeof(uint32));
	fs->map_cap = (uint32) cap;

	refs = TYPEALIGN(64, pager_map_pages((uint32) cap, fs->fanout));
	if (refs > fs->mapref_cap)
	{
		fs->maprefs = pager_dsa_grow(fs->maprefs, (Size) fs->mapref_cap * sizeof(PagerMapRef),
							   (Size) refs * sizeof(PagerMapRef));
		fs->mapdirty = pager_dsa_grow(fs->mapdirty, fs->mapref_cap / 8, refs / 8);
		fs->mapref_cap = (uint32) refs;
	}
}

/*
 * A logical page's entry: its physical page, and (if stamp is not NULL)
 * the write stamp it must carry there.
 */
uint32
pager_map_entry(PagerFileSlot *fs, ArtPageNo pageno, uint32 *stamp)
{
	Assert(LWLockHeldByMe(&fs->lock));
	Assert(pageno < fs->map_cap);
	if (stamp)
		*stamp = stamps_of(fs)[pageno];
	return map_of(fs)[pageno];
}

/*
 * Set a logical page's entry and mark its map page changed; returns the
 * physical page it had.
 */
uint32
pager_map_put(PagerFileSlot *fs, ArtPageNo pageno, uint32 phys, uint32 stamp)
{
	uint32	   *map = map_of(fs);
	uint32		old = map[pageno];
	uint32		mapno = pageno / fs->fanout;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	Assert(pageno < fs->map_cap);
	map[pageno] = phys;
	stamps_of(fs)[pageno] = stamp;
	mapdirty_of(fs)[mapno / 8] |= (uint8) (1 << (mapno % 8));
	return old;
}

/*
 * Take in map page mapno of the file being loaded, read from ref (its
 * checks passed): its entries up to the file's nlogical.
 */
void
pager_map_load_page(PagerFileSlot *fs, uint32 mapno, const char *page,
					PagerMapRef ref)
{
	uint32		base = mapno * fs->fanout;
	uint32		count = Min(fs->fanout, fs->nlogical - base);

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	Assert(base < fs->nlogical);
	memcpy(map_of(fs) + base, page + ART_PAGE_RESERVED, sizeof(uint32) * count);
	memcpy(stamps_of(fs) + base, page + PAGER_MAP_STAMPS, sizeof(uint32) * count);
	pager_map_refs(fs)[mapno] = ref;
}

/*
 * List in dirty the changed map pages below nmap, in order, and clear
 * their bits: a checkpoint takes them.  Returns how many.
 */
uint32
pager_map_take_dirty(PagerFileSlot *fs, uint32 nmap, uint32 *dirty)
{
	uint8	   *bits;
	uint32		n = 0;

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	if (nmap == 0)
		return 0;
	bits = mapdirty_of(fs);
	for (uint32 m = 0; m < nmap; m++)
	{
		if ((m % 8) == 0 && bits[m / 8] == 0)
		{
			m += 7;
			continue;
		}
		if (bits[m / 8] & (1 << (m % 8)))
		{
			bits[m / 8] &= (uint8) ~(1 << (m % 8));
			dirty[n++] = m;
		}
	}
	return n;
}

/*
 * Mark map pages changed again, after a checkpoint that took them failed.
 */
void
pager_map_redirty(PagerFileSlot *fs, const uint32 *dirty, uint32 n)
{
	uint8	   *bits = mapdirty_of(fs);

	Assert(LWLockHeldByMeInMode(&fs->lock, LW_EXCLUSIVE));
	for (uint32 i = 0; i < n; i++)
		bits[dirty[i] / 8] |= (uint8) (1 << (dirty[i] % 8));
}

/*
 * Fill the body of map page mapno from the map's entries below nlogical;
 * the rest of the page is zero.
 */
void
pager_map_page_copy(PagerFileSlot *fs, uint32 mapno, uint32 nlogical,
					char *page)
{
	uint32		base = mapno * fs->fanout;
	uint32		count = Min(fs->fanout, nlogical - base);

	Assert(LWLockHeldByMe(&fs->lock));
	Assert(base < nlogical);
	memset(page, 0, ART_PAGE_SIZE);
	memcpy(page + ART_PAGE_RESERVED, map_of(fs) + base, sizeof(uint32) * count);
	memcpy(page + PAGER_MAP_STAMPS, stamps_of(fs) + base, sizeof(uint32) * count);
}

/*
 * The map pages' places on disk, mapref_cap of them (to change them, hold
 * fs->lock exclusive).
 */
PagerMapRef *
pager_map_refs(PagerFileSlot *fs)
{
	Assert(LWLockHeldByMe(&fs->lock));
	return (PagerMapRef *) dsa_get_address(pager_dsa(), fs->maprefs);
}

/*
 * Fill the body of directory page dirno: the places of its map pages among
 * nmap; the rest of the page is zero.
 */
void
pager_dir_page_fill(char *page, const PagerMapRef *refs, uint32 nmap,
					uint32 dirno, uint32 fanout)
{
	uint32		base = dirno * fanout;
	uint32		count = Min(fanout, nmap - base);

	memset(page, 0, ART_PAGE_SIZE);
	for (uint32 i = 0; i < count; i++)
	{
		memcpy(page + ART_PAGE_RESERVED + i * sizeof(uint32), &refs[base + i].phys,
			   sizeof(uint32));
		memcpy(page + PAGER_MAP_STAMPS + i * sizeof(uint32), &refs[base + i].stamp,
			   sizeof(uint32));
	}
}

/*
 * Read the places of the map pages that directory page dirno lists into
 * refs (indexed by map page, nmap of them).
 */
void
pager_dir_page_refs(const char *page, uint32 nmap, uint32 dirno,
					uint32 fanout, PagerMapRef *refs)
{
	uint32		base = dirno * fanout;
	uint32		count = Min(fanout, nmap - base);

	for (uint32 i = 0; i < count; i++)
	{
		memcpy(&refs[base + i].phys, page + ART_PAGE_RESERVED + i * sizeof(uint32),
			   sizeof(uint32));
		memcpy(&refs[base + i].stamp, page + PAGER_MAP_STAMPS + i * sizeof(uint32),
			   sizeof(uint32));
	}
}
