/* backend_cuda.c: the CUDA implementation of the backend ops table and the creation of a CUDA
 * context's state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#ifdef SPS_HAVE_MPI
#include "comm_nccl.h"
#endif
#include "block_ops.h"
#include "cuda_state.h"
#include "nrm2_scale.h"

/* Doubles of pinned host memory kept for a state block after the split partials. */
#define SPLIT_STATE_DOUBLES 64

/* A diagnostic switch of the environment set to "0" (SPSOLVE_GMRES_CLUSTER, SPSOLVE_CUDA_POOL). */
static int env_switched_off(const char *name)
{
  const char *e = getenv(name);
  return e && strcmp(e, "0") == 0;
}

sps_status sps_cuda_state_create(sps_context *ctx, int device)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    cudaGetLastError();
    SPS_FAIL(ctx, SPS_ERR_NO_DEVICE, "no CUDA device is present");
  }
  if (device < 0 || device >= count)
    SPS_FAIL(ctx, SPS_ERR_NO_DEVICE, "CUDA device %d does not exist (%d present)", device, count);
  struct sps_cuda_state *cs;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&cs, 1, sizeof *cs, "CUDA context state"));
  ctx->cuda = cs;
  SPS_CUDA(ctx, cudaSetDevice(device));
  cs->device = device;
  struct cudaDeviceProp prop;
  SPS_CUDA(ctx, cudaGetDeviceProperties(&prop, device));
  snprintf(cs->name, sizeof cs->name, "%.200s (CUDA device %d, sm_%d%d)", prop.name, device,
           prop.major, prop.minor);
  cs->sm_count = prop.multiProcessorCount;
  cs->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  cs->l2_bytes = (size_t)prop.l2CacheSize;
  snprintf(cs->model, sizeof cs->model, "%.200s", prop.name);
  cs->cc_major = prop.major;
  cs->cc_minor = prop.minor;
  /* SPSOLVE_GMRES_CLUSTER=0: GMRES's steps by the grid kernels even where one thread-block
   * cluster would take them (the same bits; for comparing and for tools that are slow on
   * clusters) */
  cs->gmres_cluster = cs->cc_major >= 9 && sps_cuda_gmres_cluster_built() &&
                      !env_switched_off("SPSOLVE_GMRES_CLUSTER");
  SPS_CUDA(ctx, cudaStreamCreateWithFlags(&cs->stream, cudaStreamNonBlocking));
  SPS_CUSPARSE(ctx, cusparseCreate(&cs->cusparse));
  SPS_CUSPARSE(ctx, cusparseSetStream(cs->cusparse, cs->stream));
  SPS_CUDA(ctx, cudaMalloc((void **)&cs->scratch, SPS_CUDA_SCRATCH * sizeof(double)));
  SPS_CUDA(ctx, cudaMallocHost((void **)&cs->host_pinned, SPS_CUDA_SCRATCH * sizeof(double)));
  /* Four blocks of 256 threads per SM keep the fused reductions at full bandwidth. */
  cs->reduce_blocks = (unsigned)(4 * cs->sm_count);
  if (cs->reduce_blocks < 1) cs->reduce_blocks = 1;
  SPS_CUDA(ctx, cudaMalloc((void **)&cs->partials, 4 * (size_t)cs->reduce_blocks * sizeof(double)));
  SPS_CUDA(ctx, cudaMalloc((void **)&cs->ticket, sizeof(unsigned)));
  SPS_CUDA(ctx, cudaMemset(cs->ticket, 0, sizeof(unsigned)));
  SPS_CUDA(ctx, cudaMalloc((void **)&cs->stats_words, 16 * sizeof(unsigned long long)));
  SPS_CUDA(ctx, cudaMemset(cs->stats_words, 0, 16 * sizeof(unsigned long long)));
  /* Pinned memory is mapped wherever addressing is unified (every 64-bit platform CUDA 13
   * runs on); should it not be, the statistics are computed on the host. */
  if (cudaHostGetDevicePointer(&cs->host_pinned_dev, cs->host_pinned, 0) != cudaSuccess) {
    cs->host_pinned_dev = NULL;
    (void)cudaGetLastError();
  }
  SPS_CUDA(ctx, cudaEventCreate(&cs->timer_start));
  SPS_CUDA(ctx, cudaEventCreate(&cs->timer_stop));
  /* the host-ended reductions (core/cuda/split_steps.cu): partials, and pinned room for them
   * and a state block */
  const size_t pd = 2 * (size_t)SPS_CUDA_SPLIT_SUMS * cs->reduce_blocks;
  SPS_CUDA(ctx, cudaMalloc((void **)&cs->dist_partials, pd * sizeof(double)));
  SPS_CUDA(ctx, cudaMallocHost((void **)&cs->dist_host, (pd + SPLIT_STATE_DOUBLES) * sizeof(double)));
  return SPS_SUCCESS;
}

void sps_cuda_state_destroy(sps_context *ctx)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (!cs) return;
  if (cs->stream) cudaStreamSynchronize(cs->stream);
  if (cs->pool_state > 0) cudaMemPoolDestroy(cs->pool);
  if (cs->scratch) cudaFree(cs->scratch);
  if (cs->host_pinned) cudaFreeHost(cs->host_pinned);
  if (cs->partials) cudaFree(cs->partials);
  if (cs->ticket) cudaFree(cs->ticket);
  if (cs->stats_words) cudaFree(cs->stats_words);
  if (cs->dist_partials) cudaFree(cs->dist_partials);
  if (cs->dist_host) cudaFreeHost(cs->dist_host);
  if (cs->timer_start) cudaEventDestroy(cs->timer_start);
  if (cs->timer_stop) cudaEventDestroy(cs->timer_stop);
  if (cs->cusparse) cusparseDestroy(cs->cusparse);
  if (cs->stream) cudaStreamDestroy(cs->stream);
  sps_host_free(cs);
  ctx->cuda = NULL;
}

static sps_status cu_malloc(sps_context *ctx, void **p, size_t bytes, const char *what)
{
  *p = NULL;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    SPS_FAIL(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
             "%s: cannot allocate %zu bytes of device memory: %s", what, bytes,
             cudaGetErrorString(e));
  }
  return SPS_SUCCESS;
}

static void cu_free(sps_context *ctx, void *p)
{
  (void)ctx;
  if (p) cudaFree(p);
}

/*
 * Scratch from a pool of the context's (cudaMemPoolCreate on its device), allocated and freed
 * in the order of its stream (cudaMallocFromPoolAsync, cudaFreeAsync): the many temporaries of
 * a multigrid setup no longer pay cudaMalloc and cudaFree, whose free waits for the whole
 * device. The pool keeps up to SPS_CUDA_POOL_KEEP bytes of freed memory for reuse across the
 * setup's synchronisations; scratch_release trims it to nothing. An allocation the pool cannot
 * serve is tried once more after a trim. SPSOLVE_CUDA_POOL=0 in the environment turns the pool
 * off (scratch is then cudaMalloc and cudaFree, as where the device has no memory pools): a
 * switch for measuring what it saves and for tools that track cudaMalloc.
 */
#define SPS_CUDA_POOL_KEEP ((uint64_t)1 << 31)

static sps_status cu_pool(sps_context *ctx)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (cs->pool_state) return SPS_SUCCESS;
  const int device = cs->device;
  int supported = 0;
  if (env_switched_off("SPSOLVE_CUDA_POOL") ||
      cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess ||
      !supported) {
    (void)cudaGetLastError();
    cs->pool_state = -1;
    return SPS_SUCCESS;
  }
  struct cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  SPS_CUDA(ctx, cudaMemPoolCreate(&cs->pool, &props));
  uint64_t keep = SPS_CUDA_POOL_KEEP;
  SPS_CUDA(ctx, cudaMemPoolSetAttribute(cs->pool, cudaMemPoolAttrReleaseThreshold, &keep));
  cs->pool_state = 1;
  return SPS_SUCCESS;
}

