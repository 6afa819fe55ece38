/* select_bench.c: select-bench, how good the SpMV choice is: from select-sweep TSVs, the time of the configuration the library chooses, of CUSP's rule and of always-cuSPARSE over the best configuration, per matrix and in summary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../spmv/spmv_internal.h"
#include "bench_util.h"

static const char usage[] =
    "usage: select-bench [options] SWEEP.tsv [SWEEP2.tsv ...]\n"
    "Replays the library's SpMV choice (spmv/select.c) on the statistics of each matrix of\n"
    "select-sweep TSVs and prints, per matrix, the time of the chosen configuration, of spsolve's\n"
    "rule, of CUSP's mean-row-length rule (csr-vector, min(2^ceil(log2(floor(mean))), 32) threads\n"
    "per row, at least 2) and of cuSPARSE, each over the best configuration of the row; then their\n"
    "geometric mean and worst, and how many matrices the choice runs slower than cuSPARSE.\n"
    "  --cc CC          compute capability whose model chooses (default 90); without a model for it\n"
    "                   the library's rule chooses, and the output says so\n"
    "  --sets a,b       sets to report (default holdout,shared; also train)\n"
    "  --tsv FILE       also write the per-matrix table as TSV\n"
    "  --help           this text\n"
    "Markdown on stdout, for bench/results/ and doc/performance.md. Exit status 0, 1 when a TSV\n"
    "cannot be read, 2 for bad usage.\n";

#define MAX_CONFIGS 32
#define MAX_COLS 96

static const char *const stat_names[] = {
    "rows",        "cols",           "nnz",          "density",     "mean_len",  "min_len",
    "max_len",     "var_len",        "cv_len",       "empty_share", "over32_share",
    "over1024_share", "short_blocks", "long_blocks", "long_rows",   "col_distance",
    "windows_per_row", "stats_s"};
#define NSTATS ((int)(sizeof stat_names / sizeof stat_names[0]))

typedef struct row {
  char spec[256], set[16];
  sps_matrix_stats s;
  double t[MAX_CONFIGS]; /* NaN: no time */
} row;

typedef struct sweep {
  int nconfigs;
  char configs[MAX_CONFIGS][32];
  sps_spmv_config cfg[MAX_CONFIGS];
  row *rows;
  int nrows, cap;
  char device[256];
} sweep;

static int split(char *line, char **cells, int max)
{
  int n = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *p = line; n < max;) {
    cells[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    p = tab + 1;
  }
  return n;
}

/* "csr-vector-8" -> csr-vector, 8; "hyb" -> hyb, 0. */
static int parse_config(const char *name, sps_spmv_config *c)
{
  char buf[32];
  snprintf(buf, sizeof buf, "%s", name);
  c->tpr = 0;
  if (strncmp(buf, "csr-vector-", 11) == 0) {
    c->tpr = atoi(buf + 11);
    buf[10] = '\0';
  }
  return sps_spmv_kind_from_name(buf, &c->kind) != SPS_SUCCESS;
}

