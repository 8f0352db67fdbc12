#!/usr/bin/env bash
# Every DWARF producer (issue #40; docs/producers.md): fixtures built here
# with gcc and clang in the shapes real distributions ship -- type units,
# dwz (one file and -m, DWARF 4 and 5), split DWARF (.dwo, .dwp),
# relocations of TLS and PIC code, -m32, C++, LTO -- each encode
# graph-EQUAL to the same source built without the feature (or to pahole
# 1.24 where it is the reference), and every output passing
# `btfc verify --strict`.
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures/types.c
have gcc || { skip "gcc not installed: no producer fixtures"; exit 0; }
CCS=gcc; have clang && CCS="gcc clang"

# enc NAME FILE OUT [ARGS]: encode and verify --strict.
enc() {
	local name=$1 f=$2 out=$3; shift 3
	if "$BTFC" encode "$@" "$f" -o "$out" > "$WORK/enc.out" 2>&1 &&
	   "$BTFC" verify --strict "$out" >> "$WORK/enc.out" 2>&1; then return 0; fi
	fail "$name: encode + verify --strict"; sed 's/^/      /' "$WORK/enc.out" | head -5
	return 1
}
# same NAME A_FILE B_FILE [ARGS]: both encode and verify, graph-EQUAL.
same() {
	local name=$1 a=$2 b=$3; shift 3
	enc "$name" "$a" "$WORK/same-a.btf" "$@" && enc "$name" "$b" "$WORK/same-b.btf" "$@" &&
		check "$name" "$BTFC" diff -q "$WORK/same-a.btf" "$WORK/same-b.btf"
}

# ---- type units: -fdebug-types-section, DWARF 4 (.debug_types) and 5 (DW_UT_type)
for cc in $CCS; do
	for g in 4 5; do
		for k in o so; do
			fl="-c"; [ $k = so ] && fl="-shared -fPIC"
			$cc -gdwarf-$g -O2 -DPAHOLE_SAFE $fl "$SRC" -o "$WORK/tp-$cc$g.$k" &&
			$cc -gdwarf-$g -O2 -DPAHOLE_SAFE -fdebug-types-section $fl "$SRC" -o "$WORK/tt-$cc$g.$k" ||
				{ fail "compile type units $cc g$g $k"; continue; }
			same "type units equal plain: $cc g$g $k" "$WORK/tp-$cc$g.$k" "$WORK/tt-$cc$g.$k"
		done
	done
done
# Many units (a kernel-sized input's paths: the direct reference map,
# a string section seeded from .debug_str): 70 units, all with type units.
for i in $(seq 1 70); do
	printf '#include "%s"\nint use_%d(struct bits *b, union u *x) { return b->a + x->i + %d; }\n' \
		"$SRC" "$i" "$i" > "$WORK/mu$i.c"
done
if (cd "$WORK" && for i in $(seq 1 70); do gcc -gdwarf-4 -O1 -DPAHOLE_SAFE -Dvsum=vsum$i -Duse_all=use_all$i \
	-Dglobal_counter=gc$i -Dflex_ptr=fp$i -Dthe_union=tu$i -Dthe_anon=ta$i -Dthe_packed=tp$i \
	-Dthe_aligned=tal$i -Dthe_zero=tz$i -Dthe_ops=to$i -Dstatic_bits=sb$i -c mu$i.c -o mu$i.o || exit 1; done &&
	ld -r mu*.o -o many-plain.o &&
	for i in $(seq 1 70); do gcc -gdwarf-4 -O1 -DPAHOLE_SAFE -fdebug-types-section -Dvsum=vsum$i -Duse_all=use_all$i \
	-Dglobal_counter=gc$i -Dflex_ptr=fp$i -Dthe_union=tu$i -Dthe_anon=ta$i -Dthe_packed=tp$i \
	-Dthe_aligned=tal$i -Dthe_zero=tz$i -Dthe_ops=to$i -Dstatic_bits=sb$i -c mu$i.c -o mu$i.o || exit 1; done &&
	ld -r mu*.o -o many-tu.o); then
	BTFC_SEED_UNITS=1 same "type units equal plain: 70 units, seeded strings, -j2" \
		"$WORK/many-plain.o" "$WORK/many-tu.o" -j2
