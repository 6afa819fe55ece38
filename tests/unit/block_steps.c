/* block_steps.c: the block ops table (core/block_ops.h) against the single-vector ops column by column, to the bit, on the CPU; and with SPS_TEST_DEVICE=cuda (block-steps-cuda.sh) the CUDA block kernels against the same and against the CPU block ops (exit 77 without a GPU).
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each program, size and width is a case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_ops.h"
#include "internal.h"
#include "testlib.h"

/*
 * Why bitwise: a batched solve gives each column the single solve's iterations only if every
 * block step gives each column exactly what the single step gives it (the same rounded terms
 * in a compensated sum, the same elementwise expressions, the same scalar transitions). So each
 * operation here runs twice on the same inputs, once on the block and once column by column
 * through the backend's single-vector ops, and the results must agree to the last bit; on a
 * GPU the CUDA block kernels must moreover agree with their CPU reference, the CPU block ops.
 * The blocks have odd n, widths 1 to 64 (odd ones too, with ld > w), masks with holes, columns
 * that are idle or stopped (which every step must leave alone), and columns of extreme scale
 * (the norm's second, scaled pass).
 */

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

static void must(sps_context *ctx, sps_status st, const char *what)
{
  if (st != SPS_SUCCESS) sps_bail("%s: %s", what, sps_context_last_error(ctx));
}

static void *dev_alloc(sps_context *ctx, size_t bytes)
{
  void *p = NULL;
  must(ctx, ctx->be->malloc(ctx, &p, bytes ? bytes : 8, "test"), "malloc");
  return p;
}

static void *dev_copy(sps_context *ctx, const void *host, size_t bytes)
{
  void *p = dev_alloc(ctx, bytes);
  must(ctx, ctx->be->upload(ctx, p, host, bytes), "upload");
  return p;
}

static void get(sps_context *ctx, void *host, const void *dev, size_t bytes)
{
  must(ctx, ctx->be->download(ctx, host, dev, bytes), "download");
}

static int same(const void *a, const void *b, size_t bytes)
{
  return memcmp(a, b, bytes) == 0;
}

/* A random n x ld row-major block (padding columns random too: they must not matter). */
static double *random_block(int64_t n, int64_t ld, uint64_t seed, double scale)
{
  sps_rng rng = {seed};
  double *b = xmalloc((size_t)(n * ld) * sizeof(double));
  for (int64_t i = 0; i < n * ld; i++) b[i] = scale * sps_rng_uniform(&rng);
  return b;
}

/* Column c of a row-major block as a contiguous vector, and back. */
static void col_get(const double *blk, int64_t n, int64_t ld, int c, double *v)
{
  for (int64_t i = 0; i < n; i++) v[i] = blk[i * ld + c];
}

static void col_put(double *blk, int64_t n, int64_t ld, int c, const double *v)
{
  for (int64_t i = 0; i < n; i++) blk[i * ld + c] = v[i];
}

/* The outputs of one run of a test program, to compare between runs. */
typedef struct out {
  size_t len, cap;
  double *v;
} out;

static void out_add(out *o, const void *data, size_t bytes)
{
  const size_t k = (bytes + sizeof(double) - 1) / sizeof(double);
  if (o->len + k > o->cap) {
    o->cap = 2 * (o->len + k);
    o->v = realloc(o->v, o->cap * sizeof(double));
    if (!o->v) sps_bail("out of host memory");
  }
  memset(o->v + o->len, 0, k * sizeof(double));
  memcpy(o->v + o->len, data, bytes);
  o->len += k;
}

static int out_same(const out *a, const out *b)
{
  return a->len == b->len && same(a->v, b->v, a->len * sizeof(double));
}

/* The scalar fields of the states (not their pointers). */
static void add_cg(out *o, const sps_cg_state *S)
{
  const double f[] = {S->rz, S->pq, S->alpha, S->beta, S->rr, (double)S->it, (double)S->status,
                      (double)S->above};
  out_add(o, f, sizeof f);
}

static void add_bicgstab(out *o, const sps_bicgstab_state *S)
{
  const double f[] = {S->rho,  S->sigma, S->alpha, S->omega,        S->beta,          S->ts,
                      S->tt,   S->ss,    S->rr,    (double)S->it,   (double)S->status,
                      (double)S->half, (double)S->above};
  out_add(o, f, sizeof f);
}

static void add_gmres(out *o, const sps_gmres_state *S)
{
  const double f[] = {S->beta, S->wnorm, S->hnext, S->resid, (double)S->j, (double)S->it,
                      (double)S->status};
  out_add(o, f, sizeof f);
}

