# core/local.mk: context, errors, memory, vectors, matrices and Matrix Market I/O.
libspsolve_la_SOURCES += \
	%reldir%/internal.h \
	%reldir%/krylov_state.h \
	%reldir%/compensated_sum.h \
	%reldir%/csum_lanes.h \
	%reldir%/cpu_simd.h \
	%reldir%/cpu_simd.c \
	%reldir%/cpu_kernels.h \
	%reldir%/cpu_kernels_generic.c \
	%reldir%/cpu_kernels_avx2.c \
	%reldir%/cpu_kernels_avx512.c \
	%reldir%/nrm2_scale.h \
	%reldir%/splitmix64.h \
	%reldir%/csr_matvec.h \
	%reldir%/error.c \
	%reldir%/memory.c \
	%reldir%/scratch.c \
	%reldir%/context.c \
	%reldir%/backend_cpu.c \
	%reldir%/omp_csum.h \
	%reldir%/block_ops.h \
	%reldir%/backend_cpu_block.c \
	%reldir%/vector.c \
	%reldir%/wrap.c \
	%reldir%/csr_assemble.h \
	%reldir%/csr_assemble.c \
	%reldir%/matrix.c \
	%reldir%/mm_scan.h \
	%reldir%/mm_scan.c \
	%reldir%/mm_source.c \
	%reldir%/mm_read.c \
	%reldir%/mm_write.c

if SPS_CUDA
libspsolve_la_SOURCES += \
	%reldir%/cuda_state.h \
	%reldir%/backend_cuda.c \
	%reldir%/cuda/device_query.cu \
	%reldir%/cuda/vector_kernels.cu \
	%reldir%/cuda/blas_kernels.cu \
	%reldir%/cuda/cg_steps.cu \
	%reldir%/cuda/gmres_steps.cu \
	%reldir%/cuda/gmres_cluster.cu \
	%reldir%/cuda/bicgstab_steps.cu \
	%reldir%/cuda/split_steps.cu \
	%reldir%/cuda/dist_close.cu \
	%reldir%/backend_cuda_block.c \
	%reldir%/cuda/block_launchers.h \
	%reldir%/cuda/block_vector_kernels.cu \
	%reldir%/cuda/block_steps.cu \
	%reldir%/cuda/block_gmres_steps.cu \
	%reldir%/cuda/block_dense.cu
endif
EXTRA_DIST += %reldir%/cuda_state.h %reldir%/cuda/reduce.cuh %reldir%/cuda/block_reduce.cuh \
	%reldir%/cuda/block_launchers.h
libspsolve_la_SOURCES += %reldir%/multivector.c
libspsolve_la_SOURCES += %reldir%/comm.h
# The distributed context, matrices and their halo (--with-mpi).
if SPS_MPI
libspsolve_la_SOURCES += \
	%reldir%/comm.c \
	%reldir%/comm_nccl.h \
	%reldir%/comm_nccl.c \
	%reldir%/halo.h \
	%reldir%/halo.c \
	%reldir%/dist_matrix.h \
	%reldir%/dist_matrix.c \
	%reldir%/dist_vector.c \
	%reldir%/dist_read.c \
	%reldir%/partition.h \
	%reldir%/partition.c
endif
