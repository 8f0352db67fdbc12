// SPDX-License-Identifier: GPL-2.0-only
/*
 * pahole's printer over the layout model (dwarves_fprintf.c): type
 * names, function prototypes, arrays, enums, typedefs, member types, and
 * the entry points layout_print and layout_print_class.  Structs and
 * unions print in class.c.  Why everything mirrors pahole one function
 * for one: see layout.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "base/mem.h"
#include "layout/layout.h"
#include "layout/layout_internal.h"
#include "layout/print.h"

/* ---- names (dwarves_fprintf.c) ---- */

static size_t ftype_fprintf(struct layout *l, const struct btf_type *ft, const char *name,
			    int inlined, int is_pointer, int type_spacing, const struct conf *conf,
			    struct sink *s);

static const char *tag_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
			    const struct conf *conf, int depth);

/* snprintf(bf, len, "%s%s%s%s", a, b, c, d) for the names built here */
static void cat_names(char *bf, size_t len, const char *a, const char *b, const char *c,
		      const char *d)
{
	const char *part[4] = { a, b, c, d };
	size_t n = 0;

	if (!len)
		return;
	for (int i = 0; i < 4; i++) {
		size_t k = strlen(part[i]);

		if (k > len - 1 - n)
			k = len - 1 - n;
		memcpy(bf + n, part[i], k);
		n += k;
	}
	bf[n] = 0;
}

static void copy_name(char *bf, size_t len, const char *s)
{
	/* strncpy semantics without the unterminated case */
	cat_names(bf, len, s, "", "", "");
}

/* base_type__name: pahole 1.24 prints BTF base type names as they are. */
static const char *base_type_name(struct layout *l, const struct btf_type *t, char *bf, size_t len)
{
	const char *name = pt_name(l, t);

	copy_name(bf, len, name ? name : "");
	return bf;
}


/* tag__ptr_name */
static const char *tag_ptr_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
				const char *ptr_suffix, const struct conf *conf, int depth)
{
	if (pt_type(t) == 0) {
		fmt_snprintf(bf, len, "void %s", ptr_suffix);
	} else {
		const struct btf_type *type = ptag(l, pt_type(t));

		if (!type) {
			int n = fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name",
					 0, (unsigned long long)pt_type(t));

			if (n >= 0 && (size_t)n < len)
				fmt_snprintf(bf + n, len - (size_t)n, " %s", ptr_suffix);
		} else {
			char tmpbf[1024];
			const char *const_pointer = "";

			if (K(type) == BTF_KIND_CONST) {
				const struct btf_type *next = ptag(l, pt_type(type));

				if (next && pt_is_pointer(next)) {
					const_pointer = "const ";
					type = next;
				}
			}
			fmt_snprintf(bf, len, "%s %s%s", tag_name(l, type, tmpbf, sizeof(tmpbf), conf, depth + 1),
				 const_pointer, ptr_suffix);
		}
	}
	return bf;
}

