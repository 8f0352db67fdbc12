// SPDX-License-Identifier: GPL-2.0-only
#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>

int diag_err(struct diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (code <= 0)
		code = EINVAL;
	if (!d || d->code)
		return -code;
	d->code = code;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	/* Names from hostile files (sections, DIEs) must not break the one
	 * line or reach the terminal as control characters. */
	for (char *p = d->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -code;
}
