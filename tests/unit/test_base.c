// SPDX-License-Identifier: GPL-2.0-only
#include "test.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/file.h"
#include "base/fmt.h"
#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strset.h"

TEST(strset_dedups_and_keeps_order)
{
	struct strset s;
	int64_t a, b, c;

	REQUIRE(strset_init(&s, true) == 0);
	CHECK_EQ_U(s.len, 1);
	a = strset_add(&s, "foo", 3);
	b = strset_add(&s, "bar", 3);
	c = strset_add(&s, "foo", 3);
	CHECK_EQ_U(a, 1);
	CHECK_EQ_U(b, 5);
	CHECK_EQ_U(c, 1);
	CHECK_EQ_U(strset_find(&s, "bar", 3), 5);
	CHECK(strset_find(&s, "ba", 2) == -ENOENT);
	CHECK(strset_find(&s, "baz", 3) == -ENOENT);
	CHECK_STR(strset_get(&s, 5), "bar");
	CHECK_EQ_U(strset_add(&s, "", 0), 0);
	strset_free(&s);
}

TEST(strset_grows_past_initial_table)
{
	struct strset s;
	char buf[32];
	int i, bad = 0;

	REQUIRE(strset_init(&s, false) == 0);
	for (i = 0; i < 20000; i++) {
		int n = snprintf(buf, sizeof(buf), "name_%d", i);
		if (strset_add(&s, buf, n) < 0)
			bad++;
	}
	for (i = 0; i < 20000; i += 7) {
		int n = snprintf(buf, sizeof(buf), "name_%d", i);
		int64_t off = strset_find(&s, buf, n);
		if (off < 0 || strcmp(strset_get(&s, off), buf))
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(s.count, 20000);
	strset_free(&s);
}

/*
 * A seeded section (the encoder's copy of .debug_str): offsets follow the
 * positions, a text's first strset_add_at() makes its copy there the
 * text's offset, suffixes included, and every later add of the text, at
 * another copy or with no position, returns that offset.
 */
TEST(strset_seeded_section_adds_at_positions)
{
	static const char sec[] = "list_next\0next\0x\0";	/* two copies of "next" */
	struct strset s;
	size_t len = sizeof(sec);	/* with the literal's final NUL */

	REQUIRE(strset_init_after_empty(&s, sec, len) == 0);
	CHECK_EQ_U(s.len, len + 1);
	CHECK_STR(strset_get(&s, 1), "list_next");
	CHECK(strset_find(&s, "list_next", 9) == -ENOENT);	/* nothing indexed yet */
	CHECK_EQ_U(strset_find(&s, "", 0), 0);
	/* "next" first met as the suffix of list_next (offset 1 + 5) */
	CHECK_EQ_U(strset_add_at(&s, 6, "next", 4, strset_hash("next", 4)), 6);
	/* its own copy at offset 11 and an add without a position: the same */
	CHECK_EQ_U(strset_add_at(&s, 11, "next", 4, strset_hash("next", 4)), 6);
	CHECK_EQ_U(strset_add(&s, "next", 4), 6);
	/* a text not where at says: appended, not indexed at the wrong place */
	CHECK_EQ_U(strset_add_at(&s, 1, "list", 4, strset_hash("list", 4)), len + 1);
	CHECK_STR(strset_get(&s, len + 1), "list");
	/* at past the section: appended too */
	CHECK_EQ_U(strset_add_at(&s, 1000, "y", 1, strset_hash("y", 1)), len + 6);
	CHECK_EQ_U(strset_add(&s, "list_next", 9), len + 8);	/* never named: a new copy */
	strset_free(&s);
}

TEST(strset_init_from_section)
{
	static const char sec[] = "\0int\0long\0int\0";
	struct strset s;

	REQUIRE(strset_init_from(&s, sec, sizeof(sec) - 1) == 0);
	CHECK_EQ_U(strset_find(&s, "int", 3), 1);
	CHECK_EQ_U(strset_find(&s, "long", 4), 5);
	CHECK_EQ_U(strset_find(&s, "", 0), 0);
	CHECK_EQ_U(strset_add(&s, "x", 1), sizeof(sec) - 1);
	strset_free(&s);
}

TEST(arena_alignment_and_growth)
{
	struct arena a;
	int i, bad = 0;

	arena_init(&a, 64);
	for (i = 1; i < 2000; i++) {
		char *p = arena_alloc(&a, (size_t)i % 37 + 1);
		if (!p || ((uintptr_t)p & 15))
			bad++;
		else
			memset(p, 0xab, (size_t)i % 37 + 1);
	}
	CHECK_EQ_U(bad, 0);
	CHECK(arena_zalloc(&a, 100000) != NULL);
	arena_free(&a);
}

TEST(diag_keeps_first_error)
{
	struct diag d;

	diag_clear(&d);
	CHECK(diag_err(&d, EINVAL, "first %d", 1) == -EINVAL);
	CHECK(diag_err(&d, ENOMEM, "second") == -ENOMEM);
	CHECK_STR(d.msg, "first 1");
	CHECK_EQ_U(d.code, EINVAL);
}

struct pool_ctx {
	int out[1000];
};

static int square(void *ctx, unsigned w, size_t i)
{
	struct pool_ctx *c = ctx;

	c->out[i] = (int)(i * i);
	return i == 700 || i == 900 ? -(int)i : 0;
}

TEST(pool_runs_every_item_and_reports_first_error)
{
	struct pool_ctx c;
	int bad = 0;
	size_t i;

	memset(&c, 0xff, sizeof(c));
	CHECK(pool_for(4, 600, square, &c) == 0);
	for (i = 0; i < 600; i++)
		if (c.out[i] != (int)(i * i))
			bad++;
	CHECK_EQ_U(bad, 0);
	CHECK(pool_for(3, 1000, square, &c) == -700);
}

/* pool_pipeline: what the encoder relies on, checked from inside. */
struct pipe_ctx {
	size_t window, fail_at;
	atomic_size_t consumed;		/* items consumed so far */
	atomic_int in_consume;		/* threads inside consume now */
	atomic_int errors;
	unsigned char worked[300];
	size_t order[300];
};

static int pipe_work(void *ctx, unsigned w, size_t i)
{
	struct pipe_ctx *c = ctx;
	volatile unsigned spin;

	(void)w;
	if (i >= atomic_load(&c->consumed) + c->window)	/* ahead of the window */
		atomic_fetch_add(&c->errors, 1);
	for (spin = 0; spin < (unsigned)(i * 7919 % 5000); spin++)	/* uneven items */
		;
	c->worked[i]++;
	return 0;
}

static int pipe_consume(void *ctx, size_t i)
{
	struct pipe_ctx *c = ctx;
	size_t k = atomic_load(&c->consumed);

	if (atomic_fetch_add(&c->in_consume, 1) != 0 || c->worked[i] != 1)
		atomic_fetch_add(&c->errors, 1);
	c->order[k] = i;
	atomic_fetch_sub(&c->in_consume, 1);
	atomic_store(&c->consumed, k + 1);
	return i == c->fail_at ? -EIO : 0;
}

TEST(pool_pipeline_consumes_in_order_one_at_a_time_within_the_window)
{
	static const unsigned threads[] = { 1, 2, 3, 8 };
	size_t t, i;

	for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		struct pipe_ctx c = { .window = threads[t] * 2, .fail_at = SIZE_MAX };
		int bad = 0;

		CHECK(pool_pipeline(threads[t], 300, c.window, pipe_work, pipe_consume, &c) == 0);
		CHECK_EQ_U(atomic_load(&c.consumed), 300);
		CHECK_EQ_U(atomic_load(&c.errors), 0);
		for (i = 0; i < 300; i++)
			bad += c.order[i] != i || c.worked[i] != 1;
		CHECK_EQ_U(bad, 0);
	}
}

