#!/usr/bin/env bash
# Run libFuzzer targets (make fuzz FUZZ_SECONDS=N): for each target, first
# its regression corpus tests/fuzz/regress/TARGET/ (every file must run
# clean), then FUZZ_SECONDS of fuzzing from seeds made here out of the
# fixtures plus the target's persistent corpus ($FUZZ_O/corpus/TARGET,
# kept between runs, not in the repo).  A crash leaves its input in
# $FUZZ_O/crash-TARGET-*; add it to tests/fuzz/regress/TARGET/ once fixed.
#
#   FUZZ_O        directory with the fuzz_* binaries (default build/fuzz)
#   FUZZ_SECONDS  fuzzing time per target (default 10; 0 = regressions only)
#   BTFC          btfc binary for BTF seeds (default build/btfc, built if missing)
#   FUZZ_SUMMARY  file to append "TARGET EXECS CRASHED" lines to (optional)
# Exit status: 0 if no target crashed.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
FUZZ_O=${FUZZ_O:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
BTFC=${BTFC:-build/btfc}
SEEDS=$FUZZ_O/seeds
mkdir -p "$SEEDS"
[ $# -gt 0 ] || set -- $(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')

# Seeds: fixtures compiled a few ways.  ELF objects (elf, encode), debug
# sections of linked objects (dwarf), raw BTF of the objects (btf, dedup,
# layout).  Made once per build dir.
make_seeds() {
	local d=$SEEDS/tmp cc g opt f o n=0
	mkdir -p "$d" "$SEEDS/elf" "$SEEDS/dwarf" "$SEEDS/btf"
	[ -x "$BTFC" ] || make -s "$BTFC" >/dev/null || return 1
	for cc in gcc clang; do
		command -v $cc >/dev/null || continue
		for f in types layout; do
			for g in 4 5; do
				for opt in -O0 -O2; do
					o=$d/$f-$cc-g$g$opt
					$cc -gdwarf-$g $opt -c tests/fixtures/$f.c -o "$o.o" 2>/dev/null || continue
					cp "$o.o" "$SEEDS/elf/"
					$cc -gdwarf-$g $opt -shared -fPIC -nostdlib tests/fixtures/$f.c -o "$o.so" \
						2>/dev/null && python3 tests/fuzz/mkseed.py dwarf "$o.so" "$SEEDS/dwarf/${o##*/}"
					"$BTFC" encode -j1 "$o.o" -o "$SEEDS/btf/${o##*/}.btf" 2>/dev/null
					"$BTFC" encode -j1 --no-dedup "$o.o" -o "$SEEDS/btf/${o##*/}.nodedup.btf" 2>/dev/null
					n=$((n + 1))
				done
			done
		done
		# Compressed sections, type units, 32-bit, big-endian BTF.
		o=$d/types-$cc
		$cc -g -gz=zlib -c tests/fixtures/types.c -o "$o-gz.o" 2>/dev/null && cp "$o-gz.o" "$SEEDS/elf/"
		$cc -gdwarf-4 -fdebug-types-section -c tests/fixtures/types.c -o "$o-tu.o" 2>/dev/null &&
			cp "$o-tu.o" "$SEEDS/elf/"
		$cc -gdwarf-4 -fdebug-types-section -shared -fPIC -nostdlib tests/fixtures/types.c \
			-o "$o-tu.so" 2>/dev/null && python3 tests/fuzz/mkseed.py dwarf "$o-tu.so" "$SEEDS/dwarf/${o##*/}-tu"
		$cc -m32 -g -c tests/fixtures/types.c -o "$o-m32.o" 2>/dev/null && cp "$o-m32.o" "$SEEDS/elf/"
		# Two units with a table each (tables parsed ahead, dw_file_open).
		$cc -g -shared -fPIC -nostdlib tests/fixtures/types.c tests/fixtures/layout.c \
			-o "$o-2cu.so" 2>/dev/null && python3 tests/fuzz/mkseed.py dwarf "$o-2cu.so" "$SEEDS/dwarf/${o##*/}-2cu"
		[ -f "$SEEDS/btf/types-$cc-g5-O2.btf" ] && "$BTFC" convert "$SEEDS/btf/types-$cc-g5-O2.btf" \
			-o "$SEEDS/btf/types-$cc-big.btf" --endian big >/dev/null 2>&1
		# Other producers (docs/producers.md): C++, split DWARF (the .dwo
		# itself), DWARF 5 type units, dwz, TLS relocations.
		cxx=g++; [ $cc = clang ] && cxx=clang++
		$cxx -g -O2 -c tests/fixtures/classes.cc -o "$o-cxx.o" 2>/dev/null && cp "$o-cxx.o" "$SEEDS/elf/"
		$cc -g -O2 -gsplit-dwarf -c tests/fixtures/types.c -o "$o-split.o" 2>/dev/null &&
			[ -f "$o-split.dwo" ] && cp "$o-split.dwo" "$SEEDS/elf/"
		$cc -gdwarf-5 -fdebug-types-section -c tests/fixtures/types.c -o "$o-tu5.o" 2>/dev/null &&
			cp "$o-tu5.o" "$SEEDS/elf/"
		if command -v dwz >/dev/null && [ $cc = gcc ]; then
			$cc -g -O2 -shared -fPIC -nostdlib tests/fixtures/types.c tests/fixtures/layout.c \
				-o "$o-dwz.so" 2>/dev/null && dwz "$o-dwz.so" 2>/dev/null && cp "$o-dwz.so" "$SEEDS/elf/"
		fi
		printf '__thread int tv;\nint get(void) { return tv; }\n' > "$d/tls.c"
		$cc -g -O2 -fPIC -c "$d/tls.c" -o "$o-tls.o" 2>/dev/null && cp "$o-tls.o" "$SEEDS/elf/"
		$cc -m32 -g -O2 -fPIC -c "$d/tls.c" -o "$o-tls32.o" 2>/dev/null && cp "$o-tls32.o" "$SEEDS/elf/"
	done
	# Broken DWARF the encoder degrades or refuses (tests/tools/gen_patho.py).
	for k in "oddfloat 134" "voidarray 3" "oddenum 3" "nonamefwd 0" "badname 1" "badnamecxx 1" \
		 "voidmember 0"; do
		set -- $k
		python3 tests/tools/gen_patho.py $1 $2 "$SEEDS/elf/patho-$1.o"
	done
	rm -rf "$d"
	[ $n -gt 0 ] || { echo "fuzz: no compiler made seeds" >&2; return 1; }
	touch "$SEEDS/.done-2"
}
# (.done-2: the seeds of the producers of issue #40 are in)
[ -f "$SEEDS/.done-2" ] || make_seeds || exit 1

seeds_of() {
	case $1 in
	fuzz_elf|fuzz_encode) echo "$SEEDS/elf" ;;
	fuzz_dwarf) echo "$SEEDS/dwarf" ;;
	*) echo "$SEEDS/btf" ;;
	esac
}

