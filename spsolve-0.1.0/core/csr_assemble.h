/* csr_assemble.h: canonical CSR assembly (sorted columns, duplicates summed, explicit zeros kept). */
#ifndef SPS_CORE_CSR_ASSEMBLE_H
#define SPS_CORE_CSR_ASSEMBLE_H

#include "internal.h"

/*
 * Sort the columns of each row (stable: duplicates keep their input order) and sum
 * duplicates, compacting the arrays in place; rowptr is rewritten and *nnz_out is the
 * new count. Indices must already be checked to lie in range.
 */
sps_status sps_csr_canonicalize(sps_context *ctx, int64_t nrows, int64_t *rowptr, int32_t *colind,
                                double *values, int64_t *nnz_out);

/*
 * Build canonical CSR from nnz COO triplets (0-based, checked in range). The output arrays
 * are allocated with sps_host_alloc and owned by the caller; they hold at least *nnz_out
 * entries.
 */
sps_status sps_csr_from_coo(sps_context *ctx, int64_t nrows, int64_t nnz, const int32_t *rows,
                            const int32_t *cols, const double *vals, int64_t **rowptr,
                            int32_t **colind, double **values, int64_t *nnz_out);

#endif /* SPS_CORE_CSR_ASSEMBLE_H */
