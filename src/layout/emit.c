// SPDX-License-Identifier: GPL-2.0-only
/*
 * Views beyond pahole's text: a compilable C header (--compile), JSON,
 * a per-cacheline map, and a layout diff between two BTFs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "layout/layout_ext.h"
#include "layout/layout_internal.h"

uint32_t layout_find_decl(const struct layout *l, const char *name)
{
	uint32_t id = layout_find(l, name);

	for (uint32_t i = 1; !id && i < l->ntypes; i++) {
		const struct btf_type *t = btf_type_by_id(l->btf, i);

		if (t && btf_kind(t) == BTF_KIND_FWD && t->name_off &&
		    !strcmp(btf_name(l->btf, t->name_off), name))
			id = i;
	}
	return id;
}

/* ---- C declarations ---- */

/* Indentation: "%.*s" with this and a depth (up to 16 tabs). */
static const char TABS[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

struct emit {
	struct layout *l;
	struct lbuf *out;
	uint8_t *state;		/* per id: 2 defining, 3 defined; bit 4: forward-declared;
				 * bit 8: deps of this anonymous aggregate / prototype walked;
				 * bit 16: this typedef's deps for by-value uses walked;
				 * bit 32: this struct printed __packed__ (aligned to 1) */
	int depth;
	uint64_t lines_left;	/* member and padding lines left for inlined bodies */
	uint64_t *named[2];	/* per name offset: a tag / a typedef of that name defined */
};

/*
 * Anonymous bodies and prototypes are printed inline at each use.  Dedup
 * shares identical ones, so one can print more than once, and hostile BTF
 * can nest a shared one twice per level: 2^depth lines.  One emit prints
 * at most EMIT_MIN_LINES plus EMIT_LINES_PER_MEMBER lines (inlined members,
 * padding, parameters) per member in the BTF.
 */
#define EMIT_MIN_LINES (1u << 16)
#define EMIT_LINES_PER_MEMBER 8

static const char *nm(const struct layout *l, const struct btf_type *t)
{
	return t->name_off ? btf_name(l->btf, t->name_off) : NULL;
}

static void body(struct emit *e, uint32_t id, int indent);

/*
 * Append "TYPE DECLARATOR" for type id around declarator `inner`
 * (which may be empty).  Anonymous struct/union/enum bodies are inlined.
 */
static void cdecl(struct emit *e, uint32_t id, const char *inner, int indent)
{
	const struct layout *l = e->l;
	const struct btf_type *t = id ? btf_type_by_id(l->btf, id) : NULL;
	struct lbuf b = { 0 };
	const char *sep = *inner ? " " : "";

	if (++e->depth > 64) {
		lbuf_printf(e->out, "int %s", inner);
		goto out;
	}
	if (!t) {
		lbuf_printf(e->out, "void%s%s", sep, inner);
		goto out;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_TYPEDEF:
		lbuf_printf(e->out, "%s%s%s", nm(l, t) ? nm(l, t) : "int", sep, inner);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: {
		const char *kw = btf_kind(t) == BTF_KIND_UNION ||
				 (btf_kind(t) == BTF_KIND_FWD && btf_kflag(t)) ? "union" :
				 btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_FWD ? "struct" : "enum";

		if (nm(l, t)) {
			lbuf_printf(e->out, "%s %s%s%s", kw, nm(l, t), sep, inner);
		} else if (!e->lines_left) {
			lbuf_printf(e->out, "int /* <ERROR: expansion limit> */%s%s", sep, inner);
		} else {
			body(e, id, indent);
			lbuf_printf(e->out, "%s%s", sep, inner);
		}
		break;
	}
	case BTF_KIND_PTR: {
		const struct btf_type *tt = t->type ? btf_type_by_id(l->btf, t->type) : NULL;
		bool paren = tt && (btf_kind(tt) == BTF_KIND_ARRAY || btf_kind(tt) == BTF_KIND_FUNC_PROTO);

		lbuf_printf(&b, paren ? "(*%s)" : "*%s", inner);
		cdecl(e, t->type, b.p ? b.p : "", indent);
		break;
	}
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG: {
		const struct btf_type *tt = t->type ? btf_type_by_id(l->btf, t->type) : NULL;
		const char *q = btf_kind(t) == BTF_KIND_CONST ? "const" :
				btf_kind(t) == BTF_KIND_VOLATILE ? "volatile" :
				btf_kind(t) == BTF_KIND_RESTRICT ? "restrict" : "";

		if (!*q) {
			cdecl(e, t->type, inner, indent);
		} else if (tt && btf_kind(tt) == BTF_KIND_PTR) {
			lbuf_printf(&b, "%s%s%s", q, sep, inner);
			cdecl(e, t->type, b.p ? b.p : "", indent);
		} else if (tt && btf_kind(tt) == BTF_KIND_ARRAY) {
			cdecl(e, t->type, inner, indent);	/* qualifier on array: drop (C can't spell it) */
		} else {
			lbuf_printf(e->out, "%s ", q);
			cdecl(e, t->type, inner, indent);
		}
		break;
	}
	case BTF_KIND_ARRAY:
		lbuf_printf(&b, "%s[%u]", inner, btf_array(t)->nelems);
		cdecl(e, btf_array(t)->type, b.p ? b.p : "", indent);
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		uint32_t i, n = btf_vlen(t);
		struct emit pe = *e;
		struct lbuf pb = { 0 };

		pe.out = &pb;
		lbuf_printf(&pb, "%s(", inner);
		/* prototypes nest in parameters: those come out of the budget too */
		if (e->lines_left < n) {
			lbuf_printf(&pb, "/* <ERROR: expansion limit> */");
			n = 0;
		}
		pe.lines_left = e->lines_left -= n;
		for (i = 0; i < n; i++) {
			if (i)
				lbuf_printf(&pb, ", ");
			if (!p[i].type)
				lbuf_printf(&pb, "...");
			else
				cdecl(&pe, p[i].type, "", indent);
		}
		e->lines_left = pe.lines_left;
		lbuf_printf(&pb, n ? ")" : "void)");
		cdecl(e, t->type, pb.p ? pb.p : "", indent);
		e->out->oom |= pb.oom;	/* the declarator is incomplete: so is the output */
		lbuf_free(&pb);
		break;
	}
	case BTF_KIND_UNKN: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
	default:
		lbuf_printf(e->out, "int%s%s", sep, inner);
		break;
	}
out:
	e->out->oom |= b.oom;
	lbuf_free(&b);
	e->depth--;
}

