/* wrap.c: matrices and vectors over arrays the caller owns in the context's memory space, so that
 * data already on the device (a CuPy array, say) is solved with where it lies, without a copy. */
#include "internal.h"

/* p is memory of the context's space, where the backend can tell. */
static sps_status check_memory(sps_context *ctx, const void *p, const char *what)
{
  return ctx->be->check_memory ? ctx->be->check_memory(ctx, p, what) : SPS_SUCCESS;
}

sps_status sps_vector_wrap(sps_context *ctx, sps_vector **out, int64_t n, double *data)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "v");
  *out = NULL;
  if (n < 0) SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_vector_wrap: length %lld < 0", (long long)n);
  if (n == 0 && !data) return sps_vector_create(ctx, out, 0);
  SPS_CHECK_ARG(ctx, data, "data");
  SPS_CHECK(check_memory(ctx, data, "sps_vector_wrap: data"));
  sps_vector *v;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&v, 1, sizeof *v, "vector"));
  v->ctx = ctx;
  v->n = n;
  v->data = data;
  v->borrowed = 1;
  sps_context_track(ctx, SPS_OBJECT_VECTOR, 1);
  *out = v;
  return SPS_SUCCESS;
}

/*
 * The host row offsets of a wrapped matrix as int64: the caller's own on a CPU context given
 * int64 offsets, else converted (int32 offsets) or downloaded (a CUDA context) into an array
 * of the matrix.
 */
static sps_status wrap_host_rowptr(sps_matrix *A, const int64_t *rowptr, const int32_t *rowptr32)
{
  sps_context *ctx = A->ctx;
  const size_t n1 = (size_t)A->nrows + 1;
  const int device = ctx->kind != SPS_DEVICE_CPU;
  if (!device && rowptr) {
    A->rowptr = (int64_t *)rowptr;
    A->borrowed |= SPS_BORROWED_ROWPTR;
    return SPS_SUCCESS;
  }
  SPS_CHECK(sps_host_alloc(ctx, (void **)&A->rowptr, n1, sizeof(int64_t), "CSR row offsets"));
  if (rowptr) return ctx->be->download(ctx, A->rowptr, rowptr, n1 * sizeof(int64_t));
  const int32_t *r32 = rowptr32;
  int32_t *tmp = NULL;
  if (device) {
    SPS_CHECK(sps_host_alloc(ctx, (void **)&tmp, n1, sizeof *tmp, "int32 row offsets"));
    sps_status st = ctx->be->download(ctx, tmp, rowptr32, n1 * sizeof *tmp);
    if (st) {
      sps_host_free(tmp);
      return st;
    }
    r32 = tmp;
  }
  for (size_t i = 0; i < n1; i++)
    A->rowptr[i] = r32[i];
  sps_host_free(tmp);
  return SPS_SUCCESS;
}

/* The rows are well formed: offsets from 0, nondecreasing; columns in range and strictly
 * increasing (the kernels and the preconditioners read sorted rows without duplicates, and the
 * caller's arrays cannot be sorted here). */
static sps_status wrap_check_csr(const sps_matrix *A)
{
  sps_context *ctx = A->ctx;
  if (A->rowptr[0] != 0)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_wrap_csr: rowptr[0] = %lld, must be 0",
             (long long)A->rowptr[0]);
  for (int64_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] < A->rowptr[i])
      SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
               "sps_matrix_wrap_csr: rowptr decreases at row %lld (%lld < %lld)", (long long)i,
               (long long)A->rowptr[i + 1], (long long)A->rowptr[i]);
  return SPS_SUCCESS;
}

static sps_status wrap_check_columns(const sps_matrix *A)
{
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int32_t j = A->colind[k];
      if (j < 0 || j >= A->ncols)
        SPS_FAIL(A->ctx, SPS_ERR_ARGUMENT,
                 "sps_matrix_wrap_csr: column index %d of row %lld is outside [0, %lld)", (int)j,
                 (long long)i, (long long)A->ncols);
      if (k > A->rowptr[i] && j <= A->colind[k - 1])
        SPS_FAIL(A->ctx, SPS_ERR_ARGUMENT,
                 "sps_matrix_wrap_csr: the column indices of row %lld are not strictly increasing "
                 "(%d after %d): sort each row and sum duplicates first",
                 (long long)i, (int)j, (int)A->colind[k - 1]);
    }
  return SPS_SUCCESS;
}

