// SPDX-License-Identifier: GPL-2.0-only
/* BTF model: builder, strings, field iteration, parse, write, append. */
#include "test.h"

#include "base/mem.h"
#include "btf/btf.h"
#include "btf/btf_internal.h"
#include "btf/dump.h"

/*
 * A small BTF with every kind: record k is of kind k but for FUNC_PROTO
 * (12) and FUNC (13); a new kind goes at the end (ARCHITECTURE.md, "How
 * to add a BTF kind"), so there are NR_BTF_KINDS - 1 records.
 */
static struct btf *build_all_kinds(void)
{
	struct btf *b = btf_new(NULL);
	int i_int, i_s, i_fp, i_var;

	if (!b)
		return NULL;
	i_int = btf_add_int(b, "int", 4, BTF_INT_SIGNED);		/* 1 */
	btf_add_ptr(b, i_int);						/* 2 */
	btf_add_array(b, i_int, i_int, 10);				/* 3 */
	i_s = btf_add_struct(b, "s", 8);				/* 4 */
	btf_add_member(b, "a", i_int, 0, 0);
	btf_add_member(b, "b", i_int, 32, 3);
	btf_add_union(b, "u", 4);					/* 5 */
	btf_add_member(b, "x", i_int, 0, 0);
	btf_add_enum(b, "e", 4);					/* 6 */
	btf_add_enum_value(b, "E0", 0);
	btf_add_enum_value(b, "EM", -1);
	btf_add_fwd(b, "fw", BTF_KIND_UNION);				/* 7 */
	btf_add_typedef(b, "int_t", i_int);				/* 8 */
	btf_add_volatile(b, i_int);					/* 9 */
	btf_add_const(b, i_int);					/* 10 */
	btf_add_restrict(b, 2);						/* 11 */
	i_fp = btf_add_func_proto(b, i_int);				/* 12 */
	btf_add_param(b, "p", i_int);
	btf_add_param(b, NULL, 0);
	btf_add_func(b, "f", BTF_FUNC_GLOBAL, i_fp);			/* 13 */
	i_var = btf_add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i_int);	/* 14 */
	btf_add_datasec(b, ".data", 4);					/* 15 */
	btf_add_secinfo(b, i_var, 0, 4);
	btf_add_float(b, "double", 8);					/* 16 */
	btf_add_decl_tag(b, "tag", i_s, 1);				/* 17 */
	btf_add_type_tag(b, "user", i_int);				/* 18 */
	btf_add_enum64(b, "e64", 8, false);				/* 19 */
	btf_add_enum64_value(b, "BIG", 0x100000000ULL);
	if (btf_error(b)) {
		btf_free(b);
		return NULL;
	}
	return b;
}

TEST(btf_builder_all_kinds)
{
	struct btf *b = build_all_kinds();
	const struct btf_type *t;

	REQUIRE(b);
	CHECK_EQ_U(btf_type_count(b), NR_BTF_KINDS);
	t = btf_type_by_id(b, 1);
	CHECK_EQ_U(btf_kind(t), BTF_KIND_INT);
	CHECK_EQ_U(btf_int_word(t), (BTF_INT_SIGNED << 24) | 32);
	CHECK_STR(btf_name(b, t->name_off), "int");
	t = btf_type_by_id(b, 4);
	CHECK_EQ_U(btf_vlen(t), 2);
	CHECK(btf_kflag(t));	/* switched to kflag by the bitfield */
	CHECK_EQ_U(btf_member_bit_offset(t, &btf_members(t)[1]), 32);
	CHECK_EQ_U(btf_member_bitfield_size(t, &btf_members(t)[1]), 3);
	t = btf_type_by_id(b, 6);
	CHECK(btf_kflag(t));	/* negative value makes it signed */
	CHECK_EQ_U(btf_enums(t)[1].val, -1);
	CHECK_EQ_U(btf_kflag(btf_type_by_id(b, 7)), 1);
	CHECK_EQ_U(btf_vlen(btf_type_by_id(b, 12)), 2);
	CHECK_EQ_U(btf_vlen(btf_type_by_id(b, 13)), BTF_FUNC_GLOBAL);
	CHECK_EQ_U(btf_decl_tag(btf_type_by_id(b, 17))->component_idx, 1);
	CHECK_EQ_U(btf_enum64_value(&btf_enum64s(btf_type_by_id(b, 19))[0]), 0x100000000ULL);
	CHECK_EQ_U(btf_kind(btf_type_by_id(b, 0)), BTF_KIND_UNKN);
	CHECK(btf_type_by_id(b, NR_BTF_KINDS) == NULL);
	CHECK_EQ_U(btf_find_by_name_kind(b, "s", BTF_KIND_STRUCT), 4);
	CHECK_EQ_U(btf_find_by_name_kind(b, "int_t", BTF_KIND_TYPEDEF), 8);
	CHECK(btf_find_by_name_kind(b, "s", BTF_KIND_UNION) == -ENOENT);
	btf_free(b);
}