TEST(pool_pipeline_stops_at_the_first_consume_error)
{
	struct pipe_ctx c = { .window = 4, .fail_at = 100 };

	CHECK(pool_pipeline(2, 300, c.window, pipe_work, pipe_consume, &c) == -EIO);
	CHECK_EQ_U(atomic_load(&c.consumed), 101);	/* nothing after the failing item */
	CHECK_EQ_U(atomic_load(&c.errors), 0);
}

TEST(mem_fault_injection)
{
	void *a, *b;

	mem_fail_after(2);
	a = mem_alloc(10);
	b = mem_alloc(10);
	mem_fail_after(0);
	CHECK(a != NULL);
	CHECK(b == NULL);
	mem_free(a);
}

/* Big blocks (own mappings): zeroed, grown in place or moved with their bytes, freed. */
TEST(mem_big_blocks)
{
	size_t big = (size_t)5 << 20, i, bad = 0;
	uint32_t *a = mem_array(big / 4, 4), *b;
	char *c, *many[300];

	REQUIRE(a != NULL);
	for (i = 0; i < big / 4; i += 1021)
		bad += a[i] != 0;
	CHECK_EQ_U(bad, 0);
	for (i = 0; i < big / 4; i++)
		a[i] = (uint32_t)i * 2654435761u;
	/* an allocation in the way makes the growth move the pages */
	c = mem_alloc(big);
	REQUIRE(c != NULL);
	memset(c, 0x5a, big);
	b = mem_realloc(a, 4 * big);
	REQUIRE(b != NULL);
	for (i = 0; i < big / 4; i++)
		bad += b[i] != (uint32_t)i * 2654435761u;
	for (i = big / 4; i < big; i += 4093)
		bad += b[i] != 0;	/* the new part is fresh pages (no kept blocks by default) */
	CHECK_EQ_U(bad, 0);
	b[big - 1] = 7;
	/* shrinking keeps the bytes */
	b = mem_realloc(b, big);
	REQUIRE(b != NULL);
	CHECK_EQ_U(b[big / 4 - 1], (uint32_t)(big / 4 - 1) * 2654435761u);
	mem_free(b);
	/* a malloc block growing big keeps its bytes */
	c = mem_realloc(c, 64);
	REQUIRE(c != NULL);
	mem_free(c);
	c = mem_alloc(100);
	REQUIRE(c != NULL);
	memcpy(c, "btfc", 5);
	c = mem_realloc(c, big);
	REQUIRE(c != NULL);
	CHECK_STR(c, "btfc");
	mem_free(c);
	/* more live big blocks than the registry has slots: the rest come from malloc */
	for (i = 0; i < 300; i++) {
		many[i] = mem_alloc((size_t)4 << 20);
		if (many[i])
			many[i][((size_t)4 << 20) - 1] = 1;
		bad += many[i] == NULL;
	}
	CHECK_EQ_U(bad, 0);
	for (i = 0; i < 300; i++)
		mem_free(many[i]);
}

