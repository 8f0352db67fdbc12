#!/usr/bin/env bash
# Whole-corpus dedup checks (picked up by scripts/check-kernel.sh):
#  - every one of the 1,138 module BTFs appended to itself (split on
#    vmlinux.btf) dedups to exactly libbpf 1.1.2's bytes, to the bytes of
#    the module deduped alone, and (VAR/DATASEC aside) to the module's graph;
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
	"$2" -B "$1" "$d/in" "$d/lb" &&
	"$0" dedup -j1 --base "$1" {} -o "$d/single" || { echo "ERROR $b"; exit 0; }
	cmp -s "$d/btfc" "$d/lb" || echo "LIBBPF $b"
	cmp -s "$d/btfc" "$d/single" || echo "VARDUP $b"
	rm -rf "$d"' "$BTFC" "$V" "$ORACLE" "$tmp" > "$tmp/res"
n=$(wc -l < "$tmp/mods.txt")
nerr=$(grep -c '^ERROR' "$tmp/res"); nlb=$(grep -c '^LIBBPF' "$tmp/res")
fails=0
echo "modules appended to themselves: $n, errors $nerr, differing from libbpf $nlb"
[ "$nerr" -eq 0 ] && [ "$nlb" -eq 0 ] || { grep -E '^(ERROR|LIBBPF)' "$tmp/res" | head; fails=$((fails+1)); }
# modules whose module+module output is not byte-equal to module alone must
# only differ by duplicated VAR/DATASEC (never merged): compare graphs
nv=0; bad=0
for b in $(sed -n 's/^VARDUP //p' "$tmp/res"); do
	m=$(grep "/$b.ko.btf$" "$tmp/mods.txt"); nv=$((nv+1))
	"$BTFC" dedup --no-dedup --base "$V" "$m" "$m" -o "$tmp/in"
	"$BTFC" dedup --base "$V" "$tmp/in" -o "$tmp/out"
	"$BTFC" dedup --base "$V" "$m" -o "$tmp/single"
	python3 ../shared/tools/btfcanon.py "$tmp/out" "$tmp/single" --base-a "$V" --base-b "$V" \
		--ignore-kinds VAR,DATASEC > /dev/null || { bad=$((bad+1)); echo "GRAPH $b"; }
done
echo "modules with duplicated VAR/DATASEC: $nv, graph differences: $bad"
[ $bad -eq 0 ] || fails=$((fails+1))
BTFC_LONG=1 BTFC=$BTFC O=$O RESULTS="$tmp/results" bash tests/t_dedup.sh
nf=$(grep -c '^fail' "$tmp/results"); np=$(grep -c '^pass' "$tmp/results")
echo "t_dedup.sh (long): $np passed, $nf failed"
[ "$nf" -eq 0 ] || fails=$((fails+1))
[ $fails -eq 0 ]
