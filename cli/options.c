/* options.c: strict parsing of spsolve's command line (--opt value and --opt=value) and its --help
 * text. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../solvers/defaults.h"
#include "../spmv/threads_per_row.h"
#include "error.h"
#include "options.h"

/* How an option takes its value. */
typedef enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL } opt_arg;

typedef enum opt_id {
  OPT_SOLVER,
  OPT_PRECOND,
  OPT_PRECOND_PARAM,
  OPT_LIST_PRECOND,
  OPT_RTOL,
  OPT_ATOL,
  OPT_DTOL,
  OPT_MAXIT,
  OPT_RESTART,
  OPT_FLEXIBLE,
  OPT_GMRES_FUSED,
  OPT_DEVICE,
  OPT_SPMV,
  OPT_TPR,
  OPT_LIST_SPMV,
  OPT_STATS,
  OPT_RHS,
  OPT_SEED,
  OPT_NRHS,
  OPT_OUTPUT,
  OPT_X0,
  OPT_MONITOR,
  OPT_PROGRESS,
  OPT_HISTORY,
  OPT_JSON,
  OPT_QUIET,
  OPT_ALLOW_NONFINITE,
  OPT_VERBOSE,
  OPT_PIPELINED,
  OPT_PARTITION,
  OPT_READ,
  OPT_TRANSPORT,
  OPT_TIMELINE,
  OPT_HELP,
  OPT_VERSION
} opt_id;

typedef struct opt_spec {
  const char *name; /* long name without the dashes */
  char short_name;  /* 0 when none */
  opt_arg arg;
  opt_id id;
} opt_spec;

static const opt_spec option_table[] = {
    {"solver", 0, ARG_REQUIRED, OPT_SOLVER},
    {"precond", 0, ARG_REQUIRED, OPT_PRECOND},
    {"precond-param", 0, ARG_REQUIRED, OPT_PRECOND_PARAM},
    {"list-precond", 0, ARG_NONE, OPT_LIST_PRECOND},
    {"rtol", 0, ARG_REQUIRED, OPT_RTOL},
    {"atol", 0, ARG_REQUIRED, OPT_ATOL},
    {"dtol", 0, ARG_REQUIRED, OPT_DTOL},
    {"maxit", 0, ARG_REQUIRED, OPT_MAXIT},
    {"restart", 0, ARG_REQUIRED, OPT_RESTART},
    {"flexible", 0, ARG_NONE, OPT_FLEXIBLE},
    {"gmres-fused", 0, ARG_NONE, OPT_GMRES_FUSED},
    {"device", 0, ARG_REQUIRED, OPT_DEVICE},
    {"spmv", 0, ARG_REQUIRED, OPT_SPMV},
    {"spmv-threads-per-row", 0, ARG_REQUIRED, OPT_TPR},
    {"list-spmv", 0, ARG_NONE, OPT_LIST_SPMV},
    {"stats", 0, ARG_NONE, OPT_STATS},
    {"rhs", 0, ARG_REQUIRED, OPT_RHS},
    {"seed", 0, ARG_REQUIRED, OPT_SEED},
    {"nrhs", 0, ARG_REQUIRED, OPT_NRHS},
    {"output", 'o', ARG_REQUIRED, OPT_OUTPUT},
    {"x0", 0, ARG_REQUIRED, OPT_X0},
    {"monitor", 0, ARG_OPTIONAL, OPT_MONITOR},
    {"progress", 0, ARG_REQUIRED, OPT_PROGRESS},
    {"history", 0, ARG_NONE, OPT_HISTORY},
    {"json", 0, ARG_NONE, OPT_JSON},
    {"quiet", 'q', ARG_NONE, OPT_QUIET},
    {"allow-nonfinite", 0, ARG_NONE, OPT_ALLOW_NONFINITE},
    {"verbose", 'v', ARG_NONE, OPT_VERBOSE},
    {"pipelined", 0, ARG_NONE, OPT_PIPELINED},
    {"partition", 0, ARG_REQUIRED, OPT_PARTITION},
    {"read", 0, ARG_REQUIRED, OPT_READ},
    {"transport", 0, ARG_REQUIRED, OPT_TRANSPORT},
    {"timeline", 0, ARG_REQUIRED, OPT_TIMELINE},
    {"help", 'h', ARG_NONE, OPT_HELP},
    {"version", 0, ARG_NONE, OPT_VERSION},
};

