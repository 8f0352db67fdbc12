/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An ELF file's DWARF, ready to read: the ELF opened, its debug sections
 * prepared (decompressed, relocated) and indexed, the dwz alternate file
 * (.gnu_debugaltlink, .debug_sup) opened when there is one, and split
 * DWARF's units read from the skeletons' .dwo files or PATH.dwp (or the
 * .dwo or .dwp itself, given as path).
 */
#ifndef BTFC_ENCODE_INPUT_H
#define BTFC_ENCODE_INPUT_H

#include "dwarf/dwarf.h"
#include "elf/elf.h"

struct dwarf_input {
	struct belf *elf, *alt_elf;
	struct dw_file *dw, *alt;
	char *alt_path;
	struct bslice dw_str;	/* .debug_str, for telling its strings apart */
	struct bslice dw_info;	/* .debug_info, to release pages of finished units */
	/* .debug_info read by ranges, relocated as they are read (elf.h: BELF_DEBUG_RANGED) */
	const struct belf_ranged *info_ranged;
	struct bslice dw_loclists;	/* .debug_loclists, likewise (1.30+ reads parameters' lists) */
	struct split *split;	/* split DWARF: the sections joined with the .dwo files' (input.c) */
};

/*
 * Open path's DWARF; an ELF with no DWARF is an error (ENODATA).  jobs:
 * threads for indexing it (dw_file_open).
 */
int dwarf_input_open(struct dwarf_input *in, const char *path, unsigned jobs, struct diag *d);
/*
 * The same with .debug_info relocated whole into a copy, as a reference
 * for reading it by ranges (elf.h, BELF_DEBUG_RANGED: what
 * dwarf_input_open does when it can): the same DWARF either way.
 */
int dwarf_input_open_whole(struct dwarf_input *in, const char *path, unsigned jobs,
			   struct diag *d);
/* The same with in->dw indexed lazily (dw_file_open_lazy), for a reader that stops early. */
int dwarf_input_open_lazy(struct dwarf_input *in, const char *path, struct diag *d);
void dwarf_input_close(struct dwarf_input *in);
/*
 * Done reading the DWARF: free its indexes (abbreviation tables, units)
 * and the sections' copies, and give the files' mapped pages back.  The ELF stays open (an in-place
 * write follows); in->dw and in->alt are NULL afterwards.
 */
void dwarf_input_done(struct dwarf_input *in);
/* Fetch every debug section of e into s. */
int dwarf_sections_load(struct belf *e, struct dw_sections *s, struct diag *d);

#endif
