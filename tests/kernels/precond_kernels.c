/* precond_kernels.c: the preconditioners' kernels against their references: triangular solves, the ILU(0) factorisation and the block Jacobi apply; built once for the CPU and once (SPS_TEST_GPU) to hold the CUDA kernels to the CPU reference bit for bit. */
#include "../testlib.h"
#include "../../precond/ilu0.h"
#include "../../precond/ref/kernels.h"
#if defined(SPS_TEST_GPU) && defined(SPS_HAVE_CUDA)
#include "../../core/cuda_state.h"
#include "../../precond/cuda/launchers.h"
#endif

/*
 * CPU build: the references against plain loops written here (substitution and dense ILU(0)
 * restricted to the pattern: the same operations in the same order, so bitwise; the
 * substitution with a per-row tolerance c eps sum |terms|, since the reference's sums are
 * compensated), and the plans on a CPU context against the references, bit for bit.
 * GPU build: the same plans on a CUDA context against the CPU references, bit for bit: the
 * one-block solve (small n), the synchronisation-free solve (n beyond one block's shared
 * memory), repeated launches and a CUDA graph replay, the ILU(0) kernel with its pivot counts,
 * and the block Jacobi kernel; on the bundled matrices and, with SPS_MATRICES, the shared ones
 * (G3_circuit included).
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix is a case (the random ones and their
 * vectors drawn in every shard, each file with an rng of its own), the pivots and block Jacobi one
 * each.
 */

static sps_context *cpu;
static sps_context *dev; /* the context under test: the CPU, or CUDA in the GPU build */

/* A random square matrix with every diagonal entry, about per_row entries a row, rows sorted;
 * `dense_row` >= 0 makes that row full; `chain` makes it bidiagonal plus the diagonal. */
static void random_matrix(sps_host_csr *A, int64_t n, int per_row, int64_t dense_row, int chain,
                          sps_rng *rng)
{
  int64_t cap = n * (per_row + 2) + (dense_row >= 0 ? n : 0) + 1;
  if (sps_host_csr_alloc(cpu, A, n, cap, "test")) sps_bail("alloc");
  int64_t at = 0;
  char *mark = calloc((size_t)n + 1, 1);
  int32_t *cols = malloc(((size_t)n + 1) * sizeof *cols);
  if (!mark || !cols) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++) {
    int m = 0;
    cols[m++] = (int32_t)i;
    mark[i] = 1;
    if (i == dense_row) {
      for (int64_t j = 0; j < n; j++)
        if (!mark[j]) cols[m++] = (int32_t)j, mark[j] = 1;
    } else if (chain) {
      if (i > 0) cols[m++] = (int32_t)(i - 1), mark[i - 1] = 1;
    } else {
      for (int q = 0; q < per_row; q++) {
        const int64_t j = (int64_t)(sps_rng_next(rng) % (uint64_t)n);
        if (!mark[j]) cols[m++] = (int32_t)j, mark[j] = 1;
      }
    }
    /* sort */
    for (int a = 1; a < m; a++) {
      int32_t c = cols[a];
      int b = a;
      for (; b > 0 && cols[b - 1] > c; b--) cols[b] = cols[b - 1];
      cols[b] = c;
    }
    for (int q = 0; q < m; q++) {
      mark[cols[q]] = 0;
      A->colind[at] = cols[q];
      A->values[at++] = cols[q] == i ? 4.0 + sps_rng_uniform(rng) : sps_rng_uniform(rng);
    }
    A->rowptr[i + 1] = at;
  }
  free(mark);
  free(cols);
}

/* Row by row, the plain sum (b_i - sum_j t_ij x_j) dinv_i of row i with the solution x under
 * test on the right (so errors do not carry from row to row), and the sum of |terms|. */
static void plain_rows(const sps_host_csr *F, const int64_t *diag, int upper, const double *dinv,
                       const double *b, const int32_t *perm, const double *scale, const double *x,
                       double *xi_plain, double *mag)
{
  const int64_t n = F->n;
  for (int64_t i = 0; i < n; i++) {
    double bi = b[perm ? perm[i] : i];
    if (scale) bi *= scale[i];
    double sum = bi, m = fabs(bi);
    const int64_t kb = upper ? diag[i] + 1 : F->rowptr[i], ke = upper ? F->rowptr[i + 1] : diag[i];
    for (int64_t k = kb; k < ke; k++) {
      sum -= F->values[k] * x[F->colind[k]];
      m += fabs(F->values[k] * x[F->colind[k]]);
    }
    xi_plain[i] = dinv ? sum * dinv[i] : sum;
    mag[i] = dinv ? m * fabs(dinv[i]) : m;
  }
}

