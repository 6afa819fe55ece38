/* matrix.c: the sps_matrix object: creation from CSR arrays (checked, copied, canonicalised),
 * device upload, queries. */
#include <string.h>

#include "csr_assemble.h"
#include "internal.h"
#ifdef SPS_HAVE_MPI
#include "dist_matrix.h"
#endif

static void matrix_free(sps_matrix *A)
{
  if (!A) return;
  const unsigned b = A->borrowed;
  sps_context *ctx = A->ctx;
#ifdef SPS_HAVE_MPI
  if (A->dist) sps_dist_free(ctx, A->dist);
#endif
  if (ctx && A->d_rowptr && !(b & SPS_BORROWED_D_ROWPTR)) ctx->be->free(ctx, A->d_rowptr);
  if (ctx && A->d_rowptr32 && !(b & SPS_BORROWED_D_ROWPTR32)) ctx->be->free(ctx, A->d_rowptr32);
  if (ctx && A->d_colind && !(b & SPS_BORROWED_D_COLIND)) ctx->be->free(ctx, A->d_colind);
  if (ctx && A->d_values && !(b & SPS_BORROWED_D_VALUES)) ctx->be->free(ctx, A->d_values);
  if (!(b & SPS_BORROWED_ROWPTR)) sps_host_free(A->rowptr);
  if (!(b & SPS_BORROWED_COLIND)) sps_host_free(A->colind);
  if (!(b & SPS_BORROWED_VALUES)) sps_host_free(A->values);
  sps_host_free(A);
}

/* On a CUDA context, copy the host CSR arrays to the device where no device array (borrowed
 * from the caller by sps_matrix_wrap_csr) is there yet. */
sps_status sps_matrix_upload(sps_matrix *A)
{
  sps_context *ctx = A->ctx;
  if (ctx->kind != SPS_DEVICE_CUDA) return SPS_SUCCESS;
  size_t rb = (size_t)(A->nrows + 1) * sizeof(int64_t);
  size_t cb = (size_t)A->nnz * sizeof(int32_t);
  size_t vb = (size_t)A->nnz * sizeof(double);
  if (!A->d_rowptr) {
    SPS_CHECK(ctx->be->malloc(ctx, (void **)&A->d_rowptr, rb, "matrix row offsets"));
    SPS_CHECK(ctx->be->upload(ctx, A->d_rowptr, A->rowptr, rb));
  }
  if (!A->d_colind) {
    SPS_CHECK(ctx->be->malloc(ctx, (void **)&A->d_colind, cb, "matrix column indices"));
    SPS_CHECK(ctx->be->upload(ctx, A->d_colind, A->colind, cb));
  }
  if (!A->d_values) {
    SPS_CHECK(ctx->be->malloc(ctx, (void **)&A->d_values, vb, "matrix values"));
    SPS_CHECK(ctx->be->upload(ctx, A->d_values, A->values, vb));
  }
  if (!A->d_rowptr32 && A->nnz <= INT32_MAX) {
    size_t r32 = (size_t)(A->nrows + 1) * sizeof(int32_t);
    int32_t *h = NULL;
    SPS_CHECK(
        sps_host_alloc(ctx, (void **)&h, (size_t)A->nrows + 1, sizeof *h, "int32 row offsets"));
    for (int64_t i = 0; i <= A->nrows; i++)
      h[i] = (int32_t)A->rowptr[i];
    sps_status st = ctx->be->malloc(ctx, (void **)&A->d_rowptr32, r32, "matrix int32 row offsets");
    if (!st) st = ctx->be->upload(ctx, A->d_rowptr32, h, r32);
    sps_host_free(h);
    SPS_CHECK(st);
  }
  return SPS_SUCCESS;
}

sps_status sps_matrix_drop_offsets32(sps_matrix *A)
{
  if (A->d_rowptr32 && !(A->borrowed & SPS_BORROWED_D_ROWPTR32))
    A->ctx->be->free(A->ctx, A->d_rowptr32);
  A->d_rowptr32 = NULL;
  A->borrowed &= ~(unsigned)SPS_BORROWED_D_ROWPTR32;
  return SPS_SUCCESS;
}

