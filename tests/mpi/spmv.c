/* spmv.c: the distributed SpMV against the serial csr-scalar product, bitwise: the bundled matrices and a generated one with empty and dense rows, each way of making a distributed matrix (scattered in contiguous blocks and by METIS, read by every rank, from each rank's local rows given unsorted with repeats), on 1 .. P ranks, with every variant AUTO may pick for the diagonal block. */
#include "mpitest.h"

/* The variants a distributed product may run on its diagonal block and still give csr-scalar's
 * bits (coo, hyb and cusparse round otherwise: they are not held to it). */
static const sps_spmv_kind kinds[] = {SPS_SPMV_AUTO,  SPS_SPMV_CSR_SCALAR, SPS_SPMV_CSR_VECTOR,
                                      SPS_SPMV_MERGE, SPS_SPMV_BLOCKWISE,  SPS_SPMV_BINNED,
                                      SPS_SPMV_ELL};

enum { BUILD_CONTIGUOUS, BUILD_METIS, BUILD_READ, BUILD_LOCAL, BUILD_COUNT };
static const char *const build_names[BUILD_COUNT] = {"scatter contiguous", "scatter metis",
                                                     "read by every rank", "local rows"};

/* A generated nonsymmetric matrix: rows of 0 to 5 entries, row 7 dense, rows 3 and 11 empty. */
static sps_matrix *generated(sps_context *ctx, int64_t n)
{
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(n * n) * sizeof *ci);
  double *va = malloc((size_t)(n * n) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of host memory");
  sps_rng rng = {77};
  int64_t k = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i == 7) {
      for (int64_t j = 0; j < n; j++) {
        ci[k] = (int32_t)j;
        va[k++] = sps_rng_uniform(&rng);
      }
    } else if (i != 3 && i != 11) {
      const int len = (int)(sps_rng_next(&rng) % 6);
      int64_t j = (int64_t)(sps_rng_next(&rng) % (uint64_t)n);
      for (int l = 0; l < len && j < n; l++, j += 1 + (int64_t)(sps_rng_next(&rng) % 9)) {
        ci[k] = (int32_t)j;
        va[k++] = sps_rng_uniform(&rng);
      }
    }
    rp[i + 1] = k;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, va)) sps_bail("generated matrix");
  free(rp);
  free(ci);
  free(va);
  return A;
}

/*
 * The rank's rows of A0 (contiguous blocks of the original order) for the local-rows API: each
 * row reversed, with its first entry split into two halves (a repeat the API must sum; halving
 * is exact).
 */
static sps_status local_rows(sps_context *ctx, const sps_matrix *A0, int rank, int size,
                             sps_matrix **A)
{
  int64_t n, nnz;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_size(A0, &n, NULL, &nnz);
  sps_matrix_get_csr(A0, &rp, &ci, &va);
  const int64_t lo = (int64_t)rank * n / size, hi = (int64_t)(rank + 1) * n / size;
  int64_t *lrp = malloc((size_t)(hi - lo + 1) * sizeof *lrp);
  int64_t *lci = malloc((size_t)(nnz + n + 1) * sizeof *lci);
  double *lva = malloc((size_t)(nnz + n + 1) * sizeof *lva);
  if (!lrp || !lci || !lva) sps_bail("out of host memory");
  int64_t k = 0;
  lrp[0] = 0;
  for (int64_t i = lo; i < hi; i++) {
    for (int64_t e = rp[i + 1] - 1; e >= rp[i]; e--) {
      lci[k] = ci[e];
      lva[k++] = e == rp[i] ? 0.5 * va[e] : va[e];
    }
    if (rp[i + 1] > rp[i]) {
      lci[k] = ci[rp[i]];
      lva[k++] = 0.5 * va[rp[i]];
    }
    lrp[i - lo + 1] = k;
  }
  const sps_status st = sps_matrix_create_dist_csr(ctx, A, hi - lo, lrp, lci, lva);
  free(lrp);
  free(lci);
  free(lva);
  return st;
}