/* __tag__name */
static const char *tag_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
			    const struct conf *conf, int depth)
{
	const struct btf_type *type;

	if (depth > 32) {
		copy_name(bf, len, "<ERROR: type loop>");
		return bf;
	}
	if (!t) {
		copy_name(bf, len, "void");
		return bf;
	}
	switch (K(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT: {
		char bf2[64];
		const char *name = "nameless base type!";

		if (t->name_off)
			name = base_type_name(l, t, bf2, sizeof(bf2));
		copy_name(bf, len, name);
		break;
	}
	case BTF_KIND_PTR:
		return tag_ptr_name(l, t, bf, len, "*", conf, depth);
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
		type = ptag(l, pt_type(t));
		if (!type && pt_type(t) != 0) {
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				 (unsigned long long)pt_type(t));
		} else {
			char tmpbf[128];
			const char *prefix = "", *suffix = "";
			const char *type_str = tag_name(l, type, tmpbf, sizeof(tmpbf), conf, depth + 1);

			switch (K(t)) {
			case BTF_KIND_VOLATILE: prefix = "volatile "; break;
			case BTF_KIND_CONST: prefix = "const "; break;
			case BTF_KIND_RESTRICT: suffix = " restrict"; break;
			case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR:
			case BTF_KIND_ARRAY: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
			case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
			case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
			case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
			case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
				break;
			}
			cat_names(bf, len, prefix, type_str, suffix, " ");
		}
		break;
	case BTF_KIND_ARRAY:
		type = ptag(l, pt_type(t));
		if (!type)
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				 (unsigned long long)pt_type(t));
		else
			return tag_name(l, type, bf, len, conf, depth + 1);
		break;
	case BTF_KIND_FUNC_PROTO: {
		struct lbuf tb = { 0 };
		struct sink s = { &tb, 0, len ? len - 1 : 0 };

		ftype_fprintf(l, t, NULL, 0, 0, 0, conf, &s);
		copy_name(bf, len, tb.p ? tb.p : "");
		lbuf_free(&tb);
		break;
	}
	case BTF_KIND_VAR:
		copy_name(bf, len, pt_name(l, t) ? pt_name(l, t) : "(null)");
		break;
	case BTF_KIND_TYPE_TAG:	/* 1.30: an annotation names what it annotates */
		type = ptag(l, pt_type(t));
		if (!type && pt_type(t) != 0)
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				     (unsigned long long)pt_type(t));
		else
			return tag_name(l, type, bf, len, conf, depth + 1);
		break;
	case BTF_KIND_UNKN: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_ENUM64:
	default: {
		const char *prefix = "";
		const char *name = pt_name(l, t);

		if (pt_is_enum(t))
			prefix = "enum ";
		else if (pt_is_struct(t))
			prefix = "struct ";
		else if (pt_is_union(t))
			prefix = "union ";
		cat_names(bf, len, prefix, name ? name : "", "", "");
		break;
	}
	}
	return bf;
}

int layout_type_name(struct layout *l, uint32_t id, char *buf, size_t len)
{
	struct conf c = { 0 };

	tag_name(l, ptag(l, id), buf, len, &c, 0);
	return 0;
}

/* ftype__fprintf_parms */
static size_t ftype_fprintf_parms(struct layout *l, const struct btf_type *ft, int indent,
				  const struct conf *conf, struct sink *s)
{
	const struct btf_param *p = btf_params(ft);
	uint32_t i, vlen = btf_vlen(ft);
	int first_parm = 1, unspec = 0;
	char sbf[128];
	size_t printed = (size_t)sp(s, "(");

	/* Prototypes nest in their parameters without a pointer between: hostile
	 * BTF can print one 32 levels deep, vlen times per level.  Parameters
	 * come out of the print's expansion budget. */
	if (conf->expand_left) {
		if (*conf->expand_left <= vlen)
			return printed + (size_t)sp(s, "<ERROR: expansion limit>)");
		*conf->expand_left -= vlen;
	}
	for (i = 0; i < vlen; i++) {
		const char *name, *stype;
		const struct btf_type *type;

		if (p[i].type == 0) {
			unspec = 1;
			continue;
		}
		if (!first_parm) {
			if (indent == 0)
				printed += (size_t)sp(s, ", ");
			else
				printed += (size_t)sp(s, ",\n%.*s", indent, tabs);
		} else {
			first_parm = 0;
		}
		name = p[i].name_off ? btf_name(l->btf, p[i].name_off) : NULL;
		type = ptag(l, p[i].type);
		if (!type) {
			fmt_snprintf(sbf, sizeof(sbf), "<ERROR: type %d not found>", (int)p[i].type);
			stype = sbf;
			goto print_it;
		}
		if (pt_is_pointer(type)) {
			if (pt_type(type) != 0) {
				const struct btf_type *ptype = ptag(l, pt_type(type));

				if (!ptype) {
					printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>",
							      "ftype__fprintf_parms", 0,
							      (unsigned long long)pt_type(type));
					continue;
				}
				if (K(ptype) == BTF_KIND_FUNC_PROTO) {
					printed += ftype_fprintf(l, ptype, name, 0, 1, 0, conf, s);
					continue;
				}
			}
		} else if (K(type) == BTF_KIND_FUNC_PROTO) {
			printed += ftype_fprintf(l, type, name, 1, 0, 0, conf, s);
			continue;
		}
		stype = tag_name(l, type, sbf, sizeof(sbf), conf, 0);
print_it:
		printed += (size_t)sp(s, "%s%s%s", stype, name ? " " : "", name ? name : "");
	}
	if (first_parm)
		printed += (size_t)sp(s, "void)");
	else if (unspec)
		printed += (size_t)sp(s, ", ...)");
	else
		printed += (size_t)sp(s, ")");
	return printed;
}