static int same_bits(const double *a, const double *b, int64_t n, int64_t *where)
{
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(double)) != 0) {
      *where = i;
      return 0;
    }
  return 1;
}

/* Factor B by ILU(0) on the host reference: values, dinv, counts. */
static void ref_factor(const sps_host_csr *B, int spd, double *values, double *dinv,
                       int64_t *replaced, int64_t *breakdowns)
{
  const int64_t n = B->n;
  int64_t *diag = malloc(((size_t)n + 1) * sizeof *diag);
  double *rowmax = malloc(((size_t)n + 1) * sizeof *rowmax);
  if (!diag || !rowmax) sps_bail("alloc");
  sps_host_csr_diagonal_positions(B, diag);
  for (int64_t i = 0; i < n; i++) {
    rowmax[i] = 0.0;
    for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++)
      if (fabs(B->values[k]) > rowmax[i]) rowmax[i] = fabs(B->values[k]);
  }
  memcpy(values, B->values, (size_t)B->rowptr[n] * sizeof(double));
  *replaced = *breakdowns = 0;
  sps_ref_ilu0_factor(n, B->rowptr, diag, B->colind, values, rowmax, 1e-10, spd, dinv, replaced,
                      breakdowns);
  free(diag);
  free(rowmax);
}

/*
 * One matrix through the pipeline on `dev`: ILU(0) factors against the reference (bits and
 * counts), then L and U solves (with a permutation and scaling in, a scatter out) against the
 * reference, five times in a row and, where graphs exist, replayed from a graph.
 */
