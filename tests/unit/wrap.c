/* wrap.c: tests of matrices and vectors over the caller's arrays (sps_matrix_wrap_csr,
 * sps_vector_wrap) and of sps_solver_apply_precond.
 *
 * Built twice: unit/wrap runs on a CPU context with host arrays; unit/wrap_gpu (SPS_TEST_GPU)
 * on a CUDA context with arrays from cudaMalloc, and exits 77 without a GPU. Both check that
 * the library keeps and uses the caller's pointers (no copy of what the kernels read), that a
 * solve over wrapped arrays gives the bits of the same solve over copied arrays, that destroy
 * leaves the caller's memory alone, and that each malformed input is refused with a message
 * naming the row. The GPU build also checks that host memory is refused on a CUDA context.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each test function (each matrix wrapped) is a case.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "../testlib.h"

#if defined(SPS_TEST_GPU) && !defined(SPS_HAVE_CUDA)
int main(void)
{
  sps_skip_all("built without CUDA");
}
#else

#ifdef SPS_TEST_GPU
#include <cuda_runtime_api.h>
#endif

/* Memory of the context's space: device memory on the GPU build, host memory otherwise. */
static void *space_copy(const void *host, size_t bytes)
{
  void *p = NULL;
#ifdef SPS_TEST_GPU
  if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) sps_bail("cudaMalloc failed");
  if (bytes && cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    sps_bail("cudaMemcpy failed");
  /* A copy from pageable memory may return before its DMA ends, and the library reads on its
   * own non-blocking stream: the caller synchronises first (as spsolve.h says). Without this,
   * compute-sanitizer's slower timing let a wrap read offsets not yet written. */
  if (cudaDeviceSynchronize() != cudaSuccess) sps_bail("cudaDeviceSynchronize failed");
#else
  p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  if (bytes) memcpy(p, host, bytes);
#endif
  return p;
}

static void space_read(void *host, const void *p, size_t bytes)
{
#ifdef SPS_TEST_GPU
  if (bytes && cudaMemcpy(host, p, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
    sps_bail("cudaMemcpy failed");
#else
  if (bytes) memcpy(host, p, bytes);
#endif
}

static void space_free(void *p)
{
#ifdef SPS_TEST_GPU
  cudaFree(p);
#else
  free(p);
#endif
}

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

static sps_context *test_context(void)
{
#ifdef SPS_TEST_GPU
  return sps_test_cuda_context_or_skip();
#else
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) sps_bail("%s", sps_context_create_error());
  return ctx;
#endif
}

/* A host CSR matrix. */
typedef struct host_csr {
  int64_t n, nnz;
  int64_t *rowptr;
  int32_t *rowptr32;
  int32_t *colind;
  double *values;
} host_csr;

/* The arrays of a bundled matrix, read through the library and copied. */
static host_csr read_bundled(sps_context *ctx, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx.gz", sps_test_data_dir(), name);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0)) sps_bail("%s: %s", path, sps_context_last_error(ctx));
  host_csr h;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_size(A, &h.n, NULL, &h.nnz);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  h.rowptr = xmalloc((size_t)(h.n + 1) * sizeof *h.rowptr);
  h.rowptr32 = xmalloc((size_t)(h.n + 1) * sizeof *h.rowptr32);
  h.colind = xmalloc((size_t)h.nnz * sizeof *h.colind);
  h.values = xmalloc((size_t)h.nnz * sizeof *h.values);
  memcpy(h.rowptr, rp, (size_t)(h.n + 1) * sizeof *rp);
  for (int64_t i = 0; i <= h.n; i++)
    h.rowptr32[i] = (int32_t)rp[i];
  memcpy(h.colind, ci, (size_t)h.nnz * sizeof *ci);
  memcpy(h.values, va, (size_t)h.nnz * sizeof *va);
  sps_matrix_destroy(&A);
  return h;
}

static void host_csr_free(host_csr *h)
{
  free(h->rowptr);
  free(h->rowptr32);
  free(h->colind);
  free(h->values);
}

/* b = A x* for a seeded random x*. */
static double *make_rhs(const host_csr *h)
{
  double *xs = xmalloc((size_t)h->n * sizeof *xs), *b = xmalloc((size_t)h->n * sizeof *b);
  sps_rng rng = {20261201u};
  for (int64_t i = 0; i < h->n; i++)
    xs[i] = sps_rng_uniform(&rng);
  for (int64_t i = 0; i < h->n; i++) {
    double s = 0.0;
    for (int64_t k = h->rowptr[i]; k < h->rowptr[i + 1]; k++)
      s += h->values[k] * xs[h->colind[k]];
    b[i] = s;
  }
  free(xs);
  return b;
}

/* Solve A x = b from x = 0 with (method, precond); x and the iterations come back. */
static void solve(sps_context *ctx, const sps_matrix *A, sps_vector *b, sps_vector *x,
                  sps_solver_type method, sps_precond_type precond, int *iterations,
                  sps_reason *reason)
{
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, method) || sps_solver_set_precond(s, precond) ||
      sps_vector_fill(x, 0.0) || sps_solver_setup(s, A) || sps_solver_solve(s, b, x) ||
      sps_solver_get_iterations(s, iterations) || sps_solver_get_reason(s, reason))
    sps_bail("solve: %s", sps_context_last_error(ctx));
  sps_solver_destroy(&s);
}

