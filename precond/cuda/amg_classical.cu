/* amg_classical.cu: the CUDA kernels of classical coarsening (strength of connection, PMIS C/F splitting, the factors of the extended interpolation sets, extended+i weights), each the CPU reference step of precond/ref/amg_classical.c with the same integers and bits.
 *
 * The math is the reference's (precond/ref/kernels.h). Every kernel gives a row to one thread,
 * which does the reference's loop for that row in the same order with the same IEEE
 * operations (no contraction: -fmad=false), so the strong sets, the C/F split and the weights
 * are the reference's exactly. The PMIS rounds read a state that no thread of the same launch
 * writes: select reads the keys and writes newc, update reads newc and writes each row's own
 * key, so the result does not depend on the order in which threads run. The undecided count
 * is reduced in the block (__syncthreads_count) and added to a device word by one atomic a
 * block.
 *
 * Thread-to-data map: one thread a row, grid ceil(n/256) blocks of 256.
 * Memory access: strength reads a row twice (the row's maximum, then the test) and writes its
 * strong columns; select gathers the keys of the row's neighbours in S and S^T (random 8-byte
 * reads, like an SpMV's gathers); interp walks, for each strong F neighbour m of row i, row m
 * of A with a binary search of each column in i's sorted interpolation set (in L1/L2 while the
 * thread works on it). Where it wins and loses: the passes are bandwidth-bound and cheap on
 * the short rows of the fine levels; interp costs sum over the strong F neighbours of their
 * row lengths times log |C^_i| a row, and a row with many long-row neighbours (coarse
 * Galerkin operators of 3-D problems) serialises its warp; a warp a row would spread that and
 * change no result, since the row's own order is kept by one lane.
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

/* The reference's cls_row. */
__device__ int cls_row(int64_t i, const int64_t *rp, const int32_t *ci, const double *v,
                       double theta, double max_row_sum, double *s, double *cut)
{
  double a = 0.0, sum = 0.0, m = 0.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    sum += v[k];
    if (ci[k] == i) a = v[k];
  }
  *s = a < 0.0 ? -1.0 : 1.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++)
    if (ci[k] != i) m = fmax(m, -*s * v[k]);
  *cut = theta * m;
  if (!(m > 0.0)) return 0;
  if (max_row_sum < 1.0 && fabs(sum) > max_row_sum * fabs(a)) return 0;
  return 1;
}

__device__ inline int cls_greater(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib)
{
  const uint64_t ma = ka & SPS_AGG_PRIORITY_MASK, mb = kb & SPS_AGG_PRIORITY_MASK;
  return ma > mb || (ma == mb && ia > ib);
}

__device__ inline void block_count(int pred, unsigned long long *word)
{
  const int c = __syncthreads_count(pred);
  if (threadIdx.x == 0 && c > 0) atomicAdd(word, (unsigned long long)c);
}

__device__ int64_t find_col(const int32_t *c, int64_t b, int64_t e, int32_t j)
{
  while (b < e) {
    const int64_t m = b + (e - b) / 2;
    if (c[m] < j)
      b = m + 1;
    else if (c[m] > j)
      e = m;
    else
      return m;
  }
  return -1;
}

__global__ void __launch_bounds__(kThreads)
    strength_count_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                          const double *__restrict__ v, double theta, double max_row_sum,
                          int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  double s, cut;
  int64_t c = 0;
  if (cls_row(i, rp, ci, v, theta, max_row_sum, &s, &cut))
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      c += ci[k] != i && -s * v[k] > cut;
  count[i] = c;
}

__global__ void __launch_bounds__(kThreads)
    strength_fill_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                         const double *__restrict__ v, double theta, double max_row_sum,
                         const int64_t *__restrict__ srp, int32_t *__restrict__ sci)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  double s, cut;
  int64_t at = srp[i];
  if (cls_row(i, rp, ci, v, theta, max_row_sum, &s, &cut))
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] != i && -s * v[k] > cut) sci[at++] = ci[k];
}

__global__ void __launch_bounds__(kThreads)
    pmis_init_kernel(int64_t n, const int64_t *__restrict__ strp, uint64_t *__restrict__ key,
                     unsigned long long *__restrict__ undecided)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int u = 0;
  if (i < n) {
    int64_t m = strp[i + 1] - strp[i];
    if (m > (1 << 30) - 1) m = (1 << 30) - 1;
    const uint64_t state = m > 0 ? SPS_CLS_UNDECIDED : SPS_CLS_F;
    key[i] = (state << 62) | ((uint64_t)m << 32) | (sps_agg_priority(i) >> 30);
    u = m > 0;
  }
  block_count(u, undecided);
}