sps_status sps_matrix_wrap_csr(sps_context *ctx, sps_matrix **out, int64_t nrows, int64_t ncols,
                               const int64_t *rowptr, const int32_t *rowptr32,
                               const int32_t *colind, const double *values)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "A");
  *out = NULL;
  if (nrows < 0 || ncols < 0)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_matrix_wrap_csr: negative size %lld x %lld", (long long)nrows,
             (long long)ncols);
  if (nrows > INT32_MAX || ncols > INT32_MAX)
    SPS_FAIL(
        ctx, SPS_ERR_SIZE,
        "sps_matrix_wrap_csr: %lld x %lld exceeds the 32-bit index limit of %d rows and columns",
        (long long)nrows, (long long)ncols, INT32_MAX);
  if (!rowptr == !rowptr32)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "sps_matrix_wrap_csr: give exactly one of 'rowptr' (int64) and 'rowptr32' (int32)");
  SPS_CHECK(check_memory(ctx, rowptr ? (const void *)rowptr : (const void *)rowptr32,
                         "sps_matrix_wrap_csr: rowptr"));
  const int device = ctx->kind != SPS_DEVICE_CPU;
  sps_matrix *A = NULL;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&A, 1, sizeof *A, "matrix"));
  sps_context_track(ctx, SPS_OBJECT_MATRIX, 1); /* balanced by the destroy on failure */
  A->ctx = ctx;
  A->nrows = nrows;
  A->ncols = ncols;
  A->symmetry = SPS_SYMMETRY_UNKNOWN;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(wrap_host_rowptr(A, rowptr, rowptr32));
  SPS_TRY(wrap_check_csr(A));
  A->nnz = A->rowptr[nrows];
  const size_t nnz = (size_t)A->nnz;
  if (nnz > 0) {
    if (!colind) SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_wrap_csr: invalid argument 'colind'");
    if (!values) SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_wrap_csr: invalid argument 'values'");
  }
  if (colind) SPS_TRY(check_memory(ctx, colind, "sps_matrix_wrap_csr: colind"));
  if (values) SPS_TRY(check_memory(ctx, values, "sps_matrix_wrap_csr: values"));
  /* Host arrays: the caller's on the CPU; on a device a copy, read by setup's analysis. */
  if (!device && colind) {
    A->colind = (int32_t *)colind;
    A->borrowed |= SPS_BORROWED_COLIND;
  } else {
    SPS_TRY(sps_host_alloc(ctx, (void **)&A->colind, nnz, sizeof(int32_t), "CSR column indices"));
    if (nnz) SPS_TRY(ctx->be->download(ctx, A->colind, colind, nnz * sizeof(int32_t)));
  }
  if (!device && values) {
    A->values = (double *)values;
    A->borrowed |= SPS_BORROWED_VALUES;
  } else {
    SPS_TRY(sps_host_alloc(ctx, (void **)&A->values, nnz, sizeof(double), "CSR values"));
    if (nnz) SPS_TRY(ctx->be->download(ctx, A->values, values, nnz * sizeof(double)));
  }
  SPS_TRY(wrap_check_columns(A));
  if (device) {
    /* The kernels read the caller's arrays; the row offsets of the other width are made. */
    if (rowptr) {
      A->d_rowptr = (int64_t *)rowptr;
      A->borrowed |= SPS_BORROWED_D_ROWPTR;
    } else {
      A->d_rowptr32 = (int32_t *)rowptr32;
      A->borrowed |= SPS_BORROWED_D_ROWPTR32;
    }
    if (colind) {
      A->d_colind = (int32_t *)colind;
      A->borrowed |= SPS_BORROWED_D_COLIND;
    }
    if (values) {
      A->d_values = (double *)values;
      A->borrowed |= SPS_BORROWED_D_VALUES;
    }
    SPS_TRY(sps_matrix_upload(A));
  }
  *out = A;
  return SPS_SUCCESS;
cleanup:
  sps_matrix_destroy(&A);
  return st;
}
