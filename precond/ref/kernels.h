/* kernels.h: the CPU reference kernels of the preconditioners (precond/ref/), one prototype each, shared with the CUDA kernels' tests. */
#ifndef SPS_PRECOND_REF_KERNELS_H
#define SPS_PRECOND_REF_KERNELS_H

#include <stdint.h>

#include "../../core/compensated_sum.h"

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
 * work arrays of the caller. A GPU kernel that adds the products in another order gives the
 * same bits bar rare ties.
 */
void sps_ref_spgemm_count(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                          const int64_t *brp, const int32_t *bci, int64_t *mark, int64_t *ccount);
void sps_ref_spgemm_fill(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                         const double *av, const int64_t *brp, const int32_t *bci,
                         const double *bv, const int64_t *crp, int64_t *mark, sps_csum *acc,
                         int32_t *cci, double *cv);

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

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_REF_KERNELS_H */
