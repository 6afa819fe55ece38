/* error.c: the spsolve tool's error record: each failure is printed on stderr at once and kept, with its status and exit code, for the --json error object. */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static cli_error last;
static int quiet = 0;

void cli_error_quiet(int on)
{
  quiet = on;
}

int cli_fail(sps_status status, int exit_code, const char *fmt, ...)
{
  char msg[sizeof last.message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!quiet) fprintf(stderr, "spsolve: %s\n", msg);
  if (!last.set) {
    last.set = 1;
    last.status = status;
    last.exit_code = exit_code;
    snprintf(last.message, sizeof last.message, "%s", msg);
  }
  return exit_code;
}

const cli_error *cli_last_error(void)
{
  return last.set ? &last : NULL;
}
