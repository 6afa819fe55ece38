# tests/bjacobi.mk: the tests of the block Jacobi preconditioner.
# kernels/precond_bjacobi checks the apply's CPU reference against a plain dense block apply;
# kernels/precond_bjacobi_gpu, the same source built with SPS_TEST_GPU, checks the GPU kernel
# against that reference bit for bit (calling the CUDA runtime itself, hence CUDA_LIBS) and
# exits 77 without a GPU. unit/bjacobi goes through
# the public API; unit/bjacobi-cuda.sh runs it on the GPU (SPS_TEST_DEVICE=cuda, 77 without one).
SPS_BJACOBI_TESTS = %reldir%/kernels/precond_bjacobi %reldir%/kernels/precond_bjacobi_gpu \
	%reldir%/unit/bjacobi
check_PROGRAMS += $(SPS_BJACOBI_TESTS)
TESTS += $(SPS_BJACOBI_TESTS) %reldir%/unit/bjacobi-cuda.sh
EXTRA_DIST += %reldir%/unit/bjacobi-cuda.sh
%canon_reldir%_kernels_precond_bjacobi_SOURCES = %reldir%/kernels/precond_bjacobi.c
%canon_reldir%_kernels_precond_bjacobi_LDADD = $(TEST_LDADD)
%canon_reldir%_kernels_precond_bjacobi_gpu_SOURCES = %reldir%/kernels/precond_bjacobi.c
%canon_reldir%_kernels_precond_bjacobi_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_TEST_GPU
%canon_reldir%_kernels_precond_bjacobi_gpu_LDADD = $(TEST_LDADD) $(CUDA_LIBS)
%canon_reldir%_unit_bjacobi_SOURCES = %reldir%/unit/bjacobi.c
%canon_reldir%_unit_bjacobi_LDADD = $(TEST_LDADD)
