/* mm_read.c: libFuzzer target: the Matrix Market reader on arbitrary bytes from memory (sps_matrix_read_mm_buffer, sps_vector_read_mm_buffer), checking what it returns. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "spsolve.h"

static sps_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* Both flag settings, chosen by the input's length so the bytes stay a plain file. */
  const unsigned flags = size % 2 ? SPS_MM_ALLOW_NONFINITE : 0;
  sps_matrix *A = NULL;
  sps_status st = sps_matrix_read_mm_buffer(ctx, &A, data, size, "input", flags);
  fuzz_check_matrix(ctx, st, A, "input", flags);
  sps_matrix_destroy(&A);

  sps_vector *v = NULL;
  st = sps_vector_read_mm_buffer(ctx, &v, data, size, "input", flags);
  fuzz_check_vector(ctx, st, v, "input", flags);
  sps_vector_destroy(&v);
  return 0;
}
