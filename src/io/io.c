/*-------------------------------------------------------------------------
 *
 * io.c
 *	  The I/O interface: GUCs, shared memory, counters, and the dispatch of
 *	  every call to the backend in use through its method table.
 *
 * The backends fill an IoMethods table (io_internal.h): io_mmap.c, where
 * every process maps the files itself, and io_queue.c, the io_uring
 * backend as other processes see it (requests to the io worker, whose
 * loop is io_worker.c and whose ring is io_uring.c).  Under io_uring with
 * artrie.backend_reads (the default) a backend's reads skip the queue: it
 * reads through the page cache itself (io_local.c); writes and syncs
 * always go to the worker.  Here the calls are timed and counted, the
 * test facility artrie.debug_fault makes them fail, and a failure becomes
 * an ERROR, or a PANIC for a sync (io_report).  io_wait is the one wait
 * for another process, shared by the layers above.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "io/io_internal.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

int			io_backend_setting = IO_BACKEND_IO_URING;
int			io_ring_entries = 256;
int			io_debug_fault = IO_FAULT_NONE;
bool		io_backend_reads = true;
bool		io_random_reads = false;

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

/*
 * This process's kind.
 */
IoProcKind
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
 * The backend in use, as this process sees it.
 */
static const IoMethods *
io_methods(void)
{
	if (io_backend_in_use() == IO_BACKEND_MMAP)
		return &io_mmap_methods;
	return &io_queue_methods;
}

/*
 * End a call: count the time it took, count its pages if this process
 * moved them, and raise its error.
 */
static void
io_done(instr_time *start, bool here, IoOp op, int npages,
		const char *path, const IoFailure *fail)
{
	instr_time	elapsed;

	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, *start);
	pg_atomic_fetch_add_u64(&io_shared->counters[io_my_kind()].wait_us,
							INSTR_TIME_GET_MICROSEC(elapsed));
	if (fail->error != 0)
		io_report(fail->op, path, fail->offset, fail->error);
	if (here)
		io_count(io_my_kind(), op, npages);
}

/*
 * Read pages: through the backend in use, or under io_uring with
 * artrie.backend_reads in this process (io_local.c).
 */
void
io_read_pages(const char *path, const IoPage *pages, int npages)
{
	const IoMethods *m = io_methods();
	IoFailure	fail = {0};
	instr_time	start;
	bool		local = (m == &io_queue_methods && io_backend_reads &&
						 !io_am_worker);

	INSTR_TIME_SET_CURRENT(start);
	if (local)
		iolocal_read(path, pages, npages, &fail);
	else
		m->read(path, pages, npages, &fail);
	io_done(&start, local || m->here, IO_OP_READ, npages, path, &fail);
}

/*
 * Say whether this process's reads are random probes from now on: then a
 * page the kernel's cache misses is read alone, with no read-around (under
 * io_uring no window around it, under mmap MADV_RANDOM on the mapping);
 * otherwise the pages around it come into the kernel's cache with it.
 * Returns the previous setting, for the caller to restore.
 */
pg_attribute_hot bool
io_set_random_reads(bool random)
{
	bool		prev = io_random_reads;

	io_random_reads = random;
	return prev;
}

/*
 * Write pages, then with sync make the file durable.  artrie.debug_fault
 * makes the write or the sync fail here.
 */
static void
io_write(const char *path, const IoPage *pages, int npages, bool sync)
{
	const IoMethods *m = io_methods();
	IoFailure	fail = {0};
	instr_time	start;

	if (io_debug_fault == IO_FAULT_WRITE)
		io_report(IO_OP_WRITE, path, npages > 0 ? pages[0].offset : 0, EIO);
	if (io_debug_fault == IO_FAULT_SYNC && sync)
	{
		/* The writes happen, the sync fails. */
		io_write(path, pages, npages, false);
		io_report(IO_OP_SYNC, path, 0, EIO);
	}
	INSTR_TIME_SET_CURRENT(start);
	m->write(path, pages, npages, sync, &fail);
	io_done(&start, m->here, sync ? IO_OP_WRITE_SYNC : IO_OP_WRITE, npages,
			path, &fail);
}

