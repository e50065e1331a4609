# cgwb: build, set-up, tests, benchmarks.  See README.md.
# Honours LUA_INCDIR, LIBFLAG, PREFIX, LIBDIR, LUADIR, BINDIR, EXAMPLESDIR, DESTDIR
# (luarocks "make" type), and INCLUDEDIR, CLIBDIR, PKGCONFIGDIR for the C
# library (doc/c-api.md).

LUA        ?= lua5.4
LUA_INCDIR ?= /usr/include/lua5.4
CC         ?= cc
CXX        ?= g++
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib/lua/5.4
LUADIR     ?= $(PREFIX)/share/lua/5.4
BINDIR     ?= $(PREFIX)/bin
EXAMPLESDIR ?= $(PREFIX)/share/cgwb/examples
# The Lua modules' subdirectories of lua/cgwb/ (cli, util, kparse, ...), each installed under LUADIR/cgwb/.
LUA_SUBDIRS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard lua/cgwb/*/*.lua)))))
# The C library: headers in $(INCLUDEDIR)/cgwb/, libcgwb.a, libcgwb.so, cgwb.pc.
INCLUDEDIR ?= $(PREFIX)/include
CLIBDIR    ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(CLIBDIR)/pkgconfig
VERSION    = 0.1.0
SOMAJOR    = 0

# Copies the launcher (stdin to stdout) with its `LUADIR, LIBDIR` line set to
# the environment's CGWB_LUADIR and CGWB_LIBDIR; fails if the line is missing.
define SET_LAUNCHER_PATHS
local s, n = io.read("a"):gsub("local LUADIR, LIBDIR = nil, nil", function()
  return ("local LUADIR, LIBDIR = %q, %q"):format(os.getenv("CGWB_LUADIR"), os.getenv("CGWB_LIBDIR"))
end, 1)
if n ~= 1 then io.stderr:write("scripts/cgwb: no LUADIR, LIBDIR line\n") os.exit(1) end
io.write(s)
endef
export SET_LAUNCHER_PATHS

WARN    = -std=c99 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wpointer-arith -Wcast-qual -Wwrite-strings -Wundef -pedantic
OPT     ?= -O2 -DNDEBUG
CFLAGS  ?=
# Hidden by default; the public headers (csrc/cgwb.h) switch their declarations
# to default visibility for libcgwb.so, and version scripts keep the Lua module
# exporting luaopen_cgwb_core alone.  No semantic interposition: calls inside
# the core stay direct and inlinable, as when everything was hidden.
ALLCFLAGS = $(WARN) $(OPT) -fPIC -fvisibility=hidden -fno-semantic-interposition \
            -D_POSIX_C_SOURCE=200809L $(CFLAGS)
LIBFLAG ?= -shared
LDLIBS  = -lm -lColPack -lgomp -lstdc++

BUILD   ?= build/release
CORE_SRC = $(sort $(wildcard csrc/util/*.c csrc/tape/*.c csrc/graph/*.c csrc/sched/*.c csrc/elim/*.c csrc/kernel/*.c csrc/adjoint/*.c))
LUA_SRC  = $(sort $(wildcard csrc/lua/*.c))
# The one C++ file: the extern "C" shim over ColPack (Debian's libcolpack-dev).
CORE_CXX = csrc/elim/cg_colpack.cpp
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o) $(CORE_CXX:%.cpp=$(BUILD)/%.o)
LUA_OBJ  = $(LUA_SRC:%.c=$(BUILD)/%.o)
MODULE   = $(BUILD)/cgwb/core.so
CORELIB  = $(BUILD)/libcgwbcore.a
HEADERS  = $(wildcard csrc/*/*.h)
# The C library as installed (doc/c-api.md): the core's objects, no Lua.
CLIB_A   = $(BUILD)/lib/libcgwb.a
CLIB_SO  = $(BUILD)/lib/libcgwb.so.$(VERSION)
CLIB_PC  = $(BUILD)/lib/cgwb.pc
# The public headers: every header of the core but the internal ones.
PUBLIC_HEADERS = $(filter-out %_impl.h csrc/elim/cg_cand.h csrc/elim/cg_colpack.h csrc/lua/%,$(HEADERS))

