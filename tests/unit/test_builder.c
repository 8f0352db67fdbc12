// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder's builder (encode/builder.c) and its hand-over to btf/
 * (btf_from_parts): what it appends, indexes and matches against a base
 * is what the btf builder's own adds give.
 */
#include "test.h"

#include "base/mem.h"
#include "btf/btf.h"
#include "btf/btf_internal.h"
#include "encode/builder.h"

/* Every kind, through the btf builder: the reference. */
static struct btf *all_kinds(void)
{
	struct btf *b = btf_new(NULL);
	int i_int, i_s, i_fp, i_var;

	if (!b)
		return NULL;
	i_int = btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	btf_add_ptr(b, i_int);
	btf_add_array(b, i_int, i_int, 10);
	i_s = btf_add_struct(b, "s", 8);
	btf_add_member(b, "a", i_int, 0, 0);
	btf_add_member(b, "b", i_int, 32, 3);
	btf_add_enum(b, "e", 4);
	btf_add_enum_value(b, "E0", 0);
	btf_add_fwd(b, "fw", BTF_KIND_UNION);
	i_fp = btf_add_func_proto(b, i_int);
	btf_add_param(b, "p", i_int);
	btf_add_func(b, "f", BTF_FUNC_GLOBAL, i_fp);
	i_var = btf_add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i_int);
	btf_add_datasec(b, ".data", 4);
	btf_add_secinfo(b, i_var, 0, 4);
	btf_add_decl_tag(b, "tag", i_s, 1);
	btf_add_type_tag(b, "user", i_int);
	if (btf_error(b)) {
		btf_free(b);
		return NULL;
	}
	return b;
}

/* The same records appended in ranges, one by one, and handed over: the same BTF. */
TEST(builder_appends_and_hands_over_the_same_types)
{
	struct btf *src = all_kinds(), *many = NULL, *one = NULL;
	struct enc_builder bm, bo;
	uint32_t offs[64], *at = NULL, id, n;
	struct diag d;
	size_t nw;

	REQUIRE(src);
	REQUIRE(encb_init(&bm, NULL) == 0 && encb_init(&bo, NULL) == 0);
	n = btf_type_count(src) - 1;
	REQUIRE(n < 64);
	for (id = 1; id <= n; id++) {
		const struct btf_type *t = btf_type_by_id(src, id);

		offs[id - 1] = src->index[id - 1];
		CHECK_EQ_U(encb_add_raw(&bo, t, btf_type_size(t)), id);
	}
	nw = src->types_len;
	CHECK_EQ_U(encb_add_raw_n(&bm, src->types, offs[1], offs, 1, &at), 1);	/* just "int" */
	CHECK(at == bm.p.types);
	/* the rest, from a range that does not start at word 0 */
	CHECK_EQ_U(encb_add_raw_n(&bm, src->types + offs[1], nw - offs[1], offs + 1, n - 1, &at), 2);
	/* no records, or offsets past the words given: refused, nothing added */
	CHECK(encb_add_raw_n(&bm, src->types, nw, offs, 0, &at) < 0);
	CHECK(encb_add_raw_n(&bm, src->types, 5, offs, 2, &at) < 0);
	CHECK_EQ_U(encb_count(&bm), n + 1);
	bm.err.code = 0;	/* the refusals above set the first error */
	diag_clear(&d);
	REQUIRE(encb_finish(&bm, btf_host_endian(), &many, &d) == 0);
	REQUIRE(encb_finish(&bo, btf_host_endian(), &one, &d) == 0);
	CHECK_EQ_U(btf_type_count(many), btf_type_count(src));
	CHECK_EQ_U(many->types_len, src->types_len);
	CHECK(!memcmp(many->types, src->types, src->types_len * 4));
	CHECK(!memcmp(one->types, src->types, src->types_len * 4));
	for (id = 1; id <= n; id++) {
		CHECK_EQ_U(many->index[id - 1], src->index[id - 1]);
		CHECK_EQ_U(one->index[id - 1], src->index[id - 1]);
	}
	CHECK_EQ_U(btf_kind(btf_last_type_mut(many)), btf_kind(btf_last_type_mut(src)));
	/* after the hand-over it is a BTF like any: it grows */
	CHECK_EQ_U(btf_add_ptr(many, 1), n + 1);
	btf_free(src);
	btf_free(many);
	btf_free(one);
}

/* Many records: the index kept as they land is the plain one, and appends keep it. */
TEST(builder_index_kept_as_records_land)
{
	struct btf *plain = btf_new(NULL), *out = NULL;
	struct enc_builder b;
	uint32_t i, bad = 0;
	struct diag d;

	REQUIRE(plain && encb_init(&b, NULL) == 0);
	for (i = 0; i < 200000; i++) {
		if (i % 3) {
			btf_add_int(plain, "int", 4, BTF_INT_SIGNED);
		} else {
			unsigned m;

			btf_add_struct(plain, "s", 8 * (i % 7 + 1));
			for (m = 0; m < i % 7; m++)
				btf_add_member(plain, "m", 1, m * 64, 0);
		}
	}
	REQUIRE(!btf_error(plain));
	for (i = 1; i < btf_type_count(plain); i++) {
		const struct btf_type *t = btf_type_by_id(plain, i);

		REQUIRE(encb_add_raw(&b, t, btf_type_size(t)) == (int)i);
	}
	CHECK(encb_type_by_id(&b, 150000) == btf_type_by_id(plain, 150000) ||
	      !memcmp(encb_type_by_id(&b, 150000), btf_type_by_id(plain, 150000), 12));
	CHECK(encb_type_by_id(&b, 0) != NULL && encb_type_by_id(&b, 999999) == NULL);
	REQUIRE(encb_add_hdr(&b, "after", BTF_INFO_ENC(BTF_KIND_TYPEDEF, 0, 0), 1) ==
		(int)btf_type_count(plain));	/* appends keep the index */
	CHECK_STR(encb_name(&b, encb_type_by_id(&b, btf_type_count(plain))->name_off), "after");
	diag_clear(&d);
	REQUIRE(encb_finish(&b, btf_host_endian(), &out, &d) == 0);
	for (i = 0; i < plain->nr_types; i++)
		bad += out->index[i] != plain->index[i];
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(out->nr_types, plain->nr_types + 1);
	btf_free(plain);
	btf_free(out);
}

