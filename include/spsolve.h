/* spsolve.h: the public C API of libspsolve, Krylov solvers for sparse Ax = b on GPUs and CPUs. */
#ifndef SPSOLVE_H
#define SPSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @file spsolve.h
 *
 * Every object is created from an ::sps_context, which owns the device (CPU or a CUDA GPU),
 * its stream and library handles, and the message of the last error. Objects follow one
 * lifecycle: create, set, setup (all analysis and allocation), solve or apply (no
 * allocation), get, destroy. Every function returns an ::sps_status; when it is not
 * ::SPS_SUCCESS, sps_context_last_error() says what went wrong, naming the argument, or
 * the file and line of bad input. The library never prints, exits or aborts.
 *
 * Sizes: row offsets are 64-bit (int64_t), column indices 32-bit (int32_t), values double.
 * A matrix whose row or column count exceeds INT32_MAX is refused with ::SPS_ERR_SIZE.
 */

#define SPS_VERSION_MAJOR 0
#define SPS_VERSION_MINOR 1
#define SPS_VERSION_PATCH 0

/**
 * The status codes: X(name, value, description). Zero is success, negative values are
 * errors. The enum and the string table of sps_status_string() are made from this list.
 */
#define SPS_STATUS_LIST(X)                                                              \
  X(SPS_SUCCESS, 0, "success")                                                          \
  X(SPS_ERR_ARGUMENT, -1, "invalid argument")                                           \
  X(SPS_ERR_SIZE, -2, "sizes do not match or exceed the index types")                   \
  X(SPS_ERR_HOST_MEMORY, -3, "host memory allocation failed")                           \
  X(SPS_ERR_DEVICE_MEMORY, -4, "device memory allocation failed")                       \
  X(SPS_ERR_CUDA, -5, "CUDA runtime error")                                             \
  X(SPS_ERR_CUSPARSE, -6, "cuSPARSE error")                                   \
  X(SPS_ERR_UNSUPPORTED, -7, "not supported by this build, device or matrix")           \
  X(SPS_ERR_IO, -8, "input/output error or malformed input")                            \
  X(SPS_ERR_NO_DEVICE, -9, "no usable CUDA device")                                     \
  X(SPS_ERR_STATE, -10, "call out of order (e.g. solve before setup)")                 \
  X(SPS_ERR_BUSY, -11, "objects made from the context are still alive")                \
  X(SPS_ERR_INTERRUPTED, -12, "interrupted: a progress callback asked to stop")         \
  X(SPS_ERR_MPI, -13, "MPI communication error (distributed contexts)")

/** Status returned by every function. */
typedef enum sps_status {
#define SPS_X_ENUM(name, value, text) name = value,
  SPS_STATUS_LIST(SPS_X_ENUM)
#undef SPS_X_ENUM
} sps_status;

/**
 * Why a solve stopped: X(name, value, description). Positive values mean converged,
 * negative values mean the iteration stopped without converging, zero means not solved yet.
 * A solve that does not converge is not an error: the solve returns ::SPS_SUCCESS.
 */
#define SPS_REASON_LIST(X)                                                              \
  X(SPS_REASON_NONE, 0, "not solved yet")                                               \
  X(SPS_CONVERGED_RTOL, 1, "converged: ||b - Ax|| <= rtol*||b||")                       \
  X(SPS_CONVERGED_ATOL, 2, "converged: ||b - Ax|| <= atol")                             \
  X(SPS_CONVERGED_ZERO_RHS, 3, "converged: b = 0, so x = 0")                            \
  X(SPS_DIVERGED_MAX_ITERATIONS, -1, "maximum iterations reached")                      \
  X(SPS_DIVERGED_BREAKDOWN, -2, "breakdown of the method")                              \
  X(SPS_DIVERGED_INDEFINITE_MATRIX, -3, "matrix is not positive definite")              \
  X(SPS_DIVERGED_INDEFINITE_PRECOND, -4, "preconditioner is not positive definite")     \
  X(SPS_DIVERGED_NAN, -5, "residual is NaN or Inf")                                    \
  X(SPS_DIVERGED_DTOL, -6, "diverged: ||b - Ax|| > dtol*max(||b||, ||b - Ax_0||)")       \
  X(SPS_DIVERGED_RANGE, -7, "the solution lies outside the range of doubles (overflow or subnormal)") \
  X(SPS_INTERRUPTED, -8, "interrupted: the progress callback asked the solve to stop")

/** Convergence reason of the last solve. */
typedef enum sps_reason {
#define SPS_X_ENUM(name, value, text) name = value,
  SPS_REASON_LIST(SPS_X_ENUM)
#undef SPS_X_ENUM
} sps_reason;

/** Where a context computes. */
typedef enum sps_device_kind {
  SPS_DEVICE_AUTO = 0, /**< a CUDA GPU when one is usable, else the CPU */
  SPS_DEVICE_CPU = 1,  /**< the CPU, with OpenMP when built with it */
  SPS_DEVICE_CUDA = 2  /**< a CUDA GPU, chosen by index */
} sps_device_kind;

/**
 * SpMV variants: X(enum, cli-name, description). The CLI name (`--spmv=csr-vector`), the
 * enum (SPS_SPMV_CSR_VECTOR) and the files (spmv/cuda/csr_vector.cu, spmv/ref/csr_vector.c)
 * share one name. The first two are ways of choosing one of the others at setup, not
 * variants (sps_spmv_kind_is_variant()): AUTO from statistics of the matrix, TUNE by timing a
 * short list of candidates on the matrix (sps_spmv_plan_get_choice() reports the table and its
 * cost) and keeping the fastest, with the result kept in a disk cache
 * (sps_context_set_cache_dir()). They share the variants' name space so that
 * `--spmv auto|tune|NAME`, the enum and Python's `spmv=` are one list.
 */
#define SPS_SPMV_LIST(X)                                                                \
  X(SPS_SPMV_AUTO, "auto", "chosen at setup from statistics of the matrix")             \
  X(SPS_SPMV_TUNE, "tune", "the fastest of a short list, timed at setup (cached on disk)") \
  X(SPS_SPMV_CSR_SCALAR, "csr-scalar", "CSR, one thread per row")                       \
  X(SPS_SPMV_CSR_VECTOR, "csr-vector", "CSR, 2 to 32 threads per row")                  \
  X(SPS_SPMV_ELL, "ell", "padded column-major ELLPACK")                                 \
  X(SPS_SPMV_COO, "coo", "coordinate format with atomic updates")                       \
  X(SPS_SPMV_HYB, "hyb", "ELL for the typical row plus COO for the excess")             \
  X(SPS_SPMV_MERGE, "merge", "merge-path load-balanced CSR")                            \
  X(SPS_SPMV_BLOCKWISE, "blockwise", "long-row and short-row blocks, each with its own threads") \
  X(SPS_SPMV_BINNED, "binned", "rows binned by length (ACSR), each bin with its own threads per row") \
  X(SPS_SPMV_CUSPARSE, "cusparse", "cuSPARSE CSR ALG1 (GPU only), the reference")

/** SpMV variant. */
typedef enum sps_spmv_kind {
#define SPS_X_ENUM(name, cli, text) name,
  SPS_SPMV_LIST(SPS_X_ENUM)
#undef SPS_X_ENUM
  SPS_SPMV_KIND_COUNT
} sps_spmv_kind;

/**
 * Where the SpMV variant in use came from: X(enum, name, description)
 * (sps_spmv_choice_info.source).
 */
#define SPS_SPMV_SOURCE_LIST(X)                                                         \
  X(SPS_SPMV_SOURCE_NONE, "none", "not set up yet")                                     \
  X(SPS_SPMV_SOURCE_USER, "user", "named by the caller")                                \
  X(SPS_SPMV_SOURCE_RULE, "rule", "the AUTO rule over row statistics")                  \
  X(SPS_SPMV_SOURCE_MODEL, "model", "the trained model over matrix statistics")         \
  X(SPS_SPMV_SOURCE_TUNE, "tune", "the fastest candidate timed at setup")               \
  X(SPS_SPMV_SOURCE_CACHE, "cache", "a tuning result read from the disk cache")

/** Where the SpMV variant in use came from. */
typedef enum sps_spmv_source {
#define SPS_X_ENUM(name, text, desc) name,
  SPS_SPMV_SOURCE_LIST(SPS_X_ENUM)
#undef SPS_X_ENUM
  SPS_SPMV_SOURCE_COUNT
} sps_spmv_source;

/** The most candidates a tuning times (sps_spmv_choice_info.candidates). */
#define SPS_SPMV_MAX_CANDIDATES 16

/** One candidate of a tuning: what was timed, or why it was left out. */
typedef struct sps_spmv_candidate {
  sps_spmv_kind kind;  /**< a variant */
  int threads_per_row; /**< its threads per row (csr-vector), else 0 */
  double seconds;      /**< median seconds per apply; NaN when it was not timed */
  sps_status status;   /**< ::SPS_SUCCESS, or the status of the setup or apply that failed */
  char note[200];      /**< how it was timed ("graph", "plain", "wall clock"), or why it failed */
} sps_spmv_candidate;

/**
 * How the SpMV variant in use was chosen (sps_spmv_plan_get_choice(),
 * sps_solver_get_spmv_choice()). The candidate table is filled by TUNE (the one timed now, or
 * the one stored with a cache entry); for the other ways it is empty.
 */
typedef struct sps_spmv_choice_info {
  sps_spmv_kind requested;  /**< as asked: AUTO, TUNE or a variant */
  sps_spmv_kind kind;       /**< the variant in use */
  int threads_per_row;      /**< its threads per row (0 when it has none) */
  sps_spmv_source source;   /**< rule, model, tune, cache or user */
  char why[512];            /**< the reasoning: the rule's test, or the outcome of the tuning */
  double tune_seconds;      /**< wall-clock seconds of the tuning or of the cache lookup (0 otherwise) */
  double tune_spmv_equivalents; /**< tune_seconds over the chosen variant's time per apply
                                     (0 when unknown) */
  int timed;                /**< candidates set up and timed by this setup (0 on a cache hit) */
  int candidate_count;      /**< entries of candidates[] */
  sps_spmv_candidate candidates[SPS_SPMV_MAX_CANDIDATES]; /**< in the order tried */
  char cache_file[1024];    /**< the cache entry read or written; "" when the cache is off */
  char cache_note[256];     /**< "hit", "stored", "off", "not stored: REASON", "ignored: REASON, re-tuned" */
} sps_spmv_choice_info;

