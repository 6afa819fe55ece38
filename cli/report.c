/* report.c: spsolve's text report and its JSON object, and the matrix statistics of --verbose. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

void cli_matrix_stats_compute(const int64_t *rowptr, int64_t nrows, const char *path,
                              cli_matrix_stats *s)
{
  s->min_row = 0;
  s->max_row = 0;
  s->empty_rows = 0;
  s->mean_row = 0.0;
  for (int64_t i = 0; i < nrows; i++) {
    int64_t len = rowptr[i + 1] - rowptr[i];
    if (i == 0 || len < s->min_row) s->min_row = len;
    if (len > s->max_row) s->max_row = len;
    if (len == 0) s->empty_rows++;
  }
  if (nrows > 0) s->mean_row = (double)rowptr[nrows] / (double)nrows;
  struct stat sb;
  s->file_bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

const char *cli_symmetry_name(sps_symmetry sym)
{
  switch (sym) {
  case SPS_SYMMETRY_GENERAL:
    return "general";
  case SPS_SYMMETRY_SYMMETRIC:
    return "symmetric";
  case SPS_SYMMETRY_SKEW:
    return "skew-symmetric";
  case SPS_SYMMETRY_UNKNOWN:
    break;
  }
  return "unknown";
}

static const char *rhs_name(cli_rhs_kind rhs)
{
  switch (rhs) {
  case CLI_RHS_SOLUTION:
    return "A*x* (random x*)";
  case CLI_RHS_ONES:
    return "ones";
  case CLI_RHS_RANDOM:
    return "random";
  case CLI_RHS_FILE:
    break;
  }
  return "file";
}

/* Seconds per iteration, NaN when there was no iteration. */
static double per_iteration(const cli_report *r)
{
  return r->iterations > 0 ? r->t_solve / r->iterations : NAN;
}

/* Flexible GMRES is in force: asked for, GMRES, and a preconditioner (the library ignores it without one). */
static int cli_report_flexible(const cli_report *r)
{
  return r->solver == SPS_SOLVER_GMRES && r->opt->flexible && r->precond != SPS_PRECOND_NONE;
}

/*
 * The multigrid hierarchy, as BoomerAMG's setup summary gives it: per level the rows, the
 * entries, entries per row and the setup's time on it; the setup's time by phase; the grid
 * and operator complexities (the sums of the levels' rows and entries over A's); the smoother
 * and the coarsest level's solve.
 */
static void cli_report_amg_text(FILE *out, const sps_precond_info *pi)
{
  fprintf(out, "  coarsening    %s\n",
          pi->amg_coarsening ? "classical: PMIS C/F splitting, extended+i interpolation"
                             : "smoothed aggregation: MIS(2) aggregates, Jacobi-smoothed P");
  fprintf(out, "  hierarchy     %d level%s, grid complexity %.3f, operator complexity %.3f\n",
          pi->amg_levels, pi->amg_levels == 1 ? "" : "s", pi->amg_grid_complexity,
          pi->amg_operator_complexity);
  fprintf(out, "  %-5s %12s %14s %9s %10s\n", "level", "rows", "nonzeros", "nnz/row", "setup ms");
  for (int l = 0; l < pi->amg_levels && l < SPS_AMG_MAX_LEVELS; l++)
    fprintf(out, "  %-5d %12lld %14lld %9.1f %10.2f\n", l, (long long)pi->amg_rows[l],
            (long long)pi->amg_nnz[l],
            pi->amg_rows[l] ? (double)pi->amg_nnz[l] / (double)pi->amg_rows[l] : 0.0,
            1e3 * pi->amg_level_seconds[l]);
  /* the setup's time by phase, as AMGX's and BoomerAMG's setup summaries give it */
  fputs("  setup ms     ", out);
  for (int k = 0; k < SPS_AMG_SETUP_PHASES; k++)
    fprintf(out, "%s %s %.2f", k ? "," : "", sps_amg_setup_phase_name(k),
            1e3 * pi->amg_setup_seconds[k]);
  fputc('\n', out);
  if (pi->degree)
    fprintf(out,
            "  smoother      Chebyshev of degree %d in D^-1 A on [%.3g, %.3g] (finest level)\n",
            pi->degree, pi->eig_min, pi->eig_max);
  else if (pi->amg_smoother == 2)
    fprintf(out, "  smoother      symmetric multicolour Gauss-Seidel (%d colours on the finest level)\n",
            pi->colors);
  else
    fprintf(out, "  smoother      l1-Jacobi\n");
  if (pi->amg_coarse_nnz)
    fprintf(out, "  coarsest      dense inverse, %lld entries%s\n", (long long)pi->amg_coarse_nnz,
            pi->replaced_pivots ? " (singular: a generalised inverse)" : "");
  else
    fprintf(out, "  coarsest      smoothed only (too large for the dense inverse)\n");
}

