/* amg_classical.c: the CPU reference of classical coarsening for algebraic multigrid (strength of connection, PMIS C/F splitting, extended+i interpolation weights), which the CUDA kernels (precond/cuda/amg_classical.cu) are held to.
 *
 * The math (precond/ref/kernels.h gives each step's rule):
 *   strength  Ruge and Stueben's: j strongly influences i when -s a_ij > theta max_k (-s a_ik),
 *             s the sign of a_ii, and hypre's max_row_sum test, which leaves the rows that are
 *             nearly diagonal (|sum_j a_ij| > max_row_sum |a_ii|) without dependencies;
 *   PMIS      De Sterck, Yang and Heys, SIAM J. Matrix Anal. Appl. 27 (2006): the measure of i
 *             is the number of rows it strongly influences plus a random fraction in [0, 1)
 *             (here the top bits of a hash of i, sps_agg_priority, so that every device draws the
 *             same one), ties broken by the index. Rows that influence none are F from the
 *             start; then rounds of: every undecided row whose measure exceeds that of all its
 *             undecided neighbours in S u S^T becomes C, and every undecided row that strongly
 *             depends on one of those becomes F. The rounds read one state and write another, so
 *             the order of the rows does not matter and the GPU's threads find the same split;
 *   extended+i interpolation  De Sterck, Falgout, Nolting and Yang, Numer. Linear Algebra Appl.
 *             15 (2008), as hypre's hypre_BoomerAMGBuildExtPIInterp computes it: an F row
 *             interpolates from its strong C neighbours and theirs of its strong F neighbours
 *             (distance two), each strong F neighbour's connection distributed over that set and
 *             i itself in proportion to the F neighbour's own connections of the sign opposite
 *             to its diagonal, and the weak connections lumped into the diagonal.
 * Each function is one pass over the rows, with every row's arithmetic in a fixed order; the
 * rows are independent (each writes only its own outputs), so the longer passes share them out
 * over OpenMP threads with the same results.
 */
#include <math.h>

#include "kernels.h"

/* Whether row i depends on anything, and the threshold: m = max_{k != i} -s a_ik. */
static int cls_row(int64_t i, const int64_t *rp, const int32_t *ci, const double *v, double theta,
                   double max_row_sum, double *s, double *cut)
{
  double a = 0.0, sum = 0.0, m = 0.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    sum += v[k];
    if (ci[k] == i) a = v[k];
  }
  *s = a < 0.0 ? -1.0 : 1.0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++)
    if (ci[k] != i) m = fmax(m, -*s * v[k]);
  *cut = theta * m;
  if (!(m > 0.0)) return 0;
  if (max_row_sum < 1.0 && fabs(sum) > max_row_sum * fabs(a)) return 0;
  return 1;
}

void sps_ref_cls_strength_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                                double theta, double max_row_sum, int64_t *count)
{
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    double s, cut;
    int64_t c = 0;
    if (cls_row(i, rp, ci, v, theta, max_row_sum, &s, &cut))
      for (int64_t k = rp[i]; k < rp[i + 1]; k++)
        c += ci[k] != i && -s * v[k] > cut;
    count[i] = c;
  }
  count[n] = 0;
}

void sps_ref_cls_strength_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                               double theta, double max_row_sum, const int64_t *srp, int32_t *sci)
{
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    double s, cut;
    int64_t at = srp[i];
    if (cls_row(i, rp, ci, v, theta, max_row_sum, &s, &cut))
      for (int64_t k = rp[i]; k < rp[i + 1]; k++)
        if (ci[k] != i && -s * v[k] > cut) sci[at++] = ci[k];
  }
}

/* (ka, ia) > (kb, ib) on the measure and priority bits, then the index. */
static int cls_greater(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib)
{
  const uint64_t ma = ka & SPS_AGG_PRIORITY_MASK, mb = kb & SPS_AGG_PRIORITY_MASK;
  return ma > mb || (ma == mb && ia > ib);
}

void sps_ref_cls_pmis_init(int64_t n, const int64_t *strp, uint64_t *key,
                           unsigned long long *undecided)
{
  unsigned long long u = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t m = strp[i + 1] - strp[i];
    if (m > (1 << 30) - 1) m = (1 << 30) - 1;
    const uint64_t state = m > 0 ? SPS_CLS_UNDECIDED : SPS_CLS_F;
    key[i] = ((uint64_t)state << 62) | ((uint64_t)m << 32) | (sps_agg_priority(i) >> 30);
    u += m > 0;
  }
  *undecided = u;
}

void sps_ref_cls_pmis_select(int64_t n, const int64_t *srp, const int32_t *sci, const int64_t *strp,
                             const int32_t *stci, const uint64_t *key, unsigned char *newc)
{
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    const uint64_t ki = key[i];
    int top = sps_cls_state(ki) == SPS_CLS_UNDECIDED;
    for (int64_t k = srp[i]; top && k < srp[i + 1]; k++) {
      const int32_t j = sci[k];
      if (sps_cls_state(key[j]) == SPS_CLS_UNDECIDED && !cls_greater(ki, i, key[j], j)) top = 0;
    }
    for (int64_t k = strp[i]; top && k < strp[i + 1]; k++) {
      const int32_t j = stci[k];
      if (sps_cls_state(key[j]) == SPS_CLS_UNDECIDED && !cls_greater(ki, i, key[j], j)) top = 0;
    }
    newc[i] = (unsigned char)top;
  }
}