static void ensure(struct emit *e, uint32_t id, bool complete);

/* Make every type a member/param of id needs available. */
static void deps(struct emit *e, uint32_t id, bool complete)
{
	const struct btf *b = e->l->btf;
	const struct btf_type *t = id ? btf_type_by_id(b, id) : NULL;
	uint32_t i;

	if (!t || ++e->depth > 256) {
		if (t)
			e->depth--;
		return;
	}
	/* Anonymous aggregates and prototypes have no state of their own; one
	 * walk of their deps is enough (a second ensures nothing new), and
	 * walking a shared one again per use is exponential in hostile BTF. */
	if (btf_kind(t) == BTF_KIND_FUNC_PROTO || (btf_is_composite_kind(btf_kind(t)) && !nm(e->l, t))) {
		if (e->state[id] & 8) {
			e->depth--;
			return;
		}
		e->state[id] |= 8;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		deps(e, t->type, false);
		break;
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		deps(e, t->type, complete);
		break;
	case BTF_KIND_ARRAY:
		deps(e, btf_array(t)->type, true);
		break;
	case BTF_KIND_FUNC_PROTO:
		deps(e, t->type, false);
		for (i = 0; i < btf_vlen(t); i++)
			deps(e, btf_params(t)[i].type, false);
		break;
	case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: case BTF_KIND_FWD:
		if (nm(e->l, t)) {
			ensure(e, id, complete);
		} else if (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION) {
			for (i = 0; i < btf_vlen(t); i++)
				deps(e, btf_members(t)[i].type, true);
		}
		break;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_FUNC: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
		break;
	}
	e->depth--;
}

/*
 * Pad from bit cur to bit to with unnamed bitfields (they do not change
 * the struct's alignment); a huge byte-aligned gap, or any once the line
 * budget is spent, becomes one char array, not millions of lines.
 * Returns to.
 */
