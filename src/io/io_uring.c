/*-------------------------------------------------------------------------
 *
 * io_uring.c
 *	  The io worker's ring: requests of the shared queue become SQEs.
 *
 * The worker (io_worker.c) owns one ring.  Each uring_work drains every
 * pending request of the shared queue into SQEs and sends them in one
 * io_uring_submit, then reaps completions; the worker sleeps on the
 * eventfd registered with the ring (completions) among its other events.
 *
 * Buffers: if RLIMIT_MEMLOCK allows, the whole buffer pool is registered
 * and pages move with READ_FIXED/WRITE_FIXED straight into and out of the
 * pool; else a staging area that fits the limit is registered and pages
 * are copied through it; else plain READ/WRITE.  Files are opened
 * O_DIRECT (without it, with a LOG, where the file system refuses).
 * uring_start says which, and why it fell back, for the worker to log
 * once and show in the statistics.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <liburing.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io_internal.h"

#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

/* How the ring reaches buffers. */
typedef enum UringBufMode
{
	URING_BUF_POOL,
	URING_BUF_STAGING,
	URING_BUF_PLAIN
} UringBufMode;

/* One registered buffer may not exceed 1 GiB. */
#define URING_MAX_REG_BUF	((Size) 1024 * 1024 * 1024)

/* user_data: slot number, and whether the CQE is a linked fsync. */
#define URING_SYNC_TAG		((uint64) 1 << 32)

/* user_data of a merged write: its group number and this tag. */
#define URING_GROUP_TAG		((uint64) 2 << 32)

/*
 * Writes of consecutive pages of one file queued one after the other (a
 * checkpoint's sorted batch) go out as one WRITEV of up to this many
 * pages: many moderate SQEs rather than a great many tiny ones.
 */
#define URING_MAX_MERGE		8

typedef struct UringFile
{
	char		path[IO_PATH_LEN];	/* hash key */
	int			fd;
	uint64		allocated;		/* bytes known to be allocated */
} UringFile;

/*
 * Files grow in steps allocated ahead of the writes (an O_DIRECT write past
 * the end of a file is done synchronously by the file system, one at a
 * time): an eighth of the file's size, at least URING_EXTEND_MIN and at
 * most URING_EXTEND_MAX bytes, so that a small index stays small and a
 * large one grows in few steps.
 */
#define URING_EXTEND_MIN	((uint64) 8 * IO_PAGE_SIZE)
#define URING_EXTEND_MAX	((uint64) 8 * 1024 * 1024)

/* A merged write in flight. */
typedef struct UringGroup
{
	int			nslots;
	int			slots[URING_MAX_MERGE];
	struct iovec iov[URING_MAX_MERGE];
} UringGroup;

/* Per request slot, what the worker keeps while it is in flight. */
typedef struct UringSlot
{
	int			staging;		/* staging buffer, or -1 */
	bool		resubmit;		/* the write part of a link came back short */
	int			write_error;	/* the write part of a link failed */
} UringSlot;

static struct io_uring ring;
static bool ring_ready = false;
static int	ring_eventfd = -1;
static UringBufMode buf_mode = URING_BUF_PLAIN;
static char *staging_base = NULL;
static int	staging_count = 0;
static int *staging_free = NULL;
static int	staging_nfree = 0;
static UringSlot *uslots = NULL;
static UringGroup *groups = NULL;
static int *group_free = NULL;
static int	group_nfree = 0;
static int *retry_slots = NULL;
static int	nretry = 0;
static int	inflight = 0;
static bool submit_failed = false;	/* SQEs wait for io_uring_submit */
static bool direct_warned = false;
static HTAB *uring_files = NULL;

/*
 * Register the buffer pool, else a staging area, else nothing; *mode says
 * which, and reason why it fell back ("" if it did not).
 */
