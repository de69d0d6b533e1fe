# mt: memory-allocation tracing for Linux.  GNU make.
# CFLAGS, CPPFLAGS and LDFLAGS belong to you: CPPFLAGS go to every
# compile, LDFLAGS to every link, the warnings are appended.  `make
# check SAN=1` builds with ASan+UBSan, `make WERROR=1` makes warnings
# errors.  gcc and clang both build it (`make CC=clang`), and CI builds
# with each.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/mt
MANDIR ?= $(PREFIX)/share/man
SHAREDIR ?= $(PREFIX)/share/mt
COMPLETIONSDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

CC ?= cc
# -O3: the filters' per-record loops, 10% faster than at -O2 (mt-lifetime
# -b on the python trace of tests/bench/analysis.sh: 1.35 s -> 1.22 s).
CFLAGS ?= -O3 -g
# Link-time optimisation of the programs with the library: the filters'
# loops call across it for every record (reader, pairer, writer), and
# inlining them there made mt-lifetime 8% faster.  `make LTO=` for none.
# clang's: ThinLTO, the archive indexed by binutils' ar through LLVM's
# plugin (llvm-14-linker-tools, which clang needs) or by llvm-ar.
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
ifeq ($(CC_IS_CLANG),1)
LTO ?= -flto=thin
else
LTO ?= -flto=auto
endif
ifeq ($(LTO),)
LIBAR ?= ar
else ifeq ($(CC_IS_CLANG),1)
LIBAR ?= $(if $(shell command -v llvm-ar 2>/dev/null),llvm-ar,ar)
else
LIBAR ?= gcc-ar
endif
# Debian's triplet, the same from gcc and clang (-dumpmachine is not).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
PKG_CONFIG ?= pkg-config

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla -Wpointer-arith -Wcast-qual -Wno-unused-parameter
ifdef WERROR
WARN += -Werror
endif
ifdef SAN
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libzstd 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null)
ALL_CFLAGS = -std=gnu11 $(CPPFLAGS) $(CFLAGS) $(LTO) $(WARN) $(SANFLAGS) -Ilib $(DEPS_CFLAGS) \
	-D_GNU_SOURCE -DLIBDIR='"$(LIBDIR)"'