static uint64_t pad_bits(struct emit *e, int indent, uint64_t cur, uint64_t to)
{
	while (cur < to) {
		uint64_t chunk = 32 - cur % 32;

		if (cur % 8 == 0 && to - cur >= 8 && (to - cur > (1u << 16) || !e->lines_left)) {
			uint64_t bytes = (to - cur) / 8;

			lbuf_printf(e->out, "%.*s\tunsigned char __pad_%llu[%llu];\n", indent, TABS,
				    (unsigned long long)(cur / 8), (unsigned long long)bytes);
			cur += bytes * 8;
			continue;
		}
		if (chunk > to - cur)
			chunk = to - cur;
		lbuf_printf(e->out, "%.*s\tint :%u;\n", indent, TABS, (unsigned)chunk);
		cur += chunk;
		e->lines_left -= !!e->lines_left;
	}
	return cur;
}

static void body(struct emit *e, uint32_t id, int indent)
{
	struct layout *l = e->l;
	const struct btf_type *t = btf_type_by_id(l->btf, id);
	uint32_t i, n = btf_vlen(t);

	if (btf_kind(t) == BTF_KIND_ENUM || btf_kind(t) == BTF_KIND_ENUM64) {
		bool is64 = btf_kind(t) == BTF_KIND_ENUM64;

		lbuf_printf(e->out, "enum%s%s {\n", nm(l, t) ? " " : "", nm(l, t) ? nm(l, t) : "");
		for (i = 0; i < n; i++) {
			if (is64) {
				const struct btf_enum64 *v = &btf_enum64s(t)[i];

				lbuf_printf(e->out, "%.*s\t%s = %" PRIu64 "ULL,\n", indent, TABS,
					    btf_name(l->btf, v->name_off), btf_enum64_value(v));
			} else {
				const struct btf_enum *v = &btf_enums(t)[i];

				lbuf_printf(e->out, "%.*s\t%s = %d,\n", indent, TABS,
					    btf_name(l->btf, v->name_off), v->val);
			}
		}
		lbuf_printf(e->out, "%.*s}", indent, TABS);
		if (t->size != 4)
			lbuf_printf(e->out, " __attribute__((__packed__))");
		return;
	}
	{
		struct lclass *c = layout_class(l, id);
		bool is_union = btf_kind(t) == BTF_KIND_UNION;

		bool packed = c && !is_union && class_infer_packed(l, c);
		uint64_t cur = 0;

		lbuf_printf(e->out, "%s%s%s {\n", is_union ? "union" : "struct", nm(l, t) ? " " : "",
			    nm(l, t) ? nm(l, t) : "");
		for (i = 0; c && i < c->nr; i++) {
			const struct lmember *m = &c->m[i];
			uint64_t b = m->bit_offset, at;
			uint32_t mt = layout_strip(l, m->type);
			uint32_t a = packed ? 1 : layout_natural_alignment(l, mt);
			uint32_t under = 0;	/* lower the member's alignment to this */
			char name[512];

			/* a struct printed packed is aligned to 1 in the header */
			if (e->state[mt] & 32)
				a = 1;

			if (!packed && m->alignment > a)
				a = m->alignment;
			if (is_union) {
				at = b;
			} else if (m->bitfield_size) {
				uint64_t unit = m->byte_size ? m->byte_size * 8 : 8;

				at = cur;
				if (!packed && at / unit != (at + m->bitfield_size - 1) / unit)
					at = ALIGN_UP(at, unit);
			} else {
				at = ALIGN_UP(cur, (uint64_t)a * 8);
				/*
				 * Placed past its offset: its type is less aligned
				 * than BTF can say (compat_u64 is a u64 typedef
				 * aligned to 4).  Give the member the largest
				 * alignment its offset allows.
				 */
				if (at > b && b % 8 == 0) {
					under = a;
					while (under > 1 && (b / 8) % under)
						under /= 2;
					at = b;
				}
			}
			if (!is_union && at != b && cur < b)
				cur = pad_bits(e, indent, cur, b);
			e->lines_left -= !!e->lines_left;
			snprintf(name, sizeof(name), "%s", m->name ? m->name : "");
			lbuf_printf(e->out, "%.*s\t", indent, TABS);
			cdecl(e, m->type, name, indent + 1);
			if (m->bitfield_size)
				lbuf_printf(e->out, ":%u", m->bitfield_size);
			if (under > 1)
				lbuf_printf(e->out, " __attribute__((__packed__, __aligned__(%u)))", under);
			else if (under)
				lbuf_printf(e->out, " __attribute__((__packed__))");
			else if (m->alignment)
				lbuf_printf(e->out, " __attribute__((__aligned__(%u)))", m->alignment);
			lbuf_printf(e->out, ";\n");
			cur = b + (m->bitfield_size ? m->bitfield_size : m->byte_size * 8);
		}
		/*
		 * The inferred alignment (pahole's, for the printed layout) may
		 * not divide the size: members that pad a struct out (__kernel_timex
		 * ends in eleven `int :32;`) are not in BTF.  Then leave it out
		 * and pad the tail up to the size instead.
		 */
		if (c && !is_union) {
			uint32_t align = packed ? 1 : layout_natural_alignment(l, id);

			if (c->alignment && t->size % c->alignment == 0 && c->alignment > align)
				align = c->alignment;
			if (ALIGN_UP(cur, (uint64_t)align * 8) != (uint64_t)t->size * 8 &&
			    cur < (uint64_t)t->size * 8)
				cur = pad_bits(e, indent, cur, (uint64_t)t->size * 8);
		}
		lbuf_printf(e->out, "%.*s}", indent, TABS);
		if (packed) {
			lbuf_printf(e->out, " __attribute__((__packed__))");
			e->state[id] |= 32;
		} else if (c && !is_union && c->alignment && t->size % c->alignment == 0)
			lbuf_printf(e->out, " __attribute__((__aligned__(%u)))", c->alignment);
	}
}

