/* mm_read_bench.c: times sps_matrix_read_mm on each file given (CPU context) and prints a TSV row per file: file, rows, nnz, seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spsolve.h"

/* Wall clock in seconds (monotonic). */
static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.mtx[.gz]...\n", argv[0]);
    return 2;
  }
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) {
    fprintf(stderr, "%s: %s\n", argv[0], sps_context_create_error());
    return 1;
  }
  int rc = 0;
  printf("file\trows\tnnz\tseconds\n");
  for (int a = 1; a < argc; a++) {
    sps_matrix *A = NULL;
    double t0 = now();
    sps_status st = sps_matrix_read_mm(ctx, &A, argv[a], 0);
    double t = now() - t0;
    if (st != SPS_SUCCESS) {
      fprintf(stderr, "%s: %s\n", sps_status_name(st), sps_context_last_error(ctx));
      rc = 1;
      continue;
    }
    int64_t m, nnz;
    sps_matrix_get_size(A, &m, NULL, &nnz);
    printf("%s\t%lld\t%lld\t%.4f\n", argv[a], (long long)m, (long long)nnz, t);
    sps_matrix_destroy(&A);
  }
  sps_context_destroy(&ctx);
  return rc;
}
