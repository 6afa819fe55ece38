/* spmv_bitwise.c: the compensated SpMV variants give bitwise the CPU csr-scalar reference's y, on
 * bundled and badly scaled random matrices.
 *
 * Variants csr-vector (tpr 1, 2, 4, 8, 16, 32), ell (where it accepts the matrix), merge,
 * blockwise and binned are run on the CPU backend (built with SPS_TEST_GPU: csr-scalar too,
 * on the GPU, exit 77 without one) and every y_i is compared bit for bit with the CPU csr-scalar
 * reference's (mismatching rows counted, none allowed), for (alpha, beta) = (1, 0) and
 * (2.5, -0.75).
 * Matrices: the bundled ones of tests/data, and seeded random ones with values of mixed signs
 * and magnitudes 1e-8 .. 1e8, rows of 1 to 300 entries, some rows built to cancel (pairs of
 * products p and -p*(1 + delta), delta in 1e-9 .. 1e-4, at random places in the row), and
 * rows of 9000 and 20000 entries that merge splits over many shares and blockwise and binned
 * over several parts. So that the comparison shows something, the same rows are also summed
 * in plain double arithmetic in csr-scalar's order and in csr-vector's tpr-32 order (lanes,
 * then the halving tree): on the cancellation matrices those two must differ in some rows.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix is a case (the random ones are made in
 * every shard: whether ell accepts one of them is checked apart, its runs in their cases).
 */
#include "spmv_check.h"

/* The random cases' columns: n prime, so any stride below n walks distinct columns. */
#define BW_NCOLS 30011

/* x: mixed signs, magnitudes 1e-2 .. 1e2. */
static void bw_vectors(uint64_t seed, int64_t n, double *x, int64_t m, double *y0)
{
  sps_rng rng = {seed};
  for (int64_t j = 0; j < n; j++)
    x[j] = (sps_rng_uniform(&rng) < 0.0 ? -1.0 : 1.0) * pow(10.0, 2.0 * sps_rng_uniform(&rng));
  for (int64_t i = 0; i < m; i++) y0[i] = sps_rng_uniform(&rng);
}

/* A value of random sign and magnitude 10^u, u uniform in [-8, 8]. */
static double bw_scaled(sps_rng *rng)
{
  double s = sps_rng_uniform(rng) < 0.0 ? -1.0 : 1.0;
  return s * pow(10.0, 8.0 * sps_rng_uniform(rng));
}

/*
 * Random case `which` on ctx (NULL past the last), its name in *name. x must be the vector
 * the test multiplies by (the cancelling pairs are built against it).
 */
