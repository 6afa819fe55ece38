/* amg_level.cu: the CUDA kernels of the multigrid setup's row steps (the operator with its diagonal, the smoother's diagonals, the Lanczos start, the tentative and smoothed prolongators, truncation), each the CPU reference step of precond/ref/amg_level.c with the same results.
 *
 * The math of each step is in precond/ref/kernels.h. Every kernel gives each row (or each
 * aggregate, or each entry) to one thread, which does that row's arithmetic in the reference's
 * order with the same IEEE operations (no contraction: the build passes -fmad=false; sqrt and
 * division are correctly rounded), so the results equal the reference's bit for bit. Counters:
 * smoother_diag's first bad row by atomicMin on a word the launcher sets to n.
 *
 * Thread-to-data map: one thread a row (diag_count, diag_fill, smoother_diag, tent_*,
 * sa_smooth, trunc_*), a column of T (row_norms: the rows of T^T), an entry (random); grid
 * ceil(n/256) blocks of 256. Memory access: each thread reads its row's entries in order
 * (coalesced across a warp as far as neighbouring rows are about as long); gathers of the
 * diagonal and of the norms by column are random 8-byte reads. Where it wins and loses: a pass
 * over the matrix each, bandwidth-bound on the short rows of multigrid's fine levels; a long
 * row serialises its warp (the coarse Galerkin operators have up to a few hundred entries a
 * row, still a small part of the setup beside the products). Truncation keeps its
 * SPS_AMG_TRUNC_MAX candidates in registers (local memory when indexed dynamically).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

namespace
{

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n)
{
  return (unsigned)((n + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads)
    diag_count_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                      int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  int has = 0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++)
    has |= ci[k] == i;
  count[i] = rp[i + 1] - rp[i] + !has;
}

__global__ void __launch_bounds__(kThreads)
    diag_fill_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                     const double *__restrict__ v, double scale, const int64_t *__restrict__ orp,
                     int32_t *__restrict__ oci, double *__restrict__ ov)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  int64_t at = orp[i];
  int placed = 0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    if (!placed && ci[k] > i) {
      oci[at] = (int32_t)i;
      ov[at++] = 0.0;
      placed = 1;
    }
    placed |= ci[k] == i;
    oci[at] = ci[k];
    ov[at++] = scale * v[k];
  }
  if (!placed) {
    oci[at] = (int32_t)i;
    ov[at] = 0.0;
  }
}

__global__ void __launch_bounds__(kThreads)
    smoother_diag_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                         const double *__restrict__ v, int l1, double *__restrict__ dinv,
                         double *__restrict__ sd, double *__restrict__ dsq,
                         unsigned long long *__restrict__ bad)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  double a = 0.0, row = 0.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    if (ci[k] == i) a = v[k];
    row += fabs(v[k]);
  }
  const double di = 1.0 / a;
  dinv[i] = di;
  sd[i] = l1 ? (a > 0.0 ? 1.0 : -1.0) / row : di;
  dsq[i] = sqrt(fabs(di));
  if (a == 0.0 || !isfinite(a) || !isfinite(row)) atomicMin(bad, (unsigned long long)i);
}

__global__ void set_word(unsigned long long *w, unsigned long long value)
{
  *w = value;
}

__global__ void __launch_bounds__(kThreads) random_kernel(int64_t n, uint64_t seed, double *v)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n) v[i] = sps_amg_random_draw(seed, i);
}

__global__ void __launch_bounds__(kThreads)
    tent_count_kernel(int64_t n, const int32_t *__restrict__ agg, int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i < n) count[i] = agg[i] >= 0;
}

__global__ void __launch_bounds__(kThreads)
    tent_fill_kernel(int64_t n, const int32_t *__restrict__ agg, const double *__restrict__ B,
                     const int64_t *__restrict__ trp, int32_t *__restrict__ tci,
                     double *__restrict__ tv)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n && agg[i] >= 0) {
    tci[trp[i]] = agg[i];
    tv[trp[i]] = B[i];
  }
}

__global__ void __launch_bounds__(kThreads)
    row_norms_kernel(int64_t m, const int64_t *__restrict__ rp, const double *__restrict__ v,
                     double *__restrict__ norm)
{
  const int64_t j = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (j >= m) return;
  sps_csum s = sps_csum_zero();
  for (int64_t k = rp[j]; k < rp[j + 1]; k++)
    sps_csum_add(&s, v[k] * v[k]);
  norm[j] = sqrt(sps_csum_value(s));
}

__global__ void __launch_bounds__(kThreads)
    tent_scale_kernel(int64_t n, const int64_t *__restrict__ trp, const int32_t *__restrict__ tci,
                      double *__restrict__ tv, const double *__restrict__ norm)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  for (int64_t k = trp[i]; k < trp[i + 1]; k++)
    tv[k] = tv[k] / norm[tci[k]];
}

__global__ void __launch_bounds__(kThreads)
    sa_smooth_kernel(int64_t n, const int64_t *__restrict__ prp, const int32_t *__restrict__ pci,
                     double *__restrict__ pv, const double *__restrict__ dinv, double omega,
                     const int64_t *__restrict__ trp, const int32_t *__restrict__ tci,
                     const double *__restrict__ tv)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const double w = omega * dinv[i];
  const int has = trp[i + 1] > trp[i];
  const int32_t tc = has ? tci[trp[i]] : -1;
  for (int64_t k = prp[i]; k < prp[i + 1]; k++) {
    double x = -w * pv[k];
    if (has && pci[k] == tc) x += tv[trp[i]];
    pv[k] = x;
  }
}

/* The reference's trunc_cut and trunc_row (precond/ref/amg_level.c), the same operations. */
__device__ double trunc_cut(int64_t b, int64_t e, const double *v, double tf)
{
  if (!(tf > 0.0)) return 0.0;
  double big = 0.0;
  for (int64_t k = b; k < e; k++)
    big = fmax(big, fabs(v[k]));
  return tf * big;
}

