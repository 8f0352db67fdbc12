// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "test.h"

static struct test_case *tests;

void test_register(struct test_case *t)
{
	t->next = tests;
	tests = t;
}

int main(int argc, char **argv)
{
	struct test_case *t, *rev = NULL;
	int passed = 0, failed = 0;

	/* Registration order is reversed; run in definition order. */
	while (tests) {
		t = tests;
		tests = t->next;
		t->next = rev;
		rev = t;
	}
	for (t = rev; t; t = t->next) {
		int f = 0;

		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		t->fn(&f);
		if (f) {
			printf("FAIL %s\n", t->name);
			failed++;
		} else {
			if (getenv("VERBOSE"))
				printf("ok   %s\n", t->name);
			passed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