/*
 * Write pages (not yet durable).
 */
void
io_write_pages(const char *path, const IoPage *pages, int npages)
{
	io_write(path, pages, npages, false);
}

/* A write under way (io_write_begin): its backend and that one's state. */
struct IoWriting
{
	const IoMethods *m;
	void	   *state;
	char		path[IO_PATH_LEN];
};

/*
 * Begin writing pages while the caller goes on.  artrie.debug_fault makes
 * the write fail here.
 */
IoWriting *
io_write_begin(const char *path, const IoPage *pages, int npages)
{
	const IoMethods *m = io_methods();
	IoWriting  *w = palloc(sizeof(IoWriting));
	IoFailure	fail = {0};
	instr_time	start;

	Assert(npages <= io_batch_size() && !io_am_worker);
	if (io_debug_fault == IO_FAULT_WRITE)
		io_report(IO_OP_WRITE, path, npages > 0 ? pages[0].offset : 0, EIO);
	INSTR_TIME_SET_CURRENT(start);
	w->m = m;
	w->state = m->write_begin(path, pages, npages, &fail);
	strlcpy(w->path, path, IO_PATH_LEN);
	io_done(&start, m->here, IO_OP_WRITE, npages, path, &fail);
	return w;
}

/*
 * Wait for a write io_write_begin began; its failure is an ERROR.
 */
void
io_write_finish(IoWriting *w)
{
	IoFailure	fail = {0};
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	w->m->write_finish(w->state, &fail);
	io_done(&start, false, IO_OP_WRITE, 0, w->path, &fail);
	pfree(w);
}

/*
 * Abandon this process's write that io_write_begin began and nobody waits
 * for any more (an ERROR or FATAL came in between), if there is one: wait
 * for its pages under way, withdraw the others, and raise nothing.
 */
void
io_write_abandon(void)
{
	io_methods()->write_abandon();
}

/*
 * Write pages and make them durable.
 */
void
io_write_sync(const char *path, const IoPage *pages, int npages)
{
	if (npages <= 0)
		io_sync_file(path);
	else
		io_write(path, pages, npages, true);
}

/*
 * Make everything written to a file durable.
 */
void
io_sync_file(const char *path)
{
	const IoMethods *m = io_methods();
	IoFailure	fail = {0};
	instr_time	start;

	if (io_debug_fault == IO_FAULT_SYNC)
		io_report(IO_OP_SYNC, path, 0, EIO);
	INSTR_TIME_SET_CURRENT(start);
	m->sync(path, &fail);
	io_done(&start, m->here, IO_OP_SYNC, 0, path, &fail);
}

/*
 * Cut a file short to size bytes, the pages past it unused; false (and a
 * WARNING) if that failed, which leaves the file longer and nothing else
 * wrong.  Other processes' handles need nothing: none reads past the
 * pages in use, and a write past the end extends the file again (the
 * mmap backend writes with pwritev, io_uring's writes extend the file
 * where they are not preallocated).
 */
bool
io_truncate_file(const char *path, uint64 size)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	if ((uint64) st.st_size <= size)
		return true;
	if (truncate(path, (off_t) size) == 0)
		return true;
	ereport(WARNING,
			(errcode_for_file_access(),
			 errmsg("could not truncate artrie file \"%s\" to %llu bytes: %m",
					path, (unsigned long long) size)));
	return false;
}

/*
 * Drop handles on a file that is going away.  Other backends' mmap
 * mappings of it are dropped lazily: the name is never used again.  Their
 * handles for reads of their own are closed before their next read.
 */
void
io_forget_file(const char *path)
{
	io_mmap_methods.forget(path);
	iolocal_forget();
	if (io_methods() != &io_mmap_methods)
		io_methods()->forget(path);
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
