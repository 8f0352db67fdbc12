#!/usr/bin/env bash
# The command line as a user and a script meet it (issue #39): the version
# (point 1), stdout checked at exit (5), '-' and JSON and exit codes (7),
# messages (8).
#   1. btfc --version: btfc's version (scripts/version.sh) and the pahole
#      version claimed; `pahole --version` stays exactly vX.YY.
#   5. every command into /dev/full exits 2 with one message.
#   7. - reads stdin / writes stdout where it makes sense and is refused in
#      one line where not; -o - creates no file named -; --format json of
#      verify, diff, relocate, layout and list is one JSON document; every
#      --help states the exit codes; btfc list and btfc dump id N agree with
#      bpftool (skipped without permission for bpf(2)).
#   8. one prefix per program name; usage errors are one line naming
#      --help; notes and errors name their file; a wrong base gets a hint;
#      btfc help CMD = btfc CMD --help.
. "$(dirname "$0")/lib.sh"
SRC=$ROOT/tests/fixtures
P=$WORK/bin/pahole
mkdir -p "$WORK/bin" && ln -sf "$BTFC" "$P"
cmds="encode relocate dwarf dump list verify convert layout dedup diff pahole"

# one_line NAME PATTERN CMD...: CMD exits 2 with exactly one stderr line
# matching PATTERN and nothing on stdout.
one_line() {
	local name=$1 pat=$2 rc; shift 2
	"$@" > "$WORK/o.out" 2> "$WORK/o.err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$WORK/o.err")" -eq 1 ] && [ ! -s "$WORK/o.out" ] &&
	   grep -Eq -- "$pat" "$WORK/o.err"; then pass "$name"
	else fail "$name (rc=$rc)"; sed 's/^/      /' "$WORK/o.err" | head -5; fi
}
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

gcc -g -O1 -c "$SRC/types.c" -o "$WORK/types.o" || { fail "cli: fixture build"; exit 0; }
gcc -g -O0 -c "$SRC/layout.c" -o "$WORK/layout.o" || { fail "cli: fixture build"; exit 0; }
"$BTFC" encode "$WORK/types.o" -o "$WORK/types.btf" || fail "cli: encode fixture"
"$BTFC" encode "$WORK/layout.o" --base "$WORK/types.btf" -o "$WORK/split.btf" || fail "cli: encode split"
cp "$WORK/layout.o" "$WORK/dist.o"
"$BTFC" encode --distilled-base --base "$WORK/types.btf" "$WORK/dist.o" || fail "cli: encode distilled"

# ---- 1. versions ------------------------------------------------------------
want=$(sh "$ROOT/scripts/version.sh")
got=$("$BTFC" --version | head -1)
if [ "$got" = "btfc $want" ] || { [ -n "${BTFC_VERSION:-}" ] && [ "$got" = "btfc $BTFC_VERSION" ]; }; then
	pass "btfc --version: $got"
else fail "btfc --version says '$got', scripts/version.sh '$want'"; fi
echo "$want" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+' && pass "version starts with VERSION's X.Y.Z" ||
	fail "version '$want'"
[ "$("$BTFC" --version | sed -n 2p)" = "as pahole: v1.31" ] && pass "btfc --version names the pahole claim" ||
	fail "btfc --version's pahole line: $("$BTFC" --version | sed -n 2p)"
[ "$(BTFC_PAHOLE_VERSION=1.24 "$BTFC" --version | sed -n 2p)" = "as pahole: v1.24 (BTFC_PAHOLE_VERSION)" ] &&
	pass "btfc --version follows BTFC_PAHOLE_VERSION" || fail "btfc --version with BTFC_PAHOLE_VERSION=1.24"
for v in "":v1.31 1.24:v1.24 1.30:v1.30 1.31:v1.31; do
	out=$(BTFC_PAHOLE_VERSION=${v%%:*} "$P" --version | od -c | head -2)
	exp=$(printf '%s\n' "${v#*:}" | od -c | head -2)
	[ "$out" = "$exp" ] && pass "pahole --version is exactly ${v#*:} (BTFC_PAHOLE_VERSION='${v%%:*}')" ||
		fail "pahole --version with BTFC_PAHOLE_VERSION='${v%%:*}'"
done

