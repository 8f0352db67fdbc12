// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc dump / verify / convert.
 *
 * `dump --format raw` prints exactly what `bpftool btf dump file F format
 * raw` prints (bpftool v7.1, libbpf 1.1), and `--format json` exactly what
 * `bpftool -j btf dump ...` prints; for split BTF only the split's own
 * types are listed, as bpftool does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "btf/dump.h"
#include "cli/cli.h"

static const char *sname(const struct btf *btf, uint32_t off)
{
	const char *s;

	if (!off)
		return "(anon)";
	s = btf_name(btf, off);
	return s ? s : "(invalid)";
}

static const char *int_enc_str(unsigned enc)
{
	switch (enc) {
	case 0: return "(none)";
	case BTF_INT_SIGNED: return "SIGNED";
	case BTF_INT_CHAR: return "CHAR";
	case BTF_INT_BOOL: return "BOOL";
	default: return "UNKN";
	}
}

static const char *linkage_str(uint32_t l)
{
	switch (l) {
	case 0: return "static";
	case 1: return "global";
	case 2: return "extern";
	default: return "(unknown)";
	}
}

/* ---- raw text ---------------------------------------------------------- */

static void raw_type(FILE *f, const struct btf *btf, uint32_t id, const struct btf_type *t)
{
	unsigned kind = btf_kind(t), vlen = btf_vlen(t), i;

	fprintf(f, "[%u] %s '%s'", id, btf_kind_str(kind), sname(btf, t->name_off));
	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t v = btf_int_word(t);

		fprintf(f, " size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size,
			BTF_INT_OFFSET(v), BTF_INT_BITS(v), int_enc_str(BTF_INT_ENCODING(v)));
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		fprintf(f, " type_id=%u", t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		fprintf(f, " type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type,
			a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);

		fprintf(f, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, m++) {
			uint32_t bsz = btf_member_bitfield_size(t, m);

			fprintf(f, "\n\t'%s' type_id=%u bits_offset=%u", sname(btf, m->name_off),
				m->type, btf_member_bit_offset(t, m));
			if (bsz)
				fprintf(f, " bitfield_size=%u", bsz);
		}
		break;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enums(t);

		fprintf(f, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED",
			t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			if (btf_kflag(t))
				fprintf(f, "\n\t'%s' val=%d", sname(btf, e->name_off), e->val);
			else
				fprintf(f, "\n\t'%s' val=%u", sname(btf, e->name_off), (uint32_t)e->val);
		}
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64s(t);

		fprintf(f, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED",
			t->size, vlen);
		for (i = 0; i < vlen; i++, e++) {
			uint64_t v = btf_enum64_value(e);

			if (btf_kflag(t))
				fprintf(f, "\n\t'%s' val=%lldLL", sname(btf, e->name_off), (long long)v);
			else
				fprintf(f, "\n\t'%s' val=%lluULL", sname(btf, e->name_off),
					(unsigned long long)v);
		}
		break;
	}
	case BTF_KIND_FWD:
		fprintf(f, " fwd_kind=%s", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		fprintf(f, " type_id=%u linkage=%s", t->type, linkage_str(vlen));
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);

		fprintf(f, " ret_type_id=%u vlen=%u", t->type, vlen);
		for (i = 0; i < vlen; i++, p++)
			fprintf(f, "\n\t'%s' type_id=%u", sname(btf, p->name_off), p->type);
		break;
	}
	case BTF_KIND_VAR:
		fprintf(f, " type_id=%u, linkage=%s", t->type, linkage_str(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_secinfos(t);

		fprintf(f, " size=%u vlen=%u", t->size, vlen);
		for (i = 0; i < vlen; i++, v++) {
			fprintf(f, "\n\ttype_id=%u offset=%u size=%u", v->type, v->offset, v->size);
			if (v->type < btf_type_count(btf)) {
				const struct btf_type *vt = btf_type_by_id(btf, v->type);

				fprintf(f, " (%s '%s')", btf_kind_str(btf_kind(vt)),
					sname(btf, vt->name_off));
			}
		}
		break;
	}
	case BTF_KIND_FLOAT:
		fprintf(f, " size=%u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		fprintf(f, " type_id=%u component_idx=%d", t->type, btf_decl_tag(t)->component_idx);
		break;
	default:
		break;
	}
	fputc('\n', f);
}