static sps_matrix *bw_random(sps_context *ctx, int which, const double *x, const char **name)
{
  sps_rng rng = {0xB17B15Eu + (uint64_t)which};
  int64_t m, minlen = 1, maxlen = 300;
  int cancel = 1;
  switch (which) {
  case 0:
    *name = "random 2000 x 30011, rows of 1..300, values 1e-8..1e8, mixed signs";
    m = 2000;
    cancel = 0;
    break;
  case 1:
    *name = "random 2000 x 30011, rows of 1..300, cancelling pairs";
    m = 2000;
    break;
  case 2:
    *name = "random 1000 x 30011, rows of 150..300, cancelling pairs (ell accepts it)";
    m = 1000;
    minlen = 150;
    break;
  case 3:
    *name = "random 200 x 30011, rows of 1..300 and of 9000 and 20000, cancelling pairs";
    m = 200;
    break;
  default:
    *name = NULL;
    return NULL;
  }
  const int64_t n = BW_NCOLS;
  int64_t *rp = (int64_t *)calloc((size_t)m + 1, sizeof *rp);
  if (!rp) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    int64_t len = minlen + (int64_t)(sps_rng_next(&rng) % (uint64_t)(maxlen - minlen + 1));
    if (which == 3 && i == 50) len = 9000;
    if (which == 3 && i == 120) len = 20000;
    rp[i + 1] = rp[i] + len;
  }
  const int64_t nnz = rp[m];
  int32_t *ci = (int32_t *)malloc((size_t)nnz * sizeof *ci);
  double *va = (double *)malloc((size_t)nnz * sizeof *va);
  if (!ci || !va) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = rp[i + 1] - rp[i];
    const int64_t start = (int64_t)(sps_rng_next(&rng) % (uint64_t)n);
    const int64_t stride = 1 + (int64_t)(sps_rng_next(&rng) % 7);
    for (int64_t k = 0; k < len; k++) {
      ci[rp[i] + k] = (int32_t)((start + k * stride) % n);
      va[rp[i] + k] = bw_scaled(&rng);
    }
    /* Every other row of a cancelling case: pairs (k, k2) with a_k2 x_k2 ~ -a_k x_k (1 + delta). */
    if (!cancel || i % 2 == 0 || len < 2) continue;
    for (int64_t k = 0; k + 1 < len; k += 2) {
      const int64_t k2 = k + 1 + (int64_t)(sps_rng_next(&rng) % (uint64_t)(len - k - 1));
      double *a = &va[rp[i] + k], *b = &va[rp[i] + k2];
      const double delta = pow(10.0, -6.5 + 2.5 * sps_rng_uniform(&rng));
      *b = -(*a * x[ci[rp[i] + k]]) * (1.0 + delta) / x[ci[rp[i] + k2]];
      /* Keep the pair at the two places (the partner may have been moved by an earlier pair). */
      double t = va[rp[i] + k + 1];
      va[rp[i] + k + 1] = *b;
      *b = t;
      int32_t c = ci[rp[i] + k + 1];
      ci[rp[i] + k + 1] = ci[rp[i] + k2];
      ci[rp[i] + k2] = c;
    }
    /* Spread the pairs over the row: a seeded shuffle of its entries. */
    for (int64_t k = len - 1; k > 0; k--) {
      const int64_t r = (int64_t)(sps_rng_next(&rng) % (uint64_t)(k + 1));
      double t = va[rp[i] + k];
      va[rp[i] + k] = va[rp[i] + r];
      va[rp[i] + r] = t;
      int32_t c = ci[rp[i] + k];
      ci[rp[i] + k] = ci[rp[i] + r];
      ci[rp[i] + r] = c;
    }
  }
  sps_matrix *A = spmv_make(ctx, m, n, rp, ci, va);
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* Plain double sums of row i: in entry order (*seq) and in csr-vector's tpr-32 order (*tree). */
static void bw_plain_sums(const int64_t *rp, const int32_t *ci, const double *va, const double *x,
                          int64_t i, double *seq, double *tree)
{
  double s = 0.0, p[32];
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += va[k] * x[ci[k]];
  for (int l = 0; l < 32; l++) {
    p[l] = 0.0;
    for (int64_t k = rp[i] + l; k < rp[i + 1]; k += 32) p[l] += va[k] * x[ci[k]];
  }
  for (int d = 16; d > 0; d /= 2)
    for (int l = 0; l < d; l++) p[l] += p[l + d];
  *seq = s;
  *tree = p[0];
}

/* One variant run: kind and threads per row. */
typedef struct bw_run {
  sps_spmv_kind kind;
  int tpr;
} bw_run;

typedef struct bw_args {
  sps_context *gpu; /* NULL: the CPU references are checked */
  const double *x; /* the random cases' x (BW_NCOLS entries), NULL for the bundled matrices */
  int plain_must_differ;
} bw_args;