static sps_status cu_scratch_malloc(sps_context *ctx, void **p, size_t bytes, const char *what)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  *p = NULL;
  SPS_CHECK(cu_pool(ctx));
  if (cs->pool_state < 0) return cu_malloc(ctx, p, bytes, what);
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes ? bytes : 1, cs->pool, cs->stream);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    cudaStreamSynchronize(cs->stream);
    cudaMemPoolTrimTo(cs->pool, 0);
    e = cudaMallocFromPoolAsync(p, bytes ? bytes : 1, cs->pool, cs->stream);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *p = NULL;
    SPS_FAIL(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
             "%s: cannot allocate %zu bytes of device memory: %s", what, bytes,
             cudaGetErrorString(e));
  }
  return SPS_SUCCESS;
}

static void cu_scratch_free(sps_context *ctx, void *p)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (!p) return;
  if (cs->pool_state > 0)
    cudaFreeAsync(p, cs->stream);
  else
    cudaFree(p);
}

static void cu_scratch_release(sps_context *ctx)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (cs->pool_state <= 0) return;
  cudaStreamSynchronize(cs->stream);
  cudaMemPoolTrimTo(cs->pool, 0);
}

static sps_status cu_upload(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!bytes) return SPS_SUCCESS;
  SPS_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, sps_cuda(ctx)->stream));
  /* The host buffer may be freed as soon as we return. */
  SPS_CUDA(ctx, cudaStreamSynchronize(sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

static sps_status cu_download(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!bytes) return SPS_SUCCESS;
  SPS_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, sps_cuda(ctx)->stream));
  SPS_CUDA(ctx, cudaStreamSynchronize(sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

static sps_status cu_copy_bytes(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!bytes || dst == src) return SPS_SUCCESS;
  SPS_CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

static sps_status cu_synchronize(sps_context *ctx)
{
  SPS_CUDA(ctx, cudaStreamSynchronize(sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

/* Only device or managed memory of the context's GPU: host memory, even pinned, is refused. */
static sps_status cu_check_memory(sps_context *ctx, const void *p, const char *what)
{
  struct cudaPointerAttributes attr;
  cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    cudaGetLastError();
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "%s: %p is not CUDA memory (%s)", what, p,
             cudaGetErrorString(e));
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "%s: %p is host memory; the context computes on CUDA device %d, so the array must "
             "be device memory there",
             what, p, ctx->device);
  if (attr.type == cudaMemoryTypeDevice && attr.device != ctx->device)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "%s: %p is memory of CUDA device %d, the context computes on device %d", what, p,
             attr.device, ctx->device);
  return SPS_SUCCESS;
}

static sps_status cu_fill(sps_context *ctx, int64_t n, double a, double *y)
{
  SPS_CUDA_LAUNCH(ctx, sps_cuda_fill_launch(sps_cuda(ctx)->stream, n, a, y));
  return SPS_SUCCESS;
}

static sps_status cu_copy(sps_context *ctx, int64_t n, const double *x, double *y)
{
  return cu_copy_bytes(ctx, y, x, (size_t)n * sizeof(double));
}

static sps_status cu_scal(sps_context *ctx, int64_t n, double a, double *y)
{
  return sps_cuda_axpby_launch(sps_cuda(ctx)->stream, n, 0.0, y, a, y) == cudaSuccess
             ? SPS_SUCCESS
             : sps_error_set(ctx, SPS_ERR_CUDA, "scal: kernel launch failed");
}

static sps_status cu_axpby(sps_context *ctx, int64_t n, double a, const double *x, double b,
                           double *y)
{
  SPS_CUDA_LAUNCH(ctx, sps_cuda_axpby_launch(sps_cuda(ctx)->stream, n, a, x, b, y));
  return SPS_SUCCESS;
}

static sps_status cu_axpy(sps_context *ctx, int64_t n, double a, const double *x, double *y)
{
  return cu_axpby(ctx, n, a, x, 1.0, y);
}

static sps_status cu_pointwise_mult(sps_context *ctx, int64_t n, const double *w, const double *x,
                                    double *y)
{
  SPS_CUDA_LAUNCH(ctx, sps_cuda_pointwise_mult_launch(sps_cuda(ctx)->stream, n, w, x, y));
  return SPS_SUCCESS;
}

static sps_status cu_gather(sps_context *ctx, int64_t n, const int32_t *idx, const double *x,
                            double *y)
{
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gather_launch(sps_cuda(ctx)->stream, n, idx, x, y));
  return SPS_SUCCESS;
}

/* The dots of the host-driven paths: a compensated sum on the device (core/cuda/blas_kernels.cu),
 * rounded like the CPU backend's, read back into host memory. */
static sps_status cu_dot(sps_context *ctx, int64_t n, const double *x, const double *y,
                         double *result)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dot(cs->stream, cs->reduce_blocks, n, x, y, cs->partials,
                                    cs->ticket, cs->scratch));
  SPS_CUDA(ctx, cudaMemcpyAsync(cs->host_pinned, cs->scratch, sizeof(double),
                                cudaMemcpyDeviceToHost, cs->stream));
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  *result = cs->host_pinned[0];
  return SPS_SUCCESS;
}

/* Run the nrm2 kernel with the factor c and read back (sum (x_i c)^2, max |x_i|). */
static sps_status cu_sumsq(sps_context *ctx, int64_t n, const double *x, double c, double out[2])
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_nrm2(cs->stream, cs->reduce_blocks, n, x, c, cs->partials,
                                     cs->ticket, cs->scratch));
  SPS_CUDA(ctx, cudaMemcpyAsync(cs->host_pinned, cs->scratch, 2 * sizeof(double),
                                cudaMemcpyDeviceToHost, cs->stream));
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  out[0] = cs->host_pinned[0];
  out[1] = cs->host_pinned[1];
  return SPS_SUCCESS;
}

/* dot and nrm2's first pass with their results left in device memory (out), not waited for. */
static sps_status cu_dot_store(sps_context *ctx, int64_t n, const double *x, const double *y,
                               double *out)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dot(cs->stream, cs->reduce_blocks, n, x, y, cs->partials,
                                    cs->ticket, out));
  return SPS_SUCCESS;
}

static sps_status cu_sumsq_store(sps_context *ctx, int64_t n, const double *x, double *out)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_nrm2(cs->stream, cs->reduce_blocks, n, x, 1.0, cs->partials,
                                     cs->ticket, out));
  return SPS_SUCCESS;
}

/* ||x||: sqrt(x.x) in range, else 2^e ||2^-e x|| by a second pass, as on the CPU backend
 * (core/nrm2_scale.h). */
static sps_status cu_nrm2(sps_context *ctx, int64_t n, const double *x, double *result)
{
  double s[2];
  SPS_CHECK(cu_sumsq(ctx, n, x, 1.0, s));
  const int e = isnan(s[1]) ? 0 : sps_nrm2_scale_exponent(s[1]);
  if (e == 0) {
    *result = sqrt(s[0]);
    return SPS_SUCCESS;
  }
  SPS_CHECK(cu_sumsq(ctx, n, x, ldexp(1.0, -e), s));
  *result = ldexp(sqrt(s[0]), e);
  return SPS_SUCCESS;
}

/* h <- V^T x: one dot per column into the device scratch, read back once per
 * SPS_CUDA_SCRATCH columns. */
static sps_status cu_gemv_t(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                            const double *x, double *h)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  for (int j0 = 0; j0 < k; j0 += SPS_CUDA_SCRATCH) {
    int kk = k - j0 < SPS_CUDA_SCRATCH ? k - j0 : SPS_CUDA_SCRATCH;
    for (int j = 0; j < kk; j++)
      SPS_CUDA_LAUNCH(ctx, sps_cuda_dot(cs->stream, cs->reduce_blocks, n,
                                        V + (int64_t)(j0 + j) * ldv, x, cs->partials, cs->ticket,
                                        cs->scratch + j));
    SPS_CUDA(ctx, cudaMemcpyAsync(cs->host_pinned, cs->scratch, (size_t)kk * sizeof(double),
                                  cudaMemcpyDeviceToHost, cs->stream));
    SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
    memcpy(h + j0, cs->host_pinned, (size_t)kk * sizeof(double));
  }
  return SPS_SUCCESS;
}

/* y <- y + alpha*V h, with h copied to the device scratch first, in chunks of SPS_GEMV_CHUNK
 * columns as on the CPU backend. */
