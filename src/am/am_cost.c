/*-------------------------------------------------------------------------
 *
 * am_cost.c
 *	  Planning for artrie: the cost estimate and a get_relation_info hook.
 *
 * PostgreSQL sees one page (the metapage) in an artrie index's main fork;
 * the hook replaces that with the artrie file's page count, and, for an
 * index whose collation does not order strings as their bytes, removes
 * the ordering the planner would otherwise take from amcanorder, so no
 * ordered scan or merge join ever relies on the trie's byte order there.
 * An index whose file cannot be used (refused until REINDEX, damaged,
 * missing) is hidden from the plan, so that only statements that must
 * maintain it fail; the others run without it.
 *
 * The estimate counts entries exactly where it can: the trie keeps
 * subtree counts, so "=" and "^@" with a constant (and "= ANY" of a
 * constant array, and IS [NOT] NULL) cost one descent each to count, and
 * so does LIKE with a constant pattern: the entries beginning with its
 * literal prefix, every entry for a pattern without one.  A LIKE whose
 * pattern is not known when planning (or "~~ ANY") is priced as the full
 * index scan it may be.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "am/am.h"

static get_relation_info_hook_type prev_get_relation_info_hook = NULL;

/*
 * Entries of the key trie with this prefix: a walk down the prefix's path,
 * whose reads are random probes (pager_set_random_reads).
 */
static pg_attribute_hot double
am_cost_count(ArtrieIndex *ai, ArtTrie *trie, const char *prefix, Size len,
			  bool terminate)
{
	uint8	   *p = palloc(len + 1);
	uint64		count;
	bool		wasRandom;

	memcpy(p, prefix, len);
	if (terminate)
		p[len++] = 0x00;
	wasRandom = pager_set_random_reads(true);
	am_check_status(art_count_prefix(trie, p, len, &count), ai->index,
					"counting");
	(void) pager_set_random_reads(wasRandom);
	pfree(p);
	return (double) count;
}

/*
 * Number of entries matching "=" or "^@" against a constant: exact, or
 * for "= ANY" / "^@ ANY" of a constant array the sum over its elements.
 */
static double
am_cost_count_qual(ArtrieIndex *ai, Oid typid, int strategy, Const *c,
				   bool isarray)
{
	bool		terminate = (strategy == ARTRIE_EQUAL_STRATEGY);
	double		total = 0;

	if (c->constisnull)
		return 0;

	if (isarray)
	{
		AmKey	   *keys;
		int			nkeys;
		int			i;

		nkeys = am_array_keys(typid, c->constvalue, &keys);
		for (i = 0; i < nkeys; i++)
			total += am_cost_count(ai, &ai->keys, keys[i].data, keys[i].len,
								   terminate);
		return total;
	}
	else
	{
		AmKey		key = am_datum_key(typid, c->constvalue);

		return am_cost_count(ai, &ai->keys, key.data, key.len, terminate);
	}
}

/*
 * The literal prefix of a constant LIKE pattern on keys of type typid
 * (am_like_pattern), palloc'd, its length in *len; *equal when the scan
 * reads the keys equal to it (a pattern without wildcards).
 */
static pg_attribute_hot char *
am_cost_like_prefix(Oid typid, Const *c, int *len, bool *equal)
{
	text	   *patt = DatumGetTextPP(c->constvalue);
	char	   *prefix = palloc(VARSIZE_ANY_EXHDR(patt) + 1);
	AmLikeKind	kind = am_like_pattern(typid, VARDATA_ANY(patt),
									   VARSIZE_ANY_EXHDR(patt), prefix, len);

	*equal = (kind == AM_LIKE_EXACT || kind == AM_LIKE_EQUAL_OTHER);
	return prefix;
}

/*
 * Number of entries a LIKE with a constant pattern reads on keys of type
 * typid: those beginning with the pattern's literal prefix (equal to it if
 * that is all of it).
 */
static double
am_cost_count_like(ArtrieIndex *ai, Oid typid, Const *c)
{
	int			len;
	bool		equal;
	char	   *prefix;

	if (c->constisnull)
		return 0;
	prefix = am_cost_like_prefix(typid, c, &len, &equal);
	return am_cost_count(ai, &ai->keys, prefix, len, equal);
}

/*
 * Is the range [lo, hi) of two constants exactly the values beginning
 * with lo's key, that is, hi's key lo's with its last byte below 0xFF
 * raised by one (and the bytes after it dropped)?  That is the range the
 * LIKE operators' support functions derive from 'abc%' under "C".
 */
