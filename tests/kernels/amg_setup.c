/* amg_setup.c: the multigrid setup's steps (precond/ref/amg_level.c, amg_classical.c, mcgs.c and the transpose) and the smoother's fused updates (amg_smooth.c) against their definitions; built once for the CPU and once (SPS_TEST_GPU) to hold each CUDA kernel to its CPU reference, element for element and bit for bit.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each step (level, classical with a theta, colouring)
 * on each matrix is a case, and each Chebyshev size and start, and each Lanczos size; the matrices are made (and the
 * random ones drawn) in every shard, but a shared matrix is read only by a shard with its cases. */

#include "../../precond/aggregate.h"
#include "../../precond/amg_step.h"
#include "../testlib.h"

/*
 * Each matrix (1-D and 2-D Laplacians, an anisotropic one, the Neumann Laplacian, a random
 * symmetric matrix of mixed signs with a dense row, a random nonsymmetric one, empty rows,
 * n = 1, the bundled matrices, and with SPS_MATRICES in the GPU build the large shared ones)
 * goes through the setup's steps in the order the hierarchy runs them, each step on the host
 * by the reference and, given the same inputs, on the context under test by AMG_STEP (the
 * CUDA kernel in the GPU build), and the outputs must be equal byte for byte:
 *   level       diag_count/fill (scale -1), smoother_diag (plain and l1), random, filter;
 *   transpose   with values and pattern only (amg_csr_transpose);
 *   classical   strength (theta 0.25 and 0.5, max_row_sum 0.9 and 1), PMIS (init, then each
 *               round's select and update), cflags, split, the product M2 M1 (sps_spgemm),
 *               interp, trunc (interp_max 0, 2 and 4; trunc 0 and 0.2; C rows injected);
 *   aggregation tent_count/fill, row_norms, tent_scale, sa_smooth, trunc with a weight;
 *   Gauss-Seidel colour rounds, colour count, order, and a sweep of each colour (1, 2, 4, 8,
 *               16 and 32 lanes a row: every width of the kernel);
 *   smoother    the Chebyshev smoother's fused updates (check_cheby: also against the separate
 *               operations they replace);
 *   Lanczos     the spectral estimate's steps with their scalars in memory (check_lanczos: also
 *               against the operations they replace, and dot_store and sumsq_store).
 * On the CPU the same run compares the reference with itself, so the CPU build checks instead
 * properties written here independently of the references: S is the set of the definition
 * (recomputed here with a plain loop over each row); the PMIS split leaves no row undecided,
 * every row that influences none is F, every other F row depends strongly on a C row, and for a
 * symmetric strength graph no C row depends on another; the colours are proper (no entry joins
 * two rows of one colour, in either direction) and `order` lists the rows colour by colour;
 * truncation keeps at most interp_max entries a row and the row's sum (w = 1); the transpose's
 * entries are the matrix's; and the splitmix draws of sps_amg_random_draw are
 * core/splitmix64.h's sequence.
 */

static sps_context *cpu;
static sps_context *dev; /* the context under test: the CPU, or CUDA in the GPU build */

/* An array on the host (the reference's) and its twin in the context under test. */
typedef struct buf {
  void *h, *d;
  size_t bytes;
} buf;

static buf mk(const void *host, size_t bytes)
{
  buf b = {NULL, NULL, bytes};
  const size_t nb = bytes > 0 ? bytes : 1;
  b.h = calloc(1, nb);
  if (!b.h || dev->be->malloc(dev, &b.d, nb, "test")) sps_bail("alloc");
  if (host && bytes) memcpy(b.h, host, bytes);
  if (bytes && dev->be->upload(dev, b.d, b.h, bytes)) sps_bail("upload");
  return b;
}

static void rm(buf *b)
{
  free(b->h);
  if (b->d) dev->be->free(dev, b->d);
  b->h = b->d = NULL;
}

/* The device copy equals the host copy, byte for byte. */
static int same(const buf *b)
{
  if (!b->bytes) return 1;
  void *t = malloc(b->bytes);
  if (!t || dev->be->download(dev, t, b->d, b->bytes)) sps_bail("download");
  const int eq = memcmp(t, b->h, b->bytes) == 0;
  free(t);
  return eq;
}

/* Copy the host version into the device one (inputs of the next step the same on both). */
static void sync_up(const buf *b)
{
  if (b->bytes && dev->be->upload(dev, b->d, b->h, b->bytes)) sps_bail("upload");
}

#define H(b, T) ((T *)(b).h)
#define D(b, T) ((T *)(b).d)
#define STEP(name, ...)                                                                            \
  do {                                                                                             \
    if (AMG_STEP(dev, name, __VA_ARGS__)) sps_bail("%s: %s", #name, sps_context_last_error(dev));  \
  } while (0)

/* Exclusive scan of n + 1 counts on the host; returns the total. */
static int64_t scan(int64_t *c, int64_t n)
{
  int64_t s = 0;
  for (int64_t i = 0; i <= n; i++) {
    const int64_t t = c[i];
    c[i] = s;
    s += t;
  }
  return c[n];
}

/* ---- test matrices (host, plain malloc) ---- */

typedef struct mat {
  int64_t n, nnz;
  int64_t *rp;
  int32_t *ci;
  double *v;
} mat;

static void mat_free(mat *A)
{
  free(A->rp);
  free(A->ci);
  free(A->v);
  memset(A, 0, sizeof *A);
}

/* From (row, col, value) triplets sorted by row then column. */
typedef struct trip {
  int64_t i, j;
  double v;
} trip;

static int cmp_trip(const void *a, const void *b)
{
  const trip *x = a, *y = b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

static mat from_trips(int64_t n, trip *t, int64_t nt)
{
  qsort(t, (size_t)nt, sizeof *t, cmp_trip);
  mat A = {n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc((size_t)(nt + 1) * sizeof(int32_t)),
           malloc((size_t)(nt + 1) * sizeof(double))};
  if (!A.rp || !A.ci || !A.v) sps_bail("alloc");
  for (int64_t k = 0; k < nt; k++) {
    if (A.nnz > 0 && t[k].i == t[k - 1].i && t[k].j == t[k - 1].j) {
      A.v[A.nnz - 1] += t[k].v;
      continue;
    }
    A.ci[A.nnz] = (int32_t)t[k].j;
    A.v[A.nnz++] = t[k].v;
    A.rp[t[k].i + 1]++;
  }
  for (int64_t i = 0; i < n; i++)
    A.rp[i + 1] += A.rp[i];
  return A;
}

/* 2-D 5-point operator on an N x N grid: Dirichlet (neumann 0) or Neumann (row sums 0),
 * -eps in y. */
static mat grid(int64_t N, double eps, int neumann)
{
  const int64_t n = N * N;
  trip *t = malloc((size_t)(5 * n) * sizeof *t);
  int64_t nt = 0;
  for (int64_t y = 0; y < N; y++)
    for (int64_t x = 0; x < N; x++) {
      const int64_t i = y * N + x;
      double d = 0.0;
      const int64_t nb[4] = {y > 0 ? i - N : -1, x > 0 ? i - 1 : -1, x + 1 < N ? i + 1 : -1,
                             y + 1 < N ? i + N : -1};
      const double w[4] = {eps, 1.0, 1.0, eps};
      for (int q = 0; q < 4; q++) {
        if (nb[q] >= 0) t[nt++] = (trip){i, nb[q], -w[q]};
        if (nb[q] >= 0 || !neumann) d += w[q];
      }
      t[nt++] = (trip){i, i, d};
    }
  mat A = from_trips(n, t, nt);
  free(t);
  return A;
}

/* Random, per_row entries a row of mixed signs and magnitudes over three decades, diagonal 4
 * plus the row's magnitudes; symmetric when sym; one dense row; rows `empty` left empty. */
static mat random_mat(int64_t n, int per_row, int sym, int64_t dense, int64_t empty, sps_rng *rng)
{
  trip *t = malloc((size_t)(n * (per_row * 2 + 3) + 4 * n) * sizeof *t);
  int64_t nt = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i == empty) continue;
    for (int q = 0; q < per_row; q++) {
      const int64_t j = (int64_t)(sps_rng_next(rng) % (uint64_t)n);
      if (j == i || j == empty) continue;
      const double mag = pow(10.0, -3.0 * sps_rng_uniform(rng) * 0.5 - 1.5);
      const double v = (sps_rng_next(rng) & 3) == 0 ? mag : -mag;
      t[nt++] = (trip){i, j, v};
      if (sym) t[nt++] = (trip){j, i, v};
    }
    if (i == dense)
      for (int64_t j = 0; j < n; j++)
        if (j != i && j != empty) {
          t[nt++] = (trip){i, j, -0.01};
          if (sym) t[nt++] = (trip){j, i, -0.01};
        }
    t[nt++] = (trip){i, i, 4.0};
  }
  mat A = from_trips(n, t, nt);
  free(t);
  return A;
}

