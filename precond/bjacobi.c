/* bjacobi.c: block Jacobi, z = blockdiag(B_b)^-1 r, B_b the diagonal blocks of sign*A. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "precond.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * M = blockdiag(B_0, B_1, ...), B_b the bs x bs diagonal block of sign*A on rows and columns
 * [b bs, b bs + size_b) (size_b = bs, or what is left of n for the last block), entries
 * outside A's pattern 0. Setup gathers each block on the host, inverts it by LU with partial
 * pivoting (in double) and stores the inverses as bs x bs row-major arrays, block after
 * block (the last one padded with zeros), in the context's memory (on the CPU the host array
 * itself); apply is one pass of z_i = sum_j inv_b[i][j] r_j (precond/ref/bjacobi.c,
 * precond/cuda/bjacobi.cu), n bs products. M is symmetric positive definite when sign*A is:
 * the inverse of a block that is exactly symmetric is symmetrised, (X + X^T) / 2, so M is
 * exactly symmetric for CG.
 *
 * The block size (parameter "bjacobi.block"; 0, the default: chosen here):
 *   1. Let w(k) be the mean over the rows of the fraction of a row's off-diagonal weight
 *      (sum of |a_ij|, j != i) inside its aligned k x k diagonal block. Without block
 *      structure w grows steadily with k; when the unknowns come in groups of k numbered
 *      together (the degrees of freedom of a node or a cell) and coupled mostly to each
 *      other, blocks of k + 1 straddle the groups and capture less: w(k) >= kPeak w(k+1).
 *      Among the k in 2..8 that are such peaks (and w(k) >= w(k-1), w(k) >= kMinCapture),
 *      the one with the most weight per stored entry of a row, w(k)/k, is the natural size.
 *      On the shared matrices: sherman5 3 (w(3) = 0.69, w(4) = 0.49), bcsstk14 3 (0.15
 *      against 0.11; 6, also a peak in the raw weights, converges no faster), add32 and
 *      olm1000 2, add20 3; none on the other 13.
 *   2. Without one (circuits, meshes, most CFD matrices): kDefaultBlock = 4 rows. On the 11
 *      shared matrices without one that fit a quick sweep (GMRES(30) on each, CG on the 3 SPD
 *      ones: 14 runs, rtol 1e-8, at most 3000 iterations, CPU), blocks of 8 took fewer
 *      iterations than 4 in 6 runs and more in 4, most by less than 20%, though 8 converged
 *      where 4 did not on adder_dcop_05 and bcsstk13 (GMRES); blocks of 2 took more than 4
 *      in 7 runs (nos3 twice as many, rajat12 three times) and fewer in 3. Blocks of 4 read
 *      half the inverse bytes of 8 (32 a row against 64, about what a sparse row of A costs).
 *   3. Capped so that the inverses (n bs doubles) take at most kMemoryFactor times the bytes
 *      of A's CSR arrays (12 a nonzero), never below 2: binds only for matrices with fewer
 *      than about bs/6 entries a row.
 *   PETSc's inodes (consecutive rows with identical column patterns) are the exact form of
 *   1; the real files miss it by a few entries (bcsstk14 has 13% of its rows in identical
 *   pairs, none in triples), so the weights are measured instead.
 * An explicit size is used as given, but at most n.
 *
 * The pivot rule: at step k of the LU a pivot u_kk with |u_kk| below pivot_tol times the
 * scale of its row (the largest |entry| that row had in the block; the block's largest for
 * a row that had none), or exactly 0, is replaced by that bound with u_kk's sign (+ for 0)
 * and counted in info.replaced_pivots. When the bound is 0 it is DBL_EPSILON times the scale
 * (pivot.tol = 0), or 1 for a zero block, which so becomes the identity: no division by
 * zero, no NaN. The row's scale rather than the block's keeps badly scaled rows from being
 * taken for singular: sherman3 has 2107 rows whose only entry is a diagonal of 1e-10 beside
 * rows with entries up to 3e6 (the block's scale replaced 635 pivots at bs = 4, the row's
 * none). A block with a
 * non-finite entry is refused (SPS_ERR_UNSUPPORTED, naming the entry).
 */

/* The largest block ("bjacobi.block" in precond/params.c has the same bound). */
#define SPS_BJACOBI_MAX_BLOCK 64

/* A natural block size k captures at least this many times what blocks of k + 1 capture. */
static const double kPeak = 1.2;
/* ... and at least this fraction of the rows' off-diagonal weight. */
static const double kMinCapture = 0.05;
/* The block size when the matrix has no natural one. */
static const int kDefaultBlock = 4;
/* The inverses take at most this many times the bytes of A's CSR arrays. */
static const double kMemoryFactor = 4.0;

typedef struct bjacobi_data {
  int bs;
  double *inv; /* nblocks bs x bs row-major inverses, in the context's memory */
} bjacobi_data;

/*
 * w(k): the mean over the rows with off-diagonal entries of the fraction of the row's
 * off-diagonal weight (sum of |a_ij|, j != i) that its aligned k x k diagonal block holds.
 * Invariant under row scaling; NaN when an entry is not finite.
 */
