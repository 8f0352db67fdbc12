#!/usr/bin/env bash
# The full hostile-input run (make check-kernel): 10,000 deterministic
# mutations of corpus modules, their BTF and compiled fixtures, through
# dwarf --stats, encode, dump and verify.  0 crashes, 0 hangs, 0 modified
# inputs, no output left by a failed encode.  MUTATIONS / MUT_SEED override.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc} MUTATIONS=${MUTATIONS:-10000} MUT_SEED=${MUT_SEED:-1} \
	KEEP=${KEEP:-build/mutate-findings} scripts/mutate-corpus.sh