TEST(btf_builder_rejects_bad_input)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	CHECK(btf_add_int(b, "i", 3, 0) == -EINVAL);
	CHECK(btf_error(b) && strstr(btf_error(b)->msg, "invalid size 3"));
	CHECK(btf_add_int(b, "", 4, 0) == -EINVAL);
	CHECK(btf_add_float(b, "f", 10) == -EINVAL);
	CHECK(btf_add_member(b, "m", 1, 0, 0) == -EINVAL);	/* no struct open */
	CHECK(btf_add_enum(b, "e", 3) == -EINVAL);
	CHECK(btf_add_func(b, "f", 3, 1) == -EINVAL);
	CHECK(btf_add_var(b, "v", 3, 1) == -EINVAL);
	CHECK(btf_add_decl_tag(b, "t", 1, -2) == -EINVAL);
	CHECK(btf_add_fwd(b, "x", BTF_KIND_INT) == -EINVAL);
	REQUIRE(btf_add_union(b, "u", 4) == 1);
	CHECK(btf_add_member(b, "m", 1, 8, 0) == -EINVAL);	/* union member at bit 8 */
	REQUIRE(btf_add_enum(b, "e", 4) == 2);
	CHECK(btf_add_enum_value(b, "big", 0x100000000LL) == -EINVAL);
	CHECK_EQ_U(btf_type_count(b), 3);
	btf_free(b);
}

TEST(btf_strings_dedup_and_split_reuse)
{
	struct btf *base = btf_new(NULL), *split;
	int64_t a, b2, c;
	size_t len;

	REQUIRE(base);
	a = btf_add_str(base, "foo");
	b2 = btf_add_str(base, "foo");
	CHECK_EQ_U(a, 1);
	CHECK_EQ_U(b2, 1);	/* P7: same offset */
	CHECK_EQ_U(btf_strs_len(base), 5);
	CHECK_EQ_U(btf_add_str(base, ""), 0);
	btf_add_int(base, "int", 4, 0);
	split = btf_new(base);
	REQUIRE(split);
	CHECK_EQ_U(btf_start_id(split), 2);
	CHECK_EQ_U(split->start_str_off, btf_strs_end(base));
	len = btf_strs_len(split);
	CHECK_EQ_U(btf_add_str(split, "foo"), 1);	/* P8: base offset */
	CHECK_EQ_U(btf_strs_len(split), len);
	c = btf_add_str(split, "bar");
	CHECK_EQ_U(c, btf_strs_end(base));
	CHECK_STR(btf_name(split, (uint32_t)c), "bar");
	CHECK_STR(btf_name(split, 1), "foo");
	CHECK(btf_name(split, btf_strs_end(split)) == NULL);
	CHECK_EQ_U(btf_find_str(split, "int"), btf_find_str(base, "int"));
	CHECK_EQ_U(btf_add_ptr(split, 1), 2);
	CHECK_EQ_U(btf_find_by_name_kind(split, "int", BTF_KIND_INT), 1);
	btf_free(split);
	btf_free(base);
}

