/*-------------------------------------------------------------------------
 *
 * am_like.c
 *	  Index paths for LIKE, ILIKE, regular expression and starts_with()
 *	  prefixes on artrie indexes.
 *
 * PostgreSQL derives index conditions from "key LIKE 'abc%'" through the
 * LIKE operators' support functions, which know the btree and SP-GiST
 * operator families and (PostgreSQL 15) artrie's under a byte-ordered
 * ("C") index collation, where the prefix becomes a range.  Under any
 * other collation, and for name (whose LIKE takes a text pattern),
 * nothing reaches an artrie index.  A set_rel_pathlist hook gives artrie
 * its own path where the support function gives none: for a restriction
 *
 *	- key LIKE 'abc%' (and key ~~ with a pattern folded from ESCAPE),
 *	- key ILIKE '12-%', up to the first character that may have case,
 *	- key ~ '^abc' (literal characters only, no alternation),
 *	- starts_with(key, 'abc') in an operator family without "^@",
 *
 * on the key of an artrie index, in the index's collation (as PostgreSQL
 * asks of any index clause), with a constant pattern and a nonempty
 * literal prefix, it adds an index path and a bitmap path whose index
 * condition is "key ^@ 'abc'" (the operator class's strategy 6), with
 * the restriction kept as a lossy index clause: the executor checks it on
 * every row the index returns.  An OR of such restrictions gets a
 * BitmapOr of their index scans.
 *
 * From version 0.3.0 on, text's "~~" (LIKE) is in artrie_text_ops at
 * strategy 7, and from 0.4.0 on bpchar's and name's, "~~ (bpchar, text)"
 * and "~~ (name, text)", are in theirs: the planner makes "key LIKE
 * pattern" itself the index condition, for any pattern, and the scan
 * takes the pattern's literal prefix (am_like_pattern; am_scan.c), so a
 * bitmap heap scan keeps no filter for it.  The hook leaves such a
 * clause to the planner (and takes it as it is for an arm of an OR); it
 * still gives bpchar and name LIKE its "^@" paths in a database whose
 * extension is older.  For LIKE and starts-with written as a function
 * call (textlike(key, 'abc%'), starts_with(key, 'abc')), which the planner
 * matches to no operator, the hook's paths take the family's "~~" or "^@"
 * on the same arguments as the index condition, not lossy: an index scan keeps no filter for it, a bitmap
 * heap scan still does (PostgreSQL leaves out of that filter only a
 * restriction that is itself an index qual).  Under the 0.2.0 operator class,
 * without "~~", a text LIKE whose pattern is only a literal prefix and
 * '%' ('abc%'), which matches exactly the keys that begin with the
 * prefix, gets such paths from the hook under any collation, the "C" one
 * included, with a clause that is not lossy: no recheck of the LIKE on
 * every row an index scan returns (the range the support function
 * derives under "C" keeps it).  The planner keeps whichever path costs
 * less.
 *
 * That is exact under a deterministic collation: there LIKE, ILIKE and
 * regular expressions compare the literal characters of a pattern as
 * bytes, so every value that matches begins with the prefix's bytes (for
 * ILIKE, only characters without case qualify, and no character folds
 * to one of those), and the check leaves out every row that begins with
 * them but does not match.  A bpchar value matches a pattern with its
 * padding, which begins with the prefix only if the key (without
 * trailing blanks) begins with the prefix without its own; bpchar's "^@"
 * takes the prefix so.  The clause's collation must be the index's, and
 * artrie indexes refuse nondeterministic collations (am_build.c).  As
 * for any index clause, a restriction that must wait for a security
 * barrier's quals (and is not leakproof) is left alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "am/am.h"

/* What a clause asks of its constant. */
typedef enum AmPatternKind
{
	AM_PATTERN_NONE,
	AM_PATTERN_LIKE,
	AM_PATTERN_ILIKE,
	AM_PATTERN_REGEX,
	AM_PATTERN_PREFIX
} AmPatternKind;

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/*
 * The kind of pattern match a function performs.
 */
