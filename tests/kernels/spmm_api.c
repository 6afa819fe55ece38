/* spmm_api.c: tests of the multivector and SpMM plan API: upload/download round trips, wrapped
 * blocks and their padding, the AUTO choice, and every bad argument's status and message (CPU;
 * built with SPS_TEST_GPU, the same on a GPU or exit 77).
 *
 * Wrapped blocks of leading dimension 5 (odd: the GPU kernels' 8-byte paths) and 6 (their
 * padding columns 4 and 5 must come back untouched) give the owned blocks' bits.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each check_* function is a case.
 */
#include "spmm_check.h"

/* An n x n tridiagonal matrix on ctx. */
static sps_matrix *tridiag(sps_context *ctx, int64_t n)
{
  int64_t *rp = calloc((size_t)n + 1, sizeof *rp);
  int32_t *ci = malloc((size_t)(3 * n) * sizeof *ci);
  double *va = malloc((size_t)(3 * n) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of memory");
  int64_t e = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        ci[e] = (int32_t)j;
        va[e++] = j == i ? 2.0 + 0.01 * (double)i : -1.0 + 0.001 * (double)j;
      }
    rp[i + 1] = e;
  }
  sps_matrix *A = spmv_make(ctx, n, n, rp, ci, va);
  free(rp);
  free(ci);
  free(va);
  return A;
}

static void check_round_trip(sps_context *ctx)
{
  static const int64_t ks[] = {1, 2, 3, 8, 33};
  const int64_t n = 37;
  for (size_t t = 0; t < sizeof ks / sizeof *ks; t++) {
    const int64_t k = ks[t];
    double *h = spmm_alloc(n * k), *back = spmm_alloc(n * k);
    spmm_random_block(77u + (uint64_t)k, n, k, h);
    sps_multivector *X = NULL;
    int64_t gn = -1, gk = -1, ld = -1;
    double *data = NULL;
    if (sps_multivector_create(ctx, &X, n, k)) sps_bail("%s", sps_context_last_error(ctx));
    sps_multivector_get_size(X, &gn, &gk);
    sps_multivector_get_data(X, &data, &ld);
    sps_status st = sps_multivector_upload(X, h, n, k);
    if (!st) st = sps_multivector_download(X, back, n, k);
    sps_ok(!st && memcmp(h, back, (size_t)(n * k) * sizeof *h) == 0 && gn == n && gk == k && data &&
               ld == (k == 1 ? 1 : (k + 1) / 2 * 2),
           "multivector %lld x %lld: upload then download gives the same bits, ld %lld",
           (long long)n, (long long)k, (long long)ld);
    sps_multivector_destroy(&X);
    sps_ok(X == NULL, "sps_multivector_destroy sets the pointer to NULL");
    free(h);
    free(back);
  }
  sps_ok(sps_multivector_destroy(NULL) == SPS_SUCCESS, "sps_multivector_destroy(NULL) succeeds");
}

/* Wrapped blocks: ld 6 over an owned 6-column block (columns 4, 5 are the caller's and must not
 * change), ld 5 (odd), against the owned result of every variant. */
