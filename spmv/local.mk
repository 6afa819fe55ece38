# spmv/local.mk: the SpMV plan, its variants, their CPU references (ref/) and CUDA kernels (cuda/).
libspsolve_la_SOURCES += \
	%reldir%/spmv_internal.h \
	%reldir%/threads_per_row.h \
	%reldir%/plan.c \
	%reldir%/stats.c \
	%reldir%/select.c \
	%reldir%/model_sm90.c \
	%reldir%/candidates.c \
	%reldir%/tune.c \
	%reldir%/tune_cache.c \
	%reldir%/csr_scalar.c \
	%reldir%/csr_vector.c \
	%reldir%/ell.c \
	%reldir%/coo.c \
	%reldir%/hyb.c \
	%reldir%/merge.c \
	%reldir%/blockwise.c \
	%reldir%/binned.c \
	%reldir%/ref/kernels.h \
	%reldir%/ref/csr_scalar.c \
	%reldir%/ref/csr_sliced.c \
	%reldir%/ref/csr_sliced_avx2.c \
	%reldir%/ref/csr_sliced_avx512.c \
	%reldir%/ref/csr_vector.c \
	%reldir%/ref/ell.c \
	%reldir%/ref/coo.c \
	%reldir%/ref/hyb.c \
	%reldir%/ref/merge.c \
	%reldir%/ref/blockwise.c \
	%reldir%/ref/binned.c \
	%reldir%/ref/stats.c

if SPS_CUDA
libspsolve_la_SOURCES += \
	%reldir%/cusparse.c \
	%reldir%/cusparse_csr.h \
	%reldir%/cuda/launchers.h \
	%reldir%/cuda/reduce.cuh \
	%reldir%/cuda/csr_scalar.cu \
	%reldir%/cuda/csr_vector.cu \
	%reldir%/cuda/ell.cu \
	%reldir%/cuda/coo.cu \
	%reldir%/cuda/hyb.cu \
	%reldir%/cuda/merge.cu \
	%reldir%/cuda/blockwise.cu \
	%reldir%/cuda/binned.cu \
	%reldir%/cuda/stats.cu
endif
EXTRA_DIST += %reldir%/cusparse.c %reldir%/cusparse_csr.h %reldir%/cuda/launchers.h %reldir%/cuda/reduce.cuh

# The product of distributed matrices (--with-mpi): halo exchange, head variant, boundary rows.
if SPS_MPI
libspsolve_la_SOURCES += %reldir%/dist.c %reldir%/ref/dist.c
if SPS_CUDA
libspsolve_la_SOURCES += %reldir%/cuda/dist.cu
endif
endif

# The SpMM layer (Y = alpha*A*X + beta*Y for k columns): plan, rule, variants, CPU references, kernels.
libspsolve_la_SOURCES += \
	%reldir%/spmm_internal.h \
	%reldir%/spmm_plan.c \
	%reldir%/spmm_select.c \
	%reldir%/spmm_csr.c \
	%reldir%/spmm_sputnik.c \
	%reldir%/spmm_balanced.c \
	%reldir%/spmm_spmv.c \
	%reldir%/ref/spmm_kernels.h \
	%reldir%/ref/spmm_csr.c \
	%reldir%/ref/spmm_sputnik.c \
	%reldir%/ref/spmm_balanced.c

if SPS_CUDA
libspsolve_la_SOURCES += \
	%reldir%/spmm_cusparse.c \
	%reldir%/cuda/spmm_launchers.h \
	%reldir%/cuda/spmm_csr.cu \
	%reldir%/cuda/spmm_sputnik.cu \
	%reldir%/cuda/spmm_balanced.cu
endif
EXTRA_DIST += %reldir%/spmm_cusparse.c %reldir%/cuda/spmm_launchers.h
