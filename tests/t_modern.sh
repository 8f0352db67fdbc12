#!/usr/bin/env bash
# pahole 1.30 and 1.31 (docs/pahole-policies.md): their function and
# variable policy on fixtures that exercise each rule, the 1.31 features
# (global_var, attributes), and, when present, the real references: pahole
# 1.31's output on Debian's 6.12 kernel (../shared/reference) and Debian
# 13's build of it, whose BTF pahole 1.30 made.  make check-kernel runs
# every module of both (scripts/check-kernel-modern.sh).
. "$(dirname "$0")/lib.sh"
P=$WORK/bin/pahole
mkdir -p "$WORK/bin" && ln -sf "$BTFC" "$P"
F="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"
funcs() { "$BTFC" dump "$@" | sed -nE "s/^\[[0-9]+\] FUNC '([^']+)'.*/\1/p" | sort | tr '\n' ' '; }
skips() { sed -nE 's/^(.+) : skipping BTF encoding of function due to (.+)/\1: \2/p' "$1" | sort | tr '\n' ';'; }

# --- clones: scale() only as scale.constprop.0; sum_big()'s clone lists its
# parameters differently from its abstract instance.
cat > "$WORK/sfx.c" <<'EOF'
struct big { long a[8]; };
static __attribute__((noinline)) long scale(long v, int mul) { return v * mul + 1; }
static __attribute__((noinline)) long sum_big(struct big b, int unused) { return b.a[0] + b.a[7]; }
long use_scale(long v) { return scale(v, 3) + scale(v + 1, 3); }
long use_big(struct big *p) { return sum_big(*p, 0); }
EOF
gcc -g -O2 -c "$WORK/sfx.c" -o "$WORK/sfx.o"
if nm "$WORK/sfx.o" | grep -q ' scale\.constprop' && ! nm "$WORK/sfx.o" | grep -q ' scale$'; then
	"$P" -J -V $F --btf_encode_detached="$WORK/s31.btf" "$WORK/sfx.o" > "$WORK/s31.out"
	[ "$(funcs "$WORK/s31.btf")" = "scale use_big use_scale " ] &&
		pass "1.31: a clone-only function is encoded under its name" ||
		fail "1.31 clones: $(funcs "$WORK/s31.btf")"
	[ "$(skips "$WORK/s31.out")" = "sum_big: param type mismatch for param#1 b != unused;" ] &&
		pass "1.31: a concrete instance whose parameters differ drops the function, in pahole's words" ||
		fail "1.31 clone skips: $(skips "$WORK/s31.out")"
	BTFC_PAHOLE_VERSION=1.30 "$P" -J -V $F --btf_encode_detached="$WORK/s30.btf" "$WORK/sfx.o" > "$WORK/s30.out"
	[ "$(funcs "$WORK/s30.btf")" = "scale use_big use_scale " ] &&
	grep -qx 'sum_big (sum_big.constprop.0.isra.0): skipping BTF encoding of function due to param type mismatch for param#1 b != unused' "$WORK/s30.out" &&
		pass "1.30: the same, its message naming the ELF symbol" ||
		{ fail "1.30 clones: $(funcs "$WORK/s30.btf")"; cat "$WORK/s30.out"; }
	BTFC_PAHOLE_VERSION=1.30 "$P" -J --btf_features=consistent_func \
		--btf_encode_detached="$WORK/s30n.btf" "$WORK/sfx.o"
	[ "$(funcs "$WORK/s30n.btf")" = "use_big use_scale " ] &&
		pass "1.30 without optimized_func: exact ELF names only" ||
		fail "1.30 no optimized_func: $(funcs "$WORK/s30n.btf")"
	"$P" -J --btf_features=optimized_func --btf_encode_detached="$WORK/s31k.btf" "$WORK/sfx.o"
	[ "$(funcs "$WORK/s31k.btf")" = "scale sum_big use_big use_scale " ] &&
		pass "1.31 without consistent_func: every matched function kept" ||
		fail "1.31 no consistent_func: $(funcs "$WORK/s31k.btf")"
	BTFC_PAHOLE_VERSION=1.24 "$P" -J --btf_encode_detached="$WORK/s24.btf" "$WORK/sfx.o"
	[ "$(funcs "$WORK/s24.btf")" = "use_big use_scale " ] &&
		pass "1.24: exact ELF names, first definition" || fail "1.24 clones: $(funcs "$WORK/s24.btf")"
