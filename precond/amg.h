/* amg.h: algebraic multigrid inside the library (smoothed aggregation or classical coarsening): the levels of the hierarchy, the setup that builds them on the context's device, and the cycle that applies them. */
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

/* The coarsenings ("amg.coarsening"), smoothers ("amg.smoother") and cycles ("amg.cycle"). */
enum { AMG_COARSEN_AGGREGATION = 0, AMG_COARSEN_CLASSICAL = 1 };
enum { AMG_SMOOTHER_CHEBY = 0, AMG_SMOOTHER_L1_JACOBI = 1, AMG_SMOOTHER_MCGS = 2 };
enum { AMG_CYCLE_V = 1, AMG_CYCLE_W = 2, AMG_CYCLE_F = 3 };

/*
 * An m x n CSR matrix in the context's memory (device arrays on a CUDA context, host arrays on
 * the CPU), sorted columns: the form in which the setup passes operators from step to step.
 * Arrays from sps_scratch_alloc (amg_csr_alloc; the setup's temporaries, which on a GPU come
 * from a stream-ordered pool) or from the sparse product (the backend's malloc), released by
 * amg_csr_free either way; a view (amg_csr_of) borrows a library matrix's arrays and is not
 * freed. amg_csr_adopt moves scratch arrays into the backend's memory first.
 */
typedef struct amg_csr {
  int64_t nrows, ncols, nnz;
  int64_t *rp;
  int32_t *ci;
  double *v;
  int scratch; /* 1: the arrays are scratch (sps_scratch_alloc: amg_csr_alloc*); 0: the
                  backend's malloc (the sparse product's results) or a view */
} amg_csr;

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
  amg_csr op;           /* A_l's arrays (a view: level 0's are the solver's A, times asign) */
  sps_matrix *P, *R;    /* n x n_{l+1} prolongation and its transpose */
  sps_spmv_plan *Pplan, *Rplan;
  sps_matrix *Ainv; /* coarsest level: its operator's dense (generalised) inverse */
  sps_spmv_plan *Ainvplan;
  double *work;         /* one allocation holding the vectors below (level_vectors) */
  double *dinv;         /* n: the smoother's diagonal, 1/a_ii (Chebyshev, Gauss-Seidel) or
                           sign(a_ii)/||row||_1 (l1-Jacobi) */
  double *x, *b;        /* n: this level's iterate and right-hand side (l >= 1) */
  double *r, *e, *t;    /* n: residual, Chebyshev step, A e */
  double rho;           /* the estimate of the spectral radius of D^-1 A_l (0: not needed) */
  double eig_a, eig_b;  /* the Chebyshev smoother's interval */
  int ncolors;          /* Gauss-Seidel: the colours of A_l's rows */
  int lanes;            /* Gauss-Seidel: the GPU's lanes a row (from the mean row length) */
  int32_t *order;       /* Gauss-Seidel: the rows colour by colour (n, context memory) */
  int64_t *color_start; /* Gauss-Seidel: colour c is order[color_start[c] .. color_start[c+1])
                           (host, ncolors + 1) */
} amg_level;

/* The setup's phases (include/spsolve.h, SPS_AMG_SETUP_PHASES), in the order of
 * sps_amg_setup_phase_name(). */
enum {
  AMG_PHASE_SMOOTHER,
  AMG_PHASE_STRENGTH,
  AMG_PHASE_SPLITTING,
  AMG_PHASE_INTERPOLATION,
  AMG_PHASE_TRANSPOSE,
  AMG_PHASE_GALERKIN,
  AMG_PHASE_MATRICES,
  AMG_PHASE_COARSEST
};

/* The preconditioner's state (pc->data). */
typedef struct amg_data {
  int nlevels;
  int level;   /* the level the setup is working on (amg_phase_end's per-level times) */
  double mark; /* sps_wtime() at the end of the last timed phase */
  amg_level lv[SPS_AMG_MAX_LEVELS];
  sps_spmv_plan *own_plan0; /* level 0's plan when the solver gave none */
  int coarsening, smoother, degree, cycle;
  double outer; /* -1 when the hierarchy was built on -(sign A) (a negative diagonal): M^-1 r
                   is then minus the cycle's result */
} amg_data;

/*
 * Build the hierarchy of sign*A (pc->sign) on the context's device (amg_hierarchy.c): per
 * level the smoother's data, the prolongator P (smoothed aggregation, amg_sa.c, or classical
 * interpolation, amg_classical.c), R = P^T, the Galerkin product R A P, and the work vectors;
 * the coarsest level's dense inverse (amg_coarse.c). Fills d and pc->info; on failure d holds
 * what was built (freed by amg_data_free).
 */
sps_status amg_hierarchy_build(sps_precond *pc, const sps_matrix *A, amg_data *d);

/* Free everything d holds (each pointer may be NULL). */
void amg_data_free(sps_context *ctx, amg_data *d);

/* amg_params.c: the strength threshold of level l: amg.strength (or the coarsening's default when it is
 * negative), times AMG_STRENGTH_DECAY^l for aggregation. */
double amg_level_theta(const sps_precond_params *prm, int l);

/* amg_params.c: the most entries a row of P keeps (0: all): amg.interp_max, or the coarsening's default. */
int amg_interp_max(const sps_precond_params *prm);

/* amg_params.c: whether level l, of n rows, is coarsened in two classical stages: amg.aggressive,
 * or its default (the first two levels of at least 20,000 rows) when it is negative. */
int amg_aggressive_level(const sps_precond_params *prm, int l, int64_t n);

