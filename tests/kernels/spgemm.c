/* spgemm.c: tests of the sparse product C = A B: the CPU reference against a dense product, and
 * (built with SPS_TEST_GPU) the GPU hash SpGEMM against the reference bit for bit.
 *
 * CPU build: on small random rectangular matrices (m = 0, k = 0, n = 0, 1 x 1, empty rows,
 * a dense row of A and of B, nnz = 0, rows that cancel to zero, mixed magnitudes 2^-20 to
 * 2^20 of both signs), the reference's pattern must be exactly the structural pattern of the
 * dense product (an entry wherever some a_ik b_kj is stored, zero or not) and each value
 * within eps |S| + (len + 2) eps_ld sum |a_ik b_kj| of S, the sum of the double products in
 * long double. sps_spgemm and sps_csr_transpose on a CPU context, their argument and size
 * errors, and every host allocation of sps_spgemm failed in turn (status, no leak).
 * GPU build: the same products, larger random ones that fill every bin of the kernels (rows
 * of 0 to over 4096 columns, the global-memory bin, many products on one column, long rows
 * of A times an aggregation), and the multigrid products of real matrices (A A, A P with P
 * the aggregation i -> i / 8, and P^T (A P)) of the bundled files (nos3, bcsstk14 and five
 * more; A^T A and A A^T of the rectangular ash219) and, with SPS_MATRICES, of the shared
 * ani5_crop, bcsstk13, rajat12, G3_circuit and laplacian7pt_100: the GPU's C must have the
 * reference's pattern and its values to the bit (both add each c_ij's products in A's row order);
 * values that differ ("ties": a compensated sum in another order would differ there) are counted
 * and printed, and none is allowed on these inputs.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each random pair, the cancellation, the transpose,
 * the errors and each product of a real matrix is a case (the random pairs are drawn in every
 * shard; a file is read only by a shard with one of its products).
 */
#include "../../precond/spgemm.h"
#include "../../precond/ref/kernels.h"
#include "../testlib.h"

static sps_context *cpu;
static sps_context *dev; /* the CPU, or CUDA in the GPU build */

/* A random value of magnitude 2^-20 to 2^20 and either sign. */
static double mixed(sps_rng *rng)
{
  const int e = (int)(sps_rng_next(rng) % 41) - 20;
  double v = ldexp(sps_rng_uniform(rng), e);
  return v != 0.0 ? v : 1.0;
}

/*
 * A random m x n matrix: row i has about per_row entries (0 to 2 per_row, uniform), rows
 * numbered in `empty` (every empty-th row, 0: none) have none, row dense_row (-1: none) has
 * all n columns. Values mixed, columns sorted.
 */
static void random_rcsr(sps_host_rcsr *M, int64_t m, int64_t n, int per_row, int empty,
                        int64_t dense_row, sps_rng *rng)
{
  const int64_t cap = m * (2 * (int64_t)per_row + 1) + (dense_row >= 0 ? n : 0) + 1;
  if (sps_host_rcsr_alloc(cpu, M, m, n, cap, "test matrix")) sps_bail("alloc");
  char *mark = calloc((size_t)n + 1, 1);
  if (!mark) sps_bail("alloc");
  int64_t at = 0;
  for (int64_t i = 0; i < m; i++) {
    M->rowptr[i] = at;
    if (i == dense_row) {
      for (int64_t j = 0; j < n; j++) {
        M->colind[at] = (int32_t)j;
        M->values[at++] = mixed(rng);
      }
      continue;
    }
    if ((empty && i % empty == 0) || n == 0) continue;
    const int len = per_row ? (int)(sps_rng_next(rng) % (uint64_t)(2 * per_row + 1)) : 0;
    const int64_t first = at;
    for (int q = 0; q < len; q++) {
      const int64_t j = (int64_t)(sps_rng_next(rng) % (uint64_t)n);
      if (!mark[j]) {
        mark[j] = 1;
        M->colind[at++] = (int32_t)j;
      }
    }
    for (int64_t a = first + 1; a < at; a++) {
      const int32_t c = M->colind[a];
      int64_t b = a;
      for (; b > first && M->colind[b - 1] > c; b--)
        M->colind[b] = M->colind[b - 1];
      M->colind[b] = c;
    }
    for (int64_t a = first; a < at; a++) {
      mark[M->colind[a]] = 0;
      M->values[a] = mixed(rng);
    }
  }
  M->rowptr[m] = at;
  free(mark);
}

