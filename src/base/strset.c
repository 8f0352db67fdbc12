// SPDX-License-Identifier: GPL-2.0-only
#include "base/strset.h"

#include "base/mem.h"

static int rehash(struct strset *s, size_t nslots)
{
	struct strset_slot *slots = mem_array(nslots, sizeof(*slots));
	size_t i;

	if (!slots)
		return -ENOMEM;
	mem_tag(slots, "string index");
	for (i = 0; i < s->nslots; i++) {
		size_t j;

		if (!s->slots[i].off1)
			continue;
		for (j = s->slots[i].hash & (nslots - 1); slots[j].off1; j = (j + 1) & (nslots - 1))
			;
		slots[j] = s->slots[i];
	}
	if (!s->slots_borrowed)
		mem_free(s->slots);
	s->slots = slots;
	s->nslots = nslots;
	s->slots_borrowed = false;
	return 0;
}

/* Index the string at off in the empty slot lookup() found; grows the table. */
static int fill_slot(struct strset *s, size_t slot, size_t off, uint32_t h)
{
	s->slots[slot].off1 = (uint32_t)off + 1;
	s->slots[slot].hash = h;
	if (++s->count * 4 > s->nslots * 3 && rehash(s, s->nslots * 2))
		return -ENOMEM;
	return 0;
}

/* Slots (from nslots, doubled) for n strings at most 3/4 full. */
static size_t slots_for(size_t nslots, size_t n)
{
	while (nslots * 3 < n * 4)
		nslots *= 2;
	return nslots;
}

int strset_init(struct strset *s, bool with_empty)
{
	memset(s, 0, sizeof(*s));
	if (rehash(s, 1024))
		return -ENOMEM;
	if (with_empty && strset_add(s, "", 0) < 0) {
		strset_free(s);
		return -ENOMEM;
	}
	return 0;
}

void strset_free(struct strset *s)
{
	if (!s->borrowed)
		mem_free(s->data);
	if (!s->slots_borrowed)
		mem_free(s->slots);
	memset(s, 0, sizeof(*s));
}

static int64_t lookup(const struct strset *s, const char *str, size_t len, uint32_t h,
		      size_t *slot)
{
	size_t j, n = 0;

	for (j = h & (s->nslots - 1); s->slots[j].off1 && n++ < s->nslots;
	     j = (j + 1) & (s->nslots - 1)) {
		uint32_t off = s->slots[j].off1 - 1;

		if (s->slots[j].hash == h && off + len < s->len &&
		    bytes_eq(s->data + off, str, len) && s->data[off + len] == 0)
			return off;
	}
	*slot = j;
	return -ENOENT;
}

int64_t strset_find_hashed(const struct strset *s, const char *str, size_t len, uint32_t h)
{
	size_t slot;

	if (!s->nslots)
		return -ENOENT;
	return lookup(s, str, len, h, &slot);
}

int64_t strset_find(const struct strset *s, const char *str, size_t len)
{
	return strset_find_hashed(s, str, len, strset_hash(str, len));
}

static int64_t insert(struct strset *s, const char *str, size_t len, uint32_t h, bool dedup)
{
	size_t slot;
	int64_t off;

	if (!s->nslots && strset_index(s))	/* strset_adopt(), strset_borrow() */
		return -ENOMEM;
	off = lookup(s, str, len, h, &slot);
	if (off >= 0)
		return off;
	if (!dedup)
		return -ENOENT;
	if (s->len + len + 1 > 0x7fffffffu)
		return -E2BIG;
	if (s->slots_borrowed) {	/* copy on first write: the index, then the data */
		if (rehash(s, s->nslots * 2))	/* room even if the borrowed one was full */
			return -ENOMEM;
		if (lookup(s, str, len, h, &slot) >= 0)
			return -EINVAL;	/* cannot be: it was not there before */
	}
	if (s->borrowed) {	/* copy on first write */
		char *p = mem_alloc(s->len + len + 1);

		if (!p)
			return -ENOMEM;
		memcpy(p, s->data, s->len);
		s->data = p;
		s->cap = s->len + len + 1;
		s->borrowed = false;
	}
	if (mem_grow_tag((void **)&s->data, &s->cap, 1, s->len + len + 1, "strings"))
		return -ENOMEM;
	off = s->len;
	memcpy(s->data + off, str, len);
	s->data[off + len] = 0;
	s->len += len + 1;
	return fill_slot(s, slot, (size_t)off, h) ? -ENOMEM : off;
}