/*
 * Strings added without the base (an unindexed one: matched at the
 * hand-over) end up where the base's index would have put them.
 */
TEST(builder_unmatched_base_strings_match_indexed)
{
	struct btf *base = btf_new(NULL), *a, *b = NULL;
	const char *names[] = { "int", "zz_own", "bb", "", "task_struct", "zz_own" };
	struct enc_builder eb;
	struct diag d;
	void *ra = NULL, *rb = NULL;
	size_t la = 0, lb = 0, i;

	REQUIRE(base);
	REQUIRE(btf_add_int(base, "int", 4, BTF_INT_SIGNED) > 0);
	REQUIRE(btf_add_struct(base, "task_struct", 8) > 0);
	REQUIRE(btf_add_typedef(base, "bb", 1) > 0);
	REQUIRE(btf_add_typedef(base, "bb_dup_target", 1) > 0);
	a = btf_new(base);
	REQUIRE(a && encb_init(&eb, base) == 0);
	CHECK(!eb.p.base_strs_unmatched);	/* an indexed base is asked directly */
	eb.p.base_strs_unmatched = true;	/* ... but matching at the end must give the same */
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct { struct btf_type t; struct btf_member m; } r = { { 0 }, { 0 } };
		int64_t n, mn;

		REQUIRE(btf_add_struct(a, names[i], 4) > 0);
		REQUIRE(btf_add_member(a, names[i][0] ? "bb" : "m", 1, 0, 0) == 0);
		REQUIRE((n = encb_add_str(&eb, names[i])) >= 0);
		REQUIRE((mn = encb_add_str(&eb, names[i][0] ? "bb" : "m")) >= 0);
		r.t.name_off = (uint32_t)n;
		r.t.info = BTF_INFO_ENC(BTF_KIND_STRUCT, 0, 1);
		r.t.size = 4;
		r.m.name_off = (uint32_t)mn;
		r.m.type = 1;
		REQUIRE(encb_add_raw(&eb, &r.t, sizeof(r)) > 0);
	}
	diag_clear(&d);
	REQUIRE(encb_finish(&eb, btf_host_endian(), &b, &d) == 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const struct btf_type *ta = btf_type_by_id(a, btf_start_id(a) + (uint32_t)i);
		const struct btf_type *tb = btf_type_by_id(b, btf_start_id(b) + (uint32_t)i);

		/* base strings at the base's offsets; own ones only reordered */
		if (ta->name_off < btf_strs_end(base))
			CHECK_EQ_U(tb->name_off, ta->name_off);
		else
			CHECK(tb->name_off >= btf_strs_end(base));
		CHECK_STR(btf_name(b, tb->name_off), btf_name(a, ta->name_off));
		if (btf_members(ta)[0].name_off < btf_strs_end(base))
			CHECK_EQ_U(btf_members(tb)[0].name_off, btf_members(ta)[0].name_off);
		CHECK_STR(btf_name(b, btf_members(tb)[0].name_off),
			  btf_name(a, btf_members(ta)[0].name_off));
	}
	/* after the string re-layout both serialise to the same bytes */
	REQUIRE(btf_strings_relayout(a, &d) == 0);
	REQUIRE(btf_strings_relayout(b, &d) == 0);
	REQUIRE(btf_write(a, &ra, &la, &d) == 0);
	REQUIRE(btf_write(b, &rb, &lb, &d) == 0);
	CHECK(la == lb && !memcmp(ra, rb, la));
	mem_free(ra);
	mem_free(rb);
	btf_free(a);
	btf_free(b);
	btf_free(base);
}

/* A seeded section: a string at its .debug_str position takes that offset. */
TEST(builder_seeded_strings_take_their_position)
{
	static const char sec[] = "alpha\0beta\0alpha\0";
	struct enc_builder b;
	int64_t o;

	REQUIRE(encb_init(&b, NULL) == 0);
	REQUIRE(encb_seed_strs(&b, sec, sizeof(sec) - 1) == 0);
	o = encb_add_str_at(&b, 6 + 1, "beta", 4, strset_hash("beta", 4));
	CHECK_EQ_U(o, 7);
	o = encb_add_str_at(&b, 11 + 1, "alpha", 5, strset_hash("alpha", 5));
	CHECK_EQ_U(o, 12);	/* the first reference makes that copy the text's */
	CHECK_EQ_U(encb_add_str(&b, "alpha"), 12);
	CHECK(encb_add_str(&b, "gamma") >= (int64_t)sizeof(sec));
	CHECK(encb_seed_strs(&b, sec, sizeof(sec) - 1) < 0);	/* once, and only first */
	encb_free(&b);
}
