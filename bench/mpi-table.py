#!/usr/bin/env python3
"""mpi-table.py: the Markdown tables of doc/performance.md "Distributed" from the files of bench/run-mpi-cpu.sh.

    bench/mpi-table.py DIR

Reads DIR/weak-*.tsv, strong-*.tsv, compare-serial.tsv, read-G3_circuit.tsv and
pipelined-iterations.tsv (those present) and prints one table each. Times are per CG
iteration in microseconds: the solve's (the slowest rank's) and its parts (the mean over the
ranks: local products, halo exchange, reductions, the rest). The load column is the machine's
one-minute load average when the run started (its comment line in the file).
"""
import glob
import os
import sys


def rows(path):
    """The TSV rows of a run-mpi-cpu.sh file as dicts, each with the load of its run."""
    out, header, load = [], None, ""
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                if ", load " in line:
                    load = line.split(", load ")[1].split()[0]
                continue
            cells = line.split("\t")
            if header is None or cells[0] in ("date", "matrix"):
                header = cells
                continue
            d = dict(zip(header, cells))
            d["load"] = load
            out.append(d)
    return out


def us(x):
    return f"{1e6 * float(x):.0f}"


def scaling(path, weak):
    r = rows(path)
    if not r:
        return
    name = os.path.basename(path)
    print(f"{name} ({r[0]['box'] if not weak else 'N x N x P N box'}, {r[0]['method']}, "
          f"{r[0]['iterations']} iterations):\n")
    print("| ranks x threads | rows | µs/it | " + ("efficiency" if weak else "speedup") +
          " | local SpMV | halo (wait) | reductions | rest | halo entries | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = None
    for d in r:
        t = float(d["s_per_it"])
        if d["ranks"] == "1" and d["threads"] == "1":
            base = t
        ratio = (base / t if base else float("nan"))
        print(f"| {d['ranks']} x {d['threads']} | {d['rows']} | {us(t)} | {ratio:.2f} | "
              f"{us(d['spmv_s_per_it'])} | {us(d['halo_s_per_it'])} ({us(d['halo_wait_s_per_it'])}) | "
              f"{us(d['reduce_s_per_it'])} | {us(d['rest_s_per_it'])} | {d['halo_total']} | {d['load']} |")
    print()


def compare(path):
    r = rows(path)
    if not r:
        return
    print("compare-serial.tsv (one rank; µs per iteration):\n")
    print("| box | method | single process | distributed, 1 rank | ratio | split reductions | ratio | load |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for d in r:
        print(f"| {d['box']} | {d['method']} | {us(d['serial_s_per_it'])} | {us(d['dist1_s_per_it'])} | "
              f"{float(d['dist1_over_serial']):.3f} | {us(d['dist1_split_s_per_it'])} | "
              f"{float(d['split_over_serial']):.3f} | {d['load']} |")
    print()


def read(path):
    r = rows(path)
    if not r:
        return
    print(f"{os.path.basename(path)} (seconds, median of the repeats):\n")
    print("| ranks | mode | read | distribute | total | halo entries | load |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for d in r:
        print(f"| {d['ranks']} | {d['mode']} | {float(d['read_s']):.2f} | {float(d['distribute_s']):.2f} | "
              f"{float(d['total_s']):.2f} | {d['halo_total']} | {d['load']} |")
    print()


def pipelined(path):
    r = rows(path)
    if not r:
        return
    print("pipelined-iterations.tsv (CG to rtol 1e-8, b = A 1):\n")
    print("| matrix | preconditioner | ranks | CG | pipelined CG | difference |")
    print("|---|---|---:|---:|---:|---:|")
    for d in r:
        cg, pl = d["cg_iterations"], d["pipelined_iterations"]
        try:
            pct = f" ({100.0 * (int(pl) - int(cg)) / int(cg):+.1f}%)"
        except ValueError:
            pct = ""
        note = lambda reason: "" if reason == "SPS_CONVERGED_RTOL" else f" {reason}"
        print(f"| {d['matrix']} | {d['precond']} | {d['ranks']} | {cg}{note(d['cg_reason'])} | "
              f"{pl}{note(d['pipelined_reason'])} | {d['difference']}{pct} |")
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    for p in sorted(glob.glob(os.path.join(top, "weak-*.tsv"))):
        scaling(p, True)
    for p in sorted(glob.glob(os.path.join(top, "strong-*.tsv"))):
        scaling(p, False)
    for name, fn in (("compare-serial.tsv", compare), ("read-G3_circuit.tsv", read),
                     ("pipelined-iterations.tsv", pipelined)):
        p = os.path.join(top, name)
        if os.path.exists(p):
            fn(p)


if __name__ == "__main__":
    main()