static mat read_mat(const char *path)
{
  sps_matrix *M = NULL;
  if (sps_matrix_read_mm(cpu, &M, path, 0)) sps_bail("%s: %s", path, sps_context_last_error(cpu));
  int64_t n;
  const int64_t *rp;
  const int32_t *ci;
  const double *v;
  sps_test_csr(M, &n, &rp, &ci, &v);
  mat A = {n, rp[n], malloc((size_t)(n + 1) * sizeof(int64_t)),
           malloc((size_t)(rp[n] + 1) * sizeof(int32_t)),
           malloc((size_t)(rp[n] + 1) * sizeof(double))};
  memcpy(A.rp, rp, (size_t)(n + 1) * sizeof(int64_t));
  memcpy(A.ci, ci, (size_t)rp[n] * sizeof(int32_t));
  memcpy(A.v, v, (size_t)rp[n] * sizeof(double));
  sps_matrix_destroy(&M);
  return A;
}

/* ---- the checks ---- */

/* A CSR matrix as three bufs. */
typedef struct bmat {
  int64_t n, m, nnz;
  buf rp, ci, v;
} bmat;

static bmat bm(const mat *A)
{
  bmat B = {A->n,
            A->n,
            A->rp[A->n],
            mk(A->rp, (size_t)(A->n + 1) * sizeof(int64_t)),
            mk(A->ci, (size_t)A->rp[A->n] * sizeof(int32_t)),
            mk(A->v, (size_t)A->rp[A->n] * sizeof(double))};
  return B;
}

static void bm_free(bmat *B)
{
  rm(&B->rp);
  rm(&B->ci);
  rm(&B->v);
}

/* count (host and device, filled by a count step) -> scanned on both sides; returns nnz. */
static int64_t scan_both(buf *count, int64_t n)
{
  const int64_t total = scan(H(*count, int64_t), n);
  sync_up(count);
  return total;
}

/* T = M^T on both sides (the library's transpose on dev, the reference on the host). */
static bmat transpose_both(const char *name, const bmat *M, int values)
{
  amg_csr d = {
      M->n, M->m, M->nnz, D(M->rp, int64_t), D(M->ci, int32_t), values ? D(M->v, double) : NULL, 0};
  amg_csr t;
  if (amg_csr_transpose(dev, &d, &t, values))
    sps_bail("transpose: %s", sps_context_last_error(dev));
  bmat T = {M->m,
            M->n,
            M->nnz,
            mk(NULL, (size_t)(M->m + 1) * sizeof(int64_t)),
            mk(NULL, (size_t)M->nnz * sizeof(int32_t)),
            mk(NULL, (size_t)M->nnz * sizeof(double))};
  sps_ref_csr_transpose(M->n, M->m, H(M->rp, int64_t), H(M->ci, int32_t),
                        values ? H(M->v, double) : NULL, H(T.rp, int64_t), H(T.ci, int32_t),
                        values ? H(T.v, double) : NULL);
  /* the device's transpose against the reference, byte for byte */
  int ok = 1;
  int64_t *hr = malloc(T.rp.bytes);
  int32_t *hc = malloc(T.ci.bytes > 0 ? T.ci.bytes : 1);
  double *hv = malloc(T.v.bytes > 0 ? T.v.bytes : 1);
  dev->be->download(dev, hr, t.rp, T.rp.bytes);
  if (M->nnz) dev->be->download(dev, hc, t.ci, T.ci.bytes);
  if (M->nnz && values) dev->be->download(dev, hv, t.v, T.v.bytes);
  ok &= memcmp(hr, T.rp.h, T.rp.bytes) == 0 && (!M->nnz || memcmp(hc, T.ci.h, T.ci.bytes) == 0) &&
        (!M->nnz || !values || memcmp(hv, T.v.h, T.v.bytes) == 0);
  sps_ok(ok, "%s: transpose%s equals the reference", name, values ? "" : " (pattern)");
  /* property: every entry (i, j, v) of M is (j, i, v) of T */
  int prop = 1;
  for (int64_t i = 0; i < M->n && prop; i++)
    for (int64_t k = H(M->rp, int64_t)[i]; k < H(M->rp, int64_t)[i + 1] && prop; k++) {
      const int32_t j = H(M->ci, int32_t)[k];
      int found = 0;
      for (int64_t q = H(T.rp, int64_t)[j]; q < H(T.rp, int64_t)[j + 1]; q++)
        if (H(T.ci, int32_t)[q] == i) found = !values || H(T.v, double)[q] == H(M->v, double)[k];
      prop = found;
    }
  sps_ok(prop, "%s: the transpose holds each entry of M mirrored", name);
  free(hr);
  free(hc);
  free(hv);
  amg_csr_free(dev, &t);
  sync_up(&T.rp);
  sync_up(&T.ci);
  sync_up(&T.v);
  return T;
}

/* The product M2 M1 on both sides (sps_spgemm_device on dev; the reference on the host). */
static bmat product_both(const char *name, const bmat *A, const bmat *B)
{
  amg_csr a = {A->n, A->m, A->nnz, D(A->rp, int64_t), D(A->ci, int32_t), D(A->v, double), 0};
  amg_csr b = {B->n, B->m, B->nnz, D(B->rp, int64_t), D(B->ci, int32_t), D(B->v, double), 0};
  amg_csr c;
  if (amg_csr_product(dev, &a, &b, &c)) sps_bail("product: %s", sps_context_last_error(dev));
  int64_t *count = calloc((size_t)A->n + 1, sizeof *count),
          *mark = malloc((size_t)(B->m + 1) * sizeof *mark);
  sps_csum *acc = malloc((size_t)(B->m + 1) * sizeof *acc);
  sps_ref_spgemm_count(A->n, B->m, H(A->rp, int64_t), H(A->ci, int32_t), H(B->rp, int64_t),
                       H(B->ci, int32_t), mark, count);
  const int64_t nnz = scan(count, A->n);
  bmat C = {A->n,
            B->m,
            nnz,
            mk(NULL, (size_t)(A->n + 1) * sizeof(int64_t)),
            mk(NULL, (size_t)nnz * sizeof(int32_t)),
            mk(NULL, (size_t)nnz * sizeof(double))};
  memcpy(C.rp.h, count, (size_t)(A->n + 1) * sizeof(int64_t));
  sps_ref_spgemm_fill(A->n, B->m, H(A->rp, int64_t), H(A->ci, int32_t), H(A->v, double),
                      H(B->rp, int64_t), H(B->ci, int32_t), H(B->v, double), H(C.rp, int64_t), mark,
                      acc, H(C.ci, int32_t), H(C.v, double));
  int ok = c.nnz == nnz;
  if (ok) {
    int64_t *hr = malloc(C.rp.bytes);
    int32_t *hc = malloc(C.ci.bytes + 4);
    dev->be->download(dev, hr, c.rp, C.rp.bytes);
    if (nnz) dev->be->download(dev, hc, c.ci, C.ci.bytes);
    ok = memcmp(hr, C.rp.h, C.rp.bytes) == 0 && (!nnz || memcmp(hc, C.ci.h, C.ci.bytes) == 0);
    free(hr);
    free(hc);
  }
  sps_ok(ok, "%s: the interpolation sets' pattern (M2 M1, %lld entries) equals the reference", name,
         (long long)nnz);
  amg_csr_free(dev, &c);
  sync_up(&C.rp);
  sync_up(&C.ci);
  sync_up(&C.v);
  free(count);
  free(mark);
  free(acc);
  return C;
}

