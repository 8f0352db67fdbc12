#!/usr/bin/env bash
# libFuzzer targets (tests/fuzz/fuzz_*.c) built with clang: every
# regression input in tests/fuzz/regress/ must run clean, then each target
# fuzzes for a few seconds (FUZZ_SECONDS, default 10; 3 under SAN_QUICK).
# `make fuzz FUZZ_SECONDS=N` is the longer run.  Skipped without clang.
. "$(dirname "$0")/lib.sh"
have clang || { skip "clang not installed: no fuzzing"; exit 0; }
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' > "$WORK/f.c"
clang -fsanitize=fuzzer "$WORK/f.c" -o "$WORK/f" 2>/dev/null || { skip "clang without libFuzzer"; exit 0; }
cd "$ROOT"
if ! make -s -j"$(nproc)" fuzz-build > "$WORK/fuzz-build.log" 2>&1; then
	fail "fuzz targets build"; tail -5 "$WORK/fuzz-build.log"; exit 0
fi
secs=${FUZZ_SECONDS:-10}
quick && secs=${FUZZ_SECONDS:-3}
known=$(grep -v '^#' tests/fuzz/known/known.txt 2>/dev/null)
for t in $(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//'); do
	rm -f build/fuzz/crash-$t-*
	# A fixed number of runs from a fixed seed and a fresh corpus: the same
	# inputs every time (make fuzz is the open-ended search).
	FUZZ_RUNS=${FUZZ_RUNS:-4000} FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_CORPUS=$WORK/corpus \
	FUZZ_SECONDS=$secs FUZZ_O=build/fuzz BTFC=$BTFC FUZZ_SUMMARY=$WORK/sum tests/fuzz/run.sh $t > "$WORK/$t.out" 2>&1
	rc=$?
	line=$(grep "^$t " "$WORK/sum" | tail -1)
	if [ $rc -eq 0 ]; then
		pass "fuzz $t: regressions clean, $(echo "$line" | cut -d' ' -f2) execs in ${secs}s"
		continue
	fi
	sig=$(grep -h 'SUMMARY:' build/fuzz/$t.log build/fuzz/$t.regress.log 2>/dev/null | head -1)
	k=
	for s in $known; do
		case $s in
		*=*) [ "${s%%=*}" = "$t" ] && [[ "$sig" == *"${s#*=}"* ]] && k=$s ;;	# TARGET=SIG
		*) [[ "$sig" == *"$s"* ]] && k=$s ;;
		esac
	done
	if [ -n "$k" ]; then skip "fuzz $t: known crash $k (tests/fuzz/known/known.txt)"
	else fail "fuzz $t"; sed 's/^/      /' "$WORK/$t.out" | head -8; fi
done
