#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch a real Linux kernel build with DWARF and the BTF that its distribution
# made for it, for end-to-end tests and benchmarks.
#
# Debian's linux-image-*-cloud-amd64-dbg package holds the unstripped vmlinux
# (DWARF 5 from gcc, plus the .BTF section that Debian's build made with
# pahole 1.24) and every module's .ko with DWARF, its .rela.debug_* sections
# and its split .BTF.  Output layout, under DEST/KVER/:
#   vmlinux            the debug vmlinux (symlink)
#   vmlinux.btf        its shipped .BTF section (raw base BTF)
#   modules.txt        one debug .ko path per line, sorted
#   btf/<rel>.btf      each module's shipped .BTF (raw split BTF on vmlinux.btf)
# Reference flags that reproduce the shipped BTF with pahole 1.24 (single thread):
#   vmlinux: -J --btf_gen_floats --lang_exclude=rust
#   modules: the same plus --btf_base vmlinux.btf
#
# SUITE=trixie fetches Debian 13's build of the same kernel instead
# (KVER 6.12.117+deb13-cloud-amd64, gcc 14): its shipped .BTF was made by
# pahole 1.30 with Linux 6.12's flags for pahole >= 1.26, i.e.
#   vmlinux: -J -j --btf_features=encode_force,var,float,enum64,decl_tag,
#            type_tag,optimized_func,consistent_func,decl_tag_kfuncs
#            --lang_exclude=rust
#   modules: the same plus --btf_base vmlinux
# (pahole 1.30 reproduces the shipped vmlinux .BTF byte for byte).
# The trixie package lists are kept in DEST/.apt-trixie; the system's apt
# configuration is not changed.
#
# usage: fetch-debian-kernel.sh [DEST]    (DEST default: $BTFC_CORPUS or /var/tmp/btfc-corpus;
#        with SUITE=trixie, /var/tmp/btfc-corpus-trixie)
#        KVER=6.12.117+deb12-cloud-amd64 to pin another package version.
# Prints the KVER directory on its last line.  Needs apt-get (root) and ~2.5 GB of disk.
set -eu
SUITE=${SUITE:-bookworm}
if [ "$SUITE" = bookworm ]; then DEST=${1:-${BTFC_CORPUS:-/var/tmp/btfc-corpus}}
else DEST=${1:-/var/tmp/btfc-corpus-$SUITE}; fi
mkdir -p "$DEST"
APT_OPTS=""
if [ "$SUITE" = bookworm ]; then
	KVER=${KVER:-6.12.117+deb12-cloud-amd64}
	if ! apt-cache show "linux-image-$KVER-dbg" >/dev/null 2>&1; then
		[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages' 2>/dev/null | head -1)" ] || apt-get update -qq
	fi
else
	KVER=${KVER:-6.12.117+deb13-cloud-amd64}
	A="$DEST/.apt-$SUITE"
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
	# The archive this machine already uses, with the other suite.
	uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" { print ($2 ~ /^\[/) ? $3 : $2; exit }' /etc/apt/sources.list 2>/dev/null)
	[ -n "$uri" ] || { echo "no Debian archive in the apt sources" >&2; exit 1; }
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${uri%% *} $SUITE main" > "$A/sources.list"
	APT_OPTS="-o Dir::Etc::SourceList=$A/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$A/lists -o Dir::Cache=$A/cache"
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "linux-image-$KVER-dbg" >/dev/null 2>&1 || apt-get $APT_OPTS update -qq
fi
# shellcheck disable=SC2086
if ! apt-cache $APT_OPTS show "linux-image-$KVER-dbg" >/dev/null 2>&1; then
	# Pinned version gone from the archive: take the newest 6.12 cloud build.
	# shellcheck disable=SC2086
	KVER=$(apt-cache $APT_OPTS search --names-only '^linux-image-6\.12\..*-cloud-amd64-dbg$' |
		sed -E 's/^linux-image-(.*)-dbg .*/\1/' | sort -V | tail -1)
	[ -n "$KVER" ] || { echo "no linux-image-*-cloud-amd64-dbg package found" >&2; exit 1; }
	echo "pinned version unavailable; using $KVER" >&2
fi
OUT="$DEST/$KVER"
if [ -f "$OUT/.complete" ]; then echo "$OUT"; exit 0; fi
rm -rf "$OUT" && mkdir -p "$OUT/pkg" "$OUT/btf"
# shellcheck disable=SC2086
( cd "$OUT" && apt-get $APT_OPTS download -q "linux-image-$KVER-dbg" >/dev/null 2>&1 ) ||
	( cd "$OUT" && apt-get $APT_OPTS download "linux-image-$KVER-dbg" )
dpkg -x "$OUT"/linux-image-"$KVER"-dbg_*.deb "$OUT/pkg"
rm -f "$OUT"/linux-image-"$KVER"-dbg_*.deb
ln -s "pkg/usr/lib/debug/boot/vmlinux-$KVER" "$OUT/vmlinux"
objcopy -O binary --only-section=.BTF "$OUT/vmlinux" "$OUT/vmlinux.btf"
MODROOT="$OUT/pkg/usr/lib/debug/lib/modules/$KVER"
( cd "$MODROOT" && find kernel -name '*.ko' | LC_ALL=C sort ) > "$OUT/modules.rel"
sed "s|^|$MODROOT/|" "$OUT/modules.rel" > "$OUT/modules.txt"
# Non-alloc .BTF of a module: --dump-section, not -O binary.
( cd "$MODROOT" && xargs -P "$(nproc)" -I{} sh -c '
	d="$1/btf/$(dirname "{}")"; mkdir -p "$d"
	objcopy --dump-section .BTF="$1/btf/{}.btf" "{}" /dev/null 2>/dev/null ||
	objcopy --dump-section .BTF="$1/btf/{}.btf" "{}" "$(mktemp)"' _ "$OUT" < "$OUT/modules.rel" )
rm -f "$OUT/modules.rel"
n=$(wc -l < "$OUT/modules.txt")
echo "$KVER: vmlinux $(stat -c %s "$OUT/vmlinux.btf")-byte BTF, $n modules" >&2
touch "$OUT/.complete"
echo "$OUT"
