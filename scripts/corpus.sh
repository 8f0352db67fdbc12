#!/bin/sh
# Print the Debian 6.12 corpus directory, fetching it first if needed
# (scripts/fetch-debian-kernel.sh: apt-get download of Debian's
# linux-image-*-cloud-amd64-dbg, ~40 s, 2.5 GB; needs root for apt).  Exit
# 1 with a message when it cannot be had.  BTFC_CORPUS overrides the
# location, BTFC_FETCH the fetch script, BTFC_NO_FETCH=1 only looks.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
fetch=${BTFC_FETCH:-$here/scripts/fetch-debian-kernel.sh}
dest=${BTFC_CORPUS:-/var/tmp/btfc-corpus}
for d in "$dest"/*/; do
	[ -f "$d/.complete" ] && { echo "${d%/}"; exit 0; }
done
[ "${BTFC_NO_FETCH:-}" = 1 ] && { echo "corpus: not present under $dest" >&2; exit 1; }
[ -f "$fetch" ] || { echo "corpus: $fetch not found" >&2; exit 1; }
sh "$fetch" "$dest" | tail -1
