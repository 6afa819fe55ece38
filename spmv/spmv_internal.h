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
  /* Optional (CPU): y <- alpha*A*x for square A, and in the same pass *xy <- the compensated
   * sum of x_i y_i with the thread parts, order and merges of the CPU backend's dot, so the
   * bits of apply followed by that dot (core/omp_csum.h). fuses_dot says whether this plan
   * runs it, and faster than the two apart. */
  int (*fuses_dot)(const sps_spmv_plan *plan);
  sps_status (*apply_dot)(sps_spmv_plan *plan, double alpha, const double *x, double *y,
                          sps_csum *xy);
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
  sps_spmv_choice_info choice; /* how the variant in use was chosen (last setup): source, why */
  struct sps_dist_spmv *dist; /* a distributed matrix's product (spmv/dist.c): the variant
                                 above is then its head's, run by it; NULL otherwise */
};

#ifdef SPS_HAVE_MPI
/* The product of a distributed matrix (spmv/dist.c): setup (collective: the head's variant,
 * the halo exchange, the ranks' agreement), apply (y <- alpha A x + beta y with the halo
 * exchange overlapping the rows that need no halo), destroy, and whether every rank's head
 * variant rounds like csr-scalar. */
sps_status sps_spmv_dist_setup(sps_spmv_plan *plan);
sps_status sps_spmv_dist_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                               double *y);
void sps_spmv_dist_destroy(sps_spmv_plan *plan);
int sps_spmv_dist_rounds_like_csr(const sps_spmv_plan *plan);
#endif

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

/*
 * AUTO's choice for A on a device kind (spmv/select.c: sps_spmv_select with the compute
 * capability of A's context when it is a CUDA one, else none): the variant and its threads per
 * row (1 for csr-scalar, 0 for the variants without the setting).
 */
sps_spmv_kind sps_spmv_auto_choose(const sps_matrix *A, sps_device_kind device,
                                   int *threads_per_row);

/* A configuration: a variant and its threads per row (csr-vector; 0 otherwise). */
typedef struct sps_spmv_config {
  sps_spmv_kind kind;
  int tpr;
} sps_spmv_config;

/*
 * What sps_spmv_select picks, and why: the configuration, the model leaf's ranking of the
 * others (best first, for a fallback or a tuner), and a short text: the model and the tree path
 * taken ("model sm90: mean_len<=11.5, cv_len>0.8 -> blockwise"), or the rule and its test
 * ("no model for sm_89: rule: max_len<=4*mean+8, mean<=12 -> csr-scalar"), with any fallback
 * from a configuration that cannot run on the matrix.
 */
#define SPS_SPMV_RANKED 6
typedef struct sps_spmv_choice {
  sps_spmv_kind kind;
  int tpr;
  int nranked;
  sps_spmv_config ranked[SPS_SPMV_RANKED];
  char why[320];
} sps_spmv_choice;

/*
 * Choose the SpMV configuration of A for a device kind and, on CUDA, its compute capability
 * (10*major + minor, 0 when unknown): the model trained for that capability when one is built
 * in (spmv/model_smXY.c), else the rule of sps_spmv_select_rule. A configuration that AUTO may
 * not use on A (sps_spmv_config_fits) is replaced by the next one of the ranking, or by the
 * rule's, and why says so.
 */
void sps_spmv_select(const sps_matrix *A, sps_device_kind dev, int compute_capability,
                     sps_spmv_choice *out);

/* sps_spmv_select from statistics already computed (select-bench replays a sweep with it). */
void sps_spmv_select_stats(const sps_matrix_stats *s, sps_device_kind dev, int compute_capability,
                           sps_spmv_choice *out);

/* 1 when a model for this compute capability is built in. */
int sps_spmv_have_model(int compute_capability);

/* The rule used where no model exists (seed 000 and the spmv-bench results of an H200): see
 * spmv/select.c. */
void sps_spmv_select_rule(const sps_matrix_stats *s, sps_device_kind dev, sps_spmv_choice *out);

/* A generated model (spmv/model_smXY.c): walks its tree over the statistics and calls
 * sps_spmv_model_leaf at the leaf reached. */
typedef void (*sps_spmv_model_fn)(const sps_matrix_stats *s, sps_spmv_choice *out);

/*
 * The leaf of a generated model: the configurations in the leaf's order (best first, n of
 * them, the first one chosen) and the path of tests that led there.
 */
void sps_spmv_model_leaf(sps_spmv_choice *out, const sps_spmv_config *ranked, int n,
                         const char *path);

/* Choose with a given model (named "smXY" in why) for a device kind, as sps_spmv_select does
 * with a built-in one; the tests run generated models through it. */
void sps_spmv_select_model(const sps_matrix_stats *s, sps_device_kind dev, sps_spmv_model_fn model,
                           const char *name, sps_spmv_choice *out);

/* 1 when AUTO may use the configuration on a matrix of these statistics: the variant rounds
 * like csr-scalar (so not coo, hyb or cusparse) and, as far as the statistics tell, can be set
 * up (ELL's padding limit, blockwise's grid limit); else 0 with the reason in why. */
int sps_spmv_config_fits(const sps_matrix_stats *s, sps_spmv_config c, char *why, size_t len);

