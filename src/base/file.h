/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_BASE_FILE_H
#define BTFC_BASE_FILE_H

#include "base/diag.h"

/*
 * Output files.  A regular file (or a new path) is written as a temp file
 * in the same directory and renamed over the path, so a failure or a kill
 * never leaves it half-written: on any failure the path is untouched and
 * the temp file is removed.  An existing path keeps its mode (and, as far
 * as permitted, owner); a new one gets 0644 less the umask.  A symlink is
 * followed: its target is replaced and the link stays.  An existing path
 * that is not a regular file (/dev/null, a FIFO, a terminal) is written
 * directly; renaming over it would replace the device or pipe with a file.
 */
int file_write_atomic(const char *path, const void *data, size_t len, struct diag *d);

/* The same for writers that produce the file themselves: open (fd to
 * write to), then commit or abort. */
struct file_out {
	int fd;
	char *tmp;		/* the temp file, renamed to dest at commit; NULL: direct */
	char *dest;		/* path with symlinks resolved */
};
int file_out_open(struct file_out *o, const char *path, struct diag *d);
/* All of data to fd (retrying short writes and EINTR): 0 or -errno. */
int file_write_all(int fd, const void *data, size_t len);
int file_out_commit(struct file_out *o, const char *path, struct diag *d);
void file_out_abort(struct file_out *o);

#endif
