/* device_query.cu: counts CUDA devices, names device 0, and proves it runs our code with a probe kernel. */
#include <cstddef>
#include <cstdio>

#include <cuda_runtime.h>

namespace {

/* One thread writes a known value: if this build has no code the device can run, the
 * launch fails and the device is reported unusable. */
__global__ void probe_kernel(int *out)
{
  *out = 0x5ab5;
}

} // namespace

/* Returns 1 when device 0 ran the probe, 0 otherwise; *count is the device count seen. */
extern "C" int sps_cuda_device_query_impl(int *count, char *name, size_t len)
{
  int n = 0;
  if (name && len) name[0] = '\0';
  if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
    cudaGetLastError();
    *count = 0;
    return 0;
  }
  *count = n;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 0;
  if (name && len) snprintf(name, len, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
  int *d = nullptr;
  int h = 0;
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&d, sizeof(int)) != cudaSuccess) return 0;
  probe_kernel<<<1, 1>>>(d);
  bool ok = cudaGetLastError() == cudaSuccess &&
            cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess && h == 0x5ab5;
  cudaFree(d);
  return ok ? 1 : 0;
}