__device__ int64_t trunc_row(int64_t b, int64_t e, const double *v, double cut, int pm,
                             int64_t *keep)
{
  int64_t cnt = 0;
  if (pm <= 0) {
    for (int64_t k = b; k < e; k++)
      cnt += fabs(v[k]) >= cut;
    return cnt;
  }
  for (int64_t k = b; k < e; k++) {
    const double a = fabs(v[k]);
    if (!(a >= cut)) continue;
    if (cnt == pm && !(a > fabs(v[keep[cnt - 1]]))) continue;
    int64_t at = cnt < pm ? cnt++ : cnt - 1;
    while (at > 0 && a > fabs(v[keep[at - 1]])) {
      keep[at] = keep[at - 1];
      at--;
    }
    keep[at] = k;
  }
  for (int64_t a = 1; a < cnt; a++) {
    const int64_t p = keep[a];
    int64_t q = a;
    for (; q > 0 && keep[q - 1] > p; q--)
      keep[q] = keep[q - 1];
    keep[q] = p;
  }
  return cnt;
}

__global__ void __launch_bounds__(kThreads)
    trunc_count_kernel(int64_t n, const int64_t *__restrict__ rp, const double *__restrict__ v,
                       const int64_t *__restrict__ flag, double tf, int pm,
                       int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  int64_t keep[SPS_AMG_TRUNC_MAX];
  count[i] = flag && flag[i]
                 ? 1
                 : trunc_row(rp[i], rp[i + 1], v, trunc_cut(rp[i], rp[i + 1], v, tf), pm, keep);
}

__global__ void __launch_bounds__(kThreads)
    trunc_fill_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                      const double *__restrict__ v, const double *__restrict__ w,
                      const int64_t *__restrict__ flag, const int64_t *__restrict__ cmap, double tf,
                      int pm, const int64_t *__restrict__ orp, int32_t *__restrict__ oci,
                      double *__restrict__ ov)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  int64_t at = orp[i];
  if (flag && flag[i]) {
    oci[at] = (int32_t)(cmap ? cmap[i] : i);
    ov[at] = 1.0;
    return;
  }
  int64_t keep[SPS_AMG_TRUNC_MAX];
  const int64_t b = rp[i], e = rp[i + 1];
  const double cut = trunc_cut(b, e, v, tf);
  const int64_t cnt = trunc_row(b, e, v, cut, pm, keep);
  double all = 0.0, kept = 0.0;
  for (int64_t k = b, q = 0; k < e; k++) {
    const double t = v[k] * (w ? w[ci[k]] : 1.0);
    all += t;
    const int in = pm > 0 ? q < cnt && keep[q] == k : fabs(v[k]) >= cut;
    if (in) kept += t;
    q += pm > 0 && in;
  }
  const double scale = cnt < e - b && kept != 0.0 ? all / kept : 1.0;
  for (int64_t k = b, q = 0; k < e; k++) {
    const int in = pm > 0 ? q < cnt && keep[q] == k : fabs(v[k]) >= cut;
    if (!in) continue;
    q += pm > 0;
    oci[at] = (int32_t)(cmap ? cmap[ci[k]] : ci[k]);
    ov[at++] = v[k] * scale;
  }
}

