/* status.c: the status and reason string tables: every code has a distinct name and a description, unknown codes are named as such; and every status a CPU build can return provoked by a call that must return it. */
#include "testlib.h"

#include "../../core/internal.h" /* the allocation-failure hook */

/*
 * Provoke each status with a call that must return it (GSL's rule): on the CPU every one but
 * the three that need a GPU (device memory: tests/unit/device_memory; CUDA and cuSPARSE
 * errors) and the one of MPI (tests/mpi/api). Returns the number of codes provoked.
 */
/* A read progress callback that asks to stop at once. */
static int stop_reading(void *user, int64_t bytes, int64_t total)
{
  (void)user;
  (void)bytes;
  (void)total;
  return 1;
}

static int provoke_statuses(void)
{
  sps_context *ctx;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) sps_bail("CPU context");
  const int64_t rp[] = {0, 1, 2};
  const int32_t ci[] = {0, 1};
  const double va[] = {2, 3};
  sps_matrix *A, *B = NULL;
  if (sps_matrix_create_csr(ctx, &A, 2, 2, rp, ci, va)) sps_bail("matrix");
  sps_vector *v = NULL, *w = NULL;
  sps_spmv_plan *p = NULL;
  sps_solver *s = NULL;
  sps_context *other = NULL;
  struct {
    sps_status want, got;
    const char *call;
  } c[16];
  int k = 0;
#define PROVOKE(code, expr) (c[k].want = (code), c[k].got = (expr), c[k++].call = #expr)
  PROVOKE(SPS_SUCCESS, sps_vector_create(ctx, &w, 2));
  PROVOKE(SPS_ERR_ARGUMENT, sps_vector_create(ctx, NULL, 2));
  PROVOKE(SPS_ERR_SIZE, sps_vector_create(ctx, &v, -1));
  sps_test_alloc_fail_at(1);
  PROVOKE(SPS_ERR_HOST_MEMORY, sps_vector_create(ctx, &v, 2));
  sps_test_alloc_fail_at(0);
  PROVOKE(SPS_ERR_UNSUPPORTED, sps_spmv_plan_create(ctx, &p, A, SPS_SPMV_CUSPARSE));
  PROVOKE(SPS_ERR_IO, sps_matrix_read_mm(ctx, &B, "/nonexistent/spsolve-status-test.mtx", 0));
  static const char text[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n";
  sps_context_set_read_progress(ctx, stop_reading, NULL);
  PROVOKE(SPS_ERR_INTERRUPTED, sps_matrix_read_mm_buffer(ctx, &B, text, sizeof text - 1, "text", 0));
  sps_context_set_read_progress(ctx, NULL, NULL);
  PROVOKE(sps_have_cuda() ? SPS_ERR_NO_DEVICE : SPS_ERR_UNSUPPORTED,
          sps_context_create(&other, SPS_DEVICE_CUDA, 100000));
  sps_solver_create(ctx, &s, SPS_SOLVER_CG);
  PROVOKE(SPS_ERR_STATE, sps_solver_solve(s, w, w));
  sps_solver_destroy(&s);
  PROVOKE(SPS_ERR_BUSY, sps_context_destroy(&ctx));
#undef PROVOKE
  int provoked = 0;
  for (int i = 0; i < k; i++) {
    sps_ok(c[i].got == c[i].want, "%s returns %s (%s)", c[i].call, sps_status_name(c[i].want),
           sps_status_name(c[i].got));
    provoked += c[i].got == c[i].want;
  }
  sps_ok(ctx != NULL && w != NULL, "after SPS_ERR_BUSY the context is still there");
  sps_vector_destroy(&w);
  sps_matrix_destroy(&A);
  sps_ok(sps_context_destroy(&ctx) == SPS_SUCCESS && ctx == NULL,
         "with its objects destroyed, the context is destroyed");
  return provoked;
}

/*
 * The context counts its live objects: a destroy while any lives is refused with
 * SPS_ERR_BUSY and a message counting them by kind, the context stays usable, and a solver's
 * own SpMV plan is not counted.
 */
