// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup: the driver, btf_dedup() (the design is described in internal.h). */
#include "btf/dedup/internal.h"

#include "base/clock.h"
#include "base/pool.h"

#include <pthread.h>

const struct btf_type void_rec;

/* ---- phase 0 for the own types: kinds, id checks, map ------------------- */

static int prep_chunk(void *ctx, unsigned worker, size_t item)
{
	struct dedup *d = ctx;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);

	for (; id < end; id++) {
		struct btf_type *t = T(d, id);
		struct btf_field_iter it;
		enum btf_kind k;
		uint32_t *p;

		k = btf_kind(t);
		d->kinds[id - d->start_id] = (uint8_t)k;
		/* every own reference must resolve (unless the caller checked them) */
		if (d->opts->ids_checked) {
			if (k > BTF_KIND_MAX)
				return diag_err(d->d, EINVAL, "dedup: type %u has unknown kind %u",
						id, k);
		} else {
			if (btf_field_iter_init(&it, t, BTF_FIELD_IDS))
				return diag_err(d->d, EINVAL, "dedup: type %u has unknown kind %u",
						id, k);
			while ((p = btf_field_iter_next(&it)))
				if (*p >= d->nr_all)
					return diag_err(d->d, EINVAL,
							"dedup: type %u refers to invalid id %u", id, *p);
		}
		set_map(d, id, self_canonical_kind(k) ? id : UNPROCESSED);
	}
	return 0;
}

static int prep(struct dedup *d)
{
	if (!d->kinds && !(d->kinds = mem_alloc(MAX(d->nr_own, 1))))
		return -ENOMEM;
	return pool_for(d->nthreads, (d->nr_own + CHUNK - 1) / CHUNK, prep_chunk, d);
}

/* ---- driver ------------------------------------------------------------- */

const char *const btf_dedup_phase_names[BTF_DEDUP_NR_PH] = {
	"prep", "strings", "prims", "structs", "fwds", "refs", "compact",
};

static void lap(struct dedup *d, int ph, double *t)
{
	double n;

	if (!d->opts->stats)
		return;
	n = clock_now();
	d->opts->stats->secs[ph] = n - *t;
	*t = n;
}

static int fail(struct dedup *d, int err, const char *phase)
{
	if (!d->d || d->d->code)
		return err;
	return diag_err(d->d, -err, "dedup: %s phase failed: %s", phase, strerror(-err));
}

/*
 * Phase 5's pass calls dedup_ref() for every kind the earlier phases do
 * not map (VAR and DATASEC map to themselves in prep); dedup_ref() itself
 * reports a kind it cannot handle.
 */
static inline bool ref_pass_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
	default:	/* unknown: dedup_ref() reports it */
		break;
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_FWD: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM64:
		return false;	/* phases 2-4 and prep map them */
	}
	return true;
}

/*
 * dedup_ref() rewrites its records as libbpf does: a borrowed input (a
 * read-only mapping, say) is copied first.  Nothing else writes to the
 * input's records: the string phase rewrites into a copy, the levelled
 * phase 5 resolves as it reads, compaction writes a new section.
 */
static int own_writable(struct dedup *d)
{
	if (btf_writable(d->btf))
		return -ENOMEM;
	d->owords = d->btf->types;
	d->oidx = d->btf->index;
	return 0;
}

/*
 * The thread beside phases 2-4: whether the strings are canonical already
 * (when the run left that for it, d->strs_spec), then, if they are, step
 * 1 of the levelled phase 5.  If not, a new one runs step 1 beside phases
 * 2-4 after the string phase, which would share the cores with it.
 */
struct side {
	struct ref_order *ro;
	bool check;			/* the strings first */
	int canon;			/* strs_canonical()'s answer, or 2 (none yet) */
	double end;			/* when it was done */
};

static void *side_run(void *p)
{
	struct side *s = p;

	if (s->check) {
		__atomic_store_n(&s->canon, strs_canonical(s->ro->d, s->ro->d->nr_all),
				 __ATOMIC_RELEASE);
		if (s->canon != 1)
			goto out;
	}
	ref_order_run(s->ro);
out:
	s->end = clock_now();
	return NULL;
}