.PHONY: all debug deps run test check test-release test-debug examples bench install install-clib \
        clean distclean fuzz fuzz-build FORCE

all: $(MODULE) $(CORELIB) $(CLIB_A) $(CLIB_SO) $(CLIB_PC)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -I$(LUA_INCDIR) -c $< -o $@

$(BUILD)/%.o: %.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++11 -Wall -Wextra $(OPT) -fPIC -fvisibility=hidden $(CFLAGS) -c $< -o $@

$(MODULE): $(CORE_OBJ) $(LUA_OBJ) csrc/lua/core.map
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(LIBFLAG) -Wl,--version-script=csrc/lua/core.map -o $@ \
	  $(CORE_OBJ) $(LUA_OBJ) $(LDFLAGS) $(LDLIBS)

$(CORELIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CLIB_A): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

# libcgwb.so.0.1.0, soname libcgwb.so.0, with the links libcgwb.so.0 and libcgwb.so; calls
# inside the library bind to its own functions (no PLT), as in cgwb/core.so.
$(CLIB_SO): $(CORE_OBJ) csrc/libcgwb.map
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -shared -Wl,-soname,libcgwb.so.$(SOMAJOR) -Wl,--version-script=csrc/libcgwb.map -Wl,-Bsymbolic-functions \
	  -o $@ $(CORE_OBJ) $(LDFLAGS) $(LDLIBS)
	ln -sf libcgwb.so.$(VERSION) $(BUILD)/lib/libcgwb.so.$(SOMAJOR)
	ln -sf libcgwb.so.$(SOMAJOR) $(BUILD)/lib/libcgwb.so

# cgwb.pc names the final directories (never DESTDIR's staging path); it is
# rewritten when they change.
$(CLIB_PC): csrc/cgwb.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@CLIBDIR@|$(CLIBDIR)|; s|@VERSION@|$(VERSION)|' \
	  csrc/cgwb.pc.in >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

# Assertions, AddressSanitizer and UndefinedBehaviorSanitizer.
debug:
	$(MAKE) BUILD=build/debug OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	        LDFLAGS="-fsanitize=address,undefined" all

# libFuzzer targets (spec/fuzz/fuzz.c, one binary per row of its table), built
# with clang against a core instrumented for coverage, ASan and UBSan.
# `make fuzz` runs each for FUZZ_SECONDS on a scratch copy of its seed corpus
# (spec/fuzz/corpus/<target>/) after replaying spec/fuzz/regressions/<target>/;
# findings go to build/fuzz/findings/<target>/.
FUZZ_TARGETS ?= adolc classic text cg pipeline kernel
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CXX     ?= clang++
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BIN      = $(FUZZ_TARGETS:%=build/fuzz/fuzz-%)

fuzz-build: deps
	@$(MAKE) -s BUILD=build/fuzz CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	        build/fuzz/libcgwbcore.a
	@$(MAKE) -s $(FUZZ_BIN)

build/fuzz/fuzz-%: spec/fuzz/fuzz.c build/fuzz/libcgwbcore.a
	$(FUZZ_CC) -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g \
	  -fsanitize=fuzzer $(FUZZ_SAN) -DFUZZ_TARGET='"$*"' -Icsrc $< build/fuzz/libcgwbcore.a -lm -o $@

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh spec/fuzz/run.sh $(FUZZ_TARGETS)

# Installs the Debian packages cgwb needs (only the missing ones).
deps:
	@sh scripts/install-deps.sh

run: deps all examples
	scripts/cgwb run examples/markowitz.lua examples/tapes/bratu.tap examples/tapes/cavity.tap

# Every test on every core (scripts/run-tests.sh): what CI runs.
test: deps all examples
	@bash scripts/run-tests.sh

# The quick subset for the edit-compile-test loop: the release build's C unit
# tests and busted specs (no sanitizers, fuzzing, mutants or installs).
check: deps all examples
	@bash scripts/run-tests.sh --quick

examples: all
	@$(MAKE) -s -C examples

bench: deps all examples
	@sh scripts/bench.sh
	@sh scripts/bench-adjoint.sh
	@sh scripts/bench-jplan.sh

