/* amg.c: the algebraic multigrid preconditioner (classical and smoothed-aggregation coarsening): the hierarchy's properties (prolongators, Galerkin operators, coarse inverse), the cycle's symmetry with each smoother, CG and GMRES with it on model problems with recorded iteration counts, the bad parameters; on the CPU, and on the GPU through amg-cuda.sh with the same expectations.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each hierarchy, comparison, symmetry check and solve
 * is one case. */
#include "../../precond/amg.h"
#include "../../precond/aggregate.h"
#include "../../precond/ref/kernels.h"
#include "model_problems.h"

/*
 * What each check proves:
 *   - smoothed aggregation: P B_c = (I - omega D^-1 A) B on the aggregated rows (B = 1 on the
 *     finest level, then the coarse near-null vector B_c = the norms of B on the aggregates,
 *     computed here from the aggregates), by the plain host product: the tentative
 *     prolongator and the smoothing step are the ones documented, omega = 4/(3 rho);
 *   - classical: with the C/F split of the strength and PMIS rounds, each C row of P is the
 *     one entry 1 in its coarse column (the k-th C row in column k), each F row keeps at most
 *     amg.interp_max entries; on the Neumann Laplacian (zero row sums) every F row sums to 1
 *     (extended+i interpolates the constants, and the truncation keeps row sums); on an
 *     M-matrix the weights are >= 0 with row sums <= 1;
 *   - both: R = P^T exactly; A_{l+1} equals R A P formed densely here, and is symmetric to
 *     rounding; the levels' sizes decrease; the coarsest inverse times A_c is the identity
 *     (a generalised inverse for the singular Neumann Laplacian);
 *   - (M^-1 u, v) = (u, M^-1 v) to rounding and (M^-1 u, u) > 0 for the V- and W-cycles with
 *     each smoother (Chebyshev, l1-Jacobi, multicolour Gauss-Seidel) and each coarsening: M is
 *     symmetric positive definite, as CG needs;
 *   - on a GPU, the hierarchy equals the one the CPU builds from the same matrix, byte for
 *     byte (every level's P, R, A and the coarsest inverse, the spectral radius estimates and
 *     the colours);
 *   - CG and GMRES with it converge on model problems, the singular Neumann Laplacian
 *     included, in the iteration counts recorded on the CPU (recorded from runs of this code,
 *     as regression values); the GPU run (amg-cuda.sh) must take the same ones, since the
 *     setup builds the same hierarchy on both and every operation of the cycle rounds alike;
 *   - each out-of-range parameter is refused with SPS_ERR_ARGUMENT naming it, and the value
 *     names of amg.coarsening and amg.smoother map to their numbers.
 */

static sps_context *ctx;

/* An SpMV plan of A (AUTO), set up. */
static sps_spmv_plan *plan_of(const sps_matrix *A)
{
  sps_spmv_plan *p = NULL;
  if (sps_spmv_plan_create(ctx, &p, A, SPS_SPMV_AUTO) || sps_spmv_plan_setup(p))
    sps_bail("plan: %s", sps_context_last_error(ctx));
  return p;
}

/* The 2-D Neumann Laplacian on a g x g grid: row sums zero, singular (constant null vector). */
static sps_matrix *neumann(int g)
{
  const int64_t n = (int64_t)g * g;
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(5 * n) * sizeof *ci);
  double *v = malloc((size_t)(5 * n) * sizeof *v);
  if (!rp || !ci || !v) sps_bail("out of memory");
  int64_t k = 0;
  rp[0] = 0;
  for (int i = 0; i < g; i++)
    for (int j = 0; j < g; j++) {
      const int32_t r = i * g + j;
      const int deg = (i > 0) + (j > 0) + (i < g - 1) + (j < g - 1);
      if (i > 0) ci[k] = r - g, v[k++] = -1.0;
      if (j > 0) ci[k] = r - 1, v[k++] = -1.0;
      ci[k] = r, v[k++] = deg;
      if (j < g - 1) ci[k] = r + 1, v[k++] = -1.0;
      if (i < g - 1) ci[k] = r + g, v[k++] = -1.0;
      rp[r + 1] = k;
    }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, v)) sps_bail("%s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(v);
  return A;
}

/* A level's operator (level 0: A itself, sign 1 in these checks), P or R on the host: the
 * library keeps them in the context's memory (device memory on a GPU). */
static sps_host_rcsr host_of(const sps_matrix *M)
{
  sps_host_rcsr H;
  const amg_csr c = amg_csr_of(M);
  if (amg_csr_download(ctx, &c, &H)) sps_bail("download: %s", sps_context_last_error(ctx));
  return H;
}

/* max |a_ij| of a host CSR. */
static double max_abs(const int64_t *rp, const double *v, int64_t n)
{
  double m = 0.0;
  for (int64_t k = 0; k < rp[n]; k++)
    m = fmax(m, fabs(v[k]));
  return m;
}

/* The smoothed-aggregation prolongator of level l against its definition: the aggregates
 * again (deterministic), T computed here from them and the near-null vector B (n entries;
 * the coarse one returned, nc entries), and P B_c = (I - omega D^-1 A) B_agg. */
