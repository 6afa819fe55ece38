/* backend_cuda_block.c: the CUDA implementation of the block ops table (core/block_ops.h): thin wrappers over the launchers of core/cuda/block_*.cu on the context's stream. */
#include <math.h>
#include <string.h>

#include "block_ops.h"
#include "cuda/block_launchers.h"
#include "cuda_state.h"
#include "nrm2_scale.h"

/* Per-column host values into the by-value argument of a kernel (columns outside mask: 0). */
static sps_block_vals vals_of(int w, uint64_t mask, const double *v)
{
  sps_block_vals out;
  memset(&out, 0, sizeof out);
  for (int c = 0; c < w && c < SPS_BLOCK_MAX_COLS; c++)
    if ((mask >> c) & 1u) out.v[c] = v[c];
  return out;
}

static sps_block_cols cols_of(int w, const int *c)
{
  sps_block_cols out;
  memset(&out, 0, sizeof out);
  for (int k = 0; k < w && k < SPS_BLOCK_MAX_COLS; k++) out.c[k] = c[k];
  return out;
}

/* Copy count doubles of device results from the context's scratch into host memory. */
static sps_status read_scratch(sps_context *ctx, int count, double *out)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA(ctx, cudaMemcpyAsync(cs->host_pinned, cs->scratch, (size_t)count * sizeof(double),
                                cudaMemcpyDeviceToHost, cs->stream));
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  memcpy(out, cs->host_pinned, (size_t)count * sizeof(double));
  return SPS_SUCCESS;
}

static size_t cu_block_workspace(sps_context *ctx, int64_t n, int w, int m)
{
  (void)n;
  return sps_cuda_block_workspace(sps_cuda(ctx)->reduce_blocks, w, m);
}

static sps_status cu_copy_cols(sps_context *ctx, int64_t n, int w, const double *src, int64_t lds,
                               const int *scols, double *dst, int64_t ldd, const int *dcols)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, w >= 0 && w <= SPS_BLOCK_MAX_COLS, "w");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_copy_cols(cs->stream, cs->reduce_blocks, n, w, src, lds,
                                                cols_of(w, scols), dst, ldd, cols_of(w, dcols)));
  return SPS_SUCCESS;
}

static sps_status cu_block_fill(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                double a, double *Y)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_fill(cs->stream, cs->reduce_blocks, n, w, ld, mask, a, Y));
  return SPS_SUCCESS;
}

static sps_status cu_block_scale(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                 const double *f, double *Y)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_scale(cs->stream, cs->reduce_blocks, n, w, ld, mask,
                                            vals_of(w, mask, f), Y));
  return SPS_SUCCESS;
}

static sps_status cu_block_axpby(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                 const double *a, const double *X, const double *b, double *Y)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_axpby(cs->stream, cs->reduce_blocks, n, w, ld, mask,
                                            vals_of(w, mask, a), X, vals_of(w, mask, b), Y));
  return SPS_SUCCESS;
}

static sps_status cu_block_pointwise(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                     const double *d, const double *X, double *Y)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx,
                  sps_cuda_block_pointwise(cs->stream, cs->reduce_blocks, n, w, ld, mask, d, X, Y));
  return SPS_SUCCESS;
}

static sps_status cu_block_dot(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                               const double *X, const double *Y, double *out, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (!mask) return SPS_SUCCESS;
  double res[SPS_BLOCK_MAX_COLS];
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_dot(cs->stream, cs->reduce_blocks, n, w, ld, mask, X, Y, ws,
                                          cs->scratch));
  SPS_CHECK(read_scratch(ctx, w, res));
  for (int c = 0; c < w; c++)
    if ((mask >> c) & 1u) out[c] = res[c];
  return SPS_SUCCESS;
}

/* ||X(:, c)||: sqrt of the sum of squares, or 2^e ||2^-e x|| by a second pass for the columns
 * whose largest entry asks for it, as cu_nrm2 per column (core/nrm2_scale.h). */
static sps_status cu_block_nrm2(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                const double *X, double *out, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (!mask) return SPS_SUCCESS;
  double res[2 * SPS_BLOCK_MAX_COLS], f[SPS_BLOCK_MAX_COLS];
  int e[SPS_BLOCK_MAX_COLS];
  for (int c = 0; c < w; c++) f[c] = 1.0;
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_sumsq(cs->stream, cs->reduce_blocks, n, w, ld, mask, X,
                                            vals_of(w, mask, f), ws, cs->scratch));
  SPS_CHECK(read_scratch(ctx, 2 * w, res));
  uint64_t again = 0;
  for (int c = 0; c < w; c++) {
    if (!((mask >> c) & 1u)) continue;
    e[c] = isnan(res[w + c]) ? 0 : sps_nrm2_scale_exponent(res[w + c]);
    if (e[c] == 0) {
      out[c] = sqrt(res[c]);
    } else {
      again |= (uint64_t)1 << c;
      f[c] = ldexp(1.0, -e[c]);
    }
  }
  if (!again) return SPS_SUCCESS;
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_sumsq(cs->stream, cs->reduce_blocks, n, w, ld, again, X,
                                            vals_of(w, again, f), ws, cs->scratch));
  SPS_CHECK(read_scratch(ctx, 2 * w, res));
  for (int c = 0; c < w; c++)
    if ((again >> c) & 1u) out[c] = ldexp(sqrt(res[c]), e[c]);
  return SPS_SUCCESS;
}

