# spmv/local.mk: the SpMV plan, its variants, their CPU references (ref/) and CUDA kernels (cuda/).
libspsolve_la_SOURCES += \
	%reldir%/spmv_internal.h \
	%reldir%/plan.c \
	%reldir%/csr_scalar.c \
	%reldir%/ref/kernels.h \
	%reldir%/ref/csr_scalar.c

if SPS_CUDA
libspsolve_la_SOURCES += \
	%reldir%/cuda/launchers.h \
	%reldir%/cuda/csr_scalar.cu
endif
