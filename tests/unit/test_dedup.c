// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_dedup() on hand-built cases (docs/btf.md 7.7).  Each case also writes its
 * input (and base) as raw BTF into $BTFC_DEDUP_CASES when that is set, so
 * tests/t_dedup.sh can run libbpf's btf__dedup on the very same inputs
 * and compare the output bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "btf/btf_internal.h"
#include "btf/dedup.h"
#include "test.h"

/* A case's BTF into $BTFC_DEDUP_CASES as NAME SUFFIX (t_dedup.sh runs libbpf on it). */
void dedup_case_save(const struct btf *btf, const char *name, const char *suffix)
{
	const char *dir = getenv("BTFC_DEDUP_CASES");
	struct diag d = { 0 };
	char path[4096];
	void *blob;
	size_t len;
	FILE *f;

	if (!dir || !*dir || btf_write(btf, &blob, &len, &d))
		return;
	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	f = fopen(path, "wb");
	if (f) {
		fwrite(blob, 1, len, f);
		fclose(f);
	}
	mem_free(blob);
}

/* Save the input of a case, then dedup it. */
static int run(struct btf *btf, const char *name, const struct btf_dedup_opts *o)
{
	struct diag d = { 0 };

	if (btf_base(btf))
		dedup_case_save(btf_base(btf), name, ".base.btf");
	dedup_case_save(btf, name, ".btf");
	return btf_dedup(btf, o, &d);
}

static uint32_t own(const struct btf *btf)
{
	return btf_type_count(btf) - btf_start_id(btf);
}

static unsigned count_kind(const struct btf *btf, unsigned kind)
{
	uint32_t id;
	unsigned n = 0;

	for (id = btf_start_id(btf); id < btf_type_count(btf); id++)
		n += btf_kind(btf_type_by_id(btf, id)) == kind;
	return n;
}

static const struct btf_type *by_name(const struct btf *btf, const char *name, unsigned kind,
				      int *id)
{
	int i = btf_find_by_name_kind(btf, name, kind);

	if (id)
		*id = i;
	return i < 0 ? NULL : btf_type_by_id(btf, (uint32_t)i);
}

/* D1: the same int in two CUs */
TEST(dedup_d1_int_twice)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_ptr(b, 1);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_ptr(b, 3);
	btf_add_int(b, "unsigned int", 4, 0);
	REQUIRE(run(b, "d1", NULL) == 0);
	CHECK_EQ_U(own(b), 3);
	CHECK_EQ_U(count_kind(b, BTF_KIND_INT), 2);
	CHECK_EQ_U(count_kind(b, BTF_KIND_PTR), 1);
	btf_free(b);
}

/* D2: struct S {struct A *a;} with A a FWD in CU1 and complete in CU2 */
TEST(dedup_d2_fwd_resolved_in_graph)
{
	struct btf *b = btf_new(NULL);
	const struct btf_type *s;
	int sid, aid;

	REQUIRE(b);
	/* CU1: 1 int, 2 fwd A, 3 ptr->2, 4 struct S */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_fwd(b, "A", BTF_KIND_STRUCT);
	btf_add_ptr(b, 2);
	btf_add_struct(b, "S", 8);
	btf_add_member(b, "a", 3, 0, 0);
	/* CU2: 5 int, 6 struct A, 7 ptr->6, 8 struct S */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_struct(b, "A", 4);
	btf_add_member(b, "x", 5, 0, 0);
	btf_add_ptr(b, 6);
	btf_add_struct(b, "S", 8);
	btf_add_member(b, "a", 7, 0, 0);
	REQUIRE(run(b, "d2", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 2);
	CHECK_EQ_U(count_kind(b, BTF_KIND_PTR), 1);
	CHECK_EQ_U(own(b), 4);
	s = by_name(b, "S", BTF_KIND_STRUCT, &sid);
	by_name(b, "A", BTF_KIND_STRUCT, &aid);
	REQUIRE(s && aid > 0);
	/* S.a points at the complete A */
	CHECK_EQ_U(btf_type_by_id(b, btf_members(s)[0].type)->type, (unsigned)aid);
	btf_free(b);
}

/* D3: a FWD outside every compared graph, one struct of that name */
TEST(dedup_d3_fwd_by_unique_name)
{
	struct btf *b = btf_new(NULL);
	int aid;

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_fwd(b, "foo", BTF_KIND_STRUCT);
	btf_add_ptr(b, 2);
	btf_add_struct(b, "foo", 4);
	btf_add_member(b, "x", 1, 0, 0);
	REQUIRE(run(b, "d3", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 0);
	by_name(b, "foo", BTF_KIND_STRUCT, &aid);
	REQUIRE(aid > 0);
	CHECK_EQ_U(btf_type_by_id(b, 2)->type, (unsigned)aid);
	btf_free(b);
}

/* D4: ambiguous name keeps the FWD; D5: union FWD vs struct keeps it */
TEST(dedup_d4_d5_fwd_kept)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_int(b, "long", 8, BTF_INT_SIGNED);
	btf_add_fwd(b, "foo", BTF_KIND_STRUCT);
	btf_add_struct(b, "foo", 4);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_struct(b, "foo", 8);
	btf_add_member(b, "x", 2, 0, 0);
	btf_add_fwd(b, "bar", BTF_KIND_UNION);
	btf_add_struct(b, "bar", 4);
	btf_add_member(b, "x", 1, 0, 0);
	REQUIRE(run(b, "d4", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 2);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 3);
	btf_free(b);
}

/* D6: forward ENUM then full ENUM64 of that name; D7: full ENUM and ENUM64 */
TEST(dedup_d6_d7_enums)
{
	struct btf *b = btf_new(NULL);
	int id;

	REQUIRE(b);
	btf_add_fwd(b, "e", BTF_KIND_ENUM);		/* 1 */
	btf_add_ptr(b, 1);				/* 2 */
	btf_add_enum64(b, "e", 8, false);		/* 3 */
	btf_add_enum64_value(b, "E1", 1ull << 40);
	btf_add_enum(b, "f", 4);			/* 4 */
	btf_add_enum_value(b, "F1", 1);
	btf_add_enum64(b, "f", 8, false);		/* 5 */
	btf_add_enum64_value(b, "F1", 1);
	REQUIRE(run(b, "d6", NULL) == 0);
	CHECK(by_name(b, "e", BTF_KIND_ENUM, NULL) == NULL);
	REQUIRE(by_name(b, "e", BTF_KIND_ENUM64, &id));
	CHECK_EQ_U(btf_type_by_id(b, 1)->type, (unsigned)id);	/* the PTR is now id 1 */
	CHECK(by_name(b, "f", BTF_KIND_ENUM, NULL) != NULL);
	CHECK(by_name(b, "f", BTF_KIND_ENUM64, NULL) != NULL);
	CHECK_EQ_U(own(b), 4);
	btf_free(b);
}

/* D8: anonymous identical structs; D9: protos differing in param names */
TEST(dedup_d8_d9_anon_and_protos)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_struct(b, NULL, 4);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_struct(b, NULL, 4);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_func_proto(b, 1);
	btf_add_param(b, "a", 1);
	btf_add_func_proto(b, 1);
	btf_add_param(b, "b", 1);
	btf_add_func_proto(b, 1);
	btf_add_param(b, "a", 1);
	REQUIRE(run(b, "d8", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 1);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FUNC_PROTO), 2);
	btf_free(b);
}

