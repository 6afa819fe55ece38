/* dist_matrix.c: distributed matrices: the assembly of a rank's rows into its diagonal and off-diagonal blocks with the halo plan, the partition facts, the global symmetry and diagonal tests, and the local-rows constructor. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dist_matrix.h"

/* An entry of a row being sorted by column (the original index). */
typedef struct col_val {
  int64_t col;
  double v;
} col_val;

static int cmp_col_val(const void *a, const void *b)
{
  const int64_t x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
  return x < y ? -1 : x > y;
}

/* An entry of a block row being sorted by its local column or halo slot. */
typedef struct slot_val {
  int32_t col;
  double v;
} slot_val;

static int cmp_slot_val(const void *a, const void *b)
{
  const int32_t x = ((const slot_val *)a)->col, y = ((const slot_val *)b)->col;
  return x < y ? -1 : x > y;
}

/* A halo column: its owner and original index, sorted by owner then index. */
typedef struct halo_key {
  int32_t owner;
  int64_t col;
} halo_key;

static int cmp_halo_key(const void *a, const void *b)
{
  const halo_key *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  return x->col < y->col ? -1 : x->col > y->col;
}

/* An original row index and its local position, sorted by the index. */
typedef struct old_pos {
  int64_t old;
  int32_t pos;
} old_pos;

static int cmp_old_pos(const void *a, const void *b)
{
  const int64_t x = ((const old_pos *)a)->old, y = ((const old_pos *)b)->old;
  return x < y ? -1 : x > y;
}

/* The slot of (owner, col) among the n sorted keys (it is there). */
static int64_t find_key(const halo_key *keys, int64_t n, int32_t owner, int64_t col)
{
  const halo_key k = {owner, col};
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (cmp_halo_key(&keys[mid], &k) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void sps_dist_free(sps_context *ctx, struct sps_dist *d)
{
  if (!d) return;
  sps_halo_plan_free(ctx, &d->halo);
  if (d->d_offd_rowptr && d->d_offd_rowptr != d->offd_rowptr) ctx->be->free(ctx, d->d_offd_rowptr);
  if (d->d_offd_colind && d->d_offd_colind != d->offd_colind) ctx->be->free(ctx, d->d_offd_colind);
  if (d->d_offd_values && d->d_offd_values != d->offd_values) ctx->be->free(ctx, d->d_offd_values);
  sps_host_free(d->offd_rowptr);
  sps_host_free(d->offd_colind);
  sps_host_free(d->offd_values);
  sps_host_free(d->old_ids);
  sps_host_free(d);
}

/*
 * The rows in canonical form: each row's columns ascending, repeats summed, every index in
 * [0, nglobal). *rp, *cols, *vals are new arrays (rp has n + 1 entries).
 */
static sps_status canonical_rows(sps_context *ctx, int64_t nglobal, const sps_dist_rows *in,
                                 int64_t **rp_out, int64_t **cols_out, double **vals_out)
{
  const int64_t n = in->n, nnz = in->rowptr[n];
  int64_t *rp = NULL, *cols = NULL;
  double *vals = NULL;
  col_val *tmp = NULL;
  sps_status st = SPS_SUCCESS;
  int64_t maxlen = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t len = in->rowptr[i + 1] - in->rowptr[i];
    if (len > maxlen) maxlen = len;
  }
  SPS_TRY(sps_host_alloc(ctx, (void **)&rp, (size_t)n + 1, sizeof *rp, "distributed row offsets"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&cols, (size_t)(nnz > 0 ? nnz : 1), sizeof *cols,
                         "distributed column indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&vals, (size_t)(nnz > 0 ? nnz : 1), sizeof *vals,
                         "distributed values"));
  if (!in->sorted)
    SPS_TRY(sps_host_alloc(ctx, (void **)&tmp, (size_t)(maxlen > 0 ? maxlen : 1), sizeof *tmp,
                           "row sort"));
  int64_t out = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t a = in->rowptr[i], b = in->rowptr[i + 1];
    for (int64_t k = a; k < b; k++)
      if (in->colind[k] < 0 || in->colind[k] >= nglobal)
        SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT,
                     "column index %lld of row %lld is outside [0, %lld)", (long long)in->colind[k],
                     (long long)(in->old_ids ? in->old_ids[i] : in->first + i), (long long)nglobal);
    if (in->sorted) {
      memcpy(cols + out, in->colind + a, (size_t)(b - a) * sizeof *cols);
      memcpy(vals + out, in->values + a, (size_t)(b - a) * sizeof *vals);
      out += b - a;
    } else {
      for (int64_t k = a; k < b; k++) {
        tmp[k - a].col = in->colind[k];
        tmp[k - a].v = in->values[k];
      }
      qsort(tmp, (size_t)(b - a), sizeof *tmp, cmp_col_val);
      for (int64_t k = 0; k < b - a; k++) {
        if (out > rp[i] && cols[out - 1] == tmp[k].col) {
          vals[out - 1] += tmp[k].v;
        } else {
          cols[out] = tmp[k].col;
          vals[out] = tmp[k].v;
          out++;
        }
      }
    }
    rp[i + 1] = out;
  }
  *rp_out = rp;
  *cols_out = cols;
  *vals_out = vals;
  rp = NULL;
  cols = NULL;
  vals = NULL;
