// SPDX-License-Identifier: GPL-2.0-only
#include "test.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mem.h"
#include "dwarf/internal.h"

TEST(leb128)
{
	static const uint8_t u[] = { 0xe5, 0x8e, 0x26 }, s[] = { 0xc0, 0xbb, 0x78 }, t[] = { 0x80 };
	const uint8_t *p = u;

	CHECK_EQ_U(dw_uleb(&p, u + 3), 624485);
	CHECK(p == u + 3);
	p = s;
	CHECK(dw_sleb(&p, s + 3) == -123456);
	p = t;
	dw_uleb(&p, t + 1);
	CHECK(p > t + 1);	/* truncated: reported as overrun */
	{
		/* INT64_MIN: the sign bit lands at shift 63 (UBSan caught this). */
		static const uint8_t m[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f };

		p = m;
		CHECK(dw_sleb(&p, m + sizeof(m)) == INT64_MIN);
	}
}

TEST(expr_classify)
{
	static const uint8_t reg5[] = { DW_OP_reg0 + 5 }, fb[] = { DW_OP_fbreg, 0x70 },
		ev[] = { DW_OP_entry_value, 1, DW_OP_reg0 + 4, DW_OP_stack_value },
		regx[] = { DW_OP_regx, 17 }, lit[] = { DW_OP_lit0 + 3, DW_OP_stack_value };
	struct dw_loc l;

	CHECK(dw_expr_classify(reg5, 1, 8, &l) == 0 && l.kind == DW_LOC_REG && l.reg == 5);
	CHECK(dw_expr_classify(fb, 2, 8, &l) == 0 && l.kind == DW_LOC_STACK);
	CHECK(dw_expr_classify(ev, 4, 8, &l) == 0 && l.kind == DW_LOC_ENTRY_VALUE && l.reg == 4);
	CHECK(dw_expr_classify(regx, 2, 8, &l) == 0 && l.kind == DW_LOC_REG && l.reg == 17);
	CHECK(dw_expr_classify(lit, 2, 8, &l) == 0 && l.kind == DW_LOC_CONST);
	CHECK(dw_expr_classify(reg5, 0, 8, &l) == 0 && l.kind == DW_LOC_NONE);
}

/*
 * A hand-made DWARF 4 unit:
 *   compile_unit "cu"
 *     structure_type "s" byte_size 8 (children)
 *       member "a" type -> base
 *     base_type "int" byte_size 4
 */
static const uint8_t abbrev[] = {
	1, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_string, 0, 0,
	2, DW_TAG_structure_type, 1, DW_AT_name, DW_FORM_string, DW_AT_byte_size, DW_FORM_data1,
	DW_AT_sibling, DW_FORM_ref4, 0, 0,
	3, DW_TAG_member, 0, DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4, 0, 0,
	4, DW_TAG_base_type, 0, DW_AT_name, DW_FORM_string, DW_AT_byte_size, DW_FORM_udata,
	DW_AT_encoding, DW_FORM_implicit_const, 5, 0, 0,
	0,
};

static const uint8_t info[] = {
	0, 0, 0, 0,		/* length, patched */
	4, 0,			/* version */
	0, 0, 0, 0,		/* abbrev offset */
	8,			/* addr size */
	/* 0x0b */ 1, 'c', 'u', 0,
	/* 0x0f */ 2, 's', 0, 8, 0x1e, 0, 0, 0,
	/* 0x17 */ 3, 'a', 0, 0x1e, 0, 0, 0,
	/* 0x1e */ 0,		/* end of the struct's children */
	/* 0x1f */ 4, 'i', 'n', 't', 0, 4,
	/* 0x25 */ 0,
};

/* A file of these sections (no .debug_str: str NULL), or NULL with d set. */
static struct dw_file *open_secs(const uint8_t *in, size_t ilen, const uint8_t *ab, size_t alen,
				 const uint8_t *str, size_t slen, bool big_endian, struct diag *d)
{
	struct dw_sections s = { 0 };
	struct dw_file *f = NULL;

	s.info.p = in;
	s.info.len = ilen;
	s.abbrev.p = ab;
	s.abbrev.len = alen;
	s.str.p = str;
	s.str.len = slen;
	diag_clear(d);
	dw_file_open(&f, "mem", &s, big_endian, NULL, 1, d);
	return f;
}

static struct dw_file *open_mem(uint8_t *buf, size_t len, struct diag *d)
{
	return open_secs(buf, len, abbrev, sizeof(abbrev), NULL, 0, false, d);
}