else
	fail "compile 70 units"
fi
# A signature no type unit defines is an error naming the DIE, not an empty struct.
if objcopy --remove-section .debug_types "$WORK/tt-gcc4.o" "$WORK/nosig.o" 2>/dev/null; then
	check_fails "unknown type signature: an error naming the DIE" \
		"nosig.o: DIE 0x[0-9a-f]+: type signature 0x[0-9a-f]{16} names no type unit" \
		"$BTFC" encode "$WORK/nosig.o" -o "$WORK/nosig.btf"
fi

# ---- dwz: partial units and DW_TAG_imported_unit, in the file (dwz) and in
# the alternate file (dwz -m: .gnu_debugaltlink, or -5: DWARF 5 .debug_sup).
if have dwz; then
	mkdir -p "$WORK/dwz"
	cat > "$WORK/dwz/common.h" <<-'EOF'
	enum mode { MODE_A, MODE_B, MODE_C };
	struct shared_cfg { int level; enum mode m; };
	struct only_local { long x; char name[8]; };
	typedef struct shared_cfg cfg_t;
	struct node { struct node *next; int v; };
	EOF
	for i in 1 2 3; do
		printf '#include "common.h"\nstatic struct only_local od%d;\nint f%d(struct node *n) { cfg_t c = { %d, MODE_B }; return n->v + c.level + (int)sizeof(od%d); }\nstruct shared_cfg *gp%d;\n' \
			$i $i $i $i $i > "$WORK/dwz/f$i.c"
	done
	for cc in $CCS; do
		for g in 4 5; do
			d=$WORK/dwz; t=$cc$g
			# one file: three units share a header
			if $cc -gdwarf-$g -O2 -shared -fPIC $d/f1.c $d/f2.c $d/f3.c -o $d/one-$t.so &&
			   cp $d/one-$t.so $d/one-$t-dwz.so && dwz $d/one-$t-dwz.so 2>/dev/null; then
				same "dwz equals plain: $cc g$g one file" $d/one-$t.so $d/one-$t-dwz.so
			else
				skip "dwz cannot compress $cc g$g output"
			fi
			# two files, the shared units in an alternate file
			for m in gnu sup; do
				fl=; [ $m = sup ] && fl=-5
				rm -f $d/alt-$t-$m.debug
				$cc -gdwarf-$g -O2 -shared -fPIC $d/f1.c $d/f2.c -o $d/a-$t.so &&
				$cc -gdwarf-$g -O2 -shared -fPIC $d/f2.c $d/f3.c -o $d/b-$t.so &&
				cp $d/a-$t.so $d/a-$t-$m.so && cp $d/b-$t.so $d/b-$t-$m.so || continue
				if (cd $d && dwz $fl -m alt-$t-$m.debug -M alt-$t-$m.debug a-$t-$m.so b-$t-$m.so 2>/dev/null) &&
				   readelf -S $d/a-$t-$m.so | grep -Eq 'gnu_debugaltlink|debug_sup'; then
					same "dwz -m equals plain: $cc g$g $m, first" $d/a-$t.so $d/a-$t-$m.so
					same "dwz -m equals plain: $cc g$g $m, second" $d/b-$t.so $d/b-$t-$m.so
				else
					skip "dwz -m $fl found nothing to share in $cc g$g output"
				fi
			done
		done
	done
	# the alternate file missing: said, with the paths tried
	if [ -f "$WORK/dwz/a-gcc4-gnu.so" ]; then
		mv "$WORK/dwz/alt-gcc4-gnu.debug" "$WORK/dwz/alt.gone"
		check_fails "dwz: a missing alternate file is named, with the paths tried" \
			"alternate file 'alt-gcc4-gnu.debug' named by .gnu_debugaltlink is missing \(tried '.*/dwz/alt-gcc4-gnu.debug'" \
			"$BTFC" encode "$WORK/dwz/a-gcc4-gnu.so" -o "$WORK/x.btf"
		# no DWARF left but the link to the alternate file: "no DWARF" (issue #40, 8)
		objcopy --remove-section='.debug_*' "$WORK/dwz/a-gcc4-gnu.so" "$WORK/dwz/stripped.so"
		check_fails "dwz: no .debug_info is 'no DWARF', not a missing alternate file" \
			"stripped.so: no DWARF debug info" "$BTFC" encode "$WORK/dwz/stripped.so" -o "$WORK/x.btf"
		mv "$WORK/dwz/alt.gone" "$WORK/dwz/alt-gcc4-gnu.debug"
	fi
