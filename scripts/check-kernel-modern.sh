#!/usr/bin/env bash
# pahole 1.30 and 1.31 on whole kernels (docs/pahole-policies.md), run by
# make check-kernel:
#  - Debian 6.12 with the kernel's flags for pahole >= 1.26, claim 1.31,
#    against pahole 1.31's own output (../shared/reference/pahole-1.31):
#    vmlinux, vmlinux with global_var, every module split on its vmlinux;
#  - Debian 13's build (SUITE=trixie fetch), claim 1.30, against the BTF
#    pahole 1.30 made: vmlinux and every module.
# A part whose inputs are absent says so and is skipped.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}
REF=../shared/reference/pahole-1.31/debian-6.12.117+deb12-cloud-amd64
F="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"
W=$(mktemp -d "${TMPDIR:-/tmp}/btfc-ck-modern.XXXXXX"); trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin" && ln -s "$(cd "$(dirname "$BTFC")" && pwd)/$(basename "$BTFC")" "$W/bin/pahole"
P=$W/bin/pahole
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails+1)); }

# modules_equal BASE LIST REFDIR OUTDIR: how many batch outputs equal their reference
modules_equal() {
	local eq=0 ne=0 m rel
	while read -r m; do
		rel=${m#*/lib/modules/*/}
		if "$BTFC" diff -q "$4/$(basename "$m").btf" "$3/$rel.btf" --base "$1" >/dev/null 2>&1; then
			eq=$((eq+1))
		else ne=$((ne+1)); echo "     differs: $rel"; fi
	done < "$2"
	echo "     modules: $eq EQUAL, $ne DIFFERENT"
	[ $ne = 0 ]
}

if C=$(BTFC_NO_FETCH=1 scripts/corpus.sh 2>/dev/null) && [ -f "$REF/vmlinux.btf.xz" ]; then
	xz -dc "$REF/vmlinux.btf.xz" > "$W/ref.btf"
	xz -dc "$REF/vmlinux-global_var.btf.xz" > "$W/ref-gv.btf"
	mkdir -p "$W/ref" && tar -C "$W/ref" -xJf "$REF/modules.tar.xz"
	"$P" -J -j2 $F --lang_exclude=rust --btf_encode_detached="$W/v.btf" "$C/vmlinux" &&
	"$BTFC" diff -q "$W/v.btf" "$W/ref.btf" && ok "1.31: vmlinux graph-equal to pahole 1.31's" ||
		bad "1.31: vmlinux differs from pahole 1.31's"
	"$P" -J -j2 $F --btf_features=global_var --lang_exclude=rust --btf_encode_detached="$W/vg.btf" \
		"$C/vmlinux" && "$BTFC" diff -q --ignore-kinds DATASEC "$W/vg.btf" "$W/ref-gv.btf" &&
		"$BTFC" verify "$W/vg.btf" >/dev/null &&
		ok "1.31: vmlinux with global_var graph-equal to pahole 1.31's but for its doubled DATASEC entries, and valid" ||
		bad "1.31: vmlinux with global_var differs"
	mkdir -p "$W/m31"
	"$BTFC" encode --compat 1.31 -j2 --base "$W/ref.btf" --list "$C/modules.txt" -o "$W/m31" ||
		bad "1.31: batch encode"
	modules_equal "$W/ref.btf" "$C/modules.txt" "$W/ref" "$W/m31" &&
		ok "1.31: every module graph-equal to pahole 1.31's" || bad "1.31: modules differ"
	# the pahole front end, one process per module, gives the batch's bytes
	n=0; for m in $(awk 'NR % 113 == 1' "$C/modules.txt"); do
		"$P" -J $F --lang_exclude=rust --btf_base "$W/ref.btf" --btf_encode_detached="$W/one.btf" "$m" &&
		cmp -s "$W/one.btf" "$W/m31/$(basename "$m").btf" || n=$((n+1))
	done
	[ $n = 0 ] && ok "1.31: pahole -J per module == btfc encode --compat 1.31 batch (sampled)" ||
		bad "1.31: $n sampled modules differ between the pahole line and the batch"
	rm -rf "$W/m31" "$W/ref"
else
	echo "skip 1.31: the Debian 6.12 corpus or ../shared/reference/pahole-1.31 is absent"
fi

T=${BTFC_CORPUS_TRIXIE:-/var/tmp/btfc-corpus-trixie}
T=$(ls -d "$T"/*/ 2>/dev/null | while read -r d; do [ -f "$d/.complete" ] && echo "${d%/}"; done | head -1)
if [ -n "$T" ]; then
	BTFC_PAHOLE_VERSION=1.30 "$P" -J -j2 $F --lang_exclude=rust --btf_encode_detached="$W/t.btf" \
		"$T/vmlinux" && "$BTFC" diff -q "$W/t.btf" "$T/vmlinux.btf" &&
		ok "1.30: Debian 13 vmlinux graph-equal to its shipped BTF" || bad "1.30: Debian 13 vmlinux differs"
	mkdir -p "$W/m30"
	"$BTFC" encode --compat 1.30 -j2 --base "$T/vmlinux.btf" --list "$T/modules.txt" -o "$W/m30" ||
		bad "1.30: batch encode"
	modules_equal "$T/vmlinux.btf" "$T/modules.txt" "$T/btf" "$W/m30" &&
		ok "1.30: every Debian 13 module graph-equal to its shipped BTF" || bad "1.30: modules differ"
else
	echo "skip 1.30: the Debian 13 corpus is absent (SUITE=trixie scripts/fetch-debian-kernel.sh)"
fi
[ $fails = 0 ]
