#!/usr/bin/env bash
# The code's structure holds (ARCHITECTURE.md, Invariants): every folder
# includes only the folders it may use; struct btf's fields stay inside
# src/btf/; the library (src/ but cli/) has no writable data beyond
# tests/writable-data.txt; libbtfc.a has no cli/ in it; no file in src/ is over 1,500 lines and no
# function over 150 without a comment saying why it is one piece.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# may-use table of the code map (cli/ may use everything)
declare -A may=(
	[base]="base" [elf]="base elf" [dwarf]="base dwarf" [btf]="base btf"
	[encode]="base elf dwarf btf encode" [layout]="base btf layout"
)
bad=0
for dir in "${!may[@]}"; do
	while IFS=: read -r file inc; do
		top=${inc%%/*}
		case " ${may[$dir]} " in *" $top "*) ;; *)
			echo "  $file includes $inc (src/$dir may use: ${may[$dir]})"; bad=$((bad+1)) ;;
		esac
	done < <(grep -rHoE '^#include "[a-z]+/[^"]+"' "src/$dir" | sed -E 's/:#include "/:/; s/"$//')
done
[ $bad = 0 ] && pass "include layering: every folder includes only what it may use" ||
	fail "include layering: $bad includes cross the code map's lines"

# struct btf is opaque outside src/btf/ (its fields are btf_internal.h's)
leak=$(grep -rl '#include "btf/btf_internal.h"' src | grep -v '^src/btf/')
[ -z "$leak" ] && pass "struct btf is opaque outside src/btf/" ||
	{ fail "btf_internal.h included outside src/btf/"; echo "$leak" | sed 's/^/    /'; }

# writable data: each library file compiled alone (no LTO: its statics stay visible)
: > "$WORK/writable"
for f in $(find src -name '*.c' ! -path 'src/cli/*' | sort); do
	if ! ${CC:-cc} -std=gnu11 -O0 -fno-lto -D_GNU_SOURCE -Isrc -Iinclude -pthread \
		$(pkg-config --cflags libelf zlib libzstd 2>/dev/null) -c "$f" -o "$WORK/o.o" 2> "$WORK/cc.err"; then
		echo "  cannot compile $f"; head -3 "$WORK/cc.err"; echo "$f <compile error>" >> "$WORK/writable"; continue
	fi
	objdump -t "$WORK/o.o" | awk -v f="$f" '$3 == "O" && $4 ~ /^\.(data|bss|tdata|tbss)/ && $4 !~ /rel\.ro/ { print f, $NF }
		$2 == "O" && $3 ~ /^\.(data|bss|tdata|tbss)/ && $3 !~ /rel\.ro/ { print f, $NF }
		$0 ~ / \.tbss\t/ && $NF != ".tbss" { print f, $NF }' >> "$WORK/writable"
done
sort -u "$WORK/writable" -o "$WORK/writable"
grep -v '^#' tests/writable-data.txt | awk '{ print $1, $2 }' | sort -u > "$WORK/allowed"
extra=$(comm -23 "$WORK/writable" "$WORK/allowed")
gone=$(comm -13 "$WORK/writable" "$WORK/allowed")
[ -z "$extra" ] && pass "library writable data: only the $(wc -l < "$WORK/allowed") allowed (tests/writable-data.txt)" ||
	{ fail "library writable data not in tests/writable-data.txt"; echo "$extra" | sed 's/^/    /'; }
[ -z "$gone" ] && pass "tests/writable-data.txt lists nothing that is gone" ||
	{ fail "tests/writable-data.txt lists what is gone"; echo "$gone" | sed 's/^/    /'; }

# size: files and functions stay small enough to change
big=$(find src -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1500 { print $2 " (" $1 " lines)" }')
[ -z "$big" ] && pass "no file in src/ over 1,500 lines" ||
	{ fail "files in src/ over 1,500 lines"; echo "$big" | sed 's/^/    /'; }
# A function's body runs from a "{" to a "}" in column 0; the comment
# block right above its signature must say "One piece" past 150 lines.
long=$(for f in $(find src -name '*.c' | sort); do awk -v f="$f" '
	/^\/\*/ { cmt = $0; incmt = ($0 !~ /\*\//); next }
	incmt { cmt = cmt $0; if ($0 ~ /\*\//) incmt = 0; next }
	/^[a-zA-Z].*\(/ && !/;$/ { name = $0; if (!prevsig) why = cmt; cmt = ""; prevsig = 1; next }
	{ prevsig = 0 }
	/^\{/ { start = NR; next }
	/^\}/ && start { if (NR - start - 1 > 150 && why !~ /One piece/) print f ":" start ": " NR - start - 1 " lines: " name; start = 0; next }
	/^[^\t]/ || /^$/ { cmt = "" }' "$f"; done)
[ -z "$long" ] && pass "every function over 150 lines says why it is one piece" ||
	{ fail "functions over 150 lines without a \"One piece\" comment"; echo "$long" | sed 's/^/    /'; }

# comments cite documents in the repository, and the sections they cite exist
out=$(grep -rnE '[^/]doc sections? [0-9]|[( ]doc [0-9]|DESIGN\.md|shared/docs' src tests/unit scripts 2>/dev/null)
[ -z "$out" ] && pass "comments cite no document outside the repository" ||
	{ fail "comments cite documents outside the repository"; echo "$out" | sed 's/^/    /'; }
missing=""
for sec in $(grep -rhoE 'docs/btf\.md [0-9]+(\.[0-9]+)*' src tests scripts | awk '{ print $2 }' | sort -u); do
	grep -qE "^#+ $sec[. ]" docs/btf.md || missing="$missing $sec"
done
[ -z "$missing" ] && pass "every cited docs/btf.md section exists" ||
	fail "docs/btf.md lacks cited sections:$missing"

# the library holds no cli/ code and calls none (docs/api.md)
O=${O:-build}
if [ -f "$O/libbtfc.a" ] && [ -f "$O/cli.a" ]; then
	incli=$(ar t "$O/libbtfc.a" | grep -xF -f <(ar t "$O/cli.a"))
	calls=$(comm -12 <(nm -u "$O/libbtfc.a" | awk '{ print $2 }' | sort -u) \
		<(nm --defined-only "$O/cli.a" | awk '$2 ~ /[TDBR]/ { print $3 }' | sort -u))
	[ -z "$incli$calls" ] && pass "libbtfc.a holds no cli/ object and calls nothing in cli.a" ||
		{ fail "libbtfc.a and cli/ mixed"; echo "$incli" "$calls" | sed 's/^/    /'; }
else
	skip "libbtfc.a check: no $O/libbtfc.a and $O/cli.a"
fi

rm -rf "$WORK"