static int read_tsv(sweep *sw, const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "select-bench: cannot read %s\n", path);
    return 1;
  }
  static char line[1 << 16];
  int col_stat[NSTATS], col_spec = -1, col_set = -1, col_us[MAX_CONFIGS], have_header = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') {
      if (strncmp(line, "# device: ", 10) == 0 && !sw->device[0]) {
        snprintf(sw->device, sizeof sw->device, "%.200s", line + 10);
        sw->device[strcspn(sw->device, "\n")] = '\0';
      }
      continue;
    }
    char *cells[MAX_COLS];
    const int n = split(line, cells, MAX_COLS);
    if (!have_header) {
      int nc = 0;
      for (int k = 0; k < NSTATS; k++) col_stat[k] = -1;
      for (int j = 0; j < n; j++) {
        if (strcmp(cells[j], "spec") == 0) col_spec = j;
        if (strcmp(cells[j], "set") == 0) col_set = j;
        for (int k = 0; k < NSTATS; k++)
          if (strcmp(cells[j], stat_names[k]) == 0) col_stat[k] = j;
        if (strncmp(cells[j], "us_", 3) == 0 && nc < MAX_CONFIGS) {
          if (sw->nconfigs == 0 || nc >= sw->nconfigs) {
            snprintf(sw->configs[nc], sizeof sw->configs[nc], "%s", cells[j] + 3);
            if (parse_config(sw->configs[nc], &sw->cfg[nc])) {
              fprintf(stderr, "select-bench: %s: unknown configuration %s\n", path, cells[j]);
              fclose(f);
              return 1;
            }
          } else if (strcmp(sw->configs[nc], cells[j] + 3) != 0) {
            fprintf(stderr, "select-bench: %s: other configurations than the first TSV\n", path);
            fclose(f);
            return 1;
          }
          col_us[nc++] = j;
        }
      }
      if (col_spec < 0 || col_set < 0 || nc == 0 || (sw->nconfigs && nc != sw->nconfigs)) {
        fprintf(stderr, "select-bench: %s: not a select-sweep TSV with times\n", path);
        fclose(f);
        return 1;
      }
      for (int k = 0; k < NSTATS; k++)
        if (col_stat[k] < 0) {
          fprintf(stderr, "select-bench: %s: no column %s\n", path, stat_names[k]);
          fclose(f);
          return 1;
        }
      sw->nconfigs = nc;
      have_header = 1;
      continue;
    }
    if (sw->nrows == sw->cap) {
      int cap = sw->cap ? 2 * sw->cap : 512;
      row *r = realloc(sw->rows, (size_t)cap * sizeof *r);
      if (!r) {
        fclose(f);
        return 1;
      }
      sw->rows = r;
      sw->cap = cap;
    }
    row *r = &sw->rows[sw->nrows];
    memset(r, 0, sizeof *r);
    int bad = 0;
    for (int k = 0; k < NSTATS; k++) bad |= col_stat[k] >= n;
    for (int c = 0; c < sw->nconfigs; c++) bad |= col_us[c] >= n;
    if (bad || col_spec >= n || col_set >= n) continue;
    snprintf(r->spec, sizeof r->spec, "%s", cells[col_spec]);
    snprintf(r->set, sizeof r->set, "%s", cells[col_set]);
    double v[NSTATS];
    for (int k = 0; k < NSTATS; k++) v[k] = atof(cells[col_stat[k]]);
    r->s = (sps_matrix_stats){
        .rows = (int64_t)v[0],        .cols = (int64_t)v[1],          .nnz = (int64_t)v[2],
        .density = v[3],              .mean_len = v[4],               .min_len = (int64_t)v[5],
        .max_len = (int64_t)v[6],     .var_len = v[7],                .cv_len = v[8],
        .empty_share = v[9],          .over32_share = v[10],          .over1024_share = v[11],
        .short_blocks = (int64_t)v[12], .long_blocks = (int64_t)v[13], .long_rows = (int64_t)v[14],
        .col_distance = v[15],        .windows_per_row = v[16],       .seconds = v[17]};
    int any = 0;
    for (int c = 0; c < sw->nconfigs; c++) {
      const char *cell = cells[col_us[c]];
      r->t[c] = strcmp(cell, "-") == 0 ? NAN : atof(cell);
      any |= !isnan(r->t[c]);
    }
    if (any) sw->nrows++;
  }
  fclose(f);
  return 0;
}

static int config_index(const sweep *sw, sps_spmv_config c)
{
  for (int k = 0; k < sw->nconfigs; k++)
    if (sw->cfg[k].kind == c.kind && (c.kind != SPS_SPMV_CSR_VECTOR || sw->cfg[k].tpr == c.tpr))
      return k;
  return -1;
}

/* The configuration the library runs: the choice, else (setup failure) its ranking, else
 * csr-scalar, as plan_setup_auto does; -1 when none of them has a time. */
static int library_runs(const sweep *sw, const row *r, const sps_spmv_choice *c)
{
  int k = config_index(sw, (sps_spmv_config){c->kind, c->tpr});
  if (k >= 0 && !isnan(r->t[k])) return k;
  for (int j = 0; j < c->nranked; j++) {
    k = config_index(sw, c->ranked[j]);
    if (k >= 0 && !isnan(r->t[k])) return k;
  }
  k = config_index(sw, (sps_spmv_config){SPS_SPMV_CSR_SCALAR, 0});
  return k >= 0 && !isnan(r->t[k]) ? k : -1;
}

static int cusp_config(const sweep *sw, const row *r)
{
  const double m = floor(r->s.mean_len);
  int t = 2;
  if (m > 1) {
    t = 1;
    while (t < m && t < 32) t *= 2;
  }
  if (t < 2) t = 2;
  return config_index(sw, (sps_spmv_config){SPS_SPMV_CSR_VECTOR, t});
}

typedef struct summary {
  double logsum, worst;
  int n, missing;
} summary;

static void add(summary *s, double ratio)
{
  if (isnan(ratio)) {
    s->missing++;
    return;
  }
  s->logsum += log(ratio);
  if (ratio > s->worst) s->worst = ratio;
  s->n++;
}

static const char *sumfmt(char *buf, size_t len, const summary *s)
{
  if (s->n == 0)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.3f / %.2f%s", exp(s->logsum / s->n), s->worst, s->missing ? " *" : "");
  return buf;
}

