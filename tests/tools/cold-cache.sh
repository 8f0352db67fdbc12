#!/bin/sh
# Run a command with an empty base cache of its own (tests/t_reliability.sh:
# fault injection into the cache-building path of one-module encodes).
d=$(mktemp -d) || exit 2
BTFC_CACHE_DIR=$d "$@"
rc=$?
rm -rf "$d"
exit $rc
