// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel validation rules: every malformed case of docs/btf.md 7.1-7.5,
 * built by hand, with the verdict expected in kernel mode (what the kernel
 * checks on vmlinux/module BTF) and in strict mode (user BTF).
 */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

#include "base/hash.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "btf/btf_internal.h"

#define K 0u
#define S BTF_VALIDATE_STRICT
#define ENOTSUPP_ 524

/*
 * BTFC_VALIDATE_BLOBS=DIR: also write every standalone blob validated here
 * to DIR/<content hash>.btf, for tests/t_kernel.sh to load into the
 * running kernel (BPF_BTF_LOAD) and compare with `btfc verify --strict`.
 */
static void dump_blob(const void *blob, size_t len)
{
	const char *dir = getenv("BTFC_VALIDATE_BLOBS");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%016llx.btf", dir,
		 (unsigned long long)hash_bytes(blob, len));
	f = fopen(path, "wb");
	if (!f)
		return;
	if (fwrite(blob, 1, len, f) != len)
		fprintf(stderr, "    cannot write %s\n", path);
	fclose(f);
}

/* Validate a blob; check errno and (when want != 0) that msg has sub. */
static int vblob(const void *blob, size_t len, const struct btf *base, unsigned flags,
		 int want, const char *sub)
{
	struct diag d = { 0 };
	struct btf_report rep = { 0 };
	int err = btf_validate(blob, len, base, flags, &rep, &d);
	int ok = err == want && (!want || !sub || strstr(d.msg, sub));

	if (!base)
		dump_blob(blob, len);

	if (!ok)
		fprintf(stderr, "    validate(%s): got %d \"%s\", want %d \"%s\"\n",
			flags ? "strict" : "kernel", err, d.msg, want, sub ? sub : "");
	if (want && (rep.n < 1 || rep.items[0].err != -want))
		ok = 0;
	btf_report_free(&rep);
	return ok;
}

static int vb(struct btf *b, unsigned flags, int want, const char *sub)
{
	struct diag d = { 0 };
	void *blob;
	size_t len;
	int ok;

	if (btf_write(b, &blob, &len, &d))
		return 0;
	ok = vblob(blob, len, b->base, flags, want, sub);
	mem_free(blob);
	return ok;
}

/* Both modes: kernel expects wk, strict expects ws. */
#define V2(b, wk, sk, ws, ss)                 \
	do {                                    \
		CHECK(vb(b, K, wk, sk));        \
		CHECK(vb(b, S, ws, ss));        \
	} while (0)
#define VBOTH(b, w, s) V2(b, w, s, w, s)

/* Raw record: header fields then n trailing words. */
static int raw(struct btf *b, const char *name, unsigned kind, unsigned kflag, unsigned vlen,
	       uint32_t size_type, int n, ...)
{
	uint32_t w[32];
	va_list ap;
	int i;

	w[0] = name ? (uint32_t)btf_add_str(b, name) : 0;
	w[1] = BTF_INFO_ENC(kind, kflag, vlen);
	w[2] = size_type;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		w[3 + i] = va_arg(ap, uint32_t);
	va_end(ap);
	return btf_add_raw(b, (struct btf_type *)w, (3 + n) * 4);
}

static struct btf *with_int(void)
{
	struct btf *b = btf_new(NULL);

	if (b)
		btf_add_int(b, "int", 4, BTF_INT_SIGNED);	/* id 1 */
	return b;
}

static uint8_t *int_blob(size_t *len)
{
	struct btf *b = with_int();
	struct diag d = { 0 };
	void *blob = NULL;

	if (b)
		btf_write(b, &blob, len, &d);
	btf_free(b);
	return blob;
}

/* ---- 7.1 header and sections ---- */

