/* bjacobi.c: the block Jacobi preconditioner: the dense diagonal blocks of A inverted at setup, applied by one batched kernel. */
#include <math.h>
#include <string.h>

#include "precond.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * M = blockdiag(A_11, A_22, ...), the diagonal blocks of bs consecutive rows (the last block
 * may be shorter), so M^-1 r is one small dense product a block (precond/ref/bjacobi.c,
 * precond/cuda/bjacobi.cu). Setup gathers each block of sign*A densely and inverts it by
 * Gauss-Jordan elimination with partial pivoting; a pivot below pivot.tol times the block's
 * largest entry (a singular or nearly singular block) is replaced by that value with its sign
 * (1 for a zero block) and counted in sps_precond_info.replaced_pivots, so no division by
 * zero can happen and a zero diagonal entry inside a nonsingular block is no obstacle.
 *
 * The block size: "bjacobi.block", or, when 0, chosen from the matrix: the largest bs in
 * 8, 6, 5, 4, 3, 2 such that at least 90% of the row groups i = k bs .. k bs + bs - 1 have the
 * same column pattern in every row (the unknowns of one node of a structural or FEM model,
 * PETSc's "inodes"), else 4.
 */

typedef struct bjacobi_data {
  int bs;
  double *inv; /* nblocks * bs * bs in the context's memory */
} bjacobi_data;

static void bjacobi_destroy(sps_precond *pc)
{
  bjacobi_data *d = pc->data;
  if (!d) return;
  if (d->inv) pc->ctx->be->free(pc->ctx, d->inv);
  sps_host_free(d);
  pc->data = NULL;
}

/* Rows i and i + 1 have the same column pattern. */
static int same_pattern(const sps_matrix *A, int64_t i)
{
  const int64_t a = A->rowptr[i], la = A->rowptr[i + 1] - a;
  const int64_t b = A->rowptr[i + 1], lb = A->rowptr[i + 2] - b;
  return la == lb && memcmp(A->colind + a, A->colind + b, (size_t)la * sizeof(int32_t)) == 0;
}

static int choose_block(const sps_matrix *A)
{
  static const int sizes[] = {8, 6, 5, 4, 3, 2};
  const int64_t n = A->nrows;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const int bs = sizes[s];
    const int64_t groups = n / bs;
    if (groups < 2) continue;
    int64_t alike = 0;
    for (int64_t g = 0; g < groups; g++) {
      int ok = 1;
      for (int k = 0; k + 1 < bs && ok; k++) ok = same_pattern(A, g * bs + k);
      alike += ok;
    }
    if (alike >= groups * 9 / 10) return bs;
  }
  return 4;
}

/*
 * In place: the m x m block (leading dimension bs) becomes its inverse, by Gauss-Jordan with
 * partial pivoting and the pivot rule above. Returns the count of replaced pivots.
 * w: 2 bs * bs doubles of scratch.
 */
static int64_t invert_block(double *blk, int m, int bs, double pivot_tol, double *w)
{
  double amax = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++)
      if (fabs(blk[i * bs + j]) > amax) amax = fabs(blk[i * bs + j]);
  const double floor_ = amax > 0.0 ? pivot_tol * amax : 1.0;
  /* [B | I] in w, m rows of 2m */
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < m; j++) {
      w[i * 2 * m + j] = blk[i * bs + j];
      w[i * 2 * m + m + j] = i == j ? 1.0 : 0.0;
    }
  }
  int64_t replaced = 0;
  for (int k = 0; k < m; k++) {
    int p = k;
    for (int i = k + 1; i < m; i++)
      if (fabs(w[i * 2 * m + k]) > fabs(w[p * 2 * m + k])) p = i;
    if (p != k)
      for (int j = 0; j < 2 * m; j++) {
        const double t = w[k * 2 * m + j];
        w[k * 2 * m + j] = w[p * 2 * m + j];
        w[p * 2 * m + j] = t;
      }
    double piv = w[k * 2 * m + k];
    if (!(fabs(piv) >= floor_)) {
      piv = piv < 0.0 ? -floor_ : floor_;
      w[k * 2 * m + k] = piv;
      replaced++;
    }
    const double inv = 1.0 / piv;
    for (int j = 0; j < 2 * m; j++) w[k * 2 * m + j] *= inv;
    for (int i = 0; i < m; i++) {
      if (i == k) continue;
      const double f = w[i * 2 * m + k];
      if (f == 0.0) continue;
      for (int j = 0; j < 2 * m; j++) w[i * 2 * m + j] -= f * w[k * 2 * m + j];
    }
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) blk[i * bs + j] = w[i * 2 * m + m + j];
  return replaced;
}

static sps_status bjacobi_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  sps_status st = SPS_SUCCESS;
  const int64_t n = A->nrows;
  double *inv = NULL, *w = NULL;
  bjacobi_data *d = NULL;
  const int bs = pc->params.bjacobi_block > 0 ? pc->params.bjacobi_block : choose_block(A);
  const int64_t nb = (n + bs - 1) / bs;
  const size_t total = (size_t)(nb > 0 ? nb : 1) * (size_t)bs * (size_t)bs;
  SPS_TRY(sps_host_calloc(ctx, (void **)&inv, total, sizeof(double), "block Jacobi blocks (host)"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w, 2 * (size_t)bs * (size_t)bs, sizeof(double),
                         "block Jacobi scratch"));
  int64_t replaced = 0;
  for (int64_t b = 0; b < nb; b++) {
    const int64_t r0 = b * bs;
    const int m = n - r0 < bs ? (int)(n - r0) : bs;
    double *blk = inv + b * (int64_t)bs * bs;
    for (int i = 0; i < m; i++)
      for (int64_t k = A->rowptr[r0 + i]; k < A->rowptr[r0 + i + 1]; k++) {
        const int64_t j = A->colind[k] - r0;
        if (j >= 0 && j < m) blk[i * bs + j] = pc->sign * A->values[k];
      }
    replaced += invert_block(blk, m, bs, pc->params.pivot_tol, w);
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "block Jacobi data"));
  pc->data = d;
  d->bs = bs;
  SPS_TRY(ctx->be->malloc(ctx, (void **)&d->inv, total * sizeof(double), "block Jacobi blocks"));
  SPS_TRY(ctx->be->upload(ctx, d->inv, inv, total * sizeof(double)));
  pc->info.block_size = bs;
  pc->info.nnz_factors = (int64_t)total;
  pc->info.replaced_pivots = replaced;
cleanup:
  if (st) bjacobi_destroy(pc);
  sps_host_free(inv);
  sps_host_free(w);
  return st;
}

/* z <- M^-1 r, block by block (z must not alias r). */
static sps_status bjacobi_apply(sps_precond *pc, const double *r, double *z)
{
  const bjacobi_data *d = pc->data;
#ifdef SPS_HAVE_CUDA
  if (pc->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(pc->ctx,
                    sps_cuda_bjacobi_apply(sps_cuda(pc->ctx)->stream, pc->n, d->bs, d->inv, r, z));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_bjacobi_apply(pc->n, d->bs, d->inv, r, z);
  return SPS_SUCCESS;
}

const sps_precond_ops sps_precond_ops_bjacobi = {
    .type = SPS_PRECOND_BJACOBI,
    .name = "bjacobi",
    .in_place = 0,
    .symmetric = 1,
    .setup = bjacobi_setup,
    .apply = bjacobi_apply,
    .destroy = bjacobi_destroy,
};
