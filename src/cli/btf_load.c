// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load BTF from a path: a raw blob (magic in either byte order), an ELF
 * file with a .BTF section, or /sys/kernel/btf/NAME.  btf/ knows no ELF,
 * so this lives in cli/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "cli/cli.h"
#include "elf/elf.h"

#define SYSFS_BTF "/sys/kernel/btf/"

static int read_file(const char *path, void **data, size_t *len, struct diag *d)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_err(d, errno, "%s: %s", path, strerror(errno));
	buf = mem_alloc(cap);
	if (!buf) {
		err = diag_err(d, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (n == cap && mem_grow((void **)&buf, &cap, 1, cap * 2)) {
			err = diag_err(d, ENOMEM, "%s: out of memory", path);
			goto out;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = diag_err(d, errno, "%s: read: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
out:
	close(fd);
	if (err) {
		mem_free(buf);
		return err;
	}
	*data = buf;
	*len = n;
	return 0;
}

static bool is_elf(const char *path)
{
	unsigned char m[4];
	bool elf = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4))
		elf = true;
	close(fd);
	return elf;
}

int cli_btf_blob(const char *path, void **data, size_t *len, struct diag *d)
{
	struct belf *e;
	struct bslice s;
	size_t idx;
	void *buf;
	int err;

	if (!is_elf(path)) {
		if ((err = read_file(path, data, len, d)))
			return err;
		if (*len >= 2 && (load16(*data) == BTF_MAGIC || load16(*data) == bswap16(BTF_MAGIC)))
			return 0;
		mem_free(*data);
		*data = NULL;
		return diag_err(d, EINVAL, "%s: neither a raw BTF blob nor an ELF file", path);
	}
	if ((err = belf_open(&e, path, d)))
		return err;
	idx = belf_find(e, ".BTF");
	if (!idx) {
		belf_close(e);
		return diag_err(d, ENOENT, "%s: no .BTF section", path);
	}
	if ((err = belf_raw(e, idx, &s, d))) {
		belf_close(e);
		return err;
	}
	buf = mem_alloc(s.len ? s.len : 1);
	if (!buf) {
		belf_close(e);
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	}
	memcpy(buf, s.p, s.len);
	belf_close(e);
	*data = buf;
	*len = s.len;
	return 0;
}

const char *cli_btf_default_base(const char *path)
{
	const char *name;

	if (strncmp(path, SYSFS_BTF, strlen(SYSFS_BTF)))
		return NULL;
	name = path + strlen(SYSFS_BTF);
	if (!*name || !strcmp(name, "vmlinux"))
		return NULL;
	return SYSFS_BTF "vmlinux";
}

/* Prefix d's message with the path it is about (truncating, never overflowing). */
static void prefix_path(struct diag *d, const char *path)
{
	char msg[DIAG_MSG_MAX];
	size_t n;

	memcpy(msg, d->msg, sizeof(msg));
	n = (size_t)snprintf(d->msg, sizeof(d->msg), "%.200s: ", path);
	if (n < sizeof(d->msg))
		snprintf(d->msg + n, sizeof(d->msg) - n, "%.300s", msg);
}

int cli_btf_load(const char *path, const char *base_path, struct btf **base,
		 struct btf **btf, struct diag *d)
{
	void *data = NULL;
	size_t len;
	int err;

	*base = NULL;
	*btf = NULL;
	if (!base_path)
		base_path = cli_btf_default_base(path);
	if (base_path) {
		if ((err = cli_btf_blob(base_path, &data, &len, d)))
			return err;
		err = btf_parse_flags(data, len, NULL, BTF_PARSE_NO_STR_INDEX, base, d);
		mem_free(data);
		if (err) {
			prefix_path(d, base_path);
			return err;
		}
	}
	if ((err = cli_btf_blob(path, &data, &len, d)))
		goto fail;
	err = btf_parse_flags(data, len, *base, BTF_PARSE_NO_STR_INDEX, btf, d);
	mem_free(data);
	if (err) {
		prefix_path(d, path);
		goto fail;
	}
	return 0;
fail:
	btf_free(*base);
	*base = NULL;
	return err;
}