static int count_fields(struct btf_type *t, enum btf_field_kind k, uint32_t *vals, int max)
{
	struct btf_field_iter it;
	uint32_t *p;
	int n = 0;

	if (btf_field_iter_init(&it, t, k))
		return -1;
	while ((p = btf_field_iter_next(&it)))
		if (n < max)
			vals[n++] = *p;
	return n;
}

TEST(btf_field_iter_order)
{
	struct btf *b = build_all_kinds();
	uint32_t v[8];

	REQUIRE(b);
	/* ARRAY: element type, then index type. */
	CHECK_EQ_U(count_fields(btf_type_mut(b, 3), BTF_FIELD_IDS, v, 8), 2);
	CHECK_EQ_U(v[0], 1);
	CHECK_EQ_U(v[1], 1);
	/* FUNC_PROTO: return type then params; names: own name then params. */
	CHECK_EQ_U(count_fields(btf_type_mut(b, 12), BTF_FIELD_IDS, v, 8), 3);
	CHECK_EQ_U(v[2], 0);
	CHECK_EQ_U(count_fields(btf_type_mut(b, 12), BTF_FIELD_STRS, v, 8), 3);
	CHECK_STR(btf_name(b, v[1]), "p");
	/* STRUCT: each member type; names: own then members. */
	CHECK_EQ_U(count_fields(btf_type_mut(b, 4), BTF_FIELD_IDS, v, 8), 2);
	CHECK_EQ_U(count_fields(btf_type_mut(b, 4), BTF_FIELD_STRS, v, 8), 3);
	CHECK_STR(btf_name(b, v[2]), "b");
	/* INT has no ids; ENUM64 has name + one value name; FWD has its type word. */
	CHECK_EQ_U(count_fields(btf_type_mut(b, 1), BTF_FIELD_IDS, v, 8), 0);
	CHECK_EQ_U(count_fields(btf_type_mut(b, 19), BTF_FIELD_STRS, v, 8), 2);
	CHECK_EQ_U(count_fields(btf_type_mut(b, 7), BTF_FIELD_IDS, v, 8), 1);
	/* DATASEC: each entry's type. */
	CHECK_EQ_U(count_fields(btf_type_mut(b, 15), BTF_FIELD_IDS, v, 8), 1);
	CHECK_EQ_U(v[0], 14);
	btf_free(b);
}

/*
 * The kind table against the record structs and, kind by kind, the
 * fields each record of build_all_kinds() (one of each kind) has (written out here, not
 * read from the table): the iterator and BTF_FOR_EACH_ID agree with both.
 */
