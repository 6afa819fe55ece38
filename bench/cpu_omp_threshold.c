/* cpu_omp_threshold.c: cpu-omp-threshold, the time of the CPU backend's vector operations and SpMV against the vector length, to place the lengths below which they run on one thread.
 *
 * Times, for n = 512 .. 524288 (doubling), the median of many calls of: dot (cpu_dot, a
 * compensated sum), axpby, cg_update (x, r and r.r), gemv_t and gemv_n with 16 columns (GMRES's
 * V^T w and V h), and the csr-scalar SpMV of the 5-point Laplacian on a grid of about n points,
 * through the backend's ops table and an SpMV plan. Run it twice, with OMP_NUM_THREADS=1 and
 * =2, on a library built with the thresholds set to zero, so that every call of the 2-thread
 * run opens its parallel region:
 *     ./configure --without-cuda CPPFLAGS='-DSPS_OMP_MIN=0 -DSPS_SLICED_OMP_MIN=0'
 * The length where the 2-thread time falls below the 1-thread time is the threshold to set
 * (SPS_OMP_MIN in core/omp_csum.h, SPS_SLICED_OMP_MIN in spmv/ref/csr_sliced.c).
 * Last, the copy bandwidth of the thread count: y <- x over 64 MiB vectors by an OpenMP
 * loop (static split; bytes read + written per second, median of 11 copies after one), the
 * bound a memory-bound iteration meets with that many threads (solve-bench's own figure is one
 * thread's memcpy).
 * Output: TSV op, n, threads, us (median), calls; and a line "# copy_GBs ...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/internal.h"
#include "bench_util.h"

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median time of one call, over batches of calls lasting about 2 ms each. */
typedef void (*op_fn)(void *arg);
static double time_op(op_fn fn, void *arg, int *calls)
{
  double t0 = sps_wtime();
  int reps = 0;
  while (sps_wtime() - t0 < 2e-3)
    fn(arg), reps++;
  double t[21];
  for (int r = 0; r < 21; r++) {
    t0 = sps_wtime();
    for (int q = 0; q < reps; q++)
      fn(arg);
    t[r] = (sps_wtime() - t0) / reps;
  }
  qsort(t, 21, sizeof *t, cmp_double);
  *calls = reps;
  return t[10];
}

typedef struct env {
  sps_context *ctx;
  int64_t n;
  double *x, *y, *z, *w, *V, h[16];
  sps_cg_state S;
  sps_spmv_plan *plan;
  sps_vector *xv, *yv;
} env;

static void op_dot(void *a)
{
  env *e = a;
  double r;
  e->ctx->be->dot(e->ctx, e->n, e->x, e->y, &r);
  e->h[0] += r;
}

static void op_axpby(void *a)
{
  env *e = a;
  e->ctx->be->axpby(e->ctx, e->n, 1.0, e->x, 0.5, e->y);
}

static void op_cg_update(void *a)
{
  env *e = a;
  e->S.status = SPS_CG_RUNNING;
  e->S.it = 0;
  e->S.alpha = 1e-9;
  e->ctx->be->cg_update(e->ctx, e->n, e->x, e->y, NULL, e->z, e->w, NULL, &e->S);
}

static void op_gemv_t(void *a)
{
  env *e = a;
  e->ctx->be->gemv_t(e->ctx, e->n, 16, e->V, e->n, e->x, e->h);
}

static void op_gemv_n(void *a)
{
  env *e = a;
  e->ctx->be->gemv_n(e->ctx, e->n, 16, -1e-9, e->V, e->n, e->h, e->y);
}

static void op_spmv(void *a)
{
  env *e = a;
  sps_spmv_apply(e->plan, 1.0, e->xv, 0.0, e->yv);
}

