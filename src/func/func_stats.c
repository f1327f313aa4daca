/*-------------------------------------------------------------------------
 *
 * func_stats.c
 *	  artrie_stats: what an artrie index holds and what it costs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/pg_lsn.h"

#include "func/func.h"
#include "wal/wal.h"

PG_FUNCTION_INFO_V1(artrie_stats);
PG_FUNCTION_INFO_V1(artrie_index_info);

/*
 * Count distinct keys in one ordered pass of a batched cursor.  A key's
 * entries (key || 0x00 || TID, no key holding a 0x00) lie together, so an
 * entry begins a new key when its key differs from the previous entry's;
 * the last key of each batch is copied, since the next batch reuses the
 * memory, so a key whose entries span two batches counts once.
 */
static uint64
stats_distinct_keys(FuncIndex *fi)
{
	ArtCursor  *cursor;
	ArtRun		run;
	ArtStatus	status = ART_OK;
	StringInfoData prev;
	bool		stop = false;
	uint64		n = 0;

	initStringInfo(&prev);
	am_check_status(art_cursor_open(&fi->ai.keys, &cursor), fi->index,
					"opening a cursor");
	art_cursor_set_batched(cursor, true);
	am_check_status(art_cursor_seek(cursor, NULL, 0, true, ART_FORWARD),
					fi->index, "seeking");
	while (!stop && (status = art_cursor_next_run(cursor, &run)) == ART_OK)
	{
		const uint8 *key = (const uint8 *) prev.data;
		size_t		keylen = prev.len;
		size_t		start = run.start;
		int			i;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < run.n; i++)
		{
			const uint8 *entry = run.data + start;
			size_t		len = run.ends[i] - start;

			start = run.ends[i];
			if (len < ARTRIE_TID_LEN + 1)
			{
				stop = true;
				break;
			}
			len -= 1 + ARTRIE_TID_LEN;
			if (n == 0 || len != keylen || memcmp(entry, key, len) != 0)
				n++;
			key = entry;
			keylen = len;
		}
		if (n > 0 && key != (const uint8 *) prev.data)
		{
			resetStringInfo(&prev);
			appendBinaryStringInfo(&prev, (const char *) key, keylen);
		}
	}
	if (status != ART_OK && status != ART_NOT_FOUND)
		am_check_status(status, fi->index, "reading");
	art_cursor_close(cursor);
	pfree(prev.data);
	return n;
}

/*
 * The index's bytes on disk, its artrie file's (in *file_bytes) and its
 * main fork's metapage.
 */
static uint64
stats_disk_bytes(Relation index, PagerFile *file, uint64 *file_bytes)
{
	*file_bytes = pager_file_bytes(file);
	return *file_bytes + (uint64) RelationGetNumberOfBlocks(index) * BLCKSZ;
}

/* A C string as a JSON string literal, palloc'd. */
static char *
quote_json_string(const char *s)
{
	StringInfoData buf;

	initStringInfo(&buf);
	escape_json(&buf, s);
	return buf.data;
}

/* Append "name": {trie statistics} to buf. */
static void
stats_append_trie(StringInfo buf, const char *name, const ArtStats *st)
{
	appendStringInfo(buf,
					 "\"%s\": {\"entries\": " UINT64_FORMAT
					 ", \"pages\": " UINT64_FORMAT
					 ", \"height\": " UINT64_FORMAT
					 ", \"page_height\": " UINT64_FORMAT
					 ", \"bytes_used\": " UINT64_FORMAT
					 ", \"nodes\": {\"node4\": " UINT64_FORMAT
					 ", \"node16\": " UINT64_FORMAT
					 ", \"node48\": " UINT64_FORMAT
					 ", \"node256\": " UINT64_FORMAT
					 ", \"leaf\": " UINT64_FORMAT "}}",
					 name, st->entries, st->pages, st->height, st->page_height,
					 st->bytes_used, st->nodes[ART_NODE_4], st->nodes[ART_NODE_16],
					 st->nodes[ART_NODE_48], st->nodes[ART_NODE_256],
					 st->nodes[ART_NODE_LEAF]);
}