static void
uring_register_buffers(const char **mode, char *reason, Size reason_len)
{
	struct rlimit rl;
	Size		pool = io_shared->region_size;
	uint64		limit;
	int			rc;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		rl.rlim_cur = 0;
	limit = rl.rlim_cur == RLIM_INFINITY ? PG_UINT64_MAX : (uint64) rl.rlim_cur;

	if (pool > 0 && limit >= pool)
	{
		int			niov = (pool + URING_MAX_REG_BUF - 1) / URING_MAX_REG_BUF;
		struct iovec *iov = palloc(sizeof(struct iovec) * niov);

		for (int i = 0; i < niov; i++)
		{
			iov[i].iov_base = io_shared->region_base + (Size) i * URING_MAX_REG_BUF;
			iov[i].iov_len = Min(URING_MAX_REG_BUF, pool - (Size) i * URING_MAX_REG_BUF);
		}
		rc = io_uring_register_buffers(&ring, iov, niov);
		pfree(iov);
		if (rc == 0)
		{
			buf_mode = URING_BUF_POOL;
			*mode = "pool";
			reason[0] = '\0';
			return;
		}
		snprintf(reason, reason_len,
				 "could not register the buffer pool (%zu kB) with io_uring: %s; using a registered staging area",
				 pool / 1024, strerror(-rc));
	}
	else
		snprintf(reason, reason_len,
				 "the buffer pool (%zu kB) exceeds RLIMIT_MEMLOCK (" UINT64_FORMAT " kB); using a registered staging area",
				 pool / 1024, limit / 1024);

	/* A staging area: a ring's worth of pages, or what half the limit allows. */
	staging_count = Min((uint64) io_ring_entries, limit / 2 / IO_PAGE_SIZE);
	if (staging_count >= 8)
	{
		struct iovec iov;

		staging_base = mmap(NULL, (Size) staging_count * IO_PAGE_SIZE,
							PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (staging_base == MAP_FAILED)
			ereport(FATAL,
					(errmsg("artrie io worker: could not allocate a staging area: %m")));
		iov.iov_base = staging_base;
		iov.iov_len = (Size) staging_count * IO_PAGE_SIZE;
		rc = io_uring_register_buffers(&ring, &iov, 1);
		if (rc == 0)
		{
			buf_mode = URING_BUF_STAGING;
			staging_free = MemoryContextAlloc(TopMemoryContext, sizeof(int) * staging_count);
			for (int i = 0; i < staging_count; i++)
				staging_free[i] = i;
			staging_nfree = staging_count;
			*mode = "staging";
			return;
		}
		munmap(staging_base, (Size) staging_count * IO_PAGE_SIZE);
		staging_base = NULL;
		snprintf(reason + strlen(reason), reason_len - strlen(reason),
				 "; could not register a staging area: %s; using plain reads and writes",
				 strerror(-rc));
	}
	else
		snprintf(reason + strlen(reason), reason_len - strlen(reason),
				 "; RLIMIT_MEMLOCK is too small for a staging area; using plain reads and writes");
	staging_count = 0;
	buf_mode = URING_BUF_PLAIN;
	*mode = "plain";
}

/*
 * Set up the ring, its eventfd and its buffers; false, with the reason, if
 * io_uring cannot be set up at all.
 */
bool
uring_start(const char **mode, char *reason, Size reason_len)
{
	struct io_uring_params params;
	int			rc;
	HASHCTL		ctl;

	memset(&params, 0, sizeof(params));
	rc = io_uring_queue_init_params(io_ring_entries, &ring, &params);
	if (rc < 0)
	{
		snprintf(reason, reason_len,
				 "could not set up io_uring (%s); serving on the mmap backend",
				 strerror(-rc));
		return false;
	}
	ring_eventfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ring_eventfd < 0 ||
		(rc = io_uring_register_eventfd(&ring, ring_eventfd)) < 0)
		ereport(FATAL,
				(errmsg("artrie io worker: could not register an eventfd with io_uring")));

	ctl.keysize = IO_PATH_LEN;
	ctl.entrysize = sizeof(UringFile);
	ctl.hcxt = TopMemoryContext;
	uring_files = hash_create("artrie io_uring files", 64, &ctl,
							  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	uslots = MemoryContextAllocZero(TopMemoryContext, sizeof(UringSlot) * io_shared->nrequests);
	retry_slots = MemoryContextAlloc(TopMemoryContext, sizeof(int) * io_shared->nrequests);
	groups = MemoryContextAlloc(TopMemoryContext, sizeof(UringGroup) * io_ring_entries);
	group_free = MemoryContextAlloc(TopMemoryContext, sizeof(int) * io_ring_entries);
	for (int i = 0; i < io_ring_entries; i++)
		group_free[i] = i;
	group_nfree = io_ring_entries;

	uring_register_buffers(mode, reason, reason_len);
	ring_ready = true;
	return true;
}

/*
 * The eventfd the ring signals completions on.
 */
int
uring_eventfd(void)
{
	return ring_eventfd;
}

/*
 * Close the ring at exit.
 */
void
uring_stop(void)
{
	if (ring_ready)
	{
		io_uring_queue_exit(&ring);
		ring_ready = false;
	}
}

/*
 * The worker's handle on a file, opened O_DIRECT; NULL with errno set.
 */
static UringFile *
uring_file(const char *path)
{
	char		key[IO_PATH_LEN];
	UringFile  *f;
	bool		found;
	int			fd;
	struct stat st;

	memset(key, 0, sizeof(key));
	strlcpy(key, path, IO_PATH_LEN);
	f = hash_search(uring_files, key, HASH_FIND, NULL);
	if (f)
		return f;
	fd = BasicOpenFile(path, O_RDWR | PG_O_DIRECT | PG_BINARY);
	if (fd < 0 && errno == EINVAL)
	{
		int			save = errno;

		fd = BasicOpenFile(path, O_RDWR | PG_BINARY);
		if (fd >= 0 && !direct_warned)
		{
			direct_warned = true;
			errno = save;
			ereport(LOG,
					(errmsg("artrie io worker: could not open \"%s\" with O_DIRECT: %m; using the page cache",
							path)));
		}
	}
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0)
	{
		int			save = errno;

		close(fd);
		errno = save;
		return NULL;
	}
	f = hash_search(uring_files, key, HASH_ENTER, &found);
	f->fd = fd;
	f->allocated = st.st_size;
	return f;
}

