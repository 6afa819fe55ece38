/* precond_bjacobi.c: tests of the block Jacobi apply kernel, CPU reference and GPU.
 *
 * The CPU reference against a plain dense block-inverse apply and, built with SPS_TEST_GPU,
 * the GPU kernel against that reference bit for bit.
 *
 * Cases: block sizes 1 to 17, 24, 31, 32, 33, 48, 63, 64 (every unrolled size of the GPU's
 * direct path and both sides of its staged path), each with n = 0, 1, bs - 1 (n < bs), bs,
 * 7 bs + 1 and 7 bs + bs - 1 (a short last block of one row and of bs - 1 rows), 4099, and on
 * the GPU 100003 (many thread blocks). Inverses are random with entries of mixed magnitudes
 * (2^-20 to 2^20, both signs), so that the order and the compensation of the sums matter;
 * the padding of the last block (columns and rows past n) holds NaN, which must never be
 * read into a result. The CPU reference must be within 2 (size + 2) eps sum_j |inv_ij r_j|
 * of the plain sum and must give the correctly rounded sum on a row built to cancel.
 * The GPU result must equal the CPU reference's in every bit.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each (block size, n), the cancelling row and the
 * GPU's argument checks are a case.
 */
#include <float.h>

#include "../../precond/ref/kernels.h"
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

#include "../../precond/cuda/launchers.h"
#endif

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

/* A random value of magnitude 2^-20 to 2^20 and either sign. */
static double mixed(sps_rng *rng)
{
  const int e = (int)(sps_rng_next(rng) % 41) - 20;
  return ldexp(sps_rng_uniform(rng), e);
}

/* The stored inverses of n rows in blocks of bs: random inside, NaN in the padding. */
static double *make_inverses(int64_t n, int bs, sps_rng *rng)
{
  const int64_t nblocks = (n + bs - 1) / bs;
  const size_t count = (size_t)nblocks * (size_t)bs * (size_t)bs;
  double *inv = xmalloc(count * sizeof(double));
  for (int64_t b = 0; b < nblocks; b++) {
    const int64_t size = n - b * bs < bs ? n - b * bs : bs;
    for (int i = 0; i < bs; i++)
      for (int j = 0; j < bs; j++)
        inv[((size_t)b * bs + i) * bs + j] = i < size && j < size ? mixed(rng) : NAN;
  }
  return inv;
}

#ifndef SPS_TEST_GPU
/* The plain dense block-inverse apply: z_i = sum_j inv_b[i][j] r_j in double, and the bound
 * 2 (size + 2) eps sum_j |inv_b[i][j] r_j| on how far a compensated sum may be from it. */
static void plain_apply(int64_t n, int bs, const double *inv, const double *r, double *z,
                        double *bound)
{
  for (int64_t b = 0; b * bs < n; b++) {
    const int64_t first = b * bs;
    const int64_t size = n - first < bs ? n - first : bs;
    for (int64_t i = 0; i < size; i++) {
      const double *block_row = inv + ((size_t)b * bs + (size_t)i) * (size_t)bs;
      double s = 0.0, mag = 0.0;
      for (int64_t j = 0; j < size; j++) {
        s += block_row[j] * r[first + j];
        mag += fabs(block_row[j] * r[first + j]);
      }
      z[first + i] = s;
      bound[first + i] = 2.0 * (double)(size + 2) * DBL_EPSILON * mag;
    }
  }
}
#endif

