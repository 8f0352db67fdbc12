#!/bin/sh
# Print btfc's version (README.md "Versions").  In a git checkout: the
# release tag describing HEAD (v0.2.0 -> "0.2.0", with "-N-gHASH" past it),
# or, with no release tag in the history, VERSION plus the commit
# ("0.2.0+g1a2b3c4"); "-dirty" when the tree has uncommitted changes.
# Elsewhere (a tarball, a Debian source package): VERSION as it is.
set -u
cd "$(dirname "$0")/.." || exit 1
base=$(cat VERSION 2>/dev/null || echo unknown)
if [ -e .git ] && command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1; then
	if d=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
		echo "${d#v}"
		exit 0
	fi
	if h=$(git rev-parse --short HEAD 2>/dev/null); then
		dirty=""
		git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
		echo "$base+g$h$dirty"
		exit 0
	fi
fi
echo "$base"
