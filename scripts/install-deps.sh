#!/bin/sh
# Install btfc's build and test dependencies from Debian's archive.
# Idempotent; prints nothing when everything is already there.
set -eu
BUILD="gcc make pkg-config libelf-dev zlib1g-dev libzstd-dev"
TEST="clang llvm binutils python3 libdw-dev libbpf-dev bpftool dwarves dwz gcc-multilib libclang-rt-14-dev xz-utils time"
# man pages checked with man -l and mandoc -Tlint; the .deb built with
# dpkg-buildpackage and checked with lintian (t_dist.sh)
DIST="man-db mandoc dpkg-dev debhelper fakeroot lintian"
missing=""
for p in $BUILD ${BTFC_BUILD_ONLY:+} $TEST $DIST; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