static double captured_weight(const sps_matrix *A, int k)
{
  const int64_t n = A->nrows;
  double sum = 0.0;
  int64_t rows = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t first = i - i % k;
    double all = 0.0, inside = 0.0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      const int64_t c = A->colind[p];
      if (c == i) continue;
      const double v = fabs(A->values[p]);
      all += v;
      if (c >= first && c < first + k) inside += v;
    }
    if (all > 0.0 || isnan(all)) {
      sum += inside / all;
      rows++;
    }
  }
  return rows ? sum / (double)rows : 0.0;
}

/* The block size chosen from the matrix (the rule above). */
static int choose_block_size(const sps_matrix *A)
{
  const int64_t n = A->nrows;
  double w[10];
  w[1] = 0.0;
  for (int k = 2; k <= 9; k++)
    w[k] = captured_weight(A, k);
  int bs = kDefaultBlock;
  double best = 0.0;
  for (int k = 2; k <= 8; k++)
    if (w[k] >= kPeak * w[k + 1] && w[k] >= w[k - 1] && w[k] >= kMinCapture && w[k] / k > best) {
      best = w[k] / k;
      bs = k;
    }
  /* n bs 8 bytes <= kMemoryFactor * 12 nnz bytes */
  const double cap = kMemoryFactor * 12.0 * (double)A->nnz / (8.0 * (double)(n > 0 ? n : 1));
  if (bs > cap) bs = cap >= 2.0 ? (int)cap : 2;
  return bs;
}

/*
 * Invert the m x m block a (row-major, leading dimension ld) in place: LU with partial
 * pivoting, P a = L U (LAPACK getrf), the pivot rule on each u_kk, then a^-1 = U^-1 L^-1 P
 * (getri: U inverted in place, then X L = U^-1 solved column by column from the last, then
 * the column interchanges undone in reverse). piv: m ints of scratch; scale, work: m doubles.
 * Returns the number of pivots replaced.
 */
static int64_t invert_block(double *a, int m, int ld, double pivot_tol, int *piv, double *scale,
                            double *work)
{
  /* scale_i: the largest |entry| of row i in the block; it moves with its row. */
  double amax = 0.0;
  for (int i = 0; i < m; i++) {
    scale[i] = 0.0;
    for (int j = 0; j < m; j++)
      scale[i] = fmax(scale[i], fabs(a[i * ld + j]));
    amax = fmax(amax, scale[i]);
  }
  int64_t replaced = 0;
  /* P a = L U, L unit lower (below the diagonal), U upper. */
  for (int k = 0; k < m; k++) {
    int p = k;
    for (int i = k + 1; i < m; i++)
      if (fabs(a[i * ld + k]) > fabs(a[p * ld + k])) p = i;
    piv[k] = p;
    if (p != k) {
      for (int j = 0; j < m; j++) {
        const double t = a[k * ld + j];
        a[k * ld + j] = a[p * ld + j];
        a[p * ld + j] = t;
      }
      const double t = scale[k];
      scale[k] = scale[p];
      scale[p] = t;
    }
    /* The pivot rule: |u_kk| >= pivot_tol * (the row's scale, or the block's for a zero row). */
    const double s = scale[k] > 0.0 ? scale[k] : amax;
    double bound = pivot_tol * s;
    if (!(bound > 0.0)) bound = s > 0.0 ? DBL_EPSILON * s : 1.0;
    const double u = a[k * ld + k];
    if (!(fabs(u) >= bound) || u == 0.0) {
      a[k * ld + k] = u < 0.0 ? -bound : bound;
      replaced++;
    }
    const double ukk = a[k * ld + k];
    for (int i = k + 1; i < m; i++) {
      const double l = a[i * ld + k] / ukk;
      a[i * ld + k] = l;
      if (l != 0.0)
        for (int j = k + 1; j < m; j++)
          a[i * ld + j] -= l * a[k * ld + j];
    }
  }
  /* U <- U^-1, column by column: u_jj <- 1/u_jj; U(0:j, j) <- -u_jj^-1 U(0:j,0:j)^-1 U(0:j, j). */
  for (int j = 0; j < m; j++) {
    a[j * ld + j] = 1.0 / a[j * ld + j];
    const double ajj = -a[j * ld + j];
    for (int i = 0; i < j; i++) {
      double t = 0.0;
      for (int k = i; k < j; k++)
        t += a[i * ld + k] * a[k * ld + j];
      a[i * ld + j] = t;
    }
    for (int i = 0; i < j; i++)
      a[i * ld + j] *= ajj;
  }
  /* X L = U^-1 for X, from the last column: X(:, j) = U^-1(:, j) - sum_{i > j} X(:, i) l_ij. */
  for (int j = m - 1; j >= 0; j--) {
    for (int i = j + 1; i < m; i++) {
      work[i] = a[i * ld + j];
      a[i * ld + j] = 0.0;
    }
    for (int i = 0; i < m; i++) {
      double t = a[i * ld + j];
      for (int k = j + 1; k < m; k++)
        t -= a[i * ld + k] * work[k];
      a[i * ld + j] = t;
    }
  }
  /* a^-1 = X P: undo the row interchanges as column interchanges, in reverse. */
  for (int k = m - 1; k >= 0; k--)
    if (piv[k] != k)
      for (int i = 0; i < m; i++) {
        const double t = a[i * ld + k];
        a[i * ld + k] = a[i * ld + piv[k]];
        a[i * ld + piv[k]] = t;
      }
  return replaced;
}

