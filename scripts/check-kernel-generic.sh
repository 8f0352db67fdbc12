#!/usr/bin/env bash
# Debian's generic 6.12 kernel (issue #41; make check-kernel runs it when
# the corpus is there): vmlinux and every one of its 4,230 modules, all in
# one -j2 batch, are graph-equal to the BTF Debian ships, and the batch's
# peak RSS stays within 600 MiB.  The corpus is looked for under
# $BTFC_CORPUS_GENERIC (default /var/tmp/btfc-corpus-generic, apart from
# the default corpus directory, so scripts looking there still find the
# cloud kernel) and never fetched here:
#   KVER=6.12.117+deb12-amd64 scripts/fetch-debian-kernel.sh /var/tmp/btfc-corpus-generic
# Without it: skipped, with that message.  A few minutes on 2 cores.
set -u
cd "$(dirname "$0")/.."
. scripts/modules-vs-shipped.sh
BTFC=${BTFC:-build/btfc}
MAX_MIB=${MAX_MIB:-600}
if ! C=$(BTFC_CORPUS=${BTFC_CORPUS_GENERIC:-/var/tmp/btfc-corpus-generic} BTFC_NO_FETCH=1 \
	scripts/corpus.sh 2>/dev/null); then
	echo "skip generic kernel: no corpus under ${BTFC_CORPUS_GENERIC:-/var/tmp/btfc-corpus-generic}" \
		"(KVER=6.12.117+deb12-amd64 scripts/fetch-debian-kernel.sh DIR)"
	exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/btfc-ck-generic.XXXXXX"); trap 'rm -rf "$W"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails+1)); }
echo "     corpus: $C"

"$BTFC" encode -j2 "$C/vmlinux" -o "$W/vmlinux.btf" || bad "vmlinux encode"
"$BTFC" diff -q "$W/vmlinux.btf" "$C/vmlinux.btf" >/dev/null && ok "vmlinux: graph-equal to Debian's .BTF" ||
	bad "vmlinux differs from Debian's .BTF"
cmp -s "$W/vmlinux.btf" "$C/vmlinux.btf" && echo "     vmlinux: byte-identical too"

mkdir -p "$W/batch"
n=$(wc -l < "$C/modules.txt")
/usr/bin/time -f "%e %M" -o "$W/time" "$BTFC" encode -j2 --base "$C/vmlinux.btf" \
	--list "$C/modules.txt" -o "$W/batch" || bad "batch encode"
read -r secs kib < <(tail -1 "$W/time")
echo "     batch of $n modules at -j2: $secs s, peak RSS $((kib / 1024)) MiB"
[ $((kib / 1024)) -le "$MAX_MIB" ] && ok "batch peak RSS within $MAX_MIB MiB" ||
	bad "batch peak RSS $((kib / 1024)) MiB over $MAX_MIB MiB"
compare_modules "$W/batch" "$C"
[ $ne = 0 ] && [ $eq = "$n" ] && ok "all $n modules graph-equal to Debian's" || bad "$ne of $n modules differ"
echo "check-kernel-generic: $fails failures"
[ $fails = 0 ]
