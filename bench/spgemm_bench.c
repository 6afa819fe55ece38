/* spgemm_bench.c: spgemm-bench, our GPU sparse product (precond/spgemm.c) side by side with cuSPARSE's cusparseSpGEMM on the products of algebraic multigrid's setup. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../precond/spgemm.h"
#include "bench_util.h"
#ifdef SPS_HAVE_CUDA
#include "bench_cuda.h"
#endif

static const char usage[] =
    "usage: spgemm-bench [options] FILE.mtx[.gz] ...\n"
    "For each square matrix A: the products A A, A P and P^T (A P), P the aggregation of row i\n"
    "to column i / 8 (value 1), each by spsolve's GPU hash SpGEMM (sps_spgemm_device) and by\n"
    "cuSPARSE's cusparseSpGEMM (workEstimation, compute, copy) with CUSPARSE_SPGEMM_DEFAULT,\n"
    "ALG2 and ALG3 (chunk fraction 0.2). Each time is the median of --repeat products after a\n"
    "warm-up, CUDA events on the context's stream, and covers the whole product from the\n"
    "factors on the device to C on the device: every allocation and free of temporaries and of\n"
    "C, and the host synchronisations (ours: two; cuSPARSE's: those of its size queries).\n"
    "Ours is also split into its count phase (bounds, binning, counting, prefix sum) and fill\n"
    "phase (binning, C's allocation, the sorted fill). The results are compared with cuSPARSE's\n"
    "DEFAULT: the same pattern, and the largest |difference| over the largest |c_ij|.\n"
    "  --repeat N     repetitions of each timing (default 10)\n"
    "  --tsv FILE     write the results as TSV\n"
    "  --help         this text\n"
    "Exit status: 0 when every product ran and agreed (same pattern, difference below 1e-12);\n"
    "1 otherwise; 2 for bad usage; 77 when built without CUDA.\n";

static const char *const columns[] = {"matrix",
                                      "product",
                                      "rows",
                                      "cols",
                                      "nnz_A",
                                      "nnz_B",
                                      "products",
                                      "nnz_C",
                                      "ours_ms",
                                      "ours_count_ms",
                                      "ours_fill_ms",
                                      "cusparse_ms",
                                      "cusparse_alg2_ms",
                                      "cusparse_alg3_ms",
                                      "speedup",
                                      "speedup_best",
                                      "pattern",
                                      "max_rel_diff",
                                      "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))

#ifdef SPS_HAVE_CUDA
/* A matrix on the device: int64 offsets for ours, int32 offsets for cuSPARSE. */
typedef struct dev_csr {
  int64_t m, n, nnz;
  int64_t *rp;
  int32_t *rp32, *ci;
  double *v;
} dev_csr;

static void dev_csr_free(dev_csr *d)
{
  cudaFree(d->rp);
  cudaFree(d->rp32);
  cudaFree(d->ci);
  cudaFree(d->v);
  memset(d, 0, sizeof *d);
}

static int dev_csr_upload(const sps_host_rcsr *M, dev_csr *d)
{
  memset(d, 0, sizeof *d);
  d->m = M->nrows;
  d->n = M->ncols;
  d->nnz = M->rowptr[M->nrows];
  int32_t *h32 = malloc(((size_t)d->m + 1) * sizeof *h32);
  if (!h32) return 1;
  for (int64_t i = 0; i <= d->m; i++)
    h32[i] = (int32_t)M->rowptr[i];
  const size_t nz = (size_t)d->nnz + 1;
  int bad = cudaMalloc((void **)&d->rp, ((size_t)d->m + 1) * 8) != cudaSuccess ||
            cudaMalloc((void **)&d->rp32, ((size_t)d->m + 1) * 4) != cudaSuccess ||
            cudaMalloc((void **)&d->ci, nz * 4) != cudaSuccess ||
            cudaMalloc((void **)&d->v, nz * 8) != cudaSuccess;
  if (!bad)
    bad = cudaMemcpy(d->rp, M->rowptr, ((size_t)d->m + 1) * 8, cudaMemcpyHostToDevice) ||
          cudaMemcpy(d->rp32, h32, ((size_t)d->m + 1) * 4, cudaMemcpyHostToDevice) ||
          cudaMemcpy(d->ci, M->colind, (size_t)d->nnz * 4, cudaMemcpyHostToDevice) ||
          cudaMemcpy(d->v, M->values, (size_t)d->nnz * 8, cudaMemcpyHostToDevice);
  free(h32);
  if (bad) dev_csr_free(d);
  return bad;
}