/* Copy the diagonal block of sign*A on rows and columns [first, first + m) into a (m x m,
 * leading dimension ld, zeroed by the caller); 1 when it is exactly symmetric. */
static int gather_block(const sps_matrix *A, double sign, int64_t first, int m, double *a, int ld)
{
  for (int i = 0; i < m; i++)
    for (int64_t p = A->rowptr[first + i]; p < A->rowptr[first + i + 1]; p++) {
      const int64_t c = A->colind[p] - first;
      if (c >= 0 && c < m) a[i * ld + c] = sign * A->values[p];
    }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < i; j++)
      if (a[i * ld + j] != a[j * ld + i]) return 0;
  return 1;
}

static sps_status bjacobi_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  sps_status st = SPS_SUCCESS;
  const int64_t n = A->nrows;
  bjacobi_data *d = NULL;
  double *host = NULL;
  int bs = pc->params.bjacobi_block > 0 ? pc->params.bjacobi_block : choose_block_size(A);
  if (bs > SPS_BJACOBI_MAX_BLOCK)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "bjacobi: block size %d is larger than %d", bs,
             SPS_BJACOBI_MAX_BLOCK);
  if (bs > n) bs = n > 0 ? (int)n : 1;
  const int64_t nblocks = (n + bs - 1) / bs;
  const size_t count = (size_t)nblocks * (size_t)bs * (size_t)bs;
  /* The entries the blocks take must be finite (a NaN would spread through its block). */
  for (int64_t i = 0; i < n; i++) {
    const int64_t first = i - i % bs;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->colind[p] >= first && A->colind[p] < first + bs && !isfinite(A->values[p]))
        SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "bjacobi: entry (%lld, %lld) of a diagonal block is %g, which has no inverse",
                 (long long)(i + 1), (long long)A->colind[p] + 1, A->values[p]);
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "block Jacobi"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&host, count > 0 ? count : 1, sizeof(double),
                          "block Jacobi inverses (host)"));
  int64_t replaced = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : replaced) if (count > 65536)
  for (int64_t b = 0; b < nblocks; b++) {
    const int64_t first = b * bs;
    const int m = n - first < bs ? (int)(n - first) : bs;
    double *a = host + (size_t)b * (size_t)bs * (size_t)bs;
    int piv[SPS_BJACOBI_MAX_BLOCK];
    double scale[SPS_BJACOBI_MAX_BLOCK], work[SPS_BJACOBI_MAX_BLOCK];
    const int symmetric = gather_block(A, pc->sign, first, m, a, bs);
    replaced += invert_block(a, m, bs, pc->params.pivot_tol, piv, scale, work);
    if (symmetric)
      for (int i = 0; i < m; i++)
        for (int j = 0; j < i; j++) {
          const double s = 0.5 * (a[i * bs + j] + a[j * bs + i]);
          a[i * bs + j] = s;
          a[j * bs + i] = s;
        }
  }
  if (ctx->kind == SPS_DEVICE_CPU) {
    /* The CPU backend's memory is the host's: keep the array. */
    d->inv = host;
    host = NULL;
  } else {
    SPS_TRY(
        ctx->be->malloc(ctx, (void **)&d->inv, count * sizeof(double), "block Jacobi inverses"));
    SPS_TRY(ctx->be->upload(ctx, d->inv, host, count * sizeof(double)));
  }
  d->bs = bs;
  pc->info.block_size = bs;
  pc->info.nnz_factors = (int64_t)count;
  pc->info.replaced_pivots = replaced;
  pc->data = d;
  d = NULL;
cleanup:
  if (d) {
    if (d->inv) ctx->be->free(ctx, d->inv);
    sps_host_free(d);
  }
  sps_host_free(host);
  return st;
}

/* z <- blockdiag(inv_b) r; z must not alias r. */
static sps_status bjacobi_apply(sps_precond *pc, const double *r, double *z)
{
  const bjacobi_data *d = (const bjacobi_data *)pc->data;
  if (!d) SPS_FAIL(pc->ctx, SPS_ERR_ARGUMENT, "bjacobi: apply before setup");
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

static void bjacobi_destroy(sps_precond *pc)
{
  bjacobi_data *d = (bjacobi_data *)pc->data;
  if (d) {
    if (d->inv) pc->ctx->be->free(pc->ctx, d->inv);
    sps_host_free(d);
  }
  pc->data = NULL;
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
