/*-------------------------------------------------------------------------
 *
 * trie_fuzzy.c
 *	  Fuzzy search: a Levenshtein automaton walked over the trie.
 *
 * art_walk hands the visitor the path's bytes as it descends.  The
 * visitor assembles them into characters (charlen) and, for each complete
 * character, computes the next row of the edit-distance table of the term
 * against the path: row i, column j is the distance between the path's
 * first i characters and the term's first j.  A row's minimum never
 * decreases further down (with transpositions too: a swap's cost is bounded
 * by the previous row's entry one column left), so a subtree whose row
 * minimum exceeds the distance is skipped whole.
 *
 * In prefix mode each row also keeps the path's prefix distance so far:
 * the least last column of the rows down to it.  A subtree is skipped
 * when both that and the row minimum exceed the bound.
 *
 * With max_keys, the trie is walked once per distance, from 0 up: the
 * walk for distance b reports the keys at distance b only, and in prefix
 * mode skips every subtree whose path's prefix distance is already below
 * b (its keys were reported by an earlier walk).  Once max_keys keys are
 * reported, the bound drops below 0 and the walk ends; the entries of the
 * key being reported are reported whatever the bound has become, so the
 * caller sees all of a key's entries.
 *
 * Rows, the path and its characters are stacks that grow on demand and
 * shrink as the walk ascends; nothing recurses.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "trie_fuzzy.h"

/* Longest character, in bytes, in any PostgreSQL encoding. */
#define FUZZY_MAX_CHAR_LEN	4

/* How a path byte is undone. */
#define BYTE_PARTIAL	0		/* part of a character not yet complete */
#define BYTE_COMPLETES	1		/* completed a character: a row was pushed */
#define BYTE_TERMINATOR 2		/* the key's terminator */
#define BYTE_TAIL		3		/* after the terminator */

typedef struct FuzzyState
{
	ArtTrie    *trie;
	const ArtFuzzyQuery *query;
	ArtFuzzyCallback cb;
	void	   *cb_arg;

	uint32_t   *term;			/* the term's characters */
	int			m;				/* how many */

	int32_t    *rows;			/* row k at rows + k * (m + 1) */
	int32_t    *best;			/* prefix mode: least last column, rows 0..k */
	uint32_t   *chars;			/* the path's characters */
	uint8_t    *char_lens;		/* and their lengths in bytes */
	size_t		row_cap;		/* rows allocated, scratch row included */
	int			depth;			/* complete characters on the path */

	uint8_t    *path;			/* the path's bytes */
	uint8_t    *how;			/* BYTE_* for each */
	size_t		path_len;
	size_t		path_cap;

	uint32_t	pending;		/* the character being assembled */
	int			pending_len;
	int			pending_need;

	bool		in_tail;		/* past the terminator */
	size_t		key_len;
	int			key_distance;
	bool		key_reported;	/* an entry of the tail's key was reported */

	int			band;			/* the least distance reported */
	int			bound;			/* the greatest distance reported */
	int			keys_reported;	/* distinct keys reported */

	bool		stopped;		/* the callback ended the search */
	ArtStatus	status;
} FuzzyState;

/* Allocate from the trie's store. */
static void *
fuzzy_alloc(FuzzyState *fs, size_t size)
{
	return fs->trie->store.ops->mem_alloc(fs->trie->store.store, size);
}

/* Free memory from fuzzy_alloc (NULL is allowed). */
static void
fuzzy_free(FuzzyState *fs, void *ptr)
{
	if (ptr != NULL)
		fs->trie->store.ops->mem_free(fs->trie->store.store, ptr);
}

/* Grow an array from old_n to new_n elements of size elem; NULL on failure. */
static void *
fuzzy_grow(FuzzyState *fs, void *old, size_t old_n, size_t new_n, size_t elem)
{
	void	   *p = fuzzy_alloc(fs, new_n * elem);

	if (p == NULL)
		return NULL;
	if (old != NULL)
	{
		memcpy(p, old, old_n * elem);
		fuzzy_free(fs, old);
	}
	return p;
}

/* Bytes in the character starting with *s, per the query. */
static int
fuzzy_charlen(const FuzzyState *fs, const uint8_t *s)
{
	int			len;

	if (fs->query->charlen == NULL)
		return 1;
	len = fs->query->charlen(s);
	if (len < 1)
		return 1;
	if (len > FUZZY_MAX_CHAR_LEN)
		return FUZZY_MAX_CHAR_LEN;
	return len;
}

