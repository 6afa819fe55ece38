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
  int32_t *task_start; /* ntasks + 1: into order (CUDA, synchronisation-free) */
  int group;           /* lanes a row in the one-block CUDA solve (choose_group) */
  void *ctrl;          /* struct sps_cuda_sync_ctrl (CUDA) */
  /* The one-block CUDA solve (small n): steps and the lane-interleaved copy of the entries. */
  int64_t nsteps, ell_total;
  void *steps;      /* nsteps struct sps_cuda_tri_step */
  int32_t *ell_col; /* ell_total: columns, n for padding */
  int64_t *ell_src; /* ell_total: position in the bound values, -1 for padding */
  double *ell_val;  /* ell_total: the values, gathered by sps_trisolve_refresh */
  int64_t *slot_src; /* n: the rows in level order (as int64), to gather dinv */
  double *slot_dinv; /* n: dinv in level order, gathered by sps_trisolve_refresh */
};

#ifdef SPS_HAVE_CUDA
/* Length of row i's triangle. */
static int64_t tri_len(const sps_trisolve *t, const int64_t *h_rowptr, const int64_t *h_diag,
                       int64_t i)
{
  return t->upper ? h_rowptr[i + 1] - h_diag[i] - 1 : h_diag[i] - h_rowptr[i];
}

/*
 * Lanes a row G for the one-block solve, from a cost model of its steps: a step costs the
 * entries its longest row gives one lane (ceil(len / G)), log2 G shuffle rounds and the
 * barrier (counted as 2), and a level holds 1024 / G rows a step. Few long rows call for
 * many lanes, many short rows for few.
 */
static int choose_group(const sps_trisolve *t, const int64_t *h_rowptr, const int64_t *h_diag,
                        const int32_t *order, const int32_t *lend)
{
  int best = 1;
  double best_cost = -1.0;
  for (int lg = 0, G = 1; G <= 32; lg++, G *= 2) {
    const int groups = 1024 / G;
    double cost = 0.0;
    for (int32_t l = 0; l < t->levels; l++)
      for (int32_t at = l > 0 ? lend[l - 1] : 0; at < lend[l]; at += groups) {
        int64_t width = 0;
        for (int32_t g = 0; g < groups && at + g < lend[l]; g++) {
          const int64_t w = (tri_len(t, h_rowptr, h_diag, order[at + g]) + G - 1) / G;
          if (w > width) width = w;
        }
        cost += (double)width + lg + 2.0;
      }
    if (best_cost < 0.0 || cost < best_cost) {
      best_cost = cost;
      best = G;
    }
  }
  return best;
}

/*
 * The steps of the one-block solve: each level cut into runs of at most 1024/G rows (G lanes
 * a row); a step's entries are stored lane-interleaved, entry r of thread u (lane u % G of
 * the row u / G) at base + r * rows * G + u, r < width = the longest row of the step in
 * units of G; a thread's entries are its row's k = begin + lane + r G. Padding points at the
 * zero x[n].
 */
