#!/usr/bin/env bash
# `btfc diff` against shared/tools/btfcanon.py on the Debian corpus: the same
# EQUAL/DIFFERENT verdict and the same onlyA/onlyB counts (the last output
# line has btfcanon's format, so the two last lines must be identical), the
# changed type named, and the speed ratio (>= 20x).  Variants come from the
# test-only helper build/btf-mutate (shuffle, member offset, enumerator
# value, function parameter type).
. "$(dirname "$0")/lib.sh"

case ${O:-build} in /*) OD=$O ;; *) OD=$ROOT/${O:-build} ;; esac
MUT=${BTF_MUTATE:-$OD/btf-mutate}
CANON=$CANON_PY
[ -x "$MUT" ] || { skip "diff: $MUT not built (make ${O:-build}/btf-mutate)"; exit 0; }
if ! C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	skip "Debian corpus absent (scripts/corpus.sh); diff checks not run"
	exit 0
fi
V=$C/vmlinux.btf
canon_ok=0
recorded=1	# recorded btfcanon results hold for this corpus only
[ "$(basename "$C")" = 6.12.117+deb12-cloud-amd64 ] || recorded=0
if [ -n "${SAN_QUICK:-}" ]; then canon_ok=0	# the plain run compares with btfcanon
	skip "diff: btfcanon comparisons left to the non-sanitizer run"
elif have bpftool && have python3 && [ -f "$CANON" ]; then canon_ok=1
else skip "diff: bpftool/python3/btfcanon.py missing: counts not compared with btfcanon"; fi

# Variants of vmlinux.btf.
"$MUT" "$V" "$WORK/shuf.btf" shuffle 42 > /dev/null
"$MUT" "$V" "$WORK/member.btf" member task_struct 3 32 > /dev/null
"$MUT" "$V" "$WORK/enum.btf" enum pid_type 1 5 > /dev/null
"$MUT" "$V" "$WORK/param.btf" param vfs_read > /dev/null

# btfcanon on a vmlinux pair takes ~15 s: by default it runs live on two
# of them (in the background, in parallel) and the other two are checked
# against its recorded results (btfcanon.py on this corpus, 2025-12);
# BTFC_SLOW=1 runs all four live.
live="shuf member"
[ "${BTFC_SLOW:-}" = 1 ] && live="shuf member enum param"
printf 'DIFFERENT types A=107331 B=107331 onlyA=3675 onlyB=3675\n' > "$WORK/enum.canon"
printf 'DIFFERENT types A=107331 B=107332 onlyA=1 onlyB=2\n' > "$WORK/param.canon"
if [ $canon_ok = 1 ]; then
	for v in $live; do echo "$v"; done |
		xargs -P 2 -I{} sh -c 'start=$(date +%s%N); python3 "$1" "$2" "$3/{}.btf" > "$3/{}.canon" 2>&1;
			echo $(( ($(date +%s%N) - start) / 1000000 )) > "$3/{}.canon.ms"' _ "$CANON" "$V" "$WORK" &
	canon_pid=$!
fi

# ours NAME WANT_RC A B [ARGS...]: run btfc diff; check exit status and verdict line.
ours() {
	local name=$1 want=$2 rc; shift 2
	"$BTFC" diff "$@" > "$WORK/$name.ours" 2>&1; rc=$?
	if [ $rc -eq "$want" ] && tail -1 "$WORK/$name.ours" | grep -q "^$([ "$want" = 0 ] && echo EQUAL || echo DIFFERENT) types"; then
		pass "diff $name: exit $want"
	else fail "diff $name: exit $rc, want $want"; tail -3 "$WORK/$name.ours"; fi
}
# names NAME PATTERN...: the output names the changed type.
names() {
	local name=$1 p; shift
	for p in "$@"; do
		if grep -qF -- "$p" "$WORK/$name.ours"; then pass "diff $name: names $p"
		else fail "diff $name: names $p"; grep -A3 'causes' "$WORK/$name.ours" | head -5; fi
	done
}
# same_as_canon NAME: our last line == btfcanon's last line.
same_as_canon() {
	local name=$1
	[ $canon_ok = 1 ] || [ $recorded = 1 ] && [ -f "$WORK/$name.canon" ] || return 0
	if [ -s "$WORK/$name.canon" ] && cmp -s <(tail -1 "$WORK/$name.ours") <(tail -1 "$WORK/$name.canon"); then
		pass "diff $name: same verdict and counts as btfcanon ($(tail -1 "$WORK/$name.ours" | cut -d' ' -f3-))"
	else fail "diff $name: differs from btfcanon"; echo "      ours:  $(tail -1 "$WORK/$name.ours")";
		echo "      canon: $(tail -1 "$WORK/$name.canon" 2>/dev/null)"; fi
}

ours self 0 "$V" "$V"
ours shuf 0 "$V" "$WORK/shuf.btf"
ours member 1 "$V" "$WORK/member.btf"
names member "STRUCT 'task_struct'" "member 'stack' bit offset 256 -> 288"
ours enum 1 "$V" "$WORK/enum.btf"
names enum "ENUM 'pid_type'" "enumerator 'PIDTYPE_TGID' value 1 -> 6"
ours param 1 "$V" "$WORK/param.btf"
names param "FUNC 'vfs_read'" "param #1 'file' type: PTR to STRUCT 'file' -> INT 'long int'"

# Module split BTF on the vmlinux base: a sample of 4 modules.
find "$C/btf" -name '*.ko.btf' | sort | awk 'NR % 283 == 7' | head -4 > "$WORK/mods"
prev=
while read -r m; do
	n=$(basename "$m" .ko.btf)
	"$MUT" -B "$V" "$m" "$WORK/$n.shuf" shuffle 7 > /dev/null
	"$MUT" -B "$V" "$m" "$WORK/$n.member" member - 1 8 > "$WORK/$n.what"
	ours "$n-shuf" 0 "$m" "$WORK/$n.shuf" --base-a "$V" --base-b "$V"
	ours "$n-member" 1 "$m" "$WORK/$n.member" --base "$V"
	names "$n-member" "STRUCT '$(cut -d' ' -f2 "$WORK/$n.what")'"
	pairs=("$n-shuf:$m:$WORK/$n.shuf" "$n-member:$m:$WORK/$n.member")
	if [ -n "$prev" ]; then
		# Two different modules (usually a different number of refinement rounds).
		"$BTFC" diff "$prev" "$m" --base "$V" > "$WORK/$n-other.ours" 2>&1
		pairs+=("$n-other:$prev:$m")
	fi
	if [ $canon_ok = 1 ]; then
		for p in "${pairs[@]}"; do
			IFS=: read -r pn pa pb <<< "$p"
			python3 "$CANON" "$pa" "$pb" --base-a "$V" --base-b "$V" > "$WORK/$pn.canon" 2>&1
			same_as_canon "$pn"
		done
	fi
	prev=$m
done < "$WORK/mods"

if [ $canon_ok = 1 ]; then wait "$canon_pid"; fi
[ $recorded = 1 ] || rm -f "$WORK/enum.canon" "$WORK/param.canon"
for v in shuf member enum param; do same_as_canon "$v"; done
if [ $canon_ok = 1 ]; then
	# Ours timed after btfcanon finished (best of 3); btfcanon ran two at a time.
	ms_ours=999999
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$BTFC" diff -q "$V" "$WORK/shuf.btf" > /dev/null
		t=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ $t -lt $ms_ours ] && ms_ours=$t
	done
	ms_canon=$(cat "$WORK/shuf.canon.ms" 2>/dev/null || echo 0)
	ratio=$(( ms_canon / (ms_ours + 1) ))
	echo "  speed: btfc diff ${ms_ours} ms, btfcanon.py ${ms_canon} ms on vmlinux vs shuffled: ${ratio}x"
	if [ "$ratio" -ge 20 ]; then pass "diff: >= 20x faster than btfcanon.py (${ratio}x)"
	else fail "diff: only ${ratio}x faster than btfcanon.py"; fi
fi

check_fails "diff: missing input" "No such file" "$BTFC" diff "$V" "$WORK/none.btf"
check_fails "diff: one argument" "needs two files.*see .btfc diff --help." "$BTFC" diff "$V"
