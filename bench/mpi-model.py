#!/usr/bin/env python3
"""mpi-model.py: the paper model of a distributed CG iteration on H100 GPUs (doc/performance.md, "Distributed"): the predicted time per iteration on 2, 4, 8 and 64 GPUs for 3-D Poisson problems of 100M and 1G nonzeros, from per-iteration costs measured on one H100 and network figures of named sources.

    bench/mpi-model.py          (prints the inputs, then the Markdown table)

Every input is a named constant below with where it comes from. The model of one CG iteration
with Jacobi (CG's two reductions, one SpMV with a halo exchange) on G GPUs, one rank per GPU:

  t(G) = t_local(N/G) + t_halo_exposed + 2 (t_sync + t_reduce(G)) + t_sync          (G > 1)
  t(1) = t_local(N)                               (one rank: the device-driven path, no sync)

  t_local(n rows, z entries) = SpMV bytes / B_SPMV + CG vector bytes / B_VEC
       SpMV bytes = 12 z + 4 (n + 1) + 16 n (GPU.md's count), CG+Jacobi vector bytes = 13 * 8 n
  t_halo = ALPHA_P2P + 8 h / BETA, h the largest halo of a GPU (its entries of x received;
       as many are sent, on the other direction of the links), NVLink within a node, InfiniBand
       across nodes; the exchange overlaps the product of the rows free of the halo, so only
       t_halo_exposed = max(0, t_halo - t_spmv(rows free of the halo)) is paid
  t_sync = the host round trip of a host-ended reduction or of a halo's start (kernel, copy of
       a few doubles, stream synchronisation): the split path of core/backend_cuda.c
  t_reduce(G) = the MPI_Allgather of a few doubles over G ranks: ALPHA_COLL per doubling step
       within a node, ALPHA_COLL_NET per step across nodes (recursive doubling)

Pipelined CG (one reduction, started before the preconditioner and the SpMV and finished
after them) replaces 2 (t_sync + t_reduce) by t_sync + max(0, t_reduce - t_spmv): the update's
sums are read back once, and the exchange hides behind the product.

Partitions: contiguous blocks of the natural order (z-slabs: what --partition contiguous gives
on a grid numbered plane by plane: two neighbours of L^2 entries whatever G), and 3-D blocks of
px x py x pz (what a graph partitioner such as METIS approaches on a cube: G = 8 as 2x2x2,
G = 64 as 4x4x4; the ideal is used, METIS's own cut is a little larger).
"""
import argparse
import math

# --- Measured on one H100 (bench/results/2026-11-25-H100) -----------------------------------
# SpMV of laplacian7pt_100 (1e6 rows, 6.94e6 entries), csr-scalar (AUTO's choice), CUDA graph:
# 39.53 us for 103.28 MB (spmv-auto-tune.tsv) -> 2.61 TB/s.
B_SPMV = 103.28e6 / 39.53e-6
# CG + Jacobi on G3_circuit (1,585,478 rows, 7.66e6 entries): 136.3 us an iteration (run13/
# g3-jacobi.txt: 1021 iterations, 0.139129 s), of which the SpMV (ell, AUTO's choice there)
# 51.65 us (spmv-auto-tune.tsv, graph); the rest, 84.6 us, moves CG+Jacobi's 13 n doubles ->
B_VEC = 13 * 8 * 1585478 / (136.3e-6 - 51.65e-6)
# --- Host round trip of the split path (doc/design.md: "a fixed cost of one launch and one
# stream synchronisation (some 5-10 us)", measured for the statistics kernel on the H100):
T_SYNC = 8e-6
# --- Networks (vendor figures; latencies rounded up from published osu_latency / osu_allgather
# results of CUDA-aware MPI on NVLink and InfiniBand systems, MVAPICH project performance pages,
# mvapich.cse.ohio-state.edu/performance): assumptions, not measured here ---------------------
BETA_NVLINK = 450e9   # H100 SXM5 NVLink 4: 900 GB/s per GPU both directions (NVIDIA H100 datasheet)
BETA_IB = 50e9        # ConnectX-7 NDR 400 Gb/s, one per GPU in a DGX H100 (NVIDIA DGX H100 datasheet)
ALPHA_P2P = 3e-6      # one GPU-to-GPU message, CUDA-aware MPI, within a node (CUDA IPC)
ALPHA_P2P_NET = 5e-6  # the same across nodes (GPUDirect RDMA)
ALPHA_COLL = 1e-6     # one doubling step of a small host allgather within a node (shared memory)
ALPHA_COLL_NET = 3e-6 # one doubling step across nodes (InfiniBand, host memory)
GPUS_PER_NODE = 8


def spmv_time(rows, nnz):
    return (12 * nnz + 4 * (rows + 1) + 16 * rows) / B_SPMV


def local_time(rows, nnz):
    return spmv_time(rows, nnz) + 13 * 8 * rows / B_VEC


