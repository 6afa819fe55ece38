/* many.h: the many right-hand sides of spsolve (--nrhs K, a k-column --rhs file, --solver block-cg): the block problem, sps_solver_solve_many, the per-column errors and -o. */
#ifndef SPS_CLI_MANY_H
#define SPS_CLI_MANY_H

#include "options.h"
#include "report.h"
#include "state.h"

/*
 * Make B (n x k) and X: k read from the --rhs file (already in s->B) or --nrhs K; b_j = A x*_j
 * for seeded random x*_j (seeds seed, seed+1, ...: column 0 is the one-column problem), or
 * K random or K ones columns; X from --x0 (k columns, or one for all) or zero.
 */
int cli_many_make_rhs(cli_state *s, const cli_options *opt, cli_report *r);

/* Create and set up the solver for k columns, run sps_solver_solve_many, read the results. */
int cli_many_solve(cli_state *s, const cli_options *opt, cli_report *r);

/* The errors ||x_j - x*_j|| / ||x*_j|| when x* is known, and -o (all columns). */
int cli_many_finish(cli_state *s, const cli_options *opt, cli_report *r);

#endif /* SPS_CLI_MANY_H */