#define OPTION_COUNT (sizeof option_table / sizeof option_table[0])

void cli_print_help(void)
{
  fputs("Usage: spsolve [OPTIONS] A.mtx[.gz] [b.mtx]\n"
        "Solve the sparse linear system A x = b with a Krylov method on a GPU or the CPU.\n"
        "A is a square Matrix Market file (coordinate; real, integer or pattern; general,\n"
        "symmetric or skew-symmetric; plain or gzip, xz, bzip2 compressed, as its first bytes\n"
        "tell). Options take their value as '--opt value' or '--opt=value'.\n"
        "\n"
        "Method:\n"
        "  --solver cg|gmres|bicgstab|block-cg|auto\n"
        "                        Krylov method (default auto: cg when A is symmetric, as\n"
        "                        declared by the file or checked numerically, else gmres);\n"
        "                        block-cg: with several right-hand sides, CG over all of\n"
        "                        them at once (one block Krylov space, fewer iterations on\n"
        "                        some matrices), for symmetric positive definite A\n"
        "  --precond NAME[:ARGS] preconditioner (default auto): none, jacobi, ilu0, ic0,\n"
        "                        ilut[:FILL,DROP], bjacobi[:BLOCK], cheby[:DEGREE], amg\n"
        "                        (algebraic multigrid; amg.* parameters) or auto\n"
        "                        (chosen from the matrix, moving on along a chain when one\n"
        "                        fails or stagnates; the report lists every try)\n"
        "  --precond-param NAME=VALUE\n"
        "                        set a preconditioner parameter (repeatable), e.g.\n"
        "                        ilut.fill=20, matching=1, amg.coarsening=aggregation;\n"
        "                        see --list-precond\n"
        "  --list-precond        list the preconditioners and their parameters, then exit\n"
        "  --rtol X              stop when ||b - Ax|| <= max(rtol*||b||, atol) (default "
        SPS_STRINGIFY(SPS_DEFAULT_RTOL) ")\n"
        "  --atol X              absolute tolerance (default " SPS_STRINGIFY(SPS_DEFAULT_ATOL)
        "); rtol and atol are >= 0 and\n"
        "                        not both 0\n"
        "  --dtol X              divergence: stop when ||b - Ax|| stays above\n"
        "                        X*max(||b||, ||b - Ax0||) (default " SPS_STRINGIFY(SPS_DEFAULT_DTOL) "; X >= 1, or inf for\n"
        "                        no divergence test)\n"
        "  --maxit N             maximum iterations, N >= 1 (default "
        SPS_STRINGIFY(SPS_DEFAULT_MAXIT) "; GMRES counts inner\n"
        "                        iterations)\n"
        "  --restart M           GMRES restart length, M >= 1 (default "
        SPS_STRINGIFY(SPS_DEFAULT_RESTART) ")\n"
        "  --flexible            flexible GMRES: keep the preconditioned vector of every\n"
        "                        inner iteration and update x with them (n*M more doubles);\n"
        "                        for preconditioners that change between iterations\n"
        "  --gmres-fused         GMRES without a preconditioner on a GPU of compute\n"
        "                        capability 9.0 or later, n <= 16384, restart <= 64: each\n"
        "                        batch of inner iterations as one kernel in one thread-block\n"
        "                        cluster, with the same bits (ignored elsewhere; off by\n"
        "                        default, faster on some small matrices, slower on others)\n"
        "  --pipelined           pipelined CG (Ghysels and Vanroose): one reduction an\n"
        "                        iteration, overlapped with the preconditioner and the SpMV;\n"
        "                        its rounding differs from CG's, and on ill-conditioned\n"
        "                        matrices it needs more iterations (up to 2.6 times on\n"
        "                        the shared SPD matrices)\n"
        "\n"
        "Distributed (under mpirun, in a build configured --with-mpi):\n"
        "  mpirun -np P spsolve [OPTIONS] A.mtx spreads the rows of A over P ranks (one GPU\n"
        "  each, picked by the rank's place on its node, or the CPU); rank 0 prints the report,\n"
        "  which adds the partition and the time spent communicating.\n"
        "  --partition contiguous|metis\n"
        "                        contiguous blocks of rows (default) or METIS graph\n"
        "                        partitioning, which cuts the couplings between ranks\n"
        "  --read root|each      rank 0 reads A and sends each rank its rows (default), or\n"
        "                        every rank reads the file and keeps its contiguous block\n"
        "                        (no rank holds the whole matrix; contiguous only)\n"
        "  --transport HALO[,REDUCE]\n"
        "                        what carries the halo exchanges and the reductions'\n"
        "                        sums between GPUs: auto, mpi or nccl each (default\n"
        "                        auto,auto: NCCL for the halo where every rank has a GPU\n"
        "                        of its own and the build has NCCL, MPI for the rest)\n"
        "  --timeline FILE       write every rank's halo exchanges, local and boundary\n"
        "                        products and reductions of the solve as TSV (rank, event,\n"
        "                        start and end seconds); bench/plot-timeline.py draws it\n"
        "\n"
        "Device and kernel:\n"
        "  --device auto|cpu|cuda|cuda:N\n"
        "                        where to compute (default auto: GPU 0 when usable, else the\n"
        "                        CPU); a CUDA device that does not exist is an input error\n"
        "                        (exit 2)\n"
        "  --spmv auto|tune|NAME SpMV kernel (default auto: chosen from statistics of the\n"
        "                        matrix; tune: the fastest of a short list of kernels timed on\n"
        "                        the matrix at setup, the result kept in a disk cache, see\n"
        "                        Environment); NAME must exist on the device, see --list-spmv\n"
        "  --spmv-threads-per-row K\n"
        "                        threads per row for csr-vector: 1, 2, 4, 8, 16 or 32\n"
        "                        (default 0: chosen at setup)\n"
        "  --list-spmv           list the SpMV kernels and where they are available, then exit\n"
        "  --stats               print the statistics of A that the SpMV choice reads (rows,\n"
        "                        row lengths, blockwise blocks, column locality, their cost;\n"
        "                        with --json as JSON), then exit without solving\n"
        "\n"
        "Right-hand side and solution:\n"
        "  --rhs FILE|ones|random\n"
        "                        b from a Matrix Market file, all ones, or seeded random;\n"
        "                        the default is b = A*x* for a seeded random x*, and then\n"
        "                        the error ||x - x*||/||x*|| is reported. A file of k\n"
        "                        columns (array n x k) gives k right-hand sides, solved\n"
        "                        together. A second positional argument b.mtx means\n"
        "                        --rhs b.mtx.\n"
        "  --nrhs K              K right-hand sides, solved together (batched: each its own\n"
        "                        recurrence, one SpMM per iteration; or --solver block-cg):\n"
        "                        b_j = A*x*_j for seeded random x*_j (seeds N, N+1, ...), or\n"
        "                        K random or K ones columns with --rhs; the report gives each\n"
        "                        column's result and the totals (default 1)\n"
        "  --seed N              seed of the random x* or b (default 1)\n"
        "  -o, --output FILE     write the solution x as a Matrix Market array file (all k\n"
        "                        columns: n x k)\n"
        "  --x0 FILE             start from the initial guess x0 in FILE (a Matrix Market\n"
        "                        array, as -o writes, with one column or one per right-hand\n"
        "                        side; default x0 = 0)\n"
        "  --allow-nonfinite     accept NaN and Inf values in A and b (refused by default)\n"
        "\n"
        "Output:\n"
        "  --monitor[=K]         print the iteration, the residual norm, the relative\n"
        "                        residual and the elapsed time every K iterations on stderr\n"
        "                        (default K = 1; '--monitor K' works too)\n"
        "  --progress auto|always|never\n"
        "                        one progress line on stderr, updated in place a few times\n"
        "                        a second: the bytes read while loading, then the iteration,\n"
        "                        relative residual, rate, elapsed and estimated time left\n"
        "                        (default auto: when stderr is a terminal and the step takes\n"
        "                        over a second)\n"
        "  --history             include the residual history in the --json output\n"
        "  --json                print one JSON object on stdout instead of the text report\n"
        "                        (NaN and Inf are written as null); on exit 2 or 3, an\n"
        "                        object with the error: status, message, exit_code\n"
        "  -q, --quiet           print no report; the exit code tells the outcome\n"
        "                        (error messages still go to stderr)\n"
        "  -v, --verbose         add matrix statistics to the report: fewest, mean and most\n"
        "                        nonzeros per row, empty rows, symmetry, file size; and why\n"
        "                        the SpMV kernel was chosen (the rule's test, or the table of\n"
        "                        the kernels timed by --spmv tune and the cache entry used)\n"
        "  -h, --help            print this help and exit\n"
        "  --version             print the version, whether CUDA support is built and the\n"
        "                        CUDA device found, then exit\n"
        "\n"
        "Exit status:\n"
        "  0  the solve converged\n"
        "  1  the solve stopped without converging (maximum iterations, breakdown, ...)\n"
        "  2  usage or input error: bad option or value, unreadable or malformed file,\n"
        "     A not square, b of the wrong length, a device or kernel that does not exist\n"
        "  3  runtime failure: out of host or device memory, CUDA or cuSPARSE error\n"
        "  130  interrupted (Ctrl-C): a solve stops at its next check and reports with\n"
        "     reason interrupted; a second Ctrl-C ends the program at once\n"
        "\n"
        "Environment:\n"
        "  OMP_NUM_THREADS       threads of the CPU kernels\n"
        "  SPSOLVE_CACHE_DIR     where --spmv tune keeps its results (one small file per matrix\n"
        "                        structure, device and version); set and empty: no cache.\n"
        "                        Default $XDG_CACHE_HOME/spsolve, else $HOME/.cache/spsolve\n"
        "\n"
        "See spsolve(1) for details and examples.\n",
        stdout);
}