static void ensure(struct emit *e, uint32_t id, bool complete)
{
	const struct btf_type *t = btf_type_by_id(e->l->btf, id);
	enum btf_kind k = btf_kind(t);
	bool agg = false;	/* declared by tag: struct x; */

	switch (k) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
		agg = true;
		break;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_ENUM: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
		break;
	}

	if (agg && (!complete || k == BTF_KIND_FWD || (e->state[id] & 3) == 2)) {
		/* declared once, unless defined already; one being defined (its
		 * deps come first) is not declared yet either */
		if (!(e->state[id] & 4) && (e->state[id] & 3) != 3) {
			lbuf_printf(e->out, "%s %s;\n\n", k == BTF_KIND_UNION ||
				    (k == BTF_KIND_FWD && btf_kflag(t)) ? "union" : "struct", nm(e->l, t));
			e->state[id] |= 4;
		}
		return;
	}
	if (k == BTF_KIND_TYPEDEF && (e->state[id] & 3) == 3 && complete && !(e->state[id] & 16)) {
		e->state[id] |= 16;	/* declared for a pointer before, now used by value */
		deps(e, t->type, true);
		return;
	}
	if ((e->state[id] & 3) >= 2)
		return;
	/* Types of one name from different compile units: C has room for one
	 * definition, the first (as pahole --compile). */
	{
		uint64_t *set = e->named[k == BTF_KIND_TYPEDEF];
		uint32_t off = t->name_off;

		/* and __builtin_va_list is the compiler's own (clang rejects a redefinition) */
		if ((set[off / 64] >> (off % 64) & 1) ||
		    (k == BTF_KIND_TYPEDEF && !strcmp(nm(e->l, t), "__builtin_va_list"))) {
			e->state[id] = (e->state[id] & 4) | 16 | 3;
			return;
		}
		set[off / 64] |= 1ull << (off % 64);
	}
	e->state[id] = (e->state[id] & 4) | 2;
	if (k == BTF_KIND_TYPEDEF) {
		/* A typedef of a named aggregate only needs it declared, and is
		 * printed then: the aggregate may use the typedef itself.  By value
		 * uses need the aggregate defined too, after. */
		deps(e, t->type, false);
		lbuf_printf(e->out, "typedef ");
		cdecl(e, t->type, nm(e->l, t), 0);
		lbuf_printf(e->out, ";\n\n");
		e->state[id] = (e->state[id] & 4) | (complete ? 16 : 0) | 3;
		if (complete)
			deps(e, t->type, true);
		return;
	} else if ((k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) && !btf_vlen(t)) {
		lbuf_printf(e->out, "enum %s;\n\n", nm(e->l, t));	/* a declaration (GNU C) */
	} else if (k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) {
		body(e, id, 0);
		lbuf_printf(e->out, ";\n\n");
	} else {
		for (uint32_t i = 0; i < btf_vlen(t); i++)
			deps(e, btf_members(t)[i].type, true);
		body(e, id, 0);
		lbuf_printf(e->out, ";\n\n");
	}
	e->state[id] = (e->state[id] & (4 | 32)) | 3;
}

