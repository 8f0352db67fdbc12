// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only oracle: run the system libbpf's btf__dedup() on a raw BTF blob
 * (optionally split on a base) and write the raw result.  Never linked into
 * btfc.  Built by `make build/libbpf-oracle` (links -lbpf -lelf -lz).
 *
 * usage: libbpf-oracle [-B BASE] [-t] IN OUT
 *   -B BASE  IN is split BTF on the raw base BTF BASE
 *   -t       print "dedup-seconds N" (btf__dedup alone) on stderr
 *   -n       no dedup (parse + write: canonical re-serialisation)
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *base_path = NULL, *out_path;
	struct btf *base = NULL, *btf;
	int opt, timing = 0, nodedup = 0, err;
	const void *data;
	__u32 size;
	double t0;
	FILE *f;
	char tmp[4096];

	while ((opt = getopt(argc, argv, "B:tn")) != -1) {
		switch (opt) {
		case 'B': base_path = optarg; break;
		case 't': timing = 1; break;
		case 'n': nodedup = 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	out_path = argv[optind + 1];
	if (base_path) {
		base = btf__parse_raw(base_path);
		if (!base) {
			fprintf(stderr, "libbpf-oracle: %s: %s\n", base_path, strerror(errno));
			return 2;
		}
		btf = btf__parse_raw_split(argv[optind], base);
	} else {
		btf = btf__parse_raw(argv[optind]);
	}
	if (!btf) {
		fprintf(stderr, "libbpf-oracle: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	t0 = now();
	if (!nodedup) {
		err = btf__dedup(btf, NULL);
		if (err) {
			fprintf(stderr, "libbpf-oracle: btf__dedup: %s\n", strerror(-err));
			return 1;
		}
	}
	if (timing)
		fprintf(stderr, "dedup-seconds %.3f\n", now() - t0);
	data = btf__raw_data(btf, &size);
	if (!data) {
		fprintf(stderr, "libbpf-oracle: btf__raw_data failed\n");
		return 2;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out_path, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "libbpf-oracle: cannot write %s\n", tmp);
		return 2;
	}
	if (rename(tmp, out_path)) {
		fprintf(stderr, "libbpf-oracle: rename %s: %s\n", out_path, strerror(errno));
		return 2;
	}
	btf__free(btf);
	btf__free(base);
	return 0;
usage:
	fprintf(stderr, "usage: libbpf-oracle [-B BASE] [-t] [-n] IN OUT\n");
	return 2;
}