/* Print "spsolve: MESSAGE (see spsolve --help)" on stderr and return CLI_EXIT_USAGE. */
static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cli_fail(SPS_ERR_ARGUMENT, CLI_EXIT_USAGE, "%s (see spsolve --help)", msg);
}

/* A finite double spelled entirely by @p text. */
static int parse_double(const char *opt, const char *text, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0')
    return usage_error("invalid value '%s' for --%s: not a number", text, opt);
  if (errno == ERANGE && fabs(v) > 1.0)
    return usage_error("invalid value '%s' for --%s: out of range", text, opt);
  if (!isfinite(v))
    return usage_error("invalid value '%s' for --%s: not a finite number", text, opt);
  *out = v;
  return 0;
}

/* An int spelled entirely by @p text, in decimal, at least @p min. */
static int parse_int(const char *opt, const char *text, int min, int *out)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0')
    return usage_error("invalid value '%s' for --%s: not an integer", text, opt);
  if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
    return usage_error("invalid value '%s' for --%s: out of range", text, opt);
  if (v < min) return usage_error("invalid value '%s' for --%s: must be >= %d", text, opt, min);
  *out = (int)v;
  return 0;
}

/* An unsigned 64-bit decimal integer (no sign). */
static int parse_u64(const char *opt, const char *text, uint64_t *out)
{
  char *end;
  if (text[0] < '0' || text[0] > '9')
    return usage_error("invalid value '%s' for --%s: not an unsigned integer", text, opt);
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end != '\0')
    return usage_error("invalid value '%s' for --%s: not an unsigned integer", text, opt);
  if (errno == ERANGE || v > UINT64_MAX)
    return usage_error("invalid value '%s' for --%s: out of range", text, opt);
  *out = (uint64_t)v;
  return 0;
}

