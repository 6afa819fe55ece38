# precond/local.mk: the preconditioner interface, its registry and parameters, the preconditioners,
# the reordering and factorisations behind them, the sparse product of multigrid (spgemm), their
# CPU references (ref/) and CUDA kernels (cuda/).
libspsolve_la_SOURCES += \
	%reldir%/precond.h \
	%reldir%/precond.c \
	%reldir%/params.c \
	%reldir%/host_csr.h \
	%reldir%/host_csr.c \
	%reldir%/reorder.h \
	%reldir%/reorder.c \
	%reldir%/coloring.h \
	%reldir%/coloring.c \
	%reldir%/rcm.h \
	%reldir%/rcm.c \
	%reldir%/trisolve.h \
	%reldir%/trisolve.c \
	%reldir%/lu_factors.h \
	%reldir%/lu_factors.c \
	%reldir%/ilut.h \
	%reldir%/ilut_factor.c \
	%reldir%/ilu0.h \
	%reldir%/jacobi.c \
	%reldir%/ilu0.c \
	%reldir%/ic0.c \
	%reldir%/ilut.c \
	%reldir%/bjacobi.c \
	%reldir%/cheby.c \
	%reldir%/spgemm.h \
	%reldir%/spgemm.c \
	%reldir%/aggregate.h \
	%reldir%/aggregate.c \
	%reldir%/tridiag_eig.h \
	%reldir%/tridiag_eig.c \
	%reldir%/amg.h \
	%reldir%/amg_step.h \
	%reldir%/amg.c \
	%reldir%/amg_device.c \
	%reldir%/amg_hierarchy.c \
	%reldir%/amg_params.c \
	%reldir%/amg_sa.c \
	%reldir%/amg_classical.c \
	%reldir%/amg_mcgs.c \
	%reldir%/amg_spectrum.c \
	%reldir%/amg_coarse.c \
	%reldir%/amg_cycle.c \
	%reldir%/ref/kernels.h \
	%reldir%/ref/trisolve.c \
	%reldir%/ref/ilu0.c \
	%reldir%/ref/bjacobi.c \
	%reldir%/ref/spgemm.c \
	%reldir%/ref/aggregate.c \
	%reldir%/ref/amg_level.c \
	%reldir%/ref/amg_lanczos.c \
	%reldir%/ref/amg_smooth.c \
	%reldir%/ref/amg_classical.c \
	%reldir%/ref/mcgs.c

if SPS_CUDA
libspsolve_la_SOURCES += \
	%reldir%/cuda/launchers.h \
	%reldir%/cuda/sync.cuh \
	%reldir%/cuda/trisolve.cu \
	%reldir%/cuda/ilu0.cu \
	%reldir%/cuda/bjacobi.cu \
	%reldir%/cuda/spgemm.cu \
	%reldir%/cuda/aggregate.cu \
	%reldir%/cuda/transpose.cu \
	%reldir%/cuda/amg_level.cu \
	%reldir%/cuda/amg_lanczos.cu \
	%reldir%/cuda/amg_smooth.cu \
	%reldir%/cuda/amg_classical.cu \
	%reldir%/cuda/mcgs.cu
endif
EXTRA_DIST += %reldir%/cuda/launchers.h %reldir%/cuda/sync.cuh
