/* stats.c: sps_matrix_get_stats, the statistics of a sparsity pattern from which the SpMV variant is chosen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/kernels.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * The statistics come from integer sums (sps_stats_sums, spmv/ref/kernels.h): the moments of
 * the row lengths are taken about k = round(nnz/rows), S1 = sum(len - k), S2 = sum((len - k)^2),
 * so var = S2/m - (S1/m)^2 with both sums exact; then the extremes and the counts, the long
 * rows of the blockwise partition and, with the columns, sum |col - row| and the distinct
 * 32-column windows of each row. The sums are made
 *   - on a CUDA matrix of at least SPS_STATS_GPU_MIN rows plus entries, by one kernel over
 *     its device arrays (spmv/cuda/stats.cu) whose last block writes the SPS_STATS_WORDS
 *     integers into pinned host memory: about a third of a CSR SpMV's memory traffic plus a
 *     launch and a synchronisation (no memset, no copy);
 *   - otherwise on the host (spmv/ref/stats.c), which is also the GPU's reference: the same
 *     integers to the bit, so the same statistics.
 * Only short_blocks, the blockwise partition's greedy grouping of consecutive short rows, is
 * sequential: it is one more pass over the host row offsets (sps_spmv_blockwise_count), made
 * for sps_matrix_get_stats and left out (-1) by AUTO, whose models do not read it.
 */

/* Below this many rows plus entries the host pass (one thread, about 1 ns an item on the build
 * machine) costs less than a kernel's launch and synchronisation (5-10 us), so a CUDA matrix
 * is measured on the host. To be calibrated on the GPU machine (select-sweep's stats_s). */
#define SPS_STATS_GPU_MIN 8192

sps_status sps_matrix_get_stats(const sps_matrix *A, sps_matrix_stats *out)
{
  if (!A) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(A->ctx, out, "out");
  return sps_spmv_stats_compute(A, SPS_STATS_COLUMNS | SPS_STATS_SHORT_BLOCKS, out);
}

void sps_spmv_stats_finish(const sps_stats_sums *t, int64_t m, int64_t n, int64_t nnz, int columns,
                           sps_matrix_stats *out)
{
  const double two64 = 18446744073709551616.0;
  sps_matrix_stats s = {0};
  s.rows = m;
  s.cols = n;
  s.nnz = nnz;
  s.short_blocks = -1;
  if (m > 0 && n > 0) s.density = (double)nnz / ((double)m * (double)n);
  if (m > 0) {
    const double s2 = (double)t->s2_hi * two64 + (double)t->s2_lo;
    const double mean_d = (double)(int64_t)t->s1 / (double)m;
    s.mean_len = (double)nnz / (double)m;
    s.min_len = (int64_t)~t->min_inv;
    s.max_len = (int64_t)t->max_len;
    s.var_len = s2 / (double)m - mean_d * mean_d;
    if (s.var_len < 0.0) s.var_len = 0.0;
    s.cv_len = s.mean_len > 0.0 ? sqrt(s.var_len) / s.mean_len : 0.0;
    s.empty_share = (double)t->empty / (double)m;
    s.over32_share = (double)t->over32 / (double)m;
    s.over1024_share = (double)t->over1024 / (double)m;
    s.long_blocks = (int64_t)t->long_blocks;
    s.long_rows = (int64_t)t->long_rows;
    if (columns) {
      const double dist = (double)t->dist_hi * two64 + (double)t->dist_lo;
      if (nnz > 0) s.col_distance = dist / (double)nnz / (double)(m > n ? m : n);
      s.windows_per_row = (double)t->windows / (double)m;
    }
  }
  *out = s;
}

int sps_spmv_stats_on_device(const sps_matrix *A)
{
#ifdef SPS_HAVE_CUDA
  return A->ctx->kind == SPS_DEVICE_CUDA && sps_cuda(A->ctx)->host_pinned_dev && A->d_rowptr &&
         (A->d_colind || A->nnz == 0);
#else
  (void)A;
  return 0;
#endif
}

sps_status sps_spmv_stats_sums(const sps_matrix *A, int columns, int on_device, sps_stats_sums *out)
{
  const int64_t m = A->nrows;
  const int64_t k = m > 0 ? (A->nnz + m / 2) / m : 0;
  if (!on_device || m == 0) {
    sps_ref_stats(m, A->rowptr, A->colind, columns, k, out);
    return SPS_SUCCESS;
  }
#ifdef SPS_HAVE_CUDA
  sps_context *ctx = A->ctx;
  struct sps_cuda_state *cs = sps_cuda(ctx);
  /* The kernel's last block writes the words into the pinned host buffer (SPS_CUDA_SCRATCH
   * doubles, only used within one call on the stream) through its device address, and leaves
   * its device words zero for the next call. */
  SPS_CUDA_LAUNCH(ctx, sps_cuda_stats(cs->stream, cs->sm_count, m, A->nnz, A->d_rowptr,
                                      A->d_rowptr32, A->d_colind, columns, k,
                                      (uint64_t *)cs->stats_words,
                                      (uint64_t *)cs->host_pinned_dev));
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  memcpy(out, cs->host_pinned, sizeof *out);
  return SPS_SUCCESS;
#else
  SPS_FAIL(A->ctx, SPS_ERR_UNSUPPORTED, "statistics on the device: built without CUDA");
#endif
}

sps_status sps_spmv_stats_compute(const sps_matrix *A, unsigned what, sps_matrix_stats *out)
{
  const double t0 = sps_wtime();
  const int columns = (what & SPS_STATS_COLUMNS) != 0;
  const int device = sps_spmv_stats_on_device(A) && A->nrows + A->nnz >= SPS_STATS_GPU_MIN;
  sps_stats_sums t;
  sps_status st = sps_spmv_stats_sums(A, columns, device, &t);
  if (st != SPS_SUCCESS) {
    /* Keep out defined: the host's statistics (the error stays recorded on the context). */
    sps_spmv_stats_sums(A, columns, 0, &t);
  }
  sps_spmv_stats_finish(&t, A->nrows, A->ncols, A->nnz, columns, out);
  if (what & SPS_STATS_SHORT_BLOCKS) {
    int64_t lb, lr;
    sps_spmv_blockwise_count(A, &out->short_blocks, &lb, &lr);
  }
  out->seconds = sps_wtime() - t0;
  return st;
}
