/* amg_level.c: the CPU reference of the multigrid setup's pointwise and row-by-row steps (the operator with its diagonal, the smoother's diagonals, the Lanczos start, the tentative and smoothed prolongators, truncation), which the CUDA kernels (precond/cuda/amg_level.cu) are held to.
 *
 * The math of each step is in precond/ref/kernels.h. Each function is one pass over the rows,
 * with every row's arithmetic in a fixed order (entry order, no fused multiply-add), so that the
 * GPU's one thread a row gives the same bits (truncation's rows, independent, are shared out
 * over OpenMP threads); the work arrays and outputs come from the caller.
 */
#include <math.h>

#include "kernels.h"

void sps_ref_amg_diag_count(int64_t n, const int64_t *rp, const int32_t *ci, int64_t *count)
{
  for (int64_t i = 0; i < n; i++) {
    int has = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      has |= ci[k] == i;
    count[i] = rp[i + 1] - rp[i] + !has;
  }
  count[n] = 0;
}

void sps_ref_amg_diag_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                           double scale, const int64_t *orp, int32_t *oci, double *ov)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t at = orp[i];
    int placed = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      if (!placed && ci[k] > i) {
        oci[at] = (int32_t)i;
        ov[at++] = 0.0;
        placed = 1;
      }
      placed |= ci[k] == i;
      oci[at] = ci[k];
      ov[at++] = scale * v[k];
    }
    if (!placed) {
      oci[at] = (int32_t)i;
      ov[at] = 0.0;
    }
  }
}

void sps_ref_amg_smoother_diag(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                               int l1, double *dinv, double *sd, double *dsq,
                               unsigned long long *bad)
{
  unsigned long long first = (unsigned long long)n;
  for (int64_t i = 0; i < n; i++) {
    double a = 0.0, row = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      if (ci[k] == i) a = v[k];
      row += fabs(v[k]);
    }
    const double di = 1.0 / a;
    dinv[i] = di;
    sd[i] = l1 ? (a > 0.0 ? 1.0 : -1.0) / row : di;
    dsq[i] = sqrt(fabs(di));
    if ((a == 0.0 || !isfinite(a) || !isfinite(row)) && (unsigned long long)i < first)
      first = (unsigned long long)i;
  }
  *bad = first;
}

void sps_ref_amg_random(int64_t n, uint64_t seed, double *v)
{
  for (int64_t i = 0; i < n; i++)
    v[i] = sps_amg_random_draw(seed, i);
}

void sps_ref_amg_tent_count(int64_t n, const int32_t *agg, int64_t *count)
{
  for (int64_t i = 0; i < n; i++)
    count[i] = agg[i] >= 0;
  count[n] = 0;
}

void sps_ref_amg_tent_fill(int64_t n, const int32_t *agg, const double *B, const int64_t *trp,
                           int32_t *tci, double *tv)
{
  for (int64_t i = 0; i < n; i++)
    if (agg[i] >= 0) {
      tci[trp[i]] = agg[i];
      tv[trp[i]] = B[i];
    }
}

void sps_ref_amg_row_norms(int64_t m, const int64_t *rp, const double *v, double *norm)
{
  for (int64_t j = 0; j < m; j++) {
    sps_csum s = sps_csum_zero();
    for (int64_t k = rp[j]; k < rp[j + 1]; k++)
      sps_csum_add(&s, v[k] * v[k]);
    norm[j] = sqrt(sps_csum_value(s));
  }
}

void sps_ref_amg_tent_scale(int64_t n, const int64_t *trp, const int32_t *tci, double *tv,
                            const double *norm)
{
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = trp[i]; k < trp[i + 1]; k++)
      tv[k] = tv[k] / norm[tci[k]];
}

void sps_ref_amg_sa_smooth(int64_t n, const int64_t *prp, const int32_t *pci, double *pv,
                           const double *dinv, double omega, const int64_t *trp, const int32_t *tci,
                           const double *tv)
{
  for (int64_t i = 0; i < n; i++) {
    const double w = omega * dinv[i];
    const int has = trp[i + 1] > trp[i];
    const int32_t tc = has ? tci[trp[i]] : -1;
    for (int64_t k = prp[i]; k < prp[i + 1]; k++) {
      double x = -w * pv[k];
      if (has && pci[k] == tc) x += tv[trp[i]];
      pv[k] = x;
    }
  }
}

/* The magnitude below which a row's entries are dropped: tf max_k |v_k| (0 when tf = 0). */
static double trunc_cut(int64_t b, int64_t e, const double *v, double tf)
{
  if (!(tf > 0.0)) return 0.0;
  double big = 0.0;
  for (int64_t k = b; k < e; k++)
    big = fmax(big, fabs(v[k]));
  return tf * big;
}

