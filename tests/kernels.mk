# tests/kernels.mk: the SpMV kernel tests.
# spmv_<variant> checks the variant's CPU reference against a plain CSR loop (always runs);
# spmv_<variant>_gpu, the same source built with SPS_TEST_GPU, checks the GPU kernel against
# the CPU reference, from the int32 device row offsets and again from the int64 ones (those of
# nnz > INT32_MAX, forced on a copy), and exits 77 without a GPU. spmv_large runs every variant on the two large
# shared matrices, reading each once. spmv_bitwise checks that the compensated variants (CPU
# references; GPU kernels in spmv_bitwise_gpu) give bitwise the CPU csr-scalar reference's y
# on badly scaled and cancelling random rows and on the bundled and shared matrices.
SPS_SPMV_TESTS =
SPS_SPMV_TESTS += %reldir%/kernels/spmv_csr_scalar %reldir%/kernels/spmv_csr_scalar_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_csr_vector %reldir%/kernels/spmv_csr_vector_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_ell %reldir%/kernels/spmv_ell_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_coo %reldir%/kernels/spmv_coo_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_hyb %reldir%/kernels/spmv_hyb_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_merge %reldir%/kernels/spmv_merge_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_blockwise %reldir%/kernels/spmv_blockwise_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_binned %reldir%/kernels/spmv_binned_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_cusparse %reldir%/kernels/spmv_cusparse_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_large %reldir%/kernels/spmv_large_gpu
SPS_SPMV_TESTS += %reldir%/kernels/spmv_bitwise %reldir%/kernels/spmv_bitwise_gpu
# spmv_csr_sliced: csr-scalar's sliced copy on the CPU (AVX2, AVX-512F) against the CSR loop.
SPS_SPMV_TESTS += %reldir%/kernels/spmv_csr_sliced
# spmv_dot: csr-scalar's product and (x, y) in one pass (CG's (p, Ap) on the CPU) against the two
# apart, bit for bit, on 1 to 3 threads.
SPS_SPMV_TESTS += %reldir%/kernels/spmv_dot
check_PROGRAMS += $(SPS_SPMV_TESTS)
TESTS += $(SPS_SPMV_TESTS)
EXTRA_DIST += %reldir%/kernels/spmv_check.h

%canon_reldir%_kernels_spmv_csr_scalar_SOURCES = %reldir%/kernels/spmv_csr_scalar.c
%canon_reldir%_kernels_spmv_csr_scalar_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_csr_scalar_gpu_SOURCES = %reldir%/kernels/spmv_csr_scalar.c
%canon_reldir%_kernels_spmv_csr_scalar_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_csr_scalar_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_csr_vector_SOURCES = %reldir%/kernels/spmv_csr_vector.c
%canon_reldir%_kernels_spmv_csr_vector_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_csr_vector_gpu_SOURCES = %reldir%/kernels/spmv_csr_vector.c
%canon_reldir%_kernels_spmv_csr_vector_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_csr_vector_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_ell_SOURCES = %reldir%/kernels/spmv_ell.c
%canon_reldir%_kernels_spmv_ell_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_ell_gpu_SOURCES = %reldir%/kernels/spmv_ell.c
%canon_reldir%_kernels_spmv_ell_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_ell_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_coo_SOURCES = %reldir%/kernels/spmv_coo.c
%canon_reldir%_kernels_spmv_coo_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_coo_gpu_SOURCES = %reldir%/kernels/spmv_coo.c
%canon_reldir%_kernels_spmv_coo_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_coo_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_hyb_SOURCES = %reldir%/kernels/spmv_hyb.c
%canon_reldir%_kernels_spmv_hyb_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_hyb_gpu_SOURCES = %reldir%/kernels/spmv_hyb.c
%canon_reldir%_kernels_spmv_hyb_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_hyb_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_merge_SOURCES = %reldir%/kernels/spmv_merge.c
%canon_reldir%_kernels_spmv_merge_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_merge_gpu_SOURCES = %reldir%/kernels/spmv_merge.c
%canon_reldir%_kernels_spmv_merge_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_merge_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_blockwise_SOURCES = %reldir%/kernels/spmv_blockwise.c
%canon_reldir%_kernels_spmv_blockwise_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_blockwise_gpu_SOURCES = %reldir%/kernels/spmv_blockwise.c
%canon_reldir%_kernels_spmv_blockwise_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_blockwise_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_binned_SOURCES = %reldir%/kernels/spmv_binned.c
%canon_reldir%_kernels_spmv_binned_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_binned_gpu_SOURCES = %reldir%/kernels/spmv_binned.c
%canon_reldir%_kernels_spmv_binned_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_binned_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_cusparse_SOURCES = %reldir%/kernels/spmv_cusparse.c
%canon_reldir%_kernels_spmv_cusparse_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_cusparse_gpu_SOURCES = %reldir%/kernels/spmv_cusparse.c
%canon_reldir%_kernels_spmv_cusparse_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_cusparse_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_large_SOURCES = %reldir%/kernels/spmv_large.c
%canon_reldir%_kernels_spmv_large_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_large_gpu_SOURCES = %reldir%/kernels/spmv_large.c
%canon_reldir%_kernels_spmv_large_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_large_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_csr_sliced_SOURCES = %reldir%/kernels/spmv_csr_sliced.c
%canon_reldir%_kernels_spmv_csr_sliced_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_dot_SOURCES = %reldir%/kernels/spmv_dot.c
%canon_reldir%_kernels_spmv_dot_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_bitwise_SOURCES = %reldir%/kernels/spmv_bitwise.c
%canon_reldir%_kernels_spmv_bitwise_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmv_bitwise_gpu_SOURCES = %reldir%/kernels/spmv_bitwise.c
%canon_reldir%_kernels_spmv_bitwise_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmv_bitwise_gpu_LDADD = $(TEST_LDADD)

