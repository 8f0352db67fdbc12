#!/usr/bin/env bash
# Whole-kernel checks on the Debian 6.12 corpus (make check-kernel).
#  1. DWARF: vmlinux and every module decode end to end with 0 errors;
#     20 sampled modules agree with llvm-dwarfdump DIE by DIE (relocations).
# Further checks (BTF corpus, modules encoding) are added by their scripts.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}
C=$(scripts/corpus.sh) || exit 1
fails=0
echo "corpus: $C"

out=$("$BTFC" dwarf --stats "$C/vmlinux") || { echo "FAIL vmlinux DWARF"; fails=$((fails+1)); }
echo "vmlinux: $(echo "$out" | grep -E '^(units|dies|errors):' | tr '\n' ' ')"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2016
xargs -P "$(nproc)" -a "$C/modules.txt" -I{} sh -c '
	if ! "$0" dwarf --stats -j1 "{}" > /dev/null 2> "$1/$(basename {}).err"; then echo "{}"; fi' \
	"$BTFC" "$tmp" > "$tmp/failed"
nmod=$(wc -l < "$C/modules.txt"); nbad=$(wc -l < "$tmp/failed")
echo "modules: $nmod read, $nbad with errors"
if [ "$nbad" -ne 0 ]; then head -5 "$tmp/failed"; cat "$tmp"/*.err | head -5; fails=$((fails+1)); fi

n=0; bad=0
for m in $(awk 'NR % 57 == 1' "$C/modules.txt" | head -20); do
	n=$((n+1))
	if ! r=$(python3 tests/tools/dwarfcmp.py "$BTFC" "$m"); then
		bad=$((bad+1)); echo "MISMATCH $m"; echo "$r" | tail -5
	fi
done
echo "llvm-dwarfdump agreement: $((n-bad)) of $n modules"
[ $bad -eq 0 ] || fails=$((fails+1))

for extra in scripts/check-kernel-*.sh; do
	[ -f "$extra" ] || continue
	echo "== $extra"; bash "$extra" || fails=$((fails+1))
done
echo "check-kernel: $fails failing checks"
[ $fails -eq 0 ]