else
	skip "gcc did not make the constprop-only clone the fixture expects"
fi

# --- one name at two addresses (two static helpers in one image).  pahole
# 1.31 never judges the name that sorts last, nor an address of 0: the
# second image, without the zz_ functions, keeps helper.
for n in 1 2; do
	printf 'int zz_f%d(int x) { return x - 1; }\nstatic __attribute__((noinline)) int helper(int x) { return x * %d; }\nint api%d(int x) { return helper(x) + 1; }\n' \
		$n $n $n > "$WORK/amb$n.c"
	sed '/zz_f/d' "$WORK/amb$n.c" > "$WORK/last$n.c"
done
gcc -g -O2 -fPIC -shared -nostdlib "$WORK/amb1.c" "$WORK/amb2.c" -o "$WORK/amb.so"
gcc -g -O2 -fPIC -shared -nostdlib "$WORK/last1.c" "$WORK/last2.c" -o "$WORK/last.so"
"$P" -J -V $F --btf_encode_detached="$WORK/a31.btf" "$WORK/amb.so" > "$WORK/a31.out"
BTFC_PAHOLE_VERSION=1.30 "$P" -J $F --btf_encode_detached="$WORK/a30.btf" "$WORK/amb.so"
"$P" -J $F --btf_encode_detached="$WORK/l31.btf" "$WORK/last.so"
[ "$(funcs "$WORK/a31.btf")" = "api1 api2 zz_f1 zz_f2 " ] &&
	[ "$(funcs "$WORK/a30.btf")" = "api1 api2 helper zz_f1 zz_f2 " ] &&
	[ "$(skips "$WORK/a31.out")" = "helper: ambiguous address;" ] &&
	pass "ambiguous address: 1.31 drops the name (and says so under -V), 1.30 keeps it" ||
	fail "ambiguous address: 1.31 '$(funcs "$WORK/a31.btf")' 1.30 '$(funcs "$WORK/a30.btf")'"
[ "$(funcs "$WORK/l31.btf")" = "api1 api2 helper " ] &&
	pass "ambiguous address: 1.31 never judges the name that sorts last" ||
	fail "ambiguous address, last name: $(funcs "$WORK/l31.btf")"

# --- a packed struct passed on the stack: 1.31's uncertain parameter location
cat > "$WORK/unc.c" <<'EOF'
struct __attribute__((packed)) pk { char c; long l; };
struct plain { long a, b; };
__attribute__((noinline)) long f7(long a, long b, long c, long d, long e, long f, struct pk p)
{ return a + b + c + d + e + f + p.l; }
__attribute__((noinline)) long g7(long a, long b, long c, long d, long e, long f, struct plain p)
{ return a + b + c + d + e + f + p.b; }
long caller(struct pk p, struct plain q) { return f7(1, 2, 3, 4, 5, 6, p) + g7(1, 2, 3, 4, 5, 6, q); }
EOF
gcc -g -O2 -c "$WORK/unc.c" -o "$WORK/unc.o"
"$P" -J -V $F --btf_encode_detached="$WORK/u31.btf" "$WORK/unc.o" > "$WORK/u31.out"
BTFC_PAHOLE_VERSION=1.30 "$P" -J $F --btf_encode_detached="$WORK/u30.btf" "$WORK/unc.o"
[ "$(funcs "$WORK/u31.btf")" = "caller g7 " ] && [ "$(funcs "$WORK/u30.btf")" = "caller f7 g7 " ] &&
	[ "$(skips "$WORK/u31.out")" = "f7: uncertain parameter location;" ] &&
	pass "uncertain parameter location: 1.31 drops f7 (packed struct on the stack), not g7; 1.30 keeps both" ||
	fail "uncertain location: 1.31 '$(funcs "$WORK/u31.btf")' 1.30 '$(funcs "$WORK/u30.btf")' '$(skips "$WORK/u31.out")'"

