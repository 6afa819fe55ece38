/* long_part.cuh: one thread block's part of a long row, with the ordered merge of the parts, shared by the blockwise and binned SpMV kernels. */
#ifndef SPS_SPMV_CUDA_LONG_PART_CUH
#define SPS_SPMV_CUDA_LONG_PART_CUH

#include <cstdint>

#include "reduce.cuh"

/*
 * Part `part` of the `parts` parts of row r: entries [rowptr[r] + part*part_nnz, +part_nnz)
 * strided over the block's Threads threads (thread t adds entries t, t+Threads, ... into its
 * compensated pair), a warp shuffle tree, then a second one over the Threads/32 warp sums
 * staged in warp_sum (shared memory, Threads/32 pairs). A row of one part is written at once,
 * y_r <- alpha*fl(hi + lo) + beta*y_r. Otherwise the part's pair goes to partial[2*index],
 * partial[2*index + 1] (index: the block's place in its table, the row's first part at
 * index - part) and the last part to arrive (counter[slot], zero between calls and reset by
 * that block) merges the parts' pairs in part order and writes y_r, so the bits do not depend
 * on the order the blocks run in. The CPU references (spmv/ref/blockwise.c, spmv/ref/binned.c)
 * repeat the same orders.
 */
template <int Threads, typename Off>
__device__ __forceinline__ void
sps_long_row_part(const Off *__restrict__ rowptr, const int32_t *__restrict__ colind,
                  const double *__restrict__ values, int64_t r, int64_t part, int64_t parts,
                  int64_t part_nnz, int64_t slot, int64_t index, double *__restrict__ partial,
                  unsigned *__restrict__ counter, double alpha, const double *__restrict__ x,
                  double beta, double *__restrict__ y, sps_csum *warp_sum)
{
  constexpr int kWarpsInBlock = Threads / 32;
  const int64_t row_end = __ldg(&rowptr[r + 1]);
  const int64_t k0 = __ldg(&rowptr[r]) + part * part_nnz;
  const int64_t k1 = k0 + part_nnz < row_end ? k0 + part_nnz : row_end;
  sps_csum s = sps_csum_zero();
  for (int64_t k = k0 + threadIdx.x; k < k1; k += Threads)
    sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  s = sps_group_csum<32>(s);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x >= 32) return;
  s = threadIdx.x < kWarpsInBlock ? warp_sum[threadIdx.x] : sps_csum_zero();
  s = sps_group_csum<32>(s);
  if (threadIdx.x != 0) return;
  if (parts == 1) {
    y[r] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[r]);
    return;
  }
  partial[2 * index] = s.hi;
  partial[2 * index + 1] = s.lo;
  /* Make this part's sum visible before counting it; the last arrival sums all parts. */
  __threadfence();
  if (atomicAdd(&counter[slot], 1u) != (unsigned)(parts - 1)) return;
  __threadfence();
  sps_csum total = sps_csum_zero();
  const int64_t first = index - part;
  for (int64_t q = first; q < first + parts; q++) {
    sps_csum c;
    c.hi = __ldcg(&partial[2 * q]);
    c.lo = __ldcg(&partial[2 * q + 1]);
    sps_csum_merge(&total, c);
  }
  y[r] = sps_axpby_out(alpha, sps_csum_value(total), beta, &y[r]);
  counter[slot] = 0u;
}

#endif
