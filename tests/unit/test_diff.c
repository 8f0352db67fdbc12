// SPDX-License-Identifier: GPL-2.0-only
/* btf_diff: btfcanon.py's equality on small hand-built graphs. */
#include "test.h"

#include "base/mem.h"
#include "btf/btf.h"
#include "btf/diff.h"

/* struct node { int v; struct node *next; }; typedef struct node node_t; built in two orders. */
static struct btf *list_a(uint32_t off)
{
	struct btf *b = btf_new(NULL);

	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_struct(b, "node", 16);			/* 2 */
	btf_add_member(b, "v", 1, 0, 0);
	btf_add_member(b, "next", 3, off, 0);
	btf_add_ptr(b, 2);				/* 3 */
	btf_add_typedef(b, "node_t", 2);		/* 4 */
	return b;
}

static struct btf *list_b(void)
{
	struct btf *b = btf_new(NULL);

	btf_add_typedef(b, "node_t", 3);		/* 1 */
	btf_add_ptr(b, 3);				/* 2 */
	btf_add_struct(b, "node", 16);			/* 3 */
	btf_add_member(b, "v", 4, 0, 0);
	btf_add_member(b, "next", 2, 64, 0);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 4 */
	return b;
}

static int run(const struct btf *a, const struct btf *b, uint32_t ignore, struct btf_diff *r)
{
	struct btf_diff_opts o = { .ignore_kinds = ignore };
	struct diag d = { 0 };

	return btf_diff(a, b, &o, r, &d);
}

TEST(diff_reordered_cycle_equal)
{
	struct btf *a = list_a(64), *b = list_b();
	struct btf_diff r;

	REQUIRE(a && b);
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(btf_diff_equal(&r));
	CHECK_EQ_U(r.count_a, 4);
	CHECK_EQ_U(r.count_b, 4);
	CHECK_EQ_U(r.kinds_a[BTF_KIND_STRUCT], 1);
	CHECK_EQ_U(r.nentries, 0);
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
}

TEST(diff_member_offset_named_with_propagation)
{
	struct btf *a = list_a(64), *b = list_a(96);
	struct btf_diff r;
	char buf[300];
	size_t i;

	REQUIRE(a && b);
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(!btf_diff_equal(&r));
	/* node, node * and node_t differ; int does not. */
	CHECK_EQ_U(r.only_a, 3);
	CHECK_EQ_U(r.only_b, 3);
	REQUIRE(r.nentries == 3);
	CHECK_EQ_U(r.entries[0].how, BTF_DIFF_CHANGED);
	CHECK_EQ_U(r.entries[0].a_id, 2);
	CHECK_STR(btf_diff_describe(a, b, &r.entries[0], buf, sizeof(buf)),
		  "member 'next' bit offset 64 -> 96");
	for (i = 1; i < r.nentries; i++)
		CHECK_EQ_U(r.entries[i].how, BTF_DIFF_PROPAGATED);
	CHECK_STR(btf_diff_type_str(a, 3, buf, sizeof(buf)), "PTR to STRUCT 'node'");
	btf_diff_free(&r);
	/* Ignoring kinds removes them from the counts, not from the refinement. */
	REQUIRE(run(a, b, 1u << BTF_KIND_STRUCT | 1u << BTF_KIND_PTR, &r) == 0);
	CHECK_EQ_U(r.only_a, 1);
	CHECK_EQ_U(r.count_a, 2);
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
}