else
	skip "dwz not installed"
fi

# ---- relocations in ET_REL debug sections: TLS variables (gcc:
# R_X86_64_DTPOFF32, clang: DTPOFF64, -m32: R_386_TLS_LDO_32), PIC code's
# @GOTOFF, other machines; graph-EQUAL to pahole 1.24, which applies them
# through libdwfl.
cat > "$WORK/tls.c" <<'EOF'
struct tstate { int a; long b; };
__thread struct tstate ts;
static __thread int counter;
static int tbl[4];
int bump(void) { return ++counter + ts.a + tbl[counter & 3]; }
#if defined(__i386__) && defined(GOTOFF)
asm(".pushsection .debug_loclists,\"\",@progbits\n.long tbl@GOTOFF\n.popsection");
#endif
EOF
rel_check() { # NAME OBJ: encode, verify, and equal to pahole 1.24 when it has one
	enc "$1" "$2" "$2.btf" || return
	if have pahole && pahole -J --btf_gen_floats --btf_encode_detached="$2.pahole" "$2" >/dev/null 2>&1; then
		check "relocations: $1 equal to pahole 1.24" "$BTFC" diff -q "$2.btf" "$2.pahole"
	else
		pass "relocations: $1 (pahole cannot read it)"
	fi
}
for cc in $CCS; do
	for m in "" -m32; do
		o=$WORK/tls-$cc$m.o
		$cc -g -O2 -fPIC $m -DGOTOFF -c "$WORK/tls.c" -o "$o" 2>/dev/null || { skip "$cc $m cannot build TLS code"; continue; }
		rel_check "TLS $cc${m:- -m64}" "$o"
		$cc -g -O2 -fPIC $m -DPAHOLE_SAFE -c "$SRC" -o "$WORK/pic-$cc$m.o" && rel_check "PIC types $cc${m:- -m64}" "$WORK/pic-$cc$m.o"
	done
done
if have clang; then
	for t in aarch64-linux-gnu arm-linux-gnueabihf riscv64-linux-gnu s390x-linux-gnu powerpc64le-linux-gnu powerpc64-linux-gnu; do
		o=$WORK/cross-$t.o
		clang --target=$t -gdwarf-5 -O2 -fPIC -ffreestanding -DPAHOLE_SAFE -c "$SRC" -o "$o" 2>/dev/null &&
		clang --target=$t -gdwarf-4 -O2 -fPIC -c "$WORK/tls.c" -o "$WORK/cross-tls-$t.o" 2>/dev/null ||
			{ skip "clang cannot target $t"; continue; }
		rel_check "clang $t" "$o"
		rel_check "clang $t TLS" "$WORK/cross-tls-$t.o"
	done
fi
# A relocation btfc cannot apply: named, fatal where the section is needed,
# skipped with a -v note in a list section it can do without.
printf 'int ext_fn(void);\nint g(void) { return ext_fn(); }\nasm(".pushsection .debug_ranges,\\"\\",@progbits\\n.long ext_fn@PLT\\n.popsection");\n' > "$WORK/plt.c"
if gcc -g -O2 -c "$WORK/plt.c" -o "$WORK/plt.o"; then
	"$BTFC" encode -v "$WORK/plt.o" -o "$WORK/plt.btf" 2> "$WORK/plt.err"
	if "$BTFC" verify --strict "$WORK/plt.btf" >/dev/null 2>&1 &&
	   grep -q "relocation(s) of location or range lists left unapplied (first: section '.rela.debug_ranges': relocation 0 (offset 0x0), R_X86_64_PLT32 (type 4))" "$WORK/plt.err"
	then pass "relocations: an unknown one in .debug_ranges is skipped, with a note"
	else fail "relocations: an unknown one in .debug_ranges is skipped, with a note"; head -3 "$WORK/plt.err"; fi
