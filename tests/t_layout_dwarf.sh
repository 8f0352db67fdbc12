#!/usr/bin/env bash
# The struct view on any file (issue #39, point 6), against Debian's pahole
# 1.24 as the oracle:
#   - -F dwarf -C TYPE: pahole 1.24's DWARF text (its __aligned__ from
#     DW_AT_alignment, every array dimension) on gcc and clang fixtures,
#     with its options; which unit each name comes from when several units
#     define it (pahole takes the first; the next name from there on);
#   - on the corpus: pahole -F dwarf -C task_struct vmlinux identical to
#     pahole 1.24's and no slower; a sample of vmlinux's structs; under the
#     default 1.31 claim, 1.31's text of the same struct (the reference, BTF)
#     but for the alignments, which DWARF states and BTF infers;
#   - a module with split .BTF: on --base when its BTF checks out there,
#     else (another kernel's base) from its DWARF, as pahole does, -V
#     saying which; pahole -C sadb_msg af_key.ko = pahole 1.24's text.
. "$(dirname "$0")/lib.sh"
have pahole || { skip "layout -F dwarf: pahole not installed"; exit 0; }
pahole --version | grep -q '^v1\.24$' || { skip "layout -F dwarf: the oracle is pahole 1.24, not $(pahole --version)"; exit 0; }
FX=$ROOT/tests/fixtures/layout.c
P=$WORK/bin/pahole
mkdir -p "$WORK/bin" && ln -sf "$BTFC" "$P"
export BTFC_PAHOLE_VERSION=1.24

# ---- fixtures ------------------------------------------------------------------
for cc in gcc clang; do
	have $cc || { skip "layout -F dwarf: $cc not installed"; continue; }
	o=$WORK/l-$cc.o
	$cc -g -O0 -c "$FX" -o "$o" || { fail "layout -F dwarf: $cc fixture"; continue; }
	bad=0 n=0
	for t in holes bits bits2 packed outer aligned un anon_t anon_u color small big fns flex nested everything cachey bitpad; do
		# clang puts nested type definitions under the struct's DIE; pahole 1.24
		# prints them again as members, btfc does not
		[ $cc = clang ] && [ $t = nested ] && continue
		for opt in "" -E --hex -r "-c 32" -q -s; do
			# shellcheck disable=SC2086
			pahole -F dwarf $opt -C $t "$o" > "$WORK/p.txt" 2>&1
			# shellcheck disable=SC2086
			"$P" -F dwarf $opt -C $t "$o" > "$WORK/b.txt" 2>&1
			n=$((n + 1))
			cmp -s "$WORK/p.txt" "$WORK/b.txt" || { bad=$((bad + 1)); echo "      differs: $cc $t $opt"; diff "$WORK/p.txt" "$WORK/b.txt" | head -4; }
		done
	done
	[ $bad -eq 0 ] && pass "pahole -F dwarf -C: $cc fixture, $n type/option runs = pahole 1.24" ||
		fail "pahole -F dwarf -C: $cc fixture, $bad of $n differ"
done

# tail padding written as unnamed bitfields (uapi's struct __kernel_timex):
# pahole's loader drops them and its printer shows the padding as "Force
# padding" when it is more than an address, unless --suppress_force_paddings
cat > "$WORK/fp.c" <<'EOF'
struct fp { long a; int tai; int :32; int :32; int :32; int :32; int :32; } fp_v;
struct fp_short { long a; int tai; int :32; } fps_v;
struct fp_char { long a; char c; char :8; char :8; char :8; char :8; char :8; char :8; char :8;
		 char :8; char :8; char :8; char :8; char :8; char :8; char :8; char :8; } fpc_v;
EOF
if gcc -g -c "$WORK/fp.c" -o "$WORK/fp.o"; then
	bad=0 n=0
	for t in fp fp_short fp_char; do
		for opt in "" --suppress_force_paddings; do
			# shellcheck disable=SC2086
			pahole -F dwarf $opt -C $t "$WORK/fp.o" > "$WORK/p.txt" 2>&1
			# shellcheck disable=SC2086
			"$P" -F dwarf $opt -C $t "$WORK/fp.o" > "$WORK/b.txt" 2>&1
			n=$((n + 1))
			cmp -s "$WORK/p.txt" "$WORK/b.txt" || { bad=$((bad + 1)); diff "$WORK/p.txt" "$WORK/b.txt" | head -4; }
		done
	done
	pahole -F dwarf -C fp "$WORK/fp.o" | grep -q "Force padding" ||
		{ bad=$((bad + 1)); echo "      pahole printed no Force padding: the case tests nothing"; }
	[ $bad -eq 0 ] && pass "pahole -F dwarf: tail padding as unnamed bitfields ('Force padding'), $n runs = pahole 1.24" ||
		fail "pahole -F dwarf: 'Force padding', $bad of $n differ"
