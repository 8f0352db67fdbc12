#!/usr/bin/env bash
# Encoder acceptance on the Debian 6.12 corpus (issues 5 and 6), run by
# make check-kernel.  Prints one line per check and a summary; exit 1 on any
# failure.  Takes a few minutes on 2 cores.
set -u
cd "$(dirname "$0")/.."
. scripts/modules-vs-shipped.sh
BTFC=${BTFC:-build/btfc}; O=${O:-build}
C=$(scripts/corpus.sh) || exit 1
W=$(mktemp -d "${TMPDIR:-/tmp}/btfc-ck-encode.XXXXXX"); trap 'rm -rf "$W"' EXIT
make -s "O=$O" "$O/btf-load" >/dev/null
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails+1)); }

# vmlinux: any thread count gives the same bytes, those of Debian's .BTF
# (pahole 1.24's: its string and type order, docs/producers.md).
for j in 1 2 4 8; do "$BTFC" encode -j$j "$C/vmlinux" -o "$W/v$j.btf" || bad "encode -j$j"; done
same=1; for j in 2 4 8; do cmp -s "$W/v1.btf" "$W/v$j.btf" || same=0; done
[ $same = 1 ] && ok "vmlinux: -j1/-j2/-j4/-j8 byte-identical" || bad "vmlinux: outputs differ across -j"
"$BTFC" diff -q "$W/v1.btf" "$C/vmlinux.btf" && ok "vmlinux: graph-equal to Debian's .BTF" ||
	bad "vmlinux differs from Debian's .BTF"
cmp -s "$W/v1.btf" "$C/vmlinux.btf" && ok "vmlinux: byte-identical to Debian's .BTF" ||
	bad "vmlinux: bytes differ from Debian's .BTF"

# vmlinux in place, on a copy: .BTF as detached, every other section unchanged.
cp "$C/vmlinux" "$W/vmlinux"
"$BTFC" encode -j2 "$W/vmlinux" || bad "vmlinux in place"
objcopy --dump-section .BTF="$W/inplace.btf" "$W/vmlinux" "$W/junk" 2>/dev/null
cmp -s "$W/inplace.btf" "$W/v1.btf" && ok "vmlinux in place: .BTF equals detached output" ||
	bad "vmlinux in place: .BTF differs"
python3 - "$C/vmlinux" "$W/vmlinux" <<'PY' && ok "vmlinux in place: every other section byte-identical" || bad "vmlinux in place: sections changed"
import sys, subprocess
def secs(p):
    out = {}
    for l in subprocess.run(["readelf", "-SW", p], capture_output=True, text=True).stdout.splitlines():
        if "]" not in l or l.strip().startswith("[Nr]"): continue
        f = l.split("]", 1)[1].split()
        if len(f) < 6 or f[1] in ("NOBITS", "NULL"): continue
        out.setdefault(f[0], (int(f[3], 16), int(f[4], 16)))
    return out
a, b = secs(sys.argv[1]), secs(sys.argv[2])
fa, fb = open(sys.argv[1], "rb"), open(sys.argv[2], "rb")
bad = 0
for name, (off, size) in a.items():
    if name in (".BTF", ".shstrtab"): continue
    if name not in b: print("missing", name); bad += 1; continue
    fa.seek(off); fb.seek(b[name][0])
    if fa.read(size) != fb.read(b[name][1]): print("differs", name); bad += 1
sys.exit(1 if bad else 0)
PY

# All modules, batch mode, against Debian's split BTF.
mkdir -p "$W/batch" "$W/one"
start=$(date +%s.%N)
"$BTFC" encode -j2 --base "$C/vmlinux.btf" --list "$C/modules.txt" -o "$W/batch" || bad "batch encode"
echo "     batch of $(wc -l < "$C/modules.txt") modules: $(echo "$(date +%s.%N) - $start" | bc) s"
compare_modules "$W/batch" "$C"
[ $ne = 0 ] && ok "all modules graph-equal to Debian's" || bad "$ne modules differ"
[ "$same" = "$(wc -l < "$C/modules.txt")" ] && ok "all modules byte-identical to Debian's" ||
	bad "$((eq + ne - same)) modules' bytes differ from Debian's"

# One process per module gives the same bytes as the batch: with the base
# cache (a fresh one: the first module builds it), and without it.
BTFC_CACHE_DIR=$W/cache xargs -P2 -a "$C/modules.txt" -I{} \
	sh -c '"$0" encode -j1 --base "$1" "{}" -o "$2/$(basename "{}").btf"' \
	"$BTFC" "$C/vmlinux.btf" "$W/one" || bad "per-module encode"
