/*-------------------------------------------------------------------------
 *
 * io.c
 *	  The I/O interface: GUCs, the request queue in shared memory, and the
 *	  dispatch of every call to the mmap backend or to the io worker.
 *
 * Under io_uring a call becomes one request per page in the queue; the
 * caller wakes the worker's latch and sleeps on each request's condition
 * variable until the worker marks it done.  The wait is PostgreSQL's own:
 * statement_timeout, pg_cancel_backend and pg_terminate_backend end it
 * unless the caller's LWLocks hold interrupts off.  A reader that holds
 * some (a scan's page locks) and has a cancel pending stops waiting: it
 * takes its reads the worker has not started out of the queue and reads
 * those pages itself, so that its locks are soon released and the cancel
 * served.  A caller that leaves by an ERROR or FATAL takes its requests
 * that the worker has not started out of the queue; a read already under way is marked
 * abandoned and freed by the worker when it ends, and io_buffer_busy()
 * tells the pager not to reuse its buffer until then; a write or sync
 * under way is waited for, since the caller gives its target space back.
 * When the caller is the worker itself, it serves the queue until its own
 * requests are done.  With artrie.backend_reads (the default) a backend's
 * reads skip the queue: it reads through the page cache itself
 * (io_local.c); writes and syncs always go to the worker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "io/io_internal.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

int			io_backend_setting = IO_BACKEND_IO_URING;
int			io_ring_entries = 256;
int			io_debug_fault = IO_FAULT_NONE;
bool		io_backend_reads = true;

IoShared   *io_shared = NULL;
bool		io_am_worker = false;

static const struct config_enum_entry io_backend_options[] = {
	{"io_uring", IO_BACKEND_IO_URING, false},
	{"mmap", IO_BACKEND_MMAP, false},
	{NULL, 0, false}
};

static const struct config_enum_entry io_fault_options[] = {
	{"none", IO_FAULT_NONE, false},
	{"sync", IO_FAULT_SYNC, false},
	{"write", IO_FAULT_WRITE, false},
	{NULL, 0, false}
};

static const char *io_backend_show(void);

/*
 * Define an integer setting read only at server start.  A value set before
 * the library defines it (postgresql.conf, ALTER SYSTEM, the command line)
 * waits in a placeholder, and DefineCustomIntVariable replaces a value out
 * of range by the default with a WARNING; so, while the preloaded library
 * is loaded, such a value stops the server with a message naming the
 * setting, as PostgreSQL's own start-time settings do.
 */
void
io_define_startup_int(const char *name, const char *short_desc,
					  const char *long_desc, int *var, int boot, int min,
					  int max, int flags)
{
	const char *value = GetConfigOption(name, true, false);

	if (process_shared_preload_libraries_in_progress && value != NULL)
	{
		int			result;
		const char *hint = NULL;

		if (!parse_int(value, &result, flags, &hint))
			ereport(FATAL,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for parameter \"%s\": \"%s\"",
							name, value),
					 hint ? errhint("%s", _(hint)) : 0));
		if (result < min || result > max)
			ereport(FATAL,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s is outside the valid range for parameter \"%s\" (%d .. %d)",
							value, name, min, max),
					 errhint("Set \"%s\" within that range, or remove it to use the default.",
							 name)));
	}
	DefineCustomIntVariable(name, short_desc, long_desc, var, boot, min, max,
							PGC_POSTMASTER, flags, NULL, NULL, NULL);
}

/*
 * The same for an enum setting read only at server start: a value it does
 * not know stops the server, naming the setting and the values it takes.
 */
static void
io_check_startup_enum(const char *name, const struct config_enum_entry *options)
{
	const char *value = GetConfigOption(name, true, false);
	StringInfoData known;

	if (!process_shared_preload_libraries_in_progress || value == NULL)
		return;
	initStringInfo(&known);
	for (const struct config_enum_entry *o = options; o->name != NULL; o++)
	{
		if (pg_strcasecmp(value, o->name) == 0)
			return;
		appendStringInfo(&known, "%s%s", known.len > 0 ? ", " : "", o->name);
	}
	ereport(FATAL,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for parameter \"%s\": \"%s\"", name, value),
			 errhint("Available values: %s.", known.data)));
}