TEST(validate_header_cases)
{
	size_t len;
	uint8_t *p = int_blob(&len), *q;
	uint32_t tl, sl;

	REQUIRE(p);
	tl = load32(p + 12);
	sl = load32(p + 20);
	CHECK(vblob(p, len, NULL, K, 0, NULL));
	CHECK(vblob(p, len, NULL, S, 0, NULL));
	CHECK(vblob(p, 7, NULL, K, -EINVAL, "hdr_len not found"));		/* H1 */
	store32(p + 4, (uint32_t)len + 1);
	CHECK(vblob(p, len, NULL, K, -EINVAL, "btf_header not found"));	/* H2 */
	store32(p + 4, 24);
	store16(p, 0x1234);
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Invalid magic"));		/* H4 */
	store16(p, BTF_MAGIC);
	p[2] = 2;
	CHECK(vblob(p, len, NULL, K, -ENOTSUPP_, "Unsupported version"));	/* H5 */
	p[2] = 1;
	p[3] = 1;
	CHECK(vblob(p, len, NULL, K, -ENOTSUPP_, "Unsupported flags"));	/* H6 */
	p[3] = 0;
	store32(p + 4, 16);
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Unsupported section found"));	/* H10 */
	store32(p + 4, 24);
	CHECK(vblob(p, len + 0, NULL, K, 0, NULL));
	store32(p + 16, tl - 4);
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Section overlap found"));	/* H14 */
	store32(p + 16, tl);
	store32(p + 8, 2);
	store32(p + 16, tl + 2);
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Unsupported section found"));	/* H15 */
	store32(p + 8, 0);
	store32(p + 16, tl);
	CHECK(vblob(p, 24, NULL, K, -EINVAL, "No data"));			/* H17 */

	/* Bigger buffers for gap / trailing / header-length variants. */
	q = mem_zalloc(len + 64);
	REQUIRE(q);
	memcpy(q, p, len);
	CHECK(vblob(q, len + 1, NULL, K, -EINVAL, "Unsupported section found"));	/* H12 */
	/* H11: 4-byte gap between types and strings. */
	memmove(q + 24 + tl + 4, q + 24 + tl, sl);
	memset(q + 24 + tl, 0, 4);
	store32(q + 16, tl + 4);
	CHECK(vblob(q, len + 4, NULL, K, -EINVAL, "Unsupported section found"));
	/* H7 / H8 / H9 / H20: longer headers. */
	memset(q, 0, len + 64);
	memcpy(q, p, 24);
	memcpy(q + 32, p + 24, len - 24);
	store32(q + 4, 32);
	CHECK(vblob(q, len + 8, NULL, K, 0, NULL));				/* H7 */
	store32(q + 28, 4);
	CHECK(vblob(q, len + 8, NULL, K, -E2BIG, "Unsupported btf_header"));	/* H8 */
	memset(q, 0, len + 64);
	memcpy(q, p, 24);
	memcpy(q + 28, p + 24, len - 24);
	store32(q + 4, 28);
	CHECK(vblob(q, len + 4, NULL, K, 0, NULL));				/* H9 */
	memset(q, 0, len + 64);
	memcpy(q, p, 24);
	memcpy(q + 44, p + 24, len - 24);
	store32(q + 4, 44);
	q[40] = 1;
	CHECK(vblob(q, len + 20, NULL, K, -E2BIG, "Unsupported btf_header"));	/* H20 */
	/* H13: strings first, then types. */
	memset(q, 0, len + 64);
	memcpy(q, p, 24);
	memcpy(q + 24, p + 24 + tl, sl);
	memcpy(q + 24 + 8, p + 24, tl);	/* sl <= 8 here: pad strings to 8 */
	REQUIRE(sl <= 8);
	store32(q + 8, 8);
	store32(q + 16, 0);
	store32(q + 20, 8);
	CHECK(vblob(q, 24 + 8 + tl, NULL, K, -EINVAL, NULL));
	/* H16: base BTF without types. */
	memset(q, 0, len + 64);
	memcpy(q, p, 24);
	memcpy(q + 24, p + 24 + tl, sl);
	store32(q + 12, 0);
	store32(q + 16, 0);
	CHECK(vblob(q, 24 + sl, NULL, K, -EINVAL, "No type found"));
	mem_free(q);
	mem_free(p);
}

TEST(validate_size_limit_strict_only)
{
	size_t len;
	uint8_t *p = int_blob(&len), *big;
	size_t n = 16 * 1024 * 1024 + 1;

	REQUIRE(p);
	big = mem_zalloc(n);
	REQUIRE(big);
	memcpy(big, p, len);
	CHECK(vblob(big, n, NULL, S, -E2BIG, "exceeds"));			/* H18 */
	CHECK(vblob(big, n, NULL, K, -EINVAL, "Unsupported section found"));
	mem_free(big);
	mem_free(p);
}

/* ---- 7.2 strings and names ---- */

