/*-------------------------------------------------------------------------
 *
 * trie.c
 *	  Creating and opening tries; pin stacks and temporary memory.
 *
 *-------------------------------------------------------------------------
 */
#include "trie_internal.h"

/* Temporary memory from the store. */
ART_HOT void *
art_alloc(ArtTrie *t, size_t size)
{
	return t->store.ops->mem_alloc(t->store.store, size);
}

/* Give back temporary memory; NULL is ignored. */
ART_HOT void
art_free(ArtTrie *t, void *ptr)
{
	if (ptr)
		t->store.ops->mem_free(t->store.store, ptr);
}

/* Grow *array (of elem-sized items, capacity *cap) to hold need items. */
ART_HOT ArtStatus
art_grow(ArtTrie *t, void **array, int *cap, int need, size_t elem)
{
	return art_grow_from(t, array, cap, need, elem, NULL);
}

/*
 * art_grow for an array that may still be in fixed, storage of its
 * holder's, which is not freed when the array moves out of it.
 */
ART_HOT ArtStatus
art_grow_from(ArtTrie *t, void **array, int *cap, int need, size_t elem,
			  const void *fixed)
{
	int			newcap;
	void	   *p;

	if (need <= *cap)
		return ART_OK;
	newcap = *cap ? *cap * 2 : 16;
	while (newcap < need)
		newcap *= 2;
	p = art_alloc(t, (size_t) newcap * elem);
	if (p == NULL)
		return ART_NO_MEMORY;
	if (*array)
		memcpy(p, *array, (size_t) *cap * elem);
	if (*array != fixed)
		art_free(t, *array);
	*array = p;
	*cap = newcap;
	return ART_OK;
}

/* Pin a page and push it on the stack. */
ART_HOT ArtStatus
art_pin_push(ArtTrie *t, ArtPinStack *ps, ArtPageNo pageno, ArtLockMode mode)
{
	ArtStatus	st;

	st = art_grow_from(t, (void **) &ps->refs, &ps->cap, ps->n + 1,
					   sizeof(ArtPageRef), ps->fixed);
	if (st != ART_OK)
		return st;
	st = t->store.ops->pin(t->store.store, pageno, mode, &ps->refs[ps->n]);
	if (st != ART_OK)
		return st;
	ps->n++;
	return ART_OK;
}

/* Release the top page of the stack. */
ART_HOT void
art_pin_pop(ArtTrie *t, ArtPinStack *ps)
{
	ps->n--;
	t->store.ops->release(t->store.store, &ps->refs[ps->n]);
}

/*
 * Take n pages held share exclusive, to change what was read of them:
 * each is unlocked (still pinned), then all are locked exclusive in the
 * order given, which must be the lock order (from the root down).  Only
 * for a process inside the split section exclusive (merges): no other
 * process changes a page meanwhile, so what it read still holds.
 */
void
art_relock_exclusive(ArtTrie *t, ArtPageRef *const *refs, int n)
{
	for (int i = 0; i < n; i++)
		t->store.ops->unlock(t->store.store, refs[i]);
	for (int i = 0; i < n; i++)
		t->store.ops->relock(t->store.store, refs[i], ART_LOCK_EXCLUSIVE);
}

/*
 * Release every page of the stack and free its memory; it goes back to
 * its holder's storage, if it has any.
 */
ART_HOT void
art_pin_release_all(ArtTrie *t, ArtPinStack *ps)
{
	while (ps->n > 0)
		art_pin_pop(t, ps);
	if (ps->refs != ps->fixed)
		art_free(t, ps->refs);
	ps->refs = ps->fixed;
	ps->cap = ps->fixedcap;
}

/* Start an empty stack in storage of its holder's: cap entries at refs. */
ART_HOT void
art_pin_stack_give(ArtPinStack *ps, ArtPageRef *refs, int cap)
{
	ps->refs = ps->fixed = refs;
	ps->n = 0;
	ps->cap = ps->fixedcap = cap;
}

