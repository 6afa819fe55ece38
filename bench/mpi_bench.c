/* mpi_bench.c: the distributed solves' benchmark (run under mpirun): CG on generated 3-D Poisson problems for weak and strong scaling with the time split between the local products, the halo exchange and the reductions; one rank's distributed solve beside the single-process one; and the two ways of reading a matrix file.
 *
 *   mpirun -np P bench/mpi-bench --weak N [options]      each rank N^3 rows (an N x N x PN box)
 *   mpirun -np P bench/mpi-bench --strong N [options]    N^3 rows in all
 *   mpirun -np 1 bench/mpi-bench --compare-serial N      the same CG on a single-process context,
 *                                                        on one rank's distributed context, and on
 *                                                        it with the reductions split as with
 *                                                        several ranks, side by side
 *   mpirun -np P bench/mpi-bench --read FILE             rank 0 reads and scatters (contiguous and
 *                                                        METIS), every rank reads its rows
 *   mpirun -np P bench/mpi-bench --matrix FILE           strong scaling on a file: every rank
 *                                                        reads its rows (sps_matrix_read_mm_dist)
 * Options: --device cpu|cuda (default cpu), --solver cg|gmres (GMRES(30); default cg),
 * --iterations K (iterations timed, default 200; with --rtol the most), --rtol R (solve to
 * ||r|| <= R ||b|| instead of exactly K iterations: the time to solution), --repeat R (solves timed, at most 64, the
 * median kept, default 3), --precond none|jacobi (default jacobi), --pipelined (CG),
 * --convection C (the generated problem becomes convection-diffusion: -1 - C and -1 + C on the
 * x-1 and x+1 couplings, nonsymmetric for C != 0; default 0), --halo and --reduce
 * auto|mpi|nccl (sps_context_set_transport; default auto), --timeline FILE (every rank's events
 * of the last solve), --tsv FILE (append the row there too).
 *
 * The Poisson problem: the 7-point Laplacian of an NX x NY x NZ box (6 on the diagonal, -1 off
 * it), split in slabs of whole z-planes, rank r taking planes [z0_r, z1_r) (z0_r = r NZ / P).
 * Each rank numbers its rows with its inner planes first and its two boundary planes last,
 * which is how the matrix readers number a partition (core/dist_matrix.c), so the product of
 * the inner planes overlaps the halo exchange; the global numbering is the concatenation of
 * the ranks' numberings. Each rank makes only its own rows (sps_matrix_create_dist_csr).
 *
 * A solve runs exactly K iterations (rtol 1e-300, maxit K), or to --rtol, from x = 0 with
 * b = A (1, .., 1); the time per iteration is the solve's over its iterations. The split
 * comes from the context's clocks (sps_context_get_comm_times): local products (rows free of the halo, then the boundary
 * rows), halo exchange (start, then the wait not hidden by the local product), reductions
 * (the exchanges of the partial sums), and the rest (vector updates, the true residuals of the
 * start and the end): the solve's time is the slowest rank's, its parts the mean over the
 * ranks, each the median over the solves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "../core/comm.h" /* sps_comm_set_split: the split reductions on one rank */
#include "bench_util.h"
#include "spsolve_mpi.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct opts {
  int weak, strong, compare, repeat, iterations, pipelined;
  const char *read_file, *matrix_file, *timeline, *tsv;
  sps_device_kind device;
  sps_precond_type precond;
  sps_solver_type solver;
  double convection, rtol;
  sps_transport halo, reduce;
} opts;

static const opts *opts_ = NULL; /* the run's options, for the generator */

static int rank_ = 0, size_ = 1;

