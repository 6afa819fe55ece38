#!/usr/bin/env python3
"""mpi-gpu-table.py: the Markdown tables (and a strong-scaling plot) of the files of bench/run-mpi-gpu.sh.

    bench/mpi-gpu-table.py DIR [--plot FILE.png]

Reads DIR/strong-*.tsv, reduce.tsv and compare-serial.tsv (those present; the columns of
bench/mpi_bench.c's emit() and compare_serial()) and prints one table each. Times are in
microseconds per iteration (the slowest rank's solve). A strong-scaling table has one row per
(ranks, halo_via, reduce_via), the last one in the file where a run was repeated; its speedup is against
the file's 1-rank row and its efficiency is speedup / ranks. On a CUDA context the time split
(spmv, halo) is what the host spent launching, not the GPU's time, so it is not shown as a
split: only the halo's host time, in a column labelled as such. A run that failed left a
'# failed' comment line and no row, and is skipped like every comment.

--plot FILE.png also draws the speedup against 1 GPU over the GPUs (one rank a GPU), a line
for each problem and pair of transports, with the ideal y = x (needs matplotlib); --gpu NAME
names the GPU in its title (default: the device column of the files).
"""
import argparse
import glob
import os


def rows(path):
    """The TSV rows of a run-mpi-gpu.sh file as dicts (comment lines and headers skipped)."""
    out, header = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if cells[0] == "date":
                header = cells
                continue
            if header is None or len(cells) != len(header):
                continue
            out.append(dict(zip(header, cells)))
    return out


def us(seconds):
    """Seconds as microseconds, one decimal."""
    return f"{1e6 * float(seconds):.1f}"


def strong(path):
    """The rows of a strong-*.tsv, one per (ranks, halo_via, reduce_via), with speedup and
    efficiency."""
    last = {}
    for d in rows(path):
        last[(int(d["ranks"]), d["halo_via"], d["reduce_via"])] = d
    base = next((d for (np, _, _), d in last.items() if np == 1), None)
    out = []
    for key in sorted(last):
        d = dict(last[key])
        t = float(d["s_per_it"])
        d["speedup"] = float(base["s_per_it"]) / t if base else None
        d["efficiency"] = d["speedup"] / key[0] if base else None
        out.append(d)
    return out


def strong_table(path):
    r = strong(path)
    if not r:
        return
    print(f"{os.path.basename(path)} (speedup against its 1-rank row; one rank a GPU):\n")
    print("| problem | rows | nnz | solver | method | ranks | halo via | reductions via | iterations | "
          "µs/it | speedup | efficiency | time to solution (ms) | halo entries | overlap_min | "
          "host time in halo calls (µs) |")
    print("|---|---:|---:|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in r:
        t = float(d["s_per_it"])
        speedup = f"{d['speedup']:.2f}" if d["speedup"] is not None else "-"
        eff = f"{d['efficiency']:.2f}" if d["efficiency"] is not None else "-"
        solution_ms = t * int(d["iterations"]) * 1000
        print(f"| {d['box']} | {d['rows']} | {d['nnz']} | {d['solver']} | {d['method']} | {d['ranks']} | "
              f"{d['halo_via']} | {d['reduce_via']} | {d['iterations']} | {us(t)} | {speedup} | {eff} | "
              f"{solution_ms:.1f} | {d['halo_total']} | {d['overlap_min']} | {us(d['halo_s_per_it'])} |")
    print()


def reduce_table(path):
    r = rows(path)
    if not r:
        return
    d0 = r[0]
    print(f"reduce.tsv (the reductions over NCCL against MPI; {d0['box']}, {d0['ranks']} ranks, "
          f"{d0['iterations']} iterations, halo over {d0['halo_via']}):\n")
    print("| method | reductions via | µs/it | reduce µs/it |")
    print("|---|---|---:|---:|")
    for d in r:
        print(f"| {d['method']} | {d['reduce_via']} | {us(d['s_per_it'])} | {us(d['reduce_s_per_it'])} |")
    print()


def compare_table(path):
    r = rows(path)
    if not r:
        return
    print("compare-serial.tsv (one rank against the single-process solver; µs per iteration):\n")
    print("| solver | box | single process | distributed, 1 rank | dist1_over_serial | split_over_serial |")
    print("|---|---|---:|---:|---:|---:|")
    for d in r:
        print(f"| {d['solver']} | {d['box']} | {us(d['serial_s_per_it'])} | {us(d['dist1_s_per_it'])} | "
              f"{float(d['dist1_over_serial']):.3f} | {float(d['split_over_serial']):.3f} |")
    print()


def plot(paths, out, gpu):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    styles = {"mpi,mpi": ("o", ":"), "nccl,mpi": ("^", "-."), "nccl,nccl": ("s", "-")}
    top = 1
    for i, path in enumerate(paths):
        r = strong(path)
        if not r or r[0]["speedup"] is None:
            continue
        problem = os.path.basename(path)[len("strong-"):-len(".tsv")]
        color = f"C{i}"
        vias = sorted({f"{d['halo_via']},{d['reduce_via']}" for d in r if int(d["ranks"]) > 1})
        for via in vias:
            # every line starts at the one 1-GPU run (it has no halo to send)
            pts = [(1, 1.0)] + [(int(d["ranks"]), d["speedup"]) for d in r
                                if f"{d['halo_via']},{d['reduce_via']}" == via and int(d["ranks"]) > 1]
            marker, line = styles.get(via, ("D", "--"))
            halo, red = via.split(",")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle=line,
                    color=color, label=f"{problem}, halo {halo}, reductions {red}")
            top = max(top, max(p[0] for p in pts))
    gpus = [g for g in (1, 2, 4, 8) if g <= top]
    ax.plot(gpus, gpus, "k--", label="ideal")
    ax.set_xticks(gpus)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("speedup against 1 GPU")
    if gpu is None:
        names = {d["device"].split(" (")[0] for path in paths for d in rows(path)}
        gpu = ", ".join(sorted(names)) or "GPUs"
    ax.set_title(f"Strong scaling on {gpu} (one rank a GPU)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir", help="the OUTDIR of bench/run-mpi-gpu.sh")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the strong scaling into FILE.png")
    p.add_argument("--gpu", help="the GPU's name in the plot's title")
    a = p.parse_args()
    paths = sorted(glob.glob(os.path.join(a.dir, "strong-*.tsv")))
    for path in paths:
        strong_table(path)
    for name, fn in (("reduce.tsv", reduce_table), ("compare-serial.tsv", compare_table)):
        path = os.path.join(a.dir, name)
        if os.path.exists(path):
            fn(path)
    if a.plot:
        plot(paths, a.plot, a.gpu)


if __name__ == "__main__":
    main()
