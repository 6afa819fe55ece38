/* stats.h: spsolve --stats, the statistics of a matrix that the SpMV choice reads, as text or JSON. */
#ifndef SPS_CLI_STATS_H
#define SPS_CLI_STATS_H

#include <stdio.h>

#include "spsolve.h"

/* Print the statistics of the matrix read from @p path on @p device: one "name: value" line
 * each, or (json) one JSON object {"matrix", "device", "stats": {...}}. */
void cli_print_stats(FILE *out, const char *path, const char *device, const sps_matrix_stats *s,
                     int json);

#endif /* SPS_CLI_STATS_H */
