// SPDX-License-Identifier: GPL-2.0-only
/*
 * --stats memory: a thread samples the process's resident set
 * (/proc/self/statm) every SAMPLE_MS while the encoder runs, and keeps,
 * per phase (named by the encoder's enc_opts.phase calls), the largest
 * sample, its anonymous and file-backed parts, and the big blocks alive
 * at that moment (mem_blocks: the arrays of a kernel-sized run).  The
 * process's peak itself comes from getrusage, exact; a phase's is the
 * largest sample, within SAMPLE_MS of it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "cli/cli.h"

#define SAMPLE_MS 2
#define MAX_PHASES 8
#define TOP_BLOCKS 4

struct phase_mem {
	const char *name;
	size_t rss, anon;		/* bytes at the phase's largest sample */
	struct mem_block top[TOP_BLOCKS];
	size_t ntop, nblocks, blocks;	/* the big blocks then: listed, all, their bytes */
};

struct memstat {
	pthread_t th;
	pthread_mutex_t lock;		/* phases[], nphases */
	atomic_bool stop;
	struct phase_mem phases[MAX_PHASES];
	size_t nphases;
	long page;
	bool running;
};

/* Resident and file-backed (shared) bytes, or false. */
static bool statm(long page, size_t *rss, size_t *file)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size, res, shr;
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%lu %lu %lu", &size, &res, &shr) == 3;
	fclose(f);
	*rss = (size_t)res * (size_t)page;
	*file = (size_t)shr * (size_t)page;
	return ok;
}

static void sample(struct memstat *m)
{
	size_t rss, file;
	struct phase_mem *p;

	if (!statm(m->page, &rss, &file))
		return;
	pthread_mutex_lock(&m->lock);
	p = m->nphases ? &m->phases[m->nphases - 1] : NULL;
	if (p && rss > p->rss) {
		p->rss = rss;
		p->anon = rss - file;
		p->ntop = mem_blocks(p->top, TOP_BLOCKS, &p->nblocks, &p->blocks);
	}
	pthread_mutex_unlock(&m->lock);
}

static void *sampler(void *arg)
{
	struct memstat *m = arg;
	struct timespec ts = { 0, SAMPLE_MS * 1000000L };

	while (!atomic_load(&m->stop)) {
		sample(m);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

struct memstat *memstat_start(void)
{
	struct memstat *m = mem_zalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->page = sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&m->lock, NULL);
	atomic_init(&m->stop, false);
	m->running = m->page > 0 && !pthread_create(&m->th, NULL, sampler, m);
	return m;
}

/* enc_opts.phase: a new phase starts (its first sample is taken now). */
void memstat_phase(void *ctx, const char *name)
{
	struct memstat *m = ctx;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	if (m->nphases && !strcmp(m->phases[m->nphases - 1].name, name)) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	if (m->nphases < MAX_PHASES)
		memset(&m->phases[m->nphases++], 0, sizeof(m->phases[0]));
	m->phases[m->nphases - 1].name = name;
	pthread_mutex_unlock(&m->lock);
	sample(m);
}

static double mib(size_t n)
{
	return (double)n / (1024.0 * 1024.0);
}

/* Stop sampling and print the peak and each phase's largest sample (out NULL: nothing). */
void memstat_report(struct memstat *m, FILE *out)
{
	struct rusage ru;
	size_t i, k;

	if (!m)
		return;
	if (m->running) {
		atomic_store(&m->stop, true);
		pthread_join(m->th, NULL);
	}
	if (out && !getrusage(RUSAGE_SELF, &ru))
		fprintf(out, "memory: peak RSS %.0f MiB\n", (double)ru.ru_maxrss / 1024.0);
	for (i = 0; out && i < m->nphases; i++) {
		const struct phase_mem *p = &m->phases[i];

		if (!p->rss)
			continue;
		fprintf(out, "  %-8s %5.0f MiB (anon %.0f, file %.0f); big blocks %.0f MiB in %zu",
			p->name, mib(p->rss), mib(p->anon), mib(p->rss - p->anon), mib(p->blocks),
			p->nblocks);
		for (k = 0; k < p->ntop; k++)
			fprintf(out, "%s %s %.0f", k ? "," : ":", p->top[k].tag ? p->top[k].tag : "other",
				mib(p->top[k].len));
		fputc('\n', out);
	}
	pthread_mutex_destroy(&m->lock);
	mem_free(m);
}
