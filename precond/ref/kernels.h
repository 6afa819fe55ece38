/* kernels.h: the CPU reference kernels of the preconditioners (precond/ref/), one prototype each, shared with the CUDA kernels' tests. */
#ifndef SPS_PRECOND_REF_KERNELS_H
#define SPS_PRECOND_REF_KERNELS_H

#include <math.h>
#include <stdint.h>

#include "../../core/compensated_sum.h"
#include "../../core/nrm2_scale.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One triangular solve (precond/ref/trisolve.c). The triangle is given by row offsets
 * rowptr and the position diag[i] of row i's diagonal slot: the lower triangle is
 * colind/values[rowptr[i], diag[i]), the upper one (diag[i], rowptr[i+1]).
 * For rows i in dependency order (ascending for lower, descending for upper):
 *   b_i = in_scale[i] * b[in_perm[i]]          (NULL arrays: identity)
 *   x_i = (b_i - sum_j t_ij x_j) * dinv[i]     (dinv NULL: unit diagonal)
 *   out[out_perm[i]] = out_scale[i] * x_i      (when out is not NULL)
 * The sum is compensated (core/compensated_sum.h), so the CUDA kernel, which adds the
 * terms in another order, gives the same bits.
 */
void sps_ref_trisolve(int64_t n, int upper, const int64_t *rowptr, const int64_t *diag,
                      const int32_t *colind, const double *values, const double *dinv,
                      const double *b, const int32_t *in_perm, const double *in_scale, double *x,
                      double *out, const int32_t *out_perm, const double *out_scale);

/*
 * ILU(0) in place on a CSR matrix whose every row has its diagonal at diag[i] (IKJ variant,
 * Saad Algorithm 10.4), rows in ascending order (precond/ref/ilu0.c):
 *   for k in the lower part of row i, ascending:  a_ik <- a_ik * dinv[k];
 *       a_ij <- a_ij - a_ik * a_kj for every j > k in row k that row i also has
 *   then the pivot u_ii = a_ii: when |u_ii| < pivot_tol * rowmax[i] (spd = 0), or
 *   u_ii <= pivot_tol * rowmax[i] (spd = 1: a breakdown of incomplete Cholesky, counted in
 *   *breakdowns), it is replaced by sign(u_ii) * pivot_tol * rowmax[i] (sign + for u_ii <= 0
 *   when spd; rowmax 0: by 1) and counted in *replaced; dinv[i] <- 1 / u_ii.
 * The CUDA kernel performs the same operations in the same order per entry.
 */
void sps_ref_ilu0_factor(int64_t n, const int64_t *rowptr, const int64_t *diag,
                         const int32_t *colind, double *values, const double *rowmax,
                         double pivot_tol, int spd, double *dinv, int64_t *replaced,
                         int64_t *breakdowns);

/*
 * Block Jacobi apply (precond/ref/bjacobi.c): rows in blocks of bs (the last block may be
 * shorter); inv holds each block's inverse as bs x bs row-major doubles, block after block.
 * z[b bs + i] = sum_{j < size_b} inv_b[i][j] r[b bs + j], a compensated sum in j order.
 */
void sps_ref_bjacobi_apply(int64_t n, int bs, const double *inv, const double *r, double *z);

/*
 * The sparse product C = A B (precond/ref/spgemm.c), A m x k and B k x n in CSR (int64
 * offsets, int32 columns, columns sorted in each row). Two passes:
 *  count: ccount[i] <- the number of distinct columns in row i of C;
 *  fill:  with crp the prefix sums of the counts (m + 1 offsets), row i's columns in
 *         ascending order into cci[crp[i]..] and c_ij = the compensated sum
 *         (core/compensated_sum.h) of the rounded products a_ik * b_kj into cv.
 * Every structural product makes an entry, zero or not. mark (n int64) and acc (n sums) are
 * work arrays of the caller. The products of c_ij are added in the order of their a_ik in
 * A's row; a GPU kernel gives the same bits by keeping that order (in another order the
 * compensated sums of cancelling products, as in the A A of stiffness matrices, differ).
 */