/*
 * Define artrie.io_backend, artrie.io_ring_entries and the test facility
 * artrie.debug_fault.
 */
void
io_define_gucs(void)
{
	io_check_startup_enum("artrie.io_backend", io_backend_options);
	DefineCustomEnumVariable("artrie.io_backend",
							 "I/O backend of artrie's files: io_uring or mmap.",
							 "SHOW reports the backend in use, which is mmap if io_uring could not be set up.",
							 &io_backend_setting,
							 IO_BACKEND_IO_URING,
							 io_backend_options,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, io_backend_show);
	io_define_startup_int("artrie.io_ring_entries",
						  "Entries of the io worker's io_uring ring.",
						  "Also the size of a checkpoint's write batches.",
						  &io_ring_entries,
						  256, 8, 4096, 0);
	DefineCustomBoolVariable("artrie.backend_reads",
							 "Under io_uring, backends read the pages they miss themselves.",
							 "A backend then reads a page with a plain read through the kernel's page cache in its own process; off sends every read to the io worker, which reads with O_DIRECT.",
							 &io_backend_reads,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("artrie.debug_fault",
							 "Makes artrie's I/O fail on purpose; for tests only.",
							 "sync: every fsync or fdatasync of an artrie file this session asks for fails with EIO; write: every write of one fails with EIO.",
							 &io_debug_fault,
							 IO_FAULT_NONE,
							 io_fault_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
}

/*
 * SHOW artrie.io_backend: the backend in use once shared memory exists.
 */
static const char *
io_backend_show(void)
{
	if (io_shared == NULL)
		return io_backend_name((IoBackend) io_backend_setting);
	return io_backend_name(io_backend_in_use());
}

/* Request slots: enough for several backends' full batches at once. */
static int
io_nrequests(void)
{
	return 4 * io_ring_entries;
}

/*
 * Shared memory the I/O layer needs.
 */
Size
io_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(IoShared));
	int			n = io_nrequests();

	size = add_size(size, MAXALIGN(mul_size(n, sizeof(int))));
	size = add_size(size, MAXALIGN(mul_size(n, sizeof(int))));
	size = add_size(size, mul_size(n, sizeof(IoRequest)));
	return size;
}

/*
 * Set up (or find) the I/O layer's shared memory.
 */
void
io_shmem_init(void)
{
	bool		found;
	int			n = io_nrequests();
	char	   *p;

	io_shared = ShmemInitStruct("artrie io", io_shmem_size(), &found);
	if (found)
		return;

	p = (char *) io_shared;
	memset(p, 0, io_shmem_size());
	p += MAXALIGN(sizeof(IoShared));
	io_shared->freelist = (int *) p;
	p += MAXALIGN(mul_size(n, sizeof(int)));
	io_shared->pending = (int *) p;
	p += MAXALIGN(mul_size(n, sizeof(int)));
	io_shared->requests = (IoRequest *) p;

	SpinLockInit(&io_shared->mutex);
	io_shared->nrequests = n;
	io_shared->nfree = n;
	for (int i = 0; i < n; i++)
	{
		io_shared->freelist[i] = i;
		io_shared->requests[i].state = IO_REQ_FREE;
		ConditionVariableInit(&io_shared->requests[i].cv);
	}
	ConditionVariableInit(&io_shared->free_cv);
	pg_atomic_init_u32(&io_shared->backend_in_use, (uint32) io_backend_setting);
	pg_atomic_init_u32(&io_shared->forgets, 0);
	strlcpy(io_shared->buffer_mode,
			io_backend_setting == IO_BACKEND_MMAP ? "none (mmap)" : "not started",
			sizeof(io_shared->buffer_mode));
	for (int k = 0; k < IO_PROC_NKINDS; k++)
	{
		IoCounters *c = &io_shared->counters[k];

		pg_atomic_init_u64(&c->reads, 0);
		pg_atomic_init_u64(&c->writes, 0);
		pg_atomic_init_u64(&c->read_bytes, 0);
		pg_atomic_init_u64(&c->write_bytes, 0);
		pg_atomic_init_u64(&c->syncs, 0);
		pg_atomic_init_u64(&c->submissions, 0);
		pg_atomic_init_u64(&c->sqes, 0);
		pg_atomic_init_u64(&c->requests, 0);
		pg_atomic_init_u64(&c->wait_us, 0);
	}
}

