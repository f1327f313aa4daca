/*-------------------------------------------------------------------------
 *
 * io_mmap.c
 *	  The mmap backend: each process maps the files itself.
 *
 * A process keeps one shared, read-only mapping per file, larger than the
 * file and grown by remapping, and copies pages out of it.  Writes do not
 * go through the mapping: a store into a page not yet mapped would cost a
 * page fault per 4 kB (and, past the old end, a zeroed page first), where
 * pwritev copies runs of pages into the page cache in one call, which the
 * mappings see.  Before a write past the end, the file is extended
 * (posix_fallocate never shrinks it, so two processes extending at once
 * cannot undo each other, and a full disk fails the write, not the sync).
 * A write its caller does not wait for (io_write_begin, a build's batch)
 * is the same pwritev, after which the kernel is asked to start writing
 * the pages back (sync_file_range through pg_flush_data), so that the
 * device writes them while the caller goes on.
 * Nothing past the end of the file as last seen is touched through the
 * mapping, so a damaged page map gives an error, not SIGBUS.  A file cut
 * short since (or a media error) does raise SIGBUS on the copy: a handler
 * installed only around the copies turns it into an error of the call,
 * EOF if the file is now too short, EIO otherwise.  fdatasync makes
 * written pages durable, through whichever descriptor of the file.
 *
 * A page the kernel's cache lacks is read by the copy's page fault, and
 * the kernel then reads around it, up to the device's read_ahead_kb per
 * fault (8 MB on the VM measured: 4 MB a fault on average for random
 * probes of a cold file).  For random probes (io_set_random_reads) the
 * mapping is advised MADV_RANDOM, so a fault reads only its own 4 kB, and
 * each read asks for its pages first (MADV_WILLNEED), so that an 8 kB page
 * comes in one read, not two; streaming scans keep the kernel's
 * read-around (MADV_NORMAL).  The advice changes only when a read finds it
 * differs.
 *
 * Each file's descriptor counts as one of PostgreSQL's external
 * descriptors, so that PostgreSQL closes its own virtual files to stay
 * within max_files_per_process; when PostgreSQL grants no more, the
 * process unmaps and closes all of its files before it opens the next.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io_internal.h"

#include "port/pg_iovec.h"
#include "storage/fd.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

/* Mappings grow in steps of this many bytes. */
#define MMAP_STEP			((Size) 64 * 1024 * 1024)

typedef struct MmapFile
{
	char		path[IO_PATH_LEN];	/* hash key */
	int			fd;
	char	   *base;			/* NULL until mapped */
	Size		maplen;
	uint64		filesize;		/* as last seen */
	bool		advised_random; /* the mapping is advised MADV_RANDOM */
} MmapFile;

static HTAB *mmap_files = NULL;

/*
 * Where a SIGBUS during a copy jumps to; set only around the copies.
 * volatile, so that the compiler keeps the stores around the copies
 * (memcpy touches no global it knows of, so they would look dead).
 */
static sigjmp_buf *volatile mmap_fault_jump = NULL;

/*
 * Unmap and close a file this process has.
 */
static void
mmap_close(MmapFile *f)
{
	if (f->base != NULL)
		munmap(f->base, f->maplen);
	close(f->fd);
	ReleaseExternalFD();
	hash_search(mmap_files, f->path, HASH_REMOVE, NULL);
}

/*
 * Find or open a file; returns NULL with *err set on failure.
 */