def reduce_time(g):
    steps = math.ceil(math.log2(g)) if g > 1 else 0
    nodes = math.ceil(g / GPUS_PER_NODE)
    net = math.ceil(math.log2(nodes)) if nodes > 1 else 0
    return (steps - net) * ALPHA_COLL + net * ALPHA_COLL_NET


def grid_split(g):
    """px, py, pz with px py pz = g as even as powers of two go."""
    p = [1, 1, 1]
    k = 0
    while math.prod(p) < g:
        p[k % 3] *= 2
        k += 1
    return p


def partition(L, g, kind):
    """(rows of the largest part, its entries, its halo, rows free of the halo, crosses nodes)."""
    if kind == "slabs":
        planes = L / g
        rows = planes * L * L
        nb = 2 if g > 2 else (1 if g == 2 else 0)
        halo = nb * L * L
        free = max(0.0, rows - nb * L * L)
        # with 8 slabs a node, the slabs at a node's ends talk across nodes
        crosses = g > GPUS_PER_NODE
    else:
        px, py, pz = grid_split(g)
        sx, sy, sz = L / px, L / py, L / pz
        rows = sx * sy * sz
        faces = []
        for p_, a in ((px, sy * sz), (py, sx * sz), (pz, sx * sy)):
            # an inner block has two neighbours in a direction split in more than two
            faces.append(a * (2 if p_ > 2 else 1 if p_ == 2 else 0))
        halo = sum(faces)
        free = max(0.0, (sx - (2 if px > 1 else 0)) * (sy - (2 if py > 1 else 0)) * (sz - (2 if pz > 1 else 0)))
        crosses = g > GPUS_PER_NODE
    nnz = 7 * rows  # the boundary of the box ignored: every part is charged 7 entries a row
    return rows, nnz, halo, free, crosses


def iteration(L, g, kind, pipelined=False):
    n = L ** 3
    if g == 1:
        t = local_time(n, 7 * n - 6 * L * L)
        return dict(t=t, local=t, halo=0, red=0, h=0, rows=n)
    rows, nnz, h, free, crosses = partition(L, g, kind)
    beta = BETA_IB if crosses else BETA_NVLINK
    alpha = ALPHA_P2P_NET if crosses else ALPHA_P2P
    t_local = local_time(rows, nnz)
    t_halo = alpha + 8 * h / beta
    exposed = max(0.0, t_halo - spmv_time(free, 7 * free))
    if pipelined:
        red = T_SYNC + max(0.0, reduce_time(g) - spmv_time(rows, nnz))
    else:
        red = 2 * (T_SYNC + reduce_time(g))
    t = t_local + exposed + red + T_SYNC
    return dict(t=t, local=t_local, halo=exposed, red=red, h=h, rows=rows)


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    problems = [("100M", 243), ("1G", 523)]
    print(f"# inputs: B_SPMV {B_SPMV / 1e12:.3f} TB/s, B_VEC {B_VEC / 1e12:.3f} TB/s, T_SYNC {T_SYNC * 1e6:.1f} us, "
          f"NVLink {BETA_NVLINK / 1e9:.0f} GB/s, IB {BETA_IB / 1e9:.0f} GB/s, "
          f"alpha p2p {ALPHA_P2P * 1e6:.0f}/{ALPHA_P2P_NET * 1e6:.0f} us, alpha coll {ALPHA_COLL * 1e6:.0f}/{ALPHA_COLL_NET * 1e6:.0f} us")
    hdr = ("| problem | GPUs | partition | rows/GPU | halo/GPU | local µs | halo exposed µs | "
           "reductions µs | CG µs/it | speedup | efficiency | pipelined µs/it |")
    print(hdr)
    print("|" + "---|" * 12)
    for name, L in problems:
        base = iteration(L, 1, "slabs")["t"]
        nnz = 7 * L ** 3 - 6 * L * L
        for g in (1, 2, 4, 8, 64):
            for kind in (("slabs",) if g == 1 else ("slabs", "blocks")):
                r = iteration(L, g, kind)
                rp = iteration(L, g, kind, pipelined=True) if g > 1 else r
                label = f"{name} ({L}³, {nnz / 1e6:.0f}M nnz)"
                part = "-" if g == 1 else ("contiguous (z-slabs)" if kind == "slabs" else "3-D blocks (METIS-like)")
                print(f"| {label} | {g} | {part} | {r['rows'] / 1e6:.2f}M | {r['h'] / 1e3:.0f}k | "
                      f"{r['local'] * 1e6:.0f} | {r['halo'] * 1e6:.1f} | {r['red'] * 1e6:.1f} | "
                      f"{r['t'] * 1e6:.0f} | {base / r['t']:.2f} | {base / r['t'] / g:.2f} | {rp['t'] * 1e6:.0f} |")


if __name__ == "__main__":
    main()