/*
 * After phases 2-4 (started at beg, ended now) and the side thread, if
 * any: the time only one of them had work, for --stats.
 */
static void side_serial(struct dedup *d, const struct side *s, bool th, double beg, double now)
{
	d->serial += !th ? now - beg : now > s->end ? now - s->end : s->end - now;
}

/* Phases 2-4; 1 as soon as *canon says the strings were not canonical (canon: may be NULL). */
static int phases_234(struct dedup *d, const int *canon, double *t)
{
	uint32_t id;
	int err = 0;

	for (id = d->start_id; id < d->nr_all; id++) {
		if (canon && !(id % CHUNK) && !__atomic_load_n(canon, __ATOMIC_ACQUIRE))
			return 1;	/* (the side thread found them not canonical) */
		if (prim_kind(K(d, id)) && (err = dedup_prim(d, id)))
			return fail(d, err, "primitive");
	}
	lap(d, BTF_DEDUP_PH_PRIM, t);
	for (id = d->start_id; id < d->nr_all; id++) {
		if (canon && !(id % CHUNK) && !__atomic_load_n(canon, __ATOMIC_ACQUIRE))
			return 1;
		if (struct_phase_kind(d, K(d, id)) && (err = dedup_struct(d, id)))
			return fail(d, err, "struct");
	}
	lap(d, BTF_DEDUP_PH_STRUCT, t);
	if ((err = dedup_fwds(d)))
		return fail(d, err, "forward");
	lap(d, BTF_DEDUP_PH_FWD, t);
	return 0;
}

/*
 * Phases 2-4 ran on the strings as they were, which were not canonical:
 * back to the state after prep, the string phase, and prep again (its map).
 */
static int unspeculate(struct dedup *d, double *t)
{
	int err;

	if (d->d)
		diag_clear(d->d);
	dtab_free(&d->tab);
	dtab_free(&d->enum_idx);
	mem_free(d->fwd_enum_names.v);
	memset(&d->fwd_enum_names, 0, sizeof(d->fwd_enum_names));
	d->hypot_list.n = d->hypot_merge.n = d->stack.n = d->stack2.n = 0;
	d->adjust_canon = false;
	d->conflicts = d->adjusts = 0;
	memset(d->hypot, 0, (size_t)d->nr_all * sizeof(*d->hypot));
	if (dtab_init(&d->tab, 0, &d->pb->tab))
		return fail(d, -ENOMEM, "struct");
	d->strs_checked = true;
	if ((err = dedup_strings(d)))
		return fail(d, err, "string");
	d->owords = d->btf->types;
	lap(d, BTF_DEDUP_PH_STRS, t);
	if ((err = prep(d)))
		return fail(d, err, "prep");
	return 0;
}

/*
 * Phases 2-5 over the own ids of a prepared run.  With d->strs_spec
 * (a standalone run on two or more threads), the string phase has not
 * run: phases 2-4 run as if the strings were canonical already (then the
 * phase changes nothing), while the side thread checks that they are,
 * which on vmlinux.btf x8 took 10 ms, a third of the serial path; if
 * they are not, phases 2-4 stop and run again after the string phase.
 * Nothing they do depends on the strings but the offsets they compare.
 */