/*
 * Allocate the file up to at least end before a write there; 0 or errno.
 */
static int
uring_extend(UringFile *f, uint64 end)
{
	uint64		step;
	uint64		target;
	int			rc;

	if (end <= f->allocated)
		return 0;
	step = f->allocated / 8 / IO_PAGE_SIZE * IO_PAGE_SIZE;
	step = Min(Max(step, URING_EXTEND_MIN), URING_EXTEND_MAX);
	target = Max(end, f->allocated + step);
	rc = posix_fallocate(f->fd, f->allocated, target - f->allocated);
	if (rc != 0)
		return rc;
	f->allocated = target;
	return 0;
}

/*
 * Close the worker's descriptor for a file.
 */
static void
uring_forget(const char *path)
{
	char		key[IO_PATH_LEN];
	UringFile  *f;

	memset(key, 0, sizeof(key));
	strlcpy(key, path, IO_PATH_LEN);
	f = hash_search(uring_files, key, HASH_FIND, NULL);
	if (f)
	{
		close(f->fd);
		hash_search(uring_files, key, HASH_REMOVE, NULL);
	}
}

/*
 * Is this request's buffer inside the registered pool?
 */
static bool
uring_in_pool(const char *buf)
{
	return buf >= io_shared->region_base &&
		buf + IO_PAGE_SIZE <= io_shared->region_base + io_shared->region_size;
}

/*
 * Fill an SQE for the data part of a read or write.
 */
static void
uring_prep_data(struct io_uring_sqe *sqe, int fd, int slot)
{
	IoRequest  *req = &io_shared->requests[slot];
	UringSlot  *us = &uslots[slot];
	bool		is_read = (req->op == IO_OP_READ);
	unsigned	len = IO_PAGE_SIZE - req->done;
	uint64		off = req->offset + req->done;

	if (us->staging >= 0)
	{
		char	   *b = staging_base + (Size) us->staging * IO_PAGE_SIZE + req->done;

		if (is_read)
			io_uring_prep_read_fixed(sqe, fd, b, len, off, 0);
		else
			io_uring_prep_write_fixed(sqe, fd, b, len, off, 0);
	}
	else if (buf_mode == URING_BUF_POOL && uring_in_pool(req->buf))
	{
		char	   *b = req->buf + req->done;
		int			idx = (req->buf - io_shared->region_base) / URING_MAX_REG_BUF;

		if (is_read)
			io_uring_prep_read_fixed(sqe, fd, b, len, off, idx);
		else
			io_uring_prep_write_fixed(sqe, fd, b, len, off, idx);
	}
	else if (is_read)
		io_uring_prep_read(sqe, fd, req->buf + req->done, len, off);
	else
		io_uring_prep_write(sqe, fd, req->buf + req->done, len, off);
	io_uring_sqe_set_data64(sqe, (uint64) slot);
}

/*
 * Turn one request into SQEs; false if the ring or the staging area is
 * full and it must wait.
 */