TEST(validate_string_section)
{
	size_t len;
	uint8_t *p = int_blob(&len);

	REQUIRE(p);
	p[len - 1] = 'x';
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Invalid string section"));	/* S1 */
	p[len - 1] = 0;
	p[24 + load32(p + 12)] = 'x';
	CHECK(vblob(p, len, NULL, K, -EINVAL, "Invalid string section"));	/* S2 */
	mem_free(p);
}

TEST(validate_split_with_empty_strings)
{
	struct btf *base = with_int(), *split;

	REQUIRE(base);
	split = btf_new(base);
	REQUIRE(split);
	btf_add_ptr(split, 1);
	btf_add_typedef(split, "int", 2);	/* the name comes from the base */
	CHECK_EQ_U(btf_strs_len(split), 0);
	VBOTH(split, 0, NULL);							/* S3 */
	btf_free(split);
	split = btf_new(base);
	raw(split, NULL, BTF_KIND_PTR, 0, 0, 0x100000, 0);
	V2(split, -EINVAL, "Invalid type_id", -EINVAL, "Invalid type_id");
	btf_free(split);
	btf_free(base);
}

TEST(validate_names)
{
	struct btf *b;
	char longname[600];

	b = with_int();
	REQUIRE(b);
	raw(b, NULL, BTF_KIND_TYPEDEF, 0, 0, 1, 0);
	/* S4: patch the name offset beyond the strings */
	btf_type_mut(b, 2)->name_off = 1000;
	VBOTH(b, -EINVAL, "Invalid name_offset:1000");
	/* S5: the middle of "int" is "nt", a fine identifier */
	btf_type_mut(b, 2)->name_off = btf_type_by_id(b, 1)->name_off + 1;
	VBOTH(b, 0, NULL);
	btf_free(b);

	b = with_int();
	btf_add_struct(b, "1abc", 0);						/* S6 */
	VBOTH(b, -EINVAL, "Invalid name");
	btf_free(b);
	b = with_int();
	btf_add_struct(b, "a-b", 0);
	VBOTH(b, -EINVAL, "Invalid name");
	btf_free(b);
	b = with_int();
	btf_add_struct(b, ".abc", 0);
	VBOTH(b, 0, NULL);
	btf_free(b);

	memset(longname, 'a', sizeof(longname));				/* S7 */
	longname[512] = 0;
	b = with_int();
	btf_add_struct(b, longname, 0);
	VBOTH(b, 0, NULL);
	btf_free(b);
	longname[512] = 'a';
	longname[513] = 0;
	b = with_int();
	btf_add_struct(b, longname, 0);
	VBOTH(b, -EINVAL, "Invalid name");
	btf_free(b);

	b = btf_new(NULL);							/* S8 */
	btf_add_int(b, "1nt", 4, 0);
	btf_add_float(b, "x y", 8);
	VBOTH(b, 0, NULL);
	btf_free(b);

	b = with_int();								/* S9 */
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, "my sec!", 4);
	btf_add_secinfo(b, 2, 0, 4);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, "my\tsec", 4);
	btf_add_secinfo(b, 2, 0, 4);
	VBOTH(b, -EINVAL, "Invalid name");
	btf_free(b);

	b = with_int();								/* S10 */
	raw(b, NULL, BTF_KIND_FWD, 0, 0, 0, 0);
	VBOTH(b, -EINVAL, "[2] FWD Invalid name");
	btf_free(b);
	b = with_int();
	raw(b, NULL, BTF_KIND_TYPEDEF, 0, 0, 1, 0);
	VBOTH(b, -EINVAL, "[2] TYPEDEF Invalid name");
	btf_free(b);
	b = with_int();
	raw(b, NULL, BTF_KIND_VAR, 0, 0, 1, 1, 0);
	VBOTH(b, -EINVAL, "[2] VAR Invalid name");
	btf_free(b);

	b = with_int();								/* S11 */
	raw(b, "c", BTF_KIND_CONST, 0, 0, 1, 0);
	VBOTH(b, -EINVAL, "[2] CONST Invalid name");
	btf_free(b);
	b = with_int();
	raw(b, "a", BTF_KIND_ARRAY, 0, 0, 0, 3, 1, 1, 2);
	VBOTH(b, -EINVAL, "[2] ARRAY Invalid name");
	btf_free(b);

	b = with_int();								/* S12 */
	raw(b, "e", BTF_KIND_ENUM, 0, 1, 4, 2, 0, 5);
	VBOTH(b, -EINVAL, "value #0: Invalid name");
	btf_free(b);

	b = with_int();								/* S13 */
	raw(b, NULL, BTF_KIND_DECL_TAG, 0, 0, 1, 1, (uint32_t)-1);
	VBOTH(b, -EINVAL, "Invalid value");
	btf_free(b);
	b = with_int();
	raw(b, NULL, BTF_KIND_TYPE_TAG, 0, 0, 1, 0);
	VBOTH(b, -EINVAL, "Invalid name");
	btf_free(b);

	b = with_int();								/* S14 */
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_member(b, "x", 1, 32, 0);
	btf_add_func_proto(b, 0);
	btf_add_func(b, "f", 0, 3);
	btf_add_func(b, "f", 0, 3);
	VBOTH(b, 0, NULL);
	btf_free(b);
}

