/* spgemm.c: the CPU reference of the sparse matrix-matrix product C = A B (Gustavson's row-by-row algorithm), which builds the Galerkin operators of algebraic multigrid.
 *
 * The math: row i of C is sum over the entries a_ik of row i of A of a_ik * (row k of B),
 * so c_ij = sum_k a_ik b_kj over the k where both are stored (Gustavson, ACM TOMS 4 (1978)).
 * Two passes, as every GPU SpGEMM makes them (cuSPARSE's work estimation and compute):
 *   count: the number of distinct columns j reached from row i (a marker per column of C);
 *   fill:  the columns of row i in ascending order and their values.
 * Each value is the compensated sum (core/compensated_sum.h) of the rounded products
 * a_ik * b_kj, added in the order the entries are met (A's row order; row k of B holds column
 * j once, so that order is the order of p, the position of a_ik in A's row). The GPU kernels
 * (precond/cuda/spgemm.cu) add in the same order and give the same bits. In another order a
 * compensated sum would agree only up to its error, about n^2 u^2 sum |a_ik b_kj|, which
 * decides the last bit whenever the products cancel to less than about u of their magnitude:
 * the A A of stiffness matrices does (nos3: 494 of 42864 values differed, some by thousands
 * of ulps). Structural entries are kept even when their value is zero (cancellation), so the
 * pattern of C depends on the patterns of A and B only.
 * Serial, with work arrays from the caller (n markers, n sums), so the library's allocator
 * (and its failure hook) sees every allocation.
 */
#include "../../core/compensated_sum.h"
#include "kernels.h"

/* Ascending insertion sort of short lists, heapsort beyond 32 (columns only). */
static void sort_cols(int32_t *c, int64_t len)
{
  if (len <= 32) {
    for (int64_t a = 1; a < len; a++) {
      const int32_t v = c[a];
      int64_t b = a;
      for (; b > 0 && c[b - 1] > v; b--)
        c[b] = c[b - 1];
      c[b] = v;
    }
    return;
  }
  for (int64_t start = len / 2 - 1; start >= 0; start--) {
    for (int64_t r = start;;) {
      int64_t ch = 2 * r + 1;
      if (ch >= len) break;
      if (ch + 1 < len && c[ch + 1] > c[ch]) ch++;
      if (c[r] >= c[ch]) break;
      const int32_t t = c[r];
      c[r] = c[ch];
      c[ch] = t;
      r = ch;
    }
  }
  for (int64_t last = len - 1; last > 0; last--) {
    const int32_t t = c[0];
    c[0] = c[last];
    c[last] = t;
    for (int64_t r = 0;;) {
      int64_t ch = 2 * r + 1;
      if (ch >= last) break;
      if (ch + 1 < last && c[ch + 1] > c[ch]) ch++;
      if (c[r] >= c[ch]) break;
      const int32_t u = c[r];
      c[r] = c[ch];
      c[ch] = u;
      r = ch;
    }
  }
}

void sps_ref_spgemm_count(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                          const int64_t *brp, const int32_t *bci, int64_t *mark, int64_t *ccount)
{
  for (int64_t j = 0; j < n; j++)
    mark[j] = -1;
  sps_ref_spgemm_count_rows(0, m, arp, aci, brp, bci, mark, ccount);
}

void sps_ref_spgemm_count_rows(int64_t i0, int64_t i1, const int64_t *arp, const int32_t *aci,
                               const int64_t *brp, const int32_t *bci, int64_t *mark,
                               int64_t *ccount)
{
  for (int64_t i = i0; i < i1; i++) {
    int64_t cnt = 0;
    for (int64_t p = arp[i]; p < arp[i + 1]; p++) {
      const int32_t k = aci[p];
      for (int64_t q = brp[k]; q < brp[k + 1]; q++) {
        const int32_t j = bci[q];
        if (mark[j] != i) {
          mark[j] = i;
          cnt++;
        }
      }
    }
    ccount[i] = cnt;
  }
}

void sps_ref_spgemm_fill(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                         const double *av, const int64_t *brp, const int32_t *bci,
                         const double *bv, const int64_t *crp, int64_t *mark, sps_csum *acc,
                         int32_t *cci, double *cv)
{
  for (int64_t j = 0; j < n; j++)
    mark[j] = -1;
  sps_ref_spgemm_fill_rows(0, m, arp, aci, av, brp, bci, bv, crp, mark, acc, cci, cv);
}

void sps_ref_spgemm_fill_rows(int64_t i0, int64_t i1, const int64_t *arp, const int32_t *aci,
                              const double *av, const int64_t *brp, const int32_t *bci,
                              const double *bv, const int64_t *crp, int64_t *mark,
                              sps_csum *acc, int32_t *cci, double *cv)
{
  for (int64_t i = i0; i < i1; i++) {
    int64_t len = 0;
    int32_t *cols = cci + crp[i];
    /* The pattern and the sums together: acc[j] starts at zero when j is first met. */
    for (int64_t p = arp[i]; p < arp[i + 1]; p++) {
      const int32_t k = aci[p];
      const double a = av[p];
      for (int64_t q = brp[k]; q < brp[k + 1]; q++) {
        const int32_t j = bci[q];
        if (mark[j] != i) {
          mark[j] = i;
          cols[len++] = j;
          acc[j] = sps_csum_zero();
        }
        sps_csum_add(&acc[j], a * bv[q]);
      }
    }
    sort_cols(cols, len);
    for (int64_t t = 0; t < len; t++)
      cv[crp[i] + t] = sps_csum_value(acc[cols[t]]);
  }
}

void sps_ref_csr_transpose(int64_t m, int64_t n, const int64_t *rp, const int32_t *ci,
                           const double *v, int64_t *trp, int32_t *tci, double *tv)
{
  for (int64_t j = 0; j <= n; j++)
    trp[j] = 0;
  for (int64_t p = 0; p < rp[m]; p++)
    trp[ci[p] + 1]++;
  for (int64_t j = 0; j < n; j++)
    trp[j + 1] += trp[j];
  /* Rows in ascending order, so each column of A becomes a row of A^T sorted by column. */
  for (int64_t i = 0; i < m; i++)
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const int64_t at = trp[ci[p]]++;
      tci[at] = (int32_t)i;
      if (v) tv[at] = v[p];
    }
  for (int64_t j = n; j > 0; j--)
    trp[j] = trp[j - 1];
  trp[0] = 0;
}
