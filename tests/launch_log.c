/* launch_log.c: an LD_PRELOAD library for the GPU test runs of tests/sanitize-gpu.sh. It writes
 * the name of every CUDA kernel the process launches, once each, to the file named by
 * SPS_LAUNCH_LOG (appended and flushed as each new kernel comes, so a run stopped by a time
 * limit keeps what it launched), so a sanitizer run can be matched with the kernels it checked
 * (tests/race-coverage.sh).
 *
 * It stands between the program and the CUDA runtime (libcudart.so, which libspsolve links
 * dynamically) at the launch entry points and passes every call through unchanged:
 * __cudaGetKernel and __cudaLaunchKernel (what nvcc's <<<...>>> stubs call since CUDA 13: the
 * first maps the stub's address to a kernel handle, once, the second launches by the handle),
 * cudaLaunchKernel, cudaLaunchKernelExC (clusters) and cudaLaunchCooperativeKernel, with their
 * per-thread-stream (_ptsz) forms. Kernels captured into a CUDA graph are logged when captured.
 * A name comes from cudaFuncGetName on the stub's address (mangled; c++filt reads it). Kernels
 * launched inside other libraries' own runtimes (cuSPARSE) are not seen.
 *
 * Built by tests/sanitize-gpu.sh with the host compiler alone (no CUDA headers: the few types
 * it needs are declared here with the runtime's layout on 64-bit Linux):
 *   cc -shared -fPIC -o launch_log.so tests/launch_log.c -ldl -lpthread
 * A test tool, not part of the library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cuda_error_t;                     /* cudaError_t: an enum, 0 success */
typedef struct { unsigned x, y, z; } dim3_t;  /* dim3, passed by value */
typedef void *stream_t;                       /* cudaStream_t */
typedef void *kernel_t;                       /* cudaKernel_t */

/* The kernels seen: stub addresses (the set of a process is a few hundred at most), and the
 * handle -> stub pairs that __cudaGetKernel made. */
enum { kMaxSeen = 4096 };
static const void *seen[kMaxSeen];
static size_t nseen;
static struct { kernel_t handle; const void *stub; } handles[kMaxSeen];
static size_t nhandles;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *next_symbol(const char *name)
{
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "launch_log: %s not found in the CUDA runtime\n", name);
    abort();
  }
  return f;
}

/* Writes the kernel of stub address f to the log once. Called before the launch passes on; a
 * failed name lookup is cleared (cudaGetLastError) so the program never sees an error it did
 * not cause, and the address is written instead. */
static void log_stub(const void *f)
{
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nseen; i++)
    if (seen[i] == f) {
      pthread_mutex_unlock(&lock);
      return;
    }
  if (nseen < kMaxSeen) seen[nseen++] = f;
  const char *path = getenv("SPS_LAUNCH_LOG");
  if (path && *path) {
    static cuda_error_t (*get_name)(const char **, const void *);
    static cuda_error_t (*get_last)(void);
    if (!get_name) {
      get_name = (cuda_error_t(*)(const char **, const void *))next_symbol("cudaFuncGetName");
      get_last = (cuda_error_t(*)(void))next_symbol("cudaGetLastError");
    }
    const char *name = NULL;
    if (get_name(&name, f) != 0 || !name) {
      (void)get_last();
      name = NULL;
    }
    FILE *out = fopen(path, "a");
    if (out) {
      if (name)
        fprintf(out, "%s\n", name);
      else
        fprintf(out, "unnamed:%p\n", f);
      fclose(out);
    }
  }
  pthread_mutex_unlock(&lock);
}

static const void *stub_of(kernel_t k)
{
  const void *f = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nhandles; i++)
    if (handles[i].handle == k) f = handles[i].stub;
  pthread_mutex_unlock(&lock);
  return f ? f : (const void *)k;
}

cuda_error_t __cudaGetKernel(kernel_t *k, const void *f)
{
  static cuda_error_t (*real)(kernel_t *, const void *);
  if (!real) real = (cuda_error_t(*)(kernel_t *, const void *))next_symbol("__cudaGetKernel");
  cuda_error_t e = real(k, f);
  if (e == 0 && k) {
    pthread_mutex_lock(&lock);
    if (nhandles < kMaxSeen) {
      handles[nhandles].handle = *k;
      handles[nhandles].stub = f;
      nhandles++;
    }
    pthread_mutex_unlock(&lock);
  }
  return e;
}

typedef cuda_error_t (*launch_handle_fn)(kernel_t, dim3_t, dim3_t, void **, size_t, stream_t);
typedef cuda_error_t (*launch_fn)(const void *, dim3_t, dim3_t, void **, size_t, stream_t);
typedef cuda_error_t (*launch_ex_fn)(const void *, const void *, void **);

cuda_error_t __cudaLaunchKernel(kernel_t k, dim3_t g, dim3_t b, void **a, size_t s, stream_t st)
{
  static launch_handle_fn real;
  if (!real) real = (launch_handle_fn)next_symbol("__cudaLaunchKernel");
  log_stub(stub_of(k));
  return real(k, g, b, a, s, st);
}

cuda_error_t __cudaLaunchKernel_ptsz(kernel_t k, dim3_t g, dim3_t b, void **a, size_t s,
                                     stream_t st)
{
  static launch_handle_fn real;
  if (!real) real = (launch_handle_fn)next_symbol("__cudaLaunchKernel_ptsz");
  log_stub(stub_of(k));
  return real(k, g, b, a, s, st);
}

#define PASS_LAUNCH(NAME)                                                                    \
  cuda_error_t NAME(const void *f, dim3_t g, dim3_t b, void **a, size_t s, stream_t st)      \
  {                                                                                          \
    static launch_fn real;                                                                   \
    if (!real) real = (launch_fn)next_symbol(#NAME);                                         \
    log_stub(f);                                                                             \
    return real(f, g, b, a, s, st);                                                          \
  }
PASS_LAUNCH(cudaLaunchKernel)
PASS_LAUNCH(cudaLaunchKernel_ptsz)
PASS_LAUNCH(cudaLaunchCooperativeKernel)
PASS_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

/* cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args). */
#define PASS_LAUNCH_EX(NAME)                                                                 \
  cuda_error_t NAME(const void *config, const void *f, void **a)                             \
  {                                                                                          \
    static launch_ex_fn real;                                                                \
    if (!real) real = (launch_ex_fn)next_symbol(#NAME);                                      \
    log_stub(f);                                                                             \
    return real(config, f, a);                                                               \
  }
PASS_LAUNCH_EX(cudaLaunchKernelExC)
PASS_LAUNCH_EX(cudaLaunchKernelExC_ptsz)