/** Krylov methods. SPS_SOLVER_TYPE_COUNT counts the methods; AUTO is not one of them. */
typedef enum sps_solver_type {
  SPS_SOLVER_AUTO = -1,    /**< chosen at setup from the matrix (see sps_solver_create()) */
  SPS_SOLVER_CG = 0,       /**< conjugate gradients, preconditioned; A SPD */
  SPS_SOLVER_GMRES = 1,    /**< restarted GMRES(m), right preconditioned */
  SPS_SOLVER_BICGSTAB = 2, /**< BiCGSTAB, right preconditioned */
  SPS_SOLVER_TYPE_COUNT
} sps_solver_type;

/**
 * Preconditioners. SPS_PRECOND_TYPE_COUNT counts the preconditioners; AUTO is not one of
 * them but a rule that picks one at setup (and may move to another during the solve).
 * The names (sps_precond_type_name()) are the CLI's: "none", "jacobi", "ilu0", "ic0",
 * "ilut", "bjacobi", "cheby", "amg", "auto".
 */
typedef enum sps_precond_type {
  SPS_PRECOND_AUTO = -1,   /**< chosen from the matrix, with a fallback chain (the default) */
  SPS_PRECOND_NONE = 0,    /**< identity */
  SPS_PRECOND_JACOBI = 1,  /**< inverse of the diagonal */
  SPS_PRECOND_ILU0 = 2,    /**< incomplete LU with the pattern of A */
  SPS_PRECOND_IC0 = 3,     /**< incomplete Cholesky with the pattern of A (symmetric A) */
  SPS_PRECOND_ILUT = 4,    /**< dual-threshold incomplete LU with column pivoting (ILUTP) */
  SPS_PRECOND_BJACOBI = 5, /**< block Jacobi: inverted dense diagonal blocks */
  SPS_PRECOND_CHEBY = 6,   /**< Chebyshev polynomial in D^-1 A (SPD A) */
  SPS_PRECOND_AMG = 7,     /**< algebraic multigrid (classical or smoothed aggregation), one
                                cycle (SPD A) */
  SPS_PRECOND_TYPE_COUNT
} sps_precond_type;

/** The most levels of an algebraic multigrid hierarchy (the range of "amg.levels"). */
#define SPS_AMG_MAX_LEVELS 25
/** The phases of the multigrid setup timed in ::sps_precond_info.amg_setup_seconds, named by
 * sps_amg_setup_phase_name(): 0 "smoother" (the diagonal, the spectral radius estimate, the
 * Gauss-Seidel colours), 1 "strength" (the strong connections), 2 "splitting" (PMIS C/F
 * splitting, or the MIS(2) aggregates with their strength graph), 3 "interpolation" (the
 * weights, their truncation, the smoothing of P; aggressive coarsening's product P1 P2),
 * 4 "transpose" (R = P^T), 5 "galerkin" (the products R A P), 6 "matrices" (the levels handed
 * to library matrices with their SpMV plans, the work vectors, level 0's copy), 7 "coarsest"
 * (the coarsest level's dense inverse). */
#define SPS_AMG_SETUP_PHASES 8

/**
 * What a preconditioner found and did at setup (sps_solver_get_precond_info()). Fields that
 * do not apply to the preconditioner are 0.
 */
typedef struct sps_precond_info {
  sps_precond_type type;   /**< the preconditioner in use (never AUTO) */
  int matched;             /**< 1: rows were permuted to put large entries on the diagonal */
  int scaled;              /**< 1: rows and columns were scaled (equilibrated) */
  int negated;             /**< 1: the system was solved as (-A) x = -b */
  int64_t permuted_rows;   /**< rows the matching moved off their own position */
  int64_t unmatched_rows;  /**< rows no nonzero could be matched to (structurally singular A) */
  int64_t replaced_pivots; /**< small or zero pivots replaced by the pivot rule */
  int64_t pivot_swaps;     /**< column interchanges of ILUTP */
  double shift;            /**< the diagonal shift alpha of IC(0) (A + alpha diag(A)) */
  int shift_tries;         /**< factorisations tried before the shift that held */
  int64_t nnz_factors;     /**< entries of L and U (or of the blocks) */
  int levels_lower;        /**< level sets of the lower triangular solve */
  int levels_upper;        /**< level sets of the upper triangular solve */
  int ordering;            /**< the symmetric ordering applied: 0 natural, 1 multicolor, 2 RCM */
  int colors;              /**< colors of the multicolor ordering (0 without it) */
  double growth;           /**< ||M^-1 v||_2 / ||v||_2 for a fixed random v: the size of M^-1 */
  int block_size;          /**< bjacobi: rows per diagonal block */
  int degree;              /**< cheby: the degree of the polynomial */
  double eig_min, eig_max; /**< cheby: the interval of D^-1 A the polynomial is built on;
                                amg: the finest level's Chebyshev smoother interval */
  int amg_levels;          /**< amg: levels of the hierarchy, the finest (A) included */
  int64_t amg_rows[SPS_AMG_MAX_LEVELS]; /**< amg: rows of each level's operator, finest first */
  int64_t amg_nnz[SPS_AMG_MAX_LEVELS];  /**< amg: entries of each level's operator */
  double amg_grid_complexity;     /**< amg: sum of the levels' rows over A's rows */
  double amg_operator_complexity; /**< amg: sum of the levels' entries over A's entries */
  int64_t amg_coarse_nnz;  /**< amg: entries of the coarsest level's dense inverse (0: the
                                coarsest level is smoothed, not solved) */
  int amg_coarsening;      /**< amg: 0 smoothed aggregation, 1 classical ("amg.coarsening") */
  int amg_smoother;        /**< amg: 0 Chebyshev, 1 l1-Jacobi, 2 multicolour Gauss-Seidel
                                (its colours on the finest level in ::sps_precond_info.colors) */
  double amg_setup_seconds[SPS_AMG_SETUP_PHASES]; /**< amg: wall seconds of each phase of the
                                setup (::SPS_AMG_SETUP_PHASES), the device synchronised at
                                each phase's end; their sum is the multigrid's setup time */
  double amg_level_seconds[SPS_AMG_MAX_LEVELS]; /**< amg: wall seconds of the setup spent on
                                each level: its smoother, and the level below it built from it
                                (or its dense inverse) */
} sps_precond_info;

/** One try of the automatic choice (sps_solver_get_attempts()). */
typedef struct sps_solver_attempt {
  sps_solver_type method;   /**< the Krylov method tried */
  sps_precond_type precond; /**< the preconditioner tried */
  int iterations;           /**< iterations spent with it (0 when it failed at setup) */
  double residual_rel;      /**< true relative residual when it stopped (0 if not solved) */
  int accepted;             /**< 1 for the try in use at the end */
  char note[240];           /**< what happened: the setup failure or why the choice moved on */
} sps_solver_attempt;

/**
 * What the last solve gave, in one call (sps_solver_get_report()): the same values as
 * sps_solver_get_reason(), _iterations(), _residual(), _times(), _method(), _spmv(),
 * _attempts() and _history() return. The pointers are borrowed from the solver and valid until
 * its next solve, setup or destroy.
 */
typedef struct sps_solve_report {
  sps_reason reason;                   /**< why the solve stopped */
  int iterations;                      /**< iterations of the last solve */
  double residual_abs;                 /**< true residual ||b - Ax|| of the returned x */
  double residual_rel;                 /**< residual_abs / ||b|| */
  double setup_seconds;                /**< the last setup's wall clock */
  double solve_seconds;                /**< the last solve's wall clock, device synchronised */
  sps_solver_type method;              /**< the Krylov method in use */
  sps_precond_type precond;            /**< the preconditioner in use */
  sps_spmv_kind spmv;                  /**< the SpMV variant in use */
  int threads_per_row;                 /**< its threads per row (csr-vector), else 0 or 1 */
  const sps_solver_attempt *attempts;  /**< the tries of the automatic choice */
  int attempt_count;                   /**< their number (1 with a named method and precond) */
  const double *history;               /**< residual history, NULL unless enabled */
  int history_count;                   /**< its length */
} sps_solve_report;

/** Orthogonalisation in GMRES. */
typedef enum sps_orthog {
  SPS_ORTHOG_MGS = 0,  /**< modified Gram-Schmidt */
  SPS_ORTHOG_CGS2 = 1  /**< classical Gram-Schmidt with one reorthogonalisation */
} sps_orthog;

/** Symmetry of a matrix as declared by its source (a Matrix Market header) or checked. */
typedef enum sps_symmetry {
  SPS_SYMMETRY_UNKNOWN = 0,
  SPS_SYMMETRY_GENERAL = 1,
  SPS_SYMMETRY_SYMMETRIC = 2,
  SPS_SYMMETRY_SKEW = 3
} sps_symmetry;

/** Flags for sps_matrix_read_mm() and sps_vector_read_mm(). */
enum {
  SPS_MM_ALLOW_NONFINITE = 1u << 0 /**< accept NaN and Inf values instead of refusing them */
};

typedef struct sps_context sps_context;     /**< device, stream, handles, last error */
typedef struct sps_matrix sps_matrix;       /**< a sparse matrix in CSR, on the context's device */
typedef struct sps_vector sps_vector;       /**< a dense vector on the context's device */
typedef struct sps_spmv_plan sps_spmv_plan; /**< y = alpha*A*x + beta*y with one variant */
typedef struct sps_solver sps_solver;       /**< a Krylov solver with its preconditioner */

/**
 * Called by a solver with the residual norm ||b - Ax|| (the recurrence estimate) at
 * iteration @p iteration, every `every` iterations (sps_solver_set_monitor): the solver ends
 * its batch of device-driven iterations there, so an unset monitor costs nothing. Must not
 * call back into the solver. During sps_solver_solve_many() @p iteration is the block's
 * iteration count and @p residual_norm the largest relative residual ||r_j||/||b_j|| of the
 * columns still running (the progress callback receives the same).
 */
typedef void (*sps_monitor_fn)(void *user, int iteration, double residual_norm);

