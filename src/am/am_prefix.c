/*-------------------------------------------------------------------------
 *
 * am_prefix.c
 *	  The starts-with operators of the bpchar and name operator classes.
 *
 * PostgreSQL has "^@" for text only.  artrie_bpchar_ops and
 * artrie_name_ops need it between two values of their own type, at
 * strategy 6, and it must mean what an index scan finds: the first key
 * begins with the second, keys taken as am_datum_key takes them (bpchar
 * without its trailing blanks, name up to its NUL).  Like text's "^@",
 * it compares bytes, which a nondeterministic collation does not allow.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/lsyscache.h"

#include "am/am.h"

PG_FUNCTION_INFO_V1(artrie_bpchar_starts_with);
PG_FUNCTION_INFO_V1(artrie_name_starts_with);

/*
 * Does the key of a begin with the key of b, both of type typid?
 */
static bool
am_starts_with(FunctionCallInfo fcinfo, Oid typid)
{
	Oid			collid = PG_GET_COLLATION();
	AmKey		a;
	AmKey		b;
	bool		result;

	if (OidIsValid(collid) && !get_collation_isdeterministic(collid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nondeterministic collations are not supported for substring searches")));

	a = am_datum_key(typid, PG_GETARG_DATUM(0));
	b = am_datum_key(typid, PG_GETARG_DATUM(1));
	result = a.len >= b.len && memcmp(a.data, b.data, b.len) == 0;
	am_key_free(&a);
	am_key_free(&b);
	return result;
}

/*
 * bpchar ^@ bpchar: trailing blanks of either side do not count.
 */
Datum
artrie_bpchar_starts_with(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(am_starts_with(fcinfo, BPCHAROID));
}

/*
 * name ^@ name.
 */
Datum
artrie_name_starts_with(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(am_starts_with(fcinfo, NAMEOID));
}
