/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf/: our DWARF reader (versions 2-5, 32/64-bit DWARF, type units,
 * dwz alternate files).  Works on byte slices handed in by the caller; knows
 * nothing of ELF or BTF.
 *
 * Model: dw_file_open() indexes every unit header once (serial, cheap) and
 * parses each distinct abbreviation table once (many: on threads, see
 * dw_file_open).  After that the dw_file is
 * immutable and any number of threads may walk units with their own
 * dw_cursor.  A cursor decodes one DIE at a time with all its attributes
 * into a struct dw_die (strings, references and addresses resolved), and
 * can skip a DIE's subtree cheaply (DW_AT_sibling when present).
 *
 * DIE references are "global": the offset in .debug_info, with
 * DW_REF_TYPES set for .debug_types and DW_REF_ALT for the alternate
 * (dwz) file.  DW_FORM_ref_sig8 is resolved through the type-unit index.
 */
#ifndef BTFC_DWARF_H
#define BTFC_DWARF_H

#include <sys/types.h>

#include "base/diag.h"
#include "base/slice.h"
#include "dwarf/consts.h"

#define DW_REF_TYPES ((uint64_t)1 << 62)
#define DW_REF_ALT ((uint64_t)1 << 63)
#define DW_REF_OFF(r) ((uint64_t)((r) & ~(DW_REF_TYPES | DW_REF_ALT)))
#define DW_NO_SLOT 31		/* dw_die.widx of a code without a slot */
#define DW_MAX_ATTRS 96		/* per DIE; abbrevs with more are malformed */
#define DW_MAX_DEPTH 65536	/* DIE nesting limit */

/* The sections the reader uses (no .debug_line: nothing here reads it). */
struct dw_sections {
	struct bslice info, abbrev, str, line_str, str_offsets, addr, rnglists,
		loclists, loc, ranges, types;	/* first: dw_file_open walks them as an array */
	/*
	 * Optional: copy len bytes of info from section offset off into buf
	 * without touching info's pages (the file behind a plain mapping);
	 * returns the bytes copied or -1.  Opening reads each unit's header
	 * and unit DIE through it, dw_cursor_init_copy() whole units; it and
	 * peek_ctx must stay valid while the file is open.
	 */
	ssize_t (*info_peek)(void *ctx, uint64_t off, void *buf, size_t len);
	void *peek_ctx;
	/*
	 * info's bytes in place are not the DWARF (an ET_REL file's section
	 * before its relocations, which info_peek applies as it reads): every
	 * read of info goes through info_peek.  Readers that would read a
	 * unit in place (dw_cursor_init, dw_die_at, outside a walk's copy)
	 * read a copy of the unit made once, kept until dw_file_free().
	 */
	bool info_peek_only;
	/*
	 * Split DWARF (optional): the units whose headers lie in [off, off +
	 * len) of .debug_info (types: .debug_types) read their abbreviations,
	 * strings, string offsets and lists from these offsets of the
	 * sections on (a .dwp's index; .dwo files joined by the caller).
	 * Sorted by (types, off), not overlapping.
	 */
	const struct dw_contrib *contrib;
	size_t ncontrib;
};

struct dw_contrib {
	uint64_t off, len;
	bool types;
	uint64_t abbrev, str, str_offsets, loc, loclists, rnglists;
	uint64_t addr_base;	/* in .debug_addr: the skeleton's DW_AT_addr_base */
	bool has_addr;		/* a skeleton gave addr_base; else addresses read as 0 */
};

enum dw_class {
	DW_CL_NONE, DW_CL_CONST,	/* u: unsigned constant (data*, udata) */
	DW_CL_SCONST,			/* s: sdata, implicit_const */
	DW_CL_STRING,			/* str */
	DW_CL_REF,			/* u: global DIE reference */
	DW_CL_SIG,			/* u: unresolved type signature */
	DW_CL_BLOCK,			/* blk/len: block or exprloc */
	DW_CL_FLAG,			/* u: 0/1 */
	DW_CL_ADDR,			/* u: address (addrx resolved) */
	DW_CL_SECOFF,			/* u: offset into another section */
	DW_CL_LISTX,			/* u: loclistx/rnglistx, resolved to a section offset */
	DW_CL_DATA16,			/* blk: 16 bytes */
};

