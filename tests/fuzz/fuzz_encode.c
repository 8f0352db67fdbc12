// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder end to end on a fuzzed ELF: dwarf_input_open (ELF, debug
 * sections, relocations, DWARF index), btf_encode (conversion, merge,
 * function policy, dedup) and btf_write.  Output that is produced must
 * parse back and pass the kernel's checks (btf_validate: the encoder
 * degrades or refuses what BTF cannot say, it never writes what the kernel
 * would refuse).  Options vary with the input (compat, floats, enum64,
 * vars, no_dedup, modern consistent_func).
 *
 * Input: an ELF file (seeds: small compiled fixtures).
 */
#include "base/diag.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "encode/encode.h"
#include "fuzz_common.h"

static void quiet_log(void *ctx, const char *line)
{
	(void)ctx;
	fuzz_touch_str(line);
}

/*
 * The walk's fast paths (attribute filter, decode plans, leaf runs,
 * .debug_info read by ranges, lookups in the unit's copy) give what
 * decoding every DIE whole from a relocated copy gives: the same bytes.  Only the slow
 * paths may fail where the fast ones did not: they read every value, the
 * fast ones may skip a bad one.
 */
static void same_without_fast_paths(const char *path, const struct enc_opts *fast, int fast_err,
				    const void *fast_blob, size_t fast_len)
{
	struct enc_opts o = *fast;
	struct dwarf_input in;
	struct enc_stats st;
	struct btf *out = NULL;
	struct diag d;
	void *blob = NULL;
	size_t len = 0;
	int err;

	diag_clear(&d);
	if (dwarf_input_open_whole(&in, path, 1, &d))
		__builtin_trap();	/* it opened a moment ago, by ranges */
	o.slow_paths = true;
	diag_clear(&d);
	err = btf_encode(&in, NULL, &o, &out, &st, &d);
	dwarf_input_close(&in);
	if (!err) {
		diag_clear(&d);
		if (btf_write(out, &blob, &len, &d))
			__builtin_trap();
		btf_free(out);
	}
	if ((fast_err && !err) ||
	    (!fast_err && !err && (len != fast_len || memcmp(blob, fast_blob, len)))) {
		fprintf(stderr, "fast paths: %d (%zu bytes), slow paths: %d (%zu bytes)\n", fast_err,
			fast_len, err, len);
		__builtin_trap();
	}
	mem_free(blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_input in;
	struct enc_opts o;
	struct enc_stats st;
	struct btf *out = NULL, *back = NULL;
	unsigned v = size ? data[size / 2] | (size > 1 ? data[size / 2 - 1] << 8 : 0) : 0;
	char path[64];
	struct diag d;
	void *blob;
	size_t len;
	int fd, err;

	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	diag_clear(&d);
	err = dwarf_input_open(&in, path, 1, &d);
	fuzz_check_err(err, &d);
	if (err) {
		close(fd);
		return 0;
	}
	enc_opts_default(&o);
	o.floats = !(v & 1);
	o.enum64 = !(v & 2);
	o.vars = !(v & 4);
	o.no_dedup = (v & 0x18) == 0x18;
	if (v & 0x20) {
		o.compat = v & 0x100 ? ENC_COMPAT_130 : ENC_COMPAT_131;
		o.consistent_func = o.optimized_func = o.decl_tag_kfuncs = true;
		o.global_vars = v & 0x200;
		o.attributes = v & 0x400;
	}
	o.force = v & 0x40;
	o.seed_units = v & 0x80 ? 1 : 0;	/* strings from a copy of .debug_str */
	o.verbose = 1;
	o.log = quiet_log;
	diag_clear(&d);
	err = btf_encode(&in, NULL, &o, &out, &st, &d);
	fuzz_check_err(err, &d);
	dwarf_input_close(&in);
	if (!err) {
		diag_clear(&d);
		if (btf_write(out, &blob, &len, &d))
			__builtin_trap();
		diag_clear(&d);
		if (btf_parse(blob, len, NULL, &back, &d)) {
			fprintf(stderr, "encoder output does not parse: %s\n", d.msg);
			__builtin_trap();
		}
		btf_free(back);
		diag_clear(&d);
		if (btf_validate(blob, len, NULL, 0, NULL, &d)) {
			fprintf(stderr, "encoder output fails the kernel's checks: %s\n", d.msg);
			__builtin_trap();
		}
		btf_free(out);
	} else {
		blob = NULL;
		len = 0;
	}
	same_without_fast_paths(path, &o, err, blob, len);
	mem_free(blob);
	close(fd);
	return 0;
}