/* ftype__fprintf (is_prototype always true here) */
static size_t ftype_fprintf(struct layout *l, const struct btf_type *ft, const char *name,
			    int inlined, int is_pointer, int type_spacing, const struct conf *conf,
			    struct sink *s)
{
	const struct btf_type *type = ptag(l, ft->type);
	char sbf[128];
	const char *stype;
	size_t printed;

	if (++l->depth > 32) {
		--l->depth;
		return (size_t)sp(s, "<ERROR: type loop>");
	}
	stype = tag_name(l, type, sbf, sizeof(sbf), conf, 0);
	printed = (size_t)sp(s, "%s%-*s %s%s%s%s", inlined ? "inline " : "", type_spacing, stype, "(",
			     is_pointer ? "*" : "", name ? name : "", ")");
	printed += ftype_fprintf_parms(l, ft, 0, conf, s);
	--l->depth;
	return printed;
}

/* ---- printing ---- */

static size_t enumeration_fprintf(struct layout *l, const struct btf_type *t,
				  const struct conf *conf, struct sink *s);

/* array_type__fprintf */
static size_t array_fprintf(struct layout *l, const struct btf_type *t, const char *name,
			    const struct conf *conf, struct sink *s)
{
	uint32_t etid = pt_type(t);
	const struct btf_type *type = ptag(l, etid);
	size_t printed;
	uint32_t nelems = btf_array(t)->nelems;
	bool single_member;

	if (!type)
		return (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "array_type__fprintf", 0,
				  (unsigned long long)etid);
	/* Zero sized arrays? */
	if (nelems == 0 && K(type) == BTF_KIND_CONST)
		etid = pt_type(type);
	/* o.dwarf: DWARF's one array type with every dimension, outermost first */
	if (l->o.dwarf && K(type) == BTF_KIND_ARRAY) {
		const struct btf_type *dims[16];
		unsigned n = 0;

		dims[n++] = t;
		while (n < 16 && type && K(type) == BTF_KIND_ARRAY) {
			dims[n++] = type;
			etid = pt_type(type);
			type = ptag(l, etid);
		}
		printed = type_fprintf(l, etid, name, conf, s);
		single_member = conf->last_member && conf->first_member;
		for (unsigned i = 0; i < n; i++) {
			uint32_t ne = btf_array(dims[i])->nelems;

			if (ne != 0 || !conf->last_member || single_member || conf->union_member)
				printed += (size_t)sp(s, "[%u]", ne);
			else
				printed += (size_t)sp(s, "[]");
		}
		return printed;
	}
	printed = type_fprintf(l, etid, name, conf, s);
	single_member = conf->last_member && conf->first_member;
	if (nelems != 0 || !conf->last_member || single_member || conf->union_member)
		printed += (size_t)sp(s, "[%u]", nelems);
	else
		printed += (size_t)sp(s, "[]");
	return printed;
}

/*
 * Why struct/union tid (nr members) is not expanded inline under conf, or
 * NULL: it is expanded, and its members are taken from the print's budget.
 */
static const char *expand_refused(const struct conf *conf, uint32_t tid, uint32_t nr)
{
	for (const struct expanding *e = conf->expanding; e; e = e->up)
		if (e->id == tid)
			return "<ERROR: type loop>";
	if (conf->expand_left) {
		if (*conf->expand_left <= nr)
			return "<ERROR: expansion limit>";
		*conf->expand_left -= nr + 1;
	}
	return NULL;
}