/*
 * D10: a struct whose members use two identical duplicated arrays merges
 * with the canonical one using one array; D11: arrays with different
 * element types must not be taken as identical.
 */
static struct btf *arrays_case(bool same_elem)
{
	struct btf *b = btf_new(NULL);

	if (!b)
		return NULL;
	/* canonical: 1 int, 2 long, 3 arr int[4], 4 struct S {arr a; arr b;} */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_int(b, "long", 8, BTF_INT_SIGNED);
	btf_add_array(b, 1, 1, 4);
	btf_add_struct(b, "S", 32);
	btf_add_member(b, "a", 3, 0, 0);
	btf_add_member(b, "b", 3, 128, 0);
	/* CU2: 5 int, 6 long, 7 arr int[4], 8 arr int/long[4], 9 struct S */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_int(b, "long", 8, BTF_INT_SIGNED);
	btf_add_array(b, 5, 5, 4);
	btf_add_array(b, 5, same_elem ? 5 : 6, 4);
	btf_add_struct(b, "S", 32);
	btf_add_member(b, "a", 7, 0, 0);
	btf_add_member(b, "b", 8, 128, 0);
	return b;
}

TEST(dedup_d10_d11_identical_arrays)
{
	struct btf *b = arrays_case(true);

	REQUIRE(b);
	REQUIRE(run(b, "d10", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 1);
	CHECK_EQ_U(count_kind(b, BTF_KIND_ARRAY), 1);
	btf_free(b);
	b = arrays_case(false);
	REQUIRE(b);
	REQUIRE(run(b, "d11", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 2);
	btf_free(b);
}

/* The 1.1 tolerance also covers identical duplicated nested structs. */
TEST(dedup_identical_nested_structs)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_struct(b, NULL, 4);			/* 2 anon {int x} */
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_struct(b, "S", 8);			/* 3 S {anon a; anon b;} */
	btf_add_member(b, "a", 2, 0, 0);
	btf_add_member(b, "b", 2, 32, 0);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 4 */
	btf_add_struct(b, NULL, 4);			/* 5 */
	btf_add_member(b, "x", 4, 0, 0);
	btf_add_struct(b, NULL, 4);			/* 6 duplicate of 5 */
	btf_add_member(b, "x", 4, 0, 0);
	btf_add_struct(b, "S", 8);			/* 7 */
	btf_add_member(b, "a", 5, 0, 0);
	btf_add_member(b, "b", 6, 32, 0);
	REQUIRE(run(b, "identical_structs", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 2);
	btf_free(b);
}

/* D12: PTR -> CONST -> PTR; D13: typedef T -> PTR -> T (1.1: ELOOP, HEAD: ok) */
TEST(dedup_d12_d13_reference_cycles)
{
	struct btf_dedup_opts head = { .compat = BTF_DEDUP_LIBBPF_HEAD };
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_ptr(b, 2);
	btf_add_const(b, 1);
	CHECK(run(b, "d12", NULL) == -ELOOP);
	btf_free(b);

	b = btf_new(NULL);
	REQUIRE(b);
	btf_add_typedef(b, "T", 2);
	btf_add_ptr(b, 1);
	btf_add_typedef(b, "T", 4);
	btf_add_ptr(b, 3);
	CHECK(run(b, "d13", NULL) == -ELOOP);
	btf_free(b);

	b = btf_new(NULL);
	REQUIRE(b);
	btf_add_typedef(b, "T", 2);
	btf_add_ptr(b, 1);
	btf_add_typedef(b, "T", 4);
	btf_add_ptr(b, 3);
	REQUIRE(btf_dedup(b, &head, NULL) == 0);
	CHECK_EQ_U(own(b), 2);
	btf_free(b);
}

/*
 * The levelled reference phase (no base) keeps what the serial one keeps,
 * for any window of root ids.  With a window of 3 ids: 2 = const int is
 * done in the first window; in the second, root 4 = ptr -> 7 (const int,
 * equal to 2) finishes before 6 = ptr -> 2, so 4 is canonical and comes
 * out before the int "long" (5); 6 maps to it.  Heights local to a window
 * would put 6 a level below 4 and keep 6, after "long".
 */
static int dedup_bytes(struct btf *s, const struct btf_dedup_opts *o, void **out, size_t *len)
{
	struct diag d = { 0 };
	int err = btf_dedup(s, o, &d);

	return err ? err : btf_write(s, out, len, &d);
}

/*
 * Levelled runs of make()'s BTF with windows of 1-10 ids and the default,
 * on one thread and two, that do not give want (the serial phase's bytes).
 */
static unsigned levelled_mismatches(struct btf *(*make)(void), const void *want, size_t wlen)
{
	unsigned w, bad = 0;

	for (w = 0; w <= 10; w++) {
		struct btf_dedup_opts lv = { .level_window = w, .nr_threads = 1 + (w & 1) };
		struct btf *b = make();
		void *got = NULL;
		size_t glen;

		if (!b || dedup_bytes(b, &lv, &got, &glen) || glen != wlen || memcmp(got, want, wlen))
			bad++;
		mem_free(got);
		btf_free(b);
	}
	return bad;
}

static struct btf *refs_case(void)
{
	struct btf *b = btf_new(NULL);

	if (!b)
		return NULL;
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_const(b, 1);				/* 2 */
	btf_add_volatile(b, 1);				/* 3 */
	btf_add_ptr(b, 7);				/* 4 */
	btf_add_int(b, "long", 8, BTF_INT_SIGNED);	/* 5 */
	btf_add_ptr(b, 2);				/* 6 */
	btf_add_const(b, 1);				/* 7 */
	return b;
}

/*
 * Every field of a multi-field type is followed: the DFS from the proto
 * (2) finishes its second parameter 6 (const int) before root 4 (an equal
 * const int), so 6 is canonical and comes out after the volatile (5).
 * Skipping 6 there would keep 4, before the volatile.
 */
static struct btf *refs_case_proto(void)
{
	struct btf *b = btf_new(NULL);

	if (!b)
		return NULL;
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_func_proto(b, 1);			/* 2 */
	btf_add_param(b, "p", 3);
	btf_add_param(b, "c", 6);
	btf_add_ptr(b, 1);				/* 3 */
	btf_add_const(b, 1);				/* 4 */
	btf_add_volatile(b, 1);				/* 5 */
	btf_add_const(b, 1);				/* 6 */
	return b;
}

TEST(dedup_levelled_refs_proto_fields)
{
	struct btf_dedup_opts ser = { .serial_refs = true };
	struct btf *b = refs_case_proto();
	void *want = NULL;
	size_t wlen;

	REQUIRE(b);
	REQUIRE(dedup_bytes(b, &ser, &want, &wlen) == 0);
	/* int, proto, ptr, volatile, const: the const kept is 6 */
	CHECK_EQ_U(own(b), 5);
	CHECK(btf_kind(btf_type_by_id(b, 4)) == BTF_KIND_VOLATILE);
	CHECK(btf_kind(btf_type_by_id(b, 5)) == BTF_KIND_CONST);
	CHECK_EQ_U(levelled_mismatches(refs_case_proto, want, wlen), 0);
	mem_free(want);
	btf_free(b);
}

TEST(dedup_levelled_refs_same_as_serial)
{
	struct btf_dedup_opts ser = { .serial_refs = true };
	struct btf *b = refs_case();
	const struct btf_type *t;
	void *want = NULL;
	size_t wlen;

	REQUIRE(b);
	REQUIRE(dedup_bytes(b, &ser, &want, &wlen) == 0);
	/* int, const int, volatile int, ptr -> const int, long */
	CHECK_EQ_U(own(b), 5);
	t = btf_type_by_id(b, 4);
	CHECK(btf_kind(t) == BTF_KIND_PTR && t->type == 2);
	CHECK_EQ_U(levelled_mismatches(refs_case, want, wlen), 0);
	mem_free(want);
	btf_free(b);
}

/* D14: decl tags on two copies of a struct; D15: equal VARs stay */
TEST(dedup_d14_d15_tags_and_vars)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_struct(b, "S", 4);			/* 2 */
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_decl_tag(b, "tag", 2, 0);		/* 3 */
	btf_add_var(b, "v", 1, 1);			/* 4 */
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 5 */
	btf_add_struct(b, "S", 4);			/* 6 */
	btf_add_member(b, "x", 5, 0, 0);
	btf_add_decl_tag(b, "tag", 6, 0);		/* 7 */
	btf_add_var(b, "v", 1, 5);			/* 8 */
	REQUIRE(run(b, "d14", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 1);
	CHECK_EQ_U(count_kind(b, BTF_KIND_DECL_TAG), 1);
	CHECK_EQ_U(count_kind(b, BTF_KIND_VAR), 2);
	CHECK_EQ_U(own(b), 5);
	btf_free(b);
}

/* D16: split copy of a base struct; D17: base FWD would have to change */
TEST(dedup_d16_d17_split)
{
	struct btf *base = btf_new(NULL), *s;
	int sid;

	REQUIRE(base);
	btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_struct(base, "S", 4);			/* 2 */
	btf_add_member(base, "x", 1, 0, 0);
	btf_add_fwd(base, "B", BTF_KIND_STRUCT);	/* 3 */
	btf_add_ptr(base, 3);				/* 4 */
	btf_add_struct(base, "U", 8);			/* 5 U {struct B *b} */
	btf_add_member(base, "b", 4, 0, 0);
	s = btf_new(base);
	REQUIRE(s);
	btf_add_int(s, "int", 4, BTF_INT_SIGNED);	/* 6 */
	btf_add_struct(s, "S", 4);			/* 7 == base 2 */
	btf_add_member(s, "x", 6, 0, 0);
	btf_add_ptr(s, 7);				/* 8 */
	btf_add_struct(s, "B", 4);			/* 9 */
	btf_add_member(s, "y", 6, 0, 0);
	btf_add_ptr(s, 9);				/* 10 */
	btf_add_struct(s, "U", 8);			/* 11 U {struct B *b}, B complete */
	btf_add_member(s, "b", 10, 0, 0);
	btf_add_ptr(s, 3);				/* 12 ptr to base FWD B */
	REQUIRE(run(s, "d16", NULL) == 0);
	CHECK_EQ_U(count_kind(s, BTF_KIND_INT), 0);
	CHECK(by_name(s, "S", BTF_KIND_STRUCT, &sid) != NULL);
	CHECK_EQ_U(sid, 2);				/* found in the base */
	/* the split U is kept (it would need the base FWD to become B) */
	CHECK_EQ_U(count_kind(s, BTF_KIND_STRUCT), 2);
	/* the pointer to the base FWD now points at the split B */
	{
		int bid, i, found = 0;

		by_name(s, "B", BTF_KIND_STRUCT, &bid);
		for (i = (int)btf_start_id(s); i < (int)btf_type_count(s); i++) {
			const struct btf_type *t = btf_type_by_id(s, (uint32_t)i);

			if (btf_kind(t) == BTF_KIND_PTR && t->type == (uint32_t)bid)
				found++;
			CHECK(!(btf_kind(t) == BTF_KIND_PTR && t->type == 3));
		}
		CHECK_EQ_U(found, 1);
	}
	btf_free(s);
	btf_free(base);
}

/* D19: idempotence; determinism over thread counts */
TEST(dedup_d19_idempotent_and_thread_independent)
{
	struct btf_dedup_opts o1 = { .nr_threads = 1 }, o4 = { .nr_threads = 4 };
	struct btf *a = btf_new(NULL), *c = btf_new(NULL);
	void *b1 = NULL, *b2 = NULL, *b3 = NULL;
	size_t l1, l2, l3;
	int i, j;

	REQUIRE(a && c);
	/* many small identical-shape CUs, built twice */
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 2; j++) {
			struct btf *x = j ? c : a;
			uint32_t base = btf_type_count(x);

			btf_add_int(x, "int", 4, BTF_INT_SIGNED);
			btf_add_fwd(x, "node", BTF_KIND_STRUCT);
			btf_add_ptr(x, base + (i % 3 ? 3 : 1));
			btf_add_struct(x, "node", 16);
			btf_add_member(x, "next", base + 2, 0, 0);
			btf_add_member(x, "v", base, 64, 0);
			btf_add_func_proto(x, base);
			btf_add_param(x, i % 5 ? "n" : "m", base + 2);
			btf_add_array(x, base, base + 2, (uint32_t)(i % 7));
		}
	}
	REQUIRE(btf_dedup(a, &o1, NULL) == 0);
	REQUIRE(btf_dedup(c, &o4, NULL) == 0);
	REQUIRE(btf_write(a, &b1, &l1, NULL) == 0);
	REQUIRE(btf_write(c, &b2, &l2, NULL) == 0);
	CHECK(l1 == l2 && !memcmp(b1, b2, l1));
	REQUIRE(btf_dedup(a, &o4, NULL) == 0);
	REQUIRE(btf_write(a, &b3, &l3, NULL) == 0);
	CHECK(l1 == l3 && !memcmp(b1, b3, l1));
	CHECK(own(a) < 40);
	mem_free(b1);
	mem_free(b2);
	mem_free(b3);
	btf_free(a);
	btf_free(c);
}

