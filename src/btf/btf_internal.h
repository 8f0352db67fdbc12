/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the files of src/btf/ only. */
#ifndef BTFC_BTF_INTERNAL_H
#define BTFC_BTF_INTERNAL_H

#include "btf/btf.h"

/*
 * Set up s holding a copy of data without a lookup index (nslots == 0):
 * strset_get works, strset_find/strset_add must not be called until
 * btf_strs_index() built the index.  Parsing ~100k strings into a hash
 * is most of the cost of a parse, and readers never need it.
 */
int btf_strs_init_raw(struct strset *s, const char *data, size_t len);
int btf_strs_index(struct strset *s);

#endif
