#!/usr/bin/env bash
# Reliability (issue 9): allocation-failure injection at every allocation
# of small runs, write failures (file size limit, full file system),
# SIGKILL during an in-place encode, pathological-but-valid DWARF, and a
# short deterministic mutation run.  Under an ASan build (make
# SAN=address,undefined test) every injected run is also leak-checked.
#
#   REL_FULL=1     every allocation of every command (default: also every
#                  one; SAN_QUICK=1 samples every 3rd)
#   REL_KILLS=N    SIGKILL iterations (default 40)
#   REL_MUTATIONS=N  mutation runs (default 300; scripts/check-kernel-mutate.sh runs 10,000)
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures
ulimit -c 0

asan=0
if ldd "$BTFC" 2>/dev/null | grep -q libasan || nm "$BTFC" 2>/dev/null | grep -q __asan_init; then
	asan=1
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export LSAN_OPTIONS=exitcode=98
fi
sanitizer_report() { grep -Eq 'ERROR: (Address|Leak|Thread)Sanitizer|runtime error:' "$1"; }

gcc -g -O2 -c "$SRC/types.c" -o "$WORK/types.o" || { fail "compile types.c"; exit 0; }
gcc -g -O1 -c "$SRC/layout.c" -o "$WORK/layout.o" || { fail "compile layout.c"; exit 0; }
"$BTFC" encode -j1 "$WORK/types.o" -o "$WORK/types.btf" || { fail "encode types.o"; exit 0; }
"$BTFC" encode -j1 --no-dedup "$WORK/layout.o" -o "$WORK/layout-nodedup.btf" ||
	{ fail "encode layout.o"; exit 0; }