/* D22: keep_strings leaves unused strings; D23: duplicated strings */
TEST(dedup_d22_d23_strings)
{
	struct btf_dedup_opts keep = { .keep_strings = true };
	struct btf *b = btf_new(NULL);
	struct btf_type t = { 0 };
	uint32_t rec[4];
	int64_t unused;

	REQUIRE(b);
	unused = btf_add_str(b, "never_used");
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	REQUIRE(btf_dedup(b, &keep, NULL) == 0);
	CHECK(unused > 0 && btf_find_str(b, "never_used") == unused);
	REQUIRE(btf_dedup(b, NULL, NULL) == 0);
	CHECK(btf_find_str(b, "never_used") < 0);
	CHECK_EQ_U(btf_strs_len(b), 1 + 4);
	btf_free(b);

	/* a raw section with "x" twice: both references end up on one copy */
	b = btf_new(NULL);
	REQUIRE(b);
	btf_add_str(b, "x");				/* offset 1 */
	/* append a second "x" at offset 3 by hand */
	REQUIRE(!mem_grow((void **)&b->strs.data, &b->strs.cap, 1, b->strs.len + 2));
	memcpy(b->strs.data + b->strs.len, "x", 2);
	b->strs.len += 2;
	t.info = BTF_INFO_ENC(BTF_KIND_INT, 0, 0);
	t.size = 4;
	memcpy(rec, &t, sizeof(t));
	rec[3] = 32;
	((struct btf_type *)rec)->name_off = 3;
	btf_add_raw(b, (struct btf_type *)rec, sizeof(rec));
	((struct btf_type *)rec)->name_off = 1;
	rec[3] = 16;
	btf_add_raw(b, (struct btf_type *)rec, sizeof(rec));
	rec[3] = 32;				/* equal to the first once strings are unique */
	btf_add_raw(b, (struct btf_type *)rec, sizeof(rec));
	REQUIRE(run(b, "d23", NULL) == 0);
	CHECK_EQ_U(btf_strs_len(b), 3);
	CHECK_EQ_U(own(b), 2);
	CHECK_EQ_U(btf_type_by_id(b, 1)->name_off, 1);
	CHECK_EQ_U(btf_type_by_id(b, 2)->name_off, 1);
	btf_free(b);
}