int layout_emit_c(struct layout *l, const uint32_t *ids, size_t n, struct lbuf *out)
{
	struct emit e = { l, out, NULL, 0, EMIT_MIN_LINES };
	size_t i;

	e.state = mem_zalloc(l->ntypes);
	e.named[0] = mem_array(btf_strs_end(l->btf) / 64 + 1, 2 * sizeof(uint64_t));
	if (!e.state || !e.named[0]) {
		mem_free(e.state);
		mem_free(e.named[0]);
		return -ENOMEM;
	}
	e.named[1] = e.named[0] + btf_strs_end(l->btf) / 64 + 1;
	for (i = 1; i < l->ntypes; i++) {
		const struct btf_type *t = btf_type_by_id(l->btf, i);

		if (t && btf_is_composite_kind(btf_kind(t)))
			e.lines_left += (uint64_t)EMIT_LINES_PER_MEMBER * btf_vlen(t);
	}
	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf_type_by_id(l->btf, ids[i]);
		enum btf_kind k = t && nm(l, t) ? btf_kind(t) : BTF_KIND_UNKN;

		switch (k) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: case BTF_KIND_FWD:
			ensure(&e, ids[i], true);
			break;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
		case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			break;
		}
	}
	mem_free(e.state);
	mem_free(e.named[0]);
	return out->oom ? -ENOMEM : 0;
}

/* ---- JSON ---- */

static void json_str(struct lbuf *o, const char *s)
{
	lbuf_printf(o, "\"");
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			lbuf_printf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			lbuf_printf(o, "\\u%04x", *s);
		else
			lbuf_printf(o, "%c", *s);
	}
	lbuf_printf(o, "\"");
}

static void type_str(struct layout *l, uint32_t id, struct lbuf *o)
{
	struct emit e = { l, o, NULL, 0 };
	const struct btf_type *t = id ? btf_type_by_id(l->btf, id) : NULL;

	/* anonymous aggregates: just the keyword */
	if (t && !t->name_off && (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION ||
				  btf_kind(t) == BTF_KIND_ENUM)) {
		lbuf_printf(o, "%s", btf_kind(t) == BTF_KIND_STRUCT ? "struct" :
			    btf_kind(t) == BTF_KIND_UNION ? "union" : "enum");
		return;
	}
	cdecl(&e, id, "", 0);
}

int layout_json(struct layout *l, uint32_t id, struct lbuf *o)
{
	struct lclass *c = layout_class(l, id);
	const struct layout_member *m;
	uint32_t n, i, cls = l->cacheline_size;
	struct lbuf ts = { 0 };
	bool packed;

	if (!c || layout_members(l, id, &m, &n))
		return -EINVAL;
	packed = class_infer_packed(l, c);
	lbuf_printf(o, "{\"name\":");
	json_str(o, pt_name(l, c->t));
	lbuf_printf(o, ",\"kind\":\"%s\",\"id\":%u,\"size\":%u,\"cachelines\":%u,\"alignment\":%u,"
		    "\"natural_alignment\":%u,\"packed\":%s,\"holes\":%u,\"bit_holes\":%u,"
		    "\"padding\":%u,\"bit_padding\":%u,\"members\":[",
		    c->is_struct ? "struct" : "union", id, class_size_of(c),
		    (class_size_of(c) + cls - 1) / cls, c->alignment,
		    layout_natural_alignment(l, id), packed ? "true" : "false", c->nr_holes,
		    c->nr_bit_holes, c->padding, c->bit_padding);
	for (i = 0; i < n; i++) {
		int32_t hole_before = i ? m[i - 1].hole : c->pre_hole;
		uint32_t bit_hole_before = i ? m[i - 1].bit_hole : c->pre_bit_hole;

		lbuf_reset(&ts);
		type_str(l, m[i].type, &ts);
		lbuf_printf(o, "%s{\"name\":", i ? "," : "");
		if (m[i].name)
			json_str(o, m[i].name);
		else
			lbuf_printf(o, "null");
		lbuf_printf(o, ",\"type\":");
		json_str(o, ts.p ? ts.p : "");
		lbuf_printf(o, ",\"type_id\":%u,\"offset\":%u,\"size\":%u,\"bit_offset\":%u", m[i].type,
			    m[i].byte_offset, m[i].byte_size, m[i].bit_offset);
		if (m[i].bitfield_size)
			lbuf_printf(o, ",\"bitfield_offset\":%u,\"bitfield_size\":%u",
				    m[i].bitfield_offset, m[i].bitfield_size);
		lbuf_printf(o, ",\"alignment\":%u,\"natural_alignment\":%u,\"hole_before\":%d,"
			    "\"bit_hole_before\":%u,\"hole_after\":%d,\"bit_hole_after\":%u,"
			    "\"cacheline\":%u}",
			    m[i].alignment, m[i].natural_alignment, hole_before, bit_hole_before,
			    m[i].hole, m[i].bit_hole, m[i].byte_offset / cls);
	}
	lbuf_printf(o, "]}\n");
	lbuf_free(&ts);
	return o->oom ? -ENOMEM : 0;
}