/* ---- 7.3 per-kind meta rules ---- */

TEST(validate_meta_info_and_kind)
{
	struct btf *b = with_int();
	char past[32];

	REQUIRE(b);
	btf_type_mut(b, 1)->info |= 1u << 16;					/* M1 */
	VBOTH(b, -EINVAL, "Invalid btf_info:1010000");
	btf_free(b);
	b = with_int();
	raw(b, NULL, NR_BTF_KINDS, 0, 0, 0, 0);					/* M2 */
	snprintf(past, sizeof(past), "Invalid kind:%u", NR_BTF_KINDS);	/* the first past the table */
	VBOTH(b, -EINVAL, past);
	btf_free(b);
	b = with_int();
	raw(b, NULL, 0, 0, 0, 0, 0);
	VBOTH(b, -EINVAL, "Invalid kind:0");
	btf_free(b);
	b = with_int();
	btf_type_mut(b, 1)->info |= 1u << 31;					/* M3 */
	VBOTH(b, -EINVAL, "kind_flag");
	btf_free(b);
}

TEST(validate_meta_int)
{
	struct btf *b = btf_new(NULL);

	REQUIRE(b);
	raw(b, "i", BTF_KIND_INT, 0, 0, 4, 1, (3u << 24) | 32);			/* M4 */
	VBOTH(b, -ENOTSUPP_, "Unsupported encoding");
	btf_free(b);
	b = btf_new(NULL);
	raw(b, "i", BTF_KIND_INT, 0, 0, 4, 1, 33);				/* M5 */
	VBOTH(b, -EINVAL, "nr_bits exceeds type_size");
	btf_free(b);
	b = btf_new(NULL);
	raw(b, "i", BTF_KIND_INT, 0, 0, 16, 1, (100u << 16) | 100);
	VBOTH(b, -EINVAL, "nr_bits exceeds 128");
	btf_free(b);
	b = btf_new(NULL);
	raw(b, "i", BTF_KIND_INT, 0, 0, 4, 1, (1u << 28) | 32);
	VBOTH(b, -EINVAL, "Invalid int_data");
	btf_free(b);
	b = btf_new(NULL);							/* M6 */
	raw(b, "i128", BTF_KIND_INT, 0, 0, 16, 1, 128);
	raw(b, "bool", BTF_KIND_INT, 0, 0, 1, 1, (4u << 24) | 8);
	raw(b, "legacy", BTF_KIND_INT, 0, 0, 4, 1, (2u << 16) | 8);
	VBOTH(b, 0, NULL);
	btf_free(b);
}

