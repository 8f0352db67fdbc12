/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snprintf with the C library's exact results, fast for the common
 * conversions (%s %c %d %i %u %x %X %%, flags -+ #0, widths and
 * precisions, * included, l/ll/z); anything else is passed to vsnprintf.
 */
#ifndef BTFC_BASE_FMT_H
#define BTFC_BASE_FMT_H

#include <stdarg.h>
#include <stddef.h>

#include "base/common.h"

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) PRINTF_LIKE(3, 0);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
