// SPDX-License-Identifier: GPL-2.0-only
/*
 * Distilled base BTF and relocation (docs/btf.md 5), libbpf's
 * btf__distill_base() / btf__relocate() semantics.
 *
 * Distilling a split BTF S over base B gives a minimal base B' (named INT,
 * FLOAT, FWD, and member-less named STRUCT/UNION/ENUM) and a split S' over
 * it holding S's types plus full copies of everything else S needs from B.
 * Relocating S' onto another base B2 matches each B' type by name (and
 * size, kind rules) and rewrites S' to sit on B2: what the kernel does at
 * module load when a module carries .BTF.base.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "btf/distill.h"
#include "btf/btf_internal.h"

static bool distillable_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_FWD: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_TYPEDEF: case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_VOLATILE: case BTF_KIND_FUNC_PROTO: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
		break;
	}
	return false;
}

/* The kinds a distilled base may hold (named, libbpf's btf__relocate()). */
static bool dist_base_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_ENUM: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_FWD:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/* Does base type t go into B' (as opposed to being copied into S')? */
static bool goes_to_base(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_FWD:
		return true;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return t->name_off != 0;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		break;
	}
	return false;
}

/* Copy record t of src into dst, re-adding its strings (ids untouched). */
static int copy_type(struct btf *dst, const struct btf *src, const struct btf_type *t)
{
	size_t sz = btf_type_size(t);
	struct btf_type *c = mem_alloc(sz);
	struct btf_field_iter it;
	uint32_t *f;
	int id;

	if (!c)
		return -ENOMEM;
	memcpy(c, t, sz);
	btf_field_iter_init(&it, c, BTF_FIELD_STRS);
	while ((f = btf_field_iter_next(&it))) {
		int64_t off;

		if (!*f)
			continue;
		off = btf_add_str(dst, btf_name(src, *f));
		if (off < 0) {
			mem_free(c);
			return (int)off;
		}
		*f = (uint32_t)off;
	}
	id = btf_add_raw(dst, c, sz);
	mem_free(c);
	return id;
}

int btf_distill_base(const struct btf *s, struct btf **out_base, struct btf **out_split,
		     struct diag *d)
{
	const struct btf *b = btf_base(s);
	struct btf *nb = NULL, *ns = NULL;
	uint32_t split_start, n, id, *idmap = NULL, *stack = NULL, shift;
	size_t sp = 0, cap = 0;
	int err = 0;