/* Vectors: the caller's storage is used in place and outlives destroy. */
static void test_vector_wrap(sps_context *ctx)
{
  const int64_t n = 1001;
  double *h = xmalloc((size_t)n * sizeof *h);
  for (int64_t i = 0; i < n; i++)
    h[i] = (double)i;
  double *d = space_copy(h, (size_t)n * sizeof *h);
  sps_vector *v = NULL;
  sps_ok(sps_vector_wrap(ctx, &v, n, d) == SPS_SUCCESS, "wrap %lld doubles", (long long)n);
  double *got = NULL;
  sps_ok(sps_vector_get_data(v, &got) == SPS_SUCCESS && got == d,
         "get_data returns the caller's pointer");
  int64_t len = 0;
  sps_vector_get_size(v, &len);
  sps_ok(len == n, "the wrapped vector has the caller's length");
  double nrm = 0.0, want = 0.0;
  for (int64_t i = 0; i < n; i++)
    want += (double)i * (double)i;
  sps_vector_norm2(v, &nrm);
  sps_ok(fabs(nrm - sqrt(want)) <= 1e-12 * sqrt(want), "norm2 reads the caller's values");
  sps_vector_fill(v, 2.5);
  sps_context_synchronize(ctx); /* the fill runs on the library's own stream */
  sps_vector_destroy(&v);
  sps_ok(v == NULL, "destroy sets the handle to NULL");
  space_read(h, d, (size_t)n * sizeof *h);
  int all = 1;
  for (int64_t i = 0; i < n; i++)
    all &= h[i] == 2.5;
  sps_ok(all, "fill wrote the caller's memory, which is still there after destroy");
  space_free(d);

  sps_vector *c = NULL;
  double *cd = NULL;
  sps_ok(sps_vector_create(ctx, &c, 7) == SPS_SUCCESS && sps_vector_get_data(c, &cd) == SPS_SUCCESS &&
             cd != NULL,
         "get_data of a created vector gives its storage");
  sps_vector_destroy(&c);

  sps_ok(sps_vector_wrap(ctx, &v, 5, NULL) == SPS_ERR_ARGUMENT && v == NULL,
         "NULL data for 5 entries: SPS_ERR_ARGUMENT (%s)", sps_context_last_error(ctx));
  sps_ok(sps_vector_wrap(ctx, &v, -1, h) == SPS_ERR_SIZE, "negative length: SPS_ERR_SIZE");
  sps_ok(sps_vector_wrap(ctx, &v, 0, NULL) == SPS_SUCCESS && v != NULL,
         "an empty vector needs no data");
  sps_vector_destroy(&v);
  sps_ok(sps_vector_get_data(NULL, &cd) == SPS_ERR_ARGUMENT, "get_data of NULL: SPS_ERR_ARGUMENT");
#ifdef SPS_TEST_GPU
  sps_ok(sps_vector_wrap(ctx, &v, n, h) == SPS_ERR_ARGUMENT && v == NULL,
         "host memory on a CUDA context: SPS_ERR_ARGUMENT (%s)", sps_context_last_error(ctx));
#endif
  free(h);
}

/*
 * A bundled matrix wrapped with int64 or int32 offsets: the kernels read the caller's arrays,
 * and the solve gives the bits of the same solve over a created (copied) matrix and vectors.
 */