# ---- 1. allocation failures ----------------------------------------------
# inject NAME INPUT OUT CMD...: run CMD (which reads INPUT, writes OUT
# if OUT is not '-', INPUT itself if OUT is '=') once counting
# allocations, then once per allocation N with BTFC_FAIL_ALLOC=N.  Each
# run must exit < 128 without a sanitizer report; a failed run must say
# "out of memory" (or ENOMEM's text), leave no OUT and no temp file, and
# leave INPUT byte-identical; a run that tolerates the failure must give
# the reference output.
points=0 tolerated=0
inject() {
	local name=$1 input=$2 out=$3 n i rc bad=0 stride=1 d=$WORK/inj f
	shift 3
	rm -rf "$d"; mkdir -p "$d"
	cp "$input" "$d/orig"
	# Commands see "@IN" / "@OUT" replaced by the files they should use.
	local args=() a in=$d/in outp=$d/out
	[ "$out" = = ] && outp=$in
	for a in "$@"; do a=${a//@IN/$in}; a=${a//@OUT/$outp}; args+=("$a"); done
	cp "$d/orig" "$in"
	if ! BTFC_COUNT_ALLOC=1 "${args[@]}" > "$d/ref.so" 2> "$d/ref.se"; then
		fail "$name: reference run"; sed 's/^/      /' "$d/ref.se" | head -5; return
	fi
	n=$(sed -nE 's/^btfc: ([0-9]+) allocations$/\1/p' "$d/ref.se")
	[ -n "$n" ] || { fail "$name: no allocation count"; return; }
	[ "$out" != - ] && cp "$outp" "$d/ref.out"
	quick && stride=3
	for ((i = 1; i <= n + 1; i += stride)); do
		cp "$d/orig" "$in"; [ "$out" = = ] || rm -f "$outp"
		BTFC_FAIL_ALLOC=$i "${args[@]}" > "$d/so" 2> "$d/se"; rc=$?
		points=$((points + 1))
		f=
		if [ $rc -ge 128 ]; then f="killed by signal $((rc - 128))"
		elif sanitizer_report "$d/se"; then f="sanitizer report"
		elif [ $rc -ne 0 ]; then
			grep -Eqi 'out of memory|cannot allocate memory' "$d/se" ||
				f="no out-of-memory message: $(head -c 200 "$d/se")"
			if [ "$out" = = ]; then cmp -s "$in" "$d/orig" || f="input modified by a failed run"
			elif [ "$out" != - ] && [ -e "$outp" ]; then f="output left behind by a failed run"; fi
		else
			tolerated=$((tolerated + 1))
			# (timings aside)
			cmp -s <(grep -v '^time:' "$d/so") <(grep -v '^time:' "$d/ref.so") ||
				f="exit 0 with different output"
			[ "$out" != - ] && { cmp -s "$outp" "$d/ref.out" || f="exit 0 with a different file"; }
		fi
		[ "$out" = = ] || cmp -s "$in" "$d/orig" || f="input modified"
		ls "$d" | grep -Eq '\.[A-Za-z0-9]{6}$' && { f="temp file left: $(ls "$d" | tr '\n' ' ')"; rm -f "$d"/*.??????; }
		if [ -n "$f" ]; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "      BTFC_FAIL_ALLOC=$i ${args[*]}: $f" && grep -E 'Sanitizer|runtime error|#[0-9] ' "$d/se" | head -8
		fi
	done
	if [ $bad -eq 0 ]; then pass "$name: $n allocation failures handled"
	elif [ -n "${KNOWN:-}" ]; then skip "$name: $bad of $n injection points mishandled (known: $KNOWN)"
	else fail "$name: $bad of $n injection points mishandled"; fi
}

inject "alloc: encode -o" "$WORK/types.o" out "$BTFC" encode -j1 @IN -o @OUT
inject "alloc: encode -j2 -o" "$WORK/types.o" out "$BTFC" encode -j2 @IN -o @OUT
inject "alloc: encode in place" "$WORK/types.o" = "$BTFC" encode -j1 @IN
inject "alloc: encode split on --base" "$WORK/layout.o" out env BTFC_CACHE_DIR= "$BTFC" encode -j1 --base "$WORK/types.btf" @IN -o @OUT
inject "alloc: encode split on --base, cold cache" "$WORK/layout.o" out "$ROOT/tests/tools/cold-cache.sh" "$BTFC" encode -j1 --base "$WORK/types.btf" @IN -o @OUT
BTFC_CACHE_DIR=$WORK/warm "$BTFC" encode -j1 --base "$WORK/types.btf" "$WORK/layout.o" -o "$WORK/warm.btf"
inject "alloc: encode split on --base, warm cache" "$WORK/layout.o" out env BTFC_CACHE_DIR="$WORK/warm" "$BTFC" encode -j1 --base "$WORK/types.btf" @IN -o @OUT
inject "alloc: dwarf --stats" "$WORK/types.o" - "$BTFC" dwarf --stats -j1 @IN
inject "alloc: dwarf DIE dump" "$WORK/layout.o" - "$BTFC" dwarf @IN
inject "alloc: dump raw" "$WORK/types.btf" - "$BTFC" dump @IN
inject "alloc: dump json" "$WORK/types.btf" - "$BTFC" dump --format json @IN
inject "alloc: dump c" "$WORK/types.btf" - "$BTFC" dump --format c @IN
cp "$WORK/types.o" "$WORK/types-btf.o" && "$BTFC" encode -j1 "$WORK/types-btf.o"
inject "alloc: dump ELF .BTF" "$WORK/types-btf.o" - "$BTFC" dump @IN
inject "alloc: verify" "$WORK/types.btf" - "$BTFC" verify @IN
inject "alloc: verify --strict" "$WORK/types.btf" - "$BTFC" verify --strict @IN
inject "alloc: dedup" "$WORK/layout-nodedup.btf" out "$BTFC" dedup -j1 @IN -o @OUT
inject "alloc: dedup -j2" "$WORK/layout-nodedup.btf" out "$BTFC" dedup -j2 @IN -o @OUT
inject "alloc: convert" "$WORK/types.btf" out "$BTFC" convert @IN -o @OUT --endian big
inject "alloc: diff" "$WORK/types.btf" - "$BTFC" diff @IN "$WORK/types.btf"
inject "alloc: layout" "$WORK/types.btf" - "$BTFC" layout @IN
inject "alloc: layout --compile" "$WORK/types.btf" - "$BTFC" layout --compile @IN
echo "  allocation-failure injection points: $points ($tolerated tolerated)$([ $asan = 1 ] && echo ', leak-checked')"
[ $asan = 1 ] || skip "leak check of failed runs: not an ASan build (make SAN=address,undefined test)"

# ---- 2. write failures -----------------------------------------------------
# File size limit (SIGXFSZ ignored so write() fails with EFBIG).
wfail() { # wfail NAME LIMIT_KB CMD...: CMD must fail with a message, rc < 128
	local name=$1 lim=$2 rc; shift 2
	( trap '' XFSZ; ulimit -f "$lim"; exec "$@" ) > "$WORK/wf.out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -Eq 'writ|File too large|No space' "$WORK/wf.out" &&
	   ! sanitizer_report "$WORK/wf.out"; then pass "$name"
	else fail "$name (rc=$rc)"; sed 's/^/      /' "$WORK/wf.out" | head -5; fi
}
mkdir -p "$WORK/wf"; rm -f "$WORK/wf"/*
wfail "EFBIG: encode -o fails cleanly" 1 "$BTFC" encode -j1 "$WORK/types.o" -o "$WORK/wf/out.btf"
[ -z "$(ls -A "$WORK/wf")" ] && pass "EFBIG: no output or temp file left" ||
	fail "EFBIG: files left: $(ls "$WORK/wf")"
cp "$WORK/types.o" "$WORK/wf/inplace.o"
wfail "EFBIG: encode in place fails cleanly" 4 "$BTFC" encode -j1 "$WORK/wf/inplace.o"
cmp -s "$WORK/wf/inplace.o" "$WORK/types.o" && [ "$(ls "$WORK/wf")" = inplace.o ] &&
	pass "EFBIG: in-place input unchanged, no temp file" || fail "EFBIG: in-place input changed or temp left"
wfail "EFBIG: dedup -o fails cleanly" 1 "$BTFC" dedup "$WORK/layout-nodedup.btf" -o "$WORK/wf/d.btf"
wfail "EFBIG: convert fails cleanly" 1 "$BTFC" convert "$WORK/types.btf" -o "$WORK/wf/c.btf"
[ "$(ls "$WORK/wf")" = inplace.o ] && pass "EFBIG: dedup/convert leave no file" || fail "EFBIG: files left: $(ls "$WORK/wf")"
# A full file system (a 256 KiB tmpfs, filled up) when we may mount one.
mkdir -p "$WORK/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs "$WORK/full" 2>/dev/null; then
	cp "$WORK/types.o" "$WORK/full/m.o"
	head -c 1M /dev/zero > "$WORK/full/filler" 2>/dev/null
	check_fails "ENOSPC: encode in place reports it" 'No space left|writ' "$BTFC" encode -j1 "$WORK/full/m.o"
	cmp -s "$WORK/full/m.o" "$WORK/types.o" && [ "$(ls "$WORK/full" | wc -l)" = 2 ] &&
		pass "ENOSPC: input unchanged, no temp file" || fail "ENOSPC: input changed or temp left: $(ls "$WORK/full")"
	check_fails "ENOSPC: encode -o reports it" 'No space left|writ' "$BTFC" encode -j1 "$WORK/layout.o" -o "$WORK/full/x.btf"
	check_fails "ENOSPC: convert reports it" 'No space left|writ' "$BTFC" convert "$WORK/types.btf" -o "$WORK/full/y.btf"
	check_fails "ENOSPC: dedup reports it" 'No space left|writ' "$BTFC" dedup "$WORK/layout-nodedup.btf" -o "$WORK/full/z.btf"
	[ "$(ls "$WORK/full" | sort | tr '\n' ' ')" = "filler m.o " ] && pass "ENOSPC: no partial files" ||
		fail "ENOSPC: files left: $(ls "$WORK/full" | tr '\n' ' ')"
	umount "$WORK/full"
else
	skip "ENOSPC: cannot mount a tmpfs here (not root)"
fi

# ---- 3. SIGKILL during an in-place encode ------------------------------------
# The file must be the old one or the complete new one, whenever we kill.
kills=${REL_KILLS:-40}
C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) || C=
victim=
if [ -n "$C" ]; then
	# A mid-sized module: long enough to be killed in every phase.
	victim=$(awk 'NR % 37 == 5' "$C/modules.txt" | while read -r m; do
		s=$(stat -c %s "$m"); [ "$s" -gt 2000000 ] && [ "$s" -lt 6000000 ] && { echo "$m"; break; }; done)
fi
if [ -n "$victim" ]; then
	base_arg=(--base "$C/vmlinux.btf")
	[ -f "$C/vmlinux.btf" ] || base_arg=()
else
	victim=$WORK/multi.o
	for i in 1 2 3 4; do gcc -g -O1 -Dvsum=vsum$i -Duse_all=use_all$i -Dglobal_counter=gc$i \
		-Dflex_ptr=fp$i -Dthe_union=tu$i -Dthe_anon=ta$i -Dthe_packed=tp$i -Dthe_aligned=tal$i \
		-Dthe_zero=tz$i -Dthe_ops=to$i -c "$SRC/types.c" -o "$WORK/k$i.o"; done
	ld -r "$WORK"/k?.o -o "$victim"; base_arg=()
fi
mkdir -p "$WORK/kill"; rm -f "$WORK/kill"/*
cp "$victim" "$WORK/kill/orig"; cp "$victim" "$WORK/kill/new"
t0=$(date +%s%N)
"$BTFC" encode -j2 "${base_arg[@]}" "$WORK/kill/new" 2> "$WORK/kill.err" || { fail "SIGKILL: reference encode"; cat "$WORK/kill.err" | head -3; }
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
old=0 new=0 torn=0 temps=0
RANDOM=9
for ((k = 0; k < kills; k++)); do
	cp "$WORK/kill/orig" "$WORK/kill/v"
	delay=$(( RANDOM % (ms + 20) ))
	"$BTFC" encode -j2 "${base_arg[@]}" "$WORK/kill/v" 2>/dev/null & pid=$!
	sleep "$(printf '0.%03d' "$delay")" 2>/dev/null || sleep "$((delay / 1000))"
	kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
	if cmp -s "$WORK/kill/v" "$WORK/kill/orig"; then old=$((old + 1))
	elif cmp -s "$WORK/kill/v" "$WORK/kill/new"; then new=$((new + 1))
	else torn=$((torn + 1)); fi
	n=$(ls "$WORK/kill" | grep -c '^v\.'); temps=$((temps + n)); rm -f "$WORK/kill"/v.*
done
echo "  SIGKILL: $kills kills over ${ms} ms runs of $(basename "$victim"): $old old, $new new, $torn torn, $temps temp files left (expected after SIGKILL)"
[ $torn -eq 0 ] && pass "SIGKILL during in-place encode: file always old or complete new" ||
	fail "SIGKILL: $torn torn files"

# ---- 4. pathological but valid DWARF ---------------------------------------
gen=$ROOT/tests/tools/gen_patho.py
patho() { # patho NAME FILE: dwarf --stats and encode within 60 s and 1.5 GB, no crash
	local name=$1 f=$2 rc lim=1500000 what
	[ $asan = 1 ] && lim=unlimited	# ASan reserves terabytes of address space
	for what in "dwarf --stats -j1" "encode -j2 -o $WORK/patho.btf"; do
		( ulimit -v $lim; ulimit -s 8192; exec timeout 60 "$BTFC" $what "$f" ) > "$WORK/patho.out" 2>&1; rc=$?
		if [ $rc -lt 124 ] && ! sanitizer_report "$WORK/patho.out"; then pass "$name: ${what%% *} (rc=$rc)"
		else fail "$name: ${what%% *} (rc=$rc)"; sed 's/^/      /' "$WORK/patho.out" | head -5; fi
	done
}
if python3 "$gen" deep 100000 "$WORK/deep.o" && python3 "$gen" wide 70000 "$WORK/wide.o" &&
   python3 "$gen" hugestr 1000000000 "$WORK/hugestr.o" && python3 "$gen" wideenum 70000 "$WORK/wideenum.o" &&
   python3 "$gen" longchain 200000 "$WORK/chain.o"; then
	patho "DIE nesting 100,000 deep" "$WORK/deep.o"
	grep -q 'nest\|deep\|depth' "$WORK/patho.out" 2>/dev/null || true
	patho "struct with 70,000 members" "$WORK/wide.o"
	"$BTFC" encode -j1 "$WORK/wide.o" -o "$WORK/wide.btf" > "$WORK/wide.err" 2>&1
	grep -Eq 'members|vlen|65535' "$WORK/wide.err" && pass "70,000 members: error names the limit" ||
		fail "70,000 members: $(head -c 300 "$WORK/wide.err")"
	# the largest vlen BTF has room for: encoded, and printed by layout
	python3 "$gen" wide 65535 "$WORK/w65535.o" && "$BTFC" encode -j2 "$WORK/w65535.o" -o "$WORK/w65535.btf" &&
		"$BTFC" dump "$WORK/w65535.btf" | grep -q 'vlen=65535' &&
		"$BTFC" layout "$WORK/w65535.btf" | grep -q 'members: 65535 \*/' &&
		pass "struct with 65,535 members: encoded and laid out" || fail "struct with 65,535 members"
	patho "enum with 70,000 values" "$WORK/wideenum.o"
	patho ".debug_str claiming 1 GB in a small file" "$WORK/hugestr.o"
	check_fails "1 GB section claim: clear error" 'past the end|truncated' "$BTFC" dwarf --stats "$WORK/hugestr.o"
	patho "200,000-long pointer chain" "$WORK/chain.o"
else
	fail "gen_patho.py failed"
fi

# ---- 5. mutations (short deterministic run) ----------------------------------
if quick; then m=${REL_MUTATIONS:-100}; else m=${REL_MUTATIONS:-300}; fi
if out=$(BTFC=$BTFC MUTATIONS=$m MUT_SEED=1 MUT_TIMEOUT=20 "$ROOT/scripts/mutate-corpus.sh" --fixtures-only 2>&1); then
	pass "mutations: $m runs, no crash/hang/modified input"
else
	fail "mutations"
fi
echo "$out" | tail -3 | sed 's/^/  /'