static bool
uring_prep(int slot, bool first)
{
	IoRequest  *req = &io_shared->requests[slot];
	UringSlot  *us = &uslots[slot];
	int			need = (req->op == IO_OP_WRITE_SYNC) ? 2 : 1;
	UringFile  *file;
	int			fd;
	int			err;
	struct io_uring_sqe *sqe;

	if (req->op == IO_OP_FORGET)
	{
		uring_forget(req->path);
		io_request_finish(slot, 0);
		return true;
	}
	if (io_uring_sq_space_left(&ring) < (unsigned) need ||
		inflight + need > io_ring_entries)
		return false;

	if (first)
	{
		us->staging = -1;
		us->resubmit = false;
		us->write_error = 0;
		if (req->op != IO_OP_SYNC && buf_mode == URING_BUF_STAGING)
		{
			if (staging_nfree == 0)
				return false;
			us->staging = staging_free[--staging_nfree];
			if (req->op != IO_OP_READ)
				memcpy(staging_base + (Size) us->staging * IO_PAGE_SIZE, req->buf, IO_PAGE_SIZE);
		}
	}

	file = uring_file(req->path);
	err = file ? 0 : errno;
	if (file && req->op != IO_OP_READ && req->op != IO_OP_SYNC)
		err = uring_extend(file, req->offset + IO_PAGE_SIZE);
	if (err != 0)
	{
		if (us->staging >= 0)
			staging_free[staging_nfree++] = us->staging;
		us->staging = -1;
		io_request_finish(slot, err);
		return true;
	}
	fd = file->fd;

	sqe = io_uring_get_sqe(&ring);
	if (req->op == IO_OP_SYNC)
	{
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		io_uring_sqe_set_data64(sqe, (uint64) slot);
	}
	else
	{
		uring_prep_data(sqe, fd, slot);
		if (req->op == IO_OP_WRITE_SYNC)
		{
			sqe->flags |= IOSQE_IO_LINK;
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
			io_uring_sqe_set_data64(sqe, (uint64) slot | URING_SYNC_TAG);
		}
	}
	inflight += need;
	return true;
}

/*
 * Take the writes queued right after first that continue it (same file,
 * next pages) and send them all as one WRITEV.  false if none does: then
 * first goes out on its own.
 */
static bool
uring_prep_merged(int first)
{
	IoRequest  *req = &io_shared->requests[first];
	UringGroup *g;
	int			gid;
	int			slots[URING_MAX_MERGE];
	int			n = 1;
	int			next;
	UringFile  *file;
	int			err;
	struct io_uring_sqe *sqe;

	if (req->op != IO_OP_WRITE || group_nfree == 0 ||
		io_uring_sq_space_left(&ring) < 1 || inflight + 1 > io_ring_entries)
		return false;
	slots[0] = first;
	while (n < URING_MAX_MERGE && io_queue_pop(&next))
	{
		IoRequest  *r = &io_shared->requests[next];

		if (r->op != IO_OP_WRITE || strcmp(r->path, req->path) != 0 ||
			r->offset != req->offset + (uint64) n * IO_PAGE_SIZE)
		{
			io_queue_push_front(next);
			break;
		}
		slots[n++] = next;
	}
	if (n == 1)
		return false;

	file = uring_file(req->path);
	err = file ? 0 : errno;
	if (file)
		err = uring_extend(file, req->offset + (uint64) n * IO_PAGE_SIZE);
	if (err != 0)
	{
		for (int i = 0; i < n; i++)
			io_request_finish(slots[i], err);
		return true;
	}

	gid = group_free[--group_nfree];
	g = &groups[gid];
	g->nslots = n;
	for (int i = 0; i < n; i++)
	{
		IoRequest  *r = &io_shared->requests[slots[i]];

		g->slots[i] = slots[i];
		g->iov[i].iov_base = r->buf;
		g->iov[i].iov_len = IO_PAGE_SIZE;
		uslots[slots[i]].staging = -1;
		uslots[slots[i]].resubmit = false;
		uslots[slots[i]].write_error = 0;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_writev(sqe, file->fd, g->iov, n, req->offset);
	io_uring_sqe_set_data64(sqe, (uint64) gid | URING_GROUP_TAG);
	inflight++;
	return true;
}

/*
 * Finish a request: copy a staged read out, then finish it in the queue
 * (which counts it and wakes its owner).
 */
static void
uring_finish(int slot, int error)
{
	IoRequest  *req = &io_shared->requests[slot];
	UringSlot  *us = &uslots[slot];

	if (us->staging >= 0)
	{
		if (error == 0 && req->op == IO_OP_READ)
			memcpy(req->buf, staging_base + (Size) us->staging * IO_PAGE_SIZE, IO_PAGE_SIZE);
		staging_free[staging_nfree++] = us->staging;
		us->staging = -1;
	}
	io_request_finish(slot, error);
}

/*
 * Handle one completion.
 */
static void
uring_complete(uint64 data, int res)
{
	int			slot = (int) (data & 0xFFFFFFFF);
	bool		sync_part = (data & URING_SYNC_TAG) != 0;
	IoRequest  *req = &io_shared->requests[slot];
	UringSlot  *us = &uslots[slot];

	inflight--;

	if (data & URING_GROUP_TAG)
	{
		/* A merged write: pages not fully written go again one by one. */
		UringGroup *g = &groups[slot];
		Size		left = res > 0 ? (Size) res : 0;

		for (int i = 0; i < g->nslots; i++)
		{
			IoRequest  *r = &io_shared->requests[g->slots[i]];

			if (res < 0 && res != -EINTR && res != -EAGAIN)
			{
				uring_finish(g->slots[i], -res);
				continue;
			}
			r->done = Min(left, IO_PAGE_SIZE);
			left -= r->done;
			if (r->done == IO_PAGE_SIZE)
				uring_finish(g->slots[i], 0);
			else
				retry_slots[nretry++] = g->slots[i];
		}
		group_free[group_nfree++] = slot;
		return;
	}

	if (req->op == IO_OP_WRITE_SYNC && !sync_part)
	{
		/* The write half of a link; its fsync's CQE decides. */
		if (res == -EINTR || res == -EAGAIN)
			us->resubmit = true;
		else if (res < 0)
			us->write_error = -res;
		else
		{
			req->done += res;
			if (req->done < IO_PAGE_SIZE)
				us->resubmit = true;
		}
		return;
	}
	if (req->op == IO_OP_WRITE_SYNC)
	{
		if (us->write_error != 0)
			uring_finish(slot, us->write_error);
		else if (us->resubmit || res == -EINTR || res == -EAGAIN ||
				 (res == -ECANCELED && req->done < IO_PAGE_SIZE))
		{
			us->resubmit = false;
			retry_slots[nretry++] = slot;
		}
		else if (res < 0)
		{
			req->sync_failed = true;
			uring_finish(slot, -res);
		}
		else
			uring_finish(slot, 0);
		return;
	}

	if (res == -EINTR || res == -EAGAIN)
	{
		retry_slots[nretry++] = slot;
		return;
	}
	if (res < 0)
	{
		uring_finish(slot, -res);
		return;
	}
	if (req->op == IO_OP_SYNC)
	{
		uring_finish(slot, 0);
		return;
	}
	if (res == 0)
	{
		uring_finish(slot, req->op == IO_OP_READ ? IO_ERR_EOF : EIO);
		return;
	}
	req->done += res;
	if (req->done < IO_PAGE_SIZE)
		retry_slots[nretry++] = slot;
	else
		uring_finish(slot, 0);
}

/*
 * Reap every completion there is.
 */
static void
uring_reap(void)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&ring, &cqe) == 0)
	{
		uint64		data = io_uring_cqe_get_data64(cqe);
		int			res = cqe->res;

		io_uring_cqe_seen(&ring, cqe);
		uring_complete(data, res);
	}
}