/* The shape of a test: n rows, w columns, leading dimension ld. */
typedef struct shape {
  int64_t n;
  int w;
  int64_t ld;
} shape;

/*
 * The masked vector ops on the block (`block` = 1) or column by column through the single
 * ops (`block` = 0): copy_cols, fill, scale, axpby, pointwise, dot, nrm2. Every output of the
 * columns of the mask goes to o, in column order.
 */
static void run_vector_ops(sps_context *ctx, shape sh, int block, out *o)
{
  const sps_backend *be = ctx->be;
  const sps_block_backend *bk = be->block;
  const int64_t n = sh.n, ld = sh.ld;
  const int w = sh.w;
  const uint64_t all = sps_block_all(w);
  const uint64_t mask = w > 2 ? all & ~((uint64_t)1 << 1) : all; /* a hole at column 1 */
  double *hx = random_block(n, ld, 101 + (uint64_t)w, 1.0), *hy = random_block(n, ld, 202, 1.0);
  double *hd = random_block(n, 1, 303, 2.0);
  /* extreme columns: the norm's scaled pass */
  for (int64_t i = 0; i < n; i++) {
    if (w > 2) hx[i * ld + 2] *= 1e-300;
    if (w > 3) hx[i * ld + 3] *= 1e300;
  }
  double a[SPS_BLOCK_MAX_COLS], b[SPS_BLOCK_MAX_COLS], f[SPS_BLOCK_MAX_COLS];
  double res[SPS_BLOCK_MAX_COLS];
  for (int c = 0; c < w; c++) {
    a[c] = 0.5 + 0.25 * c;
    b[c] = c % 3 == 0 ? 0.0 : -1.5 + 0.125 * c;
    f[c] = ldexp(1.0, c % 5 - 2);
  }
  double *X = dev_copy(ctx, hx, (size_t)(n * ld) * sizeof(double));
  double *Y = dev_copy(ctx, hy, (size_t)(n * ld) * sizeof(double));
  double *D = dev_copy(ctx, hd, (size_t)n * sizeof(double));
  double *v = dev_alloc(ctx, (size_t)n * sizeof(double)), *u = dev_alloc(ctx, (size_t)n * sizeof(double));
  double *ws = NULL;
  const size_t nws = bk->workspace(ctx, n, w, 0);
  ws = dev_alloc(ctx, nws * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)nws, 0.0, ws), "fill ws");
  double *hv = xmalloc((size_t)n * sizeof(double)), *hu = xmalloc((size_t)n * sizeof(double));
  if (block) {
    must(ctx, bk->dot(ctx, n, w, ld, mask, X, Y, res, ws), "block dot");
    for (int c = 0; c < w; c++)
      if ((mask >> c) & 1u) out_add(o, &res[c], sizeof(double));
    must(ctx, bk->nrm2(ctx, n, w, ld, mask, X, res, ws), "block nrm2");
    for (int c = 0; c < w; c++)
      if ((mask >> c) & 1u) out_add(o, &res[c], sizeof(double));
    must(ctx, bk->axpby(ctx, n, w, ld, mask, a, X, b, Y), "block axpby");
    must(ctx, bk->scale(ctx, n, w, ld, mask, f, Y), "block scale");
    must(ctx, bk->pointwise(ctx, n, w, ld, mask, D, Y, X), "block pointwise");
  } else {
    const int zero = 0;
    for (int c = 0; c < w; c++) {
      if (!((mask >> c) & 1u)) continue;
      must(ctx, bk->copy_cols(ctx, n, 1, X, ld, &c, v, 1, &zero), "copy");
      must(ctx, bk->copy_cols(ctx, n, 1, Y, ld, &c, u, 1, &zero), "copy");
      must(ctx, be->dot(ctx, n, v, u, &res[c]), "dot");
      out_add(o, &res[c], sizeof(double));
    }
    for (int c = 0; c < w; c++) {
      if (!((mask >> c) & 1u)) continue;
      must(ctx, bk->copy_cols(ctx, n, 1, X, ld, &c, v, 1, &zero), "copy");
      must(ctx, be->nrm2(ctx, n, v, &res[c]), "nrm2");
      out_add(o, &res[c], sizeof(double));
    }
    for (int c = 0; c < w; c++) {
      if (!((mask >> c) & 1u)) continue;
      must(ctx, bk->copy_cols(ctx, n, 1, X, ld, &c, v, 1, &zero), "copy");
      must(ctx, bk->copy_cols(ctx, n, 1, Y, ld, &c, u, 1, &zero), "copy");
      must(ctx, be->axpby(ctx, n, a[c], v, b[c], u), "axpby");
      must(ctx, be->scal(ctx, n, f[c], u), "scal");
      must(ctx, bk->copy_cols(ctx, n, 1, u, 1, &zero, Y, ld, &c), "copy");
      must(ctx, be->pointwise_mult(ctx, n, D, u, v), "pointwise");
      must(ctx, bk->copy_cols(ctx, n, 1, v, 1, &zero, X, ld, &c), "copy");
    }
  }
  /* the blocks, whole (columns outside the mask must be untouched either way) */
  get(ctx, hx, X, (size_t)(n * ld) * sizeof(double));
  get(ctx, hy, Y, (size_t)(n * ld) * sizeof(double));
  out_add(o, hx, (size_t)(n * ld) * sizeof(double));
  out_add(o, hy, (size_t)(n * ld) * sizeof(double));
  void *dv[] = {X, Y, D, v, u, ws};
  for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) be->free(ctx, dv[k]);
  free(hx);
  free(hy);
  free(hd);
  free(hv);
  free(hu);
}

