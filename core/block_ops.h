/* block_ops.h: the block backend ops table: vector operations and fused Krylov steps on row-major blocks of up to 64 columns, each column its own recurrence (sps_solver_solve_many). */
#ifndef SPS_CORE_BLOCK_OPS_H
#define SPS_CORE_BLOCK_OPS_H

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stddef.h>
#include <stdint.h>

#include "spsolve.h"
#include "krylov_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A block is an n x w array in the context's memory space, row-major with leading dimension
 * ld >= w: entry (i, c) at Y[i*ld + c], as an sps_multivector keeps it, so that the SpMM
 * layer reads and writes the blocks the steps work on. Columns w..ld-1 are never written.
 *
 * Column c of a block is the vector of one recurrence. Every reduction is, per column, the
 * compensated sum (core/compensated_sum.h) of the very rounded products that the
 * single-vector operation of the backend ops table adds (cpu_dot, the fused CG, BiCGSTAB and
 * GMRES steps), and every elementwise update is written as the single-vector one is (x +
 * alpha*p, r - alpha*q, ...). A compensated sum does not depend on the order of its terms
 * (bar rare ties), so column c of a block step gives the bits of the single-vector step on
 * that column, on either backend; tests/unit/block_steps checks it.
 *
 * Two kinds of operation:
 *  - masked operations, issued by the host at the start of a solve, at restarts and at
 *    confirmations: `mask` selects the columns (bit c for column c), the others are left
 *    alone; per-column scalars come in host arrays of w values, results go to host arrays;
 *  - fused steps, issued in batches without host reads (and captured in CUDA graphs): they
 *    read each column's state S[c] (struct sps_cg_state, ...) and skip the columns whose
 *    status is not RUNNING, as the single-vector steps return at once on a stopped state.
 *    S holds w states in the context's memory; the history pointer of each is its column's.
 *
 * The reductions keep their block partials (and, on CUDA, the last-block ticket) in a work
 * space that the caller allocates in the context's memory with `workspace` doubles for the
 * widest block and the largest GMRES restart it will use, zeroes once, and passes to every
 * operation as `ws`; the operations run in stream order and leave the ticket zero, so one
 * work space serves them all.
 */

/* The most columns one block holds (the masks are 64-bit words). */
#define SPS_BLOCK_MAX_COLS 64

/* A status no step sets: the state of a block column that holds no recurrence (a column
 * kept only to fill a width). Every fused step skips it, as any status but RUNNING. */
#define SPS_BLOCK_IDLE 100