TEST(diff_enum_param_and_anon)
{
	struct btf *a = btf_new(NULL), *b = btf_new(NULL);
	struct btf_diff r;
	char buf[300];

	REQUIRE(a && b);
	btf_add_int(a, "int", 4, BTF_INT_SIGNED);		/* 1 */
	btf_add_enum(a, "e", 4);				/* 2 */
	btf_add_enum_value(a, "X", 1);
	btf_add_func_proto(a, 1);				/* 3 */
	btf_add_param(a, "p", 1);
	btf_add_func(a, "f", BTF_FUNC_GLOBAL, 3);		/* 4 */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_enum(b, "e", 4);
	btf_add_enum_value(b, "X", 2);
	btf_add_func_proto(b, 1);
	btf_add_param(b, "p", 2);
	btf_add_func(b, "f", BTF_FUNC_GLOBAL, 3);
	REQUIRE(run(a, b, 0, &r) == 0);
	/*
	 * btfcanon compares colours at the depth where each side's partition
	 * stops changing (1 round here), so f, two references away from the
	 * change, still counts as equal: only the enum and the proto differ.
	 */
	CHECK_EQ_U(r.rounds_a, 1);
	CHECK_EQ_U(r.only_a, 2);
	CHECK_EQ_U(r.only_b, 2);
	REQUIRE(r.nentries == 2);
	CHECK_EQ_U(r.entries[0].a_id, 2);
	CHECK_STR(btf_diff_describe(a, b, &r.entries[0], buf, sizeof(buf)),
		  "enumerator 'X' value 1 -> 2");
	/* The proto's parameter now names another (unchanged) type: a cause. */
	CHECK_EQ_U(r.entries[1].a_id, 3);
	CHECK_EQ_U(r.entries[1].how, BTF_DIFF_RETARGETED);
	CHECK_STR(btf_diff_describe(a, b, &r.entries[1], buf, sizeof(buf)),
		  "param #1 'p' type: INT 'int' -> ENUM 'e'");
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
}

/* Split BTF: references into the base compare by id, as btfcanon's "missing:ID". */
TEST(diff_split_base_refs_by_id)
{
	struct btf *base = btf_new(NULL), *a, *b;
	struct btf_diff r;

	REQUIRE(base);
	btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 2: the same structure */
	a = btf_new(base);
	b = btf_new(base);
	REQUIRE(a && b);
	btf_add_ptr(a, 1);
	btf_add_ptr(b, 1);
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(btf_diff_equal(&r));
	CHECK_EQ_U(r.count_a, 1);
	btf_diff_free(&r);
	btf_type_mut(b, 3)->type = 2;
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK_EQ_U(r.only_a, 1);
	CHECK_EQ_U(r.only_b, 1);
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
	btf_free(base);
}

/* Sides stabilising after different rounds: btfcanon counts everything. */
TEST(diff_rounds_mismatch_counts_all)
{
	struct btf *a = btf_new(NULL), *b = btf_new(NULL);
	struct btf_diff r;
	int i;

	REQUIRE(a && b);
	btf_add_int(a, "int", 4, BTF_INT_SIGNED);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_ptr(b, 1);	/* a chain of 4 pointers needs more rounds */
	for (i = 0; i < 3; i++)
		btf_add_ptr(b, (uint32_t)(2 + i));
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(r.rounds_a != r.rounds_b);
	CHECK_EQ_U(r.only_a, 1);
	CHECK_EQ_U(r.only_b, 5);
	CHECK_EQ_U(r.aligned_only_a, 0);
	CHECK_EQ_U(r.aligned_only_b, 4);
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
}

/* Attributes bpftool does not show do not count; ones it shows do. */
TEST(diff_bpftool_visible_attributes)
{
	struct btf *a = btf_new(NULL), *b = btf_new(NULL);
	struct btf_diff r;

	REQUIRE(a && b);
	/* Member offset 8 with and without kflag (no bitfield): the same. */
	btf_add_int(a, "int", 4, BTF_INT_SIGNED);
	btf_add_struct(a, "s", 4);
	btf_add_member(a, "x", 1, 8, 0);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 8, 0);
	btf_type_mut(b, 2)->info |= 1u << 31;
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(btf_diff_equal(&r));
	btf_diff_free(&r);
	/* FUNC linkage 3 and 4 both print "(unknown)". */
	btf_add_func_proto(a, 0);
	btf_add_func(a, "f", 0, 3);
	btf_add_func_proto(b, 0);
	btf_add_func(b, "f", 0, 3);
	btf_type_mut(a, 4)->info = BTF_INFO_ENC(BTF_KIND_FUNC, 0, 3);
	btf_type_mut(b, 4)->info = BTF_INFO_ENC(BTF_KIND_FUNC, 0, 4);
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK(btf_diff_equal(&r));
	btf_diff_free(&r);
	btf_type_mut(b, 4)->info = BTF_INFO_ENC(BTF_KIND_FUNC, 0, 1);
	REQUIRE(run(a, b, 0, &r) == 0);
	CHECK_EQ_U(r.only_a, 1);
	btf_diff_free(&r);
	btf_free(a);
	btf_free(b);
}