__global__ void __launch_bounds__(kThreads)
    pmis_select_kernel(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
                       const int64_t *__restrict__ strp, const int32_t *__restrict__ stci,
                       const uint64_t *__restrict__ key, unsigned char *__restrict__ newc)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const uint64_t ki = key[i];
  int top = sps_cls_state(ki) == SPS_CLS_UNDECIDED;
  for (int64_t k = srp[i]; top && k < srp[i + 1]; k++) {
    const int32_t j = sci[k];
    if (sps_cls_state(key[j]) == SPS_CLS_UNDECIDED && !cls_greater(ki, i, key[j], j)) top = 0;
  }
  for (int64_t k = strp[i]; top && k < strp[i + 1]; k++) {
    const int32_t j = stci[k];
    if (sps_cls_state(key[j]) == SPS_CLS_UNDECIDED && !cls_greater(ki, i, key[j], j)) top = 0;
  }
  newc[i] = (unsigned char)top;
}

__global__ void __launch_bounds__(kThreads)
    pmis_update_kernel(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
                       const unsigned char *__restrict__ newc, uint64_t *__restrict__ key,
                       unsigned long long *__restrict__ undecided)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int still = 0;
  if (i < n && sps_cls_state(key[i]) == SPS_CLS_UNDECIDED) {
    const uint64_t low = key[i] & SPS_AGG_PRIORITY_MASK;
    if (newc[i]) {
      key[i] = ((uint64_t)SPS_CLS_C << 62) | low;
    } else {
      int f = 0;
      for (int64_t k = srp[i]; !f && k < srp[i + 1]; k++)
        f = newc[sci[k]];
      if (f)
        key[i] = ((uint64_t)SPS_CLS_F << 62) | low;
      else
        still = 1;
    }
  }
  block_count(still, undecided);
}

__global__ void __launch_bounds__(kThreads)
    cflags_kernel(int64_t n, const uint64_t *__restrict__ key, int64_t *__restrict__ flag)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) flag[n] = 0;
  if (i < n) flag[i] = sps_cls_state(key[i]) == SPS_CLS_C;
}

__global__ void __launch_bounds__(kThreads)
    split_count_kernel(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
                       const uint64_t *__restrict__ key, int64_t *__restrict__ count2,
                       int64_t *__restrict__ count1)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) {
    count2[n] = 0;
    count1[n] = 0;
  }
  if (i >= n) return;
  const int fi = sps_cls_state(key[i]) != SPS_CLS_C;
  int64_t c2 = fi, c1 = 0;
  for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
    const int cj = sps_cls_state(key[sci[k]]) == SPS_CLS_C;
    c1 += cj;
    c2 += fi && !cj;
  }
  count2[i] = c2;
  count1[i] = c1;
}

__global__ void __launch_bounds__(kThreads)
    split_fill_kernel(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
                      const uint64_t *__restrict__ key, const int64_t *__restrict__ m2rp,
                      int32_t *__restrict__ m2ci, double *__restrict__ m2v,
                      const int64_t *__restrict__ m1rp, int32_t *__restrict__ m1ci,
                      double *__restrict__ m1v)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const int fi = sps_cls_state(key[i]) != SPS_CLS_C;
  int64_t a2 = m2rp[i], a1 = m1rp[i];
  int self = !fi;
  for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
    const int32_t j = sci[k];
    if (!self && j > i) {
      m2ci[a2] = (int32_t)i;
      m2v[a2++] = 1.0;
      self = 1;
    }
    if (sps_cls_state(key[j]) == SPS_CLS_C) {
      m1ci[a1] = j;
      m1v[a1++] = 1.0;
    } else if (fi) {
      m2ci[a2] = j;
      m2v[a2++] = 1.0;
    }
  }
  if (!self) {
    m2ci[a2] = (int32_t)i;
    m2v[a2] = 1.0;
  }
}