static double *check_sa_level(const char *name, int l, const sps_precond_params *prm,
                              const sps_host_rcsr *Hh, const sps_host_rcsr *P, const amg_level *L,
                              const double *B, int64_t nc)
{
  const int64_t n = Hh->nrows;
  const sps_host_csr H = {n, Hh->rowptr, Hh->colind, Hh->values};
  int32_t *agg = malloc((size_t)n * sizeof *agg);
  int64_t na = 0;
  if (!agg || sps_amg_aggregate(ctx, &H, amg_level_theta(prm, l), agg, &na)) sps_bail("aggregate");
  sps_ok(na == nc, "%s level %d: %lld aggregates, %lld coarse rows", name, l, (long long)na,
         (long long)nc);
  /* B_c,J = ||B restricted to J||: T's columns are then B_J / ||B_J||, of norm 1 */
  double *Bc = calloc((size_t)(na > 0 ? na : 1), sizeof *Bc);
  for (int64_t i = 0; i < n; i++)
    if (agg[i] >= 0) Bc[agg[i]] += B[i] * B[i];
  for (int64_t j = 0; j < na; j++)
    Bc[j] = sqrt(Bc[j]);
  /* P B_c = (I - omega D^-1 A) B_agg (B on the aggregated rows, 0 elsewhere) */
  double *pc1 = malloc((size_t)n * sizeof *pc1), *one = malloc((size_t)n * sizeof *one);
  double *a1 = malloc((size_t)n * sizeof *a1);
  sps_csr_matvec_host(n, P->rowptr, P->colind, P->values, Bc, pc1);
  for (int64_t i = 0; i < n; i++)
    one[i] = agg[i] >= 0 ? B[i] : 0.0;
  sps_csr_matvec_host(n, H.rowptr, H.colind, H.values, one, a1);
  const double omega = 4.0 / (3.0 * L->rho);
  double perr = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double aii = 0.0, mag = 0.0;
    for (int64_t k = H.rowptr[i]; k < H.rowptr[i + 1]; k++) {
      if (H.colind[k] == i) aii = H.values[k];
      mag += fabs(H.values[k] * one[H.colind[k]]);
    }
    const double want = one[i] - omega * a1[i] / aii;
    perr = fmax(perr, fabs(pc1[i] - want) / (1.0 + omega * mag / fabs(aii)));
  }
  sps_ok(perr <= 1e-13, "%s level %d: P B_c = (I - omega D^-1 A) B (omega %.4g, max error %.2g)",
         name, l, omega, perr);
  free(agg);
  free(pc1);
  free(one);
  free(a1);
  return Bc;
}

/* The C/F split of H as the setup makes it (the reference's strength and PMIS rounds, on the
 * host): 1 for C rows. */
static unsigned char *cf_split(const sps_host_rcsr *H, double theta)
{
  const int64_t n = H->nrows;
  int64_t *srp = calloc((size_t)n + 1, sizeof *srp), *strp = calloc((size_t)n + 1, sizeof *strp);
  sps_ref_cls_strength_count(n, H->rowptr, H->colind, H->values, theta, 0.9, srp);
  int64_t s = 0;
  for (int64_t i = 0; i <= n; i++) {
    const int64_t c = srp[i];
    srp[i] = s;
    s += c;
  }
  int32_t *sci = malloc((size_t)(s + 1) * sizeof *sci),
          *stci = malloc((size_t)(s + 1) * sizeof *stci);
  sps_ref_cls_strength_fill(n, H->rowptr, H->colind, H->values, theta, 0.9, srp, sci);
  sps_ref_csr_transpose(n, n, srp, sci, NULL, strp, stci, NULL);
  uint64_t *key = malloc((size_t)(n + 1) * sizeof *key);
  unsigned char *newc = malloc((size_t)n + 1), *c = malloc((size_t)n + 1);
  unsigned long long left = 0;
  sps_ref_cls_pmis_init(n, strp, key, &left);
  while (left > 0) {
    sps_ref_cls_pmis_select(n, srp, sci, strp, stci, key, newc);
    sps_ref_cls_pmis_update(n, srp, sci, newc, key, &left);
  }
  for (int64_t i = 0; i < n; i++)
    c[i] = sps_cls_state(key[i]) == SPS_CLS_C;
  free(srp);
  free(strp);
  free(sci);
  free(stci);
  free(key);
  free(newc);
  return c;
}

/* The classical prolongator of level l: C rows inject (the k-th C row into coarse column k),
 * F rows keep at most interp_max entries; on an operator with zero row sums (singular) every
 * F row that interpolates sums to 1 (extended+i interpolates the constants exactly, and the
 * truncation keeps the row's sum); on an M-matrix the weights are positive, their sums <= 1. */