TEST(decode_handmade_unit)
{
	uint8_t buf[sizeof(info)];
	struct dw_die die;
	struct dw_cursor c;
	struct dw_file *f;
	struct diag d;
	uint64_t v, n = 0;

	memcpy(buf, info, sizeof(buf));
	buf[0] = sizeof(buf) - 4;
	buf[0x13] = 0x1f;	/* sibling of "s" -> the base type */
	buf[0x1a] = 0x1f;	/* member type -> the base type */
	diag_clear(&d);
	f = open_mem(buf, sizeof(buf), &d);
	REQUIRE(f != NULL);
	REQUIRE(dw_nunits(f) == 1);
	CHECK_STR(dw_unit_at(f, 0)->name, "cu");
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	REQUIRE(dw_next(&c, &die) == 1);
	CHECK(die.tag == DW_TAG_compile_unit && die.depth == 0);
	REQUIRE(dw_next(&c, &die) == 1);
	CHECK(die.tag == DW_TAG_structure_type && die.depth == 1);
	CHECK_STR(dw_name(&die), "s");
	CHECK(dw_udata(&die, DW_AT_byte_size, &v) && v == 8);
	REQUIRE(dw_skip_children(&c, &die) == 0);	/* via DW_AT_sibling */
	REQUIRE(dw_next(&c, &die) == 1);
	CHECK(die.tag == DW_TAG_base_type && die.depth == 1);
	CHECK(dw_udata(&die, DW_AT_byte_size, &v) && v == 4);
	CHECK(dw_sdata(&die, DW_AT_encoding, (int64_t *)&v) && v == 5);
	CHECK(dw_next(&c, &die) == 0);
	/* The member's type reference resolves to the base type. */
	REQUIRE(dw_die_at(f, 0x17, &die, &d) == 0);
	CHECK(die.tag == DW_TAG_member);
	CHECK_EQ_U(dw_ref(f, &die, DW_AT_type), 0x1f);
	REQUIRE(dw_die_at(f, dw_ref(f, &die, DW_AT_type), &die, &d) == 0);
	CHECK_STR(dw_name(&die), "int");
	CHECK(dw_walk_skip(f, dw_unit_at(f, 0), &n, &d) == 0);
	CHECK_EQ_U(n, 4);
	dw_file_free(f);
}

TEST(decode_errors_name_unit_and_die)
{
	uint8_t buf[sizeof(info)];
	struct dw_die die;
	struct dw_cursor c;
	struct dw_file *f;
	struct diag d;
	int r;

	memcpy(buf, info, sizeof(buf));
	buf[0] = sizeof(buf) - 4;
	buf[0x17] = 9;	/* abbrev code 9 does not exist */
	diag_clear(&d);
	f = open_mem(buf, sizeof(buf), &d);
	REQUIRE(f != NULL);
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	while ((r = dw_next(&c, &die)) > 0)
		;
	CHECK(r == -EINVAL);
	CHECK(strstr(d.msg, "mem: .debug_info unit 0x0: DIE 0x17: abbreviation code") != NULL);
	dw_file_free(f);

	memcpy(buf, info, sizeof(buf));
	buf[0] = 0x70;	/* length past the end */
	diag_clear(&d);
	f = open_mem(buf, sizeof(buf), &d);
	REQUIRE(f != NULL);
	CHECK(dw_unit_at(f, 0)->bad);
	REQUIRE(dw_file_index_error(f) != NULL);
	CHECK(strstr(dw_file_index_error(f)->msg, "unit length 0x70 runs past") != NULL);
	CHECK(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) < 0);
	dw_file_free(f);
}

/*
 * dw_next_filtered() on a DWARF 4 unit with .debug_str names:
 *   compile_unit "cu"
 *     structure_type "s" byte_size 8 decl_file decl_line sibling (all fixed-size)
 *       member "a" decl_file type -> base data_member_location 4
 *     base_type "int" byte_size (udata: variable-size) encoding (implicit)
 * Planned abbreviations yield only the kept attributes, in order, with the
 * values the full decoder gives; the variable-size one is decoded whole.
 */
static const uint8_t abbrev_strp[] = {
	1, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp, 0, 0,
	2, DW_TAG_structure_type, 1, DW_AT_name, DW_FORM_strp, DW_AT_byte_size, DW_FORM_data1,
	DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line, DW_FORM_data2, DW_AT_sibling, DW_FORM_ref4,
	0, 0,
	3, DW_TAG_member, 0, DW_AT_name, DW_FORM_strp, DW_AT_decl_file, DW_FORM_data1, DW_AT_type,
	DW_FORM_ref4, DW_AT_data_member_location, DW_FORM_data1, 0, 0,
	4, DW_TAG_base_type, 0, DW_AT_name, DW_FORM_strp, DW_AT_byte_size, DW_FORM_udata,
	DW_AT_encoding, DW_FORM_implicit_const, 5, 0, 0,
	0,
};

static const uint8_t str_strp[] = "cu\0s\0a\0int";

static uint8_t info_strp[] = {
	0x2c, 0, 0, 0,		/* length */
	4, 0,			/* version */
	0, 0, 0, 0,		/* abbrev offset */
	8,			/* addr size */
	/* 0x0b */ 1, 0, 0, 0, 0,
	/* 0x10 */ 2, 3, 0, 0, 0, 8, 1, 0x34, 0x12, 0x29, 0, 0, 0,
	/* 0x1d */ 3, 5, 0, 0, 0, 1, 0x29, 0, 0, 0, 4,
	/* 0x28 */ 0,
	/* 0x29 */ 4, 7, 0, 0, 0, 4,
	/* 0x2f */ 0,
};

/* The same unit with the member's decl_file moved last: other offsets. */
static const uint8_t abbrev_strp2[] = {
	1, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp, 0, 0,
	2, DW_TAG_structure_type, 1, DW_AT_name, DW_FORM_strp, DW_AT_byte_size, DW_FORM_data1,
	DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line, DW_FORM_data2, DW_AT_sibling, DW_FORM_ref4,
	0, 0,
	3, DW_TAG_member, 0, DW_AT_name, DW_FORM_strp, DW_AT_type, DW_FORM_ref4,
	DW_AT_data_member_location, DW_FORM_data1, DW_AT_decl_file, DW_FORM_data1, 0, 0,
	4, DW_TAG_base_type, 0, DW_AT_name, DW_FORM_strp, DW_AT_byte_size, DW_FORM_udata,
	DW_AT_encoding, DW_FORM_implicit_const, 5, 0, 0,
	0,
};

