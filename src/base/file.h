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
 * The path "-" is standard output (the command line's convention; a file
 * of that name is ./-), written directly after stdio's buffer is flushed.
 */
int file_write_atomic(const char *path, const void *data, size_t len, struct diag *d);

/* The same for writers that produce the file themselves: open (fd to
 * write to), then commit or abort. */
struct file_out {
	int fd;
	char *tmp;		/* the temp file, renamed to dest at commit; NULL: direct */
	char *dest;		/* path with symlinks resolved */
	int slot;		/* tmp's entry in the temp-file registry, -1: none */
};
int file_out_open(struct file_out *o, const char *path, struct diag *d);
/* All of data to fd (retrying short writes and EINTR): 0 or -errno. */
int file_write_all(int fd, const void *data, size_t len);
int file_out_commit(struct file_out *o, const char *path, struct diag *d);
void file_out_abort(struct file_out *o);

/*
 * The temp-file registry: every temp file a file_out holds is listed from
 * its creation (signals blocked around mkstemp and the listing, so none is
 * unlisted) until it is renamed or removed.  file_tmp_cleanup() removes
 * all of them: it is async-signal-safe (lock-free atomic exchanges and
 * unlink only), for the handlers cli/ installs for SIGINT, SIGTERM and
 * SIGHUP, which then re-raise the signal; from its first call no temp
 * file is created any more (a thread about to create one waits for the
 * end), and it waits for creations under way.  A path the handler took is
 * not freed by its owner (the process is ending).  At most FILE_TMP_SLOTS temp
 * files are listed at once (one per writing thread; -j is at most 1,024);
 * one beyond that is still written, only not removed by a signal.
 */
#define FILE_TMP_SLOTS 1024
void file_tmp_cleanup(void);
/* Temp files listed now (tests). */
unsigned file_tmp_count(void);

#endif
