#!/usr/bin/env bash
# What a distribution ships (issue #39, points 1-3): the licence and the
# version files agree; the man pages lint clean (mandoc -Tlint, man
# --warnings, lexgrog) and document every option of each command's --help;
# the bash completion completes; the Makefile honours CPPFLAGS, CFLAGS,
# LDFLAGS, WERROR=0, DESTDIR, PREFIX, BINDIR, LIBEXECDIR and MANDIR;
# `make install` and `make uninstall`; and debian/ builds a .deb with
# dpkg-buildpackage -us -uc -b that lintian passes without errors and
# whose btfc runs (skipped, with a message, without dpkg-buildpackage or
# debhelper: scripts/install-deps.sh installs them).
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1

# ---- 1. licence, versions -----------------------------------------------------
grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSE && grep -q 'Version 2, June 1991' LICENSE &&
	pass "LICENSE is the GPL version 2" || fail "LICENSE"
n=$(git ls-files 'src/*.c' 'src/*.h' 2>/dev/null | wc -l)
bad=$(git ls-files 'src/*.c' 'src/*.h' 2>/dev/null | xargs -r grep -L 'SPDX-License-Identifier: GPL-2.0-only' | head -3)
[ "$n" -gt 0 ] && [ -z "$bad" ] && pass "every source file says GPL-2.0-only ($n)" ||
	fail "sources without the GPL-2.0-only SPDX line: $bad"
v=$(cat VERSION)
dv=$(sed -n '1s/^btfc (\([^)]*\)).*/\1/p' debian/changelog)
cv=$(sed -n 's/^## \([0-9][0-9.]*\).*/\1/p' CHANGELOG.md | head -1)
[ "$v" = "$dv" ] && [ "$v" = "$cv" ] && pass "VERSION = debian/changelog = CHANGELOG.md's newest ($v)" ||
	fail "versions disagree: VERSION $v, debian/changelog $dv, CHANGELOG.md $cv"
sh scripts/version.sh | grep -q "^$v" && pass "scripts/version.sh starts with VERSION" || fail "scripts/version.sh"

