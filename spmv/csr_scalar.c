/* csr_scalar.c: the csr-scalar SpMV variant: plain CSR, one row per thread; on the CPU, a sliced copy (SELL-8) where the processor has AVX2 or AVX-512F. */
#include <stdlib.h>

#include "../core/cpu_simd.h"
#include "../core/omp_csum.h"
#include "ref/kernels.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/* The sliced copy is refused when its entries (with padding) pass this many times nnz: the
 * padding's loads would cost more than the lanes gain (sherman5 and 1138_bus, 1.8: still
 * twice as fast as the CSR loop). */
#define SPS_SLICED_MAX_PADDING 2

/* The CPU plan's data: the slices, the instruction set they run with, and the matrix values'
 * version they were copied from. */
typedef struct csr_scalar_data {
  sps_csr_sliced S;
  int isa;
  uint64_t values_version;
} csr_scalar_data;

static void sliced_free(csr_scalar_data *d)
{
  if (!d) return;
  sps_host_free(d->S.offset);
  sps_host_free(d->S.width);
  sps_host_free(d->S.common);
  sps_host_free(d->S.len);
  sps_host_free(d->S.perm);
  sps_host_free(d->S.values);
  sps_host_free(d->S.colind);
  sps_host_free(d);
}

/* The length of the row in lane k: row perm[k] (row k without perm), 0 past A's rows. */
static int32_t lane_len(const sps_matrix *A, const int32_t *perm, int64_t k)
{
  const int64_t i = perm ? perm[k] : k;
  return i < A->nrows ? (int32_t)(A->rowptr[i + 1] - A->rowptr[i]) : 0;
}

/* A row and its length, for sorting a window. */
typedef struct len_row {
  int32_t len, row;
} len_row;

/* Longer first; ties in row order (so the order is one, whatever the sort). */
static int longer_first(const void *a, const void *b)
{
  const len_row *x = a, *y = b;
  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* Sort the rows [w0, w1) of a window (at most SPS_SLICE * SPS_SLICE_WINDOW) by length, longest
 * first, ties in row order, into rows[0 .. w1-w0). */
static void window_order(const sps_matrix *A, int64_t w0, int64_t w1, int32_t *rows)
{
  len_row lr[SPS_SLICE * SPS_SLICE_WINDOW];
  for (int64_t k = 0; k < w1 - w0; k++) {
    lr[k].row = (int32_t)(w0 + k);
    lr[k].len = lane_len(A, NULL, w0 + k);
  }
  qsort(lr, (size_t)(w1 - w0), sizeof *lr, longer_first);
  for (int64_t k = 0; k < w1 - w0; k++)
    rows[k] = lr[k].row;
}

/* The entries of ns slices with padding, the lanes' rows in perm's order (or in order). */
static int64_t padded_entries(const sps_matrix *A, const int32_t *perm, int64_t ns)
{
  int64_t padded = 0;
  for (int64_t s = 0; s < ns; s++) {
    int32_t w = 0;
    for (int l = 0; l < SPS_SLICE; l++) {
      const int32_t len = lane_len(A, perm, SPS_SLICE * s + l);
      if (len > w) w = len;
    }
    padded += (int64_t)SPS_SLICE * w;
  }
  return padded;
}

/* The layout (slice widths, offsets, row lengths, the rows' order), its arrays, and the copy of
 * A. The rows are sorted by length within windows (perm) where that cuts the padded entries by
 * a tenth or more (1138_bus and sherman5: 1.80 times nnz in row order, 1.06 sorted); the
 * padding only costs, and sorting also spreads a slice's x loads over its window. Leaves
 * plan->data NULL (CSR loop) when the processor has neither AVX2 nor AVX-512F or the padding
 * is too large either way. */
static sps_status sliced_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  const sps_cpu_isa isa = sps_cpu_isa_current();
  if (isa < SPS_CPU_ISA_AVX2 || A->nrows == 0) return SPS_SUCCESS;
  const int64_t m = A->nrows, ns = (m + SPS_SLICE - 1) / SPS_SLICE;
  const int64_t win = (int64_t)SPS_SLICE * SPS_SLICE_WINDOW;
  sps_status st = SPS_SUCCESS;
  csr_scalar_data *d = NULL;
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "csr-scalar slices"));
  sps_csr_sliced *S = &d->S;
  S->nrows = m;
  S->nslices = ns;
  SPS_TRY(sps_host_alloc(ctx, (void **)&S->perm, (size_t)ns * SPS_SLICE, sizeof *S->perm,
                         "csr-scalar row order"));
  for (int64_t w0 = 0; w0 < m; w0 += win)
    window_order(A, w0, w0 + win < m ? w0 + win : m, S->perm + w0);
  for (int64_t i = m; i < ns * SPS_SLICE; i++)
    S->perm[i] = INT32_MAX; /* no row: >= nrows (at most INT32_MAX) */
  const int64_t plain = padded_entries(A, NULL, ns), sorted = padded_entries(A, S->perm, ns);
  const int sort = sorted < plain && 10 * sorted <= 9 * plain;
  if ((sort ? sorted : plain) > SPS_SLICED_MAX_PADDING * A->nnz + SPS_SLICE) {
    sliced_free(d);
    return SPS_SUCCESS;
  }
  if (!sort) {
    sps_host_free(S->perm);
    S->perm = NULL;
  }
  SPS_TRY(sps_host_alloc(ctx, (void **)&S->len, (size_t)ns * SPS_SLICE, sizeof *S->len,
                         "csr-scalar row lengths"));
  for (int64_t k = 0; k < ns * SPS_SLICE; k++)
    S->len[k] = lane_len(A, S->perm, k);
  SPS_TRY(sps_host_alloc(ctx, (void **)&S->offset, (size_t)ns + 1, sizeof *S->offset,
                         "csr-scalar slice offsets"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&S->width, (size_t)ns, sizeof *S->width,
                         "csr-scalar slice widths"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&S->common, (size_t)ns, sizeof *S->common,
                         "csr-scalar slice widths"));
  int64_t off = 0;
  for (int64_t s = 0; s < ns; s++) {
    int32_t w = 0, c = INT32_MAX;
    for (int l = 0; l < SPS_SLICE; l++) {
      const int32_t len = S->len[SPS_SLICE * s + l];
      if (len > w) w = len;
      if (len < c) c = len;
    }
    S->offset[s] = off;
    S->width[s] = w;
    S->common[s] = c;
    off += (int64_t)SPS_SLICE * w;
  }
  S->offset[ns] = off;
  /* 64-byte aligned: the kernels load a slice step (8 doubles) whole; the sizes rounded up to
   * a multiple of the alignment, as aligned_alloc requires */
  const size_t nv = (size_t)(off > 0 ? off : 1);
  SPS_TRY(sps_host_alloc_aligned(ctx, (void **)&S->values, 64,
                                 (nv * sizeof *S->values + 63) / 64 * 64,
                                 "csr-scalar sliced values"));
  SPS_TRY(sps_host_alloc_aligned(ctx, (void **)&S->colind, 64,
                                 (nv * sizeof *S->colind + 63) / 64 * 64,
                                 "csr-scalar sliced columns"));
  sps_ref_csr_sliced_fill(S, A->rowptr, A->colind, A->values);
  d->isa = isa;
  d->values_version = A->values_version;
  plan->data = d;
  return SPS_SUCCESS;
