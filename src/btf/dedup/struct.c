// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup, phases 3 and 4: struct/union graph equivalence, leftover FWDs. */
#include "btf/dedup/internal.h"

/* ---- phase 3: struct/union graph equivalence ---------------------------- */

/*
 * Up to the end of phase 3 an id resolves to a FWD, STRUCT or UNION only
 * if it is one (phase 2 maps INT, ENUM, FLOAT and FWD ids to ids of their
 * kind, phase 3 FWD and STRUCT/UNION ids to these kinds and, with
 * --compat head, TYPEDEF ids to TYPEDEFs).  So a hypothetical pair with
 * none of these kinds on either side is one merge_hypot() leaves alone:
 * two thirds of vmlinux's pairs (pointers, prototypes, typedefs, arrays).
 */
static inline bool sfu_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_ENUM: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static inline int hypot_note(struct dedup *d, uint32_t canon, enum btf_kind cand_kind,
			     enum btf_kind canon_kind)
{
	if (!sfu_kind(cand_kind) && !sfu_kind(canon_kind))
		return 0;
	return u32vec_push(&d->hypot_merge, canon) ? -ENOMEM : 0;
}

static inline int hypot_add(struct dedup *d, uint32_t from, uint32_t to)
{
	if (u32vec_push(&d->hypot_list, from))
		return -ENOMEM;
	set_hyp(d, from, to);
	return 0;
}

static void hypot_clear(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_list.n; i++) {
		uint32_t c = d->hypot_list.v[i];

		set_hyp(d, c, UNPROCESSED);
	}
	d->hypot_list.n = 0;
	d->hypot_merge.n = 0;
	d->adjust_canon = false;
}

static bool identical_arrays(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = T(d, a), *y = T(d, b);

	if (btf_kind(x) != BTF_KIND_ARRAY || btf_kind(y) != BTF_KIND_ARRAY)
		return false;
	return equal_array(x, y);
}

/*
 * libbpf 1.1: identical STRUCT/UNION definitions, members compared by id,
 * else as identical arrays, else as identical structs (recursively).  An
 * AND over the whole tree, so an explicit stack in any order gives the
 * same answer.  Depth is bounded (libbpf would recurse forever on a
 * struct embedding itself; we answer "not identical").
 */
#define IDENT_MAX_PAIRS	(1u << 20)

static bool identical_structs(struct dedup *d, uint32_t a, uint32_t b)
{
	struct u32vec *st = &d->stack2;
	size_t visited = 0;

	st->n = 0;
	if (u32vec_push(st, a) || u32vec_push(st, b))
		return false;
	while (st->n) {
		uint32_t y = st->v[--st->n], x = st->v[--st->n];
		const struct btf_type *t1 = T(d, x), *t2 = T(d, y);
		const struct btf_member *m1, *m2;
		unsigned i, n;

		if (!btf_is_composite_kind(btf_kind(t1)) || btf_kind(t1) != btf_kind(t2))
			return false;
		if (!shallow_equal_struct(t1, t2))
			return false;
		if (++visited > IDENT_MAX_PAIRS)
			return false;
		m1 = btf_members(t1);
		m2 = btf_members(t2);
		for (i = 0, n = btf_vlen(t1); i < n; i++) {
			if (m1[i].type == m2[i].type || identical_arrays(d, m1[i].type, m2[i].type))
				continue;
			if (u32vec_push(st, m1[i].type) || u32vec_push(st, m2[i].type))
				return false;
		}
	}
	return true;
}

/*
 * libbpf HEAD's generic check (depth 16), with arrays compared on both
 * sides (HEAD compares the first array with itself, docs/btf.md 4.7.2).
 */