/* One cuSPARSE product C = A B with algorithm alg, from the descriptors to C's arrays on the
 * device (returned when keep is not NULL, else freed). Returns a status message or NULL. */
typedef struct cs_result {
  int64_t nnz;
  int32_t *rp, *ci;
  double *v;
} cs_result;

static const char *cusparse_product(cusparseHandle_t h, const dev_csr *A, const dev_csr *B,
                                    cusparseSpGEMMAlg_t alg, cs_result *keep, char *status)
{
  cusparseSpMatDescr_t a = NULL, b = NULL, c = NULL;
  cusparseSpGEMMDescr_t d = NULL;
  void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL;
  int32_t *crp = NULL, *cci = NULL;
  double *cv = NULL;
  const char *err = NULL;
  const double alpha = 1.0, beta = 0.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  status[0] = '\0';
  CS(cusparseCreateCsr(&a, A->m, A->n, A->nnz, A->rp32, A->ci, A->v, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseCreateCsr(&b, B->m, B->n, B->nnz, B->rp32, B->ci, B->v, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseCreateCsr(&c, A->m, B->n, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseSpGEMM_createDescr(&d));
  size_t s1 = 0, s2 = 0, s3 = 0;
  CS(cusparseSpGEMM_workEstimation(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, &s1,
                                   NULL));
  CU(cudaMalloc(&buf1, s1 + 8));
  CS(cusparseSpGEMM_workEstimation(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, &s1,
                                   buf1));
  if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
    const float chunk = 0.2f;
    CS(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, chunk,
                                     &s3, NULL, NULL));
    CU(cudaMalloc(&buf3, s3 + 8));
    CS(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, chunk,
                                     &s3, buf3, &s2));
    cudaFree(buf3);
    buf3 = NULL;
  } else {
    CS(cusparseSpGEMM_compute(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, &s2, NULL));
  }
  CU(cudaMalloc(&buf2, s2 + 8));
  CS(cusparseSpGEMM_compute(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d, &s2, buf2));
  int64_t rows, cols, nnz;
  CS(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  CU(cudaMalloc((void **)&crp, ((size_t)A->m + 1) * 4));
  CU(cudaMalloc((void **)&cci, ((size_t)nnz + 1) * 4));
  CU(cudaMalloc((void **)&cv, ((size_t)nnz + 1) * 8));
  CS(cusparseCsrSetPointers(c, crp, cci, cv));
  CS(cusparseSpGEMM_copy(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, d));
  if (keep) {
    keep->nnz = nnz;
    keep->rp = crp;
    keep->ci = cci;
    keep->v = cv;
    crp = NULL;
    cci = NULL;
    cv = NULL;
  }
done:
  if (status[0]) err = status;
  if (a) cusparseDestroySpMat(a);
  if (b) cusparseDestroySpMat(b);
  if (c) cusparseDestroySpMat(c);
  if (d) cusparseSpGEMM_destroyDescr(d);
  cudaFree(buf1);
  cudaFree(buf2);
  cudaFree(buf3);
  cudaFree(crp);
  cudaFree(cci);
  cudaFree(cv);
  return err;
}

/* Median milliseconds of repeat cuSPARSE products (after one warm-up), NaN on failure. */
static double time_cusparse(cudaStream_t s, cusparseHandle_t h, const dev_csr *A, const dev_csr *B,
                            cusparseSpGEMMAlg_t alg, int repeat, char *why)
{
  cudaEvent_t e0, e1;
  double *t = calloc((size_t)repeat, sizeof *t), med = NAN;
  if (!t || cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    free(t);
    return NAN;
  }
  for (int r = -1; r < repeat; r++) {
    cudaEventRecord(e0, s);
    const char *err = cusparse_product(h, A, B, alg, NULL, why);
    cudaEventRecord(e1, s);
    cudaEventSynchronize(e1);
    if (err) goto out;
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r >= 0) t[r] = ms;
  }
  med = bench_median(t, repeat);
out:
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  free(t);
  return med;
}