static AmPatternKind
am_pattern_kind(Oid funcid)
{
	switch (funcid)
	{
		case F_TEXTLIKE:
		case F_BPCHARLIKE:
		case F_NAMELIKE:
			return AM_PATTERN_LIKE;
		case F_TEXTICLIKE:
		case F_BPCHARICLIKE:
		case F_NAMEICLIKE:
			return AM_PATTERN_ILIKE;
		case F_TEXTREGEXEQ:
		case F_BPCHARREGEXEQ:
		case F_NAMEREGEXEQ:
			return AM_PATTERN_REGEX;
		case F_STARTS_WITH:
			return AM_PATTERN_PREFIX;
		default:
			return AM_PATTERN_NONE;
	}
}

/*
 * Is the character at p (of len bytes) one that no case mapping touches?
 * Only ASCII characters other than letters are taken to be.
 */
static bool
am_char_caseless(const char *p, int len)
{
	unsigned char c = (unsigned char) *p;

	return len == 1 && c < 0x80 &&
		!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/*
 * The literal prefix of a LIKE (or, with ilike, ILIKE) pattern: its
 * characters up to the first wildcard, backslash escapes resolved, for
 * ILIKE up to the first character that may have case.  Returns its
 * length, or -1 if the pattern is malformed (ends in an escape); *end is
 * where the prefix ends in the pattern.
 */
static pg_attribute_hot int
am_like_prefix(const char *patt, int len, bool ilike, char *prefix, int *end)
{
	int			n = 0;
	int			i = 0;

	while (i < len)
	{
		int			clen;

		if (patt[i] == '%' || patt[i] == '_')
			break;
		if (patt[i] == '\\')
		{
			if (++i >= len)
				return -1;
		}
		/* an ASCII byte is a character of its own in every server encoding */
		clen = IS_HIGHBIT_SET(patt[i]) ? Min(pg_mblen(patt + i), len - i) : 1;
		if (ilike && !am_char_caseless(patt + i, clen))
			break;
		memcpy(prefix + n, patt + i, clen);
		n += clen;
		i += clen;
	}
	*end = i;
	return n;
}

/*
 * What a LIKE pattern (patt, of len bytes) on a key of type typid asks of
 * the keys that match it under a deterministic collation, where LIKE
 * compares the pattern's literal characters as bytes: every one begins
 * with the pattern's literal prefix (copied to prefix, len bytes at most,
 * its length to *prefixlen).  A pattern that is only the literal matches
 * the keys equal to it, one that is the literal and '%' (any number) the
 * keys that begin with it, and any other the keys beginning with it for
 * which LIKE itself says so; a malformed pattern (ending in an escape) is
 * of the last kind, with no prefix, and LIKE refuses it when it is
 * checked.
 *
 * A bpchar value matches with its padding, which its key has lost, so the
 * prefix loses its trailing blanks too: a padded value begins with the
 * literal only if its key begins with that.  The literal and '%' stay
 * exact when the literal ends in another character (where it ends, a
 * value has a character of its key, not a blank of its padding); a
 * pattern without wildcards matches some of the keys equal to the literal
 * without its blanks, those whose values have the padding it asks for.
 */
pg_attribute_hot AmLikeKind
am_like_pattern(Oid typid, const char *patt, int len, char *prefix,
				int *prefixlen)
{
	int			end;
	int			n = am_like_prefix(patt, len, false, prefix, &end);
	AmLikeKind	kind;
	int			i;

	*prefixlen = Max(n, 0);
	if (n < 0)
		return AM_LIKE_OTHER;
	kind = (end >= len) ? AM_LIKE_EXACT : AM_LIKE_PREFIX;
	for (i = end; i < len && kind == AM_LIKE_PREFIX; i++)
		if (patt[i] != '%')
			kind = AM_LIKE_OTHER;
	if (typid == BPCHAROID)
	{
		*prefixlen = bpchartruelen(prefix, n);
		if (kind == AM_LIKE_EXACT)
			kind = AM_LIKE_EQUAL_OTHER;
		else if (*prefixlen < n)
			kind = AM_LIKE_OTHER;
	}
	return kind;
}

/*
 * The literal prefix of a regular expression anchored with '^': the
 * characters after it up to the first one with a meaning of its own,
 * less the last one if a quantifier follows it.  Returns its length, or
 * 0 if the pattern is not anchored or has an alternation anywhere (which
 * could leave the anchor behind).
 */
static int
am_regex_prefix(const char *patt, int len, char *prefix)
{
	int			n = 0;
	int			last = 0;
	int			i;

	if (len == 0 || patt[0] != '^' || memchr(patt, '|', len) != NULL)
		return 0;
	i = 1;
	while (i < len)
	{
		int			clen = Min(pg_mblen(patt + i), len - i);

		if (clen == 1 && strchr("\\^$.[]()*+?{}", patt[i]) != NULL)
		{
			if (strchr("*+?{", patt[i]) != NULL)
				n = last;
			break;
		}
		last = n;
		memcpy(prefix + n, patt + i, clen);
		n += clen;
		i += clen;
	}
	return n;
}

/*
 * A constant of the operator class's input type holding the prefix, or
 * NULL if no value of that type can begin with it.
 */
static Const *
am_prefix_const(Oid typid, const char *prefix, int len)
{
	if (typid == NAMEOID)
	{
		Name		name;

		if (len >= NAMEDATALEN)
			return NULL;
		name = palloc0(NAMEDATALEN);
		memcpy(NameStr(*name), prefix, len);
		return makeConst(NAMEOID, -1, get_typcollation(NAMEOID), NAMEDATALEN,
						 NameGetDatum(name), false, false);
	}
	return makeConst(typid, -1, get_typcollation(typid), -1,
					 PointerGetDatum(cstring_to_text_with_len(prefix, len)),
					 false, false);
}

/*
 * Does the function's own planner support derive an index condition from
 * the clause for the index?  It is asked as the planner asks it; where it
 * answers (a "C" index collation gives text and bpchar a range, a pattern
 * without wildcards may give "="), the planner has made those paths
 * already.
 */
static bool
am_like_has_support(PlannerInfo *root, Oid funcid, Expr *clause,
					IndexOptInfo *index, int col)
{
	RegProcedure prosupport = get_func_support(funcid);
	SupportRequestIndexCondition req;

	if (!OidIsValid(prosupport))
		return false;
	req.type = T_SupportRequestIndexCondition;
	req.root = root;
	req.funcid = funcid;
	req.node = (Node *) clause;
	req.indexarg = 0;
	req.index = index;
	req.indexcol = col;
	req.opfamily = index->opfamily[col];
	req.indexcollation = index->indexcollations[col];
	req.lossy = true;
	return DatumGetPointer(OidFunctionCall1(prosupport,
											PointerGetDatum(&req))) != NULL;
}

/*
 * The index clause of a restriction on the index's column col whose index
 * condition is qual (the restriction itself when it is an operator of the
 * index's family); lossy if the executor must still check the
 * restriction on each row.
 */
static IndexClause *
am_like_make_clause(RestrictInfo *rinfo, RestrictInfo *qual, int col,
					bool lossy)
{
	IndexClause *iclause = makeNode(IndexClause);

	iclause->rinfo = rinfo;
	iclause->indexquals = list_make1(qual);
	iclause->lossy = lossy;
	iclause->indexcol = col;
	iclause->indexcols = NIL;
	return iclause;
}

/*
 * The index clause of a restriction whose index condition is opclause, an
 * operator of the index's family on its column col; lossy as above.
 */
static IndexClause *
am_like_derived_clause(PlannerInfo *root, RestrictInfo *rinfo,
					   Expr *opclause, int col, bool lossy)
{
	set_opfuncid((OpExpr *) opclause);
	return am_like_make_clause(rinfo, make_simple_restrictinfo(root, opclause),
							   col, lossy);
}

/*
 * The operator of the index's family whose function a call of funcid on
 * the key calls: "~~" (strategy 7) for textlike() and its bpchar and name
 * kin, "^@" (strategy 6) for starts_with() and artrie's own bpchar and
 * name starts-with functions; InvalidOid if none.
 */
static Oid
am_like_call_operator(IndexOptInfo *index, int col, Oid funcid)
{
	Oid			typid = index->opcintype[col];
	Oid			opno;

	opno = get_opfamily_member(index->opfamily[col], typid, TEXTOID,
							   ARTRIE_LIKE_STRATEGY);
	if (OidIsValid(opno) && get_opcode(opno) == funcid)
		return opno;
	opno = get_opfamily_member(index->opfamily[col], typid, typid,
							   ARTRIE_PREFIX_STRATEGY);
	if (OidIsValid(opno) && get_opcode(opno) == funcid)
		return opno;
	return InvalidOid;
}

/*
 * The index clause "key ^@ prefix" that a restriction implies on the
 * artrie index's key, or NULL if it implies none this file handles.  With
 * allow_exact, a text LIKE whose pattern is a literal prefix and '%'
 * gives the clause even where the operator's support function gives one,
 * and not lossy: the restriction holds exactly for the keys beginning
 * with the prefix, so the executor need not check it on each row.  An
 * operator of the index's operator family ("~~" from version 0.3.0 on
 * for text, from 0.4.0 on for bpchar and name) is left to the planner,
 * which makes the restriction itself the index clause; without
 * allow_exact (an arm of an OR) it is that.  LIKE or starts-with written
 * as a function call (textlike(key, pattern), starts_with(key, prefix))
 * gets the family's operator on the same arguments, not lossy: the same
 * function, answered by the scan as the operator is.
 */
static pg_attribute_hot IndexClause *
am_like_index_clause(PlannerInfo *root, RestrictInfo *rinfo,
					 IndexOptInfo *index, int col, bool allow_exact)
{
	Expr	   *clause = rinfo->clause;
	Oid			typid = index->opcintype[col];
	Oid			funcid;
	Oid			collid;
	List	   *args;
	Const	   *patt;
	text	   *pattext;
	char	   *prefix;
	int			len;
	int			end;
	Const	   *pconst;
	Oid			opno;
	Expr	   *prefixclause;
	bool		exact;

	if (rinfo->pseudoconstant ||
		!restriction_is_securely_promotable(rinfo, index->rel))
		return NULL;
	if (IsA(clause, OpExpr))
	{
		set_opfuncid((OpExpr *) clause);
		funcid = ((OpExpr *) clause)->opfuncid;
		collid = ((OpExpr *) clause)->inputcollid;
		args = ((OpExpr *) clause)->args;
		if (funcid == F_STARTS_WITH)
			return NULL;		/* "^@" itself: the operator class has it */
	}
	else if (IsA(clause, FuncExpr))
	{
		funcid = ((FuncExpr *) clause)->funcid;
		collid = ((FuncExpr *) clause)->inputcollid;
		args = ((FuncExpr *) clause)->args;
	}
	else
		return NULL;

	if ((am_pattern_kind(funcid) == AM_PATTERN_NONE &&
		 !IsA(clause, FuncExpr)) || list_length(args) != 2)
		return NULL;
	if (!am_cols_is_string(typid) || collid != index->indexcollations[col])
		return NULL;
	if (!IsA(lsecond(args), Const) || ((Const *) lsecond(args))->constisnull)
		return NULL;
	if (!match_index_to_operand((Node *) linitial(args), col, index))
		return NULL;

	if (IsA(clause, OpExpr) &&
		op_in_opfamily(((OpExpr *) clause)->opno, index->opfamily[col]))
	{
		/* the planner's own paths have it; an arm of an OR takes it as is */
		return allow_exact ? NULL : am_like_make_clause(rinfo, rinfo, col, false);
	}
	opno = IsA(clause, FuncExpr) ?
		am_like_call_operator(index, col, funcid) : InvalidOid;
	if (OidIsValid(opno))
		return am_like_derived_clause(root, rinfo,
									  make_opclause(opno, BOOLOID, false,
													(Expr *) linitial(args),
													(Expr *) lsecond(args),
													InvalidOid, collid),
									  col, false);
	if (am_pattern_kind(funcid) == AM_PATTERN_NONE)
		return NULL;

	patt = (Const *) lsecond(args);
	pattext = DatumGetTextPP(patt->constvalue);
	len = VARSIZE_ANY_EXHDR(pattext);
	prefix = palloc(len + 1);
	exact = allow_exact && typid == TEXTOID &&
		am_pattern_kind(funcid) == AM_PATTERN_LIKE &&
		am_like_pattern(typid, VARDATA_ANY(pattext), len, prefix, &end) ==
		AM_LIKE_PREFIX;
	if (!exact && am_like_has_support(root, funcid, clause, index, col))
		return NULL;
	switch (am_pattern_kind(funcid))
	{
		case AM_PATTERN_LIKE:
		case AM_PATTERN_ILIKE:
			len = am_like_prefix(VARDATA_ANY(pattext), len,
								 am_pattern_kind(funcid) == AM_PATTERN_ILIKE,
								 prefix, &end);
			break;
		case AM_PATTERN_REGEX:
			len = am_regex_prefix(VARDATA_ANY(pattext), len, prefix);
			break;
		default:
			memcpy(prefix, VARDATA_ANY(pattext), len);
			break;
	}
	if (len <= 0)
		return NULL;

	pconst = am_prefix_const(typid, prefix, len);
	opno = get_opfamily_member(index->opfamily[col], typid, typid,
							   ARTRIE_PREFIX_STRATEGY);
	if (pconst == NULL || !OidIsValid(opno))
		return NULL;
	prefixclause = make_opclause(opno, BOOLOID, false,
								 (Expr *) linitial(args), (Expr *) pconst,
								 InvalidOid, index->indexcollations[col]);
	return am_like_derived_clause(root, rinfo, prefixclause, col, !exact);
}

/*
 * Can a scan of the index answer for the relation without the heap, as
 * the planner's own check_index_only decides for a simple column?
 */
static bool
am_like_index_only(RelOptInfo *rel, IndexOptInfo *index)
{
	Bitmapset  *attrs = NULL;
	Bitmapset  *returnable = NULL;
	ListCell   *lc;
	int			col;

	if (!enable_indexonlyscan)
		return false;
	for (col = 0; col < index->nkeycolumns; col++)
	{
		AttrNumber	attno = index->indexkeys[col];

		if (attno == 0 || !index->canreturn[col])
			return false;
		/* pull_varattnos offsets attribute numbers so system columns fit */
		returnable = bms_add_member(returnable,
									attno - FirstLowInvalidHeapAttributeNumber);
	}
	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(lc, index->indrestrictinfo)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, lc)->clause,
					   rel->relid, &attrs);
	return bms_is_subset(attrs, returnable);
}

