// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF -> compilable C header (docs/btf.md 6), the algorithm of libbpf's
 * btf_dump (ordering into an emit queue, then emission with forward
 * declarations, declarator chains, padding and ___N name de-duplication)
 * inside bpftool v7.1's vmlinux.h wrapper, so that the output can be
 * compared with `bpftool btf dump file F format c` (libbpf 1.1 details:
 * no enum mode() attributes, no packed-aware btf__align_of).
 */
#include "btf/dump.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/hash.h"
#include "base/mem.h"
#include "btf/btf_internal.h"

enum { NOT_ORDERED, ORDERING, ORDERED };
enum { NOT_EMITTED, EMITTING, EMITTED };

struct tstate {
	uint8_t order, emit;
	uint8_t fwd_emitted : 1, name_resolved : 1, referenced : 1;
};

/* name -> count, for ___N suffixes. */
struct namemap {
	const char **keys;
	uint32_t *counts;
	size_t nslots, n;
};

struct dumper {
	const struct btf *btf;
	btf_emit_fn emit;
	void *ctx;
	struct diag *d;
	int err;
	struct tstate *st;
	char **cached;		/* resolved ___N names, by id */
	uint32_t *queue;
	size_t nqueue, capqueue;
	uint32_t *decl;		/* declarator stack */
	size_t ndecl, capdecl;
	struct namemap type_names, ident_names;
	int ptr_sz;
	int depth;		/* of order_type recursion */
	char buf[1 << 16];
	size_t blen;
};

struct idstack {
	uint32_t *ids;
	size_t cnt;
};

static void flush(struct dumper *dp)
{
	if (dp->blen && !dp->err) {
		int e = dp->emit(dp->ctx, dp->buf, dp->blen);

		if (e)
			dp->err = diag_err(dp->d, e < 0 ? -e : e, "C dump: output failed");
	}
	dp->blen = 0;
}

static void out(struct dumper *dp, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void out(struct dumper *dp, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(dp->buf) - dp->blen < 1024)
		flush(dp);
	va_start(ap, fmt);
	n = vsnprintf(dp->buf + dp->blen, sizeof(dp->buf) - dp->blen, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(dp->buf) - dp->blen) {
		/* A single very long piece: format it on its own. */
		char *tmp = mem_alloc((size_t)n + 1);

		if (!tmp) {
			dp->err = diag_err(dp->d, ENOMEM, "out of memory");
			return;
		}
		va_start(ap, fmt);
		vsnprintf(tmp, (size_t)n + 1, fmt, ap);
		va_end(ap);
		flush(dp);
		if (!dp->err && dp->emit(dp->ctx, tmp, (size_t)n))
			dp->err = diag_err(dp->d, EIO, "C dump: output failed");
		mem_free(tmp);
		return;
	}
	dp->blen += (size_t)n;
}

static const char *pfx(int lvl)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t";
	size_t n = sizeof(tabs) - 1;

	return lvl >= (int)n ? tabs : tabs + n - lvl;
}

static const char *name_of(const struct dumper *dp, uint32_t off)
{
	const char *s = btf_name(dp->btf, off);

	return s ? s : "";
}

/* ---- names ------------------------------------------------------------ */

static size_t name_dups(struct dumper *dp, struct namemap *m, const char *name)
{
	size_t len = strlen(name), i;
	uint64_t h = hash_bytes(name, len);

	if ((m->n + 1) * 4 > m->nslots * 3) {
		size_t ns = m->nslots ? m->nslots * 2 : 1024, j;
		const char **keys = mem_array(ns, sizeof(*keys));
		uint32_t *counts = mem_array(ns, sizeof(*counts));

		if (!keys || !counts) {
			mem_free(keys);
			mem_free(counts);
			dp->err = diag_err(dp->d, ENOMEM, "out of memory");
			return 1;
		}
		for (i = 0; i < m->nslots; i++) {
			if (!m->keys[i])
				continue;
			for (j = hash_bytes(m->keys[i], strlen(m->keys[i])) & (ns - 1); keys[j];
			     j = (j + 1) & (ns - 1))
				;
			keys[j] = m->keys[i];
			counts[j] = m->counts[i];
		}
		mem_free(m->keys);
		mem_free(m->counts);
		m->keys = keys;
		m->counts = counts;
		m->nslots = ns;
	}
	for (i = h & (m->nslots - 1); m->keys[i]; i = (i + 1) & (m->nslots - 1))
		if (!strcmp(m->keys[i], name))
			return ++m->counts[i];
	m->keys[i] = name;
	m->counts[i] = 1;
	m->n++;
	return 1;
}

