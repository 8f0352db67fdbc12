#!/usr/bin/env bash
# btfc dedup against libbpf 1.1.2's btf__dedup (tests/tools/libbpf_oracle.c):
# the hand-built cases of tests/unit/test_dedup.c (docs/btf.md 7.7) and, when the
# Debian 6.12 corpus is present, vmlinux, a 4x vmlinux blob, every module
# appended onto vmlinux as one blob, and sampled modules appended to
# themselves -- output bytes must be identical to libbpf's, and identical
# for -j1/-j2/-j8.  BTFC_LONG=1 adds the 8x blob and graph comparisons
# with btfcanon.py (slow); scripts/check-kernel-dedup.sh does all modules.
. "$(dirname "$0")/lib.sh"
O=${O:-build}
ORACLE=$ROOT/$O/libbpf-oracle
UNIT=${UNIT:-$ROOT/$O/unit-tests}
if [ ! -x "$ORACLE" ] || [ "$ORACLE" -ot "$ROOT/tests/tools/libbpf_oracle.c" ]; then
	make -s -C "$ROOT" O="$O" "$O/libbpf-oracle" >/dev/null 2>&1
fi
if [ ! -x "$ORACLE" ]; then
	skip "dedup: libbpf oracle (needs libbpf-dev)"
	exit 0
fi

# same_as_libbpf NAME IN [BASE]: btfc and libbpf give identical bytes
same_as_libbpf() {
	local name=$1 in=$2 base=${3:-} ba=() bo=()
	[ -n "$base" ] && { ba=(--base "$base"); bo=(-B "$base"); }
	if ! "$BTFC" dedup -j1 "${ba[@]}" "$in" -o "$WORK/$name.btfc" > "$WORK/last.out" 2>&1; then
		fail "dedup $name: btfc failed"; sed 's/^/      /' "$WORK/last.out" | head -5; return
	fi
	if ! "$ORACLE" "${bo[@]}" "$in" "$WORK/$name.libbpf" > "$WORK/last.out" 2>&1; then
		fail "dedup $name: libbpf failed"; sed 's/^/      /' "$WORK/last.out" | head -5; return
	fi
	if cmp -s "$WORK/$name.btfc" "$WORK/$name.libbpf"; then pass "dedup $name == libbpf"
	else fail "dedup $name: output differs from libbpf's"; fi
	# without base the reference phase runs by levels; the serial one must agree
	[ -n "$base" ] && return
	if "$BTFC" dedup -j1 --serial-refs "$in" -o "$WORK/$name.sr" > "$WORK/last.out" 2>&1 &&
	   cmp -s "$WORK/$name.sr" "$WORK/$name.libbpf"; then pass "dedup $name --serial-refs == libbpf"
	else fail "dedup $name --serial-refs: differs from libbpf's"; fi
}

# same_for_threads NAME IN [BASE]: -j2 and -j8 give the -j1 bytes; without
# base, so does the serial reference phase (--serial-refs)
same_for_threads() {
	local name=$1 in=$2 base=${3:-} ba=() j ok=1 what=-j1/-j2/-j8
	[ -n "$base" ] && ba=(--base "$base")
	"$BTFC" dedup -j1 "${ba[@]}" "$in" -o "$WORK/$name.j1" || ok=0
	for j in 2 8; do
		"$BTFC" dedup -j$j "${ba[@]}" "$in" -o "$WORK/$name.j$j" && cmp -s "$WORK/$name.j1" "$WORK/$name.j$j" || ok=0
	done
	if [ -z "$base" ]; then
		what="$what/--serial-refs"
		"$BTFC" dedup -j2 --serial-refs "$in" -o "$WORK/$name.sr" && cmp -s "$WORK/$name.j1" "$WORK/$name.sr" || ok=0
	fi
	[ $ok = 1 ] && pass "dedup $name: same bytes for $what" || fail "dedup $name: output depends on -j or --serial-refs"
}

