/* block_launchers.h: the extern "C" launchers of the CUDA block kernels (block_vector_kernels.cu, block_steps.cu, block_gmres_steps.cu, block_dense.cu) behind the block ops table of core/backend_cuda_block.c. */
#ifndef SPS_CORE_CUDA_BLOCK_LAUNCHERS_H
#define SPS_CORE_CUDA_BLOCK_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../block_ops.h"
#include "../krylov_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-column values and column indices handed to a kernel by value (512 and 256 bytes). */
typedef struct sps_block_vals {
  double v[SPS_BLOCK_MAX_COLS];
} sps_block_vals;

typedef struct sps_block_cols {
  int c[SPS_BLOCK_MAX_COLS];
} sps_block_cols;

/*
 * Every launcher takes the grid limit max_blocks (the context's reduce_blocks) and, for
 * reductions, the work space ws: its first two doubles hold the last-block ticket (zero between
 * launches), the block partials follow. Each returns cudaGetLastError().
 */

/* The doubles of ws for blocks of at most w columns and GMRES restarts of at most m. */
size_t sps_cuda_block_workspace(unsigned max_blocks, int w, int m);

/* block_vector_kernels.cu */
cudaError_t sps_cuda_block_copy_cols(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                     const double *src, int64_t lds, sps_block_cols scols,
                                     double *dst, int64_t ldd, sps_block_cols dcols);
cudaError_t sps_cuda_block_fill(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                                uint64_t mask, double a, double *Y);
cudaError_t sps_cuda_block_scale(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                                 uint64_t mask, sps_block_vals f, double *Y);
cudaError_t sps_cuda_block_axpby(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                                 uint64_t mask, sps_block_vals a, const double *X,
                                 sps_block_vals b, double *Y);
cudaError_t sps_cuda_block_pointwise(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                     int64_t ld, uint64_t mask, const double *d, const double *X,
                                     double *Y);
/* out[c] <- X(:, c).Y(:, c) (device memory, w doubles) */
cudaError_t sps_cuda_block_dot(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                               uint64_t mask, const double *X, const double *Y, double *ws,
                               double *out);
/* out[c] <- sum (X(i, c) f[c])^2, out[w + c] <- max |X(i, c)| (NaN when one is NaN) */
cudaError_t sps_cuda_block_sumsq(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                                 uint64_t mask, const double *X, sps_block_vals f, double *ws,
                                 double *out);

/* block_steps.cu: CG and BiCGSTAB */
cudaError_t sps_cuda_block_cg_alpha(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                    int64_t ld, const double *P, const double *Q, sps_cg_state *S,
                                    double *ws);
cudaError_t sps_cuda_block_cg_update(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                     int64_t ld, const double *P, const double *Q,
                                     const double *dinv, double *X, double *R, double *Z,
                                     sps_cg_state *S, double *ws);
cudaError_t sps_cuda_block_cg_rz(cudaStream_t s, unsigned max_blocks, int64_t n, int w, int64_t ld,
                                 const double *R, const double *Z, sps_cg_state *S, double *ws);
cudaError_t sps_cuda_block_cg_direction(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                        int64_t ld, const double *Z, double *P,
                                        const sps_cg_state *S);
cudaError_t sps_cuda_block_bicgstab_step_a(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                           int64_t ld, const double *RHAT, const double *V,
                                           const double *R, double *SV, sps_bicgstab_state *S,
                                           double *ws);
cudaError_t sps_cuda_block_bicgstab_step_b(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                           int64_t ld, const double *T, const double *SV,
                                           const double *PHAT, const double *SHAT,
                                           const double *RHAT, double *X, double *R,
                                           sps_bicgstab_state *S, double *ws);
cudaError_t sps_cuda_block_bicgstab_direction(cudaStream_t s, unsigned max_blocks, int64_t n,
                                              int w, int64_t ld, const double *R, const double *V,
                                              double *P, const sps_bicgstab_state *S);

/* block_gmres_steps.cu */
cudaError_t sps_cuda_block_gmres_start(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                       int64_t ld, uint64_t mask, const double *R, double *V,
                                       double *VCUR, sps_gmres_state *S, double *ws);
cudaError_t sps_cuda_block_gmres_arnoldi(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                         int64_t ld, int m, double *V, int64_t vstride, double *W,
                                         double *VCUR, sps_gmres_state *S, double *ws);
cudaError_t sps_cuda_block_gmres_update(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                        int64_t ld, int m, uint64_t mask, const double *V,
                                        int64_t vstride, sps_gmres_state *S, double *U);

/* block_dense.cu: Gram matrices and products with a small matrix (block CG). G and C in
 * device memory, a x b column-major. */
cudaError_t sps_cuda_block_gram(cudaStream_t s, unsigned max_blocks, int64_t n, int64_t ld, int a,
                                const double *X, int b, const double *Y, double *ws, double *G);
cudaError_t sps_cuda_block_gemm(cudaStream_t s, unsigned max_blocks, int64_t n, int64_t ld, int a,
                                const double *X, int b, uint64_t mask, const double *C,
                                double beta, double *Y);

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_CUDA_BLOCK_LAUNCHERS_H */