/*
 * D24: the string phase leaves a section alone only when it is already
 * what the phase makes (strs_canonical()): the same bytes either way.
 * raw_strs: a BTF whose section is exactly "\0" + strs (NULs inside),
 * with one INT per offset in refs (sizes 1, 2, 3... so none are equal).
 */
static struct btf *raw_strs(const char *strs, size_t len, const uint32_t *refs, size_t n)
{
	struct btf *b = btf_new(NULL);
	uint32_t rec[4] = { 0, BTF_INFO_ENC(BTF_KIND_INT, 0, 0), 0, 32 };
	size_t i;

	if (!b || mem_grow((void **)&b->strs.data, &b->strs.cap, 1, len + 1))
		return b;
	memcpy(b->strs.data + 1, strs, len);
	b->strs.len = len + 1;
	for (i = 0; i < n; i++) {
		rec[0] = refs[i];
		rec[2] = (uint32_t)i + 1;
		btf_add_raw(b, (struct btf_type *)rec, sizeof(rec));
	}
	return b;
}

TEST(dedup_d24_strings_canonical_or_not)
{
	static const uint32_t same[] = { 1, 3, 1 }, copy[] = { 1, 3 }, inside[] = { 1, 4 };
	static const uint32_t tail[] = { 1 };
	struct btf *b;

	/* already canonical: kept as is */
	REQUIRE((b = raw_strs("a\0bb", 5, same, 3)));
	REQUIRE(run(b, "d24a", NULL) == 0);
	CHECK_EQ_U(btf_strs_len(b), 6);
	CHECK_EQ_U(btf_type_by_id(b, 2)->name_off, 3);
	btf_free(b);
	/* a second copy of "x", met second: both references on the first */
	REQUIRE((b = raw_strs("x\0x", 4, copy, 2)));
	REQUIRE(run(b, "d24b", NULL) == 0);
	CHECK_EQ_U(btf_strs_len(b), 3);
	CHECK_EQ_U(btf_type_by_id(b, 2)->name_off, 1);
	btf_free(b);
	/* a reference inside a string ("foo" in "barfoo"): appended on its own */
	REQUIRE((b = raw_strs("barfoo", 7, inside, 2)));
	REQUIRE(run(b, "d24c", NULL) == 0);
	CHECK_EQ_U(btf_strs_len(b), 12);
	CHECK_EQ_U(btf_type_by_id(b, 2)->name_off, 8);
	btf_free(b);
	/* a string nothing refers to, after the last one: dropped */
	REQUIRE((b = raw_strs("a\0zz", 5, tail, 1)));
	REQUIRE(run(b, "d24d", NULL) == 0);
	CHECK_EQ_U(btf_strs_len(b), 3);
	btf_free(b);
}

