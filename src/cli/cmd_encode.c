// SPDX-License-Identifier: GPL-2.0-only
/* btfc encode: DWARF -> BTF for a kernel image or module. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/mem.h"
#include "base/pool.h"
#include "btf/dedup.h"
#include "cli/base_cache.h"
#include "cli/cli.h"
#include "encode/encode.h"

static const char usage_text[] =
	"usage: btfc encode [OPTIONS] FILE...\n"
	"  Encode FILE's DWARF as BTF (split BTF on --base).\n"
	"  -o, --output OUT       write raw BTF to OUT (default: FILE's .BTF section,\n"
	"                         replaced or added in place through a temp file)\n"
	"  --base B               base BTF (ELF with .BTF, raw BTF, /sys/kernel/btf/vmlinux)\n"
	"  --compat V             the function and variable policy of pahole V: 1.24\n"
	"                         (default), 1.30 or 1.31 (also 'modern'), with the\n"
	"                         features the kernel asks of that version (1.30/1.31:\n"
	"                         consistent_func, optimized_func, decl_tag_kfuncs,\n"
	"                         encode_force)\n"
	"  --global-var           1.30/1.31: every global variable, a DATASEC per section\n"
	"  --attributes           1.30/1.31: KF_ARENA_* kfunc pointers through\n"
	"                         address_space(1) type tags (kind_flag)\n"
	"  --no-floats            floats as INT (pahole without --btf_gen_floats)\n"
	"  --no-enum64            8-byte enums as ENUM, values truncated\n"
	"  --no-vars              no per-CPU VARs / DATASEC\n"
	"  --lang-exclude LIST    skip units in these languages (default: rust)\n"
	"  --force                skip invalid variables instead of failing\n"
	"  --kfunc-tags           tag kfuncs (from .BTF_ids sets) \"bpf_kfunc\"/\"bpf_fastcall\"\n"
	"  --no-dedup             write the merged BTF without deduplication\n"
	"  -j N, --jobs N         threads (default: all CPUs); output is the same for any N\n"
	"  --list FILE            more inputs, one path per line ('-' = stdin)\n"
	"  --distilled-base       with --base, in place: also write .BTF.base (libbpf's\n"
	"                         distilled base) so the module can be relocated onto\n"
	"                         another vmlinux; .BTF is then split on .BTF.base\n"
	"  --stats                print counts, per-phase times and memory to stderr:\n"
	"                         read, convert (merge within it), dedup, write; the\n"
	"                         peak RSS and each phase's largest (anon, file, the\n"
	"                         biggest blocks then); a batch's peak RSS\n"
	"  --memory-budget MIB    batch mode: inputs whose estimated memory (from their\n"
	"                         DWARF's size) exceeds MIB together do not run at once,\n"
	"                         one estimated at MIB or more runs alone on every\n"
	"                         thread (default 384); the output is the same\n"
	"  -v, --verbose          notes about what was dropped or degraded, and why\n"
	"  With several inputs (batch mode) the base is loaded once, inputs are encoded\n"
	"  in parallel, each exactly as alone; -o then names a directory (OUT/NAME.btf).\n"
	"  One input on --base uses the base cache: $BTFC_CACHE_DIR (empty: off), else\n"
	"  $XDG_CACHE_HOME/btfc or ~/.cache/btfc; the same bytes with or without it.\n"
	"  OUT may be - (stdout) for one input; FILE must be a path (the ELF is mapped).\n"
	"  An interrupted run (SIGINT, SIGTERM, SIGHUP) leaves no temporary file.\n"
	"  Exit status: 0 encoded, 2 error (any input failing, in a batch).\n";

/* A verbose note: "btfc: FILE: note" (ctx: the input's path). */
static void log_line(void *ctx, const char *line)
{
	cli_note("%s: %s", (const char *)ctx, line);
}

static const struct {
	const char *name;
	uint32_t code;
} langs[] = {
	{ "c89", DW_LANG_C89 }, { "c", DW_LANG_C }, { "c99", DW_LANG_C99 }, { "c11", DW_LANG_C11 },
	{ "rust", DW_LANG_Rust }, { "asm", DW_LANG_Mips_Assembler },
	{ "c++", 0x4 }, { "c++03", 0x19 }, { "c++11", 0x1a }, { "c++14", 0x21 },
	{ "go", 0x16 }, { "ada83", 0x3 }, { "fortran77", 0x7 }, { "c17", 0x2c },
};

