#!/usr/bin/env bash
# DWARF reader against llvm-dwarfdump on compiled fixtures, plus malformed input.
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures/types.c
CMP="python3 $ROOT/tests/tools/dwarfcmp.py $BTFC"

# Tag counts from our full decode must equal llvm-dwarfdump's DIE list.
tags_match() {
	local f=$1
	"$BTFC" dwarf --stats -j2 "$f" | awk '/^DW_TAG/ {print $1, $2}' | sort > "$WORK/ours.tags" &&
	llvm-dwarfdump --debug-info --debug-types "$f" |
		sed -nE 's/^0x[0-9a-f]+: +(DW_TAG_[A-Za-z0-9_]+).*/\1/p' | sort | uniq -c |
		awk '{print $2, $1}' | sort > "$WORK/llvm.tags" &&
	diff "$WORK/ours.tags" "$WORK/llvm.tags"
}

for cc in gcc clang; do
	have $cc || { skip "$cc not installed"; continue; }
	for g in 4 5; do
		for v in plain zlib O2 types exe m32; do
			o=$WORK/$cc-g$g-$v.o
			flags="-gdwarf-$g -c"
			case $v in
			zlib) flags="$flags -gz=zlib" ;;
			O2) flags="$flags -O2" ;;
			types) flags="-gdwarf-$g -fdebug-types-section -shared -fPIC"; o=${o%.o}.so ;;
			exe) flags="-gdwarf-$g -shared -fPIC"; o=${o%.o}.so ;;
			m32) flags="$flags -m32" ;;
			esac
			if ! $cc $flags "$SRC" -o "$o" 2>/dev/null; then
				skip "$cc -gdwarf-$g $v: toolchain cannot build it"; continue
			fi
			check "dwarfdump-equal $cc g$g $v" $CMP "$o"
			check "tag-counts $cc g$g $v" tags_match "$o"
		done
	done
done

# Type units in a relocatable object: one .debug_types/.debug_info section
# per COMDAT group, joined.
if gcc -gdwarf-4 -fdebug-types-section -c "$SRC" -o "$WORK/tu.o"; then
	check "comdat type units in ET_REL" tags_match "$WORK/tu.o"
fi

# zstd-compressed sections (objcopy can make them even when gcc cannot).
gcc -g -c "$SRC" -o "$WORK/z0.o"
if objcopy --compress-debug-sections=zstd "$WORK/z0.o" "$WORK/z1.o" 2>/dev/null &&
   readelf -S "$WORK/z1.o" | grep -A1 '\.debug_info' | grep -q ' C '; then
	"$BTFC" dwarf "$WORK/z0.o" > "$WORK/z0.txt"; "$BTFC" dwarf "$WORK/z1.o" > "$WORK/z1.txt"
	check "zstd-compressed equals plain" cmp "$WORK/z0.txt" "$WORK/z1.txt"
else
	skip "objcopy cannot write zstd sections"
fi

# dwz: shared types moved to an alternate file, referenced by
# DW_FORM_GNU_ref_alt / DW_FORM_GNU_strp_alt.
if have dwz; then
	gcc -g -O0 "$SRC" -shared -fPIC -o "$WORK/dwz-a.so" &&
	gcc -g -O0 -DSECOND "$SRC" -shared -fPIC -o "$WORK/dwz-b.so"
	if (cd "$WORK" && dwz -m dwz-common.debug -M dwz-common.debug dwz-a.so dwz-b.so) 2>/dev/null &&
	   readelf -S "$WORK/dwz-a.so" | grep -q gnu_debugaltlink; then
		check "dwz file reads" "$BTFC" dwarf --stats "$WORK/dwz-a.so"
		"$BTFC" dwarf "$WORK/dwz-a.so" > "$WORK/dwz.txt" 2>&1
		if grep -q 'DW_AT_import \[DW_FORM_GNU_ref_alt\]' "$WORK/dwz.txt" &&
		   grep -q 'GNU_strp_alt.*("global_counter")' "$WORK/dwz.txt" &&
		   "$BTFC" dwarf "$WORK/dwz-common.debug" | grep -q '("list_head")'
		then pass "dwz alt strings resolved"
		else fail "dwz alt strings resolved"; fi
	else
		skip "dwz found nothing to share"
	fi