fi
printf 'int ext_fn(void);\nint g(void) { return ext_fn(); }\nasm(".pushsection .debug_line_str,\\"MS\\",@progbits,1\\n.long ext_fn@PLT\\n.popsection");\n' > "$WORK/plt2.c"
if gcc -gdwarf-5 -O2 -c "$WORK/plt2.c" -o "$WORK/plt2.o" 2>/dev/null; then
	check_fails "relocations: an unknown one in a needed section fails, by name" \
		"section '.rela.debug_line_str': relocation 0 \(offset 0x0\) is R_X86_64_PLT32 \(type 4\), which btfc cannot apply" \
		"$BTFC" encode "$WORK/plt2.o" -o "$WORK/x.btf"
fi

# ---- split DWARF: skeletons find their .dwo (DW_AT_dwo_name under
# DW_AT_comp_dir, else beside the file) or PATH.dwp; a .dwo or .dwp given
# directly encodes too.
mkdir -p "$WORK/split"
cp "$WORK/dwz/f1.c" "$WORK/dwz/f2.c" "$WORK/dwz/common.h" "$WORK/split/" 2>/dev/null ||
	{ printf 'struct node { struct node *next; int v; };\nint f1(struct node *n) { return n->v; }\n' > "$WORK/split/f1.c"
	  printf 'struct other { long x; };\nstruct other o2;\nint f2(struct other *o) { return (int)o->x; }\n' > "$WORK/split/f2.c"; }