static bool
am_cost_range_is_prefix(Oid typid, Const *lo, Const *hi)
{
	AmKey		l;
	AmKey		h;
	Size		n;

	if (lo->constisnull || hi->constisnull)
		return false;
	l = am_datum_key(typid, lo->constvalue);
	h = am_datum_key(typid, hi->constvalue);
	n = l.len;
	while (n > 0 && (uint8) l.data[n - 1] == 0xFF)
		n--;
	return n > 0 && h.len == n && memcmp(l.data, h.data, n - 1) == 0 &&
		(uint8) h.data[n - 1] == (uint8) l.data[n - 1] + 1;
}

/*
 * The constant a qual compares an index column with, or NULL.
 */
static Const *
am_cost_qual_const(PlannerInfo *root, Expr *clause, bool either_side)
{
	Node	   *arg;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return NULL;
	arg = estimate_expression_value(root, lsecond(((OpExpr *) clause)->args));
	if (!IsA(arg, Const) && either_side)
		arg = estimate_expression_value(root,
										linitial(((OpExpr *) clause)->args));
	if (!IsA(arg, Const) || ((Const *) arg)->constisnull)
		return NULL;
	return (Const *) arg;
}

/*
 * Append to prefix the part of column col that a bound qual fixes: IS
 * NULL, "=" a constant, or (asprefix) "^@" a constant or LIKE a constant
 * pattern's literal prefix; false if the qual fixes none.
 */
static bool
am_cost_cols_part(PlannerInfo *root, IndexOptInfo *index, Relation irel,
				  int col, Expr *clause, bool asprefix, StringInfo prefix)
{
	Oid			typid = index->opcintype[col];
	int			strategy;
	Const	   *c;
	AmKey		key;

	if (IsA(clause, NullTest))
	{
		if (asprefix || ((NullTest *) clause)->nulltesttype != IS_NULL)
			return false;
		appendStringInfoChar(prefix, (char) am_cols_null_marker(irel, col));
		return true;
	}
	if (!IsA(clause, OpExpr))
		return false;
	strategy = get_op_opfamily_strategy(((OpExpr *) clause)->opno,
										index->opfamily[col]);
	if (asprefix ? (strategy != ARTRIE_PREFIX_STRATEGY &&
					strategy != ARTRIE_LIKE_STRATEGY) :
		strategy != ARTRIE_EQUAL_STRATEGY)
		return false;
	c = am_cost_qual_const(root, clause, !asprefix);
	if (c == NULL)
		return false;
	if (strategy == ARTRIE_LIKE_STRATEGY)
	{
		int			len;
		bool		equal;

		key.data = am_cost_like_prefix(typid, c, &len, &equal);
		key.len = len;
		key.copy = (void *) key.data;
	}
	else
		key = am_datum_key(am_cols_is_string(typid) ? typid : c->consttype,
						   c->constvalue);
	am_cols_append(prefix, am_cols_is_string(typid),
				   col == index->nkeycolumns - 1, asprefix, key.data,
				   key.len);
	am_key_free(&key);
	return true;
}

/*
 * The first of the bound quals on column col that fixes its part of the
 * key (am_cost_cols_part), appended to prefix; NULL if none does.
 */
static RestrictInfo *
am_cost_cols_find(PlannerInfo *root, IndexPath *path, Relation irel, int col,
				  List *boundquals, bool asprefix, StringInfo prefix)
{
	ListCell   *lc;

	foreach(lc, path->indexclauses)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		if (iclause->indexcol != col)
			continue;
		foreach(lc2, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);

			if (list_member_ptr(boundquals, rinfo) &&
				am_cost_cols_part(root, path->indexinfo, irel, col,
								  rinfo->clause, asprefix, prefix))
				return rinfo;
		}
	}
	return NULL;
}

/*
 * Entries of a multicolumn index below the key prefix its bound quals fix
 * with constants (each leading column's IS NULL or "=", and the next
 * column's "=" or "^@"), counted in the trie; the bound quals left out of
 * the prefix go to *rest.  -1 if no qual fixes the first column.
 */