static const char *resolve_name(struct dumper *dp, uint32_t id, struct namemap *m)
{
	struct tstate *s = &dp->st[id];
	const struct btf_type *t = btf_type_by_id(dp->btf, id);
	const char *orig = name_of(dp, t->name_off);
	size_t dup;

	if (!t->name_off)
		return "";
	if (s->name_resolved)
		return dp->cached[id] ? dp->cached[id] : orig;
	if (btf_kind(t) == BTF_KIND_FWD || (btf_kind(t) == BTF_KIND_ENUM && !btf_vlen(t))) {
		s->name_resolved = 1;
		return orig;
	}
	dup = name_dups(dp, m, orig);
	if (dup > 1) {
		char nb[300];

		snprintf(nb, sizeof(nb), "%.256s___%zu", orig, dup);
		dp->cached[id] = mem_strdup(nb);
	}
	s->name_resolved = 1;
	return dp->cached[id] ? dp->cached[id] : orig;
}

static const char *type_name(struct dumper *dp, uint32_t id)
{
	return resolve_name(dp, id, &dp->type_names);
}

static const char *ident_name(struct dumper *dp, uint32_t id)
{
	return resolve_name(dp, id, &dp->ident_names);
}

/* ---- sizes and alignment (libbpf btf__resolve_size / btf__align_of) ---- */

static int64_t resolve_size(const struct dumper *dp, uint32_t id)
{
	uint64_t nelems = 1;
	int depth;

	for (depth = 0; depth < 32; depth++) {
		const struct btf_type *t = btf_type_by_id(dp->btf, id);

		if (!t)
			return -EINVAL;
		switch (btf_kind(t)) {
		case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
			return (int64_t)(nelems * t->size);
		case BTF_KIND_PTR:
			return (int64_t)(nelems * (uint64_t)dp->ptr_sz);
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			nelems *= btf_array(t)->nelems;
			if (nelems > UINT32_MAX)
				return -E2BIG;
			id = btf_array(t)->type;
			break;
		case BTF_KIND_UNKN: case BTF_KIND_FWD: case BTF_KIND_FUNC:
		case BTF_KIND_FUNC_PROTO:
		default:
			return -EINVAL;
		}
	}
	return -E2BIG;
}

static int align_of(const struct dumper *dp, uint32_t id, int depth)
{
	const struct btf_type *t = btf_type_by_id(dp->btf, id);

	if (!t || depth > 64)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64: case BTF_KIND_FLOAT:
		return (int)MIN((uint32_t)dp->ptr_sz, t->size);
	case BTF_KIND_PTR:
		return dp->ptr_sz;
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		return align_of(dp, t->type, depth + 1);
	case BTF_KIND_ARRAY:
		return align_of(dp, btf_array(t)->type, depth + 1);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		int max_align = 1, a;
		unsigned i;

		for (i = 0; i < btf_vlen(t); i++, m++) {
			a = align_of(dp, m->type, depth + 1);
			if (a <= 0)
				return a;
			max_align = MAX(max_align, a);
			/* A misaligned non-bitfield member means a packed struct. */
			if (!btf_member_bitfield_size(t, m) && m->offset % (8 * (uint32_t)a))
				return 1;
		}
		if (t->size % (uint32_t)max_align)
			return 1;
		return max_align;
	}
	case BTF_KIND_UNKN: case BTF_KIND_FWD: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
	default:
		return 0;
	}
}