static int parse_langs(const char *list, uint32_t *out, size_t max)
{
	char buf[256], *tok, *save = NULL;
	size_t n = 0, i;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
			if (!strcmp(tok, langs[i].name))
				break;
		if (i == sizeof(langs) / sizeof(langs[0]))
			return -1;
		if (n + 1 >= max)
			return -1;
		out[n++] = langs[i].code;
		if (langs[i].code == DW_LANG_Mips_Assembler)
			continue;
	}
	out[n] = 0;
	return 0;
}

/*
 * Batch mode: many modules on one base, one module per worker, started in
 * list order under a memory budget: a module starts when the estimates
 * (btf_encode_estimate) of the modules running and its own fit in it, or
 * nothing runs; one whose estimate is the budget or more runs alone, on
 * every thread.  So two giants never overlap, whatever the list holds,
 * and the output (each module as alone, the same bytes for any -j) does
 * not depend on it.
 */
#define DEFAULT_BUDGET_MIB 384

struct batch {
	char **paths;
	size_t n;
	const char *outdir;
	const struct btf *base;
	struct enc_opts o;
	struct diag *diags;
	int *errs;
	char **logs;		/* per module, verbose notes */
	size_t *log_len, *log_cap;
	atomic_size_t done;
	bool progress;
	struct enc_worker **workers;	/* per pool thread, kept from module to module */
	struct mem_cache *cache;	/* big blocks freed by one module, for the next */
	unsigned jobs;
	uint64_t budget;		/* bytes of estimates running at once */
	pthread_mutex_t lock;		/* the admission state below */
	pthread_cond_t changed;
	size_t next;			/* the next module to start */
	uint64_t running;		/* estimates of the modules running */
	unsigned nrunning;
};

/* Wait until module i may start; its share of the budget (whole: alone). */
static uint64_t batch_admit(struct batch *b, size_t i)
{
	uint64_t est = btf_encode_estimate(b->paths[i]);
	uint64_t w = est >= b->budget ? b->budget : est ? est : 1;

	pthread_mutex_lock(&b->lock);
	while (b->next != i || (b->nrunning && b->running + w > b->budget))
		pthread_cond_wait(&b->changed, &b->lock);
	b->next++;
	b->running += w;
	b->nrunning++;
	pthread_cond_broadcast(&b->changed);
	pthread_mutex_unlock(&b->lock);
	return w;
}

static void batch_done(struct batch *b, uint64_t w)
{
	pthread_mutex_lock(&b->lock);
	b->running -= w;
	b->nrunning--;
	pthread_cond_broadcast(&b->changed);
	pthread_mutex_unlock(&b->lock);
}

struct batch_log {
	struct batch *b;
	size_t i;
};

static void batch_log_line(void *ctx, const char *line)
{
	struct batch_log *l = ctx;
	struct batch *b = l->b;
	const char *path = b->paths[l->i];
	size_t n = strlen(line), pl = strlen(path);

	/* "FILE: note", printed with the program's prefix after the batch */
	if (mem_grow((void **)&b->logs[l->i], &b->log_cap[l->i], 1,
		     b->log_len[l->i] + pl + n + 4))
		return;
	memcpy(b->logs[l->i] + b->log_len[l->i], path, pl);
	memcpy(b->logs[l->i] + b->log_len[l->i] + pl, ": ", 2);
	b->log_len[l->i] += pl + 2;
	memcpy(b->logs[l->i] + b->log_len[l->i], line, n);
	b->log_len[l->i] += n;
	b->logs[l->i][b->log_len[l->i]++] = '\n';
	b->logs[l->i][b->log_len[l->i]] = 0;
}

