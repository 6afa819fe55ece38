/* spgemm.c: the host side of the sparse product C = A B: the CPU reference on a CPU context, the phases of the GPU hash SpGEMM (precond/cuda/spgemm.cu) on a CUDA one, and the host-matrix entry point of algebraic multigrid's setup. */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ref/kernels.h"
#include "spgemm.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * The GPU product runs the five steps of precond/cuda/spgemm.cu: bin the rows by their
 * number of products, count each bin's rows, prefix-sum the counts into C's offsets, bin
 * the rows again by their exact length, fill each bin. The host waits twice: for the bin
 * sizes of the count phase, and for the bin sizes of the fill phase with nnz(C), which
 * C's allocation needs. The dense bin (rows longer than 4096 columns) gets at most
 * kDenseBlocksPerSM blocks a multiprocessor, fewer when their accumulators (n columns each:
 * 4 bytes a column to count, 20 to fill) would pass kDenseBudget bytes.
 */
static const int kDenseBlocksPerSM = 2;
static const size_t kDenseBudget = (size_t)1 << 30;

/*
 * C = A B on host arrays through the CPU reference, C's arrays from ctx's allocator. The rows
 * are shared out over OpenMP threads in chunks, each thread with its own markers and sums (n
 * of each): a row's columns and sums depend on that row alone, so the result is the
 * reference's bit for bit whatever the threads. At most SPS_SPGEMM_CPU_WORK bytes of markers
 * and sums in all, and a thread per SPS_SPGEMM_CPU_ROWS rows.
 */
#define SPS_SPGEMM_CPU_WORK ((size_t)256 << 20)
#define SPS_SPGEMM_CPU_ROWS 2048
#define SPS_SPGEMM_CPU_CHUNK 256

/* The calling thread's number in its parallel region (0 without OpenMP). */
static size_t thread_index(void)
{
#ifdef _OPENMP
  return (size_t)omp_get_thread_num();
#else
  return 0;
#endif
}

static sps_status spgemm_cpu(sps_context *ctx, int64_t m, int64_t n, const int64_t *arp,
                             const int32_t *aci, const double *av, const int64_t *brp,
                             const int32_t *bci, const double *bv, int64_t **crp_out,
                             int32_t **cci_out, double **cv_out, int64_t *cnnz)
{
  sps_status st = SPS_SUCCESS;
  int64_t *mark = NULL, *crp = NULL;
  sps_csum *acc = NULL;
  int32_t *cci = NULL;
  double *cv = NULL;
  const size_t nn = n > 0 ? (size_t)n : 1;
#ifdef _OPENMP
  int nthr = omp_get_max_threads();
#else
  int nthr = 1;
#endif
  if ((int64_t)nthr > m / SPS_SPGEMM_CPU_ROWS + 1) nthr = (int)(m / SPS_SPGEMM_CPU_ROWS + 1);
  const size_t per = nn * (sizeof *mark + sizeof *acc);
  if ((size_t)nthr * per > SPS_SPGEMM_CPU_WORK) nthr = (int)(SPS_SPGEMM_CPU_WORK / per);
  if (nthr < 1) nthr = 1;
  SPS_TRY(sps_host_alloc(ctx, (void **)&mark, (size_t)nthr * nn, sizeof *mark,
                         "sparse product: column markers"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&acc, (size_t)nthr * nn, sizeof *acc,
                         "sparse product: column sums"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&crp, ((size_t)m + 1) * sizeof *crp,
                          "sparse product: row offsets of C"));
  for (size_t j = 0; j < (size_t)nthr * nn; j++)
    mark[j] = -1;
  /* counts into crp[1 ..], then crp[i + 1] <- crp[i] + count_i */
#pragma omp parallel num_threads(nthr)
  {
    int64_t *tm = mark + thread_index() * nn;
#pragma omp for schedule(dynamic, 1)
    for (int64_t i0 = 0; i0 < m; i0 += SPS_SPGEMM_CPU_CHUNK) {
      const int64_t i1 = i0 + SPS_SPGEMM_CPU_CHUNK < m ? i0 + SPS_SPGEMM_CPU_CHUNK : m;
      sps_ref_spgemm_count_rows(i0, i1, arp, aci, brp, bci, tm, crp + 1);
    }
  }
  crp[0] = 0;
  for (int64_t i = 0; i < m; i++)
    crp[i + 1] += crp[i];
  SPS_TRY(ctx->be->malloc(ctx, (void **)&cci, (size_t)crp[m] * sizeof *cci,
                          "sparse product: columns of C"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&cv, (size_t)crp[m] * sizeof *cv,
                          "sparse product: values of C"));
  /* the count's markers name rows another thread may fill: all unmarked again */
  for (size_t j = 0; j < (size_t)nthr * nn; j++)
    mark[j] = -1;
#pragma omp parallel num_threads(nthr)
  {
    const size_t t = thread_index();
#pragma omp for schedule(dynamic, 1)
    for (int64_t i0 = 0; i0 < m; i0 += SPS_SPGEMM_CPU_CHUNK) {
      const int64_t i1 = i0 + SPS_SPGEMM_CPU_CHUNK < m ? i0 + SPS_SPGEMM_CPU_CHUNK : m;
      sps_ref_spgemm_fill_rows(i0, i1, arp, aci, av, brp, bci, bv, crp, mark + t * nn,
                               acc + t * nn, cci, cv);
    }
  }
  *cnnz = crp[m];
  *crp_out = crp;
  *cci_out = cci;
  *cv_out = cv;
  crp = NULL;
  cci = NULL;
  cv = NULL;
cleanup:
  ctx->be->free(ctx, crp);
  ctx->be->free(ctx, cci);
  ctx->be->free(ctx, cv);
  sps_host_free(mark);
  sps_host_free(acc);
  return st;
}