/*
 * Tell the worker where the buffer pool is, so that it can register it.
 */
void
io_set_buffer_region(char *base, Size size)
{
	io_shared->region_base = base;
	io_shared->region_size = size;
}

/*
 * The backend in use.
 */
IoBackend
io_backend_in_use(void)
{
	return (IoBackend) pg_atomic_read_u32(&io_shared->backend_in_use);
}

/*
 * A backend's name as artrie.io_backend spells it.
 */
const char *
io_backend_name(IoBackend backend)
{
	return backend == IO_BACKEND_MMAP ? "mmap" : "io_uring";
}

/*
 * How many pages to hand over in one call.
 */
int
io_batch_size(void)
{
	return io_ring_entries;
}

/*
 * Count pages moved or syncs made by this kind of process.
 */
void
io_count(IoProcKind kind, IoOp op, int npages)
{
	IoCounters *c = &io_shared->counters[kind];

	switch (op)
	{
		case IO_OP_READ:
			pg_atomic_fetch_add_u64(&c->reads, npages);
			pg_atomic_fetch_add_u64(&c->read_bytes, (uint64) npages * IO_PAGE_SIZE);
			break;
		case IO_OP_WRITE:
			pg_atomic_fetch_add_u64(&c->writes, npages);
			pg_atomic_fetch_add_u64(&c->write_bytes, (uint64) npages * IO_PAGE_SIZE);
			break;
		case IO_OP_WRITE_SYNC:
			pg_atomic_fetch_add_u64(&c->writes, npages);
			pg_atomic_fetch_add_u64(&c->write_bytes, (uint64) npages * IO_PAGE_SIZE);
			pg_atomic_fetch_add_u64(&c->syncs, 1);
			break;
		case IO_OP_SYNC:
			pg_atomic_fetch_add_u64(&c->syncs, 1);
			break;
		case IO_OP_FORGET:
			break;
	}
}

/*
 * Is this process the io worker?
 */
bool
io_in_worker(void)
{
	return io_am_worker;
}

/* This process's kind. */
static IoProcKind
io_my_kind(void)
{
	return io_am_worker ? IO_PROC_WORKER : IO_PROC_BACKEND;
}

/*
 * Raise the ERROR for a failed operation on a file, or PANIC for a failed
 * sync: the kernel may have dropped the dirty pages the sync covered and
 * marked them clean, so a later sync that succeeds proves nothing, and
 * the callers above have already counted those pages written (as
 * PostgreSQL does for its own files since data_sync_retry exists, with
 * that setting off).  Recovery then starts from the last checkpoint that
 * did become durable.
 */
static void
io_report(IoOp op, const char *path, uint64 offset, int error)
{
	const char *what;

	if (op == IO_OP_SYNC)
	{
		errno = error;
		ereport(PANIC,
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", path)));
	}

	switch (op)
	{
		case IO_OP_READ:
			what = "read";
			break;
		case IO_OP_FORGET:
			what = "close";
			break;
		default:
			what = "write";
			break;
	}
	if (error == IO_ERR_EOF)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read file \"%s\" at offset " UINT64_FORMAT ": unexpected end of file",
						path, offset)));
	errno = error;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not %s file \"%s\" at offset " UINT64_FORMAT ": %m",
					what, path, offset)));
}

/*
 * One step of a wait for another process (the io worker's I/O, a read or
 * a checkpoint another backend runs), the one place where artrie waits
 * for I/O: the io worker serves its queue meanwhile, since what it waits
 * for may need its I/O; any other process sleeps on cv (on its latch if cv
 * is NULL) for at most ms.  Interrupts are PostgreSQL's own business: the
 * condition variable's sleep or CHECK_FOR_INTERRUPTS serves a cancel or
 * termination unless the caller's locks hold interrupts off; such a wait
 * ends when the other process is done, and the cancel is served once the
 * locks are released.  A caller that waited on cv ends its wait with
 * ConditionVariableCancelSleep.
 */