TEST(validate_meta_array_struct_enum)
{
	struct btf *b;

	b = with_int();								/* M7 */
	raw(b, NULL, BTF_KIND_ARRAY, 0, 0, 4, 3, 1, 1, 2);
	VBOTH(b, -EINVAL, "size != 0");
	btf_free(b);
	b = with_int();
	raw(b, NULL, BTF_KIND_ARRAY, 0, 0, 0, 3, 0, 1, 2);
	VBOTH(b, -EINVAL, "Invalid elem");
	btf_free(b);
	b = with_int();
	raw(b, NULL, BTF_KIND_ARRAY, 0, 0, 0, 3, 1, 0, 2);
	VBOTH(b, -EINVAL, "Invalid index");
	btf_free(b);

	b = with_int();								/* M8 */
	raw(b, "u", BTF_KIND_UNION, 0, 1, 8, 3, 0, 1, 32);
	VBOTH(b, -EINVAL, "Invalid member bits_offset");
	btf_free(b);
	b = with_int();								/* M9 */
	raw(b, "s", BTF_KIND_STRUCT, 0, 2, 8, 6, 0, 1, 32, 0, 1, 0);
	VBOTH(b, -EINVAL, "Invalid member bits_offset");
	btf_free(b);
	b = with_int();								/* M10 */
	raw(b, "s", BTF_KIND_STRUCT, 0, 1, 4, 3, 0, 1, 40);
	VBOTH(b, -EINVAL, "Member bits_offset exceeds its struct size");
	btf_free(b);
	b = with_int();								/* M11 */
	raw(b, "s", BTF_KIND_STRUCT, 0, 2, 8, 6, 0, 1, 0, 0, 1, 16);
	V2(b, 0, NULL, 0, NULL);
	btf_free(b);

	b = with_int();								/* M12 */
	btf_type_mut(b, btf_add_enum(b, "e", 4))->size = 3;
	VBOTH(b, -EINVAL, "Unexpected size: 3");
	btf_free(b);
	b = with_int();
	raw(b, "e", BTF_KIND_ENUM, 0, 0, 16, 0);
	VBOTH(b, -EINVAL, "Unexpected size: 16");
	btf_free(b);
	b = with_int();								/* M13 */
	btf_add_enum(b, "fwd_enum", 4);
	btf_add_enum(b, "e8", 8);
	btf_add_enum_value(b, "A", 1);
	btf_add_enum64(b, "e64", 8, true);
	btf_add_enum64_value(b, "B", (uint64_t)-5);
	VBOTH(b, 0, NULL);
	btf_free(b);
}

TEST(validate_meta_fwd_func_var_datasec_float_tags)
{
	struct btf *b;

	b = with_int();								/* M14 */
	raw(b, "f", BTF_KIND_FWD, 0, 0, 1, 0);
	VBOTH(b, -EINVAL, "type != 0");
	btf_free(b);
	b = with_int();								/* M15 */
	btf_add_func_proto(b, 0);
	btf_add_func(b, "f", BTF_FUNC_EXTERN, 2);
	VBOTH(b, -EINVAL, "Invalid func linkage");
	btf_free(b);
	b = with_int();								/* M16 */
	btf_add_func_proto(b, 0);
	raw(b, "f", BTF_KIND_FUNC, 1, 0, 2, 0);
	VBOTH(b, -EINVAL, "kind_flag");
	btf_free(b);
	b = with_int();								/* M17 */
	btf_add_var(b, "v", BTF_VAR_GLOBAL_EXTERN, 1);
	VBOTH(b, -EINVAL, "Linkage not supported");
	btf_free(b);
	b = with_int();								/* M18 */
	btf_add_var(b, "v", 0, 0);
	VBOTH(b, -EINVAL, "Invalid type_id");
	btf_free(b);
	b = with_int();								/* M19 */
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, ".data", 0);
	VBOTH(b, -EINVAL, "size == 0");
	btf_free(b);
	b = with_int();								/* M20 */
	btf_add_var(b, "v", 0, 1);
	btf_add_var(b, "w", 0, 1);
	btf_add_datasec(b, ".data", 8);
	btf_add_secinfo(b, 2, 0, 4);
	btf_add_secinfo(b, 3, 2, 4);
	VBOTH(b, -EINVAL, "Invalid offset");
	btf_free(b);
	b = with_int();
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, ".data", 8);
	btf_add_secinfo(b, 2, 8, 4);
	VBOTH(b, -EINVAL, "Invalid offset");
	btf_free(b);
	b = with_int();
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, ".data", 8);
	btf_add_secinfo(b, 2, 0, 0);
	VBOTH(b, -EINVAL, "Invalid size");
	btf_free(b);
	b = with_int();
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, ".data", 8);
	btf_add_secinfo(b, 2, 6, 4);
	VBOTH(b, -EINVAL, "Invalid offset+size");
	btf_free(b);
	b = with_int();								/* M21 */
	btf_add_datasec(b, ".empty", 4);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();								/* M22 */
	raw(b, "ld", BTF_KIND_FLOAT, 0, 0, 10, 0);
	VBOTH(b, -EINVAL, "Invalid type_size");
	btf_free(b);
	b = with_int();								/* M23 */
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 0, 0);
	raw(b, "t", BTF_KIND_DECL_TAG, 0, 0, 2, 1, (uint32_t)-2);
	VBOTH(b, -EINVAL, "Invalid component_idx");
	btf_free(b);
	b = with_int();								/* M24 */
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 0, 0);
	raw(b, "t", BTF_KIND_DECL_TAG, 1, 0, 2, 1, (uint32_t)-1);
	raw(b, "user", BTF_KIND_TYPE_TAG, 1, 0, 1, 0);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();								/* M25 */
	btf_add_ptr(b, 0x100000);
	VBOTH(b, -EINVAL, "Invalid type_id: 1048576");
	btf_free(b);
}

