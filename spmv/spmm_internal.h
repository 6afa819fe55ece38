/* spmm_internal.h: the SpMM plan structure and the table every SpMM variant registers in (Y = alpha*A*X + beta*Y for k columns). */
#ifndef SPS_SPMM_INTERNAL_H
#define SPS_SPMM_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One variant. setup builds what the variant needs from plan->A and plan->k on the plan's
 * device and keeps it in plan->data (all allocation happens there); apply computes
 * Y <- alpha*A*X + beta*Y on row-major blocks in the context's memory space (X: ncols x k with
 * leading dimension ldx, Y: nrows x k with ldy; Y not read when beta = 0) and allocates
 * nothing; destroy frees plan->data. On the CPU a variant runs its reference in spmv/ref/, on
 * CUDA its launcher in spmv/cuda/.
 */
typedef struct sps_spmm_variant {
  sps_spmm_kind kind;
  int on_cpu;  /* available on the CPU backend */
  int on_cuda; /* available on the CUDA backend */
  /* 1 when every column is the library's reference SpMM (compensated row sums in entry order)
   * bar rare ties; 0 for cusparse-spmm. */
  int compensated;
  sps_status (*setup)(sps_spmm_plan *plan);
  sps_status (*apply)(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx, double beta,
                      double *Y, int64_t ldy);
  void (*destroy)(sps_spmm_plan *plan);
} sps_spmm_variant;

struct sps_spmm_plan {
  sps_context *ctx;
  const sps_matrix *A;
  int64_t k;               /* columns of X and Y */
  sps_spmm_kind requested; /* as set (may be AUTO) */
  sps_spmm_kind kind;      /* in use after setup */
  int is_setup;
  const sps_spmm_variant *variant;
  void *data;       /* the variant's format and buffers */
  int owned;        /* 1: made by another object (a block solver) for itself, not counted by the
                       context */
  int cusparse_alg; /* cusparse-spmm: 1, 2 or 3 for CUSPARSE_SPMM_CSR_ALG1..3; 0 = the
                       first of 2, 3, 1 that cuSPARSE accepts (spmm-bench times each) */
  char why[320];    /* how the variant in use was chosen */
};

/* The registry (spmv/spmm_plan.c): the variant of a kind, or NULL when not built. */
const sps_spmm_variant *sps_spmm_variant_get(sps_spmm_kind kind);

/*
 * AUTO's rule (spmv/spmm_select.c): the variant for A with k columns on a device kind, and
 * in why the test that chose it.
 */
sps_spmm_kind sps_spmm_select(const sps_matrix *A, int64_t k, sps_device_kind device, char *why,
                              size_t whylen);

/* Mark a plan as owned by the object that made it (a solver's): the context's count of live
 * objects leaves it out, as the solver's SpMV plan (sps_spmv_plan_set_owned). */
void sps_spmm_plan_set_owned(sps_spmm_plan *plan);

/* Y <- alpha*A*X + beta*Y on raw row-major arrays of the context's memory space (the block
 * solvers use this). */
sps_status sps_spmm_apply_raw(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                              double beta, double *Y, int64_t ldy);

/*
 * Y <- alpha*A*X + beta*Y on the first k columns of row-major arrays, k at most the plan's:
 * the block solvers' SpMM once columns have dropped out of their block. Served by the variants
 * whose set-up data do not depend on k (spmm-csr, sputnik: its row order) or are sized for the
 * plan's k and used in part (spmm-balanced: its partial sums); SPS_ERR_UNSUPPORTED for the
 * others (cusparse-spmm's descriptors, spmm-spmv: k = 1 only) when k is not the plan's.
 */
sps_status sps_spmm_apply_cols(sps_spmm_plan *plan, int64_t k, double alpha, const double *X,
                               int64_t ldx, double beta, double *Y, int64_t ldy);

/* The vector width (1 or 2 doubles) the GPU kernels may use on X and Y: 2 when k >= 2, both
 * leading dimensions are even and both arrays are 16-byte aligned. */
int sps_spmm_xy_vec(int64_t k, const double *X, int64_t ldx, const double *Y, int64_t ldy);

/* The variants (spmv/spmm_<name>.c). */
extern const sps_spmm_variant sps_spmm_variant_csr;
extern const sps_spmm_variant sps_spmm_variant_sputnik;
extern const sps_spmm_variant sps_spmm_variant_balanced;
extern const sps_spmm_variant sps_spmm_variant_spmv;
#ifdef SPS_HAVE_CUDA
extern const sps_spmm_variant sps_spmm_variant_cusparse;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMM_INTERNAL_H */
