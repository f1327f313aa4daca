/*-------------------------------------------------------------------------
 *
 * am_key.c
 *	  Entry encoding and helpers shared by the artrie AM.
 *
 * A key trie entry is key || 0x00 || block (4 bytes, big-endian) ||
 * offset (2 bytes, big-endian); a NULL trie entry is the 6 TID bytes
 * alone.  The key is the value's bytes as its type compares them (see
 * am_datum_key; a multicolumn index's key is its columns' keys in turn,
 * am_cols.c); none of text, bpchar or name contains 0x00, nor do the keys
 * of integers and uuids, so the terminator keeps every key's entries
 * together and ahead of any longer key's, and byte order of entries is
 * COLLATE "C" order of keys, then TID order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/uuid.h"

#include "am/am.h"

/*
 * Encode a TID into 6 big-endian bytes.
 */
void
am_tid_encode(ItemPointer tid, uint8 *out)
{
	BlockNumber blk = ItemPointerGetBlockNumberNoCheck(tid);
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);

	out[0] = (uint8) (blk >> 24);
	out[1] = (uint8) (blk >> 16);
	out[2] = (uint8) (blk >> 8);
	out[3] = (uint8) blk;
	out[4] = (uint8) (off >> 8);
	out[5] = (uint8) off;
}

/*
 * Build the key trie entry for (key, tid) in palloc'd memory.
 */
uint8 *
am_key_entry(const char *key, Size keylen, ItemPointer tid, Size *entrylen)
{
	uint8	   *entry = palloc(keylen + 1 + ARTRIE_TID_LEN);

	memcpy(entry, key, keylen);
	entry[keylen] = 0x00;
	am_tid_encode(tid, entry + keylen + 1);
	*entrylen = keylen + 1 + ARTRIE_TID_LEN;
	return entry;
}

/*
 * The key of a non-NULL value of an operator class's input type: text
 * (and varchar) as its bytes, bpchar without the trailing blanks its
 * comparisons ignore, name up to its terminating NUL.  A copy made by
 * detoasting is left in copy for am_key_free.
 */
pg_attribute_hot AmKey
am_datum_key(Oid typid, Datum value)
{
	AmKey		key = {NULL, 0, NULL};

	switch (typid)
	{
		case NAMEOID:
			key.data = NameStr(*DatumGetName(value));
			key.len = strnlen(key.data, NAMEDATALEN);
			break;
		case TEXTOID:
		case BPCHAROID:
			{
				text	   *t = DatumGetTextPP(value);

				key.data = VARDATA_ANY(t);
				key.len = VARSIZE_ANY_EXHDR(t);
				if (typid == BPCHAROID)
					key.len = bpchartruelen(VARDATA_ANY(t), key.len);
				if ((Pointer) t != DatumGetPointer(value))
					key.copy = t;
				break;
			}
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case UUIDOID:
			{
				uint8		raw[UUID_LEN];
				int			nraw = am_fixed_raw(typid, value, raw);
				int			len = AM_BITS_KEY_LEN(nraw);
				uint8	   *out = palloc(len);

				am_bits_encode(raw, nraw, out);
				key.data = (const char *) out;
				key.len = len;
				key.copy = out;
				break;
			}
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("artrie cannot index values of type %s",
							format_type_be(typid)),
					 errhint("artrie indexes text, varchar, bpchar and name, and int2, int4, int8 and uuid ahead of them in a multicolumn index.")));
	}
	return key;
}

/*
 * The big-endian bytes of an integer (as an int64 whose sign bit is
 * flipped, so that every integer type compares as unsigned bytes in the
 * same order) or of a uuid (compared as its bytes); returns their number.
 */
int
am_fixed_raw(Oid typid, Datum value, uint8 *raw)
{
	uint64		u;
	int			i;

	switch (typid)
	{
		case INT2OID:
			u = (uint64) (int64) DatumGetInt16(value);
			break;
		case INT4OID:
			u = (uint64) (int64) DatumGetInt32(value);
			break;
		case INT8OID:
			u = (uint64) DatumGetInt64(value);
			break;
		case UUIDOID:
			memcpy(raw, DatumGetUUIDP(value)->data, UUID_LEN);
			return UUID_LEN;
		default:
			elog(ERROR, "type %u has no fixed-width artrie key", typid);
	}
	u ^= UINT64CONST(1) << 63;
	for (i = 0; i < 8; i++)
		raw[i] = (uint8) (u >> (56 - 8 * i));
	return 8;
}

/*
 * Encode nraw big-endian bytes as AM_BITS_KEY_LEN(nraw) bytes of seven
 * bits each (leading zero bits pad the first), each with its high bit set:
 * the order of the bytes is kept and no byte is 0x00, so the key trie's
 * terminator stays unique to the end of a key.
 */
void
am_bits_encode(const uint8 *raw, int nraw, uint8 *out)
{
	int			len = AM_BITS_KEY_LEN(nraw);
	uint32		acc = 0;
	int			nacc = 7 * len - 8 * nraw;	/* the padding: zero bits */
	int			in = 0;
	int			k;

	for (k = 0; k < len; k++)
	{
		if (nacc < 7)
		{
			acc = (acc << 8) | raw[in++];
			nacc += 8;
		}
		out[k] = 0x80 | ((acc >> (nacc - 7)) & 0x7F);
		nacc -= 7;
	}
}

/*
 * Decode what am_bits_encode made of nraw bytes.
 */