static void check_classical_level(const char *name, int l, const sps_precond_params *prm,
                                  const sps_host_rcsr *Hh, const sps_host_rcsr *P, int zero_sums)
{
  const int64_t n = P->nrows;
  int64_t next = 0, fr = 0, empty = 0;
  int inj = 1, len_ok = 1, mono = 1;
  /* a two-stage level (amg.aggressive): its C rows are those of the second stage, which the
   * split of H does not show; its rows are checked as F rows (C rows sum to 1 too) */
  const int two_stage = amg_aggressive_level(prm, l, Hh->nrows);
  unsigned char *isc = two_stage ? calloc((size_t)n + 1, 1) : cf_split(Hh, amg_level_theta(prm, l));
  double sum_err = 0.0, minw = 0.0, maxsum = 0.0;
  const int pm = amg_interp_max(prm);
  int mmatrix = 1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = Hh->rowptr[i]; k < Hh->rowptr[i + 1]; k++)
      if (Hh->colind[k] != i && Hh->values[k] > 0.0) mmatrix = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t b = P->rowptr[i], e = P->rowptr[i + 1];
    if (isc[i]) {
      inj &= e - b == 1 && P->values[b] == 1.0 && P->colind[b] == next;
      next++;
      continue;
    }
    fr++;
    len_ok &= pm == 0 || e - b <= pm;
    for (int64_t k = b + 1; k < e; k++)
      mono &= P->colind[k] > P->colind[k - 1];
    if (e == b) {
      empty++;
      continue;
    }
    double s = 0.0;
    for (int64_t k = b; k < e; k++) {
      s += P->values[k];
      minw = fmin(minw, P->values[k]);
    }
    maxsum = fmax(maxsum, s);
    if (zero_sums) sum_err = fmax(sum_err, fabs(s - 1.0));
  }
  inj &= two_stage || next == P->ncols;
  free(isc);
  if (two_stage)
    sps_ok(len_ok && mono, "%s level %d (two stages): P's rows keep at most %d entries, sorted",
           name, l, pm);
  else
    sps_ok(inj && len_ok && mono,
           "%s level %d: P's %lld C rows inject into columns 0..%lld in order; %lld F rows keep "
           "at most %d entries, sorted (%lld interpolate from nothing)",
           name, l, (long long)next, (long long)P->ncols - 1, (long long)fr, pm, (long long)empty);
  if (zero_sums)
    sps_ok(sum_err <= 1e-12, "%s level %d: zero row sums: every F row of P sums to 1 (error %.2g)",
           name, l, sum_err);
  else if (mmatrix)
    sps_ok(minw >= 0.0 && maxsum <= 1.0 + 1e-12,
           "%s level %d: an M-matrix: P's weights >= 0 (min %.3g), row sums <= 1 (max %.15g)", name,
           l, minw, maxsum);
}