static int dedup_phases(struct dedup *d, double *t)
{
	struct ref_order ro = { .d = d };
	struct side side = { .ro = &ro, .check = d->strs_spec, .canon = 2 };
	double beg = clock_now(), now;
	bool th_ok = false;
	uint32_t id;
	pthread_t th;
	int err = 0;

	if (d->levelled_refs) {
		ro.window = d->opts->level_window ? d->opts->level_window : LEVEL_WINDOW;
		if (!(ro.hgt = mem_array(MAX(d->nr_own, 1), 1)))
			return fail(d, -ENOMEM, "reference");
		/* step 1 of the levelled phase 5 beside phases 2-4 */
		th_ok = d->nthreads > 1 && !pthread_create(&th, NULL, side_run, &side);
	}
	if (d->strs_spec && !th_ok) {	/* no thread: the string phase first after all */
		d->strs_spec = false;
		if ((err = dedup_strings(d)))
			err = fail(d, err, "string");
		d->owords = d->btf->types;
		lap(d, BTF_DEDUP_PH_STRS, t);
	}
	if (!err)
		err = phases_234(d, d->strs_spec ? &side.canon : NULL, t);
	now = clock_now();
	if (th_ok)
		pthread_join(th, NULL);
	side_serial(d, &side, th_ok, beg, now);
	if (d->strs_spec && side.canon != 1) {
		th_ok = false;
		if (side.canon < 0) {
			err = fail(d, side.canon, "string");
		} else if (!(err = unspeculate(d, t))) {
			side.check = false;
			beg = clock_now();
			th_ok = !pthread_create(&th, NULL, side_run, &side);
			err = phases_234(d, NULL, t);
			now = clock_now();
			if (th_ok)
				pthread_join(th, NULL);
			side_serial(d, &side, th_ok, beg, now);
		}
	}
	/*
	 * Nothing reads the hypothetical map until compaction numbers the
	 * survivors into a fresh one: phase 5 is the peak of a big run
	 * (vmlinux: its 17 MB were a third of dedup's own memory there).
	 */
	mem_free(d->hypot);
	d->hypot = NULL;
	if (!err) {
		if (d->levelled_refs && !th_ok)
			ref_order_run(&ro);
		if (d->levelled_refs && ro.err != -E2BIG) {
			err = dedup_refs_levelled(d, &ro);
		} else {	/* (a chain of over 254 reference types: serially) */
			err = own_writable(d);
			for (id = d->start_id; id < d->nr_all && !err; id++)
				if (ref_pass_kind(K(d, id)))
					err = dedup_ref(d, id);
		}
		if (err)
			err = fail(d, err, "reference");
		else
			lap(d, BTF_DEDUP_PH_REF, t);
	}
	mem_free(ro.hgt);
	mem_free(ro.order.v);
	mem_free(ro.wend.v);
	mem_free(ro.st.v);
	return err;
}

static void dedup_free(struct dedup *d)
{
	mem_free(d->kinds);
	mem_free(d->map);
	mem_free(d->hypot);
	mem_free(d->hypot_list.v);
	mem_free(d->hypot_merge.v);
	mem_free(d->stack.v);
	mem_free(d->stack2.v);
	dtab_free(&d->tab);
	dtab_free(&d->enum_idx);
	mem_free(d->fwd_enum_names.v);
}

int btf_dedup(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag)
{
	static const struct btf_dedup_opts defaults;
	int err;

	if (!opts)
		opts = &defaults;
	if (opts->stats)
		memset(opts->stats, 0, sizeof(*opts->stats));
	if (!opts->exact && (err = dedup_groups(btf, opts, diag)) <= 0)
		return err;
	return dedup_run(btf, opts, NULL, diag);
}

/*
 * One run of every phase over btf's own types: libbpf's btf__dedup(),
 * byte for byte.  x (may be NULL) carries what a group's run of the two
 * levels shares and returns.
 */
int dedup_run(struct btf *btf, const struct btf_dedup_opts *opts, struct dedup_ext *x,
	      struct diag *diag)
{
	struct btf_dedup_base *own_pb = NULL;
	const struct btf_dedup_base *pb;
	struct dedup d = { 0 };
	double t = clock_now(), t0 = t;
	int err;

