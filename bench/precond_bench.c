/* precond_bench.c: precond-bench, our GPU triangular solves and ILU(0) factorisation side by side with cuSPARSE's (cusparseSpSV, cusparseDcsrilu02) on the same factors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../precond/ilu0.h"
#include "bench_util.h"
#ifdef SPS_HAVE_CUDA
#include "bench_cuda.h"
#endif

static const char usage[] =
    "usage: precond-bench [options] FILE.mtx[.gz] ...\n"
    "For each matrix (its diagonal completed with explicit zeros where missing): the ILU(0)\n"
    "factors built by spsolve on the GPU, then, on the same factors and the same right-hand\n"
    "side, one forward (unit L) plus one backward (U) triangular solve by spsolve and by\n"
    "cuSPARSE's cusparseSpSV (CUSPARSE_SPSV_ALG_DEFAULT), each timed with CUDA events as the\n"
    "median of --repeat repetitions after a warm-up, launched plainly and replayed from a\n"
    "CUDA graph; and the ILU(0) setup (analysis and factorisation) by spsolve against\n"
    "cuSPARSE's csrilu02 path (analysis, numeric boost of zero pivots, factorisation).\n"
    "  --repeat N     repetitions of each timing (default 50)\n"
    "  --tsv FILE     write the results as TSV\n"
    "  --help         this text\n"
    "Exit status: 0 when every matrix ran and the two solves agree (max relative difference\n"
    "below 1e-6 of the solution's norm); 1 otherwise; 2 for bad usage.\n";

static const char *const columns[] = {
    "matrix",       "rows",        "nnz_factors", "levels_L",     "levels_U",
    "ours_us",      "ours_graph_us", "cusparse_us", "cusparse_graph_us", "speedup_graph",
    "ours_analysis_ms", "cusparse_analysis_ms", "solve_rel_diff", "ours_ilu0_ms",
    "cusparse_ilu0_ms", "factor_rel_diff", "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))

#ifdef SPS_HAVE_CUDA

/* Median microseconds of `repeat` runs of issue() on the stream, after two warm-ups; with
 * graph, issue() is captured once and the graph replayed. */
typedef int (*issue_fn)(void *arg);
static double time_us(cudaStream_t stream, int repeat, int graph, issue_fn issue, void *arg)
{
  cudaEvent_t a, b;
  cudaGraphExec_t exec = NULL;
  double *t = calloc((size_t)repeat, sizeof *t), med = NAN;
  if (!t || cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess) {
    free(t);
    return NAN;
  }
  if (graph) {
    cudaGraph_t g;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) goto out;
    const int rc = issue(arg);
    if (cudaStreamEndCapture(stream, &g) != cudaSuccess || rc) {
      cudaGetLastError();
      goto out;
    }
    if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
      cudaGraphDestroy(g);
      goto out;
    }
    cudaGraphDestroy(g);
  }
  for (int k = -2; k < repeat; k++) {
    cudaEventRecord(a, stream);
    if (graph)
      cudaGraphLaunch(exec, stream);
    else if (issue(arg))
      goto out;
    cudaEventRecord(b, stream);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (k >= 0) t[k] = 1e3 * ms;
  }
  med = bench_median(t, repeat);
out:
  if (exec) cudaGraphExecDestroy(exec);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  free(t);
  return med;
}

/* Our solve: t = L^-1 r, z = U^-1 t. */
typedef struct ours_arg {
  sps_lu_factors *f;
  const double *r;
  double *z;
} ours_arg;
static int ours_issue(void *p)
{
  ours_arg *a = p;
  return sps_lu_factors_apply(a->f, a->r, a->z) != SPS_SUCCESS;
}

/* cuSPARSE's: SpSV with L (unit) then U. */
typedef struct cs_arg {
  cusparseHandle_t h;
  cusparseSpMatDescr_t L, U;
  cusparseDnVecDescr_t r, t, z;
  cusparseSpSVDescr_t dl, du;
} cs_arg;
static int cs_issue(void *p)
{
  cs_arg *a = p;
  const double one = 1.0;
  return cusparseSpSV_solve(a->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a->L, a->r, a->t,
                            CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, a->dl) != CUSPARSE_STATUS_SUCCESS ||
         cusparseSpSV_solve(a->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a->U, a->t, a->z,
                            CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, a->du) != CUSPARSE_STATUS_SUCCESS;
}

