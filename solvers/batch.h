/* batch.h: the work space of sps_solver_solve_many() and what the batched methods (batch_cg.c, batch_bicgstab.c, batch_gmres.c, block_cg.c) share with its driver (solve_many.c). */
#ifndef SPS_SOLVERS_BATCH_H
#define SPS_SOLVERS_BATCH_H

#include "../core/block_ops.h"
#include "../spmv/spmm_internal.h"
#include "solver_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Width classes of a block: kmax, then halved (rounded up) down to 1. */
#define SPS_BATCH_MAX_WIDTHS 8

/* Block buffers that compaction moves (method vectors, GMRES's basis counted once). */
#define SPS_BATCH_MAX_BUFFERS 16

/*
 * One column of the group being solved (at most SPS_BLOCK_MAX_COLS columns of B at a time).
 * While the method runs, the norms and tolerances are in the units of the column's scaled
 * system (2^-scale_exp b), as the single solve's are.
 */
typedef struct sps_batch_col {
  int64_t j;          /* its column in B and X */
  int pos;            /* its position in the work blocks; -1 once written back to X */
  int active;         /* still iterating */
  double bnorm;       /* ||b_j|| (scaled units while iterating) */
  double bnorm_user;  /* ||b_j|| */
  double tol;         /* max(rtol ||b||, atol) (scaled units) */
  double dtol_abs;    /* dtol max(||b||, ||r_0||) (scaled units) */
  int scale_exp;      /* k: the method sees 2^-k b_j and 2^-k x_j */
  sps_reason reason;
  int iterations;
  double rnorm;       /* the last residual norm read (recurrence or true) */
  double rnorm_batch; /* rnorm at the start of the last batch, for its rate */
  int it_batch;       /* iterations at the start of the last batch */
  int started_at;     /* BiCGSTAB: the iteration of its last start */
  int above_since;    /* GMRES: the first cycle end of the run above dtol, or -1 */
} sps_batch_col;

typedef struct sps_batch sps_batch;

/*
 * A batched method: the single method's recurrence on every column of a block.
 *   setup    allocates its blocks (registering them with sps_batch_add_buffer), its states
 *            and its CUDA graphs, one per width class (sps_batch_capture)
 *   solve    iterates the active columns of the group from their residuals in bt->R (norms
 *            in col->rnorm, history entry 0 recorded), and sets each column's reason and
 *            iterations; compacts with sps_batch_compact when asked
 *   compact  moves its per-column states: new position c takes the state of old position
 *            src[c] (src[c] < 0: an idle column) for the new width bt->w
 *   destroy  frees what setup made
 */
typedef struct sps_batch_method {
  sps_status (*setup)(sps_solver *s, sps_batch *bt);
  sps_status (*solve)(sps_solver *s, sps_batch *bt);
  sps_status (*compact)(sps_solver *s, sps_batch *bt, const int *src);
  void (*destroy)(sps_solver *s, sps_batch *bt);
} sps_batch_method;

extern const sps_batch_method sps_batch_method_cg;
extern const sps_batch_method sps_batch_method_bicgstab;
extern const sps_batch_method sps_batch_method_gmres;
extern const sps_batch_method sps_batch_method_block_cg;

struct sps_batch {
  const sps_block_backend *bk;
  const sps_batch_method *bm;
  sps_solver_type method;    /* what it was built for */
  int block_cg;              /* 1: O'Leary's block CG instead of batched CG */
  int kmax;                  /* the widest block: min(columns, SPS_BLOCK_MAX_COLS) */
  int64_t ldmax;             /* its leading dimension; each block buffer holds n x ldmax */
  int64_t bstride;           /* n * ldmax: from one block of a multi-block buffer to the next */
  int nwidths;
  int widths[SPS_BATCH_MAX_WIDTHS];
  int widx;                  /* the current width class */
  int w;                     /* the current width: widths[widx] */
  int64_t ld;                /* its leading dimension (sps_block_ld(w)) */
  sps_spmm_plan *spmm;       /* A times kmax columns (NULL for kmax = 1: the SpMV plan) */
  double *ws;                /* the block operations' work space */
  double *B, *X, *R, *T;     /* right-hand sides (scaled), iterates, residuals, scratch */
  double *vin, *vout;        /* n each: one column through the single preconditioner apply */
  double *dhist;             /* kmax x (maxit + 1) device histories, or NULL */
  const double *dinv;        /* a diagonal preconditioner's inverse (borrowed), or NULL */
  int identity;              /* no preconditioner: z aliases r */
  struct {
    double *base;
    int count; /* blocks of bstride doubles */
  } buffers[SPS_BATCH_MAX_BUFFERS];
  int nbuffers;
  void *mwork;               /* the method's */
  /* The group being solved. */
  int ncol;                  /* its columns (the width of the first block) */
  sps_batch_col col[SPS_BLOCK_MAX_COLS];
  int at[SPS_BLOCK_MAX_COLS]; /* at[pos]: the group column at block position pos, or -1 */
  int t;                     /* block iterations issued (the monitor's count) */
  int interrupted;           /* the progress callback asked to stop */
  double *xout;              /* the group's first column in the user's X */
  int64_t ldxout;            /* X's leading dimension */
  int64_t x0ld;              /* the leading dimension of the group's initial guesses kept in
                                s->many_x0 */
};