	d.btf = btf;
	d.opts = opts;
	d.d = diag;
	d.nthreads = opts->nr_threads ? opts->nr_threads : 1;
	d.head = opts->compat == BTF_DEDUP_LIBBPF_HEAD;
	d.start_id = btf->start_id;
	d.nr_all = btf_type_count(btf);
	d.nr_own = d.nr_all - d.start_id;
	d.levelled_refs = !btf->base && !opts->serial_refs;
	pb = x && x->pb ? x->pb : opts->prepared_base;
	if (pb) {	/* (a group's run: the trivial one without a base) */
		if (pb->base != btf->base || (!btf->base && !(x && x->pb)))
			return diag_err(diag, EINVAL, "dedup: prepared base is not this BTF's base");
		if (pb->head != d.head)
			return diag_err(diag, EINVAL, "dedup: prepared base made for another --compat");
	} else if (!btf->base) {
		/* this run's own prepared base (trivial for base BTF) */
		if (!(own_pb = pb_new(NULL, opts, false, &err, diag)))
			return err;
		pb = own_pb;
	}
	d.pb = pb;	/* NULL: a split run's own base table, made after the strings */
	if (pb) {
		d.btp = pb->tp;
		d.bwords = pb->bwords;
		d.bidx = pb->bidx;
	}
	/*
	 * Strings first: phases 2-5 hash and compare the final string offsets
	 * (libbpf hashes after its string phase too), and the string phase's
	 * temporary memory is gone before the big arrays exist.  A standalone
	 * run on threads checks whether they are final already beside phases
	 * 2-4 instead (dedup_phases()), unless its first chunk of types shows
	 * they are not (vmlinux plus all modules: at type 152; running phases
	 * 2-4 twice cost it 2 ms).
	 */
	if (!x && d.levelled_refs && !opts->keep_strings && d.nthreads > 1 &&
	    d.nr_all > d.start_id) {
		int canon = strs_canonical(&d, MIN(d.nr_all, d.start_id + CHUNK));

		d.strs_spec = canon == 1;
		d.strs_checked = !canon;	/* (-ENOMEM: the string phase meets it again) */
	}
	if (!d.strs_spec) {
		if ((err = dedup_strings(&d))) {
			err = fail(&d, err, "string");
			goto out;
		}
		lap(&d, BTF_DEDUP_PH_STRS, &t);
	}
	if (!pb) {
		if (!(own_pb = pb_new_for(btf->base, btf, d.head, &err, diag)))
			goto out;
		d.pb = pb = own_pb;
		d.btp = pb->tp;
		d.bwords = pb->bwords;
		d.bidx = pb->bidx;
	}
	d.owords = btf->types;
	d.oidx = btf->index;
	d.map_out = x ? x->map_out : NULL;
	d.fwd_names = x ? x->fwd_names : NULL;
	/* zeroed is the starting state (see MAPV); touched all over */
	d.map = mem_array(MAX(d.nr_all, 1), sizeof(*d.map));
	d.hypot = mem_array(MAX(d.nr_all, 1), sizeof(*d.hypot));
	if (!d.map || !d.hypot ||
	    dtab_init(&d.tab, 0, &pb->tab)) {
		err = diag_err(diag, ENOMEM, "dedup: out of memory for %u types", d.nr_all);
		goto out;
	}
	if ((err = prep(&d))) {
		err = fail(&d, err, "prep");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_PREP, &t);
	if ((err = dedup_phases(&d, &t)))
		goto out;
	dtab_free(&d.tab);
	mem_free(d.kinds);	/* read up to phase 5 */
	d.kinds = NULL;
	if ((err = compact(&d))) {
		err = fail(&d, err, "compaction");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_COMPACT, &t);
	if (opts->stats) {
		struct btf_dedup_stats *st = opts->stats;

		st->nr_in = d.nr_own;
		st->nr_out = btf_type_count(btf) - d.start_id;
		st->conflicts += d.conflicts;
		/* one thread: phases 2-4 where the side thread had no work, 5 unless by levels */
		st->serial_secs += d.serial + (d.levelled_refs ? 0 : st->secs[BTF_DEDUP_PH_REF]);
		if (d.nthreads < 2)
			st->serial_secs = clock_now() - t0;
	}
	if (x) {
		x->conflicts = d.conflicts;
		x->adjusts = d.adjusts;
	}
out:
	dedup_free(&d);
	btf_dedup_base_free(own_pb);
	return err;
}