struct dw_attr {
	uint16_t at, form;
	uint8_t cls;		/* enum dw_class */
	uint32_t len;		/* block length */
	union {
		uint64_t u;
		int64_t s;
		const char *str;
		const uint8_t *blk;
	};
};

struct dw_abbrev;
struct dw_abbrevs;
struct dw_file;

struct dw_unit {
	uint64_t off;		/* of the header, in its section */
	uint64_t end;		/* first byte after the unit */
	uint64_t die_off;	/* of the unit DIE */
	uint8_t version, unit_type, addr_size, offset_size;
	bool in_types;		/* DWARF 4 .debug_types */
	bool bad;		/* header unusable; walking it fails */
	const char *bad_msg;	/* why (owned by the file), or NULL */
	const struct dw_abbrevs *abbrevs;
	uint64_t type_sig, type_off, dwo_id;
	uint64_t str_offsets_base, addr_base, rnglists_base, loclists_base, low_pc;
	uint32_t lang;
	const char *name, *producer;
	const char *dwo_name, *comp_dir;	/* split DWARF: a skeleton's .dwo, its directory */
	bool has_dwo_id;	/* dwo_id is set: a skeleton or split unit (DWARF 5 header, GNU's DW_AT_GNU_dwo_id) */
	/* A unit of a dw_contrib: split DWARF (DWARF 4: GNU's .debug_loc.dwo entries). */
	bool split;
	bool no_addr;		/* split, with no skeleton's .debug_addr: addresses read as 0 */
	uint64_t str_base;	/* added to its string offsets (strp, and strx's entries) */
	uint64_t loc_base;	/* added to its location lists' section offsets */
	uint32_t index;		/* position among the file's units */
};

struct dw_die {
	uint64_t off;		/* global reference of this DIE */
	uint32_t tag;
	uint16_t nattr;
	bool has_children;
	int depth;		/* 0 = unit DIE */
	uint16_t nattr_in;	/* attributes the DIE has (nattr: those decoded) */
	const struct dw_unit *unit;
	/*
	 * Set by dw_next_filtered(): where dw_attr() finds a kept attribute of
	 * code < 256 without a search, slot[widx[code]] = its position + 1 in
	 * attr, 0 if absent (NULL: search).  Codes not kept have the slot
	 * DW_NO_SLOT, always 0: dw_attr() of a filtered DIE finds only kept
	 * attributes, even where the full decoder ran.  The filter owns both;
	 * they stay valid until its next decode.
	 */
	const uint8_t *slot, *widx;
	bool strict;		/* its filter's dw_filter_strict(): see dw_attr() */
	struct dw_attr attr[DW_MAX_ATTRS];
};

/* Per-unit decoding context (internal; part of the cursor). */
struct dw_dctx {
	const struct dw_file *f;	/* file whose sections hold the unit */
	const struct dw_unit *u;
	uint64_t refbase;		/* added to unit-relative refs */
	uint64_t altbit;		/* DW_REF_ALT when f is the alt file */
	uint64_t dflags;		/* DW_REF_TYPES and altbit: or'ed into DIE offsets */
	struct diag *d;
	/* For planned decodes: bases and bounds by pspec.how, and whether the
	   unit's sizes are its abbreviation table's (fixed sizes hold). */
	uint64_t hbase[3], hlim[3];
	uint64_t str_base;		/* the unit's, bounded by .debug_str */
	bool sizes_ok;
};

struct dw_cursor {
	const struct dw_file *f;
	struct dw_dctx x;
	const uint8_t *sec, *p, *end;
	uint64_t base;		/* section offset of sec[0]: 0, or the unit's in a copy */
	int depth;		/* depth of the next DIE */
};