cleanup:
  sps_host_free(rp);
  sps_host_free(cols);
  sps_host_free(vals);
  sps_host_free(tmp);
  return st;
}

/* Sort each row of a block by its column (local position or halo slot). */
static sps_status sort_block_rows(sps_context *ctx, int64_t n, const int64_t *rp, int32_t *ci,
                                  double *v)
{
  int64_t maxlen = 0;
  for (int64_t i = 0; i < n; i++)
    if (rp[i + 1] - rp[i] > maxlen) maxlen = rp[i + 1] - rp[i];
  slot_val *tmp = NULL;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&tmp, (size_t)(maxlen > 0 ? maxlen : 1), sizeof *tmp,
                           "block row sort"));
  for (int64_t i = 0; i < n; i++) {
    const int64_t a = rp[i], len = rp[i + 1] - a;
    int sorted = 1;
    for (int64_t k = a + 1; k < a + len && sorted; k++) sorted = ci[k - 1] < ci[k];
    if (sorted) continue;
    for (int64_t k = 0; k < len; k++) {
      tmp[k].col = ci[a + k];
      tmp[k].v = v[a + k];
    }
    qsort(tmp, (size_t)len, sizeof *tmp, cmp_slot_val);
    for (int64_t k = 0; k < len; k++) {
      ci[a + k] = tmp[k].col;
      v[a + k] = tmp[k].v;
    }
  }
  sps_host_free(tmp);
  return SPS_SUCCESS;
}