	*out_base = *out_split = NULL;
	if (!b)
		return diag_err(d, EINVAL, "distill: the BTF has no base (it is not split BTF)");
	split_start = btf_start_id(s);
	n = btf_type_count(s);
	idmap = mem_array(n, sizeof(*idmap));
	if (!idmap)
		goto oom;
	/* Collect every base type the split types reach, stopping at named composites. */
	for (id = split_start; id < n; id++) {
		struct btf_field_iter it;
		uint32_t *f;

		btf_field_iter_init(&it, (struct btf_type *)btf_type_by_id(s, id), BTF_FIELD_IDS);
		while ((f = btf_field_iter_next(&it))) {
			if (!*f || *f >= split_start || idmap[*f])
				continue;
			if (VEC_RESERVE(stack, cap, sp + 1))
				goto oom;
			idmap[*f] = *f;
			stack[sp++] = *f;
			while (sp) {
				uint32_t x = stack[--sp];
				const struct btf_type *t = btf_type_by_id(b, x);
				struct btf_field_iter it2;
				uint32_t *g;

				if (!distillable_kind(btf_kind(t))) {
					err = diag_err(d, EINVAL,
						       "distill: split type [%u] refers to base type [%u], a %s, which cannot be distilled",
						       id, x, btf_kind_str(btf_kind(t)));
					goto out;
				}
				if ((btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION) &&
				    t->name_off)
					continue;
				btf_field_iter_init(&it2, (struct btf_type *)t, BTF_FIELD_IDS);
				while ((g = btf_field_iter_next(&it2))) {
					if (!*g || idmap[*g])
						continue;
					if (VEC_RESERVE(stack, cap, sp + 1))
						goto oom;
					idmap[*g] = *g;
					stack[sp++] = *g;
				}
			}
		}
	}
	/* B': the named leaves, in base order. */
	if (!(nb = btf_new(NULL)))
		goto oom;
	btf_set_endian(nb, s->endian);
	for (id = 1; id < split_start; id++) {
		const struct btf_type *t;
		struct btf_type rec[2];
		int nid;

		if (!idmap[id])
			continue;
		t = btf_type_by_id(b, id);
		if (!goes_to_base(t))
			continue;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
		case BTF_KIND_FWD:
			nid = copy_type(nb, b, t);
			break;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		/* the others do not go to the base (goes_to_base) */
		case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		default:
			memset(rec, 0, sizeof(rec));
			rec[0].name_off = t->name_off;
			rec[0].info = BTF_INFO_ENC(btf_kind(t) == BTF_KIND_ENUM64 ? BTF_KIND_ENUM
										: btf_kind(t), 0, 0);
			rec[0].size = t->size;
			nid = copy_type(nb, b, rec);
		}
		if (nid < 0) {
			err = nid;
			goto out;
		}
		idmap[id] = (uint32_t)nid;
	}
	/* S': the split's own types, then the other reached base types. */
	if (!(ns = btf_new(nb)))
		goto oom;
	for (id = split_start; id < n; id++)
		if ((err = copy_type(ns, s, btf_type_by_id(s, id))) < 0)
			goto out;
	for (id = 1; id < split_start; id++) {
		const struct btf_type *t;
		int nid;

		if (!idmap[id])
			continue;
		t = btf_type_by_id(b, id);
		if (goes_to_base(t))
			continue;
		if ((nid = copy_type(ns, b, t)) < 0) {
			err = nid;
			goto out;
		}
		idmap[id] = (uint32_t)nid;
	}
	shift = split_start - btf_type_count(nb);
	for (id = btf_start_id(ns); id < btf_type_count(ns); id++) {
		struct btf_field_iter it;
		uint32_t *f;

		btf_field_iter_init(&it, btf_type_mut(ns, id), BTF_FIELD_IDS);
		while ((f = btf_field_iter_next(&it))) {
			if (*f < n && idmap[*f])
				*f = idmap[*f];
			else if (*f >= split_start)
				*f -= shift;
		}
	}
	*out_base = nb;
	*out_split = ns;
	nb = ns = NULL;
	err = 0;
	goto out;
oom:
	err = diag_err(d, ENOMEM, "distill: out of memory");
out:
	if (err > 0)
		err = 0;
	btf_free(ns);
	btf_free(nb);
	mem_free(idmap);
	mem_free(stack);
	return err;
}

/* ---- relocation ---- */

#define EMBEDDED 0xffffffffu

struct dentry {
	const char *name;
	uint32_t size, id;
};

static int cmp_dentry(const void *a, const void *b)
{
	const struct dentry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;	/* size descending */
	return x->id < y->id ? -1 : x->id > y->id;
}

static void report_add(struct btf_reloc_report *rep, uint32_t id, const char *kind,
		       const char *name, const char *why)
{
	struct btf_reloc_miss *m;

	if (!rep || rep->n >= rep->max)
		return;
	if (mem_grow((void **)&rep->items, &rep->cap, sizeof(*rep->items), rep->n + 1))
		return;
	m = &rep->items[rep->n++];
	m->id = id;
	snprintf(m->msg, sizeof(m->msg), "[%u] %s '%s': %s", id, kind, name, why);
}

static uint32_t skip_mods(const struct btf *s, uint32_t id)
{
	int guard;

	for (guard = 0; guard < 64; guard++) {
		const struct btf_type *t = btf_type_by_id(s, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPEDEF: case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			id = btf_array(t)->type;
			break;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_FUNC:
		case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_ENUM64:
		default:
			return id;
		}
	}
	return 0;
}

/*
 * One piece (220 lines): its passes (check the distilled base, index it
 * by name, mark sizes that must hold, match each distilled type in b2,
 * rewrite the split types) share the id and string maps and one cleanup
 * path, and run in libbpf's btf_relocate order, which decides which of
 * several candidates matches.
 */