static void check_wrapped(sps_context *ctx)
{
  const int64_t n = 41, k = 4;
  sps_matrix *A = tridiag(ctx, n);
  double *xh = spmm_alloc(n * k), *y0 = spmm_alloc(n * k), *yref = spmm_alloc(n * k);
  double *y = spmm_alloc(n * k), *big = spmm_alloc(n * 6), *bigback = spmm_alloc(n * 6);
  spmm_random_block(5u, n, k, xh);
  spmm_random_block(6u, n, k, y0);
  spmm_random_block(7u, n, 6, big);
  sps_device_kind dk;
  sps_context_get_device(ctx, &dk, NULL);
  for (int kind = SPS_SPMM_CSR; kind < SPS_SPMM_KIND_COUNT; kind++) {
    if (!sps_spmm_kind_available((sps_spmm_kind)kind, dk) || kind == SPS_SPMM_SPMV) continue;
    const char *msg;
    if (spmm_apply_once(ctx, A, (sps_spmm_kind)kind, k, 1.5, xh, -0.5, y0, yref, NULL, &msg))
      sps_bail("%s: %s", sps_spmm_kind_name((sps_spmm_kind)kind), msg);
    /* X wrapped with ld 5 over an owned 5-column block; Y wrapped with ld 6 over a 6-column one. */
    sps_multivector *ox = NULL, *oy = NULL, *wx = NULL, *wy = NULL;
    sps_spmm_plan *plan = NULL;
    double *dx = NULL, *dy = NULL;
    if (sps_multivector_create(ctx, &ox, n, 5) || sps_multivector_create(ctx, &oy, n, 6) ||
        sps_multivector_upload(oy, big, n, 6))
      sps_bail("%s", sps_context_last_error(ctx));
    sps_multivector_get_data(ox, &dx, NULL);
    sps_multivector_get_data(oy, &dy, NULL);
    if (sps_multivector_wrap(ctx, &wx, n, k, dx, 5) ||
        sps_multivector_wrap(ctx, &wy, n, k, dy, 6) || sps_multivector_upload(wx, xh, n, k) ||
        sps_multivector_upload(wy, y0, n, k) || sps_spmm_plan_create(ctx, &plan, A, k) ||
        sps_spmm_plan_set_kind(plan, (sps_spmm_kind)kind) || sps_spmm_plan_setup(plan))
      sps_bail("wrapped blocks: %s", sps_context_last_error(ctx));
    sps_status st = sps_spmm_apply(plan, 1.5, wx, -0.5, wy);
    if (!st) st = sps_context_synchronize(ctx);
    if (!st) st = sps_multivector_download(wy, y, n, k);
    if (!st) st = sps_multivector_download(oy, bigback, n, 6);
    double maxrel = 0.0, worst = 0.0;
    int64_t bits = st ? -1 : spmm_bit_mismatches(n, k, y, yref, &maxrel);
    /* cuSPARSE's sums may depend on the leading dimensions: its result is held to the
     * tolerance of the plain loop instead. */
    if (!st && kind == SPS_SPMM_CUSPARSE)
      bits = spmm_tolerance_misses(A, k, 1.5, xh, -0.5, y0, y, &worst);
    int pads = 1;
    for (int64_t i = 0; i < 2 * n && !st; i++)
      pads &= memcmp(&bigback[4 * n + i], &big[4 * n + i], sizeof *big) == 0;
    sps_ok(!st && bits == 0 && pads,
           "%s: X wrapped with ld 5 and Y with ld 6 give the owned blocks' bits (%lld differ; "
           "cusparse-spmm: rows outside the tolerance) and "
           "leave Y's columns 4 and 5 as they were (%s)",
           sps_spmm_kind_name((sps_spmm_kind)kind), (long long)bits,
           st ? sps_context_last_error(ctx) : "");
    sps_spmm_plan_destroy(&plan);
    sps_multivector_destroy(&wx);
    sps_multivector_destroy(&wy);
    sps_multivector_destroy(&ox);
    sps_multivector_destroy(&oy);
  }
  free(xh);
  free(y0);
  free(yref);
  free(y);
  free(big);
  free(bigback);
  sps_matrix_destroy(&A);
}

/* spmm-spmv on a wrapped column of leading dimension 2 (not a vector: spmm-csr's path) gives
 * the owned column's bits, and the SpMV plan it holds is not counted by the context. */