static double
am_cost_cols_count(PlannerInfo *root, IndexPath *path, List *boundquals,
				   List **rest)
{
	IndexOptInfo *index = path->indexinfo;
	Relation	irel = index_open(index->indexoid, NoLock);
	ArtrieIndex ai;
	StringInfoData prefix;
	int			col;
	double		count = -1;

	*rest = list_copy(boundquals);
	initStringInfo(&prefix);
	for (col = 0; col < index->nkeycolumns; col++)
	{
		RestrictInfo *used = am_cost_cols_find(root, path, irel, col, *rest,
											   false, &prefix);

		if (used == NULL)
		{
			used = am_cost_cols_find(root, path, irel, col, *rest, true,
									 &prefix);
			if (used != NULL)
				*rest = list_delete_ptr(*rest, used);
			break;
		}
		*rest = list_delete_ptr(*rest, used);
	}
	if (prefix.len > 0)
	{
		/* every column fixed: the key ends where its terminator is */
		am_open(irel, &ai);
		count = am_cost_count(&ai, &ai.keys, prefix.data, prefix.len,
							  col == index->nkeycolumns);
		pager_release_file(ai.file);
	}
	index_close(irel, NoLock);
	return count;
}

/*
 * The entries a scan of a multicolumn index reads, as btcostestimate
 * counts them: what the quals on the leading columns with "=" (or IS
 * NULL) and on the first column without let through; quals on later
 * columns are only rechecked.  A range on a string column whose collation
 * does not order like its bytes bounds nothing.  The part of the bound
 * quals that fixes a key prefix with constants is counted in the trie
 * (am_cost_cols_count), the rest estimated.
 */
static double
am_cost_cols_scanned(PlannerInfo *root, IndexPath *path)
{
	IndexOptInfo *index = path->indexinfo;
	List	   *boundquals = NIL;
	List	   *rest;
	double		count;
	int			indexcol = 0;
	bool		eqQualHere = false;
	ListCell   *lc;

	foreach(lc, path->indexclauses)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		bool		bytewise;
		ListCell   *lc2;

		if (indexcol != iclause->indexcol)
		{
			if (!eqQualHere)
				break;
			eqQualHere = false;
			indexcol++;
			if (indexcol != iclause->indexcol)
				break;
		}
		bytewise = !OidIsValid(index->indexcollations[indexcol]) ||
			am_collation_is_bytewise(index->indexcollations[indexcol]);
		foreach(lc2, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);
			Expr	   *clause = rinfo->clause;
			int			strategy = 0;

			if (IsA(clause, NullTest))
				eqQualHere |= ((NullTest *) clause)->nulltesttype == IS_NULL;
			else if (IsA(clause, OpExpr))
			{
				strategy = get_op_opfamily_strategy(((OpExpr *) clause)->opno,
													index->opfamily[indexcol]);
				eqQualHere |= (strategy == ARTRIE_EQUAL_STRATEGY);
			}
			else if (IsA(clause, ScalarArrayOpExpr))
				strategy = get_op_opfamily_strategy(((ScalarArrayOpExpr *) clause)->opno,
													index->opfamily[indexcol]);
			if (!bytewise && strategy != 0 &&
				strategy != ARTRIE_EQUAL_STRATEGY &&
				strategy != ARTRIE_PREFIX_STRATEGY &&
				strategy != ARTRIE_LIKE_STRATEGY)
				continue;
			boundquals = lappend(boundquals, rinfo);
		}
	}
	if (boundquals == NIL)
		return index->tuples;
	count = am_cost_cols_count(root, path, boundquals, &rest);
	if (count < 0)
		return clauselist_selectivity(root, boundquals, index->rel->relid,
									  JOIN_INNER, NULL) * index->tuples;
	if (rest == NIL)
		return count;
	return count * clauselist_selectivity(root, rest, index->rel->relid,
										  JOIN_INNER, NULL);
}

/*
 * genericcostestimate for a scan whose entries were counted exactly (no
 * "= ANY" among its quals): the same costs, without the selectivity of the
 * index quals that genericcostestimate computes first and the count makes
 * moot (for "^@", a pass of the prefix over the column's histogram, for
 * every path the planner costs).  It is given the path without its index
 * clauses, and their evaluation and per-entry operator costs are added as
 * it would add them.
 */
static void
am_cost_counted(PlannerInfo *root, IndexPath *path, double loop_count,
				GenericCosts *costs)
{
	IndexPath	bare = *path;
	List	   *quals = get_quals_from_indexclauses(path->indexclauses);
	Cost		argcost = index_other_operands_eval_cost(root, quals);

	bare.indexclauses = NIL;
	genericcostestimate(root, &bare, loop_count, costs);
	costs->indexStartupCost += argcost;
	costs->indexTotalCost += argcost + costs->numIndexTuples *
		costs->num_sa_scans * cpu_operator_cost * list_length(quals);
}

