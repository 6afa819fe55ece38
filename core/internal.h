/* internal.h: the library's private structures (context, matrix, vector), the backend ops table and the error macros. */
#ifndef SPS_CORE_INTERNAL_H
#define SPS_CORE_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "spsolve.h"
#include "compensated_sum.h"
#include "krylov_state.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPS_ERRMSG_LEN 1024

/*
 * Errors.
 *   SPS_CHECK(expr)            propagate a failing status (PetscCall).
 *   SPS_FAIL(ctx, code, ...)   record a printf-style message on ctx and return code.
 *   SPS_TRY(expr)              in a function with one exit: set `st` and jump to `cleanup`.
 *   SPS_TRY_FAIL(ctx, code, ...) likewise, recording a message first.
 * A message already recorded by a callee is kept: sps_error_set() only overwrites the
 * message when it records a new failure.
 */
#define SPS_CHECK(expr)                                                                    \
  do {                                                                                     \
    sps_status sps_check_st_ = (expr);                                                     \
    if (sps_check_st_ != SPS_SUCCESS) return sps_check_st_;                                \
  } while (0)

#define SPS_FAIL(ctx, code, ...) return sps_error_set((ctx), (code), __VA_ARGS__)

#define SPS_TRY(expr)                                                                      \
  do {                                                                                     \
    st = (expr);                                                                           \
    if (st != SPS_SUCCESS) goto cleanup;                                                   \
  } while (0)

#define SPS_TRY_FAIL(ctx, code, ...)                                                       \
  do {                                                                                     \
    st = sps_error_set((ctx), (code), __VA_ARGS__);                                        \
    goto cleanup;                                                                          \
  } while (0)

/** Record a message on ctx (ctx may be NULL: then the thread's creation message) and return code. */
sps_status sps_error_set(sps_context *ctx, sps_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
sps_status sps_error_vset(sps_context *ctx, sps_status code, const char *fmt, va_list ap);

/*
 * Host memory: checked size arithmetic, message naming what was being allocated. Every host
 * allocation of the library goes through these (realloc and aligned blocks included), so the
 * test hook below sees them all; all of them are released with sps_host_free.
 */
sps_status sps_host_alloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what);
/*
 * Scratch memory in the context's space (core/scratch.c): what one setup allocates and frees
 * again before it returns (the multigrid setup's temporaries, the sparse product's). On CUDA
 * from a stream-ordered pool, so neither the allocation nor the free waits for the device; use
 * it on the context's stream only; free it with sps_scratch_free (never the backend's free),
 * and call sps_scratch_release when the setup ends. Elsewhere the backend's malloc and free.
 */
sps_status sps_scratch_alloc(sps_context *ctx, void **p, size_t bytes, const char *what);
void sps_scratch_free(sps_context *ctx, void *p);
void sps_scratch_release(sps_context *ctx);
sps_status sps_host_calloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what);
/* *p <- a block of bytes (a multiple of align, a power of two) aligned to align. */
sps_status sps_host_alloc_aligned(sps_context *ctx, void **p, size_t align, size_t bytes,
                                  const char *what);
/* Resize *p to count*size bytes, keeping its contents; on failure *p is left as it was. */
sps_status sps_host_realloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what);
void sps_host_free(void *p);

/*
 * The allocation-failure hook of the tests (not in the public header; doc/design.md, "Errors
 * inside the library"). sps_test_alloc_fail_at(k) makes the k-th host allocation from now
 * fail (k = 1, 2, ...; 0 turns the failure off) as if malloc had returned NULL, and restarts
 * the count. sps_test_alloc_count() is the number of host allocations since then,
 * sps_test_alloc_fired() whether the failure happened, and sps_test_alloc_live() the number
 * of host blocks allocated and not yet freed (counted always, by every thread).
 */
void sps_test_alloc_fail_at(long k);
long sps_test_alloc_count(void);
int sps_test_alloc_fired(void);
long sps_test_alloc_live(void);

/* Wall clock in seconds (monotonic). */
double sps_wtime(void);

/*
 * The backend ops table. Every array argument lives in the context's memory space
 * (host for the CPU, device for CUDA). Scalars passed in and results returned are host
 * values. The Krylov methods in solvers/ and the preconditioners in precond/ are written
 * against this table only. A backend may leave an optional entry NULL.
 */
/* gemv_n adds V h to y in chunks of this many columns (the CUDA backend's scratch size). */
#define SPS_GEMV_CHUNK 4096

