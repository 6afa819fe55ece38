/* krylov_state.h: the scalar state of a Krylov iteration kept in the context's memory (the device on CUDA), shared by C and CUDA code. */
#ifndef SPS_CORE_KRYLOV_STATE_H
#define SPS_CORE_KRYLOV_STATE_H

#include <math.h>
#include <stdint.h>

/* The state transitions below are compiled for the host and, in .cu files, for the device. */
#ifdef __CUDACC__
#define SPS_HOST_DEVICE __host__ __device__
#else
#define SPS_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The divergence test of CG and BiCGSTAB: the residual norm by the recurrence stays above
 * dtol times its reference (dtol2 holds the square of that bound) for this many consecutive
 * iterations. A single spike is not a divergence: BiCGSTAB with ILU(0) on watt_2 rises above
 * 1e5 ||b|| for 17 iterations on its way to a relative residual of 4e-13.
 */
#define SPS_DTOL_ITERATIONS 50

/* Count in *above the consecutive iterations with rr > dtol2 (dtol2 = 0: no test) and say
 * whether they reached SPS_DTOL_ITERATIONS. */
static inline SPS_HOST_DEVICE int sps_dtol_exceeded(int32_t *above, double rr, double dtol2)
{
  if (!(dtol2 > 0.0) || !(rr > dtol2)) {
    *above = 0;
    return 0;
  }
  return ++*above >= SPS_DTOL_ITERATIONS;
}

/* Status word of a device-driven CG iteration: RUNNING until a step sets another value. */
enum {
  SPS_CG_RUNNING = 0,
  SPS_CG_CONVERGED = 1,          /* ||r|| <= tol by the recurrence: the host confirms */
  SPS_CG_MAX_ITERATIONS = 2,
  SPS_CG_INDEFINITE_MATRIX = 3,  /* (p, Ap) <= 0 */
  SPS_CG_INDEFINITE_PRECOND = 4, /* (r, M^-1 r) < 0 */
  SPS_CG_NAN = 5,
  SPS_CG_DIVERGED = 6            /* rr > dtol2 for SPS_DTOL_ITERATIONS iterations by the
                                    recurrence: the host confirms */
};

/*
 * The scalars of preconditioned CG (Saad, Alg. 9.1) as the fused steps read and write them.
 * The host writes rz (= (r0, z0)), tol2, dtol2, maxit, it, deferred, above = 0 and
 * status = RUNNING before a solve and reads the block back once per batch of iterations. deferred = 1 when the
 * preconditioner is not diagonal: cg_update then leaves z, rz and beta to cg_rz, which runs
 * after the solver's z <- M^-1 r.
 */
typedef struct sps_cg_state {
  double rz;       /* (r, z) of the current iterate */
  double pq;       /* (p, Ap) */
  double alpha;    /* rz / pq */
  double beta;     /* rz_new / rz_old */
  double rr;       /* ||r||^2 by the recurrence */
  double tol2;     /* stop when rr <= tol2 */
  double dtol2;    /* the divergence bound of rr (0: no divergence test) */
  double *history; /* maxit + 1 norms in the same memory space, or NULL */
  int32_t it;      /* iterations done */
  int32_t maxit;   /* stop with MAX_ITERATIONS when it reaches this */
  int32_t status;  /* SPS_CG_* */
  int32_t deferred; /* 1: z, rz and beta come from cg_rz after a general preconditioner */
  int32_t above;   /* consecutive iterations with rr > dtol2 */
} sps_cg_state;

/*
 * The end of the CG update once rr = (r, r) and, unless deferred, rz = (r, z) are known:
 * the count, the history, the stopping tests (NaN, tolerance, divergence, indefinite M) and
 * beta (cg_update), shared by both backends.
 */