static void test_busy(void)
{
  sps_context *ctx;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) sps_bail("CPU context");
  const int64_t rp[] = {0, 1, 2};
  const int32_t ci[] = {0, 1};
  const double va[] = {2, 3};
  sps_matrix *A;
  sps_vector *b, *x;
  sps_spmv_plan *p;
  sps_solver *s;
  if (sps_matrix_create_csr(ctx, &A, 2, 2, rp, ci, va) || sps_vector_create(ctx, &b, 2) ||
      sps_vector_create(ctx, &x, 2) || sps_spmv_plan_create(ctx, &p, A, SPS_SPMV_AUTO) ||
      sps_solver_create(ctx, &s, SPS_SOLVER_CG) || sps_solver_setup(s, A))
    sps_bail("objects: %s", sps_context_last_error(ctx));
  sps_context *keep = ctx;
  sps_status st = sps_context_destroy(&ctx);
  const char *msg = sps_context_last_error(keep);
  sps_ok(st == SPS_ERR_BUSY && ctx == keep &&
             strstr(msg, "5 live objects (1 matrix, 2 vectors, 1 SpMV plan, 1 solver)"),
         "destroy with 5 objects alive: %s, \"%s\", the pointer kept", sps_status_name(st), msg);
  sps_vector_fill(b, 1.0);
  sps_ok(sps_solver_solve(s, b, x) == SPS_SUCCESS, "the refused context still solves");
  sps_vector_destroy(&b);
  sps_vector_destroy(&x);
  sps_spmv_plan_destroy(&p);
  st = sps_context_destroy(&ctx);
  msg = sps_context_last_error(keep);
  sps_ok(st == SPS_ERR_BUSY && strstr(msg, "2 live objects (1 matrix, 1 solver)"),
         "with the solver and A left: %s, \"%s\" (the solver's own plan not counted)",
         sps_status_name(st), msg);
  sps_solver_destroy(&s);
  sps_matrix_destroy(&A);
  st = sps_context_destroy(&ctx);
  sps_ok(st == SPS_SUCCESS && ctx == NULL, "with every object destroyed: %s, the pointer NULL",
         sps_status_name(st));
  sps_ok(sps_context_destroy(&ctx) == SPS_SUCCESS && sps_context_destroy(NULL) == SPS_SUCCESS,
         "destroying NULL succeeds");
}

int main(void)
{
  static const sps_status statuses[] = {
#define SPS_X(name, value, text) name,
      SPS_STATUS_LIST(SPS_X)
#undef SPS_X
  };
  static const char *status_names[] = {
#define SPS_X(name, value, text) #name,
      SPS_STATUS_LIST(SPS_X)
#undef SPS_X
  };
  const int ns = (int)(sizeof statuses / sizeof statuses[0]);
  for (int a = 0; a < ns; a++) {
    const char *name = sps_status_name(statuses[a]), *text = sps_status_string(statuses[a]);
    int distinct = 1;
    for (int b = 0; b < ns; b++)
      if (b != a && (statuses[a] == statuses[b] || !strcmp(name, sps_status_name(statuses[b])) ||
                     !strcmp(text, sps_status_string(statuses[b]))))
        distinct = 0;
    sps_ok(!strcmp(name, status_names[a]) && *text && distinct,
           "status %d is %s, '%s', distinct from the others", (int)statuses[a], name, text);
  }
  int signs = statuses[0] == SPS_SUCCESS && SPS_SUCCESS == 0;
  for (int a = 1; a < ns; a++) signs = signs && statuses[a] < 0;
  sps_ok(signs, "SPS_SUCCESS is 0 and every other status is negative");
  sps_ok(!strcmp(sps_status_name((sps_status)-1000), "SPS_UNKNOWN_STATUS") &&
             !strcmp(sps_status_string((sps_status)-1000), "unknown status"),
         "an unknown status is named as unknown");

  static const sps_reason reasons[] = {
#define SPS_X(name, value, text) name,
      SPS_REASON_LIST(SPS_X)
#undef SPS_X
  };
  static const char *reason_names[] = {
#define SPS_X(name, value, text) #name,
      SPS_REASON_LIST(SPS_X)
#undef SPS_X
  };
  const int nr = (int)(sizeof reasons / sizeof reasons[0]);
  for (int a = 0; a < nr; a++) {
    const char *name = sps_reason_name(reasons[a]), *text = sps_reason_string(reasons[a]);
    int distinct = 1;
    for (int b = 0; b < nr; b++)
      if (b != a && (reasons[a] == reasons[b] || !strcmp(name, sps_reason_name(reasons[b])) ||
                     !strcmp(text, sps_reason_string(reasons[b]))))
        distinct = 0;
    sps_ok(!strcmp(name, reason_names[a]) && *text && distinct,
           "reason %d is %s, '%s', distinct from the others", (int)reasons[a], name, text);
  }
  sps_ok(!strcmp(sps_reason_name((sps_reason)1000), "SPS_UNKNOWN_REASON") &&
             !strcmp(sps_reason_string((sps_reason)1000), "unknown reason"),
         "an unknown reason is named as unknown");

  const int provoked = provoke_statuses();
  sps_ok(provoked == ns - 4,
         "%d of the %d statuses provoked on the CPU (not SPS_ERR_DEVICE_MEMORY, SPS_ERR_CUDA, "
         "SPS_ERR_CUSPARSE: they need a GPU; not SPS_ERR_MPI: tests/mpi/api provokes it)",
         provoked, ns);
  test_busy();
  return sps_done();
}