/* ---- JSON (bpftool -j compatible) -------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		switch (*s) {
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\f': fputs("\\f", f); break;
		case '\b': fputs("\\b", f); break;
		case '\\': fputs("\\\\", f); break;
		case '"': fputs("\\\"", f); break;
		default: fputc(*s, f);
		}
	}
	fputc('"', f);
}

static void jkey(FILE *f, const char *k)
{
	fputs(",\"", f);
	fputs(k, f);
	fputs("\":", f);
}

static void ju(FILE *f, const char *k, uint64_t v)
{
	jkey(f, k);
	fprintf(f, "%" PRIu64, v);
}

static void ji(FILE *f, const char *k, int64_t v)
{
	jkey(f, k);
	fprintf(f, "%" PRId64, v);
}

static void js(FILE *f, const char *k, const char *v)
{
	jkey(f, k);
	json_str(f, v);
}

static void json_type(FILE *f, const struct btf *btf, uint32_t id, const struct btf_type *t)
{
	unsigned kind = btf_kind(t), vlen = btf_vlen(t), i;

	fprintf(f, "{\"id\":%u", id);
	js(f, "kind", btf_kind_str(kind));
	js(f, "name", sname(btf, t->name_off));
	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t v = btf_int_word(t);

		ju(f, "size", t->size);
		ju(f, "bits_offset", BTF_INT_OFFSET(v));
		ju(f, "nr_bits", BTF_INT_BITS(v));
		js(f, "encoding", int_enc_str(BTF_INT_ENCODING(v)));
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		ju(f, "type_id", t->type);
		break;
	case BTF_KIND_ARRAY:
		ju(f, "type_id", btf_array(t)->type);
		ju(f, "index_type_id", btf_array(t)->index_type);
		ju(f, "nr_elems", btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);

		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		fputs(",\"members\":[", f);
		for (i = 0; i < vlen; i++, m++) {
			uint32_t bsz = btf_member_bitfield_size(t, m);

			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			json_str(f, sname(btf, m->name_off));
			ju(f, "type_id", m->type);
			ju(f, "bits_offset", btf_member_bit_offset(t, m));
			if (bsz)
				ju(f, "bitfield_size", bsz);
			fputc('}', f);
		}
		fputc(']', f);
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		js(f, "encoding", btf_kflag(t) ? "SIGNED" : "UNSIGNED");
		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		fputs(",\"values\":[", f);
		for (i = 0; i < vlen; i++) {
			uint32_t noff;
			uint64_t v;

			if (kind == BTF_KIND_ENUM) {
				noff = btf_enums(t)[i].name_off;
				/*
				 * bpftool v7.1 prints the s32 value sign-extended even
				 * for unsigned enums; we match its output byte for byte.
				 */
				v = (uint64_t)(int64_t)btf_enums(t)[i].val;
			} else {
				noff = btf_enum64s(t)[i].name_off;
				v = btf_enum64_value(&btf_enum64s(t)[i]);
			}
			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			json_str(f, sname(btf, noff));
			if (btf_kflag(t))
				ji(f, "val", (int64_t)v);
			else
				ju(f, "val", v);
			fputc('}', f);
		}
		fputc(']', f);
		break;
	case BTF_KIND_FWD:
		js(f, "fwd_kind", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		ju(f, "type_id", t->type);
		js(f, "linkage", linkage_str(vlen));
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);

		ju(f, "ret_type_id", t->type);
		ju(f, "vlen", vlen);
		fputs(",\"params\":[", f);
		for (i = 0; i < vlen; i++, p++) {
			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			json_str(f, sname(btf, p->name_off));
			ju(f, "type_id", p->type);
			fputc('}', f);
		}
		fputc(']', f);
		break;
	}
	case BTF_KIND_VAR:
		ju(f, "type_id", t->type);
		js(f, "linkage", linkage_str(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_secinfos(t);

		ju(f, "size", t->size);
		ju(f, "vlen", vlen);
		fputs(",\"vars\":[", f);
		for (i = 0; i < vlen; i++, v++) {
			fprintf(f, "%s{\"type_id\":%u", i ? "," : "", v->type);
			ju(f, "offset", v->offset);
			ju(f, "size", v->size);
			fputc('}', f);
		}
		fputc(']', f);
		break;
	}
	case BTF_KIND_FLOAT:
		ju(f, "size", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		ju(f, "type_id", t->type);
		ji(f, "component_idx", btf_decl_tag(t)->component_idx);
		break;
	default:
		break;
	}
	fputc('}', f);
}