/* The hierarchy of A (sign 1) with the given parameters: every property listed above. */
static void check_hierarchy(const char *name, sps_matrix *A, const sps_precond_params *prm,
                            int singular)
{
  sps_spmv_plan *plan = plan_of(A);
  sps_precond *pc = NULL;
  if (sps_precond_create(ctx, &pc, SPS_PRECOND_AMG, prm)) sps_bail("create");
  sps_status st = sps_precond_setup(pc, A, 1.0, plan);
  if (!sps_ok(st == SPS_SUCCESS, "%s: setup (%s)", name, st ? sps_context_last_error(ctx) : "ok")) {
    sps_precond_destroy(&pc);
    sps_spmv_plan_destroy(&plan);
    return;
  }
  const amg_data *d = pc->data;
  sps_ok(d->nlevels >= 2 && pc->info.amg_levels == d->nlevels, "%s: %d levels", name, d->nlevels);
  int decreasing = 1;
  for (int l = 0; l + 1 < d->nlevels; l++)
    decreasing &= d->lv[l + 1].n < d->lv[l].n;
  sps_ok(decreasing, "%s: the levels' sizes decrease (%lld ... %lld rows)", name,
         (long long)d->lv[0].n, (long long)d->lv[d->nlevels - 1].n);
  const int sa = prm->amg_coarsening == AMG_COARSEN_AGGREGATION;

  /* the near-null vector, 1 on the finest level, carried down as setup does */
  double *B = malloc((size_t)d->lv[0].n * sizeof *B);
  for (int64_t i = 0; i < d->lv[0].n; i++)
    B[i] = 1.0;
  for (int l = 0; l + 1 < d->nlevels; l++) {
    const amg_level *L = &d->lv[l];
    sps_host_rcsr Hh = host_of(l == 0 ? A : L->A), P = host_of(L->P), R = host_of(L->R);
    sps_host_rcsr Ac = host_of(d->lv[l + 1].A);
    const int64_t n = Hh.nrows, nc = d->lv[l + 1].n;
    if (sa) {
      double *Bc = check_sa_level(name, l, prm, &Hh, &P, L, B, nc);
      free(B);
      B = Bc;
    } else {
      check_classical_level(name, l, prm, &Hh, &P, singular);
    }
    /* R = P^T */
    int rt = R.nrows == P.ncols && R.ncols == P.nrows && R.rowptr[R.nrows] == P.rowptr[n];
    for (int64_t i = 0; rt && i < n; i++)
      for (int64_t k = P.rowptr[i]; rt && k < P.rowptr[i + 1]; k++) {
        const int32_t j = P.colind[k];
        int found = 0;
        for (int64_t q = R.rowptr[j]; q < R.rowptr[j + 1]; q++)
          if (R.colind[q] == i) found = R.values[q] == P.values[k];
        rt = found;
      }
    sps_ok(rt, "%s level %d: R = P^T exactly", name, l);
    /* A_c = R A P densely (small levels), and symmetric to rounding */
    const double scale = max_abs(Ac.rowptr, Ac.values, nc);
    if (n <= 3000 && nc <= 600) {
      double *AP = calloc((size_t)(n * nc), sizeof *AP),
             *RAP = calloc((size_t)(nc * nc), sizeof *RAP);
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = Hh.rowptr[i]; k < Hh.rowptr[i + 1]; k++)
          for (int64_t q = P.rowptr[Hh.colind[k]]; q < P.rowptr[Hh.colind[k] + 1]; q++)
            AP[i * nc + P.colind[q]] += Hh.values[k] * P.values[q];
      for (int64_t j = 0; j < nc; j++)
        for (int64_t q = R.rowptr[j]; q < R.rowptr[j + 1]; q++)
          for (int64_t m = 0; m < nc; m++)
            RAP[j * nc + m] += R.values[q] * AP[R.colind[q] * nc + m];
      double gerr = 0.0;
      for (int64_t j = 0; j < nc; j++) {
        for (int64_t q = Ac.rowptr[j]; q < Ac.rowptr[j + 1]; q++)
          RAP[j * nc + Ac.colind[q]] -= Ac.values[q];
        for (int64_t m = 0; m < nc; m++)
          gerr = fmax(gerr, fabs(RAP[j * nc + m]));
      }
      sps_ok(gerr <= 1e-12 * scale, "%s level %d: A_%d = R A P (max difference %.2g of %.3g)", name,
             l, l + 1, gerr, scale);
      free(AP);
      free(RAP);
    }
    double asym = 0.0;
    for (int64_t i = 0; i < nc; i++)
      for (int64_t k = Ac.rowptr[i]; k < Ac.rowptr[i + 1]; k++) {
        const int32_t j = Ac.colind[k];
        double aji = 0.0;
        for (int64_t q = Ac.rowptr[j]; q < Ac.rowptr[j + 1]; q++)
          if (Ac.colind[q] == i) aji = Ac.values[q];
        asym = fmax(asym, fabs(Ac.values[k] - aji));
      }
    sps_ok(asym <= 1e-13 * scale, "%s level %d: A_%d symmetric to rounding (%.2g of %.3g)", name, l,
           l + 1, asym, scale);
    sps_host_rcsr_free(&Hh);
    sps_host_rcsr_free(&P);
    sps_host_rcsr_free(&R);
    sps_host_rcsr_free(&Ac);
  }
  free(B);
  /* the coarsest inverse: G A_c = I */
  const amg_level *Lc = &d->lv[d->nlevels - 1];
  if (sps_ok(Lc->Ainv != NULL, "%s: the coarsest level (%lld rows) has its dense inverse", name,
             (long long)Lc->n)) {
    sps_host_rcsr Hc = host_of(d->nlevels == 1 ? A : Lc->A), Gh = host_of(Lc->Ainv);
    const int64_t nc = Hc.nrows;
    const double *G = Gh.values; /* dense rows */
    double ierr = 0.0, gnorm = 0.0, anorm = 0.0;
    for (int64_t i = 0; i < nc; i++) {
      double ga = 0.0, aa = 0.0;
      for (int64_t j = 0; j < nc; j++)
        ga += fabs(G[i * nc + j]);
      for (int64_t k = Hc.rowptr[i]; k < Hc.rowptr[i + 1]; k++)
        aa += fabs(Hc.values[k]);
      gnorm = fmax(gnorm, ga);
      anorm = fmax(anorm, aa);
    }
    for (int64_t i = 0; i < nc; i++)
      for (int64_t m = 0; m < nc; m++) {
        double s = 0.0;
        for (int64_t j = 0; j < nc; j++)
          for (int64_t k = Hc.rowptr[j]; k < Hc.rowptr[j + 1]; k++)
            if (Hc.colind[k] == m) s += G[i * nc + j] * Hc.values[k];
        ierr = fmax(ierr, fabs(s - (i == m ? 1.0 : 0.0)));
      }
    if (singular) {
      /* a generalised inverse: the error of G A_c against I is the projection onto the null
       * space; the pivot left out and a bounded G show it */
      sps_ok(pc->info.replaced_pivots >= 1 && gnorm * anorm < 1e6,
             "%s: the singular coarsest operator: %lld zero pivot(s) left out, ||G|| ||A_c|| = "
             "%.3g (bounded)",
             name, (long long)pc->info.replaced_pivots, gnorm * anorm);
    } else
      sps_ok(pc->info.replaced_pivots == 0 && ierr <= 1e-10 * gnorm * anorm,
             "%s: G A_c = I (max error %.2g, ||G|| ||A_c|| = %.3g)", name, ierr, gnorm * anorm);
    sps_host_rcsr_free(&Hc);
    sps_host_rcsr_free(&Gh);
  }
  sps_precond_destroy(&pc);
  sps_spmv_plan_destroy(&plan);
}

/* Two host matrices equal byte for byte. */
static int same_csr(const sps_host_rcsr *a, const sps_host_rcsr *b)
{
  if (a->nrows != b->nrows || a->ncols != b->ncols) return 0;
  const int64_t nnz = a->rowptr[a->nrows];
  return memcmp(a->rowptr, b->rowptr, (size_t)(a->nrows + 1) * sizeof(int64_t)) == 0 &&
         nnz == b->rowptr[b->nrows] &&
         (nnz == 0 || (memcmp(a->colind, b->colind, (size_t)nnz * sizeof(int32_t)) == 0 &&
                       memcmp(a->values, b->values, (size_t)nnz * sizeof(double)) == 0));
}