#ifdef SPS_HAVE_CUDA
/* A CUDA status as the library's (allocation failures as device memory), naming the step. */
static sps_status cuda_ok(sps_context *ctx, cudaError_t e, const char *what)
{
  if (e == cudaSuccess) return SPS_SUCCESS;
  SPS_FAIL(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
           "sparse product: %s: %s", what, cudaGetErrorString(e));
}

/* The work of one phase's binning: the row bins, the row lists, the counters and cursors. */
typedef struct spgemm_bins {
  unsigned char *rowbin;     /* m */
  int32_t *rows;             /* m */
  unsigned long long *words; /* SPS_SPGEMM_COUNTERS counters, then SPS_SPGEMM_BINS cursors */
  unsigned long long host[SPS_SPGEMM_COUNTERS];
  sps_cuda_spgemm_offsets first;
} spgemm_bins;

/* Bin the rows for a phase (fill 0: count, 1: fill), read the bin sizes back and list the
 * rows of each bin. In the fill phase *cnnz <- crp[m], read back with the sizes. */
static sps_status bin_phase(sps_context *ctx, int fill, int64_t m, int64_t n, const int64_t *arp,
                            const int32_t *aci, const int64_t *brp, int64_t *crp, spgemm_bins *w,
                            int64_t *cnnz)
{
  cudaStream_t s = sps_cuda(ctx)->stream;
  const size_t words = (SPS_SPGEMM_COUNTERS + SPS_SPGEMM_BINS) * sizeof(unsigned long long);
  SPS_CHECK(cuda_ok(ctx, cudaMemsetAsync(w->words, 0, words, s), "cudaMemsetAsync"));
  SPS_CHECK(cuda_ok(ctx,
                    sps_cuda_spgemm_bin(s, m, n, fill, arp, aci, brp, crp, w->rowbin, w->words),
                    "binning kernel"));
  SPS_CHECK(cuda_ok(ctx,
                    cudaMemcpyAsync(w->host, w->words, sizeof w->host, cudaMemcpyDeviceToHost, s),
                    "bin sizes"));
  if (fill)
    SPS_CHECK(cuda_ok(ctx, cudaMemcpyAsync(cnnz, crp + m, sizeof *cnnz, cudaMemcpyDeviceToHost, s),
                      "nnz(C)"));
  SPS_CHECK(cuda_ok(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize"));
  unsigned long long at = 0;
  for (int b = 0; b < SPS_SPGEMM_BINS; b++) {
    w->first.first[b] = at;
    if (b > 0) at += w->host[b];
  }
  SPS_CHECK(cuda_ok(
      ctx,
      sps_cuda_spgemm_scatter(s, m, w->rowbin, w->first, w->words + SPS_SPGEMM_COUNTERS, w->rows),
      "row lists"));
  return SPS_SUCCESS;
}

/* The thread blocks of the dense bin: at most kDenseBlocksPerSM a multiprocessor, one a row,
 * within kDenseBudget bytes of accumulators of bytes_per_column * n bytes each. */
static int dense_blocks(sps_context *ctx, unsigned long long nrows, int64_t n,
                        size_t bytes_per_column)
{
  size_t blocks = (size_t)kDenseBlocksPerSM * (size_t)sps_cuda(ctx)->sm_count;
  if (blocks > nrows) blocks = (size_t)nrows;
  const size_t per_block = bytes_per_column * (size_t)(n > 0 ? n : 1);
  if (blocks * per_block > kDenseBudget) blocks = kDenseBudget / per_block;
  return blocks > 0 ? (int)blocks : 1;
}

/* Device seconds between two recorded events. */
static double event_seconds(cudaEvent_t a, cudaEvent_t b)
{
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, a, b);
  return 1e-3 * (double)ms;
}

static sps_status spgemm_cuda(sps_context *ctx, int64_t m, int64_t n, const int64_t *arp,
                              const int32_t *aci, const double *av, const int64_t *brp,
                              const int32_t *bci, const double *bv, int64_t **crp_out,
                              int32_t **cci_out, double **cv_out, int64_t *cnnz,
                              sps_spgemm_times *times)
{
  sps_status st = SPS_SUCCESS;
  cudaStream_t s = sps_cuda(ctx)->stream;
  const sps_backend *be = ctx->be;
  int64_t *crp = NULL, total = 0;
  int32_t *cci = NULL;
  double *cv = NULL, *dhi = NULL, *dlo = NULL;
  unsigned *flags = NULL;
  void *scan_tmp = NULL;
  size_t scan_bytes = 0;
  spgemm_bins w;
  memset(&w, 0, sizeof w);
  cudaEvent_t ev[3] = {NULL, NULL, NULL};
  if (times) {
    for (int e = 0; e < 3; e++)
      SPS_TRY(cuda_ok(ctx, cudaEventCreate(&ev[e]), "cudaEventCreate"));
    SPS_TRY(cuda_ok(ctx, cudaEventRecord(ev[0], s), "cudaEventRecord"));
  }
  SPS_TRY(be->malloc(ctx, (void **)&crp, ((size_t)m + 1) * sizeof *crp,
                     "sparse product: row offsets of C"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&w.rowbin, (size_t)m, "sparse product: row bins"));
  SPS_TRY(
      sps_scratch_alloc(ctx, (void **)&w.rows, (size_t)m * sizeof *w.rows, "sparse product: row lists"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&w.words,
                     (SPS_SPGEMM_COUNTERS + SPS_SPGEMM_BINS) * sizeof(unsigned long long),
                     "sparse product: bin counters"));
  /* Count: crp[i] <- the length of row i (crp[m] <- 0), then the exclusive prefix sum. */
  SPS_TRY(cuda_ok(ctx, cudaMemsetAsync(crp + m, 0, sizeof *crp, s), "cudaMemsetAsync"));
  SPS_TRY(bin_phase(ctx, 0, m, n, arp, aci, brp, crp, &w, NULL));
  for (int b = 1; b < SPS_SPGEMM_BINS; b++) {
    const unsigned long long nrows = w.host[b];
    if (!nrows) continue;
    int blocks = 0;
    if (b == SPS_SPGEMM_DENSE_BIN) {
      blocks = dense_blocks(ctx, nrows, n, sizeof(unsigned));
      const size_t bytes = (size_t)blocks * (size_t)n * sizeof(unsigned);
      SPS_TRY(sps_scratch_alloc(ctx, (void **)&flags, bytes, "sparse product: column flags of long rows"));
      SPS_TRY(cuda_ok(ctx, cudaMemsetAsync(flags, 0, bytes, s), "cudaMemsetAsync"));
    }
    SPS_TRY(cuda_ok(ctx,
                    sps_cuda_spgemm_count(s, b, (int64_t)nrows, w.rows + w.first.first[b], n, arp,
                                          aci, brp, bci, crp, blocks, flags),
                    "count kernel"));
  }
  SPS_TRY(cuda_ok(ctx, sps_cuda_spgemm_scan(s, NULL, &scan_bytes, crp, m + 1), "prefix sum"));
  SPS_TRY(sps_scratch_alloc(ctx, &scan_tmp, scan_bytes, "sparse product: prefix sum scratch"));
  SPS_TRY(cuda_ok(ctx, sps_cuda_spgemm_scan(s, scan_tmp, &scan_bytes, crp, m + 1), "prefix sum"));
  if (times) SPS_TRY(cuda_ok(ctx, cudaEventRecord(ev[1], s), "cudaEventRecord"));
  /* Fill: bins by exact length, C's arrays at their size, then the columns and values. */
  SPS_TRY(bin_phase(ctx, 1, m, n, arp, aci, brp, crp, &w, &total));
  SPS_TRY(
      be->malloc(ctx, (void **)&cci, (size_t)total * sizeof *cci, "sparse product: columns of C"));
  SPS_TRY(be->malloc(ctx, (void **)&cv, (size_t)total * sizeof *cv, "sparse product: values of C"));
  for (int b = 1; b < SPS_SPGEMM_BINS; b++) {
    const unsigned long long nrows = w.host[b];
    if (!nrows) continue;
    int blocks = 0;
    if (b == SPS_SPGEMM_DENSE_BIN) {
      sps_scratch_free(ctx, flags);
      flags = NULL;
      blocks = dense_blocks(ctx, nrows, n, sizeof(unsigned) + 2 * sizeof(double));
      const size_t cols = (size_t)blocks * (size_t)n;
      SPS_TRY(sps_scratch_alloc(ctx, (void **)&flags, cols * sizeof *flags,
                         "sparse product: column flags of long rows"));
      SPS_TRY(sps_scratch_alloc(ctx, (void **)&dhi, cols * sizeof *dhi,
                         "sparse product: column sums of long rows"));
      SPS_TRY(sps_scratch_alloc(ctx, (void **)&dlo, cols * sizeof *dlo,
                         "sparse product: column errors of long rows"));
      SPS_TRY(cuda_ok(ctx, cudaMemsetAsync(flags, 0, cols * sizeof *flags, s), "cudaMemsetAsync"));
      SPS_TRY(cuda_ok(ctx, cudaMemsetAsync(dhi, 0, cols * sizeof *dhi, s), "cudaMemsetAsync"));
      SPS_TRY(cuda_ok(ctx, cudaMemsetAsync(dlo, 0, cols * sizeof *dlo, s), "cudaMemsetAsync"));
    }
    SPS_TRY(
        cuda_ok(ctx,
                sps_cuda_spgemm_fill(s, b, (int64_t)nrows, w.rows + w.first.first[b], n, arp, aci,
                                     av, brp, bci, bv, crp, cci, cv, blocks, flags, dhi, dlo),
                "fill kernel"));
  }
  if (times) SPS_TRY(cuda_ok(ctx, cudaEventRecord(ev[2], s), "cudaEventRecord"));
  SPS_TRY(cuda_ok(ctx, cudaStreamSynchronize(s), "fill kernels"));
  if (times) {
    times->count_s = event_seconds(ev[0], ev[1]);
    times->fill_s = event_seconds(ev[1], ev[2]);
    times->total_s = times->count_s + times->fill_s;
  }
  *crp_out = crp;
  *cci_out = cci;
  *cv_out = cv;
  *cnnz = total;
  crp = NULL;
  cci = NULL;
  cv = NULL;
cleanup:
  /* Wait for the kernels before their arrays go (cudaFree does not wait for this stream's
   * work on every path). */
  if (st) cudaStreamSynchronize(s);
  be->free(ctx, crp);
  be->free(ctx, cci);
  be->free(ctx, cv);
  sps_scratch_free(ctx, w.rowbin);
  sps_scratch_free(ctx, w.rows);
  sps_scratch_free(ctx, w.words);
  sps_scratch_free(ctx, scan_tmp);
  sps_scratch_free(ctx, flags);
  sps_scratch_free(ctx, dhi);
  sps_scratch_free(ctx, dlo);
  for (int e = 0; e < 3; e++)
    if (ev[e]) cudaEventDestroy(ev[e]);
  return st;
}
#endif

sps_status sps_spgemm_device_timed(sps_context *ctx, int64_t m, int64_t k, int64_t n,
                                   const int64_t *d_arp, const int32_t *d_aci, const double *d_av,
                                   const int64_t *d_brp, const int32_t *d_bci, const double *d_bv,
                                   int64_t **d_crp, int32_t **d_cci, double **d_cv, int64_t *cnnz,
                                   sps_spgemm_times *times)
{
  SPS_CHECK_ARG(ctx, ctx, "ctx");
  SPS_CHECK_ARG(ctx, d_crp && d_cci && d_cv && cnnz, "C");
  *d_crp = NULL;
  *d_cci = NULL;
  *d_cv = NULL;
  *cnnz = 0;
  SPS_CHECK_ARG(ctx, m >= 0 && k >= 0 && n >= 0, "sizes");
  SPS_CHECK_ARG(ctx, d_arp && d_aci && d_av, "A");
  SPS_CHECK_ARG(ctx, d_brp && d_bci && d_bv, "B");
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE,
             "sparse product: %lld x %lld times %lld x %lld exceeds the 32-bit row and column "
             "indices",
             (long long)m, (long long)k, (long long)k, (long long)n);
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA)
    return spgemm_cuda(ctx, m, n, d_arp, d_aci, d_av, d_brp, d_bci, d_bv, d_crp, d_cci, d_cv, cnnz,
                       times);