/*
 * Index a file's DWARF.  path is only used in messages.  alt (may be NULL)
 * is the already-opened dwz alternate file; it must outlive f.  Problems in
 * one unit's header mark that unit bad (reported when walked) and stop the
 * index only when later units cannot be located.  Errors: no .debug_info,
 * malformed abbreviation tables, out of memory.  jobs > 1 parses the
 * abbreviation tables of many units on that many threads (same result).
 */
int dw_file_open(struct dw_file **out, const char *path, const struct dw_sections *s,
		 bool big_endian, const struct dw_file *alt, unsigned jobs, struct diag *d);
/*
 * The same, lazily: no unit indexed yet; dw_file_index_more() indexes the
 * next n units of .debug_info (headers, abbreviation tables, unit DIEs)
 * and returns how many it added (0: none left), or a negative errno.
 * For a reader that stops early (the struct view's first definition of a
 * type).  Adding units may move them: a dw_unit pointer or cursor from
 * before is not valid after.  References into units not yet indexed do
 * not resolve.  A file with .debug_types is indexed whole at once.
 */
int dw_file_open_lazy(struct dw_file **out, const char *path, const struct dw_sections *s,
		      bool big_endian, const struct dw_file *alt, struct diag *d);
int dw_file_index_more(struct dw_file *f, size_t n, struct diag *d);
void dw_file_free(struct dw_file *f);
size_t dw_nunits(const struct dw_file *f);		/* .debug_info then .debug_types */
const struct dw_unit *dw_unit_at(const struct dw_file *f, size_t i);
const char *dw_file_path(const struct dw_file *f);
const struct dw_file *dw_file_alt(const struct dw_file *f);
/* First problem found while indexing (a bad unit header), or NULL. */
const struct diag *dw_file_index_error(const struct dw_file *f);
/* The unit containing global reference ref (in f or its alt file), or NULL. */
const struct dw_unit *dw_unit_of(const struct dw_file *f, uint64_t ref);
/*
 * Entry idx of unit u's address table (DW_OP_addrx, DW_OP_GNU_addr_index);
 * false if out of range (a split unit without its skeleton's: 0).
 */
bool dw_addr_index(const struct dw_file *f, const struct dw_unit *u, uint64_t idx, uint64_t *out);
/* Resolve a type signature to a global DIE ref; 0 if unknown. */
uint64_t dw_sig_lookup(const struct dw_file *f, uint64_t sig);

int dw_cursor_init(struct dw_cursor *c, const struct dw_file *f, const struct dw_unit *u,
		   struct diag *d);
/*
 * dw_cursor_init() on a copy of the unit's bytes, read into *buf (grown to
 * *cap bytes as needed) through dw_sections.info_peek: a walk then reads
 * warm memory instead of faulting in the mapping page by page.  Inline
 * strings and blocks of DIEs decoded by c point into *buf.  Without a
 * peek (or memory for the copy, or for .debug_types and alt file units)
 * c reads the section in place, as dw_cursor_init().
 */
int dw_cursor_init_copy(struct dw_cursor *c, const struct dw_file *f, const struct dw_unit *u,
			uint8_t **buf, size_t *cap, struct diag *d);
/*
 * Position a cursor on the DIE at global reference ref, so that dw_next()
 * returns it at depth 1 and its descendants deeper; a DIE at depth <= 1
 * after it means its subtree is done.
 */
int dw_cursor_at(struct dw_cursor *c, const struct dw_file *f, uint64_t ref, struct diag *d);
/*
 * dw_cursor_at() and dw_die_at() (below) for a reader walking unit home
 * (a cursor from dw_cursor_init_copy or dw_cursor_init, on home->f): a
 * DIE of home's unit is read from the bytes home reads (its copy: no
 * page of the section is touched), others as dw_cursor_at()/dw_die_at()
 * of home->f read them.  Inline strings and blocks then point into
 * home's copy, which must outlive their use.
 */