/* S by its definition, row by row (independent of the reference). */
static int strength_definition(const mat *A, double theta, double mrs, const int64_t *srp,
                               const int32_t *sci)
{
  for (int64_t i = 0; i < A->n; i++) {
    double a = 0.0, sum = 0.0, big = 0.0;
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
      sum += A->v[k];
      if (A->ci[k] == i) a = A->v[k];
    }
    const double s = a < 0.0 ? -1.0 : 1.0;
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
      if (A->ci[k] != i && -s * A->v[k] > big) big = -s * A->v[k];
    const int none = !(big > 0.0) || (mrs < 1.0 && fabs(sum) > mrs * fabs(a));
    int64_t at = srp[i];
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
      const int strong = !none && A->ci[k] != i && -s * A->v[k] > theta * big;
      if (strong && (at >= srp[i + 1] || sci[at++] != A->ci[k])) return 0;
    }
    if (at != srp[i + 1]) return 0;
  }
  return 1;
}

/* Row i of a sorted pattern holds j. */
static int holds(const int64_t *rp, const int32_t *ci, int64_t i, int64_t j)
{
  for (int64_t k = rp[i]; k < rp[i + 1]; k++)
    if (ci[k] == j) return 1;
  return 0;
}

/* The classical steps on one matrix; returns the F rows' interpolation sets and weights for
 * the truncation checks. */
