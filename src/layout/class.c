// SPDX-License-Identifier: GPL-2.0-only
/*
 * pahole's struct and union printer (class__fprintf, union__fprintf and
 * what they call in dwarves_fprintf.c): members with their offset
 * comments, holes, bit holes, cacheline boundaries, the "XXX last struct
 * has" lines and the summary.  Output must match pahole's byte for byte:
 * see layout.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "base/mem.h"
#include "layout/layout.h"
#include "layout/layout_internal.h"
#include "layout/print.h"

/* class__fprintf_cacheline_boundary */
static size_t cacheline_boundary(struct layout *l, const struct conf *conf, uint32_t offset,
				 struct sink *s)
{
	int indent = conf->indent;
	uint32_t cls = l->cacheline_size;
	uint32_t cacheline = offset / cls;
	size_t printed = 0;

	if (cacheline > *conf->cachelinep) {
		const uint32_t cacheline_pos = offset % cls;
		const uint32_t cacheline_in_bytes = offset - cacheline_pos;

		if (cacheline_pos == 0)
			printed += (size_t)sp(s, "/* --- cacheline %u boundary (%u bytes) --- */\n",
					      cacheline, cacheline_in_bytes);
		else
			printed += (size_t)sp(s, "/* --- cacheline %u boundary (%u bytes) was %u byte%s ago --- */\n",
					      cacheline, cacheline_in_bytes, cacheline_pos,
					      cacheline_pos > 1 ? "s" : "");
		printed += (size_t)sput_tabs(s, indent);
		*conf->cachelinep = cacheline;
	}
	return printed;
}

/*
 * A member line's offset and size comment, as class_member__fprintf
 * prints it ("%*s" then the comment with "%5u", ":%2u", "%*u", or the
 * --hex forms); decimal without printf.
 */
static size_t offset_comment(struct sink *s, bool hex, int spacing, uint32_t offset,
			     const struct lmember *m, int size)
{
	int size_spacing = 5, pad = spacing < 0 ? -spacing : spacing;
	size_t printed;

	if (hex)
		printed = (size_t)sp(s, "%*s/* %#5x", spacing, " ", offset);
	else
		printed = (size_t)(sput_pad(s, pad > 1 ? pad : 1) + sput(s, "/* ", 3) +
				   sput_u(s, offset, 5));
	if (m->bitfield_size != 0) {
		unsigned bitfield_offset = (unsigned)m->bitfield_offset;

		if (m->bitfield_offset < 0)
			bitfield_offset = (unsigned)((int)m->byte_size * 8 + m->bitfield_offset);
		if (hex)
			printed += (size_t)sp(s, ":%#2x", bitfield_offset);
		else
			printed += (size_t)(sput(s, ":", 1) + sput_u(s, bitfield_offset, 2));
		size_spacing -= 3;
	}
	if (hex)
		printed += (size_t)sp(s, " %#*x */", size_spacing, size);
	else
		printed += (size_t)(sput(s, " ", 1) + sput_u(s, (unsigned)size, size_spacing) +
				    sput(s, " */", 3));
	return printed;
}

