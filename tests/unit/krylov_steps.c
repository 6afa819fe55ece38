/* krylov_steps.c: tests of the device-driven GMRES(m) and BiCGSTAB steps of the backend ops table:
 * the CPU backend's, or with SPS_TEST_DEVICE=cuda (krylov-steps-cuda.sh) the CUDA backend's, alone
 * and against the CPU's (skipped, exit 77, without a GPU).
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each test function below is one case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "spmv_internal.h"
#include "testlib.h"

/* A CSR matrix on the host; products are formed on the host and uploaded. */
typedef struct csr {
  int64_t n;
  int64_t *rowptr;
  int32_t *colind;
  double *val;
} csr;

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

static void csr_free(csr *A)
{
  free(A->rowptr);
  free(A->colind);
  free(A->val);
}

static void csr_matvec(const csr *A, const double *x, double *y)
{
  sps_csr_matvec_host(A->n, A->rowptr, A->colind, A->val, x, y);
}

/* Nonsymmetric, diagonally dominant: 4 + i/n on the diagonal, -1.2 left, -0.8 right, one random
 * entry (columns sorted, duplicates summed). */
static csr make_convdiff(int64_t n, uint64_t seed)
{
  sps_rng rng = {seed};
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)),
           xmalloc((size_t)(4 * n) * sizeof(int32_t)), xmalloc((size_t)(4 * n) * sizeof(double))};
  int64_t k = 0;
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t cols[4] = {i - 1, i, i + 1, (int64_t)(sps_rng_next(&rng) % (uint64_t)n)};
    double vals[4] = {-1.2, 4.0 + (double)i / (double)n, -0.8, 0.3 * sps_rng_uniform(&rng)};
    /* insertion sort of the four entries by column */
    for (int a = 1; a < 4; a++)
      for (int b = a; b > 0 && cols[b - 1] > cols[b]; b--) {
        int64_t tc = cols[b];
        double tv = vals[b];
        cols[b] = cols[b - 1];
        vals[b] = vals[b - 1];
        cols[b - 1] = tc;
        vals[b - 1] = tv;
      }
    for (int q = 0; q < 4; q++) {
      if (cols[q] < 0 || cols[q] >= n) continue;
      if (k > A.rowptr[i] && A.colind[k - 1] == cols[q]) {
        A.val[k - 1] += vals[q];
      } else {
        A.colind[k] = (int32_t)cols[q];
        A.val[k++] = vals[q];
      }
    }
    A.rowptr[i + 1] = k;
  }
  return A;
}

/* [[I, B], [0, 3I]] with B random (n even): diagonalisable with the two eigenvalues 1 and 3. */
static csr make_two_eigs(int64_t n, uint64_t seed)
{
  sps_rng rng = {seed};
  int64_t h = n / 2;
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)),
           xmalloc((size_t)(n * (h + 1)) * sizeof(int32_t)),
           xmalloc((size_t)(n * (h + 1)) * sizeof(double))};
  int64_t k = 0;
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    A.colind[k] = (int32_t)i;
    A.val[k++] = i < h ? 1.0 : 3.0;
    if (i < h)
      for (int64_t c = h; c < n; c++) {
        A.colind[k] = (int32_t)c;
        A.val[k++] = sps_rng_uniform(&rng);
      }
    A.rowptr[i + 1] = k;
  }
  return A;
}

/* Block diagonal of [[0, 1], [-1, 0]] (skew: (x, Ax) = 0 for every x). */
static csr make_skew(int64_t n)
{
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)), xmalloc((size_t)n * sizeof(int32_t)),
           xmalloc((size_t)n * sizeof(double))};
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    A.colind[i] = (int32_t)(i % 2 == 0 ? i + 1 : i - 1);
    A.val[i] = i % 2 == 0 ? 1.0 : -1.0;
    A.rowptr[i + 1] = i + 1;
  }
  return A;
}

static csr make_identity(int64_t n)
{
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)), xmalloc((size_t)n * sizeof(int32_t)),
           xmalloc((size_t)n * sizeof(double))};
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    A.colind[i] = (int32_t)i;
    A.val[i] = 1.0;
    A.rowptr[i + 1] = i + 1;
  }
  return A;
}

/*
 * Rows of every kind the fused GMRES cycle treats differently: most of 3 entries (-1, 4, -1
 * around the diagonal), rows i = 5 (mod 97) of 34 to 1400 entries spread over the columns
 * (summed by a whole warp), rows i = 6 and 7 (mod 97) of exactly 32 and 33 entries (the
 * thread/warp threshold), rows i = 8 (mod 97) empty. Off-diagonal values random in (-0.05, 0.05).
 */
static csr make_longrows(int64_t n, uint64_t seed)
{
  sps_rng rng = {seed};
  const int64_t cap = 3 * n + (n / 97 + 1) * (1400 + 32 + 33);
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)), xmalloc((size_t)cap * sizeof(int32_t)),
           xmalloc((size_t)cap * sizeof(double))};
  int64_t k = 0;
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t kind = i % 97;
    int64_t len = kind == 5 ? 34 + (i * 131) % 1367 : kind == 6 ? 32 : kind == 7 ? 33 : 0;
    if (len > n) len = n;
    if (kind == 8) {
      /* empty row */
    } else if (len > 0) {
      /* len increasing distinct columns, one in each of len equal strides */
      const int64_t stride = n / len;
      for (int64_t q = 0; q < len; q++) {
        const int64_t c = q * stride + (int64_t)(sps_rng_next(&rng) % (uint64_t)stride);
        A.colind[k] = (int32_t)c;
        A.val[k++] = c == i ? 4.0 : 0.05 * sps_rng_uniform(&rng);
      }
    } else {
      for (int64_t c = i - 1; c <= i + 1; c++)
        if (c >= 0 && c < n) {
          A.colind[k] = (int32_t)c;
          A.val[k++] = c == i ? 4.0 : -1.0 + 0.1 * sps_rng_uniform(&rng);
        }
    }
    A.rowptr[i + 1] = k;
  }
  return A;
}

static void random_vector(double *x, int64_t n, uint64_t seed)
{
  sps_rng rng = {seed};
  for (int64_t i = 0; i < n; i++)
    x[i] = sps_rng_uniform(&rng);
}

static double norm2(const double *x, int64_t n)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

/* Largest |a_i - b_i|; NaN when any difference is NaN (fmax would drop it), so that a NaN
 * fails every bound it is compared with. */
static double max_abs_diff(const double *a, const double *b, int64_t n)
{
  double d = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double e = fabs(a[i] - b[i]);
    if (!(e <= d)) d = e;
  }
  return d;
}

/* Largest |a_i|; NaN when any a_i is NaN. */
static double max_abs(const double *a, int64_t n)
{
  double d = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double e = fabs(a[i]);
    if (!(e <= d)) d = e;
  }
  return d;
}

/* Memory in the context's space: failures of the library end the test (99). */
static void *dev_alloc(sps_context *ctx, size_t bytes)
{
  void *p = NULL;
  if (ctx->be->malloc(ctx, &p, bytes ? bytes : 8, "test array") != SPS_SUCCESS)
    sps_bail("allocation: %s", sps_context_last_error(ctx));
  return p;
}
static void put(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (ctx->be->upload(ctx, dst, src, bytes) != SPS_SUCCESS)
    sps_bail("upload: %s", sps_context_last_error(ctx));
}
static void get(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (bytes == 0) return;
  if (ctx->be->download(ctx, dst, src, bytes) != SPS_SUCCESS)
    sps_bail("download: %s", sps_context_last_error(ctx));
}
static void must(sps_context *ctx, sps_status st, const char *what)
{
  if (st != SPS_SUCCESS) sps_bail("%s: %s", what, sps_context_last_error(ctx));
}

/* A GMRES(m) state with its arrays in the context's memory, and host copies of the results. */
typedef struct gm {
  sps_context *ctx;
  int64_t n;
  int m, maxit;
  double *V, *vcur, *w, *u, *H, *R, *cs, *sn, *g, *y, *hist, *work; /* context memory */
  sps_gmres_state *S;                                               /* context memory */
  sps_gmres_state s;                                                /* host copy */
  double *hV, *hH, *hR, *hg, *hy, *hu, *hhist;                      /* host copies */
  sps_spmv_plan *plan; /* when set, gm_step forms w = A vcur with it instead of on the host */
} gm;