/* skip_llvm_annotations (1.30): the type a pointer points to, past TYPE_TAGs */
static uint32_t skip_annotations(const struct layout *l, uint32_t id)
{
	int n = 0;

	while (id != 0 && n++ < 64) {
		const struct btf_type *t = ptag(l, id);

		if (!t || K(t) != BTF_KIND_TYPE_TAG || t->type == id)
			break;
		id = t->type;
	}
	return id;
}

/*
 * type__fprintf.  One piece (205 lines) as pahole's is, to match it byte
 * for byte: one switch on the member's type, whose cases share the name
 * buffers, the spacing and the expansion state set up at the top.
 */
size_t type_fprintf(struct layout *l, uint32_t tid, const char *name, const struct conf *conf,
		    struct sink *s)
{
	char tbf[128], namebfptr[258];
	const struct btf_type *type = ptag(l, tid);
	struct conf tconf;
	size_t printed = 0;
	int expand_types = conf->expand_types;
	bool suppress_offset_comment = conf->suppress_offset_comment;
	const char *modifier;
	int hops = 0;	/* typedef and const steps: hostile BTF can loop them */

	tconf = *conf;
	if (!type)
		goto out_type_not_found;
	if (++l->depth > 48) {
		--l->depth;
		return (size_t)sp(s, "<ERROR: type loop>");
	}
	if (expand_types) {
		int typedef_expanded = 0;

		while (pt_is_typedef(type)) {
			const struct btf_type *tt;
			const char *tn = pt_name(l, type);

			if (typedef_expanded)
				printed += (size_t)sp(s, " -> %s", tn ? tn : "(null)");
			else {
				printed += (size_t)sp(s, "/* typedef %s", tn ? tn : "(null)");
				typedef_expanded = 1;
			}
			tid = pt_type(type);
			tt = ptag(l, tid);
			if (!tt) {
				--l->depth;
				goto out_type_not_found;
			}
			if (++hops > 48) {
				--l->depth;
				return printed + (size_t)sp(s, " <ERROR: type loop>");
			}
			type = tt;
		}
		if (typedef_expanded)
			printed += (size_t)sp(s, " */ ");
	}
	if (pt_is_struct(type) || pt_is_union(type) || pt_is_enum(type)) {
inner_struct:
		tconf.prefix = NULL;
		tconf.suffix = name;
		tconf.emit_stats = 0;
		tconf.suppress_offset_comment = suppress_offset_comment;
	}
next_type:
	switch (K(type)) {
	case BTF_KIND_PTR: {
		uint32_t ptid = skip_annotations(l, pt_type(type));

		if (ptid != 0) {
			const struct btf_type *ptype = ptag(l, ptid);

			if (!ptype) {
				--l->depth;
				goto out_type_not_found;
			}
			if (K(ptype) == BTF_KIND_FUNC_PROTO) {
				printed += ftype_fprintf(l, ptype, name, 0, 1, tconf.type_spacing, &tconf, s);
				break;
			}
			if ((pt_is_struct(ptype) || pt_is_union(ptype) || pt_is_enum(ptype)) &&
			    pt_name(l, ptype) == NULL) {
				if (name == namebfptr) {
					--l->depth;
					goto out_type_not_found;
				}
				fmt_snprintf(namebfptr, sizeof(namebfptr), "* %.*s",
					 (int)sizeof(namebfptr) - 3, name ? name : "(null)");
				tconf.rel_offset = 1;
				name = namebfptr;
				type = ptype;
				tid = ptid;
				tconf.type_spacing -= 8;
				goto inner_struct;
			}
		}
	}
		/* fallthrough */
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	default:
print_default:
		printed += (size_t)sput_name_pair(s, tconf.type_spacing,
						  tag_name(l, type, tbf, sizeof(tbf), &tconf, 0),
						  name ? name : "(null)");
		break;
	case BTF_KIND_FUNC_PROTO:
		printed += ftype_fprintf(l, type, name, 0, 0, tconf.type_spacing, &tconf, s);
		break;
	case BTF_KIND_CONST: {
		const struct btf_type *tt;
		size_t mp;

		modifier = "const";
		mp = (size_t)sp(s, "%s ", modifier);
		tconf.type_spacing -= (int32_t)mp;
		printed += mp;
		tt = ptag(l, pt_type(type));
		if (tt && ++hops > 48) {
			printed += (size_t)sp(s, "<ERROR: type loop>");
			break;
		}
		if (tt) {
			tid = pt_type(type);
			type = tt;
			goto next_type;
		}
		goto print_default;
	}
	case BTF_KIND_ARRAY:
		printed += array_fprintf(l, type, name, &tconf, s);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_FWD:
	case BTF_KIND_UNION:
		if (pt_is_struct(type)) {
			const char *tn = pt_name(l, type);

			if (tn && !expand_types) {
				printed += (size_t)sp(s, "%s %-*s %s", "struct", tconf.type_spacing - 7,
						      tn, name ? name : "");
			} else {
				struct lclass *cc = lclass_get(l, tid);
				struct expanding e = { tid, tconf.expanding };
				const char *refused;

				if (!cc)
					break;
				if ((refused = expand_refused(&tconf, tid, cc->nr))) {
					printed += (size_t)sp(s, "%s", refused);
					break;
				}
				tconf.expanding = &e;
				if (!tconf.suppress_comments)
					class_find_holes(l, cc);
				tconf.type_spacing -= 8;
				printed += class_fprintf(l, cc, &tconf, s);
			}
		} else {
			const char *tn = pt_name(l, type);

			if (tn && !expand_types) {
				printed += (size_t)sp(s, "union %-*s %s", tconf.type_spacing - 6, tn,
						      name ? name : "");
			} else {
				struct lclass *uc = lclass_get(l, tid);
				struct expanding e = { tid, tconf.expanding };
				const char *refused;

				if (!uc)
					break;
				if ((refused = expand_refused(&tconf, tid, uc->nr))) {
					printed += (size_t)sp(s, "%s", refused);
					break;
				}
				tconf.expanding = &e;
				tconf.type_spacing -= 8;
				printed += union_fprintf(l, uc, &tconf, s);
			}
		}
		break;
	case BTF_KIND_TYPE_TAG: {	/* 1.30: print what it annotates */
		const struct btf_type *tt = ptag(l, pt_type(type));

		if (!tt) {
			--l->depth;
			goto out_type_not_found;
		}
		if (++hops > 48) {
			printed += (size_t)sp(s, "<ERROR: type loop>");
			break;
		}
		tid = pt_type(type);
		type = tt;
		goto next_type;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		const char *tn = pt_name(l, type);

		/* 1.24 does not expand named enums under -E, 1.30 does */
		if (tn && !(expand_types && compat_130(l)))
			printed += (size_t)sp(s, "enum %-*s %s", tconf.type_spacing - 5, tn,
					      name ? name : "");
		else
			printed += enumeration_fprintf(l, type, &tconf, s);
		break;
	}
	}
	--l->depth;
	return printed;
out_type_not_found:
	printed = (size_t)sp(s, "%-*s%s> %s", tconf.type_spacing, "<ERROR",
			     name == namebfptr ? ": pointer to pointer to inner struct/union/enum?" : "",
			     name ? name : "(null)");
	return printed;
}

