/* defaults.h: the solver defaults (tolerances, divergence tolerance, iteration limit, GMRES restart) shared by the library, the CLI and the benchmarks. */
#ifndef SPS_SOLVERS_DEFAULTS_H
#define SPS_SOLVERS_DEFAULTS_H

/*
 * sps_solver_create's settings, documented there (include/spsolve.h) and in spsolve(1):
 * stop when ||b - Ax|| <= max(rtol ||b||, atol), after at most maxit iterations (GMRES counts
 * inner ones), restarting GMRES every restart steps. The values are plain literals so that
 * SPS_STRINGIFY can put them into help texts.
 */
#define SPS_DEFAULT_RTOL 1e-8
#define SPS_DEFAULT_ATOL 0
#define SPS_DEFAULT_MAXIT 10000
#define SPS_DEFAULT_RESTART 30
/* stop as diverged when ||b - Ax|| stays above dtol max(||b||, ||r_0||) (PETSc's default) */
#define SPS_DEFAULT_DTOL 1e5

/* The text of a macro's value: SPS_STRINGIFY(SPS_DEFAULT_RTOL) is "1e-8". */
#define SPS_STRINGIFY_(x) #x
#define SPS_STRINGIFY(x) SPS_STRINGIFY_(x)

#endif /* SPS_SOLVERS_DEFAULTS_H */
