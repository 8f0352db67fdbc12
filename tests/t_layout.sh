#!/usr/bin/env bash
# btfc layout --compat 1.24 against pahole 1.24 (-F btf, Debian's dwarves):
# exact text on fixtures compiled here (gcc and clang, BTF made by pahole
# -J) and on a sample of the Debian 6.12 corpus; DWARF input; -R
# invariants; --compile builds with gcc and agrees on sizes and offsets;
# JSON parses; --diff sees a change.  (pahole 1.31's text: t_layout131.sh.)
. "$(dirname "$0")/lib.sh"
FX=$ROOT/tests/fixtures/layout.c
have pahole || { skip "layout: pahole not installed"; exit 0; }
pahole -F btf --help >/dev/null 2>&1 || { skip "layout: pahole without -F btf"; exit 0; }

same() { # NAME FILE1 FILE2
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1"; diff "$2" "$3" | head -10 | sed 's/^/      /'; fi
}

for cc in gcc clang; do
	have $cc || { skip "layout: $cc not installed"; continue; }
	o=$WORK/layout-$cc.o; b=$WORK/layout-$cc.btf
	$cc -g -O0 -c "$FX" -o "$o" || { fail "layout: $cc fixture build"; continue; }
	pahole -J --btf_encode_detached="$b" "$o" 2>/dev/null || { skip "layout: pahole -J"; continue; }
	pahole -F btf "$b" > "$WORK/p.txt" 2>&1; "$BTFC" layout --compat 1.24 "$b" > "$WORK/b.txt" 2>&1
	same "layout: $cc fixture, all types" "$WORK/p.txt" "$WORK/b.txt"
	bad=0
	for t in holes bits bits2 packed outer aligned un anon_t anon_u color small big fns flex nested everything cachey bitpad; do
		for opt in "" -E --hex -r "-c 32" -q; do
			# shellcheck disable=SC2086
			pahole -F btf $opt -C $t "$b" > "$WORK/p1.txt" 2>&1
			# shellcheck disable=SC2086
			"$BTFC" layout --compat 1.24 $opt -C $t "$b" > "$WORK/b1.txt" 2>&1
			cmp -s "$WORK/p1.txt" "$WORK/b1.txt" || { bad=$((bad+1)); echo "      differs: $t $opt"; }
		done
	done
	[ $bad -eq 0 ] && pass "layout: $cc fixture, 18 types x 6 option sets" || fail "layout: $cc fixture options ($bad differ)"
	for opt in -s -n -N "-H 1" "-B 1" "-z 4" --structs --unions --packed "-y b" "-x b" "-i inner" "-f holes"; do
		# shellcheck disable=SC2086
		pahole -F btf $opt "$b" > "$WORK/p1.txt" 2>&1; "$BTFC" layout --compat 1.24 $opt "$b" > "$WORK/b1.txt" 2>&1
		cmp -s "$WORK/p1.txt" "$WORK/b1.txt" || { fail "layout: $cc fixture '$opt'"; diff "$WORK/p1.txt" "$WORK/b1.txt" | head -5; }
	done
	pass "layout: $cc fixture filters and one-line formats"
	# DWARF input prints what pahole -F dwarf does (its alignments, every
	# array dimension); clang's nested type definitions, children of the
	# struct's DIE, pahole also prints as extra members (t_layout_dwarf.sh)
	if [ $cc = gcc ]; then
		pahole -F dwarf "$o" > "$WORK/pd.txt" 2>&1
		"$BTFC" layout --compat 1.24 "$o" > "$WORK/bd.txt" 2>&1
		same "layout: $cc DWARF input = pahole -F dwarf" "$WORK/pd.txt" "$WORK/bd.txt"
	fi
	check "layout: $cc -R plans valid" "$BTFC" layout --check-reorg "$b"
	"$BTFC" layout -R holes "$b" | grep -q "saved 16 bytes" && pass "layout: $cc -R holes saves 16" || fail "layout: $cc -R holes"
	"$BTFC" layout --format json "$b" > "$WORK/j.txt" && python3 -c "
import json,sys
a=json.load(open('$WORK/j.txt'))
for o in a:
    assert all('offset' in m and 'hole_before' in m and 'cacheline' in m for m in o['members'])
assert len(a)>10" && pass "layout: $cc json (one array)" || fail "layout: $cc json"
done

