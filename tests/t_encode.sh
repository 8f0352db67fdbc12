#!/usr/bin/env bash
# DWARF -> BTF against pahole 1.24 (graph equality via btfcanon.py) on
# compiled fixtures, determinism across thread counts, and the Debian 6.12
# kernel corpus (vmlinux and sampled modules equal to the shipped BTF).
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures/types.c
CANON="python3 $CANON_PY"
equal() { $CANON "$@" > "$WORK/canon.out" 2>&1; tail -1 "$WORK/canon.out" | grep -q '^EQUAL' ||
	{ tail -12 "$WORK/canon.out"; return 1; }; }
# Under sanitizers the suite runs again, and a clone without ../shared has
# no btfcanon.py: compare with btfc diff (which agrees with btfcanon, see
# t_diff.sh) instead of the Python tool.
{ [ -n "${SAN_QUICK:-}" ] || [ ! -f "$CANON_PY" ]; } &&
	equal() { "$BTFC" diff -q "$@" > "$WORK/canon.out" 2>&1 || { tail -12 "$WORK/canon.out"; return 1; }; }

have pahole || { skip "pahole not installed: no fixture oracle"; }
for cc in gcc clang; do
	have $cc || continue
	for g in 4 5; do
		for opt in -O0 -O2; do
			o=$WORK/$cc-g$g$opt.o
			$cc -gdwarf-$g $opt -DPAHOLE_SAFE -c "$SRC" -o "$o" || { fail "$cc compile"; continue; }
			have pahole || continue
			pahole -J --btf_gen_floats --btf_encode_detached="$o.pahole" "$o" 2>/dev/null ||
				{ skip "pahole failed on $cc g$g $opt"; continue; }
			check "encode $cc g$g $opt" "$BTFC" encode "$o" -o "$o.btf"
			check "graph equal to pahole: $cc g$g $opt" equal "$o.btf" "$o.pahole"
			check "btfc verify: $cc g$g $opt" "$BTFC" verify --strict "$o.btf"
		done
	done
done

# Types pahole 1.24 cannot encode are degraded, with a note under -v.
gcc -g -c "$SRC" -o "$WORK/full.o"
"$BTFC" encode -v "$WORK/full.o" -o "$WORK/full.btf" 2> "$WORK/full.err"; rc=$?
if [ $rc -eq 0 ] && grep -q 'DW_TAG_atomic_type dropped' "$WORK/full.err" &&
   grep -q 'complex/imaginary base type' "$WORK/full.err"; then pass "atomic/complex degrade with notes"
else fail "atomic/complex degrade with notes (rc=$rc)"; cat "$WORK/full.err" | head -5; fi

# --stats names every phase of the pipeline (read, convert, merge, dedup,
# write) with its time; merge runs inside convert's span, and write is
# timed too (an in-place run rewrites the file).
cp "$WORK/full.o" "$WORK/stats.o"
"$BTFC" encode --stats -j2 "$WORK/stats.o" 2> "$WORK/stats.err"
if awk '/^time:/ { ok = $2 == "read" && $5 == "convert" && $8 == "(merge" && $13 == "dedup" &&
		       $16 == "write" && $9 + 0 <= $6 + 0 && $3 >= 0 && $14 >= 0 && $17 >= 0 }
	END { exit !ok }' "$WORK/stats.err"; then pass "encode --stats: read, convert, merge, dedup, write"
else fail "encode --stats: read, convert, merge, dedup, write"; head -3 "$WORK/stats.err"; fi

# The walk decodes only the attributes in cu.c's leaf shapes and
# other_attrs: every DW_AT_* the encoder names must be listed there, or it
# reads as absent.
want=$(sed -n '/^static const struct dw_leaf leaves/,/^};/p; /^static const uint16_t other_attrs/,/^};/p' \
	"$ROOT/src/encode/cu.c" | grep -o 'DW_AT_[a-z_]*' | sort -u)