int main(void)
{
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) {
    fprintf(stderr, "cpu-omp-threshold: %s\n", sps_context_create_error());
    return 1;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  char dev[128], date[64];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  bench_date(date, sizeof date);
  printf("# cpu-omp-threshold (spsolve %s), %s, %s\nop\tn\tthreads\tus\tcalls\n", sps_version(),
         dev, date);
  const struct {
    const char *name;
    op_fn fn;
  } ops[] = {{"dot", op_dot},         {"axpby", op_axpby},     {"cg_update", op_cg_update},
             {"gemv_t16", op_gemv_t}, {"gemv_n16", op_gemv_n}, {"spmv_lap2d", op_spmv}};
  for (int64_t n = 512; n <= 524288; n *= 2) {
    env e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.n = n;
    e.x = malloc((size_t)n * 8), e.y = malloc((size_t)n * 8), e.z = malloc((size_t)n * 8);
    e.w = malloc((size_t)n * 8), e.V = malloc((size_t)n * 16 * 8);
    if (!e.x || !e.y || !e.z || !e.w || !e.V) return 1;
    for (int64_t i = 0; i < n; i++)
      e.x[i] = 1.0 / (double)(i + 1), e.y[i] = e.z[i] = e.w[i] = 1.0;
    for (int64_t i = 0; i < 16 * n; i++)
      e.V[i] = 1.0 / (double)(i + 2);
    for (int j = 0; j < 16; j++)
      e.h[j] = 1e-3 * j;
    /* the 5-point Laplacian on a g x g grid, g*g close to n */
    int64_t g = 1;
    while ((g + 1) * (g + 1) <= n)
      g++;
    const int64_t m = g * g;
    int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)(5 * m) * sizeof *ci);
    double *va = malloc((size_t)(5 * m) * sizeof *va);
    if (!rp || !ci || !va) return 1;
    int64_t k = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < m; i++) {
      const int64_t r = i / g, c = i % g;
      if (r > 0) ci[k] = (int32_t)(i - g), va[k++] = -1.0;
      if (c > 0) ci[k] = (int32_t)(i - 1), va[k++] = -1.0;
      ci[k] = (int32_t)i, va[k++] = 4.0;
      if (c < g - 1) ci[k] = (int32_t)(i + 1), va[k++] = -1.0;
      if (r < g - 1) ci[k] = (int32_t)(i + g), va[k++] = -1.0;
      rp[i + 1] = k;
    }
    sps_matrix *A = NULL;
    if (sps_matrix_create_csr(ctx, &A, m, m, rp, ci, va) ||
        sps_spmv_plan_create(ctx, &e.plan, A, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(e.plan) ||
        sps_vector_wrap(ctx, &e.xv, m, e.x) || sps_vector_wrap(ctx, &e.yv, m, e.y)) {
      fprintf(stderr, "cpu-omp-threshold: %s\n", sps_context_last_error(ctx));
      return 1;
    }
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      int calls;
      const double t = time_op(ops[o].fn, &e, &calls);
      printf("%s\t%lld\t%d\t%.3f\t%d\n", ops[o].name, (long long)(o == 5 ? m : n), threads, 1e6 * t,
             calls);
      fflush(stdout);
    }
    sps_vector_destroy(&e.xv);
    sps_vector_destroy(&e.yv);
    sps_spmv_plan_destroy(&e.plan);
    sps_matrix_destroy(&A);
    free(rp), free(ci), free(va);
    free(e.x), free(e.y), free(e.z), free(e.w), free(e.V);
  }
  {
    const int64_t n = (int64_t)8 << 20; /* 64 MiB of doubles */
    double *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), t[12];
    if (!a || !b) return 1;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      a[i] = 1.0, b[i] = 0.0;
    for (int r = 0; r < 12; r++) {
      const double t0 = sps_wtime();
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; i++)
        b[i] = a[i];
      t[r] = sps_wtime() - t0;
    }
    qsort(t + 1, 11, sizeof *t, cmp_double);
    printf("# copy_GBs %.1f (threads %d, y <- x over 64 MiB, bytes read + "
           "written, median of 11)\n",
           2.0 * (double)n * 8.0 / t[6] * 1e-9, threads);
    free(a), free(b);
  }
  sps_context_destroy(&ctx);
  return 0;
}