static sps_status cu_gemv_n(sps_context *ctx, int64_t n, int k, double alpha, const double *V,
                            int64_t ldv, const double *h, double *y)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  for (int j0 = 0; j0 < k; j0 += SPS_GEMV_CHUNK) {
    int kk = k - j0 < SPS_GEMV_CHUNK ? k - j0 : SPS_GEMV_CHUNK;
    /* The scratch may still be read by the previous chunk's kernel: order on the stream. */
    SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
    memcpy(cs->host_pinned, h + j0, (size_t)kk * sizeof(double));
    SPS_CUDA(ctx, cudaMemcpyAsync(cs->scratch, cs->host_pinned, (size_t)kk * sizeof(double),
                                  cudaMemcpyHostToDevice, cs->stream));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_gemv_n(cs->stream, cs->reduce_blocks, n, kk, alpha,
                                         V + (int64_t)j0 * ldv, ldv, cs->scratch, y));
  }
  return SPS_SUCCESS;
}

static sps_status cu_cg_alpha(sps_context *ctx, int64_t n, const double *p, const double *q,
                              sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(
      ctx, sps_cuda_cg_alpha(cs->stream, cs->reduce_blocks, n, p, q, S, cs->partials, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_cg_update(sps_context *ctx, int64_t n, const double *p, const double *q,
                               const double *dinv, double *x, double *r, double *z, sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_cg_update(cs->stream, cs->reduce_blocks, n, p, q, dinv, x, r, z, S,
                                          cs->partials, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_cg_direction(sps_context *ctx, int64_t n, const double *z, double *p,
                                  const sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_cg_direction(cs->stream, cs->reduce_blocks, n, z, p, S));
  return SPS_SUCCESS;
}

static sps_status cu_cg_rz(sps_context *ctx, int64_t n, const double *r, const double *z,
                           sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(
      ctx, sps_cuda_cg_rz(cs->stream, cs->reduce_blocks, n, r, z, S, cs->partials, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_gmres_workspace(sps_context *ctx, int64_t n, int m, size_t *ndoubles)
{
  SPS_CHECK_ARG(ctx, n >= 0, "n");
  SPS_CHECK_ARG(ctx, m >= 1, "m");
  SPS_CHECK_ARG(ctx, ndoubles != NULL, "ndoubles");
  if (m > SPS_GMRES_STEPS_MAX_M)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "GMRES steps on the GPU: restart %d exceeds the limit %d of their shared memory", m,
             SPS_GMRES_STEPS_MAX_M);
  *ndoubles = sps_cuda_gmres_workspace(sps_cuda(ctx)->reduce_blocks, m);
  return SPS_SUCCESS;
}

static sps_status cu_gmres_start(sps_context *ctx, int64_t n, const double *r, double *V,
                                 double *vcur, sps_gmres_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(
      ctx, sps_cuda_gmres_start(cs->stream, cs->reduce_blocks, n, r, V, vcur, S, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_gmres_arnoldi(sps_context *ctx, int64_t n, int m, double *V, int64_t ldv,
                                   double *w, double *vcur, sps_gmres_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, m >= 1 && m <= SPS_GMRES_STEPS_MAX_M, "m");
  /* Small n: the whole step in one thread-block cluster (one launch, no global reductions). */
  if (cs->gmres_cluster && sps_cuda_gmres_cluster_fits(n, m)) {
    SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_arnoldi_cluster(cs->stream, n, m, V, ldv, w, vcur, S));
    return SPS_SUCCESS;
  }
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_arnoldi(cs->stream, cs->reduce_blocks, n, m, V, ldv, w, vcur,
                                              S, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_gmres_update(sps_context *ctx, int64_t n, int m, const double *V, int64_t ldv,
                                  sps_gmres_state *S, double *u)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, m >= 1 && m <= SPS_GMRES_STEPS_MAX_M, "m");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_update(cs->stream, cs->reduce_blocks, n, m, V, ldv, S, u));
  return SPS_SUCCESS;
}

static sps_status cu_gmres_store_z(sps_context *ctx, int64_t n, const double *z, double *Z,
                                   int64_t ldz, const sps_gmres_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_store_z(cs->stream, cs->reduce_blocks, n, z, Z, ldz, S));
  return SPS_SUCCESS;
}

/* The fused cycle: one cluster (sm_90 and later), small n and m, int32 row offsets. */
static int fused_shape_ok(sps_context *ctx, const sps_matrix *A, int m)
{
  const struct sps_cuda_state *cs = sps_cuda(ctx);
  return cs->gmres_cluster && A && A->nrows == A->ncols && A->d_rowptr32 && A->rowptr &&
         sps_cuda_gmres_cluster_fits(A->nrows, m);
}

/* ... and the long rows of each block fit its segment list: one pass over the row offsets,
 * so the solver asks once, at setup. */
static int cu_gmres_fused_fits(sps_context *ctx, const sps_matrix *A, int m)
{
  return fused_shape_ok(ctx, A, m) && sps_cuda_gmres_fused_segments_fit(A->nrows, A->rowptr);
}

static sps_status cu_gmres_fused(sps_context *ctx, const sps_matrix *A, int m, double *V,
                                 int64_t ldv, double *w, sps_gmres_state *S, int count)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, fused_shape_ok(ctx, A, m), "A and m (too large for the fused cycle)");
  SPS_CHECK_ARG(ctx, count >= 0, "count");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_cycle_cluster(cs->stream, A->nrows, m, A->d_rowptr32,
                                                    A->d_colind, A->d_values, V, ldv, w, S, count));
  return SPS_SUCCESS;
}

static sps_status cu_bicgstab_step_a(sps_context *ctx, int64_t n, const double *r0hat,
                                     const double *v, const double *r, double *s,
                                     sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_bicgstab_step_a(cs->stream, cs->reduce_blocks, n, r0hat, v, r, s, S,
                                                cs->partials, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_bicgstab_step_b(sps_context *ctx, int64_t n, const double *t, const double *s,
                                     const double *phat, const double *shat, const double *r0hat,
                                     double *x, double *r, sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_bicgstab_step_b(cs->stream, cs->reduce_blocks, n, t, s, phat, shat,
                                                r0hat, x, r, S, cs->partials, cs->ticket));
  return SPS_SUCCESS;
}

static sps_status cu_bicgstab_direction(sps_context *ctx, int64_t n, const double *r,
                                        const double *v, double *p, const sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_bicgstab_direction(cs->stream, cs->reduce_blocks, n, r, v, p, S));
  return SPS_SUCCESS;
}

static sps_status cu_graph_begin(sps_context *ctx)
{
  SPS_CUDA(ctx, cudaStreamBeginCapture(sps_cuda(ctx)->stream, cudaStreamCaptureModeThreadLocal));
  return SPS_SUCCESS;
}

static sps_status cu_graph_end(sps_context *ctx, void **graph)
{
  cudaGraph_t g = NULL;
  cudaGraphExec_t exec = NULL;
  *graph = NULL;
  cudaError_t e = cudaStreamEndCapture(sps_cuda(ctx)->stream, &g);
  if (e != cudaSuccess) {
    /* A capture that something invalidated: clear the error so that later launch checks do
     * not report it, and leave the stream as it was. */
    (void)cudaGetLastError();
    if (g) cudaGraphDestroy(g);
    SPS_FAIL(ctx, SPS_ERR_CUDA, "cudaStreamEndCapture: %s", cudaGetErrorString(e));
  }
  e = cudaGraphInstantiate(&exec, g, 0);
  cudaGraphDestroy(g);
  if (e != cudaSuccess)
    SPS_FAIL(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
             "cudaGraphInstantiate: %s", cudaGetErrorString(e));
  /* Upload now, at setup, so that the first replay in a solve does not pay for it. */
  e = cudaGraphUpload(exec, sps_cuda(ctx)->stream);
  if (e != cudaSuccess) {
    cudaGraphExecDestroy(exec);
    SPS_FAIL(ctx, SPS_ERR_CUDA, "cudaGraphUpload: %s", cudaGetErrorString(e));
  }
  *graph = exec;
  return SPS_SUCCESS;
}

static sps_status cu_graph_launch(sps_context *ctx, void *graph)
{
  SPS_CUDA(ctx, cudaGraphLaunch((cudaGraphExec_t)graph, sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

static sps_status cu_timer_start(sps_context *ctx)
{
  SPS_CUDA(ctx, cudaEventRecord(sps_cuda(ctx)->timer_start, sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

static sps_status cu_timer_stop(sps_context *ctx, double *seconds)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  float ms = 0.0f;
  SPS_CUDA(ctx, cudaEventRecord(cs->timer_stop, cs->stream));
  SPS_CUDA(ctx, cudaEventSynchronize(cs->timer_stop));
  SPS_CUDA(ctx, cudaEventElapsedTime(&ms, cs->timer_start, cs->timer_stop));
  *seconds = 1e-3 * (double)ms;
  return SPS_SUCCESS;
}

static void cu_graph_destroy(sps_context *ctx, void *graph)
{
  (void)ctx;
  if (graph) cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

/* The host-ended reductions (core/cuda/split_steps.cu) shared by the split steps of a
 * distributed context and by pipelined CG. */
/* The pinned copy of the state block read by dist_read. */
static void *dist_state(sps_context *ctx)
{
  const struct sps_cuda_state *cs = sps_cuda(ctx);
  return cs->dist_host + 2 * (size_t)SPS_CUDA_SPLIT_SUMS * cs->reduce_blocks;
}

/*
 * Read back k partials of each of the grid's blocks, and the state block S (state_bytes; none
 * when 0) into dist_state(ctx); sums[l] <- partial l merged over the blocks in block order.
 */
static sps_status dist_read(sps_context *ctx, unsigned grid, int k, const void *S,
                            size_t state_bytes, sps_csum *sums)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA(ctx, cudaMemcpyAsync(cs->dist_host, cs->dist_partials,
                                2 * (size_t)k * grid * sizeof(double), cudaMemcpyDeviceToHost,
                                cs->stream));
  if (state_bytes)
    SPS_CUDA(ctx, cudaMemcpyAsync(dist_state(ctx), S, state_bytes, cudaMemcpyDeviceToHost,
                                  cs->stream));
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  for (int l = 0; l < k; l++) {
    sps_csum acc = sps_csum_zero();
    for (unsigned b = 0; b < grid; b++) {
      sps_csum o;
      o.hi = cs->dist_host[2 * ((size_t)l * grid + b)];
      o.lo = cs->dist_host[2 * ((size_t)l * grid + b) + 1];
      sps_csum_merge(&acc, o);
    }
    sums[l] = acc;
  }
  return SPS_SUCCESS;
}

/* Write the pinned state copy back to S (ordered on the stream before the next kernels). */
static sps_status dist_write_state(sps_context *ctx, void *S, size_t bytes)
{
  SPS_CUDA(ctx, cudaMemcpyAsync(S, dist_state(ctx), bytes, cudaMemcpyHostToDevice,
                                sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

/*
 * The host closes a step on the pinned copy of the state, whose history pointer is device
 * memory: detach_history takes the pointer out before the close (so the shared close code
 * writes no history) and put_history puts it back and copies ||r|| = sqrt(rr) of the new
 * iteration to history[it] on the stream (from pageable memory: the copy has taken the value
 * when cudaMemcpyAsync returns).
 */
static double *detach_history(double **history)
{
  double *h = *history;
  *history = NULL;
  return h;
}

static sps_status put_history(sps_context *ctx, double **history, double *h, int32_t it,
                              double rr)
{
  *history = h;
  if (!h) return SPS_SUCCESS;
  const double norm = sqrt(rr);
  SPS_CUDA(ctx, cudaMemcpyAsync(h + it, &norm, sizeof norm, cudaMemcpyHostToDevice,
                                sps_cuda(ctx)->stream));
  return SPS_SUCCESS;
}

/* Launch the dots kernel for k <= 4 pairs, partials at column offset col. */
static sps_status dist_dots(sps_context *ctx, int64_t n, int k, const double *const *x,
                            const double *const *y, int col)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_dots(cs->stream, cs->reduce_blocks, n, k, x, y,
                                          cs->dist_partials + 2 * (size_t)col * grid));
  return SPS_SUCCESS;
}

/* out[l] <- the compensated sums of x[l].y[l] (l < k <= 4), merged over the blocks. */
static sps_status cu_dots_local(sps_context *ctx, int64_t n, int k, const double *const *x,
                                const double *const *y, sps_csum *out)
{
  const unsigned grid = sps_cuda_dist_grid(n, sps_cuda(ctx)->reduce_blocks);
  SPS_CHECK(dist_dots(ctx, n, k, x, y, 0));
  return dist_read(ctx, grid, k, NULL, 0, out);
}

static sps_status cu_pipecg_update(sps_context *ctx, int64_t n, double alpha, double beta,
                                   const double *nv, const double *mv, double *z, double *q,
                                   double *s, double *p, double *x, double *r, double *u,
                                   double *w, sps_csum *out)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_pipecg_update(cs->stream, cs->reduce_blocks, n, alpha, beta, nv,
                                              mv, z, q, s, p, x, r, u, w, cs->dist_partials));
  return dist_read(ctx, grid, 3, NULL, 0, out);
}

/* The entries both CUDA tables share: memory, the elementwise operations and the steps that
 * reduce nothing (the distributed table below replaces every reduction with a split one). */
#define SPS_CUDA_SHARED_OPS                                                                \
  .name = "cuda", .malloc = cu_malloc, .free = cu_free, .scratch_malloc = cu_scratch_malloc, \
  .scratch_free = cu_scratch_free, .scratch_release = cu_scratch_release, .upload = cu_upload, \
  .download = cu_download, .copy_bytes = cu_copy_bytes, .synchronize = cu_synchronize,   \
  .check_memory = cu_check_memory, .fill = cu_fill, .copy = cu_copy, .scal = cu_scal,    \
  .axpy = cu_axpy, .axpby = cu_axpby, .pointwise_mult = cu_pointwise_mult,               \
  .gather = cu_gather, .gemv_n = cu_gemv_n, .cg_direction = cu_cg_direction,             \
  .bicgstab_direction = cu_bicgstab_direction, .timer_start = cu_timer_start,            \
  .timer_stop = cu_timer_stop, .dots_local = cu_dots_local,                               \
  .pipecg_update = cu_pipecg_update, .block = &sps_block_backend_cuda

const sps_backend sps_backend_cuda = {
    SPS_CUDA_SHARED_OPS,
    .dot = cu_dot,
    .nrm2 = cu_nrm2,
    .dot_store = cu_dot_store,
    .sumsq_store = cu_sumsq_store,
    .gemv_t = cu_gemv_t,
    .cg_alpha = cu_cg_alpha,
    .cg_update = cu_cg_update,
    .cg_rz = cu_cg_rz,
    .gmres_workspace = cu_gmres_workspace,
    .gmres_start = cu_gmres_start,
    .gmres_arnoldi = cu_gmres_arnoldi,
    .gmres_update = cu_gmres_update,
    .gmres_store_z = cu_gmres_store_z,
    .gmres_fused_fits = cu_gmres_fused_fits,
    .gmres_fused = cu_gmres_fused,
    .bicgstab_step_a = cu_bicgstab_step_a,
    .bicgstab_step_b = cu_bicgstab_step_b,
    .graph_begin = cu_graph_begin,
    .graph_end = cu_graph_end,
    .graph_launch = cu_graph_launch,
    .graph_destroy = cu_graph_destroy,
};

#ifdef SPS_HAVE_MPI
/*
 * The split reductions of a distributed context with more than one rank. A reduction's sums
 * must meet the other ranks' on the host, so the steps run in three parts: a kernel of
 * core/cuda/split_steps.cu leaves per-block partial sums (and does the step's elementwise
 * work), the host reads them back with the state block, merges the blocks and the ranks
 * (sps_comm_sum), closes the step with core/krylov_state.h's functions, and writes the state
 * back. Each costs a host synchronisation, so the batches of iterations are not captured in
 * graphs here (the table has no graph entries). GMRES's steps are the CPU backend's, split the
 * same way (below).
 */

static sps_status cud_dot(sps_context *ctx, int64_t n, const double *x, const double *y,
                          double *result)
{
  const unsigned grid = sps_cuda_dist_grid(n, sps_cuda(ctx)->reduce_blocks);
  sps_csum s;
  SPS_CHECK(dist_dots(ctx, n, 1, &x, &y, 0));
  SPS_CHECK(dist_read(ctx, grid, 1, NULL, 0, &s));
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  *result = sps_csum_value(s);
  return SPS_SUCCESS;
}

/* sum (x_i c)^2 merged over the blocks, and max |x_i| and the NaN flag over them. */
static sps_status dist_sumsq(sps_context *ctx, int64_t n, const double *x, double c, sps_csum *s,
                             double mx[2])
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_sumsq(cs->stream, cs->reduce_blocks, n, x, c, cs->dist_partials));
  sps_csum two[2]; /* two[1] merges (max, NaN) pairs as sums: unused, read below instead */
  SPS_CHECK(dist_read(ctx, grid, 2, NULL, 0, two));
  *s = two[0];
  mx[0] = 0.0;
  mx[1] = 0.0;
  for (unsigned b = 0; b < grid; b++) {
    const double m = cs->dist_host[2 * ((size_t)grid + b)], q = cs->dist_host[2 * ((size_t)grid + b) + 1];
    if (m > mx[0]) mx[0] = m;
    if (q > mx[1]) mx[1] = q;
  }
  return SPS_SUCCESS;
}

/* ||x|| as cpu_nrm2 forms it: the sum of squares and max |x_i| over the ranks, a second
 * scaled pass when the squares leave the exponent range. */
static sps_status cud_nrm2(sps_context *ctx, int64_t n, const double *x, double *result)
{
  sps_csum s;
  double mx[2];
  SPS_CHECK(dist_sumsq(ctx, n, x, 1.0, &s, mx));
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, mx, 2));
  const int e = mx[1] != 0.0 ? 0 : sps_nrm2_scale_exponent(mx[0]);
  if (e == 0) {
    *result = sqrt(sps_csum_value(s));
    return SPS_SUCCESS;
  }
  SPS_CHECK(dist_sumsq(ctx, n, x, ldexp(1.0, -e), &s, mx));
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  *result = ldexp(sqrt(sps_csum_value(s)), e);
  return SPS_SUCCESS;
}

/* out[l] <- x[l].y merged over the blocks and the ranks, l < k: four per pass, up to
 * SPS_COMM_MAX_SUMS per exchange. */
static sps_status dist_dots_with(sps_context *ctx, int64_t n, int k, const double *const *x,
                                 const double *y, double *out)
{
  const unsigned grid = sps_cuda_dist_grid(n, sps_cuda(ctx)->reduce_blocks);
  sps_csum sums[SPS_COMM_MAX_SUMS];
  for (int c0 = 0; c0 < k; c0 += SPS_COMM_MAX_SUMS) {
    const int cc = k - c0 < SPS_COMM_MAX_SUMS ? k - c0 : SPS_COMM_MAX_SUMS;
    for (int j0 = 0; j0 < cc; j0 += 4) {
      const int kk = cc - j0 < 4 ? cc - j0 : 4;
      const double *ys[4] = {y, y, y, y};
      SPS_CHECK(dist_dots(ctx, n, kk, x + c0 + j0, ys, j0));
    }
    SPS_CHECK(dist_read(ctx, grid, cc, NULL, 0, sums));
    SPS_CHECK(sps_comm_sum(ctx, sums, cc, NULL, 0));
    for (int j = 0; j < cc; j++) out[c0 + j] = sps_csum_value(sums[j]);
  }
  return SPS_SUCCESS;
}

/* h <- V^T x: the columns of V as dist_dots_with's list, SPS_COMM_MAX_SUMS at a time. */
static sps_status cud_gemv_t(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                             const double *x, double *h)
{
  const double *cols[SPS_COMM_MAX_SUMS];
  for (int c0 = 0; c0 < k; c0 += SPS_COMM_MAX_SUMS) {
    const int cc = k - c0 < SPS_COMM_MAX_SUMS ? k - c0 : SPS_COMM_MAX_SUMS;
    for (int j = 0; j < cc; j++) cols[j] = V + (int64_t)(c0 + j) * ldv;
    SPS_CHECK(dist_dots_with(ctx, n, cc, cols, x, h + c0));
  }
  return SPS_SUCCESS;
}

/*
 * With the reductions over NCCL the CG steps keep their ends on the device
 * (core/cuda/dist_close.cu): the kernel's block partials are folded into this rank's pairs,
 * NCCL gathers every rank's on the stream, and a kernel merges them in rank order and closes
 * the step on the device's state, as the host does below. No host wait: the solver issues its
 * batches as on one GPU. step: 0 cg_alpha, 1 cg_update, 2 cg_rz; k: the step's sums.
 */
static int dist_on_device(const sps_context *ctx)
{
  return ctx->comm->reduce_device && ctx->comm->nccl;
}

/* 1 while the context's stream is being captured. */
static int dist_capturing(const sps_context *ctx)
{
  enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(sps_cuda(ctx)->stream, &cap) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return cap != cudaStreamCaptureStatusNone;
}

/* The k block sums of the kernel just issued (grid blocks) folded, and every rank's gathered
 * into *all on the device. */
static sps_status dist_fold_gather(sps_context *ctx, unsigned grid, int k, const double **all)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  double *send = NULL, *recv = NULL;
  sps_nccl_reduce_buffers(ctx, &send, &recv);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_fold(cs->stream, cs->dist_partials, grid, k, send));
  SPS_CHECK(sps_nccl_allgather_device(ctx, 2 * k));
  *all = recv;
  return SPS_SUCCESS;
}