static void test_matrix_wrap(sps_context *ctx, const char *name, sps_solver_type method,
                             sps_precond_type precond, int use32)
{
  host_csr h = read_bundled(ctx, name);
  const size_t n1 = (size_t)h.n + 1, nnz = (size_t)h.nnz, nb = (size_t)h.n * sizeof(double);
  void *drp = use32 ? space_copy(h.rowptr32, n1 * sizeof(int32_t))
                    : space_copy(h.rowptr, n1 * sizeof(int64_t));
  int32_t *dci = space_copy(h.colind, nnz * sizeof(int32_t));
  double *dva = space_copy(h.values, nnz * sizeof(double));
  const char *what = use32 ? "int32 offsets" : "int64 offsets";

  sps_matrix *W = NULL, *C = NULL;
  sps_status st = sps_matrix_wrap_csr(ctx, &W, h.n, h.n, use32 ? NULL : (const int64_t *)drp,
                                      use32 ? (const int32_t *)drp : NULL, dci, dva);
  if (!sps_ok(st == SPS_SUCCESS, "%s, %s: wrap", name, what))
    sps_bail("%s", sps_context_last_error(ctx));
  int64_t m, nnzw;
  sps_matrix_get_size(W, &m, NULL, &nnzw);
  sps_ok(m == h.n && nnzw == h.nnz, "%s, %s: size and nonzeros", name, what);
  const int64_t *grp, *hrp;
  const int32_t *grp32, *gci, *hci;
  const double *gva, *hva;
  sps_matrix_get_device_csr(W, &grp, &grp32, &gci, &gva);
  sps_ok(gci == dci && gva == dva, "%s, %s: the kernels read the caller's colind and values",
         name, what);
#ifdef SPS_TEST_GPU
  sps_ok(use32 ? grp32 == (const int32_t *)drp : grp == (const int64_t *)drp,
         "%s, %s: the kernels read the caller's offsets", name, what);
  sps_ok(use32 ? grp != NULL : grp32 != NULL,
         "%s, %s: the offsets of the other width were made", name, what);
#else
  sps_ok(use32 ? grp != (const int64_t *)drp : grp == (const int64_t *)drp,
         "%s, %s: int64 offsets are the caller's; int32 ones are converted", name, what);
  sps_ok(grp32 == NULL, "%s, %s: no int32 offsets on the CPU", name, what);
#endif
  sps_matrix_get_csr(W, &hrp, &hci, &hva);
  int same = 1;
  for (size_t i = 0; i < n1; i++)
    same &= hrp[i] == h.rowptr[i];
  for (size_t k = 0; k < nnz; k++)
    same &= hci[k] == h.colind[k] && hva[k] == h.values[k];
  sps_ok(same, "%s, %s: get_csr gives the caller's entries", name, what);

  /* The same solve over copies. */
  if (sps_matrix_create_csr(ctx, &C, h.n, h.n, h.rowptr, h.colind, h.values))
    sps_bail("create_csr: %s", sps_context_last_error(ctx));
  double *b = make_rhs(&h);
  double *db = space_copy(b, nb);
  double *dx = space_copy(b, nb); /* overwritten: the solve starts from x = 0 */
  sps_vector *wb = NULL, *wx = NULL, *cb = NULL, *cx = NULL;
  if (sps_vector_wrap(ctx, &wb, h.n, db) || sps_vector_wrap(ctx, &wx, h.n, dx) ||
      sps_vector_create(ctx, &cb, h.n) || sps_vector_create(ctx, &cx, h.n) ||
      sps_vector_upload(cb, b, h.n))
    sps_bail("vectors: %s", sps_context_last_error(ctx));
  int itw = 0, itc = 0;
  sps_reason rw, rc;
  solve(ctx, W, wb, wx, method, precond, &itw, &rw);
  solve(ctx, C, cb, cx, method, precond, &itc, &rc);
  double *xw = xmalloc(nb), *xc = xmalloc(nb);
  space_read(xw, dx, nb);
  sps_vector_download(cx, xc, h.n);
  sps_ok(rw == rc && rw > 0 && itw == itc,
         "%s, %s, %s+%s: converged in %d iterations, as over copies (%d)", name, what,
         sps_solver_type_name(method), sps_precond_type_name(precond), itw, itc);
  sps_ok(memcmp(xw, xc, nb) == 0, "%s, %s: x has the bits of the solve over copies, in the "
                                  "caller's memory", name, what);
  double *bb = xmalloc(nb);
  space_read(bb, db, nb);
  sps_ok(memcmp(bb, b, nb) == 0, "%s, %s: b is left as it was", name, what);

  sps_vector_destroy(&wb);
  sps_vector_destroy(&wx);
  sps_vector_destroy(&cb);
  sps_vector_destroy(&cx);
  sps_matrix_destroy(&W);
  sps_matrix_destroy(&C);
  /* The caller's arrays are still there and unchanged after destroy. */
  int32_t *ci2 = xmalloc(nnz * sizeof *ci2);
  space_read(ci2, dci, nnz * sizeof *ci2);
  sps_ok(memcmp(ci2, h.colind, nnz * sizeof *ci2) == 0,
         "%s, %s: destroy leaves the caller's arrays", name, what);
  free(ci2);
  free(bb);
  free(xw);
  free(xc);
  free(b);
  space_free(db);
  space_free(dx);
  space_free(drp);
  space_free(dci);
  space_free(dva);
  host_csr_free(&h);
}