/* libbpf 1.1: max alignment taken over the members here, not btf__align_of(id). */
static bool struct_packed(const struct dumper *dp, uint32_t id, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	int max_align = 1, align;
	unsigned i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		align = align_of(dp, m->type, 0);
		if (align && !btf_member_bitfield_size(t, m) && m->offset % (8 * (uint32_t)align))
			return true;
		max_align = MAX(align, max_align);
	}
	return t->size % (uint32_t)max_align != 0;
}

/* ---- ordering ---------------------------------------------------------- */

static int enqueue(struct dumper *dp, uint32_t id)
{
	if (VEC_RESERVE(dp->queue, dp->capqueue, dp->nqueue + 1))
		return diag_err(dp->d, ENOMEM, "out of memory");
	dp->queue[dp->nqueue++] = id;
	return 0;
}

static int order_type(struct dumper *dp, uint32_t id, bool through_ptr);

/*
 * Ordering recurses along type references; cycles through arrays (or
 * chains of references running backwards through the ids) in hostile
 * BTF would recurse without end.  Real C types nest a few levels deep.
 */
#define ORDER_MAX_DEPTH 4096

static int order_type_1(struct dumper *dp, uint32_t id, bool through_ptr)
{
	struct tstate *ts = &dp->st[id];
	const struct btf_type *t = btf_type_by_id(dp->btf, id);
	unsigned i, vlen;
	int err;

	if (ts->order == ORDERED)
		return 1;
	if (!t)
		return diag_err(dp->d, EINVAL, "C dump: reference to missing type %u", id);
	vlen = btf_vlen(t);
	if (ts->order == ORDERING) {
		if (btf_is_composite_kind(btf_kind(t)) && through_ptr && t->name_off)
			return 0;
		return diag_err(dp->d, ELOOP, "C dump: unsatisfiable type cycle at type [%u]", id);
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		ts->order = ORDERED;
		return 0;
	case BTF_KIND_PTR:
		err = order_type(dp, t->type, true);
		ts->order = ORDERED;
		return err;
	case BTF_KIND_ARRAY:
		return order_type(dp, btf_array(t)->type, false);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (through_ptr && t->name_off)
			return 0;
		ts->order = ORDERING;
		for (i = 0; i < vlen; i++)
			if ((err = order_type(dp, btf_members(t)[i].type, false)) < 0)
				return err;
		if (t->name_off && (err = enqueue(dp, id)))
			return err;
		ts->order = ORDERED;
		return 1;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		if ((t->name_off || !ts->referenced) && (err = enqueue(dp, id)))
			return err;
		ts->order = ORDERED;
		return 1;
	case BTF_KIND_TYPEDEF: {
		int strong = order_type(dp, t->type, through_ptr);

		if (strong < 0)
			return strong;
		if (through_ptr && !strong)
			return 0;
		if ((err = enqueue(dp, id)))
			return err;
		ts->order = ORDERED;
		return 1;
	}
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return order_type(dp, t->type, through_ptr);
	case BTF_KIND_FUNC_PROTO: {
		bool strong;

		if ((err = order_type(dp, t->type, through_ptr)) < 0)
			return err;
		strong = err > 0;
		for (i = 0; i < vlen; i++) {
			if ((err = order_type(dp, btf_params(t)[i].type, through_ptr)) < 0)
				return err;
			if (err > 0)
				strong = true;
		}
		return strong;
	}
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
		ts->order = ORDERED;
		return 0;
	case BTF_KIND_UNKN:
	default:
		return diag_err(dp->d, EINVAL, "C dump: type [%u] has unknown kind %u", id, btf_kind(t));
	}
}

