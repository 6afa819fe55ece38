/* amg_device.c: the multigrid setup's matrices in the context's memory: allocation, the count-scan-fill prefix sums, transposes, products, the hand-over to library matrices and the downloads that remain. */
#include <string.h>

#include "amg_step.h"
#include "spgemm.h"

/*
 * Every step of the setup reads and writes arrays in the context's memory: device arrays on a
 * CUDA context, so that the operators stay on the GPU from the fine level to the coarsest, and
 * host arrays on the CPU, where the same code runs the reference kernels. A matrix of unknown
 * size is built in three steps: a count kernel writes the length of each row, amg_scan turns
 * the lengths into offsets and reads the total back (the only host synchronisation), a fill
 * kernel writes the entries.
 */

#ifdef SPS_HAVE_CUDA
sps_status amg_cuda_status(sps_context *ctx, cudaError_t e, const char *step)
{
  if (e == cudaSuccess) return SPS_SUCCESS;
  SPS_FAIL(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
           "amg setup: %s: %s", step, cudaGetErrorString(e));
}
#endif

static size_t at_least_one(int64_t n)
{
  return n > 0 ? (size_t)n : 1;
}

sps_status amg_csr_alloc_rows(sps_context *ctx, amg_csr *M, int64_t nrows, int64_t ncols,
                              const char *what)
{
  memset(M, 0, sizeof *M);
  M->nrows = nrows;
  M->ncols = ncols;
  M->scratch = 1;
  return sps_scratch_alloc(ctx, (void **)&M->rp, ((size_t)nrows + 1) * sizeof(int64_t), what);
}

sps_status amg_csr_alloc_entries(sps_context *ctx, amg_csr *M, int values, const char *what)
{
  SPS_CHECK(sps_scratch_alloc(ctx, (void **)&M->ci, at_least_one(M->nnz) * sizeof(int32_t), what));
  if (values)
    SPS_CHECK(sps_scratch_alloc(ctx, (void **)&M->v, at_least_one(M->nnz) * sizeof(double), what));
  return SPS_SUCCESS;
}

sps_status amg_csr_alloc(sps_context *ctx, amg_csr *M, int64_t nrows, int64_t ncols, int64_t nnz,
                         const char *what)
{
  SPS_CHECK(amg_csr_alloc_rows(ctx, M, nrows, ncols, what));
  M->nnz = nnz;
  return amg_csr_alloc_entries(ctx, M, 1, what);
}

void amg_csr_free(sps_context *ctx, amg_csr *M)
{
  void *a[] = {M->rp, M->ci, M->v};
  for (int k = 0; k < 3; k++)
    if (a[k]) {
      if (M->scratch)
        sps_scratch_free(ctx, a[k]);
      else
        ctx->be->free(ctx, a[k]);
    }
  memset(M, 0, sizeof *M);
}

amg_csr amg_csr_of(const sps_matrix *M)
{
  amg_csr c;
  c.nrows = M->nrows;
  c.ncols = M->ncols;
  c.nnz = M->nnz;
  const int dev = M->ctx->kind == SPS_DEVICE_CUDA;
  c.rp = dev ? M->d_rowptr : M->rowptr;
  c.ci = dev ? M->d_colind : M->colind;
  c.v = dev ? M->d_values : M->values;
  c.scratch = 0;
  return c;
}

sps_status amg_phase_end(sps_precond *pc, int phase)
{
  amg_data *d = pc->data;
  SPS_CHECK(pc->ctx->be->synchronize(pc->ctx));
  const double now = sps_wtime();
  const double dt = now - d->mark;
  pc->info.amg_setup_seconds[phase] += dt;
  if (d->level >= 0 && d->level < SPS_AMG_MAX_LEVELS) pc->info.amg_level_seconds[d->level] += dt;
  d->mark = now;
  return SPS_SUCCESS;
}

sps_status amg_read_word(sps_context *ctx, const unsigned long long *word, unsigned long long *v)
{
  return ctx->be->download(ctx, v, word, sizeof *v);
}

sps_status amg_scan(sps_context *ctx, int64_t *count, int64_t n, int64_t *total)
{
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    const cudaStream_t s = sps_cuda(ctx)->stream;
    size_t bytes = 0;
    void *tmp = NULL;
    SPS_CHECK(amg_cuda_status(ctx, sps_cuda_spgemm_scan(s, NULL, &bytes, count, n + 1), "scan"));
    SPS_CHECK(sps_scratch_alloc(ctx, &tmp, bytes > 0 ? bytes : 1, "amg setup: scan scratch"));
    sps_status st =
        amg_cuda_status(ctx, sps_cuda_spgemm_scan(s, tmp, &bytes, count, n + 1), "scan");
    if (!st) st = ctx->be->download(ctx, total, count + n, sizeof *total);
    sps_scratch_free(ctx, tmp);
    return st;
  }
#endif
  (void)ctx;
  int64_t s = 0;
  for (int64_t i = 0; i <= n; i++) {
    const int64_t c = count[i];
    count[i] = s;
    s += c;
  }
  *total = count[n];
  return SPS_SUCCESS;
}

