/* params.c: the preconditioner parameters by name: their table, defaults, ranges and the public listing. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"
#include "ref/kernels.h"

/* One parameter: where it lives in sps_precond_params, its range and whether it is an integer. */
typedef struct param_spec {
  const char *name;
  const char *description;
  size_t offset;
  int integer;       /* stored as int; the value must be integral */
  const char *names; /* NULL, or the names of the values 0, 1, ...: "aggregation|classical" */
  double lo, hi, def;
} param_spec;

#define DOUBLE_PARAM(field) offsetof(sps_precond_params, field), 0, NULL
#define INT_PARAM(field) offsetof(sps_precond_params, field), 1, NULL
#define NAMED_PARAM(field, names) offsetof(sps_precond_params, field), 1, names

static const param_spec params[] = {
    {"ilut.fill",
     "ILUT: keep at most fill times the off-diagonal entries of the row of A, half in L, half in U",
     DOUBLE_PARAM(ilut_fill), 0.0, 1e6, 10.0},
    {"ilut.drop", "ILUT: drop entries below drop times the mean magnitude of the row of A",
     DOUBLE_PARAM(ilut_drop), 0.0, 1.0, 1e-4},
    {"ilut.pivot", "ILUTP: swap columns when |a_ii| < pivot |a_ij| (0: no pivoting)",
     DOUBLE_PARAM(ilut_pivot), 0.0, 1.0, 0.1},
    {"pivot.tol", "replace pivots below tol times the largest |a_ij| of the row (ilu0, ilut)",
     DOUBLE_PARAM(pivot_tol), 0.0, 1.0, 1e-10},
    {"ic0.shift", "IC(0): the first diagonal shift alpha of A + alpha diag(A)",
     DOUBLE_PARAM(ic0_shift), 0.0, 1e3, 0.0},
    {"matching", "permute rows to a large diagonal: 1 always, 0 never, -1 for zero or small diagonals (not for ilut with pivoting)",
     INT_PARAM(matching), -1.0, 1.0, -1.0},
    {"scaling", "equilibrate rows and columns: 1 always, 0 never, -1 with the matching (always for ilut)",
     INT_PARAM(scaling), -1.0, 1.0, -1.0},
    {"ordering",
     "1 multicolor (few level sets, more iterations), 2 reverse Cuthill-McKee, 0 natural, -1 "
     "auto: RCM for ilut, multicolor for large ilu0/ic0 with too many level sets",
     INT_PARAM(ordering), -1.0, 2.0, -1.0},
    {"bjacobi.block", "block Jacobi: rows per diagonal block (0: chosen from the matrix)",
     INT_PARAM(bjacobi_block), 0.0, 64.0, 0.0},
    {"cheby.degree", "Chebyshev: degree of the polynomial", INT_PARAM(cheby_degree), 1.0, 64.0,
     4.0},
    {"cheby.lanczos", "Chebyshev and AMG: Lanczos steps of the eigenvalue estimates",
     INT_PARAM(cheby_lanczos), 2.0, 200.0, 20.0},
    {"amg.coarsening",
     "AMG: 0 (aggregation) smoothed aggregation, 1 (classical) PMIS with extended+i "
     "interpolation",
     NAMED_PARAM(amg_coarsening, "aggregation|classical"), 0.0, 1.0, 1.0},
    {"amg.strength",
     "AMG: theta of the strength of connection; aggregation: |a_ij| >= theta sqrt(|a_ii a_jj|), "
     "halved on each coarser level (-1: 0.12); classical: -a_ij > theta max_k -a_ik (-1: 0.25)",
     DOUBLE_PARAM(amg_strength), -1.0, 1.0, -1.0},
    {"amg.interp_max",
     "AMG: the most entries a row of the prolongator keeps, rescaled (0: all; -1: 3 for "
     "classical, all for aggregation)",
     INT_PARAM(amg_interp_max), -1.0, (double)SPS_AMG_TRUNC_MAX, -1.0},
    {"amg.trunc",
     "AMG: drop the prolongator's entries below this times the row's largest (trunc_factor)",
     DOUBLE_PARAM(amg_trunc), 0.0, 0.99, 0.0},
    {"amg.aggressive",
     "AMG: classical coarsening: the first k levels coarsened in two stages (P = P1 P2, "
     "truncated; -1: the first 2 levels, each when it has at least 20000 rows)",
     INT_PARAM(amg_aggressive), -1.0, (double)SPS_AMG_MAX_LEVELS, -1.0},
    {"amg.filter",
     "AMG: drop the coarse operators' entries below this times sqrt(|a_ii a_jj|), added to the "
     "diagonal (0: keep all)",
     DOUBLE_PARAM(amg_filter), 0.0, 1.0, 0.0},
    {"amg.smoother", "AMG: 0 (cheby) Chebyshev in D^-1 A, 1 (l1jacobi) l1-Jacobi, 2 (mcgs) "
     "symmetric multicolour Gauss-Seidel", NAMED_PARAM(amg_smoother, "cheby|l1jacobi|mcgs"), 0.0,
     2.0, 0.0},
    {"amg.cheby_degree", "AMG: degree of the Chebyshev smoother (SpMVs per smoothing)",
     INT_PARAM(amg_cheby_degree), 1.0, 16.0, 3.0},
    {"amg.cheby_ratio", "AMG: the smoother damps the top of D^-1 A's spectrum, [b / ratio, b]",
     DOUBLE_PARAM(amg_cheby_ratio), 1.5, 1000.0, 20.0},
    {"amg.levels", "AMG: the most levels of the hierarchy, the finest included",
     INT_PARAM(amg_levels), 1.0, (double)SPS_AMG_MAX_LEVELS, (double)SPS_AMG_MAX_LEVELS},
    {"amg.coarse_size", "AMG: stop coarsening at this many rows or fewer (inverted densely)",
     INT_PARAM(amg_coarse_size), 1.0, 800.0, 300.0},
    {"amg.cycle", "AMG: 1 V-cycle, 2 W-cycle, 3 F-cycle", INT_PARAM(amg_cycle), 1.0, 3.0, 1.0},
};

