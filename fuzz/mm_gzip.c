/* mm_gzip.c: libFuzzer target: the Matrix Market reader on compressed input (gzip first), from memory and from a file, which must agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "spsolve.h"

static sps_context *ctx;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) abort();
  snprintf(path, sizeof path, "/tmp/spsolve-fuzz-%ld.mtx.gz", (long)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* The corpus is gzip (and xz and bzip2) files; a mutation may make it anything else. */
  sps_matrix *A = NULL, *B = NULL;
  sps_status st = sps_matrix_read_mm_buffer(ctx, &A, data, size, path, 0);
  fuzz_check_matrix(ctx, st, A, path, 0);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", sps_context_last_error(ctx));

  /* The same bytes as a file: the reading loop of a file (fread, refills) must agree. */
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  sps_status st2 = sps_matrix_read_mm(ctx, &B, path, 0);
  fuzz_check_matrix(ctx, st2, B, path, 0);
  if (st != st2 || (st != SPS_SUCCESS && strcmp(msg, sps_context_last_error(ctx)) != 0)) {
    fprintf(stderr, "buffer: %s: %s\nfile:   %s: %s\n", sps_status_name(st), msg,
            sps_status_name(st2), sps_context_last_error(ctx));
    abort();
  }
  if (st == SPS_SUCCESS) fuzz_check_same(A, B);
  sps_matrix_destroy(&A);
  sps_matrix_destroy(&B);
  remove(path);
  return 0;
}
