/* rcm.c: reverse Cuthill-McKee ordering of the graph of A + A^T (breadth-first levels from a pseudo-peripheral vertex). */
#include <stdlib.h>
#include <string.h>

#include "rcm.h"

/* The adjacency of A + A^T without the diagonal, as CSR (duplicates removed). */
static sps_status symmetric_graph(sps_context *ctx, const sps_host_csr *A, int64_t **gp,
                                  int32_t **gi)
{
  const int64_t n = A->n, nnz = A->rowptr[n];
  sps_status st = SPS_SUCCESS;
  int64_t *ptr = NULL, *fill = NULL;
  int32_t *idx = NULL, *mark = NULL;
  const size_t nn = n > 0 ? (size_t)n : 1;
  SPS_TRY(sps_host_calloc(ctx, (void **)&ptr, nn + 1, sizeof(int64_t), "RCM graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&idx, 2 * (size_t)nnz + 1, sizeof(int32_t), "RCM graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&fill, nn, sizeof(int64_t), "RCM graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&mark, nn, sizeof(int32_t), "RCM graph"));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int32_t j = A->colind[k];
      if (j == i) continue;
      ptr[i + 1]++;
      ptr[j + 1]++;
    }
  for (int64_t i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  memcpy(fill, ptr, (size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int32_t j = A->colind[k];
      if (j == i) continue;
      idx[fill[i]++] = j;
      idx[fill[j]++] = (int32_t)i;
    }
  /* Remove duplicates in place (an entry and its transpose both stored). */
  for (int64_t i = 0; i < n; i++) mark[i] = -1;
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t b = ptr[i], e = ptr[i + 1];
    ptr[i] = at;
    for (int64_t k = b; k < e; k++)
      if (mark[idx[k]] != (int32_t)i) {
        mark[idx[k]] = (int32_t)i;
        idx[at++] = idx[k];
      }
  }
  ptr[n] = at;
  *gp = ptr;
  *gi = idx;
  ptr = NULL;
  idx = NULL;
cleanup:
  sps_host_free(ptr);
  sps_host_free(idx);
  sps_host_free(fill);
  sps_host_free(mark);
  return st;
}

/* Breadth-first search from `root` over unvisited vertices (visited[v] != stamp), writing
 * the order into out, neighbours by increasing degree; returns the count and the last level's
 * first index in *last_level and the number of levels in *depth. */
static int64_t bfs(const int64_t *gp, const int32_t *gi, int32_t root, int32_t *visited,
                   int32_t stamp, int32_t *out, int64_t *last_level, int64_t *depth)
{
  int64_t head = 0, tail = 0;
  out[tail++] = root;
  visited[root] = stamp;
  *depth = 0;
  while (head < tail) {
    const int64_t level_end = tail;
    *last_level = head;
    (*depth)++;
    for (; head < level_end; head++) {
      const int32_t v = out[head];
      const int64_t first = tail;
      for (int64_t k = gp[v]; k < gp[v + 1]; k++) {
        const int32_t w = gi[k];
        if (visited[w] == stamp) continue;
        visited[w] = stamp;
        out[tail++] = w;
      }
      /* neighbours by increasing degree (insertion sort: degrees are small) */
      for (int64_t a = first + 1; a < tail; a++) {
        const int32_t w = out[a];
        const int64_t dw = gp[w + 1] - gp[w];
        int64_t b = a;
        for (; b > first && gp[out[b - 1] + 1] - gp[out[b - 1]] > dw; b--) out[b] = out[b - 1];
        out[b] = w;
      }
    }
  }
  return tail;
}

sps_status sps_rcm_order(sps_context *ctx, const sps_host_csr *A, int32_t **perm)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  int64_t *gp = NULL;
  int32_t *gi = NULL, *visited = NULL, *order = NULL, *scratch = NULL;
  *perm = NULL;
  const size_t nn = n > 0 ? (size_t)n : 1;
  SPS_TRY(symmetric_graph(ctx, A, &gp, &gi));
  SPS_TRY(sps_host_alloc(ctx, (void **)&visited, nn, sizeof(int32_t), "RCM"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&order, nn, sizeof(int32_t), "RCM order"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&scratch, nn, sizeof(int32_t), "RCM"));
  for (int64_t v = 0; v < n; v++) visited[v] = 0;
  int32_t stamp = 0; /* 0 never visited, > 0 a search's mark, -1 placed */
  int64_t done = 0;
  for (int64_t start = 0; start < n; start++) {
    if (visited[start] == -1) continue; /* placed with an earlier component */
    /* A pseudo-peripheral root: from `start`, jump to a vertex of smallest degree in the
     * last level while the depth grows (George and Liu), a few sweeps at most. */
    int32_t root = (int32_t)start;
    int64_t depth = 0;
    for (int sweep = 0; sweep < 5; sweep++) {
      stamp++;
      int64_t d, last;
      const int64_t cnt = bfs(gp, gi, root, visited, stamp, scratch, &last, &d);
      if (sweep > 0 && d <= depth) break;
      depth = d;
      int32_t best = scratch[last];
      for (int64_t k = last; k < cnt; k++)
        if (gp[scratch[k] + 1] - gp[scratch[k]] < gp[best + 1] - gp[best]) best = scratch[k];
      if (best == root) break;
      root = best;
    }
    stamp++;
    int64_t l, d;
    const int64_t cnt = bfs(gp, gi, root, visited, stamp, order + done, &l, &d);
    for (int64_t k = 0; k < cnt; k++) visited[order[done + k]] = -1;
    done += cnt;
  }
  /* Reverse. */
  for (int64_t k = 0; k < n / 2; k++) {
    const int32_t t = order[k];
    order[k] = order[n - 1 - k];
    order[n - 1 - k] = t;
  }
  *perm = order;
  order = NULL;
cleanup:
  sps_host_free(gp);
  sps_host_free(gi);
  sps_host_free(visited);
  sps_host_free(order);
  sps_host_free(scratch);
  return st;
}
