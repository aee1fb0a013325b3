#!/usr/bin/env python3
"""Plot of an exploration: time against memory for every validated point, the Pareto
front marked and joined.

Usage: python3 scripts/plot_pareto.py DIR [-o FILE.png]
DIR is the -o folder of `liftc explore --pareto` (it reads DIR/evaluated.csv and
DIR/pareto.csv); the plot goes to DIR/pareto.png unless -o says otherwise.
Needs matplotlib (Debian: apt-get install python3-matplotlib)."""

import argparse
import csv
import os
import sys


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def points(rows):
    """(time_ms, spread_ms, memory_bytes, label) of every validated row."""
    out = []
    for r in rows:
        if r["status"] not in ("ok", "cut") or not r["time_ms"]:
            continue
        out.append((float(r["time_ms"]), float(r["spread_ms"] or 0), int(r["memory_bytes"]),
                    f'{r["strategy"]} #{r["alternative"]}'))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="the -o folder of liftc explore --pareto")
    parser.add_argument("-o", "--output", help="image file (default DIR/pareto.png)")
    args = parser.parse_args()
    evaluated = os.path.join(args.dir, "evaluated.csv")
    front_file = os.path.join(args.dir, "pareto.csv")
    for path in (evaluated, front_file):
        if not os.path.isfile(path):
            sys.exit(f"plot_pareto.py: {path} not found (is {args.dir} the -o folder of liftc explore --pareto?)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_pareto.py: matplotlib is missing (apt-get install python3-matplotlib)")

    everything = points(read_rows(evaluated))
    front = sorted(points(read_rows(front_file)))
    if not everything:
        sys.exit("plot_pareto.py: no validated point to plot")
    fig, ax = plt.subplots(figsize=(8, 5))
    strategies = sorted({p[3].split(" #")[0] for p in everything})
    for s in strategies:
        mine = [p for p in everything if p[3].split(" #")[0] == s]
        ax.scatter([p[2] / 1024 for p in mine], [p[0] for p in mine], s=12, alpha=0.5, label=s)
    ax.errorbar([p[2] / 1024 for p in front], [p[0] for p in front], yerr=[p[1] for p in front], fmt="o",
                color="black", markerfacecolor="none", markersize=9, capsize=3, label="Pareto front (± spread)")
    # The front as a staircase: from the fastest point down to the one using least memory.
    ax.step([p[2] / 1024 for p in front], [p[0] for p in front], where="post", color="black", linewidth=1)
    ax.set_xlabel("global memory (KiB)")
    ax.set_ylabel("time (ms, sum of all kernels, median)")
    ax.set_yscale("log")
    ax.set_title(f"{len(everything)} validated points, {len(front)} on the front")
    ax.legend(fontsize=8)
    out = args.output or os.path.join(args.dir, "pareto.png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