/*
 * The correlations am_cost_correlation read from the statistics, kept for
 * the next plans of the same index: a read looks up the column's
 * statistic and decodes its slot, about a quarter of the estimate's own
 * instructions, for a figure that only ANALYZE changes.  Every change to
 * pg_statistic, and every invalidation of a relation's cache entry (the
 * index or its table altered or dropped), forgets them all.
 */
#define AM_COST_CORRELATIONS	16

typedef struct AmCostCorrelation
{
	Oid			indexoid;		/* InvalidOid: unused */
	bool		inh;			/* of the table with its children */
	double		correlation;
} AmCostCorrelation;

static AmCostCorrelation am_cost_correlations[AM_COST_CORRELATIONS];
static int	am_cost_correlation_next = 0;
static bool am_cost_correlation_watched = false;

/* Syscache callback on pg_statistic: forget every kept correlation. */
static void
am_cost_correlation_forget(Datum arg, int cacheid, uint32 hashvalue)
{
	memset(am_cost_correlations, 0, sizeof(am_cost_correlations));
}

/* Relcache callback: forget every kept correlation. */
static void
am_cost_correlation_forget_rel(Datum arg, Oid relid)
{
	memset(am_cost_correlations, 0, sizeof(am_cost_correlations));
}

/*
 * The correlation statistic of a single-column index's column for the
 * operator class's "<" (rte: the index's table), when both the
 * statistic's collation and the index's order strings as their bytes (the
 * trie's order); 0 otherwise.
 */
static double
am_cost_correlation_read(PlannerInfo *root, IndexOptInfo *index,
						 RangeTblEntry *rte)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	Oid			sortop;
	double		correlation = 0;

	sortop = get_opfamily_member(index->opfamily[0], index->opcintype[0],
								 index->opcintype[0],
								 ARTRIE_LESS_STRATEGY);
	if (!OidIsValid(sortop))
		return 0;
	MemSet(&vardata, 0, sizeof(vardata));
	if (get_relation_stats_hook &&
		(*get_relation_stats_hook) (root, rte, index->indexkeys[0], &vardata))
	{
		if (HeapTupleIsValid(vardata.statsTuple) && !vardata.freefunc)
			elog(ERROR, "no function provided to release variable stats with");
	}
	else
	{
		vardata.statsTuple = SearchSysCache3(STATRELATTINH,
											 ObjectIdGetDatum(rte->relid),
											 Int16GetDatum(index->indexkeys[0]),
											 BoolGetDatum(rte->inh));
		vardata.freefunc = ReleaseSysCache;
	}
	if (HeapTupleIsValid(vardata.statsTuple) &&
		get_attstatsslot(&sslot, vardata.statsTuple,
						 STATISTIC_KIND_CORRELATION, sortop,
						 ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers == 1 && am_collation_is_bytewise(sslot.stacoll))
			correlation = index->reverse_sort[0] ? -sslot.numbers[0] :
				sslot.numbers[0];
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	return correlation;
}

/*
 * The correlation between the heap's order and a single-column index's,
 * as btcostestimate takes it (am_cost_correlation_read), kept between
 * plans (am_cost_correlations) unless a get_relation_stats_hook may give
 * other statistics each time.
 */
static double
am_cost_correlation(PlannerInfo *root, IndexOptInfo *index)
{
	RangeTblEntry *rte = planner_rt_fetch(index->rel->relid, root);
	AmCostCorrelation *kept;
	int			i;

	if (index->nkeycolumns != 1 || index->indexkeys[0] == 0 ||
		rte->rtekind != RTE_RELATION ||
		!am_collation_is_bytewise(index->indexcollations[0]))
		return 0;
	if (get_relation_stats_hook)
		return am_cost_correlation_read(root, index, rte);
	for (i = 0; i < AM_COST_CORRELATIONS; i++)
		if (am_cost_correlations[i].indexoid == index->indexoid &&
			am_cost_correlations[i].inh == rte->inh)
			return am_cost_correlations[i].correlation;
	if (!am_cost_correlation_watched)
	{
		CacheRegisterSyscacheCallback(STATRELATTINH,
									  am_cost_correlation_forget, (Datum) 0);
		CacheRegisterRelcacheCallback(am_cost_correlation_forget_rel,
									  (Datum) 0);
		am_cost_correlation_watched = true;
	}
	kept = &am_cost_correlations[am_cost_correlation_next];
	am_cost_correlation_next = (am_cost_correlation_next + 1) %
		AM_COST_CORRELATIONS;
	kept->correlation = am_cost_correlation_read(root, index, rte);
	kept->indexoid = index->indexoid;
	kept->inh = rte->inh;
	return kept->correlation;
}

