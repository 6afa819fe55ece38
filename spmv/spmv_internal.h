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
  /* 1 when apply gives csr-scalar's bits (compensated row sums, bar rare ties), so that a
   * solver may form A x another way with the same rounding (the fused GMRES cycle); 0 for the
   * variants whose sums depend on atomics or a library's order. */
  int rounds_like_csr;
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
  int owned;  /* 1: made by another object (a solver) for itself, not counted by the context */
};

/* Mark a plan as owned by the object that made it (a solver's): the context's count of live
 * objects leaves it out, as the user did not make it. */
void sps_spmv_plan_set_owned(sps_spmv_plan *plan);

/* The registry (spmv/plan.c): the variant of a kind, or NULL when not built. */
const sps_spmv_variant *sps_spmv_variant_get(sps_spmv_kind kind);

/* The plan's variant rounds like csr-scalar (sps_spmv_variant.rounds_like_csr); 0 before setup. */
int sps_spmv_plan_rounds_like_csr(const sps_spmv_plan *plan);

/* The rule for AUTO (seed 000): a variant and its threads per row from row statistics. */
sps_spmv_kind sps_spmv_auto_choose(const sps_matrix *A, sps_device_kind device,
                                   int *threads_per_row);

/* y <- alpha*A*x + beta*y on raw arrays of the context's memory space (solvers use this). */
sps_status sps_spmv_apply_raw(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                              double *y);

/*
 * Row statistics of a CSR matrix, computed once at setup by the variants and the AUTO rule:
 * mean = nnz / nrows (0 when nrows = 0) and the longest row.
 */
typedef struct sps_spmv_row_stats {
  double mean;
  int64_t max_len;
} sps_spmv_row_stats;
void sps_spmv_row_stats_compute(const sps_matrix *A, sps_spmv_row_stats *stats);

/*
 * Seed 000's threads-per-row rule: the power of two nearest (in ratio) to the mean row
 * length, clamped to [lo, 32]. lo is 2 for csr-vector and 1 for blockwise's short blocks.
 */
int sps_spmv_tpr_from_mean(double mean, int lo);

/*
 * Hand a host array built at setup (allocated with sps_host_alloc) to the plan's device: on
 * the CPU the array itself is kept (*dev = *host); on CUDA it is copied into new device
 * memory. *host is freed and set to NULL in every case; *dev is freed with ctx->be->free.
 */
sps_status sps_spmv_to_device(sps_context *ctx, void **host, void **dev, size_t bytes,
                              const char *what);

/*
 * The ELL arrays of the first min(width, row length) entries of every row (ell, and the ELL
 * part of hyb), on the host: entry k of row i at k*ld + i, ld = nrows rounded up to a
 * multiple of 32, padding column -1 and value 0. Arrays from sps_host_alloc.
 */
sps_status sps_spmv_ell_build(sps_context *ctx, const sps_matrix *A, int64_t width, int64_t *ld,
                              int32_t **colind, double **values);

/* The variants (spmv/<name>.c). */
extern const sps_spmv_variant sps_spmv_variant_csr_scalar;
extern const sps_spmv_variant sps_spmv_variant_csr_vector;
extern const sps_spmv_variant sps_spmv_variant_ell;
extern const sps_spmv_variant sps_spmv_variant_coo;
extern const sps_spmv_variant sps_spmv_variant_hyb;
extern const sps_spmv_variant sps_spmv_variant_merge;
extern const sps_spmv_variant sps_spmv_variant_blockwise;
extern const sps_spmv_variant sps_spmv_variant_binned;
#ifdef SPS_HAVE_CUDA
extern const sps_spmv_variant sps_spmv_variant_cusparse;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_INTERNAL_H */
