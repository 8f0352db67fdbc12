// SPDX-License-Identifier: GPL-2.0-only
/* layout/: pahole's text for small structs built in memory, and -R plans. */
#include <stdlib.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "layout/layout.h"
#include "layout/layout_ext.h"
#include "test.h"

/* struct s { char a; long b; unsigned x:3; unsigned y:2; int c; }; */
static struct btf *build(uint32_t *sid)
{
	struct btf *b = btf_new(NULL);
	int ch = btf_add_int(b, "char", 1, BTF_INT_SIGNED);
	int lg = btf_add_int(b, "long int", 8, BTF_INT_SIGNED);
	int ui = btf_add_int(b, "unsigned int", 4, 0);
	int in = btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	int s;

	btf_add_int(b, "unsigned char", 1, 0);	/* for demoting bitfields */
	s = btf_add_struct(b, "s", 24);

	btf_add_member(b, "a", (uint32_t)ch, 0, 0);
	btf_add_member(b, "b", (uint32_t)lg, 64, 0);
	btf_add_member(b, "x", (uint32_t)ui, 128, 3);
	btf_add_member(b, "y", (uint32_t)ui, 131, 2);
	btf_add_member(b, "c", (uint32_t)in, 160, 0);
	*sid = (uint32_t)s;
	return b;
}

TEST(layout_pahole_text)
{
	static const char want[] =
		"struct s {\n"
		"\tchar                       a;                    /*     0     1 */\n"
		"\n"
		"\t/* XXX 7 bytes hole, try to pack */\n"
		"\n"
		"\tlong int                   b;                    /*     8     8 */\n"
		"\tunsigned int               x:3;                  /*    16: 0  4 */\n"
		"\tunsigned int               y:2;                  /*    16: 3  4 */\n"
		"\n"
		"\t/* XXX 27 bits hole, try to pack */\n"
		"\n"
		"\tint                        c;                    /*    20     4 */\n"
		"\n"
		"\t/* size: 24, cachelines: 1, members: 5 */\n"
		"\t/* sum members: 13, holes: 1, sum holes: 7 */\n"
		"\t/* sum bitfield members: 5 bits, bit holes: 1, sum bit holes: 27 bits */\n"
		"\t/* last cacheline: 24 bytes */\n"
		"};";
	struct layout_opts o = { 0 };
	struct lbuf out = { 0 };
	struct layout *l;
	struct diag d;
	uint32_t sid;
	struct btf *b = build(&sid);

	REQUIRE(b && !btf_error(b));
	REQUIRE(layout_open(b, &o, &l, &d) == 0);
	CHECK(layout_find(l, "s") == sid);
	CHECK(layout_print(l, sid, NULL, NULL, &out) == 0);
	CHECK_STR(out.p, want);
	layout_close(l);
	lbuf_free(&out);
	btf_free(b);
}

TEST(layout_reorg_plan_valid)
{
	struct layout_opts o = { 0 };
	struct layout *l;
	struct diag d;
	uint32_t sid, *order = NULL, n = 0, size = 0, i;
	uint64_t *bits = NULL;
	struct btf *b = build(&sid);
	bool seen[5] = { 0 };

	REQUIRE(layout_open(b, &o, &l, &d) == 0);
	REQUIRE(layout_reorg_plan(l, sid, &order, &bits, &n, &size) == 0);
	CHECK_EQ_U(n, 5);
	CHECK_EQ_U(size, 16);	/* long, int, bitfields demoted to a char, char */
	for (i = 0; i < n; i++) {
		CHECK(order[i] < 5 && !seen[order[i]]);
		seen[order[i] % 5] = true;
	}
	CHECK_EQ_U(bits[0], 0);	/* b first */
	CHECK(layout_packable(l, sid));
	mem_free(order);
	mem_free(bits);
	layout_close(l);
	btf_free(b);
}

/*
 * The pahole 1.30/1.31 summary lines, on what gcc and pahole -J make of
 *   struct in { char a; int b; unsigned x:3; };
 *   struct fl { int n; char d[]; };
 *   struct emb { int k; struct fl f; };
 *   struct out { struct in i; long l; struct fl f; };
 *   struct out2 { int q; struct emb e; };
 *   struct cl { int a; char d[] __attribute__((aligned(64))); };
 *   enum sgn { NEG = -1, POS = 1 };  struct en { enum sgn s; int v; };
 * (the expected texts are pahole 1.24's, 1.30's and 1.31's on that BTF).
 */
struct ids131 { uint32_t out, out2, cl, en; };

static struct btf *build131(struct ids131 *ids)
{
	struct btf *b = btf_new(NULL);
	int ch = btf_add_int(b, "char", 1, BTF_INT_SIGNED);
	int in = btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	int ui = btf_add_int(b, "unsigned int", 4, 0);
	int lg = btf_add_int(b, "long int", 8, BTF_INT_SIGNED);
	int flex = btf_add_array(b, (uint32_t)in, (uint32_t)ch, 0);
	int s_in, s_fl, s_emb, sgn;