static sps_status dist_close_on_device(sps_context *ctx, unsigned grid, int k, int step,
                                       int has_dinv, sps_cg_state *S)
{
  const double *all;
  SPS_CHECK(dist_fold_gather(ctx, grid, k, &all));
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_cg_close(sps_cuda(ctx)->stream, step, all, ctx->comm->size,
                                              has_dinv, S));
  return SPS_SUCCESS;
}

/* BiCGSTAB's close `step` (core/cuda/dist_close.cu) after the fold and the gather of k sums. */
static sps_status dist_bicgstab_close(sps_context *ctx, unsigned grid, int k, int step,
                                      sps_bicgstab_state *S)
{
  const double *all;
  SPS_CHECK(dist_fold_gather(ctx, grid, k, &all));
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_bicgstab_close(sps_cuda(ctx)->stream, step, all,
                                                    ctx->comm->size, S));
  return SPS_SUCCESS;
}

static sps_status cud_cg_alpha(sps_context *ctx, int64_t n, const double *p, const double *q,
                               sps_cg_state *S)
{
  const unsigned grid = sps_cuda_dist_grid(n, sps_cuda(ctx)->reduce_blocks);
  sps_csum s;
  SPS_CHECK(dist_dots(ctx, n, 1, &p, &q, 0));
  if (dist_on_device(ctx)) return dist_close_on_device(ctx, grid, 1, 0, 0, S);
  SPS_CHECK(dist_read(ctx, grid, 1, S, sizeof *S, &s));
  sps_cg_state *h = dist_state(ctx);
  if (h->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  sps_cg_close_alpha(h, sps_csum_value(s));
  return dist_write_state(ctx, S, sizeof *S);
}

static sps_status cud_cg_update(sps_context *ctx, int64_t n, const double *p, const double *q,
                                const double *dinv, double *x, double *r, double *z,
                                sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  sps_csum sums[2];
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_cg_update(cs->stream, cs->reduce_blocks, n, p, q, dinv, x, r,
                                               z, S, cs->dist_partials));
  if (dist_on_device(ctx)) return dist_close_on_device(ctx, grid, 2, 1, dinv != NULL, S);
  SPS_CHECK(dist_read(ctx, grid, 2, S, sizeof *S, sums));
  sps_cg_state *h = dist_state(ctx);
  if (h->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  SPS_CHECK(sps_comm_sum(ctx, sums, 2, NULL, 0));
  const double rr = sps_csum_value(sums[0]);
  double *history = detach_history(&h->history);
  sps_cg_close_update(h, rr, dinv && !h->deferred ? sps_csum_value(sums[1]) : rr);
  SPS_CHECK(put_history(ctx, &h->history, history, h->it, h->rr));
  return dist_write_state(ctx, S, sizeof *S);
}

static sps_status cud_cg_rz(sps_context *ctx, int64_t n, const double *r, const double *z,
                            sps_cg_state *S)
{
  const unsigned grid = sps_cuda_dist_grid(n, sps_cuda(ctx)->reduce_blocks);
  sps_csum s;
  SPS_CHECK(dist_dots(ctx, n, 1, &r, &z, 0));
  if (dist_on_device(ctx)) return dist_close_on_device(ctx, grid, 1, 2, 0, S);
  SPS_CHECK(dist_read(ctx, grid, 1, S, sizeof *S, &s));
  sps_cg_state *h = dist_state(ctx);
  if (h->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  sps_cg_close_rz(h, sps_csum_value(s));
  return dist_write_state(ctx, S, sizeof *S);
}

static sps_status cud_bicgstab_step_a(sps_context *ctx, int64_t n, const double *r0hat,
                                      const double *v, const double *r, double *s,
                                      sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  sps_csum sum;
  SPS_CHECK(dist_dots(ctx, n, 1, &r0hat, &v, 0));
  if (dist_on_device(ctx)) {
    /* sigma and alpha; s <- r - alpha v and ss, each kernel idle once the state stopped */
    SPS_CHECK(dist_bicgstab_close(ctx, grid, 1, 0, S));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_bicgstab_s(cs->stream, cs->reduce_blocks, n, r, v, s, S,
                                                  cs->dist_partials));
    return dist_bicgstab_close(ctx, grid, 1, 1, S);
  }
  SPS_CHECK(dist_read(ctx, grid, 1, S, sizeof *S, &sum));
  sps_bicgstab_state *h = dist_state(ctx);
  if (h->status != SPS_BICGSTAB_RUNNING) return SPS_SUCCESS;
  SPS_CHECK(sps_comm_sum(ctx, &sum, 1, NULL, 0));
  const int go = sps_bicgstab_close_alpha(h, sps_csum_value(sum));
  SPS_CHECK(dist_write_state(ctx, S, sizeof *S));
  if (!go) return SPS_SUCCESS;
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_bicgstab_s(cs->stream, cs->reduce_blocks, n, r, v, s, S,
                                                cs->dist_partials));
  SPS_CHECK(dist_read(ctx, grid, 1, S, sizeof *S, &sum));
  h = dist_state(ctx);
  SPS_CHECK(sps_comm_sum(ctx, &sum, 1, NULL, 0));
  sps_bicgstab_close_s(h, sps_csum_value(sum));
  return dist_write_state(ctx, S, sizeof *S);
}