/* The compute capability of a context, 10*major + minor; 0 on the CPU. */
int sps_spmv_context_cc(const sps_context *ctx);

/*
 * The candidates that TUNE times on @p A (spmv/candidates.c), best guess first: AUTO's pick
 * (sps_spmv_select) and its ranking, then the other plausible variants and threads per row on
 * @p device; at most @p max, each (kind, tpr) once, every one available on the device. Returns
 * the count. Only kind, tpr and why of each entry are set.
 */
int sps_spmv_candidates(const sps_matrix *A, sps_device_kind device, int compute_capability,
                        sps_spmv_choice *list, int max);


/* y <- alpha*A*x + beta*y on raw arrays of the context's memory space (solvers use this). */
sps_status sps_spmv_apply_raw(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                              double *y);

/* Whether sps_spmv_apply_dot serves this set-up plan (its variant's fuses_dot; never on a
 * distributed matrix), and y <- alpha*A*x with *xy <- the compensated sum of x_i y_i, the bits
 * of sps_spmv_apply_raw(plan, alpha, x, 0, y) followed by the CPU backend's dot of x and y
 * (SPS_ERR_UNSUPPORTED where it does not serve). CG forms (p, Ap) this way on the CPU. */
int sps_spmv_plan_fuses_dot(const sps_spmv_plan *plan);
sps_status sps_spmv_apply_dot(sps_spmv_plan *plan, double alpha, const double *x, double *y,
                              sps_csum *xy);

/* The layout of a set-up csr-scalar plan on the CPU (spmv/csr_scalar.c): 0 the CSR loop, 1 the
 * sliced copy with the rows in order, 2 the sliced copy with the rows sorted by length within
 * windows (perm). For the tests. */
int sps_spmv_csr_scalar_layout(const sps_spmv_plan *plan);

/*
 * Row statistics of a CSR matrix, computed once at setup by the variants and the AUTO rule:
 * mean = nnz / nrows (0 when nrows = 0) and the longest row.
 */
typedef struct sps_spmv_row_stats {
  double mean;
  int64_t max_len;
} sps_spmv_row_stats;
void sps_spmv_row_stats_compute(const sps_matrix *A, sps_spmv_row_stats *stats);

/* What sps_spmv_stats_compute computes beyond the row-length statistics (bits). */
enum {
  SPS_STATS_COLUMNS = 1u << 0,     /* col_distance and windows_per_row (else 0) */
  SPS_STATS_SHORT_BLOCKS = 1u << 1 /* short_blocks (else -1): a sequential host pass */
};

/*
 * sps_matrix_get_stats without its argument checks. @p what: SPS_STATS_COLUMNS adds the pass
 * over the column indices (the rule does not read them); SPS_STATS_SHORT_BLOCKS the host pass
 * of the blockwise partition's greedy grouping (the models do not read it: train.py leaves it
 * out), else short_blocks is -1. On a CUDA matrix of at least SPS_STATS_GPU_MIN rows plus
 * entries the rest is one kernel (spmv/stats.c). seconds is the wall time of it all. Returns
 * the status of the device computation; on an error (recorded on A's context) *out holds the
 * host's statistics all the same.
 */
sps_status sps_spmv_stats_compute(const sps_matrix *A, unsigned what, sps_matrix_stats *out);

/*
 * The integer sums of A's pattern (spmv/ref/kernels.h) with k = round(nnz/nrows): by the GPU
 * kernel on A's device arrays when on_device (which needs sps_spmv_stats_on_device(A)), else
 * by the host reference. The kernel tests compare the two.
 */
struct sps_stats_sums;
sps_status sps_spmv_stats_sums(const sps_matrix *A, int columns, int on_device,
                               struct sps_stats_sums *out);

/* 1 when A's statistics can be computed on its device (a CUDA matrix with device arrays). */
int sps_spmv_stats_on_device(const sps_matrix *A);

/* The statistics from the sums (shared by both paths, so equal sums give equal doubles);
 * short_blocks is set to -1 and seconds to 0. */
void sps_spmv_stats_finish(const struct sps_stats_sums *t, int64_t m, int64_t n, int64_t nnz,
                           int columns, sps_matrix_stats *out);

/*
 * The blockwise variant's partition of A as its setup builds it on A's device (spmv/blockwise.c):
 * the blocks of short rows, the thread blocks given to long rows, and the long rows. One pass
 * over the row offsets; allocates nothing.
 */
void sps_spmv_blockwise_count(const sps_matrix *A, int64_t *short_blocks, int64_t *long_blocks,
                              int64_t *long_rows);

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
/*
 * The same arrays built on the GPU from A's device CSR arrays (spmv/cuda/ell.cu), into
 * ctx->be->malloc'd device memory: byte for byte sps_spmv_ell_build's, without the host pass
 * and the upload of width * ld slots. CUDA contexts only.
 */
sps_status sps_spmv_ell_build_device(sps_context *ctx, const sps_matrix *A, int64_t width,
                                     int64_t *ld, int32_t **colind, double **values);

/* ELL is refused when width * nrows exceeds this many times nnz (spmv/ell.c). */
#define SPS_ELL_MAX_PADDING 3

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
