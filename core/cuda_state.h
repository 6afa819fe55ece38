/* cuda_state.h: what a CUDA context owns (stream, cuSPARSE handle, reduction buffers, device facts) and the CUDA error macros. */
#ifndef SPS_CORE_CUDA_STATE_H
#define SPS_CORE_CUDA_STATE_H

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "internal.h"

/* Device doubles kept for results of gemv_t before they are copied to the host. */
#define SPS_CUDA_SCRATCH SPS_GEMV_CHUNK

struct sps_cuda_state {
  cudaStream_t stream;
  cusparseHandle_t cusparse;
  int sm_count;
  int max_threads_per_sm;
  size_t l2_bytes;
  int cc_major;      /* compute capability major: 9 and later have thread-block clusters */
  int cc_minor;      /* compute capability minor (the SpMV model is chosen by major and minor) */
  int gmres_cluster; /* cc_major >= 9 and the one-cluster Arnoldi kernel is built for it */
  char name[256];
  char model[256];     /* the device's name alone, for cache keys */
  cudaEvent_t timer_start, timer_stop; /* the backend's timer (timer_start/timer_stop ops) */
  double *scratch;     /* SPS_CUDA_SCRATCH doubles */
  double *host_pinned; /* SPS_CUDA_SCRATCH doubles of pinned host memory */
  /* Block partials and the last-block ticket of the fused reductions (core/cuda/cg_steps.cu). */
  unsigned reduce_blocks; /* grid limit of those kernels: partials hold 2 sums (4 doubles) per block */
  double *partials;
  unsigned *ticket;
  /* The statistics kernel's words and last-block ticket (spmv/cuda/stats.cu): 16 unsigned
   * 64-bit integers, zero at creation and zero again after each launch; and the device's
   * address of host_pinned, where that kernel leaves its result. */
  unsigned long long *stats_words;
  void *host_pinned_dev;
  /* Reductions that end on the host (core/cuda/split_steps.cu: a distributed context's,
   * pipelined CG's): SPS_CUDA_SPLIT_SUMS partials per block on the device, and pinned host
   * room for them and a state block. */
  double *dist_partials;
  double *dist_host;
  /* The scratch pool (sps_scratch_alloc): made at the first scratch allocation; pool_state 0
   * not yet, 1 made, -1 the device has no memory pools (scratch is then plain cudaMalloc). */
  cudaMemPool_t pool;
  int pool_state;
  int device; /* the CUDA device of the context */
};

static inline struct sps_cuda_state *sps_cuda(const sps_context *ctx)
{
  return (struct sps_cuda_state *)ctx->cuda;
}