static int batch_one(void *ctx, unsigned worker, size_t i)
{
	struct batch *b = ctx;
	struct batch_log lg = { b, i };
	struct enc_opts o = b->o;
	struct enc_stats st;
	struct mem_cache *was = mem_cache_use(b->cache);
	uint64_t share = batch_admit(b, i);
	char *out = NULL;
	size_t done;

	/* alone: on every thread (the other threads wait) */
	o.jobs = share >= b->budget ? b->jobs : 1;
	/* Buffers grown for one module serve the next (1-2% less CPU on 1,138). */
	if (!b->workers[worker])
		b->workers[worker] = enc_worker_new();	/* NULL: fresh ones per module */
	o.worker = b->workers[worker];
	o.log = batch_log_line;
	o.log_ctx = &lg;
	diag_clear(&b->diags[i]);
	if (b->outdir) {
		const char *base = strrchr(b->paths[i], '/');
		size_t len;

		base = base ? base + 1 : b->paths[i];
		len = strlen(b->outdir) + strlen(base) + 8;
		if (!(out = mem_alloc(len))) {
			b->errs[i] = diag_err(&b->diags[i], ENOMEM, "out of memory");
			mem_cache_use(was);
			batch_done(b, share);
			return 0;
		}
		snprintf(out, len, "%s/%s.btf", b->outdir, base);
	}
	b->errs[i] = btf_encode_file(b->paths[i], out, b->base, &o, &st, &b->diags[i]);
	mem_free(out);
	mem_cache_use(was);
	batch_done(b, share);
	done = atomic_fetch_add(&b->done, 1) + 1;
	if (b->progress && (done % 16 == 0 || done == b->n))
		fprintf(stderr, "\r%s: encoded %zu/%zu", cli_prog(), done, b->n);
	return 0;
}

/* Paths from a list file, one per line ('-' = stdin). */
static int read_list(const char *file, char ***paths, size_t *n, size_t *cap)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;

	if (!f)
		return cli_fail("encode: %s: %s", file, strerror(errno));
	while ((len = getline(&line, &lcap, f)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		if (VEC_RESERVE(*paths, *cap, *n + 1) || !((*paths)[*n] = mem_strdup(line))) {
			free(line);
			return cli_fail("encode: out of memory");
		}
		(*n)++;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}

static int run_batch(char **paths, size_t n, const char *outdir, const struct btf *base,
		     const struct enc_opts *o, unsigned jobs, uint64_t budget)
{
	struct batch b = { .paths = paths, .n = n, .outdir = outdir, .base = base, .o = *o,
			   .jobs = jobs, .budget = budget };
	struct btf_dedup_base *pb = NULL;
	size_t i, nbad = 0;
	int status = EXIT_OK;
	struct stat st;

	/* -o names a directory: say so once rather than once per module, after the work */
	if (outdir && stat(outdir, &st))
		return cli_fail("encode: output directory %s: %s", outdir, strerror(errno));
	if (outdir && !S_ISDIR(st.st_mode))
		return cli_fail("encode: output directory %s: not a directory", outdir);
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.changed, NULL);
	b.diags = mem_array(n, sizeof(*b.diags));
	b.errs = mem_array(n, sizeof(*b.errs));
	b.logs = mem_array(n, sizeof(*b.logs));
	b.log_len = mem_array(n, sizeof(*b.log_len));
	b.log_cap = mem_array(n, sizeof(*b.log_cap));
	b.workers = mem_array(jobs, sizeof(*b.workers));	/* jobs >= 1 (cli_jobs) */
	if (!b.diags || !b.errs || !b.logs || !b.log_len || !b.log_cap || !b.workers) {
		status = cli_fail("encode: out of memory");
		goto out;
	}
	atomic_init(&b.done, 0);
	b.progress = isatty(STDERR_FILENO) && n > 1;
	if (base) {
		/* The base's dedup tables, built once and shared read-only by every module. */
		struct btf_dedup_opts po = { .nr_threads = jobs, .keep_strings = true };
		struct diag d;

		diag_clear(&d);
		if (!(pb = btf_dedup_base_new(base, &po, &d))) {
			cli_report(&d, -ENOMEM);
			status = EXIT_ERR;
			goto out;
		}
		b.o.dedup_base = pb;
	}
	/* Every module frees and asks again for the same big blocks: keep them. */
	b.cache = mem_cache_new(32ul << 20);	/* NULL: none kept */
	pool_for(jobs, n, batch_one, &b);
	for (i = 0; i < jobs; i++)
		enc_worker_free(b.workers[i]);
	mem_cache_free(b.cache);
	mem_give_back();
	if (b.progress)
		fputc('\n', stderr);
	for (i = 0; i < n; i++) {
		if (b.logs[i]) {
			char *line = b.logs[i], *nl;

			for (; (nl = strchr(line, '\n')); line = nl + 1) {
				*nl = 0;
				cli_note("%s", line);
			}
		}
		if (b.errs[i]) {
			cli_report(&b.diags[i], b.errs[i]);
			nbad++;
		}
	}
	if (nbad) {
		status = cli_fail("%zu of %zu files failed", nbad, n);
	}
out:
	btf_dedup_base_free(pb);
	if (b.logs)
		for (i = 0; i < n; i++)
			mem_free(b.logs[i]);
	mem_free(b.logs);
	mem_free(b.log_len);
	mem_free(b.log_cap);
	mem_free(b.workers);
	mem_free(b.diags);
	mem_free(b.errs);
	pthread_mutex_destroy(&b.lock);
	pthread_cond_destroy(&b.changed);
	return status;
}

