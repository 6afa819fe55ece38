/* amg.h: smoothed-aggregation algebraic multigrid inside the library: the levels of the hierarchy, the host setup that builds them, and the cycle that applies them on the context's device. */
#ifndef SPS_PRECOND_AMG_H
#define SPS_PRECOND_AMG_H

#include "host_csr.h"
#include "precond.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The coarsest level is inverted densely when it has at most this many rows; a larger one
 * (coarsening stalled, or amg.levels reached) is only smoothed. */
#define AMG_DENSE_MAX 800

/* The smoothers ("amg.smoother") and cycles ("amg.cycle"). */
enum { AMG_SMOOTHER_CHEBY = 0, AMG_SMOOTHER_L1_JACOBI = 1 };
enum { AMG_CYCLE_V = 1, AMG_CYCLE_W = 2, AMG_CYCLE_F = 3 };

/*
 * One level l of the hierarchy, with operator A_l (n rows). Every array lives in the
 * context's memory space; every product goes through an SpMV plan. Level 0's operator is the
 * solver's A, applied through its plan times `asign`; the coarser ones are the Galerkin
 * products R A P of the level above (asign 1). P and R (= P^T) connect level l to l + 1 and
 * are NULL on the coarsest level, which holds instead the dense inverse of its operator
 * (Ainv, n x n entries) or nothing (then it is only smoothed).
 */
typedef struct amg_level {
  int64_t n, nnz;
  sps_matrix *A;        /* A_l for l >= 1 (NULL on level 0) */
  sps_spmv_plan *Aplan; /* A_l's plan (level 0: the solver's, borrowed, or own_plan0) */
  double asign;         /* the plan computes asign * A_l */
  sps_matrix *P, *R;    /* n x n_{l+1} prolongation and its transpose */
  sps_spmv_plan *Pplan, *Rplan;
  sps_matrix *Ainv; /* coarsest level: its operator's dense (generalised) inverse */
  sps_spmv_plan *Ainvplan;
  double *dinv;        /* n: the smoother's diagonal, 1/a_ii (Chebyshev) or 1/||row||_1 */
  double *x, *b;       /* n: this level's iterate and right-hand side (l >= 1) */
  double *r, *e, *t;   /* n: residual, Chebyshev step, A e */
  double rho;          /* the estimate of the spectral radius of D^-1 A_l */
  double eig_a, eig_b; /* the Chebyshev smoother's interval */
} amg_level;

/* The preconditioner's state (pc->data). */
typedef struct amg_data {
  int nlevels;
  amg_level lv[SPS_AMG_MAX_LEVELS];
  sps_spmv_plan *own_plan0; /* level 0's plan when the solver gave none */
  int smoother, degree, cycle;
  double outer; /* -1 when the hierarchy was built on -(sign A) (a negative diagonal): M^-1 r
                   is then minus the cycle's result */
} amg_data;

/*
 * Build the hierarchy of sign*A (pc->sign) on the host and hand every level's operators to
 * the context's device (amg_hierarchy.c): per level the aggregates, the smoothed prolongator
 * P, R = P^T, the Galerkin product R A P, the smoother's diagonal and interval, and the work
 * vectors; the coarsest level's dense inverse (amg_coarse.c). Fills d and pc->info; on
 * failure d holds what was built (freed by amg_data_free).
 */
sps_status amg_hierarchy_build(sps_precond *pc, const sps_matrix *A, amg_data *d);

/* Free everything d holds (each pointer may be NULL). */
void amg_data_free(sps_context *ctx, amg_data *d);

/*
 * C = A B on the host, A m x k and B k x n with sorted columns, C with sorted columns and
 * compensated sums (amg_hierarchy.c). The one place the hierarchy forms a sparse product.
 */
sps_status amg_product(sps_context *ctx, const sps_host_rcsr *A, const sps_host_rcsr *B,
                       sps_host_rcsr *C);

/*
 * The tentative prolongator T (n x nc) of the aggregates agg (n entries, -1 for a row left
 * out) fitted to the near-null vector B (n entries, nonzero): t_{i,agg(i)} = B_i / Bc_agg(i)
 * with Bc_J = ||B restricted to aggregate J|| (into Bc, nc entries), rows with agg(i) = -1
 * empty. Its columns are orthonormal and T Bc = B on the aggregated rows.
 */
sps_status amg_tentative(sps_context *ctx, int64_t n, const int32_t *agg, int64_t nc,
                         const double *B, sps_host_rcsr *T, double *Bc);

/*
 * The smoothed prolongator P = (I - omega D^-1 H) T and R = P^T (amg_hierarchy.c), from the
 * aggregates of H (host, sorted columns, every diagonal stored), the near-null vector B (Bc
 * gets the coarse one, as amg_tentative) and hdinv = 1/h_ii. P has the pattern of H T.
 */
sps_status amg_prolongator(sps_context *ctx, const sps_host_csr *H, const int32_t *agg, int64_t nc,
                           const double *B, double *Bc, const double *hdinv, double omega,
                           sps_host_rcsr *P, sps_host_rcsr *R);

/* The strength threshold of level l: amg.strength times AMG_STRENGTH_DECAY^l. */
double amg_level_theta(const sps_precond_params *prm, int l);

/*
 * The largest eigenvalue estimate of D^-1 H (H square on the host, d the inverse diagonal,
 * n entries; D > 0): `steps` Lanczos steps on D^-1/2 H D^-1/2 from a fixed pseudo-random start
 * (host arithmetic: the same on every device), the largest Ritz value (amg_spectrum.c).
 */
sps_status amg_spectral_radius(sps_context *ctx, const sps_host_csr *H, const double *dinv,
                               int steps, double *rho);

/*
 * The dense inverse of the n x n host matrix H as an n x n CSR matrix on the host (amg_coarse.c):
 * LU with partial pivoting in long double; a pivot below 1e-13 times the largest |h_ij| is
 * taken as zero and its direction left out (a generalised inverse G with H G H = H for a
 * singular H, as for pure Neumann problems), counted in *dropped. symmetric: the result is
 * replaced by (G + G^T) / 2.
 */
sps_status amg_dense_inverse(sps_context *ctx, const sps_host_csr *H, int symmetric,
                             sps_host_rcsr *G, int64_t *dropped);

/* z <- the cycle applied to r (amg_cycle.c): allocates nothing, reads nothing back. */
sps_status amg_cycle_apply(sps_precond *pc, const double *r, double *z);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_AMG_H */