static void bw_check(sps_context *cpu, const sps_matrix *A, const char *name, bw_args *a)
{
  static const int tprs[] = {1, 2, 4, 8, 16, 32};
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  double *x = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  double *y0 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y0);
  double *y = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
  double *yref = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *yref);
  if (!x || !y0 || !y || !yref) sps_bail("out of memory");
  bw_vectors(0xB175u, n, x, m, y0);
  if (a->x) memcpy(x, a->x, (size_t)n * sizeof *x);
  sps_matrix *Ag = a->gpu ? spmv_copy_to(a->gpu, A) : NULL;
  for (int p = 0; p < 2; p++) {
    const double alpha = spmv_alphas[p], beta = spmv_betas[p];
    const char *msg;
    if (spmv_apply_once(cpu, A, SPS_SPMV_CSR_SCALAR, 0, alpha, x, beta, y0, yref, &msg))
      sps_bail("csr-scalar on %s: %s", name, msg);
    bw_run runs[11];
    int nruns = 0;
    if (a->gpu) runs[nruns++] = (bw_run){SPS_SPMV_CSR_SCALAR, 0};
    for (int t = 0; t < 6; t++) runs[nruns++] = (bw_run){SPS_SPMV_CSR_VECTOR, tprs[t]};
    runs[nruns++] = (bw_run){SPS_SPMV_ELL, 0};
    runs[nruns++] = (bw_run){SPS_SPMV_MERGE, 0};
    runs[nruns++] = (bw_run){SPS_SPMV_BLOCKWISE, 0};
    runs[nruns++] = (bw_run){SPS_SPMV_BINNED, 0};
    for (int r = 0; r < nruns; r++) {
      const char *kname = sps_spmv_kind_name(runs[r].kind);
      sps_status st = spmv_apply_once(a->gpu ? a->gpu : cpu, a->gpu ? Ag : A, runs[r].kind,
                                      runs[r].tpr, alpha, x, beta, y0, y, &msg);
      if (runs[r].kind == SPS_SPMV_ELL && spmv_ell_refuses(A)) {
        if (p == 0) sps_diag("ell refuses %s (padding): not compared", name);
        continue;
      }
      if (st != SPS_SUCCESS) {
        sps_ok(0, "%s%s tpr %d on %s: setup failed: %s", kname, a->gpu ? " (GPU)" : "",
               runs[r].tpr, name, msg);
        continue;
      }
      double maxrel;
      int64_t bad = spmv_bit_mismatches(m, y, yref, &maxrel);
      sps_ok(bad == 0,
             "%s%s tpr %d on %s (nnz %lld), alpha %g beta %g: bitwise equal to the CPU "
             "csr-scalar reference (%lld rows differ, max rel diff %.3g)",
             kname, a->gpu ? " (GPU)" : "", runs[r].tpr, name, (long long)nnz, alpha, beta, (long long)bad, maxrel);
    }
  }
  /* The same comparison with plain sums: csr-scalar's order against csr-vector's tpr 32. */
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  int64_t differ = 0;
  for (int64_t i = 0; i < m; i++) {
    double seq, tree;
    bw_plain_sums(rp, ci, va, x, i, &seq, &tree);
    if (memcmp(&seq, &tree, sizeof seq) != 0) differ++;
  }
  if (a->plain_must_differ)
    sps_ok(differ > 0,
           "%s: plain sums in csr-scalar and csr-vector (tpr 32) order differ in %lld of %lld "
           "rows (the compensated ones in none)",
           name, (long long)differ, (long long)m);
  else
    sps_diag("%s: plain sums in csr-scalar and csr-vector (tpr 32) order differ in %lld of %lld "
             "rows",
             name, (long long)differ, (long long)m);
  free(x);
  free(y0);
  free(y);
  free(yref);
  sps_matrix_destroy(&Ag);
}

static void bw_check_fn(sps_context *cpu, const sps_matrix *A, const char *name, void *arg)
{
  bw_check(cpu, A, name, (bw_args *)arg);
}

int main(void)
{
  sps_context *cpu = NULL, *gpu = NULL;
#ifdef SPS_TEST_GPU
  gpu = sps_test_cuda_context_or_skip();
#endif
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  double *x = (double *)malloc(BW_NCOLS * sizeof *x);
  double y0;
  if (!x) sps_bail("out of memory");
  bw_vectors(0xB175u, BW_NCOLS, x, 0, &y0);
  bw_args a = {gpu, x, 0};
  int ell_accepts = 0;
  for (int w = 0;; w++) {
    const char *name;
    sps_matrix *A = bw_random(cpu, w, x, &name);
    if (!A) break;
    ell_accepts |= !spmv_ell_refuses(A); /* then its case compares ell (or fails its setup) */
    a.plain_must_differ = w > 0;
    if (sps_case()) bw_check(cpu, A, name, &a);
    sps_matrix_destroy(&A);
  }
  if (sps_case()) sps_ok(ell_accepts, "ell was compared on at least one random matrix");
  bw_args b = {gpu, NULL, 0};
  spmv_case_per_matrix = 1;
  spmv_for_each_matrix(cpu, 0, 1, 0, SPS_SPMV_SMALL_NNZ, bw_check_fn, &b);
  free(x);
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}
