/* rcm.h: the reverse Cuthill-McKee ordering, which gathers a sparse matrix's entries near the diagonal so that threshold incomplete factors drop less. */
#ifndef SPS_PRECOND_RCM_H
#define SPS_PRECOND_RCM_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reverse Cuthill-McKee (Cuthill and McKee 1969; George 1971) on the graph of A + A^T:
 * breadth-first search from a pseudo-peripheral vertex of each connected component (the end
 * of a few sweeps of the George-Liu heuristic), neighbours visited by increasing degree,
 * and the whole order reversed. perm[k] is the row of A that becomes row k; perm comes from
 * sps_host_alloc (n entries).
 */
sps_status sps_rcm_order(sps_context *ctx, const sps_host_csr *A, int32_t **perm);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_RCM_H */
