# tests/solvers.mk: unit tests of the vector ops and the Krylov solvers, and the solver regressions on the real matrices.
# The -cuda.sh entries run the same programs on the CUDA backend (SPS_TEST_DEVICE=cuda) and
# skip (77) without a GPU.
check_PROGRAMS += tests/unit/vector_ops tests/unit/solvers tests/unit/cpu_simd
TESTS += tests/unit/vector_ops tests/unit/solvers tests/unit/cpu_simd \
	%reldir%/unit/vector-ops-cuda.sh %reldir%/unit/solvers-cuda.sh %reldir%/unit/solvers-shards.sh
EXTRA_DIST += %reldir%/unit/vector-ops-cuda.sh %reldir%/unit/solvers-cuda.sh \
	%reldir%/unit/solvers-shards.sh
tests_unit_vector_ops_SOURCES = %reldir%/unit/vector_ops.c
tests_unit_vector_ops_LDADD = $(TEST_LDADD)
# The CPU backend's vector kernels of each instruction set against the scalar loops, bit for bit.
tests_unit_cpu_simd_SOURCES = %reldir%/unit/cpu_simd.c
tests_unit_cpu_simd_LDADD = $(TEST_LDADD)
tests_unit_solvers_SOURCES = %reldir%/unit/solvers.c
tests_unit_solvers_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/regress/solvers
TESTS += tests/regress/solvers %reldir%/regress/regress-cuda.sh
tests_regress_solvers_SOURCES = %reldir%/regress/solvers.c
tests_regress_solvers_LDADD = $(TEST_LDADD)
EXTRA_DIST += %reldir%/regress/regress-cuda.sh
# Device-driven GMRES(m) and BiCGSTAB steps of the backend ops table (core/krylov_state.h):
# the CPU backend's, and (krylov-steps-cuda.sh) the CUDA backend's against them.
check_PROGRAMS += tests/unit/krylov_steps
TESTS += tests/unit/krylov_steps %reldir%/unit/krylov-steps-cuda.sh
EXTRA_DIST += %reldir%/unit/krylov-steps-cuda.sh
tests_unit_krylov_steps_SOURCES = %reldir%/unit/krylov_steps.c
tests_unit_krylov_steps_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/spmv -I$(top_srcdir)/tests
tests_unit_krylov_steps_LDADD = $(TEST_LDADD)
# Compensated sums (core/compensated_sum.h), and the CPU against the CUDA backend on every
# square shared matrix (skips without a GPU).
check_PROGRAMS += tests/unit/compensated_sum tests/regress/cpu_vs_gpu
TESTS += tests/unit/compensated_sum tests/regress/cpu_vs_gpu
tests_unit_compensated_sum_SOURCES = %reldir%/unit/compensated_sum.c
tests_unit_compensated_sum_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/tests
tests_unit_compensated_sum_LDADD = $(TEST_LDADD)
tests_regress_cpu_vs_gpu_SOURCES = %reldir%/regress/cpu_vs_gpu.c
tests_regress_cpu_vs_gpu_LDADD = $(TEST_LDADD)
# Every square shared matrix with the defaults (automatic method and preconditioner), on the
# CPU and (defaults-cuda.sh) on the GPU with the same expectations.
check_PROGRAMS += tests/regress/defaults
TESTS += tests/regress/defaults %reldir%/regress/defaults-cuda.sh
tests_regress_defaults_SOURCES = %reldir%/regress/defaults.c
tests_regress_defaults_LDADD = $(TEST_LDADD)
EXTRA_DIST += %reldir%/regress/defaults-cuda.sh
# Pipelined CG: convergence, its iterations beside CG's, and (pipelined-cuda.sh) the GPU's x
# against the CPU's to the bit.
check_PROGRAMS += tests/unit/pipelined
TESTS += tests/unit/pipelined %reldir%/unit/pipelined-cuda.sh
EXTRA_DIST += %reldir%/unit/pipelined-cuda.sh
tests_unit_pipelined_SOURCES = %reldir%/unit/pipelined.c
tests_unit_pipelined_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_pipelined_LDADD = $(TEST_LDADD)
# sps_solver_solve_many: batched CG, GMRES and BiCGSTAB against the single solves column by
# column (bitwise), block CG, the automatic choice, bad arguments; and (solve-many-cuda.sh) the
# same on the GPU.
check_PROGRAMS += tests/unit/solve_many
TESTS += tests/unit/solve_many %reldir%/unit/solve-many-cuda.sh
EXTRA_DIST += %reldir%/unit/solve-many-cuda.sh
tests_unit_solve_many_SOURCES = %reldir%/unit/solve_many.c
tests_unit_solve_many_LDADD = $(TEST_LDADD)
# The block ops table (core/block_ops.h): each column of a block step against the single-vector
# step, bitwise; and (block-steps-cuda.sh) the CUDA block kernels against the CPU block ops.
check_PROGRAMS += tests/unit/block_steps
TESTS += tests/unit/block_steps %reldir%/unit/block-steps-cuda.sh
EXTRA_DIST += %reldir%/unit/block-steps-cuda.sh
tests_unit_block_steps_SOURCES = %reldir%/unit/block_steps.c
tests_unit_block_steps_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/tests
tests_unit_block_steps_LDADD = $(TEST_LDADD)