void sps_ref_cls_pmis_update(int64_t n, const int64_t *srp, const int32_t *sci,
                             const unsigned char *newc, uint64_t *key,
                             unsigned long long *undecided)
{
  unsigned long long u = 0;
  for (int64_t i = 0; i < n; i++) {
    if (sps_cls_state(key[i]) != SPS_CLS_UNDECIDED) continue;
    const uint64_t low = key[i] & SPS_AGG_PRIORITY_MASK;
    if (newc[i]) {
      key[i] = ((uint64_t)SPS_CLS_C << 62) | low;
      continue;
    }
    int f = 0;
    for (int64_t k = srp[i]; !f && k < srp[i + 1]; k++)
      f = newc[sci[k]];
    if (f)
      key[i] = ((uint64_t)SPS_CLS_F << 62) | low;
    else
      u++;
  }
  *undecided = u;
}

void sps_ref_cls_cflags(int64_t n, const uint64_t *key, int64_t *flag)
{
  for (int64_t i = 0; i < n; i++)
    flag[i] = sps_cls_state(key[i]) == SPS_CLS_C;
  flag[n] = 0;
}

void sps_ref_cls_split_count(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *key,
                             int64_t *count2, int64_t *count1)
{
  for (int64_t i = 0; i < n; i++) {
    const int fi = sps_cls_state(key[i]) != SPS_CLS_C;
    int64_t c2 = fi, c1 = 0;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
      const int cj = sps_cls_state(key[sci[k]]) == SPS_CLS_C;
      c1 += cj;
      c2 += fi && !cj;
    }
    count2[i] = c2;
    count1[i] = c1;
  }
  count2[n] = 0;
  count1[n] = 0;
}

void sps_ref_cls_split_fill(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *key,
                            const int64_t *m2rp, int32_t *m2ci, double *m2v, const int64_t *m1rp,
                            int32_t *m1ci, double *m1v)
{
  for (int64_t i = 0; i < n; i++) {
    const int fi = sps_cls_state(key[i]) != SPS_CLS_C;
    int64_t a2 = m2rp[i], a1 = m1rp[i];
    int self = !fi; /* i itself is placed in M2's row (F rows only), in column order */
    for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
      const int32_t j = sci[k];
      if (!self && j > i) {
        m2ci[a2] = (int32_t)i;
        m2v[a2++] = 1.0;
        self = 1;
      }
      if (sps_cls_state(key[j]) == SPS_CLS_C) {
        m1ci[a1] = j;
        m1v[a1++] = 1.0;
      } else if (fi) {
        m2ci[a2] = j;
        m2v[a2++] = 1.0;
      }
    }
    if (!self) {
      m2ci[a2] = (int32_t)i;
      m2v[a2] = 1.0;
    }
  }
}

/* The position of column j in the sorted columns c[b .. e), or -1. */
static int64_t find_col(const int32_t *c, int64_t b, int64_t e, int32_t j)
{
  while (b < e) {
    const int64_t m = b + (e - b) / 2;
    if (c[m] < j)
      b = m + 1;
    else if (c[m] > j)
      e = m;
    else
      return m;
  }
  return -1;
}

void sps_ref_cls_interp(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                        const int64_t *srp, const int32_t *sci, const uint64_t *key,
                        const int64_t *hrp, const int32_t *hci, double *hv)
{
#pragma omp parallel for schedule(dynamic, 1024) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    if (sps_cls_state(key[i]) == SPS_CLS_C) continue;
    const int64_t hb = hrp[i], he = hrp[i + 1];
    double d = 0.0;
    for (int64_t h = hb; h < he; h++)
      hv[h] = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      const int32_t m = ci[k];
      const double a = v[k];
      if (m == i) {
        d += a;
        continue;
      }
      const int64_t h = find_col(hci, hb, he, m);
      if (h >= 0) {
        hv[h] += a;
        continue;
      }
      if (sps_cls_state(key[m]) == SPS_CLS_C || find_col(sci, srp[i], srp[i + 1], m) < 0) {
        d += a; /* a weak connection */
        continue;
      }
      /* a strong F neighbour m: distribute a_im over C^_i u {i} by m's connections */
      const int64_t dm = find_col(ci, rp[m], rp[m + 1], m);
      const double s = dm >= 0 && v[dm] < 0.0 ? -1.0 : 1.0;
      double sum = 0.0;
      for (int64_t q = rp[m]; q < rp[m + 1]; q++) {
        const int32_t l = ci[q];
        if (l == m || !(s * v[q] < 0.0)) continue;
        if (l == i || find_col(hci, hb, he, l) >= 0) sum += v[q];
      }
      if (sum == 0.0) {
        d += a;
        continue;
      }
      const double dist = a / sum;
      for (int64_t q = rp[m]; q < rp[m + 1]; q++) {
        const int32_t l = ci[q];
        if (l == m || !(s * v[q] < 0.0)) continue;
        if (l == i) {
          d += dist * v[q];
          continue;
        }
        const int64_t h2 = find_col(hci, hb, he, l);
        if (h2 >= 0) hv[h2] += dist * v[q];
      }
    }
    for (int64_t h = hb; h < he; h++)
      hv[h] = d != 0.0 ? hv[h] / -d : 0.0;
  }
}