/* enumeration__fprintf */
static size_t enumeration_fprintf(struct layout *l, const struct btf_type *t,
				  const struct conf *conf, struct sink *s)
{
	const char *tn = pt_name(l, t);
	uint32_t i, n = btf_vlen(t);
	int max_len = 0, indent = conf->indent;
	size_t printed = (size_t)sp(s, "enum%s%s", tn ? " " : "", tn ? tn : "");
	bool is64 = K(t) == BTF_KIND_ENUM64;
	bool is_signed = (compat_130(l) || l->o.dwarf) && btf_kflag(t);	/* DWARF: from the values */

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (!n)
		return printed;
	printed += (size_t)sput(s, " {\n", 3);
	for (i = 0; i < n; i++) {
		uint32_t off = is64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;
		const char *en = btf_name(l->btf, off);
		int len = en ? (int)strlen(en) : 0;

		if (max_len < len)
			max_len = len;
	}
	for (i = 0; i < n; i++) {
		uint32_t off = is64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;
		const char *en = btf_name(l->btf, off);
		unsigned long long v;

		/* pahole 1.24 keeps BTF enum values in a uint64 from an unsigned read;
		 * 1.30 sign-extends those of a signed enum (kind flag) and prints them signed */
		if (is64)
			v = btf_enum64_value(&btf_enum64s(t)[i]);
		else if (is_signed)
			v = (unsigned long long)(long long)btf_enums(t)[i].val;
		else
			v = (uint32_t)btf_enums(t)[i].val;
		printed += (size_t)sp(s, "%.*s\t%-*s = ", indent, tabs, max_len, en ? en : "");
		if (conf->hex_fmt)
			printed += (size_t)sp(s, "%#llx", v);
		else if (is_signed)
			printed += (size_t)sp(s, "%lld", (long long)v);
		else
			printed += (size_t)sp(s, "%llu", v);
		printed += (size_t)sp(s, ",\n");
	}
	printed += (size_t)sp(s, "%.*s}", indent, tabs);
	if (enum_bits(t) / 8 != sizeof(int))
		printed += (size_t)sp(s, " %s", "__attribute__((__packed__))");
	if (conf->suffix)
		printed += (size_t)sp(s, " %s", conf->suffix);
	return printed;
}
/* typedef__fprintf */
static size_t typedef_fprintf(struct layout *l, const struct btf_type *t, const struct conf *conf,
			      struct sink *s)
{
	const char *tn = pt_name(l, t);
	const struct btf_type *tt;
	uint32_t ttid = pt_type(t);
	char bf[512];
	size_t printed = (size_t)sp(s, "typedef ");

