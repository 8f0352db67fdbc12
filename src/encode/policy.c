// SPDX-License-Identifier: GPL-2.0-only
/*
 * pahole 1.30's and 1.31's function policy (docs/pahole-policies.md):
 * the ELF tables their lookups search, and the judgment of every
 * instance of a function once all units are merged.  Variables and their
 * sections: the tables here, the selection in cu.c.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "encode/internal.h"

#define KF_FASTCALL (1u << 12)
#define KF_ARENA_RET (1u << 13)
#define KF_ARENA_ARG1 (1u << 14)
#define KF_ARENA_ARG2 (1u << 15)
#define ARENA_ATTR "address_space(1)"

/* ---- ELF tables ---- */

/*
 * Parameters in registers (pahole's arch__nr_register_params) and the
 * DW_OP_regN each must be in (arch__set_register_params; -1 where pahole
 * knows none, so it never finds a register unexpected there).
 */
static void param_regs(struct enc_syms *sy, uint16_t machine)
{
	static const int8_t x86_64[] = { 0x55, 0x54, 0x51, 0x52, 0x58, 0x59 };	/* rdi rsi rdx rcx r8 r9 */
	static const int8_t arm[] = { 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57 };
	static const int8_t s390[] = { 0x52, 0x53, 0x54, 0x55, 0x56 };		/* r2-r6 */
	static const int8_t unknown[] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	switch (machine) {
	case EM_S390: sy->param_ops = s390; sy->nparam_regs = 5; break;
	case EM_SPARC: case EM_SPARCV9: sy->param_ops = unknown; sy->nparam_regs = 6; break;
	case EM_X86_64: sy->param_ops = x86_64; sy->nparam_regs = 6; break;
	case EM_ARM: case EM_AARCH64: sy->param_ops = arm; sy->nparam_regs = 8; break;
	case EM_ARC: case EM_MIPS: case EM_PPC: case EM_PPC64: case EM_RISCV:
		sy->param_ops = unknown; sy->nparam_regs = 8; break;
	default: sy->param_ops = unknown; sy->nparam_regs = 0; break;
	}
}

/* .cold and .part pieces are not functions of their own (pahole 1.31). */
static bool non_fn_suffix(const char *dot)
{
	return dot && (strstr(dot, ".cold") || strstr(dot, ".part"));
}

/* A cut name's last address so far (by its offset in funcs_prefix). */
struct faddr {
	uint32_t off1;		/* offset + 1; 0: empty slot */
	bool ambiguous;
	uint64_t addr;
};

/*
 * pahole 1.31 keys its table by the name before the first '.', without
 * .cold/.part symbols, and calls a name ambiguous when, in symbol order,
 * an address differs from a nonzero one before it.  Its loop never judges
 * the name that sorts last.
 */
static int load131(struct enc_syms *sy, struct belf *e, size_t nfuncs, struct diag *d)
{
	size_t i, mask, n = belf_nsyms(e);
	const char *last = NULL;
	struct faddr *fa;
	int err = 0;

	for (mask = 15; mask < nfuncs * 2; mask = mask * 2 + 1)
		;
	if (!(fa = mem_array(mask + 1, sizeof(*fa))))
		return diag_err(d, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);
		const char *dot;
		size_t plen, j;
		int64_t off;

		if (s->type != STT_FUNC || !s->name[0])
			continue;
		dot = strchr(s->name, '.');
		if (non_fn_suffix(dot))
			continue;
		plen = dot ? (size_t)(dot - s->name) : strlen(s->name);
		if ((off = strset_add(&sy->funcs_prefix, s->name, plen)) < 0) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
		for (j = hash_mix((uint64_t)off) & mask; fa[j].off1 && fa[j].off1 != off + 1;
		     j = (j + 1) & mask)
			;
		if (!fa[j].off1)
			fa[j].off1 = (uint32_t)off + 1;
		else if (fa[j].addr && fa[j].addr != s->value)
			fa[j].ambiguous = true;
		if (!fa[j].ambiguous)
			fa[j].addr = s->value;
	}
	for (i = 0; i <= mask; i++) {
		const char *name = fa[i].off1 ? strset_get(&sy->funcs_prefix, fa[i].off1 - 1) : NULL;

		if (name && (!last || strcmp(name, last) > 0))
			last = name;
	}
	for (i = 0; i <= mask; i++) {
		const char *name;

		if (!fa[i].off1 || !fa[i].ambiguous)
			continue;
		name = strset_get(&sy->funcs_prefix, fa[i].off1 - 1);
		if (name == last)
			continue;	/* sorts last: pahole's loop never judges it */
		if (strset_add(&sy->ambiguous, name, strlen(name)) < 0) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	mem_free(fa);
	return err;
}

