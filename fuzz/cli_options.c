/* cli_options.c: libFuzzer target: spsolve's command-line parser (cli/options.c) on argument lists cut from the input at NUL bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* At most this many arguments after the program name. */
#define MAX_ARGS 64

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  devnull = fopen("/dev/null", "w");
  if (!devnull) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* A private copy ending in NUL; each NUL ends one argument. */
  char *text = malloc(size + 1);
  if (!text) abort();
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = "spsolve";
  for (char *p = text; p < text + size && argc <= MAX_ARGS; p += strlen(p) + 1) argv[argc++] = p;
  argv[argc] = NULL;

  /* Usage messages go to stderr: send them elsewhere (the sanitizers write to fd 2 itself). */
  FILE *saved = stderr;
  stderr = devnull;
  cli_options opt;
  int code = cli_parse_options(argc, argv, &opt);
  stderr = saved;

  /* What the parser promises: exit 0 or 2, and on success options the solver can take. */
  if (code != 0 && code != CLI_EXIT_USAGE) abort();
  if (code == 0 && opt.action == CLI_ACTION_SOLVE) {
    if (!opt.matrix_path) abort();
    if (!(opt.rtol >= 0 && opt.atol >= 0) || (opt.rtol == 0 && opt.atol == 0)) abort();
    if (opt.maxit < 1 || opt.restart < 1 || opt.nparams < 0 ||
        opt.nparams > CLI_MAX_PRECOND_PARAMS)
      abort();
    if (opt.rhs == CLI_RHS_FILE && !opt.rhs_path) abort();
    for (int k = 0; k < opt.nparams; k++)
      if (!memchr(opt.params[k].name, '\0', sizeof opt.params[k].name)) abort();
  }
  free(text);
  return 0;
}
