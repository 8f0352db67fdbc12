#!/usr/bin/env bash
# ThreadSanitizer over the parallel paths on real inputs (make check-kernel
# runs scripts/check-kernel-*.sh): the encoder's per-unit workers on a big
# module, batch mode (modules in parallel on one base), and parallel dedup
# of vmlinux's BTF (and unit tests of the speculative phases 2-4).  Builds
# build/san-thread/btfc and unit-tests (make SAN=thread).
# Any TSan report fails the check.
set -u
cd "$(dirname "$0")/.."
C=$(scripts/corpus.sh) || exit 1
make -s SAN=thread -j"$(nproc)" build/san-thread/btfc || { echo "FAIL tsan: build"; exit 1; }
T=build/san-thread/btfc
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1"
fails=0
tsan() { # tsan NAME CMD...
	local name=$1 rc t0=$(date +%s); shift
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'WARNING: ThreadSanitizer' "$W/err"; then
		echo "ok   tsan: $name ($(( $(date +%s) - t0 )) s)"
	else
		echo "FAIL tsan: $name (rc=$rc)"; grep -A12 'WARNING: ThreadSanitizer' "$W/err" | head -30
		tail -3 "$W/err"; fails=$((fails + 1))
	fi
}
# The biggest modules by size: many units, so -j4 runs units in parallel.
big=$(xargs -a "$C/modules.txt" ls -S 2>/dev/null | head -3)
for m in $big; do
	tsan "encode -j4 $(basename "$m")" "$T" encode -j4 --base "$C/vmlinux.btf" "$m" -o "$W/m.btf"
	if build/btfc encode -j1 --base "$C/vmlinux.btf" "$m" -o "$W/m1.btf" &&
	   cmp -s "$W/m.btf" "$W/m1.btf"; then
		echo "ok   tsan build -j4: same bytes as -j1"
	else
		echo "FAIL tsan build -j4: bytes differ from -j1"; fails=$((fails + 1))
	fi
done
awk 'NR % 29 == 1' "$C/modules.txt" | head -40 > "$W/list"
mkdir -p "$W/batch"
tsan "batch encode of $(wc -l < "$W/list") modules -j4" "$T" encode -j4 --base "$C/vmlinux.btf" --list "$W/list" -o "$W/batch"
tsan "dedup -j4 of vmlinux BTF" "$T" dedup -j4 "$C/vmlinux.btf" -o "$W/v.btf"
tsan "dedup --compat head -j4 of vmlinux BTF" "$T" dedup -j4 --compat head "$C/vmlinux.btf" -o "$W/vh.btf"
# vmlinux's BTF twice, appended: canonical strings, checked beside phases 2-4
if build/btfc dedup --no-dedup "$C/vmlinux.btf" "$C/vmlinux.btf" -o "$W/x2.btf"; then
	tsan "dedup -j4 of vmlinux BTF x2 (strings checked beside phases 2-4)" "$T" dedup -j4 "$W/x2.btf" -o "$W/x2d.btf"
else
	echo "FAIL tsan: no vmlinux BTF x2"; fails=$((fails + 1))
fi
# A standalone run whose first chunk of types looks canonical and whose
# strings are not: phases 2-4 speculate beside the check, then run again
# after the string phase (the real inputs show it in their first chunk)
make -s SAN=thread -j"$(nproc)" build/san-thread/unit-tests || { echo "FAIL tsan: build"; exit 1; }
for t in dedup_strings_checked_beside_phases dedup_never_writes_its_input; do
	tsan "unit test $t" build/san-thread/unit-tests "$t"
done
if [ "${TSAN_VMLINUX:-0}" = 1 ]; then
	tsan "encode -j4 vmlinux" "$T" encode -j4 "$C/vmlinux" -o "$W/vmlinux.btf"
fi
echo "check-kernel-tsan: $fails failing"
[ $fails -eq 0 ]