static double max_rel_diff(const double *a, const double *b, int64_t n)
{
  double d = 0.0, s = 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (fabs(a[i] - b[i]) > d || !isfinite(a[i] - b[i])) d = isfinite(a[i] - b[i]) ? fabs(a[i] - b[i]) : INFINITY;
    if (fabs(b[i]) > s) s = fabs(b[i]);
  }
  return s > 0.0 ? d / s : d;
}

/* One matrix: fills c[] (formatted cells) and status; returns nonzero on a failure. */
static int run_matrix(sps_context *ctx, const sps_matrix *A, int repeat, char c[NCOLS][96],
                      char *status)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  cudaStream_t stream = cs->stream;
  cusparseHandle_t h = cs->cusparse;
  const int64_t n = A->nrows;
  int failed = 1;
  sps_host_csr B = {0};
  sps_lu_factors f;
  memset(&f, 0, sizeof f);
  cs_arg ca;
  memset(&ca, 0, sizeof ca);
  int32_t *hrp = NULL, *drp = NULL;
  double *dr = NULL, *dz = NULL, *dz2 = NULL, *dt2 = NULL, *dval = NULL, *hz = NULL, *hz2 = NULL;
  double *hf = NULL, *hf2 = NULL;
  void *wl = NULL, *wu = NULL, *wilu = NULL;
  csrilu02Info_t info = NULL;
  cusparseMatDescr_t descr = NULL;
  snprintf(status, 256, "ok");
  if (sps_host_csr_with_diagonal(ctx, A, 1.0, &B)) {
    snprintf(status, 256, "%s", sps_context_last_error(ctx));
    goto done;
  }
  const int64_t nnz = B.rowptr[n];
  if (nnz > INT32_MAX) {
    snprintf(status, 256, "skipped: too many entries for cuSPARSE's 32-bit CSR");
    goto done;
  }
  /* Ours: analysis (the plans) then the factorisation, wall clock with the device synchronised. */
  sps_context_synchronize(ctx);
  double t0 = sps_wtime();
  if (sps_lu_factors_create(ctx, &f, &B, NULL, NULL)) {
    snprintf(status, 256, "%s", sps_context_last_error(ctx));
    goto done;
  }
  sps_context_synchronize(ctx);
  const double t_an = sps_wtime() - t0;
  int64_t rep, brk;
  if (sps_ilu0_factor(&f, &B, 1e-10, 0, &rep, &brk)) {
    snprintf(status, 256, "%s", sps_context_last_error(ctx));
    goto done;
  }
  sps_context_synchronize(ctx);
  const double t_ours = sps_wtime() - t0;
  snprintf(c[1], 96, "%lld", (long long)n);
  snprintf(c[2], 96, "%lld", (long long)nnz);
  snprintf(c[3], 96, "%d", sps_trisolve_levels(f.lower));
  snprintf(c[4], 96, "%d", sps_trisolve_levels(f.upper));
  bench_fmt(c[10], 96, "%.3f", 1e3 * t_an);
  bench_fmt(c[13], 96, "%.3f", 1e3 * t_ours);

  /* cuSPARSE's ILU(0) on the same matrix: analysis, zero-pivot boost, factorisation. */
  hrp = malloc(((size_t)n + 1) * sizeof *hrp);
  hf = malloc(((size_t)nnz + 1) * sizeof *hf);
  hf2 = malloc(((size_t)nnz + 1) * sizeof *hf2);
  if (!hrp || !hf || !hf2) goto done;
  for (int64_t i = 0; i <= n; i++) hrp[i] = (int32_t)B.rowptr[i];
  CU(cudaMalloc((void **)&drp, ((size_t)n + 1) * sizeof *drp));
  CU(cudaMalloc((void **)&dval, ((size_t)nnz + 1) * sizeof *dval));
  CU(cudaMemcpy(drp, hrp, ((size_t)n + 1) * sizeof *drp, cudaMemcpyHostToDevice));
  CU(cudaMemcpy(dval, B.values, (size_t)nnz * sizeof *dval, cudaMemcpyHostToDevice));
  CS(cusparseCreateMatDescr(&descr));
  CS(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));
  CS(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  CS(cusparseCreateCsrilu02Info(&info));
  int bufsize = 0;
  CS(cusparseDcsrilu02_bufferSize(h, (int)n, (int)nnz, descr, dval, drp, f.colind, info, &bufsize));
  CU(cudaMalloc(&wilu, (size_t)bufsize + 8));
  CU(cudaStreamSynchronize(stream));
  t0 = sps_wtime();
  CS(cusparseDcsrilu02_analysis(h, (int)n, (int)nnz, descr, dval, drp, f.colind, info,
                                CUSPARSE_SOLVE_POLICY_USE_LEVEL, wilu));
  {
    double tol = 1e-10, boost = 1e-10;
    CS(cusparseDcsrilu02_numericBoost(h, info, 1, &tol, &boost));
  }
  CS(cusparseDcsrilu02(h, (int)n, (int)nnz, descr, dval, drp, f.colind, info,
                       CUSPARSE_SOLVE_POLICY_USE_LEVEL, wilu));
  CU(cudaStreamSynchronize(stream));
  bench_fmt(c[14], 96, "%.3f", 1e3 * (sps_wtime() - t0));
  CU(cudaMemcpy(hf2, dval, (size_t)nnz * sizeof *dval, cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(hf, f.values, (size_t)nnz * sizeof *hf, cudaMemcpyDeviceToHost));
  bench_fmt(c[15], 96, "%.2e", max_rel_diff(hf2, hf, nnz));

  /* The solves on our factors (f.values): the same arrays for both. */
  hz = malloc(((size_t)n + 1) * sizeof *hz);
  hz2 = malloc(((size_t)n + 1) * sizeof *hz2);
  if (!hz || !hz2) goto done;
  CU(cudaMalloc((void **)&dr, ((size_t)n + 1) * 8));
  CU(cudaMalloc((void **)&dz, ((size_t)n + 1) * 8));
  CU(cudaMalloc((void **)&dz2, ((size_t)n + 1) * 8));
  CU(cudaMalloc((void **)&dt2, ((size_t)n + 1) * 8));
  {
    uint64_t rng = 12345;
    for (int64_t i = 0; i < n; i++) hz[i] = sps_splitmix64_sym(&rng);
    CU(cudaMemcpy(dr, hz, (size_t)n * 8, cudaMemcpyHostToDevice));
  }
  ours_arg oa = {&f, dr, dz};
  bench_fmt(c[5], 96, "%.2f", time_us(stream, repeat, 0, ours_issue, &oa));
  bench_fmt(c[6], 96, "%.2f", time_us(stream, repeat, 1, ours_issue, &oa));
  ca.h = h;
  cusparseFillMode_t lo = CUSPARSE_FILL_MODE_LOWER, up = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t unit = CUSPARSE_DIAG_TYPE_UNIT, nonunit = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CS(cusparseCreateCsr(&ca.L, n, n, nnz, drp, f.colind, f.values, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseCreateCsr(&ca.U, n, n, nnz, drp, f.colind, f.values, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseSpMatSetAttribute(ca.L, CUSPARSE_SPMAT_FILL_MODE, &lo, sizeof lo));
  CS(cusparseSpMatSetAttribute(ca.L, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit));
  CS(cusparseSpMatSetAttribute(ca.U, CUSPARSE_SPMAT_FILL_MODE, &up, sizeof up));
  CS(cusparseSpMatSetAttribute(ca.U, CUSPARSE_SPMAT_DIAG_TYPE, &nonunit, sizeof nonunit));
  CS(cusparseCreateDnVec(&ca.r, n, dr, CUDA_R_64F));
  CS(cusparseCreateDnVec(&ca.t, n, dt2, CUDA_R_64F));
  CS(cusparseCreateDnVec(&ca.z, n, dz2, CUDA_R_64F));
  CS(cusparseSpSV_createDescr(&ca.dl));
  CS(cusparseSpSV_createDescr(&ca.du));
  {
    const double one = 1.0;
    size_t bl = 0, bu = 0;
    CS(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ca.L, ca.r, ca.t,
                               CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, ca.dl, &bl));
    CS(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ca.U, ca.t, ca.z,
                               CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, ca.du, &bu));
    CU(cudaMalloc(&wl, bl + 8));
    CU(cudaMalloc(&wu, bu + 8));
    CU(cudaStreamSynchronize(stream));
    t0 = sps_wtime();
    CS(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ca.L, ca.r, ca.t,
                             CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, ca.dl, wl));
    CS(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ca.U, ca.t, ca.z,
                             CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, ca.du, wu));
    CU(cudaStreamSynchronize(stream));
    bench_fmt(c[11], 96, "%.3f", 1e3 * (sps_wtime() - t0));
  }
  const double cs_plain = time_us(stream, repeat, 0, cs_issue, &ca);
  const double cs_graph = time_us(stream, repeat, 1, cs_issue, &ca);
  bench_fmt(c[7], 96, "%.2f", cs_plain);
  bench_fmt(c[8], 96, "%.2f", cs_graph);
  {
    const double ours_g = atof(c[6]);
    bench_fmt(c[9], 96, "%.2f", isfinite(cs_graph) ? cs_graph / ours_g : cs_plain / atof(c[5]));
  }
  CU(cudaMemcpy(hz, dz, (size_t)n * 8, cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(hz2, dz2, (size_t)n * 8, cudaMemcpyDeviceToHost));
  const double diff = max_rel_diff(hz, hz2, n);
  bench_fmt(c[12], 96, "%.2e", diff);
  failed = !(diff <= 1e-6);
  if (failed) snprintf(status, 256, "WRONG: the solves differ by %.2e", diff);
done:
  if (ca.L) cusparseDestroySpMat(ca.L);
  if (ca.U) cusparseDestroySpMat(ca.U);
  if (ca.r) cusparseDestroyDnVec(ca.r);
  if (ca.t) cusparseDestroyDnVec(ca.t);
  if (ca.z) cusparseDestroyDnVec(ca.z);
  if (ca.dl) cusparseSpSV_destroyDescr(ca.dl);
  if (ca.du) cusparseSpSV_destroyDescr(ca.du);
  if (info) cusparseDestroyCsrilu02Info(info);
  if (descr) cusparseDestroyMatDescr(descr);
  void *dptrs[] = {drp, dr, dz, dz2, dt2, dval, wl, wu, wilu};
  for (size_t k = 0; k < sizeof dptrs / sizeof dptrs[0]; k++)
    if (dptrs[k]) cudaFree(dptrs[k]);
  free(hrp), free(hz), free(hz2), free(hf), free(hf2);
  sps_lu_factors_destroy(&f);
  sps_host_csr_free(&B);
  return failed;
}
#endif