/* Append the pool's, I/O backend's and WAL layer's state to buf. */
static void
stats_append_server(StringInfo buf, PagerFile *file)
{
	PagerPoolStats pool;
	WalStats	wal;
	XLogRecPtr	ckpt_redo;
	uint64		ckpt_no = pager_file_checkpoint(file, &ckpt_redo);

	pager_pool_stats(&pool);
	wal_stats(&wal);
	appendStringInfo(buf,
					 "\"checkpoint\": {\"number\": " UINT64_FORMAT
					 ", \"redo_lsn\": \"%X/%X\"}"
					 ", \"pool\": {\"hits\": " UINT64_FORMAT
					 ", \"misses\": " UINT64_FORMAT
					 ", \"frames\": %u, \"dirty\": %u"
					 ", \"recent_hits\": " UINT64_FORMAT
					 ", \"recent_misses\": " UINT64_FORMAT
					 ", \"too_small\": %s}"
					 ", \"io_backend\": \"%s\", \"registered_buffers\": \"%s\""
					 ", \"wal\": {\"replay_from\": \"%X/%X\""
					 ", \"retained_bytes\": " UINT64_FORMAT
					 ", \"records\": " UINT64_FORMAT
					 ", \"bytes\": " UINT64_FORMAT
					 ", \"replayed\": " UINT64_FORMAT
					 ", \"replay_failures\": " UINT64_FORMAT
					 ", \"slot\": %s}",
					 ckpt_no, LSN_FORMAT_ARGS(ckpt_redo),
					 pool.hits, pool.misses, pool.frames, pool.dirty,
					 pool.recent_hits, pool.recent_misses,
					 pool.too_small ? "true" : "false",
					 pager_io_backend(), pager_io_buffer_mode(),
					 LSN_FORMAT_ARGS(wal.replay_from),
					 wal.wal_end > wal.replay_from ? (uint64) (wal.wal_end - wal.replay_from) : 0,
					 wal.records, wal.bytes, wal.replayed, wal.failed,
					 wal.slot_ok ? "\"ok\"" :
					 quote_json_string(wal.slot_problem[0] ? wal.slot_problem : "not yet created"));
}

/*
 * artrie_stats(index, walk): entries, distinct keys, pages, bytes on disk
 * (the artrie file plus the main fork's metapage), the file, and the
 * server-wide state it depends on: the file's last checkpoint, the buffer
 * pool's hits and misses, the I/O backend in use and its buffer
 * registration, and the WAL that recovery would replay (from where, how
 * many bytes, whether artrie's replication slot keeps it), as jsonb.
 * Without walk, nothing is walked: the entries come from the tries' root
 * counts, the distinct keys from the key trie's group count (an index
 * built before it was kept, which has none, is walked for them), pages
 * and sizes from the pager.  With walk, it also walks both tries for
 * their shapes (key_trie, null_trie) and counts the distinct keys by a
 * walk (distinct_keys; the kept count in kept_distinct_keys).
 */