static inline SPS_HOST_DEVICE void sps_cg_close_update(sps_cg_state *S, double rr, double rz)
{
  int it = S->it + 1;
  S->it = it;
  S->rr = rr;
  if (S->history) S->history[it] = sqrt(rr);
  if (!isfinite(rr) || (!S->deferred && !isfinite(rz))) {
    S->status = SPS_CG_NAN;
  } else if (rr <= S->tol2) {
    S->status = SPS_CG_CONVERGED;
  } else if (sps_dtol_exceeded(&S->above, rr, S->dtol2)) {
    S->status = SPS_CG_DIVERGED;
  } else if (S->deferred) {
    if (it >= S->maxit) S->status = SPS_CG_MAX_ITERATIONS;
  } else if (rz < 0.0) {
    S->status = SPS_CG_INDEFINITE_PRECOND;
  } else {
    S->beta = rz / S->rz;
    S->rz = rz;
    if (it >= S->maxit) S->status = SPS_CG_MAX_ITERATIONS;
  }
}

/* cg_alpha's step once pq = (p, Ap) is known: NaN or Inf stops with NAN, pq <= 0 with
 * INDEFINITE_MATRIX, else alpha = rz / pq (the CUDA kernel's last block does the same). */
static inline SPS_HOST_DEVICE void sps_cg_close_alpha(sps_cg_state *S, double pq)
{
  S->pq = pq;
  if (!isfinite(pq))
    S->status = SPS_CG_NAN;
  else if (pq <= 0.0)
    S->status = SPS_CG_INDEFINITE_MATRIX;
  else
    S->alpha = S->rz / pq;
}

/* cg_rz's test once rz = (r, M^-1 r) is known (deferred mode): NaN, an indefinite M, or
 * beta = rz / rz_old. A step already stopped (MAX_ITERATIONS at maxit) is left as it is. */
static inline SPS_HOST_DEVICE void sps_cg_close_rz(sps_cg_state *S, double rz)
{
  if (S->status != SPS_CG_RUNNING) return;
  if (!isfinite(rz)) {
    S->status = SPS_CG_NAN;
  } else if (rz < 0.0) {
    S->status = SPS_CG_INDEFINITE_PRECOND;
  } else {
    S->beta = rz / S->rz;
    S->rz = rz;
  }
}

/* Status word of a device-driven GMRES(m) cycle: RUNNING until a step sets another value. */
enum {
  SPS_GMRES_RUNNING = 0,
  SPS_GMRES_CONVERGED = 1,       /* |g_{j+1}| <= tol by the recurrence: the host confirms */
  SPS_GMRES_CYCLE_END = 2,       /* j reached m: update x, then restart */
  SPS_GMRES_HAPPY_BREAKDOWN = 3, /* h_{j+1,j} <= happy_tol*||w||: the space is invariant */
  SPS_GMRES_MAX_ITERATIONS = 4,
  SPS_GMRES_NAN = 5,
  SPS_GMRES_BREAKDOWN = 6        /* the rotated diagonal r_jj is 0: column j is left out */
};

/* The largest restart length the CUDA GMRES steps accept (one of their kernels takes 17(m+1) doubles of shared memory: 70 KB at 512). */
#define SPS_GMRES_STEPS_MAX_M 512

/*
 * The state of GMRES(m) with CGS2 Arnoldi and Givens rotations (Saad, Alg. 6.9) as the
 * gmres_* steps read and write it. Every pointer is in the same memory space as the struct
 * (the context's). The host writes m, maxit, it = 0, tol, happy_tol and the pointers once;
 * gmres_start opens each cycle; gmres_arnoldi adds one column; gmres_update forms V y.
 * H holds the Hessenberg matrix as Arnoldi builds it, R the same columns with the Givens
 * rotations applied (upper triangular), so A M^-1 V_k = V_{k+1} H_k can be checked and
 * y = R_k^-1 g_k solved. V(:, j) is written for every closed column whose h_{j+1,j} is
 * usable (not at HAPPY_BREAKDOWN, NAN, BREAKDOWN), so A M^-1 V_k = V_{k+1} H_k holds at
 * CYCLE_END, CONVERGED and MAX_ITERATIONS too.
 */