/* The partition facts over the ranks (collective). */
static sps_status gather_info(sps_context *ctx, sps_matrix *A, sps_partition partition, int reordered)
{
  struct sps_comm *c = ctx->comm;
  struct sps_dist *d = A->dist;
  sps_dist_info *f = &d->info;
  const int64_t n = A->nrows, nnz_local = A->nnz + d->offd_rowptr[n];
  memset(f, 0, sizeof *f);
  f->ranks = c->size;
  f->partition = partition;
  f->reordered = reordered;
  f->first_row = d->first_row;
  f->rows_local = n;
  f->nnz_local = nnz_local;
  f->halo_local = d->halo.n_halo;
  f->neighbors_local = d->halo.nrecv;
  f->overlap_rows = d->n_pre;
  int64_t mn[2] = {n, nnz_local};
  int64_t mx[4] = {n, nnz_local, d->halo.n_halo, d->halo.nrecv};
  int64_t sum[4] = {n, nnz_local, d->halo.n_halo, d->offd_rowptr[n]};
  double overlap = n > 0 ? (double)d->n_pre / (double)n : 1.0;
  SPS_CHECK(sps_comm_allreduce_i64(ctx, mn, 2, SPS_COMM_MIN));
  SPS_CHECK(sps_comm_allreduce_i64(ctx, mx, 4, SPS_COMM_MAX));
  SPS_CHECK(sps_comm_allreduce_i64(ctx, sum, 4, SPS_COMM_SUM));
  const int e = MPI_Allreduce(MPI_IN_PLACE, &overlap, 1, MPI_DOUBLE, MPI_MIN, c->comm);
  if (e != MPI_SUCCESS) return sps_comm_fail(ctx, e, "MPI_Allreduce");
  f->rows = sum[0];
  f->nnz = sum[1];
  f->rows_min = mn[0];
  f->nnz_min = mn[1];
  f->rows_max = mx[0];
  f->nnz_max = mx[1];
  f->halo_max = mx[2];
  f->neighbors_max = (int)mx[3];
  f->halo_total = sum[2];
  f->cut_nnz = sum[3];
  f->imbalance_rows = sum[0] > 0 ? (double)mx[0] * c->size / (double)sum[0] : 1.0;
  f->imbalance_nnz = sum[1] > 0 ? (double)mx[1] * c->size / (double)sum[1] : 1.0;
  f->overlap_min = overlap;
  d->nnz_global = sum[1];
  return SPS_SUCCESS;
}

/* Copy a host array into new memory of the context (the host array itself on the CPU). */
static sps_status to_context(sps_context *ctx, void *host, void **dev, size_t bytes,
                             const char *what)
{
  if (ctx->kind == SPS_DEVICE_CPU) {
    *dev = host;
    return SPS_SUCCESS;
  }
  SPS_CHECK(ctx->be->malloc(ctx, dev, bytes > 0 ? bytes : 1, what));
  return ctx->be->upload(ctx, *dev, host, bytes);
}