/*
 * amcostestimate: genericcostestimate over artrie's own page count, fed
 * with exact entry counts where the quals of a single-column index allow
 * (a multicolumn index: am_cost_cols_scanned).
 */
pg_attribute_hot void
artrie_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					Cost *indexStartupCost, Cost *indexTotalCost,
					Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	bool		bytewise = am_collation_is_bytewise(index->indexcollations[0]);
	GenericCosts costs;
	double		exact = -1;
	bool		lossy = false;
	bool		arrays = false;
	List	   *rangequals = NIL;
	Relation	irel = NULL;
	ArtrieIndex ai;
	ListCell   *lc;
	double		ntuples;
	double		scanned = -1;
	Const	   *rangelo = NULL; /* a ">=" and a "<" bound, for the prefix */
	Const	   *rangehi = NULL; /* case (am_cost_range_is_prefix) */

	foreach(lc, (index->nkeycolumns == 1) ? path->indexclauses : NIL)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		foreach(lc2, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);
			Expr	   *clause = rinfo->clause;
			Oid			opno;
			Node	   *other;
			bool		isarray = false;
			int			strategy;
			double		count;

			if (irel == NULL)
			{
				irel = index_open(index->indexoid, NoLock);
				am_open(irel, &ai);
			}

			if (IsA(clause, NullTest))
			{
				NullTest   *nt = (NullTest *) clause;
				ArtTrie    *trie = (nt->nulltesttype == IS_NULL) ? &ai.nulls : &ai.keys;

				count = am_cost_count(&ai, trie, "", 0, false);
				exact = (exact < 0) ? count : Min(exact, count);
				continue;
			}
			if (IsA(clause, OpExpr))
			{
				opno = ((OpExpr *) clause)->opno;
				other = lsecond(((OpExpr *) clause)->args);
			}
			else if (IsA(clause, ScalarArrayOpExpr))
			{
				opno = ((ScalarArrayOpExpr *) clause)->opno;
				other = lsecond(((ScalarArrayOpExpr *) clause)->args);
				isarray = true;
				arrays = true;
			}
			else
				continue;

			strategy = get_op_opfamily_strategy(opno, index->opfamily[0]);
			if (strategy == ARTRIE_LIKE_STRATEGY)
			{
				/* the pattern's literal prefix; none known: every entry */
				other = estimate_expression_value(root, other);
				if (isarray || !IsA(other, Const))
					lossy = true;
				else
				{
					count = am_cost_count_like(&ai, index->opcintype[0],
											   (Const *) other);
					exact = (exact < 0) ? count : Min(exact, count);
				}
				continue;
			}
			if (strategy != ARTRIE_EQUAL_STRATEGY &&
				strategy != ARTRIE_PREFIX_STRATEGY)
			{
				if (!bytewise || isarray)
					lossy = true;
				else
				{
					rangequals = lappend(rangequals, rinfo);
					other = estimate_expression_value(root, other);
					if (IsA(other, Const) &&
						strategy == ARTRIE_GREATER_EQUAL_STRATEGY)
						rangelo = (Const *) other;
					else if (IsA(other, Const) &&
							 strategy == ARTRIE_LESS_STRATEGY)
						rangehi = (Const *) other;
				}
				continue;
			}

			other = estimate_expression_value(root, other);
			if (!IsA(other, Const))
				continue;
			count = am_cost_count_qual(&ai, index->opcintype[0], strategy,
									   (Const *) other, isarray);
			exact = (exact < 0) ? count : Min(exact, count);
		}
	}

	/* a range that is a prefix is counted as the prefix */
	if (rangelo != NULL && rangehi != NULL &&
		am_cost_range_is_prefix(index->opcintype[0], rangelo, rangehi))
	{
		double		count = am_cost_count_qual(&ai, index->opcintype[0],
											   ARTRIE_PREFIX_STRATEGY,
											   rangelo, false);

		exact = (exact < 0) ? count : Min(exact, count);
	}

	/*
	 * Entries the scan reads: the exact count, or for quals applied only
	 * by recheck, everything the applied quals let through.
	 */
	ntuples = Max(index->rel->tuples, 1.0);
	if (index->nkeycolumns > 1)
		scanned = am_cost_cols_scanned(root, path);
	else if (exact >= 0)
		scanned = exact;
	else if (lossy)
		scanned = (rangequals != NIL)
			? clauselist_selectivity(root, rangequals, index->rel->relid,
									 JOIN_INNER, NULL) * index->tuples
			: index->tuples;

	MemSet(&costs, 0, sizeof(costs));
	if (scanned >= 0)
		costs.numIndexTuples = Max(scanned, 1.0);
	if (index->nkeycolumns == 1 && exact >= 0 && !arrays)
		am_cost_counted(root, path, loop_count, &costs);
	else
		genericcostestimate(root, path, loop_count, &costs);

	/* The descent: about one comparison per level of a binary search. */
	if (index->tuples > 1)
	{
		Cost		descentCost = ceil(log(index->tuples) / log(2.0)) * cpu_operator_cost;

		costs.indexStartupCost += descentCost;
		costs.indexTotalCost += costs.num_sa_scans * descentCost;
	}

	*indexStartupCost = costs.indexStartupCost;
	*indexTotalCost = costs.indexTotalCost;
	*indexSelectivity = (scanned >= 0)
		? Min(scanned / ntuples, 1.0)
		: costs.indexSelectivity;
	*indexCorrelation = am_cost_correlation(root, index);
	*indexPages = costs.numIndexPages;

	if (irel != NULL)
	{
		pager_release_file(ai.file);
		index_close(irel, NoLock);
	}
}

