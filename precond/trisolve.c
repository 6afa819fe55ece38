/* trisolve.c: the triangular solve plan: level sets and tasks at setup, the solve dispatched to the CPU reference or the CUDA kernel. */
#include <string.h>

#include "trisolve.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

struct sps_trisolve {
  sps_context *ctx;
  int64_t n;
  int upper;
  int levels;
  int64_t ntasks;
  /* Bound arrays (context memory, borrowed). */
  const int64_t *rowptr, *diag;
  const int32_t *colind;
  const double *values, *dinv;
  /* Context memory, owned. */
  int32_t *order;      /* n: rows by level */
  int32_t *task_start; /* ntasks + 1: into order (CUDA only) */
  unsigned *flags;     /* n (CUDA only) */
  void *ctrl;          /* struct sps_cuda_sync_ctrl (CUDA only) */
};

/*
 * Levels: level(i) = 1 + max level(j) over the entries j of row i's triangle (0 without
 * any), computed in dependency order (ascending rows for lower, descending for upper).
 * Then a counting sort of the rows by level (stable: ascending row within a level) and the
 * tasks: within a level, each row longer than SPS_TRISOLVE_LONG alone, the others in runs
 * of up to 32.
 */
sps_status sps_trisolve_create(sps_context *ctx, sps_trisolve **out, int64_t n, int upper,
                               const int64_t *h_rowptr, const int64_t *h_diag,
                               const int32_t *h_colind)
{
  sps_status st = SPS_SUCCESS;
  sps_trisolve *t = NULL;
  int32_t *level = NULL, *order = NULL, *count = NULL, *tasks = NULL;
  *out = NULL;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&t, 1, sizeof *t, "triangular solve plan"));
  t->ctx = ctx;
  t->n = n;
  t->upper = upper != 0;
  SPS_TRY(sps_host_alloc(ctx, (void **)&level, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                         "triangular solve levels"));
  int32_t nlev = 0;
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = upper ? n - 1 - s : s;
    const int64_t b = upper ? h_diag[i] + 1 : h_rowptr[i];
    const int64_t e = upper ? h_rowptr[i + 1] : h_diag[i];
    int32_t lv = 0;
    for (int64_t k = b; k < e; k++) {
      const int32_t l = level[h_colind[k]] + 1;
      if (l > lv) lv = l;
    }
    level[i] = lv;
    if (lv + 1 > nlev) nlev = lv + 1;
  }
  t->levels = nlev;
  SPS_TRY(sps_host_calloc(ctx, (void **)&count, (size_t)nlev + 1, sizeof(int32_t),
                          "triangular solve level counts"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&order, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                         "triangular solve order"));
  for (int64_t i = 0; i < n; i++) count[level[i] + 1]++;
  for (int32_t l = 0; l < nlev; l++) count[l + 1] += count[l];
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = upper ? n - 1 - s : s;
    order[count[level[i]]++] = (int32_t)i;
  }
  /* count[l] is now the end of level l in order. Tasks: at most n + levels of them. */
  SPS_TRY(sps_host_alloc(ctx, (void **)&tasks, (size_t)n + (size_t)nlev + 1, sizeof(int32_t),
                         "triangular solve tasks"));
  int64_t nt = 0, at = 0;
  for (int32_t l = 0; l < nlev; l++) {
    const int64_t end = count[l];
    int64_t run = 0; /* short rows in the task being filled */
    while (at < end) {
      const int64_t i = order[at];
      const int64_t len = upper ? h_rowptr[i + 1] - h_diag[i] - 1 : h_diag[i] - h_rowptr[i];
      if (len > SPS_TRISOLVE_LONG) {
        /* A long row alone, after the run of short rows before it. */
        if (run > 0) {
          tasks[nt++] = (int32_t)(at - run);
          run = 0;
        }
        tasks[nt++] = (int32_t)at;
        at++;
        continue;
      }
      run++;
      at++;
      if (run == 32) {
        tasks[nt++] = (int32_t)(at - run);
        run = 0;
      }
    }
    if (run > 0) tasks[nt++] = (int32_t)(at - run);
  }
  tasks[nt] = (int32_t)n;
  t->ntasks = nt;
  /* A run of one short row is summed by a warp like a long row: the same bits. */
  const sps_backend *be = ctx->be;
  SPS_TRY(be->malloc(ctx, (void **)&t->order, (n > 0 ? (size_t)n : 1) * sizeof(int32_t),
                     "triangular solve order"));
  SPS_TRY(be->upload(ctx, t->order, order, (size_t)n * sizeof(int32_t)));
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    SPS_TRY(be->malloc(ctx, (void **)&t->task_start, ((size_t)nt + 1) * sizeof(int32_t),
                       "triangular solve tasks"));
    SPS_TRY(be->upload(ctx, t->task_start, tasks, ((size_t)nt + 1) * sizeof(int32_t)));
    SPS_TRY(be->malloc(ctx, (void **)&t->flags, (n > 0 ? (size_t)n : 1) * sizeof(unsigned),
                       "triangular solve flags"));
    SPS_TRY(be->malloc(ctx, &t->ctrl, sizeof(sps_cuda_sync_ctrl), "triangular solve control"));
    struct sps_cuda_state *cs = sps_cuda(ctx);
    SPS_CUDA(ctx, cudaMemsetAsync(t->flags, 0, (n > 0 ? (size_t)n : 1) * sizeof(unsigned),
                                  cs->stream));
    SPS_CUDA(ctx, cudaMemsetAsync(t->ctrl, 0, sizeof(sps_cuda_sync_ctrl), cs->stream));
  }