sps_status sps_dist_assemble(sps_context *ctx, sps_matrix **out, int64_t nglobal,
                             const sps_dist_rows *rows, const sps_dist_owner *owner, int reorder,
                             sps_partition partition, sps_symmetry symmetry)
{
  struct sps_comm *c = ctx->comm;
  const int me = c->rank;
  const int64_t n = rows->n;
  int64_t *rp = NULL, *cols = NULL, *perm = NULL, *old_ids = NULL, *lk_sorted = NULL;
  double *vals = NULL;
  int32_t *own = NULL, *lk_pos = NULL, *key_owner = NULL;
  int64_t *key_col = NULL;
  old_pos *pairs = NULL;
  halo_key *keys = NULL;
  int64_t *ad_rp = NULL, *ao_rp = NULL;
  int32_t *ad_ci = NULL, *ao_ci = NULL;
  double *ad_v = NULL, *ao_v = NULL;
  struct sps_dist *d = NULL;
  sps_matrix *A = NULL;
  sps_dist_lookup lk = {n, NULL, NULL, rows->first};
  int64_t n_halo = 0;
  sps_status st = SPS_SUCCESS;
  *out = NULL;

  if (n > INT32_MAX)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "a rank holds %lld rows; at most %d", (long long)n, INT32_MAX);
  SPS_TRY(canonical_rows(ctx, nglobal, rows, &rp, &cols, &vals));
  const int64_t nnz = rp[n];
  /* the owner of every entry's column, and the rows that couple to other ranks */
  SPS_TRY(sps_host_alloc(ctx, (void **)&own, (size_t)(nnz > 0 ? nnz : 1), sizeof *own,
                         "column owners"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&perm, (size_t)(n > 0 ? n : 1), sizeof *perm,
                         "row order"));
  int64_t m_off = 0, nb = 0;
  for (int64_t k = 0; k < nnz; k++) {
    own[k] = sps_dist_owner_of(owner, cols[k]);
    m_off += own[k] != me;
  }
  /* the new order: rows without off-rank columns first when reordering, else as given */
  int64_t at = 0;
  for (int pass = 0; pass < (reorder ? 2 : 1); pass++)
    for (int64_t i = 0; i < n; i++) {
      int boundary = 0;
      for (int64_t k = rp[i]; k < rp[i + 1] && !boundary; k++) boundary = own[k] != me;
      if (pass == 0) nb += boundary;
      if (!reorder || boundary == pass) perm[at++] = i;
    }
  SPS_TRY(sps_host_alloc(ctx, (void **)&old_ids, (size_t)(n > 0 ? n : 1), sizeof *old_ids,
                         "original row indices"));
  for (int64_t i = 0; i < n; i++)
    old_ids[i] = rows->old_ids ? rows->old_ids[perm[i]] : rows->first + perm[i];
  /* own rows by original index */
  if (reorder || rows->old_ids) {
    SPS_TRY(sps_host_alloc(ctx, (void **)&pairs, (size_t)(n > 0 ? n : 1), sizeof *pairs,
                           "row lookup"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&lk_sorted, (size_t)(n > 0 ? n : 1), sizeof *lk_sorted,
                           "row lookup"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&lk_pos, (size_t)(n > 0 ? n : 1), sizeof *lk_pos,
                           "row lookup"));
    for (int64_t i = 0; i < n; i++) {
      pairs[i].old = old_ids[i];
      pairs[i].pos = (int32_t)i;
    }
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_old_pos);
    for (int64_t i = 0; i < n; i++) {
      lk_sorted[i] = pairs[i].old;
      lk_pos[i] = pairs[i].pos;
      if (i > 0 && lk_sorted[i] == lk_sorted[i - 1])
        SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT, "row %lld is given twice on this rank",
                     (long long)lk_sorted[i]);
    }
    lk.sorted = lk_sorted;
    lk.pos = lk_pos;
  }
  /* the halo: the distinct off-rank columns, by owner and index */
  SPS_TRY(sps_host_alloc(ctx, (void **)&keys, (size_t)(m_off > 0 ? m_off : 1), sizeof *keys,
                         "halo columns"));
  for (int64_t k = 0, j = 0; k < nnz; k++)
    if (own[k] != me) {
      keys[j].owner = own[k];
      keys[j].col = cols[k];
      j++;
    }
  qsort(keys, (size_t)m_off, sizeof *keys, cmp_halo_key);
  for (int64_t k = 0; k < m_off; k++)
    if (n_halo == 0 || cmp_halo_key(&keys[n_halo - 1], &keys[k]) != 0) keys[n_halo++] = keys[k];
  SPS_TRY(sps_host_alloc(ctx, (void **)&key_owner, (size_t)(n_halo > 0 ? n_halo : 1),
                         sizeof *key_owner, "halo owners"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&key_col, (size_t)(n_halo > 0 ? n_halo : 1),
                         sizeof *key_col, "halo columns"));
  for (int64_t s = 0; s < n_halo; s++) {
    key_owner[s] = keys[s].owner;
    key_col[s] = keys[s].col;
  }
  /* the two blocks, rows in the new order */
  SPS_TRY(sps_host_alloc(ctx, (void **)&ad_rp, (size_t)n + 1, sizeof *ad_rp, "diagonal block"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ao_rp, (size_t)n + 1, sizeof *ao_rp,
                         "off-diagonal block"));
  ad_rp[0] = ao_rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = perm[i];
    int64_t off = 0;
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) off += own[k] != me;
    ad_rp[i + 1] = ad_rp[i] + (rp[r + 1] - rp[r] - off);
    ao_rp[i + 1] = ao_rp[i] + off;
  }
  SPS_TRY(sps_host_alloc(ctx, (void **)&ad_ci, (size_t)(ad_rp[n] > 0 ? ad_rp[n] : 1),
                         sizeof *ad_ci, "diagonal block"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ad_v, (size_t)(ad_rp[n] > 0 ? ad_rp[n] : 1),
                         sizeof *ad_v, "diagonal block"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ao_ci, (size_t)(ao_rp[n] > 0 ? ao_rp[n] : 1),
                         sizeof *ao_ci, "off-diagonal block"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ao_v, (size_t)(ao_rp[n] > 0 ? ao_rp[n] : 1),
                         sizeof *ao_v, "off-diagonal block"));
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = perm[i];
    int64_t pd = ad_rp[i], po = ao_rp[i];
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      if (own[k] == me) {
        const int64_t pos = sps_dist_lookup_find(&lk, cols[k]);
        if (pos < 0)
          SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT,
                       "column %lld belongs to this rank by the partition, but its row is not "
                       "among the rank's rows",
                       (long long)cols[k]);
        ad_ci[pd] = (int32_t)pos;
        ad_v[pd++] = vals[k];
      } else {
        ao_ci[po] = (int32_t)find_key(keys, n_halo, own[k], cols[k]);
        ao_v[po++] = vals[k];
      }
    }
  }
  SPS_TRY(sort_block_rows(ctx, n, ad_rp, ad_ci, ad_v));
  SPS_TRY(sort_block_rows(ctx, n, ao_rp, ao_ci, ao_v));
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "distributed matrix"));
cleanup:
  /* the local work is done on every rank, or one of them failed */
  st = sps_comm_agree(ctx, st);
  if (st) goto out;
  st = sps_halo_plan_build(ctx, &d->halo, n_halo, key_owner, key_col, &lk);
  if (st) goto out;
  d->nglobal = nglobal;
  {
    int64_t first = 0;
    const int e = MPI_Exscan(&n, &first, 1, MPI_INT64_T, MPI_SUM, c->comm);
    if (e != MPI_SUCCESS) {
      st = sps_comm_fail(ctx, e, "MPI_Exscan");
      goto out;
    }
    d->first_row = me == 0 ? 0 : first;
  }
  d->old_ids = old_ids;
  old_ids = NULL;
  d->offd_rowptr = ao_rp;
  d->offd_colind = ao_ci;
  d->offd_values = ao_v;
  ao_rp = NULL;
  ao_ci = NULL;
  ao_v = NULL;
  d->n_pre = n;
  for (int64_t i = 0; i < n; i++)
    if (d->offd_rowptr[i + 1] > d->offd_rowptr[i]) {
      d->n_pre = i;
      break;
    }
  /* the diagonal block is the matrix's own CSR: sps_matrix_adopt_csr owns its arrays from
   * here (and frees them on failure), then the matrix owns d */
  st = sps_matrix_adopt_csr(ctx, &A, n, n, ad_rp, ad_ci, ad_v, symmetry);
  ad_rp = NULL;
  ad_ci = NULL;
  ad_v = NULL;
  if (!st) {
    A->dist = d;
    d = NULL;
    struct sps_dist *D = A->dist;
    const int64_t onnz = D->offd_rowptr[n];
    st = to_context(ctx, D->offd_rowptr, (void **)&D->d_offd_rowptr,
                    ((size_t)n + 1) * sizeof *D->offd_rowptr, "off-diagonal row offsets");
    if (!st)
      st = to_context(ctx, D->offd_colind, (void **)&D->d_offd_colind,
                      (size_t)onnz * sizeof *D->offd_colind, "off-diagonal columns");
    if (!st)
      st = to_context(ctx, D->offd_values, (void **)&D->d_offd_values,
                      (size_t)onnz * sizeof *D->offd_values, "off-diagonal values");
  }
  st = sps_comm_agree(ctx, st);
  if (!st) st = gather_info(ctx, A, partition, reorder);
  (void)nb;
