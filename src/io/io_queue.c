/*-------------------------------------------------------------------------
 *
 * io_queue.c
 *	  The io_uring backend as a process other than the io worker sees it:
 *	  requests in a queue in shared memory that the io worker serves.
 *
 * A call becomes one request per page (one for a sync) in the queue; the
 * caller wakes the worker's latch and sleeps on each request's condition
 * variable until the worker marks it done.  The wait is PostgreSQL's own:
 * statement_timeout, pg_cancel_backend and pg_terminate_backend end it
 * unless the caller's LWLocks hold interrupts off.  A reader that holds
 * some (a scan's page locks) and has a cancel pending stops waiting: it
 * takes its reads the worker has not started out of the queue and reads
 * those pages itself (io_local.c), so that its locks are soon released and
 * the cancel served.  A caller that leaves by an ERROR or FATAL takes its
 * requests that the worker has not started out of the queue; a read
 * already under way is marked abandoned and freed by the worker when it
 * ends, and io_buffer_busy() tells the pager not to reuse its buffer until
 * then; a write or sync under way is waited for, since the caller gives
 * its target space back.  When the caller is the worker itself, it serves
 * the queue until its own requests are done (io_wait).  A write begun with
 * io_write_begin is waited for later (io_write_finish), or abandoned as
 * above once an ERROR or FATAL came in between (io_write_abandon);
 * meanwhile its caller frees those of its requests that are done whenever
 * it waits for free slots.  The worker's side of the queue is here too: it pops requests
 * and finishes them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "io/io_internal.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/wait_event.h"

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
 * Mark a request done, count it if it succeeded, and wake whoever waits
 * for it; a request whose waiter left goes straight back to the free
 * list.
 */
void
io_request_finish(int slot, int error)
{
	IoRequest  *req = &io_shared->requests[slot];
	bool		freed = false;

	if (error == 0)
		io_count(IO_PROC_WORKER, req->op,
				 req->op == IO_OP_SYNC || req->op == IO_OP_FORGET ? 0 : 1);
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
 * At the io worker's start: requests a previous incarnation of the worker
 * had taken are lost, and fail.
 */
void
io_queue_fail_taken(void)
{
	for (int i = 0; i < io_shared->nrequests; i++)
	{
		if (io_shared->requests[i].state == IO_REQ_INFLIGHT)
			io_request_finish(i, EIO);
	}
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

/*
 * The requests of one call, for its wait and for the cleanup if the caller
 * leaves; a slot becomes -1 once freed, and fail keeps the first error of
 * those freed before the wait (io_queue_reap).
 */
typedef struct IoWait
{
	int		   *slots;
	int			nslots;
	IoFailure	fail;
} IoWait;

/*
 * This process's write begun by queue_write_begin and not yet waited for:
 * its requests that are done are freed while the process waits for free
 * slots, since only it frees them (several processes each holding such a
 * write could otherwise hold every slot and wait for each other).
 */
static IoWait *queue_detached = NULL;

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
			IoRequest  *req;

			if (slot < 0)
				continue;
			req = &io_shared->requests[slot];
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
 * The first error goes to *fail.
 */
static void
io_queue_read_here(const char *path, const IoPage *pages, int *slots,
				   int nslots, IoFailure *fail)
{
	IoPage	   *mine = palloc(sizeof(IoPage) * nslots);
	int			nmine = 0;
	IoFailure	local = {0};

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

	if (nmine > 0)
		iolocal_read(path, mine, nmine, &local);
	if (local.error == 0)
		io_count(io_my_kind(), IO_OP_READ, nmine);
	else if (fail->error == 0)
		*fail = local;
	pfree(mine);
}

/*
 * Keep the first error of request slot i of w in w->fail (mutex held).
 */
static void
io_queue_note_error(IoWait *w, int i)
{
	IoRequest  *req = &io_shared->requests[w->slots[i]];

	if (req->error != 0 && w->fail.error == 0)
	{
		w->fail.error = req->error;
		w->fail.offset = req->offset;
		w->fail.op = req->sync_failed ? IO_OP_SYNC : req->op;
	}
}

/*
 * Free the requests of w that are done, keeping the first error.
 */
static void
io_queue_reap(IoWait *w)
{
	bool		freed = false;

	SpinLockAcquire(&io_shared->mutex);
	for (int i = 0; i < w->nslots; i++)
	{
		if (w->slots[i] < 0 ||
			io_shared->requests[w->slots[i]].state != IO_REQ_DONE)
			continue;
		io_queue_note_error(w, i);
		io_slot_free(w->slots[i]);
		w->slots[i] = -1;
		freed = true;
	}
	SpinLockRelease(&io_shared->mutex);
	if (freed)
		ConditionVariableBroadcast(&io_shared->free_cv);
}

/*
 * Queue one request per page (or one for a sync) into w and wake the
 * worker.
 */
static void
io_queue_submit(IoWait *w, IoOp op, const char *path, const IoPage *pages,
				int npages)
{
	int			nslots = (op == IO_OP_SYNC || op == IO_OP_FORGET) ? 1 : npages;

	Assert(nslots <= io_shared->nrequests);
	memset(w, 0, sizeof(IoWait));
	w->slots = palloc(sizeof(int) * Max(nslots, 1));
	w->nslots = nslots;
	if (nslots <= 0)
		return;

	/* Take all slots at once, so that two batches cannot starve each other. */
	for (;;)
	{
		SpinLockAcquire(&io_shared->mutex);
		if (io_shared->nfree >= nslots)
			break;
		SpinLockRelease(&io_shared->mutex);
		if (queue_detached != NULL)
			io_queue_reap(queue_detached);
		io_wait(&io_shared->free_cv, 10);
	}
	for (int i = 0; i < nslots; i++)
	{
		int			slot = io_shared->freelist[--io_shared->nfree];
		IoRequest  *req = &io_shared->requests[slot];
		int			tail;

		w->slots[i] = slot;
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
}

/*
 * Wait for every request of w (submitted for op on pages of path), free
 * them, and put the first error in *fail.
 */
static void
io_queue_await(IoWait *w, IoOp op, const char *path, const IoPage *pages,
			   IoFailure *fail)
{
	int		   *slots = w->slots;
	int			nslots = w->nslots;

	if (io_am_worker)
	{
		/* A request served while submitting sets no event: poll. */
		for (int i = 0; i < nslots; i++)
			while (slots[i] >= 0 &&
				   io_shared->requests[slots[i]].state != IO_REQ_DONE)
				io_wait(NULL, 10);
	}
	else
	{
		PG_ENSURE_ERROR_CLEANUP(io_queue_abandon, PointerGetDatum(w));
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
						io_queue_read_here(path, pages, slots, nslots, fail);
						if (slots[i] < 0)
							break;
						ConditionVariablePrepareToSleep(&req->cv);
					}
					io_wait(&req->cv, 10);
				}
				ConditionVariableCancelSleep();
			}
		}
		PG_END_ENSURE_ERROR_CLEANUP(io_queue_abandon, PointerGetDatum(w));
	}

	SpinLockAcquire(&io_shared->mutex);
	for (int i = 0; i < nslots; i++)
	{
		if (slots[i] < 0)
			continue;
		io_queue_note_error(w, i);
		io_slot_free(slots[i]);
		slots[i] = -1;
	}
	SpinLockRelease(&io_shared->mutex);
	ConditionVariableBroadcast(&io_shared->free_cv);

	if (w->fail.error != 0 && fail->error == 0)
		*fail = w->fail;
	pfree(slots);
}

