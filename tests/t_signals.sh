#!/usr/bin/env bash
# SIGINT, SIGTERM and SIGHUP during encodes (issue #39, point 4): btfc
# removes every temp output and dies of the signal.  Each signal kills, at
# random points, in-place encodes of a module (on the corpus's vmlinux BTF)
# and of the corpus's vmlinux itself, and a batch encode; after each kill
# no temp file (NAME.XXXXXX) is left and the input is the old file or the
# complete new one.  Without the corpus, a fixture object stands in.
#   SIG_KILLS=N   kills per signal of the module (default 8)
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures
kills=${SIG_KILLS:-8}
quick && kills=3
C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null) || C=

# run_killed SIG DELAY_MS CMD...: start CMD (the signal at its default
# disposition: a background job of a script ignores SIGINT), send SIG after
# DELAY_MS, print its exit status.
run_killed() {
	local sig=$1 delay=$2 pid rc; shift 2
	env --default-signal=INT,TERM,HUP "$@" 2>/dev/null & pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -"$sig" $pid 2>/dev/null
	wait $pid; rc=$?
	echo $rc
}

signum() { kill -l "$1"; }

# run_killed_at SIG GLOB CMD...: send SIG once a file matching GLOB exists
# (the temp output being written), print the exit status.
run_killed_at() {
	local sig=$1 glob=$2 pid rc i; shift 2
	env --default-signal=INT,TERM,HUP "$@" 2>/dev/null & pid=$!
	for ((i = 0; i < 3000; i++)); do
		compgen -G "$glob" > /dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.005
	done
	kill -"$sig" $pid 2>/dev/null
	wait $pid; rc=$?
	echo $rc
}

# kill_loop NAME N DIR FILE SIG CMD...: N kills of CMD (which encodes DIR/FILE
# in place) with SIG; DIR/orig and DIR/new hold the input and the output of
# an unkilled run.
kill_loop() {
	local name=$1 n=$2 dir=$3 file=$4 sig=$5 ms=$6 k rc delay temps=0 torn=0 died=0 done_=0
	shift 6
	for ((k = 0; k < n; k++)); do
		cmp -s "$dir/$file" "$dir/orig" || cp "$dir/orig" "$dir/$file"
		delay=$(( RANDOM % (ms + 20) ))
		rc=$(run_killed "$sig" "$delay" "$@")
		if [ "$rc" -eq $((128 + $(signum "$sig"))) ]; then died=$((died + 1))
		elif [ "$rc" -eq 0 ]; then done_=$((done_ + 1))
		else torn=$((torn + 1)); echo "      exit status $rc after SIG$sig"; fi
		cmp -s "$dir/$file" "$dir/orig" || cmp -s "$dir/$file" "$dir/new" ||
			{ torn=$((torn + 1)); echo "      $file neither old nor new after SIG$sig"; }
		temps=$((temps + $(find "$dir" -maxdepth 1 -name "$file.??????" | wc -l)))
		rm -f "$dir/$file".??????
	done
	echo "  SIG$sig: $name: $n runs, $died died of it, $done_ had finished, $temps temp files left"
	[ $temps -eq 0 ] && [ $torn -eq 0 ] && [ $died -gt 0 ] &&
		pass "SIG$sig during $name: no temp file, input old or complete new, died of the signal" ||
		fail "SIG$sig during $name: $temps temp files, $torn bad outcomes, $died deaths by the signal"
}

# prepare DIR FILE CMD...: an unkilled run of CMD (DIR/FILE, a copy of
# DIR/orig, encoded in place) makes DIR/new; MS is how long it took.
prepare() {
	local dir=$1 file=$2 t0; shift 2
	t0=$(date +%s%N)
	"$@" > "$WORK/prep.err" 2>&1 || { fail "signals: reference encode of $file"; head -3 "$WORK/prep.err"; return 1; }
	MS=$(( ($(date +%s%N) - t0) / 1000000 ))
	mv "$dir/$file" "$dir/new"
	cp "$dir/orig" "$dir/$file"
}

RANDOM=39
mod= base_arg=()
if [ -n "$C" ]; then
	mod=$(awk 'NR % 37 == 5' "$C/modules.txt" | while read -r m; do
		s=$(stat -c %s "$m"); [ "$s" -gt 2000000 ] && [ "$s" -lt 6000000 ] && { echo "$m"; break; }; done)
	[ -f "$C/vmlinux.btf" ] && base_arg=(--base "$C/vmlinux.btf")
