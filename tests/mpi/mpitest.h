/* mpitest.h: the harness of the distributed tests: sub-communicators of 1 .. P ranks, checks agreed over the ranks and printed as TAP by rank 0, the serial references they are held to. */
#ifndef SPS_MPITEST_H
#define SPS_MPITEST_H

#include <time.h>

#include <mpi.h>

#include "spsolve_mpi.h"
#include "../testlib.h"

static int mpitest_rank = 0, mpitest_size = 1;

/* Start MPI; every rank but 0 keeps quiet (its failures reach rank 0 through mpi_ok). */
static inline void mpitest_init(int *argc, char ***argv)
{
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpitest_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpitest_size);
  if (mpitest_rank != 0 && !freopen("/dev/null", "w", stdout)) MPI_Abort(MPI_COMM_WORLD, 99);
}

/* The exit code, the same on every rank (rank 0 knows the checks). */
static inline int mpitest_done(void)
{
  int code = mpitest_rank == 0 ? sps_done() : 0;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}

/*
 * A check that holds on every rank of comm (rank 0 of comm is rank 0 of the world, so it
 * prints): "ok N" only when cond holds everywhere. Collective over comm.
 */
static inline int mpi_ok(MPI_Comm comm, int cond, const char *fmt, ...)
{
  int all = cond != 0, r;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  MPI_Comm_rank(comm, &r);
  if (r == 0) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sps_ok(all, "%s", msg);
  }
  return all;
}

/*
 * A barrier of the world that sleeps while it waits: the ranks left out of a sub-communicator
 * wait here, and with more ranks than cores a spinning wait would take the cores the working
 * ranks need.
 */
static inline void mpitest_barrier(void)
{
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    const struct timespec nap = {0, 200000};
    nanosleep(&nap, NULL);
  }
}

/* The communicator of world ranks 0 .. k-1 (MPI_COMM_NULL on the others). */
static inline MPI_Comm mpitest_first(int k)
{
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, mpitest_rank < k ? 0 : MPI_UNDEFINED, mpitest_rank, &c);
  return c;
}

/* The device of the distributed tests: SPS_TEST_DEVICE=cuda (skip 77 without a GPU) or the CPU. */
static inline sps_device_kind mpitest_device(void)
{
  const char *dev = getenv("SPS_TEST_DEVICE");
  if (dev && strcmp(dev, "cuda") == 0) {
    int count = 0;
    sps_cuda_device_query(&count, NULL, 0);
    int have = sps_have_cuda() && count > 0;
    MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!have) {
      if (mpitest_rank == 0) printf("1..0 # SKIP no usable CUDA device\n");
      MPI_Finalize();
      exit(SPS_TEST_SKIP);
    }
    return SPS_DEVICE_CUDA;
  }
  return SPS_DEVICE_CPU;
}

/* A distributed context on comm, or bail. */
static inline sps_context *mpitest_context(MPI_Comm comm, sps_device_kind kind)
{
  sps_context *ctx = NULL;
  if (sps_context_create_mpi(&ctx, comm, kind, -1) != SPS_SUCCESS)
    sps_bail("distributed context: %s", sps_context_create_error());
  return ctx;
}

/* v[i] <- uniform in [-1, 1) from a seed, the same on every rank. */
static inline double *mpitest_random(int64_t n, uint64_t seed)
{
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  if (!v) sps_bail("out of host memory");
  sps_rng rng = {seed};
  for (int64_t i = 0; i < n; i++) v[i] = sps_rng_uniform(&rng);
  return v;
}

/* The path of a bundled test matrix. */
static inline const char *mpitest_data(const char *name, char *buf, size_t len)
{
  snprintf(buf, len, "%s/%s", sps_test_data_dir(), name);
  return buf;
}

/* Bitwise equality of two arrays (NaN equal to itself, -0 apart from +0): the first index
 * that differs, or -1. */
static inline int64_t mpitest_first_diff(int64_t n, const double *a, const double *b)
{
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) return i;
  return -1;
}

#endif /* SPS_MPITEST_H */
