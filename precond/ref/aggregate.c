/* aggregate.c: the CPU reference of strength of connection and MIS(2) aggregation for smoothed-aggregation AMG, the steps the CUDA kernels (precond/cuda/aggregate.cu) are held to.
 *
 * The math (Bell, Dalton and Olson, "Exposing fine-grained parallelism in algebraic multigrid
 * methods", SIAM J. Sci. Comput. 34 (2012); Vanek, Mandel and Brezina, Computing 56 (1996)):
 *   strength  j != i is strong in row i when a_ij != 0 and |a_ij| >= theta sqrt(|a_ii a_jj|);
 *             the strength graph S has the edge {i, j} when j is strong in row i or i in row j
 *             (C u C^T, C the directed graph).
 *   MIS(2)    a maximal set of rows pairwise at distance >= 3 in S, by synchronous rounds on
 *             the tuples T_i = (state_i, p_i, i), state OUT < UNDECIDED < IN, p a hash of i:
 *             M <- T; twice M_i <- max(M_i, max_{j in S(i)} M_j); then an undecided row whose
 *             M_i is its own tuple becomes IN, one whose M_i is an IN row's becomes OUT. Two
 *             rows within distance 2 cannot both hold the maximum of the other's
 *             neighbourhood, and an undecided row that is the largest undecided one within
 *             distance 2 of itself with no IN row there becomes IN, so each round makes
 *             progress and the IN rows stay at distance >= 3. Nothing depends on the order in
 *             which rows are visited, so the GPU's rounds give the same set.
 *   aggregates  the IN rows are the roots, numbered in ascending row order; then by
 *             synchronous rounds each row with neighbours and no aggregate joins the
 *             aggregate of its assigned neighbour j with the largest (p_j, j): the first round
 *             assigns the neighbours of the roots, the second those at distance 2 (every row
 *             is, MIS(2) being maximal), so each aggregate is connected in S.
 * Each function is one pass over the rows, written plainly and serially; the work arrays come
 * from the caller (precond/aggregate.c allocates them), so nothing here allocates.
 */
#include <math.h>

#include "kernels.h"

static inline unsigned agg_state(uint64_t key)
{
  return (unsigned)(key >> SPS_AGG_STATE_SHIFT);
}

/* (ka, ia) > (kb, ib), lexicographic. */
static inline int tuple_greater(uint64_t ka, int32_t ia, uint64_t kb, int32_t ib)
{
  return ka > kb || (ka == kb && ia > ib);
}

void sps_ref_agg_diagonal(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                          double *d)
{
  for (int64_t i = 0; i < n; i++) {
    d[i] = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] == i) {
        d[i] = v[k];
        break;
      }
  }
}

/* Whether column j (!= i) of row i, value a, is strong: a != 0 and |a| >= theta sqrt(|d_i d_j|).
 * A NaN entry or diagonal is never strong (the comparison is false). */
static inline int is_strong(double a, double di, double dj, double theta)
{
  return a != 0.0 && fabs(a) >= theta * sqrt(fabs(di * dj));
}

void sps_ref_agg_strong_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                              const double *d, double theta, int64_t *count)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t c = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] != i && is_strong(v[k], d[i], d[ci[k]], theta)) c++;
    count[i] = c;
  }
}

void sps_ref_agg_strong_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                             const double *d, double theta, const int64_t *crp, int32_t *cci)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t at = crp[i];
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] != i && is_strong(v[k], d[i], d[ci[k]], theta)) cci[at++] = ci[k];
  }
}

void sps_ref_agg_union_count(int64_t n, const int64_t *crp, const int32_t *cci, const int64_t *trp,
                             const int32_t *tci, int64_t *count)
{
  for (int64_t i = 0; i < n; i++) {
    /* Merge of two ascending lists without repeats: |C_i| + |T_i| - |C_i n T_i|. */
    int64_t a = crp[i], b = trp[i], c = 0;
    const int64_t ae = crp[i + 1], be = trp[i + 1];
    while (a < ae && b < be) {
      if (cci[a] < tci[b])
        a++;
      else if (tci[b] < cci[a])
        b++;
      else
        a++, b++;
      c++;
    }
    count[i] = c + (ae - a) + (be - b);
  }
}