/*
 * Three rounds of the CG steps (cg_alpha, cg_update with Jacobi or deferred with cg_rz,
 * cg_direction) on w columns with their own states: column 1 idle, column 2 converging at once
 * (tol2 huge), the others running; Q = D P with D > 0 at the start (then stale, so that some
 * columns may meet an indefinite pq).
 */
static void run_cg(sps_context *ctx, shape sh, int block, int deferred, out *o)
{
  const sps_backend *be = ctx->be;
  const sps_block_backend *bk = be->block;
  const int64_t n = sh.n, ld = sh.ld;
  const int w = sh.w;
  double *hp = random_block(n, ld, 11 + (uint64_t)w, 1.0), *hq = xmalloc((size_t)(n * ld) * sizeof(double));
  double *hd = random_block(n, 1, 12, 0.5);
  for (int64_t i = 0; i < n; i++) hd[i] += 1.0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < ld; c++) hq[i * ld + c] = hd[i] * hp[i * ld + c] * (1.0 + 0.1 * (double)c);
  double *hx = random_block(n, ld, 13, 1.0), *hr = random_block(n, ld, 14, 1.0);
  double *hz = random_block(n, ld, 15, 1.0);
  sps_cg_state S[SPS_BLOCK_MAX_COLS];
  memset(S, 0, sizeof S);
  for (int c = 0; c < w; c++) {
    S[c].rz = 1.0 + 0.01 * c;
    S[c].tol2 = c == 2 ? 1e300 : 1e-30;
    S[c].dtol2 = INFINITY;
    S[c].maxit = 100;
    S[c].deferred = deferred;
    S[c].status = c == 1 ? SPS_BLOCK_IDLE : SPS_CG_RUNNING;
  }
  double *P = dev_copy(ctx, hp, (size_t)(n * ld) * sizeof(double));
  double *Q = dev_copy(ctx, hq, (size_t)(n * ld) * sizeof(double));
  double *X = dev_copy(ctx, hx, (size_t)(n * ld) * sizeof(double));
  double *R = dev_copy(ctx, hr, (size_t)(n * ld) * sizeof(double));
  double *Z = dev_copy(ctx, hz, (size_t)(n * ld) * sizeof(double));
  double *D = dev_copy(ctx, hd, (size_t)n * sizeof(double));
  const size_t nws = bk->workspace(ctx, n, w, 0);
  double *ws = dev_alloc(ctx, nws * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)nws, 0.0, ws), "fill ws");
  const double *dinv = deferred ? NULL : D;
  if (block) {
    sps_cg_state *dS = dev_copy(ctx, S, sizeof S);
    for (int round = 0; round < 3; round++) {
      must(ctx, bk->cg_alpha(ctx, n, w, ld, P, Q, dS, ws), "block cg_alpha");
      must(ctx, bk->cg_update(ctx, n, w, ld, P, Q, dinv, X, R, Z, dS, ws), "block cg_update");
      if (deferred) {
        /* Z <- D R, the solver's apply of a general preconditioner (not on the idle column,
         * which the column-by-column run leaves alone) */
        const uint64_t busy = w > 1 ? sps_block_all(w) & ~(uint64_t)2 : sps_block_all(w);
        must(ctx, bk->pointwise(ctx, n, w, ld, busy, D, R, Z), "pointwise");
        must(ctx, bk->cg_rz(ctx, n, w, ld, R, Z, dS, ws), "block cg_rz");
      }
      must(ctx, bk->cg_direction(ctx, n, w, ld, deferred || dinv ? Z : R, P, dS), "block cg_direction");
    }
    get(ctx, S, dS, sizeof S);
    be->free(ctx, dS);
  } else {
    sps_cg_state *dS = dev_alloc(ctx, sizeof(sps_cg_state));
    double *p = dev_alloc(ctx, (size_t)n * 8), *q = dev_alloc(ctx, (size_t)n * 8);
    double *x = dev_alloc(ctx, (size_t)n * 8), *r = dev_alloc(ctx, (size_t)n * 8);
    double *z = dev_alloc(ctx, (size_t)n * 8);
    const int zero = 0;
    for (int c = 0; c < w; c++) {
      if (S[c].status == SPS_BLOCK_IDLE) continue;
      double *blk[] = {P, Q, X, R, Z}, *vec[] = {p, q, x, r, z};
      for (int k = 0; k < 5; k++) must(ctx, bk->copy_cols(ctx, n, 1, blk[k], ld, &c, vec[k], 1, &zero), "copy");
      must(ctx, be->upload(ctx, dS, &S[c], sizeof S[c]), "upload");
      for (int round = 0; round < 3; round++) {
        must(ctx, be->cg_alpha(ctx, n, p, q, dS), "cg_alpha");
        must(ctx, be->cg_update(ctx, n, p, q, dinv, x, r, z, dS), "cg_update");
        if (deferred) {
          must(ctx, be->pointwise_mult(ctx, n, D, r, z), "pointwise");
          must(ctx, be->cg_rz(ctx, n, r, z, dS), "cg_rz");
        }
        must(ctx, be->cg_direction(ctx, n, deferred || dinv ? z : r, p, dS), "cg_direction");
      }
      get(ctx, &S[c], dS, sizeof S[c]);
      for (int k = 0; k < 5; k++) must(ctx, bk->copy_cols(ctx, n, 1, vec[k], 1, &zero, blk[k], ld, &c), "copy");
    }
    void *dv[] = {dS, p, q, x, r, z};
    for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) be->free(ctx, dv[k]);
  }
  for (int c = 0; c < w; c++) add_cg(o, &S[c]);
  double *arrs[] = {P, X, R, Z};
  for (int k = 0; k < 4; k++) {
    get(ctx, hp, arrs[k], (size_t)(n * ld) * sizeof(double));
    out_add(o, hp, (size_t)(n * ld) * sizeof(double));
  }
  void *dv[] = {P, Q, X, R, Z, D, ws};
  for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) be->free(ctx, dv[k]);
  free(hp);
  free(hq);
  free(hd);
  free(hx);
  free(hr);
  free(hz);
}

