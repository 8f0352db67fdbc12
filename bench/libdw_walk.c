// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bench reference (never linked into btfc): walk every DIE of a file with
 * libdw (dwarf_child/dwarf_siblingof) and decode each attribute with
 * dwarf_getattrs + the matching dwarf_form* call, as pahole's loader does.
 * Prints "dies: N" and "time: S".
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static unsigned long long sink;

static int attr_cb(Dwarf_Attribute *a, void *arg)
{
	Dwarf_Word u;
	Dwarf_Sword s;
	Dwarf_Die ref;
	Dwarf_Block b;
	Dwarf_Addr addr;
	const char *str;
	bool flag;

	switch (dwarf_whatform(a)) {
	case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_strx:
	case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
	case DW_FORM_GNU_strp_alt:
		str = dwarf_formstring(a);
		sink += str ? (unsigned char)str[0] : 0;
		break;
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata: case DW_FORM_ref_addr: case DW_FORM_ref_sig8:
	case DW_FORM_GNU_ref_alt:
		if (dwarf_formref_die(a, &ref))
			sink += dwarf_dieoffset(&ref);
		break;
	case DW_FORM_addr: case DW_FORM_addrx:
		if (!dwarf_formaddr(a, &addr))
			sink += addr;
		break;
	case DW_FORM_flag: case DW_FORM_flag_present:
		if (!dwarf_formflag(a, &flag))
			sink += flag;
		break;
	case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
	case DW_FORM_exprloc:
		if (!dwarf_formblock(a, &b))
			sink += b.length;
		break;
	case DW_FORM_sdata: case DW_FORM_implicit_const:
		if (!dwarf_formsdata(a, &s))
			sink += (Dwarf_Word)s;
		break;
	default:
		if (!dwarf_formudata(a, &u))
			sink += u;
	}
	(*(unsigned long long *)arg)++;
	return DWARF_CB_OK;
}

static unsigned long long walk(Dwarf_Die *die, unsigned long long *nattrs)
{
	unsigned long long n = 0;
	Dwarf_Die child;

	do {
		n++;
		dwarf_getattrs(die, attr_cb, nattrs, 0);
		if (dwarf_child(die, &child) == 0)
			n += walk(&child, nattrs);
	} while (dwarf_siblingof(die, die) == 0);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long long dies = 0, nattrs = 0;
	Dwarf_Off off = 0, next;
	struct timespec t0, t1;
	size_t hsize;
	Dwarf *dw;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = open(argv[1], O_RDONLY);
	dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	if (!dw) {
		fprintf(stderr, "%s: cannot open DWARF\n", argv[1]);
		return 2;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			dies += walk(&cu, &nattrs);
		off = next;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("dies: %llu\nattrs: %llu\ntime: %.3f s\n", dies, nattrs,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	dwarf_end(dw);
	close(fd);
	return sink == 42;
}
