#!/usr/bin/env bash
# Hostile-input run: deterministic mutations (bit flips, byte runs,
# truncations, zeroed ranges, corrupted ELF/section headers, corrupted
# BTF headers) of real modules from the Debian corpus and of compiled
# fixtures, each run through btfc with a timeout:
#   ELF inputs:  btfc dwarf --stats, btfc encode -o (split on vmlinux for modules)
#   BTF inputs:  btfc dump, btfc verify --strict, btfc dump --format c
# Counted: runs, crashes (exit >= 128 other than the timeout, or a
# sanitizer report), hangs (timeout), inputs modified, outputs left
# behind by a failed encode, and distinct error messages (numbers and
# paths masked).  Exit 1 on any crash, hang or modification.
#
#   MUTATIONS=N   number of mutated inputs (default 10000)
#   MUT_SEED=S    seed (default 1): same seed, same inputs
#   MUT_TIMEOUT=S per-run timeout in seconds (default 30)
#   MUT_JOBS=N    parallel runs (default nproc)
#   --fixtures-only  no corpus modules (the fast subset in the test suite)
#   KEEP=DIR      copy crashing/hanging inputs to DIR
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BTFC=${BTFC:-build/btfc}
BTFC=$(cd "$(dirname "$BTFC")" && pwd)/$(basename "$BTFC")
N=${MUTATIONS:-10000}
SEED=${MUT_SEED:-1}
TMO=${MUT_TIMEOUT:-30}
JOBS=${MUT_JOBS:-$(nproc)}
fixtures_only=0
[ "${1:-}" = --fixtures-only ] && fixtures_only=1
W=$(mktemp -d "${TMPDIR:-/tmp}/btfc-mutate.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/src"

# Sources: fixtures (several compilers/options) and their BTF; corpus modules.
i=0
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for f in types layout; do
		for o in "-gdwarf-4 -O0" "-gdwarf-5 -O2" "-gdwarf-4 -fdebug-types-section" "-g -gz=zlib"; do
			i=$((i + 1))
			$cc $o -c tests/fixtures/$f.c -o "$W/src/e$i.o" 2>/dev/null || continue
			"$BTFC" encode -j1 "$W/src/e$i.o" -o "$W/src/b$i.btf" 2>/dev/null || rm -f "$W/src/b$i.btf"
		done
	done
done
base=
if [ $fixtures_only = 0 ] && C=$(scripts/corpus.sh 2>/dev/null); then
	# Small-to-mid modules (a mutation run each must stay short), every k-th.
	awk 'NR % 23 == 3' "$C/modules.txt" | while read -r m; do
		s=$(stat -c %s "$m"); [ "$s" -lt 1500000 ] && echo "$m"; done | head -40 > "$W/mods"
	k=0; while read -r m; do k=$((k + 1)); cp "$m" "$W/src/m$k.ko"
		cp "$C/btf/$(basename "$m").btf" "$W/src/mb$k.btf" 2>/dev/null ||
			"$BTFC" encode -j1 --base "$C/vmlinux.btf" "$m" -o "$W/src/mb$k.btf" 2>/dev/null
	done < "$W/mods"
	base=$C/vmlinux.btf
	[ -f "$base" ] || base=
fi
ls "$W/src" > "$W/srclist"
nsrc=$(wc -l < "$W/srclist")
echo "mutate: $N mutations of $nsrc inputs, seed $SEED, timeout ${TMO}s, $JOBS jobs${base:+, modules on $base}"

# One mutation: python writes the mutated file (deterministic in (seed, k)).
cat > "$W/mut.py" <<'EOF'
import random, struct, sys
seed, srcdir, srclist, rundir, lo, hi = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
srcs = open(srclist).read().split()
cache = {}
def mutate(k):
  global b, n, elf, r
  src = srcs[(k * 7919 + seed) % len(srcs)]
  if src not in cache:
    cache[src] = open(srcdir + "/" + src, "rb").read()
  r = random.Random(seed * 1000003 + k)
  b = bytearray(cache[src])
  n = len(b)
  elf = b[:4] == b"\x7fELF"
  def shdrs():
      if not elf or b[4] != 2 or n < 64:
          return []
      shoff, = struct.unpack_from("<Q", b, 0x28)
      shnum, = struct.unpack_from("<H", b, 0x3c)
      return [shoff + 64 * i for i in range(shnum) if shoff + 64 * i + 64 <= n]
  def sec_range(name_filter=None):
      hs = shdrs()
      if not hs:
          return 0, n
      h = r.choice(hs)
      off, size = struct.unpack_from("<QQ", b, h + 24)
      if off >= n or size == 0:
          return 0, n
      return off, min(n, off + size)
  ops = ["flip", "flip", "bytes", "trunc", "zero", "shdr", "ehdr", "int", "insec", "insec"]
  if not elf:
      ops = ["flip", "flip", "bytes", "trunc", "zero", "btfhdr", "int", "int", "int"]
  for _ in range(r.choice([1, 1, 1, 2, 3, 8])):
      op = r.choice(ops)
      if n == 0:
          break
      if op == "flip":
          i = r.randrange(n); b[i] ^= 1 << r.randrange(8)
      elif op == "bytes":
          i = r.randrange(n)
          for j in range(i, min(n, i + r.randrange(1, 16))):
              b[j] = r.randrange(256)
      elif op == "trunc":
          del b[r.randrange(n):]; n = len(b)
      elif op == "zero":
          i = r.randrange(n); del_n = r.randrange(1, 4096)
          b[i:i + del_n] = bytes(len(b[i:i + del_n]))
      elif op == "int":
          i = r.randrange(max(1, n - 4)) & ~3
          v = r.choice([0, 1, 0x7fffffff, 0xffffffff, 0x80000000, 0xffff, 0x10000, r.randrange(1 << 32)])
          if i + 4 <= n:
              struct.pack_into("<I", b, i, v)
      elif op == "insec":
          lo, hi = sec_range()
          if hi > lo:
              i = r.randrange(lo, hi)
              b[i] = r.choice([0, 0xff, 0x80, b[i] ^ (1 << r.randrange(8)), r.randrange(256)])
      elif op == "shdr":
          hs = shdrs()
          if hs:
              h = r.choice(hs)
              field = r.choice([(0, "I"), (4, "I"), (8, "Q"), (24, "Q"), (32, "Q"), (40, "I"), (44, "I"), (48, "Q"), (56, "Q")])
              v = r.choice([0, 1, 0xffffffff, 1 << 40, r.randrange(1 << 32), n, n + 1])
              struct.pack_into("<" + field[1], b, h + field[0], v & ((1 << 64) - 1 if field[1] == "Q" else 0xffffffff))
              if r.random() < 0.2 and len(hs) > 1:   # swap two section headers
                  h2 = r.choice(hs)
                  b[h:h + 64], b[h2:h2 + 64] = b[h2:h2 + 64], b[h:h + 64]
      elif op == "ehdr":
          off = r.choice([4, 5, 16, 18, 0x28, 0x3a, 0x3c, 0x3e])
          b[off] = r.randrange(256)
      elif op == "btfhdr":
          if n >= 24:
              off = r.choice([2, 3, 4, 8, 12, 16, 20])
              struct.pack_into("<I" if off >= 4 else "<B", b, off,
                               r.choice([0, 1, 0xffffffff, n, n + 4, r.randrange(1 << 32)]) if off >= 4 else r.randrange(256))
  import os
  os.makedirs(f"{rundir}/{k}", exist_ok=True)
  open(f"{rundir}/{k}/in", "wb").write(b)
  open(f"{rundir}/{k}/src", "w").write(src)
for k in range(lo, hi + 1):
  mutate(k)
EOF

# One job: mutate input k and run the commands; print one result line per run:
#   RC <code> <cmd>          and   MSG <masked first stderr line>
cat > "$W/one.sh" <<'EOF'
#!/usr/bin/env bash
k=$1; W=$2; BTFC=$3; TMO=$4; SEED=$5; base=$6
d=$W/run/$k
[ -f "$d/in" ] || exit 0
src=$(cat "$d/src")
sum=$(md5sum < "$d/in")
run() { # run NAME CMD...
	local name=$1 rc; shift
	timeout -k 5 "$TMO" "$@" > /dev/null 2> "$d/err"; rc=$?; LAST_RC=$rc
	local kind=ok
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then kind=HANG
	elif [ $rc -ge 128 ] || grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$d/err"; then kind=CRASH
	fi
	echo "RC $kind $rc $name $k $src"
	[ -s "$d/err" ] && echo "MSG $(grep -m1 '^btfc:' "$d/err" | sed -E "s#$d/?##g; s#0x[0-9a-fA-F]+#N#g; s#[0-9]+#N#g; s#'[^']*'#'S'#g" | cut -c1-160)"
	if [ $kind != ok ] && [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$d/in" "$KEEP/$kind-$k-$src"; fi
}
case $src in
*.btf)
	bb=; case $src in mb*) [ -n "$base" ] && bb="--base $base";; esac
	run dump "$BTFC" dump $bb "$d/in"
	run verify "$BTFC" verify --strict $bb "$d/in"
	# Output is proportional to claimed sizes (a 4 GiB struct gap is 33M
	# padding lines, as with bpftool): read the first 16 MiB, as a pager would.
	run dump-c bash -c 'trap "" PIPE; "$@" | head -c 16M > /dev/null; exit ${PIPESTATUS[0]}' _ \
		"$BTFC" dump --format c $bb "$d/in"
	;;