static uint8_t info_strp2[] = {
	0x2c, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8,
	/* 0x0b */ 1, 0, 0, 0, 0,
	/* 0x10 */ 2, 3, 0, 0, 0, 8, 1, 0x34, 0x12, 0x29, 0, 0, 0,
	/* 0x1d */ 3, 5, 0, 0, 0, 0x29, 0, 0, 0, 4, 1,
	/* 0x28 */ 0,
	/* 0x29 */ 4, 7, 0, 0, 0, 4,
	/* 0x2f */ 0,
};

static bool want_all(void *ctx, unsigned tag, int depth)
{
	(void)ctx, (void)tag, (void)depth;
	return true;
}

TEST(decode_filtered_plans)
{
	static const uint16_t keep[] = { DW_AT_name, DW_AT_type, DW_AT_byte_size,
					 DW_AT_data_member_location };
	static struct dw_die full, die;
	struct dw_cursor c, cf;
	struct dw_filter *fl = dw_filter_new(keep, sizeof(keep) / sizeof(keep[0]));
	struct dw_file *f = NULL;
	struct diag d;
	uint64_t v;
	unsigned i, j, ndies = 0;
	int r;

	REQUIRE(fl != NULL);
	REQUIRE((f = open_secs(info_strp, sizeof(info_strp), abbrev_strp, sizeof(abbrev_strp),
			       str_strp, sizeof(str_strp), false, &d)) != NULL);
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	REQUIRE(dw_cursor_init(&cf, f, dw_unit_at(f, 0), &d) == 0);
	while ((r = dw_next(&c, &full)) > 0) {
		REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
		ndies++;
		CHECK(die.off == full.off && die.tag == full.tag && die.depth == full.depth);
		CHECK_EQ_U(die.nattr_in, full.nattr);
		/* die's attributes: full's, minus the ones not kept (planned ones only) */
		CHECK(die.slot != NULL);
		for (i = j = 0; i < full.nattr; i++) {
			const struct dw_attr *a = &full.attr[i], *x;
			bool kept = a->at == DW_AT_name || a->at == DW_AT_type ||
				    a->at == DW_AT_byte_size || a->at == DW_AT_data_member_location;

			/* dw_attr() through the slot index: the first of its code, kept ones only */
			x = dw_attr(&die, a->at);
			if (!kept)
				CHECK(x == NULL);
			else if (dw_attr(&full, a->at) == a)
				CHECK(x && x->at == a->at && x->form == a->form && x->u == a->u);
			if (!kept && die.nattr < full.nattr)
				continue;
			REQUIRE(j < die.nattr);
			CHECK(die.attr[j].at == a->at && die.attr[j].form == a->form &&
			      die.attr[j].cls == a->cls && die.attr[j].u == a->u);
			j++;
		}
		CHECK_EQ_U(j, die.nattr);
	}
	CHECK(r == 0);
	CHECK(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 0);
	CHECK_EQ_U(ndies, 4);

	/* The struct: planned, decl_file/decl_line/sibling left unread. */
	REQUIRE(dw_cursor_init(&cf, f, dw_unit_at(f, 0), &d) == 0);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_structure_type);
	CHECK_EQ_U(die.nattr, 2);
	CHECK_EQ_U(die.nattr_in, 5);
	CHECK_STR(dw_name(&die), "s");
	CHECK(dw_udata(&die, DW_AT_byte_size, &v) && v == 8);
	CHECK(dw_attr(&die, DW_AT_decl_line) == NULL && dw_attr(&die, DW_AT_sibling) == NULL);
	/* without DW_AT_sibling the skip walks the children */
	REQUIRE(dw_skip_children(&cf, &die) == 0);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_base_type && die.off == 0x29);
	/* udata byte_size: no plan, every attribute decoded, the kept ones found */
	CHECK_EQ_U(die.nattr, 3);
	CHECK_STR(dw_name(&die), "int");
	CHECK(dw_udata(&die, DW_AT_byte_size, &v) && v == 4);
	CHECK(die.attr[2].at == DW_AT_encoding && die.attr[2].u == 5);
	CHECK(dw_attr(&die, DW_AT_encoding) == NULL);	/* not kept */

	/* The member's values read at their offsets. */
	REQUIRE(dw_cursor_at(&cf, f, 0x1d, &d) == 0);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_member);
	CHECK_EQ_U(die.nattr, 3);
	CHECK_STR(dw_name(&die), "a");
	CHECK_EQ_U(dw_ref(f, &die, DW_AT_type), 0x29);
	CHECK(dw_udata(&die, DW_AT_data_member_location, &v) && v == 4);

	/*
	 * The filter on the next file, whose table likely lands where the
	 * freed one was: once forgotten, plans of the old layout are not used.
	 */
	dw_file_free(f);
	f = NULL;
	dw_filter_forget(fl);
	REQUIRE((f = open_secs(info_strp2, sizeof(info_strp), abbrev_strp2, sizeof(abbrev_strp),
			       str_strp, sizeof(str_strp), false, &d)) != NULL);
	REQUIRE(dw_cursor_at(&cf, f, 0x1d, &d) == 0);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_member);
	CHECK_EQ_U(dw_ref(f, &die, DW_AT_type), 0x29);
	CHECK(dw_udata(&die, DW_AT_data_member_location, &v) && v == 4);
	dw_filter_free(fl);
	dw_file_free(f);
}

/*
 * dw_next_leaves() on the same unit: the member (at 0x1d) is a leaf of the
 * shape {name, type, data_member_location}, read as the filtered walk reads
 * it; the struct (children), the base type (another tag) and the null
 * entry are not, and leave the cursor where it was.
 */
