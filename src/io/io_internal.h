/*-------------------------------------------------------------------------
 *
 * io_internal.h
 *	  Shared state of the I/O backends (the request queue, counters), the
 *	  method table each backend fills, and the entry points the files of
 *	  this layer give each other.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_IO_INTERNAL_H
#define ARTRIE_IO_INTERNAL_H

#include "io/io.h"

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"

/* What a request asks the worker to do. */
typedef enum IoOp
{
	IO_OP_READ,
	IO_OP_WRITE,
	IO_OP_SYNC,
	IO_OP_WRITE_SYNC,			/* write, then fdatasync, linked */
	IO_OP_FORGET				/* close the worker's handle on the file */
} IoOp;

typedef enum IoReqState
{
	IO_REQ_FREE,
	IO_REQ_PENDING,				/* queued, not yet taken by the worker */
	IO_REQ_INFLIGHT,			/* taken by the worker */
	IO_REQ_DONE					/* finished; error says how */
} IoReqState;

/* An error that is no errno: a read met the end of the file. */
#define IO_ERR_EOF			(-1)

/* One page-sized request slot in shared memory. */
typedef struct IoRequest
{
	volatile int state;
	IoOp		op;
	char		path[IO_PATH_LEN];
	uint64		offset;
	char	   *buf;
	uint32		done;			/* bytes moved so far (short transfers) */
	int			error;			/* 0, an errno, or IO_ERR_EOF */
	bool		abandoned;		/* its waiter left: free it when done */
	bool		sync_failed;	/* error came from the fsync, not a write */
	ConditionVariable cv;		/* broadcast when state becomes DONE */
} IoRequest;

/* Counters of one kind of process. */
typedef struct IoCounters
{
	pg_atomic_uint64 reads;
	pg_atomic_uint64 writes;
	pg_atomic_uint64 read_bytes;
	pg_atomic_uint64 write_bytes;
	pg_atomic_uint64 syncs;
	pg_atomic_uint64 submissions;
	pg_atomic_uint64 sqes;
	pg_atomic_uint64 requests;
	pg_atomic_uint64 wait_us;
} IoCounters;

typedef struct IoShared
{
	slock_t		mutex;			/* protects the free list and the queue */
	int			nrequests;
	int			nfree;
	int			pending_head;	/* index into pending[] of the oldest */
	int			npending;
	int			nabandoned;		/* requests whose waiter left */
	ConditionVariable free_cv;	/* broadcast when slots are freed */
	Latch	   *worker_latch;	/* NULL while no worker runs */
	pg_atomic_uint32 backend_in_use;	/* an IoBackend */
	pg_atomic_uint32 forgets;	/* files removed, for io_local.c */
	char	   *region_base;	/* the buffer pool, for fixed buffers */
	Size		region_size;
	char		buffer_mode[32];
	char		fallback_reason[256];
	IoCounters	counters[IO_PROC_NKINDS];
	int		   *freelist;		/* nrequests slot numbers */
	int		   *pending;		/* circular, nrequests slot numbers */
	IoRequest  *requests;
} IoShared;

extern IoShared *io_shared;
extern bool io_am_worker;

/* This process's reads are random probes (io_set_random_reads). */
extern bool io_random_reads;

/* Values of artrie.debug_fault. */
typedef enum IoFault
{
	IO_FAULT_NONE,
	IO_FAULT_SYNC,				/* every sync this session asks for fails */
	IO_FAULT_WRITE				/* every write this session asks for fails */
} IoFault;

extern int	io_debug_fault;

/*
 * Where an operation failed: 0 or an errno (or IO_ERR_EOF), the operation
 * that failed (IO_OP_SYNC when the sync after a write did) and the offset.
 */
typedef struct IoFailure
{
	int			error;
	IoOp		op;
	uint64		offset;
} IoFailure;

/*
 * A backend, as the calling process sees it: read pages, write a batch of
 * pages (then make them durable if sync), make a file durable, close this
 * process's handles on a file, and write a batch while the caller goes
 * on.  Each fills *fail on failure and leaves it alone on success.  here:
 * the bytes move in the calling process, whose counters count them (else
 * the io worker counts them).
 */
typedef struct IoMethods
{
	const char *name;
	bool		here;
	void		(*read) (const char *path, const IoPage *pages, int npages,
						 IoFailure *fail);
	void		(*write) (const char *path, const IoPage *pages, int npages,
						  bool sync, IoFailure *fail);
	void		(*sync) (const char *path, IoFailure *fail);
	void		(*forget) (const char *path);

	/*
	 * A write that runs while the caller goes on (io_write_begin): begin it
	 * (the state to pass on), wait for it, or abandon the process's write
	 * under way, if any, after an ERROR or FATAL.
	 */
	void	   *(*write_begin) (const char *path, const IoPage *pages,
								int npages, IoFailure *fail);
	void		(*write_finish) (void *state, IoFailure *fail);
	void		(*write_abandon) (void);
} IoMethods;

/* mmap (io_mmap.c): every process maps the files itself. */
extern const IoMethods io_mmap_methods;

/* io_uring from a backend (io_queue.c): requests to the io worker. */
extern const IoMethods io_queue_methods;

/* Reads in the calling process under io_uring (io_local.c). */
extern void iolocal_read(const char *path, const IoPage *pages, int npages,
						 IoFailure *fail);
extern void iolocal_forget(void);

/* Counting, in io.c. */
extern void io_count(IoProcKind kind, IoOp op, int npages);
extern IoProcKind io_my_kind(void);

/* The queue's worker side (io_queue.c). */
extern bool io_queue_pop(int *slot);
extern void io_queue_push_front(int slot);
extern void io_request_finish(int slot, int error);
extern void io_queue_fail_taken(void);

/*
 * The ring (io_uring.c), driven by the worker's loop (io_worker.c):
 * uring_start sets it up and says how it reaches buffers (*mode, and in
 * reason why it fell back, "" if it did not); false, with the reason, if
 * io_uring cannot be used at all.  uring_work reaps completions and
 * submits every pending request; uring_backlog says SQEs wait for a
 * submit that failed, to be tried again soon.
 */
extern bool uring_start(const char **mode, char *reason, Size reason_len);
extern int	uring_eventfd(void);
extern void uring_work(void);
extern bool uring_backlog(void);
extern void uring_stop(void);

#endif							/* ARTRIE_IO_INTERNAL_H */