/* One product: our times (median), cuSPARSE's for three algorithms, and the comparison. */
static int run_product(sps_context *ctx, const char *mat, const char *prod, const sps_host_rcsr *X,
                       const sps_host_rcsr *Y, int repeat, bench_table *tab)
{
  char c[NCOLS][96], status[256];
  const char *cells[NCOLS];
  for (int j = 0; j < NCOLS; j++)
    snprintf(c[j], 96, "-");
  snprintf(c[0], 96, "%s", mat);
  snprintf(c[1], 96, "%s", prod);
  snprintf(status, sizeof status, "ok");
  struct sps_cuda_state *cs = sps_cuda(ctx);
  dev_csr A, B;
  memset(&A, 0, sizeof A);
  memset(&B, 0, sizeof B);
  cs_result ref = {0, NULL, NULL, NULL};
  int64_t *hrp = NULL;
  int32_t *hci = NULL, *hrp2 = NULL, *hci2 = NULL;
  double *hv = NULL, *hv2 = NULL;
  double *tt = NULL, *tc = NULL, *tf = NULL;
  int64_t *crp = NULL, cnnz = 0;
  int32_t *cci = NULL;
  double *cv = NULL;
  int failed = 1;
  int64_t products = 0;
  for (int64_t p = 0; p < X->rowptr[X->nrows]; p++) {
    const int32_t k = X->colind[p];
    products += Y->rowptr[k + 1] - Y->rowptr[k];
  }
  snprintf(c[2], 96, "%lld", (long long)X->nrows);
  snprintf(c[3], 96, "%lld", (long long)Y->ncols);
  snprintf(c[4], 96, "%lld", (long long)X->rowptr[X->nrows]);
  snprintf(c[5], 96, "%lld", (long long)Y->rowptr[Y->nrows]);
  snprintf(c[6], 96, "%lld", (long long)products);
  if (X->rowptr[X->nrows] > INT32_MAX || Y->rowptr[Y->nrows] > INT32_MAX) {
    snprintf(status, sizeof status, "skipped: too many entries for 32-bit cuSPARSE offsets");
    goto done;
  }
  if (dev_csr_upload(X, &A) || dev_csr_upload(Y, &B)) {
    snprintf(status, sizeof status, "upload failed");
    goto done;
  }
  tt = calloc((size_t)repeat, sizeof *tt);
  tc = calloc((size_t)repeat, sizeof *tc);
  tf = calloc((size_t)repeat, sizeof *tf);
  if (!tt || !tc || !tf) goto done;
  for (int r = -1; r < repeat; r++) {
    sps_spgemm_times times;
    ctx->be->free(ctx, crp);
    ctx->be->free(ctx, cci);
    ctx->be->free(ctx, cv);
    crp = NULL, cci = NULL, cv = NULL;
    if (sps_spgemm_device_timed(ctx, A.m, A.n, B.n, A.rp, A.ci, A.v, B.rp, B.ci, B.v, &crp, &cci,
                                &cv, &cnnz, &times)) {
      snprintf(status, sizeof status, "ours: %s", sps_context_last_error(ctx));
      goto done;
    }
    if (r >= 0) {
      tt[r] = 1e3 * times.total_s;
      tc[r] = 1e3 * times.count_s;
      tf[r] = 1e3 * times.fill_s;
    }
  }
  snprintf(c[7], 96, "%lld", (long long)cnnz);
  const double ours = bench_median(tt, repeat);
  bench_fmt(c[8], 96, "%.4f", ours);
  bench_fmt(c[9], 96, "%.4f", bench_median(tc, repeat));
  bench_fmt(c[10], 96, "%.4f", bench_median(tf, repeat));
  const cusparseSpGEMMAlg_t algs[3] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG2,
                                       CUSPARSE_SPGEMM_ALG3};
  double best = INFINITY, t_default = NAN;
  for (int a = 0; a < 3; a++) {
    char why[256];
    const double t = time_cusparse(cs->stream, cs->cusparse, &A, &B, algs[a], repeat, why);
    bench_fmt(c[11 + a], 96, "%.4f", t);
    if (a == 0) t_default = t;
    if (t < best) best = t;
    if (isnan(t))
      fprintf(stderr, "spgemm-bench: %s %s: cuSPARSE algorithm %d: %s\n", mat, prod, a, why);
  }
  bench_fmt(c[14], 96, "%.2f", t_default / ours);
  bench_fmt(c[15], 96, "%.2f", isfinite(best) ? best / ours : NAN);
  /* Compare with cuSPARSE's DEFAULT product. */
  {
    char why[256];
    if (cusparse_product(cs->cusparse, &A, &B, CUSPARSE_SPGEMM_DEFAULT, &ref, why)) {
      snprintf(status, sizeof status, "%s", why);
      goto done;
    }
  }
  if (cudaStreamSynchronize(cs->stream) != cudaSuccess) goto done;
  hrp = malloc(((size_t)A.m + 1) * 8);
  hrp2 = malloc(((size_t)A.m + 1) * 4);
  hci = malloc(((size_t)cnnz + 1) * 4);
  hv = malloc(((size_t)cnnz + 1) * 8);
  hci2 = malloc(((size_t)ref.nnz + 1) * 4);
  hv2 = malloc(((size_t)ref.nnz + 1) * 8);
  if (!hrp || !hrp2 || !hci || !hv || !hci2 || !hv2) goto done;
  if (cudaMemcpy(hrp, crp, ((size_t)A.m + 1) * 8, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(hci, cci, (size_t)cnnz * 4, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(hv, cv, (size_t)cnnz * 8, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(hrp2, ref.rp, ((size_t)A.m + 1) * 4, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(hci2, ref.ci, (size_t)ref.nnz * 4, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(hv2, ref.v, (size_t)ref.nnz * 8, cudaMemcpyDeviceToHost))
    goto done;
  int same = ref.nnz == cnnz;
  for (int64_t i = 0; same && i <= A.m; i++)
    same = hrp[i] == (int64_t)hrp2[i];
  for (int64_t p = 0; same && p < cnnz; p++)
    same = hci[p] == hci2[p];
  snprintf(c[16], 96, "%s", same ? "same" : "differs");
  if (!same) {
    snprintf(status, sizeof status, "WRONG: the patterns differ (nnz %lld against cuSPARSE's %lld)",
             (long long)cnnz, (long long)ref.nnz);
    goto done;
  }
  double dmax = 0.0, cmax = 0.0;
  for (int64_t p = 0; p < cnnz; p++) {
    const double d = fabs(hv[p] - hv2[p]);
    if (!(d <= dmax)) dmax = isnan(d) ? INFINITY : d;
    if (fabs(hv2[p]) > cmax) cmax = fabs(hv2[p]);
  }
  const double rel = cmax > 0.0 ? dmax / cmax : dmax;
  bench_fmt(c[17], 96, "%.2e", rel);
  failed = !(rel <= 1e-12);
  if (failed) snprintf(status, sizeof status, "WRONG: the values differ by %.2e", rel);
done:
  ctx->be->free(ctx, crp);
  ctx->be->free(ctx, cci);
  ctx->be->free(ctx, cv);
  cudaFree(ref.rp);
  cudaFree(ref.ci);
  cudaFree(ref.v);
  dev_csr_free(&A);
  dev_csr_free(&B);
  free(hrp), free(hrp2), free(hci), free(hci2), free(hv), free(hv2), free(tt), free(tc), free(tf);
  for (int j = 0; j < NCOLS - 1; j++)
    cells[j] = c[j];
  cells[NCOLS - 1] = status;
  bench_table_add(tab, cells);
  fprintf(stderr,
          "spgemm-bench: %s %s: nnz(C) %s, ours %s ms (count %s, fill %s), cuSPARSE %s / %s / %s "
          "ms; %s\n",
          mat, prod, c[7], c[8], c[9], c[10], c[11], c[12], c[13], status);
  return failed;
}
#endif

int main(int argc, char **argv)
{
  int repeat = 10;
  const char *tsv = NULL;
  const char *files[256];
  int nfiles = 0;
  const int parsed = bench_parse_files_args(argc, argv, "spgemm-bench", usage, &repeat, &tsv, files, 256,
                                            &nfiles);
  if (parsed) return parsed == 1 ? 0 : 2;
#ifndef SPS_HAVE_CUDA
  (void)repeat;
  (void)tsv;
  (void)columns;
  fprintf(stderr, "spgemm-bench: this build has no CUDA support: it needs CUDA to compare with "
                  "cuSPARSE\n");
  return 77;
#else
  sps_context *ctx = NULL, *cpu = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CUDA, 0) || sps_context_create(&cpu, SPS_DEVICE_CPU, 0)) {
    fprintf(stderr, "spgemm-bench: no CUDA device: %s\n", sps_context_create_error());
    return 77;
  }
  char dev[256], date[64];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  bench_date(date, sizeof date);
  char header[1024];
  snprintf(header, sizeof header,
           "# spgemm-bench (spsolve %s)\n# device: %s\n# date: %s\n# median of %d products after "
           "a warm-up, CUDA events, milliseconds from the factors on the device to C on the "
           "device, allocations and host synchronisations included; P: aggregation i -> i / 8; "
           "speedup = cuSPARSE DEFAULT / ours, speedup_best = the fastest cuSPARSE algorithm / "
           "ours; max_rel_diff = max |ours - cuSPARSE DEFAULT| / max |c|\n",
           sps_version(), dev, date, repeat);
  fputs(header, stdout);
  bench_table *tab = bench_table_create(NCOLS, columns);
  int failed = 0;
  for (int f = 0; f < nfiles; f++) {
    char name[96];
    const char *base = strrchr(files[f], '/');
    snprintf(name, sizeof name, "%.60s", base ? base + 1 : files[f]);
    char *dot = strstr(name, ".mtx");
    if (dot) *dot = '\0';
    sps_matrix *M = NULL;
    if (sps_matrix_read_mm(cpu, &M, files[f], 0)) {
      fprintf(stderr, "spgemm-bench: %s: %s\n", files[f], sps_context_last_error(cpu));
      failed = 1;
      continue;
    }
    if (M->nrows != M->ncols) {
      fprintf(stderr, "spgemm-bench: %s: not square, skipped\n", name);
      sps_matrix_destroy(&M);
      continue;
    }
    const int64_t n = M->nrows, nc = (n + 7) / 8;
    sps_host_rcsr A = {n, n, M->rowptr, M->colind, M->values};
    sps_host_rcsr P, R, AP;
    memset(&AP, 0, sizeof AP);
    memset(&R, 0, sizeof R);
    if (sps_host_rcsr_alloc(cpu, &P, n, nc, n, "P")) {
      failed = 1;
    } else {
      for (int64_t i = 0; i < n; i++) {
        P.rowptr[i] = i;
        P.colind[i] = (int32_t)(i / 8);
        P.values[i] = 1.0;
      }
      P.rowptr[n] = n;
      if (sps_csr_transpose(cpu, &P, &R) || sps_spgemm(ctx, &A, &P, &AP)) {
        fprintf(stderr, "spgemm-bench: %s: %s\n", name, sps_context_last_error(ctx));
        failed = 1;
      } else {
        failed |= run_product(ctx, name, "A*A", &A, &A, repeat, tab);
        failed |= run_product(ctx, name, "A*P", &A, &P, repeat, tab);
        failed |= run_product(ctx, name, "P^T*(A*P)", &R, &AP, repeat, tab);
      }
    }
    sps_host_rcsr_free(&P);
    sps_host_rcsr_free(&R);
    sps_host_rcsr_free(&AP);
    sps_matrix_destroy(&M);
  }
  bench_table_write_tsv(tab, stdout);
  if (tsv) {
    FILE *fp = fopen(tsv, "w");
    if (fp) {
      fputs(header, fp);
      bench_table_write_tsv(tab, fp);
      fclose(fp);
    }
  }
  bench_table_destroy(&tab);
  sps_context_destroy(&cpu);
  sps_context_destroy(&ctx);
  return failed;
#endif
}
