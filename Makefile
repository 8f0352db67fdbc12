# btfc build.  `make` builds build/btfc; `make test` runs the suite;
# `make SAN=address,undefined test` the same under sanitizers (own build dir).
#
# For packagers: CPPFLAGS, CFLAGS, LDFLAGS (as dpkg-buildflags sets them)
# are honoured; CFLAGS replaces the default "-O2 -g"; WERROR=0 builds
# without -Werror (CI keeps it); DESTDIR, PREFIX, BINDIR, LIBEXECDIR,
# MANDIR, DOCDIR and BASHCOMPDIR place `make install`'s files.
# BTFC_VERSION overrides the version (default: `git describe` in a git
# checkout, else the VERSION file).
CC       ?= cc
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
DOCDIR   ?= $(DATADIR)/doc/btfc
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
SAN      ?=
OPT      ?= -O2
V        ?= 0
WERROR   ?= 1

comma := ,
ifeq ($(SAN),)
O ?= build
else
O ?= build/san-$(subst $(comma),-,$(SAN))
endif

PKGS        := libelf zlib libzstd
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lelf -lz -lzstd)

WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
            -Wshadow -Wformat=2 -Wvla -Wswitch-enum $(if $(filter 0 no,$(WERROR)),,-Werror)
CFLAGS   ?= $(OPT) -g
ALL_CFLAGS := -std=gnu11 $(CPPFLAGS) $(CFLAGS) $(WARN) -D_GNU_SOURCE -Isrc -Iinclude \
              $(PKG_CFLAGS) -fno-strict-aliasing -pthread -MMD -MP
ALL_LDFLAGS = $(LDFLAGS)
LDLIBS   := $(PKG_LIBS) -pthread -lm
ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all -DBTFC_CHECK_FILTER
ALL_LDFLAGS += -fsanitize=$(SAN)
LTO      :=
endif
# Link-time optimization (`make LTO=` builds without): the encoder's walk
# and the DWARF decoder it calls per DIE live in different files; inlined
# across them, vmlinux's encode runs 5% fewer instructions (callgrind).
# The link gets the compile flags, warnings too: they are errors there
# as well.  (ar finds the compiler's LTO plugin in bfd-plugins.)
LTO      ?= -flto=auto
ifneq ($(LTO),)
ALL_CFLAGS += $(LTO)
ALL_LDFLAGS += $(LTO) $(CFLAGS) $(WARN)
endif

