/* partition.c: the partitions of a distributed matrix: every original row held by exactly one rank, vectors scattered and gathered back to the bit, the partition facts (rows, entries, balance, halo) against counts made here, rows free of the halo numbered first, and METIS cutting far fewer couplings than contiguous blocks on a grid whose rows were shuffled. */
#include "mpitest.h"

/* The 5-point Laplacian of a g x g grid with its rows and columns shuffled by a seeded
 * permutation (so contiguous blocks of rows are scattered over the grid). */
static sps_matrix *shuffled_grid(sps_context *ctx, int g)
{
  const int64_t n = (int64_t)g * g;
  int64_t *perm = malloc((size_t)n * sizeof *perm), *inv = malloc((size_t)n * sizeof *inv);
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(5 * n) * sizeof *ci);
  double *va = malloc((size_t)(5 * n) * sizeof *va);
  if (!perm || !inv || !rp || !ci || !va) sps_bail("out of host memory");
  sps_rng rng = {4242};
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  for (int64_t i = n - 1; i > 0; i--) {
    const int64_t j = (int64_t)(sps_rng_next(&rng) % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int64_t i = 0; i < n; i++) inv[perm[i]] = i;
  int64_t k = 0;
  rp[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    /* row r of the shuffled matrix is grid point perm[r] */
    const int64_t p = perm[r], x = p % g, y = p / g;
    const int64_t nb[5] = {y > 0 ? p - g : -1, x > 0 ? p - 1 : -1, p, x < g - 1 ? p + 1 : -1,
                           y < g - 1 ? p + g : -1};
    for (int l = 0; l < 5; l++)
      if (nb[l] >= 0) {
        ci[k] = (int32_t)inv[nb[l]];
        va[k++] = nb[l] == p ? 4.0 : -1.0;
      }
    rp[r + 1] = k;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, va)) sps_bail("grid: %s", sps_context_last_error(ctx));
  free(perm);
  free(inv);
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* Checks of one distributed matrix A of the serial A0 (on every rank of comm). */
static int64_t check_partition(MPI_Comm comm, sps_context *dctx, const sps_matrix *A0,
                               const sps_matrix *A, const char *what)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int64_t n, nnz, nl;
  sps_matrix_get_size(A0, &n, NULL, &nnz);
  sps_matrix_get_size(A, &nl, NULL, NULL);
  const int64_t *rp;
  const int32_t *ci;
  sps_matrix_get_csr(A0, &rp, &ci, NULL);
  sps_dist_info f;
  if (sps_matrix_get_dist_info(A, &f)) sps_bail("%s: dist info", what);
  int64_t *rows = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *rows);
  int32_t *owner = malloc((size_t)n * sizeof *owner);
  int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
  int64_t *all = malloc((size_t)n * sizeof *all);
  if (!rows || !owner || !counts || !displs || !all) sps_bail("out of host memory");
  if (sps_matrix_get_rows(A, rows, nl)) sps_bail("%s: rows", what);
  /* every rank learns the owner of every original row */
  const int nli = (int)nl;
  MPI_Allgather(&nli, 1, MPI_INT, counts, 1, MPI_INT, comm);
  for (int r = 0, at = 0; r < size; r++) {
    displs[r] = at;
    at += counts[r];
  }
  MPI_Allgatherv(rows, nli, MPI_INT64_T, all, counts, displs, MPI_INT64_T, comm);
  int perm_ok = 1;
  for (int64_t i = 0; i < n; i++) owner[i] = -1;
  for (int r = 0; r < size; r++)
    for (int k = 0; k < counts[r]; k++) {
      const int64_t i = all[displs[r] + k];
      if (i < 0 || i >= n || owner[i] != -1)
        perm_ok = 0;
      else
        owner[i] = r;
    }
  for (int64_t i = 0; i < n; i++) perm_ok = perm_ok && owner[i] >= 0;
  mpi_ok(comm, perm_ok, "%s: every original row is held by exactly one rank", what);
  /* the facts against counts made here: the rank's entries, its halo (distinct columns of
   * other ranks), the rows before its first boundary row */
  int64_t my_nnz = 0, first_boundary = nl, halo = 0;
  char *seen = calloc((size_t)n, 1);
  if (!seen) sps_bail("out of host memory");
  int reorder_ok = 1;
  for (int64_t i = 0; i < nl; i++) {
    const int64_t r = rows[i];
    int boundary = 0;
    my_nnz += rp[r + 1] - rp[r];
    for (int64_t e = rp[r]; e < rp[r + 1]; e++)
      if (owner[ci[e]] != rank) {
        boundary = 1;
        if (!seen[ci[e]]) {
          seen[ci[e]] = 1;
          halo++;
        }
      }
    if (boundary && first_boundary == nl) first_boundary = i;
    /* reordered: no row free of the halo after a boundary row */
    if (f.reordered && !boundary && first_boundary < i) reorder_ok = 0;
  }
  free(seen);
  int64_t sums[3] = {nl, my_nnz, halo};
  MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_INT64_T, MPI_SUM, comm);
  mpi_ok(comm,
         f.ranks == size && f.rows == n && f.nnz == nnz && f.rows_local == nl &&
             f.nnz_local == my_nnz && f.halo_local == halo && f.halo_total == sums[2] &&
             f.overlap_rows == first_boundary && reorder_ok && sums[0] == n && sums[1] == nnz,
         "%s: rows %lld, entries %lld, halo %lld (total %lld), rows before the first boundary "
         "row %lld, as counted here%s",
         what, (long long)nl, (long long)my_nnz, (long long)halo, (long long)sums[2],
         (long long)first_boundary, reorder_ok ? "" : " -- a row free of the halo follows a boundary row");
  /* gather(scatter(v)) = v, and scatter puts v[rows[i]] at local i */
  double *v = mpitest_random(n, 99), *back = malloc((size_t)n * sizeof *back);
  double *loc = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *loc);
  if (!back || !loc) sps_bail("out of host memory");
  sps_vector *dv = NULL;
  if (sps_vector_create(dctx, &dv, nl)) sps_bail("vector");
  int round_ok = sps_vector_scatter(A, 0, v, dv) == SPS_SUCCESS &&
                 sps_vector_download(dv, loc, nl) == SPS_SUCCESS;
  for (int64_t i = 0; i < nl && round_ok; i++) round_ok = memcmp(&loc[i], &v[rows[i]], sizeof loc[i]) == 0;
  for (int64_t i = 0; i < nl; i++) loc[i] *= 2.0;
  round_ok = round_ok && sps_vector_upload(dv, loc, nl) == SPS_SUCCESS &&
             sps_vector_gather(A, 0, dv, back) == SPS_SUCCESS;
  if (rank == 0)
    for (int64_t i = 0; i < n && round_ok; i++) round_ok = back[i] == 2.0 * v[i];
  mpi_ok(comm, round_ok, "%s: scatter puts v[rows[i]] at local i, gather brings 2 v back to the bit", what);
  sps_vector_destroy(&dv);
  free(v);
  free(back);
  free(loc);
  free(rows);
  free(owner);
  free(counts);
  free(displs);
  free(all);
  return f.halo_total;
}