#define PARAM_COUNT ((int)(sizeof params / sizeof params[0]))

static void store(sps_precond_params *p, const param_spec *s, double value)
{
  char *at = (char *)p + s->offset;
  if (s->integer)
    *(int *)(void *)at = (int)value;
  else
    *(double *)(void *)at = value;
}

void sps_precond_params_default(sps_precond_params *p)
{
  memset(p, 0, sizeof *p);
  for (int k = 0; k < PARAM_COUNT; k++) store(p, &params[k], params[k].def);
}

sps_status sps_precond_params_set(sps_context *ctx, sps_precond_params *p, const char *name,
                                  double value)
{
  if (!name) SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "preconditioner parameter: invalid argument 'name'");
  for (int k = 0; k < PARAM_COUNT; k++) {
    const param_spec *s = &params[k];
    if (strcmp(name, s->name) != 0) continue;
    if (!(value >= s->lo && value <= s->hi) || (s->integer && value != floor(value)))
      SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
               "preconditioner parameter '%s': %g is out of range (%s in [%g, %g])", name, value,
               s->integer ? "an integer" : "a number", s->lo, s->hi);
    store(p, s, value);
    return SPS_SUCCESS;
  }
  char known[1024] = "";
  for (int k = 0; k < PARAM_COUNT; k++) {
    if (k) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, params[k].name, sizeof known - strlen(known) - 1);
  }
  SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "unknown preconditioner parameter '%s' (known: %s)", name, known);
}

sps_status sps_precond_param_value(const char *name, const char *text, double *value)
{
  if (!name || !text || !value) return SPS_ERR_ARGUMENT;
  char *end;
  const double v = strtod(text, &end);
  if (end != text && *end == '\0') {
    *value = v;
    return SPS_SUCCESS;
  }
  for (int k = 0; k < PARAM_COUNT; k++) {
    if (strcmp(name, params[k].name) != 0 || !params[k].names) continue;
    const size_t len = strlen(text);
    int index = 0;
    for (const char *p = params[k].names;; index++) {
      const char *bar = strchr(p, '|');
      const size_t plen = bar ? (size_t)(bar - p) : strlen(p);
      if (plen == len && strncmp(p, text, len) == 0) {
        *value = index;
        return SPS_SUCCESS;
      }
      if (!bar) break;
      p = bar + 1;
    }
  }
  return SPS_ERR_ARGUMENT;
}

sps_status sps_precond_param_info(int index, const char **name, const char **description,
                                  double *default_value)
{
  if (index < 0 || index >= PARAM_COUNT) return SPS_ERR_ARGUMENT;
  if (name) *name = params[index].name;
  if (description) *description = params[index].description;
  if (default_value) *default_value = params[index].def;
  return SPS_SUCCESS;
}
