/* launchers.h: the extern "C" launchers of the preconditioners' CUDA kernels; each returns cudaGetLastError(). */
#ifndef SPS_PRECOND_CUDA_LAUNCHERS_H
#define SPS_PRECOND_CUDA_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../ref/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The control words of the synchronisation-free kernels (trisolve, ilu0_factor): a warp
 * takes its tasks from `ticket`, counts itself out in `done`, and the last one out resets
 * both (and, for ilu0_factor, advances `epoch`, the value a row's flag takes once the row is
 * final in this launch). Zeroed at setup; nothing to reset between launches, so a launch can
 * be captured in a graph and replayed.
 */
typedef struct sps_cuda_sync_ctrl {
  unsigned ticket;
  unsigned done;
  unsigned epoch;
  unsigned pad;
  unsigned long long replaced;   /* ilu0_factor: pivots replaced */
  unsigned long long breakdowns; /* ilu0_factor: non-positive pivots (spd mode) */
} sps_cuda_sync_ctrl;

/* One step of the one-block triangular solve: `rows` rows of one level, order[first ..
 * first + rows), whose entries sit lane-interleaved at ell[base + r * rows * G + thread] for
 * r < width; sync = 1 on the last step of a level (a barrier follows it). */
typedef struct sps_cuda_tri_step {
  int64_t base;
  int32_t first, rows, width, sync;
} sps_cuda_tri_step;

/*
 * The triangular solve of sps_ref_trisolve in one launch (precond/cuda/trisolve.cu). With
 * steps (sps_cuda_trisolve_block_fits), one block walks the nsteps steps, `group` lanes a row
 * (1, 2, 4, 8, 16 or 32), reading the entries from ell_col/ell_val (padding: column n, value
 * 0) and the inverse pivots from slot_dinv (dinv in level order). Without, the solve is synchronisation-free over the `ntasks` tasks
 * (task t is rows order[task_start[t] .. task_start[t+1]) of one level; a task of one row is
 * summed by a warp, a task of 2 to 32 rows by one thread a row) reading the CSR arrays, with x
 * filled first with a sentinel that marks entries not yet solved. ctrl: the ticket and count
 * of the tasks, zero at setup.
 */
cudaError_t sps_cuda_trisolve(cudaStream_t stream, int64_t n, int upper, int64_t nsteps,
                              const sps_cuda_tri_step *steps, const int32_t *ell_col,
                              const double *ell_val, const double *slot_dinv, int64_t ntasks,
                              const int32_t *task_start, const int32_t *order, int levels,
                              int group, const int64_t *rowptr, const int64_t *diag,
                              const int32_t *colind, const double *values, const double *dinv,
                              const double *b, const int32_t *in_perm, const double *in_scale,
                              double *x, double *out, const int32_t *out_perm,
                              const double *out_scale, sps_cuda_sync_ctrl *ctrl);

/* Whether the one-block solve's shared memory (x and the steps) fits this device. */
int sps_cuda_trisolve_block_fits(int64_t n, int64_t nsteps);

/* ell_val[p] <- values[src[p]], or 0 where src[p] < 0: the one-block solve's copy of the
 * factor values (and, with src = the level order, of the inverse pivots), refreshed whenever
 * the factorisation changes them. */
cudaError_t sps_cuda_trisolve_gather(cudaStream_t stream, int64_t total, const int64_t *src,
                                     const double *values, double *ell_val);

/*
 * sps_ref_ilu0_factor in one launch, a warp a row, rows taken in the level order of the
 * lower triangle (order, n entries). ctrl->replaced and ctrl->breakdowns count as the
 * reference's counters do (add to them; zero them first).
 */
cudaError_t sps_cuda_ilu0_factor(cudaStream_t stream, int64_t n, const int32_t *order,
                                 const int64_t *rowptr, const int64_t *diag,
                                 const int32_t *colind, double *values, const double *rowmax,
                                 double pivot_tol, int spd, double *dinv, unsigned *flags,
                                 sps_cuda_sync_ctrl *ctrl);