# 1. hand-built cases
cases=$WORK/cases; mkdir -p "$cases"
if BTFC_DEDUP_CASES=$cases "$UNIT" dedup > "$WORK/unit.out" 2>&1; then
	n=0
	for f in "$cases"/*.btf; do
		case $f in *.base.btf) continue ;; esac
		c=$(basename "$f" .btf); n=$((n+1))
		case $c in
		d12|d13)	# pure reference cycles: both must fail with ELOOP
			check_fails "dedup $c: reference cycle rejected" "reference cycle" "$BTFC" dedup "$f" -o "$WORK/$c.out"
			check_fails "dedup $c: reference cycle rejected (--serial-refs)" "reference cycle" "$BTFC" dedup --serial-refs "$f" -o "$WORK/$c.out"
			check_fails "dedup $c: libbpf agrees (ELOOP)" "symbolic links|ELOOP" "$ORACLE" "$f" "$WORK/$c.lb" ;;
		*)
			if [ -f "$cases/$c.base.btf" ]; then same_as_libbpf "case-$c" "$f" "$cases/$c.base.btf"
			else same_as_libbpf "case-$c" "$f"; fi ;;
		esac
	done
	[ $n -ge 15 ] && pass "dedup: $n hand-built cases written" || fail "dedup: only $n hand-built cases"
else
	fail "dedup: unit cases failed"; sed 's/^/      /' "$WORK/unit.out" | head
fi

# same_graph_as_libbpf NAME OUT LIBBPF [BASE]: btfc diff and, where it is, btfcanon.py say EQUAL
same_graph_as_libbpf() {
	local name=$1 out=$2 lb=$3 base=${4:-} ba=() ca=()
	[ -n "$base" ] && { ba=(--base "$base"); ca=(--base-a "$base" --base-b "$base"); }
	if ! "$BTFC" diff -q "${ba[@]}" "$out" "$lb" > "$WORK/last.out" 2>&1; then
		fail "dedup $name: graph differs from libbpf's"; sed 's/^/      /' "$WORK/last.out" | head -3; return
	fi
	if [ -f "$CANON_PY" ] && ! python3 "$CANON_PY" "$out" "$lb" "${ca[@]}" > "$WORK/last.out" 2>&1; then
		fail "dedup $name: btfcanon: graph differs from libbpf's"; tail -2 "$WORK/last.out"; return
	fi
	pass "dedup $name: graph == libbpf's"
}

# 1b. the two levels (src/btf/dedup/groups.c) on the order-dependent cases
# of tests/unit/test_pdedup.c, every unit a group: libbpf's graph, and the
# same bytes for -j1/-j2/-j5.  pd_dup_pointers is the documented exception
# (docs/parallel-dedup.md): libbpf 1.1 keeps a struct twice, the two levels
# once (libbpf >= 1.5 tolerates the copied pointer the same way).
np=0
for f in "$cases"/pd_*.btf; do
	[ -f "$f" ] || continue
	case $f in *.base.btf) continue ;; esac
	c=$(basename "$f" .btf); np=$((np+1))
	b= ba=() bo=()
	[ -f "$cases/$c.base.btf" ] && { b=$cases/$c.base.btf; ba=(--base "$b"); bo=(-B "$b"); }
	ok=1
	for j in 1 2 5; do
		"$BTFC" dedup -j$j --group-types 1 "${ba[@]}" "$f" -o "$WORK/$c.two$j" || ok=0
	done
	cmp -s "$WORK/$c.two1" "$WORK/$c.two2" && cmp -s "$WORK/$c.two1" "$WORK/$c.two5" || ok=0
	[ $ok = 1 ] && pass "dedup $c in two levels: same bytes for -j1/-j2/-j5" ||
		fail "dedup $c in two levels: output depends on -j"
	"$ORACLE" "${bo[@]}" "$f" "$WORK/$c.lb" > /dev/null 2>&1 || { fail "dedup $c: libbpf failed"; continue; }
	if [ "$c" = pd_dup_pointers ]; then
		nt=$("$BTFC" dump "$WORK/$c.two1" | grep -c '^\[')
		nl=$("$BTFC" dump "$WORK/$c.lb" | grep -c '^\[')
		[ "$nt" -eq $((nl - 1)) ] && pass "dedup $c in two levels: one struct fewer than libbpf 1.1 ($nt of $nl)" ||
			fail "dedup $c in two levels: $nt types, libbpf $nl"
	else
		same_graph_as_libbpf "$c (two levels)" "$WORK/$c.two1" "$WORK/$c.lb" "$b"
	fi
done
[ $np -ge 8 ] && pass "dedup: $np two-level cases written" || fail "dedup: only $np two-level cases"

# 1c. a fixture built as six units (objects), encoded without dedup, then
# deduplicated in two levels (the units found from its references):
# libbpf's graph, the encoder's own result, same bytes for any -j
multi_units_object "$WORK/multi.o" || fail "build the six-unit object"
if "$BTFC" encode --no-dedup "$WORK/multi.o" -o "$WORK/multi.nd" && "$BTFC" encode "$WORK/multi.o" -o "$WORK/multi.enc"; then
	ok=1
	for j in 1 2 5; do
		"$BTFC" dedup -j$j --keep-strings --group-types 64 --stats "$WORK/multi.nd" -o "$WORK/multi.two$j" \
			2> "$WORK/multi.stats$j" || ok=0
	done
	cmp -s "$WORK/multi.two1" "$WORK/multi.two2" && cmp -s "$WORK/multi.two1" "$WORK/multi.two5" || ok=0
	grep -q "dedup levels: [2-9]" "$WORK/multi.stats1" || ok=0
	[ $ok = 1 ] && pass "dedup fixture in two levels: same bytes for -j1/-j2/-j5" ||
		fail "dedup fixture in two levels: output depends on -j (or no groups)"
	"$ORACLE" "$WORK/multi.nd" "$WORK/multi.lb" > /dev/null 2>&1 &&
		same_graph_as_libbpf "fixture (two levels)" "$WORK/multi.two1" "$WORK/multi.lb"
	check "dedup fixture in two levels: graph == the encoder's" "$BTFC" diff -q "$WORK/multi.two1" "$WORK/multi.enc"
else
	fail "dedup fixture: encode failed"
fi

# 2. CLI errors
check_fails "dedup: missing input" "No such file|cannot" "$BTFC" dedup "$WORK/nonexistent" -o "$WORK/x.btf"
check_fails "dedup: --flatten needs --base" "needs --base" "$BTFC" dedup --flatten "$cases/d1.btf" -o "$WORK/x.btf"
[ ! -e "$WORK/x.btf" ] && pass "dedup: no output on failure" || fail "dedup: output left behind on failure"

# 3. the kernel corpus
C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) || C=
if [ -z "$C" ] || [ ! -f "$C/vmlinux.btf" ]; then
	skip "dedup: kernel corpus not present"
	exit 0
fi
V=$C/vmlinux.btf
same_as_libbpf vmlinux "$V"
"$BTFC" dedup --no-dedup "$V" "$V" "$V" "$V" -o "$WORK/x4.in"
same_as_libbpf vmlinux-x4 "$WORK/x4.in"
same_for_threads vmlinux-x4 "$WORK/x4.in"
# x4 must collapse to vmlinux plus 3 extra copies of every VAR and DATASEC
nv=$("$BTFC" dedup "$V" -o /dev/null --stats 2>&1 | sed -nE 's/^dedup: ([0-9]+) -> ([0-9]+).*/\2/p')
n4=$("$BTFC" dedup "$WORK/x4.in" -o /dev/null --stats 2>&1 | sed -nE 's/^dedup: ([0-9]+) -> ([0-9]+).*/\2/p')
nvd=$("$BTFC" dump "$V" 2>/dev/null | grep -cE "^\[[0-9]+\] (VAR|DATASEC) ")
[ -n "$nv" ] && [ -n "$n4" ] && [ "$n4" -eq $((nv + 3 * nvd)) ] && pass "dedup vmlinux-x4: $n4 = $nv + 3 x $nvd VAR/DATASEC" \
	|| fail "dedup vmlinux-x4: $n4 types, expected $nv + 3 x $nvd"