void sps_ref_spgemm_count(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                          const int64_t *brp, const int32_t *bci, int64_t *mark, int64_t *ccount);
void sps_ref_spgemm_fill(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                         const double *av, const int64_t *brp, const int32_t *bci,
                         const double *bv, const int64_t *crp, int64_t *mark, sps_csum *acc,
                         int32_t *cci, double *cv);
/* The same passes over rows i0 .. i1 - 1 only, with mark already holding no row of that
 * range (-1, or rows outside it): each row's result depends on that row alone, so row ranges
 * may run side by side, each with its own mark and acc (precond/spgemm.c). */
void sps_ref_spgemm_count_rows(int64_t i0, int64_t i1, const int64_t *arp, const int32_t *aci,
                               const int64_t *brp, const int32_t *bci, int64_t *mark,
                               int64_t *ccount);
void sps_ref_spgemm_fill_rows(int64_t i0, int64_t i1, const int64_t *arp, const int32_t *aci,
                              const double *av, const int64_t *brp, const int32_t *bci,
                              const double *bv, const int64_t *crp, int64_t *mark,
                              sps_csum *acc, int32_t *cci, double *cv);

/*
 * The transpose T = A^T of an m x n CSR matrix (precond/ref/spgemm.c): trp (n + 1
 * offsets), tci and tv (rp[m] entries; v NULL: the pattern only, tv unused). The rows of T
 * come out sorted by column.
 */
void sps_ref_csr_transpose(int64_t m, int64_t n, const int64_t *rp, const int32_t *ci,
                           const double *v, int64_t *trp, int32_t *tci, double *tv);

/*
 * Strength of connection and MIS(2) aggregation for smoothed-aggregation AMG
 * (precond/ref/aggregate.c; Bell, Dalton and Olson, SIAM J. Sci. Comput. 34 (2012)). The steps,
 * each a pass over the rows that the CUDA kernels (precond/cuda/aggregate.cu) make with one
 * thread a row, with the same integers as results:
 *   diagonal      d[i] <- a_ii (0 when row i stores none)
 *   strong_count  count[i] <- the number of j != i in row i with a_ij != 0 and
 *                 |a_ij| >= theta sqrt(|a_ii a_jj|) ("j is strong in row i")
 *   strong_fill   those columns, ascending, into cci[crp[i]..] (crp: the prefix sums)
 *   then the transpose T = C^T of that directed graph C (sps_ref_csr_transpose, pattern only)
 *   union_count   count[i] <- |C_i u T_i|, the row of the symmetric strength graph S
 *   union_fill    its columns, ascending, into sci[srp[i]..]
 *   init          key[i] <- (state << 62) | p(i): state UNDECIDED, or OUT for a row without
 *                 neighbours in S (isolated: it takes no part)
 *   sweep         (mkey, midx)_i <- max((kin, iin)_i, max_{j in S(i)} (kin, iin)_j),
 *                 lexicographic; iin NULL stands for iin[i] = i (the tuples T_i = (key_i, i))
 *   decide        for each undecided i: IN when midx[i] == i, else OUT when mkey[i]'s state
 *                 is IN; returns the number of rows still undecided
 *   roots         agg[i] <- the rank of i among the IN rows (ascending), or -1; returns
 *                 their number
 *   attach        for each row with neighbours and ain[i] < 0: aout[i] <- ain[j] for the
 *                 neighbour j with ain[j] >= 0 and the largest (p(j), j), or -1 when none;
 *                 other rows copy ain. *changed: rows assigned in this step; *left: rows
 *                 with neighbours still at -1 after it.
 * A round of MIS(2) is sweep (from the tuples), sweep (from the first sweep's result),
 * decide. The key packs the state (OUT 0 < UNDECIDED 1 < IN 2) above a 62-bit priority,
 * so that comparing keys, then indices, compares the tuples (state, p, i).
 */
#define SPS_AGG_OUT 0u
#define SPS_AGG_UNDECIDED 1u
#define SPS_AGG_IN 2u
#define SPS_AGG_STATE_SHIFT 62
#define SPS_AGG_PRIORITY_MASK ((1ull << SPS_AGG_STATE_SHIFT) - 1ull)
/* The seed of the priorities. */
#define SPS_AGG_SEED 0x5A66A66E5EEDull

