#!/usr/bin/env bash
# Whole-corpus dedup checks (picked up by scripts/check-kernel.sh):
#  - every one of the 1,138 module BTFs appended to itself (split on
#    vmlinux.btf) dedups to exactly libbpf 1.1.2's bytes, to the bytes of
#    the module deduped alone, and (VAR/DATASEC aside) to the module's graph;
#  - the encoder's pre-dedup BTF of vmlinux and all modules: levelled
#    reference phase == serial, batch dedup on a prepared base == plain;
#    vmlinux's in two levels (and vmlinux.btf x8 forced into them):
#    libbpf's graph and type count, the same bytes for any -j;
#  - then the long variants of tests/t_dedup.sh (8x vmlinux, all modules,
#    btfcanon graph comparisons).
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}; O=${O:-build}
C=$(scripts/corpus.sh) || exit 1
make -s O="$O" "$O/libbpf-oracle" || { echo "no libbpf oracle"; exit 1; }
ORACLE=$O/libbpf-oracle
V=$C/vmlinux.btf
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
find "$C/btf" -name '*.ko.btf' | sort > "$tmp/mods.txt"
# shellcheck disable=SC2016
xargs -P "$(nproc)" -a "$tmp/mods.txt" -I{} sh -c '
	b=$(basename {} .ko.btf); d=$(mktemp -d "$3/m.XXXXXX")
	"$0" dedup --no-dedup --base "$1" {} {} -o "$d/in" &&
	"$0" dedup -j1 --base "$1" "$d/in" -o "$d/btfc" &&
	"$0" dedup -j2 --base "$1" "$d/in" -o "$d/j2" &&
	"$0" dedup -j8 --base "$1" "$d/in" -o "$d/j8" &&
	"$2" -B "$1" "$d/in" "$d/lb" &&
	"$0" dedup -j1 --base "$1" {} -o "$d/single" || { echo "ERROR $b"; exit 0; }
	cmp -s "$d/btfc" "$d/lb" || echo "LIBBPF $b"
	cmp -s "$d/btfc" "$d/j2" && cmp -s "$d/btfc" "$d/j8" || echo "THREADS $b"
	cmp -s "$d/btfc" "$d/single" || echo "VARDUP $b"
	rm -rf "$d"' "$BTFC" "$V" "$ORACLE" "$tmp" > "$tmp/res"
n=$(wc -l < "$tmp/mods.txt")
nerr=$(grep -c '^ERROR' "$tmp/res"); nlb=$(grep -c '^LIBBPF' "$tmp/res"); nth=$(grep -c '^THREADS' "$tmp/res")
fails=0
echo "modules appended to themselves: $n, errors $nerr, differing from libbpf $nlb, -j2/-j8 != -j1 $nth"
[ "$nerr" -eq 0 ] && [ "$nlb" -eq 0 ] && [ "$nth" -eq 0 ] ||
	{ grep -E '^(ERROR|LIBBPF|THREADS)' "$tmp/res" | head; fails=$((fails+1)); }
# modules whose module+module output is not byte-equal to module alone must
# only differ by duplicated VAR/DATASEC (never merged): compare graphs
nv=0; bad=0
for b in $(sed -n 's/^VARDUP //p' "$tmp/res"); do
	m=$(grep "/$b.ko.btf$" "$tmp/mods.txt"); nv=$((nv+1))
	"$BTFC" dedup --no-dedup --base "$V" "$m" "$m" -o "$tmp/in"
	"$BTFC" dedup --base "$V" "$tmp/in" -o "$tmp/out"
	"$BTFC" dedup --base "$V" "$m" -o "$tmp/single"
	# btfcanon.py when the shared oracles sit next to the repository, else btfc diff
	if [ -f ../shared/tools/btfcanon.py ]; then
		python3 ../shared/tools/btfcanon.py "$tmp/out" "$tmp/single" --base-a "$V" --base-b "$V" \
			--ignore-kinds VAR,DATASEC > /dev/null
	else
		"$BTFC" diff -q "$tmp/out" "$tmp/single" --base "$V" --ignore-kinds VAR,DATASEC > /dev/null
	fi || { bad=$((bad+1)); echo "GRAPH $b"; }