out:
  if (st) {
    sps_matrix_destroy(&A);
    if (d) sps_dist_free(ctx, d);
  } else {
    *out = A;
  }
  sps_host_free(rp);
  sps_host_free(cols);
  sps_host_free(vals);
  sps_host_free(own);
  sps_host_free(perm);
  sps_host_free(old_ids);
  sps_host_free(pairs);
  sps_host_free(lk_sorted);
  sps_host_free(lk_pos);
  sps_host_free(keys);
  sps_host_free(key_owner);
  sps_host_free(key_col);
  sps_host_free(ad_rp);
  sps_host_free(ad_ci);
  sps_host_free(ad_v);
  sps_host_free(ao_rp);
  sps_host_free(ao_ci);
  sps_host_free(ao_v);
  return st;
}

sps_status sps_matrix_create_dist_csr(sps_context *ctx, sps_matrix **out, int64_t nlocal,
                                      const int64_t *rowptr, const int64_t *colind,
                                      const double *values)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "A");
  *out = NULL;
  if (!ctx->comm)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "sps_matrix_create_dist_csr: the context is not distributed (sps_context_create_mpi)");
  struct sps_comm *c = ctx->comm;
  sps_status st = SPS_SUCCESS;
  int64_t *offsets = NULL;
  if (nlocal < 0)
    st = sps_error_set(ctx, SPS_ERR_SIZE, "sps_matrix_create_dist_csr: %lld rows < 0",
                       (long long)nlocal);
  else if (!rowptr)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_create_dist_csr: invalid argument 'rowptr'");
  else if (rowptr[0] != 0)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_create_dist_csr: rowptr[0] = %lld, must be 0",
                       (long long)rowptr[0]);
  for (int64_t i = 0; !st && i < nlocal; i++)
    if (rowptr[i + 1] < rowptr[i])
      st = sps_error_set(ctx, SPS_ERR_ARGUMENT,
                         "sps_matrix_create_dist_csr: rowptr decreases at row %lld", (long long)i);
  if (!st && rowptr[nlocal] > 0 && (!colind || !values))
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_create_dist_csr: invalid argument '%s'",
                       colind ? "values" : "colind");
  if (!st)
    st = sps_host_alloc(ctx, (void **)&offsets, (size_t)c->size + 1, sizeof *offsets,
                        "row offsets of the ranks");
  st = sps_comm_agree(ctx, st);
  if (st) {
    sps_host_free(offsets);
    return st;
  }
  /* rank r holds rows offsets[r] .. offsets[r+1] - 1 */
  offsets[0] = 0;
  const int e = MPI_Allgather(&nlocal, 1, MPI_INT64_T, offsets + 1, 1, MPI_INT64_T, c->comm);
  if (e != MPI_SUCCESS) {
    sps_host_free(offsets);
    return sps_comm_fail(ctx, e, "MPI_Allgather");
  }
  for (int r = 0; r < c->size; r++) offsets[r + 1] += offsets[r];
  const sps_dist_rows rows = {nlocal, NULL, offsets[c->rank], rowptr, colind, values, 0};
  const sps_dist_owner owner = {c->size, offsets, NULL};
  st = sps_dist_assemble(ctx, out, offsets[c->size], &rows, &owner, 0, SPS_PARTITION_CONTIGUOUS,
                         SPS_SYMMETRY_UNKNOWN);
  sps_host_free(offsets);
  return st;
}

