#!/usr/bin/env bash
# Whole-corpus layout check (run by make check-kernel): btfc layout
# --compat 1.24 against pahole 1.24 -F btf on the Debian 6.12 corpus
# (pahole 1.31's text is checked against its recorded output by
# tests/t_layout131.sh).
#  1. vmlinux.btf: every struct and union, one run (pahole's no-TYPE order),
#     plain and with -E, --hex, -s.
#  2. vmlinux.btf: every named struct and union one per run (pahole -C NAME,
#     one process per type; btfc --fresh resets state per type).
#  3. 20 module BTFs with --base, and /sys/kernel/btf/vmlinux if readable.
#  4. -R: plans valid for every struct; where pahole -P shrinks a struct,
#     btfc's size is no larger (except tests/layout-known-diffs.txt).
#  5. --compile of 50 sampled types builds with gcc, sizes/offsets agree.
#  6. DWARF input: btfc layout -F dwarf = pahole 1.24 -F dwarf, 100 structs.
# LAYOUT_QUICK=1 samples 500 types in step 2.
set -u
cd "$(dirname "$0")/.."
BTFC=$(realpath "${BTFC:-build/btfc}")
# every comparison below is with the system's pahole 1.24
L() { "$BTFC" layout --compat 1.24 "$@"; }
C=$(scripts/corpus.sh) || exit 1
V=$C/vmlinux.btf
KNOWN=tests/layout-known-diffs.txt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
note() { echo "layout: $*"; }
bad() { echo "FAIL layout: $*"; fails=$((fails+1)); }
known() { grep -v '^#' "$KNOWN" 2>/dev/null | awk -v k="$1" '$1 == k && $2 == "text" { print $2 }'; }

for opt in "" -E --hex -s; do
	# shellcheck disable=SC2086
	pahole -F btf $opt "$V" > "$tmp/p" 2>/dev/null; L $opt "$V" > "$tmp/b" 2>&1
	if cmp -s "$tmp/p" "$tmp/b"; then note "vmlinux.btf all types '$opt': identical ($(wc -l < "$tmp/p") lines)"
	else bad "vmlinux.btf all types '$opt' differ"; diff "$tmp/p" "$tmp/b" | head -5; fi
done

bpftool btf dump file "$V" | sed -nE "s/^\[[0-9]+\] (STRUCT|UNION) '([^']+)'.*/\2/p" | sort -u > "$tmp/names"
[ "${LAYOUT_QUICK:-}" = 1 ] && shuf -n 500 --random-source=<(yes) "$tmp/names" > "$tmp/n2" && mv "$tmp/n2" "$tmp/names"
mkdir -p "$tmp/pp"
# shellcheck disable=SC2016
xargs -P "$(nproc)" -a "$tmp/names" -I{} sh -c 'pahole -F btf -C "$1" "$2" > "$3/pp/$1" 2>/dev/null' _ {} "$V" "$tmp"
while read -r n; do cat "$tmp/pp/$n"; done < "$tmp/names" > "$tmp/p"
L --fresh --skip_missing -C "file://$tmp/names" "$V" > "$tmp/b" 2>/dev/null
ntypes=$(wc -l < "$tmp/names")
ndiff=0
while read -r n; do
	L -C "$n" "$V" 2>/dev/null | cmp -s - "$tmp/pp/$n" && continue
	if [ -n "$(known "$n")" ]; then note "known difference: $n"; continue; fi
	ndiff=$((ndiff+1)); [ $ndiff -le 5 ] && echo "  differs: $n"
done < <(cmp -s "$tmp/p" "$tmp/b" || cat "$tmp/names")
note "vmlinux.btf one type per run: $((ntypes-ndiff)) of $ntypes identical"
[ $ndiff -eq 0 ] || bad "$ndiff types differ"

n=0; nd=0
for m in $(find "$C/btf" -name '*.ko.btf' | sort | awk 'NR % 57 == 1' | head -20); do
	n=$((n+1))
	pahole -F btf --btf_base "$V" "$m" > "$tmp/p" 2>/dev/null; L --base "$V" "$m" > "$tmp/b" 2>&1
	cmp -s "$tmp/p" "$tmp/b" || { nd=$((nd+1)); echo "  differs: $m"; }