/**
 * Called by a solver after each batch of iterations it has read back (sps_solver_set_progress)
 * with the iteration reached and the residual norm ||b - Ax|| (the recurrence estimate); the
 * solver shortens its batches so that the calls come at least every `interval` seconds. Return
 * 0 to go on, nonzero to stop the solve: it ends with ::SPS_INTERRUPTED and x holds the
 * iterate reached (GMRES updates x from the part of its cycle done). Must not call back into
 * the solver. May be called from the thread that called sps_solver_solve() only.
 */
typedef int (*sps_progress_fn)(void *user, int iteration, double residual_norm);

/** @name Status and version */
/**@{*/
/** The fixed description of a status code; never NULL. */
const char *sps_status_string(sps_status status);
/** The name of a status code ("SPS_ERR_IO"); never NULL. */
const char *sps_status_name(sps_status status);
/** The fixed description of a reason; never NULL. */
const char *sps_reason_string(sps_reason reason);
/** The name of a reason ("SPS_CONVERGED_RTOL"); never NULL. */
const char *sps_reason_name(sps_reason reason);
/** The library version, "MAJOR.MINOR.PATCH". */
const char *sps_version(void);
/** Nonzero when the library was built with CUDA support. */
int sps_have_cuda(void);
/**
 * Count the usable CUDA devices and name device 0.
 * @param[out] count number of devices (0 without CUDA or without a GPU)
 * @param[out] name  buffer for the name of device 0 (may be NULL)
 * @param[in]  len   size of @p name
 * @return ::SPS_SUCCESS always when @p count is not NULL, ::SPS_ERR_ARGUMENT otherwise.
 */
sps_status sps_cuda_device_query(int *count, char *name, size_t len);
/**@}*/

/** @name Context */
/**@{*/
/**
 * Create a context on a device.
 * @param[out] ctx   the new context; set to NULL on failure
 * @param[in]  kind  ::SPS_DEVICE_AUTO, ::SPS_DEVICE_CPU or ::SPS_DEVICE_CUDA
 * @param[in]  index CUDA device index (ignored for the CPU; for AUTO, the GPU tried)
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT; ::SPS_ERR_HOST_MEMORY; ::SPS_ERR_NO_DEVICE when
 *         CUDA is asked for and no such device exists (or the build has no CUDA:
 *         ::SPS_ERR_UNSUPPORTED); ::SPS_ERR_CUDA, ::SPS_ERR_CUSPARSE on handle creation.
 *         Errors at creation have no context to hold their message: use
 *         sps_context_create_error() to read it.
 */
sps_status sps_context_create(sps_context **ctx, sps_device_kind kind, int index);
/** The message of the last failed sps_context_create() in this thread. */
const char *sps_context_create_error(void);
/**
 * Destroy a context (NULL allowed) and set the pointer to NULL. Every matrix, vector, SpMV
 * plan and solver made from it must be destroyed first: while any is alive the context is
 * not destroyed (their later use would read freed memory), *ctx is left as it is and
 * ::SPS_ERR_BUSY is returned, with a message counting the live objects by kind (as
 * sqlite3_close refuses with SQLITE_BUSY while statements remain).
 * @return ::SPS_SUCCESS, ::SPS_ERR_BUSY.
 */
sps_status sps_context_destroy(sps_context **ctx);
/** The message of the last error recorded on @p ctx ("" when none); owned by the context. */
const char *sps_context_last_error(const sps_context *ctx);
/** The device kind the context runs on (never AUTO) and, for CUDA, its index. */
sps_status sps_context_get_device(const sps_context *ctx, sps_device_kind *kind, int *index);
/**
 * A readable device name, copied into @p buf: "CPU (8 OpenMP threads, avx512)" (the
 * instruction set the CPU kernels run with: generic, avx2 or avx512, the widest the processor
 * supports unless the environment variable SPSOLVE_CPU_SIMD names a narrower one), or the
 * GPU's ("NVIDIA H100 80GB HBM3").
 */
sps_status sps_context_get_device_name(const sps_context *ctx, char *buf, size_t len);
/**
 * Where TUNE keeps its results (one small text file per matrix structure, device and library
 * version). @p dir NULL: the default, `$SPSOLVE_CACHE_DIR`, else `$XDG_CACHE_HOME/spsolve`, else
 * `$HOME/.cache/spsolve` (`SPSOLVE_CACHE_DIR` set but empty turns the cache off); "" turns the
 * cache off; any other string is the directory (made when missing). A directory that cannot be
 * made or written is not an error: the tuning runs and its result is not stored
 * (sps_spmv_choice_info.cache_note says why). Entries that are truncated, corrupted, or written
 * by another version or for another device are ignored and overwritten. Writers replace an
 * entry atomically (a temporary file in the directory, fsync, rename), so processes may tune
 * the same matrix at once.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL context or a path of 900 bytes or more.
 */
sps_status sps_context_set_cache_dir(sps_context *ctx, const char *dir);
/** Block until the context's device work is done. */
sps_status sps_context_synchronize(sps_context *ctx);
/**
 * Progress of reading a Matrix Market file (sps_context_set_read_progress): @p bytes of the
 * file read so far (compressed bytes for a compressed file) out of @p total (0 when unknown,
 * as for a buffer). Return 0 to go on, nonzero to stop: the read then fails with
 * ::SPS_ERR_INTERRUPTED and leaves nothing allocated.
 */
typedef int (*sps_read_progress_fn)(void *user, int64_t bytes, int64_t total);
/**
 * Call @p fn (NULL: none) as the Matrix Market readers of this context consume their input,
 * every block of text (at most a few MiB), from the thread that reads.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL context.
 */
sps_status sps_context_set_read_progress(sps_context *ctx, sps_read_progress_fn fn, void *user);
/**@}*/

/** @name Matrix */
/**@{*/
/**
 * Create a matrix from CSR arrays, which are copied (and uploaded on a CUDA context).
 * Column indices within a row may be unsorted; they are sorted and duplicates summed.
 * @param[in]  ctx     context
 * @param[out] A       the new matrix; NULL on failure
 * @param[in]  nrows   rows, 0 <= nrows <= INT32_MAX
 * @param[in]  ncols   columns, 0 <= ncols <= INT32_MAX
 * @param[in]  rowptr  nrows+1 offsets, rowptr[0] = 0, nondecreasing
 * @param[in]  colind  rowptr[nrows] column indices in [0, ncols)
 * @param[in]  values  rowptr[nrows] values
 * @return ::SPS_SUCCESS, ::SPS_ERR_ARGUMENT (bad pointer or offsets, index out of range:
 *         the message names the row), ::SPS_ERR_SIZE, ::SPS_ERR_HOST_MEMORY,
 *         ::SPS_ERR_DEVICE_MEMORY, ::SPS_ERR_CUDA.
 */
sps_status sps_matrix_create_csr(sps_context *ctx, sps_matrix **A, int64_t nrows, int64_t ncols,
                                 const int64_t *rowptr, const int32_t *colind,
                                 const double *values);
/**
 * Create a matrix over CSR arrays the caller owns, in the context's memory space: host memory
 * on a CPU context, device (or managed) memory of the context's GPU on a CUDA context. The
 * arrays are borrowed, not copied: they must stay valid and unchanged until the matrix is
 * destroyed, and sps_matrix_destroy() does not free them. Rows must already be sorted by
 * column without duplicates (they cannot be sorted in place here). On CUDA, the work that
 * wrote the arrays must be finished (its stream synchronised) before this call.
 *
 * What is made besides the caller's arrays:
 *  - on a CPU context, nothing with int64 row offsets; with int32 offsets, their int64 copy
 *    (nrows+1 values);
 *  - on a CUDA context, the kernels read the caller's device arrays, and the library makes the
 *    row offsets of the other width (int64 from int32, or int32 from int64 when
 *    nnz <= INT32_MAX; nrows+1 values, uploaded) and a host copy of the three arrays,
 *    downloaded once here: setup reads it (the SpMV choice, the analysis and the factorisation
 *    of the preconditioners, the symmetry test of the automatic choice). sps_matrix_get_csr()
 *    returns that host copy.
 *
 * sps_matrix_scale() scales the caller's values (and the host copy).
 *
 * @param[in]  ctx      context
 * @param[out] A        the new matrix; NULL on failure
 * @param[in]  nrows    rows, 0 <= nrows <= INT32_MAX
 * @param[in]  ncols    columns, 0 <= ncols <= INT32_MAX
 * @param[in]  rowptr   nrows+1 int64 offsets, or NULL when @p rowptr32 is given
 * @param[in]  rowptr32 nrows+1 int32 offsets, or NULL when @p rowptr is given (exactly one)
 * @param[in]  colind   nnz column indices (nnz = the last offset), strictly increasing in a row
 * @param[in]  values   nnz values
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL array (colind and values may be NULL
 *         when nnz = 0), both or neither offset array, an array not in the context's memory
 *         space (checked on CUDA), bad offsets, a column out of range or out of order (the
 *         message names the row); ::SPS_ERR_SIZE; ::SPS_ERR_HOST_MEMORY;
 *         ::SPS_ERR_DEVICE_MEMORY; ::SPS_ERR_CUDA.
 */
sps_status sps_matrix_wrap_csr(sps_context *ctx, sps_matrix **A, int64_t nrows, int64_t ncols,
                               const int64_t *rowptr, const int32_t *rowptr32,
                               const int32_t *colind, const double *values);
/**
 * Read a Matrix Market file: coordinate real, integer or pattern; general, symmetric or
 * skew-symmetric (expanded to full storage). Duplicates are summed, explicit zeros kept,
 * rows sorted by column.
 *
 * The data may be gzip, xz or bzip2 compressed when the library is built with zlib,
 * liblzma and libbz2 (`spsolve --version` lists them); the compression is told from the
 * data's first bytes, not from the name. Several gzip members (or xz or bzip2 streams) one
 * after another are read as one text, as gzip(1) does; any other data after the last one is
 * refused. Memory follows the entries read, not the counts the file declares: a file that
 * declares more than 2^24 rows must declare at least one entry per 8 rows (otherwise
 * ::SPS_ERR_SIZE), and a line longer than 4 MiB is refused.
 * @param[in] flags 0 or ::SPS_MM_ALLOW_NONFINITE
 * @return ::SPS_SUCCESS; ::SPS_ERR_IO naming the file and line of the bad input (missing
 *         file, bad header, truncation, bad number, index out of range, NaN/Inf, a truncated
 *         or corrupt compressed stream, trailing data after it); ::SPS_ERR_UNSUPPORTED for
 *         complex, hermitian or array matrices and for a compression this build cannot read;
 *         ::SPS_ERR_SIZE (sizes above the 32-bit index limit, or not justified by the
 *         entries); memory statuses.
 */