/* sps_ref_bjacobi_apply on the GPU (the same bits). */
cudaError_t sps_cuda_bjacobi_apply(cudaStream_t stream, int64_t n, int bs, const double *inv,
                                   const double *r, double *z);

/*
 * The sparse product C = A B of sps_ref_spgemm_count/fill on the GPU (precond/cuda/spgemm.cu;
 * the host driver is precond/spgemm.c). Rows are sorted into SPS_SPGEMM_BINS bins by a key:
 * in the count phase min(the products of the row, n), in the fill phase the row's count.
 * Bin 0: key 0 (nothing to do); bins 1 to 9: a hash table of 32 << (b - 1) slots in shared
 * memory per row, for keys up to sps_cuda_spgemm_bin_cap(b) (half the table); bin 10
 * (SPS_SPGEMM_DENSE_BIN): a dense accumulator of n columns in global memory per thread block.
 */
#define SPS_SPGEMM_BINS 11
#define SPS_SPGEMM_DENSE_BIN 10
/* The words of the binning counters: the bin sizes, then the largest key of the dense bin. */
#define SPS_SPGEMM_COUNTERS (SPS_SPGEMM_BINS + 1)
/* The first row of each bin in the row list (exclusive prefix sums of the bin sizes). */
typedef struct sps_cuda_spgemm_offsets {
  unsigned long long first[SPS_SPGEMM_BINS];
} sps_cuda_spgemm_offsets;

/* The largest key of bin b (1 to 9); -1 for the dense bin (no limit). */
int64_t sps_cuda_spgemm_bin_cap(int b);

/*
 * The bin of each row i < m: fill = 0 (count phase): key = min(sum over the entries a_ik of
 * row i of nnz(row k of B), n), and crp[i] <- 0 for rows of key 0; fill = 1: key =
 * crp[i + 1] - crp[i]. rowbin[i] <- the bin; counters[b] += the rows of bin b,
 * counters[SPS_SPGEMM_BINS] <- max(itself, the keys of the dense bin). counters zeroed by the
 * caller.
 */
cudaError_t sps_cuda_spgemm_bin(cudaStream_t stream, int64_t m, int64_t n, int fill,
                                const int64_t *arp, const int32_t *aci, const int64_t *brp,
                                int64_t *crp, unsigned char *rowbin, unsigned long long *counters);

/* rows[first[b] + t] <- the rows of bin b (b >= 1), in no particular order; cursors
 * (SPS_SPGEMM_BINS words) zeroed by the caller. */
cudaError_t sps_cuda_spgemm_scatter(cudaStream_t stream, int64_t m, const unsigned char *rowbin,
                                    sps_cuda_spgemm_offsets first, unsigned long long *cursors,
                                    int32_t *rows);

/*
 * Count phase of bin b for its nrows rows rows[0 .. nrows): cnt[i] <- the number of distinct
 * columns of row i of C. The dense bin runs `blocks` thread blocks over `flags` (blocks * n
 * ints, zeroed by the caller); the other bins ignore both.
 */
cudaError_t sps_cuda_spgemm_count(cudaStream_t stream, int b, int64_t nrows, const int32_t *rows,
                                  int64_t n, const int64_t *arp, const int32_t *aci,
                                  const int64_t *brp, const int32_t *bci, int64_t *cnt,
                                  int blocks, unsigned *flags);

/* In-place exclusive prefix sum of data[0 .. count) (CUB): with temp NULL, *bytes <- the
 * scratch it needs; else the scan, with *bytes of scratch at temp. */
cudaError_t sps_cuda_spgemm_scan(cudaStream_t stream, void *temp, size_t *bytes, int64_t *data,
                                 int64_t count);

/*
 * Fill phase of bin b: row i's columns in ascending order into cci[crp[i] ..] and the values
 * (compensated sums of the rounded products a_ik b_kj, rounded once) into cv. The dense bin
 * runs `blocks` thread blocks over flags (blocks * n unsigned) and hi, lo (blocks * n doubles
 * each), all zeroed by the caller.
 */
