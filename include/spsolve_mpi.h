/* spsolve_mpi.h: the distributed API of libspsolve (built with --with-mpi): contexts on an MPI communicator, matrices whose rows are spread over the ranks, and vectors between one rank and all. */
#ifndef SPSOLVE_MPI_H
#define SPSOLVE_MPI_H

#include <mpi.h>

#include "spsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @file spsolve_mpi.h
 *
 * A distributed solve runs one MPI rank per GPU (or per group of CPU cores). A context made by
 * sps_context_create_mpi() lives on a communicator; a matrix made from it holds the rank's
 * rows, a vector the rank's entries of those rows, and the solvers of include/spsolve.h run
 * on them unchanged. The iterations, the reason and the solution of a solve do not depend on
 * the number of ranks: the reductions are compensated sums merged in rank order, and every
 * row of a product is one compensated sum, so 1, 2, 3 or 4 ranks give the single-process
 * solve's bits (bar the rare ties of doc/design.md, "Same answers on the CPU and the GPU"),
 * with a preconditioner that does not depend on the partition (none, jacobi).
 *
 * Collective calls. Every function of this header is collective over the context's
 * communicator unless it says otherwise, and so is every function of spsolve.h on an object
 * of a distributed context that communicates: sps_vector_norm2(), sps_spmv_plan_setup(),
 * sps_spmv_apply(), sps_solver_setup(), sps_solver_solve(), sps_matrix_check_symmetry() and
 * sps_context_destroy(). All ranks call them in the same order; all ranks return the same
 * status, and a failure on one rank (an allocation, a factorisation) is reported on every
 * rank with that rank's message, prefixed "rank R: ". A failure inside a solve (a CUDA or MPI
 * error) is the exception: the other ranks may then wait for the failed one. The other calls
 * (creating vectors, sps_solver_apply_precond() with its per-rank blocks, the getters, the
 * destroy functions of objects) are local.
 *
 * What the functions of spsolve.h mean on a distributed context:
 *   - sps_vector_create() and the other vector calls: the rank's part (its rows, in the order
 *     of its rows); sps_vector_norm2() is the norm of the whole vector;
 *   - sps_matrix_get_size(): the rank's rows (rows and columns: its diagonal block is square)
 *     and the stored entries of its rows; sps_matrix_get_csr() and
 *     sps_matrix_get_device_csr(): its diagonal block, with column indices of its own rows;
 *     sps_matrix_get_symmetry(): the whole matrix's; sps_matrix_get_stats(): the diagonal
 *     block's;
 *   - preconditioners: none, jacobi, bjacobi, ilu0, ic0 and ilut are built on each rank's
 *     diagonal block (block Jacobi over the ranks, each block preconditioned by its own
 *     factorisation); cheby and amg are refused with ::SPS_ERR_UNSUPPORTED;
 *   - sps_solver_set_gmres_fused() is ignored (the fused cycle forms its products itself);
 *   - a progress callback (sps_solver_set_progress()) is not called: the ranks would cut their
 *     batches of iterations by clocks of their own. A monitor is called on every rank at the
 *     same iterations (set the same interval on every rank).
 */

/** @name Distributed contexts */
/**@{*/
/**
 * Create a context on the communicator @p comm (which the library duplicates, so its messages
 * never meet the caller's). MPI must be initialised; only the thread that calls the library
 * calls MPI, so MPI_THREAD_SINGLE (or FUNNELED) suffices.
 * @param[out] ctx   the new context on every rank; NULL on failure
 * @param[in]  comm  the ranks that share the matrices and solves of the context
 * @param[in]  kind  ::SPS_DEVICE_CPU, ::SPS_DEVICE_CUDA or ::SPS_DEVICE_AUTO, as for
 *                   sps_context_create()
 * @param[in]  index the CUDA device; negative: the rank's place among the ranks of its node,
 *                   modulo the node's GPUs (one rank per GPU with as many ranks as GPUs)
 * @return ::SPS_SUCCESS; ::SPS_ERR_STATE when MPI is not initialised; ::SPS_ERR_MPI; the
 *         statuses of sps_context_create() (of any rank). The message of a failure is read
 *         with sps_context_create_error() on every rank.
 */
