// SPDX-License-Identifier: GPL-2.0-only
/* struct btf -> raw blob in canonical section order (docs/btf.md 1.11). */
#include "btf/btf.h"
#include "btf/btf_internal.h"

#include "base/mem.h"

int btf_write(const struct btf *btf, void **out, size_t *len, struct diag *d)
{
	bool sw = btf->endian != btf_host_endian();
	uint32_t hdr_len = btf->hdr_len, type_len, layout_len, str_len;
	uint32_t hdr[8] = { 0 };
	uint64_t total;
	uint8_t *buf, *q;
	size_t i, nhdr;

	*out = NULL;
	*len = 0;
	if (hdr_len < BTF_HDR_LEN)
		hdr_len = BTF_HDR_LEN;
	layout_len = btf->nlayout * 4;
	if (layout_len && hdr_len < BTF_HDR_LEN_LAYOUT)
		hdr_len = BTF_HDR_LEN_LAYOUT;
	if (btf->types_len > UINT32_MAX / 4)
		return diag_err(d, E2BIG, "type section of %zu words is too large", btf->types_len);
	type_len = (uint32_t)btf->types_len * 4;
	str_len = (uint32_t)btf->strs.len;
	total = (uint64_t)hdr_len + type_len + layout_len + str_len;
	if (total > UINT32_MAX)
		return diag_err(d, E2BIG, "BTF blob of %llu bytes is too large",
				(unsigned long long)total);
	buf = mem_zalloc(total);
	if (!buf)
		return diag_err(d, ENOMEM, "out of memory for a %llu-byte BTF blob",
				(unsigned long long)total);

	/* Header: magic/version/flags then u32 fields. */
	hdr[1] = hdr_len;
	hdr[2] = 0;
	hdr[3] = type_len;
	hdr[4] = type_len + layout_len;
	hdr[5] = str_len;
	hdr[6] = layout_len ? type_len : 0;
	hdr[7] = layout_len;
	nhdr = MIN(hdr_len, (uint32_t)BTF_HDR_LEN_LAYOUT) / 4;
	for (i = 1; i < nhdr; i++)
		store32(buf + 4 * i, sw ? bswap32(hdr[i]) : hdr[i]);
	store16(buf, sw ? bswap16(BTF_MAGIC) : BTF_MAGIC);
	buf[2] = BTF_VERSION;
	buf[3] = 0;

	q = buf + hdr_len;
	if (sw) {
		for (i = 0; i < btf->types_len; i++)
			store32(q + 4 * i, bswap32(btf->types[i]));
	} else if (type_len) {
		memcpy(q, btf->types, type_len);
	}
	q += type_len;
	for (i = 0; i < btf->nlayout; i++) {
		struct btf_layout l = btf->layout[i];

		if (sw)
			l.flags = bswap16(l.flags);
		memcpy(q + 4 * i, &l, 4);
	}
	q += layout_len;
	if (str_len)
		memcpy(q, btf->strs.data, str_len);
	*out = buf;
	*len = (size_t)total;
	return 0;
}
