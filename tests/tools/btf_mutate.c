// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only helper for tests/t_diff.sh and the kernel-loader tests: make
 * variants of a BTF blob.  Linked with libbtfc.a; never part of btfc.
 * Built by `make build/btf-mutate`.
 *
 * usage: btf-mutate [-B BASE] IN OUT shuffle SEED
 *            own types in a random order (ids renumbered, strings re-added
 *            in the new order, so string offsets change too)
 *        btf-mutate [-B BASE] IN OUT member STRUCT IDX DELTA
 *            add DELTA to the bit offset of member IDX of struct STRUCT
 *        btf-mutate [-B BASE] IN OUT enum ENUM IDX DELTA
 *            add DELTA to the value of enumerator IDX of ENUM
 *        btf-mutate [-B BASE] IN OUT param FUNC
 *            give FUNC its own copy of its prototype with parameter 1 of
 *            another INT type ('long int', or 'int' if it already was)
 * STRUCT/ENUM "-" picks the first named own one with two or more elements.
 * Prints the mutated type's id and name on stdout (nothing for shuffle).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "btf/btf.h"
#include "cli/cli.h"

static int die(const char *msg)
{
	fprintf(stderr, "btf-mutate: %s\n", msg);
	return 2;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Own type named name of kind ("-": the first named one with 2+ elements), or 0. */
static uint32_t find_own(const struct btf *btf, const char *name, unsigned kind)
{
	uint32_t id;

	for (id = btf_start_id(btf); id < btf_type_count(btf); id++) {
		const struct btf_type *t = btf_type_by_id(btf, id);
		const char *n = btf_name(btf, t->name_off);

		if (btf_kind(t) != kind || !n)
			continue;
		if (!strcmp(name, "-") ? t->name_off && btf_vlen(t) >= 2 : !strcmp(n, name))
			return id;
	}
	return 0;
}

/* Copy record t of src into dst with strings re-added and own ids mapped by map. */
static int copy_type(struct btf *dst, const struct btf *src, const struct btf_type *t,
		     const uint32_t *map, uint32_t start)
{
	size_t sz = btf_type_size(t);
	uint32_t *w = mem_alloc(sz), *p;
	struct btf_field_iter it;
	int id;

	if (!w)
		return -ENOMEM;
	memcpy(w, t, sz);
	btf_field_iter_init(&it, (struct btf_type *)w, BTF_FIELD_STRS);
	while ((p = btf_field_iter_next(&it))) {
		int64_t off;

		if (!*p)
			continue;
		off = btf_add_str(dst, btf_name(src, *p));
		if (off < 0) {
			mem_free(w);
			return (int)off;
		}
		*p = (uint32_t)off;
	}
	if (map) {
		btf_field_iter_init(&it, (struct btf_type *)w, BTF_FIELD_IDS);
		while ((p = btf_field_iter_next(&it)))
			if (*p >= start && *p < btf_type_count(src))
				*p = map[*p - start];
	}
	id = btf_add_raw(dst, (struct btf_type *)w, sz);
	mem_free(w);
	return id;
}

static int write_out(const struct btf *btf, const char *path)
{
	struct diag d = { 0 };
	void *blob;
	size_t len;
	FILE *f;
	int rc = 0;

	if (btf_write(btf, &blob, &len, &d))
		return die(d.msg);
	f = fopen(path, "wb");
	if (!f || fwrite(blob, 1, len, f) != len)
		rc = die("cannot write output");
	if (f && fclose(f))
		rc = die("cannot write output");
	mem_free(blob);
	return rc;
}

int main(int argc, char **argv)
{
	const char *base_path = NULL, *in, *out, *op;
	struct btf *base = NULL, *btf = NULL, *res = NULL;
	struct diag d = { 0 };
	uint32_t id, start, n, i;
	int rc = 2;

	if (argc > 2 && !strcmp(argv[1], "-B")) {
		base_path = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 4)
		return die("usage: btf-mutate [-B BASE] IN OUT OP [ARGS] (see the source)");
	in = argv[1];
	out = argv[2];
	op = argv[3];
	if (cli_btf_load(in, base_path, &base, &btf, &d))
		return die(d.msg);
	if (base && btf_index_strings(base))
		return die("out of memory");
	start = btf_start_id(btf);
	n = btf_type_count(btf) - start;
	if (!strcmp(op, "shuffle") && argc > 4) {
		uint64_t seed = strtoull(argv[4], NULL, 0);
		uint32_t *perm = mem_array(n + 1, 4), *map = mem_array(n + 1, 4);

		if (!perm || !map)
			return die("out of memory");
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n; i > 1; i--) {
			uint32_t j = (uint32_t)(rng_next(&seed) % i), x = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		for (i = 0; i < n; i++)
			map[perm[i]] = start + i;
		res = btf_new(base);
		if (!res)
			return die("out of memory");
		for (i = 0; i < n; i++)
			if (copy_type(res, btf, btf_type_by_id(btf, start + perm[i]), map, start) < 0)
				return die("shuffle: copy failed");
		mem_free(perm);
		mem_free(map);
		rc = write_out(res, out);
	} else if (!strcmp(op, "member") && argc > 6) {
		unsigned idx = (unsigned)atoi(argv[5]);
		struct btf_type *t;

		if (!(id = find_own(btf, argv[4], BTF_KIND_STRUCT)))
			return die("no such struct");
		t = btf_type_mut(btf, id);
		if (idx >= btf_vlen(t))
			return die("no such member");
		btf_members(t)[idx].offset += (uint32_t)atoi(argv[6]);
		printf("%u %s\n", id, btf_name(btf, btf_type_by_id(btf, id)->name_off));
		rc = write_out(btf, out);
	} else if (!strcmp(op, "enum") && argc > 6) {
		unsigned idx = (unsigned)atoi(argv[5]);
		struct btf_type *t;

		if (!(id = find_own(btf, argv[4], BTF_KIND_ENUM)))
			return die("no such enum");
		t = btf_type_mut(btf, id);
		if (idx >= btf_vlen(t))
			return die("no such enumerator");
		btf_enums(t)[idx].val += atoi(argv[6]);
		printf("%u %s\n", id, btf_name(btf, btf_type_by_id(btf, id)->name_off));
		rc = write_out(btf, out);
	} else if (!strcmp(op, "param") && argc > 4) {
		const struct btf_type *proto;
		uint32_t *w, li, ii;
		size_t sz;
		int pid;

		if (!(id = find_own(btf, argv[4], BTF_KIND_FUNC)))
			return die("no such function");
		proto = btf_type_by_id(btf, btf_type_by_id(btf, id)->type);
		if (!btf_vlen(proto))
			return die("function has no parameters");
		li = (uint32_t)btf_find_by_name_kind(btf, "long int", BTF_KIND_INT);
		ii = (uint32_t)btf_find_by_name_kind(btf, "int", BTF_KIND_INT);
		sz = btf_type_size(proto);
		w = mem_alloc(sz);
		if (!w)
			return die("out of memory");
		memcpy(w, proto, sz);
		btf_params((struct btf_type *)w)[0].type =
			btf_params((struct btf_type *)w)[0].type == li ? ii : li;
		pid = btf_add_raw(btf, (struct btf_type *)w, sz);
		mem_free(w);
		if (pid < 0)
			return die("cannot add prototype");
		btf_type_mut(btf, id)->type = (uint32_t)pid;
		printf("%u %s\n", id, btf_name(btf, btf_type_by_id(btf, id)->name_off));
		rc = write_out(btf, out);
	} else {
		return die("unknown operation or missing arguments");
	}
	btf_free(res);
	btf_free(btf);
	btf_free(base);
	return rc;
}