#if defined(__CUDACC__)
#define SPS_AGG_HD __host__ __device__
#else
#define SPS_AGG_HD
#endif

/*
 * p(i): the top 62 bits of splitmix64's draw from the state SPS_AGG_SEED + i 0x9E3779B97F4A7C15
 * (core/splitmix64.h's sps_splitmix64_next, repeated here so that the CUDA kernels compute
 * the same bits; tests/kernels/amg_aggregate.c checks the two agree).
 */
static inline SPS_AGG_HD uint64_t sps_agg_priority(int64_t i)
{
  uint64_t z = SPS_AGG_SEED + ((uint64_t)i + 1u) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) >> (64 - SPS_AGG_STATE_SHIFT);
}

void sps_ref_agg_diagonal(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                          double *d);
void sps_ref_agg_strong_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                              const double *d, double theta, int64_t *count);
void sps_ref_agg_strong_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                             const double *d, double theta, const int64_t *crp, int32_t *cci);
void sps_ref_agg_union_count(int64_t n, const int64_t *crp, const int32_t *cci,
                             const int64_t *trp, const int32_t *tci, int64_t *count);
void sps_ref_agg_union_fill(int64_t n, const int64_t *crp, const int32_t *cci, const int64_t *trp,
                            const int32_t *tci, const int64_t *srp, int32_t *sci);
void sps_ref_agg_init(int64_t n, const int64_t *srp, uint64_t *key);
void sps_ref_agg_sweep(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *kin,
                       const int32_t *iin, uint64_t *kout, int32_t *iout);
int64_t sps_ref_agg_decide(int64_t n, const uint64_t *mkey, const int32_t *midx, uint64_t *key);
int64_t sps_ref_agg_roots(int64_t n, const uint64_t *key, int32_t *agg);
void sps_ref_agg_attach(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *key,
                        const int32_t *ain, int32_t *aout, int64_t *changed, int64_t *left);


/*
 * The steps of a multigrid level's setup that are not products (precond/ref/amg_level.c,
 * CUDA in precond/cuda/amg_level.cu, the same results element for element). Every array is in
 * the context's memory; a count kernel writes count[0 .. n) and count[n] = 0, so the exclusive
 * scan of n + 1 words gives the offsets with the total last; counters are 64-bit words that
 * the kernel sets (the reference) or clears and adds to (the launcher).
 *   diag_count   count[i] <- the entries of row i, plus one when it stores no diagonal
 *   diag_fill    row i of scale * A into (orp, oci, ov), an explicit 0 on the diagonal where A
 *                has none (columns ascending)
 *   smoother_diag  with a_ii the diagonal entry (0 when absent) and s_i = sum_j |a_ij|:
 *                dinv_i = 1 / a_ii; sd_i = dinv_i, or sign(a_ii) / s_i when l1 (l1-Jacobi);
 *                dsq_i = sqrt(|dinv_i|); *bad <- the first row whose a_ii is 0 or not finite or
 *                whose s_i is not finite (n when none)
 *   random       v_i <- the i-th uniform draw in [-1, 1) of splitmix64 from `seed`
 *                (sps_splitmix64_sym's sequence, draw i computed directly)
 *   tent_count   count[i] <- 1 when agg[i] >= 0 (the rows of the tentative prolongator)
 *   tent_fill    T's entry of row i: column agg[i], value B_i (trp: the scanned counts)
 *   row_norms    norm_J <- sqrt of the compensated sum of v^2 over row J, in entry order
 *   tent_scale   tv_k <- tv_k / norm[tci_k]
 *   sa_smooth    on P = A T (pattern of A T): p_ij <- -(omega dinv_i) p_ij, plus t_ij when T's
 *                row i has its entry in column j (the smoothed prolongator (I - omega D^-1 A) T)
 *   trunc_count, trunc_fill   the truncation of a prolongator's rows: of row i keep the
 *                entries with |p_ij| >= tf max_j |p_ij| (all when tf = 0), and of those the pm
 *                largest in magnitude (pm = 0: all; ties: the earlier entry), scaled by
 *                (sum_j p_ij w_j) / (sum_kept p_ij w_j) (plain sums in entry order; w NULL
 *                stands for w = 1; no scaling when the kept sum is 0), so that P w is kept.
 *                Rows with flag[i] != 0 (a C point of classical coarsening, flag NULL: none)
 *                become the one entry (cmap[i], 1); cmap NULL: columns are kept as they are,
 *                else column j becomes cmap[j].
 *   filter_count, filter_fill   the coarse operator without its weak entries: off-diagonal
 *                a_ij with |a_ij| < eps sqrt(|d_i d_j|) (d the diagonal) are dropped and
 *                added to a_ii (their plain sum in entry order, then added once), so that the
 *                row sums, and with them the constants' image, are kept; the test is symmetric
 *                in i and j, so a symmetric A stays symmetric
 */
