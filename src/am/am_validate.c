/*-------------------------------------------------------------------------
 *
 * am_validate.c
 *	  Operator class validation for artrie.
 *
 * An artrie operator family holds, for its input type, the five btree
 * comparison operators at strategies 1-5 and, for a string type,
 * starts-with at strategy 6, all boolean search operators between two
 * values of the input type (between any two integer types in the integer
 * family).  A string family may also hold LIKE at strategy 7, between
 * its type and a text pattern (text's from version 0.3.0 on, bpchar's
 * and name's from 0.4.0; older operator classes lack it, so it is not
 * required).  It has no support functions.  The input type is one
 * am_datum_key knows how to turn into a key: text, bpchar or name, and
 * int2, int4, int8 or uuid for the columns ahead of them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "am/am.h"

/*
 * Is the type one of the integer family's (int2, int4, int8)?
 */
static bool
am_validate_is_integer(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID;
}

/*
 * The function of LIKE between a string type and a text pattern, or
 * InvalidOid for another type.
 */
static Oid
am_validate_like_func(Oid typid)
{
	switch (typid)
	{
		case TEXTOID:
			return F_TEXTLIKE;
		case BPCHAROID:
			return F_BPCHARLIKE;
		case NAMEOID:
			return F_NAMELIKE;
		default:
			return InvalidOid;
	}
}

/*
 * Check an operator class and its family; report problems as INFO and
 * return whether all is well.
 */
bool
artrie_validate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	HeapTuple	familytup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opclassname;
	char	   *opfamilyname;
	CatCList   *oprlist;
	CatCList   *proclist;
	bool		seen[ARTRIE_NSTRATEGIES + 1] = {false};
	int			i;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);
	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	opfamilyname = pstrdup(NameStr(((Form_pg_opfamily) GETSTRUCT(familytup))->opfname));
	ReleaseSysCache(familytup);

	if (!am_cols_is_string(opcintype) && !am_validate_is_integer(opcintype) &&
		opcintype != UUIDOID)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method %s is for type %s, which it cannot index",
						opclassname, "artrie", format_type_be(opcintype))));
		result = false;
	}

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	for (i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator family \"%s\" of access method %s contains function %s with invalid support number %d",
						opfamilyname, "artrie",
						format_procedure(procform->amproc),
						procform->amprocnum)));
		result = false;
	}

	for (i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (oprform->amopstrategy < 1 ||
			oprform->amopstrategy > ARTRIE_NSTRATEGIES)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with invalid strategy number %d",
							opfamilyname, "artrie",
							format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
			continue;
		}

		if (oprform->amoppurpose != AMOP_SEARCH ||
			OidIsValid(oprform->amopsortfamily))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains invalid ORDER BY specification for operator %s",
							opfamilyname, "artrie",
							format_operator(oprform->amopopr))));
			result = false;
		}

		if ((oprform->amopstrategy == ARTRIE_LIKE_STRATEGY ?
			 oprform->amoprighttype != TEXTOID :
			 (oprform->amoplefttype != oprform->amoprighttype &&
			  !(am_validate_is_integer(oprform->amoplefttype) &&
				am_validate_is_integer(oprform->amoprighttype)))) ||
			!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype,
								  oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with wrong signature",
							opfamilyname, "artrie",
							format_operator(oprform->amopopr))));
			result = false;
		}

		if (oprform->amopstrategy == ARTRIE_LIKE_STRATEGY &&
			get_opcode(oprform->amopopr) !=
			am_validate_like_func(oprform->amoplefttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s at strategy %d, which is LIKE of text, bpchar or name only",
							opfamilyname, "artrie",
							format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}

		if (oprform->amoplefttype == opcintype &&
			oprform->amoprighttype == opcintype)
			seen[oprform->amopstrategy] = true;
	}

	for (i = 1; i <= ARTRIE_NSTRATEGIES; i++)
	{
		if (!seen[i] && i != ARTRIE_LIKE_STRATEGY &&
			(i != ARTRIE_PREFIX_STRATEGY || am_cols_is_string(opcintype)))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator class \"%s\" of access method %s is missing operator for strategy %d",
							opclassname, "artrie", i)));
			result = false;
		}
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);

	return result;
}