TEST(btf_kind_table_matches_the_records)
{
	/* per kind: ids, strings (name included) of build_all_kinds()'s record */
	static const uint8_t want[][2] = {
		[BTF_KIND_INT] = { 0, 1 },	[BTF_KIND_PTR] = { 1, 1 },
		[BTF_KIND_ARRAY] = { 2, 1 },	[BTF_KIND_STRUCT] = { 2, 3 },
		[BTF_KIND_UNION] = { 1, 2 },	[BTF_KIND_ENUM] = { 0, 3 },
		[BTF_KIND_FWD] = { 1, 1 },	[BTF_KIND_TYPEDEF] = { 1, 1 },
		[BTF_KIND_VOLATILE] = { 1, 1 },	[BTF_KIND_CONST] = { 1, 1 },
		[BTF_KIND_RESTRICT] = { 1, 1 },	[BTF_KIND_FUNC_PROTO] = { 3, 3 },
		[BTF_KIND_FUNC] = { 1, 1 },	[BTF_KIND_VAR] = { 1, 1 },
		[BTF_KIND_DATASEC] = { 1, 1 },	[BTF_KIND_FLOAT] = { 0, 1 },
		[BTF_KIND_DECL_TAG] = { 1, 1 },	[BTF_KIND_TYPE_TAG] = { 1, 1 },
		[BTF_KIND_ENUM64] = { 0, 2 },
	};
	struct btf *b = build_all_kinds();
	unsigned k, kinds = 0;
	uint32_t id;

	REQUIRE(b);
	CHECK_EQ_U(btf_kinds[BTF_KIND_ARRAY].fixed, sizeof(struct btf_array));
	CHECK_EQ_U(btf_kinds[BTF_KIND_STRUCT].entry, sizeof(struct btf_member));
	CHECK_EQ_U(btf_kinds[BTF_KIND_UNION].entry, sizeof(struct btf_member));
	CHECK_EQ_U(btf_kinds[BTF_KIND_ENUM].entry, sizeof(struct btf_enum));
	CHECK_EQ_U(btf_kinds[BTF_KIND_ENUM64].entry, sizeof(struct btf_enum64));
	CHECK_EQ_U(btf_kinds[BTF_KIND_FUNC_PROTO].entry, sizeof(struct btf_param));
	CHECK_EQ_U(btf_kinds[BTF_KIND_DATASEC].entry, sizeof(struct btf_var_secinfo));
	CHECK_EQ_U(btf_kinds[BTF_KIND_VAR].fixed, sizeof(struct btf_var));
	CHECK_EQ_U(btf_kinds[BTF_KIND_DECL_TAG].fixed, sizeof(struct btf_decl_tag));
	CHECK_EQ_U(btf_kinds[BTF_KIND_INT].fixed, 4);
	for (k = 1; k < NR_BTF_KINDS; k++) {
		const struct btf_kind_info *ki = &btf_kinds[k];
		unsigned j;

		CHECK(ki->name && ki->name[0]);
		/* whole words (the byte swap is per word) */
		CHECK(ki->fixed % 4 == 0 && ki->entry % 4 == 0);
		for (j = 0; j < ki->nids; j++)
			CHECK(ki->ids[j] >= 2 && ki->ids[j] < 3 + ki->fixed / 4);
		CHECK(ki->entry_id == BTF_NO_FIELD || (ki->entry_id >= 0 && ki->entry_id < ki->entry / 4));
		CHECK(ki->entry_str == BTF_NO_FIELD || (ki->entry_str >= 0 && ki->entry_str < ki->entry / 4));
		CHECK(ki->entry || (ki->entry_id == BTF_NO_FIELD && ki->entry_str == BTF_NO_FIELD));
	}
	CHECK_STR(btf_kind_str(NR_BTF_KINDS), "UNKNOWN");
	for (id = 1; id < NR_BTF_KINDS; id++) {
		struct btf_type *t = btf_type_mut(b, id);
		uint32_t v[8], *seen[8];
		unsigned n = 0;
		int i, nids;

		REQUIRE(t && btf_kind_known(btf_kind(t)));
		kinds |= 1u << btf_kind(t);
		nids = count_fields(t, BTF_FIELD_IDS, v, 8);
		CHECK_EQ_U(nids, want[btf_kind(t)][0]);
		CHECK_EQ_U(count_fields(t, BTF_FIELD_STRS, v, 8), want[btf_kind(t)][1]);
#define SEEN(kk) BTF_FOR_EACH_ID((uint32_t *)t, kk, p, if (n < 8) seen[n++] = p)
		BTF_KIND_DISPATCH(btf_kind(t), SEEN, CHECK(0));
#undef SEEN
		CHECK_EQ_U(n, (unsigned)nids);
		{
			struct btf_field_iter it;
			uint32_t *p;

			btf_field_iter_init(&it, t, BTF_FIELD_IDS);
			for (i = 0; (p = btf_field_iter_next(&it)) && i < (int)n; i++)
				CHECK(p == seen[i]);
		}
	}
	CHECK_EQ_U(kinds, (1u << NR_BTF_KINDS) - 2);	/* every kind but void */
	btf_free(b);
}

struct textbuf {
	char *p;
	size_t len, cap;
	int fail_after;		/* emit calls before an error; -1 never */
};