/* Matrices in the context's memory (amg_device.c). */
sps_status amg_csr_alloc(sps_context *ctx, amg_csr *M, int64_t nrows, int64_t ncols, int64_t nnz,
                         const char *what);
/* Allocate the row offsets only (nrows + 1), for a count-scan-fill construction. */
sps_status amg_csr_alloc_rows(sps_context *ctx, amg_csr *M, int64_t nrows, int64_t ncols,
                              const char *what);
/* After the row offsets are scanned (nnz known): the columns and values (values only when
 * `values`). */
sps_status amg_csr_alloc_entries(sps_context *ctx, amg_csr *M, int values, const char *what);
void amg_csr_free(sps_context *ctx, amg_csr *M);
/* A view of a library matrix's arrays in the context's memory. */
amg_csr amg_csr_of(const sps_matrix *M);
/*
 * count[0 .. n] (count[n] = 0) -> exclusive prefix sums in place; *total <- count[n] read
 * back (the one host synchronisation of a count-scan-fill construction).
 */
sps_status amg_scan(sps_context *ctx, int64_t *count, int64_t n, int64_t *total);
/* T = M^T (pattern only when `values` is 0), rows sorted by column. */
sps_status amg_csr_transpose(sps_context *ctx, const amg_csr *M, amg_csr *T, int values);
/* C = A B by the library's sparse product (precond/spgemm.h). */
sps_status amg_csr_product(sps_context *ctx, const amg_csr *A, const amg_csr *B, amg_csr *C);
/* A library matrix that takes M's arrays (M is emptied, whatever happens), owned by the
 * preconditioner (left out of the context's count of live objects). */
sps_status amg_csr_adopt(sps_context *ctx, amg_csr *M, sps_matrix **out);
/* M's arrays copied to the host (sps_host_rcsr_alloc; free with sps_host_rcsr_free). */
sps_status amg_csr_download(sps_context *ctx, const amg_csr *M, sps_host_rcsr *H);
/*
 * End a timed phase of the setup: the device synchronised, the wall time since the last mark
 * (amg_data.mark) added to pc->info.amg_setup_seconds[phase] and to the level being built
 * (amg_level_seconds[amg_data.level]), the mark moved to now (amg_device.c). The
 * synchronisation makes each phase's time its own; the setup synchronises at every
 * count-scan-fill construction anyway.
 */
sps_status amg_phase_end(sps_precond *pc, int phase);

/* A 64-bit counter word in the context's memory read back to the host. */
sps_status amg_read_word(sps_context *ctx, const unsigned long long *word, unsigned long long *v);

/*
 * The smoothed-aggregation prolongator of level l (amg_sa.c): the MIS(2) aggregates of H's
 * strength graph, the tentative prolongator fitted to the near-null vector B (n entries, into
 * Bc the coarse one, *nc entries; Bc has room for n), P = (I - omega D^-1 H) T with dinv =
 * 1/h_ii, truncated when amg.interp_max or amg.trunc ask for it. *nc = 0 when no aggregate
 * formed (P is then empty).
 */
sps_status amg_sa_prolongator(sps_precond *pc, int l, const amg_csr *H, const double *B, double *Bc,
                              const double *dinv, double omega, amg_csr *P, int64_t *nc);

/*
 * The classical prolongator of level l (amg_classical.c): strength of connection, PMIS C/F
 * splitting, extended+i interpolation truncated to amg.interp_max entries a row (amg.trunc).
 * *nc: the C points (0: none; P is then empty).
 */
sps_status amg_classical_prolongator(sps_precond *pc, int l, const amg_csr *H, amg_csr *P,
                                     int64_t *nc);

/*
 * The largest eigenvalue estimate of D^-1 H for level L (amg_spectrum.c): `steps` Lanczos
 * steps on D^-1/2 H D^-1/2 (dsq = sqrt(|dinv|), n entries) through L's SpMV plan and the
 * backend's vector operations, from a fixed pseudo-random start; the largest Ritz value.
 * v, vold, w, y: n doubles of scratch each.
 */
sps_status amg_spectral_radius(sps_context *ctx, const amg_level *L, const double *dsq, int steps,
                               double *v, double *vold, double *w, double *y, double *rho);

/*
 * The dense inverse of the n x n host matrix H as an n x n CSR matrix on the host (amg_coarse.c):
 * LU with partial pivoting in double; a pivot below 1e-13 times the largest |h_ij| is
 * taken as zero and its direction left out (a generalised inverse G with H G H = H for a
 * singular H, as for pure Neumann problems), counted in *dropped. symmetric: the result is
 * replaced by (G + G^T) / 2.
 */
sps_status amg_dense_inverse(sps_context *ctx, const sps_host_csr *H, int symmetric,
                             sps_host_rcsr *G, int64_t *dropped);

/*
 * The colours of level L's rows for multicolour Gauss-Seidel (amg_mcgs.c): Jones-Plassmann
 * rounds on A_l's pattern (and its transpose's when not symmetric), then L->order (rows
 * colour by colour) and L->color_start.
 */
sps_status amg_mcgs_setup(sps_context *ctx, amg_level *L, int symmetric);

/* One symmetric Gauss-Seidel smoothing of level L (forward colour by colour, then backward):
 * x <- S(x, b), x set to 0 first when zero (amg_mcgs.c). */
sps_status amg_mcgs_smooth(sps_context *ctx, const amg_level *L, const double *b, double *x,
                           int zero);

/* z <- the cycle applied to r (amg_cycle.c): allocates nothing, reads nothing back. */
sps_status amg_cycle_apply(sps_precond *pc, const double *r, double *z);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_AMG_H */