static void gm_init(gm *G, sps_context *ctx, int64_t n, int m, int maxit, double tol)
{
  const sps_backend *be = ctx->be;
  const size_t ldh = (size_t)m + 1, d = sizeof(double);
  size_t nwork = 0;
  memset(G, 0, sizeof *G);
  G->ctx = ctx;
  G->n = n;
  G->m = m;
  G->maxit = maxit;
  must(ctx, be->gmres_workspace(ctx, n, m, &nwork), "gmres_workspace");
  G->V = dev_alloc(ctx, (size_t)n * ldh * d);
  G->vcur = dev_alloc(ctx, (size_t)n * d);
  G->w = dev_alloc(ctx, (size_t)n * d);
  G->u = dev_alloc(ctx, (size_t)n * d);
  G->H = dev_alloc(ctx, ldh * (size_t)m * d);
  G->R = dev_alloc(ctx, ldh * (size_t)m * d);
  G->cs = dev_alloc(ctx, (size_t)m * d);
  G->sn = dev_alloc(ctx, (size_t)m * d);
  G->g = dev_alloc(ctx, ldh * d);
  G->y = dev_alloc(ctx, (size_t)m * d);
  G->hist = dev_alloc(ctx, (size_t)(maxit + 1) * d);
  G->work = dev_alloc(ctx, nwork * d);
  G->S = dev_alloc(ctx, sizeof(sps_gmres_state));
  must(ctx, be->fill(ctx, (int64_t)(ldh * (size_t)m), 0.0, G->H), "fill H");
  must(ctx, be->fill(ctx, (int64_t)(ldh * (size_t)m), 0.0, G->R), "fill R");
  must(ctx, be->fill(ctx, maxit + 1, -1.0, G->hist), "fill history");
  G->s = (sps_gmres_state){.tol = tol,
                           .happy_tol = 1e-14,
                           .H = G->H,
                           .R = G->R,
                           .cs = G->cs,
                           .sn = G->sn,
                           .g = G->g,
                           .y = G->y,
                           .history = G->hist,
                           .work = G->work,
                           .m = m,
                           .maxit = maxit};
  put(ctx, G->S, &G->s, sizeof G->s);
  G->hV = xmalloc((size_t)n * ldh * d);
  G->hH = xmalloc(ldh * (size_t)m * d);
  G->hR = xmalloc(ldh * (size_t)m * d);
  G->hg = xmalloc(ldh * d);
  G->hy = xmalloc((size_t)m * d);
  G->hu = xmalloc((size_t)(n ? n : 1) * d);
  G->hhist = xmalloc((size_t)(maxit + 1) * d);
}

static void gm_free(gm *G)
{
  sps_context *ctx = G->ctx;
  double *dev[] = {G->V,  G->vcur, G->w, G->u, G->H,    G->R,
                   G->cs, G->sn,   G->g, G->y, G->hist, G->work};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    ctx->be->free(ctx, dev[i]);
  ctx->be->free(ctx, G->S);
  free(G->hV);
  free(G->hH);
  free(G->hR);
  free(G->hg);
  free(G->hy);
  free(G->hu);
  free(G->hhist);
}

static void gm_read_state(gm *G)
{
  get(G->ctx, &G->s, G->S, sizeof G->s);
}

/*
 * The columns of V the current cycle has written, as its state says (core/krylov_state.h):
 * v_0 once the cycle opened RUNNING, then v_{j+1} for every column closed with a usable
 * h_{j+1,j}, that is, all of 0..j except at a happy breakdown or a NaN, whose last column is
 * not written. A cycle that opened stopped (r = 0, NaN) wrote none; one that stopped inside
 * (NaN, breakdown) is read to the columns it surely wrote.
 */
static int gm_written_columns(const sps_gmres_state *s)
{
  if (s->j == 0) return s->status == SPS_GMRES_RUNNING ? 1 : 0;
  if (s->status == SPS_GMRES_HAPPY_BREAKDOWN || s->status == SPS_GMRES_NAN) return s->j;
  return s->j + 1;
}

/*
 * Host copies of what the steps have written, and only that, so that no test reads memory
 * that no one wrote (compute-sanitizer's initcheck): the state, H, R and the history (filled
 * at gm_init), g (written whole by every start), the written columns of V, y_0..y_{k-1} of the
 * last update (k = j, none after a NaN), and u (written by every update but one after a NaN,
 * where the tests fill it first). The host entries not read are NaN, which fails any check
 * that uses them.
 */
static void gm_read_all(gm *G)
{
  const size_t ldh = (size_t)G->m + 1, d = sizeof(double);
  gm_read_state(G);
  const int ncols = gm_written_columns(&G->s);
  const int ny = G->s.status == SPS_GMRES_NAN ? 0 : G->s.j;
  for (size_t i = 0; i < (size_t)G->n * ldh; i++)
    G->hV[i] = NAN;
  for (int i = 0; i < G->m; i++)
    G->hy[i] = NAN;
  get(G->ctx, G->hV, G->V, (size_t)G->n * (size_t)ncols * d);
  get(G->ctx, G->hH, G->H, ldh * (size_t)G->m * d);
  get(G->ctx, G->hR, G->R, ldh * (size_t)G->m * d);
  get(G->ctx, G->hg, G->g, ldh * d);
  get(G->ctx, G->hy, G->y, (size_t)ny * d);
  get(G->ctx, G->hu, G->u, (size_t)G->n * d);
  get(G->ctx, G->hhist, G->hist, (size_t)(G->maxit + 1) * d);
}

/* gmres_start on r (host). */
static void gm_start(gm *G, const double *r)
{
  sps_context *ctx = G->ctx;
  put(ctx, G->w, r, (size_t)G->n * sizeof(double));
  must(ctx, ctx->be->gmres_start(ctx, G->n, G->w, G->V, G->vcur, G->S), "gmres_start");
}

/* One inner iteration: w = A vcur (on the host, or by G->plan), then gmres_arnoldi. */
static void gm_step(gm *G, const csr *A)
{
  sps_context *ctx = G->ctx;
  if (G->plan) {
    must(ctx, sps_spmv_apply_raw(G->plan, 1.0, G->vcur, 0.0, G->w), "spmv");
  } else {
    const size_t bytes = (size_t)G->n * sizeof(double);
    double *x = xmalloc(bytes), *y = xmalloc(bytes);
    get(ctx, x, G->vcur, bytes);
    csr_matvec(A, x, y);
    put(ctx, G->w, y, bytes);
    free(x);
    free(y);
  }
  must(ctx, ctx->be->gmres_arnoldi(ctx, G->n, G->m, G->V, G->n, G->w, G->vcur, G->S),
       "gmres_arnoldi");
}

/* Inner iterations until the status leaves RUNNING (at most limit). */
static void gm_run(gm *G, const csr *A, int limit)
{
  for (int k = 0; k < limit; k++) {
    gm_read_state(G);
    if (G->s.status != SPS_GMRES_RUNNING) return;
    gm_step(G, A);
  }
  gm_read_state(G);
}

static void gm_update(gm *G)
{
  sps_context *ctx = G->ctx;
  must(ctx, ctx->be->gmres_update(ctx, G->n, G->m, G->V, G->n, G->S, G->u), "gmres_update");
}

/*
 * The reference: Arnoldi with modified Gram-Schmidt twice (MGS2), Givens rotations and back
 * substitution, written plainly, for k steps from r0. Returns H ((m+1) x m), g (m+1) and u = V_k y.
 */
static void reference_gmres(const csr *A, const double *r0, int m, int k, double *H, double *g,
                            double *u)
{
  const int64_t n = A->n;
  const int ldh = m + 1;
  double *V = xmalloc((size_t)n * (size_t)(m + 1) * sizeof(double));
  double *Rr = xmalloc((size_t)ldh * (size_t)m * sizeof(double));
  double *c = xmalloc((size_t)m * sizeof(double)), *s = xmalloc((size_t)m * sizeof(double));
  double *y = xmalloc((size_t)m * sizeof(double));
  memset(H, 0, (size_t)ldh * (size_t)m * sizeof(double));
  memset(g, 0, (size_t)ldh * sizeof(double));
  double beta = norm2(r0, n);
  for (int64_t i = 0; i < n; i++)
    V[i] = r0[i] / beta;
  g[0] = beta;
  for (int j = 0; j < k; j++) {
    double *w = V + (int64_t)(j + 1) * n;
    csr_matvec(A, V + (int64_t)j * n, w);
    /* two MGS sweeps: one alone loses orthogonality as the residual falls */
    for (int sweep = 0; sweep < 2; sweep++)
      for (int i = 0; i <= j; i++) {
        double h = 0.0;
        for (int64_t q = 0; q < n; q++)
          h += V[q + (int64_t)i * n] * w[q];
        H[i + j * ldh] += h;
        for (int64_t q = 0; q < n; q++)
          w[q] -= h * V[q + (int64_t)i * n];
      }
    double hn = norm2(w, n);
    H[j + 1 + j * ldh] = hn;
    for (int64_t q = 0; q < n; q++)
      w[q] /= hn;
    for (int i = 0; i <= j + 1; i++)
      Rr[i + j * ldh] = H[i + j * ldh];
    for (int i = 0; i < j; i++) {
      double a = Rr[i + j * ldh], b = Rr[i + 1 + j * ldh];
      Rr[i + j * ldh] = c[i] * a + s[i] * b;
      Rr[i + 1 + j * ldh] = -s[i] * a + c[i] * b;
    }
    double a = Rr[j + j * ldh], b = Rr[j + 1 + j * ldh], r = sqrt(a * a + b * b);
    c[j] = a / r;
    s[j] = b / r;
    Rr[j + j * ldh] = r;
    g[j + 1] = -s[j] * g[j];
    g[j] = c[j] * g[j];
  }
  for (int i = k - 1; i >= 0; i--) {
    double t = g[i];
    for (int l = i + 1; l < k; l++)
      t -= Rr[i + l * ldh] * y[l];
    y[i] = t / Rr[i + i * ldh];
  }
  for (int64_t q = 0; q < n; q++) {
    double t = 0.0;
    for (int i = 0; i < k; i++)
      t += V[q + (int64_t)i * n] * y[i];
    u[q] = t;
  }
  free(V);
  free(Rr);
  free(c);
  free(s);
  free(y);
}