cp "$SRC" "$WORK/split/ty.c"
for cc in $CCS; do
	for g in 4 5; do
		for t in "" -fdebug-types-section; do
			d=$WORK/split/$cc$g${t:+-tu}; mkdir -p "$d"
			what="$cc g$g${t:+ type units}"
			(cd "$d" && for f in f1 f2 ty; do
				$cc -gdwarf-$g -O2 -fPIC -DPAHOLE_SAFE $t -gsplit-dwarf -c ../$f.c -o $f.o &&
				$cc -gdwarf-$g -O2 -fPIC -DPAHOLE_SAFE $t -c ../$f.c -o p-$f.o || exit 1
			done && $cc -shared f1.o f2.o ty.o -o s.so && $cc -shared p-f1.o p-f2.o p-ty.o -o p.so) ||
				{ fail "compile split DWARF $what"; continue; }
			same "split equals plain: $what, object + .dwo" "$d/p-ty.o" "$d/ty.o"
			# ld -r of several skeletons (a module's shape): the skeletons
			# after the first are read relocated, and so are the .dwo's
			if (cd "$d" && ld -r f1.o f2.o ty.o -o r.o && ld -r p-f1.o p-f2.o p-ty.o -o p-r.o); then
				same "split equals plain: $what, ld -r of three objects + .dwo files" \
					"$d/p-r.o" "$d/r.o" --compat 1.31
			else fail "ld -r of split objects ($what)"; fi
			same "split equals plain: $what, shared object + .dwo files" "$d/p.so" "$d/s.so"
			same "split equals plain: $what, global variables" "$d/p.so" "$d/s.so" --compat 1.31 --global-var
			# a .dwo has no symbol table: 1.24 takes only its external functions
			if enc "split: a .dwo given directly ($what)" "$d/ty.dwo" "$WORK/dwo.btf" &&
			   enc "split: a .dwo given directly ($what)" "$d/p-ty.o" "$WORK/dwo-p.btf"; then
				check "split: a .dwo given directly: the plain types ($what)" "$BTFC" diff -q \
					--ignore-kinds FUNC,FUNC_PROTO,DECL_TAG "$WORK/dwo-p.btf" "$WORK/dwo.btf"
				"$BTFC" dump "$WORK/dwo.btf" | grep -q "FUNC 'use_all'" &&
					pass "split: a .dwo given directly: its external functions ($what)" ||
					fail "split: a .dwo given directly: its external functions ($what)"
			fi
			# a package: gold's dwp for DWARF 4, llvm-dwp for clang's DWARF 5
			# (llvm-dwp 14 does not finish on gcc's DWARF 5)
			if [ $g = 4 ] && have dwp; then pk="dwp -e s.so -o s.so.dwp"
			elif [ $cc = clang ] && have llvm-dwp; then pk="llvm-dwp -e s.so -o s.so.dwp"
			else continue; fi
			if (cd "$d" && timeout 30 $pk >/dev/null 2>&1 && mkdir -p hide && mv *.dwo hide/); then
				same "split equals plain: $what, .dwp package" "$d/p.so" "$d/s.so"
				enc "split: a .dwp given directly ($what)" "$d/s.so.dwp" "$WORK/dwp.btf" && pass "split: a .dwp given directly ($what)"
				(cd "$d" && mv hide/*.dwo . && rm s.so.dwp)
			else
				skip "no .dwp made for $what"
			fi
		done
	done
done
# the .dwo moved beside the object (DW_AT_comp_dir no longer holds it) ...
d=$WORK/split/gcc4; mkdir -p "$WORK/split/moved"
mv "$d/ty.o" "$d/ty.dwo" "$WORK/split/moved/"
same "split: the .dwo beside the file, not under DW_AT_comp_dir" "$d/p-ty.o" "$WORK/split/moved/ty.o"
# ... and missing: the error names the paths tried
rm "$WORK/split/moved/ty.dwo"
check_fails "split: a missing .dwo is named, with the paths tried" \
	"moved/ty.o: unit 0x0: split DWARF: its .dwo 'ty.dwo' is missing \(tried '.*/split/gcc4/ty.dwo', '.*/split/moved/ty.dwo'\)" \
	"$BTFC" encode "$WORK/split/moved/ty.o" -o "$WORK/x.btf"

# ---- C++: classes with bases and virtual functions, templates,
# references, pointers to members.  BTF has none of them: names become C
# identifiers, base classes are dropped (pahole's choice), references and
# pointers to members become pointers, each with a -v note naming file and
# DIE; the output verifies.  pahole 1.24 fails on the references.
if have g++; then
	CXXS=g++; have clang++ && CXXS="g++ clang++"
	for cxx in $CXXS; do
		for g in 4 5; do
			o=$WORK/cxx-$cxx$g.o
			$cxx -gdwarf-$g -O2 -c "$ROOT/tests/fixtures/classes.cc" -o "$o" || { fail "compile C++ $cxx g$g"; continue; }
			enc "C++ $cxx g$g" "$o" "$o.btf" -v || continue
			"$BTFC" encode -v "$o" -o "$o.btf" 2> "$o.notes"
			if grep -q "DIE 0x[0-9a-f]*: struct name 'Vec<int, 4>' is not a C identifier: encoded as 'Vec_int__4_'" "$o.notes" &&
			   grep -Eq "DIE 0x[0-9a-f]*: member name '_vptr[.$]Shape' is not a C identifier: encoded as '_vptr_Shape'" "$o.notes" &&
			   grep -q "DIE 0x[0-9a-f]*: base class of 'Multi' dropped, as pahole does" "$o.notes" &&
			   grep -q "DIE 0x[0-9a-f]*: DW_TAG_rvalue_reference_type encoded as a pointer" "$o.notes" &&
			   grep -q "DIE 0x[0-9a-f]*: DW_TAG_ptr_to_member_type encoded as a pointer" "$o.notes" &&
			   [ "$(grep -c "^btfc: $o: DIE " "$o.notes")" = "$(wc -l < "$o.notes")" ] &&
			   "$BTFC" dump "$o.btf" | grep -q "STRUCT 'Vec_double__2_'"
			then pass "C++ $cxx g$g: degraded with a note naming file and DIE"
			else fail "C++ $cxx g$g: degraded with a note naming file and DIE"; head -5 "$o.notes"; fi
		done
		check "C++ $cxx: DWARF 4 and 5 give one graph" "$BTFC" diff -q "$WORK/cxx-${cxx}4.o.btf" "$WORK/cxx-${cxx}5.o.btf"
	done
else
	skip "g++ not installed"
fi

# ---- broken DWARF: degraded with a note, or refused in one line; never
# BTF the kernel refuses.
gen=$ROOT/tests/tools/gen_patho.py
patho() { # KIND N PATTERN: the encode degrades with a -v note matching PATTERN, output verifies
	python3 "$gen" "$1" "$2" "$WORK/p-$1.o" || { fail "gen_patho.py $1"; return; }
	if "$BTFC" encode -v "$WORK/p-$1.o" -o "$WORK/p-$1.btf" 2> "$WORK/p-$1.err" &&
	   "$BTFC" verify --strict "$WORK/p-$1.btf" >/dev/null && grep -Eq "$3" "$WORK/p-$1.err"
	then pass "broken DWARF: $1 degraded with a note"
	else fail "broken DWARF: $1 degraded with a note"; head -3 "$WORK/p-$1.err"; fi
}
patho oddfloat 134 "p-oddfloat.o: DIE 0x2a: float type 'odd_float' of 134 bytes encoded as __SANITIZED_FAKE_INT__"
patho voidarray 3 "p-voidarray.o: DIE 0x2a: array of void encoded as an array of its index type"
patho oddenum 3 "p-oddenum.o: DIE 0x2a: enum 'odd_enum' of 3 bytes encoded with 4"
patho nonamefwd 0 "p-nonamefwd.o: DIE 0x2a: declaration without a name encoded as an empty anonymous struct"
patho badnamecxx 1 "p-badnamecxx.o: DIE 0x2a: struct name 'bad name<1>' is not a C identifier: encoded as 'bad_name_1_'"
python3 "$gen" badname 1 "$WORK/p-badname.o" && check_fails "broken DWARF: a C unit's bad name fails in one line" \
	"p-badname.o: the BTF made of its DWARF would not load: \[2\] STRUCT Invalid name: 'bad name<1>'" \
	"$BTFC" encode "$WORK/p-badname.o" -o "$WORK/x.btf"
python3 "$gen" voidmember 0 "$WORK/p-voidmember.o" && check_fails "broken DWARF: a member without a type fails in one line" \
	"p-voidmember.o: the BTF made of its DWARF would not load: \[2\] STRUCT member 'm': Invalid type_id: 0" \
	"$BTFC" encode "$WORK/p-voidmember.o" -o "$WORK/x.btf"
# The complex-type note: once per DIE, with the file, saying what it became.
printf '_Complex long double cld;\n_Complex float cf;\n' > "$WORK/cplx.c"
if gcc -g -c "$WORK/cplx.c" -o "$WORK/cplx.o"; then
	"$BTFC" encode -v "$WORK/cplx.o" -o "$WORK/cplx.btf" 2> "$WORK/cplx.err"
	if [ "$(grep -c "complex" "$WORK/cplx.err")" = 2 ] &&
	   grep -q "cplx.o: DIE 0x[0-9a-f]*: complex/imaginary base type 'complex long double' (32 bytes) encoded as __SANITIZED_FAKE_INT__" "$WORK/cplx.err" &&
	   grep -q "cplx.o: DIE 0x[0-9a-f]*: complex/imaginary base type 'complex float' (8 bytes) encoded as an INT of that size" "$WORK/cplx.err" &&
	   [ "$(wc -l < "$WORK/cplx.err")" = 2 ]
	then pass "complex types: one note per DIE, with the file"
	else fail "complex types: one note per DIE, with the file"; cat "$WORK/cplx.err"; fi
fi

# ---- bytes: where the graph is pahole 1.24's, so are the bytes (string
# order: first references before dedup, as libbpf's dedup lays them out;
# type order: a struct's nested types and a pointer's type tags before
# it, as pahole adds them).
if have pahole; then
	cat > "$WORK/nest.c" <<-'EOF2'
	struct fwd_only;
	struct outer { int a; struct { int b; union { int c; long d; }; } in; struct fwd_only *fp; };
	struct later { struct fwd_only2 *p; };
	int func(struct outer *o, struct later *l) { struct local { int q; union { char x; short y; } u; } lv = { o->a, { 1 } }; return lv.q + lv.u.x + (l != 0); }
	EOF2
	printf 'struct s { char c[4]; };\nstruct s g;\n' > "$WORK/noint.c"
	for cc in $CCS; do
		for g in 4 5; do
			for f in "$SRC -O2 -DPAHOLE_SAFE" "$SRC -O0 -DPAHOLE_SAFE" "$WORK/nest.c -O0" "$WORK/noint.c -O0"; do
				set -- $f
				o=$WORK/bytes.o; rm -f "$o" "$o.pahole"
				$cc -gdwarf-$g "$2" ${3:-} -c "$1" -o "$o" &&
				pahole -J --btf_gen_floats --btf_encode_detached="$o.pahole" "$o" >/dev/null 2>&1 ||
					{ skip "pahole: $cc g$g $(basename $1) $2"; continue; }
				enc "bytes" "$o" "$o.btf" &&
				check "bytes equal to pahole 1.24: $cc g$g $(basename "$1") $2" cmp "$o.btf" "$o.pahole"
			done
		done
	done
fi

# ---- LTO (-flto): pahole 1.24 merges an LTO file's units into one
# (an abbreviation with DW_FORM_ref_addr), so every array is indexed by
# the merged unit's int, also in a first unit that has none; btfc's unit
# gets pahole's made-up "int" there, the same graph.  Where pahole's merged
# unit is wrong, btfc is not: an undefined import's declaration,
# referenced from the LTRANS unit, gives pahole a FUNC without the
# parameters (ext_lib_func() below has one).
if have pahole && gcc -flto -c -x c /dev/null -o "$WORK/lto-probe.o" 2>/dev/null; then
	d=$WORK/lto; mkdir -p "$d"
	printf 'struct only_chars { char a[4]; unsigned char b[2]; };\nstruct only_chars oc;\nchar *first_unit(void) { return oc.a; }\n' > "$d/z.c"
	cat > "$d/a.c" <<-'EOF2'
	struct pt { int x, y; };
	struct box { struct pt lo, hi; char tag[8]; };
	extern int area(const struct box *b);
	extern void scale(struct box *b, int k);
	extern int ext_lib_func(int);
	static int helper(int a, int b) { return a * b + ext_lib_func(a); }
	int user_a(struct box *b, int k) { scale(b, k); return area(b) + helper(k, 3); }
	int main(void) { struct box b = { {0,0}, {2,3}, "x" }; return user_a(&b, 2); }
	EOF2
	cat > "$d/b.c" <<-'EOF2'
	struct pt { int x, y; };
	struct box { struct pt lo, hi; char tag[8]; };
	long counters[4];
	__attribute__((noinline)) int area(const struct box *b) { return (b->hi.x - b->lo.x) * (b->hi.y - b->lo.y); }
	__attribute__((noinline)) void scale(struct box *b, int k) { b->hi.x *= k; b->hi.y *= k; counters[k & 3]++; }
	EOF2
	printf 'int ext_lib_func(int v) { static char buf[16]; buf[v & 15]++; return buf[0]; }\n' > "$d/c.c"
	if (cd "$d" && gcc -g -O2 -flto -c z.c && gcc -g -O2 -flto -c a.c && gcc -g -O2 -flto -c b.c &&
	    gcc -g -O2 -c c.c && gcc -g -O2 -flto z.o a.o b.o c.o -o lto) &&
	   pahole -J --btf_gen_floats --btf_encode_detached="$d/lto.pahole" "$d/lto" >/dev/null 2>&1 &&
	   enc "LTO" "$d/lto" "$d/lto.btf"; then
		check "LTO: pahole 1.24's graph but for its functions" \
			"$BTFC" diff -q --ignore-kinds FUNC,FUNC_PROTO "$d/lto.btf" "$d/lto.pahole"
		"$BTFC" diff "$d/lto.btf" "$d/lto.pahole" > "$d/diff.txt"
		if grep -q "FUNC 'ext_lib_func' \[[0-9]* -> [0-9]*\]: prototype (FUNC_PROTO (anon)): params 1 -> 0" "$d/diff.txt" &&
		   grep -q "^changed (causes): 1$" "$d/diff.txt"
		then pass "LTO: the one function pahole gets wrong (ext_lib_func without its parameter)"
		else fail "LTO: the one function pahole gets wrong"; head -20 "$d/diff.txt"; fi
	else
		fail "LTO fixture: build, pahole or encode"
	fi
fi
