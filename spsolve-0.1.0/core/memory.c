/* memory.c: host allocation with overflow-checked sizes and a named failure message, and the wall
 * clock. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

sps_status sps_host_alloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  *p = NULL;
  if (size != 0 && count > SIZE_MAX / size)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %zu elements of %zu bytes overflow size_t", what, count, size);
  size_t bytes = count * size;
  *p = malloc(bytes ? bytes : 1);
  if (!*p)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what, bytes);
  return SPS_SUCCESS;
}

sps_status sps_host_calloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  *p = NULL;
  if (size != 0 && count > SIZE_MAX / size)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %zu elements of %zu bytes overflow size_t", what, count, size);
  *p = calloc(count ? count : 1, size ? size : 1);
  if (!*p)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what,
             count * size);
  return SPS_SUCCESS;
}

void sps_host_free(void *p)
{
  free(p);
}

double sps_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