/* One malformed matrix: the status and a word the message must contain. */
static void expect_refused(sps_context *ctx, const char *desc, int64_t n, const int64_t *rp,
                           const int32_t *rp32, const int32_t *ci, const double *va, int64_t nnz,
                           sps_status want, const char *word)
{
  void *drp = rp ? space_copy(rp, (size_t)(n + 1) * sizeof *rp)
                 : rp32 ? space_copy(rp32, (size_t)(n + 1) * sizeof *rp32) : NULL;
  void *dci = ci ? space_copy(ci, (size_t)nnz * sizeof *ci) : NULL;
  void *dva = va ? space_copy(va, (size_t)nnz * sizeof *va) : NULL;
  static int sentinel;
  sps_matrix *A = (sps_matrix *)(void *)&sentinel; /* must come back NULL on failure */
  sps_status st = sps_matrix_wrap_csr(ctx, &A, n, n, rp ? drp : NULL, rp32 ? drp : NULL, dci, dva);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == want && (st == SPS_SUCCESS) == (A != NULL) && strstr(msg, word) != NULL,
         "%s: %s (%s)", desc,
         sps_status_name(st), msg);
  if (st == SPS_SUCCESS) sps_matrix_destroy(&A);
  space_free(drp);
  space_free(dci);
  space_free(dva);
}

static void test_matrix_refused(sps_context *ctx)
{
  /* 3 x 3, row 1 holds columns 0 and 2. */
  const int64_t rp[] = {0, 1, 3, 4};
  const int32_t rp32[] = {0, 1, 3, 4};
  const int32_t ci[] = {0, 0, 2, 2};
  const int32_t unsorted[] = {0, 2, 0, 2};
  const int32_t dup[] = {0, 1, 1, 2};
  const int32_t outside[] = {0, 0, 3, 2};
  const double va[] = {4.0, -1.0, 4.0, 4.0};
  const int64_t bad0[] = {1, 1, 3, 4};
  const int64_t decreasing[] = {0, 2, 1, 4};
  expect_refused(ctx, "both offset arrays", 3, rp, rp32, ci, va, 4, SPS_ERR_ARGUMENT,
                 "exactly one");
  expect_refused(ctx, "no offset array", 3, NULL, NULL, ci, va, 4, SPS_ERR_ARGUMENT,
                 "exactly one");
  expect_refused(ctx, "unsorted row", 3, rp, NULL, unsorted, va, 4, SPS_ERR_ARGUMENT, "row 1");
  expect_refused(ctx, "duplicate column", 3, rp, NULL, dup, va, 4, SPS_ERR_ARGUMENT, "row 1");
  expect_refused(ctx, "column out of range", 3, NULL, rp32, outside, va, 4, SPS_ERR_ARGUMENT,
                 "row 1");
  expect_refused(ctx, "rowptr[0] != 0", 3, bad0, NULL, ci, va, 4, SPS_ERR_ARGUMENT, "rowptr[0]");
  expect_refused(ctx, "decreasing offsets", 3, decreasing, NULL, ci, va, 4, SPS_ERR_ARGUMENT,
                 "row 1");
  expect_refused(ctx, "NULL values", 3, rp, NULL, ci, NULL, 4, SPS_ERR_ARGUMENT, "values");
  expect_refused(ctx, "NULL colind", 3, rp, NULL, NULL, va, 4, SPS_ERR_ARGUMENT, "colind");
  const int64_t zero[] = {0, 0, 0, 0};
  expect_refused(ctx, "no entries and no colind, values: accepted", 3, zero, NULL, NULL, NULL, 0,
                 SPS_SUCCESS, "");
  sps_matrix *A = NULL;
  sps_ok(sps_matrix_wrap_csr(ctx, &A, (int64_t)INT32_MAX + 1, 3, rp, NULL, ci, va) == SPS_ERR_SIZE,
         "more rows than int32: SPS_ERR_SIZE");
  sps_ok(sps_matrix_wrap_csr(ctx, NULL, 3, 3, rp, NULL, ci, va) == SPS_ERR_ARGUMENT,
         "NULL handle: SPS_ERR_ARGUMENT");
#ifdef SPS_TEST_GPU
  sps_ok(sps_matrix_wrap_csr(ctx, &A, 3, 3, rp, NULL, ci, va) == SPS_ERR_ARGUMENT && A == NULL,
         "host arrays on a CUDA context: SPS_ERR_ARGUMENT (%s)", sps_context_last_error(ctx));
#endif
}

