#!/usr/bin/env python3
"""train.py: trains the SpMV choice on select-sweep TSVs and writes it as generated C (spmv/model_smXY.c).

Usage:
  python3 bench/select/train.py --cc 90 [--out spmv/model_sm90.c] SWEEP.tsv [SWEEP2.tsv ...]

A decision tree over the fields of sps_matrix_stats (the TSV's statistics columns, without
stats_s, the cost of computing them, and without the --exclude ones) that predicts the
configuration (variant and threads per row). By default short_blocks is left out: AUTO's
statistics (spmv/stats.c) skip its sequential host pass and leave it -1, so a model must never
read it; the generated C is checked to read only the features trained on. It is grown by CART on a cost matrix instead of labels: C[i][k] is the time lost by running
configuration k on matrix i, t_k/t_best - 1 (--loss ratio, the default) or ln(t_k/t_best)
(--loss log), and --failure-cost for a configuration that refused or failed the matrix. A node
predicts the configuration of least total cost over its matrices, and a split is kept when it
lowers that total; so a mistake counts by the time it costs, and a near-tie costs almost nothing.
Each leaf also ranks the configurations by that cost, best first: the library falls back along
this ranking when the first one cannot run on a matrix. The model chooses among --candidates
only (default: the variants that give csr-scalar's bits, the only ones AUTO runs: csr-scalar,
csr-vector, ell, merge, blockwise, binned); the best of all timed configurations, coo, hyb and cuSPARSE
included, stays the reference of every ratio.

The rows of the sets given by --train-sets (default: train) train the tree; the metrics are
printed for every set: time of the chosen configuration over the best, geometric mean and worst,
for the model, for spsolve's rule (spmv/select.c), for CUSP's mean-row-length rule (csr-vector,
threads per row min(2^ceil(log2(floor(mean))), 32), at least 2) and for always-cuSPARSE; and how
many matrices the choice runs slower than cuSPARSE. Pure Python 3 (no numpy, no scikit-learn),
deterministic: the same TSVs give the same C file.
"""
import argparse
import math
import os
import re
import sys

STATS = ["rows", "cols", "nnz", "density", "mean_len", "min_len", "max_len", "var_len", "cv_len",
         "empty_share", "over32_share", "over1024_share", "short_blocks", "long_blocks",
         "long_rows", "col_distance", "windows_per_row"]
# The fields AUTO's fast statistics leave unset (sps_spmv_stats_compute without
# SPS_STATS_SHORT_BLOCKS): the default of --exclude.
NOT_IN_AUTO = ("short_blocks",)
# The variants AUTO may run (spmv/select.c, sps_spmv_config_fits): those that give csr-scalar's
# bits; coo, hyb and cusparse sum in another order.
CANDIDATES = ("csr-scalar", "csr-vector", "ell", "merge", "blockwise", "binned")
ENUM = {"csr-scalar": "SPS_SPMV_CSR_SCALAR", "csr-vector": "SPS_SPMV_CSR_VECTOR",
        "ell": "SPS_SPMV_ELL", "coo": "SPS_SPMV_COO", "hyb": "SPS_SPMV_HYB",
        "merge": "SPS_SPMV_MERGE", "blockwise": "SPS_SPMV_BLOCKWISE", "binned": "SPS_SPMV_BINNED",
        "cusparse": "SPS_SPMV_CUSPARSE"}


def config_c(name):
    """'csr-vector-8' -> ('SPS_SPMV_CSR_VECTOR', 8); 'hyb' -> ('SPS_SPMV_HYB', 0)."""
    if name.startswith("csr-vector-"):
        return ENUM["csr-vector"], int(name.rsplit("-", 1)[1])
    return ENUM[name], 0


