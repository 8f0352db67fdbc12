#!/usr/bin/env bash
# Debian's own debug packages through the encoder (issue #40; make
# check-kernel runs it): libc6-dbg, and dwz-compressed -dbg packages whose
# files name an alternate file by an absolute /usr/lib/debug/.dwz path
# (found under the unpacked tree).  Every debug file encodes, with output
# that passes verify --strict, or fails with one clear line (exit 1-127,
# one line on stderr); nothing crashes or hangs.  Prints a line per
# package and the totals; exit 1 on any other outcome.
#
#   BTFC_DEBPKGS  where the packages are downloaded (apt-get download) and
#                 unpacked; default /var/tmp/btfc-debpkgs, kept between runs
#   DEBPKGS       the packages (default below)
# Without network access and no packages already there: skipped.
set -u
cd "$(dirname "$0")/.."
BTFC=${BTFC:-build/btfc}
D=${BTFC_DEBPKGS:-/var/tmp/btfc-debpkgs}
PKGS=${DEBPKGS:-libc6-dbg binutils-x86-64-linux-gnu-dbg libbinutils-dbg libctf0-dbg}
mkdir -p "$D/x" || exit 1
W=$(mktemp -d "${TMPDIR:-/tmp}/btfc-debpkgs.XXXXXX"); trap 'rm -rf "$W"' EXIT
fails=0
for p in $PKGS; do
	if ! ls "$D"/${p}_*.deb >/dev/null 2>&1; then
		(cd "$D" && timeout 300 apt-get download "$p" >/dev/null 2>&1) || true
	fi
	deb=$(ls "$D"/${p}_*.deb 2>/dev/null | tail -1)
	if [ -z "$deb" ]; then echo "skip $p: not downloaded (apt-get download failed)"; continue; fi
	if [ ! -d "$D/x/$p" ]; then
		mkdir -p "$D/x/$p" && dpkg-deb -x "$deb" "$D/x/$p" || { echo "FAIL $p: cannot unpack"; fails=$((fails+1)); continue; }
	fi
	n=0; ok=0; refused=0; bad=0; dwz=0
	: > "$W/reasons"
	# every ELF debug file but the dwz alternate files themselves
	while IFS= read -r f; do
		head -c4 "$f" 2>/dev/null | grep -q 'ELF' || continue
		n=$((n+1))
		readelf -S "$f" 2>/dev/null | grep -q gnu_debugaltlink && dwz=$((dwz+1))
		timeout 120 "$BTFC" encode -j1 "$f" -o "$W/out.btf" > "$W/out" 2> "$W/err"; rc=$?
		if [ $rc = 0 ]; then
			if "$BTFC" verify --strict "$W/out.btf" > "$W/v" 2>&1; then ok=$((ok+1))
			else bad=$((bad+1)); echo "     output does not verify: $f: $(head -1 "$W/v")"; fi
		elif [ $rc -lt 124 ] && [ "$(wc -l < "$W/err")" = 1 ]; then
			refused=$((refused+1))
			sed -e "s|^btfc: $f: ||" -e 's/0x[0-9a-f]*/0x../g' "$W/err" >> "$W/reasons"
		else
			bad=$((bad+1)); echo "     rc=$rc on $f: $(head -3 "$W/err" | tr '\n' ' ')"
		fi
		rm -f "$W/out.btf"
	done < <(find "$D/x/$p/usr/lib/debug" -type f ! -path '*/.dwz/*' 2>/dev/null | sort)
	echo "     $p: $n files ($dwz with a dwz alternate file): $ok encoded and verified, $refused refused in one line, $bad otherwise"
	sort "$W/reasons" | uniq -c | sort -rn | head -5 | sed 's/^/       refused: /'
	if [ $n = 0 ] || [ $bad != 0 ]; then fails=$((fails+1)); echo "FAIL $p"; else echo "ok   $p"; fi
done
echo "check-kernel-debpkgs: $fails failures"
[ $fails = 0 ]