void sps_ref_amg_diag_count(int64_t n, const int64_t *rp, const int32_t *ci, int64_t *count);
void sps_ref_amg_diag_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                           double scale, const int64_t *orp, int32_t *oci, double *ov);
void sps_ref_amg_smoother_diag(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                               int l1, double *dinv, double *sd, double *dsq,
                               unsigned long long *bad);
void sps_ref_amg_random(int64_t n, uint64_t seed, double *v);
void sps_ref_amg_tent_count(int64_t n, const int32_t *agg, int64_t *count);
void sps_ref_amg_tent_fill(int64_t n, const int32_t *agg, const double *B, const int64_t *trp,
                           int32_t *tci, double *tv);
void sps_ref_amg_row_norms(int64_t m, const int64_t *rp, const double *v, double *norm);
void sps_ref_amg_tent_scale(int64_t n, const int64_t *trp, const int32_t *tci, double *tv,
                            const double *norm);
void sps_ref_amg_sa_smooth(int64_t n, const int64_t *prp, const int32_t *pci, double *pv,
                           const double *dinv, double omega, const int64_t *trp,
                           const int32_t *tci, const double *tv);
/*
 * The Chebyshev smoother's fused vector updates (precond/amg_cycle.c; precond/ref/amg_smooth.c),
 * one pass each over the level's n entries, with the IEEE operations of the backend
 * operations they replace in the same order:
 *   cheby_first  s_i <- dinv_i src_i,  e_i <- a s_i,  x_i <- e_i (zero) or x_i + e_i
 *                (src may be s itself)
 *   cheby_step   s_i <- s_i - dinv_i t_i,  e_i <- a s_i + b e_i (a s_i when b = 0, e not
 *                read),  x_i <- x_i + e_i
 */
void sps_ref_amg_cheby_first(int64_t n, const double *dinv, const double *src, double a, int zero,
                             double *s, double *e, double *x);
void sps_ref_amg_cheby_step(int64_t n, const double *dinv, const double *t, double a, double b,
                            double *s, double *e, double *x);
/*
 * The Lanczos steps of the spectral radius estimate with their scalars in the context's memory
 * (precond/amg_spectrum.c; precond/ref/amg_lanczos.c), each one pass over n entries with the
 * IEEE operations of the backend operations it replaces. sq: the sums of sumsq_store (sum x_i^2,
 * max |x_i|); with b = sqrt(sq[0]) (sps_amg_lanczos_norm; *flag <- 1 when nrm2 would scale):
 *   lanczos_start     v_i <- (1/b) v_i
 *   lanczos_residual  w_i <- -beta vold_i + dsq_i w_i          (w = S v - beta_j v_old)
 *   lanczos_orth      w_i <- -alpha v_i + w_i
 *   lanczos_next      *beta <- b; vold_i <- v_i, v_i <- (1/b) w_i
 */
void sps_ref_amg_lanczos_start(int64_t n, const double *sq, double *flag, double *v);
void sps_ref_amg_lanczos_residual(int64_t n, const double *dsq, const double *beta,
                                  const double *vold, double *w);