TEST(decode_leaves)
{
	static const uint16_t keep[] = { DW_AT_name, DW_AT_type, DW_AT_byte_size,
					 DW_AT_data_member_location };
	struct dw_leaf shape = { .tag = DW_TAG_member, .n = 3,
				 .at = { DW_AT_name, DW_AT_type, DW_AT_data_member_location },
				 .cls = { DW_CL_STRING, DW_CL_REF, DW_CL_CONST } };
	struct dw_leaf base = { .tag = DW_TAG_base_type, .n = 1, .at = { DW_AT_name },
				.cls = { DW_CL_STRING } };
	static struct dw_die die;
	static uint8_t bad[sizeof(info_strp)];
	struct dw_filter *fl = dw_filter_new(keep, sizeof(keep) / sizeof(keep[0]));
	struct dw_file *f = NULL;
	struct dw_cursor c, cf;
	const uint8_t *at;
	struct dw_leaf_val lv[4];
	struct diag d;

	REQUIRE(fl != NULL);
	shape.at[2] = DW_AT_bit_size;	/* not kept by the filter */
	CHECK(dw_filter_add_leaf(fl, &shape) == -EINVAL);
	shape.at[2] = DW_AT_data_member_location;
	REQUIRE(dw_filter_add_leaf(fl, &shape) == 0);
	CHECK(dw_filter_add_leaf(fl, &shape) == -EINVAL);	/* one shape per tag */
	REQUIRE(dw_filter_add_leaf(fl, &base) == 0);
	REQUIRE((f = open_secs(info_strp, sizeof(info_strp), abbrev_strp, sizeof(abbrev_strp),
			       str_strp, sizeof(str_strp), false, &d)) != NULL);

	/* the unit DIE and the struct: not leaves, the cursor stays */
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_compile_unit, lv, 4) == 0 && c.p == at);
	REQUIRE(dw_next_filtered(&c, &die, want_all, NULL, fl) == 1);
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_structure_type, lv, 4) == 0 && c.p == at);
	REQUIRE(dw_next_filtered(&c, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_structure_type);

	/* the member: not as another tag; its values, and the cursor where the walk leaves it */
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_base_type, lv, 4) == 0 && c.p == at);
	cf = c;
	REQUIRE(dw_next_leaves(&c, fl, DW_TAG_member, lv, 4) == 1);	/* then the null entry */
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_member && c.p == cf.p && c.depth == cf.depth);
	CHECK_EQ_U(lv[0].off, 0x1d);
	CHECK_EQ_U(lv[0].off, die.off);
	CHECK_EQ_U(lv[0].have, 7);
	CHECK_STR((const char *)(uintptr_t)lv[0].v[0], "a");
	CHECK_EQ_U(lv[0].v[1], 0x29);
	CHECK_EQ_U(lv[0].v[1], dw_ref(f, &die, DW_AT_type));
	CHECK_EQ_U(lv[0].v[2], 4);

	/* the null entry closing the struct: not a leaf */
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_member, lv, 4) == 0 && c.p == at);
	/* the base type: its byte_size (kept, not in the shape) and udata form make no leaf */
	REQUIRE(dw_cursor_at(&c, f, 0x29, &d) == 0);
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_base_type, lv, 4) == 0 && c.p == at);
	REQUIRE(dw_next_filtered(&c, &die, want_all, NULL, fl) == 1);
	CHECK(die.tag == DW_TAG_base_type);
	dw_file_free(f);

	/* a name offset past .debug_str: not a leaf; the filtered walk reports it */
	memcpy(bad, info_strp, sizeof(bad));
	bad[0x1e] = 0x7f;
	REQUIRE((f = open_secs(bad, sizeof(bad), abbrev_strp, sizeof(abbrev_strp), str_strp,
			       sizeof(str_strp), false, &d)) != NULL);
	REQUIRE(dw_cursor_at(&c, f, 0x1d, &d) == 0);
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_member, lv, 4) == 0 && c.p == at);
	CHECK(dw_next_filtered(&c, &die, want_all, NULL, fl) < 0);
	dw_file_free(f);
	dw_filter_free(fl);

	/* a shape whose name must be a constant: the member is not one */
	REQUIRE((fl = dw_filter_new(keep, sizeof(keep) / sizeof(keep[0]))) != NULL);
	shape.cls[0] = DW_CL_CONST;
	REQUIRE(dw_filter_add_leaf(fl, &shape) == 0);
	REQUIRE((f = open_secs(info_strp, sizeof(info_strp), abbrev_strp, sizeof(abbrev_strp),
			       str_strp, sizeof(str_strp), false, &d)) != NULL);
	REQUIRE(dw_cursor_at(&c, f, 0x1d, &d) == 0);
	at = c.p;
	CHECK(dw_next_leaves(&c, fl, DW_TAG_member, lv, 4) == 0 && c.p == at);
	dw_file_free(f);
	dw_filter_free(fl);
}

/*
 * A unit for decode_filtered_forms:
 *   compile_unit "cu"
 *     variable "v" type decl_line external const_value -3 location low_pc
 *              byte_size (data8: all ones)
 *     member "m" data_member_location decl_file (flag)
 *     base_type "int" byte_size encoding decl_line
 */