class Sweep:
    """The rows of one or more select-sweep TSVs."""

    def __init__(self, paths):
        self.rows, self.configs, self.sources = [], None, []
        for path in paths:
            meta, header = {}, None
            with open(path) as f:
                for line in f:
                    line = line.rstrip("\n")
                    if line.startswith("#"):
                        key, _, val = line[1:].strip().partition(":")
                        if key in ("device", "date") and key not in meta:
                            meta[key] = val.strip()
                        continue
                    cells = line.split("\t")
                    if header is None:
                        header = cells
                        configs = [c[3:] for c in header if c.startswith("us_")]
                        if self.configs is None:
                            self.configs = configs
                        elif configs != self.configs:
                            sys.exit(f"train.py: {path}: other configurations than the first TSV")
                        continue
                    r = dict(zip(header, cells))
                    times = {}
                    for c in self.configs:
                        v = r.get("us_" + c, "-")
                        times[c] = float(v) if v not in ("-", "", "nan") else None
                    if all(t is None for t in times.values()):
                        continue
                    x = [float(r[s]) for s in STATS]
                    self.rows.append({"spec": r["spec"], "set": r["set"], "x": x, "t": times})
            self.sources.append((path, meta))
        if not self.rows:
            sys.exit("train.py: no measured rows in the TSVs")


def cost_vector(t, configs, loss, failure_cost):
    best = min(v for v in t.values() if v is not None)
    out = []
    for c in configs:
        if t[c] is None:
            out.append(failure_cost)
        elif loss == "log":
            out.append(math.log(t[c] / best))
        else:
            out.append(t[c] / best - 1.0)
    return out


class Node:
    def __init__(self, costs, idx):
        tot = [0.0] * len(costs[0]) if idx else []
        for i in idx:
            ci = costs[i]
            for k in range(len(tot)):
                tot[k] += ci[k]
        self.total = tot
        self.cost = min(tot) if tot else 0.0
        self.n = len(idx)
        self.feature = None
        self.threshold = None
        self.left = self.right = None


def grow(node, idx, X, costs, depth, max_depth, min_leaf):
    """Split node (rows idx) by the test x[f] <= threshold of largest cost decrease."""
    if depth >= max_depth or len(idx) < 2 * min_leaf or node.cost <= 1e-12:
        return
    K = len(costs[0])
    best = (node.cost - 1e-9, None, None)
    for f in range(len(X[0])):
        order = sorted(idx, key=lambda i: X[i][f])
        left = [0.0] * K
        for pos in range(len(order) - 1):
            ci = costs[order[pos]]
            for k in range(K):
                left[k] += ci[k]
            nl = pos + 1
            if nl < min_leaf or len(order) - nl < min_leaf:
                continue
            a, b = X[order[pos]][f], X[order[pos + 1]][f]
            if a == b:
                continue
            c = min(left) + min(node.total[k] - left[k] for k in range(K))
            if c < best[0]:
                best = (c, f, 0.5 * (a + b))
    if best[1] is None:
        return
    node.feature, node.threshold = best[1], best[2]
    li = [i for i in idx if X[i][node.feature] <= node.threshold]
    ri = [i for i in idx if X[i][node.feature] > node.threshold]
    node.left, node.right = Node(costs, li), Node(costs, ri)
    grow(node.left, li, X, costs, depth + 1, max_depth, min_leaf)
    grow(node.right, ri, X, costs, depth + 1, max_depth, min_leaf)


def ranking(node, configs, n):
    order = sorted(range(len(configs)), key=lambda k: (node.total[k], k))
    return [configs[k] for k in order[:n]]


def predict(node, x):
    while node.feature is not None:
        node = node.left if x[node.feature] <= node.threshold else node.right
    return node


def fmt(v):
    """A short display of a threshold for the path text."""
    return f"{v:.4g}"


def rule_choice(x):
    """spsolve's rule on a GPU (spmv/select.c, sps_spmv_select_rule)."""
    s = dict(zip(STATS, x))
    if s["nnz"] == 0:
        return "csr-scalar"
    if s["max_len"] <= 4.0 * s["mean_len"] + 8.0:
        if s["mean_len"] <= 12.0:
            return "csr-scalar"
        t = 2
        while t < 32 and s["mean_len"] > math.sqrt(2.0) * t:
            t *= 2
        return f"csr-vector-{t}"
    return "blockwise"


def cusp_choice(x):
    """CUSP's csr-vector threads per row: min(2^ceil(log2(floor(mean))), 32), at least 2."""
    m = math.floor(dict(zip(STATS, x))["mean_len"])
    t = 2 if m <= 1 else min(2 ** math.ceil(math.log2(m)), 32)
    return f"csr-vector-{max(t, 2)}"


def run_ranked(t, ranked, fallback):
    """The time the library would get: the first ranked configuration that ran, else fallback."""
    for c in ranked:
        if t.get(c) is not None:
            return t[c]
    return t.get(fallback)