else
	skip "dwz not installed"
fi

# Malformed input: a one-line error with file and offset, exit 2, no crash.
gcc -gdwarf-5 -c "$SRC" -o "$WORK/good.o"
mutate() { # mutate OUT PYTHON-EXPR-ON-bytearray-d-with-info-offset-io
	python3 - "$WORK/good.o" "$1" "$2" <<'PY'
import sys, subprocess
src, out, expr = sys.argv[1:4]
d = bytearray(open(src, "rb").read())
hdr = subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout
for line in hdr.splitlines():
    if " .debug_info " in line:
        f = line.split("]")[1].split()
        io = int(f[3], 16)
    if " .debug_abbrev " in line:
        f = line.split("]")[1].split()
        ao = int(f[3], 16)
exec(expr)
open(out, "wb").write(d)
PY
}
head -c 100 "$WORK/good.o" > "$WORK/trunc.o"
check_fails "truncated ELF" "trunc.o: offset 0x[0-9a-f]+: section header table .* truncated" "$BTFC" dwarf "$WORK/trunc.o"
size=$(stat -c %s "$WORK/good.o")
head -c $((size - 2000)) "$WORK/good.o" > "$WORK/short.o"
check_fails "section table past end of file" "short.o: offset 0x[0-9a-f]+: .*past the end of the file" "$BTFC" dwarf "$WORK/short.o"
mutate "$WORK/len.o" 'd[io:io+4] = (0x7ffffff0).to_bytes(4, "little")'
check_fails "unit length past end" "len.o: .debug_info unit 0x0: unit length 0x7ffffff0 runs past" "$BTFC" dwarf "$WORK/len.o"
mutate "$WORK/code.o" 'd[io+12] = 0x7f'
check_fails "abbrev code not in table" "code.o: .debug_info unit 0x0: DIE 0xc: abbreviation code not in the unit's table" "$BTFC" dwarf --stats "$WORK/code.o"
mutate "$WORK/form.o" 'd[ao+4] = 0x7e'
check_fails "unknown form" "form.o: .*(unknown attribute form|DIE 0x)" "$BTFC" dwarf --stats "$WORK/form.o"
printf 'not an elf file at all' > "$WORK/text.o"
check_fails "not ELF" "text.o: offset 0: not an ELF file" "$BTFC" dwarf "$WORK/text.o"
echo 'int x;' | gcc -x c -c - -o "$WORK/nodebug.o"
check_fails "no DWARF" "nodebug.o: no DWARF" "$BTFC" dwarf "$WORK/nodebug.o"
# A bad unit does not hide the good ones: the second unit still decodes.
gcc -g -c "$SRC" -o "$WORK/u1.o" && echo 'struct second_unit_marker { int a; } m;' |
	gcc -g -x c -c - -o "$WORK/u2.o" && ld -r "$WORK/u1.o" "$WORK/u2.o" -o "$WORK/two.o"
python3 - "$WORK/two.o" <<'PY'
import sys, subprocess
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
for line in subprocess.run(["readelf", "-SW", p], capture_output=True, text=True).stdout.splitlines():
    if " .debug_info " in line:
        io = int(line.split("]")[1].split()[3], 16)
d[io + 12] = 0x7f   # first DIE of unit 0 gets an unknown abbrev code
open(p, "wb").write(d)
PY
"$BTFC" dwarf "$WORK/two.o" > "$WORK/two.txt" 2> "$WORK/two.err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'second_unit_marker' "$WORK/two.txt" && grep -q 'DIE 0xc' "$WORK/two.err"
then pass "bad unit does not stop the next"; else fail "bad unit does not stop the next (rc=$rc)"; fi
rm -rf "$WORK"