/*
 * The index clause of a restriction "column = constant" on the index's
 * column col, or NULL: a multicolumn index's paths for a prefix of a later
 * column take the "=" of the columns ahead of it.
 */
static IndexClause *
am_like_equal_clause(RestrictInfo *rinfo, IndexOptInfo *index, int col)
{
	OpExpr	   *op;

	if (!IsA(rinfo->clause, OpExpr) || rinfo->pseudoconstant)
		return NULL;
	op = (OpExpr *) rinfo->clause;
	if (list_length(op->args) != 2 || !IsA(lsecond(op->args), Const) ||
		!match_index_to_operand((Node *) linitial(op->args), col, index) ||
		get_op_opfamily_strategy(op->opno, index->opfamily[col]) !=
		ARTRIE_EQUAL_STRATEGY ||
		(OidIsValid(index->indexcollations[col]) &&
		 op->inputcollid != index->indexcollations[col]))
		return NULL;
	return am_like_make_clause(rinfo, rinfo, col, false);
}

/*
 * The index clauses for the prefix restrictions on the index's column col:
 * with col > 0 preceded by an "=" on each column ahead of it, or NIL.
 */
static List *
am_like_column_clauses(PlannerInfo *root, RelOptInfo *rel,
					   IndexOptInfo *index, int col)
{
	List	   *iclauses = NIL;
	List	   *likes = NIL;
	ListCell   *lc;
	int			c;

	foreach(lc, rel->baserestrictinfo)
	{
		IndexClause *iclause = am_like_index_clause(root,
													lfirst_node(RestrictInfo, lc),
													index, col, true);

		if (iclause != NULL)
			likes = lappend(likes, iclause);
	}
	if (likes == NIL)
		return NIL;
	for (c = 0; c < col; c++)
	{
		IndexClause *eq = NULL;

		foreach(lc, rel->baserestrictinfo)
			if ((eq = am_like_equal_clause(lfirst_node(RestrictInfo, lc),
										   index, c)) != NULL)
				break;
		if (eq == NULL)
			return NIL;
		iclauses = lappend(iclauses, eq);
	}
	return list_concat(iclauses, likes);
}

