/* spmv_internal.h: the SpMV plan structure and the variant table every SpMV variant registers in. */
#ifndef SPS_SPMV_INTERNAL_H
#define SPS_SPMV_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One variant. setup builds the variant's format from plan->A on the plan's device and
 * keeps it in plan->data (all allocation happens there); apply computes
 * y <- alpha*A*x + beta*y on arrays in the context's memory space and allocates nothing
 * (y is not read when beta = 0); destroy frees plan->data. Each variant serves both
 * backends: on the CPU it calls its reference in spmv/ref/, on CUDA its launcher in
 * spmv/cuda/.
 */
typedef struct sps_spmv_variant {
  sps_spmv_kind kind;
  int on_cpu;  /* available on the CPU backend */
  int on_cuda; /* available on the CUDA backend */
  sps_status (*setup)(sps_spmv_plan *plan);
  sps_status (*apply)(sps_spmv_plan *plan, double alpha, const double *x, double beta, double *y);
  void (*destroy)(sps_spmv_plan *plan);
} sps_spmv_variant;

struct sps_spmv_plan {
  sps_context *ctx;
  const sps_matrix *A;
  sps_spmv_kind requested; /* as created (may be AUTO) */
  sps_spmv_kind kind;      /* in use after setup */
  int threads_per_row;     /* requested before setup (0 = choose), in use after */
  int is_setup;
  const sps_spmv_variant *variant;
  void *data; /* the variant's format and buffers */
};

/* The registry (spmv/plan.c): the variant of a kind, or NULL when not built. */
const sps_spmv_variant *sps_spmv_variant_get(sps_spmv_kind kind);

/* The rule for AUTO (seed 000): a variant and its threads per row from row statistics. */
sps_spmv_kind sps_spmv_auto_choose(const sps_matrix *A, sps_device_kind device,
                                   int *threads_per_row);

/* y <- alpha*A*x + beta*y on raw arrays of the context's memory space (solvers use this). */
sps_status sps_spmv_apply_raw(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                              double *y);

/* The variants (spmv/<name>.c). */
extern const sps_spmv_variant sps_spmv_variant_csr_scalar;

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_INTERNAL_H */