__device__ inline int filter_keep(double a, double di, double dj, double eps)
{
  return fabs(a) >= eps * sqrt(fabs(di * dj));
}

__global__ void __launch_bounds__(kThreads)
    filter_count_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                        const double *__restrict__ v, const double *__restrict__ d, double eps,
                        int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  int64_t c = 0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++)
    c += ci[k] == i || filter_keep(v[k], d[i], d[ci[k]], eps);
  count[i] = c;
}

__global__ void __launch_bounds__(kThreads)
    filter_fill_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                       const double *__restrict__ v, const double *__restrict__ d, double eps,
                       const int64_t *__restrict__ orp, int32_t *__restrict__ oci,
                       double *__restrict__ ov)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  double lump = 0.0;
  int64_t at = orp[i], diag = -1;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    if (ci[k] == i || filter_keep(v[k], d[i], d[ci[k]], eps)) {
      if (ci[k] == i) diag = at;
      oci[at] = ci[k];
      ov[at++] = v[k];
    } else {
      lump += v[k];
    }
  }
  if (diag >= 0) ov[diag] = ov[diag] + lump;
}

} // namespace

extern "C" {

cudaError_t sps_cuda_amg_diag_count(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                    int64_t *count)
{
  diag_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, rp, ci, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_diag_fill(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                   const double *v, double scale, const int64_t *orp, int32_t *oci,
                                   double *ov)
{
  if (n > 0) diag_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, scale, orp, oci, ov);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_smoother_diag(cudaStream_t s, int64_t n, const int64_t *rp,
                                       const int32_t *ci, const double *v, int l1, double *dinv,
                                       double *sd, double *dsq, unsigned long long *bad)
{
  set_word<<<1, 1, 0, s>>>(bad, (unsigned long long)n);
  if (n > 0)
    smoother_diag_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, l1, dinv, sd, dsq, bad);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_random(cudaStream_t s, int64_t n, uint64_t seed, double *v)
{
  if (n > 0) random_kernel<<<grid_for(n), kThreads, 0, s>>>(n, seed, v);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_tent_count(cudaStream_t s, int64_t n, const int32_t *agg, int64_t *count)
{
  tent_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, agg, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_tent_fill(cudaStream_t s, int64_t n, const int32_t *agg, const double *B,
                                   const int64_t *trp, int32_t *tci, double *tv)
{
  if (n > 0) tent_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, agg, B, trp, tci, tv);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_row_norms(cudaStream_t s, int64_t m, const int64_t *rp, const double *v,
                                   double *norm)
{
  if (m > 0) row_norms_kernel<<<grid_for(m), kThreads, 0, s>>>(m, rp, v, norm);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_tent_scale(cudaStream_t s, int64_t n, const int64_t *trp,
                                    const int32_t *tci, double *tv, const double *norm)
{
  if (n > 0) tent_scale_kernel<<<grid_for(n), kThreads, 0, s>>>(n, trp, tci, tv, norm);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_sa_smooth(cudaStream_t s, int64_t n, const int64_t *prp,
                                   const int32_t *pci, double *pv, const double *dinv, double omega,
                                   const int64_t *trp, const int32_t *tci, const double *tv)
{
  if (n > 0)
    sa_smooth_kernel<<<grid_for(n), kThreads, 0, s>>>(n, prp, pci, pv, dinv, omega, trp, tci, tv);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_trunc_count(cudaStream_t s, int64_t n, const int64_t *rp, const double *v,
                                     const int64_t *flag, double tf, int pm, int64_t *count)
{
  if (pm > SPS_AMG_TRUNC_MAX) return cudaErrorInvalidValue;
  trunc_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, rp, v, flag, tf, pm, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_trunc_fill(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                    const double *v, const double *w, const int64_t *flag,
                                    const int64_t *cmap, double tf, int pm, const int64_t *orp,
                                    int32_t *oci, double *ov)
{
  if (pm > SPS_AMG_TRUNC_MAX) return cudaErrorInvalidValue;
  if (n > 0)
    trunc_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, w, flag, cmap, tf, pm, orp,
                                                       oci, ov);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_filter_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                      const int32_t *ci, const double *v, const double *d,
                                      double eps, int64_t *count)
{
  filter_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, rp, ci, v, d, eps, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_filter_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                     const int32_t *ci, const double *v, const double *d,
                                     double eps, const int64_t *orp, int32_t *oci, double *ov)
{
  if (n > 0)
    filter_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, d, eps, orp, oci, ov);
  return cudaGetLastError();
}

} // extern "C"