/*
 * Three rounds of the BiCGSTAB steps on w columns (column 1 idle, column 2 with a huge tol2:
 * the half step), with V and T fixed random blocks (the steps only need arrays).
 */
static void run_bicgstab(sps_context *ctx, shape sh, int block, out *o)
{
  const sps_backend *be = ctx->be;
  const sps_block_backend *bk = be->block;
  const int64_t n = sh.n, ld = sh.ld;
  const int w = sh.w;
  const size_t bytes = (size_t)(n * ld) * sizeof(double);
  double *h[8];
  for (int k = 0; k < 8; k++) h[k] = random_block(n, ld, 40 + (uint64_t)k + (uint64_t)w, 1.0);
  /* RHAT, V, R, SV, T, PHAT, SHAT, X, then P */
  double *hpp = random_block(n, ld, 60, 1.0);
  sps_bicgstab_state S[SPS_BLOCK_MAX_COLS];
  memset(S, 0, sizeof S);
  for (int c = 0; c < w; c++) {
    S[c].rho = 0.75 + 0.01 * c;
    S[c].tol2 = c == 2 ? 1e300 : 1e-30;
    S[c].dtol2 = INFINITY;
    S[c].maxit = 100;
    S[c].status = c == 1 ? SPS_BLOCK_IDLE : SPS_BICGSTAB_RUNNING;
  }
  double *d[8];
  for (int k = 0; k < 8; k++) d[k] = dev_copy(ctx, h[k], bytes);
  double *P = dev_copy(ctx, hpp, bytes);
  const size_t nws = bk->workspace(ctx, n, w, 0);
  double *ws = dev_alloc(ctx, nws * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)nws, 0.0, ws), "fill ws");
  double *RHAT = d[0], *V = d[1], *R = d[2], *SV = d[3], *T = d[4], *PH = d[5], *SH = d[6], *X = d[7];
  if (block) {
    sps_bicgstab_state *dS = dev_copy(ctx, S, sizeof S);
    for (int round = 0; round < 3; round++) {
      must(ctx, bk->bicgstab_step_a(ctx, n, w, ld, RHAT, V, R, SV, dS, ws), "block step a");
      must(ctx, bk->bicgstab_step_b(ctx, n, w, ld, T, SV, PH, SH, RHAT, X, R, dS, ws), "block step b");
      must(ctx, bk->bicgstab_direction(ctx, n, w, ld, R, V, P, dS), "block direction");
    }
    get(ctx, S, dS, sizeof S);
    be->free(ctx, dS);
  } else {
    sps_bicgstab_state *dS = dev_alloc(ctx, sizeof(sps_bicgstab_state));
    double *v[9];
    for (int k = 0; k < 9; k++) v[k] = dev_alloc(ctx, (size_t)n * 8);
    const int zero = 0;
    double *blk[9] = {RHAT, V, R, SV, T, PH, SH, X, P};
    for (int c = 0; c < w; c++) {
      if (S[c].status == SPS_BLOCK_IDLE) continue;
      for (int k = 0; k < 9; k++) must(ctx, bk->copy_cols(ctx, n, 1, blk[k], ld, &c, v[k], 1, &zero), "copy");
      must(ctx, be->upload(ctx, dS, &S[c], sizeof S[c]), "upload");
      for (int round = 0; round < 3; round++) {
        must(ctx, be->bicgstab_step_a(ctx, n, v[0], v[1], v[2], v[3], dS), "step a");
        must(ctx, be->bicgstab_step_b(ctx, n, v[4], v[3], v[5], v[6], v[0], v[7], v[2], dS), "step b");
        must(ctx, be->bicgstab_direction(ctx, n, v[2], v[1], v[8], dS), "direction");
      }
      get(ctx, &S[c], dS, sizeof S[c]);
      for (int k = 0; k < 9; k++) must(ctx, bk->copy_cols(ctx, n, 1, v[k], 1, &zero, blk[k], ld, &c), "copy");
    }
    be->free(ctx, dS);
    for (int k = 0; k < 9; k++) be->free(ctx, v[k]);
  }
  for (int c = 0; c < w; c++) add_bicgstab(o, &S[c]);
  double *arrs[] = {R, SV, X, P};
  for (int k = 0; k < 4; k++) {
    get(ctx, hpp, arrs[k], bytes);
    out_add(o, hpp, bytes);
  }
  for (int k = 0; k < 8; k++) {
    be->free(ctx, d[k]);
    free(h[k]);
  }
  be->free(ctx, P);
  be->free(ctx, ws);
  free(hpp);
}