/* class_member__fprintf */
static size_t class_member_fprintf(struct layout *l, struct lmember *member, bool union_member,
				   uint32_t tid, const struct conf *conf, struct sink *s)
{
	const struct btf_type *type = ptag(l, tid);
	const int size = (int)member->byte_size;
	int member_alignment_printed = 0;
	struct conf sconf = *conf;
	uint32_t offset = member->byte_offset;
	size_t printed = 0, printed_cacheline = 0;
	const char *cm_name = member->name, *name = cm_name;
	bool scomposite = pt_is_union(type) || pt_is_struct(type) || pt_is_enum(type);

	if (!sconf.rel_offset) {
		offset += sconf.base_offset;
		if (!union_member)
			sconf.base_offset = offset;
	}
	if (member->bitfield_offset < 0)
		offset += (uint32_t)member->byte_size;
	if (!conf->suppress_comments)
		printed_cacheline = cacheline_boundary(l, conf, offset, s);
	if (scomposite) {
		printed += type_fprintf(l, tid, NULL, &sconf, s);
		if (name) {
			/* 1.30: an expanded named type ends in "}" too */
			if (!pt_name(l, type) || (sconf.expand_types && compat_130(l)))
				printed += (size_t)sput(s, " ", 1);
			printed += (size_t)sput_s(s, name);
		}
	} else {
		printed += type_fprintf(l, tid, name, &sconf, s);
	}
	if (member->bitfield_size != 0)
		printed += (size_t)sp(s, ":%u", member->bitfield_size);
	if (!sconf.suppress_aligned_attribute && member->alignment != 0) {
		member_alignment_printed = sp(s, " __attribute__((__aligned__(%u)))", member->alignment);
		printed += (size_t)member_alignment_printed;
	}
	sput(s, ";", 1);
	++printed;
	if (scomposite && pt_name(l, type) == NULL) {
		if (!sconf.suppress_offset_comment) {
			int slen = member_alignment_printed + (cm_name ? (int)strlen(cm_name) : -1);

			if (pt_is_struct(type) && !conf->suppress_packed) {
				struct lclass *mc = lclass_get(l, tid);

				if (mc && mc->is_packed)
					slen += (int)sizeof("__attribute__((__packed__))");
			}
			printed += offset_comment(s, sconf.hex_fmt,
						  sconf.type_spacing + sconf.name_spacing - slen - 3,
						  offset, member, size);
		}
	} else {
		int spacing = sconf.type_spacing + sconf.name_spacing - (int)printed;

		if (!sconf.suppress_offset_comment)
			printed += offset_comment(s, sconf.hex_fmt, spacing > 0 ? spacing : 0, offset,
						  member, size);
	}
	return printed + printed_cacheline;
}

/* union__fprintf */
size_t union_fprintf(struct layout *l, struct lclass *u, const struct conf *conf, struct sink *s)
{
	size_t printed = 0;
	int indent = conf->indent;
	struct conf uconf;
	uint32_t initial_union_cacheline, cacheline = 0, i;
	const char *tn = pt_name(l, u->t);

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (conf->prefix)
		printed += (size_t)sp(s, "%s ", conf->prefix);
	printed += (size_t)sp(s, "union%s%s {\n", tn ? " " : "", tn ? tn : "");
	uconf = *conf;
	uconf.indent = (uint8_t)(indent + 1);
	union_infer_packed(l, u);
	if (!uconf.cachelinep)
		uconf.cachelinep = &cacheline;
	initial_union_cacheline = *uconf.cachelinep;
	for (i = 0; i < u->nr; i++) {
		struct lmember *pos = &u->m[i];

		if (!ptag(l, pos->type)) {
			printed += (size_t)sput_tabs(s, uconf.indent);
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "union__fprintf", 0,
					      (unsigned long long)pos->type);
			continue;
		}
		uconf.union_member = 1;
		printed += (size_t)sput_tabs(s, uconf.indent);
		printed += class_member_fprintf(l, pos, true, pos->type, &uconf, s);
		sput(s, "\n", 1);
		++printed;
		*uconf.cachelinep = initial_union_cacheline;
	}
	return printed + (size_t)sp(s, "%.*s}%s%s", indent, tabs, conf->suffix ? " " : "",
				    conf->suffix ? conf->suffix : "");
}

/*
 * What 1.30 totals about the struct types of a struct's members (struct
 * member_types_holes, with its field widths: hostile BTF can wrap them).
 */
struct member_types_holes {
	uint16_t nr_paddings, nr_with_bit_paddings, nr_with_holes, nr_with_bit_holes;
	uint16_t total_nr_holes, total_nr_bit_holes;
	uint16_t nr_flexible_array_members, nr_embedded_flexible_array_members;
	uint32_t sum_paddings, sum_bit_paddings;
};

/*
 * The "XXX last struct has ..." line after a member whose type is struct
 * tc: its padding (1.24: nothing else), or 1.30's list of its flexible
 * array, embedded flexible arrays, padding, bit padding, holes and bit
 * holes (class__fprintf_member_type_holes).  Counted into h.
 */