/* ||r0 - A u|| */
static double true_residual(const csr *A, const double *r0, const double *u)
{
  double *t = xmalloc((size_t)A->n * sizeof(double));
  csr_matvec(A, u, t);
  for (int64_t i = 0; i < A->n; i++)
    t[i] = r0[i] - t[i];
  double r = norm2(t, A->n);
  free(t);
  return r;
}

/* One full cycle against the reference; the basis, the Arnoldi relation, the x update; then a
 * restart up to maxit, and convergence by the estimate: three cases (sps_case), each from r0, so
 * that a slow tool can run them in separate processes. */
static void test_gmres_cycle(sps_context *ctx, const char *tag)
{
  const int64_t n = 300;
  const int m = 20;
  const int ldh = m + 1;
  csr A = make_convdiff(n, 11);
  double *r0 = xmalloc((size_t)n * sizeof(double));
  random_vector(r0, n, 12);
  const double beta = norm2(r0, n);
  gm G;

  if (sps_case()) {
    gm_init(&G, ctx, n, m, 100, 0.0);
    gm_start(&G, r0);
    gm_run(&G, &A, m + 5);
    gm_update(&G);
    gm_read_all(&G);
    sps_ok(G.s.status == SPS_GMRES_CYCLE_END && G.s.j == m && G.s.it == m,
           "%s gmres: a cycle with tol 0 ends with CYCLE_END at j = it = m (status %d, j %d, it %d)",
           tag, G.s.status, G.s.j, G.s.it);

    double *Href = xmalloc((size_t)ldh * m * sizeof(double)),
           *gref = xmalloc((size_t)ldh * sizeof(double));
    double *uref = xmalloc((size_t)n * sizeof(double));
    reference_gmres(&A, r0, m, m, Href, gref, uref);
    double dH = max_abs_diff(G.hH, Href, (int64_t)ldh * m) / max_abs(Href, (int64_t)ldh * m);
    sps_ok(dH <= 1e-12, "%s gmres: H equals the MGS2 reference Arnoldi's to 1e-12 relative (%.2e)",
           tag, dH);
    double dg = max_abs_diff(G.hg, gref, ldh) / beta;
    sps_ok(dg <= 1e-12, "%s gmres: g equals the reference's to 1e-12 beta (%.2e)", tag, dg);
    sps_ok(fabs(G.s.resid - fabs(gref[m])) <= 1e-12 * beta && G.hhist[m] == G.s.resid &&
               G.hhist[0] == beta,
           "%s gmres: residual estimate %.6e = |g_m| of the reference %.6e, history[0] = beta", tag,
           G.s.resid, fabs(gref[m]));
    double du = max_abs_diff(G.hu, uref, n) / max_abs(uref, n);
    sps_ok(du <= 1e-10, "%s gmres: x update V y equals the reference's to 1e-10 relative (%.2e)",
           tag, du);
    double rt = true_residual(&A, r0, G.hu);
    sps_ok(fabs(rt - G.s.resid) <= 1e-10 * beta,
           "%s gmres: true residual ||r0 - A V y|| %.6e matches the estimate to 1e-10 beta", tag,
           rt);

    /* V^T V = I over the m+1 columns */
    double orth = 0.0;
    for (int a = 0; a <= m; a++)
      for (int b = 0; b <= m; b++) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++)
          s += G.hV[i + a * n] * G.hV[i + b * n];
        orth = fmax(orth, fabs(s - (a == b ? 1.0 : 0.0)));
      }
    sps_ok(orth <= 1e-14, "%s gmres: CGS2 basis orthonormal, max |V^T V - I| = %.2e <= 1e-14",
           tag, orth);

    /* A V_m = V_{m+1} H_m */
    double arn = 0.0, hmax = max_abs(G.hH, (int64_t)ldh * m);
    double *av = xmalloc((size_t)n * sizeof(double));
    for (int j = 0; j < m; j++) {
      csr_matvec(&A, G.hV + (int64_t)j * n, av);
      for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int q = 0; q <= j + 1; q++)
          s += G.hV[i + (int64_t)q * n] * G.hH[q + j * ldh];
        arn = fmax(arn, fabs(av[i] - s));
      }
    }
    sps_ok(arn <= 1e-13 * hmax,
           "%s gmres: Arnoldi relation max |A V_m - V_{m+1} H_m| = %.2e <= 1e-13 max|H|", tag, arn);
    /* R is upper triangular and R^T R = H^T H (the rotations are orthogonal) */
    double tri = 0.0, qr = 0.0;
    for (int j = 0; j < m; j++)
      for (int i = j + 1; i <= m; i++)
        tri = fmax(tri, fabs(G.hR[i + j * ldh]));
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) {
        double s1 = 0.0, s2 = 0.0;
        for (int i = 0; i <= m; i++) {
          s1 += G.hR[i + a * ldh] * G.hR[i + b * ldh];
          s2 += G.hH[i + a * ldh] * G.hH[i + b * ldh];
        }
        qr = fmax(qr, fabs(s1 - s2));
      }
    sps_ok(tri == 0.0 && qr <= 1e-12 * hmax * hmax,
           "%s gmres: R upper triangular, R^T R = H^T H to %.2e", tag, qr);

    /* Once stopped, an Arnoldi call changes nothing. */
    sps_gmres_state before = G.s;
    gm_step(&G, &A);
    gm_read_all(&G);
    double dH2 = max_abs_diff(G.hH, Href, (int64_t)ldh * m) / max_abs(Href, (int64_t)ldh * m);
    sps_ok(G.s.it == before.it && G.s.j == before.j && G.s.status == before.status && dH2 == dH,
           "%s gmres: an Arnoldi step after CYCLE_END is a no-op", tag);
    gm_free(&G);
    free(av);
    free(Href);
    free(gref);
    free(uref);
  }

  /* A second cycle from the true residual continues the count until maxit. The first cycle
   * with maxit 30 is the one with maxit 100 above (maxit does not enter before it is reached). */
  if (sps_case()) {
    gm_init(&G, ctx, n, m, 30, 0.0);
    gm_start(&G, r0);
    gm_run(&G, &A, m + 5);
    gm_update(&G);
    gm_read_all(&G);
    double *r1 = xmalloc((size_t)n * sizeof(double));
    csr_matvec(&A, G.hu, r1);
    for (int64_t i = 0; i < n; i++)
      r1[i] = r0[i] - r1[i];
    gm_start(&G, r1);
    gm_read_all(&G);
    sps_ok(G.s.status == SPS_GMRES_RUNNING && G.s.j == 0 && G.s.it == m &&
               fabs(G.hhist[m] - norm2(r1, n)) <= 1e-13 * beta,
           "%s gmres: restart opens a cycle at j = 0, keeps it = %d, history[it] = true ||r||", tag,
           G.s.it);
    gm_run(&G, &A, m + 5);
    sps_ok(G.s.status == SPS_GMRES_MAX_ITERATIONS && G.s.it == 30 && G.s.j == 10,
           "%s gmres: MAX_ITERATIONS at it = maxit = 30 in the second cycle (j = %d)", tag, G.s.j);
    gm_free(&G);
    free(r1);
  }

  /* CONVERGED by the estimate */
  if (sps_case()) {
    gm_init(&G, ctx, n, m, 100, 1e-3 * beta);
    gm_start(&G, r0);
    gm_run(&G, &A, m + 5);
    gm_update(&G);
    gm_read_all(&G);
    int k = G.s.j;
    sps_ok(G.s.status == SPS_GMRES_CONVERGED && k < m && G.s.resid <= 1e-3 * beta &&
               G.hhist[k - 1] > 1e-3 * beta,
           "%s gmres: CONVERGED at the first j with |g_{j+1}| <= tol (j = %d)", tag, k);
    double rt = true_residual(&A, r0, G.hu);
    sps_ok(fabs(rt - G.s.resid) <= 1e-10 * beta,
           "%s gmres: true residual at convergence %.3e (estimate %.3e)", tag, rt, G.s.resid);
    gm_free(&G);
  }

  free(r0);
  csr_free(&A);
}