typedef struct sps_gmres_state {
  double beta;      /* ||r_0|| of the cycle */
  double tol;       /* stop when |g_{j+1}| <= tol */
  double happy_tol; /* happy breakdown when h_{j+1,j} <= happy_tol * wnorm (e.g. 1e-14) */
  double wnorm;     /* ||w|| before the orthogonalisation, of the last step */
  double hnext;     /* h_{j+1,j} of the last step: the norm v_{j+1} is divided by */
  double resid;     /* |g_j|: the residual norm estimate after the last step */
  double *H;        /* (m+1) x m, column-major, leading dimension m+1 */
  double *R;        /* (m+1) x m, column-major, leading dimension m+1: H rotated */
  double *cs, *sn;  /* m Givens rotations: (x_i, x_{i+1}) <- (c x_i + s x_{i+1}, -s x_i + c x_{i+1}) */
  double *g;        /* m+1: beta e_1 rotated */
  double *y;        /* m: the least-squares solution of the last gmres_update */
  double *history;  /* maxit + 1 residual norms (estimates; true norm at each start), or NULL */
  double *work;     /* the backend's gmres_workspace doubles: block partials and CGS coefficients */
  int32_t m;        /* restart length */
  int32_t j;        /* columns of the cycle done (0 <= j <= m) */
  int32_t it;       /* inner iterations done, over all cycles */
  int32_t maxit;    /* stop with MAX_ITERATIONS when it reaches this */
  int32_t status;   /* SPS_GMRES_* */
  int32_t vnext;    /* 1 when v_j = w / hnext is still to be written (set by the closing of a column) */
} sps_gmres_state;

/* Status word of a device-driven BiCGSTAB iteration. */
enum {
  SPS_BICGSTAB_RUNNING = 0,
  SPS_BICGSTAB_CONVERGED = 1, /* ||r|| (or ||s|| at the half step) <= tol: the host confirms */
  SPS_BICGSTAB_MAX_ITERATIONS = 2,
  SPS_BICGSTAB_BREAKDOWN = 3, /* (r0hat, v) = 0, omega = 0 or rho = 0 */
  SPS_BICGSTAB_NAN = 4,       /* a scalar (sigma, alpha, ss, omega, rr, rho, beta) is NaN or Inf:
                                 the host tells overflow (a breakdown) from a NaN in x by the
                                 true residual; x is never updated with a scalar that is not finite */
  SPS_BICGSTAB_DIVERGED = 5   /* rr > dtol2 for SPS_DTOL_ITERATIONS iterations by the
                                 recurrence: the host confirms */
};

/*
 * The scalars of right-preconditioned BiCGSTAB (van der Vorst 1992; Saad, Alg. 7.7) as the
 * bicgstab_* steps read and write them. The host writes rho = (r0hat, r0), tol2, dtol2, maxit,
 * it = 0, half = 0, above = 0 and status = RUNNING before a solve.
 */
typedef struct sps_bicgstab_state {
  double rho;      /* (r0hat, r) */
  double sigma;    /* (r0hat, v) */
  double alpha;    /* rho / sigma */
  double omega;    /* (t, s) / (t, t) */
  double beta;     /* (rho_new / rho) (alpha / omega) */
  double ts, tt;   /* (t, s), (t, t) */
  double ss;       /* ||s||^2 */
  double rr;       /* ||r||^2 by the recurrence */
  double tol2;     /* stop when rr (or ss) <= tol2 */
  double dtol2;    /* the divergence bound of rr (0: no divergence test) */
  double *history; /* maxit + 1 norms in the same memory space, or NULL */
  int32_t it;      /* iterations done */
  int32_t maxit;
  int32_t status;  /* SPS_BICGSTAB_* */
  int32_t half;    /* 1 when ||s|| passed the test: step B then ends with x += alpha phat */
  int32_t above;   /* consecutive iterations with rr > dtol2 */
} sps_bicgstab_state;