static size_t member_type_holes(struct layout *l, struct lclass *tc, struct member_types_holes *h,
				uint8_t *newline, const struct conf *conf, struct sink *s)
{
	uint16_t padding;
	uint8_t nr_holes, nr_bit_holes, bit_padding;	/* pahole's widths: more than 255 holes wrap */
	bool first = true, flex = false, emb = false;
	size_t printed = 0;

	class_find_holes(l, tc);
	class_infer_packed(l, tc);
	padding = tc->padding;
	bit_padding = tc->bit_padding;
	nr_holes = (uint8_t)tc->nr_holes;
	nr_bit_holes = (uint8_t)tc->nr_bit_holes;
	if (!compat_130(l)) {
		if (padding == 0)
			return 0;
		h->nr_paddings++;
		h->sum_paddings += padding;
		if (!(*newline)++)
			printed += (size_t)sput(s, "\n", 1);
		return printed + (size_t)sp(s, "\n%.*s/* XXX last struct has %d byte%s of padding */",
					    conf->indent, tabs, padding, padding != 1 ? "s" : "");
	}
	flex = class_has_flexible_array(l, tc);
	emb = class_has_embedded_flexible_array(l, tc, 0);
	if (!padding && !bit_padding && !nr_holes && !nr_bit_holes && !flex && !emb)
		return 0;
	if (!(*newline)++)
		printed += (size_t)sput(s, "\n", 1);
	printed += (size_t)sp(s, "\n%.*s/* XXX last struct has", conf->indent, tabs);
	if (flex) {
		printed += (size_t)sp(s, " a flexible array");
		h->nr_flexible_array_members++;
		first = false;
	}
	if (emb) {
		printed += (size_t)sp(s, "%s embedded flexible array(s)", first ? "" : ",");
		h->nr_embedded_flexible_array_members++;
		first = false;
	}
	if (padding) {
		h->nr_paddings++;
		h->sum_paddings += padding;
		printed += (size_t)sp(s, "%s %d byte%s of padding", first ? "" : ",", padding,
				      padding != 1 ? "s" : "");
		first = false;
	}
	if (bit_padding) {
		h->nr_with_bit_paddings++;
		h->sum_bit_paddings += bit_padding;
		printed += (size_t)sp(s, "%s %d bit%s of padding", first ? "" : ",", bit_padding,
				      bit_padding != 1 ? "s" : "");
		first = false;
	}
	if (nr_holes) {
		h->nr_with_holes++;
		h->total_nr_holes += nr_holes;
		printed += (size_t)sp(s, "%s %d hole%s", first ? "" : ",", nr_holes, nr_holes != 1 ? "s" : "");
		first = false;
	}
	if (nr_bit_holes) {
		h->nr_with_bit_holes++;
		h->total_nr_bit_holes += nr_bit_holes;
		printed += (size_t)sp(s, "%s %d bit hole%s", first ? "" : ",", nr_bit_holes,
				      nr_bit_holes != 1 ? "s" : "");
	}
	return printed + (size_t)sp(s, " */");
}

/*
 * __class__fprintf.  One piece (250 lines) as pahole's is: the output
 * must match it byte for byte, and its state (the running offset, the
 * last cacheline, the sums for the summary) is carried from member to
 * member through one loop.
 */