static bool identical_types(const struct dedup *d, uint32_t a, uint32_t b, int depth)
{
	const struct btf_type *t1, *t2;
	unsigned i, n;

again:
	if (depth <= 0)
		return false;
	t1 = T(d, a);
	t2 = T(d, b);
	if (btf_kind(t1) != btf_kind(t2))
		return false;
	switch (btf_kind(t1)) {
	case BTF_KIND_UNKN:
		return true;
	case BTF_KIND_INT:
		return equal_int_tag(t1, t2);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return compat_enum(t1, t2);
	case BTF_KIND_FWD: case BTF_KIND_FLOAT:
		return equal_common(t1, t2);
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_TYPE_TAG:
		if (t1->info != t2->info || t1->name_off != t2->name_off)
			return false;
		a = t1->type;
		b = t2->type;
		if (a == b)
			return true;
		goto again;
	case BTF_KIND_ARRAY: {
		const struct btf_array *x = btf_array(t1), *y = btf_array(t2);

		if (!compat_array(t1, t2))
			return false;
		if (x->index_type != y->index_type &&
		    !identical_types(d, x->index_type, y->index_type, depth - 1))
			return false;
		return x->type == y->type || identical_types(d, x->type, y->type, depth - 1);
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
		const struct btf_member *m1 = btf_members(t1), *m2 = btf_members(t2);

		if (!shallow_equal_struct(t1, t2))
			return false;
		for (i = 0, n = btf_vlen(t1); i < n; i++)
			if (m1[i].type != m2[i].type &&
			    !identical_types(d, m1[i].type, m2[i].type, depth - 1))
				return false;
		return true;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p1 = btf_params(t1), *p2 = btf_params(t2);

		if (!compat_fnproto(t1, t2))
			return false;
		if (t1->type != t2->type && !identical_types(d, t1->type, t2->type, depth - 1))
			return false;
		for (i = 0, n = btf_vlen(t1); i < n; i++)
			if (p1[i].type != p2[i].type &&
			    !identical_types(d, p1[i].type, p2[i].type, depth - 1))
				return false;
		return true;
	}
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
	default:
		return false;
	}
}

/*
 * libbpf btf_dedup_is_equiv(cand, canon): a depth-first walk over both
 * graphs side by side.  Every recursive call in libbpf returns at once on
 * a result other than 1, and nothing happens after the last child, so a
 * stack of pending (cand, canon) pairs pushed in reverse child order
 * visits the pairs in exactly libbpf's order with the same side effects.
 * Returns 1, 0 or -errno.
 */
static int is_equiv(struct dedup *d, uint32_t cand0, uint32_t canon0)
{
	struct u32vec *st = &d->stack;

	st->n = 0;
	if (u32vec_push(st, cand0) || u32vec_push(st, canon0))
		return -ENOMEM;
	while (st->n) {
		uint32_t canon = st->v[--st->n], cand = st->v[--st->n], h;
		const struct btf_type *ct, *nt;
		enum btf_kind ck, nk;
		unsigned i, n;

		/*
		 * cand mapped straight to canon (an earlier walk merged them;
		 * vmlinux: 3.0M of the 29.4M pairs): both resolve to one id,
		 * so libbpf goes on too, and neither canon's hypothetical nor
		 * its map entry, both far away, need be read.
		 */
		if (MAPV(d, cand) == canon)
			continue;
		/*
		 * A pair this walk already accepted (41% of the pairs on
		 * vmlinux): libbpf gets there after two resolves and a look
		 * at canon's kind, and the answer is the same, since an id
		 * with a hypothetical partner is its own resolve_fwd().
		 */
		if (hyp(d, canon) == cand)
			continue;
		if (resolve(d, cand) == resolve(d, canon))
			continue;
		canon = resolve_fwd(d, canon);
		h = hyp(d, canon);
		if (h <= MAX_ID) {
			if (h == cand)
				continue;
			if (d->head) {
				if (identical_types(d, h, cand, 16))
					continue;
			} else {
				if (identical_arrays(d, h, cand) || identical_structs(d, h, cand))
					continue;
			}
			d->conflicts++;
			return 0;
		}
		if (hypot_add(d, canon, cand))
			return -ENOMEM;
		ct = T(d, cand);
		nt = T(d, canon);
		ck = btf_kind(ct);
		nk = btf_kind(nt);
		if (hypot_note(d, canon, ck, nk))
			return -ENOMEM;
		if (ct->name_off != nt->name_off)
			return 0;
		if ((ck == BTF_KIND_FWD || nk == BTF_KIND_FWD) && ck != nk) {
			unsigned real, fwd;

			if (ck == BTF_KIND_FWD) {
				real = nk;
				fwd = btf_kflag(ct) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
			} else {
				real = ck;
				fwd = btf_kflag(nt) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
				if (fwd == real && canon < d->start_id)
					d->adjust_canon = true;
			}
			if (fwd != real)
				return 0;
			continue;
		}
		if (ck != nk)
			return 0;
		switch (ck) {
		case BTF_KIND_INT:
			if (!equal_int_tag(ct, nt))
				return 0;
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!compat_enum(ct, nt))
				return 0;
			break;
		case BTF_KIND_FWD:
		case BTF_KIND_FLOAT:
			if (!equal_common(ct, nt))
				return 0;
			break;
		case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
		case BTF_KIND_TYPE_TAG:
			if (ct->info != nt->info)
				return 0;
			if (u32vec_push(st, ct->type) || u32vec_push(st, nt->type))
				return -ENOMEM;
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *x = btf_array(ct), *y = btf_array(nt);

			if (!compat_array(ct, nt))
				return 0;
			/* index types first, then element types */
			if (u32vec_push(st, x->type) || u32vec_push(st, y->type) ||
			    u32vec_push(st, x->index_type) || u32vec_push(st, y->index_type))
				return -ENOMEM;
			break;
		}
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: {
			const struct btf_member *m1 = btf_members(ct), *m2 = btf_members(nt);

			if (!shallow_equal_struct(ct, nt))
				return 0;
			n = btf_vlen(ct);
			if (st->n + 2 * n > st->cap && VEC_RESERVE(st->v, st->cap, st->n + 2 * n))
				return -ENOMEM;
			for (i = n; i-- > 0;) {
				st->v[st->n++] = m1[i].type;
				st->v[st->n++] = m2[i].type;
			}
			break;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p1 = btf_params(ct), *p2 = btf_params(nt);

			if (!compat_fnproto(ct, nt))
				return 0;
			n = btf_vlen(ct);
			if (st->n + 2 * n + 2 > st->cap &&
			    VEC_RESERVE(st->v, st->cap, st->n + 2 * n + 2))
				return -ENOMEM;
			for (i = n; i-- > 0;) {
				st->v[st->n++] = p1[i].type;
				st->v[st->n++] = p2[i].type;
			}
			st->v[st->n++] = ct->type;
			st->v[st->n++] = nt->type;
			break;
		}
		case BTF_KIND_UNKN: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		case BTF_KIND_DECL_TAG:
		default:
			return -EINVAL;
		}
	}
	return 1;
}