/*
 * Drain retries, then pending requests, into SQEs and submit them at once.
 */
static void
uring_submit(void)
{
	int			slot;
	int			rc;

	while (nretry > 0)
	{
		if (!uring_prep(retry_slots[0], false))
			break;
		nretry--;
		memmove(retry_slots, retry_slots + 1, sizeof(int) * nretry);
	}
	while (nretry == 0 && io_queue_pop(&slot))
	{
		if (uring_prep_merged(slot))
			continue;
		if (!uring_prep(slot, true))
		{
			io_queue_push_front(slot);
			break;
		}
	}
	if (io_uring_sq_ready(&ring) == 0)
		return;
	for (;;)
	{
		unsigned	ready = io_uring_sq_ready(&ring);

		rc = io_uring_submit(&ring);
		if (rc >= 0)
		{
			pg_atomic_fetch_add_u64(&io_shared->counters[IO_PROC_WORKER].submissions, 1);
			pg_atomic_fetch_add_u64(&io_shared->counters[IO_PROC_WORKER].sqes, ready);
			submit_failed = false;
			if ((unsigned) rc >= ready)
				break;
			continue;
		}
		if (rc == -EINTR)
			continue;
		if (rc == -EAGAIN || rc == -EBUSY)
		{
			uring_reap();
			pg_usleep(100);
			continue;
		}


		/*
		 * Keep the SQEs and submit them again at the next serve, soon: the
		 * callers wait (and can be cancelled) rather than lose the worker.
		 */
		if (!submit_failed)
			ereport(LOG,
					(errmsg("artrie io worker: io_uring_submit failed: %s; trying again",
							strerror(-rc))));
		submit_failed = true;
		return;
	}
}

/*
 * Reap every completion, then submit everything pending in one go.
 */
void
uring_work(void)
{
	uring_reap();
	uring_submit();
}

/*
 * Do SQEs wait for a submit that failed?
 */
bool
uring_backlog(void)
{
	return submit_failed;
}