sps_status sps_matrix_read_mm(sps_context *ctx, sps_matrix **A, const char *path, unsigned flags);
/**
 * Read a Matrix Market matrix from memory: the bytes of a file (plain or compressed, as
 * sps_matrix_read_mm() reads them), for data that never was a file (downloaded, embedded,
 * taken from a database). The buffer is read, not kept.
 * @param[in] data  @p size bytes (may be NULL when size is 0)
 * @param[in] name  what messages call the data in place of a file name ("<buffer>" if NULL)
 * @return as sps_matrix_read_mm(); ::SPS_ERR_ARGUMENT for a NULL @p A or @p data.
 */
sps_status sps_matrix_read_mm_buffer(sps_context *ctx, sps_matrix **A, const void *data,
                                     size_t size, const char *name, unsigned flags);
/** Rows, columns and stored entries (any pointer may be NULL). */
sps_status sps_matrix_get_size(const sps_matrix *A, int64_t *nrows, int64_t *ncols, int64_t *nnz);
/** The symmetry declared by the source, or found by sps_matrix_check_symmetry(). */
sps_status sps_matrix_get_symmetry(const sps_matrix *A, sps_symmetry *sym);
/**
 * Check numerically whether A equals its transpose (exactly), and record the answer.
 * @param[out] is_symmetric 1 or 0
 */
sps_status sps_matrix_check_symmetry(sps_matrix *A, int *is_symmetric);
/**
 * Borrow the host CSR arrays (valid until the matrix is destroyed or changed).
 * Any pointer may be NULL.
 */
sps_status sps_matrix_get_csr(const sps_matrix *A, const int64_t **rowptr,
                              const int32_t **colind, const double **values);
/**
 * Borrow the arrays the kernels read, in the context's memory space: the device arrays on a
 * CUDA context (the caller's own for a matrix made by sps_matrix_wrap_csr()), the host arrays
 * on the CPU. @p rowptr32 is the int32 copy of the offsets, NULL on the CPU and when
 * nnz > INT32_MAX. Any pointer may be NULL.
 */
sps_status sps_matrix_get_device_csr(const sps_matrix *A, const int64_t **rowptr,
                                     const int32_t **rowptr32, const int32_t **colind,
                                     const double **values);
/** A <- alpha*A (host and device copies). */
sps_status sps_matrix_scale(sps_matrix *A, double alpha);
/** Destroy a matrix (NULL allowed) and set the pointer to NULL. */
sps_status sps_matrix_destroy(sps_matrix **A);

/**
 * Statistics of a matrix's sparsity pattern, the features from which the SpMV variant is
 * chosen (sps_matrix_get_stats()). "Length" is the number of stored entries of a row.
 */
typedef struct sps_matrix_stats {
  int64_t rows, cols, nnz;
  double density;         /**< nnz / (rows*cols); 0 for an empty shape */
  double mean_len;        /**< nnz / rows; 0 when rows = 0 */
  int64_t min_len;        /**< shortest row; 0 when rows = 0 */
  int64_t max_len;        /**< longest row; 0 when rows = 0 */
  double var_len;         /**< population variance of the row lengths */
  double cv_len;          /**< coefficient of variation sqrt(var_len)/mean_len; 0 when mean_len = 0 */
  double empty_share;     /**< share of rows with no entry */
  double over32_share;    /**< share of rows longer than 32 */
  double over1024_share;  /**< share of rows longer than 1024 */
  int64_t short_blocks;   /**< blocks of short rows in the blockwise variant's partition
                               (the SpMV choice leaves it out: -1 there) */
  int64_t long_blocks;    /**< thread blocks given to long rows in that partition */
  int64_t long_rows;      /**< rows that partition treats as long */
  double col_distance;    /**< mean over entries of |col - row| / max(rows, cols) */
  double windows_per_row; /**< mean over rows of the distinct 32-column windows (col / 32)
                               its entries touch: 1 for a row within one window */
  double seconds;         /**< wall time this computation took */
} sps_matrix_stats;

/**
 * Compute the statistics of @p A. Every field but short_blocks comes from exact integer sums
 * over the row offsets and the column indices, made on a CUDA matrix (of at least 8192 rows
 * plus entries) by one kernel over its device arrays and otherwise on the host, with the same
 * results to the bit. short_blocks, the blockwise partition's grouping of consecutive short
 * rows (as built on the matrix's device: on a GPU the block budget depends on its
 * multiprocessor count), is one sequential pass over the host row offsets. The SpMV choice
 * (::SPS_SPMV_AUTO) computes the same statistics without short_blocks. Allocates nothing.
 * @param[in]  A    the matrix
 * @param[out] out  the statistics
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL @p A or @p out (the message is kept in
 *         the matrix's context when @p A is given).
 */
sps_status sps_matrix_get_stats(const sps_matrix *A, sps_matrix_stats *out);
/**@}*/

/** @name Vector */
/**@{*/
/** Create a vector of length @p n, filled with zeros, on the context's device. */
sps_status sps_vector_create(sps_context *ctx, sps_vector **v, int64_t n);
/**
 * Create a vector of length @p n over @p data, n doubles the caller owns in the context's
 * memory space (host memory on a CPU context, device or managed memory of the context's GPU on
 * a CUDA context). Nothing is copied: the library reads and writes @p data in place, and
 * sps_vector_destroy() does not free it; it must stay valid until then. On CUDA the library
 * works on its own stream: finish the work that writes @p data (synchronise the stream that
 * wrote it) before a call reads it; sps_solver_solve() returns with its work done.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT when @p data is NULL (allowed for n = 0) or, on
 *         CUDA, not device memory of the context's GPU; ::SPS_ERR_SIZE for n < 0;
 *         ::SPS_ERR_HOST_MEMORY.
 */
sps_status sps_vector_wrap(sps_context *ctx, sps_vector **v, int64_t n, double *data);
/** The vector's storage, n doubles in the context's memory space (the caller's for a wrapped vector). */
sps_status sps_vector_get_data(const sps_vector *v, double **data);
/** Length of the vector. */
sps_status sps_vector_get_size(const sps_vector *v, int64_t *n);
/** Copy @p n host values into the vector (n must equal its length). */
sps_status sps_vector_upload(sps_vector *v, const double *host, int64_t n);
/** Copy the vector into @p n host values (n must equal its length). */
sps_status sps_vector_download(const sps_vector *v, double *host, int64_t n);
/** Set every entry to @p value. */
sps_status sps_vector_fill(sps_vector *v, double value);
/** Copy @p src into @p dst (same length, same context). */
sps_status sps_vector_copy(const sps_vector *src, sps_vector *dst);
/**
 * Euclidean norm, without overflow or underflow for any finite entries: the squares are
 * summed scaled by a power of two when the largest |v_i| is above 2^480 or below 2^-460
 * (LAPACK dnrm2's idea; the same bits on the CPU and the GPU). NaN when some v_i is NaN,
 * Inf when some is Inf.
 */
sps_status sps_vector_norm2(const sps_vector *v, double *norm);
/**
 * Read a dense vector from a Matrix Market file: `array` real/integer with one column, or
 * `coordinate` n x 1 (entries not given are 0, duplicates summed). Same compression, limits
 * and error reporting as sps_matrix_read_mm().
 */
sps_status sps_vector_read_mm(sps_context *ctx, sps_vector **v, const char *path, unsigned flags);
/** Read a Matrix Market vector from memory, as sps_matrix_read_mm_buffer() reads a matrix. */
sps_status sps_vector_read_mm_buffer(sps_context *ctx, sps_vector **v, const void *data,
                                     size_t size, const char *name, unsigned flags);
/** Write the vector as a Matrix Market `array real general` file with 17 significant digits. */
sps_status sps_vector_write_mm(const sps_vector *v, const char *path);
/** Destroy a vector (NULL allowed) and set the pointer to NULL. */
sps_status sps_vector_destroy(sps_vector **v);
/**@}*/

/** @name SpMV plans */
/**@{*/
/** The CLI name of a variant ("csr-vector"), or NULL for a value out of range. */
const char *sps_spmv_kind_name(sps_spmv_kind kind);
/** The one-line description of a variant, or NULL for a value out of range. */
const char *sps_spmv_kind_description(sps_spmv_kind kind);
/** Look up a variant by its CLI name. @return ::SPS_ERR_ARGUMENT for an unknown name. */
sps_status sps_spmv_kind_from_name(const char *name, sps_spmv_kind *kind);
/** Nonzero when the variant exists on this device kind in this build (always for AUTO and TUNE). */
int sps_spmv_kind_available(sps_spmv_kind kind, sps_device_kind device);
/** Nonzero for a variant, 0 for AUTO and TUNE (ways of choosing one) and values out of range. */
int sps_spmv_kind_is_variant(sps_spmv_kind kind);
/** The name of a source ("rule", "tune", "cache", ...), or NULL for a value out of range. */
const char *sps_spmv_source_name(sps_spmv_source source);
/**
 * Create an SpMV plan for @p A (borrowed: it must outlive the plan).
 * @param[in] kind a variant, ::SPS_SPMV_AUTO or ::SPS_SPMV_TUNE
 */
sps_status sps_spmv_plan_create(sps_context *ctx, sps_spmv_plan **plan, const sps_matrix *A,
                                sps_spmv_kind kind);