# The version: $(BTFC_VERSION) if given, else `git describe` of a release
# tag (vX.Y.Z) when built from git, else VERSION plus the commit
# ("0.2.0+g1a2b3c4", "-dirty" for uncommitted changes), else VERSION.
# It reaches the code through $(O)/version.h, rewritten only when it
# changes (so a new commit relinks, and nothing else rebuilds).
BTFC_VERSION ?= $(shell sh scripts/version.sh)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRCS  := $(wildcard src/base/*.c src/elf/*.c src/dwarf/*.c src/btf/*.c src/btf/dedup/*.c \
                        src/encode/*.c src/layout/*.c)
CLI_SRCS  := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c))
TEST_SRCS := $(wildcard tests/unit/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(O)/%.o)
CLI_OBJS  := $(CLI_SRCS:%.c=$(O)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(O)/%.o)
MAIN_OBJ  := $(O)/src/cli/main.o
BENCH_SRCS := $(wildcard bench/*.c)

all: $(O)/btfc

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# layout/ ports pahole's int arithmetic for hole/padding computations; on
# absurd (fuzzed) sizes it must wrap like pahole's compiled code, not be UB.
$(O)/src/layout/%.o: ALL_CFLAGS += -fwrapv
ifneq ($(SAN),)
$(O)/src/layout/%.o: ALL_CFLAGS += -fno-sanitize=signed-integer-overflow
endif

$(O)/version.h: FORCE
	@mkdir -p $(O)
	@echo '#define BTFC_VERSION "$(BTFC_VERSION)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(MAIN_OBJ): $(O)/version.h
$(MAIN_OBJ): ALL_CFLAGS += -I$(O)
FORCE:

# libbtfc.a is src/ without cli/, cli.a the command line over it: both
# internal, installed by nothing (docs/api.md says why).
$(O)/libbtfc.a: $(LIB_OBJS) Makefile
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)
$(O)/cli.a: $(CLI_OBJS) Makefile
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(O)/btfc: $(MAIN_OBJ) $(O)/cli.a $(O)/libbtfc.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/unit-tests: $(TEST_OBJS) $(O)/cli.a $(O)/libbtfc.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# Test-only helpers linked with system libraries we never link into btfc.
$(O)/bench-libdw: bench/libdw_walk.c
	@mkdir -p $(O)
	$(Q)$(CC) -O2 -g -Wall -o $@ $< -ldw -lelf
$(O)/libbpf-oracle: tests/tools/libbpf_oracle.c
	@mkdir -p $(O)
	$(Q)$(CC) -O2 -g -Wall -o $@ $< -lbpf -lelf -lz
# Test-only helpers over libbtfc.a (t_diff.sh): BTF variants, and the
# running kernel's BTF verifier via bpf(BPF_BTF_LOAD).
$(O)/btf-mutate: $(O)/tests/tools/btf_mutate.o $(O)/cli.a $(O)/libbtfc.a
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/btf-load: $(O)/tests/tools/btf_load.o $(O)/cli.a $(O)/libbtfc.a
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

test: $(O)/btfc $(O)/unit-tests $(O)/btf-mutate $(O)/btf-load $(O)/libbpf-oracle
	BTFC=$(O)/btfc UNIT=$(O)/unit-tests O=$(O) tests/run.sh

check-kernel: $(O)/btfc
	BTFC=$(O)/btfc scripts/check-kernel.sh

bench: $(O)/btfc $(O)/bench-libdw
	BTFC=$(O)/btfc O=$(O) bench/run.sh

FUZZ_SECONDS ?= 10
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_O := build/fuzz
# Library objects are built once with fuzzer instrumentation (no main) and
# linked into each target; tests/fuzz/run.sh makes seeds and runs them.
FUZZ_CFLAGS := -std=gnu11 -O1 -g -D_GNU_SOURCE -Isrc -Iinclude $(PKG_CFLAGS) -pthread \
	       -fsanitize=address,undefined -fno-sanitize-recover=all -MMD -MP \
	       -DAHEAD_MIN_TABLES=2 -DRANGED_CK=4
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_O)/obj/%.o)
$(FUZZ_O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(LDLIBS)
.SECONDARY: $(FUZZ_LIB_OBJS)
$(FUZZ_O)/obj/src/layout/%.o: FUZZ_CFLAGS += -fwrapv -fno-sanitize=signed-integer-overflow
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_O)/%)
fuzz: fuzz-build $(O)/btfc
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_O=$(FUZZ_O) BTFC=$(O)/btfc tests/fuzz/run.sh $(FUZZ_TARGETS)
-include $(shell find $(FUZZ_O)/obj -name '*.d' 2>/dev/null)

# The pahole link is relative, so the tree can move (DESTDIR, a package).
MAN_PAGES := $(wildcard man/*.1)
install: $(O)/btfc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/btfc $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(LIBEXECDIR)/btfc/man/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 $(O)/btfc $(DESTDIR)$(BINDIR)/btfc
	ln -sf $$(realpath -m --relative-to=$(LIBEXECDIR)/btfc $(BINDIR)/btfc) \
		$(DESTDIR)$(LIBEXECDIR)/btfc/pahole
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	# `man pahole` with libexec/btfc first in PATH (man-db looks in DIR/man)
	install -m 644 man/btfc-pahole.1 $(DESTDIR)$(LIBEXECDIR)/btfc/man/man1/pahole.1
	install -m 644 completion/btfc.bash $(DESTDIR)$(BASHCOMPDIR)/btfc
	install -m 644 README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/btfc $(DESTDIR)$(LIBEXECDIR)/btfc/pahole \
		$(DESTDIR)$(LIBEXECDIR)/btfc/man/man1/pahole.1 $(DESTDIR)$(BASHCOMPDIR)/btfc \
		$(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/CHANGELOG.md \
		$(patsubst man/%,$(DESTDIR)$(MANDIR)/man1/%,$(MAN_PAGES))
	rmdir $(DESTDIR)$(LIBEXECDIR)/btfc/man/man1 $(DESTDIR)$(LIBEXECDIR)/btfc/man \
		$(DESTDIR)$(LIBEXECDIR)/btfc $(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	rm -rf build

.PHONY: all test check-kernel bench fuzz fuzz-build install uninstall clean FORCE
-include $(shell find $(O) -name '*.d' 2>/dev/null)

# The README's bundled example: a C fixture compiled with -g, encoded to BTF,
# checked with the kernel's rules and printed back as C.
example: $(O)/btfc
	@mkdir -p $(O)/example
	$(Q)$(CC) -g -O2 -c tests/fixtures/types.c -o $(O)/example/types.o
	$(O)/btfc encode -v $(O)/example/types.o -o $(O)/example/types.btf
	$(O)/btfc verify --strict $(O)/example/types.btf
	$(O)/btfc dump --format c $(O)/example/types.btf | sed -n '/^struct bits {/,/^};/p' 
.PHONY: example