cleanup:
  sliced_free(d);
  return st;
}

int sps_spmv_csr_scalar_layout(const sps_spmv_plan *plan)
{
  if (!plan->is_setup || plan->kind != SPS_SPMV_CSR_SCALAR || plan->ctx->kind != SPS_DEVICE_CPU ||
      !plan->data || plan->dist)
    return 0;
  return ((const csr_scalar_data *)plan->data)->S.perm ? 2 : 1;
}

/* sps_matrix_scale() since the copy was made: copy the values again (no allocation). */
static void sliced_refresh(csr_scalar_data *d, const sps_matrix *A)
{
  if (d->values_version == A->values_version) return;
  sps_ref_csr_sliced_fill(&d->S, A->rowptr, A->colind, A->values);
  d->values_version = A->values_version;
}

static sps_status csr_scalar_setup(sps_spmv_plan *plan)
{
  plan->threads_per_row = 1;
  if (plan->ctx->kind == SPS_DEVICE_CPU) return sliced_setup(plan);
  return SPS_SUCCESS;
}

static sps_status csr_scalar_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                                   double *y)
{
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_csr_scalar(sps_cuda(plan->ctx)->stream, A->nrows,
                                                   A->d_rowptr, A->d_rowptr32, A->d_colind,
                                                   A->d_values, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  csr_scalar_data *d = plan->data;
  if (d) {
    sliced_refresh(d, A);
    sps_ref_csr_sliced(&d->S, d->isa, alpha, x, beta, y);
    return SPS_SUCCESS;
  }
  sps_ref_csr_scalar(A->nrows, A->rowptr, A->colind, A->values, alpha, x, beta, y);
  return SPS_SUCCESS;
}

/*
 * The product and (x, y) in one pass (sps_ref_csr_sliced_dot) where the sliced copy exists and
 * A is square. Not where the threads would split them differently: the product alone forks
 * from SPS_SLICED_OMP_MIN rows and the dot from SPS_OMP_MIN, so between the two bounds, with
 * more than one thread, the product apart runs on all of them and the fused pass on one.
 */
static int csr_scalar_fuses_dot(const sps_spmv_plan *plan)
{
  const sps_matrix *A = plan->A;
  if (plan->ctx->kind != SPS_DEVICE_CPU || !plan->data || A->nrows != A->ncols) return 0;
#ifdef _OPENMP
  if (omp_get_max_threads() > 1 && A->nrows <= SPS_OMP_MIN) return 0;
#endif
  return 1;
}

static sps_status csr_scalar_apply_dot(sps_spmv_plan *plan, double alpha, const double *x,
                                       double *y, sps_csum *xy)
{
  const sps_matrix *A = plan->A;
  csr_scalar_data *d = plan->data;
  sliced_refresh(d, A);
  sps_ref_csr_sliced_dot(&d->S, d->isa, A->rowptr, A->colind, A->values, alpha, x, y, xy);
  return SPS_SUCCESS;
}

static void csr_scalar_destroy(sps_spmv_plan *plan)
{
  sliced_free(plan->data);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_csr_scalar = {
    .kind = SPS_SPMV_CSR_SCALAR,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = csr_scalar_setup,
    .apply = csr_scalar_apply,
    .destroy = csr_scalar_destroy,
    .fuses_dot = csr_scalar_fuses_dot,
    .apply_dot = csr_scalar_apply_dot,
};