static int order_type(struct dumper *dp, uint32_t id, bool through_ptr)
{
	int r;

	if (dp->depth >= ORDER_MAX_DEPTH)
		return diag_err(dp->d, ELOOP,
				"C dump: type references nest deeper than %d levels at type [%u] (a reference cycle?)",
				ORDER_MAX_DEPTH, id);
	dp->depth++;
	r = order_type_1(dp, id, through_ptr);
	dp->depth--;
	return r;
}

/* ---- emission ---------------------------------------------------------- */

static void emit_type_decl(struct dumper *dp, uint32_t id, const char *fname, int lvl);

static void emit_struct_fwd(struct dumper *dp, uint32_t id, const struct btf_type *t)
{
	out(dp, "%s%s%s", btf_kind(t) == BTF_KIND_STRUCT ? "struct" : "union",
	    t->name_off ? " " : "", type_name(dp, id));
}

static void emit_fwd_def(struct dumper *dp, uint32_t id, const struct btf_type *t)
{
	out(dp, "%s %s", btf_kflag(t) ? "union" : "struct", type_name(dp, id));
}

/* Fill [cur, next) with unnamed bitfields so the compiler reproduces the offsets. */
static void emit_bit_padding(struct dumper *dp, int64_t cur, int64_t next, int next_align,
			     bool in_bitfield, int lvl)
{
	const struct { const char *name; int bits; } pads[] = {
		{ "long", dp->ptr_sz * 8 }, { "int", 32 }, { "short", 16 }, { "char", 8 },
	};
	int64_t new_off = 0, a;	/* 64-bit: hostile offsets near 2^32 bits */
	int pad_bits = 0, bits, i;
	const char *pad_type = NULL;

	if (cur >= next)
		return;
	for (i = 0; i < (int)ARRAY_SIZE(pads); i++) {
		pad_bits = pads[i].bits;
		pad_type = pads[i].name;
		new_off = (cur + pad_bits - 1) / pad_bits * pad_bits;
		if (new_off <= next)
			break;
	}
	if (new_off > cur && new_off <= next) {
		a = next_align > 0 ? (int64_t)next_align * 8 : 8;	/* 0 for hostile 0-sized types */

		if (in_bitfield || (new_off == next && (cur + a - 1) / a * a != new_off) ||
		    (new_off != next && next - new_off <= new_off - cur))
			out(dp, "\n%s%s: %d;", pfx(lvl), pad_type, in_bitfield ? (int)(new_off - cur) : 0);
		cur = new_off;
	}
	while (cur != next && !dp->err) {	/* a huge gap is many lines: stop on output error */
		bits = (int)MIN(next - cur, (int64_t)pad_bits);
		if (bits == pad_bits) {
			out(dp, "\n%s%s: %d;", pfx(lvl), pad_type, pad_bits);
			cur += bits;
			continue;
		}
		/* The tail: the smallest type that holds it. */
		for (i = (int)ARRAY_SIZE(pads) - 1; i >= 0; i--) {
			pad_type = pads[i].name;
			pad_bits = pads[i].bits;
			if (pad_bits < bits)
				continue;
			out(dp, "\n%s%s: %d;", pfx(lvl), pad_type, bits);
			cur += bits;
			break;
		}
	}
}

