#!/usr/bin/env bash
# The running kernel's BTF verifier as an oracle (bpf(BPF_BTF_LOAD), via the
# test-only helper build/btf-load), when the syscall is permitted:
#  (a) every standalone malformed/accepted blob of docs/btf.md 7.1-7.5 that
#      tests/unit/test_btf_validate.c builds (dumped with
#      BTFC_VALIDATE_BLOBS): `btfc verify --strict` must give the kernel's
#      verdict, and its first message must name the kernel's rule (the first
#      words of ours, "[id] KIND" and "member 'x':"-style labels removed,
#      appear in the kernel's last log line).  Without the syscall the
#      verdicts recorded in tests/data/kernel-btf-verdicts.txt (Linux 6.18)
#      serve as the kernel's.  BTFC_RECORD_VERDICTS=1 rewrites that file.
#  (b) the corpus vmlinux.btf loads;
#  (c) base + split concatenated into one standalone blob loads for a few
#      corpus modules (and `btfc verify --strict` accepts the same blob).
. "$(dirname "$0")/lib.sh"

case ${O:-build} in /*) OD=$O ;; *) OD=$ROOT/${O:-build} ;; esac
LOAD=${BTF_LOAD:-$OD/btf-load}
UNITB=${UNIT:-$OD/unit-tests}
case $UNITB in /*) ;; *) UNITB=$ROOT/$UNITB ;; esac
REC=$TESTS_DIR/data/kernel-btf-verdicts.txt
[ -x "$LOAD" ] || { skip "kernel: $LOAD not built (make ${O:-build}/btf-load)"; exit 0; }

live=0
if "$LOAD" --probe > "$WORK/probe.out" 2>&1; then live=1
else skip "BPF_BTF_LOAD not permitted ($(cat "$WORK/probe.out")): using recorded verdicts"; fi

# ---- (a) hand-built cases ----
mkdir -p "$WORK/blobs"
if [ -x "$UNITB" ]; then
	BTFC_VALIDATE_BLOBS=$WORK/blobs "$UNITB" validate > /dev/null 2>&1
fi
n=$(ls "$WORK/blobs" 2>/dev/null | wc -l)
if [ "$n" -eq 0 ]; then
	skip "kernel: no blobs from $UNITB (BTFC_VALIDATE_BLOBS)"
else
	(cd "$WORK/blobs" && for f in *.btf; do
		if [ $live = 1 ]; then "$LOAD" "$f"
		else grep -F "$f: " "$REC" || echo "$f: NOT-RECORDED"; fi
	done) > "$WORK/kernel.txt" 2>&1
	if [ $live = 1 ] && [ "${BTFC_RECORD_VERDICTS:-}" = 1 ]; then
		sort "$WORK/kernel.txt" > "$REC"
		echo "  recorded $n verdicts in $REC"
	elif [ $live = 1 ] && [ -f "$REC" ]; then
		drift=$(sort "$WORK/kernel.txt" | comm -23 - <(sort "$REC") | wc -l)
		[ "$drift" -eq 0 ] || echo "  note: $drift verdicts of this kernel ($(uname -r)) differ from $REC"
	fi
	agree=0 bad=0 unrec=0
	while IFS= read -r line; do
		f=${line%%: *}
		k=${line#*: }
		[ "$k" = NOT-RECORDED ] && { unrec=$((unrec + 1)); continue; }
		v=$(cd "$WORK/blobs" && "$BTFC" verify --strict "$f" 2>&1 | head -1)
		v=${v#*"$f: "}
		v=${v#btfc: }
		ok=1
		if [ "$k" = OK ]; then
			[ "$v" = "OK (strict mode)" ] || ok=0
		elif [ "$v" = "OK (strict mode)" ]; then
			ok=0
		else
			# The rule: our message without "[id] KIND " and element labels, first two words.
			rule=$(printf '%s' "$v" | sed -E "s/^\[[0-9]+\] [A-Z_?]+ //; s/^(entry #[0-9]+|member '[^']*'|value #[0-9]+): //" |
				awk '{ w = $1; if (NF > 1) w = w " " $2; sub(/:$/, "", w); print w }')
			klog=${k#*): }
			# The CLI refuses a file without BTF magic before validating it.
			[ "$klog" = "Invalid magic" ] && [[ "$v" == *"neither a raw BTF blob"* ]] && rule="Invalid magic"
			# An empty kernel log (e.g. the 16 MiB size check) has nothing to compare.
			[ -z "$klog" ] || [[ "$klog" == *"$rule"* ]] || ok=0
		fi
		if [ $ok = 1 ]; then agree=$((agree + 1))
		else bad=$((bad + 1)); echo "      $f: kernel: $k"; echo "      $f: btfc:   $v"; fi
	done < "$WORK/kernel.txt"
	src=$([ $live = 1 ] && echo "live kernel $(uname -r)" || echo "recorded verdicts")
	if [ $bad -eq 0 ] && [ $agree -gt 0 ]; then
		pass "kernel: verify --strict agrees with the $src on $agree hand-built blobs"
	else fail "kernel: verify --strict disagrees with the $src on $bad of $((agree + bad)) blobs"; fi
	[ $unrec -eq 0 ] || echo "  note: $unrec blobs have no recorded verdict (regenerate: BTFC_RECORD_VERDICTS=1)"
fi

# ---- (b), (c) corpus ----
if [ $live = 0 ]; then
	skip "skipped: BPF_BTF_LOAD not permitted (corpus loads)"
	exit 0
fi
if ! C=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); then
	skip "Debian corpus absent (scripts/corpus.sh); kernel loads of corpus BTF not run"
	exit 0
fi
V=$C/vmlinux.btf
check "kernel: corpus vmlinux.btf loads (BPF_BTF_LOAD)" "$LOAD" "$V"
find "$C/btf" -name '*.ko.btf' | sort | awk 'NR % 181 == 3' | head -6 > "$WORK/mods"
while read -r m; do
	n=$(basename "$m" .ko.btf)
	check "kernel: vmlinux + $n concatenated loads" "$LOAD" -B "$V" "$m"
	if "$LOAD" -B "$V" -o "$WORK/$n.cat" "$m"; then
		check "kernel: verify --strict accepts vmlinux + $n" "$BTFC" verify --strict "$WORK/$n.cat"
	fi
done < "$WORK/mods"