static sps_status cud_bicgstab_step_b(sps_context *ctx, int64_t n, const double *t,
                                      const double *s, const double *phat, const double *shat,
                                      const double *r0hat, double *x, double *r,
                                      sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  const unsigned grid = sps_cuda_dist_grid(n, cs->reduce_blocks);
  sps_csum sums[2];
  const double *xs[2] = {t, t}, *ys[2] = {s, t};
  SPS_CHECK(dist_dots(ctx, n, 2, xs, ys, 0));
  if (dist_on_device(ctx)) {
    /* omega (unless the half step), the update, rr and rho_new, the step's end */
    SPS_CHECK(dist_bicgstab_close(ctx, grid, 2, 2, S));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_bicgstab_update(cs->stream, cs->reduce_blocks, n, t, s,
                                                       phat, shat, r0hat, x, r, S,
                                                       cs->dist_partials));
    return dist_bicgstab_close(ctx, grid, 2, 3, S);
  }
  SPS_CHECK(dist_read(ctx, grid, 2, S, sizeof *S, sums));
  sps_bicgstab_state *h = dist_state(ctx);
  if (h->status != SPS_BICGSTAB_RUNNING) return SPS_SUCCESS;
  if (!h->half) {
    /* ||s|| did not pass: omega from (t, s) and (t, t) over the ranks */
    SPS_CHECK(sps_comm_sum(ctx, sums, 2, NULL, 0));
    const int go = sps_bicgstab_close_omega(h, sps_csum_value(sums[0]), sps_csum_value(sums[1]));
    SPS_CHECK(dist_write_state(ctx, S, sizeof *S));
    if (!go) return SPS_SUCCESS;
  }
  SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_bicgstab_update(cs->stream, cs->reduce_blocks, n, t, s, phat,
                                                     shat, r0hat, x, r, S, cs->dist_partials));
  SPS_CHECK(dist_read(ctx, grid, 2, S, sizeof *S, sums));
  h = dist_state(ctx);
  double *history = detach_history(&h->history);
  if (h->half) {
    sps_bicgstab_close_step(h, h->ss, h->rho);
  } else {
    sps_status st = sps_comm_sum(ctx, sums, 2, NULL, 0);
    if (st != SPS_SUCCESS) {
      h->history = history;
      return st;
    }
    sps_bicgstab_close_step(h, sps_csum_value(sums[0]), sps_csum_value(sums[1]));
  }
  SPS_CHECK(put_history(ctx, &h->history, history, h->it, h->rr));
  return dist_write_state(ctx, S, sizeof *S);
}