/*
 * On two threads a standalone run checks the strings beside phases 2-4,
 * which run on the offsets as they are (dedup_phases()): when the check
 * says no, they run again after the string phase.  Two structs equal
 * once their names are ("s"/"a" twice in the section) merge only then;
 * with the names once, the section is canonical and kept.  nfill
 * nameless INTs first: a first chunk of types that shows nothing (with
 * none, the run sees at once that the strings are not canonical, and
 * does not speculate).
 */
static struct btf *two_structs(const char *strs, size_t len, uint32_t second, uint32_t nfill)
{
	struct btf *b = btf_new(NULL);
	uint32_t st[6] = { 1, BTF_INFO_ENC(BTF_KIND_STRUCT, 0, 1), 4, 3, nfill + 3, 0 };
	uint32_t in[4] = { 0, BTF_INFO_ENC(BTF_KIND_INT, 0, 0), 4, 32 };
	uint32_t i;

	if (!b || mem_grow((void **)&b->strs.data, &b->strs.cap, 1, len))
		return b;
	memcpy(b->strs.data, strs, len);
	b->strs.len = len;
	for (i = 0; i < nfill; i++)	/* equal to the members' INT */
		btf_add_raw(b, (struct btf_type *)in, sizeof(in));
	btf_add_raw(b, (struct btf_type *)st, sizeof(st));
	st[0] = second;
	st[3] = second + 2;
	btf_add_raw(b, (struct btf_type *)st, sizeof(st));
	btf_add_raw(b, (struct btf_type *)in, sizeof(in));
	return b;
}

TEST(dedup_strings_checked_beside_phases)
{
	static const struct {
		const char *strs;
		size_t len;
		uint32_t second;	/* name of the second struct; its member's: + 2 */
		uint32_t nfill;
	} cases[] = {
		{ "\0s\0a", 5, 1, 0 },		/* canonical */
		{ "\0s\0a\0s\0a", 9, 5, 0 },	/* not: each string twice */
		{ "\0s\0a", 5, 1, 8192 },
		{ "\0s\0a\0s\0a", 9, 5, 8192 },	/* speculation, then the redo */
	};
	size_t i, wlen = 0, glen;
	unsigned j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		void *want = NULL, *got;

		for (j = 1; j <= 3; j++) {
			struct btf_dedup_opts o = { .nr_threads = j };
			struct btf *b = two_structs(cases[i].strs, cases[i].len, cases[i].second,
						    cases[i].nfill);

			REQUIRE(b);
			got = NULL;
			REQUIRE(dedup_bytes(b, &o, &got, &glen) == 0);
			CHECK_EQ_U(own(b), 2);	/* the structs merged, the INTs too */
			CHECK_EQ_U(btf_strs_len(b), 5);
			if (j == 1) {
				want = got;
				wlen = glen;
			} else {
				CHECK(glen == wlen && !memcmp(got, want, glen));
				mem_free(got);
			}
			btf_free(b);
		}
		mem_free(want);
	}
}

/*
 * The string phase on threads (from 64k referenced strings) makes the
 * serial loop's bytes: content copies at other offsets, references inside
 * strings, "" at a non-zero offset, strings nothing refers to, and (split)
 * strings the base has.  One INT per reference (sizes differ: all kept).
 */
static struct btf *many_strs(const struct btf *base, unsigned n)
{
	struct btf *b = btf_new(base);
	uint32_t rec[4] = { 0, BTF_INFO_ENC(BTF_KIND_INT, 0, 0), 0, 32 };
	uint32_t start = base ? btf_strs_end(base) : 0;
	size_t cap = 0, len = base ? 0 : 1, at;
	char *data = NULL, name[32];
	unsigned i;

	if (!b)
		return NULL;
	for (i = 0; i < n; i++) {
		/* every 3rd a copy of an earlier content; every 7th never referred to */
		int l = snprintf(name, sizeof(name), "str%u", i % 3 == 2 ? i % 1000 : i);

		if (mem_grow((void **)&data, &cap, 1, len + (size_t)l + 2))
			break;
		if (!base && !len)
			data[0] = 0;
		at = len;
		memcpy(data + len, name, (size_t)l + 1);
		len += (size_t)l + 1;
		if (i % 7 == 6)
			continue;
		rec[0] = start + (uint32_t)(i % 11 == 10 ? at + 1 : at);	/* inside, at times */
		if (i % 101 == 100)
			rec[0] = start + (uint32_t)at - 1;	/* the NUL before: "" */
		if (base && i % 5 == 4)
			rec[0] = 1 + i % 4;	/* a base string */
		rec[2] = i + 1;
		btf_add_raw(b, (struct btf_type *)rec, sizeof(rec));
	}
	mem_free(b->strs.data);
	b->strs.data = data;
	b->strs.len = len;
	b->strs.cap = cap;
	return b;
}

