/* spmm_sputnik.c: the sputnik SpMM variant (seed 003): setup builds the row swizzle, the rows in order of decreasing length, that the kernel's slots follow. */
#include <stdint.h>
#include <stdlib.h>

#include "ref/spmm_kernels.h"
#include "spmm_internal.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/spmm_launchers.h"
#endif

/* Rows at least this long are ordered by a comparison sort; shorter ones by counting. */
#define SPS_SPUTNIK_COUNT_MAX 4096

typedef struct sputnik_data {
  int32_t *perm; /* nrows rows by decreasing length, ties in row order (context's memory) */
  int avec;      /* 2: A's arrays allow the strips' double2/int2 loads; else 1 */
} sputnik_data;

typedef struct row_len {
  int64_t len;
  int32_t row;
} row_len;

/* Longer first, then lower row first (a stable order). */
static int row_len_cmp(const void *a, const void *b)
{
  const row_len *x = a, *y = b;
  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/*
 * perm <- the rows by decreasing length, ties in increasing row order: the long rows (at least
 * SPS_SPUTNIK_COUNT_MAX entries, few) by qsort, the others by a counting sort over their lengths,
 * which keeps the row order within a length (so a stencil's rows stay mostly in place).
 */
static sps_status sputnik_order(sps_context *ctx, const sps_matrix *A, int32_t *perm)
{
  const int64_t m = A->nrows;
  int64_t *count = NULL, nlong = 0;
  row_len *longs = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_calloc(ctx, (void **)&count, SPS_SPUTNIK_COUNT_MAX + 1, sizeof *count,
                          "sputnik row-length counts"));
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len >= SPS_SPUTNIK_COUNT_MAX)
      nlong++;
    else
      count[len]++;
  }
  if (nlong) {
    SPS_TRY(
        sps_host_alloc(ctx, (void **)&longs, (size_t)nlong, sizeof *longs, "sputnik long rows"));
    int64_t q = 0;
    for (int64_t i = 0; i < m; i++) {
      const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
      if (len >= SPS_SPUTNIK_COUNT_MAX) longs[q++] = (row_len){len, (int32_t)i};
    }
    qsort(longs, (size_t)nlong, sizeof *longs, row_len_cmp);
    for (int64_t q2 = 0; q2 < nlong; q2++)
      perm[q2] = longs[q2].row;
  }
  /* count[len] <- the first position of the rows of length len (longest first). */
  int64_t pos = nlong;
  for (int64_t len = SPS_SPUTNIK_COUNT_MAX - 1; len >= 0; len--) {
    const int64_t c = count[len];
    count[len] = pos;
    pos += c;
  }
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len < SPS_SPUTNIK_COUNT_MAX) perm[count[len]++] = (int32_t)i;
  }
cleanup:
  sps_host_free(count);
  sps_host_free(longs);
  return st;
}

static sps_status sputnik_setup(sps_spmm_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  sputnik_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "sputnik plan data"));
  plan->data = d;
  const void *values = sps_matrix_dev_values(A), *colind = sps_matrix_dev_colind(A);
  d->avec = ((uintptr_t)values % 16 == 0 && (uintptr_t)colind % 8 == 0) ? 2 : 1;
  int32_t *perm = NULL;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&perm, (size_t)(A->nrows > 0 ? A->nrows : 1), sizeof *perm,
                           "sputnik row order"));
  sps_status st = sputnik_order(ctx, A, perm);
  if (st) {
    sps_host_free(perm);
    return st;
  }
  return sps_spmv_to_device(ctx, (void **)&perm, (void **)&d->perm,
                            (size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof(int32_t),
                            "sputnik row order");
}

static sps_status sputnik_apply(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                                double beta, double *Y, int64_t ldy)
{
  const sps_matrix *A = plan->A;
  const sputnik_data *d = plan->data;
  const int xv = sps_spmm_xy_vec(plan->k, X, ldx, Y, ldy);
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_spmm_sputnik(sps_cuda(plan->ctx)->stream, A->nrows, A->nnz,
                                          A->d_rowptr, A->d_colind, A->d_values, d->perm, plan->k,
                                          xv, d->avec, alpha, X, ldx, beta, Y, ldy));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_spmm_sputnik(A->nrows, A->rowptr, A->colind, A->values, d->perm, plan->k, xv, d->avec,
                       alpha, X, ldx, beta, Y, ldy);
  return SPS_SUCCESS;
}

static void sputnik_destroy(sps_spmm_plan *plan)
{
  sputnik_data *d = plan->data;
  if (!d) return;
  if (d->perm) plan->ctx->be->free(plan->ctx, d->perm);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmm_variant sps_spmm_variant_sputnik = {
    .kind = SPS_SPMM_SPUTNIK,
    .on_cpu = 1,
    .on_cuda = 1,
    .compensated = 1,
    .setup = sputnik_setup,
    .apply = sputnik_apply,
    .destroy = sputnik_destroy,
};