static const uint8_t abbrev_forms[] = {
	1, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp, 0, 0,
	2, DW_TAG_variable, 0, DW_AT_name, DW_FORM_strp, DW_AT_type, DW_FORM_ref4,
	DW_AT_decl_line, DW_FORM_data2, DW_AT_external, DW_FORM_flag_present,
	DW_AT_const_value, DW_FORM_implicit_const, 0x7d, DW_AT_location, DW_FORM_sec_offset,
	DW_AT_low_pc, DW_FORM_addr, DW_AT_byte_size, DW_FORM_data8, 0, 0,
	3, DW_TAG_member, 0, DW_AT_name, DW_FORM_strp, DW_AT_data_member_location, DW_FORM_data1,
	DW_AT_decl_file, DW_FORM_flag, 0, 0,
	4, DW_TAG_base_type, 0, DW_AT_name, DW_FORM_strp, DW_AT_byte_size, DW_FORM_data1,
	DW_AT_encoding, DW_FORM_data1, DW_AT_decl_line, DW_FORM_data2, 0, 0,
	0,
};

static const uint8_t str_forms[] = "cu\0v\0m\0int";

static const uint8_t info_forms[] = {
	0x3c, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8,
	/* 0x0b */ 1, 0, 0, 0, 0,
	/* 0x10 */ 2, 3, 0, 0, 0, 0x36, 0, 0, 0, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 0x2f */ 3, 5, 0, 0, 0, 16, 1,
	/* 0x36 */ 4, 7, 0, 0, 0, 4, 5, 0x0a, 0,
	/* 0x3f */ 0,
};

/* The same unit big-endian. */
static const uint8_t info_forms_be[] = {
	0, 0, 0, 0x3c, 0, 4, 0, 0, 0, 0, 8,
	/* 0x0b */ 1, 0, 0, 0, 0,
	/* 0x10 */ 2, 0, 0, 0, 3, 0, 0, 0, 0x36, 0x12, 0x34, 0x12, 0x34, 0x56, 0x78,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 0x2f */ 3, 0, 0, 0, 5, 16, 1,
	/* 0x36 */ 4, 0, 0, 0, 7, 4, 5, 0, 0x0a,
	/* 0x3f */ 0,
};

static const uint16_t keep_forms[] = { DW_AT_name, DW_AT_type, DW_AT_external, DW_AT_const_value,
				       DW_AT_location, DW_AT_low_pc, DW_AT_byte_size,
				       DW_AT_data_member_location, DW_AT_decl_file, DW_AT_encoding };

/* The forms unit in bytes (info_forms' size), or NULL with d set. */
static struct dw_file *open_forms(const uint8_t *bytes, bool big_endian, struct diag *d)
{
	return open_secs(bytes, sizeof(info_forms), abbrev_forms, sizeof(abbrev_forms), str_forms,
			 sizeof(str_forms), big_endian, d);
}

static void check_forms(int *test_failed_, const uint8_t *bytes, bool big_endian)
{
	static const unsigned nattr[] = { 1, 7, 3, 4 };	/* planned, planned, whole, whole */
	static struct dw_die full, die;
	struct dw_cursor c, cf;
	struct dw_filter *fl = dw_filter_new(keep_forms, sizeof(keep_forms) / sizeof(keep_forms[0]));
	struct dw_file *f;
	const struct dw_attr *a;
	struct diag d;
	unsigned i, j, ndies = 0;
	uint64_t v;
	int64_t sv;
	int r;

	REQUIRE(fl != NULL);
	REQUIRE((f = open_forms(bytes, big_endian, &d)) != NULL);
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	REQUIRE(dw_cursor_init(&cf, f, dw_unit_at(f, 0), &d) == 0);
	while ((r = dw_next(&c, &full)) > 0) {
		REQUIRE(ndies < 4);
		REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
		CHECK(die.off == full.off && die.tag == full.tag);
		CHECK_EQ_U(die.nattr, nattr[ndies]);
		ndies++;
		/* the kept values in order, as the full decoder gives them */
		for (i = j = 0; i < full.nattr && j < die.nattr; i++) {
			if (die.nattr < full.nattr && full.attr[i].at == DW_AT_decl_line)
				continue;
			CHECK(die.attr[j].at == full.attr[i].at && die.attr[j].form == full.attr[i].form &&
			      die.attr[j].cls == full.attr[i].cls && die.attr[j].u == full.attr[i].u);
			j++;
		}
		CHECK_EQ_U(j, die.nattr);
	}
	CHECK(r == 0 && ndies == 4);

	REQUIRE(dw_cursor_at(&cf, f, 0x10, &d) == 0);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK_STR(dw_name(&die), "v");
	CHECK_EQ_U(dw_ref(f, &die, DW_AT_type), 0x36);
	CHECK(dw_flag(&die, DW_AT_external));
	CHECK(dw_sdata(&die, DW_AT_const_value, &sv) && sv == -3);
	CHECK((a = dw_attr(&die, DW_AT_location)) && a->cls == DW_CL_SECOFF && a->u == 0x12345678);
	CHECK((a = dw_attr(&die, DW_AT_low_pc)) && a->cls == DW_CL_ADDR &&
	      a->u == 0x1122334455667788ull);
	CHECK(dw_udata(&die, DW_AT_byte_size, &v) && v == ~0ull);
	CHECK(dw_attr(&die, DW_AT_decl_line) == NULL);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK(dw_flag(&die, DW_AT_decl_file));
	CHECK(dw_udata(&die, DW_AT_data_member_location, &v) && v == 16);
	REQUIRE(dw_next_filtered(&cf, &die, want_all, NULL, fl) == 1);
	CHECK_STR(dw_name(&die), "int");
	/* decoded whole, but decl_line is not kept: not found */
	CHECK(dw_attr(&die, DW_AT_decl_line) == NULL);
	for (i = 0; i < die.nattr && die.attr[i].at != DW_AT_decl_line; i++)
		;
	CHECK(i < die.nattr && die.attr[i].u == 10);
	dw_filter_free(fl);
	dw_file_free(f);
}