/*
 * One piece (175 lines): the option table and loop, then one straight
 * sequence (input, base, encode or batch, write) sharing the options and
 * one cleanup path.
 */
int cmd_encode(int argc, char **argv)
{
	enum { O_BASE = 256, O_COMPAT, O_NOFLOATS, O_NOENUM64, O_NOVARS, O_LANGX, O_FORCE,
	       O_NODEDUP, O_STATS, O_LIST, O_DISTILL, O_KFUNCS, O_GLOBAL_VAR, O_ATTRIBUTES,
	       O_BUDGET };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "base", required_argument, NULL, O_BASE },
		{ "compat", required_argument, NULL, O_COMPAT },
		{ "no-floats", no_argument, NULL, O_NOFLOATS },
		{ "no-enum64", no_argument, NULL, O_NOENUM64 },
		{ "no-vars", no_argument, NULL, O_NOVARS },
		{ "lang-exclude", required_argument, NULL, O_LANGX },
		{ "force", no_argument, NULL, O_FORCE },
		{ "no-dedup", no_argument, NULL, O_NODEDUP },
		{ "jobs", required_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, O_STATS },
		{ "list", required_argument, NULL, O_LIST },
		{ "distilled-base", no_argument, NULL, O_DISTILL },
		{ "kfunc-tags", no_argument, NULL, O_KFUNCS },
		{ "global-var", no_argument, NULL, O_GLOBAL_VAR },
		{ "attributes", no_argument, NULL, O_ATTRIBUTES },
		{ "memory-budget", required_argument, NULL, O_BUDGET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint32_t lang_ex[16] = { DW_LANG_Rust, 0 };
	const char *output = NULL, *base_path = NULL, *list = NULL;
	struct enc_opts o;
	struct enc_stats st;
	struct btf *base = NULL;
	struct btf_dedup_base *pb = NULL;
	struct memstat *ms = NULL;
	struct diag d;
	bool stats = false;
	char **paths = NULL;
	size_t npaths = 0, cap = 0, i;
	uint64_t budget = (uint64_t)DEFAULT_BUDGET_MIB << 20;
	char *end;
	int c, err, status;

	enc_opts_default(&o);
	o.floats = true;
	o.jobs = pool_ncpus();
	o.lang_exclude = lang_ex;
	o.log = log_line;
	opterr = 0;
	if (getenv("BTFC_SEED_UNITS"))	/* tests: see enc_opts.seed_units */
		o.seed_units = (unsigned)strtoul(getenv("BTFC_SEED_UNITS"), NULL, 10);
	o.slow_paths = getenv("BTFC_SLOW_PATHS") != NULL;	/* tests: see enc_opts.slow_paths */
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case O_BASE: base_path = optarg; break;
		case O_COMPAT:
			if (!strcmp(optarg, "1.24")) {
				o.compat = ENC_COMPAT_124;
				break;
			}
			if (!strcmp(optarg, "1.31") || !strcmp(optarg, "modern"))
				o.compat = ENC_COMPAT_131;
			else if (!strcmp(optarg, "1.30"))
				o.compat = ENC_COMPAT_130;
			else
				return cli_usage("encode", "--compat takes 1.24, 1.30 or 1.31, not '%s'",
						 optarg);
			o.consistent_func = o.optimized_func = o.decl_tag_kfuncs = o.force = true;
			break;
		case O_NOFLOATS: o.floats = false; break;
		case O_NOENUM64: o.enum64 = false; break;
		case O_NOVARS: o.vars = false; break;
		case O_LANGX:
			if (parse_langs(optarg, lang_ex, sizeof(lang_ex) / sizeof(lang_ex[0])))
				return cli_usage("encode", "unknown language in '%s'", optarg);
			break;
		case O_FORCE: o.force = true; break;
		case O_NODEDUP: o.no_dedup = true; break;
		case O_STATS: stats = true; break;
		case O_LIST: list = optarg; break;
		case O_DISTILL: o.distilled_base = true; break;
		case O_KFUNCS: o.decl_tag_kfuncs = true; break;
		case O_GLOBAL_VAR: o.global_vars = true; break;
		case O_ATTRIBUTES: o.attributes = true; break;
		case O_BUDGET:
			budget = strtoull(optarg, &end, 10);
			if (end == optarg || *end || !budget || budget > (1ull << 30))
				return cli_usage("encode", "bad --memory-budget '%s' (MiB)", optarg);
			budget <<= 20;
			break;
		case 'j':
			if (!(o.jobs = cli_jobs(optarg)))
				return cli_usage("encode", "bad thread count '%s'", optarg);
			break;
		case 'v': o.verbose++; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return cli_bad_option("encode", argv, "o:j:vh");
		}
	}
	if ((o.global_vars || o.attributes) && o.compat == ENC_COMPAT_124)
		return cli_usage("encode", "--%s needs --compat 1.30 or 1.31 (pahole 1.24 has no such feature)",
				 o.global_vars ? "global-var" : "attributes");
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		if (VEC_RESERVE(paths, cap, npaths + 1) || !(paths[npaths] = mem_strdup(argv[i]))) {
			status = cli_fail("encode: out of memory");
			goto out;
		}
		npaths++;
	}
	if (list && (status = read_list(list, &paths, &npaths, &cap)))
		goto out;
	if (!npaths) {
		status = cli_usage("encode", "no input file");
		goto out;
	}
	for (i = 0; i < npaths; i++)
		if (cli_is_stdio(paths[i])) {
			status = cli_usage("encode", "'-': an ELF is read from a path, not standard input");
			goto out;
		}
	if ((npaths > 1 || list) && cli_is_stdio(output)) {
		status = cli_usage("encode", "-o - takes one input (a batch's -o names a directory)");
		goto out;
	}
	diag_clear(&d);
	/*
	 * A batch prepares the base once (with an index of its strings).  One
	 * module takes the base and its prepared tables from the base cache,
	 * or else resolves its strings against the base in one pass and
	 * prepares only the part of the base it can match.
	 */
	if (base_path && (err = npaths > 1 || list
				    ? cli_btf_parse_file(base_path, NULL, 0, &base, &d)
				    : base_cache_load(base_path, &base, &pb, &d))) {
		cli_report(&d, err);
		status = EXIT_ERR;
		goto out;
	}
	o.dedup_base = pb;
	o.log_ctx = paths[0];
	if (npaths > 1 || list) {
		/* -o names a directory: OUT/<name>.btf per input. */
		ms = stats ? memstat_start() : NULL;
		status = run_batch(paths, npaths, output, base, &o, o.jobs, budget);
		memstat_report(ms, stderr);
		ms = NULL;
		goto out;
	}
	if (stats) {
		ms = memstat_start();
		o.phase = memstat_phase;
		o.phase_ctx = ms;
	}
	err = btf_encode_file(paths[0], output, base, &o, &st, &d);
	if (err) {
		cli_report(&d, err);
		status = EXIT_ERR;
		goto out;
	}
	if (stats)
		fprintf(stderr,
			"units %llu (%llu skipped), types before dedup %llu, funcs %llu, vars %llu\n"
			"time: read %.3f s, convert %.3f s (merge %.3f s of it), dedup %.3f s, write %.3f s\n"
			"serial: %.3f s (the wall time with work for one thread only)\n",
			(unsigned long long)st.units, (unsigned long long)st.units_skipped,
			(unsigned long long)st.types_pre_dedup, (unsigned long long)st.funcs,
			(unsigned long long)st.vars, st.read, st.convert, st.merge, st.dedup, st.write,
			st.serial + st.write);
	if (stats && st.ded.nr_in) {
		fprintf(stderr, "dedup: %u -> %u types;", st.ded.nr_in, st.ded.nr_out);
		for (int ph = 0; ph < BTF_DEDUP_NR_PH; ph++)
			fprintf(stderr, " %s %.3f s", btf_dedup_phase_names[ph], st.ded.secs[ph]);
		fputc('\n', stderr);
		cli_dedup_levels(&st.ded);
	}
	memstat_report(ms, stderr);
	ms = NULL;
	status = EXIT_OK;
out:
	memstat_report(ms, NULL);
	for (i = 0; i < npaths; i++)
		mem_free(paths[i]);
	mem_free(paths);
	btf_dedup_base_free(pb);
	btf_free(base);
	return status;
}