# ---- 5. a lost write to stdout ----------------------------------------------
full() { # NAME CMD...: into /dev/full: exit 2, "writing standard output" / "writing failed"
	local name=$1 rc; shift
	"$@" > /dev/full 2> "$WORK/full.err"; rc=$?
	if [ $rc -eq 2 ] && grep -Eq 'writing standard output|standard output|writing failed' "$WORK/full.err" &&
	   [ "$(wc -l < "$WORK/full.err")" -le 2 ]; then pass "stdout /dev/full: $name"
	else fail "stdout /dev/full: $name (rc=$rc)"; head -3 "$WORK/full.err" | sed 's/^/      /'; fi
}
for c in $cmds; do full "$c --help" "$BTFC" $c --help; done
full "btfc --help" "$BTFC" --help
full "btfc --version" "$BTFC" --version
full "dump raw" "$BTFC" dump "$WORK/types.btf"
full "dump json" "$BTFC" dump --format json "$WORK/types.btf"
full "dump c" "$BTFC" dump --format c "$WORK/types.btf"
full "verify" "$BTFC" verify "$WORK/types.btf"
full "verify json" "$BTFC" verify --format json "$WORK/types.btf"
full "diff" "$BTFC" diff "$WORK/types.btf" "$WORK/types.btf"
full "layout" "$BTFC" layout "$WORK/types.btf"
full "layout -F dwarf -C" "$BTFC" layout -F dwarf -C holes "$WORK/layout.o"
full "dwarf" "$BTFC" dwarf "$WORK/types.o"
full "dwarf --stats" "$BTFC" dwarf --stats "$WORK/types.o"
full "relocate" "$BTFC" relocate "$WORK/dist.o" --base "$WORK/types.btf"
full "encode -o -" "$BTFC" encode "$WORK/types.o" -o -
full "convert -o -" "$BTFC" convert "$WORK/types.btf" -o -
full "dedup -o -" "$BTFC" dedup "$WORK/types.btf" -o -
full "pahole --version" "$P" --version
full "pahole -C" "$P" -C holes "$WORK/layout.o"
full "pahole -J --btf_encode_detached=-" "$P" -J --btf_encode_detached=- "$WORK/types.o"
if "$BTFC" list > /dev/null 2>&1; then full "list" "$BTFC" list; else skip "stdout /dev/full: list (bpf(2) not permitted)"; fi

# ---- 7. -, JSON, exit codes --------------------------------------------------
mkdir -p "$WORK/cwd"
( cd "$WORK/cwd" && "$BTFC" encode "$WORK/types.o" -o - > "$WORK/stdout.btf" &&
  "$BTFC" convert "$WORK/types.btf" -o - > "$WORK/conv.btf" &&
  "$BTFC" dedup "$WORK/types.btf" -o - > "$WORK/dedup.btf" &&
  "$P" -J --btf_encode_detached=- "$WORK/types.o" > "$WORK/pahole-stdout.btf" ) &&
	[ ! -e "$WORK/cwd/-" ] && cmp -s "$WORK/stdout.btf" "$WORK/types.btf" &&
	cmp -s "$WORK/conv.btf" "$WORK/types.btf" && [ -s "$WORK/dedup.btf" ] && [ -s "$WORK/pahole-stdout.btf" ] &&
	pass "-o - writes stdout (encode, convert, dedup, pahole), no file named -" ||
	fail "-o -: $(ls "$WORK/cwd")"
"$BTFC" dump - < "$WORK/types.btf" > "$WORK/d1.txt" && "$BTFC" dump "$WORK/types.btf" > "$WORK/d2.txt" &&
	cmp -s "$WORK/d1.txt" "$WORK/d2.txt" && pass "dump - reads stdin" || fail "dump -"
"$BTFC" verify - < "$WORK/types.btf" | grep -q '^-: OK' && pass "verify - reads stdin" || fail "verify -"
"$BTFC" diff - "$WORK/types.btf" < "$WORK/types.btf" | grep -q '^EQUAL' && pass "diff - B reads stdin" ||
	fail "diff - B"
"$BTFC" layout holes - < "$WORK/layout.o" > /dev/null 2>&1 && fail "layout of an ELF on stdin accepted" ||
	pass "layout: an ELF on stdin is refused"
"$BTFC" encode "$WORK/layout.o" -o "$WORK/lay.btf" && "$BTFC" layout holes - < "$WORK/lay.btf" | grep -q '^struct holes {' &&
	pass "layout TYPE - reads raw BTF from stdin" || fail "layout TYPE -"
"$BTFC" dump "$WORK/split.btf" --base - < "$WORK/types.btf" | grep -q . && pass "--base - reads stdin" ||
	fail "--base -"
one_line "encode - is refused in one line" "an ELF is read from a path" "$BTFC" encode -
one_line "dwarf - is refused in one line" "an ELF is read from a path" "$BTFC" dwarf -
one_line "diff - - is refused in one line" "only one of A and B" "$BTFC" diff - -
one_line "encode batch -o - is refused in one line" "-o - takes one input" \
	"$BTFC" encode "$WORK/types.o" "$WORK/layout.o" -o -