# The statistics kernel (spmv/cuda/stats.cu): stats checks the CPU reference's integer sums
# against a serial loop; stats_gpu (SPS_TEST_GPU) the GPU's against the CPU reference, word for
# word, and prints the cost of AUTO's statistics in SpMVs; it exits 77 without a GPU.
check_PROGRAMS += %reldir%/kernels/stats %reldir%/kernels/stats_gpu
TESTS += %reldir%/kernels/stats %reldir%/kernels/stats_gpu
%canon_reldir%_kernels_stats_SOURCES = %reldir%/kernels/stats.c
%canon_reldir%_kernels_stats_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_stats_gpu_SOURCES = %reldir%/kernels/stats.c
%canon_reldir%_kernels_stats_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_stats_gpu_LDADD = $(TEST_LDADD)

# The preconditioners' kernels (triangular solves, ILU(0), block Jacobi) against their CPU
# references; the _gpu build holds the CUDA kernels to them bit for bit.
check_PROGRAMS += %reldir%/kernels/precond_kernels %reldir%/kernels/precond_kernels_gpu
TESTS += %reldir%/kernels/precond_kernels %reldir%/kernels/precond_kernels_gpu
%canon_reldir%_kernels_precond_kernels_SOURCES = %reldir%/kernels/precond_kernels.c
%canon_reldir%_kernels_precond_kernels_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_precond_kernels_gpu_SOURCES = %reldir%/kernels/precond_kernels.c
%canon_reldir%_kernels_precond_kernels_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_precond_kernels_gpu_LDADD = $(TEST_LDADD)

# Strength of connection and MIS(2) aggregation (precond/aggregate.c): amg_aggregate checks the
# CPU reference against the definitions (strength graph, MIS(2), joining rule, counts);
# amg_aggregate_gpu (SPS_TEST_GPU) the CUDA kernels against the CPU reference, element for
# element, with the GPU's time next to one SpMV; it exits 77 without a GPU.
check_PROGRAMS += %reldir%/kernels/amg_aggregate %reldir%/kernels/amg_aggregate_gpu
TESTS += %reldir%/kernels/amg_aggregate %reldir%/kernels/amg_aggregate_gpu
%canon_reldir%_kernels_amg_aggregate_SOURCES = %reldir%/kernels/amg_aggregate.c
%canon_reldir%_kernels_amg_aggregate_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_amg_aggregate_gpu_SOURCES = %reldir%/kernels/amg_aggregate.c
%canon_reldir%_kernels_amg_aggregate_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_amg_aggregate_gpu_LDADD = $(TEST_LDADD)

# The multigrid setup's other steps (precond/ref/amg_level.c, amg_classical.c, mcgs.c, the
# transpose): amg_setup checks the CPU references against definitions and properties (strength,
# the PMIS split, truncation, colouring, row sums); amg_setup_gpu (SPS_TEST_GPU) holds each CUDA
# kernel to its reference byte for byte, step by step; it exits 77 without a GPU.
check_PROGRAMS += %reldir%/kernels/amg_setup %reldir%/kernels/amg_setup_gpu
TESTS += %reldir%/kernels/amg_setup %reldir%/kernels/amg_setup_gpu
%canon_reldir%_kernels_amg_setup_SOURCES = %reldir%/kernels/amg_setup.c
%canon_reldir%_kernels_amg_setup_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_amg_setup_gpu_SOURCES = %reldir%/kernels/amg_setup.c
%canon_reldir%_kernels_amg_setup_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_amg_setup_gpu_LDADD = $(TEST_LDADD)

