/* memory.c: host allocation with overflow-checked sizes and a named failure message, the tests'
 * allocation-failure hook, and the wall clock. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

/*
 * The allocation-failure hook: every allocation below takes a number from alloc_count; the
 * one numbered fail_at (when not 0) fails as if the C library had no memory. live counts
 * the blocks handed out and not yet freed. Atomics, because OpenMP threads may allocate.
 */
static atomic_long fail_at;
static atomic_long alloc_count;
static atomic_int fired;
static atomic_long live;

void sps_test_alloc_fail_at(long k)
{
  atomic_store(&alloc_count, 0);
  atomic_store(&fired, 0);
  atomic_store(&fail_at, k > 0 ? k : 0);
}

long sps_test_alloc_count(void)
{
  return atomic_load(&alloc_count);
}

int sps_test_alloc_fired(void)
{
  return atomic_load(&fired);
}

long sps_test_alloc_live(void)
{
  return atomic_load(&live);
}

/* 1 when this allocation is the one the hook makes fail. */
static int hook_fails(void)
{
  const long k = atomic_fetch_add(&alloc_count, 1) + 1;
  const long f = atomic_load(&fail_at);
  if (f == 0 || k != f) return 0;
  atomic_store(&fired, 1);
  return 1;
}

/* The count of live blocks follows every block that comes back from the C library. */
static void *counted(void *p)
{
  if (p) atomic_fetch_add(&live, 1);
  return p;
}

sps_status sps_host_alloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  *p = NULL;
  if (size != 0 && count > SIZE_MAX / size)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %zu elements of %zu bytes overflow size_t", what, count, size);
  size_t bytes = count * size;
  *p = hook_fails() ? NULL : counted(malloc(bytes ? bytes : 1));
  if (!*p)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what, bytes);
  return SPS_SUCCESS;
}

sps_status sps_host_calloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  *p = NULL;
  if (size != 0 && count > SIZE_MAX / size)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %zu elements of %zu bytes overflow size_t", what, count, size);
  *p = hook_fails() ? NULL : counted(calloc(count ? count : 1, size ? size : 1));
  if (!*p)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what,
             count * size);
  return SPS_SUCCESS;
}

sps_status sps_host_alloc_aligned(sps_context *ctx, void **p, size_t align, size_t bytes,
                                  const char *what)
{
  *p = hook_fails() ? NULL : counted(aligned_alloc(align, bytes));
  if (!*p)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what, bytes);
  return SPS_SUCCESS;
}

sps_status sps_host_realloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  if (size != 0 && count > SIZE_MAX / size)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %zu elements of %zu bytes overflow size_t", what, count, size);
  const size_t bytes = count * size;
  void *q = hook_fails() ? NULL : realloc(*p, bytes ? bytes : 1);
  if (!q)
    SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot allocate %zu bytes of host memory", what, bytes);
  /* realloc of NULL is a new block; otherwise the old block became this one. */
  if (!*p) atomic_fetch_add(&live, 1);
  *p = q;
  return SPS_SUCCESS;
}

void sps_host_free(void *p)
{
  if (!p) return;
  atomic_fetch_sub(&live, 1);
  free(p);
}

double sps_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