/*
 * GMRES's steps on a distributed context: the CPU backend's steps (core/backend_cpu.c,
 * cpu_gmres_*) with their reductions split as above. Each reduction is a split one (the dots'
 * partials on the device, merged over the blocks and the ranks on the host), each vector
 * update the kernel the CPU's gives the bits of (gemv_n in SPS_GEMV_CHUNK columns, copies and
 * scalings), and each column is closed on the host by the shared sps_gmres_close_column on a
 * host copy of the state: the struct and the arrays the close reads and writes (g, the
 * rotations), read before and written back after with the column of H and R and the
 * history's entry. So the iterations and the bits are the CPU's, and the single GPU
 * process's, on any number of ranks.
 */

/* The host copy of a distributed GMRES state: the device's struct in dev, the same with host
 * arrays g, cs, sn (read from the device) in h, the history detached. */
typedef struct dist_gmres {
  sps_gmres_state dev, h;
  double *buf; /* 3 (m + 1) doubles: g, cs, sn */
} dist_gmres;

static sps_status dist_gmres_read(sps_context *ctx, const sps_gmres_state *S, dist_gmres *G)
{
  G->buf = NULL;
  SPS_CHECK(cu_download(ctx, &G->dev, S, sizeof *S));
  const size_t m1 = (size_t)G->dev.m + 1;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&G->buf, 3 * m1, sizeof(double), "GMRES state on the host"));
  G->h = G->dev;
  G->h.g = G->buf;
  G->h.cs = G->buf + m1;
  G->h.sn = G->buf + 2 * m1;
  G->h.history = NULL;
  G->h.H = G->h.R = G->h.y = G->h.work = NULL;
  sps_status st = cu_download(ctx, G->h.g, G->dev.g, m1 * sizeof(double));
  if (!st && G->dev.m > 0) st = cu_download(ctx, G->h.cs, G->dev.cs, (m1 - 1) * sizeof(double));
  if (!st && G->dev.m > 0) st = cu_download(ctx, G->h.sn, G->dev.sn, (m1 - 1) * sizeof(double));
  if (st) sps_host_free(G->buf);
  return st;
}

/* Write the host copy back: the arrays, the history's entry it (the residual estimate) when
 * `hist`, the scalars of the struct with the device's pointers. Frees the host arrays. */
