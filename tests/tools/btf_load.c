// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only oracle: the running kernel's BTF verifier.  Loads raw BTF blobs
 * with bpf(BPF_BTF_LOAD) (log level 1) and prints the verdict with the
 * errno and the last line of the verifier log.  Linked with libbtfc.a only
 * for the base+split concatenation; never part of btfc.  Built by
 * `make build/btf-load`.
 *
 * usage: btf-load --probe            exit 0 when BPF_BTF_LOAD works here
 *        btf-load FILE...            one line per file:
 *                                    "FILE: OK" or "FILE: ENAME(n): last log line"
 *        btf-load -B BASE SPLIT...   load BASE + SPLIT as one standalone blob
 *                                    (SPLIT's types and strings appended to
 *                                    BASE's, ids unchanged)
 *        btf-load -B BASE -o OUT SPLIT   write that blob instead of loading it
 * exit: 0 all loaded, 1 some rejected, 2 could not run (e.g. EPERM).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "cli/cli.h"

#define LOG_SIZE (16u << 20)

static char *logbuf;

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EEXIST: return "EEXIST";
	case ELOOP: return "ELOOP";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case ENOSYS: return "ENOSYS";
	case 524: return "ENOTSUPP";
	default:
		snprintf(buf, sizeof(buf), "E%d", e);
		return buf;
	}
}

/* 0 when loaded, else the errno; *last gets the last log line. */
static int load(const void *blob, size_t len, const char **last)
{
	union bpf_attr attr;
	char *p, *end;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	logbuf[0] = 0;
	attr.btf = (uintptr_t)blob;
	attr.btf_size = (uint32_t)len;
	attr.btf_log_buf = (uintptr_t)logbuf;
	attr.btf_log_size = LOG_SIZE;
	attr.btf_log_level = 1;
	fd = (int)syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	/* Last non-empty line of the log. */
	logbuf[LOG_SIZE - 1] = 0;
	end = logbuf + strlen(logbuf);
	while (end > logbuf && end[-1] == '\n')
		*--end = 0;
	p = strrchr(logbuf, '\n');
	*last = p ? p + 1 : logbuf;
	return err;
}

static int report(const char *name, const void *blob, size_t len)
{
	const char *last;
	int err = load(blob, len, &last);

	if (!err) {
		printf("%s: OK\n", name);
		return 0;
	}
	printf("%s: %s(%d): %s\n", name, errname(err), err, last);
	return err == EPERM || err == ENOSYS || err == EACCES ? 2 : 1;
}

/* The file's bytes as they are (malformed blobs included). */
static int read_all(const char *path, void **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf = mem_alloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "btf-load: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		mem_free(buf);
		return -1;
	}
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		if (mem_grow((void **)&buf, &cap, 1, cap * 2)) {
			fclose(f);
			mem_free(buf);
			return -1;
		}
	}
	fclose(f);
	*data = buf;
	*len = n;
	return 0;
}

/* BASE's types and strings followed by SPLIT's, as one standalone blob. */
static int concat(const char *base_path, const char *split_path, void **blob, size_t *len)
{
	struct btf *dst = NULL, *base = NULL, *split = NULL;
	struct diag d = { 0 };
	void *data;
	size_t n;
	uint32_t id;
	int err;

	if ((err = read_all(base_path, &data, &n)))
		return err;
	err = btf_parse(data, n, NULL, &dst, &d);
	mem_free(data);
	if (err || (err = cli_btf_load(split_path, base_path, &base, &split, &d)))
		goto out;
	for (id = btf_start_id(split); id < btf_type_count(split); id++) {
		const struct btf_type *t = btf_type_by_id(split, id);
		size_t sz = btf_type_size(t);
		uint32_t *w = mem_alloc(sz), *p;
		struct btf_field_iter it;

		if (!w) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(w, t, sz);
		btf_field_iter_init(&it, (struct btf_type *)w, BTF_FIELD_STRS);
		while ((p = btf_field_iter_next(&it))) {
			int64_t off = *p ? btf_add_str(dst, btf_name(split, *p)) : 0;

			if (off < 0)
				break;
			*p = (uint32_t)off;
		}
		err = btf_add_raw(dst, (struct btf_type *)w, sz);
		mem_free(w);
		if (err < 0)
			goto out;
		err = 0;
	}
	err = btf_write(dst, blob, len, &d);
out:
	if (err)
		fprintf(stderr, "btf-load: concat %s + %s: %s\n", base_path, split_path,
			d.msg[0] ? d.msg : btf_error(dst) ? btf_error(dst)->msg : "failed");
	btf_free(dst);
	btf_free(split);
	btf_free(base);
	return err;
}

int main(int argc, char **argv)
{
	const char *base = NULL, *outp = NULL;
	int i = 1, rc = 0;

	logbuf = malloc(LOG_SIZE);
	if (!logbuf)
		return 2;
	if (argc == 2 && !strcmp(argv[1], "--probe")) {
		/* The smallest valid BTF: one INT "a". */
		static const uint32_t blob[] = {
			0x0001eb9f, 24, 0, 16, 16, 4,
			1, 0x01000000, 4, 0x01000020,
		};
		static uint8_t buf[sizeof(blob) + 4];

		memcpy(buf, blob, sizeof(blob));
		memcpy(buf + sizeof(blob), "\0a\0\0", 4);
		return report("probe", buf, sizeof(buf)) ? 2 : 0;
	}
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-B"))
			base = argv[i + 1];
		else if (!strcmp(argv[i], "-o"))
			outp = argv[i + 1];
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: btf-load --probe | FILE... | -B BASE [-o OUT] SPLIT...\n");
		return 2;
	}
	for (; i < argc; i++) {
		void *blob;
		size_t len;
		int r;

		if (base ? concat(base, argv[i], &blob, &len) : read_all(argv[i], &blob, &len))
			return 2;
		if (outp) {
			FILE *f = fopen(outp, "wb");

			r = !f || fwrite(blob, 1, len, f) != len;
			if (f && fclose(f))
				r = 1;
			if (r) {
				fprintf(stderr, "btf-load: cannot write %s\n", outp);
				return 2;
			}
		} else {
			r = report(argv[i], blob, len);
			if (r > rc)
				rc = r;
		}
		mem_free(blob);
	}
	return rc;
}