Datum
artrie_stats(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		walk = PG_GETARG_BOOL(1);
	FuncIndex	fi;
	ArtStats	keys;
	ArtStats	nulls;
	StringInfoData buf;
	uint64		file_bytes;
	uint64		disk_bytes;
	uint64		nkeys;
	uint64		nnulls;
	uint64		kept = 0;
	uint64		distinct;
	ArtStatus	st;

	func_refuse_partitioned(indexoid, "artrie_stats");
	func_open_index(indexoid, &fi, true);
	am_check_status(art_count_prefix(&fi.ai.keys, (const uint8 *) "", 0, &nkeys),
					fi.index, "counting");
	am_check_status(art_count_prefix(&fi.ai.nulls, (const uint8 *) "", 0, &nnulls),
					fi.index, "counting");
	st = art_groups(&fi.ai.keys, &kept);
	if (st != ART_OK && st != ART_NOT_FOUND)
		am_check_status(st, fi.index, "reading statistics");
	distinct = (st == ART_OK && !walk) ? kept : stats_distinct_keys(&fi);
	disk_bytes = stats_disk_bytes(fi.index, fi.ai.file, &file_bytes);

	initStringInfo(&buf);
	appendStringInfo(&buf,
					 "{\"entries\": " UINT64_FORMAT
					 ", \"null_entries\": " UINT64_FORMAT
					 ", \"distinct_keys\": " UINT64_FORMAT
					 ", \"pages\": %u"
					 ", \"file_bytes\": " UINT64_FORMAT
					 ", \"bytes_on_disk\": " UINT64_FORMAT
					 ", \"file\": \"%s\", ",
					 nkeys + nnulls, nnulls, distinct,
					 pager_file_pages(fi.ai.file),
					 file_bytes, disk_bytes,
					 pager_file_name(fi.ai.file));
	if (walk)
	{
		am_check_status(art_stats(&fi.ai.keys, &keys), fi.index,
						"reading statistics");
		am_check_status(art_stats(&fi.ai.nulls, &nulls), fi.index,
						"reading statistics");
		if (st == ART_OK)
			appendStringInfo(&buf, "\"kept_distinct_keys\": " UINT64_FORMAT ", ",
							 kept);
		stats_append_trie(&buf, "key_trie", &keys);
		appendStringInfoString(&buf, ", ");
		stats_append_trie(&buf, "null_trie", &nulls);
		appendStringInfoString(&buf, ", ");
	}
	stats_append_server(&buf, fi.ai.file);
	appendStringInfoChar(&buf, '}');

	func_close_index(&fi);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

#define INDEX_INFO_COLS	7

/*
 * artrie_index_info(index): what monitoring needs of one index, cheaply
 * (no walk over the trie): its file, the file's size, the index's size on
 * disk (file and main fork), its entries (from the tries' counts, NULL
 * keys included, visible or not until VACUUM removes them), its file's
 * last checkpoint and the WAL position it began at; and NULLs with the
 * reason in "problem" for an index whose file cannot be used (a copied
 * database, a missing or damaged file), instead of an ERROR.  Like
 * pg_relation_size, it needs no privilege on the table: it shows no key.
 */
Datum
artrie_index_info(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	index;
	TupleDesc	tupdesc;
	Datum		values[INDEX_INFO_COLS];
	bool		nulls[INDEX_INFO_COLS];
	ArtrieIndex ai;
	ErrorData  *edata;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	func_refuse_partitioned(indexoid, "artrie_index_info");
	index = index_open(indexoid, AccessShareLock);
	func_check_artrie(index);

	memset(nulls, true, sizeof(nulls));
	edata = am_try_open(index, &ai);
	if (edata == NULL)
	{
		uint64		file_bytes;
		uint64		disk_bytes = stats_disk_bytes(index, ai.file, &file_bytes);
		uint64		keys;
		uint64		nullkeys;
		XLogRecPtr	redo_lsn;

		am_check_status(art_count_prefix(&ai.keys, (const uint8 *) "", 0, &keys), index,
						"counting");
		am_check_status(art_count_prefix(&ai.nulls, (const uint8 *) "", 0, &nullkeys), index,
						"counting");
		memset(nulls, false, sizeof(nulls));
		values[0] = CStringGetTextDatum(pager_file_name(ai.file));
		values[1] = Int64GetDatum((int64) file_bytes);
		values[2] = Int64GetDatum((int64) disk_bytes);
		values[3] = Int64GetDatum((int64) (keys + nullkeys));
		values[4] = Int64GetDatum((int64) pager_file_checkpoint(ai.file, &redo_lsn));
		values[5] = LSNGetDatum(redo_lsn);
		nulls[6] = true;
		pager_release_file(ai.file);
	}
	else
	{
		nulls[6] = false;
		values[6] = CStringGetTextDatum(edata->message);
		FreeErrorData(edata);
	}
	index_close(index, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
