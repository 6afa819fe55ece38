/* ilu0.h: the ILU(0) factorisation of a prepared matrix, on the context's device, shared by the ilu0 and ic0 preconditioners. */
#ifndef SPS_PRECOND_ILU0_H
#define SPS_PRECOND_ILU0_H

#include "lu_factors.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Factor B (host, rows sorted, every diagonal position present) in place in f, whose
 * pattern is B's (sps_lu_factors_create with F = B): the values of B are uploaded, then
 * ILU(0) runs on the context's device (CPU reference, or the synchronisation-free CUDA
 * kernel in the lower triangle's level order), with the pivot rule of sps_ref_ilu0_factor
 * (spd: incomplete Cholesky's breakdown test). Called again with new values (a shifted
 * diagonal) it refactors. *replaced and *breakdowns get the counts of this factorisation.
 */
sps_status sps_ilu0_factor(sps_lu_factors *f, const sps_host_csr *B, double pivot_tol, int spd,
                           int64_t *replaced, int64_t *breakdowns);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_ILU0_H */