sps_status sps_context_create_mpi(sps_context **ctx, MPI_Comm comm, sps_device_kind kind,
                                  int index);
/**
 * The context's communicator (the library's duplicate: do not free it), this rank and the
 * rank count; MPI_COMM_NULL, 0 and 1 for a context of sps_context_create(). Not collective.
 */
sps_status sps_context_get_comm(const sps_context *ctx, MPI_Comm *comm, int *rank, int *size);
/**
 * 1 when the halo exchanges hand device buffers to MPI (a CUDA context and an MPI that says
 * it is CUDA-aware through MPIX_Query_cuda_support()), 0 when they are staged through pinned
 * host memory or the context computes on the CPU. Not collective.
 */
int sps_context_mpi_cuda_aware(const sps_context *ctx);

/** What moves the data of a distributed CUDA context between its GPUs. */
typedef enum sps_transport {
  SPS_TRANSPORT_AUTO = 0, /**< NCCL where it can serve (below), else MPI; for the reductions,
                               NCCL for those the solvers' steps keep on the GPUs and MPI for
                               the few whose sums the host reads (a start's norms) */
  SPS_TRANSPORT_MPI = 1,  /**< MPI: device buffers where it is CUDA-aware, else pinned host
                               staging */
  SPS_TRANSPORT_NCCL = 2  /**< NCCL: a build with NCCL (configure --with-nccl), a CUDA
                               context, more than one rank and one GPU a rank */
} sps_transport;

/**
 * Choose what carries the halo exchanges of the products and the exchanges of the reductions
 * (collective: pass the same values on every rank). NCCL moves the halo between the GPUs on a
 * stream of its own while the local rows' product runs, with no wait on the host; MPI has the
 * host wait for the packed entries, then for the messages. Over NCCL, the reductions of the
 * solvers' steps (CG, BiCGSTAB, GMRES up to a restart of 62) stay on the GPUs: each rank's
 * compensated sums are gathered by NCCL and merged in rank order by a kernel that closes the
 * step, so an iteration waits on the host for nothing and, with the halo over NCCL too, the
 * solvers replay their iterations as CUDA graphs; over MPI each such reduction is read back to
 * the host and exchanged there. The few reductions whose sums the host reads anyway (a start's
 * norms, a confirmation, pipelined CG's) go over MPI with AUTO and through the device with
 * NCCL named. A new distributed CUDA context starts as AUTO for both (it makes its NCCL
 * communicator then, when NCCL can serve).
 * Takes effect from the next product or reduction; the bits of every result are the same
 * either way (the same entries arrive; the reductions still merge in rank order).
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT (not a distributed context, an unknown value);
 *         ::SPS_ERR_UNSUPPORTED when NCCL is named and cannot serve (the message says why);
 *         ::SPS_ERR_MPI when NCCL fails to start.
 */
sps_status sps_context_set_transport(sps_context *ctx, sps_transport halo, sps_transport reductions);
/** The transports in use (::SPS_TRANSPORT_MPI or ::SPS_TRANSPORT_NCCL: AUTO resolved); MPI and
 *  MPI for a CPU context. Not collective. */
sps_status sps_context_get_transport(const sps_context *ctx, sps_transport *halo,
                                     sps_transport *reductions);
/** The name of a transport ("auto", "mpi", "nccl"), or NULL for an unknown value. */
const char *sps_transport_name(sps_transport t);
/**@}*/

/** How the rows of a matrix are spread over the ranks (sps_matrix_scatter()). */
typedef enum sps_partition {
  SPS_PARTITION_CONTIGUOUS = 0, /**< rank r takes rows [r n/p, (r+1) n/p) of the original order */
  SPS_PARTITION_METIS = 1       /**< METIS k-way partitioning of the graph of A + A^T, which cuts
                                     fewer couplings between ranks (a build with METIS only) */
} sps_partition;

