// SPDX-License-Identifier: GPL-2.0-only
/*
 * Layout printing of a parsed blob, as `btfc layout` does it: every
 * struct/union pahole would print, with class info, members, JSON,
 * the cacheline map, -R reorganisation and --compile output, and a
 * layout diff of the blob against itself.
 *
 * Input: a raw BTF blob (the same seeds as fuzz_btf).
 */
#include "base/diag.h"
#include "btf/btf.h"
#include "layout/layout.h"
#include "layout/layout_ext.h"
#include "fuzz_common.h"

#define MAX_TYPES 400	/* per input, to keep one run short */

struct ctx {
	struct lbuf out;
	unsigned n;
};

static int each(void *vctx, struct layout *l, uint32_t id)
{
	struct ctx *c = vctx;
	struct layout_class_info ci;
	const struct layout_member *m;
	uint32_t n;
	char name[256];

	if (++c->n > MAX_TYPES)
		return 1;
	lbuf_reset(&c->out);
	(void)layout_print(l, id, NULL, NULL, &c->out);
	if (layout_class_info(l, id, &ci))
		ci.size = 0;
	(void)layout_members(l, id, &m, &n);
	(void)layout_type_name(l, id, name, sizeof(name));
	(void)layout_json(l, id, &c->out);
	/* output is one line per cacheline of the claimed size: bounded here */
	if (ci.size <= (1u << 20))
		(void)layout_cacheline_map(l, id, &c->out);
	(void)layout_packable(l, id);
	(void)layout_reorganize(l, id, c->n & 1, &c->out);
	(void)layout_print_packable(l, id, '\t', &c->out);
	fuzz_touch_str(c->out.p);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layout_opts o = { 0 };
	struct ctx c = { 0 };
	struct layout *l, *l2;
	struct btf *b;
	struct diag d;
	uint32_t id, n;
	int err;

	diag_clear(&d);
	if (btf_parse_flags(data, size, NULL, BTF_PARSE_NO_STR_INDEX, &b, &d))
		return 0;
	o.expand_types = size & 1;
	o.hex = size & 2;
	o.rel_offset = size & 4;
	o.compat = size & 8 ? LAYOUT_COMPAT_1_24 : size & 16 ? LAYOUT_COMPAT_1_30 : LAYOUT_COMPAT_1_31;
	diag_clear(&d);
	err = layout_open(b, &o, &l, &d);
	fuzz_check_err(err, &d);
	if (err) {
		btf_free(b);
		return 0;
	}
	(void)layout_each_class(l, NULL, each, &c);
	n = btf_type_count(b);
	for (id = 0; id < n && id < MAX_TYPES; id++) {
		lbuf_reset(&c.out);
		(void)layout_print(l, id, NULL, NULL, &c.out);
		(void)layout_strip(l, id);
		(void)layout_type_size(l, id);
		(void)layout_natural_alignment(l, id);
		(void)layout_first_typedef_of(l, id);
		(void)layout_has_embedded_flexible_array(l, id);
	}
	{
		uint32_t ids[8];
		size_t k = 0;
		bool huge = false;

		/* --compile pads gaps with one "int :32;" per 32 bits: output is
		 * proportional to claimed sizes, so only small structs here.  The
		 * offsets it pads to are the layout's (pahole's, which a fuzzed
		 * member size can wrap far past the BTF record's offset). */
		for (id = 1; id < n; id++) {
			const struct btf_type *t = btf_type_by_id(b, id);

			if (btf_is_composite_kind(btf_kind(t))) {
				const struct btf_member *mb = btf_members(t);
				const struct layout_member *lm;
				uint32_t nlm;

				huge |= t->size > (1u << 16);
				for (uint32_t j = 0; j < btf_vlen(t); j++)
					huge |= btf_member_bit_offset(t, &mb[j]) > (1u << 19);
				if (!layout_members(l, id, &lm, &nlm))
					for (uint32_t j = 0; j < nlm; j++)
						huge |= lm[j].bit_offset > (1u << 19);
				if (k < 8)
					ids[k++] = id;
			}
		}
		lbuf_reset(&c.out);
		if (!huge)
			(void)layout_emit_c(l, ids, k, &c.out);
	}
	diag_clear(&d);
	if (!layout_open(b, &o, &l2, &d)) {
		const struct btf_type *t = btf_type_by_id(b, n > 1 ? n - 1 : 0);
		const char *name = t ? btf_name(b, t->name_off) : NULL;

		lbuf_reset(&c.out);
		if (name && *name)
			(void)layout_diff(l, l2, name, &c.out);
		layout_close(l2);
	}
	(void)layout_find(l, "s");
	lbuf_free(&c.out);
	layout_close(l);
	btf_free(b);
	return 0;
}
