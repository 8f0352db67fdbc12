#!/usr/bin/env bash
# btfc as `pahole` (argv[0]): the kernel's own pahole command lines replayed
# on compiled fixtures (against Debian's pahole 1.24 where it applies, with
# BTFC_PAHOLE_VERSION=1.24) and, when the Debian 6.12 corpus is present, on
# its vmlinux and modules.  Option parsing itself is in
# tests/unit/test_pahole_opts.c; pahole 1.30/1.31 behaviour in t_modern.sh.
. "$(dirname "$0")/lib.sh"
P=$WORK/bin/pahole
mkdir -p "$WORK/bin" && ln -sf "$BTFC" "$P"
export LLVM_OBJCOPY=objcopy	# as the kernel sets it; btfc does not need it
SRC=$ROOT/tests/fixtures/types.c
kinds() { "$BTFC" dump "$@" | sed -nE 's/^\[[0-9]+\] ([A-Z0-9_]+) .*/\1/p' | sort | uniq -c; }
has_kind() { "$BTFC" dump "$2" ${3:+--base "$3"} | grep -q "^\[[0-9]*\] $1 "; }

# --- version: what scripts/pahole-version.sh turns into CONFIG_PAHOLE_VERSION
v=$("$P" --version)
[ "$v" = v1.31 ] && pass "pahole --version = v1.31" || fail "pahole --version printed '$v'"
[ "$("$P" --numeric_version)" = 131 ] && pass "pahole --numeric_version = 131" || fail "numeric_version"
kv=$(echo "$v" | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/')	# the kernel's own conversion
[ "$kv" = 131 ] && pass "kernel's pahole-version.sh conversion gives 131" || fail "pahole-version.sh: '$kv'"
[ "$("$BTFC" pahole --version)" = v1.31 ] && pass "btfc pahole --version" || fail "btfc pahole --version"
for c in 1.24:v1.24:124 1.30:v1.30:130 v1.31:v1.31:131; do
	IFS=: read -r e want num <<< "$c"
	[ "$(BTFC_PAHOLE_VERSION=$e "$P" --version)" = "$want" ] &&
	[ "$(BTFC_PAHOLE_VERSION=$e "$P" --numeric_version)" = "$num" ] &&
		pass "BTFC_PAHOLE_VERSION=$e claims $want" || fail "BTFC_PAHOLE_VERSION=$e"
done
check_fails "BTFC_PAHOLE_VERSION=1.27 is refused" "1.24, 1.30 or 1.31" env BTFC_PAHOLE_VERSION=1.27 "$P" --version
"$P" --supported_btf_features | grep -qx 'encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,distilled_base,global_var,attributes' &&
	pass "--supported_btf_features: pahole 1.31's list" || fail "--supported_btf_features"

# Up to the knobs below, the lines are replayed against pahole 1.24.
export BTFC_PAHOLE_VERSION=1.24

# --- fixtures
gcc -g -O2 -DPAHOLE_SAFE -c "$SRC" -o "$WORK/base.o" || fail "compile base"
cat > "$WORK/mod.c" <<'EOF'
struct list_head { struct list_head *next, *prev; };
struct mod_priv { struct list_head node; int id; double scale; unsigned long flags : 3; };
struct mod_node { struct list_head node; short id; void *data; unsigned long flags : 3; };
enum mod_big { MB_A = 1ULL << 40 };
int mod_fn(struct mod_priv *p, enum mod_big b) { return p->id + (int)b; }
int mod_node_id(struct mod_node *n) { return n->id; }
EOF
gcc -g -O2 -c "$WORK/mod.c" -o "$WORK/mod.o" || fail "compile mod"
cat > "$WORK/pcpu.c" <<'EOF'
struct pc { int a; long b; };
__attribute__((section(".data..percpu"))) struct pc pcpu_thing = { 1, 2 };
__attribute__((section(".data..percpu"))) int pcpu_counter = 3;
int get(void) { return pcpu_counter + pcpu_thing.a; }
EOF
gcc -g -O2 -c "$WORK/pcpu.c" -o "$WORK/pcpu.o" || fail "compile pcpu"

# 6.12-era vmlinux line (link-vmlinux.sh gen_btf, PAHOLE_FLAGS for pahole 1.24), in place
cp "$WORK/base.o" "$WORK/vm.o"
check "6.12 line: -J --btf_gen_floats -j --lang_exclude=rust (in place)" \
	"$P" -J --btf_gen_floats -j --lang_exclude=rust "$WORK/vm.o"
check "in place: the object still has its DWARF and links" \
	sh -c "readelf -S '$WORK/vm.o' | grep -q ' .debug_info' && ld -r '$WORK/vm.o' -o '$WORK/vm-linked.o'"
# same bytes as `btfc encode` with the same meaning, detached or not
check "pahole detached == in place" sh -c "'$P' -J --btf_gen_floats -j --lang_exclude=rust \
	--btf_encode_detached='$WORK/vm.btf' '$WORK/base.o' && '$BTFC' convert '$WORK/vm.o' -o '$WORK/vm.inplace' &&
	cmp '$WORK/vm.btf' '$WORK/vm.inplace'"
check "pahole line == btfc encode (same bytes)" sh -c "'$BTFC' encode -j2 '$WORK/base.o' -o '$WORK/enc.btf' &&
	cmp '$WORK/vm.btf' '$WORK/enc.btf'"
"$P" -J --btf_gen_floats -j1 --btf_encode_detached="$WORK/vm-j1.btf" "$WORK/base.o" &&
"$P" -J --btf_gen_floats -j8 --btf_encode_detached="$WORK/vm-j8.btf" "$WORK/base.o" &&
cmp -s "$WORK/vm-j1.btf" "$WORK/vm-j8.btf" && pass "-j1 and -j8 give the same bytes" || fail "-j1 vs -j8"

if have pahole && [ "$(pahole --version)" = v1.24 ]; then
	cp "$WORK/base.o" "$WORK/vm-ref.o"
	pahole -J --btf_gen_floats -j1 --lang_exclude=rust "$WORK/vm-ref.o" 2>/dev/null
	check "6.12 line: graph equal to Debian's pahole 1.24" "$BTFC" diff -q "$WORK/vm.o" "$WORK/vm-ref.o"
	# modules: Makefile.modfinal, --btf_base with a separate argument
	cp "$WORK/mod.o" "$WORK/m.o"; cp "$WORK/mod.o" "$WORK/m-ref.o"
	check "6.12 module line: --btf_base vmlinux (in place)" \
		"$P" -J --btf_gen_floats -j --lang_exclude=rust --btf_base "$WORK/vm.o" "$WORK/m.o"
	pahole -J --btf_gen_floats -j1 --lang_exclude=rust --btf_base "$WORK/vm-ref.o" "$WORK/m-ref.o" 2>/dev/null
	check "6.12 module line: graph equal to Debian's pahole 1.24" \
		"$BTFC" diff -q "$WORK/m.o" "$WORK/m-ref.o" --base-a "$WORK/vm.o" --base-b "$WORK/vm-ref.o"
	# legacy knobs, each against pahole 1.24 itself
	for flags in "" "--skip_encoding_btf_vars" "--skip_encoding_btf_enum64" "--btf_gen_all" \
		     "--btf_gen_floats --skip_encoding_btf_enum64 --skip_encoding_btf_vars"; do
		for o in base pcpu; do
			"$P" -J $flags --btf_encode_detached="$WORK/k.btf" "$WORK/$o.o" &&
			pahole -J $flags --btf_encode_detached="$WORK/k-ref.btf" "$WORK/$o.o" 2>/dev/null ||
				{ fail "legacy flags '${flags:-(none)}' on $o.o: encode failed"; continue; }
			if "$BTFC" diff "$WORK/k.btf" "$WORK/k-ref.btf" > "$WORK/k.diff"; then
				pass "legacy flags '${flags:-(none)}' on $o.o equal to pahole 1.24"
			else
				fail "legacy flags '${flags:-(none)}' on $o.o differ from pahole 1.24"
				head -20 "$WORK/k.diff"
			fi
		done
	done
	# struct view: -C TYPE FILE, as pahole -F btf prints it; the text is
	# the claimed version's (BTFC_PAHOLE_VERSION sets the claim)
	BTFC_PAHOLE_VERSION=1.24 "$P" -F btf -C list_head,bits "$WORK/vm.o" > "$WORK/lay.btfc" 2>&1
	pahole -F btf -C list_head,bits "$WORK/vm.o" > "$WORK/lay.ref" 2>&1
	check "pahole -F btf -C T1,T2 FILE: same text as pahole 1.24" diff -u "$WORK/lay.ref" "$WORK/lay.btfc"
	BTFC_PAHOLE_VERSION=1.24 "$P" --btf_base "$WORK/vm.o" -C mod_node "$WORK/m.o" > "$WORK/lay1" 2>&1
	pahole -F btf --btf_base "$WORK/vm.o" -C mod_node "$WORK/m.o" > "$WORK/lay2" 2>&1
	check "pahole --btf_base B -C TYPE module: same text as pahole 1.24" diff -u "$WORK/lay2" "$WORK/lay1"
else
	skip "Debian pahole 1.24 not installed: no reference for the replayed lines"
fi

unset BTFC_PAHOLE_VERSION

# Knobs visible in the output
"$P" -J --btf_encode_detached="$WORK/nofloat.btf" "$WORK/base.o"
! has_kind FLOAT "$WORK/nofloat.btf" && has_kind INT "$WORK/nofloat.btf" &&
	pass "no --btf_gen_floats: no FLOAT" || fail "no --btf_gen_floats: FLOAT present"
has_kind FLOAT "$WORK/vm.btf" && has_kind ENUM64 "$WORK/vm.btf" &&
	pass "6.12 line: FLOAT, ENUM64" || fail "6.12 line lacks FLOAT/ENUM64"
"$P" -J --btf_encode_detached="$WORK/pc.btf" "$WORK/pcpu.o" && has_kind DATASEC "$WORK/pc.btf" &&
	pass "per-CPU DATASEC by default" || fail "per-CPU DATASEC by default"
"$P" -J --btf_features=float --btf_encode_detached="$WORK/reset.btf" "$WORK/base.o"
"$P" -J --btf_features=float --btf_encode_detached="$WORK/reset-pc.btf" "$WORK/pcpu.o"
has_kind FLOAT "$WORK/reset.btf" && ! has_kind ENUM64 "$WORK/reset.btf" && ! has_kind DATASEC "$WORK/reset-pc.btf" &&
	pass "--btf_features=float resets var and enum64" || fail "--btf_features reset"
"$P" -J --btf_features=float --btf_features=var,enum64 --btf_encode_detached="$WORK/add.btf" "$WORK/base.o"
"$P" -J --btf_features=float --btf_features=var,enum64 --btf_encode_detached="$WORK/add-pc.btf" "$WORK/pcpu.o"
has_kind DATASEC "$WORK/add-pc.btf" && has_kind ENUM64 "$WORK/add.btf" && has_kind FLOAT "$WORK/add.btf" &&
	pass "a second --btf_features adds" || fail "a second --btf_features adds"
"$P" -J --btf_features=default --btf_encode_detached="$WORK/def.btf" "$WORK/base.o" &&
	has_kind FLOAT "$WORK/def.btf" && has_kind ENUM64 "$WORK/def.btf" &&
	pass "--btf_features=default" || fail "--btf_features=default"

# 7.0-era lines (scripts/gen-btf.sh): detached, several --btf_features
F70=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
check "7.0 line: -J -j2 --btf_features=... --btf_features=attributes --btf_encode_detached" \
	"$P" -J -j2 --btf_features=$F70 --btf_features=attributes --lang_exclude=rust \
	--btf_encode_detached="$WORK/X.BTF.1" "$WORK/base.o"
check "7.0 line: output passes btfc verify --strict" "$BTFC" verify --strict "$WORK/X.BTF.1"
check "7.0 module line" "$P" -J -j2 --btf_features=$F70 --btf_features=attributes --lang_exclude=rust \
	--btf_base "$WORK/X.BTF.1" --btf_encode_detached="$WORK/m.BTF.1" "$WORK/mod.o"
check "7.0 module line: split BTF verifies" "$BTFC" verify --strict --base "$WORK/X.BTF.1" "$WORK/m.BTF.1"
"$P" -V -J --btf_features=float,nonesuch --btf_encode_detached="$WORK/v.btf" "$WORK/base.o" > "$WORK/v.out" 2> "$WORK/v.err"
grep -q "Ignoring unsupported feature 'nonesuch'" "$WORK/v.err" && pass "-V names unknown features" ||
	fail "-V names unknown features"
BTFC_PAHOLE_VERSION=1.24 "$P" -V -J --btf_features=$F70,global_var --btf_encode_detached="$WORK/v.btf" \
	"$WORK/base.o" > "$WORK/v.out" 2> "$WORK/v.err"
grep -q "global_var: not in pahole 1.24" "$WORK/v.err" && pass "-V notes features a 1.24 claim ignores" ||
	fail "-V notes features a 1.24 claim ignores"
# -V: dropped functions in pahole's words on stdout (tests/btf_functions.sh parses them)
cat > "$WORK/unc.c" <<'EOF'
struct __attribute__((packed)) pk { char c; long l; };
__attribute__((noinline)) long f7(long a, long b, long c, long d, long e, long f, struct pk p)
{ return a + b + c + d + e + f + p.l; }
long caller(struct pk p) { return f7(1, 2, 3, 4, 5, 6, p); }
EOF
gcc -g -O2 -c "$WORK/unc.c" -o "$WORK/unc.o"
"$P" -V -J --btf_features=default --btf_encode_detached="$WORK/unc.btf" "$WORK/unc.o" > "$WORK/unc.out" 2> "$WORK/unc.err"
if grep -q ' : skipping BTF encoding of function due to ' "$WORK/unc.out"; then
	ok=1
	grep -q 'skipping BTF encoding' "$WORK/unc.err" && ok=0
	for f in $(sed -nE 's/^(.+) : skipping BTF encoding of function due to .+/\1/p' "$WORK/unc.out"); do
		"$BTFC" dump "$WORK/unc.btf" | grep -q "FUNC '$f'" && ok=0
	done
	grep -qx 'f7 : skipping BTF encoding of function due to uncertain parameter location' "$WORK/unc.out" || ok=0
	[ $ok = 1 ] && pass "-V: dropped functions on stdout in pahole's wording, absent from BTF" ||
		{ fail "-V function drop lines"; cat "$WORK/unc.out" "$WORK/unc.err" | head; }
else
	skip "-V: the encoder reports no dropped function for the packed-struct fixture"
fi
check_fails "--btf_features_strict: unknown name is fatal" "Feature 'nonesuch'" \
	"$P" -J --btf_features_strict=float,nonesuch --btf_encode_detached="$WORK/s.btf" "$WORK/base.o"
PAHOLE_LANG_EXCLUDE=c11,c99,c89,c "$P" -J --btf_encode_detached="$WORK/noc.btf" "$WORK/base.o" > "$WORK/e.out" 2>&1
[ $? -ne 0 ] && grep -q 'no types' "$WORK/e.out" && pass "PAHOLE_LANG_EXCLUDE honoured" ||
	fail "PAHOLE_LANG_EXCLUDE not honoured"

# distilled base: ELF output + --btf_base only
cp "$WORK/mod.o" "$WORK/md.o"
check "distilled_base: .BTF.base written" sh -c "'$P' -J --btf_features=default,distilled_base \
	--btf_base '$WORK/vm.o' '$WORK/md.o' && readelf -S '$WORK/md.o' | grep -q '\.BTF\.base'"
check "distilled_base: ignored with detached output" sh -c "'$P' -J --btf_features=distilled_base \
	--btf_base '$WORK/vm.o' --btf_encode_detached='$WORK/md.btf' '$WORK/mod.o' && \
	'$BTFC' verify --base '$WORK/vm.o' '$WORK/md.btf'"

# errors
check_fails "-J without a file" "needs exactly one FILE" "$P" -J
check_fails "-J on a missing file" "nonexistent" "$P" -J "$WORK/nonexistent.o"
check_fails "unsupported pahole option is named" "--prettify.*not supported" "$P" --prettify=- "$WORK/vm.o"

# struct view through btfc layout
BTFC_PAHOLE_VERSION=1.24 "$P" -C mod_priv -E --hex "$WORK/mod.o" > "$WORK/lay1" 2>&1 || true
"$BTFC" layout --compat 1.24 -C mod_priv -E --hex "$WORK/mod.o" > "$WORK/lay2" 2>&1 || true
grep -q 'struct mod_priv {' "$WORK/lay1" && cmp -s "$WORK/lay1" "$WORK/lay2" &&
	pass "pahole -C TYPE -E --hex FILE == btfc layout" || fail "pahole -C TYPE -E --hex FILE == btfc layout"
PAHOLE_VMLINUX_BTF_FILENAME="$WORK/vm.btf" "$P" list_head > "$WORK/lay3" 2>&1
grep -q 'struct list_head {' "$WORK/lay3" && pass "bare 'pahole TYPE' reads \$PAHOLE_VMLINUX_BTF_FILENAME" ||
	fail "bare 'pahole TYPE'"

# --- the Debian 6.12 corpus (one in-place and one detached vmlinux run, a few modules)
if C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	cp "$C/vmlinux" "$WORK/vmlinux"
	export BTFC_PAHOLE_VERSION=1.24	# Debian's BTF was made by pahole 1.24
	t0=$(date +%s.%N)
	check "corpus: 6.12 line on vmlinux (in place)" "$P" -J --btf_gen_floats -j --lang_exclude=rust "$WORK/vmlinux"
	t1=$(date +%s.%N)
	check "corpus: vmlinux .BTF graph equal to Debian's" "$BTFC" diff -q "$WORK/vmlinux" "$C/vmlinux.btf"
	echo "   (pahole -J vmlinux: $(echo "$t1 - $t0" | bc) s)"
	n=0; k=0
	for m in $(awk 'NR % 211 == 3' "$C/modules.txt" | head -${MODULES:-4}); do
		rel=${m#*/lib/modules/*/}; k=$((k+1))
		cp "$m" "$WORK/mod.ko"
		"$P" -J --btf_gen_floats -j --lang_exclude=rust --btf_base "$WORK/vmlinux" "$WORK/mod.ko" &&
		"$BTFC" diff -q "$WORK/mod.ko" "$C/btf/$rel.btf" --base-a "$WORK/vmlinux" \
			--base-b "$C/vmlinux.btf" > /dev/null &&
		n=$((n+1)) || echo "  module differs: $rel"
	done
	[ $n = $k ] && pass "corpus: $n modules with --btf_base vmlinux graph equal to Debian's" ||
		fail "corpus modules: $n of $k equal"
	rm -f "$WORK/vmlinux"
	unset BTFC_PAHOLE_VERSION
	check "corpus: 7.0 line on vmlinux (detached)" "$P" -J -j2 --btf_features=$F70 --btf_features=attributes \
		--lang_exclude=rust --btf_encode_detached="$WORK/X.BTF.1" "$C/vmlinux"
	check "corpus: 7.0 output verifies" "$BTFC" verify --strict "$WORK/X.BTF.1"
	nk=$("$BTFC" dump "$WORK/X.BTF.1" | grep -c "DECL_TAG 'bpf_kfunc'")
	[ "$nk" -gt 100 ] && pass "corpus: 7.0 line tags kfuncs (decl_tag_kfuncs: $nk bpf_kfunc tags)" ||
		fail "corpus: 7.0 line: $nk bpf_kfunc tags"
else
	skip "Debian corpus absent (scripts/corpus.sh): corpus pahole lines not run"
fi
rm -rf "$WORK"
