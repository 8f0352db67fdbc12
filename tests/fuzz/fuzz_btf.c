// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF parse (strict and lenient, base and split on a small fixed base),
 * validation with the kernel's rules (kernel and strict modes), the
 * accessors, the raw, JSON and C header dumps, string relayout, and write
 * round trip: a blob that parses must write, re-parse and write the same
 * bytes.
 *
 * Input: a raw BTF blob (either byte order), as `btfc dump` reads.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/diag.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "btf/dump.h"
#include "fuzz_common.h"

static struct btf *base;

static struct btf *make_base(void)
{
	struct btf *b = btf_new(NULL);

	if (!b)
		abort();
	btf_add_int(b, "int", 4, BTF_INT_SIGNED);		/* 1 */
	btf_add_ptr(b, 1);					/* 2 */
	btf_add_struct(b, "s", 8);				/* 3 */
	btf_add_member(b, "a", 1, 0, 0);
	btf_add_member(b, "b", 1, 32, 0);
	btf_add_func_proto(b, 1);				/* 4 */
	btf_add_param(b, "x", 2);
	btf_add_func(b, "f", BTF_FUNC_GLOBAL, 4);		/* 5 */
	btf_add_fwd(b, "u", BTF_KIND_UNION);			/* 6 */
	if (btf_error(b))
		abort();
	return b;
}

/*
 * Output is proportional to claimed sizes (a 4 GiB gap in a struct is
 * 33M lines of "long: 64;", as with libbpf): stop after 1 MiB.
 */
static int null_emit(void *ctx, const char *s, size_t n)
{
	size_t *total = ctx;

	fuzz_touch(s, n);
	*total += n;
	return *total > (1u << 20) ? -EFBIG : 0;
}

/* bpftool's raw text and JSON of every parsed input (lenient ones too). */
static void print_text(const struct btf *b)
{
	struct diag d;
	size_t total;

	total = 0;
	diag_clear(&d);
	fuzz_check_err(btf_dump_raw(b, null_emit, &total, &d), &d);
	total = 0;
	diag_clear(&d);
	fuzz_check_err(btf_dump_json(b, null_emit, &total, &d), &d);
}

static void walk(const struct btf *b)
{
	uint32_t id, n = btf_type_count(b);

	for (id = 0; id < n; id++) {
		const struct btf_type *t = btf_type_by_id(b, id);
		struct btf_type *m;
		struct btf_field_iter it;
		uint32_t *p;

		if (!t)
			__builtin_trap();	/* every id below the count resolves */
		fuzz_touch_str(btf_name(b, t->name_off));
		(void)btf_kind_str(btf_kind(t));
		fuzz_touch(t, btf_type_size(t));
		m = btf_type_mut((struct btf *)b, id);
		if (!m)
			continue;
		btf_field_iter_init(&it, m, BTF_FIELD_IDS);
		while ((p = btf_field_iter_next(&it)))
			(void)btf_type_by_id(b, *p);
		btf_field_iter_init(&it, m, BTF_FIELD_STRS);
		while ((p = btf_field_iter_next(&it)))
			fuzz_touch_str(btf_name(b, *p));
	}
	(void)btf_type_by_id(b, n);
	(void)btf_find_by_name_kind(b, "int", BTF_KIND_INT);
}

static void roundtrip(struct btf *b)
{
	void *out = NULL, *out2 = NULL;
	size_t len, len2;
	struct btf *c = NULL;
	struct diag d;
	int err;

	diag_clear(&d);
	err = btf_write(b, &out, &len, &d);
	fuzz_check_err(err, &d);
	if (err)
		return;
	diag_clear(&d);
	err = btf_parse(out, len, btf_base(b), &c, &d);
	if (err) {
		fprintf(stderr, "written BTF does not parse back: %s\n", d.msg);
		__builtin_trap();
	}
	diag_clear(&d);
	if (btf_write(c, &out2, &len2, &d))
		__builtin_trap();
	if (len != len2 || memcmp(out, out2, len)) {
		fprintf(stderr, "write(parse(write(x))) differs from write(x)\n");
		__builtin_trap();
	}
	mem_free(out);
	mem_free(out2);
	btf_free(c);
}

static void one(const uint8_t *data, size_t size, const struct btf *on)
{
	struct btf_report rep = { .max = 64 };
	struct btf *b = NULL;
	struct diag d;
	int err;

	diag_clear(&d);
	fuzz_check_diag(&d);
	err = btf_validate(data, size, on, 0, &rep, &d);
	fuzz_check_err(err, &d);
	btf_report_free(&rep);
	memset(&rep, 0, sizeof(rep));
	diag_clear(&d);
	err = btf_validate(data, size, on, BTF_VALIDATE_STRICT, &rep, &d);
	fuzz_check_err(err, &d);
	btf_report_free(&rep);

	diag_clear(&d);
	err = btf_parse(data, size, on, &b, &d);
	fuzz_check_err(err, &d);
	if (!err) {
		walk(b);
		print_text(b);
		roundtrip(b);
		diag_clear(&d);
		{
			size_t total = 0;

			fuzz_check_err(btf_dump_c(b, null_emit, &total, &d), &d);
		}
		diag_clear(&d);
		fuzz_check_err(btf_strings_relayout(b, &d), &d);
		btf_free(b);
		return;
	}
	/* Lenient parse: dangling ids and names allowed; readers must cope. */
	diag_clear(&d);
	err = btf_parse_flags(data, size, on, BTF_PARSE_LENIENT | BTF_PARSE_NO_STR_INDEX, &b, &d);
	fuzz_check_err(err, &d);
	if (!err) {
		walk(b);
		print_text(b);
		btf_free(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btf_header h;
	struct diag d;
	bool swapped;

	if (!base)
		base = make_base();
	diag_clear(&d);
	fuzz_check_err(btf_parse_header(data, size, &h, &swapped, &d), &d);
	one(data, size, NULL);
	one(data, size, base);
	return 0;
}
