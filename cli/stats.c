/* stats.c: spsolve --stats, the statistics of a matrix (sps_matrix_get_stats) printed as text or JSON. */
#include <math.h>

#include "report.h"
#include "stats.h"

/* The fields in the order of sps_matrix_stats: name, value, and whether it is an integer. */
typedef struct field {
  const char *name;
  double value;
  int integer;
} field;

void cli_print_stats(FILE *out, const char *path, const char *device, const sps_matrix_stats *s,
                     int json)
{
  const field f[] = {
      {"rows", (double)s->rows, 1},
      {"cols", (double)s->cols, 1},
      {"nnz", (double)s->nnz, 1},
      {"density", s->density, 0},
      {"mean_len", s->mean_len, 0},
      {"min_len", (double)s->min_len, 1},
      {"max_len", (double)s->max_len, 1},
      {"var_len", s->var_len, 0},
      {"cv_len", s->cv_len, 0},
      {"empty_share", s->empty_share, 0},
      {"over32_share", s->over32_share, 0},
      {"over1024_share", s->over1024_share, 0},
      {"short_blocks", (double)s->short_blocks, 1},
      {"long_blocks", (double)s->long_blocks, 1},
      {"long_rows", (double)s->long_rows, 1},
      {"col_distance", s->col_distance, 0},
      {"windows_per_row", s->windows_per_row, 0},
      {"seconds", s->seconds, 0},
  };
  const int n = (int)(sizeof f / sizeof f[0]);
  if (!json) {
    fprintf(out, "matrix: %s\ndevice: %s\n", path, device);
    for (int k = 0; k < n; k++) {
      if (f[k].integer)
        fprintf(out, "%s: %.0f\n", f[k].name, f[k].value);
      else
        fprintf(out, "%s: %.6g\n", f[k].name, f[k].value);
    }
    return;
  }
  fputs("{\n  \"matrix\": ", out);
  cli_json_string(out, path);
  fputs(",\n  \"device\": ", out);
  cli_json_string(out, device);
  fputs(",\n  \"stats\": {", out);
  for (int k = 0; k < n; k++) {
    fprintf(out, "%s\n    \"%s\": ", k ? "," : "", f[k].name);
    if (!isfinite(f[k].value))
      fputs("null", out);
    else if (f[k].integer)
      fprintf(out, "%.0f", f[k].value);
    else
      fprintf(out, "%.17g", f[k].value);
  }
  fputs("\n  }\n}\n", out);
}