void
am_bits_decode(const uint8 *in, int nraw, uint8 *raw)
{
	int			len = AM_BITS_KEY_LEN(nraw);
	uint32		acc = 0;
	int			nacc = 8 * nraw - 7 * len;	/* less the padding */
	int			out = 0;
	int			k;

	for (k = 0; k < len; k++)
	{
		acc = (acc << 7) | (in[k] & 0x7F);
		nacc += 7;
		if (nacc >= 8)
		{
			raw[out++] = (uint8) (acc >> (nacc - 8));
			nacc -= 8;
		}
	}
}

/*
 * The value of an integer or uuid column from its raw bytes (am_fixed_raw).
 */
Datum
am_fixed_datum(Oid typid, const uint8 *raw)
{
	uint64		u = 0;
	int			i;

	if (typid == UUIDOID)
	{
		pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

		memcpy(uuid->data, raw, UUID_LEN);
		return UUIDPGetDatum(uuid);
	}
	for (i = 0; i < 8; i++)
		u = (u << 8) | raw[i];
	u ^= UINT64CONST(1) << 63;
	switch (typid)
	{
		case INT2OID:
			return Int16GetDatum((int16) (int64) u);
		case INT4OID:
			return Int32GetDatum((int32) (int64) u);
		default:
			return Int64GetDatum((int64) u);
	}
}

/*
 * The value of the index's key column whose key is (key, keylen), as its
 * heap tuple holds it, for messages that print it: text as the bytes,
 * name NUL-padded to NAMEDATALEN, bpchar padded again to the column's
 * length (a column without one keeps no trailing blanks).
 */
Datum
am_key_datum(Relation index, const char *key, Size keylen)
{
	Oid			typid = index->rd_opcintype[0];
	int32		typmod = TupleDescAttr(RelationGetDescr(index), 0)->atttypmod;

	switch (typid)
	{
		case NAMEOID:
			{
				Name		name = palloc0(NAMEDATALEN);

				memcpy(NameStr(*name), key, Min(keylen, NAMEDATALEN - 1));
				return NameGetDatum(name);
			}
		case TEXTOID:
			return PointerGetDatum(cstring_to_text_with_len(key, (int) keylen));
		case BPCHAROID:
			{
				Datum		value;

				value = PointerGetDatum(cstring_to_text_with_len(key,
																 (int) keylen));

				if (typmod < 0)
					return value;
				return DirectFunctionCall3(bpchar, value, Int32GetDatum(typmod),
										   BoolGetDatum(false));
			}
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("artrie cannot index values of type %s",
					format_type_be(typid))));
	return (Datum) 0;
}

/*
 * Free what am_datum_key copied, if anything.
 */
pg_attribute_hot void
am_key_free(AmKey *key)
{
	if (key->copy != NULL)
		pfree(key->copy);
	key->copy = NULL;
}

/*
 * The keys of the non-NULL elements of an array of the operator class's
 * input type; returns their number.
 */
int
am_array_keys(Oid typid, Datum array, AmKey **keys)
{
	ArrayType  *arr = DatumGetArrayTypeP(array);
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *datums;
	bool	   *nulls;
	int			ndatums;
	int			n = 0;
	int			i;

	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
					  &datums, &nulls, &ndatums);
	*keys = palloc(sizeof(AmKey) * Max(ndatums, 1));
	for (i = 0; i < ndatums; i++)
		if (!nulls[i])
			(*keys)[n++] = am_datum_key(typid, datums[i]);
	return n;
}

/*
 * Refuse a key longer than the trie can hold.
 */
void
am_check_key_length(Relation index, Size keylen)
{
	if (keylen > ARTRIE_MAX_KEY_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("key of %zu bytes exceeds the maximum of %zu bytes for artrie index \"%s\"",
						keylen, (Size) ARTRIE_MAX_KEY_LEN,
						RelationGetRelationName(index))));
}

/*
 * Byte-string order: memcmp, a proper prefix first.
 */
int
am_bytes_cmp(const uint8 *a, Size alen, const uint8 *b, Size blen)
{
	int			r = memcmp(a, b, Min(alen, blen));

	if (r != 0)
		return r;
	if (alen < blen)
		return -1;
	if (alen > blen)
		return 1;
	return 0;
}

/*
 * Does the collation order text exactly as its bytes ("C", "POSIX")?
 */
pg_attribute_hot bool
am_collation_is_bytewise(Oid collid)
{
	if (!OidIsValid(collid))
		return false;
#if PG_VERSION_NUM >= 170000
	return pg_newlocale_from_collation(collid)->collate_is_c;
#else
	return lc_collate_is_c(collid);
#endif
}

/*
 * The ERROR of a failed trie status (am_check_status's out-of-line part,
 * kept apart from the scans' and lookups' hot paths).
 */
void
am_status_error(ArtStatus status, Relation index, const char *action)
{
	const char *relname = RelationGetRelationName(index);

	switch (status)
	{
		case ART_TOO_LONG:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("entry too long for artrie index \"%s\"", relname)));
			break;
		case ART_NO_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory while %s artrie index \"%s\"",
							action, relname)));
			break;
		case ART_NO_SPACE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("artrie index \"%s\" has no room for another page",
							relname)));
			break;
		case ART_IO_ERROR:
			ereport(ERROR,
					(errcode(ERRCODE_IO_ERROR),
					 errmsg("I/O error while %s artrie index \"%s\"",
							action, relname)));
			break;
		case ART_CORRUPT:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("artrie index \"%s\" is corrupt (found while %s it)",
							relname, action),
					 errhint("Rebuild the index with REINDEX.")));
			break;
		case ART_OK:
		case ART_NOT_FOUND:
		case ART_EXISTS:
			break;
	}
	elog(ERROR, "unexpected trie status %d while %s artrie index \"%s\"",
		 (int) status, action, relname);
}