/* Build s->batch for the method and preconditioner in use (s->columns > 0), or destroy it. */
sps_status sps_batch_setup(sps_solver *s);
void sps_batch_destroy(sps_solver *s);

/* Register a buffer of `count` blocks (each n x ldmax doubles) for compaction. */
void sps_batch_add_buffer(sps_batch *bt, double *base, int count);

/* Allocate a buffer of count blocks in the context's memory, zeroed, and register it. */
sps_status sps_batch_alloc_blocks(sps_solver *s, sps_batch *bt, double **p, int count,
                                  const char *what);

/*
 * Capture `iterations` issues of `issue` for each width class into graphs[widx] (NULL where
 * the backend records none); issue reads the width from bt->w and bt->ld, which this sets in
 * turn and leaves at the widest.
 */
sps_status sps_batch_capture(sps_solver *s, sps_batch *bt, int iterations,
                             sps_status (*issue)(sps_solver *s, sps_batch *bt), void **graphs);

/* Issue `count` iterations at the current width: graph (of per_graph iterations) replays, then
 * single issues. */
sps_status sps_batch_issue(sps_solver *s, sps_batch *bt, void *graph, int per_graph, int count,
                           sps_status (*issue)(sps_solver *s, sps_batch *bt));

/* Y <- sign*A X on the current width. */
sps_status sps_batch_operator(sps_solver *s, sps_batch *bt, const double *X, double *Y);

/* Z(:, c) <- M^-1 R(:, c) for the columns of mask (a diagonal M on the block, any other column
 * by column through the single apply); not for the identity. */
sps_status sps_batch_precond(sps_solver *s, sps_batch *bt, uint64_t mask, const double *R,
                             double *Z);

/*
 * The true residual of the columns of mask: T <- sign*B - sign*A X (the whole width), norms[c]
 * <- ||T(:, c)||, and R(:, c) <- T(:, c) for the columns of mask (the single solve's
 * sps_solver_residual into s->r).
 */
sps_status sps_batch_true_residual(sps_solver *s, sps_batch *bt, uint64_t mask, double *norms);

/* The reason a column's residual norm meets (RTOL or ATOL), or SPS_REASON_NONE. */
sps_reason sps_batch_test(const sps_solver *s, const sps_batch_col *c, double rnorm);

/* The column at block position pos (NULL for an idle position). */
static inline sps_batch_col *sps_batch_at(sps_batch *bt, int pos)
{
  return bt->at[pos] >= 0 ? &bt->col[bt->at[pos]] : NULL;
}

/* Mark the column at pos finished with reason after its iterations. */
void sps_batch_finish(sps_batch *bt, int pos, sps_reason reason, int iterations);

/* The mask of the positions whose columns are active. */
uint64_t sps_batch_active(const sps_batch *bt);

/* The device history of group column g (NULL without history). */
double *sps_batch_history(const sps_solver *s, const sps_batch *bt, int g);

/* Twice the last batch, or what the slowest active column's rate over it says it needs, within
 * [min_batch, max_batch] (sps_solver_adaptive_batch over the columns). its[pos]: iterations. */
int sps_batch_adaptive(const sps_solver *s, const sps_batch *bt, int last, const int *its,
                       int min_batch, int max_batch);

/*
 * The length of the next batch: to the next multiple of the monitor interval when a monitor
 * is set, else twice the last or what the slowest active column's rate says it needs, within
 * [min_batch, max_batch]; cut to the progress interval; never past the longest an active
 * column can still run (maxit - its iterations). its[pos] are the positions' iteration
 * counts. At least 1.
 */
int sps_batch_next_len(sps_solver *s, sps_batch *bt, int last, const int *its, int min_batch,
                       int max_batch);

/* After a batch read: the monitor (at multiples of its interval: the block iteration and the
 * largest relative residual of the active columns) and the progress callback; nonzero (also
 * in bt->interrupted) when the callback asks to stop. */
int sps_batch_report(sps_solver *s, sps_batch *bt, int it0);

/* Write the finished columns still in the block (all of them with `all`) back to the user's X,
 * scaled back by 2^k; their positions are then free. */
sps_status sps_batch_write_back(sps_solver *s, sps_batch *bt, int all);

/*
 * Compact the blocks when the active columns fit a narrower width class: the finished
 * columns are written back to X first (unscaled), the active ones move to positions
 * 0, 1, ... in order, and the method's states follow (bm->compact).
 */
sps_status sps_batch_compact(sps_solver *s, sps_batch *bt);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SOLVERS_BATCH_H */
