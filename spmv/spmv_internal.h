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
  int tpr_requested;       /* as set by sps_spmv_plan_set_threads_per_row (TUNE starts from it) */
  int is_setup;
  const sps_spmv_variant *variant;
  void *data; /* the variant's format and buffers */
  int owned;  /* 1: made by another object (a solver) for itself, not counted by the context */
  sps_spmv_choice_info choice; /* how the variant in use was chosen (last setup) */
};

/*
 * One choice of variant and parameters, with the reasoning behind it: what the AUTO rule
 * (sps_spmv_auto_rule), the list of tuning candidates (sps_spmv_candidates) and a selector
 * return.
 */
typedef struct sps_spmv_choice {
  sps_spmv_kind kind;
  int tpr;       /* threads per row (csr-vector; 0 = the variant's own rule) */
  char why[256]; /* one sentence */
} sps_spmv_choice;

/* The AUTO rule (seed 000 and the H200 benchmark) with its reasoning in choice->why. */
void sps_spmv_auto_rule(const sps_matrix *A, sps_device_kind device, sps_spmv_choice *choice);

/*
 * The candidates that TUNE times on @p A (spmv/candidates.c), best guess first: the AUTO
 * rule's pick, then the other plausible variants and threads per row on @p device; at most
 * @p max, each (kind, tpr) once, every one available on the device. Returns the count.
 */
int sps_spmv_candidates(const sps_matrix *A, sps_device_kind device, sps_spmv_choice *list,
                        int max);

/*
 * TUNE at setup (spmv/tune.c): the cache entry or the fastest candidate set up in @p plan
 * (variant, data, kind, threads_per_row) and plan->choice filled. Fails only for host memory
 * and runtime errors, never because a candidate is refused.
 */
sps_status sps_spmv_tune(sps_spmv_plan *plan);

/*
 * The disk cache of tuning results (spmv/tune_cache.c). A key names the matrix structure
 * (sizes and a 64-bit hash of the row offsets and column indices), the device and the library
 * version; its entry is one text file in the cache directory.
 */
typedef struct sps_spmv_cache_key {
  char dir[1024];   /* the cache directory; "" when the cache is off */
  char path[1024];  /* the entry's file */
  char device[300]; /* "NVIDIA H100 80GB HBM3 sm_90", "cpu 8 threads" */
  char matrix[128]; /* "nrows ncols nnz hash" */
} sps_spmv_cache_key;

/* The 64-bit hash of A's structure (row offsets and column indices; not the values). */
uint64_t sps_spmv_structure_hash(const sps_matrix *A);

/* Fill @p key for A on the plan's context (dir "" when the cache is off). */
void sps_spmv_cache_key_make(const sps_context *ctx, const sps_matrix *A, sps_spmv_cache_key *key);

/*
 * Read the entry of @p key into info (choice, candidates): 1 when it exists and is valid for
 * this key (format, version, device, matrix, checksum, a variant available on @p device), 0
 * otherwise with @p why saying what was wrong ("" when there is no entry).
 */
int sps_spmv_cache_read(const sps_spmv_cache_key *key, sps_device_kind device,
                        sps_spmv_choice_info *info, char *why, size_t whylen);

/*
 * Store info's choice and candidates as the entry of @p key: a temporary file in the cache
 * directory (made when missing), fsync, rename over the entry. Returns 1 when stored, 0 with
 * @p why set otherwise; never records an error on a context.
 */
int sps_spmv_cache_write(const sps_spmv_cache_key *key, const sps_spmv_choice_info *info, char *why,
                         size_t whylen);

/* ELL refuses a matrix whose padded size exceeds this many times nnz. */
#define SPS_ELL_MAX_PADDING 3

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
#ifdef SPS_HAVE_CUDA
extern const sps_spmv_variant sps_spmv_variant_cusparse;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_INTERNAL_H */