PROGS = cmd/mt-record cmd/mt-decode cmd/mt-symbolize cmd/mt-lifetime cmd/mt-window cmd/mt-group cmd/mt-pooldiff cmd/mt-report
# The library is every source under lib/ but the preload library's.
LIBSRC := $(sort $(filter-out lib/preload/%,$(wildcard lib/*.c lib/*/*.c)))
LIBOBJ := $(LIBSRC:.c=.o)
# A program is cmd/mt-NAME.c, or the files of cmd/NAME/ when it has many.
prog_src = $(or $(wildcard cmd/$(patsubst mt-%,%,$(1))/*.c),cmd/$(1).c)
PROGOBJ := $(foreach p,$(notdir $(PROGS)),$(patsubst %.c,%.o,$(call prog_src,$(p))))
PRELOAD = lib/libmt-preload.so
# It shares the interpreter of call frame information with the collector,
# and the rule that names a process's program with the --uprobes path.
PRELOAD_OBJ := $(patsubst %,%.pic.o,$(basename $(wildcard lib/preload/*.c lib/preload/*.S))) \
	lib/ehframe.pic.o lib/exename.pic.o
TESTPROGS = $(patsubst %.c,%,$(filter-out tests/progs/lib%.c tests/progs/mtr-encode.c tests/progs/gen-trace.c tests/progs/ktrace-text.c tests/progs/collector-early-exit.c,$(wildcard tests/progs/*.c))) \
	$(patsubst %.cc,%,$(wildcard tests/progs/*.cc)) tests/progs/attach-static \
	tests/progs/ucount-static tests/progs/ucount-musl tests/progs/busy-static
TESTLIBS = tests/progs/liballoc.so tests/progs/libearly.so tests/progs/libframes-a.so \
	tests/progs/libframes-b.so
MANPAGES = man/mt-events.5 man/mt-plot.1 man/mt-record.1 man/mt-decode.1 man/mt-symbolize.1 man/mt-lifetime.1 man/mt-window.1 man/mt-group.1 man/mt-pooldiff.1 man/mt-report.1

# What a fresh Debian 12 needs, to build, to test, and to compare.
APT_PACKAGES = build-essential pkg-config libdw-dev libelf-dev libzstd-dev \
	libpcre2-dev libunwind-dev bats mandoc valgrind heaptrack clang \
	libclang-rt-14-dev python3 perl util-linux python3.11-dbg elfutils libiberty-dev binutils gnuplot-nox bc \
	libjemalloc2 libtcmalloc-minimal4 node-d3 chromium zlib1g-dev golang-go \
	libbpf-dev bpftool musl-tools libjemalloc-dev libmimalloc-dev \
	time zstd eslint node-chalk node-strip-ansi node-text-table debuginfod libc6-dbg sqlite3

# What ships; `make tests` builds the test programs, and check does both.
all: $(PROGS) $(PRELOAD)

tests: $(TESTPROGS) $(TESTLIBS) tests/progs/mtr-encode tests/progs/gen-trace tests/progs/ktrace-text \
	tests/progs/collector-early-exit

# Without the libraries' pkg-config files the link fails far from the cause.
need-deps:
	@test -n "$(DEPS_LIBS)" || { echo "mt: libzstd not found by $(PKG_CONFIG): run 'make deps' (as root) first" >&2; exit 1; }
	@test -n "$(ZLIB_LIBS)" || { echo "mt: zlib not found by $(PKG_CONFIG): run 'make deps' (as root) first" >&2; exit 1; }

# Header dependencies are written by the compiler (-MMD -MP) beside each object.
DEPFLAGS = -MMD -MP
lib/%.o: lib/%.c | need-deps
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

cmd/%.o: cmd/%.c | need-deps
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

lib/libmt.a: $(LIBOBJ)
	rm -f $@
	$(LIBAR) rcs $@ $(LIBOBJ)

.SECONDEXPANSION:
$(PROGS): $$(patsubst %.c,%.o,$$(call prog_src,$$(notdir $$@))) lib/libmt.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) lib/libmt.a $(DEPS_LIBS) $(LIBS_$(notdir $@)) -lm

# Text built in as C string literals, a line each.
C_STRING = sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/'

# The default suppressions, built in: share/mt-suppress as a C string.
lib/suppress.o: lib/mt-suppress.h
lib/mt-suppress.h: share/mt-suppress
	$(C_STRING) share/mt-suppress >$@

# mt-report's page, built in: share/report/page.html with its style, its
# scripts and Debian's d3 (node-d3) put in its marker lines (@page.css@,
# @page-data.js@...: each file once, in the order page.html gives), as two
# strings, report_page_head and report_page_tail, around the line @mt-data@
# where cmd/report/page.c writes the data.  A script put in a page must not
# hold "</script" or "<!--", which would end it early.
D3_JS ?= /usr/share/nodejs/d3/dist/d3.min.js
REPORT_JS = $(addprefix share/report/,page-dom.js page-units.js page-data.js page-state.js \
	page-table.js page-lifetimes.js page-series.js page-diff.js page-graph.js page-flame.js page-sizes.js page-calls.js \
	page-start.js)
REPORT_PAGE = share/report/page.html share/report/page.css $(REPORT_JS)
REPORT_MARKS = page.css $(notdir $(REPORT_JS)) d3.min.js mt-data
REPORT_INLINE = sed -e '/^@page.css@$$/{r share/report/page.css' -e 'd;}' \
	$(foreach f,$(REPORT_JS),-e '/^@$(notdir $(f))@$$/{r $(f)' -e 'd;}') \
	-e '/^@d3.min.js@$$/{r $(D3_JS)' -e 'd;}' share/report/page.html
cmd/report/page.o: cmd/report/report-page.h
cmd/report/report-page.h: $(REPORT_PAGE) $(D3_JS)
	@for m in $(REPORT_MARKS); do \
		test "$$(grep -cxF "@$$m@" share/report/page.html)" = 1 || \
		{ echo "mt: share/report/page.html: not one line @$$m@" >&2; exit 1; }; done
	@test "$$(grep -c '^@.*@$$' share/report/page.html)" = $(words $(REPORT_MARKS)) || \
		{ echo "mt: share/report/page.html: a marker line of no file" >&2; exit 1; }
	@! grep -il -e '</script' -e '<!--' $(REPORT_JS) $(D3_JS) || \
		{ echo "mt: those scripts hold '</script' or '<!--': not to be put in a page" >&2; exit 1; }
	{ echo '/* Made by make from $(REPORT_PAGE) and $(D3_JS): do not edit. */'; \
	  echo 'static const char report_page_head[] ='; \
	  $(REPORT_INLINE) | sed '/^@mt-data@$$/,$$d' | $(C_STRING); \
	  echo ';'; \
	  echo 'static const char report_page_tail[] ='; \
	  $(REPORT_INLINE) | sed '1,/^@mt-data@$$/d' | $(C_STRING); \
	  echo ';'; } >$@.tmp && mv $@.tmp $@
$(D3_JS):
	@echo "mt: $@ not found: run 'make deps' (as root) first: it installs node-d3" >&2; exit 1

# libdw for symbols; libiberty (libiberty-dev) for the one demangler that
# reads C++ and both Rust manglings, legacy and v0.
LIBS_mt-symbolize := $(shell $(PKG_CONFIG) --libs libdw 2>/dev/null) -lelf -liberty
LIBS_mt-window := $(shell $(PKG_CONFIG) --libs libpcre2-8 2>/dev/null)
# mt-record --uprobes: libbpf (libbpf-dev) loads the BPF program, built by
# clang and embedded by bpftool's skeleton; libelf finds the functions.
LIBS_mt-record := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null) -lelf
# Not the user's CPPFLAGS: they are for the host (-D_FORTIFY_SOURCE...).
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(MULTIARCH)
cmd/record/bpf/ualloc.bpf.o: cmd/record/bpf/ualloc.bpf.c cmd/record/bpf/ualloc.h \
	cmd/record/bpf/uprocs.bpf.h
	clang $(BPF_CFLAGS) -c -o $@ $<
cmd/record/ualloc.skel.h: cmd/record/bpf/ualloc.bpf.o
	bpftool gen skeleton $< name ualloc >$@.tmp && mv $@.tmp $@
cmd/record/ubpf.o: cmd/record/ualloc.skel.h
# zlib for mt-group's pprof profiles alone (lib/pprof/): pprof reads
# them gzipped.  The other programs never pull pprof/gzip.o from the archive.
ZLIB_CFLAGS := $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null)
lib/pprof/gzip.o: ALL_CFLAGS += $(ZLIB_CFLAGS)
LIBS_mt-group := $(LIBS_mt-window) $(ZLIB_LIBS)
LIBS_mt-pooldiff := $(LIBS_mt-window)
LIBS_mt-report := $(LIBS_mt-window) -lpthread