fi
if [ -z "$mod" ]; then
	mod=$WORK/multi.o
	for i in 1 2 3 4; do gcc -g -O1 -Dvsum=vsum$i -Duse_all=use_all$i -Dglobal_counter=gc$i \
		-Dflex_ptr=fp$i -Dthe_union=tu$i -Dthe_anon=ta$i -Dthe_packed=tp$i -Dthe_aligned=tal$i \
		-Dthe_zero=tz$i -Dthe_ops=to$i -c "$SRC/types.c" -o "$WORK/k$i.o"; done
	ld -r "$WORK"/k?.o -o "$mod"
fi

# ---- a module, in place ------------------------------------------------------
D=$WORK/mod; mkdir -p "$D"
cp "$mod" "$D/orig"; cp "$mod" "$D/m.ko"
if prepare "$D" m.ko "$BTFC" encode -j2 "${base_arg[@]}" "$D/m.ko"; then
	for sig in INT TERM HUP; do
		kill_loop "in-place encode of $(basename "$mod")" "$kills" "$D" m.ko $sig "$MS" \
			"$BTFC" encode -j2 "${base_arg[@]}" "$D/m.ko"
	done
fi
rm -rf "$D"

# ---- vmlinux, in place (a 340 MB temp file) ---------------------------------
if [ -n "$C" ] && ! quick; then
	D=$WORK/vm; mkdir -p "$D"
	cp "$C/vmlinux" "$D/vmlinux"
	for sig in INT TERM HUP; do
		# once the 340 MB temp file is being written (the issue's case)
		rc=$(run_killed_at $sig "$D/vmlinux.??????" "$BTFC" encode -j2 "$D/vmlinux")
		n=$(find "$D" -maxdepth 1 -name 'vmlinux.??????' | wc -l)
		if [ "$rc" -eq $((128 + $(signum $sig))) ] && [ "$n" -eq 0 ] &&
		   cmp -s "$D/vmlinux" "$C/vmlinux"; then
			pass "SIG$sig while writing vmlinux in place: temp file removed, input intact"
		else
			fail "SIG$sig while writing vmlinux in place: exit status $rc, $n temp files"
			cp "$C/vmlinux" "$D/vmlinux"
		fi
		rm -f "$D"/vmlinux.??????
	done
	rm -rf "$D"
else
	skip "signals: vmlinux in place (no corpus, or SAN_QUICK)"
fi

# ---- a batch: every output's temp file goes ---------------------------------
if [ -n "$C" ]; then
	awk 'NR % 50 == 3' "$C/modules.txt" | head -24 > "$WORK/batch.txt"
	batch=(encode -j2 "${base_arg[@]}" --list "$WORK/batch.txt")
else
	printf '%s\n' "$mod" "$WORK"/k?.o > "$WORK/batch.txt"
	batch=(encode -j2 --list "$WORK/batch.txt")
fi
mkdir -p "$WORK/out"
t0=$(date +%s%N)
"$BTFC" "${batch[@]}" -o "$WORK/out" 2>/dev/null || fail "signals: reference batch"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
for sig in INT TERM HUP; do
	bad=0 died=0
	for ((k = 0; k < 3; k++)); do
		rm -rf "$WORK/out"; mkdir -p "$WORK/out"
		# in the first half: the reference run (cold caches, the base
		# cache made) is slower than these, a kill past their end kills none
		rc=$(run_killed $sig $(( RANDOM % (ms / 2 + 10) )) "$BTFC" "${batch[@]}" -o "$WORK/out")
		[ "$rc" -eq $((128 + $(signum $sig))) ] && died=$((died + 1))
		n=$(find "$WORK/out" -name '*.btf.??????' | wc -l); bad=$((bad + n))
	done
	[ $bad -eq 0 ] && [ $died -gt 0 ] && pass "SIG$sig during a batch encode: no temp output left" ||
		fail "SIG$sig during a batch encode: $bad temp files left, $died deaths by the signal"
done

# ---- an ignored signal stays ignored (nohup, background jobs) ---------------
cp "$mod" "$WORK/nohup.o"
( trap '' HUP; exec "$BTFC" encode -j1 "${base_arg[@]}" "$WORK/nohup.o" ) 2>/dev/null & pid=$!
sleep 0.05; kill -HUP $pid 2>/dev/null; wait $pid; rc=$?
[ $rc -eq 0 ] && pass "SIGHUP ignored by the caller (nohup) stays ignored" ||
	fail "SIGHUP ignored by the caller: exit status $rc"