/* Room for rows 0 .. need-1 plus the scratch row. */
static bool
fuzzy_reserve_rows(FuzzyState *fs, size_t need)
{
	size_t		cap = fs->row_cap;
	size_t		width = (size_t) fs->m + 1;
	int32_t    *rows;
	uint32_t   *chars;
	uint8_t    *lens;
	int32_t    *best;

	if (need + 1 <= cap)
		return true;
	while (cap < need + 1)
		cap *= 2;
	rows = fuzzy_grow(fs, fs->rows, fs->row_cap * width, cap * width,
					  sizeof(int32_t));
	if (rows == NULL)
		return false;
	fs->rows = rows;
	chars = fuzzy_grow(fs, fs->chars, fs->row_cap, cap, sizeof(uint32_t));
	if (chars == NULL)
		return false;
	fs->chars = chars;
	lens = fuzzy_grow(fs, fs->char_lens, fs->row_cap, cap, sizeof(uint8_t));
	if (lens == NULL)
		return false;
	fs->char_lens = lens;
	best = fuzzy_grow(fs, fs->best, fs->row_cap, cap, sizeof(int32_t));
	if (best == NULL)
		return false;
	fs->best = best;
	fs->row_cap = cap;
	return true;
}

/* Room for one more path byte. */
static bool
fuzzy_reserve_path(FuzzyState *fs)
{
	size_t		cap = fs->path_cap * 2;
	uint8_t    *path;
	uint8_t    *how;

	if (fs->path_len < fs->path_cap)
		return true;
	path = fuzzy_grow(fs, fs->path, fs->path_len, cap, 1);
	if (path == NULL)
		return false;
	fs->path = path;
	how = fuzzy_grow(fs, fs->how, fs->path_len, cap, 1);
	if (how == NULL)
		return false;
	fs->how = how;
	fs->path_cap = cap;
	return true;
}

/*
 * Compute into out the row after the path's i-th character c (i >= 1),
 * from the previous row (and the one before it for transpositions).
 * Returns the row's minimum.
 */
static int32_t
fuzzy_next_row(const FuzzyState *fs, int i, uint32_t c, int32_t *out)
{
	size_t		width = (size_t) fs->m + 1;
	const int32_t *prev = fs->rows + (size_t) (i - 1) * width;
	const int32_t *prev2 = i >= 2 ? fs->rows + (size_t) (i - 2) * width : NULL;
	uint32_t	prevc = i >= 2 ? fs->chars[i - 2] : 0;
	int32_t		min;
	int			j;

	out[0] = i;
	min = out[0];
	for (j = 1; j <= fs->m; j++)
	{
		int32_t		v = prev[j - 1] + (fs->term[j - 1] != c);

		if (prev[j] + 1 < v)
			v = prev[j] + 1;
		if (out[j - 1] + 1 < v)
			v = out[j - 1] + 1;
		if (fs->query->transpositions && prev2 != NULL && j >= 2 &&
			c == fs->term[j - 2] && prevc == fs->term[j - 1] &&
			prev2[j - 2] + 1 < v)
			v = prev2[j - 2] + 1;
		out[j] = v;
		if (v < min)
			min = v;
	}
	return min;
}

/* Distance of the path down to row k as a key (prefix mode: its prefix distance). */
static int32_t
fuzzy_row_distance(const FuzzyState *fs, int k)
{
	if (fs->query->prefix)
		return fs->best[k];
	return fs->rows[(size_t) k * ((size_t) fs->m + 1) + fs->m];
}

/* Append a byte to the path. */
static void
fuzzy_append(FuzzyState *fs, uint8_t b, uint8_t how)
{
	fs->path[fs->path_len] = b;
	fs->how[fs->path_len] = how;
	fs->path_len++;
}

/* Undo the path's last byte. */
static void
fuzzy_pop_byte(FuzzyState *fs)
{
	uint8_t		how = fs->how[--fs->path_len];

	switch (how)
	{
		case BYTE_TAIL:
			break;
		case BYTE_TERMINATOR:
			fs->in_tail = false;
			break;
		case BYTE_COMPLETES:
			fs->depth--;
			fs->pending_need = fs->char_lens[fs->depth];
			fs->pending_len = fs->pending_need - 1;
			fs->pending = fs->chars[fs->depth] >> 8;
			break;
		default:
			fs->pending_len--;
			fs->pending >>= 8;
			break;
	}
}