used=$(grep -oh 'DW_AT_[a-z_]*' "$ROOT"/src/encode/*.[ch] | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$want"))
if [ -n "$want" ] && [ -z "$missing" ]; then pass "encoder's attribute filter lists every attribute it reads"
else fail "encoder's attribute filter misses: ${missing:-<no list found>}"; fi

# One name met inline and in .debug_str: gcc writes "len" inline
# (DW_FORM_string), clang names it in .debug_str, where the linker keeps it
# only as the tail of "next_len".  The text must get one offset, whichever
# unit comes first, or the two equal structs stay apart: through the
# per-worker cache by text (a module's path), and where the string
# section starts as a copy of .debug_str and a reference there takes its
# position's offset (a kernel image's; BTFC_SEED_UNITS=1 takes it here).
if have gcc && have clang; then
	printf 'struct pair { int len; int next_len; struct pair *nx; };\nstruct pair %s;\n' pa > "$WORK/sa.c"
	printf 'struct pair { int len; int next_len; struct pair *nx; };\nstruct pair %s;\n' pb > "$WORK/sb.c"
	gcc -g -O0 -c "$WORK/sa.c" -o "$WORK/sa.o" && clang -g -O0 -c "$WORK/sb.c" -o "$WORK/sb.o"
	for order in "sa.o sb.o" "sb.o sa.o"; do
		(cd "$WORK" && gcc -shared -nostdlib $order -o seed.so) || { fail "link $order"; continue; }
		for j in 1 2; do
			for seed in 0 1; do
				BTFC_SEED_UNITS=$seed "$BTFC" encode -j$j "$WORK/seed.so" -o "$WORK/seed.btf" &&
					n=$("$BTFC" dump "$WORK/seed.btf" | grep -c "STRUCT 'pair'")
				what="$order -j$j"
				[ "$seed" = 1 ] && what="$what seeded"
				if [ "${n:-0}" = 1 ]; then pass "inline and .debug_str name share an offset: $what"
				else fail "inline and .debug_str name share an offset: $what (${n:-no} struct pair)"; fi
			done
		done
	done
fi

# Determinism: several units (one per object), any thread count, same bytes.
multi_units_object "$WORK/multi.o" || fail "build the six-unit object"
for j in 1 2 4 8; do "$BTFC" encode -j$j "$WORK/multi.o" -o "$WORK/multi-j$j.btf"; done
ok=1; for j in 2 4 8; do cmp -s "$WORK/multi-j1.btf" "$WORK/multi-j$j.btf" || ok=0; done
[ $ok = 1 ] && pass "same bytes for -j1/-j2/-j4/-j8" || fail "same bytes for -j1/-j2/-j4/-j8"

echo 'int x;' | gcc -x c -c - -o "$WORK/nodebug.o"
check_fails "no DWARF is an error (object)" "nodebug.o: no DWARF" "$BTFC" encode "$WORK/nodebug.o" -o "$WORK/x.btf"
[ -e "$WORK/x.btf" ] && fail "failed encode left an output file" || pass "failed encode leaves no output"

# The base cache: a one-module encode on a base keeps the base's index and
# dedup tables in BTFC_CACHE_DIR; later runs on the same base file map them.
# Same bytes cold, warm, without the cache, and after the cache file is
# damaged; another file (same bytes) is another entry.
cache_runs() { # cache_runs BASE MODULE OUT_PREFIX: no cache, cold, warm
	BTFC_CACHE_DIR= "$BTFC" encode -j1 --base "$1" "$2" -o "$3.none" &&
	BTFC_CACHE_DIR=$WORK/cache "$BTFC" encode -j1 --base "$1" "$2" -o "$3.cold" &&
	BTFC_CACHE_DIR=$WORK/cache "$BTFC" encode -j1 --base "$1" "$2" -o "$3.warm" &&
	cmp "$3.none" "$3.cold" && cmp "$3.none" "$3.warm"
}
gcc -g -O2 -DPAHOLE_SAFE -c "$SRC" -o "$WORK/cb.o" && "$BTFC" encode "$WORK/cb.o" -o "$WORK/cb.btf"
gcc -g -O2 -c "$ROOT/tests/fixtures/layout.c" -o "$WORK/cm.o"
rm -rf "$WORK/cache"
check "base cache: same bytes without, cold and warm" cache_runs "$WORK/cb.btf" "$WORK/cm.o" "$WORK/cm"
[ "$(ls "$WORK/cache" | wc -l)" = 1 ] && pass "base cache: one file per base" ||
	fail "base cache: one file per base ($(ls "$WORK/cache" | wc -l))"
cf=$(ls "$WORK"/cache/base-* 2>/dev/null | head -1)
if [ -n "$cf" ]; then
	cp "$cf" "$WORK/cache.good"
	python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); d[len(d)//2] ^= 0x41; open(p,"wb").write(d)' "$cf"
	BTFC_CACHE_DIR=$WORK/cache "$BTFC" encode -j1 --base "$WORK/cb.btf" "$WORK/cm.o" -o "$WORK/cm.dmg" &&
	check "base cache: a damaged cache file is not used" cmp "$WORK/cm.none" "$WORK/cm.dmg"
	check "base cache: ... and is written again" cmp "$cf" "$WORK/cache.good"
	head -c 1000 "$WORK/cache.good" > "$cf"
	BTFC_CACHE_DIR=$WORK/cache "$BTFC" encode -j1 --base "$WORK/cb.btf" "$WORK/cm.o" -o "$WORK/cm.trunc" &&
	check "base cache: a truncated cache file is not used" cmp "$WORK/cm.none" "$WORK/cm.trunc"
fi
cp "$WORK/cb.btf" "$WORK/cb2.btf"
BTFC_CACHE_DIR=$WORK/cache "$BTFC" encode -j1 --base "$WORK/cb2.btf" "$WORK/cm.o" -o "$WORK/cm.other" &&
check "base cache: another base file, same bytes" cmp "$WORK/cm.none" "$WORK/cm.other"
[ "$(ls "$WORK/cache" | wc -l)" = 2 ] && pass "base cache: another file is another entry" ||
	fail "base cache: another file is another entry"
mkdir -p "$WORK/ro-cache" && chmod 500 "$WORK/ro-cache"
BTFC_CACHE_DIR=$WORK/ro-cache/sub "$BTFC" encode -j1 --base "$WORK/cb.btf" "$WORK/cm.o" -o "$WORK/cm.ro" &&
check "base cache: an unusable cache directory is no cache" cmp "$WORK/cm.none" "$WORK/cm.ro"
chmod 700 "$WORK/ro-cache"

# In place: .BTF added (or replaced) through a temp file; every other
# section keeps its bytes; the object still links; mode is kept.
sections_same() { # sections_same A B: every section of A has the same bytes in B, except .BTF/.shstrtab
	local a=$1 b=$2 s
	for s in $(readelf -SW "$a" | sed -nE 's/^ +\[ *[0-9]+\] ([^ ]+) +([A-Z_]+).*/\1 \2/p' |
		   awk '$2 != "NOBITS" && $2 != "NULL" {print $1}' | grep -vx -e .BTF -e .shstrtab | sort -u); do
		objcopy --dump-section "$s=$WORK/sa" "$a" "$WORK/junk1" 2>/dev/null || return 1
		objcopy --dump-section "$s=$WORK/sb" "$b" "$WORK/junk2" 2>/dev/null || return 1
		cmp -s "$WORK/sa" "$WORK/sb" || { echo "section $s differs"; return 1; }
	done
}
gcc -g -O2 -DPAHOLE_SAFE -c "$SRC" -o "$WORK/ip.o"
cp "$WORK/ip.o" "$WORK/ip-orig.o"; chmod 640 "$WORK/ip.o"
"$BTFC" encode "$WORK/ip.o" -o "$WORK/ip.det"
check "in place: .BTF added" "$BTFC" encode "$WORK/ip.o"
objcopy --dump-section .BTF="$WORK/ip.sec" "$WORK/ip.o" "$WORK/junk" 2>/dev/null
check "in place: .BTF equals the detached output" cmp "$WORK/ip.sec" "$WORK/ip.det"
check "in place: other sections unchanged" sections_same "$WORK/ip-orig.o" "$WORK/ip.o"
check "in place: still links (ld -r)" ld -r "$WORK/ip.o" -o "$WORK/ip-linked.o"
[ "$(stat -c %a "$WORK/ip.o")" = 640 ] && pass "in place: mode kept" || fail "in place: mode kept"
cp "$WORK/ip.o" "$WORK/ip-1.o"
check "in place: .BTF replaced" "$BTFC" encode "$WORK/ip.o"
check "in place: replacing is idempotent" cmp "$WORK/ip.o" "$WORK/ip-1.o"
check "verify in-place ELF .BTF" "$BTFC" verify --strict "$WORK/ip.o"
# A failing encode leaves the file as it was.
cp "$WORK/ip-orig.o" "$WORK/bad.o"
python3 - "$WORK/bad.o" <<'PY'
import sys, subprocess
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
for line in subprocess.run(["readelf", "-SW", p], capture_output=True, text=True).stdout.splitlines():
    if " .debug_info " in line:
        io = int(line.split("]")[1].split()[3], 16)