sps_status sps_matrix_adopt_csr(sps_context *ctx, sps_matrix **out, int64_t nrows, int64_t ncols,
                                int64_t *rowptr, int32_t *colind, double *values,
                                sps_symmetry symmetry)
{
  sps_matrix *A = NULL;
  sps_status st = sps_host_calloc(ctx, (void **)&A, 1, sizeof *A, "matrix");
  if (st) {
    sps_host_free(rowptr);
    sps_host_free(colind);
    sps_host_free(values);
    return st;
  }
  A->ctx = ctx;
  A->nrows = nrows;
  A->ncols = ncols;
  A->nnz = rowptr[nrows];
  A->rowptr = rowptr;
  A->colind = colind;
  A->values = values;
  A->symmetry = symmetry;
  st = sps_matrix_upload(A);
  if (st) {
    matrix_free(A);
    return st;
  }
  sps_context_track(ctx, SPS_OBJECT_MATRIX, 1);
  *out = A;
  return SPS_SUCCESS;
}

sps_status sps_matrix_adopt_device_csr(sps_context *ctx, sps_matrix **out, int64_t nrows,
                                       int64_t ncols, int64_t *rowptr, int32_t *colind,
                                       double *values, sps_symmetry symmetry)
{
  if (ctx->kind != SPS_DEVICE_CUDA)
    return sps_matrix_adopt_csr(ctx, out, nrows, ncols, rowptr, colind, values, symmetry);
  sps_matrix *A = NULL;
  sps_status st = sps_host_calloc(ctx, (void **)&A, 1, sizeof *A, "matrix");
  if (st) {
    ctx->be->free(ctx, rowptr);
    ctx->be->free(ctx, colind);
    ctx->be->free(ctx, values);
    return st;
  }
  A->ctx = ctx;
  A->nrows = nrows;
  A->ncols = ncols;
  A->d_rowptr = rowptr;
  A->d_colind = colind;
  A->d_values = values;
  A->symmetry = symmetry;
  /* the host row offsets, then d_rowptr32 from them (sps_matrix_upload) */
  st = sps_host_alloc(ctx, (void **)&A->rowptr, (size_t)nrows + 1, sizeof(int64_t),
                      "matrix row offsets (host)");
  if (!st)
    st = ctx->be->download(ctx, A->rowptr, rowptr, ((size_t)nrows + 1) * sizeof(int64_t));
  if (!st) {
    A->nnz = A->rowptr[nrows];
    st = sps_matrix_upload(A);
  }
  if (st) {
    matrix_free(A);
    return st;
  }
  sps_context_track(ctx, SPS_OBJECT_MATRIX, 1);
  *out = A;
  return SPS_SUCCESS;
}

sps_status sps_matrix_create_csr(sps_context *ctx, sps_matrix **out, int64_t nrows, int64_t ncols,
                                 const int64_t *rowptr, const int32_t *colind, const double *values)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "A");
  *out = NULL;
  if (nrows < 0 || ncols < 0)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_matrix_create_csr: negative size %lld x %lld",
             (long long)nrows, (long long)ncols);
  if (nrows > INT32_MAX || ncols > INT32_MAX)
    SPS_FAIL(
        ctx, SPS_ERR_SIZE,
        "sps_matrix_create_csr: %lld x %lld exceeds the 32-bit index limit of %d rows and columns",
        (long long)nrows, (long long)ncols, INT32_MAX);
  SPS_CHECK_ARG(ctx, rowptr, "rowptr");
  if (rowptr[0] != 0)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_create_csr: rowptr[0] = %lld, must be 0",
             (long long)rowptr[0]);
  for (int64_t i = 0; i < nrows; i++)
    if (rowptr[i + 1] < rowptr[i])
      SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
               "sps_matrix_create_csr: rowptr decreases at row %lld (%lld < %lld)", (long long)i,
               (long long)rowptr[i + 1], (long long)rowptr[i]);
  int64_t nnz = rowptr[nrows];
  SPS_CHECK_ARG(ctx, nnz == 0 || colind, "colind");
  SPS_CHECK_ARG(ctx, nnz == 0 || values, "values");
  for (int64_t i = 0; i < nrows; i++)
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      if (colind[k] < 0 || colind[k] >= ncols)
        SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
                 "sps_matrix_create_csr: column index %d of row %lld is outside [0, %lld)",
                 (int)colind[k], (long long)i, (long long)ncols);

  int64_t *rp = NULL;
  int32_t *ci = NULL;
  double *va = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_alloc(ctx, (void **)&rp, (size_t)nrows + 1, sizeof *rp, "CSR row offsets"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ci, (size_t)nnz, sizeof *ci, "CSR column indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&va, (size_t)nnz, sizeof *va, "CSR values"));
  memcpy(rp, rowptr, ((size_t)nrows + 1) * sizeof *rp);
  if (nnz) {
    memcpy(ci, colind, (size_t)nnz * sizeof *ci);
    memcpy(va, values, (size_t)nnz * sizeof *va);
  }
  int64_t kept;
  SPS_TRY(sps_csr_canonicalize(ctx, nrows, rp, ci, va, &kept));
  return sps_matrix_adopt_csr(ctx, out, nrows, ncols, rp, ci, va, SPS_SYMMETRY_UNKNOWN);
cleanup:
  sps_host_free(rp);
  sps_host_free(ci);
  sps_host_free(va);
  return st;
}