TEST(dedup_strings_on_threads_same_bytes)
{
	static const unsigned threads[] = { 2, 3 };
	struct btf_dedup_opts o1 = { .nr_threads = 1, .exact = true };
	struct btf *base = many_strs(NULL, 16);
	void *want = NULL, *got = NULL;
	size_t wlen = 0, glen = 0, t;
	int split;

	REQUIRE(base);
	for (split = 0; split < 2; split++) {
		struct btf *b = many_strs(split ? base : NULL, 120000);

		REQUIRE(b);
		REQUIRE(dedup_bytes(b, &o1, &want, &wlen) == 0);
		CHECK(btf_strs_len(b) < 100000 * 8);	/* copies merged */
		btf_free(b);
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			struct btf_dedup_opts on = { .nr_threads = threads[t], .exact = true };

			REQUIRE((b = many_strs(split ? base : NULL, 120000)));
			REQUIRE(dedup_bytes(b, &on, &got, &glen) == 0);
			CHECK(glen == wlen && !memcmp(got, want, wlen));
			/* the section has no index yet: the first add makes one */
			CHECK(btf_add_str(b, "str0") == btf_find_str(b, "str0"));
			CHECK(btf_find_str(b, "str0") >= 0);
			mem_free(got);
			got = NULL;
			btf_free(b);
		}
		mem_free(want);
		want = NULL;
	}
	btf_free(base);
}

/* Ties: a FWD-only graph compatible with two canonical structs. */
TEST(dedup_tie_between_two_canonicals)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_int(b, "long", 8, BTF_INT_SIGNED);	/* 2 */
	btf_add_struct(b, "A", 4);			/* 3 A{int} */
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_ptr(b, 3);				/* 4 */
	btf_add_struct(b, "S", 8);			/* 5 S{A *p} */
	btf_add_member(b, "p", 4, 0, 0);
	btf_add_struct(b, "A", 4);			/* 6 A{long} (differs) */
	btf_add_member(b, "x", 2, 0, 0);
	btf_add_ptr(b, 6);				/* 7 */
	btf_add_struct(b, "S", 8);			/* 8 S{A' *p} */
	btf_add_member(b, "p", 7, 0, 0);
	btf_add_fwd(b, "A", BTF_KIND_STRUCT);		/* 9 */
	btf_add_ptr(b, 9);				/* 10 */
	btf_add_struct(b, "S", 8);			/* 11 S{fwd A *p}: equal to 5 and 8 */
	btf_add_member(b, "p", 10, 0, 0);
	REQUIRE(run(b, "tie", NULL) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 4);
	btf_free(b);
}

/*
 * Ties in bulk: n different complete "A"s, each with its own S{A *p}, then
 * S{fwd A *p} copies that are equivalent to every S.  Which canonical S
 * wins is decided by libbpf's hash-map order; t_dedup.sh compares the
 * bytes with libbpf for several n (the growth parity changes with n).
 */
static struct btf *many_ties_mixed(unsigned n, bool mixed)
{
	struct btf *b = btf_new(NULL);
	unsigned i;
	char name[32];

	if (!b)
		return NULL;
	for (i = 0; i < n; i++) {
		uint32_t base = btf_type_count(b);

		if (mixed) {	/* S{B<i> *p}: the same hash, another member signature */
			snprintf(name, sizeof(name), "B%u", i % 4);
			btf_add_struct(b, name, 4);		/* base */
			btf_add_member(b, "x", i % 4 ? base : 0, 0, 0);
			btf_add_ptr(b, base);			/* base+1 */
			btf_add_struct(b, "S", 8);		/* base+2 */
			btf_add_member(b, "p", base + 1, 0, 0);
			base = btf_type_count(b);
		}

		snprintf(name, sizeof(name), "int%u", i);
		btf_add_int(b, name, 4, BTF_INT_SIGNED);	/* base */
		btf_add_struct(b, "A", 4);			/* base+1 */
		btf_add_member(b, "x", base, 0, 0);
		btf_add_ptr(b, base + 1);			/* base+2 */
		btf_add_struct(b, "S", 8);			/* base+3 */
		btf_add_member(b, "p", base + 2, 0, 0);
		if (i % 3 == 2) {				/* a forward-only copy */
			base = btf_type_count(b);
			btf_add_fwd(b, "A", BTF_KIND_STRUCT);
			btf_add_ptr(b, base);
			btf_add_struct(b, "S", 8);
			btf_add_member(b, "p", base + 1, 0, 0);
			btf_add_ptr(b, base + 2);
		}
	}
	return b;
}

static struct btf *many_ties(unsigned n)
{
	return many_ties_mixed(n, false);
}

TEST(dedup_many_ties)
{
	static const unsigned ns[] = { 2, 3, 5, 8, 13, 21, 40 };
	char name[32];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		struct btf *b = many_ties(ns[k]);

		REQUIRE(b);
		snprintf(name, sizeof(name), "ties%u", ns[k]);
		REQUIRE(run(b, name, NULL) == 0);
		CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 0);
		CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 2 * ns[k]);
		btf_free(b);
	}
}

/*
 * The ties among structs of other member signatures that share their hash
 * (S{B *p}): a standalone run files candidates under hash and signature,
 * and must still pick libbpf's (t_dedup.sh compares the bytes).
 */
TEST(dedup_many_ties_mixed_signatures)
{
	static const unsigned ns[] = { 3, 8, 21, 40 };
	char name[32];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		struct btf *b = many_ties_mixed(ns[k], true);

		REQUIRE(b);
		snprintf(name, sizeof(name), "tiesmix%u", ns[k]);
		REQUIRE(run(b, name, NULL) == 0);
		CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 0);
		btf_free(b);
	}
}

/* Bad input through the API: a dangling id and an unknown kind fail cleanly. */
TEST(dedup_rejects_bad_records)
{
	struct btf *b = btf_new(NULL);
	struct btf_type t = { .info = BTF_INFO_ENC(BTF_KIND_PTR, 0, 0), .type = 999 };
	struct diag d = { 0 };

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	REQUIRE(btf_add_raw(b, &t, sizeof(t)) > 0);
	CHECK(btf_dedup(b, NULL, &d) == -EINVAL);
	CHECK(strstr(d.msg, "invalid id 999") != NULL);
	btf_free(b);

	b = btf_new(NULL);
	REQUIRE(b);
	t.info = BTF_INFO_ENC(25, 0, 0);
	t.type = 0;
	REQUIRE(btf_add_raw(b, &t, sizeof(t)) > 0);
	diag_clear(&d);
	CHECK(btf_dedup(b, NULL, &d) == -EINVAL);
	btf_free(b);
}

