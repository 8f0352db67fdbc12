/* SPDX-License-Identifier: GPL-2.0-only */
/* Monotonic seconds, for the phase timings of --stats. */
#ifndef BTFC_BASE_CLOCK_H
#define BTFC_BASE_CLOCK_H

#include <time.h>

static inline double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