/*
 * Every form a plan reads (strp, ref4, data1/2/8, flag_present,
 * implicit_const, sec_offset, addr) in both byte orders, a plan refused
 * for a kept DW_FORM_flag, and a planned DIE too close to the unit end to
 * read 8 bytes at its last value (both decoded whole).
 */
TEST(decode_filtered_forms)
{
	static uint8_t bad[sizeof(info_forms)];
	static struct dw_die die;
	struct dw_filter *fl = dw_filter_new(keep_forms, sizeof(keep_forms) / sizeof(keep_forms[0]));
	struct dw_file *f;
	struct dw_cursor cf;
	struct diag d;

	REQUIRE(sizeof(info_forms_be) == sizeof(info_forms));
	check_forms(test_failed_, info_forms, false);
	check_forms(test_failed_, info_forms_be, true);

	/* a planned string offset past .debug_str: the full decoder's error */
	REQUIRE(fl != NULL);
	memcpy(bad, info_forms, sizeof(bad));
	bad[0x11] = sizeof(str_forms);
	REQUIRE((f = open_forms(bad, false, &d)) != NULL);
	REQUIRE(dw_cursor_at(&cf, f, 0x10, &d) == 0);
	CHECK(dw_next_filtered(&cf, &die, want_all, NULL, fl) < 0);
	CHECK(strstr(d.msg, "DIE 0x10: string offset past the end of .debug_str") != NULL);
	dw_filter_free(fl);
	dw_file_free(f);
}

/* A .debug_info peek (dw_sections.info_peek) over an in-memory section. */
struct peek_mem {
	const uint8_t *sec;
	size_t len;
	unsigned calls, fail_every;	/* fail_every n: every nth call returns -1 */
};

static ssize_t peek_mem(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct peek_mem *pm = ctx;

	pm->calls++;
	if ((pm->fail_every && pm->calls % pm->fail_every == 0) || off + len > pm->len)
		return -1;
	memcpy(buf, pm->sec + off, len);
	return (ssize_t)len;
}

/*
 * The index read through a peek (header and unit DIE copied, none of the
 * section's pages touched) is the index read in place: 80 units, some
 * with a unit DIE longer than a peek holds (read again in place), some
 * peeks failing (in place too), serial and with tables parsed ahead.  An
 * inline name is the section's copy, never the peek buffer's.
 */
TEST(dwarf_index_through_peek_same_as_in_place)
{
	enum { NU = 80, LONG = 300 };
	const size_t ulen = sizeof(info), alen = sizeof(abbrev);
	size_t cap = NU * (ulen + LONG), off = 0;
	uint8_t *ab = mem_zalloc(NU * alen), *in = mem_zalloc(cap);
	unsigned i, j, k;

	REQUIRE(ab && in);
	for (i = 0; i < NU; i++) {
		uint8_t *u = in + off;
		uint32_t aoff = (uint32_t)(i * alen), len;
		size_t extra = i % 7 == 3 ? LONG : 0;	/* "cu" + 300 'x' */

		memcpy(ab + i * alen, abbrev, alen);
		memcpy(u, info, 0x0e);	/* header, code 1, "cu" */
		memset(u + 0x0e, 'x', extra);
		memcpy(u + 0x0e + extra, info + 0x0e, ulen - 0x0e);	/* NUL, the rest */
		len = (uint32_t)(ulen + extra - 4);
		memcpy(u, &len, 4);
		memcpy(u + 6, &aoff, 4);
		if (i == 5)
			u[10] = 3;	/* a bad unit: address size 3 */
		off += ulen + extra;
	}
	for (k = 0; k < 2; k++) {	/* all peeks served; every third fails */
		for (j = 0; j < 2; j++) {	/* jobs 1, 2 (tables ahead) */
			struct dw_file *f[2] = { NULL, NULL };
			struct peek_mem pm = { in, off, 0, k ? 3 : 0 };
			unsigned v;

			for (v = 0; v < 2; v++) {
				struct dw_sections s = { 0 };
				struct diag d;

				s.info.p = in;
				s.info.len = off;
				s.abbrev.p = ab;
				s.abbrev.len = NU * alen;
				if (v) {
					s.info_peek = peek_mem;
					s.peek_ctx = &pm;
				}
				diag_clear(&d);
				REQUIRE(dw_file_open(&f[v], "mem", &s, false, NULL, j + 1, &d) == 0);
			}
			CHECK(pm.calls >= NU);
			REQUIRE(dw_nunits(f[0]) == NU && dw_nunits(f[1]) == NU);
			for (i = 0; i < NU; i++) {
				const struct dw_unit *a = dw_unit_at(f[0], i), *b = dw_unit_at(f[1], i);

				CHECK(a->bad == b->bad && a->end == b->end && a->die_off == b->die_off);
				if (a->bad_msg && b->bad_msg)
					CHECK_STR(b->bad_msg, a->bad_msg);
				CHECK((a->name == NULL) == (b->name == NULL));
				if (!a->name || !b->name)
					continue;
				CHECK(b->name == a->name);	/* the section's bytes */
				CHECK_EQ_U(strlen(b->name), i % 7 == 3 ? 2 + LONG : 2);
			}
			CHECK(dw_unit_at(f[1], 5)->bad && !dw_unit_at(f[1], 3)->bad);
			dw_file_free(f[0]);
			dw_file_free(f[1]);
		}
	}
	mem_free(ab);
	mem_free(in);
}