/* ---- commands ---------------------------------------------------------- */

static int c_emit(void *ctx, const char *s, size_t n)
{
	return fwrite(s, 1, n, ctx) == n ? 0 : -EIO;
}

int cmd_dump(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL, *format = "raw", *id_arg = NULL;
	struct btf *base = NULL, *btf = NULL;
	struct diag d = { 0 };
	char *obuf;
	uint32_t id, n;
	int i, err, rc = EXIT_OK;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc dump FILE [--base B] [--format raw|json|c]\n"
			       "       btfc dump id ID [--format raw|json|c]\n"
			       "  FILE: raw BTF, ELF with .BTF, /sys/kernel/btf/NAME, or - (raw BTF on stdin);\n"
			       "  id ID: the kernel's BTF object ID (see btfc list; needs root).\n"
			       "  raw: bpftool's text; json: bpftool -j's (one document); c: a C header.\n"
			       "  Exit status: 0 printed, 2 error.\n");
			return EXIT_OK;
		} else if (!strcmp(argv[i], "id") && !file && !id_arg && i + 1 < argc)
			id_arg = argv[++i];
		else if ((argv[i][0] != '-' || !argv[i][1]) && !file && !id_arg)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "--format") || !strcmp(argv[i], "id"))
			return cli_usage("dump", "'%s' needs an argument", argv[i]);
		else
			return cli_usage("dump", "unexpected argument '%s'", argv[i]);
	}
	if (!file && !id_arg)
		return cli_usage("dump", "no input file");
	if (strcmp(format, "raw") && strcmp(format, "json") && strcmp(format, "c"))
		return cli_usage("dump", "unknown format '%s' (raw, json or c)", format);
	if (id_arg) {
		char *end;
		unsigned long v = strtoul(id_arg, &end, 10);

		if (!*id_arg || *end || v > UINT32_MAX)
			return cli_usage("dump", "'%s' is not a BTF object id", id_arg);
		if (base_path)
			return cli_usage("dump", "--base does not go with id (a module's is vmlinux's)");
		err = cli_btf_load_id((uint32_t)v, &base, &btf, &d);
	} else {
		err = cli_btf_load(file, base_path, &base, &btf, &d);
	}
	if (err) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	obuf = mem_alloc(1 << 16);
	if (obuf)
		setvbuf(stdout, obuf, _IOFBF, 1 << 16);
	n = btf_type_count(btf);
	if (!strcmp(format, "raw")) {
		for (id = btf_start_id(btf); id < n; id++)
			raw_type(stdout, btf, id, btf_type_by_id(btf, id));
	} else if (!strcmp(format, "json")) {
		fputs("{\"types\":[", stdout);
		for (id = btf_start_id(btf); id < n; id++) {
			if (id != btf_start_id(btf))
				fputc(',', stdout);
			json_type(stdout, btf, id, btf_type_by_id(btf, id));
		}
		fputs("]}\n", stdout);
	} else {
		err = btf_dump_c(btf, c_emit, stdout, &d);
		if (err) {
			fflush(stdout);
			cli_fail("%s: %s", file ? file : id_arg, d.msg[0] ? d.msg : strerror(-err));
			rc = EXIT_ERR;
		}
	}
	fflush(stdout);		/* before obuf goes; main() reports a lost write */
	if (obuf)
		setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	mem_free(obuf);
	btf_free(btf);
	btf_free(base);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL;
	struct btf_report rep = { .max = 50 };
	struct btf *base = NULL, *tmp = NULL;
	struct diag d = { 0 };
	unsigned flags = 0;
	bool json = false;
	void *data = NULL;
	size_t len, k;
	int i, err, rc;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "--strict"))
			flags |= BTF_VALIDATE_STRICT;
		else if (!strncmp(argv[i], "--format=", 9) ||
			 (!strcmp(argv[i], "--format") && i + 1 < argc)) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 : argv[++i];

			if (strcmp(f, "json") && strcmp(f, "text"))
				return cli_usage("verify", "--format takes text or json, not '%s'", f);
			json = !strcmp(f, "json");
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc verify FILE [--base B] [--strict] [--format text|json]\n"
			       "  default: the kernel's checks for vmlinux/module BTF;\n"
			       "  --strict: also the user-BTF resolve pass (BPF_BTF_LOAD rules)\n"
			       "  FILE may be - (raw BTF on stdin).  --format json: one document,\n"
			       "  {\"file\", \"mode\", \"ok\", \"findings\": [...], \"more\": N}\n"
			       "  Exit status: 0 valid, 1 findings, 2 error.\n");
			return EXIT_OK;
		} else if ((argv[i][0] != '-' || !argv[i][1]) && !file)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "--format"))
			return cli_usage("verify", "'%s' needs an argument (--format: text or json)",
					 argv[i]);
		else
			return cli_usage("verify", "unexpected argument '%s'", argv[i]);
	}
	if (!file)
		return cli_usage("verify", "no input file");
	if (!base_path)
		base_path = cli_btf_default_base(file);
	if (base_path) {
		/* Load the base through the common path (the file itself is re-read below). */
		err = cli_btf_load(base_path, NULL, &tmp, &base, &d);
		if (err) {
			cli_report(&d, err);
			return EXIT_ERR;
		}
	}
	if ((err = cli_btf_blob(file, &data, &len, &d))) {
		cli_report(&d, err);
		btf_free(base);
		return EXIT_ERR;
	}
	err = btf_validate(data, len, base, flags, &rep, &d);
	if (err == -ENOMEM) {
		cli_report(&d, err);
		rc = EXIT_ERR;
	} else if (json) {
		fputs("{\"file\":", stdout);
		cli_json_str(stdout, file);
		printf(",\"mode\":\"%s\",\"ok\":%s,\"findings\":[",
		       flags & BTF_VALIDATE_STRICT ? "strict" : "kernel", err ? "false" : "true");
		for (k = 0; err && k < rep.n; k++) {
			if (k)
				putchar(',');
			cli_json_str(stdout, rep.items[k].msg);
		}
		printf("],\"more\":%zu}\n", err ? rep.dropped : 0);
		rc = err ? EXIT_DIFF : EXIT_OK;
	} else if (err) {
		for (k = 0; k < rep.n; k++)
			printf("%s: %s\n", file, rep.items[k].msg);
		if (rep.dropped)
			printf("%s: ... %zu more findings\n", file, rep.dropped);
		rc = EXIT_DIFF;
	} else {
		printf("%s: OK (%s mode)\n", file, flags & BTF_VALIDATE_STRICT ? "strict" : "kernel");
		rc = EXIT_OK;
	}
	if (rc == EXIT_DIFF && base_path)
		cli_note("%s is split BTF: findings like these may mean %s is not the base it was "
			 "built on", file, base_path);
	btf_report_free(&rep);
	mem_free(data);
	btf_free(base);
	btf_free(tmp);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL, *outp = NULL, *endian = NULL;
	struct btf *base = NULL, *btf = NULL;
	struct diag d = { 0 };
	void *blob = NULL;
	size_t len;
	int i, err, rc = EXIT_ERR;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			outp = argv[++i];
		else if (!strcmp(argv[i], "--endian") && i + 1 < argc)
			endian = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc convert FILE -o OUT [--base B] [--endian little|big|native]\n"
			       "  parse FILE (raw or ELF .BTF) and write it as a raw blob; FILE may be -\n"
			       "  (raw BTF on stdin), OUT - (stdout).  Exit status: 0 written, 2 error.\n");
			return EXIT_OK;
		} else if ((argv[i][0] != '-' || !argv[i][1]) && !file)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "-o") || !strcmp(argv[i], "--endian"))
			return cli_usage("convert", "'%s' needs an argument", argv[i]);
		else
			return cli_usage("convert", "unexpected argument '%s'", argv[i]);
	}
	if (!file || !outp)
		return cli_usage("convert", "needs FILE and -o OUT");
	if ((err = cli_btf_load(file, base_path, &base, &btf, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	if (endian) {
		if (!strcmp(endian, "little"))
			btf_set_endian(btf, BTF_LITTLE_ENDIAN);
		else if (!strcmp(endian, "big"))
			btf_set_endian(btf, BTF_BIG_ENDIAN);
		else if (!strcmp(endian, "native"))
			btf_set_endian(btf, btf_host_endian());
		else {
			rc = cli_usage("convert", "unknown byte order '%s' (little, big or native)",
				       endian);
			goto out;
		}
	}
	if ((err = btf_write(btf, &blob, &len, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if ((err = file_write_atomic(outp, blob, len, &d))) {
		cli_report(&d, err);
		goto out;
	}
	rc = EXIT_OK;
out:
	mem_free(blob);
	btf_free(btf);
	btf_free(base);
	return rc;
}
