// SPDX-License-Identifier: GPL-2.0-only
/*
 * A conversion worker's lifecycle (enc_worker_new/_recycle/_free, its
 * unit fragments), its notes, and the hash side of its reference map
 * (struct refmap in worker.h, whose direct-array cases are inline there).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "encode/worker.h"

struct enc_worker *enc_worker_new(void)
{
	struct enc_worker *w = mem_zalloc(sizeof(struct enc_worker));

	if (!w)
		return NULL;
	arena_init(&w->scache_text.copies, 64 << 10);
	if (!(w->filter = enc_walk_filter())) {
		enc_worker_free(w);
		return NULL;
	}
	return w;
}

void enc_worker_recycle(struct enc_worker *w)
{
	/* Cached offsets are into the last run's output. */
	memset(w->shorts, 0, sizeof(w->shorts));
	if (w->scache_text.cap) {
		scache_free(&w->scache_text);
		arena_init(&w->scache_text.copies, 64 << 10);
	}
	/* The direct array's entries go through its log at the next refmap_direct(). */
	w->map.dlen = 0;
	/* the last run's abbreviation tables are gone: their plans too */
	dw_filter_forget(w->filter);
}

void enc_worker_free(struct enc_worker *w)
{
	if (!w)
		return;
	mem_free(w->map.keys);
	mem_free(w->map.vals);
	mem_free(w->map.gens);
	mem_free(w->map.direct);
	mem_free(w->map.dlog);
	mem_free(w->types);
	mem_free(w->kids);
	mem_free(w->kids_sorted);
	mem_free(w->funcs);
	mem_free(w->vars);
	mem_free(w->tags);
	mem_free(w->unexp_origins);
	mem_free(w->imports);
	mem_free(w->perm);
	mem_free(w->perm_order);
	mem_free(w->packed);
	mem_free(w->count);
	mem_free(w->open);
	mem_free(w->open_kind);
	scache_free(&w->scache_text);
	dw_filter_free(w->filter);
	mem_free(w);
}

void cu_frag_reset(struct cu_frag *f)
{
	f->nwords = f->nrecs = f->nfuncs = f->nvars = f->notes_len = 0;
	if (f->notes)
		f->notes[0] = 0;
	f->ntypes = f->int_id = f->synth_id = 0;
	f->skipped = f->has_int = false;
	f->loc_min = UINT64_MAX;
	f->err = 0;
	diag_clear(&f->diag);
}

void cu_frag_free(struct cu_frag *f)
{
	mem_free(f->words);
	mem_free(f->recs);
	mem_free(f->funcs);
	mem_free(f->vars);
	mem_free(f->notes);
	mem_free(f->ubuf);
	memset(f, 0, sizeof(*f));
}

void enc_note(struct enc_worker *w, const char *fmt, ...)
{
	struct cu_frag *f = w->frag;
	char line[512];
	va_list ap;
	int n;

	if (!w->ctx->o->verbose)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (mem_grow((void **)&f->notes, &f->notes_cap, 1, f->notes_len + (size_t)n + 2))
		return;
	memcpy(f->notes + f->notes_len, line, (size_t)n);
	f->notes_len += (size_t)n;
	f->notes[f->notes_len++] = '\n';
	f->notes[f->notes_len] = 0;
}

void enc_note_die(struct enc_worker *w, uint64_t die, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (!w->ctx->o->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* (the caller's log names the input file) */
	enc_note(w, "%sDIE 0x%llx: %s",
		 die & DW_REF_ALT ? "alternate file's " : die & DW_REF_TYPES ? ".debug_types " : "",
		 (unsigned long long)DW_REF_OFF(die), msg);
}

/* ---- the reference map ---- */

int refmap_reset(struct refmap *m, size_t expect)
{
	size_t cap = 1024;

	while (cap < expect * 2)
		cap *= 2;
	if (cap > m->cap) {
		mem_free(m->keys);
		mem_free(m->vals);
		mem_free(m->gens);
		m->keys = mem_array(cap, sizeof(*m->keys));
		m->vals = mem_array(cap, sizeof(*m->vals));
		m->gens = mem_array(cap, sizeof(*m->gens));
		m->cap = cap;
		m->gen = 0;
		if (!m->keys || !m->vals || !m->gens) {
			m->cap = 0;
			return -ENOMEM;
		}
	}
	if (++m->gen == 0) {	/* wrapped: really clear */
		memset(m->gens, 0, m->cap * sizeof(*m->gens));
		m->gen = 1;
	}
	m->n = 0;
	return 0;
}

/* Point the direct array at unit u (plain .debug_info units only). */
int refmap_direct(struct refmap *m, const struct dw_unit *u)
{
	uint64_t len = u->end - u->off;
	size_t i;

	for (i = 0; i < m->dlog_n; i++)
		m->direct[m->dlog[i]] = 0;
	m->dlog_n = 0;
	m->dbase = u->off;
	m->dlen = 0;
	if (u->in_types || len > (64u << 20))
		return 0;	/* huge (LTO) units use the hash table */
	if (len > m->dcap) {
		mem_free(m->direct);
		m->direct = mem_array(len, sizeof(*m->direct));
		if (!m->direct) {
			m->dcap = 0;
			return -ENOMEM;
		}
		mem_tag(m->direct, "DIE map");
		m->dcap = len;
	}
	m->dlen = len;
	return 0;
}

int refmap_put_hash(struct refmap *m, uint64_t key, uint32_t val)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {	/* grow: rehash live entries */
		struct refmap nm = { 0 };
		size_t i;

		if (refmap_reset(&nm, m->cap))
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->gens[i] == m->gen)
				refmap_put(&nm, m->keys[i], m->vals[i]);
		mem_free(m->keys);
		mem_free(m->vals);
		mem_free(m->gens);
		nm.direct = m->direct;
		nm.dbase = m->dbase;
		nm.dlen = m->dlen;
		nm.dcap = m->dcap;
		nm.dlog = m->dlog;
		nm.dlog_n = m->dlog_n;
		nm.dlog_cap = m->dlog_cap;
		*m = nm;
	}
	for (j = hash_mix(key) & (m->cap - 1); m->gens[j] == m->gen; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			m->vals[j] = val;
			return 0;
		}
	m->gens[j] = m->gen;
	m->keys[j] = key;
	m->vals[j] = val;
	m->n++;
	return 0;
}

bool refmap_find_hash(const struct refmap *m, uint64_t key, uint32_t *val)
{
	size_t j;

	for (j = hash_mix(key) & (m->cap - 1); m->gens[j] == m->gen; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			*val = m->vals[j];
			return true;
		}
	return false;
}