/* The mask of columns 0..w-1. */
static inline uint64_t sps_block_all(int w)
{
  return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

/* The leading dimension of a block of w columns: w rounded up to even (1 for w = 1), as
 * sps_multivector_create makes it, so that the SpMM kernels may use 16-byte loads. */
static inline int64_t sps_block_ld(int w)
{
  return w == 1 ? 1 : (int64_t)(w + 1) / 2 * 2;
}

typedef struct sps_block_backend {
  /* Doubles of the reductions' work space for blocks of at most w columns and GMRES restarts
   * of at most m (m = 0 when GMRES does not run), and for Gram matrices of at most w x w. */
  size_t (*workspace)(sps_context *ctx, int64_t n, int w, int m);

  /* dst(:, dcols[c]) <- src(:, scols[c]) for c < w: columns between blocks of any leading
   * dimension (a vector is a block with ld = 1); src and dst must not overlap. */
  sps_status (*copy_cols)(sps_context *ctx, int64_t n, int w, const double *src, int64_t lds,
                          const int *scols, double *dst, int64_t ldd, const int *dcols);
  /* Y(:, c) <- a */
  sps_status (*fill)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask, double a,
                     double *Y);
  /* Y(:, c) <- f[c] * Y(:, c) */
  sps_status (*scale)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                      const double *f, double *Y);
  /* Y(:, c) <- a[c] X(:, c) + b[c] Y(:, c); Y not read where b[c] = 0 (the single axpby's
   * rule) */
  sps_status (*axpby)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                      const double *a, const double *X, const double *b, double *Y);
  /* Y(:, c) <- d .* X(:, c), d a vector of n (a diagonal preconditioner's inverse) */
  sps_status (*pointwise)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                          const double *d, const double *X, double *Y);
  /* out[c] <- X(:, c) . Y(:, c), cpu_dot's bits (out on the host) */
  sps_status (*dot)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                    const double *X, const double *Y, double *out, double *ws);
  /* out[c] <- ||X(:, c)||, scaled as the backends' nrm2 scales (core/nrm2_scale.h) */
  sps_status (*nrm2)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                     const double *X, double *out, double *ws);

  /* CG (struct sps_cg_state per column; the single steps of core/internal.h per column). */
  sps_status (*cg_alpha)(sps_context *ctx, int64_t n, int w, int64_t ld, const double *P,
                         const double *Q, sps_cg_state *S, double *ws);
  sps_status (*cg_update)(sps_context *ctx, int64_t n, int w, int64_t ld, const double *P,
                          const double *Q, const double *dinv, double *X, double *R, double *Z,
                          sps_cg_state *S, double *ws);
  sps_status (*cg_rz)(sps_context *ctx, int64_t n, int w, int64_t ld, const double *R,
                      const double *Z, sps_cg_state *S, double *ws);
  sps_status (*cg_direction)(sps_context *ctx, int64_t n, int w, int64_t ld, const double *Z,
                             double *P, const sps_cg_state *S);

  /* BiCGSTAB (struct sps_bicgstab_state per column). */
  sps_status (*bicgstab_step_a)(sps_context *ctx, int64_t n, int w, int64_t ld,
                                const double *RHAT, const double *V, const double *R, double *SV,
                                sps_bicgstab_state *S, double *ws);
  sps_status (*bicgstab_step_b)(sps_context *ctx, int64_t n, int w, int64_t ld, const double *T,
                                const double *SV, const double *PHAT, const double *SHAT,
                                const double *RHAT, double *X, double *R, sps_bicgstab_state *S,
                                double *ws);
  sps_status (*bicgstab_direction)(sps_context *ctx, int64_t n, int w, int64_t ld,
                                   const double *R, const double *V, double *P,
                                   const sps_bicgstab_state *S);

  /*
   * GMRES(m) (struct sps_gmres_state per column, each pointing at its own H, R, rotations,
   * g, y and history, and at m+1 doubles of work for the second Gram-Schmidt pass). The
   * basis: block l (l = 0..m) of the block columns' basis vectors at V + l*vstride, each
   * n x w with leading dimension ld; column c of block l is v_l of column c's cycle.
   *   gmres_start    masked: beta <- sqrt(r.r), the cycle opened (sps_gmres_open_cycle),
   *                  v_0 = r/beta into block 0 and VCUR (host-driven, whatever the status)
   *   gmres_arnoldi  one CGS2 step on every RUNNING column at its own j: W orthogonalised,
   *                  H and R's column j, the rotation, g, the status, v_{j+1} into block j+1
   *                  and VCUR (the single gmres_arnoldi per column)
   *   gmres_update   masked: y <- R_k^-1 g_k (k = S[c].j), U(:, c) <- V_k y (not for NAN)
   */
  sps_status (*gmres_start)(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                            const double *R, double *V, double *VCUR, sps_gmres_state *S,
                            double *ws);
  sps_status (*gmres_arnoldi)(sps_context *ctx, int64_t n, int w, int64_t ld, int m, double *V,
                              int64_t vstride, double *W, double *VCUR, sps_gmres_state *S,
                              double *ws);
  sps_status (*gmres_update)(sps_context *ctx, int64_t n, int w, int64_t ld, int m,
                             uint64_t mask, const double *V, int64_t vstride, sps_gmres_state *S,
                             double *U);

  /*
   * Block CG (solvers/block_cg.c), host-driven:
   *   gram  G[p + q*a] <- X(:, p) . Y(:, q) for p < a, q < b (compensated, G on the host)
   *   gemm  Y(:, q) <- beta Y(:, q) + sum_p X(:, p) C[p + q*a] for the q in mask, the sum a
   *         plain one in the order p = 0, 1, ... (C on the host, a x b column-major);
   *         Y not read where beta = 0. X and Y must not overlap.
   * X has a columns, Y b (at most SPS_BLOCK_MAX_COLS each), both with leading dimension ld.
   */
  sps_status (*gram)(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X, int b,
                     const double *Y, double *G, double *ws);
  sps_status (*gemm)(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X, int b,
                     uint64_t mask, const double *C, double beta, double *Y, double *ws);
} sps_block_backend;

extern const sps_block_backend sps_block_backend_cpu;
#ifdef SPS_HAVE_CUDA
extern const sps_block_backend sps_block_backend_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_BLOCK_OPS_H */
