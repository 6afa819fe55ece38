/* spgemm.h: the sparse matrix product C = A B on the context's device (CPU reference or GPU hash SpGEMM), for the Galerkin operators of algebraic multigrid. */
#ifndef SPS_PRECOND_SPGEMM_H
#define SPS_PRECOND_SPGEMM_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Device time of the phases of one product, filled when a non-NULL pointer is given (CUDA
 * events on the context's stream; on a CPU context the wall clock). count: from the start to
 * C's row offsets (bounds, binning, the count kernels, the prefix sum, and the temporary
 * allocations among them); fill: from there to the end (binning, C's allocation, the fill
 * kernels, freeing the temporaries); total: the sum, host synchronisations included.
 */
typedef struct sps_spgemm_times {
  double count_s, fill_s, total_s;
} sps_spgemm_times;

/*
 * C = A B on arrays in the context's memory (device arrays on a CUDA context, host arrays on
 * a CPU one): A is m x k (d_arp: m + 1 offsets; d_aci, d_av: d_arp[m] entries), B is k x n,
 * both with columns sorted in each row and in range. On success *d_crp (m + 1 offsets),
 * *d_cci and *d_cv (*cnnz entries, at least one element allocated) are new arrays of the
 * context's allocator (ctx->be->malloc), owned by the caller, who releases them with
 * ctx->be->free. C's columns are sorted in each row, every structural product makes an entry
 * (zero or not), and c_ij is the compensated sum of the rounded products a_ik b_kj
 * (precond/ref/kernels.h), added in the order of A's row: the GPU gives the CPU reference's
 * bits.
 * @return SPS_SUCCESS; SPS_ERR_ARGUMENT (a NULL pointer, a negative size); SPS_ERR_SIZE (m or n
 * beyond INT32_MAX); SPS_ERR_HOST_MEMORY, SPS_ERR_DEVICE_MEMORY (naming the array and its
 * size); SPS_ERR_CUDA. On failure nothing is allocated and the outputs are NULL and 0.
 */
sps_status sps_spgemm_device(sps_context *ctx, int64_t m, int64_t k, int64_t n,
                             const int64_t *d_arp, const int32_t *d_aci, const double *d_av,
                             const int64_t *d_brp, const int32_t *d_bci, const double *d_bv,
                             int64_t **d_crp, int32_t **d_cci, double **d_cv, int64_t *cnnz);

/* sps_spgemm_device, with the phases' times in *times when times is not NULL. */
sps_status sps_spgemm_device_timed(sps_context *ctx, int64_t m, int64_t k, int64_t n,
                                   const int64_t *d_arp, const int32_t *d_aci, const double *d_av,
                                   const int64_t *d_brp, const int32_t *d_bci, const double *d_bv,
                                   int64_t **d_crp, int32_t **d_cci, double **d_cv, int64_t *cnnz,
                                   sps_spgemm_times *times);

/*
 * C = A B for host matrices (A->ncols == B->nrows): the CPU reference on a CPU context;
 * on a CUDA context A and B are uploaded, multiplied on the GPU and C downloaded. C is
 * allocated here (sps_host_rcsr_alloc; free it with sps_host_rcsr_free); on failure it is
 * left zeroed.
 * @return as sps_spgemm_device; SPS_ERR_SIZE when the inner dimensions differ.
 */
sps_status sps_spgemm(sps_context *ctx, const sps_host_rcsr *A, const sps_host_rcsr *B,
                      sps_host_rcsr *C);

/*
 * T = A^T for a host matrix (the CPU reference, precond/ref/spgemm.c, on every context: the
 * transpose is a counting sort, cheap beside the products). T is allocated here.
 * @return SPS_SUCCESS; SPS_ERR_ARGUMENT; SPS_ERR_HOST_MEMORY.
 */
sps_status sps_csr_transpose(sps_context *ctx, const sps_host_rcsr *A, sps_host_rcsr *T);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_SPGEMM_H */