static void emit_struct_def(struct dumper *dp, uint32_t id, const struct btf_type *t, int lvl)
{
	const struct btf_member *m = btf_members(t);
	bool is_struct = btf_kind(t) == BTF_KIND_STRUCT, packed, prev_bitfield = false;
	unsigned i, vlen = btf_vlen(t);
	int align;
	int64_t off = 0;

	packed = is_struct ? struct_packed(dp, id, t) : false;
	align = packed ? 1 : align_of(dp, id, 0);
	out(dp, "%s%s%s {", is_struct ? "struct" : "union", t->name_off ? " " : "",
	    type_name(dp, id));
	for (i = 0; i < vlen; i++, m++) {
		const char *fname = name_of(dp, m->name_off);
		int m_sz = (int)btf_member_bitfield_size(t, m);
		int64_t m_off = btf_member_bit_offset(t, m);
		int m_align = packed ? 1 : align_of(dp, m->type, 0);
		bool in_bitfield = prev_bitfield && m_sz != 0;

		emit_bit_padding(dp, off, m_off, m_align, in_bitfield, lvl + 1);
		out(dp, "\n%s", pfx(lvl + 1));
		emit_type_decl(dp, m->type, fname, lvl + 1);
		if (m_sz) {
			out(dp, ": %d", m_sz);
			off = m_off + m_sz;
			prev_bitfield = true;
		} else {
			int64_t sz = resolve_size(dp, m->type);

			off = m_off + MAX((int64_t)0, sz) * 8;
			prev_bitfield = false;
		}
		out(dp, ";");
	}
	if (is_struct)
		emit_bit_padding(dp, off, (int64_t)t->size * 8, align, false, lvl + 1);
	if (vlen || t->size)
		out(dp, "\n%s}", pfx(lvl));
	else
		out(dp, "}");
	if (packed)
		out(dp, " __attribute__((packed))");
}

static void emit_enum_def(struct dumper *dp, uint32_t id, const struct btf_type *t, int lvl)
{
	unsigned i, vlen = btf_vlen(t);
	bool is_signed = btf_kflag(t), e64 = btf_kind(t) == BTF_KIND_ENUM64;

	out(dp, "enum%s%s", t->name_off ? " " : "", type_name(dp, id));
	if (!vlen)
		return;
	out(dp, " {");
	for (i = 0; i < vlen; i++) {
		uint32_t noff = e64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;
		const char *name = name_of(dp, noff);
		size_t dup = name_dups(dp, &dp->ident_names, name);
		char sfx[32] = "";

		if (dup > 1)
			snprintf(sfx, sizeof(sfx), "___%zu", dup);
		if (e64) {
			uint64_t v = btf_enum64_value(&btf_enum64s(t)[i]);

			if (is_signed)
				out(dp, "\n%s%s%s = %lldLL,", pfx(lvl + 1), name, sfx, (long long)v);
			else
				out(dp, "\n%s%s%s = %lluULL,", pfx(lvl + 1), name, sfx,
				    (unsigned long long)v);
		} else {
			int32_t v = btf_enums(t)[i].val;

			if (is_signed)
				out(dp, "\n%s%s%s = %d,", pfx(lvl + 1), name, sfx, v);
			else
				out(dp, "\n%s%s%s = %u,", pfx(lvl + 1), name, sfx, (uint32_t)v);
		}
	}
	out(dp, "\n%s}", pfx(lvl));
	/*
	 * libbpf >= 1.2 adds mode(byte) / mode(word) for 1- and 8-byte enums;
	 * bpftool v7.1 (libbpf 1.1), our reference, does not.
	 */
}

static void emit_typedef_def(struct dumper *dp, uint32_t id, const struct btf_type *t, int lvl)
{
	const char *name = ident_name(dp, id);

	if (t->type == 0 && !strcmp(name, "__gnuc_va_list")) {
		out(dp, "typedef __builtin_va_list __gnuc_va_list");
		return;
	}
	out(dp, "typedef ");
	emit_type_decl(dp, t->type, name, lvl);
}

static bool blacklisted(const struct dumper *dp, uint32_t id)
{
	const struct btf_type *t = btf_type_by_id(dp->btf, id);

	return t->name_off && !strcmp(name_of(dp, t->name_off), "__builtin_va_list");
}

static void emit_mods(struct dumper *dp, struct idstack *s)
{
	while (s->cnt) {
		const struct btf_type *t = btf_type_by_id(dp->btf, s->ids[s->cnt - 1]);

		switch (btf_kind(t)) {
		case BTF_KIND_VOLATILE: out(dp, "volatile "); break;
		case BTF_KIND_CONST: out(dp, "const "); break;
		case BTF_KIND_RESTRICT: out(dp, "restrict "); break;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
		case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		case BTF_KIND_ENUM64:
		default: return;
		}
		s->cnt--;
	}
}