__global__ void __launch_bounds__(kThreads)
    interp_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                  const double *__restrict__ v, const int64_t *__restrict__ srp,
                  const int32_t *__restrict__ sci, const uint64_t *__restrict__ key,
                  const int64_t *__restrict__ hrp, const int32_t *__restrict__ hci,
                  double *__restrict__ hv)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n || sps_cls_state(key[i]) == SPS_CLS_C) return;
  const int64_t hb = hrp[i], he = hrp[i + 1];
  double d = 0.0;
  for (int64_t h = hb; h < he; h++)
    hv[h] = 0.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    const int32_t m = ci[k];
    const double a = v[k];
    if (m == i) {
      d += a;
      continue;
    }
    const int64_t h = find_col(hci, hb, he, m);
    if (h >= 0) {
      hv[h] += a;
      continue;
    }
    if (sps_cls_state(key[m]) == SPS_CLS_C || find_col(sci, srp[i], srp[i + 1], m) < 0) {
      d += a;
      continue;
    }
    const int64_t dm = find_col(ci, rp[m], rp[m + 1], m);
    const double s = dm >= 0 && v[dm] < 0.0 ? -1.0 : 1.0;
    double sum = 0.0;
    for (int64_t q = rp[m]; q < rp[m + 1]; q++) {
      const int32_t l = ci[q];
      if (l == m || !(s * v[q] < 0.0)) continue;
      if (l == i || find_col(hci, hb, he, l) >= 0) sum += v[q];
    }
    if (sum == 0.0) {
      d += a;
      continue;
    }
    const double dist = a / sum;
    for (int64_t q = rp[m]; q < rp[m + 1]; q++) {
      const int32_t l = ci[q];
      if (l == m || !(s * v[q] < 0.0)) continue;
      if (l == i) {
        d += dist * v[q];
        continue;
      }
      const int64_t h2 = find_col(hci, hb, he, l);
      if (h2 >= 0) hv[h2] += dist * v[q];
    }
  }
  for (int64_t h = hb; h < he; h++)
    hv[h] = d != 0.0 ? hv[h] / -d : 0.0;
}

} // namespace

extern "C" {

cudaError_t sps_cuda_cls_strength_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                        const int32_t *ci, const double *v, double theta,
                                        double max_row_sum, int64_t *count)
{
  strength_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, rp, ci, v, theta, max_row_sum,
                                                             count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_strength_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                       const int32_t *ci, const double *v, double theta,
                                       double max_row_sum, const int64_t *srp, int32_t *sci)
{
  if (n > 0)
    strength_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, theta, max_row_sum, srp,
                                                          sci);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_pmis_init(cudaStream_t s, int64_t n, const int64_t *strp, uint64_t *key,
                                   unsigned long long *undecided)
{
  cudaError_t e = cudaMemsetAsync(undecided, 0, sizeof *undecided, s);
  if (e != cudaSuccess) return e;
  if (n > 0) pmis_init_kernel<<<grid_for(n), kThreads, 0, s>>>(n, strp, key, undecided);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_pmis_select(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const int64_t *strp, const int32_t *stci,
                                     const uint64_t *key, unsigned char *newc)
{
  if (n > 0)
    pmis_select_kernel<<<grid_for(n), kThreads, 0, s>>>(n, srp, sci, strp, stci, key, newc);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_pmis_update(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const unsigned char *newc, uint64_t *key,
                                     unsigned long long *undecided)
{
  cudaError_t e = cudaMemsetAsync(undecided, 0, sizeof *undecided, s);
  if (e != cudaSuccess) return e;
  if (n > 0) pmis_update_kernel<<<grid_for(n), kThreads, 0, s>>>(n, srp, sci, newc, key, undecided);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_cflags(cudaStream_t s, int64_t n, const uint64_t *key, int64_t *flag)
{
  cflags_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, key, flag);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_split_count(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const uint64_t *key, int64_t *count2,
                                     int64_t *count1)
{
  split_count_kernel<<<grid_for(n + 1), kThreads, 0, s>>>(n, srp, sci, key, count2, count1);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_split_fill(cudaStream_t s, int64_t n, const int64_t *srp,
                                    const int32_t *sci, const uint64_t *key, const int64_t *m2rp,
                                    int32_t *m2ci, double *m2v, const int64_t *m1rp, int32_t *m1ci,
                                    double *m1v)
{
  if (n > 0)
    split_fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, srp, sci, key, m2rp, m2ci, m2v, m1rp,
                                                       m1ci, m1v);
  return cudaGetLastError();
}

cudaError_t sps_cuda_cls_interp(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                const double *v, const int64_t *srp, const int32_t *sci,
                                const uint64_t *key, const int64_t *hrp, const int32_t *hci,
                                double *hv)
{
  if (n > 0)
    interp_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, srp, sci, key, hrp, hci, hv);
  return cudaGetLastError();
}

} // extern "C"