def metrics(rows, choose):
    """geomean and worst of chosen/best, how many slower than cuSPARSE, how many without a time."""
    ratios, slower, missing = [], 0, 0
    for r in rows:
        best = min(v for v in r["t"].values() if v is not None)
        tc = choose(r)
        if tc is None:
            missing += 1
            continue
        ratios.append(tc / best)
        cu = r["t"].get("cusparse")
        if cu is not None and tc > cu:
            slower += 1
    if not ratios:
        return None
    g = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
    return g, max(ratios), slower, missing


def report(sweep, tree, ranked_n, sets, cands, feature_cols):
    lines = []
    cols = [("model", lambda r: run_ranked(r["t"], ranking(predict(tree, [r["x"][c] for c in
                                                                           feature_cols]),
                                                           cands, ranked_n), "csr-scalar")),
            ("rule", lambda r: run_ranked(r["t"], [rule_choice(r["x"])], "csr-scalar")),
            ("cusp", lambda r: r["t"].get(cusp_choice(r["x"]))),
            ("cusparse", lambda r: r["t"].get("cusparse"))]
    lines.append(f"{'set':8s} {'n':>4s}  " + "  ".join(
        f"{c:>26s}" for c, _ in cols))
    lines.append(f"{'':8s} {'':>4s}  " + "  ".join(
        f"{'geomean  worst  >cusparse':>26s}" for _ in cols))
    for s in sets:
        rows = [r for r in sweep.rows if r["set"] == s]
        if not rows:
            continue
        cells = []
        for _, fn in cols:
            m = metrics(rows, fn)
            cells.append(f"{'-':>26s}" if m is None else
                         f"{m[0]:7.3f} {m[1]:6.2f} {m[2]:10d}" + (f" ({m[3]} no time)" if m[3] else ""))
        lines.append(f"{s:8s} {len(rows):4d}  " + "  ".join(f"{c:>26s}" for c in cells))
    return lines


def emit_c(tree, sweep, args, ranked_n, metric_lines, argv, cands, features):
    name = f"sm{args.cc}"
    out = []
    out.append(f"/* model_{name}.c: the SpMV choice for compute capability {args.cc // 10}.{args.cc % 10} "
               f"GPUs, a decision tree generated by bench/select/train.py; do not edit. */")
    out.append("/*")
    out.append(" * Generated by: python3 bench/select/train.py " + " ".join(argv))
    for path, meta in sweep.sources:
        out.append(f" * From: {os.path.basename(path)} (device: {meta.get('device', '?')}; "
                   f"date: {meta.get('date', '?')})")
    ntrain = sum(1 for r in sweep.rows if r["set"] in args.train_sets)
    out.append(f" * Trained on {ntrain} matrices of the sets {', '.join(args.train_sets)}; loss "
               f"{args.loss}, failure cost {args.failure_cost}, depth at most {args.max_depth}, "
               f"at least {args.min_leaf} matrices a leaf.")
    out.append(f" * Candidates: {', '.join(cands)}.")
    out.append(f" * Features: {', '.join(features)}.")
    out.append(" * Time of the choice over the best configuration (geometric mean, worst, matrices")
    out.append(" * slower than cuSPARSE), the model beside spsolve's rule, CUSP's rule, cuSPARSE:")
    for l in metric_lines:
        out.append(" *   " + l.rstrip())
    out.append(" */")
    out.append('#include "spmv_internal.h"')
    out.append("")
    out.append(f"void sps_spmv_model_{name}(const sps_matrix_stats *s, sps_spmv_choice *out);")
    out.append("")
    out.append(f"void sps_spmv_model_{name}(const sps_matrix_stats *s, sps_spmv_choice *out)")
    out.append("{")

    def walk(node, path, ind):
        pad = "  " * ind
        if node.feature is None:
            r = ranking(node, cands, ranked_n)
            cfgs = ", ".join("{%s, %d}" % config_c(c) for c in r)
            text = ", ".join(path) if path else "(root)"
            out.append(pad + f"static const sps_spmv_config r[] = {{{cfgs}}};")
            out.append(pad + f'sps_spmv_model_leaf(out, r, {len(r)}, "{text}");')
            out.append(pad + "return;")
            return
        f = features[node.feature]
        out.append(pad + f"if (s->{f} <= {node.threshold!r}) {{")
        walk(node.left, path + [f"{f}<={fmt(node.threshold)}"], ind + 1)
        out.append(pad + "} else {")
        walk(node.right, path + [f"{f}>{fmt(node.threshold)}"], ind + 1)
        out.append(pad + "}")

    walk(tree, [], 1)
    out.append("}")
    return "\n".join(out) + "\n"


