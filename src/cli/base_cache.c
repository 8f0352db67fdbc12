// SPDX-License-Identifier: GPL-2.0-only
/*
 * The base cache.  kbuild runs pahole once per module, each time on the
 * same vmlinux, and a one-module run spends about a third of its time on
 * the base alone: checking and indexing its 100,000 types, indexing its
 * strings, building dedup's candidate table.  The first run on a base
 * file keeps what it learnt in a cache file; later runs on the same file
 * map that and skip the work.  Output is the same bytes either way.
 *
 * The cache file is named and keyed by the base file's identity (device,
 * inode, size, modification and change times, BTF offset and length):
 * any change to the file changes its ctime, which no one can set back, so
 * a matching key means the bytes that were checked.  Its own integrity
 * is guarded by a checksum, so a damaged file is ignored, not trusted.
 * Written through a temp file and a rename; racing writers are harmless.
 * The directory: $BTFC_CACHE_DIR (empty: no cache), else
 * $XDG_CACHE_HOME/btfc, else $HOME/.cache/btfc.  Any problem with it
 * means no cache, silently: the run does the work itself.
 */
#include "cli/base_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/hash.h"
#include "base/mem.h"
#include "base/strset.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "cli/cli.h"

#define CACHE_MAGIC	0x3163626366746231ull	/* "1btfcbc1" */
#define CACHE_KEEP	8		/* cache files kept per directory */

struct cache_key {
	uint64_t dev, ino, size, mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t btf_off, btf_len;	/* the BTF bytes within the file */
};

/* The cache file: this header, then the parts, each 8-aligned. */
struct cache_hdr {
	uint64_t magic;
	struct cache_key key;
	uint64_t sum;			/* checksum of everything after the header */
	uint64_t nr_types, str_nslots, str_count, pb_len;
	/* index[nr_types], str_slots[str_nslots], prepared base image[pb_len] */
};

struct base_cache {
	struct cli_blob *blob;		/* the base's bytes */
	void *map;			/* the cache file, when it was used */
	size_t map_len;
};

static void cache_release(void *ctx)
{
	struct base_cache *c = ctx;

	if (c->map)
		munmap(c->map, c->map_len);
	cli_blob_release(c->blob);
	mem_free(c);
}

static size_t al8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * A checksum of n bytes (n a multiple of 8) against a damaged file, not
 * an adversary: four rotate-and-add lanes, about as fast as reading.
 */
static uint64_t checksum(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t a = 1, b = 2, c = 3, d = 4;
	size_t i;

#define ROTL(x) ((x) << 7 | (x) >> 57)
	for (i = 0; i + 32 <= n; i += 32) {
		a = ROTL(a) + load64(s + i);
		b = ROTL(b) + load64(s + i + 8);
		c = ROTL(c) + load64(s + i + 16);
		d = ROTL(d) + load64(s + i + 24);
	}
#undef ROTL
	for (; i < n; i += 8)
		a = hash_combine(a, load64(s + i));
	return hash_combine(hash_combine(a, b), hash_combine(c, d)) ^ n;
}

/* The cache directory, created if needed (NULL: no cache). */
static char *cache_dir(void)
{
	const char *env = getenv("BTFC_CACHE_DIR"), *home;
	char path[4096], *p;
	int n;

	if (env)
		n = *env ? snprintf(path, sizeof(path), "%s", env) : -1;
	else if ((home = getenv("XDG_CACHE_HOME")) && *home == '/')
		n = snprintf(path, sizeof(path), "%s/btfc", home);
	else if ((home = getenv("HOME")) && *home == '/')
		n = snprintf(path, sizeof(path), "%s/.cache/btfc", home);
	else
		n = -1;
	if (n <= 0 || (size_t)n >= sizeof(path))
		return NULL;
	/* mkdir -p, private to the user */
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0700) && errno != EEXIST)
			return NULL;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return NULL;
	return mem_strdup(path);
}

static char *cache_path(const char *dir, const struct cache_key *k)
{
	uint64_t h = hash_bytes(k, sizeof(*k));
	size_t n = strlen(dir) + 40;
	char *p = mem_alloc(n);

	if (p)
		snprintf(p, n, "%s/base-%016llx.v1", dir, (unsigned long long)h);
	return p;
}

