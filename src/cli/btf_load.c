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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "cli/cli.h"
#include "elf/elf.h"

#define SYSFS_BTF "/sys/kernel/btf/"

/*
 * Where a blob's bytes live: a private read-only mapping of a raw file, the
 * mapping of an open ELF (its .BTF section), or a heap buffer (files that
 * cannot be mapped, such as /sys/kernel/btf on older kernels).  Mapped
 * bytes come from the page cache: nothing is copied or zero-filled.
 */
struct cli_blob {
	void *map;
	size_t map_len;
	struct belf *elf;
	void *heap;
	uint64_t off;		/* of the BTF bytes in the file */
};

void cli_blob_release(void *ctx)
{
	struct cli_blob *b = ctx;

	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->map_len);
	belf_close(b->elf);
	mem_free(b->heap);
	mem_free(b);
}

static int read_fd(int fd, const char *path, size_t hint, void **data, size_t *len,
		   struct diag *d)
{
	size_t cap = hint ? hint + 1 : 1 << 20, n = 0;
	char *buf = mem_alloc(cap);

	if (!buf)
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	for (;;) {
		ssize_t r;

		if (n == cap && mem_grow((void **)&buf, &cap, 1, cap * 2)) {
			mem_free(buf);
			return diag_err(d, ENOMEM, "%s: out of memory", path);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			mem_free(buf);
			return diag_err(d, errno, "%s: read: %s", path, strerror(errno));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*data = buf;
	*len = n;
	return 0;
}

static bool has_btf_magic(const void *p, size_t len)
{
	return len >= 2 && (load16(p) == BTF_MAGIC || load16(p) == bswap16(BTF_MAGIC));
}

/*
 * A regular file is mapped read-only (readers, dedup included, do not
 * write to it: a read into fresh memory cost 4-50 ms for 24 MB, with the
 * VM's page state, against 2 ms); stdin and other files are read.
 */
int cli_blob_open(const char *path, struct cli_blob **out, const void **data, size_t *len,
		  struct diag *d)
{
	struct cli_blob *b = mem_zalloc(sizeof(*b));
	unsigned char m[4];
	struct stat st = { 0 };
	struct bslice s;
	size_t idx;
	int fd, err;

	*out = NULL;
	if (!b)
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	if (cli_is_stdio(path)) {
		/* raw BTF on stdin (an ELF needs a path: libelf maps it) */
		void *p = NULL;

		if ((err = read_fd(STDIN_FILENO, "-", 0, &p, len, d)))
			goto fail;
		b->heap = p;
		*data = p;
		if (*len >= 4 && !memcmp(p, "\177ELF", 4)) {
			err = diag_err(d, EINVAL, "-: an ELF file on stdin; give its path instead");
			goto fail;
		}
		if (!has_btf_magic(*data, *len)) {
			err = diag_err(d, EINVAL, "-: standard input is not raw BTF");
			goto fail;
		}
		*out = b;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = diag_err(d, errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (pread(fd, m, 4, 0) == 4 && !memcmp(m, "\177ELF", 4)) {
		close(fd);
		if ((err = belf_open(&b->elf, path, d)))
			goto fail;
		idx = belf_find(b->elf, ".BTF");
		if (!idx) {
			err = diag_err(d, ENOENT, "%s: no .BTF section", path);
			goto fail;
		}
		if ((err = belf_raw(b->elf, idx, &s, d)))
			goto fail;
		b->off = belf_section(b->elf, idx)->offset;
		*data = s.p;
		*len = s.len;
		*out = b;
		return 0;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		b->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (b->map == MAP_FAILED)
			b->map = NULL;
		else
			b->map_len = (size_t)st.st_size;
	}
	if (b->map) {
		*data = b->map;
		*len = b->map_len;
	} else {
		void *p = NULL;

		if ((err = read_fd(fd, path, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &p, len,
				   d))) {
			close(fd);
			goto fail;
		}
		b->heap = p;
		*data = p;
	}
	close(fd);
	if (!has_btf_magic(*data, *len)) {
		err = diag_err(d, EINVAL, "%s: neither a raw BTF blob nor an ELF file", path);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	cli_blob_release(b);
	return err;
}

uint64_t cli_blob_offset(const struct cli_blob *b)
{
	return b->off;
}

int cli_btf_blob(const char *path, void **data, size_t *len, struct diag *d)
{
	struct cli_blob *b;
	const void *p = NULL;
	int err;

	if ((err = cli_blob_open(path, &b, &p, len, d)))
		return err;
	*data = mem_alloc(*len ? *len : 1);
	if (!*data) {
		cli_blob_release(b);
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	}
	memcpy(*data, p, *len);
	cli_blob_release(b);
	return 0;
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

int cli_btf_parse_file(const char *path, const struct btf *base, unsigned flags,
		       struct btf **out, struct diag *d)
{
	struct cli_blob *b;
	const void *p = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = cli_blob_open(path, &b, &p, &len, d)))
		return err;
	if ((err = btf_parse_flags(p, len, base, flags | BTF_PARSE_BORROW, out, d))) {
		prefix_path(d, path);
		cli_blob_release(b);
		return err;
	}
	btf_set_release(*out, cli_blob_release, b);
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

/* Append a note to d's message (truncating, never overflowing). */
static void suffix_note(struct diag *d, const char *a, const char *b, const char *c)
{
	size_t n = strlen(d->msg);

	if (n + 1 < sizeof(d->msg))
		snprintf(d->msg + n, sizeof(d->msg) - n, "%s%.200s%s", a, b, c);
}

bool cli_btf_is_split(const void *data, size_t len)
{
	struct btf_header h;
	struct diag d;
	bool swapped;

	/* own strings that do not start with the empty string follow a base's */
	return btf_parse_header(data, len, &h, &swapped, &d) == 0 && h.str_len &&
	       (uint64_t)h.hdr_len + h.str_off < len &&
	       ((const char *)data)[h.hdr_len + h.str_off] != 0;
}

int cli_btf_load(const char *path, const char *base_path, struct btf **base,
		 struct btf **btf, struct diag *d)
{
	int err;

	*base = NULL;
	*btf = NULL;
	if (!base_path)
		base_path = cli_btf_default_base(path);
	if (cli_is_stdio(path) && base_path && cli_is_stdio(base_path))
		return diag_err(d, EINVAL, "-: standard input can be read only once");
	if (base_path &&
	    (err = cli_btf_parse_file(base_path, NULL, BTF_PARSE_NO_STR_INDEX, base, d)))
		return err;
	if ((err = cli_btf_parse_file(path, *base, BTF_PARSE_NO_STR_INDEX, btf, d))) {
		/* one line that names the likely cause */
		if (*base && err != -ENOMEM && err != -ENOENT)
			suffix_note(d, " (split BTF: is ", base_path, " the base it was built on?)");
		else if (!*base && err == -EINVAL && strstr(d->msg, "split BTF"))
			suffix_note(d, "; give its base with --base", "", "");
		btf_free(*base);
		*base = NULL;
		return err;
	}
	return 0;
}

int cli_btf_load_id(uint32_t id, struct btf **base, struct btf **btf, struct diag *d)
{
	char name[256] = "", what[64];
	bool kernel = false;
	void *data = NULL;
	size_t len = 0;
	int err;

	*base = NULL;
	*btf = NULL;
	if ((err = cli_btf_by_id(id, &data, &len, name, sizeof(name), &kernel, d)))
		return err;
	/* a module's BTF is split on vmlinux's (as bpftool btf dump id does) */
	if (kernel && strcmp(name, "vmlinux") &&
	    (err = cli_btf_parse_file(SYSFS_BTF "vmlinux", NULL, BTF_PARSE_NO_STR_INDEX, base, d))) {
		mem_free(data);
		return err;
	}
	if ((err = btf_parse_flags(data, len, *base, BTF_PARSE_NO_STR_INDEX | BTF_PARSE_BORROW, btf,
				   d))) {
		snprintf(what, sizeof(what), "BTF id %u", id);
		prefix_path(d, what);
		mem_free(data);
		btf_free(*base);
		*base = NULL;
		return err;
	}
	btf_set_release(*btf, mem_free, data);
	return 0;
}
