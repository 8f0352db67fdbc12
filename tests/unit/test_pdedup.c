// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two-level dedup (src/btf/dedup/groups.c, docs/parallel-dedup.md) on
 * the cases where libbpf's result depends on its order.  Each case is a
 * few units, forced into groups of one unit each (group_types 1); the
 * two levels must give the graph of the one-level run (libbpf's bytes:
 * tests/t_dedup.sh checks those against libbpf 1.1.2 itself, and the
 * two-level output of the same inputs, written into $BTFC_DEDUP_CASES as
 * pd_*.btf, against libbpf's graph), the same bytes for any thread count,
 * and must fall back to one level exactly where the case says it must.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "test.h"

typedef struct btf *(*build_fn)(void);

/*
 * Two levels (groups of one unit, on 1, 2 and 5 threads) against one
 * level; fallback says whether the two levels must give up.  0 when all
 * holds.
 */
static int two_levels(build_fn build, const char *name, bool fallback)
{
	static const unsigned threads[] = { 1, 2, 5 };
	struct btf_dedup_opts one = { .nr_threads = 1, .exact = true };
	struct btf *ref = build(), *b;
	void *blob0 = NULL, *blob;
	size_t len0 = 0, len;
	int bad = 0;
	size_t i;

	if (!ref)
		return 1;
	dedup_case_save(ref, name, ".btf");
	if (btf_base(ref))
		dedup_case_save(btf_base(ref), name, ".base.btf");
	if (btf_dedup(ref, &one, NULL)) {
		btf_free(ref);
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(threads); i++) {
		struct btf_dedup_stats st;
		struct btf_dedup_opts two = { .nr_threads = threads[i], .group_types = 1,
					      .stats = &st };
		struct btf_diff r = { 0 };

		if (!(b = build()) || btf_dedup(b, &two, NULL) || btf_write(b, &blob, &len, NULL)) {
			btf_free(b);
			bad = 1;
			break;
		}
		if (st.ngroups < 2 || st.fallback != fallback) {
			fprintf(stderr, "  %s: %u groups, fallback %d (expected %d)\n", name,
				st.ngroups, st.fallback, fallback);
			bad = 1;
		}
		if (btf_diff(b, ref, NULL, &r, NULL) || !btf_diff_equal(&r) ||
		    btf_type_count(b) != btf_type_count(ref)) {
			fprintf(stderr, "  %s: %u types against %u, graphs %s\n", name,
				btf_type_count(b), btf_type_count(ref),
				btf_diff_equal(&r) ? "equal" : "differ");
			bad = 1;
		}
		btf_diff_free(&r);
		if (!blob0) {
			blob0 = blob;
			len0 = len;
		} else {
			bad |= len != len0 || memcmp(blob, blob0, len);
			mem_free(blob);
		}
		btf_free(b);
	}
	mem_free(blob0);
	btf_free(ref);
	return bad;
}

/* A struct S { struct A *p; } with A a FWD in some units, complete (one definition) in others. */
static struct btf *fwd_full(void)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 6; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, "int", 4, BTF_INT_SIGNED);		/* i */
		if (u % 3 == 0) {
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);		/* i + 1 */
		} else {
			btf_add_struct(b, "A", 4);
			btf_add_member(b, "x", i, 0, 0);
		}
		btf_add_ptr(b, i + 1);					/* i + 2 */
		btf_add_struct(b, u == 4 ? "T" : "S", 8);		/* i + 3 */
		btf_add_member(b, "p", i + 2, 0, 0);
		if (u == 5)	/* a FWD no walk meets: phase 4 resolves it */
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);
	}
	return b;
}

TEST(pdedup_fwd_and_full_definition)
{
	CHECK(two_levels(fwd_full, "pd_fwd_full", false) == 0);
}

