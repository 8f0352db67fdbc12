/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout/ beyond the pahole printer: reorganization (-R), packability,
 * a compilable C header (--compile), JSON, the cacheline map and the
 * layout diff.  All write into a struct lbuf.
 */
#ifndef BTFC_LAYOUT_EXT_H
#define BTFC_LAYOUT_EXT_H

#include "layout/layout.h"

/* Like layout_find, but also matches forward declarations (pahole include_decls). */
uint32_t layout_find_decl(const struct layout *l, const char *name);

/*
 * pahole -R: a reordering of struct id's members that removes holes;
 * prints the reorganized struct and the saving like pahole does
 * (steps too when show_steps).  -EINVAL if id is not a struct.
 */
int layout_reorganize(struct layout *l, uint32_t id, bool show_steps, struct lbuf *out);
/* Whether -R would shrink struct id (pahole -P). */
bool layout_packable(struct layout *l, uint32_t id);
/* pahole -P line: NAME<sep>SIZE<sep>NEW_SIZE<sep>SAVED */
int layout_print_packable(struct layout *l, uint32_t id, char sep, struct lbuf *out);

/*
 * The reorganized order as member indexes plus the resulting offsets
 * (bit offsets) and size, for checks: every member kept, aligned, no
 * overlaps.  *order and *bit_offsets are mem_alloc'ed (n entries).
 */
int layout_reorg_plan(struct layout *l, uint32_t id, uint32_t **order, uint64_t **bit_offsets,
		      uint32_t *n, uint32_t *new_size);

/* --compile: a C header defining ids and everything they need, in dependency order. */
int layout_emit_c(struct layout *l, const uint32_t *ids, size_t n, struct lbuf *out);

/* --format json: one JSON object (and a newline) for struct/union id. */
int layout_json(struct layout *l, uint32_t id, struct lbuf *out);

/* --cacheline-map: per cacheline, the members that live in it. */
int layout_cacheline_map(struct layout *l, uint32_t id, struct lbuf *out);

/*
 * Layout diff of type `name` between two layouts: members added, removed,
 * moved, resized; size and hole changes.  Appends nothing if identical;
 * returns 1 if they differ, 0 if not, negative errno on error.
 */
int layout_diff(struct layout *a, struct layout *b, const char *name, struct lbuf *out);

#endif