/* Make room for len bytes in buf. */
ART_HOT ArtStatus
art_buf_reserve(ArtTrie *t, ArtBuf *buf, size_t len)
{
	size_t		newcap;
	uint8_t    *p;

	if (len <= buf->cap)
		return ART_OK;
	newcap = buf->cap ? buf->cap * 2 : 256;
	while (newcap < len)
		newcap *= 2;
	p = art_alloc(t, newcap);
	if (p == NULL)
		return ART_NO_MEMORY;
	if (buf->len)
		memcpy(p, buf->data, buf->len);
	if (!buf->fixed)
		art_free(t, buf->data);
	buf->data = p;
	buf->cap = newcap;
	buf->fixed = false;
	return ART_OK;
}

/* Append bytes to buf, growing it (art_buf_append's slow path). */
ArtStatus
art_buf_append_slow(ArtTrie *t, ArtBuf *buf, const uint8_t *data, size_t len)
{
	ArtStatus	st = art_buf_reserve(t, buf, buf->len + len);

	if (st != ART_OK)
		return st;
	if (len)
		memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	return ART_OK;
}

/* Free buf's memory (not its holder's storage). */
ART_HOT void
art_buf_free(ArtTrie *t, ArtBuf *buf)
{
	if (!buf->fixed)
		art_free(t, buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
	buf->fixed = false;
}

/*
 * Create an empty trie: a root page holding the empty root node, with the
 * flags given.
 */
static ArtStatus
create_with_flags(ArtTrie *t, ArtPageStore store, uint8_t flags)
{
	ArtPageRef	ref;
	ArtStatus	st;

	t->store = store;
	t->relayout_pages = 0;
	st = store.ops->alloc(store.store, &ref);
	if (st != ART_OK)
		return st;
	art_root_reset(ref.data);
	ref.data[ART_FLAGS_OFF] = flags;
	t->root = ref.pageno;
	store.ops->mark_dirty(store.store, &ref);
	store.ops->release(store.store, &ref);
	return ART_OK;
}

/* Create an empty trie. */
ArtStatus
art_create(ArtTrie *t, ArtPageStore store)
{
	return create_with_flags(t, store, 0);
}

/* Create an empty trie that counts its groups in the store (trie.h). */
ArtStatus
art_create_grouped(ArtTrie *t, ArtPageStore store)
{
	return create_with_flags(t, store, ART_ROOT_GROUPS);
}

/*
 * The trie's group count, kept by the store; ART_NOT_FOUND if the trie
 * does not count its groups (not created by art_create_grouped).
 */
ArtStatus
art_groups(ArtTrie *t, uint64_t *groups)
{
	ArtPageRef	ref;
	ArtStatus	st;
	bool		counted;

	st = t->store.ops->pin(t->store.store, t->root, ART_LOCK_SHARE, &ref);
	if (st != ART_OK)
		return st;
	counted = art_root_counts_groups(ref.data);
	t->store.ops->release(t->store.store, &ref);
	if (!counted)
		return ART_NOT_FOUND;
	*groups = t->store.ops->groups(t->store.store);
	return ART_OK;
}

/* The content version of the trie's store (see trie.h). */
uint64_t
art_version(ArtTrie *t)
{
	return t->store.ops->version(t->store.store, false);
}

/* Point t at an existing trie. */
ART_HOT void
art_open(ArtTrie *t, ArtPageStore store, ArtPageNo root)
{
	t->store = store;
	t->root = root;
	t->relayout_pages = 0;
}

/* A short English description of a status. */
const char *
art_status_string(ArtStatus status)
{
	switch (status)
	{
		case ART_OK:
			return "ok";
		case ART_NOT_FOUND:
			return "entry not found";
		case ART_EXISTS:
			return "entry already exists";
		case ART_TOO_LONG:
			return "entry too long";
		case ART_NO_MEMORY:
			return "out of memory";
		case ART_NO_SPACE:
			return "no space for another page";
		case ART_IO_ERROR:
			return "I/O error";
		case ART_CORRUPT:
			return "trie structure is corrupt";
	}
	return "unknown status";
}