/* Qualifiers and type tags: what drop_mods() takes off a declarator chain. */
static bool is_qualifier(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static void drop_mods(struct dumper *dp, struct idstack *s)
{
	while (s->cnt) {
		if (!is_qualifier(btf_kind(btf_type_by_id(dp->btf, s->ids[s->cnt - 1]))))
			return;
		s->cnt--;
	}
}

static void emit_name(struct dumper *dp, const char *fname, bool last_was_ptr)
{
	if (!fname[0])
		return;
	out(dp, "%s%s", last_was_ptr ? "" : " ", fname);
}

static void emit_type_chain(struct dumper *dp, struct idstack *s, const char *fname, int lvl)
{
	bool last_was_ptr = true;

	while (s->cnt) {
		uint32_t id = s->ids[--s->cnt];
		const struct btf_type *t;
		enum btf_kind kind;

		if (id == 0) {
			emit_mods(dp, s);
			out(dp, "void");
			last_was_ptr = false;
			continue;
		}
		t = btf_type_by_id(dp->btf, id);
		kind = btf_kind(t);
		switch (kind) {
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
			emit_mods(dp, s);
			out(dp, "%s", name_of(dp, t->name_off));
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			emit_mods(dp, s);
			if (!t->name_off)
				emit_struct_def(dp, id, t, lvl);
			else
				emit_struct_fwd(dp, id, t);
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			emit_mods(dp, s);
			if (!t->name_off)
				emit_enum_def(dp, id, t, lvl);
			else
				out(dp, "enum %s", type_name(dp, id));
			break;
		case BTF_KIND_FWD:
			emit_mods(dp, s);
			emit_fwd_def(dp, id, t);
			break;
		case BTF_KIND_TYPEDEF:
			emit_mods(dp, s);
			out(dp, "%s", ident_name(dp, id));
			break;
		case BTF_KIND_PTR:
			out(dp, "%s", last_was_ptr ? "*" : " *");
			break;
		case BTF_KIND_VOLATILE:
			out(dp, " volatile");
			break;
		case BTF_KIND_CONST:
			out(dp, " const");
			break;
		case BTF_KIND_RESTRICT:
			out(dp, " restrict");
			break;
		case BTF_KIND_TYPE_TAG:
			emit_mods(dp, s);
			if (btf_kflag(t))
				out(dp, " __attribute__((%s))", name_of(dp, t->name_off));
			else
				out(dp, " __attribute__((btf_type_tag(\"%s\")))", name_of(dp, t->name_off));
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = btf_array(t);
			bool multidim;

			drop_mods(dp, s);
			if (!s->cnt) {
				emit_name(dp, fname, last_was_ptr);
				out(dp, "[%u]", a->nelems);
				return;
			}
			multidim = btf_kind(btf_type_by_id(dp->btf, s->ids[s->cnt - 1])) == BTF_KIND_ARRAY;
			if (fname[0] && !last_was_ptr)
				out(dp, " ");
			if (!multidim)
				out(dp, "(");
			emit_type_chain(dp, s, fname, lvl);
			if (!multidim)
				out(dp, ")");
			out(dp, "[%u]", a->nelems);
			return;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p = btf_params(t);
			unsigned i, vlen = btf_vlen(t);

			drop_mods(dp, s);
			if (s->cnt) {
				out(dp, " (");
				emit_type_chain(dp, s, fname, lvl);
				out(dp, ")");
			} else {
				emit_name(dp, fname, last_was_ptr);
			}
			out(dp, "(");
			if (vlen == 0 || (vlen == 1 && p->type == 0)) {
				out(dp, "void)");
				return;
			}
			for (i = 0; i < vlen; i++, p++) {
				if (i > 0)
					out(dp, ", ");
				if (i == vlen - 1 && p->type == 0) {
					out(dp, "...");
					break;
				}
				emit_type_decl(dp, p->type, name_of(dp, p->name_off), lvl);
			}
			out(dp, ")");
			return;
		}
		case BTF_KIND_UNKN: case BTF_KIND_FUNC: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
		default:
			if (!dp->err)
				dp->err = diag_err(dp->d, EINVAL,
						   "C dump: unexpected %s [%u] in a declarator",
						   btf_kind_str(kind), id);
			return;
		}
		last_was_ptr = kind == BTF_KIND_PTR;
	}
	emit_name(dp, fname, last_was_ptr);
}

