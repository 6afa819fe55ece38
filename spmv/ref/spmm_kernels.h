/* spmm_kernels.h: the CPU reference SpMM kernels, one per variant, each computing Y <- alpha*A*X + beta*Y on row-major blocks, and the formats they share with the GPU kernels. */
#ifndef SPS_SPMV_REF_SPMM_KERNELS_H
#define SPS_SPMV_REF_SPMM_KERNELS_H

#include <stdint.h>

#include "../../core/compensated_sum.h"

/*
 * X is ncols x k with leading dimension ldx, Y nrows x k with ldy, both row-major (entry (i, j)
 * at i*ld + j). Every variant of this file sums y_ij = sum_l a_il x_lj as a compensated sum
 * (sps_csum, TwoSum) of the rounded products a_il*x_lj and writes
 * y_ij <- alpha*fl(hi + lo) + beta*y_ij (y_ij not read when beta = 0), which is what the
 * csr-scalar SpMV writes for column j. spmm-csr and sputnik add each row's products in entry
 * order, as csr-scalar does: their columns are csr-scalar's SpMV bit for bit. spmm-balanced
 * adds the parts of a split row in entry order and merges the parts in order: the same bits
 * bar rare ties (a sum within about n^2 u^2 sum|a_il x_lj| of a rounding boundary).
 */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The library's reference SpMM (and spmm-csr's CPU reference): OpenMP over rows; within a row,
 * columns in chunks of 8, each chunk's 8 sums run side by side over the row's entries in order
 * (two sums per 16-byte vector, core/csum_lanes.h: the same operations as one sum alone).
 */
void sps_ref_spmm_csr(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                      const double *values, int64_t k, double alpha, const double *X, int64_t ldx,
                      double beta, double *Y, int64_t ldy);

/*
 * sputnik's layout: warps of SPS_SPUTNIK_WARPS per thread block; a subwarp of S lanes serves one
 * output row (slot s of the grid serves row perm[s], rows in order of decreasing length) and a
 * tile of S*V columns (V = 1 or 2 doubles per lane). Each step the subwarp loads a strip of 2*S
 * entries (S entries with scalar loads) from the row's start rounded down to an even entry
 * (reverse-offset alignment: the entries before the row's start are masked), then every lane
 * adds the strip's products for its columns in entry order.
 */
#define SPS_SPUTNIK_WARPS 4

/* The lanes per row of sputnik for k columns and vector width v: the power of two that covers
 * ceil(k/v) columns, at most 32. The column tile is v times that. */
int sps_spmm_sputnik_lanes(int64_t k, int v);

/*
 * sputnik's CPU reference: the same slots, column tiles, aligned strips and masks as the GPU
 * kernel, one slot after another (OpenMP over slots); perm has nrows entries. avec: 2 when
 * the strips are loaded two entries per lane (double2), else 1.
 */
void sps_ref_spmm_sputnik(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                          const double *values, const int32_t *perm, int64_t k, int xv, int avec,
                          double alpha, const double *X, int64_t ldx, double beta, double *Y,
                          int64_t ldy);

/*
 * spmm-balanced's work units (seed 004): at most SPS_SPMM_UNIT_NNZ entries each. A group unit
 * (count > 0) holds rows [row, row + count) whole, at most SPS_SPMM_UNIT_ROWS of them; a part
 * unit (count < 0) holds entries [begin, min(begin + SPS_SPMM_UNIT_NNZ, end of row)) of the long
 * row `row` and leaves its sums in partial slot -count-1. A subwarp of lanes serves a unit, one
 * lane per column (or pair of columns), adding the unit's products in entry order.
 */
#define SPS_SPMM_UNIT_NNZ 128
#define SPS_SPMM_UNIT_ROWS 64
typedef struct sps_spmm_unit {
  int64_t begin; /* part unit: its first entry (unused for a group) */
  int32_t row;   /* group: first row; part: the long row */
  int32_t count; /* group: rows (> 0); part: -(slot + 1) */
} sps_spmm_unit;

/* A row split into parts: its parts' sums lie in partial slots [slot, slot + parts). */
typedef struct sps_spmm_long_row {
  int32_t row;
  int32_t slot;
  int32_t parts;
  int32_t pad;
} sps_spmm_long_row;

/*
 * spmm-balanced's CPU reference: the units in any order (OpenMP over units), part sums into
 * partial (2*k doubles per slot: column j's hi and lo at 2*(slot*k + j)), then the long rows:
 * y_ij <- alpha*fl(merge of its parts' sums in part order) + beta*y_ij.
 */
void sps_ref_spmm_balanced(const int64_t *rowptr, const int32_t *colind, const double *values,
                           int64_t nunits, const sps_spmm_unit *units, int64_t nlong,
                           const sps_spmm_long_row *longs, double *partial, int64_t k, double alpha,
                           const double *X, int64_t ldx, double beta, double *Y, int64_t ldy);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_REF_SPMM_KERNELS_H */
