/* cusparse_csr.h: the cuSPARSE CSR descriptor of a library matrix's device arrays, shared by the cusparse SpMV variant and the cusparse-spmm SpMM variant (CUDA builds only). */
#ifndef SPS_SPMV_CUSPARSE_CSR_H
#define SPS_SPMV_CUSPARSE_CSR_H

#include "../core/cuda_state.h"
#include "spmv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * *mat <- a CSR descriptor of A (nnz > 0) on its device arrays. cusparseCreateCsr takes one
 * index type for offsets and columns while A has int64 offsets and int32 columns: with A's
 * int32 copy of the offsets (d_rowptr32) both are int32 and nothing is copied; otherwise an
 * int64 copy of the columns is made on the device into *index_copy (the caller frees it with
 * the backend's free, NULL when none was made).
 * @return SPS_SUCCESS; SPS_ERR_HOST_MEMORY, SPS_ERR_DEVICE_MEMORY, SPS_ERR_CUSPARSE.
 */
sps_status sps_cusparse_csr(sps_context *ctx, const sps_matrix *A, cusparseSpMatDescr_t *mat,
                            void **index_copy);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_CUSPARSE_CSR_H */