TEST(validate_meta_truncated_record)
{
	struct btf *b = with_int();
	struct diag d = { 0 };
	uint8_t *blob;
	size_t len;

	REQUIRE(b);
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 0, 0);
	REQUIRE(btf_write(b, (void **)&blob, &len, &d) == 0);
	/* M26: claim 2 members; the type section stays as is. */
	store32(blob + 24 + 16 + 4, BTF_INFO_ENC(BTF_KIND_STRUCT, 0, 2));
	CHECK(vblob(blob, len, NULL, K, -EINVAL, "meta_left"));
	mem_free(blob);
	btf_free(b);
}

/* ---- 7.4 resolve-phase rules: strict only, kernel mode accepts ---- */

TEST(validate_resolve_references_and_loops)
{
	struct btf *b;
	int i;

	b = with_int();								/* R1 */
	btf_add_ptr(b, 99999);
	V2(b, 0, NULL, -EINVAL, "[2] PTR Invalid type_id");
	btf_free(b);
	b = with_int();								/* R2 */
	btf_add_const(b, 3);
	btf_add_volatile(b, 2);
	V2(b, -ELOOP, "Max chain length or cycle detected", -EEXIST, "Loop detected");
	btf_free(b);
	b = with_int();								/* R3 */
	btf_add_ptr(b, 3);
	btf_add_const(b, 2);
	V2(b, 0, NULL, -EEXIST, "Loop detected");
	btf_free(b);
	b = with_int();								/* R4 */
	btf_add_typedef(b, "t", 2);
	V2(b, -ELOOP, "cycle", -EEXIST, "Loop detected");
	btf_free(b);
	b = with_int();								/* R5 */
	btf_add_struct(b, "A", 4);
	btf_add_member(b, "a", 2, 0, 0);
	V2(b, 0, NULL, -EEXIST, "Loop detected");
	btf_free(b);
	b = with_int();
	btf_add_struct(b, "A", 8);
	btf_add_member(b, "a", 3, 0, 0);
	btf_add_ptr(b, 2);
	VBOTH(b, 0, NULL);
	btf_free(b);

	/* R6 / T3: typedef chains with increasing ids. */
	b = with_int();
	for (i = 0; i < 32; i++)
		btf_add_typedef(b, "t", i < 31 ? 3 + i : 1);	/* ids 2..33, each to the next */
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();
	for (i = 0; i < 33; i++)
		btf_add_const(b, i < 32 ? 3 + i : 1);
	V2(b, -ELOOP, "Max chain length", -E2BIG, "Exceeded max resolving depth:32");
	btf_free(b);
	/* Decreasing ids: each chain stops at an already checked/resolved id. */
	b = with_int();
	for (i = 0; i < 33; i++)
		btf_add_typedef(b, "t", 1 + i);
	VBOTH(b, 0, NULL);
	btf_free(b);
}