int dw_cursor_at_home(struct dw_cursor *c, const struct dw_cursor *home, uint64_t ref,
		      struct diag *d);
int dw_die_at_home(const struct dw_cursor *home, uint64_t ref, struct dw_die *die, struct diag *d);
/*
 * Decode the next DIE of the unit in preorder (null entries are consumed
 * and reflected in die->depth).  Returns 1 with *die filled, 0 at the end of
 * the unit, or a negative errno with the reason in the cursor's diag.
 */
int dw_next(struct dw_cursor *c, struct dw_die *die);
/*
 * dw_next() that decodes the attributes only of DIEs want(ctx, tag, depth)
 * accepts; the others come back with their offset, tag, depth and
 * has_children but nattr 0, their values skipped (cheaply, by the
 * abbreviation's fixed size when it has one).
 */
typedef bool (*dw_want_fn)(void *ctx, unsigned tag, int depth);
int dw_next_sel(struct dw_cursor *c, struct dw_die *die, dw_want_fn want, void *ctx);
/*
 * dw_next_sel() that decodes, of a wanted DIE, only the attributes a
 * filter keeps (die->nattr of die->nattr_in), the rest skipped unread.
 * For the common abbreviations (every value of fixed size) the filter
 * keeps a plan per abbreviation: each kept value's offset, so a DIE is
 * its kept values and one jump; an abbreviation with a variable-size
 * value is decoded whole.  A filter holds the plans of one
 * abbreviation table at a time, known by its address: one filter per
 * thread, and dw_filter_forget() before it reads another file's units
 * than the last one's (a freed file's table may come back at the same
 * address).
 */
struct dw_filter;
/* Keep attributes ats[0..n) (codes >= 256 are always kept); NULL if out of memory. */
struct dw_filter *dw_filter_new(const uint16_t *ats, size_t n);
void dw_filter_forget(struct dw_filter *fl);
/* Reading an attribute fl does not keep is a bug of the caller's (see dw_attr()). */
void dw_filter_strict(struct dw_filter *fl);
void dw_filter_free(struct dw_filter *fl);
int dw_next_filtered(struct dw_cursor *c, struct dw_die *die, dw_want_fn want, void *ctx,
		     struct dw_filter *fl);
/*
 * Leaves: runs of childless siblings of one tag (members are 40% of a
 * kernel's DIEs) read as plain values, without a struct dw_die and the
 * general walk's per-DIE work.  A filter has up to DW_LEAF_SHAPES leaf
 * shapes, each for its own tag: up to DW_LEAF_MAX attributes (each kept by
 * the filter) and the class each must have.
 */
#define DW_LEAF_MAX 7
#define DW_LEAF_SHAPES 4
struct dw_leaf {
	unsigned tag, n;
	uint16_t at[DW_LEAF_MAX];
	uint8_t cls[DW_LEAF_MAX];
};
/* Add a leaf shape to fl before its first use; -EINVAL if it does not fit (see above). */
int dw_filter_add_leaf(struct dw_filter *fl, const struct dw_leaf *leaf);
/* One leaf: v[i] the value of the shape's at[i] if bit i of have is set; off its DIE. */
struct dw_leaf_val {
	uint64_t v[DW_LEAF_MAX];
	uint64_t off;
	unsigned have;
};
/*
 * The DIEs from the cursor while they are leaves of tag's shape (no
 * children, every kept value one of the shape's attributes, in its class,
 * of fixed size), at most max of them, into out: each value as
 * dw_next_filtered() would decode it (a string's address for
 * DW_CL_STRING).  Returns how many; the cursor is after them, at the first
 * other entry (the end of a sibling list, another DIE, a malformed one:
 * dw_next_filtered() takes it).
 */
size_t dw_next_leaves(struct dw_cursor *c, struct dw_filter *fl, unsigned tag,
		      struct dw_leaf_val *out, size_t max);