/*
 * A unit walked in a copy (dw_cursor_init_copy) is the unit walked in
 * place: the second of two copies of info_strp (so its section offset is
 * not 0), full decoding and a DW_AT_sibling jump, DIE offsets and values
 * the same; the buffer is reused while big enough; a failed peek walks
 * the section in place.
 */
TEST(dwarf_cursor_in_copy_same_as_in_place)
{
	const size_t ulen = sizeof(info_strp);
	uint8_t *sec = mem_alloc(2 * ulen), *buf = NULL, *first;
	static struct dw_die a, b;
	struct dw_cursor c, cc;
	struct dw_sections s = { 0 };
	struct peek_mem pm = { NULL, 2 * ulen, 0, 0 };
	struct dw_file *f = NULL;
	const struct dw_unit *u;
	size_t cap = 0;
	struct diag d;
	unsigned i, n = 0;
	int r;

	REQUIRE(sec != NULL);
	memcpy(sec, info_strp, ulen);
	memcpy(sec + ulen, info_strp, ulen);
	pm.sec = sec;
	s.info.p = sec;
	s.info.len = 2 * ulen;
	s.abbrev.p = abbrev_strp;
	s.abbrev.len = sizeof(abbrev_strp);
	s.str.p = str_strp;
	s.str.len = sizeof(str_strp);
	s.info_peek = peek_mem;
	s.peek_ctx = &pm;
	diag_clear(&d);
	REQUIRE(dw_file_open(&f, "mem", &s, false, NULL, 1, &d) == 0);
	REQUIRE(dw_nunits(f) == 2);
	u = dw_unit_at(f, 1);
	REQUIRE(u->off == ulen);
	REQUIRE(dw_cursor_init(&c, f, u, &d) == 0);
	REQUIRE(dw_cursor_init_copy(&cc, f, u, &buf, &cap, &d) == 0);
	REQUIRE(buf != NULL && cap >= ulen);
	CHECK(cc.sec == buf && cc.base == ulen);
	while ((r = dw_next(&c, &a)) > 0) {
		REQUIRE(dw_next(&cc, &b) == 1);
		n++;
		CHECK_EQ_U(b.off, a.off);
		CHECK(b.tag == a.tag && b.depth == a.depth && b.nattr == a.nattr);
		for (i = 0; i < a.nattr && i < b.nattr; i++)
			CHECK(b.attr[i].at == a.attr[i].at && b.attr[i].u == a.attr[i].u);
		if (a.tag == DW_TAG_structure_type) {	/* the sibling jump, in both */
			REQUIRE(dw_attr(&a, DW_AT_sibling) != NULL);
			REQUIRE(dw_skip_children(&c, &a) == 0 && dw_skip_children(&cc, &b) == 0);
		}
	}
	CHECK(r == 0 && dw_next(&cc, &b) == 0);
	CHECK_EQ_U(n, 3);	/* the unit, the struct, the base type */
	CHECK_EQ_U(a.off, ulen + 0x29);

	/* unit 0 fits: the same buffer, now at section offset 0 */
	first = buf;
	REQUIRE(dw_cursor_init_copy(&cc, f, dw_unit_at(f, 0), &buf, &cap, &d) == 0);
	CHECK(buf == first && cc.sec == buf && cc.base == 0);
	REQUIRE(dw_next(&cc, &b) == 1 && dw_next(&cc, &b) == 1);
	CHECK(b.off == 0x10 && b.tag == DW_TAG_structure_type);

	/* a failed peek: the section in place */
	pm.fail_every = 1;
	REQUIRE(dw_cursor_init_copy(&cc, f, u, &buf, &cap, &d) == 0);
	CHECK(cc.sec == sec && cc.base == 0);
	REQUIRE(dw_next(&cc, &b) == 1);
	CHECK_EQ_U(b.off, u->die_off);
	dw_file_free(f);
	mem_free(buf);
	mem_free(sec);
}

/*
 * Abbreviation tables parsed ahead on threads (dw_file_open, jobs > 1)
 * give the index the serial one builds.  80 units, a table each, plus:
 * unit 0, which the index skips (address size 3), names table 1 first:
 * the scan must skip it too, or table 1 is parsed ahead for address size
 * 3 and unit 1 gets it; unit 2 names a truncated table (the same error).
 */