/* Byte-for-byte equality of two products; ties (values that differ) counted into *ties. */
static int same_product(const char *name, const sps_host_rcsr *R, const sps_host_rcsr *G,
                        int64_t *ties)
{
  *ties = 0;
  if (R->nrows != G->nrows || R->ncols != G->ncols) {
    sps_diag("%s: sizes %lld x %lld against %lld x %lld", name, (long long)R->nrows,
             (long long)R->ncols, (long long)G->nrows, (long long)G->ncols);
    return 0;
  }
  for (int64_t i = 0; i <= R->nrows; i++)
    if (R->rowptr[i] != G->rowptr[i]) {
      sps_diag("%s: row %lld starts at %lld, not %lld", name, (long long)i, (long long)G->rowptr[i],
               (long long)R->rowptr[i]);
      return 0;
    }
  const int64_t nnz = R->rowptr[R->nrows];
  for (int64_t p = 0; p < nnz; p++)
    if (R->colind[p] != G->colind[p]) {
      sps_diag("%s: entry %lld has column %d, not %d", name, (long long)p, G->colind[p],
               R->colind[p]);
      return 0;
    }
  for (int64_t p = 0; p < nnz; p++)
    if (memcmp(&R->values[p], &G->values[p], sizeof(double)) != 0) {
      if (++*ties <= 5)
        sps_diag("%s: tie at entry %lld (column %d): %.17g against the reference's %.17g", name,
                 (long long)p, R->colind[p], G->values[p], R->values[p]);
    }
  if (*ties) sps_diag("%s: %lld values differ from the reference", name, (long long)*ties);
  return 1;
}

#ifndef SPS_TEST_GPU
/* The reference against the dense product in long double. */
static void check_dense(const char *name, const sps_host_rcsr *A, const sps_host_rcsr *B)
{
  const int64_t m = A->nrows, k = A->ncols, n = B->ncols;
  sps_host_rcsr C;
  if (sps_spgemm(cpu, A, B, &C)) sps_bail("%s: %s", name, sps_context_last_error(cpu));
  long double *S = calloc((size_t)(m * n) + 1, sizeof *S);
  double *mag = calloc((size_t)(m * n) + 1, sizeof *mag);
  int64_t *len = calloc((size_t)(m * n) + 1, sizeof *len);
  if (!S || !mag || !len) sps_bail("alloc");
  (void)k;
  for (int64_t i = 0; i < m; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      const int64_t kk = A->colind[p];
      for (int64_t q = B->rowptr[kk]; q < B->rowptr[kk + 1]; q++) {
        const double t = A->values[p] * B->values[q]; /* the rounded product */
        const size_t at = (size_t)(i * n + B->colind[q]);
        S[at] += (long double)t;
        mag[at] += fabs(t);
        len[at]++;
      }
    }
  int pattern = C.nrows == m && C.ncols == n, values = 1;
  int64_t at = 0;
  for (int64_t i = 0; i < m && pattern; i++) {
    if (C.rowptr[i] != at) pattern = 0;
    for (int64_t j = 0; j < n && pattern; j++) {
      const size_t d = (size_t)(i * n + j);
      if (!len[d]) continue;
      if (at >= C.rowptr[i + 1] || C.colind[at] != j) {
        pattern = 0;
        sps_diag("%s: entry (%lld, %lld) missing or out of order", name, (long long)i,
                 (long long)j);
        break;
      }
      const double bound = DBL_EPSILON * fabsl(S[d]) +
                           (double)(len[d] + 2) * (double)LDBL_EPSILON * mag[d] +
                           (double)(len[d] * len[d]) * DBL_EPSILON * DBL_EPSILON * mag[d];
      if (!(fabsl((long double)C.values[at] - S[d]) <= bound)) {
        if (values)
          sps_diag("%s: c(%lld, %lld) = %.17g, dense %.17Lg (bound %g)", name, (long long)i,
                   (long long)j, C.values[at], S[d], bound);
        values = 0;
      }
      at++;
    }
    if (pattern && at != C.rowptr[i + 1]) pattern = 0;
  }
  sps_ok(pattern,
         "%s (%lld x %lld times %lld x %lld): the reference's pattern is the dense product's", name,
         (long long)m, (long long)k, (long long)k, (long long)n);
  sps_ok(values, "%s: values within eps |S| + (len + 2) eps_ld sum|t| of the long double sum",
         name);
  free(S), free(mag), free(len);
  sps_host_rcsr_free(&C);
}
#endif