/* Build the distributed matrix one way; SPS_ERR_UNSUPPORTED for METIS without METIS. */
static sps_status build(sps_context *ctx, int how, const char *path, const sps_matrix *A0, int rank,
                        int size, sps_matrix **A)
{
  switch (how) {
  case BUILD_CONTIGUOUS:
    return sps_matrix_scatter(ctx, A, 0, rank == 0 ? A0 : NULL, SPS_PARTITION_CONTIGUOUS);
  case BUILD_METIS:
    return sps_matrix_scatter(ctx, A, 0, rank == 0 ? A0 : NULL, SPS_PARTITION_METIS);
  case BUILD_READ:
    return sps_matrix_read_mm_dist(ctx, A, path, 0);
  default:
    return local_rows(ctx, A0, rank, size, A);
  }
}

/* y = 1.5 A x - 0.75 y0 and y = A x (y full of NaN, unread) with every variant, gathered on rank
 * 0 and compared with the serial products to the bit. */
static void check_products(MPI_Comm comm, sps_context *dctx, const sps_matrix *A, int64_t n,
                           const double *x, const double *y0, const double *ref1,
                           const double *ref2, const char *what)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  int64_t nl;
  sps_matrix_get_size(A, &nl, NULL, NULL);
  sps_vector *dx = NULL, *dy = NULL;
  if (sps_vector_create(dctx, &dx, nl) || sps_vector_create(dctx, &dy, nl) ||
      sps_vector_scatter(A, 0, x, dx))
    sps_bail("%s: vectors: %s", what, sps_context_last_error(dctx));
  double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
  double *nans = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *nans);
  if (!y || !nans) sps_bail("out of host memory");
  for (int64_t i = 0; i < nl; i++) nans[i] = NAN;
  int ok = 1, ran = 0;
  char bad[256] = "";
  for (size_t v = 0; v < sizeof kinds / sizeof kinds[0]; v++) {
    sps_spmv_plan *plan = NULL;
    sps_status st = sps_spmv_plan_create(dctx, &plan, A, kinds[v]);
    if (!st) st = sps_spmv_plan_setup(plan);
    if (st == SPS_ERR_UNSUPPORTED || st == SPS_ERR_SIZE) { /* ELL's padding limit */
      sps_spmv_plan_destroy(&plan);
      continue;
    }
    if (st) sps_bail("%s: plan %s: %s", what, sps_spmv_kind_name(kinds[v]), sps_context_last_error(dctx));
    ran++;
    for (int pass = 0; pass < 2; pass++) {
      if (pass == 0)
        st = sps_vector_scatter(A, 0, y0, dy);
      else
        st = sps_vector_upload(dy, nans, nl);
      if (!st) st = sps_spmv_apply(plan, pass == 0 ? 1.5 : 1.0, dx, pass == 0 ? -0.75 : 0.0, dy);
      if (!st) st = sps_vector_gather(A, 0, dy, y);
      if (st) sps_bail("%s: apply: %s", what, sps_context_last_error(dctx));
      if (rank == 0) {
        const int64_t d = mpitest_first_diff(n, y, pass == 0 ? ref1 : ref2);
        if (d >= 0 && ok) {
          ok = 0;
          snprintf(bad, sizeof bad, " -- %s %s: row %lld %.17g vs %.17g", sps_spmv_kind_name(kinds[v]),
                   pass == 0 ? "alpha, beta" : "beta = 0", (long long)d, y[d],
                   (pass == 0 ? ref1 : ref2)[d]);
        }
      }
    }
    sps_spmv_plan_destroy(&plan);
  }
  mpi_ok(comm, ok && ran >= 2, "%s: %d variants, y = 1.5 A x - 0.75 y0 and y = A x equal the serial product bitwise%s", what, ran, bad);
  sps_vector_destroy(&dx);
  sps_vector_destroy(&dy);
  free(y);
  free(nans);
}