/* y <- A x for the test's banded nonsymmetric A (3 diagonals and a far one), on the host. */
static void host_op(int64_t n, const double *x, double *y)
{
  for (int64_t i = 0; i < n; i++) {
    double s = (4.0 + (double)(i % 5) / 5.0) * x[i];
    if (i > 0) s += -1.3 * x[i - 1];
    if (i + 1 < n) s += -0.7 * x[i + 1];
    if (i + 17 < n) s += 0.2 * x[i + 17];
    y[i] = s;
  }
}

/*
 * GMRES(m): gmres_start on the running columns (column 1 idle; a column started from r = 0
 * converges at once), then steps until every column's cycle ended (W = A VCUR formed on the
 * host from the downloaded VCUR, identically for both runs), then gmres_update; columns with
 * a tolerance that stops them early so that their j differ. With together, every column runs
 * the whole cycle (no idle or zero column, no early stop): the CPU's path for columns at one j.
 */
static void run_gmres(sps_context *ctx, shape sh, int block, int m, int together, out *o)
{
  const sps_backend *be = ctx->be;
  const sps_block_backend *bk = be->block;
  const int64_t n = sh.n, ld = sh.ld;
  const int w = sh.w;
  const size_t bytes = (size_t)(n * ld) * sizeof(double);
  const size_t ldh = (size_t)m + 1, nd = 2 * ldh * m + 2 * m + ldh + m + ldh;
  double *hr = random_block(n, ld, 70 + (uint64_t)w, 1.0);
  if (w > 3 && !together)
    for (int64_t i = 0; i < n; i++) hr[i * ld + 3] = 0.0;
  double *dense = dev_alloc(ctx, (size_t)w * nd * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)((size_t)w * nd), 0.0, dense), "fill");
  sps_gmres_state S[SPS_BLOCK_MAX_COLS];
  memset(S, 0, sizeof S);
  uint64_t mask = 0;
  for (int c = 0; c < w; c++) {
    sps_gmres_state *h = &S[c];
    h->H = dense + (size_t)c * nd;
    h->R = h->H + ldh * m;
    h->cs = h->R + ldh * m;
    h->sn = h->cs + m;
    h->g = h->sn + m;
    h->y = h->g + ldh;
    h->work = h->y + m;
    h->happy_tol = 1e-14;
    h->m = m;
    h->tol = c % 4 == 0 && !together ? 1e-3 : 1e-30; /* some columns converge before m */
    h->maxit = 1000;
    const int idle = c == 1 && !together;
    h->status = idle ? SPS_BLOCK_IDLE : SPS_GMRES_RUNNING;
    if (!idle) mask |= (uint64_t)1 << c;
  }
  double *R = dev_copy(ctx, hr, bytes);
  double *V = dev_alloc(ctx, bytes * (size_t)(m + 1)), *VCUR = dev_alloc(ctx, bytes);
  double *W = dev_alloc(ctx, bytes), *U = dev_alloc(ctx, bytes);
  must(ctx, be->fill(ctx, n * ld * (m + 1), 0.0, V), "fill");
  must(ctx, be->fill(ctx, n * ld, 0.0, VCUR), "fill");
  must(ctx, be->fill(ctx, n * ld, 0.0, U), "fill");
  const size_t nws = bk->workspace(ctx, n, w, m);
  double *ws = dev_alloc(ctx, nws * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)nws, 0.0, ws), "fill ws");
  double *hv = xmalloc(bytes), *hw = xmalloc(bytes), *col = xmalloc((size_t)n * 8),
         *col2 = xmalloc((size_t)n * 8);
  if (block) {
    sps_gmres_state *dS = dev_copy(ctx, S, sizeof S);
    must(ctx, bk->gmres_start(ctx, n, w, ld, mask, R, V, VCUR, dS, ws), "block start");
    for (int step = 0; step < m; step++) {
      get(ctx, hv, VCUR, bytes);
      memcpy(hw, hv, bytes);
      for (int c = 0; c < w; c++) {
        col_get(hv, n, ld, c, col);
        host_op(n, col, col2);
        col_put(hw, n, ld, c, col2);
      }
      must(ctx, be->upload(ctx, W, hw, bytes), "upload");
      must(ctx, bk->gmres_arnoldi(ctx, n, w, ld, m, V, n * ld, W, VCUR, dS, ws), "block arnoldi");
    }
    must(ctx, bk->gmres_update(ctx, n, w, ld, m, mask, V, n * ld, dS, U), "block update");
    get(ctx, S, dS, sizeof S);
    be->free(ctx, dS);
  } else {
    sps_gmres_state *dS = dev_alloc(ctx, sizeof(sps_gmres_state));
    double *r = dev_alloc(ctx, (size_t)n * 8), *vcur = dev_alloc(ctx, (size_t)n * 8);
    double *wv = dev_alloc(ctx, (size_t)n * 8), *u = dev_alloc(ctx, (size_t)n * 8);
    double *Vs = dev_alloc(ctx, (size_t)n * 8 * (size_t)(m + 1));
    size_t nwork;
    must(ctx, be->gmres_workspace(ctx, n, m, &nwork), "workspace");
    double *work = dev_alloc(ctx, nwork * sizeof(double));
    const int zero = 0;
    for (int c = 0; c < w; c++) {
      if (!((mask >> c) & 1u)) continue;
      must(ctx, be->fill(ctx, n * (m + 1), 0.0, Vs), "fill");
      must(ctx, be->fill(ctx, n, 0.0, vcur), "fill");
      must(ctx, bk->copy_cols(ctx, n, 1, R, ld, &c, r, 1, &zero), "copy");
      sps_gmres_state h = S[c];
      h.work = work; /* the single steps keep their partials there */
      must(ctx, be->upload(ctx, dS, &h, sizeof h), "upload");
      must(ctx, be->gmres_start(ctx, n, r, Vs, vcur, dS), "start");
      for (int step = 0; step < m; step++) {
        get(ctx, col, vcur, (size_t)n * 8);
        host_op(n, col, col2);
        must(ctx, be->upload(ctx, wv, col2, (size_t)n * 8), "upload");
        must(ctx, be->gmres_arnoldi(ctx, n, m, Vs, n, wv, vcur, dS), "arnoldi");
      }
      must(ctx, be->fill(ctx, n, 0.0, u), "fill");
      must(ctx, be->gmres_update(ctx, n, m, Vs, n, dS, u), "update");
      get(ctx, &h, dS, sizeof h);
      h.work = S[c].work;
      S[c] = h;
      for (int l = 0; l <= m; l++)
        must(ctx, bk->copy_cols(ctx, n, 1, Vs + (int64_t)l * n, 1, &zero, V + (int64_t)l * n * ld, ld, &c), "copy");
      must(ctx, bk->copy_cols(ctx, n, 1, vcur, 1, &zero, VCUR, ld, &c), "copy");
      must(ctx, bk->copy_cols(ctx, n, 1, u, 1, &zero, U, ld, &c), "copy");
    }
    void *dv[] = {dS, r, vcur, wv, u, Vs, work};
    for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) be->free(ctx, dv[k]);
  }
  /* the states and each column's H, R, g, y */
  double *hd = xmalloc((size_t)w * nd * sizeof(double));
  get(ctx, hd, dense, (size_t)w * nd * sizeof(double));
  for (int c = 0; c < w; c++) {
    add_gmres(o, &S[c]);
    if (c == 1 && !together) continue;
    const double *Hc = hd + (size_t)c * nd;
    const int k = S[c].j;
    for (int jj = 0; jj < k; jj++) {
      out_add(o, Hc + jj * ldh, (size_t)(jj + 2) * sizeof(double));           /* H(0:j+1, j) */
      out_add(o, Hc + ldh * m + jj * ldh, (size_t)(jj + 2) * sizeof(double)); /* R(0:j+1, j) */
    }
    out_add(o, Hc + 2 * ldh * m + 2 * m, (size_t)(k + 1) * sizeof(double)); /* g */
    out_add(o, Hc + 2 * ldh * m + 2 * m + ldh, (size_t)k * sizeof(double));  /* y */
  }
  double *hb = xmalloc(bytes);
  for (int l = 0; l <= m; l++) {
    get(ctx, hb, V + (int64_t)l * n * ld, bytes);
    for (int c = 0; c < w; c++)
      if (c != 1 && l <= S[c].j) {
        col_get(hb, n, ld, c, col);
        out_add(o, col, (size_t)n * sizeof(double));
      }
  }
  get(ctx, hb, U, bytes);
  for (int c = 0; c < w; c++)
    if (c != 1 && S[c].status != SPS_GMRES_NAN) {
      col_get(hb, n, ld, c, col);
      out_add(o, col, (size_t)n * sizeof(double));
    }
  void *dv[] = {R, V, VCUR, W, U, ws, dense};
  for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) be->free(ctx, dv[k]);
  free(hr);
  free(hv);
  free(hw);
  free(col);
  free(col2);
  free(hd);
  free(hb);
}