/** @name Distributed matrices */
/**@{*/
/**
 * A distributed matrix from each rank's rows. Rank r holds the @p nlocal rows that follow
 * those of ranks 0..r-1 (rows first_r .. first_r + nlocal - 1, first_r the sum of the lower
 * ranks' nlocal), in CSR with global column indices; the order is n = the sum of every
 * rank's nlocal. Entries may come in any order within a row; duplicates are summed. The
 * arrays are copied. Vectors of the context hold the rank's rows in this order.
 *
 * The rows that couple to other ranks should come last on each rank: the product of the rows
 * before the first such row runs while the halo is exchanged (sps_dist_info.overlap_rows).
 * @param[in] rowptr nlocal + 1 offsets, rowptr[0] = 0
 * @param[in] colind global column indices in [0, n)
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT (an index out of range, offsets that decrease,
 *         NULL arrays); ::SPS_ERR_SIZE (a rank's rows or columns above INT32_MAX);
 *         ::SPS_ERR_HOST_MEMORY, ::SPS_ERR_DEVICE_MEMORY, ::SPS_ERR_MPI; any of them from any rank.
 */
sps_status sps_matrix_create_dist_csr(sps_context *ctx, sps_matrix **A, int64_t nlocal,
                                      const int64_t *rowptr, const int64_t *colind,
                                      const double *values);
/**
 * A distributed matrix from a matrix held by one rank: @p root partitions @p A0 (a matrix of
 * any context; ignored on the other ranks, which may pass NULL) and sends each rank its rows.
 * Within a rank, the rows that couple to no other rank come first (in their original order),
 * then the others, so that the local product overlaps the halo exchange; the original row of
 * each local row is kept (sps_matrix_get_rows()), and sps_vector_scatter() and
 * sps_vector_gather() apply and undo the permutation.
 * @return ::SPS_SUCCESS; ::SPS_ERR_ARGUMENT (root out of range, A0 NULL on root); ::SPS_ERR_SIZE
 *         (A0 not square); ::SPS_ERR_UNSUPPORTED (METIS asked for and not built, or METIS
 *         failed); the memory and MPI statuses, from any rank.
 */
sps_status sps_matrix_scatter(sps_context *ctx, sps_matrix **A, int root, const sps_matrix *A0,
                              sps_partition partition);
/**
 * A distributed matrix read from a Matrix Market file by every rank: each rank reads the whole
 * file (plain or compressed, as sps_matrix_read_mm() does) and keeps its contiguous block of
 * rows (mirrored entries of a symmetric file included), so no rank ever holds the whole
 * matrix. Rows are renumbered within each rank as sps_matrix_scatter() does.
 * @return the statuses of sps_matrix_read_mm() and of sps_matrix_scatter(), from any rank.
 */
sps_status sps_matrix_read_mm_dist(sps_context *ctx, sps_matrix **A, const char *path,
                                   unsigned flags);

/** The partition of a distributed matrix and what it costs (sps_matrix_get_dist_info()). */
typedef struct sps_dist_info {
  int ranks;                 /**< ranks of the communicator */
  sps_partition partition;   /**< how the rows were spread (CONTIGUOUS for the local-rows API) */
  int reordered;             /**< 1: rows coupling to no other rank were moved first on each rank */
  int64_t rows, nnz;         /**< the whole matrix: order and stored entries */
  int64_t first_row;         /**< this rank's first row in the distributed numbering */
  int64_t rows_local;        /**< this rank's rows */
  int64_t nnz_local;         /**< entries of this rank's rows */
  int64_t rows_min, rows_max; /**< rows of the least and the most loaded rank */
  int64_t nnz_min, nnz_max;  /**< entries of the least and the most loaded rank */
  double imbalance_rows;     /**< rows_max over the mean rows per rank (1: perfect balance) */
  double imbalance_nnz;      /**< nnz_max over the mean entries per rank */
  int64_t halo_local;        /**< entries of x this rank receives for a product */
  int64_t halo_total;        /**< the same summed over the ranks: the doubles one product moves */
  int64_t halo_max;          /**< the largest halo of a rank */
  int64_t cut_nnz;           /**< stored entries coupling two ranks (off-diagonal blocks), total */
  int neighbors_local;       /**< ranks this rank receives from */
  int neighbors_max;         /**< the most neighbours of a rank */
  int64_t overlap_rows;      /**< this rank's rows before its first row that needs the halo:
                                  their product overlaps the exchange */
  double overlap_min;        /**< the smallest overlap_rows / rows_local over the ranks (1 with
                                  one rank; a rank without rows counts 1) */
} sps_dist_info;