typedef struct sps_backend {
  const char *name;
  /* Memory in the context's space. */
  sps_status (*malloc)(sps_context *ctx, void **p, size_t bytes, const char *what);
  void (*free)(sps_context *ctx, void *p);
  /* Scratch: memory that lives within one setup and is freed in the order of the context's
   * stream (CUDA: a stream-ordered pool of the context's, allocated and freed without a device
   * synchronisation; core/scratch.c). release returns what the pool keeps to the device.
   * Optional: without them sps_scratch_* use malloc and free. */
  sps_status (*scratch_malloc)(sps_context *ctx, void **p, size_t bytes, const char *what);
  void (*scratch_free)(sps_context *ctx, void *p);
  void (*scratch_release)(sps_context *ctx);
  sps_status (*upload)(sps_context *ctx, void *dst, const void *host_src, size_t bytes);
  sps_status (*download)(sps_context *ctx, void *host_dst, const void *src, size_t bytes);
  sps_status (*copy_bytes)(sps_context *ctx, void *dst, const void *src, size_t bytes);
  sps_status (*synchronize)(sps_context *ctx);
  /* SPS_ERR_ARGUMENT (message naming `what`) unless p is memory the context's kernels may read
   * and write: on CUDA, device or managed memory of the context's GPU. Optional: the CPU
   * backend cannot tell host memory apart and leaves it NULL. */
  sps_status (*check_memory)(sps_context *ctx, const void *p, const char *what);
  /* Vector operations on n doubles. */
  sps_status (*fill)(sps_context *ctx, int64_t n, double a, double *y);          /* y <- a */
  sps_status (*copy)(sps_context *ctx, int64_t n, const double *x, double *y);   /* y <- x */
  sps_status (*scal)(sps_context *ctx, int64_t n, double a, double *y);          /* y <- a*y */
  sps_status (*axpy)(sps_context *ctx, int64_t n, double a, const double *x, double *y); /* y <- a*x + y */
  sps_status (*axpby)(sps_context *ctx, int64_t n, double a, const double *x, double b,
                      double *y);                                                 /* y <- a*x + b*y */
  sps_status (*pointwise_mult)(sps_context *ctx, int64_t n, const double *w, const double *x,
                               double *y);                                        /* y <- w .* x */
  sps_status (*gather)(sps_context *ctx, int64_t n, const int32_t *idx, const double *x,
                       double *y);                                      /* y[k] <- x[idx[k]], k < n */
  sps_status (*dot)(sps_context *ctx, int64_t n, const double *x, const double *y,
                    double *result);                                              /* x . y */
  sps_status (*nrm2)(sps_context *ctx, int64_t n, const double *x, double *result); /* ||x||_2 */
  /*
   * The same reductions left in the context's memory, without waiting for them (the multigrid
   * setup's Lanczos steps, precond/amg_spectrum.c, whose scalars then stay on the device).
   * Optional; both or none. Rounded as dot and as nrm2's first pass:
   *   dot_store    out[0] <- x . y
   *   sumsq_store  out[0] <- sum x_i^2 (compensated, rounded), out[1] <- max |x_i| (NaN when
   *                some x_i is NaN); sqrt(out[0]) is ||x|| unless sps_nrm2_scale_exponent(out[1])
   *                asks for a scaled second pass (core/nrm2_scale.h)
   */
  sps_status (*dot_store)(sps_context *ctx, int64_t n, const double *x, const double *y,
                          double *out);
  sps_status (*sumsq_store)(sps_context *ctx, int64_t n, const double *x, double *out);
  /* Dense column blocks V (n x k, leading dimension ldv), for GMRES Gram-Schmidt. Both
   * backends sum a row of V h in column order, SPS_GEMV_CHUNK columns at a time. */
  sps_status (*gemv_t)(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                       const double *x, double *h);                /* h[0:k] <- V^T x (h on host) */
  sps_status (*gemv_n)(sps_context *ctx, int64_t n, int k, double alpha, const double *V,
                       int64_t ldv, const double *h, double *y);   /* y <- y + alpha*V h (h on host) */
  /*
   * Device-driven CG steps (core/krylov_state.h): the scalars stay in S, in the context's
   * memory, and each step returns at once when S->status is not RUNNING, so a batch of
   * iterations can be issued without reading anything back. Optional.
   *   cg_alpha      S->pq <- p.q, S->alpha <- S->rz / S->pq, with the indefiniteness test
   *   cg_update     x += alpha p, r -= alpha q, z <- dinv .* r (z = r when dinv is NULL),
   *                 S->rz, S->rr, S->beta, S->it, the history and the stopping test
   *   cg_direction  p <- z + S->beta p
   *   cg_rz         with S->deferred (a preconditioner that is not diagonal, applied by the
   *                 solver between cg_update and cg_rz): S->rz <- r.z, beta, the
   *                 indefiniteness test; cg_update then computes only x, r, rr and the
   *                 stopping test. Optional (CG then accepts diagonal preconditioners only)
   *   cg_alpha_sum  cg_alpha with p.q already summed (*pq, this rank's terms, with the
   *                 bits cg_alpha's dot would give them): the solver's product formed it
   *                 while it made q (sps_spmv_apply_dot). Optional (CPU)
   */
  sps_status (*cg_alpha)(sps_context *ctx, int64_t n, const double *p, const double *q,
                         sps_cg_state *S);
  sps_status (*cg_update)(sps_context *ctx, int64_t n, const double *p, const double *q,
                          const double *dinv, double *x, double *r, double *z, sps_cg_state *S);
  sps_status (*cg_direction)(sps_context *ctx, int64_t n, const double *z, double *p,
                             const sps_cg_state *S);
  sps_status (*cg_rz)(sps_context *ctx, int64_t n, const double *r, const double *z,
                      sps_cg_state *S);
  sps_status (*cg_alpha_sum)(sps_context *ctx, const sps_csum *pq, sps_cg_state *S);
  /*
   * Device-driven GMRES(m) steps (core/krylov_state.h, struct sps_gmres_state): H, R, the
   * rotations, g, y and the partials stay in the context's memory; one inner iteration is the
   * solver's w <- A M^-1 vcur followed by gmres_arnoldi, which reads j from S, so the same
   * issued (or captured) work serves every j. Optional; all or none of the four.
   *   gmres_workspace  *ndoubles <- the length of S->work for vectors of n and restart m;
   *                    SPS_ERR_UNSUPPORTED when m exceeds the backend's limit
   *   gmres_start      beta <- ||r||; v_0 = r/beta into V(:,0) and vcur; g <- beta e_1; j <- 0;
   *                    history[it] <- beta; status RUNNING, or CONVERGED (beta <= tol),
   *                    NAN (beta not finite), MAX_ITERATIONS (it >= maxit)
   *   gmres_arnoldi    CGS2: h = V_j^T w, w -= V_j h, h2 = V_j^T w, w -= V_j h2 (j+1 columns);
   *                    H(0:j,j) <- h + h2, H(j+1,j) <- ||w||, v_{j+1} = w/||w|| into V(:,j+1)
   *                    and vcur; R(:,j) <- H(:,j) with the previous rotations and a new one
   *                    applied; g rotated; resid, history[it+1]; it++, j++; the status
   *                    (NAN, HAPPY_BREAKDOWN, CONVERGED, MAX_ITERATIONS, CYCLE_END, in this
   *                    order; BREAKDOWN, with j and it unchanged, when r_jj = 0). w is
   *                    overwritten. m must be S->m (the CUDA launch sizes shared memory by it)
   *   gmres_update     k = S->j: y <- R(0:k,0:k)^-1 g(0:k) (back substitution), u <- V_k y;
   *                    does nothing when the status is NAN. The solver then adds M^-1 u to x
   * Unlike the other steps, start and update run whatever the status (the host calls them).
   *   gmres_store_z    flexible GMRES: Z(:, S->j) <- z (Z is n x m, leading dimension ldz),
   *                    issued between the solver's z <- M^-1 vcur and its SpMV, so the same
   *                    issued (or captured) work serves every j; returns at once when the
   *                    status is not RUNNING. gmres_update with Z in place of V then forms
   *                    u = Z_k y. Optional (without it flexible GMRES runs host-driven)
   *   gmres_fused_fits 1 when gmres_fused can run A with restart m (optional; may look at
   *                    every row, so asked once, at setup: gmres_fused requires it)
   *   gmres_fused      up to count inner iterations without a preconditioner, each
   *                    w <- A v_j computed inside from A's CSR arrays, rounded as csr-scalar
   *                    rounds it (compensated row sums), then gmres_arnoldi's step; stops
   *                    early when the status leaves RUNNING. Issued instead of count rounds of
   *                    SpMV and gmres_arnoldi (the same bits: the solver uses it only with an
   *                    SpMV variant that rounds like csr-scalar). w: n doubles of scratch;
   *                    vcur is not written. Optional
   */
  sps_status (*gmres_workspace)(sps_context *ctx, int64_t n, int m, size_t *ndoubles);
  sps_status (*gmres_start)(sps_context *ctx, int64_t n, const double *r, double *V, double *vcur,
                            sps_gmres_state *S);
  sps_status (*gmres_arnoldi)(sps_context *ctx, int64_t n, int m, double *V, int64_t ldv,
                              double *w, double *vcur, sps_gmres_state *S);
  sps_status (*gmres_update)(sps_context *ctx, int64_t n, int m, const double *V, int64_t ldv,
                             sps_gmres_state *S, double *u);
  sps_status (*gmres_store_z)(sps_context *ctx, int64_t n, const double *z, double *Z, int64_t ldz,
                              const sps_gmres_state *S);
  int (*gmres_fused_fits)(sps_context *ctx, const sps_matrix *A, int m);
  sps_status (*gmres_fused)(sps_context *ctx, const sps_matrix *A, int m, double *V, int64_t ldv,
                            double *w, sps_gmres_state *S, int count);
  /*
   * Device-driven BiCGSTAB steps (struct sps_bicgstab_state), right preconditioned: with
   * phat = M^-1 p, v = A phat, shat = M^-1 s, t = A shat issued by the solver in between,
   *   bicgstab_step_a     sigma <- r0hat.v, alpha <- rho/sigma (sigma = 0: BREAKDOWN);
   *                       s <- r - alpha v, ss <- s.s; ss <= tol2 sets S->half
   *   bicgstab_step_b     omega <- t.s / t.t (0 when t = 0); x += alpha phat + omega shat,
   *                       r <- s - omega t, rho_new <- r0hat.r, rr <- r.r, it++, history;
   *                       NAN, CONVERGED, BREAKDOWN (omega = 0 or rho_new = 0) or
   *                       beta <- (rho_new/rho)(alpha/omega) and MAX_ITERATIONS at maxit.
   *                       With S->half set: x += alpha phat, r <- s, CONVERGED
   *   bicgstab_direction  p <- r + beta (p - omega v)
   * Each returns at once when the status is not RUNNING. Optional; all or none.
   */
  sps_status (*bicgstab_step_a)(sps_context *ctx, int64_t n, const double *r0hat, const double *v,
                                const double *r, double *s, sps_bicgstab_state *S);
  sps_status (*bicgstab_step_b)(sps_context *ctx, int64_t n, const double *t, const double *s,
                                const double *phat, const double *shat, const double *r0hat,
                                double *x, double *r, sps_bicgstab_state *S);
  sps_status (*bicgstab_direction)(sps_context *ctx, int64_t n, const double *r, const double *v,
                                   double *p, const sps_bicgstab_state *S);
  /*
   * Pipelined CG (solvers/cg_pipelined.c), its scalars on the host. Optional; both or none.
   *   dots_local     out[l] <- the compensated sum (not rounded, not reduced over ranks) of
   *                  x[l] . y[l], l < k <= 4, in one pass
   *   pipecg_update  with the host scalars alpha and beta (beta = 0 ignores the old z, q, s, p):
   *                  z <- nv + beta z, q <- mv + beta q, s <- w + beta s, p <- u + beta p,
   *                  x <- x + alpha p, r <- r - alpha s, u <- u - alpha q, w <- w - alpha z;
   *                  then out[0..2] <- the compensated sums of (r, u), (w, u), (r, r) of the
   *                  updated vectors, in the same pass. mv may be w (M = I): each entry of
   *                  q is formed before that entry of w is updated
   */
  sps_status (*dots_local)(sps_context *ctx, int64_t n, int k, const double *const *x,
                           const double *const *y, sps_csum *out);
  sps_status (*pipecg_update)(sps_context *ctx, int64_t n, double alpha, double beta,
                              const double *nv, const double *mv, double *z, double *q,
                              double *s, double *p, double *x, double *r, double *u, double *w,
                              sps_csum *out);
  /*
   * Graphs: record the backend work issued between graph_begin and graph_end (no host
   * synchronisation in between) and replay it with graph_launch. Optional. SPS_ERR_UNSUPPORTED
   * (no message) from graph_begin, from a step during the capture, or from graph_launch means
   * "not now" (a distributed context whose iterations would wait on the host, or whose
   * transports changed since the capture): the caller issues the work step by step.
   */
  sps_status (*graph_begin)(sps_context *ctx);
  sps_status (*graph_end)(sps_context *ctx, void **graph);
  sps_status (*graph_launch)(sps_context *ctx, void *graph);
  void (*graph_destroy)(sps_context *ctx, void *graph);
  /*
   * Device time of the work issued on the context's stream between timer_start and
   * timer_stop (CUDA events); timer_stop waits for it and gives the seconds. Optional: without
   * it the caller synchronises and reads the wall clock.
   */
  sps_status (*timer_start)(sps_context *ctx);
  sps_status (*timer_stop)(sps_context *ctx, double *seconds);
  /* The same vector operations and fused steps on row-major blocks of columns, each column its
   * own recurrence (core/block_ops.h; sps_solver_solve_many). Optional. */
  const struct sps_block_backend *block;
} sps_backend;

