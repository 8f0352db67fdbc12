// SPDX-License-Identifier: GPL-2.0-only
/* Encode one file and write the result (raw file or the ELF's .BTF). */
#include "base/clock.h"
#include "base/file.h"
#include "base/mem.h"
#include "btf/distill.h"
#include "encode/encode.h"

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