static sps_status cu_block_cg_alpha(sps_context *ctx, int64_t n, int w, int64_t ld,
                                    const double *P, const double *Q, sps_cg_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_cg_alpha(cs->stream, cs->reduce_blocks, n, w, ld, P, Q, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_cg_update(sps_context *ctx, int64_t n, int w, int64_t ld,
                                     const double *P, const double *Q, const double *dinv,
                                     double *X, double *R, double *Z, sps_cg_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_cg_update(cs->stream, cs->reduce_blocks, n, w, ld, P, Q, dinv,
                                                X, R, Z, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_cg_rz(sps_context *ctx, int64_t n, int w, int64_t ld, const double *R,
                                 const double *Z, sps_cg_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_cg_rz(cs->stream, cs->reduce_blocks, n, w, ld, R, Z, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_cg_direction(sps_context *ctx, int64_t n, int w, int64_t ld,
                                        const double *Z, double *P, const sps_cg_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx,
                  sps_cuda_block_cg_direction(cs->stream, cs->reduce_blocks, n, w, ld, Z, P, S));
  return SPS_SUCCESS;
}

static sps_status cu_block_bicgstab_step_a(sps_context *ctx, int64_t n, int w, int64_t ld,
                                           const double *RHAT, const double *V, const double *R,
                                           double *SV, sps_bicgstab_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_bicgstab_step_a(cs->stream, cs->reduce_blocks, n, w, ld, RHAT,
                                                      V, R, SV, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_bicgstab_step_b(sps_context *ctx, int64_t n, int w, int64_t ld,
                                           const double *T, const double *SV, const double *PHAT,
                                           const double *SHAT, const double *RHAT, double *X,
                                           double *R, sps_bicgstab_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_bicgstab_step_b(cs->stream, cs->reduce_blocks, n, w, ld, T,
                                                      SV, PHAT, SHAT, RHAT, X, R, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_bicgstab_direction(sps_context *ctx, int64_t n, int w, int64_t ld,
                                              const double *R, const double *V, double *P,
                                              const sps_bicgstab_state *S)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_bicgstab_direction(cs->stream, cs->reduce_blocks, n, w, ld, R,
                                                         V, P, S));
  return SPS_SUCCESS;
}

static sps_status cu_block_gmres_start(sps_context *ctx, int64_t n, int w, int64_t ld,
                                       uint64_t mask, const double *R, double *V, double *VCUR,
                                       sps_gmres_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_gmres_start(cs->stream, cs->reduce_blocks, n, w, ld, mask, R,
                                                  V, VCUR, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_gmres_arnoldi(sps_context *ctx, int64_t n, int w, int64_t ld, int m,
                                         double *V, int64_t vstride, double *W, double *VCUR,
                                         sps_gmres_state *S, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, m >= 1 && m <= SPS_GMRES_STEPS_MAX_M, "m");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_gmres_arnoldi(cs->stream, cs->reduce_blocks, n, w, ld, m, V,
                                                    vstride, W, VCUR, S, ws));
  return SPS_SUCCESS;
}

static sps_status cu_block_gmres_update(sps_context *ctx, int64_t n, int w, int64_t ld, int m,
                                        uint64_t mask, const double *V, int64_t vstride,
                                        sps_gmres_state *S, double *U)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, m >= 1 && m <= SPS_GMRES_STEPS_MAX_M, "m");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_gmres_update(cs->stream, cs->reduce_blocks, n, w, ld, m, mask,
                                                   V, vstride, S, U));
  return SPS_SUCCESS;
}

static sps_status cu_block_gram(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X,
                                int b, const double *Y, double *G, double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CHECK_ARG(ctx, a >= 0 && b >= 0 && a * b <= SPS_CUDA_SCRATCH, "a, b");
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_gram(cs->stream, cs->reduce_blocks, n, ld, a, X, b, Y, ws,
                                           cs->scratch));
  return read_scratch(ctx, a * b, G);
}

/* C goes to the device through the pinned buffer into the scratch; the copy is ordered on the
 * stream before the kernel, and the buffer is reused only after a synchronisation. */
static sps_status cu_block_gemm(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X,
                                int b, uint64_t mask, const double *C, double beta, double *Y,
                                double *ws)
{
  struct sps_cuda_state *cs = sps_cuda(ctx);
  (void)ws;
  SPS_CHECK_ARG(ctx, a >= 0 && b >= 0 && a * b <= SPS_CUDA_SCRATCH, "a, b");
  SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
  memcpy(cs->host_pinned, C, (size_t)(a * b) * sizeof(double));
  SPS_CUDA(ctx, cudaMemcpyAsync(cs->scratch, cs->host_pinned, (size_t)(a * b) * sizeof(double),
                                cudaMemcpyHostToDevice, cs->stream));
  SPS_CUDA_LAUNCH(ctx, sps_cuda_block_gemm(cs->stream, cs->reduce_blocks, n, ld, a, X, b, mask,
                                           cs->scratch, beta, Y));
  return SPS_SUCCESS;
}

const sps_block_backend sps_block_backend_cuda = {
    .workspace = cu_block_workspace,
    .copy_cols = cu_copy_cols,
    .fill = cu_block_fill,
    .scale = cu_block_scale,
    .axpby = cu_block_axpby,
    .pointwise = cu_block_pointwise,
    .dot = cu_block_dot,
    .nrm2 = cu_block_nrm2,
    .cg_alpha = cu_block_cg_alpha,
    .cg_update = cu_block_cg_update,
    .cg_rz = cu_block_cg_rz,
    .cg_direction = cu_block_cg_direction,
    .bicgstab_step_a = cu_block_bicgstab_step_a,
    .bicgstab_step_b = cu_block_bicgstab_step_b,
    .bicgstab_direction = cu_block_bicgstab_direction,
    .gmres_start = cu_block_gmres_start,
    .gmres_arnoldi = cu_block_gmres_arnoldi,
    .gmres_update = cu_block_gmres_update,
    .gram = cu_block_gram,
    .gemm = cu_block_gemm,
};