/* auto, cpu, cuda or cuda:N. */
static int parse_device(const char *text, cli_options *opt)
{
  if (strcmp(text, "auto") == 0) {
    opt->device = SPS_DEVICE_AUTO;
    opt->device_index = 0;
    opt->device_index_given = 0;
  } else if (strcmp(text, "cpu") == 0) {
    opt->device = SPS_DEVICE_CPU;
    opt->device_index = 0;
    opt->device_index_given = 0;
  } else if (strcmp(text, "cuda") == 0) {
    opt->device = SPS_DEVICE_CUDA;
    opt->device_index = 0;
    opt->device_index_given = 0;
  } else if (strncmp(text, "cuda:", 5) == 0) {
    char *end;
    errno = 0;
    long v = strtol(text + 5, &end, 10);
    if (end == text + 5 || *end != '\0' || errno == ERANGE || v < 0 || v > INT_MAX)
      return usage_error("invalid value '%s' for --device: the CUDA device index must be an "
                         "integer >= 0",
                         text);
    opt->device = SPS_DEVICE_CUDA;
    opt->device_index = (int)v;
    opt->device_index_given = 1;
  } else {
    return usage_error("invalid value '%s' for --device: expected auto, cpu, cuda or cuda:N", text);
  }
  return 0;
}