static void merge_hypot(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_merge.n; i++) {
		uint32_t canon = d->hypot_merge.v[i], targ = hyp(d, canon);
		uint32_t t_id = resolve(d, targ), c_id = resolve(d, canon);
		unsigned tk = KI(d, t_id), ck = KI(d, c_id);

		if (tk != BTF_KIND_FWD && ck == BTF_KIND_FWD)
			set_map(d, c_id, t_id);
		if (d->adjust_canon)
			continue;
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			set_map(d, t_id, c_id);
		if ((tk == BTF_KIND_STRUCT || tk == BTF_KIND_UNION) && ck != BTF_KIND_FWD &&
		    is_mapped(d, c_id) && !is_mapped(d, t_id))
			set_map(d, t_id, c_id);
	}
}

static inline bool ptr_like(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/*
 * A struct's member signature: per member, the PTR/CONST/VOLATILE/
 * RESTRICT kinds in front of its type and the name it ends at (at most 8
 * steps).  Equal signatures are necessary for is_equiv() between two
 * shallow-equal structs: it visits every member pair before it succeeds,
 * and every pair it accepts agrees in kind step by step and has equal
 * names at the end (resolved-equal types, FWD/struct pairs, hypot partners
 * and identical types all do); chains that meet at one id agree from
 * there.  Anonymous structs of one shape share a hash bucket by the
 * hundred in the kernel (vmlinux x8: 2.8M is_equiv calls, 98% on
 * anonymous structs, 2% successful); most are turned away by this,
 * without touching the hypot map.  Never 0.
 */
static uint32_t member_sig(const struct dedup *d, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	unsigned i, n = btf_vlen(t), steps;
	uint64_t h = 0;

	for (i = 0; i < n; i++) {
		uint32_t x = m[i].type;

		for (steps = 0; steps < 8; steps++) {
			const struct btf_type *tx = T(d, x);
			enum btf_kind k = btf_kind(tx);

			if (!ptr_like(k)) {
				h = hc(h, tx->name_off);
				break;
			}
			h = hc(h, 0x80000000u | k);
			x = tx->type;
		}
		h = hc(h, steps);
	}
	return fold64(h) | 1;
}

int dedup_struct(struct dedup *d, uint32_t id)
{
	uint32_t new_id = id, cid, sig = 0;
	unsigned k;
	struct btf_type *t;
	struct dcand it;
	uint64_t h;

	/*
	 * Most ids are mapped by an earlier walk (vmlinux: 1.08M of 1.14M):
	 * their records are not read.
	 */
	if (is_mapped(d, id))
		return 0;
	t = T(d, id);
	k = btf_kind(t);
	if (!struct_phase_kind(d, k))
		return 0;
	kind_hash(d, t, &h);
	if (k != BTF_KIND_TYPEDEF)
		sig = member_sig(d, t);
	/*
	 * Without a base table, a struct's candidates are filed under hash
	 * and signature: those of another signature, which the loop below
	 * turns away, are not met at all (vmlinux plus all modules: 4.2M of
	 * them for 32k structs).  Those of this one keep their order (a
	 * chain's order is its entries' insertion sides, entry by entry), so
	 * the first one is_equiv() accepts is libbpf's.  A base group must
	 * be met where libbpf's chain has it, so split runs keep the hash.
	 */
	if (sig && !d->tab.base)
		h = hash_combine(h, sig);
	for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
		const struct btf_type *c;
		int eq;

		if (sig && it.aux && it.aux != sig)
			continue;	/* a canonical own struct: its signature is kept */
		c = T(d, cid);
		if (k == BTF_KIND_TYPEDEF) {
			if (c->name_off != t->name_off || c->info != t->info)
				continue;
		} else if (!shallow_equal_struct(t, c) || (sig && !it.aux && member_sig(d, c) != sig)) {
			continue;
		}
		hypot_clear(d);
		eq = is_equiv(d, id, cid);
		if (eq < 0)
			return eq;
		if (!eq)
			continue;
		merge_hypot(d);
		if (d->adjust_canon) {
			d->adjusts++;
			continue;
		}
		new_id = cid;
		break;
	}
	set_map(d, id, new_id);
	if (new_id == id && dtab_add_aux(&d->tab, h, id, sig))
		return -ENOMEM;
	return 0;
}

