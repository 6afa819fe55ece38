# solvers/local.mk: the public solver API, the method registry and the Krylov methods.
libspsolve_la_SOURCES += \
	%reldir%/solver_internal.h \
	%reldir%/defaults.h \
	%reldir%/solver.c \
	%reldir%/cg.c \
	%reldir%/cg_pipelined.c \
	%reldir%/gmres.c \
	%reldir%/bicgstab.c \
	%reldir%/auto.c \
	%reldir%/batch.h \
	%reldir%/solve_many.c \
	%reldir%/batch_cg.c \
	%reldir%/batch_bicgstab.c \
	%reldir%/batch_gmres.c \
	%reldir%/block_dense.h \
	%reldir%/block_dense.c \
	%reldir%/block_cg.c