static void check_matrix(const char *name, const sps_host_csr *B, sps_rng *rng, int run)
{
  const int64_t n = B->n, nnz = B->rowptr[n];
  double *rv = malloc(((size_t)nnz + 1) * sizeof(double)), *rd = malloc(((size_t)n + 1) * sizeof(double));
  double *dv = malloc(((size_t)nnz + 1) * sizeof(double)), *dd = malloc(((size_t)n + 1) * sizeof(double));
  double *b = malloc(((size_t)n + 1) * sizeof(double)), *scale = malloc(((size_t)n + 1) * sizeof(double));
  double *xr = malloc(((size_t)n + 1) * sizeof(double)), *xd = malloc(((size_t)n + 1) * sizeof(double));
  double *mag = malloc(((size_t)n + 1) * sizeof(double)), *xp = malloc(((size_t)n + 1) * sizeof(double));
  int32_t *perm = malloc(((size_t)n + 1) * sizeof(int32_t));
  int64_t *diag = malloc(((size_t)n + 1) * sizeof(int64_t));
  if (!rv || !rd || !dv || !dd || !b || !scale || !xr || !xd || !mag || !xp || !perm || !diag)
    sps_bail("alloc");
  /* The solves' b, scale and perm, drawn first (and where run is 0, only drawn: a shard that
   * skips this case keeps the rng where the whole run has it). */
  for (int64_t i = 0; i < n; i++) {
    b[i] = sps_rng_uniform(rng);
    scale[i] = 0.5 + 0.5 * fabs(sps_rng_uniform(rng));
    perm[i] = (int32_t)i;
  }
  for (int64_t i = n - 1; i > 0; i--) {
    const int64_t j = (int64_t)(sps_rng_next(rng) % (uint64_t)(i + 1));
    const int32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  if (!run) {
    free(rv), free(rd), free(dv), free(dd), free(b), free(scale), free(xr), free(xd), free(mag);
    free(xp), free(perm), free(diag);
    return;
  }
  int64_t rrep, rbrk, drep, dbrk;
  ref_factor(B, 0, rv, rd, &rrep, &rbrk);
  sps_lu_factors f;
  if (sps_lu_factors_create(dev, &f, B, NULL, NULL) ||
      sps_ilu0_factor(&f, B, 1e-10, 0, &drep, &dbrk))
    sps_bail("%s: factors: %s", name, sps_context_last_error(dev));
  dev->be->download(dev, dv, f.values, (size_t)nnz * sizeof(double));
  dev->be->download(dev, dd, f.dinv, (size_t)n * sizeof(double));
  int64_t where = -1;
  const int ok = same_bits(rv, dv, nnz, &where) && same_bits(rd, dd, n, &where) && rrep == drep;
  sps_ok(ok,
         "%s (n %lld): ILU(0) factors equal the reference bit for bit (first difference %lld, "
         "replaced %lld/%lld)",
         name, (long long)n, (long long)where, (long long)rrep, (long long)drep);

  /* The solves below: b random, L with perm and scale in, U with the scatter out. */
  sps_host_csr F = *B;
  F.values = rv;
  sps_host_csr_diagonal_positions(&F, diag);
  /* reference: t = L^-1 (scale .* b[perm]), x = U^-1 t scattered by perm */
  double *t = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)n + 1) * sizeof(double));
  if (!t || !y) sps_bail("alloc");
  sps_ref_trisolve(n, 0, F.rowptr, diag, F.colind, rv, NULL, b, perm, scale, t, NULL, NULL, NULL);
  sps_ref_trisolve(n, 1, F.rowptr, diag, F.colind, rv, rd, t, NULL, NULL, y, xr, perm, scale);
  /* the reference against the plain row sums, within c eps sum|terms| per row */
  plain_rows(&F, diag, 0, NULL, b, perm, scale, t, xp, mag);
  int plain_ok = 1;
  for (int64_t i = 0; i < n && plain_ok; i++)
    if (!(fabs(xp[i] - t[i]) <= 64 * 2.2e-16 * (mag[i] + fabs(xp[i])))) plain_ok = 0;
  sps_ok(plain_ok, "%s: the compensated forward substitution agrees with the plain one", name);
  /* the device solves with the same transformation, repeated */
  double *db = NULL, *dt = NULL, *dy = NULL, *dx = NULL, *dsc = NULL;
  int32_t *dperm = NULL;
  const size_t n8 = ((size_t)n + 1) * sizeof(double), n4 = ((size_t)n + 1) * sizeof(int32_t);
  if (dev->be->malloc(dev, (void **)&db, n8, "b") || dev->be->malloc(dev, (void **)&dt, n8, "t") ||
      dev->be->malloc(dev, (void **)&dy, n8, "y") || dev->be->malloc(dev, (void **)&dx, n8, "x") ||
      dev->be->malloc(dev, (void **)&dsc, n8, "s") || dev->be->malloc(dev, (void **)&dperm, n4, "p") ||
      dev->be->upload(dev, db, b, (size_t)n * 8) || dev->be->upload(dev, dsc, scale, (size_t)n * 8) ||
      dev->be->upload(dev, dperm, perm, (size_t)n * 4))
    sps_bail("device vectors: %s", sps_context_last_error(dev));
  int rep_ok = 1;
  for (int rep = 0; rep < 5; rep++) {
    if (sps_trisolve_apply(f.lower, db, dperm, dsc, dt, NULL, NULL, NULL) ||
        sps_trisolve_apply(f.upper, dt, NULL, NULL, dy, dx, dperm, dsc) || dev->be->synchronize(dev))
      sps_bail("%s: solve: %s", name, sps_context_last_error(dev));
    dev->be->download(dev, xd, dx, (size_t)n * sizeof(double));
    if (!same_bits(xr, xd, n, &where)) rep_ok = 0;
  }
  sps_ok(rep_ok, "%s: L and U solves with permutation and scaling equal the reference bit for "
         "bit, 5 times in a row (first difference %lld)",
         name, (long long)where);
  if (dev->be->graph_begin) {
    void *g = NULL;
    dev->be->graph_begin(dev);
    sps_trisolve_apply(f.lower, db, dperm, dsc, dt, NULL, NULL, NULL);
    sps_trisolve_apply(f.upper, dt, NULL, NULL, dy, dx, dperm, dsc);
    if (dev->be->graph_end(dev, &g) != SPS_SUCCESS || !g) sps_bail("graph capture");
    int gok = 1;
    for (int rep = 0; rep < 3; rep++) {
      dev->be->fill(dev, n, 0.0, dx);
      dev->be->graph_launch(dev, g);
      dev->be->synchronize(dev);
      dev->be->download(dev, xd, dx, (size_t)n * sizeof(double));
      if (!same_bits(xr, xd, n, &where)) gok = 0;
    }
    dev->be->graph_destroy(dev, g);
    sps_ok(gok, "%s: the solves replayed from a CUDA graph equal the reference bit for bit", name);
  }
  void *dvs[] = {db, dt, dy, dx, dsc, dperm};
  for (size_t k = 0; k < sizeof dvs / sizeof dvs[0]; k++) dev->be->free(dev, dvs[k]);
  sps_lu_factors_destroy(&f);
  free(rv), free(rd), free(dv), free(dd), free(b), free(scale), free(xr), free(xd), free(mag);
  free(xp), free(perm), free(diag), free(t), free(y);
}

