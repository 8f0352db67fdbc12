// SPDX-License-Identifier: GPL-2.0-only
/*
 * -R: reorganize a struct's members to remove holes.
 *
 * Not pahole's move-by-move heuristic but its goal, reached directly:
 * members become units (a run of bitfields is one unit, its storage
 * shrunk to the smallest unsigned type that holds its bits, as pahole's
 * "demote bitfields" step does), units are laid out by decreasing
 * alignment (stable, so equal alignments keep their order), a trailing
 * zero-sized member (flexible array) stays last.  With power-of-two
 * alignments and sizes that are multiples of them this leaves no inner
 * holes: the size is the sum rounded up to the struct's alignment, which
 * no reordering can beat.  Packed structs are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "layout/layout_ext.h"
#include "layout/layout_internal.h"

struct unit {
	uint32_t first, count;		/* member index range */
	uint64_t start_bit;		/* original start (bits) */
	uint64_t size;			/* bytes */
	uint32_t align;
	uint32_t demote_type;		/* new storage type for bitfields, 0 = keep */
	uint64_t new_bit;		/* new start (bits) */
};

/*
 * The first INT named as pahole's unsigned type of that many bytes, or 0.
 * Kept in l->uint_id: one scan of the types per size and layout, not one
 * per bitfield run (65,535 runs in a BTF of 60,000 types were 4e9 name
 * compares).
 */
static uint32_t find_uint(struct layout *l, uint32_t bytes)
{
	const char *n;
	uint32_t r = 0;

	if (bytes <= 8 && l->uint_id[bytes])
		return l->uint_id[bytes] - 1;
	switch (bytes) {
	case 1: n = "unsigned char"; break;
	case 2: n = "short unsigned int"; break;
	case 4: n = "unsigned int"; break;
	case 8: n = l->addr_size == 8 ? "long unsigned int" : "long long unsigned int"; break;
	default: return 0;
	}
	for (uint32_t id = 1; id < l->ntypes; id++) {
		const struct btf_type *t = btf_type_by_id(l->btf, id);

		if (t && btf_kind(t) == BTF_KIND_INT && t->name_off &&
		    !strcmp(btf_name(l->btf, t->name_off), n)) {
			r = id;
			break;
		}
	}
	l->uint_id[bytes] = r + 1;
	return r;
}

static uint32_t member_align(struct layout *l, const struct lmember *m)
{
	uint32_t a = layout_natural_alignment(l, layout_strip(l, m->type));

	if (m->alignment > a)
		a = m->alignment;
	return a ? a : 1;
}

static int cmp_units(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->align != y->align)
		return x->align > y->align ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Units of struct c, laid out anew.  Returns the new size (or the old one if no gain). */
static int plan(struct layout *l, struct lclass *c, struct unit **up, uint32_t *nup,
		uint32_t *new_size)
{
	struct unit *u = mem_array(c->nr ? c->nr : 1, sizeof(*u));
	uint32_t nu = 0, i = 0, salign = c->alignment ? c->alignment : 1;
	uint64_t off = 0;
	uint32_t pinned = 0;

	if (!u)
		return -ENOMEM;
	while (i < c->nr) {
		struct unit *x = &u[nu++];
		const struct lmember *m = &c->m[i];

		x->first = i;
		if (m->bitfield_size) {
			uint64_t end = 0;
			uint32_t j = i, need, bytes;

			x->start_bit = (uint64_t)m->byte_offset * 8;
			x->align = 1;
			while (j < c->nr && c->m[j].bitfield_size &&
			       (j == i || c->m[j].bit_offset >= x->start_bit)) {
				uint64_t e = c->m[j].bit_offset + c->m[j].bitfield_size - x->start_bit;
				uint32_t a = member_align(l, &c->m[j]);

				if (e > end)
					end = e;
				if (a > x->align)
					x->align = a;
				j++;
			}
			x->count = j - i;
			need = (uint32_t)((end + 7) / 8);
			/* the power of two holding need, as far as a demotion cares (<= 8) */
			for (bytes = 1; bytes < need && bytes <= 8; bytes *= 2)
				;
			if (bytes < x->align && bytes <= 8 && (x->demote_type = find_uint(l, bytes)))
				x->align = bytes;
			x->size = ALIGN_UP((uint64_t)need, (uint64_t)x->align);
			i = j;
		} else {
			x->count = 1;
			x->start_bit = m->bit_offset;
			x->size = m->byte_size;
			x->align = member_align(l, m);
			i++;
		}
		if (x->align > salign)
			salign = x->align;
	}
	/* A trailing zero-sized member (flexible array) stays last. */
	if (nu > 1 && u[nu - 1].size == 0)
		pinned = 1;
	qsort(u, nu - pinned, sizeof(*u), cmp_units);
	for (i = 0; i < nu; i++) {
		off = ALIGN_UP(off, (uint64_t)u[i].align);
		u[i].new_bit = off * 8;
		off += u[i].size;
	}
	off = ALIGN_UP(off, (uint64_t)salign);
	*up = u;
	*nup = nu;
	*new_size = off < class_size_of(c) ? (uint32_t)off : class_size_of(c);
	return 0;
}

/* A reorganized copy of c (caller frees with mem_free; ->t is owned by it too). */
static struct lclass *reorganized(struct layout *l, struct lclass *c, uint32_t *new_size)
{
	struct unit *u;
	uint32_t nu, i, k = 0;
	struct lclass *n;
	struct btf_type *t;