#endif
  const double t0 = sps_wtime();
  const sps_status st =
      spgemm_cpu(ctx, m, n, d_arp, d_aci, d_av, d_brp, d_bci, d_bv, d_crp, d_cci, d_cv, cnnz);
  if (times) {
    times->count_s = 0.0;
    times->fill_s = sps_wtime() - t0;
    times->total_s = times->fill_s;
  }
  return st;
}

sps_status sps_spgemm_device(sps_context *ctx, int64_t m, int64_t k, int64_t n,
                             const int64_t *d_arp, const int32_t *d_aci, const double *d_av,
                             const int64_t *d_brp, const int32_t *d_bci, const double *d_bv,
                             int64_t **d_crp, int32_t **d_cci, double **d_cv, int64_t *cnnz)
{
  return sps_spgemm_device_timed(ctx, m, k, n, d_arp, d_aci, d_av, d_brp, d_bci, d_bv, d_crp, d_cci,
                                 d_cv, cnnz, NULL);
}

/* A host matrix's arrays in the context's memory: copies on a CUDA context, the host arrays
 * themselves (*owned = 0) on the CPU. */
static sps_status to_device(sps_context *ctx, const sps_host_rcsr *M, int64_t **rp, int32_t **ci,
                            double **v, int *owned)
{
  const int64_t nnz = M->rowptr[M->nrows];
  *owned = 0;
  if (ctx->kind == SPS_DEVICE_CPU) {
    *rp = M->rowptr;
    *ci = M->colind;
    *v = M->values;
    return SPS_SUCCESS;
  }
  *owned = 1;
  const sps_backend *be = ctx->be;
  SPS_CHECK(be->malloc(ctx, (void **)rp, ((size_t)M->nrows + 1) * sizeof **rp,
                       "sparse product: row offsets of a factor"));
  SPS_CHECK(be->malloc(ctx, (void **)ci, (size_t)nnz * sizeof **ci,
                       "sparse product: columns of a factor"));
  SPS_CHECK(
      be->malloc(ctx, (void **)v, (size_t)nnz * sizeof **v, "sparse product: values of a factor"));
  SPS_CHECK(be->upload(ctx, *rp, M->rowptr, ((size_t)M->nrows + 1) * sizeof **rp));
  SPS_CHECK(be->upload(ctx, *ci, M->colind, (size_t)nnz * sizeof **ci));
  SPS_CHECK(be->upload(ctx, *v, M->values, (size_t)nnz * sizeof **v));
  return SPS_SUCCESS;
}