static sps_status dist_gmres_write(sps_context *ctx, sps_gmres_state *S, dist_gmres *G, int hist,
                                   double value)
{
  const size_t m1 = (size_t)G->dev.m + 1;
  sps_gmres_state out = G->h;
  out.g = G->dev.g;
  out.cs = G->dev.cs;
  out.sn = G->dev.sn;
  out.history = G->dev.history;
  out.H = G->dev.H;
  out.R = G->dev.R;
  out.y = G->dev.y;
  out.work = G->dev.work;
  sps_status st = cu_upload(ctx, out.g, G->h.g, m1 * sizeof(double));
  if (!st && G->dev.m > 0) st = cu_upload(ctx, out.cs, G->h.cs, (m1 - 1) * sizeof(double));
  if (!st && G->dev.m > 0) st = cu_upload(ctx, out.sn, G->h.sn, (m1 - 1) * sizeof(double));
  if (!st && hist && out.history && out.it <= out.maxit)
    st = cu_upload(ctx, out.history + out.it, &value, sizeof value);
  if (!st) st = cu_upload(ctx, S, &out, sizeof out);
  sps_host_free(G->buf);
  G->buf = NULL;
  return st;
}

/* a = b <- x inv (x, a, b of n entries; a and b apart from x): a basis vector and vcur. */
static sps_status dist_scale_into_two(sps_context *ctx, int64_t n, double inv, const double *x,
                                      double *a, double *b)
{
  SPS_CHECK(cu_copy(ctx, n, x, a));
  SPS_CHECK(cu_scal(ctx, n, inv, a));
  return cu_copy(ctx, n, a, b);
}

/* Room for the device-kept steps too (their block partials), whichever transport the solve
 * finds: set_transport may change it between setup and solve. */
static sps_status cud_gmres_workspace(sps_context *ctx, int64_t n, int m, size_t *ndoubles)
{
  SPS_CHECK_ARG(ctx, n >= 0, "n");
  SPS_CHECK_ARG(ctx, m >= 1, "m");
  SPS_CHECK_ARG(ctx, ndoubles != NULL, "ndoubles");
  const size_t dev = sps_cuda_gmres_workspace(sps_cuda(ctx)->reduce_blocks, m);
  *ndoubles = dev > (size_t)m + 1 ? dev : (size_t)m + 1;
  return SPS_SUCCESS;
}

/*
 * With the reductions over NCCL, GMRES's steps keep their ends on the device as CG's do: the
 * single GPU's fused kernels (core/cuda/gmres_steps.cu) run on this rank's rows and stop at
 * their block partials, which are folded, gathered from every rank by NCCL and merged in rank
 * order by a kernel that closes the step on the device's state. Three exchanges an Arnoldi
 * step (dots, the second pass, the norm), none waited for on the host. For restarts whose
 * m + 2 sums fit one exchange.
 */
static int gmres_on_device(const sps_context *ctx, int m)
{
  return dist_on_device(ctx) && m >= 1 && m + 2 <= SPS_COMM_MAX_SUMS &&
         m <= SPS_GMRES_STEPS_MAX_M;
}

/* One step's reduction kept on the device (kk pairs a rank in the exchange). */
static sps_status gmres_dist_step(sps_context *ctx, int64_t n, int m, int step, int kk,
                                  const double *r, double *V, int64_t ldv, double *w,
                                  sps_gmres_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  double *send = NULL, *recv = NULL;
  sps_nccl_reduce_buffers(ctx, &send, &recv);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_dist_reduce(cs->stream, cs->reduce_blocks, n, m, step, r, V,
                                                  ldv, w, S, kk, send));
  SPS_CHECK(sps_nccl_allgather_device(ctx, 2 * kk));
  SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_dist_close(cs->stream, m, step, recv, ctx->comm->size, kk, S));
  return SPS_SUCCESS;
}

/* beta <- sqrt(r.r), the cycle opened (sps_gmres_open_cycle); v_0 = r / beta into V(:, 0) and
 * vcur. */
static sps_status cud_gmres_start(sps_context *ctx, int64_t n, const double *r, double *V,
                                  double *vcur, sps_gmres_state *S)
{
  if (dist_on_device(ctx)) {
    /* beta over the ranks and the cycle opened on the device, then v_0 = r / beta */
    SPS_CHECK(gmres_dist_step(ctx, n, 1, 0, 1, r, NULL, 0, NULL, S));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_dist_vector(sps_cuda(ctx)->stream,
                                                    sps_cuda(ctx)->reduce_blocks, n, 0, r, V, 0,
                                                    vcur, S));
    return SPS_SUCCESS;
  }
  double rr;
  SPS_CHECK(cud_dot(ctx, n, r, r, &rr));
  const double beta = sqrt(rr);
  dist_gmres G;
  SPS_CHECK(dist_gmres_read(ctx, S, &G));
  sps_gmres_open_cycle(&G.h, beta);
  const int running = G.h.status == SPS_GMRES_RUNNING;
  SPS_CHECK(dist_gmres_write(ctx, S, &G, 1, beta));
  if (!running) return SPS_SUCCESS;
  return dist_scale_into_two(ctx, n, 1.0 / beta, r, V, vcur);
}

/* One CGS2 Arnoldi step on column j = S->j, as cpu_gmres_arnoldi: [w.w, V_j^T w] in one
 * exchange, w -= V_j h, h2 = V_j^T w, w -= V_j h2, w.w; the column closed on the host. */
static sps_status cud_gmres_arnoldi(sps_context *ctx, int64_t n, int m, double *V, int64_t ldv,
                                    double *w, double *vcur, sps_gmres_state *S)
{
  if (gmres_on_device(ctx, m)) {
    for (int step = 1; step <= 3; step++)
      SPS_CHECK(gmres_dist_step(ctx, n, m, step, m + 2, NULL, V, ldv, w, S));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_gmres_dist_vector(sps_cuda(ctx)->stream,
                                                    sps_cuda(ctx)->reduce_blocks, n, 3, w, V, ldv,
                                                    vcur, S));
    return SPS_SUCCESS;
  }
  /* the host path waits on the host: not in a graph (the solver then captures none) */
  if (dist_capturing(ctx)) return SPS_ERR_UNSUPPORTED;
  dist_gmres G;
  SPS_CHECK(dist_gmres_read(ctx, S, &G));
  if (G.h.status != SPS_GMRES_RUNNING) {
    sps_host_free(G.buf);
    return SPS_SUCCESS;
  }
  const int j = G.h.j, nc = j + 1, ldh = G.h.m + 1;
  sps_status st = SPS_SUCCESS;
  const double **xs = NULL;
  double *h = NULL; /* (m + 1) H(:, j), then (m + 1) h2, then (m + 2) the dots */
  st = sps_host_alloc(ctx, (void **)&xs, (size_t)nc + 1, sizeof *xs, "GMRES columns");
  if (!st) st = sps_host_calloc(ctx, (void **)&h, 3 * (size_t)ldh + 1, sizeof *h, "GMRES column");
  if (st) goto cleanup;
  double *h2 = h + ldh, *d = h + 2 * ldh, ww;
  xs[0] = w;
  for (int i = 0; i < nc; i++) xs[i + 1] = V + (int64_t)i * ldv;
  SPS_TRY(dist_dots_with(ctx, n, nc + 1, xs, w, d));
  ww = d[0];
  for (int i = 0; i < nc; i++) h[i] = d[i + 1];
  G.h.wnorm = sqrt(ww);
  SPS_TRY(cu_gemv_n(ctx, n, nc, -1.0, V, ldv, h, w));
  SPS_TRY(cud_gemv_t(ctx, n, nc, V, ldv, w, h2));
  SPS_TRY(cu_gemv_n(ctx, n, nc, -1.0, V, ldv, h2, w));
  SPS_TRY(cud_dot(ctx, n, w, w, &ww));
  for (int i = 0; i < nc; i++) h[i] += h2[i];
  G.h.hnext = sqrt(ww);
  h[j + 1] = G.h.hnext;
  /* H(0:j+1, j) as formed, R(0:j+1, j) = the same rotated */
  SPS_TRY(cu_upload(ctx, G.dev.H + (int64_t)j * ldh, h, (size_t)(j + 2) * sizeof *h));
  sps_gmres_close_column(&G.h, h, G.h.cs, G.h.sn);
  SPS_TRY(cu_upload(ctx, G.dev.R + (int64_t)j * ldh, h, (size_t)(j + 2) * sizeof *h));
  const int closed = G.h.it != G.dev.it, vnext = G.h.vnext;
  G.h.vnext = 0;
  const double hnext = G.h.hnext;
  SPS_TRY(dist_gmres_write(ctx, S, &G, closed, G.h.resid));
  if (vnext) SPS_TRY(dist_scale_into_two(ctx, n, 1.0 / hnext, w, V + (int64_t)(j + 1) * ldv, vcur));