size_t class_fprintf(struct layout *l, struct lclass *c, const struct conf *conf, struct sink *s)
{
	const struct btf_type *t = c->t;
	const char *tn = pt_name(l, t);
	size_t last_size = 0, size;
	uint8_t newline = 0;
	uint16_t nr_forced_alignments = 0, nr_forced_alignment_holes = 0;
	uint32_t sum_forced_alignment_holes = 0;
	uint32_t sum_bytes = 0, sum_bits = 0, sum_holes = 0, sum_bit_holes = 0;
	struct member_types_holes mth = { 0 };
	uint32_t cacheline = 0, i;
	int size_diff;
	struct lmember *last = NULL;
	struct conf cconf = *conf;
	int indent = cconf.indent;
	size_t printed = (size_t)sp(s, "%s%s%s%s%s", cconf.prefix ? cconf.prefix : "",
				    cconf.prefix ? " " : "", "struct", tn ? " " : "", tn ? tn : "");

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (!cconf.cachelinep)
		cconf.cachelinep = &cacheline;
	cconf.indent = (uint8_t)(indent + 1);
	cconf.no_semicolon = 0;
	class_infer_packed(l, c);
	printed += (size_t)sput(s, " {\n", 3);
	if (c->pre_bit_hole > 0 && !cconf.suppress_comments) {
		if (!newline++) {
			sput(s, "\n", 1);
			++printed;
		}
		printed += (size_t)sp(s, "%.*s/* XXX %d bit%s hole, try to pack */\n", cconf.indent,
				      tabs, c->pre_bit_hole, c->pre_bit_hole != 1 ? "s" : "");
		sum_bit_holes += c->pre_bit_hole;
	}
	if (c->pre_hole > 0 && !cconf.suppress_comments) {
		if (!newline++) {
			sput(s, "\n", 1);
			++printed;
		}
		printed += (size_t)sp(s, "%.*s/* XXX %d byte%s hole, try to pack */\n", cconf.indent,
				      tabs, c->pre_hole, c->pre_hole != 1 ? "s" : "");
		sum_holes += c->pre_hole;
	}
	for (i = 0; i < c->nr; i++) {
		struct lmember *pos = &c->m[i];
		const struct btf_type *pos_type;

		if (!cconf.suppress_aligned_attribute && pos->alignment != 0) {
			uint32_t fah = last ? (uint32_t)last->hole : c->pre_hole;

			if (fah != 0) {
				++nr_forced_alignment_holes;
				sum_forced_alignment_holes += fah;
			}
			++nr_forced_alignments;
		}
		if (last != NULL && last_size != 0) {
			if (last->bit_hole != 0 && pos->bitfield_size) {
				uint8_t bitfield_size = last->bit_hole;

				if (!ptag(l, pos->type)) {
					printed += (size_t)sput_tabs(s, cconf.indent);
					printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>",
							      "__class__fprintf", 0,
							      (unsigned long long)pos->type);
					goto next_member;
				}
				if (last->byte_offset != pos->byte_offset) {
					printed += (size_t)sp(s, "\n%.*s/* Force alignment to the next boundary: */\n",
							      cconf.indent, tabs);
					bitfield_size = 0;
				}
				printed += (size_t)sput_tabs(s, cconf.indent);
				printed += type_fprintf(l, pos->type, "", &cconf, s);
				printed += (size_t)sp(s, ":%u;\n", bitfield_size);
			}
			if (pos->byte_offset < last->byte_offset ||
			    (pos->byte_offset == last->byte_offset && last->bitfield_size == 0 &&
			     pos->bitfield_size != 0)) {
				if (!cconf.suppress_comments) {
					if (!newline++) {
						sput(s, "\n", 1);
						++printed;
					}
					printed += (size_t)sp(s, "%.*s/* Bitfield combined with previous fields */\n",
							      cconf.indent, tabs);
				}
			} else {
				const long long cc_last_size = (long long)pos->byte_offset -
							       (long long)last->byte_offset;

				if (cc_last_size > 0 && (size_t)cc_last_size < last_size) {
					if (!cconf.suppress_comments) {
						if (!newline++) {
							sput(s, "\n", 1);
							++printed;
						}
						printed += (size_t)sp(s, "%.*s/* Bitfield combined with next fields */\n",
								      cconf.indent, tabs);
					}
				}
			}
		}
		if (newline) {
			sput(s, "\n", 1);
			newline = 0;
			++printed;
		}
		pos_type = ptag(l, pos->type);
		if (!pos_type) {
			printed += (size_t)sput_tabs(s, cconf.indent);
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "__class__fprintf", 0,
					      (unsigned long long)pos->type);
			goto next_member;
		}
		cconf.last_member = i == c->nr - 1;
		cconf.first_member = last == NULL;
		size = (size_t)pos->byte_size;
		printed += (size_t)sput_tabs(s, cconf.indent);
		printed += class_member_fprintf(l, pos, false, pos->type, &cconf, s);
		if (pt_is_struct(pos_type) && !cconf.suppress_comments) {
			struct lclass *tc = lclass_get(l, pos->type);

			if (tc)
				printed += member_type_holes(l, tc, &mth, &newline, &cconf, s);
		}
		if (pos->bit_hole != 0 && !cconf.suppress_comments) {
			if (!newline++) {
				sput(s, "\n", 1);
				++printed;
			}
			printed += (size_t)sp(s, "\n%.*s/* XXX %d bit%s hole, try to pack */", cconf.indent,
					      tabs, pos->bit_hole, pos->bit_hole != 1 ? "s" : "");
			sum_bit_holes += pos->bit_hole;
		}
		if (pos->hole > 0 && !cconf.suppress_comments) {
			if (!newline++) {
				sput(s, "\n", 1);
				++printed;
			}
			printed += (size_t)sp(s, "\n%.*s/* XXX %d byte%s hole, try to pack */", cconf.indent,
					      tabs, pos->hole, pos->hole != 1 ? "s" : "");
			sum_holes += (uint32_t)pos->hole;
		}
		sput(s, "\n", 1);
		++printed;
		if (pos->bitfield_size)
			sum_bits += pos->bitfield_size;
		else
			sum_bytes += (uint32_t)pos->byte_size;
		if (last == NULL || last_size == 0 || last->byte_offset != pos->byte_offset)
			last_size = size;
		else if (last->bitfield_size == 0 && pos->bitfield_size != 0)
			last_size = size;
		last = pos;
		continue;