static void emit_type_decl(struct dumper *dp, uint32_t id, const char *fname, int lvl)
{
	size_t start = dp->ndecl;
	struct idstack s;
	int depth;

	for (depth = 0;; depth++) {
		const struct btf_type *t = btf_type_by_id(dp->btf, id);

		if (!t || depth > 1000) {
			if (!dp->err)
				dp->err = diag_err(dp->d, EINVAL, "C dump: bad declarator chain at [%u]", id);
			dp->ndecl = start;
			return;
		}
		if (VEC_RESERVE(dp->decl, dp->capdecl, dp->ndecl + 1)) {
			dp->err = diag_err(dp->d, ENOMEM, "out of memory");
			dp->ndecl = start;
			return;
		}
		dp->decl[dp->ndecl++] = id;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_FUNC_PROTO: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_ARRAY:
			id = btf_array(t)->type;
			continue;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
		case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
		case BTF_KIND_ENUM64:
		default:
			break;
		}
		break;
	}
	/* The stack may move when nested declarators grow it: work on a copy. */
	s.cnt = dp->ndecl - start;
	s.ids = mem_array(s.cnt, sizeof(*s.ids));
	if (!s.ids) {
		dp->err = diag_err(dp->d, ENOMEM, "out of memory");
		dp->ndecl = start;
		return;
	}
	memcpy(s.ids, dp->decl + start, s.cnt * sizeof(*s.ids));
	dp->ndecl = start;
	emit_type_chain(dp, &s, fname, lvl);
	mem_free(s.ids);
}

static void emit_type(struct dumper *dp, uint32_t id, uint32_t cont_id)
{
	struct tstate *ts = &dp->st[id];
	const struct btf_type *t;
	bool top = cont_id == 0;
	unsigned i;

	if (ts->emit == EMITTED || dp->err)
		return;
	t = btf_type_by_id(dp->btf, id);
	if (ts->emit == EMITTING) {
		if (ts->fwd_emitted)
			return;
		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (id == cont_id || !t->name_off)
				return;
			emit_struct_fwd(dp, id, t);
			out(dp, ";\n\n");
			ts->fwd_emitted = 1;
			break;
		case BTF_KIND_TYPEDEF:
			if (!blacklisted(dp, id)) {
				emit_typedef_def(dp, id, t, 0);
				out(dp, ";\n\n");
			}
			ts->fwd_emitted = 1;
			break;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
		case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
		case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		case BTF_KIND_ENUM64:
		default:
			break;
		}
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		ts->emit = EMITTED;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (top) {
			emit_enum_def(dp, id, t, 0);
			out(dp, ";\n\n");
		}
		ts->emit = EMITTED;
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		emit_type(dp, t->type, cont_id);
		break;
	case BTF_KIND_ARRAY:
		emit_type(dp, btf_array(t)->type, cont_id);
		break;
	case BTF_KIND_FWD:
		emit_fwd_def(dp, id, t);
		out(dp, ";\n\n");
		ts->emit = EMITTED;
		break;
	case BTF_KIND_TYPEDEF:
		ts->emit = EMITTING;
		emit_type(dp, t->type, id);
		if (!ts->fwd_emitted && !blacklisted(dp, id)) {
			emit_typedef_def(dp, id, t, 0);
			out(dp, ";\n\n");
		}
		ts->emit = EMITTED;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		ts->emit = EMITTING;
		if (top || !t->name_off) {
			uint32_t ncont = t->name_off ? id : cont_id;

			for (i = 0; i < btf_vlen(t); i++)
				emit_type(dp, btf_members(t)[i].type, ncont);
		} else if (!ts->fwd_emitted && id != cont_id) {
			emit_struct_fwd(dp, id, t);
			out(dp, ";\n\n");
			ts->fwd_emitted = 1;
		}
		if (top) {
			emit_struct_def(dp, id, t, 0);
			out(dp, ";\n\n");
			ts->emit = EMITTED;
		} else {
			ts->emit = NOT_EMITTED;
		}
		break;
	case BTF_KIND_FUNC_PROTO:
		emit_type(dp, t->type, cont_id);
		for (i = 0; i < btf_vlen(t); i++)
			emit_type(dp, btf_params(t)[i].type, cont_id);
		break;
	case BTF_KIND_UNKN: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	default:
		break;
	}
}