*)
	bb=; case $src in m*.ko) [ -n "$base" ] && bb="--base $base";; esac
	run dwarf "$BTFC" dwarf --stats -j1 "$d/in"
	run encode "$BTFC" encode -j1 $bb "$d/in" -o "$d/out.btf"
	# A failed encode leaves no output; a successful one always writes it.
	if [ "$LAST_RC" != 0 ] && [ -e "$d/out.btf" ]; then echo "RC LEFTOVER 0 encode $k $src"; fi
	if [ "$LAST_RC" = 0 ] && [ ! -s "$d/out.btf" ]; then echo "RC LEFTOVER 0 exit-0-without-output $k $src"; fi
	ls "$d" | grep -Eq '\.[A-Za-z0-9]{6}$' && echo "RC LEFTOVER 0 tempfile $k $src"
	;;
esac
[ "$(md5sum < "$d/in")" = "$sum" ] || echo "RC MODIFIED 0 input $k $src"
rm -rf "$d"
EOF
chmod +x "$W/one.sh"
mkdir -p "$W/run"
t0=$(date +%s)
# Batches of 500: mutate (one python process), then run them in parallel.
: > "$W/results"
for ((lo = 1; lo <= N; lo += 500)); do
	hi=$((lo + 499)); [ $hi -le "$N" ] || hi=$N
	python3 "$W/mut.py" "$SEED" "$W/src" "$W/srclist" "$W/run" $lo $hi || { echo "mutate: mut.py failed"; exit 2; }
	seq $lo $hi | xargs -P "$JOBS" -I{} "$W/one.sh" {} "$W" "$BTFC" "$TMO" "$SEED" "$base" >> "$W/results" 2>/dev/null
done
t1=$(date +%s)

runs=$(grep -c '^RC ' "$W/results")
crash=$(grep -c '^RC CRASH' "$W/results")
hang=$(grep -c '^RC HANG' "$W/results")
mod=$(grep -c '^RC MODIFIED' "$W/results")
left=$(grep -c '^RC LEFTOVER' "$W/results")
failed=$(grep -Ec '^RC ok [1-9]' "$W/results")
msgs=$(grep '^MSG ' "$W/results" | sort -u | wc -l)
grep -E '^RC (CRASH|HANG|MODIFIED|LEFTOVER)' "$W/results" | head -20
if [ -n "${MUT_MESSAGES:-}" ]; then
	grep '^MSG ' "$W/results" | sort | uniq -c | sort -rn > "$MUT_MESSAGES"
fi
echo "mutate: $N inputs, $runs runs in $((t1 - t0)) s: $crash crashes, $hang hangs, $mod inputs modified, $left outputs left behind, $failed runs exited with an error, $msgs distinct error messages"
[ $((crash + hang + mod + left)) -eq 0 ]
