# cli/local.mk: the spsolve command-line tool.
bin_PROGRAMS += spsolve
spsolve_SOURCES = \
	%reldir%/spsolve.c \
	%reldir%/state.h \
	%reldir%/many.h \
	%reldir%/many.c \
	%reldir%/options.h \
	%reldir%/options.c \
	%reldir%/error.h \
	%reldir%/error.c \
	%reldir%/report.h \
	%reldir%/report.c \
	%reldir%/rhs.h \
	%reldir%/rhs.c \
	%reldir%/info.h \
	%reldir%/info.c \
	%reldir%/stats.h \
	%reldir%/stats.c \
	%reldir%/progress.h \
	%reldir%/progress.c \
	%reldir%/run.h \
	%reldir%/run.c \
	%reldir%/mpi_run.h \
	%reldir%/mpi.c
spsolve_LDADD = libspsolve.la $(MPI_LIBS)