static void check_classical(const char *name, const mat *A, double theta, double mrs)
{
  const int64_t n = A->n;
  char nm[160];
  snprintf(nm, sizeof nm, "%s, theta %g, max_row_sum %g", name, theta, mrs);
  bmat M = bm(A);
  /* strength */
  buf cnt = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
  sps_ref_cls_strength_count(n, H(M.rp, int64_t), H(M.ci, int32_t), H(M.v, double), theta, mrs,
                             H(cnt, int64_t));
  STEP(cls_strength_count, n, D(M.rp, int64_t), D(M.ci, int32_t), D(M.v, double), theta, mrs,
       D(cnt, int64_t));
  sps_ok(same(&cnt), "%s: strength counts", nm);
  const int64_t ns = scan_both(&cnt, n);
  bmat S = {n, n, ns, cnt, mk(NULL, (size_t)ns * sizeof(int32_t)), mk(NULL, 0)};
  sps_ref_cls_strength_fill(n, H(M.rp, int64_t), H(M.ci, int32_t), H(M.v, double), theta, mrs,
                            H(S.rp, int64_t), H(S.ci, int32_t));
  STEP(cls_strength_fill, n, D(M.rp, int64_t), D(M.ci, int32_t), D(M.v, double), theta, mrs,
       D(S.rp, int64_t), D(S.ci, int32_t));
  sps_ok(same(&S.ci), "%s: strong columns (%lld)", nm, (long long)ns);
  sps_ok(strength_definition(A, theta, mrs, H(S.rp, int64_t), H(S.ci, int32_t)),
         "%s: S is the definition's set", nm);
  bmat ST = transpose_both(nm, &S, 0);
  /* PMIS */
  buf key = mk(NULL, (size_t)n * sizeof(uint64_t)), newc = mk(NULL, (size_t)n);
  buf word = mk(NULL, sizeof(unsigned long long));
  sps_ref_cls_pmis_init(n, H(ST.rp, int64_t), H(key, uint64_t), H(word, unsigned long long));
  STEP(cls_pmis_init, n, D(ST.rp, int64_t), D(key, uint64_t), D(word, unsigned long long));
  int ok = same(&key) && same(&word);
  int rounds = 0;
  while (*H(word, unsigned long long) > 0 && rounds < 10000) {
    sps_ref_cls_pmis_select(n, H(S.rp, int64_t), H(S.ci, int32_t), H(ST.rp, int64_t),
                            H(ST.ci, int32_t), H(key, uint64_t), H(newc, unsigned char));
    STEP(cls_pmis_select, n, D(S.rp, int64_t), D(S.ci, int32_t), D(ST.rp, int64_t),
         D(ST.ci, int32_t), D(key, uint64_t), D(newc, unsigned char));
    ok &= same(&newc);
    sps_ref_cls_pmis_update(n, H(S.rp, int64_t), H(S.ci, int32_t), H(newc, unsigned char),
                            H(key, uint64_t), H(word, unsigned long long));
    STEP(cls_pmis_update, n, D(S.rp, int64_t), D(S.ci, int32_t), D(newc, unsigned char),
         D(key, uint64_t), D(word, unsigned long long));
    ok &= same(&key) && same(&word);
    sync_up(&key);
    rounds++;
  }
  sps_ok(ok, "%s: PMIS, %d rounds: every round's selection, states and count", nm, rounds);
  /* PMIS properties */
  const uint64_t *k = H(key, uint64_t);
  const int64_t *srp = H(S.rp, int64_t), *strp = H(ST.rp, int64_t);
  const int32_t *sci = H(S.ci, int32_t);
  int decided = 1, f_rule = 1, indep = 1, nc = 0, symmetric = 1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t q = srp[i]; q < srp[i + 1]; q++)
      symmetric &= holds(srp, sci, sci[q], i);
  for (int64_t i = 0; i < n; i++) {
    const unsigned st = sps_cls_state(k[i]);
    decided &= st != SPS_CLS_UNDECIDED;
    nc += st == SPS_CLS_C;
    if (strp[i + 1] == strp[i]) f_rule &= st == SPS_CLS_F;
    if (st == SPS_CLS_F && strp[i + 1] > strp[i]) {
      int hasc = 0;
      for (int64_t q = srp[i]; q < srp[i + 1]; q++)
        hasc |= sps_cls_state(k[sci[q]]) == SPS_CLS_C;
      f_rule &= hasc;
    }
    if (st == SPS_CLS_C && symmetric)
      for (int64_t q = srp[i]; q < srp[i + 1]; q++)
        indep &= sps_cls_state(k[sci[q]]) != SPS_CLS_C;
  }
  sps_ok(decided && f_rule && indep,
         "%s: PMIS split (%d C of %lld): all decided, F rows influence none or depend on a C row%s",
         nm, nc, (long long)n, symmetric ? ", C rows independent in S" : "");
  /* cflags and the coarse numbers */
  buf flag = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
  sps_ref_cls_cflags(n, H(key, uint64_t), H(flag, int64_t));
  STEP(cls_cflags, n, D(key, uint64_t), D(flag, int64_t));
  sps_ok(same(&flag), "%s: C flags", nm);
  buf cnum = mk(H(flag, int64_t), (size_t)(n + 1) * sizeof(int64_t));
  scan_both(&cnum, n);
  /* split */
  buf c2 = mk(NULL, (size_t)(n + 1) * sizeof(int64_t)),
      c1 = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
  sps_ref_cls_split_count(n, srp, sci, H(key, uint64_t), H(c2, int64_t), H(c1, int64_t));
  STEP(cls_split_count, n, D(S.rp, int64_t), D(S.ci, int32_t), D(key, uint64_t), D(c2, int64_t),
       D(c1, int64_t));
  ok = same(&c2) && same(&c1);
  const int64_t n2 = scan_both(&c2, n), n1 = scan_both(&c1, n);
  bmat M2 = {
      n, n, n2, c2, mk(NULL, (size_t)n2 * sizeof(int32_t)), mk(NULL, (size_t)n2 * sizeof(double))};
  bmat M1 = {
      n, n, n1, c1, mk(NULL, (size_t)n1 * sizeof(int32_t)), mk(NULL, (size_t)n1 * sizeof(double))};
  sps_ref_cls_split_fill(n, srp, sci, H(key, uint64_t), H(M2.rp, int64_t), H(M2.ci, int32_t),
                         H(M2.v, double), H(M1.rp, int64_t), H(M1.ci, int32_t), H(M1.v, double));
  STEP(cls_split_fill, n, D(S.rp, int64_t), D(S.ci, int32_t), D(key, uint64_t), D(M2.rp, int64_t),
       D(M2.ci, int32_t), D(M2.v, double), D(M1.rp, int64_t), D(M1.ci, int32_t), D(M1.v, double));
  ok &= same(&M2.ci) && same(&M2.v) && same(&M1.ci) && same(&M1.v);
  sps_ok(ok, "%s: the factors of the interpolation sets (%lld and %lld entries)", nm, (long long)n2,
         (long long)n1);
  bmat Ch = product_both(nm, &M2, &M1);
  /* interp */
  sps_ref_cls_interp(n, H(M.rp, int64_t), H(M.ci, int32_t), H(M.v, double), srp, sci,
                     H(key, uint64_t), H(Ch.rp, int64_t), H(Ch.ci, int32_t), H(Ch.v, double));
  STEP(cls_interp, n, D(M.rp, int64_t), D(M.ci, int32_t), D(M.v, double), D(S.rp, int64_t),
       D(S.ci, int32_t), D(key, uint64_t), D(Ch.rp, int64_t), D(Ch.ci, int32_t), D(Ch.v, double));
  sps_ok(same(&Ch.v), "%s: extended+i weights, bit for bit", nm);
  /* truncation of the weights into P */
  static const struct {
    int pm;
    double tf;
  } tr[] = {{4, 0.0}, {2, 0.0}, {0, 0.0}, {4, 0.2}};
  for (size_t t = 0; t < sizeof tr / sizeof tr[0]; t++) {
    buf pc = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
    sps_ref_amg_trunc_count(n, H(Ch.rp, int64_t), H(Ch.v, double), H(flag, int64_t), tr[t].tf,
                            tr[t].pm, H(pc, int64_t));
    STEP(amg_trunc_count, n, D(Ch.rp, int64_t), D(Ch.v, double), D(flag, int64_t), tr[t].tf,
         tr[t].pm, D(pc, int64_t));
    ok = same(&pc);
    const int64_t pn = scan_both(&pc, n);
    buf pci = mk(NULL, (size_t)pn * sizeof(int32_t)), pv = mk(NULL, (size_t)pn * sizeof(double));
    sps_ref_amg_trunc_fill(n, H(Ch.rp, int64_t), H(Ch.ci, int32_t), H(Ch.v, double), NULL,
                           H(flag, int64_t), H(cnum, int64_t), tr[t].tf, tr[t].pm, H(pc, int64_t),
                           H(pci, int32_t), H(pv, double));
    STEP(amg_trunc_fill, n, D(Ch.rp, int64_t), D(Ch.ci, int32_t), D(Ch.v, double),
         (const double *)NULL, D(flag, int64_t), D(cnum, int64_t), tr[t].tf, tr[t].pm,
         D(pc, int64_t), D(pci, int32_t), D(pv, double));
    ok &= same(&pci) && same(&pv);
    sps_ok(ok, "%s: P, interp_max %d, trunc %g (%lld entries), equals the reference", nm, tr[t].pm,
           tr[t].tf, (long long)pn);
    /* properties: C rows injected in order, F rows at most pm entries with the row's sum */
    const int64_t *prp = H(pc, int64_t), *hrp = H(Ch.rp, int64_t), *cn = H(cnum, int64_t);
    const int32_t *pcc = H(pci, int32_t);
    const double *pvv = H(pv, double), *hv = H(Ch.v, double);
    int inj = 1, rows = 1;
    double sumerr = 0.0;
    for (int64_t i = 0; i < n; i++) {
      const int64_t len = prp[i + 1] - prp[i];
      if (H(flag, int64_t)[i]) {
        inj &= len == 1 && pcc[prp[i]] == cn[i] && pvv[prp[i]] == 1.0;
        continue;
      }
      rows &= tr[t].pm == 0 || len <= tr[t].pm;
      for (int64_t q = prp[i] + 1; q < prp[i + 1]; q++)
        rows &= pcc[q] > pcc[q - 1];
      double all = 0.0, kept = 0.0, mag = 0.0;
      for (int64_t q = hrp[i]; q < hrp[i + 1]; q++)
        all += hv[q], mag += fabs(hv[q]);
      for (int64_t q = prp[i]; q < prp[i + 1]; q++)
        kept += pvv[q];
      if (len > 0) sumerr = fmax(sumerr, fabs(kept - all) / (mag > 0.0 ? mag : 1.0));
    }
    sps_ok(inj && rows && sumerr <= 1e-14,
           "%s: P's C rows inject into their coarse column, F rows keep at most %d entries "
           "with the row's sum (relative error %.2g)",
           nm, tr[t].pm, sumerr);
    rm(&pc);
    rm(&pci);
    rm(&pv);
  }
  bm_free(&M);
  bm_free(&S);
  bm_free(&ST);
  bm_free(&M2);
  bm_free(&M1);
  bm_free(&Ch);
  rm(&key);
  rm(&newc);
  rm(&word);
  rm(&flag);
  rm(&cnum);
}