/*
 * A FWD whose name has two different definitions: S{fwd A *} equals both
 * S{A1 *} and S{A2 *}, and libbpf's hash-table order picks one.  The check
 * sends it to one level: both definitions sit in an S (with sizes apart),
 * or A1 and A2 have one shape (one may be the other's class in libbpf).
 */
static struct btf *fwd_ambiguous_case(bool sizes_apart)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 5; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, u % 2 ? "long" : "int", u % 2 ? 8 : 4, BTF_INT_SIGNED);
		if (u == 2) {
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);
		} else {
			btf_add_struct(b, "A", sizes_apart && u % 2 ? 8 : 4);
			btf_add_member(b, "x", i, 0, 0);
		}
		btf_add_ptr(b, i + 1);
		btf_add_struct(b, "S", 8);
		btf_add_member(b, "p", i + 2, 0, 0);
	}
	return b;
}

static struct btf *fwd_ambiguous(void)
{
	return fwd_ambiguous_case(false);
}

static struct btf *fwd_ambiguous_sizes(void)
{
	return fwd_ambiguous_case(true);
}

TEST(pdedup_fwd_with_two_definitions)
{
	CHECK(two_levels(fwd_ambiguous, "pd_fwd_ambiguous", true) == 0);
	CHECK(two_levels(fwd_ambiguous_sizes, "pd_fwd_ambiguous_sizes", true) == 0);
}

/*
 * A FWD whose name has two definitions that it meets in different places:
 * S{fwd A *} pairs with S{A1 *} only; A2 sits in T, which no FWD's holder
 * looks like, so no order of libbpf's could resolve the FWD to A2.  With
 * mixed set, one unit resolves its FWD itself (its S{A1 *} and S{fwd A *})
 * while the others' stay in U{fwd A *}: libbpf's one FWD resolves for all
 * of them, the groups' do not, so the two levels give up.
 */
static struct btf *fwd_apart_case(bool mixed)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, u == 3 ? "long" : "int", u == 3 ? 8 : 4, BTF_INT_SIGNED); /* i */
		if (u == 3) {						/* A2 in T */
			btf_add_struct(b, "A", 8);			/* i + 1 */
			btf_add_member(b, "x", i, 0, 0);
			btf_add_ptr(b, i + 1);
			btf_add_struct(b, "T", 8);
			btf_add_member(b, "q", i + 2, 0, 0);
		} else if (!mixed && u != 0) {				/* S{fwd A *} */
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);		/* i + 1 */
			btf_add_ptr(b, i + 1);
			btf_add_struct(b, "S", 8);
			btf_add_member(b, "p", i + 2, 0, 0);
		} else if (u != 0) {					/* U{fwd A *} */
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);
			btf_add_ptr(b, i + 1);
			btf_add_struct(b, "U", 8);
			btf_add_member(b, "p", i + 2, 0, 0);
		} else {						/* S{A1 *} */
			btf_add_struct(b, "A", 4);			/* i + 1 */
			btf_add_member(b, "x", i, 0, 0);
			btf_add_ptr(b, i + 1);
			btf_add_struct(b, "S", 8);
			btf_add_member(b, "p", i + 2, 0, 0);
			if (mixed) {	/* and S{fwd A *}, in W with the other */
				btf_add_fwd(b, "A", BTF_KIND_STRUCT);	/* i + 4 */
				btf_add_ptr(b, i + 4);
				btf_add_struct(b, "S", 8);		/* i + 6 */
				btf_add_member(b, "p", i + 5, 0, 0);
				btf_add_struct(b, "W", 16);
				btf_add_member(b, "s1", i + 3, 0, 0);
				btf_add_member(b, "s2", i + 6, 64, 0);
			}
		}
	}
	return b;
}

static struct btf *fwd_apart(void)
{
	return fwd_apart_case(false);
}

static struct btf *fwd_apart_mixed(void)
{
	return fwd_apart_case(true);
}

