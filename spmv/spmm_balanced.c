/* spmm_balanced.c: the spmm-balanced SpMM variant (seed 004): setup cuts the rows into work units of at most SPS_SPMM_UNIT_NNZ entries and sizes the partial sums of the long rows. */
#include "ref/spmm_kernels.h"
#include "spmm_internal.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/spmm_launchers.h"
#endif

typedef struct balanced_data {
  int64_t nunits, nlong, nslots;
  sps_spmm_unit *units;     /* context's memory */
  sps_spmm_long_row *longs; /* context's memory */
  double *partial;          /* 2*k doubles per slot, context's memory */
} balanced_data;

/*
 * The partition, in one pass over the rows: a row of more than SPS_SPMM_UNIT_NNZ entries gets
 * ceil(len / SPS_SPMM_UNIT_NNZ) part units and partial slots; the other rows are packed in order
 * into group units of at most SPS_SPMM_UNIT_NNZ entries and SPS_SPMM_UNIT_ROWS rows. With
 * units == NULL it only counts.
 */
static void balanced_partition(const sps_matrix *A, sps_spmm_unit *units, sps_spmm_long_row *longs,
                               int64_t *nunits, int64_t *nlong, int64_t *nslots)
{
  int64_t nu = 0, nl = 0, ns = 0;
  int64_t g_row = 0, g_rows = 0, g_nnz = 0; /* the group being filled */
#define SPS_FLUSH_GROUP()                                                                          \
  do {                                                                                             \
    if (g_rows > 0) {                                                                              \
      if (units) units[nu] = (sps_spmm_unit){0, (int32_t)g_row, (int32_t)g_rows};                  \
      nu++;                                                                                        \
    }                                                                                              \
    g_rows = 0;                                                                                    \
    g_nnz = 0;                                                                                     \
  } while (0)
  for (int64_t i = 0; i < A->nrows; i++) {
    const int64_t b = A->rowptr[i], len = A->rowptr[i + 1] - b;
    if (len > SPS_SPMM_UNIT_NNZ) {
      SPS_FLUSH_GROUP();
      const int64_t parts = (len + SPS_SPMM_UNIT_NNZ - 1) / SPS_SPMM_UNIT_NNZ;
      if (longs) longs[nl] = (sps_spmm_long_row){(int32_t)i, (int32_t)ns, (int32_t)parts, 0};
      for (int64_t p = 0; p < parts; p++) {
        if (units)
          units[nu] =
              (sps_spmm_unit){b + p * SPS_SPMM_UNIT_NNZ, (int32_t)i, (int32_t)(-(ns + p) - 1)};
        nu++;
      }
      ns += parts;
      nl++;
      continue;
    }
    if (g_rows > 0 && (g_nnz + len > SPS_SPMM_UNIT_NNZ || g_rows == SPS_SPMM_UNIT_ROWS))
      SPS_FLUSH_GROUP();
    if (g_rows == 0) g_row = i;
    g_rows++;
    g_nnz += len;
  }
  SPS_FLUSH_GROUP();
#undef SPS_FLUSH_GROUP
  *nunits = nu;
  *nlong = nl;
  *nslots = ns;
}

static sps_status balanced_setup(sps_spmm_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  balanced_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "spmm-balanced plan data"));
  plan->data = d;
  balanced_partition(A, NULL, NULL, &d->nunits, &d->nlong, &d->nslots);
  if (d->nslots > INT32_MAX - 1)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "spmm-balanced: %lld partial slots exceed the int32 range",
             (long long)d->nslots);
  sps_spmm_unit *units = NULL;
  sps_spmm_long_row *longs = NULL;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&units, (size_t)(d->nunits ? d->nunits : 1), sizeof *units,
                           "spmm-balanced units"));
  sps_status st = sps_host_alloc(ctx, (void **)&longs, (size_t)(d->nlong ? d->nlong : 1),
                                 sizeof *longs, "spmm-balanced long rows");
  if (st) {
    sps_host_free(units);
    return st;
  }
  int64_t nu, nl, ns;
  balanced_partition(A, units, longs, &nu, &nl, &ns);
  st = sps_spmv_to_device(ctx, (void **)&units, (void **)&d->units,
                          (size_t)(d->nunits ? d->nunits : 1) * sizeof *units,
                          "spmm-balanced units");
  if (!st)
    st = sps_spmv_to_device(ctx, (void **)&longs, (void **)&d->longs,
                            (size_t)(d->nlong ? d->nlong : 1) * sizeof *longs,
                            "spmm-balanced long rows");
  sps_host_free(longs); /* NULL once handed over */
  if (!st && d->nslots > 0)
    st = ctx->be->malloc(ctx, (void **)&d->partial,
                         (size_t)d->nslots * (size_t)plan->k * 2 * sizeof(double),
                         "spmm-balanced partial sums");
  return st;
}

static sps_status balanced_apply(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                                 double beta, double *Y, int64_t ldy)
{
  const sps_matrix *A = plan->A;
  const balanced_data *d = plan->data;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    const int xv = sps_spmm_xy_vec(plan->k, X, ldx, Y, ldy);
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_spmm_balanced(sps_cuda(plan->ctx)->stream, A->d_rowptr, A->d_colind,
                                           A->d_values, d->nunits, d->units, d->nlong, d->longs,
                                           d->partial, plan->k, xv, alpha, X, ldx, beta, Y, ldy));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_spmm_balanced(A->rowptr, A->colind, A->values, d->nunits, d->units, d->nlong, d->longs,
                        d->partial, plan->k, alpha, X, ldx, beta, Y, ldy);
  return SPS_SUCCESS;
}

static void balanced_destroy(sps_spmm_plan *plan)
{
  balanced_data *d = plan->data;
  if (!d) return;
  sps_context *ctx = plan->ctx;
  if (d->units) ctx->be->free(ctx, d->units);
  if (d->longs) ctx->be->free(ctx, d->longs);
  if (d->partial) ctx->be->free(ctx, d->partial);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmm_variant sps_spmm_variant_balanced = {
    .kind = SPS_SPMM_BALANCED,
    .on_cpu = 1,
    .on_cuda = 1,
    .compensated = 1,
    .setup = balanced_setup,
    .apply = balanced_apply,
    .destroy = balanced_destroy,
};