/*
 * Take one path byte; false if the subtree below it cannot match (the
 * byte is then not on the path) or on failure (fs->status says so).
 */
static bool
fuzzy_push_byte(FuzzyState *fs, uint8_t b)
{
	size_t		width = (size_t) fs->m + 1;
	int32_t		min;

	if (!fuzzy_reserve_path(fs))
	{
		fs->status = ART_NO_MEMORY;
		return false;
	}
	if (fs->in_tail)
	{
		fuzzy_append(fs, b, BYTE_TAIL);
		return true;
	}
	if (fs->pending_len == 0 && fs->query->terminator >= 0 &&
		b == (uint8_t) fs->query->terminator)
	{
		int32_t		dist = fuzzy_row_distance(fs, fs->depth);

		if (dist > fs->bound || dist < fs->band)
			return false;
		fs->in_tail = true;
		fs->key_len = fs->path_len;
		fs->key_distance = dist;
		fs->key_reported = false;
		fuzzy_append(fs, b, BYTE_TERMINATOR);
		return true;
	}
	if (fs->pending_len == 0)
	{
		fs->pending = b;
		fs->pending_len = 1;
		fs->pending_need = fuzzy_charlen(fs, &b);
	}
	else
	{
		fs->pending = (fs->pending << 8) | b;
		fs->pending_len++;
	}
	if (fs->pending_len < fs->pending_need)
	{
		fuzzy_append(fs, b, BYTE_PARTIAL);
		return true;
	}
	if (!fuzzy_reserve_rows(fs, (size_t) fs->depth + 2))
	{
		fs->status = ART_NO_MEMORY;
		fs->pending_len--;
		fs->pending >>= 8;
		return false;
	}
	fs->chars[fs->depth] = fs->pending;
	fs->char_lens[fs->depth] = (uint8_t) fs->pending_len;
	min = fuzzy_next_row(fs, fs->depth + 1, fs->pending,
						 fs->rows + (size_t) (fs->depth + 1) * width);
	if (fs->query->prefix)
	{
		int32_t		last = fs->rows[(size_t) (fs->depth + 1) * width + fs->m];

		fs->best[fs->depth + 1] = fs->best[fs->depth] < last ?
			fs->best[fs->depth] : last;
		if (fs->best[fs->depth + 1] < min)
			min = fs->best[fs->depth + 1];
	}
	fs->depth++;
	fs->pending_len = 0;
	fuzzy_append(fs, b, BYTE_COMPLETES);
	if (min > fs->bound ||
		(fs->query->prefix && fs->best[fs->depth] < fs->band))
	{
		fuzzy_pop_byte(fs);
		return false;
	}
	return true;
}

/* Visitor: descend by n bytes, all or nothing. */
static bool
fuzzy_descend(void *arg, const uint8_t *bytes, size_t n)
{
	FuzzyState *fs = arg;
	size_t		i;

	if (fs->stopped || fs->status != ART_OK)
		return false;
	for (i = 0; i < n; i++)
	{
		if (!fuzzy_push_byte(fs, bytes[i]))
		{
			while (i-- > 0)
				fuzzy_pop_byte(fs);
			return false;
		}
	}
	return true;
}

/* Visitor: ascend by n bytes. */
static void
fuzzy_ascend(void *arg, size_t n)
{
	FuzzyState *fs = arg;

	while (n-- > 0)
		fuzzy_pop_byte(fs);
}

/*
 * Distance of the whole path as a key: the current row's last column, or,
 * if the path ends inside a character, the row that character would add
 * (prefix mode: the least of those down the path).
 */
static int32_t
fuzzy_path_distance(FuzzyState *fs)
{
	size_t		width = (size_t) fs->m + 1;
	int32_t    *scratch;
	int32_t		dist = fuzzy_row_distance(fs, fs->depth);

	if (fs->pending_len == 0)
		return dist;
	scratch = fs->rows + (fs->row_cap - 1) * width;
	fs->chars[fs->depth] = fs->pending;
	fuzzy_next_row(fs, fs->depth + 1, fs->pending, scratch);
	if (fs->query->prefix && dist < scratch[fs->m])
		return dist;
	return scratch[fs->m];
}


