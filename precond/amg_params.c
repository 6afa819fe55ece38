/* amg_params.c: the multigrid parameters' effective values where the user left the default: each level's strength threshold, the most entries a row of the prolongator keeps, by coarsening, and which levels are coarsened aggressively; the names of the setup's timed phases. */
#include <math.h>

#include "amg.h"

/* amg.strength's defaults: aggregation's theta (halved on each coarser level), classical's */
#define AMG_AGGREGATION_THETA 0.12
#define AMG_STRENGTH_DECAY 0.5
#define AMG_CLASSICAL_THETA 0.25
/* amg.interp_max's default for classical coarsening: 3. With two-stage aggressive coarsening
 * of the first levels it keeps G3_circuit's operator complexity at 1.45 (5 and one-stage
 * coarsening: 3.51); BoomerAMG recommends 4 with HMIS and PMIS (doc/performance.md, "Operator
 * complexity and the cycle's cost") */
#define AMG_CLASSICAL_INTERP_MAX 3
/* amg.aggressive's default: the first AMG_AGGRESSIVE_LEVELS levels coarsened in two stages,
 * each only when it has at least AMG_AGGRESSIVE_MIN_ROWS rows. On the large problems the two
 * stages cut the operator complexity from 2.5-3.5 to 1.25-1.45 and the time to solution by a
 * quarter to a third on the CPU (CG iterations 6 -> 11-16); on the small shared matrices they
 * cost iterations (1138_bus: 8 -> 49) where the complexity buys nothing (the cycle is
 * launch-bound there). */
#define AMG_AGGRESSIVE_LEVELS 2
#define AMG_AGGRESSIVE_MIN_ROWS 20000

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

/* Level l (n rows) is coarsened in two classical stages: l < amg.aggressive, or when it is -1
 * (the default) l < AMG_AGGRESSIVE_LEVELS and n >= AMG_AGGRESSIVE_MIN_ROWS. Never for
 * aggregation. */
int amg_aggressive_level(const sps_precond_params *prm, int l, int64_t n)
{
  if (prm->amg_coarsening != AMG_COARSEN_CLASSICAL) return 0;
  if (prm->amg_aggressive >= 0) return l < prm->amg_aggressive;
  return l < AMG_AGGRESSIVE_LEVELS && n >= AMG_AGGRESSIVE_MIN_ROWS;
}

const char *sps_amg_setup_phase_name(int phase)
{
  static const char *const names[SPS_AMG_SETUP_PHASES] = {
      "smoother", "strength", "splitting", "interpolation",
      "transpose", "galerkin", "matrices", "coarsest"};
  return phase >= 0 && phase < SPS_AMG_SETUP_PHASES ? names[phase] : NULL;
}
