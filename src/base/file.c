// SPDX-License-Identifier: GPL-2.0-only
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"

/*
 * The temp-file registry (file.h): process state, like malloc's, and one
 * of the exceptions to "no mutable globals" (ARCHITECTURE.md).  A slot
 * holds a temp file's path while the file exists under that name.
 */
static char *_Atomic tmp_slots[FILE_TMP_SLOTS];
/*
 * Another thread may be creating a temp file when the handler runs (it
 * blocks the signals only for itself): threads count themselves in
 * `creating` around mkstemp and the listing, and the handler first sets
 * `dying` (no creation starts after that), then waits for the count to
 * drop before emptying the list.  Sequentially consistent atomics: a
 * creator either sees `dying` or is seen in `creating`.
 */
static atomic_uint tmp_creating;
static atomic_bool tmp_dying;

void file_tmp_cleanup(void)
{
	atomic_store(&tmp_dying, true);
	/* a creation is a few system calls: wait for it, at most about 2 s */
	for (int n = 0; atomic_load(&tmp_creating) && n < 2000; n++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	for (size_t i = 0; i < FILE_TMP_SLOTS; i++) {
		char *p = atomic_exchange(&tmp_slots[i], NULL);

		if (p)
			unlink(p);
	}
}

unsigned file_tmp_count(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < FILE_TMP_SLOTS; i++)
		n += atomic_load(&tmp_slots[i]) != NULL;
	return n;
}

static int tmp_list(char *path)
{
	for (int i = 0; i < FILE_TMP_SLOTS; i++) {
		char *none = NULL;

		if (atomic_compare_exchange_strong(&tmp_slots[i], &none, path))
			return i;
	}
	return -1;
}

/*
 * Take tmp off the list.  If a signal handler took it first (and removed
 * the file), tmp is dropped unfreed: the handler may still read it, and
 * the process is ending.
 */
static void tmp_unlist(struct file_out *o)
{
	if (o->slot < 0)
		return;
	if (!atomic_exchange(&tmp_slots[o->slot], NULL))
		o->tmp = NULL;
	o->slot = -1;
}

static void file_out_clear(struct file_out *o)
{
	tmp_unlist(o);
	mem_free(o->tmp);
	mem_free(o->dest);
	o->tmp = o->dest = NULL;
	o->fd = -1;
}

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* mkostemp with the handlers' signals held until the file is listed. */
static int tmp_create(struct file_out *o)
{
	sigset_t set, old;
	int fd, e;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	atomic_fetch_add(&tmp_creating, 1);
	if (atomic_load(&tmp_dying)) {
		/* a handler is removing the temp files: the process is ending */
		atomic_fetch_sub(&tmp_creating, 1);
		for (;;)
			pause();
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	e = errno;
	if (fd >= 0)
		o->slot = tmp_list(o->tmp);
	atomic_fetch_sub(&tmp_creating, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd;
}

int file_out_open(struct file_out *o, const char *path, struct diag *d)
{
	struct stat st;
	char *real;
	size_t n;
	int e;

	o->fd = -1;
	o->tmp = o->dest = NULL;
	o->slot = -1;
	if (path[0] == '-' && !path[1]) {
		fflush(stdout);
		o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
		if (o->fd < 0) {
			e = errno;
			return diag_err(d, e, "standard output: %s", strerror(e));
		}
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return diag_err(d, EISDIR, "%s: is a directory", path);
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			e = errno;
			return diag_err(d, e, "%s: cannot open for writing: %s", path, strerror(e));
		}
		return 0;
	}
	/* Through symlinks to the file replaced; a new path or a dangling link as given. */
	real = realpath(path, NULL);
	n = strlen(real ? real : path) + 16;
	o->dest = mem_alloc(n);
	o->tmp = mem_alloc(n);
	if (!o->dest || !o->tmp) {
		free(real);
		file_out_clear(o);
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	}
	snprintf(o->dest, n, "%s", real ? real : path);
	free(real);
	snprintf(o->tmp, n, "%s.XXXXXX", o->dest);
	o->fd = tmp_create(o);
	if (o->fd < 0) {
		e = errno;
		file_out_clear(o);
		return diag_err(d, e, "%s: cannot create a temporary file next to it: %s", path,
				strerror(e));
	}
	return 0;
}

void file_out_abort(struct file_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	tmp_unlist(o);
	if (o->tmp)
		unlink(o->tmp);
	file_out_clear(o);
}

int file_out_commit(struct file_out *o, const char *path, struct diag *d)
{
	struct stat st;
	mode_t mask;
	int e;

	if (!o->tmp) {
		if (close(o->fd) < 0) {
			e = errno;
			file_out_clear(o);
			return diag_err(d, e, "%s: writing failed: %s", path, strerror(e));
		}
		file_out_clear(o);
		return 0;
	}
	if (stat(o->dest, &st) == 0) {
		if (fchmod(o->fd, st.st_mode & 07777) == 0 && fchown(o->fd, st.st_uid, st.st_gid)) {
			/* ownership is kept only where permitted */
		}
	} else {
		mask = umask(0);
		umask(mask);
		if (fchmod(o->fd, 0644 & ~mask)) {
			/* the mkstemp mode (0600) stays */
		}
	}
	/*
	 * No fsync: rename makes the replacement atomic for every reader and
	 * against the process dying, which is what a build needs; durability
	 * across a power loss is the file system's (ext4 flushes data replaced
	 * by rename), as for the compiler's and linker's outputs.  An fsync per
	 * module was a tenth of a small module's run.  close still reports
	 * deferred write errors (NFS).
	 */
	if (close(o->fd) < 0) {
		e = errno;
		o->fd = -1;
		file_out_abort(o);
		return diag_err(d, e, "%s: writing failed: %s", path, strerror(e));
	}
	o->fd = -1;
	if (rename(o->tmp, o->dest) < 0) {
		e = errno;
		file_out_abort(o);
		return diag_err(d, e, "%s: cannot replace it: %s", path, strerror(e));
	}
	file_out_clear(o);
	return 0;
}

int file_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len, struct diag *d)
{
	struct file_out o;
	int err;

	if ((err = file_out_open(&o, path, d)))
		return err;
	if ((err = file_write_all(o.fd, data, len))) {
		file_out_abort(&o);
		return diag_err(d, -err, "%s: writing failed: %s", path, strerror(-err));
	}
	return file_out_commit(&o, path, d);
}