/*
 * pahole 1.30's comparison: a key or entry with a cut name compares by it
 * against entries cut at the same length, by the whole name otherwise.
 */
static int cmp130(const struct fn130 *a, const struct fn130 *b)
{
	if (a->plen && a->plen == b->plen)
		return strncmp(a->name, b->name, a->plen);
	return strcmp(a->name, b->name);
}

/* glibc's qsort (a top-down merge sort), step for step: the same order. */
static void msort130(struct fn130 *b, size_t n, struct fn130 *tmp)
{
	size_t n1 = n / 2, n2 = n - n1;
	struct fn130 *b1 = b, *b2 = b + n1, *t = tmp;

	if (n <= 1)
		return;
	msort130(b1, n1, tmp);
	msort130(b2, n2, tmp);
	while (n1 > 0 && n2 > 0) {
		if (cmp130(b1, b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(t, b1, n1 * sizeof(*t));
	memcpy(b, tmp, (n - n2) * sizeof(*b));
}

/* pahole 1.30 keeps every STT_FUNC symbol, sorted by cmp130. */
static int load130(struct enc_syms *sy, struct belf *e, size_t nfuncs, struct diag *d)
{
	size_t i, n = belf_nsyms(e);
	struct fn130 *tmp;

	sy->fn130 = mem_array(nfuncs ? nfuncs : 1, sizeof(*sy->fn130));
	tmp = mem_array(nfuncs ? nfuncs : 1, sizeof(*tmp));
	if (!sy->fn130 || !tmp) {
		mem_free(tmp);
		return diag_err(d, ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);
		const char *dot;
		struct fn130 *f;

		if (s->type != STT_FUNC)
			continue;
		f = &sy->fn130[sy->nfn130++];
		f->name = s->name;
		dot = strchr(s->name, '.');
		f->plen = (uint32_t)(dot ? (size_t)(dot - s->name) : strlen(s->name));
		if (dot)
			sy->fn130_suffixes = true;
		if (strset_add(&sy->funcs_prefix, s->name, f->plen) < 0) {
			mem_free(tmp);
			return diag_err(d, ENOMEM, "out of memory");
		}
	}
	msort130(sy->fn130, sy->nfn130, tmp);
	mem_free(tmp);
	return 0;
}

/* glibc's bsearch over the 1.30 table; plen 0: the exact lookup. */
static const struct fn130 *find130(const struct enc_syms *sy, const char *name, uint32_t plen)
{
	struct fn130 key = { name, plen };
	size_t lo = 0, hi = sy->nfn130;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp130(&key, &sy->fn130[mid]);

		if (c < 0)
			hi = mid;
		else if (c > 0)
			lo = mid + 1;
		else
			return &sy->fn130[mid];
	}
	return NULL;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct obj_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->shndx > y->shndx) - (x->shndx < y->shndx);
}

/* Sections variables may live in, and the object symbols of those kept. */
static int load_var_tables(struct enc_syms *sy, struct belf *e, const struct enc_opts *o,
			   struct diag *d)
{
	size_t i, n = belf_nsections(e), cap = 0;

	for (i = 1; i < n; i++) {
		const struct belf_section *s = belf_section(e, i);
		struct var_sec *v;

		if (s->type != SHT_PROGBITS && s->type != SHT_NOBITS)
			continue;
		if (VEC_RESERVE(sy->secs, cap, sy->nsecs + 1))
			return diag_err(d, ENOMEM, "out of memory");
		v = &sy->secs[sy->nsecs++];
		v->idx = i;
		v->name = s->name;
		v->addr = belf_section_addr(e, i);
		v->size = s->size;
		v->include = o->global_vars || (o->vars && !strcmp(s->name, ".data..percpu"));
	}
	cap = 0;
	for (i = 0; i < belf_nsyms(e); i++) {
		const struct belf_sym *s = belf_sym(e, i);
		size_t k;

		if (s->type != STT_OBJECT)
			continue;
		for (k = 0; k < sy->nsecs && sy->secs[k].idx != s->shndx; k++)
			;
		if (k == sy->nsecs || !sy->secs[k].include)
			continue;
		if (VEC_RESERVE(sy->objs, cap, sy->nobjs + 1))
			return diag_err(d, ENOMEM, "out of memory");
		sy->objs[sy->nobjs].name = s->name;
		sy->objs[sy->nobjs].shndx = s->shndx;
		sy->nobjs++;
	}
	if (sy->nobjs)
		qsort(sy->objs, sy->nobjs, sizeof(*sy->objs), cmp_obj);
	return 0;
}

int policy_syms_load(struct enc_syms *sy, struct belf *e, const struct enc_opts *o,
		     size_t nfuncs, struct diag *d)
{
	int err;

	param_regs(sy, belf_machine(e));
	if (o->compat == ENC_COMPAT_131)
		err = load131(sy, e, nfuncs, d);
	else
		err = load130(sy, e, nfuncs, d);
	if (!err && (o->vars || o->global_vars))
		err = load_var_tables(sy, e, o, d);
	return err;
}

void policy_syms_free(struct enc_syms *sy)
{
	mem_free(sy->fn130);
	mem_free(sy->secs);
	mem_free(sy->objs);
}

bool policy_func_match(const struct enc_syms *sy, const struct enc_opts *o, const char *name,
		       bool *exact, const char **elf_name)
{
	const struct fn130 *f;
	size_t len = strlen(name);

	*elf_name = NULL;
	if (o->compat == ENC_COMPAT_131) {
		*exact = strset_find(&sy->funcs, name, len) >= 0;
		return strset_find(&sy->funcs_prefix, name, len) >= 0;
	}
	/* 1.30: the exact lookup, else (optimized_func) one by the cut name */
	*exact = false;
	if ((f = find130(sy, name, 0))) {
		*exact = true;
	} else if (o->optimized_func && sy->fn130_suffixes && len <= UINT32_MAX &&
		   strset_find(&sy->funcs_prefix, name, len) >= 0) {
		f = find130(sy, name, (uint32_t)len);
	}
	if (f)
		*elf_name = f->name;
	return f != NULL;
}

const struct var_sec *policy_var_sec(const struct enc_syms *sy, uint64_t addr)
{
	size_t i;

	/* the first section (in index order) holding the address, like pahole */
	for (i = 0; i < sy->nsecs; i++)
		if (sy->secs[i].addr <= addr && addr - sy->secs[i].addr < sy->secs[i].size)
			return &sy->secs[i];
	return NULL;
}

bool policy_obj_in_sec(const struct enc_syms *sy, const char *name, size_t shndx)
{
	struct obj_sym key = { name, shndx };

	return sy->nobjs && bsearch(&key, sy->objs, sy->nobjs, sizeof(key), cmp_obj);
}

bool policy_var_name_skipped(const char *name)
{
	static const char *const prefixes[] = {
		"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_",
		"__func_stack_frame_non_standard_",
	};
	size_t i;

	for (i = 0; name[0] == '_' && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool policy_name_valid(const char *p)
{
	size_t i;

	for (i = 0; p[i]; i++) {
		char c = p[i];
		bool ok = c == '_' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (i && c >= '0' && c <= '9');

		if (!ok || i >= 128)	/* pahole's KSYM_NAME_LEN */
			return false;
	}
	return i > 0;
}

/* ---- kfunc tags ---- */

int policy_kfunc_tags(const struct enc_opts *o, const struct enc_syms *sy, struct enc_builder *out,
		      const char *name, uint32_t func_id)
{
	int64_t so;
	int id;

	if (!o->decl_tag_kfuncs || !o->decl_tags ||
	    (so = strset_find(&sy->kfuncs, name, strlen(name))) < 0)
		return 0;
	if ((id = encb_add_decl_tag(out, "bpf_kfunc", func_id, -1)) < 0)
		return id;
	if ((sy->kfunc_flags[so] & KF_FASTCALL) &&
	    (id = encb_add_decl_tag(out, "bpf_fastcall", func_id, -1)) < 0)
		return id;
	return 0;
}

/* ---- every instance of a function, judged after all units ---- */

/* One instance: its FUNC_PROTO and decl tags in the pool, ids out's. */
struct finst {
	uint32_t next;		/* the name's next instance + 1; 0: last */
	size_t off;		/* in pool */
	uint32_t proto_words, tag_words;
	bool unexpected_reg, uncertain;
};

/* One function name: its instances in unit order. */
struct fstate {
	uint32_t name;		/* in names */
	uint32_t first, last;	/* instances + 1 */
	bool suffix_only, kfunc_ok;
	const char *elf_name;	/* 1.30's messages */
};

int fpol_init(struct fpolicy *p, const struct enc_opts *o, const struct enc_syms *sy)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->sy = sy;
	return strset_init(&p->names, false);
}

void fpol_free(struct fpolicy *p)
{
	mem_free(p->fs);
	mem_free(p->fidx);
	mem_free(p->insts);
	mem_free(p->pool);
	strset_free(&p->names);
	memset(p, 0, sizeof(*p));
}
static enum btf_kind cmp_kind(const struct btf_type *t)
{
	if (btf_kind(t) == BTF_KIND_FWD)
		return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	return btf_kind(t);
}

/*
 * pahole's types__match(): const-insensitive, a forward declaration like
 * its struct or union, named types by name.  Two prototypes match when
 * their counts and return types do: pahole compares the return types once
 * per parameter instead of the parameters, and so does this.
 */
static bool types_match(const struct enc_builder *b, uint32_t id1, uint32_t id2, int depth)
{
	while (depth-- > 0) {
		const struct btf_type *t1, *t2;
		enum btf_kind k1, k2;
		unsigned i;

		if (id1 == id2)
			return true;
		if (!id1 || !id2)
			return false;
		t1 = encb_type_by_id(b, id1);
		t2 = encb_type_by_id(b, id2);
		if (!t1 || !t2)
			return false;
		k1 = cmp_kind(t1);
		k2 = cmp_kind(t2);
		if (k1 != k2) {
			if (k1 == BTF_KIND_CONST) {
				id1 = t1->type;
				continue;
			}
			if (k2 == BTF_KIND_CONST) {
				id2 = t2->type;
				continue;
			}
			return false;
		}
		switch (k1) {
		case BTF_KIND_INT:
			return t1->size == t2->size && btf_int_word(t1) == btf_int_word(t2) &&
			       t1->name_off == t2->name_off;
		case BTF_KIND_FLOAT:
			return t1->size == t2->size && t1->name_off == t2->name_off;
		case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return t1->name_off == t2->name_off;	/* strings are unique in out */
		case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id1 = t1->type;
			id2 = t2->type;
			break;
		case BTF_KIND_ARRAY:
			if (btf_array(t1)->nelems != btf_array(t2)->nelems)
				return false;
			id1 = btf_array(t1)->type;
			id2 = btf_array(t2)->type;
			break;
		case BTF_KIND_FUNC_PROTO:
			if (btf_vlen(t1) != btf_vlen(t2) || !types_match(b, t1->type, t2->type, depth))
				return false;
			for (i = 0; i < btf_vlen(t1); i++)
				if (!types_match(b, t1->type, t2->type, depth))
					return false;
			return true;
		case BTF_KIND_UNKN: case BTF_KIND_FWD: case BTF_KIND_FUNC: case BTF_KIND_VAR:
		case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
		default:
			return false;
		}
	}
	return false;
}

/* pahole's funcs__match(): the count, the return type, each parameter's type. */
static bool protos_match(const struct enc_builder *b, const struct btf_type *p1, const struct btf_type *p2,
			 char *why, size_t why_len)
{
	const struct btf_param *a = btf_params(p1), *c = btf_params(p2);
	unsigned i;

	if (btf_vlen(p1) != btf_vlen(p2)) {
		snprintf(why, why_len, "param count mismatch; %u params != %u params", btf_vlen(p1),
			 btf_vlen(p2));
		return false;
	}
	if (!types_match(b, p1->type, p2->type, 64)) {
		snprintf(why, why_len, "return type mismatch");
		return false;
	}
	for (i = 0; i < btf_vlen(p1); i++)
		if (!types_match(b, a[i].type, c[i].type, 64)) {
			snprintf(why, why_len, "param type mismatch for param#%u %s != %s", i + 1,
				 encb_name(b, a[i].name_off), encb_name(b, c[i].name_off));
			return false;
		}
	return true;
}

int fpol_save(struct fpolicy *p, const struct frag_func *ff, const uint32_t *proto,
	      size_t proto_words, const uint32_t *tags, size_t tag_words)
{
	size_t len = strlen(ff->name);
	int64_t idx = strset_find(&p->names, ff->name, len);
	struct fstate *st;
	struct finst *in;

	if (VEC_RESERVE(p->insts, p->insts_cap, p->ninsts + 1) ||
	    VEC_RESERVE(p->pool, p->pool_cap, p->npool + proto_words + tag_words))
		return -ENOMEM;
	in = &p->insts[p->ninsts];
	in->next = 0;
	in->off = p->npool;
	in->proto_words = (uint32_t)proto_words;
	in->tag_words = (uint32_t)tag_words;
	in->unexpected_reg = ff->unexpected_reg;
	in->uncertain = ff->uncertain_loc;
	memcpy(p->pool + p->npool, proto, proto_words * 4);
	if (tag_words)
		memcpy(p->pool + p->npool + proto_words, tags, tag_words * 4);
	if (idx < 0) {
		idx = strset_add(&p->names, ff->name, len);
		if (idx < 0 || VEC_RESERVE(p->fs, p->fs_cap, p->nfs + 1) ||
		    VEC_RESERVE(p->fidx, p->fidx_cap, (size_t)idx + 1))
			return -ENOMEM;
		p->fidx[idx] = (uint32_t)p->nfs;
		st = &p->fs[p->nfs++];
		st->name = (uint32_t)idx;
		st->first = 0;
		st->suffix_only = ff->suffix_only;
		st->kfunc_ok = ff->kfunc_ok;
		st->elf_name = ff->elf_name;
	} else {
		st = &p->fs[p->fidx[idx]];
	}
	p->ninsts++;
	p->npool += proto_words + tag_words;
	if (st->first)
		p->insts[st->last - 1].next = (uint32_t)p->ninsts;
	else
		st->first = (uint32_t)p->ninsts;
	st->last = (uint32_t)p->ninsts;
	return 0;
}

PRINTF_LIKE(2, 3)
static void plog(const struct fpolicy *p, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!p->o->verbose || !p->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->o->log(p->o->log_ctx, line);
}

/* pahole's skip line: 1.30 names the ELF symbol too. */
static void log_skip(const struct fpolicy *p, const struct fstate *st, const char *name,
		     const char *why)
{
	if (p->o->compat == ENC_COMPAT_130)
		plog(p, "%s (%s): skipping BTF encoding of function due to %s", name,
		     st->elf_name ? st->elf_name : name, why);
	else
		plog(p, "%s : skipping BTF encoding of function due to %s", name, why);
}

/* A pointer to what ptr points to, through an address_space(1) attribute tag. */
static int arena_ptr(struct enc_builder *out, uint32_t *type)
{
	const struct btf_type *ptr = encb_type_by_id(out, *type);
	int id;

	if (!*type || !ptr || btf_kind(ptr) != BTF_KIND_PTR)
		return -EINVAL;
	if ((id = encb_add_hdr(out, ARENA_ATTR, BTF_INFO_ENC(BTF_KIND_TYPE_TAG, 1, 0), ptr->type)) < 0 ||
	    (id = encb_add_hdr(out, NULL, BTF_INFO_ENC(BTF_KIND_PTR, 0, 0), (uint32_t)id)) < 0)
		return id;
	*type = (uint32_t)id;
	return 0;
}

/*
 * attributes: a kfunc flagged KF_ARENA_RET/ARG1/ARG2 returns or takes
 * arena pointers; its prototype (proto, changed in place) says so through
 * kind_flag type tags.
 */
static int arena_tags(struct fpolicy *p, struct enc_builder *out, struct btf_type *proto,
		      const char *name, struct diag *d)
{
	struct btf_param *prm = btf_params(proto);
	int64_t so = strset_find(&p->sy->kfuncs, name, strlen(name));
	uint32_t flags;
	int err = 0;

	if (so < 0)
		return 0;
	flags = p->sy->kfunc_flags[so];
	if (flags & KF_ARENA_RET)
		err = arena_ptr(out, &proto->type);
	if (!err && (flags & KF_ARENA_ARG1))
		err = btf_vlen(proto) < 1 ? -EINVAL : arena_ptr(out, &prm[0].type);
	if (!err && (flags & KF_ARENA_ARG2))
		err = btf_vlen(proto) < 2 ? -EINVAL : arena_ptr(out, &prm[1].type);
	if (err)
		return diag_err(d, -err, "kfunc '%s': cannot add %s tags: %s", name, ARENA_ATTR,
				err == -EINVAL ? "the flagged type is not a pointer" : strerror(-err));
	return 0;
}

static int cmp_fstate(const void *a, const void *b, void *ctx)
{
	const struct fpolicy *p = ctx;
	const struct fstate *x = *(const struct fstate *const *)a, *y = *(const struct fstate *const *)b;

	return strcmp(strset_get(&p->names, x->name), strset_get(&p->names, y->name));
}

/* One function that passed: its first instance's prototype (arena tags first), FUNC and tags. */
static int emit_one(struct fpolicy *p, struct enc_builder *out, struct fstate *st,
		    const char *name, struct diag *d)
{
	const struct finst *in = &p->insts[st->first - 1];
	uint32_t *w = p->pool + in->off, i;
	int id, func, err;

	if (p->o->attributes && p->o->decl_tag_kfuncs && st->kfunc_ok &&
	    (err = arena_tags(p, out, (struct btf_type *)w, name, d)))
		return err;
	if ((id = encb_add_raw(out, (const struct btf_type *)w, in->proto_words * 4)) < 0 ||
	    (func = encb_add_hdr(out, name, BTF_INFO_ENC(BTF_KIND_FUNC, 0, BTF_FUNC_STATIC),
				 (uint32_t)id)) < 0)
		return id < 0 ? id : func;
	for (i = in->proto_words; i < in->proto_words + in->tag_words; i += 4) {	/* decl tags */
		struct btf_type *tag = (struct btf_type *)(w + i);

		tag->type = (uint32_t)func;
		if ((id = encb_add_raw(out, tag, 16)) < 0)
			return id;
	}
	return st->kfunc_ok ? policy_kfunc_tags(p->o, p->sy, out, name, (uint32_t)func) : 0;
}

int fpol_emit(struct fpolicy *p, struct enc_builder *out, uint64_t *nfuncs, struct diag *d)
{
	const bool v131 = p->o->compat == ENC_COMPAT_131;
	struct fstate **order;
	size_t i;
	int err = 0;

	if (!p->nfs)
		return 0;
	if (!(order = mem_array(p->nfs, sizeof(*order))))
		return -ENOMEM;
	for (i = 0; i < p->nfs; i++)
		order[i] = &p->fs[i];
	qsort_r(order, p->nfs, sizeof(*order), cmp_fstate, p);	/* pahole's order: by name */
	for (i = 0; i < p->nfs && !err; i++) {
		struct fstate *st = order[i];
		const char *name = strset_get(&p->names, st->name);
		const struct finst *a = &p->insts[st->first - 1], *b;
		bool unexp = a->unexpected_reg, uncertain = a->uncertain, inconsistent = false;
		bool ambiguous = v131 && strset_find(&p->sy->ambiguous, name, strlen(name)) >= 0;
		char why[160];

		/* pahole's saved_functions_combine(): the first against each later one */
		for (b = a; b->next; ) {
			b = &p->insts[b->next - 1];
			unexp |= b->unexpected_reg;
			uncertain |= b->uncertain;
			if (!unexp && !inconsistent &&
			    !protos_match(out, (const struct btf_type *)(p->pool + a->off),
					  (const struct btf_type *)(p->pool + b->off), why, sizeof(why))) {
				inconsistent = true;
				log_skip(p, st, name, why);	/* printed whether or not it drops */
			}
		}
		uncertain &= v131;
		if (uncertain)
			log_skip(p, st, name, "uncertain parameter location");
		if (p->o->consistent_func && (inconsistent || uncertain || unexp || ambiguous)) {
			/* pahole 1.30/1.31 drop these two without a word */
			if (!inconsistent && !uncertain)
				log_skip(p, st, name, unexp ? "unexpected register used for parameter"
							    : "ambiguous address");
			continue;
		}
		if (st->suffix_only)
			plog(p, "%s : encoded from an ELF symbol with a '.' suffix (optimized_func)", name);
		if (!(err = emit_one(p, out, st, name, d)))
			(*nfuncs)++;
	}
	mem_free(order);
	return err;
}
