/* progress.c: the progress line (drawn in place on stderr a few times a second), the monitor lines, and the Ctrl-C handler of the spsolve command. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

volatile sig_atomic_t cli_interrupted = 0;

/* Seconds between two draws of the line, and before the first one (short steps show none). */
#define DRAW_EVERY 0.25
#define DRAW_AFTER 1.0

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_sigint(int sig)
{
  static const char first[] =
      "\nspsolve: interrupted: stopping at the next check (Ctrl-C again to quit at once)\n";
  (void)sig;
  if (cli_interrupted) _exit(CLI_EXIT_INTERRUPTED);
  cli_interrupted = 1;
  ssize_t w = write(STDERR_FILENO, first, sizeof first - 1);
  (void)w;
}

void cli_interrupt_install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
}

void cli_progress_init(cli_progress *p, cli_progress_mode mode, int monitor_every)
{
  memset(p, 0, sizeof *p);
  p->enabled = mode == CLI_PROGRESS_ALWAYS ||
               (mode == CLI_PROGRESS_AUTO && isatty(STDERR_FILENO));
  p->monitor_every = monitor_every;
}

/* "12.3 s", "4 min 05 s", "2 h 03 min". */
static void format_seconds(double s, char *buf, size_t len)
{
  if (!(s >= 0.0) || s > 1e7)
    snprintf(buf, len, "?");
  else if (s < 60.0)
    snprintf(buf, len, "%.1f s", s);
  else if (s < 3600.0)
    snprintf(buf, len, "%d min %02d s", (int)(s / 60.0), (int)fmod(s, 60.0));
  else
    snprintf(buf, len, "%d h %02d min", (int)(s / 3600.0), (int)fmod(s / 60.0, 60.0));
}

/* Draw text over the current line ("\r", the text, clear to the end of the line). */
static void draw(cli_progress *p, const char *text)
{
  fprintf(stderr, "\r%s\033[K", text);
  fflush(stderr);
  p->drawn = 1;
}

/* Whether the line is due now (enabled, past DRAW_AFTER, DRAW_EVERY since the last draw). */
static int due(const cli_progress *p, double t)
{
  return p->enabled && t - p->t_start >= DRAW_AFTER && t - p->t_drawn >= DRAW_EVERY;
}

void cli_progress_load_begin(cli_progress *p)
{
  p->t_start = p->t_drawn = now();
}

int cli_progress_load(void *user, int64_t bytes, int64_t total)
{
  cli_progress *p = user;
  const double t = now();
  if (due(p, t)) {
    char text[160], el[32];
    format_seconds(t - p->t_start, el, sizeof el);
    if (total > 0)
      snprintf(text, sizeof text, "spsolve: reading %.1f of %.1f MB (%.0f%%)  elapsed %s",
               (double)bytes / 1e6, (double)total / 1e6, 100.0 * (double)bytes / (double)total,
               el);
    else
      snprintf(text, sizeof text, "spsolve: reading %.1f MB  elapsed %s", (double)bytes / 1e6, el);
    draw(p, text);
    p->t_drawn = t;
  }
  return cli_interrupted != 0;
}

void cli_progress_solve_begin(cli_progress *p, double bnorm, double rtol)
{
  p->t_start = p->t_drawn = now();
  p->bnorm = bnorm;
  p->rtol = rtol;
  p->nsamples = 0;
}

void cli_progress_many_begin(cli_progress *p, double rtol)
{
  cli_progress_solve_begin(p, 1.0, rtol);
  p->many = 1;
}

/* Keep (t, it, rel) in the ring of the last CLI_PROGRESS_SAMPLES calls. */
static void add_sample(cli_progress *p, double t, int it, double rel)
{
  if (p->nsamples == CLI_PROGRESS_SAMPLES) {
    memmove(p->sample_t, p->sample_t + 1, (CLI_PROGRESS_SAMPLES - 1) * sizeof p->sample_t[0]);
    memmove(p->sample_it, p->sample_it + 1, (CLI_PROGRESS_SAMPLES - 1) * sizeof p->sample_it[0]);
    memmove(p->sample_rel, p->sample_rel + 1,
            (CLI_PROGRESS_SAMPLES - 1) * sizeof p->sample_rel[0]);
    p->nsamples--;
  }
  p->sample_t[p->nsamples] = t;
  p->sample_it[p->nsamples] = it;
  p->sample_rel[p->nsamples] = rel;
  p->nsamples++;
}

int cli_progress_solve(void *user, int iteration, double residual_norm)
{
  cli_progress *p = user;
  const double t = now();
  const double rel = p->bnorm > 0.0 ? residual_norm / p->bnorm : residual_norm;
  add_sample(p, t, iteration, rel);
  if (due(p, t)) {
    /* Over the samples kept: the mean reduction per iteration, rate = (rel / rel_0)^(1/its),
     * and the time per iteration; the time left is log(rtol / rel) / log(rate) iterations. */
    char text[200], el[32], left[48] = "";
    const int its = iteration - p->sample_it[0];
    double rate = NAN;
    if (its > 0 && p->sample_rel[0] > 0.0 && rel > 0.0)
      rate = pow(rel / p->sample_rel[0], 1.0 / its);
    if (its > 0 && rate < 1.0 && rel > p->rtol) {
      const double per_it = (t - p->sample_t[0]) / its;
      char lt[32];
      format_seconds(log(p->rtol / rel) / log(rate) * per_it, lt, sizeof lt);
      snprintf(left, sizeof left, "  left ~%s", lt);
    }
    format_seconds(t - p->t_start, el, sizeof el);
    if (isnan(rate))
      snprintf(text, sizeof text, "spsolve: iteration %d  %s %.3e  elapsed %s", iteration,
               p->many ? "max rel" : "rel", rel, el);
    else
      snprintf(text, sizeof text, "spsolve: iteration %d  %s %.3e  rate %.4f/it  elapsed %s%s",
               iteration, p->many ? "max rel" : "rel", rel, rate, el, left);
    draw(p, text);
    p->t_drawn = t;
  }
  return cli_interrupted != 0;
}

void cli_progress_monitor(void *user, int iteration, double residual_norm)
{
  cli_progress *p = user;
  if (p->drawn) {
    fputs("\r\033[K", stderr);
    p->drawn = 0;
  }
  if (p->many) {
    fprintf(stderr, "spsolve: iteration %6d  max ||r_j||/||b_j|| = %.6e (columns running)  %.3f s\n",
            iteration, residual_norm, now() - p->t_start);
    return;
  }
  const double rel = p->bnorm > 0.0 ? residual_norm / p->bnorm : NAN;
  fprintf(stderr, "spsolve: iteration %6d  ||r|| = %.6e  ||r||/||b|| = %.6e  %.3f s\n", iteration,
          residual_norm, rel, now() - p->t_start);
}

void cli_progress_end(cli_progress *p)
{
  if (p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->drawn = 0;
}