/*
 * Queue one request per page (or one for a sync), wait for all, and put
 * the first error in *fail.
 */
static void
io_queue_run(IoOp op, const char *path, const IoPage *pages, int npages,
			 IoFailure *fail)
{
	IoWait		w;

	if (op != IO_OP_SYNC && op != IO_OP_FORGET && npages <= 0)
		return;
	io_queue_submit(&w, op, path, pages, npages);
	io_queue_await(&w, op, path, pages, fail);
}

/*
 * Read pages: batches the queue holds.
 */
static void
queue_read(const char *path, const IoPage *pages, int npages, IoFailure *fail)
{
	while (npages > 0 && fail->error == 0)
	{
		int			n = Min(npages, io_ring_entries);

		io_queue_run(IO_OP_READ, path, pages, n, fail);
		pages += n;
		npages -= n;
	}
}

/*
 * Write pages in batches the queue holds; with sync, the last page's
 * request carries the fdatasync, linked to its write.
 */
static void
queue_write(const char *path, const IoPage *pages, int npages, bool sync,
			IoFailure *fail)
{
	while (npages > (sync ? 1 : 0) && fail->error == 0)
	{
		int			n = Min(npages - (sync ? 1 : 0), io_ring_entries);

		io_queue_run(IO_OP_WRITE, path, pages, n, fail);
		pages += n;
		npages -= n;
	}
	if (sync && npages == 1 && fail->error == 0)
		io_queue_run(IO_OP_WRITE_SYNC, path, pages, 1, fail);
}

/*
 * Make a file durable.
 */
static void
queue_sync(const char *path, IoFailure *fail)
{
	io_queue_run(IO_OP_SYNC, path, NULL, 0, fail);
}

/*
 * Begin a write of pages that the caller does not wait for yet.
 */
static void *
queue_write_begin(const char *path, const IoPage *pages, int npages,
				  IoFailure *fail)
{
	IoWait	   *w = palloc(sizeof(IoWait));

	Assert(queue_detached == NULL && npages <= io_ring_entries);
	io_queue_submit(w, IO_OP_WRITE, path, pages, npages);
	queue_detached = w;
	return w;
}

/*
 * Wait for a write queue_write_begin began.
 */
static void
queue_write_finish(void *state, IoFailure *fail)
{
	IoWait	   *w = (IoWait *) state;

	queue_detached = NULL;
	io_queue_await(w, IO_OP_WRITE, NULL, NULL, fail);
	pfree(w);
}

/*
 * Abandon the write queue_write_begin began that is still under way, if
 * any: withdraw what the worker has not taken and wait for the rest
 * (io_queue_abandon).
 */
static void
queue_write_abandon(void)
{
	IoWait	   *w = queue_detached;

	queue_detached = NULL;
	if (w != NULL)
		io_queue_abandon(0, PointerGetDatum(w));
}

/*
 * Close the worker's handle on a file.
 */
static void
queue_forget(const char *path)
{
	IoFailure	fail = {0};

	io_queue_run(IO_OP_FORGET, path, NULL, 0, &fail);
}

const IoMethods io_queue_methods = {
	.name = "io_uring",
	.here = false,
	.read = queue_read,
	.write = queue_write,
	.sync = queue_sync,
	.forget = queue_forget,
	.write_begin = queue_write_begin,
	.write_finish = queue_write_finish,
	.write_abandon = queue_write_abandon
};