cudaError_t sps_cuda_spgemm_fill(cudaStream_t stream, int b, int64_t nrows, const int32_t *rows,
                                 int64_t n, const int64_t *arp, const int32_t *aci,
                                 const double *av, const int64_t *brp, const int32_t *bci,
                                 const double *bv, const int64_t *crp, int32_t *cci, double *cv,
                                 int blocks, unsigned *flags, double *hi, double *lo);

/*
 * The steps of strength of connection and MIS(2) aggregation (precond/cuda/aggregate.cu), each
 * the reference step of the same name (precond/ref/kernels.h) on device arrays, giving the
 * same integers. Where the reference returns a count, the launcher clears a device word and
 * the kernel adds to it (isolated rows; rows still undecided; counts[0] rows changed and
 * counts[1] rows left by attach). The count kernels also set count[n] = 0, so the exclusive
 * scan of n + 1 words (sps_cuda_agg_scan) gives the offsets with the total last. The transpose
 * is column_count (into count, n + 1 words, cleared first), a scan, and sort_by_column: C's
 * entries (cci, crow: the row of each) stably sorted by column, the rows landing in tci (the
 * sorted columns in keys_out, scratch). Scan and sort follow CUB's convention: with temp NULL
 * they only set *temp_bytes. root_flags writes flags[i] = 1 for IN rows (flags[n] = 0); roots
 * then numbers them with rank, the scanned flags.
 */
cudaError_t sps_cuda_agg_diagonal(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                  const double *v, double *d);
cudaError_t sps_cuda_agg_strong_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                      const int32_t *ci, const double *v, const double *d,
                                      double theta, int64_t *count);
cudaError_t sps_cuda_agg_strong_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                     const int32_t *ci, const double *v, const double *d,
                                     double theta, const int64_t *crp, int32_t *cci,
                                     int32_t *crow);
cudaError_t sps_cuda_agg_scan(cudaStream_t s, void *temp, size_t *temp_bytes, const int64_t *count,
                              int64_t *offsets, int64_t n1);
cudaError_t sps_cuda_agg_column_count(cudaStream_t s, int64_t n, int64_t nc, const int32_t *cci,
                                      int64_t *count);
cudaError_t sps_cuda_agg_sort_by_column(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n,
                                        int64_t nc, const int32_t *cci, const int32_t *crow,
                                        int32_t *keys_out, int32_t *tci);
cudaError_t sps_cuda_agg_union_count(cudaStream_t s, int64_t n, const int64_t *crp,
                                     const int32_t *cci, const int64_t *trp, const int32_t *tci,
                                     int64_t *count);
cudaError_t sps_cuda_agg_union_fill(cudaStream_t s, int64_t n, const int64_t *crp,
                                    const int32_t *cci, const int64_t *trp, const int32_t *tci,
                                    const int64_t *srp, int32_t *sci);
cudaError_t sps_cuda_agg_init(cudaStream_t s, int64_t n, const int64_t *srp, uint64_t *key,
                              unsigned long long *isolated);
cudaError_t sps_cuda_agg_sweep(cudaStream_t s, int64_t n, const int64_t *srp, const int32_t *sci,
                               const uint64_t *kin, const int32_t *iin, uint64_t *kout,
                               int32_t *iout);
cudaError_t sps_cuda_agg_decide(cudaStream_t s, int64_t n, const uint64_t *mkey,
                                const int32_t *midx, uint64_t *key, unsigned long long *undecided);
cudaError_t sps_cuda_agg_root_flags(cudaStream_t s, int64_t n, const uint64_t *key, int64_t *flags);
cudaError_t sps_cuda_agg_roots(cudaStream_t s, int64_t n, const uint64_t *key, const int64_t *rank,
                               int32_t *agg);
cudaError_t sps_cuda_agg_attach(cudaStream_t s, int64_t n, const int64_t *srp, const int32_t *sci,
                                const uint64_t *key, const int32_t *ain, int32_t *aout,
                                unsigned long long *counts);


/*
 * The transpose T = M^T of an m x n CSR matrix of nnz entries (precond/cuda/transpose.cu; the
 * reference is sps_ref_csr_transpose, the same arrays): tr_count zeroes count (n + 1 words),
 * counts each column's entries into it, and writes the row of each entry into rows and
 * iota[k] = k; the host scans count into T's offsets; tr_sort stably sorts the entries by
 * column (CUB's radix sort of (column, entry) pairs, with temp NULL only setting *temp_bytes):
 * perm lists the entries column by column, rows ascending within a column, as the reference
 * fills them; tr_gather writes T's columns (the rows) and values (v NULL: none).
 */