/* On a GPU context: the hierarchy built there equals the one the CPU builds from the same
 * matrix, level by level, byte for byte (P, R, A_l, the coarsest inverse, the spectral radius
 * estimates and the Gauss-Seidel colours), since every setup step gives its reference's bits.
 * On the CPU there is nothing to compare with. */
static void check_same_as_cpu(const char *name, sps_matrix *A, const sps_precond_params *prm)
{
  sps_device_kind kind = SPS_DEVICE_CPU;
  sps_context_get_device(ctx, &kind, NULL);
  if (kind != SPS_DEVICE_CUDA) {
    sps_skip("%s: the GPU's hierarchy against the CPU's (GPU run only)", name);
    return;
  }
  sps_context *cpu = NULL;
  sps_matrix *Ac = NULL;
  int64_t n;
  const int64_t *rp;
  const int32_t *ci;
  const double *v;
  sps_test_csr(A, &n, &rp, &ci, &v);
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) || sps_matrix_create_csr(cpu, &Ac, n, n, rp, ci, v))
    sps_bail("CPU copy: %s", sps_context_create_error());
  sps_precond *pg = NULL, *pcpu = NULL;
  sps_spmv_plan *plan = plan_of(A), *cplan = NULL;
  if (sps_spmv_plan_create(cpu, &cplan, Ac, SPS_SPMV_AUTO) || sps_spmv_plan_setup(cplan) ||
      sps_precond_create(ctx, &pg, SPS_PRECOND_AMG, prm) || sps_precond_setup(pg, A, 1.0, plan) ||
      sps_precond_create(cpu, &pcpu, SPS_PRECOND_AMG, prm) ||
      sps_precond_setup(pcpu, Ac, 1.0, cplan))
    sps_bail("%s: setup: %s / %s", name, sps_context_last_error(ctx), sps_context_last_error(cpu));
  const amg_data *dg = pg->data, *dc = pcpu->data;
  int ok = dg->nlevels == dc->nlevels;
  for (int l = 0; ok && l < dg->nlevels; l++) {
    const amg_level *G = &dg->lv[l], *C = &dc->lv[l];
    ok &= G->n == C->n && G->nnz == C->nnz && G->rho == C->rho && G->ncolors == C->ncolors;
    const sps_matrix *mg[] = {G->P, G->R, l > 0 ? G->A : NULL, G->Ainv};
    const sps_matrix *mc[] = {C->P, C->R, l > 0 ? C->A : NULL, C->Ainv};
    for (int k = 0; ok && k < 4; k++) {
      ok &= !mg[k] == !mc[k];
      if (!ok || !mg[k]) continue;
      sps_host_rcsr hg = host_of(mg[k]), hc;
      const amg_csr cc = amg_csr_of(mc[k]);
      if (amg_csr_download(cpu, &cc, &hc)) sps_bail("download");
      ok &= same_csr(&hg, &hc);
      sps_host_rcsr_free(&hg);
      sps_host_rcsr_free(&hc);
    }
  }
  sps_ok(ok, "%s: the GPU builds the CPU's hierarchy, byte for byte (%d levels)", name,
         dg->nlevels);
  sps_precond_destroy(&pg);
  sps_precond_destroy(&pcpu);
  sps_spmv_plan_destroy(&plan);
  sps_spmv_plan_destroy(&cplan);
  sps_matrix_destroy(&Ac);
  sps_context_destroy(&cpu);
}

/* (M^-1 u, v) against (u, M^-1 v), and (M^-1 u, u) > 0, for random u, v. */
static void check_symmetric(const char *name, sps_matrix *A, const sps_precond_params *prm)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_spmv_plan *plan = plan_of(A);
  sps_precond *pc = NULL;
  sps_vector *u = NULL, *v = NULL, *mu = NULL, *mv = NULL;
  double *hu = malloc((size_t)n * sizeof *hu), *hv = malloc((size_t)n * sizeof *hv);
  double *hmu = malloc((size_t)n * sizeof *hmu), *hmv = malloc((size_t)n * sizeof *hmv);
  sps_rng rng = {0xa3a3a3ull};
  for (int64_t i = 0; i < n; i++) {
    hu[i] = sps_rng_uniform(&rng);
    hv[i] = sps_rng_uniform(&rng);
  }
  if (sps_precond_create(ctx, &pc, SPS_PRECOND_AMG, prm) || sps_precond_setup(pc, A, 1.0, plan) ||
      sps_vector_create(ctx, &u, n) || sps_vector_create(ctx, &v, n) ||
      sps_vector_create(ctx, &mu, n) || sps_vector_create(ctx, &mv, n) ||
      sps_vector_upload(u, hu, n) || sps_vector_upload(v, hv, n) ||
      sps_precond_apply(pc, u->data, mu->data) || sps_precond_apply(pc, v->data, mv->data) ||
      sps_vector_download(mu, hmu, n) || sps_vector_download(mv, hmv, n))
    sps_bail("%s: %s", name, sps_context_last_error(ctx));
  double a = 0.0, b = 0.0, pos = 0.0, mag = 0.0;
  for (int64_t i = 0; i < n; i++) {
    a += hmu[i] * hv[i];
    b += hu[i] * hmv[i];
    pos += hmu[i] * hu[i];
    mag += fabs(hmu[i] * hv[i]) + fabs(hu[i] * hmv[i]);
  }
  sps_ok(fabs(a - b) <= 1e-10 * mag, "%s: (M^-1 u, v) = %.12g, (u, M^-1 v) = %.12g", name, a, b);
  sps_ok(pos > 0.0, "%s: (M^-1 u, u) = %.6g > 0", name, pos);
  sps_vector_destroy(&u);
  sps_vector_destroy(&v);
  sps_vector_destroy(&mu);
  sps_vector_destroy(&mv);
  sps_precond_destroy(&pc);
  sps_spmv_plan_destroy(&plan);
  free(hu);
  free(hv);
  free(hmu);
  free(hmv);
}

