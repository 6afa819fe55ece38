/* amg_params.c: the multigrid parameters' effective values where the user left the default: each level's strength threshold and the most entries a row of the prolongator keeps, by coarsening. */
#include <math.h>

#include "amg.h"

/* amg.strength's defaults: aggregation's theta (halved on each coarser level), classical's */
#define AMG_AGGREGATION_THETA 0.12
#define AMG_STRENGTH_DECAY 0.5
#define AMG_CLASSICAL_THETA 0.25
/* amg.interp_max's default for classical coarsening: 5 (BoomerAMG recommends 4 with HMIS and
 * PMIS; 5 took laplacian7pt_100 from 8 to 7 CG iterations, doc/performance.md) */
#define AMG_CLASSICAL_INTERP_MAX 5

/* theta_l = amg.strength (or the default) for classical coarsening, and
 * theta_0 * AMG_STRENGTH_DECAY^l for aggregation. */
double amg_level_theta(const sps_precond_params *prm, int l)
{
  if (prm->amg_coarsening == AMG_COARSEN_CLASSICAL)
    return prm->amg_strength >= 0.0 ? prm->amg_strength : AMG_CLASSICAL_THETA;
  const double theta = prm->amg_strength >= 0.0 ? prm->amg_strength : AMG_AGGREGATION_THETA;
  return theta * pow(AMG_STRENGTH_DECAY, l);
}

/* amg.interp_max, or when negative the coarsening's default (0, all entries, for aggregation). */
int amg_interp_max(const sps_precond_params *prm)
{
  if (prm->amg_interp_max >= 0) return prm->amg_interp_max;
  return prm->amg_coarsening == AMG_COARSEN_CLASSICAL ? AMG_CLASSICAL_INTERP_MAX : 0;
}
