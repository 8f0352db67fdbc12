# Sourced by tests/t_*.sh.  Each check calls pass/fail/skip with a name;
# results are appended to $RESULTS so run.sh can total them.
set -u
: "${BTFC:?BTFC must point at the btfc binary}"
: "${RESULTS:=/dev/null}"
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$TESTS_DIR/.." && pwd)
BTFC=$(cd "$(dirname "$BTFC")" && pwd)/$(basename "$BTFC")
# A test's scratch directory, removed when the test exits (KEEP_WORK=1 keeps
# it and says where; a WORK given by the caller is the caller's to remove).
if [ -z "${WORK:-}" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/btfc-test.XXXXXX")
	if [ -n "${KEEP_WORK:-}" ]; then
		trap 'echo "  (kept $WORK)"' EXIT
	else
		trap 'rm -rf "$WORK"' EXIT
	fi
fi
mkdir -p "$WORK"

# The project's shared oracles (btfcanon.py, pahole 1.31's recorded outputs)
# when this repository sits next to them; every test runs without them,
# comparing with btfc diff or skipping those checks.
SHARED=${BTFC_SHARED:-$ROOT/../shared}
[ -d "$SHARED" ] || SHARED=/work/shared
CANON_PY=$SHARED/tools/btfcanon.py

pass() { echo "pass $*" >> "$RESULTS"; [ -n "${VERBOSE:-}" ] && echo "  ok   $*"; return 0; }
fail() { echo "fail $*" >> "$RESULTS"; echo "  FAIL $*"; return 0; }
skip() { echo "skip $*" >> "$RESULTS"; echo "  skip $*"; return 0; }

# check NAME CMD...: passes when CMD exits 0.
check() {
	local name=$1; shift
	if "$@" > "$WORK/last.out" 2>&1; then pass "$name"; else
		fail "$name"; sed 's/^/      /' "$WORK/last.out" | head -20; fi
}
# check_fails NAME PATTERN CMD...: CMD must exit non-zero (not by a signal)
# and print PATTERN (grep -E) on stderr/stdout.
check_fails() {
	local name=$1 pat=$2 rc; shift 2
	"$@" > "$WORK/last.out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -Eq -- "$pat" "$WORK/last.out"; then pass "$name"
	else fail "$name (rc=$rc)"; sed 's/^/      /' "$WORK/last.out" | head -10; fi
}
have() { command -v "$1" >/dev/null 2>&1; }
# SAN_QUICK=1 (the sanitizer run in CI): trim what only re-checks oracles.
quick() { [ -n "${SAN_QUICK:-}" ]; }
# OUT: tests/fixtures/types.c compiled six times (its globals renamed) and
# linked with ld -r: one object of six units that share most types.
multi_units_object() {
	local i
	for i in 1 2 3 4 5 6; do
		gcc -g -O1 -DPAHOLE_SAFE -Dvsum=vsum$i -Duse_all=use_all$i -Dglobal_counter=gc$i \
			-Dflex_ptr=fp$i -Dthe_union=tu$i -Dthe_anon=ta$i -Dthe_packed=tp$i \
			-Dthe_aligned=tal$i -Dthe_zero=tz$i -Dthe_ops=to$i \
			-c "$ROOT/tests/fixtures/types.c" -o "$WORK/multi-unit$i.o" || return 1
	done
	ld -r "$WORK"/multi-unit?.o -o "$1"
}