TEST(pdedup_fwd_with_two_definitions_apart)
{
	CHECK(two_levels(fwd_apart, "pd_fwd_apart", false) == 0);
	CHECK(two_levels(fwd_apart_mixed, "pd_fwd_apart_mixed", true) == 0);
}

/*
 * A FWD whose name has two definitions but which nothing resolves: T{fwd
 * A *} has no look-alike holding a definition, so the FWD stays in libbpf
 * and at both levels; no choice was made, the two levels stand.  A FWD
 * resolved by a group's unique-name phase (its group has one definition,
 * the input two) is a choice: one level.
 */
static struct btf *fwd_unresolved_case(bool unique_in_group)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, u % 2 ? "long" : "int", u % 2 ? 8 : 4, BTF_INT_SIGNED);
		if (u == 2) {
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);		/* i + 1 */
			btf_add_ptr(b, i + 1);
			if (unique_in_group) {	/* A's definition in T too */
				btf_add_struct(b, "A", 4);		/* i + 3 */
				btf_add_member(b, "x", i, 0, 0);
				btf_add_struct(b, "T", 12);
				btf_add_member(b, "p", i + 2, 0, 0);
				btf_add_member(b, "a", i + 3, 64, 0);
			} else {
				btf_add_struct(b, "T", 8);
				btf_add_member(b, "p", i + 2, 0, 0);
			}
		} else {
			btf_add_struct(b, "A", 4);			/* A1, A2 */
			btf_add_member(b, "x", i, 0, 0);
			btf_add_ptr(b, i + 1);
			btf_add_struct(b, "S", 8);
			btf_add_member(b, "p", i + 2, 0, 0);
		}
	}
	return b;
}

static struct btf *fwd_unresolved(void)
{
	return fwd_unresolved_case(false);
}

static struct btf *fwd_unique_in_group(void)
{
	return fwd_unresolved_case(true);
}

TEST(pdedup_fwd_left_alone_with_two_definitions)
{
	CHECK(two_levels(fwd_unresolved, "pd_fwd_unresolved", false) == 0);
	CHECK(two_levels(fwd_unique_in_group, "pd_fwd_unique_in_group", true) == 0);
}

/* Same-named distinct structs and no FWD of the name: nothing to choose. */
static struct btf *same_name(void)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, u == 1 ? "long" : "int", u == 1 ? 8 : 4, BTF_INT_SIGNED);
		btf_add_struct(b, "A", u == 1 ? 8 : 4);
		btf_add_member(b, "x", i, 0, 0);
		btf_add_ptr(b, i + 1);
		btf_add_struct(b, "S", 8);
		btf_add_member(b, "p", i + 2, 0, 0);
	}
	return b;
}

TEST(pdedup_same_name_distinct_structs)
{
	CHECK(two_levels(same_name, "pd_same_name", false) == 0);
}

/*
 * Cycles through pointers: a list node, and a <-> b with b a FWD in some
 * units (resolved across the cycle).
 */
static struct btf *cycles(void)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 5; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* i */
		btf_add_ptr(b, i + 2);				/* i + 1: node * */
		btf_add_struct(b, "node", 16);			/* i + 2 */
		btf_add_member(b, "next", i + 1, 0, 0);
		btf_add_member(b, "v", i, 64, 0);
		btf_add_struct(b, "a", 8);			/* i + 3 */
		btf_add_member(b, "b", i + 4, 0, 0);
		btf_add_ptr(b, i + 5);				/* i + 4: b * */
		if (u % 2) {
			btf_add_fwd(b, "b", BTF_KIND_STRUCT);	/* i + 5 */
		} else {
			btf_add_struct(b, "b", 16);
			btf_add_member(b, "a", i + 6, 0, 0);
			btf_add_member(b, "n", i + 1, 64, 0);
		}
		btf_add_ptr(b, i + 3);				/* i + 6: a * */
	}
	return b;
}

TEST(pdedup_cycles_through_pointers)
{
	CHECK(two_levels(cycles, "pd_cycles", false) == 0);
}