static int parse_spmv(const char *text, cli_options *opt)
{
  sps_spmv_kind kind;
  if (sps_spmv_kind_from_name(text, &kind) != SPS_SUCCESS) {
    char list[512] = "";
    size_t len = 0;
    for (int k = 0; k < SPS_SPMV_KIND_COUNT && len < sizeof list; k++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s %s", k ? "," : "",
                              sps_spmv_kind_name((sps_spmv_kind)k));
    return cli_fail(SPS_ERR_ARGUMENT, CLI_EXIT_USAGE,
                    "invalid value '%s' for --spmv: expected one of%s (see spsolve --list-spmv)",
                    text, list);
  }
  opt->spmv = kind;
  opt->spmv_given = 1;
  return 0;
}

static int parse_solver(const char *text, cli_options *opt)
{
  sps_solver_type type;
  opt->block = 0;
  if (strcmp(text, "auto") == 0) {
    opt->solver = CLI_SOLVER_AUTO;
    return 0;
  }
  if (strcmp(text, "block-cg") == 0) {
    opt->solver = SPS_SOLVER_CG;
    opt->block = 1;
    return 0;
  }
  if (sps_solver_type_from_name(text, &type) != SPS_SUCCESS)
    return usage_error("invalid value '%s' for --solver: expected cg, gmres, bicgstab, block-cg "
                       "or auto",
                       text);
  opt->solver = (int)type;
  return 0;
}

/* Append a parameter (the last value of a name wins in the library: they apply in order). */
static int add_param(cli_options *opt, const char *name, size_t len, double value, const char *text)
{
  if (opt->nparams >= CLI_MAX_PRECOND_PARAMS)
    return usage_error("too many preconditioner parameters (at most %d): '%s'",
                       CLI_MAX_PRECOND_PARAMS, text);
  if (len == 0 || len >= sizeof opt->params[0].name)
    return usage_error("invalid preconditioner parameter '%s': expected NAME=VALUE (see spsolve "
                       "--list-precond)",
                       text);
  cli_precond_param *p = &opt->params[opt->nparams++];
  memcpy(p->name, name, len);
  p->name[len] = '\0';
  p->value = value;
  return 0;
}