/* Keep the CACHE_KEEP newest cache files of dir. */
static void cache_trim(const char *dir)
{
	struct { char name[64]; struct timespec t; } f[64];
	size_t n = 0, i, oldest;
	struct dirent *e;
	char path[4096 + 64];
	DIR *dh = opendir(dir);

	if (!dh)
		return;
	while ((e = readdir(dh)) && n < 64) {
		struct stat st;

		if (strncmp(e->d_name, "base-", 5) || strlen(e->d_name) >= sizeof(f[n].name) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%.63s", dir, e->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		snprintf(f[n].name, sizeof(f[n].name), "%s", e->d_name);
		f[n].t = st.st_mtim;
		n++;
	}
	closedir(dh);
	while (n > CACHE_KEEP) {
		for (oldest = 0, i = 1; i < n; i++)
			if (f[i].t.tv_sec < f[oldest].t.tv_sec ||
			    (f[i].t.tv_sec == f[oldest].t.tv_sec && f[i].t.tv_nsec < f[oldest].t.tv_nsec))
				oldest = i;
		if ((size_t)snprintf(path, sizeof(path), "%s/%.63s", dir, f[oldest].name) < sizeof(path))
			unlink(path);
		f[oldest] = f[--n];
	}
}

/* Use the cache file at path if it is whole and for this key. */
static int cache_use(const char *path, const struct cache_key *key, struct base_cache *c,
		     const void *data, size_t len, struct btf **base, struct btf_dedup_base **pb)
{
	const struct cache_hdr *h;
	struct btf_known k = { 0 };
	struct stat st;
	struct diag d;
	size_t need;
	uint8_t *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		return -EINVAL;
	}
	c->map_len = (size_t)st.st_size;
	c->map = mmap(NULL, c->map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return -EINVAL;
	}
	h = c->map;
	p = (uint8_t *)c->map + sizeof(*h);
	need = sizeof(*h);
	if (h->magic != CACHE_MAGIC || memcmp(&h->key, key, sizeof(*key)) ||
	    h->nr_types > UINT32_MAX || h->str_nslots > SIZE_MAX / 16 || h->pb_len > SIZE_MAX / 2 ||
	    (need += al8((size_t)h->nr_types * 4) + h->str_nslots * sizeof(struct strset_slot) +
		     (size_t)h->pb_len) != c->map_len ||
	    checksum(p, c->map_len - sizeof(*h)) != h->sum)
		goto bad;
	k.index = (const uint32_t *)p;
	k.nr_types = (uint32_t)h->nr_types;
	p += al8((size_t)h->nr_types * 4);
	k.str_slots = (const struct strset_slot *)p;
	k.str_nslots = (size_t)h->str_nslots;
	k.str_count = (size_t)h->str_count;
	p += h->str_nslots * sizeof(struct strset_slot);
	diag_clear(&d);
	if (btf_parse_known(data, len, &k, base, &d))
		goto bad;
	if (!(*pb = btf_dedup_base_load(*base, p, (size_t)h->pb_len, &d))) {
		btf_free(*base);
		*base = NULL;
		goto bad;
	}
	return 0;
bad:
	munmap(c->map, c->map_len);
	c->map = NULL;
	return -EINVAL;
}

/* Write what was learnt about the base (best effort). */
static void cache_save(const char *dir, const char *path, const struct cache_key *key,
		       const struct btf *base, const struct btf_dedup_base *pb)
{
	struct cache_hdr h = { .magic = CACHE_MAGIC, .key = *key };
	struct btf_known k;
	size_t ilen, slen, plen, len;
	struct diag d;
	uint8_t *buf, *p;

	if (btf_known_of(base, &k) || !k.str_nslots)
		return;
	ilen = al8((size_t)k.nr_types * 4);
	slen = k.str_nslots * sizeof(struct strset_slot);
	plen = btf_dedup_base_save(pb, NULL, 0);
	if (!plen)
		return;
	len = sizeof(h) + ilen + slen + plen;
	if (!(buf = mem_zalloc(len)))
		return;
	p = buf + sizeof(h);
	memcpy(p, k.index, (size_t)k.nr_types * 4);
	p += ilen;
	memcpy(p, k.str_slots, slen);
	p += slen;
	if (btf_dedup_base_save(pb, p, plen) == plen) {
		h.nr_types = k.nr_types;
		h.str_nslots = k.str_nslots;
		h.str_count = k.str_count;
		h.pb_len = plen;
		h.sum = checksum(buf + sizeof(h), len - sizeof(h));
		memcpy(buf, &h, sizeof(h));
		diag_clear(&d);
		if (file_write_atomic(path, buf, len, &d) == 0)
			cache_trim(dir);
	}
	mem_free(buf);
}

int base_cache_load(const char *path, struct btf **base, struct btf_dedup_base **pb,
		    struct diag *d)
{
	struct btf_dedup_opts po = { .nr_threads = 1, .keep_strings = true };
	struct base_cache *c = NULL;
	struct cache_key key = { 0 };
	const void *data = NULL;
	char *dir = NULL, *cpath = NULL;
	struct stat st;
	size_t len = 0;
	int err;

	*base = NULL;
	*pb = NULL;
	if (!strncmp(path, "/sys/", 5) || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    !(dir = cache_dir()))
		return cli_btf_parse_file(path, NULL, BTF_PARSE_NO_STR_INDEX, base, d);
	if (!(c = mem_zalloc(sizeof(*c)))) {
		mem_free(dir);
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	}
	if ((err = cli_blob_open(path, &c->blob, &data, &len, d)))
		goto fail;
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	key.size = (uint64_t)st.st_size;
	key.mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	key.mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	key.ctime_sec = (uint64_t)st.st_ctim.tv_sec;
	key.ctime_nsec = (uint64_t)st.st_ctim.tv_nsec;
	key.btf_len = len;
	key.btf_off = cli_blob_offset(c->blob);
	if (!(cpath = cache_path(dir, &key))) {
		err = diag_err(d, ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if (cache_use(cpath, &key, c, data, len, base, pb) == 0) {
		btf_set_release(*base, cache_release, c);
		goto out;
	}
	/* A miss: the full parse (with a string index, which the cache keeps). */
	cache_release(c);
	c = NULL;
	if ((err = cli_btf_parse_file(path, NULL, 0, base, d)))
		goto fail;
	if (!(*pb = btf_dedup_base_new(*base, &po, d))) {
		err = -ENOMEM;
		btf_free(*base);
		*base = NULL;
		goto fail;
	}
	cache_save(dir, cpath, &key, *base, *pb);
out:
	mem_free(dir);
	mem_free(cpath);
	return 0;
fail:
	if (c)
		cache_release(c);
	mem_free(dir);
	mem_free(cpath);
	return err;
}