/* Translate a CUDA runtime status; allocation failures map to SPS_ERR_DEVICE_MEMORY. */
#define SPS_CUDA(ctx, call)                                                                \
  do {                                                                                     \
    cudaError_t sps_cuda_e_ = (call);                                                      \
    if (sps_cuda_e_ != cudaSuccess)                                                        \
      SPS_FAIL((ctx),                                                                      \
               sps_cuda_e_ == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA, \
               "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(sps_cuda_e_)); \
  } while (0)

/* Check the launch of a kernel (the launcher returns cudaGetLastError()). */
#define SPS_CUDA_LAUNCH(ctx, call) SPS_CUDA(ctx, call)

#define SPS_CUSPARSE(ctx, call)                                                            \
  do {                                                                                     \
    cusparseStatus_t sps_cusparse_e_ = (call);                                             \
    if (sps_cusparse_e_ != CUSPARSE_STATUS_SUCCESS)                                        \
      SPS_FAIL((ctx),                                                                      \
               sps_cusparse_e_ == CUSPARSE_STATUS_ALLOC_FAILED ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUSPARSE, \
               "%s:%d: %s: %s", __FILE__, __LINE__, #call, cusparseGetErrorString(sps_cusparse_e_)); \
  } while (0)

/* Context setup and teardown of the CUDA state (core/backend_cuda.c). */
sps_status sps_cuda_state_create(sps_context *ctx, int device);
void sps_cuda_state_destroy(sps_context *ctx);

/* Launchers of core/cuda/vector_kernels.cu; each returns cudaGetLastError(). */
cudaError_t sps_cuda_fill_launch(cudaStream_t s, int64_t n, double a, double *y);
cudaError_t sps_cuda_axpby_launch(cudaStream_t s, int64_t n, double a, const double *x, double b,
                                  double *y);
cudaError_t sps_cuda_pointwise_mult_launch(cudaStream_t s, int64_t n, const double *w,
                                           const double *x, double *y);
cudaError_t sps_cuda_gather_launch(cudaStream_t s, int64_t n, const int32_t *idx, const double *x,
                                   double *y);

/* Launchers of core/cuda/blas_kernels.cu: *out <- x.y (device memory; uses partials and the
 * ticket, 2 doubles per block), and y <- y + alpha V(:, 0:k) h with h in device memory (k at
 * most SPS_CUDA_SCRATCH). */
cudaError_t sps_cuda_dot(cudaStream_t s, unsigned max_blocks, int64_t n, const double *x,
                         const double *y, double *partials, unsigned *ticket, double *out);
cudaError_t sps_cuda_gemv_n(cudaStream_t s, unsigned max_blocks, int64_t n, int k, double alpha,
                            const double *V, int64_t ldv, const double *h, double *y);
/* out[0] <- sum (x_i c)^2 (compensated), out[1] <- max |x_i| (NaN when some x_i is NaN), in
 * device memory; uses partials (2 pairs per block) and the ticket. */
cudaError_t sps_cuda_nrm2(cudaStream_t s, unsigned max_blocks, int64_t n, const double *x, double c,
                          double *partials, unsigned *ticket, double *out);

/* Launchers of core/cuda/cg_steps.cu (fused CG steps, scalars on the device). */
cudaError_t sps_cuda_cg_alpha(cudaStream_t s, unsigned max_blocks, int64_t n, const double *p,
                              const double *q, sps_cg_state *S, double *partials,
                              unsigned *ticket);
cudaError_t sps_cuda_cg_update(cudaStream_t s, unsigned max_blocks, int64_t n, const double *p,
                               const double *q, const double *dinv, double *x, double *r,
                               double *z, sps_cg_state *S, double *partials, unsigned *ticket);
cudaError_t sps_cuda_cg_direction(cudaStream_t s, unsigned max_blocks, int64_t n, const double *z,
                                  double *p, const sps_cg_state *S);
cudaError_t sps_cuda_cg_rz(cudaStream_t s, unsigned max_blocks, int64_t n, const double *r,
                           const double *z, sps_cg_state *S, double *partials, unsigned *ticket);

/* Launchers of core/cuda/gmres_steps.cu (fused GMRES(m) steps, H and g on the device). */
size_t sps_cuda_gmres_workspace(unsigned max_blocks, int m);
cudaError_t sps_cuda_gmres_start(cudaStream_t s, unsigned max_blocks, int64_t n, const double *r,
                                 double *V, double *vcur, sps_gmres_state *S, unsigned *ticket);
cudaError_t sps_cuda_gmres_arnoldi(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                   double *V, int64_t ldv, double *w, double *vcur,
                                   sps_gmres_state *S, unsigned *ticket);
cudaError_t sps_cuda_gmres_update(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                  const double *V, int64_t ldv, sps_gmres_state *S, double *u);
cudaError_t sps_cuda_gmres_store_z(cudaStream_t s, unsigned max_blocks, int64_t n, const double *z,
                                   double *Z, int64_t ldz, const sps_gmres_state *S);

/* The distributed form of those steps (reductions over NCCL, core/backend_cuda.c): reduce
 * runs step 0 (the start's ||r||, from r), 1 (dots), 2 (correct_dots) or 3 (correct_norm) on
 * this rank's rows with its block partials left in S->work and folds them into out (kk
 * pairs, zero past the step's sums); close merges all (size ranks' kk pairs) in rank order
 * and closes the step on S; vector writes v_0 = r/beta (step 0, src = r) or v_{j+1} =
 * w/h_{j+1,j} (step 3, src = w) into V and vcur. */
cudaError_t sps_cuda_gmres_dist_reduce(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                       int step, const double *r, double *V, int64_t ldv,
                                       double *w, sps_gmres_state *S, int kk, double *out);
cudaError_t sps_cuda_gmres_dist_close(cudaStream_t s, int m, int step, const double *all, int size,
                                      int kk, sps_gmres_state *S);
cudaError_t sps_cuda_gmres_dist_vector(cudaStream_t s, unsigned max_blocks, int64_t n, int step,
                                       const double *src, double *V, int64_t ldv, double *vcur,
                                       const sps_gmres_state *S);

/* Launchers of core/cuda/gmres_cluster.cu (GMRES(m) steps in one thread-block cluster, small n).
 * built: both kernels were compiled for sm_90 or later and this device runs a cluster of 16
 * blocks; fits: n and m are small enough. arnoldi_cluster is gmres_arnoldi's step;
 * cycle_cluster runs up to count inner iterations without a preconditioner, each w = A v_j
 * from the int32 CSR arrays (w: n doubles of scratch), until the status leaves RUNNING; it
 * needs fused_segments_fit (on the host row offsets: the long rows of each block fit its
 * list) as well as fits. */
int sps_cuda_gmres_cluster_built(void);
int sps_cuda_gmres_cluster_fits(int64_t n, int m);
int sps_cuda_gmres_fused_segments_fit(int64_t n, const int64_t *rowptr);
cudaError_t sps_cuda_gmres_arnoldi_cluster(cudaStream_t s, int64_t n, int m, double *V,
                                           int64_t ldv, double *w, double *vcur,
                                           sps_gmres_state *S);
cudaError_t sps_cuda_gmres_cycle_cluster(cudaStream_t s, int64_t n, int m, const int32_t *rowptr,
                                         const int32_t *colind, const double *values, double *V,
                                         int64_t ldv, double *w, sps_gmres_state *S, int count);

/* Launchers of core/cuda/bicgstab_steps.cu (fused BiCGSTAB steps, scalars on the device). */
cudaError_t sps_cuda_bicgstab_step_a(cudaStream_t st, unsigned max_blocks, int64_t n,
                                     const double *r0hat, const double *v, const double *r,
                                     double *s, sps_bicgstab_state *S, double *partials,
                                     unsigned *ticket);
cudaError_t sps_cuda_bicgstab_step_b(cudaStream_t st, unsigned max_blocks, int64_t n,
                                     const double *t, const double *s, const double *phat,
                                     const double *shat, const double *r0hat, double *x,
                                     double *r, sps_bicgstab_state *S, double *partials,
                                     unsigned *ticket);
cudaError_t sps_cuda_bicgstab_direction(cudaStream_t st, unsigned max_blocks, int64_t n,
                                        const double *r, const double *v, double *p,
                                        const sps_bicgstab_state *S);

/* The most sums one host-ended reduction of the CUDA backend carries per launch group
 * (SPS_COMM_MAX_SUMS of core/comm.h). */
#define SPS_CUDA_SPLIT_SUMS 64

/* Launchers of core/cuda/split_steps.cu (block partials only). The grid of each is
 * sps_cuda_dist_grid(n, max_blocks) blocks, so the host knows where the partials are. */
unsigned sps_cuda_dist_grid(int64_t n, unsigned max_blocks);
cudaError_t sps_cuda_dist_dots(cudaStream_t st, unsigned max_blocks, int64_t n, int k,
                               const double *const *x, const double *const *y, double *partials);
cudaError_t sps_cuda_dist_sumsq(cudaStream_t st, unsigned max_blocks, int64_t n, const double *x,
                                double c, double *partials);
cudaError_t sps_cuda_dist_cg_update(cudaStream_t st, unsigned max_blocks, int64_t n,
                                    const double *p, const double *q, const double *dinv,
                                    double *x, double *r, double *z, const sps_cg_state *S,
                                    double *partials);
cudaError_t sps_cuda_dist_bicgstab_s(cudaStream_t st, unsigned max_blocks, int64_t n,
                                     const double *r, const double *v, double *s,
                                     const sps_bicgstab_state *S, double *partials);
cudaError_t sps_cuda_dist_bicgstab_update(cudaStream_t st, unsigned max_blocks, int64_t n,
                                          const double *t, const double *s, const double *phat,
                                          const double *shat, const double *r0hat, double *x,
                                          double *r, const sps_bicgstab_state *S,
                                          double *partials);
cudaError_t sps_cuda_pipecg_update(cudaStream_t st, unsigned max_blocks, int64_t n, double alpha,
                                   double beta, const double *nv, const double *mv, double *z,
                                   double *q, double *s, double *p, double *x, double *r,
                                   double *u, double *w, double *partials);

/* Launchers of core/cuda/dist_close.cu (the reductions over NCCL kept on the device). Fold:
 * out[2l, 2l+1] <- partial l (l < k <= 32) of a split_steps kernel's `grid` blocks. CG close:
 * step 0 (cg_alpha), 1 (cg_update) or 2 (cg_rz) from `all`, every rank's pairs in rank order
 * (size ranks, the step's 1, 2 or 1 pairs each). */
cudaError_t sps_cuda_dist_fold(cudaStream_t st, const double *partials, unsigned grid, int k,
                               double *out);
cudaError_t sps_cuda_dist_cg_close(cudaStream_t st, int step, const double *all, int size,
                                   int has_dinv, sps_cg_state *S);
/* BiCGSTAB close: step 0 (sigma, 1 pair a rank), 1 (ss, 1), 2 (ts and tt, 2), 3 (rr and
 * rho_new, 2), as core/backend_cuda.c's host path closes them. */
cudaError_t sps_cuda_dist_bicgstab_close(cudaStream_t st, int step, const double *all, int size,
                                         sps_bicgstab_state *S);

/* core/cuda/device_query.cu: count devices, name device 0, and run a probe kernel on it. */
int sps_cuda_device_query_impl(int *count, char *name, size_t len);

#endif /* SPS_CORE_CUDA_STATE_H */
