/* precond.h: the internal preconditioner interface and its registry. */
#ifndef SPS_PRECOND_H
#define SPS_PRECOND_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sps_precond sps_precond;

/*
 * One preconditioner M. setup analyses A on the context's device and keeps what it builds in
 * pc->data (all allocation happens there); apply computes z <- M^-1 r on arrays of the
 * context's memory space, allocates nothing, and may be called with z == r only when
 * `in_place` is set; destroy frees pc->data. Methods are written against this table only.
 */
typedef struct sps_precond_ops {
  sps_precond_type type;
  const char *name; /* the CLI name: "none", "jacobi" */
  int in_place;     /* apply accepts z == r */
  sps_status (*setup)(sps_precond *pc, const sps_matrix *A);
  sps_status (*apply)(sps_precond *pc, const double *r, double *z);
  void (*destroy)(sps_precond *pc);
} sps_precond_ops;

struct sps_precond {
  sps_context *ctx;
  const sps_precond_ops *ops;
  int64_t n;  /* order of the operator after setup */
  void *data; /* the preconditioner's own state */
};

/* Create an unset preconditioner of a type. */
sps_status sps_precond_create(sps_context *ctx, sps_precond **pc, sps_precond_type type);
/* Analyse the square matrix A (borrowed for the duration of setup only). */
sps_status sps_precond_setup(sps_precond *pc, const sps_matrix *A);
/* z <- M^-1 r. */
sps_status sps_precond_apply(sps_precond *pc, const double *r, double *z);
/* Nonzero when M is the identity: a method may then skip the apply and let z alias r. */
int sps_precond_is_identity(const sps_precond *pc);
/* Destroy (NULL allowed) and set the pointer to NULL. */
void sps_precond_destroy(sps_precond **pc);

/* The registered preconditioners (precond/<name>.c). */
extern const sps_precond_ops sps_precond_ops_none;
extern const sps_precond_ops sps_precond_ops_jacobi;

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_H */