diffs=0; while read -r m; do cmp -s "$W/one/$(basename "$m").btf" "$W/batch/$(basename "$m").btf" || diffs=$((diffs+1)); done < "$C/modules.txt"
[ $diffs = 0 ] && ok "batch -j2 byte-identical to one-at-a-time (base cache) for every module" ||
	bad "$diffs modules differ between batch and single"
rm -rf "$W/one"; mkdir "$W/one"
BTFC_CACHE_DIR= xargs -P2 -a "$C/modules.txt" -I{} \
	sh -c '"$0" encode -j1 --base "$1" "{}" -o "$2/$(basename "{}").btf"' \
	"$BTFC" "$C/vmlinux.btf" "$W/one" || bad "per-module encode without the cache"
diffs=0; while read -r m; do cmp -s "$W/one/$(basename "$m").btf" "$W/batch/$(basename "$m").btf" || diffs=$((diffs+1)); done < "$C/modules.txt"
[ $diffs = 0 ] && ok "batch -j2 byte-identical to one-at-a-time (no cache) for every module" ||
	bad "$diffs modules differ between batch and single without the cache"

# 50 modules: base + split as one blob passes BPF_BTF_LOAD.
if "$O/btf-load" --probe >/dev/null 2>&1; then
	n=0; k=0
	for m in $(awk 'NR % 22 == 3' "$C/modules.txt" | head -50); do
		k=$((k+1)); "$O/btf-load" -B "$C/vmlinux.btf" "$W/batch/$(basename "$m").btf" >/dev/null && n=$((n+1))
	done
	[ $n = $k ] && ok "BPF_BTF_LOAD accepts vmlinux + split for $n modules" || bad "BPF_BTF_LOAD: $n of $k"
else
	echo "skip BPF_BTF_LOAD not permitted"
fi

# In place on module copies: .BTF equals detached, other sections unchanged, ld -r links.
n=0; k=0
for m in $(awk 'NR % 57 == 11' "$C/modules.txt" | head -20); do
	k=$((k+1)); cp "$m" "$W/m.ko"
	"$BTFC" encode --base "$C/vmlinux.btf" "$W/m.ko" &&
	objcopy --dump-section .BTF="$W/m.btf" "$W/m.ko" "$W/junk" 2>/dev/null &&
	cmp -s "$W/m.btf" "$W/batch/$(basename "$m").btf" &&
	ld -r "$W/m.ko" -o "$W/m2.o" && n=$((n+1))
done
[ $n = $k ] && ok "in place: $n modules (.BTF as detached, ld -r links)" || bad "in place modules: $n of $k"

# Distilled base: 20 modules relocate back to the same graph.  Relocation
# copies the base types the module needs into it; deduplicating that
# against vmlinux is a second dedup pass, and libbpf's dedup is not
# idempotent (a second pass can merge types the first kept apart, e.g.
# nvmet-rdma's rdma_counter), so both sides get the same second pass.
n=0; k=0; nomatch=0
for m in $(awk 'NR % 57 == 13' "$C/modules.txt" | head -20); do
	k=$((k+1)); cp "$m" "$W/d.ko"
	"$BTFC" encode --distilled-base --base "$C/vmlinux.btf" "$W/d.ko" &&
	"$BTFC" relocate "$W/d.ko" --base "$C/vmlinux.btf" -o "$W/d.rel" >/dev/null &&
	"$BTFC" dedup "$W/d.rel" --base "$C/vmlinux.btf" -o "$W/d.reld" &&
	"$BTFC" dedup "$W/batch/$(basename "$m").btf" --base "$C/vmlinux.btf" -o "$W/d.plaind" &&
	"$BTFC" diff -q "$W/d.reld" "$W/d.plaind" --base "$C/vmlinux.btf" >/dev/null &&
	n=$((n+1))
	if [ -r /sys/kernel/btf/vmlinux ]; then
		"$BTFC" relocate "$W/d.ko" --base /sys/kernel/btf/vmlinux > "$W/rel.out" 2>&1; rc=$?
		[ $rc = 1 ] && grep -q '^unmatched' "$W/rel.out" && nomatch=$((nomatch+1))
		[ $rc -ge 2 ] && bad "relocate onto the running kernel failed: $(tail -1 "$W/rel.out")"
	fi
done
[ $n = $k ] && ok "distilled base: $n modules relocate to the same graph" || bad "distilled: $n of $k"
echo "     onto the running kernel's BTF: $nomatch of $k modules report unmatched types"
echo "check-kernel-encode: $fails failures"
[ $fails = 0 ]