/* Tridiagonal T = tridiag(-1, d, -1) of order n, times sign. */
static sps_matrix *tridiagonal(sps_context *ctx, int64_t n, double d, double sign)
{
  int64_t *rp = xmalloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = xmalloc((size_t)(3 * n) * sizeof *ci);
  double *va = xmalloc((size_t)(3 * n) * sizeof *va);
  int64_t k = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        ci[k] = (int32_t)j;
        va[k++] = sign * (j == i ? d + 0.01 * (double)(i % 7) : -1.0);
      }
    rp[i + 1] = k;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, va)) sps_bail("%s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* max_i |(A z)_i - r_i| / ||r||_inf: how well z solves A z = r. */
static double solve_error(const sps_matrix *A, const double *z, const double *r, int64_t n)
{
  double *az = xmalloc((size_t)n * sizeof *az), err = 0.0, rmax = 0.0;
  sps_test_host_mv(A, z, az);
  for (int64_t i = 0; i < n; i++) {
    err = fmax(err, fabs(az[i] - r[i]));
    rmax = fmax(rmax, fabs(r[i]));
  }
  free(az);
  return err / rmax;
}

/* z = M^-1 r through the public call, for the preconditioner set up for A. */
static sps_status apply_precond(sps_context *ctx, const sps_matrix *A, sps_solver_type method,
                                sps_precond_type precond, const double *r, double *z)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_solver *s = NULL;
  sps_vector *vr = NULL, *vz = NULL;
  if (sps_solver_create(ctx, &s, method) || sps_solver_set_precond(s, precond) ||
      sps_vector_create(ctx, &vr, n) || sps_vector_create(ctx, &vz, n) ||
      sps_vector_upload(vr, r, n) || sps_solver_setup(s, A))
    sps_bail("%s", sps_context_last_error(ctx));
  sps_status st = sps_solver_apply_precond(s, vr, vz);
  if (!st) sps_vector_download(vz, z, n);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vr);
  sps_vector_destroy(&vz);
  return st;
}