# --- variables: DWARF-driven, one DATASEC per section with global_var
cat > "$WORK/vars.c" <<'EOF'
__attribute__((section(".data..percpu"))) long pcpu_a = 1;
__attribute__((section(".data..percpu"))) int pcpu_b[4];
int counter = 5;
static long cache[16];
const char banner[] = "btfc";
int __UNIQUE_ID_skipme = 3;
struct empty {} nothing;
long *touch(void) { cache[1] = counter + banner[0] + __UNIQUE_ID_skipme; return cache; }
EOF
gcc -g -O2 -c "$WORK/vars.c" -o "$WORK/vars.o"
# "SEC:var,var, SEC:..." in DATASEC order, each section's names sorted
secs() {
	"$BTFC" dump "$1" | python3 -c '
import re, sys
name, out, sec = {}, [], None
for l in sys.stdin:
    m = re.match(r"\[(\d+)\] (VAR|DATASEC) .([^\x27]*).", l)
    if m and m.group(2) == "VAR": name[m.group(1)] = m.group(3)
    elif m: sec = [m.group(3), []]; out.append(sec)
    elif sec and l.startswith("\ttype_id="): sec[1].append(name[l.split()[0].split("=")[1]])
print(" ".join(s + ":" + "".join(v + "," for v in sorted(vs)) for s, vs in out))'
}
"$P" -J $F --btf_encode_detached="$WORK/v31.btf" "$WORK/vars.o"
"$P" -J $F --btf_features=global_var --btf_encode_detached="$WORK/vg31.btf" "$WORK/vars.o"
[ "$(secs "$WORK/v31.btf")" = ".data..percpu:pcpu_a,pcpu_b," ] &&
	pass "1.31 var: per-CPU variables from the DWARF" || fail "1.31 var: $(secs "$WORK/v31.btf")"
[ "$(secs "$WORK/vg31.btf")" = ".data:counter, .bss:cache, .rodata:banner, .data..percpu:pcpu_a,pcpu_b," ] &&
	pass "1.31 global_var: a DATASEC per section, __UNIQUE_ID and empty variables left out" ||
	fail "1.31 global_var: $(secs "$WORK/vg31.btf")"
check "1.31 global_var output passes strict verify" "$BTFC" verify --strict "$WORK/vg31.btf"

# --- attributes: kfuncs flagged KF_ARENA_* (a .BTF_ids set as the kernel lays it out)
cat > "$WORK/arena.c" <<'EOF'
asm(".pushsection .BTF_ids,\"a\"\n"
    "__BTF_ID__set8__arena_kfuncs:\n.long 3\n.long 1\n"		/* cnt, BTF_SET8_KFUNCS */
    "__BTF_ID__func__arena_alloc__1:\n.long 0\n.long 0xa000\n"	/* KF_ARENA_RET | KF_ARENA_ARG2 */
    "__BTF_ID__func__arena_free__2:\n.long 0\n.long 0x5000\n"	/* KF_ARENA_ARG1 | KF_FASTCALL */
    "__BTF_ID__func__plain_kfunc__3:\n.long 0\n.long 0\n"
    ".size __BTF_ID__set8__arena_kfuncs, . - __BTF_ID__set8__arena_kfuncs\n.popsection\n");
struct page { unsigned long flags; };
__attribute__((noinline)) void *arena_alloc(int node, struct page *hint) { return hint ? (void *)hint : (void *)0 + node; }
__attribute__((noinline)) void arena_free(struct page *p, int n) { if (p) p->flags = n; }
__attribute__((noinline)) int plain_kfunc(int x) { return x + 1; }
EOF
gcc -g -O2 -c "$WORK/arena.c" -o "$WORK/arena.o"
"$P" -J $F --btf_features=attributes --btf_encode_detached="$WORK/ar.btf" "$WORK/arena.o"
"$P" -J $F --btf_encode_detached="$WORK/ar0.btf" "$WORK/arena.o"
# arena_alloc returns and takes (2nd) pointers to address_space(1); arena_free's 1st; kind_flag set
arena_ok() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
hl, toff, tlen, soff = struct.unpack_from('<I', b, 4)[0], *struct.unpack_from('<III', b, 8)
t0, s0 = 24 + toff if hl == 24 else hl + toff, (24 if hl == 24 else hl) + soff
name = lambda o: b[s0 + o:b.index(b'\0', s0 + o)].decode()
types, p = [None], t0
while p < t0 + tlen:
    n, info, st = struct.unpack_from('<III', b, p); kind, vlen, kf = info >> 24 & 0x1f, info & 0xffff, info >> 31
    extra = {1: 4, 3: 12, 4: 12 * vlen, 5: 12 * vlen, 6: 8 * vlen, 13: 8 * vlen, 14: 4, 15: 12 * vlen, 17: 4, 19: 12 * vlen}.get(kind, 0)
    params = [struct.unpack_from('<II', b, p + 12 + 8 * i) for i in range(vlen)] if kind == 13 else []
    types.append((kind, name(n), st, kf, params)); p += 12 + extra
