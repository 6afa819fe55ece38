# examples/local.mk: the two C examples, built and run by `make check` in the tree and, by
# `make installcheck` (part of `make distcheck`), compiled against the installed library through pkg-config.
check_PROGRAMS += %reldir%/poisson_cg %reldir%/mm_gmres
%canon_reldir%_poisson_cg_SOURCES = %reldir%/poisson_cg.c
%canon_reldir%_poisson_cg_LDADD = libspsolve.la
%canon_reldir%_mm_gmres_SOURCES = %reldir%/mm_gmres.c
%canon_reldir%_mm_gmres_LDADD = libspsolve.la
TESTS += %reldir%/poisson_cg %reldir%/mm_gmres.sh
EXTRA_DIST += %reldir%/mm_gmres.sh %reldir%/README.md

# Compile both examples the way a user does, with only the installed header, library and
# spsolve.pc, then run them (LD_LIBRARY_PATH: the prefix need not be on the loader's path).
installcheck-local: installcheck-examples
installcheck-examples:
	@set -e; \
	pcdir='$(DESTDIR)$(libdir)/pkgconfig'; \
	if test -z '$(PKG_CONFIG)'; then echo "installcheck-examples: pkg-config not found" >&2; exit 1; fi; \
	flags=`PKG_CONFIG_PATH="$$pcdir" $(PKG_CONFIG) --cflags --libs spsolve`; \
	tmp=`mktemp -d "$${TMPDIR:-/tmp}/spsolve-examples.XXXXXX"`; \
	trap 'rm -rf "$$tmp"' EXIT; \
	echo "  CC       poisson_cg (installed: $$flags)"; \
	$(CC) $(CFLAGS) -o "$$tmp/poisson_cg" '$(abs_top_srcdir)/%reldir%/poisson_cg.c' $$flags -lm; \
	echo "  CC       mm_gmres (installed: $$flags)"; \
	$(CC) $(CFLAGS) -o "$$tmp/mm_gmres" '$(abs_top_srcdir)/%reldir%/mm_gmres.c' $$flags; \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)'$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}; \
	export LD_LIBRARY_PATH; \
	"$$tmp/poisson_cg" 32; \
	"$$tmp/mm_gmres" '$(abs_top_srcdir)/tests/data/orsreg_1.mtx.gz' jacobi
.PHONY: installcheck-examples