int btf_relocate(const struct btf *s, const struct btf *b2, struct btf **out,
		 struct btf_reloc_report *rep, struct diag *d)
{
	const struct btf *dist = btf_base(s);
	uint32_t nd, nb, id, i, *idmap = NULL, *strmap = NULL, dstrlen;
	uint8_t *names = NULL;
	struct dentry *ix = NULL;
	struct btf *ns = NULL;
	size_t nix = 0;
	int err = 0, bad = 0;

	*out = NULL;
	if (!dist || !b2 || dist == b2)
		return diag_err(d, EINVAL, "relocate: need a split BTF on a distilled base and a different target base");
	if (btf_base(b2))
		return diag_err(d, EINVAL, "relocate: the target base must be a standalone (vmlinux) BTF");
	nd = btf_type_count(dist);
	nb = btf_type_count(b2);
	dstrlen = btf_strs_end(dist);
	/* The distilled base may only hold named INT, FLOAT, ENUM, STRUCT, UNION, FWD. */
	for (id = 1; id < nd; id++) {
		const struct btf_type *t = btf_type_by_id(dist, id);
		enum btf_kind k = btf_kind(t);

		if (!t->name_off || !dist_base_kind(k))
			return diag_err(d, EINVAL,
					"relocate: distilled base type [%u] is a %s%s, which relocation does not accept",
					id, t->name_off ? "" : "anonymous ", btf_kind_str(k));
	}
	idmap = mem_array(nd, sizeof(*idmap));
	strmap = mem_array(dstrlen + 1, sizeof(*strmap));
	ix = mem_array(nd, sizeof(*ix));
	names = mem_array(btf_strs_end(b2) + 1, 1);
	if (!idmap || !strmap || !ix || !names)
		goto oom;
	for (id = 1; id < nd; id++) {
		const struct btf_type *t = btf_type_by_id(dist, id);

		ix[nix].name = btf_name(dist, t->name_off);
		ix[nix].size = btf_kind(t) == BTF_KIND_FWD ? 0 : t->size;
		ix[nix].id = id;
		nix++;
	}
	qsort(ix, nix, sizeof(*ix), cmp_dentry);
	/* Composites embedded (not pointed to) by split composites must keep their size. */
	for (id = btf_start_id(s); id < btf_type_count(s); id++) {
		const struct btf_type *t = btf_type_by_id(s, id);
		const struct btf_member *m;

		if (btf_kind(t) != BTF_KIND_STRUCT && btf_kind(t) != BTF_KIND_UNION)
			continue;
		m = btf_members(t);
		for (i = 0; i < btf_vlen(t); i++) {
			uint32_t e = skip_mods(s, m[i].type);
			const struct btf_type *et = e ? btf_type_by_id(s, e) : NULL;

			if (e && e < nd && et &&
			    (btf_kind(et) == BTF_KIND_STRUCT || btf_kind(et) == BTF_KIND_UNION))
				idmap[e] = EMBEDDED;
		}
	}
	for (id = 1; id < nb; id++) {
		const struct btf_type *t = btf_type_by_id(b2, id);
		unsigned k = btf_kind(t);

		if ((k == BTF_KIND_STRUCT || k == BTF_KIND_UNION) && t->name_off && names[t->name_off] < 255)
			names[t->name_off]++;
	}
	for (id = 1; id < nb; id++) {
		const struct btf_type *t = btf_type_by_id(b2, id);
		enum btf_kind k = btf_kind(t);
		struct dentry key, *e;
		bool use_size;
		size_t lo = 0, hi = nix;

		if (!t->name_off)
			continue;
		switch (k) {
		case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			use_size = true;
			break;
		case BTF_KIND_FWD:
			use_size = false;
			break;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION:
			use_size = names[t->name_off] > 1;
			break;
		case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		default:
			continue;
		}
		key.name = btf_name(b2, t->name_off);
		key.size = t->size;
		/* leftmost entry with this name */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(ix[mid].name, key.name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (e = ix + lo; e < ix + nix && !strcmp(e->name, key.name); e++) {
			const struct btf_type *dt = btf_type_by_id(dist, e->id);
			enum btf_kind dk = btf_kind(dt);
			bool ok = false;

			if (use_size && dk != BTF_KIND_FWD && e->size != key.size)
				continue;
			switch (dk) {
			case BTF_KIND_FWD:
				ok = (k == BTF_KIND_FWD && btf_kflag(t) == btf_kflag(dt)) ||
				     (k == BTF_KIND_STRUCT && !btf_kflag(dt)) ||
				     (k == BTF_KIND_UNION && btf_kflag(dt));
				break;
			case BTF_KIND_INT:
				ok = k == BTF_KIND_INT &&
				     BTF_INT_ENCODING(btf_int_word(t)) == BTF_INT_ENCODING(btf_int_word(dt));
				break;
			case BTF_KIND_FLOAT:
				ok = k == BTF_KIND_FLOAT;
				break;
			case BTF_KIND_ENUM:
				ok = k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64;
				break;
			case BTF_KIND_STRUCT: case BTF_KIND_UNION:
				ok = (k == BTF_KIND_STRUCT || k == BTF_KIND_UNION) &&
				     !(idmap[e->id] == EMBEDDED && dt->size != t->size);
				break;
			case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
			case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
			case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
			case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
			case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
				break;	/* not in a distilled base (checked above) */
			}
			if (!ok)
				continue;
			if (idmap[e->id] && idmap[e->id] != EMBEDDED) {
				report_add(rep, e->id, btf_kind_str(dk), e->name,
					   "several candidates of the same size in the target base");
				bad++;
				continue;
			}
			idmap[e->id] = id;
			strmap[dt->name_off] = t->name_off;
		}
	}
	for (id = 1; id < nd; id++) {
		const struct btf_type *dt = btf_type_by_id(dist, id);

		if (idmap[id] && idmap[id] != EMBEDDED)
			continue;
		report_add(rep, id, btf_kind_str(btf_kind(dt)), btf_name(dist, dt->name_off),
			   idmap[id] == EMBEDDED ? "embedded by the module, but no type of that name and size in the target base"
						 : "no type of that name (and kind, size, encoding) in the target base");
		bad++;
	}
	if (bad) {
		err = diag_err(d, ENOENT, "relocate: %d distilled base type%s do not match the target base",
			       bad, bad == 1 ? "" : "s");
		goto out;
	}
	if (!(ns = btf_new(b2)))
		goto oom;
	for (id = btf_start_id(s); id < btf_type_count(s); id++) {
		const struct btf_type *t = btf_type_by_id(s, id);
		size_t sz = btf_type_size(t);
		struct btf_type *c = mem_alloc(sz);
		struct btf_field_iter it;
		uint32_t *f;
		int nid;

		if (!c)
			goto oom;
		memcpy(c, t, sz);
		btf_field_iter_init(&it, c, BTF_FIELD_IDS);
		while ((f = btf_field_iter_next(&it)))
			*f = *f < nd ? (*f ? idmap[*f] : 0) : *f + nb - nd;
		btf_field_iter_init(&it, c, BTF_FIELD_STRS);
		while ((f = btf_field_iter_next(&it))) {
			int64_t off;

			if (!*f)
				continue;
			if (*f < dstrlen) {
				if (!strmap[*f]) {
					mem_free(c);
					err = diag_err(d, ENOENT,
						       "relocate: split type [%u] uses distilled-base string '%s' that no matched type provides",
						       id, btf_name(dist, *f));
					goto out;
				}
				*f = strmap[*f];
				continue;
			}
			off = btf_add_str(ns, btf_name(s, *f));
			if (off < 0) {
				mem_free(c);
				goto oom;
			}
			*f = (uint32_t)off;
		}
		nid = btf_add_raw(ns, c, sz);
		mem_free(c);
		if (nid < 0)
			goto oom;
	}
	*out = ns;
	ns = NULL;
	goto out;
oom:
	err = diag_err(d, ENOMEM, "relocate: out of memory");
out:
	btf_free(ns);
	mem_free(idmap);
	mem_free(strmap);
	mem_free(ix);
	mem_free(names);
	return err;
}

void btf_reloc_report_free(struct btf_reloc_report *rep)
{
	mem_free(rep->items);
	rep->items = NULL;
	rep->n = rep->cap = 0;
}