/*
 * The kept entries of one row: with pm > 0, the positions of the pm largest |v_k| >= cut
 * (earlier entries first on ties) into keep, in entry order; with pm = 0 every entry with
 * |v_k| >= cut is kept and keep is not written. Returns their number.
 */
static int64_t trunc_row(int64_t b, int64_t e, const double *v, double cut, int pm, int64_t *keep)
{
  int64_t cnt = 0;
  if (pm <= 0) {
    for (int64_t k = b; k < e; k++)
      cnt += fabs(v[k]) >= cut;
    return cnt;
  }
  /* keep[0 .. cnt): the largest so far, by decreasing magnitude, earlier first on ties */
  for (int64_t k = b; k < e; k++) {
    const double a = fabs(v[k]);
    if (!(a >= cut)) continue;
    if (cnt == pm && !(a > fabs(v[keep[cnt - 1]]))) continue;
    int64_t at = cnt < pm ? cnt++ : cnt - 1;
    while (at > 0 && a > fabs(v[keep[at - 1]])) {
      keep[at] = keep[at - 1];
      at--;
    }
    keep[at] = k;
  }
  /* back to entry order (insertion sort of at most pm positions) */
  for (int64_t a = 1; a < cnt; a++) {
    const int64_t p = keep[a];
    int64_t q = a;
    for (; q > 0 && keep[q - 1] > p; q--)
      keep[q] = keep[q - 1];
    keep[q] = p;
  }
  return cnt;
}

void sps_ref_amg_trunc_count(int64_t n, const int64_t *rp, const double *v, const int64_t *flag,
                             double tf, int pm, int64_t *count)
{
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    int64_t keep[SPS_AMG_TRUNC_MAX];
    count[i] = flag && flag[i]
                   ? 1
                   : trunc_row(rp[i], rp[i + 1], v, trunc_cut(rp[i], rp[i + 1], v, tf), pm, keep);
  }
  count[n] = 0;
}

void sps_ref_amg_trunc_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                            const double *w, const int64_t *flag, const int64_t *cmap, double tf,
                            int pm, const int64_t *orp, int32_t *oci, double *ov)
{
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; i++) {
    int64_t keep[SPS_AMG_TRUNC_MAX];
    int64_t at = orp[i];
    if (flag && flag[i]) {
      oci[at] = (int32_t)(cmap ? cmap[i] : i);
      ov[at] = 1.0;
      continue;
    }
    const int64_t b = rp[i], e = rp[i + 1];
    const double cut = trunc_cut(b, e, v, tf);
    const int64_t cnt = trunc_row(b, e, v, cut, pm, keep);
    /* the scale that keeps sum_j p_ij w_j: all over kept, both in entry order */
    double all = 0.0, kept = 0.0;
    for (int64_t k = b, q = 0; k < e; k++) {
      const double t = v[k] * (w ? w[ci[k]] : 1.0);
      all += t;
      const int in = pm > 0 ? q < cnt && keep[q] == k : fabs(v[k]) >= cut;
      if (in) kept += t;
      q += pm > 0 && in;
    }
    const double scale = cnt < e - b && kept != 0.0 ? all / kept : 1.0;
    for (int64_t k = b, q = 0; k < e; k++) {
      const int in = pm > 0 ? q < cnt && keep[q] == k : fabs(v[k]) >= cut;
      if (!in) continue;
      q += pm > 0;
      oci[at] = (int32_t)(cmap ? cmap[ci[k]] : ci[k]);
      ov[at++] = v[k] * scale;
    }
  }
}

/* Whether a_ij (j != i) survives the filter: |a_ij| >= eps sqrt(|d_i d_j|). */
static int filter_keep(double a, double di, double dj, double eps)
{
  return fabs(a) >= eps * sqrt(fabs(di * dj));
}

void sps_ref_amg_filter_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                              const double *d, double eps, int64_t *count)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t c = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      c += ci[k] == i || filter_keep(v[k], d[i], d[ci[k]], eps);
    count[i] = c;
  }
  count[n] = 0;
}

void sps_ref_amg_filter_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                             const double *d, double eps, const int64_t *orp, int32_t *oci,
                             double *ov)
{
  for (int64_t i = 0; i < n; i++) {
    double lump = 0.0;
    int64_t at = orp[i], diag = -1;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      if (ci[k] == i || filter_keep(v[k], d[i], d[ci[k]], eps)) {
        if (ci[k] == i) diag = at;
        oci[at] = ci[k];
        ov[at++] = v[k];
      } else {
        lump += v[k];
      }
    }
    if (diag >= 0) ov[diag] = ov[diag] + lump;
  }
}