# TUNE and its disk cache through the API: on the CPU, and (spmv-tune-cuda.sh) the same program
# on the GPU, where the candidates are timed in CUDA graphs (skips without a GPU).
check_PROGRAMS += tests/unit/spmv_tune
TESTS += tests/unit/spmv_tune %reldir%/unit/spmv-tune-cuda.sh
EXTRA_DIST += %reldir%/unit/spmv-tune-cuda.sh
tests_unit_spmv_tune_SOURCES = %reldir%/unit/spmv_tune.c
tests_unit_spmv_tune_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/spmv -I$(top_srcdir)/tests
tests_unit_spmv_tune_LDADD = $(TEST_LDADD)

# The sparse product of multigrid (precond/spgemm.c): spgemm checks the CPU reference against a
# dense product and the host entry points' errors; spgemm_gpu (SPS_TEST_GPU) holds the GPU hash
# SpGEMM to the reference bit for bit on random, every-bin and real products (A A, A P,
# P^T A P); it exits 77 without a GPU.
check_PROGRAMS += %reldir%/kernels/spgemm %reldir%/kernels/spgemm_gpu
TESTS += %reldir%/kernels/spgemm %reldir%/kernels/spgemm_gpu
%canon_reldir%_kernels_spgemm_SOURCES = %reldir%/kernels/spgemm.c
%canon_reldir%_kernels_spgemm_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spgemm_gpu_SOURCES = %reldir%/kernels/spgemm.c
%canon_reldir%_kernels_spgemm_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spgemm_gpu_LDADD = $(TEST_LDADD)
# The SpMM layer: spmm_<variant> checks the variant's CPU reference against the reference SpMM
# (spmm-csr on the CPU, itself checked against the csr-scalar SpMV column by column, bitwise)
# and the plain loop; spmm_<variant>_gpu (SPS_TEST_GPU) the GPU kernel against that CPU
# reference, exit 77 without a GPU; sputnik and balanced, on either, also from blocks aligned to
# 8 bytes only (their one-double loads). spmm_api: multivectors, wrapped blocks, AUTO, bad
# arguments.
SPS_SPMM_TESTS = %reldir%/kernels/spmm_csr %reldir%/kernels/spmm_csr_gpu \
	%reldir%/kernels/spmm_sputnik %reldir%/kernels/spmm_sputnik_gpu \
	%reldir%/kernels/spmm_balanced %reldir%/kernels/spmm_balanced_gpu \
	%reldir%/kernels/spmm_cusparse %reldir%/kernels/spmm_cusparse_gpu \
	%reldir%/kernels/spmm_spmv %reldir%/kernels/spmm_spmv_gpu \
	%reldir%/kernels/spmm_api %reldir%/kernels/spmm_api_gpu
check_PROGRAMS += $(SPS_SPMM_TESTS)
TESTS += $(SPS_SPMM_TESTS)
EXTRA_DIST += %reldir%/kernels/spmm_check.h
%canon_reldir%_kernels_spmm_csr_SOURCES = %reldir%/kernels/spmm_csr.c
%canon_reldir%_kernels_spmm_csr_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_csr_gpu_SOURCES = %reldir%/kernels/spmm_csr.c
%canon_reldir%_kernels_spmm_csr_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_csr_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_sputnik_SOURCES = %reldir%/kernels/spmm_sputnik.c
%canon_reldir%_kernels_spmm_sputnik_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_sputnik_gpu_SOURCES = %reldir%/kernels/spmm_sputnik.c
%canon_reldir%_kernels_spmm_sputnik_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_sputnik_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_balanced_SOURCES = %reldir%/kernels/spmm_balanced.c
%canon_reldir%_kernels_spmm_balanced_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_balanced_gpu_SOURCES = %reldir%/kernels/spmm_balanced.c
%canon_reldir%_kernels_spmm_balanced_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_balanced_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_cusparse_SOURCES = %reldir%/kernels/spmm_cusparse.c
%canon_reldir%_kernels_spmm_cusparse_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_cusparse_gpu_SOURCES = %reldir%/kernels/spmm_cusparse.c
%canon_reldir%_kernels_spmm_cusparse_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_cusparse_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_api_SOURCES = %reldir%/kernels/spmm_api.c
%canon_reldir%_kernels_spmm_api_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_api_gpu_SOURCES = %reldir%/kernels/spmm_api.c
%canon_reldir%_kernels_spmm_api_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_api_gpu_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_spmv_SOURCES = %reldir%/kernels/spmm_spmv.c
%canon_reldir%_kernels_spmm_spmv_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_spmm_spmv_gpu_SOURCES = %reldir%/kernels/spmm_spmv.c
%canon_reldir%_kernels_spmm_spmv_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_spmm_spmv_gpu_LDADD = $(TEST_LDADD)