done
note "modules with --base: $((n-nd)) of $n identical"
[ $nd -eq 0 ] || bad "modules differ"
if [ -r /sys/kernel/btf/vmlinux ]; then
	pahole -F btf /sys/kernel/btf/vmlinux > "$tmp/p" 2>/dev/null; L > "$tmp/b" 2>&1
	if cmp -s "$tmp/p" "$tmp/b"; then note "/sys/kernel/btf/vmlinux: identical"
	else bad "/sys/kernel/btf/vmlinux differs"; diff "$tmp/p" "$tmp/b" | head -5; fi
fi

L --check-reorg "$V" | tail -1 | grep -q ' 0 failed' && note "-R plans valid for every struct" || bad "-R plan check"
pahole -F btf -P "$V" > "$tmp/pP" 2>/dev/null
L -P "$V" > "$tmp/bP" 2>/dev/null
L -s "$V" > "$tmp/bs" 2>/dev/null
python3 - "$BTFC" "$V" "$tmp/pP" "$tmp/bP" "$KNOWN" "$tmp/bs" > "$tmp/rr" <<'PY'
import json, subprocess, sys
btfc, v, pp, bp, known, bs = sys.argv[1:]
first = lambda f: {l.split('\t')[0]: l.split('\t') for l in reversed(open(f).read().splitlines())}
p, b = first(pp), first(bp)
kn = {l.split()[0] for l in open(known) if l.strip() and not l.startswith('#') and l.split()[1] == 'reorg'}
worse, invalid = [], 0
for name, f in p.items():
    psize = int(f[2])
    bsize = int(b[name][2]) if name in b else int(first(bs)[name][1])
    if bsize <= psize or name in kn:
        continue
    o = json.loads(subprocess.run([btfc, 'layout', '--compat', '1.24', '--format', 'json', name, v], capture_output=True, text=True).stdout)
    o = o[0] if isinstance(o, list) else o	# --format json prints one array
    need = max([o['natural_alignment'], o['alignment']] + [m['alignment'] for m in o['members']])
    if psize % need:
        invalid += 1
        continue
    worse.append(f'{name} ({bsize} > {psize})')
print(f'{len(p)} structs pahole -R shrinks; btfc no larger on {len(p) - invalid - len(worse) - len(kn & set(p))}, '
      f'pahole size misaligned on {invalid}, known {len(kn & set(p))}, unexplained {len(worse)}')
for w in worse[:10]:
    print('  -R larger than pahole:', w)
sys.exit(1 if worse else 0)
PY
rc=$?; sed 's/^/layout: -R: /' "$tmp/rr"; [ $rc -eq 0 ] || bad "-R larger than pahole"

shuf -n 50 --random-source=<(yes) "$tmp/names" > "$tmp/s50"
# shellcheck disable=SC2046
python3 tests/tools/layout_compile_check.py "$BTFC" "$V" $(cat "$tmp/s50") > "$tmp/cc" 2>&1 \
	&& note "--compile of 50 sampled types builds, sizes and offsets agree" || { bad "--compile"; head -5 "$tmp/cc"; }

# DWARF input: what pahole 1.24 -F dwarf prints (DWARF's explicit
# alignments included, which BTF cannot carry), one process per type
shuf -n 100 --random-source=<(yes) "$tmp/names" > "$tmp/s100"
n=0; nd=0
while read -r t; do
	pahole -F dwarf -C "$t" "$C/vmlinux" > "$tmp/pd" 2>/dev/null
	L -F dwarf -C "$t" "$C/vmlinux" > "$tmp/bd" 2>/dev/null
	n=$((n+1))
	cmp -s "$tmp/pd" "$tmp/bd" || { nd=$((nd+1)); [ $nd -le 2 ] && diff "$tmp/pd" "$tmp/bd" | head -5; }
done < "$tmp/s100"
[ $nd -eq 0 ] && note "DWARF input: $n sampled types identical to pahole -F dwarf" ||
	bad "DWARF input: $nd of $n sampled types differ from pahole -F dwarf"
[ $fails -eq 0 ]