extern const sps_backend sps_backend_cpu;
#ifdef SPS_HAVE_CUDA
extern const sps_backend sps_backend_cuda;
#endif

/* The kinds of object made from a context, counted so that it is not destroyed under them. */
typedef enum sps_object_kind {
  SPS_OBJECT_MATRIX = 0,
  SPS_OBJECT_VECTOR,
  SPS_OBJECT_PLAN,
  SPS_OBJECT_SOLVER,
  SPS_OBJECT_MULTIVECTOR,
  SPS_OBJECT_SPMM_PLAN,
  SPS_OBJECT_KINDS
} sps_object_kind;

struct sps_context {
  sps_device_kind kind; /* CPU or CUDA, never AUTO */
  int device;           /* CUDA device index */
  const sps_backend *be;
  void *cuda;           /* struct sps_cuda_state (core/cuda_state.h) on CUDA contexts */
  struct sps_comm *comm; /* the communicator of a distributed context (core/comm.h), or NULL */
  int64_t live[SPS_OBJECT_KINDS]; /* objects made from the context and not yet destroyed
                                     (a solver's own SpMV plan is not counted) */
  sps_read_progress_fn read_progress; /* the Matrix Market readers' progress, or NULL */
  void *read_progress_user;
  int cache_dir_set;   /* 1: sps_context_set_cache_dir() named cache_dir ("" = off); 0: from
                          the environment */
  char cache_dir[1024];
  char errmsg[SPS_ERRMSG_LEN];
};

