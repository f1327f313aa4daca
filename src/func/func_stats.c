/*-------------------------------------------------------------------------
 *
 * func_stats.c
 *	  artrie_stats: what an artrie index holds and what it costs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"

#include "func/func.h"
#include "wal/wal.h"

PG_FUNCTION_INFO_V1(artrie_stats);

/* Count distinct keys: one seek per key, past all of its entries. */
static uint64
stats_distinct_keys(FuncIndex *fi)
{
	ArtCursor  *cursor;
	const uint8 *entry;
	size_t		len;
	ArtStatus	status;
	uint64		n = 0;

	am_check_status(art_cursor_open(&fi->ai.keys, &cursor), fi->index,
					"opening a cursor");
	am_check_status(art_cursor_seek(cursor, NULL, 0, true, ART_FORWARD),
					fi->index, "seeking");
	while ((status = art_cursor_next(cursor, &entry, &len)) == ART_OK)
	{
		size_t		keylen;

		CHECK_FOR_INTERRUPTS();
		if (len < ARTRIE_TID_LEN + 1)
			break;
		keylen = len - 1 - ARTRIE_TID_LEN;
		n++;
		func_seek_past_key(fi, cursor, entry, keylen);
	}
	if (status != ART_OK && status != ART_NOT_FOUND)
		am_check_status(status, fi->index, "reading");
	art_cursor_close(cursor);
	return n;
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
					 ", \"frames\": %u, \"dirty\": %u}"
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
					 pager_io_backend(), pager_io_buffer_mode(),
					 LSN_FORMAT_ARGS(wal.replay_from),
					 wal.wal_end > wal.replay_from ? (uint64) (wal.wal_end - wal.replay_from) : 0,
					 wal.records, wal.bytes, wal.replayed, wal.failed,
					 wal.slot_ok ? "\"ok\"" :
					 quote_json_string(wal.slot_problem[0] ? wal.slot_problem : "not yet created"));
}

/*
 * artrie_stats(index): entries, distinct keys, pages, bytes on disk (the
 * artrie file plus the main fork's metapage), the file, the tries' shapes,
 * and the server-wide state it depends on: the file's last checkpoint, the
 * buffer pool's hits and misses, the I/O backend in use and its buffer
 * registration, and the WAL that recovery would replay (from where, how
 * many bytes, whether artrie's replication slot keeps it), as jsonb.
 */
Datum
artrie_stats(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	FuncIndex	fi;
	ArtStats	keys;
	ArtStats	nulls;
	StringInfoData buf;
	uint64		file_bytes;
	uint64		fork_bytes;

	func_open_index(indexoid, &fi);
	am_check_status(art_stats(&fi.ai.keys, &keys), fi.index, "reading statistics");
	am_check_status(art_stats(&fi.ai.nulls, &nulls), fi.index, "reading statistics");
	file_bytes = pager_file_bytes(fi.ai.file);
	fork_bytes = (uint64) RelationGetNumberOfBlocks(fi.index) * BLCKSZ;

	initStringInfo(&buf);
	appendStringInfo(&buf,
					 "{\"entries\": " UINT64_FORMAT
					 ", \"null_entries\": " UINT64_FORMAT
					 ", \"distinct_keys\": " UINT64_FORMAT
					 ", \"pages\": %u"
					 ", \"file_bytes\": " UINT64_FORMAT
					 ", \"bytes_on_disk\": " UINT64_FORMAT
					 ", \"file\": \"%s\", ",
					 keys.entries + nulls.entries, nulls.entries,
					 stats_distinct_keys(&fi),
					 pager_file_pages(fi.ai.file),
					 file_bytes, file_bytes + fork_bytes,
					 pager_file_name(fi.ai.file));
	stats_append_trie(&buf, "key_trie", &keys);
	appendStringInfoString(&buf, ", ");
	stats_append_trie(&buf, "null_trie", &nulls);
	appendStringInfoString(&buf, ", ");
	stats_append_server(&buf, fi.ai.file);
	appendStringInfoChar(&buf, '}');

	func_close_index(&fi);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}