/* A number of a --precond argument list: finite, the whole field. */
static int parse_field(const char *field, size_t len, double *out)
{
  char buf[64];
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, field, len);
  buf[len] = '\0';
  char *end;
  errno = 0;
  const double v = strtod(buf, &end);
  if (*end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

/*
 * --precond NAME[:ARGS]: ARGS are shorthands for parameters: ilut:FILL[,DROP],
 * bjacobi:BLOCK, cheby:DEGREE. Ranges are checked by the library when the solver is set up
 * (the message names the parameter).
 */
static int parse_precond(const char *text, cli_options *opt)
{
  const char *colon = strchr(text, ':');
  const size_t nlen = colon ? (size_t)(colon - text) : strlen(text);
  char name[32];
  sps_precond_type type;
  snprintf(name, sizeof name, "%.*s", (int)(nlen < sizeof name ? nlen : sizeof name - 1), text);
  if (nlen >= sizeof name || sps_precond_type_from_name(name, &type) != SPS_SUCCESS)
    return usage_error("invalid value '%s' for --precond: expected none, jacobi, ilu0, ic0, "
                       "ilut[:FILL,DROP], bjacobi[:BLOCK], cheby[:DEGREE], amg or auto",
                       text);
  opt->precond = type;
  if (!colon) return 0;
  const char *args = colon + 1;
  static const char *const ilut_names[] = {"ilut.fill", "ilut.drop"};
  static const char *const bj_names[] = {"bjacobi.block"};
  static const char *const cheby_names[] = {"cheby.degree"};
  const char *const *names = NULL;
  int max = 0;
  if (type == SPS_PRECOND_ILUT) {
    names = ilut_names;
    max = 2;
  } else if (type == SPS_PRECOND_BJACOBI) {
    names = bj_names;
    max = 1;
  } else if (type == SPS_PRECOND_CHEBY) {
    names = cheby_names;
    max = 1;
  } else {
    return usage_error("invalid value '%s' for --precond: %s takes no arguments (use "
                       "--precond-param)",
                       text, name);
  }
  int k = 0;
  for (const char *p = args;; k++) {
    const char *comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    double v;
    if (k >= max || parse_field(p, len, &v))
      return usage_error("invalid value '%s' for --precond: expected %s", text,
                         type == SPS_PRECOND_ILUT ? "ilut:FILL[,DROP] with numbers"
                         : type == SPS_PRECOND_BJACOBI ? "bjacobi:BLOCK with an integer"
                                                       : "cheby:DEGREE with an integer");
    if (add_param(opt, names[k], strlen(names[k]), v, text)) return CLI_EXIT_USAGE;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

/* --precond-param NAME=VALUE: VALUE a number, or one of the parameter's value names
 * (amg.coarsening=classical). */
static int parse_precond_param(const char *text, cli_options *opt)
{
  const char *eq = strchr(text, '=');
  double v = 0.0;
  char name[64];
  const size_t nlen = eq ? (size_t)(eq - text) : 0;
  int bad = !eq;
  if (!bad && parse_field(eq + 1, strlen(eq + 1), &v)) {
    bad = nlen >= sizeof name;
    if (!bad) {
      memcpy(name, text, nlen);
      name[nlen] = '\0';
      bad = sps_precond_param_value(name, eq + 1, &v) != SPS_SUCCESS;
    }
  }
  if (bad)
    return usage_error("invalid value '%s' for --precond-param: expected NAME=VALUE with a "
                       "number or a value name (see spsolve --list-precond)",
                       text);
  return add_param(opt, text, nlen, v, text);
}

/* --rhs FILE|ones|random; the last --rhs wins, but it may not contradict a positional b.mtx. */
static int parse_rhs(const char *text, cli_options *opt, int *rhs_positional)
{
  if (*rhs_positional)
    return usage_error("--rhs %s conflicts with the argument '%s': give b only once", text,
                       opt->rhs_path);
  if (text[0] == '\0')
    return usage_error("invalid value '' for --rhs: expected a file name, ones or random");
  opt->rhs_path = NULL;
  if (strcmp(text, "ones") == 0) {
    opt->rhs = CLI_RHS_ONES;
  } else if (strcmp(text, "random") == 0) {
    opt->rhs = CLI_RHS_RANDOM;
  } else {
    opt->rhs = CLI_RHS_FILE;
    opt->rhs_path = text;
  }
  return 0;
}

/* Apply option @p spec with value @p val (NULL when none was given). */
static int apply_option(const opt_spec *spec, const char *val, cli_options *opt, int *rhs_given,
                        int *rhs_positional)
{
  const char *name = spec->name;
  switch (spec->id) {
  case OPT_SOLVER:
    return parse_solver(val, opt);
  case OPT_PRECOND:
    return parse_precond(val, opt);
  case OPT_PRECOND_PARAM:
    return parse_precond_param(val, opt);
  case OPT_LIST_PRECOND:
    opt->action = CLI_ACTION_LIST_PRECOND;
    return 0;
  case OPT_RTOL:
    if (parse_double(name, val, &opt->rtol)) return CLI_EXIT_USAGE;
    if (opt->rtol < 0) return usage_error("invalid value '%s' for --%s: must be >= 0", val, name);
    return 0;
  case OPT_ATOL:
    if (parse_double(name, val, &opt->atol)) return CLI_EXIT_USAGE;
    if (opt->atol < 0) return usage_error("invalid value '%s' for --%s: must be >= 0", val, name);
    return 0;
  case OPT_DTOL:
    if (strcmp(val, "inf") == 0 || strcmp(val, "Inf") == 0 || strcmp(val, "INF") == 0) {
      opt->dtol = INFINITY;
      return 0;
    }
    if (parse_double(name, val, &opt->dtol)) return CLI_EXIT_USAGE;
    if (!(opt->dtol >= 1.0))
      return usage_error("invalid value '%s' for --%s: must be >= 1 (or inf)", val, name);
    return 0;
  case OPT_MAXIT:
    return parse_int(name, val, 1, &opt->maxit);
  case OPT_RESTART:
    return parse_int(name, val, 1, &opt->restart);
  case OPT_PIPELINED:
    opt->pipelined = 1;
    return 0;
  case OPT_PARTITION:
    if (strcmp(val, "contiguous") == 0)
      opt->partition = 0;
    else if (strcmp(val, "metis") == 0)
      opt->partition = 1;
    else
      return usage_error("invalid value '%s' for --partition: expected contiguous or metis", val);
    return 0;
  case OPT_READ:
    if (strcmp(val, "root") == 0)
      opt->read_each = 0;
    else if (strcmp(val, "each") == 0)
      opt->read_each = 1;
    else
      return usage_error("invalid value '%s' for --read: expected root or each", val);
    return 0;
  case OPT_TRANSPORT: {
    /* HALO or HALO,REDUCE, each auto|mpi|nccl (the sps_transport values 0, 1, 2) */
    static const char *const names[3] = {"auto", "mpi", "nccl"};
    const char *comma = strchr(val, ',');
    const size_t len = comma ? (size_t)(comma - val) : strlen(val);
    int halo = -1, reduce = comma ? -1 : 0;
    for (int t = 0; t < 3; t++) {
      if (strlen(names[t]) == len && strncmp(val, names[t], len) == 0) halo = t;
      if (comma && strcmp(comma + 1, names[t]) == 0) reduce = t;
    }
    if (halo < 0 || reduce < 0)
      return usage_error("invalid value '%s' for --transport: expected HALO or HALO,REDUCE, each "
                         "auto, mpi or nccl", val);
    opt->transport_halo = halo;
    opt->transport_reduce = reduce;
    return 0;
  }
  case OPT_TIMELINE:
    if (val[0] == '\0') return usage_error("invalid value '' for --timeline: expected a file name");
    opt->timeline_path = val;
    return 0;
  case OPT_FLEXIBLE:
    opt->flexible = 1;
    return 0;
  case OPT_GMRES_FUSED:
    opt->gmres_fused = 1;
    return 0;
  case OPT_DEVICE:
    return parse_device(val, opt);
  case OPT_SPMV:
    return parse_spmv(val, opt);
  case OPT_TPR:
    if (parse_int(name, val, 0, &opt->threads_per_row)) return CLI_EXIT_USAGE;
    if (sps_spmv_tpr_valid(opt->threads_per_row)) return 0;
    return usage_error("invalid value '%s' for --%s: expected " SPS_SPMV_TPR_LIST, val, name);
  case OPT_LIST_SPMV:
    opt->action = CLI_ACTION_LIST_SPMV;
    return 0;
  case OPT_STATS:
    opt->action = CLI_ACTION_STATS;
    return 0;
  case OPT_RHS:
    *rhs_given = 1;
    return parse_rhs(val, opt, rhs_positional);
  case OPT_SEED:
    return parse_u64(name, val, &opt->seed);
  case OPT_NRHS:
    return parse_int(name, val, 1, &opt->nrhs);
  case OPT_OUTPUT:
    if (val[0] == '\0')
      return usage_error("invalid value '%s' for --%s: empty file name", val, name);
    opt->output_path = val;
    return 0;
  case OPT_X0:
    if (val[0] == '\0')
      return usage_error("invalid value '%s' for --%s: empty file name", val, name);
    opt->x0_path = val;
    return 0;
  case OPT_MONITOR:
    opt->monitor_every = 1;
    return val ? parse_int(name, val, 1, &opt->monitor_every) : 0;
  case OPT_PROGRESS:
    if (strcmp(val, "auto") == 0)
      opt->progress = CLI_PROGRESS_AUTO;
    else if (strcmp(val, "always") == 0)
      opt->progress = CLI_PROGRESS_ALWAYS;
    else if (strcmp(val, "never") == 0)
      opt->progress = CLI_PROGRESS_NEVER;
    else
      return usage_error("invalid value '%s' for --%s: expected auto, always or never", val, name);
    return 0;
  case OPT_HISTORY:
    opt->history = 1;
    return 0;
  case OPT_JSON:
    opt->json = 1;
    return 0;
  case OPT_QUIET:
    opt->quiet = 1;
    return 0;
  case OPT_ALLOW_NONFINITE:
    opt->allow_nonfinite = 1;
    return 0;
  case OPT_VERBOSE:
    opt->verbose = 1;
    return 0;
  case OPT_HELP:
    opt->action = CLI_ACTION_HELP;
    return 0;
  case OPT_VERSION:
    opt->action = CLI_ACTION_VERSION;
    return 0;
  }
  return 0;
}

static const opt_spec *find_long(const char *name, size_t len)
{
  for (size_t i = 0; i < OPTION_COUNT; i++)
    if (strlen(option_table[i].name) == len && strncmp(option_table[i].name, name, len) == 0)
      return &option_table[i];
  return NULL;
}

static const opt_spec *find_short(char c)
{
  for (size_t i = 0; i < OPTION_COUNT; i++)
    if (option_table[i].short_name == c) return &option_table[i];
  return NULL;
}

static void set_defaults(cli_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->action = CLI_ACTION_SOLVE;
  opt->rhs = CLI_RHS_SOLUTION;
  opt->seed = 1;
  opt->solver = CLI_SOLVER_AUTO;
  opt->precond = SPS_PRECOND_AUTO;
  opt->rtol = SPS_DEFAULT_RTOL;
  opt->atol = SPS_DEFAULT_ATOL;
  opt->dtol = SPS_DEFAULT_DTOL;
  opt->maxit = SPS_DEFAULT_MAXIT;
  opt->restart = SPS_DEFAULT_RESTART;
  opt->device = SPS_DEVICE_AUTO;
  opt->spmv = SPS_SPMV_AUTO;
}

/* The word is a nonempty run of decimal digits. */
static int all_digits(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* A positional argument: A first, then b. */
static int add_positional(const char *arg, cli_options *opt, int *rhs_given, int *rhs_positional)
{
  if (!opt->matrix_path) {
    opt->matrix_path = arg;
    return 0;
  }
  if (*rhs_positional)
    return usage_error("unexpected argument '%s': A and b are already given", arg);
  if (*rhs_given) return usage_error("argument '%s' conflicts with --rhs: give b only once", arg);
  opt->rhs = CLI_RHS_FILE;
  opt->rhs_path = arg;
  *rhs_positional = 1;
  return 0;
}

int cli_parse_options(int argc, char **argv, cli_options *opt)
{
  set_defaults(opt);
  int only_positional = 0, rhs_given = 0, rhs_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || arg[1] == '\0') {
      if (add_positional(arg, opt, &rhs_given, &rhs_positional)) return CLI_EXIT_USAGE;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      only_positional = 1;
      continue;
    }
    const opt_spec *spec;
    const char *val = NULL;
    char shown[64]; /* the option as it is named in messages */
    if (arg[1] == '-') {
      const char *name = arg + 2;
      const char *eq = strchr(name, '=');
      size_t len = eq ? (size_t)(eq - name) : strlen(name);
      spec = find_long(name, len);
      if (!spec) return usage_error("unknown option '%.*s'", (int)(len + 2), arg);
      snprintf(shown, sizeof shown, "--%s", spec->name);
      if (eq) {
        if (spec->arg == ARG_NONE)
          return usage_error("option %s takes no value (got '%s')", shown, eq + 1);
        val = eq + 1;
      }
    } else {
      spec = find_short(arg[1]);
      if (!spec) return usage_error("unknown option '-%c'", arg[1]);
      snprintf(shown, sizeof shown, "-%c", arg[1]);
      if (arg[2] != '\0') {
        if (spec->arg == ARG_NONE)
          return usage_error("option %s takes no value (got '%s')", shown, arg + 2);
        val = arg + 2;
      }
    }
    if (spec->arg == ARG_REQUIRED && !val) {
      if (i + 1 >= argc) return usage_error("option %s needs a value", shown);
      val = argv[++i];
    }
    /* An optional value may follow as the next word when it is a number: '--monitor 5 A.mtx'
     * (a matrix file is never named by digits alone). */
    if (spec->arg == ARG_OPTIONAL && !val && i + 1 < argc && all_digits(argv[i + 1])) val = argv[++i];
    if (apply_option(spec, val, opt, &rhs_given, &rhs_positional)) return CLI_EXIT_USAGE;
  }
  if (opt->action != CLI_ACTION_SOLVE && opt->action != CLI_ACTION_STATS) return 0;
  if (!opt->matrix_path) return usage_error("no matrix file given");
  if (opt->action == CLI_ACTION_STATS) return 0;
  if (opt->rtol == 0.0 && opt->atol == 0.0)
    return usage_error("--rtol and --atol are both 0: the solve could never stop");
  return 0;
}