/* The preconditioner's line, what it did at setup, and the tries of the automatic choice. */
static void cli_report_precond_text(FILE *out, const cli_report *r)
{
  const sps_precond_info *pi = &r->pcinfo;
  fprintf(out, "preconditioner  %s%s\n", sps_precond_type_name(r->precond),
          r->opt->precond == SPS_PRECOND_AUTO ? " (chosen automatically)" : "");
  if (pi->negated) fprintf(out, "  negated       solved as (-A) x = -b (A has a negative diagonal)\n");
  if (pi->matched)
    fprintf(out, "  reordering    matching%s: %lld rows moved to put large entries on the diagonal\n",
            pi->scaled ? " and scaling" : "", (long long)pi->permuted_rows);
  else if (pi->scaled)
    fprintf(out, "  reordering    scaling: rows and columns equilibrated\n");
  if (pi->amg_levels) cli_report_amg_text(out, pi);
  if (pi->nnz_factors)
    fprintf(out, "  factors       %lld entries, %d + %d level sets%s\n", (long long)pi->nnz_factors,
            pi->levels_lower, pi->levels_upper, pi->colors ? " (multicolor order)" : "");
  if (pi->colors && !pi->amg_levels) fprintf(out, "  ordering      multicolor, %d colors\n", pi->colors);
  if (pi->replaced_pivots && !pi->amg_levels)
    fprintf(out, "  pivots        %lld small or zero pivots replaced\n", (long long)pi->replaced_pivots);
  if (pi->pivot_swaps) fprintf(out, "  pivoting      %lld column swaps\n", (long long)pi->pivot_swaps);
  if (pi->shift > 0.0)
    fprintf(out, "  shift         A + %g diag(A) (%d factorisations tried)\n", pi->shift,
            pi->shift_tries);
  if (pi->block_size) fprintf(out, "  blocks        %d rows each\n", pi->block_size);
  if (pi->degree && !pi->amg_levels)
    fprintf(out, "  polynomial    degree %d on [%.3g, %.3g]\n", pi->degree, pi->eig_min, pi->eig_max);
  if (r->attempt_count > 1 || r->opt->verbose)
    for (int k = 0; k < r->attempt_count; k++) {
      const sps_solver_attempt *a = &r->attempts[k];
      fprintf(out, "  try %-2d        %s%s\n", k + 1, a->note, a->accepted ? " [used]" : "");
    }
}

/*
 * --verbose: why the SpMV variant was chosen: the reasoning, and for tune the table of the
 * candidates timed (or stored with the cache entry), the cost and the cache entry.
 */
static void cli_report_spmv_text(FILE *out, const sps_spmv_choice_info *ci)
{
  fprintf(out, "  why           %s\n", ci->why);
  if (ci->requested != SPS_SPMV_TUNE) return;
  if (ci->source == SPS_SPMV_SOURCE_TUNE)
    fprintf(out, "  tuning        %d candidates timed in %.3f s (%.0f SpMV-equivalents)\n",
            ci->timed, ci->tune_seconds, ci->tune_spmv_equivalents);
  else
    fprintf(out, "  tuning        none: cache lookup in %.3f s; the table as measured then:\n",
            ci->tune_seconds);
  for (int k = 0; k < ci->candidate_count; k++) {
    const sps_spmv_candidate *c = &ci->candidates[k];
    char name[64];
    if (c->kind == SPS_SPMV_CSR_VECTOR)
      snprintf(name, sizeof name, "%s/%d", sps_spmv_kind_name(c->kind), c->threads_per_row);
    else
      snprintf(name, sizeof name, "%s", sps_spmv_kind_name(c->kind));
    const int used = c->kind == ci->kind && c->threads_per_row == ci->threads_per_row &&
                     c->status == SPS_SUCCESS;
    if (c->status == SPS_SUCCESS)
      fprintf(out, "  candidate     %-14s %12.3f us  %s%s\n", name, 1e6 * c->seconds, c->note,
              used ? "  [used]" : "");
    else
      fprintf(out, "  candidate     %-14s %12s     %s (%s)\n", name, "-", c->note,
              sps_status_name(c->status));
  }
  if (ci->cache_file[0])
    fprintf(out, "  cache         %s: %s\n", ci->cache_note, ci->cache_file);
  else
    fprintf(out, "  cache         %s\n", ci->cache_note[0] ? ci->cache_note : "off");
}