d[io + 12] = 0x7f
open(p, "wb").write(d)
PY
cp "$WORK/bad.o" "$WORK/bad-copy.o"
check_fails "in place: corrupt DWARF fails" "bad.o: .debug_info unit 0x0: DIE 0xc" "$BTFC" encode "$WORK/bad.o"
check "in place: failed encode leaves the input byte-identical" cmp "$WORK/bad.o" "$WORK/bad-copy.o"
[ -z "$(ls "$WORK"/bad.o.* 2>/dev/null)" ] && pass "no temp file left behind" || fail "temp file left behind"

# Outputs that are not plain files.  A FIFO (not regular, as /dev/null) is written
# directly, never renamed over: it must still be a FIFO afterwards.  A
# symlink is followed: the target is replaced (mode kept), the link stays.
fifo_out() { # fifo_out EXPECTED CMD...: CMD writes EXPECTED's bytes into a FIFO
	local exp=$1; shift
	rm -f "$WORK/out.fifo" "$WORK/fifo.got"; mkfifo "$WORK/out.fifo" || return 1
	# (a writer that renames over the FIFO never opens it: the reader times out)
	timeout 20 cat "$WORK/out.fifo" > "$WORK/fifo.got" & local reader=$!
	"$@" -o "$WORK/out.fifo" || { kill $reader 2>/dev/null; wait $reader; return 1; }
	wait $reader && [ -p "$WORK/out.fifo" ] && cmp "$WORK/fifo.got" "$exp"
}
check "output to a FIFO: encode writes into it, FIFO kept" fifo_out "$WORK/ip.det" "$BTFC" encode "$WORK/ip-orig.o"
check "output to a FIFO: convert" fifo_out "$WORK/ip.det" "$BTFC" convert "$WORK/ip.det"
"$BTFC" dedup "$WORK/ip.det" -o "$WORK/ip.dd"
check "output to a FIFO: dedup" fifo_out "$WORK/ip.dd" "$BTFC" dedup "$WORK/ip.det"
out_link() {
	rm -f "$WORK/out-target.btf" "$WORK/out-link.btf"
	echo old > "$WORK/out-target.btf"; chmod 604 "$WORK/out-target.btf"
	ln -s out-target.btf "$WORK/out-link.btf" &&
	"$BTFC" encode "$WORK/ip-orig.o" -o "$WORK/out-link.btf" && [ -L "$WORK/out-link.btf" ] &&
	cmp "$WORK/out-target.btf" "$WORK/ip.det" && [ "$(stat -c %a "$WORK/out-target.btf")" = 604 ]
}
check "output through a symlink: target replaced, link and mode kept" out_link
inplace_link() {
	rm -f "$WORK/ipl.o" "$WORK/ipl-link.o"; cp "$WORK/ip-orig.o" "$WORK/ipl.o"
	ln -s ipl.o "$WORK/ipl-link.o" && "$BTFC" encode "$WORK/ipl-link.o" && [ -L "$WORK/ipl-link.o" ] &&
	objcopy --dump-section .BTF="$WORK/ipl.sec" "$WORK/ipl.o" "$WORK/junk" 2>/dev/null &&
	cmp "$WORK/ipl.sec" "$WORK/ip.det"
}
check "in place through a symlink: the target gets .BTF, the link stays" inplace_link
mkdir -p "$WORK/outdir"
check_fails "output is a directory: one-line error" "outdir: is a directory" "$BTFC" encode "$WORK/ip-orig.o" -o "$WORK/outdir"