static void test_apply_precond(sps_context *ctx)
{
  const int64_t n = 500;
  double *r = xmalloc((size_t)n * sizeof *r), *z = xmalloc((size_t)n * sizeof *z);
  sps_rng rng = {7u};
  for (int64_t i = 0; i < n; i++)
    r[i] = sps_rng_uniform(&rng);
  sps_matrix *T = tridiagonal(ctx, n, 2.5, 1.0);
  sps_matrix *N = tridiagonal(ctx, n, 2.5, -1.0);

  /* Jacobi: z_i = (1 / a_ii) r_i, exactly. */
  sps_ok(apply_precond(ctx, T, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, r, z) == SPS_SUCCESS,
         "jacobi apply");
  int exact = 1;
  for (int64_t i = 0; i < n; i++)
    exact &= z[i] == (1.0 / (2.5 + 0.01 * (double)(i % 7))) * r[i];
  sps_ok(exact, "jacobi: z = diag(A)^-1 .* r to the bit");
  /* ILU(0) and IC(0) of a tridiagonal matrix are its exact factors: M^-1 = A^-1. */
  sps_ok(apply_precond(ctx, T, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, r, z) == SPS_SUCCESS,
         "ilu0 apply");
  double e = solve_error(T, z, r, n);
  sps_ok(e < 1e-13, "ilu0 of a tridiagonal A: A z = r to %.1e", e);
  sps_ok(apply_precond(ctx, T, SPS_SOLVER_CG, SPS_PRECOND_NONE, r, z) == SPS_SUCCESS &&
             memcmp(z, r, (size_t)n * sizeof *z) == 0,
         "none: z = r");
  /* A negative definite: CG runs on -A with IC(0) of -A; the call still returns M^-1 ~ A^-1. */
  sps_ok(apply_precond(ctx, N, SPS_SOLVER_CG, SPS_PRECOND_IC0, r, z) == SPS_SUCCESS, "ic0 apply, A < 0");
  e = solve_error(N, z, r, n);
  sps_ok(e < 1e-13, "ic0 of a negative definite tridiagonal A (solved as -A): A z = r to %.1e", e);

  /* Out of order, mismatched, aliased. */
  sps_solver *s = NULL;
  sps_vector *a = NULL, *b = NULL, *c = NULL;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_CG) || sps_vector_create(ctx, &a, n) ||
      sps_vector_create(ctx, &b, n) || sps_vector_create(ctx, &c, n + 1))
    sps_bail("%s", sps_context_last_error(ctx));
  sps_ok(sps_solver_apply_precond(s, a, b) == SPS_ERR_STATE, "before setup: SPS_ERR_STATE (%s)",
         sps_context_last_error(ctx));
  if (sps_solver_setup(s, T)) sps_bail("%s", sps_context_last_error(ctx));
  sps_ok(sps_solver_apply_precond(s, a, c) == SPS_ERR_SIZE, "length n+1: SPS_ERR_SIZE");
  sps_ok(sps_solver_apply_precond(s, a, a) == SPS_ERR_ARGUMENT, "r = z: SPS_ERR_ARGUMENT");
  sps_ok(sps_solver_apply_precond(s, NULL, a) == SPS_ERR_ARGUMENT, "NULL r: SPS_ERR_ARGUMENT");
  sps_ok(sps_solver_apply_precond(NULL, a, b) == SPS_ERR_ARGUMENT, "NULL solver: SPS_ERR_ARGUMENT");
  sps_solver_destroy(&s);
  sps_vector_destroy(&a);
  sps_vector_destroy(&b);
  sps_vector_destroy(&c);
  sps_matrix_destroy(&T);
  sps_matrix_destroy(&N);
  free(r);
  free(z);
}

/* Wrapped objects count among the context's live objects, as created ones do, and a wrap
 * that is refused leaves none behind. */
static void test_live_objects(sps_context *ctx)
{
  const double hdata[4] = {1.0, 2.0, 3.0, 4.0};
  const int64_t hrp[3] = {0, 1, 3};
  const int32_t hbad[3] = {0, 1, 0}; /* row 1 not increasing: refused */
  double *data = space_copy(hdata, sizeof hdata);
  int64_t *rp = space_copy(hrp, sizeof hrp);
  int32_t *bad_col = space_copy(hbad, sizeof hbad);
  sps_vector *v = NULL;
  sps_matrix *A = NULL;
  if (sps_vector_wrap(ctx, &v, 4, data)) sps_bail("%s", sps_context_last_error(ctx));
  const int busy = sps_context_destroy(&ctx) == SPS_ERR_BUSY && ctx != NULL;
  sps_ok(busy, "context_destroy with a wrapped vector alive: SPS_ERR_BUSY (%s)",
         ctx ? sps_context_last_error(ctx) : "the context is gone");
  sps_vector_destroy(&v);
  const sps_status st = sps_matrix_wrap_csr(ctx, &A, 2, 2, rp, NULL, bad_col, data);
  sps_ok(st == SPS_ERR_ARGUMENT && !A && strstr(sps_context_last_error(ctx), "row 1"),
         "a refused wrap creates nothing (%s)", sps_context_last_error(ctx));
  space_free(data);
  space_free(rp);
  space_free(bad_col);
}

int main(void)
{
  sps_context *ctx = test_context();
  if (sps_case()) test_vector_wrap(ctx);
  if (sps_case()) test_live_objects(ctx);
  if (sps_case()) test_matrix_wrap(ctx, "orsreg_1", SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0);
  if (sps_case()) test_matrix_wrap(ctx, "orsreg_1", SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 1);
  if (sps_case()) test_matrix_wrap(ctx, "nos3", SPS_SOLVER_CG, SPS_PRECOND_IC0, 1);
  if (sps_case()) test_matrix_wrap(ctx, "nos3", SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0);
  if (sps_case()) test_matrix_refused(ctx);
  if (sps_case()) test_apply_precond(ctx);
  /* every shard destroys the context; the check is a case of its own (and fails in any shard) */
  const int gone = sps_context_destroy(&ctx) == SPS_SUCCESS && ctx == NULL;
  if (sps_case() || !gone)
    sps_ok(gone, "context_destroy once every wrapped object is destroyed: SPS_SUCCESS");
  return sps_done();
}

#endif