/* Visitor: the path is a stored entry. */
static bool
fuzzy_entry(void *arg)
{
	FuzzyState *fs = arg;
	int32_t		dist;
	size_t		key_len;

	if (fs->stopped || fs->status != ART_OK)
		return false;
	if (fs->in_tail)
	{
		dist = fs->key_distance;
		key_len = fs->key_len;
	}
	else
	{
		dist = fuzzy_path_distance(fs);
		key_len = fs->path_len;
	}
	if (!(fs->in_tail && fs->key_reported))
	{
		if (dist > fs->bound || dist < fs->band)
			return true;
		fs->key_reported = fs->in_tail;
		/* The walk's last key: report its entries, then nothing more. */
		if (fs->query->max_keys > 0 &&
			++fs->keys_reported == fs->query->max_keys)
			fs->bound = -1;
	}
	if (!fs->cb(fs->cb_arg, fs->path, fs->path_len, key_len, (int) dist))
		fs->stopped = true;
	return !fs->stopped;
}

/*
 * Split the term into characters and set up row 0; false on failure.
 */
static bool
fuzzy_setup(FuzzyState *fs)
{
	const ArtFuzzyQuery *q = fs->query;
	size_t		pos = 0;
	int			j;

	fs->term = fuzzy_alloc(fs, (q->term_len + 1) * sizeof(uint32_t));
	if (fs->term == NULL)
		return false;
	fs->m = 0;
	while (pos < q->term_len)
	{
		int			len = fuzzy_charlen(fs, q->term + pos);
		uint32_t	c = 0;
		int			k;

		if ((size_t) len > q->term_len - pos)
			len = (int) (q->term_len - pos);
		for (k = 0; k < len; k++)
			c = (c << 8) | q->term[pos + k];
		fs->term[fs->m++] = c;
		pos += len;
	}
	fs->row_cap = 1;
	if (!fuzzy_reserve_rows(fs, 64))
		return false;
	for (j = 0; j <= fs->m; j++)
		fs->rows[j] = j;
	fs->best[0] = fs->m;
	fs->path_cap = 256;
	fs->path = fuzzy_alloc(fs, fs->path_cap);
	fs->how = fuzzy_alloc(fs, fs->path_cap);
	return fs->path != NULL && fs->how != NULL;
}

/*
 * Call cb for every entry whose key is within query->max_distance of
 * query->term (in prefix mode, begins within it), or with max_keys, for
 * the entries of the first max_keys such keys by (distance, key).
 */
ArtStatus
art_fuzzy(ArtTrie *t, const ArtFuzzyQuery *query, ArtFuzzyCallback cb,
		  void *arg)
{
	FuzzyState	fs;
	ArtWalkVisitor visitor;
	ArtStatus	status;

	memset(&fs, 0, sizeof(fs));
	fs.trie = t;
	fs.query = query;
	fs.cb = cb;
	fs.cb_arg = arg;
	fs.status = ART_OK;
	if (query->max_distance < 0)
		return ART_OK;

	if (!fuzzy_setup(&fs))
		status = ART_NO_MEMORY;
	else
	{
		int			last_band = query->max_keys > 0 ? query->max_distance : 0;
		int			band;

		visitor.descend = fuzzy_descend;
		visitor.ascend = fuzzy_ascend;
		visitor.entry = fuzzy_entry;
		visitor.arg = &fs;
		status = ART_OK;
		for (band = 0; band <= last_band && status == ART_OK && !fs.stopped &&
			 (query->max_keys <= 0 || fs.keys_reported < query->max_keys); band++)
		{
			fs.path_len = 0;
			fs.depth = 0;
			fs.pending_len = 0;
			fs.in_tail = false;
			fs.band = band;
			fs.bound = query->max_keys > 0 ? band : query->max_distance;
			status = art_walk(t, (const uint8_t *) "", 0, &visitor);
			if (status == ART_OK)
				status = fs.status;
		}
	}

	fuzzy_free(&fs, fs.term);
	fuzzy_free(&fs, fs.rows);
	fuzzy_free(&fs, fs.best);
	fuzzy_free(&fs, fs.chars);
	fuzzy_free(&fs, fs.char_lens);
	fuzzy_free(&fs, fs.path);
	fuzzy_free(&fs, fs.how);
	return status;
}
