/* merge.c: CPU reference of the merge variant, walking the same merge-path shares as the GPU kernel.
 *
 * The merged list has nrows + nnz items: the row ends rowptr[1..nrows] and the nonzero
 * indices 0..nnz-1 (Merrill and Garland, SC'16). At path coordinate (i, j) row i is finished
 * when rowptr[i+1] <= j, otherwise nonzero j is consumed. Share t walks the items
 * [t*items, (t+1)*items) from row start_row[t], nonzero t*items - start_row[t]; it writes
 * y_i <- alpha*s + beta*y_i for each row it finishes (s its own part of row i) and leaves
 * the sum of the row it stops in as (carry_row[t], carry_val[t]). The fix-up pass then adds
 * alpha*carry_val[t] to y[carry_row[t]] in share order. Shares write distinct rows, so
 * OpenMP runs them in parallel; the fix-up is serial.
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
    double s = 0.0;
    for (; d < dend; d++) {
      if (i < nrows && rowptr[i + 1] <= j) {
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
        s = 0.0;
        i++;
      } else {
        s += values[j] * x[colind[j]];
        j++;
      }
    }
    carry_row[t] = i < nrows ? (int32_t)i : -1;
    carry_val[t] = s;
  }
  for (int64_t t = 0; t < nshares; t++)
    if (carry_row[t] >= 0) y[carry_row[t]] += alpha * carry_val[t];
}
