/*-------------------------------------------------------------------------
 *
 * io_worker.c
 *	  The io worker's side of the I/O layer: its wait, and the serving of
 *	  the request queue.
 *
 * The worker sleeps in one long-lived WaitEventSet on its latch (new
 * requests), the eventfd registered with its ring (completions) and
 * postmaster death; each time it wakes it lets the ring (io_uring.c) reap
 * completions and submit every pending request in one go.  If the ring
 * cannot be set up at all, the worker logs why, switches the whole server
 * to the mmap backend and serves requests already queued with it.  The
 * worker's main loop (checkpoints, the sweep) is the pager's; it calls
 * io_worker_serve to wait.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "io/io_internal.h"

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

static WaitEventSet *worker_wes = NULL;
static bool ring_ready = false;

/*
 * Record how the worker does its I/O: show it in the statistics, and LOG
 * the reason once if it fell back.
 */
static void
worker_record_mode(const char *mode, const char *reason)
{
	strlcpy(io_shared->buffer_mode, mode, sizeof(io_shared->buffer_mode));
	if (reason[0] != '\0')
	{
		strlcpy(io_shared->fallback_reason, reason, sizeof(io_shared->fallback_reason));
		ereport(LOG,
				(errmsg("artrie io worker: %s", reason)));
	}
}

/*
 * Set up the worker: the ring (or the mmap fallback) and the WaitEventSet.
 */
void
io_worker_start(void)
{
	io_am_worker = true;
	io_queue_fail_taken();

#if PG_VERSION_NUM >= 170000
	worker_wes = CreateWaitEventSet(NULL, 3);
#else
	worker_wes = CreateWaitEventSet(TopMemoryContext, 3);
#endif
	AddWaitEventToSet(worker_wes, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(worker_wes, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);

	if (io_backend_setting == IO_BACKEND_IO_URING)
	{
		const char *mode = "none (mmap)";
		char		reason[256];

		reason[0] = '\0';
		ring_ready = uring_start(&mode, reason, sizeof(reason));
		if (ring_ready)
			AddWaitEventToSet(worker_wes, WL_SOCKET_READABLE, uring_eventfd(),
							  NULL, NULL);
		else
			pg_atomic_write_u32(&io_shared->backend_in_use, IO_BACKEND_MMAP);
		worker_record_mode(mode, reason);
	}

	io_shared->worker_latch = MyLatch;
}

/*
 * Stop serving at exit.
 */
void
io_worker_stop(void)
{
	io_shared->worker_latch = NULL;
	uring_stop();
	ring_ready = false;
}

/*
 * Serve queued requests on the mmap backend (the ring could not be set up).
 */
static void
worker_serve_mmap(void)
{
	int			slot;

	while (io_queue_pop(&slot))
	{
		IoRequest  *req = &io_shared->requests[slot];
		IoPage		page = {req->offset, req->buf};
		IoFailure	fail = {0};

		switch (req->op)
		{
			case IO_OP_READ:
				io_mmap_methods.read(req->path, &page, 1, &fail);
				break;
			case IO_OP_WRITE:
			case IO_OP_WRITE_SYNC:
				io_mmap_methods.write(req->path, &page, 1,
									  req->op == IO_OP_WRITE_SYNC, &fail);
				break;
			case IO_OP_SYNC:
				io_mmap_methods.sync(req->path, &fail);
				break;
			case IO_OP_FORGET:
				io_mmap_methods.forget(req->path);
				break;
		}
		if (fail.error != 0 && fail.op == IO_OP_SYNC)
			req->sync_failed = true;
		io_request_finish(slot, fail.error);
	}
}

/*
 * Wait once (up to timeout_ms, -1 for no limit) on the latch, the ring's
 * eventfd and postmaster death, then serve: reap completions and submit
 * everything pending in one go.
 */
void
io_worker_serve(long timeout_ms)
{
	WaitEvent	events[3];
	int			n;

	if (!ring_ready)
	{
		ResetLatch(MyLatch);
		worker_serve_mmap();
		(void) WaitEventSetWait(worker_wes, timeout_ms, events, 3, PG_WAIT_EXTENSION);
		worker_serve_mmap();
		return;
	}

	ResetLatch(MyLatch);
	uring_work();

	if (uring_backlog() && (timeout_ms < 0 || timeout_ms > 10))
		timeout_ms = 10;
	n = WaitEventSetWait(worker_wes, timeout_ms, events, 3, PG_WAIT_EXTENSION);
	for (int i = 0; i < n; i++)
	{
		if (events[i].events & WL_SOCKET_READABLE)
		{
			uint64		v;

			if (read(uring_eventfd(), &v, sizeof(v)) < 0 && errno != EAGAIN)
				ereport(LOG,
						(errmsg("artrie io worker: could not read eventfd: %m")));
		}
	}
	if (n > 0)
		ResetLatch(MyLatch);
	uring_work();
}