/** The partition facts of a distributed matrix. Not collective. @return ::SPS_ERR_ARGUMENT
 *  for a matrix that is not distributed. */
sps_status sps_matrix_get_dist_info(const sps_matrix *A, sps_dist_info *info);
/**
 * @p rows[i] <- the row of the original numbering (of A0, of the file, or of the local-rows
 * API) that local row i holds, for the rank's @p n = rows_local rows. Not collective.
 */
sps_status sps_matrix_get_rows(const sps_matrix *A, int64_t *rows, int64_t n);
/**@}*/

/** @name Vectors between one rank and all */
/**@{*/
/**
 * x <- the rank's entries of @p global, a vector of the whole matrix's order in the original
 * numbering held by @p root (ignored on the other ranks). x has the rank's rows_local entries.
 */
sps_status sps_vector_scatter(const sps_matrix *A, int root, const double *global, sps_vector *x);
/** @p global on @p root <- every rank's x, in the original numbering (ignored elsewhere). */
sps_status sps_vector_gather(const sps_matrix *A, int root, const sps_vector *x, double *global);
/**@}*/

/** @name Where the time goes */
/**@{*/
/**
 * Seconds this rank spent in the parts of the distributed work since the context was made or
 * the times were reset, and how often. On a CUDA context the times are the host's: a product
 * is the launch of its kernels, and the waits include the device work that must finish first.
 */
typedef struct sps_comm_times {
  double halo_start;     /**< packing x's halo entries and starting their exchange */
  double spmv_local;     /**< the rows that need no halo, while the exchange runs */
  double halo_wait;      /**< waiting for the exchange to end */
  double spmv_boundary;  /**< the rows that need the halo, once it arrived */
  double reduce;         /**< reductions: exchanging and merging the partial sums */
  int64_t halo_exchanges; /**< products with a halo exchange */
  int64_t halo_bytes;    /**< bytes this rank sent in them */
  int64_t reductions;    /**< reductions that crossed ranks (each with one or more sums) */
} sps_comm_times;
/** The times of this rank. Not collective. */
sps_status sps_context_get_comm_times(const sps_context *ctx, sps_comm_times *times);
/** Zero the times of this rank. Not collective. */
sps_status sps_context_reset_comm_times(sps_context *ctx);

/** The parts of the work a timeline records (sps_context_set_timeline()). */
typedef enum sps_event_kind {
  SPS_EVENT_HALO_START = 0, /**< pack and start the halo exchange */
  SPS_EVENT_SPMV_LOCAL,     /**< the product of the rows that need no halo */
  SPS_EVENT_HALO_WAIT,      /**< wait for the halo */
  SPS_EVENT_SPMV_BOUNDARY,  /**< the product of the rows that need it */
  SPS_EVENT_REDUCE,         /**< a reduction over the ranks */
  SPS_EVENT_KIND_COUNT
} sps_event_kind;

/** One interval of a timeline: seconds since the timeline was started on this rank. */
typedef struct sps_event {
  sps_event_kind kind;
  double start, end;
} sps_event;

/** The name of an event kind ("halo-start", ...), or NULL. Not collective. */
const char *sps_event_kind_name(sps_event_kind kind);
/**
 * Record up to @p capacity events from now on (0: stop and free). The ranks start their clocks
 * after a barrier, so their times line up to about the barrier's skew. Allocates here, never
 * while recording; events past the capacity are counted, not kept.
 */
sps_status sps_context_set_timeline(sps_context *ctx, int64_t capacity);
/** The events recorded on this rank (borrowed until the next set_timeline or destroy) and the
 *  number dropped for lack of room. Not collective. */
sps_status sps_context_get_timeline(const sps_context *ctx, const sps_event **events,
                                    int64_t *count, int64_t *dropped);
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* SPSOLVE_MPI_H */