/*
 * What identifies the context's device for cached measurements: the GPU model and compute
 * capability ("NVIDIA H100 80GB HBM3 sm_90"), or "cpu N threads".
 */
void sps_context_device_key(const sps_context *ctx, char *buf, size_t len);

/* Count an object of the context made (+1) or destroyed (-1). */
static inline void sps_context_track(sps_context *ctx, sps_object_kind kind, int delta)
{
  if (ctx) ctx->live[kind] += delta;
}

/*
 * A CSR matrix. The host arrays always exist (sorted columns, duplicates summed); on a
 * CUDA context d_rowptr, d_colind, d_values are device copies made at creation. A matrix
 * made by sps_matrix_wrap_csr() borrows the caller's arrays instead: the bits of `borrowed`
 * name them, and destroy leaves them alone.
 */
struct sps_matrix {
  sps_context *ctx;
  int64_t nrows, ncols, nnz;
  int64_t *rowptr;   /* nrows + 1 */
  int32_t *colind;   /* nnz */
  double *values;    /* nnz */
  int64_t *d_rowptr; /* device copies (NULL on the CPU) */
  int32_t *d_rowptr32; /* device row offsets as int32 when nnz <= INT32_MAX (else NULL):
                          4 bytes a row less for the kernels that read them */
  int32_t *d_colind;
  double *d_values;
  sps_symmetry symmetry;
  unsigned borrowed; /* SPS_BORROWED_* bits: arrays owned by the caller, never freed here */
  struct sps_dist *dist; /* a distributed matrix (core/dist_matrix.h): the CSR arrays above are
                            then the rank's diagonal block; NULL otherwise */
  uint64_t values_version; /* counts sps_matrix_scale() calls: a copy of the values made by an
                              SpMV plan's setup (the CPU's sliced csr-scalar) is refreshed when
                              it changes */
};