/* How many of p's n bytes are not zero. */
static size_t nonzero_bytes(const unsigned char *p, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += p[i] != 0;
	return bad;
}

/* Kept big blocks are handed out again: zeroed allocations still come back zero. */
TEST(mem_big_blocks_reused_zeroed)
{
	size_t sizes[] = { (size_t)5 << 20, (size_t)6 << 20, (size_t)12 << 20 };
	size_t k, bad = 0;

	struct mem_cache *c = mem_cache_new((size_t)32 << 20), *was;

	REQUIRE(c != NULL);
	was = mem_cache_use(c);
	for (k = 0; k < 3; k++) {
		size_t n = sizes[k];
		unsigned char *p = mem_alloc(n), *q, *r;

		REQUIRE(p != NULL);
		memset(p, 0xa5, n);
		mem_free(p);
		q = mem_zalloc(n);
		REQUIRE(q != NULL);
		bad += nonzero_bytes(q, n);
		memset(q, 0x5a, n);
		mem_free(q);
		r = mem_array(n / 4, 4);
		REQUIRE(r != NULL);
		bad += nonzero_bytes(r, n);
		mem_free(r);
	}
	CHECK_EQ_U(bad, 0);
	mem_cache_pass(c, NULL);	/* the kept blocks go; allocation still works */
	{
		unsigned char *p = mem_zalloc((size_t)5 << 20);

		REQUIRE(p != NULL);
		CHECK_EQ_U(p[((size_t)5 << 20) - 1], 0);
		mem_free(p);
	}
	CHECK(mem_cache_use(was) == c);
	mem_cache_free(c);
}

