/* spmv_dist.c: tests of the distributed product's boundary-row kernel, CPU reference and GPU.
 *
 * The CPU reference (spmv/ref/dist.c) against a plain loop within 2 (len + 2) eps times the
 * sum of the terms' magnitudes, and on rows built to cancel (terms of 1e16 and -1e16 around a
 * 1 split between the two blocks) against the exact sum; built with SPS_TEST_GPU, the GPU
 * kernel (spmv/cuda/dist.cu) against the reference bit for bit. Cases: rows [row0, n) for
 * row0 = 0, 1, n - 1 and n (none), n from 1 to 100003, rows of 0 to 40 entries split at random
 * between the diagonal block (columns of x) and the off-diagonal block (slots of the halo), a
 * row of 3000 entries, (alpha, beta) = (1, 0) with NaN in y and (2.5, -0.75); rows before row0
 * must keep their value.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): the cancellation and each (n, row0) are a case.
 */
#include <float.h>

#include "../../spmv/ref/kernels.h"
#include "../testlib.h"

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#if defined(SPS_TEST_GPU) && !defined(SPS_HAVE_CUDA)
int main(void)
{
  sps_skip_all("built without CUDA");
}
#else

#ifdef SPS_TEST_GPU
#include <cuda_runtime_api.h>

#include "../../spmv/cuda/launchers.h"
#endif

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

/* Two CSR blocks of n rows: the diagonal one over nx columns, the off-diagonal over nh. */
typedef struct blocks {
  int64_t n, nx, nh;
  int64_t *rp, *orp;
  int32_t *ci, *oci;
  double *va, *ova;
} blocks;

static void blocks_free(blocks *b)
{
  free(b->rp);
  free(b->orp);
  free(b->ci);
  free(b->oci);
  free(b->va);
  free(b->ova);
}

/* Random rows; with cancel, every third row is 1e16 (diagonal), 1 (off-diagonal), -1e16
 * (diagonal) against x = 1 at those columns, whose sum is exactly 1. */
static blocks make_blocks(int64_t n, int64_t nx, int64_t nh, int long_row, sps_rng *rng)
{
  blocks b = {n, nx, nh, NULL, NULL, NULL, NULL, NULL, NULL};
  b.rp = xmalloc((size_t)(n + 1) * sizeof *b.rp);
  b.orp = xmalloc((size_t)(n + 1) * sizeof *b.orp);
  int64_t cap = 41 * n + 3000, k = 0, o = 0;
  b.ci = xmalloc((size_t)cap * sizeof *b.ci);
  b.va = xmalloc((size_t)cap * sizeof *b.va);
  b.oci = xmalloc((size_t)cap * sizeof *b.oci);
  b.ova = xmalloc((size_t)cap * sizeof *b.ova);
  b.rp[0] = b.orp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t len = long_row && i == n / 2 ? 3000 : (int64_t)(sps_rng_next(rng) % 41);
    for (int64_t e = 0; e < len; e++) {
      const int offd = nh > 0 && (sps_rng_next(rng) & 1);
      const double v = ldexp(sps_rng_uniform(rng), (int)(sps_rng_next(rng) % 41) - 20);
      if (offd) {
        b.oci[o] = (int32_t)(sps_rng_next(rng) % (uint64_t)nh);
        b.ova[o++] = v;
      } else {
        b.ci[k] = (int32_t)(sps_rng_next(rng) % (uint64_t)nx);
        b.va[k++] = v;
      }
    }
    b.rp[i + 1] = k;
    b.orp[i + 1] = o;
  }
  return b;
}

#ifndef SPS_TEST_GPU
/* The plain row sums and their error bound 2 (len + 2) eps (|alpha| sum |a x| + |beta y|). */
static void plain(const blocks *b, int64_t row0, double alpha, const double *x, const double *xh,
                  double beta, const double *y0, double *y, double *bound)
{
  for (int64_t i = row0; i < b->n; i++) {
    double s = 0.0, a = 0.0;
    for (int64_t k = b->rp[i]; k < b->rp[i + 1]; k++) {
      s += b->va[k] * x[b->ci[k]];
      a += fabs(b->va[k] * x[b->ci[k]]);
    }
    for (int64_t k = b->orp[i]; k < b->orp[i + 1]; k++) {
      s += b->ova[k] * xh[b->oci[k]];
      a += fabs(b->ova[k] * xh[b->oci[k]]);
    }
    const int64_t len = b->rp[i + 1] - b->rp[i] + b->orp[i + 1] - b->orp[i];
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y0[i];
    bound[i] = 2.0 * (double)(len + 2) * DBL_EPSILON *
               (fabs(alpha) * a + (beta == 0.0 ? 0.0 : fabs(beta * y0[i])));
  }
}
#else
/* The first index where a and b differ in any bit, or -1. */
static int64_t first_bit_diff(int64_t n, const double *a, const double *b)
{
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) return i;
  return -1;
}

