"""plot.py: spsolve-plot, convergence pictures from `spsolve --json --history` output files.

    spsolve --json --history --precond ilu0 A.mtx > ilu0.json
    spsolve --json --history --precond jacobi A.mtx > jacobi.json
    spsolve-plot -o conv.png ilu0.json jacobi.json      (or: python -m spsolve.plot ...)

Draws the relative residual ||r_k|| / ||b|| (the recurrence norms of the history) on a log
scale against the iteration and against the time, one curve per file. ||b|| is
residual_abs / residual_rel of the run (the history's first entry when that ratio is not
defined: with the initial guess 0, r_0 = b). The JSON has no time per iteration, so the time
axis places iteration k at time_setup + (k / iterations) * time_solve: the setup first, then
the solve's iterations spread evenly over its time. A dot marks each change of method or
preconditioner made by the automatic choice (its tries, "attempts").
"""

import argparse
import json
import math
import os
import sys


def _refuse_constant(token):
    raise ValueError(f"not JSON: {token}")


def load_run(path):
    """One run: its label parts, relative residuals, iteration numbers and times."""
    with open(path) as f:
        try:
            d = json.load(f, parse_constant=_refuse_constant)
        except ValueError as e:
            raise SystemExit(f"spsolve-plot: {path}: not the JSON of spsolve --json ({e})")
    if not isinstance(d, dict):
        raise SystemExit(f"spsolve-plot: {path}: not the JSON object of spsolve --json")
    hist = d.get("history")
    if not hist:
        raise SystemExit(
            f"spsolve-plot: {path} has no residual history: run spsolve with --json --history")
    hist = [math.nan if v is None else float(v) for v in hist]
    rabs, rrel = d.get("residual_abs"), d.get("residual_rel")
    if rabs is not None and rrel is not None and rrel > 0 and rabs > 0:
        bnorm = rabs / rrel
    else:
        bnorm = hist[0]
    if not bnorm or not math.isfinite(bnorm):
        bnorm = 1.0
    rel = [v / bnorm for v in hist]
    its = list(range(len(rel)))
    iterations = d.get("iterations") or (len(rel) - 1)
    t_setup = d.get("time_setup") or 0.0
    t_solve = d.get("time_solve") or 0.0
    times = [t_setup + (k / iterations if iterations else 0.0) * t_solve for k in its]
    switches = []
    done = 0
    attempts = d.get("attempts") or []
    for a in attempts[:-1]:
        done += a.get("iterations") or 0
        if 0 < done < len(rel):
            switches.append(done)
    return {
        "path": path,
        "matrix": os.path.basename(str(d.get("matrix", "?"))),
        "method": d.get("solver", "?"),
        "precond": d.get("precond", "?"),
        "auto": d.get("precond_requested") == "auto",
        "device": d.get("device", ""),
        "rtol": d.get("rtol"),
        "converged": d.get("converged"),
        "rel": rel,
        "its": its,
        "times": times,
        "switches": switches,
    }


def _labels(runs, mode):
    """Legend entries: method+preconditioner, "(auto)" when the preconditioner was the automatic
    choice, with the matrix when the files hold several; or the file name. A file name is added
    where two labels would be the same."""
    if mode == "file":
        return [os.path.basename(r["path"]) for r in runs]
    several = len({r["matrix"] for r in runs}) > 1
    labels = [(f"{r['matrix']}: " if several else "") + f"{r['method']}+{r['precond']}"
              + (" (auto)" if r["auto"] else "") for r in runs]
    return [f"{lab} ({os.path.basename(r['path'])})" if labels.count(lab) > 1 else lab
            for lab, r in zip(labels, runs)]


def plot(runs, out, title=None, labels="run"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
    for run, label in zip(runs, _labels(runs, labels)):
        rel = [v if v > 0 else math.nan for v in run["rel"]]
        (line,) = ax1.semilogy(run["its"], rel, label=label, lw=1.4)
        ax2.semilogy(run["times"], rel, label=label, lw=1.4, color=line.get_color())
        for k in run["switches"]:
            ax1.plot([k], [rel[k]], "o", color=line.get_color(), ms=5)
            ax2.plot([run["times"][k]], [rel[k]], "o", color=line.get_color(), ms=5)
    for rtol in sorted({r["rtol"] for r in runs if r["rtol"]}):
        for ax in (ax1, ax2):
            ax.axhline(rtol, color="gray", lw=0.8, ls=":")
    ax1.set_xlabel("iteration")
    ax2.set_xlabel("time since the start of setup (s; iterations spread evenly over the solve)")
    for ax in (ax1, ax2):
        ax.set_ylabel("||r|| / ||b||")
        ax.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    if title is None:
        matrices = sorted({r["matrix"] for r in runs})
        devices = sorted({r["device"] for r in runs if r["device"]})
        title = ", ".join(matrices) + (f" on {', '.join(devices)}" if devices else "")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="spsolve-plot",
        description="Convergence pictures (relative residual against iteration and time, log "
        "scale) from spsolve --json --history output files, one curve per file.",
    )
    p.add_argument("files", nargs="+", metavar="RUN.json", help="output of spsolve --json --history")
    p.add_argument("-o", "--output", default="convergence.png",
                   help="picture to write; the format follows the extension (default %(default)s)")
    p.add_argument("--title", help="title (default: the matrices and the device)")
    p.add_argument("--labels", choices=("run", "file"), default="run",
                   help="legend from the run's method+preconditioner (default) or the file name")
    args = p.parse_args(argv)
    runs = [load_run(f) for f in args.files]
    plot(runs, args.output, title=args.title, labels=args.labels)
    print(f"spsolve-plot: wrote {args.output} ({len(runs)} run{'s' if len(runs) > 1 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