/* A forward enum and its full definition (one, or two different ones). */
static struct btf *fwd_enum_case(bool two)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);

		if (u == 0) {
			btf_add_enum(b, "e", 4);		/* forward: no values */
		} else {
			btf_add_enum(b, "e", 4);
			btf_add_enum_value(b, "E1", two && u == 2 ? 2 : 1);
		}
		btf_add_ptr(b, i);
		btf_add_struct(b, "S", 8);
		btf_add_member(b, "p", i + 1, 0, 0);
	}
	return b;
}

static struct btf *fwd_enum(void)
{
	return fwd_enum_case(false);
}

static struct btf *fwd_enum_two(void)
{
	return fwd_enum_case(true);
}

TEST(pdedup_forward_enums)
{
	CHECK(two_levels(fwd_enum, "pd_fwd_enum", false) == 0);
	CHECK(two_levels(fwd_enum_two, "pd_fwd_enum_two", true) == 0);
}

/*
 * libbpf's tolerance: a unit whose struct uses two identical copies of an
 * array (or of a nested struct) merges with a unit that has one.
 */
static struct btf *identical(void)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);
		bool dup = u % 2;

		btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* i */
		btf_add_array(b, i, i, 4);			/* i + 1 */
		btf_add_array(b, i, i, 4);			/* i + 2 */
		btf_add_struct(b, NULL, 4);			/* i + 3 */
		btf_add_member(b, "y", i, 0, 0);
		btf_add_struct(b, NULL, 4);			/* i + 4 */
		btf_add_member(b, "y", i, 0, 0);
		btf_add_struct(b, "S", 40);
		btf_add_member(b, "a", i + 1, 0, 0);
		btf_add_member(b, "b", dup ? i + 2 : i + 1, 128, 0);
		btf_add_member(b, "c", i + 3, 256, 0);
		btf_add_member(b, "d", dup ? i + 4 : i + 3, 288, 0);
	}
	return b;
}

TEST(pdedup_identical_arrays_and_structs)
{
	CHECK(two_levels(identical, "pd_identical", false) == 0);
}

/*
 * libbpf 1.1 does not tolerate two copies of a pointer type in one unit
 * (it keeps the enclosing struct twice).  When both units are in one
 * group, that group's run meets the same conflict, and the two levels
 * give up.  (In different groups the group of the unit with two copies
 * merges them first, and the result has one struct fewer than libbpf
 * 1.1's; libbpf >= 1.5's pointer tolerance agrees with that result:
 * docs/parallel-dedup.md.)
 */
static struct btf *dup_pointers(void)
{
	struct btf *b = btf_new(NULL);
	int u;

	for (u = 0; b && u < 4; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* i */
		btf_add_struct(b, "B", 4);			/* i + 1 */
		btf_add_member(b, "x", i, 0, 0);
		btf_add_ptr(b, i + 1);				/* i + 2 */
		btf_add_ptr(b, i + 1);				/* i + 3 (a copy) */
		btf_add_struct(b, "A", 16);
		btf_add_member(b, "p", i + 2, 0, 0);
		btf_add_member(b, "q", u == 1 ? i + 3 : i + 2, 64, 0);
	}
	return b;
}

TEST(pdedup_duplicate_pointers_in_a_unit)
{
	struct btf_dedup_opts two = { .nr_threads = 2, .group_types = 8 };
	struct btf_dedup_stats st;
	struct btf *b = dup_pointers();

	REQUIRE(b);
	dedup_case_save(b, "pd_dup_pointers", ".btf");
	two.stats = &st;
	REQUIRE(btf_dedup(b, &two, NULL) == 0);
	/* units 0 and 1 (5 types each) share the first group: its run meets the conflict */
	CHECK(st.ngroups >= 2);
	CHECK(st.conflicts > 0);
	CHECK(st.fallback);
	btf_free(b);
}