	s_in = btf_add_struct(b, "in", 12);
	btf_add_member(b, "a", (uint32_t)ch, 0, 0);
	btf_add_member(b, "b", (uint32_t)in, 32, 0);
	btf_add_member(b, "x", (uint32_t)ui, 64, 3);
	s_fl = btf_add_struct(b, "fl", 4);
	btf_add_member(b, "n", (uint32_t)in, 0, 0);
	btf_add_member(b, "d", (uint32_t)flex, 32, 0);
	s_emb = btf_add_struct(b, "emb", 8);
	btf_add_member(b, "k", (uint32_t)in, 0, 0);
	btf_add_member(b, "f", (uint32_t)s_fl, 32, 0);
	ids->out = (uint32_t)btf_add_struct(b, "out", 32);
	btf_add_member(b, "i", (uint32_t)s_in, 0, 0);
	btf_add_member(b, "l", (uint32_t)lg, 128, 0);
	btf_add_member(b, "f", (uint32_t)s_fl, 192, 0);
	ids->out2 = (uint32_t)btf_add_struct(b, "out2", 12);
	btf_add_member(b, "q", (uint32_t)in, 0, 0);
	btf_add_member(b, "e", (uint32_t)s_emb, 32, 0);
	ids->cl = (uint32_t)btf_add_struct(b, "cl", 64);
	btf_add_member(b, "a", (uint32_t)in, 0, 0);
	btf_add_member(b, "d", (uint32_t)flex, 512, 0);
	sgn = btf_add_enum(b, "sgn", 4);
	btf_add_enum_value(b, "NEG", -1);
	btf_add_enum_value(b, "POS", 1);
	ids->en = (uint32_t)btf_add_struct(b, "en", 8);
	btf_add_member(b, "s", (uint32_t)sgn, 0, 0);
	btf_add_member(b, "v", (uint32_t)in, 32, 0);
	return b;
}

/* pahole's text of type id as `pahole [-E] -C NAME` prints it (without the last newline) */
static char *text131(struct btf *b, unsigned compat, bool expand, uint32_t id)
{
	struct layout_opts o = { .compat = compat, .expand_types = expand };
	struct lbuf out = { 0 };
	struct layout *l;
	struct diag d;

	if (layout_open(b, &o, &l, &d))
		return NULL;
	if (layout_print(l, id, NULL, NULL, &out))
		lbuf_free(&out);
	layout_close(l);
	return out.p;
}

#define OUT_HEAD							\
	"struct out {\n"						\
	"\tstruct in                  i;                    /*     0    12 */\n" \
	"\n"

#define OUT_MIDDLE							\
	"\t/* XXX 4 bytes hole, try to pack */\n"			\
	"\n"								\
	"\tlong int                   l;                    /*    16     8 */\n" \
	"\tstruct fl                  f;                    /*    24     4 */\n"

#define OUT_SUMMARY							\
	"\n"								\
	"\t/* size: 32, cachelines: 1, members: 3 */\n"		\
	"\t/* sum members: 24, holes: 1, sum holes: 4 */\n"		\
	"\t/* padding: 4 */\n"

TEST(layout_131_member_type_holes)
{
	static const char want124[] =
		OUT_HEAD OUT_MIDDLE OUT_SUMMARY
		"\t/* last cacheline: 32 bytes */\n"
		"};";
	static const char want131[] =
		OUT_HEAD
		"\t/* XXX last struct has 29 bits of padding, 1 hole */\n"
		OUT_MIDDLE
		"\n"
		"\t/* XXX last struct has a flexible array */\n"
		OUT_SUMMARY
		"\t/* member types with holes: 1, total: 1, bit paddings: 1, total: 29 bits */\n"
		"\t/* flexible array members: end: 1 */\n"
		"\t/* last cacheline: 32 bytes */\n"
		"};";
	static const char want131_emb[] =
		"struct out2 {\n"
		"\tint                        q;                    /*     0     4 */\n"
		"\tstruct emb                 e;                    /*     4     8 */\n"
		"\n"
		"\t/* XXX last struct has embedded flexible array(s) */\n"
		"\n"
		"\t/* size: 12, cachelines: 1, members: 2 */\n"
		"\t/* flexible array members: middle: 1 */\n"
		"\t/* last cacheline: 12 bytes */\n"
		"};";
	struct ids131 ids;
	struct btf *b = build131(&ids);
	struct layout_opts o = { .compat = LAYOUT_COMPAT_1_31 };
	struct layout *l;
	struct diag d;
	char *t;

	REQUIRE(b && !btf_error(b));
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_24, false, ids.out), want124);
	mem_free(t);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_30, false, ids.out), want131);
	mem_free(t);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_31, false, ids.out), want131);
	mem_free(t);
	CHECK_STR(t = text131(b, 0, false, ids.out2), want131_emb);	/* 0: the default, 1.31 */
	mem_free(t);
	REQUIRE(layout_open(b, &o, &l, &d) == 0);
	CHECK(layout_has_embedded_flexible_array(l, ids.out2));
	CHECK(layout_has_embedded_flexible_array(l, ids.out));	/* its struct fl */
	CHECK(!layout_has_embedded_flexible_array(l, ids.cl));
	layout_close(l);
	o.compat = 125;
	CHECK(layout_open(b, &o, &l, &d) == -EINVAL);
	btf_free(b);
}

