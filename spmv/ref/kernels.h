/* kernels.h: the CPU reference SpMV kernels, one per variant, each computing y <- alpha*A*x + beta*y on its own format. */
#ifndef SPS_SPMV_REF_KERNELS_H
#define SPS_SPMV_REF_KERNELS_H

#include <stdint.h>

#include "../../core/compensated_sum.h"

/*
 * Row sums. csr-scalar, csr-vector, ell, merge, blockwise and binned add each row's rounded
 * products a_ik*x_k into a compensated sum (sps_csum, TwoSum) in their own orders and write
 * y_i <- alpha*fl(hi + lo) + beta*y_i: they give the same bits as one another, on the CPU and
 * on the GPU, bar rare ties (a row sum within about n^2 u^2 sum|a_ik x_k| of a rounding
 * boundary). coo and hyb add plain products into y (with atomics on the GPU) and cusparse is
 * the library's: those three depend on the order of the atomics or on the library, agree with
 * the others only to rounding, and the AUTO choice (spmv/plan.c) never picks them.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* CSR, one row at a time (OpenMP over rows), in entry order. y is not read when beta = 0. */
void sps_ref_csr_scalar(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, double alpha, const double *x, double beta,
                        double *y);

/*
 * The sliced copy of a CSR matrix that the csr-scalar plan keeps on the CPU when the processor
 * has AVX2 or AVX-512F (SELL-8, Kreutzer et al., SIAM J. Sci. Comput. 36 (2014), C401): rows in
 * slices of SPS_SLICE rows, each slice stored column-major to the length of its longest row,
 * so that the slice's rows are the lanes of vectors loaded whole: entry d of the row in lane l
 * of slice s sits at offset[s] + SPS_SLICE*d + l; padding entries (past a row's length, and the
 * lanes past nrows in the last slice) hold value 0 and column 0 and are masked out by the row
 * lengths. Without perm, lane l of slice s is row SPS_SLICE*s + l. With perm (SELL-8-sigma:
 * rows sorted by length within windows of sigma = SPS_SLICE * SPS_SLICE_WINDOW consecutive
 * rows, so that a slice's rows have close lengths and little padding), it is row
 * perm[SPS_SLICE*s + l], a row of the same window: a window's rows are its slices' lanes, and
 * the lanes past nrows stay at the end of the last slice. Every row adds its rounded products
 * in entry order by TwoSum, as sps_ref_csr_scalar does, so the result has its bits whatever
 * the lane a row takes.
 */
#define SPS_SLICE 8
/* Slices a window holds: the unit the rows are sorted in, the OpenMP chunk of the product and
 * the run of the fused dot (256 rows: a run's x and y stay in the first-level cache). */
#define SPS_SLICE_WINDOW 32
typedef struct sps_csr_sliced {
  int64_t nrows, nslices;
  int64_t *offset; /* nslices + 1, multiples of SPS_SLICE */
  int32_t *width;  /* nslices: the longest row of the slice */
  int32_t *common; /* nslices: the shortest row (steps below it need no mask) */
  int32_t *len;    /* SPS_SLICE * nslices: the lanes' row lengths, 0 past nrows */
  int32_t *perm;   /* SPS_SLICE * nslices: the lanes' rows (INT32_MAX past nrows), or NULL */
  double *values;  /* offset[nslices] */
  int32_t *colind; /* offset[nslices] */
} sps_csr_sliced;

/* Copy the CSR values and columns into a layout whose offset, width, common and len are set. */
void sps_ref_csr_sliced_fill(sps_csr_sliced *S, const int64_t *rowptr, const int32_t *colind,
                             const double *values);

/*
 * y <- alpha*A*x + beta*y from the slices (y not read when beta = 0), with the kernel of isa
 * (sps_cpu_isa: SPS_CPU_ISA_AVX2 or SPS_CPU_ISA_AVX512; the caller checked that the processor
 * runs it); OpenMP over slices. The bits of sps_ref_csr_scalar.
 */
void sps_ref_csr_sliced(const sps_csr_sliced *S, int isa, double alpha, const double *x,
                        double beta, double *y);

/*
 * y <- alpha*A*x for square A (n rows) from the slices, and *xy <- the compensated sum of
 * x_i y_i over i, in one pass: each OpenMP thread takes the rows [lo, hi) that the CPU
 * backend's dot gives it (core/omp_csum.h: the static split, forked from SPS_OMP_MIN rows),
 * makes their y in runs of whole slices (and the rows of a slice cut by lo or hi from the CSR
 * arrays, one row at a time), and adds x_i y_i in order i right after each run, while x and y
 * are in cache; the threads' sums merge as the dot's reduction merges them. So y has the bits
 * of sps_ref_csr_sliced and *xy those of the dot of x and y (this rank's terms).
 */