/* The bits of sps_matrix.borrowed. */
enum {
  SPS_BORROWED_ROWPTR = 1u << 0,
  SPS_BORROWED_COLIND = 1u << 1,
  SPS_BORROWED_VALUES = 1u << 2,
  SPS_BORROWED_D_ROWPTR = 1u << 3,
  SPS_BORROWED_D_ROWPTR32 = 1u << 4,
  SPS_BORROWED_D_COLIND = 1u << 5,
  SPS_BORROWED_D_VALUES = 1u << 6
};

/* A dense vector in the context's memory space; `borrowed` when data is the caller's
 * (sps_vector_wrap()), which destroy does not free. */
struct sps_vector {
  sps_context *ctx;
  int64_t n;
  double *data;
  int borrowed;
};

/*
 * An n x k multivector in the context's memory space, row-major: entry (i, j) at
 * data[i*ld + j] (core/multivector.c); `borrowed` when data is the caller's
 * (sps_multivector_wrap()), which destroy does not free.
 */
struct sps_multivector {
  sps_context *ctx;
  int64_t n, k, ld;
  double *data;
  int borrowed;
};

/*
 * Build a matrix that takes ownership of host CSR arrays allocated with sps_host_alloc
 * (already sorted, duplicates summed, indices checked). On failure the arrays are freed.
 * Uploads to the device on a CUDA context.
 */