/* A distributed run: the ranks, the partition and where the time went. */
static void cli_report_dist_text(FILE *out, const cli_report *r)
{
  const cli_dist *d = r->dist;
  fprintf(out, "ranks           %d (%s partition, %s)\n", d->ranks, d->partition,
          !strcmp(d->read, "each") ? "every rank read its rows" : "rank 0 read A and sent the rows");
  fprintf(out, "  rows/rank     %lld .. %lld (imbalance %.3f), entries %lld .. %lld (imbalance %.3f)\n",
          (long long)d->rows_min, (long long)d->rows_max, d->imbalance_rows,
          (long long)d->nnz_min, (long long)d->nnz_max, d->imbalance_nnz);
  fprintf(out, "  halo          %lld entries of x a product (at most %lld a rank, %d neighbours); "
               "%lld entries couple ranks\n",
          (long long)d->halo_total, (long long)d->halo_max, d->neighbors_max, (long long)d->cut_nnz);
  fprintf(out, "  overlap       %.0f%% of a rank's rows (the least) are multiplied while the halo "
               "travels\n",
          100.0 * d->overlap_min);
  fprintf(out, "  communication %.4f s, %.1f%% of the solve (the most of a rank; each part the "
               "most of a rank): halo start %.4f s, wait %.4f s, reductions %.4f s\n",
          d->comm_max, r->t_solve > 0.0 ? 100.0 * d->comm_max / r->t_solve : 0.0, d->halo_start,
          d->halo_wait, d->reduce);
  fprintf(out, "  products      rows free of the halo %.4f s, boundary rows %.4f s (the most of "
               "a rank); %lld halo exchanges over %s, %lld reductions over %s on rank 0%s\n",
          d->spmv_local, d->spmv_boundary, (long long)d->halo_exchanges,
          d->halo_via ? d->halo_via : "mpi", (long long)d->reductions,
          d->reduce_via ? d->reduce_via : "mpi", d->cuda_aware ? " (CUDA-aware MPI)" : "");
  if (d->timeline_path)
    fprintf(out, "  timeline      %s (%lld events)\n", d->timeline_path, (long long)d->timeline_events);
}

/* The reason as the report words it: "converged: ...", "not converged: ...", "interrupted". */
static void reason_words(FILE *out, sps_reason reason)
{
  fprintf(out, "%s%s (%s)",
          reason > 0 || reason == SPS_INTERRUPTED ? "" : "not converged: ",
          reason == SPS_INTERRUPTED ? "interrupted: Ctrl-C stopped the solve"
                                    : sps_reason_string(reason),
          sps_reason_name(reason));
}

/*
 * Many right-hand sides: how they were solved, the totals (the largest residual and error,
 * the most and the sum of the iterations, the columns that converged), then one line per
 * column.
 */
static void cli_report_many_text(FILE *out, const cli_report *r)
{
  const sps_many_report *m = &r->many_report;
  fprintf(out, "columns         %lld, %s\n", (long long)r->nrhs, m->note);
  fprintf(out, "iterations      max %d, total %lld\n", m->max_iterations,
          (long long)m->total_iterations);
  fprintf(out, "reason          %lld of %lld converged", (long long)m->converged, (long long)r->nrhs);
  if (m->converged < r->nrhs) {
    fputs("; the first other: ", out);
    reason_words(out, r->reason);
  }
  fputc('\n', out);
  fprintf(out, "residual        max %.3e  true ||b_j - Ax_j||/||b_j||\n", m->max_residual_rel);
  if (r->have_error) fprintf(out, "error           max %.3e  ||x_j - x*_j||/||x*_j||\n", r->error);
  fprintf(out, "time            load %.6f s, setup %.6f s, solve %.6f s\n", r->t_load, r->t_setup,
          r->t_solve);
  if (r->nrhs > 0) fprintf(out, "time/column     %.3e s\n", r->t_solve / (double)r->nrhs);
  fprintf(out, "%-7s %-28s %10s %12s %12s\n", "column", "reason", "iterations", "residual",
          r->have_error ? "error" : "");
  for (int64_t j = 0; j < r->nrhs; j++) {
    const sps_column_report *c = &r->columns[j];
    char reason[64];
    snprintf(reason, sizeof reason, "%s%s", sps_reason_name(c->reason), c->resolved ? " *" : "");
    fprintf(out, "%-7lld %-28s %10d %12.3e", (long long)j, reason, c->iterations, c->residual_rel);
    if (r->have_error) fprintf(out, " %12.3e", r->column_error[j]);
    fputc('\n', out);
  }
  for (int64_t j = 0; j < r->nrhs; j++)
    if (r->columns[j].resolved) {
      fputs("* not converged in the batch: solved again alone by the automatic choice\n", out);
      break;
    }
}