int main(int argc, char **argv)
{
  mpitest_init(&argc, &argv);
  const sps_device_kind dev = mpitest_device();
  sps_context *sctx;
  if (sps_context_create(&sctx, SPS_DEVICE_CPU, 0)) sps_bail("serial context");
  sps_matrix *grid = shuffled_grid(sctx, 40), *file = NULL;
  char path[1024];
  if (sps_matrix_read_mm(sctx, &file, mpitest_data("bcsstk14.mtx.gz", path, sizeof path), 0))
    sps_bail("bcsstk14");
  for (int k = 1; k <= mpitest_size; k++) {
    MPI_Comm comm = mpitest_first(k);
    if (comm == MPI_COMM_NULL) continue;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sps_context *dctx = mpitest_context(comm, dev);
    char what[200];
    sps_matrix *A = NULL;
    int64_t halo[2] = {0, 0};
    int have_metis = 1;
    for (int part = 0; part < 2; part++) {
      snprintf(what, sizeof what, "shuffled 40 x 40 grid, %d rank%s, %s", size, size == 1 ? "" : "s",
               part ? "metis" : "contiguous");
      const sps_status st = sps_matrix_scatter(dctx, &A, 0, rank == 0 ? grid : NULL,
                                               part ? SPS_PARTITION_METIS : SPS_PARTITION_CONTIGUOUS);
      if (st == SPS_ERR_UNSUPPORTED && part) {
        have_metis = 0;
        if (rank == 0) sps_skip("%s: built without METIS", what);
        continue;
      }
      if (st) sps_bail("%s: %s", what, sps_context_last_error(dctx));
      halo[part] = check_partition(comm, dctx, grid, A, what);
      sps_dist_info f;
      sps_matrix_get_dist_info(A, &f);
      if (part == 0)
        mpi_ok(comm, f.rows_max - f.rows_min <= 1 && f.partition == SPS_PARTITION_CONTIGUOUS,
               "%s: contiguous blocks differ by one row at most (%lld .. %lld)", what,
               (long long)f.rows_min, (long long)f.rows_max);
      else
        mpi_ok(comm, f.imbalance_rows <= 1.05 && f.partition == SPS_PARTITION_METIS,
               "%s: METIS balances the rows within 5%% (max over mean %.3f)", what, f.imbalance_rows);
      sps_matrix_destroy(&A);
    }
    if (size > 1 && have_metis)
      mpi_ok(comm, 2 * halo[1] < halo[0],
             "shuffled grid, %d ranks: METIS's halo (%lld entries) is less than half that of "
             "contiguous blocks (%lld)",
             size, (long long)halo[1], (long long)halo[0]);
    /* a file read by every rank: contiguous blocks of the original rows, reordered within */
    snprintf(what, sizeof what, "bcsstk14 read by every rank, %d rank%s", size, size == 1 ? "" : "s");
    if (sps_matrix_read_mm_dist(dctx, &A, path, 0)) sps_bail("%s: %s", what, sps_context_last_error(dctx));
    check_partition(comm, dctx, file, A, what);
    {
      int64_t n, nl;
      sps_matrix_get_size(file, &n, NULL, NULL);
      sps_matrix_get_size(A, &nl, NULL, NULL);
      int64_t *rows = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *rows);
      if (!rows) sps_bail("out of host memory");
      sps_matrix_get_rows(A, rows, nl);
      const int64_t lo = (int64_t)rank * n / size, hi = (int64_t)(rank + 1) * n / size;
      int ok = nl == hi - lo;
      for (int64_t i = 0; i < nl && ok; i++) ok = rows[i] >= lo && rows[i] < hi;
      mpi_ok(comm, ok, "%s: rank r holds original rows [r n / p, (r+1) n / p)", what);
      free(rows);
    }
    sps_matrix_destroy(&A);
    if (sps_context_destroy(&dctx)) sps_bail("context destroy");
    MPI_Comm_free(&comm);
  }
  mpitest_barrier();
  sps_matrix_destroy(&grid);
  sps_matrix_destroy(&file);
  sps_context_destroy(&sctx);
  return mpitest_done();
}
