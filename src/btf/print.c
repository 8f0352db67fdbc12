// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF types as text: bpftool's raw format (`bpftool btf dump file F
 * format raw`, bpftool v7.1 with libbpf 1.1) and its JSON (`bpftool -j
 * btf dump ...`), byte for byte; for split BTF only its own types, as
 * bpftool does.  One function per format and one per type; each switches
 * on the kind, so a new kind is listed here by the compiler.
 */
#include "btf/dump.h"

#include <inttypes.h>
#include <stdarg.h>

#include "base/fmt.h"
#include "base/mem.h"
#include "btf/btf_internal.h"

/* Output, in blocks handed to emit. */
struct pout {
	btf_emit_fn emit;
	void *ctx;
	struct diag *d;
	int err;
	size_t len;
	char buf[1 << 16];
};

static void flush(struct pout *o)
{
	if (o->len && !o->err) {
		int e = o->emit(o->ctx, o->buf, o->len);

		if (e)
			o->err = diag_err(o->d, e < 0 ? -e : e, "BTF dump: output failed");
	}
	o->len = 0;
}

static void put(struct pout *o, const char *s, size_t n)
{
	while (n && !o->err) {
		size_t k = MIN(n, sizeof(o->buf) - o->len);

		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			flush(o);
	}
}

static void puts_(struct pout *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putc_(struct pout *o, char c)
{
	if (o->len == sizeof(o->buf))
		flush(o);
	o->buf[o->len++] = c;
}

static void out(struct pout *o, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void out(struct pout *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(o->buf) - o->len < 1024)
		flush(o);
	va_start(ap, fmt);
	n = fmt_vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(o->buf) - o->len) {
		/* a single very long piece (a name): formatted on its own */
		char *tmp = mem_alloc((size_t)n + 1);

		if (!tmp) {
			if (!o->err)
				o->err = diag_err(o->d, ENOMEM, "out of memory");
			return;
		}
		va_start(ap, fmt);
		fmt_vsnprintf(tmp, (size_t)n + 1, fmt, ap);
		va_end(ap);
		flush(o);
		put(o, tmp, (size_t)n);
		mem_free(tmp);
		return;
	}
	o->len += (size_t)n;
}

static const char *int_enc_str(unsigned enc)
{
	switch (enc) {
	case 0: return "(none)";
	case BTF_INT_SIGNED: return "SIGNED";
	case BTF_INT_CHAR: return "CHAR";
	case BTF_INT_BOOL: return "BOOL";
	default: return "UNKN";
	}
}

static const char *linkage_str(uint32_t l)
{
	switch (l) {
	case 0: return "static";
	case 1: return "global";
	case 2: return "extern";
	default: return "(unknown)";
	}
}

/* ---- raw text ---------------------------------------------------------- */

static void raw_type(struct pout *f, const struct btf *btf, uint32_t id, const struct btf_type *t)
{
	enum btf_kind kind = btf_kind(t);
	unsigned vlen = btf_vlen(t), i;

	out(f, "[%u] %s '%s'", id, btf_kind_str(kind), btf_name_shown(btf, t->name_off));
	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t v = btf_int_word(t);

		out(f, " size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size,
		    BTF_INT_OFFSET(v), BTF_INT_BITS(v), int_enc_str(BTF_INT_ENCODING(v)));
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		out(f, " type_id=%u", t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		out(f, " type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type,
		    a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);

		out(f, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, m++) {
			uint32_t bsz = btf_member_bitfield_size(t, m);

			out(f, "\n\t'%s' type_id=%u bits_offset=%u", btf_name_shown(btf, m->name_off),
			    m->type, btf_member_bit_offset(t, m));
			if (bsz)
				out(f, " bitfield_size=%u", bsz);
		}
		break;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enums(t);

		out(f, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED",
		    t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			if (btf_kflag(t))
				out(f, "\n\t'%s' val=%d", btf_name_shown(btf, e->name_off), e->val);
			else
				out(f, "\n\t'%s' val=%u", btf_name_shown(btf, e->name_off), (uint32_t)e->val);
		}
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64s(t);

		out(f, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED",
		    t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			uint64_t v = btf_enum64_value(e);

			if (btf_kflag(t))
				out(f, "\n\t'%s' val=%lldLL", btf_name_shown(btf, e->name_off), (long long)v);
			else
				out(f, "\n\t'%s' val=%lluULL", btf_name_shown(btf, e->name_off),
				    (unsigned long long)v);
		}
		break;
	}
	case BTF_KIND_FWD:
		out(f, " fwd_kind=%s", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		out(f, " type_id=%u linkage=%s", t->type, linkage_str(vlen));
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);

		out(f, " ret_type_id=%u vlen=%u", t->type, vlen);
		for (i = 0; i < vlen; i++, p++)
			out(f, "\n\t'%s' type_id=%u", btf_name_shown(btf, p->name_off), p->type);
		break;
	}
	case BTF_KIND_VAR:
		out(f, " type_id=%u, linkage=%s", t->type, linkage_str(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_secinfos(t);

		out(f, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, v++) {
			out(f, "\n\ttype_id=%u offset=%u size=%u", v->type, v->offset, v->size);
			if (v->type < btf_type_count(btf)) {
				const struct btf_type *vt = btf_type_by_id(btf, v->type);

				out(f, " (%s '%s')", btf_kind_str(btf_kind(vt)),
				    btf_name_shown(btf, vt->name_off));
			}
		}
		break;
	}
	case BTF_KIND_FLOAT:
		out(f, " size=%u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		out(f, " type_id=%u component_idx=%d", t->type, btf_decl_tag(t)->component_idx);
		break;
	case BTF_KIND_UNKN:
	default:	/* a kind only a layout section describes: its name line */
		break;
	}
	putc_(f, '\n');
}

/* ---- JSON (bpftool -j compatible) -------------------------------------- */

static void json_str(struct pout *f, const char *s)
{
	putc_(f, '"');
	for (; *s; s++) {
		switch (*s) {
		case '\t': puts_(f, "\\t"); break;
		case '\n': puts_(f, "\\n"); break;
		case '\r': puts_(f, "\\r"); break;
		case '\f': puts_(f, "\\f"); break;
		case '\b': puts_(f, "\\b"); break;
		case '\\': puts_(f, "\\\\"); break;
		case '"': puts_(f, "\\\""); break;
		default: putc_(f, *s);
		}
	}
	putc_(f, '"');
}

static void jkey(struct pout *f, const char *k)
{
	puts_(f, ",\"");
	puts_(f, k);
	puts_(f, "\":");
}

static void ju(struct pout *f, const char *k, uint64_t v)
{
	jkey(f, k);
	out(f, "%" PRIu64, v);
}

static void ji(struct pout *f, const char *k, int64_t v)
{
	jkey(f, k);
	out(f, "%" PRId64, v);
}

static void js(struct pout *f, const char *k, const char *v)
{
	jkey(f, k);
	json_str(f, v);
}

static void json_type(struct pout *f, const struct btf *btf, uint32_t id, const struct btf_type *t)
{
	enum btf_kind kind = btf_kind(t);
	unsigned vlen = btf_vlen(t), i;

	out(f, "{\"id\":%u", id);
	js(f, "kind", btf_kind_str(kind));
	js(f, "name", btf_name_shown(btf, t->name_off));
	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t v = btf_int_word(t);

		ju(f, "size", t->size);
		ju(f, "bits_offset", BTF_INT_OFFSET(v));
		ju(f, "nr_bits", BTF_INT_BITS(v));
		js(f, "encoding", int_enc_str(BTF_INT_ENCODING(v)));
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		ju(f, "type_id", t->type);
		break;
	case BTF_KIND_ARRAY:
		ju(f, "type_id", btf_array(t)->type);
		ju(f, "index_type_id", btf_array(t)->index_type);
		ju(f, "nr_elems", btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);

		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		puts_(f, ",\"members\":[");
		for (i = 0; i < vlen; i++, m++) {
			uint32_t bsz = btf_member_bitfield_size(t, m);

			puts_(f, i ? ",{\"name\":" : "{\"name\":");
			json_str(f, btf_name_shown(btf, m->name_off));
			ju(f, "type_id", m->type);
			ju(f, "bits_offset", btf_member_bit_offset(t, m));
			if (bsz)
				ju(f, "bitfield_size", bsz);
			putc_(f, '}');
		}
		putc_(f, ']');
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		js(f, "encoding", btf_kflag(t) ? "SIGNED" : "UNSIGNED");
		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		puts_(f, ",\"values\":[");
		for (i = 0; i < vlen; i++) {
			uint32_t noff;
			uint64_t v;

			if (kind == BTF_KIND_ENUM) {
				noff = btf_enums(t)[i].name_off;
				/*
				 * bpftool v7.1 prints the s32 value sign-extended even
				 * for unsigned enums; we match its output byte for byte.
				 */
				v = (uint64_t)(int64_t)btf_enums(t)[i].val;
			} else {
				noff = btf_enum64s(t)[i].name_off;
				v = btf_enum64_value(&btf_enum64s(t)[i]);
			}
			puts_(f, i ? ",{\"name\":" : "{\"name\":");
			json_str(f, btf_name_shown(btf, noff));
			if (btf_kflag(t))
				ji(f, "val", (int64_t)v);
			else
				ju(f, "val", v);
			putc_(f, '}');
		}
		putc_(f, ']');
		break;
	case BTF_KIND_FWD:
		js(f, "fwd_kind", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		ju(f, "type_id", t->type);
		js(f, "linkage", linkage_str(vlen));
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);

		ju(f, "ret_type_id", t->type);
		ju(f, "vlen", vlen);
		puts_(f, ",\"params\":[");
		for (i = 0; i < vlen; i++, p++) {
			puts_(f, i ? ",{\"name\":" : "{\"name\":");
			json_str(f, btf_name_shown(btf, p->name_off));
			ju(f, "type_id", p->type);
			putc_(f, '}');
		}
		putc_(f, ']');
		break;
	}
	case BTF_KIND_VAR:
		ju(f, "type_id", t->type);
		js(f, "linkage", linkage_str(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_secinfos(t);

		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		puts_(f, ",\"vars\":[");
		for (i = 0; i < vlen; i++, v++) {
			out(f, "%s{\"type_id\":%u", i ? "," : "", v->type);
			ju(f, "offset", v->offset);
			ju(f, "size", v->size);
			putc_(f, '}');
		}
		putc_(f, ']');
		break;
	}
	case BTF_KIND_FLOAT:
		ju(f, "size", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		ju(f, "type_id", t->type);
		ji(f, "component_idx", btf_decl_tag(t)->component_idx);
		break;
	case BTF_KIND_UNKN:
	default:	/* a kind only a layout section describes: id, kind, name */
		break;
	}
	putc_(f, '}');
}

/* ---- entry points ------------------------------------------------------ */

static struct pout *pout_new(btf_emit_fn emit, void *ctx, struct diag *d)
{
	struct pout *o = mem_alloc(sizeof(*o));

	if (!o) {
		diag_err(d, ENOMEM, "out of memory");
		return NULL;
	}
	o->emit = emit;
	o->ctx = ctx;
	o->d = d;
	o->err = 0;
	o->len = 0;
	return o;
}

static int pout_end(struct pout *o)
{
	int err;

	flush(o);
	err = o->err;
	mem_free(o);
	return err;
}

int btf_dump_raw(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d)
{
	struct pout *o = pout_new(emit, ctx, d);
	uint32_t id, n = btf_type_count(btf);

	if (!o)
		return -ENOMEM;
	for (id = btf_start_id(btf); id < n && !o->err; id++)
		raw_type(o, btf, id, btf_type_by_id(btf, id));
	return pout_end(o);
}

int btf_dump_json(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d)
{
	struct pout *o = pout_new(emit, ctx, d);
	uint32_t id, n = btf_type_count(btf);

	if (!o)
		return -ENOMEM;
	puts_(o, "{\"types\":[");
	for (id = btf_start_id(btf); id < n && !o->err; id++) {
		if (id != btf_start_id(btf))
			putc_(o, ',');
		json_type(o, btf, id, btf_type_by_id(btf, id));
	}
	puts_(o, "]}\n");
	return pout_end(o);
}
