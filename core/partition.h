/* partition.h: the partition of a matrix's rows over ranks (core/partition.c): contiguous blocks, or METIS. */
#ifndef SPS_CORE_PARTITION_H
#define SPS_CORE_PARTITION_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* offsets[r] <- floor(r n / nparts), r = 0 .. nparts: part r is rows [offsets[r], offsets[r+1]). */
void sps_partition_contiguous(int64_t n, int nparts, int64_t *offsets);

/*
 * part[i] <- the part (0 .. nparts-1) of row i of A (square), by METIS k-way partitioning of
 * the graph of A + A^T (no weights, a fixed seed), which balances the rows and cuts few edges.
 * SPS_ERR_UNSUPPORTED in a build without METIS, or when METIS refuses the graph;
 * SPS_ERR_SIZE beyond its 32-bit indices.
 */
sps_status sps_partition_metis(sps_context *ctx, const sps_matrix *A, int nparts, int32_t *part);

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_PARTITION_H */
