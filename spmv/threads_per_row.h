/* threads_per_row.h: the threads-per-row settings of csr-vector that the library, the CLI and the benchmarks accept. */
#ifndef SPS_SPMV_THREADS_PER_ROW_H
#define SPS_SPMV_THREADS_PER_ROW_H

/* The accepted values, for messages and help texts. */
#define SPS_SPMV_TPR_LIST "0 (choose), 1, 2, 4, 8, 16 or 32"

/* 1 when tpr is 0 (the plan chooses from the mean row length) or a power of two up to a warp
 * (lanes of one warp share a row), else 0. */
static inline int sps_spmv_tpr_valid(int tpr)
{
  return tpr == 0 || (tpr >= 1 && tpr <= 32 && (tpr & (tpr - 1)) == 0);
}

#endif /* SPS_SPMV_THREADS_PER_ROW_H */