def count_leaves(n):
    return 1 if n.feature is None else count_leaves(n.left) + count_leaves(n.right)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tsv", nargs="+", help="select-sweep TSVs (of one GPU)")
    ap.add_argument("--cc", type=int, required=True, help="compute capability, e.g. 90")
    ap.add_argument("--out", help="the C file (default spmv/model_smCC.c; '-' for stdout, "
                                  "'none' to write nothing)")
    ap.add_argument("--train-sets", default="train", help="comma-separated sets to train on")
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--min-leaf", type=int, default=3)
    ap.add_argument("--loss", choices=("ratio", "log"), default="ratio")
    ap.add_argument("--failure-cost", type=float, default=10.0)
    ap.add_argument("--ranked", type=int, default=4, help="configurations ranked in a leaf (<= 6)")
    ap.add_argument("--exclude", default=",".join(NOT_IN_AUTO),
                    help="statistics the tree may not test, comma-separated (default: "
                         f"{','.join(NOT_IN_AUTO)}, which AUTO does not compute; '' for none)")
    ap.add_argument("--candidates", default=",".join(CANDIDATES),
                    help="configurations the model may choose, comma-separated prefixes (default: "
                         "the variants that round like csr-scalar, which AUTO is limited to; the "
                         "best over all timed configurations stays the reference)")
    args = ap.parse_args(argv)
    args.train_sets = args.train_sets.split(",")
    ranked_n = max(1, min(6, args.ranked))
    sweep = Sweep(args.tsv)
    train = [r for r in sweep.rows if r["set"] in args.train_sets]
    if not train:
        sys.exit("train.py: no rows of the training sets")
    prefixes = [p for p in args.candidates.split(",") if p]
    cands = [c for c in sweep.configs if any(c == p or c.startswith(p + "-") for p in prefixes)]
    if not cands:
        sys.exit("train.py: no configuration matches --candidates")
    excluded = [f for f in args.exclude.split(",") if f]
    unknown = [f for f in excluded if f not in STATS]
    if unknown:
        sys.exit(f"train.py: --exclude: no statistic named {', '.join(unknown)}")
    features = [f for f in STATS if f not in excluded]
    cols = [STATS.index(f) for f in features]
    X = [[r["x"][c] for c in cols] for r in train]
    costs = [[v for c, v in zip(sweep.configs, cost_vector(r["t"], sweep.configs, args.loss,
                                                             args.failure_cost)) if c in cands]
             for r in train]
    tree = Node(costs, list(range(len(train))))
    grow(tree, list(range(len(train))), X, costs, 0, args.max_depth, args.min_leaf)
    sets = sorted({r["set"] for r in sweep.rows}, key=lambda s: ("train", "holdout", "shared").index(s)
                  if s in ("train", "holdout", "shared") else 9)
    lines = report(sweep, tree, ranked_n, sets, cands, cols)
    out = args.out or f"spmv/model_sm{args.cc}.c"
    log = sys.stderr if out == "-" else sys.stdout
    print(f"train.py: {len(train)} training matrices, {count_leaves(tree)} leaves", file=log)
    print("\n".join(lines), file=log)
    if out == "none":
        return 0
    text = emit_c(tree, sweep, args, ranked_n, lines, argv, cands, features)
    read = sorted(set(re.findall(r"\bs->([a-z_0-9]+)", text)))
    if any(f not in features for f in read):
        sys.exit(f"train.py: the generated C reads {', '.join(f for f in read if f not in features)}"
                 f", which it was not trained on")
    if out == "-":
        sys.stdout.write(text)
    else:
        with open(out, "w") as f:
            f.write(text)
        print(f"train.py: wrote {out}; to build it in, add it to spmv/local.mk and the line\n"
              f"  {{{args.cc}, \"sm{args.cc}\", sps_spmv_model_sm{args.cc}}},\n"
              f"to models[] in spmv/select.c (with its declaration above the table).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