static void check_spmv_wrapped(sps_context *ctx)
{
  const int64_t n = 53;
  sps_matrix *A = tridiag(ctx, n);
  double *xh = spmm_alloc(n), *yref = spmm_alloc(n), *y = spmm_alloc(n), *y0 = spmm_alloc(n);
  spmm_random_block(11u, n, 1, xh);
  spmm_random_block(12u, n, 1, y0);
  const char *msg;
  sps_spmm_kind used;
  if (spmm_apply_once(ctx, A, SPS_SPMM_SPMV, 1, 0.5, xh, 2.0, y0, yref, &used, &msg))
    sps_bail("spmm-spmv: %s", msg);
  sps_multivector *ox = NULL, *oy = NULL, *wx = NULL, *wy = NULL;
  sps_spmm_plan *plan = NULL;
  double *dx = NULL, *dy = NULL;
  if (sps_multivector_create(ctx, &ox, n, 2) || sps_multivector_create(ctx, &oy, n, 2))
    sps_bail("%s", sps_context_last_error(ctx));
  sps_multivector_get_data(ox, &dx, NULL);
  sps_multivector_get_data(oy, &dy, NULL);
  if (sps_multivector_wrap(ctx, &wx, n, 1, dx, 2) || sps_multivector_wrap(ctx, &wy, n, 1, dy, 2) ||
      sps_multivector_upload(wx, xh, n, 1) || sps_multivector_upload(wy, y0, n, 1) ||
      sps_spmm_plan_create(ctx, &plan, A, 1) || sps_spmm_plan_set_kind(plan, SPS_SPMM_SPMV) ||
      sps_spmm_plan_setup(plan))
    sps_bail("spmm-spmv, wrapped: %s", sps_context_last_error(ctx));
  sps_status st = sps_spmm_apply(plan, 0.5, wx, 2.0, wy);
  if (!st) st = sps_context_synchronize(ctx);
  if (!st) st = sps_multivector_download(wy, y, n, 1);
  double maxrel;
  const int64_t bits = st ? -1 : spmm_bit_mismatches(n, 1, y, yref, &maxrel);
  sps_context *c2 = ctx;
  sps_status busy = sps_context_destroy(&c2);
  const char *m2 = sps_context_last_error(ctx);
  sps_ok(!st && bits == 0 && busy == SPS_ERR_BUSY && !strstr(m2, "SpMV plan"),
         "spmm-spmv on columns of ld 2 gives the vectors' bits (%lld differ); its SpMV plan is not "
         "counted: \"%s\"",
         (long long)bits, m2);
  sps_spmm_plan_destroy(&plan);
  sps_multivector_destroy(&wx);
  sps_multivector_destroy(&wy);
  sps_multivector_destroy(&ox);
  sps_multivector_destroy(&oy);
  free(xh);
  free(yref);
  free(y);
  free(y0);
  sps_matrix_destroy(&A);
}

/* The status and message of a failed call: status as expected and the message holds `needle`. */
static void expect(sps_context *ctx, sps_status st, sps_status want, const char *needle,
                   const char *what)
{
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == want && (!needle || strstr(msg, needle)), "%s gives %s (got %s: \"%s\")", what,
         sps_status_name(want), sps_status_name(st), msg);
}

