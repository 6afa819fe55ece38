# fuzz/local.mk: `make fuzz`: libFuzzer targets built with clang (ASan and UBSan, no recovery) from the library's CPU sources, each run FUZZ_SECONDS on its corpus (fuzz/README.md).
FUZZ_TARGETS = mm_read mm_gzip cli_options solver
FUZZ_SECONDS = 60
FUZZ_BUILD = fuzz-build
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -std=c11 -ffp-contract=off -Wno-unknown-pragmas \
	$(FUZZ_SANITIZE)
FUZZ_CPPFLAGS = -DHAVE_CONFIG_H -I$(FUZZ_BUILD) -I$(top_srcdir)/include -I$(top_srcdir)/cli \
	-I$(top_srcdir)/fuzz -D_POSIX_C_SOURCE=200809L
# The library's C sources but those that exist only for CUDA (the CUDA backend's files, the
# cuSPARSE wrappers) and those that exist only for MPI; config.h without SPS_HAVE_CUDA,
# SPS_HAVE_MPI and SPS_HAVE_METIS.
FUZZ_LIB_SRCS = $(filter-out core/backend_cuda%.c spmv/cusparse.c spmv/spmm_cusparse.c \
	core/comm.c core/comm_nccl.c core/halo.c core/dist_%.c core/partition.c spmv/dist.c \
	spmv/ref/dist.c,\
	$(filter %.c,$(libspsolve_la_SOURCES)))
FUZZ_OBJECTS = $(FUZZ_LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/obj/cli/options.o \
	$(FUZZ_BUILD)/obj/cli/error.o
FUZZ_LIBS = $(filter -lz -llzma -lbz2,$(LIBS)) -lm
FUZZ_BINARIES = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
# Every object depends on every header (coarse, but a header change rebuilds what uses it).
FUZZ_HDRS = $(filter %.h,$(libspsolve_la_SOURCES:%=$(top_srcdir)/%)) \
	$(top_srcdir)/include/spsolve.h $(top_srcdir)/cli/options.h $(top_srcdir)/cli/error.h

EXTRA_DIST += %reldir%/README.md %reldir%/run.sh %reldir%/fuzz_util.h \
	$(FUZZ_TARGETS:%=%reldir%/%.c) %reldir%/corpus

$(FUZZ_BUILD)/config.h: config.h
	$(AM_V_GEN)$(MKDIR_P) $(FUZZ_BUILD) && sed '/SPS_HAVE_CUDA/d; /SPS_HAVE_MPI/d; /SPS_HAVE_METIS/d' config.h >$@

$(FUZZ_BUILD)/obj/%.o: $(top_srcdir)/%.c $(FUZZ_BUILD)/config.h $(FUZZ_HDRS)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz-%: $(top_srcdir)/fuzz/%.c $(top_srcdir)/fuzz/fuzz_util.h $(FUZZ_OBJECTS)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(FUZZ_OBJECTS) $(FUZZ_LIBS)

fuzz-targets: $(FUZZ_OBJECTS) $(FUZZ_BINARIES)

fuzz:
	@if test "$(HAVE_FUZZER)" != yes; then \
	  echo "make fuzz: configure found no clang with libFuzzer (install clang-14 and"; \
	  echo "libclang-rt-14-dev, or set FUZZ_CC=/path/to/clang, and run configure again)"; \
	  exit 1; fi
	@$(MAKE) $(AM_MAKEFLAGS) fuzz-targets
	@$(SHELL) $(top_srcdir)/fuzz/run.sh $(FUZZ_BUILD) $(top_srcdir) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf $(FUZZ_BUILD)

.PHONY: fuzz fuzz-targets clean-fuzz
