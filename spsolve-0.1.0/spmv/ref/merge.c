/* merge.c: CPU reference of the merge variant, walking the same merge-path shares as the GPU kernel.
 *
 * The merged list has nrows + nnz items: the row ends rowptr[1..nrows] and the nonzero
 * indices 0..nnz-1 (Merrill and Garland, SC'16). At path coordinate (i, j) row i is finished
 * when rowptr[i+1] <= j, otherwise nonzero j is consumed. Share t walks the items
 * [t*items, (t+1)*items) from row start_row[t], nonzero j0 = t*items - start_row[t], adding
 * the rounded products of each row into a compensated sum s (core/compensated_sum.h).
 * It writes y_i <- alpha*fl(s.hi + s.lo) + beta*y_i for each row it finishes that began in
 * it (rowptr[i] >= j0), and leaves the sum of the row it stops in as the pair
 * (carry_row[t], carry_val[2t], carry_val[2t+1]).
 * A row r that began in an earlier share is finished by its last share t in the fix-up
 * pass: the carries of the shares q0, ..., t-1 that stopped in r are merged in share order,
 * then t's products of r (entries j0 .. rowptr[r+1]-1) are added, and y_r is written once
 * from the whole row's compensated sum: the same bits as csr-scalar bar rare ties.
 * Shares write distinct rows, so OpenMP runs both passes in parallel.
 */
#include "kernels.h"

void sps_ref_merge(int64_t nrows, int64_t nnz, const int64_t *rowptr, const int32_t *colind,
                   const double *values, int64_t nshares, int items, const int32_t *start_row,
                   int32_t *carry_row, double *carry_val, double alpha, const double *x,
                   double beta, double *y)
{
  const int64_t total = nrows + nnz;
#pragma omp parallel for schedule(static) if (nshares > 1024)
  for (int64_t t = 0; t < nshares; t++) {
    int64_t d = t * items;
    int64_t dend = d + items < total ? d + items : total;
    int64_t i = start_row[t];
    int64_t j = d - i;
    /* The first row began in an earlier share: the fix-up writes it. */
    int split = i < nrows && rowptr[i] < j;
    sps_csum s = sps_csum_zero();
    for (; d < dend; d++) {
      if (i < nrows && rowptr[i + 1] <= j) {
        if (!split) {
          const double v = sps_csum_value(s);
          y[i] = beta == 0.0 ? alpha * v : alpha * v + beta * y[i];
        }
        split = 0;
        s = sps_csum_zero();
        i++;
      } else {
        sps_csum_add(&s, values[j] * x[colind[j]]);
        j++;
      }
    }
    carry_row[t] = i < nrows ? (int32_t)i : -1;
    carry_val[2 * t] = s.hi;
    carry_val[2 * t + 1] = s.lo;
  }
#pragma omp parallel for schedule(static) if (nshares > 1024)
  for (int64_t t = 1; t < nshares; t++) {
    const int64_t r = start_row[t];
    const int64_t j0 = t * items - r;
    const int64_t dend = t * items + items < total ? t * items + items : total;
    /* Share t finishes row r, which began before it. */
    if (r >= nrows || rowptr[r] >= j0 || r + rowptr[r + 1] >= dend) continue;
    int64_t q0 = t - 1;
    while (q0 > 0 && carry_row[q0 - 1] == r) q0--;
    sps_csum s = sps_csum_zero();
    for (int64_t q = q0; q < t; q++) {
      const sps_csum c = {carry_val[2 * q], carry_val[2 * q + 1]};
      sps_csum_merge(&s, c);
    }
    for (int64_t k = j0; k < rowptr[r + 1]; k++) sps_csum_add(&s, values[k] * x[colind[k]]);
    const double v = sps_csum_value(s);
    y[r] = beta == 0.0 ? alpha * v : alpha * v + beta * y[r];
  }
}