int64_t strset_add_hashed(struct strset *s, const char *str, size_t len, uint32_t h)
{
	return insert(s, str, len, h, true);
}

int64_t strset_add(struct strset *s, const char *str, size_t len)
{
	return insert(s, str, len, strset_hash(str, len), true);
}

int64_t strset_add_at(struct strset *s, size_t at, const char *str, size_t len, uint32_t h)
{
	size_t slot;
	int64_t off;

	if (strset_index(s))
		return -ENOMEM;
	if (s->slots_borrowed || s->borrowed || at >= s->len || len >= s->len - at ||
	    !bytes_eq(s->data + at, str, len) || s->data[at + len])
		return insert(s, str, len, h, true);
	off = lookup(s, str, len, h, &slot);
	if (off >= 0)
		return off;
	return fill_slot(s, slot, at, h) ? -ENOMEM : (int64_t)at;
}

void strset_adopt(struct strset *s, char *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->data = data;
	s->len = s->cap = len;
}

void strset_borrow(struct strset *s, const char *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->data = (char *)data;
	s->len = len;
	s->borrowed = true;
}

void strset_borrow_indexed(struct strset *s, const char *data, size_t len,
			   const struct strset_slot *slots, size_t nslots, size_t count)
{
	strset_borrow(s, data, len);
	if (!nslots || (nslots & (nslots - 1)))
		return;	/* no usable index: lookups find nothing */
	s->slots = (struct strset_slot *)slots;
	s->nslots = nslots;
	s->count = count;
	s->slots_borrowed = true;
}

int strset_index(struct strset *s)
{
	const char *data = s->data, *end, *p;
	size_t n = 0, pos = 0;

	if (s->nslots)
		return 0;
	end = s->len ? data + s->len : data;	/* a new set's data is NULL */
	/* Size the table once: one slot per string at most 3/4 full. */
	for (p = data; p < end && (p = memchr(p, 0, (size_t)(end - p))); p++)
		n++;
	if (rehash(s, slots_for(1024, n)))
		return -ENOMEM;
	/* Index each string that starts at a NUL boundary; keep the first copy. */
	while (pos < s->len) {
		const char *z = memchr(data + pos, 0, s->len - pos);
		size_t l, slot;
		uint32_t h;

		if (!z)
			break;
		l = (size_t)(z - (data + pos));
		h = strset_hash(data + pos, l);
		if (lookup(s, data + pos, l, h, &slot) < 0 && fill_slot(s, slot, pos, h))
			return -ENOMEM;
		pos += l + 1;
	}
	return 0;
}

int strset_init_after_empty(struct strset *s, const char *data, size_t len)
{
	if (strset_init(s, true))
		return -ENOMEM;
	if (mem_grow_tag((void **)&s->data, &s->cap, 1, len + 1, "strings")) {
		strset_free(s);
		return -ENOMEM;
	}
	memcpy(s->data + 1, data, len);
	s->len = len + 1;
	return 0;
}

int strset_reserve(struct strset *s, size_t n, size_t bytes)
{
	size_t nslots;

	if (strset_index(s))	/* a borrowed section's strings go in first */
		return -ENOMEM;
	nslots = slots_for(s->nslots, n);
	if (nslots > s->nslots && rehash(s, nslots))
		return -ENOMEM;
	/* a borrowed section is copied, to its size, by the first add */
	if (bytes && !s->borrowed && mem_grow_tag((void **)&s->data, &s->cap, 1, s->len + bytes, "strings"))
		return -ENOMEM;
	return 0;
}

int strset_init_from(struct strset *s, const char *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	if (mem_grow_tag((void **)&s->data, &s->cap, 1, len + 1, "strings"))
		return -ENOMEM;
	memcpy(s->data, data, len);
	s->len = len;
	if (strset_index(s)) {
		strset_free(s);
		return -ENOMEM;
	}
	return 0;
}
