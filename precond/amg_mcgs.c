/* amg_mcgs.c: multicolour Gauss-Seidel, the multigrid smoother that sweeps a level's rows colour by colour (each colour one parallel, SpMV-like kernel), forward then backward so that the cycle stays symmetric; the colouring runs on the context's device at setup. */
#include "amg_step.h"

/*
 * Setup (precond/ref/mcgs.c gives the math): Jones-Plassmann rounds colour the rows of the
 * level's operator (its pattern, and its transpose's when A is not symmetric) until none is
 * left, one counter read back a round; then the rows are sorted by colour (a stable counting
 * sort on the CPU, a radix sort on the GPU: the same order) and the colours' first positions
 * come back to the host, which launches one sweep per colour.
 *
 * Apply: x <- x + D^-1 (b - A x) restricted to the rows of colour c, for c = 0 .. C-1, then
 * for c = C-1 .. 0. A forward Gauss-Seidel sweep in colour order followed by the backward one
 * is the symmetric Gauss-Seidel smoother of that ordering: self-adjoint in the A inner product
 * and convergent for SPD A, so the same smoothing before and after the coarse correction keeps
 * the V- and W-cycles symmetric positive definite for CG. Cost: two passes over A's entries
 * (one per direction), in 2C launches; nothing is read back.
 */
sps_status amg_mcgs_setup(sps_context *ctx, amg_level *L, int symmetric)
{
  const sps_backend *be = ctx->be;
  const int64_t n = L->n;
  const size_t nn = (size_t)(n > 0 ? n : 1);
  sps_status st = SPS_SUCCESS;
  amg_csr T = {0};
  int32_t *c1 = NULL, *c2 = NULL;
  int64_t *start = NULL;
  unsigned long long *word = NULL, left = 0, ncol = 0;
  const amg_csr *A = &L->op;
  if (!symmetric) SPS_TRY(amg_csr_transpose(ctx, A, &T, 0));
  SPS_TRY(be->malloc(ctx, (void **)&c1, nn * sizeof *c1, "AMG colours"));
  SPS_TRY(be->malloc(ctx, (void **)&c2, nn * sizeof *c2, "AMG colours"));
  SPS_TRY(be->malloc(ctx, (void **)&word, sizeof *word, "AMG colours"));
  SPS_TRY(be->malloc(ctx, (void **)&L->order, nn * sizeof *L->order, "AMG colour order"));
  SPS_TRY(AMG_STEP(ctx, mc_color_init, n, c1));
  left = (unsigned long long)n;
  while (left > 0) {
    const unsigned long long before = left;
    SPS_TRY(AMG_STEP(ctx, mc_color_round, n, A->rp, A->ci, (const int64_t *)T.rp,
                     (const int32_t *)T.ci, c1, c2, word));
    SPS_TRY(amg_read_word(ctx, word, &left));
    int32_t *t = c1;
    c1 = c2;
    c2 = t;
    if (left >= before)
      SPS_TRY_FAIL(ctx, SPS_ERR_STATE, "amg: the colouring made no progress (%llu rows left)",
                   before);
  }
  SPS_TRY(AMG_STEP(ctx, mc_color_count, n, c1, word));
  SPS_TRY(amg_read_word(ctx, word, &ncol));
  L->ncolors = (int)ncol;
  SPS_TRY(be->malloc(ctx, (void **)&start, (ncol + 1) * sizeof *start, "AMG colour offsets"));
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    const cudaStream_t s = sps_cuda(ctx)->stream;
    size_t bytes = 0;
    void *tmp = NULL;
    int32_t *iota = NULL;
    /* the radix sort of (colour, row) pairs: c2, free now, receives the sorted colours */
    SPS_TRY(amg_cuda_status(
        ctx, sps_cuda_mc_order(s, NULL, &bytes, n, c1, L->ncolors, start, c2, NULL, L->order),
        "order"));
    SPS_TRY(be->malloc(ctx, &tmp, bytes > 0 ? bytes : 1, "AMG colour order scratch"));
    st = be->malloc(ctx, (void **)&iota, nn * sizeof *iota, "AMG colour order scratch");
    if (!st)
      st = amg_cuda_status(
          ctx, sps_cuda_mc_order(s, tmp, &bytes, n, c1, L->ncolors, start, c2, iota, L->order),
          "order");
    be->free(ctx, tmp);
    if (iota) be->free(ctx, iota);
    if (st) goto cleanup;
  } else
#endif
    sps_ref_mc_order(n, c1, L->ncolors, start, L->order);
  SPS_TRY(sps_host_alloc(ctx, (void **)&L->color_start, ncol + 1, sizeof *L->color_start,
                         "AMG colour offsets (host)"));
  SPS_TRY(be->download(ctx, L->color_start, start, (ncol + 1) * sizeof *start));
  L->lanes = sps_spmv_tpr_from_mean(n > 0 ? (double)A->nnz / (double)n : 1.0, 1);
cleanup:
  amg_csr_free(ctx, &T);
  void *v[] = {c1, c2, word, start};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (v[k]) be->free(ctx, v[k]);
  return st;
}

sps_status amg_mcgs_smooth(sps_context *ctx, const amg_level *L, const double *b, double *x,
                           int zero)
{
  const amg_csr *A = &L->op;
  if (zero) SPS_CHECK(ctx->be->fill(ctx, L->n, 0.0, x));
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < L->ncolors; k++) {
      const int c = pass ? L->ncolors - 1 - k : k;
      const int64_t first = L->color_start[c], count = L->color_start[c + 1] - first;
      SPS_CHECK(AMG_STEP(ctx, mcgs_sweep, count, L->order + first, A->rp, A->ci, A->v, L->asign,
                         L->dinv, b, x, L->lanes));
    }
  return SPS_SUCCESS;
}