#ifdef SPS_TEST_GPU
/* z from the GPU kernel for the host arrays; bails on a CUDA failure. */
static void gpu_apply(int64_t n, int bs, const double *inv, const double *r, double *z)
{
  const size_t count = (size_t)((n + bs - 1) / bs) * (size_t)bs * (size_t)bs;
  double *d_inv = NULL, *d_r = NULL, *d_z = NULL;
  if (cudaMalloc((void **)&d_inv, count * sizeof(double) + 8) != cudaSuccess ||
      cudaMalloc((void **)&d_r, (size_t)n * sizeof(double) + 8) != cudaSuccess ||
      cudaMalloc((void **)&d_z, (size_t)n * sizeof(double) + 8) != cudaSuccess)
    sps_bail("cudaMalloc failed");
  if (cudaMemcpy(d_inv, inv, count * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(d_r, r, (size_t)n * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemset(d_z, 0xff, (size_t)n * sizeof(double)) != cudaSuccess)
    sps_bail("upload failed");
  const cudaError_t e = sps_cuda_bjacobi_apply(0, n, bs, d_inv, d_r, d_z);
  if (e != cudaSuccess) sps_bail("sps_cuda_bjacobi_apply: %s", cudaGetErrorString(e));
  if (cudaMemcpy(z, d_z, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
    sps_bail("download failed: %s", cudaGetErrorString(cudaGetLastError()));
  cudaFree(d_inv);
  cudaFree(d_r);
  cudaFree(d_z);
}
#endif

/* One case: the reference against the plain apply (CPU build) or the GPU against the
 * reference (GPU build). */
static void check_case(int64_t n, int bs, uint64_t seed)
{
  sps_rng rng = {seed};
  double *inv = make_inverses(n, bs, &rng);
  double *r = xmalloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    r[i] = mixed(&rng);
  double *z = xmalloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    z[i] = -7.0; /* every row must be written */
  sps_ref_bjacobi_apply(n, bs, inv, r, z);
#ifndef SPS_TEST_GPU
  double *zp = xmalloc((size_t)n * sizeof(double));
  double *bound = xmalloc((size_t)n * sizeof(double));
  plain_apply(n, bs, inv, r, zp, bound);
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(z[i] - zp[i]) <= bound[i])) {
      if (bad++ == 0) first_bad = i;
    }
  sps_ok(bad == 0, "reference, bs = %d, n = %lld: within the bound of the plain apply%s", bs,
         (long long)n, bad ? " (see below)" : "");
  if (bad)
    sps_diag("%lld rows out, first %lld: %.17g against %.17g (bound %g)", (long long)bad,
             (long long)first_bad, z[first_bad], zp[first_bad], bound[first_bad]);
  free(zp);
  free(bound);
#else
  double *zg = xmalloc((size_t)n * sizeof(double));
  gpu_apply(n, bs, inv, r, zg);
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&z[i], &zg[i], sizeof(double)) != 0 && bad++ == 0) first_bad = i;
  sps_ok(bad == 0, "GPU, bs = %d, n = %lld: the reference's bits", bs, (long long)n);
  if (bad)
    sps_diag("%lld rows differ, first %lld: GPU %.17g, CPU %.17g", (long long)bad,
             (long long)first_bad, zg[first_bad], z[first_bad]);
  free(zg);
#endif
  free(inv);
  free(r);
  free(z);
}

/*
 * A row whose plain sum cancels to the wrong value: inv row (2^60, 1, -2^60, 2^-30) against
 * r = 1: the exact sum 1 + 2^-30 is a double, the plain left-to-right sum gives 2^-30.
 * Blocks of 4, n = 4; the other rows are the identity.
 */
static void check_cancellation(void)
{
  double inv[16] = {0};
  inv[0] = 0x1p60;
  inv[1] = 1.0;
  inv[2] = -0x1p60;
  inv[3] = 0x1p-30;
  for (int i = 1; i < 4; i++)
    inv[i * 4 + i] = 1.0;
  const double r[4] = {1.0, 1.0, 1.0, 1.0};
  double z[4];
  sps_ref_bjacobi_apply(4, 4, inv, r, z);
  const double exact = 1.0 + 0x1p-30;
#ifndef SPS_TEST_GPU
  sps_ok(z[0] == exact && z[1] == 1.0 && z[2] == 1.0 && z[3] == 1.0,
         "reference: a cancelling row gives the correctly rounded sum (%.17g)", z[0]);
#else
  double zg[4];
  gpu_apply(4, 4, inv, r, zg);
  sps_ok(memcmp(z, zg, sizeof z) == 0 && zg[0] == exact,
         "GPU: a cancelling row gives the correctly rounded sum (%.17g)", zg[0]);
#endif
}

int main(void)
{
#ifdef SPS_TEST_GPU
  sps_context *ctx = sps_test_cuda_context_or_skip();
#endif
#ifdef SPS_TEST_GPU
  const int64_t large = 100003; /* many thread blocks */
#else
  const int64_t large = -1; /* on the CPU 4099 rows already run on several threads */
#endif
  static const int sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                              13, 14, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  for (int s = 0; s < nsizes; s++) {
    const int bs = sizes[s];
    const int64_t ns[] = {0, 1, bs - 1, bs, 7 * bs + 1, 7 * bs + bs - 1, 4099, large};
    for (int k = 0; k < (int)(sizeof ns / sizeof ns[0]); k++) {
      if (ns[k] < 0 || (k == 2 && bs == 1) || (k == 5 && bs <= 2)) continue; /* repeats */
      if (sps_case()) check_case(ns[k], bs, 0xb1ac0000u + (uint64_t)(bs * 16 + k));
    }
  }
  if (sps_case()) check_cancellation();
#ifdef SPS_TEST_GPU
  /* n = 0 launches nothing and succeeds; bs out of the kernel's range is refused. */
  if (sps_case()) {
    sps_ok(sps_cuda_bjacobi_apply(0, 0, 4, NULL, NULL, NULL) == cudaSuccess,
           "GPU: n = 0 is a successful no-op");
    sps_ok(sps_cuda_bjacobi_apply(0, 10, 0, NULL, NULL, NULL) != cudaSuccess,
           "GPU: bs = 0 is refused");
  }
  sps_context_destroy(&ctx);
#endif
  return sps_done();
}
#endif /* a GPU build without CUDA */