static sps_status build_steps(sps_trisolve *t, const int64_t *h_rowptr, const int64_t *h_diag,
                              const int32_t *h_colind, const int32_t *order, const int32_t *lend)
{
  sps_context *ctx = t->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = t->n;
  /* x alone too large for shared memory: no one-block solve, and no cost model to run */
  if (!sps_cuda_trisolve_block_fits(n, 0)) return SPS_SUCCESS;
  t->group = choose_group(t, h_rowptr, h_diag, order, lend);
  const int G = t->group, groups = 1024 / G;
  sps_status st = SPS_SUCCESS;
  sps_cuda_tri_step *steps = NULL;
  int32_t *col = NULL;
  int64_t *src = NULL;
  int64_t *slot = NULL;
  /* First pass: the steps; the one-block solve only when x and they fit in shared memory. */
  int64_t ns = 0, total = 0;
  for (int32_t l = 0; l < t->levels; l++)
    for (int32_t at = l > 0 ? lend[l - 1] : 0; at < lend[l]; at += groups) ns++;
  if (!sps_cuda_trisolve_block_fits(n, ns)) return SPS_SUCCESS;
  SPS_TRY(sps_host_alloc(ctx, (void **)&steps, ns > 0 ? (size_t)ns : 1, sizeof *steps,
                         "triangular solve steps"));
  ns = 0;
  for (int32_t l = 0; l < t->levels; l++)
    for (int32_t at = l > 0 ? lend[l - 1] : 0; at < lend[l]; at += groups) {
      const int32_t rows = lend[l] - at < groups ? lend[l] - at : groups;
      int64_t width = 0;
      for (int32_t g = 0; g < rows; g++) {
        const int64_t w = (tri_len(t, h_rowptr, h_diag, order[at + g]) + G - 1) / G;
        if (w > width) width = w;
      }
      sps_cuda_tri_step *p = &steps[ns++];
      p->base = total;
      p->first = at;
      p->rows = rows;
      p->width = (int32_t)width;
      p->sync = at + rows == lend[l];
      total += width * rows * G;
    }
  SPS_TRY(sps_host_alloc(ctx, (void **)&col, total > 0 ? (size_t)total : 1, sizeof(int32_t),
                         "triangular solve columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&src, total > 0 ? (size_t)total : 1, sizeof(int64_t),
                         "triangular solve entry map"));
  for (int64_t s = 0; s < ns; s++) {
    const sps_cuda_tri_step *p = &steps[s];
    const int64_t active = (int64_t)p->rows * G;
    for (int64_t u = 0; u < active; u++) {
      const int64_t i = order[p->first + u / G];
      const int64_t kb = t->upper ? h_diag[i] + 1 : h_rowptr[i];
      const int64_t ke = t->upper ? h_rowptr[i + 1] : h_diag[i];
      for (int64_t r = 0; r < p->width; r++) {
        const int64_t k = kb + u % G + r * G, at = p->base + r * active + u;
        col[at] = k < ke ? h_colind[k] : (int32_t)n;
        src[at] = k < ke ? k : -1;
      }
    }
  }
  t->nsteps = ns;
  t->ell_total = total;
  SPS_TRY(be->malloc(ctx, &t->steps, (ns > 0 ? (size_t)ns : 1) * sizeof *steps,
                     "triangular solve steps"));
  SPS_TRY(be->upload(ctx, t->steps, steps, (size_t)ns * sizeof *steps));
  const size_t tt = total > 0 ? (size_t)total : 1;
  SPS_TRY(be->malloc(ctx, (void **)&t->ell_col, tt * sizeof(int32_t), "triangular solve columns"));
  SPS_TRY(be->upload(ctx, t->ell_col, col, (size_t)total * sizeof(int32_t)));
  SPS_TRY(be->malloc(ctx, (void **)&t->ell_src, tt * sizeof(int64_t), "triangular solve entry map"));
  SPS_TRY(be->upload(ctx, t->ell_src, src, (size_t)total * sizeof(int64_t)));
  SPS_TRY(be->malloc(ctx, (void **)&t->ell_val, tt * sizeof(double), "triangular solve values"));
  const size_t nn = n > 0 ? (size_t)n : 1;
  SPS_TRY(sps_host_alloc(ctx, (void **)&slot, nn, sizeof(int64_t), "triangular solve slots"));
  for (int64_t k = 0; k < n; k++) slot[k] = order[k];
  SPS_TRY(be->malloc(ctx, (void **)&t->slot_src, nn * sizeof(int64_t), "triangular solve slots"));
  SPS_TRY(be->upload(ctx, t->slot_src, slot, (size_t)n * sizeof(int64_t)));
  SPS_TRY(be->malloc(ctx, (void **)&t->slot_dinv, nn * sizeof(double), "triangular solve pivots"));
cleanup:
  sps_host_free(slot);
  sps_host_free(steps);
  sps_host_free(col);
  sps_host_free(src);
  return st;
}
#endif

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
  /* count[l] is now the end of level l in order (so count[l - 1] its start). */
  /* Tasks: at most n + levels of them. */
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
    SPS_TRY(build_steps(t, h_rowptr, h_diag, h_colind, order, count));
    if (!t->steps) {
      SPS_TRY(be->malloc(ctx, (void **)&t->task_start, ((size_t)nt + 1) * sizeof(int32_t),
                         "triangular solve tasks"));
      SPS_TRY(be->upload(ctx, t->task_start, tasks, ((size_t)nt + 1) * sizeof(int32_t)));
    }
    SPS_TRY(be->malloc(ctx, &t->ctrl, sizeof(sps_cuda_sync_ctrl), "triangular solve control"));
    if (cudaMemsetAsync(t->ctrl, 0, sizeof(sps_cuda_sync_ctrl), sps_cuda(ctx)->stream) != cudaSuccess)
      SPS_TRY_FAIL(ctx, SPS_ERR_CUDA, "triangular solve: cannot clear the control words");
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

sps_status sps_trisolve_refresh(sps_trisolve *t)
{
#ifdef SPS_HAVE_CUDA
  if (t->steps) {
    cudaStream_t stream = sps_cuda(t->ctx)->stream;
    SPS_CUDA_LAUNCH(t->ctx, sps_cuda_trisolve_gather(stream, t->ell_total, t->ell_src, t->values,
                                                     t->ell_val));
    if (t->dinv)
      SPS_CUDA_LAUNCH(t->ctx, sps_cuda_trisolve_gather(stream, t->n, t->slot_src, t->dinv,
                                                       t->slot_dinv));
  }
#else
  (void)t;
#endif
  return SPS_SUCCESS;
}

sps_status sps_trisolve_apply(sps_trisolve *t, const double *b, const int32_t *in_perm,
                              const double *in_scale, double *x, double *out,
                              const int32_t *out_perm, const double *out_scale)
{
  if (t->n == 0) return SPS_SUCCESS;
#ifdef SPS_HAVE_CUDA
  if (t->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(t->ctx, sps_cuda_trisolve(sps_cuda(t->ctx)->stream, t->n, t->upper, t->nsteps,
                                              (const sps_cuda_tri_step *)t->steps, t->ell_col,
                                              t->ell_val, t->slot_dinv, t->ntasks, t->task_start,
                                              t->order, t->levels, t->group, t->rowptr, t->diag,
                                              t->colind, t->values,
                                              t->dinv, b, in_perm, in_scale, x, out, out_perm,
                                              out_scale, (sps_cuda_sync_ctrl *)t->ctrl));
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
  if (t->steps) be->free(t->ctx, t->steps);
  if (t->ell_col) be->free(t->ctx, t->ell_col);
  if (t->ell_src) be->free(t->ctx, t->ell_src);
  if (t->ell_val) be->free(t->ctx, t->ell_val);
  if (t->slot_src) be->free(t->ctx, t->slot_src);
  if (t->slot_dinv) be->free(t->ctx, t->slot_dinv);
  if (t->ctrl) be->free(t->ctx, t->ctrl);
  sps_host_free(t);
  *tp = NULL;
}
