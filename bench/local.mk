# bench/local.mk: benchmark drivers and their scripts; each group has its own fragment.
include %reldir%/mmio.mk
include %reldir%/spmv.mk
include %reldir%/spgemm.mk
include %reldir%/spmm.mk
include %reldir%/mpi.mk
include %reldir%/many.mk
