/* spmv_measure.h: one SpMV plan checked against the CPU reference and timed (CUDA graph on a GPU, wall clock on the CPU), for select-sweep and spmv-bench. */
#ifndef SPS_BENCH_SPMV_MEASURE_H
#define SPS_BENCH_SPMV_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "bench_util.h"
#include "spsolve.h"

/*
 * The CPU reference: y_ref = A*x by csr-scalar's row loop, and for each row the bound
 * tol_i = (2*len_i + 4) * eps * sum_j |a_ij x_j|, which covers any order of summation
 * (as in spmv-bench).
 */
void bench_spmv_reference(const sps_matrix *A, const double *x, double *yref, double *tol);

/* The rows where |y - y_ref| > tol (or y is NaN); the largest |y - y_ref|/tol in *worst (Inf when
 * a row is wrong) and the first wrong row in *first (-1 when none). */
int64_t bench_spmv_compare(int64_t m, const double *y, const double *yref, const double *tol,
                           double *worst, int64_t *first);

/*
 * Seconds per apply of y <- A*x: one apply to warm up, one timed to size the batch (as many applies
 * as fit in target_s over the repeats, 1 to 20), then the median of @p repeat timed batches
 * (3 when a single apply exceeds target_s). On a CUDA context each batch is one CUDA graph of
 * the applies captured on the context's stream and replayed; on the CPU the applies run plainly
 * and the wall clock times them. On failure msg says why.
 */
sps_status bench_spmv_time(sps_context *ctx, sps_spmv_plan *plan, const sps_vector *x,
                           sps_vector *y, bench_timer *t, int repeat, double target_s, double *sec,
                           char *msg, size_t msglen);

/*
 * Seconds per apply on a CUDA context: @p batch applies captured in one CUDA graph on the
 * context's stream, replayed once to warm up, then the median of @p repeat timed replays divided
 * by the batch. A variant that cannot be captured or replayed is reported in msg. Without CUDA:
 * SPS_ERR_UNSUPPORTED.
 */
sps_status bench_spmv_time_graph(sps_context *ctx, sps_spmv_plan *plan, const sps_vector *x,
                                 sps_vector *y, bench_timer *t, int repeat, int batch,
                                 double *sec, char *msg, size_t msglen);

#endif /* SPS_BENCH_SPMV_MEASURE_H */
