/* mm_gmres.c: example: read a Matrix Market matrix, form b = A*ones with an SpMV plan, solve by
 * GMRES(30). */
/*
 * Build against an installed library:
 *   cc mm_gmres.c $(pkg-config --cflags --libs spsolve) -o mm_gmres
 * Run: ./mm_gmres FILE.mtx[.gz] [jacobi]
 * With "jacobi" the solve is right-preconditioned by the inverse of the diagonal. Prints the
 * reason the iteration stopped and the true relative residual; exit status 0 when GMRES
 * converged, 1 when it did not, 2 on an error (the library's message is printed).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <spsolve.h>

/* Print what failed with the library's message and jump to the cleanup. */
#define CHECK(call)                                                                                \
  do {                                                                                             \
    sps_status st_ = (call);                                                                       \
    if (st_ != SPS_SUCCESS) {                                                                      \
      fprintf(stderr, "mm_gmres: %s failed: %s (%s)\n", #call,                                     \
              ctx ? sps_context_last_error(ctx) : sps_context_create_error(),                      \
              sps_status_name(st_));                                                               \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "jacobi") != 0)) {
    fprintf(stderr, "usage: mm_gmres FILE.mtx[.gz] [jacobi]\n");
    return 2;
  }
  const char *path = argv[1];
  int jacobi = argc == 3;
  int status = 2;
  sps_context *ctx = NULL;
  sps_matrix *A = NULL;
  sps_vector *ones = NULL, *b = NULL, *x = NULL;
  sps_spmv_plan *plan = NULL;
  sps_solver *gmres = NULL;
  int64_t nrows, ncols, nnz;

  CHECK(sps_context_create(&ctx, SPS_DEVICE_AUTO, 0));
  CHECK(sps_matrix_read_mm(ctx, &A, path, 0));
  CHECK(sps_matrix_get_size(A, &nrows, &ncols, &nnz));
  if (nrows != ncols) {
    fprintf(stderr, "mm_gmres: %s is %lld x %lld, not square\n", path, (long long)nrows,
            (long long)ncols);
    goto cleanup;
  }

  /* b <- A*ones, with an SpMV plan: create, setup (allocation), apply. */
  CHECK(sps_vector_create(ctx, &ones, ncols));
  CHECK(sps_vector_fill(ones, 1.0));
  CHECK(sps_vector_create(ctx, &b, nrows));
  CHECK(sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_AUTO));
  CHECK(sps_spmv_plan_setup(plan));
  CHECK(sps_spmv_apply(plan, 1.0, ones, 0.0, b));

  CHECK(sps_solver_create(ctx, &gmres, SPS_SOLVER_GMRES));
  CHECK(sps_solver_set_restart(gmres, 30));
  CHECK(sps_solver_set_tolerances(gmres, 1e-8, 0.0));
  CHECK(sps_solver_set_max_iterations(gmres, 20000));
  CHECK(sps_solver_set_precond(gmres, jacobi ? SPS_PRECOND_JACOBI : SPS_PRECOND_NONE));
  CHECK(sps_vector_create(ctx, &x, ncols)); /* x0 = 0 */
  CHECK(sps_solver_setup(gmres, A));
  CHECK(sps_solver_solve(gmres, b, x));

  sps_reason reason;
  int iterations;
  double relres;
  CHECK(sps_solver_get_reason(gmres, &reason));
  CHECK(sps_solver_get_iterations(gmres, &iterations));
  CHECK(sps_solver_get_residual(gmres, NULL, &relres));
  printf("mm_gmres: %s: %lld x %lld, %lld nonzeros\n", path, (long long)nrows, (long long)ncols,
         (long long)nnz);
  printf("mm_gmres: GMRES(30)%s: %s (%s) after %d iterations\n", jacobi ? " + Jacobi" : "",
         sps_reason_string(reason), sps_reason_name(reason), iterations);
  printf("mm_gmres: true relative residual ||b - Ax||/||b|| = %.3e\n", relres);
  status = reason > 0 ? 0 : 1;

cleanup:
  sps_solver_destroy(&gmres);
  sps_spmv_plan_destroy(&plan);
  sps_vector_destroy(&x);
  sps_vector_destroy(&b);
  sps_vector_destroy(&ones);
  sps_matrix_destroy(&A);
  sps_context_destroy(&ctx);
  return status;
}
