/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_BASE_FILE_H
#define BTFC_BASE_FILE_H

#include "base/diag.h"

/*
 * Write data to path atomically: a temp file in the same directory,
 * fsync'ed, renamed over path.  An existing path keeps its mode (and, as
 * far as permitted, owner); a new one gets 0644 less the umask.  On any
 * failure path is untouched and the temp file is removed.
 */
int file_write_atomic(const char *path, const void *data, size_t len, struct diag *d);

/* The temp-file half, for writers that produce the file themselves:
 * open a temp file next to path (fd and name returned), then commit it
 * (fsync + rename, keeping path's mode) or abort it (unlink). */
int file_tmp_open(const char *path, char **tmp_name, int *fd, struct diag *d);
int file_tmp_commit(const char *path, char *tmp_name, int fd, struct diag *d);
void file_tmp_abort(char *tmp_name, int fd);

#endif