def arena(tid):	# PTR -> TYPE_TAG(kflag) 'address_space(1)'
    if not tid: return False
    k, _, st, _, _ = types[tid]
    if k != 2 or not st: return False
    tk, tn, _, tkf, _ = types[st]
    return tk == 18 and tn == 'address_space(1)' and tkf == 1
fn = {t[1]: types[t[2]] for t in types[1:] if t[0] == 12}
alloc, free, plain = fn['arena_alloc'], fn['arena_free'], fn['plain_kfunc']
ok = arena(alloc[2]) and not arena(alloc[4][0][1]) and arena(alloc[4][1][1]) and \
     arena(free[4][0][1]) and not any(arena(t) for _, t in plain[4]) and not arena(plain[2])
sys.exit(0 if ok else 1)
PY
}
check "attributes: KF_ARENA_* kfunc pointers through kind_flag address_space(1) tags" arena_ok "$WORK/ar.btf"
! arena_ok "$WORK/ar0.btf" && ! "$BTFC" dump "$WORK/ar0.btf" | grep -q address_space &&
	pass "no attributes feature: no arena tags" || fail "arena tags without the attributes feature"
[ "$("$BTFC" dump "$WORK/ar.btf" | grep -c "DECL_TAG 'bpf_kfunc'")" = 3 ] &&
[ "$("$BTFC" dump "$WORK/ar.btf" | grep -c "DECL_TAG 'bpf_fastcall'")" = 1 ] &&
	pass "attributes fixture: bpf_kfunc on each kfunc, bpf_fastcall on the KF_FASTCALL one" ||
	fail "attributes fixture kfunc tags"
if "$ROOT/${O:-build}/btf-load" --probe >/dev/null 2>&1; then
	check "attributes output: BPF_BTF_LOAD accepts it" "$ROOT/${O:-build}/btf-load" "$WORK/ar.btf"
else skip "BPF_BTF_LOAD not permitted: arena tags not loaded"; fi
check_fails "encode --attributes needs a 1.30+ policy" "needs --compat 1.30 or 1.31" \
	"$BTFC" encode --attributes "$WORK/arena.o" -o "$WORK/x.btf"