/* Happy breakdown: two distinct eigenvalues, so the Krylov space has dimension 2. */
static void test_gmres_happy(sps_context *ctx, const char *tag)
{
  const int64_t n = 40;
  csr A = make_two_eigs(n, 21);
  double *r0 = xmalloc((size_t)n * sizeof(double));
  random_vector(r0, n, 22);
  gm G;
  gm_init(&G, ctx, n, 10, 100, 0.0);
  gm_start(&G, r0);
  gm_run(&G, &A, 12);
  gm_update(&G);
  gm_read_all(&G);
  double beta = norm2(r0, n);
  double rt = true_residual(&A, r0, G.hu);
  sps_ok(G.s.status == SPS_GMRES_HAPPY_BREAKDOWN && G.s.j == 2 && G.s.it == 2,
         "%s gmres: happy breakdown at j = 2 on a matrix with 2 eigenvalues (status %d, j %d, "
         "h_{3,2}/||w|| = %.2e)",
         tag, G.s.status, G.s.j, G.s.hnext / G.s.wnorm);
  sps_ok(rt <= 1e-13 * beta, "%s gmres: the cycle's solution is exact: ||r0 - A V y|| = %.2e beta",
         tag, rt / beta);
  gm_free(&G);
  csr_free(&A);
  free(r0);
}

/* Start on r = 0, on r with a NaN, a NaN in w; update skips on NAN; workspace argument. */
static void test_gmres_edges(sps_context *ctx, const char *tag)
{
  const int64_t n = 50;
  csr A = make_convdiff(n, 31);
  double *r = xmalloc((size_t)n * sizeof(double)), *u = xmalloc((size_t)n * sizeof(double));
  gm G;
  memset(r, 0, (size_t)n * sizeof(double));
  gm_init(&G, ctx, n, 5, 20, 0.0);
  gm_start(&G, r);
  must(ctx, ctx->be->fill(ctx, n, 7.0, G.u), "fill");
  gm_update(&G);
  gm_read_all(&G);
  sps_ok(G.s.status == SPS_GMRES_CONVERGED && G.s.j == 0 && G.s.beta == 0.0 &&
             max_abs(G.hu, n) == 0.0,
         "%s gmres: r = 0 starts CONVERGED and the update gives u = 0", tag);
  random_vector(r, n, 32);
  r[17] = NAN;
  gm_start(&G, r);
  must(ctx, ctx->be->fill(ctx, n, 7.0, G.u), "fill");
  gm_update(&G);
  gm_read_all(&G);
  for (int64_t i = 0; i < n; i++)
    u[i] = 7.0;
  sps_ok(G.s.status == SPS_GMRES_NAN && max_abs_diff(G.hu, u, n) == 0.0,
         "%s gmres: NaN in r starts NAN; the update leaves u alone", tag);
  gm_free(&G);

  gm_init(&G, ctx, n, 5, 20, 0.0);
  random_vector(r, n, 33);
  gm_start(&G, r);
  gm_step(&G, &A);
  double bad[1] = {NAN};
  put(ctx, G.w + 3, bad, sizeof bad);
  must(ctx, ctx->be->gmres_arnoldi(ctx, n, G.m, G.V, n, G.w, G.vcur, G.S), "arnoldi");
  gm_read_state(&G);
  sps_ok(G.s.status == SPS_GMRES_NAN && G.s.it == 1, "%s gmres: NaN in w stops with NAN (it %d)",
         tag, G.s.it);
  gm_free(&G);

  gm_init(&G, ctx, n, 5, 2, 0.0);
  gm_start(&G, r);
  gm_run(&G, &A, 10);
  sps_ok(G.s.status == SPS_GMRES_MAX_ITERATIONS && G.s.it == 2 && G.s.j == 2,
         "%s gmres: MAX_ITERATIONS at maxit = 2 inside the first cycle", tag);
  gm_free(&G);

  size_t nw = 0;
  sps_ok(ctx->be->gmres_workspace(ctx, n, 0, &nw) == SPS_ERR_ARGUMENT,
         "%s gmres: workspace for m = 0 is SPS_ERR_ARGUMENT", tag);
  free(r);
  free(u);
  csr_free(&A);
}

/* BiCGSTAB state and vectors in the context's memory. */
typedef struct bs {
  sps_context *ctx;
  int64_t n;
  double *x, *r, *r0hat, *p, *v, *s, *t, *phat, *shat, *hist;
  sps_bicgstab_state *S;
  sps_bicgstab_state h;
} bs;

static void bs_init(bs *B, sps_context *ctx, int64_t n, int maxit)
{
  memset(B, 0, sizeof *B);
  B->ctx = ctx;
  B->n = n;
  double **v[] = {&B->x, &B->r, &B->r0hat, &B->p, &B->v, &B->s, &B->t, &B->phat, &B->shat};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    *v[i] = dev_alloc(ctx, (size_t)n * sizeof(double));
    must(ctx, ctx->be->fill(ctx, n, 0.0, *v[i]), "fill");
  }
  B->hist = dev_alloc(ctx, (size_t)(maxit + 1) * sizeof(double));
  B->S = dev_alloc(ctx, sizeof(sps_bicgstab_state));
  B->h = (sps_bicgstab_state){.history = B->hist, .maxit = maxit};
}

static void bs_free(bs *B)
{
  double *v[] = {B->x, B->r, B->r0hat, B->p, B->v, B->s, B->t, B->phat, B->shat, B->hist};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    B->ctx->be->free(B->ctx, v[i]);
  B->ctx->be->free(B->ctx, B->S);
}

/* Host product y = A D^-1 x on context vectors (D^-1 given on the host, NULL for identity), and z =
 * D^-1 x. */
static void bs_precond_matvec(bs *B, const csr *A, const double *dinv, const double *x, double *z,
                              double *y)
{
  const size_t bytes = (size_t)B->n * sizeof(double);
  double *hx = xmalloc(bytes), *hy = xmalloc(bytes);
  get(B->ctx, hx, x, bytes);
  if (dinv)
    for (int64_t i = 0; i < B->n; i++)
      hx[i] *= dinv[i];
  put(B->ctx, z, hx, bytes);
  csr_matvec(A, hx, hy);
  put(B->ctx, y, hy, bytes);
  free(hx);
  free(hy);
}

/* x0 = 0, r = r0hat = p = b, rho = b.b, then up to k iterations by the steps. */
static void bs_solve(bs *B, const csr *A, const double *dinv, const double *b, double tol, int k)
{
  sps_context *ctx = B->ctx;
  const sps_backend *be = ctx->be;
  const size_t bytes = (size_t)B->n * sizeof(double);
  put(ctx, B->r, b, bytes);
  put(ctx, B->r0hat, b, bytes);
  put(ctx, B->p, b, bytes);
  B->h.rho = norm2(b, B->n) * norm2(b, B->n);
  B->h.tol2 = tol * tol;
  put(ctx, B->S, &B->h, sizeof B->h);
  for (int it = 0; it < k; it++) {
    get(ctx, &B->h, B->S, sizeof B->h);
    if (B->h.status != SPS_BICGSTAB_RUNNING) break;
    bs_precond_matvec(B, A, dinv, B->p, B->phat, B->v);
    must(ctx, be->bicgstab_step_a(ctx, B->n, B->r0hat, B->v, B->r, B->s, B->S), "step_a");
    bs_precond_matvec(B, A, dinv, B->s, B->shat, B->t);
    must(ctx,
         be->bicgstab_step_b(ctx, B->n, B->t, B->s, B->phat, B->shat, B->r0hat, B->x, B->r, B->S),
         "step_b");
    must(ctx, be->bicgstab_direction(ctx, B->n, B->r, B->v, B->p, B->S), "direction");
  }
  get(ctx, &B->h, B->S, sizeof B->h);
}

