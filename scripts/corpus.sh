#!/bin/sh
# Print the Debian 6.12 corpus directory, fetching it first if needed
# (../shared/corpus/fetch-debian-kernel.sh; ~40 s, 2 GB).  Exit 1 with a
# message when it cannot be had.  BTFC_CORPUS overrides the location.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
fetch=${BTFC_FETCH:-$here/../shared/corpus/fetch-debian-kernel.sh}
dest=${BTFC_CORPUS:-/var/tmp/btfc-corpus}
for d in "$dest"/*/; do
	[ -f "$d/.complete" ] && { echo "${d%/}"; exit 0; }
done
[ "${BTFC_NO_FETCH:-}" = 1 ] && { echo "corpus: not present under $dest" >&2; exit 1; }
[ -f "$fetch" ] || { echo "corpus: $fetch not found" >&2; exit 1; }
sh "$fetch" "$dest" | tail -1