/*
 * sqrt(a^2 + b^2) without overflow or harmful underflow, from IEEE operations alone (a
 * division, products, a sum and a square root, all correctly rounded on the host and on the
 * device), so that both give the same bits: the C library's and CUDA's hypot differ in the
 * last bit. x sqrt(1 + (y/x)^2) with x = max(|a|, |b|), y = min(|a|, |b|).
 */
static inline SPS_HOST_DEVICE double sps_hypot(double a, double b)
{
  double x = fabs(a), y = fabs(b);
  if (x < y) {
    const double t = x;
    x = y;
    y = t;
  }
  if (x == 0.0 || isinf(x)) return x;
  const double r = y / x;
  return x * sqrt(1.0 + r * r);
}

/*
 * Close column j = S->j of the cycle, after the orthogonalisation: on entry col[0..j+1] is
 * H(0:j+1, j) and S->hnext, S->wnorm are set; on exit col is R(0:j+1, j). Applies the
 * rotations 0..j-1, builds rotation j to zero h_{j+1,j}, rotates g (|g_{j+1}| is the residual
 * norm estimate), counts the step and sets the status. cs and sn are the rotations: S->cs
 * and S->sn, or copies of them (the CUDA kernel passes copies in shared memory and writes
 * rotation j back). Both backends run this same code (the CUDA one in one thread), so their
 * transitions cannot drift.
 */
static inline SPS_HOST_DEVICE void sps_gmres_close_column(sps_gmres_state *S, double *col,
                                                          double *cs, double *sn)
{
  const int j = S->j;
  double *g = S->g;
  /* (x_i, x_{i+1}) <- (c_i x_i + s_i x_{i+1}, -s_i x_i + c_i x_{i+1}), i < j */
  for (int i = 0; i < j; i++) {
    double a = col[i], b = col[i + 1];
    col[i] = cs[i] * a + sn[i] * b;
    col[i + 1] = -sn[i] * a + cs[i] * b;
  }
  /* G_j: c = a/r, s = b/r, r = sqrt(a^2 + b^2) maps (a, b) to (r, 0). */
  double a = col[j], b = col[j + 1];
  double rjj = sps_hypot(a, b);
  if (!isfinite(rjj) || !isfinite(S->wnorm)) {
    S->status = SPS_GMRES_NAN;
    return;
  }
  if (rjj == 0.0) {
    S->status = SPS_GMRES_BREAKDOWN;
    return;
  }
  double c = a / rjj, s = b / rjj;
  cs[j] = c;
  sn[j] = s;
  col[j] = rjj;
  col[j + 1] = 0.0;
  /* (g_j, g_{j+1}) <- (c g_j, -s g_j) */
  double gj = g[j];
  g[j] = c * gj;
  g[j + 1] = -s * gj;
  int it = S->it + 1;
  S->it = it;
  S->j = j + 1;
  double resid = fabs(g[j + 1]);
  S->resid = resid;
  if (S->history) S->history[it] = resid;
  /* v_{j+1} completes the Arnoldi relation whenever h_{j+1,j} can be divided by. */
  S->vnext = 1;
  if (!isfinite(resid)) {
    S->status = SPS_GMRES_NAN;
    S->vnext = 0;
  } else if (S->hnext <= S->happy_tol * S->wnorm) {
    S->status = SPS_GMRES_HAPPY_BREAKDOWN;
    S->vnext = 0;
  } else if (resid <= S->tol) {
    S->status = SPS_GMRES_CONVERGED;
  } else if (it >= S->maxit) {
    S->status = SPS_GMRES_MAX_ITERATIONS;
  } else if (j + 1 >= S->m) {
    S->status = SPS_GMRES_CYCLE_END;
  }
}

/* Open a cycle once beta = ||r|| is known: g = beta e_1, j = 0, history[it], the status. */
static inline SPS_HOST_DEVICE void sps_gmres_open_cycle(sps_gmres_state *S, double beta)
{
  S->beta = beta;
  S->resid = beta;
  S->j = 0;
  S->vnext = 0;
  S->g[0] = beta;
  for (int i = 1; i <= S->m; i++) S->g[i] = 0.0;
  if (S->history && S->it <= S->maxit) S->history[S->it] = beta;
  if (!isfinite(beta)) S->status = SPS_GMRES_NAN;
  else if (beta <= S->tol) S->status = SPS_GMRES_CONVERGED;
  else if (S->it >= S->maxit) S->status = SPS_GMRES_MAX_ITERATIONS;
  else S->status = SPS_GMRES_RUNNING;
}