/* A solve with AMG, b = A x* (x* seeded): the reason, the true residual and the recorded count. */
static void check_solve(const char *name, sps_matrix *A, sps_solver_type type, const char *p1,
                        double v1, const char *p2, double v2, int expected)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *xs = malloc((size_t)n * sizeof *xs), *b = malloc((size_t)n * sizeof *b);
  double *x = malloc((size_t)n * sizeof *x);
  sps_rng rng = {0x5eedull};
  for (int64_t i = 0; i < n; i++)
    xs[i] = sps_rng_uniform(&rng);
  sps_test_host_mv(A, xs, b);
  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, type) ||
      sps_solver_set_tolerances(s, 1e-8, 0.0) || sps_solver_set_max_iterations(s, 1000) ||
      sps_solver_set_precond(s, SPS_PRECOND_AMG) ||
      (p1 && sps_solver_set_precond_param(s, p1, v1)) ||
      (p2 && sps_solver_set_precond_param(s, p2, v2)))
    sps_bail("%s: %s", name, sps_context_last_error(ctx));
  sps_status st = sps_solver_setup(s, A);
  if (!st) st = sps_solver_solve(s, vb, vx);
  sps_reason reason = SPS_REASON_NONE;
  int its = -1;
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  sps_vector_download(vx, x, n);
  const double rel = sps_test_relres(A, b, x);
  sps_ok(st == SPS_SUCCESS && reason == SPS_CONVERGED_RTOL && rel <= 1e-8 * (1 + 1e-6),
         "%s: %s, true relative residual %.3g (%s)", name, sps_reason_name(reason), rel,
         st ? sps_context_last_error(ctx) : "ok");
  sps_ok(its == expected, "%s: %d iterations, recorded %d", name, its, expected);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  free(xs);
  free(b);
  free(x);
}

/* amg.aggressive's default (-1): the first two classical levels of at least 20,000 rows are
 * coarsened in two stages; a value k >= 0 the first k levels whatever their size; never
 * aggregation's. */
static void check_aggressive_default(void)
{
  sps_precond_params p;
  sps_precond_params_default(&p);
  const int def = p.amg_aggressive == -1 && p.amg_coarsening == AMG_COARSEN_CLASSICAL &&
                  amg_aggressive_level(&p, 0, 20000) && amg_aggressive_level(&p, 1, 1000000) &&
                  !amg_aggressive_level(&p, 0, 19999) && !amg_aggressive_level(&p, 2, 1000000);
  sps_precond_params k = p;
  k.amg_aggressive = 1;
  const int explicit_k = amg_aggressive_level(&k, 0, 100) && !amg_aggressive_level(&k, 1, 1000000);
  k.amg_aggressive = 0;
  const int none = !amg_aggressive_level(&k, 0, 1000000);
  sps_precond_params a = p;
  a.amg_coarsening = AMG_COARSEN_AGGREGATION;
  const int agg = !amg_aggressive_level(&a, 0, 1000000);
  sps_ok(def && explicit_k && none && agg,
         "amg.aggressive: the default takes the first two levels of >= 20000 rows (%d), k the "
         "first k (%d), 0 none (%d), aggregation none (%d)",
         def, explicit_k, none, agg);
}

/* Each bad value of each AMG parameter: SPS_ERR_ARGUMENT, the message naming the parameter;
 * and the value names. */