void sps_ref_csr_sliced_dot(const sps_csr_sliced *S, int isa, const int64_t *rowptr,
                            const int32_t *colind, const double *values, double alpha,
                            const double *x, double *y, sps_csum *xy);

/* The kernels of one instruction set on slices [s0, s1) (csr_sliced_avx2.c, _avx512.c). */
void sps_ref_csr_sliced_avx2(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                             const double *x, double beta, double *y);
void sps_ref_csr_sliced_avx512(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                               const double *x, double beta, double *y);

/*
 * CSR with tpr (1, 2, 4, ..., 32) lanes per row: lane l sums entries l, l+tpr, ... of the row
 * and the lane sums are merged by the same halving tree as the GPU's shuffles.
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
 * beta = 1), then y_r += alpha*a*x_c, plain sums. The GPU kernel adds with atomics, so its
 * result depends on their order and is not bitwise that of this reference.
 */
void sps_ref_coo(int64_t nrows, int64_t nnz, const int32_t *rowind, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y);

/*
 * Merge-path CSR: share t of the merged list (row ends + nonzeros) starts at diagonal
 * t*items, in row start_row[t]; rows that begin and end in a share are written by it, the
 * compensated partial sum of the row it stops in goes to (carry_row[t], carry_val[2t],
 * carry_val[2t+1]), and a fix-up pass finishes each row split between shares from the
 * carries (carry_val holds 2*nshares doubles).
 */
void sps_ref_merge(int64_t nrows, int64_t nnz, const int64_t *rowptr, const int32_t *colind,
                   const double *values, int64_t nshares, int items, const int32_t *start_row,
                   int32_t *carry_row, double *carry_val, double alpha, const double *x,
                   double beta, double *y);

/*
 * One block of the blockwise variant (seed 002). kind SPS_BLOCK_SHORT: rows
 * [row, row + count) served by groups of tpr lanes (CSR-vector). kind SPS_BLOCK_LONG: part
 * `count` of the `parts` parts of the long row `row`; a row of one part is finished by its
 * block; otherwise each part leaves its compensated sum in partial[2*index], partial[2*index
 * + 1] (partial holds 2*nblocks doubles) and the last part to finish (counter[slot] counts
 * arrivals) merges the parts in order and writes y.
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
/* A row of more nonzeros than this is long in the blockwise partition: it gets whole blocks,
 * ceil(len / SPS_BLOCKWISE_PART_NNZ) of them. */
#define SPS_BLOCKWISE_LONG 64
/* The most nonzeros of one short block (its products fit in 16 KB of shared memory). */
#define SPS_BLOCKWISE_NNZ 2048

/*
 * hyb: the ELL part (which applies beta; compensated row sums) and then the COO part added
 * with beta = 1 (plain sums; atomics on the GPU, so the GPU result depends on their order).
 */
void sps_ref_hyb(int64_t nrows, int64_t ld, int64_t width, const int32_t *ell_colind,
                 const double *ell_values, int64_t coo_nnz, const int32_t *coo_rowind,
                 const int32_t *coo_colind, const double *coo_values, double alpha,
                 const double *x, double beta, double *y);

void sps_ref_blockwise(const int64_t *rowptr, const int32_t *colind, const double *values,
                       int64_t nblocks, const sps_block_desc *blocks, double *partial,
                       double alpha, const double *x, double beta, double *y);

/*
 * The binned variant (ACSR-style: rows binned by length, each bin with its own threads per
 * row). Three bins, each a range of thread blocks of one launch:
 *   - long rows (more than SPS_BINNED_WARP_MAX nonzeros): part `part` of the `parts` parts of
 *     row `row` covers SPS_BINNED_PART_NNZ of its nonzeros (one thread block per part); a row
 *     of one part is finished by its block, otherwise each part leaves its compensated sum in
 *     partial[2*index], partial[2*index + 1] (index: the part's place in the long table) and
 *     the last part to finish (counter[slot]) merges the parts in order and writes y;
 *   - warp rows (SPS_BINNED_SHORT + 1 .. SPS_BINNED_WARP_MAX nonzeros): one warp per row of
 *     the list `warp_rows` (ascending), lane l summing entries l, l+32, ... and the 32 lane
 *     sums merged by the halving tree;
 *   - short tiles: rows [row, row + count) of which those of at most SPS_BINNED_SHORT
 *     nonzeros (empty ones included) are summed in entry order (csr-scalar's order); the
 *     longer rows of the range are left to their own bins. A tile holds at most
 *     SPS_BINNED_TILE_ROWS rows and SPS_BINNED_TILE_NNZ nonzeros of short rows.
 * Every row is written by exactly one bin.
 */
