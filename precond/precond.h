/* precond.h: the internal preconditioner interface, its parameters and its registry. */
#ifndef SPS_PRECOND_H
#define SPS_PRECOND_H

#include "../core/internal.h"
#include "../spmv/spmv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sps_precond sps_precond;

/*
 * The parameters of every preconditioner, set by name through sps_precond_params_set()
 * (precond/params.c holds the table of names, ranges and defaults; include/spsolve.h
 * documents them for users).
 */
typedef struct sps_precond_params {
  double ilut_fill;  /* ILUT: keep fill * (off-diagonal entries of the row of A) / 2 in L and in U */
  double ilut_drop;  /* ILUT: drop below drop * ||row of A||_2 */
  double ilut_pivot; /* ILUTP: swap columns when |a_ii| < pivot * |a_ij| (0: no pivoting) */
  double pivot_tol;  /* replace pivots |u_ii| < pivot_tol * max_j |a_ij| */
  double ic0_shift;  /* IC(0): the first diagonal shift tried */
  int matching;      /* -1 auto (zero or small diagonal), 0 off, 1 on */
  int scaling;       /* -1 with the matching (always for ilut), 0 off, 1 on */
  int ordering;      /* -1 auto, 0 natural, 1 multicolor, 2 reverse Cuthill-McKee */
  int bjacobi_block; /* rows per block, 0: chosen from the matrix */
  int cheby_degree;  /* degree of the Chebyshev polynomial */
  int cheby_lanczos; /* Lanczos steps of the eigenvalue estimate (cheby, amg) */
  int amg_coarsening;     /* AMG: 0 smoothed aggregation, 1 classical (PMIS, extended+i) */
  double amg_strength;    /* AMG: theta of the strength of connection (< 0: the coarsening's) */
  int amg_interp_max;     /* AMG: the most entries a row of P keeps (0: all) */
  double amg_trunc;       /* AMG: drop P's entries below this times the row's largest */
  double amg_filter;      /* AMG: drop the coarse operators' entries below this times
                             sqrt(|a_ii a_jj|), lumped into the diagonal */
  int amg_aggressive;     /* AMG: levels coarsened in two classical stages */
  int amg_smoother;       /* AMG: 0 Chebyshev, 1 l1-Jacobi, 2 multicolour Gauss-Seidel */
  int amg_cheby_degree;   /* AMG: degree of the Chebyshev smoother */
  double amg_cheby_ratio; /* AMG: the smoother's interval is [b / ratio, b] */
  int amg_levels;         /* AMG: the most levels, the finest included */
  int amg_coarse_size;    /* AMG: stop coarsening at this many rows or fewer */
  int amg_cycle;          /* AMG: 1 V, 2 W, 3 F */
} sps_precond_params;

/* The defaults of every parameter. */
void sps_precond_params_default(sps_precond_params *p);

/* Set the parameter called `name`; SPS_ERR_ARGUMENT (recorded on ctx) for an unknown name
 * or a value out of its range. */
sps_status sps_precond_params_set(sps_context *ctx, sps_precond_params *p, const char *name,
                                  double value);

/*
 * One preconditioner M. setup analyses the operator sign*A (A borrowed for the duration of
 * setup; sign is +1, or -1 when the solver solves (-A) x = -b) on the context's device and
 * keeps what it builds in pc->data (all allocation happens there), filling pc->info; apply
 * computes z <- M^-1 r on arrays of the context's memory space, allocates nothing, and may
 * be called with z == r only when `in_place` is set; destroy frees pc->data. Methods are
 * written against this table only.
 */
typedef struct sps_precond_ops {
  sps_precond_type type;
  const char *name;  /* the CLI name: "none", "jacobi", "ilu0", ... */
  int in_place;      /* apply accepts z == r */
  int symmetric;     /* M is symmetric positive definite when sign*A is (usable by CG) */
  sps_status (*setup)(sps_precond *pc, const sps_matrix *A);
  sps_status (*apply)(sps_precond *pc, const double *r, double *z);
  void (*destroy)(sps_precond *pc);
  /* For a diagonal M: its inverse diagonal in the context's memory (optional). */
  const double *(*diagonal_inverse)(const sps_precond *pc);
} sps_precond_ops;

struct sps_precond {
  sps_context *ctx;
  const sps_precond_ops *ops;
  int64_t n;                 /* order of the operator after setup */
  double sign;               /* the operator is sign * A */
  sps_spmv_plan *plan;       /* the solver's SpMV plan of A, borrowed (for polynomial M) */
  sps_precond_params params; /* copied at creation */
  sps_precond_info info;     /* what setup found and did */
  void *data;                /* the preconditioner's own state */
  const int64_t *row_ids;    /* a distributed matrix's original row indices (borrowed), or NULL */
};

/* Create an unset preconditioner of a type (not AUTO) with the given parameters (NULL:
 * the defaults). */
sps_status sps_precond_create(sps_context *ctx, sps_precond **pc, sps_precond_type type,
                              const sps_precond_params *params);
/*
 * Analyse sign*A (A square, borrowed for the duration of setup only). plan is the solver's
 * SpMV plan of A (set up; borrowed for the life of the preconditioner) or NULL for a
 * preconditioner that does not need it.
 */
sps_status sps_precond_setup(sps_precond *pc, const sps_matrix *A, double sign,
                             sps_spmv_plan *plan);
/* z <- M^-1 r. */
sps_status sps_precond_apply(sps_precond *pc, const double *r, double *z);
/* Nonzero when M is the identity: a method may then skip the apply and let z alias r. */
int sps_precond_is_identity(const sps_precond *pc);
/*
 * For a diagonal M (Jacobi): M^-1 as n values in the context's memory, valid after setup, so
 * a method can fuse z <- M^-1 r into its own updates. NULL for other preconditioners and for
 * the identity.
 */
const double *sps_precond_diagonal_inverse(const sps_precond *pc);
/*
 * ||M^-1 v|| / ||v|| for a fixed pseudo-random v (seeded, the same on every backend), into
 * pc->info.growth: a cheap measure of how large M^-1 is. Factors that are unstable (the
 * triangular solves grow without bound) give huge or non-finite values. Allocates two
 * vectors for the duration of the call (setup only).
 */
sps_status sps_precond_estimate_growth(sps_precond *pc);
/* Destroy (NULL allowed) and set the pointer to NULL. */
void sps_precond_destroy(sps_precond **pc);

/* The registered preconditioners (precond/<name>.c). */
extern const sps_precond_ops sps_precond_ops_none;
extern const sps_precond_ops sps_precond_ops_jacobi;
extern const sps_precond_ops sps_precond_ops_ilu0;
extern const sps_precond_ops sps_precond_ops_ic0;
extern const sps_precond_ops sps_precond_ops_ilut;
extern const sps_precond_ops sps_precond_ops_bjacobi;
extern const sps_precond_ops sps_precond_ops_cheby;
extern const sps_precond_ops sps_precond_ops_amg;

/* The ops of a type, or NULL for AUTO and values out of range. */
const sps_precond_ops *sps_precond_ops_get(sps_precond_type type);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_H */
