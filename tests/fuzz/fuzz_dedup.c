// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dedup of a parsed blob, as `btfc dedup` does it: base BTF alone and
 * split BTF on a small fixed base, with libbpf 1.1 or HEAD semantics
 * (and 2 threads now and then).  The result must write and parse back.
 * Both also in two levels (groups of a few types): the same error or
 * success, never more types, the same bytes on 1 and 2 threads.
 *
 * Input: a raw BTF blob (the same seeds as fuzz_btf).
 */
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "btf/dedup.h"
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
	btf_add_member(b, "b", 2, 64, 0);
	btf_add_fwd(b, "t", BTF_KIND_STRUCT);			/* 4 */
	btf_add_typedef(b, "s_t", 3);				/* 5 */
	if (btf_error(b))
		abort();
	return b;
}

static void one(const uint8_t *data, size_t size, const struct btf *on, unsigned variant)
{
	struct btf_dedup_opts o = { 0 };
	struct btf *b = NULL, *c = NULL;
	void *out = NULL;
	size_t len;
	struct diag d;
	int err;

	diag_clear(&d);
	err = btf_parse(data, size, on, &b, &d);
	fuzz_check_err(err, &d);
	if (err)
		return;
	o.compat = variant & 1 ? BTF_DEDUP_LIBBPF_HEAD : BTF_DEDUP_LIBBPF_1_1;
	o.nr_threads = (variant & 6) == 6 ? 2 : 1;
	o.level_window = (variant >> 3) % 5;	/* small windows of the levelled phase, or 256k */
	diag_clear(&d);
	err = btf_dedup(b, &o, &d);
	fuzz_check_err(err, &d);
	if (!err) {
		diag_clear(&d);
		if (btf_write(b, &out, &len, &d)) {
			fprintf(stderr, "dedup result does not write: %s\n", d.msg);
			__builtin_trap();
		}
		diag_clear(&d);
		if (btf_parse(out, len, on, &c, &d)) {
			fprintf(stderr, "dedup result does not parse: %s\n", d.msg);
			__builtin_trap();
		}
		if (btf_type_count(c) > btf_type_count(b))
			__builtin_trap();
		btf_free(c);
	}
	if (!on) {
		/* the serial reference phase must give the levelled one's result */
		struct btf *s = NULL;
		void *sout = NULL;
		size_t slen;
		int serr;

		diag_clear(&d);
		if (btf_parse(data, size, NULL, &s, &d))
			__builtin_trap();
		o.serial_refs = true;
		diag_clear(&d);
		serr = btf_dedup(s, &o, &d);
		fuzz_check_err(serr, &d);
		if (serr != err) {
			fprintf(stderr, "serial reference phase: error %d, levelled: %d\n", serr, err);
			__builtin_trap();
		}
		if (!err && (btf_write(s, &sout, &slen, &d) || slen != len || memcmp(sout, out, len))) {
			fprintf(stderr, "serial and levelled reference phases differ\n");
			__builtin_trap();
		}
		mem_free(sout);
		btf_free(s);
	}
	/*
	 * The two levels, every few types a group (whatever units the
	 * references allow; split BTF on the same base), on 1 and 2
	 * threads: the one-level run's error or success, never more types,
	 * the same bytes for both thread counts.
	 */
	{
		struct btf *t[2] = { NULL, NULL };
		void *tout[2] = { NULL, NULL };
		size_t tlen[2] = { 0, 0 };
		int terr[2], k;

		for (k = 0; k < 2; k++) {
			struct btf_dedup_opts to = o;

			to.serial_refs = false;
			to.nr_threads = k + 1;
			to.group_types = 1 + (variant >> 4) % 8;
			to.strs_par_min = 1;	/* 2 threads: the string phase's parallel additions */
			diag_clear(&d);
			if (btf_parse(data, size, on, &t[k], &d))
				__builtin_trap();
			diag_clear(&d);
			terr[k] = btf_dedup(t[k], &to, &d);
			fuzz_check_err(terr[k], &d);
			if ((terr[k] != 0) != (err != 0)) {
				fprintf(stderr, "two levels: error %d, one level: %d\n", terr[k], err);
				__builtin_trap();
			}
			if (!terr[k] && (btf_write(t[k], &tout[k], &tlen[k], &d) ||
					 btf_type_count(t[k]) > btf_type_count(b))) {
				fprintf(stderr, "two levels: %u types, one level %u\n",
					btf_type_count(t[k]), btf_type_count(b));
				__builtin_trap();
			}
		}
		if (!err && (tlen[0] != tlen[1] || memcmp(tout[0], tout[1], tlen[0]))) {
			fprintf(stderr, "two levels: output depends on the thread count\n");
			__builtin_trap();
		}
		for (k = 0; k < 2; k++) {
			mem_free(tout[k]);
			btf_free(t[k]);
		}
	}
	mem_free(out);
	btf_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned variant = 0;
	size_t i;

	if (!base)
		base = make_base();
	for (i = 0; i < size && i < 64; i++)
		variant += data[size - 1 - i];
	one(data, size, NULL, variant);
	one(data, size, base, variant >> 1);
	return 0;
}