else
	fail "compile the Force padding case"
fi

# several units define a name: the first one's, and the next name from there
cat > "$WORK/u1.c" <<'EOF'
struct s1 { int a; char b; long c; };
struct s3 { char x; } __attribute__((aligned(16)));
struct s1 v1; struct s3 v3;
EOF
cat > "$WORK/u2.c" <<'EOF'
struct s2 { char a; int b __attribute__((aligned(8))); };
struct s1 { long z; };
int m[2][3][4];
struct s4 { int m[2][3]; char c; } v4;
struct s2 v2; struct s1 w1;
EOF
gcc -g -c "$WORK/u1.c" -o "$WORK/u1.o" && gcc -g -c "$WORK/u2.c" -o "$WORK/u2.o" &&
	ld -r "$WORK/u1.o" "$WORK/u2.o" -o "$WORK/u12.o" || fail "two-unit object"
bad=0
for args in s1 s2 s2,s1 s1,s2 s3,s2 s4 s2,s4,s1 "--skip_missing -C s2,none,s1" "--skip_missing -C none,s4,s1"; do
	case $args in --*) a=$args ;; *) a="-C $args" ;; esac
	# shellcheck disable=SC2086
	pahole -F dwarf $a "$WORK/u12.o" > "$WORK/p.txt" 2>/dev/null
	# shellcheck disable=SC2086
	"$P" -F dwarf $a "$WORK/u12.o" > "$WORK/b.txt" 2>/dev/null
	cmp -s "$WORK/p.txt" "$WORK/b.txt" || { bad=$((bad + 1)); echo "      differs: $a"; diff "$WORK/p.txt" "$WORK/b.txt" | head -4; }
done
[ $bad -eq 0 ] && pass "-F dwarf -C over two units: the units pahole 1.24 takes each name from" ||
	fail "-F dwarf -C over two units: $bad differ"
"$BTFC" layout -F dwarf none,s1 "$WORK/u12.o" > "$WORK/b.txt" 2> "$WORK/b.err"; rc=$?
[ $rc -eq 2 ] && grep -q "type 'none' not found" "$WORK/b.err" && [ ! -s "$WORK/b.txt" ] &&
	pass "-F dwarf -C none,s1: not found, and (as pahole) nothing after it" || fail "-F dwarf -C none,s1 (rc=$rc)"

# a module with split .BTF: --base when it fits, else its DWARF
gcc -g -O0 -c "$ROOT/tests/fixtures/types.c" -o "$WORK/base.o" && "$BTFC" encode "$WORK/base.o" -o "$WORK/base.btf" &&
	cp "$WORK/l-gcc.o" "$WORK/mod.o" && "$BTFC" encode --base "$WORK/base.btf" "$WORK/mod.o" ||
	fail "split-BTF fixture"
pahole -F dwarf -C holes "$WORK/mod.o" > "$WORK/p-dwarf.txt" 2>&1
"$BTFC" layout --compat 1.24 -F btf -V --base "$WORK/base.btf" holes "$WORK/mod.o" > "$WORK/b.txt" 2> "$WORK/b.err" &&
	grep -q "mod.o: split BTF on $WORK/base.btf" "$WORK/b.err" && grep -q '^struct holes {' "$WORK/b.txt" &&
	pass "split .BTF on a --base it fits: BTF, -V says so" || { fail "split .BTF on its --base"; cat "$WORK/b.err"; }
"$BTFC" layout --compat 1.24 -V --base "$WORK/l-gcc.o" holes "$WORK/mod.o" > "$WORK/b.txt" 2> "$WORK/b.err"
grep -q "does not check out on $WORK/l-gcc.o.*reading its DWARF" "$WORK/b.err" && cmp -s "$WORK/p-dwarf.txt" "$WORK/b.txt" &&
	pass "split .BTF on a base it does not fit: DWARF, pahole 1.24's text, -V says so" ||
	{ fail "split .BTF, wrong base: DWARF fallback"; cat "$WORK/b.err"; diff "$WORK/p-dwarf.txt" "$WORK/b.txt" | head -5; }

# ---- the corpus ------------------------------------------------------------------
C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) || { skip "layout -F dwarf: Debian 6.12 corpus absent"; exit 0; }
V=$C/vmlinux
pahole -F dwarf -C task_struct "$V" > "$WORK/p-ts.txt" 2>&1
"$P" -F dwarf -C task_struct "$V" > "$WORK/b-ts.txt" 2>&1
cmp -s "$WORK/p-ts.txt" "$WORK/b-ts.txt" && grep -q '__aligned__(64)' "$WORK/b-ts.txt" &&
	pass "pahole -F dwarf -C task_struct vmlinux = pahole 1.24's text (with its __aligned__(64))" ||
	{ fail "-F dwarf -C task_struct vmlinux"; diff "$WORK/p-ts.txt" "$WORK/b-ts.txt" | head -8; }