# --compile: compiles, and gcc agrees on every size and member offset
b=$WORK/layout-gcc.btf
if [ -f "$b" ]; then
	check "layout: --compile fixture builds with sizes/offsets" python3 "$ROOT/tests/tools/layout_compile_check.py" "$BTFC" "$b" holes bits bits2 packed outer aligned un nested everything cachey flex fns
	# no names: every struct and union with what it uses, as pahole --compile
	"$BTFC" layout --compile "$b" > "$WORK/all.h" && [ "$(grep -c '^struct [a-z_0-9]* {' "$WORK/all.h")" -ge 10 ] &&
		gcc -fsyntax-only -Werror -x c "$WORK/all.h" && clang -fsyntax-only -Werror -x c "$WORK/all.h" &&
		pass "layout: --compile of every struct builds with gcc and clang" ||
		fail "layout: --compile of every struct"
	sed 's/struct holes { char a; long b;/struct holes { char a; int a2; long b;/' "$FX" > "$WORK/layout2.c"
	gcc -g -c "$WORK/layout2.c" -o "$WORK/layout2.o"
	"$BTFC" layout --diff "$WORK/layout-gcc.o" "$WORK/layout2.o" holes > "$WORK/d.txt"; rc=$?
	[ $rc -eq 1 ] && grep -q "+ a2" "$WORK/d.txt" && pass "layout: --diff sees a new member" || { fail "layout: --diff (rc=$rc)"; cat "$WORK/d.txt"; }
fi

# Debian 6.12 corpus: all structs in one run, a sample one per run, modules
if C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	V=$C/vmlinux.btf
	pahole -F btf "$V" > "$WORK/p.txt" 2>&1; "$BTFC" layout --compat 1.24 "$V" > "$WORK/b.txt" 2>&1
	same "layout: corpus vmlinux.btf, every struct and union" "$WORK/p.txt" "$WORK/b.txt"
	for opt in -E --hex -s; do
		pahole -F btf $opt "$V" > "$WORK/p.txt" 2>&1; "$BTFC" layout --compat 1.24 $opt "$V" > "$WORK/b.txt" 2>&1
		same "layout: corpus vmlinux.btf $opt" "$WORK/p.txt" "$WORK/b.txt"
	done
	: > "$WORK/pt.txt"
	names="task_struct sk_buff page inode net_device mm_struct file super_block zone rq pglist_data atomic_t pid_type page_pool_params"
	for t in $names; do pahole -F btf -C $t "$V" >> "$WORK/pt.txt" 2>&1; done
	# shellcheck disable=SC2086
	"$BTFC" layout --compat 1.24 --fresh $(echo $names | tr ' ' '\n' | sed 's/^/-C/') "$V" > "$WORK/bt.txt" 2>&1
	same "layout: corpus, 14 types one per run" "$WORK/pt.txt" "$WORK/bt.txt"
	for m in net/key/af_key.ko net/vmw_vsock/hv_sock.ko; do
		M=$C/btf/kernel/$m.btf
		[ -f "$M" ] || continue
		pahole -F btf --btf_base "$V" "$M" > "$WORK/p.txt" 2>&1; "$BTFC" layout --compat 1.24 --base "$V" "$M" > "$WORK/b.txt" 2>&1
		same "layout: corpus module $m with --base" "$WORK/p.txt" "$WORK/b.txt"
	done
	check "layout: corpus -R plans valid for every struct" "$BTFC" layout --check-reorg "$V"
	# what BTF cannot say, made up for in the header: padding bitfields at
	# the end (__kernel_timex), u64 typedefs aligned to 4 (compat_*), packed
	# structs as members (compat_fs_quota_stat, fgraph_data, sctp_*)
	check "layout: corpus --compile sizes/offsets where BTF loses alignment" python3 "$ROOT/tests/tools/layout_compile_check.py" "$BTFC" "$V" \
		__kernel_timex compat_blk_user_trace_setup compat_fs_quota_stat fgraph_data sctp_paddrparams sctp_sock
	"$BTFC" layout --compile "$V" > "$WORK/all.h" && [ "$(grep -c '^struct [a-z_0-9]* {' "$WORK/all.h")" -gt 8000 ] &&
		gcc -fsyntax-only -Werror -x c "$WORK/all.h" && clang -target bpf -fsyntax-only -Werror -x c "$WORK/all.h" &&
		pass "layout: corpus --compile of every struct builds with gcc and clang -target bpf" ||
		fail "layout: corpus --compile of every struct"
else
	skip "layout: Debian corpus not present"
fi
