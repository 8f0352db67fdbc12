#!/usr/bin/env bash
# BTF toolkit on real inputs: parse/write byte identity, `dump --format raw`
# and `--format json` equal to bpftool's output, verify (kernel and strict
# modes), ELF .BTF input, error exits, and `dump --format c` compiling.
# A sample of 30 corpus modules here; scripts/check-btf-corpus.sh does all.
. "$(dirname "$0")/lib.sh"

# btf_checks NAME FILE [BASE]: the per-input battery.
btf_checks() {
	local name=$1 f=$2 base=${3:-} bopt=() bpopt=()
	[ -n "$base" ] && { bopt=(--base "$base"); bpopt=(-B "$base"); }
	if "$BTFC" convert "$f" "${bopt[@]}" -o "$WORK/rt.btf" && cmp -s "$WORK/rt.btf" "$f"; then
		pass "$name: round trip byte-identical"
	else fail "$name: round trip byte-identical"; fi
	if have bpftool; then
		"$BTFC" dump "$f" "${bopt[@]}" > "$WORK/ours.txt" 2>&1
		bpftool "${bpopt[@]}" btf dump file "$f" format raw > "$WORK/bpftool.txt" 2>&1
		if [ -s "$WORK/ours.txt" ] && cmp -s "$WORK/ours.txt" "$WORK/bpftool.txt"; then
			pass "$name: dump raw == bpftool"
		else fail "$name: dump raw == bpftool"; diff "$WORK/ours.txt" "$WORK/bpftool.txt" | head -5; fi
	fi
	check "$name: verify" "$BTFC" verify "$f" "${bopt[@]}"
	check "$name: verify --strict" "$BTFC" verify --strict "$f" "${bopt[@]}"
}

json_check() {
	local name=$1 f=$2
	have bpftool || return 0
	if "$BTFC" dump --format json "$f" > "$WORK/ours.json" &&
	   bpftool -j btf dump file "$f" format raw > "$WORK/bpftool.json" &&
	   cmp -s "$WORK/ours.json" "$WORK/bpftool.json"; then
		pass "$name: dump json == bpftool -j"
	else fail "$name: dump json == bpftool -j"; fi
}

# A vmlinux.h-style header must compile with gcc and clang -target bpf.
c_check() {
	local name=$1 f=$2
	if ! "$BTFC" dump --format c "$f" > "$WORK/vmlinux.h" 2> "$WORK/c.err"; then
		fail "$name: dump --format c"; head -3 "$WORK/c.err"; return
	fi
	if have bpftool; then
		if cmp -s "$WORK/vmlinux.h" <(bpftool btf dump file "$f" format c); then
			pass "$name: dump c == bpftool format c"
		else fail "$name: dump c == bpftool format c"; fi
	fi
	printf '#include "vmlinux.h"\nint x;\n' > "$WORK/use.c"
	if have gcc; then
		check "$name: C header compiles (gcc -fsyntax-only)" gcc -fsyntax-only -I"$WORK" "$WORK/use.c"
	fi
	if have clang; then
		check "$name: C header compiles (clang -target bpf)" \
			clang -target bpf -c -I"$WORK" "$WORK/use.c" -o "$WORK/use.o"
	fi
}

SYS=/sys/kernel/btf/vmlinux
if [ -r "$SYS" ]; then
	btf_checks "sysfs vmlinux" "$SYS"
	json_check "sysfs vmlinux" "$SYS"
	c_check "sysfs vmlinux" "$SYS"
else
	skip "$SYS not readable"
fi

if C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	B=$C/vmlinux.btf
	btf_checks "corpus vmlinux.btf" "$B"
	json_check "corpus vmlinux.btf" "$B"
	c_check "corpus vmlinux.btf" "$B"
	# The same BTF read from the ELF's .BTF section.
	if [ -e "$C/vmlinux" ] && have bpftool; then
		"$BTFC" dump "$C/vmlinux" > "$WORK/elf.txt" 2>&1
		if cmp -s "$WORK/elf.txt" <(bpftool btf dump file "$B" format raw); then
			pass "corpus vmlinux ELF .BTF == raw blob"
		else fail "corpus vmlinux ELF .BTF == raw blob"; fi
	fi
	# 30 modules, spread over the sorted list (deterministic).
	find "$C/btf" -name '*.ko.btf' | sort > "$WORK/mods"
	n=$(wc -l < "$WORK/mods")
	step=$(( n / 30 > 0 ? n / 30 : 1 ))
	awk -v s="$step" 'NR % s == 1' "$WORK/mods" | head -30 > "$WORK/sample"
	while read -r m; do
		btf_checks "module ${m#$C/btf/}" "$m" "$B"
	done < "$WORK/sample"
	# A module given as its .ko ELF.
	ko=$(find "$C/pkg" -name af_key.ko 2>/dev/null | head -1)
	if [ -n "$ko" ] && have bpftool; then
		"$BTFC" dump "$ko" --base "$C/vmlinux" > "$WORK/ko.txt" 2>&1
		if cmp -s "$WORK/ko.txt" <(bpftool -B "$B" btf dump file "$ko" format raw); then
			pass "module .ko ELF with ELF base"
		else fail "module .ko ELF with ELF base"; fi
	fi
	# A module parsed without its base is refused.
	check_fails "module without base" "split BTF parsed without its base" \
		"$BTFC" dump "$(head -1 "$WORK/sample")"
else
	skip "Debian corpus absent (scripts/corpus.sh); corpus BTF checks not run"
fi

# Malformed input: exit 1 with a finding, or 2 when unreadable.
"$BTFC" convert "$SYS" -o "$WORK/bad.btf" 2>/dev/null || cp "${B:-/nonexistent}" "$WORK/bad.btf" 2>/dev/null
if [ -s "$WORK/bad.btf" ]; then
	# Flip the INT kind_flag of type [1] (the first record: byte 24+7 of a LE blob).
	printf '\x81' | dd of="$WORK/bad.btf" bs=1 seek=31 conv=notrunc 2>/dev/null
	"$BTFC" verify "$WORK/bad.btf" > "$WORK/v.out" 2>&1; rc=$?
	if [ $rc -eq 1 ] && grep -q '\[1\] INT Invalid btf_info kind_flag' "$WORK/v.out"; then
		pass "verify reports a bad record with exit 1"
	else fail "verify reports a bad record with exit 1 (rc=$rc)"; head -3 "$WORK/v.out"; fi
fi
check_fails "dump of a missing file" "No such file" "$BTFC" dump "$WORK/does-not-exist"
printf 'hello world, not btf' > "$WORK/junk"
check_fails "dump of junk" "neither a raw BTF blob nor an ELF" "$BTFC" dump "$WORK/junk"
check_fails "verify without file" "no input file" "$BTFC" verify