# --- pahole 1.31's own output on the Debian 6.12 corpus
REF=$SHARED/reference/pahole-1.31/debian-6.12.117+deb12-cloud-amd64
CANON=$CANON_PY
if C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) && [ -f "$REF/vmlinux.btf.xz" ]; then
	xz -dc "$REF/vmlinux.btf.xz" > "$WORK/ref.btf"
	xz -dc "$REF/vmlinux-global_var.btf.xz" > "$WORK/ref-gv.btf"
	"$P" -J -V -j2 $F --lang_exclude=rust --btf_encode_detached="$WORK/v131.btf" "$C/vmlinux" > "$WORK/v131.out" 2> "$WORK/v131.err"
	check "1.31 reference: vmlinux graph-equal (btfc diff)" "$BTFC" diff -q "$WORK/v131.btf" "$WORK/ref.btf"
	[ -f "$CANON" ] && check "1.31 reference: vmlinux graph-equal (btfcanon.py)" sh -c \
		"python3 '$CANON' '$WORK/v131.btf' '$WORK/ref.btf' | tail -1 | grep -q '^EQUAL'"
	grep -E 'skipping BTF encoding of function due to (param|return)' "$WORK/v131.out" | sort > "$WORK/sk.btfc"
	grep 'skipping BTF encoding' "$REF/skipped-vmlinux.txt" | grep -v "could not find" | sort > "$WORK/sk.ref"
	check "1.31 reference: -V names the same $(wc -l < "$WORK/sk.ref") skipped functions in pahole's words" \
		cmp "$WORK/sk.btfc" "$WORK/sk.ref"
	"$P" -J -j2 $F --btf_features=global_var --lang_exclude=rust \
		--btf_encode_detached="$WORK/v131g.btf" "$C/vmlinux"
	# pahole 1.31 puts 50 variables twice into the DATASECs (defined in two
	# units), which the kernel refuses ("Invalid offset"); btfc leaves the
	# second out (docs/producers.md): equal but for the DATASECs, and valid.
	check "1.31 reference: vmlinux with global_var graph-equal but the DATASECs" \
		"$BTFC" diff -q --ignore-kinds DATASEC "$WORK/v131g.btf" "$WORK/ref-gv.btf"
	check "1.31 reference: vmlinux with global_var verifies (pahole's does not)" \
		"$BTFC" verify "$WORK/v131g.btf"
	check "1.31 output: strict verify" "$BTFC" verify --strict "$WORK/v131.btf"
	check "1.31 output: libbpf btf__parse" "$ROOT/${O:-build}/libbpf-oracle" -n "$WORK/v131.btf" "$WORK/v131.libbpf"
	if "$ROOT/${O:-build}/btf-load" --probe >/dev/null 2>&1; then
		check "1.31 output: BPF_BTF_LOAD" "$ROOT/${O:-build}/btf-load" "$WORK/v131.btf"
	else skip "BPF_BTF_LOAD not permitted"; fi
	n=0; k=0; mkdir -p "$WORK/mref"
	for m in $(awk 'NR % 151 == 7' "$C/modules.txt" | head -${MODULES:-6}); do
		rel=${m#*/lib/modules/*/}; k=$((k+1))
		tar -C "$WORK/mref" -xJf "$REF/modules.tar.xz" "kernel/${rel#kernel/}.btf" 2>/dev/null
		"$P" -J $F --lang_exclude=rust --btf_base "$WORK/ref.btf" --btf_encode_detached="$WORK/m.btf" "$m" &&
		"$BTFC" diff -q "$WORK/m.btf" "$WORK/mref/$rel.btf" --base "$WORK/ref.btf" > /dev/null &&
		n=$((n+1)) || echo "  module differs from pahole 1.31's: $rel"
	done
	[ $n = $k ] && pass "1.31 reference: $n modules graph-equal" || fail "1.31 reference modules: $n of $k equal"
else
	skip "pahole 1.31 reference or Debian corpus absent: 1.31 comparisons not run"
fi

# --- Debian 13's build of the same kernel: BTF made by pahole 1.30
T=${BTFC_CORPUS_TRIXIE:-/var/tmp/btfc-corpus-trixie}
T=$(ls -d "$T"/*/ 2>/dev/null | while read -r d; do [ -f "$d/.complete" ] && echo "${d%/}"; done | head -1)
if [ -n "$T" ]; then
	BTFC_PAHOLE_VERSION=1.30 "$P" -J -j2 $F --lang_exclude=rust --btf_encode_detached="$WORK/t130.btf" "$T/vmlinux"
	check "1.30 (Debian 13): vmlinux graph-equal to the shipped BTF" "$BTFC" diff -q "$WORK/t130.btf" "$T/vmlinux.btf"
	n=0; k=0
	for m in $(awk 'NR % 151 == 7' "$T/modules.txt" | head -${MODULES:-6}); do
		rel=${m#*/lib/modules/*/}; k=$((k+1))
		BTFC_PAHOLE_VERSION=1.30 "$P" -J $F --lang_exclude=rust --btf_base "$T/vmlinux.btf" \
			--btf_encode_detached="$WORK/m.btf" "$m" &&
		"$BTFC" diff -q "$WORK/m.btf" "$T/btf/$rel.btf" --base "$T/vmlinux.btf" > /dev/null &&
		n=$((n+1)) || echo "  module differs from Debian 13's: $rel"
	done
	[ $n = $k ] && pass "1.30 (Debian 13): $n modules graph-equal to the shipped BTF" ||
		fail "1.30 (Debian 13) modules: $n of $k equal"
else
	skip "Debian 13 corpus absent (SUITE=trixie scripts/fetch-debian-kernel.sh): 1.30 comparisons not run"
fi
rm -rf "$WORK"