/* The product on the device under test against the reference's, bit for bit. */
static void check_device(const char *name, const sps_host_rcsr *A, const sps_host_rcsr *B)
{
  sps_host_rcsr R, G;
  if (sps_spgemm(cpu, A, B, &R)) sps_bail("%s: %s", name, sps_context_last_error(cpu));
  const sps_status st = sps_spgemm(dev, A, B, &G);
  if (st != SPS_SUCCESS) {
    sps_ok(0, "%s on %s: %s", name, dev == cpu ? "the CPU" : "the GPU",
           sps_context_last_error(dev));
    sps_host_rcsr_free(&R);
    return;
  }
  int64_t ties = 0;
  const int same = same_product(name, &R, &G, &ties);
  sps_ok(same && ties == 0,
         "%s (%lld x %lld, nnz(C) = %lld) on %s: the reference's pattern and bits (%lld ties)",
         name, (long long)A->nrows, (long long)B->ncols, (long long)R.rowptr[R.nrows],
         dev == cpu ? "the CPU" : "the GPU", (long long)ties);
  sps_host_rcsr_free(&R);
  sps_host_rcsr_free(&G);
}

/* Both checks of one pair: the reference against the dense product (CPU build, small sizes),
 * the device against the reference. */
static void check_pair(const char *name, const sps_host_rcsr *A, const sps_host_rcsr *B)
{
#ifndef SPS_TEST_GPU
  if (A->nrows * B->ncols <= 4000000) check_dense(name, A, B);
#endif
  check_device(name, A, B);
}

static void check_random(const char *name, int64_t m, int64_t k, int64_t n, int per_a, int per_b,
                         int empty, int64_t dense_a, int64_t dense_b, sps_rng *rng)
{
  sps_host_rcsr A, B;
  random_rcsr(&A, m, k, per_a, empty, dense_a, rng);
  random_rcsr(&B, k, n, per_b, empty ? empty + 1 : 0, dense_b, rng);
  if (sps_case()) check_pair(name, &A, &B);
  sps_host_rcsr_free(&A);
  sps_host_rcsr_free(&B);
}

/* Rows that cancel: c_ij = x - x + y - y = 0 exactly, and c = a b - a b + tiny, kept as entries. */
static void check_cancel(void)
{
  sps_host_rcsr A, B;
  if (sps_host_rcsr_alloc(cpu, &A, 2, 4, 8, "A") || sps_host_rcsr_alloc(cpu, &B, 4, 3, 12, "B"))
    sps_bail("alloc");
  const double x = 0.1, y = 3e10;
  for (int p = 0; p < 4; p++) {
    A.colind[p] = p, A.values[p] = 1.0;       /* row 0: 1 1 1 1 */
    A.colind[4 + p] = p, A.values[4 + p] = x; /* row 1: x x x x */
  }
  A.rowptr[1] = 4, A.rowptr[2] = 8;
  const double bvals[4][3] = {{x, y, 1.0}, {-x, -y, 1e-30}, {y, x, -1.0}, {-y, -x, 0.0}};
  for (int r = 0; r < 4; r++) {
    B.rowptr[r] = 3 * r;
    for (int j = 0; j < 3; j++)
      B.colind[3 * r + j] = j, B.values[3 * r + j] = bvals[r][j];
  }
  B.rowptr[4] = 12;
  sps_host_rcsr C;
  if (sps_spgemm(cpu, &A, &B, &C)) sps_bail("cancel: %s", sps_context_last_error(cpu));
  sps_ok(C.rowptr[2] == 6 && C.values[0] == 0.0 && C.values[1] == 0.0 && C.values[2] == 1e-30,
         "cancellation: every structural entry kept, x - x + y - y = 0 and 1 - 1 + 1e-30 exact "
         "(got %.17g %.17g %.17g)",
         C.values[0], C.values[1], C.values[2]);
  sps_host_rcsr_free(&C);
  check_pair("cancellation", &A, &B);
  sps_host_rcsr_free(&A);
  sps_host_rcsr_free(&B);
}