TEST(layout_131_flexible_array_alignment)
{
	/* 1.31 infers the alignment of a zero-sized member too, 1.30 does not */
	static const char head[] =
		"struct cl {\n"
		"\tint                        a;                    /*     0     4 */\n"
		"\n"
		"\t/* XXX 60 bytes hole, try to pack */\n"
		"\n"
		"\t/* --- cacheline 1 boundary (64 bytes) --- */\n";
	static const char tail130[] =
		"\tchar                       d[];                  /*    64     0 */\n"
		"\n"
		"\t/* size: 64, cachelines: 1, members: 2 */\n"
		"\t/* sum members: 4, holes: 1, sum holes: 60 */\n"
		"} __attribute__((__aligned__(64)));";
	static const char tail131[] =
		"\tchar                       d[] __attribute__((__aligned__(64))); /*    64     0 */\n"
		"\n"
		"\t/* size: 64, cachelines: 1, members: 2 */\n"
		"\t/* sum members: 4, holes: 1, sum holes: 60 */\n"
		"\t/* forced alignments: 1, forced holes: 1, sum forced holes: 60 */\n"
		"} __attribute__((__aligned__(64)));";
	char want[1024];
	struct ids131 ids;
	struct btf *b = build131(&ids);
	char *t;

	REQUIRE(b && !btf_error(b));
	snprintf(want, sizeof(want), "%s%s", head, tail130);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_30, false, ids.cl), want);
	mem_free(t);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_24, false, ids.cl), want);
	mem_free(t);
	snprintf(want, sizeof(want), "%s%s", head, tail131);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_31, false, ids.cl), want);
	mem_free(t);
	btf_free(b);
}

TEST(layout_131_expands_named_signed_enum)
{
	/* -E: 1.24 names a named enum, 1.30 expands it, with signed values */
	static const char want124[] =
		"struct en {\n"
		"\tenum sgn                   s;                                                    /*     0     4 */\n"
		"\tint                        v;                                                    /*     4     4 */\n"
		"\n"
		"\t/* size: 8, cachelines: 1, members: 2 */\n"
		"\t/* last cacheline: 8 bytes */\n"
		"};";
	static const char want131[] =
		"struct en {\n"
		"\tenum sgn {\n"
		"\t\tNEG = -1,\n"
		"\t\tPOS = 1,\n"
		"\t} s;                                          /*     0     4 */\n"
		"\tint                        v;                                                    /*     4     4 */\n"
		"\n"
		"\t/* size: 8, cachelines: 1, members: 2 */\n"
		"\t/* last cacheline: 8 bytes */\n"
		"};";
	struct ids131 ids;
	struct btf *b = build131(&ids);
	char *t;

	REQUIRE(b && !btf_error(b));
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_24, true, ids.en), want124);
	mem_free(t);
	CHECK_STR(t = text131(b, LAYOUT_COMPAT_1_31, true, ids.en), want131);
	mem_free(t);
	btf_free(b);
}

TEST(layout_deep_nesting_indent)
{
	/* 20 anonymous structs, each the only member of the next: pahole
	 * indents at most 16 tabs (the tabs it has), braces included */
	struct btf *b = btf_new(NULL);
	int t = btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	struct layout_opts o = { 0 };
	struct lbuf out = { 0 };
	struct layout *l;
	struct diag d;
	int deepest = 0, lines = 0;

	for (int i = 0; i < 20; i++) {
		int s = btf_add_struct(b, i == 19 ? "deep" : NULL, 4);

		btf_add_member(b, "m", (uint32_t)t, 0, 0);
		t = s;
	}
	REQUIRE(b && !btf_error(b));
	REQUIRE(layout_open(b, &o, &l, &d) == 0);
	CHECK(layout_print(l, layout_find(l, "deep"), NULL, NULL, &out) == 0);
	REQUIRE(out.p);
	CHECK_EQ_U(strlen(out.p), out.len);	/* no NUL inside */
	for (const char *p = out.p; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		int n = 0;

		while (p[n] == '\t')
			n++;
		if (n > deepest)
			deepest = n;
		lines++;
	}
	CHECK_EQ_U(deepest, 16);
	CHECK(lines > 40);
	CHECK(strstr(out.p, "\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t} m;") != NULL);
	layout_close(l);
	lbuf_free(&out);
	btf_free(b);
}