/* Step A's first half once sigma = r0hat.v is known: alpha = rho / sigma; sigma or alpha not
 * finite stops with NAN, sigma = 0 with BREAKDOWN. Returns 1 when the step goes on. */
static inline SPS_HOST_DEVICE int sps_bicgstab_close_alpha(sps_bicgstab_state *S, double sigma)
{
  S->sigma = sigma;
  if (!isfinite(sigma)) {
    S->status = SPS_BICGSTAB_NAN;
    return 0;
  }
  if (sigma == 0.0) {
    S->status = SPS_BICGSTAB_BREAKDOWN;
    return 0;
  }
  const double alpha = S->rho / sigma;
  S->alpha = alpha;
  if (!isfinite(alpha)) {
    S->status = SPS_BICGSTAB_NAN;
    return 0;
  }
  return 1;
}

/* Step A's end once ss = s.s is known: NaN stops, ss <= tol2 sets the half flag. */
static inline SPS_HOST_DEVICE void sps_bicgstab_close_s(sps_bicgstab_state *S, double ss)
{
  S->ss = ss;
  if (!isfinite(ss))
    S->status = SPS_BICGSTAB_NAN;
  else if (ss <= S->tol2)
    S->half = 1;
}

/* Step B's first half once ts = t.s and tt = t.t are known: omega = ts / tt (0 when t = 0); an
 * omega that is not finite stops with NAN before x is touched. Returns 1 when the step goes on. */
static inline SPS_HOST_DEVICE int sps_bicgstab_close_omega(sps_bicgstab_state *S, double ts,
                                                           double tt)
{
  S->ts = ts;
  S->tt = tt;
  const double omega = tt != 0.0 ? ts / tt : 0.0;
  S->omega = omega;
  if (!isfinite(omega)) {
    S->status = SPS_BICGSTAB_NAN;
    return 0;
  }
  return 1;
}

/*
 * The end of BiCGSTAB step B once rr = r.r and rho_new = r0hat.r are known (after the
 * omega update; after x += alpha phat, r = s when S->half is set): the count, the history
 * and the tests (NaN, tolerance, divergence, breakdown, a beta that overflows, maxit).
 */
static inline SPS_HOST_DEVICE void sps_bicgstab_close_step(sps_bicgstab_state *S, double rr,
                                                           double rho_new)
{
  int it = S->it + 1;
  S->it = it;
  S->rr = rr;
  if (S->history) S->history[it] = sqrt(rr);
  if (S->half) {
    S->status = isfinite(rr) ? SPS_BICGSTAB_CONVERGED : SPS_BICGSTAB_NAN;
  } else if (!isfinite(rr) || !isfinite(rho_new) || !isfinite(S->omega)) {
    S->status = SPS_BICGSTAB_NAN;
  } else if (rr <= S->tol2) {
    S->status = SPS_BICGSTAB_CONVERGED;
  } else if (sps_dtol_exceeded(&S->above, rr, S->dtol2)) {
    S->status = SPS_BICGSTAB_DIVERGED;
  } else if (S->omega == 0.0 || rho_new == 0.0) {
    S->status = SPS_BICGSTAB_BREAKDOWN;
  } else {
    const double beta = (rho_new / S->rho) * (S->alpha / S->omega);
    S->beta = beta;
    S->rho = rho_new;
    if (!isfinite(beta))
      S->status = SPS_BICGSTAB_NAN; /* the scalars overflow: p would be Inf */
    else if (it >= S->maxit)
      S->status = SPS_BICGSTAB_MAX_ITERATIONS;
  }
}

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_KRYLOV_STATE_H */