/* P: the n x ceil(n / 8) aggregation of row i to column i / 8 (value 1). */
static void aggregation(sps_host_rcsr *P, int64_t n)
{
  const int64_t nc = (n + 7) / 8;
  if (sps_host_rcsr_alloc(cpu, P, n, nc, n, "P")) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++) {
    P->rowptr[i] = i;
    P->colind[i] = (int32_t)(i / 8);
    P->values[i] = 1.0;
  }
  P->rowptr[n] = n;
}

/* The multigrid products of a real matrix: A A (A^T A and A A^T when not square), A P and
 * P^T (A P); three cases (the third empty when A is not square), the file read only where one
 * of them runs. */
static void check_file(const char *dir, const char *file)
{
  const int c1 = sps_case(), c2 = sps_case(), c3 = sps_case();
  if (!c1 && !c2 && !c3) return;
  char path[4096], name[256];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  sps_matrix *M = NULL;
  if (sps_matrix_read_mm(cpu, &M, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: %s", file, sps_context_last_error(cpu));
    return;
  }
  int64_t m, n, nnz;
  sps_matrix_get_size(M, &m, &n, &nnz);
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(M, &rp, &ci, &va);
  /* A view of the matrix's arrays. */
  sps_host_rcsr A = {m, n, (int64_t *)rp, (int32_t *)ci, (double *)va};
  if (m != n) {
    sps_host_rcsr T;
    if (sps_csr_transpose(cpu, &A, &T)) sps_bail("transpose");
    snprintf(name, sizeof name, "%s: A^T A", file);
    if (c1) check_device(name, &T, &A);
    snprintf(name, sizeof name, "%s: A A^T", file);
    if (c2) check_device(name, &A, &T);
    sps_host_rcsr_free(&T);
  } else {
    sps_host_rcsr P, R, AP;
    snprintf(name, sizeof name, "%s: A A", file);
    if (c1) check_device(name, &A, &A);
    aggregation(&P, n);
    if (sps_csr_transpose(cpu, &P, &R) || sps_spgemm(cpu, &A, &P, &AP)) sps_bail("P");
    snprintf(name, sizeof name, "%s: A P", file);
    if (c2) check_device(name, &A, &P);
    snprintf(name, sizeof name, "%s: P^T (A P)", file);
    if (c3) check_device(name, &R, &AP);
    sps_host_rcsr_free(&P);
    sps_host_rcsr_free(&R);
    sps_host_rcsr_free(&AP);
  }
  sps_matrix_destroy(&M);
}

#ifndef SPS_TEST_GPU
/* The transpose against the definition, twice back to the start. */
static void check_transpose(sps_rng *rng)
{
  sps_host_rcsr A, T, TT;
  random_rcsr(&A, 37, 23, 4, 5, 7, rng); /* in every shard: the rng goes on */
  if (!sps_case()) {
    sps_host_rcsr_free(&A);
    return;
  }
  if (sps_csr_transpose(cpu, &A, &T) || sps_csr_transpose(cpu, &T, &TT)) sps_bail("transpose");
  int ok = T.nrows == 23 && T.ncols == 37 && TT.rowptr[37] == A.rowptr[37];
  for (int64_t i = 0; ok && i <= 37; i++)
    ok = TT.rowptr[i] == A.rowptr[i];
  for (int64_t p = 0; ok && p < A.rowptr[37]; p++)
    ok = TT.colind[p] == A.colind[p] && TT.values[p] == A.values[p];
  for (int64_t j = 0; ok && j < 23; j++)
    for (int64_t p = T.rowptr[j]; ok && p < T.rowptr[j + 1]; p++) {
      const int64_t i = T.colind[p];
      ok = (p == T.rowptr[j] || T.colind[p - 1] < i);
      int found = 0;
      for (int64_t q = A.rowptr[i]; q < A.rowptr[i + 1]; q++)
        if (A.colind[q] == j && A.values[q] == T.values[p]) found = 1;
      ok = ok && found;
    }
  sps_ok(ok, "sps_csr_transpose: rows sorted, entries of A, (A^T)^T = A");
  sps_host_rcsr_free(&A);
  sps_host_rcsr_free(&T);
  sps_host_rcsr_free(&TT);
}

/* Argument and size errors, and each host allocation of sps_spgemm failed in turn. */
static void check_errors(sps_rng *rng)
{
  sps_host_rcsr A, B, B2, C;
  random_rcsr(&A, 20, 15, 3, 0, 4, rng);
  random_rcsr(&B, 14, 9, 3, 0, -1, rng);
  random_rcsr(&B2, 15, 9, 3, 0, -1, rng);
  if (!sps_case()) {
    sps_host_rcsr_free(&A);
    sps_host_rcsr_free(&B);
    sps_host_rcsr_free(&B2);
    return;
  }
  sps_ok(sps_spgemm(cpu, &A, &B, &C) == SPS_ERR_SIZE && C.rowptr == NULL,
         "A 20 x 15 times B 14 x 9: SPS_ERR_SIZE (%s)", sps_context_last_error(cpu));
  sps_ok(sps_spgemm(cpu, NULL, &B, &C) == SPS_ERR_ARGUMENT, "A NULL: SPS_ERR_ARGUMENT");
  sps_ok(sps_spgemm(cpu, &A, &B, NULL) == SPS_ERR_ARGUMENT, "C NULL: SPS_ERR_ARGUMENT");
  int64_t *crp;
  int32_t *cci;
  double *cv;
  int64_t cnnz;
  sps_ok(sps_spgemm_device(cpu, -1, 15, 9, A.rowptr, A.colind, A.values, B.rowptr, B.colind,
                           B.values, &crp, &cci, &cv, &cnnz) == SPS_ERR_ARGUMENT,
         "a negative size: SPS_ERR_ARGUMENT");
  sps_ok(sps_spgemm_device(cpu, (int64_t)INT32_MAX + 1, 15, 9, A.rowptr, A.colind, A.values,
                           B.rowptr, B.colind, B.values, &crp, &cci, &cv, &cnnz) == SPS_ERR_SIZE,
         "2^31 rows: SPS_ERR_SIZE");
  sps_host_rcsr_free(&B);
  B = B2;
  int all = 1, k;
  const long live = sps_test_alloc_live();
  for (k = 1; k < 100; k++) {
    sps_test_alloc_fail_at(k);
    const sps_status st = sps_spgemm(cpu, &A, &B, &C);
    const int fired = sps_test_alloc_fired();
    sps_test_alloc_fail_at(0);
    if (!fired) {
      if (st != SPS_SUCCESS) all = 0;
      sps_host_rcsr_free(&C);
      break;
    }
    if (st != SPS_ERR_HOST_MEMORY || C.rowptr || sps_test_alloc_live() != live) {
      sps_diag("allocation %d: status %s, %ld blocks live (%ld before)", k, sps_status_name(st),
               sps_test_alloc_live(), live);
      all = 0;
    }
  }
  sps_ok(all && k > 1 && k < 100,
         "each of the %d host allocations of sps_spgemm failed in turn: SPS_ERR_HOST_MEMORY, "
         "C zeroed, nothing leaked",
         k - 1);
  sps_host_rcsr_free(&A);
  sps_host_rcsr_free(&B);
}
#endif

int main(void)
{
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("CPU context");
#ifdef SPS_TEST_GPU
  dev = sps_test_cuda_context_or_skip();
#else
  dev = cpu;
#endif
  sps_rng rng = {0x5b9e33a1d7ull};
  /* Small shapes: every dimension 0, 1 x 1, rectangular both ways, empty rows, dense rows. */
  check_random("m = 0", 0, 5, 3, 2, 2, 0, -1, -1, &rng);
  check_random("k = 0", 4, 0, 3, 2, 2, 0, -1, -1, &rng);
  check_random("n = 0", 4, 5, 0, 2, 2, 0, -1, -1, &rng);
  check_random("1 x 1", 1, 1, 1, 1, 1, 0, 0, 0, &rng);
  check_random("nnz(A) = 0", 6, 5, 4, 0, 2, 0, -1, -1, &rng);
  check_random("nnz(B) = 0", 6, 5, 4, 2, 0, 0, -1, -1, &rng);
  check_random("5 x 7 times 7 x 3", 5, 7, 3, 2, 2, 0, -1, -1, &rng);
  check_random("17 x 33 times 33 x 9, empty rows", 17, 33, 9, 3, 2, 3, -1, -1, &rng);
  check_random("40 x 40 squared shape, dense rows", 40, 40, 40, 3, 3, 0, 11, 5, &rng);
  check_random("64 x 30 times 30 x 100, empty rows, dense B row", 64, 30, 100, 4, 5, 4, -1, 29,
               &rng);
  check_random("300 x 200 times 200 x 500", 300, 200, 500, 6, 6, 7, 150, 77, &rng);
  if (sps_case()) check_cancel();
  /* Every bin of the GPU kernels: rows of A of 0 to 600 entries times rows of B of 0 to 40,
   * up to 24000 products a row (keys up to n = 5000, the dense bin beyond 4096). */
  check_random("800 x 2000 times 2000 x 5000 (every bin)", 800, 2000, 5000, 150, 20, 0, 17, 3,
               &rng);
  check_random("64 x 6000 times 6000 x 9000, long rows (global bin)", 64, 6000, 9000, 1500, 4, 0, 5,
               -1, &rng);
  {
    /* Many products on one column: A has dense rows, every row of B holds column 0. */
    sps_host_rcsr A, B;
    random_rcsr(&A, 64, 3000, 1000, 0, 9, &rng);
    /* Row r of B: columns 0 and 1 + r % 49. */
    if (sps_host_rcsr_alloc(cpu, &B, 3000, 50, 6000, "B")) sps_bail("alloc");
    for (int64_t r = 0; r < 3000; r++) {
      B.rowptr[r] = 2 * r;
      B.colind[2 * r] = 0;
      B.colind[2 * r + 1] = (int32_t)(1 + r % 49);
      B.values[2 * r] = mixed(&rng);
      B.values[2 * r + 1] = mixed(&rng);
    }
    B.rowptr[3000] = 6000;
    if (sps_case()) check_pair("dense rows of A times a dense column of B", &A, &B);
    sps_host_rcsr_free(&A);
    sps_host_rcsr_free(&B);
  }
  {
    /* A prolongator after long rows of A: the rows of B have one entry each (a fill of the
     * block-wide bins whose first warp adds the products in order). */
    sps_host_rcsr A, P;
    random_rcsr(&A, 50, 4000, 3, 0, 7, &rng);
    aggregation(&P, 4000);
    if (sps_case()) check_pair("dense row of A times an aggregation P", &A, &P);
    sps_host_rcsr_free(&A);
    sps_host_rcsr_free(&P);
  }
#ifndef SPS_TEST_GPU
  check_transpose(&rng);
  check_errors(&rng);
#endif
  const char *data = sps_test_data_dir();
  const char *bundled[] = {"nos3.mtx.gz",     "orsreg_1.mtx.gz", "add20.mtx.gz", "bcsstk14.mtx.gz",
                           "1138_bus.mtx.gz", "watt_2.mtx.gz",   "ash219.mtx.gz"};
  for (size_t f = 0; f < sizeof bundled / sizeof bundled[0]; f++)
    check_file(data, bundled[f]);
  const char *dir = sps_test_matrices_dir();
  if (dir) {
    const char *shared[] = {"ani5_crop.mtx.gz", "bcsstk13.mtx.gz", "rajat12.mtx.gz",
                            "G3_circuit.mtx.gz", "laplacian7pt_100.mtx.gz"};
    for (size_t f = 0; f < sizeof shared / sizeof shared[0]; f++) {
#ifndef SPS_TEST_GPU
      if (strstr(shared[f], "G3_") || strstr(shared[f], "laplacian")) continue; /* GPU only */
#endif
      check_file(dir, shared[f]);
    }
  } else if (sps_case()) {
    sps_skip("SPS_MATRICES not set: the shared matrices' products");
  }
  if (dev != cpu) sps_context_destroy(&dev);
  sps_context_destroy(&cpu);
  return sps_done();
}