one_line "encode --memory-budget 0 is refused in one line" "bad --memory-budget" \
	"$BTFC" encode --memory-budget 0 "$WORK/types.o" "$WORK/layout.o" -o "$WORK"
for c in $cmds; do
	"$BTFC" $c --help 2>&1 | grep -q 'Exit status' && pass "$c --help states the exit codes" ||
		fail "$c --help: no exit codes"
done
"$BTFC" --help | grep -q 'Exit status' && pass "btfc --help states the exit codes" || fail "btfc --help exit codes"
"$BTFC" verify --format json "$WORK/types.btf" > "$WORK/v.json"; rc=$?
[ $rc -eq 0 ] && json_ok "$WORK/v.json" && grep -q '"ok":true' "$WORK/v.json" &&
	pass "verify --format json: one document" || fail "verify --format json (rc=$rc)"
"$BTFC" verify --format json "$WORK/split.btf" --base "$WORK/layout.o" > "$WORK/v2.json" 2>/dev/null; rc=$?
{ [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && { [ $rc -eq 2 ] || json_ok "$WORK/v2.json"; } &&
	pass "verify --format json on a wrong base: findings or an error (rc=$rc)" || fail "verify json, wrong base (rc=$rc)"
"$BTFC" diff --format json "$WORK/types.btf" "$WORK/lay.btf" > "$WORK/d.json"; rc=$?
[ $rc -eq 1 ] && json_ok "$WORK/d.json" && grep -q '"equal":false' "$WORK/d.json" &&
	pass "diff --format json: one document, exit 1 when different" || fail "diff --format json (rc=$rc)"
"$BTFC" relocate "$WORK/dist.o" --base "$WORK/types.btf" --format json > "$WORK/r.json"; rc=$?
[ $rc -eq 0 ] && json_ok "$WORK/r.json" && grep -q '"relocates":true' "$WORK/r.json" &&
	pass "relocate --format json: one document" || fail "relocate --format json (rc=$rc)"
echo 'struct only_this { long x; } only_this;' > "$WORK/tiny.c"
gcc -g -c "$WORK/tiny.c" -o "$WORK/tiny.o" && "$BTFC" encode "$WORK/tiny.o" -o "$WORK/tiny.btf"
"$BTFC" relocate "$WORK/dist.o" --base "$WORK/tiny.btf" --format json > "$WORK/r2.json"; rc=$?
[ $rc -eq 1 ] && json_ok "$WORK/r2.json" && grep -q '"relocates":false' "$WORK/r2.json" &&
	pass "relocate --format json onto another base: relocates false, exit 1" || fail "relocate json, other base (rc=$rc)"
"$BTFC" layout --format json holes bits packed "$WORK/lay.btf" > "$WORK/l.json" &&
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert [o["name"] for o in a]==["holes","bits","packed"]' "$WORK/l.json" &&
	pass "layout --format json of several types: one array" || fail "layout --format json array"
if "$BTFC" list > "$WORK/list.txt" 2> "$WORK/list.err"; then
	"$BTFC" list --format json > "$WORK/list.json" && json_ok "$WORK/list.json" &&
		pass "list --format json: one document" || fail "list --format json"
	if have bpftool; then
		bpftool btf list | sed -nE 's/^([0-9]+): name ([^ ]+) +size ([0-9]+B).*/\1: name \2  size \3/p' > "$WORK/bt.txt"
		cmp -s "$WORK/bt.txt" "$WORK/list.txt" && pass "btfc list = bpftool btf list (id, name, size)" ||
			{ fail "btfc list differs from bpftool btf list"; diff "$WORK/bt.txt" "$WORK/list.txt" | head -5; }
	fi
	vid=$(awk -F: '/name \[vmlinux\]/ {print $1; exit}' "$WORK/list.txt")
	if [ -n "$vid" ]; then
		"$BTFC" dump id "$vid" > "$WORK/id.txt" && "$BTFC" dump /sys/kernel/btf/vmlinux > "$WORK/sys.txt" &&
			cmp -s "$WORK/id.txt" "$WORK/sys.txt" && pass "dump id $vid = dump /sys/kernel/btf/vmlinux" ||
			fail "dump id $vid"
	fi
	mid=$(awk -F: '/name \[/ && !/\[vmlinux\]/ {print $1; exit}' "$WORK/list.txt")
	if [ -n "$mid" ] && have bpftool; then
		"$BTFC" dump id "$mid" > "$WORK/mid.txt" && bpftool btf dump id "$mid" > "$WORK/mid-bt.txt" &&
			cmp -s "$WORK/mid.txt" "$WORK/mid-bt.txt" && pass "dump id $mid (a module's, split) = bpftool's" ||
			fail "dump id $mid (module)"
	fi
	one_line "dump id of no object: one line" "BTF id 4000000000" "$BTFC" dump id 4000000000
else
	skip "list / dump id: bpf(2) not permitted here ($(head -1 "$WORK/list.err"))"
fi

# ---- 8. messages ---------------------------------------------------------------
one_line "encode --foo: one line naming --help" "^btfc: encode: unknown option '--foo' \(see 'btfc encode --help'\)$" \
	"$BTFC" encode --foo
one_line "dump x --format: needs an argument" "^btfc: dump: '--format' needs an argument" "$BTFC" dump x --format
one_line "layout --compat 2: one line" "see 'btfc layout --help'" "$BTFC" layout --compat 2
one_line "relocate without --base: one line" "see 'btfc relocate --help'" "$BTFC" relocate "$WORK/dist.o"
one_line "unknown command: one line" "^btfc: unknown command 'frob' \(see 'btfc --help'\)$" "$BTFC" frob
one_line "pahole --frob: pahole's prefix" "^pahole: unrecognized option '--frob' \(see 'pahole --help'\)$" "$P" --frob
one_line "layout: a missing type names the file" \
	"^btfc: $WORK/lay.btf: type 'nonexist' not found$" "$BTFC" layout nonexist "$WORK/lay.btf"
one_line "pahole: a missing type, pahole's prefix" "^pahole: $WORK/lay.btf: type 'nonexist' not found$" \
	"$P" -C nonexist "$WORK/lay.btf"
one_line "layout: a path that is not there is a file, not a type" \
	"^btfc: vmlinux\.missing: No such file or directory$" "$BTFC" layout task_struct vmlinux.missing
one_line "encode of a missing file names it" "^btfc: $WORK/nope\.o: " "$BTFC" encode "$WORK/nope.o"
"$BTFC" help encode > "$WORK/h1.txt"; "$BTFC" encode --help > "$WORK/h2.txt"
cmp -s "$WORK/h1.txt" "$WORK/h2.txt" && pass "btfc help encode = btfc encode --help" || fail "btfc help encode"
"$BTFC" help > /dev/null && pass "btfc help" || fail "btfc help"
# notes name their file, alone and in a batch
"$BTFC" encode -v "$WORK/types.o" -o "$WORK/v.btf" 2> "$WORK/notes.err"
n=$(grep -c . "$WORK/notes.err"); k=$(grep -c "^btfc: $WORK/types\.o: " "$WORK/notes.err")
[ "$n" -gt 0 ] && [ "$n" = "$k" ] && pass "encode -v: every note names the file ($n)" ||
	{ fail "encode -v notes: $k of $n name the file"; head -3 "$WORK/notes.err"; }
cp "$WORK/types.o" "$WORK/t2.o"
"$BTFC" encode -v "$WORK/types.o" "$WORK/t2.o" -o "$WORK" 2> "$WORK/bnotes.err"
n=$(grep -vc 'encoded [0-9]' "$WORK/bnotes.err"); k=$(grep -Ec "^btfc: $WORK/(types|t2)\.o: " "$WORK/bnotes.err")
[ "$n" -gt 0 ] && [ "$n" = "$k" ] && pass "encode -v batch: every note names its file ($n)" ||
	{ fail "batch notes: $k of $n name a file"; head -3 "$WORK/bnotes.err"; }
"$P" -J -V --btf_encode_detached="$WORK/pv.btf" "$WORK/types.o" > /dev/null 2> "$WORK/pnotes.err"
! grep -v "^pahole: " "$WORK/pnotes.err" | grep -q . && pass "pahole -V notes: pahole's prefix" ||
	{ fail "pahole -V notes"; head -3 "$WORK/pnotes.err"; }
# a split BTF on the wrong base: one line with a hint; verify's findings too
one_line "split BTF on a wrong base: the hint" "is $WORK/lay.btf the base it was built on" \
	"$BTFC" dump "$WORK/split.btf" --base "$WORK/lay.btf"
one_line "split BTF without its base: say --base" "give its base with --base" "$BTFC" dump "$WORK/split.btf"
"$BTFC" verify "$WORK/split.btf" --base "$WORK/lay.btf" > /dev/null 2> "$WORK/vh.err"
grep -q "may mean $WORK/lay.btf is not the base it was built on" "$WORK/vh.err" &&
	pass "verify on a wrong base: the hint" || { fail "verify wrong-base hint"; cat "$WORK/vh.err"; }
