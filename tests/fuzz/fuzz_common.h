/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c).  Each
 * target is one LLVMFuzzerTestOneInput over the library API (no CLI);
 * tests/fuzz/run.sh builds seeds and runs them (make fuzz).
 */
#ifndef BTFC_FUZZ_COMMON_H
#define BTFC_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The input as a file the path-based APIs can open: a memfd, named
 * /proc/self/fd/N (a regular file for fstat, mmap-able).  Returns the fd
 * (close it when done) or -1.
 */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	int fd = memfd_create("btfc-fuzz", MFD_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

/* Touch every byte of a NUL-terminated string (ASan sees overreads). */
static inline size_t fuzz_touch_str(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Touch every byte of a range. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	unsigned x = 0;

	for (size_t i = 0; i < n; i++)
		x += b[i];
	return x;
}

/* The diag message must be one printable, terminated line. */
static inline void fuzz_check_diag(const struct diag *d)
{
	size_t n = strnlen(d->msg, sizeof(d->msg));

	if (n == sizeof(d->msg))
		__builtin_trap();
	if (memchr(d->msg, '\n', n))
		__builtin_trap();
}

/* A failing call must say why: err < 0 needs a message in d. */
static inline void fuzz_check_err(int err, const struct diag *d)
{
	fuzz_check_diag(d);
	if (err < 0 && !d->msg[0]) {
		fprintf(stderr, "error %d returned without a message\n", err);
		__builtin_trap();
	}
}

#endif
