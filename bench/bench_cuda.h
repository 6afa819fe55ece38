/* bench_cuda.h: the error macros of the benchmarks that call cuSPARSE and the CUDA runtime themselves (precond-bench, spgemm-bench); CUDA builds only. */
#ifndef SPS_BENCH_CUDA_H
#define SPS_BENCH_CUDA_H

#include <stdio.h>

#include "../core/cuda_state.h"

/*
 * CS(call), CU(call): on a cuSPARSE or CUDA error, write what failed into the caller's
 * `status` (a char array of 256) and jump to the caller's `done` label.
 */
#define CS(call)                                                                               \
  do {                                                                                         \
    cusparseStatus_t e_ = (call);                                                              \
    if (e_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
      snprintf(status, 256, "cuSPARSE: %s: %s", #call, cusparseGetErrorString(e_));            \
      goto done;                                                                               \
    }                                                                                          \
  } while (0)
#define CU(call)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      snprintf(status, 256, "CUDA: %s: %s", #call, cudaGetErrorString(e_));                    \
      goto done;                                                                               \
    }                                                                                          \
  } while (0)

#endif /* SPS_BENCH_CUDA_H */
