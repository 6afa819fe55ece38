/* amg_step.h: the dispatch of one multigrid setup step to its CPU reference (precond/ref/) or its CUDA kernel (precond/cuda/), which take the same arguments in the context's memory. */
#ifndef SPS_PRECOND_AMG_STEP_H
#define SPS_PRECOND_AMG_STEP_H

#include "amg.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef SPS_HAVE_CUDA
/* A launcher's CUDA status as the library's, naming the step. */
sps_status amg_cuda_status(sps_context *ctx, cudaError_t e, const char *step);

/*
 * AMG_STEP(ctx, name, args...): sps_cuda_<name>(stream, args...) on a CUDA context (its status
 * checked), sps_ref_<name>(args...) on the CPU; an sps_status either way. Every pair of
 * functions has the same arguments and the same results (precond/ref/kernels.h).
 */
#define AMG_STEP(ctx, name, ...)                                                                   \
  ((ctx)->kind == SPS_DEVICE_CUDA                                                                  \
       ? amg_cuda_status((ctx), sps_cuda_##name(sps_cuda(ctx)->stream, __VA_ARGS__), #name)        \
       : (sps_ref_##name(__VA_ARGS__), SPS_SUCCESS))
#else
#define AMG_STEP(ctx, name, ...) ((void)(ctx), sps_ref_##name(__VA_ARGS__), SPS_SUCCESS)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_AMG_STEP_H */
