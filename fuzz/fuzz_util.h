/* fuzz_util.h: checks shared by the fuzz targets: what a reader returned is a valid matrix or a clean failure naming its input. */
#ifndef SPS_FUZZ_UTIL_H
#define SPS_FUZZ_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spsolve.h"

/* Report a broken promise as a crash, which libFuzzer records with its input. */
static inline void fuzz_fail(const char *what, const char *msg)
{
  fprintf(stderr, "fuzz check failed: %s (%s)\n", what, msg ? msg : "");
  abort();
}

/* A failure leaves no object and a message naming @p name (memory failures aside). */
static inline void fuzz_check_failure(sps_context *ctx, sps_status st, const void *obj,
                                      const char *name)
{
  const char *msg = sps_context_last_error(ctx);
  if (obj) fuzz_fail("an object came back with an error", msg);
  if (!msg || !msg[0]) fuzz_fail("an error without a message", sps_status_name(st));
  if (st != SPS_ERR_HOST_MEMORY && strncmp(msg, name, strlen(name)) != 0)
    fuzz_fail("the message does not name the input", msg);
  if (st != SPS_ERR_IO && st != SPS_ERR_SIZE && st != SPS_ERR_UNSUPPORTED &&
      st != SPS_ERR_HOST_MEMORY)
    fuzz_fail("a reader returned a status it does not document", msg);
}

/* A matrix read: canonical CSR (sorted, in range), finite values unless allowed. */
static inline void fuzz_check_matrix(sps_context *ctx, sps_status st, const sps_matrix *A,
                                     const char *name, unsigned flags)
{
  if (st != SPS_SUCCESS) {
    fuzz_check_failure(ctx, st, A, name);
    return;
  }
  if (!A) fuzz_fail("success without a matrix", NULL);
  int64_t m, n, nnz;
  const int64_t *rp;
  const int32_t *ci;
  const double *v;
  if (sps_matrix_get_size(A, &m, &n, &nnz) || sps_matrix_get_csr(A, &rp, &ci, &v))
    fuzz_fail("the matrix cannot be queried", NULL);
  if (m < 0 || n < 0 || m > INT32_MAX || n > INT32_MAX || rp[0] != 0 || rp[m] != nnz)
    fuzz_fail("bad sizes or row offsets", NULL);
  for (int64_t i = 0; i < m; i++) {
    if (rp[i + 1] < rp[i]) fuzz_fail("decreasing row offsets", NULL);
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      if (ci[k] < 0 || ci[k] >= n) fuzz_fail("column index out of range", NULL);
      if (k > rp[i] && ci[k] <= ci[k - 1]) fuzz_fail("row not sorted or duplicates kept", NULL);
      if (!(flags & SPS_MM_ALLOW_NONFINITE) && !isfinite(v[k]))
        fuzz_fail("a non-finite value accepted without SPS_MM_ALLOW_NONFINITE", NULL);
    }
  }
}

static inline void fuzz_check_vector(sps_context *ctx, sps_status st, const sps_vector *x,
                                     const char *name, unsigned flags)
{
  if (st != SPS_SUCCESS) {
    fuzz_check_failure(ctx, st, x, name);
    return;
  }
  if (!x) fuzz_fail("success without a vector", NULL);
  int64_t n;
  if (sps_vector_get_size(x, &n) || n < 0) fuzz_fail("the vector cannot be queried", NULL);
  double *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  if (!h) abort();
  if (sps_vector_download(x, h, n)) fuzz_fail("the vector cannot be read back", NULL);
  if (!(flags & SPS_MM_ALLOW_NONFINITE))
    for (int64_t i = 0; i < n; i++)
      if (!isfinite(h[i])) fuzz_fail("a non-finite value accepted", NULL);
  free(h);
}

/* Two reads of the same bytes gave the same matrix, bit for bit. */
static inline void fuzz_check_same(const sps_matrix *A, const sps_matrix *B)
{
  int64_t m, n, nnz, m2, n2, nnz2;
  const int64_t *rp, *rp2;
  const int32_t *ci, *ci2;
  const double *v, *v2;
  sps_matrix_get_size(A, &m, &n, &nnz);
  sps_matrix_get_size(B, &m2, &n2, &nnz2);
  if (m != m2 || n != n2 || nnz != nnz2) fuzz_fail("two reads differ in size", NULL);
  sps_matrix_get_csr(A, &rp, &ci, &v);
  sps_matrix_get_csr(B, &rp2, &ci2, &v2);
  if (memcmp(rp, rp2, (size_t)(m + 1) * sizeof *rp) ||
      memcmp(ci, ci2, (size_t)nnz * sizeof *ci) || memcmp(v, v2, (size_t)nnz * sizeof *v))
    fuzz_fail("two reads differ in their entries", NULL);
}

#endif /* SPS_FUZZ_UTIL_H */