/* The reference: right-preconditioned BiCGSTAB as a plain loop, k iterations from x0 = 0. */
static void reference_bicgstab(const csr *A, const double *dinv, const double *b, int k, double *x,
                               double *hist)
{
  const int64_t n = A->n;
  const size_t bytes = (size_t)n * sizeof(double);
  double *r = xmalloc(bytes), *rh = xmalloc(bytes), *p = xmalloc(bytes), *ph = xmalloc(bytes);
  double *v = xmalloc(bytes), *s = xmalloc(bytes), *sh = xmalloc(bytes), *t = xmalloc(bytes);
  memset(x, 0, bytes);
  memcpy(r, b, bytes);
  memcpy(rh, b, bytes);
  memcpy(p, b, bytes);
  double rho = 0.0;
  for (int64_t i = 0; i < n; i++)
    rho += rh[i] * r[i];
  for (int it = 0; it < k; it++) {
    for (int64_t i = 0; i < n; i++)
      ph[i] = dinv ? dinv[i] * p[i] : p[i];
    csr_matvec(A, ph, v);
    double sig = 0.0;
    for (int64_t i = 0; i < n; i++)
      sig += rh[i] * v[i];
    double alpha = rho / sig;
    for (int64_t i = 0; i < n; i++)
      s[i] = r[i] - alpha * v[i];
    for (int64_t i = 0; i < n; i++)
      sh[i] = dinv ? dinv[i] * s[i] : s[i];
    csr_matvec(A, sh, t);
    double ts = 0.0, tt = 0.0;
    for (int64_t i = 0; i < n; i++) {
      ts += t[i] * s[i];
      tt += t[i] * t[i];
    }
    double omega = ts / tt, rho2 = 0.0;
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * ph[i] + omega * sh[i];
      r[i] = s[i] - omega * t[i];
      rho2 += rh[i] * r[i];
    }
    hist[it + 1] = norm2(r, n);
    double beta = rho2 / rho * alpha / omega;
    rho = rho2;
    for (int64_t i = 0; i < n; i++)
      p[i] = r[i] + beta * (p[i] - omega * v[i]);
  }
  free(r);
  free(rh);
  free(p);
  free(ph);
  free(v);
  free(s);
  free(sh);
  free(t);
}

static void test_bicgstab(sps_context *ctx, const char *tag)
{
  const int64_t n = 300;
  const int k = 8;
  csr A = make_convdiff(n, 41);
  double *b = xmalloc((size_t)n * sizeof(double)), *dinv = xmalloc((size_t)n * sizeof(double));
  double *x = xmalloc((size_t)n * sizeof(double)), *xref = xmalloc((size_t)n * sizeof(double));
  double hist[k + 1], hh[k + 1];
  random_vector(b, n, 42);
  for (int64_t i = 0; i < n; i++)
    for (int64_t q = A.rowptr[i]; q < A.rowptr[i + 1]; q++)
      if (A.colind[q] == i) dinv[i] = 1.0 / A.val[q];
  bs B;
  bs_init(&B, ctx, n, 100);
  bs_solve(&B, &A, dinv, b, 0.0, k);
  get(ctx, x, B.x, (size_t)n * sizeof(double));
  /* history[0] is the host's to write (the solver's ||r_0||): the steps write 1..k */
  hh[0] = NAN;
  get(ctx, hh + 1, B.hist + 1, (size_t)k * sizeof(double));
  reference_bicgstab(&A, dinv, b, k, xref, hist);
  double dx = max_abs_diff(x, xref, n) / max_abs(xref, n), dh = 0.0;
  for (int i = 1; i <= k; i++)
    dh = fmax(dh, fabs(hh[i] - hist[i]) / hist[i]);
  sps_ok(B.h.status == SPS_BICGSTAB_RUNNING && B.h.it == k && dx <= 1e-11 && dh <= 1e-9,
         "%s bicgstab: %d Jacobi-preconditioned steps equal a plain loop (x %.2e, ||r|| %.2e "
         "relative)",
         tag, k, dx, dh);
  bs_free(&B);

  bs_init(&B, ctx, n, 200);
  double tol = 1e-10 * norm2(b, n);
  bs_solve(&B, &A, dinv, b, tol, 200);
  get(ctx, x, B.x, (size_t)n * sizeof(double));
  double rt = true_residual(&A, b, x);
  sps_ok(B.h.status == SPS_BICGSTAB_CONVERGED && rt <= 2.0 * tol,
         "%s bicgstab: CONVERGED in %d iterations, true residual %.2e <= 2 tol", tag, B.h.it, rt);
  bs_free(&B);

  bs_init(&B, ctx, n, 3);
  bs_solve(&B, &A, NULL, b, 0.0, 10);
  sps_ok(B.h.status == SPS_BICGSTAB_MAX_ITERATIONS && B.h.it == 3,
         "%s bicgstab: MAX_ITERATIONS at maxit = 3", tag);
  bs_free(&B);

  /* A = I: s = 0 after the first half step, x = b */
  csr I = make_identity(n);
  bs_init(&B, ctx, n, 10);
  bs_solve(&B, &I, NULL, b, 1e-12, 10);
  get(ctx, x, B.x, (size_t)n * sizeof(double));
  sps_ok(B.h.status == SPS_BICGSTAB_CONVERGED && B.h.half == 1 && B.h.it == 1 &&
             max_abs_diff(x, b, n) <= 1e-15,
         "%s bicgstab: early exit at the half step on A = I: x = alpha phat = b", tag);
  bs_free(&B);
  csr_free(&I);

  /* skew A with r0hat = r0: (r0hat, A r0) = 0 */
  csr K = make_skew(n);
  bs_init(&B, ctx, n, 10);
  bs_solve(&B, &K, NULL, b, 0.0, 10);
  sps_ok(B.h.status == SPS_BICGSTAB_BREAKDOWN && B.h.it == 0 && B.h.sigma == 0.0,
         "%s bicgstab: (r0hat, v) = 0 is BREAKDOWN", tag);
  bs_free(&B);
  csr_free(&K);

  /* Step B by hand on 4 entries: t orthogonal to s gives omega = 0 */
  {
    const double e0[4] = {1, 0, 0, 0}, e1[4] = {0, 1, 0, 0}, ones[4] = {1, 1, 1, 1};
    const double s01[4] = {1, 1, 0, 0};
    double hx[4], hr[4];
    bs_init(&B, ctx, 4, 10);
    B.h.rho = 1.0;
    B.h.alpha = 0.5;
    B.h.tol2 = 1e-30;
    put(ctx, B.S, &B.h, sizeof B.h);
    put(ctx, B.s, e0, sizeof e0);
    put(ctx, B.t, e1, sizeof e1);
    put(ctx, B.phat, ones, sizeof ones);
    put(ctx, B.shat, ones, sizeof ones);
    put(ctx, B.r0hat, ones, sizeof ones);
    must(ctx, ctx->be->bicgstab_step_b(ctx, 4, B.t, B.s, B.phat, B.shat, B.r0hat, B.x, B.r, B.S),
         "b");
    get(ctx, &B.h, B.S, sizeof B.h);
    get(ctx, hx, B.x, sizeof hx);
    get(ctx, hr, B.r, sizeof hr);
    sps_ok(B.h.status == SPS_BICGSTAB_BREAKDOWN && B.h.omega == 0.0 && B.h.it == 1 &&
               hx[0] == 0.5 && hx[3] == 0.5 && hr[0] == 1.0 && hr[1] == 0.0,
           "%s bicgstab: (t, s) = 0 gives omega = 0, x += alpha phat, r = s, BREAKDOWN", tag);
    /* rho_new = 0: s = e0 + e1, t = e0, so omega = 1, r = e1, r0hat = e0 */
    B.h.status = SPS_BICGSTAB_RUNNING;
    B.h.it = 0;
    put(ctx, B.S, &B.h, sizeof B.h);
    put(ctx, B.s, s01, sizeof s01);
    put(ctx, B.t, e0, sizeof e0);
    put(ctx, B.r0hat, e0, sizeof e0);
    must(ctx, ctx->be->bicgstab_step_b(ctx, 4, B.t, B.s, B.phat, B.shat, B.r0hat, B.x, B.r, B.S),
         "b");
    get(ctx, &B.h, B.S, sizeof B.h);
    get(ctx, hr, B.r, sizeof hr);
    sps_ok(B.h.status == SPS_BICGSTAB_BREAKDOWN && B.h.omega == 1.0 && hr[0] == 0.0 &&
               hr[1] == 1.0 && B.h.rr == 1.0,
           "%s bicgstab: rho_new = (r0hat, r) = 0 is BREAKDOWN", tag);
    /* direction: p = r + beta (p - omega v) */
    const double pv[4] = {1, 2, 3, 4}, vv[4] = {4, 3, 2, 1}, rv[4] = {1, -1, 1, -1};
    double hp[4];
    B.h.status = SPS_BICGSTAB_RUNNING;
    B.h.beta = 0.5;
    B.h.omega = 2.0;
    put(ctx, B.S, &B.h, sizeof B.h);
    put(ctx, B.p, pv, sizeof pv);
    put(ctx, B.v, vv, sizeof vv);
    put(ctx, B.r, rv, sizeof rv);
    must(ctx, ctx->be->bicgstab_direction(ctx, 4, B.r, B.v, B.p, B.S), "direction");
    get(ctx, hp, B.p, sizeof hp);
    sps_ok(hp[0] == 1 + 0.5 * (1 - 8) && hp[1] == -1 + 0.5 * (2 - 6) &&
               hp[2] == 1 + 0.5 * (3 - 4) && hp[3] == -1 + 0.5 * (4 - 2),
           "%s bicgstab: direction p = r + beta (p - omega v)", tag);
    /* NaN in v stops at step A */
    const double nanv[4] = {NAN, 1, 1, 1};
    put(ctx, B.v, nanv, sizeof nanv);
    must(ctx, ctx->be->bicgstab_step_a(ctx, 4, B.r0hat, B.v, B.r, B.s, B.S), "a");
    get(ctx, &B.h, B.S, sizeof B.h);
    sps_ok(B.h.status == SPS_BICGSTAB_NAN, "%s bicgstab: NaN in v is NAN at step A", tag);
    bs_free(&B);
  }
  free(b);
  free(dinv);
  free(x);
  free(xref);
  csr_free(&A);
}