/** Threads per row for csr-vector (2, 4, 8, 16 or 32; 0 = chosen at setup). */
sps_status sps_spmv_plan_set_threads_per_row(sps_spmv_plan *plan, int threads_per_row);
/**
 * Build the variant's format and buffers (all allocation happens here).
 *
 * With ::SPS_SPMV_TUNE: look the matrix up in the disk cache (sps_context_set_cache_dir());
 * without a valid entry, set up each candidate of a short list (the AUTO rule's pick first,
 * then csr-scalar, csr-vector with threads per row near the mean row length, and twice and half
 * that, blockwise, merge, coo, hyb, ell when its padding fits, cusparse on a GPU), time it on
 * the matrix (on a GPU a batch of applies captured in one CUDA graph, replayed a few times,
 * timed with events; on the CPU by the wall clock; the median), keep the fastest and store it.
 * A candidate that the variant refuses or that runs out of device memory is left out and
 * recorded; when none can be set up, csr-scalar is used. Threads per row set on the plan
 * restrict csr-vector's candidates to that value. The tuning allocates and frees its two
 * vectors and one candidate's format at a time beside the best one so far.
 * @return ::SPS_ERR_UNSUPPORTED when the variant refuses the matrix (e.g. ELL padding over
 *         its memory factor) or does not exist on the device; the message says why.
 */
sps_status sps_spmv_plan_setup(sps_spmv_plan *plan);
/** y <- alpha*A*x + beta*y; allocates nothing. x has ncols entries, y nrows; x and y must be
 * different vectors (::SPS_ERR_ARGUMENT otherwise). */
sps_status sps_spmv_apply(sps_spmv_plan *plan, double alpha, const sps_vector *x, double beta,
                          sps_vector *y);
/** The variant in use after setup (AUTO resolved) and its threads per row (0 if none). */
sps_status sps_spmv_plan_get_kind(const sps_spmv_plan *plan, sps_spmv_kind *kind,
                                  int *threads_per_row);
/**
 * How the variant in use was chosen at the last setup: its source, the reasoning, and for
 * TUNE the candidates timed, the cost and the cache entry. Before setup, every field is 0
 * but requested.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL pointer.
 */
sps_status sps_spmv_plan_get_choice(const sps_spmv_plan *plan, sps_spmv_choice_info *info);
/** Destroy a plan (NULL allowed) and set the pointer to NULL. */
sps_status sps_spmv_plan_destroy(sps_spmv_plan **plan);
/**@}*/

/** @name Solvers */
/**@{*/
/** The name of a solver type ("cg", "gmres", "bicgstab", "auto"), or NULL. */
const char *sps_solver_type_name(sps_solver_type type);
/** Look up a solver type by name. @return ::SPS_ERR_ARGUMENT for an unknown name. */
sps_status sps_solver_type_from_name(const char *name, sps_solver_type *type);
/** The name of a preconditioner ("none", "jacobi", "ilu0", ..., "auto"), or NULL. */
const char *sps_precond_type_name(sps_precond_type type);

/** The name of phase `phase` of the multigrid setup (::SPS_AMG_SETUP_PHASES), or NULL out of
 * range. */
const char *sps_amg_setup_phase_name(int phase);
/** Look up a preconditioner by name. @return ::SPS_ERR_ARGUMENT for an unknown name. */
sps_status sps_precond_type_from_name(const char *name, sps_precond_type *type);
/**
 * The preconditioner parameters, by index 0, 1, ... (for help texts): its name
 * ("ilut.fill"), a one-line description and its default value. Any output may be NULL.
 * @return ::SPS_ERR_ARGUMENT once @p index is past the last parameter.
 */
sps_status sps_precond_param_info(int index, const char **name, const char **description,
                                  double *default_value);
/**
 * The value of parameter @p name written as @p text: a number ("0.25"), or for a parameter
 * with named values one of the names ("amg.coarsening": "aggregation" 0, "classical" 1;
 * "amg.smoother": "cheby" 0, "l1jacobi" 1, "mcgs" 2). The range is checked by
 * sps_solver_set_precond_param(), not here.
 * @param[out] value the number
 * @return ::SPS_ERR_ARGUMENT for a NULL argument or a text that is neither.
 */
sps_status sps_precond_param_value(const char *name, const char *text, double *value);

/**
 * Create a solver. Defaults: rtol 1e-8, atol 0, dtol 1e5, max iterations 10000, restart 30,
 * preconditioner ::SPS_PRECOND_AUTO, SpMV auto, GMRES orthogonalisation CGS2, GMRES not
 * flexible, history off.
 *
 * With @p type ::SPS_SOLVER_AUTO, or a preconditioner left at ::SPS_PRECOND_AUTO, setup
 * chooses from the matrix (doc/design.md, "The automatic choice"):
 *  - a symmetric matrix with a positive diagonal: CG with algebraic multigrid when it has at
 *    least 30,000 rows and at most 6 entries a row on average, then CG with IC(0) (a diagonal
 *    shift when the factorisation breaks down); with a negative diagonal the system is solved
 *    as (-A) x = -b the same way;
 *  - otherwise GMRES(m) with ILU(0), after a row permutation and scaling that put large
 *    entries on the diagonal when some diagonal entry is zero or small;
 *  - a factorisation that fails or whose M^-1 is too large (::sps_precond_info.growth)
 *    moves to the next preconditioner of the chain, and so does a solve that stagnates:
 *    ILU(0) -> ILUT(10, 1e-4) -> ILUT(30, 1e-6) -> none with a longer restart;
 *    AMG -> IC(0) -> ILU(0) with GMRES -> the nonsymmetric chain.
 * Each try is recorded (sps_solver_get_attempts()). A move during the solve sets up the next
 * preconditioner there, so an automatic solve may allocate; name a preconditioner to avoid
 * that.
 */
sps_status sps_solver_create(sps_context *ctx, sps_solver **solver, sps_solver_type type);
/** Create a solver by name ("cg", "gmres", "bicgstab", "auto"). */
sps_status sps_solver_create_by_name(sps_context *ctx, sps_solver **solver, const char *name);
/** Stop when ||b - Ax|| <= max(rtol*||b||, atol). rtol, atol >= 0, not both 0. */
sps_status sps_solver_set_tolerances(sps_solver *solver, double rtol, double atol);
/**
 * Divergence tolerance (PETSc's dtol, default 1e5): the solve stops with
 * ::SPS_DIVERGED_DTOL when the residual norm stays above dtol*max(||b||, ||b - A x_0||) (dtol
 * times ||b|| from x_0 = 0, or dtol times the initial residual when an initial guess starts
 * worse than x = 0) for 50 iterations in a row: a short excursion above it, which BiCGSTAB
 * makes on its way to convergence, is not a divergence. CG and BiCGSTAB test their recurrence
 * residual at every iteration (on the device, inside the batches) and confirm on the true
 * residual; GMRES, whose estimate never grows within a cycle, tests the true residual at the
 * end of each cycle. x is left at the diverged iterate. dtol >= 1; INFINITY turns the test off.
 * @return ::SPS_ERR_ARGUMENT for dtol < 1 or NaN.
 */
sps_status sps_solver_set_dtol(sps_solver *solver, double dtol);
/** Maximum iterations (GMRES: inner iterations), >= 1. */
sps_status sps_solver_set_max_iterations(sps_solver *solver, int maxit);
/** GMRES restart length m >= 1 (ignored by other methods). Setup caps it at the order n of
 * the matrix (sps_solver_get_restart() tells the length in use). */
sps_status sps_solver_set_restart(sps_solver *solver, int restart);
/** GMRES orthogonalisation (ignored by other methods). */
sps_status sps_solver_set_orthogonalization(sps_solver *solver, sps_orthog orthog);
/**
 * Flexible GMRES (Saad 1993) when @p enable is nonzero (ignored by other methods; off by
 * default): keep z_j = M^-1 v_j of every inner iteration in a second n x m basis Z and update
 * x += Z_k y, so the method stays correct when the preconditioner changes between
 * iterations, at the cost of n*m more doubles. Without a preconditioner it is plain GMRES.
 * A change after setup rebuilds the work space.
 * @return ::SPS_ERR_HOST_MEMORY or ::SPS_ERR_DEVICE_MEMORY when the rebuild fails (the
 * solver then needs a new setup).
 */
sps_status sps_solver_set_flexible(sps_solver *solver, int enable);
/**
 * GMRES without a preconditioner on a GPU of compute capability 9.0 or later, for n <= 16384
 * and restart <= 64 (ignored elsewhere; off by default): run each batch of inner iterations
 * as one kernel in one thread-block cluster that also forms A v_j, with the same bits as the
 * default path (SpMV variants that round like csr-scalar only). Measured on an H200 it was
 * faster on some small matrices and slower on others (doc/performance.md), hence opt-in.
 * A change after setup rebuilds the work space.
 * @return as sps_solver_set_flexible.
 */
sps_status sps_solver_set_gmres_fused(sps_solver *solver, int enable);
/**
 * Pipelined CG (Ghysels and Vanroose, Parallel Computing 40(7), 2014) when @p enable is
 * nonzero (CG only; off by default): one reduction per iteration, started before the
 * preconditioner and the product and finished after them, so that on a distributed context
 * its exchange (MPI_Iallgather) runs behind them; it costs four more vectors and updates.
 * Its recurrences differ from CG's and lose accuracy on ill-conditioned matrices: it takes
 * CG's iteration count (or one more) on well-conditioned ones and up to 2.6 times CG's on the
 * ill-conditioned shared SPD matrices, where it restarts from the true residual when its
 * recurrences break down (doc/performance.md gives the counts). The iteration
 * is driven from the host (one read of its sums per iteration). A change takes effect at the
 * next setup.
 */