cudaError_t sps_cuda_tr_count(cudaStream_t s, int64_t m, int64_t n, int64_t nnz, const int64_t *rp,
                              const int32_t *ci, int64_t *count, int32_t *rows, int32_t *iota);
cudaError_t sps_cuda_tr_sort(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n,
                             int64_t nnz, const int32_t *ci, int32_t *keys_out,
                             const int32_t *iota, int32_t *perm);
cudaError_t sps_cuda_tr_gather(cudaStream_t s, int64_t nnz, const int32_t *perm,
                               const int32_t *rows, const double *v, int32_t *tci, double *tv);

/*
 * The multigrid setup's row steps (precond/cuda/amg_level.cu), each the reference step of the
 * same name in precond/ref/kernels.h with the same arguments and results; a counter word is
 * cleared (or set to n for bad) by the launcher and updated by the kernel.
 */
cudaError_t sps_cuda_amg_diag_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                    const int32_t *ci, int64_t *count);
cudaError_t sps_cuda_amg_diag_fill(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                   const double *v, double scale, const int64_t *orp,
                                   int32_t *oci, double *ov);
cudaError_t sps_cuda_amg_smoother_diag(cudaStream_t s, int64_t n, const int64_t *rp,
                                       const int32_t *ci, const double *v, int l1, double *dinv,
                                       double *sd, double *dsq, unsigned long long *bad);
cudaError_t sps_cuda_amg_random(cudaStream_t s, int64_t n, uint64_t seed, double *v);
cudaError_t sps_cuda_amg_tent_count(cudaStream_t s, int64_t n, const int32_t *agg, int64_t *count);
cudaError_t sps_cuda_amg_tent_fill(cudaStream_t s, int64_t n, const int32_t *agg, const double *B,
                                   const int64_t *trp, int32_t *tci, double *tv);
cudaError_t sps_cuda_amg_row_norms(cudaStream_t s, int64_t m, const int64_t *rp, const double *v,
                                   double *norm);
cudaError_t sps_cuda_amg_tent_scale(cudaStream_t s, int64_t n, const int64_t *trp,
                                    const int32_t *tci, double *tv, const double *norm);
cudaError_t sps_cuda_amg_sa_smooth(cudaStream_t s, int64_t n, const int64_t *prp,
                                   const int32_t *pci, double *pv, const double *dinv,
                                   double omega, const int64_t *trp, const int32_t *tci,
                                   const double *tv);
/* The Chebyshev smoother's fused updates (precond/cuda/amg_smooth.cu), the reference steps
 * of the same names in precond/ref/kernels.h. */
cudaError_t sps_cuda_amg_cheby_first(cudaStream_t s, int64_t n, const double *dinv,
                                     const double *src, double a, int zero, double *sv, double *e,
                                     double *x);
cudaError_t sps_cuda_amg_cheby_step(cudaStream_t s, int64_t n, const double *dinv, const double *t,
                                    double a, double b, double *sv, double *e, double *x);
/* The Lanczos steps with their scalars in device memory (precond/cuda/amg_lanczos.cu), the
 * reference steps of the same names in precond/ref/kernels.h. */
cudaError_t sps_cuda_amg_lanczos_start(cudaStream_t s, int64_t n, const double *sq, double *flag,
                                       double *v);
cudaError_t sps_cuda_amg_lanczos_residual(cudaStream_t s, int64_t n, const double *dsq,
                                          const double *beta, const double *vold, double *w);
cudaError_t sps_cuda_amg_lanczos_orth(cudaStream_t s, int64_t n, const double *alpha,
                                      const double *v, double *w);
cudaError_t sps_cuda_amg_lanczos_next(cudaStream_t s, int64_t n, const double *sq, double *beta,
                                      double *flag, const double *w, double *v, double *vold);