/*
 * CUDA against CPU on the same inputs. n = 20001 takes the four-kernel Arnoldi step with many
 * blocks; n = 3000 takes the one-cluster step on sm_90 and later (n <= 16384, m <= 64).
 */
static void test_cuda_vs_cpu(sps_context *cpu, sps_context *gpu, int64_t n)
{
  const int m = 30;
  csr A = make_convdiff(n, 51);
  double *r0 = xmalloc((size_t)n * sizeof(double));
  random_vector(r0, n, 52);
  gm G[2];
  sps_context *ctx[2] = {cpu, gpu};
  for (int q = 0; q < 2; q++) {
    gm_init(&G[q], ctx[q], n, m, 200, 0.0);
    gm_start(&G[q], r0);
    gm_run(&G[q], &A, m + 2);
    gm_update(&G[q]);
    gm_read_all(&G[q]);
  }
  const int64_t nh = (int64_t)(m + 1) * m;
  double dH = max_abs_diff(G[0].hH, G[1].hH, nh) / max_abs(G[0].hH, nh);
  double dR = max_abs_diff(G[0].hR, G[1].hR, nh) / max_abs(G[0].hR, nh);
  double dg = max_abs_diff(G[0].hg, G[1].hg, m + 1) / G[0].s.beta;
  double dy = max_abs_diff(G[0].hy, G[1].hy, m) / max_abs(G[0].hy, m);
  double du = max_abs_diff(G[0].hu, G[1].hu, n) / max_abs(G[0].hu, n);
  double dV = max_abs_diff(G[0].hV, G[1].hV, n * (m + 1));
  sps_ok(G[1].s.status == G[0].s.status && G[1].s.it == G[0].s.it && G[1].s.j == G[0].s.j,
         "cuda gmres n = %lld: same status %d, it %d, j %d as the CPU", (long long)n, G[1].s.status,
         G[1].s.it, G[1].s.j);
  sps_ok(dH <= 1e-12 && dR <= 1e-12 && dg <= 1e-12 && dy <= 1e-10 && du <= 1e-10 && dV <= 1e-12,
         "cuda gmres n = %lld: H %.1e, R %.1e, g %.1e, y %.1e, u %.1e, V %.1e relative to the "
         "CPU's (<= 1e-12, 1e-10 for y and u)",
         (long long)n, dH, dR, dg, dy, du, dV);

  /* The same cycle with one inner iteration captured as a graph (SpMV + Arnoldi) and replayed. */
  sps_matrix *M = NULL;
  sps_spmv_plan *plan = NULL;
  must(gpu, sps_matrix_create_csr(gpu, &M, n, n, A.rowptr, A.colind, A.val), "matrix");
  must(gpu, sps_spmv_plan_create(gpu, &plan, M, SPS_SPMV_CSR_SCALAR), "plan");
  must(gpu, sps_spmv_plan_setup(plan), "plan setup");
  gm Gg;
  gm_init(&Gg, gpu, n, m, 200, 0.0);
  gm_start(&Gg, r0);
  const sps_backend *be = gpu->be;
  void *graph = NULL;
  must(gpu, be->graph_begin(gpu), "graph_begin");
  must(gpu, sps_spmv_apply_raw(plan, 1.0, Gg.vcur, 0.0, Gg.w), "spmv");
  must(gpu, be->gmres_arnoldi(gpu, n, m, Gg.V, n, Gg.w, Gg.vcur, Gg.S), "arnoldi");
  must(gpu, be->graph_end(gpu, &graph), "graph_end");
  for (int k = 0; k < m + 4; k++)
    must(gpu, be->graph_launch(gpu, graph), "graph_launch");
  be->graph_destroy(gpu, graph);
  gm_update(&Gg);
  gm_read_all(&Gg);
  double gdH = max_abs_diff(G[0].hH, Gg.hH, nh) / max_abs(G[0].hH, nh);
  double gdu = max_abs_diff(G[0].hu, Gg.hu, n) / max_abs(G[0].hu, n);
  sps_ok(Gg.s.status == SPS_GMRES_CYCLE_END && Gg.s.it == m && gdH <= 1e-12 && gdu <= 1e-10,
         "cuda gmres n = %lld: %d replays of one captured inner iteration give the CPU cycle "
         "(it %d, H %.1e, u %.1e)",
         (long long)n, m + 4, Gg.s.it, gdH, gdu);
  gm_free(&Gg);
  sps_spmv_plan_destroy(&plan);
  sps_matrix_destroy(&M);
  for (int q = 0; q < 2; q++)
    gm_free(&G[q]);

  /* BiCGSTAB: 10 steps on both */
  double *b = r0, *x[2];
  bs B[2];
  for (int q = 0; q < 2; q++) {
    x[q] = xmalloc((size_t)n * sizeof(double));
    bs_init(&B[q], ctx[q], n, 100);
    bs_solve(&B[q], &A, NULL, b, 0.0, 10);
    get(ctx[q], x[q], B[q].x, (size_t)n * sizeof(double));
  }
  double dx = max_abs_diff(x[0], x[1], n) / max_abs(x[0], n);
  double drho = fabs(B[0].h.rho - B[1].h.rho) / fabs(B[0].h.rho);
  double drr = fabs(B[0].h.rr - B[1].h.rr) / B[0].h.rr;
  sps_ok(B[1].h.status == B[0].h.status && B[1].h.it == B[0].h.it && dx <= 1e-11 && drho <= 1e-9 &&
             drr <= 1e-9,
         "cuda bicgstab n = %lld: 10 steps match the CPU (x %.1e, rho %.1e, rr %.1e)", (long long)n,
         dx, drho, drr);
  for (int q = 0; q < 2; q++) {
    bs_free(&B[q]);
    free(x[q]);
  }
  free(r0);
  csr_free(&A);
}

/*
 * Flexible GMRES: one cycle whose preconditioner changes at every step, z_j = d_j .* v_j with a
 * different diagonal d_j each time, stored by gmres_store_z into Z(:, j). Checks that each z_j
 * lands, exactly, in column j (j read from the state), that a store after the cycle ended
 * changes nothing, and that gmres_update with Z for V gives u = Z_k y with
 * ||r0 - A u|| = |g_k| (the flexible Arnoldi relation A Z_k = V_{k+1} H_k) to 1e-10.
 */