void sps_ref_amg_lanczos_orth(int64_t n, const double *alpha, const double *v, double *w);
void sps_ref_amg_lanczos_next(int64_t n, const double *sq, double *beta, double *flag,
                              const double *w, double *v, double *vold);
void sps_ref_amg_trunc_count(int64_t n, const int64_t *rp, const double *v, const int64_t *flag,
                             double tf, int pm, int64_t *count);
void sps_ref_amg_trunc_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                            const double *w, const int64_t *flag, const int64_t *cmap, double tf,
                            int pm, const int64_t *orp, int32_t *oci, double *ov);
void sps_ref_amg_filter_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                              const double *d, double eps, int64_t *count);
void sps_ref_amg_filter_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                             const double *d, double eps, const int64_t *orp, int32_t *oci,
                             double *ov);

/* The largest pm of a truncation (amg.interp_max). */
#define SPS_AMG_TRUNC_MAX 16

/* sqrt(sq[0]) of a sumsq_store's sums (sum x_i^2, max |x_i|): the norm nrm2 gives unless max
 * |x_i| asks it for a scaled second pass (core/nrm2_scale.h), which *flag reports (1, else 0). */
static inline SPS_AGG_HD double sps_amg_lanczos_norm(const double *sq, double *flag)
{
  /* sps_nrm2_scale_exponent is 0 for a NaN maximum too, as nrm2 takes it */
  *flag = sps_nrm2_scale_exponent(sq[1]) != 0 ? 1.0 : 0.0;
  return sqrt(sq[0]);
}