/* ---- phase 4: leftover FWDs by unique name ------------------------------ */

int dedup_fwds(struct dedup *d)
{
	struct u32vec fwds = { 0 }, comps = { 0 };	/* canonical FWDs, structs/unions */
	struct nmap m = { 0 };
	size_t i, j;
	uint32_t id;
	int err = 0;

	/* one pass over every type; the rest works on these two lists, in id order */
	for (id = d->start_id; id < d->nr_all; id++) {
		unsigned k = K(d, id);

		if ((k != BTF_KIND_FWD && !btf_is_composite_kind(k)) || OMAP(d, id) != id)
			continue;
		if (u32vec_push(k == BTF_KIND_FWD ? &fwds : &comps, id)) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (!fwds.n)
		goto out;
	m.nslots = 16;
	while (m.nslots < fwds.n * 2)
		m.nslots *= 2;
	m.key = mem_array(m.nslots, sizeof(*m.key));
	m.val = mem_array(m.nslots, sizeof(*m.val));
	m.used = mem_array(m.nslots, 1);
	if (!m.key || !m.val || !m.used) {
		err = -ENOMEM;
		goto out;
	}
	/* names of the FWDs to resolve; val UNPROCESSED = no struct seen yet */
	for (i = 0; i < fwds.n; i++) {
		const struct btf_type *t = T(d, fwds.v[i]);

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j] && m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		if (m.used[j])
			continue;
		m.used[j] = 1;
		m.key[j] = t->name_off;
		/* base structs/unions (always canonical) from the prepared base */
		m.val[j] = pb_name_lookup(d->pb, t->name_off);
	}
	/* canonical own structs/unions: unique name -> id, else 0 */
	for (i = 0; i < comps.n; i++) {
		const struct btf_type *t = T(d, id = comps.v[i]);

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j];
		     j = (j + 1) & (m.nslots - 1)) {
			if (m.key[j] == t->name_off) {
				m.val[j] = m.val[j] == UNPROCESSED ? id : 0;
				break;
			}
		}
	}
	for (i = 0; i < fwds.n; i++) {
		const struct btf_type *t = T(d, id = fwds.v[i]), *c;
		uint32_t cid;

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		cid = m.val[j];
		if (cid == UNPROCESSED || cid == 0)
			continue;
		c = T(d, cid);
		if ((btf_kind(c) == BTF_KIND_STRUCT) != !btf_kflag(t))
			continue;
		set_map(d, id, cid);
		if (d->fwd_names && u32vec_push(d->fwd_names, t->name_off)) {
			err = -ENOMEM;
			goto out;
		}
	}
out:
	mem_free(fwds.v);
	mem_free(comps.v);
	mem_free(m.key);
	mem_free(m.val);
	mem_free(m.used);
	return err;
}
