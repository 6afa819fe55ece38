/* compensated_sum.c: the compensated sums of core/compensated_sum.h give the same double whatever the order and the tree of their additions. */
#include <stdint.h>

#include "compensated_sum.h"
#include "testlib.h"

#define NTERMS 2000
#define NORDERS 200

static double plain_sum(const double *t, int n)
{
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += t[k];
  return s;
}

static double csum_of(const double *t, int n)
{
  sps_csum s = sps_csum_zero();
  for (int k = 0; k < n; k++)
    sps_csum_add(&s, t[k]);
  return sps_csum_value(s);
}

/* The terms in nchunks consecutive chunks, each summed on its own, merged in a random order:
 * the shape of a parallel reduction. */
static double csum_tree(const double *t, int n, int nchunks, sps_rng *rng)
{
  sps_csum part[64];
  int order[64];
  for (int c = 0; c < nchunks; c++) {
    const int lo = (int)((int64_t)n * c / nchunks), hi = (int)((int64_t)n * (c + 1) / nchunks);
    part[c] = sps_csum_zero();
    for (int k = lo; k < hi; k++)
      sps_csum_add(&part[c], t[k]);
    order[c] = c;
  }
  for (int c = nchunks - 1; c > 0; c--) {
    const int j = (int)(sps_rng_next(rng) % (uint64_t)(c + 1));
    const int tmp = order[c];
    order[c] = order[j];
    order[j] = tmp;
  }
  sps_csum s = sps_csum_zero();
  for (int c = 0; c < nchunks; c++)
    sps_csum_merge(&s, part[order[c]]);
  return sps_csum_value(s);
}

static void shuffle(double *t, int n, sps_rng *rng)
{
  for (int k = n - 1; k > 0; k--) {
    const int j = (int)(sps_rng_next(rng) % (uint64_t)(k + 1));
    const double tmp = t[k];
    t[k] = t[j];
    t[j] = tmp;
  }
}

int main(void)
{
  /* Cancellation that a plain sum loses entirely. */
  const double c3[3] = {1e16, 1.0, -1e16};
  sps_ok(csum_of(c3, 3) == 1.0 && plain_sum(c3, 3) != 1.0,
         "1e16 + 1 - 1e16: compensated %.17g (plain %.17g)", csum_of(c3, 3), plain_sum(c3, 3));

  /* Terms of magnitudes 1e-8 .. 1e8, mixed signs, each large one cancelled later by its
   * negation: a sum much smaller than its terms, as in an ill-conditioned dot product. */
  sps_rng rng = {0x1234abcdull};
  static double t[NTERMS];
  for (int k = 0; k < NTERMS / 2; k++) {
    const double mag = pow(10.0, 16.0 * sps_rng_uniform(&rng) * 0.5);
    const double v = mag * sps_rng_uniform(&rng);
    t[2 * k] = v;
    t[2 * k + 1] = k % 3 == 0 ? -v * (1.0 + 1e-9 * sps_rng_uniform(&rng)) : 1e-3 * v;
  }
  const double ref = csum_of(t, NTERMS);
  int csum_diff = 0, tree_diff = 0, plain_diff = 0;
  const double plain_ref = plain_sum(t, NTERMS);
  for (int o = 0; o < NORDERS; o++) {
    shuffle(t, NTERMS, &rng);
    if (csum_of(t, NTERMS) != ref) csum_diff++;
    const int nchunks = 1 + (int)(sps_rng_next(&rng) % 64);
    if (csum_tree(t, NTERMS, nchunks, &rng) != ref) tree_diff++;
    if (plain_sum(t, NTERMS) != plain_ref) plain_diff++;
  }
  sps_diag("sum %.17g; plain sums differed from the first order in %d of %d orders", ref,
           plain_diff, NORDERS);
  sps_ok(plain_diff > 0, "the data are order-sensitive for a plain sum (%d of %d orders differ)",
         plain_diff, NORDERS);
  sps_ok(csum_diff == 0, "compensated sum in %d shuffled orders: %d differ", NORDERS, csum_diff);
  sps_ok(tree_diff == 0, "compensated sum in %d random merge trees: %d differ", NORDERS,
         tree_diff);

  /* The ordered (Fast2Sum) addition of the csr-scalar kernel: the same bits as TwoSum. */
  sps_csum sa = sps_csum_zero(), so = sps_csum_zero();
  int ordered_diff = 0;
  for (int k = 0; k < NTERMS; k++) {
    sps_csum_add(&sa, t[k]);
    sps_csum_add_ordered(&so, t[k]);
    if (sa.hi != so.hi || sa.lo != so.lo) ordered_diff++;
  }
  sps_ok(ordered_diff == 0, "ordered and TwoSum additions agree in hi and lo after each of %d terms "
         "(%d differ)", NTERMS, ordered_diff);

#ifdef __SIZEOF_FLOAT128__
  /* Against a sum in binary128 (113-bit significand): within one ulp of it. */
  __float128 q = 0;
  for (int k = 0; k < NTERMS; k++)
    q += (__float128)t[k];
  const double qd = (double)q;
  sps_ok(fabs(ref - qd) <= nextafter(fabs(qd), INFINITY) - fabs(qd),
         "compensated %.17g against the binary128 sum %.17g", ref, qd);
#endif

  /* Overflow and NaN come out as a plain sum gives them. */
  const double inf3[3] = {1.0, INFINITY, 2.0}, nan3[3] = {1.0, NAN, 2.0};
  const double big[3] = {1.7e308, 1.7e308, -1.0};
  sps_ok(csum_of(inf3, 3) == INFINITY, "a sum with +Inf is +Inf (%g)", csum_of(inf3, 3));
  sps_ok(isnan(csum_of(nan3, 3)), "a sum with NaN is NaN (%g)", csum_of(nan3, 3));
  sps_ok(csum_of(big, 3) == INFINITY, "an overflowing sum is +Inf (%g)", csum_of(big, 3));
  return sps_done();
}