static void check_bad_params(void)
{
  static const struct {
    const char *name;
    double value;
  } bad[] = {{"amg.coarsening", -1},
             {"amg.coarsening", 2},
             {"amg.strength", -1.5},
             {"amg.strength", 1.5},
             {"amg.interp_max", -2},
             {"amg.interp_max", SPS_AMG_TRUNC_MAX + 1},
             {"amg.interp_max", 2.5},
             {"amg.trunc", -0.1},
             {"amg.trunc", 1},
             {"amg.aggressive", -2},
             {"amg.aggressive", SPS_AMG_MAX_LEVELS + 1},
             {"amg.filter", -0.1},
             {"amg.filter", 1.5},
             {"amg.smoother", 3},
             {"amg.smoother", 0.5},
             {"amg.cheby_degree", 0},
             {"amg.cheby_degree", 17},
             {"amg.cheby_ratio", 1},
             {"amg.levels", 0},
             {"amg.levels", SPS_AMG_MAX_LEVELS + 1},
             {"amg.coarse_size", 0},
             {"amg.coarse_size", AMG_DENSE_MAX + 1},
             {"amg.cycle", 0},
             {"amg.cycle", 4},
             {"amg.cycle", NAN}};
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_CG)) sps_bail("solver");
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    const sps_status st = sps_solver_set_precond_param(s, bad[k].name, bad[k].value);
    sps_ok(st == SPS_ERR_ARGUMENT && strstr(sps_context_last_error(ctx), bad[k].name),
           "%s = %g refused: %s", bad[k].name, bad[k].value, sps_context_last_error(ctx));
  }
  sps_solver_destroy(&s);
  static const struct {
    const char *name, *text;
    double value;
  } names[] = {{"amg.coarsening", "aggregation", 0}, {"amg.coarsening", "classical", 1},
               {"amg.smoother", "cheby", 0},         {"amg.smoother", "l1jacobi", 1},
               {"amg.smoother", "mcgs", 2},          {"amg.strength", "0.25", 0.25}};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    double v = -7.0;
    const sps_status st = sps_precond_param_value(names[k].name, names[k].text, &v);
    sps_ok(st == SPS_SUCCESS && v == names[k].value, "%s=%s is %g", names[k].name, names[k].text,
           v);
  }
  double v;
  sps_ok(sps_precond_param_value("amg.coarsening", "rs", &v) == SPS_ERR_ARGUMENT &&
             sps_precond_param_value("amg.cycle", "w", &v) == SPS_ERR_ARGUMENT &&
             sps_precond_param_value(NULL, "1", &v) == SPS_ERR_ARGUMENT,
         "an unknown value name, a parameter without names and a NULL name are refused");
}