find "$C/btf" -name '*.ko.btf' | sort > "$WORK/mods.txt"
"$BTFC" dedup --no-dedup --flatten --base "$V" @"$WORK/mods.txt" -o "$WORK/allmods.in"
same_as_libbpf all-modules "$WORK/allmods.in"
same_for_threads all-modules "$WORK/allmods.in"

# prepared base (btf_dedup_base_new) shared by concurrent split dedups:
# same bytes as one plain `btfc dedup --base` per module, for any -j
mkdir -p "$WORK/bA" "$WORK/bB" "$WORK/bC"
awk 'NR % 10 == 1' "$WORK/mods.txt" > "$WORK/mods10.txt"
ok=1
"$BTFC" dedup --base "$V" -j1 --batch "$WORK/bA" @"$WORK/mods10.txt" || ok=0
"$BTFC" dedup --base "$V" -j8 --batch "$WORK/bB" @"$WORK/mods10.txt" || ok=0
"$BTFC" dedup --base "$V" -j2 --no-prepared-base --batch "$WORK/bC" @"$WORK/mods10.txt" || ok=0
diff -rq "$WORK/bA" "$WORK/bB" > /dev/null && diff -rq "$WORK/bA" "$WORK/bC" > /dev/null || ok=0
nb=0
for m in $(awk 'NR % 6 == 1' "$WORK/mods10.txt"); do
	"$BTFC" dedup -j1 --base "$V" "$m" -o "$WORK/m1.btf" && cmp -s "$WORK/m1.btf" "$WORK/bA/$(basename "$m")" || ok=0
	nb=$((nb+1))
