/* aggregate.h: strength of connection and MIS(2) aggregation, the coarsening of smoothed-aggregation AMG, on the context's device (CPU reference or CUDA kernels, the same aggregates). */
#ifndef SPS_PRECOND_AGGREGATE_H
#define SPS_PRECOND_AGGREGATE_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A on the host, square, sorted columns, diagonal present (sps_host_csr, precond/host_csr.h).
 * agg: n entries (caller's), the aggregate of each row 0..naggs-1, or -1 for a row with no
 * strong off-diagonal connection (left out of every aggregate). Runs on the context's device
 * (the CUDA kernels when the context's backend is CUDA: upload, kernels, download; the CPU
 * reference otherwise) with identical results on both. Allocates only through the library's
 * allocators (sps_host_alloc / the backend's device alloc), frees everything before returning.
 *
 * Strength: j != i is strong in row i when a_ij != 0 and |a_ij| >= theta sqrt(|a_ii a_jj|)
 * (a row without a stored diagonal counts a_ii = 0); the strength graph S is symmetrised
 * (edge {i, j} when j is strong in row i or i is strong in row j). The aggregates are MIS(2)
 * roots of S and the rows within distance 2 of them (precond/ref/aggregate.c gives the rules);
 * each aggregate is connected in S.
 *
 * Returns SPS_SUCCESS; SPS_ERR_ARGUMENT (ctx, A or its arrays, agg or naggs NULL, theta
 * negative or not finite); SPS_ERR_SIZE (n above INT32_MAX); SPS_ERR_HOST_MEMORY,
 * SPS_ERR_DEVICE_MEMORY, SPS_ERR_CUDA from the allocations and kernels. On failure agg and
 * *naggs are unspecified.
 */
sps_status sps_amg_aggregate(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                             int64_t *naggs);

/*
 * sps_amg_aggregate on A's CSR arrays in the context's memory (device arrays on a CUDA
 * context), agg too (n entries): what the multigrid setup calls, so that A stays on the
 * device; A's arrays are only read.
 */
sps_status sps_amg_aggregate_device(sps_context *ctx, int64_t n, const int64_t *rp,
                                    const int32_t *ci, const double *v, double theta, int32_t *agg,
                                    int64_t *naggs);

/* What one aggregation did (sps_amg_aggregate_ex). */
typedef struct sps_amg_aggregate_info {
  int64_t strong_entries; /* entries of S (each edge counted in both rows) */
  int64_t isolated;       /* rows without neighbours in S (agg -1) */
  int mis_rounds;         /* rounds of MIS(2) */
  int attach_rounds;      /* rounds of joining rows to aggregates */
  double seconds;          /* wall clock of the whole call, of which: */
  double upload_seconds;   /* copying A to the device (0 on the CPU) */
  double strength_seconds; /* the strength graph (allocations included) */
  double mis_seconds;      /* the rounds of MIS(2) */
  double attach_seconds;   /* numbering the roots, the rounds of attach, agg to the caller */
} sps_amg_aggregate_info;

/*
 * sps_amg_aggregate, and when S is not NULL the strength graph: S->rowptr (n + 1) and
 * S->colind (columns ascending), allocated with sps_host_alloc, S->values NULL; the caller
 * frees it with sps_host_csr_free. info (may be NULL) receives the counts above.
 */
sps_status sps_amg_aggregate_ex(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                                int64_t *naggs, sps_host_csr *S, sps_amg_aggregate_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_AGGREGATE_H */
