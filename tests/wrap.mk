# tests/wrap.mk: matrices and vectors over the caller's arrays, and the preconditioner's apply.
# unit/wrap runs on a CPU context; unit/wrap_gpu, the same source built with SPS_TEST_GPU, wraps
# cudaMalloc'd arrays on a CUDA context (calling the CUDA runtime itself, hence CUDA_LIBS) and
# exits 77 without a GPU.
SPS_WRAP_TESTS = %reldir%/unit/wrap %reldir%/unit/wrap_gpu
check_PROGRAMS += $(SPS_WRAP_TESTS)
TESTS += $(SPS_WRAP_TESTS)
%canon_reldir%_unit_wrap_SOURCES = %reldir%/unit/wrap.c
%canon_reldir%_unit_wrap_LDADD = $(TEST_LDADD)
%canon_reldir%_unit_wrap_gpu_SOURCES = %reldir%/unit/wrap.c
%canon_reldir%_unit_wrap_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_unit_wrap_gpu_LDADD = $(TEST_LDADD) $(CUDA_LIBS)
