// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc list: the BTF objects loaded in the kernel, as `bpftool btf list`
 * lists them (id, name, size); and the loading of one by id for
 * `btfc dump id N`.  Both go through bpf(2): BPF_BTF_GET_NEXT_ID,
 * BPF_BTF_GET_FD_BY_ID and BPF_OBJ_GET_INFO_BY_FD, which need
 * CAP_SYS_ADMIN (or CAP_BPF).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "cli/cli.h"

static const char usage_text[] =
	"usage: btfc list [--format text|json]\n"
	"  List the BTF objects loaded in the running kernel: vmlinux, each module's,\n"
	"  and those programs loaded, one line each as `bpftool btf list` prints them\n"
	"  (ID: name [NAME]  size NB); 'btfc dump id ID' prints one.  Needs root\n"
	"  (CAP_SYS_ADMIN or CAP_BPF).\n"
	"  --format json   one JSON array of {\"id\", \"name\", \"size\", \"kernel\"}\n"
	"  Exit status: 0 listed, 2 error (no permission, no bpf(2)).\n";

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int next_id(uint32_t id, uint32_t *next)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.start_id = id;
	if (sys_bpf(BPF_BTF_GET_NEXT_ID, &a))
		return -errno;
	*next = a.next_id;
	return 0;
}

static int fd_by_id(uint32_t id)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.btf_id = id;
	fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &a);
	return fd < 0 ? -errno : fd;
}

/* info of fd, with the BTF bytes into buf[cap] when buf is given. */
static int btf_info(int fd, struct bpf_btf_info *info, char *name, size_t nlen, void *buf,
		    uint32_t cap)
{
	union bpf_attr a;

	memset(info, 0, sizeof(*info));
	info->name = (uint64_t)(uintptr_t)name;
	info->name_len = (uint32_t)nlen;
	info->btf = (uint64_t)(uintptr_t)buf;
	info->btf_size = buf ? cap : 0;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uint64_t)(uintptr_t)info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		return -errno;
	if (nlen)
		name[nlen - 1] = 0;
	return 0;
}

static int bpf_err(struct diag *d, int err, const char *what)
{
	if (err == -EPERM || err == -EACCES)
		return diag_err(d, -err, "%s: %s (needs root: CAP_SYS_ADMIN or CAP_BPF)", what,
				strerror(-err));
	if (err == -ENOSYS)
		return diag_err(d, ENOSYS, "%s: this kernel has no bpf(2)", what);
	return diag_err(d, -err, "%s: %s", what, strerror(-err));
}

int cli_btf_by_id(uint32_t id, void **data, size_t *len, char *name, size_t nlen, bool *kernel,
		  struct diag *d)
{
	struct bpf_btf_info info;
	char what[64];
	void *buf;
	int fd, err;

	snprintf(what, sizeof(what), "BTF id %u", id);
	if ((fd = fd_by_id(id)) < 0)
		return bpf_err(d, fd, what);
	if ((err = btf_info(fd, &info, name, nlen, NULL, 0))) {
		close(fd);
		return bpf_err(d, err, what);
	}
	if (!(buf = mem_alloc(info.btf_size ? info.btf_size : 1))) {
		close(fd);
		return diag_err(d, ENOMEM, "%s: out of memory", what);
	}
	if ((err = btf_info(fd, &info, name, nlen, buf, info.btf_size))) {
		close(fd);
		mem_free(buf);
		return bpf_err(d, err, what);
	}
	close(fd);
	*data = buf;
	*len = info.btf_size;
	*kernel = info.kernel_btf;
	return 0;
}

static void json_name(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

int cmd_list(int argc, char **argv)
{
	bool json = false;
	uint32_t id = 0, n = 0;
	struct diag d;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : NULL;

			if (!f)
				return cli_usage("list", "option '--format' needs an argument");
			if (strcmp(f, "json") && strcmp(f, "text"))
				return cli_usage("list", "--format takes text or json, not '%s'", f);
			json = !strcmp(f, "json");
		} else {
			return cli_usage("list", "unexpected argument '%s'", argv[i]);
		}
	}
	diag_clear(&d);
	if (json)
		fputs("[", stdout);
	for (;;) {
		struct bpf_btf_info info;
		char name[256] = "";
		int fd;

		if ((err = next_id(id, &id))) {
			if (err == -ENOENT)
				break;
			if (json)
				fputs("]\n", stdout);
			cli_report(&d, bpf_err(&d, err, "listing BTF objects"));
			return EXIT_ERR;
		}
		if ((fd = fd_by_id(id)) < 0) {
			if (fd == -ENOENT)	/* unloaded meanwhile */
				continue;
			if (json)
				fputs("]\n", stdout);
			cli_report(&d, bpf_err(&d, fd, "listing BTF objects"));
			return EXIT_ERR;
		}
		err = btf_info(fd, &info, name, sizeof(name), NULL, 0);
		close(fd);
		if (err)
			continue;
		if (json) {
			printf("%s{\"id\":%u,\"name\":", n ? "," : "", info.id);
			json_name(name);
			printf(",\"size\":%u,\"kernel\":%s}", info.btf_size,
			       info.kernel_btf ? "true" : "false");
		} else if (info.kernel_btf) {
			printf("%u: name [%s]  size %uB\n", info.id, name, info.btf_size);
		} else {
			printf("%u: name %s  size %uB\n", info.id, name[0] ? name : "<anon>",
			       info.btf_size);
		}
		n++;
	}
	if (json)
		fputs("]\n", stdout);
	return EXIT_OK;
}
