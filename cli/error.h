/* error.h: the spsolve tool's error record: each failure is printed on stderr at once and kept, with its status and exit code, for the --json error object. */
#ifndef SPS_CLI_ERROR_H
#define SPS_CLI_ERROR_H

#include "spsolve.h"

typedef struct cli_error {
  int set;           /* a failure was recorded */
  sps_status status; /* the library status, or the one that fits a tool-level failure */
  int exit_code;     /* 2 (usage or input) or 3 (runtime) */
  char message[2048];
} cli_error;

/*
 * Print "spsolve: MESSAGE" on stderr, record it with @p status and @p exit_code, and return
 * @p exit_code. The first failure recorded is kept (the later ones follow from it).
 */
int cli_fail(sps_status status, int exit_code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record failures without printing them (the ranks of a distributed run but rank 0, whose
 * failures are the same). */
void cli_error_quiet(int on);

/* The failure recorded, or NULL when there was none. */
const cli_error *cli_last_error(void);

#endif /* SPS_CLI_ERROR_H */