static void check_bad_arguments(sps_context *ctx)
{
  sps_multivector *X = NULL, *Y = NULL, *Z = NULL, *W = NULL;
  sps_spmm_plan *plan = NULL;
  double h[12] = {0};
  sps_matrix *A = tridiag(ctx, 5);
  sps_ok(sps_multivector_create(NULL, &X, 5, 2) == SPS_ERR_ARGUMENT, "create with a NULL context");
  expect(ctx, sps_multivector_create(ctx, NULL, 5, 2), SPS_ERR_ARGUMENT, "'X'",
         "create with X NULL");
  expect(ctx, sps_multivector_create(ctx, &X, -1, 2), SPS_ERR_SIZE, "n = -1", "create with n < 0");
  expect(ctx, sps_multivector_create(ctx, &X, 5, 0), SPS_ERR_SIZE, "k = 0", "create with k = 0");
  expect(ctx, sps_multivector_create(ctx, &X, INT64_MAX / 4, 3), SPS_ERR_SIZE, "overflow",
         "create with an overflowing size");
  expect(ctx, sps_multivector_wrap(ctx, &X, 5, 3, h, 2), SPS_ERR_SIZE, "ld = 2",
         "wrap with ld < k");
  expect(ctx, sps_multivector_wrap(ctx, &X, 5, 3, NULL, 3), SPS_ERR_ARGUMENT, "'data'",
         "wrap of NULL data");
  if (sps_multivector_create(ctx, &X, 5, 2) || sps_multivector_create(ctx, &Y, 5, 2) ||
      sps_multivector_create(ctx, &Z, 5, 3) || sps_multivector_create(ctx, &W, 4, 2))
    sps_bail("%s", sps_context_last_error(ctx));
  expect(ctx, sps_multivector_upload(X, h, 4, 2), SPS_ERR_SIZE, "4 x 2",
         "upload of 4 x 2 into 5 x 2");
  expect(ctx, sps_multivector_upload(X, h, 5, 3), SPS_ERR_SIZE, "5 x 3",
         "upload of 5 x 3 into 5 x 2");
  expect(ctx, sps_multivector_download(X, NULL, 5, 2), SPS_ERR_ARGUMENT, "'host'",
         "download into NULL");
  sps_ok(sps_multivector_get_size(NULL, NULL, NULL) == SPS_ERR_ARGUMENT, "get_size of NULL");

  expect(ctx, sps_spmm_plan_create(ctx, &plan, NULL, 2), SPS_ERR_ARGUMENT, "'A'", "plan of A NULL");
  expect(ctx, sps_spmm_plan_create(ctx, &plan, A, 0), SPS_ERR_SIZE, "k = 0", "plan with k = 0");
  if (sps_spmm_plan_create(ctx, &plan, A, 2)) sps_bail("%s", sps_context_last_error(ctx));
  expect(ctx, sps_spmm_plan_set_kind(plan, (sps_spmm_kind)99), SPS_ERR_ARGUMENT, "99",
         "set_kind of an unknown kind");
  expect(ctx, sps_spmm_apply(plan, 1.0, X, 0.0, Y), SPS_ERR_STATE, "not set up",
         "apply before setup");
  if (sps_spmm_plan_setup(plan)) sps_bail("%s", sps_context_last_error(ctx));
  expect(ctx, sps_spmm_apply(plan, 1.0, NULL, 0.0, Y), SPS_ERR_ARGUMENT, "'X'",
         "apply with X NULL");
  expect(ctx, sps_spmm_apply(plan, 1.0, X, 0.0, NULL), SPS_ERR_ARGUMENT, "'Y'",
         "apply with Y NULL");
  expect(ctx, sps_spmm_apply(plan, 1.0, Z, 0.0, Y), SPS_ERR_SIZE, "k = 2", "apply with X of k 3");
  expect(ctx, sps_spmm_apply(plan, 1.0, X, 0.0, Z), SPS_ERR_SIZE, "k = 2", "apply with Y of k 3");
  expect(ctx, sps_spmm_apply(plan, 1.0, W, 0.0, Y), SPS_ERR_SIZE, "4 rows",
         "apply with X of 4 rows");
  expect(ctx, sps_spmm_apply(plan, 1.0, X, 0.0, W), SPS_ERR_SIZE, "Y 4", "apply with Y of 4 rows");
  expect(ctx, sps_spmm_apply(plan, 1.0, X, 0.0, X), SPS_ERR_ARGUMENT, "share", "apply with X = Y");
  sps_ok(sps_spmm_apply(plan, 1.0, X, 0.0, Y) == SPS_SUCCESS, "apply with good arguments succeeds");

  /* The context refuses to go while the objects live, and names them. */
  sps_context *c2 = ctx;
  sps_status st = sps_context_destroy(&c2);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_BUSY && c2 == ctx && strstr(msg, "4 multivectors") &&
             strstr(msg, "1 SpMM plan"),
         "sps_context_destroy with live multivectors and an SpMM plan gives SPS_ERR_BUSY: \"%s\"",
         msg);
  sps_spmm_plan_destroy(&plan);
  sps_ok(plan == NULL && sps_spmm_plan_destroy(NULL) == SPS_SUCCESS,
         "sps_spmm_plan_destroy sets NULL and accepts NULL");
  sps_multivector_destroy(&X);
  sps_multivector_destroy(&Y);
  sps_multivector_destroy(&Z);
  sps_multivector_destroy(&W);
  sps_matrix_destroy(&A);
}