/* ---- prepared base (btf_dedup_base_new) --------------------------------- */

/*
 * A base whose FWD B and forward enum E get redirected by split dedup
 * (per-run overrides, docs/btf.md 4.6 and 4.7.3), plus plain types.
 */
static struct btf *pb_base(void)
{
	struct btf *base = btf_new(NULL);

	btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 1 */
	btf_add_struct(base, "S", 4);			/* 2 */
	btf_add_member(base, "x", 1, 0, 0);
	btf_add_fwd(base, "B", BTF_KIND_STRUCT);	/* 3 */
	btf_add_ptr(base, 3);				/* 4 */
	btf_add_struct(base, "U", 8);			/* 5 U {struct B *b} */
	btf_add_member(base, "b", 4, 0, 0);
	btf_add_fwd(base, "E", BTF_KIND_ENUM);		/* 6 forward enum */
	btf_add_ptr(base, 6);				/* 7 */
	btf_add_fwd(base, "C", BTF_KIND_STRUCT);	/* 8 */
	return base;
}

/* Split variant v (0..3) on pb_base(). */
static struct btf *pb_split(const struct btf *base, unsigned v)
{
	struct btf *s = btf_new(base);
	int i, b, e;

	i = btf_add_int(s, "int", 4, BTF_INT_SIGNED);
	btf_add_struct(s, "S", 4);			/* == base 2 */
	btf_add_member(s, "x", (uint32_t)i, 0, 0);
	if (v & 1) {					/* B complete: base FWD B -> it */
		b = btf_add_struct(s, "B", 4);
		btf_add_member(s, "y", (uint32_t)i, 0, 0);
		btf_add_struct(s, "U", 8);
		btf_add_member(s, "b", (uint32_t)btf_add_ptr(s, (uint32_t)b) - 1, 0, 0);
		btf_add_ptr(s, 3);			/* ptr to base FWD B */
	}
	if (v & 2) {					/* E complete: base fwd enum -> it */
		e = btf_add_enum(s, "E", 4);
		btf_add_enum_value(s, "E1", 1);
		btf_add_ptr(s, 6);
		btf_add_ptr(s, (uint32_t)e);
	}
	btf_add_ptr(s, 8);
	btf_add_fwd(s, "C", BTF_KIND_STRUCT);		/* == base 8 */
	btf_add_struct(s, "C", 4);			/* resolves the FWDs by name */
	btf_add_member(s, "z", (uint32_t)i, 0, 0);
	return s;
}

/*
 * Dedup reads its input's records and never writes them (the string
 * phase rewrites a borrowed section into a copy; btfc dedup maps files
 * read-only): a BTF borrowed from read-only pages, standalone (strings
 * canonical or not) or split, gives the bytes of the same BTF on the
 * heap, on one thread and two.  A write to the pages would fault.
 */
static struct btf *canon_structs(void)
{
	return two_structs("\0s\0a", 5, 1, 8192);
}

static struct btf *noncanon_structs(void)
{
	return two_structs("\0s\0a\0s\0a", 9, 5, 8192);
}

static struct btf *ties_64(void)
{
	return many_ties(64);
}

/* make()'s BTF (split on base when not NULL) dedup'ed from read-only pages; 0 if as want. */
static int dedup_read_only(struct btf *made, const struct btf *base, const struct btf_dedup_opts *o,
			   const void *want, size_t wlen)
{
	struct diag d = { 0 };
	struct btf *p = NULL;
	void *blob = NULL, *got = NULL;
	size_t len, glen, pages;
	uint8_t *ro = MAP_FAILED;
	int bad = 1;

	if (!made || btf_write(made, &blob, &len, &d))
		goto out;
	pages = (len + 4095) & ~(size_t)4095;
	ro = mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		goto out;
	memcpy(ro, blob, len);
	if (mprotect(ro, pages, PROT_READ) ||
	    btf_parse_flags(ro, len, base, BTF_PARSE_BORROW | BTF_PARSE_NO_STR_INDEX, &p, &d) ||
	    dedup_bytes(p, o, &got, &glen))
		goto out;
	bad = glen != wlen || memcmp(got, want, wlen) || memcmp(ro, blob, len);
out:
	btf_free(p);
	btf_free(made);
	if (ro != MAP_FAILED)
		munmap(ro, pages);
	mem_free(blob);
	mem_free(got);
	return bad;
}

TEST(dedup_never_writes_its_input)
{
	static struct btf *(*const make[])(void) = {
		refs_case, refs_case_proto, canon_structs, noncanon_structs, ties_64,
	};
	struct btf *base = pb_base();
	size_t i, wlen;
	unsigned j, v;

	REQUIRE(base);
	for (j = 1; j <= 2; j++) {
		struct btf_dedup_opts o = { .nr_threads = j };

		for (i = 0; i < ARRAY_SIZE(make); i++) {
			struct btf *b = make[i]();
			void *want = NULL;

			REQUIRE(b);
			REQUIRE(dedup_bytes(b, &o, &want, &wlen) == 0);
			CHECK_EQ_U(dedup_read_only(make[i](), NULL, &o, want, wlen), 0);
			mem_free(want);
			btf_free(b);
		}
		for (v = 0; v < 4; v++) {	/* split: libbpf's serial phase 5, on a copy */
			struct btf *s = pb_split(base, v);
			void *want = NULL;

			REQUIRE(s);
			REQUIRE(dedup_bytes(s, &o, &want, &wlen) == 0);
			CHECK_EQ_U(dedup_read_only(pb_split(base, v), base, &o, want, wlen), 0);
			mem_free(want);
			btf_free(s);
		}
	}
	btf_free(base);
}

