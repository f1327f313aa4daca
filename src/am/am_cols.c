/*-------------------------------------------------------------------------
 *
 * am_cols.c
 *	  Keys of multicolumn artrie indexes.
 *
 * The key of an index on several columns is one part per column, in the
 * index's column order.  A part is a marker byte and then the value:
 *
 *	- AM_COL_NULL_FIRST (0x01) or AM_COL_NULL_LAST (0x03) for a NULL, as
 *	  the column's NULLS FIRST / NULLS LAST puts it, and nothing more;
 *	- AM_COL_VALUE (0x02) and the value's key (am_datum_key): an integer
 *	  or uuid has a fixed width and keeps its order; a string (text,
 *	  varchar, bpchar, name) is its bytes, in the last column as they are,
 *	  in a column before the last with 0x01 and 0x02 escaped as 0x02 0x02
 *	  and 0x02 0x03 and ended by 0x01.
 *
 * No key contains 0x00, the key trie's terminator, so an entry is still
 * key || 0x00 || TID and a group of the trie is a distinct key.  Byte
 * order of keys is the order of the rows' values column by column (each
 * string column in byte order), and a prefix of the last column's value
 * is a prefix of the key, so "^@" on the last column is one range.  A
 * single-column index keeps the key of am_datum_key alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "am/am.h"

/* The escape of 0x01 and 0x02 inside a string before the last column. */
#define AM_COL_ESCAPE	0x02
#define AM_COL_END		0x01

/*
 * Is the type one whose key is a string of bytes (text, bpchar, name)?
 */
pg_attribute_hot bool
am_cols_is_string(Oid typid)
{
	return typid == TEXTOID || typid == BPCHAROID || typid == NAMEOID;
}

/*
 * The marker of a NULL in the index's column col (0-based).
 */
uint8
am_cols_null_marker(Relation index, int col)
{
	return (index->rd_indoption[col] & INDOPTION_NULLS_FIRST) ?
		AM_COL_NULL_FIRST : AM_COL_NULL_LAST;
}

/*
 * Append a column's part for a value whose key (am_datum_key) is raw: a
 * string before the last column escaped and, unless only its prefix is
 * wanted (for "^@"), ended.
 */
void
am_cols_append(StringInfo buf, bool isstring, bool last, bool prefix,
			   const char *raw, Size len)
{
	Size		i;

	appendStringInfoChar(buf, AM_COL_VALUE);
	if (!isstring || last)
	{
		appendBinaryStringInfo(buf, raw, len);
		return;
	}
	for (i = 0; i < len; i++)
	{
		uint8		b = (uint8) raw[i];

		if (b == AM_COL_END || b == AM_COL_ESCAPE)
		{
			appendStringInfoChar(buf, AM_COL_ESCAPE);
			b++;
		}
		appendStringInfoChar(buf, (char) b);
	}
	if (!prefix)
		appendStringInfoChar(buf, AM_COL_END);
}

/*
 * The key of a row of a multicolumn index; *anynull says whether a column
 * is NULL.  The key's bytes are palloc'd (key.copy).
 */
AmKey
am_cols_key(Relation index, Datum *values, bool *isnull, bool *anynull)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	StringInfoData buf;
	AmKey		key;
	int			col;

	initStringInfo(&buf);
	*anynull = false;
	for (col = 0; col < ncols; col++)
	{
		Oid			typid = index->rd_opcintype[col];
		AmKey		part;

		if (isnull[col])
		{
			appendStringInfoChar(&buf, (char) am_cols_null_marker(index, col));
			*anynull = true;
			continue;
		}
		part = am_datum_key(typid, values[col]);
		am_cols_append(&buf, am_cols_is_string(typid), col == ncols - 1,
					   false, part.data, part.len);
		am_key_free(&part);
	}
	key.data = buf.data;
	key.len = buf.len;
	key.copy = buf.data;
	return key;
}

/*
 * The value of a string column from its key's bytes, as am_key_datum
 * rebuilds it.
 */
static Datum
am_cols_string_datum(Oid typid, int32 typmod, const char *data, Size len)
{
	Datum		value;

	if (typid == NAMEOID)
	{
		Name		name = palloc0(NAMEDATALEN);

		memcpy(NameStr(*name), data, Min(len, NAMEDATALEN - 1));
		return NameGetDatum(name);
	}
	value = PointerGetDatum(cstring_to_text_with_len(data, (int) len));
	if (typid == BPCHAROID && typmod >= 0)
		value = DirectFunctionCall3(bpchar, value, Int32GetDatum(typmod),
									BoolGetDatum(false));
	return value;
}

/*
 * Decode a multicolumn key into each column's value (palloc'd); false if
 * the bytes are not a key of this index.
 */
bool
am_cols_decode(Relation index, const uint8 *key, Size len, Datum *values,
			   bool *isnull)
{
	int			ncols = IndexRelationGetNumberOfKeyAttributes(index);
	TupleDesc	desc = RelationGetDescr(index);
	Size		pos = 0;
	int			col;

	for (col = 0; col < ncols; col++)
	{
		Oid			typid = index->rd_opcintype[col];
		bool		last = (col == ncols - 1);

		if (pos >= len)
			return false;
		isnull[col] = (key[pos] != AM_COL_VALUE);
		values[col] = (Datum) 0;
		if (isnull[col])
		{
			if (key[pos] != am_cols_null_marker(index, col))
				return false;
			pos++;
			continue;
		}
		pos++;
		if (!am_cols_is_string(typid))
		{
			uint8		raw[UUID_LEN];
			int			nraw = (typid == UUIDOID) ? UUID_LEN : 8;
			int			width = AM_BITS_KEY_LEN(nraw);

			if (len - pos < width)
				return false;
			am_bits_decode(key + pos, nraw, raw);
			values[col] = am_fixed_datum(typid, raw);
			pos += width;
		}
		else if (last)
		{
			values[col] = am_cols_string_datum(typid,
											   TupleDescAttr(desc, col)->atttypmod,
											   (const char *) key + pos,
											   len - pos);
			pos = len;
		}
		else
		{
			char	   *str = palloc(len - pos + 1);
			Size		n = 0;

			while (pos < len && key[pos] != AM_COL_END)
			{
				if (key[pos] == AM_COL_ESCAPE)
				{
					if (++pos >= len ||
						(key[pos] != AM_COL_END + 1 &&
						 key[pos] != AM_COL_ESCAPE + 1))
						return false;
					str[n++] = (char) (key[pos++] - 1);
				}
				else
					str[n++] = (char) key[pos++];
			}
			if (pos >= len)
				return false;
			pos++;
			values[col] = am_cols_string_datum(typid,
											   TupleDescAttr(desc, col)->atttypmod,
											   str, n);
			pfree(str);
		}
	}
	return pos == len;
}