/* The serial references on the rank: y = 1.5 A x - 0.75 y0 and y = A x by csr-scalar. */
static void serial_products(sps_context *sctx, const sps_matrix *A0, int64_t n, const double *x,
                            const double *y0, double *ref1, double *ref2)
{
  sps_spmv_plan *plan = NULL;
  sps_vector *vx = NULL, *vy = NULL;
  if (sps_spmv_plan_create(sctx, &plan, A0, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(plan) ||
      sps_vector_create(sctx, &vx, n) || sps_vector_create(sctx, &vy, n) ||
      sps_vector_upload(vx, x, n) || sps_vector_upload(vy, y0, n) ||
      sps_spmv_apply(plan, 1.5, vx, -0.75, vy) || sps_vector_download(vy, ref1, n) ||
      sps_spmv_apply(plan, 1.0, vx, 0.0, vy) || sps_vector_download(vy, ref2, n))
    sps_bail("serial product: %s", sps_context_last_error(sctx));
  sps_spmv_plan_destroy(&plan);
  sps_vector_destroy(&vx);
  sps_vector_destroy(&vy);
}

static void run_matrix(sps_device_kind dev, const char *name, const char *path)
{
  sps_context *sctx = NULL;
  if (sps_context_create(&sctx, SPS_DEVICE_CPU, 0)) sps_bail("serial context");
  sps_matrix *A0 = NULL;
  if (path) {
    if (sps_matrix_read_mm(sctx, &A0, path, 0)) sps_bail("%s: %s", path, sps_context_last_error(sctx));
  } else {
    A0 = generated(sctx, 97);
  }
  int64_t n;
  sps_matrix_get_size(A0, &n, NULL, NULL);
  double *x = mpitest_random(n, 11), *y0 = mpitest_random(n, 12);
  double *ref1 = malloc((size_t)n * sizeof *ref1), *ref2 = malloc((size_t)n * sizeof *ref2);
  if (!ref1 || !ref2) sps_bail("out of host memory");
  serial_products(sctx, A0, n, x, y0, ref1, ref2);
  for (int k = 1; k <= mpitest_size; k++) {
    MPI_Comm comm = mpitest_first(k);
    if (comm == MPI_COMM_NULL) continue;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sps_context *dctx = mpitest_context(comm, dev);
    for (int how = 0; how < BUILD_COUNT; how++) {
      if (how == BUILD_READ && !path) continue;
      char what[256];
      snprintf(what, sizeof what, "%s, %d rank%s, %s", name, size, size == 1 ? "" : "s",
               build_names[how]);
      sps_matrix *A = NULL;
      const sps_status st = build(dctx, how, path, A0, rank, size, &A);
      if (st == SPS_ERR_UNSUPPORTED && how == BUILD_METIS) {
        if (rank == 0) sps_skip("%s: built without METIS", what);
        continue;
      }
      if (st) sps_bail("%s: %s", what, sps_context_last_error(dctx));
      check_products(comm, dctx, A, n, x, y0, ref1, ref2, what);
      sps_matrix_destroy(&A);
    }
    if (sps_context_destroy(&dctx)) sps_bail("context destroy");
    MPI_Comm_free(&comm);
  }
  mpitest_barrier();
  free(x);
  free(y0);
  free(ref1);
  free(ref2);
  sps_matrix_destroy(&A0);
  sps_context_destroy(&sctx);
}

int main(int argc, char **argv)
{
  mpitest_init(&argc, &argv);
  const sps_device_kind dev = mpitest_device();
  static const char *const files[] = {"1138_bus.mtx.gz", "bcsstk14.mtx.gz", "nos3.mtx.gz",
                                      "orsreg_1.mtx.gz", "watt_2.mtx.gz", "add20.mtx.gz"};
  char path[1024];
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
    run_matrix(dev, files[f], mpitest_data(files[f], path, sizeof path));
  run_matrix(dev, "generated (empty rows, a dense row)", NULL);
  return mpitest_done();
}