sps_status amg_csr_transpose(sps_context *ctx, const amg_csr *M, amg_csr *T, int values)
{
  sps_status st = SPS_SUCCESS;
  memset(T, 0, sizeof *T);
  if (M->nnz > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "amg setup: a transpose of %lld entries exceeds 32-bit indices",
             (long long)M->nnz);
  SPS_TRY(amg_csr_alloc_rows(ctx, T, M->ncols, M->nrows, "amg setup: transpose"));
  T->nnz = M->nnz;
  SPS_TRY(amg_csr_alloc_entries(ctx, T, values, "amg setup: transpose"));
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    const cudaStream_t s = sps_cuda(ctx)->stream;
    int32_t *rows = NULL, *keys = NULL, *idx = NULL, *perm = NULL;
    void *tmp = NULL;
    size_t bytes = 0, need = 0;
    const size_t nz = at_least_one(M->nnz) * sizeof(int32_t);
    st = sps_scratch_alloc(ctx, (void **)&rows, nz, "amg setup: transpose rows");
    if (!st) st = sps_scratch_alloc(ctx, (void **)&keys, nz, "amg setup: transpose keys");
    if (!st) st = sps_scratch_alloc(ctx, (void **)&idx, nz, "amg setup: transpose entries");
    if (!st) st = sps_scratch_alloc(ctx, (void **)&perm, nz, "amg setup: transpose entries");
    if (!st)
      st = amg_cuda_status(
          ctx, sps_cuda_tr_count(s, M->nrows, M->ncols, M->nnz, M->rp, M->ci, T->rp, rows, idx),
          "transpose count");
    if (!st)
      st = amg_cuda_status(ctx, sps_cuda_spgemm_scan(s, NULL, &bytes, T->rp, M->ncols + 1), "scan");
    if (!st)
      st = amg_cuda_status(
          ctx, sps_cuda_tr_sort(s, NULL, &need, M->ncols, M->nnz, M->ci, keys, idx, perm), "sort");
    if (need > bytes) bytes = need;
    if (!st) st = sps_scratch_alloc(ctx, &tmp, bytes > 0 ? bytes : 1, "amg setup: transpose scratch");
    if (!st)
      st = amg_cuda_status(ctx, sps_cuda_spgemm_scan(s, tmp, &bytes, T->rp, M->ncols + 1), "scan");
    if (!st)
      st = amg_cuda_status(
          ctx, sps_cuda_tr_sort(s, tmp, &bytes, M->ncols, M->nnz, M->ci, keys, idx, perm), "sort");
    if (!st)
      st = amg_cuda_status(
          ctx, sps_cuda_tr_gather(s, M->nnz, perm, rows, values ? M->v : NULL, T->ci, T->v),
          "transpose gather");
    sps_scratch_free(ctx, rows);
    sps_scratch_free(ctx, keys);
    sps_scratch_free(ctx, idx);
    sps_scratch_free(ctx, perm);
    sps_scratch_free(ctx, tmp);
    if (st) goto cleanup;
    return SPS_SUCCESS;
  }
#endif
  sps_ref_csr_transpose(M->nrows, M->ncols, M->rp, M->ci, values ? M->v : NULL, T->rp, T->ci, T->v);
cleanup:
  if (st) amg_csr_free(ctx, T);
  return st;
}

sps_status amg_csr_product(sps_context *ctx, const amg_csr *A, const amg_csr *B, amg_csr *C)
{
  memset(C, 0, sizeof *C);
  SPS_CHECK(sps_spgemm_device(ctx, A->nrows, A->ncols, B->ncols, A->rp, A->ci, A->v, B->rp, B->ci,
                              B->v, &C->rp, &C->ci, &C->v, &C->nnz));
  C->nrows = A->nrows;
  C->ncols = B->ncols;
  return SPS_SUCCESS;
}

sps_status amg_csr_adopt(sps_context *ctx, amg_csr *M, sps_matrix **out)
{
  if (M->scratch && ctx->be->scratch_malloc) {
    /* scratch goes back to its pool: the matrix gets arrays of the backend's own */
    amg_csr K = {M->nrows, M->ncols, M->nnz, NULL, NULL, NULL, 0};
    const size_t rb = ((size_t)M->nrows + 1) * sizeof(int64_t);
    const size_t cb = at_least_one(M->nnz) * sizeof(int32_t), vb = at_least_one(M->nnz) * sizeof(double);
    sps_status st = ctx->be->malloc(ctx, (void **)&K.rp, rb, "AMG level matrix");
    if (!st) st = ctx->be->malloc(ctx, (void **)&K.ci, cb, "AMG level matrix");
    if (!st) st = ctx->be->malloc(ctx, (void **)&K.v, vb, "AMG level matrix");
    if (!st) st = ctx->be->copy_bytes(ctx, K.rp, M->rp, rb);
    if (!st) st = ctx->be->copy_bytes(ctx, K.ci, M->ci, cb);
    if (!st) st = ctx->be->copy_bytes(ctx, K.v, M->v, vb);
    amg_csr_free(ctx, M);
    if (st) {
      amg_csr_free(ctx, &K);
      return st;
    }
    *M = K;
  }
  sps_status st = sps_matrix_adopt_device_csr(ctx, out, M->nrows, M->ncols, M->rp, M->ci, M->v,
                                              SPS_SYMMETRY_GENERAL);
  memset(M, 0, sizeof *M);
  if (!st) sps_context_track(ctx, SPS_OBJECT_MATRIX, -1);
  return st;
}

sps_status amg_csr_download(sps_context *ctx, const amg_csr *M, sps_host_rcsr *H)
{
  const sps_backend *be = ctx->be;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_rcsr_alloc(ctx, H, M->nrows, M->ncols, M->nnz, "amg: a level on the host"));
  SPS_TRY(be->download(ctx, H->rowptr, M->rp, ((size_t)M->nrows + 1) * sizeof(int64_t)));
  if (M->nnz > 0) {
    SPS_TRY(be->download(ctx, H->colind, M->ci, (size_t)M->nnz * sizeof(int32_t)));
    SPS_TRY(be->download(ctx, H->values, M->v, (size_t)M->nnz * sizeof(double)));
  }
cleanup:
  if (st) sps_host_rcsr_free(H);
  return st;
}