/* ---- cacheline map ---- */

int layout_cacheline_map(struct layout *l, uint32_t id, struct lbuf *o)
{
	struct lclass *c = layout_class(l, id);
	const struct layout_member *m;
	uint32_t n, i, cls = l->cacheline_size, size, lines, line;

	if (!c || layout_members(l, id, &m, &n))
		return -EINVAL;
	size = class_size_of(c);
	lines = (size + cls - 1) / cls;
	lbuf_printf(o, "%s %s: %u bytes, %u cacheline%s of %u bytes\n", c->is_struct ? "struct" : "union",
		    pt_name(l, c->t) ? pt_name(l, c->t) : "(anon)", size, lines, lines == 1 ? "" : "s",
		    cls);
	for (line = 0; line < lines; line++) {
		uint32_t lo = line * cls, hi = lo + cls, used = 0;

		/* Huge structs: only the cachelines some member touches (bounded output). */
		if (lines > 4096) {
			bool any = false;

			for (i = 0; i < n && !any; i++) {
				uint64_t s0 = m[i].byte_offset, e0 = s0 + (m[i].byte_size ? m[i].byte_size : 1);

				any = s0 < hi && e0 > lo;
			}
			if (!any) {
				/* jump to the next line holding a member start */
				uint64_t next = (uint64_t)lines;

				for (i = 0; i < n; i++)
					if (m[i].byte_offset / cls > line && m[i].byte_offset / cls < next)
						next = m[i].byte_offset / cls;
				lbuf_printf(o, "  cachelines %u..%llu: no members\n", line,
					    (unsigned long long)next - 1);
				line = (uint32_t)next - 1;
				continue;
			}
		}

		lbuf_printf(o, "  cacheline %u [%u..%u]:", line, lo, (hi < size ? hi : size) - 1);
		for (i = 0; i < n; i++) {
			uint64_t s0 = m[i].bitfield_size ? m[i].bit_offset / 8 : m[i].byte_offset;
			uint64_t e0 = m[i].bitfield_size ? (m[i].bit_offset + m[i].bitfield_size + 7) / 8 :
				      (uint64_t)m[i].byte_offset + m[i].byte_size;
			uint64_t a = s0 > lo ? s0 : lo, b = e0 < hi ? e0 : hi;

			if (!(s0 < hi && (e0 > lo || (e0 == s0 && s0 >= lo))))
				continue;
			if (b > a)
				used += (uint32_t)(b - a);
			lbuf_printf(o, " %s", m[i].name ? m[i].name : "(anon)");
			if (m[i].bitfield_size)
				lbuf_printf(o, ":%u", m[i].bitfield_size);
			if (s0 < lo)
				lbuf_printf(o, "(cont)");
			else if (e0 > hi)
				lbuf_printf(o, "(spills)");
		}
		if (!c->is_struct)
			lbuf_printf(o, "\n");
		else
			lbuf_printf(o, "  [%u of %u bytes used]\n", used > cls ? cls : used,
				    (hi < size ? hi : size) - lo);
	}
	return o->oom ? -ENOMEM : 0;
}