/* The pivot rule: zero and tiny pivots replaced (ILU), non-positive ones counted (IC). */
static void check_pivots(void)
{
  /* [[0, 1], [1, 0]] with the diagonal completed: both pivots 0 */
  sps_host_csr B;
  if (sps_host_csr_alloc(cpu, &B, 2, 4, "t")) sps_bail("alloc");
  B.rowptr[1] = 2, B.rowptr[2] = 4;
  B.colind[0] = 0, B.colind[1] = 1, B.colind[2] = 0, B.colind[3] = 1;
  B.values[0] = 0.0, B.values[1] = 1.0, B.values[2] = 1.0, B.values[3] = 0.0;
  double v[4], d[2];
  int64_t rep, brk;
  ref_factor(&B, 0, v, d, &rep, &brk);
  /* u_00 = 0 is replaced by 1e-10; then u_11 = 0 - 1e10 is large and kept */
  sps_ok(rep == 1 && d[0] == 1e10 && isfinite(d[1]) && v[2] == 1e10,
         "ILU(0) of [[0, 1], [1, 0]]: the zero pivot replaced (%lld), finite factors", (long long)rep);
  B.values[0] = -1.0, B.values[3] = 2.0;
  ref_factor(&B, 1, v, d, &rep, &brk);
  sps_ok(brk == 2 && rep == 2, "IC(0) of [[-1, 1], [1, 2]]: breakdowns counted (%lld)", (long long)brk);
  sps_host_csr_free(&B);
}

/* Block Jacobi: the reference against a plain block product, and the device kernel. */
static void check_bjacobi(sps_rng *rng)
{
  const int sizes[] = {1, 2, 3, 4, 7, 8, 16, 33, 64};
  const int64_t lens[] = {0, 1, 5, 97, 1000};
  int ref_ok = 1, dev_ok = 1;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
      const int bs = sizes[s];
      const int64_t n = lens[l], nb = (n + bs - 1) / bs;
      const size_t tot = (size_t)(nb > 0 ? nb : 1) * bs * bs;
      double *inv = malloc(tot * sizeof(double)), *r = malloc(((size_t)n + 1) * 8);
      double *z = malloc(((size_t)n + 1) * 8), *zd = malloc(((size_t)n + 1) * 8);
      if (!inv || !r || !z || !zd) sps_bail("alloc");
      for (size_t k = 0; k < tot; k++) inv[k] = sps_rng_uniform(rng) * 1e3;
      for (int64_t i = 0; i < n; i++) r[i] = sps_rng_uniform(rng);
      sps_ref_bjacobi_apply(n, bs, inv, r, z);
      for (int64_t i = 0; i < n; i++) {
        const int64_t b0 = i / bs * bs;
        const int m = n - b0 < bs ? (int)(n - b0) : bs;
        double sum = 0.0, mag = 0.0;
        for (int j = 0; j < m; j++) {
          sum += inv[(i / bs) * bs * bs + (i - b0) * bs + j] * r[b0 + j];
          mag += fabs(inv[(i / bs) * bs * bs + (i - b0) * bs + j] * r[b0 + j]);
        }
        if (!(fabs(sum - z[i]) <= 64 * 2.2e-16 * mag)) ref_ok = 0;
      }
      double *dinv = NULL, *dr = NULL, *dz = NULL;
      if (dev->be->malloc(dev, (void **)&dinv, tot * 8, "inv") ||
          dev->be->malloc(dev, (void **)&dr, ((size_t)n + 1) * 8, "r") ||
          dev->be->malloc(dev, (void **)&dz, ((size_t)n + 1) * 8, "z") ||
          dev->be->upload(dev, dinv, inv, tot * 8) || dev->be->upload(dev, dr, r, (size_t)n * 8))
        sps_bail("device");
#if defined(SPS_TEST_GPU) && defined(SPS_HAVE_CUDA)
      if (sps_cuda_bjacobi_apply(sps_cuda(dev)->stream, n, bs, dinv, dr, dz) != cudaSuccess ||
          dev->be->synchronize(dev))
        sps_bail("bjacobi kernel");
#else
      sps_ref_bjacobi_apply(n, bs, dinv, dr, dz);
#endif
      dev->be->download(dev, zd, dz, (size_t)n * 8);
      int64_t where;
      if (!same_bits(z, zd, n, &where)) dev_ok = 0;
      dev->be->free(dev, dinv), dev->be->free(dev, dr), dev->be->free(dev, dz);
      free(inv), free(r), free(z), free(zd);
    }
  sps_ok(ref_ok, "block Jacobi reference agrees with the plain block product (bs 1 to 64, n 0 to 1000)");
  sps_ok(dev_ok, "block Jacobi apply on %s equals the reference bit for bit", dev->kind == SPS_DEVICE_CUDA ? "the GPU" : "the CPU");
}