# The API reference: LDoc over lua/cgwb/*.lua, lua/cgwb/*/init.lua and the binding files csrc/lua/*.c
# (doc/config.ld) into build/doc/api/; a warning (a broken reference) fails it.
# doc/manual.md is the manual; spec/42-manual_spec.lua checks both.
.PHONY: doc
doc:
	@rm -rf build/doc/api && mkdir -p build/doc/api
	$(LUA) "$$(command -v ldoc)" --fatalwarnings --testing -c doc/config.ld .

# Regenerates every page and figure of doc/results/ from the shipped examples
# (scripts/results.sh; a few minutes); each page's text above its
# "## Timings (change from run to run)" section is the same from run to run.
.PHONY: results
results: deps all examples
	@sh scripts/results.sh

# The installed launcher carries the final LUADIR and LIBDIR (never DESTDIR's
# staging path), so it finds its modules from any directory; the examples go
# to EXAMPLESDIR (the main job: cgwb run $(EXAMPLESDIR)/markowitz.lua TAPE).
install: all install-clib
	install -d $(DESTDIR)$(LIBDIR)/cgwb $(DESTDIR)$(LUADIR)/cgwb $(DESTDIR)$(BINDIR) \
	           $(DESTDIR)$(EXAMPLESDIR)/lua $(DESTDIR)$(EXAMPLESDIR)/graphs
	install -m 755 $(MODULE) $(DESTDIR)$(LIBDIR)/cgwb/core.so
	install -m 644 lua/cgwb/*.lua $(DESTDIR)$(LUADIR)/cgwb/
	for f in lua/cgwb/*/*.lua; do \
	  install -d $(DESTDIR)$(LUADIR)/cgwb/$$(basename $$(dirname $$f)) && \
	  install -m 644 $$f $(DESTDIR)$(LUADIR)/cgwb/$${f#lua/cgwb/} || exit 1; \
	done
	install -d $(DESTDIR)$(LUADIR)/cgwb/runtime
	install -m 644 lua/cgwb/runtime/cgwb_adstack.h $(DESTDIR)$(LUADIR)/cgwb/runtime/
	CGWB_LUADIR='$(LUADIR)' CGWB_LIBDIR='$(LIBDIR)' $(LUA) -e "$$SET_LAUNCHER_PATHS" \
	  <scripts/cgwb >$(DESTDIR)$(BINDIR)/cgwb
	chmod 755 $(DESTDIR)$(BINDIR)/cgwb
	install -m 644 examples/markowitz.lua $(DESTDIR)$(EXAMPLESDIR)/
	install -m 644 examples/lua/*.lua $(DESTDIR)$(EXAMPLESDIR)/lua/
	install -m 644 examples/graphs/* $(DESTDIR)$(EXAMPLESDIR)/graphs/

# The C library: the public headers under $(INCLUDEDIR)/cgwb/ in csrc/'s layout
# (they include each other as "../util/cg_util.h") with the umbrella cgwb.h,
# libcgwb.a, libcgwb.so (versioned) and cgwb.pc.
install-clib: $(CLIB_A) $(CLIB_SO) $(CLIB_PC)
	install -d $(DESTDIR)$(INCLUDEDIR)/cgwb $(DESTDIR)$(CLIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 csrc/cgwb.h $(DESTDIR)$(INCLUDEDIR)/cgwb/
	for h in $(PUBLIC_HEADERS); do \
	  d=$(DESTDIR)$(INCLUDEDIR)/cgwb/$$(basename $$(dirname $$h)); \
	  install -d $$d && install -m 644 $$h $$d/ || exit 1; \
	done
	install -m 644 $(CLIB_A) $(DESTDIR)$(CLIBDIR)/
	install -m 755 $(CLIB_SO) $(DESTDIR)$(CLIBDIR)/
	ln -sf libcgwb.so.$(VERSION) $(DESTDIR)$(CLIBDIR)/libcgwb.so.$(SOMAJOR)
	ln -sf libcgwb.so.$(SOMAJOR) $(DESTDIR)$(CLIBDIR)/libcgwb.so
	install -m 644 $(CLIB_PC) $(DESTDIR)$(PKGCONFIGDIR)/

clean:
	rm -rf build
