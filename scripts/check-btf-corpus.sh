#!/usr/bin/env bash
# All 1,138 corpus modules (and vmlinux.btf): round trip byte identity,
# `btfc dump` == `bpftool btf dump ... format raw`, verify in both modes.
# Prints one line per failure and a total; exits 1 if anything failed.
# Usage: BTFC=build/btfc scripts/check-btf-corpus.sh [-jN]
set -u
cd "$(dirname "$0")/.."
: "${BTFC:=build/btfc}"
jobs=${1:-}; jobs=${jobs#-j}; jobs=${jobs:-$(nproc)}
C=$(scripts/corpus.sh) || exit 2
B=$C/vmlinux.btf
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export BTFC B W

one() {
	local f=$1 base=${2:-} bo=() bp=() t=$W/$$.$RANDOM bad=0
	[ -n "$base" ] && { bo=(--base "$base"); bp=(-B "$base"); }
	"$BTFC" convert "$f" "${bo[@]}" -o "$t.rt" && cmp -s "$t.rt" "$f" || { echo "FAIL roundtrip $f"; bad=1; }
	"$BTFC" dump "$f" "${bo[@]}" > "$t.a" 2>&1
	bpftool "${bp[@]}" btf dump file "$f" format raw > "$t.b" 2>&1
	cmp -s "$t.a" "$t.b" || { echo "FAIL dump-raw $f"; bad=1; }
	"$BTFC" verify "$f" "${bo[@]}" > /dev/null || { echo "FAIL verify $f"; bad=1; }
	"$BTFC" verify --strict "$f" "${bo[@]}" > /dev/null || { echo "FAIL verify-strict $f"; bad=1; }
	rm -f "$t".*
	[ $bad = 0 ] && echo "ok $f"
}
export -f one

{ one "$B"; find "$C/btf" -name '*.ko.btf' | sort | xargs -P "$jobs" -I{} bash -c 'one "$1" "$B"' _ {}; } > "$W/log"
grep -v '^ok ' "$W/log"
ok=$(grep -c '^ok ' "$W/log"); total=$(( $(find "$C/btf" -name '*.ko.btf' | wc -l) + 1 ))
echo "btf corpus: $ok/$total inputs pass (round trip, dump raw == bpftool, verify, verify --strict)"
[ "$ok" = "$total" ]