/*
 * The index's size in pages, its file's and its metapage's; false if the
 * file cannot be used now: the error becomes a WARNING, and the ERROR is
 * left for the statements that must maintain the index.
 */
static bool
am_plan_pages(Relation irel, BlockNumber *pages)
{
	ArtrieIndex ai;
	ErrorData  *edata = am_try_open(irel, &ai);

	if (edata == NULL)
	{
		*pages = pager_file_pages(ai.file) + 1;
		pager_release_file(ai.file);
		return true;
	}
	ereport(WARNING,
			(errcode(edata->sqlerrcode),
			 errmsg("%s", edata->message),
			 edata->detail ? errdetail("%s", edata->detail) : 0,
			 edata->hint ? errhint("%s", edata->hint) : 0,
			 errcontext("the plan leaves out index \"%s\"",
						RelationGetRelationName(irel))));
	FreeErrorData(edata);
	return false;
}

/*
 * Is the index's byte order its columns' order: does each string column's
 * collation order strings as their bytes?
 */
static bool
am_cost_orders_bytewise(IndexOptInfo *info)
{
	int			col;

	for (col = 0; col < info->nkeycolumns; col++)
		if (am_cols_is_string(info->opcintype[col]) &&
			!am_collation_is_bytewise(info->indexcollations[col]))
			return false;
	return true;
}

/*
 * Planner hook: fix up what the planner knows of artrie indexes.
 */
static pg_attribute_hot void
am_get_relation_info(PlannerInfo *root, Oid relationObjectId, bool inhparent,
					 RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relationObjectId, inhparent, rel);

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *info = (IndexOptInfo *) lfirst(lc);
		Relation	irel;
		BlockNumber pages = 0;
		bool		usable = true;

		if (!am_is_artrie_index(info))
			continue;

		if (!am_cost_orders_bytewise(info))
		{
			info->sortopfamily = NULL;
			info->reverse_sort = NULL;
			info->nulls_first = NULL;
		}

		irel = index_open(info->indexoid, NoLock);
		if (irel->rd_rel->relkind == RELKIND_INDEX)
		{
			usable = am_plan_pages(irel, &pages);
			info->pages = pages;
		}
		index_close(irel, NoLock);
		if (!usable)
			rel->indexlist = foreach_delete_current(rel->indexlist, lc);
	}
}

/*
 * Install the planner hooks, and the others of this layer (from _PG_init).
 */
void
am_init(void)
{
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = am_get_relation_info;
	am_like_init();
	am_lifecycle_init();
	am_unique_init();
	am_createdb_init();
}
