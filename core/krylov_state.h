/* krylov_state.h: the scalar state of a Krylov iteration kept in the context's memory (the device on CUDA), shared by C and CUDA code. */
#ifndef SPS_CORE_KRYLOV_STATE_H
#define SPS_CORE_KRYLOV_STATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status word of a device-driven CG iteration: RUNNING until a step sets another value. */
enum {
  SPS_CG_RUNNING = 0,
  SPS_CG_CONVERGED = 1,          /* ||r|| <= tol by the recurrence: the host confirms */
  SPS_CG_MAX_ITERATIONS = 2,
  SPS_CG_INDEFINITE_MATRIX = 3,  /* (p, Ap) <= 0 */
  SPS_CG_INDEFINITE_PRECOND = 4, /* (r, M^-1 r) < 0 */
  SPS_CG_NAN = 5
};

/*
 * The scalars of preconditioned CG (Saad, Alg. 9.1) as the fused steps read and write them.
 * The host writes rz (= (r0, z0)), tol2, maxit, it and status = RUNNING before a solve and
 * reads the block back once per batch of iterations.
 */
typedef struct sps_cg_state {
  double rz;       /* (r, z) of the current iterate */
  double pq;       /* (p, Ap) */
  double alpha;    /* rz / pq */
  double beta;     /* rz_new / rz_old */
  double rr;       /* ||r||^2 by the recurrence */
  double tol2;     /* stop when rr <= tol2 */
  double *history; /* maxit + 1 norms in the same memory space, or NULL */
  int32_t it;      /* iterations done */
  int32_t maxit;   /* stop with MAX_ITERATIONS when it reaches this */
  int32_t status;  /* SPS_CG_* */
  int32_t pad;
} sps_cg_state;

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_KRYLOV_STATE_H */