/* The level steps, the aggregation path and the filter on one matrix. */
static void check_level(const char *name, const mat *A)
{
  const int64_t n = A->n, nnz = A->rp[n];
  bmat M = bm(A);
  /* diag_count/fill with scale -1 */
  buf cnt = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
  sps_ref_amg_diag_count(n, A->rp, A->ci, H(cnt, int64_t));
  STEP(amg_diag_count, n, D(M.rp, int64_t), D(M.ci, int32_t), D(cnt, int64_t));
  int ok = same(&cnt);
  const int64_t nd = scan_both(&cnt, n);
  bmat Hd = {
      n, n, nd, cnt, mk(NULL, (size_t)nd * sizeof(int32_t)), mk(NULL, (size_t)nd * sizeof(double))};
  sps_ref_amg_diag_fill(n, A->rp, A->ci, A->v, -1.0, H(Hd.rp, int64_t), H(Hd.ci, int32_t),
                        H(Hd.v, double));
  STEP(amg_diag_fill, n, D(M.rp, int64_t), D(M.ci, int32_t), D(M.v, double), -1.0,
       D(Hd.rp, int64_t), D(Hd.ci, int32_t), D(Hd.v, double));
  ok &= same(&Hd.ci) && same(&Hd.v);
  int diag_ok = 1;
  for (int64_t i = 0; i < n; i++) {
    int found = 0;
    for (int64_t k = H(Hd.rp, int64_t)[i]; k < H(Hd.rp, int64_t)[i + 1]; k++)
      found += H(Hd.ci, int32_t)[k] == i;
    diag_ok &= found == 1;
  }
  sps_ok(ok && diag_ok && nd >= nnz, "%s: -A with every diagonal stored (%lld entries)", name,
         (long long)nd);
  /* smoother diagonals */
  for (int l1 = 0; l1 <= 1; l1++) {
    buf dinv = mk(NULL, (size_t)n * sizeof(double)), sd = mk(NULL, (size_t)n * sizeof(double));
    buf dsq = mk(NULL, (size_t)n * sizeof(double)), bad = mk(NULL, sizeof(unsigned long long));
    sps_ref_amg_smoother_diag(n, A->rp, A->ci, A->v, l1, H(dinv, double), H(sd, double),
                              H(dsq, double), H(bad, unsigned long long));
    STEP(amg_smoother_diag, n, D(M.rp, int64_t), D(M.ci, int32_t), D(M.v, double), l1,
         D(dinv, double), D(sd, double), D(dsq, double), D(bad, unsigned long long));
    sps_ok(same(&dinv) && same(&sd) && same(&dsq) && same(&bad),
           "%s: smoother diagonals (%s), first bad row %llu", name, l1 ? "l1" : "1/a_ii",
           *H(bad, unsigned long long));
    rm(&dinv);
    rm(&sd);
    rm(&dsq);
    rm(&bad);
  }
  /* random */
  buf r = mk(NULL, (size_t)n * sizeof(double));
  sps_ref_amg_random(n, 20261125u, H(r, double));
  STEP(amg_random, n, (uint64_t)20261125u, D(r, double));
  uint64_t state = 20261125u;
  int seq = 1;
  for (int64_t i = 0; i < n; i++)
    seq &= H(r, double)[i] == sps_splitmix64_sym(&state);
  sps_ok(same(&r) && seq, "%s: the Lanczos start is splitmix64's sequence", name);
  rm(&r);
  /* filter (needs every diagonal: on -A's copy) */
  {
    buf d = mk(NULL, (size_t)n * sizeof(double)), fc = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
    sps_ref_agg_diagonal(n, H(Hd.rp, int64_t), H(Hd.ci, int32_t), H(Hd.v, double), H(d, double));
    sync_up(&d);
    sps_ref_amg_filter_count(n, H(Hd.rp, int64_t), H(Hd.ci, int32_t), H(Hd.v, double), H(d, double),
                             0.05, H(fc, int64_t));
    STEP(amg_filter_count, n, D(Hd.rp, int64_t), D(Hd.ci, int32_t), D(Hd.v, double), D(d, double),
         0.05, D(fc, int64_t));
    ok = same(&fc);
    const int64_t nf = scan_both(&fc, n);
    buf fci = mk(NULL, (size_t)nf * sizeof(int32_t)), fv = mk(NULL, (size_t)nf * sizeof(double));
    sps_ref_amg_filter_fill(n, H(Hd.rp, int64_t), H(Hd.ci, int32_t), H(Hd.v, double), H(d, double),
                            0.05, H(fc, int64_t), H(fci, int32_t), H(fv, double));
    STEP(amg_filter_fill, n, D(Hd.rp, int64_t), D(Hd.ci, int32_t), D(Hd.v, double), D(d, double),
         0.05, D(fc, int64_t), D(fci, int32_t), D(fv, double));
    ok &= same(&fci) && same(&fv);
    /* property: the row sums are kept */
    double err = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double a = 0.0, b = 0.0, mag = 0.0;
      for (int64_t k = H(Hd.rp, int64_t)[i]; k < H(Hd.rp, int64_t)[i + 1]; k++)
        a += H(Hd.v, double)[k], mag += fabs(H(Hd.v, double)[k]);
      for (int64_t k = H(fc, int64_t)[i]; k < H(fc, int64_t)[i + 1]; k++)
        b += H(fv, double)[k];
      err = fmax(err, fabs(a - b) / (mag > 0.0 ? mag : 1.0));
    }
    sps_ok(ok && err <= 1e-14, "%s: filter 0.05 (%lld of %lld entries kept), row sums kept (%.2g)",
           name, (long long)nf, (long long)nd, err);
    rm(&d);
    rm(&fc);
    rm(&fci);
    rm(&fv);
  }
  /* aggregation: the tentative and smoothed prolongators on -(-A) = A with its diagonal */
  {
    sps_host_csr Ah = {n, A->rp, A->ci, A->v};
    int32_t *agg = malloc((size_t)(n > 0 ? n : 1) * sizeof *agg);
    int64_t na = 0;
    if (sps_amg_aggregate(cpu, &Ah, 0.08, agg, &na)) sps_bail("aggregate");
    buf ag = mk(agg, (size_t)n * sizeof(int32_t)), B = mk(NULL, (size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++)
      H(B, double)[i] = 1.0 + 0.25 * sin((double)i);
    sync_up(&B);
    buf tc = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
    sps_ref_amg_tent_count(n, agg, H(tc, int64_t));
    STEP(amg_tent_count, n, D(ag, int32_t), D(tc, int64_t));
    ok = same(&tc);
    const int64_t nt = scan_both(&tc, n);
    bmat T = {n,
              na,
              nt,
              tc,
              mk(NULL, (size_t)nt * sizeof(int32_t)),
              mk(NULL, (size_t)nt * sizeof(double))};
    sps_ref_amg_tent_fill(n, agg, H(B, double), H(T.rp, int64_t), H(T.ci, int32_t), H(T.v, double));
    STEP(amg_tent_fill, n, D(ag, int32_t), D(B, double), D(T.rp, int64_t), D(T.ci, int32_t),
         D(T.v, double));
    ok &= same(&T.ci) && same(&T.v);
    bmat Tt = transpose_both(name, &T, 1);
    buf nrm = mk(NULL, (size_t)na * sizeof(double));
    sps_ref_amg_row_norms(na, H(Tt.rp, int64_t), H(Tt.v, double), H(nrm, double));
    STEP(amg_row_norms, na, D(Tt.rp, int64_t), D(Tt.v, double), D(nrm, double));
    ok &= same(&nrm);
    sps_ref_amg_tent_scale(n, H(T.rp, int64_t), H(T.ci, int32_t), H(T.v, double), H(nrm, double));
    STEP(amg_tent_scale, n, D(T.rp, int64_t), D(T.ci, int32_t), D(T.v, double), D(nrm, double));
    ok &= same(&T.v);
    /* P = (I - omega D^-1 A) T on the pattern of A T */
    bmat Md = {n, n, nd, Hd.rp, Hd.ci, Hd.v};
    for (int64_t k = 0; k < nd; k++)
      H(Md.v, double)[k] = -H(Md.v, double)[k]; /* back to A, with its diagonal */
    sync_up(&Md.v);
    bmat AT = product_both(name, &Md, &T);
    buf dinv = mk(NULL, (size_t)n * sizeof(double)), sd = mk(NULL, (size_t)n * sizeof(double));
    buf dsq = mk(NULL, (size_t)n * sizeof(double)), bad = mk(NULL, sizeof(unsigned long long));
    sps_ref_amg_smoother_diag(n, H(Md.rp, int64_t), H(Md.ci, int32_t), H(Md.v, double), 0,
                              H(dinv, double), H(sd, double), H(dsq, double),
                              H(bad, unsigned long long));
    sync_up(&dinv);
    sps_ref_amg_sa_smooth(n, H(AT.rp, int64_t), H(AT.ci, int32_t), H(AT.v, double), H(dinv, double),
                          0.7, H(T.rp, int64_t), H(T.ci, int32_t), H(T.v, double));
    STEP(amg_sa_smooth, n, D(AT.rp, int64_t), D(AT.ci, int32_t), D(AT.v, double), D(dinv, double),
         0.7, D(T.rp, int64_t), D(T.ci, int32_t), D(T.v, double));
    ok &= same(&AT.v);
    sps_ok(ok, "%s: aggregation (%lld aggregates): T, the norms, the smoothed P", name,
           (long long)na);
    /* truncation with the coarse near-null vector as weight */
    buf pc = mk(NULL, (size_t)(n + 1) * sizeof(int64_t));
    sps_ref_amg_trunc_count(n, H(AT.rp, int64_t), H(AT.v, double), NULL, 0.1, 3, H(pc, int64_t));
    STEP(amg_trunc_count, n, D(AT.rp, int64_t), D(AT.v, double), (const int64_t *)NULL, 0.1, 3,
         D(pc, int64_t));
    ok = same(&pc);
    const int64_t pn = scan_both(&pc, n);
    buf pci = mk(NULL, (size_t)pn * sizeof(int32_t)), pv = mk(NULL, (size_t)pn * sizeof(double));
    sps_ref_amg_trunc_fill(n, H(AT.rp, int64_t), H(AT.ci, int32_t), H(AT.v, double), H(nrm, double),
                           NULL, NULL, 0.1, 3, H(pc, int64_t), H(pci, int32_t), H(pv, double));
    STEP(amg_trunc_fill, n, D(AT.rp, int64_t), D(AT.ci, int32_t), D(AT.v, double), D(nrm, double),
         (const int64_t *)NULL, (const int64_t *)NULL, 0.1, 3, D(pc, int64_t), D(pci, int32_t),
         D(pv, double));
    ok &= same(&pci) && same(&pv);
    /* property: P B_c kept row by row */
    double err = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double a = 0.0, b = 0.0, mag = 0.0;
      for (int64_t k = H(AT.rp, int64_t)[i]; k < H(AT.rp, int64_t)[i + 1]; k++) {
        const double t = H(AT.v, double)[k] * H(nrm, double)[H(AT.ci, int32_t)[k]];
        a += t, mag += fabs(t);
      }
      for (int64_t k = H(pc, int64_t)[i]; k < H(pc, int64_t)[i + 1]; k++)
        b += H(pv, double)[k] * H(nrm, double)[H(pci, int32_t)[k]];
      if (H(pc, int64_t)[i + 1] > H(pc, int64_t)[i] && fabs(a) > 1e-3 * mag)
        err = fmax(err, fabs(a - b) / mag);
    }
    sps_ok(ok && err <= 1e-13, "%s: truncated smoothed P (3 a row, 0.1), P B_c kept (%.2g)", name,
           err);
    free(agg);
    rm(&ag);
    rm(&B);
    rm(&nrm);
    rm(&dinv);
    rm(&sd);
    rm(&dsq);
    rm(&bad);
    rm(&pc);
    rm(&pci);
    rm(&pv);
    bm_free(&T);
    bm_free(&Tt);
    bm_free(&AT);
  }
  bm_free(&M);
  bm_free(&Hd);
}

