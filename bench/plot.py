#!/usr/bin/env python3
"""plot.py: tables (markdown, for doc/performance.md) and PNG plots from spmv-bench, solve-bench and peers.py TSVs.

  plot.py spmv  SPMV.tsv  [--auto AUTO.tsv] [--out DIR]
                                                  speedup over cuSPARSE by matrix: the variant
                                                  the library picks (AUTO) and the best one
                                                  of the run; AUTO from the TSV's auto column
                                                  or from `spmv-bench --auto-choice --tsv`
  plot.py solve OURS.tsv PEERS.tsv... [--out DIR]  time per iteration, spsolve vs CuPy

Writes DIR/<stem>.md and DIR/<stem>.png (stem: the first TSV's name). Without matplotlib only
the markdown is written.
"""

import argparse
import math
import os
import sys

from traffic import mean_iteration_bytes, spmv_bytes


def read_tsv(path):
    """The '#' comment lines (as a dict of 'key: value' pairs) and the rows as dicts."""
    meta, rows, header = {}, [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition(":")
                meta[key.strip()] = val.strip()
            elif header is None:
                header = line.split("\t")
            elif line:
                rows.append(dict(zip(header, line.split("\t"))))
    return meta, rows


def num(s):
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def label(r):
    v = r["variant"]
    return "%s/%s" % (v, r["tpr"]) if v == "csr-vector" and r.get("tpr", "0") != "0" else v


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def is_pick(r):
    """A row of spmv-bench's auto(X) or tune(X): a variant as the library picks it."""
    return r["variant"].startswith(("auto(", "tune("))


def auto_rows(args, rows, ok):
    """For each matrix, the row of the variant the AUTO rule picks: the TSV's own 'auto' column,
    else the choice listed in --auto (variant and, for csr-vector, threads per row)."""
    out = {}
    if rows and "auto" in rows[0]:
        for r in ok:
            # The auto(X) row, when the run has one, is the variant as the library runs it.
            if r["auto"] == "yes" and (r["matrix"] not in out or r["variant"].startswith("auto(")):
                out[r["matrix"]] = r
        return out
    if not args.auto:
        return out
    _, choices = read_tsv(args.auto)
    for c in choices:
        for r in ok:
            if (r["matrix"] == c["matrix"] and r["variant"] == c["variant"]
                    and (c["variant"] != "csr-vector" or r["tpr"] == c["tpr"])):
                out[c["matrix"]] = r
    return out


def spmv(args):
    meta, rows = read_tsv(args.tsv[0])
    stem = os.path.splitext(os.path.basename(args.tsv[0]))[0]
    matrices = list(dict.fromkeys(r["matrix"] for r in rows))
    ok = [r for r in rows if r["status"] == "ok" and num(r["graph_us"] if not args.plain else r["plain_us"])]
    key = "plain" if args.plain else "graph"
    chosen = auto_rows(args, rows, ok)
    lines = [
        "SpMV on %s, %s; copy bandwidth %s GB/s; %s times (`spmv-bench`, x = %s). auto: the "
        "variant the library runs (AUTO: the model for the GPU or the rule%s); best: the fastest of the run's variants."
        % (meta.get("device", "?"), meta.get("date", "?"), meta.get("copy_bandwidth_GBs", "?").split()[0],
           "CUDA-graph" if key == "graph" else "plainly launched", meta.get("x", "?").split(";")[0],
           "" if rows and "auto" in rows[0] else ", from %s" % os.path.basename(args.auto) if args.auto
           else ": not known for this TSV"),
        "",
        "| matrix | nnz | cuSPARSE µs | roof | auto | µs | roof | speedup | best | µs | speedup |",
        "|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|",
    ]
    best, tuned = {}, {}
    for mname in matrices:
        rs = [r for r in ok if r["matrix"] == mname]
        if not rs:
            continue
        cs = [r for r in rs if r["variant"] == "cusparse"]
        # auto(X) and tune(X) rows repeat a variant as the library picks it: not candidates.
        ours = [r for r in rs if r["variant"] != "cusparse" and not is_pick(r)]
        t = [r for r in rs if r["variant"].startswith("tune(")]
        if t:
            tuned[mname] = t[0]
        b = min(ours, key=lambda r: num(r[key + "_us"])) if ours else None
        best[mname] = b
        c = cs[0] if cs else None
        a = chosen.get(mname)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            mname, rs[0]["nnz"],
            c[key + "_us"] if c else "-", c[key + "_roof"] if c else "-",
            label(a) if a else "-", a[key + "_us"] if a else "-", a[key + "_roof"] if a else "-",
            a["speedup_" + key] if a else "-",
            label(b) if b else "-", b[key + "_us"] if b else "-",
            b["speedup_" + key] if b else "-"))
    # Geometric means over the files (generated matrices, named like poisson3d:100, apart).
    for title, pick in (("auto", chosen), ("tune", tuned), ("best", best)):
        sp = [num(pick[m]["speedup_" + key]) for m in matrices
              if ":" not in m and pick.get(m) and num(pick[m]["speedup_" + key])]
        if sp:
            slower = [m for m in matrices if ":" not in m and pick.get(m)
                      and num(pick[m]["speedup_" + key]) is not None and num(pick[m]["speedup_" + key]) < 1.0]
            lines.append("")
            lines.append("%s: geometric-mean speedup %.2f over the %d matrix files, smallest %.2f, "
                         "slower than cuSPARSE on %d%s" % (
                             title, geomean(sp), len(sp), min(sp), len(slower),
                             " (%s)" % ", ".join(slower) if slower else ""))
    # The loss of the automatic choices: time of the picked variant over the best one's.
    for title, pick in (("auto", chosen), ("tune", tuned)):
        loss = [(num(pick[m][key + "_us"]) / num(best[m][key + "_us"]), m) for m in matrices
                if pick.get(m) and best.get(m) and num(pick[m][key + "_us"]) and num(best[m][key + "_us"])]
        if loss:
            worst = max(loss)
            lines.append("")
            lines.append("%s over best: geometric mean %.3f over %d matrices, worst %.3f (%s)" % (
                title, geomean([l for l, _ in loss]), len(loss), worst[0], worst[1]))
    bad = [r for r in rows if r["status"] != "ok" and not r["status"].startswith("refused")]
    if bad:
        lines += ["", "Failures:", ""] + ["- %s %s: %s" % (r["matrix"], label(r), r["status"]) for r in bad]
    write_md(args, stem, lines)

    plt = pyplot()
    if not plt:
        return 0
    names = [m for m in matrices if any(r["matrix"] == m and num(r["speedup_" + key]) for r in ok)]
    if not names:
        print("plot.py: no speedups over cusparse in %s (no cuSPARSE rows?): no plot" % args.tsv[0],
              file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(names) + 2), 4.5))
    variants = sorted({label(r) for r in ok if r["variant"] != "cusparse"})
    for vi, v in enumerate(variants):
        xs, ys = [], []
        for i, mname in enumerate(names):
            for r in ok:
                if r["matrix"] == mname and label(r) == v and num(r["speedup_" + key]):
                    xs.append(i + 0.04 * (vi - len(variants) / 2))
                    ys.append(num(r["speedup_" + key]))
        ax.scatter(xs, ys, s=14, alpha=0.7, label=v)
    bx = [i for i, m in enumerate(names) if best.get(m) and num(best[m]["speedup_" + key])]
    by = [num(best[names[i]]["speedup_" + key]) for i in bx]
    ax.plot(bx, by, "k_", markersize=18, mew=2, label="best per matrix")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup over cuSPARSE CSR ALG1 (%s)" % key)
    ax.set_title("SpMV, %s" % meta.get("device", ""), fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out = os.path.join(args.out, stem + ".png")
    fig.savefig(out, dpi=130)
    print("plot.py: wrote %s" % out, file=sys.stderr)
    return 0


def rebound(row, meta):
    """The row's bytes per iteration, bound and time over bound by the current traffic model
    (traffic.py): the TSV's bound and ratio scaled by the new bytes over the bytes the TSV
    counted (TSVs older than 2026-11-24 counted r.r and t.t as reading 2n), so the measured
    figures keep their digits; computed from the time per iteration and the run's copy
    bandwidth where the TSV has none; the row unchanged where its sizes are missing."""
    try:
        n, nnz, its = int(row["rows"]), int(row["nnz"]), int(row["iterations"])
        restart = int(row["restart"]) if row.get("restart", "-") != "-" else 1
        per = mean_iteration_bytes(row["solver"], n, spmv_bytes(n, n, nnz), its, restart,
                                   row.get("precond", "none"))
    except (KeyError, ValueError):
        return row
    old, bound, ratio = num(row.get("bytes_per_iter")), num(row.get("bound_us_per_iter")), \
        num(row.get("time_over_bound"))
    if old and bound and ratio:
        bound, ratio = bound * per / old, ratio * old / per
    else:
        try:
            bound = 1e6 * per / (1e9 * float(meta["copy_bandwidth_GBs"].split()[0]))
            ratio = float(row["us_per_iter"]) / bound
        except (KeyError, ValueError, ZeroDivisionError):
            return row
    out = dict(row)
    out.update(bytes_per_iter="%.0f" % per, bound_us_per_iter="%.2f" % bound,
               time_over_bound="%.2f" % ratio)
    return out


def solve(args):
    rows, metas = [], []
    for p in args.tsv:
        meta, rs = read_tsv(p)
        metas.append(meta)
        rows += [rebound(r, meta) for r in rs]
    stem = os.path.splitext(os.path.basename(args.tsv[0]))[0]
    lines = [
        "Solvers on %s, %s (`solve-bench` and `peers.py`, b = A*ones, x0 = 0); bound: the "
        "unfused iteration's bytes (bench/traffic.py) over the run's copy bandwidth."
        % (metas[0].get("device", "?"), metas[0].get("date", "?")),
        "",
        "| matrix | solver | impl | iterations | reason | relres | solve ms | µs/iteration | bound µs | time/bound |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["matrix"], r["solver"] + ("(%s)" % r["restart"] if r["restart"] != "-" else ""),
            r["impl"], r["iterations"], r["reason"], r["relres"], r["solve_ms"],
            r["us_per_iter"], r["bound_us_per_iter"], r["time_over_bound"]))
    write_md(args, stem, lines)

    plt = pyplot()
    if not plt:
        return 0
    cases = list(dict.fromkeys((r["matrix"], r["solver"]) for r in rows))
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(cases) + 2), 4.5))
    w = 0.8 / max(1, len(impls))
    for k, impl in enumerate(impls):
        xs, ys = [], []
        for i, (mname, sv) in enumerate(cases):
            for r in rows:
                if r["matrix"] == mname and r["solver"] == sv and r["impl"] == impl and num(r["us_per_iter"]):
                    xs.append(i + (k - (len(impls) - 1) / 2) * w)
                    ys.append(num(r["us_per_iter"]))
        ax.bar(xs, ys, width=w, label=impl)
    bx, by = [], []
    for i, (mname, sv) in enumerate(cases):
        for r in rows:
            if r["matrix"] == mname and r["solver"] == sv and r["impl"] == "spsolve" and num(r["bound_us_per_iter"]):
                bx.append(i)
                by.append(num(r["bound_us_per_iter"]))
    ax.plot(bx, by, "k_", markersize=20, mew=2, label="bandwidth bound")
    ax.set_yscale("log")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(["%s\n%s" % c for c in cases], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("µs per iteration")
    ax.set_title("Krylov solvers, %s" % metas[0].get("device", ""), fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(args.out, stem + ".png")
    fig.savefig(out, dpi=130)
    print("plot.py: wrote %s" % out, file=sys.stderr)
    return 0


def write_md(args, stem, lines):
    out = os.path.join(args.out, stem + ".md")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("plot.py: wrote %s" % out, file=sys.stderr)


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("plot.py: matplotlib is not installed: markdown only", file=sys.stderr)
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["spmv", "solve"])
    ap.add_argument("tsv", nargs="+")
    ap.add_argument("--out", default=".", help="folder for the .md and .png")
    ap.add_argument("--plain", action="store_true", help="spmv: plainly launched times, not the graph ones")
    ap.add_argument("--auto", help="spmv: the AUTO choices (spmv-bench --auto-choice --tsv) for a TSV "
                    "without an auto column")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    return spmv(args) if args.kind == "spmv" else solve(args)


if __name__ == "__main__":
    sys.exit(main())