sps_status sps_matrix_get_dist_info(const sps_matrix *A, sps_dist_info *info)
{
  if (!A) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(A->ctx, info, "info");
  if (!A->dist)
    SPS_FAIL(A->ctx, SPS_ERR_ARGUMENT, "sps_matrix_get_dist_info: the matrix is not distributed");
  *info = A->dist->info;
  return SPS_SUCCESS;
}

sps_status sps_matrix_get_rows(const sps_matrix *A, int64_t *rows, int64_t n)
{
  if (!A) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(A->ctx, rows || n == 0, "rows");
  if (!A->dist)
    SPS_FAIL(A->ctx, SPS_ERR_ARGUMENT, "sps_matrix_get_rows: the matrix is not distributed");
  if (n != A->nrows)
    SPS_FAIL(A->ctx, SPS_ERR_SIZE, "sps_matrix_get_rows: %lld entries for %lld local rows",
             (long long)n, (long long)A->nrows);
  if (n > 0) memcpy(rows, A->dist->old_ids, (size_t)n * sizeof *rows);
  return SPS_SUCCESS;
}

int sps_dist_diagonal_sign(const sps_matrix *A, int local_sign)
{
  /* pos: every diagonal entry positive; neg: every one negative (a rank without rows agrees
   * with both) */
  int64_t v[2] = {A->nrows == 0 || local_sign > 0, A->nrows == 0 || local_sign < 0};
  if (sps_comm_allreduce_i64(A->ctx, v, 2, SPS_COMM_MIN)) return 0;
  return v[0] ? 1 : v[1] ? -1 : 0;
}