int main(int argc, char **argv)
{
  int cc = 90;
  const char *sets = "holdout,shared", *tsv = NULL;
  static sweep sw;
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--cc") == 0 && v) {
      if (bench_parse_int(v, &cc)) {
        fprintf(stderr, "select-bench: bad --cc %s\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--sets") == 0 && v) {
      sets = v, i++;
    } else if (strcmp(a, "--tsv") == 0 && v) {
      tsv = v, i++;
    } else if (a[0] == '-') {
      fprintf(stderr, "select-bench: bad option %s\n%s", a, usage);
      return 2;
    } else {
      if (read_tsv(&sw, a)) return 1;
      nfiles++;
    }
  }
  if (nfiles == 0) {
    fprintf(stderr, "select-bench: no TSV given\n%s", usage);
    return 2;
  }
  FILE *ft = tsv ? fopen(tsv, "w") : NULL;
  if (tsv && !ft) {
    fprintf(stderr, "select-bench: cannot write %s\n", tsv);
    return 1;
  }
  const int have = sps_spmv_have_model(cc);
  printf("# select-bench (spsolve %s): the SpMV choice replayed on select-sweep data\n\n",
         sps_version());
  printf("Device of the sweep: %s. Chooser: %s.\n", sw.device[0] ? sw.device : "?",
         have ? "the model built in for this compute capability"
              : "no model for this compute capability is built in, so the 'chosen' column is "
                "spsolve's rule");
  printf("Each ratio is the time of a configuration over the best of the %d configurations timed "
         "on the matrix (1.000 = the best). CUSP: csr-vector with CUSP's threads per row for the "
         "mean row length. '>cusparse': the chosen configuration is slower than cuSPARSE.\n",
         sw.nconfigs);
  if (ft)
    fputs("set\tmatrix\tbest\tbest_us\tchosen\tchosen_ratio\trule\trule_ratio\tcusp\tcusp_ratio\t"
          "cusparse_ratio\tchosen_vs_cusparse\twhy\n",
          ft);
  char setbuf[256];
  snprintf(setbuf, sizeof setbuf, "%s", sets);
  for (char *save = NULL, *set = strtok_r(setbuf, ",", &save); set;
       set = strtok_r(NULL, ",", &save)) {
    summary sc = {0}, sr = {0}, su = {0}, ss = {0};
    int slower = 0, n = 0;
    printf("\n## %s\n\n| matrix | best | best µs | chosen | chosen/best | rule/best | CUSP/best | "
           "cuSPARSE/best |\n|---|---|---:|---|---:|---:|---:|---:|\n",
           set);
    for (int i = 0; i < sw.nrows; i++) {
      const row *r = &sw.rows[i];
      if (strcmp(r->set, set) != 0) continue;
      n++;
      int best = -1;
      for (int k = 0; k < sw.nconfigs; k++)
        if (!isnan(r->t[k]) && (best < 0 || r->t[k] < r->t[best])) best = k;
      sps_spmv_choice c, rc;
      sps_spmv_select_stats(&r->s, SPS_DEVICE_CUDA, cc, &c);
      sps_spmv_select_rule(&r->s, SPS_DEVICE_CUDA, &rc);
      const int kc = library_runs(&sw, r, &c), kr = library_runs(&sw, r, &rc),
                ku = cusp_config(&sw, r),
                ks = config_index(&sw, (sps_spmv_config){SPS_SPMV_CUSPARSE, 0});
      const double tb = r->t[best];
      const double rcho = kc >= 0 ? r->t[kc] / tb : NAN, rrule = kr >= 0 ? r->t[kr] / tb : NAN,
                   rcusp = ku >= 0 ? r->t[ku] / tb : NAN, rcus = ks >= 0 ? r->t[ks] / tb : NAN;
      add(&sc, rcho);
      add(&sr, rrule);
      add(&su, rcusp);
      add(&ss, rcus);
      if (!isnan(rcho) && !isnan(rcus) && rcho > rcus) slower++;
      char a[32], b[32], d[32], e[32];
      printf("| %s | %s | %.2f | %s | %s | %s | %s | %s |\n", r->spec, sw.configs[best], tb,
             kc >= 0 ? sw.configs[kc] : "-", bench_fmt(a, sizeof a, "%.3f", rcho),
             bench_fmt(b, sizeof b, "%.3f", rrule), bench_fmt(d, sizeof d, "%.3f", rcusp),
             bench_fmt(e, sizeof e, "%.3f", rcus));
      if (ft)
        fprintf(ft, "%s\t%s\t%s\t%.3f\t%s\t%.4f\t%s\t%.4f\t%s\t%.4f\t%.4f\t%.4f\t%s\n", set, r->spec,
                sw.configs[best], tb, kc >= 0 ? sw.configs[kc] : "-", rcho,
                kr >= 0 ? sw.configs[kr] : "-", rrule, ku >= 0 ? sw.configs[ku] : "-", rcusp, rcus,
                rcus / rcho, c.why);
    }
    char a[64], b[64], d[64], e[64];
    printf("\n%s, %d matrices: time over the best, geometric mean / worst: chosen %s, rule %s, "
           "CUSP %s, cuSPARSE %s; the chosen configuration is slower than cuSPARSE on %d.%s\n",
           set, n, sumfmt(a, sizeof a, &sc), sumfmt(b, sizeof b, &sr), sumfmt(d, sizeof d, &su),
           sumfmt(e, sizeof e, &ss), slower,
           sc.missing + sr.missing + su.missing + ss.missing
               ? " (*: some matrices have no time for that column and are left out)"
               : "");
  }
  if (ft) fclose(ft);
  free(sw.rows);
  return 0;
}