void cli_report_text(FILE *out, const cli_report *r)
{
  const cli_options *o = r->opt;
  fprintf(out, "matrix          %s\n", o->matrix_path);
  fprintf(out, "size            %lld x %lld, %lld nonzeros\n", (long long)r->nrows,
          (long long)r->ncols, (long long)r->nnz);
  if (o->verbose) {
    const cli_matrix_stats *s = &r->stats;
    fprintf(out, "nonzeros/row    min %lld, mean %.2f, max %lld; %lld empty rows\n",
            (long long)s->min_row, s->mean_row, (long long)s->max_row, (long long)s->empty_rows);
    fprintf(out, "symmetry        %s%s\n", cli_symmetry_name(r->symmetry),
            r->symmetry_checked ? " (checked numerically)" : " (declared by the file)");
    if (s->file_bytes >= 0) fprintf(out, "file size       %lld bytes\n", s->file_bytes);
  }
  if (r->many && o->rhs == CLI_RHS_FILE)
    fprintf(out, "rhs             %s (%lld columns)\n", o->rhs_path, (long long)r->nrhs);
  else if (r->many)
    fprintf(out, "rhs             %lld columns: %s (seeds %llu to %llu)\n", (long long)r->nrhs,
            o->rhs == CLI_RHS_SOLUTION ? "A*x*_j, random x*_j"
            : o->rhs == CLI_RHS_RANDOM ? "random"
                                       : "ones",
            (unsigned long long)o->seed, (unsigned long long)(o->seed + (uint64_t)r->nrhs - 1));
  else if (o->rhs == CLI_RHS_FILE)
    fprintf(out, "rhs             %s\n", o->rhs_path);
  else
    fprintf(out, "rhs             %s\n", rhs_name(o->rhs));
  if (o->x0_path) fprintf(out, "x0              %s\n", o->x0_path);
  fprintf(out, "device          %s\n", r->device);
  if (r->dist) cli_report_dist_text(out, r);
  fprintf(out, "solver          %s", sps_solver_type_name(r->solver));
  if (r->solver == SPS_SOLVER_GMRES) {
    fprintf(out, "(%d)%s", r->restart, cli_report_flexible(r) ? ", flexible" : "");
    if (r->restart < o->restart) fprintf(out, " (restart %d capped at n)", o->restart);
  }
  if (r->solver == SPS_SOLVER_CG && o->pipelined) fputs(" (pipelined)", out);
  if (r->opt->solver == CLI_SOLVER_AUTO) fputs(" (chosen automatically)", out);
  fprintf(out, ", rtol %g, atol %g, dtol %g, maxit %d\n", o->rtol, o->atol, o->dtol, o->maxit);
  cli_report_precond_text(out, r);
  fprintf(out, "spmv            %s", sps_spmv_kind_name(r->spmv));
  if (r->threads_per_row > 1) fprintf(out, " (%d threads per row)", r->threads_per_row);
  const sps_spmv_choice_info *ci = &r->spmv_choice;
  if (ci->source != SPS_SPMV_SOURCE_USER && ci->source != SPS_SPMV_SOURCE_NONE)
    fprintf(out, " (chosen by %s)", sps_spmv_source_name(ci->source));
  fputc('\n', out);
  if (o->verbose) cli_report_spmv_text(out, ci);
  if (r->many) {
    cli_report_many_text(out, r);
    return;
  }
  fprintf(out, "iterations      %d\n", r->iterations);
  /* the converged reasons' descriptions already begin with "converged:", the interrupted
   * one with "interrupted:" */
  fprintf(out, "reason          %s%s (%s)\n",
          r->reason > 0 || r->reason == SPS_INTERRUPTED ? "" : "not converged: ",
          r->reason == SPS_INTERRUPTED ? "interrupted: Ctrl-C stopped the solve"
                                       : sps_reason_string(r->reason),
          sps_reason_name(r->reason));
  fprintf(out, "residual        %.3e  true ||b - Ax||/||b|| (||b - Ax|| = %.3e)\n", r->residual_rel,
          r->residual_abs);
  if (r->have_error) fprintf(out, "error           %.3e  ||x - x*||/||x*||\n", r->error);
  fprintf(out, "time            load %.6f s, setup %.6f s, solve %.6f s\n", r->t_load, r->t_setup,
          r->t_solve);
  if (r->iterations > 0) fprintf(out, "time/iteration  %.3e s\n", per_iteration(r));
}

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when the bytes are not one. */
static int utf8_length(const unsigned char *p)
{
  int len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
  if (p[0] > 0xf4) len = 0;
  for (int k = 1; k < len; k++)
    if ((p[k] & 0xc0) != 0x80) return 0;
  if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0;
  if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0;
  return len;
}

