/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli/: every subcommand, all printing and exit codes.  Each command is
 * int cmd_NAME(int argc, char **argv) returning the process exit status
 * (0 ok, 1 "differs"/findings, 2 error; main() turns a lost write to
 * stdout into 2).  Messages start with the program name (cli_prog()).
 */
#ifndef BTFC_CLI_H
#define BTFC_CLI_H

#include <stdio.h>

#include "base/diag.h"

enum { EXIT_OK = 0, EXIT_DIFF = 1, EXIT_ERR = 2 };

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_dwarf(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_relocate(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dedup(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_list(int argc, char **argv);
/* pahole's command line (cli/pahole.c); also run when argv[0] is "pahole". */
int cmd_pahole(int argc, char **argv);

/*
 * --stats memory (memstat.c): sampling starts at memstat_start(), phases
 * are named through memstat_phase (an enc_opts.phase callback), and
 * memstat_report() stops it and prints the peak RSS and each phase's
 * largest sample with the big blocks alive then.  NULL (out of memory)
 * is accepted by both and reports nothing.
 */
struct memstat;
struct memstat *memstat_start(void);
void memstat_phase(void *ctx, const char *name);
void memstat_report(struct memstat *m, FILE *out);

struct btf;
/*
 * Read the BTF bytes of path: a raw blob (either byte order) as is, or the
 * .BTF section of an ELF file.  *data is mem_alloc'ed.
 */
int cli_btf_blob(const char *path, void **data, size_t *len, struct diag *d);
/*
 * The same bytes without a copy where possible (a mapping); *data stays
 * valid until cli_blob_release(*b).
 */
struct cli_blob;
int cli_blob_open(const char *path, struct cli_blob **b, const void **data, size_t *len,
		  struct diag *d);
void cli_blob_release(void *b);
/* Where the BTF bytes of a blob start in its file. */
uint64_t cli_blob_offset(const struct cli_blob *b);
/*
 * Parse path's BTF (split on base if not NULL) with btf_parse_flags(flags),
 * borrowing the mapped blob, which btf_free() releases.  Parse errors are
 * prefixed with path.
 */
int cli_btf_parse_file(const char *path, const struct btf *base, unsigned flags,
		       struct btf **out, struct diag *d);
/* Is this BTF blob split (its strings follow a base's)? */
bool cli_btf_is_split(const void *data, size_t len);
/* The implied base of path: /sys/kernel/btf/vmlinux for module BTF in sysfs. */
const char *cli_btf_default_base(const char *path);
/*
 * Parse path (split on base_path, or on its implied base); *base is NULL
 * when there is none.  Free both with btf_free.  Parsed for reading
 * (BTF_PARSE_NO_STR_INDEX).
 */
int cli_btf_load(const char *path, const char *base_path, struct btf **base,
		 struct btf **btf, struct diag *d);

/*
 * The kernel's BTF object id (bpf(2), needs root): its bytes (mem_alloc'ed),
 * name and whether it is the kernel's (vmlinux or a module's).
 */
int cli_btf_by_id(uint32_t id, void **data, size_t *len, char *name, size_t nlen, bool *kernel,
		  struct diag *d);
/* cli_btf_load() for the kernel's BTF object id: a module's on /sys/kernel/btf/vmlinux. */
int cli_btf_load_id(uint32_t id, struct btf **base, struct btf **btf, struct diag *d);

struct layout_opts;
/* layout: cli_btf_load, or for an ELF without .BTF its DWARF encoded in memory. */
int cli_layout_load(const char *path, const char *base_path, struct btf **base,
		    struct btf **btf, struct diag *d);
/* btfc layout --diff OLD NEW [TYPE...]: exit status 0 same, 1 differs, 2 error. */
int cli_layout_diff(const char *old_path, const char *new_path, const char *base_path,
		    const struct layout_opts *lo, const char *const *names, size_t n);

/* The program name of messages: "btfc", or "pahole" when run as pahole (set once by main). */
void cli_set_prog(const char *name);
const char *cli_prog(void);
/* Print "PROG: <msg>" for a failed diag (or the errno text) to stderr. */
void cli_report(const struct diag *d, int err);
/* Print "PROG: " + formatted line to stderr; returns EXIT_ERR. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a note (no exit status). */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A usage error, one line: "PROG: CMD: <msg> (see 'btfc CMD --help')";
 * returns EXIT_ERR.  cmd may be NULL.
 */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After getopt_long() returned '?' (opterr = 0): name the bad option with cli_usage(). */
int cli_bad_option(const char *cmd, char **argv, const char *shortopts);
/*
 * Flush and close stdout at exit: rc, or EXIT_ERR with a message when a
 * write to it was lost (a full disk, /dev/full, a closed pipe's EPIPE).
 */
int cli_close_stdout(int rc);
/* s as a JSON string (quoted, escaped). */
void cli_json_str(FILE *f, const char *s);
struct btf_dedup_stats;
/* --stats: dedup's two levels, if it ran them (one line on stderr) */
void cli_dedup_levels(const struct btf_dedup_stats *st);
/* "-" as a path: stdin for inputs, stdout for outputs (where a command allows it). */
static inline bool cli_is_stdio(const char *path)
{
	return path && path[0] == '-' && !path[1];
}
/* Parse a thread count ("" or NULL = all CPUs); returns 0 on error. */
unsigned cli_jobs(const char *s);

#endif