/* A block freed by a thread without a cache, or into another one, is not handed out here. */
TEST(mem_cache_is_its_users_only)
{
	struct mem_cache *a = mem_cache_new((size_t)32 << 20), *b = mem_cache_new((size_t)32 << 20);
	size_t n = (size_t)6 << 20;
	unsigned char *p, *q;

	REQUIRE(a && b);
	mem_cache_use(a);
	p = mem_alloc(n);
	REQUIRE(p != NULL);
	mem_free(p);			/* kept in a */
	mem_cache_use(b);
	q = mem_alloc(n);		/* b has none: a fresh block, not a's */
	REQUIRE(q != NULL);
	CHECK(q != p);
	mem_free(q);			/* kept in b */
	mem_cache_use(NULL);
	mem_cache_pass(b, a);		/* a takes b's too */
	mem_cache_free(b);
	mem_cache_use(a);
	p = mem_zalloc(n);
	REQUIRE(p != NULL);
	CHECK_EQ_U(nonzero_bytes(p, n), 0);
	mem_free(p);
	mem_cache_use(NULL);
	mem_cache_free(a);
}

/*
 * A request bigger than every kept block grows the largest one: its kept
 * part comes back zeroed as well as the fresh part, and all of it works.
 */
TEST(mem_big_block_reused_grown)
{
	size_t small = (size_t)6 << 20, n = (size_t)11 << 20;
	unsigned char *p, *q;

	struct mem_cache *c = mem_cache_new((size_t)32 << 20);

	REQUIRE(c != NULL);
	mem_cache_use(c);
	p = mem_alloc(small);
	REQUIRE(p != NULL);
	memset(p, 0xa5, small);
	mem_free(p);
	q = mem_zalloc(n);
	REQUIRE(q != NULL);
	CHECK_EQ_U(nonzero_bytes(q, n), 0);
	memset(q, 0x5a, n);
	q = mem_realloc(q, n + ((size_t)3 << 20));
	REQUIRE(q != NULL);
	CHECK_EQ_U(q[n - 1], 0x5a);
	mem_free(q);
	CHECK_EQ_U(mem_cache_set_limit(c, 0), (size_t)32 << 20);
	mem_cache_use(NULL);
	mem_cache_free(c);
}

/*
 * A kept block is cleared only as far as it may have been written: what
 * its last owner says it wrote, but never less than what it got dirty.
 */
TEST(mem_kept_block_cleared_as_far_as_written)
{
	size_t n = (size_t)6 << 20;
	unsigned char *p, *q, *r;

	struct mem_cache *c = mem_cache_new((size_t)32 << 20);

	REQUIRE(c != NULL);
	mem_cache_use(c);
	p = mem_alloc(n);
	REQUIRE(p != NULL);
	memset(p, 0xa5, n);
	mem_free(p);			/* kept, all of it dirty */
	q = mem_alloc(n);		/* not cleared: the next owner of the dirt */
	REQUIRE(q != NULL);
	memset(q, 0x5a, (size_t)1 << 20);
	mem_free_written(q, (size_t)1 << 20);
	r = mem_zalloc(n);
	REQUIRE(r != NULL);
	CHECK_EQ_U(nonzero_bytes(r, n), 0);
	memset(r, 0x33, (size_t)2 << 20);
	mem_free_written(r, (size_t)2 << 20);	/* written: 2 MiB, the rest zero */
	r = mem_zalloc(n);
	REQUIRE(r != NULL);
	CHECK_EQ_U(nonzero_bytes(r, n), 0);
	mem_free(r);
	mem_cache_use(NULL);
	mem_cache_free(c);
}

TEST(strset_borrow_indexes_in_place_and_copies_on_add)
{
	static const char sec[] = "\0int\0long\0int\0";
	struct strset s;

	strset_borrow(&s, sec, sizeof(sec) - 1);
	CHECK(strset_find(&s, "int", 3) == -ENOENT);	/* no index yet */
	REQUIRE(strset_index(&s) == 0);
	CHECK(s.data == sec);
	CHECK_EQ_U(strset_find(&s, "int", 3), 1);
	CHECK_EQ_U(strset_find(&s, "long", 4), 5);
	CHECK_EQ_U(strset_add(&s, "char", 4), sizeof(sec) - 1);
	CHECK(s.data != sec && !s.borrowed);
	CHECK_STR(strset_get(&s, 5), "long");
	CHECK_EQ_U(strset_find(&s, "char", 4), sizeof(sec) - 1);
	strset_free(&s);
}

