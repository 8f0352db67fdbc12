// SPDX-License-Identifier: GPL-2.0-only
#include "base/file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"

int file_tmp_open(const char *path, char **tmp_name, int *fd, struct diag *d)
{
	size_t n = strlen(path) + 16;
	char *tmp = mem_alloc(n);

	*tmp_name = NULL;
	*fd = -1;
	if (!tmp)
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	snprintf(tmp, n, "%s.XXXXXX", path);
	*fd = mkstemp(tmp);
	if (*fd < 0) {
		int e = errno;

		mem_free(tmp);
		return diag_err(d, e, "%s: cannot create a temporary file next to it: %s", path,
				strerror(e));
	}
	*tmp_name = tmp;
	return 0;
}

void file_tmp_abort(char *tmp_name, int fd)
{
	if (fd >= 0)
		close(fd);
	if (tmp_name) {
		unlink(tmp_name);
		mem_free(tmp_name);
	}
}

int file_tmp_commit(const char *path, char *tmp_name, int fd, struct diag *d)
{
	struct stat st;
	mode_t mask;
	int e;

	if (stat(path, &st) == 0) {
		if (fchmod(fd, st.st_mode & 07777) == 0 && fchown(fd, st.st_uid, st.st_gid)) {
			/* ownership is kept only where permitted */
		}
	} else {
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0644 & ~mask)) {
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
	if (close(fd) < 0) {
		e = errno;
		file_tmp_abort(tmp_name, -1);
		return diag_err(d, e, "%s: writing failed: %s", path, strerror(e));
	}
	if (rename(tmp_name, path) < 0) {
		e = errno;
		file_tmp_abort(tmp_name, -1);
		return diag_err(d, e, "%s: cannot replace it: %s", path, strerror(e));
	}
	mem_free(tmp_name);
	return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len, struct diag *d)
{
	const char *p = data;
	char *tmp;
	int fd, err;

	if ((err = file_tmp_open(path, &tmp, &fd, d)))
		return err;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			file_tmp_abort(tmp, fd);
			return diag_err(d, e, "%s: writing failed: %s", path, strerror(e));
		}
		p += w;
		len -= (size_t)w;
	}
	return file_tmp_commit(path, tmp, fd, d);
}
