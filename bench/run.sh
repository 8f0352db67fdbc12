#!/usr/bin/env bash
# make bench: side-by-side timings on the Debian 6.12 corpus.  Medians of
# RUNS runs (default 3) of whole processes, peak RSS from GNU time.
# Reports ratios, not absolute times: the machine is shared.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}; O=${O:-build}; RUNS=${RUNS:-3}
C=$(scripts/corpus.sh) || exit 1
exec python3 bench/bench.py --btfc "$BTFC" --build "$O" --corpus "$C" --runs "$RUNS" "$@"