/*
 * Split BTF (a module on vmlinux): the groups are split on the same base
 * and share its prepared table.  The base: int, A{int x}, a FWD F,
 * H{F *p} and S{A *p}.  Units refer to base types, hold their own copies
 * of int, A and S (merged into the base's), and S{fwd A *} (its FWD
 * resolved to the base's A); one level and two give one graph.  A unit defining F
 * and H{F *} makes libbpf point the base's FWD at its F (its
 * hypot_adjust_canon): the two levels give up.  So do they when a FWD's
 * name has a definition in the base and another in the module.
 */
static struct btf *split_base(void)
{
	static struct btf *base;

	if (!base && (base = btf_new(NULL))) {
		btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 1 */
		btf_add_struct(base, "A", 4);			/* 2 */
		btf_add_member(base, "x", 1, 0, 0);
		btf_add_fwd(base, "F", BTF_KIND_STRUCT);	/* 3 */
		btf_add_ptr(base, 3);				/* 4 */
		btf_add_struct(base, "H", 8);			/* 5 */
		btf_add_member(base, "p", 4, 0, 0);
		btf_add_ptr(base, 2);				/* 6 */
		btf_add_struct(base, "S", 8);			/* 7 */
		btf_add_member(base, "p", 6, 0, 0);
	}
	return base;
}

enum split_kind { SPLIT_PLAIN, SPLIT_ADJUST, SPLIT_TWO_DEFS };

static struct btf *split_case(enum split_kind kind)
{
	struct btf *base = split_base(), *b = base ? btf_new(base) : NULL;
	int u;

	for (u = 0; b && u < 6; u++) {
		uint32_t i = btf_type_count(b);

		btf_add_int(b, "int", 4, BTF_INT_SIGNED);		/* i: the base's */
		if (u % 3 == 1) {
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);		/* i + 1 */
		} else if (u % 3 == 2) {
			btf_add_struct(b, "A", 4);			/* i + 1: the base's */
			btf_add_member(b, "x", i, 0, 0);
		} else {
			btf_add_ptr(b, 2);				/* i + 1: to the base's A */
		}
		btf_add_ptr(b, u % 3 ? i + 1 : 2);			/* i + 2 */
		btf_add_struct(b, "S", 8);				/* i + 3 */
		btf_add_member(b, "p", i + 2, 0, 0);
		btf_add_struct(b, "T", 4);
		btf_add_member(b, "y", i, 0, 0);
		if (u == 4 && kind == SPLIT_ADJUST) {	/* F and H{F *}: the base's FWD F */
			btf_add_struct(b, "F", 4);			/* i + 5 */
			btf_add_member(b, "z", i, 0, 0);
			btf_add_ptr(b, i + 5);
			btf_add_struct(b, "H", 8);
			btf_add_member(b, "p", i + 6, 0, 0);
		}
		if (u == 3 && kind == SPLIT_TWO_DEFS) {	/* another A, held apart */
			btf_add_struct(b, "A", 8);			/* i + 5 */
			btf_add_member(b, "x", i, 0, 0);
			btf_add_member(b, "w", i, 32, 0);
			btf_add_ptr(b, i + 5);
			btf_add_struct(b, "V", 8);
			btf_add_member(b, "q", i + 6, 0, 0);
		}
	}
	return b;
}

static struct btf *split_plain(void)
{
	return split_case(SPLIT_PLAIN);
}

static struct btf *split_adjust(void)
{
	return split_case(SPLIT_ADJUST);
}

static struct btf *split_two_defs(void)
{
	return split_case(SPLIT_TWO_DEFS);
}

TEST(pdedup_split_on_a_base)
{
	CHECK(two_levels(split_plain, "pd_split", false) == 0);
	CHECK(two_levels(split_adjust, "pd_split_adjust", true) == 0);
	CHECK(two_levels(split_two_defs, "pd_split_two_defs", true) == 0);
}