/* v_i of sps_ref_amg_random: the (i + 1)-th draw of sps_splitmix64_sym from state seed. */
static inline SPS_AGG_HD double sps_amg_random_draw(uint64_t seed, int64_t i)
{
  uint64_t z = seed + ((uint64_t)i + 1u) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/*
 * Classical (Ruge-Stueben type) coarsening: strength, PMIS C/F splitting and extended+i
 * interpolation (precond/ref/amg_classical.c; CUDA in precond/cuda/amg_classical.cu, the same
 * integers and the same bits).
 *   strength_count/fill  j != i strongly influences i (j in S_i) when -s a_ij > theta m_i,
 *                s = the sign of a_ii (+1 for a_ii = 0), m_i = max_{k != i} -s a_ik; a row
 *                with m_i <= 0, or with |sum_j a_ij| > max_row_sum |a_ii| (max_row_sum < 1),
 *                depends on nothing (hypre's BoomerAMGCreateS)
 *   pmis_init    key[i] <- (state << 62) | (min(|S^T_i|, 2^30 - 1) << 32) | the top 32 bits of
 *                p(i): the PMIS measure |S^T_i| + a random fraction, ties broken by i; state
 *                UNDECIDED when i strongly influences some row, else F; *undecided <- the count
 *   pmis_select  for each undecided i: newc[i] <- 1 when (key_i, i) > (key_j, j) for every
 *                undecided j in S_i u S^T_i (j != i), else 0 (decided rows: 0)
 *   pmis_update  rows with newc become C; an undecided row with a j in S_i that has newc
 *                becomes F; *undecided <- the rows still undecided
 *   cflags       flag[i] <- 1 for C rows, else 0 (flag[n] = 0: scanned, the coarse numbers)
 *   split_count/fill  the two factors whose product gives each F row's interpolatory set
 *                C^_i = (S_i n C) u (u_{k in S_i n F} S_k n C) (extended interpolation): M2's
 *                row i is {i} u (S_i n F) for F rows, empty for C rows; M1's row k is S_k n C;
 *                values 1, columns ascending
 *   interp       the extended+i weights (De Sterck, Falgout, Nolting and Yang, Numer. Linear
 *                Algebra Appl. 15 (2008); hypre's BuildExtPIInterp) of each F row i on its set
 *                C^_i (hrp, hci: the pattern of M2 M1, sorted): starting from w_ij = a_ij for
 *                j in C^_i and d = a_ii, for each other off-diagonal a_im in A's row order: m
 *                in S_i and F: with s = sign(a_mm), sum = sum of a_ml over l != m in row m with
 *                (l in C^_i or l = i) and s a_ml < 0; sum != 0: each such a_ml adds
 *                (a_im / sum) a_ml to w_il (l in C^_i) or to d (l = i); sum = 0: d += a_im;
 *                otherwise (a weak neighbour) d += a_im. Then w_ij <- w_ij / (-d) (0 when
 *                d = 0). C rows are left alone
 */
#define SPS_CLS_F 0u
#define SPS_CLS_UNDECIDED 1u
#define SPS_CLS_C 2u
void sps_ref_cls_strength_count(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                                double theta, double max_row_sum, int64_t *count);
void sps_ref_cls_strength_fill(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                               double theta, double max_row_sum, const int64_t *srp,
                               int32_t *sci);
void sps_ref_cls_pmis_init(int64_t n, const int64_t *strp, uint64_t *key,
                           unsigned long long *undecided);
void sps_ref_cls_pmis_select(int64_t n, const int64_t *srp, const int32_t *sci,
                             const int64_t *strp, const int32_t *stci, const uint64_t *key,
                             unsigned char *newc);
void sps_ref_cls_pmis_update(int64_t n, const int64_t *srp, const int32_t *sci,
                             const unsigned char *newc, uint64_t *key,
                             unsigned long long *undecided);
void sps_ref_cls_cflags(int64_t n, const uint64_t *key, int64_t *flag);
void sps_ref_cls_split_count(int64_t n, const int64_t *srp, const int32_t *sci,
                             const uint64_t *key, int64_t *count2, int64_t *count1);
void sps_ref_cls_split_fill(int64_t n, const int64_t *srp, const int32_t *sci, const uint64_t *key,
                            const int64_t *m2rp, int32_t *m2ci, double *m2v, const int64_t *m1rp,
                            int32_t *m1ci, double *m1v);
void sps_ref_cls_interp(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                        const int64_t *srp, const int32_t *sci, const uint64_t *key,
                        const int64_t *hrp, const int32_t *hci, double *hv);

/* The state of row i in a PMIS key. */
static inline SPS_AGG_HD unsigned sps_cls_state(uint64_t key)
{
  return (unsigned)(key >> 62);
}

/*
 * Multicolor Gauss-Seidel (precond/ref/mcgs.c; CUDA in precond/cuda/mcgs.cu).
 *   color_round  one round of Jones-Plassmann colouring: an uncoloured row i (cin[i] < 0)
 *                whose (p(i), i) exceeds (p(j), j) for every uncoloured neighbour j != i (the
 *                columns of row i, and of row i of the transpose when trp is not NULL) takes
 *                the smallest colour no coloured neighbour has; others copy cin.
 *                *left <- the rows still uncoloured
 *   color_init   color[i] <- -1 (uncoloured)
 *   color_count  *ncolors <- 1 + the largest colour
 *   order        the rows sorted by colour, ascending rows within a colour (a stable counting
 *                sort) into order, and the colours' first positions into start (ncolors + 1)
 *   sweep        for the `count` rows rows[0 .. count): x_i <- x_i + dinv_i (b_i - s sum_j
 *                a_ij x_j), the sum compensated (rows of one colour share no entry, so the
 *                order of the rows does not matter); the row's sum formed as `lanes` GPU
 *                lanes (1 to 32, a power of two) form it: lane l's terms k = l, l + lanes,
 *                ... of the row, then the shuffle tree (spmv/ref/csr_vector.c)
 */
void sps_ref_mc_color_init(int64_t n, int32_t *color);
void sps_ref_mc_color_round(int64_t n, const int64_t *rp, const int32_t *ci, const int64_t *trp,
                            const int32_t *tci, const int32_t *cin, int32_t *cout,
                            unsigned long long *left);
void sps_ref_mc_color_count(int64_t n, const int32_t *color, unsigned long long *ncolors);
void sps_ref_mc_order(int64_t n, const int32_t *color, int ncolors, int64_t *start,
                      int32_t *order);
void sps_ref_mcgs_sweep(int64_t count, const int32_t *rows, const int64_t *rp, const int32_t *ci,
                        const double *v, double s, const double *dinv, const double *b, double *x,
                        int lanes);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_REF_KERNELS_H */
