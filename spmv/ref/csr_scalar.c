/* csr_scalar.c: CPU reference of the csr-scalar variant, y <- alpha*A*x + beta*y with one row per loop iteration.
 *
 * y_i = alpha * s_i + beta * y_i, s_i = fl(hi + lo) of the compensated sum (TwoSum,
 * core/compensated_sum.h) of the rounded products values[k] * x[colind[k]] added in order
 * k = rowptr[i], ..., rowptr[i+1]-1. Every other compensated variant (csr-vector, ell,
 * merge, blockwise, binned, CPU or GPU) gives the same bits bar rare ties; the tests hold them to it.
 *
 * Thread-to-data map: groups of SPS_CSR_LANES consecutive rows are shared among OpenMP threads
 * in dynamic chunks (256 rows), so a few long rows do not leave one thread with all the work.
 * Within a group the rows advance in lockstep, one entry of each row per step, for as many
 * entries as the shortest row has, as the lanes of one vector; then each row finishes its own
 * entries alone (core/csum_lanes.h: two rows per 16-byte vector). A row's sum is one chain of
 * dependent additions (each TwoSum waits on the previous hi), so one row at a time runs at the
 * latency of an addition per entry; four independent chains side by side run at the adders'
 * throughput instead. Every row still adds the same rounded products in the same order with the
 * same operations, so its bits are those of one row at a time; no row's sum depends on which
 * thread or group ran it. Matrices whose rows hold fewer than SPS_CSR_LANES_MIN entries on
 * average run one row at a time: there the lanes lost (1138_bus, 2.3 entries a row: 8.2 against
 * 10.5 us per CG iteration, 1 thread).
 */
#include "kernels.h"

#include "../../core/csum_lanes.h"

/* Rows summed side by side, and the mean row length below which rows go one at a time. */
#define SPS_CSR_LANES 4
#define SPS_CSR_LANES_MIN 4

static inline void csr_row_tail(sps_csum *acc, int64_t k, int64_t end, const int32_t *colind,
                                const double *values, const double *x)
{
  for (; k < end; k++) sps_csum_add(acc, values[k] * x[colind[k]]);
}

static inline void csr_row_store(sps_csum acc, double alpha, double beta, double *yi)
{
  const double s = sps_csum_value(acc);
  *yi = beta == 0.0 ? alpha * s : alpha * s + beta * *yi;
}

void sps_ref_csr_scalar(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, double alpha, const double *x, double beta,
                        double *y)
{
  /* Short rows (fewer than SPS_CSR_LANES_MIN entries on average: circuits, power networks)
   * share little lockstep, and the group's bookkeeping costs more than the lanes gain. */
  if (nrows > 0 && rowptr[nrows] - rowptr[0] < SPS_CSR_LANES_MIN * nrows) {
#pragma omp parallel for schedule(dynamic, 256) if (nrows > 4096)
    for (int64_t i = 0; i < nrows; i++) {
      sps_csum acc = sps_csum_zero();
      csr_row_tail(&acc, rowptr[i], rowptr[i + 1], colind, values, x);
      csr_row_store(acc, alpha, beta, &y[i]);
    }
    return;
  }
  const int64_t ngroups = (nrows + SPS_CSR_LANES - 1) / SPS_CSR_LANES;
#pragma omp parallel for schedule(dynamic, 256 / SPS_CSR_LANES) if (nrows > 4096)
  for (int64_t g = 0; g < ngroups; g++) {
    const int64_t i0 = g * SPS_CSR_LANES;
    sps_csum acc[SPS_CSR_LANES];
    int64_t k[SPS_CSR_LANES], end[SPS_CSR_LANES];
    const int nl = nrows - i0 < SPS_CSR_LANES ? (int)(nrows - i0) : SPS_CSR_LANES;
    int64_t common = INT64_MAX;
    for (int l = 0; l < nl; l++) {
      acc[l] = sps_csum_zero();
      k[l] = rowptr[i0 + l];
      end[l] = rowptr[i0 + l + 1];
      if (end[l] - k[l] < common) common = end[l] - k[l];
    }
#ifdef SPS_CSUM_LANES
    if (nl == SPS_CSR_LANES && common > 0) {
      /* rows 0 and 1 in the lanes of (hi0, lo0), rows 2 and 3 in those of (hi1, lo1) */
      sps_lanes hi0 = {0.0, 0.0}, lo0 = {0.0, 0.0}, hi1 = {0.0, 0.0}, lo1 = {0.0, 0.0};
      for (int64_t d = 0; d < common; d++) {
        const sps_lanes a0 = {values[k[0] + d], values[k[1] + d]};
        const sps_lanes a1 = {values[k[2] + d], values[k[3] + d]};
        const sps_lanes b0 = {x[colind[k[0] + d]], x[colind[k[1] + d]]};
        const sps_lanes b1 = {x[colind[k[2] + d]], x[colind[k[3] + d]]};
        sps_lanes_add(&hi0, &lo0, a0 * b0);
        sps_lanes_add(&hi1, &lo1, a1 * b1);
      }
      sps_lanes_store(hi0, lo0, acc);
      sps_lanes_store(hi1, lo1, acc + 2);
      for (int l = 0; l < SPS_CSR_LANES; l++) k[l] += common;
    }
#endif
    for (int l = 0; l < nl; l++) {
      csr_row_tail(&acc[l], k[l], end[l], colind, values, x);
      csr_row_store(acc[l], alpha, beta, &y[i0 + l]);
    }
  }
}