/* y from the GPU kernel for the host arrays (y0 the values before the call). */
static void gpu_rows(const blocks *b, int64_t row0, double alpha, const double *x, const double *xh,
                     double beta, const double *y0, double *y)
{
  int64_t *d_rp, *d_orp;
  int32_t *d_ci, *d_oci;
  double *d_va, *d_ova, *d_x, *d_xh, *d_y;
  const int64_t nnz = b->rp[b->n], onnz = b->orp[b->n];
#define DEV(ptr, host, count)                                                              \
  if (cudaMalloc((void **)&ptr, (size_t)(count) * sizeof *host + 8) != cudaSuccess ||     \
      cudaMemcpy(ptr, host, (size_t)(count) * sizeof *host, cudaMemcpyHostToDevice) != cudaSuccess) \
    sps_bail("device copy of " #host);
  DEV(d_rp, b->rp, b->n + 1)
  DEV(d_orp, b->orp, b->n + 1)
  DEV(d_ci, b->ci, nnz)
  DEV(d_oci, b->oci, onnz)
  DEV(d_va, b->va, nnz)
  DEV(d_ova, b->ova, onnz)
  DEV(d_x, x, b->nx)
  DEV(d_xh, xh, b->nh)
  DEV(d_y, y0, b->n)
#undef DEV
  const cudaError_t e = sps_cuda_dist_rows(0, row0, b->n, d_rp, d_ci, d_va, d_orp, d_oci, d_ova,
                                           alpha, d_x, d_xh, beta, d_y);
  if (e != cudaSuccess) sps_bail("sps_cuda_dist_rows: %s", cudaGetErrorString(e));
  if (cudaMemcpy(y, d_y, (size_t)b->n * sizeof *y, cudaMemcpyDeviceToHost) != cudaSuccess)
    sps_bail("download: %s", cudaGetErrorString(cudaGetLastError()));
  cudaFree(d_rp);
  cudaFree(d_orp);
  cudaFree(d_ci);
  cudaFree(d_oci);
  cudaFree(d_va);
  cudaFree(d_ova);
  cudaFree(d_x);
  cudaFree(d_xh);
  cudaFree(d_y);
}
#endif

static void check_case(int64_t n, int64_t row0, int long_row, uint64_t seed)
{
  sps_rng rng = {seed};
  const int64_t nx = n + 7, nh = n / 3 + 1;
  blocks b = make_blocks(n, nx, nh, long_row, &rng);
  double *x = xmalloc((size_t)nx * sizeof *x), *xh = xmalloc((size_t)nh * sizeof *xh);
  for (int64_t j = 0; j < nx; j++) x[j] = sps_rng_uniform(&rng);
  for (int64_t j = 0; j < nh; j++) xh[j] = sps_rng_uniform(&rng);
  double *y0 = xmalloc((size_t)n * sizeof *y0), *y = xmalloc((size_t)n * sizeof *y);
  for (int pass = 0; pass < 2; pass++) {
    const double alpha = pass ? 2.5 : 1.0, beta = pass ? -0.75 : 0.0;
    for (int64_t i = 0; i < n; i++) y0[i] = pass ? sps_rng_uniform(&rng) : NAN;
    memcpy(y, y0, (size_t)n * sizeof *y);
    sps_ref_dist_rows(row0, n, b.rp, b.ci, b.va, b.orp, b.oci, b.ova, alpha, x, xh, beta, y);
    int ok = 1;
    for (int64_t i = 0; i < row0; i++) ok = ok && memcmp(&y[i], &y0[i], sizeof y[i]) == 0;
#ifndef SPS_TEST_GPU
    double *yp = xmalloc((size_t)n * sizeof *yp), *bound = xmalloc((size_t)n * sizeof *bound);
    plain(&b, row0, alpha, x, xh, beta, y0, yp, bound);
    for (int64_t i = row0; i < n; i++) ok = ok && fabs(y[i] - yp[i]) <= bound[i];
    free(yp);
    free(bound);
    sps_ok(ok, "reference, n = %lld, rows %lld..%lld%s, alpha %g, beta %g: within 2 (len + 2) eps "
               "of the plain sums, rows before untouched",
           (long long)n, (long long)row0, (long long)n, long_row ? " (a row of 3000)" : "", alpha, beta);
#else
    double *yg = xmalloc((size_t)n * sizeof *yg);
    gpu_rows(&b, row0, alpha, x, xh, beta, y0, yg);
    const int64_t d = n > 0 ? first_bit_diff(n, y, yg) : -1;
    sps_ok(ok && d < 0, "GPU, n = %lld, rows %lld..%lld%s, alpha %g, beta %g: the reference's bits%s",
           (long long)n, (long long)row0, (long long)n, long_row ? " (a row of 3000)" : "", alpha,
           beta, d >= 0 ? " -- NOT SO" : "");
    free(yg);
#endif
  }
  free(x);
  free(xh);
  free(y0);
  free(y);
  blocks_free(&b);
}

/* Rows whose terms cancel to exactly 1 across the two blocks: the compensated sum finds it. */
static void check_cancel(void)
{
  const int64_t n = 9;
  blocks b = {n, 4, 2, NULL, NULL, NULL, NULL, NULL, NULL};
  b.rp = xmalloc((size_t)(n + 1) * sizeof *b.rp);
  b.orp = xmalloc((size_t)(n + 1) * sizeof *b.orp);
  b.ci = xmalloc(2 * (size_t)n * sizeof *b.ci);
  b.va = xmalloc(2 * (size_t)n * sizeof *b.va);
  b.oci = xmalloc((size_t)n * sizeof *b.oci);
  b.ova = xmalloc((size_t)n * sizeof *b.ova);
  b.rp[0] = b.orp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    b.ci[2 * i] = 0;
    b.va[2 * i] = 1e16;
    b.ci[2 * i + 1] = 3;
    b.va[2 * i + 1] = -1e16;
    b.oci[i] = 1;
    b.ova[i] = 1.0;
    b.rp[i + 1] = 2 * (i + 1);
    b.orp[i + 1] = i + 1;
  }
  const double x[4] = {1.0, 0.0, 0.0, 1.0}, xh[2] = {0.0, 1.0};
  double y[9];
  sps_ref_dist_rows(0, n, b.rp, b.ci, b.va, b.orp, b.oci, b.ova, 1.0, x, xh, 0.0, y);
  int ok = 1;
  for (int64_t i = 0; i < n; i++) ok = ok && y[i] == 1.0;
#ifdef SPS_TEST_GPU
  double yg[9], y0[9] = {0};
  gpu_rows(&b, 0, 1.0, x, xh, 0.0, y0, yg);
  for (int64_t i = 0; i < n; i++) ok = ok && yg[i] == 1.0;
#endif
  sps_ok(ok, "rows of 1e16 + 1 - 1e16 split between the blocks sum to exactly 1");
  blocks_free(&b);
}

int main(void)
{
#ifdef SPS_TEST_GPU
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) sps_skip_all("no usable CUDA device");
#endif
  if (sps_case()) check_cancel();
  static const int64_t sizes[] = {1, 2, 33, 128, 129, 1000};
  uint64_t seed = 1; /* each case's seed, the same in every shard */
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const int64_t n = sizes[s];
    const int64_t row0s[] = {0, 1, n - 1, n};
    for (int r = 0; r < 4; r++)
      if (row0s[r] >= 0 && row0s[r] <= n) {
        const uint64_t sd = seed++;
        if (sps_case()) check_case(n, row0s[r], 0, sd);
      }
  }
  if (sps_case()) check_case(4099, 17, 1, seed);
  seed++;
#ifdef SPS_TEST_GPU
  if (sps_case()) check_case(100003, 31, 0, seed);
  seed++;
#endif
  return sps_done();
}
#endif
