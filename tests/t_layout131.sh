#!/usr/bin/env bash
# btfc layout (default --compat 1.31) against pahole 1.31's recorded output
# on the Debian 6.12 vmlinux.btf (../shared/reference/pahole-1.31/*/layout,
# whose README gives each command): every struct and union plain and with
# --hex, --sizes, --sizes --with_embedded_flexible_array, -E -C for the
# sample names, -R -C for the first 30.  Whole files are compared; where
# they differ, tests/tools/layout_blocks.py splits them per type and every
# differing type must be in tests/layout-known-diffs-1.31.txt.
. "$(dirname "$0")/lib.sh"
KNOWN=$ROOT/tests/layout-known-diffs-1.31.txt
BLOCKS="python3 $ROOT/tests/tools/layout_blocks.py --known $KNOWN"
REFS=${BTFC_REFERENCE:-$SHARED/reference}
C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) || { skip "layout 1.31: Debian corpus not present"; exit 0; }
R=$REFS/pahole-1.31/debian-$(basename "$C")/layout
[ -f "$R/all.txt.xz" ] || { skip "layout 1.31: no pahole 1.31 reference ($R)"; exit 0; }
V=$C/vmlinux.btf

# compare NAME CHECK REFERENCE OURS [--lines]: identical, or only known differences
compare() {
	local name=$1 check=$2 ref=$3 ours=$4; shift 4
	if cmp -s "$ref" "$ours"; then pass "$name: identical"; return; fi
	if $BLOCKS --check "$check" "$@" --list "$ref" "$ours" > "$WORK/blocks.out" 2>&1; then
		pass "$name: $(head -1 "$WORK/blocks.out")"
	else
		fail "$name"; sed 's/^/      /' "$WORK/blocks.out" | head -12
	fi
}

xz -dc "$R/all.txt.xz" > "$WORK/ref-all.txt"
"$BTFC" layout "$V" > "$WORK/all.txt" 2>&1
compare "layout 1.31: every struct and union" text "$WORK/ref-all.txt" "$WORK/all.txt"
xz -dc "$R/all-hex.txt.xz" > "$WORK/ref-hex.txt"
"$BTFC" layout --hex "$V" > "$WORK/hex.txt" 2>&1
compare "layout 1.31: --hex" text "$WORK/ref-hex.txt" "$WORK/hex.txt"
"$BTFC" layout --sizes "$V" > "$WORK/sizes.txt" 2>&1
compare "layout 1.31: --sizes" sizes "$R/sizes.txt" "$WORK/sizes.txt" --lines
"$BTFC" layout --sizes --with_embedded_flexible_array "$V" > "$WORK/sizes-flex.txt" 2>&1
compare "layout 1.31: --sizes --with_embedded_flexible_array" sizes "$R/sizes-flex.txt" "$WORK/sizes-flex.txt" --lines

# -E -C NAME, one pahole run per name: --fresh gives each name a fresh state
sed -n 's/^=== //p' "$R/expand-sample.txt" > "$WORK/expand.names"
"$BTFC" layout -E --fresh -C "file://$WORK/expand.names" "$V" > "$WORK/expand.txt" 2>&1
grep -v '^=== ' "$R/expand-sample.txt" > "$WORK/ref-expand.txt"
if cmp -s "$WORK/ref-expand.txt" "$WORK/expand.txt"; then
	pass "layout 1.31: -E -C, $(wc -l < "$WORK/expand.names") sample types: identical"
else	# per name, as the reference was made
	while read -r n; do echo "=== $n"; "$BTFC" layout -E -C "$n" "$V" 2>&1; done < "$WORK/expand.names" > "$WORK/expand.txt"
	compare "layout 1.31: -E -C sample types" text "$R/expand-sample.txt" "$WORK/expand.txt"
fi

# -R -C NAME for the first 30 names, made the way the reference was
sed -n 's/^=== //p' "$R/reorg-sample.txt" > "$WORK/reorg.names"
while read -r n; do echo "=== $n"; "$BTFC" layout -R -C "$n" "$V" 2>&1; done < "$WORK/reorg.names" > "$WORK/reorg.txt"
compare "layout 1.31: -R -C sample types" reorg "$R/reorg-sample.txt" "$WORK/reorg.txt"

# the claimed 1.31 default and the explicit option agree
"$BTFC" layout --compat 1.31 -C task_struct "$V" > "$WORK/t1.txt" 2>&1
"$BTFC" layout -C task_struct "$V" > "$WORK/t2.txt" 2>&1
check "layout 1.31: --compat 1.31 is the default" cmp "$WORK/t1.txt" "$WORK/t2.txt"
check_fails "layout: --compat of another version is refused" "takes 1.24, 1.30 or 1.31" "$BTFC" layout --compat 1.27 "$V"
