# tests/mpi.mk: the distributed tests (tests/mpi/), each run by a wrapper under mpirun with 2 or 4 ranks
# (tests/mpi/run.sh, which oversubscribes the cores and runs as root too); without --with-mpi
# the programs are not built and the wrappers skip (77).
if SPS_MPI
check_PROGRAMS += tests/mpi/spmv tests/mpi/solvers tests/mpi/partition tests/mpi/api \
	tests/mpi/alloc_fail
tests_mpi_spmv_SOURCES = %reldir%/mpi/spmv.c %reldir%/mpi/mpitest.h
tests_mpi_spmv_LDADD = $(TEST_LDADD) $(MPI_LIBS)
tests_mpi_solvers_SOURCES = %reldir%/mpi/solvers.c %reldir%/mpi/mpitest.h
tests_mpi_solvers_LDADD = $(TEST_LDADD) $(MPI_LIBS)
tests_mpi_partition_SOURCES = %reldir%/mpi/partition.c %reldir%/mpi/mpitest.h
tests_mpi_partition_LDADD = $(TEST_LDADD) $(MPI_LIBS)
tests_mpi_api_SOURCES = %reldir%/mpi/api.c %reldir%/mpi/mpitest.h
tests_mpi_api_LDADD = $(TEST_LDADD) $(MPI_LIBS)
tests_mpi_alloc_fail_SOURCES = %reldir%/mpi/alloc_fail.c %reldir%/mpi/dist_ops.h %reldir%/mpi/mpitest.h
tests_mpi_alloc_fail_LDADD = $(TEST_LDADD) $(MPI_LIBS)
# The boundary-row kernel of the distributed product: its CPU reference against plain sums, and
# (spmv_dist_gpu, 77 without a GPU) the GPU kernel against the reference, bit for bit.
check_PROGRAMS += tests/kernels/spmv_dist tests/kernels/spmv_dist_gpu
tests_kernels_spmv_dist_SOURCES = %reldir%/kernels/spmv_dist.c
tests_kernels_spmv_dist_LDADD = $(TEST_LDADD)
tests_kernels_spmv_dist_gpu_SOURCES = %reldir%/kernels/spmv_dist.c
tests_kernels_spmv_dist_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
tests_kernels_spmv_dist_gpu_LDADD = $(TEST_LDADD) $(CUDA_LIBS)
TESTS += tests/kernels/spmv_dist tests/kernels/spmv_dist_gpu
else
EXTRA_DIST += %reldir%/kernels/spmv_dist.c
endif
MPI_TESTS = %reldir%/mpi/spmv-np2.sh %reldir%/mpi/spmv-np4.sh \
	%reldir%/mpi/solvers-np2.sh %reldir%/mpi/solvers-np4.sh %reldir%/mpi/partition-np4.sh \
	%reldir%/mpi/api-np2.sh %reldir%/mpi/api-np4.sh %reldir%/mpi/alloc-fail-np2.sh \
	%reldir%/mpi/spmv-cuda-np2.sh %reldir%/mpi/solvers-cuda-np2.sh %reldir%/mpi/api-cuda-np2.sh
TESTS += $(MPI_TESTS)
EXTRA_DIST += $(MPI_TESTS) %reldir%/mpi/run.sh %reldir%/mpi/lsan-openmpi.supp %reldir%/mpi/mpitest.h %reldir%/mpi/spmv.c \
	%reldir%/mpi/solvers.c %reldir%/mpi/partition.c %reldir%/mpi/api.c %reldir%/mpi/alloc_fail.c \
	%reldir%/mpi/dist_ops.h