TEST(validate_resolve_member_placement)
{
	struct btf *b;

	b = with_int();								/* R7 */
	btf_add_struct(b, "s", 2);
	btf_add_member(b, "x", 1, 0, 0);
	V2(b, 0, NULL, -EINVAL, "Member exceeds struct_size");
	btf_free(b);
	b = with_int();								/* R8 */
	btf_add_ptr(b, 1);
	btf_add_union(b, "u", 4);
	btf_add_member(b, "p", 2, 0, 0);
	V2(b, 0, NULL, -EINVAL, "Member exceeds struct_size");
	btf_free(b);
	b = with_int();								/* R9 */
	btf_add_struct(b, "s", 8);
	raw(b, "s2", BTF_KIND_STRUCT, 1, 1, 8, 3, 0, 1, (33u << 24) | 0);
	V2(b, 0, NULL, -EINVAL, "Invalid member bitfield_size");
	btf_free(b);
	b = with_int();
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "b", 1, 5, 3);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();								/* R10 */
	btf_add_enum64(b, "e", 8, false);
	btf_add_enum64_value(b, "X", 1ULL << 40);
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "b", 2, 0, 40);
	V2(b, 0, NULL, -EINVAL, "Invalid member bitfield_size");
	btf_free(b);
	b = with_int();
	btf_add_enum64(b, "e", 8, false);
	btf_add_enum64_value(b, "X", 1ULL << 40);
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "v", 2, 0, 0);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();								/* R11 */
	btf_add_ptr(b, 1);
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "p", 2, 0, 1);
	V2(b, 0, NULL, -EINVAL, "Invalid member bitfield_size");
	btf_free(b);
	b = with_int();								/* R12 */
	raw(b, "s", BTF_KIND_STRUCT, 1, 1, 8, 3, 0, 1, 5);
	V2(b, 0, NULL, -EINVAL, "Invalid member offset");
	btf_free(b);
	b = with_int();								/* R13 */
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 5, 0);
	V2(b, 0, NULL, -EINVAL, "Member exceeds struct_size");
	btf_free(b);
	b = with_int();								/* R14 */
	btf_add_func_proto(b, 0);
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "f", 2, 0, 0);
	V2(b, 0, NULL, -EINVAL, "Invalid member");
	btf_free(b);
	b = with_int();
	btf_add_fwd(b, "x", BTF_KIND_STRUCT);
	btf_add_struct(b, "s", 8);
	btf_add_member(b, "f", 2, 0, 0);
	V2(b, 0, NULL, -EINVAL, "Invalid member");
	btf_free(b);
}

TEST(validate_resolve_var_array_datasec)
{
	struct btf *b;

	b = with_int();								/* R15 */
	btf_add_fwd(b, "x", BTF_KIND_STRUCT);
	btf_add_var(b, "v", 0, 2);
	V2(b, 0, NULL, -EINVAL, "[3] VAR Invalid type_id");
	btf_free(b);
	b = with_int();								/* R16 */
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_array(b, 2, 1, 4);
	V2(b, 0, NULL, -EINVAL, "Invalid index");
	btf_free(b);
	b = with_int();
	raw(b, "i24", BTF_KIND_INT, 0, 0, 4, 1, 24);
	btf_add_array(b, 2, 1, 4);
	V2(b, 0, NULL, -EINVAL, "Invalid index");
	btf_free(b);
	b = with_int();								/* R17 */
	raw(b, "i24", BTF_KIND_INT, 0, 0, 4, 1, 24);
	btf_add_array(b, 1, 2, 4);
	V2(b, 0, NULL, -EINVAL, "Invalid array of int");
	btf_free(b);
	b = with_int();								/* R18 */
	btf_add_array(b, 1, 1, 0x40000001);
	V2(b, 0, NULL, -EINVAL, "Array size overflows U32_MAX");
	btf_free(b);
	b = with_int();								/* R19 */
	btf_add_datasec(b, ".data", 4);
	btf_add_secinfo(b, 1, 0, 4);
	V2(b, 0, NULL, -EINVAL, "Not a VAR kind member");
	btf_free(b);
	b = with_int();								/* R20 */
	btf_add_var(b, "v", 0, 1);
	btf_add_datasec(b, ".data", 4);
	btf_add_secinfo(b, 2, 0, 2);
	V2(b, 0, NULL, -EINVAL, "Invalid size");
	btf_free(b);
}