next_member:
		/* 1.24 goes on as if the member was not there, 1.30 as if it was printed */
		if (compat_130(l))
			last = pos;
	}
	/*
	 * pahole -F dwarf (a loader with alignment info): a struct without
	 * DW_AT_alignment whose tail padding is more than an address shows
	 * that padding as unnamed bitfields of its last member's type, when
	 * that type's size is a power of 2.
	 */
	if (l->o.dwarf && !l->o.suppress_force_paddings && c->padding && !c->alignment && last &&
	    last->byte_size && !(last->byte_size & (last->byte_size - 1)) &&
	    (uint32_t)c->padding > l->addr_size) {
		uint64_t added;

		printed += (size_t)sp(s, "\n%.*s/* Force padding: */\n", cconf.indent, tabs);
		for (added = 0; added < (uint32_t)c->padding; added += last->byte_size) {
			printed += (size_t)sput_tabs(s, cconf.indent);
			printed += type_fprintf(l, last->type, "", &cconf, s);
			printed += (size_t)sp(s, ":%u;\n", (unsigned)(last->byte_size * 8));
		}
	}
	if (!cconf.emit_stats)
		goto out;
	printed += (size_t)sp(s, "\n%.*s/* size: %d, cachelines: %zd, members: %u */\n", cconf.indent,
			      tabs, (int)class_size(t),
			      (size_t)((class_size(t) + l->cacheline_size - 1) / l->cacheline_size),
			      class_nr_members(t));
	if (sum_holes > 0 || sum_bit_holes > 0) {
		if (sum_bytes > 0) {
			printed += (size_t)sp(s, "%.*s/* sum members: %u", cconf.indent, tabs, sum_bytes);
			if (sum_holes > 0)
				printed += (size_t)sp(s, ", holes: %d, sum holes: %u", c->nr_holes, sum_holes);
			printed += (size_t)sp(s, " */\n");
		}
		if (sum_bits > 0) {
			printed += (size_t)sp(s, "%.*s/* sum bitfield members: %u bits", cconf.indent, tabs,
					      sum_bits);
			if (sum_bit_holes > 0)
				printed += (size_t)sp(s, ", bit holes: %d, sum bit holes: %u bits",
						      c->nr_bit_holes, sum_bit_holes);
			else
				printed += (size_t)sp(s, " (%u bytes)", sum_bits / 8);
			printed += (size_t)sp(s, " */\n");
		}
	}
	if (c->padding > 0)
		printed += (size_t)sp(s, "%.*s/* padding: %u */\n", cconf.indent, tabs, c->padding);
	if (mth.nr_with_holes > 0 || mth.nr_with_bit_holes > 0 || mth.nr_with_bit_paddings > 0) {
		const char *sep = "";

		printed += (size_t)sp(s, "%.*s/* member types with ", cconf.indent, tabs);
		if (mth.nr_with_holes > 0) {
			printed += (size_t)sp(s, "holes: %u, total: %u", mth.nr_with_holes,
					      mth.total_nr_holes);
			sep = ", ";
		}
		if (mth.nr_with_bit_holes > 0) {
			printed += (size_t)sp(s, "%sbit holes: %u, total: %u", sep, mth.nr_with_bit_holes,
					      mth.total_nr_bit_holes);
			sep = ", ";
		}
		if (mth.nr_with_bit_paddings > 0)
			printed += (size_t)sp(s, "%sbit paddings: %u, total: %u bit%s", sep,
					      mth.nr_with_bit_paddings, mth.sum_bit_paddings,
					      mth.sum_bit_paddings > 1 ? "s" : "");
		printed += (size_t)sp(s, " */\n");
	}
	if (mth.nr_paddings > 0)
		printed += (size_t)sp(s, "%.*s/* paddings: %u, sum paddings: %u */\n", cconf.indent, tabs,
				      mth.nr_paddings, mth.sum_paddings);
	if (c->bit_padding > 0)
		printed += (size_t)sp(s, "%.*s/* bit_padding: %u bits */\n", cconf.indent, tabs,
				      c->bit_padding);
	if (!cconf.suppress_aligned_attribute && nr_forced_alignments != 0) {
		printed += (size_t)sp(s, "%.*s/* forced alignments: %u", cconf.indent, tabs,
				      nr_forced_alignments);
		if (nr_forced_alignment_holes != 0)
			printed += (size_t)sp(s, ", forced holes: %u, sum forced holes: %u",
					      nr_forced_alignment_holes, sum_forced_alignment_holes);
		printed += (size_t)sp(s, " */\n");
	}
	if (mth.nr_flexible_array_members > 0 || mth.nr_embedded_flexible_array_members > 0) {
		printed += (size_t)sp(s, "%.*s/* flexible array members: ", cconf.indent, tabs);
		if (mth.nr_flexible_array_members > 0)
			printed += (size_t)sp(s, "end: %u", mth.nr_flexible_array_members);
		if (mth.nr_embedded_flexible_array_members > 0)
			printed += (size_t)sp(s, "%smiddle: %u", mth.nr_flexible_array_members ? ", " : "",
					      mth.nr_embedded_flexible_array_members);
		printed += (size_t)sp(s, " */\n");
	}
	/*
	 * 1.30 takes the cacheline size from conf, 1.31 from its copy cconf
	 * (dwarves_fprintf.c): the same number, as nothing here changes it.
	 */
	cacheline = (cconf.base_offset + class_size(t)) % l->cacheline_size;
	if (cacheline != 0)
		printed += (size_t)sp(s, "%.*s/* last cacheline: %u bytes */\n", cconf.indent, tabs,
				      cacheline);
	size_diff = (int)(class_size(t) * 8) - (int)(sum_bytes * 8 + sum_bits + sum_holes * 8 +
						     sum_bit_holes + c->padding * 8u + c->bit_padding);
	if (size_diff && class_nr_members(t) != 0)
		printed += (size_t)sp(s, "\n%.*s/* BRAIN FART ALERT! %d bytes != %u (member bytes) + %u (member bits) + %u (byte holes) + %u (bit holes), diff = %d bits */\n",
				      cconf.indent, tabs, (int)class_size(t), sum_bytes, sum_bits,
				      sum_holes, sum_bit_holes, size_diff);
out:
	printed += (size_t)sp(s, "%.*s}", indent, tabs);
	if (c->is_packed && !cconf.suppress_packed)
		printed += (size_t)sp(s, " __attribute__((__packed__))");
	if (cconf.suffix)
		printed += (size_t)sp(s, " %s", cconf.suffix);
	if (!cconf.suppress_aligned_attribute && c->alignment != 0 && !c->is_packed)
		printed += (size_t)sp(s, " __attribute__((__aligned__(%u)))", c->alignment);
	return printed;
}