static int guess_ptr_size(const struct btf *btf)
{
	static const char *const longs[] = {
		"long", "long int", "int long", "unsigned long", "long unsigned",
		"unsigned long int", "unsigned int long", "long unsigned int",
		"long int unsigned", "int unsigned long", "int long unsigned",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(longs); i++) {
		int id = btf_find_by_name_kind(btf, longs[i], BTF_KIND_INT);
		const struct btf_type *t;

		if (id <= 0)
			continue;
		t = btf_type_by_id(btf, (uint32_t)id);
		if (t->size == 4 || t->size == 8)
			return (int)t->size;
	}
	return (int)sizeof(void *);
}

int btf_dump_c(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d)
{
	uint32_t n = btf_type_count(btf), id;
	struct dumper *dp = mem_zalloc(sizeof(*dp));
	int err = 0;
	size_t i;

	if (!dp)
		return diag_err(d, ENOMEM, "out of memory");
	dp->btf = btf;
	dp->emit = emit;
	dp->ctx = ctx;
	dp->d = d;
	dp->st = mem_array(n, sizeof(*dp->st));
	dp->cached = mem_array(n, sizeof(*dp->cached));
	if (!dp->st || !dp->cached) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	dp->ptr_sz = guess_ptr_size(btf);
	dp->st[0].order = ORDERED;
	dp->st[0].emit = EMITTED;
	/* Referenced marks, for anonymous enums that are top-level constants. */
	for (id = 1; id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf_type_by_id(btf, id);
		struct btf_field_iter it;
		uint32_t *p;

		if (btf_field_iter_init(&it, t, BTF_FIELD_IDS)) {
			err = diag_err(d, EINVAL, "C dump: type [%u] has unknown kind %u", id, btf_kind(t));
			goto out;
		}
		while ((p = btf_field_iter_next(&it)))
			if (*p < n)
				dp->st[*p].referenced = 1;
	}

	out(dp, "#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n");
	out(dp, "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n");
	out(dp, "#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n");
	out(dp, "#endif\n\n");
	for (id = 1; id < n && !dp->err; id++) {
		dp->nqueue = 0;
		if ((err = order_type(dp, id, false)) < 0)
			goto out;
		for (i = 0; i < dp->nqueue && !dp->err; i++)
			emit_type(dp, dp->queue[i], 0);
	}
	out(dp, "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n");
	out(dp, "#endif /* __VMLINUX_H__ */\n");
	flush(dp);
	err = dp->err;
out:
	if (err > 0)
		err = -err;
	if (dp->cached)
		for (id = 0; id < n; id++)
			mem_free(dp->cached[id]);
	mem_free(dp->cached);
	mem_free(dp->st);
	mem_free(dp->queue);
	mem_free(dp->decl);
	mem_free(dp->type_names.keys);
	mem_free(dp->type_names.counts);
	mem_free(dp->ident_names.keys);
	mem_free(dp->ident_names.counts);
	mem_free(dp);
	return err;
}