void
io_wait(ConditionVariable *cv, long ms)
{
	if (io_am_worker)
	{
		io_worker_serve(ms);
		return;
	}
	if (cv)
		(void) ConditionVariableTimedSleep(cv, ms, PG_WAIT_EXTENSION);
	else
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Is a cancel or termination waiting for this process's locks to be
 * released?
 */
static bool
io_interrupt_held_off(void)
{
	return InterruptPending && InterruptHoldoffCount > 0 &&
		(QueryCancelPending || ProcDiePending);
}

/*
 * Pop the oldest pending request; caller is the worker.
 */
bool
io_queue_pop(int *slot)
{
	bool		found = false;

	SpinLockAcquire(&io_shared->mutex);
	if (io_shared->npending > 0)
	{
		*slot = io_shared->pending[io_shared->pending_head];
		io_shared->pending_head = (io_shared->pending_head + 1) % io_shared->nrequests;
		io_shared->npending--;
		io_shared->requests[*slot].state = IO_REQ_INFLIGHT;
		found = true;
	}
	SpinLockRelease(&io_shared->mutex);
	return found;
}

/*
 * Put back a request the worker popped but could not start yet.
 */
void
io_queue_push_front(int slot)
{
	SpinLockAcquire(&io_shared->mutex);
	io_shared->pending_head = (io_shared->pending_head + io_shared->nrequests - 1) % io_shared->nrequests;
	io_shared->pending[io_shared->pending_head] = slot;
	io_shared->npending++;
	io_shared->requests[slot].state = IO_REQ_PENDING;
	SpinLockRelease(&io_shared->mutex);
}

/*
 * Put a request slot back on the free list (mutex held).
 */
static void
io_slot_free(int slot)
{
	io_shared->requests[slot].state = IO_REQ_FREE;
	io_shared->freelist[io_shared->nfree++] = slot;
}

/*
 * Mark a request done and wake whoever waits for it; a request whose
 * waiter left goes straight back to the free list.
 */
void
io_request_finish(int slot, int error)
{
	IoRequest  *req = &io_shared->requests[slot];
	bool		freed = false;

	SpinLockAcquire(&io_shared->mutex);
	req->error = error;
	if (req->abandoned)
	{
		req->abandoned = false;
		io_shared->nabandoned--;
		io_slot_free(slot);
		freed = true;
	}
	else
		req->state = IO_REQ_DONE;
	SpinLockRelease(&io_shared->mutex);
	ConditionVariableBroadcast(freed ? &io_shared->free_cv : &req->cv);
}

/*
 * Take a pending request out of the queue (mutex held).
 */
static void
io_queue_remove(int slot)
{
	int			n = io_shared->nrequests;

	for (int i = 0; i < io_shared->npending; i++)
	{
		int			pos = (io_shared->pending_head + i) % n;

		if (io_shared->pending[pos] != slot)
			continue;
		for (int j = i + 1; j < io_shared->npending; j++)
			io_shared->pending[(io_shared->pending_head + j - 1) % n] =
				io_shared->pending[(io_shared->pending_head + j) % n];
		io_shared->npending--;
		return;
	}
}

/* The requests a caller waits for, for the cleanup if it leaves. */
typedef struct IoWait
{
	int		   *slots;
	int			nslots;
} IoWait;

/*
 * A caller leaves its wait by an ERROR or FATAL: withdraw its requests the
 * worker has not taken, abandon its reads under way (the worker frees
 * them), and wait for its writes and syncs under way.
 */
static void
io_queue_abandon(int code, Datum arg)
{
	IoWait	   *w = (IoWait *) DatumGetPointer(arg);
	bool		waiting = true;

	HOLD_INTERRUPTS();
	while (waiting)
	{
		waiting = false;
		SpinLockAcquire(&io_shared->mutex);
		for (int i = 0; i < w->nslots; i++)
		{
			int			slot = w->slots[i];
			IoRequest  *req = &io_shared->requests[slot];

			if (slot < 0)
				continue;
			if (req->state == IO_REQ_PENDING)
				io_queue_remove(slot);
			else if (req->state == IO_REQ_INFLIGHT && req->op == IO_OP_READ)
			{
				req->abandoned = true;
				io_shared->nabandoned++;
			}
			else if (req->state == IO_REQ_INFLIGHT)
			{
				waiting = true;
				continue;
			}
			if (!req->abandoned)
				io_slot_free(slot);
			w->slots[i] = -1;
		}
		SpinLockRelease(&io_shared->mutex);
		ConditionVariableBroadcast(&io_shared->free_cv);
		if (waiting)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 10L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
	}
	RESUME_INTERRUPTS();
}

/*
 * Is an abandoned request still moving bytes into or out of buf?
 */
bool
io_buffer_busy(const char *buf)
{
	bool		busy = false;

	if (io_shared == NULL || io_shared->nabandoned == 0)
		return false;
	SpinLockAcquire(&io_shared->mutex);
	for (int i = 0; i < io_shared->nrequests && !busy; i++)
		busy = io_shared->requests[i].abandoned && io_shared->requests[i].buf == buf;
	SpinLockRelease(&io_shared->mutex);
	return busy;
}

/*
 * A reader whose locks hold off a pending cancel or termination stops
 * waiting for the worker: its reads the worker has not taken leave the
 * queue (their slots become -1) and it reads those pages itself, with a
 * plain read that always ends; reads the worker has taken are still
 * waited for.  The cancel is served once the caller releases its locks.
 * The first error goes to *err and *err_offset.
 */
static void
io_queue_read_here(const char *path, const IoPage *pages, int *slots,
				   int nslots, int *err, uint64 *err_offset)
{
	IoPage	   *mine = palloc(sizeof(IoPage) * nslots);
	int			nmine = 0;
	uint64		failed = 0;
	int			rc;

	SpinLockAcquire(&io_shared->mutex);
	for (int i = 0; i < nslots; i++)
	{
		if (slots[i] < 0 || io_shared->requests[slots[i]].state != IO_REQ_PENDING)
			continue;
		io_queue_remove(slots[i]);
		io_slot_free(slots[i]);
		slots[i] = -1;
		mine[nmine++] = pages[i];
	}
	SpinLockRelease(&io_shared->mutex);
	ConditionVariableBroadcast(&io_shared->free_cv);

	rc = nmine > 0 ? iolocal_read(path, mine, nmine, &failed) : 0;
	if (rc == 0)
		io_count(io_my_kind(), IO_OP_READ, nmine);
	else if (*err == 0)
	{
		*err = rc;
		*err_offset = failed;
	}
	pfree(mine);
}

/*
 * Queue one request per page (or one for a sync), wait for all, and raise
 * the first error.
 */
static void
io_queue_run(IoOp op, const char *path, const IoPage *pages, int npages)
{
	int			nslots = (op == IO_OP_SYNC || op == IO_OP_FORGET) ? 1 : npages;
	int		   *slots;
	int			err = 0;
	uint64		err_offset = 0;
	IoOp		err_op = op;
	instr_time	start,
				elapsed;

	if (nslots <= 0)
		return;
	Assert(nslots <= io_shared->nrequests);
	slots = palloc(sizeof(int) * nslots);
	INSTR_TIME_SET_CURRENT(start);

	/* Take all slots at once, so that two batches cannot starve each other. */
	for (;;)
	{
		SpinLockAcquire(&io_shared->mutex);
		if (io_shared->nfree >= nslots)
			break;
		SpinLockRelease(&io_shared->mutex);
		io_wait(&io_shared->free_cv, 10);
	}
	for (int i = 0; i < nslots; i++)
	{
		int			slot = io_shared->freelist[--io_shared->nfree];
		IoRequest  *req = &io_shared->requests[slot];
		int			tail;

		slots[i] = slot;
		req->op = op;
		strlcpy(req->path, path, IO_PATH_LEN);
		req->offset = pages ? pages[i].offset : 0;
		req->buf = pages ? pages[i].buf : NULL;
		req->done = 0;
		req->error = 0;
		req->abandoned = false;
		req->sync_failed = false;
		req->state = IO_REQ_PENDING;
		tail = (io_shared->pending_head + io_shared->npending) % io_shared->nrequests;
		io_shared->pending[tail] = slot;
		io_shared->npending++;
	}
	SpinLockRelease(&io_shared->mutex);
	ConditionVariableCancelSleep();

	pg_atomic_fetch_add_u64(&io_shared->counters[io_my_kind()].requests, nslots);
	if (io_shared->worker_latch)
		SetLatch(io_shared->worker_latch);

	if (io_am_worker)
	{
		/* A request served while submitting sets no event: poll. */
		for (int i = 0; i < nslots; i++)
			while (io_shared->requests[slots[i]].state != IO_REQ_DONE)
				io_wait(NULL, 10);
	}
	else
	{
		IoWait		w = {slots, nslots};

		PG_ENSURE_ERROR_CLEANUP(io_queue_abandon, PointerGetDatum(&w));
		{
			for (int i = 0; i < nslots; i++)
			{
				IoRequest  *req;

				if (slots[i] < 0)
					continue;
				req = &io_shared->requests[slots[i]];
				ConditionVariablePrepareToSleep(&req->cv);
				while (req->state != IO_REQ_DONE)
				{
					if (op == IO_OP_READ && io_interrupt_held_off())
					{
						ConditionVariableCancelSleep();
						io_queue_read_here(path, pages, slots, nslots,
										   &err, &err_offset);
						if (slots[i] < 0)
							break;
						ConditionVariablePrepareToSleep(&req->cv);
					}
					io_wait(&req->cv, 10);
				}
				ConditionVariableCancelSleep();
			}
		}
		PG_END_ENSURE_ERROR_CLEANUP(io_queue_abandon, PointerGetDatum(&w));
	}

	SpinLockAcquire(&io_shared->mutex);
	for (int i = 0; i < nslots; i++)
	{
		IoRequest  *req;

		if (slots[i] < 0)
			continue;
		req = &io_shared->requests[slots[i]];
		if (req->error != 0 && err == 0)
		{
			err = req->error;
			err_offset = req->offset;
			err_op = req->sync_failed ? IO_OP_SYNC : req->op;
		}
		io_slot_free(slots[i]);
	}
	SpinLockRelease(&io_shared->mutex);
	ConditionVariableBroadcast(&io_shared->free_cv);

	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	pg_atomic_fetch_add_u64(&io_shared->counters[io_my_kind()].wait_us,
							INSTR_TIME_GET_MICROSEC(elapsed));
	pfree(slots);

	if (err != 0)
		io_report(err_op, path, err_offset, err);
}

/*
 * Run one operation in this process: any on the mmap backend, a read under
 * io_uring with artrie.backend_reads (io_local.c).
 */
static void
io_run_here(IoOp op, const char *path, const IoPage *pages, int npages)
{
	int			err = 0;
	uint64		failed = npages > 0 ? pages[0].offset : 0;
	instr_time	start,
				elapsed;

	INSTR_TIME_SET_CURRENT(start);
	switch (op)
	{
		case IO_OP_READ:
			if (io_backend_in_use() == IO_BACKEND_MMAP)
				err = iommap_read(path, pages, npages);
			else
				err = iolocal_read(path, pages, npages, &failed);
			break;
		case IO_OP_WRITE:
			err = iommap_write(path, pages, npages);
			break;
		case IO_OP_WRITE_SYNC:
			err = iommap_write(path, pages, npages);
			if (err == 0 && (err = iommap_sync(path)) != 0)
				op = IO_OP_SYNC;
			break;
		case IO_OP_SYNC:
			err = iommap_sync(path);
			break;
		case IO_OP_FORGET:
			iommap_forget(path);
			break;
	}
	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	pg_atomic_fetch_add_u64(&io_shared->counters[io_my_kind()].wait_us,
							INSTR_TIME_GET_MICROSEC(elapsed));
	if (err != 0)
		io_report(op, path, failed, err);
	io_count(io_my_kind(), op, npages);
}

/*
 * Send an operation down the backend in use, in batches the queue holds.
 */
static void
io_run(IoOp op, const char *path, const IoPage *pages, int npages)
{
	if (io_debug_fault == IO_FAULT_SYNC &&
		(op == IO_OP_SYNC || op == IO_OP_WRITE_SYNC))
	{
		/* artrie.debug_fault: the writes happen, the sync fails. */
		if (op == IO_OP_WRITE_SYNC)
			io_run(IO_OP_WRITE, path, pages, npages);
		io_report(IO_OP_SYNC, path, 0, EIO);
	}
	if (io_debug_fault == IO_FAULT_WRITE &&
		(op == IO_OP_WRITE || op == IO_OP_WRITE_SYNC))
		io_report(IO_OP_WRITE, path, npages > 0 ? pages[0].offset : 0, EIO);
	if (io_backend_in_use() == IO_BACKEND_MMAP ||
		(op == IO_OP_READ && io_backend_reads && !io_am_worker))
	{
		io_run_here(op, path, pages, npages);
		return;
	}
	if (op == IO_OP_WRITE_SYNC)
	{
		/* The pages go out in batches; the last one carries the sync. */
		while (npages > io_ring_entries)
		{
			io_queue_run(IO_OP_WRITE, path, pages, io_ring_entries);
			pages += io_ring_entries;
			npages -= io_ring_entries;
		}
		io_queue_run(IO_OP_WRITE, path, pages, npages - 1);
		io_queue_run(IO_OP_WRITE_SYNC, path, pages + npages - 1, 1);
		return;
	}
	if (op == IO_OP_SYNC || op == IO_OP_FORGET)
	{
		io_queue_run(op, path, NULL, 0);
		return;
	}
	while (npages > 0)
	{
		int			n = Min(npages, io_ring_entries);

		io_queue_run(op, path, pages, n);
		pages += n;
		npages -= n;
	}
}

/*
 * Read pages.
 */
void
io_read_pages(const char *path, const IoPage *pages, int npages)
{
	io_run(IO_OP_READ, path, pages, npages);
}

/*
 * Write pages (not yet durable).
 */
void
io_write_pages(const char *path, const IoPage *pages, int npages)
{
	io_run(IO_OP_WRITE, path, pages, npages);
}

/*
 * Write pages and make them durable.
 */
void
io_write_sync(const char *path, const IoPage *pages, int npages)
{
	if (npages <= 0)
		io_run(IO_OP_SYNC, path, NULL, 0);
	else
		io_run(IO_OP_WRITE_SYNC, path, pages, npages);
}

/*
 * Make everything written to a file durable.
 */
void
io_sync_file(const char *path)
{
	io_run(IO_OP_SYNC, path, NULL, 0);
}

/*
 * Drop handles on a file that is going away.  Other backends' mmap
 * mappings of it are dropped lazily: the name is never used again.  Their
 * handles for reads of their own are closed before their next read.
 */
void
io_forget_file(const char *path)
{
	iommap_forget(path);
	iolocal_forget();
	if (io_backend_in_use() == IO_BACKEND_IO_URING)
		io_queue_run(IO_OP_FORGET, path, NULL, 0);
}

/*
 * A snapshot of one kind's counters.
 */
void
io_get_stats(IoProcKind kind, IoStatsSnapshot *snap)
{
	IoCounters *c = &io_shared->counters[kind];

	snap->reads = pg_atomic_read_u64(&c->reads);
	snap->writes = pg_atomic_read_u64(&c->writes);
	snap->read_bytes = pg_atomic_read_u64(&c->read_bytes);
	snap->write_bytes = pg_atomic_read_u64(&c->write_bytes);
	snap->syncs = pg_atomic_read_u64(&c->syncs);
	snap->submissions = pg_atomic_read_u64(&c->submissions);
	snap->sqes = pg_atomic_read_u64(&c->sqes);
	snap->requests = pg_atomic_read_u64(&c->requests);
	snap->wait_us = pg_atomic_read_u64(&c->wait_us);
}

/*
 * How the io worker's ring reaches buffers: "pool", "staging", "plain".
 */
const char *
io_buffer_mode(void)
{
	return io_shared->buffer_mode;
}

/*
 * Why the worker fell back (buffers or backend), or "" if it did not.
 */
const char *
io_fallback_reason(void)
{
	return io_shared->fallback_reason;
}