TEST(dedup_prepared_base_same_as_plain)
{
	struct btf_dedup_opts o = { .nr_threads = 1 }, po = o;
	struct btf *base = pb_base();
	struct btf_dedup_base *pb;
	struct diag d = { 0 };
	unsigned v, round;

	REQUIRE(base);
	pb = btf_dedup_base_new(base, &o, &d);
	REQUIRE(pb);
	po.prepared_base = pb;
	/* every variant twice, interleaved: overrides must not leak between runs */
	for (round = 0; round < 2; round++) {
		for (v = 0; v < 4; v++) {
			struct btf *a = pb_split(base, v), *b = pb_split(base, v);
			void *x = NULL, *y = NULL;
			size_t lx = 0, ly = 0;

			REQUIRE(a && b);
			if (round == 0 && v == 3) {	/* t_dedup.sh: == libbpf */
				dedup_case_save(base, "pb3", ".base.btf");
				dedup_case_save(a, "pb3", ".btf");
			}
			CHECK(dedup_bytes(a, &o, &x, &lx) == 0);
			CHECK(dedup_bytes(b, &po, &y, &ly) == 0);
			CHECK(lx == ly && x && y && !memcmp(x, y, lx));
			mem_free(x);
			mem_free(y);
			btf_free(a);
			btf_free(b);
		}
	}
	/* the wrong base or compat is refused */
	{
		struct btf *other = pb_base(), *s = pb_split(other, 1);
		struct btf_dedup_opts ho = po;

		REQUIRE(other && s);
		CHECK(btf_dedup(s, &po, &d) == -EINVAL);
		btf_free(s);
		s = pb_split(base, 1);
		ho.compat = BTF_DEDUP_LIBBPF_HEAD;
		CHECK(btf_dedup(s, &ho, &d) == -EINVAL);
		btf_free(s);
		btf_free(other);
	}
	btf_dedup_base_free(pb);
	btf_free(base);
}

#include <pthread.h>

struct pb_thread {
	const struct btf *base;
	const struct btf_dedup_opts *o;
	void *expect[4];
	size_t elen[4];
	int bad;
};

static void *pb_worker(void *p)
{
	struct pb_thread *c = p;
	unsigned i;

	for (i = 0; i < 200; i++) {
		unsigned v = i % 4;
		struct btf *s = pb_split(c->base, v);
		void *x = NULL;
		size_t lx = 0;

		if (!s || dedup_bytes(s, c->o, &x, &lx) || lx != c->elen[v] ||
		    memcmp(x, c->expect[v], lx))
			__atomic_add_fetch(&c->bad, 1, __ATOMIC_RELAXED);
		mem_free(x);
		btf_free(s);
	}
	return NULL;
}

/* One prepared base, 8 threads deduping at once (run under SAN=thread too) */
TEST(dedup_prepared_base_threads)
{
	struct btf_dedup_opts o = { .nr_threads = 2 }, po = { .nr_threads = 1 };
	struct pb_thread c = { 0 };
	struct btf_dedup_base *pb;
	struct diag d = { 0 };
	pthread_t th[8];
	unsigned v, i;

	c.base = pb_base();
	REQUIRE(c.base);
	for (v = 0; v < 4; v++) {
		struct btf *s = pb_split(c.base, v);

		REQUIRE(s && dedup_bytes(s, NULL, &c.expect[v], &c.elen[v]) == 0);
		btf_free(s);
	}
	pb = btf_dedup_base_new(c.base, &o, &d);	/* prepared with 2 threads */
	REQUIRE(pb);
	po.prepared_base = pb;
	c.o = &po;
	for (i = 0; i < 8; i++)
		REQUIRE(pthread_create(&th[i], NULL, pb_worker, &c) == 0);
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_U(c.bad, 0);
	btf_dedup_base_free(pb);
	for (v = 0; v < 4; v++)
		mem_free(c.expect[v]);
	btf_free((struct btf *)c.base);
}

/* ---- units appended in turn ----------------------------------------------- */

/* Append one "unit": its own int, struct L {L *next; int v}, a FWD, a ptr. */
static uint32_t unit_types(struct btf *b, unsigned variant)
{
	uint32_t first = btf_type_count(b);
	int i = btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	int l = btf_add_struct(b, "L", 16);

	btf_add_member(b, "next", (uint32_t)l + 1, 0, 0);
	btf_add_member(b, "v", (uint32_t)i, 64, 0);
	btf_add_ptr(b, (uint32_t)l);				/* l + 1 */
	if (variant & 1) {					/* full struct F */
		int f = btf_add_struct(b, "F", 4);

		btf_add_member(b, "a", (uint32_t)i, 0, 0);
		btf_add_ptr(b, (uint32_t)f);
	} else {						/* FWD F */
		btf_add_ptr(b, (uint32_t)btf_add_fwd(b, "F", BTF_KIND_STRUCT));
	}
	if (variant & 2) {					/* forward enum */
		btf_add_fwd(b, "E", BTF_KIND_ENUM);
	} else {
		btf_add_enum(b, "E", 4);
		btf_add_enum_value(b, "E1", 1);
	}
	btf_add_const(b, (uint32_t)i);
	return first;
}

/*
 * Units as an encoder appends them, each with a function, in variants
 * with a struct full or forward and an enum full or forward: all collapse
 * to one copy.  t_dedup.sh compares the result with libbpf's.
 */
TEST(dedup_unit_variants)
{
	static const unsigned variants[] = { 0, 0, 1, 0, 2, 1, 3, 0, 1 };
	struct btf_dedup_opts o = { .nr_threads = 1, .keep_strings = true };
	struct btf *b = btf_new(NULL);
	size_t u;

	REQUIRE(b);
	for (u = 0; u < ARRAY_SIZE(variants); u++) {
		uint32_t first = unit_types(b, variants[u]);
		int p = btf_add_func_proto(b, first);

		btf_add_param(b, "l", first + 2);
		CHECK(btf_add_func(b, "f", BTF_FUNC_GLOBAL, (uint32_t)p) > 0);
	}
	REQUIRE(run(b, "unit-variants", &o) == 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_STRUCT), 2);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FWD), 0);
	CHECK_EQ_U(count_kind(b, BTF_KIND_ENUM), 1);
	CHECK_EQ_U(count_kind(b, BTF_KIND_FUNC), 1);
	btf_free(b);
}
