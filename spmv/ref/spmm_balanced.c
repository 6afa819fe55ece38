/* spmm_balanced.c: CPU reference of the spmm-balanced SpMM variant: work units of at most
 * SPS_SPMM_UNIT_NNZ entries, long rows split into parts whose sums are merged in part order.
 *
 * A group unit writes its whole rows: y_ij <- alpha*fl(compensated sum in entry order) +
 * beta*y_ij, the reference SpMM's bits. A part unit leaves the compensated sum (hi, lo) of its
 * entries for each column in partial[2*(slot*k + j)], [.. + 1]; then each long row merges its
 * parts' sums in part order (sps_csum_merge: TwoSum of the hi parts, plain sum of the lo parts),
 * which the GPU's fix-up kernel repeats exactly, so GPU and CPU agree bit for bit and both agree
 * with the entry-order reference bar rare ties.
 */
#include "spmm_kernels.h"

static inline double spmm_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

void sps_ref_spmm_balanced(const int64_t *rowptr, const int32_t *colind, const double *values,
                           int64_t nunits, const sps_spmm_unit *units, int64_t nlong,
                           const sps_spmm_long_row *longs, double *partial, int64_t k, double alpha,
                           const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
#pragma omp parallel for schedule(dynamic, 16) if (nunits * k > 4096)
  for (int64_t u = 0; u < nunits; u++) {
    const sps_spmm_unit un = units[u];
    for (int64_t j = 0; j < k; j++) {
      if (un.count > 0) {
        for (int64_t i = un.row; i < (int64_t)un.row + un.count; i++) {
          sps_csum acc = sps_csum_zero();
          for (int64_t e = rowptr[i]; e < rowptr[i + 1]; e++)
            sps_csum_add(&acc, values[e] * X[(int64_t)colind[e] * ldx + j]);
          Y[i * ldy + j] = spmm_out(alpha, sps_csum_value(acc), beta, &Y[i * ldy + j]);
        }
      } else {
        const int64_t slot = -(int64_t)un.count - 1;
        const int64_t row_end = rowptr[un.row + 1];
        const int64_t end =
            un.begin + SPS_SPMM_UNIT_NNZ < row_end ? un.begin + SPS_SPMM_UNIT_NNZ : row_end;
        sps_csum acc = sps_csum_zero();
        for (int64_t e = un.begin; e < end; e++)
          sps_csum_add(&acc, values[e] * X[(int64_t)colind[e] * ldx + j]);
        partial[2 * (slot * k + j)] = acc.hi;
        partial[2 * (slot * k + j) + 1] = acc.lo;
      }
    }
  }
  /* The fix-up: each long row's parts merged in order. */
#pragma omp parallel for schedule(static) if (nlong * k > 4096)
  for (int64_t r = 0; r < nlong; r++) {
    const sps_spmm_long_row lr = longs[r];
    for (int64_t j = 0; j < k; j++) {
      sps_csum s;
      s.hi = partial[2 * ((int64_t)lr.slot * k + j)];
      s.lo = partial[2 * ((int64_t)lr.slot * k + j) + 1];
      for (int64_t p = 1; p < lr.parts; p++) {
        sps_csum o;
        o.hi = partial[2 * (((int64_t)lr.slot + p) * k + j)];
        o.lo = partial[2 * (((int64_t)lr.slot + p) * k + j) + 1];
        sps_csum_merge(&s, o);
      }
      double *y = &Y[(int64_t)lr.row * ldy + j];
      *y = spmm_out(alpha, sps_csum_value(s), beta, y);
    }
  }
}