int main(int argc, char **argv)
{
  int repeat = 50;
  const char *tsv = NULL;
  const char *files[256];
  int nfiles = 0;
  const int parsed = bench_parse_files_args(argc, argv, "precond-bench", usage, &repeat, &tsv, files, 256,
                                            &nfiles);
  if (parsed) return parsed == 1 ? 0 : 2;
#ifndef SPS_HAVE_CUDA
  (void)repeat;
  (void)tsv;
  (void)files;
  (void)columns;
  fprintf(stderr, "precond-bench: this build has no CUDA support: nothing to compare\n");
  return 1;
#else
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CUDA, 0)) {
    fprintf(stderr, "precond-bench: no CUDA device: %s\n", sps_context_create_error());
    return 1;
  }
  char dev[256], date[64];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  bench_date(date, sizeof date);
  char header[1024];
  snprintf(header, sizeof header,
           "# precond-bench (spsolve %s)\n# device: %s\n# date: %s\n# median of %d repetitions "
           "after 2 warm-ups, CUDA events; one solve = L (unit) then U on the ILU(0) factors; "
           "speedup_graph = cuSPARSE graph time / ours (plain times where a graph failed)\n",
           sps_version(), dev, date, repeat);
  fputs(header, stdout);
  bench_table *tab = bench_table_create(NCOLS, columns);
  int failed = 0;
  for (int k = 0; k < nfiles; k++) {
    sps_matrix *A = NULL;
    char c[NCOLS][96], status[256];
    const char *cells[NCOLS];
    for (int j = 0; j < NCOLS; j++) snprintf(c[j], 96, "-");
    const char *base = strrchr(files[k], '/');
    snprintf(c[0], 96, "%.60s", base ? base + 1 : files[k]);
    char *dot = strstr(c[0], ".mtx");
    if (dot) *dot = '\0';
    if (sps_matrix_read_mm(ctx, &A, files[k], 0)) {
      snprintf(status, sizeof status, "%s", sps_context_last_error(ctx));
      failed = 1;
    } else if (A->nrows != A->ncols) {
      snprintf(status, sizeof status, "skipped: not square");
    } else {
      failed |= run_matrix(ctx, A, repeat, c, status);
    }
    sps_matrix_destroy(&A);
    for (int j = 0; j < NCOLS - 1; j++) cells[j] = c[j];
    cells[NCOLS - 1] = status;
    bench_table_add(tab, cells);
    fprintf(stderr, "precond-bench: %s: ours %s us (graph %s), cuSPARSE %s us (graph %s); ILU(0) %s ms vs %s ms; %s\n",
            c[0], c[5], c[6], c[7], c[8], c[13], c[14], status);
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
  sps_context_destroy(&ctx);
  return failed;
#endif
}