/*
 * A JSON string: quotes, backslashes and control characters escaped, valid UTF-8 as it is,
 * and any other byte (a file name or a token of a binary file) as U+FFFD, so the output is
 * always valid JSON.
 */
static void json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      fputc('\\', out);
      fputc(*p, out);
    } else if (*p == '\n') {
      fputs("\\n", out);
    } else if (*p == '\t') {
      fputs("\\t", out);
    } else if (*p < 0x20 || *p == 0x7f) {
      fprintf(out, "\\u%04x", *p);
    } else if (*p >= 0x80) {
      int len = utf8_length(p);
      if (len) {
        fwrite(p, 1, (size_t)len, out);
        p += len - 1;
      } else {
        fputs("\\ufffd", out);
      }
    } else {
      fputc(*p, out);
    }
  }
  fputc('"', out);
}

/* A JSON number with 17 significant digits; NaN and Inf have no JSON spelling: null. */
static void json_number(FILE *out, double v)
{
  if (isfinite(v))
    fprintf(out, "%.17g", v);
  else
    fputs("null", out);
}

static void json_key(FILE *out, const char *key)
{
  fputs(",\n  ", out);
  json_string(out, key);
  fputs(": ", out);
}

/* Many right-hand sides: the totals, how they were solved, and one object per column. */
static void cli_report_many_json(FILE *out, const cli_report *r)
{
  const sps_many_report *m = &r->many_report;
  static const char *const modes[] = {"none", "batched", "block-cg", "one-by-one"};
  json_key(out, "nrhs");
  fprintf(out, "%lld", (long long)r->nrhs);
  json_key(out, "columns_converged");
  fprintf(out, "%lld", (long long)m->converged);
  json_key(out, "iterations_total");
  fprintf(out, "%lld", (long long)m->total_iterations);
  json_key(out, "residual_rel_max");
  json_number(out, m->max_residual_rel);
  json_key(out, "solve_many_mode");
  json_string(out, (int)m->mode >= 0 && (int)m->mode < 4 ? modes[m->mode] : "none");
  json_key(out, "solve_many_note");
  json_string(out, m->note);
  json_key(out, "block_width");
  fprintf(out, "%d", m->block_width);
  json_key(out, "columns");
  fputc('[', out);
  for (int64_t j = 0; j < r->nrhs; j++) {
    const sps_column_report *c = &r->columns[j];
    fprintf(out, "%s{\"column\": %lld, \"reason\": ", j ? ",\n    " : "\n    ", (long long)j);
    json_string(out, sps_reason_name(c->reason));
    fprintf(out, ", \"converged\": %s, \"iterations\": %d, \"residual_abs\": ",
            c->reason > 0 ? "true" : "false", c->iterations);
    json_number(out, c->residual_abs);
    fputs(", \"residual_rel\": ", out);
    json_number(out, c->residual_rel);
    fputs(", \"error\": ", out);
    if (r->have_error)
      json_number(out, r->column_error[j]);
    else
      fputs("null", out);
    fprintf(out, ", \"resolved\": %s", c->resolved ? "true" : "false");
    if (r->opt->history) {
      fputs(", \"history\": [", out);
      for (int i = 0; i < c->history_count; i++) {
        if (i) fputs(", ", out);
        json_number(out, c->history[i]);
      }
      fputc(']', out);
    }
    fputc('}', out);
  }
  fputs(r->nrhs ? "\n  ]" : "]", out);
}