sps_status sps_solver_set_pipelined(sps_solver *solver, int enable);
/** Preconditioner (::SPS_PRECOND_AUTO by default); takes effect at the next setup. */
sps_status sps_solver_set_precond(sps_solver *solver, sps_precond_type precond);
/**
 * Set a preconditioner parameter by name; takes effect at the next setup. The names, their
 * meaning, ranges and defaults (sps_precond_param_info() lists them):
 *  - "ilut.fill"      p >= 0: a row of ILUT's L and U together keeps at most p times the
 *                     off-diagonal entries of that row of A, half in L, half in U
 *                     (default 10)
 *  - "ilut.drop"      tau >= 0: ILUT drops entries below tau times the mean magnitude of
 *                     the row of A (an entry of L measured as l_ik u_kk) (default 1e-4)
 *  - "ilut.pivot"     0 <= t <= 1: ILUTP swaps columns when |a_ii| < t |a_ij| (default 0.1;
 *                     0 turns pivoting off)
 *  - "pivot.tol"      pivots |u_ii| below this times the largest |a_ij| of the row are
 *                     replaced by it, with their sign (ilu0, ilut; default 1e-10)
 *  - "ic0.shift"      the first diagonal shift alpha tried by IC(0) (default 0); on a
 *                     breakdown alpha grows (1e-3, then doubling)
 *  - "matching"       1 permute rows to a large diagonal, 0 never, -1 when a diagonal entry
 *                     is zero or small, except for ILUT with pivoting, whose column swaps
 *                     do it (default -1)
 *  - "scaling"        1 equilibrate rows and columns, 0 never, -1 with the matching
 *                     (default -1)
 *  - "ordering"       ilu0, ic0: 1 multicolor ordering (few level sets for the GPU's
 *                     triangular solves, usually more iterations), 0 natural, -1 multicolor
 *                     for matrices of at least 100000 rows whose forward substitution has more
 *                     than n / 10000 level sets (default -1)
 *  - "bjacobi.block"  rows per diagonal block, 0 to choose from the matrix (default 0)
 *  - "cheby.degree"   degree of the Chebyshev polynomial, 1 to 64 (default 4)
 *  - "cheby.lanczos"  Lanczos steps of the eigenvalue estimates of cheby and of amg's
 *                     levels (default 20)
 *  - "amg.coarsening"  1 classical: PMIS C/F splitting (random weights from a hash of the
 *                     row index, the same on every device) with extended+i interpolation
 *                     (default); 0 smoothed aggregation (MIS(2) aggregates, Jacobi-smoothed
 *                     tentative prolongator)
 *  - "amg.strength"   theta in [0, 1], or -1 for the coarsening's default: classical, j
 *                     strongly influences i when -s a_ij > theta max_k -s a_ik (s the sign
 *                     of a_ii; default 0.25); aggregation, j is a strong neighbour of i when
 *                     |a_ij| >= theta sqrt(|a_ii a_jj|), theta halved on each coarser level
 *                     (default 0.12)
 *  - "amg.interp_max"  the most entries a row of the prolongator keeps, 0 to 16 (0: all),
 *                     the kept ones rescaled to the row's sum; -1 (default): 3 for classical
 *                     (BoomerAMG's P_max_elmts), all for aggregation
 *  - "amg.trunc"      in [0, 0.99]: the prolongator drops entries below this times the row's
 *                     largest (BoomerAMG's trunc_factor; default 0)
 *  - "amg.aggressive"  classical coarsening: the first k levels coarsened in two stages
 *                     (P = P1 P2, truncated; far fewer coarse rows and entries, more
 *                     iterations), 0 to ::SPS_AMG_MAX_LEVELS; -1 (default): the first two
 *                     levels that have at least 20,000 rows
 *  - "amg.filter"     in [0, 1]: drop the coarse operators' entries below this times
 *                     sqrt(|a_ii a_jj|), added to the diagonal (default 0: keep all)
 *  - "amg.smoother"   0 Chebyshev in D^-1 A, 1 l1-Jacobi, 2 symmetric multicolour
 *                     Gauss-Seidel (default 0)
 *  - "amg.cheby_degree"  degree of the Chebyshev smoother, 1 to 16: SpMVs per smoothing
 *                     (default 3)
 *  - "amg.cheby_ratio"  the smoother's interval is [b / ratio, b], b 1.1 times the Lanczos
 *                     estimate of the largest eigenvalue of D^-1 A (default 20)
 *  - "amg.levels"     the most levels, the finest included, 1 to ::SPS_AMG_MAX_LEVELS
 *                     (default ::SPS_AMG_MAX_LEVELS)
 *  - "amg.coarse_size"  stop coarsening at this many rows or fewer, 1 to 800; the coarsest
 *                     level is solved by its dense inverse (default 300)
 *  - "amg.cycle"      1 V-cycle, 2 W-cycle, 3 F-cycle (not exactly symmetric) (default 1)
 * @return ::SPS_ERR_ARGUMENT for an unknown name or a value out of range (the message
 *         names both).
 */
sps_status sps_solver_set_precond_param(sps_solver *solver, const char *name, double value);
/** SpMV variant (or ::SPS_SPMV_AUTO, ::SPS_SPMV_TUNE) and threads per row (0 = choose);
 * takes effect at the next setup. */
sps_status sps_solver_set_spmv(sps_solver *solver, sps_spmv_kind kind, int threads_per_row);
/** Keep the residual norm of every iteration (off by default). */
sps_status sps_solver_set_history(sps_solver *solver, int enable);
/**
 * When @p enable is nonzero, each sps_solver_solve() starts from x_0 = 0 whatever x holds on
 * entry (x is zeroed first), and skips the product A x_0 of the initial residual (r_0 = b).
 * Off by default: x holds the initial guess. The Python package turns it on for solves
 * without x0, so that the zeros are written by the solve rather than by a separate launch.
 * @return ::SPS_ERR_ARGUMENT for a NULL solver.
 */
sps_status sps_solver_set_zero_guess(sps_solver *solver, int enable);
/** Call @p fn every @p every iterations (0 or NULL fn turns it off). */
sps_status sps_solver_set_monitor(sps_solver *solver, sps_monitor_fn fn, void *user, int every);
/**
 * Call @p fn after each batch of iterations, at least every @p interval seconds (a batch of
 * device-driven iterations is cut to about that long from the measured time per iteration),
 * and stop the solve with ::SPS_INTERRUPTED when it returns nonzero (a Ctrl-C handler sets a
 * flag the callback returns, say). Reading the state back once per batch is what the solver
 * does anyway: with @p interval of a few tenths of a second the callback costs nothing
 * measurable (`doc/performance.md`). A NULL @p fn turns it off.
 * @return ::SPS_ERR_ARGUMENT when @p fn is set and @p interval is not > 0 (the message names it).
 */
sps_status sps_solver_set_progress(sps_solver *solver, sps_progress_fn fn, void *user,
                                   double interval);
/**
 * Analyse @p A (borrowed: it must outlive the solver or the next setup): SpMV plan,
 * preconditioner, work vectors. All allocation happens here.
 */
sps_status sps_solver_setup(sps_solver *solver, const sps_matrix *A);
/**
 * Solve A x = b. @p x holds the initial guess x_0 on entry (a vector of zeros when there is
 * none: sps_vector_create() makes one) and the solution on return: a solve started from a
 * solution whose residual already meets the tolerance takes 0 iterations, one started near
 * it fewer than from 0. b and x must be different vectors.
 *
 * The solve runs on the system scaled by a power of two 2^-k (b' = 2^-k b, x_0' = 2^-k x_0,
 * k from max(||b||, ||b - A x_0||)) when that norm is outside [2^-64, 2^64], so that b of any
 * finite size (1e-300, 1e300, subnormal entries) is solved as b of norm about 1; the
 * iterates are those of the unscaled solve times 2^-k exactly, and the history, the monitor
 * and the residuals are reported in the user's units. b = 0 exactly gives x = 0 and
 * ::SPS_CONVERGED_ZERO_RHS.
 *
 * A solve that does not converge returns ::SPS_SUCCESS: read sps_solver_get_reason()
 * (::SPS_DIVERGED_NAN only when the true residual b - Ax is NaN or Inf; overflow inside
 * the method, or a preconditioner that returns Inf, is ::SPS_DIVERGED_BREAKDOWN, x then being
 * the last finite iterate; ::SPS_DIVERGED_RANGE when the scaled system converged but x scaled
 * back overflows or rounds to subnormal numbers, so that b - Ax does not meet the tolerance:
 * the solution is not representable in double precision).
 * @return ::SPS_ERR_STATE before setup; ::SPS_ERR_SIZE for mismatched lengths;
 *         ::SPS_ERR_ARGUMENT when b and x are the same vector (the message names them) or
 *         belong to another context.
 */
sps_status sps_solver_solve(sps_solver *solver, const sps_vector *b, sps_vector *x);
/**
 * Apply the preconditioner in use: z <- M^-1 r, where M approximates A (the preconditioner of
 * the last setup, or the one the automatic choice moved to during the last solve; the identity
 * for ::SPS_PRECOND_NONE). Allocates nothing. @p r and @p z must not share storage.
 * @return ::SPS_ERR_STATE before setup; ::SPS_ERR_SIZE for mismatched lengths;
 *         ::SPS_ERR_ARGUMENT for vectors of another context or shared storage.
 */
sps_status sps_solver_apply_precond(sps_solver *solver, const sps_vector *r, sps_vector *z);
/** The reason the last solve stopped. */
sps_status sps_solver_get_reason(const sps_solver *solver, sps_reason *reason);
/** Iterations of the last solve (GMRES: inner iterations). */
sps_status sps_solver_get_iterations(const sps_solver *solver, int *iterations);
/**
 * The true residual of the last solve, recomputed as ||b - Ax|| at the end; @p rel is
 * that divided by ||b|| (0 when b = 0). Either pointer may be NULL.
 */
sps_status sps_solver_get_residual(const sps_solver *solver, double *abs, double *rel);
/**
 * Borrow the residual history (recurrence norms, entry 0 the initial residual) of the last
 * solve; valid until the next solve or destroy. Empty when history is off.
 */
sps_status sps_solver_get_history(const sps_solver *solver, const double **norms, int *count);
/** The SpMV variant chosen at setup and its threads per row. */
sps_status sps_solver_get_spmv(const sps_solver *solver, sps_spmv_kind *kind, int *threads_per_row);
/** How the solver's SpMV variant was chosen at setup (as sps_spmv_plan_get_choice()). */
sps_status sps_solver_get_spmv_choice(const sps_solver *solver, sps_spmv_choice_info *info);
/**
 * The method in use after setup (AUTO resolved; after a solve, the one that finished it)
 * and its preconditioner.
 */
sps_status sps_solver_get_method(const sps_solver *solver, sps_solver_type *method,
                                 sps_precond_type *precond);
/** What the preconditioner in use found and did at setup (every field 0 before setup). */
sps_status sps_solver_get_precond_info(const sps_solver *solver, sps_precond_info *info);
/**
 * Borrow the tries of the automatic choice, in order, from the last setup and solve (valid
 * until the next setup or destroy): with a named method and preconditioner, one try.
 */