# The preload library runs inside other programs: never sanitized, and
# only its interposed functions are exported.
# Frame pointers: --unwind fp starts in the library's own frames.
# -Bsymbolic-functions: its own references to malloc and the rest are
# its own functions, also when dlopen'ed (mt-record -p) behind libc's.
PRELOAD_CFLAGS = -std=gnu11 $(CPPFLAGS) $(CFLAGS) $(WARN) -D_GNU_SOURCE -Ilib -fPIC -fvisibility=hidden \
	-fno-omit-frame-pointer
lib/preload/%.pic.o: lib/preload/%.c
	$(CC) $(PRELOAD_CFLAGS) $(DEPFLAGS) -c -o $@ $<
lib/preload/%.pic.o: lib/preload/%.S
	$(CC) $(PRELOAD_CFLAGS) $(DEPFLAGS) -c -o $@ $<
lib/ehframe.pic.o lib/exename.pic.o: lib/%.pic.o: lib/%.c
	$(CC) $(PRELOAD_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(PRELOAD): $(PRELOAD_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-Bsymbolic-functions -o $@ $(PRELOAD_OBJ) -lunwind -ldl -lpthread

# The preload library as it is built where there is no shadow stack (not
# x86-64): its sources checked with that path turned off.
preload-portable:
	$(CC) $(PRELOAD_CFLAGS) -DMT_GENERIC -fsyntax-only $(wildcard lib/preload/*.c)

# The test programs are built their own way (-O1, frame pointers), with
# the user's CPPFLAGS and LDFLAGS but not CFLAGS.
TEST_CC = $(CC) -std=gnu11 $(CPPFLAGS) $(LDFLAGS)
TESTPROG_FLAGS = -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -Wno-unused-result
tests/progs/%: tests/progs/%.c
	$(TEST_CC) $(TESTPROG_FLAGS) -o $@ $< -ldl -lpthread -lm
# Its frames without frame pointers are gcc's optimize attribute, which
# clang ignores: gcc builds it whatever CC is.
tests/progs/unwind-cases: tests/progs/unwind-cases.c
	gcc -std=gnu11 $(CPPFLAGS) $(LDFLAGS) $(TESTPROG_FLAGS) -o $@ $< -ldl -lpthread -lm

# mt-record -p's refusal of a program with no libc to load a library.
tests/progs/attach-static: tests/progs/attach-target.c
	$(TEST_CC) -D_GNU_SOURCE -O1 -g -static -o $@ $< -lpthread

# mt-record --uprobes: the same program static, with glibc and with musl.
# -fno-builtin: no allocation of its elided by the compiler.
# musl-gcc is given none of the user's flags: they are for glibc's tree.
UCOUNT_CFLAGS = -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-builtin
tests/progs/ucount: tests/progs/ucount.c
	$(TEST_CC) $(UCOUNT_CFLAGS) -o $@ $<
tests/progs/ucount-static: tests/progs/ucount.c
	$(TEST_CC) $(UCOUNT_CFLAGS) -static -o $@ $<
tests/progs/ucount-musl: tests/progs/ucount.c
	musl-gcc $(UCOUNT_CFLAGS) -static -o $@ $<

# A collector stalled while a static program allocates as fast as it can.
tests/progs/busy-static: tests/progs/busy.c
	$(TEST_CC) $(UCOUNT_CFLAGS) -static -o $@ $< -lpthread

# --uprobes' copied stacks: a program built as Debian builds its packages.
tests/progs/unofp: tests/progs/unofp.c
	$(TEST_CC) -O2 -g -fomit-frame-pointer -fno-builtin -o $@ $< -lpthread
tests/progs/uswap: tests/progs/uswap.c
	$(TEST_CC) -O2 -g -fomit-frame-pointer -fno-builtin -o $@ $<

# jemalloc's own API, from the shared library (libjemalloc-dev).
tests/progs/jemx: tests/progs/jemx.c
	$(TEST_CC) -O1 -g -fno-omit-frame-pointer -fno-builtin -o $@ $< -ljemalloc
# tcmalloc's, from libtcmalloc-minimal4 (no -dev package: the library by its path).
TCMALLOC_SO = /usr/lib/$(MULTIARCH)/libtcmalloc_minimal.so.4
tests/progs/tcx: tests/progs/tcx.c
	$(TEST_CC) -O1 -g -fno-omit-frame-pointer -fno-builtin -o $@ $< $(TCMALLOC_SO)
# mimalloc's (libmimalloc-dev).
tests/progs/mimx: tests/progs/mimx.c
	$(TEST_CC) -O1 -g -fno-omit-frame-pointer -fno-builtin -o $@ $< -lmimalloc

tests/progs/%: tests/progs/%.cc
	$(CXX) $(CPPFLAGS) $(LDFLAGS) -O1 -g -fno-omit-frame-pointer -o $@ $<

deps:
	@sh share/mt-deps.sh $(APT_PACKAGES)

print-packages:
	@echo $(APT_PACKAGES)

# deps first, then a new make: the pkg-config lines above are read when a
# make starts, and on a new machine the libraries they name are installed
# by deps.
demo: deps
	@$(MAKE) --no-print-directory all tests/progs/demo tests/progs/memtestapp tests/progs/poolleak
	./cmd/mt-record -o demo.mtr -- tests/progs/demo
	./cmd/mt-decode demo.mtr
	@echo
	@echo "== WPA's walkthrough: a program like its MemoryTestApp, recorded, summarized and grouped"
	./cmd/mt-record -o demo-wpa.mtr -- tests/progs/memtestapp
	./cmd/mt-report demo-wpa.mtr
	./cmd/mt-report -o demo-wpa.html demo-wpa.mtr
	@echo "the page, WPA's view (open it in a browser): demo-wpa.html"
	./cmd/mt-symbolize demo-wpa.mtr | ./cmd/mt-lifetime | ./cmd/mt-window | \
		./cmd/mt-group --by process,heap,type,function
	./cmd/mt-lifetime -q demo-wpa.mtr | ./cmd/mt-window --series 5ms | \
		share/mt-plot -o demo-wpa.png --title "MemoryTestApp: memory outstanding"
	@echo "the graph WPA draws: demo-wpa.png"
	@echo
	@echo "== PoolMon: a process leaking from one function among noisy ones; the verdict"
	./cmd/mt-record -o demo-pool.mtr -- tests/progs/poolleak
	./cmd/mt-symbolize demo-pool.mtr | ./cmd/mt-pooldiff --interval 200ms --growth; \
		test $$? = 1

check: deps
	@$(MAKE) --no-print-directory all tests
	@sh tests/run-tests.sh

lint-man:
	mandoc -Tlint -Wwarning $(MANPAGES)

# The cron file names mt-pooldiff by its installed path: cron's PATH is
# /usr/bin:/bin.  The completions: one file, under each program's name.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(PROGS) share/mt-plot $(DESTDIR)$(BINDIR)
	install -m 755 $(PRELOAD) $(DESTDIR)$(LIBDIR)
	install -m 644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(filter %.5,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man5
	install -d $(DESTDIR)$(SHAREDIR)
	sed '/^#/!s|mt-pooldiff |$(BINDIR)/mt-pooldiff |g' share/mt-pool.cron >$(DESTDIR)$(SHAREDIR)/mt-pool.cron
	install -m 644 share/mt-suppress $(DESTDIR)$(SHAREDIR)
	chmod 644 $(DESTDIR)$(SHAREDIR)/mt-pool.cron
	install -d $(DESTDIR)$(COMPLETIONSDIR)
	for p in $(notdir $(PROGS)) mt-plot; do \
		install -m 644 share/mt-completion.bash $(DESTDIR)$(COMPLETIONSDIR)/$$p || exit 1; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(PROGS)) mt-plot)
	rm -f $(DESTDIR)$(LIBDIR)/libmt-preload.so
	-rmdir $(DESTDIR)$(LIBDIR)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(MANPAGES))))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(filter %.5,$(MANPAGES))))
	rm -f $(DESTDIR)$(SHAREDIR)/mt-pool.cron $(DESTDIR)$(SHAREDIR)/mt-suppress
	-rmdir $(DESTDIR)$(SHAREDIR)
	rm -f $(addprefix $(DESTDIR)$(COMPLETIONSDIR)/,$(notdir $(PROGS)) mt-plot)
	-rmdir $(DESTDIR)$(COMPLETIONSDIR)

clean:
	rm -f lib/*.o lib/*/*.o lib/*.d lib/*/*.d cmd/*.o cmd/*/*.o cmd/*.d cmd/*/*.d tests/fuzz/obj/*.[od] \
		tests/fuzz/libmt-fuzz.a lib/libmt.a $(PROGS) $(PRELOAD) $(TESTPROGS) tests/progs/mtr-encode tests/progs/gen-trace tests/progs/ktrace-text tests/progs/collector-early-exit $(TESTLIBS) demo.mtr demo-wpa.mtr demo-wpa.png demo-wpa.html demo-pool.mtr lib/mt-suppress.h \
		cmd/report/report-page.h cmd/record/ualloc.skel.h cmd/record/bpf/ualloc.bpf.o

.PHONY: all tests deps print-packages need-deps demo check lint-man install uninstall clean \
	preload-portable

tests/progs/mtr-encode tests/progs/gen-trace tests/progs/ktrace-text: %: %.c lib/libmt.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< lib/libmt.a $(DEPS_LIBS) -lm

# mt-record's collector (lib/recorder/) driven by hand through its API.
tests/progs/collector-early-exit: tests/progs/collector-early-exit.c lib/libmt.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< lib/libmt.a $(DEPS_LIBS) -lm

tests/progs/lib%.so: tests/progs/lib%.c
	$(TEST_CC) -O1 -g -fPIC -shared -o $@ $<

# One source, two shapes of frames (tests/progs/dlreload).
tests/progs/libframes-a.so tests/progs/libframes-b.so: tests/progs/libframes.c
	$(TEST_CC) -O1 -g -fPIC -shared $(if $(findstring -b.so,$@),-DFRAMES_B) -o $@ $<

# libFuzzer targets: clang with the fuzzer, ASan and UBSan runtimes, and
# the library built again with them.
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Ilib \
	$(DEPS_CFLAGS) $(ZLIB_CFLAGS) -D_GNU_SOURCE
FUZZ_OBJ = $(patsubst lib/%.c,tests/fuzz/obj/%.o,$(LIBSRC))
FUZZ_LIBS = $(DEPS_LIBS) $(LIBS_mt-window) $(ZLIB_LIBS) -lpthread -lm

fuzz: tests/fuzz/fuzz-decode tests/fuzz/fuzz-parse tests/fuzz/fuzz-ktrace tests/fuzz/fuzz-collector tests/fuzz/fuzz-ehframe tests/fuzz/fuzz-procmap

tests/fuzz/obj/%.o: lib/%.c | lib/mt-suppress.h
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_CFLAGS:-fsanitize=fuzzer,%=-fsanitize=fuzzer-no-link,%) $(DEPFLAGS) -c -o $@ $<

tests/fuzz/libmt-fuzz.a: $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJ)

tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/libmt-fuzz.a
	clang $(CPPFLAGS) $(FUZZ_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/libmt-fuzz.a $(FUZZ_LIBS)

.PHONY: fuzz

-include $(wildcard lib/*.d lib/*/*.d cmd/*.d cmd/*/*.d tests/fuzz/obj/*.d tests/fuzz/obj/*/*.d)
