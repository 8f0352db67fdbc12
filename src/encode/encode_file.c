// SPDX-License-Identifier: GPL-2.0-only
/* Encode one file and write the result (raw file or the ELF's .BTF). */
#include "base/file.h"
#include "base/mem.h"
#include "encode/encode.h"

int btf_encode_file(const char *path, const char *out_path, const struct btf *base,
		    const struct enc_opts *o, struct enc_stats *st, struct diag *d)
{
	struct dwarf_input in;
	struct btf *btf = NULL;
	void *raw = NULL;
	size_t len;
	int err;

	if ((err = dwarf_input_open(&in, path, d)))
		return err;
	err = btf_encode(&in, base, o, &btf, st, d);
	if (!err)
		err = btf_write(btf, &raw, &len, d);
	if (!err && out_path) {
		err = file_write_atomic(out_path, raw, len, d);
	} else if (!err) {
		static const char *const names[] = { ".BTF" };
		const void *data[] = { raw };

		err = belf_write_sections(in.elf, path, 1, names, data, &len, d);
	}
	mem_free(raw);
	btf_free(btf);
	dwarf_input_close(&in);
	return err;
}