sps_status sps_solver_get_attempts(const sps_solver *solver, const sps_solver_attempt **attempts,
                                   int *count);
/** The GMRES restart length in use after setup: the one set, capped at n (before setup, the
 * one set). */
sps_status sps_solver_get_restart(const sps_solver *solver, int *restart);
/** Seconds spent in the last setup and the last solve (wall clock, device synchronised). */
sps_status sps_solver_get_times(const sps_solver *solver, double *setup_seconds, double *solve_seconds);
/**
 * Everything the getters above say of the last solve, in one call (for bindings, where each
 * call costs): see ::sps_solve_report. Before any solve: reason ::SPS_REASON_NONE and zeros.
 * @return ::SPS_ERR_ARGUMENT for a NULL solver or report.
 */
sps_status sps_solver_get_report(const sps_solver *solver, sps_solve_report *report);
/** Destroy a solver (NULL allowed) and set the pointer to NULL. */
sps_status sps_solver_destroy(sps_solver **solver);
/**@}*/


/**
 * @name Multivectors and SpMM plans
 *
 * A multivector is a dense block of k vectors of length n (an n x k matrix), the right-hand
 * sides and solutions of several systems at once. Y = alpha*A*X + beta*Y with k columns is
 * an SpMM plan's apply: A is read once per block instead of once per column.
 *
 * Storage: row-major, entry (i, j) at data[i*ld + j], with ld = k for k = 1 and k rounded up
 * to an even number otherwise (the padding columns are zero and never written), in the
 * context's memory space (device memory on a CUDA context, host memory on the CPU). A row's
 * k values lie together, so the threads that serve the columns of one output row read one
 * row of X at a time, coalesced and in 16-byte vector loads (doc/design.md, "SpMM").
 * Host arrays given to sps_multivector_upload() and sps_multivector_download() are
 * column-major with leading dimension n (column j at host[j*n]), as BLAS and LAPACK keep them.
 */
/**@{*/

/**
 * SpMM variants: X(enum, cli-name, description). The name, the enum and the files share one
 * name: `spmm-csr` <-> SPS_SPMM_CSR <-> spmv/spmm_csr.c, spmv/ref/spmm_csr.c,
 * spmv/cuda/spmm_csr.cu, tests/kernels/spmm_csr.c. AUTO is a way of choosing one at setup.
 * spmm-spmv has no kernel of its own: for k = 1 it runs an SpMV plan (::SPS_SPMV_AUTO, which
 * uses only variants that round like csr-scalar), and its setup refuses other k.
 */
#define SPS_SPMM_LIST(X)                                                                \
  X(SPS_SPMM_AUTO, "auto", "chosen at setup from statistics of the matrix and k")        \
  X(SPS_SPMM_CSR, "spmm-csr", "CSR, a group of lanes per row, one lane per column")      \
  X(SPS_SPMM_SPUTNIK, "sputnik", "Sputnik: 1-D row tiles, subwarps, aligned vector loads, rows by length") \
  X(SPS_SPMM_BALANCED, "spmm-balanced", "load-balanced units of nonzeros, long rows split and merged in order") \
  X(SPS_SPMM_CUSPARSE, "cusparse-spmm", "cusparseSpMM on CSR (GPU only), the reference")     \
  X(SPS_SPMM_SPMV, "spmm-spmv", "k = 1 only: the SpMV layer's automatic choice on the column")

/** SpMM variant. */
typedef enum sps_spmm_kind {
#define SPS_X_ENUM(name, cli, text) name,
  SPS_SPMM_LIST(SPS_X_ENUM)
#undef SPS_X_ENUM
  SPS_SPMM_KIND_COUNT
} sps_spmm_kind;

typedef struct sps_multivector sps_multivector; /**< n x k dense block on the context's device */
typedef struct sps_spmm_plan sps_spmm_plan;     /**< Y = alpha*A*X + beta*Y for k columns */

/**
 * Create an n x k multivector filled with zeros on the context's device.
 * @param[in]  ctx context
 * @param[out] X   the new multivector; NULL on failure
 * @param[in]  n   rows (the length of each column), n >= 0
 * @param[in]  k   columns, k >= 1
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL @p ctx or @p X; ::SPS_ERR_SIZE for
 *         n < 0, k < 1 or a size whose bytes overflow; ::SPS_ERR_HOST_MEMORY;
 *         ::SPS_ERR_DEVICE_MEMORY; ::SPS_ERR_CUDA.
 */
sps_status sps_multivector_create(sps_context *ctx, sps_multivector **X, int64_t n, int64_t k);
/**
 * Create an n x k multivector over @p data, which the caller owns, in the context's memory
 * space (host memory on a CPU context, device or managed memory of the context's GPU on a
 * CUDA context), row-major: entry (i, j) at data[i*ld + j]; @p data spans n*ld doubles, the
 * last row's columns k to ld-1 included (a view into a larger block that starts past its
 * first column needs a row more beneath it). Nothing is copied;
 * sps_multivector_destroy() does not free @p data, which must stay valid until then. The
 * entries of columns k to ld-1 are the caller's: the library never writes them (the GPU
 * kernels may read them). On CUDA, finish the work that writes @p data before a call reads it.
 * The kernels use 16-byte loads when ld is even and @p data is 16-byte aligned, else 8-byte ones.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT when @p data is NULL (allowed for n = 0) or, on
 *         CUDA, not memory of the context's GPU; ::SPS_ERR_SIZE for n < 0, k < 1, ld < k or an
 *         overflowing size; ::SPS_ERR_HOST_MEMORY.
 */
sps_status sps_multivector_wrap(sps_context *ctx, sps_multivector **X, int64_t n, int64_t k,
                                double *data, int64_t ld);
/** Rows @p n and columns @p k (either pointer may be NULL). @return ::SPS_ERR_ARGUMENT for a
 * NULL @p X. */
sps_status sps_multivector_get_size(const sps_multivector *X, int64_t *n, int64_t *k);
/**
 * The storage: @p data (row-major, in the context's memory space; the caller's for a wrapped
 * multivector) and its leading dimension @p ld (either pointer may be NULL).
 * @return ::SPS_ERR_ARGUMENT for a NULL @p X.
 */
sps_status sps_multivector_get_data(const sps_multivector *X, double **data, int64_t *ld);
/**
 * Copy all columns from the host: @p host holds n*k doubles, column-major with leading
 * dimension n (entry (i, j) at host[j*n + i]). On a CUDA context the rows are transposed
 * through a host buffer of at most 1 MiB (allocated and freed here) and uploaded one slice
 * at a time; the call returns when the copy is done.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL @p X or @p host (allowed when
 *         n*k = 0); ::SPS_ERR_SIZE when @p n or @p k differ from the multivector's;
 *         ::SPS_ERR_HOST_MEMORY; ::SPS_ERR_CUDA.
 */
sps_status sps_multivector_upload(sps_multivector *X, const double *host, int64_t n, int64_t k);
/** Copy all columns to the host, column-major with leading dimension n (as
 * sps_multivector_upload() reads them). @return as sps_multivector_upload(). */
sps_status sps_multivector_download(const sps_multivector *X, double *host, int64_t n, int64_t k);
/**
 * Read a multivector from a Matrix Market file: `array` real/integer general n x k (the values
 * listed column by column), or `coordinate` n x k (entries not given are 0, duplicates summed).
 * One column is a vector file as sps_vector_read_mm() reads it. Same compression, limits and
 * error reporting as sps_matrix_read_mm() (@p flags: ::SPS_MM_ALLOW_NONFINITE).
 * @return ::SPS_SUCCESS; ::SPS_ERR_IO with the file and line for malformed input;
 *         ::SPS_ERR_UNSUPPORTED (complex or pattern files); ::SPS_ERR_SIZE (sizes beyond the
 *         index types, a coordinate file whose few entries do not justify its size);
 *         ::SPS_ERR_HOST_MEMORY; ::SPS_ERR_DEVICE_MEMORY.
 */
sps_status sps_multivector_read_mm(sps_context *ctx, sps_multivector **X, const char *path,
                                   unsigned flags);
/** Write the multivector as a Matrix Market `array real general` n x k file, column by column,
 * with 17 significant digits (it reads back bit for bit). @return ::SPS_ERR_IO when the file
 * cannot be written. */
sps_status sps_multivector_write_mm(const sps_multivector *X, const char *path);
/** Destroy a multivector (NULL allowed) and set the pointer to NULL. */
sps_status sps_multivector_destroy(sps_multivector **X);

/** The CLI name of an SpMM variant ("sputnik"), or NULL for a value out of range. */
const char *sps_spmm_kind_name(sps_spmm_kind kind);
/** The one-line description of an SpMM variant, or NULL for a value out of range. */
const char *sps_spmm_kind_description(sps_spmm_kind kind);
/** Look up an SpMM variant by its name. @return ::SPS_ERR_ARGUMENT for an unknown name. */
sps_status sps_spmm_kind_from_name(const char *name, sps_spmm_kind *kind);
/** Nonzero when the SpMM variant exists on this device kind in this build (always for AUTO). */
int sps_spmm_kind_available(sps_spmm_kind kind, sps_device_kind device);
/**
 * Create an SpMM plan for @p A (borrowed: it must outlive the plan) and @p k columns, with
 * the variant ::SPS_SPMM_AUTO (sps_spmm_plan_set_kind() names another).
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL pointer or a matrix of another context
 *         (the message names the argument); ::SPS_ERR_SIZE for k < 1; ::SPS_ERR_HOST_MEMORY.
 */
sps_status sps_spmm_plan_create(sps_context *ctx, sps_spmm_plan **plan, const sps_matrix *A,
                                int64_t k);
/**
 * Choose the variant (or ::SPS_SPMM_AUTO); takes effect at the next setup.
 * @return ::SPS_ERR_ARGUMENT for a value out of range; ::SPS_ERR_UNSUPPORTED when the variant
 *         does not exist on the context's device (cusparse-spmm on the CPU).
 */