/*
 * The paths on one artrie index for the prefix restrictions on each of its
 * columns (on a column of a multicolumn index behind an "=" on each column
 * ahead of it): an index scan (index-only if it can be) and a bitmap scan.
 */
static void
am_like_index_paths(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index)
{
	int			col;

	for (col = 0; col < index->nkeycolumns; col++)
	{
		List	   *iclauses = am_like_column_clauses(root, rel, index, col);
		IndexPath  *ipath;

		if (iclauses == NIL)
			continue;
		ipath = create_index_path(root, index, iclauses, NIL, NIL, NIL,
								  ForwardScanDirection, false, NULL, 1.0,
								  false);
		if (am_like_index_only(rel, index))
			add_path(rel, (Path *) create_index_path(root, index, iclauses,
													 NIL, NIL, NIL,
													 ForwardScanDirection,
													 true, NULL, 1.0, false));
		else
			add_path(rel, (Path *) ipath);
		add_path(rel, (Path *) create_bitmap_heap_path(root, rel,
													   (Path *) ipath,
													   NULL, 1.0, 0));
	}
}

/*
 * The bitmap path for an OR each of whose arms is a prefix restriction on
 * the key of one of the indexes: a BitmapOr of one index scan per arm
 * (on the first index that takes it), the OR kept as a filter.  When the
 * index clause of every arm is the arm itself, the planner has made that
 * path already.
 */
