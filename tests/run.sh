#!/usr/bin/env bash
# The test suite: unit tests, then every tests/t_*.sh.  Ends with one line
# "N passed, N failed, N skipped"; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
: "${BTFC:=build/btfc}" "${UNIT:=build/unit-tests}"
export BTFC
RESULTS=$(mktemp); export RESULTS
# The base cache of one-module encodes: the suite's own, not the user's.
BTFC_CACHE_DIR=$(mktemp -d); export BTFC_CACHE_DIR
trap 'rm -f "$RESULTS"; rm -rf "$BTFC_CACHE_DIR"' EXIT
suite_start=$(date +%s)
unit_out=$("$UNIT" 2>&1); echo "$unit_out" | grep -v '^unit:' || true
line=$(echo "$unit_out" | grep '^unit:' | tail -1)
up=$(echo "$line" | sed -nE 's/^unit: ([0-9]+) passed.*/\1/p'); up=${up:-0}
uf=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); uf=${uf:-1}
echo "unit tests: $up passed, $uf failed"
for t in tests/t_*.sh; do
	[ -n "${ONLY:-}" ] && [[ "$t" != *"$ONLY"* ]] && continue
	echo "== $t"
	start=$(date +%s)
	bash "$t" || echo "fail $t exited non-zero" >> "$RESULTS"
	echo "   ($(( $(date +%s) - start ))s)"
done
echo "suite time: $(( $(date +%s) - suite_start ))s"
sp=$(grep -c '^pass' "$RESULTS"); sf=$(grep -c '^fail' "$RESULTS"); ss=$(grep -c '^skip' "$RESULTS")
echo "$((up + sp)) passed, $((uf + sf)) failed, $ss skipped"
[ $((uf + sf)) -eq 0 ]
