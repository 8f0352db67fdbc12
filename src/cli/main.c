// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/cli.h"

static const struct cli_cmd commands[] = {
	{ "encode", cmd_encode, "DWARF -> BTF for vmlinux or (with --base) a module" },
	{ "relocate", cmd_relocate, "rebase a module's BTF (with .BTF.base) onto another vmlinux BTF" },
	{ "dwarf", cmd_dwarf, "print DWARF units and DIEs, or --stats over all DIEs" },
	{ "dump", cmd_dump, "print BTF types (raw text like bpftool, json, or a C header)" },
	{ "verify", cmd_verify, "check BTF with the kernel's rules (--strict: user-BTF rules)" },
	{ "convert", cmd_convert, "rewrite BTF (raw or ELF .BTF) as a raw blob, optionally byte-swapped" },
	{ "layout", cmd_layout, "struct layouts like pahole (holes, padding, cachelines), -R, --compile, json, diff" },
	{ "dedup", cmd_dedup, "deduplicate BTF like libbpf btf__dedup (1.1.2 semantics), in parallel" },
	{ "diff", cmd_diff, "compare two BTFs as type graphs (btfcanon.py equality); exit 1 if they differ" },
	{ "pahole", cmd_pahole, "pahole's command line (-J, --btf_features, -C ...); also when run as 'pahole'" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: btfc COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'btfc COMMAND --help' describes a command's options.\n");
}

static void print_alloc_count(void)
{
	fprintf(stderr, "btfc: %lu allocations\n", mem_alloc_count());
}

int main(int argc, char **argv)
{
	const char *fail = getenv("BTFC_FAIL_ALLOC");
	size_t i;

	/*
	 * A run is short and allocates in bursts (per unit, per dedup phase):
	 * memory freed at the top of the heap is kept for the next burst
	 * instead of being returned and faulted in again, and the heap grows
	 * in 8 MiB steps.  About 5% of a small module's run (page faults).
	 * Setting these ends glibc's dynamic mmap threshold, so it is set
	 * to that adjustment's ceiling: with the 128 KiB default every
	 * large vector was mapped and unmapped afresh (vmlinux: +15% CPU).
	 */
	mallopt(M_TOP_PAD, 8 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	if (fail && *fail)
		mem_fail_after(strtoul(fail, NULL, 10));
	else if (getenv("BTFC_COUNT_ALLOC") && atexit(print_alloc_count) == 0)
		mem_fail_after(ULONG_MAX);	/* count only: tests size BTFC_FAIL_ALLOC runs */
	/* Installed as (or linked to as) "pahole": pahole's command line. */
	if (argc > 0) {
		const char *prog = strrchr(argv[0], '/');

		if (!strcmp(prog ? prog + 1 : argv[0], "pahole"))
			return cmd_pahole(argc, argv);
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("btfc %s\n", BTFC_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "btfc: unknown command '%s' (see 'btfc --help')\n", argv[1]);
	return EXIT_ERR;
}