/* Skip the children of die, the DIE last returned by dw_next(). */
int dw_skip_children(struct dw_cursor *c, const struct dw_die *die);
/* Decode the DIE at global reference ref (any unit of f or its alt file). */
int dw_die_at(const struct dw_file *f, uint64_t ref, struct dw_die *die, struct diag *d);
/* Walk a unit decoding only abbreviations and skipping values (the speed floor). */
int dw_walk_skip(const struct dw_file *f, const struct dw_unit *u, uint64_t *ndies,
		 struct diag *d);

/* Attribute lookup in a decoded DIE; NULL if absent. */
/*
 * Built with BTFC_CHECK_FILTER (sanitizer builds): a read of an attribute
 * a strict filter does not keep aborts with this message, instead of
 * finding nothing (the attribute is missing from the reader's list).
 */
void dw_attr_unkept(const struct dw_die *die, unsigned at) __attribute__((noreturn));

static inline const struct dw_attr *dw_attr(const struct dw_die *die, unsigned at)
{
	if (die->slot && at < 256) {
		unsigned k = die->slot[die->widx[at]];

#ifdef BTFC_CHECK_FILTER
		if (die->strict && die->widx[at] == DW_NO_SLOT)
			dw_attr_unkept(die, at);
#endif

		return k ? &die->attr[k - 1] : NULL;
	}
	for (unsigned i = 0; i < die->nattr; i++)
		if (die->attr[i].at == at)
			return &die->attr[i];
	return NULL;
}
const char *dw_name(const struct dw_die *die);	/* DW_AT_name or NULL */
/* Unsigned value of a constant/flag/secoff attribute; false if absent or not constant. */
bool dw_udata(const struct dw_die *die, unsigned at, uint64_t *v);
bool dw_sdata(const struct dw_die *die, unsigned at, int64_t *v);
bool dw_flag(const struct dw_die *die, unsigned at);
/* The referenced DIE (DW_CL_REF, or DW_CL_SIG resolved); 0 if absent. */
uint64_t dw_ref(const struct dw_file *f, const struct dw_die *die, unsigned at);

/* Location of a parameter or variable, as far as BTF encoding needs it. */
enum dw_loc_kind {
	DW_LOC_NONE,		/* no location: optimized out */
	DW_LOC_REG,		/* in register reg at entry */
	DW_LOC_STACK,		/* on the stack / in memory (fbreg, breg, addr) */
	DW_LOC_ENTRY_VALUE,	/* only as DW_OP_entry_value of register reg */
	DW_LOC_CONST,		/* implicit value / stack value */
	DW_LOC_OTHER,
};
struct dw_loc {
	enum dw_loc_kind kind;
	unsigned reg;		/* DWARF register number for REG/ENTRY_VALUE */
	uint64_t addr;		/* DW_OP_addr operand for STACK from an address */
	bool has_addr, is_list;
};
/* Classify one location expression. */
int dw_expr_classify(const uint8_t *p, size_t len, uint8_t addr_size, struct dw_loc *out);
/*
 * Classify DW_AT_location of die: an exprloc/block is classified directly;
 * a location list (DWARF 4 .debug_loc or DWARF 5 .debug_loclists) by its
 * entry covering the function's entry pc (the first entry otherwise).
 */
int dw_loc_classify(const struct dw_file *f, const struct dw_die *die, uint64_t entry_pc,
		    struct dw_loc *out, struct diag *d);

/*
 * Where a parameter is at function entry as pahole (1.25+) reads
 * DW_AT_location: the DW_OP code of its first location when that is a
 * single DW_OP_regN, or of the one operation of a DW_OP_entry_value that
 * is a location of its own (a trailing DW_OP_stack_value ignored).  The
 * walk stops at the first that is `expected` (a DW_OP_regN code); else the
 * last one found is returned; -1: none (also for a malformed list).
 */
int dw_param_entry_op(const struct dw_file *f, const struct dw_die *die, int expected);

const char *dw_tag_name(unsigned v);
const char *dw_at_name(unsigned v);
const char *dw_form_name(unsigned v);

#endif
