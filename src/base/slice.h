/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_BASE_SLICE_H
#define BTFC_BASE_SLICE_H

#include <stddef.h>
#include <stdint.h>

/* A borrowed byte range; whoever hands it out says how long it lives. */
struct bslice {
	const uint8_t *p;
	size_t len;
};

#endif
