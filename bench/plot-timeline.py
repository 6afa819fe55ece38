#!/usr/bin/env python3
"""plot-timeline.py: draw the per-rank timeline of a distributed solve (spsolve --timeline FILE, or
bench/mpi-bench --timeline FILE) and summarise how far the halo exchange hides behind the local product.

    bench/plot-timeline.py TIMELINE.tsv [-o PNG] [--from S] [--to S] [--products K]

The TSV has one line per event: rank, event (halo-start, spmv-local, halo-wait, spmv-boundary,
reduce), start_s, end_s, on each rank's clock (started after a barrier). The picture has one
row per rank and a bar per event; --products K draws the first K products after --from only
(default 3), so that the bars are wide enough to see. The summary printed on stdout gives, per
rank, the seconds in each kind of event and the overlap: the share of each exchange's flight
(from the end of halo-start to the end of halo-wait) spent on the local product, and what was
left to wait.
"""
import argparse
import collections
import sys

COLORS = {
    "halo-start": "#d62728",
    "spmv-local": "#2ca02c",
    "halo-wait": "#ff7f0e",
    "spmv-boundary": "#1f77b4",
    "reduce": "#9467bd",
}


def read(path):
    events = []
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["rank", "event", "start_s", "end_s"]:
            sys.exit(f"{path}: not a timeline (header {header})")
        for line in f:
            r, kind, a, b = line.rstrip("\n").split("\t")
            events.append((int(r), kind, float(a), float(b)))
    return events


def summary(events):
    by_rank = collections.defaultdict(list)
    for e in events:
        by_rank[e[0]].append(e)
    print("rank\tkind\tseconds\tcount")
    for r in sorted(by_rank):
        tot = collections.Counter()
        cnt = collections.Counter()
        for _, k, a, b in by_rank[r]:
            tot[k] += b - a
            cnt[k] += 1
        for k in COLORS:
            if cnt[k]:
                print(f"{r}\t{k}\t{tot[k]:.6f}\t{cnt[k]}")
    print()
    print("rank\texchanges\tflight_s\tlocal_in_flight_s\twait_s\thidden_share")
    for r in sorted(by_rank):
        ev = sorted(by_rank[r], key=lambda e: e[2])
        flight = hidden = wait = 0.0
        n = 0
        for i, (_, k, a, b) in enumerate(ev):
            if k != "halo-start":
                continue
            # the next halo-wait closes this exchange; the local product between them overlaps it
            j = i + 1
            local = 0.0
            while j < len(ev) and ev[j][1] != "halo-wait":
                if ev[j][1] == "spmv-local":
                    local += ev[j][3] - ev[j][2]
                j += 1
            if j == len(ev):
                break
            fl = ev[j][3] - b
            flight += fl
            hidden += min(local, fl)
            wait += ev[j][3] - ev[j][2]
            n += 1
        share = hidden / flight if flight > 0 else float("nan")
        print(f"{r}\t{n}\t{flight:.6f}\t{hidden:.6f}\t{wait:.6f}\t{share:.3f}")


def plot(events, out, t_from, products):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ranks = sorted({e[0] for e in events})
    # the window: from t_from, the first `products` halo-starts of rank 0 and the rest of the last
    starts = sorted(e[2] for e in events if e[0] == ranks[0] and e[1] == "halo-start" and e[2] >= t_from)
    if not starts:
        sys.exit("no halo exchange after --from: nothing to draw (one rank?)")
    t0 = starts[0]
    t1 = starts[products] if len(starts) > products else max(e[3] for e in events)
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.6 * len(ranks)))
    for r, k, a, b in events:
        if b < t0 or a > t1:
            continue
        ax.broken_barh([(1e6 * (a - t0), 1e6 * (b - a))], (r - 0.35, 0.7), color=COLORS.get(k, "grey"))
    ax.set_yticks(ranks)
    ax.set_yticklabels([f"rank {r}" for r in ranks])
    ax.set_xlabel("microseconds")
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    ax.legend(handles, list(COLORS), ncol=5, loc="upper center", bbox_to_anchor=(0.5, 1.35), fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("timeline")
    p.add_argument("-o", "--output", help="PNG to write (default: none, the summary only)")
    p.add_argument("--from", dest="t_from", type=float, default=0.0, help="start of the window (s)")
    p.add_argument("--products", type=int, default=3, help="products drawn (default 3)")
    a = p.parse_args()
    events = read(a.timeline)
    summary(events)
    if a.output:
        plot(events, a.output, a.t_from, a.products)


if __name__ == "__main__":
    main()