sps_status sps_spgemm(sps_context *ctx, const sps_host_rcsr *A, const sps_host_rcsr *B,
                      sps_host_rcsr *C)
{
  SPS_CHECK_ARG(ctx, ctx, "ctx");
  SPS_CHECK_ARG(ctx, C, "C");
  memset(C, 0, sizeof *C);
  SPS_CHECK_ARG(ctx, A && A->rowptr && A->nrows >= 0 && A->ncols >= 0, "A");
  SPS_CHECK_ARG(ctx, B && B->rowptr && B->nrows >= 0 && B->ncols >= 0, "B");
  if (A->ncols != B->nrows)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "sparse product: A is %lld x %lld but B has %lld rows",
             (long long)A->nrows, (long long)A->ncols, (long long)B->nrows);
  sps_status st = SPS_SUCCESS;
  const sps_backend *be = ctx->be;
  int64_t *arp = NULL, *brp = NULL, *crp = NULL, cnnz = 0;
  int32_t *aci = NULL, *bci = NULL, *cci = NULL;
  double *av = NULL, *bv = NULL, *cv = NULL;
  int own_a = 0, own_b = 0;
  const int cpu = ctx->kind == SPS_DEVICE_CPU;
  SPS_TRY(to_device(ctx, A, &arp, &aci, &av, &own_a));
  SPS_TRY(to_device(ctx, B, &brp, &bci, &bv, &own_b));
  SPS_TRY(sps_spgemm_device(ctx, A->nrows, A->ncols, B->ncols, arp, aci, av, brp, bci, bv, &crp,
                            &cci, &cv, &cnnz));
  if (cpu) {
    /* The product's arrays came from the CPU backend's allocator: sps_host_alloc. */
    C->nrows = A->nrows;
    C->ncols = B->ncols;
    C->rowptr = crp;
    C->colind = cci;
    C->values = cv;
    crp = NULL;
    cci = NULL;
    cv = NULL;
  } else {
    SPS_TRY(sps_host_rcsr_alloc(ctx, C, A->nrows, B->ncols, cnnz, "sparse product C"));
    SPS_TRY(be->download(ctx, C->rowptr, crp, ((size_t)A->nrows + 1) * sizeof *crp));
    SPS_TRY(be->download(ctx, C->colind, cci, (size_t)cnnz * sizeof *cci));
    SPS_TRY(be->download(ctx, C->values, cv, (size_t)cnnz * sizeof *cv));
  }
cleanup:
  if (st) sps_host_rcsr_free(C);
  if (own_a) {
    be->free(ctx, arp);
    be->free(ctx, aci);
    be->free(ctx, av);
  }
  if (own_b) {
    be->free(ctx, brp);
    be->free(ctx, bci);
    be->free(ctx, bv);
  }
  be->free(ctx, crp);
  be->free(ctx, cci);
  be->free(ctx, cv);
  return st;
}

sps_status sps_csr_transpose(sps_context *ctx, const sps_host_rcsr *A, sps_host_rcsr *T)
{
  SPS_CHECK_ARG(ctx, T, "T");
  memset(T, 0, sizeof *T);
  SPS_CHECK_ARG(ctx, A && A->rowptr && A->nrows >= 0 && A->ncols >= 0, "A");
  const int64_t nnz = A->rowptr[A->nrows];
  SPS_CHECK(sps_host_rcsr_alloc(ctx, T, A->ncols, A->nrows, nnz, "transpose"));
  sps_ref_csr_transpose(A->nrows, A->ncols, A->rowptr, A->colind, A->values, T->rowptr, T->colind,
                        T->values);
  return SPS_SUCCESS;
}