TEST(validate_resolve_funcs_and_tags)
{
	struct btf *b;

	b = with_int();								/* R21 */
	btf_add_func(b, "f", 0, 1);
	V2(b, 0, NULL, -EINVAL, "Invalid type_id");
	btf_free(b);
	b = with_int();								/* R22 */
	btf_add_func_proto(b, 1);
	btf_add_param(b, NULL, 1);
	VBOTH(b, 0, NULL);
	btf_add_func(b, "f", 0, 2);
	V2(b, 0, NULL, -EINVAL, "Invalid arg#1");
	btf_free(b);
	b = with_int();								/* R23 */
	btf_add_func_proto(b, 1);
	btf_add_param(b, "a", 0);
	btf_add_param(b, "b", 1);
	V2(b, 0, NULL, -EINVAL, "Invalid arg#1");
	btf_free(b);
	b = with_int();								/* R24 */
	btf_add_func_proto(b, 1);
	btf_add_param(b, "a", 1);
	btf_add_param(b, "rest", 0);
	V2(b, 0, NULL, -EINVAL, "Invalid arg#2");
	btf_free(b);
	b = with_int();								/* R25 */
	btf_add_fwd(b, "x", BTF_KIND_STRUCT);
	btf_add_func_proto(b, 2);
	V2(b, 0, NULL, -EINVAL, "Invalid return type");
	btf_free(b);
	b = with_int();
	btf_add_typedef(b, "v_t", 0);
	btf_add_func_proto(b, 2);
	V2(b, 0, NULL, -EINVAL, "Invalid return type");
	btf_free(b);
	b = with_int();								/* R26 */
	btf_add_decl_tag(b, "t", 1, -1);
	V2(b, 0, NULL, -EINVAL, "Invalid type_id");
	btf_free(b);
	b = with_int();								/* R27 */
	btf_add_struct(b, "s", 4);
	btf_add_member(b, "x", 1, 0, 0);
	btf_add_decl_tag(b, "t", 2, 1);
	V2(b, 0, NULL, -EINVAL, "Invalid component_idx");
	btf_free(b);
	b = with_int();
	btf_add_var(b, "v", 0, 1);
	btf_add_decl_tag(b, "t", 2, 0);
	V2(b, 0, NULL, -EINVAL, "Invalid component_idx");
	btf_free(b);
	b = with_int();								/* R28 */
	btf_add_func_proto(b, 0);
	btf_add_func(b, "f", 0, 2);
	btf_add_ptr(b, 3);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();
	btf_add_ptr(b, 4);
	btf_add_func_proto(b, 0);
	btf_add_func(b, "f", 0, 3);
	V2(b, 0, NULL, -EINVAL, "[2] PTR Invalid type_id");
	btf_free(b);
	b = with_int();								/* R29 */
	btf_add_typedef(b, "v_t", 0);
	btf_add_func_proto(b, 0);
	btf_add_ptr(b, 3);
	VBOTH(b, 0, NULL);
	btf_free(b);
}

/* ---- 7.5 type-tag chains ---- */

TEST(validate_type_tag_order)
{
	struct btf *b;

	b = with_int();								/* T1 */
	btf_add_ptr(b, 3);
	btf_add_const(b, 4);
	btf_add_type_tag(b, "user", 1);
	VBOTH(b, -EINVAL, "Type tags don't precede modifiers");
	btf_free(b);
	b = with_int();								/* T2 */
	btf_add_ptr(b, 3);
	btf_add_type_tag(b, "user", 4);
	btf_add_const(b, 1);
	VBOTH(b, 0, NULL);
	btf_free(b);
	b = with_int();								/* T4 */
	btf_add_const(b, 999);
	V2(b, -EINVAL, "missing type", -EINVAL, "Invalid type_id");
	btf_free(b);
}

TEST(validate_collects_all_meta_findings)
{
	struct btf *b = with_int();
	struct btf_report rep = { .max = 2 };
	struct diag d = { 0 };
	void *blob;
	size_t len;

	REQUIRE(b);
	raw(b, "c", BTF_KIND_CONST, 0, 0, 1, 0);
	raw(b, "ld", BTF_KIND_FLOAT, 0, 0, 10, 0);
	raw(b, "f", BTF_KIND_FWD, 0, 0, 1, 0);
	REQUIRE(btf_write(b, &blob, &len, &d) == 0);
	CHECK(btf_validate(blob, len, NULL, 0, &rep, &d) == -EINVAL);
	CHECK_EQ_U(rep.n, 2);
	CHECK_EQ_U(rep.dropped, 1);
	CHECK_EQ_U(rep.items[0].id, 2);
	CHECK_EQ_U(rep.items[1].id, 3);
	CHECK(strstr(d.msg, "[2] CONST") != NULL);
	btf_report_free(&rep);
	mem_free(blob);
	btf_free(b);
}