sps_status sps_matrix_adopt_csr(sps_context *ctx, sps_matrix **A, int64_t nrows, int64_t ncols,
                                int64_t *rowptr, int32_t *colind, double *values,
                                sps_symmetry symmetry);

/*
 * Build a matrix over CSR arrays in the context's memory that it takes over (ctx->be->malloc;
 * sorted, no duplicates, indices in range), for matrices made on the device (the multigrid
 * levels): on the CPU the arrays are the host ones; on CUDA they are the device ones and the
 * host keeps the row offsets only (downloaded, with d_rowptr32 made from them), so nothing
 * that reads the host columns or values (the SpMV variants' analyses, the symmetry test) may
 * be used on it: csr-scalar and csr-vector with a set number of threads per row may. On
 * failure the arrays are freed.
 */
sps_status sps_matrix_adopt_device_csr(sps_context *ctx, sps_matrix **A, int64_t nrows,
                                       int64_t ncols, int64_t *rowptr, int32_t *colind,
                                       double *values, sps_symmetry symmetry);

/*
 * On a CUDA context, make the device arrays that are still NULL (d_rowptr, d_rowptr32 when
 * nnz <= INT32_MAX, d_colind, d_values) from the host arrays; nothing on the CPU.
 */
sps_status sps_matrix_upload(sps_matrix *A);

/*
 * Free A's int32 device row offsets (d_rowptr32), so that every kernel then reads the int64
 * ones (d_rowptr), the path a matrix with nnz > INT32_MAX takes: for the tests of those
 * kernels on matrices small enough to check. Call it before any plan or preconditioner is made
 * on A; nothing on the CPU. SPS_SUCCESS always.
 */
sps_status sps_matrix_drop_offsets32(sps_matrix *A);

/* 1 when A equals its transpose exactly (a missing partner counts as zero); records nothing.
 * On a distributed matrix the test is collective and covers the whole matrix (0 when it fails). */
int sps_matrix_is_symmetric(const sps_matrix *A);
/* The same test of A's own CSR arrays only (a distributed matrix's diagonal block). */
int sps_matrix_block_is_symmetric(const sps_matrix *A);

/* The arrays an SpMV or preconditioner should read on the context's device. */
static inline const int64_t *sps_matrix_dev_rowptr(const sps_matrix *A)
{
  return A->d_rowptr ? A->d_rowptr : A->rowptr;
}
static inline const int32_t *sps_matrix_dev_colind(const sps_matrix *A)
{
  return A->d_colind ? A->d_colind : A->colind;
}
static inline const double *sps_matrix_dev_values(const sps_matrix *A)
{
  return A->d_values ? A->d_values : A->values;
}

/* Check an argument pointer, naming it. */
#define SPS_CHECK_ARG(ctx, cond, name)                                                     \
  do {                                                                                     \
    if (!(cond)) SPS_FAIL((ctx), SPS_ERR_ARGUMENT, "%s: invalid argument '%s'", __func__, name); \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_INTERNAL_H */