/* AUTO: spmm-csr on the CPU; on a GPU sputnik for even rows, spmm-balanced for a row of 150000. */
static void check_auto(sps_context *ctx)
{
  sps_device_kind dk;
  sps_context_get_device(ctx, &dk, NULL);
  for (int w = 12; w <= 13; w++) {
    const char *name, *why = NULL;
    sps_matrix *A = spmv_synthetic(ctx, w, &name);
    sps_spmm_plan *plan = NULL;
    sps_spmm_kind kind = SPS_SPMM_AUTO;
    if (sps_spmm_plan_create(ctx, &plan, A, 8) || sps_spmm_plan_setup(plan))
      sps_bail("%s", sps_context_last_error(ctx));
    sps_spmm_plan_get_kind(plan, &kind, &why);
    const sps_spmm_kind want = dk != SPS_DEVICE_CUDA ? SPS_SPMM_CSR
                               : w == 12             ? SPS_SPMM_BALANCED
                                                     : SPS_SPMM_SPUTNIK;
    sps_ok(kind == want && why && strstr(why, "rule:"), "AUTO on %s picks %s: %s", name,
           sps_spmm_kind_name(kind), why ? why : "(none)");
    sps_spmm_plan_destroy(&plan);
    sps_matrix_destroy(&A);
  }
  {
    const char *name, *why = NULL;
    sps_matrix *A = spmv_synthetic(ctx, 13, &name);
    sps_spmm_plan *plan = NULL;
    sps_spmm_kind kind = SPS_SPMM_AUTO;
    if (sps_spmm_plan_create(ctx, &plan, A, 1) || sps_spmm_plan_setup(plan))
      sps_bail("%s", sps_context_last_error(ctx));
    sps_spmm_plan_get_kind(plan, &kind, &why);
    sps_ok(kind == SPS_SPMM_SPMV && strstr(why, "SpMV: "), "AUTO with k = 1 on %s picks %s: %s",
           name, sps_spmm_kind_name(kind), why);
    sps_spmm_plan_destroy(&plan);
    sps_matrix_destroy(&A);
  }
  sps_spmm_kind k;
  sps_ok(sps_spmm_kind_from_name("sputnik", &k) == SPS_SUCCESS && k == SPS_SPMM_SPUTNIK &&
             sps_spmm_kind_from_name("nope", &k) == SPS_ERR_ARGUMENT &&
             strcmp(sps_spmm_kind_name(SPS_SPMM_BALANCED), "spmm-balanced") == 0 &&
             sps_spmm_kind_name((sps_spmm_kind)99) == NULL &&
             sps_spmm_kind_description(SPS_SPMM_CUSPARSE) != NULL,
         "SpMM kind names and descriptions");
}

int main(void)
{
  sps_context *ctx = NULL;
#ifdef SPS_TEST_GPU
  ctx = sps_test_cuda_context_or_skip();
#else
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
#endif
  if (sps_case()) check_round_trip(ctx);
  if (sps_case()) check_wrapped(ctx);
  if (sps_case()) check_spmv_wrapped(ctx);
  if (sps_case()) check_bad_arguments(ctx);
  if (sps_case()) check_auto(ctx);
  sps_context_destroy(&ctx);
  return sps_done();
}