# The walk's fast paths (attribute filter, decode plans, leaf runs) give
# what decoding every DIE whole gives (BTFC_SLOW_PATHS: enc_opts.slow_paths).
slow_same() {
	BTFC_SLOW_PATHS=1 "$BTFC" encode -j2 "$@" -o "$WORK/slow.btf" 2>/dev/null && cmp -s "$WORK/fast.btf" "$WORK/slow.btf"
}
n=0; k=0
for o in "$WORK"/*.o; do
	for c in 1.24 1.31; do
		"$BTFC" encode -j2 --compat $c "$o" -o "$WORK/fast.btf" 2>/dev/null || continue
		k=$((k+1)); slow_same --compat $c "$o" && n=$((n+1))
	done
done
[ $k -gt 0 ] && [ $n = $k ] && pass "fast and slow decoding paths give the same bytes ($k encodes of fixtures, 1.24 and 1.31)" ||
	fail "fast vs slow decoding paths: $n of $k encodes the same"

# The kernel corpus.
if C=$(BTFC_NO_FETCH=${BTFC_NO_FETCH:-} "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	check "encode vmlinux" "$BTFC" encode -j2 "$C/vmlinux" -o "$WORK/vmlinux.btf"
	n=0; k=0
	for m in $(awk 'NR % 307 == 11' "$C/modules.txt"); do
		k=$((k+1))
		"$BTFC" encode --compat 1.31 --base "$C/vmlinux.btf" "$m" -o "$WORK/fast.btf" &&
		slow_same --compat 1.31 --base "$C/vmlinux.btf" "$m" && n=$((n+1))
	done
	[ $n = $k ] && pass "fast and slow decoding paths: $k modules the same bytes" ||
		fail "fast vs slow decoding paths: $n of $k modules the same"
	check "vmlinux graph equal to Debian's .BTF" equal "$WORK/vmlinux.btf" "$C/vmlinux.btf"
	check "vmlinux byte-identical to Debian's .BTF (pahole 1.24's order)" cmp "$WORK/vmlinux.btf" "$C/vmlinux.btf"
	# dedup's two levels (groups of units on the threads): the same bytes
	# for any thread count; groups are the input's, not the threads'
	ok=1
	for j in 1 5; do
		"$BTFC" encode -j$j "$C/vmlinux" -o "$WORK/vmlinux-j$j.btf" && cmp -s "$WORK/vmlinux.btf" "$WORK/vmlinux-j$j.btf" || ok=0
	done
	"$BTFC" encode -j2 --stats "$C/vmlinux" -o "$WORK/vmlinux-st.btf" 2> "$WORK/vmlinux.stats" || ok=0
	grep -q "^dedup levels: [0-9]* groups" "$WORK/vmlinux.stats" && ! grep -q "FELL BACK" "$WORK/vmlinux.stats" || ok=0
	[ $ok = 1 ] && pass "vmlinux: dedup in two levels, the same bytes for -j1/-j2/-j5" ||
		fail "vmlinux: two-level dedup missing, or bytes depend on -j"
	# --no-dedup: the merged BTF (4 M types, past the kernel's limit: no
	# kernel checks on it), which dedup turns into the same encode
	"$BTFC" encode -j2 --no-dedup "$C/vmlinux" -o "$WORK/vmlinux-nd.btf" &&
		"$BTFC" dedup -j2 "$WORK/vmlinux-nd.btf" -o "$WORK/vmlinux-nd-d.btf" &&
		cmp -s "$WORK/vmlinux-nd-d.btf" "$WORK/vmlinux.btf" &&
		pass "vmlinux --no-dedup, then dedup: the encode's bytes" ||
		fail "vmlinux --no-dedup then dedup differs from the encode (or failed)"
	rm -f "$WORK/vmlinux-nd.btf" "$WORK/vmlinux-nd-d.btf"
	# pahole 1.30/1.31's policies against their real output: t_modern.sh.

	# decl_tag_kfuncs: the kfuncs of .BTF_ids set8 kfunc sets, and only those.
	"$BTFC" encode --kfunc-tags -j2 "$C/vmlinux" -o "$WORK/vm-kf.btf" && "$BTFC" dump "$WORK/vm-kf.btf" > "$WORK/vm-kf.raw"
	check "kfunc decl tags match .BTF_ids" python3 "$ROOT/tests/tools/kfunc_check.py" "$C/vmlinux" "$WORK/vm-kf.raw"

	n=0
	for m in $(awk 'NR % 97 == 5' "$C/modules.txt" | head -${MODULES:-12}); do
		rel=${m#*/lib/modules/*/}
		"$BTFC" encode --base "$C/vmlinux.btf" "$m" -o "$WORK/mod.btf" &&
		equal "$WORK/mod.btf" "$C/btf/$rel.btf" --base-a "$C/vmlinux.btf" --base-b "$C/vmlinux.btf" &&
		cmp -s "$WORK/mod.btf" "$C/btf/$rel.btf" &&
		n=$((n+1)) || echo "  module differs: $rel"
	done
	[ $n -eq "${MODULES:-12}" ] && pass "$n sampled modules graph equal and byte-identical to Debian's" ||
		fail "sampled modules: only $n equal"
	# Batch mode: one process, base loaded once, same bytes as one at a time.
	awk 'NR % 131 == 7' "$C/modules.txt" | head -8 > "$WORK/list"
	mkdir -p "$WORK/batch" "$WORK/single"
	mkdir -p "$WORK/batch1" "$WORK/batchm"
	check "batch encode -j2" "$BTFC" encode --base "$C/vmlinux.btf" -j2 --list "$WORK/list" -o "$WORK/batch"
	# -j1: one thread's conversion buffers carried through all of them
	check "batch encode -j1" "$BTFC" encode --base "$C/vmlinux.btf" -j1 --list "$WORK/list" -o "$WORK/batch1"
	# a budget every module exceeds: each runs alone, on both threads
	check "batch encode -j2 --memory-budget 1" "$BTFC" encode --base "$C/vmlinux.btf" -j2 \
		--memory-budget 1 --list "$WORK/list" -o "$WORK/batchm"
	ok=1
	while read -r m; do
		"$BTFC" encode --base "$C/vmlinux.btf" -j1 "$m" -o "$WORK/single/$(basename "$m").btf" &&
		cmp -s "$WORK/single/$(basename "$m").btf" "$WORK/batch/$(basename "$m").btf" &&
		cmp -s "$WORK/single/$(basename "$m").btf" "$WORK/batchm/$(basename "$m").btf" &&
		cmp -s "$WORK/single/$(basename "$m").btf" "$WORK/batch1/$(basename "$m").btf" || ok=0
	done < "$WORK/list"
	[ $ok = 1 ] && pass "batch output (-j2, -j1, each alone) byte-identical to single runs" ||
		fail "batch output (-j2, -j1, each alone) byte-identical to single runs"
	# The base cache on vmlinux.btf: cold, warm, and none give the same bytes,
	# for btfc encode and for the pahole front end.
	rm -rf "$WORK/cache"
	ok=1
	while read -r m; do cache_runs "$C/vmlinux.btf" "$m" "$WORK/cache-m" > /dev/null || ok=0; done < "$WORK/list"
	[ $ok = 1 ] && pass "base cache on vmlinux.btf: same bytes without, cold and warm" ||
		fail "base cache on vmlinux.btf: same bytes without, cold and warm"
	m=$(head -1 "$WORK/list")
	BTFC_CACHE_DIR=$WORK/cache BTFC_PAHOLE_VERSION=1.24 "$BTFC" pahole -J --btf_gen_floats \
		--lang_exclude=rust --btf_base "$C/vmlinux.btf" --btf_encode_detached="$WORK/cache-p.btf" "$m" &&
	check "base cache: the pahole front end (warm) gives the same bytes" \
		cmp "$WORK/cache-p.btf" "$WORK/single/$(basename "$m").btf"

	# Distilled base: .BTF.base + .BTF relocated onto the same vmlinux is the
	# plain split BTF again, once both get the same second dedup pass against
	# vmlinux (relocation copies base types into the module; libbpf's dedup is
	# not idempotent).  Onto another kernel it relocates or names what does
	# not match.
	n=0; k=0
	for m in $(head -3 "$WORK/list"); do
		k=$((k+1)); cp "$m" "$WORK/d.ko"
		"$BTFC" encode --distilled-base --base "$C/vmlinux.btf" "$WORK/d.ko" &&
		readelf -S "$WORK/d.ko" | grep -q '\.BTF\.base' &&
		"$BTFC" relocate "$WORK/d.ko" --base "$C/vmlinux.btf" -o "$WORK/d.rel" > /dev/null &&
		"$BTFC" dedup "$WORK/d.rel" --base "$C/vmlinux.btf" -o "$WORK/d.reld" &&
		"$BTFC" dedup "$WORK/single/$(basename "$m").btf" --base "$C/vmlinux.btf" -o "$WORK/d.plaind" &&
		equal "$WORK/d.reld" "$WORK/d.plaind" --base-a "$C/vmlinux.btf" --base-b "$C/vmlinux.btf" &&
		n=$((n+1))
	done
	[ $n = $k ] && pass "distilled base relocates back to the same graph ($n modules)" ||
		fail "distilled base relocation: $n of $k"
	if [ -r /sys/kernel/btf/vmlinux ]; then
		"$BTFC" relocate "$WORK/d.ko" --base /sys/kernel/btf/vmlinux > "$WORK/rel.out" 2>&1; rc=$?
		if [ $rc = 0 ] || { [ $rc = 1 ] && grep -q '^unmatched \[' "$WORK/rel.out"; }; then
			pass "relocation onto the running kernel: verdict (rc=$rc)"
		else fail "relocation onto the running kernel (rc=$rc)"; cat "$WORK/rel.out"; fi
	fi
else
	skip "Debian corpus not available"
fi
rm -rf "$WORK"