/* One case: the file's own rng, seeded from seed. */
static void check_file(const char *dir, const char *file, uint64_t seed)
{
  sps_rng rng = {seed};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(cpu, &A, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: %s", file, sps_context_last_error(cpu));
    return;
  }
  sps_host_csr B;
  if (sps_host_csr_with_diagonal(cpu, A, 1.0, &B)) sps_bail("copy");
  check_matrix(file, &B, &rng, 1);
  sps_host_csr_free(&B);
  sps_matrix_destroy(&A);
}

int main(void)
{
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("CPU context");
#ifdef SPS_TEST_GPU
  dev = sps_test_cuda_context_or_skip();
#else
  dev = cpu;
#endif
  sps_rng rng = {0x7215017e5ull};
  /* Random and structured triangles: odd sizes, n = 0 and 1, a dense row (a warp sums it),
   * a chain of n levels, and one large enough for the synchronisation-free GPU solve. */
  const int64_t sizes[] = {0, 1, 2, 7, 33, 255, 1000, 4099};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    sps_host_csr B;
    random_matrix(&B, sizes[k], 3, -1, 0, &rng);
    char name[64];
    snprintf(name, sizeof name, "random n=%lld", (long long)sizes[k]);
    check_matrix(name, &B, &rng, sps_case()); /* drawn in every shard, checked in one */
    sps_host_csr_free(&B);
  }
  {
    sps_host_csr B;
    random_matrix(&B, 300, 2, 150, 0, &rng);
    check_matrix("a dense row", &B, &rng, sps_case());
    sps_host_csr_free(&B);
    random_matrix(&B, 2000, 0, -1, 1, &rng);
    check_matrix("a chain of 2000 levels", &B, &rng, sps_case());
    sps_host_csr_free(&B);
    random_matrix(&B, 60000, 4, -1, 0, &rng);
    check_matrix("random n=60000 (beyond one block)", &B, &rng, sps_case());
    sps_host_csr_free(&B);
  }
  if (sps_case()) check_pivots();
  if (sps_case()) check_bjacobi(&rng); /* the last to draw from rng */
  const char *data = sps_test_data_dir();
  const char *bundled[] = {"nos3.mtx.gz", "orsreg_1.mtx.gz", "add20.mtx.gz", "bcsstk14.mtx.gz"};
  for (size_t k = 0; k < sizeof bundled / sizeof bundled[0]; k++)
    if (sps_case()) check_file(data, bundled[k], 0x7215017e5ull + 0x9e3779b97f4a7c15ull * (k + 1));
  const char *dir = sps_test_matrices_dir();
  if (dir) {
    const char *shared[] = {"rajat12.mtx.gz", "adder_dcop_05.mtx.gz", "ani5_crop.mtx.gz",
                            "olm1000.mtx.gz", "bcsstk13.mtx.gz", "G3_circuit.mtx.gz",
                            "laplacian7pt_100.mtx.gz"};
    for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++) {
#ifndef SPS_TEST_GPU
      if (strstr(shared[k], "G3_") || strstr(shared[k], "laplacian")) continue; /* GPU only */
#endif
      if (sps_case()) check_file(dir, shared[k], 0xf11e5ull + 0x9e3779b97f4a7c15ull * (k + 1));
    }
  }
  if (dev != cpu) sps_context_destroy(&dev);
  sps_context_destroy(&cpu);
  return sps_done();
}
