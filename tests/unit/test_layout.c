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
