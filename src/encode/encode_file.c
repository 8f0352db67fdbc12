// SPDX-License-Identifier: GPL-2.0-only
/* Encode one file and write the result (raw file or the ELF's .BTF). */
#include <elf.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/mem.h"
#include "btf/distill.h"
#include "encode/encode.h"

/*
 * Measured at -j1 on Debian 6.12's modules (amdgpu.ko, nouveau.ko, i915.ko,
 * mlx5_core.ko, xfs.ko ...; docs/internals.md, Memory): the peak is about
 * 1.2 bytes per byte of DWARF (.debug_info, .debug_types, uncompressed:
 * the merged types, strings, the units in flight) above 17 MiB.
 */
#define EST_FIXED (20ull << 20)
#define EST_PER_DWARF 1.25

/* The uncompressed size a debug section claims (ELF compression header, .zdebug's). */
static uint64_t claimed_size(struct belf *e, size_t i, bool legacy)
{
	bool swap = belf_big_endian(e) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	const struct belf_section *s = belf_section(e, i);
	struct bslice raw;
	struct diag d;
	uint64_t n = 0;
	size_t k;

	diag_clear(&d);
	if (belf_raw(e, i, &raw, &d) || raw.len < 12)
		return s->size;
	if (legacy && !memcmp(raw.p, "ZLIB", 4)) {
		for (k = 4; k < 12; k++)
			n = n << 8 | raw.p[k];
		return n;
	}
	if (!(s->flags & SHF_COMPRESSED))
		return s->size;
	if (belf_class(e) == 32)
		return swap ? bswap32(load32(raw.p + 4)) : load32(raw.p + 4);
	if (raw.len < 24)
		return s->size;
	return swap ? bswap64(load64(raw.p + 8)) : load64(raw.p + 8);
}

uint64_t btf_encode_estimate(const char *path)
{
	struct belf *e;
	struct diag d;
	uint64_t dwarf = 0;
	size_t i;

	diag_clear(&d);
	if (belf_open(&e, path, &d))
		return 0;
	for (i = 1; i < belf_nsections(e); i++) {
		const struct belf_section *s = belf_section(e, i);
		bool legacy = !strcmp(s->name, ".zdebug_info") || !strcmp(s->name, ".zdebug_types");

		if (s->type != SHT_NOBITS &&
		    (legacy || !strcmp(s->name, ".debug_info") || !strcmp(s->name, ".debug_types")))
			dwarf += MIN(claimed_size(e, i, legacy), (uint64_t)1 << 40);
	}
	belf_close(e);
	return EST_FIXED + (uint64_t)((double)dwarf * EST_PER_DWARF);
}

int btf_encode_file(const char *path, const char *out_path, const struct btf *base,
		    const struct enc_opts *o, struct enc_stats *st, struct diag *d)
{
	struct dwarf_input in;
	struct btf *btf = NULL, *dbase = NULL, *dsplit = NULL;
	void *raw = NULL, *rawb = NULL;
	size_t len[2];
	double t0 = clock_now(), t1;
	int err;

	if (o->distilled_base && (!base || out_path))
		return diag_err(d, EINVAL, "%s: a distilled base needs --base and in-place output",
				path);
	enc_phase(o, "read");
	if ((err = (o->slow_paths ? dwarf_input_open_whole : dwarf_input_open)(&in, path,
									     o->jobs ? o->jobs : 1, d)))
		return err;
	t1 = clock_now();
	err = btf_encode(&in, base, o, &btf, st, d);
	st->read += t1 - t0;	/* btf_encode() starts the stats afresh */
	st->serial += t1 - t0;
	t1 = clock_now();
	enc_phase(o, "write");
	if (!err && o->distilled_base) {
		/* .BTF becomes the split on the distilled base, which goes to .BTF.base. */
		err = btf_distill_base(btf, &dbase, &dsplit, d);
		if (!err)
			err = btf_write(dbase, &rawb, &len[1], d);
	}
	if (!err)
		err = btf_write(dsplit ? dsplit : btf, &raw, &len[0], d);
	if (!err && out_path) {
		err = file_write_atomic(out_path, raw, len[0], d);
	} else if (!err) {
		static const char *const names[] = { ".BTF", ".BTF.base" };
		const void *data[] = { raw, rawb };

		err = belf_write_sections(in.elf, path, dsplit ? 2 : 1, names, data, len, d);
	}
	st->write = clock_now() - t1;
	mem_free(raw);
	mem_free(rawb);
	btf_free(dsplit);
	btf_free(dbase);
	btf_free(btf);
	dwarf_input_close(&in);
	return err;
}