crashed=0
for t in "$@"; do
	bin=$FUZZ_O/$t
	[ -x "$bin" ] || { echo "fuzz: $bin not built" >&2; crashed=1; continue; }
	reg=tests/fuzz/regress/$t
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		if ! "$bin" -runs=0 -rss_limit_mb=4096 "$reg"/* > "$FUZZ_O/$t.regress.log" 2>&1; then
			echo "FAIL $t: a regression input crashes (log: $FUZZ_O/$t.regress.log)"
			grep -E 'ERROR|runtime error|Running:' "$FUZZ_O/$t.regress.log" | tail -5
			crashed=1
			echo "$t 0 1" >> "${FUZZ_SUMMARY:-/dev/null}"
			continue
		fi
		echo "$t: $(ls "$reg" | wc -l) regression inputs ok"
	fi
	[ "$FUZZ_SECONDS" -gt 0 ] || { echo "$t 0 0" >> "${FUZZ_SUMMARY:-/dev/null}"; continue; }
	corpus=${FUZZ_CORPUS:-$FUZZ_O/corpus}/$t
	mkdir -p "$corpus"
	log=$FUZZ_O/$t.log
	# FUZZ_RUNS + FUZZ_SEED (the test suite): a fixed, reproducible run.
	limit="-max_total_time=$FUZZ_SECONDS"
	[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS -seed=${FUZZ_SEED:-1}"
	# shellcheck disable=SC2086
	"$bin" $limit -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$FUZZ_O/crash-$t-" \
		"$corpus" "$(seeds_of "$t")" > "$log" 2>&1
	rc=$?
	execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
	cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
	if [ $rc -ne 0 ]; then
		crashed=1
		echo "CRASH $t after ${execs:-?} execs (log: $log)"
		grep -aE 'ERROR:|runtime error|Test unit written|SUMMARY' "$log" | head -8
		echo "$t ${execs:-0} 1" >> "${FUZZ_SUMMARY:-/dev/null}"
	else
		echo "$t: ${execs:-?} execs in ${FUZZ_SECONDS}s, $cov, corpus $(ls "$corpus" | wc -l)"
		echo "$t ${execs:-0} 0" >> "${FUZZ_SUMMARY:-/dev/null}"
	fi
done
exit $crashed