/* gram and gemm: G against single dots per entry (block = 0: be->dot), Y against the host's
 * plain sums in the same order. */
static void run_dense(sps_context *ctx, shape sh, int block, out *o)
{
  const sps_backend *be = ctx->be;
  const sps_block_backend *bk = be->block;
  const int64_t n = sh.n, ld = sh.ld;
  const int a = sh.w, b = sh.w > 1 ? sh.w - 1 : 1;
  const size_t bytes = (size_t)(n * ld) * sizeof(double);
  double *hx = random_block(n, ld, 80, 1.0), *hy = random_block(n, ld, 81, 1.0);
  double *C = random_block(a, b, 82, 1.0), *G = xmalloc((size_t)(a * b) * sizeof(double));
  double *X = dev_copy(ctx, hx, bytes), *Y = dev_copy(ctx, hy, bytes);
  const size_t nws = bk->workspace(ctx, n, a, 0);
  double *ws = dev_alloc(ctx, nws * sizeof(double));
  must(ctx, be->fill(ctx, (int64_t)nws, 0.0, ws), "fill ws");
  const uint64_t mask = b > 2 ? sps_block_all(b) & ~(uint64_t)2 : sps_block_all(b);
  if (block) {
    must(ctx, bk->gram(ctx, n, ld, a, X, b, Y, G, ws), "gram");
    must(ctx, bk->gemm(ctx, n, ld, a, X, b, mask, C, 0.5, Y, ws), "gemm");
    get(ctx, hy, Y, bytes);
  } else {
    double *u = dev_alloc(ctx, (size_t)n * 8), *v = dev_alloc(ctx, (size_t)n * 8);
    const int zero = 0;
    for (int q = 0; q < b; q++)
      for (int p = 0; p < a; p++) {
        must(ctx, bk->copy_cols(ctx, n, 1, X, ld, &p, u, 1, &zero), "copy");
        must(ctx, bk->copy_cols(ctx, n, 1, Y, ld, &q, v, 1, &zero), "copy");
        must(ctx, be->dot(ctx, n, u, v, &G[p + q * a]), "dot");
      }
    for (int64_t i = 0; i < n; i++)
      for (int q = 0; q < b; q++) {
        if (!((mask >> q) & 1u)) continue;
        double s = 0.0;
        for (int p = 0; p < a; p++) s += hx[i * ld + p] * C[p + q * a];
        hy[i * ld + q] = 0.5 * hy[i * ld + q] + s;
      }
    be->free(ctx, u);
    be->free(ctx, v);
  }
  out_add(o, G, (size_t)(a * b) * sizeof(double));
  out_add(o, hy, bytes);
  be->free(ctx, X);
  be->free(ctx, Y);
  be->free(ctx, ws);
  free(hx);
  free(hy);
  free(C);
  free(G);
}

