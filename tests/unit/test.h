/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal unit-test harness.  TEST(name) { ... } registers a test;
 * CHECK(cond) records a failure (and the test goes on); REQUIRE(cond)
 * records a failure and leaves the test.  The runner prints one line per
 * failed check and ends with "N passed, N failed" (counted per test).
 */
#ifndef BTFC_TEST_H
#define BTFC_TEST_H

#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(int *failed);
	struct test_case *next;
};

void test_register(struct test_case *t);

#define TEST(n)                                                            \
	static void test_fn_##n(int *test_failed_);                        \
	static struct test_case test_case_##n = { #n, test_fn_##n, NULL }; \
	__attribute__((constructor)) static void test_reg_##n(void)        \
	{                                                                  \
		test_register(&test_case_##n);                             \
	}                                                                  \
	static void test_fn_##n(int *test_failed_)

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #c);                                 \
			*test_failed_ = 1;                                     \
		}                                                              \
	} while (0)

#define REQUIRE(c)                                                               \
	do {                                                                     \
		if (!(c)) {                                                      \
			fprintf(stderr, "  %s:%d: REQUIRE failed: %s\n", __FILE__, \
				__LINE__, #c);                                   \
			*test_failed_ = 1;                                       \
			return;                                                  \
		}                                                                \
	} while (0)

#define CHECK_EQ_U(a, b)                                                         \
	do {                                                                     \
		unsigned long long a_ = (a), b_ = (b);                           \
		if (a_ != b_) {                                                  \
			fprintf(stderr, "  %s:%d: %s == %s failed: %llu != %llu\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);             \
			*test_failed_ = 1;                                       \
		}                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                          \
	do {                                                                     \
		const char *a_ = (a), *b_ = (b);                                 \
		if (!a_ || !b_ || strcmp(a_, b_)) {                              \
			fprintf(stderr, "  %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)",  \
				b_ ? b_ : "(null)");                             \
			*test_failed_ = 1;                                       \
		}                                                                \
	} while (0)


struct btf;
/* test_dedup.c: a case's BTF into $BTFC_DEDUP_CASES as NAME SUFFIX, for t_dedup.sh's libbpf runs. */
void dedup_case_save(const struct btf *btf, const char *name, const char *suffix);

#endif