/* Colouring and the Gauss-Seidel sweep on one matrix (transpose in the rounds when asked). */
static void check_mcgs(const char *name, const mat *A, int with_transpose)
{
  const int64_t n = A->n;
  bmat M = bm(A);
  bmat T = {0};
  if (with_transpose) T = transpose_both(name, &M, 0);
  buf c1 = mk(NULL, (size_t)n * sizeof(int32_t)), c2 = mk(NULL, (size_t)n * sizeof(int32_t));
  buf word = mk(NULL, sizeof(unsigned long long));
  sps_ref_mc_color_init(n, H(c1, int32_t));
  STEP(mc_color_init, n, D(c1, int32_t));
  int ok = same(&c1), rounds = 0;
  const int64_t *trp = with_transpose ? H(T.rp, int64_t) : NULL;
  const int32_t *tci = with_transpose ? H(T.ci, int32_t) : NULL;
  for (unsigned long long left = (unsigned long long)n; left > 0 && rounds < 100000; rounds++) {
    sps_ref_mc_color_round(n, A->rp, A->ci, trp, tci, H(c1, int32_t), H(c2, int32_t),
                           H(word, unsigned long long));
    STEP(mc_color_round, n, D(M.rp, int64_t), D(M.ci, int32_t),
         with_transpose ? D(T.rp, int64_t) : NULL, with_transpose ? D(T.ci, int32_t) : NULL,
         D(c1, int32_t), D(c2, int32_t), D(word, unsigned long long));
    ok &= same(&c2) && same(&word);
    left = *H(word, unsigned long long);
    buf t = c1;
    c1 = c2;
    c2 = t;
    sync_up(&c1);
  }
  sps_ref_mc_color_count(n, H(c1, int32_t), H(word, unsigned long long));
  STEP(mc_color_count, n, D(c1, int32_t), D(word, unsigned long long));
  ok &= same(&word);
  const int ncol = (int)*H(word, unsigned long long);
  /* proper: no entry joins two rows of one colour */
  int proper = 1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
      if (A->ci[k] != i) proper &= H(c1, int32_t)[A->ci[k]] != H(c1, int32_t)[i];
  sps_ok(ok && proper, "%s: colouring, %d rounds, %d colours, proper%s", name, rounds, ncol,
         with_transpose ? " (with the transpose's rows)" : "");
  /* order */
  buf start = mk(NULL, (size_t)(ncol + 1) * sizeof(int64_t)),
      order = mk(NULL, (size_t)n * sizeof(int32_t));
  sps_ref_mc_order(n, H(c1, int32_t), ncol, H(start, int64_t), H(order, int32_t));
#ifdef SPS_HAVE_CUDA
  if (dev->kind == SPS_DEVICE_CUDA) {
    size_t bytes = 0;
    void *tmp = NULL;
    buf keys = mk(NULL, (size_t)n * sizeof(int32_t)), iota = mk(NULL, (size_t)n * sizeof(int32_t));
    sps_cuda_mc_order(sps_cuda(dev)->stream, NULL, &bytes, n, D(c1, int32_t), ncol,
                      D(start, int64_t), D(keys, int32_t), D(iota, int32_t), D(order, int32_t));
    if (dev->be->malloc(dev, &tmp, bytes > 0 ? bytes : 1, "test")) sps_bail("alloc");
    if (sps_cuda_mc_order(sps_cuda(dev)->stream, tmp, &bytes, n, D(c1, int32_t), ncol,
                          D(start, int64_t), D(keys, int32_t), D(iota, int32_t),
                          D(order, int32_t)) != cudaSuccess)
      sps_bail("mc_order");
    dev->be->free(dev, tmp);
    rm(&keys);
    rm(&iota);
  } else
#endif
    sps_ref_mc_order(n, D(c1, int32_t), ncol, D(start, int64_t), D(order, int32_t));
  int listed = 1;
  for (int c = 0; c < ncol; c++)
    for (int64_t q = H(start, int64_t)[c]; q < H(start, int64_t)[c + 1]; q++) {
      listed &= H(c1, int32_t)[H(order, int32_t)[q]] == c;
      if (q > H(start, int64_t)[c]) listed &= H(order, int32_t)[q] > H(order, int32_t)[q - 1];
    }
  listed &= H(start, int64_t)[ncol] == n;
  sps_ok(same(&start) && same(&order) && listed, "%s: rows listed colour by colour", name);
  /* sweeps: forward then backward over the colours, x from a random start */
  for (int lanes = 1; lanes <= 32; lanes *= 2) { /* every width the kernel has */
    buf b = mk(NULL, (size_t)n * sizeof(double)), x = mk(NULL, (size_t)n * sizeof(double));
    buf dinv = mk(NULL, (size_t)n * sizeof(double));
    sps_rng rng = {0x6a55u};
    for (int64_t i = 0; i < n; i++) {
      H(b, double)[i] = sps_rng_uniform(&rng);
      H(x, double)[i] = sps_rng_uniform(&rng);
      double a = 1.0;
      for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
        if (A->ci[k] == i && A->v[k] != 0.0) a = A->v[k];
      H(dinv, double)[i] = 1.0 / a;
    }
    sync_up(&b);
    sync_up(&x);
    sync_up(&dinv);
    for (int pass = 0; pass < 2; pass++)
      for (int q = 0; q < ncol; q++) {
        const int c = pass ? ncol - 1 - q : q;
        const int64_t f = H(start, int64_t)[c], cnt = H(start, int64_t)[c + 1] - f;
        sps_ref_mcgs_sweep(cnt, H(order, int32_t) + f, A->rp, A->ci, A->v, -1.0, H(dinv, double),
                           H(b, double), H(x, double), lanes);
        STEP(mcgs_sweep, cnt, D(order, int32_t) + f, D(M.rp, int64_t), D(M.ci, int32_t),
             D(M.v, double), -1.0, D(dinv, double), D(b, double), D(x, double), lanes);
      }
    sps_ok(same(&x), "%s: a symmetric Gauss-Seidel sweep, %d lane%s a row, bit for bit", name,
           lanes, lanes > 1 ? "s" : "");
    rm(&b);
    rm(&x);
    rm(&dinv);
  }
  bm_free(&M);
  if (with_transpose) bm_free(&T);
  rm(&c1);
  rm(&c2);
  rm(&word);
  rm(&start);
  rm(&order);
}

