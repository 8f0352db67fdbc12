#!/usr/bin/env bash
# make bench: side-by-side timings on the Debian 6.12 corpus.  Medians of
# RUNS runs (default 3) of whole processes, peak RSS from GNU time.
# Reports ratios, not absolute times: the machine is shared.  The generic
# kernel's corpus (issue #41: its largest modules, all 4,230 in a batch) is
# looked for under $BTFC_CORPUS_GENERIC (default /var/tmp/btfc-corpus-generic,
# kept apart from the default corpus) and never fetched here; without it
# that benchmark says so and is skipped.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}; O=${O:-build}; RUNS=${RUNS:-3}
C=$(scripts/corpus.sh) || exit 1
GEN=$(BTFC_CORPUS=${BTFC_CORPUS_GENERIC:-/var/tmp/btfc-corpus-generic} BTFC_NO_FETCH=1 \
	scripts/corpus.sh 2>/dev/null) || GEN=
exec python3 bench/bench.py --btfc "$BTFC" --build "$O" --corpus "$C" --generic "$GEN" \
	--runs "$RUNS" "$@"
