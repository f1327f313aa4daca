/*-------------------------------------------------------------------------
 *
 * func_pager.c
 *	  SQL functions over the pager: checkpoint and I/O statistics.
 *
 * artrie_checkpoint() makes every dirty page of every artrie file durable
 * and returns when it is, then removes the files of indexes that are gone
 * (as the io worker does every few seconds); it needs superuser or
 * pg_checkpoint.
 *
 * artrie_io_stats() returns one row per kind of process:
 *	process			'backend' or 'io worker'
 *	io_backend		the backend in use ('io_uring' or 'mmap'; 'mmap' also
 *					after io_uring could not be set up)
 *	buffer_mode		how the io worker's ring reaches buffers: 'pool'
 *					(whole pool registered), 'staging' (registered staging
 *					area, copies), 'plain' (no registered buffers), or
 *					'none (mmap)'
 *	reads, writes	pages this kind of process moved itself (under io_uring
 *					the io worker moves every page but the ones backends
 *					read themselves, see artrie.backend_reads)
 *	read_bytes, write_bytes
 *	syncs			fdatasync calls made
 *	submissions		io_uring_submit calls that sent SQEs
 *	sqes			SQEs those calls sent
 *	avg_batch		sqes / submissions
 *	requests		requests this kind of process queued for the io worker
 *	wait_ms			time spent waiting for I/O
 *	fallback		why the I/O layer fell back, or NULL
 *
 * artrie_pool_stats() returns one row about the buffer pool: frames,
 * dirty frames, open files, hits, misses, evictions, evictions that had to
 * write the page first, checkpoints made durable and data pages they
 * wrote; the share of page requests that hit over the io worker's last
 * 10-second interval (NULL if none), and whether that interval looked like
 * a pool too small for the pages in use (see pager_pool_watch).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pager/pager.h"
#include "utils/acl.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(artrie_checkpoint);
PG_FUNCTION_INFO_V1(artrie_io_stats);
PG_FUNCTION_INFO_V1(artrie_pool_stats);

/*
 * artrie_checkpoint(): a checkpoint of every file, durable on return, and
 * a sweep of the files of indexes that are gone.
 */
Datum
artrie_checkpoint(PG_FUNCTION_ARGS)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_CHECKPOINT))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run artrie_checkpoint()"),
				 errdetail("Only roles with privileges of the \"pg_checkpoint\" role may run a checkpoint.")));
	pager_checkpoint(true);
	pager_sweep_orphans();
	PG_RETURN_VOID();
}

#define IO_STATS_COLS	14

/*
 * artrie_io_stats(): I/O counters per kind of process.
 */
Datum
artrie_io_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const char *const kinds[IO_PROC_NKINDS] = {"backend", "io worker"};

	InitMaterializedSRF(fcinfo, 0);
	for (int k = 0; k < IO_PROC_NKINDS; k++)
	{
		Datum		values[IO_STATS_COLS];
		bool		nulls[IO_STATS_COLS];
		IoStatsSnapshot s;
		const char *reason = pager_io_fallback_reason();
		int			c = 0;

		pager_io_stats((IoProcKind) k, &s);
		memset(nulls, 0, sizeof(nulls));
		values[c++] = CStringGetTextDatum(kinds[k]);
		values[c++] = CStringGetTextDatum(pager_io_backend());
		values[c++] = CStringGetTextDatum(pager_io_buffer_mode());
		values[c++] = Int64GetDatum((int64) s.reads);
		values[c++] = Int64GetDatum((int64) s.writes);
		values[c++] = Int64GetDatum((int64) s.read_bytes);
		values[c++] = Int64GetDatum((int64) s.write_bytes);
		values[c++] = Int64GetDatum((int64) s.syncs);
		values[c++] = Int64GetDatum((int64) s.submissions);
		values[c++] = Int64GetDatum((int64) s.sqes);
		if (s.submissions > 0)
			values[c++] = Float8GetDatum((double) s.sqes / (double) s.submissions);
		else
			nulls[c++] = true;
		values[c++] = Int64GetDatum((int64) s.requests);
		values[c++] = Float8GetDatum((double) s.wait_us / 1000.0);
		if (reason[0] != '\0')
			values[c++] = CStringGetTextDatum(reason);
		else
			nulls[c++] = true;
		Assert(c == IO_STATS_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

#define POOL_STATS_COLS	11

/*
 * artrie_pool_stats(): one row about the buffer pool.
 */
Datum
artrie_pool_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[POOL_STATS_COLS];
	bool		nulls[POOL_STATS_COLS];
	PagerPoolStats s;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	pager_pool_stats(&s);
	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum((int64) s.frames);
	values[1] = Int64GetDatum((int64) s.dirty);
	values[2] = Int64GetDatum((int64) s.files);
	values[3] = Int64GetDatum((int64) s.hits);
	values[4] = Int64GetDatum((int64) s.misses);
	values[5] = Int64GetDatum((int64) s.evictions);
	values[6] = Int64GetDatum((int64) s.eviction_writes);
	values[7] = Int64GetDatum((int64) s.checkpoints);
	values[8] = Int64GetDatum((int64) s.checkpoint_pages);
	if (s.recent_hits + s.recent_misses > 0)
		values[9] = Float8GetDatum((double) s.recent_hits /
								   (double) (s.recent_hits + s.recent_misses));
	else
		nulls[9] = true;
	values[10] = BoolGetDatum(s.too_small);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