sps_status sps_matrix_destroy(sps_matrix **A)
{
  if (!A || !*A) return SPS_SUCCESS;
  sps_context_track((*A)->ctx, SPS_OBJECT_MATRIX, -1);
  matrix_free(*A);
  *A = NULL;
  return SPS_SUCCESS;
}

sps_status sps_matrix_get_size(const sps_matrix *A, int64_t *nrows, int64_t *ncols, int64_t *nnz)
{
  if (!A) return SPS_ERR_ARGUMENT;
  if (nrows) *nrows = A->nrows;
  if (ncols) *ncols = A->ncols;
  if (nnz) *nnz = A->nnz;
#ifdef SPS_HAVE_MPI
  /* a distributed matrix: the entries of the rank's rows, off-diagonal ones included */
  if (nnz && A->dist) *nnz += A->dist->offd_rowptr[A->nrows];
#endif
  return SPS_SUCCESS;
}

sps_status sps_matrix_get_symmetry(const sps_matrix *A, sps_symmetry *sym)
{
  if (!A || !sym) return SPS_ERR_ARGUMENT;
  *sym = A->symmetry;
  return SPS_SUCCESS;
}

/* Position of column j in the sorted row i, or -1. */
static int64_t find_in_row(const sps_matrix *A, int64_t i, int32_t j)
{
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colind[mid] == j) return mid;
    if (A->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

int sps_matrix_block_is_symmetric(const sps_matrix *A)
{
  int sym = A->nrows == A->ncols;
  /* a_ij must equal a_ji exactly; a missing partner counts as zero. */
  for (int64_t i = 0; sym && i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int64_t p = find_in_row(A, A->colind[k], (int32_t)i);
      double partner = p < 0 ? 0.0 : A->values[p];
      if (partner != A->values[k]) {
        sym = 0;
        break;
      }
    }
  return sym;
}

int sps_matrix_is_symmetric(const sps_matrix *A)
{
#ifdef SPS_HAVE_MPI
  if (A->dist) {
    int sym = 0;
    return sps_dist_is_symmetric(A, &sym) == SPS_SUCCESS && sym;
  }
#endif
  return sps_matrix_block_is_symmetric(A);
}

sps_status sps_matrix_check_symmetry(sps_matrix *A, int *is_symmetric)
{
  if (!A || !is_symmetric) return SPS_ERR_ARGUMENT;
  int sym;
#ifdef SPS_HAVE_MPI
  if (A->dist)
    SPS_CHECK(sps_dist_is_symmetric(A, &sym));
  else
#endif
    sym = sps_matrix_block_is_symmetric(A);
  *is_symmetric = sym;
  A->symmetry = sym ? SPS_SYMMETRY_SYMMETRIC : SPS_SYMMETRY_GENERAL;
  return SPS_SUCCESS;
}

sps_status sps_matrix_get_csr(const sps_matrix *A, const int64_t **rowptr, const int32_t **colind,
                              const double **values)
{
  if (!A) return SPS_ERR_ARGUMENT;
  if (rowptr) *rowptr = A->rowptr;
  if (colind) *colind = A->colind;
  if (values) *values = A->values;
  return SPS_SUCCESS;
}

sps_status sps_matrix_get_device_csr(const sps_matrix *A, const int64_t **rowptr,
                                     const int32_t **rowptr32, const int32_t **colind,
                                     const double **values)
{
  if (!A) return SPS_ERR_ARGUMENT;
  if (rowptr) *rowptr = sps_matrix_dev_rowptr(A);
  if (rowptr32) *rowptr32 = A->d_rowptr32;
  if (colind) *colind = sps_matrix_dev_colind(A);
  if (values) *values = sps_matrix_dev_values(A);
  return SPS_SUCCESS;
}

sps_status sps_matrix_scale(sps_matrix *A, double alpha)
{
  if (!A) return SPS_ERR_ARGUMENT;
  for (int64_t k = 0; k < A->nnz; k++)
    A->values[k] *= alpha;
  A->values_version++;
  if (A->d_values) SPS_CHECK(A->ctx->be->scal(A->ctx, A->nnz, alpha, A->d_values));
#ifdef SPS_HAVE_MPI
  if (A->dist) SPS_CHECK(sps_dist_scale(A, alpha));
#endif
  return SPS_SUCCESS;
}