/*
 * The Chebyshev smoother's fused updates (precond/ref/amg_smooth.c) on n random entries: the
 * context's result equals the reference's byte for byte, and the reference equals the
 * separate operations the cycle ran before the fusion, written out here (s = dinv .* src;
 * e = a s + 0 e with e not read; x = e or x + 1 e; then s = s + (-1)(dinv .* t),
 * e = a s + b e, x = x + 1 e), so the fusion changed no bit. e starts as NaN where b = 0 must
 * not read it.
 */
static void check_cheby(int64_t n, sps_rng *rng)
{
  const size_t bytes = (size_t)n * sizeof(double);
  double *w = malloc(bytes + 8), *src = malloc(bytes + 8), *t = malloc(bytes + 8);
  double *x0 = malloc(bytes + 8), *e0 = malloc(bytes + 8);
  double *s1 = malloc(bytes + 8), *e1 = malloc(bytes + 8), *x1 = malloc(bytes + 8);
  if (!w || !src || !t || !x0 || !e0 || !s1 || !e1 || !x1) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++) {
    w[i] = 0.5 + sps_rng_uniform(rng);
    src[i] = 2.0 * sps_rng_uniform(rng) - 1.0;
    t[i] = 2.0 * sps_rng_uniform(rng) - 1.0;
    x0[i] = sps_rng_uniform(rng) - 0.5;
    e0[i] = NAN;
  }
  const double a = 0.7310585786300049, a2 = 1.3862943611198906, b2 = 0.4142135623730951;
  for (int zero = 0; zero <= 1; zero++) {
    if (!sps_case()) continue;
    buf dw = mk(w, bytes), dsrc = mk(src, bytes), dt = mk(t, bytes);
    buf s = mk(NULL, bytes), e = mk(e0, bytes), x = mk(x0, bytes);
    /* the separate operations, as the cycle ran them before */
    for (int64_t i = 0; i < n; i++) {
      s1[i] = w[i] * src[i];
      e1[i] = a * s1[i];
      x1[i] = zero ? e1[i] : x0[i] + 1.0 * e1[i];
    }
    sps_ref_amg_cheby_first(n, H(dw, double), H(dsrc, double), a, zero, H(s, double), H(e, double),
                            H(x, double));
    STEP(amg_cheby_first, n, D(dw, double), D(dsrc, double), a, zero, D(s, double), D(e, double),
         D(x, double));
    int ok = same(&s) && same(&e) && same(&x);
    int sep = !memcmp(s.h, s1, bytes) && !memcmp(e.h, e1, bytes) && !memcmp(x.h, x1, bytes);
    for (int bz = 0; bz <= 1; bz++) {
      const double b = bz ? 0.0 : b2;
      if (bz) { /* e not read when b = 0: NaN there must not reach the result */
        for (int64_t i = 0; i < n; i++)
          H(e, double)[i] = NAN;
        sync_up(&e);
        for (int64_t i = 0; i < n; i++)
          e1[i] = NAN;
      }
      for (int64_t i = 0; i < n; i++) {
        const double u = w[i] * t[i];
        s1[i] = s1[i] + -1.0 * u;
        e1[i] = b == 0.0 ? a2 * s1[i] : a2 * s1[i] + b * e1[i];
        x1[i] = x1[i] + 1.0 * e1[i];
      }
      sps_ref_amg_cheby_step(n, H(dw, double), H(dt, double), a2, b, H(s, double), H(e, double),
                             H(x, double));
      STEP(amg_cheby_step, n, D(dw, double), D(dt, double), a2, b, D(s, double), D(e, double),
           D(x, double));
      ok &= same(&s) && same(&e) && same(&x);
      sep &= !memcmp(s.h, s1, bytes) && !memcmp(e.h, e1, bytes) && !memcmp(x.h, x1, bytes);
    }
    int finite = 1;
    for (int64_t i = 0; i < n; i++)
      finite &= isfinite(H(x, double)[i]);
    sps_ok(ok && sep && finite,
           "Chebyshev fused updates, n = %lld%s: the context's bits are the reference's and the "
           "separate operations'",
           (long long)n, zero ? ", from zero" : "");
    rm(&dw);
    rm(&dsrc);
    rm(&dt);
    rm(&s);
    rm(&e);
    rm(&x);
  }
  free(w);
  free(src);
  free(t);
  free(x0);
  free(e0);
  free(s1);
  free(e1);
  free(x1);
}

/*
 * The Lanczos steps with their scalars in the context's memory (precond/ref/amg_lanczos.c and
 * its kernels) against the reference and against the backend operations the host loop of
 * precond/amg_spectrum.c makes (scal by 1/sqrt, pointwise_mult then axpy, axpy, copy then axpby
 * with b = 0): the same bits; the flag set exactly when nrm2 would rescale; and dot_store and
 * sumsq_store equal to the CPU's dot and nrm2. One case per n.
 */