cleanup:
  sps_host_free(G.buf);
  sps_host_free(xs);
  sps_host_free(h);
  return st;
}

/* k = S->j: y <- R_k^-1 g_k (on the host, as cpu_gmres_update), u <- V_k y. */
static sps_status cud_gmres_update(sps_context *ctx, int64_t n, int m, const double *V,
                                   int64_t ldv, sps_gmres_state *S, double *u)
{
  /* no reduction: the single GPU's back substitution and combination, same bits as below */
  if (dist_on_device(ctx) && m <= SPS_GMRES_STEPS_MAX_M) return cu_gmres_update(ctx, n, m, V, ldv, S, u);
  sps_gmres_state d;
  SPS_CHECK(cu_download(ctx, &d, S, sizeof d));
  if (d.status == SPS_GMRES_NAN) return SPS_SUCCESS;
  const int k = d.j, ldh = d.m + 1;
  sps_status st = SPS_SUCCESS;
  double *R = NULL, *g = NULL, *y = NULL;
  st = sps_host_alloc(ctx, (void **)&R, (size_t)ldh * (size_t)(k > 0 ? k : 1), sizeof *R, "GMRES R");
  if (!st) st = sps_host_alloc(ctx, (void **)&g, (size_t)ldh, sizeof *g, "GMRES g");
  if (!st) st = sps_host_alloc(ctx, (void **)&y, (size_t)ldh, sizeof *y, "GMRES y");
  if (st) goto cleanup;
  SPS_TRY(cu_download(ctx, R, d.R, (size_t)ldh * (size_t)k * sizeof *R));
  SPS_TRY(cu_download(ctx, g, d.g, (size_t)ldh * sizeof *g));
  /* for i = k-1 .. 0: y_i = t_i / r_ii; t_l -= r_li y_i (l < i), t = g */
  for (int i = k - 1; i >= 0; i--) {
    const double *ri = R + (int64_t)i * ldh;
    const double yi = g[i] / ri[i];
    y[i] = yi;
    for (int l = 0; l < i; l++) g[l] -= ri[l] * yi;
  }
  SPS_TRY(cu_upload(ctx, d.y, y, (size_t)k * sizeof *y));
  SPS_TRY(cu_fill(ctx, n, 0.0, u));
  st = cu_gemv_n(ctx, n, k, 1.0, V, ldv, y, u);
cleanup:
  sps_host_free(R);
  sps_host_free(g);
  sps_host_free(y);
  return st;
}

/* Flexible GMRES: Z(:, j) <- z for j = S->j, while the cycle runs. */
static sps_status cud_gmres_store_z(sps_context *ctx, int64_t n, const double *z, double *Z,
                                    int64_t ldz, const sps_gmres_state *S)
{
  if (dist_on_device(ctx)) return cu_gmres_store_z(ctx, n, z, Z, ldz, S);
  sps_gmres_state d;
  SPS_CHECK(cu_download(ctx, &d, S, sizeof d));
  if (d.status != SPS_GMRES_RUNNING) return SPS_SUCCESS;
  return cu_copy(ctx, n, z, Z + (int64_t)d.j * ldz);
}

/*
 * Graphs on a distributed context. Where nothing in an iteration waits on the host (the halo
 * and the steps' reductions over NCCL) and no timeline is kept, the solvers' iterations are
 * captured as on one GPU, NCCL's kernels with them, and replayed: no launch gaps between the
 * dozen kernels and three NCCL operations of an iteration. Elsewhere graph_begin says
 * SPS_ERR_UNSUPPORTED and the solvers capture nothing; a step that would wait on the host
 * during a capture says the same (GMRES with a restart too long for one exchange), and the
 * solver drops the graph. A graph keeps the transports it was captured under and what one
 * replay counts (halo exchanges, their bytes, reductions): a replay adds those to the
 * clocks, and a replay under other transports, or with a timeline on, is refused with
 * SPS_ERR_UNSUPPORTED, on which the solvers issue those iterations one by one.
 */
typedef struct dist_graph {
  cudaGraphExec_t exec;
  int halo_nccl, reduce_device;
  int64_t halo_exchanges, halo_bytes, reductions;
} dist_graph;

static int dist_graphs_serve(const sps_context *ctx)
{
  const struct sps_comm *c = ctx->comm;
  return c->nccl && c->halo_nccl && c->reduce_device && !c->events;
}

static sps_status cud_graph_begin(sps_context *ctx)
{
  if (!dist_graphs_serve(ctx)) return SPS_ERR_UNSUPPORTED;
  ctx->comm->capture_times = ctx->comm->times;
  return cu_graph_begin(ctx);
}

static sps_status cud_graph_end(sps_context *ctx, void **graph)
{
  struct sps_comm *c = ctx->comm;
  const sps_comm_times during = c->times;
  c->times = c->capture_times; /* the capture ran nothing */
  *graph = NULL;
  void *exec = NULL;
  SPS_CHECK(cu_graph_end(ctx, &exec));
  dist_graph *g = NULL;
  const sps_status st = sps_host_calloc(ctx, (void **)&g, 1, sizeof *g, "graph");
  if (st) {
    cudaGraphExecDestroy((cudaGraphExec_t)exec);
    return st;
  }
  g->exec = (cudaGraphExec_t)exec;
  g->halo_nccl = c->halo_nccl;
  g->reduce_device = c->reduce_device;
  g->halo_exchanges = during.halo_exchanges - c->times.halo_exchanges;
  g->halo_bytes = during.halo_bytes - c->times.halo_bytes;
  g->reductions = during.reductions - c->times.reductions;
  *graph = g;
  return SPS_SUCCESS;
}

static sps_status cud_graph_launch(sps_context *ctx, void *graph)
{
  struct sps_comm *c = ctx->comm;
  const dist_graph *g = graph;
  if (!dist_graphs_serve(ctx) || g->halo_nccl != c->halo_nccl ||
      g->reduce_device != c->reduce_device)
    return SPS_ERR_UNSUPPORTED;
  SPS_CHECK(cu_graph_launch(ctx, g->exec));
  c->times.halo_exchanges += g->halo_exchanges;
  c->times.halo_bytes += g->halo_bytes;
  c->times.reductions += g->reductions;
  return SPS_SUCCESS;
}

static void cud_graph_destroy(sps_context *ctx, void *graph)
{
  dist_graph *g = graph;
  if (!g) return;
  cu_graph_destroy(ctx, g->exec);
  sps_host_free(g);
}

/* The state blocks fit the pinned room kept for them. */
typedef char sps_dist_state_fits[sizeof(sps_cg_state) <= SPLIT_STATE_DOUBLES * sizeof(double) &&
                                         sizeof(sps_bicgstab_state) <=
                                             SPLIT_STATE_DOUBLES * sizeof(double)
                                     ? 1
                                     : -1];

const sps_backend sps_backend_cuda_dist = {
    /* .block: only the elementwise copies of a solve_many that solves its columns one at a
     * time (a distributed context never batches them: solvers/solve_many.c) */
    SPS_CUDA_SHARED_OPS,
    .dot = cud_dot,
    .nrm2 = cud_nrm2,
    .gemv_t = cud_gemv_t,
    .cg_alpha = cud_cg_alpha,
    .cg_update = cud_cg_update,
    .cg_rz = cud_cg_rz,
    .bicgstab_step_a = cud_bicgstab_step_a,
    .bicgstab_step_b = cud_bicgstab_step_b,
    .gmres_workspace = cud_gmres_workspace,
    .gmres_start = cud_gmres_start,
    .gmres_arnoldi = cud_gmres_arnoldi,
    .gmres_update = cud_gmres_update,
    .gmres_store_z = cud_gmres_store_z,
    .graph_begin = cud_graph_begin,
    .graph_end = cud_graph_end,
    .graph_launch = cud_graph_launch,
    .graph_destroy = cud_graph_destroy,
};
#endif