void cli_report_json(FILE *out, const cli_report *r)
{
  const cli_options *o = r->opt;
  fputs("{\n  \"matrix\": ", out);
  json_string(out, o->matrix_path);
  json_key(out, "rows");
  fprintf(out, "%lld", (long long)r->nrows);
  json_key(out, "cols");
  fprintf(out, "%lld", (long long)r->ncols);
  json_key(out, "nnz");
  fprintf(out, "%lld", (long long)r->nnz);
  json_key(out, "symmetry");
  json_string(out, cli_symmetry_name(r->symmetry));
  json_key(out, "symmetry_checked");
  fputs(r->symmetry_checked ? "true" : "false", out);
  if (o->verbose) {
    const cli_matrix_stats *s = &r->stats;
    json_key(out, "nnz_per_row");
    fprintf(out, "{\"min\": %lld, \"mean\": ", (long long)s->min_row);
    json_number(out, s->mean_row);
    fprintf(out, ", \"max\": %lld}", (long long)s->max_row);
    json_key(out, "empty_rows");
    fprintf(out, "%lld", (long long)s->empty_rows);
    json_key(out, "file_bytes");
    if (s->file_bytes >= 0)
      fprintf(out, "%lld", s->file_bytes);
    else
      fputs("null", out);
  }
  json_key(out, "rhs");
  json_string(out, o->rhs == CLI_RHS_SOLUTION ? "solution"
                   : o->rhs == CLI_RHS_ONES   ? "ones"
                   : o->rhs == CLI_RHS_RANDOM ? "random"
                                              : "file");
  json_key(out, "rhs_file");
  if (o->rhs == CLI_RHS_FILE)
    json_string(out, o->rhs_path);
  else
    fputs("null", out);
  json_key(out, "x0_file");
  if (o->x0_path)
    json_string(out, o->x0_path);
  else
    fputs("null", out);
  json_key(out, "seed");
  fprintf(out, "%llu", (unsigned long long)o->seed);
  json_key(out, "device");
  json_string(out, r->device);
  json_key(out, "solver");
  json_string(out, sps_solver_type_name(r->solver));
  json_key(out, "solver_requested");
  json_string(out, o->solver == CLI_SOLVER_AUTO ? "auto" : sps_solver_type_name((sps_solver_type)o->solver));
  json_key(out, "precond");
  json_string(out, sps_precond_type_name(r->precond));
  json_key(out, "precond_requested");
  json_string(out, sps_precond_type_name(o->precond));
  {
    const sps_precond_info *pi = &r->pcinfo;
    json_key(out, "precond_info");
    fprintf(out, "{\"matched\": %s, \"scaled\": %s, \"negated\": %s, \"permuted_rows\": %lld, "
                 "\"unmatched_rows\": %lld, \"replaced_pivots\": %lld, \"pivot_swaps\": %lld, "
                 "\"shift\": ",
            pi->matched ? "true" : "false", pi->scaled ? "true" : "false",
            pi->negated ? "true" : "false", (long long)pi->permuted_rows,
            (long long)pi->unmatched_rows, (long long)pi->replaced_pivots,
            (long long)pi->pivot_swaps);
    json_number(out, pi->shift);
    fprintf(out, ", \"shift_tries\": %d, \"nnz_factors\": %lld, \"levels_lower\": %d, "
                 "\"levels_upper\": %d, \"colors\": %d, \"growth\": ",
            pi->shift_tries, (long long)pi->nnz_factors, pi->levels_lower, pi->levels_upper,
            pi->colors);
    json_number(out, pi->growth);
    fprintf(out, ", \"block_size\": %d, \"degree\": %d, \"eig_min\": ", pi->block_size, pi->degree);
    json_number(out, pi->eig_min);
    fputs(", \"eig_max\": ", out);
    json_number(out, pi->eig_max);
    if (pi->amg_levels) {
      fputs(", \"amg\": {\"levels\": [", out);
      for (int l = 0; l < pi->amg_levels && l < SPS_AMG_MAX_LEVELS; l++) {
        fprintf(out, "%s{\"rows\": %lld, \"nnz\": %lld, \"setup_seconds\": ", l ? ", " : "",
                (long long)pi->amg_rows[l], (long long)pi->amg_nnz[l]);
        json_number(out, pi->amg_level_seconds[l]);
        fputc('}', out);
      }
      fputs("], \"setup_seconds\": {", out);
      for (int k = 0; k < SPS_AMG_SETUP_PHASES; k++) {
        fprintf(out, "%s\"%s\": ", k ? ", " : "", sps_amg_setup_phase_name(k));
        json_number(out, pi->amg_setup_seconds[k]);
      }
      fputs("}, \"grid_complexity\": ", out);
      json_number(out, pi->amg_grid_complexity);
      fputs(", \"operator_complexity\": ", out);
      json_number(out, pi->amg_operator_complexity);
      fprintf(out, ", \"coarse_nnz\": %lld, \"coarsening\": \"%s\", \"smoother\": \"%s\"}",
              (long long)pi->amg_coarse_nnz, pi->amg_coarsening ? "classical" : "aggregation",
              pi->amg_smoother == 2 ? "mcgs" : pi->amg_smoother == 1 ? "l1jacobi" : "cheby");
    }
    fputc('}', out);
  }
  json_key(out, "attempts");
  fputc('[', out);
  for (int k = 0; k < r->attempt_count; k++) {
    const sps_solver_attempt *a = &r->attempts[k];
    fputs(k ? ",\n    {" : "\n    {", out);
    fputs("\"solver\": ", out);
    json_string(out, sps_solver_type_name(a->method));
    fputs(", \"precond\": ", out);
    json_string(out, sps_precond_type_name(a->precond));
    fprintf(out, ", \"iterations\": %d, \"residual_rel\": ", a->iterations);
    json_number(out, a->residual_rel);
    fprintf(out, ", \"used\": %s, \"note\": ", a->accepted ? "true" : "false");
    json_string(out, a->note);
    fputc('}', out);
  }
  fputs(r->attempt_count ? "\n  ]" : "]", out);
  json_key(out, "spmv");
  json_string(out, sps_spmv_kind_name(r->spmv));
  json_key(out, "spmv_threads_per_row");
  fprintf(out, "%d", r->threads_per_row);
  {
    const sps_spmv_choice_info *ci = &r->spmv_choice;
    json_key(out, "spmv_requested");
    json_string(out, sps_spmv_kind_name(ci->requested));
    json_key(out, "spmv_source");
    json_string(out, sps_spmv_source_name(ci->source));
    json_key(out, "spmv_why");
    json_string(out, ci->why);
    json_key(out, "spmv_tune_seconds");
    json_number(out, ci->tune_seconds);
    json_key(out, "spmv_tune_spmv_equivalents");
    json_number(out, ci->tune_spmv_equivalents);
    json_key(out, "spmv_tune_timed");
    fprintf(out, "%d", ci->timed);
    json_key(out, "spmv_candidates");
    fputc('[', out);
    for (int k = 0; k < ci->candidate_count; k++) {
      const sps_spmv_candidate *c = &ci->candidates[k];
      fputs(k ? ",\n    {" : "\n    {", out);
      fputs("\"spmv\": ", out);
      json_string(out, sps_spmv_kind_name(c->kind));
      fprintf(out, ", \"threads_per_row\": %d, \"seconds\": ", c->threads_per_row);
      json_number(out, c->status == SPS_SUCCESS ? c->seconds : NAN);
      fputs(", \"status\": ", out);
      json_string(out, sps_status_name(c->status));
      fprintf(out, ", \"used\": %s, \"note\": ",
              c->status == SPS_SUCCESS && c->kind == ci->kind &&
                      c->threads_per_row == ci->threads_per_row
                  ? "true"
                  : "false");
      json_string(out, c->note);
      fputc('}', out);
    }
    fputs(ci->candidate_count ? "\n  ]" : "]", out);
    json_key(out, "spmv_cache_file");
    if (ci->cache_file[0])
      json_string(out, ci->cache_file);
    else
      fputs("null", out);
    json_key(out, "spmv_cache");
    json_string(out, ci->cache_note);
  }
  json_key(out, "rtol");
  json_number(out, o->rtol);
  json_key(out, "atol");
  json_number(out, o->atol);
  json_key(out, "dtol");
  json_number(out, o->dtol);
  json_key(out, "maxit");
  fprintf(out, "%d", o->maxit);
  json_key(out, "restart");
  fprintf(out, "%d", r->restart);
  json_key(out, "flexible");
  fputs(cli_report_flexible(r) ? "true" : "false", out);
  json_key(out, "pipelined");
  fputs(r->solver == SPS_SOLVER_CG && o->pipelined ? "true" : "false", out);
  json_key(out, "distributed");
  if (r->dist) {
    const cli_dist *d = r->dist;
    fprintf(out, "{\"ranks\": %d, \"partition\": ", d->ranks);
    json_string(out, d->partition);
    fputs(", \"read\": ", out);
    json_string(out, d->read);
    fputs(", \"halo_via\": ", out);
    json_string(out, d->halo_via ? d->halo_via : "mpi");
    fputs(", \"reduce_via\": ", out);
    json_string(out, d->reduce_via ? d->reduce_via : "mpi");
    fprintf(out, ", \"reordered\": %s, \"cuda_aware\": %s, \"rows_min\": %lld, \"rows_max\": %lld, "
                 "\"nnz_min\": %lld, \"nnz_max\": %lld, \"imbalance_rows\": ",
            d->reordered ? "true" : "false", d->cuda_aware ? "true" : "false",
            (long long)d->rows_min, (long long)d->rows_max, (long long)d->nnz_min,
            (long long)d->nnz_max);
    json_number(out, d->imbalance_rows);
    fputs(", \"imbalance_nnz\": ", out);
    json_number(out, d->imbalance_nnz);
    fprintf(out, ", \"halo_total\": %lld, \"halo_max\": %lld, \"cut_nnz\": %lld, "
                 "\"neighbors_max\": %d, \"overlap_min\": ",
            (long long)d->halo_total, (long long)d->halo_max, (long long)d->cut_nnz,
            d->neighbors_max);
    json_number(out, d->overlap_min);
    const double t[6] = {d->halo_start, d->spmv_local, d->halo_wait, d->spmv_boundary, d->reduce,
                         d->comm_max};
    static const char *const names[6] = {"time_halo_start", "time_spmv_local", "time_halo_wait",
                                         "time_spmv_boundary", "time_reduce", "time_comm"};
    for (int k = 0; k < 6; k++) {
      fprintf(out, ", \"%s\": ", names[k]);
      json_number(out, t[k]);
    }
    fprintf(out, ", \"halo_exchanges\": %lld, \"reductions\": %lld, \"halo_bytes\": %lld, "
                 "\"timeline\": ",
            (long long)d->halo_exchanges, (long long)d->reductions, (long long)d->halo_bytes);
    if (d->timeline_path)
      json_string(out, d->timeline_path);
    else
      fputs("null", out);
    fputc('}', out);
  } else {
    fputs("null", out);
  }
  json_key(out, "iterations");
  fprintf(out, "%d", r->iterations);
  json_key(out, "converged");
  fputs(r->reason > 0 ? "true" : "false", out);
  json_key(out, "reason");
  json_string(out, sps_reason_name(r->reason));
  json_key(out, "reason_text");
  json_string(out, sps_reason_string(r->reason));
  json_key(out, "residual_abs");
  json_number(out, r->residual_abs);
  json_key(out, "residual_rel");
  json_number(out, r->residual_rel);
  json_key(out, "error");
  if (r->have_error)
    json_number(out, r->error);
  else
    fputs("null", out);
  json_key(out, "time_load");
  json_number(out, r->t_load);
  json_key(out, "time_setup");
  json_number(out, r->t_setup);
  json_key(out, "time_solve");
  json_number(out, r->t_solve);
  json_key(out, "time_per_iteration");
  json_number(out, per_iteration(r));
  if (o->history) {
    json_key(out, "history");
    fputc('[', out);
    for (int i = 0; i < r->history_count; i++) {
      if (i) fputs(", ", out);
      json_number(out, r->history[i]);
    }
    fputc(']', out);
  }
  if (r->many) cli_report_many_json(out, r);
  json_key(out, "exit_code");
  fprintf(out, "%d", r->exit_code);
  fputs("\n}\n", out);
}

void cli_report_json_error(FILE *out, const cli_error *e, int exit_code)
{
  fputs("{\n  \"failed\": true", out);
  json_key(out, "status");
  if (e)
    json_string(out, sps_status_name(e->status));
  else
    fputs("null", out);
  json_key(out, "status_text");
  if (e)
    json_string(out, sps_status_string(e->status));
  else
    fputs("null", out);
  json_key(out, "message");
  json_string(out, e ? e->message : "the run failed without a recorded message");
  json_key(out, "exit_code");
  fprintf(out, "%d", exit_code);
  fputs("\n}\n", out);
}

void cli_json_string(FILE *out, const char *s)
{
  json_string(out, s);
}