done
[ $ok = 1 ] && pass "dedup --batch (prepared base): $(wc -l < "$WORK/mods10.txt") modules, same bytes for -j1/-j8/unprepared and as $nb single runs" \
	|| fail "dedup --batch: prepared base output differs"

n=0; bad=0
for m in $(awk 'NR % 60 == 1' "$WORK/mods.txt"); do
	b=$(basename "$m" .ko.btf); n=$((n+1))
	"$BTFC" dedup --no-dedup --base "$V" "$m" "$m" -o "$WORK/mm.in"
	"$BTFC" dedup -j1 --base "$V" "$WORK/mm.in" -o "$WORK/mm.btfc" || { bad=$((bad+1)); continue; }
	"$ORACLE" -B "$V" "$WORK/mm.in" "$WORK/mm.lb" || { bad=$((bad+1)); continue; }
	"$BTFC" dedup -j1 --base "$V" "$m" -o "$WORK/m.btfc"
	cmp -s "$WORK/mm.btfc" "$WORK/mm.lb" || { bad=$((bad+1)); echo "      differs from libbpf: $b"; continue; }
	# module+module dedups to module (modulo duplicated VAR/DATASEC)
	if ! cmp -s "$WORK/mm.btfc" "$WORK/m.btfc" && \
	   ! "$BTFC" dump "$WORK/m.btfc" --base "$V" 2>/dev/null | grep -qE '^\[[0-9]+\] (VAR|DATASEC) '; then
		bad=$((bad+1)); echo "      module+module != module: $b"
	fi
done
[ $bad -eq 0 ] && pass "dedup: $n sampled modules appended to themselves == libbpf, == module" \
	|| fail "dedup: $bad of $n sampled modules differ"

if [ "${BTFC_LONG:-}" = 1 ]; then
	x8=("$V" "$V" "$V" "$V" "$V" "$V" "$V" "$V")
	"$BTFC" dedup --no-dedup "${x8[@]}" -o "$WORK/x8.in"
	same_as_libbpf vmlinux-x8 "$WORK/x8.in"
	same_for_threads vmlinux-x8 "$WORK/x8.in"
	if [ -f "$CANON_PY" ]; then
		check "dedup vmlinux-x8: graph == vmlinux (btfcanon, VAR/DATASEC aside)" \
			python3 "$CANON_PY" "$WORK/vmlinux-x8.btfc" "$V" --ignore-kinds VAR,DATASEC
		check "dedup all-modules: graph == libbpf's (btfcanon)" \
			python3 "$CANON_PY" "$WORK/all-modules.btfc" "$WORK/all-modules.libbpf"
	else
		check "dedup vmlinux-x8: graph == vmlinux (btfc diff, VAR/DATASEC aside)" \
			"$BTFC" diff -q --ignore-kinds VAR,DATASEC "$WORK/vmlinux-x8.btfc" "$V"
		check "dedup all-modules: graph == libbpf's (btfc diff)" \
			"$BTFC" diff -q "$WORK/all-modules.btfc" "$WORK/all-modules.libbpf"
	fi
fi