done
echo "modules with duplicated VAR/DATASEC: $nv, graph differences: $bad"
[ $bad -eq 0 ] || fails=$((fails+1))
# The encoder's pre-dedup BTF (encode --no-dedup) of vmlinux and of every
# module: the batch dedup of all modules on one prepared base must give
# the bytes of one plain dedup per module.
if [ -f "$C/vmlinux" ]; then
	"$BTFC" encode --no-dedup -j "$(nproc)" "$C/vmlinux" -o "$tmp/vmlinux.nd" || fails=$((fails+1))
	"$BTFC" dedup --exact -j1 --keep-strings --relayout-strings "$tmp/vmlinux.nd" -o "$tmp/v.full"
	# 2.8M reference types in compile-unit order: levelled phase 5 (-j1, -j2) == serial
	"$BTFC" dedup --exact -j1 --keep-strings --relayout-strings --serial-refs "$tmp/vmlinux.nd" -o "$tmp/v.serial"
	"$BTFC" dedup --exact -j2 --keep-strings --relayout-strings "$tmp/vmlinux.nd" -o "$tmp/v.j2"
	if cmp -s "$tmp/v.full" "$tmp/v.serial" && cmp -s "$tmp/v.full" "$tmp/v.j2"; then
		echo "vmlinux: levelled reference phase (-j1, -j2) == serial (bytes)"
	else echo "vmlinux: levelled reference phase DIFFERS from serial"; fails=$((fails+1)); fi
	# The same input in two levels (the encoder's dedup): libbpf's graph and
	# type count, the same bytes for -j1/-j2/-j5, and no fallback to one level
	"$ORACLE" "$tmp/vmlinux.nd" "$tmp/v.lb" > /dev/null || fails=$((fails+1))
	ok=1
	for j in 1 2 5; do
		"$BTFC" dedup -j$j --keep-strings --stats "$tmp/vmlinux.nd" -o "$tmp/v.two$j" 2> "$tmp/v.st$j" || ok=0
		cmp -s "$tmp/v.two1" "$tmp/v.two$j" || ok=0
	done
	grep -q "^dedup levels: [0-9]* groups" "$tmp/v.st1" && ! grep -q "FELL BACK" "$tmp/v.st1" || ok=0
	"$BTFC" diff -q "$tmp/v.two1" "$tmp/v.lb" > "$tmp/v.diff" || ok=0
	if [ -f ../shared/tools/btfcanon.py ]; then
		python3 ../shared/tools/btfcanon.py "$tmp/v.two1" "$tmp/v.lb" > /dev/null || ok=0
	fi
	echo "vmlinux in two levels: $(sed -n 's/^dedup levels: //p' "$tmp/v.st1"); $(cat "$tmp/v.diff")"
	[ $ok = 1 ] || { echo "vmlinux in two levels: NOT libbpf's graph, or bytes depend on -j"; fails=$((fails+1)); }
	rm -f "$tmp/vmlinux.nd" "$tmp/v.full" "$tmp/v.serial" "$tmp/v.j2" "$tmp/v.lb" "$tmp"/v.two*
fi
# vmlinux.btf x8 (one level by default: nothing for groups to do) forced
# into groups of one copy each: libbpf's graph and type count
x8=(); for i in 1 2 3 4 5 6 7 8; do x8+=("$V"); done
"$BTFC" dedup --no-dedup "${x8[@]}" -o "$tmp/x8.in"
"$ORACLE" "$tmp/x8.in" "$tmp/x8.lb" > /dev/null
nv=$("$BTFC" dump "$V" | grep -c '^\[')
if "$BTFC" dedup --group-types "$nv" --stats "$tmp/x8.in" -o "$tmp/x8.two" 2> "$tmp/x8.st" &&
   grep -q "^dedup levels: 8 groups" "$tmp/x8.st" && "$BTFC" diff -q "$tmp/x8.two" "$tmp/x8.lb" > "$tmp/x8.diff"; then
	echo "vmlinux.btf x8 in two levels (groups of one copy): $(cat "$tmp/x8.diff")"
else echo "vmlinux.btf x8 in two levels: NOT libbpf's graph ($(cat "$tmp/x8.diff" "$tmp/x8.st" 2>/dev/null | tail -2))"; fails=$((fails+1)); fi
rm -f "$tmp"/x8.*
find "$C/pkg" -name '*.ko' | sort > "$tmp/kos.txt"
if [ -s "$tmp/kos.txt" ]; then
	mkdir -p "$tmp/nd" "$tmp/bA"
	"$BTFC" encode --no-dedup -j "$(nproc)" --base "$V" --list "$tmp/kos.txt" -o "$tmp/nd" > /dev/null
	ls "$tmp"/nd/*.btf > "$tmp/nd.txt"
	"$BTFC" dedup --keep-strings --base "$V" -j "$(nproc)" --stats --batch "$tmp/bA" @"$tmp/nd.txt"
	# shellcheck disable=SC2016
	xargs -P "$(nproc)" -a "$tmp/nd.txt" -I{} sh -c '
		b=$(basename {}); d=$(mktemp -d "$2/s.XXXXXX")
		"$0" dedup -j1 --keep-strings --base "$1" {} -o "$d/plain" || { echo "ERROR $b"; exit 0; }
		cmp -s "$d/plain" "$2/bA/$b" || echo "BATCH $b"
		rm -rf "$d"' "$BTFC" "$V" "$tmp" > "$tmp/res2"
	n=$(wc -l < "$tmp/nd.txt")
	ne=$(grep -c '^ERROR' "$tmp/res2"); nb=$(grep -c '^BATCH' "$tmp/res2")
	echo "encoder pre-dedup modules: $n, errors $ne, batch != plain $nb"
	[ "$ne" -eq 0 ] && [ "$nb" -eq 0 ] || { head "$tmp/res2"; fails=$((fails+1)); }
fi
BTFC_LONG=1 BTFC=$BTFC O=$O RESULTS="$tmp/results" bash tests/t_dedup.sh
nf=$(grep -c '^fail' "$tmp/results"); np=$(grep -c '^pass' "$tmp/results")
echo "t_dedup.sh (long): $np passed, $nf failed"
[ "$nf" -eq 0 ] || fails=$((fails+1))
[ $fails -eq 0 ]