TEST(dwarf_tables_ahead_same_as_serial)
{
	enum { NU = 80, TAIL = 2 };
	const size_t ulen = sizeof(info), alen = sizeof(abbrev);
	uint8_t *ab = mem_zalloc(NU * alen + TAIL), *in = mem_zalloc(NU * ulen);
	struct dw_file *f[2] = { NULL, NULL };
	unsigned i, j;

	REQUIRE(ab && in);
	for (i = 0; i < NU; i++) {
		uint8_t *u = in + i * ulen;
		uint32_t aoff = (uint32_t)(i * alen);

		memcpy(ab + i * alen, abbrev, alen);
		memcpy(u, info, ulen);
		u[0] = (uint8_t)(ulen - 4);
		if (i == 0)
			aoff = (uint32_t)alen;	/* table 1 */
		if (i == 2)
			aoff = (uint32_t)(NU * alen);	/* the truncated tail */
		memcpy(u + 6, &aoff, 4);
		if (i == 0)
			u[10] = 3;
	}
	ab[NU * alen] = 1;	/* code 1, then nothing */
	ab[NU * alen + 1] = DW_TAG_compile_unit;
	for (j = 0; j < 2; j++) {
		struct dw_sections s = { 0 };
		struct diag d;

		s.info.p = in;
		s.info.len = NU * ulen;
		s.abbrev.p = ab;
		s.abbrev.len = NU * alen + TAIL;
		diag_clear(&d);
		REQUIRE(dw_file_open(&f[j], "mem", &s, false, NULL, j ? 2 : 1, &d) == 0);
	}
	REQUIRE(dw_nunits(f[0]) == NU && dw_nunits(f[1]) == NU);
	CHECK_EQ_U(f[1]->nahead_arenas, 2);	/* the tables were parsed ahead */
	CHECK_STR(dw_file_index_error(f[1])->msg, dw_file_index_error(f[0])->msg);
	for (i = 0; i < NU; i++) {
		const struct dw_unit *a = dw_unit_at(f[0], i), *b = dw_unit_at(f[1], i);

		CHECK(a->bad == b->bad);
		CHECK((a->bad_msg == NULL) == (b->bad_msg == NULL));
		if (a->bad_msg && b->bad_msg)
			CHECK_STR(b->bad_msg, a->bad_msg);
		CHECK((a->abbrevs == NULL) == (b->abbrevs == NULL));
		if (!a->abbrevs || !b->abbrevs)
			continue;
		CHECK_EQ_U(b->abbrevs->off, a->abbrevs->off);
		CHECK_EQ_U(b->abbrevs->asz, a->abbrevs->asz);
		CHECK_EQ_U(b->abbrevs->osz, a->abbrevs->osz);
		CHECK_EQ_U(b->abbrevs->n, a->abbrevs->n);
		CHECK_STR(b->name, "cu");
	}
	CHECK(dw_unit_at(f[0], 0)->bad && dw_unit_at(f[0], 2)->bad && !dw_unit_at(f[0], 1)->bad);
	CHECK_EQ_U(dw_unit_at(f[1], 1)->abbrevs->asz, 8);
	dw_file_free(f[0]);
	dw_file_free(f[1]);
	mem_free(ab);
	mem_free(in);
}

/*
 * A strict filter (the encoder's) turns the read of an attribute it does
 * not keep into an abort in checking builds (BTFC_CHECK_FILTER: the
 * sanitizer builds), so a reader missing from the attribute list shows
 * in the suite instead of reading nothing.
 */
TEST(decode_filtered_strict_reads)
{
	static const uint16_t keep[] = { DW_AT_name, DW_AT_type, DW_AT_byte_size,
					 DW_AT_data_member_location };
	static struct dw_die die;
	struct dw_filter *fl = dw_filter_new(keep, sizeof(keep) / sizeof(keep[0]));
	struct dw_file *f;
	struct dw_cursor c;
	struct diag d;
	int status = 0;
	pid_t pid;

	REQUIRE(fl != NULL);
	dw_filter_strict(fl);
	REQUIRE((f = open_secs(info_strp, sizeof(info_strp), abbrev_strp, sizeof(abbrev_strp),
			       str_strp, sizeof(str_strp), false, &d)) != NULL);
	REQUIRE(dw_cursor_init(&c, f, dw_unit_at(f, 0), &d) == 0);
	REQUIRE(dw_next_filtered(&c, &die, want_all, NULL, fl) == 1);
	REQUIRE(dw_next_filtered(&c, &die, want_all, NULL, fl) == 1);	/* the struct */
	CHECK_STR(dw_name(&die), "s");	/* kept: read as always */
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(2);	/* the abort's message is expected */
		(void)dw_attr(&die, DW_AT_decl_line);	/* not kept */
		_exit(0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
#ifdef BTFC_CHECK_FILTER
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#else
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
#endif
	dw_filter_free(fl);
	dw_file_free(f);
}

/* dw_file_open_lazy + dw_file_index_more: the units of the full index, in steps. */
TEST(dwarf_lazy_index_same_as_full)
{
	enum { NU = 9 };
	const size_t ulen = sizeof(info);
	uint8_t *in = mem_zalloc(NU * ulen);
	struct dw_sections s = { 0 };
	struct dw_file *full = NULL, *lazy = NULL;
	struct diag d;
	size_t i, steps = 0;
	int r;

	REQUIRE(in);
	for (i = 0; i < NU; i++) {
		memcpy(in + i * ulen, info, ulen);
		in[i * ulen] = (uint8_t)(ulen - 4);
	}
	s.info.p = in;
	s.info.len = NU * ulen;
	s.abbrev.p = abbrev;
	s.abbrev.len = sizeof(abbrev);
	diag_clear(&d);
	REQUIRE(dw_file_open(&full, "mem", &s, false, NULL, 1, &d) == 0);
	REQUIRE(dw_file_open_lazy(&lazy, "mem", &s, false, NULL, &d) == 0);
	CHECK_EQ_U(dw_nunits(lazy), 0);
	while ((r = dw_file_index_more(lazy, 1 + steps, &d)) > 0)
		steps++;
	CHECK(r == 0);
	CHECK_EQ_U(steps, 4);	/* 1 + 2 + 3 + 3 of 4 asked */
	REQUIRE(dw_nunits(lazy) == NU && dw_nunits(full) == NU);
	for (i = 0; i < NU; i++) {
		const struct dw_unit *a = dw_unit_at(full, i), *b = dw_unit_at(lazy, i);

		CHECK_EQ_U(b->off, a->off);
		CHECK_EQ_U(b->end, a->end);
		CHECK_EQ_U(b->die_off, a->die_off);
		CHECK(b->bad == a->bad);
		CHECK_STR(b->name, "cu");
		CHECK(dw_unit_of(lazy, a->die_off + 4) == b);
	}
	CHECK(dw_file_index_more(lazy, 5, &d) == 0);	/* nothing left */
	dw_file_free(full);
	dw_file_free(lazy);
	mem_free(in);
}
