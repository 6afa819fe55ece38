/* spmv_measure.c: one SpMV plan checked against the CPU reference and timed (spmv_measure.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/csr_matvec.h"
#include "../core/internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#endif
#include "spmv_measure.h"

void bench_spmv_reference(const sps_matrix *A, const double *x, double *yref, double *tol)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  sps_matrix_get_size(A, &m, NULL, NULL);
  sps_csr_matvec_host(m, rp, ci, va, x, yref);
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t i = 0; i < m; i++) {
    double b = 0.0; /* sum_j |a_ij x_j| */
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) b += fabs(va[k] * x[ci[k]]);
    tol[i] = (double)(2 * (rp[i + 1] - rp[i]) + 4) * 0x1.0p-52 * b;
  }
}

int64_t bench_spmv_compare(int64_t m, const double *y, const double *yref, const double *tol,
                           double *worst, int64_t *first)
{
  int64_t bad = 0;
  double w = 0.0;
  *first = -1;
  for (int64_t i = 0; i < m; i++) {
    const double d = fabs(y[i] - yref[i]);
    if (!(d <= tol[i])) {
      if (bad++ == 0) *first = i;
      w = INFINITY;
    } else if (tol[i] > 0.0 && d / tol[i] > w) {
      w = d / tol[i];
    }
  }
  *worst = w;
  return bad;
}

#ifdef SPS_HAVE_CUDA
/*
 * Capture batch applies in one CUDA graph on the context's stream, replay it once to warm
 * up, then time repeat replays; seconds per apply, the median. A variant that cannot be
 * captured is reported in msg.
 */
sps_status bench_spmv_time_graph(sps_context *ctx, sps_spmv_plan *plan, const sps_vector *x,
                                 sps_vector *y, bench_timer *t, int repeat, int batch,
                                 double *sec, char *msg, size_t msglen)
{
  cudaStream_t s = sps_cuda(ctx)->stream;
  cudaGraph_t g = NULL;
  cudaGraphExec_t ge = NULL;
  sps_status st = SPS_SUCCESS;
  double v[1024];
  if (repeat > 1024) repeat = 1024;
  cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess) {
    for (int k = 0; k < batch && !st; k++) st = sps_spmv_apply(plan, 1.0, x, 0.0, y);
    cudaError_t e2 = cudaStreamEndCapture(s, &g);
    if (!st && e2 != cudaSuccess) e = e2;
  }
  if (st || e != cudaSuccess) {
    snprintf(msg, msglen, "graph capture failed: %s",
             st ? sps_context_last_error(ctx) : cudaGetErrorString(e));
    (void)cudaGetLastError();
    if (g) cudaGraphDestroy(g);
    return st ? st : SPS_ERR_CUDA;
  }
  e = cudaGraphInstantiate(&ge, g, 0);
  if (e == cudaSuccess) e = cudaGraphLaunch(ge, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  for (int r = 0; r < repeat && e == cudaSuccess && !st; r++) {
    st = bench_timer_start(t);
    if (!st) e = cudaGraphLaunch(ge, s);
    if (!st && e == cudaSuccess) st = bench_timer_stop(t, &v[r]);
    v[r] /= batch;
  }
  if (e != cudaSuccess || st) {
    snprintf(msg, msglen, "graph replay failed: %s",
             st ? sps_context_last_error(ctx) : cudaGetErrorString(e));
    (void)cudaGetLastError();
    if (!st) st = SPS_ERR_CUDA;
  } else {
    *sec = bench_median(v, repeat);
  }
  if (ge) cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return st;
}
#else
sps_status bench_spmv_time_graph(sps_context *ctx, sps_spmv_plan *plan, const sps_vector *x,
                                 sps_vector *y, bench_timer *t, int repeat, int batch,
                                 double *sec, char *msg, size_t msglen)
{
  (void)ctx, (void)plan, (void)x, (void)y, (void)t, (void)repeat, (void)batch, (void)sec;
  snprintf(msg, msglen, "built without CUDA: no graphs");
  return SPS_ERR_UNSUPPORTED;
}
#endif

sps_status bench_spmv_time(sps_context *ctx, sps_spmv_plan *plan, const sps_vector *x,
                           sps_vector *y, bench_timer *t, int repeat, double target_s, double *sec,
                           char *msg, size_t msglen)
{
  double v[64], t1;
  sps_status st;
  if (repeat > 64) repeat = 64;
  if (repeat < 1) repeat = 1;
  *sec = NAN;
  /* Warm-up (the first launch of a kernel may load its module), then a first estimate. */
  if ((st = sps_spmv_apply(plan, 1.0, x, 0.0, y)) || (st = bench_timer_start(t)) ||
      (st = sps_spmv_apply(plan, 1.0, x, 0.0, y)) || (st = bench_timer_stop(t, &t1))) {
    snprintf(msg, msglen, "warm-up failed: %s", sps_context_last_error(ctx));
    return st;
  }
  int batch = t1 > 0.0 ? (int)(target_s / (repeat * t1)) : 20;
  if (batch > 20) batch = 20;
  if (batch < 1) batch = 1;
  if (t1 > target_s) repeat = repeat < 3 ? repeat : 3;
  if (ctx->kind == SPS_DEVICE_CUDA)
    return bench_spmv_time_graph(ctx, plan, x, y, t, repeat, batch, sec, msg, msglen);
  for (int r = 0; r < repeat; r++) {
    if ((st = bench_timer_start(t))) break;
    for (int k = 0; k < batch && !st; k++) st = sps_spmv_apply(plan, 1.0, x, 0.0, y);
    if (st || (st = bench_timer_stop(t, &v[r]))) break;
    v[r] /= batch;
  }
  if (st) {
    snprintf(msg, msglen, "apply failed: %s", sps_context_last_error(ctx));
    return st;
  }
  *sec = bench_median(v, repeat);
  return SPS_SUCCESS;
}