	if (!tn)
		tn = "(null)";
	if (ttid == 0)
		return printed + (size_t)sp(s, "void %s", tn);
	tt = ptag(l, ttid);
	if (!tt) {
		printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "typedef__fprintf", 0,
				      (unsigned long long)ttid);
		return printed + (size_t)sp(s, " %s", tn);
	}
	switch (K(tt)) {
	case BTF_KIND_ARRAY:
		return printed + array_fprintf(l, tt, tn, conf, s);
	case BTF_KIND_PTR: {
		const struct btf_type *pt;

		if (pt_type(tt) == 0)
			break;
		pt = ptag(l, pt_type(tt));
		if (!pt) {
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "typedef__fprintf",
					      0, (unsigned long long)pt_type(tt));
			return printed + (size_t)sp(s, " *%s", tn);
		}
		if (K(pt) != BTF_KIND_FUNC_PROTO)
			break;
		return printed + ftype_fprintf(l, pt, tn, 0, 1, 0, conf, s);
	}
	case BTF_KIND_FUNC_PROTO:
		return printed + ftype_fprintf(l, tt, tn, 0, 0, 0, conf, s);
	case BTF_KIND_STRUCT:
	case BTF_KIND_FWD:
	case BTF_KIND_UNION:
		if (pt_is_struct(tt)) {
			struct conf tconf;
			struct lclass *c;

			/* 1.30 expands a named one under -E, and indents an expanded one like a member's */
			if (pt_name(l, tt) && !(compat_130(l) && conf->expand_types))
				return printed + (size_t)sp(s, "struct %s %s", pt_name(l, tt), tn);
			tconf = *conf;
			c = lclass_get(l, ttid);
			if (!c)
				return printed;
			if (compat_130(l)) {
				if (!tconf.suppress_comments)
					class_find_holes(l, c);
				tconf.type_spacing -= 8;
			}
			tconf.suffix = tn;
			return printed + class_fprintf(l, c, &tconf, s);
		}
		/* 1.30: union_decl__fprintf, as for a member; 1.24: its name */
		if (compat_130(l)) {
			struct conf tconf;
			struct lclass *u;

			if (pt_name(l, tt) && !conf->expand_types)
				return printed + (size_t)sp(s, "union %-*s %s", conf->type_spacing - 6,
							    pt_name(l, tt), tn);
			u = lclass_get(l, ttid);
			if (!u)
				return printed;
			tconf = *conf;
			tconf.type_spacing -= 8;
			tconf.suffix = tn;
			return printed + union_fprintf(l, u, &tconf, s);
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		struct conf tconf;

		if (pt_name(l, tt))
			return printed + (size_t)sp(s, "enum %s %s", pt_name(l, tt), tn);
		tconf = *conf;
		tconf.suffix = tn;
		return printed + enumeration_fprintf(l, tt, &tconf, s);
	}
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		break;
	}
	return printed + (size_t)sp(s, "%s %s", tag_name(l, tt, bf, sizeof(bf), conf, 0), tn);
}