/* ---- diff ---- */

static const struct layout_member *by_name(const struct layout_member *m, uint32_t n,
					   const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (m[i].name && !strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

int layout_diff(struct layout *a, struct layout *b, const char *name, struct lbuf *o)
{
	uint32_t ia = layout_find(a, name), ib = layout_find(b, name);
	struct lclass *ca, *cb;
	const struct layout_member *ma, *mb;
	uint32_t na, nb, i;
	struct lbuf ta = { 0 }, tb = { 0 };
	size_t start = o->len;
	int changed = 0;

	if (!ia && !ib)
		return -ENOENT;
	if (!ia || !ib) {
		lbuf_printf(o, "%s %s: only in %s\n", "type", name, ia ? "old" : "new");
		return 1;
	}
	ca = layout_class(a, ia);
	cb = layout_class(b, ib);
	if (!ca || !cb || layout_members(a, ia, &ma, &na) || layout_members(b, ib, &mb, &nb)) {
		lbuf_printf(o, "%s: not a struct or union in both\n", name);
		return 1;
	}
	lbuf_printf(o, "%s %s:", ca->is_struct ? "struct" : "union", name);
	if (class_size_of(ca) != class_size_of(cb)) {
		lbuf_printf(o, " size %u -> %u (%+lld)", class_size_of(ca), class_size_of(cb),
			    (long long)class_size_of(cb) - (long long)class_size_of(ca));
		changed = 1;
	}
	if (ca->nr_holes != cb->nr_holes) {
		lbuf_printf(o, " holes %u -> %u", ca->nr_holes, cb->nr_holes);
		changed = 1;
	}
	if (ca->padding != cb->padding) {
		lbuf_printf(o, " padding %u -> %u", ca->padding, cb->padding);
		changed = 1;
	}
	lbuf_printf(o, "\n");
	for (i = 0; i < na; i++) {
		const struct layout_member *x = &ma[i], *y;

		if (!x->name)
			continue;
		y = by_name(mb, nb, x->name);
		if (!y) {
			lbuf_printf(o, "  - %s (offset %u, size %u)\n", x->name, x->byte_offset, x->byte_size);
			changed = 1;
			continue;
		}
		lbuf_reset(&ta);
		lbuf_reset(&tb);
		type_str(a, x->type, &ta);
		type_str(b, y->type, &tb);
		if (x->bit_offset != y->bit_offset || x->byte_size != y->byte_size ||
		    x->bitfield_size != y->bitfield_size || strcmp(ta.p ? ta.p : "", tb.p ? tb.p : "")) {
			lbuf_printf(o, "  ~ %s:", x->name);
			if (x->bit_offset != y->bit_offset) {
				if (x->bit_offset % 8 || y->bit_offset % 8)
					lbuf_printf(o, " bit offset %u -> %u", x->bit_offset, y->bit_offset);
				else
					lbuf_printf(o, " offset %u -> %u", x->bit_offset / 8, y->bit_offset / 8);
			}
			if (x->byte_size != y->byte_size)
				lbuf_printf(o, " size %u -> %u", x->byte_size, y->byte_size);
			if (x->bitfield_size != y->bitfield_size)
				lbuf_printf(o, " bits %u -> %u", x->bitfield_size, y->bitfield_size);
			if (strcmp(ta.p ? ta.p : "", tb.p ? tb.p : ""))
				lbuf_printf(o, " type '%s' -> '%s'", ta.p ? ta.p : "", tb.p ? tb.p : "");
			lbuf_printf(o, "\n");
			changed = 1;
		}
	}
	for (i = 0; i < nb; i++)
		if (mb[i].name && !by_name(ma, na, mb[i].name)) {
			lbuf_printf(o, "  + %s (offset %u, size %u)\n", mb[i].name, mb[i].byte_offset,
				    mb[i].byte_size);
			changed = 1;
		}
	if (na != nb && !changed) {
		lbuf_printf(o, "  members %u -> %u\n", na, nb);
		changed = 1;
	}
	lbuf_free(&ta);
	lbuf_free(&tb);
	if (!changed)
		o->len = start;
	return changed;
}