# ---- 2. man pages and completion -------------------------------------------
cmds="encode relocate dwarf dump list verify convert layout dedup diff pahole"
have man || { skip "man pages: man-db not installed (scripts/install-deps.sh)"; }
if have mandoc; then
	out=$(mandoc -Tlint -Wwarning man/*.1 2>&1)
	[ -z "$out" ] && pass "mandoc -Tlint: every man page clean" || { fail "mandoc -Tlint"; echo "$out" | head -5; }
else
	skip "mandoc not installed (scripts/install-deps.sh): no mandoc -Tlint"
fi
if have man; then
	bad=0
	for f in man/*.1; do
		w=$(MANWIDTH=80 man --warnings=all -l "$f" 2>&1 > /dev/null)
		[ -z "$w" ] || { bad=$((bad + 1)); echo "      $f: $w" | head -2; }
		MANWIDTH=80 man -l "$f" 2>/dev/null | grep -q '^NAME' || bad=$((bad + 1))
	done
	[ $bad -eq 0 ] && pass "man -l --warnings: every man page renders clean" || fail "man -l: $bad pages"
fi
if have lexgrog; then
	bad=0
	for f in man/*.1; do lexgrog "$f" | grep -q ': "' || { bad=$((bad + 1)); echo "      lexgrog $f"; }; done
	[ $bad -eq 0 ] && pass "lexgrog reads every page's NAME" || fail "lexgrog: $bad pages"
fi
# every command has a page that names each long option of its --help
bad=0
for c in $cmds; do
	page=man/btfc-$c.1
	[ -f "$page" ] || { bad=$((bad + 1)); echo "      no $page"; continue; }
	txt=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page")
	for o in $("$BTFC" $c --help | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u); do
		case $o in --skip_encoding_btf_*|--suppress_*) continue ;; esac
		echo "$txt" | grep -q -- "$o" || { bad=$((bad + 1)); echo "      $page lacks $o"; }
	done
	grep -q "BR btfc\\\\-$c (1)" man/btfc.1 || { bad=$((bad + 1)); echo "      btfc.1 does not list btfc-$c(1)"; }
done
[ $bad -eq 0 ] && pass "a man page per command, naming every option of its --help" || fail "man pages vs --help: $bad"
bash -n completion/btfc.bash && pass "bash completion parses" || fail "bash completion syntax"
comp() { # WORDS...: what the completion offers for the last word
	bash -c '
		if [ -f /usr/share/bash-completion/bash_completion ]; then
			. /usr/share/bash-completion/bash_completion
		else	# the two helpers the completion uses
			_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]};
				words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
			_filedir() { COMPREPLY=($(compgen -f -- "$cur")); }
			compopt() { :; }
		fi
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_btfc; printf "%s\n" "${COMPREPLY[@]}"' _ "$ROOT/completion/btfc.bash" "$@" 2>/dev/null | sort | tr '\n' ' '
}
[ "$(comp btfc enc)" = "encode " ] && [ "$(comp btfc layout --comp)" = "--compat --compile " ] &&
	[ "$(comp btfc dump --format "")" = "c json raw " ] && [ "$(comp btfc help la)" = "layout " ] &&
	pass "bash completion: commands, options, option values" ||
	fail "bash completion: '$(comp btfc enc)' '$(comp btfc layout --comp)' '$(comp btfc dump --format "")'"

# ---- 3. the Makefile for packagers ------------------------------------------
mk=$(make -n -B O="$WORK/o" CPPFLAGS=-DBTFC_MARK_CPP CFLAGS="-O1 -g1" LDFLAGS=-Wl,--build-id=sha1 \
	"$WORK/o/btfc" 2>&1)
echo "$mk" | grep -q -- '-DBTFC_MARK_CPP.*-O1 -g1' && echo "$mk" | grep -E -- '-o [^ ]*/btfc ' |
	grep -q -- '-Wl,--build-id=sha1' && pass "Makefile: CPPFLAGS, CFLAGS, LDFLAGS reach the compile and link" ||
	fail "Makefile: CPPFLAGS/CFLAGS/LDFLAGS"
echo "$mk" | grep -q -- '-Werror' && ! make -n -B O="$WORK/o" WERROR=0 "$WORK/o/btfc" 2>&1 | grep -q -- '-Werror\b' &&
	pass "Makefile: -Werror by default, off with WERROR=0" || fail "Makefile: WERROR"
D=$WORK/destdir
if make -s -o "$(dirname "$BTFC")/btfc" install O="$(dirname "$BTFC")" DESTDIR="$D" PREFIX=/usr > "$WORK/install.log" 2>&1 &&
   [ -x "$D/usr/bin/btfc" ] && [ -f "$D/usr/share/man/man1/btfc.1" ] &&
   [ -f "$D/usr/share/man/man1/btfc-pahole.1" ] && [ -f "$D/usr/share/bash-completion/completions/btfc" ] &&
   [ -f "$D/usr/share/doc/btfc/README.md" ] && [ "$(readlink "$D/usr/libexec/btfc/pahole")" = ../../bin/btfc ] &&
   [ "$("$D/usr/libexec/btfc/pahole" --version)" = v1.31 ]; then
	pass "make install DESTDIR= PREFIX=/usr: binary, pahole link, man pages, completion, docs"
else fail "make install"; tail -3 "$WORK/install.log"; fi
if have man; then
	[ "$(PATH=$D/usr/libexec/btfc:$PATH man -w pahole 2>/dev/null)" = "$D/usr/libexec/btfc/man/man1/pahole.1" ] &&
		pass "man pahole with libexec/btfc in PATH: btfc-pahole(1)" || fail "man pahole under the libexec link"
fi
make -s uninstall O="$(dirname "$BTFC")" DESTDIR="$D" PREFIX=/usr > /dev/null 2>&1
left=$(find "$D" -type f -o -type l | head -3)
[ -z "$left" ] && pass "make uninstall removes what install put" || fail "make uninstall left: $left"
D=$WORK/destdir2
make -s -o "$(dirname "$BTFC")/btfc" install O="$(dirname "$BTFC")" DESTDIR="$D" PREFIX=/opt/b BINDIR=/usr/bin LIBEXECDIR=/usr/lib \
	MANDIR=/usr/share/man > /dev/null 2>&1 &&
	[ -x "$D/usr/bin/btfc" ] && [ -f "$D/usr/share/man/man1/btfc-encode.1" ] &&
	[ "$(readlink "$D/usr/lib/btfc/pahole")" = ../../bin/btfc ] && [ -f "$D/opt/b/share/doc/btfc/CHANGELOG.md" ] &&
	pass "make install BINDIR= LIBEXECDIR= MANDIR=: each where asked, the link relative" ||
	fail "make install BINDIR/LIBEXECDIR/MANDIR: $(cd "$D" && find . | head -5 | tr '\n' ' ')"

# ---- 3. the .deb ------------------------------------------------------------
if quick; then
	skip ".deb build (SAN_QUICK)"
elif ! have dpkg-buildpackage || ! dpkg-checkbuilddeps debian/control > "$WORK/deps" 2>&1; then
	skip ".deb build: dpkg-buildpackage or the build dependencies are missing ($(head -1 "$WORK/deps" 2>/dev/null)); run scripts/install-deps.sh"
elif ! git rev-parse --git-dir > /dev/null 2>&1; then
	skip ".deb build: not a git checkout (the tree is copied by git ls-files)"
else
	# a copy of the tree as committed plus local changes, without build/
	S=$WORK/deb/btfc; mkdir -p "$S"
	git ls-files -co --exclude-standard | grep -v '^build/' | tar -cf - -T - | tar -xf - -C "$S"
	t0=$(date +%s)
	if (cd "$S" && dpkg-buildpackage -us -uc -b > "$WORK/deb/build.log" 2>&1); then
		deb=$(ls "$WORK"/deb/btfc_*_*.deb 2>/dev/null | head -1)
		pass "dpkg-buildpackage -us -uc -b builds $(basename "$deb") ($(( $(date +%s) - t0 )) s)"
		if have lintian; then
			lintian --fail-on error "$WORK"/deb/btfc_*.changes > "$WORK/deb/lintian.log" 2>&1 &&
				pass "lintian: no errors ($(grep -c '^W:' "$WORK/deb/lintian.log") warnings)" ||
				{ fail "lintian errors"; grep '^E:' "$WORK/deb/lintian.log" | head -5; }
		else
			skip "lintian not installed (scripts/install-deps.sh)"
		fi
		dpkg-deb -x "$deb" "$WORK/deb/x"
		[ "$("$WORK/deb/x/usr/bin/btfc" --version | head -1)" = "btfc $v" ] &&
			[ "$("$WORK/deb/x/usr/libexec/btfc/pahole" --version)" = v1.31 ] &&
			[ -f "$WORK/deb/x/usr/share/man/man1/btfc-layout.1.gz" ] &&
			[ -f "$WORK/deb/x/usr/share/bash-completion/completions/btfc" ] &&
			pass "the .deb's btfc says $v, its pahole link v1.31, with man pages and completion" ||
			fail "the .deb's contents"
	else
		fail "dpkg-buildpackage"; tail -15 "$WORK/deb/build.log" | sed 's/^/      /'
	fi
fi

# ---- 9. the repository stands alone -------------------------------------------
# nothing fetches or needs the corpus from outside: check-kernel and bench
# get it through scripts/corpus.sh, which runs the repository's own fetch
# script; ../shared is only ever an optional oracle
refs=$(grep -rln 'shared/corpus' Makefile scripts bench tests 2>/dev/null | grep -v '^tests/t_dist.sh$')
[ -z "$refs" ] && [ -x scripts/fetch-debian-kernel.sh ] && sh -n scripts/fetch-debian-kernel.sh &&
	grep -q 'scripts/fetch-debian-kernel.sh' scripts/corpus.sh &&
	make -n check-kernel 2>/dev/null | grep -q 'scripts/check-kernel.sh' && grep -q 'scripts/corpus.sh' scripts/check-kernel.sh &&
	make -n bench 2>/dev/null | grep -q 'bench/run.sh' && grep -q 'scripts/corpus.sh' bench/run.sh &&
	pass "check-kernel and bench fetch the corpus with scripts/fetch-debian-kernel.sh" ||
	fail "the corpus comes from outside the repository: $refs"
# a copy of the tree with no ../shared beside it finds a present corpus, and
# says what to do about an absent one
S=$WORK/alone/btfc; mkdir -p "$S"
git ls-files -co --exclude-standard | grep -v '^build/' | tar -cf - -T - | tar -xf - -C "$S"
if [ -n "${BTFC_CORPUS:-}" ] || [ -d /var/tmp/btfc-corpus ]; then
	c1=$(BTFC_NO_FETCH=1 "$ROOT/scripts/corpus.sh" 2>/dev/null); c2=$(BTFC_NO_FETCH=1 "$S/scripts/corpus.sh" 2>/dev/null)
	[ "$c1" = "$c2" ] && pass "a standalone copy finds the same corpus ($c2)" || fail "standalone corpus lookup: '$c2'"
fi
BTFC_CORPUS=$WORK/none BTFC_NO_FETCH=1 "$S/scripts/corpus.sh" > /dev/null 2> "$WORK/nc.err"
grep -q 'not present' "$WORK/nc.err" && pass "no corpus: corpus.sh says so" || fail "corpus.sh without a corpus"
# tests leave no temp directory behind (the suite's own results and cache neither)
mkdir -p "$WORK/tmpd"
TMPDIR=$WORK/tmpd WORK= RESULTS=/dev/null bash "$ROOT/tests/t_cli.sh" > /dev/null 2>&1
left=$(ls -A "$WORK/tmpd")
[ -z "$left" ] && pass "a test removes its temp directory" || fail "temp left by tests/t_cli.sh: $left"
