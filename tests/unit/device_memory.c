/* device_memory.c: out of device memory on a GPU: a vector, a matrix and a solver's work space too large for any GPU are refused with SPS_ERR_DEVICE_MEMORY and a message naming the bytes asked for, nothing is left behind, and the context keeps working (skips, 77, without a GPU). */
#include <inttypes.h>

#include "model_problems.h"

int main(void)
{
  sps_context *ctx = sps_test_cuda_context_or_skip();
  /* 2^42 doubles: 32 TiB, more than any GPU has. */
  const int64_t n = INT64_C(1) << 42;
  char bytes[32];
  snprintf(bytes, sizeof bytes, "%" PRId64 " bytes", n * (int64_t)sizeof(double));
  sps_vector *v = NULL;
  sps_status st = sps_vector_create(ctx, &v, n);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_DEVICE_MEMORY && v == NULL && strstr(msg, bytes),
         "a vector of 2^42 doubles: %s, \"%s\" names %s", sps_status_name(st), msg, bytes);

  /* GMRES(m) on a 1e6-row diagonal matrix with m = 600000: a basis of 4.8 TB. */
  const int64_t m = 1000000;
  int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)m * sizeof *ci);
  double *va = malloc((size_t)m * sizeof *va);
  if (!rp || !ci || !va) sps_bail("host memory");
  for (int64_t i = 0; i <= m; i++) rp[i] = i;
  for (int64_t i = 0; i < m; i++) ci[i] = (int32_t)i, va[i] = 2.0;
  sps_matrix *A;
  if (sps_matrix_create_csr(ctx, &A, m, m, rp, ci, va)) sps_bail("matrix: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  sps_solver *s;
  sps_solver_create(ctx, &s, SPS_SOLVER_GMRES);
  sps_solver_set_precond(s, SPS_PRECOND_NONE);
  sps_solver_set_restart(s, 600000);
  st = sps_solver_setup(s, A);
  msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_DEVICE_MEMORY && strstr(msg, "bytes of device memory"),
         "GMRES(600000) on 1e6 rows: %s, \"%s\"", sps_status_name(st), msg);
  sps_solver_destroy(&s);

  /* The context still works, and nothing was left alive on it. */
  sps_vector *w;
  double nrm = 0.0;
  st = sps_vector_create(ctx, &w, 16);
  if (!st) st = sps_vector_fill(w, 1.0);
  if (!st) st = sps_vector_norm2(w, &nrm);
  sps_ok(st == SPS_SUCCESS && nrm == 4.0, "after the failures the context computes ||ones(16)|| = %g",
         nrm);
  sps_vector_destroy(&w);
  sps_matrix_destroy(&A);
  sps_ok(sps_context_destroy(&ctx) == SPS_SUCCESS, "the context is destroyed: no object left alive");
  return sps_done();
}