void sps_ref_agg_union_fill(int64_t n, const int64_t *crp, const int32_t *cci, const int64_t *trp,
                            const int32_t *tci, const int64_t *srp, int32_t *sci)
{
  for (int64_t i = 0; i < n; i++) {
    int64_t a = crp[i], b = trp[i], at = srp[i];
    const int64_t ae = crp[i + 1], be = trp[i + 1];
    while (a < ae && b < be) {
      if (cci[a] < tci[b])
        sci[at++] = cci[a++];
      else if (tci[b] < cci[a])
        sci[at++] = tci[b++];
      else
        sci[at++] = cci[a++], b++;
    }
    while (a < ae)
      sci[at++] = cci[a++];
    while (b < be)
      sci[at++] = tci[b++];
  }
}

void sps_ref_agg_init(int64_t n, const int64_t *srp, uint64_t *key)
{
  for (int64_t i = 0; i < n; i++) {
    const uint64_t state = srp[i + 1] > srp[i] ? SPS_AGG_UNDECIDED : SPS_AGG_OUT;
    key[i] = (state << SPS_AGG_STATE_SHIFT) | sps_agg_priority(i);
  }
}

void sps_ref_agg_sweep(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *kin,
                       const int32_t *iin, uint64_t *kout, int32_t *iout)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t bk = kin[i];
    int32_t bi = iin ? iin[i] : (int32_t)i;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
      const int32_t j = sci[k];
      const uint64_t jk = kin[j];
      const int32_t ji = iin ? iin[j] : j;
      if (tuple_greater(jk, ji, bk, bi)) bk = jk, bi = ji;
    }
    kout[i] = bk;
    iout[i] = bi;
  }
}

int64_t sps_ref_agg_decide(int64_t n, const uint64_t *mkey, const int32_t *midx, uint64_t *key)
{
  int64_t undecided = 0;
  for (int64_t i = 0; i < n; i++) {
    if (agg_state(key[i]) != SPS_AGG_UNDECIDED) continue;
    const uint64_t p = key[i] & SPS_AGG_PRIORITY_MASK;
    if (midx[i] == i)
      key[i] = ((uint64_t)SPS_AGG_IN << SPS_AGG_STATE_SHIFT) | p;
    else if (agg_state(mkey[i]) == SPS_AGG_IN)
      key[i] = ((uint64_t)SPS_AGG_OUT << SPS_AGG_STATE_SHIFT) | p;
    else
      undecided++;
  }
  return undecided;
}

int64_t sps_ref_agg_roots(int64_t n, const uint64_t *key, int32_t *agg)
{
  int64_t roots = 0;
  for (int64_t i = 0; i < n; i++)
    agg[i] = agg_state(key[i]) == SPS_AGG_IN ? (int32_t)roots++ : -1;
  return roots;
}

void sps_ref_agg_attach(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *key,
                        const int32_t *ain, int32_t *aout, int64_t *changed, int64_t *left)
{
  int64_t ch = 0, lf = 0;
  for (int64_t i = 0; i < n; i++) {
    aout[i] = ain[i];
    if (ain[i] >= 0 || srp[i + 1] == srp[i]) continue;
    uint64_t bp = 0;
    int32_t bj = -1;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
      const int32_t j = sci[k];
      if (ain[j] < 0) continue;
      const uint64_t pj = key[j] & SPS_AGG_PRIORITY_MASK;
      if (bj < 0 || tuple_greater(pj, j, bp, bj)) bp = pj, bj = j;
    }
    if (bj >= 0) {
      aout[i] = ain[bj];
      ch++;
    } else {
      lf++;
    }
  }
  *changed = ch;
  *left = lf;
}