static void
am_like_or_path(PlannerInfo *root, RelOptInfo *rel, RestrictInfo *rinfo,
				List *indexes)
{
	List	   *bitmapquals = NIL;
	bool		derived = false;
	Path	   *orpath;
	ListCell   *lc;

	if (rinfo->pseudoconstant ||
		!restriction_is_securely_promotable(rinfo, rel))
		return;
	foreach(lc, ((BoolExpr *) rinfo->orclause)->args)
	{
		Node	   *arm = (Node *) lfirst(lc);
		IndexClause *iclause = NULL;
		ListCell   *lc2;

		if (!IsA(arm, RestrictInfo))
			return;				/* an AND of several restrictions */
		foreach(lc2, indexes)
		{
			IndexOptInfo *index = (IndexOptInfo *) lfirst(lc2);

			iclause = am_like_index_clause(root, (RestrictInfo *) arm, index,
										   0, false);
			if (iclause != NULL)
			{
				derived |= (linitial(iclause->indexquals) != arm);
				bitmapquals = lappend(bitmapquals,
									  create_index_path(root, index,
														list_make1(iclause),
														NIL, NIL, NIL,
														ForwardScanDirection,
														false, NULL, 1.0,
														false));
				break;
			}
		}
		if (iclause == NULL)
			return;
	}
	if (!derived)
		return;
	orpath = (Path *) create_bitmap_or_path(root, rel, bitmapquals);
	add_path(rel, (Path *) create_bitmap_heap_path(root, rel, orpath, NULL,
												   1.0, 0));
}

/*
 * set_rel_pathlist hook: add the prefix paths of the file header.
 */
static pg_attribute_hot void
am_like_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
						 RangeTblEntry *rte)
{
	List	   *indexes = NIL;
	ListCell   *lc;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (!IS_SIMPLE_REL(rel) || rte->rtekind != RTE_RELATION ||
		rel->indexlist == NIL || rel->baserestrictinfo == NIL)
		return;

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		if (am_is_artrie_index(index) &&
			(index->indpred == NIL || index->predOK))
			indexes = lappend(indexes, index);
	}
	foreach(lc, indexes)
		am_like_index_paths(root, rel, (IndexOptInfo *) lfirst(lc));
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (indexes != NIL && restriction_is_or_clause(rinfo))
			am_like_or_path(root, rel, rinfo, indexes);
	}
}

/*
 * Install the set_rel_pathlist hook (from am_init).
 */
void
am_like_init(void)
{
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = am_like_set_rel_pathlist;
}