# time: the best of 5 runs each, interleaved (not under sanitizers)
best() { sort -n | head -1; }
if quick; then
	skip "-F dwarf -C task_struct vmlinux timing (SAN_QUICK: a sanitizer build)"
else
for i in 1 2 3 4 5; do
	t0=$(date +%s%N); pahole -F dwarf -C task_struct "$V" > /dev/null 2>&1; t1=$(date +%s%N)
	"$P" -F dwarf -C task_struct "$V" > /dev/null 2>&1; t2=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 )) >> "$WORK/tp"; echo $(( (t2 - t1) / 1000 )) >> "$WORK/tb"
done
tp=$(best < "$WORK/tp"); tb=$(best < "$WORK/tb")
echo "  -F dwarf -C task_struct vmlinux: btfc ${tb} us, pahole 1.24 ${tp} us (best of 5)"
[ "$tb" -le $((tp + 1000)) ] && pass "-F dwarf -C task_struct vmlinux no slower than pahole 1.24 (${tb} vs ${tp} us)" ||
	fail "-F dwarf -C task_struct vmlinux: ${tb} us, pahole 1.24 ${tp} us"
fi
# a sample of structs of the first units: pahole 1.24's text
n=0 bad=0
for t in mm_struct sk_buff file inode page kobject device list_head rq cfs_rq hrtimer pt_regs; do
	timeout 60 pahole -F dwarf -C $t "$V" > "$WORK/p.txt" 2>&1 || continue
	"$P" -F dwarf -C $t "$V" > "$WORK/b.txt" 2>&1
	n=$((n + 1))
	cmp -s "$WORK/p.txt" "$WORK/b.txt" || { bad=$((bad + 1)); echo "      differs: $t"; }
done
[ $bad -eq 0 ] && [ $n -gt 0 ] && pass "pahole -F dwarf -C on $n more vmlinux structs = pahole 1.24" ||
	fail "-F dwarf -C vmlinux sample: $bad of $n differ"
# the default claim: 1.31's text, the reference's (BTF) but for alignments
REF=$SHARED/reference/pahole-1.31/debian-6.12.117+deb12-cloud-amd64/layout/all.txt.xz
if [ -f "$REF" ]; then
	noalign() { sed -E 's/ __attribute__\(\(__aligned__\([0-9]+\)\)\)//; /forced alignments:/d; /^$/d' | expand | tr -s ' '; }
	xz -dc "$REF" | awk '/^struct task_struct \{$/ {p=1} p {print} p && /^}/ {exit}' | noalign > "$WORK/r131.txt"
	env -u BTFC_PAHOLE_VERSION "$P" -F dwarf -C task_struct "$V" | noalign > "$WORK/b131.txt"
	cmp -s "$WORK/r131.txt" "$WORK/b131.txt" &&
		pass "default claim: -F dwarf task_struct = pahole 1.31's text but for alignments" ||
		{ fail "1.31 -F dwarf task_struct"; diff "$WORK/r131.txt" "$WORK/b131.txt" | head -6; }
else
	skip "1.31 reference absent (../shared/reference): the default claim's DWARF text not compared"
fi
# a module with split .BTF, as a distribution ships it
K=$(grep '/af_key\.ko$' "$C/modules.txt" | head -1)
if [ -n "$K" ]; then
	pahole -C sadb_msg "$K" > "$WORK/p-ak.txt" 2>&1
	"$P" -C sadb_msg "$K" > "$WORK/b-ak.txt" 2>&1; rc=$?
	[ $rc -eq 0 ] && cmp -s "$WORK/p-ak.txt" "$WORK/b-ak.txt" &&
		pass "pahole -C sadb_msg af_key.ko (split .BTF) = pahole 1.24" ||
		{ fail "pahole -C sadb_msg af_key.ko (rc=$rc)"; head -3 "$WORK/b-ak.txt"; }
	"$BTFC" layout -V --base "$C/vmlinux.btf" sadb_msg "$K" > "$WORK/b.txt" 2> "$WORK/b.err" &&
		grep -q "split BTF on $C/vmlinux.btf" "$WORK/b.err" &&
		pass "layout sadb_msg af_key.ko --base its vmlinux.btf: its split BTF" ||
		{ fail "layout af_key.ko on its base"; cat "$WORK/b.err"; }
fi