static void check_lanczos(int64_t n, sps_rng *rng)
{
  const size_t bytes = (size_t)n * sizeof(double);
  double *v0 = malloc(bytes + 8), *w0 = malloc(bytes + 8), *vold0 = malloc(bytes + 8);
  double *dsq = malloc(bytes + 8), *v1 = malloc(bytes + 8), *w1 = malloc(bytes + 8),
         *vold1 = malloc(bytes + 8);
  if (!v0 || !w0 || !vold0 || !dsq || !v1 || !w1 || !vold1) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++) {
    v0[i] = 2.0 * sps_rng_uniform(rng) - 1.0;
    w0[i] = 2.0 * sps_rng_uniform(rng) - 1.0;
    vold0[i] = 2.0 * sps_rng_uniform(rng) - 1.0;
    dsq[i] = 0.5 + sps_rng_uniform(rng);
  }
  if (!sps_case()) goto done;
  {
    /* the sums of sumsq_store on w, from the context under test, against the CPU's nrm2 and dot */
    buf dw = mk(w0, bytes), dv = mk(v0, bytes), dvold = mk(vold0, bytes), dd = mk(dsq, bytes);
    buf sq = mk(NULL, 2 * sizeof(double)), sc = mk(NULL, 4 * sizeof(double));
    double nrm_cpu, dot_cpu, sums[2], dstore;
    if (cpu->be->nrm2(cpu, n, w0, &nrm_cpu) || cpu->be->dot(cpu, n, w0, v0, &dot_cpu))
      sps_bail("cpu nrm2/dot");
    if (dev->be->sumsq_store(dev, n, D(dw, double), D(sq, double)) ||
        dev->be->dot_store(dev, n, D(dw, double), D(dv, double), D(sc, double) + 3))
      sps_bail("sumsq_store/dot_store: %s", sps_context_last_error(dev));
    if (dev->be->download(dev, sums, D(sq, double), sizeof sums) ||
        dev->be->download(dev, &dstore, D(sc, double) + 3, sizeof dstore))
      sps_bail("download");
    double amax = 0.0;
    for (int64_t i = 0; i < n; i++)
      amax = fmax(amax, fabs(w0[i]));
    const int stores = sqrt(sums[0]) == nrm_cpu && sums[1] == amax && dstore == dot_cpu;
    memcpy(sq.h, sums, sizeof sums);
    /* scalars: [0] flag, [1] beta_j, [2] beta_{j+1}, [3] alpha */
    double sch[4] = {-1.0, 0.375, -1.0, 0.0};
    sch[3] = dot_cpu;
    memcpy(sc.h, sch, sizeof sch);
    sync_up(&sc);
    const double b = sqrt(sums[0]);
    /* the host loop's operations */
    for (int64_t i = 0; i < n; i++)
      v1[i] = v0[i] * (1.0 / b); /* scal */
    for (int64_t i = 0; i < n; i++) {
      w1[i] = dsq[i] * w0[i]; /* pointwise_mult, then axpy */
      w1[i] += -sch[1] * vold0[i];
    }
    for (int64_t i = 0; i < n; i++)
      w1[i] += -sch[3] * v1[i];
    for (int64_t i = 0; i < n; i++) {
      vold1[i] = v1[i]; /* copy, then axpby(1/b, w, 0, v) */
      v1[i] = (1.0 / b) * w1[i];
    }
    double *hs = H(sc, double), *ds = D(sc, double);
    sps_ref_amg_lanczos_start(n, H(sq, double), hs, H(dv, double));
    STEP(amg_lanczos_start, n, D(sq, double), ds, D(dv, double));
    int ok = same(&dv) && same(&sc);
    sps_ref_amg_lanczos_residual(n, H(dd, double), hs + 1, H(dvold, double), H(dw, double));
    STEP(amg_lanczos_residual, n, D(dd, double), ds + 1, D(dvold, double), D(dw, double));
    ok &= same(&dw);
    sps_ref_amg_lanczos_orth(n, hs + 3, H(dv, double), H(dw, double));
    STEP(amg_lanczos_orth, n, ds + 3, D(dv, double), D(dw, double));
    ok &= same(&dw);
    sps_ref_amg_lanczos_next(n, H(sq, double), hs + 2, hs, H(dw, double), H(dv, double),
                             H(dvold, double));
    STEP(amg_lanczos_next, n, D(sq, double), ds + 2, ds, D(dw, double), D(dv, double),
         D(dvold, double));
    ok &= same(&dv) && same(&dvold) && same(&sc);
    const int ops = !memcmp(dv.h, v1, bytes) && !memcmp(dvold.h, vold1, bytes) &&
                    !memcmp(dw.h, w1, bytes) && hs[2] == b && hs[0] == 0.0;
    /* a maximum that nrm2 would rescale raises the flag; one it would not, leaves it down */
    double big[2] = {4.0, 0x1p+500}, nan2[2] = {4.0, NAN}, hf = -1.0;
    memcpy(sq.h, big, sizeof big);
    sync_up(&sq);
    STEP(amg_lanczos_start, n, D(sq, double), ds, D(dv, double));
    if (dev->be->download(dev, &hf, ds, sizeof hf)) sps_bail("download");
    int flags = hf == 1.0;
    memcpy(sq.h, nan2, sizeof nan2);
    sync_up(&sq);
    STEP(amg_lanczos_start, n, D(sq, double), ds, D(dv, double));
    if (dev->be->download(dev, &hf, ds, sizeof hf)) sps_bail("download");
    flags &= hf == 0.0;
    sps_ok(stores && ok && ops && flags,
           "Lanczos steps, n = %lld: dot_store and sumsq_store are dot and nrm2 (%d); the "
           "context's bits are the reference's (%d) and the host loop's operations' (%d); the "
           "flag is nrm2's rescaling (%d)",
           (long long)n, stores, ok, ops, flags);
    rm(&dw);
    rm(&dv);
    rm(&dvold);
    rm(&dd);
    rm(&sq);
    rm(&sc);
  }
done:
  free(v0);
  free(w0);
  free(vold0);
  free(dsq);
  free(v1);
  free(w1);
  free(vold1);
}

/* Four cases. */
static void check_all(const char *name, const mat *A, int sym)
{
  if (sps_case()) check_level(name, A);
  if (sps_case()) check_classical(name, A, 0.25, 0.9);
  if (sps_case()) check_classical(name, A, 0.5, 1.0);
  if (sps_case()) check_mcgs(name, A, !sym);
}

int main(void)
{
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("CPU context");
#ifdef SPS_TEST_GPU
  dev = sps_test_cuda_context_or_skip();
#else
  dev = cpu;
#endif
  sps_rng rng = {0x5e7a9ull};
  struct {
    const char *name;
    mat A;
    int sym;
  } cases[] = {
      {"2-D Laplacian 33 x 33", grid(33, 1.0, 0), 1},
      {"anisotropic 2-D Laplacian (eps 0.01) 20 x 20", grid(20, 0.01, 0), 1},
      {"Neumann Laplacian 17 x 17", grid(17, 1.0, 1), 1},
      {"1-D Laplacian 1 x 1", grid(1, 1.0, 0), 1},
      {"random symmetric, mixed signs, a dense row, an empty row",
       random_mat(700, 5, 1, 17, 300, &rng), 1},
      {"random nonsymmetric", random_mat(500, 4, 0, -1, -1, &rng), 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    check_all(cases[k].name, &cases[k].A, cases[k].sym);
    mat_free(&cases[k].A);
  }
  const int64_t cheby_n[] = {1, 1000, 100003};
  for (size_t k = 0; k < sizeof cheby_n / sizeof cheby_n[0]; k++)
    check_cheby(cheby_n[k], &rng);
  for (size_t k = 0; k < sizeof cheby_n / sizeof cheby_n[0]; k++)
    check_lanczos(cheby_n[k], &rng);
  const char *data = sps_test_data_dir();
  const char *bundled[] = {"nos3.mtx.gz", "bcsstk14.mtx.gz", "1138_bus.mtx.gz", "orsreg_1.mtx.gz"};
  for (size_t k = 0; k < sizeof bundled / sizeof bundled[0]; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", data, bundled[k]);
    mat A = read_mat(path);
    check_all(bundled[k], &A, k < 3);
    mat_free(&A);
  }
  const char *dir = sps_test_matrices_dir();
  if (dir && dev != cpu) {
    const char *shared[] = {"G3_circuit.mtx.gz", "laplacian7pt_100.mtx.gz"};
    for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++) {
      /* three cases; the matrix is read only where one of them runs */
      const int level = sps_case(), classical = sps_case(), mcgs = sps_case();
      if (!level && !classical && !mcgs) continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, shared[k]);
      mat A = read_mat(path);
      if (level) check_level(shared[k], &A);
      if (classical) check_classical(shared[k], &A, 0.25, 0.9);
      if (mcgs) check_mcgs(shared[k], &A, 0);
      mat_free(&A);
    }
  } else if (sps_case()) {
    sps_skip("the large shared matrices (GPU build with SPS_MATRICES only)");
  }
  if (dev != cpu) sps_context_destroy(&dev);
  sps_context_destroy(&cpu);
  return sps_done();
}