static void test_gmres_store_z(sps_context *ctx, const char *tag)
{
  const int64_t n = 1001;
  const int m = 5;
  const size_t bytes = (size_t)n * sizeof(double);
  csr A = make_convdiff(n, 41);
  double *r0 = xmalloc(bytes), *v = xmalloc(bytes), *w = xmalloc(bytes);
  double *hZ = xmalloc(bytes * (size_t)m), *dZ = xmalloc(bytes * (size_t)m);
  gm G;
  gm_init(&G, ctx, n, m, 100, 0.0);
  double *Z = dev_alloc(ctx, bytes * (size_t)m), *z = dev_alloc(ctx, bytes);
  must(ctx, ctx->be->fill(ctx, n * m, -5.0, Z), "fill Z");
  for (int64_t i = 0; i < n * m; i++)
    hZ[i] = -5.0;
  random_vector(r0, n, 42);
  gm_start(&G, r0);
  int steps = 0;
  for (gm_read_state(&G); G.s.status == SPS_GMRES_RUNNING && steps < m; gm_read_state(&G)) {
    const int j = G.s.j;
    get(ctx, v, G.vcur, bytes);
    /* z_j = d_j .* v_j, d_j(i) = (1 + 0.4 sin(3 j + i)) / 4 (4 about the diagonal of A) */
    for (int64_t i = 0; i < n; i++)
      hZ[(int64_t)j * n + i] = v[i] * (1.0 + 0.4 * sin(3.0 * j + (double)i)) / 4.0;
    put(ctx, z, hZ + (int64_t)j * n, bytes);
    must(ctx, ctx->be->gmres_store_z(ctx, n, z, Z, n, G.S), "gmres_store_z");
    csr_matvec(&A, hZ + (int64_t)j * n, w);
    put(ctx, G.w, w, bytes);
    must(ctx, ctx->be->gmres_arnoldi(ctx, n, m, G.V, n, G.w, G.vcur, G.S), "gmres_arnoldi");
    steps++;
  }
  get(ctx, dZ, Z, bytes * (size_t)m);
  const double dz = max_abs_diff(dZ, hZ, n * m);
  sps_ok(G.s.status == SPS_GMRES_CYCLE_END && G.s.j == m && dz == 0.0,
         "%s gmres_store_z: %d steps, each z_j in column j of Z exactly (max diff %.1e)", tag,
         steps, dz);
  must(ctx, ctx->be->fill(ctx, n, 99.0, z), "fill z");
  must(ctx, ctx->be->gmres_store_z(ctx, n, z, Z, n, G.S), "gmres_store_z");
  get(ctx, dZ, Z, bytes * (size_t)m);
  sps_ok(max_abs_diff(dZ, hZ, n * m) == 0.0,
         "%s gmres_store_z: a store after the cycle ended leaves Z alone", tag);
  must(ctx, ctx->be->gmres_update(ctx, n, m, Z, n, G.S, G.u), "gmres_update");
  gm_read_all(&G);
  const double tr = true_residual(&A, r0, G.hu);
  sps_ok(fabs(tr - G.s.resid) <= 1e-10 * norm2(r0, n) && G.s.resid < norm2(r0, n),
         "%s flexible cycle: ||r0 - A Z_k y|| = %.6g, |g_k| = %.6g (||r0|| %.4g)", tag, tr,
         G.s.resid, norm2(r0, n));
  ctx->be->free(ctx, Z);
  ctx->be->free(ctx, z);
  gm_free(&G);
  free(r0);
  free(v);
  free(w);
  free(hZ);
  free(dZ);
  csr_free(&A);
}

/* Host copies of two GMRES runs equal bit for bit: state, H, R, g, the history so far and the
 * basis vectors written (V(:, 0:j); later columns hold what the allocation left). */
static int gm_same_bits(const gm *a, const gm *b)
{
  const size_t ldh = (size_t)a->m + 1, d = sizeof(double);
  return a->s.status == b->s.status && a->s.it == b->s.it && a->s.j == b->s.j &&
         memcmp(&a->s.resid, &b->s.resid, d) == 0 && memcmp(&a->s.hnext, &b->s.hnext, d) == 0 &&
         memcmp(a->hH, b->hH, ldh * (size_t)a->m * d) == 0 &&
         memcmp(a->hR, b->hR, ldh * (size_t)a->m * d) == 0 && memcmp(a->hg, b->hg, ldh * d) == 0 &&
         memcmp(a->hV, b->hV, (size_t)a->n * (size_t)(a->s.j + 1) * d) == 0 &&
         memcmp(a->hhist, b->hhist, (size_t)(a->s.it + 1) * d) == 0;
}

/*
 * The fused cycle (gmres_fused: the SpMV inside the backend's steps) against the CPU's SpMV
 * (csr-scalar, compensated sums) and gmres_arnoldi, to the bit: a cycle of m = 30 issued in runs
 * of 1, 7 and 100 inner iterations (so x comes both from V, on a run's first step, and from
 * the previous step's w), a second cycle from the true residual in one run (which must stop
 * at CYCLE_END), and, with tol > 0, a stop on the tolerance inside a run at the CPU's
 * iteration. The matrix has long rows (the warp's path), rows of 32 and 33 entries and empty
 * rows.
 */
static void test_gmres_fused(sps_context *cpu, sps_context *gpu, int64_t n)
{
  const int m = 30;
  const sps_backend *be = gpu->be;
  csr A = make_longrows(n, 61);
  const size_t bytes = (size_t)n * sizeof(double);
  double *r0 = xmalloc(bytes), *r1 = xmalloc(bytes), *au = xmalloc(bytes);
  random_vector(r0, n, 62);
  sps_matrix *Mc = NULL, *Mg = NULL;
  sps_spmv_plan *plan = NULL;
  must(cpu, sps_matrix_create_csr(cpu, &Mc, n, n, A.rowptr, A.colind, A.val), "matrix (cpu)");
  must(gpu, sps_matrix_create_csr(gpu, &Mg, n, n, A.rowptr, A.colind, A.val), "matrix (cuda)");
  must(cpu, sps_spmv_plan_create(cpu, &plan, Mc, SPS_SPMV_CSR_SCALAR), "plan");
  must(cpu, sps_spmv_plan_setup(plan), "plan setup");
  if (!sps_ok(be->gmres_fused_fits(gpu, Mg, m), "cuda gmres_fused runs n = %lld, m = %d",
              (long long)n, m))
    goto done;
  double tol_stop = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    /* pass 0: tol 0, two whole cycles; pass 1: tol = pass 0's estimate at iteration 12, so the
     * run of 7 from iteration 1 stops at 8 and the next run stops inside at 12 */
    const double tol = pass == 0 ? 0.0 : tol_stop;
    gm C, G;
    gm_init(&C, cpu, n, m, 200, tol);
    gm_init(&G, gpu, n, m, 200, tol);
    /* the CPU as the unfused solver issues it: the compensated csr-scalar SpMV, then arnoldi */
    C.plan = plan;
    gm_start(&C, r0);
    gm_start(&G, r0);
    gm_run(&C, NULL, m + 5);
    const int runs[3] = {1, 7, 100};
    int launches = 0;
    for (int q = 0; q < 3; q++) {
      gm_read_state(&G);
      if (G.s.status != SPS_GMRES_RUNNING) break;
      must(gpu, be->gmres_fused(gpu, Mg, m, G.V, n, G.w, G.S, runs[q]), "gmres_fused");
      launches++;
    }
    gm_update(&C);
    gm_update(&G);
    gm_read_all(&C);
    gm_read_all(&G);
    const double du = max_abs_diff(C.hu, G.hu, n) / max_abs(C.hu, n);
    if (pass == 0) {
      tol_stop = C.hhist[12];
      sps_ok(C.s.status == SPS_GMRES_CYCLE_END && gm_same_bits(&C, &G) && du <= 1e-12,
             "cuda gmres_fused n = %lld: a cycle in %d runs (1, 7, rest) equals the CPU's SpMV + "
             "arnoldi to the bit (status %d/%d, it %d/%d; u within %.1e)",
             (long long)n, launches, G.s.status, C.s.status, G.s.it, C.s.it, du);
      /* The second cycle from r1 = r0 - A u (the CPU's u for both), in one run. */
      csr_matvec(&A, C.hu, au);
      for (int64_t i = 0; i < n; i++)
        r1[i] = r0[i] - au[i];
      gm_start(&C, r1);
      gm_start(&G, r1);
      gm_run(&C, NULL, m + 5);
      must(gpu, be->gmres_fused(gpu, Mg, m, G.V, n, G.w, G.S, m + 5), "gmres_fused");
      gm_read_all(&C);
      gm_read_all(&G);
      sps_ok(G.s.status == SPS_GMRES_CYCLE_END && G.s.j == m && G.s.it == 2 * m &&
                 gm_same_bits(&C, &G),
             "cuda gmres_fused n = %lld: a second cycle in one run of %d stops at CYCLE_END "
             "(j %d, it %d) and equals the CPU's to the bit",
             (long long)n, m + 5, G.s.j, G.s.it);
      /* A run after the cycle ended changes nothing. */
      must(gpu, be->gmres_fused(gpu, Mg, m, G.V, n, G.w, G.S, 3), "gmres_fused");
      gm_read_all(&G);
      sps_ok(gm_same_bits(&C, &G), "cuda gmres_fused n = %lld: a run after CYCLE_END is a no-op",
             (long long)n);
    } else {
      sps_ok(C.s.status == SPS_GMRES_CONVERGED && C.s.it == 12 && gm_same_bits(&C, &G) &&
                 du <= 1e-12,
             "cuda gmres_fused n = %lld: CONVERGED inside a run at the CPU's iteration "
             "(it %d/%d) with the same bits",
             (long long)n, G.s.it, C.s.it);
    }
    gm_free(&C);
    gm_free(&G);
  }