static void die(const char *fmt, const char *arg)
{
  if (rank_ == 0) {
    fprintf(stderr, "mpi-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
  }
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The slab of planes [z0, z1) of rank r of p over nz planes. */
static void slab(int64_t nz, int r, int p, int64_t *z0, int64_t *z1)
{
  *z0 = (int64_t)r * nz / p;
  *z1 = (int64_t)(r + 1) * nz / p;
}

/* The global index of grid point (x, y, z) in the ranks' numbering: rank r's inner planes first,
 * then its first plane, then its last (a slab of one or two planes has no inner planes). */
static int64_t point(int64_t nx, int64_t ny, int64_t nz, int p, int64_t x, int64_t y, int64_t z)
{
  const int64_t plane = nx * ny;
  int r = (int)((z * p + p - 1) / nz); /* the first rank whose slab may hold z */
  int64_t z0, z1;
  if (r >= p) r = p - 1;
  slab(nz, r, p, &z0, &z1);
  while (z < z0) slab(nz, --r, p, &z0, &z1);
  while (z >= z1) slab(nz, ++r, p, &z0, &z1);
  const int64_t inner = z1 - z0 > 2 ? z1 - z0 - 2 : 0;
  int64_t pos;
  if (z > z0 && z < z1 - 1)
    pos = (z - z0 - 1) * plane;
  else if (z == z0)
    pos = inner * plane;
  else
    pos = (inner + 1) * plane;
  return z0 * plane + pos + y * nx + x;
}

/* This rank's rows of the box's 7-point Laplacian (with --convection C, the x couplings
 * -1 - C and -1 + C), in its numbering (see above). */
static sps_matrix *poisson_rows(sps_context *ctx, int64_t nx, int64_t ny, int64_t nz)
{
  int64_t z0, z1;
  slab(nz, rank_, size_, &z0, &z1);
  const int64_t plane = nx * ny, n = (z1 - z0) * plane;
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp), *ci = malloc((size_t)(7 * n + 1) * sizeof *ci);
  double *va = malloc((size_t)(7 * n + 1) * sizeof *va);
  int64_t *order = malloc((size_t)(z1 - z0 + 1) * sizeof *order);
  if (!rp || !ci || !va || !order) die("out of host memory%s", "");
  /* the planes in the local order: inner ones, then z0, then z1 - 1 */
  int64_t np = 0;
  for (int64_t z = z0 + 1; z < z1 - 1; z++) order[np++] = z;
  order[np++] = z0;
  if (z1 - 1 > z0) order[np++] = z1 - 1;
  int64_t k = 0, row = 0;
  const double conv = opts_ ? opts_->convection : 0.0;
  rp[0] = 0;
  for (int64_t q = 0; q < np; q++) {
    const int64_t z = order[q];
    for (int64_t y = 0; y < ny; y++)
      for (int64_t x = 0; x < nx; x++) {
        if (z > 0) ci[k] = point(nx, ny, nz, size_, x, y, z - 1), va[k++] = -1.0;
        if (y > 0) ci[k] = point(nx, ny, nz, size_, x, y - 1, z), va[k++] = -1.0;
        if (x > 0) ci[k] = point(nx, ny, nz, size_, x - 1, y, z), va[k++] = -1.0 - conv;
        ci[k] = point(nx, ny, nz, size_, x, y, z), va[k++] = 6.0;
        if (x < nx - 1) ci[k] = point(nx, ny, nz, size_, x + 1, y, z), va[k++] = -1.0 + conv;
        if (y < ny - 1) ci[k] = point(nx, ny, nz, size_, x, y + 1, z), va[k++] = -1.0;
        if (z < nz - 1) ci[k] = point(nx, ny, nz, size_, x, y, z + 1), va[k++] = -1.0;
        rp[++row] = k;
      }
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_dist_csr(ctx, &A, n, rp, ci, va))
    die("matrix: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  free(order);
  return A;
}

/* What one timed solve gives: seconds of the solve (the slowest rank) and of its parts (the
 * mean over the ranks). */
typedef struct timing {
  double solve, spmv_local, spmv_boundary, halo_start, halo_wait, reduce;
  int iterations;
} timing;

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One CG set up for timing: exactly K iterations from x = 0 with b = A 1. */
typedef struct cg_run {
  sps_context *ctx;
  sps_vector *b, *x, *one;
  sps_solver *s;
  sps_spmv_plan *plan;
  double t[6][64]; /* the solve and its parts, one column per timed solve */
  int done;
} cg_run;

static void cg_open(cg_run *r, sps_context *ctx, const sps_matrix *A, const opts *o)
{
  int64_t nl;
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  sps_matrix_get_size(A, &nl, NULL, NULL);
  if (sps_vector_create(ctx, &r->b, nl) || sps_vector_create(ctx, &r->x, nl) ||
      sps_vector_create(ctx, &r->one, nl) || sps_vector_fill(r->one, 1.0) ||
      sps_spmv_plan_create(ctx, &r->plan, A, SPS_SPMV_AUTO) || sps_spmv_plan_setup(r->plan) ||
      sps_spmv_apply(r->plan, 1.0, r->one, 0.0, r->b) || sps_solver_create(ctx, &r->s, o->solver) ||
      sps_solver_set_precond(r->s, o->precond) || sps_solver_set_tolerances(r->s, o->rtol > 0.0 ? o->rtol : 1e-300, 0.0) ||
      sps_solver_set_max_iterations(r->s, o->iterations) ||
      (o->solver == SPS_SOLVER_GMRES && sps_solver_set_restart(r->s, 30)) ||
      (o->solver == SPS_SOLVER_CG && sps_solver_set_pipelined(r->s, o->pipelined)) ||
      sps_solver_set_zero_guess(r->s, 1) || sps_solver_setup(r->s, A))
    die("solver: %s", sps_context_last_error(ctx));
}

/* One timed solve: the solve (the slowest rank's) and its parts (the mean over the ranks, so
 * that they add up to about the solve on every rank: the largest of each part would not, one
 * rank waiting for the halo while another still computes). */
static void cg_once(cg_run *r, int timeline, const opts *o)
{
  if (r->done == 64) return;
  if (timeline) sps_context_set_timeline(r->ctx, (int64_t)o->iterations * 12 + 4096);
  sps_context_reset_comm_times(r->ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  if (sps_solver_solve(r->s, r->b, r->x)) die("solve: %s", sps_context_last_error(r->ctx));
  double solve_s;
  sps_solver_get_times(r->s, NULL, &solve_s);
  sps_comm_times c = {0};
  sps_context_get_comm_times(r->ctx, &c); /* zeros on a single-process context */
  double v[6] = {solve_s, c.spmv_local, c.spmv_boundary, c.halo_start, c.halo_wait, c.reduce};
  MPI_Allreduce(MPI_IN_PLACE, &v[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &v[1], 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int q = 1; q < 6; q++) v[q] /= size_;
  for (int q = 0; q < 6; q++) r->t[q][r->done] = v[q];
  r->done++;
}

/* The medians of the timed solves; the run's objects freed. */
static timing cg_close(cg_run *r)
{
  timing out = {0};
  sps_solver_get_iterations(r->s, &out.iterations);
  double *med[6] = {&out.solve, &out.spmv_local, &out.spmv_boundary, &out.halo_start,
                    &out.halo_wait, &out.reduce};
  for (int q = 0; q < 6 && r->done > 0; q++) {
    qsort(r->t[q], (size_t)r->done, sizeof r->t[q][0], cmp_double);
    *med[q] = r->t[q][r->done / 2];
  }
  sps_solver_destroy(&r->s);
  sps_spmv_plan_destroy(&r->plan);
  sps_vector_destroy(&r->b);
  sps_vector_destroy(&r->x);
  sps_vector_destroy(&r->one);
  return out;
}

/* The solve R times (at most 64); the medians; the timeline of the last solve when asked. */
static timing time_solve(sps_context *ctx, const sps_matrix *A, const opts *o, int timeline)
{
  cg_run r;
  cg_open(&r, ctx, A, o);
  for (int k = 0; k < o->repeat && k < 64; k++) cg_once(&r, timeline && k == o->repeat - 1, o);
  return cg_close(&r);
}

/* Every rank's timeline events on rank 0, as TSV (rank, event, start_s, end_s). */
static void write_timeline(sps_context *ctx, const char *path)
{
  const sps_event *ev;
  int64_t n, dropped;
  sps_context_get_timeline(ctx, &ev, &n, &dropped);
  int mine = (int)(3 * n), *counts = malloc((size_t)size_ * sizeof *counts);
  int *displs = malloc((size_t)size_ * sizeof *displs);
  double *send = malloc((size_t)(mine > 0 ? mine : 1) * sizeof *send);
  if (!counts || !displs || !send) die("out of host memory%s", "");
  for (int64_t k = 0; k < n; k++) {
    send[3 * k] = (double)ev[k].kind;
    send[3 * k + 1] = ev[k].start;
    send[3 * k + 2] = ev[k].end;
  }
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (rank_ == 0)
    for (int r = 0; r < size_; r++) {
      displs[r] = total;
      total += counts[r];
    }
  double *all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
  if (!all) die("out of host memory%s", "");
  MPI_Gatherv(send, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s", path);
    fprintf(f, "rank\tevent\tstart_s\tend_s\n");
    for (int r = 0; r < size_; r++)
      for (int k = 0; k < counts[r] / 3; k++) {
        const double *e = all + displs[r] + 3 * k;
        fprintf(f, "%d\t%s\t%.9f\t%.9f\n", r, sps_event_kind_name((sps_event_kind)e[0]), e[1], e[2]);
      }
    fclose(f);
  }
  free(counts);
  free(displs);
  free(send);
  free(all);
}

/* The TSV row of a scaling run on rank 0's stdout (and --tsv). */
static void emit(const opts *o, sps_context *ctx, const char *mode, const char *box,
                 const sps_dist_info *f, const timing *t, const char *device, const char *date,
                 const char *host)
{
  sps_transport via_halo = SPS_TRANSPORT_MPI, via_reduce = SPS_TRANSPORT_MPI;
  sps_context_get_transport(ctx, &via_halo, &via_reduce);
  if (rank_ != 0) return;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  const double it = t->iterations > 0 ? (double)t->iterations : 1.0;
  const double spmv = t->spmv_local + t->spmv_boundary, halo = t->halo_start + t->halo_wait;
  const double rest = t->solve - spmv - halo - t->reduce;
  char line[2048];
  snprintf(line, sizeof line,
           "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%lld\t%lld\t%s%s\t%d\t%.6e\t%.6e\t%.6e\t%.6e\t%.6e\t"
           "%.6e\t%.6e\t%lld\t%lld\t%.4f\t%.4f\t%s\t%s\t%s",
           date, host, device, mode, size_, threads, box, (long long)f->rows, (long long)f->nnz, o->pipelined ? "pipelined-" : "",
           sps_precond_type_name(o->precond), t->iterations, t->solve / it, spmv / it,
           t->spmv_boundary / it, halo / it, t->halo_wait / it, t->reduce / it, rest / it,
           (long long)f->halo_total, (long long)f->halo_max, f->overlap_min, f->imbalance_nnz,
           o->solver == SPS_SOLVER_GMRES ? "gmres30" : "cg", sps_transport_name(via_halo),
           sps_transport_name(via_reduce));
  puts(line);
  fflush(stdout);
  if (o->tsv) {
    FILE *f2 = fopen(o->tsv, "a");
    if (f2) {
      fprintf(f2, "%s\n", line);
      fclose(f2);
    }
  }
}

static const char *header =
    "date\thost\tdevice\tmode\tranks\tthreads\tbox\trows\tnnz\tmethod\titerations\ts_per_it\t"
    "spmv_s_per_it\tspmv_boundary_s_per_it\thalo_s_per_it\thalo_wait_s_per_it\treduce_s_per_it\t"
    "rest_s_per_it\thalo_total\thalo_max\toverlap_min\timbalance_nnz\tsolver\thalo_via\treduce_via";

/* --compare-serial N on one rank: single-process, distributed, distributed with split
 * reductions (a context of its own, split from its creation); per iteration and the ratios.
 * The three are set up first, then timed in turns (one solve of each per round), so that a
 * change in the machine's load falls on all three alike. */
static void compare_serial(const opts *o, int64_t n, const char *device, const char *date,
                           const char *host)
{
  if (size_ != 1) die("--compare-serial runs on one rank (mpirun -np 1)%s", "");
  sps_context *sctx = NULL, *dctx = NULL, *fctx = NULL;
  if (sps_context_create(&sctx, o->device, 0) ||
      sps_context_create_mpi(&dctx, MPI_COMM_WORLD, o->device, 0) ||
      sps_context_create_mpi(&fctx, MPI_COMM_WORLD, o->device, 0))
    die("context: %s", sps_context_create_error());
  /* the split path of several ranks (reductions through the host and MPI) on one */
  sps_comm_set_split(fctx, 1);
  /* the same matrix on all: a one-rank distributed matrix's diagonal block is the whole */
  sps_matrix *A = poisson_rows(dctx, n, n, n), *F = poisson_rows(fctx, n, n, n), *S = NULL;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t rows;
  sps_matrix_get_size(A, &rows, NULL, NULL);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  if (sps_matrix_create_csr(sctx, &S, rows, rows, rp, ci, va)) die("serial matrix: %s", sps_context_last_error(sctx));
  cg_run rs, rd, rf;
  cg_open(&rs, sctx, S, o);
  cg_open(&rd, dctx, A, o);
  cg_open(&rf, fctx, F, o);
  for (int k = 0; k < o->repeat && k < 64; k++) {
    cg_once(&rs, 0, o);
    cg_once(&rd, 0, o);
    cg_once(&rf, 0, o);
  }
  const timing ts = cg_close(&rs), td = cg_close(&rd), tf = cg_close(&rf);
  const double it = ts.iterations > 0 ? ts.iterations : 1;
  printf("date\thost\tdevice\tbox\trows\tmethod\titerations\tserial_s_per_it\tdist1_s_per_it\t"
         "dist1_split_s_per_it\tdist1_over_serial\tsplit_over_serial\tsolver\n");
  printf("%s\t%s\t%s\t%lldx%lldx%lld\t%lld\t%s%s\t%d\t%.6e\t%.6e\t%.6e\t%.4f\t%.4f\t%s\n", date, host,
         device, (long long)n, (long long)n, (long long)n, (long long)rows,
         o->pipelined ? "pipelined-" : "", sps_precond_type_name(o->precond), ts.iterations,
         ts.solve / it, td.solve / it, tf.solve / it, td.solve / ts.solve, tf.solve / ts.solve,
         o->solver == SPS_SOLVER_GMRES ? "gmres30" : "cg");
  sps_matrix_destroy(&A);
  sps_matrix_destroy(&F);
  sps_matrix_destroy(&S);
  sps_context_destroy(&fctx);
  sps_context_destroy(&dctx);
  sps_context_destroy(&sctx);
}

/* --read FILE: rank 0 reads and scatters (contiguous, METIS), every rank reads its rows. */
static void read_modes(const opts *o, const char *file, const char *date, const char *host)
{
  sps_context *dctx = NULL, *sctx = NULL;
  if (sps_context_create_mpi(&dctx, MPI_COMM_WORLD, o->device, -1)) die("context: %s", sps_context_create_error());
  if (rank_ == 0 && sps_context_create(&sctx, SPS_DEVICE_CPU, 0)) die("serial context%s", "");
  if (rank_ == 0)
    printf("date\thost\tranks\tfile\tmode\tread_s\tdistribute_s\ttotal_s\thalo_total\toverlap_min\n");
  for (int mode = 0; mode < 3; mode++) {
    double t_read[16], t_dist[16];
    int reps = o->repeat < 16 ? o->repeat : 16;
    sps_dist_info f;
    for (int k = 0; k < reps; k++) {
      sps_matrix *A0 = NULL, *A = NULL;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime(), t1;
      sps_status st = SPS_SUCCESS;
      if (mode < 2) {
        if (rank_ == 0 && sps_matrix_read_mm(sctx, &A0, file, 0)) die("cannot read %s", file);
        t1 = MPI_Wtime();
        st = sps_matrix_scatter(dctx, &A, 0, A0, mode ? SPS_PARTITION_METIS : SPS_PARTITION_CONTIGUOUS);
      } else {
        st = sps_matrix_read_mm_dist(dctx, &A, file, 0);
        t1 = MPI_Wtime();
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t2 = MPI_Wtime();
      if (st == SPS_ERR_UNSUPPORTED && mode == 1) {
        reps = 0;
        break;
      }
      if (st) die("distribute: %s", sps_context_last_error(dctx));
      /* rank 0's read is the read for the scatter modes; the whole for every-rank reading */
      double tr = t1 - t0;
      MPI_Bcast(&tr, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      t_read[k] = mode < 2 ? tr : t2 - t0;
      t_dist[k] = mode < 2 ? t2 - t0 - tr : 0.0;
      sps_matrix_get_dist_info(A, &f);
      sps_matrix_destroy(&A);
      sps_matrix_destroy(&A0);
    }
    if (reps == 0) continue;
    qsort(t_read, (size_t)reps, sizeof t_read[0], cmp_double);
    qsort(t_dist, (size_t)reps, sizeof t_dist[0], cmp_double);
    if (rank_ == 0) {
      static const char *const names[3] = {"root-scatter-contiguous", "root-scatter-metis", "each-rank-reads"};
      printf("%s\t%s\t%d\t%s\t%s\t%.4f\t%.4f\t%.4f\t%lld\t%.4f\n", date, host, size_, file,
             names[mode], t_read[reps / 2], t_dist[reps / 2], t_read[reps / 2] + t_dist[reps / 2],
             (long long)f.halo_total, f.overlap_min);
      fflush(stdout);
    }
  }
  sps_context_destroy(&dctx);
  sps_context_destroy(&sctx);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  opts o = {0, 0, 0, 3, 200, 0, NULL, NULL, NULL, NULL, SPS_DEVICE_CPU, SPS_PRECOND_JACOBI,
            SPS_SOLVER_CG, 0.0, 0.0, SPS_TRANSPORT_AUTO, SPS_TRANSPORT_AUTO};
  opts_ = &o;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--weak") && v) o.weak = atoi(argv[++i]);
    else if (!strcmp(a, "--strong") && v) o.strong = atoi(argv[++i]);
    else if (!strcmp(a, "--compare-serial") && v) o.compare = atoi(argv[++i]);
    else if (!strcmp(a, "--read") && v) o.read_file = argv[++i];
    else if (!strcmp(a, "--matrix") && v) o.matrix_file = argv[++i];
    else if (!strcmp(a, "--convection") && v) o.convection = atof(argv[++i]);
    else if (!strcmp(a, "--rtol") && v) o.rtol = atof(argv[++i]);
    else if (!strcmp(a, "--solver") && v) {
      ++i;
      o.solver = !strcmp(v, "cg") ? SPS_SOLVER_CG : !strcmp(v, "gmres") ? SPS_SOLVER_GMRES : (die("--solver cg|gmres, not %s", v), SPS_SOLVER_CG);
    } else if ((!strcmp(a, "--halo") || !strcmp(a, "--reduce")) && v) {
      ++i;
      const sps_transport t = !strcmp(v, "auto") ? SPS_TRANSPORT_AUTO : !strcmp(v, "mpi") ? SPS_TRANSPORT_MPI : !strcmp(v, "nccl") ? SPS_TRANSPORT_NCCL : (die("--halo and --reduce take auto|mpi|nccl, not %s", v), SPS_TRANSPORT_AUTO);
      if (a[2] == 'h') o.halo = t;
      else o.reduce = t;
    }
    else if (!strcmp(a, "--iterations") && v) o.iterations = atoi(argv[++i]);
    else if (!strcmp(a, "--repeat") && v) o.repeat = atoi(argv[++i]);
    else if (!strcmp(a, "--timeline") && v) o.timeline = argv[++i];
    else if (!strcmp(a, "--tsv") && v) o.tsv = argv[++i];
    else if (!strcmp(a, "--pipelined")) o.pipelined = 1;
    else if (!strcmp(a, "--device") && v) {
      ++i;
      o.device = !strcmp(v, "cuda") ? SPS_DEVICE_CUDA : !strcmp(v, "cpu") ? SPS_DEVICE_CPU : (die("--device cpu|cuda, not %s", v), SPS_DEVICE_CPU);
    } else if (!strcmp(a, "--precond") && v) {
      ++i;
      if (sps_precond_type_from_name(v, &o.precond)) die("unknown preconditioner %s", v);
    } else {
      die("unknown option or missing value: %s (see the head of bench/mpi_bench.c)", a);
    }
  }
  if (o.iterations < 1 || o.repeat < 1) die("--iterations and --repeat must be >= 1%s", "");
  char date[64], host[256] = "unknown", device[256];
  bench_date(date, sizeof date);
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  if (o.read_file) {
    read_modes(&o, o.read_file, date, host);
  } else if (o.compare) {
    sps_context *c = NULL;
    if (sps_context_create(&c, o.device, 0)) die("context: %s", sps_context_create_error());
    sps_context_get_device_name(c, device, sizeof device);
    sps_context_destroy(&c);
    compare_serial(&o, o.compare, device, date, host);
  } else if (o.weak || o.strong || o.matrix_file) {
    const int64_t n = o.weak ? o.weak : o.strong;
    const int64_t nx = n, ny = n, nz = o.weak ? n * size_ : n;
    if (!o.matrix_file && nz < size_) die("fewer planes than ranks%s", "");
    sps_context *ctx = NULL;
    if (sps_context_create_mpi(&ctx, MPI_COMM_WORLD, o.device, -1)) die("context: %s", sps_context_create_error());
    if (sps_context_set_transport(ctx, o.halo, o.reduce)) die("transport: %s", sps_context_last_error(ctx));
    sps_context_get_device_name(ctx, device, sizeof device);
    sps_matrix *A = NULL;
    char box[256];
    if (o.matrix_file) {
      if (sps_matrix_read_mm_dist(ctx, &A, o.matrix_file, 0)) die("matrix: %s", sps_context_last_error(ctx));
      const char *base = strrchr(o.matrix_file, '/');
      snprintf(box, sizeof box, "%s", base ? base + 1 : o.matrix_file);
    } else {
      A = poisson_rows(ctx, nx, ny, nz);
      snprintf(box, sizeof box, "%lldx%lldx%lld%s", (long long)nx, (long long)ny, (long long)nz,
               o.convection != 0.0 ? "-convection" : "");
    }
    sps_dist_info f;
    sps_matrix_get_dist_info(A, &f);
    const timing t = time_solve(ctx, A, &o, o.timeline != NULL);
    if (o.timeline) write_timeline(ctx, o.timeline);
    if (rank_ == 0) puts(header);
    emit(&o, ctx, o.weak ? "weak" : "strong", box, &f, &t, device, date, host);
    sps_matrix_destroy(&A);
    sps_context_destroy(&ctx);
  } else {
    die("name one of --weak N, --strong N, --matrix FILE, --compare-serial N, --read FILE%s", "");
  }
  MPI_Finalize();
  return 0;
}