static MmapFile *
mmap_get(const char *path, int *err)
{
	MmapFile   *f;
	bool		found;
	struct stat st;
	char		key[IO_PATH_LEN];

	if (mmap_files == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = IO_PATH_LEN;
		ctl.entrysize = sizeof(MmapFile);
		ctl.hcxt = TopMemoryContext;
		mmap_files = hash_create("artrie mmap files", 64, &ctl,
								 HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	memset(key, 0, sizeof(key));
	strlcpy(key, path, IO_PATH_LEN);
	f = hash_search(mmap_files, key, HASH_FIND, NULL);
	if (f)
		return f;

	if (!AcquireExternalFD())
	{
		HASH_SEQ_STATUS seq;

		hash_seq_init(&seq, mmap_files);
		while ((f = hash_seq_search(&seq)) != NULL)
			mmap_close(f);
		ReserveExternalFD();
	}
	{
		int			fd = BasicOpenFile(path, O_RDWR | PG_BINARY);

		if (fd < 0)
		{
			*err = errno;
			ReleaseExternalFD();
			return NULL;
		}
		if (fstat(fd, &st) != 0)
		{
			*err = errno;
			close(fd);
			ReleaseExternalFD();
			return NULL;
		}
		f = hash_search(mmap_files, key, HASH_ENTER, &found);
		f->fd = fd;
		f->base = NULL;
		f->maplen = 0;
		f->filesize = st.st_size;
		f->advised_random = false;
	}
	return f;
}

/*
 * Make the mapping cover [0, end); end must not pass the file's end.
 */
static int
mmap_cover(MmapFile *f, uint64 end)
{
	Size		len;
	void	   *p;

	if (f->base != NULL && f->maplen >= end)
		return 0;
	len = ((end + MMAP_STEP - 1) / MMAP_STEP) * MMAP_STEP;
	if (f->base != NULL)
	{
		munmap(f->base, f->maplen);
		f->base = NULL;
		f->maplen = 0;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (p == MAP_FAILED)
		return errno;
	f->base = p;
	f->maplen = len;
	f->advised_random = false;
	return 0;
}

/*
 * Make sure the file holds [0, end): look again, then extend if asked.
 */
static int
mmap_ensure_size(MmapFile *f, uint64 end, bool extend)
{
	struct stat st;
	int			rc;

	if (f->filesize >= end)
		return 0;
	if (fstat(f->fd, &st) != 0)
		return errno;
	f->filesize = st.st_size;
	if (f->filesize >= end)
		return 0;
	if (!extend)
		return IO_ERR_EOF;
	rc = posix_fallocate(f->fd, f->filesize, end - f->filesize);
	if (rc != 0)
		return rc;
	f->filesize = end;
	return 0;
}

/*
 * SIGBUS while copying to or from a mapping: leave the copy.
 */
static void
mmap_sigbus(int signo)
{
	siglongjmp(*mmap_fault_jump, 1);
}

/*
 * The error of a copy that raised SIGBUS at offset: the end of the file if
 * it no longer holds the page, else a media error.
 */
static int
mmap_fault_error(MmapFile *f, uint64 offset)
{
	struct stat st;

	if (fstat(f->fd, &st) != 0)
		return errno;
	f->filesize = st.st_size;
	return (uint64) st.st_size < offset + IO_PAGE_SIZE ? IO_ERR_EOF : EIO;
}

/*
 * Copy pages out of the mapping, with a SIGBUS handler installed for just
 * these copies.  The mapping must cover them.
 */
static int
mmap_copy_out(MmapFile *f, const IoPage *pages, int npages)
{
	sigjmp_buf	jump;
	struct sigaction sa;
	struct sigaction old;
	volatile int done = 0;
	int			err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mmap_sigbus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old) != 0)
		return errno;
	if (sigsetjmp(jump, 1) == 0)
	{
		mmap_fault_jump = &jump;
		for (; done < npages; done++)
			memcpy(pages[done].buf, f->base + pages[done].offset, IO_PAGE_SIZE);
	}
	else
		err = -1;
	mmap_fault_jump = NULL;
	sigaction(SIGBUS, &old, NULL);
	if (err != 0)
		err = mmap_fault_error(f, pages[done].offset);
	return err;
}

/*
 * Write pages with pwritev, a run of pages at consecutive offsets (at most
 * PG_IOV_MAX of them) per call.
 */
static int
mmap_pwrite(MmapFile *f, const IoPage *pages, int npages)
{
	struct iovec iov[PG_IOV_MAX];
	int			i = 0;

	while (i < npages)
	{
		uint64		offset = pages[i].offset;
		int			n = 0;
		ssize_t		written;

		do
		{
			iov[n].iov_base = pages[i + n].buf;
			iov[n].iov_len = IO_PAGE_SIZE;
			n++;
		} while (n < PG_IOV_MAX && i + n < npages &&
				 pages[i + n].offset == offset + (uint64) n * IO_PAGE_SIZE);
		written = pg_pwritev_with_retry(f->fd, iov, n, offset);
		if (written < 0)
			return errno;
		if (written != (ssize_t) n * IO_PAGE_SIZE)
			return ENOSPC;
		i += n;
	}
	return 0;
}

/*
 * Advise the mapping for random probes or for streaming, as this process's
 * reads are now; a failed madvise leaves the kernel's default.
 */
static void
mmap_advise(MmapFile *f)
{
	if (f->advised_random == io_random_reads)
		return;
	(void) madvise(f->base, f->maplen,
				   io_random_reads ? MADV_RANDOM : MADV_NORMAL);
	f->advised_random = io_random_reads;
}

/*
 * Ask the kernel to read the pages about to be copied, a run of pages at
 * consecutive offsets per call, when the mapping is advised for random
 * probes.  Under MADV_RANDOM a fault reads only its own 4 kB, so copying
 * an 8 kB page the kernel's cache lacks would wait for two reads one after
 * the other; MADV_WILLNEED starts the whole page's read at once (and costs
 * a look into the kernel's cache when the page is there).  Streaming reads
 * need no hint: the kernel reads around their faults.
 */
static void
mmap_prefetch(MmapFile *f, const IoPage *pages, int npages)
{
	int			i = 0;

	if (!f->advised_random)
		return;
	while (i < npages)
	{
		uint64		offset = pages[i].offset;
		int			n = 1;

		while (i + n < npages &&
			   pages[i + n].offset == offset + (uint64) n * IO_PAGE_SIZE)
			n++;
		(void) madvise(f->base + offset, (Size) n * IO_PAGE_SIZE,
					   MADV_WILLNEED);
		i += n;
	}
}

/*
 * Copy pages out of the mapping.
 */
static void
mmap_read(const char *path, const IoPage *pages, int npages, IoFailure *fail)
{
	int			err = 0;
	MmapFile   *f = mmap_get(path, &err);
	uint64		end = 0;

	for (int i = 0; f != NULL && i < npages; i++)
		end = Max(end, pages[i].offset + IO_PAGE_SIZE);
	if (f != NULL &&
		(err = mmap_ensure_size(f, end, false)) == 0 &&
		(err = mmap_cover(f, end)) == 0)
	{
		mmap_advise(f);
		mmap_prefetch(f, pages, npages);
		err = mmap_copy_out(f, pages, npages);
	}
	if (err != 0)
	{
		fail->error = err;
		fail->op = IO_OP_READ;
		fail->offset = npages > 0 ? pages[0].offset : 0;
	}
}

/*
 * fdatasync the file: the kernel writes back every dirty page of it,
 * whichever process wrote it.
 */
static void
mmap_sync(const char *path, IoFailure *fail)
{
	int			err = 0;
	MmapFile   *f = mmap_get(path, &err);

	if (f != NULL && fdatasync(f->fd) != 0)
		err = errno;
	if (err != 0)
	{
		fail->error = err;
		fail->op = IO_OP_SYNC;
		fail->offset = 0;
	}
}

/*
 * Write pages, extending the file first if needed; then, with sync, make
 * them durable.
 */
static void
mmap_write(const char *path, const IoPage *pages, int npages, bool sync,
		   IoFailure *fail)
{
	int			err = 0;
	MmapFile   *f = mmap_get(path, &err);
	uint64		end = 0;

	for (int i = 0; f != NULL && i < npages; i++)
		end = Max(end, pages[i].offset + IO_PAGE_SIZE);
	if (f != NULL && (err = mmap_ensure_size(f, end, true)) == 0)
		err = mmap_pwrite(f, pages, npages);
	if (err != 0)
	{
		fail->error = err;
		fail->op = IO_OP_WRITE;
		fail->offset = npages > 0 ? pages[0].offset : 0;
		return;
	}
	if (sync)
		mmap_sync(path, fail);
}

/*
 * Write pages at once and have the kernel start writing them back, so
 * that a later fdatasync finds less to write: the write that runs while
 * the caller goes on is the device's.  Nothing is left to wait for.
 */
static void *
mmap_write_begin(const char *path, const IoPage *pages, int npages,
				 IoFailure *fail)
{
	int			err = 0;
	MmapFile   *f;
	uint64		lo = PG_UINT64_MAX;
	uint64		hi = 0;

	mmap_write(path, pages, npages, false, fail);
	if (fail->error != 0 || npages == 0 || (f = mmap_get(path, &err)) == NULL)
		return NULL;
	for (int i = 0; i < npages; i++)
	{
		lo = Min(lo, pages[i].offset);
		hi = Max(hi, pages[i].offset + IO_PAGE_SIZE);
	}
	pg_flush_data(f->fd, (off_t) lo, (off_t) (hi - lo));
	return NULL;
}

/* The write mmap_write_begin began is done already. */
static void
mmap_write_finish(void *state, IoFailure *fail)
{
}

/* Nothing of a write mmap_write_begin began is under way. */
static void
mmap_write_abandon(void)
{
}

/*
 * Unmap and close a file, if this process has it.
 */
static void
mmap_forget(const char *path)
{
	MmapFile   *f;
	char		key[IO_PATH_LEN];

	if (mmap_files == NULL)
		return;
	memset(key, 0, sizeof(key));
	strlcpy(key, path, IO_PATH_LEN);
	f = hash_search(mmap_files, key, HASH_FIND, NULL);
	if (f != NULL)
		mmap_close(f);
}

const IoMethods io_mmap_methods = {
	.name = "mmap",
	.here = true,
	.read = mmap_read,
	.write = mmap_write,
	.sync = mmap_sync,
	.forget = mmap_forget,
	.write_begin = mmap_write_begin,
	.write_finish = mmap_write_finish,
	.write_abandon = mmap_write_abandon
};