cudaError_t sps_cuda_amg_trunc_count(cudaStream_t s, int64_t n, const int64_t *rp, const double *v,
                                     const int64_t *flag, double tf, int pm, int64_t *count);
cudaError_t sps_cuda_amg_trunc_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                    const int32_t *ci, const double *v, const double *w,
                                    const int64_t *flag, const int64_t *cmap, double tf, int pm,
                                    const int64_t *orp, int32_t *oci, double *ov);
cudaError_t sps_cuda_amg_filter_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                      const int32_t *ci, const double *v, const double *d,
                                      double eps, int64_t *count);
cudaError_t sps_cuda_amg_filter_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                     const int32_t *ci, const double *v, const double *d,
                                     double eps, const int64_t *orp, int32_t *oci, double *ov);

/* Classical coarsening (precond/cuda/amg_classical.cu): the reference steps sps_ref_cls_* with
 * the same arguments and results. */
cudaError_t sps_cuda_cls_strength_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                        const int32_t *ci, const double *v, double theta,
                                        double max_row_sum, int64_t *count);
cudaError_t sps_cuda_cls_strength_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                       const int32_t *ci, const double *v, double theta,
                                       double max_row_sum, const int64_t *srp, int32_t *sci);
cudaError_t sps_cuda_cls_pmis_init(cudaStream_t s, int64_t n, const int64_t *strp, uint64_t *key,
                                   unsigned long long *undecided);
cudaError_t sps_cuda_cls_pmis_select(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const int64_t *strp, const int32_t *stci,
                                     const uint64_t *key, unsigned char *newc);
cudaError_t sps_cuda_cls_pmis_update(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const unsigned char *newc, uint64_t *key,
                                     unsigned long long *undecided);
cudaError_t sps_cuda_cls_cflags(cudaStream_t s, int64_t n, const uint64_t *key, int64_t *flag);
cudaError_t sps_cuda_cls_split_count(cudaStream_t s, int64_t n, const int64_t *srp,
                                     const int32_t *sci, const uint64_t *key, int64_t *count2,
                                     int64_t *count1);
cudaError_t sps_cuda_cls_split_fill(cudaStream_t s, int64_t n, const int64_t *srp,
                                    const int32_t *sci, const uint64_t *key, const int64_t *m2rp,
                                    int32_t *m2ci, double *m2v, const int64_t *m1rp,
                                    int32_t *m1ci, double *m1v);
cudaError_t sps_cuda_cls_interp(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                const double *v, const int64_t *srp, const int32_t *sci,
                                const uint64_t *key, const int64_t *hrp, const int32_t *hci,
                                double *hv);

/*
 * Multicolour Gauss-Seidel (precond/cuda/mcgs.cu): the reference steps sps_ref_mc_* and
 * sps_ref_mcgs_sweep with the same arguments and results, except mc_order, which sorts
 * (colour, row) pairs with CUB's stable radix sort (temp NULL: *temp_bytes only; keys_out and
 * iota: n ints of scratch each) and finds each colour's first position in the sorted colours
 * (the colours of a Jones-Plassmann round with the smallest free colour are 0 .. ncolors - 1,
 * none skipped).
 */
cudaError_t sps_cuda_mc_color_init(cudaStream_t s, int64_t n, int32_t *color);
cudaError_t sps_cuda_mc_color_round(cudaStream_t s, int64_t n, const int64_t *rp,
                                    const int32_t *ci, const int64_t *trp, const int32_t *tci,
                                    const int32_t *cin, int32_t *cout, unsigned long long *left);
cudaError_t sps_cuda_mc_color_count(cudaStream_t s, int64_t n, const int32_t *color,
                                    unsigned long long *ncolors);
cudaError_t sps_cuda_mc_order(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n,
                              const int32_t *color, int ncolors, int64_t *start,
                              int32_t *keys_out, int32_t *iota, int32_t *order);
cudaError_t sps_cuda_mcgs_sweep(cudaStream_t s, int64_t count, const int32_t *rows,
                                const int64_t *rp, const int32_t *ci, const double *v, double sg,
                                const double *dinv, const double *b, double *x, int lanes);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_CUDA_LAUNCHERS_H */
