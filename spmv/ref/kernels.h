/* kernels.h: the CPU reference SpMV kernels, one per variant, each computing y <- alpha*A*x + beta*y on its own format. */
#ifndef SPS_SPMV_REF_KERNELS_H
#define SPS_SPMV_REF_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CSR, one row at a time (OpenMP over rows). y is not read when beta = 0. */
void sps_ref_csr_scalar(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, double alpha, const double *x, double beta,
                        double *y);

/*
 * CSR with tpr (1, 2, 4, ..., 32) lanes per row: lane l sums entries l, l+tpr, ... of the row
 * and the lane sums are combined by the same halving tree as the GPU's shuffles.
 */
void sps_ref_csr_vector(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, int tpr, double alpha, const double *x, double beta,
                        double *y);

/*
 * Column-major ELLPACK: entry k of row i at k*ld + i (ld >= nrows), width entries per row;
 * a padding entry has column -1 (and value 0) and ends its row.
 */
void sps_ref_ell(int64_t nrows, int64_t ld, int64_t width, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y);

/*
 * Triplets in row order, one after another (deterministic): y <- beta*y (skipped when
 * beta = 1), then y_r += alpha*a*x_c.
 */
void sps_ref_coo(int64_t nrows, int64_t nnz, const int32_t *rowind, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y);

/*
 * Merge-path CSR: share t of the merged list (row ends + nonzeros) starts at diagonal
 * t*items, in row start_row[t]; rows a share finishes are written, the partial sum of the
 * row it stops in goes to (carry_row[t], carry_val[t]) and is added in a fix-up pass.
 */
void sps_ref_merge(int64_t nrows, int64_t nnz, const int64_t *rowptr, const int32_t *colind,
                   const double *values, int64_t nshares, int items, const int32_t *start_row,
                   int32_t *carry_row, double *carry_val, double alpha, const double *x,
                   double beta, double *y);

/*
 * One block of the blockwise variant (seed 002). kind SPS_BLOCK_SHORT: rows
 * [row, row + count) served by groups of tpr lanes (CSR-vector). kind SPS_BLOCK_LONG: part
 * `count` of the `parts` parts of the long row `row`; a row of one part is finished by its
 * block; otherwise each part leaves its sum in partial[descriptor index] and the last part
 * to finish (counter[slot] counts arrivals) adds the parts in order and writes y.
 */
enum { SPS_BLOCK_SHORT = 0, SPS_BLOCK_LONG = 1 };
typedef struct sps_block_desc {
  int32_t row;   /* first row (short) or the row (long) */
  int32_t count; /* rows in the block (short) or part index (long) */
  int16_t kind;  /* SPS_BLOCK_SHORT or SPS_BLOCK_LONG */
  int16_t tpr;   /* lanes per row (short) */
  int32_t parts; /* parts of the long row (long); its first part is descriptor (index - count) */
  int32_t slot;  /* arrival counter of a long row of several parts */
  int32_t pad;
} sps_block_desc;

/* Threads of one blockwise block, and the nonzeros one part of a long row covers. */
#define SPS_BLOCKWISE_THREADS 256
#define SPS_BLOCKWISE_PART_NNZ 8192
/* The most nonzeros of one short block (its products fit in 16 KB of shared memory). */
#define SPS_BLOCKWISE_NNZ 2048

/* hyb: the ELL part (which applies beta) and then the COO part added with beta = 1. */
void sps_ref_hyb(int64_t nrows, int64_t ld, int64_t width, const int32_t *ell_colind,
                 const double *ell_values, int64_t coo_nnz, const int32_t *coo_rowind,
                 const int32_t *coo_colind, const double *coo_values, double alpha,
                 const double *x, double beta, double *y);

void sps_ref_blockwise(const int64_t *rowptr, const int32_t *colind, const double *values,
                       int64_t nblocks, const sps_block_desc *blocks, double *partial,
                       double alpha, const double *x, double beta, double *y);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_REF_KERNELS_H */