done:
  sps_spmv_plan_destroy(&plan);
  sps_matrix_destroy(&Mc);
  sps_matrix_destroy(&Mg);
  csr_free(&A);
  free(r0);
  free(r1);
  free(au);
}

/* Identity of order n with rows 0..dense-1 full (n entries each). */
static csr make_dense_rows(int64_t n, int64_t dense)
{
  const int64_t nnz = n + dense * (n - 1);
  csr A = {n, xmalloc((size_t)(n + 1) * sizeof(int64_t)), xmalloc((size_t)nnz * sizeof(int32_t)),
           xmalloc((size_t)nnz * sizeof(double))};
  int64_t k = 0;
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t c = 0; c < n; c++)
      if (c == i || i < dense) {
        A.colind[k] = (int32_t)c;
        A.val[k++] = c == i ? 1.0 : 1e-3;
      }
    A.rowptr[i + 1] = k;
  }
  return A;
}

/*
 * Where gmres_fused does not apply: n above one cluster's rows, m above its limit, long rows
 * of one block cut into more segments than its list holds (5 full rows of 16384 entries: 1280
 * segments of 64 against 1024; 4 full rows fit), a CPU context.
 */
static void test_gmres_fused_limits(sps_context *cpu, sps_context *gpu)
{
  csr A = make_convdiff(16385, 71), As = make_convdiff(16384, 72);
  csr D9 = make_dense_rows(16384, 5), D8 = make_dense_rows(16384, 4);
  sps_matrix *M = NULL, *Ms = NULL, *M9 = NULL, *M8 = NULL;
  must(gpu, sps_matrix_create_csr(gpu, &M, A.n, A.n, A.rowptr, A.colind, A.val), "matrix");
  must(gpu, sps_matrix_create_csr(gpu, &Ms, As.n, As.n, As.rowptr, As.colind, As.val), "matrix");
  must(gpu, sps_matrix_create_csr(gpu, &M9, D9.n, D9.n, D9.rowptr, D9.colind, D9.val), "matrix");
  must(gpu, sps_matrix_create_csr(gpu, &M8, D8.n, D8.n, D8.rowptr, D8.colind, D8.val), "matrix");
  sps_ok(!gpu->be->gmres_fused_fits(gpu, M, 30) && !gpu->be->gmres_fused_fits(gpu, Ms, 65) &&
             gpu->be->gmres_fused_fits(gpu, Ms, 64) && !cpu->be->gmres_fused &&
             !cpu->be->gmres_fused_fits,
         "gmres_fused: refused for n = 16385 or m = 65, taken for n = 16384 and m = 64, absent on "
         "the CPU");
  sps_ok(!gpu->be->gmres_fused_fits(gpu, M9, 30) && gpu->be->gmres_fused_fits(gpu, M8, 30),
         "gmres_fused: refused with 5 full rows in one block (1280 segments), taken with 4");
  sps_matrix_destroy(&M);
  sps_matrix_destroy(&Ms);
  sps_matrix_destroy(&M9);
  sps_matrix_destroy(&M8);
  csr_free(&A);
  csr_free(&As);
  csr_free(&D9);
  csr_free(&D8);
}

/* The groups of checks, by name: `krylov_steps [GROUP...]` runs only those named (all without
 * arguments), so that a slow tool (racecheck) can run the groups side by side in separate
 * processes. The cuda_* groups exist only with SPS_TEST_DEVICE=cuda. */
static const char *const group_names[] = {
    "cycle",       "happy",      "edges",      "store_z",     "bicgstab",
    "cuda_vs_cpu", "fused_1000", "fused_5003", "fused_16384", "fused_limits",
};
enum { NGROUPS = sizeof group_names / sizeof group_names[0] };
static int group_on[NGROUPS];

static int on(const char *name)
{
  for (int g = 0; g < NGROUPS; g++)
    if (strcmp(group_names[g], name) == 0) return group_on[g];
  sps_bail("krylov_steps: unknown group %s", name);
  return 0;
}

static void run_all(sps_context *ctx, const char *tag)
{
  const sps_backend *be = ctx->be;
  if (!be->gmres_start || !be->gmres_arnoldi || !be->gmres_update || !be->gmres_workspace ||
      !be->bicgstab_step_a || !be->bicgstab_step_b || !be->bicgstab_direction)
    sps_bail("%s backend lacks the GMRES or BiCGSTAB steps", tag);
  if (on("cycle")) test_gmres_cycle(ctx, tag); /* three cases of its own */
  if (on("happy") && sps_case()) test_gmres_happy(ctx, tag);
  if (on("edges") && sps_case()) test_gmres_edges(ctx, tag);
  if (on("store_z") && ctx->be->gmres_store_z && sps_case()) test_gmres_store_z(ctx, tag);
  if (on("bicgstab") && sps_case()) test_bicgstab(ctx, tag);
}

int main(int argc, char **argv)
{
  for (int g = 0; g < NGROUPS; g++)
    group_on[g] = argc == 1;
  for (int a = 1; a < argc; a++) {
    int known = 0;
    for (int g = 0; g < NGROUPS; g++)
      if (strcmp(argv[a], group_names[g]) == 0) known = group_on[g] = 1;
    if (!known) {
      fprintf(stderr, "krylov_steps: no group '%s'; the groups are:", argv[a]);
      for (int g = 0; g < NGROUPS; g++)
        fprintf(stderr, " %s", group_names[g]);
      fprintf(stderr, "\n");
      return 99;
    }
  }
  const char *dev = getenv("SPS_TEST_DEVICE");
  if (!dev || strcmp(dev, "cuda") != 0) {
    /* The CPU backend's steps against the plain references. */
    sps_context *cpu = NULL;
    if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
      sps_bail("CPU context: %s", sps_context_create_error());
    run_all(cpu, "cpu");
    sps_context_destroy(&cpu);
    return sps_done();
  }
  /* The CUDA backend's steps against the same references, then against the CPU backend's
   * (skips the whole program, 77, without CUDA or a GPU). */
  sps_context *gpu = sps_test_cuda_context_or_skip(), *cpu = NULL;
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  run_all(gpu, "cuda");
  if (on("cuda_vs_cpu")) {
    if (sps_case()) test_cuda_vs_cpu(cpu, gpu, 20001);
    if (sps_case()) test_cuda_vs_cpu(cpu, gpu, 3000);
  }
  /* The fused cycle needs thread-block clusters: sm_90 and later. */
  char name[256] = "";
  const char *sm = NULL;
  if (sps_context_get_device_name(gpu, name, sizeof name) == SPS_SUCCESS) sm = strstr(name, "sm_");
  /* SPSOLVE_GMRES_CLUSTER=0 (the diagnostic switch of core/backend_cuda.c, for tools slow on
   * clusters) turns the cluster kernels off: the fused cycle is then refused, as it should be. */
  const char *cluster_env = getenv("SPSOLVE_GMRES_CLUSTER");
  if (!sm || atoi(sm + 3) < 90) {
    if (sps_case())
      sps_skip("cuda gmres_fused: device %s has no thread-block clusters (sm_90 and later)", name);
  } else if (cluster_env && strcmp(cluster_env, "0") == 0) {
    if (sps_case()) {
      csr A = make_convdiff(1000, 71);
      sps_matrix *M = NULL;
      must(gpu, sps_matrix_create_csr(gpu, &M, A.n, A.n, A.rowptr, A.colind, A.val), "matrix");
      sps_ok(!gpu->be->gmres_fused_fits(gpu, M, 30),
             "gmres_fused: refused everywhere with SPSOLVE_GMRES_CLUSTER=0 (the fused groups skip)");
      sps_matrix_destroy(&M);
      csr_free(&A);
    }
  } else {
    if (on("fused_1000") && sps_case()) test_gmres_fused(cpu, gpu, 1000);
    if (on("fused_5003") && sps_case()) test_gmres_fused(cpu, gpu, 5003);
    if (on("fused_16384") && sps_case()) test_gmres_fused(cpu, gpu, 16384);
    if (on("fused_limits") && sps_case()) test_gmres_fused_limits(cpu, gpu);
  }
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}