TEST(strset_reserve_sizes_once_and_keeps_borrowed_strings)
{
	static const char sec[] = "\0int\0long\0";
	struct strset s;
	char buf[32], *data;
	size_t nslots;
	int i, bad = 0;

	REQUIRE(strset_init(&s, false) == 0);
	/* "f0".."f19999" with their NULs: 10*3 + 90*4 + 900*5 + 9000*6 + 10000*7 bytes */
	REQUIRE(strset_reserve(&s, 20000, 128890) == 0);
	nslots = s.nslots;
	data = s.data;
	CHECK(nslots * 3 >= 20000 * 4);
	for (i = 0; i < 20000; i++) {
		int n = snprintf(buf, sizeof(buf), "f%d", i);
		if (strset_add(&s, buf, n) < 0)
			bad++;
	}
	CHECK_EQ_U(s.nslots, nslots);	/* no rehash on the way */
	CHECK(s.data == data);		/* nor a move of the text */
	CHECK_EQ_U(s.len, 128890);
	CHECK_EQ_U(strset_find(&s, "f19999", 6) >= 0, 1);
	REQUIRE(strset_reserve(&s, 10, 0) == 0);	/* never shrinks */
	CHECK_EQ_U(s.nslots, nslots);
	CHECK_EQ_U(bad, 0);
	strset_free(&s);

	/* A borrowed section without an index: its strings are indexed first. */
	strset_borrow(&s, sec, sizeof(sec) - 1);
	REQUIRE(strset_reserve(&s, 5000, 100) == 0);
	CHECK_EQ_U(strset_find(&s, "long", 4), 5);
	CHECK_EQ_U(strset_add(&s, "int", 3), 1);
	CHECK(s.data == sec);	/* nothing added, nothing copied */
	strset_free(&s);
}

/* fmt_snprintf must give the C library's bytes and count for every case. */
static int check_fmt(const char *fmt, ...) PRINTF_LIKE(1, 2);
static int check_fmt(const char *fmt, ...)
{
	char a[64], b[64];
	va_list ap, aq;
	int na, nb, bad = 0;
	size_t sizes[] = { 0, 1, 3, sizeof(a) };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(a, 'A', sizeof(a));
		memset(b, 'A', sizeof(b));
		va_start(ap, fmt);
		va_copy(aq, ap);
		na = vsnprintf(a, sizes[i], fmt, ap);
		nb = fmt_vsnprintf(b, sizes[i], fmt, aq);
		va_end(aq);
		va_end(ap);
		if (na != nb || memcmp(a, b, sizeof(a))) {
			fprintf(stderr, "fmt \"%s\" size %zu: libc %d \"%.*s\", ours %d \"%.*s\"\n", fmt,
				sizes[i], na, (int)sizeof(a), a, nb, (int)sizeof(b), b);
			bad++;
		}
	}
	return bad;
}

TEST(fmt_matches_libc)
{
	static const int ints[] = { 0, 1, -1, 7, 42, -42, 12345, 2147483647, -2147483647 - 1 };
	static const int widths[] = { -7, -1, 0, 1, 2, 5, 12 };
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		int v = ints[i];

		bad += check_fmt("%d|%i|%u|%x|%X|%5u|%2u|%-5d|%05d|%+d|% d", v, v, v, v, v, v, v, v,
				 v, v, v);
		bad += check_fmt("%#x|%#5x|%#2x|%#06x|%.3d|%.0d|%.0x|%8.3d|%-8.3u|%#.0x", v, v, v, v,
				 v, v, v, v, v, v);
		bad += check_fmt("%ld|%lu|%lld|%llx|%#llx|%zu|%zd", (long)v, (unsigned long)v,
				 (long long)v * 1000003, (unsigned long long)v * 1000003,
				 (unsigned long long)v, (size_t)(unsigned)v, (ssize_t)v);
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
			bad += check_fmt("[%*u][%*d][%#*x][%*s/* %5u][%-*s %s][%.*s]", widths[w], v,
					 widths[w], v, widths[w], v, widths[w], " ", v, widths[w],
					 "struct foo", "bar", widths[w], "truncated");
	}
	bad += check_fmt("%s|%5s|%-5s|%.2s|%c|%3c|%-3c|%%|100%%", "abc", "ab", "ab", "abc", 'x',
			 'y', 'z');
	bad += check_fmt("no conversions at all, just a longer text than the buffer holds");
	bad += check_fmt("%5.1f|%p|%o|%hd|%e", 3.25, (void *)0, 8, (short)-3, 1.5);	/* libc */
	CHECK_EQ_U(bad, 0);
}

