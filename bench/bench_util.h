/* bench_util.h: what the benchmark drivers share: matrix inputs, timers, the copy bandwidth, byte counts and the table/TSV writer. */
#ifndef SPS_BENCH_UTIL_H
#define SPS_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spsolve.h"
/* Random vectors come from sps_splitmix64_sym (never rand()). */
#include "../core/splitmix64.h"

/* Median of n values (sorts v in place); NaN when n = 0. */
double bench_median(double *v, int n);

/* Current UTC date and time, "2025-01-31T12:00:00Z". */
void bench_date(char *buf, size_t len);

/*
 * A matrix input: a Matrix Market file or a generator specification (gen.h).
 * Its name is the file's base name without .mtx/.mtx.gz, or the specification.
 */
typedef struct bench_input {
  const char *spec;
  int is_gen;
} bench_input;

/*
 * The options every benchmark driver takes: matrices (file names, or --gen SPEC), --device
 * cuda|cpu, --repeat N, --copy-mb M, --seed S, --tsv FILE. repeat and copy_mb stay 0 when not
 * given, so the driver picks its own defaults for the device.
 */
typedef struct bench_common {
  bench_input inputs[256];
  int ninputs;
  sps_device_kind device; /* default CUDA */
  int repeat, copy_mb;
  uint64_t seed; /* default 1 */
  const char *tsv;
} bench_common;

/* Defaults of bench_common. */
void bench_common_init(bench_common *c);

/*
 * Take argv[*i] (and its value argv[*i + 1]) when it is a common option or a matrix, advancing
 * *i past a consumed value. Returns 1 when taken, 0 when the option is not a common one, and
 * -1 when it is but its value is missing or bad (prog names the driver in the message of a
 * full matrix list).
 */
int bench_common_parse(bench_common *c, int argc, char **argv, int *i, const char *prog);

/* Load or generate a matrix on ctx; on failure write the reason into err. */
sps_status bench_load_matrix(sps_context *ctx, const bench_input *in, sps_matrix **A, char *name,
                             size_t namelen, char *err, size_t errlen);

/*
 * Bytes of one CSR SpMV as GPU.md counts them (fp64 values, int32 indices and int32 row
 * offsets, every array touched once): 12*nnz + 4*(m+1) + 8*n + 8*m. spsolve's offsets are
 * int64, so a CSR kernel really reads 4*(m+1) bytes more; the formula is kept for
 * comparability with the published cuSPARSE figures.
 */
double bench_spmv_bytes(int64_t m, int64_t n, int64_t nnz);

/*
 * The copy bandwidth of the context's device, in bytes per second counting bytes read plus
 * bytes written: on CUDA a device-to-device cudaMemcpyAsync of @p bytes on the context's
 * stream timed with events, on the CPU memcpy timed with the wall clock; the median of
 * @p repeat copies after one warm-up. If the buffers cannot be allocated the size is halved
 * until they can (down to 64 MiB); the size used is returned in @p used.
 */
sps_status bench_copy_bandwidth(sps_context *ctx, size_t bytes, int repeat, double *bw,
                                size_t *used, char *err, size_t errlen);

/*
 * The opening of a benchmark run: a context on device, its name into dev, today's date into
 * date, and the copy bandwidth (bench_copy_bandwidth with bytes and repeat) into *bw and
 * *used. On failure says why on stderr after "name: ", leaves *ctx NULL and returns nonzero.
 */
int bench_open(const char *name, sps_device_kind device, size_t bytes, int repeat,
               sps_context **ctx, char *dev, size_t devlen, char *date, size_t datelen, double *bw,
               size_t *used);

/* A timer of device work on the context's stream: CUDA events there, the wall clock on the CPU. */
typedef struct bench_timer bench_timer;
sps_status bench_timer_create(sps_context *ctx, bench_timer **t);
sps_status bench_timer_start(bench_timer *t);
/* Stop, wait for the device, and give the seconds since start. */
sps_status bench_timer_stop(bench_timer *t, double *seconds);
void bench_timer_destroy(bench_timer **t);

/* A table of string cells written both as TSV and as aligned text. */
typedef struct bench_table bench_table;
bench_table *bench_table_create(int ncols, const char *const *header);
/* Append a row of ncols cells (copied). */
void bench_table_add(bench_table *t, const char *const *cells);
/* The TSV: leading '#' lines already written by the caller, then the header and rows. */
void bench_table_write_tsv(const bench_table *t, FILE *f);
/* Aligned text of the columns whose mask entry is nonzero (mask NULL: all). */
void bench_table_print(const bench_table *t, FILE *f, const int *mask);
void bench_table_destroy(bench_table **t);

/* Format a number with fmt, or "-" when it is NaN. */
const char *bench_fmt(char *buf, size_t len, const char *fmt, double v);

/* Parse a strictly positive int / a nonnegative double option value; nonzero on error. */
int bench_parse_int(const char *s, int *v);
int bench_parse_double(const char *s, double *v);
/* A finite double of any sign (preconditioner parameters: matching=-1); nonzero on error. */
int bench_parse_double_signed(const char *s, double *v);
/*
 * The command line of a benchmark over matrix files: --help (usage on stdout), --repeat N,
 * --tsv FILE and up to max file names into files. 0: parsed; 1: --help was printed (exit 0);
 * 2: a bad option, or no file, said on stderr with the usage (exit 2). name prefixes the
 * messages.
 */
int bench_parse_files_args(int argc, char **argv, const char *name, const char *usage,
                           int *repeat, const char **tsv, const char **files, int max,
                           int *nfiles);
/* Parse "ones" (0) or "random" (1), the choice of a vector's values; nonzero on error. */
int bench_parse_ones_random(const char *s, int *random);

#endif /* SPS_BENCH_UTIL_H */