sps_status sps_dist_scale(sps_matrix *A, double alpha)
{
  struct sps_dist *d = A->dist;
  sps_context *ctx = A->ctx;
  const int64_t onnz = d->offd_rowptr[A->nrows];
  for (int64_t k = 0; k < onnz; k++) d->offd_values[k] *= alpha;
  if (d->d_offd_values != d->offd_values)
    SPS_CHECK(ctx->be->scal(ctx, onnz, alpha, d->d_offd_values));
  return SPS_SUCCESS;
}

/*
 * The global symmetry test: the diagonal block by the serial test (its rows and columns share
 * the local numbering), and the couplings between ranks by sending each off-diagonal entry
 * a_ij, transposed, to the owner of j, which finds a_ji in its own off-diagonal block (a
 * missing partner counts as zero). Entries of either side without a partner are sent by that
 * side, so both directions are covered.
 */
sps_status sps_dist_is_symmetric(const sps_matrix *A, int *sym)
{
  sps_context *ctx = A->ctx;
  struct sps_comm *c = ctx->comm;
  const struct sps_dist *d = A->dist;
  const sps_halo_plan *h = &d->halo;
  const int p = c->size;
  const int64_t n = A->nrows, onnz = d->offd_rowptr[n];
  int *cnt_out = NULL, *cnt_in = NULL, *dsp_out = NULL, *dsp_in = NULL;
  int32_t *slot_owner = NULL;
  int64_t *pair_out = NULL, *pair_in = NULL;
  double *val_out = NULL, *val_in = NULL;
  old_pos *pairs = NULL;
  int ok = sps_matrix_block_is_symmetric(A);
  sps_status st = SPS_SUCCESS;
  *sym = 0;
  SPS_TRY(sps_host_calloc(ctx, (void **)&cnt_out, (size_t)p, sizeof *cnt_out, "symmetry test"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&cnt_in, (size_t)p, sizeof *cnt_in, "symmetry test"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&dsp_out, (size_t)p + 1, sizeof *dsp_out, "symmetry test"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&dsp_in, (size_t)p + 1, sizeof *dsp_in, "symmetry test"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&slot_owner, (size_t)(h->n_halo > 0 ? h->n_halo : 1),
                         sizeof *slot_owner, "symmetry test"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&pair_out, 2 * (size_t)(onnz > 0 ? onnz : 1),
                         sizeof *pair_out, "symmetry test"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&val_out, (size_t)(onnz > 0 ? onnz : 1), sizeof *val_out,
                         "symmetry test"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&pairs, (size_t)(n > 0 ? n : 1), sizeof *pairs,
                         "symmetry test"));
  for (int q = 0; q < h->nrecv; q++)
    for (int64_t s = h->recv_off[q]; s < h->recv_off[q + 1]; s++) slot_owner[s] = h->recv_rank[q];
  for (int64_t k = 0; k < onnz; k++) cnt_out[slot_owner[d->offd_colind[k]]]++;
  for (int q = 0; q < p; q++) dsp_out[q + 1] = dsp_out[q] + cnt_out[q];
  /* (j, i, a_ij) for the owner of j, grouped by owner */
  {
    int *fill = cnt_in; /* borrowed as the write cursors until the exchange */
    for (int q = 0; q < p; q++) fill[q] = dsp_out[q];
    for (int64_t i = 0; i < n; i++)
      for (int64_t k = d->offd_rowptr[i]; k < d->offd_rowptr[i + 1]; k++) {
        const int64_t at = fill[slot_owner[d->offd_colind[k]]]++;
        pair_out[2 * at] = h->halo_old[d->offd_colind[k]];
        pair_out[2 * at + 1] = d->old_ids[i];
        val_out[at] = d->offd_values[k];
      }
  }
  for (int64_t i = 0; i < n; i++) {
    pairs[i].old = d->old_ids[i];
    pairs[i].pos = (int32_t)i;
  }
  qsort(pairs, (size_t)n, sizeof *pairs, cmp_old_pos);
cleanup:
  st = sps_comm_agree(ctx, st);
  if (st) goto out;
  {
    int e = MPI_Alltoall(cnt_out, 1, MPI_INT, cnt_in, 1, MPI_INT, c->comm);
    if (e != MPI_SUCCESS) {
      st = sps_comm_fail(ctx, e, "MPI_Alltoall");
      goto out;
    }
    for (int q = 0; q < p; q++) dsp_in[q + 1] = dsp_in[q] + cnt_in[q];
    const int64_t total = dsp_in[p];
    st = sps_host_alloc(ctx, (void **)&pair_in, 2 * (size_t)(total > 0 ? total : 1),
                        sizeof *pair_in, "symmetry test");
    if (!st)
      st = sps_host_alloc(ctx, (void **)&val_in, (size_t)(total > 0 ? total : 1), sizeof *val_in,
                          "symmetry test");
    st = sps_comm_agree(ctx, st);
    if (st) goto out;
    /* the index pairs travel as two int64 each */
    for (int q = 0; q < p; q++) {
      cnt_out[q] *= 2;
      cnt_in[q] *= 2;
      dsp_out[q] *= 2;
      dsp_in[q] *= 2;
    }
    e = MPI_Alltoallv(pair_out, cnt_out, dsp_out, MPI_INT64_T, pair_in, cnt_in, dsp_in,
                      MPI_INT64_T, c->comm);
    for (int q = 0; q < p; q++) {
      cnt_out[q] /= 2;
      cnt_in[q] /= 2;
      dsp_out[q] /= 2;
      dsp_in[q] /= 2;
    }
    if (e == MPI_SUCCESS)
      e = MPI_Alltoallv(val_out, cnt_out, dsp_out, MPI_DOUBLE, val_in, cnt_in, dsp_in, MPI_DOUBLE,
                        c->comm);
    if (e != MPI_SUCCESS) {
      st = sps_comm_fail(ctx, e, "MPI_Alltoallv");
      goto out;
    }
    /* each received a_ji must be this rank's a_ij: row i its own, column j another's */
    for (int64_t t = 0; ok && t < total; t++) {
      const int64_t row = pair_in[2 * t], col = pair_in[2 * t + 1];
      int64_t lo = 0, hi = n;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (pairs[mid].old < row)
          lo = mid + 1;
        else
          hi = mid;
      }
      double partner = 0.0;
      if (lo < n && pairs[lo].old == row) {
        const int64_t i = pairs[lo].pos;
        for (int64_t k = d->offd_rowptr[i]; k < d->offd_rowptr[i + 1]; k++)
          if (h->halo_old[d->offd_colind[k]] == col) partner = d->offd_values[k];
      }
      if (partner != val_in[t]) ok = 0;
    }
    int64_t v = ok;
    st = sps_comm_allreduce_i64(ctx, &v, 1, SPS_COMM_MIN);
    if (!st) *sym = (int)v;
  }
out:
  sps_host_free(cnt_out);
  sps_host_free(cnt_in);
  sps_host_free(dsp_out);
  sps_host_free(dsp_in);
  sps_host_free(slot_owner);
  sps_host_free(pair_out);
  sps_host_free(pair_in);
  sps_host_free(val_out);
  sps_host_free(val_in);
  sps_host_free(pairs);
  return st;
}