/*
 * hash_bytes() values are stored (the base cache's string index), so its
 * fast tail must give what the plain definition gives: the last n % 8
 * bytes zero-padded as memcpy() would read them.
 */
TEST(hash_bytes_matches_plain_definition)
{
	unsigned char b[64];
	size_t o, n, i;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 37 + 200);
	for (o = 0; o < 8; o++)
		for (n = 0; n + o <= 48; n++) {
			const unsigned char *s = b + o;
			uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0x100000001b3ULL), t = 0;
			size_t k = n;

			for (; k >= 8; k -= 8, s += 8) {
				h = (h ^ load64(s)) * 0x100000001b3ULL;
				h ^= h >> 29;
			}
			if (k) {
				memcpy(&t, s, k);
				h = (h ^ t) * 0x100000001b3ULL;
			}
			CHECK_EQ_U(hash_bytes(b + o, n), hash_mix(h));
		}
}

/* bytes_eq() answers as memcmp() == 0 does, whatever byte differs. */
TEST(bytes_eq_matches_memcmp)
{
	unsigned char a[48], b[48];
	size_t n, i, bad = 0;

	for (i = 0; i < sizeof(a); i++)
		a[i] = b[i] = (unsigned char)(i * 13 + 7);
	for (n = 0; n <= 40; n++) {
		bad += !bytes_eq(a + 1, b + 1, n);
		for (i = 0; i < n; i++) {
			b[1 + i] ^= 0x40;
			bad += bytes_eq(a + 1, b + 1, n);
			b[1 + i] ^= 0x40;
		}
	}
	CHECK_EQ_U(bad, 0);
}

/*
 * The temp-file registry: a file_out's temp file is listed from open to
 * commit or abort, and file_tmp_cleanup() (the signal handlers' call)
 * removes what is listed; the owner then neither frees nor renames it.
 */
TEST(file_temp_registry)
{
	char dir[] = "/tmp/btfc-unit.XXXXXX", path[64], tmp[80];
	struct file_out o, o2;
	struct diag d;
	unsigned before = file_tmp_count();

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	diag_clear(&d);
	REQUIRE(file_out_open(&o, path, &d) == 0);
	CHECK_EQ_U(file_tmp_count(), before + 1);
	CHECK(file_write_all(o.fd, "abc", 3) == 0);
	CHECK(file_out_commit(&o, path, &d) == 0);
	CHECK_EQ_U(file_tmp_count(), before);
	CHECK(access(path, F_OK) == 0);
	REQUIRE(file_out_open(&o, path, &d) == 0);
	snprintf(tmp, sizeof(tmp), "%s", o.tmp);
	file_out_abort(&o);
	CHECK(access(tmp, F_OK) != 0);
	CHECK_EQ_U(file_tmp_count(), before);
	/* a signal handler's cleanup (in a child: it ends the process's creations) */
	REQUIRE(file_out_open(&o, path, &d) == 0);
	REQUIRE(file_out_open(&o2, path, &d) == 0);
	CHECK_EQ_U(file_tmp_count(), before + 2);
	snprintf(tmp, sizeof(tmp), "%s", o.tmp);
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		file_tmp_cleanup();
		_exit(file_tmp_count() == 0 ? 0 : 1);
	}
	int status = 0;

	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(access(tmp, F_OK) != 0);
	CHECK(file_out_commit(&o, path, &d) != 0);	/* its temp file is gone */
	file_out_abort(&o2);
	CHECK_EQ_U(file_tmp_count(), before);
	/* "-" is stdout, written directly: no temp file */
	REQUIRE(file_out_open(&o, "-", &d) == 0);
	CHECK(o.tmp == NULL && o.fd >= 0);
	CHECK_EQ_U(file_tmp_count(), 0);
	file_out_abort(&o);
	unlink(path);
	rmdir(dir);
}