static int text_emit(void *ctx, const char *s, size_t n)
{
	struct textbuf *b = ctx;

	if (b->fail_after >= 0 && b->fail_after-- == 0)
		return -EIO;
	if (VEC_RESERVE(b->p, b->cap, b->len + n + 1))
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

/*
 * The raw and JSON dumps of one record of each kind, as bpftool v7.1
 * prints them (its output for this BTF, checked once; t_btf.sh compares
 * whole kernels), and a failing emit ends a dump with its error.
 */
TEST(btf_dump_raw_and_json_of_every_kind)
{
	static const char raw[] =
		"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
		"[2] PTR '(anon)' type_id=1\n"
		"[3] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=10\n"
		"[4] STRUCT 's' size=8 vlen=2\n"
		"\t'a' type_id=1 bits_offset=0\n"
		"\t'b' type_id=1 bits_offset=32 bitfield_size=3\n"
		"[5] UNION 'u' size=4 vlen=1\n"
		"\t'x' type_id=1 bits_offset=0\n"
		"[6] ENUM 'e' encoding=SIGNED size=4 vlen=2\n"
		"\t'E0' val=0\n"
		"\t'EM' val=-1\n"
		"[7] FWD 'fw' fwd_kind=union\n"
		"[8] TYPEDEF 'int_t' type_id=1\n"
		"[9] VOLATILE '(anon)' type_id=1\n"
		"[10] CONST '(anon)' type_id=1\n"
		"[11] RESTRICT '(anon)' type_id=2\n"
		"[12] FUNC_PROTO '(anon)' ret_type_id=1 vlen=2\n"
		"\t'p' type_id=1\n"
		"\t'(anon)' type_id=0\n"
		"[13] FUNC 'f' type_id=12 linkage=global\n"
		"[14] VAR 'v' type_id=1, linkage=global\n"
		"[15] DATASEC '.data' size=4 vlen=1\n"
		"\ttype_id=14 offset=0 size=4 (VAR 'v')\n"
		"[16] FLOAT 'double' size=8\n"
		"[17] DECL_TAG 'tag' type_id=4 component_idx=1\n"
		"[18] TYPE_TAG 'user' type_id=1\n"
		"[19] ENUM64 'e64' encoding=UNSIGNED size=8 vlen=1\n"
		"\t'BIG' val=4294967296ULL\n";
	static const char json_head[] = "{\"types\":[{\"id\":1,\"kind\":\"INT\",\"name\":\"int\",";
	static const char json_tail[] =
		"{\"id\":19,\"kind\":\"ENUM64\",\"name\":\"e64\",\"encoding\":\"UNSIGNED\",\"size\":8,"
		"\"vlen\":1,\"values\":[{\"name\":\"BIG\",\"val\":4294967296}]}]}\n";
	struct btf *b = build_all_kinds();
	struct textbuf t = { .fail_after = -1 };
	struct diag d = { 0 };

	REQUIRE(b);
	CHECK_EQ_U(btf_dump_raw(b, text_emit, &t, &d), 0);
	REQUIRE(t.p);
	CHECK_STR(t.p, raw);
	t.len = 0;
	CHECK_EQ_U(btf_dump_json(b, text_emit, &t, &d), 0);
	CHECK_EQ_U(t.len, 1580);
	CHECK(!strncmp(t.p, json_head, strlen(json_head)));
	CHECK(t.len > strlen(json_tail) && !strcmp(t.p + t.len - strlen(json_tail), json_tail));
	t.fail_after = 0;
	CHECK(btf_dump_raw(b, text_emit, &t, &d) == -EIO);
	CHECK(strstr(d.msg, "output failed") != NULL);
	mem_free(t.p);
	btf_free(b);
}

static void *swap_blob(const uint8_t *p, size_t len)
{
	/* Foreign order: magic u16, version/flags bytes, u32 header words, u32 type words. */
	uint8_t *q = mem_alloc(len);
	uint32_t hdr_len = load32(p + 4), type_len = load32(p + 12), str_off = load32(p + 16);
	size_t i;

	if (!q)
		return NULL;
	memcpy(q, p, len);
	store16(q, bswap16(load16(p)));
	for (i = 4; i < hdr_len; i += 4)
		store32(q + i, bswap32(load32(p + i)));
	for (i = 0; i < type_len; i += 4)
		store32(q + hdr_len + i, bswap32(load32(p + hdr_len + i)));
	(void)str_off;
	return q;
}

TEST(btf_write_parse_round_trip_both_orders)
{
	struct btf *b = build_all_kinds(), *p1 = NULL, *p2 = NULL;
	struct diag d = { 0 };
	void *blob = NULL, *blob2 = NULL, *sw = NULL, *blob3 = NULL;
	size_t len, len2, len3;

	REQUIRE(b);
	REQUIRE(btf_write(b, &blob, &len, &d) == 0);
	CHECK_EQ_U(load16(blob), BTF_MAGIC);
	CHECK_EQ_U(load32((uint8_t *)blob + 4), 24);
	REQUIRE(btf_parse(blob, len, NULL, &p1, &d) == 0);
	CHECK_EQ_U(btf_type_count(p1), NR_BTF_KINDS);
	REQUIRE(btf_write(p1, &blob2, &len2, &d) == 0);
	CHECK(len == len2 && !memcmp(blob, blob2, len));	/* P1 on a small blob */
	/* P4: the byte-swapped blob parses to the same types. */
	sw = swap_blob(blob, len);
	REQUIRE(sw);
	CHECK(memcmp(sw, blob, len) != 0);
	REQUIRE(btf_parse(sw, len, NULL, &p2, &d) == 0);
	CHECK(p2->endian != btf_host_endian());
	CHECK_EQ_U(p2->types_len, p1->types_len);
	CHECK(!memcmp(p2->types, p1->types, p1->types_len * 4));
	CHECK_STR(btf_name(p2, btf_type_by_id(p2, 19)->name_off), "e64");
	/* P5: writing keeps the source order; swapping back gives the original. */
	REQUIRE(btf_write(p2, &blob3, &len3, &d) == 0);
	CHECK(len3 == len && !memcmp(blob3, sw, len));
	mem_free(blob3);
	btf_set_endian(p2, btf_host_endian());
	REQUIRE(btf_write(p2, &blob3, &len3, &d) == 0);
	CHECK(len3 == len && !memcmp(blob3, blob, len));
	mem_free(blob);
	mem_free(blob2);
	mem_free(blob3);
	mem_free(sw);
	btf_free(b);
	btf_free(p1);
	btf_free(p2);
}

TEST(btf_parse_errors_name_offsets)
{
	struct btf *b = build_all_kinds(), *p = NULL;
	struct diag d = { 0 };
	uint8_t *blob = NULL;
	char want[64];
	size_t len;

	REQUIRE(b);
	REQUIRE(btf_write(b, (void **)&blob, &len, &d) == 0);
	CHECK(btf_parse(blob, 7, NULL, &p, &d) == -EINVAL);
	diag_clear(&d);
	blob[0] = 0x34;
	CHECK(btf_parse(blob, len, NULL, &p, &d) == -EINVAL);
	CHECK(strstr(d.msg, "magic") != NULL);
	blob[0] = 0x9f;
	diag_clear(&d);
	/* Truncated type section: cut the last record's trailing word. */
	store32(blob + 12, load32(blob + 12) - 4);
	CHECK(btf_parse(blob, len, NULL, &p, &d) == -EINVAL);
	snprintf(want, sizeof(want), "type [%u]", NR_BTF_KINDS - 1);	/* the last record */
	CHECK(strstr(d.msg, want) != NULL);
	store32(blob + 12, load32(blob + 12) + 4);
	diag_clear(&d);
	/* Last string byte not NUL. */
	blob[len - 1] = 'x';
	CHECK(btf_parse(blob, len, NULL, &p, &d) == -EINVAL);
	CHECK(strstr(d.msg, "NUL") != NULL);
	blob[len - 1] = 0;
	diag_clear(&d);
	/* Reference to a missing id: libbpf-level sanity, off in lenient mode. */
	store32(blob + 24 + 16 + 8, 99);	/* PTR (id 2) -> 99 */
	CHECK(btf_parse(blob, len, NULL, &p, &d) == -EINVAL);
	CHECK(strstr(d.msg, "type [2] PTR") && strstr(d.msg, "99"));
	diag_clear(&d);
	CHECK(btf_parse_flags(blob, len, NULL, BTF_PARSE_LENIENT, &p, &d) == 0);
	btf_free(p);
	/* The first kind past the table, without a layout section. */
	store32(blob + 24 + 16 + 4, NR_BTF_KINDS << 24);
	diag_clear(&d);
	CHECK(btf_parse(blob, len, NULL, &p, &d) == -EINVAL);
	snprintf(want, sizeof(want), "unknown kind %u", NR_BTF_KINDS);
	CHECK(strstr(d.msg, want) != NULL);
	mem_free(blob);
	btf_free(b);
}

TEST(btf_parse_split_needs_base)
{
	struct btf *base = build_all_kinds(), *split, *p = NULL, *pb = NULL;
	struct diag d = { 0 };
	void *bb = NULL, *sb = NULL;
	size_t bl, sl;

	REQUIRE(base);
	split = btf_new(base);
	REQUIRE(split);
	btf_add_ptr(split, 4);
	btf_add_struct(split, "only_in_split", 8);
	btf_add_member(split, "next", NR_BTF_KINDS, 0, 0);	/* the PTR */
	REQUIRE(btf_write(split, &sb, &sl, &d) == 0);
	REQUIRE(btf_write(base, &bb, &bl, &d) == 0);
	/* P2: without the base, the first string byte is not NUL. */
	CHECK(btf_parse(sb, sl, NULL, &p, &d) == -EINVAL);
	CHECK(strstr(d.msg, "split") != NULL);
	diag_clear(&d);
	REQUIRE(btf_parse(bb, bl, NULL, &pb, &d) == 0);
	REQUIRE(btf_parse(sb, sl, pb, &p, &d) == 0);	/* P3 */
	CHECK_EQ_U(btf_start_id(p), NR_BTF_KINDS);
	CHECK_EQ_U(btf_type_count(p), NR_BTF_KINDS + 2);
	CHECK_STR(btf_name(p, btf_type_by_id(p, NR_BTF_KINDS + 1)->name_off), "only_in_split");
	CHECK_STR(btf_name(p, btf_type_by_id(p, 4)->name_off), "s");
	CHECK_EQ_U(btf_find_by_name_kind(p, "only_in_split", BTF_KIND_STRUCT), NR_BTF_KINDS + 1);
	btf_free(p);
	btf_free(pb);
	btf_free(split);
	btf_free(base);
	mem_free(bb);
	mem_free(sb);
}

TEST(btf_parse_layout_section_and_unknown_kind)
{
	/* P6: the first kind past the table, described by a layout section (32-byte header). */
	static const struct btf_layout lay[NR_BTF_KINDS + 1] = {
		[1] = { 4, 0, 0 }, [NR_BTF_KINDS] = { 4, 8, 0 },
	};
	uint32_t types[] = {
		0, NR_BTF_KINDS << 24 | 2, 0, 0xaaaa, 1, 2, 3, 4,	/* info 4 + 2 x 8 */
		1, BTF_KIND_INT << 24, 4, 32,		/* "i" int */
	};
	const char strs[] = "\0i";
	uint8_t blob[32 + sizeof(types) + sizeof(lay) + sizeof(strs)];
	struct btf *p = NULL;
	struct diag d = { 0 };
	void *out = NULL;
	char want[32];
	size_t olen;
	uint32_t hdr[8] = { 0, 32, 0, sizeof(types), sizeof(types) + sizeof(lay), sizeof(strs),
			    sizeof(types), sizeof(lay) };

	memcpy(blob, hdr, 32);
	store16(blob, BTF_MAGIC);
	blob[2] = 1;
	blob[3] = 0;
	memcpy(blob + 32, types, sizeof(types));
	memcpy(blob + 32 + sizeof(types), lay, sizeof(lay));
	memcpy(blob + 32 + sizeof(types) + sizeof(lay), strs, sizeof(strs));
	REQUIRE(btf_parse(blob, sizeof(blob), NULL, &p, &d) == 0);
	CHECK_EQ_U(btf_type_count(p), 3);
	CHECK_EQ_U(btf_find_by_name_kind(p, "i", BTF_KIND_INT), 2);
	REQUIRE(btf_write(p, &out, &olen, &d) == 0);
	CHECK(olen == sizeof(blob) && !memcmp(out, blob, olen));
	mem_free(out);
	btf_free(p);
	/* Without the layout the same record is an error. */
	hdr[1] = 24;
	hdr[4] = sizeof(types);
	memcpy(blob, hdr, 24);
	store16(blob, BTF_MAGIC);
	blob[2] = 1;
	blob[3] = 0;
	memmove(blob + 24, blob + 32, sizeof(types));
	memcpy(blob + 24 + sizeof(types), strs, sizeof(strs));
	diag_clear(&d);
	CHECK(btf_parse(blob, 24 + sizeof(types) + sizeof(strs), NULL, &p, &d) == -EINVAL);
	snprintf(want, sizeof(want), "unknown kind %u", NR_BTF_KINDS);
	CHECK(strstr(d.msg, want) != NULL);
}

TEST(btf_append_shifts_own_ids)
{
	struct btf *base = btf_new(NULL), *a, *b;
	const struct btf_type *t;
	int first;

	REQUIRE(base);
	btf_add_int(base, "int", 4, BTF_INT_SIGNED);	/* 1 */
	a = btf_new(base);
	b = btf_new(base);
	REQUIRE(a && b);
	btf_add_struct(a, "A", 4);			/* 2 */
	btf_add_member(a, "x", 1, 0, 0);
	btf_add_struct(b, "B", 8);			/* 2 in b */
	btf_add_member(b, "y", 1, 0, 0);
	btf_add_ptr(b, 2);				/* 3 in b: ptr to B */
	first = btf_append(a, b);			/* P9 */
	CHECK_EQ_U(first, 3);
	CHECK_EQ_U(btf_type_count(a), 5);
	t = btf_type_by_id(a, 3);
	CHECK_STR(btf_name(a, t->name_off), "B");
	CHECK_EQ_U(btf_members(t)[0].type, 1);	/* base reference unchanged */
	CHECK_STR(btf_name(a, btf_members(t)[0].name_off), "y");
	CHECK_EQ_U(btf_type_by_id(a, 4)->type, 3);	/* own reference shifted */
	btf_free(a);
	btf_free(b);
	btf_free(base);
}


/*
 * First references on several threads (spans merged in order) against one:
 * 70,000 types, names repeating across the spans, members after names.
 */
TEST(btf_strings_first_refs_any_jobs)
{
	struct btf *b = btf_new(NULL);
	uint32_t *one = NULL, *three = NULL;
	size_t n1 = 0, n3 = 0, i;
	char name[32];

	REQUIRE(b);
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);
	for (i = 0; i < 70000; i++) {
		snprintf(name, sizeof(name), "s%zu", (i * 7919) % 50021);
		btf_add_struct(b, name, 4);
		snprintf(name, sizeof(name), "m%zu", i % 977);
		btf_add_member(b, name, 1, 0, 0);
	}
	REQUIRE(btf_type_count(b) == 70002);
	CHECK(btf_strings_first_refs(b, 1, &one, &n1, NULL) == 0);
	CHECK(btf_strings_first_refs(b, 3, &three, &n3, NULL) == 0);
	CHECK_EQ_U(n1, n3);
	CHECK_EQ_U(n1, 1 + 50021 + 977);
	CHECK(one && three && !memcmp(one, three, n1 * sizeof(*one)));
	CHECK_STR(btf_name(b, one[0]), "int");
	CHECK_STR(btf_name(b, one[1]), "s0");
	CHECK_STR(btf_name(b, one[2]), "m0");
	mem_free(one);
	mem_free(three);
	btf_free(b);
}
