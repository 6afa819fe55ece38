# bench/spmv.mk: the SpMV and solver benchmark drivers (spmv-bench, solve-bench, precond-bench, amg-cycle-bench, select-sweep, select-bench), the peer script, plots and the GPU run script.
noinst_PROGRAMS += %reldir%/spmv-bench %reldir%/solve-bench %reldir%/precond-bench \
	%reldir%/select-sweep %reldir%/select-bench %reldir%/cpu-omp-threshold \
	%reldir%/amg-cycle-bench
bench_common_sources = \
	%reldir%/bench_util.c \
	%reldir%/bench_util.h \
	%reldir%/bench_cuda.h \
	%reldir%/gen.c \
	%reldir%/gen.h

%canon_reldir%_spmv_bench_SOURCES = %reldir%/spmv_bench.c %reldir%/spmv_measure.c \
	%reldir%/spmv_measure.h $(bench_common_sources)
%canon_reldir%_spmv_bench_LDADD = libspsolve.la $(CUDA_LIBS)
%canon_reldir%_solve_bench_SOURCES = %reldir%/solve_bench.c $(bench_common_sources)
%canon_reldir%_solve_bench_LDADD = libspsolve.la $(CUDA_LIBS)
# where solve-bench --peers finds bench/cpu-peers.py
%canon_reldir%_solve_bench_CPPFLAGS = $(AM_CPPFLAGS) -DSPS_BENCH_SRCDIR='"$(abs_srcdir)/%reldir%"'

%canon_reldir%_precond_bench_SOURCES = %reldir%/precond_bench.c $(bench_common_sources)
%canon_reldir%_precond_bench_LDADD = libspsolve.la $(CUDA_LIBS)
%canon_reldir%_amg_cycle_bench_SOURCES = %reldir%/amg_cycle_bench.c $(bench_common_sources)
%canon_reldir%_amg_cycle_bench_LDADD = libspsolve.la $(CUDA_LIBS)
%canon_reldir%_select_sweep_SOURCES = %reldir%/select_sweep.c %reldir%/spmv_measure.c \
	%reldir%/spmv_measure.h $(bench_common_sources)
%canon_reldir%_select_sweep_LDADD = libspsolve.la $(CUDA_LIBS)
%canon_reldir%_select_bench_SOURCES = %reldir%/select_bench.c $(bench_common_sources)
%canon_reldir%_select_bench_LDADD = libspsolve.la $(CUDA_LIBS)
%canon_reldir%_cpu_omp_threshold_SOURCES = %reldir%/cpu_omp_threshold.c $(bench_common_sources)
%canon_reldir%_cpu_omp_threshold_LDADD = libspsolve.la $(CUDA_LIBS)

EXTRA_DIST += \
	%reldir%/README.md \
	%reldir%/peers.py \
	%reldir%/plot.py \
	%reldir%/plot_convergence.py \
	%reldir%/traffic.py \
	%reldir%/run-gpu.sh \
	%reldir%/run-precond.sh \
	%reldir%/progress-cost.sh \
	%reldir%/cpu-bits-check.sh \
	%reldir%/cpu-callgrind.sh \
	%reldir%/cpu-peers.py \
	%reldir%/cpu-profile.sh \
	%reldir%/cpu-table.py \
	%reldir%/cpu-time.sh \
	%reldir%/amg-table.sh \
	%reldir%/amg-gpu.sh \
	%reldir%/amg-summary.py \
	%reldir%/amg-auto.sh \
	%reldir%/pyamg-table.py \
	%reldir%/select/sweep.list \
	%reldir%/select/make-sweep-list.py \
	%reldir%/select/train.py \
	%reldir%/select/run-sweep.sh
