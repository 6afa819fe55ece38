/* transpose.cu: the CUDA kernels of the sparse transpose T = M^T (a counting sort by column done as a stable radix sort), for the restriction R = P^T and the other transposes of the multigrid setup; the same arrays as the CPU reference sps_ref_csr_transpose.
 *
 * The math: T's row j lists the entries of M's column j; the reference walks M's rows in
 * ascending order, so each row of T has its columns (M's rows) ascending. Here: count the
 * entries of each column (an atomic add an entry), scan the counts into T's offsets (host,
 * CUB), sort the pairs (column, entry index) by column with CUB's radix sort, which is stable:
 * within a column the entries stay in index order, that is in row order, so position
 * trp[j] + t of T holds what the reference puts there. The gather then writes each position's
 * row and value. Integers and copies only: the results equal the reference's exactly.
 *
 * Thread-to-data map: tr_count one thread a row of M (its entries' rows and indices written
 * in order, the column counts by atomics); tr_gather one thread a position of T.
 * Memory access: the count reads M's columns once; the sort moves 8 bytes a pair a radix pass
 * (ceil(log2 n / 8) passes, n the columns); the gather reads perm in order and rows and values
 * at random (4 and 8 bytes an entry), writing T in order. Where it wins and loses: a handful
 * of bandwidth-bound passes, well below a sparse product of the same matrix; the radix sort
 * does more passes than a counting sort would, but needs no per-column cursor atomics, whose
 * order would not be deterministic.
 */
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
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
    tr_count_kernel(int64_t m, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                    unsigned long long *__restrict__ count, int32_t *__restrict__ rows,
                    int32_t *__restrict__ iota)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= m) return;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    atomicAdd(&count[ci[k]], 1ull);
    rows[k] = (int32_t)i;
    iota[k] = (int32_t)k;
  }
}

__global__ void __launch_bounds__(kThreads)
    tr_gather_kernel(int64_t nnz, const int32_t *__restrict__ perm,
                     const int32_t *__restrict__ rows, const double *__restrict__ v,
                     int32_t *__restrict__ tci, double *__restrict__ tv)
{
  const int64_t p = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (p >= nnz) return;
  const int32_t k = perm[p];
  tci[p] = rows[k];
  if (v) tv[p] = v[k];
}

} // namespace

extern "C" {

cudaError_t sps_cuda_tr_count(cudaStream_t s, int64_t m, int64_t n, int64_t nnz, const int64_t *rp,
                              const int32_t *ci, int64_t *count, int32_t *rows, int32_t *iota)
{
  (void)nnz;
  cudaError_t e = cudaMemsetAsync(count, 0, ((size_t)n + 1) * sizeof(int64_t), s);
  if (e != cudaSuccess) return e;
  if (m > 0)
    tr_count_kernel<<<grid_for(m), kThreads, 0, s>>>(m, rp, ci, (unsigned long long *)count, rows,
                                                     iota);
  return cudaGetLastError();
}

cudaError_t sps_cuda_tr_sort(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n, int64_t nnz,
                             const int32_t *ci, int32_t *keys_out, const int32_t *iota,
                             int32_t *perm)
{
  int bits = 1;
  while (bits < 31 && ((int64_t)1 << bits) < n)
    bits++;
  return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, (const uint32_t *)ci,
                                         (uint32_t *)keys_out, iota, perm, nnz, 0, bits, s);
}

cudaError_t sps_cuda_tr_gather(cudaStream_t s, int64_t nnz, const int32_t *perm,
                               const int32_t *rows, const double *v, int32_t *tci, double *tv)
{
  if (nnz > 0) tr_gather_kernel<<<grid_for(nnz), kThreads, 0, s>>>(nnz, perm, rows, v, tci, tv);
  return cudaGetLastError();
}

} // extern "C"