sps_status sps_spmm_plan_set_kind(sps_spmm_plan *plan, sps_spmm_kind kind);
/**
 * Analyse A and allocate everything apply needs: AUTO's choice from the row statistics and k
 * (spmv/spmm_select.c: k = 1 runs spmm-spmv; on a GPU uneven rows go to spmm-balanced, the
 * others to sputnik; the CPU runs spmm-csr), sputnik's row order, spmm-balanced's work units and
 * partial sums, spmm-spmv's SpMV plan, cuSPARSE's descriptors and buffer. On the CPU every
 * variant runs its CPU reference.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL plan; ::SPS_ERR_UNSUPPORTED (spmm-spmv
 *         with k > 1, a cuSPARSE algorithm that refuses the shape); ::SPS_ERR_SIZE (a matrix
 *         beyond a variant's index range); ::SPS_ERR_HOST_MEMORY;
 *         ::SPS_ERR_DEVICE_MEMORY; ::SPS_ERR_CUDA; ::SPS_ERR_CUSPARSE.
 */
sps_status sps_spmm_plan_setup(sps_spmm_plan *plan);
/**
 * Y <- alpha*A*X + beta*Y for the k columns at once; allocates nothing and does not wait for
 * the device. Y is not read when beta = 0 (NaN there does not spread). Column j of Y is the
 * SpMV of column j of X: with every variant but cusparse-spmm, bit for bit what csr-scalar's
 * compensated row sums give (bar rare ties for spmm-balanced's split rows).
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT for a NULL argument, multivectors of another
 *         context or X and Y sharing storage (the message names them); ::SPS_ERR_STATE before
 *         setup; ::SPS_ERR_SIZE when X does not have ncols(A) rows, Y nrows(A) rows, or either
 *         not the plan's k columns; ::SPS_ERR_UNSUPPORTED when cusparse-spmm meets a leading
 *         dimension whose buffer exceeds setup's; ::SPS_ERR_CUDA; ::SPS_ERR_CUSPARSE.
 */
sps_status sps_spmm_apply(sps_spmm_plan *plan, double alpha, const sps_multivector *X, double beta,
                          sps_multivector *Y);
/**
 * The variant in use after setup (AUTO resolved; before setup, the one set), and in @p why
 * (may be NULL; owned by the plan, valid until its next setup) the reasoning of the choice.
 * @return ::SPS_ERR_ARGUMENT for a NULL plan.
 */
sps_status sps_spmm_plan_get_kind(const sps_spmm_plan *plan, sps_spmm_kind *kind, const char **why);
/** Destroy an SpMM plan (NULL allowed) and set the pointer to NULL. */
sps_status sps_spmm_plan_destroy(sps_spmm_plan **plan);
/**@}*/

/**
 * @name Many right-hand sides
 *
 * sps_solver_solve_many() solves A X = B for the k columns of a multivector with one solver:
 * the setup (SpMV and SpMM plans, preconditioner, work space) is made once, and the columns
 * run together (doc/design.md, "Block solvers").
 *
 * Batched CG, GMRES(m) and BiCGSTAB: each column runs its own recurrence, and all running
 * columns share one SpMM per iteration (A is read once for all of them) and one
 * preconditioner application on the block. Every per-column inner product and norm is the
 * compensated sum of the single solve's terms, so each column takes exactly the iterations,
 * reason and (where the single solve's history is bitwise) the x of sps_solver_solve() on that
 * column alone, on the CPU and on the GPU. A column that converges (or stops for any other
 * reason) is left out of the fused steps from the next step on, and at the next read of the
 * columns' state the block is compacted to the running columns once they fit half its width,
 * so that the SpMM and the preconditioner run on at most twice the running columns.
 *
 * Block CG (O'Leary 1980; sps_solver_set_block()): one block Krylov space for all columns,
 * which can converge in fewer iterations than the columns alone; no bitwise promise.
 */
/**@{*/

/** The result of one column of the last sps_solver_solve_many() (sps_solver_get_column_report()). */
typedef struct sps_column_report {
  sps_reason reason;     /**< why the column stopped */
  int iterations;        /**< its iterations (GMRES: inner; block CG: the block iterations until
                              it converged) */
  double residual_abs;   /**< true residual ||b_j - A x_j|| of the returned x_j */
  double residual_rel;   /**< residual_abs / ||b_j|| (0 when b_j = 0) */
  const double *history; /**< its residual history (entry 0 the initial residual; borrowed, valid
                              until the next solve, setup or destroy), NULL unless enabled */
  int history_count;     /**< its length */
  int resolved;          /**< 1: it did not converge in the batch and was solved again alone by
                              the automatic choice (see sps_solver_solve_many()); the other
                              fields are that solve's */
} sps_column_report;

/** How sps_solver_solve_many() ran the columns. */
typedef enum sps_many_mode {
  SPS_MANY_NONE = 0,      /**< no sps_solver_solve_many() yet */
  SPS_MANY_BATCHED = 1,   /**< batched: each column its own recurrence, one SpMM per iteration */
  SPS_MANY_BLOCK_CG = 2,  /**< block CG over all columns (sps_solver_set_block()) */
  SPS_MANY_ONE_BY_ONE = 3 /**< one column at a time through sps_solver_solve() (the note says why) */
} sps_many_mode;

/** The whole of the last sps_solver_solve_many() (sps_solver_get_many_report()). */
typedef struct sps_many_report {
  int64_t columns;          /**< columns solved */
  int64_t converged;        /**< columns whose reason is positive */
  sps_many_mode mode;       /**< how they were solved */
  int block_width;          /**< the most columns iterated together (1 one at a time) */
  int max_iterations;       /**< the most iterations of a column */
  int64_t total_iterations; /**< the sum of the columns' iterations */
  double max_residual_rel;  /**< the largest relative true residual of a column */
  double solve_seconds;     /**< wall clock of the call, device synchronised */
  char note[200];           /**< how the columns ran: the method, or why one at a time */
} sps_many_report;

/**
 * The most columns sps_solver_solve_many() will be given (default 0: none). Setup builds the
 * block work space for min(columns, 64) columns at a time (blocks of n x columns doubles for
 * each vector of the method: about 6 for CG, 9 for BiCGSTAB, m + 5 for GMRES(m)), the per-column
 * reports and histories, and the CUDA graphs of the batched iterations; more than 64 columns are
 * solved 64 at a time. A change after setup rebuilds them.
 * @return ::SPS_ERR_ARGUMENT for columns < 0; as sps_solver_setup() when set up already.
 */
sps_status sps_solver_set_columns(sps_solver *solver, int columns);
/**
 * Nonzero: sps_solver_solve_many() with CG (named, or chosen by the automatic choice) runs block
 * CG over all the columns at once instead of batched CG: O'Leary's method made breakdown-free
 * (Ji and Li 2017) by a rank-revealing orthonormalisation of the block of search directions at
 * each iteration (the eigendecomposition of its Gram matrix, SVQB, dropping directions whose
 * singular value is below 1e-7 of the largest), so that dependent right-hand sides (two equal
 * columns) or residuals that become dependent shrink the block instead of breaking it. A
 * column whose residual meets its tolerance (confirmed on the true residual) leaves the block.
 * With another method the flag is ignored. Block CG's small dense algebra runs on the host, one
 * read of the device per iteration. The default is 0. A change after setup rebuilds the work
 * space.
 */
sps_status sps_solver_set_block(sps_solver *solver, int enable);
/**
 * Solve A X = B column by column: x_j solves A x_j = b_j. X holds the initial guesses on entry
 * (ignored with sps_solver_set_zero_guess()) and the solutions on return; B and X are n x k
 * multivectors of the solver's context with 1 <= k <= the columns set (sps_solver_set_columns()).
 * Each column is solved as sps_solver_solve() solves it: its own tolerance max(rtol ||b_j||,
 * atol), its own scaling by a power of two, b_j = 0 giving x_j = 0; the columns are batched as
 * the section above says. Results: sps_solver_get_column_report() per column,
 * sps_solver_get_many_report() for the whole; sps_solver_get_reason() and the other getters of
 * a single solve then give the worst column (the first that did not converge, else the one
 * with the most iterations) and no history. The monitor and the progress callback receive
 * the block's iteration count and the largest relative residual ||r_j|| / ||b_j|| of the running
 * columns in place of a residual norm; a progress stop ends every running column with
 * ::SPS_INTERRUPTED.
 *
 * Columns are solved one at a time, through sps_solver_solve() and with its results, where the
 * batched steps could not give the single solve's bits: GMRES with modified Gram-Schmidt, a
 * flexible GMRES with a preconditioner, GMRES on the host-driven path (a restart above the
 * device steps' limit), an SpMV variant that does not round like csr-scalar (coo, hyb,
 * cusparse). With the automatic choice (::SPS_SOLVER_AUTO or ::SPS_PRECOND_AUTO) the batch runs
 * the method and preconditioner in use (those setup chose from the matrix) for up to maxit
 * iterations, and a column that does not converge so is then solved alone by sps_solver_solve(),
 * with the automatic choice's chain of fallbacks, from its initial guess (resolved = 1 in its
 * report). Preconditioners other than Jacobi apply column by column through their single-vector
 * apply. The solve allocates nothing, except when an automatic solve before it moved to another
 * preconditioner (the block work space is then built again) and for the chain's moves.
 * @return ::SPS_ERR_STATE before setup, or when no columns were set; ::SPS_ERR_SIZE when B and
 *         X differ in size, their rows are not the matrix's order or k exceeds the columns set;
 *         ::SPS_ERR_ARGUMENT for a NULL argument, B and X sharing storage, or multivectors of
 *         another context; ::SPS_ERR_HOST_MEMORY, ::SPS_ERR_DEVICE_MEMORY, ::SPS_ERR_CUDA.
 */
sps_status sps_solver_solve_many(sps_solver *solver, const sps_multivector *B, sps_multivector *X);
/**
 * The summary of the last sps_solver_solve_many() (mode ::SPS_MANY_NONE before any).
 * @return ::SPS_ERR_ARGUMENT for a NULL solver or report.
 */
sps_status sps_solver_get_many_report(const sps_solver *solver, sps_many_report *report);
/**
 * The result of column @p j of the last sps_solver_solve_many().
 * @return ::SPS_ERR_ARGUMENT for a NULL solver or report; ::SPS_ERR_SIZE when @p j is not a
 *         column of that solve (or there was none).
 */
sps_status sps_solver_get_column_report(const sps_solver *solver, int64_t j,
                                        sps_column_report *report);
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* SPSOLVE_H */