typedef void (*program)(sps_context *ctx, shape sh, int block, out *o);

static void cg_jacobi(sps_context *ctx, shape sh, int block, out *o)
{
  run_cg(ctx, sh, block, 0, o);
}
static void cg_deferred(sps_context *ctx, shape sh, int block, out *o)
{
  run_cg(ctx, sh, block, 1, o);
}
static void gmres_m5(sps_context *ctx, shape sh, int block, out *o)
{
  run_gmres(ctx, sh, block, 5, 0, o);
}
static void gmres_m5_together(sps_context *ctx, shape sh, int block, out *o)
{
  run_gmres(ctx, sh, block, 5, 1, o);
}
static void gmres_m30(sps_context *ctx, shape sh, int block, out *o)
{
  run_gmres(ctx, sh, block, 30, 0, o);
}

static const struct {
  const char *name;
  program run;
  int max_w; /* the widest block the program runs (the single reference is slow) */
} programs[] = {
    {"vector ops", run_vector_ops, 64}, {"CG steps (Jacobi)", cg_jacobi, 64},
    {"CG steps (deferred)", cg_deferred, 33}, {"BiCGSTAB steps", run_bicgstab, 64},
    {"GMRES(5) steps", gmres_m5, 33},       {"GMRES(30) steps", gmres_m30, 8},
    {"GMRES(5) steps, every column at one j", gmres_m5_together, 64},
    {"gram and gemm", run_dense, 12},
};