static void conf_init(const struct layout *l, struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->emit_stats = !l->o.quiet;
	c->suppress_comments = l->o.quiet;
	c->suppress_offset_comment = l->o.quiet;
	c->expand_types = l->o.expand_types;
	c->rel_offset = l->o.rel_offset;
	c->hex_fmt = l->o.hex;
	c->suppress_aligned_attribute = l->o.suppress_aligned;
	c->suppress_packed = l->o.suppress_packed;
}

/* tag__fprintf */
int layout_print(struct layout *l, uint32_t id, const char *prefix, const char *suffix,
		 struct lbuf *out)
{
	const struct btf_type *t = ptag(l, id);
	struct sink s = { out, 0, SIZE_MAX };
	struct expanding top = { id, NULL };
	uint32_t expand_left = EXPAND_MAX_MEMBERS;
	struct conf c;

	if (!t)
		return -ENOENT;
	conf_init(l, &c);
	c.expanding = &top;
	c.expand_left = &expand_left;
	c.prefix = prefix;
	c.suffix = suffix;
	if (c.expand_types)
		c.name_spacing = 55;
	else
		c.name_spacing = pt_is_union(t) ? 21 : 23;
	c.type_spacing = 26;
	l->depth = 0;
	if (pt_is_struct(t) || pt_is_union(t)) {
		struct lclass *lc = lclass_get(l, id);

		if (!lc)
			return -ENOMEM;
		class_find_holes(l, lc);
		if (pt_is_struct(t))
			class_fprintf(l, lc, &c, &s);
		else
			union_fprintf(l, lc, &c, &s);
	} else if (pt_is_enum(t)) {
		enumeration_fprintf(l, t, &c, &s);
	} else if (pt_is_typedef(t)) {
		typedef_fprintf(l, t, &c, &s);
	} else if (K(t) == BTF_KIND_ARRAY) {
		array_fprintf(l, t, "array", &c, &s);
	} else if (K(t) == BTF_KIND_FUNC_PROTO) {
		ftype_fprintf(l, t, NULL, 0, 0, 0, &c, &s);
	} else if (K(t) == BTF_KIND_VAR) {
		if (pt_name(l, t))
			type_fprintf(l, pt_type(t), pt_name(l, t), &c, &s);
	} else {
		sp(&s, "/* %s: %s tag not supported! */", "tag__fprintf", btf_kind_str(K(t)));
	}
	sput(&s, ";", 1);
	return out->oom ? -ENOMEM : 0;
}

/* Print a (possibly synthetic, e.g. reorganized) struct like layout_print. */
int layout_print_class(struct layout *l, struct lclass *lc, struct lbuf *out)
{
	struct sink s = { out, 0, SIZE_MAX };
	struct expanding top = { lc->id, NULL };
	uint32_t expand_left = EXPAND_MAX_MEMBERS;
	struct conf c;

	conf_init(l, &c);
	c.expanding = &top;
	c.expand_left = &expand_left;
	c.name_spacing = l->o.expand_types ? 55 : 23;
	c.type_spacing = 26;
	l->depth = 0;
	class_find_holes(l, lc);
	class_fprintf(l, lc, &c, &s);
	sput(&s, ";", 1);
	return out->oom ? -ENOMEM : 0;
}

