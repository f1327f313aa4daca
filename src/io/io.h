/*-------------------------------------------------------------------------
 *
 * io.h
 *	  The I/O backends: one small interface over io_uring and mmap.
 *
 * Callers name a file by its path relative to the data directory and move
 * whole pages (IO_PAGE_SIZE bytes at offsets that are multiples of it).
 * Buffers must live in the main shared memory segment, because under
 * io_uring the io worker, not the caller, moves the bytes.  Every function
 * here either succeeds or raises an ERROR, a PANIC if a sync failed (the
 * written pages may be lost, see io_report); a failure never leaves a
 * request pending.
 *
 * Two backends, chosen by artrie.io_backend at server start, each behind
 * one table of methods (read, write a batch, sync, forget; io_internal.h):
 *
 * - io_uring: backends put requests in a queue in shared memory and sleep
 *	 on a condition variable (io_queue.c); the io worker (io_worker.c) owns
 *	 one ring (io_uring.c), drains every pending request into one
 *	 submission, opens files O_DIRECT and uses registered buffers when
 *	 RLIMIT_MEMLOCK allows.  With artrie.backend_reads a backend reads the
 *	 pages it misses itself (io_local.c).
 * - mmap (io_mmap.c): every process maps the files itself and copies pages
 *	 out of its mapping; it writes them with pwritev, and fdatasync makes
 *	 them durable.
 *
 * If the worker cannot set up io_uring at all, it says why and the whole
 * server runs on mmap.  This layer knows nothing of pages' contents, files'
 * meaning or the pager above it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_IO_H
#define ARTRIE_IO_H

#include "postgres.h"

#include "storage/condition_variable.h"

#define IO_PAGE_SIZE		8192
#define IO_PATH_LEN			64

/* Values of artrie.io_backend. */
typedef enum IoBackend
{
	IO_BACKEND_IO_URING,
	IO_BACKEND_MMAP
} IoBackend;

/* One page to move: where in the file, and the shared-memory buffer. */
typedef struct IoPage
{
	uint64		offset;
	char	   *buf;
} IoPage;

/* The kinds of process whose I/O is counted apart. */
typedef enum IoProcKind
{
	IO_PROC_BACKEND,
	IO_PROC_WORKER,
	IO_PROC_NKINDS
} IoProcKind;

/* A snapshot of one kind's counters (see io_get_stats). */
typedef struct IoStatsSnapshot
{
	uint64		reads;			/* pages read */
	uint64		writes;			/* pages written */
	uint64		read_bytes;
	uint64		write_bytes;
	uint64		syncs;			/* fdatasync calls */
	uint64		submissions;	/* io_uring_submit calls that sent SQEs */
	uint64		sqes;			/* SQEs sent by those submissions */
	uint64		requests;		/* requests handed to the io worker */
	uint64		wait_us;		/* time spent waiting for I/O */
} IoStatsSnapshot;

/* GUC variables. */
extern int	io_backend_setting;
extern int	io_ring_entries;
extern bool io_backend_reads;

/* Setup, from the pager's _PG_init and shared memory hooks. */
extern void io_define_gucs(void);
extern void io_define_startup_int(const char *name, const char *short_desc,
								  const char *long_desc, int *var, int boot,
								  int min, int max, int flags);
extern Size io_shmem_size(void);
extern void io_shmem_init(void);
extern void io_set_buffer_region(char *base, Size size);

/* The data path; each raises ERROR on failure. */
extern void io_read_pages(const char *path, const IoPage *pages, int npages);
extern void io_write_pages(const char *path, const IoPage *pages, int npages);
extern void io_write_sync(const char *path, const IoPage *pages, int npages);
extern void io_sync_file(const char *path);

/*
 * A write of a batch of pages that runs while its caller goes on: begun by
 * io_write_begin (at most io_batch_size() pages, one such write under way
 * per process), waited for by io_write_finish, which raises its error.
 * The buffers stay untouched until then.  If an ERROR or FATAL comes in
 * between, io_write_abandon, called where the buffers are given back
 * (the pager's release of a process's pins at an abort or at exit), waits
 * for the pages under way and withdraws the others, raising nothing.
 * Under mmap the pages are copied into the page cache at once and the
 * kernel starts writing them back.
 */
typedef struct IoWriting IoWriting;

extern IoWriting *io_write_begin(const char *path, const IoPage *pages,
								 int npages);
extern void io_write_finish(IoWriting *w);
extern void io_write_abandon(void);

/*
 * Reads of this process until changed are random probes (a page missed is
 * read without the pages around it); returns the previous setting.
 */
extern bool io_set_random_reads(bool random);

/* Cut a file short (its free tail); false if that failed. */
extern bool io_truncate_file(const char *path, uint64 size);

/* Close this process's (and the worker's) handles on a file. */
extern void io_forget_file(const char *path);

/*
 * One step of a wait for another process that its caller may leave by an
 * ERROR: the io worker serves its queue meanwhile; another process sleeps
 * on cv (its latch if NULL) for at most ms, and PostgreSQL serves a
 * cancel or termination there unless the caller's locks hold it off.
 */
extern void io_wait(ConditionVariable *cv, long ms);

/* Is an I/O into or out of this buffer still under way for a waiter that left? */
extern bool io_buffer_busy(const char *buf);

/* The largest batch worth handing over at once (the ring's size). */
extern int	io_batch_size(void);

/* The backend in use, which differs from the setting after a fallback. */
extern IoBackend io_backend_in_use(void);
extern const char *io_backend_name(IoBackend backend);

/* Statistics and state, for artrie_io_stats(). */
extern void io_get_stats(IoProcKind kind, IoStatsSnapshot *snap);
extern const char *io_buffer_mode(void);
extern const char *io_fallback_reason(void);

/* The io worker's side. */
extern bool io_in_worker(void);
extern void io_worker_start(void);
extern void io_worker_serve(long timeout_ms);
extern void io_worker_stop(void);

#endif							/* ARTRIE_IO_H */