	if (plan(l, c, &u, &nu, new_size))
		return NULL;
	n = mem_zalloc(sizeof(*n) + (size_t)c->nr * sizeof(n->m[0]) + sizeof(*t));
	if (!n) {
		mem_free(u);
		return NULL;
	}
	t = (struct btf_type *)((char *)n + sizeof(*n) + (size_t)c->nr * sizeof(n->m[0]));
	*t = *c->t;
	t->size = *new_size;
	n->t = t;
	n->id = c->id;
	n->nr = c->nr;
	n->is_struct = true;
	n->alignment = c->alignment;
	if (*new_size >= class_size_of(c)) {
		memcpy(n->m, c->m, (size_t)c->nr * sizeof(n->m[0]));
		mem_free(u);
		return n;
	}
	for (i = 0; i < nu; i++) {
		for (uint32_t j = 0; j < u[i].count; j++) {
			struct lmember *m = &n->m[k++];

			*m = c->m[u[i].first + j];
			m->bit_offset = (uint32_t)(m->bit_offset - u[i].start_bit + u[i].new_bit);
			if (m->bitfield_size) {
				uint32_t bytes = u[i].demote_type ? u[i].align : (uint32_t)m->byte_size;

				if (u[i].demote_type) {
					m->type = u[i].demote_type;
					m->byte_size = bytes;
					m->bit_size = bytes * 8;
				}
				if (!m->bit_size) {	/* a zero-sized type: left as class members do it */
					m->byte_offset = m->bit_offset / 8;
					m->bitfield_offset = 0;
					continue;
				}
				m->byte_offset = m->bit_offset / m->bit_size * m->bit_size / 8;
				m->bitfield_offset = (int8_t)(m->bit_offset - m->byte_offset * 8);
			} else {
				m->byte_offset = m->bit_offset / 8;
			}
		}
	}
	mem_free(u);
	return n;
}

bool layout_packable(struct layout *l, uint32_t id)
{
	struct lclass *c = layout_class(l, id), *n;
	uint32_t ns;
	bool r;

	if (!c || !c->is_struct)
		return false;
	class_find_holes(l, c);
	if (c->nr_holes == 0 && c->nr_bit_holes == 0)
		return false;
	if (class_infer_packed(l, c))
		return false;
	n = reorganized(l, c, &ns);
	r = n && ns < class_size_of(c);
	mem_free(n);
	return r;
}

int layout_print_packable(struct layout *l, uint32_t id, char sep, struct lbuf *out)
{
	struct lclass *c = layout_class(l, id), *n;
	uint32_t ns;

	if (!c)
		return -EINVAL;
	n = reorganized(l, c, &ns);
	if (!n)
		return -ENOMEM;
	lbuf_printf(out, "%s%c%u%c%u%c%u\n", pt_name(l, c->t), sep, class_size_of(c), sep, ns, sep,
		    class_size_of(c) - ns);
	mem_free(n);
	return 0;
}

int layout_reorganize(struct layout *l, uint32_t id, bool show_steps, struct lbuf *out)
{
	struct lclass *c = layout_class(l, id), *n;
	uint32_t ns, old, cls = l->cacheline_size;
	int savings, err;

	if (!c || !c->is_struct)
		return -EINVAL;
	class_find_holes(l, c);
	old = class_size_of(c);
	if (class_infer_packed(l, c))
		ns = old, n = NULL;
	else if (!(n = reorganized(l, c, &ns)))
		return -ENOMEM;
	savings = (int)(old - ns);	/* pahole's int difference, wrapping as it does (no UB) */
	if (show_steps && savings) {
		if ((err = layout_print(l, id, NULL, NULL, out)))
			goto out;
		lbuf_printf(out, "\n\n/* Final reorganized struct: */\n");
	}
	err = n ? layout_print_class(l, n, out) : layout_print(l, id, NULL, NULL, out);
	if (err)
		goto out;
	if (savings) {
		uint32_t clsav = (old + cls - 1) / cls - (ns + cls - 1) / cls;

		lbuf_printf(out, "   /* saved %d byte%s", savings, savings != 1 ? "s" : "");
		if (clsav)
			lbuf_printf(out, " and %u cacheline%s", clsav, clsav != 1 ? "s" : "");
		lbuf_printf(out, "! */\n");
	} else {
		lbuf_printf(out, "\n");
	}
out:
	mem_free(n);
	return err;
}

int layout_reorg_plan(struct layout *l, uint32_t id, uint32_t **order, uint64_t **bit_offsets,
		      uint32_t *nout, uint32_t *new_size)
{
	struct lclass *c = layout_class(l, id), *n;
	uint32_t i;

	if (!c || !c->is_struct)
		return -EINVAL;
	class_find_holes(l, c);
	if (!(n = reorganized(l, c, new_size)))
		return -ENOMEM;
	*order = mem_array(c->nr ? c->nr : 1, sizeof(**order));
	*bit_offsets = mem_array(c->nr ? c->nr : 1, sizeof(**bit_offsets));
	if (!*order || !*bit_offsets) {
		mem_free(*order);
		mem_free(*bit_offsets);
		mem_free(n);
		return -ENOMEM;
	}
	for (i = 0; i < n->nr; i++) {
		(*order)[i] = n->m[i].idx;
		(*bit_offsets)[i] = n->m[i].bit_offset;
	}
	*nout = n->nr;
	mem_free(n);
	return 0;
}