typedef struct sps_binned_long {
  int32_t row;   /* the long row */
  int32_t part;  /* which part of it; its first part is entry (index - part) of the table */
  int32_t parts; /* parts of the row */
  int32_t slot;  /* arrival counter of a row of several parts, else -1 */
} sps_binned_long;

typedef struct sps_binned_tile {
  int32_t row;   /* first row of the range */
  int32_t count; /* rows in the range */
} sps_binned_tile;

/* Threads of one binned block; the bin limits (nonzeros per row) and the tile sizes. */
#define SPS_BINNED_THREADS 256
#define SPS_BINNED_SHORT 32
#define SPS_BINNED_WARP_MAX 1024
#define SPS_BINNED_PART_NNZ 8192
#define SPS_BINNED_TILE_ROWS 1024
#define SPS_BINNED_TILE_NNZ 2048

void sps_ref_binned(const int64_t *rowptr, const int32_t *colind, const double *values,
                    int64_t nlong, const sps_binned_long *longs, int64_t nwarp,
                    const int32_t *warp_rows, int64_t ntiles, const sps_binned_tile *tiles,
                    double *partial, double alpha, const double *x, double beta, double *y);

/*
 * The integer sums behind sps_matrix_stats (spmv/stats.c turns them into its fields), the same
 * on the CPU (sps_ref_stats) and the GPU (sps_cuda_stats) to the bit, whatever the order of
 * the additions. Every field is a sum or a maximum whose identity is 0, so the GPU's words
 * start (and are left) at zero: the shortest row is kept as the maximum of ~len (bitwise
 * complement). Row
 * lengths are below 2^31 (the columns of a row are distinct int32 indices), so with
 * k = round(nnz/rows) every |len - k| <= 2^31 and every (len - k)^2 <= 2^62, and every
 * |col - row| < 2^31; their sums over up to 2^63 entries could pass 2^64, so those two are kept
 * in 128 bits as (lo, hi) pairs (sps_u128_add). The other sums are at most nnz + rows.
 * s1 is sum (len - k) in two's complement.
 */
typedef struct sps_stats_sums {
  uint64_t s1;            /* sum (len - k), as int64 */
  uint64_t s2_lo, s2_hi;  /* sum (len - k)^2 = s2_hi * 2^64 + s2_lo */
  uint64_t min_inv;       /* max over rows of ~len = ~(shortest row); 0 without rows */
  uint64_t max_len;       /* longest row */
  uint64_t empty;         /* rows with no entry */
  uint64_t over32;        /* rows longer than 32 */
  uint64_t over1024;      /* rows longer than 1024 */
  uint64_t long_rows;     /* rows longer than SPS_BLOCKWISE_LONG */
  uint64_t long_blocks;   /* sum over those of ceil(len / SPS_BLOCKWISE_PART_NNZ) */
  uint64_t dist_lo, dist_hi; /* sum over entries of |col - row| (columns pass) */
  uint64_t windows;       /* sum over rows of the distinct col/32 windows (columns pass) */
} sps_stats_sums;

/* Words of sps_stats_sums (the GPU result is this many unsigned 64-bit integers). */
#define SPS_STATS_WORDS 13

/* (hi, lo) <- (hi, lo) + x, exactly, in 128 bits. */
static inline void sps_u128_add(uint64_t *lo, uint64_t *hi, uint64_t x)
{
  *lo += x;
  *hi += *lo < x;
}

/*
 * The sums of a CSR pattern (OpenMP over rows when nrows is large): k is round(nnz/nrows) as
 * spmv/stats.c computes it; columns = 0 leaves dist and windows 0 (colind is then not read).
 */
void sps_ref_stats(int64_t nrows, const int64_t *rowptr, const int32_t *colind, int columns,
                   int64_t k, sps_stats_sums *out);

/*
 * The boundary rows [row0, nrows) of a distributed product (spmv/dist.c): y_i <- alpha*s_i +
 * beta*y_i, s_i the compensated sum of row i of the diagonal block (rowptr, colind, values)
 * times x and of row i of the off-diagonal block (orowptr, ocolind, ovalues) times the halo xh.
 */
void sps_ref_dist_rows(int64_t row0, int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                       const double *values, const int64_t *orowptr, const int32_t *ocolind,
                       const double *ovalues, double alpha, const double *x, const double *xh,
                       double beta, double *y);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_REF_KERNELS_H */