#endif
  *out = t;
  t = NULL;
cleanup:
  sps_trisolve_destroy(&t);
  sps_host_free(level);
  sps_host_free(order);
  sps_host_free(count);
  sps_host_free(tasks);
  return st;
}

void sps_trisolve_bind(sps_trisolve *t, const int64_t *rowptr, const int64_t *diag,
                       const int32_t *colind, const double *values, const double *dinv)
{
  t->rowptr = rowptr;
  t->diag = diag;
  t->colind = colind;
  t->values = values;
  t->dinv = dinv;
}

sps_status sps_trisolve_apply(sps_trisolve *t, const double *b, const int32_t *in_perm,
                              const double *in_scale, double *x, double *out,
                              const int32_t *out_perm, const double *out_scale)
{
  if (t->n == 0) return SPS_SUCCESS;
#ifdef SPS_HAVE_CUDA
  if (t->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(t->ctx, sps_cuda_trisolve(sps_cuda(t->ctx)->stream, t->n, t->upper, t->ntasks,
                                              t->task_start, t->order, t->rowptr, t->diag,
                                              t->colind, t->values, t->dinv, b, in_perm,
                                              in_scale, x, out, out_perm, out_scale, t->flags,
                                              (sps_cuda_sync_ctrl *)t->ctrl));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_trisolve(t->n, t->upper, t->rowptr, t->diag, t->colind, t->values, t->dinv, b, in_perm,
                   in_scale, x, out, out_perm, out_scale);
  return SPS_SUCCESS;
}

int sps_trisolve_levels(const sps_trisolve *t)
{
  return t->levels;
}

const int32_t *sps_trisolve_order(const sps_trisolve *t)
{
  return t->order;
}

void sps_trisolve_destroy(sps_trisolve **tp)
{
  if (!tp || !*tp) return;
  sps_trisolve *t = *tp;
  const sps_backend *be = t->ctx->be;
  if (t->order) be->free(t->ctx, t->order);
  if (t->task_start) be->free(t->ctx, t->task_start);
  if (t->flags) be->free(t->ctx, t->flags);
  if (t->ctrl) be->free(t->ctx, t->ctrl);
  sps_host_free(t);
  *tp = NULL;
}
