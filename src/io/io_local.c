/*-------------------------------------------------------------------------
 *
 * io_local.c
 *	  Reads in the calling process under the io_uring backend
 *	  (artrie.backend_reads).
 *
 * A backend that misses a page reads it itself, with a plain read through
 * the kernel's page cache, instead of queueing a request and sleeping
 * until the io worker has read it.  That spares the round trip (two
 * wake-ups and two context switches per page), and the page cache keeps
 * the pages the small buffer pool evicts, as it does for PostgreSQL's own
 * buffers: the io worker reads and writes with O_DIRECT, so without this
 * every miss of a page the pool has evicted is a read from the device.
 *
 * A page is first asked for without waiting (preadv2 with RWF_NOWAIT): if
 * the page cache has it, that one call is the whole read.  If not, the
 * device must be read anyway.  A scan that streams through the trie asks
 * the kernel to read the aligned window of LOCAL_READ_AROUND bytes around
 * the page into the page cache (POSIX_FADV_WILLNEED) before the blocking
 * read: the pages it needs next are often near each other in the file (a
 * bulk build lays subtrees out together), and the device reads 128 kB
 * nearly as fast as 8 kB.  A random probe (io_set_random_reads: an exact
 * lookup, the start of any scan) needs only the page, and reading the
 * window for it would read 16 times the bytes it uses: it reads the page
 * alone, with the descriptor advised POSIX_FADV_RANDOM so that the
 * kernel's own readahead adds nothing either.
 *
 * The page cache stays coherent with the worker's O_DIRECT writes: the
 * kernel writes back and drops the cached pages a direct write covers.  A
 * physical page is written only while no page map points at it (see
 * pager_internal.h), so no read of it runs at the same time.  The callers
 * check every page they read (checksum, identity, write stamp) whichever
 * way it came.
 *
 * A process keeps a descriptor per file it has read, as the mmap backend
 * does.  Each counts as one of PostgreSQL's external descriptors, so that
 * PostgreSQL closes its own virtual files to stay within
 * max_files_per_process; when PostgreSQL grants no more (a third of the
 * descriptors it may use), the process closes all of its own before it
 * opens the next, so a session that reads from thousands of indexes over
 * its life keeps a bounded number open.  io_forget_file,
 * in whichever process removes a file, bumps a counter in shared memory; a
 * process that sees it changed closes all its descriptors before its next
 * read, so that none keeps a removed file's space or reaches it instead of
 * a later file of the same name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io/io_internal.h"

#include "storage/fd.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* Bytes read into the page cache around a page the cache misses. */
#define LOCAL_READ_AROUND	(128 * 1024)

typedef struct LocalFile
{
	char		path[IO_PATH_LEN];	/* hash key */
	int			fd;
	bool		advised_random; /* fd is advised POSIX_FADV_RANDOM */
} LocalFile;

static HTAB *local_files = NULL;
static uint32 local_forgets_seen = 0;

/*
 * Close this process's handles on every file.
 */
static void
local_close_all(void)
{
	HASH_SEQ_STATUS seq;
	LocalFile  *lf;

	hash_seq_init(&seq, local_files);
	while ((lf = hash_seq_search(&seq)) != NULL)
	{
		close(lf->fd);
		ReleaseExternalFD();
		hash_search(local_files, lf->path, HASH_REMOVE, NULL);
	}
}

/*
 * This process's descriptor of a file, opened on first use; NULL with
 * *err set if it cannot be opened.
 */
static LocalFile *
local_file(const char *path, int *err)
{
	LocalFile  *lf;
	bool		found;
	char		key[IO_PATH_LEN];
	uint32		forgets;

	if (local_files == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = IO_PATH_LEN;
		ctl.entrysize = sizeof(LocalFile);
		ctl.hcxt = TopMemoryContext;
		local_files = hash_create("artrie local reads", 64, &ctl,
								  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	forgets = pg_atomic_read_u32(&io_shared->forgets);
	if (forgets != local_forgets_seen)
	{
		local_close_all();
		local_forgets_seen = forgets;
	}
	memset(key, 0, sizeof(key));
	strlcpy(key, path, IO_PATH_LEN);
	lf = hash_search(local_files, key, HASH_FIND, NULL);
	if (lf)
		return lf;

	if (!AcquireExternalFD())
	{
		local_close_all();
		ReserveExternalFD();
	}
	{
		int			fd = BasicOpenFile(path, O_RDONLY | PG_BINARY);

		if (fd < 0)
		{
			*err = errno;
			ReleaseExternalFD();
			return NULL;
		}
		lf = hash_search(local_files, key, HASH_ENTER, &found);
		lf->fd = fd;
		lf->advised_random = false;
	}
	return lf;
}

/*
 * Read one page into buf: without waiting if the page cache has it, else
 * after asking for the window around it, or for a random probe the page
 * alone; 0 or an error as in IoRequest.error.
 */
static int
local_read_page(LocalFile *lf, char *buf, uint64 offset)
{
	struct iovec iov;
	int			done = 0;
	ssize_t		n;

	iov.iov_base = buf;
	iov.iov_len = IO_PAGE_SIZE;
	n = preadv2(lf->fd, &iov, 1, offset, RWF_NOWAIT);
	if (n > 0)
		done = n;
	else if (n < 0 && errno != EAGAIN && errno != EOPNOTSUPP &&
			 errno != EINTR)
		return errno;
	if (done < IO_PAGE_SIZE && lf->advised_random != io_random_reads)
	{
		(void) posix_fadvise(lf->fd, 0, 0, io_random_reads ?
							 POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
		lf->advised_random = io_random_reads;
	}
	if (done < IO_PAGE_SIZE && !io_random_reads)
		(void) posix_fadvise(lf->fd, offset - offset % LOCAL_READ_AROUND,
							 LOCAL_READ_AROUND, POSIX_FADV_WILLNEED);
	while (done < IO_PAGE_SIZE)
	{
		pgstat_report_wait_start(PG_WAIT_EXTENSION);
		n = pread(lf->fd, buf + done, IO_PAGE_SIZE - done, offset + done);
		pgstat_report_wait_end();
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return IO_ERR_EOF;
		done += n;
	}
	return 0;
}

/*
 * Read pages of a file in this process; on failure, *fail says where.
 */
void
iolocal_read(const char *path, const IoPage *pages, int npages,
			 IoFailure *fail)
{
	int			err = 0;
	LocalFile  *lf = local_file(path, &err);

	if (lf == NULL)
	{
		fail->error = err;
		fail->op = IO_OP_READ;
		fail->offset = npages > 0 ? pages[0].offset : 0;
		return;
	}
	for (int i = 0; i < npages; i++)
	{
		err = local_read_page(lf, pages[i].buf, pages[i].offset);
		if (err != 0)
		{
			fail->error = err;
			fail->op = IO_OP_READ;
			fail->offset = pages[i].offset;
			return;
		}
	}
}

/*
 * A file is going away: every process closes its handles before its next
 * read.
 */
void
iolocal_forget(void)
{
	pg_atomic_fetch_add_u32(&io_shared->forgets, 1);
}