int main(void)
{
  ctx = sps_test_context();
  char dev[128];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  sps_diag("device: %s", dev);
  sps_precond_params prm;
  sps_precond_params_default(&prm);
  prm.amg_coarse_size = 40;
  sps_precond_params agg = prm, cls = prm;
  agg.amg_coarsening = AMG_COARSEN_AGGREGATION;
  cls.amg_coarsening = AMG_COARSEN_CLASSICAL;

  sps_matrix *L = sps_test_conv_diff_or_bail(ctx, 40, 0.0, 4.0, 1.0);
  char path[4096];
  snprintf(path, sizeof path, "%s/nos3.mtx.gz", sps_test_data_dir());
  sps_matrix *N3 = NULL;
  if (sps_matrix_read_mm(ctx, &N3, path, 0)) sps_bail("%s: %s", path, sps_context_last_error(ctx));
  sps_matrix *Nm = neumann(30);
  for (int c = 0; c < 2; c++) {
    const sps_precond_params *q = c ? &cls : &agg;
    const char *cn = c ? "classical" : "aggregation";
    char name[96];
    snprintf(name, sizeof name, "%s, 2-D Laplacian 40 x 40", cn);
    if (sps_case()) check_hierarchy(name, L, q, 0);
    snprintf(name, sizeof name, "%s, nos3", cn);
    if (sps_case()) check_hierarchy(name, N3, q, 0);
    snprintf(name, sizeof name, "%s, Neumann Laplacian 30 x 30 (singular)", cn);
    if (sps_case()) check_hierarchy(name, Nm, q, 1);
  }
  for (int c = 0; c < 2; c++)
    for (int sm = AMG_SMOOTHER_CHEBY; sm <= AMG_SMOOTHER_MCGS; sm++) {
      sps_precond_params q = c ? cls : agg;
      q.amg_smoother = sm;
      char name[96];
      snprintf(name, sizeof name, "nos3, %s, smoother %d", c ? "classical" : "aggregation", sm);
      if (sps_case()) check_same_as_cpu(name, N3, &q);
    }
  if (sps_case()) check_same_as_cpu("2-D Laplacian 40 x 40, defaults", L, &prm);
  sps_precond_params cls6 = cls;
  cls6.amg_interp_max = 0;
  if (sps_case()) check_hierarchy("classical, no truncation, 2-D Laplacian 40 x 40", L, &cls6, 0);
  sps_precond_params aggr = cls;
  aggr.amg_aggressive = 1;
  if (sps_case())
    check_hierarchy("classical, aggressive first level, 2-D Laplacian 40 x 40", L, &aggr, 0);

  for (int c = 0; c < 2; c++)
    for (int cyc = AMG_CYCLE_V; cyc <= AMG_CYCLE_W; cyc++)
      for (int sm = AMG_SMOOTHER_CHEBY; sm <= AMG_SMOOTHER_MCGS; sm++) {
        sps_precond_params q = c ? cls : agg;
        q.amg_cycle = cyc;
        q.amg_smoother = sm;
        static const char *const smn[] = {"Chebyshev", "l1-Jacobi", "Gauss-Seidel"};
        char name[96];
        snprintf(name, sizeof name, "nos3, %s, %s-cycle, %s", c ? "classical" : "aggregation",
                 cyc == AMG_CYCLE_V ? "V" : "W", smn[sm]);
        if (sps_case()) check_symmetric(name, N3, &q);
      }

  /* CG and GMRES with the defaults and each coarsening, cycle and smoother: recorded on the
   * CPU (regression values of this code). */
  sps_matrix *S = sps_test_conv_diff_or_bail(ctx, 20, 0.0, 4.0, 1.0);
  sps_matrix *C = sps_test_conv_diff_or_bail(ctx, 40, 0.3, 4.0, 1.0);
  sps_matrix *Lneg = sps_test_conv_diff_or_bail(ctx, 40, 0.0, 4.0, -1.0);
  const struct {
    const char *name;
    sps_matrix *A;
    sps_solver_type type;
    const char *p1;
    double v1;
    const char *p2;
    double v2;
    int expected;
  } solves[] = {
      {"CG+AMG, 2-D Laplacian", L, SPS_SOLVER_CG, NULL, 0, NULL, 0, 7},
      {"CG+AMG, nos3", N3, SPS_SOLVER_CG, NULL, 0, NULL, 0, 18},
      {"CG+AMG aggregation, 2-D Laplacian", L, SPS_SOLVER_CG, "amg.coarsening", 0, NULL, 0, 8},
      {"CG+AMG aggregation, nos3", N3, SPS_SOLVER_CG, "amg.coarsening", 0, NULL, 0, 22},
      {"CG+AMG V-cycle, 2-D Laplacian, coarse size 10", L, SPS_SOLVER_CG, "amg.coarse_size", 10,
       NULL, 0, 7},
      {"CG+AMG W-cycle, 2-D Laplacian, coarse size 10", L, SPS_SOLVER_CG, "amg.cycle", 2,
       "amg.coarse_size", 10, 7},
      {"CG+AMG F-cycle, 2-D Laplacian, coarse size 10", L, SPS_SOLVER_CG, "amg.cycle", 3,
       "amg.coarse_size", 10, 7},
      {"CG+AMG l1-Jacobi, nos3", N3, SPS_SOLVER_CG, "amg.smoother", 1, NULL, 0, 32},
      {"CG+AMG Gauss-Seidel, nos3", N3, SPS_SOLVER_CG, "amg.smoother", 2, NULL, 0, 19},
      {"CG+AMG Gauss-Seidel, 2-D Laplacian", L, SPS_SOLVER_CG, "amg.smoother", 2, NULL, 0, 7},
      {"CG+AMG aggregation, Gauss-Seidel, nos3", N3, SPS_SOLVER_CG, "amg.coarsening", 0,
       "amg.smoother", 2, 26},
      {"CG+AMG aggressive, 2-D Laplacian", L, SPS_SOLVER_CG, "amg.aggressive", 1, NULL, 0, 8},
      {"CG+AMG filtered coarse operators, 2-D Laplacian", L, SPS_SOLVER_CG, "amg.filter", 0.02,
       NULL, 0, 7},
      {"CG+AMG aggregation, P truncated, nos3", N3, SPS_SOLVER_CG, "amg.coarsening", 0,
       "amg.interp_max", 3, 23},
      {"CG+AMG Chebyshev degree 1, nos3", N3, SPS_SOLVER_CG, "amg.cheby_degree", 1, NULL, 0, 25},
      {"CG+AMG one level, smoothed only (nos3 is above the dense limit)", N3, SPS_SOLVER_CG,
       "amg.levels", 1, NULL, 0, 47},
      {"CG+AMG one level, the dense inverse (2-D Laplacian 20 x 20)", S, SPS_SOLVER_CG,
       "amg.coarse_size", 400, NULL, 0, 1},
      {"CG+AMG, Neumann Laplacian (singular, consistent b)", Nm, SPS_SOLVER_CG, NULL, 0, NULL, 0,
       7},
      {"CG+AMG aggregation, Neumann Laplacian", Nm, SPS_SOLVER_CG, "amg.coarsening", 0, NULL, 0, 9},
      {"GMRES+AMG, convection-diffusion (nonsymmetric)", C, SPS_SOLVER_GMRES, NULL, 0, NULL, 0, 10},
      {"GMRES+AMG Gauss-Seidel, convection-diffusion (nonsymmetric colouring)", C, SPS_SOLVER_GMRES,
       "amg.smoother", 2, NULL, 0, 8},
      {"CG+AMG, -Laplacian (the solver negates)", Lneg, SPS_SOLVER_CG, NULL, 0, NULL, 0, 7},
      {"GMRES+AMG, -Laplacian (the hierarchy turns it around)", Lneg, SPS_SOLVER_GMRES, NULL, 0,
       NULL, 0, 7},
  };
  for (size_t k = 0; k < sizeof solves / sizeof solves[0]; k++) {
    if (!sps_case()) continue;
    check_solve(solves[k].name, solves[k].A, solves[k].type, solves[k].p1, solves[k].v1,
                solves[k].p2, solves[k].v2, solves[k].expected);
  }

  if (sps_case()) check_aggressive_default();
  if (sps_case()) check_bad_params();

  sps_matrix_destroy(&L);
  sps_matrix_destroy(&N3);
  sps_matrix_destroy(&Nm);
  sps_matrix_destroy(&C);
  sps_matrix_destroy(&Lneg);
  sps_matrix_destroy(&S);
  if (sps_context_destroy(&ctx)) sps_bail("context destroy: objects left alive");
  return sps_done();
}
