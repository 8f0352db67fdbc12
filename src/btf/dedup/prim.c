// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup, phase 2: primitive types. */
#include "btf/dedup/internal.h"

/* ---- phase 2: primitive types ------------------------------------------- */

/* An enum's whole content, for the no-base lookup of dedup_prim(). */
static uint64_t enum_key(const struct btf_type *t)
{
	const uint32_t *w = (const uint32_t *)(t + 1);
	size_t i, n = btf_vlen(t) * (btf_kind(t) == BTF_KIND_ENUM ? 2u : 3u);
	uint64_t h = hc(hc(hc(0, t->name_off), t->info), t->size);

	for (i = 0; i < n; i++)
		h = hc(h, w[i]);
	return h;
}

static bool enum_fast(const struct dedup *d, const struct btf_type *t)
{
	return !d->btf->base && !is_enum_fwd(t) &&
	       !u32set_has(&d->fwd_enum_names, t->name_off);
}

int dedup_prim(struct dedup *d, uint32_t id)
{
	struct btf_type *t = T(d, id), *c;
	uint32_t new_id = id, cid;
	enum btf_kind k = btf_kind(t);
	struct dcand it;
	uint64_t h;

	/* hashed here rather than in prep: 8 bytes per type less at the peak */
	if (!prim_kind(k))
		return 0;
	kind_hash(d, t, &h);
	switch (k) {
	case BTF_KIND_INT:
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			if (equal_int_tag(t, T(d, cid))) {
				new_id = cid;
				break;
			}
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		/*
		 * Without a base, and with no forward enum of t's name in the
		 * table, the scan below can only find t's one equal enum
		 * (canonical enums are pairwise unequal): look it up by content
		 * rather than walk every enum of the name (all anonymous enums
		 * share one bucket, thousands in the kernel).
		 */
		if (enum_fast(d, t)) {
			if (!d->enum_idx.nslots)
				break;
			for (dcand_init(&it, &d->enum_idx, enum_key(t)); (cid = dcand_next(&it)) != NIL;)
				if (equal_enum(t, T(d, cid))) {
					new_id = cid;
					break;
				}
			break;
		}
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			c = T(d, cid);
			if (equal_enum(t, c)) {
				new_id = cid;
				break;
			}
			/* compat_enum(t, c), knowing they are not equal */
			if ((is_enum_fwd(t) || is_enum_fwd(c)) && t->name_off == c->name_off &&
			    is_any_enum(c)) {
				if (is_enum_fwd(t)) {
					new_id = cid;
					break;
				}
				/* the canonical forward enum now points at t */
				set_map(d, cid, id);
			}
		}
		break;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			if (equal_common(t, T(d, cid))) {
				new_id = cid;
				break;
			}
		}
		break;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	default:
		return 0;
	}
	set_map(d, id, new_id);
	if (new_id == id && dtab_add(&d->tab, h, id))
		return -ENOMEM;
	if (new_id == id && is_any_enum(t) && !d->btf->base &&
	    ((d->enum_idx.nslots == 0 && dtab_init(&d->enum_idx, 0, NULL)) ||
	     dtab_add(&d->enum_idx, enum_key(t), id) ||
	     (is_enum_fwd(t) && u32set_add(&d->fwd_enum_names, t->name_off))))
		return -ENOMEM;
	return 0;
}