int main(void)
{
  sps_context *ctx = sps_test_context();
  sps_context *cpu = NULL;
  sps_device_kind kind;
  int index;
  sps_context_get_device(ctx, &kind, &index);
  if (kind == SPS_DEVICE_CUDA && sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  const char *dev = kind == SPS_DEVICE_CUDA ? "GPU" : "CPU";
  const int64_t sizes[] = {1, 1003, 20011};
  const int widths[] = {1, 2, 3, 8, 33, 64};
  for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
      for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        const int w = widths[wi];
        if (w > programs[p].max_w) continue;
        /* the column-by-column reference is slow */
        if (sizes[si] > 2000 && (w > 8 || (programs[p].run == gmres_m30 && w > 2))) continue;
        if (!sps_case()) continue;
        const shape sh = {sizes[si], w, sps_block_ld(w) + (w % 2)};
        out blk = {0, 0, NULL}, col = {0, 0, NULL};
        programs[p].run(ctx, sh, 1, &blk);
        programs[p].run(ctx, sh, 0, &col);
        sps_ok(out_same(&blk, &col),
               "%s, n = %lld, w = %d, ld = %lld: the %s block ops give each column the single "
               "ops' bits",
               programs[p].name, (long long)sh.n, w, (long long)sh.ld, dev);
        if (cpu) {
          out ref = {0, 0, NULL};
          programs[p].run(cpu, sh, 1, &ref);
          sps_ok(out_same(&blk, &ref),
                 "%s, n = %lld, w = %d: the CUDA block kernels give the CPU block ops' bits",
                 programs[p].name, (long long)sh.n, w);
          free(ref.v);
        }
        free(blk.v);
        free(col.v);
      }
  sps_context_destroy(&cpu);
  sps_context_destroy(&ctx);
  return sps_done();
}
